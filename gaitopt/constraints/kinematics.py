"""Kinematic feasibility, on by default: what a leg can reach, legs that do not cross, feet that
point where the body heads, a body that keeps its attitude and height, knees away from their
straight singularity.

Without these a cost such as the Joule loss is free to pick straight legs tucked under the
belly or a body pitched to its Euler limit: cheap in torque, and no gait a robot walks. The
defaults come from the robot's standing geometry (gaitopt.legs); robot.yaml's `kinematics`
section and the problem's `constraints` override them (False switches one off).
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from ..errors import InputError
from ..legs import base_origin, base_rotation, leg_geometry
from ..quantities import contact_points
from ..terrain_io import periodic_slope
from .base import Constraint

# Defaults, as fractions of the standing geometry (documented in docs/feasibility.md).
# box half-size / leg length along base x, y, z: a biped's legs swing through about ±30° (x = L·sin 30°);
# legs of a multi-legged robot share the body's length with their neighbours
FOOT_RANGE_FRACTION = {"biped": np.array([0.5, 0.15, 0.2]), "multi": np.array([0.3, 0.15, 0.2])}
LEG_SEPARATION_FRACTION = 0.5   # minimum distance / standing distance between partner feet
SOLE_GAP = 0.01                 # m, between the inner edges of two soles side by side (default_lateral)
BASE_ATTITUDE_BAND = {"roll": 0.25, "pitch": 0.25, "yaw": 0.25}  # rad, half-widths
BASE_HEIGHT_BAND = (0.75, 1.2)  # base height / standing base height
KNEE_MARGIN = 0.15              # rad from the straight knee
UPPER_BODY_BAND = 0.5           # rad (m) from standing, joints on no leg (waist, head, arms)
FOOT_YAW_BAND = 0.2             # rad, a sole's heading relative to the base's yaw, from standing


def robot_kinematics(robot) -> dict:
    """robot.yaml's `kinematics` section (empty when the robot has none)."""
    return dict(robot.kinematics)


def setting(problem, robot, key: str):
    """A feasibility setting: the problem's if given, else robot.yaml's, else None (default).
    False switches the rule off; a problem's value overrides robot.yaml's, false or not (the
    components impose, and feasibility_report judges, this one value)."""
    value = getattr(problem.constraints, key)
    if value is None:
        value = robot_kinematics(robot).get(key)
    return value


# The resolved settings, as functions of (problem, robot): the components impose them and
# gaitopt.feasibility / gaitopt.precheck judge by the same numbers.

def foot_boxes(problem, robot) -> dict:
    """foot → (lo, hi) (3,) [m]: its range-of-motion box in the base frame (FootRangeOfMotion)."""
    geo = leg_geometry(robot)
    given = setting(problem, robot, "foot_range") or {}
    boxes = {}
    for foot in robot.feet:
        half = given.get("feet", {}).get(foot, given.get("half_size"))
        half = np.asarray(half, float) if half is not None else default_foot_half_size(robot, geo, foot)
        lo, hi = geo.stance[foot] - half, geo.stance[foot] + half
        # a foot off the mid-plane stays on its own side of it
        side = np.sign(geo.stance[foot][1]) if abs(geo.stance[foot][1]) > 1e-9 else 0.0
        if side > 0:
            lo[1] = max(lo[1], 0.0)
        elif side < 0:
            hi[1] = min(hi[1], 0.0)
        boxes[foot] = (lo, hi)
    return boxes


def default_foot_half_size(robot, geo, foot: str) -> np.ndarray:
    """Half-sizes (3,) [m] of a foot's range-of-motion box when no setting gives them: a
    fraction (FOOT_RANGE_FRACTION) of its standing leg length (geo = `leg_geometry(robot)`)."""
    return FOOT_RANGE_FRACTION["biped" if len(robot.feet) == 2 else "multi"] * geo.length[foot]


