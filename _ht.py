import sys, numpy as np, dataclasses, gaitopt as go
name = sys.argv[1]; s = float(sys.argv[2])
def P(scale, meth):
    p = go.load_problem(f"problems/{name}.yaml").scaled_knots(scale).replace(transcription=meth)
    return p.replace(solver=dataclasses.replace(p.solver, print_level=0, options={"max_wall_time": 100.0}))
rt = go.solve(P(s, "trapezoidal"))
rh = go.solve(P(s, "hermite_simpson"), warm_start=rt)
rhc = go.solve(P(s, "hermite_simpson"))
print(name, s, "trap", rt.status, round(rt.cost,4), rt.stats["iterations"], "| hs<-trap", rh.status, round(rh.cost,4), rh.stats["iterations"], "| hs cold", rhc.status, round(rhc.cost,4), rhc.stats["iterations"])
