"""The NLP under construction: decision-variable blocks, constraint rows, and the layout that
reads a solution vector back.

Every constraint component adds its rows through `NlpBuilder.con` under its own term name and
a phase name, so `Result.violations()` can report each term per phase; variable bounds that a
term owns are registered with `NlpBuilder.bound` for the same report.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import casadi as ca
import numpy as np

from .assembly import Assembly, MappedRows, flat_call, function_name, group_function, x_offsets


@dataclass
class Block:
    """A named block of decision variables: SX matrix `sym` at offsets `index` into x (same
    shape, column-major like CasADi)."""

    sym: ca.SX
    index: np.ndarray

    @cached_property
    def columns(self) -> list:
        """sym's columns (SX), split once: a column per knot taken by slicing costs a CasADi call
        each, and the quadrature takes every knot's for every cost term."""
        return ca.horzsplit(self.sym)


class NlpBuilder:
    """Collects variables (with bounds) and constraint rows lb ≤ g ≤ ub, each row tagged with
    (term, phase)."""

    def __init__(self):
        self.syms, self.lb, self.ub = [], [], []
        self._x = None  # (number of blocks, their stack): `x`
        self.n = 0
        self.g, self.lbg, self.ubg, self.rows = [], [], [], []
        self.ng = 0
        self.bound_rows = []
        self.g_rows = []  # offsets into g of each inline expression's rows
        self.maps = []  # MappedRows (gaitopt.assembly)
        self.call_functions = {}  # id(fn) → (fn, its mapped form): shared calls (gaitopt.tracing)
        self.point_rows = {}  # key → (rows_of, first point's rows, [(inputs, row offsets)]): `con_points`

    def var(self, name: str, shape, lb=-np.inf, ub=np.inf) -> Block:
        """A new (rows, cols) block of variables named `name`; lb, ub broadcast to its shape."""
        rows, cols = shape
        sym = ca.SX.sym(name, rows, cols)
        size = rows * cols
        idx = np.arange(self.n, self.n + size).reshape((cols, rows)).T  # column-major like casadi
        self.syms.append(ca.vec(sym))
        self.lb.append(np.broadcast_to(np.asarray(lb, float), (rows, cols)).T.ravel().copy())
        self.ub.append(np.broadcast_to(np.asarray(ub, float), (rows, cols)).T.ravel().copy())
        self.n += size
        return Block(sym, idx)

    def bound(self, term: str, phase: str, index: np.ndarray) -> None:
        """Report the variable bounds at `index` as term `term` of `phase` in violations()."""
        self.bound_rows.append((term, phase, np.asarray(index).ravel()))

    def tighten(self, index, lb=None, ub=None) -> None:
        """Intersect the bounds of existing variables at `index` with [lb, ub]."""
        lbs, ubs = np.concatenate(self.lb), np.concatenate(self.ub)
        index = np.asarray(index).ravel()
        if lb is not None:
            lbs[index] = np.maximum(lbs[index], lb)
        if ub is not None:
            ubs[index] = np.minimum(ubs[index], ub)
        self.lb, self.ub = [lbs], [ubs]

    def con(self, term: str, phase: str, expr, lb=0.0, ub=0.0) -> None:
        """Rows lb ≤ expr ≤ ub (expr vectorised; lb, ub broadcast), tagged (term, phase)."""
        expr = ca.vec(ca.SX(expr)) if not isinstance(expr, ca.SX) else ca.vec(expr)
        m = expr.numel()
        if m == 0:
            return
        self.g.append(expr)
        self.g_rows.append(np.arange(self.ng, self.ng + m))
        self.reserve(term, phase, m, lb, ub)

    def con_call(self, term: str, phase: str, fn, args, rest, lb=0.0, ub=0.0) -> None:
        """Rows lb ≤ fn(*args) + rest ≤ ub: `fn` a robot function (a casadi.Function) shared by
        many points (the inverse dynamics, the impact rows). Where every argument entry is a
        variable or a zero, the call is a shared block of its own (its derivatives built once per
        Function, and compiled with `solver.codegen`: gaitopt.codegen) and `rest` inline rows
        added at the same offsets; otherwise the same as `con`. Traced (gaitopt.tracing), a
        point component's calls are split likewise."""
        whole = isinstance(fn, ca.Function) and len(args) == fn.n_in()  # (tracing's `_split_calls` likewise)
        at = self._variable_offsets(args) if whole else None
        if at is None or at.size != sum(fn.numel_in(i) for i in range(fn.n_in())) \
                or fn.numel_out(0) != ca.SX(rest).numel() or fn.n_out() != 1:
            self.con(term, phase, fn(*args) + rest, lb, ub)
            return
        if id(fn) not in self.call_functions:
            self.call_functions[id(fn)] = (fn, flat_call(fn))
        rows = self.reserve(term, phase, fn.numel_out(0), lb, ub)
        self.maps.append(MappedRows(self.call_functions[id(fn)][1], at[:, None], np.zeros((0, 1)), rows[:, None],
                                    shared=True))
        rest = ca.densify(ca.vec(ca.SX(rest)))
        if not all(e.is_zero() for e in rest.elements()):
            self.g.append(rest)
            self.g_rows.append(rows)

    def _variable_offsets(self, args):
        """x offsets of the arguments' entries (−1 for a zero), stacked; None unless every entry is
        a variable of x or a structural/numeric zero."""
        w = ca.vertcat(*[ca.vec(ca.SX(a)) for a in args])
        elements = w.elements()
        live = [e for e in elements if not e.is_zero()]
        if not all(e.is_symbolic() for e in live):
            return None
        try:
            offsets = iter(x_offsets(self.x, live).tolist() if live else [])
        except RuntimeError:  # a symbol that is not a variable of x (a template's, a parameter)
            return None
        return np.array([-1 if e.is_zero() else next(offsets) for e in elements], int)

    def con_points(self, term: str, phase: str, key, rows_of, inputs, lb=0.0, ub=0.0) -> None:
        """Rows lb ≤ rows_of(*inputs) ≤ ub at one point (inputs: SX). Points added under one key
        whose inputs have one form are one Function of the first point's variables, mapped over
        them (gaitopt.assembly), rows_of being called once; otherwise their rows are inline.
        rows_of must read no symbols but its inputs'."""
        inputs = [u if isinstance(u, ca.SX) else ca.SX(u) for u in inputs]
        if key not in self.point_rows:  # (rows_of, its rows at the first point, [(inputs, row offsets)])
            self.point_rows[key] = (rows_of, ca.densify(ca.vec(ca.SX(rows_of(*inputs)))), [])
        _, first, points = self.point_rows[key]
        points.append((inputs, self.reserve(term, phase, first.numel(), lb, ub)))

    def _resolve_point_rows(self, x) -> None:
        """The groups of `con_points` as mapped rows, or inline where they cannot be."""
        for key, (rows_of, first, points) in self.point_rows.items():
            made = group_function(x, f"points_{function_name(key)}", [inputs for inputs, _ in points], first,
                                  ca.SX.sym("k", 0))
            if made is not None:
                self.maps.append(MappedRows(*made, np.zeros((0, len(points))), np.stack([r for _, r in points], axis=1)))
                continue
            for inputs, rows in points:
                self.g.append(ca.vec(ca.SX(rows_of(*inputs))))
                self.g_rows.append(rows)
        self.point_rows = {}

    def reserve(self, term: str, phase: str, m: int, lb=0.0, ub=0.0) -> np.ndarray:
        """Offsets of m new rows lb ≤ · ≤ ub tagged (term, phase) whose expressions come from a
        mapped function (`mapped`)."""
        self.lbg.append(np.broadcast_to(np.asarray(lb, float), (m,)).copy())
        self.ubg.append(np.broadcast_to(np.asarray(ub, float), (m,)).copy())
        self.rows.append((term, phase, self.ng, self.ng + m))
        self.ng += m
        return np.arange(self.ng - m, self.ng)

    def mapped(self, rows) -> None:
        """Register rows computed by a mapped function (gaitopt.assembly.MappedRows) at
        offsets already reserved."""
        self.maps.append(rows)

    @property
    def x(self):
        """All variables as one (n,1) SX column (stacked once per number of blocks)."""
        if self._x is None or self._x[0] != len(self.syms):
            self._x = (len(self.syms), ca.vertcat(*self.syms))
        return self._x[1]

    def nlp(self, cost, point_sums=()) -> tuple:
        """(Assembly, lbx, ubx, lbg, ubg) of everything added (gaitopt.assembly); the cost is
        `cost` (SX) plus the gaitopt.point_sum.PointSum terms `point_sums`."""
        x, cost, cost_maps = self.x, ca.SX(cost), []
        self._resolve_point_rows(x)
        inline = ca.vertcat(*self.g) if self.g else ca.SX(0, 1)
        rows = np.concatenate(self.g_rows) if self.g_rows else np.zeros(0, int)
        empty = np.zeros(0)
        for ps in point_sums:
            blocks, rest = ps.blocks(x)
            cost_maps += blocks
            cost += rest
        return (Assembly(x, cost, inline, rows, self.maps, self.ng, cost_maps), np.concatenate(self.lb),
                np.concatenate(self.ub), np.concatenate(self.lbg) if self.lbg else empty,
                np.concatenate(self.ubg) if self.ubg else empty)


