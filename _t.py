import sys, dataclasses, gaitopt as go, time
w = float(sys.argv[1]); scale = float(sys.argv[2])
p = go.load_problem("problems/biped7_heel_toe_walk.yaml").scaled_knots(scale)
if w > 0: p = p.replace(cost={"joule_loss": 1.0, "torque_rate_squared": w})
p = p.replace(solver=dataclasses.replace(p.solver, print_level=0, options={"max_wall_time": 60.0}))
r = go.solve(p)
print(w, scale, r.status, r.cost_terms, r.stats["iterations"], round(r.stats["solve_time_s"],2))
