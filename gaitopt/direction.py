"""Any direction and turning: the `speed` mapping of a problem file, {forward, sideways,
yaw_rate}, and the checks that tie it to the cycle, the terrain and the robot.

The base keeps a body-frame mean velocity (forward, sideways) [m/s] and turns at yaw_rate
[rad/s]; over one cycle of period T it advances by the chord of that arc and turns by
ψ = yaw_rate·T (`gaitopt.cycle.planar_advance`). Periodicity then holds modulo that planar
transform (`gaitopt.cycle.transform_state`): positions and world-frame velocities are rotated
by ψ, joint states equal; the body-frame velocity is what repeats.
"""
from __future__ import annotations

from .errors import InputError
from .settings import RANGES, Bounded, bounded

MOTION_KEYS = ("forward", "sideways", "yaw_rate")
MAX_YAW_RATE = 10.0  # rad/s: a full turn in 0.6 s, beyond any gait the reference robots walk


def speed_fields(f) -> tuple:
    """(forward Bounded | None, sideways [m/s], yaw_rate [rad/s]) of the problem file's
    `speed`: a number or {min, max, guess} (forward only), or {forward, sideways, yaw_rate}
    (forward a number ≥ 0 or {min, max, guess}, optional: left out it is 0 unless the file
    gives a `stride`; sideways and yaw_rate numbers, default 0; left and counter-clockwise seen
    from above are positive)."""
    raw = f.raw("speed", None)
    if not (isinstance(raw, dict) and any(k in raw for k in MOTION_KEYS)):
        return bounded(f, "speed"), 0.0, 0.0
    s = f.mapping("speed")
    top = RANGES["speed"]
    forward = bounded(s, "forward", positive=False, high=top)
    if forward is not None and forward.min < 0:
        raise s.error("forward", f"must be >= 0, got {forward.min:g} (to walk backwards, turn round)",
                      f"a number in [0, {top:g}] or {{min, max, guess}}")
    sideways = s.number("sideways", 0.0, low=-top, high=top)
    yaw_rate = s.number("yaw_rate", 0.0, low=-MAX_YAW_RATE, high=MAX_YAW_RATE)
    s.done(MOTION_KEYS)
    if forward is None and f.raw("stride", None) is None:
        # left out means none: a free forward speed let `{sideways: 0.15}` walk 0.51 m/s diagonally
        forward = Bounded.fixed_at(0.0)
    return forward, sideways, yaw_rate


def speed_record(speed: dict | None, sideways: float, yaw_rate: float):
    """A saved problem's speed spelled as in a problem file (the inverse of `speed_fields`);
    speed: the record of the forward Bounded or None."""
    if not sideways and not yaw_rate:
        return speed
    out = {"sideways": sideways, "yaw_rate": yaw_rate}
    if speed is not None:
        out["forward"] = speed
    return out


def check_direction(p) -> None:
    """InputError unless a sideways velocity or yaw rate fits the problem: a full cycle (the
    left/right mirror turns a left turn into a right one and a step to the left into one to the
    right, so two mirrored half cycles cancel both) on flat ground (a turn is no symmetry of a
    slope)."""
    if not (p.sideways or p.yaw_rate):
        return
    if p.cycle == "half":
        raise InputError("sideways and yaw_rate need a full cycle: mirrored half cycles cancel them",
                         file=p.source, field="speed", allowed="gait.cycle: full, or sideways: 0 and yaw_rate: 0")
    if p.yaw_rate and p.slope:
        raise InputError("yaw_rate needs flat ground: a turn is no symmetry of a slope", file=p.source,
                         field="speed.yaw_rate", allowed="0 on a slope, or terrain.slope_deg: 0")
    if getattr(p, "terrain", None):
        # the terrain periodicity check (gaitopt.terrain_io) shifts along x only
        raise InputError("sideways and yaw_rate need a plane: steps and height maps repeat along x only",
                         file=p.source, field="speed", allowed="sideways: 0 and yaw_rate: 0, or a plane terrain")


def check_robot(p, robot) -> None:
    """InputError unless the robot's base can move sideways and turn (a 3-D floating base)."""
    if (p.sideways or p.yaw_rate) and robot.base != "3d":
        raise InputError(f"{robot.name} has a {robot.base} base: it cannot move sideways or turn", file=p.source,
                         field="speed", allowed="sideways: 0 and yaw_rate: 0, or a robot with a 3-D base")


def progress(p) -> bool:
    """Whether the problem fixes some progress (a speed, a stride or a sideways velocity)."""
    return p.speed is not None or p.stride is not None or bool(p.sideways)

