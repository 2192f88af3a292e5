"""Leg roles from the robot's geometry: which foot is left/right, front/back (gaitopt.patterns).

Roles by family: biped L, R; quadruped LF, RF, LH, RH; hexapod L1…L3, R1…R3 (numbered from
front to back). They are found from the standing posture, never from foot names; the named
patterns (gaitopt.gait_table) give their touchdowns by role.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

# roles of the legs, by family
BIPED_ROLES = ("L", "R")
QUADRUPED_ROLES = ("LF", "RF", "LH", "RH")
HEXAPOD_ROLES = ("L1", "L2", "L3", "R1", "R2", "R3")
FAMILY_FEET = {"biped": 2, "quadruped": 4, "hexapod": 6}


@dataclass(frozen=True)
class FootRoles:
    """What the robot's legs are: family (biped | quadruped | hexapod | None), role → foot
    (roles L, R; LF, RF, LH, RH; L1…L3, R1…R3, numbered from front to back), each foot's
    standing position in the base frame (m), and why no family applies (reason)."""

    family: str | None
    roles: dict
    positions: dict = field(compare=False)
    reason: str = ""


def standing_foot_positions(robot) -> dict:
    """foot → (3,) its standing position in the base frame [m]: the mean of its contact points,
    by forward kinematics at robot.standing_q (the base frame is the last base joint's; the
    world for a fixed base)."""
    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, np.asarray(robot.standing_q, dtype=float))
    nb = len(robot.base_coordinates)
    base = data.oMi[nb] if nb else pin.SE3.Identity()
    out = {}
    for foot in robot.feet:
        pts = [data.oMf[c.frame_id].act(np.asarray(c.point, dtype=float)) for c in robot.contacts
               if c.foot == foot]
        out[foot] = base.actInv(np.mean(pts, axis=0))
    return out


def foot_roles(robot, tol: float = 1e-4) -> FootRoles:
    """Leg roles from the robot's geometry, never from foot names: left is y > 0 in the base
    frame at the standing posture, front is larger x. A foot on the mid-plane (a sagittal
    model's y = 0) takes the side opposite its mirror partner's, or, when both are on the
    mid-plane, the first-listed foot of a mirror pair (robot.feet order) is left."""
    pos = standing_foot_positions(robot)
    feet = list(robot.feet)
    pairs = robot.mirror.foot_pairs if robot.mirror is not None else {}
    side = {f: ("L" if p[1] > tol else "R" if p[1] < -tol else None) for f, p in pos.items()}
    for f in feet:
        if side[f] is not None:
            continue
        partner = pairs.get(f, f)
        if partner == f:
            continue
        if side[partner] is not None:
            side[f] = "R" if side[partner] == "L" else "L"
        else:
            side[f] = "L" if feet.index(f) < feet.index(partner) else "R"
    family = {2: "biped", 4: "quadruped", 6: "hexapod"}.get(len(feet))
    if family is None:
        return FootRoles(None, {}, pos, f"{robot.name} has {len(feet)} feet (named patterns are for 2, 4 or 6)")
    if any(s is None for s in side.values()):
        mid = [f for f in feet if side[f] is None]
        return FootRoles(None, {}, pos, f"cannot tell left from right for feet {mid} of {robot.name}")
    left = sorted((f for f in feet if side[f] == "L"), key=lambda f: -pos[f][0])
    right = sorted((f for f in feet if side[f] == "R"), key=lambda f: -pos[f][0])
    if len(left) != len(right):
        return FootRoles(None, {}, pos, f"{robot.name} has {len(left)} left and {len(right)} right feet")
    for s in (left, right):
        for a, b in zip(s, s[1:]):
            if pos[a][0] - pos[b][0] <= tol:
                return FootRoles(None, {}, pos, f"cannot tell front from back for feet {a!r} and {b!r} of {robot.name}")
    if family == "biped":
        roles = {"L": left[0], "R": right[0]}
    elif family == "quadruped":
        roles = {"LF": left[0], "LH": left[1], "RF": right[0], "RH": right[1]}
    else:
        roles = {f"L{i + 1}": f for i, f in enumerate(left)}
        roles.update({f"R{i + 1}": f for i, f in enumerate(right)})
    return FootRoles(family, roles, pos)