def separation_minima(problem, robot) -> list:
    """[(foot a, foot b, base axis, minimum [m])]: a's coordinate minus b's along the axis stays
    at least the minimum (LegSeparation). Default: LEG_SEPARATION_FRACTION of the standing
    distance, and laterally at least the two soles' half-widths plus SOLE_GAP (`default_lateral`)."""
    geo = leg_geometry(robot)
    given = setting(problem, robot, "leg_separation") or {}
    out = []
    for (a, b), axis, key in [(pair, 1, "lateral") for pair in geo.lateral_pairs] + \
                             [(pair, 0, "longitudinal") for pair in geo.neighbours]:
        standing = geo.stance[a][axis] - geo.stance[b][axis]
        default = default_lateral(geo, a, b) if axis == 1 else LEG_SEPARATION_FRACTION * standing
        out.append((a, b, axis, float(given.get(key, default))))
    return out


def default_lateral(geo, a: str, b: str) -> float:
    """Default lateral minimum [m] between partner feet a (left) and b: LEG_SEPARATION_FRACTION of
    their standing distance, raised where their soles are wide to the two half-widths plus
    SOLE_GAP, so that the soles do not overlap as one passes the other (at most the standing
    distance). Found 2026-11-25: a new user's Talos (soles 0.124 m wide, 0.17 m apart at
    standing) ran at 1.5 m/s with the soles overlapping by 50 mm, the swinging one 39–51 mm
    above the ground; the shipped robots' feet are points, lines or narrow enough that the
    fraction rules."""
    standing = geo.stance[a][1] - geo.stance[b][1]
    soles = geo.half_width[a] + geo.half_width[b]
    wide = min(soles + SOLE_GAP, standing) if soles > 0 else 0.0
    return max(LEG_SEPARATION_FRACTION * standing, wide)


def attitude_bands(problem, robot) -> dict:
    """Base angle → (lo, hi) [rad] of its attitude band ({} when switched off), before the
    Euler regularity bound (BaseAttitude)."""
    given = setting(problem, robot, "base_attitude")
    if given is False:
        return {}
    band = {**BASE_ATTITUDE_BAND, **{k: v for k, v in (given or {}).items() if k != "level"}}
    centre = {"base_roll": 0.0, "base_pitch": attitude_pitch_centre(problem, robot), "base_yaw": 0.0}
    return {c: (centre[c] - band[c.removeprefix("base_")], centre[c] + band[c.removeprefix("base_")])
            for c in centre if c in robot.base_coordinates}


def knee_margin(problem, robot) -> float:
    """The knee margin [rad] (KneeMargin)."""
    margin = setting(problem, robot, "knee_margin")
    return KNEE_MARGIN if margin is None or margin is True else float(margin)


def upper_body_band(problem, robot) -> float:
    """Half-width [rad or m] of the upper-body joints' band around standing (UpperBodyPosture)."""
    return (setting(problem, robot, "upper_body") or {}).get("band", UPPER_BODY_BAND)


def foot_yaw_band(problem, robot) -> float:
    """Half-width [rad] of each sole's yaw band around its standing heading (FootYaw)."""
    return (setting(problem, robot, "foot_yaw") or {}).get("band", FOOT_YAW_BAND)


def sole_feet(robot) -> dict:
    """foot → (heel indices, toe indices) into robot.contacts, for the feet with a sole (heel and
    toe points; a sole width adds corners) of a 3-D robot: the feet whose heading is defined.
    A point foot has none: its one contact carries a force and no moment about the normal, so
    the way its frame faces changes nothing the model sees ({} on sagittal robots too)."""
    if robot.base != "3d":
        return {}
    out = {}
    for foot, f in robot.feet.items():
        roles = {c: robot.contact(c).role for c in f.contacts}
        heel = [i for i, c in enumerate(robot.contacts) if roles.get(c.name) == "heel"]
        toe = [i for i, c in enumerate(robot.contacts) if roles.get(c.name) == "toe"]
        if heel and toe:
            out[foot] = (heel, toe)
    return out


def sole_headings(robot, q, pos) -> dict:
    """foot → (a, b): the heel-to-toe vector of each sole (mean of its toe points minus mean of its
    heel points, world positions pos (3, nc), numpy or CasADi) in the base's heading frame (the
    world turned by the base yaw of q): a along the body's heading, b to its left [m]. The
    sole's yaw relative to the base's is atan2(b, a)."""
    yaw = q[robot.index("base_yaw")]
    lib = ca if isinstance(q, (ca.SX, ca.MX)) else np
    cy, sy = lib.cos(yaw), lib.sin(yaw)
    out = {}
    for foot, (heel, toe) in sole_feet(robot).items():
        d = sum(pos[:, i] for i in toe) / len(toe) - sum(pos[:, i] for i in heel) / len(heel)
        out[foot] = (cy * d[0] + sy * d[1], -sy * d[0] + cy * d[1])
    return out


