"""trajectory.csv, the contract other programs read (docs/formats.md "trajectory.csv"):
`# key: value` comment lines, then one header row and, over one full cycle, one row per knot
and (format 2) one per interval midpoint between them, the last row being the first knot of the
next cycle. Columns: time, phase, q.<coord>, v.<coord>, a.<coord>, tau.<joint>,
f.<contact>.{x,y,z}, and (format 2) point (knot | mid). Its header dict (`header`) also heads
the sampled exports; format 2 adds the model the optimiser used (`model_header`)."""
from __future__ import annotations

import csv
import math
from pathlib import Path

import casadi
import numpy as np
import pinocchio

from ..cycle import advance_vector
from ..errors import InputError
from ..trajectory import Trajectory
from ..version import __version__
from .atomic import atomic_open
from .commented_csv import read_commented_csv, write_comments
from .model_header import collocation_rows, design_record, model_header

CSV_FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)  # format 1: knot rows only, no model keys in the header
POINT_KINDS = ("knot", "mid")


def header(result) -> dict:
    robot, problem, traj = result.robot, result.problem, result.trajectory
    return {
        "format": f"gaitopt-trajectory {CSV_FORMAT_VERSION}",
        "robot": robot.name,
        "urdf": str(Path(robot.urdf).resolve()),
        "base": robot.base,
        "locked": robot.locked,
        "contacts": {c.name: {"frame": c.frame, "point": [float(x) for x in c.point], "foot": c.foot,
                              "role": c.role, **({"side": c.side} if c.side else {})} for c in robot.contacts},
        "friction": problem.constraints.friction,
        "slope_rad": problem.slope,
        "stride": traj.stride,
        "period": traj.period,
        "transcription": problem.transcription,
        "success": bool(result.success),
        "versions": {"gaitopt": __version__, "casadi": casadi.__version__, "pinocchio": pinocchio.__version__},
        "units": {"time": "s", "q": "m (base_x, base_y, base_z) or rad", "v": "m/s or rad/s",
                  "a": "m/s^2 or rad/s^2", "tau": "N*m (N for prismatic joints)", "f": "N, world frame"},
        # format 2 (2026-11-24), appended: the model the optimiser used (docs/formats.md)
        **model_header(result),
        # appended 2026-11-24: the cycle's planar transform, to chain cycles (docs/formats.md)
        "cycle_transform": cycle_transform(traj),
        # appended 2026-11-24: the co-designed gears and legs (None without a design section)
        "design": design_record(result),
    }


# the header keys that describe the model and the problem's physics (not the run): what the
# motor table and the export summary also carry
MODEL_KEYS = ("urdf", "base", "locked", "contacts", "friction", "slope_rad", "gravity", "base_joints",
              "coordinates", "actuated", "passive", "armature", "actuators", "torque_bounds", "joint_limits",
              "limits", "feet", "terrain", "touchdown", "phases", "collocation", "equations_of_motion", "design")


def model_record(result) -> dict:
    """The MODEL_KEYS items of `header(result)`: enough, with the URDF, to rebuild the dynamics
    the optimiser used (docs/formats.md "Rebuilding the dynamics")."""
    meta = header(result)
    return {k: meta[k] for k in MODEL_KEYS}


def cycle_transform(traj) -> dict:
    """The transform from one cycle to the next: a point p of cycle k is R_z(yaw)·p + (x, y, z)
    in cycle k+1 [m, rad]; world velocities and forces are rotated by yaw, joints unchanged."""
    c = list(traj.coordinates)
    return {k: float(traj.base_shift[c.index(f"base_{k}")]) if f"base_{k}" in c else 0.0
            for k in ("x", "y", "z", "yaw")}


def advance_from_header(meta: dict, coordinates, slope: float, path) -> np.ndarray:
    """The Trajectory's base_shift from trajectory.csv's header: its cycle_transform, or (a file
    written before it was added) the stride along x (and base_z on a slope)."""
    stride = _number(meta, "stride", path)
    ct = meta.get("cycle_transform")
    if ct is None:
        return advance_vector(coordinates, slope, stride)
    if not isinstance(ct, dict):
        raise InputError(f"expected a mapping x, y, z, yaw, got {str(ct)[:40]!r}", file=str(path), field="cycle_transform")
    vals = [_number(ct, k, path) for k in ("x", "y", "z", "yaw")]
    shift = advance_vector(coordinates, 0.0, vals[0], vals[1], vals[3])
    if "base_z" in coordinates:
        shift[list(coordinates).index("base_z")] = vals[2]
    return shift


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
    """trajectory.csv's columns: `knot_columns`, then point (knot | mid)."""
    return knot_columns(traj.coordinates, traj.actuated, traj.contact_names) + ["point"]


