"""Cost terms of a gait problem, each a small named function of the transcription.

Integrals use the quadrature weights of the transcription (trapezoidal: h/2, h, …, h/2 over
the knots for integrands of q, v, τ, the midpoint rule for integrands with contact forces;
Hermite–Simpson: Simpson weights over knots and midpoints). `s` is the base advance over the
optimised part of the cycle [m] and `T` its duration [s]; for a half cycle both are halves of
the full cycle's, so every per-distance or time-averaged cost equals the full cycle's value.

Absolute powers |τ q̇| are never written as abs(): each actuated joint's power at each
collocation point is split as τ q̇ = P⁺ − P⁻ with P⁺, P⁻ ≥ 0 (slack variables); minimising
P⁺ + P⁻ makes it equal |τ q̇| at the optimum.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from .actuation import joule_coefficient
from .dynamics import GRAVITY


@dataclass
class CostContext:
    robot: object
    phases: list
    schedule: object
    method: object
    distance: object
    duration: object
    dim: int
    comp: list
    dynamics: object
    builder: object
    contact_names: list
    slope: float
    slacks: dict = field(default_factory=dict)
    gears: list | None = None  # gear ratio per actuated joint (number or co-design variable)


def collocation_points(ctx: CostContext):
    """Yield (phase index, weight [s], q, v, a, τ, f, slack key) for every collocation point
    of the transcription's quadrature of (q, v, τ) integrands. Trapezoidal: the knots, with
    a and f None (they are per interval: see `force_points`)."""
    for p, pv in enumerate(ctx.phases):
        K = pv.q.sym.shape[1] - 1
        h = pv.duration / K
        wk, wm = ctx.method.weights(K)
        per_knot = not ctx.method.interval_inputs
        for k in range(K + 1):
            a, f = (pv.a.sym[:, k], pv.f.sym[:, k]) if per_knot else (None, None)
            yield p, h * wk[k], pv.q.sym[:, k], pv.v.sym[:, k], a, pv.tau.sym[:, k], f, (p, k)
        if pv.mid is not None:
            m = pv.mid
            for k in range(K):
                yield (p, h * wm[k], m["q"].sym[:, k], m["v"].sym[:, k], m["a"].sym[:, k], m["tau"].sym[:, k],
                       m["f"].sym[:, k], (p, k + 0.5))


def force_points(ctx: CostContext):
    """Like `collocation_points`, for integrands with contact forces or accelerations.
    Trapezoidal: the midpoint rule over the intervals (a, f constant on each; q, v at the
    midpoint; τ the mean of the interval's end torques)."""
    if not ctx.method.interval_inputs:
        yield from collocation_points(ctx)
        return
    for p, pv in enumerate(ctx.phases):
        K = pv.q.sym.shape[1] - 1
        h = pv.duration / K
        for k in range(K):
            yield (p, h, *pv.interval_point(k), (p, k + 0.5))


def power_slacks(ctx: CostContext, key, tau, v):
    """(P⁺, P⁻) slack pair of the joint powers at one collocation point (created once)."""
    if key not in ctx.slacks:
        nu = len(ctx.robot.actuated)
        B = ctx.builder
        pos = B.var(f"Ppos_{key}", (nu, 1), 0.0, np.inf)
        neg = B.var(f"Pneg_{key}", (nu, 1), 0.0, np.inf)
        phase = ctx.schedule.phases[key[0]].name
        B.con("power_split", phase, tau * v[ctx.robot.actuated_index] - (pos.sym - neg.sym))
        ctx.slacks[key] = (pos, neg)
    return ctx.slacks[key]


def joule_loss(ctx: CostContext):
    """JouleLoss: J = (1/s) ∫ Σ_i R_i (τ_i / (G_i K_i))² dt  [J/m] — copper loss per distance."""
    acts = [ctx.robot.actuators[j] for j in ctx.robot.actuated]
    gears = ctx.gears if ctx.gears is not None else [a.gear_ratio for a in acts]
    c = ca.vertcat(*[joule_coefficient(a, g) for a, g in zip(acts, gears)])
    total = 0
    for _, w, q, v, a, tau, f, key in collocation_points(ctx):
        total += w * ca.dot(c, tau ** 2)
    return total / ctx.distance


def _abs_energy(ctx: CostContext):
    total = 0
    for _, w, q, v, a, tau, f, key in collocation_points(ctx):
        pos, neg = power_slacks(ctx, key, tau, v)
        total += w * ca.sum1(pos.sym + neg.sym)
    return total


def specific_resistance(ctx: CostContext):
    """SpecificResistance: ε = ∫ Σ_i |τ_i q̇_i| dt / (m g s)  [-] — mechanical cost of transport.

    (The source paper writes the integrand over m g v without dividing by the cycle time; that
    figure is ε·T. gaitopt reports ε, the dimensionless one.)"""
    return _abs_energy(ctx) / (ctx.robot.total_mass * GRAVITY * ctx.distance)


def abs_power(ctx: CostContext):
    """AbsPower: P̄ = (1/T) ∫ Σ_i |τ_i q̇_i| dt  [W] — time-averaged absolute mechanical power."""
    return _abs_energy(ctx) / ctx.duration


def torque_squared(ctx: CostContext):
    """TorqueSquared: (1/T) ∫ Σ_i τ_i² dt  [N²·m²]."""
    total = 0
    for _, w, q, v, a, tau, f, key in collocation_points(ctx):
        total += w * ca.sumsqr(tau)
    return total / ctx.duration


def torque_rate_squared(ctx: CostContext):
    """TorqueRateSquared: (1/T) ∫ |dτ/dt|² dt  [N²·m²/s], a smoothing regulariser, integrated
    exactly on the transcription's torque interpolant inside each phase (jumps at contact
    events are not counted).

    Trapezoidal (τ linear): Σ_k |τ_k+1 − τ_k|² / h. Hermite–Simpson (τ quadratic through τ_k,
    τ_m, τ_k+1, so dτ/ds = A + B s on s ∈ [0, 1] with A = −3τ_k + 4τ_m − τ_k+1 and
    B = 4(τ_k − 2τ_m + τ_k+1)): Σ_k (|A|² + A·B + |B|²/3) / h. Counting the knots only there
    left the midpoint torques free: titan8's crawl then oscillated within each interval, and
    its abs power, collocated at knots and midpoints, read 0.34 W where the interpolant's own
    power averaged 1.06 W (measured)."""
    total = 0
    for pv in ctx.phases:
        K = pv.tau.sym.shape[1] - 1
        h = pv.duration / K
        for k in range(K):
            t0, t1 = pv.tau.sym[:, k], pv.tau.sym[:, k + 1]
            if ctx.method.has_midpoints:
                A, B = ctx.method.quadratic_rate(t0, pv.mid["tau"].sym[:, k], t1)
                total += (ca.sumsqr(A) + ca.dot(A, B) + ca.sumsqr(B) / 3.0) / h
            else:
                total += ca.sumsqr(t1 - t0) / h
    return total / ctx.duration


def fri_stability(ctx: CostContext):
    """FriStability: (1/s) ∫ |x_P − x_G|² dt / T  [m] — mean squared ground distance between
    the centre of pressure P of the contact forces and the ground projection G of the CoM,
    per distance travelled.

    P equals the ZMP, and the foot-rotation indicator (FRI) while the stance feet do not
    rotate; during heel or toe roll gaitopt's P sits on the rolling edge (it is computed from the
    contact forces), where the true FRI would lie beyond it: an approximation, stated here.
    """
    dyn = ctx.dynamics
    total = 0
    for p, w, q, v, a, tau, f, key in force_points(ctx):
        active = ctx.phases[p].active
        pos, _, _ = dyn.contact_kinematics(q, v, a)
        com, _ = dyn.com(q, v)
        fz = [f[ctx.dim * i + (ctx.dim - 1)] for i in range(len(active))]
        fsum = sum(fz)
        horiz = [0] if ctx.dim == 2 else [0, 1]
        for ax in horiz:
            num = sum(fz[i] * pos[ax, ctx.contact_names.index(c)] for i, c in enumerate(active))
            total += w * (num / fsum - com[ax]) ** 2
    return total / ctx.duration / ctx.distance


# Built-in cost terms: a literal, read-only table.
COSTS = {
    "joule_loss": joule_loss,
    "specific_resistance": specific_resistance,
    "abs_power": abs_power,
    "torque_squared": torque_squared,
    "torque_rate_squared": torque_rate_squared,
    "fri_stability": fri_stability,
}