def standing_sole_headings(robot) -> dict:
    """foot → (ψ0 [rad], ℓ [m]): each sole's yaw relative to the base's at the standing posture
    and the horizontal length of its heel-to-toe vector there (FootYaw's centre and scale)."""
    q = robot.standing_q
    pos = contact_points(robot, [q])[0].T
    return {foot: (float(np.arctan2(b, a)), float(np.hypot(a, b)))
            for foot, (a, b) in sole_headings(robot, q, pos).items()}


def _floating(robot) -> bool:
    return "base_z" in robot.base_coordinates


def _feet_of(ctx, q, pos) -> dict:
    """foot → (3,) SX: its reference point (mean of its contact points, positions pos (3, nc))
    in the base frame of q."""
    names = ctx.contact_names
    # the base's rotation and origin once for all feet (built per foot, they were half the
    # building time of these rows: a trig expression of q per foot)
    R_T, origin = base_rotation(ctx.robot, q).T, base_origin(ctx.robot, q)
    out = {}
    for foot, f in ctx.robot.feet.items():
        idx = [names.index(c) for c in f.contacts]
        world = sum((pos[:, i] for i in idx[1:]), pos[:, idx[0]]) / len(idx)
        out[foot] = R_T @ (world - origin)
    return out


def _feet_in_base(ctx, point) -> dict:
    """foot → (3,) SX: its reference point in the base frame at `point`."""
    return point.cached("feet_in_base", lambda: _feet_of(ctx, point.q, point.contact_kinematics(ctx.dynamics)[0]))


def _feet_in_base_rows(ctx, name: str, key: tuple, rows_of):
    """A shared Function q → rows_of(feet in base frame) (Context.shared; key as there), or None."""
    return ctx.shared(name, key, lambda q: rows_of(_feet_of(ctx, q, ctx.own_contact_kinematics()[0])), inputs="q")


class FootRangeOfMotion(Constraint):
    """FootRangeOfMotion: each foot's reference point (the mean of its contact points) stays in
    a box around its standing position in the base frame, |p_b − p_b,stand| ≤ half_size [m]
    per axis (x, y, z; x and z in the sagittal plane), and a foot that stands off the base's
    mid-plane stays on its own side of it (y ≥ 0 for a left foot), at every kinematic
    collocation point.
    Default half-size: (0.5, 0.15, 0.2) × the leg's length (gaitopt.legs) for a biped, whose
    legs swing through about ±30°, and (0.3, 0.15, 0.2) × it for robots with more legs; override
    `foot_range: {half_size: [x, y, z], feet: {FOOT: [x, y, z]}}` in robot.yaml's `kinematics`
    or the problem's `constraints`; false switches it off."""

    term = "foot_range"
    where = ("bounds", "point")

    def __init__(self):
        self.boxes = {}

    @classmethod
    def applies(cls, problem, robot):
        return _floating(robot) and setting(problem, robot, "foot_range") is not False

    def bound(self, ctx, bounds):
        self.boxes = foot_boxes(ctx.problem, ctx.robot)

    def add_point(self, ctx, p, point):
        if not point.kinematic:
            return
        axes = [0, 2] if ctx.sagittal else [0, 1, 2]
        for foot in ctx.robot.feet:
            lo, hi = self.boxes[foot]
            fn = _feet_in_base_rows(ctx, f"foot_in_base_{foot}", (type(self), self.term, foot, tuple(axes)),
                                    lambda feet, foot=foot: feet[foot][axes])
            if fn is not None:
                ctx.builder.con_call(self.term, ctx.phases[p].name, fn, [point.q], ca.SX.zeros(len(axes)),
                                     lo[axes], hi[axes])
            else:
                rel = _feet_in_base(ctx, point)[foot]
                ctx.builder.con(self.term, ctx.phases[p].name, rel[axes], lo[axes], hi[axes])


