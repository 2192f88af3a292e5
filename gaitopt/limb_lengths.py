"""Limb lengths as parameters of the symbolic dynamics: each leg's thigh and shank stretched.

A leg is the chain that carries a point foot: the shank is the body of the joint the foot's frame
hangs from (the knee), the thigh the body of its parent joint (the hip's pitch joint). A
segment's length L is the distance, perpendicular to its joint's axis, from that axis to the
next joint's origin (thigh) or to the foot frame's origin (shank); e is the unit vector of that
perpendicular, in the segment joint's frame. Scaling a segment by s = L'/L is the stretch
x → S x, S = 1 + (s − 1) e eᵀ, of everything rigidly attached to the segment, about its joint:

- the next joint's placement and the frames on the segment move to S p (offsets along the
  joint axis, e.g. a knee's lateral offset, are kept);
- the mass is kept; the centre of mass moves to S c (it stays at the same fraction of the
  length); the mass distribution is stretched, so the second moment about the CoM,
  Σ = ½ tr(I) 1 − I, becomes S Σ S and the rotational inertia I' = tr(Σ') 1 − Σ' (a rod's
  inertia about a perpendicular axis scales with s², about its own axis not at all);
- a contact point keeps its offset from its frame (the foot's shape is not stretched, it moves
  with the frame).

The stretch is linear in the mass distribution, so stretching a body merged from several URDF
links (e.g. shank and foot) equals stretching each link: `gaitopt.limb_urdf` writes the same
robot link by link. With a leg's total length L_t + L_s held, a thigh/shank ratio ρ gives
L_t' = (L_t + L_s) ρ/(1 + ρ) and L_s' = (L_t + L_s)/(1 + ρ) (`leg_scales`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import casadi as ca
import numpy as np

from .dynamics import SymbolicDynamics, _joint_table


@dataclass(frozen=True)
class Segment:
    """One stretchable segment: joint index of its body in the model, e (3,) unit direction of
    its length in that joint's frame, length [m] as shipped."""

    name: str
    joint: int
    e: np.ndarray
    length: float


@dataclass(frozen=True)
class Leg:
    """The thigh and shank segments of the leg that carries `foot`."""

    foot: str
    thigh: Segment
    shank: Segment

    @property
    def ratio(self) -> float:
        """Thigh/shank length ratio as shipped [-]."""
        return self.thigh.length / self.shank.length


def _segment(name, joint, axis, end) -> Segment:
    end = np.asarray(end, float)
    perp = end - axis * float(axis @ end)
    length = float(np.linalg.norm(perp))
    if length < 1e-6:
        raise ValueError(f"{name}: the next joint lies on this joint's axis (no length to scale)")
    return Segment(name, int(joint), perp / length, length)


def leg_of(robot, foot: str) -> Leg:
    """The Leg of a point foot: shank = body of the joint its contact frame hangs from, thigh =
    body of that joint's parent; both must be revolute joints of the legs (not the base)."""
    model = robot.model
    table = _joint_table(model)
    c = robot.contact(robot.feet[foot].contacts[0])
    fr = model.frames[c.frame_id]
    shank = fr.parentJoint
    thigh = model.parents[shank]
    nb = len(robot.base_coordinates)
    for j in (thigh, shank):
        if j <= nb or not table[j].revolute:
            raise ValueError(f"foot {foot}: {model.names[j]} is not a revolute leg joint (thigh and shank "
                             "must be the two revolute joints above the foot)")
    return Leg(foot, _segment(f"{foot}.thigh", thigh, table[thigh].axis, model.jointPlacements[shank].translation),
               _segment(f"{foot}.shank", shank, table[shank].axis, fr.placement.translation))


def leg_scales(legs, ratio):
    """Scale factors (2·len(legs),) of [thigh, shank] per leg for a thigh/shank ratio (a number
    or a CasADi expression), each leg's total length held."""
    out = []
    for leg in legs:
        total = leg.thigh.length + leg.shank.length
        out += [total * ratio / (1 + ratio) / leg.thigh.length, total / (1 + ratio) / leg.shank.length]
    return ca.vertcat(*out) if isinstance(ratio, (ca.SX, ca.MX)) else np.array(out, float)


def stretch(e, s):
    """S = 1 + (s − 1) e eᵀ (3×3; DM for a number s, SX for an expression)."""
    return ca.DM.eye(3) + (s - 1) * ca.DM(np.outer(e, e))


def stretched_body(S, com, inertia):
    """(S c, I') of a body stretched by S: CoM c (3,), rotational inertia about the CoM I (3×3)
    [kg·m²] → I' = tr(S Σ S) 1 − S Σ S with Σ = ½ tr(I) 1 − I. DM or SX like S."""
    inertia = ca.DM(inertia)
    sigma = 0.5 * ca.trace(inertia) * ca.DM.eye(3) - inertia
    sigma2 = S @ sigma @ S.T
    return S @ ca.DM(com), ca.trace(sigma2) * ca.DM.eye(3) - sigma2


class _Bound:
    """A casadi.Function of (…, scale) called as a function of (…) with the scale its dynamics is
    bound to (the shipped lengths, scale 1, until `LimbDynamics.bind`)."""

    def __init__(self, fn, owner):
        self.fn, self.owner = fn, owner

    def __call__(self, *args):
        return self.fn(*args, self.owner.scale)


class LimbDynamics(SymbolicDynamics):
    """`SymbolicDynamics` of a robot whose legs' thighs and shanks are stretched by a scale
    vector (2·len(legs),) = [thigh, shank] per leg (1 = as shipped). Every function keeps its
    signature: its scale input is filled with `scale` (set it with `bind`: a number array, or an
    expression of the NLP's variables). Point feet only (a contact point keeps its offset)."""

    def __init__(self, robot, legs):
        super().__init__(robot.model, [(c.frame_id, c.point) for c in robot.contacts])
        self.legs = tuple(legs)
        self.segments = [s for leg in self.legs for s in (leg.thigh, leg.shank)]
        self._scale = ca.SX.sym("scale", len(self.segments))
        self.scale = np.ones(len(self.segments))
        self._stretch = {}
        for k, seg in enumerate(self.segments):
            S = stretch(seg.e, self._scale[k])
            self._stretch[seg.joint] = S
            J = self._joints[seg.joint]
            com, inertia = stretched_body(S, J.com, J.inertia_com)
            self._joints[seg.joint] = dataclasses.replace(J, com=com, inertia_com=inertia)
        for j in range(1, self.model.njoints):
            S = self._stretch.get(self.model.parents[j])
            if S is not None:
                J = self._joints[j]
                self._joints[j] = dataclasses.replace(J, placement_p=S @ ca.DM(J.placement_p))

    def bind(self, scale) -> "LimbDynamics":
        """Fill the functions' scale input with `scale` (numbers or an SX expression); returns self."""
        self.scale = scale
        return self

    plain = False  # every function takes the limb scale as an extra input

    def _frame_offset(self, frame_id: int, point):
        fr = self.model.frames[frame_id]
        S = self._stretch.get(fr.parentJoint)
        if S is None:
            return super()._frame_offset(frame_id, point)
        rot = np.array(fr.placement.rotation) @ np.asarray(point, float)
        return S @ ca.DM(np.array(fr.placement.translation)) + ca.DM(rot)

    def _fn(self, name, inputs, outputs, in_names, out_names):
        fn = ca.Function(name, list(inputs) + [self._scale], outputs, list(in_names) + ["scale"], out_names)
        return _Bound(fn, self)
