"""Initial guesses: nominal foot paths + inverse kinematics, or a warm start from a result.

The automatic guess moves the base forward at constant speed from the robot's standing
posture, keeps each stance foot on a foothold placed where the foot sits under the base at mid
stance, swings the other feet along a raised smooth path, solves the legs' inverse kinematics at
every knot (damped least squares, base pose given), differentiates the joint paths for v and a,
and splits inverse dynamics into torques and contact forces by least squares.
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin

from .schedule import active_points


def _point_positions(model, data, robot, q):
    pin.framesForwardKinematics(model, data, q)
    return np.array([data.oMf[c.frame_id].act(c.point) for c in robot.contacts])


def _point_jacobians(model, data, robot, q):
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    out = []
    for c in robot.contacts:
        J = pin.getFrameJacobian(model, data, c.frame_id, pin.LOCAL_WORLD_ALIGNED)
        r = data.oMf[c.frame_id].rotation @ c.point
        skew = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
        out.append(J[:3] - skew @ J[3:])
    return np.array(out)


def leg_ik(robot, q_init, targets, q_ref, iterations=30, damping=1e-4, reg=1e-3):
    """Joint angles (base fixed at q_init's base) placing contact points at targets (nc×3).

    Gauss–Newton with damping and a pull towards q_ref; joint limits clip each step.
    """
    model, data = robot.model, robot.model.createData()
    nb = len(robot.base_coordinates)
    q = q_init.copy()
    lo, hi = robot.lower.copy(), robot.upper.copy()
    for _ in range(iterations):
        err = (targets - _point_positions(model, data, robot, q)).ravel()
        J = _point_jacobians(model, data, robot, q).reshape(-1, robot.nv)[:, nb:]
        n = J.shape[1]
        H = J.T @ J + (damping + reg) * np.eye(n)
        g = J.T @ err + reg * (q_ref[nb:] - q[nb:])
        dq = np.linalg.solve(H, g)
        q[nb:] = np.clip(q[nb:] + dq, lo[nb:] + 1e-6, hi[nb:] - 1e-6)
        if np.linalg.norm(dq) < 1e-10:
            break
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
        self.clearance = problem.constraints.clearance
        q0 = robot.standing_q.copy()
        self.q_stand = q0
        model, data = robot.model, robot.model.createData()
        self.stand_points = _point_positions(model, data, robot, q0)
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
            out[i, 2] += dz + self.tan * out[i, 0]
        return out

    def base(self, t, q):
        q = q.copy()
        rb = self.robot.base_coordinates
        if "base_x" in rb:
            q[self.robot.index("base_x")] = self.base_x(t)
        if "base_z" in rb:
            q[self.robot.index("base_z")] = self.q_stand[self.robot.index("base_z")] + self.tan * self.base_x(t)
        return q


def automatic_guess(tr) -> np.ndarray:
    """Initial point x0 for a Transcription from nominal foot paths and inverse kinematics."""
    robot, problem, sched = tr.robot, tr.problem, tr.schedule
    nominal = NominalGait(robot, problem, sched)
    model, data = robot.model, robot.model.createData()
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
    offset = 0
    dim, comp = tr.force_dim, ([0, 2] if tr.force_dim == 2 else [0, 1, 2])
    names = [c.name for c in robot.contacts]
    act = robot.actuated_index
    nu = len(act)
    for ph, pv, (times, Q) in zip(problem.phases, tr.phases, per_phase):
        n = Q.shape[1]
        idx = inv[offset:offset + n]
        offset += n
        V, A = Vu[:, idx], Au[:, idx]
        U = np.zeros((nu, n))
        F = np.zeros((dim * len(pv.active), n))
        for k in range(n):
            U[:, k], F[:, k] = _split_forces(robot, model, data, Q[:, k], V[:, k], A[:, k], pv.active, names, comp)
        x0[pv.q.index] = Q
        x0[pv.v.index] = V
        x0[pv.a.index] = A
        x0[pv.tau.index] = U
        x0[pv.f.index] = F
        if pv.mid is not None:
            for key, M in (("q", Q), ("v", V), ("a", A), ("tau", U), ("f", F)):
                x0[pv.mid[key].index] = 0.5 * (M[:, :-1] + M[:, 1:])
        if not ph.duration.fixed:
            x0[tr.globals[f"T_{ph.name}"].index] = ph.duration.guess
    if "stride" in tr.globals:
        x0[tr.globals["stride"].index] = nominal.stride
    fill_slacks(tr, x0)
    return x0


def _split_forces(robot, model, data, q, v, a, active, names, comp):
    """Least-squares torques and contact forces with ID(q, v, a) = Bτ + Σ J_cᵀ f_c."""
    h = pin.rnea(model, data, q, v, a)
    Jp = _point_jacobians(model, data, robot, q)
    cols = []
    nu = len(robot.actuated_index)
    Bm = np.zeros((robot.nv, nu))
    Bm[robot.actuated_index, np.arange(nu)] = 1.0
    for cname in active:
        ci = names.index(cname)
        for ax in comp:
            cols.append(Jp[ci, ax, :])
    A = np.hstack([Bm, np.array(cols).T]) if cols else Bm
    # weight forces less than torques so that gravity is carried by the ground where possible
    W = np.ones(A.shape[1])
    W[nu:] = 0.05
    sol, *_ = np.linalg.lstsq(A * W, h, rcond=None)
    sol = sol * W
    return sol[:nu], sol[nu:]


def fill_slacks(tr, x0):
    """Power slacks P⁺ = max(τ q̇, 0), P⁻ = max(−τ q̇, 0) consistent with x0's torques."""
    act = tr.robot.actuated_index
    for (p, k), (pos, neg) in tr.slacks.items():
        pv = tr.phases[p]
        if float(k).is_integer():
            tau, v = x0[pv.tau.index[:, int(k)]], x0[pv.v.index[:, int(k)]]
        else:
            tau, v = x0[pv.mid["tau"].index[:, int(k)]], x0[pv.mid["v"].index[:, int(k)]]
        pw = tau * v[act]
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
        smp = prev.sample_phase(ph.name, ts)
        x0[pv.q.index] = smp["q"].T
        x0[pv.v.index] = smp["v"].T
        x0[pv.a.index] = smp["a"].T
        x0[pv.tau.index] = smp["tau"].T
        F = []
        for cname in pv.active:
            F.append(smp["f"][:, prev.contact_names.index(cname), :][:, tr_comp(tr)].T)
        if F:
            x0[pv.f.index] = np.vstack(F)
        if pv.mid is not None:
            tm = t_lo + 0.5 * (fr[:-1] + fr[1:]) * (t_hi - t_lo)
            sm = prev.sample_phase(ph.name, tm)
            for key in ("q", "v", "a", "tau"):
                x0[pv.mid[key].index] = sm[key].T
            Fm = [sm["f"][:, prev.contact_names.index(c), :][:, tr_comp(tr)].T for c in pv.active]
            if Fm:
                x0[pv.mid["f"].index] = np.vstack(Fm)
        if not ph.duration.fixed:
            x0[tr.globals[f"T_{ph.name}"].index] = t_hi - t_lo
    if "stride" in tr.globals:
        x0[tr.globals["stride"].index] = prev.stride
    for name, lam in tr.impulses.items():
        if name in result.impulses:
            x0[lam.index.ravel()] = result.impulses[name]
    fill_slacks(tr, x0)
    return x0


def tr_comp(tr):
    return [0, 2] if tr.force_dim == 2 else [0, 1, 2]
