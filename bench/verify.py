"""Replay every shipped problem in MuJoCo (gaitopt.verify, 2 cycles) at × 0.5 and × 1 knots
and print docs/verification.md's table. Needs the `sim` extra (mujoco).

    python bench/verify.py [--scales 0.5 1] [--cycles 2]
"""
from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import numpy as np

import gaitopt as go
from gaitopt import verify
from gaitopt.problem import shipped_problems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=float, nargs="+", default=[0.5, 1.0])
    ap.add_argument("--cycles", type=int, default=2)
    ap.add_argument("--problems", nargs="*", default=None, help="problem files (default: every shipped one)")
    args = ap.parse_args()
    files = [Path(p) for p in args.problems] if args.problems else shipped_problems()
    print("| problem | knots | distance sim / plan [m] | fell | largest slip [mm] | "
          "τ RMS diff [N·m] (plan RMS) | verified |")
    print("|---|---|---|---|---|---|---|")
    for path in files:
        for scale in args.scales:
            problem = go.load_problem(path).scaled_knots(scale)
            problem = problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))
            result = go.solve(problem)
            if not result.success:
                print(f"| {path.stem} | × {scale:g} | solve failed: {result.status} | | | | no |")
                continue
            r = verify.replay(result, cycles=args.cycles).report
            d, tq = r["distance"], r["torque"]
            plan_rms = float(np.sqrt(np.mean(np.square(list(tq["rms_planned_Nm"].values())))))
            fell = f"at {r['fell_at_s']:.2f} s" if r["fell"] else "no"
            print(f"| {path.stem} | × {scale:g} | {d['simulated_m']:.3f} / {d['planned_m']:.3f} | {fell} | "
                  f"{1e3 * max(r['slip_m'].values()):.1f} | {tq['rms_difference_all_Nm']:.3g} ({plan_rms:.3g}) | "
                  f"{'yes' if r['verified'] else 'no'} |", flush=True)


if __name__ == "__main__":
    main()
