"""Problems that cannot have a solution, caught before the NLP is built.

IPOPT spends its whole iteration budget on an infeasible problem before it says so (minutes on
a shipped robot); these checks take milliseconds and say which setting is at fault. Each raises
`InputError` (exit 2 from the CLI) naming the problem file and the key.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from .actuation import designed_joints
from .constraints.kinematics import (BASE_ATTITUDE_BAND, FootRangeOfMotion, attitude_bands, base_height_band,
                                    foot_boxes, foot_yaw_band, setting, sole_feet)
from .direction import check_robot
from .errors import InputError
from .legs import base_rotation, leg_geometry
from .robot_checks import mirror_mass_mismatch
from .robot_model import ACTUATOR_NUMBERS
from .schedule import Schedule, active_points


def check_problem(problem, robot) -> None:
    """Raise InputError if `problem` on `robot` is infeasible for a reason found without solving."""
    check_robot(problem, robot)
    schedule = Schedule(robot, problem)
    _feet_that_never_lift(problem, robot, schedule)
    _flight_without_floating_base(problem, robot, schedule)
    _flight_out_of_reach(problem, robot, schedule)
    _period_against_stride_and_speed(problem)
    _stride_out_of_reach(problem, robot, schedule)
    _stance_out_of_reach(problem, robot, schedule)
    _clearance_out_of_reach(problem, robot, schedule)
    _stair_rise_out_of_reach(problem, robot, schedule)
    _turn_beyond_planted_soles(problem, robot, schedule)
    _mirror_partners_with_other_actuators(problem, robot)
    _warn_if_masses_not_mirrored(problem, robot)


def _advances(problem) -> bool:
    """Whether every solution moves the base forward (a stride or speed bounded away from 0)."""
    stride, speed = problem.stride, problem.speed
    return ((stride is not None and stride.min > 0) or (speed is not None and speed.min > 0)
            or bool(problem.sideways))


def _feet_that_never_lift(problem, robot, schedule) -> None:
    if not _advances(problem) or "base_x" not in robot.base_coordinates:
        return
    for foot in robot.feet:
        if all(modes[foot] != "swing" for modes, _ in schedule.expanded):
            raise InputError(f"foot {foot!r} is on the ground for the whole cycle while the base advances "
                             "(stride/speed > 0): it would have to slide; give it a swing phase",
                             file=problem.source, field="gait.phases")


def _flight_without_floating_base(problem, robot, schedule) -> None:
    if "base_z" in robot.base_coordinates:
        return
    for ph in schedule.phases:
        if not ph.active:
            raise InputError(f"phase {ph.name!r} has no foot on the ground, but {robot.name} has no floating base "
                             "to fly with", file=problem.source, field="gait.phases")


def _expanded_durations(problem) -> list:
    """The shortest duration [s] of each phase of the expanded cycle (schedule.expanded's order:
    a half cycle's phases twice)."""
    return [ph.duration.min for ph in problem.phases] * (2 if problem.cycle == "half" else 1)


def _cyclic_runs(flags: list) -> list:
    """The maximal runs of consecutive True entries of `flags` around the cycle (a run may wrap
    past the end), each a list of indices, in order from its first; [] when every entry is True
    or none is."""
    n = len(flags)
    runs = []
    for start in range(n):
        if flags[start] and not flags[start - 1]:  # a run's first entry (index −1 wraps)
            run = [start]
            while flags[(run[-1] + 1) % n] and len(run) < n:
                run.append((run[-1] + 1) % n)
            runs.append(run)
    return runs


def _flight_out_of_reach(problem, robot, schedule) -> None:
    """A flight of T seconds (consecutive flight phases of the expanded cycle, at their shortest
    durations) carries the centre of mass along a parabola z(t) = z₀ + ż₀ t − g t²/2, whose
    height varies by at least g T²/8 over the flight (the symmetric arc), and by at least
    (1 − 1/n²) g T²/8 over its n + 1 knots, where the base height band holds. At those knots the
    base lies in its band [lo, hi] above the ground and the CoM within d of the base's height,
    d = Σ_i m_i ρ_i / m with ρ_i a bound on the distance of body i's centre of mass from the base
    (the joint offsets along its chain plus its own lever): the CoM's height varies by at most
    hi − lo + 2d. A flight beyond that (a duration in the wrong unit, a swing written for a
    stance) is refused instead of IPOPT searching for 500 iterations before it reports local
    infeasibility. Flat ground only (on a slope or a terrain the ground under the base moves),
    fixed limb lengths, a height band."""
    band = base_height_band(problem, robot) if "base_z" in robot.base_coordinates else None
    if (band is None or problem.slope or problem.terrain is not None or problem.limb_lengths is not None
            or not any(not ph.active for ph in schedule.phases)):
        return
    durations = _expanded_durations(problem)
    flying = [all(m == "swing" for m in modes.values()) for modes, _ in schedule.expanded]
    allowed = band[1] - band[0] + 2.0 * _com_offset_bound(robot)
    g = float(np.linalg.norm(robot.model.gravity.linear))
    for run in _cyclic_runs(flying):
        T = sum(durations[i] for i in run)
        n = sum(schedule.expanded[i][1] for i in run)
        rise = (1.0 - 1.0 / n ** 2) * g * T ** 2 / 8.0
        if rise > 1.1 * allowed + 0.005:  # margin: the trapezoid's knots follow the parabola to O(h²)
            name = problem.phases[run[0] % len(problem.phases)].name
            t_max = np.sqrt(8.0 * (1.1 * allowed + 0.005) / (g * (1.0 - 1.0 / n ** 2)))
            raise InputError(f"a flight of {T:.3g} s (from phase {name!r}) moves the centre of mass {rise:.3g} m up and "
                             f"down (g T²/8); the base height band {band[0]:.3g}–{band[1]:.3g} m and the legs allow at "
                             f"most {allowed:.3g} m", file=problem.source, field="gait.phases",
                             allowed=f"flights up to about {t_max:.2g} s")


def _com_offset_bound(robot) -> float:
    """A bound d [m] on the distance of the robot's centre of mass from its base origin in any
    posture: Σ_i m_i ρ_i / m, ρ_i = (the joint offsets from the base along body i's chain) + |its
    centre of mass's lever| (triangle inequality; the base coordinates' own joints add nothing)."""
    model = robot.model
    n_base = len(robot.base_coordinates)
    rho = np.zeros(model.njoints)
    total = mass = 0.0
    for j in range(1, model.njoints):
        if j > n_base:  # the base's joints come first (gaitopt.robot_model): their bodies move with the base
            rho[j] = rho[model.parents[j]] + float(np.linalg.norm(model.jointPlacements[j].translation))
        m = float(model.inertias[j].mass)
        total += m * (rho[j] + float(np.linalg.norm(model.inertias[j].lever)))
        mass += m
    return total / mass if mass > 0 else 0.0


def _period_against_stride_and_speed(problem) -> None:
    """stride = speed · period must be possible with the phase durations' bounds."""
    stride, speed = problem.stride, problem.speed
    if stride is None or speed is None:
        return
    part = 0.5 if problem.cycle == "half" else 1.0
    t_min = sum(ph.duration.min for ph in problem.phases) / part
    t_max = sum(ph.duration.max for ph in problem.phases) / part
    # the periods speed and stride allow: [stride.min / speed.max, stride.max / speed.min]
    lo = stride.min / speed.max if speed.max > 0 else np.inf
    hi = stride.max / speed.min if speed.min > 0 else np.inf
    if hi < t_min * (1 - 1e-9) or lo > t_max * (1 + 1e-9):
        raise InputError(f"stride {stride.min:g}–{stride.max:g} m at speed {speed.min:g}–{speed.max:g} m/s needs a "
                         f"cycle of {lo:.4g}–{hi:.4g} s, but the phase durations allow {t_min:.4g}–{t_max:.4g} s",
                         file=problem.source, field="speed")


def _stride_out_of_reach(problem, robot, schedule) -> None:
    """The base can advance at most Σ_phases min_{f in stance} L_f per cycle: while a phase's
    stance feet hold their footholds, the base stays within each one's range-of-motion box (x
    length L_f, widened by the attitude band's rotation of the box and by the foot rolling
    about its contact points). A stride or a speed × shortest cycle beyond that is refused (a
    user's `speed: 15`, a unit slip, ran 580 iterations). Straight gaits on the plane with the
    boxes on, and no flight phase (a flying base advances without a foot to bound it)."""
    stride, speed = problem.stride, problem.speed
    if (problem.sideways or problem.yaw_rate or problem.slope or problem.terrain is not None
            or problem.limb_lengths is not None or "base_x" not in robot.base_coordinates
            or not FootRangeOfMotion.applies(problem, robot)):
        return
    part = 0.5 if problem.cycle == "half" else 1.0
    t_min = sum(ph.duration.min for ph in problem.phases) / part
    need = max(stride.min if stride is not None else 0.0, speed.min * t_min if speed is not None else 0.0)
    if need <= 0.0:
        return
    boxes = foot_boxes(problem, robot)
    attitude = setting(problem, robot, "base_attitude")
    bands = {**BASE_ATTITUDE_BAND, **(attitude or {})} if attitude is not False else {}
    pitch = bands.get("pitch", problem.constraints.base_pitch_limit)
    turn = min(pitch if robot.base == "sagittal" else pitch + bands.get("roll", np.pi) + bands.get("yaw", np.pi),
               np.pi)
    span = {}
    for foot, (lo, hi) in boxes.items():
        corner = np.linalg.norm(_box_corners((lo, hi)), axis=1).max()
        # the box turned by up to `turn` moves its points by at most the chord 2 r sin(turn / 2)
        span[foot] = hi[0] - lo[0] + 4.0 * corner * np.sin(turn / 2.0) + 2.0 * _contact_spread(robot, foot)
    reach = 0.0
    for modes, _ in schedule.expanded:
        standing = [span[f] for f, m in modes.items() if m != "swing"]
        if not standing:
            return
        reach += min(standing)
    if need > 1.05 * reach + 0.005:  # margin: footholds drift (second order in h) between knots
        field = "speed" if speed is not None and speed.min * t_min >= need else "stride"
        why = f"{speed.min:g} m/s × a cycle ≥ {t_min:.3g} s is" if field == "speed" else f"{stride.min:g} m is"
        raise InputError(f"{why} a stride of {need:.3g} m; the feet's range boxes allow at most {reach:.3g} m "
                         "(a unit slip? else widen constraints.foot_range)", file=problem.source, field=field)


def _box_corners(box) -> np.ndarray:
    """(8, 3) corners [m] of a range box (lo (3,), hi (3,)) in the base frame."""
    lo, hi = box
    return np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])


