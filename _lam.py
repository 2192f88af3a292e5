import sys, numpy as np, gaitopt as go
from gaitopt.transcription import transcribe
from gaitopt.guess import automatic_guess
from gaitopt.solver import solve_nlp
from gaitopt.robot import load_robot
p = go.load_problem("problems/biped7_heel_toe_walk.yaml").scaled_knots(float(sys.argv[1]))
robot = load_robot(p.robot) if hasattr(go, "load_robot") else None
tr = transcribe(p, go.load_robot(p.robot))
x0 = automatic_guess(tr)
sol = solve_nlp(tr.nlp, x0, tr.lbx, tr.ubx, tr.lbg, tr.ubg, {"max_iter": int(sys.argv[2])}, print_level=0, x_scale=tr.variable_scale(x0))
lam = np.abs(sol.lam_g)
agg = {}
for term, phase, a, b in tr.rows:
    key = (term, phase)
    agg[key] = max(agg.get(key, 0), lam[a:b].max() if b > a else 0)
for k, v in sorted(agg.items(), key=lambda kv: -kv[1])[:12]: print(k, f"{v:.3g}")
