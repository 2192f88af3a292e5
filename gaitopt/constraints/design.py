"""Components that add decision variables besides the motion: co-designed gear ratios, limb
lengths and the split of joint powers into positive and negative parts."""
from __future__ import annotations

import casadi as ca
import numpy as np

from ..actuation import designed_joints, joule_coefficient
from ..errors import InputError
from ..limb_lengths import LimbDynamics, leg_of, leg_scales
from .base import Constraint


class GearRatioDesign(Constraint):
    """GearRatioDesign: one gear ratio per `design.gear_ratio` group as a decision variable,
    G = G_guess·(1 + z) with z ∈ [G_min/G_guess − 1, G_max/G_guess − 1] (z = 0 is the guess and
    z is O(1)). The designed joints' torques lose their fixed bounds: their current limit is a
    row (`CurrentLimit`), and their URDF effort limit (which describes the shipped gear) is not
    applied. For a half cycle, mirror partners must share a group (the mirrored half reuses
    each joint's partner's torques)."""

    term = "design"
    where = ("bounds", "variables")

    @classmethod
    def applies(cls, problem, robot):
        return bool(problem.design)

    def bound(self, ctx, bounds):
        problem, robot = ctx.problem, ctx.robot
        for group in problem.design:
            field = f"design.gear_ratio.{group.name}"
            for j in group.joints:
                if j not in robot.actuated:
                    raise InputError(f"{j!r} is not an actuated joint of {robot.name}", file=problem.source,
                                     field=field, allowed=robot.actuated)
            if problem.cycle == "half" and robot.mirror is not None:
                for j in group.joints:
                    partner = robot.coordinates[int(robot.mirror.perm[robot.index(j)])]
                    if partner not in group.joints:
                        raise InputError(f"a half cycle needs mirror partners in one group: add {partner!r}",
                                         file=problem.source, field=field)
        where = designed_joints(problem, robot)
        bounds.u_lim = np.array([np.inf if j in where else u for j, u in zip(robot.actuated, bounds.u_lim)])

    def add_variables(self, ctx):
        exprs = {}
        for group in ctx.problem.design:
            b = group.bounds
            z = ctx.builder.var(f"gear_{group.name}", (1, 1), b.min / b.guess - 1.0, b.max / b.guess - 1.0)
            ctx.globals[f"gear_{group.name}"] = z
            exprs[group.name] = b.guess * (1.0 + z.sym)
        where = designed_joints(ctx.problem, ctx.robot)
        ctx.gears = [exprs[where[j]] if j in where else g for j, g in zip(ctx.robot.actuated, ctx.gears)]



def designed_legs(problem, robot) -> list:
    """The `gaitopt.limb_lengths.Leg` of every foot in design.limb_lengths.legs (InputError
    naming the field for an unknown or non-point foot, a missing mirror partner in a half cycle,
    or a leg whose thigh and shank cannot be found)."""
    field = "design.limb_lengths.legs"
    spec = problem.limb_lengths
    legs = []
    points = sorted(f for f in robot.feet if robot.feet[f].kind == "point")
    for foot in spec.legs:
        if foot not in points:
            raise InputError(f"{foot!r} is not a point foot of {robot.name}", file=problem.source, field=field,
                             allowed=points)
    for foot in spec.legs:
        partner = robot.mirror.foot_pairs.get(foot) if robot.mirror is not None else None
        if problem.cycle == "half" and partner is not None and partner not in spec.legs:
            raise InputError(f"a half cycle needs mirror partners designed together: add {partner!r}",
                             file=problem.source, field=field)
        try:
            legs.append(leg_of(robot, foot))
        except ValueError as err:
            raise InputError(str(err), file=problem.source, field=field) from None
    return legs


class LimbLengthDesign(Constraint):
    """LimbLengthDesign: one thigh/shank length ratio ρ for the legs of design.limb_lengths as a
    decision variable, ρ = ρ₀(1 + z) with ρ₀ the guess (default: the first leg's shipped ratio)
    and z ∈ [ρ_min/ρ₀ − 1, ρ_max/ρ₀ − 1]; each leg keeps its total length. The transcription's
    dynamics become `LimbDynamics` bound to the scales of ρ, so every row that uses them
    (inverse dynamics, contact kinematics, impacts) sees the designed legs."""

    term = "limb_design"
    where = ("bounds", "variables")

    def __init__(self):
        self.legs = []

    @classmethod
    def applies(cls, problem, robot):
        return problem.limb_lengths is not None

    def bound(self, ctx, bounds):
        self.legs = designed_legs(ctx.problem, ctx.robot)

    def add_variables(self, ctx):
        spec = ctx.problem.limb_lengths
        lo, hi = spec.ratio_bounds
        guess = float(np.clip(spec.ratio_guess or self.legs[0].ratio, lo, hi))
        z = ctx.builder.var("limb_ratio", (1, 1), lo / guess - 1.0, hi / guess - 1.0)
        ctx.globals["limb_ratio"] = z
        ratio = guess * (1.0 + z.sym)
        ctx.dynamics = LimbDynamics(ctx.robot, self.legs).bind(leg_scales(self.legs, ratio))

