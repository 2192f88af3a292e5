"""A result directory (`gaitopt solve -o DIR`): trajectory.csv, result.json and knots.npz
(every knot and Hermite–Simpson midpoint, losslessly, so that `load_result(DIR)` rebuilds the
exact interpolant), written by `save` and read back by `load_result`."""
from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path

import numpy as np

from ..collocation import METHODS
from ..cycle import cycle_shift
from ..errors import InputError
from ..problem import problem_from_record
from ..result import Result
from ..robot import robot_of
from ..trajectory import Trajectory
from .trajectory_csv import header, read_trajectory_csv, write_trajectory_csv

KNOTS_FILE = "knots.npz"
RESULT_KEYS = ("success", "status", "message", "cost", "cost_terms", "iterations", "problem")


def problem_record(problem) -> dict:
    """The problem as result.json holds it (every default filled in); `problem_from_record`
    reads it back equal."""
    return problem.to_dict()


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
        "problem": problem_record(result.problem),
        "versions": header(result)["versions"],
        # added 2026-11-23, last so that the earlier keys keep their order
        "returned_iteration": s.get("returned_iteration", s["iterations"]),
        "ipopt_options": s.get("ipopt_options", {}),
    }


def write_result_json(result, path: str | Path) -> Path:
    path = Path(path)
    path.write_text(json.dumps(result_dict(result), indent=2, default=str), encoding="utf-8")
    return path


def write_knots_npz(result, path: str | Path) -> Path:
    """Write every knot and Hermite–Simpson midpoint value losslessly (`Trajectory.to_arrays`):
    the companion of trajectory.csv that `load_result` prefers."""
    path = Path(path)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **result.trajectory.to_arrays())
    return path


def save(result, outdir: str | Path) -> dict:
    """Write OUTDIR/trajectory.csv, OUTDIR/result.json and OUTDIR/knots.npz (the exact knot
    and midpoint values, for `load_result`); returns their paths."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    return {"trajectory": write_trajectory_csv(result, outdir / "trajectory.csv"),
            "result": write_result_json(result, outdir / "result.json"),
            "knots": write_knots_npz(result, outdir / KNOTS_FILE)}


# ------------------------------------------------------------------------ reading a result back


def _modes_by_phase(problem, robot) -> dict:
    """Phase name → foot modes over the full cycle (mirrored halves through the foot pairs)."""
    out = {p.name: dict(p.contacts) for p in problem.phases}
    if problem.cycle == "half" and robot.mirror is not None:
        pairs = robot.mirror.foot_pairs
        out.update({f"{p.name}:mirrored": {pairs[f]: m for f, m in p.contacts.items()} for p in problem.phases})
    return out


def _trajectory_from_csv(path: Path, problem, robot) -> Trajectory:
    meta, cols = read_trajectory_csv(path)
    contacts = [c.name for c in robot.contacts]
    shift = cycle_shift(robot.coordinates, problem.slope)
    stride = float(meta["stride"])
    if not METHODS[problem.transcription].knot_table_exact:
        warnings.warn(f"{path}: no {KNOTS_FILE} next to it; {problem.transcription} midpoint torques and forces "
                      "are approximated by the mean of their interval's ends", stacklevel=4)
    return Trajectory.from_knot_table(cols, coordinates=robot.coordinates, actuated=robot.actuated,
                                      contact_names=contacts, stride=stride, period=float(meta["period"]),
                                      method=problem.transcription, modes=_modes_by_phase(problem, robot),
                                      base_shift=shift * stride)


def _read_result_json(d: Path) -> dict:
    if not d.is_dir():
        raise InputError("no such result directory", file=str(d))
    rj = d / "result.json"
    if not rj.is_file():
        raise InputError("no result.json in this directory (write one with `gaitopt solve -o DIR`)", file=str(d))
    try:
        info = json.loads(rj.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InputError(f"not valid JSON ({err})", file=str(rj)) from None
    missing = [k for k in RESULT_KEYS if not isinstance(info, dict) or k not in info]
    if missing:
        raise InputError(f"missing keys {missing}", file=str(rj))
    return info


def _read_trajectory(d: Path, problem, robot) -> Trajectory:
    """The trajectory from knots.npz, or else from trajectory.csv; checked against the robot."""
    knots, table = d / KNOTS_FILE, d / "trajectory.csv"
    try:
        if knots.is_file():
            with open(knots, "rb") as fh, np.load(fh, allow_pickle=False) as data:
                traj = Trajectory.from_arrays(data)
            source = knots
        elif table.is_file():
            traj, source = _trajectory_from_csv(table, problem, robot), table
        else:
            raise InputError(f"neither {KNOTS_FILE} nor trajectory.csv is here", file=str(d))
    except (KeyError, ValueError, IndexError, OSError, EOFError, zipfile.BadZipFile) as err:
        if isinstance(err, InputError):
            raise
        raise InputError(f"cannot read the trajectory ({type(err).__name__}: {err})",
                         file=str(knots if knots.is_file() else table)) from None
    if list(traj.coordinates) != list(robot.coordinates) or list(traj.actuated) != list(robot.actuated):
        raise InputError(f"the trajectory's coordinates {list(traj.coordinates)} do not match robot "
                         f"{robot.name}'s {list(robot.coordinates)}", file=str(source))
    return traj


def _stats(info: dict) -> dict:
    return {"iterations": info["iterations"], "solve_time_s": info.get("solve_time_s", float("nan")),
            "setup_time_s": info.get("setup_time_s", float("nan")),
            "function_eval_time_s": info.get("function_eval_time_s", float("nan")),
            "n_variables": info.get("nlp", {}).get("variables", 0),
            "n_constraints": info.get("nlp", {}).get("constraints", 0),
            "returned_iteration": info.get("returned_iteration", info["iterations"]),
            "ipopt_options": dict(info.get("ipopt_options", {}))}


def load_result(result_dir: str | Path) -> Result:
    """Rebuild the Result that `gaitopt solve -o RESULT_DIR` saved (a `gaitopt.result.Result`
    with x None and the ten worst violations).

    Reads result.json (problem, status, statistics), reloads the robot, and the trajectory from
    knots.npz (exact knots and midpoints) or, if it is missing, from trajectory.csv (exact for
    the trapezoidal rule, see `Trajectory.from_knot_table` for Hermite–Simpson). Raises
    InputError naming the file and what is wrong."""
    d = Path(result_dir)
    info = _read_result_json(d)
    rj = d / "result.json"
    problem = problem_from_record(info["problem"], str(rj))
    try:
        robot = robot_of(problem)
    except InputError as err:
        raise (InputError(str(err), file=str(rj)) if err.file is None else err) from None
    traj = _read_trajectory(d, problem, robot)
    return Result(bool(info["success"]), str(info["status"]), str(info["message"]), info["cost"],
                  dict(info["cost_terms"]), _stats(info), traj, problem, robot, {}, None,
                  _violations=list(info.get("violations", [])))
