"""robot.yaml reading: the file, its numbers and vectors (finite, in range) and its key lists.

Used by gaitopt.robot (the robot folder) and gaitopt.motors (the motor catalogue)."""
from __future__ import annotations

import math
from pathlib import Path

from .errors import InputError
from .yamlio import Fields, closest_first, load_yaml


ACTUATOR_FIELDS = ("motor", "resistance", "torque_constant", "voltage", "current_limit",
                   "rated_power", "rotor_inertia", "gear_ratio", "gear_efficiency", "source")
# Accepted ranges of the actuator numbers (Fields keyword arguments of `number`, and the text of
# the range): nothing later divides by zero (current τ/(ηGK), stall torque …/R, no-load V/(KG)).
ACTUATOR_RANGES = {
    "resistance": ({"positive": True}, "> 0 Ω"),
    "torque_constant": ({"positive": True}, "> 0 N·m/A"),
    "voltage": ({"positive": True}, "> 0 V"),
    "current_limit": ({"positive": True}, "> 0 A"),
    "rated_power": ({"positive": True}, "> 0 W"),
    "rotor_inertia": ({"low": 0.0}, ">= 0 kg·m²"),
    "gear_ratio": ({"positive": True}, "> 0"),
    "gear_efficiency": ({"positive": True, "high": 1.0}, "in (0, 1]"),
}
# No number of a robot folder is larger in SI units: bigger ones are typos, and products of
# them (G²·J, G·η·K·V/R) must stay finite.
MAX_MAGNITUDE = 1e6
ROBOT_KEYS = ("name", "description", "urdf", "base", "locked", "joint_limits", "passive", "feet",
              "mirror", "standing", "actuators", "kinematics", "sources")
KINEMATICS_KEYS = ("knees", "knee_margin", "foot_range", "leg_separation", "base_attitude", "base_height",
                   "upper_body", "foot_yaw")


def _short_repr(value, limit: int = 120) -> str:
    text = repr(value) if isinstance(value, str) else repr(str(value)) if isinstance(value, Path) else \
        f"{type(value).__name__} {value!r}"
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _allowed_names(names, limit: int = 12, near=None) -> str | None:
    """An `allowed` text for InputError: the names, cut after `limit` so the line stays short;
    with `near` (what the user typed), the names closest to it first, so that the one meant is
    not among those cut."""
    names = [str(n) for n in names]
    if not names:
        return None
    if near is not None and len(names) > limit:
        names = closest_first(near, names, n=limit // 2, cutoff=0.5)
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f", ... ({len(names)} in all)"


def read_yaml(path: str | Path) -> dict:
    """`load_yaml` that also turns unreadable files (a directory, not UTF-8, no permission)
    into one InputError naming the file."""
    path = Path(path)
    try:
        if path.is_dir():
            raise InputError("is a directory, expected a YAML file", file=str(path))
        return load_yaml(path)
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start}: {err.reason})", file=str(path)) from None
    except RecursionError:
        raise InputError("not valid YAML: nested too deeply", file=str(path)) from None
    except OSError as err:
        raise InputError(f"cannot read the file: {err.strerror or err}", file=str(path)) from None


def number(f: Fields, name: str, default=..., *, low: float | None = None, high: float | None = None,
           positive: bool = False, allowed: str | None = None) -> float:
    """A finite number from `f` (NaN and ±inf refused), with optional bounds: low <= x <= high,
    x > 0 (positive). Errors name the file and the key path, and `allowed` (the range in words)."""
    value = f.raw(name, default)
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise f.error(name, f"expected a number, got {_short_repr(value, 60)}", allowed)
    try:
        x = float(value)
    except OverflowError:
        x = math.inf
    if not math.isfinite(x):
        got = "nan" if x != x else _short_repr(value, 40)
        raise f.error(name, f"must be a finite number, got {got}", allowed)
    if abs(x) > MAX_MAGNITUDE:
        raise f.error(name, f"must be at most {MAX_MAGNITUDE:g} in magnitude (SI units), got {x:g}", allowed)
    if positive and not x > 0:
        raise f.error(name, f"must be > 0, got {x}", allowed)
    if low is not None and x < low:
        raise f.error(name, f"must be >= {low}, got {x}", allowed)
    if high is not None and x > high:
        raise f.error(name, f"must be <= {high}, got {x}", allowed)
    return x


def vector(f: Fields, name: str, size: int, default=...) -> list[float]:
    """A list of `size` finite numbers from `f`."""
    value = f.raw(name, default)
    ok = isinstance(value, (list, tuple)) and len(value) == size and \
        all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)
    if ok:
        try:
            out = [float(x) for x in value]
        except OverflowError:
            out = [math.inf]
        ok = all(math.isfinite(x) for x in out)
    if not ok:
        raise f.error(name, f"expected a list of {size} finite numbers, got {_short_repr(value, 80)}")
    return out


def _finite_tree(f: Fields, key: str, value) -> None:
    """Every number in a parsed setting (dicts, lists, dataclasses) is finite."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, (int, float)):
        if not math.isfinite(float(value)):
            raise f.error(key, f"must hold finite numbers, got {value}")
        return
    if isinstance(value, dict):
        for k, v in value.items():
            _finite_tree(f, f"{key}.{k}", v)
        return
    if isinstance(value, (list, tuple)):
        for v in value:
            _finite_tree(f, key, v)
        return
    if hasattr(value, "__dataclass_fields__"):
        for k in value.__dataclass_fields__:
            _finite_tree(f, f"{key}.{k}", getattr(value, k))
