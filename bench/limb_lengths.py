"""Limb-length co-design of problems/codesign/solo12_slope_limbs.yaml (docs/studies.md): the cost
at fixed thigh/shank ratios (legs regenerated in memory), the co-designed optimum warm-started
from the shipped legs' optimum, and the re-solve at the optimal lengths from a regenerated URDF.

    PYTHONPATH=. python bench/limb_lengths.py [--scale 1.0] [--ratios 0.25,0.5,...] [--out DIR]
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import gaitopt as go
from gaitopt import codesign
from gaitopt.constraints.design import designed_legs
from gaitopt.limb_lengths import leg_scales
from gaitopt.limb_urdf import designed_robot

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = ROOT / "problems" / "codesign" / "solo12_slope_limbs.yaml"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0, help="knots factor")
    ap.add_argument("--ratios", default="0.25,0.35,0.5,0.7,1.0,1.4,2.0,2.8,4.0")
    ap.add_argument("--out", default=None, help="where the regenerated robot is written (default: a temp dir)")
    args = ap.parse_args()
    problem = go.load_problem(PROBLEM).scaled_knots(args.scale)
    robot = go.load_robot(problem.robot)
    legs = designed_legs(problem, robot)
    segments = [s for leg in legs for s in (leg.thigh, leg.shank)]
    fixed = problem.replace(limb_lengths=None)
    shipped = go.solve(fixed, robot=robot, print_level=0)
    print(f"shipped legs (thigh/shank {legs[0].ratio:.4g}): {shipped.status}, cost {shipped.cost:.6g}")
    print("| thigh/shank | thigh [m] | shank [m] | cost |\n|---|---|---|---|")
    for ratio in (float(x) for x in args.ratios.split(",")):
        r = go.solve(fixed, robot=designed_robot(robot, segments, leg_scales(legs, ratio)), print_level=0,
                     warm_start=shipped)
        s = leg_scales(legs, ratio)
        print(f"| {ratio:.3g} | {s[0] * legs[0].thigh.length:.4f} | {s[1] * legs[0].shank.length:.4f} | "
              f"{r.cost:.4f}{'' if r.success else ' (' + r.status + ')'} |")
    best = codesign.solve(problem, robot=robot, warm_start=shipped, print_level=0)
    ratio = codesign.optimal_limb_ratio(best)
    print(f"co-design: {best.status}, ratio {ratio:.6g}, cost {best.cost:.6g} "
          f"({100 * (1 - best.cost / shipped.cost):.1f} % below the shipped legs' {shipped.cost:.6g})")
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="gaitopt-limbs-"))
    folder = codesign.write_designed(best, out)
    again = go.solve(fixed.replace(robot=str(folder)), robot=go.load_robot(folder), warm_start=best, print_level=0)
    print(f"re-solve with {folder / (robot.name + '.urdf')}: {again.status}, cost {again.cost:.9g} "
          f"(co-design {best.cost:.9g}, relative difference {abs(again.cost - best.cost) / best.cost:.1e})")


if __name__ == "__main__":
    main()
