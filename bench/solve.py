"""Solve every shipped problem at 1×, 2× and 4× its knots; print a markdown table.

    python bench/solve.py [--factors 1 2 4] [--problems problems/a.yaml ...] [--json out.json]
                          [--codegen [--cache DIR]] [--starts N]

Columns: NLP variables, iterations, status, cost (the convergence record), setup (transcription + IPOPT set-up), solve wall time,
time in function/derivative evaluations vs inside IPOPT, time per iteration, and the
per-iteration time relative to 1× (linear growth in knots means ≈ the knot factor).
Cold starts from the automatic guess; wall-clock numbers, never asserted by tests.

--codegen solves with `solver.codegen: true` (gaitopt.codegen): each robot's inverse dynamics
and contact kinematics are compiled first (the `compile s` column: 0 when the cache already
holds them; --cache DIR sets $GAITOPT_CACHE), so the setup column is the cached case.

--starts N solves each case N times, the first with IPOPT's defaults and the others with its
initial-point push from the bounds (`bound_push`, the problem's or 0.01) changed by ±1 %, ±2 %, …: the
iteration count on the biped walks is sensitive to such changes (measured: slope walk at 1×,
52 to 208 iterations over five starts), so one run is a sample, not a figure. The iterations
column then reads "median (min–max)"; the other columns are the first run's.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gaitopt as go  # noqa: E402
from gaitopt.problem import shipped_problems  # noqa: E402
from gaitopt.codegen import compiled  # noqa: E402
from gaitopt.dynamics import SymbolicDynamics  # noqa: E402
from gaitopt.gait import robot_of  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--factors", type=float, nargs="+", default=[1, 2, 4])
    ap.add_argument("--problems", nargs="*", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--codegen", action="store_true", help="compiled rigid-body functions (solver.codegen)")
    ap.add_argument("--cache", default=None, help="code generation cache directory ($GAITOPT_CACHE)")
    ap.add_argument("--starts", type=int, default=1, help="solves per case with perturbed bound_push")
    args = ap.parse_args()
    if args.cache:
        os.environ["GAITOPT_CACHE"] = args.cache
    files = [Path(p) for p in args.problems] if args.problems else shipped_problems()
    rows = []
    print("| problem | knots× | compile s | variables | constraints | iterations | status | cost | setup s | solve s | in evaluations s | in IPOPT s | ms / iteration | per-iteration ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for f in files:
        base = None
        problem = go.load_problem(f)
        compile_s = 0.0
        if args.codegen:
            problem = problem.replace(solver=dataclasses.replace(problem.solver, codegen=True))
            t0 = time.perf_counter()
            dyn = SymbolicDynamics.of_robot(robot_of(problem), compiler=compiled)
            dyn.inverse_dynamics, dyn.contact_kinematics  # compiled now, or found in the cache
            compile_s = time.perf_counter() - t0
        for factor in args.factors:
            p = problem.scaled_knots(factor)
            r = go.solve(p, print_level=0)
            s = r.stats
            iterations = [s["iterations"]]
            for i in range(1, args.starts):
                change = 0.01 * ((i + 1) // 2) * (1 if i % 2 else -1)  # +1 %, −1 %, +2 %, …
                push = float(p.solver.options.get("bound_push", 0.01))
                opts = {**p.solver.options, "bound_push": push * (1 + change)}
                other = go.solve(p.replace(solver=dataclasses.replace(p.solver, options=opts)), print_level=0)
                iterations.append(other.stats["iterations"] if other.success else -other.stats["iterations"])
            per_it = s["solve_time_s"] / max(s["iterations"], 1)
            base = base or per_it
            row = {"problem": f.name, "factor": factor, "codegen": args.codegen, "compile_s": compile_s,
                   "variables": s["n_variables"],
                   "constraints": s["n_constraints"], "iterations": s["iterations"], "status": r.status,
                   "setup_s": s["build_time_s"] + s["setup_time_s"], "solve_s": s["solve_time_s"],
                   "eval_s": s["function_eval_time_s"], "ipopt_s": s["solver_time_s"],
                   "ms_per_iteration": 1e3 * per_it, "per_iteration_ratio": per_it / base,
                   "cost": r.cost, "max_violation": r.max_violation, "iterations_per_start": iterations}
            rows.append(row)
            compiled_col = f"{compile_s:.1f}" if args.codegen else "–"
            its = [abs(i) for i in iterations]
            its_col = (f"{statistics.median(its):g} ({min(its)}–{max(its)})" if len(its) > 1 else str(its[0]))
            failed = sum(i < 0 for i in iterations[1:])
            its_col += f", {failed} failed" if failed else ""
            compile_s = 0.0  # paid once per robot
            print(f"| {f.stem} | {factor:g} | {compiled_col} | {row['variables']} | {row['constraints']} | {its_col} | "
                  f"{r.status} | {r.cost:.5g} | {row['setup_s']:.2f} | {row['solve_s']:.2f} | {row['eval_s']:.2f} | "
                  f"{row['ipopt_s']:.2f} | {row['ms_per_iteration']:.1f} | {row['per_iteration_ratio']:.2f} |",
                  flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
