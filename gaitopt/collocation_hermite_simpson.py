"""The Hermite–Simpson collocation rule, separated form (see gaitopt.collocation for both rules
side by side)."""
from __future__ import annotations

import casadi as ca
import numpy as np

from .collocation_rule import KNOT_KEYS, CollocationRule, PowerNode, _as_is, _mean
from .nlp import PhaseVars, Point


class HermiteSimpson(CollocationRule):
    name = "hermite_simpson"
    collocation_order = ((0, 1, 2, 3),)
    knot_table_exact = False  # midpoint τ and f are not determined by the knots

    @staticmethod
    def defects(h, q0, v0, a0, q1, v1, a1, mid):
        qm, vm, am = mid
        return [
            qm - 0.5 * (q0 + q1) - h / 8.0 * (v0 - v1),
            vm - 0.5 * (v0 + v1) - h / 8.0 * (a0 - a1),
            q1 - q0 - h / 6.0 * (v0 + 4.0 * vm + v1),
            v1 - v0 - h / 6.0 * (a0 + 4.0 * am + a1),
        ]

    @staticmethod
    def weights(n_intervals: int):
        w = np.full(n_intervals + 1, 2.0 / 6.0)
        w[0] = w[-1] = 1.0 / 6.0
        return w, np.full(n_intervals, 4.0 / 6.0)

    @staticmethod
    def quadratic_rate(x0, xm, x1):
        """(A, B) with dx/ds = A + B·s, s ∈ [0, 1] the fraction of the interval, for the quadratic
        through x0, xm, x1 at s = 0, ½, 1 (so A and A + B are h·dx/dt at its two ends)."""
        return -3.0 * x0 + 4.0 * xm - x1, 4.0 * (x0 - 2.0 * xm + x1)

    @staticmethod
    def interpolate(tau, h, q0, v0, a0, q1, v1, a1, mid):
        """a quadratic through (a0, am, a1); v and q integrate it from (q0, v0).

        At tau = 1 this reproduces q1, v1 exactly when the defects vanish (Simpson's rule is
        exact for the cubic v and the quartic q to the order the defects impose)."""
        _, _, am = mid
        # a(s) = a0 + b s + c s²  through a(h/2) = am, a(h) = a1
        A, B = HermiteSimpson.quadratic_rate(a0, am, a1)
        b, c = A / h, B / (2.0 * h ** 2)
        s = tau * h
        a = a0 + b * s + c * s ** 2
        v = v0 + a0 * s + b * s ** 2 / 2.0 + c * s ** 3 / 3.0
        q = q0 + v0 * s + a0 * s ** 2 / 2.0 + b * s ** 3 / 6.0 + c * s ** 4 / 12.0
        return q, v, a

    def phase_variables(self, builder, name, K, bounds, duration, active):
        b = bounds
        nf = b.f_lb.shape[0]
        qb = builder.var(f"q_{name}", (b.nv, K + 1), b.q_lb[:, None], b.q_ub[:, None])
        vb = builder.var(f"v_{name}", (b.nv, K + 1), b.v_lb[:, None], b.v_ub[:, None])
        ab = builder.var(f"a_{name}", (b.nv, K + 1))
        ub = builder.var(f"tau_{name}", (b.nu, K + 1), -b.u_lim[:, None], b.u_lim[:, None])
        fb = builder.var(f"f_{name}", (nf, K + 1), b.f_lb, b.f_ub)
        interval = {
            "q": builder.var(f"qm_{name}", (b.nv, K), b.q_lb[:, None], b.q_ub[:, None]),
            "v": builder.var(f"vm_{name}", (b.nv, K), b.v_lb[:, None], b.v_ub[:, None]),
            "a": builder.var(f"am_{name}", (b.nv, K)),
            "tau": builder.var(f"taum_{name}", (b.nu, K), -b.u_lim[:, None], b.u_lim[:, None]),
            "f": builder.var(f"fm_{name}", (nf, K), b.f_lb, b.f_ub),
        }
        return PhaseVars(name, qb, vb, ab, ub, fb, interval, duration, active)

    def points(self, pv):
        K = pv.n_intervals
        m = pv.interval
        first = Point(pv.q.sym[:, 0], pv.v.sym[:, 0], pv.a.sym[:, 0], pv.tau.sym[:, 0], pv.f.sym[:, 0], 0, True, True)
        out = [first]
        for k in range(1, K + 1):
            out.append(Point(pv.q.sym[:, k], pv.v.sym[:, k], pv.a.sym[:, k], pv.tau.sym[:, k], pv.f.sym[:, k], k,
                             True, True, first))
        for k in range(K):
            out.append(Point(m["q"].sym[:, k], m["v"].sym[:, k], m["a"].sym[:, k], m["tau"].sym[:, k],
                             m["f"].sym[:, k], k + 0.5, True, True, first))
        return out

    def _knot_slots(self, pv, ks):
        return [(key, getattr(pv, key), ks) for key in KNOT_KEYS]

    def _mid_slots(self, pv, ks):
        return [(key, pv.interval[key], ks) for key in KNOT_KEYS]

    def _knot_point(self, syms, progress, start):
        return Point(*syms, progress, True, True, start)

    _mid_point = _knot_point

    def collocation_rows(self, pv, h):
        q, v, a, m = pv.q.sym, pv.v.sym, pv.a.sym, pv.interval
        rows = []
        for k in range(pv.n_intervals):
            mid = (m["q"].sym[:, k], m["v"].sym[:, k], m["a"].sym[:, k])
            rows += self.defects(h, q[:, k], v[:, k], a[:, k], q[:, k + 1], v[:, k + 1], a[:, k + 1], mid)
        return rows

    def acceleration_mode_rows(self, pv):
        # Simpson's v-defect sees a_k + 4 a_m + a_k+1 and the v_m defect a_k − a_k+1: shifting
        # every knot a by c and every midpoint a by −c/2 (the Legendre P₂ part of each
        # interval's quadratic a, which integrates to nothing in v and q) changes no defect,
        # and contact forces balance it in the equations of motion. One row per stretch of
        # phases joined without a contact event fixes that free vector: a is linear over the
        # phase's first interval (a second row in the same stretch would be dependent).
        return [pv.interval["a"].sym[:, 0] - 0.5 * (pv.a.sym[:, 0] + pv.a.sym[:, 1])]

    def torque_rate_ends(self, pv, k):
        # τ quadratic: dτ/dt is linear on the interval, largest at an end
        start, change = self.quadratic_rate(pv.tau.sym[:, k], pv.interval["tau"].sym[:, k], pv.tau.sym[:, k + 1])
        return [start, start + change]

    def interval_torques(self, pv, k):
        taus = pv.tau.columns
        return [taus[k], pv.interval["tau"].columns[k], taus[k + 1]]

    def torque_rate_integral(self, torques, h):
        A, B = self.quadratic_rate(*torques)
        return (ca.sumsqr(A) + ca.dot(A, B) + ca.sumsqr(B) / 3.0) / h

    def quadrature(self, pv, p, forces=False):
        K = pv.n_intervals
        wk, wm = self.weights(K)
        knots = [b.columns for b in (pv.q, pv.v, pv.a, pv.tau, pv.f)]
        for k in range(K + 1):
            yield (wk[k], *(c[k] for c in knots), (p, k))
        mids = [pv.interval[key].columns for key in ("q", "v", "a", "tau", "f")]
        for k in range(K):
            yield (wm[k], *(c[k] for c in mids), (p, k + 0.5))

    # Boole's rule over s = 0, ¼, ½, ¾, 1 of an interval (weights ×1/90), exact to degree 5: τ is
    # quadratic and v cubic, so τ·v is quintic. At s = ¼ and ¾, τ from its quadratic and v from
    # the integral of a's quadratic (`interpolate`): v(s) = v0 + h Σ_j a_j ∫₀ˢ L_j.
    _BOOLE = (7.0 / 90.0, 32.0 / 90.0, 12.0 / 90.0)
    _QUARTER = {0.25: ((3 / 8, 3 / 4, -1 / 8), (1 / 6, 5 / 48, -1 / 48)),
                0.75: ((-1 / 8, 3 / 4, 3 / 8), (3 / 16, 9 / 16, 0.0))}

    @classmethod
    def _quarter(cls, s):
        (l0, lm, l1), (i0, im, i1) = cls._QUARTER[s]

        def at(tau0, taum, tau1, v0, a0, am, a1, h):
            return l0 * tau0 + lm * taum + l1 * tau1, v0 + h * (i0 * a0 + im * am + i1 * a1)
        return at

    def power_nodes(self, pv, p):
        K, m = pv.n_intervals, pv.interval
        w_end, w_quarter, w_mid = self._BOOLE
        tau, v, a = pv.tau.columns, pv.v.columns, pv.a.columns
        h = pv.duration / K
        out = [PowerNode((p, k), w_end * (2.0 if 0 < k < K else 1.0), "knot", [tau[k], v[k]], _as_is)
               for k in range(K + 1)]
        out += [PowerNode((p, k + 0.5), w_mid, "midpoint", [m["tau"].columns[k], m["v"].columns[k]], _as_is)
                for k in range(K)]
        for s in (0.25, 0.75):
            at = self._quarter(s)
            out += [PowerNode((p, k + s), w_quarter, f"interval_{s:g}",
                              [tau[k], m["tau"].columns[k], tau[k + 1], v[k], a[k], m["a"].columns[k], a[k + 1], h], at)
                     for k in range(K)]
        return out

    def fill_guess(self, x0, pv, Q, V, A, U, F):
        for key, M in zip(KNOT_KEYS, (Q, V, A, U, F)):
            x0[getattr(pv, key).index] = M
            x0[pv.interval[key].index] = _mean(M)

    def fill_warm_start(self, x0, pv, knots, mids):
        for key in KNOT_KEYS:
            src_k, src_m = (knots[key], mids[key]) if key == "f" else (knots[key].T, mids[key].T)
            if src_k.size:
                x0[getattr(pv, key).index] = src_k
                x0[pv.interval[key].index] = src_m

    def phase_values(self, x, pv, forces):
        mid = {k: x[pv.interval[k].index].T for k in ("q", "v", "a", "tau")}
        mid["f"] = forces(x[pv.interval["f"].index], pv.active)
        return x[pv.a.index].T, forces(x[pv.f.index], pv.active), mid

    def midpoints_from_knots(self, t, q, v, a, tau, f):
        h = np.diff(t)[:, None]
        q0, q1, v0, v1, a0, a1 = q[:-1], q[1:], v[:-1], v[1:], a[:-1], a[1:]
        return {"q": 0.5 * (q0 + q1) + h / 8.0 * (v0 - v1),
                "v": 0.5 * (v0 + v1) + h / 8.0 * (a0 - a1),
                "a": (6.0 * (v1 - v0) / h - a0 - a1) / 4.0,
                "tau": 0.5 * (tau[:-1] + tau[1:]),
                "f": 0.5 * (f[:-1] + f[1:])}
