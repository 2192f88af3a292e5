"""Jacobi compensation: move a task coordinate of a solved gait by Δp(t), feet held on the ground.

Seed 004 of the source papers made its real biped walk only after modifying the planned joint
trajectories so that a chosen task coordinate p (the hip's lateral position, the CoM, …) moves
by a correction Δp(t): Δq = J⁺ Δp. Here J is the task Jacobian restricted to the motions that
keep the contact points where they are: with J_c the Jacobian of the held points (and of the
base attitude, when held) and N a basis of its null space,

    Δq = N (J_p N)⁺ Δp          (minimum-norm Δq with J_c Δq = 0 and J_p Δq = Δp)

the minimum-norm solution of the stacked system [J_c; J_p] Δq = [0; Δp] (`jacobi_step`). Δq
spans all coordinates (base and joints): the floating base moves as the joints carry it over the
fixed feet. `compensate` holds every contact point — the stance points on the ground, the swing
feet on their planned paths, so they land where planned and the posture does not jump at a
touchdown — and repeats the step (Gauss–Newton on the same stacked system) until the points are
back at their planned positions and p at its target to 1e-13 m, so the feet do not drift by the
second-order term of a centimetre offset.

The corrected trajectory keeps the plan's timing and contact schedule. Velocities and
accelerations come from differentiating Δq(t) = q'(t) − q(t) in time on the plan's interpolant
(differences inside each phase, so velocity jumps at impacts stay where they were), every
contact point keeping its planned velocity. Torques are recomputed by inverse dynamics: the
contact forces are re-solved as the smallest change of the planned ones that balances the
unactuated (base) rows of the equations of motion — a moved CoM needs a moved centre of pressure —
and the joint torques follow from the actuated rows; the change is added to the plan's values,
so Δp = 0 returns the plan exactly. Not re-imposed: the friction cone, joint and torque limits,
the impact map (`CompensationReport` gives the friction ratio and the joint-limit excess).
docs/compensation.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import casadi as ca
import numpy as np

from .collocation import METHODS, interval_to_knots
from .dynamics import SymbolicDynamics
from . import quantities as Q
from .errors import InputError
from .schedule import active_points
from .terrain_io import surface_of
from .trajectory import PhaseTrajectory, Trajectory

AXES = {"x": 0, "y": 1, "z": 2}
ATTITUDE = ("base_roll", "base_pitch", "base_yaw")
MAX_OFFSET = 0.2   # m, |Δp| a correction may ask (beyond it the linearisation means little)
NEWTON_TOL = 1e-13  # m, residual of the contact and task rows (differenced in time: keep it tight)
NEWTON_ITER = 20


@dataclass(frozen=True)
class Correction:
    """Δp(t) [m] over one gait cycle of period T: offset + amplitude·sin(2π·harmonic·t/T + phase)
    (phase in rad), plus, when `samples` (times (n,) s in [0, T), values (n,) m) are given, their
    periodic linear interpolation."""

    offset: float = 0.0
    amplitude: float = 0.0
    phase: float = 0.0
    harmonic: int = 1
    samples: tuple | None = None

    def __call__(self, t: float, period: float) -> float:
        dp = self.offset + self.amplitude * np.sin(2.0 * np.pi * self.harmonic * t / period + self.phase)
        if self.samples is not None:
            ts, vs = (np.asarray(x, float) for x in self.samples)
            dp += float(np.interp(np.mod(t, period), ts, vs, period=period))
        return float(dp)

    def largest(self, period: float) -> float:
        """max |Δp| [m] over a cycle (sampled at 400 instants)."""
        return max(abs(self(t, period)) for t in np.linspace(0.0, period, 400, endpoint=False))


# above these the report's notes (and `broken`) say the compensated gait leaves the plan's
# friction cone [-] or equilibrium [N or N·m]
FRICTION_USE_TOL = 1e-6
RESIDUAL_TOL = 1e-6


@dataclass
class CompensationReport:
    """What `compensate` did: the task (point, axis), the largest |Δp| asked [m], the largest
    task error after the correction [m], the largest drift of a stance point from its planned
    position [m], the largest residual of the unactuated rows after re-solving the forces
    [N or N·m] (non-zero where no contact can supply it, e.g. in flight), the largest tangential
    / normal force ratio |f_t|/f_n of a force the plan's cone holds, the largest |Δq| of an
    actuated joint [rad or m], how far the corrected joint positions go beyond the robot's
    joint limits (0 when inside) [rad or m], and the largest share of the friction the plan's
    own cone allows (friction_use, `quantities.friction_use`: > 1 outside it) about the
    surface's normal at the foothold."""

    point: str
    axis: str
    max_dp: float
    task_error: float
    contact_drift: float
    base_residual: float
    friction_ratio: float
    max_joint_change: float
    limit_excess: float = 0.0
    notes: list = field(default_factory=list)
    friction_use: float = 0.0

    def broken(self) -> list:
        """The report's fields that say the compensated gait is not physically consistent, by name:
        friction_use (the forces leave the plan's cone), limit_excess (a joint beyond its limits),
        base_residual (the unactuated rows not balanced: out of equilibrium); the notes say how."""
        return [name for name, bad in (("friction_use", self.friction_use > 1 + FRICTION_USE_TOL),
                                       ("limit_excess", self.limit_excess > 0),
                                       ("base_residual", self.base_residual > RESIDUAL_TOL)) if bad]

    def to_dict(self) -> dict:
        """The fields as JSON values: an infinite friction ratio or use (a stance point with
        tangential but no normal force) is None (null), since JSON has no infinity (json.dumps
        wrote `Infinity`, which strict readers refuse)."""
        def value(v):
            if isinstance(v, (float, np.floating)):
                return float(v) if np.isfinite(v) else None
            return v
        return {k: value(v) for k, v in self.__dict__.items()}


