"""Schema pieces shared by problem files and robot.yaml: bounded quantities and the kinematic
feasibility settings (which a problem's `constraints` and a robot's `kinematics` both hold)."""
from __future__ import annotations

from dataclasses import dataclass

from .yamlio import Fields


@dataclass(frozen=True)
class Bounded:
    """A quantity that is fixed (min == max) or free within [min, max], with an initial guess."""

    min: float
    max: float
    guess: float

    @property
    def fixed(self) -> bool:
        return self.min == self.max

    @staticmethod
    def fixed_at(value: float) -> "Bounded":
        return Bounded(float(value), float(value), float(value))


# physical ranges of the bounded quantities of a problem file (SI units)
RANGES = {"speed": 20.0, "stride": 20.0, "step_length": 10.0, "duration": 60.0, "base_height": 10.0}


def bounded(f: Fields, key: str, *, positive: bool = True, high: float | None = None) -> Bounded | None:
    """A number (fixed) or {min, max, guess}, each finite, > 0 when positive and <= high
    (default: RANGES[key] when the key is listed there)."""
    value = f.raw(key, None)
    if value is None:
        return None
    if high is None:
        high = RANGES.get(key)
    if isinstance(value, dict):
        b = f.mapping(key, allowed=["min", "max", "guess"])
        lo = b.number("min", positive=positive, high=high)
        hi = b.number("max", positive=positive, high=high)
        guess = b.number("guess", 0.5 * (lo + hi), positive=positive, high=high)
        b.done(["min", "max", "guess"])
        if not lo <= guess <= hi:
            raise f.error(key, f"need min <= guess <= max, got {lo:g}, {guess:g}, {hi:g}", "min <= guess <= max")
        return Bounded(lo, hi, guess)
    return Bounded.fixed_at(f.number(key, positive=positive, high=high))


def _switchable(c: Fields, key: str, parse):
    """A feasibility setting: absent or null → None (the robot's default), false → False (off),
    else parse(c, key)."""
    value = c.raw(key, None)
    if value is None or value is False:
        return value
    if value is True:
        return None
    return parse(c, key)


def _foot_range(c: Fields, key: str) -> dict:
    """{half_size: [x, y, z], feet: {FOOT: [x, y, z]}} m, half-sizes of the range-of-motion box."""
    m = c.mapping(key, allowed=["half_size", "feet"])
    out = {}
    if m.has("half_size"):
        out["half_size"] = _half_size(m, "half_size")
    if m.has("feet"):
        feet = m.mapping("feet")
        out["feet"] = {str(f): _half_size(feet, f) for f in feet.data}
    m.done(["half_size", "feet"])
    return out


MAX_LENGTH = 10.0   # m, any length of a feasibility setting
MAX_ANGLE = 3.141592653589793   # rad, any angle (band half-width, margin) of a feasibility setting
MAX_TILT = MAX_ANGLE / 2        # rad, a roll or pitch band's half-width


def _half_size(f: Fields, key) -> list:
    vec = f.vector(key, 3)
    if any(not 0 < x <= MAX_LENGTH for x in vec):
        raise f.error(key, f"half-sizes must be > 0 m and <= {MAX_LENGTH:g} m, got {vec}",
                      f"0 < half-size <= {MAX_LENGTH:g} m")
    return vec


def _numbers_of(allowed, high: float):
    def parse(c: Fields, key: str) -> dict:
        m = c.mapping(key, allowed=list(allowed))
        out = {k: m.number(k, low=0.0, high=high) for k in allowed if m.has(k)}
        m.done(list(allowed))
        return out
    return parse


def _attitude(c: Fields, key: str) -> dict:
    """{roll, pitch, yaw: half-widths [rad], level: true | false}: level centres the pitch band on
    the world's horizontal instead of the terrain's grade (a body held level on a slope)."""
    m = c.mapping(key, allowed=["roll", "pitch", "yaw", "level"])
    # a roll or pitch band past ±90° is no band (the body on its side or back): such a value is
    # degrees typed for radians (a user's `roll: 3` was a ±172° band); `false` leaves it free
    highs = {"roll": MAX_TILT, "pitch": MAX_TILT, "yaw": MAX_ANGLE}
    out = {k: m.number(k, low=0.0, high=highs[k]) for k in ("roll", "pitch", "yaw") if m.has(k)}
    if m.has("level"):
        out["level"] = m.boolean("level")
    m.done(["roll", "pitch", "yaw", "level"])
    return out


FEASIBILITY_PARSERS = {
    "foot_range": _foot_range,
    "leg_separation": _numbers_of(("lateral", "longitudinal"), MAX_LENGTH),
    "base_attitude": _attitude,
    "knee_margin": lambda f, k: f.number(k, low=0.0, high=MAX_ANGLE),
    "upper_body": _numbers_of(("band",), MAX_ANGLE),
    # a sole turned more than 90° from its standing heading is no band: degrees typed for radians
    "foot_yaw": _numbers_of(("band",), MAX_TILT),
}
FEASIBILITY_KEYS = tuple(FEASIBILITY_PARSERS)


def feasibility_settings(c: Fields, keys) -> dict:
    """The kinematic feasibility settings `keys` of a mapping (a problem's `constraints` or a
    robot.yaml's `kinematics`): None (default), False (off) or the parsed setting; base_height
    as in `base_height`."""
    out = {}
    for key in keys:
        out[key] = base_height(c) if key == "base_height" else _switchable(c, key, FEASIBILITY_PARSERS[key])
    return out


def base_height(c: Fields):
    """constraints.base_height: null (the robot's default band), false (off), a number or
    {min, max}."""
    if c.raw("base_height", None) is False:
        return False
    return bounded(c, "base_height")




TOUCHDOWN_SPEED_ALONG = ("total", "normal")
MAX_TOUCHDOWN_SPEED = 20.0  # m/s


def touchdown_speed(c: Fields) -> dict | None:
    """constraints.touchdown_speed: null (no bound), a number v_max [m/s] (bound on the total
    speed) or {max: v_max, along: total | normal} → None or {"max": v_max, "along": …}."""
    value = c.raw("touchdown_speed", None)
    if value is None:
        return None
    if isinstance(value, dict):
        t = c.mapping("touchdown_speed", allowed=["max", "along"])
        out = {"max": t.number("max", positive=True, high=MAX_TOUCHDOWN_SPEED),
               "along": t.string("along", "total", allowed=TOUCHDOWN_SPEED_ALONG)}
        t.done(["max", "along"])
        return out
    return {"max": c.number("touchdown_speed", positive=True, high=MAX_TOUCHDOWN_SPEED), "along": "total"}
