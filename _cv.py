import sys, dataclasses, gaitopt as go
variant = sys.argv[1]
for s in (1, 2, 4, 8):
    p = go.load_problem("problems/biped7_static_walk.yaml").scaled_knots(s)
    c = p.constraints
    if variant == "soft": p = p.replace(constraints=dataclasses.replace(c, touchdown="soft"))
    if variant == "noclear": p = p.replace(constraints=dataclasses.replace(c, clearance=0.0))
    if variant == "hs": p = p.replace(transcription="hermite_simpson")
    r = go.solve(p, print_level=0, warm_start=prev if s > 1 else None)
    prev = r
    print(variant, s, r.status, round(r.cost, 4), r.stats["iterations"], [round(ph.t[-1]-ph.t[0],4) for ph in r.trajectory.phases[:2]], flush=True)
