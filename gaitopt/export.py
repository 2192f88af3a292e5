"""trajectory.csv and result.json: the contracts other programs read (documented in README).

trajectory.csv: `# key: value` comment lines (JSON values where structured), then one header
row and one row per knot over one full cycle, the last row being the first knot of the next
cycle. Columns: time, phase, q.<coord>, v.<coord>, a.<coord>, tau.<joint>, f.<contact>.{x,y,z}.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import casadi
import numpy as np
import pinocchio

from . import __version__
from .trajectory import Trajectory

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


def columns(traj: Trajectory) -> list:
    cols = ["time", "phase"]
    for k in ("q", "v", "a"):
        cols += [f"{k}.{c}" for c in traj.coordinates]
    cols += [f"tau.{j}" for j in traj.actuated]
    for c in traj.contact_names:
        cols += [f"f.{c}.x", f"f.{c}.y", f"f.{c}.z"]
    return cols


def write_trajectory_csv(result, path: str | Path) -> Path:
    """Write trajectory.csv (knot rows over one full cycle + the next cycle's first knot)."""
    path = Path(path)
    traj = result.trajectory
    kn = traj.knots()
    with open(path, "w", newline="", encoding="utf-8") as fh:
        for k, v in header(result).items():
            fh.write(f"# {k}: {json.dumps(v) if not isinstance(v, str) else v}\n")
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
    meta, lines = {}, []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                key, _, val = line[1:].strip().partition(": ")
                try:
                    meta[key] = json.loads(val)
                except json.JSONDecodeError:
                    meta[key] = val
            else:
                lines.append(line)
    rows = list(csv.reader(lines))
    names, body = rows[0], rows[1:]
    data = {}
    for j, name in enumerate(names):
        col = [r[j] for r in body]
        data[name] = np.array(col) if name == "phase" else np.array(col, dtype=float)
    return meta, data


def result_dict(result) -> dict:
    s = result.stats
    return {
        "success": bool(result.success),
        "status": result.status,
        "message": result.message,
        "cost": result.cost,
        "cost_terms": result.cost_terms,
        "iterations": s["iterations"],
        "solve_time_s": s["solve_time_s"],
        "setup_time_s": s["setup_time_s"],
        "function_eval_time_s": s["function_eval_time_s"],
        "nlp": {"variables": s["n_variables"], "constraints": s["n_constraints"]},
        "robot": result.robot.name,
        "stride": result.trajectory.stride,
        "period": result.trajectory.period,
        "speed": result.trajectory.stride / result.trajectory.period,
        "max_violation": result.max_violation,
        "violations": result.violations(10),
        "problem": result.problem.to_dict(),
        "versions": header(result)["versions"],
    }


def write_result_json(result, path: str | Path) -> Path:
    path = Path(path)
    path.write_text(json.dumps(result_dict(result), indent=2, default=str), encoding="utf-8")
    return path


def save(result, outdir: str | Path) -> dict:
    """Write OUTDIR/trajectory.csv and OUTDIR/result.json; returns their paths."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    return {"trajectory": write_trajectory_csv(result, outdir / "trajectory.csv"),
            "result": write_result_json(result, outdir / "result.json")}
