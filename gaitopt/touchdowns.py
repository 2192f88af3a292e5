"""Touchdowns of a solved gait: how fast each point arrives and the kinetic energy its impact takes.

Read from the trajectory's knots (the state at the end of the phase before a touchdown and at
the start of the phase after it), with the same rigid-body model the optimiser used (reflected
rotor inertias included), numerically (Pinocchio). `ImpactLoss` (gaitopt.terms) is the
per-distance sum of `loss_J`. The solve summary and result.json report them (a new user's
RABBIT run, cost Joule loss only, landed at 4 m/s and lost 95 J per cycle in its impacts, more
than its Joule loss, with nothing in the output to say so).
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin

from .quantities import contact_points
from .schedule import active_points
from .terrain_io import surface_of


def _point_velocities(robot, q, v, names) -> np.ndarray:
    """(3, len(names)) world velocities [m/s] of the named contact points at (q, v): each frame's
    origin velocity (world-aligned) plus ω × the point's offset."""
    model, data = robot.model, robot.model.createData()
    pin.forwardKinematics(model, data, q, v)
    pin.updateFramePlacements(model, data)
    out = []
    for name in names:
        c = robot.contact(name)
        twist = pin.getFrameVelocity(model, data, c.frame_id, pin.LOCAL_WORLD_ALIGNED)
        offset = data.oMf[c.frame_id].rotation @ np.asarray(c.point, float)
        out.append(twist.linear + np.cross(twist.angular, offset))
    return np.array(out).T


def touchdown_table(result) -> list:
    """One dict per junction of the full cycle where points touch down: phase (the phase that
    starts), points (names), speed_m_s (largest |ṗ| of a touching point just before contact),
    normal_m_s (largest approach speed −n·ṗ along the ground's normal under it), loss_J (½ Δvᵀ M Δv,
    the kinetic energy the velocity jump takes, M with the reflected rotor inertias as in the
    optimiser's model (Pinocchio's CRBA with the model's armature); 0 for a soft touchdown).
    Numeric (Pinocchio), from the trajectory's knots: the state at the end of the phase before
    and at the start of the phase after (at the cycle's start, the previous cycle's last knot,
    `Trajectory.cycle_state(-1, …)`: shifted, and rotated about z for a turning gait)."""
    robot, traj = result.robot, result.trajectory
    surface = surface_of(result.problem)
    out = []
    for i, p in enumerate(traj.phases):
        prev = traj.phases[i - 1]
        before = set(active_points(robot, prev.modes))
        touching = [c for c in active_points(robot, p.modes) if c not in before]
        if not touching:
            continue
        q_minus, v_minus = prev.q[-1], prev.v[-1]
        if i == 0:  # the previous cycle's last knot: shifted back and, for a turning gait, rotated
            # back about z too (its world-frame base velocity as well); a plain shift left a
            # turning trot's wrap touchdown at 1.023 m/s under a 1.0 m/s bound it met exactly
            q_minus, v_minus, _, _ = traj.cycle_state(-1, q_minus, v_minus)
        vel = _point_velocities(robot, q_minus, v_minus, touching)
        where = contact_points(robot, [q_minus])[0, [robot.contact_index(c) for c in touching]]
        normal = surface.normal(where[:, 0], where[:, 1])  # (k, 3)
        dv = p.v[0] - v_minus
        mass = pin.crba(robot.model, robot.model.createData(), p.q[0])
        mass = np.triu(mass) + np.triu(mass, 1).T  # CRBA fills the upper triangle
        out.append({"phase": p.name, "points": touching,
                    "speed_m_s": float(np.linalg.norm(vel, axis=0).max()),
                    "normal_m_s": float(max(-normal[k] @ vel[:, k] for k in range(len(touching)))),
                    "loss_J": float(0.5 * dv @ mass @ dv)})
    return out


def impact_summary(result) -> dict:
    """Largest touchdown speed [m/s] (total and normal) and the impact loss per distance [J/m]
    over the full cycle (`touchdown_table`)."""
    rows = touchdown_table(result)
    return {"touchdown_speed_m_s": max((r["speed_m_s"] for r in rows), default=0.0),
            "touchdown_normal_m_s": max((r["normal_m_s"] for r in rows), default=0.0),
            "impact_loss_J_per_m": sum(r["loss_J"] for r in rows) / result.trajectory.distance}
