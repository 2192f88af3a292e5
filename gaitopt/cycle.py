"""The gait cycle's symmetries, in one place: the base advance from one cycle to the next, and
the left/right mirror map that turns a half cycle into the other half.

Every function works on numpy arrays (a leading time axis allowed) and, where the
transcription needs it, on CasADi column vectors.
"""
from __future__ import annotations

import casadi as ca
import numpy as np

FLIP_Y = np.array([1.0, -1.0, 1.0])  # mirroring left/right flips a world vector's y component


def cycle_shift(coordinates, slope: float) -> np.ndarray:
    """q advance per metre of stride from one cycle to the next (nv,): base_x by 1, base_z by
    tan(slope) on a slope (uphill towards +x); zero for a fixed base."""
    coordinates = list(coordinates)
    shift = np.zeros(len(coordinates))
    if "base_x" in coordinates:
        shift[coordinates.index("base_x")] = 1.0
    if "base_z" in coordinates:
        shift[coordinates.index("base_z")] = np.tan(slope)
    return shift


def height_above_terrain(q, coordinates, slope: float):
    """Base origin height above the terrain plane z = x·tan(slope) [m] of q (..., nq), along
    world z."""
    coordinates = list(coordinates)
    return q[..., coordinates.index("base_z")] - q[..., coordinates.index("base_x")] * np.tan(slope)


def torque_permutation(robot) -> tuple:
    """(perm, sign) over the actuated joints: mirrored τ[i] = sign[i]·τ[perm[i]]."""
    m = robot.mirror
    act = list(robot.actuated_index)
    return [act.index(int(m.perm[ia])) for ia in act], m.sign[act]


def mirror_coordinates(robot, x):
    """Mirror q, v or a (numpy (..., nv) or a CasADi column (nv,))."""
    m = robot.mirror
    if isinstance(x, (ca.SX, ca.MX)):
        return ca.DM(m.sign) * x[m.perm.tolist()]
    return m.coordinates(x)


def mirror_torques(robot, tau):
    """Mirror actuated torques (numpy (..., nu) or a CasADi column (nu,))."""
    perm, sign = torque_permutation(robot)
    if isinstance(tau, (ca.SX, ca.MX)):
        return ca.DM(sign) * tau[perm]
    return sign * np.asarray(tau)[..., perm]


def mirror_contact_forces(robot, f):
    """Mirror world contact forces of all contact points (numpy (..., nc, 3))."""
    return np.asarray(f)[..., robot.mirror.contact_perm, :] * FLIP_Y


def mirror_contact_name(robot, cname: str) -> str:
    """The contact point that `cname` becomes under the mirror map."""
    names = [c.name for c in robot.contacts]
    return names[int(robot.mirror.contact_perm[names.index(cname)])]


def mirror_force_variables(robot, fcol, active, comp):
    """Mirror the force variables of the points in contact (a CasADi column of len(comp)
    components per point in `active`): (mirrored column, names of the points it now
    belongs to)."""
    dim = len(comp)
    flip = [FLIP_Y[ax] for ax in comp]
    new_active, parts = [], []
    for i, cname in enumerate(active):
        new_active.append(mirror_contact_name(robot, cname))
        parts.append(ca.vertcat(*[flip[j] * fcol[dim * i + j] for j in range(dim)]))
    return (ca.vertcat(*parts) if parts else ca.SX(0, 1)), tuple(new_active)
