"""Consistency of a robot folder's geometry, checked by forward kinematics when it loads: the
standing posture's base height, heel behind toe, and the left/right mirror map. Each failure is
one InputError at robot.yaml's key (a new user's trial found all three accepted silently)."""
from __future__ import annotations

import numpy as np
import pinocchio as pin

from .quasi_random import quasi_random
from .robot_feet import reach
from .robot_yaml import number
from .yamlio import Fields

STANDING_BASE_Z_TOL = 1e-3  # m, a given standing.base_z against the feet touching the ground
# Mirror map: largest point error accepted, as a share of the robot's reach. The shipped URDFs
# are kinematically symmetric to 1e-12 of it; a joint flipped wrongly puts the mirrored feet or joints
# centimetres to decimetres off (several % and more).
MIRROR_RTOL = 0.01
# Mirror map, masses: the largest gravity-force error accepted in a half cycle's mirrored half,
# as a weight m·g times this share of the reach. The shipped robots stay near 2e-4 of it
# (anymal_c 2.1e-4, g1 2.0e-4, hoap2 1.6e-4, solo12 5e-6); the Unitree A1 of example-robot-data,
# whose trunk's centre of mass sits 4.1 mm left of the mid-plane, is at 7.3e-3.
MIRROR_MASS_RTOL = 1e-3
_REFLECT = np.diag([1.0, -1.0, 1.0])


def standing_base_z(sf: Fields, model: pin.Model, q: np.ndarray, contacts) -> float:
    """base_z [m] at which the lowest contact point of posture q (base at the origin, level)
    touches z = 0: robot.yaml's `standing.base_z` when given (then within STANDING_BASE_Z_TOL of
    that height: in mm, or left from an older URDF, every guess would start with its feet off the
    ground), else computed."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    zmin = min((data.oMf[c.frame_id].act(c.point))[2] for c in contacts)
    if not np.isfinite(zmin):
        raise sf.error("base_z", "the feet's height at the standing posture is not finite: give base_z")
    if not sf.has("base_z"):
        return -zmin
    z = number(sf, "base_z")
    off = z + zmin
    if abs(off) > STANDING_BASE_Z_TOL:
        raise sf.error("base_z", f"{z:.6g} m puts the lowest contact point {abs(off):.4g} m "
                       f"{'above' if off > 0 else 'below'} the ground at the standing posture (leave base_z "
                       "out to have it computed)", f"{-zmin:.6g} ± {STANDING_BASE_Z_TOL} m")
    return z


def check_heel_behind_toe(f: Fields, model: pin.Model, q: np.ndarray, feet, contacts) -> None:
    """Each heel/toe foot's heel point lies behind its toe point along the base's forward axis x
    at the standing posture q: heel roll and toe roll phases pivot on the points so named."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    for foot in feet.values():
        if foot.kind == "heel_toe":  # a sole's corners: the mean of each edge's two
            heel, toe = (np.mean([data.oMf[c.frame_id].act(c.point) for c in contacts
                                  if c.foot == foot.name and c.role == role], axis=0) for role in ("heel", "toe"))
            if heel[0] >= toe[0]:
                raise f.error(f"feet.{foot.name}", f"the heel is {heel[0] - toe[0]:.4g} m ahead of the toe at the "
                              "standing posture (base x forward): heel and toe swapped, or the frame's axes "
                              "differ from the base's", "heel behind toe")


def _mirror_errors(model, data, mirror, contacts, q, locked_frames=()) -> np.ndarray:
    """Per contact point, then per joint origin, then per locked joint's frame (ids in
    locked_frames): the largest coordinate distance [m] of the mirrored posture's point from the
    reflection (y → −y) of its partner's in posture q (kinematics only: a robot whose mass is not
    symmetric still has a mirror map). A locked joint has no partner in the map: its frame is
    compared with the nearest reflected locked frame, so that arms locked at angles that are not
    mirror images are seen (their links are no joints of the model)."""
    def points(x):
        pin.framesForwardKinematics(model, data, x)
        p = [data.oMf[c.frame_id].act(c.point) for c in contacts]
        return (np.array(p + [data.oMi[j].translation for j in range(1, model.njoints)]),
                np.array([data.oMf[i].translation for i in locked_frames]).reshape(-1, 3))
    (p, lock), (pm, lock_m) = points(q), points(mirror.coordinates(q))
    perm = np.concatenate([mirror.contact_perm, len(contacts) + mirror.perm])
    paired = np.abs(pm - p[perm] @ _REFLECT).max(axis=1)
    nearest = np.abs(lock_m[:, None, :] - (lock @ _REFLECT)[None, :, :]).max(axis=2).min(axis=1, initial=np.inf)
    return np.concatenate([paired, nearest])


def _mirror_error(model, data, mirror, contacts, q, locked_frames=()) -> float:
    """The largest of `_mirror_errors` [m]."""
    return float(_mirror_errors(model, data, mirror, contacts, q, locked_frames).max())


