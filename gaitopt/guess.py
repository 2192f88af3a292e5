"""Initial guesses: nominal foot paths + inverse kinematics, or a warm start from a result.

The automatic guess moves the base forward at constant speed from the robot's standing
posture, keeps each stance foot on a foothold placed where the foot sits under the base at mid
stance, swings the other feet along a raised smooth path, solves the legs' inverse kinematics at
every knot (damped least squares, base pose given), differentiates the joint paths for v and a,
and splits inverse dynamics into torques and contact forces by nonnegative least squares, with
every force inside the friction pyramid.
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin

from .cycle import FLIP_Y, mirror_contact_name
from .nlp import force_axes, variables_from_forces
from .schedule import active_points
from .terrain_io import surface_of


def _point_positions(model, data, robot, q):
    pin.framesForwardKinematics(model, data, q)
    return np.array([data.oMf[c.frame_id].act(c.point) for c in robot.contacts])


def _point_jacobians(model, data, robot, q):
    """(n_contacts, 3, nv) world-aligned Jacobians of the contact points at q."""
    return _contact_kinematics(model, data, robot, q, positions=False)[1]


def _contact_kinematics(model, data, robot, q, positions=True):
    """Contact point positions (n_contacts, 3) [m] (None unless `positions`) and Jacobians
    (n_contacts, 3, nv) at q from one kinematics pass: J_p = J_lin − [R p]× J_ang from the
    frame's world-aligned Jacobian (points on one frame share it), the skew products in one
    batched matmul (per point, the same BLAS product as a loop's). computeJointJacobians places
    the joints as forwardKinematics does, so the positions equal `_point_positions`'s bit for bit."""
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    frames, J, r, points = {}, [], [], []
    for c in robot.contacts:
        if c.frame_id not in frames:
            M = data.oMf[c.frame_id]
            frames[c.frame_id] = M, M.rotation, pin.getFrameJacobian(model, data, c.frame_id, pin.LOCAL_WORLD_ALIGNED)
        M, R, Jf = frames[c.frame_id]
        J.append(Jf)
        r.append(R @ c.point)
        if positions:
            points.append(M.act(c.point))
    J, r = np.array(J), np.array(r)
    skew = np.zeros((len(r), 3, 3))
    skew[:, 0, 1], skew[:, 0, 2] = -r[:, 2], r[:, 1]
    skew[:, 1, 0], skew[:, 1, 2] = r[:, 2], -r[:, 0]
    skew[:, 2, 0], skew[:, 2, 1] = -r[:, 1], r[:, 0]
    return (np.array(points) if positions else None), J[:, :3] - skew @ J[:, 3:]


def leg_ik(robot, q_init, targets, q_ref, iterations=30, damping=1e-4, reg=1e-3):
    """Joint angles (base fixed at q_init's base) placing contact points at targets (nc×3).

    Gauss–Newton with damping and a pull towards q_ref; joint limits clip each step.
    """
    model, data = robot.model, robot.model.createData()
    nb = len(robot.base_coordinates)
    q = q_init.copy()
    lo, hi = robot.lower[nb:] + 1e-6, robot.upper[nb:] - 1e-6
    ridge = (damping + reg) * np.eye(robot.nv - nb)
    pull = q_ref[nb:]
    for _ in range(iterations):
        points, J = _contact_kinematics(model, data, robot, q)
        err = (targets - points).ravel()
        J = J.reshape(-1, robot.nv)[:, nb:]
        H = J.T @ J + ridge
        g = J.T @ err + reg * (pull - q[nb:])
        if not (np.isfinite(H).all() and np.isfinite(g).all()):
            break  # targets out of any reach: keep the last finite posture (the NLP judges it)
        dq = np.linalg.solve(H, g)  # H is positive definite (damping + reg > 0)
        q[nb:] = np.clip(q[nb:] + dq, lo, hi)
        if np.linalg.norm(dq) < 1e-10:
            break
    return q


def place_contacts(robot, q, targets, iterations: int = 50, tol: float = 1e-12) -> np.ndarray:
    """Joint angles putting every contact point exactly on its world target (nc, 3) [m], the
    base coordinates kept at q's (Gauss–Newton, minimum-norm steps where the legs are
    redundant). Returns q (nq,); raises ValueError when a point stays more than 1e-9 m off
    (out of reach)."""
    model, data = robot.model, robot.model.createData()
    nb = len(robot.base_coordinates)
    q = np.array(q, float)
    for _ in range(iterations):
        err = (targets - _point_positions(model, data, robot, q)).ravel()
        if np.abs(err).max() < tol:
            return q
        J = _point_jacobians(model, data, robot, q).reshape(-1, robot.nv)[:, nb:]
        q[nb:] += np.linalg.lstsq(J, err, rcond=None)[0]
    err = (targets - _point_positions(model, data, robot, q)).ravel()
    if np.abs(err).max() > 1e-9:
        raise ValueError(f"contact points out of reach: {np.abs(err).max():.2e} m from their targets")
    return q


def _smooth(s):
    return s * s * (3.0 - 2.0 * s)


class NominalGait:
    """Base and foot paths of the automatic guess over the expanded cycle."""

    def __init__(self, robot, problem, schedule):
        self.robot = robot
        self.schedule = schedule
        part = 0.5 if problem.cycle == "half" else 1.0
        durations = [ph.duration.guess for ph in problem.phases]
        self.T_part = sum(durations)
        self.period = self.T_part / part
        exp_durations = durations * (2 if part == 0.5 else 1)
        self.starts = np.concatenate([[0.0], np.cumsum(exp_durations)])
        if problem.stride is not None:
            stride = problem.stride.guess
        elif problem.speed is not None:
            stride = problem.speed.guess * self.period
        else:
            stride = 0.0
        self.stride = stride
        self.speed = stride / self.period
        self.tan = np.tan(problem.slope)
        self.surface = None if not problem.terrain else surface_of(problem)
        self.clearance = problem.constraints.clearance
        q0 = robot.standing_q.copy()
        self.q_stand = q0
        model, data = robot.model, robot.model.createData()
        self.stand_points = _point_positions(model, data, robot, q0)
        # footholds: the standing ones shifted along x so that the centroid of all contact
        # points lies under the centre of mass (a biped's standing feet are often centred on the
        # ankles, not on the CoM; a walking biped puts its foot's middle under the CoM at mid stance)
        com = pin.centerOfMass(model, data, q0)
        self.stand_points[:, 0] += com[0] - self.stand_points[:, 0].mean()
        # stance runs per foot as (start, end) times over the expanded cycle
        self.runs = {}
        exp = schedule.expanded
        for foot in robot.feet:
            runs = []
            in_stance = [exp[i][0][foot] != "swing" for i in range(len(exp))]
            i = 0
            n = len(exp)
            while i < n:
                if in_stance[i] and not in_stance[i - 1 if i > 0 else n - 1] or (in_stance[i] and i == 0 and all(in_stance)):
                    j = i
                    while in_stance[(j + 1) % n] and (j + 1) - i < n:
                        j += 1
                    start = self.starts[i]
                    end = self.starts[j + 1] if j + 1 <= n - 1 or j + 1 == n else self.starts[(j + 1) % n] + self.period
                    if j + 1 > n:
                        end = self.starts[(j + 1) % n] + self.period
                    runs.append((start, end))
                i += 1
            self.runs[foot] = sorted(runs)
        if getattr(self.surface, "kind", "") == "steps":
            for foot in robot.feet:
                rows = [i for i, c in enumerate(robot.contacts) if c.foot == foot]
                self.stand_points[rows, 0] += self._tread_shift(rows, self.runs[foot])

    def _tread_shift(self, rows, runs) -> float:
        """The smallest shift [m] along x of a foot's footholds (its points `rows`, at mid stance
        of each of its stance `runs`) that puts every one on a tread: the smoothed step's slope and
        the clearance envelope's at most half the FOOTHOLD_GRADE the problem imposes there. A
        stance placed on a smoothed riser (a foot spacing that is a multiple of the run plus
        about an edge) kept IPOPT from ever meeting foothold_grade; 0 when none fits in ±run."""
        from .constraints.contact import FOOTHOLD_GRADE  # why: the bound the guess keeps clear of
        xs = np.array([self.stand_points[i, 0] + self.base_x(0.5 * (a + b)) for a, b in runs for i in rows])
        if not len(xs):
            return 0.0
        gaps = np.diff(np.asarray(self.surface.edges, float))
        reach = float(gaps.max()) if len(gaps) else 0.3
        shifts = np.linspace(-reach, reach, 2 * int(np.ceil(reach / 1e-3)) + 1)
        shifts = shifts[np.argsort(np.abs(shifts), kind="stable")]
        x = xs[None, :] + shifts[:, None]
        slope = np.maximum(np.abs(self.surface.gradient(x, 0.0 * x)[0]), np.abs(self.surface.envelope_slope(x)))
        ok = np.all(slope <= 0.5 * FOOTHOLD_GRADE, axis=1)
        return float(shifts[ok.argmax()]) if ok.any() else 0.0

    def base_x(self, t):
        return self.speed * t

    def foot_offset(self, foot, t):
        """(dx, dz) displacement of a foot from its standing place at time t."""
        P = self.period
        runs = []
        for shift in (-P, 0.0, P):
            runs += [(a + shift, b + shift) for a, b in self.runs[foot]]
        runs.sort()
        for a, b in runs:
            if a - 1e-12 <= t <= b + 1e-12:
                return self.base_x(0.5 * (a + b)), 0.0
        for (a0, b0), (a1, b1) in zip(runs[:-1], runs[1:]):
            if b0 < t < a1:
                s = (t - b0) / (a1 - b0)
                x0, x1 = self.base_x(0.5 * (a0 + b0)), self.base_x(0.5 * (a1 + b1))
                bump = 1.5 * 16.0 * self.clearance * s * s * (1 - s) ** 2 * 1.0 + 0.5 * self.clearance * np.sin(np.pi * s)
                return x0 + (x1 - x0) * _smooth(s), bump
        return self.base_x(t), 0.0

    def targets(self, t):
        out = self.stand_points.copy()
        for i, c in enumerate(self.robot.contacts):
            dx, dz = self.foot_offset(c.foot, t)
            out[i, 0] += dx
            out[i, 2] += dz + self._ground(out[i, 0], out[i, 1], dz > 0)
        return out

    def _ground(self, x, y, swinging: bool) -> float:
        """Ground height [m] under a foot target: what a swing foot clears, where a stance foot stands."""
        if self.surface is None:
            return self.tan * x
        return float((self.surface.envelope if swinging else self.surface.height)(x, y))

    def base(self, t, q):
        q = q.copy()
        rb = self.robot.base_coordinates
        if "base_x" in rb:
            q[self.robot.index("base_x")] = self.base_x(t)
        if "base_z" in rb:
            x = self.base_x(t)
            level = self.tan * x if self.surface is None else float(self.surface.reference_height(x, 0.0))
            q[self.robot.index("base_z")] = self.q_stand[self.robot.index("base_z")] + level
        return q


def automatic_guess(tr) -> np.ndarray:
    """Initial point x0 for a Transcription from nominal foot paths and inverse kinematics."""
    robot, problem, sched = tr.robot, tr.problem, tr.schedule
    nominal = NominalGait(robot, problem, sched)
    x0 = np.zeros(tr.n_variables)
    t0 = 0.0
    q_prev = robot.standing_q.copy()
    per_phase = []
    for ph, pv in zip(problem.phases, tr.phases):
        K = ph.knots
        T = ph.duration.guess
        times = t0 + np.linspace(0.0, T, K + 1)
        Q = []
        for t in times:
            qb = nominal.base(t, q_prev)
            q = leg_ik(robot, qb, nominal.targets(t), robot.standing_q)
            Q.append(q)
            q_prev = q
        Q = np.array(Q).T  # nv × K+1
        per_phase.append((times, Q))
        t0 += T
    # velocities and accelerations by differences over the whole optimised part (smoother)
    all_t = np.concatenate([t for t, _ in per_phase])
    all_Q = np.concatenate([Q for _, Q in per_phase], axis=1)
    # remove duplicate junction times for the derivative, then map back
    uniq, inv = np.unique(np.round(all_t, 12), return_inverse=True)
    Qu = np.zeros((robot.nv, len(uniq)))
    for i, j in enumerate(inv):
        Qu[:, j] = all_Q[:, i]
    Vu = np.gradient(Qu, uniq, axis=1) if len(uniq) > 2 else np.zeros_like(Qu)
    Au = np.gradient(Vu, uniq, axis=1) if len(uniq) > 2 else np.zeros_like(Qu)
    dim, comp = tr.force_dim, force_axes(tr.force_dim)
    split = _ForceSplit(robot, problem, comp)
    states = []
    offset = 0
    for _, Q in per_phase:
        n = Q.shape[1]
        idx = inv[offset:offset + n]
        offset += n
        states.append((Q, Vu[:, idx], Au[:, idx]))
    # Torques and forces knot by knot (_ForceSplit), each knot's forces pulled towards the
    # previous knot's, strongly across every phase junction (the NLP asks for force continuity
    # only where no point touches down or lifts off; a smooth start serves the others too, and
    # the iteration counts in docs/ were measured with it). Points that lift off at the end of a
    # phase while others stay are unloaded towards it (weight growing as s²), so that the points
    # that stay carry the whole load at the junction. The
    # second sweep starts from the first sweep's last knot (mirrored for a half cycle), for the
    # periodic closure.
    f_prev = None
    n_exp = len(sched.expanded)
    for _sweep in range(2):
        out = []
        for p, (pv, (Q, V, A)) in enumerate(zip(tr.phases, states)):
            n = Q.shape[1]
            nxt = set(active_points(robot, sched.expanded[(p + 1) % n_exp][0]))
            lifting = [c for c in pv.active if c not in nxt]
            if len(lifting) == len(pv.active):
                lifting = []  # nothing stays in contact: no force continuity to prepare for
            U = np.zeros((len(robot.actuated_index), n))
            F = np.zeros((dim * len(pv.active), n))
            for k in range(n):
                tie = 30.0 if k == 0 else 1.0
                unload = {c: 30.0 * (k / (n - 1)) ** 2 for c in lifting}
                U[:, k], F[:, k], f_prev = split(Q[:, k], V[:, k], A[:, k], pv.active, f_prev, tie, unload)
            out.append((U, F))
        f_prev = _wrap_forces(robot, problem, f_prev)
    for ph, pv, (Q, V, A), (U, F) in zip(problem.phases, tr.phases, states, out):
        tr.method.fill_guess(x0, pv, Q, V, A, U, F)
        if not ph.duration.fixed:
            x0[tr.globals[f"T_{ph.name}"].index] = ph.duration.guess
    if "stride" in tr.globals:
        x0[tr.globals["stride"].index] = nominal.stride
    fill_slacks(tr, x0)
    return x0


def _wrap_forces(robot, problem, f_full):
    """{point: world force} at the end of the optimised part, seen at its start."""
    if f_full is None or problem.cycle != "half":
        return f_full
    return {mirror_contact_name(robot, c): FLIP_Y * f for c, f in f_full.items()}


def _nnls(M, d, tol=1e-10, max_iter=None):
    """min ‖M x − d‖ subject to x ≥ 0 (Lawson–Hanson active set)."""
    n = M.shape[1]
    x = np.zeros(n)
    passive = np.zeros(n, dtype=bool)
    w = M.T @ (d - M @ x)
    max_iter = max_iter or 5 * n + 10
    it = 0
    while it < max_iter and not passive.all():
        free = np.where(passive, -np.inf, w)
        j = int(free.argmax())  # the first largest: free[j] is max(free), NaN if any is
        if not free[j] > tol:
            break
        it += 1
        passive[j] = True
        while True:
            z = np.zeros(n)
            zp = np.linalg.lstsq(M[:, passive], d, rcond=None)[0]
            z[passive] = zp
            if zp.min() > 0:
                break
            neg = passive & (z <= 0)
            xn = x[neg]
            alpha = (xn / np.maximum(xn - z[neg], 1e-300)).min()
            x = x + alpha * (z - x)
            passive &= x > tol
            x[~passive] = 0.0
            if not passive.any():
                z = x
                break
        x = z
        w = M.T @ (d - M @ x)
    return x


class _ForceSplit:
    """Torques and contact forces at one state, ID(q, v, a) = Bτ + Σ J_cᵀ f_c, with every force
    a nonnegative combination of the edges of a friction pyramid slightly inside the problem's
    (so unilateral and within friction).

    Nonnegative least squares over the edge weights of: the unactuated rows' residual (base and
    passive joints; relative to the robot's weight, weighted strongly), the torques relative to
    their limits, each force's change from the previous knot (relative to the weight, weighted
    by `tie`) and the forces of points about to lift off (weights `unload`). The torques then
    take up the actuated rows exactly.
    """

    W_BASE = 300.0    # unactuated rows, residual / (m g)
    W_TORQUE = 1.0    # τ / τ_limit
    W_RIDGE = 1e-3    # f / (m g)

    def __init__(self, robot, problem, comp):
        self.robot, self.comp = robot, comp
        self.model, self.data = robot.model, robot.model.createData()
        self.names = [c.name for c in robot.contacts]
        self.act = np.asarray(robot.actuated_index)
        # the other rows by a mask: np.setdiff1d's np.unique imports numpy.ma (7 ms a process)
        unact = np.ones(robot.nv, bool)
        unact[self.act] = False
        self.unact = np.flatnonzero(unact)
        self.mg = robot.total_mass * 9.81
        lim = np.full(len(self.act), np.inf)
        cons = problem.constraints
        if cons.effort_limits:
            eff = robot.effort_limit[self.act]
            lim = np.minimum(lim, np.where(eff > 0, eff, np.inf))
        if cons.current_limit:
            lim = np.minimum(lim, [robot.actuators[j].torque_limit for j in robot.actuated])
        ok = np.isfinite(lim) & (lim > 0)
        fallback = lim[ok].max() if ok.any() else 0.1 * self.mg
        self.tau_scale = np.where(ok, lim, fallback)
        s = problem.slope
        n = np.array([-np.sin(s), 0.0, np.cos(s)])
        t1 = np.array([np.cos(s), 0.0, np.sin(s)])
        t2 = np.array([0.0, 1.0, 0.0])
        mu = 0.9 * cons.friction
        if len(comp) == 2:
            edges = [n + mu * t1, n - mu * t1]
        else:
            if cons.cone == "cone":
                mu /= np.sqrt(2.0)  # the pyramid's corners inside the exact cone
            edges = [n + mu * (a * t1 + b * t2) for a in (1.0, -1.0) for b in (1.0, -1.0)]
        self.edges = np.array(edges).T  # 3 × n_edges

    def __call__(self, q, v, a, active, f_prev, tie, unload=None):
        """(τ, force variables of the active points, {active point: world force (3,)}).

        f_prev: {point: world force} of the points in contact at the previous knot, or None;
        unload: {point: weight} pulling those points' forces towards zero."""
        model, data = self.model, self.data
        h = pin.rnea(model, data, q, v, a)
        f_full = {}
        if not active:
            return h[self.act], np.zeros(0), f_full
        Jp = _point_jacobians(model, data, self.robot, q)  # n_contacts × 3 × nv
        ne, na, mg = self.edges.shape[1], len(active), self.mg
        A = np.hstack([Jp[self.names.index(c)].T @ self.edges for c in active])  # nv × na·ne
        rows = [self.W_BASE * A[self.unact] / mg,
                -self.W_TORQUE * A[self.act] / self.tau_scale[:, None],
                self.W_RIDGE * np.eye(na * ne)]
        rhs = [self.W_BASE * h[self.unact] / mg, -self.W_TORQUE * h[self.act] / self.tau_scale,
               np.zeros(na * ne)]
        if f_prev is not None:
            for i, cname in enumerate(active):
                if cname not in f_prev:
                    continue  # the point was not in contact at the previous knot
                prev = f_prev[cname]
                blk = np.zeros((3, na * ne))
                blk[:, i * ne:(i + 1) * ne] = self.edges
                rows.append(tie * blk / mg)
                rhs.append(tie * prev / mg)
        for i, cname in enumerate(active):
            w = (unload or {}).get(cname, 0.0)
            if w > 0:  # pull this point's force towards zero
                blk = np.zeros((3, na * ne))
                blk[:, i * ne:(i + 1) * ne] = self.edges
                rows.append(w * blk / mg)
                rhs.append(np.zeros(3))
        c = _nnls(np.vstack(rows), np.concatenate(rhs))
        tau = h[self.act] - A[self.act] @ c
        F = []
        for i, cname in enumerate(active):
            f = self.edges @ c[i * ne:(i + 1) * ne]
            f_full[cname] = f
            F.append(f[self.comp])
        return tau, np.concatenate(F), f_full


def fill_slacks(tr, x0):
    """Power slacks P⁺ = max(τ q̇, 0), P⁻ = max(−τ q̇, 0) consistent with x0's torques."""
    act = tr.robot.actuated_index
    for (p, k), (pos, neg) in tr.slacks.items():
        pv = tr.phases[p]
        tau, v = (pv.tau, pv.v) if float(k).is_integer() else (pv.interval["tau"], pv.interval["v"])
        pw = x0[tau.index[:, int(k)]] * x0[v.index[:, int(k)]][act]
        x0[pos.index.ravel()] = np.maximum(pw, 0.0)
        x0[neg.index.ravel()] = np.maximum(-pw, 0.0)


def warm_start(tr, result) -> np.ndarray:
    """x0 from a previous result on the same robot and phases (knot counts may differ)."""
    x0 = automatic_guess(tr)
    prev = result.trajectory
    for ph, pv in zip(tr.problem.phases, tr.phases):
        if ph.name not in prev.phase_names:
            continue
        t_lo, t_hi = prev.phase_span(ph.name)
        K = ph.knots
        fr = np.linspace(0.0, 1.0, K + 1)
        ts = t_lo + fr * (t_hi - t_lo)
        tm = t_lo + 0.5 * (fr[:-1] + fr[1:]) * (t_hi - t_lo)
        knots, mids = prev.sample_phase(ph.name, ts), prev.sample_phase(ph.name, tm)
        for smp in (knots, mids):  # forces of this phase's points in contact, as its variables
            smp["f"] = variables_from_forces(smp["f"], pv.active, prev.contact_names, tr.force_dim)
        tr.method.fill_warm_start(x0, pv, knots, mids)
        if not ph.duration.fixed:
            x0[tr.globals[f"T_{ph.name}"].index] = t_hi - t_lo
    if "stride" in tr.globals:
        x0[tr.globals["stride"].index] = prev.stride
    for name, lam in tr.impulses.items():
        if name in result.impulses:
            x0[lam.index.ravel()] = result.impulses[name]
    fill_slacks(tr, x0)
    return x0
