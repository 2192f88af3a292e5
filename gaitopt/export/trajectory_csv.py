"""trajectory.csv, the contract other programs read (README "trajectory.csv"): `# key: value`
comment lines, then one header row and one row per knot over one full cycle, the last row being
the first knot of the next cycle. Columns: time, phase, q.<coord>, v.<coord>, a.<coord>,
tau.<joint>, f.<contact>.{x,y,z}. Its header dict (`header`) also heads the sampled exports."""
from __future__ import annotations

import csv
from pathlib import Path

import casadi
import pinocchio

from ..trajectory import Trajectory
from ..version import __version__
from .commented_csv import read_commented_csv, write_comments

CSV_FORMAT_VERSION = 1


def header(result) -> dict:
    robot, problem, traj = result.robot, result.problem, result.trajectory
    return {
        "format": f"gaitopt-trajectory {CSV_FORMAT_VERSION}",
        "robot": robot.name,
        "urdf": str(Path(robot.urdf).resolve()),
        "base": robot.base,
        "locked": robot.locked,
        "contacts": {c.name: {"frame": c.frame, "point": [float(x) for x in c.point]} for c in robot.contacts},
        "friction": problem.constraints.friction,
        "slope_rad": problem.slope,
        "stride": traj.stride,
        "period": traj.period,
        "transcription": problem.transcription,
        "success": bool(result.success),
        "versions": {"gaitopt": __version__, "casadi": casadi.__version__, "pinocchio": pinocchio.__version__},
        "units": {"time": "s", "q": "m (base_x, base_y, base_z) or rad", "v": "m/s or rad/s",
                  "a": "m/s^2 or rad/s^2", "tau": "N*m (N for prismatic joints)", "f": "N, world frame"},
    }


def knot_columns(coordinates, actuated, contact_names) -> list:
    """time, phase, q.<coord>, v.<coord>, a.<coord>, tau.<joint>, f.<contact>.{x,y,z}."""
    cols = ["time", "phase"]
    for k in ("q", "v", "a"):
        cols += [f"{k}.{c}" for c in coordinates]
    cols += [f"tau.{j}" for j in actuated]
    for c in contact_names:
        cols += [f"f.{c}.x", f"f.{c}.y", f"f.{c}.z"]
    return cols


def columns(traj: Trajectory) -> list:
    """trajectory.csv's columns."""
    return knot_columns(traj.coordinates, traj.actuated, traj.contact_names)


def write_trajectory_csv(result, path: str | Path) -> Path:
    """Write trajectory.csv (knot rows over one full cycle + the next cycle's first knot)."""
    path = Path(path)
    traj = result.trajectory
    kn = traj.knots()
    with open(path, "w", newline="", encoding="utf-8") as fh:
        write_comments(fh, header(result))
        w = csv.writer(fh)
        w.writerow(columns(traj))
        n = len(kn["time"])
        for i in range(n):
            row = [repr(float(kn["time"][i])), kn["phase"][i]]
            for key in ("q", "v", "a", "tau"):
                row += [repr(float(x)) for x in kn[key][i]]
            row += [repr(float(x)) for x in kn["f"][i].ravel()]
            w.writerow(row)
    return path


def read_trajectory_csv(path: str | Path) -> tuple[dict, dict]:
    """Read trajectory.csv back: (header dict, columns dict name → array; phase as strings)."""
    return read_commented_csv(path, lambda name: name == "phase")