def write_trajectory_csv(result, path: str | Path) -> Path:
    """Write trajectory.csv: knot and midpoint rows over one full cycle (`collocation_rows`),
    then the next cycle's first knot."""
    path = Path(path)
    traj = result.trajectory
    meta = header(result)
    urdf, folder = Path(meta["urdf"]), path.parent.resolve()
    if urdf.is_relative_to(folder):  # a co-designed robot written inside the result directory
        meta["urdf"] = urdf.relative_to(folder).as_posix()
    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
        write_comments(fh, meta)
        w = csv.writer(fh)
        w.writerow(columns(traj))
        for t, phase, point, q, v, a, tau, f in collocation_rows(traj):
            # repr of Python floats: the shortest text that reads back to the same double
            values = np.concatenate([np.ravel(x) for x in (q, v, a, tau, f)]).astype(float, copy=False)
            w.writerow([repr(t), phase, *map(repr, values.tolist()), point])
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
    well formed: format version (1 or 2), period (> 0) and stride (finite), time and phase
    columns, at least two rows, every number finite, times non-decreasing with equal times only
    at phase junctions, the last row one period after the first; format 2: a point column, each
    midpoint row between two knot rows of its phase."""
    allowed = [f"gaitopt-trajectory {v}" for v in READABLE_VERSIONS]
    if meta.get("format") not in allowed:
        raise InputError(f"unknown format {str(meta.get('format'))[:40]!r}", file=str(path), field="format",
                         allowed=allowed)
    period = _number(meta, "period", path, positive=True)
    _number(meta, "stride", path)
    for key in ("time", "phase"):
        if key not in cols:
            raise InputError("missing column", file=str(path), field=key)
    t, labels = np.asarray(cols["time"], dtype=float), np.asarray(cols["phase"])
    if len(t) < 3:
        raise InputError(f"{len(t)} data rows; a cycle needs at least 3", file=str(path), field="time")
    for name, col in cols.items():
        if name not in ("phase", "point"):
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
    if meta["format"] != "gaitopt-trajectory 1":
        names = [p.get("name") for p in meta.get("phases", []) if isinstance(p, dict)]
        unknown = sorted(set(str(x) for x in labels) - set(names))
        if unknown:
            raise InputError(f"unknown phase {unknown[0][:40]!r} (not in the header's phases)", file=str(path),
                             field="phase", allowed=names)
        _check_points(path, cols, labels)


def _check_points(path, cols: dict, labels) -> None:
    """Format 2's point column: knot | mid, every midpoint row between two knot rows of its phase."""
    if "point" not in cols:
        raise InputError("missing column", file=str(path), field="point")
    point = np.asarray(cols["point"])
    bad = np.flatnonzero(~np.isin(point, POINT_KINDS))
    if len(bad):
        raise InputError(f"data row {bad[0] + 1}: {str(point[bad[0]])[:20]!r} is not a kind of point",
                         file=str(path), field="point", allowed=POINT_KINDS)
    mid = point == "mid"
    inner = np.zeros_like(mid)
    inner[1:-1] = (point[:-2] == "knot") & (point[2:] == "knot") & (labels[:-2] == labels[1:-1]) \
        & (labels[2:] == labels[1:-1])
    knot_pairs = (point[:-1] == "knot") & (point[1:] == "knot") & (labels[:-1] == labels[1:])
    knot_pairs[-1] = False  # the last row is the next cycle's first knot
    wrong = np.flatnonzero(mid & ~inner)
    if len(wrong) or (np.any(mid) and np.any(knot_pairs)):
        i = wrong[0] if len(wrong) else np.flatnonzero(knot_pairs)[0]
        raise InputError(f"data row {i + 1}: knot and mid rows must alternate within a phase", file=str(path),
                         field="point")


def read_trajectory_csv(path: str | Path, midpoints: bool = False) -> tuple[dict, dict]:
    """Read trajectory.csv (format 1 or 2) back: (header dict, columns dict name → array;
    phase and point as strings). By default the knot rows only (format 1's table, without the
    point column); midpoints=True: every row, with the point column (knot for every row of a
    format 1 file). InputError (naming the file and the key) when it is malformed (see
    `check_knot_table`)."""
    meta, cols = read_commented_csv(path, lambda name: name in ("phase", "point"))
    check_knot_table(path, meta, cols)
    point = cols.pop("point", np.full(len(cols["time"]), "knot"))
    if midpoints:
        return meta, dict(cols, point=point)
    return meta, split_points(dict(cols, point=point))[0]


def split_points(cols: dict) -> tuple:
    """(knot rows, midpoint rows or None when there are none) of `read_trajectory_csv(path,
    midpoints=True)`'s columns, each without the point column."""
    point = np.asarray(cols["point"])
    parts = [{k: np.asarray(v)[point == kind] for k, v in cols.items() if k != "point"} for kind in POINT_KINDS]
    return parts[0], (parts[1] if np.any(point == "mid") else None)