def _contact_spread(robot, foot: str) -> float:
    """The largest distance [m] of a foot's contact point from their mean (the reference point
    its range box holds): how far a point can be from where the box puts the foot."""
    points = [c.point for c in robot.contacts if c.foot == foot]
    return float(max(np.linalg.norm(q - np.mean(points, axis=0)) for q in points))


class VerticalReach(NamedTuple):
    """What the base height band and each foot's range allow vertically."""
    band: tuple    # (lo, hi) base height band [m]
    reach: dict    # foot → (lo, hi) depth below the base it reaches [m]
    slack: dict    # foot → slack [m] the attitude band's tilt gives its standing lever arm
    lever: dict    # foot → the largest horizontal distance [m] of its range from the base
    tilt: float    # the largest tilt [rad]


def _largest_tilt(problem, robot) -> float:
    """The largest base roll or pitch [rad] the attitude band allows (about its centre: the
    slope's pitch for a body that keeps level with it), within the Euler bound
    ±base_pitch_limit; 0 for a base that cannot roll or pitch. Yaw tilts nothing."""
    limit = problem.constraints.base_pitch_limit
    bands = attitude_bands(problem, robot)
    return max((min(np.abs(bands[c]).max(), limit) if c in bands else limit
                for c in ("base_roll", "base_pitch") if c in robot.base_coordinates), default=0.0)


