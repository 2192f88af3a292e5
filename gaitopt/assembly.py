"""The NLP's functions and derivatives, assembled from rows built once per class of points.

Constraint rows come in two kinds (gaitopt.nlp.NlpBuilder):
* inline rows: SX expressions of x (phase, interval and junction rows, user components that
  need a knot's numbers); differentiated as one SX graph in the columns they touch (a block
  at a single point, like the mapped ones); the cost likewise;
* mapped rows: one CasADi Function F(z, k) of a point's variables z (gathered from x by an
  index table, one column per point) and its numeric parameters k, applied to all points of a
  class with `map`. Its Jacobian ∂F/∂z and the Hessian of λᵀF in z are built once, on one
  point, and evaluated for all points the same way; a Function shared by several blocks (a
  robot function called by many classes, gaitopt.tracing) is differentiated once.

The NLP's Jacobian and Lagrangian Hessian are then the nonzeros of these pieces scattered into
their global sparsity, with the variable scaling (gaitopt.nlp_functions, numerically at each
evaluation). Building them this way costs one small differentiation per class instead of
CasADi differentiating the whole expression graph, the step that made set-up grow with the
knots (docs/speed.md); the values are the same as the whole graph's derivatives.
"""
from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from .nlp_functions import nlp_functions


@dataclass
class MappedRows:
    """Rows F(z, k) at n points: fn (z (nz,1), k (nk,1)) → (m,1) SX Function; index (nz, n)
    x offsets of each point's z (−1: that entry of z is the constant 0); params (nk, n) numbers;
    rows (m, n) offsets into g. Blocks whose rows overlap add up there (a shared call and the
    rest of its rows, gaitopt.tracing)."""

    fn: ca.Function
    index: np.ndarray
    params: np.ndarray
    rows: np.ndarray
    # a robot function's call shared by classes of points (gaitopt.tracing): the same Function
    # in every problem of the robot, so its derivatives are worth compiling (gaitopt.codegen)
    shared: bool = False

    def derivatives(self, compiler=None) -> tuple:
        """(J, H) Functions of one point: J(z, k) = ∂F/∂z, H(z, k, λ) = triu ∂²(λᵀF)/∂z².
        compiler: a gaitopt.codegen.DerivativeCompiler, or None."""
        if compiler is not None:
            return compiler.derivatives(self.fn, self._derivatives, shared=self.shared)
        return self._derivatives()

    def _derivatives(self) -> tuple:
        z = ca.SX.sym("z", self.fn.size1_in(0))
        k = ca.SX.sym("k", self.fn.size1_in(1))
        lam = ca.SX.sym("lam", self.fn.size1_out(0))
        out = self.fn(z, k)
        hess = ca.triu(ca.hessian(ca.dot(lam, out), z)[0])
        return (ca.Function("jac_" + self.fn.name(), [z, k], [ca.jacobian(out, z)]),
                ca.Function("hess_" + self.fn.name(), [z, k, lam], [hess]))

    def values(self, x: np.ndarray) -> np.ndarray:
        """F at every point for the numbers x (n,): (m, N), an index −1 reading 0."""
        padded = np.append(np.asarray(x, float), 0.0)  # index −1 reads the appended 0
        return np.asarray(self.fn.map(self.index.shape[1])(padded[self.index], self.params), float)


def flat_call(fn: ca.Function) -> ca.Function:
    """fn with its inputs stacked into one column w and an empty parameter input, (w, k) → (m,1):
    the form of a mapped block (`MappedRows`) of a shared call (gaitopt.tracing, NlpBuilder.con_call)."""
    ins = [ca.SX.sym(f"{fn.name_in(i)}", fn.size_in(i)) for i in range(fn.n_in())]
    w = ca.vertcat(*[ca.vec(v) for v in ins])
    return ca.Function(f"call_{fn.name()}", [w, ca.SX.sym("k", 0)], [ca.densify(ca.vec(fn(*ins)))])


