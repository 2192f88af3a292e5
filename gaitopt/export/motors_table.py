"""The motor table: actuated joint positions only, one row per sample, for motor drivers."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from .atomic import atomic_open
from .commented_csv import write_comments
from .sampling import DEFAULT_RATE_HZ, sample_table
from .trajectory_csv import header, model_record

MOTORS_FORMAT = "gaitopt-motors 1"


def _is_revolute(robot, joint: str) -> bool:
    return "P" not in robot.model.joints[robot.model.getJointId(joint)].shortname().replace("JointModel", "")


def write_motor_table(result, path: str | Path, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1,
                      degrees: bool = False) -> Path:
    """The motor table: comment lines (`# key: value`; the last, `# joints: [...]`, names the
    columns), then one row per sample (every 1/rate s) and one column per actuated joint,
    positions only, in rad or, with degrees=True, in degrees (prismatic joints stay in m).
    `numpy.loadtxt(path, delimiter=",")` reads the numbers as they are."""
    path = Path(path)
    robot = result.robot
    tb = sample_table(result, rate_hz, cycles)
    pos = tb["q"][:, robot.actuated_index]
    revolute = [_is_revolute(robot, j) for j in robot.actuated]
    if degrees:
        pos = np.where(revolute, np.degrees(pos), pos)
    units = {j: ("deg" if degrees else "rad") if r else "m" for j, r in zip(robot.actuated, revolute)}
    meta = {"format": MOTORS_FORMAT, "robot": robot.name, "rate_hz": float(rate_hz), "cycles": int(cycles),
            "rows": len(pos), "period": result.trajectory.period, "stride": result.trajectory.stride,
            "transcription": result.problem.transcription, "success": bool(result.success),
            "versions": header(result)["versions"], "unit": "deg" if degrees else "rad", "units": units}
    # added 2026-11-24: the model the optimiser used (trajectory.csv format 2's keys), before
    # `joints`, which stays the last line
    meta.update({k: v for k, v in model_record(result).items() if k not in meta})
    meta["joints"] = list(robot.actuated)
    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
        write_comments(fh, meta)  # the last comment line names the columns: `# joints: [...]`
        w = csv.writer(fh)
        for row in pos:
            w.writerow([repr(float(x)) for x in row])
    return path


def motors_from_lines(meta: dict, lines: list) -> dict:
    """time (from the rate), positions (T, nu) in the file's unit and joints of a motor table,
    from its header and its other lines."""
    joints = list(meta["joints"])
    pos = np.array([[float(x) for x in row] for row in csv.reader(lines) if row]).reshape(-1, len(joints))
    return {"time": np.arange(len(pos)) / float(meta["rate_hz"]), "positions": pos, "joints": joints}
