"""Feet with and without a sole width (docs/modelling.md, "Feet with a sole width"): each
problem solved on a copy of its robot with line feet (heel and toe points) and with
`width` added to every heel/toe foot, then replayed in MuJoCo (gaitopt.verify). Prints a Markdown
table: cost, iterations, base roll and yaw range, the left stance foot's yaw and roll range,
peak torque / limit, the replay's verdict.

    python bench/sole_width.py                       # hoap2 static walk and hoap2_walk on 3-D hoap2
    python bench/sole_width.py --case /tmp/usertrial-biped/heel_toe.yaml 0.09 --set speed=0.4

A case is a problem file and a sole width [m]; its `robot:` folder is copied next to it.
"""
from __future__ import annotations

import argparse
import dataclasses
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pinocchio as pin
import yaml

import gaitopt as go
from gaitopt import verify

ROOT = Path(__file__).resolve().parent.parent
CASES = [(ROOT / "problems" / "hoap2_static_walk.yaml", 0.062, {}),
         (ROOT / "problems" / "hoap2_walk.yaml", 0.062, {"robot": "hoap2"})]  # hoap2_walk's phases in 3-D


def copy_case(problem: Path, width: float | None, overrides: dict, into: Path) -> Path:
    """A copy of `problem` and its robot folder under `into`, the robot's heel/toe feet given
    `width` (None: as shipped). Returns the copied problem file."""
    data = yaml.safe_load(problem.read_text())
    data.update(overrides)
    name = data["robot"]
    src = (problem.parent / name) if "/" in name else ROOT / "robots" / name
    dst = into / src.name
    shutil.copytree(src, dst)
    if width is not None:
        text = (dst / "robot.yaml").read_text()
        text, n = re.subn(r"(toe: \[[^\]]*\])\}", rf"\1, width: {width}}}", text)
        assert n, f"no heel/toe foot in {src}/robot.yaml"
        (dst / "robot.yaml").write_text(text)
    data["robot"] = f"./{dst.name}"
    out = into / problem.name
    out.write_text(yaml.safe_dump(data, sort_keys=False))
    return out


def figures(result) -> dict:
    """Ranges of base roll and yaw [rad], of the left foot's yaw and roll in stance [°], and
    the peak |τ| / torque limit, on 400 samples of one cycle."""
    robot, traj = result.robot, result.trajectory
    t = np.linspace(0.0, traj.period, 401)[:-1]
    s = result.sample(t)
    q, f = s["q"], s["f"].reshape(len(t), -1, 3)
    ix = robot.coordinates.index
    left = [i for i, c in enumerate(robot.contacts) if c.foot == "left"]
    data, fid = robot.model.createData(), robot.model.getFrameId(robot.feet["left"].frame)
    yaw, roll = [], []
    for qk in q[f[:, left, 2].sum(axis=1) > 1.0]:
        pin.framesForwardKinematics(robot.model, data, qk)
        R = data.oMf[fid].rotation
        yaw.append(np.degrees(np.arctan2(R[1, 0], R[0, 0])))
        roll.append(np.degrees(np.arctan2(R[2, 1], R[2, 2])))
    limit = np.array([robot.actuators[j].torque_limit for j in robot.actuated])
    return {"roll": np.abs(q[:, ix("base_roll")]).max(), "yaw": np.abs(q[:, ix("base_yaw")]).max(),
            "foot_yaw": (min(yaw), max(yaw)), "foot_roll": (min(roll), max(roll)),
            "peak": float((np.abs(s["tau"]).max(axis=0) / limit).max())}


def row(label: str, feet: str, result) -> str:
    if not result.success:
        return f"| {label} | {feet} | failed: {result.status} | | | | | |"
    fg = figures(result)
    rep = verify.replay(result, cycles=2).report
    verdict = "verified" if rep["verified"] else "; ".join(rep["failures"])
    return (f"| {label} | {feet} | {result.cost:.4g} | {result.stats['iterations']} | ±{fg['roll']:.2f} / "
            f"±{fg['yaw']:.2f} | {fg['foot_yaw'][0]:+.1f}…{fg['foot_yaw'][1]:+.1f} / {fg['foot_roll'][0]:+.2f}…"
            f"{fg['foot_roll'][1]:+.2f} | {fg['peak']:.2f} | {verdict} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", nargs=2, action="append", metavar=("PROBLEM", "WIDTH"),
                    help="a problem file and a sole width [m] (default: the HOAP-2 cases)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="problem overrides")
    args = ap.parse_args()
    cases = [(Path(p), float(w), {}) for p, w in args.case] if args.case else CASES
    print("| problem | feet | cost | iterations | base roll / yaw [rad] | left stance foot yaw / roll [°] "
          "| peak τ / limit | verify |\n|---|---|---|---|---|---|---|---|")
    for source, width, edit in cases:
        for feet, w in (("line", None), (f"sole {width:g} m", width)):
            with tempfile.TemporaryDirectory(prefix="sole-width-") as tmp:
                path = copy_case(source, w, edit, Path(tmp))
                problem = go.load_problem(path, args.set)
                result = go.solve(problem.replace(solver=dataclasses.replace(problem.solver, print_level=0)))
                print(row(f"{source.stem} ({result.robot.name})", feet, result), flush=True)


if __name__ == "__main__":
    main()