class _Task:
    """Numeric CasADi functions of one robot: the task coordinate p(q) and its Jacobian (1 × nv),
    contact positions (3·nc) and Jacobian, inverse dynamics."""

    def __init__(self, robot, point: str, axis: str):
        if axis not in AXES:
            raise InputError(f"unknown axis {axis!r}", field="axis", allowed=list(AXES))
        dyn = SymbolicDynamics.of_robot(robot)
        q = ca.SX.sym("q", robot.nv)
        ax = AXES[axis]
        if point == "com":
            p = dyn.com(q, ca.SX.zeros(robot.nv))[0][ax]
        elif point == "base":
            name = "base_" + axis
            if name not in robot.coordinates:
                raise InputError(f"robot {robot.name} has no coordinate {name} (sagittal robots move in x and z)",
                                 field="axis", allowed=[c[5:] for c in robot.base_coordinates if c[5:] in AXES])
            p = q[robot.index(name)]
        else:
            frames = [f.name for f in robot.model.frames]
            if point not in frames:
                raise InputError(f"unknown point {point!r}", field="point", allowed=["com", "base", "a frame of the "
                                                                                     f"robot, e.g. {frames[-1]}"])
            p = dyn.frame_placement(robot.model.getFrameId(point))(q)[0][ax]
        if robot.base == "sagittal" and ax == 1:
            raise InputError(f"robot {robot.name} is sagittal: y does not move", field="axis", allowed=["x", "z"])
        pos = dyn.contact_kinematics(q, ca.SX.zeros(robot.nv), ca.SX.zeros(robot.nv))[0]
        pos = ca.reshape(pos, 3 * len(robot.contacts), 1)  # column-major: point by point
        self.p = ca.Function("p", [q], [p, ca.jacobian(p, q)])
        self.contacts = ca.Function("c", [q], [pos, ca.jacobian(pos, q)])
        self.dyn = dyn
        self.axes = [0, 2] if robot.base == "sagittal" else [0, 1, 2]
        self.attitude = [robot.index(c) for c in ATTITUDE if c in robot.coordinates]

    def rows(self, active_idx) -> list:
        """Rows of the stacked contact positions for the given contact indices."""
        return [3 * ci + a for ci in active_idx for a in self.axes]


