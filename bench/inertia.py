"""Where IPOPT's Hessian has negative curvature: the reduced Hessian at an iterate.

    python bench/inertia.py PROBLEM [--factor 1] [--iterations 5 28]

IPOPT rejects a KKT factorisation whose inertia is wrong (more negative eigenvalues than
constraints; bench/solve.py counts them) and factorises again with the Hessian regularised. The
inertia is wrong when the barrier Lagrangian's Hessian, reduced to the null space of the
equality rows' Jacobian, is not positive definite. This script stops IPOPT after k iterations
(the options of a cold `gaitopt solve`, after one small solve as bench/solve.py makes), and at
that iterate prints the reduced Hessian's lowest eigenvalues, with and without the barrier
terms, and along its two lowest eigenvectors the curvature of the cost, of the barrier terms and
of each term's rows (λ·dᵀ∇²g·d, in IPOPT's scaled variables) and the variable blocks the
direction moves. The barrier terms are estimated from CasADi's multipliers: bound multiplier
over the distance to its bound, for x and for the inequality rows; IPOPT's own slack values are
not reachable, so far from convergence the estimate is rough. Dense linear algebra (an SVD of
the equality Jacobian): for NLPs up to about 7 000 variables (solo12_stairs up to 2× knots).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import casadi as ca
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gaitopt as go  # noqa: E402
from gaitopt.guess import automatic_guess  # noqa: E402
from gaitopt.robot import robot_of  # noqa: E402
from gaitopt.solver import ipopt_options  # noqa: E402
from gaitopt.transcription import transcribe  # noqa: E402


def iterate(tr, problem, k: int) -> dict:
    """IPOPT's iterate after k iterations, in its scaled variables: x, lam_g, lam_x and the
    functions jac_g, hess_lag (the options are those gaitopt.gait.solve gives a cold start)."""
    x0 = automatic_guess(tr)
    D = tr.variable_scale(x0) if problem.solver.scale_variables else np.ones(len(x0))
    s = problem.solver
    opts = {"max_iter": k, "tol": s.tol, "constr_viol_tol": s.constr_viol_tol,
            "acceptable_constr_viol_tol": max(s.constr_viol_tol, 1e-6), "constr_mult_init_max": 0.0,
            **s.options}
    nlp, der = tr.assembly.functions(D)
    solver = ca.nlpsol("inertia", "ipopt", nlp, {"ipopt": ipopt_options(s.linear_solver, 0, opts),
                                                 "print_time": False, "error_on_fail": False, **der})
    lbx, ubx = tr.lbx / D, tr.ubx / D
    r = solver(x0=np.clip(x0 / D, lbx, ubx), lbx=lbx, ubx=ubx, lbg=tr.lbg, ubg=tr.ubg)
    out = {n: np.array(r[n]).ravel() for n in ("x", "lam_g", "lam_x")}
    return {**out, "lbx": lbx, "ubx": ubx, "jac_g": der["jac_g"], "hess_lag": der["hess_lag"]}


def _symmetric(H) -> np.ndarray:
    H = np.array(ca.DM(H))
    return H + np.triu(H, 1).T


def _barrier(lam, lower_gap, upper_gap) -> np.ndarray:
    """Σ = multiplier / distance to the bound it belongs to (CasADi's sign: negative at a lower
    bound)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        sigma = np.where(lam < 0, -lam / np.maximum(lower_gap, 1e-12), lam / np.maximum(upper_gap, 1e-12))
    return np.where(np.isfinite(sigma), sigma, 0.0)


