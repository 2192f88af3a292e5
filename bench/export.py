"""Time the exports, plots and animation of one solved gait; print a markdown table.

    python bench/export.py [--problem problems/biped7_heel_toe_walk.yaml] [--scale 1] [--cycles 1 10]

Rows: reloading the RESULT_DIR (load_result), each export format at 500 Hz for each number of
cycles (rows written, seconds, rows per second), every plot, and a GIF of one cycle at 25 fps.
Wall-clock numbers, never asserted by tests.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gaitopt as go  # noqa: E402
from gaitopt import animate, export, plot  # noqa: E402


def timed(fn, *args, **kw):
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--problem", default=str(ROOT / "problems" / "biped7_heel_toe_walk.yaml"))
    ap.add_argument("--scale", type=float, default=1.0, help="knots × this")
    ap.add_argument("--cycles", type=int, nargs="+", default=[1, 10])
    args = ap.parse_args()
    problem = go.load_problem(args.problem).scaled_knots(args.scale)
    result = go.solve(problem, print_level=0)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        export.save(result, d / "res")
        res, dt = timed(export.load_result, d / "res")
        rows.append(("load_result", "", dt, ""))
        for cycles in args.cycles:
            for fmt in export.EXPORT_FORMATS:
                if fmt == "hoap2" and "RLEG_JOINT1" not in [*res.robot.coordinates, *res.robot.locked]:
                    continue  # the HOAP-2 motion file is for the hoap2 robots only
                paths, dt = timed(export.export, res, fmt, outdir=d / f"{cycles}", rate_hz=500.0, cycles=cycles)
                n = len(export.sample_times(res.trajectory.period, 500.0, cycles))
                rows.append((f"export {fmt}, {cycles} cycle(s)", n, dt, f"{n / dt:.0f}"))
        for name, fn in plot.PLOTS.items():
            fig, dt = timed(fn, res)
            _, dt_png = timed(fig.savefig, d / f"{name}.png", dpi=110)
            rows.append((f"plot {name} (+ PNG)", "", dt + dt_png, ""))
        _, dt = timed(animate.save_animation, res, d / "walk.gif", fps=25, cycles=1)
        rows.append(("animation GIF, 1 cycle, 25 fps", "", dt, ""))
    print(f"{Path(args.problem).name}, knots × {args.scale}, {res.trajectory.period:.3f} s period, "
          f"{result.problem.transcription}\n")
    print("| step | rows | s | rows/s |\n|---|---|---|---|")
    for step, n, dt, rate in rows:
        print(f"| {step} | {n} | {dt:.3f} | {rate} |")


if __name__ == "__main__":
    main()