def _solve_point(task: _Task, q0: np.ndarray, rows: list, dp: float, held: list = ()) -> tuple:
    """q' near q0 with p(q') = p(q0) + dp, the listed contact rows at their values at q0 and the
    coordinates `held` (indices) unchanged (Gauss–Newton on [J_c; E; J_p], each step the
    minimum-norm one). Returns (q', task error [m])."""
    c0 = np.asarray(task.contacts(q0)[0]).ravel()[rows]
    p_target = float(task.p(q0)[0]) + dp
    held = list(held)
    E = np.eye(len(q0))[held]
    q = np.array(q0, float)
    for _ in range(NEWTON_ITER):
        c, Jc = task.contacts(q)
        p, Jp = task.p(q)
        r = np.concatenate([c0 - np.asarray(c).ravel()[rows], q0[held] - q[held], [p_target - float(p)]])
        if np.abs(r).max() < NEWTON_TOL:
            break
        A = np.vstack([np.asarray(Jc)[rows], E, np.asarray(Jp)])
        step = np.linalg.lstsq(A, r, rcond=1e-10)[0]
        q = q + step
        if np.abs(step).max() < 1e-15:
            break
    return q, abs(p_target - float(task.p(q)[0]))


def jacobi_step(robot, q: np.ndarray, held_points: list, dp: float, point: str = "com", axis: str = "x",
                hold_attitude: bool = False) -> np.ndarray:
    """The first-order step Δq = N (J_p N)⁺ Δp (nv,) at posture q (nv,): J_p the task Jacobian
    (1 × nv) of `point` (com | base | a frame name) along `axis`, N a null-space basis of the
    Jacobian of the contact points named in `held_points` (their rows along the axes the robot
    moves in; with hold_attitude also the base roll, pitch, yaw rows). Δp in m."""
    task = _Task(robot, point, axis)
    names = [c.name for c in robot.contacts]
    rows = task.rows([names.index(c) for c in held_points])
    held = np.vstack([np.asarray(task.contacts(q)[1])[rows],
                      np.eye(robot.nv)[task.attitude if hold_attitude else []]])
    Jp = np.asarray(task.p(q)[1])
    if len(held):
        _, s, vt = np.linalg.svd(held)
        rank = int((s > 1e-10 * max(1.0, s.max())).sum())
        N = vt[rank:].T
    else:
        N = np.eye(robot.nv)
    return N @ (np.linalg.pinv(Jp @ N, rcond=1e-10) @ np.atleast_1d(dp))


def _forces_and_torques(robot, task, q, v, a, f_plan, active_idx) -> tuple:
    """Inverse dynamics at one point with the contact forces re-solved: f (nc, 3) the smallest
    change of f_plan (nc, 3) that balances the unactuated rows; τ (nu,) the actuated rows.
    Returns (f, τ, residual of the unactuated rows)."""
    nv = robot.nv
    tau0 = np.asarray(task.dyn.inverse_dynamics(q, v, a, np.zeros(3 * len(robot.contacts)))).ravel()
    rows = task.rows(active_idx)
    J = np.asarray(task.contacts(q)[1])[rows] if rows else np.zeros((0, nv))
    un = np.setdiff1d(np.arange(nv), robot.actuated_index)
    f_vec = np.asarray(f_plan, float).reshape(-1)[rows] if rows else np.zeros(0)
    if rows:
        A = J[:, un].T
        f_vec = f_vec + np.linalg.lstsq(A, tau0[un] - A @ f_vec, rcond=1e-12)[0]
    full = tau0 - J.T @ f_vec
    f = np.zeros((len(robot.contacts), 3))
    f.reshape(-1)[rows] = f_vec
    return f, full[robot.actuated_index], float(np.abs(full[un]).max()) if len(un) else 0.0


@dataclass(frozen=True)
class _Cone:
    """The plan's friction cone: the terrain surface, μ, pyramid | cone, sagittal robot."""

    surface: object
    mu: float
    kind: str
    sagittal: bool

    def worst(self, robot, task, q, f, active_idx) -> tuple:
        """(largest |f_t|/f_n, largest share of the allowed friction) over the force groups
        the plan's cone holds (`constraints.contact.foot_forces`: each foot's points summed in
        the sagittal plane, each point in 3-D), about the surface's normal at the foothold."""
        pos = np.asarray(task.contacts(q)[0]).reshape(-1, 3)
        groups: dict = {}
        for ci in active_idx:
            groups.setdefault(robot.contacts[ci].foot if self.sagittal else ci, []).append(ci)
        pts = np.array([pos[g[0]] for g in groups.values()])
        F = np.array([sum(f[ci] for ci in g) for g in groups.values()])
        ratio = Q.friction_use(self.surface, pts, F, 1.0, "cone")
        use = Q.friction_use(self.surface, pts, F, self.mu, self.kind, self.sagittal)
        return float(ratio.max()), float(use.max())


