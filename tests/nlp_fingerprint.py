"""The fingerprint of a transcribed NLP, independent of constraint-row order.

Recorded once before the constraints moved into components (tests/data/nlp_fingerprints.json,
written by `python tests/nlp_fingerprint.py --record [NAME ...]`; RERECORDED names the entries
recorded again on purpose, and why) and compared by
tests/test_nlp_fingerprint.py: the variables (names, order, bounds), the constraint rows per
term (count, bounds, values and Jacobian structure at two seeded points) and the cost there.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import casadi as ca
import numpy as np

DATA = Path(__file__).with_name("data") / "nlp_fingerprints.json"


def _finite(a):
    a = np.asarray(a, float)
    return np.where(np.isfinite(a), a, np.sign(a) * 1e20)


def fingerprint(tr) -> dict:
    """Row-order-free summary of a Transcription's NLP."""
    x, g, f = tr.nlp["x"], tr.nlp["g"], tr.nlp["f"]
    n = x.numel()
    rng = np.random.default_rng(7)
    points = [rng.uniform(0.2, 0.8, n), rng.uniform(-0.5, 1.5, n)]
    jac = ca.jacobian(g, x)
    fn = ca.Function("fp", [x], [g, f])
    sp = jac.sparsity()
    rows_nnz = np.diff(np.asarray(sp.get_crs()[0]))  # nonzeros per constraint row
    terms = {}
    term_of_row = np.empty(g.numel(), dtype=object)
    for term, _phase, a, b in tr.rows:
        term_of_row[a:b] = term
    gvals = [np.asarray(fn(p)[0]).ravel() for p in points]
    fvals = [float(fn(p)[1]) for p in points]
    for term in sorted(set(term_of_row)):
        m = term_of_row == term
        terms[term] = {
            "rows": int(m.sum()),
            "jac_nnz": int(rows_nnz[m].sum()),
            "lbg_sum": float(_finite(tr.lbg[m]).sum()),
            "ubg_sum": float(_finite(tr.ubg[m]).sum()),
            "g_sum": [float(gv[m].sum()) for gv in gvals],
            "g_sumsq": [float((gv[m] ** 2).sum()) for gv in gvals],
        }
    names = [str(s) for s in ca.symvar(x)]
    return {
        "n_variables": int(n),
        "n_constraints": int(g.numel()),
        "variables_hash": _hash("|".join(str(x.nz[i]) for i in range(n))),
        "lbx_sum": float(_finite(tr.lbx).sum()),
        "ubx_sum": float(_finite(tr.ubx).sum()),
        "lbx_hash": _hash(np.array2string(_finite(tr.lbx), threshold=10 ** 9, precision=12)),
        "ubx_hash": _hash(np.array2string(_finite(tr.ubx), threshold=10 ** 9, precision=12)),
        "jac_nnz": int(sp.nnz()),
        "cost": fvals,
        "terms": terms,
        "n_symbols": len(names),
    }


def _hash(text: str) -> str:
    import hashlib
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# Schema features the shipped problems do not use, on the static walk (name → overrides).
JOINTS = ["left_hip", "right_hip", "left_knee", "right_knee", "left_ankle", "right_ankle"]
VARIANTS = {
    "static_hermite_simpson": {"transcription": "hermite_simpson"},
    "static_abs_power_torque_rate": {"cost": {"specific_resistance": 1.0, "torque_rate_squared": 1e-4},
                                     "constraints.torque_rate": 500.0, "constraints.power_limit": True},
    "static_hs_abs_power_torque_rate": {"transcription": "hermite_simpson", "cost": "abs_power",
                                        "constraints.torque_rate": 500.0},
    "static_design_soft_cone": {"design": {"gear_ratio": {"all": {"joints": JOINTS, "min": 30, "max": 200}}},
                                "constraints.touchdown": "soft", "constraints.footholds": {"left": [0.12]},
                                "constraints.base_height": {"min": 0.3, "max": 1.0},
                                "cost": {"joule_loss": 1.0, "fri_stability": 0.1}},
    "static_full_cycle": {"gait.cycle": "full"},
}


# The kinematic feasibility components came after the recording (2026-11-24): switched off,
# the NLP must be the recorded one.
FEASIBILITY_OFF = {"constraints.foot_range": False, "constraints.leg_separation": False,
                   "constraints.base_attitude": False, "constraints.base_height": False,
                   "constraints.knee_margin": False, "constraints.upper_body": False, "constraints.foot_yaw": False}
# shipped files changed since the recording, restored to the recorded definition
CHANGED_SINCE = {"biped7_slope_walk": {"cost": "joule_loss"},
                 "biped7_heel_toe_walk": {"constraints.touchdown_speed": None},
                 "solo12_trot": {"constraints.touchdown_speed": None}}
RECORDED_PROBLEMS = ("biped7_heel_toe_walk", "biped7_slope_walk", "biped7_static_walk", "hoap2_walk",
                     "hoap2_walk_fast", "solo12_trot", "titan8_crawl")


def cases():
    """(name, Problem) of every problem shipped at the recording, at 1×, and every variant."""
    from gaitopt.problem import load_problem
    problems = Path(__file__).resolve().parent.parent / "problems"
    for name in RECORDED_PROBLEMS:
        yield name, load_problem(problems / f"{name}.yaml", {**FEASIBILITY_OFF, **CHANGED_SINCE.get(name, {})})
    for name, overrides in VARIANTS.items():
        off = dict(FEASIBILITY_OFF)
        if "constraints.base_height" in overrides:
            off.pop("constraints.base_height")
        yield name, load_problem(problems / "biped7_static_walk.yaml", {**off, **overrides})


# Re-recorded on purpose since (name → date and why); every other entry is the first recording.
RERECORDED = {name: "2026-11-24: absolute power integrated exactly on the interpolant (Simpson / Boole "
              "power nodes, gaitopt.collocation.PowerNode): more slack variables and power_split rows"
              for name in ("titan8_crawl", "static_abs_power_torque_rate", "static_hs_abs_power_torque_rate")}


def record(names=None) -> None:
    """Record every case (names None) or re-record the named ones, keeping the others; a
    multi-optimum case also gets its stored optimum (x, and the cost IPOPT ends at from it)."""
    from gaitopt.gait import robot_of, solve
    from gaitopt.transcription import transcribe
    out = json.loads(DATA.read_text()) if names else {}
    for name, problem in cases():
        if names and name not in names:
            continue
        tr = transcribe(problem, robot_of(problem))
        fp = fingerprint(tr)
        res = solve(problem, print_level=0)
        fp["optimum"] = {"success": bool(res.success), "cost": float(res.cost),
                         "iterations": int(res.stats["iterations"])}
        out[name] = fp
        stored = DATA.parent / f"{name}_optimum.npz"
        if stored.exists():
            warm = solve(problem, print_level=0, x0=res.x)
            np.savez(stored, x=res.x, warm_cost=float(warm.cost))
        print(name, fp["n_variables"], fp["n_constraints"], fp["optimum"], file=sys.stderr)
    DATA.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if "--record" in sys.argv:
        record([a for a in sys.argv[1:] if a != "--record"] or None)
