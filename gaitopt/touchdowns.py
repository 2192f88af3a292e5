"""Touchdowns of a solved gait: how fast each point arrives and the kinetic energy its impact takes.

Read from the trajectory's knots (the state at the end of the phase before a touchdown and at
the start of the phase after it), with the same rigid-body model the optimiser used (reflected
rotor inertias included). `ImpactLoss` (gaitopt.terms) is the per-distance sum of `loss_J`.
"""
from __future__ import annotations

import numpy as np

from .constraints.base import Terrain
from .dynamics import SymbolicDynamics
from .schedule import active_points


def touchdown_table(result) -> list:
    """One dict per junction of the full cycle where points touch down: phase (the phase that
    starts), points (names), speed_m_s (largest |ṗ| of a touching point just before contact),
    normal_m_s (largest approach speed −n·ṗ along the terrain normal), loss_J (½ Δvᵀ M Δv, the
    kinetic energy the velocity jump takes; 0 for a soft touchdown)."""
    robot, traj = result.robot, result.trajectory
    dyn = SymbolicDynamics.of_robot(robot)
    names = [c.name for c in robot.contacts]
    normal = Terrain(float(result.problem.slope)).normal
    out = []
    for i, p in enumerate(traj.phases):
        prev = traj.phases[i - 1]
        before = set(active_points(robot, prev.modes))
        touching = [c for c in active_points(robot, p.modes) if c not in before]
        if not touching:
            continue
        q_minus = prev.q[-1] - (traj.base_shift if i == 0 else 0.0)
        _, vel, _ = (np.asarray(x) for x in dyn.contact_kinematics(q_minus, prev.v[-1], np.zeros(robot.nv)))
        cols = [names.index(c) for c in touching]
        dv = p.v[0] - prev.v[-1]
        out.append({"phase": p.name, "points": touching,
                    "speed_m_s": float(max(np.linalg.norm(vel[:, c]) for c in cols)),
                    "normal_m_s": float(max(-normal @ vel[:, c] for c in cols)),
                    "loss_J": float(0.5 * dv @ np.asarray(dyn.mass_matrix(p.q[0])) @ dv)})
    return out


def impact_summary(result) -> dict:
    """Largest touchdown speed [m/s] (total and normal) and the impact loss per distance [J/m]
    over the full cycle (`touchdown_table`)."""
    rows = touchdown_table(result)
    return {"touchdown_speed_m_s": max((r["speed_m_s"] for r in rows), default=0.0),
            "touchdown_normal_m_s": max((r["normal_m_s"] for r in rows), default=0.0),
            "impact_loss_J_per_m": sum(r["loss_J"] for r in rows) / result.trajectory.stride}