class _Corrector:
    """Δq(t) on one phase of the plan: the corrected posture minus the planned one, every
    contact point held at its planned world position (`held` rows)."""

    def __init__(self, robot, task, traj: Trajectory, phase: PhaseTrajectory, correction: Correction,
                 hold_attitude: bool):
        self.robot, self.task, self.traj, self.phase, self.correction = robot, task, traj, phase, correction
        self.coords = task.attitude if hold_attitude else []
        names = [c.name for c in robot.contacts]
        self.active_idx = [names.index(c) for c in active_points(robot, phase.modes)]
        self.rows = task.rows(self.active_idx)
        self.held = task.rows(range(len(names)))
        self.errors = [0.0]

    def q_plan(self, t: float) -> np.ndarray:
        return self.traj.sample_phase(self.phase.name, [t])["q"][0]

    def dq(self, t: float, offset=0.0) -> np.ndarray:
        """Δq at time t of the plan's path moved by `offset` (nv,) (see `derivatives`)."""
        q0 = self.q_plan(t) + offset
        q, err = _solve_point(self.task, q0, self.held, self.correction(t, self.traj.period), self.coords)
        self.errors.append(err)
        return q - q0

    def derivatives(self, t: float, h: float, q_at_t: np.ndarray) -> tuple:
        """(Δq, dΔq/dt, d²Δq/dt²) at t from the quadratic through Δq at c − δ, c, c + δ (δ = h/1000,
        c = t moved inside the phase so the stencil does not cross its ends), on the plan's path
        moved to pass through q_at_t at t (a Hermite–Simpson midpoint variable differs from the
        interpolant there by the rule's own error; the correction must be the midpoint's)."""
        t0, t1 = float(self.phase.t[0]), float(self.phase.t[-1])
        d = 1e-3 * h
        c = min(max(t, t0 + d), t1 - d)
        offset = q_at_t - self.q_plan(t)
        x_m, x_0, x_p = (self.dq(c + s * d, offset) for s in (-1, 0, 1))
        acc = (x_p - 2 * x_0 + x_m) / d ** 2
        slope = (x_p - x_m) / (2 * d)
        return x_0 + slope * (t - c) + 0.5 * acc * (t - c) ** 2, slope + acc * (t - c), acc


class _Tally:
    """Worst figures over the points of a trajectory (see CompensationReport)."""

    def __init__(self):
        self.drift = self.residual = self.friction = self.friction_use = self.task_error = 0.0

    def point(self, robot, task, corrector, q_new, q_old, f, residual, cone: _Cone, knot: bool) -> None:
        rows = corrector.rows
        if rows and knot:  # (trapezoidal midpoints are knot means: their drift is second order)
            c_new = np.asarray(task.contacts(q_new)[0]).ravel()[rows]
            c_old = np.asarray(task.contacts(q_old)[0]).ravel()[rows]
            self.drift = max(self.drift, float(np.abs(c_new - c_old).max()))
        if rows:
            ratio, use = cone.worst(robot, task, q_new, f, corrector.active_idx)
            self.friction, self.friction_use = max(self.friction, ratio), max(self.friction_use, use)
        self.residual = max(self.residual, residual)


def _states(corr, times, h, q_plan, v_plan) -> tuple:
    """(q', v', Δa) at `times` of the corrector's phase: q' = q + Δq; v' = v + Δv with Δv
    corrected so that every contact point keeps its planned velocity, J(q') v' = J(q) v (at
    rest in stance, the planned swing velocity in swing); Δa = d²Δq/dt²."""
    d = [corr.derivatives(float(t), h, qp) for t, qp in zip(times, q_plan)]
    q = q_plan + np.array([x[0] for x in d])
    v = []
    for qn, qo, vo, x in zip(q, q_plan, v_plan, d):
        Jn = np.asarray(corr.task.contacts(qn)[1])[corr.held]
        Jo = np.asarray(corr.task.contacts(qo)[1])[corr.held]
        dv = x[1] - np.linalg.pinv(Jn, rcond=1e-10) @ (Jn @ (vo + x[1]) - Jo @ vo)
        v.append(vo + dv)
    return q, np.array(v), np.array([x[2] for x in d])