class LegSeparation(Constraint):
    """LegSeparation: feet do not cross. In the base frame, the left foot of each left/right
    pair stays at least `lateral` [m] to the left of its partner (y_left − y_right ≥ lateral),
    and on each side each foot at least `longitudinal` [m] ahead of the one behind it
    (x_front − x_back ≥ longitudinal), at every kinematic collocation point. Default: half the
    standing distances; override `leg_separation: {lateral: m, longitudinal: m}`; false
    switches it off. 3-D robots only (the sagittal plane has no lateral axis)."""

    term = "leg_separation"
    where = ("bounds", "point")

    def __init__(self):
        self.rows = []  # (foot a, foot b, axis, minimum)

    @classmethod
    def applies(cls, problem, robot):
        return (robot.base == "3d" and len(robot.feet) > 1
                and setting(problem, robot, "leg_separation") is not False)

    def bound(self, ctx, bounds):
        self.rows = separation_minima(ctx.problem, ctx.robot)

    def add_point(self, ctx, p, point):
        if not point.kinematic or not self.rows:
            return
        def gaps(feet):
            return ca.vertcat(*[feet[a][axis] - feet[b][axis] for a, b, axis, _ in self.rows])
        minima = np.array([m for *_, m in self.rows])
        fn = _feet_in_base_rows(ctx, "leg_gaps", (type(self), self.term, tuple(tuple(r) for r in self.rows)), gaps)
        if fn is not None:
            ctx.builder.con_call(self.term, ctx.phases[p].name, fn, [point.q], ca.SX.zeros(len(self.rows)), minima, np.inf)
        else:
            ctx.builder.con(self.term, ctx.phases[p].name, gaps(_feet_in_base(ctx, point)), minima, np.inf)


class FootYaw(Constraint):
    """FootYaw: each sole's heading stays within ±band [rad] of its standing heading, relative to
    the base's yaw, at every kinematic collocation point. The heading is that of the heel-to-toe
    vector d (mean of the toe points minus mean of the heel points) in the base's heading frame
    (the world turned by base_yaw): (a, b) = Rz(−yaw)·d, ψ = atan2(b, a); ψ0 its standing value.
    Rows, free of atan2's branch cut: with ℓ the standing length of (a, b),
        (cos(ψ0+band)·b − sin(ψ0+band)·a)/ℓ ≤ 0  and  (sin(ψ0−band)·a − cos(ψ0−band)·b)/ℓ ≤ 0,
    i.e. h·sin(ψ − ψ0 − band) ≤ 0 and h·sin(ψ0 − band − ψ) ≤ 0 with h = |(a, b)|/ℓ (1 for a
    sole flat on the ground): dimensionless, ≈ rad at the band's edge, the wedge ψ0 ± band for
    band ≤ π/2. Without it the Joule loss turns a biped's feet in through the hip yaws, which
    cost it almost nothing (HOAP-2's static walk: up to 33°; docs/feasibility.md). 3-D robots, feet
    with heel and toe points (`sole_feet`: a point foot's heading changes nothing the model
    sees). Default band 0.2 rad; override `foot_yaw: {band: rad}`; false switches it off."""

    term = "foot_yaw"
    where = ("bounds", "point")

    def __init__(self):
        self.edges = {}  # foot → (ψ0 − band, ψ0 + band, ℓ)

    @classmethod
    def applies(cls, problem, robot):
        # the problem's setting when given, else robot.yaml's (`setting`), as feasibility_report reads it
        given = problem.constraints.foot_yaw
        if setting(problem, robot, "foot_yaw") is False:
            return False
        if not sole_feet(robot):
            if given is not None:
                why = f"a {robot.base} base" if robot.base != "3d" else "point feet"
                raise InputError(f"needs a 3-D robot whose feet have heel and toe points ({robot.name} has {why})",
                                 file=problem.source, field="constraints.foot_yaw",
                                 allowed="false or leave it out")
            return False
        return True

    def bound(self, ctx, bounds):
        band = foot_yaw_band(ctx.problem, ctx.robot)
        self.edges = {foot: (psi0 - band, psi0 + band, length)
                      for foot, (psi0, length) in standing_sole_headings(ctx.robot).items()}

    def rows(self, ctx, q, pos):
        """(2·feet,) the rows above, each ≤ 0, of posture q with contact positions pos (3, nc)."""
        out = []
        for foot, (a, b) in sole_headings(ctx.robot, q, pos).items():
            lo, hi, length = self.edges[foot]
            out += [(np.cos(hi) * b - np.sin(hi) * a) / length, (np.sin(lo) * a - np.cos(lo) * b) / length]
        return ca.vertcat(*out)

    def add_point(self, ctx, p, point):
        if not point.kinematic:
            return
        n = 2 * len(self.edges)
        key = (type(self), self.term, tuple(sorted((f, *e) for f, e in self.edges.items())))
        fn = ctx.shared("foot_yaw", key, lambda q: self.rows(ctx, q, ctx.own_contact_kinematics()[0]), inputs="q")
        if fn is not None:
            ctx.builder.con_call(self.term, ctx.phases[p].name, fn, [point.q], ca.SX.zeros(n), -np.inf, np.zeros(n))
        else:
            rows = self.rows(ctx, point.q, point.contact_kinematics(ctx.dynamics)[0])
            ctx.builder.con(self.term, ctx.phases[p].name, rows, -np.inf, np.zeros(n))