def reduced_hessian(tr, it: dict) -> dict:
    """The reduced Hessian's eigen-decomposition, with and without the barrier terms."""
    x, lg = it["x"], it["lam_g"]
    g, J = it["jac_g"](x, [])
    g, J = np.array(g).ravel(), np.array(ca.DM(J))
    H = _symmetric(it["hess_lag"](x, [], 1.0, lg))
    eq, ineq = np.flatnonzero(tr.lbg == tr.ubg), np.flatnonzero(tr.lbg < tr.ubg)
    sx = _barrier(it["lam_x"], x - it["lbx"], it["ubx"] - x)
    ss = _barrier(lg[ineq], g[ineq] - tr.lbg[ineq], tr.ubg[ineq] - g[ineq])
    W = H + np.diag(sx) + J[ineq].T @ (ss[:, None] * J[ineq])
    free = np.flatnonzero(tr.lbx < tr.ubx)  # IPOPT removes fixed variables
    _, sv, Vt = np.linalg.svd(J[eq][:, free])
    rank = int((sv > sv[0] * 1e-10).sum())
    Z = np.zeros((len(x), len(free) - rank))
    Z[free] = Vt[rank:].T
    ev, vec = np.linalg.eigh(Z.T @ W @ Z)
    return {"ev": ev, "ev_no_barrier": np.linalg.eigvalsh(Z.T @ H @ Z), "d": Z @ vec[:, :2],
            "sx": sx, "ss": ss, "Jd": J[ineq], "rank": rank, "n_eq": len(eq)}


def _names(tr) -> np.ndarray:
    """A block name for every variable: phase.block[coordinate, joint or row]."""
    names = np.full(tr.n_variables, "other", dtype=object)
    labels = {len(tr.robot.coordinates): tr.robot.coordinates, len(tr.robot.actuated): tr.robot.actuated}
    for ph, blocks in enumerate(tr.layout.phases):
        for b, idx in blocks.items():
            idx = np.asarray(idx)
            rows = idx.reshape(idx.shape[0], -1)
            label = labels.get(len(rows), range(len(rows)))
            for r, row in enumerate(rows):
                names[row] = f"{tr.phases[ph].name}.{b}[{label[r]}]"
    return names


def report(tr, it: dict, rh: dict, k: int) -> None:
    x, lg, d = it["x"], it["lam_g"], rh["d"]
    print(f"iterate {k}: {tr.n_variables} variables, {rh['n_eq']} equality rows (rank {rh['rank']}); "
          f"reduced Hessian lowest eigenvalues {np.array2string(rh['ev'][:4], precision=3)}, "
          f"without barrier terms {np.array2string(rh['ev_no_barrier'][:4], precision=3)}")
    curv = {"cost": _symmetric(it["hess_lag"](x, [], 1.0, np.zeros_like(lg)))}
    terms = {}
    for term, _, a, b in tr.rows:
        terms.setdefault(term, np.zeros_like(lg))[a:b] = lg[a:b]
    names = _names(tr)
    for j in range(d.shape[1]):
        v = d[:, j]
        parts = {"cost": v @ curv["cost"] @ v, "barrier (x bounds)": v @ (rh["sx"] * v),
                 "barrier (inequality rows)": float(np.sum(rh["ss"] * (rh["Jd"] @ v) ** 2))}
        for term, lam in terms.items():
            parts[term] = v @ _symmetric(it["hess_lag"](x, [], 0.0, lam)) @ v
        shown = ", ".join(f"{n} {c:+.3g}" for n, c in sorted(parts.items(), key=lambda p: p[1]) if abs(c) > 1e-3 * abs(rh["ev"][j]) + 1e-9)
        weight = {}
        for n, w in zip(names, v ** 2):
            weight[n] = weight.get(n, 0.0) + w
        top = ", ".join(f"{n} {w:.0%}" for n, w in sorted(weight.items(), key=lambda p: -p[1])[:4])
        print(f"  direction {j + 1} (eigenvalue {rh['ev'][j]:.3g}): curvature {shown}; moves {top}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("problem")
    ap.add_argument("--factor", type=float, default=1.0)
    ap.add_argument("--iterations", type=int, nargs="+", default=[5])
    args = ap.parse_args()
    problem = go.load_problem(args.problem)
    go.solve(problem.scaled_knots(0.25), print_level=0)  # the process's first solve, as bench/solve.py
    problem = problem.scaled_knots(args.factor)
    tr = transcribe(problem, robot_of(problem))
    if tr.n_variables > 8000:
        raise SystemExit(f"bench/inertia.py: {tr.n_variables} variables: too many for the dense analysis")
    for k in args.iterations:
        it = iterate(tr, problem, k)
        report(tr, it, reduced_hessian(tr, it), k)


if __name__ == "__main__":
    main()
