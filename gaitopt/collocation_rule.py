"""The base of the collocation rules (`CollocationRule`) and what the rules share: knot/interval
conversions, power-quadrature nodes. The rules themselves: gaitopt.collocation_trapezoidal and
gaitopt.collocation_hermite_simpson; by name: gaitopt.collocation.METHODS (its docstring
describes both rules)."""
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
