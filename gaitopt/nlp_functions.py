"""The NLP's functions for IPOPT, evaluated numerically from the assembled blocks.

f, g, ∇f, ∂g/∂x and triu ∇²L in the scaled variables xs = x / D are CasADi Callbacks that,
for every block of gaitopt.assembly (the rows of one Function at all its points, the inline
rows as a block at one point, the cost's parts likewise):
1. gather each point's variables z from x = D ⊙ xs by the block's index table (numpy `take`);
2. evaluate the block's Function, Jacobian or Hessian mapped over its points, on CasADi's
   buffers (no copy, no conversion);
3. scatter the values, each times a weight (the variable scaling; 2 for an off-diagonal
   Hessian entry whose two variables are one x entry), adding those at one position of the
   global sparsity, by one `np.bincount` over a target table made once.

Set-up is numpy index arithmetic and one map per block. The MX graph this replaced held the
gathers and scatters as index lists of 10⁵–10⁶ entries at 8× knots, whose conversion and nodes
were most of a large problem's set-up and grew with the knots (docs/speed.md). The values are
the same operations on the same numbers; entries added at one position are summed in the
blocks' order, so a sum of three or more can differ from the MX graph's in the last bit.
"""
from __future__ import annotations

import casadi as ca
import numpy as np


class _Mapped:
    """fn mapped over N points, run on fixed numpy buffers: each argument and result an (N, k)
    C-ordered array (what CasADi reads as (k, N) column-major: one point per column)."""

    def __init__(self, fn: ca.Function, n_points: int, args: list, results: list):
        self.fn = fn.map(n_points, "serial") if n_points > 1 else fn
        self.buffer, self.run = self.fn.buffer()
        self.arrays = args + results  # CasADi holds raw pointers into them
        for i, a in enumerate(args):
            self.buffer.set_arg(i, memoryview(a))
        for i, r in enumerate(results):
            self.buffer.set_res(i, memoryview(r))


