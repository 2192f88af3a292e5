"""The named gait patterns (trot, crawl, tripod …) and which of them fit a robot.

The table, its definitions and references: gaitopt.patterns' module docstring.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .gait_roles import FootRoles, foot_roles

# default fractions of the shipped biped7 problems (their duration guesses)
_SW_DOUBLE = 0.15 / (2 * (0.4 + 0.15))            # static walk: double support, fraction of the cycle
_HT_HEEL, _HT_FLAT, _HT_TOE = 0.08, 0.25, 0.08     # heel-toe walk: s per phase (half cycle 0.41 s)
_HT_DOUBLE = _HT_HEEL / (2 * (_HT_HEEL + _HT_FLAT + _HT_TOE))


@dataclass(frozen=True)
class Pattern:
    """A named gait pattern.

    family: biped | quadruped | hexapod; feet: the foot kind it needs (heel_toe | point | None
    for any); duty_factor: default β; offsets: role → touchdown (fraction of the cycle);
    stance: β → ((mode, fraction of the cycle), …) the modes a heel-toe foot passes through in
    its stance (None: one mode, flat or stance); start: β → the time the listing starts at
    (None: the earliest event); flight: whether β < 0.5 may leave the ground (trot, pace,
    bound); walk_only: β must exceed 0.5 (the biped walks).
    """

    name: str
    family: str
    duty_factor: float
    offsets: dict
    summary: str
    feet: str | None = None
    stance: Callable | None = None
    start: Callable | None = None
    flight: bool = False
    walk_only: bool = False


def _heel_toe_roll(beta: float) -> tuple:
    """heel_toe_walk's stance: heel during the double support at touchdown (β − 1/2), flat
    then toe over the single support (1 − β) in the shipped file's ratio 25 : 8, toe again
    through the next double support."""
    double = beta - 0.5
    single = 1.0 - beta
    flat = single * _HT_FLAT / (_HT_FLAT + _HT_TOE)
    return (("heel", double), ("flat", flat), ("toe", single - flat + double))


def _trailing_liftoff(beta: float) -> float:
    """Biped walks with L at 0 and R at 1/2: R lifts off at β − 1/2 (single support of L starts)."""
    return beta - 0.5


PATTERNS = (
    Pattern("static_walk", "biped", 0.5 + _SW_DOUBLE, {"L": 0.0, "R": 0.5},
            "single support on a flat foot + double support on flat feet", feet="heel_toe",
            start=_trailing_liftoff, walk_only=True),
    Pattern("heel_toe_walk", "biped", 0.5 + _HT_DOUBLE, {"L": 0.0, "R": 0.5},
            "leading heel + trailing toe, flat + swing, toe + swing", feet="heel_toe",
            stance=_heel_toe_roll, walk_only=True),
    Pattern("walk", "biped", 0.5 + _SW_DOUBLE, {"L": 0.0, "R": 0.5},
            "single support + double support (point feet)", feet="point",
            start=_trailing_liftoff, walk_only=True),
    Pattern("crawl", "quadruped", 0.75, {"LH": 0.0, "LF": 0.25, "RH": 0.5, "RF": 0.75},
            "lateral-sequence creeping gait, one foot swinging at a time",
            start=lambda beta: beta),
    Pattern("walk", "quadruped", 0.6, {"LH": 0.0, "LF": 0.25, "RH": 0.5, "RF": 0.75},
            "lateral-sequence walk", start=lambda beta: beta),
    Pattern("trot", "quadruped", 0.5, {"LF": 0.0, "RH": 0.0, "RF": 0.5, "LH": 0.5},
            "diagonal pairs alternate", flight=True),
    Pattern("pace", "quadruped", 0.5, {"LF": 0.0, "LH": 0.0, "RF": 0.5, "RH": 0.5},
            "same-side pairs alternate", flight=True),
    Pattern("bound", "quadruped", 0.5, {"LF": 0.0, "RF": 0.0, "LH": 0.5, "RH": 0.5},
            "fore pair and hind pair alternate", flight=True),
    Pattern("tripod", "hexapod", 0.5, {"L1": 0.0, "R2": 0.0, "L3": 0.0, "R1": 0.5, "L2": 0.5, "R3": 0.5},
            "alternating tripods"),
    Pattern("wave", "hexapod", 5.0 / 6.0,
            {"L3": 0.0, "L2": 1 / 6, "L1": 2 / 6, "R3": 3 / 6, "R2": 4 / 6, "R1": 5 / 6},
            "metachronal wave from back to front, one leg swinging at a time"),
    Pattern("ripple", "hexapod", 2.0 / 3.0,
            {"L3": 0.0, "L2": 1 / 3, "L1": 2 / 3, "R3": 1 / 2, "R2": 5 / 6, "R1": 1 / 6},
            "each side a back-to-front wave, the sides half a cycle apart"),
)


def _fits(p: Pattern, robot, roles: FootRoles) -> bool:
    if p.family != roles.family:
        return False
    return p.feet is None or all(f.kind == p.feet for f in robot.feet.values())


def patterns_for(robot, roles: FootRoles | None = None) -> list:
    """Names of the named patterns that fit this robot's number and kind of feet."""
    roles = roles or foot_roles(robot)
    return [p.name for p in PATTERNS if _fits(p, robot, roles)]


def find_pattern(name: str, robot, roles: FootRoles | None = None) -> Pattern | None:
    roles = roles or foot_roles(robot)
    for p in PATTERNS:
        if p.name == name and _fits(p, robot, roles):
            return p
    return None