def _vertical_reach(problem, robot) -> VerticalReach | None:
    """The VerticalReach of the problem's feet, or None without a floating base or a height band."""
    if "base_z" not in robot.base_coordinates:
        return None
    band = base_height_band(problem, robot)
    if band is None:
        return None
    geo = leg_geometry(robot)
    ranged = setting(problem, robot, "foot_range") is not False
    boxes = foot_boxes(problem, robot) if ranged else {}
    tilt = _largest_tilt(problem, robot)
    # depth below the base the foot can reach: its box, or the whole leg without one
    reach = {f: (-boxes[f][1][2], -boxes[f][0][2]) if ranged else (0.0, geo.length[f]) for f in robot.feet}
    slack = {f: np.hypot(*geo.stance[f][:2]) * np.sin(min(tilt, np.pi / 2)) for f in robot.feet}
    # the farthest the foot gets from the base's vertical axis: its box's corners, or the leg
    lever = {f: np.hypot(*_box_corners(boxes[f])[:, :2].T).max() if ranged
             else np.hypot(*geo.stance[f][:2]) + geo.length[f] for f in robot.feet}
    return VerticalReach(band, reach, slack, lever, min(tilt, np.pi / 2))


def _stance_out_of_reach(problem, robot, schedule) -> None:
    """A foot in stance must reach the ground from some base height of the height band: the
    band and the foot's vertical range below the base must overlap (with the attitude band's
    tilt of the foot's lever arm as slack)."""
    vertical = _vertical_reach(problem, robot)
    if vertical is None:
        return
    (lo, hi), reach, slack = vertical.band, vertical.reach, vertical.slack
    in_stance = {f for modes, _ in schedule.expanded for f, m in modes.items() if m != "swing"}
    for foot in sorted(in_stance):
        if reach[foot][1] + slack[foot] < lo or reach[foot][0] - slack[foot] > hi:
            given = setting(problem, robot, "base_height") is not None
            field = "constraints.base_height" if given else "constraints.foot_range"
            raise InputError(f"foot {foot!r} in stance cannot reach the ground: the base is held {lo:.3g}–{hi:.3g} m "
                             f"above it, the foot reaches {reach[foot][0]:.3g}–{reach[foot][1]:.3g} m below the base",
                             file=problem.source, field=field)


