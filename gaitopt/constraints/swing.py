"""Swing feet and rolling feet clear the ground."""
from __future__ import annotations

import numpy as np

from ..schedule import active_points
from .base import Constraint


def lift_off_fade(x):
    """Weight (1 at x = 0, 0 at x = 1, zero slope at both) of a lifted point's height at
    lift-off in its clearance rows, x ∈ [0, 1] the fraction of the phase's knots: the smoothstep
    1 − 3x² + 2x³. Its zero slope at lift-off asks no jump in the point's velocity."""
    return 1.0 - 3.0 * x ** 2 + 2.0 * x ** 3


def _clearance_frame(ctx, p, point):
    """(heights at lift-off, fade, points whose height a stance already sets) at a point.

    Clearance of the points that lift off at the phase's start is measured from where the
    stance left them, fading to the ground over the phase: contact is at rest at the knots only,
    so a stance leaves its points off the ground by its (second-order) drift, and measured from
    the ground at once the first interval after lift-off must make that up with an acceleration
    that does not shrink with h; that pulse saturated the torques at each toe-off.
    Heights already set by a stance — at a phase's first knot for a point that was in contact
    just before, at its last knot for a point in contact at the next phase's start — get no
    row: "≥ 0" there only restates the stance, nearly or exactly dependent on its rows, and
    IPOPT's multipliers then grew without bound."""
    sched, pv = ctx.schedule, ctx.phases[p]
    K = pv.n_intervals
    just_lifted = sched.liftoffs(p)
    start = point.phase_start or point
    pos0, _ = start.contact_kinematics(ctx.dynamics)
    names = ctx.contact_names
    lift_off = {c: ctx.terrain.clearance_height(pos0, names.index(c)) for c in just_lifted}
    k = point.progress
    if k == 0:
        at_rest = set(just_lifted)
    elif k == K:
        at_rest = set(active_points(ctx.robot, sched.expanded[(p + 1) % len(sched.expanded)][0]))
    else:
        at_rest = set()
    return lift_off, lift_off_fade(k / K), at_rest


class SwingClearance(Constraint):
    """SwingClearance: every contact point of a swinging foot stays above the terrain by the
    profile 16·c·s²(1 − s)² [m] (s ∈ [0, 1] the swing's progress, c = constraints.clearance,
    the peak at mid-swing), measured from its lift-off height fading to the ground (see
    `lift_off_fade`), at every kinematic collocation point. On steps the ground is the envelope
    over the true edges (`gaitopt.terrain.Steps.envelope`)."""

    term = "swing_clearance"
    where = ("point",)

    def add_point(self, ctx, p, point):
        if not point.kinematic:
            return
        swing = ctx.schedule.swing_progress(p, point.progress)
        if not swing:
            return
        lift_off, fade, at_rest = _clearance_frame(ctx, p, point)
        pos, _ = point.contact_kinematics(ctx.dynamics)
        names, c = ctx.contact_names, ctx.problem.constraints.clearance
        for foot, s in swing.items():
            lift = 16.0 * c * s ** 2 * (1 - s) ** 2
            for cname in ctx.robot.feet[foot].contacts:
                if cname in at_rest:
                    continue
                height = ctx.terrain.clearance_height(pos, names.index(cname)) - fade * lift_off.get(cname, 0.0)
                ctx.builder.con(self.term, ctx.phases[p].name, height, lift, np.inf)


class RollClearance(Constraint):
    """RollClearance: while a foot rolls on its heel (toe), its toe (heel) points stay above the
    terrain [m] (from its lift-off height, faded as for `SwingClearance`), at every kinematic
    collocation point."""

    term = "roll_clearance"
    where = ("point",)

    def add_point(self, ctx, p, point):
        if not point.kinematic:
            return
        modes = ctx.schedule.phases[p].modes
        rolling = [(foot, mode) for foot, mode in modes.items() if mode in ("heel", "toe")]
        if not rolling:
            return
        lift_off, fade, at_rest = _clearance_frame(ctx, p, point)
        pos, _ = point.contact_kinematics(ctx.dynamics)
        names = ctx.contact_names
        for foot, mode in rolling:
            for c in ctx.robot.contacts:  # the foot's points of the other role (a sole: the other edge)
                if c.foot != foot or c.role == mode or c.name in at_rest:
                    continue
                height = ctx.terrain.clearance_height(pos, names.index(c.name)) - fade * lift_off.get(c.name, 0.0)
                ctx.builder.con(self.term, ctx.phases[p].name, height, 0.0, np.inf)
