"""Joint, base and actuator limits: variable bounds and rows at the collocation points."""
from __future__ import annotations

from types import SimpleNamespace

import casadi as ca
import numpy as np

from ..actuation import designed_joints, motor_voltage
from ..tracing import add_interval_rows
from .base import Constraint


class JointLimits(Constraint):
    """JointLimits: q_lower ≤ q ≤ q_upper for every joint coordinate [rad or m] (URDF /
    robot.yaml), as bounds on the q variables. Switch: constraints.joint_limits."""

    term = "joint_limits"
    where = ("bounds", "phase")

    @classmethod
    def applies(cls, problem, robot):
        return problem.constraints.joint_limits

    def bound(self, ctx, bounds):
        nb = len(ctx.robot.base_coordinates)
        bounds.q_lb[nb:], bounds.q_ub[nb:] = ctx.robot.lower[nb:], ctx.robot.upper[nb:]

    def add_phase(self, ctx, p):
        nb = len(ctx.robot.base_coordinates)
        ctx.builder.bound(self.term, ctx.phases[p].name, ctx.phases[p].q.index[nb:, :])


class BaseAboveGround(Constraint):
    """BaseAboveGround: base_z ≥ 0 [m] on flat ground (a loose −10 m on a slope, steps or a
    height map, where the ground height varies), as a bound."""

    term = "base_above_ground"
    where = ("bounds",)

    @classmethod
    def applies(cls, problem, robot):
        return "base_z" in robot.base_coordinates

    def bound(self, ctx, bounds):
        flat = ctx.problem.slope == 0 and not ctx.problem.terrain
        bounds.q_lb[ctx.robot.index("base_z")] = 0.0 if flat else -10.0


class VelocityLimits(Constraint):
    """VelocityLimits: |q̇_j| ≤ q̇_max,j [rad/s] for every joint (URDF / robot.yaml), as bounds
    on the v variables. Switch: constraints.velocity_limits."""

    term = "velocity_limits"
    where = ("bounds", "phase")

    @classmethod
    def applies(cls, problem, robot):
        return problem.constraints.velocity_limits

    def bound(self, ctx, bounds):
        vl = ctx.robot.velocity_limit.copy()
        vl[:len(ctx.robot.base_coordinates)] = np.inf
        bounds.v_lb, bounds.v_ub = -vl, vl

    def add_phase(self, ctx, p):
        ctx.builder.bound(self.term, ctx.phases[p].name, ctx.phases[p].v.index)


class TorqueLimits(Constraint):
    """TorqueLimits: |τ_j| ≤ τ_max,j [N·m], the URDF effort limit (a zero effort means "not
    given"), as bounds on the τ variables. Switch: constraints.effort_limits."""

    term = "torque_limits"
    where = ("bounds", "phase")

    @classmethod
    def applies(cls, problem, robot):
        return problem.constraints.effort_limits

    def bound(self, ctx, bounds):
        effort = ctx.robot.effort_limit[ctx.robot.actuated_index]
        bounds.u_lim = np.minimum(bounds.u_lim, np.where(effort > 0, effort, np.inf))

    def add_phase(self, ctx, p):
        for blk in ctx.phases[p].all_of("tau"):
            ctx.builder.bound(self.term, ctx.phases[p].name, blk.index)


class CurrentLimit(Constraint):
    """CurrentLimit: |τ| ≤ η·G·K·I_max [N·m] (motor current within its limit). For a fixed gear
    a bound on τ; for a co-designed gear G (a variable) the rows G ∓ τ/(η K I_max) ≥ 0, scaled
    by the guess of G, at every kinematic collocation point. Switch: constraints.current_limit."""

    term = "current_limit"
    where = ("bounds", "phase", "point")

    @classmethod
    def applies(cls, problem, robot):
        return problem.constraints.current_limit

    def bound(self, ctx, bounds):
        designed = designed_joints(ctx.problem, ctx.robot)
        limit = np.array([np.inf if j in designed else a.torque_limit
                          for j, a in zip(ctx.robot.actuated, ctx.actuators)])
        bounds.u_lim = np.minimum(bounds.u_lim, np.where(limit > 0, limit, np.inf))

    def add_phase(self, ctx, p):
        for blk in ctx.phases[p].all_of("tau"):
            ctx.builder.bound(self.term, ctx.phases[p].name, blk.index)

    def add_point(self, ctx, p, point):
        if not point.kinematic:
            return
        for d in ctx.problem.design:
            for j in d.joints:
                i = ctx.robot.actuated.index(j)
                a = ctx.actuators[i]
                i_scaled = point.tau[i] / (a.gear_efficiency * a.torque_constant * a.current_limit)
                rows = ca.vertcat(ctx.gears[i] - i_scaled, ctx.gears[i] + i_scaled) / d.bounds.guess
                ctx.builder.con(self.term, ctx.phases[p].name, rows, 0.0, np.inf)