def _dynamics(robot, task, corr, tally, new, old, cone, knot: bool = True) -> tuple:
    """Forces (n, nc, 3) and torques (n, nu) at n points: the plan's plus the change of the
    re-solved inverse dynamics (`_forces_and_torques`) from the old state to the new one, so a
    zero correction returns the plan exactly. new, old: (q, v, a) (n, nv) each; the plan's
    forces and torques at the points are old[3], old[4]."""
    fs, taus = [], []
    for i in range(len(new[0])):
        f_old, tau_old = old[3][i], old[4][i]
        f1, t1, res = _forces_and_torques(robot, task, new[0][i], new[1][i], new[2][i], f_old, corr.active_idx)
        f0, t0, _ = _forces_and_torques(robot, task, old[0][i], old[1][i], old[2][i], f_old, corr.active_idx)
        f_new = f_old + (f1 - f0)
        # the friction judged is that of the forces written (f_new), not f1: where the plan's
        # forces do not balance the sample's rows exactly (trapezoidal knot means) f1 differs
        # from them, and a zero correction of a hexapod tripod read 104 % of the plan's pyramid
        tally.point(robot, task, corr, new[0][i], old[0][i], f_new, res, cone, knot)
        fs.append(f_new)
        taus.append(tau_old + (t1 - t0))
    return np.array(fs), np.array(taus)


def _corrected_phase(robot, task, traj, p: PhaseTrajectory, correction, tally, cone,
                     hold_attitude: bool) -> PhaseTrajectory:
    """One phase with the correction applied (see the module docstring)."""
    corr = _Corrector(robot, task, traj, p, correction, hold_attitude)
    hk = np.diff(p.t)
    h = float(hk.min())
    q, v, da = _states(corr, p.t, h, p.q, p.v)
    if traj.method == "trapezoidal":
        # the rule's own relations: a constant per interval (from the knot velocities' change),
        # the midpoint state the means of the knots, τ there the mean (collocation.Trapezoidal)
        pm = p.mid if p.mid is not None else METHODS["trapezoidal"].midpoints_from_knots(p.t, p.q, p.v, p.a, p.tau, p.f)
        a_int = pm["a"] + np.diff(v - p.v, axis=0) / hk[:, None]
        a = p.a + interval_to_knots(a_int - pm["a"])
        qm = pm["q"] + 0.5 * ((q - p.q)[:-1] + (q - p.q)[1:])
        vm = pm["v"] + 0.5 * ((v - p.v)[:-1] + (v - p.v)[1:])
        fm, _ = _dynamics(robot, task, corr, tally, (qm, vm, a_int), (pm["q"], pm["v"], pm["a"], pm["f"], pm["tau"]),
                          cone, knot=False)
        _, tau = _dynamics(robot, task, corr, tally, (q, v, a), (p.q, p.v, p.a, p.f, p.tau), cone)
        f = p.f + interval_to_knots(fm - pm["f"])
        mid = {"q": qm, "v": vm, "a": a_int, "tau": 0.5 * (tau[:-1] + tau[1:]), "f": fm}
    else:
        a = p.a + da
        f, tau = _dynamics(robot, task, corr, tally, (q, v, a), (p.q, p.v, p.a, p.f, p.tau), cone)
        mid = None
        if p.mid is not None:
            tm = 0.5 * (p.t[:-1] + p.t[1:])
            qm, vm, dam = _states(corr, tm, h, p.mid["q"], p.mid["v"])
            am = p.mid["a"] + dam
            fm, taum = _dynamics(robot, task, corr, tally, (qm, vm, am),
                                 tuple(p.mid[k] for k in ("q", "v", "a", "f", "tau")), cone)
            mid = {"q": qm, "v": vm, "a": am, "tau": taum, "f": fm}
    tally.task_error = max(tally.task_error, max(corr.errors))
    return PhaseTrajectory(p.name, p.t.copy(), q, v, a, tau, f, dict(p.modes), mid)


TORQUES = ("recompute", "plan")


