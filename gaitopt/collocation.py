"""Collocation rules: defects, quadrature weights and the interpolant that matches each.

Both rules treat (q, v) as the state and the acceleration a = q̈ as the collocated input:
q̇ = v, v̇ = a.

* trapezoidal: a piecewise linear; v and q piecewise quadratic (each from its end derivatives).
* hermite_simpson (separated form): midpoint values (q_m, v_m, a_m) are variables; a is
  piecewise quadratic through (a_k, a_m, a_k+1); v and q are its exact integrals.
"""
from __future__ import annotations

import numpy as np


class Trapezoidal:
    name = "trapezoidal"
    has_midpoints = False

    @staticmethod
    def defects(h, q0, v0, a0, q1, v1, a1, mid=None):
        """Residuals (must be 0) of one interval of length h [s]."""
        return [q1 - q0 - 0.5 * h * (v0 + v1), v1 - v0 - 0.5 * h * (a0 + a1)]

    @staticmethod
    def weights(n_intervals: int):
        """Quadrature weights over the knots, in units of h: (knot weights, midpoint weights)."""
        w = np.ones(n_intervals + 1)
        w[0] = w[-1] = 0.5
        return w, None

    @staticmethod
    def interpolate(tau, h, q0, v0, a0, q1, v1, a1, mid=None):
        """(q, v, a) at fraction tau ∈ [0, 1] of an interval: each state quadratic with the
        trapezoid's end derivatives (q from v, v from a), a linear; exact at both knots."""
        s = tau * h
        a = a0 + (a1 - a0) * tau
        v = v0 + a0 * s + (a1 - a0) * s ** 2 / (2.0 * h)
        q = q0 + v0 * s + (v1 - v0) * s ** 2 / (2.0 * h)
        return q, v, a


class HermiteSimpson:
    name = "hermite_simpson"
    has_midpoints = True

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
    def interpolate(tau, h, q0, v0, a0, q1, v1, a1, mid):
        """a quadratic through (a0, am, a1); v and q integrate it from (q0, v0).

        At tau = 1 this reproduces q1, v1 exactly when the defects vanish (Simpson's rule is
        exact for the cubic v and the quartic q to the order the defects impose)."""
        _, _, am = mid
        # a(s) = a0 + b s + c s²  through a(h/2) = am, a(h) = a1
        b = (-3.0 * a0 + 4.0 * am - a1) / h
        c = (2.0 * a0 - 4.0 * am + 2.0 * a1) / h ** 2
        s = tau * h
        a = a0 + b * s + c * s ** 2
        v = v0 + a0 * s + b * s ** 2 / 2.0 + c * s ** 3 / 3.0
        q = q0 + v0 * s + a0 * s ** 2 / 2.0 + b * s ** 3 / 6.0 + c * s ** 4 / 12.0
        return q, v, a


METHODS = {"trapezoidal": Trapezoidal, "hermite_simpson": HermiteSimpson}
