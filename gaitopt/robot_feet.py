"""Feet of robot.yaml: point feet, heel/toe feet (a line contact) and heel/toe feet with a sole
width (four corner points: the heel and the toe are each an edge).

A foot with ``width: w`` has its heel and toe points each replaced by two corners at ±w/2 along
the foot frame's y axis, named ``<foot>_heel_inner``, ``<foot>_heel_outer``, ``<foot>_toe_inner``,
``<foot>_toe_outer`` (in that order): inner is the corner nearer the body's sagittal plane (the
base's x–z plane) at the neutral posture (all joint angles zero). The roles stay ``heel`` and
``toe``, so the modes (flat, heel, toe, swing) pick corners as they picked points; `side` tells
the corners of one edge apart, and the mirror map pairs corners of the same role and side.
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin

from .rigid_points import rigid_plan
from .robot_model import ContactPoint, Foot
from .robot_yaml import _allowed_names, _short_repr, number, vector
from .yamlio import Fields

FOOT_KEYS = ["frame", "point", "heel", "toe", "width"]
SIDES = ("inner", "outer")


def reach(model: pin.Model) -> float:
    """The largest distance [m] of any frame from the base in the neutral configuration, at
    least 0.1 m: no foot point lies farther from its frame."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, pin.neutral(model))
    return max(0.1, max(float(np.linalg.norm(f.translation)) for f in data.oMf))


def read_feet(f: Fields, model: pin.Model, base: str, size: float):
    """(foot name → Foot, [ContactPoint] in a fixed order) from robot.yaml's `feet`; `base` is
    the base mode (a sole width needs a 3-D model: not sagittal), `size` the model's `reach` [m] (no foot point
    lies farther from its frame)."""
    feet_f = f.mapping("feet")
    if not feet_f.data:
        raise f.error("feet", "a robot needs at least one foot")
    frame_names = [fr.name for fr in model.frames]
    feet, contacts = {}, []
    for foot in feet_f.data:
        if not isinstance(foot, str) or not foot:
            raise feet_f.error(str(foot), "a foot name must be a non-empty string")
        ff = feet_f.mapping(foot, allowed=FOOT_KEYS)
        frame = ff.string("frame")
        if frame not in frame_names:
            raise ff.error("frame", f"no frame {_short_repr(frame, 60)} in the URDF",
                           _allowed_names([n for n in frame_names if "foot" in n.lower() or "sole" in n.lower()]
                                          or [n for n in frame_names if n != "universe"]))
        fid = model.getFrameId(frame)
        points, kind = _foot_points(feet_f, ff, model, base, str(foot), frame, fid)
        ff.done(FOOT_KEYS)
        for c in points:
            if np.linalg.norm(c.point) > size:  # millimetres typed as metres, most often
                key = "width" if c.side else c.role  # the key: point, heel, toe or width
                what = f"puts corner {c.name}" if c.side else "is"
                raise ff.error(key, f"{what} {np.linalg.norm(c.point):.3g} m from the frame {frame}, farther than any "
                               f"frame of the robot is from its base ({size:.3g} m): give it in metres, in the "
                               "frame's axes")
        contacts += points
        feet[str(foot)] = Foot(str(foot), frame, kind, tuple(c.name for c in points))
    return feet, contacts


