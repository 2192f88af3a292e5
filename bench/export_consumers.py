"""The exported files checked the way their readers use them, on several robots; a markdown table.

    python bench/export_consumers.py [--problems biped7_static_walk solo12_trot bolt_walk ...]
                                     [--scale 0.5] [--transcription hermite_simpson]

Per problem (solved at knots × scale): the equations of motion rebuilt from trajectory.csv's
header + the URDF with plain Pinocchio (largest residual relative to the row's largest
generalised force, at the optimised phases, with and without the header's armature, and on the
mirrored half); the MJCF: mj_inverse at the keyframes against the planned torques, the stance
contact spheres' gap to the floor at key 0, two cycles replayed with feedforward + PD (advance
vs plan). The checking code is that of tests/test_export_selfcontained.py and
tests/test_export_consumers.py. Regenerates the figures of docs/export.md and docs/formats.md.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import mujoco  # noqa: E402

import gaitopt as go  # noqa: E402
from gaitopt import export as E  # noqa: E402
from test_export_consumers import inverse_residuals, load, replay  # noqa: E402
from test_export_selfcontained import eom_residuals  # noqa: E402

PROBLEMS = ("biped7_static_walk", "solo12_trot", "bolt_walk", "anymal_c_trot", "hexapod_tripod")


def key0_gap(xml) -> float:
    m, d, info = load(xml)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    return max(abs(mujoco.mj_geomDistance(m, d, m.geom("floor").id, m.geom(f"foot_{c}").id, 1.0, None))
               for c in info["phases"][0]["contacts"])


def row(name: str, scale: float, method: str, tmp: Path) -> str:
    problem = go.load_problem(ROOT / "problems" / f"{name}.yaml").scaled_knots(scale).replace(transcription=method)
    result = go.solve(problem, print_level=0)
    d = tmp / name
    E.save(result, d)
    csv_path = d / "trajectory.csv"
    _, res = eom_residuals(csv_path)
    _, bare = eom_residuals(csv_path, with_armature=False)
    opt = max(r[2] for r in res if not r[4])
    mirrored = [r[2] for r in res if r[4]]
    mirror_text = f"{max(mirrored):.1e}" if mirrored else "–"
    xml = E.export(result, "mjcf", outdir=d)["export"]
    m, data, _ = load(xml)
    _, advance, _ = replay(m, data, cycles=2)
    return (f"| {name} | {result.success} | {opt:.1e} | {max(r[2] for r in bare if not r[4]):.1e} | "
            f"{mirror_text} | {inverse_residuals(xml, csv_path)[False]:.1e} | {key0_gap(xml):.1e} | "
            f"{advance:.3f} / {2 * result.trajectory.stride:.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="+", default=list(PROBLEMS))
    ap.add_argument("--scale", type=float, default=0.5)
    ap.add_argument("--transcription", default="hermite_simpson")
    args = ap.parse_args()
    print(f"knots × {args.scale}, {args.transcription}\n")
    print("| problem | solved | EoM rel. (header + URDF) | without armature | mirrored half | mj_inverse rel. "
          "| key-0 stance gap [m] | 2-cycle replay advance / plan [m] |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="export-consumers-") as tmp:
        for name in args.problems:
            print(row(name, args.scale, args.transcription, Path(tmp)), flush=True)


if __name__ == "__main__":
    main()
