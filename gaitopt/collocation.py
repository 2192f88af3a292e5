"""Collocation rules: each owns its phase variables, defects, collocation points, quadrature,
interpolant and the conversions between its variables and trajectory knot tables.

Both rules treat (q, v) as the state and the acceleration a = q̈ as the collocated input:
q̇ = v, v̇ = a. Nothing outside this module asks which rule is in use: the transcription, the
cost terms, the initial guess, the result and the trajectory call the methods of
`CollocationRule`; adding a rule means adding a class here (and its tests).

* trapezoidal: a, and the contact forces f, are constant over each interval (one value per
  interval); v is piecewise linear and q piecewise quadratic, integrated exactly (the trapezoid
  rule for q is exact for a linear v). The equations of motion hold at each interval's
  midpoint (the mean of its knot states, held in midpoint-state variables tied to the knots by
  linear rows), with that interval's a and f and the mean of the torques at its two knots
  (τ is piecewise linear). Why not a at the knots: the trapezoid v-defect sees only
  a_k + a_k+1, so knot accelerations and the contact forces that balance them have a free
  alternating ("ringing") mode no constraint or cost fixes; the optimiser used it and the
  cost converged at first order. With one a per interval every interval's a is Δv/h.
* hermite_simpson (separated form): midpoint values (q_m, v_m, a_m, τ_m, f_m) are variables;
  a, τ and f are piecewise quadratic through (knot, midpoint, knot); v and q integrate a.

Signatures shared by both rules: `defects(h, q0, v0, a0, q1, v1, a1, mid)` and
`interpolate(tau, h, q0, v0, a0, q1, v1, a1, mid)` with mid = (q_m, v_m, a_m) — for the
trapezoid the midpoint state and the interval's constant a (a0, a1 are then unused by the
defects).
"""
from __future__ import annotations

from .collocation_hermite_simpson import HermiteSimpson
from .collocation_rule import (KNOT_KEYS, CollocationRule, PowerNode, interval_to_knots, knots_to_interval,
                               point_kind)
from .collocation_trapezoidal import Trapezoidal

__all__ = ["METHODS", "CollocationRule", "Trapezoidal", "HermiteSimpson", "PowerNode", "KNOT_KEYS",
           "interval_to_knots", "knots_to_interval", "point_kind"]

# Built-in rules by name: a literal, read-only table of instances.
METHODS = {"trapezoidal": Trapezoidal(), "hermite_simpson": HermiteSimpson()}
