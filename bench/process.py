"""`gaitopt solve PROBLEM -o DIR` as a whole process, timed for two or more checkouts in turn.

    python bench/process.py --checkouts /work/main . [--problems problems/a.yaml ...] [--runs 7]

Each checkout's gaitopt is imported through PYTHONPATH, from a neutral working directory (with
`python -m`, the current directory comes first on sys.path and would shadow PYTHONPATH). The
checkouts run in turn (A B A B …, after one warm-up each) so that a machine shared with other
jobs slows them alike; the bytecode cache is on (this machine's environment sets
PYTHONDONTWRITEBYTECODE, which adds the compilation of every gaitopt module to each process).
Prints a markdown table of wall and CPU medians (CPU: the process's user + system time, its
BLAS threads included). Never asserted by tests.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PROBLEMS = ("problems/biped7_heel_toe_walk.yaml", "problems/solo12_trot.yaml")


def _env(checkout: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(checkout), PYTHONDONTWRITEBYTECODE="")


def _imported_from(checkout: Path, cwd: str) -> str:
    code = "import gaitopt; print(gaitopt.__file__)"
    return subprocess.run([sys.executable, "-c", code], env=_env(checkout), cwd=cwd, capture_output=True,
                          text=True, check=True).stdout.strip()


def solve_process(checkout: Path, problem: Path, outdir: str, cwd: str) -> tuple:
    """(wall s, CPU s) of one `gaitopt solve` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gaitopt.cli", "solve", str(problem), "-o", outdir], env=_env(checkout),
                   cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkouts", nargs="+", default=[str(ROOT)], help="repository roots (default: this one)")
    ap.add_argument("--problems", nargs="+", default=list(DEFAULT_PROBLEMS))
    ap.add_argument("--runs", type=int, default=7, help="timed runs per checkout and problem (default 7)")
    args = ap.parse_args()
    checkouts = [Path(c).resolve() for c in args.checkouts]
    with tempfile.TemporaryDirectory(prefix="gaitopt-bench-process-") as tmp:
        for c in checkouts:  # each checkout's gaitopt, not the one the working directory holds
            where = _imported_from(c, tmp)
            if not where.startswith(str(c / "gaitopt")):
                sys.exit(f"{c}: python imports gaitopt from {where}")
        header = " | ".join(f"wall s, CPU s ({c.name or c})" for c in checkouts)
        print(f"| problem | {header} |\n|---|" + "---|" * len(checkouts))
        for problem in args.problems:
            path = (ROOT / problem).resolve() if not Path(problem).is_absolute() else Path(problem)
            times = {c: [] for c in checkouts}
            for i in range(args.runs + 1):
                for k, c in enumerate(checkouts):
                    sample = solve_process(c, path, os.path.join(tmp, f"out{k}"), tmp)
                    if i:  # the first round warms the bytecode cache and the disk
                        times[c].append(sample)
            cells = " | ".join(f"{statistics.median(w for w, _ in times[c]):.3f}, "
                               f"{statistics.median(u for _, u in times[c]):.3f}" for c in checkouts)
            print(f"| {path.stem} | {cells} |", flush=True)
    print(f"\n(medians of {args.runs} runs each, in turn; load average {os.getloadavg()[0]:.2f} at the end)")


if __name__ == "__main__":
    main()
