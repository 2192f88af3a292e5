"""Phase junctions and the cycle wrap: continuity, the impact map, periodicity, speed."""
from __future__ import annotations

import casadi as ca
import numpy as np

from ..cycle import (cycle_shift, mirror_coordinates, mirror_force_variables, mirror_torques, planar_advance,
                     untransform_casadi)
from ..dynamics import SymbolicDynamics
from ..terrain_io import periodic_slope
from .base import Constraint
from .contact import foot_forces, friction_rows


def incoming(ctx, p) -> tuple:
    """(q, v, τ, f, active) at the end of the phase before phase p. For p = 0, the last phase's
    end seen from the start of the next cycle part: mirrored for a half cycle, and the base
    moved back by the distance covered (`gaitopt.cycle`); for a sideways or turning cycle, moved
    back by the cycle's planar transform (rotated back by its yaw; `cycle_advance`)."""
    prev = ctx.phases[p - 1]
    q, v, u, f = prev.q.sym[:, -1], prev.v.sym[:, -1], prev.tau.sym[:, -1], prev.f.sym[:, -1]
    active = prev.active
    if p == 0:
        if ctx.half:
            q, v = mirror_coordinates(ctx.robot, q), mirror_coordinates(ctx.robot, v)
            u = mirror_torques(ctx.robot, u)
            f, active = mirror_force_variables(ctx.robot, f, active, ctx.comp)
        if turns(ctx.problem):
            q, v = untransform_casadi(ctx.robot.coordinates, q, v, *cycle_advance(ctx))
            f = _rotate_back(ctx, f, active)
        else:
            q = q - ca.DM(cycle_shift(ctx.robot.coordinates, periodic_slope(ctx.problem))) * ctx.distance
    return q, v, u, f, active


def _incoming_velocity(ctx, p):
    """(v, perm, sign) with `incoming(ctx, p)`'s velocity = diag(sign)·v[perm] (perm None: v
    itself), v the previous phase's last knot's variables; None where it is no such map of them
    (a turning or sideways cycle rotates it back)."""
    v = ctx.phases[p - 1].v.sym[:, -1]
    if p != 0:
        return v, None, None
    if turns(ctx.problem):
        return None
    if ctx.half:
        m = ctx.robot.mirror
        return v, m.perm, m.sign
    return v, None, None


def turns(problem) -> bool:
    """Whether the cycle moves the base sideways or turns it (a full cycle, `gaitopt.direction`)."""
    return bool(problem.sideways or problem.yaw_rate)


def cycle_advance(ctx) -> tuple:
    """(dx, dy, dz [m], yaw [rad]) of the full cycle in the frame of its start: forward advance
    the stride, sideways advance sideways·T, yaw yaw_rate·T, along the arc
    (`gaitopt.cycle.planar_advance`); dz = dx·tan(slope)."""
    p = ctx.problem
    yaw = p.yaw_rate * ctx.period if p.yaw_rate else 0.0
    dx, dy = planar_advance(ctx.stride, p.sideways * ctx.period, yaw)
    return dx, dy, dx * np.tan(periodic_slope(p)), yaw


def _rotate_back(ctx, f, active):
    """World forces of the points in `active` (a column, ctx.comp components each) rotated
    back by the cycle's yaw, as the start of the next cycle sees them."""
    yaw = cycle_advance(ctx)[3]
    if not yaw or ctx.dim < 2 or tuple(ctx.comp[:2]) != (0, 1):
        return f
    c, s = ca.cos(yaw), ca.sin(yaw)
    parts = []
    for i in range(len(active)):
        fx, fy = f[ctx.dim * i], f[ctx.dim * i + 1]
        parts.append(ca.vertcat(c * fx + s * fy, -s * fx + c * fy, *[f[ctx.dim * i + j] for j in range(2, ctx.dim)]))
    return ca.vertcat(*parts) if parts else f


def _term(p: int) -> str:
    return "periodicity" if p == 0 else "junction"


class StateContinuity(Constraint):
    """Periodicity / junction: q at a phase's first knot equals q at the previous phase's last
    knot [rad or m]; at the cycle wrap the first phase starts where the last ends, mirrored for
    a half cycle and with the base advanced by the stride (base_z by stride·tan(slope))."""

    term = "junction"
    where = ("junction",)

    def add_junction(self, ctx, p):
        q_end = incoming(ctx, p)[0]
        ctx.builder.con(_term(p), ctx.phases[p].name, ctx.phases[p].q.sym[:, 0] - q_end)


