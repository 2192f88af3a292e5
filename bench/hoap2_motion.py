"""The shipped HOAP-2 walks as HOAP-2 motion files: solve each, export it with
`--format hoap2` (a row every 2 ms, pulses) and print its servo-limit check as a markdown table
(docs/export.md, "HOAP-2 motion files").

    python bench/hoap2_motion.py [--scale 1]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gaitopt as go  # noqa: E402
from gaitopt.export import hoap2 as H  # noqa: E402

PROBLEMS = ("hoap2_walk", "hoap2_walk_fast", "hoap2_static_walk")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0, help="knots × this")
    args = ap.parse_args()
    print("| problem | robot | speed [m/s] | period [s] | rows | peak velocity [pulse/ms] (motor) | "
          "peak acceleration [pulse/ms²] (motor) | servo check |\n|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in PROBLEMS:
            result = go.solve(go.load_problem(ROOT / "problems" / f"{name}.yaml").scaled_knots(args.scale),
                              print_level=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the check is printed below
                path = H.write_hoap2_motion(result, Path(tmp) / f"{name}.csv")
            meta, data = H.read_hoap2_motion(path)
            p = data["pulses"].astype(float)
            vel = np.abs(np.diff(p, axis=0)) / meta["step_ms"]
            acc = np.abs(np.diff(p, 2, axis=0)) / meta["step_ms"] ** 2
            jv, ja = vel.max(axis=0).argmax(), acc.max(axis=0).argmax()
            tr = result.trajectory
            print(f"| {name} | {result.robot.name} | {tr.stride / tr.period:.4f} | {tr.period:.3f} | {meta['rows']} | "
                  f"{meta['servo_peaks']['velocity_pulse_per_ms']:.1f} ({data['motors'][jv]}) | "
                  f"{meta['servo_peaks']['acceleration_pulse_per_ms2']:.2f} ({data['motors'][ja]}) | "
                  f"{meta['servo_check'].split(':')[0]}{'' if result.success else ' (failed solve)'} |")


if __name__ == "__main__":
    main()
