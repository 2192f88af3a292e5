"""Multi-phase direct collocation of a periodic gait into one sparse NLP.

Per phase p with K intervals (K+1 knots, phases do not share knots): q, v and τ (actuated
joints) at the knots; accelerations a and contact forces f (only for the points in contact;
2 components in the sagittal plane: x, z; 3 in 3-D) per interval for the trapezoidal rule, or
at the knots and, with every other variable, at the interval midpoints for Hermite–Simpson
(see gaitopt.collocation). Dynamics are implicit inverse dynamics ID(q, v, a, f) = Bτ. Phases
are joined by continuity of q and of v (or the impact map at a touchdown), and of τ and
contact forces where no point touches down or lifts off; the last
phase is joined to the first one of the next cycle (mirrored for half cycles) with the base
shifted by the stride.

Every constraint row belongs to a named term and a phase (`rows`), so violations can be
reported per term and phase. The solver never sees this module's objects beyond the NLP dict.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from .collocation import METHODS
from .codegen import compiled
from .dynamics import GRAVITY, SymbolicDynamics
from .errors import InputError
from .schedule import Schedule, active_points
from . import actuation as A
from . import terms as T


@dataclass
class Block:
    """A named block of decision variables: SX matrix `sym` at offsets `index` (same shape)."""

    sym: ca.SX
    index: np.ndarray


@dataclass
class PhaseVars:
    """Variables of one phase (matrices are dimension × knots)."""

    q: Block
    v: Block
    a: Block
    tau: Block
    f: Block  # (dim·n_active) × knots
    mid: dict | None  # q, v, a, tau, f at the K midpoints (Hermite–Simpson)
    duration: ca.SX
    active: tuple
    # trapezoidal: the state (q, v) at each interval's midpoint, as variables tied to the knots
    # by linear rows. As expressions of both knots' states they would make every dynamics
    # Hessian block four times larger.
    mid_state: dict | None = None

    def interval_point(self, k: int):
        """Trapezoidal: (q, v, a, τ, f) where interval k's equations of motion hold — the
        midpoint state, the interval's a and f, the mean of its end torques."""
        tau = 0.5 * (self.tau.sym[:, k] + self.tau.sym[:, k + 1])
        return (self.mid_state["q"].sym[:, k], self.mid_state["v"].sym[:, k], self.a.sym[:, k], tau,
                self.f.sym[:, k])


@dataclass
class Transcription:
    """The NLP of a problem and how to read its solution vector.

    nlp: {"x", "f", "g"} SX; lbx, ubx, lbg, ubg, x0 numpy arrays; rows: list of
    (term, phase name, start, stop) over g; bound_rows: list of (term, phase, index array into x);
    cost_terms: name → SX (weighted) of the cost; layout: per phase PhaseVars.
    """

    problem: object
    robot: object
    schedule: Schedule
    dynamics: SymbolicDynamics
    method: object
    force_dim: int
    nlp: dict
    lbx: np.ndarray
    ubx: np.ndarray
    lbg: np.ndarray
    ubg: np.ndarray
    rows: list
    bound_rows: list
    cost_terms: dict
    phases: list
    globals: dict = field(default_factory=dict)
    impulses: dict = field(default_factory=dict)
    slacks: dict = field(default_factory=dict)

    @property
    def n_variables(self) -> int:
        return int(self.nlp["x"].numel())

    @property
    def n_constraints(self) -> int:
        return int(self.nlp["g"].numel())

    def values(self, x: np.ndarray, block: Block) -> np.ndarray:
        return np.asarray(x)[block.index]

    def variable_scale(self, x0: np.ndarray, floor: float = 1.0) -> np.ndarray:
        """Nominal magnitude of every decision variable (n,), in its own SI unit.

        Each row of a phase's q, v, a, τ and f matrices (one coordinate, one force component
        over the phase's knots), each impulse and each power slack is scaled by its largest
        magnitude in x0, at least `floor`. Accelerations (10²) and forces (10²–10³) otherwise
        sit next to angles (10⁰) and durations (10⁻¹) in one KKT system: IPOPT then needs
        large Hessian regularisation and creeps (measured: heel–toe walk at 2× knots 1000+
        iterations unscaled, 72 scaled).
        """
        x0 = np.abs(np.asarray(x0, float))
        scale = np.ones_like(x0)

        def rows(index):
            index = np.asarray(index)
            for row in index.reshape(index.shape[0], -1):
                if row.size:
                    scale[row] = max(float(x0[row].max()), floor)

        for pv in self.phases:
            blocks = [pv.q, pv.v, pv.a, pv.tau, pv.f] + (list(pv.mid.values()) if pv.mid else []) \
                + (list(pv.mid_state.values()) if pv.mid_state else [])
            for blk in blocks:
                rows(blk.index)
        for blk in self.impulses.values():
            rows(blk.index)
        for pair in self.slacks.values():
            for blk in pair:
                rows(np.asarray(blk.index).reshape(1, -1))
        return scale


