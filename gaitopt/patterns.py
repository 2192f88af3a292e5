"""Gait patterns: say what the gait is (trot, crawl, tripod …) instead of listing its phases.

`expand_gait(gait, robot, source)` turns the ``gait:`` mapping of a problem file into the
explicit form the problem decoder reads (``{cycle, phases: [{name, contacts, knots,
duration}]}``); a mapping that already lists ``phases`` is returned unchanged::

    gait:
      pattern: trot            # a named pattern, or omit it and give duty_factor + offsets
      duty_factor: 0.6         # β, fraction of the cycle each foot is on the ground, 0 < β < 1
      offsets: {LF: 0.0, RF: 0.5, LH: 0.5, RH: 0.0}   # touchdown of each foot, fraction of the cycle
      period: 0.6              # s, the full cycle: a number (fixed) or {min, max, guess}
      knots: 24                # collocation intervals over the full cycle (default 32)
      cycle: half              # default: half when the pattern is left/right symmetric, else full

Definitions (the usual ones of the gait literature)
---------------------------------------------------
* Duty factor β: the fraction of the cycle a foot is on the ground (Alexander, "The gaits of
  bipedal and quadrupedal animals", Int. J. Robotics Research 3(2), 1984). Every foot here
  has the same β. β > 0.5 is walking (each foot stands longer than it swings, so a biped has
  double support); β < 0.5 running (for a trot, pace or bound: flight phases).
* Relative phase (offset) φ_i: the time of foot i's touchdown after the reference foot's, as a
  fraction of the cycle (Hildebrand, "Symmetrical gaits of horses", Science 150, 1965; McGhee
  and Frank, "On the stability properties of quadruped creeping gaits", Math. Biosci. 3,
  1968). Foot i stands on [φ_i, φ_i + β) (mod 1) and swings otherwise.
* Symmetric gait: the two feet of each left/right pair are half a cycle apart, φ(partner) =
  φ + 0.5 (Hildebrand). Then the second half cycle is the first with left and right swapped,
  and only the first half is optimised (``cycle: half``, through the robot's mirror map).

Named patterns (offsets by leg role; roles come from the robot, see `foot_roles`):

================  ========  ====================================================================
pattern           β         offsets (touchdowns)
================  ========  ====================================================================
biped, feet with heel and toe points
static_walk       7/11      L 0, R 1/2; flat feet; single support 4/11, double support 3/22 of
                            the cycle each (biped7_static_walk.yaml's guesses 0.4 s and 0.15 s)
heel_toe_walk     49/82     L 0, R 1/2; each stance rolls heel (the double support at
                            touchdown, β − 1/2) → flat → toe (the rest of single support and
                            the next double support); single support split flat : toe = 25 : 8
                            (biped7_heel_toe_walk.yaml's guesses 0.08 s, 0.25 s, 0.08 s)
biped, point feet
walk              7/11      L 0, R 1/2; single support + double support, as static_walk
quadruped
crawl             3/4       LH 0, LF 1/4, RH 1/2, RF 3/4: the lateral-sequence creeping gait
                            (one foot swings at a time; McGhee and Frank's optimally stable
                            quadruped creeping gait for β = 3/4)
walk              0.6       same sequence and offsets as crawl (two or three feet stand)
trot              1/2       LF + RH at 0, RF + LH at 1/2 (diagonal pairs)
pace              1/2       LF + LH at 0, RF + RH at 1/2 (same-side pairs)
bound             1/2       LF + RF at 0, LH + RH at 1/2 (fore pair, hind pair); not left/right
                            symmetric, so a full cycle
hexapod (legs 1, 2, 3 from front to back on each side)
tripod            1/2       L1, R2, L3 at 0; R1, L2, R3 at 1/2 (alternating tripods; Wilson,
                            "Insect walking", Annu. Rev. Entomol. 11, 1966)
wave              5/6       L3 0, L2 1/6, L1 2/6, R3 3/6, R2 4/6, R1 5/6: a metachronal wave from
                            back to front, one leg swinging at a time
ripple            2/3       L3 0, L2 1/3, L1 2/3 and R3 1/2, R2 5/6, R1 1/6: each side a
                            back-to-front wave a third of a cycle apart, the sides half a cycle
                            apart (two legs swinging at a time, never two neighbours)
================  ========  ====================================================================

``duty_factor`` may override a named pattern's default (bipeds: 0.5 < β < 1, the walks need
double support); ``offsets`` may not (they are the pattern). With no ``pattern``, both
``duty_factor`` and ``offsets`` (every foot, by its name) are required: the general form, on any
robot. Feet with heel and toe points stand ``flat`` (except in heel_toe_walk), point feet
``stance``.

Construction: the touchdowns, lift-offs (and for heel_toe_walk the heel → flat → toe changes)
are the events; the distinct event times split the cycle into phases, each with the contact
modes that hold in it. The listing starts at the earliest event (named patterns: biped walks
at the trailing foot's lift-off, crawl and walk at LH's lift-off, so that they read like the
shipped problem files), phases with equal contacts next to each other merge, and each phase's
duration is its fraction f of the period: a fixed period gives fixed durations, a period
{min, max, guess} gives each phase {min: f·min, max: f·max, guess: f·guess}. (Free durations
are free separately: the optimiser may then change the pattern's proportions within these
bounds.) Knots are shared out in proportion to duration, at least 2 per phase (a phase whose
share is below 2 gets 2 and the others share the rest); for a half cycle the emitted half gets
⌈knots/2⌉. Names say what is on the ground: ``LF_RH_stance``, ``all_stance``, ``flight``
(nothing), for bipeds ``single_support``/``double_support`` (and, when the feet roll,
``heel_toe``, ``flat_swing``, ``toe_swing``); a name that recurs gets ``_2``, ``_3`` ….

A flight phase (no foot on the ground) is produced only by a trot, pace or bound with β < 0.5;
any other pattern that would leave the ground is an error. Note that the transcription itself
(gaitopt.schedule) does not solve flight phases yet; expand_gait keeps them so the message
comes from there.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pinocchio as pin

from .errors import InputError

GAIT_KEYS = ("pattern", "duty_factor", "offsets", "period", "knots", "cycle")
PATTERN_KEYS = ("pattern", "duty_factor", "offsets", "period", "knots")
DEFAULT_KNOTS = 32
TOL = 1e-9

# roles of the legs, by family
BIPED_ROLES = ("L", "R")
QUADRUPED_ROLES = ("LF", "RF", "LH", "RH")
HEXAPOD_ROLES = ("L1", "L2", "L3", "R1", "R2", "R3")
FAMILY_FEET = {"biped": 2, "quadruped": 4, "hexapod": 6}

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

CYCLES = ("full", "half")
ROLL_ORDER = {"heel": 0, "flat": 1, "stance": 1, "toe": 2}


# ------------------------------------------------------------------------------------ leg roles

@dataclass(frozen=True)
class FootRoles:
    """What the robot's legs are: family (biped | quadruped | hexapod | None), role → foot
    (roles L, R; LF, RF, LH, RH; L1…L3, R1…R3, numbered from front to back), each foot's
    standing position in the base frame (m), and why no family applies (reason)."""

    family: str | None
    roles: dict
    positions: dict = field(compare=False)
    reason: str = ""


def standing_foot_positions(robot) -> dict:
    """foot → (3,) its standing position in the base frame [m]: the mean of its contact points,
    by forward kinematics at robot.standing_q (the base frame is the last base joint's; the
    world for a fixed base)."""
    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, np.asarray(robot.standing_q, dtype=float))
    nb = len(robot.base_coordinates)
    base = data.oMi[nb] if nb else pin.SE3.Identity()
    out = {}
    for foot in robot.feet:
        pts = [data.oMf[c.frame_id].act(np.asarray(c.point, dtype=float)) for c in robot.contacts
               if c.foot == foot]
        out[foot] = base.actInv(np.mean(pts, axis=0))
    return out


def foot_roles(robot, tol: float = 1e-4) -> FootRoles:
    """Leg roles from the robot's geometry, never from foot names: left is y > 0 in the base
    frame at the standing posture, front is larger x. A foot on the mid-plane (a sagittal
    model's y = 0) takes the side opposite its mirror partner's, or, when both are on the
    mid-plane, the first-listed foot of a mirror pair (robot.feet order) is left."""
    pos = standing_foot_positions(robot)
    feet = list(robot.feet)
    pairs = robot.mirror.foot_pairs if robot.mirror is not None else {}
    side = {f: ("L" if p[1] > tol else "R" if p[1] < -tol else None) for f, p in pos.items()}
    for f in feet:
        if side[f] is not None:
            continue
        partner = pairs.get(f, f)
        if partner == f:
            continue
        if side[partner] is not None:
            side[f] = "R" if side[partner] == "L" else "L"
        else:
            side[f] = "L" if feet.index(f) < feet.index(partner) else "R"
    family = {2: "biped", 4: "quadruped", 6: "hexapod"}.get(len(feet))
    if family is None:
        return FootRoles(None, {}, pos, f"{robot.name} has {len(feet)} feet (named patterns are for 2, 4 or 6)")
    if any(s is None for s in side.values()):
        mid = [f for f in feet if side[f] is None]
        return FootRoles(None, {}, pos, f"cannot tell left from right for feet {mid} of {robot.name}")
    left = sorted((f for f in feet if side[f] == "L"), key=lambda f: -pos[f][0])
    right = sorted((f for f in feet if side[f] == "R"), key=lambda f: -pos[f][0])
    if len(left) != len(right):
        return FootRoles(None, {}, pos, f"{robot.name} has {len(left)} left and {len(right)} right feet")
    for s in (left, right):
        for a, b in zip(s, s[1:]):
            if pos[a][0] - pos[b][0] <= tol:
                return FootRoles(None, {}, pos, f"cannot tell front from back for feet {a!r} and {b!r} of {robot.name}")
    if family == "biped":
        roles = {"L": left[0], "R": right[0]}
    elif family == "quadruped":
        roles = {"LF": left[0], "LH": left[1], "RF": right[0], "RH": right[1]}
    else:
        roles = {f"L{i + 1}": f for i, f in enumerate(left)}
        roles.update({f"R{i + 1}": f for i, f in enumerate(right)})
    return FootRoles(family, roles, pos)


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


# ----------------------------------------------------------------------------------- checks

def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(float(x))


def _err(source, key, message, allowed=None) -> InputError:
    return InputError(message, file=source, field=f"gait.{key}" if key else "gait", allowed=allowed)


def _duty_factor(value, source) -> float:
    if not _is_number(value) or not 0.0 < float(value) < 1.0:
        raise _err(source, "duty_factor", f"expected a number strictly between 0 and 1, got {value!r}",
                   "0 < duty_factor < 1")
    return float(value)


def _offsets(value, robot, source) -> dict:
    feet = list(robot.feet)
    if not isinstance(value, dict):
        raise _err(source, "offsets", f"expected a mapping FOOT: touchdown (fraction of the cycle), got {value!r}",
                   feet)
    unknown = [k for k in value if k not in robot.feet]
    if unknown:
        raise _err(source, "offsets", f"unknown feet {unknown} of {robot.name}", feet)
    missing = [f for f in feet if f not in value]
    if missing:
        raise _err(source, "offsets", f"missing feet {missing}: give every foot's touchdown", feet)
    out = {}
    for f in feet:
        v = value[f]
        if not _is_number(v) or not 0.0 <= float(v) < 1.0:
            raise _err(source, "offsets", f"foot {f!r}: expected a number in [0, 1), got {v!r}", "0 <= offset < 1")
        out[f] = float(v)
    return out


def _period(value, source):
    """A fixed period (float) or (min, max, guess)."""
    if isinstance(value, dict):
        unknown = [k for k in value if k not in ("min", "max", "guess")]
        if unknown:
            raise _err(source, "period", f"unknown keys {unknown}", ["min", "max", "guess"])
        for k in ("min", "max"):
            if k not in value:
                raise _err(source, "period", f"missing {k!r}: a bounded period needs min and max [s]",
                           ["min", "max", "guess"])
        lo, hi = value["min"], value["max"]
        guess = value.get("guess", None)
        for k, v in (("min", lo), ("max", hi), ("guess", guess)):
            if v is not None and (not _is_number(v) or float(v) <= 0.0):
                raise _err(source, "period", f"{k}: expected a positive finite number [s], got {v!r}",
                           "a positive number or {min, max, guess}")
        lo, hi = float(lo), float(hi)
        guess = 0.5 * (lo + hi) if guess is None else float(guess)
        if not lo <= guess <= hi:
            raise _err(source, "period", f"need min <= guess <= max, got {lo}, {guess}, {hi}")
        return (lo, hi, guess)
    if not _is_number(value) or float(value) <= 0.0:
        raise _err(source, "period", f"expected a positive finite number [s] or {{min, max, guess}}, got {value!r}",
                   "a positive number or {min, max, guess}")
    return float(value)


# ------------------------------------------------------------------------------ construction

def _stance_mode(foot) -> str:
    return "flat" if foot.kind == "heel_toe" else "stance"


def _mode_at(t: float, offset: float, beta: float, profile, default: str) -> str:
    u = (t - offset) % 1.0
    if u >= beta:
        return "swing"
    if profile is None:
        return default
    cum = 0.0
    for mode, frac in profile:
        cum += frac
        if u < cum:
            return mode
    return profile[-1][0]


def timeline(robot, beta: float, offsets: dict, profile=None, start: float | None = None) -> list:
    """The cycle as [(fraction, {foot: mode}), …], in order from `start` (default: the earliest
    event), adjacent phases with equal contacts merged (also across the wrap)."""
    events = []
    for f, o in offsets.items():
        events += [o, o + beta]
        if profile is not None:
            cum = o
            for _, frac in profile[:-1]:
                cum += frac
                events.append(cum)
    events = [e % 1.0 for e in events]
    if start is None:
        start = min(events)
    times = []
    for e in sorted((e - start) % 1.0 for e in events):
        if e > 1.0 - TOL:
            e = 0.0
        if not times or e - times[-1] > TOL:
            times.append(e)
    if times[0] > TOL:
        times.insert(0, 0.0)
    else:
        times[0] = 0.0
    bounds = times + [1.0]
    phases = []
    for a, b in zip(bounds, bounds[1:]):
        mid = start + 0.5 * (a + b)
        contacts = {f: _mode_at(mid, offsets[f], beta, profile, _stance_mode(robot.feet[f])) for f in robot.feet}
        if phases and phases[-1][1] == contacts:
            phases[-1] = (phases[-1][0] + (b - a), contacts)
        else:
            phases.append((b - a, contacts))
    if len(phases) > 1 and phases[0][1] == phases[-1][1]:
        frac, contacts = phases.pop()
        phases[0] = (phases[0][0] + frac, contacts)
    return phases


def mirror_contacts(contacts: dict, pairs: dict) -> dict:
    return {pairs.get(f, f): m for f, m in contacts.items()}


def is_half_symmetric(phases: list, robot) -> bool:
    """True when the robot has a mirror map and the second half of the cycle is the first with
    left and right swapped through robot.mirror.foot_pairs (same durations)."""
    if robot.mirror is None or len(phases) % 2:
        return False
    pairs = robot.mirror.foot_pairs
    k = len(phases) // 2
    if abs(sum(f for f, _ in phases[:k]) - 0.5) > 1e-7:
        return False
    for (fa, ca), (fb, cb) in zip(phases[:k], phases[k:]):
        if abs(fa - fb) > 1e-7:
            return False
        ordered = mirror_contacts(ca, pairs)
        if {f: ordered[f] for f in cb} != cb:
            return False
    return True


def _name(contacts: dict, robot, biped: bool, rolls: bool) -> str:
    on = [(f, m) for f, m in contacts.items() if m != "swing"]
    if not on:
        return "flight"
    if biped:
        if len(on) == 1:
            return f"{on[0][1]}_swing" if rolls else "single_support"
        modes = sorted((m for _, m in on), key=lambda m: ROLL_ORDER[m])
        if modes[0] == modes[1] and modes[0] in ("flat", "stance"):
            return "double_support"
        return "_".join(modes)
    if len(on) == len(contacts):
        return "all_stance"
    return "_".join(f for f, _ in on) + "_stance"


def share_knots(total: int, fractions: list) -> list:
    """Knots in proportion to the fractions, at least 2 each, summing to total (≥ 2·len):
    a phase whose share is below 2 gets 2 and the rest is shared again; then largest
    remainders."""
    n = len(fractions)
    out = [0] * n
    free = list(range(n))
    while True:
        rem = total - 2 * (n - len(free))
        weight = sum(fractions[i] for i in free)
        low = [i for i in free if rem * fractions[i] / weight < 2.0 - 1e-12]
        if not low:
            break
        for i in low:
            out[i] = 2
            free.remove(i)
    quota = {i: rem * fractions[i] / weight for i in free}
    for i in free:
        out[i] = int(math.floor(quota[i] + 1e-9))
    left = rem - sum(out[i] for i in free)
    for i in sorted(free, key=lambda i: (-(quota[i] - out[i]), i))[:left]:
        out[i] += 1
    return out


def _seconds(x: float) -> float:
    return float(f"{x:.12g}")


def _duration(frac: float, period):
    if isinstance(period, tuple):
        lo, hi, guess = period
        return {"min": _seconds(frac * lo), "max": _seconds(frac * hi), "guess": _seconds(frac * guess)}
    return _seconds(frac * period)


# --------------------------------------------------------------------------------------- API

def expand_gait(gait: dict, robot, source: str = "<dict>") -> dict:
    """The raw `gait:` mapping of a problem file in explicit form.

    gait: as read by yaml.safe_load; robot: a loaded gaitopt.robot.Robot; source: the file
    name for messages. Returns {"cycle": "full" | "half", "phases": [{name, contacts, knots,
    duration}, …]} (plain data the problem decoder reads); a mapping with `phases` (and no
    pattern keys) is returned unchanged. Raises InputError (file=source, field="gait.<key>")
    on contradictory or impossible input. The schema and the patterns: this module's docstring.
    """
    if not isinstance(gait, dict):
        raise _err(source, "", f"expected a mapping, got {type(gait).__name__} {gait!r}",
                   ["phases", *GAIT_KEYS])
    given = [k for k in PATTERN_KEYS if k in gait]
    if "phases" in gait:
        if given:
            key = given[0]
            raise _err(source, key, f"give either phases or a pattern ({', '.join(given)}), not both",
                       ["phases", "pattern"])
        return gait
    unknown = [k for k in gait if k not in GAIT_KEYS]
    if unknown:
        raise _err(source, str(unknown[0]), "unknown key", ["phases", *GAIT_KEYS])

    roles = foot_roles(robot)
    valid = patterns_for(robot, roles)
    feet = list(robot.feet)
    name = gait.get("pattern")
    pattern = None
    if name is not None:
        if not isinstance(name, str):
            raise _err(source, "pattern", f"expected a pattern name, got {name!r}", valid)
        pattern = find_pattern(name, robot, roles)
        if pattern is None:
            known = [p for p in PATTERNS if p.name == name]
            kinds = {"heel_toe": "feet with heel and toe points", "point": "point feet"}
            if not known:
                why = f"unknown pattern {name!r}"
            elif roles.family is None:
                why = f"pattern {name!r} does not apply: {roles.reason}"
            elif all(p.family != roles.family for p in known):
                fams = sorted({f"{p.family} ({FAMILY_FEET[p.family]} feet)" for p in known})
                why = (f"{name!r} is a {' / '.join(fams)} pattern; {robot.name} is a {roles.family} "
                       f"with {len(feet)} feet")
            else:
                need = sorted({kinds[p.feet] for p in known if p.family == roles.family and p.feet})
                why = f"{name!r} needs {' or '.join(need)}; {robot.name}'s feet are not"
            raise _err(source, "pattern", why + (" (general form: duty_factor + offsets)" if not valid else ""),
                       valid or ["duty_factor + offsets"])
        if "offsets" in gait:
            raise _err(source, "offsets", f"pattern {name!r} fixes the offsets; give offsets without a "
                                          "pattern (general form), or only duty_factor to change its β",
                       ["pattern", "duty_factor", "period", "knots", "cycle"])
        beta = _duty_factor(gait["duty_factor"], source) if "duty_factor" in gait else pattern.duty_factor
        if pattern.walk_only and beta <= 0.5:
            raise _err(source, "duty_factor", f"{name!r} needs double support: a duty factor above 0.5, got {beta}",
                       "0.5 < duty_factor < 1")
        offsets = {roles.roles[r]: o for r, o in pattern.offsets.items()}
        profile = pattern.stance(beta) if pattern.stance else None
        start = pattern.start(beta) if pattern.start else None
        if start is not None:
            start = start % 1.0
    else:
        if "duty_factor" not in gait and "offsets" not in gait:
            raise _err(source, "pattern", "missing: give phases, a pattern, or duty_factor and offsets",
                       valid or ["duty_factor + offsets"])
        if "duty_factor" not in gait:
            raise _err(source, "duty_factor", "missing: offsets need a duty factor (or give a pattern)",
                       "0 < duty_factor < 1")
        beta = _duty_factor(gait["duty_factor"], source)
        if "offsets" not in gait:
            raise _err(source, "offsets", "missing: without a pattern give every foot's touchdown "
                                          "(fraction of the cycle)", feet)
        offsets = _offsets(gait["offsets"], robot, source)
        profile = start = None

    if "period" not in gait:
        raise _err(source, "period", "missing: the full cycle's duration [s], a number or {min, max, guess}",
                   "a positive number or {min, max, guess}")
    period = _period(gait["period"], source)
    knots = gait.get("knots", DEFAULT_KNOTS)
    if not isinstance(knots, int) or isinstance(knots, bool) or knots < 1:
        raise _err(source, "knots", f"expected a positive integer (collocation intervals over the full cycle), "
                                    f"got {knots!r}", "an integer >= 2 per phase")
    cycle = gait.get("cycle")
    if cycle is not None and cycle not in CYCLES:
        raise _err(source, "cycle", f"unknown cycle {cycle!r}", CYCLES)

    phases = timeline(robot, beta, offsets, profile, start)
    what = "duty_factor"
    for f in feet:
        modes = {c[f] for _, c in phases}
        if modes == {"swing"}:
            raise _err(source, what, f"foot {f!r} never touches the ground (duty factor {beta})",
                       "0 < duty_factor < 1")
        if "swing" not in modes:
            raise _err(source, what, f"foot {f!r} never swings (duty factor {beta}, a stance of the whole cycle "
                                     "at this resolution)", "0 < duty_factor < 1")
    flights = [i for i, (_, c) in enumerate(phases) if all(m == "swing" for m in c.values())]
    if flights and not (pattern is not None and pattern.flight):
        label = f"pattern {name!r}" if pattern is not None else "these offsets"
        raise _err(source, "duty_factor", f"duty factor {beta} with {label} leaves no foot on the ground "
                                          "(a flight phase); only trot, pace and bound may have one (β < 0.5)",
                   "a larger duty_factor")

    symmetric = is_half_symmetric(phases, robot)
    if cycle == "half" and not symmetric:
        why = (f"robot {robot.name} has no mirror map" if robot.mirror is None else
               "the second half of the cycle is not the first mirrored left/right "
               "(mirror partners must touch down half a cycle apart)")
        raise _err(source, "cycle", f"cycle: half is not possible: {why}", ["full"])
    if cycle is None:
        cycle = "half" if symmetric else "full"

    need = 2 * len(phases)
    if knots < need:
        raise _err(source, "knots", f"{knots} knots are too few for {len(phases)} phases over the cycle: "
                                    f"at least 2 per phase, {need} in all", f"knots >= {need}")
    emit = phases[:len(phases) // 2] if cycle == "half" else phases
    total = (knots + 1) // 2 if cycle == "half" else knots
    counts = share_knots(total, [f for f, _ in emit])

    biped = roles.family == "biped" or len(feet) == 2
    rolls = profile is not None
    out, seen = [], {}
    for (frac, contacts), n in zip(emit, counts):
        base = _name(contacts, robot, biped, rolls)
        seen[base] = seen.get(base, 0) + 1
        out.append({"name": base if seen[base] == 1 else f"{base}_{seen[base]}",
                    "contacts": dict(contacts), "knots": int(n), "duration": _duration(frac, period)})
    return {"cycle": cycle, "phases": out}
