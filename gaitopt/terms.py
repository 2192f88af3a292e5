"""Cost terms of a gait problem, each a small named function of the transcription.

Integrals use the quadrature weights of the transcription (trapezoidal: h/2, h, …, h/2 over
the knots for integrands of q, v, τ, the midpoint rule for integrands with contact forces;
Hermite–Simpson: Simpson weights over knots and midpoints). `s` is the base advance over the
optimised part of the cycle [m] and `T` its duration [s]; for a half cycle both are halves of
the full cycle's, so every per-distance or time-averaged cost equals the full cycle's value.

Absolute powers |τ q̇| are never written as abs(): each actuated joint's power is split as
τ q̇ = P⁺ − P⁻ with P⁺, P⁻ ≥ 0 (slack variables) at the nodes of a quadrature exact for τ q̇ on
the rule's interpolant (`CollocationRule.power_nodes`: Simpson's over knots and midpoints for
the trapezoid, Boole's over quarter points for Hermite–Simpson); minimising P⁺ + P⁻ makes it
equal |τ q̇| at the optimum.
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from .actuation import joule_coefficient
from .collocation import point_kind
from .constraints.design import ELECTRICAL
from .constraints.junction import impact_here, incoming
from .dynamics import GRAVITY
from .point_sum import PointSum


def _duration(ctx):
    """Duration [s] of the optimised part of the cycle."""
    return sum(pv.duration for pv in ctx.phases)


def collocation_points(ctx, forces: bool = False):
    """Yield (phase index, h [s], weight [-], q, v, a, τ, f, key) over the rule's quadrature of
    every phase, the point's quadrature weight being h · weight (h: the phase's interval, SX when
    its duration is free): of integrands of (q, v, τ), or with `forces` of integrands that also
    need a or f (gaitopt.collocation.CollocationRule.quadrature)."""
    for p, pv in enumerate(ctx.phases):
        h = pv.duration / pv.n_intervals
        for w, q, v, a, tau, f, key in ctx.rule.quadrature(pv, p, forces):
            yield p, h, w, q, v, a, tau, f, key


def _group(name: str, key) -> tuple:
    """The PointSum group of a point: the term, the phase, knot or midpoint (inputs of one form)."""
    return name, key[0], point_kind(key)


def joule_loss(ctx):
    """JouleLoss: J = (1/s) ∫ Σ_i R_i (τ_i / (G_i K_i))² dt  [J/m] — copper loss per distance."""
    c = ca.vertcat(*[joule_coefficient(a, g) for a, g in zip(ctx.actuators, ctx.gears)])
    out = PointSum()
    for _, h, w, q, v, a, tau, f, key in collocation_points(ctx):
        out.add(_group("joule_loss", key), w, lambda tau, c, h, s: h * ca.dot(c, tau ** 2) / s,
                tau, c, h, ctx.distance)
    return out


def _split_nodes(ctx, tag: tuple):
    """(phase index, h [s], PowerNode, P⁺, P⁻) of every slack pair of one power split
    (gaitopt.constraints.PowerSplit: tag () for τ q̇, (ELECTRICAL,) for the electrical power)."""
    # one h object per phase: an input that is the same object at every point of a group is
    # one shared input of its mapped Function (gaitopt.assembly), not a per-point expression
    h = [pv.duration / pv.n_intervals for pv in ctx.phases]
    for key, (pos, neg) in ctx.slacks.items():
        if key[2:] == tag:
            yield key[0], h[key[0]], ctx.power_nodes[key], pos, neg


def _abs_energy(ctx, name: str, per):
    """∫ Σ_i |τ_i q̇_i| dt / per as a PointSum (per: SX or number), over the nodes of the
    rule's power quadrature (gaitopt.constraints.PowerSplit)."""
    out = PointSum()
    for p, h, node, pos, neg in _split_nodes(ctx, ()):
        out.add((name, p, node.kind), node.weight, lambda pos, neg, h, per: h * ca.sum1(pos + neg) / per,
                pos.sym, neg.sym, h, per)
    return out


def specific_resistance(ctx):
    """SpecificResistance: ε = ∫ Σ_i |τ_i q̇_i| dt / (m g s)  [-] — mechanical cost of transport.

    (The source paper writes the integrand over m g v without dividing by the cycle time; that
    figure is ε·T. gaitopt reports ε, the dimensionless one.)"""
    return _abs_energy(ctx, "specific_resistance", ctx.robot.total_mass * GRAVITY * ctx.distance)


def abs_power(ctx):
    """AbsPower: P̄ = (1/T) ∫ Σ_i |τ_i q̇_i| dt  [W] — time-averaged absolute mechanical power."""
    return _abs_energy(ctx, "abs_power", _duration(ctx))


def electrical_energy(ctx):
    """ElectricalEnergy: E = (1/s) ∫ Σ_i max(P_i, 0) dt  [J/m] — electrical energy the supply
    gives per distance when the drivers do not regenerate, P_i = τ_i q̇_i / η_i + R_i i_i² with
    the motor current i = τ / (η G K) (gaitopt.constraints.ElectricalPowerSplit's P⁺). The
    figure a study's `energy_per_m` column reports; it prices torque on a still joint (copper
    loss) and negative work (not returned), which absolute mechanical work does not."""
    out = PointSum()
    for p, h, node, pos, _ in _split_nodes(ctx, (ELECTRICAL,)):
        out.add(("electrical_energy", p, node.kind), node.weight, lambda pos, h, s: h * ca.sum1(pos) / s,
                pos.sym, h, ctx.distance)
    return out


