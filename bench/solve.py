"""Solve every shipped problem at 1×, 2×, 4× and 8× its knots; print a markdown table.

    python bench/solve.py [--factors 1 2 4 8] [--problems problems/a.yaml ...] [--json out.json]
                          [--codegen [--cache DIR]] [--starts N] [--summary]
    python bench/solve.py --markdown [--problems ...] [--cache DIR]
    python bench/solve.py --summary-from out.json [--short]

--summary (or --summary-from a --json file of an earlier run) prints the scaling table of
docs/speed.md and the README: per problem, setup and solve seconds (wall), iterations and CPU
ms per iteration at each knot factor, and the CPU time per iteration at the largest factor
relative to linear growth (per-iteration ratio / variable-count ratio; 1.0 is linear, the aim
is ≤ 1.3; marked * above). CPU time, because on a machine shared with other jobs wall times
per iteration vary several-fold.

Columns: NLP variables, iterations, status, cost (the convergence record), setup (transcription + IPOPT set-up), solve wall time,
time in function/derivative evaluations vs inside IPOPT, time per iteration, the
per-iteration time relative to 1× (linear growth in knots means ≈ the knot factor) and that
ratio over the variable-count ratio ("vs linear": 1.0 is linear).
Then where IPOPT's time per iteration goes, read from its journal (written at
`file_print_level` 6 to a temporary file; the writing costs < 1 % of the solve): the number of
KKT factorisations (one per iteration, plus one per failed inertia test: IPOPT retries with a
larger Hessian regularisation), the iterative-refinement steps, the MUMPS factor size (MB),
the time inside IPOPT per factorisation with its ratio to 1×, which separates the cost of one
factorisation (linear in knots for banded KKT systems) from the number of them per iteration,
and the factorisations rejected for their inertia (bench/inertia.py finds the direction).
Cold starts from the automatic guess; wall-clock numbers, never asserted by tests.

--codegen solves with `solver.codegen: true` (gaitopt.codegen): the derivatives of the robot
functions shared by the points (the inverse dynamics above all) are compiled first (the
`compile s` column: 0 when the cache already holds them; --cache DIR sets $GAITOPT_CACHE), so
the setup column is the cached case: what the default (`auto`) does after `gaitopt compile`.
Without --codegen the solves take the default, which loads what the cache holds: --cache with
an empty directory measures a robot's solves before anything was compiled.

--starts N solves each case N times, the first with IPOPT's defaults and the others with its
initial-point push from the bounds (`bound_push`, the problem's or 0.01) changed by ±1 %, ±2 %, …: the
iteration count on the biped walks is sensitive to such changes (measured at 1×: heel–toe walk
29 to 30 iterations over five starts, slope walk 29 to 33; 42–51 and 30–35 with IPOPT's
least-squares multiplier estimate at cold starts, 40–95 and 56–74 before the MUMPS pivot
threshold of gaitopt.solver), so one run is a sample, not a figure. The iterations
column then reads "median (min–max)"; the other columns are the first run's.

--markdown prints docs/speed.md's table instead: every problem at 1× knots, solved inline and
then with `solver.codegen: true` (compiled first, so its setup is the cached case): setup s,
solve s and iterations as "inline / codegen", and the inline run's KKT factorisations.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gaitopt as go  # noqa: E402
from gaitopt.problem import shipped_problems  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import precompile  # noqa: E402


def linear_algebra(journal: str) -> dict:
    """Factorisations, refinement steps, the largest MUMPS factor (doubles) and the
    factorisations IPOPT rejected for their inertia (more negative eigenvalues than constraints:
    the Hessian has negative curvature the constraints do not fix, and IPOPT factorises again
    with a regularised Hessian) in an IPOPT journal written at print level ≥ 6."""
    text = Path(journal).read_text(errors="replace")
    factors = [int(n) for n in re.findall(r"INFO\(9\)\) = (\d+)", text)]
    trials = sum(int(n) for n in re.findall(r"Number of trial factorizations performed: (\d+)", text))
    return {"factorizations": len(factors) or trials, "refinements": text.count("residual_ratio"),
            "factor_doubles": max(factors, default=0),
            "wrong_inertia": len(re.findall(r"negevals_ = \d+, but numberOfNegEVals", text))}


def solve_logged(p) -> tuple:
    """go.solve(p) with IPOPT's journal at level 6 in a temporary file; (result, linear_algebra)."""
    fd, journal = tempfile.mkstemp(suffix=".ipopt.txt")
    os.close(fd)
    try:
        opts = {**p.solver.options, "output_file": journal, "file_print_level": 6}
        r = go.solve(p.replace(solver=dataclasses.replace(p.solver, options=opts)), print_level=0)
        return r, linear_algebra(journal)
    finally:
        os.remove(journal)