class _Builder:
    def __init__(self):
        self.syms, self.lb, self.ub = [], [], []
        self.n = 0
        self.g, self.lbg, self.ubg, self.rows = [], [], [], []
        self.ng = 0
        self.bound_rows = []

    def var(self, name: str, shape, lb=-np.inf, ub=np.inf) -> Block:
        rows, cols = shape
        sym = ca.SX.sym(name, rows, cols)
        size = rows * cols
        idx = np.arange(self.n, self.n + size).reshape((cols, rows)).T  # column-major like casadi
        self.syms.append(ca.vec(sym))
        self.lb.append(np.broadcast_to(np.asarray(lb, float), (rows, cols)).T.ravel().copy())
        self.ub.append(np.broadcast_to(np.asarray(ub, float), (rows, cols)).T.ravel().copy())
        self.n += size
        return Block(sym, idx)

    def bound(self, term: str, phase: str, index: np.ndarray) -> None:
        self.bound_rows.append((term, phase, np.asarray(index).ravel()))

    def set_bounds(self, index, lb=None, ub=None) -> None:
        lbs, ubs = np.concatenate(self.lb), np.concatenate(self.ub)
        index = np.asarray(index).ravel()
        if lb is not None:
            lbs[index] = np.maximum(lbs[index], lb)
        if ub is not None:
            ubs[index] = np.minimum(ubs[index], ub)
        self.lb, self.ub = [lbs], [ubs]

    def con(self, term: str, phase: str, expr, lb=0.0, ub=0.0) -> None:
        expr = ca.vec(ca.SX(expr)) if not isinstance(expr, ca.SX) else ca.vec(expr)
        m = expr.numel()
        if m == 0:
            return
        self.g.append(expr)
        self.lbg.append(np.broadcast_to(np.asarray(lb, float), (m,)).copy())
        self.ubg.append(np.broadcast_to(np.asarray(ub, float), (m,)).copy())
        self.rows.append((term, phase, self.ng, self.ng + m))
        self.ng += m


def _foothold_targets(robot, footholds: dict, source) -> dict:
    """Foot → (x[, y]) target of its touchdown point relative to the base origin: the given
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
        targets = [(foot, np.array(xy))]
        partner = robot.mirror.foot_pairs.get(foot) if robot.mirror is not None else None
        if partner is not None and partner not in footholds:
            targets.append((partner, np.array(xy) * ([1.0] if dims == 1 else [1.0, -1.0])))
        for f, target in targets:
            out[f] = target
    return out


def lift_off_fade(x):
    """Weight (1 at x = 0, 0 at x = 1, zero slope at both) of a lifted point's height at
    lift-off in its clearance rows, x ∈ [0, 1] the fraction of the phase's knots: the smoothstep
    1 − 3x² + 2x³. Its zero slope at lift-off asks no jump in the point's velocity."""
    return 1.0 - 3.0 * x ** 2 + 2.0 * x ** 3


def _terrain(slope: float):
    """Ground height z = x·tan(slope); unit normal and tangents of the slope plane."""
    s, c = np.sin(slope), np.cos(slope)
    normal = np.array([-s, 0.0, c])
    t1 = np.array([c, 0.0, s])
    t2 = np.array([0.0, 1.0, 0.0])
    return np.tan(slope), normal, t1, t2


