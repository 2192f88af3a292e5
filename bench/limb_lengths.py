"""Limb-length co-design of problems/codesign/solo12_slope_limbs.yaml (docs/studies.md): the cost
at fixed thigh/shank ratios (legs regenerated in memory), the co-designed optimum warm-started
from the shipped legs' optimum, and the re-solve at the optimal lengths from a regenerated URDF.

    PYTHONPATH=. python bench/limb_lengths.py [--problem FILE] [--set terrain.slope_deg=0] [--scale 1.0]
        [--ratios 0.25,0.5,...] [--out DIR]
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import pinocchio as pin

import gaitopt as go
from gaitopt import codesign
from gaitopt.constraints.design import designed_legs
from gaitopt.limb_lengths import leg_of, leg_scales
from gaitopt.limb_urdf import designed_robot

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = ROOT / "problems" / "codesign" / "solo12_slope_limbs.yaml"


def _lever(point, foot, direction) -> float:
    """Distance [m] of a point from the line through `foot` along `direction`, in the x–z plane."""
    w, u = (point - foot)[[0, 2]], direction[[0, 2]] / np.linalg.norm(direction[[0, 2]])
    return float(abs(w[0] * u[1] - w[1] * u[0]))


def levers(result, feet=("FL", "HR")) -> dict:
    """Means over the stance feet at the dynamic points of the optimised half (interval midpoints)
    of: the contact force's tilt from vertical [deg] (x–z plane), the hip's and the knee's
    distance from the force's line of action [m], the knee's distance from the hip–foot line [m],
    and the RMS torque of each joint kind [N·m]."""
    robot = result.robot
    model, data = robot.model, robot.model.createData()
    ph = result.trajectory.phases[0]
    rows = []
    for k in range(len(ph.t) - 1):
        pin.framesForwardKinematics(model, data, ph.mid["q"][k])
        for foot in feet:
            leg, c = leg_of(robot, foot), robot.contact(robot.feet[foot].contacts[0])
            F = ph.mid["f"][k][robot.contact_index(c.name)]
            at = data.oMf[c.frame_id].act(c.point)
            hip, knee = data.oMi[leg.thigh.joint].translation, data.oMi[leg.shank.joint].translation
            rows.append([np.degrees(np.arctan2(abs(F[0]), F[2])), _lever(hip, at, F), _lever(knee, at, F),
                         _lever(knee, at, hip - at)])
    out = dict(zip(("tilt", "hip_lever", "knee_lever", "knee_offset"), np.mean(rows, axis=0)))
    tau = ph.tau
    for kind in ("HAA", "HFE", "KFE"):
        cols = [i for i, j in enumerate(robot.actuated) if j.endswith(kind)]
        out[kind] = float(np.sqrt(np.mean(tau[:, cols] ** 2)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--problem", default=str(PROBLEM), help="a problem file with design.limb_lengths")
    ap.add_argument("--set", action="append", default=[], help="override KEY=VALUE, e.g. terrain.slope_deg=0")
    ap.add_argument("--scale", type=float, default=1.0, help="knots factor")
    ap.add_argument("--ratios", default="0.25,0.35,0.5,0.7,1.0,1.4,2.0,2.8,4.0")
    ap.add_argument("--out", default=None, help="where the regenerated robot is written (default: a temp dir)")
    args = ap.parse_args()
    problem = go.load_problem(args.problem, args.set).scaled_knots(args.scale)
    robot = go.load_robot(problem.robot)
    legs = designed_legs(problem, robot)
    segments = [s for leg in legs for s in (leg.thigh, leg.shank)]
    fixed = problem.replace(limb_lengths=None)
    shipped = go.solve(fixed, robot=robot, print_level=0)
    print(f"shipped legs (thigh/shank {legs[0].ratio:.4g}): {shipped.status}, cost {shipped.cost:.6g}")
    print("| thigh/shank | thigh [m] | shank [m] | cost | force tilt [deg] | hip lever [mm] | knee lever [mm] "
          "| knee off hip–foot line [mm] | RMS τ HAA / HFE / KFE [N·m] |\n|---|---|---|---|---|---|---|---|---|")
    for ratio in (float(x) for x in args.ratios.split(",")):
        r = go.solve(fixed, robot=designed_robot(robot, segments, leg_scales(legs, ratio)), print_level=0,
                     warm_start=shipped)
        s, lv = leg_scales(legs, ratio), levers(r)
        print(f"| {ratio:.3g} | {s[0] * legs[0].thigh.length:.4f} | {s[1] * legs[0].shank.length:.4f} | "
              f"{r.cost:.4f}{'' if r.success else ' (' + r.status + ')'} | {lv['tilt']:.1f} | "
              f"{1e3 * lv['hip_lever']:.1f} | {1e3 * lv['knee_lever']:.1f} | {1e3 * lv['knee_offset']:.1f} | "
              f"{lv['HAA']:.3f} / {lv['HFE']:.3f} / {lv['KFE']:.3f} |")
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