def check_mirror(f: Fields, model: pin.Model, mirror, contacts, reach: float, samples: int = 12,
                 locked=()) -> None:
    """The mirror map (joint pairs and flips) maps random postures (joint angles within their
    limits, clipped to ±1 rad/m) to their reflections, feet and joint origins to MIRROR_RTOL ×
    reach [m]; else names the joints that break it, each moved alone from the zero posture. A
    wrong flip of a chain's last joint with no foot below it moves nothing compared: not caught.
    The frames of the `locked` joints (names) are compared too, each with the nearest reflected
    one: left and right locked at angles that are not mirror images are refused (a G1 user's
    arms, locked one raised and one down, loaded silently and were mirrored as they stood)."""
    if mirror is None:
        return
    data = model.createData()
    lo = np.maximum(model.lowerPositionLimit, -1.0)
    hi = np.minimum(model.upperPositionLimit, 1.0)
    tol = MIRROR_RTOL * reach
    frames = tuple(model.getFrameId(j) for j in locked if model.existFrame(j))
    worst = max(_mirror_error(model, data, mirror, contacts, lo + (hi - lo) * u, frames)
                for u in quasi_random(samples, model.nq))  # the same postures at every load
    if worst <= tol:
        return
    # at the zero posture no flip matters: points off there are paired wrongly (a user's hexapod
    # with its feet paired FL-MR was told every coordinate was at fault)
    zero = _mirror_errors(model, data, mirror, contacts, pin.neutral(model), frames)
    names = ([c.name for c in contacts] + [model.names[j] for j in range(1, model.njoints)]
             + [model.frames[i].name for i in frames])
    paired = [n for n, e in zip(names, zero) if e > tol]
    held = [n for n, e in zip(names[len(names) - len(frames):], zero[len(names) - len(frames):]) if e > tol]
    if held:  # before the pairs: a locked arm held off its mirror image moves no joint of the model
        raise f.error("locked", f"left and right locked at angles that are not mirror images: the frames of "
                      f"{', '.join(held[:3])}{' …' if len(held) > 3 else ''} lie up to {zero.max():.3g} m off "
                      "every reflected (y → −y) locked frame", "equal angles, opposite where a joint flips")
    if paired:
        raise f.error("mirror", f"at the zero posture {', '.join(paired[:6])}{' …' if len(paired) > 6 else ''} "
                      f"lie up to {zero.max():.3g} m off the reflection (y → −y) of their partners': "
                      f"{'`locked` angles not mirror images, or ' if frames else ''}a wrong pair in mirror.feet or "
                      "mirror.joints", f"pairs mirror images, at most {tol:.3g} m off")
    culprits = []
    for i in range(model.nq):
        q = pin.neutral(model)
        q[i] = lo[i] + 0.8 * (hi[i] - lo[i])
        if _mirror_error(model, data, mirror, contacts, q, frames) > tol:
            culprits.append(model.names[i + 1])
    raise f.error("mirror", f"mirrored feet or joints {worst:.3g} m off the reflection (y → −y) of their "
                  f"partners'; a wrong flip or pair at {', '.join(culprits) or 'several joints together'}",
                  f"at most {tol:.3g} m: flip the joints whose angle changes sign under the reflection")


def mirror_gravity_error(model: pin.Model, mirror, samples: int = 12) -> tuple[float, int]:
    """(largest |g(q′) − mirror(g(q))| [N or N·m], index of its coordinate) over `samples`
    quasi-random postures q (joint angles within their limits, clipped to ±1 rad/m), where g(q)
    is the generalized gravity force (Pinocchio's RNEA at v = a = 0) and q′ the mirrored posture.

    Zero for a robot that is its own mirror image in mass as well as in geometry: a half cycle's
    mirrored half then satisfies the equations of motion as the solved half does. Where the
    URDF's left and right inertial data differ it is what the mirrored half is off by, at rest:
    a trunk whose centre of mass sits y off the mid-plane gives 2·m_trunk·g·y about base_roll
    (`check_mirror` compares kinematics only)."""
    data = model.createData()
    lo = np.maximum(model.lowerPositionLimit, -1.0)
    hi = np.minimum(model.upperPositionLimit, 1.0)
    zero = np.zeros(model.nv)
    worst = np.zeros(model.nv)
    for u in quasi_random(samples, model.nq):
        q = lo + (hi - lo) * u
        g = pin.rnea(model, data, q, zero, zero).copy()
        g_mirrored = pin.rnea(model, data, mirror.coordinates(q), zero, zero)
        worst = np.maximum(worst, np.abs(g_mirrored - mirror.coordinates(g)))
    i = int(np.argmax(worst))
    return float(worst[i]), i


def mirror_mass_mismatch(robot) -> tuple[float, str, str] | None:
    """(error, coordinate, unit) of `mirror_gravity_error` on a robot with a mirror map when it
    exceeds MIRROR_MASS_RTOL × weight × reach (a half cycle is then only approximate), else None."""
    if robot.mirror is None:
        return None
    error, i = mirror_gravity_error(robot.model, robot.mirror)
    weight = float(pin.computeTotalMass(robot.model)) * float(np.linalg.norm(robot.model.gravity.linear))
    if error <= MIRROR_MASS_RTOL * reach(robot.model) * weight:
        return None
    name = robot.coordinates[i]
    return error, name, "N" if name in ("base_x", "base_y", "base_z") else "N·m"