def x_offsets(x, symbols) -> np.ndarray:
    """Offsets into the (n,1) SX column of symbols x of the given entries of it (a list of
    scalar SX or one SX column): x evaluated at 0, 1, … reads each one's offset."""
    where = ca.Function("where", [x], [ca.vertcat(*symbols) if isinstance(symbols, list) else symbols])
    return np.asarray(where(np.arange(x.numel(), dtype=float)), float).ravel().astype(int)


def input_offsets(x, points: list):
    """(nz, N) offsets into the (n,1) SX variables x of the variables that each of N points'
    inputs (a list of SX per point) read, in increasing order; or None unless the first point's
    inputs, as a function of its variables, give every point's inputs from its own (checked in
    the dependency pattern and at random values), so that one Function of the first point's
    variables serves all (`group_function`)."""
    pure = _symbol_offsets(x, points)
    if pure is not None:
        return pure
    cols = [ca.vertcat(*[ca.vec(u) for u in inputs]) for inputs in points]
    m = int(cols[0].numel())
    if any(int(c.numel()) != m for c in cols):
        return None
    rows, vars_ = (np.asarray(a, int) for a in ca.jacobian_sparsity(ca.vertcat(*cols), x).get_triplet())
    point = rows // m
    order = np.lexsort((vars_, point))
    point, rows, vars_ = point[order], rows[order] % m, vars_[order]
    counts = np.bincount(point, minlength=len(points))
    if counts.min() != counts.max():
        return None
    # each point's variables (sorted, unique) and where each input entry reads them
    per = vars_.reshape(len(points), -1)
    first = np.ones_like(per, bool)
    first[:, 1:] = per[:, 1:] != per[:, :-1]
    nz = first.sum(axis=1)
    if nz.min() != nz.max():
        return None
    offsets = per[first].reshape(len(points), -1)
    local = np.cumsum(first, axis=1) - 1  # position of each entry's variable in its point's list
    pattern = np.stack([rows.reshape(len(points), -1), local])
    if not (pattern == pattern[:, :1]).all():
        return None
    # and the same expressions of them (no number that differs from point to point), checked at
    # random values: the first point's inputs as a function of its variables give every point's
    r = np.random.default_rng(0).uniform(0.5, 2.0, int(x.numel()))
    every = np.asarray(ca.Function("inputs", [x], [ca.horzcat(*cols)])(r), float)
    z0 = x[offsets[0].tolist()]
    mapped = np.asarray(ca.Function("inputs0", [z0], [cols[0]]).map(len(points))(r[offsets.T]), float)
    if not np.allclose(every, mapped, rtol=1e-13, atol=0.0):
        return None
    return offsets.T.copy()


def _symbol_offsets(x, points: list):
    """`input_offsets` when each input is either the same object at every point or, at each
    point, dense symbols of x only (the shipped terms' case: then the first point's Function
    serves every point by construction); None otherwise or if a point would read a variable
    twice."""
    first = points[0]
    if any(len(p) != len(first) for p in points):
        return None
    shared = [i for i in range(len(first)) if all(p[i] is first[i] for p in points)]
    varying = [i for i in range(len(first)) if i not in shared]
    if not all(p[i].is_valid_input() and p[i].is_dense() for p in points for i in varying):
        return None
    n = len(points)
    common = x_offsets(x, ca.symvar(ca.vertcat(*[ca.vec(first[i]) for i in shared]))) if shared else np.zeros(0, int)
    own = (x_offsets(x, _stacked([p[i] for p in points for i in varying])).reshape(n, -1)
           if varying else np.zeros((n, 0), int))
    index = np.hstack([np.broadcast_to(common, (n, common.size)), own]).T
    ordered = np.sort(index, axis=0)
    if index.shape[0] > 1 and (ordered[1:] == ordered[:-1]).any():
        return None
    return np.ascontiguousarray(index)


def _stacked(parts: list):
    """The SX parts vectorised and stacked into one column (columns, the usual case, stacked as
    they are: a vec call per part costs as much as the stacking)."""
    try:
        out = ca.vertcat(*parts)
        if out.size2() == 1:
            return out
    except RuntimeError:  # parts of different widths
        pass
    return ca.vertcat(*[ca.vec(u) for u in parts])


