"""TITAN-VIII walking postures A–D (docs/postures.md): averaged absolute power of the optimised
crawl held in each posture (problems/titan8_crawl.yaml; read back from its saved result) and of
the paper's prescribed crawl, in total and per joint kind; then what the prescribed crawl asks of
the support feet (a negative normal force is a pull) and how far the optimised body sways.

    PYTHONPATH=. python bench/postures.py [--scale 1.0] [--samples 192]
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

import gaitopt as go
from gaitopt.export.result_dir import load_result, save
from gaitopt.posture_study import (TITAN8_BASE_HEIGHT, TITAN8_POSTURES, TITAN8_STROKE, average_abs_power,
                                   held_in_posture, joint_abs_power)
from gaitopt.prescribed import crawl

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("hip", "thigh", "knee")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0, help="knots factor of the optimised crawl")
    ap.add_argument("--samples", type=int, default=192, help="samples per cycle of the prescribed crawl")
    args = ap.parse_args()
    robot = go.load_robot("titan8")
    problem = go.load_problem(ROOT / "problems" / "titan8_crawl.yaml").scaled_knots(args.scale)
    print("| posture | P̄ optimised [W] | hip / thigh / knee [W] | P̄ prescribed [W] | hip / thigh / knee [W] |")
    print("|---|---|---|---|---|")
    support = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, off in TITAN8_POSTURES.items():
            r = go.solve(held_in_posture(problem, robot, off, TITAN8_BASE_HEIGHT, TITAN8_STROKE), robot=robot,
                         print_level=0)
            save(r, f"{tmp}/{name}")
            back = load_result(f"{tmp}/{name}")
            pj = joint_abs_power(robot, back.trajectory)
            opt = [sum(v for j, v in pj.items() if j.endswith("_" + k)) for k in KINDS]
            g = crawl(robot, speed=0.05, period=4.8, swing_order=["HL", "FL", "HR", "FR"], foot_offset=off,
                      base_height=TITAN8_BASE_HEIGHT, swing_height=0.05, samples=args.samples)
            pre = [float(np.abs(g.power[:, [i for i, j in enumerate(robot.actuated) if j.endswith("_" + k)]])
                         .sum(axis=1).mean()) for k in KINDS]
            fz = g.f[..., 2][g.stance]
            knots = back.trajectory.knots()
            support[name] = (fz.min(), (fz < 0).mean(), np.ptp(knots["q"][:, robot.index("base_y")]),
                             knots["f"][..., 2][np.abs(knots["f"]).sum(axis=-1) > 0].min())
            status = "" if r.success else f" ({r.status})"
            print(f"| {name} | {average_abs_power(robot, back.trajectory):.3f}{status} | "
                  + " / ".join(f"{x:.3f}" for x in opt) + f" | {g.average_abs_power:.3f} | "
                  + " / ".join(f"{x:.3f}" for x in pre) + " |")
    print("\n| posture | prescribed: least support normal force [N] | share of support samples pulling | "
          "optimised: lateral body sway [m] | least normal force at the knots [N] |\n|---|---|---|---|---|")
    for name, (fmin, share, sway, fopt) in support.items():
        print(f"| {name} | {fmin:.2f} | {100 * share:.1f} % | {sway:.4f} | {fopt:.2f} |")


if __name__ == "__main__":
    main()