def _foot_points(feet_f: Fields, ff: Fields, model, base, foot, frame, fid):
    """([ContactPoint] of one foot, its kind) from its robot.yaml entry `ff` (in `feet_f`)."""
    if ff.has("point"):
        if ff.has("heel") or ff.has("toe"):
            raise ff.error("point", "a foot is either a point foot or has heel and toe points")
        if ff.has("width"):
            raise ff.error("width", "a point foot has no sole: a sole width needs `heel` and `toe`",
                           "heel, toe and width, or point alone")
        return [ContactPoint(foot, foot, "point", frame, fid, np.array(vector(ff, "point", 3)))], "point"
    if not (ff.has("heel") and ff.has("toe")):
        raise feet_f.error(foot, "give either `point` or both `heel` and `toe`", ["frame", "point", "heel", "toe"])
    heel, toe = np.array(vector(ff, "heel", 3)), np.array(vector(ff, "toe", 3))
    if not ff.has("width"):
        return [ContactPoint(f"{foot}_heel", foot, "heel", frame, fid, heel),
                ContactPoint(f"{foot}_toe", foot, "toe", frame, fid, toe)], "heel_toe"
    if base == "sagittal":  # a fixed base is 3-D: its soles can roll (a G1 loaded with --base fixed was refused)
        raise ff.error("width", "a sole width needs a 3-D model (base: 3d or fixed): in the sagittal plane a "
                       "foot cannot roll", "leave width out")
    width = number(ff, "width", positive=True, allowed="a sole width > 0 [m]")
    inner_sign = _inner_sign(model, fid, foot, ff)
    half = np.array([0.0, 0.5 * width, 0.0])
    out = []
    for role, p in (("heel", heel), ("toe", toe)):
        for side, s in zip(SIDES, (inner_sign, -inner_sign)):
            out.append(ContactPoint(f"{foot}_{role}_{side}", foot, role, frame, fid, p + s * half, side))
    return out, "heel_toe"


def _inner_sign(model, fid, foot, ff) -> float:
    """+1 when the foot frame's +y corner is the inner one (nearer the base's x–z plane at the
    neutral posture), else −1."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, pin.neutral(model))
    placement = data.oMf[fid]
    y_foot = float(placement.translation[1])
    if abs(y_foot) < 1e-4:
        raise ff.error("width", f"foot {foot!r} lies on the body's sagittal plane at the neutral posture: its "
                       "sole has no inner and outer side", "leave width out")
    y_axis = float(placement.rotation[1, 1])  # the world y of the frame's y axis
    if abs(y_axis) < 0.1:
        raise ff.error("width", f"the frame of foot {foot!r} has its y axis nearly vertical or forward at the "
                       "neutral posture: the width runs along the frame's y axis, across the sole",
                       "a foot frame with y across the sole")
    return -float(np.sign(y_foot * y_axis))


def partner_name(contact: ContactPoint, other_foot: str) -> str:
    """The name the contact point `contact` has on foot `other_foot` (same role and side)."""
    return other_foot + contact.name[len(contact.foot):]


def warn_if_soles_locked(f: Fields, model: pin.Model, q: np.ndarray, contacts) -> None:
    """One warning when, with every foot flat at the standing posture q, the soles' velocity
    components have a smaller rank than the rows `ContactAtRest` imposes (3 + 2 + 1 a sole, 3 + 2
    a heel/toe line, 3 a point): the legs cannot turn one sole relative to the other about some
    axis (most often: no ankle roll joint), so a double support on flat soles is a closed chain
    with a dependent contact row near that posture (IPOPT then converges slowly)."""
    if not any(c.side for c in contacts):
        return
    data = model.createData()
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    rows = []
    for c in contacts:
        M = data.oMf[c.frame_id]
        J6 = pin.getFrameJacobian(model, data, c.frame_id, pin.LOCAL_WORLD_ALIGNED)
        rows.append(J6[:3] - pin.skew(M.rotation @ c.point) @ J6[3:])
    expected = sum(n for n, _ in rigid_plan([(c.foot, c.point) for c in contacts]))
    rank = int(np.linalg.matrix_rank(np.vstack(rows), tol=1e-9))
    if rank < expected:
        import warnings
        warnings.warn(f"{f.file}: feet: with every sole flat at the standing posture the contact velocity rows have "
                      f"rank {rank} of {expected}: the legs cannot turn one sole relative to the other about some axis "
                      "(an ankle roll joint missing?): in double support on flat soles a contact row is then dependent "
                      "near that posture (IPOPT converges slowly)", stacklevel=2)
