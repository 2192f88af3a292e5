"""Jacobi compensation against a model error (docs/compensation.md): each problem is solved, then
replayed in MuJoCo (gaitopt.verify, 2 cycles) on a robot whose CoM is shifted by d along an axis
(its heaviest body's CoM moved by d, as gaitopt.verify's perturbed replays do), once with the
plan as solved and once with the plan compensated by Δp = −d·m_body/m on the CoM (the model's
CoM moved back so the simulated robot's follows the plan; `gaitopt.compensation`). Prints per
shift: verified, distance error, feedback share RMS(τ_sim − τ_plan)/RMS(τ_plan), executed
Joule loss per distance; and the success rate over the shifts.

    python bench/compensation.py [--problems biped7_heel_toe_walk hoap2_static_walk] [--shifts -0.02 -0.01 0.01 0.02]
"""
from __future__ import annotations

import argparse
import importlib
import dataclasses
from pathlib import Path
from contextlib import contextmanager

import numpy as np

import gaitopt as go
from gaitopt import verify
from gaitopt.compensation import Correction, compensate

from impacts import replay_figures

AXIS = {"sagittal": "x", "3d": "y"}
# the module (gaitopt.verify exports its function `replay` under the same name)
replay_module = importlib.import_module("gaitopt.verify.replay")

ROOT = Path(__file__).resolve().parent.parent


def heaviest_share(robot) -> float:
    """m_body / m_total of the robot's heaviest body (the one a CoM-shift perturbation moves)."""
    masses = [robot.model.inertias[j].mass for j in range(1, robot.model.njoints)]
    return max(masses) / sum(masses)


@contextmanager
def com_shift(d: float, axis: str):
    """Replays inside the block simulate the robot with its heaviest body's CoM moved by d [m]
    along axis (as gaitopt.verify's perturbed replays do; the robot's CoM moves by d times that
    body's share of the mass)."""
    build = replay_module.build_model

    def shifted(robot, **kw):
        sim = build(robot, **kw)
        body = int(np.argmax(sim.model.body_mass))
        sim.model.body_ipos[body]["xyz".index(axis)] += d
        replay_module.load_mujoco().mj_setConst(sim.model, sim.data)
        return sim

    replay_module.build_model = shifted
    try:
        yield
    finally:
        replay_module.build_model = build


def figures(result, d, axis, cycles) -> dict:
    with com_shift(d, axis):
        rep = verify.replay(result, cycles=cycles)
    return dict(replay_figures(result, rep), verified=rep.verified, fell=rep.report["fell"],
                distance_error=rep.report["distance"]["relative_error"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="*", default=["biped7_heel_toe_walk", "biped7_static_walk",
                                                      "hoap2_static_walk", "solo12_trot"])
    ap.add_argument("--shifts", type=float, nargs="*", default=[-0.02, -0.01, 0.0, 0.01, 0.02])
    ap.add_argument("--cycles", type=int, default=2)
    ap.add_argument("--torques", default="recompute", help="recompute | plan (gaitopt.compensation.compensate)")
    args = ap.parse_args()
    print("| problem | CoM shift [mm] | plan: verified, distance error, feedback share, Joule exec [J/m] | "
          "compensated: verified, distance error, feedback share, Joule exec [J/m] |")
    print("|---|---|---|---|")
    for name in args.problems:
        problem = go.load_problem(ROOT / "problems" / f"{name}.yaml")
        problem = problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))
        result = go.solve(problem)
        axis = AXIS[result.robot.base]
        ok = {"plan": 0, "compensated": 0}
        for d in args.shifts:
            comp, _ = compensate(result, Correction(offset=-d * heaviest_share(result.robot)), "com", axis,
                                 torques=args.torques)
            cells = []
            for key, res in (("plan", result), ("compensated", comp)):
                f = figures(res, d, axis, args.cycles)
                ok[key] += bool(f["verified"])
                cells.append(f"{'yes' if f['verified'] else 'no'}{' (fell)' if f['fell'] else ''}, "
                             f"{100 * f['distance_error']:.0f} %, {f['feedback_share']:.2f}, {f['joule_executed']:.3g}")
            print(f"| {name} | {1e3 * d:+.0f} ({axis}) | {cells[0]} | {cells[1]} |", flush=True)
        n = len(args.shifts)
        print(f"| {name} | success rate | {ok['plan']}/{n} | {ok['compensated']}/{n} |", flush=True)


if __name__ == "__main__":
    main()
