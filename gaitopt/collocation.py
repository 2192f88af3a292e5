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

from typing import Callable, NamedTuple

import casadi as ca
import numpy as np

from .nlp import KnotProgress, PhaseVars, Point, PointClass, gather

KNOT_KEYS = ("q", "v", "a", "tau", "f")


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


def _mean(m):
    """Interval means of knot columns (… × K+1 → … × K)."""
    return 0.5 * (m[:, :-1] + m[:, 1:])


def point_kind(key) -> str:
    """"knot" or "midpoint": the kind of a quadrature point named key = (phase, k), k + 0.5 at a
    midpoint (`CollocationRule.quadrature`)."""
    return "midpoint" if key[1] % 1 else "knot"


class PowerNode(NamedTuple):
    """A node of the quadrature of a power integrand ∫ τ·q̇ dt (`CollocationRule.power_nodes`):
    key = (phase, k + s) at fraction s of interval k; weight in units of h; kind names the nodes
    whose inputs have one form; at(*inputs) → (τ, v) there, on the rule's interpolant."""

    key: tuple
    weight: float
    kind: str
    inputs: list
    at: Callable


def _as_is(tau, v):
    return tau, v


def _mean_torque(tau0, tau1, v):
    return 0.5 * (tau0 + tau1), v


class CollocationRule:
    """The interface every rule implements (see the module docstring for the two rules)."""

    name = ""
    # True when a trajectory's knot table alone (trajectory.csv) determines the rule's interval
    # values exactly; otherwise the knots.npz companion is needed for a lossless reload.
    knot_table_exact = True

    def phase_variables(self, builder, name, K, bounds, duration, active) -> PhaseVars:
        """Create the variables of one phase of K intervals. bounds: `VariableBounds`."""
        raise NotImplementedError

    def points(self, pv: PhaseVars) -> list:
        """The phase's collocation points (Point), knots first."""
        raise NotImplementedError

    # How `collocation_rows` orders its entries for K intervals, from those of one interval:
    # groups of entry indices, each group's entries for interval 0, then 1, … (see
    # gaitopt.tracing.add_interval_rows)
    collocation_order: tuple = ()

    def collocation_rows(self, pv: PhaseVars, h) -> list:
        """Row expressions (each = 0) that integrate the phase's state over its intervals."""
        raise NotImplementedError

    def point_classes(self, pv: PhaseVars) -> list:
        """The points of `points(pv)` as PointClass groups, in their order: the first knot, the
        inner knots, the last knot, the interval midpoints (each class's rows are built once
        and mapped over its points)."""
        K = pv.n_intervals
        start_syms, start_index = gather(self._knot_slots(pv, [0]))
        out = [self._point_class(pv, self._knot_slots(pv, [0]), self._knot_point, 0, None, None, [0])]
        for ks in (np.arange(1, K), np.array([K])):
            if ks.size:
                progress = KnotProgress(ks) if ks.size > 1 or ks[0] != K else K
                out.append(self._point_class(pv, self._knot_slots(pv, ks), self._knot_point, progress,
                                             start_syms, start_index, ks))
        ks = np.arange(K)
        out.append(self._point_class(pv, self._mid_slots(pv, ks), self._mid_point, KnotProgress(ks + 0.5),
                                     start_syms, start_index, K + 1 + ks))
        return out

    def _point_class(self, pv, slots, make, progress, start_syms, start_index, positions) -> PointClass:
        syms, index = gather(slots)
        start, symbols = None, list(syms)
        if start_syms is not None:
            start = self._knot_point(start_syms, 0, None)
            symbols += start_syms
            index = np.vstack([index, np.repeat(start_index, index.shape[1], axis=1)])
        return PointClass(make(syms, progress, start), ca.vertcat(*symbols), index, np.asarray(positions))

    def _knot_slots(self, pv, ks) -> list:
        """(name, Block, columns) of a knot point's variables (see `gather`)."""
        raise NotImplementedError

    def _mid_slots(self, pv, ks) -> list:
        raise NotImplementedError

    def _knot_point(self, syms, progress, start) -> Point:
        """A knot's Point from its slot symbols."""
        raise NotImplementedError

    def _mid_point(self, syms, progress, start) -> Point:
        raise NotImplementedError

    def acceleration_mode_rows(self, pv: PhaseVars) -> list:
        """Rows (= 0) fixing a direction the defects leave free, once per stretch of phases
        joined without a contact event ([] when the rule has none)."""
        return []

    def torque_mode_rows(self, pv: PhaseVars) -> list:
        """Rows (= 0) at a junction where the torques may jump, fixing a torque mode that only
        continuity would fix ([] when the rule has none)."""
        return []

    def torque_rate_ends(self, pv: PhaseVars, k: int) -> list:
        """h·dτ/dt at the ends of interval k of the rule's torque interpolant."""
        raise NotImplementedError

    def interval_torques(self, pv: PhaseVars, k: int) -> list:
        """The torque columns (SX) that the rule's torque interpolant on interval k goes through."""
        raise NotImplementedError

    def torque_rate_integral(self, torques: list, h):
        """∫ |dτ/dt|² dt over an interval of length h [s] through `torques` (interval_torques),
        exact on the rule's torque interpolant."""
        raise NotImplementedError

    def quadrature(self, pv: PhaseVars, p: int, forces: bool = False):
        """Yield (weight in units of h, q, v, a, τ, f, key) over the phase: the rule's
        quadrature of integrands of (q, v, τ), or with `forces` of integrands that also need
        a or f. key = (p, k) names the point (k + 0.5 at a midpoint)."""
        raise NotImplementedError

    def power_nodes(self, pv: PhaseVars, p: int) -> list:
        """PowerNodes of the quadrature of τ·q̇ over the phase, exact for the rule's interpolant
        (τ·q̇ a polynomial on each interval): |τ q̇| at these nodes (`PowerSplit`) then
        integrates |τ q̇| exactly wherever τ q̇ keeps its sign inside an interval, so a cost of
        absolute work cannot hide torque at nodes where q̇ vanishes (docs/modelling.md)."""
        raise NotImplementedError

    def fill_guess(self, x0, pv: PhaseVars, Q, V, A, U, F) -> None:
        """Write knot-wise guesses (each dimension × K+1) into x0 for this phase."""
        raise NotImplementedError

    def fill_warm_start(self, x0, pv: PhaseVars, knots: dict, mids: dict) -> None:
        """Write a previous trajectory sampled at the knots and at the interval midpoints
        (dicts of q, v, a, tau (time × dim) and f (dim·n_active × time)) into x0."""
        raise NotImplementedError

    def phase_values(self, x, pv: PhaseVars, forces) -> tuple:
        """(a, f, mid) knot tables of a solution: a (K+1, nv), f (K+1, nc, 3), mid as in
        PhaseTrajectory. forces(values, active) maps force variables to (n, nc, 3)."""
        raise NotImplementedError

    def interpolate_input(self, s, x0, x1, xm, key):
        """τ or f (`key`) at fraction s of an interval from its knot values and the trajectory's
        midpoint value xm (None when the trajectory has none)."""
        if xm is None:
            return x0 + s * (x1 - x0)
        return x0 * (1 - s) * (1 - 2 * s) + 4 * xm * s * (1 - s) + x1 * s * (2 * s - 1)

    def midpoints_from_knots(self, t, q, v, a, tau, f) -> dict:
        """The trajectory's midpoint table (see PhaseTrajectory.mid) from one phase's knot rows."""
        raise NotImplementedError


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


# Built-in rules by name: a literal, read-only table of instances.
METHODS = {"trapezoidal": Trapezoidal(), "hermite_simpson": HermiteSimpson()}