def force_axes(dim: int) -> list:
    """World axes of the force components carried per contact point: x, z in the sagittal
    plane (dim 2), x, y, z in 3-D."""
    return [0, 2] if dim == 2 else [0, 1, 2]


def forces_from_variables(values, active, contact_names, dim: int) -> np.ndarray:
    """World forces (n, nc, 3) of all contact points from force variables (dim·n_active, n) of
    the points in `active` (zero for the others)."""
    values = np.asarray(values, float)
    out = np.zeros((values.shape[1], len(contact_names), 3))
    for i, cname in enumerate(active):
        ci = list(contact_names).index(cname)
        for j, ax in enumerate(force_axes(dim)):
            out[:, ci, ax] = values[dim * i + j]
    return out


def variables_from_forces(f, active, contact_names, dim: int) -> np.ndarray:
    """Inverse of `forces_from_variables`: (dim·n_active, n) from world forces (n, nc, 3)."""
    rows = [np.asarray(f)[:, list(contact_names).index(c), :][:, force_axes(dim)].T for c in active]
    return np.vstack(rows) if rows else np.zeros((0, np.asarray(f).shape[0]))


@dataclass
class PhaseVars:
    """Variables of one phase (matrices are dimension × knots or × intervals).

    q, v (nv × K+1) and τ (nu × K+1) at the knots; a and f ((dim·n_active) rows) per interval
    or per knot, as the collocation rule decides; `interval`: the rule's own variables of each
    interval (name → Block with K columns; Hermite–Simpson: q, v, a, τ, f at the midpoints;
    trapezoidal: the midpoint state q, v); duration [s] (a variable or a number); active: the
    contact points in contact, in order.
    """

    name: str
    q: Block
    v: Block
    a: Block
    tau: Block
    f: Block
    interval: dict
    duration: object
    active: tuple

    @property
    def n_intervals(self) -> int:
        """Number of intervals K (the phase has K + 1 knots)."""
        return self.q.sym.shape[1] - 1

    def all_of(self, key: str) -> list:
        """The blocks of variable `key` (q, v, a, tau, f): at the knots, and at the interval
        midpoints where the rule has such variables."""
        return [getattr(self, key)] + ([self.interval[key]] if key in self.interval else [])

    def blocks(self) -> dict:
        """name → Block of every variable block of the phase (interval blocks as 'mid_<name>')."""
        out = {"q": self.q, "v": self.v, "a": self.a, "tau": self.tau, "f": self.f}
        out.update({f"mid_{k}": b for k, b in self.interval.items()})
        return out


