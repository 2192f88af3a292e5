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
are the events; the distinct event times (two closer than gait_timeline.EVENT_TOL, 0.1 % of
the cycle, are one) split the cycle into phases, each with the contact modes that hold in it.
The listing starts at the earliest event (named patterns: biped walks at the trailing foot's
lift-off, crawl and walk at LH's lift-off, so that they read like the
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
any other pattern that would leave the ground is an error. A flight phase is solved like any
other (docs/modelling.md "Flight phases"; gaitopt.precheck refuses it only without a floating base).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import InputError, short
from .gait_roles import (BIPED_ROLES, FAMILY_FEET, HEXAPOD_ROLES, QUADRUPED_ROLES, FootRoles,
                         foot_roles, standing_foot_positions)
from .gait_table import PATTERNS, Pattern, find_pattern, patterns_for
from .gait_timeline import TOL, is_half_symmetric, mirror_contacts, timeline
from .yamlio import EXPONENT_ONLY

__all__ = [
    "GAIT_KEYS", "PATTERN_KEYS", "DEFAULT_KNOTS", "TOL", "CYCLES", "ROLL_ORDER",
    "BIPED_ROLES", "QUADRUPED_ROLES", "HEXAPOD_ROLES", "FAMILY_FEET", "FootRoles",
    "standing_foot_positions", "foot_roles", "Pattern", "PATTERNS", "patterns_for", "find_pattern",
    "timeline", "mirror_contacts", "is_half_symmetric", "share_knots", "expand_gait",
]

GAIT_KEYS = ("pattern", "duty_factor", "offsets", "period", "knots", "cycle")
PATTERN_KEYS = ("pattern", "duty_factor", "offsets", "period", "knots")
DEFAULT_KNOTS = 32
MAX_KNOTS = 4000       # knots over the full cycle (as problem.MAX_TOTAL_KNOTS over the phases)
MAX_PERIOD = 60.0      # s, the full cycle
CYCLES = ("full", "half")
ROLL_ORDER = {"heel": 0, "flat": 1, "stance": 1, "toe": 2}


# ----------------------------------------------------------------------------------- checks

def _is_number(x) -> bool:
    """A finite number (not a bool); 1e-3, which YAML 1.1 reads as a string, counts as one."""
    if isinstance(x, str) and EXPONENT_ONLY.match(x):
        x = float(x)
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return False
    try:
        return math.isfinite(float(x))
    except OverflowError:  # an integer too large for a float
        return False


def _err(source, key, message, allowed=None) -> InputError:
    return InputError(message, file=source, field=f"gait.{key}" if key else "gait", allowed=allowed)


def _duty_factor(value, source) -> float:
    if not _is_number(value) or not 0.0 < float(value) < 1.0:
        raise _err(source, "duty_factor", f"expected a number strictly between 0 and 1, got {short(value)}",
                   "0 < duty_factor < 1")
    return float(value)


def _offsets(value, robot, source) -> dict:
    feet = list(robot.feet)
    if not isinstance(value, dict):
        raise _err(source, "offsets", f"expected a mapping FOOT: touchdown (fraction of the cycle), got {short(value)}",
                   feet)
    unknown = [k for k in value if k not in robot.feet]
    if unknown:
        raise _err(source, "offsets", f"unknown feet {short(unknown)} of {robot.name}", feet)
    missing = [f for f in feet if f not in value]
    if missing:
        raise _err(source, "offsets", f"missing feet {missing}: give every foot's touchdown", feet)
    out = {}
    for f in feet:
        v = value[f]
        if not _is_number(v) or not 0.0 <= float(v) < 1.0:
            raise _err(source, "offsets", f"foot {f!r}: expected a number in [0, 1), got {short(v)}", "0 <= offset < 1")
        out[f] = float(v)
    return out


def _period(value, source):
    """A fixed period (float) or (min, max, guess)."""
    if isinstance(value, dict):
        unknown = [k for k in value if k not in ("min", "max", "guess")]
        if unknown:
            raise _err(source, "period", f"unknown keys {short(unknown)}", ["min", "max", "guess"])
        for k in ("min", "max"):
            if k not in value:
                raise _err(source, "period", f"missing {k!r}: a bounded period needs min and max [s]",
                           ["min", "max", "guess"])
        lo, hi = value["min"], value["max"]
        guess = value.get("guess", None)
        for k, v in (("min", lo), ("max", hi), ("guess", guess)):
            if v is not None and (not _is_number(v) or not 0.0 < float(v) <= MAX_PERIOD):
                raise _err(source, "period", f"{k}: expected a positive finite number [s], got {short(v)}",
                           f"a number in (0, {MAX_PERIOD:g}] s or {{min, max, guess}}")
        lo, hi = float(lo), float(hi)
        guess = 0.5 * (lo + hi) if guess is None else float(guess)
        if not lo <= guess <= hi:
            raise _err(source, "period", f"need min <= guess <= max, got {lo}, {guess}, {hi}")
        return (lo, hi, guess)
    if not _is_number(value) or not 0.0 < float(value) <= MAX_PERIOD:
        raise _err(source, "period", f"expected a positive finite number [s] or {{min, max, guess}}, "
                                     f"got {short(value)}",
                   f"a number in (0, {MAX_PERIOD:g}] s or {{min, max, guess}}")
    return float(value)


# ------------------------------------------------------------------------------------ output

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

@dataclass(frozen=True)
class _Spec:
    """A checked pattern-form gait: the pattern's name and entry (both None for the general
    form), β, offsets foot → touchdown, the heel-toe stance profile and the listing's start
    (None: the defaults), the period (s, or (min, max, guess)), the knots over the full cycle
    and the requested cycle (None: choose)."""

    name: str | None
    pattern: Pattern | None
    beta: float
    offsets: dict
    profile: tuple | None
    start: float | None
    period: float | tuple
    knots: int
    cycle: str | None


def expand_gait(gait: dict, robot, source: str = "<dict>") -> dict:
    """The raw `gait:` mapping of a problem file in explicit form.

    gait: as read by yaml.safe_load; robot: a loaded gaitopt.robot.Robot; source: the file
    name for messages. Returns {"cycle": "full" | "half", "phases": [{name, contacts, knots,
    duration}, …]} (plain data the problem decoder reads); a mapping with `phases` (and no
    pattern keys) is returned unchanged. Raises InputError (file=source, field="gait.<key>")
    on contradictory or impossible input. The schema and the patterns: this module's docstring.
    """
    if _lists_phases(gait, source):
        return gait
    roles = foot_roles(robot)
    spec = _parse(gait, robot, roles, source)
    phases = _build_timeline(spec, robot, source)
    cycle = _choose_cycle(spec.cycle, phases, robot, source)
    emit, counts = _share_cycle_knots(spec.knots, phases, cycle, source)
    biped = roles.family == "biped" or len(robot.feet) == 2
    return {"cycle": cycle, "phases": _phase_entries(emit, counts, spec, robot, biped)}


def _lists_phases(gait, source) -> bool:
    """Check the top-level keys; True when the gait already lists its phases (explicit form)."""
    if not isinstance(gait, dict):
        raise _err(source, "", f"expected a mapping, got {type(gait).__name__} {short(gait)}",
                   ["phases", *GAIT_KEYS])
    given = [k for k in PATTERN_KEYS if k in gait]
    if "phases" in gait:
        if given:
            key = given[0]
            raise _err(source, key, f"give either phases or a pattern ({', '.join(given)}), not both",
                       ["phases", "pattern"])
        return True
    unknown = [k for k in gait if k not in GAIT_KEYS]
    if unknown:
        raise _err(source, str(unknown[0]), "unknown key", ["phases", *GAIT_KEYS])
    return False


def _parse(gait: dict, robot, roles: FootRoles, source) -> _Spec:
    """Validate the pattern-form keys, in the order the messages report them: the pattern (or
    the general form's duty_factor + offsets), then period, knots and cycle."""
    valid = patterns_for(robot, roles)
    name = gait.get("pattern")
    if name is not None:
        pattern, beta, offsets, profile, start = _named(gait, name, robot, roles, valid, source)
    else:
        pattern = profile = start = None
        beta, offsets = _general(gait, robot, valid, source)
    if "period" not in gait:
        raise _err(source, "period", "missing: the full cycle's duration [s], a number or {min, max, guess}",
                   "a positive number or {min, max, guess}")
    period = _period(gait["period"], source)
    knots = gait.get("knots", DEFAULT_KNOTS)
    if not isinstance(knots, int) or isinstance(knots, bool) or not 1 <= knots <= MAX_KNOTS:
        raise _err(source, "knots", f"expected a positive integer (collocation intervals over the full cycle), "
                                    f"got {short(knots, 40)}", f"an integer >= 2 per phase, at most {MAX_KNOTS}")
    cycle = gait.get("cycle")
    if cycle is not None and cycle not in CYCLES:
        raise _err(source, "cycle", f"unknown cycle {short(cycle)}", CYCLES)
    return _Spec(name, pattern, beta, offsets, profile, start, period, knots, cycle)


def _named(gait: dict, name, robot, roles: FootRoles, valid: list, source) -> tuple:
    """Resolve a named pattern on this robot: (pattern, β, offsets foot → touchdown, heel-toe
    stance profile or None, start or None)."""
    if not isinstance(name, str):
        raise _err(source, "pattern", f"expected a pattern name, got {short(name)}", valid)
    pattern = find_pattern(name, robot, roles)
    if pattern is None:
        raise _unfit_pattern(name, robot, roles, valid, source)
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
    return pattern, beta, offsets, profile, start


def _unfit_pattern(name: str, robot, roles: FootRoles, valid: list, source) -> InputError:
    """The error for a pattern name that is unknown or does not fit this robot, saying why."""
    known = [p for p in PATTERNS if p.name == name]
    kinds = {"heel_toe": "feet with heel and toe points", "point": "point feet"}
    if not known:
        why = f"unknown pattern {short(name)}"
    elif roles.family is None:
        why = f"pattern {name!r} does not apply: {roles.reason}"
    elif all(p.family != roles.family for p in known):
        fams = sorted({f"{p.family} ({FAMILY_FEET[p.family]} feet)" for p in known})
        why = (f"{name!r} is a {' / '.join(fams)} pattern; {robot.name} is a {roles.family} "
               f"with {len(robot.feet)} feet")
    else:
        need = sorted({kinds[p.feet] for p in known if p.family == roles.family and p.feet})
        why = f"{name!r} needs {' or '.join(need)}; {robot.name}'s feet are not"
    return _err(source, "pattern", why + (" (general form: duty_factor + offsets)" if not valid else ""),
                valid or ["duty_factor + offsets"])


def _general(gait: dict, robot, valid: list, source) -> tuple:
    """The general form (no pattern): (β, offsets foot → touchdown), both required."""
    if "duty_factor" not in gait and "offsets" not in gait:
        raise _err(source, "pattern", "missing: give phases, a pattern, or duty_factor and offsets",
                   valid or ["duty_factor + offsets"])
    if "duty_factor" not in gait:
        raise _err(source, "duty_factor", "missing: offsets need a duty factor (or give a pattern)",
                   "0 < duty_factor < 1")
    beta = _duty_factor(gait["duty_factor"], source)
    if "offsets" not in gait:
        raise _err(source, "offsets", "missing: without a pattern give every foot's touchdown "
                                      "(fraction of the cycle)", list(robot.feet))
    return beta, _offsets(gait["offsets"], robot, source)


def _build_timeline(spec: _Spec, robot, source) -> list:
    """The full cycle split into phases [(fraction, contacts), …]; every foot must both stand
    and swing, and only a pattern that allows it (trot, pace, bound) may have a flight phase."""
    beta = spec.beta
    phases = timeline(robot, beta, spec.offsets, spec.profile, spec.start)
    what = "duty_factor"
    for f in robot.feet:
        modes = {c[f] for _, c in phases}
        if modes == {"swing"}:
            raise _err(source, what, f"foot {f!r} never touches the ground (duty factor {beta})",
                       "0 < duty_factor < 1")
        if "swing" not in modes:
            raise _err(source, what, f"foot {f!r} never swings (duty factor {beta}, a stance of the whole cycle "
                                     "at this resolution)", "0 < duty_factor < 1")
    flights = [i for i, (_, c) in enumerate(phases) if all(m == "swing" for m in c.values())]
    if flights and not (spec.pattern is not None and spec.pattern.flight):
        label = f"pattern {spec.name!r}" if spec.pattern is not None else "these offsets"
        # why: a user asking for a run is told where one comes from on this robot; a biped has
        # no pattern that flies, so its run is written out (docs/patterns.md)
        flying = [p.name for p in PATTERNS if p.flight and find_pattern(p.name, robot) is not None]
        if flying:
            how = f"pattern {' or '.join(flying)} with duty_factor < 0.5"
        else:
            how = "gait.phases written out (a phase with every foot swing is a flight: docs/patterns.md)"
        raise _err(source, "duty_factor", f"duty factor {beta} with {label} leaves no foot on the ground "
                                          "(a flight phase); only the quadruped patterns trot, pace and bound may "
                                          "have one (β < 0.5)",
                   f"a larger duty_factor; for a run: {how}")
    return phases


def _choose_cycle(cycle: str | None, phases: list, robot, source) -> str:
    """The requested cycle, checked (half needs a left/right symmetric cycle); by default half
    when the cycle is symmetric, else full."""
    symmetric = is_half_symmetric(phases, robot)
    if cycle == "half" and not symmetric:
        why = (f"robot {robot.name} has no mirror map" if robot.mirror is None else
               "the second half of the cycle is not the first mirrored left/right "
               "(mirror partners must touch down half a cycle apart)")
        raise _err(source, "cycle", f"cycle: half is not possible: {why}", ["full"])
    if cycle is None:
        cycle = "half" if symmetric else "full"
    return cycle


def _share_cycle_knots(knots: int, phases: list, cycle: str, source) -> tuple:
    """(the phases emitted: the first half for a half cycle, knots per emitted phase); at
    least 2 knots per phase over the full cycle."""
    need = 2 * len(phases)
    if knots < need:
        raise _err(source, "knots", f"{knots} knots are too few for {len(phases)} phases over the cycle: "
                                    f"at least 2 per phase, {need} in all", f"knots >= {need}")
    emit = phases[:len(phases) // 2] if cycle == "half" else phases
    total = (knots + 1) // 2 if cycle == "half" else knots
    return emit, share_knots(total, [f for f, _ in emit])


def _phase_entries(emit: list, counts: list, spec: _Spec, robot, biped: bool) -> list:
    """The explicit phases [{name, contacts, knots, duration}, …]; a recurring name gets _2, _3 …"""
    rolls = spec.profile is not None
    out, seen = [], {}
    for (frac, contacts), n in zip(emit, counts):
        base = _name(contacts, robot, biped, rolls)
        seen[base] = seen.get(base, 0) + 1
        out.append({"name": base if seen[base] == 1 else f"{base}_{seen[base]}",
                    "contacts": dict(contacts), "knots": int(n), "duration": _duration(frac, spec.period)})
    return out