class TorqueContinuity(Constraint):
    """Junction torques [N·m]: continuous where the contact set does not change (or wherever a
    torque-rate bound forbids jumps). At a touchdown or lift-off the rigid model lets them jump
    (load moves to the new contact in an instant; imposing continuity there forced one-interval
    ramps whose slope grew as 1/h); there the rule's torque-mode rows apply instead."""

    term = "junction"
    where = ("junction",)

    def add_junction(self, ctx, p):
        cur = ctx.phases[p]
        if not ctx.schedule.contact_event(p) or ctx.problem.constraints.torque_rate is not None:
            ctx.builder.con(_term(p), cur.name, cur.tau.sym[:, 0] - incoming(ctx, p)[2])
            return
        for row in ctx.rule.torque_mode_rows(cur):
            ctx.builder.con("collocation", cur.name, row)


def impact_here(ctx, p) -> bool:
    """Whether points touch down with an inelastic impact at the start of phase p."""
    return bool(ctx.schedule.touchdowns(p)) and ctx.problem.constraints.touchdown == "impact"


class ImpactMap(Constraint):
    """ImpactMap: an inelastic impact where points touch down, M(q)(v⁺ − v⁻) = Σ J_cᵀ Λ_c
    [N·m·s] over the points in contact after touchdown, with impulse variables Λ [N·s] inside
    the friction cone (term impact_friction). constraints.touchdown: impact."""

    term = "impact"
    where = ("junction",)

    @classmethod
    def applies(cls, problem, robot):
        return problem.constraints.touchdown == "impact"

    def add_junction(self, ctx, p):
        if not impact_here(ctx, p):
            return
        cur, dim, B = ctx.phases[p], ctx.dim, ctx.builder
        mask = ctx.internal_mask(cur.active)[:, None]
        lam = B.var(f"impulse_{cur.name}", (dim * len(cur.active), 1),
                    np.where(mask, 0.0, -np.inf), np.where(mask, 0.0, np.inf))
        ctx.impulses[cur.name] = lam
        q0 = cur.q.sym[:, 0]
        names = ctx.contact_names
        impulses = ca.SX.zeros(3 * len(names), 1)  # world-frame, every contact point's slot
        for i, cname in enumerate(cur.active):
            ci = names.index(cname)
            for j, ax in enumerate(ctx.comp):
                impulses[3 * ci + ax] = lam.sym[dim * i + j]
        dv = cur.v.sym[:, 0] - incoming(ctx, p)[1]
        # M(q) Δv − Σ J_cᵀ Λ_c as one gravity-free, velocity-free RNEA pass: a third of the graph
        # of the mass matrix and contact Jacobian written out (docs/speed.md); a robot function
        # shared by the touchdowns where the velocity before is a knot's, plain or mirrored
        before = _incoming_velocity(ctx, p)
        if before is not None and type(ctx.dynamics) is SymbolicDynamics:
            v_minus, perm, sign = before
            B.con_call(self.term, cur.name, ctx.dynamics.impact_rows(perm, sign),
                       [q0, cur.v.sym[:, 0], v_minus, impulses], ctx.rotor_correction(dv))
        else:  # a turning cycle's rotated velocity; a co-design's dynamics (extra inputs)
            B.con(self.term, cur.name, ctx.dynamics.mass_times(q0, dv, impulses) + ctx.rotor_correction(dv))
        pos = None
        if not ctx.terrain.planar:  # the cone about the ground's normal at each foothold
            z = ca.SX.zeros(ctx.robot.nv, 1)
            pos = ctx.dynamics.contact_kinematics(q0, z, z)[0]
        for fvecs, i in foot_forces(ctx, lam.sym, cur.active):
            frame = None if pos is None else ctx.terrain.frame_at(pos, names.index(cur.active[i]))
            B.con("impact_friction", cur.name, friction_rows(ctx, fvecs, frame), 0.0, np.inf)