@dataclass(frozen=True)
class Point:
    """A collocation point of a phase: where path constraints are imposed.

    q, v (nv,), a (nv,) or None, τ (nu,), f (dim·n_active,) or None; progress: knot index k,
    or k + ½ at an interval midpoint; kinematic: the state's constraints hold here (contact,
    clearance, limits, actuator envelope); dynamic: the equations of motion and friction hold
    here. `phase_start` is the phase's first point (its kinematics are shared)."""

    q: object
    v: object
    a: object
    tau: object
    f: object
    progress: float
    kinematic: bool
    dynamic: bool
    phase_start: "Point | None" = None
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def cached(self, key: str, build):
        """The value `build()` computed once per point and key (expressions several components
        share at this point)."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def contact_kinematics(self, dynamics):
        """(positions (3, nc), velocities (3, nc)) of every contact point at this point, world
        frame; built once per point and shared by every term that needs them."""
        if "kin" not in self._cache:
            a = self.a if self.a is not None else ca.SX.zeros(self.v.shape[0], 1)
            pos, vel, _ = dynamics.contact_kinematics(self.q, self.v, a)
            self._cache["kin"] = (pos, vel)
        return self._cache["kin"]


@dataclass(frozen=True)
class Layout:
    """Where every variable block sits in x (index arrays only: no symbols, so a Result that
    carries it pickles and reloads without CasADi expressions).

    globals: name → index array (stride, phase durations T_<phase>, gear_<group>, …);
    phases: per phase, block name → index array (see PhaseVars.blocks); impulses: phase name →
    index array of its touchdown impulse; slacks: name → index array."""

    globals: dict
    phases: tuple
    impulses: dict
    slacks: dict

    def value(self, x, name: str) -> np.ndarray:
        """The values of global block `name` in solution vector x."""
        return np.asarray(x)[self.globals[name]]


class KnotDependent(TypeError):
    """A component needed a point's own numbers (its knot index as a number, a new variable)
    while the transcription built its rows once for a class of points: it is then called point
    by point instead."""


class KnotProgress:
    """The progress (knot index k, or k + ½) of every point of a class, as one SX symbol `sx`
    with the class's numbers `values` (n,).

    Arithmetic gives SX expressions of `sx` (e.g. a swing's fraction); a comparison with a
    number gives a bool when it is the same for the whole class (an inner knot is never 0 nor
    the last knot) and raises KnotDependent otherwise, as does asking for a number."""

    def __init__(self, values):
        self.values = np.asarray(values, float)
        self.sx = ca.SX.sym("progress")

    def _compare(self, op, other):
        if isinstance(other, KnotProgress):
            raise KnotDependent("progress compared with progress")
        out = op(self.values, other)
        if np.all(out):
            return True
        if not np.any(out):
            return False
        raise KnotDependent(f"the points of a class differ on progress {op.__name__} {other}")

    __hash__ = None

    def __float__(self):
        raise KnotDependent("a number was asked of a class's progress")

    __int__ = __index__ = __bool__ = __float__

    def __neg__(self):
        return -self.sx


for _name, _op in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                   ("gt", np.greater), ("ge", np.greater_equal)):
    setattr(KnotProgress, f"__{_name}__", lambda self, other, op=_op: self._compare(op, other))
for _name, _fn in (("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
                   ("truediv", lambda a, b: a / b), ("pow", lambda a, b: a ** b)):
    setattr(KnotProgress, f"__{_name}__", lambda self, other, fn=_fn: fn(self.sx, other))
    setattr(KnotProgress, f"__r{_name}__", lambda self, other, fn=_fn: fn(other, self.sx))


@dataclass
class PointClass:
    """Points of a phase whose rows are built once: `template` (a Point of symbols; its progress
    a number for a single point, else a KnotProgress), `symbols` (nz,1) the raw SX symbols it is
    made of, `index` (nz, n) their offsets into x at each of the n points, `positions` (n,)
    the points' places in the rule's `points(pv)` list."""

    template: Point
    symbols: object
    index: np.ndarray
    positions: np.ndarray

    @property
    def progress(self) -> np.ndarray:
        """The n points' progress values."""
        pr = self.template.progress
        return pr.values if isinstance(pr, KnotProgress) else np.full(len(self.positions), float(pr))


def gather(slots) -> tuple:
    """(symbols, index) of a template made of variable columns: slots is a list of (name,
    Block, columns (n,)); each slot gives one template symbol column of the block's height,
    taken at those columns of the block at the n points. Returns the symbols per slot and the
    stacked index (Σ heights, n)."""
    syms, index = [], []
    for name, blk, cols in slots:
        idx = np.asarray(blk.index)
        syms.append(ca.SX.sym(name, idx.shape[0]))
        index.append(idx[:, np.asarray(cols, int)])
    return syms, np.vstack(index) if index else np.zeros((0, 0), int)