def _clearance_out_of_reach(problem, robot, schedule) -> None:
    """A swinging foot must rise `constraints.clearance` above the ground at mid-swing: at most
    the band's highest base less the least depth its range keeps it below the base (plus the
    tilt slack). On stairs and height maps the clearance is over the local ground: not checked."""
    vertical = _vertical_reach(problem, robot)
    if vertical is None or problem.terrain is not None:
        return
    (lo, hi), reach, lever, tilt = vertical.band, vertical.reach, vertical.lever, vertical.tilt
    c = problem.constraints.clearance
    swinging = {f for modes, _ in schedule.expanded for f, m in modes.items() if m == "swing"}
    # pitch and roll both at the band's largest tilt the z axis by up to √2 times it
    theta = min(np.sqrt(2.0) * tilt, np.pi / 2)
    for foot in sorted(swinging):
        # the highest a tilted base can lift the top of the foot's range
        top = hi - reach[foot][0] * np.cos(theta) + lever[foot] * np.sin(theta)
        if c > top + 1e-9:
            raise InputError(f"a swing clearance of {c:.3g} m is out of reach: foot {foot!r} rises at most {top:.3g} m "
                             f"above the ground (the base at most {hi:.3g} m high, the foot at least "
                             f"{reach[foot][0]:.3g} m below it)", file=problem.source, field="constraints.clearance")


