import sys, dataclasses, gaitopt as go
p = go.load_problem(f"problems/{sys.argv[1]}.yaml").scaled_knots(float(sys.argv[2]))
opts = {"max_wall_time": 40.0}
for kv in sys.argv[3:]:
    k, v = kv.split("="); 
    try: v = float(v)
    except ValueError: pass
    opts[k] = v
p = p.replace(solver=dataclasses.replace(p.solver, print_level=5, options=opts))
r = go.solve(p)
print(r.status, r.cost, r.stats["iterations"], r.stats["solve_time_s"])
