"""The limb-length part of a problem file's `design` section (gear ratios: `gaitopt.problem`).

    design:
      limb_lengths:
        legs: [FL, FR, HL, HR]     # feet whose legs are designed (one thigh/shank ratio for all)
        ratio_bounds: [0.5, 2.0]   # thigh/shank length ratio [-]
        ratio_guess: 1.0           # optional; default: the first leg's shipped ratio

Each listed leg keeps its total thigh + shank length; the ratio is a decision variable
(`gaitopt.constraints.design.LimbLengthDesign`, the stretch rule in `gaitopt.limb_lengths`).
Feet are checked against the robot when the problem is transcribed.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import short
from .yamlio import Fields

MAX_RATIO = 100.0


@dataclass(frozen=True)
class LimbLengthSpec:
    """Designed legs (feet names), the ratio's bounds (min, max) and its guess (None: shipped)."""

    legs: tuple
    ratio_bounds: tuple
    ratio_guess: float | None = None


def limb_lengths_spec(df: Fields) -> LimbLengthSpec | None:
    """design.limb_lengths of a problem file's `design` Fields, or None when absent."""
    if not df.has("limb_lengths"):
        return None
    lf = df.mapping("limb_lengths", allowed=["legs", "ratio_bounds", "ratio_guess"])
    legs = lf.sequence("legs", max_len=64)
    if not legs or not all(isinstance(x, str) for x in legs) or len(set(legs)) != len(legs):
        raise lf.error("legs", f"expected a non-empty list of distinct foot names, got {short(legs)}")
    bounds = lf.sequence("ratio_bounds", max_len=2)
    ok = len(bounds) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in bounds)
    if not ok or not 0 < bounds[0] < bounds[1] <= MAX_RATIO:
        raise lf.error("ratio_bounds", f"expected [min, max] with 0 < min < max, got {short(bounds)}",
                       f"0 < min < max <= {MAX_RATIO:g}")
    guess = lf.number("ratio_guess", None, positive=True, high=MAX_RATIO) if lf.has("ratio_guess") else None
    if guess is not None and not bounds[0] <= guess <= bounds[1]:
        raise lf.error("ratio_guess", f"{guess:g} is outside ratio_bounds {list(bounds)}", "min <= guess <= max")
    lf.done(["legs", "ratio_bounds", "ratio_guess"])
    return LimbLengthSpec(tuple(legs), (float(bounds[0]), float(bounds[1])), guess)


def limb_lengths_record(spec: LimbLengthSpec | None) -> dict | None:
    """The problem-file spelling of a spec (for saved records), None without one."""
    if spec is None:
        return None
    out = {"legs": list(spec.legs), "ratio_bounds": list(spec.ratio_bounds)}
    if spec.ratio_guess is not None:
        out["ratio_guess"] = spec.ratio_guess
    return out