class _Scatter:
    """Values (E,) into the nonzeros of a sparse matrix of the given sparsity: value e times
    weights[e], added at nonzero target[e]; target nnz (one past the end) drops it."""

    def __init__(self, sparsity: ca.Sparsity, target: np.ndarray, weights: np.ndarray):
        self.sparsity, self.nnz = sparsity, sparsity.nnz()
        self.target, self.weights = target, np.where(target < self.nnz, weights, 0.0)

    @classmethod
    def at(cls, nrow: int, ncol: int, rows: np.ndarray, cols: np.ndarray, weights: np.ndarray) -> "_Scatter":
        """Into the (nrow, ncol) matrix whose nonzeros are the positions (rows[e], cols[e]); an
        entry with a negative row or column (a constant input's) is dropped."""
        live = (rows >= 0) & (cols >= 0)
        key = cols[live].astype(np.int64) * nrow + rows[live]
        # the positions (sorted: CCS order) and each entry's, by one sort (numpy's hash-based
        # unique took 0.15 s at 8× knots of hoap2's static walk; introsort: 4× faster than a
        # stable one and as deterministic)
        order = np.argsort(key)
        sorted_key = key[order]
        new = np.ones(key.size, bool)
        new[1:] = sorted_key[1:] != sorted_key[:-1]
        keys = sorted_key[new]
        at = np.empty(key.size, np.int64)
        at[order] = np.cumsum(new) - 1
        target = np.full(rows.size, keys.size, np.int64)
        target[live] = at
        colind = np.searchsorted(keys // nrow, np.arange(ncol + 1)).tolist()
        return cls(ca.Sparsity(nrow, ncol, colind, (keys % nrow).tolist()), target, weights)

    @classmethod
    def dense(cls, n: int, rows: np.ndarray, weights: np.ndarray) -> "_Scatter":
        """Into a dense (n,) column: value e at rows[e] (−1: dropped)."""
        return cls(ca.Sparsity.dense(n, 1), np.where(rows >= 0, rows, n), weights)

    def __call__(self, values: np.ndarray, out: np.ndarray) -> None:
        out[:] = np.bincount(self.target, self.weights * values, minlength=self.nnz + 1)[:self.nnz]


def _dense_output(fn: ca.Function) -> ca.Function:
    """fn, or fn with its output densified (structural zeros as values: g's rows are counted
    densely)."""
    if fn.sparsity_out(0).is_dense():
        return fn
    args = fn.sx_in()
    return ca.Function(fn.name(), args, [ca.densify(fn(*args))])


def _segments(array: np.ndarray, shapes: list) -> list:
    """Consecutive views of a 1-D array with the given 2-D shapes."""
    out, start = [], 0
    for rows, cols in shapes:
        out.append(array[start:start + rows * cols].reshape(rows, cols))
        start += rows * cols
    return out


class _Blocks:
    """Blocks (MappedRows, J, H) evaluated together: their points' variables Z (N, nz), numbers
    K (N, nk) and multipliers L (N, m), and the values of every block's function, Jacobian and
    Hessian side by side in three arrays (`values`, `jac`, `hess`), in the blocks' order and
    point-major within each (the order of the triplets below)."""

    def __init__(self, blocks: list, hess: np.ndarray):
        self.index = [np.ascontiguousarray(mr.index.T) for mr, _, _ in blocks]  # −1: x's padding 0
        self.Z = [np.zeros(i.shape) for i in self.index]
        K = [np.ascontiguousarray(np.asarray(mr.params, float).T) for mr, _, _ in blocks]
        N = [mr.index.shape[1] for mr, _, _ in blocks]
        self.L = [np.zeros((n, H.nnz_in(2))) for n, (_, _, H) in zip(N, blocks)]
        fns = [_dense_output(mr.fn) for mr, _, _ in blocks]
        shapes = {"values": [(n, fn.nnz_out(0)) for n, fn in zip(N, fns)],
                  "jac": [(n, J.nnz_out(0)) for n, (_, J, _) in zip(N, blocks)],
                  "hess": [(n, H.nnz_out(0)) for n, (_, _, H) in zip(N, blocks)]}
        self.values, self.jac = (np.zeros(sum(a * b for a, b in shapes[k])) for k in ("values", "jac"))
        self.hess = hess  # a view of the evaluator's array of all Hessian values
        values, jac, hess_of = (_segments(getattr(self, k), shapes[k]) for k in ("values", "jac", "hess"))
        # (the _Mapped objects are kept: their buffers must live as long as their trigger)
        self.run_values = [_Mapped(fn, n, [z, k], [v]) for fn, n, z, k, v in zip(fns, N, self.Z, K, values)]
        self.run_jac = [_Mapped(J, n, [z, k], [v]) for (_, J, _), n, z, k, v in zip(blocks, N, self.Z, K, jac)]
        self.run_hess = [_Mapped(H, n, [z, k, lam], [v])
                         for (_, _, H), n, z, k, lam, v in zip(blocks, N, self.Z, K, self.L, hess_of)]
        self.sizes = N

    @staticmethod
    def hess_size(blocks: list) -> int:
        return sum(H.nnz_out(0) * mr.index.shape[1] for mr, _, H in blocks)

    def gather(self, xpad: np.ndarray) -> None:
        for index, Z in zip(self.index, self.Z):
            np.take(xpad, index, out=Z)

    @staticmethod
    def run(kernels: list) -> None:
        for kernel in kernels:
            kernel.run()


def _jacobian_triplets(blocks: list) -> tuple:
    """Global (row, column) of every Jacobian value of the blocks (point-major, CCS within)."""
    rows, cols = [np.zeros(0, int)], [np.zeros(0, int)]
    for mr, J, _ in blocks:
        r, c = (np.asarray(a, int) for a in J.sparsity_out(0).get_triplet())
        rows.append(mr.rows[r, :].T.ravel())
        cols.append(mr.index[c, :].T.ravel())
    return np.concatenate(rows), np.concatenate(cols)


def _gradient_columns(blocks: list) -> np.ndarray:
    """The x offset of every gradient value of the cost blocks (their (1, nz) Jacobians)."""
    cols = [np.zeros(0, int)]
    for mr, J, _ in blocks:
        c = np.asarray(J.sparsity_out(0).get_triplet()[1], int)
        cols.append(mr.index[c, :].T.ravel())
    return np.concatenate(cols)


def _hessian_triplets(blocks: list) -> tuple:
    """Global upper-triangle (row, column, weight) of every Hessian value of the blocks.

    A local entry (a ≤ b) lands at (min, max) of its variables; an off-diagonal entry whose two
    variables are one x entry counts twice (both halves of the symmetric matrix)."""
    rows, cols, weights = [np.zeros(0, int)], [np.zeros(0, int)], [np.zeros(0)]
    for mr, _, H in blocks:
        a, b = (np.asarray(v, int) for v in H.sparsity_out(0).get_triplet())
        I, J = mr.index[a, :].T.ravel(), mr.index[b, :].T.ravel()
        weights.append(np.where((I == J) & np.tile(a != b, mr.index.shape[1]), 2.0, 1.0))
        lo = np.minimum(I, J)
        rows.append(np.where(lo < 0, -1, lo))  # a constant input's entry: dropped
        cols.append(np.maximum(I, J))
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(weights)


class NlpEvaluator:
    """The NLP of a gaitopt.assembly.Assembly at numbers, in the scaled variables xs = x / D.

    rows, cost: lists of (MappedRows, J, H) (`Assembly.row_blocks`, `Assembly.cost_blocks`);
    the cost blocks' values at all their points add up to f. Each method takes xs (n,) and
    writes into `out` (g: (ng,); the derivatives: their nonzeros in the order of
    `jac_sparsity`, `hess_sparsity`; the gradient dense (n,))."""

    def __init__(self, n: int, ng: int, rows: list, cost: list, scale=None):
        self.n, self.ng = n, ng
        D = np.ones(n) if scale is None else np.asarray(scale, float)
        self.D = D
        self._xpad = np.zeros(n + 1)  # x and a 0 that index −1 reads
        self._last = None
        n_rows = _Blocks.hess_size(rows)
        self._hess_values = np.zeros(n_rows + _Blocks.hess_size(cost))
        self.rows, self.cost = _Blocks(rows, self._hess_values[:n_rows]), _Blocks(cost, self._hess_values[n_rows:])
        self._lam_index = [np.ascontiguousarray(mr.rows.T) for mr, _, _ in rows]  # each point's rows
        g_rows = np.concatenate([np.zeros(0, int)] + [mr.rows.T.ravel() for mr, _, _ in rows])
        self._g = _Scatter.at(ng, 1, g_rows, np.zeros(g_rows.size, int), np.ones(g_rows.size))
        r, c = _jacobian_triplets(rows)
        self._jac = _Scatter.at(ng, n, r, c, D[c])
        r, c, w = (np.concatenate(t) for t in zip(_hessian_triplets(rows), _hessian_triplets(cost)))
        self._hess = _Scatter.at(n, n, r, c, w * D[r] * D[c])
        c = _gradient_columns(cost)
        self._grad = _Scatter.dense(n, c, D[c])
        self.jac_sparsity, self.hess_sparsity = self._jac.sparsity, self._hess.sparsity

    def _at(self, xs: np.ndarray) -> None:
        """Gather every block's points at xs, once per xs (IPOPT asks for f, g and their
        derivatives at one point in turn)."""
        if self._last is not None and np.array_equal(xs, self._last):
            return
        np.multiply(self.D, xs, out=self._xpad[:self.n])
        self.rows.gather(self._xpad)
        self.cost.gather(self._xpad)
        self._last = np.array(xs)

    def f(self, xs: np.ndarray) -> float:
        """The cost: each block's values summed in point order, the blocks in turn."""
        self._at(xs)
        self.cost.run(self.cost.run_values)
        total, start = 0.0, 0
        for size in self.cost.sizes:
            total = total + sum(self.cost.values[start:start + size].tolist())
            start += size
        return total

    def g(self, xs: np.ndarray, out: np.ndarray) -> None:
        self._at(xs)
        self.rows.run(self.rows.run_values)
        self._g(self.rows.values, out)

    def grad_f(self, xs: np.ndarray, out: np.ndarray) -> None:
        self._at(xs)
        self.cost.run(self.cost.run_jac)
        self._grad(self.cost.jac, out)

    def jac_g(self, xs: np.ndarray, out: np.ndarray) -> None:
        self._at(xs)
        self.rows.run(self.rows.run_jac)
        self._jac(self.rows.jac, out)

    def hess_lag(self, xs: np.ndarray, lam_f: float, lam_g: np.ndarray, out: np.ndarray) -> None:
        """triu ∇²(λ_f f + λ_gᵀ g) at xs."""
        self._at(xs)
        for index, L in zip(self._lam_index, self.rows.L):
            np.take(lam_g, index, out=L)
        for L in self.cost.L:
            L.fill(lam_f)
        self.rows.run(self.rows.run_hess)
        self.cost.run(self.cost.run_hess)
        self._hess(self._hess_values, out)


class _Callback(ca.Callback):
    """A CasADi Function computed by `compute(inputs, outputs)` on numpy views of CasADi's
    buffers (an output CasADi does not want is None). ins, outs: [(name, Sparsity)]."""

    def __init__(self, name: str, ins: list, outs: list, compute):
        ca.Callback.__init__(self)
        self.ins, self.outs, self.compute = ins, outs, compute
        self.construct(name, {})

    def get_n_in(self):
        return len(self.ins)

    def get_n_out(self):
        return len(self.outs)

    def get_name_in(self, i):
        return self.ins[i][0]

    def get_name_out(self, i):
        return self.outs[i][0]

    def get_sparsity_in(self, i):
        return self.ins[i][1]

    def get_sparsity_out(self, i):
        return self.outs[i][1]

    def has_eval_buffer(self):
        return True

    def eval_buffer(self, arg, res):
        inputs = [np.zeros(sp.nnz()) if a is None else np.frombuffer(a, float) for a, (_, sp) in zip(arg, self.ins)]
        self.compute(inputs, [None if r is None else np.frombuffer(r, float) for r in res])
        return 0


def nlp_functions(n: int, ng: int, rows: list, cost: list, scale=None) -> tuple:
    """(nlp, options) for `casadi.nlpsol` in xs = x / scale: nlp {"x", "f", "g"} (MX calls of
    Callbacks) and the options jac_g, hess_lag, grad_f, no_nlp_grad. rows, cost: as for
    `NlpEvaluator`. The Callbacks hold the evaluator; whoever holds the solver must hold them
    (CasADi keeps no reference to a Callback's Python object)."""
    ev = NlpEvaluator(n, ng, rows, cost, scale)
    X, P, S, G = (ca.Sparsity.dense(k, 1) for k in (n, 0, 1, ng))

    def f(i, o):
        o[0][:] = ev.f(i[0])

    def g(i, o):
        ev.g(i[0], o[0])

    def grad_f(i, o):
        if o[0] is not None:
            o[0][:] = ev.f(i[0])
        if o[1] is not None:
            ev.grad_f(i[0], o[1])

    def jac_g(i, o):
        if o[0] is not None:
            ev.g(i[0], o[0])
        if o[1] is not None:
            ev.jac_g(i[0], o[1])

    def hess_lag(i, o):
        ev.hess_lag(i[0], float(i[2][0]), i[3], o[0])

    xs = ca.MX.sym("x", n)
    f_cb = _Callback("nlp_f_value", [("x", X)], [("f", S)], f)
    g_cb = _Callback("nlp_g_value", [("x", X)], [("g", G)], g)
    opts = {
        "jac_g": _Callback("nlp_jac_g", [("x", X), ("p", P)], [("g", G), ("jac_g_x", ev.jac_sparsity)], jac_g),
        "hess_lag": _Callback("nlp_hess_l", [("x", X), ("p", P), ("lam_f", S), ("lam_g", G)],
                              [("triu_hess_gamma_x_x", ev.hess_sparsity)], hess_lag),
        "grad_f": _Callback("nlp_grad_f", [("x", X), ("p", P)], [("f", S), ("grad_f_x", X)], grad_f),
        "no_nlp_grad": True,
    }
    opts["jac_g"].companions = (f_cb, g_cb)  # alive as long as the options are
    return {"x": xs, "f": f_cb(xs), "g": g_cb(xs)}, opts