# samples per Euler angle of the attitude band (roll, pitch, yaw) in the stair check; the
# lowest base height found is lowered by what a rotation between samples can change it
_ATTITUDE_SAMPLES = (21, 61, 21)


def _base_rotations(problem, robot):
    """(R (N, 3, 3), Lipschitz step [rad]): base orientations (`legs.base_rotation`) sampled over
    the attitude band (within the Euler bound ±base_pitch_limit on roll and pitch), and the sum of
    half the sample spacings: any orientation of the band is within it of a sample about each axis."""
    limit = problem.constraints.base_pitch_limit
    bands = attitude_bands(problem, robot)
    names = [c for c in ("base_roll", "base_pitch", "base_yaw") if c in robot.base_coordinates]
    angles, step = [], 0.0
    for c, n in zip(("base_roll", "base_pitch", "base_yaw"), _ATTITUDE_SAMPLES):
        if c not in names:
            continue
        lo, hi = (-limit, limit) if c != "base_yaw" else (-np.pi, np.pi)
        if c in bands:
            lo, hi = max(lo, bands[c][0]), min(hi, bands[c][1])
        angles.append(np.linspace(lo, hi, n))
        step += 0.5 * (hi - lo) / (n - 1)
    grid = np.meshgrid(*angles, indexing="ij")
    q = np.zeros((robot.model.nq, grid[0].size))
    for c, a in zip(names, grid):
        q[robot.index(c)] = a.ravel()
    return np.moveaxis(base_rotation(robot, q), -1, 0), step


def _stair_rise_out_of_reach(problem, robot, schedule) -> None:
    """On a stair every swinging foot passes over the edges it climbs (or descends) above the
    upper tread, |rise|/2 above the ramp through the treads' middles that the base height band is
    measured from, while the feet in stance stand on treads, within |rise|/2 of that ramp. With
    each foot's reference point p in its range box and the base rotated by R in its attitude
    band, a foot's height above the ramp under the base is h − n·(Rp), n = (tan θ, 0, −1),
    θ = atan(rise/run), h the base's height above the ramp; no gait exists when no R and h of the
    bands meet all of these in any phase of the foot's swing. Skipped without a floating base, a
    height band or a foot range."""
    stairs = (problem.terrain or {}).get("stairs")
    vertical = _vertical_reach(problem, robot)
    if stairs is None or vertical is None or setting(problem, robot, "foot_range") is False:
        return
    blocked = _stair_blocked_foot(problem, robot, schedule)
    if blocked is None:
        return
    foot, standing = blocked
    lo_r, hi_r = 0.0, abs(stairs["rise"])  # the largest rise on this run the check lets through
    for _ in range(12):
        mid = 0.5 * (lo_r + hi_r)
        trial = replace(problem, terrain={**problem.terrain, "stairs": {**stairs, "rise": np.sign(stairs["rise"]) * mid}})
        lo_r, hi_r = (mid, hi_r) if _stair_blocked_foot(trial, robot, schedule) is None else (lo_r, mid)
    (lo, hi), run = vertical.band, stairs["run"]
    raise InputError(f"a rise of {abs(stairs['rise']):.3g} m per {run:.3g} m run is out of reach: foot {foot!r} cannot "
                     f"pass over an edge while {'+'.join(standing) or 'no foot'} stand on treads, the base "
                     f"{lo:.3g}–{hi:.3g} m above the mean slope", file=problem.source, field="terrain.stairs.rise",
                     allowed=f"|rise| <= {np.floor(lo_r * 1e3) / 1e3:.3f} m on a {run:.3g} m run (within this foot_range, base_height and "
                             "base_attitude; docs/feasibility.md)")