def markdown_table(files: list) -> None:
    """docs/speed.md's table: each problem at 1× knots, inline / codegen."""
    print("| problem | setup s | solve s | iterations | factorisations |")
    print("|---|---|---|---|---|")
    for f in files:
        inline = go.load_problem(f)
        cg = inline.replace(solver=dataclasses.replace(inline.solver, codegen=True))
        precompile(cg)
        (ri, la), (rc, _) = solve_logged(inline), solve_logged(cg)
        si, sc = ri.stats, rc.stats
        setup = [s["build_time_s"] + s["setup_time_s"] for s in (si, sc)]
        print(f"| {f.stem} | {setup[0]:.2f} / {setup[1]:.2f} | {si['solve_time_s']:.2f} / "
              f"{sc['solve_time_s']:.2f} | {si['iterations']} / {sc['iterations']} | "
              f"{la['factorizations']} |", flush=True)


def summary_table(rows: list, short: bool = False) -> None:
    """The scaling table (see the module docstring) of bench rows; `short`: the README's, with
    the smallest and largest knot factors only."""
    factors = sorted({r["factor"] for r in rows})
    if short:
        factors = [factors[0], factors[-1]]
        rows = [r for r in rows if r["factor"] in factors]
    fs = " / ".join(f"{f:g}×" for f in factors)
    if short:
        print(f"| problem | setup s ({fs}) | solve s ({fs}) | CPU per iteration vs linear at {factors[-1]:g}× |")
        print("|---|---|---|---|")
    else:
        print(f"| problem | setup s ({fs}) | solve s ({fs}) | iterations ({fs}) | CPU ms / iteration ({fs}) "
              f"| vs linear at {factors[-1]:g}× |")
        print("|---|---|---|---|---|---|")
    for name in dict.fromkeys(r["problem"] for r in rows):
        mine = {r["factor"]: r for r in rows if r["problem"] == name}

        def col(key, fmt):
            return " / ".join(fmt.format(mine[f][key]) if f in mine else "–" for f in factors)

        first, last = mine[min(mine)], mine[max(mine)]
        linear = last["cpu_vs_linear"]
        mark = "*" if linear > 1.3 else ""
        if short:
            print(f"| {Path(name).stem} | {col('setup_s', '{:.2f}')} | {col('solve_s', '{:.2f}')} | {linear:.2f}{mark} |")
        else:
            print(f"| {Path(name).stem} | {col('setup_s', '{:.2f}')} | {col('solve_s', '{:.2f}')} | "
                  f"{col('iterations', '{}')} | {col('ms_cpu_per_iteration', '{:.1f}')} | {linear:.2f}{mark} |")


