"""Torques and contact forces of the automatic guess: inverse dynamics split by nonnegative
least squares over the edges of friction pyramids (Lawson–Hanson)."""
from __future__ import annotations

import numpy as np
import pinocchio as pin

from .point_kinematics import _ContactKinematics


def _nnls(M, d, tol=1e-10, max_iter=None, start=None):
    """min ‖M x − d‖ subject to x ≥ 0 (Lawson–Hanson active set).

    start: (n,) bool, a guess of the solution's support (a neighbouring knot's): the columns of
    it whose least-squares weights come out positive (dropping the others and solving again)
    form the first passive set, so a right guess ends the search after one solve instead of one
    per column. Either way x is the least-squares solution on the final passive set, the
    solution's support (unless a weight ends within tol of zero), so x has the bits it has
    from an empty start."""
    n = M.shape[1]
    x = np.zeros(n)
    passive = np.zeros(n, dtype=bool) if start is None else np.array(start, dtype=bool)
    while passive.any():
        zp = np.linalg.lstsq(M[:, passive], d, rcond=None)[0]
        if zp.min() > 0:
            x[passive] = zp
            break
        passive[np.flatnonzero(passive)[~(zp > 0)]] = False  # NaN weights dropped too
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
        self.kinematics = _ContactKinematics(robot, self.model, self.data)
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
        self.support = {}  # {point: (n_edges,) bool}, the edges of its last force

    def __call__(self, q, v, a, active, f_prev, tie, unload=None):
        """(τ, force variables of the active points, {active point: world force (3,)}).

        f_prev: {point: world force} of the points in contact at the previous knot, or None;
        unload: {point: weight} pulling those points' forces towards zero."""
        return self.split(self.state(q, v, a, active), active, f_prev, tie, unload)

    def state(self, q, v, a, active):
        """What the split at (q, v, a) with `active` points reads whatever the previous knot's
        forces: (ID (nv,), A = [J_cᵀ E] (nv, na·ne), its least-squares rows and right-hand sides)."""
        model, data = self.model, self.data
        h = pin.rnea(model, data, q, v, a)
        if not active:
            return h, None, None, None
        Jp = self.kinematics(q, positions=False)[1]  # n_contacts × 3 × nv
        ne, na, mg = self.edges.shape[1], len(active), self.mg
        A = np.hstack([Jp[self.names.index(c)].T @ self.edges for c in active])  # nv × na·ne
        rows = [self.W_BASE * A[self.unact] / mg,
                -self.W_TORQUE * A[self.act] / self.tau_scale[:, None],
                self.W_RIDGE * np.eye(na * ne)]
        rhs = [self.W_BASE * h[self.unact] / mg, -self.W_TORQUE * h[self.act] / self.tau_scale,
               np.zeros(na * ne)]
        return h, A, rows, rhs

    def split(self, state, active, f_prev, tie, unload=None):
        """__call__'s result from a `state` of the same active points."""
        h, A, rows, rhs = state
        f_full = {}
        if not active:
            return h[self.act], np.zeros(0), f_full
        ne, na, mg = self.edges.shape[1], len(active), self.mg
        rows, rhs = list(rows), list(rhs)
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
        support = self.support
        start = np.concatenate([support[c] if c in support else np.zeros(ne, bool) for c in active])
        c = _nnls(np.vstack(rows), np.concatenate(rhs), start=start)
        for i, cname in enumerate(active):
            support[cname] = c[i * ne:(i + 1) * ne] > 0
        tau = h[self.act] - A[self.act] @ c
        F = []
        for i, cname in enumerate(active):
            f = self.edges @ c[i * ne:(i + 1) * ne]
            f_full[cname] = f
            F.append(f[self.comp])
        return tau, np.concatenate(F), f_full
