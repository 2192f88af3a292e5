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


# ---------------------------------------------------------------- any direction and turning
# A cycle moves the base by a rigid planar transform g: positions rotated about world z by the
# cycle's yaw ψ and then translated by (dx, dy) (and base_z by dz on a slope), base_yaw shifted
# by ψ, world-frame linear velocities, accelerations and forces rotated by ψ; joints, Euler-angle
# rates (base yaw-pitch-roll: yaw first, so a turn about world z only adds to it) and torques
# unchanged. The advance vector (nv,) holds (dx, dy, dz) at base_x/y/z and ψ at base_yaw, in the
# frame of the cycle's start; with ψ = 0 the transform is the plain shift q + advance.

PLANAR = ("base_x", "base_y", "base_yaw")


def planar_advance(forward, sideways, yaw):
    """(dx, dy) [m] of a base that keeps a constant body-frame velocity while turning at a
    constant rate by yaw [rad] over the cycle, forward and sideways [m] being that velocity
    times the period: the chord of the arc, R(ψ/2)·(forward, sideways)·sin(ψ/2)/(ψ/2), in the
    frame of the cycle's start. Numbers or CasADi expressions (yaw a Python 0 for a straight
    cycle)."""
    if isinstance(yaw, (int, float)) and yaw == 0:
        return forward, sideways
    lib = ca if isinstance(yaw, (ca.SX, ca.MX)) else np
    h = 0.5 * yaw
    chord = lib.sin(h) / h
    c, s = lib.cos(h), lib.sin(h)
    return chord * (c * forward - s * sideways), chord * (s * forward + c * sideways)


def advance_vector(coordinates, slope: float, dx: float, dy: float = 0.0, yaw: float = 0.0) -> np.ndarray:
    """The cycle's advance (nv,): base_x dx, base_y dy, base_z dx·tan(slope) (uphill towards
    +x), base_yaw yaw [m, rad]; the entries a base lacks are dropped (a sagittal base cannot
    move sideways or turn)."""
    coordinates = list(coordinates)
    out = cycle_shift(coordinates, slope) * float(dx)
    for name, val in (("base_y", dy), ("base_yaw", yaw)):
        if name in coordinates:
            out[coordinates.index(name)] = float(val)
    return out


def _turn(coordinates, advance) -> float:
    coordinates = list(coordinates)
    return float(advance[coordinates.index("base_yaw")]) if "base_yaw" in coordinates else 0.0


def _rotate_xy(x, angle: float, ix: int, iy: int) -> np.ndarray:
    """x (..., n) with its components ix, iy rotated about z by angle [rad]."""
    x = np.array(x, dtype=float, copy=True)
    c, s = np.cos(angle), np.sin(angle)
    a, b = x[..., ix].copy(), x[..., iy].copy()
    x[..., ix], x[..., iy] = c * a - s * b, s * a + c * b
    return x


def transform_state(coordinates, advance, n: int, q, v=None, a=None, f=None) -> tuple:
    """The state of cycle n (any integer) from the cycle-0 state: g applied n times (g⁻¹ for
    n < 0). q, v, a (..., nv) and world forces f (..., nc, 3), each optional (None passes
    through). Returns (q, v, a, f). A cycle that does not turn is the plain shift q + n·advance
    (v, a, f unchanged)."""
    advance = np.asarray(advance, float)
    psi = _turn(coordinates, advance)
    if psi == 0.0:
        return (None if q is None else q + n * advance), v, a, f
    coordinates = list(coordinates)
    ix, iy, iyaw = (coordinates.index(c) for c in PLANAR)
    step = 1 if n >= 0 else -1
    for _ in range(abs(int(n))):
        if q is not None:
            q = np.array(q, dtype=float, copy=True)
            if step > 0:
                q = _rotate_xy(q, psi, ix, iy) + advance
            else:
                q = _rotate_xy(q - advance, -psi, ix, iy)
        v, a = (None if x is None else _rotate_xy(x, step * psi, ix, iy) for x in (v, a))
        f = None if f is None else _rotate_xy(f, step * psi, 0, 1)
    return q, v, a, f


def untransform_casadi(coordinates, q, v, dx, dy, dz, yaw):
    """g⁻¹ on CasADi columns q, v (nv,): the state at the start of the next cycle seen from the
    start of this one (dx, dy, dz [m], yaw [rad]: numbers or expressions). Returns (q, v)."""
    coordinates = list(coordinates)
    ix, iy, iyaw = (coordinates.index(c) for c in PLANAR)
    c, s = ca.cos(yaw), ca.sin(yaw)

    def back(x, y):  # R(-ψ)·(x, y)
        return c * x + s * y, -s * x + c * y

    px, py = back(q[ix] - dx, q[iy] - dy)
    vx, vy = back(v[ix], v[iy])
    qs = [q[i] for i in range(q.shape[0])]
    vs = [v[i] for i in range(v.shape[0])]
    qs[ix], qs[iy], qs[iyaw], vs[ix], vs[iy] = px, py, q[iyaw] - yaw, vx, vy
    if "base_z" in coordinates:
        iz = coordinates.index("base_z")
        qs[iz] = q[iz] - dz
    return ca.vertcat(*qs), ca.vertcat(*vs)