def measure_case(problem_file: str, factor: float, codegen: bool, starts: int) -> dict:
    """One case, in the process that runs it: {stats, la, cost, status, max_violation,
    iterations (one per start; negative: that start failed)}."""
    problem = go.load_problem(problem_file)
    if codegen:
        problem = problem.replace(solver=dataclasses.replace(problem.solver, codegen=True))
    # one small solve first: the first solve of a process pays IPOPT's and MUMPS's one-time start
    go.solve(problem.scaled_knots(0.25), print_level=0)
    p = problem.scaled_knots(factor)
    r, la = solve_logged(p)
    iterations = [r.stats["iterations"]]
    for i in range(1, starts):
        change = 0.01 * ((i + 1) // 2) * (1 if i % 2 else -1)  # +1 %, −1 %, +2 %, …
        push = float(p.solver.options.get("bound_push", 0.01))
        opts = {**p.solver.options, "bound_push": push * (1 + change)}
        other = go.solve(p.replace(solver=dataclasses.replace(p.solver, options=opts)), print_level=0)
        iterations.append(other.stats["iterations"] if other.success else -other.stats["iterations"])
    stats = {k: v for k, v in r.stats.items() if isinstance(v, (int, float, str))}
    return {"stats": stats, "la": la, "cost": r.cost, "status": r.status, "max_violation": r.max_violation,
            "iterations": iterations}


def _in_child(problem_file, factor: float, codegen: bool, starts: int) -> dict:
    """measure_case in a fresh process: each case then starts as a `gaitopt solve` does (the
    path of a hard solve depends on the IPOPT options of its process's first solve, and
    solve_logged adds a journal: docs/speed.md)."""
    cmd = [sys.executable, __file__, "--one", str(problem_file), str(factor), str(int(codegen)), str(starts)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"bench/solve.py: the case {problem_file} × {factor:g} failed (its output above)")
    return json.loads(out.stdout.strip().splitlines()[-1])


HEADER = ("| problem | knots× | compile s | variables | constraints | iterations | status | cost | setup s | solve s | "
          "in evaluations s | in IPOPT s | ms / iteration | per-iteration ratio | vs linear | factorisations | "
          "refinements | factor MB | ms / factorisation | per-factorisation ratio | rejected for inertia |")


def _row(f: Path, factor: float, case: dict, compile_s: float, codegen: bool, base: dict) -> dict:
    """One case's table row; `base` holds the problem's first case's per-iteration figures (set
    here by its first case) that the ratios are taken against."""
    s, la = case["stats"], case["la"]
    per_it = s["solve_time_s"] / max(s["iterations"], 1)
    per_it_cpu = s["solve_cpu_s"] / max(s["iterations"], 1)
    per_fact = s["solver_time_s"] / max(la["factorizations"], 1)
    if not base:
        base.update(per_it=per_it, per_it_cpu=per_it_cpu, n=s["n_variables"], per_fact=per_fact)
    grow = s["n_variables"] / base["n"]
    return {"problem": f.name, "factor": factor, "codegen": codegen, "compile_s": compile_s,
            "variables": s["n_variables"], "constraints": s["n_constraints"], "iterations": s["iterations"],
            "status": case["status"], "setup_s": s["build_time_s"] + s["setup_time_s"], "solve_s": s["solve_time_s"],
            "eval_s": s["function_eval_time_s"], "ipopt_s": s["solver_time_s"],
            "ms_per_iteration": 1e3 * per_it, "per_iteration_ratio": per_it / base["per_it"],
            "vs_linear": per_it / base["per_it"] / grow,
            "solve_cpu_s": s["solve_cpu_s"], "ms_cpu_per_iteration": 1e3 * per_it_cpu,
            "cpu_vs_linear": per_it_cpu / base["per_it_cpu"] / grow,
            "cost": case["cost"], "max_violation": case["max_violation"], "iterations_per_start": case["iterations"],
            **la, "ms_per_factorization": 1e3 * per_fact, "per_factorization_ratio": per_fact / base["per_fact"]}


def _print_row(f: Path, row: dict, codegen: bool) -> None:
    its = [abs(i) for i in row["iterations_per_start"]]
    its_col = f"{statistics.median(its):g} ({min(its)}–{max(its)})" if len(its) > 1 else str(its[0])
    failed = sum(i < 0 for i in row["iterations_per_start"][1:])
    its_col += f", {failed} failed" if failed else ""
    compiled_col = f"{row['compile_s']:.1f}" if codegen else "–"
    print(f"| {f.stem} | {row['factor']:g} | {compiled_col} | {row['variables']} | {row['constraints']} | {its_col} | "
          f"{row['status']} | {row['cost']:.5g} | {row['setup_s']:.2f} | {row['solve_s']:.2f} | {row['eval_s']:.2f} | "
          f"{row['ipopt_s']:.2f} | {row['ms_per_iteration']:.1f} | {row['per_iteration_ratio']:.2f} | "
          f"{row['vs_linear']:.2f} | {row['factorizations']} | {row['refinements']} | "
          f"{8e-6 * row['factor_doubles']:.1f} | {row['ms_per_factorization']:.1f} | "
          f"{row['per_factorization_ratio']:.2f} | {row['wrong_inertia']} |", flush=True)


def run_cases(files: list, args) -> list:
    """Every problem at every knot factor, each case in a fresh process; prints the table's rows
    as they finish and returns them."""
    rows = []
    print(HEADER)
    print("|" + "---|" * 21)
    for f in files:
        base, compile_s = {}, 0.0
        if args.codegen:
            problem = go.load_problem(f)
            problem = problem.replace(solver=dataclasses.replace(problem.solver, codegen=True))
            compile_s = precompile(problem)
        for factor in args.factors:
            row = _row(f, factor, _in_child(f, factor, args.codegen, args.starts), compile_s, args.codegen, base)
            rows.append(row)
            _print_row(f, row, args.codegen)
            compile_s = 0.0  # paid once per robot
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--one", nargs=4, help=argparse.SUPPRESS)  # PROBLEM FACTOR CODEGEN STARTS, in a child
    ap.add_argument("--factors", type=float, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--summary", action="store_true", help="also print the scaling table")
    ap.add_argument("--summary-from", default=None, help="print the scaling table of a --json file")
    ap.add_argument("--short", action="store_true", help="the README's short scaling table")
    ap.add_argument("--problems", nargs="*", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--codegen", action="store_true", help="compiled derivatives of the shared robot functions (solver.codegen)")
    ap.add_argument("--cache", default=None, help="code generation cache directory ($GAITOPT_CACHE)")
    ap.add_argument("--starts", type=int, default=1, help="solves per case with perturbed bound_push")
    ap.add_argument("--markdown", action="store_true",
                    help="print docs/speed.md's table (1× knots, inline / codegen) instead")
    args = ap.parse_args()
    if args.one:
        f, factor, codegen, starts = args.one
        print(json.dumps(measure_case(f, float(factor), bool(int(codegen)), int(starts))))
        return
    if args.cache:
        os.environ["GAITOPT_CACHE"] = args.cache
    if args.summary_from:
        summary_table(json.loads(Path(args.summary_from).read_text()), short=args.short)
        return
    files = [Path(p) for p in args.problems] if args.problems else shipped_problems()
    if args.markdown:
        markdown_table(files)
        return
    rows = run_cases(files, args)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    if args.summary:
        print()
        summary_table(rows, short=args.short)


if __name__ == "__main__":
    main()