def _stair_blocked_foot(problem, robot, schedule):
    """(a swinging foot that can pass over no stair edge, the feet standing while it swings) or
    None (see `_stair_rise_out_of_reach`); sound: orientations between the samples are covered by
    widening each foot's reach by what such a rotation can change it."""
    stairs = problem.terrain["stairs"]
    half = 0.5 * abs(stairs["rise"])
    (lo, hi), boxes = base_height_band(problem, robot), foot_boxes(problem, robot)
    R, step = _base_rotations(problem, robot)
    n = np.array([stairs["rise"] / stairs["run"], 0.0, -1.0])
    nR = np.einsum("i,nij->nj", n, R)  # (N, 3): n·(R p) = (nR)·p
    reach = {}  # foot → (least, largest) n·(R p) over its box (N,), widened
    for foot in robot.feet:
        corners = _box_corners(boxes[foot])
        v = nR @ corners.T  # (N, 8): linear in p, extreme at the box's corners
        # a contact point lies off the box's reference point by up to the foot's spread
        slack = np.linalg.norm(n) * (np.linalg.norm(corners, axis=1).max() * step + _contact_spread(robot, foot))
        reach[foot] = (v.min(axis=1) - slack, v.max(axis=1) + slack)
    swings = {}
    for modes, _ in schedule.expanded:
        standing = tuple(f for f, m in modes.items() if m != "swing")
        h_lo, h_hi = np.full(len(R), lo), np.full(len(R), hi)
        for f in standing:  # standing on a tread: h − n·(Rp) within ±|rise|/2 of the ramp
            h_lo, h_hi = np.maximum(h_lo, reach[f][0] - half), np.minimum(h_hi, reach[f][1] + half)
        for f, m in modes.items():
            if m == "swing":  # over an edge: h − n·(Rp) ≥ |rise|/2 for some p
                ok = bool(np.any(np.maximum(h_lo, reach[f][0] + half) <= h_hi))
                swings.setdefault(f, []).append((ok, standing))
    for foot, phases in swings.items():
        if not any(ok for ok, _ in phases):
            return foot, phases[0][1]
    return None


def _turn_beyond_planted_soles(problem, robot, schedule) -> None:
    """A turning gait (yaw_rate ω) with the foot yaw band: a sole planted for T seconds (two or
    more of its points on the ground: it cannot yaw) sees the path's heading turn ω·T. Its yaw
    relative to the body stays within ±a (foot_yaw) and the body's yaw within ±b of the heading
    (base_attitude), so the turn must fit in 2(a + b): else no posture sequence exists (HOAP-2 at
    0.6 rad/s with 1.6 s stances; at 0.5 rad/s, 0.8 of 0.9 rad, IPOPT ran out of 1 000 iterations).
    T counts each phase at its shortest duration; a necessary condition, not a sufficient one."""
    feet = sole_feet(robot)
    if not problem.yaw_rate or not feet or setting(problem, robot, "foot_yaw") is False:
        return
    bands = attitude_bands(problem, robot)
    if "base_yaw" not in bands:
        return
    body = bands["base_yaw"][1]
    allowed = 2.0 * (foot_yaw_band(problem, robot) + body)
    durations = _expanded_durations(problem)
    for foot in feet:
        points = set(robot.feet[foot].contacts)
        planted = [len(points.intersection(active_points(robot, modes))) >= 2 for modes, _ in schedule.expanded]
        longest = max((sum(durations[i] for i in run) for run in _cyclic_runs(planted)), default=0.0)
        turn = abs(problem.yaw_rate) * longest
        if turn > allowed + 1e-9:
            raise InputError(f"turning at {problem.yaw_rate:g} rad/s, foot {foot!r} stands planted {longest:.3g} s while "
                             f"the path turns {turn:.3g} rad; its yaw band (±{allowed / 2 - body:.3g} rad about the "
                             f"body) and the body's (±{body:.3g} rad about the path) allow {allowed:.3g} rad",
                             file=problem.source, field="speed.yaw_rate",
                             allowed=f"|yaw_rate| ≤ {allowed / longest:.3g} rad/s, or widen constraints.foot_yaw "
                                     "/ base_attitude.yaw, or shorten the stance")


