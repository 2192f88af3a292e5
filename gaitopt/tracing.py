"""Rows of the point components, built once per class of points and mapped over its points.

The collocation rule groups a phase's points into classes (gaitopt.collocation
`point_classes`: first knot, inner knots, last knot, midpoints). Each "point" component is
called once per class with the class's template Point (symbols, and a `KnotProgress` for the
class's progress values); the rows it adds are recorded, wrapped with those of the other
components into one Function F(z, k) of the point's variables z and its progress k, and
registered as mapped rows (gaitopt.assembly). The rows keep today's order: point by point,
component by component. Symbols other than the template's (a phase duration, the stride, a
gear ratio) become extra inputs gathered from x.

A component that needs a point's own numbers (it compares the progress with a value that
differs within the class, asks for a number, or adds a variable) raises KnotDependent while
traced (any other exception counts the same); it is then called point by point with the
rule's actual points, as before, and its rows are inline ones. Components written against the point interface keep working either way.
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from .assembly import MappedRows, flat_call, x_offsets
from .nlp import Block, KnotDependent, KnotProgress, PhaseVars


class _Recorder:
    """Stands in for the NlpBuilder while a component is traced: records its rows as
    (term, phase, expr, lb, ub, call), call = (fn, args) of `con_call` rows (expr is then the rest)."""

    def __init__(self):
        self.rows = []

    def con(self, term, phase, expr, lb=0.0, ub=0.0):
        expr = ca.densify(ca.vec(ca.SX(expr)))
        if expr.numel():
            self.rows.append((term, phase, expr, lb, ub, None))

    def con_call(self, term, phase, fn, args, rest, lb=0.0, ub=0.0):
        if not isinstance(fn, ca.Function):  # e.g. co-design's bound functions: inline
            return self.con(term, phase, fn(*args) + rest, lb, ub)
        expr = ca.densify(ca.vec(ca.SX(rest)))
        if expr.numel():
            self.rows.append((term, phase, expr, lb, ub, (fn, args)))

    def __getattr__(self, name):  # var, bound, tighten: per point only
        raise KnotDependent(f"builder.{name} while traced")


def _trace(ctx, p, components, template) -> list:
    """Per component: its recorded rows at the template point, or None (call it per point)."""
    builder, out = ctx.builder, []
    try:
        for c in components:
            ctx.builder = rec = _Recorder()
            try:
                c.add_point(ctx, p, template)
                out.append(rec.rows)
            except Exception:  # noqa: BLE001 — KnotDependent, or numbers asked of symbols (np.sin of
                # the progress, …): called point by point, where a genuine error surfaces as before
                out.append(None)
    finally:
        ctx.builder = builder
    return out


def _split_calls(recorded, cls, flat: dict) -> tuple:
    """(rows, calls): the recorded rows as (term, phase, expr, lb, ub), and for each row made by
    `con_call` whose arguments are the class's own symbols or zeros, (row number, flat call
    function, position of each argument entry among the class's symbols or −1 for a zero).
    Such a call is evaluated and differentiated on its own, once per function for all classes
    (gaitopt.assembly), instead of inside the class's rows; any other call is inlined.
    flat: id(fn) → (fn, flat form), kept by the builder so that every class shares one."""
    own = {e.__hash__(): i for i, e in enumerate(cls.symbols.elements())}  # (SXElem hash = element_hash)
    rows, calls, seen = [], [], {}
    for i, (term, phase, expr, lb, ub, call) in enumerate(recorded):
        if call is not None:
            fn, args = call
            key = tuple(map(id, args))  # rows of a point often pass the same arguments (its q, v)
            if key not in seen:
                w = ca.vertcat(*[ca.vec(ca.SX(a)) for a in args])
                seen[key] = (w.numel(), np.array([own.get(e.__hash__(), -2) if e.is_symbolic() else
                                                  (-1 if e.is_zero() else -2) for e in w.elements()], int))
            numel, at = seen[key]
            sizes_ok = numel == sum(fn.numel_in(j) for j in range(fn.n_in()))
            if sizes_ok and (at >= -1).all() and fn.numel_out(0) == expr.numel():
                if id(fn) not in flat:
                    flat[id(fn)] = (fn, flat_call(fn))
                calls.append((i, flat[id(fn)][1], at))
            else:
                expr = expr + ca.densify(ca.vec(fn(*args)))
        rows.append((term, phase, expr, lb, ub))
    return rows, calls


def _bounds(value, m: int, ksym, values) -> np.ndarray:
    """A recorded bound (number, array, or SX of the progress symbol) at each point: (m, n)."""
    n = len(values)
    if isinstance(value, ca.SX) and not value.is_constant():
        fn = ca.Function("bound", [ksym], [ca.densify(ca.vec(value))])
        vals = np.asarray(fn.map(n)(ca.DM(values).T), float)
    else:
        vals = np.asarray(ca.evalf(value) if isinstance(value, ca.SX) else value, float).reshape(-1, 1)
    return np.broadcast_to(vals, (m, n)).copy()


def add_class(ctx, p: int, components, cls, points) -> None:
    """Rows of `components` at the points of PointClass `cls`; points: the rule's Point list of
    the phase (for components called point by point)."""
    B, phase = ctx.builder, ctx.phases[p].name
    traced = _trace(ctx, p, components, cls.template)
    recorded = [row for rows in traced if rows for row in rows]
    recorded, calls = _split_calls(recorded, cls, B.call_functions)
    progress = cls.template.progress
    n = len(cls.positions)
    ksym = progress.sx if isinstance(progress, KnotProgress) else ca.SX.sym("progress")
    sizes = [int(r[2].numel()) for r in recorded]
    m = sum(sizes)
    out = ca.vertcat(*[r[2] for r in recorded]) if recorded else ca.SX(0, 1)
    own = {s.element_hash() for s in ca.symvar(cls.symbols)} | {ksym.element_hash()}
    extra = [s for s in ca.symvar(out) if s.element_hash() not in own] if m else []
    values = cls.progress
    lb = np.vstack([_bounds(r[3], s, ksym, values) for r, s in zip(recorded, sizes)]) if m else np.zeros((0, n))
    ub = np.vstack([_bounds(r[4], s, ksym, values) for r, s in zip(recorded, sizes)]) if m else np.zeros((0, n))
    starts = np.cumsum([0] + sizes[:-1])  # each recorded row's first line within the class's rows
    if all(t is not None for t in traced):
        base = B.ng
        rows = base + np.arange(m * n).reshape(n, m).T
        B.lbg.append(lb.T.ravel().copy())
        B.ubg.append(ub.T.ravel().copy())
        B.rows.extend((r[0], r[1], base + j * m + a, base + j * m + a + s)
                      for j in range(n) for r, a, s in zip(recorded, starts, sizes))
        B.ng += m * n
    else:
        rows = np.zeros((m, n), int)
        for j in range(n):
            at = 0
            for c, rec in zip(components, traced):
                if rec is None:
                    c.add_point(ctx, p, points[cls.positions[j]])
                    continue
                for term, _, expr, *_ in rec:
                    s = int(expr.numel())
                    rows[at:at + s, j] = B.reserve(term, phase, s, lb[at:at + s, j], ub[at:at + s, j])
                    at += s
    if not m:
        return
    z = ca.vertcat(cls.symbols, *extra)
    index = np.vstack([cls.index, np.repeat(x_offsets(ctx.builder.x, extra)[:, None], n, axis=1)]) if extra else cls.index
    fn = ca.Function(f"rows_{phase}_{int(cls.positions[0])}", [z, ksym], [out])
    B.mapped(MappedRows(fn, index, values.reshape(1, n), rows))
    for i, fn_flat, at in calls:  # the shared calls' values, added to their rows
        w_index = np.where(at[:, None] >= 0, cls.index[np.maximum(at, 0)], -1)
        B.mapped(MappedRows(fn_flat, w_index, np.zeros((0, n)), rows[starts[i]:starts[i] + sizes[i], :], shared=True))


def interval_template(pv):
    """(template, symbols, index): a one-interval PhaseVars of symbols standing for interval k
    of `pv` (blocks with a column per knot get columns k, k + 1; per interval, column k), the
    symbols stacked (nz,1), and their offsets into x for k = 0 … K−1 (nz, K)."""
    K = pv.n_intervals
    blocks, syms, index = {}, [], []
    for name, blk in pv.blocks().items():
        idx = np.asarray(blk.index)
        width = 2 if idx.shape[1] == K + 1 else 1
        sym = ca.SX.sym(name, idx.shape[0], width)
        blocks[name] = Block(sym, np.zeros((idx.shape[0], width), int))
        syms.append(ca.vec(sym))
        index += [idx[:, c:c + K] for c in range(width)]
    mid = {k.removeprefix("mid_"): b for k, b in blocks.items() if k.startswith("mid_")}
    template = PhaseVars(pv.name, blocks["q"], blocks["v"], blocks["a"], blocks["tau"], blocks["f"], mid,
                         pv.duration, pv.active)
    return template, ca.vertcat(*syms), np.vstack(index)


def add_interval_rows(ctx, p: int, term: str, rows_of, order, lb=0.0, ub=0.0) -> None:
    """Rows lb ≤ · ≤ ub (numbers) of every interval of phase p from `rows_of(template, h)`, the
    row list of a one-interval template (`interval_template`), built once and mapped over the
    intervals.

    order: the row list's entries grouped as the K-interval list orders them (each group's
    entries for interval 0, then for interval 1, …): the rows keep that order."""
    B, pv = ctx.builder, ctx.phases[p]
    K = pv.n_intervals
    template, symbols, index = interval_template(pv)
    exprs = [ca.densify(ca.vec(ca.SX(e))) for e in rows_of(template, pv.duration / K)]
    sizes = [int(e.numel()) for e in exprs]
    starts = np.cumsum([0] + sizes[:-1])
    rows = np.zeros((sum(sizes), K), int)
    for group in order:
        width = sum(sizes[i] for i in group)
        base = B.reserve(term, pv.name, width * K, lb, ub)[0]
        B.rows.pop()  # one (term, phase) entry per interval and row entry, as when added one by one
        at = 0
        for i in group:
            offsets = base + np.arange(K) * width + at
            rows[starts[i]:starts[i] + sizes[i], :] = offsets[None, :] + np.arange(sizes[i])[:, None]
            at += sizes[i]
        B.rows.extend((term, pv.name, base + k * width + a, base + k * width + a + sizes[i])
                      for k in range(K) for i, a in zip(group, np.cumsum([0] + [sizes[i] for i in group][:-1])))
    out = ca.vertcat(*exprs)
    own = {s.element_hash() for s in ca.symvar(symbols)}
    extra = [s for s in ca.symvar(out) if s.element_hash() not in own]
    k = ca.SX.sym("interval")
    fn = ca.Function(f"intervals_{term}_{pv.name}", [ca.vertcat(symbols, *extra), k], [out])
    if extra:
        index = np.vstack([index, np.repeat(x_offsets(ctx.builder.x, extra)[:, None], K, axis=1)])
    B.mapped(MappedRows(fn, index, np.arange(K, dtype=float).reshape(1, K), rows))