class BaseAttitude(Constraint):
    """BaseAttitude: base roll and yaw within ±band, and base pitch within ±band of the terrain's
    pitch for a multi-legged body (−slope: the body follows the slope) or of upright for a
    biped's torso (see `attitude_pitch_centre`; `level: true` holds a multi-legged body level
    with the world on a slope), [rad], as bounds; always within the Euler
    regularity bound ±constraints.base_pitch_limit on pitch and roll. Yaw is measured from the
    direction of travel: +x, or on a turning gait (speed.yaw_rate ω) the path's heading
    ω·(t − T/2) at time t of the cycle of period T, as rows at the knots and interval midpoints
    (ψ − ω·(t − T/2) within ±band; t reads the phase durations) instead of bounds: an absolute
    band cannot hold a body that turns ω·T per cycle (HOAP-2 at 0.2 rad/s over a 2 s cycle was
    locally infeasible). Default band: 0.25 rad each; override `base_attitude: {roll, pitch,
    yaw}`; false leaves only the regularity bound."""

    term = "base_attitude"
    where = ("bounds", "phase")

    @classmethod
    def applies(cls, problem, robot):
        return any(c in robot.base_coordinates for c in ("base_pitch", "base_roll", "base_yaw"))

    def bound(self, ctx, bounds):
        robot, limit = ctx.robot, ctx.problem.constraints.base_pitch_limit
        bands = attitude_bands(ctx.problem, robot)
        self.turning_yaw = None  # (lo, hi) about the path's heading, as rows (add_phase)
        for c in ("base_roll", "base_pitch", "base_yaw"):
            if c not in robot.base_coordinates:
                continue
            i = robot.index(c)
            lo, hi = (-limit, limit) if c != "base_yaw" else (-np.inf, np.inf)
            if c in bands:
                if c == "base_yaw" and ctx.problem.yaw_rate:
                    self.turning_yaw = bands[c]
                    continue
                lo, hi = max(lo, bands[c][0]), min(hi, bands[c][1])
            bounds.q_lb[i], bounds.q_ub[i] = lo, hi
        self.index = [robot.index(c) for c in ("base_roll", "base_pitch", "base_yaw") if c in robot.base_coordinates]

    def add_phase(self, ctx, p):
        ctx.builder.bound(self.term, ctx.phases[p].name, ctx.phases[p].q.index[self.index, :])
        if self.turning_yaw is None:
            return
        phases, omega = ctx.phases, ctx.problem.yaw_rate
        period = sum(ph.duration for ph in phases)
        start = sum(ph.duration for ph in phases[:p])
        pv, i = phases[p], ctx.robot.index("base_yaw")
        for block, shift in zip(pv.all_of("q"), (0.0, 0.5)):
            k = block.sym.shape[1]
            s = (np.arange(k) + shift) / pv.n_intervals  # each column's share of the phase
            heading = omega * (start + ca.DM(s).T * pv.duration - period / 2)
            lo, hi = self.turning_yaw
            ctx.builder.con(self.term, pv.name, block.sym[i, :] - heading, lo, hi)


