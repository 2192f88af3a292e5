"""Gait schedule: phases → active contact points, touchdowns, stance runs and swing progress.

Works on the *expanded* cycle (for a half cycle: the phases, then the same phases with left and
right swapped through the mirror map), so that runs that wrap around the cycle are seen whole.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import InputError


@dataclass(frozen=True)
class PhaseSchedule:
    """One optimised phase: name, knots (intervals), foot modes, active contact point names."""

    index: int
    name: str
    knots: int
    modes: dict
    active: tuple


def active_points(robot, modes: dict) -> tuple:
    """Contact points in contact for a dict foot → mode, in robot.contacts order."""
    out = []
    for c in robot.contacts:
        m = modes[c.foot]
        if m in ("flat", "stance") or (m == "heel" and c.role == "heel") or (m == "toe" and c.role == "toe"):
            out.append(c.name)
    return tuple(out)


class Schedule:
    """The gait's contact timeline for one robot and problem.

    phases: PhaseSchedule of the optimised phases; expanded: (foot modes, knots) of every phase
    of the full cycle; `swing_progress(p, k)` gives foot → s ∈ [0, 1] for swinging feet at knot
    k of phase p; `touchdowns(p)` the contact points that start touching at the start of phase p
    (p = 0 is the junction that closes the cycle).
    """

    def __init__(self, robot, problem):
        self.robot = robot
        self.cycle = problem.cycle
        where = problem.source
        feet = robot.feet
        self.phases = []
        for i, ph in enumerate(problem.phases):
            unknown = sorted(set(ph.contacts) - set(feet), key=str)
            if unknown:  # a misspelt foot: name it, not only the feet missing
                raise InputError(f"{unknown[0]!r} is not a foot of {robot.name}", file=where,
                                 field=f"gait.phases[{i}].contacts.{unknown[0]}", allowed=sorted(feet))
            if set(ph.contacts) != set(feet):
                missing = ", ".join(sorted(set(feet) - set(ph.contacts)))
                raise InputError(f"phase {ph.name!r} must give a mode for every foot of {robot.name} (missing: "
                                 f"{missing})", file=where, field=f"gait.phases[{i}].contacts", allowed=sorted(feet))
            for foot, mode in ph.contacts.items():
                if mode not in feet[foot].modes:
                    raise InputError(f"mode {mode!r} is not one of foot {foot!r}'s modes", file=where,
                                     field=f"gait.phases[{i}].contacts.{foot}", allowed=feet[foot].modes)
            # an empty tuple is a flight phase (no foot on the ground); gaitopt.precheck refuses it for a
            # robot without a floating base (base_z), where no contact force could hold the base up
            act = active_points(robot, ph.contacts)
            self.phases.append(PhaseSchedule(i, ph.name, ph.knots, dict(ph.contacts), act))
        if problem.cycle == "half" and robot.mirror is None:
            raise InputError(f"cycle: half needs a mirror map in robot {robot.name}'s robot.yaml",
                             file=where, field="gait.cycle", allowed=["full"])
        self.expanded = [(p.modes, p.knots) for p in self.phases]
        if problem.cycle == "half":
            pairs = robot.mirror.foot_pairs
            self.expanded += [({pairs[f]: m for f, m in p.modes.items()}, p.knots) for p in self.phases]
        for foot in feet:
            if all(modes[foot] == "swing" for modes, _ in self.expanded):
                raise InputError(f"foot {foot!r} never touches the ground", file=where, field="gait.phases")

    def _prev_modes(self, p: int) -> dict:
        """Foot modes just before optimised phase p (through the cycle wrap)."""
        return self.expanded[(p - 1) % len(self.expanded)][0]

    def touchdowns(self, p: int) -> tuple:
        """Contact points that are active in phase p but were not just before it."""
        before = set(active_points(self.robot, self._prev_modes(p)))
        return tuple(c for c in self.phases[p].active if c not in before)

    def held_over(self, p: int) -> tuple:
        """Contact points that are active in phase p and were already active just before it."""
        before = set(active_points(self.robot, self._prev_modes(p)))
        return tuple(c for c in self.phases[p].active if c in before)

    def liftoffs(self, p: int) -> tuple:
        before = active_points(self.robot, self._prev_modes(p))
        return tuple(c for c in before if c not in self.phases[p].active)

    def contact_event(self, p: int) -> bool:
        """True when a point touches down or lifts off at the start of phase p (through the wrap)."""
        return bool(self.touchdowns(p) or self.liftoffs(p))

    def swing_progress(self, p: int, k: int) -> dict:
        """foot → s ∈ [0, 1] (0 at lift-off, 1 at touchdown) by knot count, for feet in swing."""
        n = len(self.expanded)
        out = {}
        for foot in self.robot.feet:
            if self.expanded[p][0][foot] != "swing":
                continue
            start = p
            while self.expanded[(start - 1) % n][0][foot] == "swing":
                start -= 1
            end = p
            while self.expanded[(end + 1) % n][0][foot] == "swing":
                end += 1
            total = sum(self.expanded[i % n][1] for i in range(start, end + 1))
            done = sum(self.expanded[i % n][1] for i in range(start, p)) + k
            out[foot] = done / total
        return out

    def anchored(self, p: int) -> tuple:
        """Contact points whose ground height is imposed at the first knot of phase p.

        A stance run is anchored once, where it starts: at its touchdown (through the cycle
        wrap, and for a half cycle through the mirror map, since periodicity carries the
        partner's anchor over). A point that never touches down (always in contact) is
        anchored at its first active phase. A second anchor on the same run would only ask
        the velocity-level drift to vanish: a nearly dependent row."""
        out = list(self.touchdowns(p))
        if self.cycle == "half":
            names = [c.name for c in self.robot.contacts]
            partner = {n: names[int(self.robot.mirror.contact_perm[i])] for i, n in enumerate(names)}
        else:
            partner = {}
        touching = {c for q in range(len(self.phases)) for c in self.touchdowns(q)}
        for c in self.phases[p].active:
            never = c not in touching and partner.get(c) not in touching
            first = next(q for q in range(len(self.phases)) if c in self.phases[q].active)
            if never and first == p:
                out.append(c)
        return tuple(out)
