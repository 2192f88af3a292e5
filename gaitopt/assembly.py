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
their global sparsity by one constant sparse matrix each (`_scatter`), which also applies the
variable scaling. Building them this way costs one small differentiation per class instead of
CasADi differentiating the whole expression graph, the step that made set-up grow with the
knots (docs/speed.md); the values are the same as the whole graph's derivatives.
"""
from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np


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
        compiler: a gaitopt.codegen.DerivativeCompiler, used for shared blocks, or None."""
        if compiler is not None and self.shared:
            return compiler.derivatives(self.fn, self._derivatives)
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


def _nonzeros(m):
    """The nonzeros of an MX matrix as a column (CCS order)."""
    return ca.vec(m.nz[:]) if m.nnz() else ca.MX(0, 1)  # (a row vector's nz[:] is a row)


def _jacobian_triplets(sp: ca.Sparsity, rows: np.ndarray, index: np.ndarray) -> tuple:
    """Global (row, column) of every nonzero of a mapped Jacobian (point-major, CCS within)."""
    r, c = (np.asarray(a, int) for a in sp.get_triplet())
    return rows[r, :].T.ravel(), index[c, :].T.ravel(), np.ones(r.size * rows.shape[1])


def _hessian_triplets(sp: ca.Sparsity, index: np.ndarray) -> tuple:
    """Global upper-triangle (row, column, weight) of every nonzero of a mapped triu Hessian.

    A local entry (a ≤ b) lands at (min, max) of its variables; an off-diagonal entry whose two
    variables are one x entry counts twice (both halves of the symmetric matrix)."""
    a, b = (np.asarray(v, int) for v in sp.get_triplet())
    I, J = index[a, :].T.ravel(), index[b, :].T.ravel()
    weight = np.where((I == J) & np.tile(a != b, index.shape[1]), 2.0, 1.0)
    return np.minimum(I, J), np.maximum(I, J), weight


