"""trajectory.csv, the contract other programs read (README "trajectory.csv"): `# key: value`
comment lines, then one header row and one row per knot over one full cycle, the last row being
the first knot of the next cycle. Columns: time, phase, q.<coord>, v.<coord>, a.<coord>,
tau.<joint>, f.<contact>.{x,y,z}. Its header dict (`header`) also heads the sampled exports."""
from __future__ import annotations

import csv
import math
from pathlib import Path

import casadi
import numpy as np
import pinocchio

from ..errors import InputError
from ..terrain_io import periodic_slope, surface_of
from ..trajectory import Trajectory
from ..version import __version__
from .atomic import atomic_open
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
        "terrain": terrain_header(problem),
    }


def terrain_header(problem) -> dict:
    """The header's `terrain`: enough to rebuild the ground (docs/formats.md): the plane's slope,
    the base's periodic rise as a slope, and the surface (`gaitopt.terrain_io.surface_from_description`)."""
    return {"slope_rad": float(problem.slope), "periodic_slope_rad": periodic_slope(problem),
            "surface": surface_of(problem).describe()}


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
    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
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


def _number(meta: dict, key: str, path, positive: bool = False) -> float:
    x = meta.get(key)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise InputError(f"missing or not a number: {str(x)[:40]!r}", file=str(path), field=key)
    if not math.isfinite(x) or (positive and x <= 0):
        raise InputError(f"must be {'positive and ' if positive else ''}finite, got {x!r}", file=str(path), field=key)
    return float(x)


def check_knot_table(path, meta: dict, cols: dict) -> None:
    """InputError (naming the file and the key) unless the knot table of trajectory.csv is
    well formed: format version, period (> 0) and stride (finite), time and phase columns,
    at least two rows, every number finite, times non-decreasing with equal times only at
    phase junctions, the last row one period after the first."""
    fmt = f"gaitopt-trajectory {CSV_FORMAT_VERSION}"
    if meta.get("format") != fmt:
        raise InputError(f"unknown format {str(meta.get('format'))[:40]!r}", file=str(path), field="format",
                         allowed=[fmt])
    period = _number(meta, "period", path, positive=True)
    _number(meta, "stride", path)
    for key in ("time", "phase"):
        if key not in cols:
            raise InputError("missing column", file=str(path), field=key)
    t, labels = np.asarray(cols["time"], dtype=float), np.asarray(cols["phase"])
    if len(t) < 3:
        raise InputError(f"{len(t)} data rows; a cycle needs at least 3", file=str(path), field="time")
    for name, col in cols.items():
        if name != "phase":
            bad = np.flatnonzero(~np.isfinite(np.asarray(col, dtype=float)))
            if len(bad):
                raise InputError(f"data row {bad[0] + 1}: not finite: {col[bad[0]]!r}", file=str(path), field=name)
    dt = np.diff(t)
    back = np.flatnonzero(dt < 0)
    if len(back):
        i = back[0]
        raise InputError(f"times not monotone: data row {i + 2} ({t[i + 1]!r}) before row {i + 1} ({t[i]!r})",
                         file=str(path), field="time")
    same = np.flatnonzero((dt == 0) & (labels[1:] == labels[:-1]))
    if len(same):
        i = same[0]
        raise InputError(f"data rows {i + 1} and {i + 2} of phase {str(labels[i])!r} have the same time "
                         f"{t[i]!r} (equal times only at phase junctions)", file=str(path), field="time")
    if abs(t[-1] - t[0] - period) > 1e-6 * max(1.0, period):
        raise InputError(f"the last row ({t[-1]!r} s) is not one period ({period!r} s) after the first "
                         f"({t[0]!r} s)", file=str(path), field="period")


def read_trajectory_csv(path: str | Path) -> tuple[dict, dict]:
    """Read trajectory.csv back: (header dict, columns dict name → array; phase as strings).
    InputError (naming the file and the key) when it is malformed (see `check_knot_table`)."""
    meta, cols = read_commented_csv(path, lambda name: name == "phase")
    check_knot_table(path, meta, cols)
    return meta, cols
