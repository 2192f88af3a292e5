"""Cost terms that are sums over the collocation points, built once per group of points.

An integral cost is a quadrature Σ_j w_j L(u_j): a number w_j (the rule's weight) times an
integrand L of the point's inputs u_j (its torques, a phase duration, the stride, …). Points
whose inputs have the same form (one term, one phase, knots or midpoints) form a group; the
integrand is built once per group as a CasADi Function of the symbols its inputs depend on,
with the weight as its parameter, and gaitopt.assembly maps it over the group and
differentiates it once, as it does the constraint rows. Built as one SX sum instead, the cost's
Hessian grew with the knots and dominated the set-up at 8× knots (the slope walk's FRI cost:
0.7 s of 1.1 s; docs/speed.md, 2026-11-24).
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from .assembly import MappedRows, function_name, group_function


class PointSum:
    """A cost term Σ_g Σ_{j∈g} w_j · L_g(u_j): numbers w_j, SX inputs u_j, one integrand L_g
    per group g. Build it with `add`; `blocks(x)` gives its groups as mapped blocks of the
    variables x (gaitopt.assembly), `value(x, values)` its value at numbers."""

    def __init__(self, groups: dict | None = None):
        self._groups = {} if groups is None else groups  # key → (integrand, [(w, inputs)])
        self._blocks = None
        self._converted = {}

    def add(self, key, weight: float, integrand, *inputs) -> None:
        """Add weight · integrand(*inputs). key: the group (points whose inputs have one form).
        integrand(*inputs) → SX scalar should read no symbols but those of its inputs (a group
        whose integrand does is summed as one SX expression instead of mapped); it is called
        once per group, with the group's first point's inputs."""
        self._blocks = None
        group = self._groups.setdefault(key, (integrand, []))
        group[1].append((float(weight), [u if isinstance(u, ca.SX) else self._as_sx(u) for u in inputs]))

    def _as_sx(self, u):
        """u (a number or DM) as SX, one SX per object: an input passed at every point (a
        column of motor constants) stays one object, so it is read once (assembly.input_offsets)."""
        if id(u) not in self._converted:
            self._converted[id(u)] = (u, ca.SX(u))  # (u kept: its id stays its own)
        return self._converted[id(u)][1]

    def scaled(self, c: float) -> "PointSum":
        """The same sum times the number c."""
        return PointSum({k: (f, [(c * w, u) for w, u in pts]) for k, (f, pts) in self._groups.items()})

    def blocks(self, x) -> tuple:
        """(blocks, rest): the groups as MappedRows of the (n,1) SX variables x (rows None: their
        values add up into the cost; fn(z (nz,1), w (1,1)) → w·L), and the groups that cannot be
        mapped as one SX expression."""
        if self._blocks is None:
            out, rest = [], ca.SX(0)
            w = ca.SX.sym("w")
            for key, (integrand, points) in self._groups.items():
                made = group_function(x, f"cost_{function_name(key)}", [inputs for _, inputs in points],
                                      w * ca.SX(integrand(*points[0][1])), w)
                if made is not None:
                    out.append(MappedRows(made[0], made[1], np.array([[wt for wt, _ in points]]), None))
                else:  # (co-design's limb scales inside the robot functions, or inputs of several forms)
                    rest += sum(wt * ca.SX(integrand(*inputs)) for wt, inputs in points)
            self._blocks = out, rest
        return self._blocks

    def value(self, x, values) -> float:
        """The sum at the numbers `values` (n,) of the (n,1) SX variables x."""
        blocks, rest = self.blocks(x)
        values = np.asarray(values, float)
        total = float(ca.Function("rest", [x], [rest])(values)) if rest.nnz() else 0.0
        return total + sum(float(np.sum(mr.values(values))) for mr in blocks)
