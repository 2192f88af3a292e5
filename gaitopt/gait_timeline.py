"""A gait's cycle as phases: contact modes between the events (touchdowns, lift-offs, rolls).

Builds the timeline of a duty factor + offsets (gaitopt.patterns) and tells whether its second
half is the first mirrored left/right (a half cycle).
"""
from __future__ import annotations

TOL = 1e-9
# Events (touchdowns, lift-offs, rolls) closer than this fraction of the cycle are one event:
# offsets written to 4 digits (0.3333, 0.6667 for thirds with β 0.6667) otherwise split off a
# 0.01 % phase that took 2 of the knots (a new user's hexapod, 2026-11-25); a phase that short
# is no part of a gait (the shortest named-pattern phase is 1/82 of the cycle).
EVENT_TOL = 1e-3


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
    event), events within EVENT_TOL of the cycle taken as one (at the earlier time), adjacent
    phases with equal contacts merged (also across the wrap)."""
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
        if e > 1.0 - EVENT_TOL:
            e = 0.0
        if not times or e - times[-1] > EVENT_TOL:
            times.append(e)
    if times[0] > EVENT_TOL:
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
