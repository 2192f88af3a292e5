"""Collocation rules: defects, quadrature weights and the interpolant that matches each.

Both rules treat (q, v) as the state and the acceleration a = q̈ as the collocated input:
q̇ = v, v̇ = a.

* trapezoidal: a, and the contact forces f, are constant over each interval (one value per
  interval, `interval_inputs`); v is piecewise linear and q piecewise quadratic, integrated
  exactly (the trapezoid rule for q is exact for a linear v). The equations of motion hold at
  each interval's midpoint (the mean of its knot states), with that interval's a and f and the
  mean of the torques at its two knots (τ is piecewise linear). Why not a at the knots: the trapezoid v-defect sees only
  a_k + a_k+1, so knot accelerations and the contact forces that balance them have a free
  alternating ("ringing") mode no constraint or cost fixes; the optimiser used it, forces
  alternated ≈15/210 N around m g from knot to knot, and the cost converged at first order.
  With one a per interval every interval's a is Δv/h: nothing is left free.
* hermite_simpson (separated form): midpoint values (q_m, v_m, a_m, τ_m, f_m) are variables;
  a is piecewise quadratic through (a_k, a_m, a_k+1); v and q are its exact integrals.
"""
from __future__ import annotations

import numpy as np


class Trapezoidal:
    name = "trapezoidal"
    has_midpoints = False       # no midpoint decision variables
    interval_inputs = True      # a and f: one value per interval

    @staticmethod
    def defects(h, q0, v0, q1, v1, a):
        """Residuals (must be 0) of one interval of length h [s] with acceleration a."""
        return [q1 - q0 - 0.5 * h * (v0 + v1), v1 - v0 - h * a]

    @staticmethod
    def midpoint(q0, v0, q1, v1):
        """(q, v) where the equations of motion are imposed: the means of the knot states.
        v is exact (v is linear); q differs from the quadratic's midpoint value by h² a / 8,
        a second-order error like the rule's own. The exact value would put a and the phase
        duration into every inverse-dynamics Hessian block: measured 1.6× the time per IPOPT
        iteration on solo12_trot and 1.3× on the biped7 walks, for a 0.1 % change in cost."""
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


def interval_to_knots(values: np.ndarray) -> np.ndarray:
    """Knot values (K+1, …) of per-interval values (K, …): the mean of the two intervals
    meeting at an inner knot, the adjacent interval's value at the phase's end knots."""
    values = np.asarray(values, float)
    out = np.empty((values.shape[0] + 1,) + values.shape[1:])
    out[0], out[-1] = values[0], values[-1]
    out[1:-1] = 0.5 * (values[:-1] + values[1:])
    return out


def knots_to_interval(knots: np.ndarray) -> np.ndarray:
    """Inverse of `interval_to_knots` (K+1, …) → (K, …), from the first knot, which carries the
    first interval's value."""
    knots = np.asarray(knots, float)
    out = np.empty((knots.shape[0] - 1,) + knots.shape[1:])
    out[0] = knots[0]
    for k in range(1, len(out)):
        out[k] = 2.0 * knots[k] - out[k - 1]
    return out


class HermiteSimpson:
    name = "hermite_simpson"
    has_midpoints = True
    interval_inputs = False

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


METHODS = {"trapezoidal": Trapezoidal, "hermite_simpson": HermiteSimpson}