def transcribe(problem, robot, dynamics: SymbolicDynamics | None = None) -> Transcription:
    """Build the NLP of `problem` on `robot` (a gaitopt.robot.Robot)."""
    if dynamics is None:
        dynamics = SymbolicDynamics.of_robot(robot, compiler=compiled if problem.solver.codegen else None)
    dyn = dynamics
    sched = Schedule(robot, problem)
    method = METHODS[problem.transcription]
    cons = problem.constraints
    B = _Builder()
    nv, nu = robot.nv, len(robot.actuated)
    sagittal = robot.base == "sagittal"
    dim = 2 if sagittal else 3
    comp = [0, 2] if sagittal else [0, 1, 2]  # world components carried by force variables
    contact_names = [c.name for c in robot.contacts]
    tan_slope, normal, tangent_x, tangent_y = _terrain(problem.slope)
    act = robot.actuated_index
    actuators = [robot.actuators[j] for j in robot.actuated]
    half = problem.cycle == "half"

    # ---- bounds of q, v, tau
    q_lb, q_ub = np.full(nv, -np.inf), np.full(nv, np.inf)
    nb = len(robot.base_coordinates)
    if cons.joint_limits:
        q_lb[nb:], q_ub[nb:] = robot.lower[nb:], robot.upper[nb:]
    for c in ("base_pitch", "base_roll"):
        if c in robot.base_coordinates:
            i = robot.index(c)
            q_lb[i], q_ub[i] = -cons.base_pitch_limit, cons.base_pitch_limit
    if "base_z" in robot.base_coordinates:
        q_lb[robot.index("base_z")] = -10.0 if problem.slope != 0 else 0.0
    v_lb, v_ub = np.full(nv, -np.inf), np.full(nv, np.inf)
    if cons.velocity_limits:
        vl = robot.velocity_limit.copy()
        vl[:nb] = np.inf
        v_lb, v_ub = -vl, vl
    u_lim = np.full(nu, np.inf)
    if cons.effort_limits:
        u_lim = np.minimum(u_lim, robot.effort_limit[act])
    if cons.current_limit:
        u_lim = np.minimum(u_lim, [a.torque_limit for a in actuators])
    u_lim = np.where(u_lim > 0, u_lim, np.inf)  # a zero URDF effort means "not given"

    # ---- global variables
    glob = {}
    if problem.stride is not None and problem.stride.fixed:
        stride = ca.SX(problem.stride.min)
    else:
        lo, hi = (problem.stride.min, problem.stride.max) if problem.stride else (1e-3, 10.0)
        glob["stride"] = B.var("stride", (1, 1), lo, hi)
        stride = glob["stride"].sym
    gears = A.gear_ratios(problem, robot, B, glob)  # numbers, or co-design variables
    arm = np.asarray(robot.model.armature, float)

    def rotor_correction(acc):
        """Reflected rotor inertia of co-designed gears: the model holds G₀²·J_rotor of the
        actuator's own gear; a gear variable G needs (G² − G₀²)·J_rotor·acc more (nv,)."""
        out = ca.SX.zeros(nv, 1)
        for i, ia in enumerate(act):
            g0 = actuators[i].gear_ratio
            if arm[ia] != 0.0 and not isinstance(gears[i], (int, float)):
                out[ia] = (gears[i] ** 2 - g0 ** 2) * actuators[i].rotor_inertia * acc[ia]
        return out
    u_lim = A.free_torque_bounds(problem, robot, u_lim)
    part = 0.5 if half else 1.0  # fraction of the cycle that is optimised
    distance = part * stride     # base advance over the optimised part [m]

    def feet_of(active):
        """foot → indices into `active` of its points in contact (robot.contacts order)."""
        groups = {}
        for i, cname in enumerate(active):
            groups.setdefault(robot.contacts[contact_names.index(cname)].foot, []).append(i)
        return groups

    def internal_rows(active):
        """Mask over the force variables (dim·len(active)) fixed at zero: for two points of one
        flat foot in the sagittal plane, the second point's tangential (x) component. Equal and
        opposite forces along the sole do no work and change no equation of motion; left free,
        that internal force is a direction of zero curvature that only the friction barrier
        bounds, which made IPOPT crawl on fine grids. Friction is imposed on the foot's total
        force, so no feasible motion is lost. (3-D feet keep both points' full forces: there the
        sole direction depends on the yaw.)"""
        mask = np.zeros(dim * len(active), bool)
        if sagittal:
            for idx in feet_of(active).values():
                for i in idx[1:]:
                    mask[dim * i] = True
        return mask

    # ---- per phase variables
    phases: list[PhaseVars] = []
    for ps, ph in zip(sched.phases, problem.phases):
        K = ps.knots
        na = len(ps.active)
        if ph.duration.fixed:
            Tp = ca.SX(ph.duration.min)
        else:
            blk = B.var(f"T_{ps.name}", (1, 1), ph.duration.min, ph.duration.max)
            glob[f"T_{ps.name}"] = blk
            Tp = blk.sym
        qb = B.var(f"q_{ps.name}", (nv, K + 1), q_lb[:, None], q_ub[:, None])
        vb = B.var(f"v_{ps.name}", (nv, K + 1), v_lb[:, None], v_ub[:, None])
        n_in = K if method.interval_inputs else K + 1  # a and f per interval, or per knot
        ab = B.var(f"a_{ps.name}", (nv, n_in))
        ub_ = B.var(f"tau_{ps.name}", (nu, K + 1), -u_lim[:, None], u_lim[:, None])
        internal = internal_rows(ps.active)[:, None]
        f_lb, f_ub = np.where(internal, 0.0, -np.inf), np.where(internal, 0.0, np.inf)
        fb = B.var(f"f_{ps.name}", (dim * na, n_in), f_lb, f_ub)
        for name_, blk in (("joint_limits", qb), ("velocity_limits", vb)):
            B.bound(name_, ps.name, blk.index[nb:, :] if name_ == "joint_limits" else blk.index)
        B.bound("torque_limits", ps.name, ub_.index)
        mid = None
        if method.has_midpoints:
            mid = {
                "q": B.var(f"qm_{ps.name}", (nv, K), q_lb[:, None], q_ub[:, None]),
                "v": B.var(f"vm_{ps.name}", (nv, K), v_lb[:, None], v_ub[:, None]),
                "a": B.var(f"am_{ps.name}", (nv, K)),
                "tau": B.var(f"taum_{ps.name}", (nu, K), -u_lim[:, None], u_lim[:, None]),
                "f": B.var(f"fm_{ps.name}", (dim * na, K), f_lb, f_ub),
            }
            B.bound("torque_limits", ps.name, mid["tau"].index)
        mid_state = None
        if method.interval_inputs:
            mid_state = {"q": B.var(f"qs_{ps.name}", (nv, K), q_lb[:, None], q_ub[:, None]),
                         "v": B.var(f"vs_{ps.name}", (nv, K), v_lb[:, None], v_ub[:, None])}
        phases.append(PhaseVars(qb, vb, ab, ub_, fb, mid, Tp, ps.active, mid_state))

    period = sum(p.duration for p in phases) / part  # full cycle duration [s]

    # ---- pin the free directions of a periodic gait
    first_q = phases[0].q.index[:, 0]
    pins = {"base_x": 0.0}
    if robot.base == "3d" and not half:
        pins.update(base_y=0.0, base_yaw=0.0)
    for cname, val in pins.items():
        if cname in robot.base_coordinates:
            B.set_bounds(first_q[robot.index(cname)], val, val)

    def full_forces(fcol, active):
        """World forces (3·nc) of all contact points from the active ones' variables."""
        out = [ca.SX.zeros(3, 1) for _ in contact_names]
        for i, cname in enumerate(active):
            vec = ca.SX.zeros(3, 1)
            for j, ax in enumerate(comp):
                vec[ax] = fcol[dim * i + j]
            out[contact_names.index(cname)] = vec
        return ca.vertcat(*out)

    def contact_rows(pos, vel, plan):
        """Independent rows of 'these contact points are at rest' (velocity (3, nc) world).

        A point whose foot already has a point at rest in `plan` (heel and toe of a flat foot:
        one rigid body) only adds the components perpendicular to the line joining them: the
        component along that line is implied, and a dependent row makes the constraint
        Jacobian rank deficient, which IPOPT answers with huge regularisation and slow,
        fragile steps."""
        rows = []
        for ci, ref in plan:
            if ref is None:
                rows.append(vel[comp, ci])
            elif sagittal:
                rows.append(vel[2, ci])
            else:
                r = pos[:, ci] - pos[:, ref]
                length = foot_spans[(ci, ref)]
                rows += [vel[2, ci], (-r[1] * vel[0, ci] + r[0] * vel[1, ci]) / length]
        return ca.vertcat(*rows) if rows else ca.SX(0, 1)

    def rest_plan(points, only=None):
        """[(contact index, index of an earlier point of `points` on the same foot, or None)]
        for the points of `only` (default: all); earlier points count as already at rest."""
        plan, first = [], {}
        for cname in points:
            ci = contact_names.index(cname)
            foot = robot.contacts[ci].foot
            if only is None or cname in only:
                plan.append((ci, first.get(foot)))
            first.setdefault(foot, ci)
        return plan

    foot_spans = {}
    for foot in robot.feet.values():
        pts = [contact_names.index(c) for c in foot.contacts]
        for i in pts:
            for j in pts:
                if i != j:
                    foot_spans[(i, j)] = float(np.linalg.norm(robot.contacts[i].point - robot.contacts[j].point))

    def friction_rows(fvecs):
        """Rows (≥ 0) of one foot's contact forces (each (dim,), world components): every point's
        normal force is unilateral, and the foot's total force lies in the friction cone (a
        rigid sole slides as a whole: its static friction limit is μ times the total normal
        force). For a point foot this is the usual per-point cone."""
        Fs = []
        for fvec in fvecs:
            F = ca.SX.zeros(3, 1)
            for j, ax in enumerate(comp):
                F[ax] = fvec[j]
            Fs.append(F)
        rows = [ca.dot(ca.DM(normal), F) for F in Fs]
        F = sum(Fs[1:], Fs[0])
        fn = ca.dot(ca.DM(normal), F)
        ft1 = ca.dot(ca.DM(tangent_x), F)
        mu = cons.friction
        if cons.cone == "pyramid" or sagittal:
            # inner pyramid in 3-D: |f_t1|, |f_t2| ≤ μ/√2 · f_n keeps |f_t| ≤ μ f_n
            mu_p = mu if sagittal else mu / np.sqrt(2.0)
            rows += [mu_p * fn - ft1, mu_p * fn + ft1]
            if not sagittal:
                ft2 = ca.dot(ca.DM(tangent_y), F)
                rows += [mu_p * fn - ft2, mu_p * fn + ft2]
        else:
            ft2 = ca.dot(ca.DM(tangent_y), F)
            rows += [mu ** 2 * fn ** 2 - ft1 ** 2 - ft2 ** 2]
        return ca.vertcat(*rows)

    # ---- contact events at the start of each phase
    impact_at = [bool(sched.touchdowns(p)) and cons.touchdown == "impact" for p in range(len(phases))]
    held_over = [sched.held_over(p) for p in range(len(phases))]
    any_event = any(sched.contact_event(p) for p in range(len(phases)))

    # ---- posture: base height, footholds relative to the base at touchdown
    if cons.base_height is not None and "base_z" not in robot.base_coordinates:
        raise InputError("needs a floating base (sagittal or 3d)", file=problem.source,
                         field="constraints.base_height")
    foothold_at = _foothold_targets(robot, cons.footholds or {}, problem.source)

    def height(pos, ci):
        """Height [m] of contact point ci above the terrain (pos: (3, nc) world positions)."""
        return pos[2, ci] - tan_slope * pos[0, ci]

    def posture_rows(phase, q):
        if cons.base_height is not None:
            z_base = q[robot.index("base_z")] - tan_slope * q[robot.index("base_x")]
            B.con("base_height", phase, z_base, cons.base_height.min, cons.base_height.max)

    # ---- path constraints at knots (and midpoints)
    for p, (ps, pv) in enumerate(zip(sched.phases, phases)):
        K = ps.knots
        h = pv.duration / K
        # Collocation points (q, v, a, tau, f, knot-progress k, kinematic, dynamic): kinematic
        # points carry the state's constraints (contact, clearance, limits, actuator envelope),
        # dynamic ones the equations of motion and friction. Hermite–Simpson: knots and
        # midpoints are both. Trapezoidal: the knots are kinematic (a and f live on intervals),
        # each interval's midpoint is dynamic, with the mean of its end torques.
        points = []
        if method.interval_inputs:
            for k in range(K + 1):
                points.append((pv.q.sym[:, k], pv.v.sym[:, k], None, pv.tau.sym[:, k], None, k, True, False))
            for k in range(K):
                qm, vm, am, taum, fm = pv.interval_point(k)
                q_def, v_def = method.midpoint(pv.q.sym[:, k], pv.v.sym[:, k], pv.q.sym[:, k + 1], pv.v.sym[:, k + 1])
                B.con("collocation", ps.name, ca.vertcat(qm - q_def, vm - v_def))
                points.append((qm, vm, am, taum, fm, k + 0.5, False, True))
        else:
            for k in range(K + 1):
                points.append((pv.q.sym[:, k], pv.v.sym[:, k], pv.a.sym[:, k], pv.tau.sym[:, k], pv.f.sym[:, k], k,
                               True, True))
            m = pv.mid
            for k in range(K):
                points.append((m["q"].sym[:, k], m["v"].sym[:, k], m["a"].sym[:, k], m["tau"].sym[:, k],
                               m["f"].sym[:, k], k + 0.5, True, True))
        # collocation defects
        for k in range(K):
            q0, v0, q1, v1 = pv.q.sym[:, k], pv.v.sym[:, k], pv.q.sym[:, k + 1], pv.v.sym[:, k + 1]
            if method.interval_inputs:
                defects = method.defects(h, q0, v0, q1, v1, pv.a.sym[:, k])
            else:
                mid = (pv.mid["q"].sym[:, k], pv.mid["v"].sym[:, k], pv.mid["a"].sym[:, k])
                defects = method.defects(h, q0, v0, pv.a.sym[:, k], q1, v1, pv.a.sym[:, k + 1], mid)
            for d in defects:
                B.con("collocation", ps.name, d)
        if not method.interval_inputs:
            # Simpson's v-defect sees a_k + 4 a_m + a_k+1 and the v_m defect a_k − a_k+1: shifting
            # every knot a by c and every midpoint a by −c/2 (the Legendre P₂ part of each
            # interval's quadratic a, which integrates to nothing in v and q) changes no defect,
            # and contact forces balance it in the equations of motion. One row per phase fixes
            # that free vector: a is linear over the phase's first interval. A junction without
            # a contact event keeps q, v and the forces continuous, so the phases on both sides
            # share one such vector; a second row there made the constraints dependent (a zero
            # singular value; IPOPT stopped on a singular KKT system with METIS ordering).
            if sched.contact_event(p) or (p == 0 and not any_event):
                B.con("collocation", ps.name, pv.mid["a"].sym[:, 0] - 0.5 * (pv.a.sym[:, 0] + pv.a.sym[:, 1]))
        anchored = sched.anchored(p)
        # Points that stay in contact across a junction with continuous velocity were at rest
        # at the previous phase's last knot, which equals this phase's first: repeating those
        # rows would only add dependent constraints.
        continuing = () if impact_at[p] else held_over[p]
        plan_all = rest_plan(ps.active)
        held_first = list(continuing) + [c for c in ps.active if c not in continuing]
        plan_first = rest_plan(held_first, only=[c for c in ps.active if c not in continuing])
        # the first point of each foot that lands at this phase's start (the heel in a heel strike)
        landing = {}
        for cname in sched.touchdowns(p):
            landing.setdefault(robot.contact(cname).foot, contact_names.index(cname))
        just_lifted = sched.liftoffs(p)
        next_active = active_points(robot, sched.expanded[(p + 1) % len(sched.expanded)][0])
        for (q, v, a, tau, fcol, k, kinematic, dynamic) in points:
            if dynamic:
                F = full_forces(fcol, ps.active)
                tau_full = dyn.inverse_dynamics(q, v, a, F) + rotor_correction(a)
                Bu = ca.SX.zeros(nv, 1)
                for i, ia in enumerate(act):
                    Bu[ia] = tau[i]
                B.con("inverse_dynamics", ps.name, tau_full - Bu)
                for idx in feet_of(ps.active).values():
                    B.con("friction", ps.name, friction_rows([fcol[dim * i:dim * i + dim] for i in idx]), 0.0, np.inf)
            if not kinematic:
                continue
            pos, vel, _ = dyn.contact_kinematics(q, v, a if a is not None else ca.SX.zeros(nv, 1))
            posture_rows(ps.name, q)
            if k == 0:
                for foot, ci in landing.items():
                    if foot in foothold_at:
                        target = foothold_at[foot]
                        base = [q[robot.index(c)] for c in ("base_x", "base_y")[:len(target)]]
                        rel = ca.vertcat(*[pos[ax, ci] - base[ax] for ax in range(len(target))])
                        B.con("foothold", ps.name, rel - ca.DM(target))
            # Velocity-level contact at every kinematic point plus the ground height where the
            # stance starts: imposing positions at every knot as well over-constrains the
            # integration and stalls IPOPT; the foothold drift this leaves is measured by the
            # tests (1.2 mm on the heel–toe walk at 1×, 0.10 mm at 4×: about second order).
            B.con("contact_velocity", ps.name, contact_rows(pos, vel, plan_first if k == 0 else plan_all))
            for i, cname in enumerate(ps.active):
                ci = contact_names.index(cname)
                if cname in anchored and k == 0:
                    B.con("contact_ground", ps.name, height(pos, ci))
            if k == 0:
                # Clearance of the points that lift off here starts from where the stance left
                # them and fades to the ground over the phase (lift_off_fade). Contact is at
                # rest at the knots only, so a stance leaves its points off the ground by its
                # drift (tested; the trapezoidal heel–toe walk's flat foot sinks 42, 12, 3 µm
                # at knots × 4, 8, 16). Measured from the ground at once, the first interval
                # after lift-off must make that up: an acceleration that does not shrink with h
                # (drift ∝ h² over one interval h). That pulse saturated the torques at each
                # toe-off and held the trapezoidal optimum 6–10 % above the Hermite–Simpson
                # one at every grid (measured).
                lift_off = {c: height(pos, contact_names.index(c)) for c in just_lifted}
            fade = lift_off_fade(k / K)
            swing = sched.swing_progress(p, k)
            # Heights already set by a stance: at a phase's first knot for a point that was in
            # contact just before (its height is where the stance left it) and at its last knot
            # for a point in contact at the next phase's start (the ground, through q
            # continuity). "≥ 0" there only restates the stance, nearly or exactly dependent on
            # its rows; kept, it made IPOPT's multipliers grow to 1e13 (heel–toe walk, 2× knots).
            at_rest = set(just_lifted) if k == 0 else (set(next_active) if k == K else set())
            for foot, s in swing.items():
                lift = 16.0 * cons.clearance * s ** 2 * (1 - s) ** 2
                for cname in robot.feet[foot].contacts:
                    if cname in at_rest:
                        continue
                    ci = contact_names.index(cname)
                    B.con("swing_clearance", ps.name, height(pos, ci) - fade * lift_off.get(cname, 0.0), lift, np.inf)
            for foot, mode in ps.modes.items():
                if mode in ("heel", "toe"):
                    other = f"{foot}_toe" if mode == "heel" else f"{foot}_heel"
                    if other in at_rest:
                        continue
                    ci = contact_names.index(other)
                    B.con("roll_clearance", ps.name, height(pos, ci) - fade * lift_off.get(other, 0.0), 0.0, np.inf)
            qd = v[act]
            if cons.torque_speed:
                for i, actr in enumerate(actuators):
                    # motor voltage R·i + K·ω_m within ±V, with i = τ/(η·G·K) and ω_m = G·ω
                    volt = A.motor_voltage(actr, tau[i], qd[i], gears[i])
                    B.con("torque_speed", ps.name, volt / actr.voltage, -1.0, 1.0)
            if cons.current_limit:
                for d in problem.design:
                    for j in d.joints:
                        i = robot.actuated.index(j)
                        B.con("current_limit", ps.name,
                              A.current_limit_rows(actuators[i], tau[i], gears[i], d.bounds.guess), 0.0, np.inf)
            if cons.power_limit:
                for i, actr in enumerate(actuators):
                    if np.isfinite(actr.rated_power):
                        B.con("power_limit", ps.name, tau[i] * qd[i] / actr.rated_power, -1.0, 1.0)
        if cons.torque_rate is not None:
            for k in range(K):
                tau0, tau1 = pv.tau.sym[:, k], pv.tau.sym[:, k + 1]
                if method.has_midpoints:
                    # τ quadratic: dτ/dt is linear on the interval, largest at an end; h·dτ/dt
                    # there from τ_k, τ_m, τ_k+1 (bounding τ_k+1 − τ_k alone left the midpoint free)
                    start, change = method.quadratic_rate(tau0, pv.mid["tau"].sym[:, k], tau1)
                    ends = [start, start + change]
                else:
                    ends = [tau1 - tau0]
                for du in ends:
                    B.con("torque_rate", ps.name, ca.vertcat(du - cons.torque_rate * h, -du - cons.torque_rate * h),
                          -np.inf, 0.0)

    # ---- junctions between phases and the cycle wrap
    mirror = robot.mirror
    shift = np.zeros(nv)
    shift[robot.index("base_x")] = 1.0 if "base_x" in robot.base_coordinates else 0.0
    shift_z = np.zeros(nv)
    if "base_z" in robot.base_coordinates:
        shift_z[robot.index("base_z")] = tan_slope
    impulses = {}
    for p in range(len(phases)):
        prev = phases[p - 1]
        cur = phases[p]
        name = sched.phases[p].name
        wrap = p == 0
        term = "periodicity" if wrap else "junction"
        q_end, v_end, u_end = prev.q.sym[:, -1], prev.v.sym[:, -1], prev.tau.sym[:, -1]
        f_end = prev.f.sym[:, -1]
        prev_active = prev.active
        if wrap:
            # the state after the last knot, seen at the start of the next (mirrored) cycle part
            if half:
                q_end = ca.DM(mirror.sign) * q_end[mirror.perm.tolist()]
                v_end = ca.DM(mirror.sign) * v_end[mirror.perm.tolist()]
                u_end = _mirror_tau(u_end, robot)
                f_end, prev_active = _mirror_forces(f_end, prev_active, robot, dim, comp)
            q_end = q_end - ca.DM(shift) * distance - ca.DM(shift_z) * distance
        B.con(term, name, cur.q.sym[:, 0] - q_end)
        # Torques and the forces of points that stay in contact are continuous where the contact
        # set does not change. At a touchdown or lift-off the rigid model lets them jump: the
        # admissible torques change in an instant (load moves to the new contact). Imposing
        # continuity there cost 12 % on the static walk and forced one-interval ramps whose
        # slope grew as 1/h, which made the cost converge at first order (measured).
        event = sched.contact_event(p)
        if not event or cons.torque_rate is not None:  # a bounded torque rate allows no jump
            B.con(term, name, cur.tau.sym[:, 0] - u_end)
        elif method.interval_inputs:
            # Trapezoidal knot torques enter the equations of motion only as interval means, so
            # alternating them knot to knot changes nothing but the cost; with no continuity row
            # to fix that mode, τ is linear over the phase's first two intervals (a second-order
            # consistent condition, like a spline's not-a-knot end).
            tt = cur.tau.sym
            B.con("collocation", name, tt[:, 0] - 2 * tt[:, 1] + tt[:, 2] if tt.shape[1] > 2 else tt[:, 0] - tt[:, 1])
        td = sched.touchdowns(p)
        if td and cons.touchdown == "impact":
            # inelastic impact: M (v+ − v−) = Jᵀ Λ over the points in contact after touchdown
            na = len(cur.active)
            mask = internal_rows(cur.active)[:, None]
            lam = B.var(f"impulse_{name}", (dim * na, 1), np.where(mask, 0.0, -np.inf), np.where(mask, 0.0, np.inf))
            impulses[name] = lam
            q0 = cur.q.sym[:, 0]
            Mq = dyn.mass_matrix(q0)
            Jfull = dyn.contact_jacobian(q0)
            JT = ca.SX.zeros(nv, 1)
            for i, cname in enumerate(cur.active):
                ci = contact_names.index(cname)
                for j, ax in enumerate(comp):
                    JT += Jfull[3 * ci + ax, :].T * lam.sym[dim * i + j]
            dv = cur.v.sym[:, 0] - v_end
            B.con("impact", name, Mq @ dv + rotor_correction(dv) - JT)
            for idx in feet_of(cur.active).values():
                B.con("impact_friction", name, friction_rows([lam.sym[dim * i:dim * i + dim] for i in idx]),
                      0.0, np.inf)
        else:
            # Continuous velocity; at a soft touchdown the touching points then arrive at rest
            # through this phase's first-knot contact rows (no separate rows: they would repeat).
            B.con(term, name, cur.v.sym[:, 0] - v_end)
        # Without a contact event, forces of points in contact are continuous (trapezoidal: the
        # intervals on both sides of the junction carry the same force). On a sagittal flat
        # foot the split of the tangential force between its points is arbitrary
        # (internal_rows), so there the foot's total tangential force is continuous instead.
        if not event:
            old_feet = feet_of(prev_active)
            for foot, idx in feet_of(cur.active).items():
                held = [i for i in idx if cur.active[i] in prev_active]
                if not held:
                    continue
                for i in held:
                    j = prev_active.index(cur.active[i])
                    axes = range(1, dim) if sagittal else range(dim)
                    B.con(term, name, ca.vertcat(*[cur.f.sym[dim * i + a, 0] - f_end[dim * j + a] for a in axes]))
                if sagittal:
                    B.con(term, name, sum(cur.f.sym[dim * i, 0] for i in held)
                          - sum(f_end[dim * j] for j in old_feet.get(foot, [])))

    # ---- speed
    if problem.speed is not None:
        if problem.speed.fixed:
            B.con("speed", "cycle", stride - problem.speed.min * period)
        else:
            B.con("speed", "cycle", ca.vertcat(stride - problem.speed.min * period,
                                                problem.speed.max * period - stride), 0.0, np.inf)

    # ---- cost
    ctx = T.CostContext(robot=robot, phases=phases, schedule=sched, method=method, distance=distance,
                        duration=sum(p.duration for p in phases), dim=dim, comp=comp, dynamics=dyn,
                        builder=B, contact_names=contact_names, slope=problem.slope, gears=gears)
    cost_terms = {}
    for name, weight in problem.cost.items():
        cost_terms[name] = weight * T.COSTS[name](ctx)
    J = sum(cost_terms.values())

    x = ca.vertcat(*B.syms)
    g = ca.vertcat(*B.g) if B.g else ca.SX(0, 1)
    lbx, ubx = np.concatenate(B.lb), np.concatenate(B.ub)
    return Transcription(problem, robot, sched, dyn, method, dim, {"x": x, "f": J, "g": g}, lbx, ubx,
                         np.concatenate(B.lbg), np.concatenate(B.ubg), B.rows, B.bound_rows, cost_terms,
                         phases, glob, impulses, ctx.slacks)


def _mirror_tau(u, robot):
    """Mirror a torque vector (actuated joints) through the robot's mirror map."""
    mirror = robot.mirror
    act = list(robot.actuated_index)
    out = []
    for ia in act:
        src = int(mirror.perm[ia])
        out.append(mirror.sign[ia] * u[act.index(src)])
    return ca.vertcat(*out)


def _mirror_forces(fcol, active, robot, dim, comp):
    """Mirror force variables of the active points: returns (forces, names after mirroring)."""
    names = [c.name for c in robot.contacts]
    flip = [(-1.0 if ax == 1 else 1.0) for ax in comp]
    new_active, parts = [], []
    for i, cname in enumerate(active):
        partner = names[int(robot.mirror.contact_perm[names.index(cname)])]
        new_active.append(partner)
        parts.append(ca.vertcat(*[flip[j] * fcol[dim * i + j] for j in range(dim)]))
    return ca.vertcat(*parts) if parts else ca.SX(0, 1), tuple(new_active)
