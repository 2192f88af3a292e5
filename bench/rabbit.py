"""RABBIT walking solve times beside TROPIC's and FROST's published ones.

    python bench/rabbit.py [--runs 5] [--json out.json]

Solves problems/rabbit_walk.yaml (single support + impact + short double support, 25
intervals per step) and the classic formulation TROPIC and FROST solve: single support only,
impact at touchdown, free step time, 25 intervals (the shipped file with its double support
removed). The fastest of --runs cold solves (automatic guess; the least disturbed by other
jobs, --json also keeps the medians) of setup (transcription + IPOPT set-up) and solve (IPOPT),
and the whole-process time of `gaitopt solve` once. Wall-clock numbers, never asserted by tests.

Published, other hardware (a 2012 desktop, i7-3770, IPOPT + MA57), other formulations
(virtual-constraint / HZD collocation): TROPIC (CasADi; Fevre, Goyal, Schmiedeler, Wensing,
"TROPIC: a trajectory optimisation package ... ", 2020) RABBIT walk, 25 collocation points,
709 variables: 1.5 s; FROST on the same problem: 6.9 s.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = ROOT / "problems" / "rabbit_walk.yaml"
# TROPIC's and FROST's formulation as --set overrides of the shipped file: one single-support
# phase of 25 intervals, free step time, impact at touchdown (no double support)
CLASSIC = ["gait.phases=[{name: single_support, contacts: {left: stance, right: swing}, knots: 25, "
           "duration: {min: 0.2, max: 1.0, guess: 0.45}}]"]
PUBLISHED = [("TROPIC (published, 2012 desktop)", 1.5, 709), ("FROST (published, 2012 desktop)", 6.9, None)]


def process_time(overrides: list) -> float:
    """Wall time of one `gaitopt solve` process (imports, setup, solve, writing)."""
    with tempfile.TemporaryDirectory(prefix="rabbit-bench-") as out:
        cmd = [sys.executable, "-m", "gaitopt.cli", "solve", str(PROBLEM), "-o", out, "--set", "solver.print_level=0"]
        for o in overrides:
            cmd += ["--set", o]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        return time.perf_counter() - t0


def main(argv=None) -> int:
    import gaitopt as go

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from timing import timed_solves as timed

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    classic = CLASSIC
    rows = {}
    rows["rabbit_walk (shipped)"] = timed(go.load_problem(PROBLEM), args.runs)
    rows["rabbit_walk (shipped)"]["process_s"] = process_time([])
    rows["single support + impact, free timing"] = timed(go.load_problem(PROBLEM, overrides=classic), args.runs)
    rows["single support + impact, free timing"]["process_s"] = process_time(classic)
    print("| problem | variables | iterations | setup s | solve s | solve CPU s | whole process s | cost J/m |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        print(f"| gaitopt: {name} | {r['variables']} | {r['iterations']} | {r['setup_s']:.3f} | {r['solve_s']:.3f} | "
              f"{r['cpu_solve_s']:.3f} | {r['process_s']:.2f} | {r['cost']:.3g} |")
    for name, t, nv in PUBLISHED:
        print(f"| {name} | {nv or '–'} | – | – | {t} | – | – | – |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
