"""Jacobi compensation against a model error (docs/compensation.md), with gaitopt.verify's
perturbations: each problem is solved, then replayed in MuJoCo (gaitopt.verify, 2 cycles,
torque-limited motors) on robots whose heaviest body has its CoM moved by d along an axis
(`gaitopt.verify.perturb.Perturbation`): once with the plan as solved, and with the plan
compensated by Δp = −d·m_body/m on the CoM (`gaitopt.compensation`, torques recomputed and
the plan's). Table 1: one replay per shift d. Table 2: `--runs` replays of a systematic shift
`--bias` plus verify's random perturbations (mass ±10 %, CoM up to 1 cm, friction ±30 %, up to
5 ms delay; seeded): the share that walked (no fall, no slip, distance within 10 %), the mean
feedback share and Joule-loss error of those that did not fall.

    python bench/compensation.py [--problems biped7_static_walk ...] [--shifts -0.02 -0.01 0 0.01 0.02]
                                 [--bias 0.02] [--runs 10]
"""
from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import numpy as np

import gaitopt as go
from gaitopt import verify
from gaitopt.compensation import Correction, compensate
from gaitopt.verify.perturb import Perturbation

ROOT = Path(__file__).resolve().parent.parent
AXIS = {"sagittal": "x", "3d": "y"}
PLANS = ("plan", "recompute", "plan torques")


def heaviest_share(robot) -> float:
    """m_body / m_total of the robot's heaviest body (the one a CoM-shift perturbation moves)."""
    masses = [robot.model.inertias[j].mass for j in range(1, robot.model.njoints)]
    return max(masses) / sum(masses)


def outcome(result, perturbation: Perturbation, cycles: int) -> dict:
    """walked, verified, fell, distance error, feedback share, Joule-loss relative error of one replay."""
    r = verify.replay(result, cycles=cycles, perturbation=perturbation).report
    walked = not (r["fell"] or r["slipped"] or r["distance"]["relative_error"] > verify.ReplaySettings().distance_rtol)
    return {"walked": walked, "verified": r["verified"], "fell": r["fell"],
            "distance_error": r["distance"]["relative_error"], "feedback_share": r["feedback_share"]["all"],
            "joule_error": r["energy"]["relative_error"]["joule_loss_J"]}


def plans(result, d: float, axis: str) -> dict:
    """The plan and its compensations for a CoM shift d of the heaviest body along axis."""
    dp = Correction(offset=-d * heaviest_share(result.robot))
    return {"plan": result, "recompute": compensate(result, dp, "com", axis)[0],
            "plan torques": compensate(result, dp, "com", axis, torques="plan")[0]}


def shift(d: float, axis: str) -> tuple:
    return tuple(d if a == axis else 0.0 for a in "xyz")


def cell(o: dict) -> str:
    state = "walked" if o["walked"] else ("fell" if o["fell"] else "off")
    return f"{state}, {o['feedback_share']:.2f}, {100 * o['joule_error']:+.0f} %"


def table_shifts(results: dict, shifts, cycles) -> None:
    print("| problem | CoM shift d [mm] | plan as solved | compensated, torques recomputed | compensated, plan torques |")
    print("|---|---|---|---|---|")
    for name, result in results.items():
        axis = AXIS[result.robot.base]
        ok = dict.fromkeys(PLANS, 0)
        for d in shifts:
            p = Perturbation(com_shift_m=shift(d, axis))
            row = []
            for key, res in plans(result, d, axis).items():
                o = outcome(res, p, cycles)
                ok[key] += o["walked"]
                row.append(cell(o))
            print(f"| {name} | {1e3 * d:+.0f} ({axis}) | " + " | ".join(row) + " |", flush=True)
        print(f"| {name} | walked | " + " | ".join(f"{ok[k]}/{len(shifts)}" for k in PLANS) + " |", flush=True)


def table_random(results: dict, bias: float, runs: int, cycles: int) -> None:
    print("| problem | systematic shift [mm] | runs | plan as solved | compensated, torques recomputed | "
          "compensated, plan torques |")
    print("|---|---|---|---|---|---|")
    for name, result in results.items():
        axis = AXIS[result.robot.base]
        candidates = plans(result, bias, axis)
        rng = np.random.default_rng(0)
        draws = [Perturbation.draw(rng) for _ in range(runs)]
        cells = []
        for key, res in candidates.items():
            outs = []
            for p in draws:
                p = dataclasses.replace(p, com_shift_m=tuple(np.add(p.com_shift_m, shift(bias, axis))))
                outs.append(outcome(res, p, cycles))
            up = [o for o in outs if not o["fell"]]
            cells.append(f"walked {sum(o['walked'] for o in outs)}/{runs}, feedback share "
                         f"{np.mean([o['feedback_share'] for o in up]) if up else float('nan'):.2f}, Joule "
                         f"{100 * np.mean([o['joule_error'] for o in up]) if up else float('nan'):+.0f} %")
        print(f"| {name} | {1e3 * bias:+.0f} ({axis}) | {runs} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="*", default=["biped7_static_walk", "biped7_heel_toe_walk",
                                                      "hoap2_static_walk", "solo12_trot"])
    ap.add_argument("--shifts", type=float, nargs="*", default=[-0.02, -0.01, 0.0, 0.01, 0.02])
    ap.add_argument("--bias", type=float, default=0.02)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--cycles", type=int, default=2)
    args = ap.parse_args()
    results = {}
    for name in args.problems:
        problem = go.load_problem(ROOT / "problems" / f"{name}.yaml")
        results[name] = go.solve(problem.replace(solver=dataclasses.replace(problem.solver, print_level=0)))
    if args.shifts:
        table_shifts(results, args.shifts, args.cycles)
    if args.runs:
        print()
        table_random(results, args.bias, args.runs, args.cycles)


if __name__ == "__main__":
    main()
