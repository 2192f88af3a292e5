"""Contact: equations of motion with contact forces, friction, points at rest on the ground."""
from __future__ import annotations

import casadi as ca
import numpy as np

from ..rigid_points import rigid_plan, sole_rows  # noqa: F401  (sole_rows: importable from here, as before)
from .base import Constraint

FOOTHOLD_GRADE = 0.09  # [m/m] the smoothed step's slope allowed under a foothold (about 5°)


def friction_rows(ctx, fvecs, frame=None):
    """Rows (≥ 0) of one foot's contact forces (each (dim,), world components): every point's
    normal force is unilateral, and the foot's total force lies in the friction cone (a rigid
    sole slides as a whole: its static friction limit is μ times the total normal force). For
    a point foot this is the usual per-point cone. Pyramid: the inner pyramid in 3-D,
    |f_t1|, |f_t2| ≤ μ/√2 · f_n, which keeps |f_t| ≤ μ f_n; cone: μ² f_n² − |f_t|² ≥ 0.
    frame: (normal, tangent x, tangent y) of the ground at the foothold (default the plane's)."""
    terrain, cons = ctx.terrain, ctx.problem.constraints
    normal, tx, ty = frame if frame is not None else terrain.frame_at(None, 0)
    Fs = []
    for fvec in fvecs:
        F = ca.SX.zeros(3, 1)
        for j, ax in enumerate(ctx.comp):
            F[ax] = fvec[j]
        Fs.append(F)
    rows = [ca.dot(normal, F) for F in Fs]
    F = sum(Fs[1:], Fs[0])
    fn = ca.dot(normal, F)
    ft1 = ca.dot(tx, F)
    mu = cons.friction
    if cons.cone == "pyramid" or ctx.sagittal:
        mu_p = mu if ctx.sagittal else mu / np.sqrt(2.0)
        rows += [mu_p * fn - ft1, mu_p * fn + ft1]
        if not ctx.sagittal:
            ft2 = ca.dot(ty, F)
            rows += [mu_p * fn - ft2, mu_p * fn + ft2]
    else:
        ft2 = ca.dot(ty, F)
        rows += [mu ** 2 * fn ** 2 - ft1 ** 2 - ft2 ** 2]
    return ca.vertcat(*rows)


def foot_forces(ctx, fcol, active) -> list:
    """The groups of force variables (each (dim,)) that share a friction cone, with the index
    into `active` of the group's first point (where the ground's normal is taken): in the sagittal
    plane, the points of each foot (a rigid sole slides as a whole, and the split of the
    tangential force between its points is fixed by `Context.internal_mask`); in 3-D, each point
    on its own (its sole direction turns with the yaw, so no such split is fixed, and a cone on
    the foot's total alone left equal and opposite tangential forces between heel and toe free,
    found in the hundreds of newtons on a 7 kg humanoid)."""
    d = ctx.dim
    if not ctx.sagittal:
        return [([fcol[d * i:d * i + d]], i) for i in range(len(active))]
    return [([fcol[d * i:d * i + d] for i in idx], idx[0]) for idx in ctx.feet_of(active).values()]


class InverseDynamics(Constraint):
    """InverseDynamics: M(q) a + h(q, v) − Σ J_cᵀ f_c (+ reflected rotor inertia of co-designed
    gears) = B τ [N·m or N] at every dynamic collocation point (implicit dynamics)."""

    term = "inverse_dynamics"
    where = ("point",)

    def add_point(self, ctx, p, point):
        if not point.dynamic:
            return
        pv = ctx.phases[p]
        F = ctx.full_forces(point.f, pv.active)
        # the links' dynamics as the shared call, the rotor inertia beside it: the call is then
        # the same Function for every gear ratio and motor (one compiled library per robot)
        arm = ca.DM(np.asarray(ctx.dynamics.model.armature, float))
        ctx.builder.con_call(self.term, pv.name, ctx.dynamics.rigid_inverse_dynamics, [point.q, point.v, point.a, F],
                             arm * point.a + ctx.rotor_correction(point.a) - ctx.actuated_torque(point.tau))


