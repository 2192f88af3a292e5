"""Cold solves of one problem, timed for the peer comparisons (bench/crocoddyl.py, bench/rabbit.py),
and the code generation cache filled before a timing (`precompile`: bench/setup.py, solve.py).

On a machine shared with other jobs the wall times of a run are inflated by waiting for a core;
the fastest of several runs and the process's CPU time are inflated less, so both are kept.
"""
from __future__ import annotations

import dataclasses
import statistics
import time


def timed_solves(problem, runs: int) -> dict:
    """Solve `problem` cold `runs` times (IPOPT silent). Returns the fastest wall times (s) of
    setup (transcription + IPOPT set-up) and solve, their medians, the median iteration count,
    the fastest CPU time of the whole solve (cpu_s) and of the solve alone (cpu_solve_s: minus
    the CPU time of the same problem with max_iter 0, i.e. build, IPOPT set-up and the first
    evaluation), cost, success and the NLP's variable count."""
    import gaitopt as go

    problem = problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))
    setup_only = problem.replace(solver=dataclasses.replace(problem.solver, max_iter=0))
    stats, cpu, cpu_setup, result = [], [], [], None
    for _ in range(runs):
        c0 = time.process_time()
        result = go.solve(problem)
        cpu.append(time.process_time() - c0)
        stats.append(result.stats)
        c0 = time.process_time()
        go.solve(setup_only)
        cpu_setup.append(time.process_time() - c0)
    setup = [s["setup_time_s"] for s in stats]
    solve = [s["solve_time_s"] for s in stats]
    return {"variables": stats[0]["n_variables"], "iterations": int(statistics.median(s["iterations"] for s in stats)),
            "setup_s": min(setup), "solve_s": min(solve),
            "median": {"setup_s": statistics.median(setup), "solve_s": statistics.median(solve)},
            "cpu_s": min(cpu), "cpu_solve_s": min(cpu) - min(cpu_setup),
            "cost": float(result.cost), "success": bool(result.success)}


def precompile(problem) -> float:
    """Compile the shared blocks' derivatives of `problem` (a gaitopt Problem) with `solver.codegen:
    true` into the cache, or find them there; returns the seconds spent compiling."""
    from gaitopt.gait import robot_of
    from gaitopt.transcription import transcribe

    problem = problem.replace(solver=dataclasses.replace(problem.solver, codegen=True))
    tr = transcribe(problem, robot_of(problem))
    tr.assembly.functions()
    return tr.assembly.compiler.compile_s