# cost terms that integrate |τ q̇| and so need the power split
ABS_POWER_COSTS = frozenset({"specific_resistance", "abs_power"})
# the slack pairs of the electrical power (ElectricalPowerSplit) are keyed (phase, node, ELECTRICAL)
ELECTRICAL = "electrical"


class PowerSplit(Constraint):
    """PowerSplit: at every node of the rule's power quadrature (`CollocationRule.power_nodes`:
    Simpson's rule over knots and midpoints for the trapezoid, Boole's over the quarter points
    of an interval for Hermite–Simpson, each exact for τ·q̇ on the rule's interpolant), each
    actuated joint's power is split as τ q̇ = P⁺ − P⁻ [W] with slack variables P⁺, P⁻ ≥ 0; a
    cost that minimises P⁺ + P⁻ makes it |τ q̇| at the optimum without abs() (nonsmooth).
    Active when the cost has an absolute-power term. Its slack pairs are keyed (phase, node) +
    `tag` in ctx.slacks and ctx.power_nodes."""

    term = "power_split"
    where = ("cycle",)
    prefix = "P"  # of the slack variables' names
    tag: tuple = ()

    @classmethod
    def applies(cls, problem, robot):
        return any(name in ABS_POWER_COSTS for name in problem.cost)

    def parameters(self, ctx) -> list:
        """SX inputs the rows read besides the node's and the slacks (one object each, shared by
        every node: a shared input of the mapped rows)."""
        return []

    @staticmethod
    def power(tau, v, *parameters):
        """The split power at a node [W] from τ (nu,) and the actuated joints' q̇ (nu,)."""
        return tau * v

    def add_cycle(self, ctx):
        nu, act, B = len(ctx.robot.actuated), ctx.robot.actuated_index, ctx.builder
        params = self.parameters(ctx)
        for p, pv in enumerate(ctx.phases):
            for node in ctx.rule.power_nodes(pv, p):
                key = (*node.key, *self.tag)
                pos = B.var(f"{self.prefix}pos_{node.key}", (nu, 1), 0.0, np.inf)
                neg = B.var(f"{self.prefix}neg_{node.key}", (nu, 1), 0.0, np.inf)
                B.con_points(self.term, pv.name, (self.term, p, node.kind),
                             _split_rows(node.at, act, self.power, len(params)),
                             [*node.inputs, *params, pos.sym, neg.sym])
                ctx.slacks[key] = (pos, neg)
                ctx.power_nodes[key] = node


class ElectricalPowerSplit(PowerSplit):
    """ElectricalPowerSplit: at every node of the rule's power quadrature, each motor's
    electrical power P = V·i = τ q̇ / η + R i² [W], i = τ / (η G K) the motor current (the motor
    model of the current limit and of exported electrical powers, `quantities.electrical_power`),
    is split as P = P⁺ − P⁻ with slack variables P⁺, P⁻ ≥ 0; a cost that minimises P⁺ makes
    it max(P, 0), the power the supply gives when the drivers do not regenerate. Active when the
    cost has `electrical_energy`. Gears may be design variables."""

    term = "electrical_power_split"
    prefix = "E"
    tag = (ELECTRICAL,)

    @classmethod
    def applies(cls, problem, robot):
        return "electrical_energy" in problem.cost

    def parameters(self, ctx):
        acts = ctx.actuators
        inv_eta = ca.SX(np.array([1.0 / a.gear_efficiency for a in acts]))
        # R i² = R (τ/(η G K))²: the Joule index's coefficient over η² (numbers alone make a DM)
        copper = ca.SX(ca.vertcat(*[joule_coefficient(a, g) / a.gear_efficiency ** 2
                                    for a, g in zip(acts, ctx.gears)]))
        return [inv_eta, copper]

    @staticmethod
    def power(tau, v, inv_eta, copper):
        return tau * v * inv_eta + copper * tau ** 2


def _split_rows(at, act, power, n_parameters: int):
    """rows_of(*node inputs, *parameters, P⁺, P⁻) = power(τ, q̇, *parameters) − (P⁺ − P⁻) at a
    power node."""
    def rows(*z):
        tau, v = at(*z[:-2 - n_parameters])
        return power(tau, v[act], *z[-2 - n_parameters:-2]) - (z[-2] - z[-1])
    return rows