class FrictionCone(Constraint):
    """FrictionCone: unilateral normal forces f_n ≥ 0 [N] and the force inside the friction cone
    (pyramid or exact cone, μ = constraints.friction) about the terrain normal — per foot in the
    sagittal plane, per contact point in 3-D (see `foot_forces`, `friction_rows`) — at every
    dynamic collocation point. Off a plane the normal is the surface's at the foothold."""

    term = "friction"
    where = ("point",)

    def add_point(self, ctx, p, point):
        if not point.dynamic:
            return
        pv = ctx.phases[p]
        pos = None if ctx.terrain.planar else point.contact_kinematics(ctx.dynamics)[0]
        names = ctx.contact_names
        for fvecs, i in foot_forces(ctx, point.f, pv.active):
            frame = None if pos is None else ctx.terrain.frame_at(pos, names.index(pv.active[i]))
            ctx.builder.con(self.term, pv.name, friction_rows(ctx, fvecs, frame), 0.0, np.inf)


class ContactAtRest(Constraint):
    """ContactAtRest: the velocity [m/s] of every point in contact is zero at every kinematic
    collocation point (velocity-level contact; heights are set where the stance starts, see
    `ContactGround`).

    A foot is one rigid body, so only the first of its points at rest adds all its components:
    a second adds the two perpendicular to the line joining them (the component along that line
    is implied), a third off that line only the vertical one (what turns the foot about the
    line), and a fourth on a sole's plane none (see `sole_rows`). A dependent row makes the
    constraint Jacobian rank deficient (IPOPT then needs large regularisation and takes slow,
    fragile steps). Points that stay in contact
    across a junction with continuous velocity were at rest at the previous phase's last knot,
    which equals this phase's first: their rows there are not repeated."""

    term = "contact_velocity"
    where = ("point",)

    def add_point(self, ctx, p, point):
        if not point.kinematic:
            return
        pv, sched = ctx.phases[p], ctx.schedule
        if point.progress == 0:
            impact = bool(sched.touchdowns(p)) and ctx.problem.constraints.touchdown == "impact"
            continuing = () if impact else sched.held_over(p)
            held_first = list(continuing) + [c for c in pv.active if c not in continuing]
            plan = self._plan(ctx, held_first, only=[c for c in pv.active if c not in continuing])
        else:
            plan = self._plan(ctx, pv.active)
        for entry in plan:  # one shared function per point (and reference point): gaitopt.tracing
            ref = "_".join(map(str, entry[1])) if isinstance(entry[1], tuple) else entry[1]
            fn = ctx.shared(f"contact_velocity_{entry[0]}_{ref}", (type(self), self.term, entry),
                            lambda q, v, entry=entry: self._rows(ctx, *ctx.own_contact_kinematics(), [entry]))
            if fn is not None:
                ctx.builder.con_call(self.term, pv.name, fn, [point.q, point.v], ca.SX.zeros(fn.numel_out(0)))
            else:
                pos, vel = point.contact_kinematics(ctx.dynamics)
                ctx.builder.con(self.term, pv.name, self._rows(ctx, pos, vel, [entry]))

    @staticmethod
    def _plan(ctx, points, only=None):
        """[(contact index, reference)] for the points of `only` (default: all) that add rows;
        reference: None (no earlier point of `points` on the same foot: all components), the
        index of the earlier one (two rows), or the indices of two earlier ones (the vertical
        row); earlier points count as already at rest (`sole_rows`)."""
        names, contacts = ctx.contact_names, ctx.robot.contacts
        index = [names.index(cname) for cname in points]
        rigid = rigid_plan([(contacts[ci].foot, contacts[ci].point) for ci in index])
        plan = []
        for ci, cname, (n_rows, earlier) in zip(index, points, rigid):
            before = [index[k] for k in earlier]
            if n_rows and (only is None or cname in only):
                plan.append((ci, None if not before else (before[0] if len(before) == 1 else tuple(before[:2]))))
        return plan

    @staticmethod
    def _rows(ctx, pos, vel, plan):
        rows = []
        for ci, ref in plan:
            if ref is None:
                rows.append(vel[ctx.comp, ci])
            elif isinstance(ref, tuple):  # the foot turns only about the line through the two
                rows.append(vel[2, ci])
            elif ctx.sagittal:
                rows.append(vel[2, ci])
            else:
                r = pos[:, ci] - pos[:, ref]
                contacts = ctx.robot.contacts
                length = float(np.linalg.norm(contacts[ci].point - contacts[ref].point))
                rows += [vel[2, ci], (-r[1] * vel[0, ci] + r[0] * vel[1, ci]) / length]
        return ca.vertcat(*rows) if rows else ca.SX(0, 1)