def mirror_actuator_mismatches(problem, robot, actuators: dict | None = None) -> list:
    """[(joint, partner, {field: (joint's value, partner's value)})] for each mirror pair whose
    actuators (`actuators`, default the robot's: joint → Actuator) differ, when `problem` is a
    half cycle (else []). The half cycle solves one half
    and gives each joint, in the mirrored half, its partner's torques and motion: the limits
    (current, torque–speed line), the Joule loss and the reflected rotor inertia G²·J of that
    half are the partner's, not the joint's. A co-designed group's gear is one variable, so a
    designed pair's fixed gear ratios are not compared (`GearRatioDesign` keeps pairs in a group).
    """
    if problem.cycle != "half" or robot.mirror is None:
        return []
    acts = robot.actuators if actuators is None else actuators
    designed = designed_joints(problem, robot)
    out, seen = [], set()
    for j in robot.actuated:
        partner = robot.coordinates[int(robot.mirror.perm[robot.index(j)])]
        if partner == j or partner not in acts or (partner, j) in seen:
            continue
        seen.add((j, partner))
        a, b = acts[j], acts[partner]
        diff = {}
        for name in ACTUATOR_NUMBERS:
            if name == "gear_ratio" and j in designed and partner in designed:
                continue
            x, y = float(getattr(a, name)), float(getattr(b, name))
            if x != y and not np.isclose(x, y, rtol=1e-9, atol=0.0):
                diff[name] = (x, y)
        if diff:
            out.append((j, partner, diff))
    return out


def mismatch_text(joint: str, partner: str, diff: dict) -> str:
    """'FL_calf_joint and FR_calf_joint have other actuators (gear_ratio 40 vs 12.134)'."""
    what = ", ".join(f"{k} {x:.6g} vs {y:.6g}" for k, (x, y) in diff.items())
    return f"{joint} and {partner} have other actuators ({what})"


def _mirror_partners_with_other_actuators(problem, robot) -> None:
    """A half cycle needs both joints of each mirror pair on the same actuator (see
    `mirror_actuator_mismatches`). Found 2026-11-25: a study sweeping the Go2's front-left calf
    gear alone solved at G = 40 with that calf at 1.12× its motor voltage in the mirrored half,
    a cost of 56 J/m against the full cycle's 91 J/m Joule loss, and no word of it."""
    bad = mirror_actuator_mismatches(problem, robot)
    if bad:
        raise InputError(f"a half cycle mirrors each joint's motion onto its partner: {mismatch_text(*bad[0])}",
                         file=problem.source, field="gait.cycle",
                         allowed="full, or one actuator (motor and gear) on both joints of each mirror pair")


def _warn_if_masses_not_mirrored(problem, robot) -> None:
    """One warning when `problem` is a half cycle and the robot's masses are not the mirror image
    of each other beyond MIRROR_MASS_RTOL (`mirror_gravity_error`): the mirrored half is then off
    the equations of motion by about that force, which the solve does not see. Found 2026-11-25:
    the Unitree A1 of example-robot-data (trunk centre of mass 4.1 mm left) trotted as a half
    cycle with 0.49 N·m unbalanced about base_roll through the whole mirrored half; its MuJoCo
    replay spent +89 % of the planned Joule loss over 4 cycles and slipped 15 mm, the same trot
    as a full cycle +8 % and 0.9 mm."""
    if problem.cycle != "half":
        return
    mismatch = mirror_mass_mismatch(robot)
    if mismatch is None:
        return
    import warnings

    error, name, unit = mismatch
    warnings.warn(f"{problem.source}: gait.cycle: a half cycle mirrors the solved half, but {robot.name}'s "
                  f"masses are not mirror images left to right (its URDF's inertial data): the mirrored half's "
                  f"gravity forces are off by up to {error:.3g} {unit} at {name}, which the "
                  "solve does not see; `gait.cycle: full` is exact", stacklevel=3)
