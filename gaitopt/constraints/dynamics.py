"""Collocation: the state integrated over each interval by the problem's rule."""
from __future__ import annotations

from ..tracing import add_interval_rows
from .base import Constraint


class Collocation(Constraint):
    """Collocation: the rule's defects (= 0) integrate q̇ = v, v̇ = a over every interval of a
    phase (gaitopt.collocation), plus the rule's rows fixing a direction the defects leave free,
    once per stretch of phases joined without a contact event."""

    term = "collocation"
    where = ("phase",)

    def add_phase(self, ctx, p):
        pv, sched = ctx.phases[p], ctx.schedule
        # built on one interval and mapped over the phase's intervals (gaitopt.tracing)
        add_interval_rows(ctx, p, self.term, ctx.rule.collocation_rows, ctx.rule.collocation_order)
        any_event = any(sched.contact_event(i) for i in range(len(ctx.phases)))
        if sched.contact_event(p) or (p == 0 and not any_event):
            for row in ctx.rule.acceleration_mode_rows(pv):
                ctx.builder.con(self.term, pv.name, row)