class _ActuatorEnvelope(Constraint):
    """A row ratio ∈ [−1, 1] per actuated joint at every kinematic collocation point."""

    where = ("point",)

    def ratio(self, actuator, tau, qd, gear):
        """The joint's row (dimensionless), or None where the joint has no such limit."""
        raise NotImplementedError

    def ratios(self, actuators, tau, qd, gears) -> list:
        """Each actuated joint's row or None (τ, q̇: (nu,) expressions): `ratio` joint by joint;
        a subclass may build them all at once."""
        return [self.ratio(act, tau[i], qd[i], gears[i]) for i, act in enumerate(actuators)]

    def add_point(self, ctx, p, point):
        if not point.kinematic:
            return
        qd = point.v[ctx.robot.actuated_index]
        for row in self.ratios(ctx.actuators, point.tau, qd, ctx.gears):
            if row is not None:
                ctx.builder.con(self.term, ctx.phases[p].name, row, -1.0, 1.0)


class TorqueSpeedLimit(_ActuatorEnvelope):
    """TorqueSpeedLimit: |R·i + K·ω_m| ≤ V, the motor's terminal voltage within its supply, with
    i = τ/(η G K) [A] and ω_m = G q̇ [rad/s]; rows (R·i + K·ω_m)/V ∈ [−1, 1] at every kinematic
    collocation point. Switch: constraints.torque_speed."""

    term = "torque_speed"

    @classmethod
    def applies(cls, problem, robot):
        return problem.constraints.torque_speed

    def ratio(self, actuator, tau, qd, gear):
        return motor_voltage(actuator, tau, qd, gear) / actuator.voltage

    def ratios(self, actuators, tau, qd, gears) -> list:
        """With fixed gears, `motor_voltage` of all joints at once, on columns of their
        constants: five elementwise operations instead of five per joint (a CasADi call from
        Python costs about 15 µs), per joint the same operations on the same numbers, so the
        same expression nodes."""
        if any(isinstance(g, (ca.SX, ca.MX)) for g in gears):  # co-design: gear variables
            return super().ratios(actuators, tau, qd, gears)
        col = lambda name: ca.DM(np.array([getattr(a, name) for a in actuators], float))  # noqa: E731
        motors = SimpleNamespace(**{k: col(k) for k in ("resistance", "gear_efficiency", "torque_constant")})
        rows = motor_voltage(motors, tau, qd, ca.DM(np.array(gears, float))) / col("voltage")
        return [rows[i] for i in range(len(actuators))]


class PowerLimit(_ActuatorEnvelope):
    """PowerLimit: |τ q̇| ≤ P_rated [W] per joint with a rated power, rows τ q̇ / P_rated ∈
    [−1, 1] at every kinematic collocation point. Switch: constraints.power_limit."""

    term = "power_limit"

    @classmethod
    def applies(cls, problem, robot):
        return problem.constraints.power_limit

    def ratio(self, actuator, tau, qd, gear):
        return tau * qd / actuator.rated_power if np.isfinite(actuator.rated_power) else None


class TorqueRateLimit(Constraint):
    """TorqueRateLimit: |dτ/dt| ≤ constraints.torque_rate [N·m/s] on the rule's torque
    interpolant, as rows h·dτ/dt ∓ rate·h ≤ 0 at both ends of every interval (Hermite–Simpson:
    the quadratic's slope is largest at an end)."""

    term = "torque_rate"
    where = ("interval",)

    @classmethod
    def applies(cls, problem, robot):
        return problem.constraints.torque_rate is not None

    def add_intervals(self, ctx, p):
        pv = ctx.phases[p]
        rate = ctx.problem.constraints.torque_rate

        def rows(template, h):
            return [ca.vertcat(du - rate * h, -du - rate * h) for du in ctx.rule.torque_rate_ends(template, 0)]

        # interval by interval, each end's rows: one group of all the template's entries
        ends = len(ctx.rule.torque_rate_ends(pv, 0))
        add_interval_rows(ctx, p, self.term, rows, [tuple(range(ends))], -np.inf, 0.0)