def _reads_only(expr, z) -> bool:
    """Whether the SX expr depends on no symbol outside the SX column z."""
    allowed = {s.element_hash() for s in ca.symvar(z)}
    return all(s.element_hash() in allowed for s in ca.symvar(expr))


def group_function(x, name: str, inputs: list, expr, param):
    """(fn, index): expr, an SX expression of the first of N points' inputs (inputs: a list of
    SX per point), as one Function fn(z, param) of that point's variables z, serving every
    point (index (nz, N): each point's z as offsets into the (n,1) SX variables x,
    `input_offsets`); None where it cannot (inputs not of one form, or expr reading a symbol
    outside its inputs and param). The common step of gaitopt.point_sum and NlpBuilder.con_points."""
    index = input_offsets(x, inputs)
    if index is None:
        return None
    z0 = x[index[:, 0].tolist()]
    if not _reads_only(expr, ca.vertcat(z0, param)):
        return None
    return ca.Function(name, [z0, param], [expr]), index


def function_name(key) -> str:
    """A Function name from a group key (a tuple of names and numbers)."""
    parts = key if isinstance(key, tuple) else (key,)
    return "_".join(str(p).replace(".", "_") for p in parts)


def _gather(x, index: np.ndarray):
    """x[index] as an (nz, n) matrix; entries −1 of index read a constant 0."""
    flat = index.T.ravel()
    if (flat < 0).any():
        x = ca.vertcat(x, type(x).zeros(1))
        flat = np.where(flat < 0, x.numel() - 1, flat)
    return ca.reshape(x[flat.tolist()], index.shape[0], index.shape[1])


def _merged(maps: list) -> list:
    """The blocks with one Function (a shared call made by several classes) merged into one
    block over all their points: one map, one gather and one piece of each scatter instead of
    one per class (hexapod_wave: 114 blocks → 29)."""
    groups = {}
    for mr in maps:
        groups.setdefault(id(mr.fn), []).append(mr)
    out = []
    for same in groups.values():
        if len(same) == 1:
            out.append(same[0])
        else:
            out.append(MappedRows(same[0].fn, np.hstack([m.index for m in same]), np.hstack([m.params for m in same]),
                                  np.hstack([m.rows for m in same]), same[0].shared))
    return out


