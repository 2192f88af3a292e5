"""Leg geometry of a robot at its standing posture: where each foot stands in the base frame,
how long each leg is, and which feet are left/right partners and front/back neighbours.

The defaults of the kinematic feasibility constraints (gaitopt.constraints.kinematics) are
derived from these numbers, so a robot brought by a user gets sensible ranges of motion
without tuning.
"""
from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np
import pinocchio as pin


@dataclass(frozen=True)
class LegGeometry:
    """Standing geometry of a floating-base robot's legs.

    stance: foot → (3,) m, the foot's reference point (the mean of its contact points) in the
    base frame at the standing posture; length: foot → m, the leg's length (sum of the joint-to-
    joint distances from its first joint below the base to the reference point, at standing);
    base_height: m, base origin above the ground at standing; lateral_pairs: ((left, right), …)
    mirror partners with left at larger y; neighbours: ((front, back), …) consecutive feet on
    the same side, ordered by x (robots with more than two feet); half_width: foot → m, the
    largest lateral (base y) distance of its contact points from its reference point at
    standing (a sole's half-width; 0 for a point or a line along x)."""

    stance: dict
    length: dict
    base_height: float
    lateral_pairs: tuple
    neighbours: tuple
    half_width: dict


def _contact_points(robot, data) -> dict:
    """foot → (k, 3) world positions of its contact points (forward kinematics done)."""
    return {foot: np.array([data.oMf[robot.contact(c).frame_id].act(np.asarray(robot.contact(c).point, float))
                            for c in f.contacts]) for foot, f in robot.feet.items()}


def _leg_length(robot, data, foot: str, point: np.ndarray) -> float:
    """Sum of the distances between consecutive joint origins from the foot's frame up to the
    first joint below the floating base, plus the last joint to the foot point."""
    model = robot.model
    n_base = len(robot.base_coordinates)
    frame = model.frames[robot.contact(robot.feet[foot].contacts[0]).frame_id]
    chain, j = [], frame.parentJoint
    while j > n_base:  # joints 1..n_base are the base coordinates
        chain.append(data.oMi[j].translation.copy())
        j = model.parents[j]
    if not chain:
        return float(np.linalg.norm(point - data.oMi[n_base].translation)) if n_base else 0.0
    pts = [point] + chain
    return float(sum(np.linalg.norm(a - b) for a, b in zip(pts[:-1], pts[1:])))


def base_rotation(robot, q):
    """Base orientation R (3×3) from the base coordinates of q (numpy or CasADi): Z-Y-X Euler
    angles yaw, pitch, roll in 3-D, pitch alone in the sagittal plane (numpy q of shape
    (nq, *S): R of shape (3, 3, *S))."""
    names = robot.coordinates
    angle = {c: (q[names.index(c)] if c in names else 0.0) for c in ("base_yaw", "base_pitch", "base_roll")}
    lib = ca if isinstance(q, (ca.SX, ca.MX)) else np
    cy, sy = lib.cos(angle["base_yaw"]), lib.sin(angle["base_yaw"])
    cp, sp = lib.cos(angle["base_pitch"]), lib.sin(angle["base_pitch"])
    cr, sr = lib.cos(angle["base_roll"]), lib.sin(angle["base_roll"])
    rows = [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr]]
    if lib is ca:
        return ca.vertcat(*[ca.horzcat(*r) for r in rows])
    # angles of any shape S (q of shape (nq, *S)): R of shape (3, 3, *S)
    flat = np.broadcast_arrays(*[np.asarray(e, float) for r in rows for e in r])
    return np.stack(flat).reshape((3, 3) + flat[0].shape)


def base_origin(robot, q):
    """Base origin (3,) in the world from q's base_x, base_y, base_z (0 where absent)."""
    names = robot.coordinates
    parts = [q[names.index(c)] if c in names else 0.0 for c in ("base_x", "base_y", "base_z")]
    return ca.vertcat(*parts) if isinstance(q, (ca.SX, ca.MX)) else np.array(parts, dtype=float)


def in_base_frame(robot, q, point_world):
    """A world point (3,) expressed in the base frame: Rᵀ (p − o)."""
    R, o = base_rotation(robot, q), base_origin(robot, q)
    if isinstance(q, (ca.SX, ca.MX)):
        return R.T @ (point_world - o)
    return R.T @ (np.asarray(point_world, float) - o)


def leg_geometry(robot) -> LegGeometry:
    """The standing geometry of `robot`'s legs (see LegGeometry)."""
    data = robot.model.createData()
    q = robot.standing_q
    pin.forwardKinematics(robot.model, data, q)
    pin.updateFramePlacements(robot.model, data)
    points = _contact_points(robot, data)
    world = {f: p.mean(axis=0) for f, p in points.items()}
    stance = {f: in_base_frame(robot, q, p) for f, p in world.items()}
    half_width = {f: float(max(abs(in_base_frame(robot, q, p)[1] - stance[f][1]) for p in pts))
                  for f, pts in points.items()}
    length = {f: _leg_length(robot, data, f, world[f]) for f in robot.feet}
    z = base_origin(robot, q)[2]
    pairs = []
    if robot.mirror is not None and robot.base == "3d":
        for a, b in robot.mirror.foot_pairs.items():
            left, right = (a, b) if stance[a][1] >= stance[b][1] else (b, a)
            if a != b and (left, right) not in pairs:
                pairs.append((left, right))
    neighbours = []
    if len(robot.feet) > 2:
        for side in (1.0, -1.0):
            same = sorted((f for f in robot.feet if np.sign(stance[f][1]) == side), key=lambda f: -stance[f][0])
            neighbours += list(zip(same[:-1], same[1:]))
    return LegGeometry(stance, length, float(z), tuple(pairs), tuple(neighbours), half_width)
