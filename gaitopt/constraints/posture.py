"""Posture: base height band and footholds relative to the base."""
from __future__ import annotations

import casadi as ca
import numpy as np

from ..errors import InputError
from .base import Constraint
from .kinematics import base_height_band


class BaseHeight(Constraint):
    """BaseHeight: base origin height above the ground level below it, z − x·tan(slope) on a
    plane, z − `Surface.reference_height`(x, y) on other terrain, ∈
    [min, max] [m], at every kinematic collocation point. Default band (0.75, 1.2) × the
    standing base height; constraints.base_height (a number or {min, max}) or robot.yaml's
    `kinematics.base_height` overrides it; false switches it off (see `base_height_band`)."""

    term = "base_height"
    where = ("bounds", "point")

    @classmethod
    def applies(cls, problem, robot):
        given = problem.constraints.base_height
        if given is False:
            return False
        if "base_z" not in robot.base_coordinates:
            if given is not None:
                raise InputError("needs a floating base (sagittal or 3d)", file=problem.source,
                                 field="constraints.base_height")
            return False
        return True

    def bound(self, ctx, bounds):
        self.band = base_height_band(ctx.problem, ctx.robot)

    def add_point(self, ctx, p, point):
        if not point.kinematic or self.band is None:
            return
        robot = ctx.robot
        y = point.q[robot.index("base_y")] if "base_y" in robot.coordinates else 0.0
        z_base = ctx.terrain.base_height(point.q[robot.index("base_x")], y, point.q[robot.index("base_z")])
        ctx.builder.con(self.term, ctx.phases[p].name, z_base, *self.band)


def foothold_targets(robot, footholds: dict, source) -> dict:
    """Foot → (x[, y]) target [m] of its touchdown point relative to the base origin: the given
    feet, and their mirror partners with y mirrored."""
    field_ = "constraints.footholds"
    if footholds and "base_x" not in robot.base_coordinates:
        raise InputError("needs a floating base (sagittal or 3d)", file=source, field=field_)
    dims = 1 if robot.base == "sagittal" else 2
    out = {}
    for foot, xy in footholds.items():
        if foot not in robot.feet:
            raise InputError(f"unknown foot {foot!r}", file=source, field=field_, allowed=sorted(robot.feet))
        if len(xy) != dims:
            raise InputError(f"{foot}: expected {'[x]' if dims == 1 else '[x, y]'} on a {robot.base} robot, "
                             f"got {list(xy)}", file=source, field=field_)
        out[foot] = np.array(xy)
        partner = robot.mirror.foot_pairs.get(foot) if robot.mirror is not None else None
        if partner is not None and partner not in footholds:
            out[partner] = np.array(xy) * ([1.0] if dims == 1 else [1.0, -1.0])
    return out


class Foothold(Constraint):
    """Foothold: where a foot touches down, its first touching point sits at the given (x[, y])
    [m] relative to the base origin (constraints.footholds; a mirror partner not listed gets
    the mirrored target)."""

    term = "foothold"
    where = ("bounds", "point")

    def __init__(self):
        self.targets = {}

    @classmethod
    def applies(cls, problem, robot):
        return bool(problem.constraints.footholds)

    def bound(self, ctx, bounds):
        # validated once, before any row exists
        self.targets = foothold_targets(ctx.robot, ctx.problem.constraints.footholds, ctx.problem.source)

    def add_point(self, ctx, p, point):
        if not point.kinematic or point.progress != 0:
            return
        names, robot = ctx.contact_names, ctx.robot
        landing = {}  # the first point of each foot that lands here (the heel in a heel strike)
        for cname in ctx.schedule.touchdowns(p):
            landing.setdefault(robot.contact(cname).foot, names.index(cname))
        pos, _ = point.contact_kinematics(ctx.dynamics)
        for foot, ci in landing.items():
            if foot in self.targets:
                target = self.targets[foot]
                base = [point.q[robot.index(c)] for c in ("base_x", "base_y")[:len(target)]]
                rel = ca.vertcat(*[pos[ax, ci] - base[ax] for ax in range(len(target))])
                ctx.builder.con(self.term, ctx.phases[p].name, rel - ca.DM(target))