class Assembly:
    """The NLP as functions of x: cost (inline and mapped parts), inline rows, mapped rows.

    x_sx: (n,1) SX symbols of x; cost: SX of x_sx; inline: SX (m_inline,1) of x_sx with
    inline_rows (m_inline,) offsets into g; maps: MappedRows; ng: number of rows of g;
    cost_maps: MappedRows without rows (fn → (1,1)) whose values at all their points add to
    `cost` (gaitopt.point_sum). compiler: None, or a gaitopt.codegen.DerivativeCompiler for the
    shared blocks' derivatives (`solver.codegen`)."""

    def __init__(self, x_sx, cost, inline, inline_rows, maps, ng: int, cost_maps=()):
        self.x_sx, self.cost, self.inline = x_sx, cost, inline
        self.inline_rows = np.asarray(inline_rows, int)
        self.maps, self.ng = maps, ng
        self.cost_maps = list(cost_maps)
        self.compiler = None
        self._g_sx = None
        self._functions = []  # (nlp, options) pairs made: their Callbacks must stay alive

    def cost_sx(self):
        """The whole cost as one SX expression of x_sx (every mapped term inlined): for tests
        and tools; the solver never builds it."""
        return self.cost + sum((ca.sum2(mr.fn.map(mr.index.shape[1], "serial")(_gather(self.x_sx, mr.index),
                                                                             ca.DM(mr.params)))
                                for mr in self.cost_maps), ca.SX(0))

    @property
    def n(self) -> int:
        return int(self.x_sx.numel())

    def g_sx(self):
        """g as one SX expression of x_sx (every mapped function inlined): for tests and tools
        that differentiate g themselves; the solver never builds it."""
        if self._g_sx is None:
            parts, order = self._mapped_g(self.x_sx)
            self._g_sx = self._ordered([self.inline] + parts, [self.inline_rows] + order, ca.SX)
        return self._g_sx

    def _mapped_g(self, x) -> tuple:
        """(parts, order): each mapped block's rows at x (MX or SX; point-major) and their
        offsets into g."""
        parts, order = [], []
        for mr in self.maps:
            N = mr.index.shape[1]
            parts.append(ca.vec(mr.fn.map(N, "serial")(_gather(x, mr.index), ca.DM(mr.params))))
            order.append(mr.rows.T.ravel())
        return parts, order

    def _ordered(self, parts, order, kind=ca.MX):
        """The stacked parts put in g's row order (order: each part's offsets into g); parts
        whose rows overlap add up."""
        order = np.concatenate(order)
        if not self.ng:
            return kind(0, 1)
        stacked = ca.vertcat(*parts)
        if order.size == self.ng:  # each row from one block
            inverse = np.empty(self.ng, int)
            inverse[order] = np.arange(self.ng)
            return stacked[inverse.tolist()]
        add = ca.Sparsity.triplet(self.ng, order.size, order.tolist(), list(range(order.size)))
        return ca.mtimes(ca.DM(add, 1.0), stacked)

    def g_value(self, x) -> np.ndarray:
        """g at a numeric x (ng,): each block evaluated at its points' numbers and added into
        its rows (no MX graph: building one took 8 ms of a heel–toe solve's report)."""
        x = np.asarray(x, float)
        g = np.zeros(self.ng)
        if self.inline.numel():
            g[self.inline_rows] += np.asarray(ca.Function("inline_g", [self.x_sx], [self.inline])(x), float).ravel()
        for mr in self.maps:
            np.add.at(g, mr.rows.T.ravel(), mr.values(x).T.ravel())
        return g

    def _touched(self, expr) -> tuple:
        """(z, offsets): the entries of x that the SX `expr` depends on, as a column of those
        symbols, and their offsets into x."""
        syms = ca.symvar(expr)
        if not syms:
            return ca.SX(0, 1), np.zeros(0, int)
        z = ca.vertcat(*syms)
        return z, x_offsets(self.x_sx, z)

    def _inline_block(self):
        """The inline rows as one mapped block at a single point whose variables are the x entries
        they touch: differentiated in those columns only, not in all of x (at 8× knots CasADi's
        derivatives over every column took 3× as long for the same rows; docs/speed.md)."""
        if not self.inline.numel():
            return None
        z, offsets = self._touched(self.inline)
        fn = ca.Function("inline_rows", [z, ca.SX.sym("k", 0)], [self.inline])
        return MappedRows(fn, offsets[:, None], np.zeros((0, 1)), self.inline_rows[:, None])

    def functions(self, scale=None) -> tuple:
        """(nlp, options) for `casadi.nlpsol` in the scaled variables xs = x / scale: nlp
        {"x", "f", "g"} and the options jac_g, hess_lag, grad_f, evaluated numerically from the
        blocks (gaitopt.nlp_functions). Every set made is kept here: CasADi holds no
        reference to a Callback's Python object, and a solver must not outlive its Callbacks."""
        self._functions.append(nlp_functions(self.n, self.ng, self.row_blocks(), self.cost_blocks(), scale))
        return self._functions[-1]

    def row_blocks(self) -> list:
        """[(MappedRows, J, H)]: the inline rows as a block at one point, then the rows of each
        Function at all its points (`_merged`: each differentiated once), with their Jacobian and
        Hessian Functions (from the compiler's cache when one is set: gaitopt.codegen)."""
        inline = self._inline_block()
        return [(mr, *mr.derivatives(self.compiler)) for mr in ([] if inline is None else [inline]) + _merged(self.maps)]

    def cost_blocks(self) -> list:
        """[(MappedRows, J, H)] of the cost: its inline part as a block at one point (in the x
        entries it touches), then the mapped terms; their values at all points add up to f."""
        zc, c_index = self._touched(self.cost)
        inline = MappedRows(ca.Function("inline_cost", [zc, ca.SX.sym("k", 0)], [self.cost]), c_index[:, None],
                            np.zeros((0, 1)), np.zeros((1, 1), int))
        return [(mr, *mr.derivatives(self.compiler)) for mr in [inline] + self.cost_maps]