def torque_squared(ctx):
    """TorqueSquared: (1/T) ∫ Σ_i τ_i² dt  [N²·m²]."""
    out, T = PointSum(), _duration(ctx)
    for _, h, w, q, v, a, tau, f, key in collocation_points(ctx):
        out.add(_group("torque_squared", key), w, lambda tau, h, T: h * ca.sumsqr(tau) / T, tau, h, T)
    return out


def torque_rate_squared(ctx):
    """TorqueRateSquared: (1/T) ∫ |dτ/dt|² dt  [N²·m²/s], a smoothing regulariser, integrated
    exactly on the transcription's torque interpolant inside each phase (jumps at contact
    events are not counted).

    Trapezoidal (τ linear): Σ_k |τ_k+1 − τ_k|² / h. Hermite–Simpson (τ quadratic through τ_k,
    τ_m, τ_k+1, so dτ/ds = A + B s on s ∈ [0, 1] with A = −3τ_k + 4τ_m − τ_k+1 and
    B = 4(τ_k − 2τ_m + τ_k+1)): Σ_k (|A|² + A·B + |B|²/3) / h. Counting the knots only there
    left the midpoint torques free to oscillate within each interval (docs/modelling.md)."""
    out, T, rule = PointSum(), _duration(ctx), ctx.rule
    for p, pv in enumerate(ctx.phases):
        h = pv.duration / pv.n_intervals
        for k in range(pv.n_intervals):
            out.add(("torque_rate_squared", p), 1.0, lambda h, T, *taus: rule.torque_rate_integral(taus, h) / T, h, T,
                    *rule.interval_torques(pv, k))
    return out


def fri_stability(ctx):
    """FriStability: (1/s) ∫ |x_P − x_G|² dt / T  [m] — mean squared ground distance between
    the centre of pressure P of the contact forces and the ground projection G of the CoM,
    per distance travelled.

    P equals the ZMP, and the foot-rotation indicator (FRI) while the stance feet do not
    rotate; during heel or toe roll gaitopt's P sits on the rolling edge (it is computed from the
    contact forces), where the true FRI would lie beyond it: an approximation, stated here.
    A flight phase has no centre of pressure (no contact force): it adds nothing to the integral.
    """
    dyn, dim = ctx.dynamics, ctx.dim
    horiz = [0] if dim == 2 else [0, 1]
    out, T = PointSum(), _duration(ctx)
    for p, h, w, q, v, a, tau, f, key in collocation_points(ctx, forces=True):
        active = ctx.phases[p].active
        if not active:  # flight: P is undefined (Σ f_n = 0), nothing to price
            continue
        cols = [ctx.contact_names.index(c) for c in active]

        def integrand(q, v, a, f, h, T, s, cols=cols):
            pos, _, _ = dyn.contact_kinematics(q, v, a)
            com, _ = dyn.com(q, v)
            fz = [f[dim * i + (dim - 1)] for i in range(len(cols))]
            fsum = sum(fz)
            return h * sum((sum(fz[i] * pos[ax, c] for i, c in enumerate(cols)) / fsum - com[ax]) ** 2
                           for ax in horiz) / T / s

        out.add(_group("fri_stability", key), w, integrand, q, v, a, f, h, T, ctx.distance)
    return out


def impact_loss(ctx):
    """ImpactLoss: E = (1/s) Σ_touchdowns ½ Δvᵀ M(q) Δv  [J/m] — kinetic energy lost in the
    inelastic impacts per distance, Δv = v⁺ − v⁻ the velocity jump at each junction where points
    touch down (`gaitopt.constraints.ImpactMap`: M Δv = J_cᵀ Λ with the touching points at rest
    after it). Since J_c v⁺ = 0, ½ v⁻ᵀ M v⁻ − ½ v⁺ᵀ M v⁺ = ½ Δvᵀ M Δv exactly (Carnot's
    theorem); M includes the reflected rotor inertias (and co-designed gears' change of them).
    In J/m like joule_loss, so {joule_loss: 1, impact_loss: 1} counts every joule alike.
    Zero with constraints.touchdown: soft (no velocity jump)."""
    total = ca.SX(0)
    for p, pv in enumerate(ctx.phases):
        if not impact_here(ctx, p):
            continue
        q0 = pv.q.sym[:, 0]
        dv = pv.v.sym[:, 0] - incoming(ctx, p)[1]
        total += 0.5 * ca.dot(dv, ctx.dynamics.mass_times(q0, dv) + ctx.rotor_correction(dv))
    return total / ctx.distance


# Built-in cost terms: a literal, read-only table.
COSTS = {
    "joule_loss": joule_loss,
    "specific_resistance": specific_resistance,
    "abs_power": abs_power,
    "electrical_energy": electrical_energy,
    "torque_squared": torque_squared,
    "torque_rate_squared": torque_rate_squared,
    "fri_stability": fri_stability,
    "impact_loss": impact_loss,
}