def _scatter(nrow: int, ncol: int, rows, cols, weights, scale, values):
    """The sparse (nrow, ncol) MX matrix whose nonzeros are the pieces' nonzeros `values`
    (stacked MX column) placed at (rows, cols), each times its weight × scale, entries that land
    on one position summed."""
    rows, cols = np.concatenate(rows).astype(np.int64), np.concatenate(cols).astype(np.int64)
    weights = np.concatenate(weights) * scale(rows, cols)
    # positions in CCS order, each entry's position (target) and the first entry at each (first),
    # by a sort: numpy's hash-based unique took a second at 30 000 variables
    # (introsort: 4× faster than a stable sort at 4·10⁵ entries, and as deterministic; which of
    # the entries at one position comes first changes at most the rounding of their sum)
    key = cols * nrow + rows
    order = np.argsort(key)
    sorted_key = key[order]
    new = np.ones(key.size, bool)
    new[1:] = sorted_key[1:] != sorted_key[:-1]
    keys, first = sorted_key[new], order[new]
    target = np.empty(key.size, np.int64)
    target[order] = np.cumsum(new) - 1
    colind = np.searchsorted(keys // nrow, np.arange(ncol + 1)).tolist()
    sp = ca.Sparsity(nrow, ncol, colind, (keys % nrow).tolist())
    # (a DM from a list: three times faster than from a numpy array at 10⁵ entries)
    nz = values[first.tolist()] * ca.DM(weights[first].tolist()) if keys.size else ca.MX(0, 1)
    taken = np.ones(rows.size, bool)
    taken[first] = False
    extra = np.flatnonzero(taken)  # a second piece's entry at a taken position
    if extra.size:
        A = ca.DM(ca.Sparsity.triplet(keys.size, extra.size, target[extra].tolist(), list(range(extra.size))),
                  weights[extra])
        nz = nz + ca.mtimes(A, values[extra.tolist()])
    return ca.sparsity_cast(nz, sp)


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
        {"x", "f", "g"} MX and the options jac_g, hess_lag, grad_f (assembled derivatives)."""
        n, ng = self.n, self.ng
        D = np.ones(n) if scale is None else np.asarray(scale, float)
        xs, p = ca.MX.sym("x", n), ca.MX.sym("p", 0)
        lam_f, lam_g = ca.MX.sym("lam_f"), ca.MX.sym("lam_g", ng)
        x = ca.DM(D) * xs
        grad, jac, hess = _Triplets(), _Triplets(), _Triplets()
        f = self._cost(x, lam_f, grad, hess)
        g = self._rows(x, lam_g, jac, hess)
        J = jac.matrix(ng, n, lambda r, c: D[c])
        H = hess.matrix(n, n, lambda r, c: D[r] * D[c])
        opts = {
            "jac_g": ca.Function("nlp_jac_g", [xs, p], [g, J], ["x", "p"], ["g", "jac_g_x"]),
            "hess_lag": ca.Function("nlp_hess_l", [xs, p, lam_f, lam_g], [H],
                                    ["x", "p", "lam_f", "lam_g"], ["triu_hess_gamma_x_x"]),
            "grad_f": ca.Function("nlp_grad_f", [xs, p], [f, ca.densify(grad.matrix(n, 1, lambda r, c: D[r]))],
                                  ["x", "p"], ["f", "grad_f_x"]),
            "no_nlp_grad": True,
        }
        return {"x": xs, "f": f, "g": g}, opts

    def _cost(self, x, lam_f, grad, hess):
        """The cost f at x (MX), its gradient's and λ_f × its Hessian's pieces added to the
        _Triplets grad and hess: the inline part differentiated in the columns it touches, the
        mapped terms once per Function."""
        zc, c_index = self._touched(self.cost)
        cost = ca.Function("cost", [zc], [self.cost, ca.gradient(self.cost, zc), ca.triu(ca.hessian(self.cost, zc)[0])])
        f, grad_c, H_c = cost(x[c_index.tolist()] if c_index.size else ca.MX(0, 1))
        grad.add(grad_c, c_index, np.zeros(c_index.size, int))
        hess.add(lam_f * _nonzeros(H_c), *_hessian_triplets(cost.sparsity_out(2), c_index[:, None]))
        for mr in self.cost_maps:  # value, gradient and Hessian per point
            N = mr.index.shape[1]
            Z, K = _gather(x, mr.index), ca.DM(mr.params)
            f = f + ca.sum2(mr.fn.map(N, "serial")(Z, K))
            J, H = mr.derivatives()
            _, C, _ = _jacobian_triplets(J.sparsity_out(0), np.zeros((1, N), int), mr.index)
            grad.add(_nonzeros(J.map(N, "serial")(Z, K)), C, np.zeros(C.size, int))
            hess.add(_nonzeros(H.map(N, "serial")(Z, K, ca.repmat(lam_f, 1, N))), *_hessian_triplets(H.sparsity_out(0), mr.index))
        return f

    def _rows(self, x, lam_g, jac, hess):
        """g at x (MX, g's row order), its Jacobian's and λ_gᵀ g's Hessian's pieces added to the
        _Triplets jac and hess, one block per Function (`_merged`: each differentiated once)."""
        inline = self._inline_block()
        g_parts, g_order = [], []
        for mr in ([] if inline is None else [inline]) + _merged(self.maps):
            N = mr.index.shape[1]
            Z, K = _gather(x, mr.index), ca.DM(mr.params)
            g_parts.append(ca.vec(mr.fn.map(N, "serial")(Z, K)))
            g_order.append(mr.rows.T.ravel())
            J, H = mr.derivatives(self.compiler)
            R, C, _ = _jacobian_triplets(J.sparsity_out(0), mr.rows, mr.index)
            keep = np.flatnonzero(C >= 0)  # not the columns of constant inputs
            jac.add(_nonzeros(J.map(N, "serial")(Z, K))[keep.tolist()], R[keep], C[keep])
            L = ca.reshape(lam_g[mr.rows.T.ravel().tolist()], mr.rows.shape[0], N)
            R, C, W = _hessian_triplets(H.sparsity_out(0), mr.index)
            keep = np.flatnonzero(R >= 0)  # R = the smaller of the two variables' offsets
            hess.add(_nonzeros(H.map(N, "serial")(Z, K, L))[keep.tolist()], R[keep], C[keep], W[keep])
        return self._ordered(g_parts, g_order)


class _Triplets:
    """The nonzeros of a sparse matrix being assembled: MX columns of values, each with the
    global (row, column, weight) of its entries (`_scatter`)."""

    def __init__(self):
        self.values, self.rows, self.cols, self.weights = [], [], [], []

    def add(self, values, rows, cols, weights=None) -> None:
        self.values.append(values)
        self.rows.append(np.asarray(rows, int))
        self.cols.append(np.asarray(cols, int))
        self.weights.append(np.ones(len(self.rows[-1])) if weights is None else np.asarray(weights, float))

    def matrix(self, nrow: int, ncol: int, scale):
        """The (nrow, ncol) sparse MX matrix, entries at one position summed, each times its
        weight × scale(row, column)."""
        if not self.values:
            self.add(ca.MX(0, 1), np.zeros(0, int), np.zeros(0, int))
        return _scatter(nrow, ncol, self.rows, self.cols, self.weights, scale, ca.vertcat(*self.values))