def _with_plan_torques(new: PhaseTrajectory, old: PhaseTrajectory) -> PhaseTrajectory:
    mid = None if new.mid is None else dict(new.mid, tau=old.mid["tau"], f=old.mid["f"])
    return replace(new, tau=old.tau, f=old.f, mid=mid)


def compensate(result, correction: Correction, point: str = "com", axis: str = "x",
               hold_attitude: bool = True, torques: str = "recompute") -> tuple:
    """Jacobi compensation of a solved gait (module docstring).

    result: a `gaitopt.result.Result` (from `gaitopt.solve` or `gaitopt.export.load_result`);
    correction: Δp(t) [m] of the task coordinate; point: "com", "base" (the base origin) or a
    frame name of the robot; axis: x, y or z (world); hold_attitude: keep the base's roll, pitch
    and yaw as planned (the body translates over the feet; without it the minimum-norm Δq also
    tilts the trunk, and changes from knot to knot as the legs' postures change). Returns (Result with the corrected
    trajectory — same timing, schedule, cost record and problem, its message saying what was
    done —, CompensationReport). InputError for an unknown point or axis, a non-finite Δp or
    one beyond MAX_OFFSET."""
    robot, traj = result.robot, result.trajectory
    task = _Task(robot, point, axis)
    largest = correction.largest(traj.period)
    if not np.isfinite(largest) or largest > MAX_OFFSET:
        raise InputError(f"|Δp| up to {largest:.4g} m", field="correction", allowed=f"finite, at most {MAX_OFFSET} m")
    cons = result.problem.constraints
    cone = _Cone(surface_of(result.problem), float(cons.friction), cons.cone, robot.base == "sagittal")
    tally = _Tally()
    if torques not in TORQUES:
        raise InputError(f"unknown choice {torques!r}", field="torques", allowed=TORQUES)
    phases = tuple(_corrected_phase(robot, task, traj, p, correction, tally, cone, hold_attitude)
                   for p in traj.phases)
    if torques == "plan":
        phases = tuple(_with_plan_torques(n, o) for n, o in zip(phases, traj.phases))
    new = replace(traj, phases=phases)
    joints = robot.actuated_index
    change = max(float(np.abs(n.q[:, joints] - o.q[:, joints]).max()) for n, o in zip(new.phases, traj.phases))
    lo, hi = (np.asarray(x, float)[joints] for x in (robot.model.lowerPositionLimit, robot.model.upperPositionLimit))
    excess = max(float(np.maximum(np.maximum(p.q[:, joints] - hi, lo - p.q[:, joints]), 0.0).max()) for p in phases)
    report = CompensationReport(point, axis, largest, tally.task_error, tally.drift, tally.residual,
                                tally.friction, change, excess, friction_use=tally.friction_use)
    if tally.friction_use > 1 + FRICTION_USE_TOL:
        # the same figure as the summary line's "N % of the plan's friction cone" (it said "by up
        # to 349 % of the allowed" beside "449 % of the plan's friction pyramid"); four digits: a
        # hexapod's 100.43 % read "100 %" beside the note that it leaves the pyramid
        report.notes.append(f"the forces leave the plan's friction {cons.cone} (μ {cons.friction:g}): " + (
            f"they use up to {100 * tally.friction_use:.4g} % of it" if np.isfinite(tally.friction_use) else
            "a stance point has tangential but no normal force (infinite ratio)") + ": friction_use")
    if excess > 0:
        report.notes.append(f"joint positions beyond the robot's limits by up to {excess:.3g} (rad or m): limit_excess")
    if tally.residual > RESIDUAL_TOL:
        report.notes.append("the unactuated rows are not balanced everywhere: the contacts cannot supply the "
                            "change (a point or line contact cannot take the moment of a moved CoM; flight "
                            "takes no force), so the robot is not in equilibrium with the new posture there: "
                            "base_residual")
    message = (f"Jacobi compensation of {point} {axis} (|Δp| ≤ {largest:.4g} m) of a plan that said: "
               f"{result.message}")
    # not the solver's point: no x, multipliers or impulses (the plan's impact impulses belong to
    # the plan's postures; knots.npz keeps impulses since 2026-11-25 and would pass them on)
    out = replace(result, trajectory=new, message=message, x=None, layout=None, multipliers=None, impulses={})
    return out, report
