"""Check a robot's left/right mirror map against its geometry.

robot.yaml's `mirror` says which joints and feet are left/right partners and which joint angles
change sign. Half-cycle gaits, the patterns' left/right symmetry and the mirrored half of every
plot rest on it, and a wrong pair or flip was accepted silently (a user's hexapod with its feet
paired FL–MR solved its tripod as a full cycle without a word). The check is the one
docs/bring_your_own_robot.md §1.3 asks a user to run by hand: for a few postures q within the
joint limits, the mirrored posture q′ = sign · q[perm] must put each contact point where the
reflection y → −y of its partner's point is in q (base at the origin, so the base coordinates
that change sign are zero).
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin

from .errors import InputError

POSTURES = 8            # random postures besides standing (fixed seed: the same ones every load)
TOLERANCE_M = 0.005     # m, at least: a URDF from CAD may be asymmetric by a fraction of a mm
TOLERANCE_REL = 0.02    # of the farthest standing contact point from the base origin
_REFLECT = np.diag([1.0, -1.0, 1.0])


def mirror_error(robot) -> tuple[float, str]:
    """Largest distance [m] between a contact point in a mirrored posture and its partner's
    reflection, over standing and POSTURES random postures within the joint limits (each joint
    within ±π), and the contact point where it occurs. (0.0, "") without a mirror map."""
    mirror = robot.mirror
    if mirror is None or not robot.contacts:
        return 0.0, ""
    model, data = robot.model, robot.model.createData()
    nb = len(robot.base_coordinates)
    lower = np.maximum(model.lowerPositionLimit[nb:], -np.pi)
    upper = np.minimum(model.upperPositionLimit[nb:], np.pi)
    rng = np.random.default_rng(0)
    postures = [robot.standing_q[nb:]] + [rng.uniform(lower, upper) for _ in range(POSTURES)]
    worst, where = 0.0, ""
    for joints in postures:
        q = np.concatenate([np.zeros(nb), joints])
        points = _contact_points(robot, model, data, q)
        mirrored = _contact_points(robot, model, data, mirror.coordinates(q))
        for i, contact in enumerate(robot.contacts):
            error = float(np.linalg.norm(mirrored[i] - _REFLECT @ points[mirror.contact_perm[i]]))
            if error > worst:
                worst, where = error, contact.name
    return worst, where


def check_mirror(robot):
    """Return `robot` if its mirror map matches its geometry, else raise InputError at `mirror`
    (robot.yaml) naming the contact point that lands off its partner's reflection and by how much."""
    error, where = mirror_error(robot)
    reach = max((float(np.linalg.norm(p)) for p in
                 _contact_points(robot, robot.model, robot.model.createData(), robot.standing_q)), default=0.0)
    tolerance = max(TOLERANCE_M, TOLERANCE_REL * reach)
    if error > tolerance:
        mirror = robot.mirror
        partner = robot.contacts[mirror.contact_perm[[c.name for c in robot.contacts].index(where)]].name
        raise InputError(f"does not match the robot: mirrored, {where} lands {error * 1000:.0f} mm from the "
                         f"reflection of its partner {partner} (tolerance {tolerance * 1000:.0f} mm): a wrong pair in "
                         "feet or joints, or a wrong flip",
                         file=str(robot.folder / "robot.yaml"), field="mirror")
    return robot


def _contact_points(robot, model, data, q) -> list[np.ndarray]:
    """World positions (3,) [m] of the robot's contact points in posture q (base at the origin)."""
    pin.framesForwardKinematics(model, data, np.asarray(q, dtype=float))
    return [data.oMf[c.frame_id].act(np.asarray(c.point, dtype=float)) for c in robot.contacts]