def attitude_pitch_centre(problem, robot) -> float:
    """Centre of the pitch band [rad]: a multi-legged body follows the slope (−slope: its x axis
    along the terrain; on a stair its mean grade) unless `base_attitude: {level: true}` holds it
    level (0); a biped's torso stays upright (0: it leans into a slope as a walker chooses,
    within the band)."""
    if len(robot.feet) <= 2 or (setting(problem, robot, "base_attitude") or {}).get("level"):
        return 0.0
    return -periodic_slope(problem)


def base_height_band(problem, robot):
    """(min, max) [m] of the base height above the terrain: the problem's or robot.yaml's
    `base_height`, else (0.75, 1.2) × the standing base height; None when switched off."""
    given = setting(problem, robot, "base_height")
    if given is False:
        return None
    if given is None:
        h = leg_geometry(robot).base_height
        return BASE_HEIGHT_BAND[0] * h, BASE_HEIGHT_BAND[1] * h
    if isinstance(given, dict):
        return given["min"], given["max"]
    return given.min, given.max


class KneeMargin(Constraint):
    """KneeMargin: knee-type joints keep `margin` [rad] away from their straight (singular)
    configuration on the side they bend to: bend·(q − straight) ≥ margin, as bounds. Joints from
    robot.yaml `kinematics.knees: {JOINT: {bend: +1 | −1, straight: rad}}`; default margin
    0.15 rad; override `knee_margin: rad`; false switches it off."""

    term = "knee_margin"
    where = ("bounds", "phase")

    @classmethod
    def applies(cls, problem, robot):
        return bool(robot_kinematics(robot).get("knees")) and setting(problem, robot, "knee_margin") is not False

    def bound(self, ctx, bounds):
        margin = knee_margin(ctx.problem, ctx.robot)
        self.index = []
        for joint, knee in robot_kinematics(ctx.robot)["knees"].items():
            i = ctx.robot.index(joint)
            edge = knee.get("straight", 0.0) + knee["bend"] * margin
            if knee["bend"] > 0:
                bounds.q_lb[i] = max(bounds.q_lb[i], edge)
            else:
                bounds.q_ub[i] = min(bounds.q_ub[i], edge)
            self.index.append(i)

    def add_phase(self, ctx, p):
        ctx.builder.bound(self.term, ctx.phases[p].name, ctx.phases[p].q.index[self.index, :])


def upper_body_joints(robot) -> list:
    """Indices into q of the joints on no leg's chain (waist, head, arms, tail…)."""
    model, legs = robot.model, set()
    for c in robot.contacts:
        legs.update(int(j) for j in model.supports[model.frames[c.frame_id].parentJoint])
    nb = len(robot.base_coordinates)
    return [robot.index(model.names[j]) for j in range(nb + 1, model.njoints) if j not in legs]


class UpperBodyPosture(Constraint):
    """UpperBodyPosture: joints on no leg (waist, head, arms) stay within ±band [rad, or m for a
    prismatic joint] of their standing values, as bounds: without it a cost that only sees
    torques swings arms and head to their limits to shift the centre of mass. Default band
    0.5; override `upper_body: {band: rad}`; false switches it off."""

    term = "upper_body"
    where = ("bounds", "phase")

    @classmethod
    def applies(cls, problem, robot):
        return bool(upper_body_joints(robot)) and setting(problem, robot, "upper_body") is not False

    def bound(self, ctx, bounds):
        band = upper_body_band(ctx.problem, ctx.robot)
        self.index = upper_body_joints(ctx.robot)
        for i in self.index:
            stand = ctx.robot.standing_q[i]
            bounds.q_lb[i] = max(bounds.q_lb[i], stand - band)
            bounds.q_ub[i] = min(bounds.q_ub[i], stand + band)

    def add_phase(self, ctx, p):
        ctx.builder.bound(self.term, ctx.phases[p].name, ctx.phases[p].q.index[self.index, :])
