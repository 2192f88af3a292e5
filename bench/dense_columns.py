"""The NLP's quasi-dense columns: variables that many constraint rows or Hessian entries read.

    python bench/dense_columns.py [--factor 8] [--top 12] [--problems problems/a.yaml ...]

MUMPS orders IPOPT's KKT matrix on its compressed graph (each constraint row paired with a
variable it can pivot with) unless it finds quasi-dense rows; it then falls back to the
plain ordering and delays the constraint rows' zero pivots, and the factorisation grows
faster than the knots (docs/speed.md, "Eighth session"). This prints, per problem, the
variables whose column in the constraint Jacobian or in the Hessian of the Lagrangian has the
most entries, named by their block (phase.block[row, knot], or the global's name) and the
terms of the rows that read them. Nothing is solved.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gaitopt as go  # noqa: E402
from gaitopt.nlp_functions import _hessian_triplets, _jacobian_triplets  # noqa: E402
from gaitopt.problem import shipped_problems  # noqa: E402
from gaitopt.robot import robot_of  # noqa: E402
from gaitopt.transcription import transcribe  # noqa: E402


def variable_names(tr) -> list:
    """A name for every entry of x: the global's, phase.block[row, column] or slack[i]."""
    names = [f"x{i}" for i in range(tr.n_variables)]
    lay = tr.layout
    for k, idx in lay.globals.items():
        for j, i in enumerate(np.ravel(idx)):
            names[i] = k if np.size(idx) == 1 else f"{k}[{j}]"
    for pv, blocks in zip(tr.phases, lay.phases):
        for b, idx in blocks.items():
            idx = np.atleast_2d(idx)
            for r in range(idx.shape[0]):
                for c in range(idx.shape[1]):
                    names[idx[r, c]] = f"{pv.name}.{b}[{r},{c}]"
    for group in (lay.impulses, lay.slacks):
        for k, idx in group.items():
            for j, i in enumerate(np.ravel(idx)):
                names[i] = f"{k}[{j}]"
    return names


def dense_columns(tr, top: int = 12) -> list:
    """[(name, Jacobian rows, Hessian partners, {term: rows})] of the `top` densest columns."""
    asm = tr.assembly
    rows, cost = asm.row_blocks(), asm.cost_blocks()
    jr, jc = _jacobian_triplets(rows)
    keep = jc >= 0
    jr, jc = jr[keep], jc[keep]
    pairs = np.unique(np.stack([jr, jc]), axis=1)
    jcount = np.bincount(pairs[1], minlength=tr.n_variables)
    hr, hc, _ = (np.concatenate(t) for t in zip(_hessian_triplets(rows), _hessian_triplets(cost)))
    keep = (hr >= 0) & (hr != hc)
    hp = np.unique(np.stack([hr[keep], hc[keep]]), axis=1)
    hcount = np.bincount(np.concatenate([hp[0], hp[1]]), minlength=tr.n_variables)
    term_of_row = np.empty(tr.n_constraints, dtype=object)
    for term, _phase, a, b in tr.rows:
        term_of_row[a:b] = term
    names = variable_names(tr)
    # MUMPS's graph of the KKT matrix: variables and rows, edges from J and the Hessian
    row_degree = np.bincount(pairs[0], minlength=tr.n_constraints)
    edges = 2 * pairs.shape[1] + 2 * hp.shape[1]
    avg = edges / (tr.n_variables + tr.n_constraints)
    r = int(np.argmax(row_degree))
    print(f"KKT graph: average degree {avg:.1f}; densest row {row_degree[r]} entries ({term_of_row[r]})")
    order = np.argsort(-np.maximum(jcount, hcount))[:top]
    out = []
    for i in order:
        terms = Counter(term_of_row[pairs[0][pairs[1] == i]])
        out.append((names[i], int(jcount[i]), int(hcount[i]), dict(terms.most_common(4))))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--factor", type=float, default=8.0)
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--problems", nargs="*")
    args = ap.parse_args(argv)
    paths = args.problems or [str(p) for p in shipped_problems()]
    for path in paths:
        problem = go.load_problem(path)
        if args.factor != 1:
            problem = problem.scaled_knots(args.factor)
        tr = transcribe(problem, robot_of(problem))
        print(f"## {Path(path).stem} ×{args.factor:g}: {tr.n_variables} variables, {tr.n_constraints} rows")
        print("| variable | Jacobian rows | Hessian partners | rows by term |")
        print("|---|---|---|---|")
        for name, j, h, terms in dense_columns(tr, args.top):
            print(f"| {name} | {j} | {h} | {', '.join(f'{k} {v}' for k, v in terms.items())} |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