class ContactGround(Constraint):
    """ContactGround: height [m] above the terrain = 0 for every point in contact at the first
    knot of a phase where it is anchored (its stance starts there; a sole's fourth corner only
    on a height map, elsewhere its plane holds it); on steps a foothold keeps off
    the edges (term foothold_grade, see `_flat_footholds`) and a foot's points on one tread
    (term foothold_tread, `_one_tread`). Imposing positions at every
    knot as well as velocities over-constrains the integration and stalls IPOPT; the foothold
    drift this leaves is second order in h (tested)."""

    term = "contact_ground"
    where = ("point",)

    def add_point(self, ctx, p, point):
        if not point.kinematic or point.progress != 0:
            return
        pv = ctx.phases[p]
        anchored = ctx.schedule.anchored(p)
        pos, _ = point.contact_kinematics(ctx.dynamics)
        names, contacts = ctx.contact_names, ctx.robot.contacts
        # on a height map the ground under a sole is curved: three corners on it do not put the
        # fourth there (a trial's sole rested a corner 1.1 mm inside the map), so every corner
        # gets its height; on a plane, a stair's tread or a constant map it is implied (a dependent row)
        surface = ctx.terrain.surface
        curved = getattr(surface, "kind", "") == "height_map" and np.ptp(surface.grid) > 0.0
        # points whose height is already set come first (held over), then those anchored here;
        # three points off one line set a sole's plane
        order = [c for c in pv.active if c not in anchored] + [c for c in pv.active if c in anchored]
        index = [names.index(cname) for cname in order]
        plan = rigid_plan([(contacts[ci].foot, contacts[ci].point) for ci in index])
        for cname, ci, (independent, _) in zip(order, index, plan):
            if cname in anchored and (independent or curved):
                ctx.builder.con(self.term, pv.name, ctx.terrain.height(pos, ci))
        self._flat_footholds(ctx, p, pos, [c for c in pv.active if c in anchored])
        self._one_tread(ctx, p, pos, pv.active, anchored)

    @staticmethod
    def _flat_footholds(ctx, p, pos, points):
        """On steps: a foothold's smoothed-surface slope |∂h/∂x| ≤ FOOTHOLD_GRADE, and that of the
        swing-clearance envelope too, which keeps it on a tread: ≥ about 2.2 smoothing widths from
        an edge (not on the smoothed riser) and ≥ about 5.2 widths before an up edge (so that its
        next swing starts on, not under, the envelope: clearance fades from the lift-off height,
        and from under the envelope it would let the foot through the riser)."""
        surface = ctx.terrain.surface
        if getattr(surface, "kind", "") != "steps":
            return
        names = ctx.contact_names
        for cname in points:
            ci = names.index(cname)
            hx, _ = surface.gradient(pos[0, ci], pos[1, ci])
            rows = ca.vertcat(hx, surface.envelope_slope(pos[0, ci]))
            ctx.builder.con("foothold_grade", ctx.phases[p].name, rows, -FOOTHOLD_GRADE, FOOTHOLD_GRADE)

    @staticmethod
    def _one_tread(ctx, p, pos, active, anchored):
        """On steps: each point of a foot lies on the tread of the foot's first point in contact
        where either one's stance starts, |h(x_i) − h(x_first)| ≤ ½ the smallest |rise| [m] (smoothed
        heights). Every point on a flat tread and on the ground is not enough: a 0.22 m sole on a
        0.2 m run stood with its heel on one tread and its toe on the next, through the nose."""
        surface = ctx.terrain.surface
        if getattr(surface, "kind", "") != "steps":
            return
        names, contacts = ctx.contact_names, ctx.robot.contacts
        half = 0.5 * float(np.min(np.abs(surface.rises[surface.rises != 0.0]), initial=np.inf))
        first = {}
        rows = []
        for cname in active:
            ci = names.index(cname)
            ref = first.setdefault(contacts[ci].foot, ci)
            if ref != ci and (cname in anchored or names[ref] in anchored):  # either end's stance starts here
                rows.append(surface.height(pos[0, ci], pos[1, ci]) - surface.height(pos[0, ref], pos[1, ref]))
        if rows and np.isfinite(half):
            ctx.builder.con("foothold_tread", ctx.phases[p].name, ca.vertcat(*rows), -half, half)
