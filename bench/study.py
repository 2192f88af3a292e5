"""Benchmark: a study run in-process, in local worker processes, and with and without warm starts.

For the example study (default problems/studies/biped7_gear_sweep.yaml) prints one table row
per mode: wall time, cases solved, total IPOPT iterations, and the sum of the solve times that
the cases report. Every mode writes into a fresh temporary OUTDIR.

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/study.py [STUDY.yaml] [--workers 2]
"""
from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from gaitopt.study import load_study, run_study

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("study", nargs="?", default=str(ROOT / "problems" / "studies" / "biped7_gear_sweep.yaml"))
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    study = load_study(args.study)
    modes = [
        ("in-process, warm", study, None, None),
        (f"{args.workers} processes, warm", study, "process", args.workers),
        ("in-process, cold", dataclasses.replace(study, warm_start=False), None, None),
    ]
    print(f"{'mode':24s} {'wall [s]':>9s} {'solved':>8s} {'iterations':>11s} {'Σ solve [s]':>12s}")
    for name, st, executor, workers in modes:
        with tempfile.TemporaryDirectory() as out:
            t0 = time.perf_counter()
            rows = run_study(st, out, executor=executor, max_workers=workers, progress=False)
            wall = time.perf_counter() - t0
        ok = sum(bool(r["success"]) for r in rows)
        its = sum(int(r["iterations"]) for r in rows if r.get("iterations") not in (None, ""))
        solve = sum(float(r["solve_time_s"]) for r in rows if r.get("solve_time_s") not in (None, ""))
        print(f"{name:24s} {wall:9.1f} {ok:>4d}/{len(rows):<3d} {its:11d} {solve:12.1f}")


if __name__ == "__main__":
    main()