class TouchdownSpeed(Constraint):
    """TouchdownSpeed: every point that touches down with an impact arrives, just before it (the
    previous phase's last knot), at most v_max fast [m/s]: |ṗ| ≤ v_max (along: total, written
    |ṗ|² ≤ v_max²) or −n·ṗ ≤ v_max (along: normal, n the terrain normal: the approach speed).
    constraints.touchdown_speed: {max: v_max, along: total | normal} (a number: total). With
    touchdown: soft the points arrive at rest anyway and no rows are added."""

    term = "touchdown_speed"
    where = ("junction",)

    @classmethod
    def applies(cls, problem, robot):
        return problem.constraints.touchdown_speed is not None and problem.constraints.touchdown == "impact"

    def add_junction(self, ctx, p):
        if not impact_here(ctx, p):
            return
        bound = ctx.problem.constraints.touchdown_speed
        q, v = incoming(ctx, p)[:2]
        _, vel, _ = ctx.dynamics.contact_kinematics(q, v, ca.SX.zeros(ctx.robot.nv))
        names, vmax = ctx.contact_names, float(bound["max"])
        for cname in ctx.schedule.touchdowns(p):
            vc = vel[:, names.index(cname)]
            if bound["along"] == "normal":
                ctx.builder.con(self.term, ctx.phases[p].name, ca.dot(ca.DM(ctx.terrain.normal), vc), -vmax, np.inf)
            else:
                ctx.builder.con(self.term, ctx.phases[p].name, ca.sumsqr(vc[ctx.comp]), -np.inf, vmax ** 2)


class VelocityContinuity(Constraint):
    """Junction velocities [rad/s or m/s]: v continuous across every junction without an impact
    (at a soft touchdown the touching points then arrive at rest through the phase's first-knot
    contact rows)."""

    term = "junction"
    where = ("junction",)

    def add_junction(self, ctx, p):
        if impact_here(ctx, p):
            return
        ctx.builder.con(_term(p), ctx.phases[p].name, ctx.phases[p].v.sym[:, 0] - incoming(ctx, p)[1])


class ForceContinuity(Constraint):
    """Junction forces [N]: where no point touches down or lifts off, the forces of points that
    stay in contact are continuous. On a sagittal flat foot the split of the tangential force
    between its points is arbitrary (see `Context.internal_mask`), so there the foot's total
    tangential force is continuous instead."""

    term = "junction"
    where = ("junction",)

    def add_junction(self, ctx, p):
        if ctx.schedule.contact_event(p):
            return
        cur, dim = ctx.phases[p], ctx.dim
        _, _, _, f_end, prev_active = incoming(ctx, p)
        old_feet = ctx.feet_of(prev_active)
        for foot, idx in ctx.feet_of(cur.active).items():
            held = [i for i in idx if cur.active[i] in prev_active]
            if not held:
                continue
            for i in held:
                j = prev_active.index(cur.active[i])
                axes = range(1, dim) if ctx.sagittal else range(dim)
                ctx.builder.con(_term(p), cur.name,
                                ca.vertcat(*[cur.f.sym[dim * i + a, 0] - f_end[dim * j + a] for a in axes]))
            if ctx.sagittal:
                ctx.builder.con(_term(p), cur.name, sum(cur.f.sym[dim * i, 0] for i in held)
                                - sum(f_end[dim * j] for j in old_feet.get(foot, [])))


class CycleGauge(Constraint):
    """The free directions of a periodic gait pinned: base_x = 0 at the first knot (and, for a
    full 3-D cycle, base_y = 0 and base_yaw = 0), as bounds."""

    term = "periodicity"
    where = ("cycle",)

    def add_cycle(self, ctx):
        robot = ctx.robot
        first_q = ctx.phases[0].q.index[:, 0]
        pins = {"base_x": 0.0}
        if robot.base == "3d" and not ctx.half:
            pins.update(base_y=0.0, base_yaw=0.0)
        for cname, val in pins.items():
            if cname in robot.base_coordinates:
                ctx.builder.tighten(first_q[robot.index(cname)], val, val)


class Speed(Constraint):
    """Speed: stride / period = speed [m/s] (problem `speed`: fixed, or a band as two rows ≥ 0)."""

    term = "speed"
    where = ("cycle",)

    @classmethod
    def applies(cls, problem, robot):
        return problem.speed is not None

    def add_cycle(self, ctx):
        speed = ctx.problem.speed
        if speed.fixed:
            ctx.builder.con(self.term, "cycle", ctx.stride - speed.min * ctx.period)
        else:
            ctx.builder.con(self.term, "cycle", ca.vertcat(ctx.stride - speed.min * ctx.period,
                                                           speed.max * ctx.period - ctx.stride), 0.0, np.inf)
