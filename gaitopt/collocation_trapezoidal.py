"""The trapezoidal collocation rule (see gaitopt.collocation for both rules side by side)."""
from __future__ import annotations

import casadi as ca
import numpy as np

from .collocation_rule import (CollocationRule, PowerNode, _as_is, _mean, _mean_torque, interval_to_knots,
                               knots_to_interval)
from .nlp import PhaseVars, Point


class Trapezoidal(CollocationRule):
    name = "trapezoidal"
    collocation_order = ((0,), (1, 2))  # midpoint-state rows of all intervals, then the defects

    @staticmethod
    def defects(h, q0, v0, a0, q1, v1, a1, mid):
        """Residuals (must be 0) of one interval of length h [s]; mid[2] is its constant a."""
        return [q1 - q0 - 0.5 * h * (v0 + v1), v1 - v0 - h * mid[2]]

    @staticmethod
    def midpoint(q0, v0, q1, v1):
        """(q, v) where the equations of motion are imposed: the means of the knot states.
        v is exact (v is linear); q differs from the quadratic's midpoint value by h² a / 8,
        a second-order error like the rule's own. The exact value would put a and the phase
        duration into every inverse-dynamics Hessian block (slower iterations for a negligible
        change in cost: docs/modelling.md)."""
        return 0.5 * (q0 + q1), 0.5 * (v0 + v1)

    @staticmethod
    def held(tau, x0, x_interval, x1):
        """A per-interval constant (a, f) at fraction tau of its interval: the constant inside,
        the knot values x0, x1 (the mean of the two intervals meeting there) at tau = 0 and 1."""
        return x0 if tau <= 0.0 else (x1 if tau >= 1.0 else x_interval)

    @staticmethod
    def weights(n_intervals: int):
        """Quadrature weights over the knots, in units of h: (knot weights, midpoint weights).
        Knots carry integrands of (q, v, τ) (τ is linear: the trapezoid); integrands with
        forces or accelerations use the midpoint rule (weight 1 per interval)."""
        w = np.ones(n_intervals + 1)
        w[0] = w[-1] = 0.5
        return w, None

    @staticmethod
    def interpolate(tau, h, q0, v0, a0, q1, v1, a1, mid=None):
        """(q, v, a) at fraction tau ∈ [0, 1] of an interval, exact at both knots.

        mid = (q_m, v_m, a_interval): q quadratic and v linear with the interval's constant a;
        a is that constant inside the interval and the knot values a0, a1 (by convention the
        mean of the two intervals that meet there) at tau = 0 and 1. Without mid (knot values
        only), a linear a and the quadratic q, v it integrates to."""
        s = tau * h
        if mid is not None:
            acc = mid[2]
            return q0 + v0 * s + acc * s ** 2 / 2.0, v0 + acc * s, Trapezoidal.held(tau, a0, acc, a1)
        a = a0 + (a1 - a0) * tau
        v = v0 + a0 * s + (a1 - a0) * s ** 2 / (2.0 * h)
        q = q0 + v0 * s + (v1 - v0) * s ** 2 / (2.0 * h)
        return q, v, a

    def phase_variables(self, builder, name, K, bounds, duration, active):
        b = bounds
        qb = builder.var(f"q_{name}", (b.nv, K + 1), b.q_lb[:, None], b.q_ub[:, None])
        vb = builder.var(f"v_{name}", (b.nv, K + 1), b.v_lb[:, None], b.v_ub[:, None])
        ab = builder.var(f"a_{name}", (b.nv, K))
        ub = builder.var(f"tau_{name}", (b.nu, K + 1), -b.u_lim[:, None], b.u_lim[:, None])
        fb = builder.var(f"f_{name}", (b.f_lb.shape[0], K), b.f_lb, b.f_ub)
        # The midpoint state as variables tied to the knots by linear rows: as expressions of
        # both knots' states they would make every dynamics Hessian block four times larger.
        interval = {"q": builder.var(f"qs_{name}", (b.nv, K), b.q_lb[:, None], b.q_ub[:, None]),
                    "v": builder.var(f"vs_{name}", (b.nv, K), b.v_lb[:, None], b.v_ub[:, None])}
        return PhaseVars(name, qb, vb, ab, ub, fb, interval, duration, active)

    @staticmethod
    def _interval_point(pv, k):
        """(q, v, a, τ, f) where interval k's equations of motion hold: the midpoint state,
        the interval's a and f, the mean of its end torques."""
        taus = pv.tau.columns
        tau = 0.5 * (taus[k] + taus[k + 1])
        return (pv.interval["q"].columns[k], pv.interval["v"].columns[k], pv.a.columns[k], tau, pv.f.columns[k])

    def points(self, pv):
        K = pv.n_intervals
        first = Point(pv.q.sym[:, 0], pv.v.sym[:, 0], None, pv.tau.sym[:, 0], None, 0, True, False)
        out = [first]
        for k in range(1, K + 1):
            out.append(Point(pv.q.sym[:, k], pv.v.sym[:, k], None, pv.tau.sym[:, k], None, k, True, False, first))
        for k in range(K):
            out.append(Point(*self._interval_point(pv, k), k + 0.5, False, True, first))
        return out

    def _knot_slots(self, pv, ks):
        return [("q", pv.q, ks), ("v", pv.v, ks), ("tau", pv.tau, ks)]

    def _mid_slots(self, pv, ks):
        m = pv.interval
        return [("q", m["q"], ks), ("v", m["v"], ks), ("a", pv.a, ks), ("tau0", pv.tau, ks), ("tau1", pv.tau, ks + 1),
                ("f", pv.f, ks)]

    def _knot_point(self, syms, progress, start):
        q, v, tau = syms[:3]
        return Point(q, v, None, tau, None, progress, True, False, start)

    def _mid_point(self, syms, progress, start):
        q, v, a, t0, t1, f = syms
        return Point(q, v, a, 0.5 * (t0 + t1), f, progress, False, True, start)

    def collocation_rows(self, pv, h):
        K = pv.n_intervals
        q, v = pv.q.sym, pv.v.sym
        rows = []
        for k in range(K):
            q_def, v_def = self.midpoint(q[:, k], v[:, k], q[:, k + 1], v[:, k + 1])
            rows.append(ca.vertcat(pv.interval["q"].sym[:, k] - q_def, pv.interval["v"].sym[:, k] - v_def))
        for k in range(K):
            mid = (None, None, pv.a.sym[:, k])
            rows += self.defects(h, q[:, k], v[:, k], None, q[:, k + 1], v[:, k + 1], None, mid)
        return rows

    def torque_mode_rows(self, pv):
        # Knot torques enter the equations of motion only as interval means, so alternating
        # them knot to knot changes nothing but the cost; with no continuity row to fix that
        # mode, τ is linear over the phase's first two intervals (a second-order consistent
        # condition, like a spline's not-a-knot end).
        tt = pv.tau.sym
        return [tt[:, 0] - 2 * tt[:, 1] + tt[:, 2] if tt.shape[1] > 2 else tt[:, 0] - tt[:, 1]]

    def torque_rate_ends(self, pv, k):
        return [pv.tau.sym[:, k + 1] - pv.tau.sym[:, k]]

    def interval_torques(self, pv, k):
        return pv.tau.columns[k:k + 2]

    def torque_rate_integral(self, torques, h):
        tau0, tau1 = torques
        return ca.sumsqr(tau1 - tau0) / h

    def quadrature(self, pv, p, forces=False):
        K = pv.n_intervals
        if forces:  # the midpoint rule over the intervals (a, f constant on each)
            for k in range(K):
                yield (1.0, *self._interval_point(pv, k), (p, k + 0.5))
            return
        wk, _ = self.weights(K)
        q, v, tau = pv.q.columns, pv.v.columns, pv.tau.columns
        for k in range(K + 1):
            yield wk[k], q[k], v[k], None, tau[k], None, (p, k)

    def power_nodes(self, pv, p):
        # τ and v linear on an interval: τ·v quadratic, Simpson's rule over (knot, midpoint, knot)
        # is exact; the midpoint carries the mean torque and the midpoint-state velocity.
        K, v, tau = pv.n_intervals, pv.v.columns, pv.tau.columns
        out = [PowerNode((p, k), (1.0 if 0 < k < K else 0.5) / 3.0, "knot", [tau[k], v[k]], _as_is)
               for k in range(K + 1)]
        vm = pv.interval["v"].columns
        out += [PowerNode((p, k + 0.5), 2.0 / 3.0, "midpoint", [tau[k], tau[k + 1], vm[k]], _mean_torque)
                for k in range(K)]
        return out

    def fill_guess(self, x0, pv, Q, V, A, U, F):
        x0[pv.q.index], x0[pv.v.index], x0[pv.tau.index] = Q, V, U
        x0[pv.a.index], x0[pv.f.index] = _mean(A), _mean(F)  # a and f per interval
        self._fill_midpoint_state(x0, pv)

    def _fill_midpoint_state(self, x0, pv):
        q, v = x0[pv.q.index], x0[pv.v.index]
        qm, vm = self.midpoint(q[:, :-1], v[:, :-1], q[:, 1:], v[:, 1:])
        x0[pv.interval["q"].index], x0[pv.interval["v"].index] = qm, vm

    def fill_warm_start(self, x0, pv, knots, mids):
        for key in ("q", "v", "tau"):
            x0[getattr(pv, key).index] = knots[key].T
        x0[pv.a.index] = mids["a"].T  # a and f per interval: their midpoint values
        if mids["f"].size:
            x0[pv.f.index] = mids["f"]
        self._fill_midpoint_state(x0, pv)

    def phase_values(self, x, pv, forces):
        a_int, f_int = x[pv.a.index].T, forces(x[pv.f.index], pv.active)
        tau = x[pv.tau.index].T
        # the midpoints carry a and f (with the midpoint state and the mean torque, where the
        # equations of motion hold); the knots get their means
        mid = {"q": x[pv.interval["q"].index].T, "v": x[pv.interval["v"].index].T, "a": a_int,
               "tau": 0.5 * (tau[:-1] + tau[1:]), "f": f_int}
        return interval_to_knots(a_int), interval_to_knots(f_int), mid

    def interpolate_input(self, s, x0, x1, xm, key):
        if key == "f" and xm is not None:
            return self.held(s, x0, xm, x1)
        return x0 + s * (x1 - x0)

    def midpoints_from_knots(self, t, q, v, a, tau, f):
        qm, vm = self.midpoint(q[:-1], v[:-1], q[1:], v[1:])
        return {"q": qm, "v": vm, "a": knots_to_interval(a), "tau": 0.5 * (tau[:-1] + tau[1:]),
                "f": knots_to_interval(f)}
