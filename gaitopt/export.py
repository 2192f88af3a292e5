"""trajectory.csv and result.json: the contracts other programs read (documented in README),
reading a saved result back, and sampled exports at any rate.

trajectory.csv: `# key: value` comment lines (JSON values where structured), then one header
row and one row per knot over one full cycle, the last row being the first knot of the next
cycle. Columns: time, phase, q.<coord>, v.<coord>, a.<coord>, tau.<joint>, f.<contact>.{x,y,z}.
knots.npz (next to it): every knot and Hermite–Simpson midpoint, losslessly, so that
`load_result(RESULT_DIR)` rebuilds the exact interpolant.

Sampled exports (README "Export, plots, animation"): the full table (trajectory.csv's columns
at rate_hz over N cycles plus motor current, electrical power, contact flag and mode per
foot), the motor table (actuated joint positions only), the same as NPZ, and a JSON summary;
`read_export` reads each back.
"""
from __future__ import annotations

import csv
import json
import warnings
import zipfile
from pathlib import Path

import casadi
import numpy as np
import pinocchio

from . import __version__
from .errors import InputError
from .trajectory import Trajectory

CSV_FORMAT_VERSION = 1
KNOTS_FILE = "knots.npz"


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


def _read_comments(path: str | Path) -> tuple[dict, list]:
    """`# key: value` comment lines (JSON values where they parse) → dict; the other lines."""
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
    return meta, lines


def _read_commented_csv(path: str | Path, is_text) -> tuple[dict, dict]:
    """Comment lines, one header row, rows. Returns (header dict, column name → array);
    columns for which is_text(name) stay strings."""
    meta, lines = _read_comments(path)
    rows = list(csv.reader(lines))
    names, body = rows[0], rows[1:]
    data = {}
    for j, name in enumerate(names):
        col = [r[j] for r in body]
        data[name] = np.array(col) if is_text(name) else np.array(col, dtype=float)
    return meta, data


def read_trajectory_csv(path: str | Path) -> tuple[dict, dict]:
    """Read trajectory.csv back: (header dict, columns dict name → array; phase as strings)."""
    return _read_commented_csv(path, lambda name: name == "phase")


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


def _problem_from_saved(d: dict, file: str):
    """The Problem of result.json's `problem` (Problem.to_dict output), defaults included."""
    from .problem import Bounded, Constraints, Phase, Problem, SolverOptions, validate

    def bounded(x):
        return None if x is None else Bounded(float(x["min"]), float(x["max"]), float(x["guess"]))

    try:
        phases = tuple(Phase(str(p["name"]), dict(p["contacts"]), int(p["knots"]), bounded(p["duration"]))
                       for p in d["phases"])
        problem = Problem(robot=str(d["robot"]), phases=phases, cycle=str(d["cycle"]), speed=bounded(d["speed"]),
                          stride=bounded(d["stride"]), slope=float(d["slope"]),
                          constraints=Constraints(**d["constraints"]), cost=dict(d["cost"]),
                          transcription=str(d["transcription"]), solver=SolverOptions(**d["solver"]),
                          name=str(d["name"]), description=str(d["description"]), source=d["source"])
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise InputError(f"malformed problem record ({type(err).__name__}: {err})", file=file,
                         field="problem") from None
    validate(problem)
    return problem


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
    shift = np.zeros(robot.nv)
    if "base_x" in robot.base_coordinates:
        shift[robot.index("base_x")] = 1.0
    if "base_z" in robot.base_coordinates:
        shift[robot.index("base_z")] = np.tan(problem.slope)
    stride = float(meta["stride"])
    if problem.transcription == "hermite_simpson":
        warnings.warn(f"{path}: no {KNOTS_FILE} next to it; Hermite–Simpson midpoint torques and forces are "
                      "approximated by the mean of their interval's ends", stacklevel=3)
    return Trajectory.from_knot_table(cols, coordinates=robot.coordinates, actuated=robot.actuated,
                                      contact_names=contacts, stride=stride, period=float(meta["period"]),
                                      method=problem.transcription, modes=_modes_by_phase(problem, robot),
                                      base_shift=shift * stride)


def load_result(result_dir: str | Path):
    """Rebuild the Result that `gaitopt solve -o RESULT_DIR` saved (a `gaitopt.result.Result`
    with x None and the ten worst violations).

    Reads result.json (problem, status, statistics), reloads the robot, and the trajectory from
    knots.npz (exact knots and midpoints) or, if it is missing, from trajectory.csv (exact for
    the trapezoidal rule, see `Trajectory.from_knot_table` for Hermite–Simpson). Raises
    InputError naming the file and what is wrong."""
    from .gait import robot_of
    from .result import Result
    d = Path(result_dir)
    if not d.is_dir():
        raise InputError("no such result directory", file=str(d))
    rj = d / "result.json"
    if not rj.is_file():
        raise InputError("no result.json in this directory (write one with `gaitopt solve -o DIR`)", file=str(d))
    try:
        info = json.loads(rj.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InputError(f"not valid JSON ({err})", file=str(rj)) from None
    missing = [k for k in ("success", "status", "message", "cost", "cost_terms", "iterations", "problem")
               if not isinstance(info, dict) or k not in info]
    if missing:
        raise InputError(f"missing keys {missing}", file=str(rj))
    problem = _problem_from_saved(info["problem"], str(rj))
    try:
        robot = robot_of(problem)
    except InputError as err:
        raise (InputError(str(err), file=str(rj)) if err.file is None else err) from None
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
    stats = {"iterations": info["iterations"], "solve_time_s": info.get("solve_time_s", float("nan")),
             "setup_time_s": info.get("setup_time_s", float("nan")),
             "function_eval_time_s": info.get("function_eval_time_s", float("nan")),
             "n_variables": info.get("nlp", {}).get("variables", 0),
             "n_constraints": info.get("nlp", {}).get("constraints", 0),
             "returned_iteration": info.get("returned_iteration", info["iterations"]),
             "ipopt_options": dict(info.get("ipopt_options", {}))}
    return Result(bool(info["success"]), str(info["status"]), str(info["message"]), info["cost"],
                  dict(info["cost_terms"]), stats, traj, problem, robot, {}, None,
                  _violations=list(info.get("violations", [])))


# ----------------------------------------------------------------- sampled exports (any rate)

EXPORT_FORMATS = ("full", "motors", "npz")
DEFAULT_RATE_HZ = 500.0  # a row every 2 ms, as the HOAP-2 motion files
SAMPLES_FORMAT = "gaitopt-samples 1"
MOTORS_FORMAT = "gaitopt-motors 1"
SUMMARY_FORMAT = "gaitopt-export-summary 1"
MAX_ROWS = 5_000_000


def sample_times(period: float, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1) -> np.ndarray:
    """Times i/rate [s], i = 0, 1, … of `cycles` gait cycles, the end excluded: [0, cycles·period),
    so that a table can be looped or appended to the next one without a repeated row."""
    if not (isinstance(rate_hz, (int, float)) and np.isfinite(rate_hz) and rate_hz > 0):
        raise InputError(f"rate must be a positive number of samples per second, got {rate_hz!r}", field="rate")
    if isinstance(cycles, bool) or not isinstance(cycles, (int, np.integer)) or cycles < 1:
        raise InputError(f"cycles must be a whole number ≥ 1, got {cycles!r}", field="cycles")
    span = cycles * period
    n = int(np.ceil(span * rate_hz - 1e-9))
    if n > MAX_ROWS:
        raise InputError(f"{n} rows ({cycles} cycles of {period:.4g} s at {rate_hz:g} Hz) exceed {MAX_ROWS}",
                         field="rate")
    return np.arange(max(n, 1)) / float(rate_hz)


def sample_table(result, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1, times=None) -> dict:
    """The gait sampled with the transcription's interpolant, the base advancing each cycle.

    times: explicit sample times [s] (then rate_hz and cycles are ignored). Returns time (T,),
    phase (T,) labels, q, v, a (T, nv), tau, current [A], power [W, electrical V·i] (T, nu),
    f (T, nc, 3) world forces [N], contact (T, n_feet) bool, mode (T, n_feet) contact modes,
    and the names: coordinates, actuated, contact_names, feet."""
    from . import quantities as Q
    traj, robot = result.trajectory, result.robot
    t = sample_times(traj.period, rate_hz, cycles) if times is None else np.atleast_1d(np.asarray(times, float))
    s = traj.sample(t)
    modes = Q.foot_modes(traj, s["phase"])
    feet = list(modes)
    return {
        "time": s["time"], "phase": s["phase"], "q": s["q"], "v": s["v"], "a": s["a"], "tau": s["tau"],
        "f": s["f"], "current": Q.motor_current(robot, s["tau"]), "power": Q.electrical_power(robot, s["tau"], s["v"]),
        "contact": np.column_stack([modes[ft] != "swing" for ft in feet]),
        "mode": np.column_stack([modes[ft] for ft in feet]),
        "coordinates": list(traj.coordinates), "actuated": list(traj.actuated),
        "contact_names": list(traj.contact_names), "feet": feet,
    }


def full_columns(table: dict) -> list:
    """Column names of the full export: trajectory.csv's, then current.<joint> [A],
    power.<joint> [W], contact.<foot> (1 | 0), mode.<foot>."""
    cols = ["time", "phase"]
    for k in ("q", "v", "a"):
        cols += [f"{k}.{c}" for c in table["coordinates"]]
    cols += [f"tau.{j}" for j in table["actuated"]]
    for c in table["contact_names"]:
        cols += [f"f.{c}.x", f"f.{c}.y", f"f.{c}.z"]
    cols += [f"current.{j}" for j in table["actuated"]] + [f"power.{j}" for j in table["actuated"]]
    cols += [f"contact.{ft}" for ft in table["feet"]] + [f"mode.{ft}" for ft in table["feet"]]
    return cols


def _export_header(result, fmt: str, rate_hz: float, cycles: int, rows: int, table: dict) -> dict:
    meta = header(result)
    meta["format"] = fmt
    meta.update(rate_hz=float(rate_hz), cycles=int(cycles), rows=int(rows), coordinates=table["coordinates"],
                actuated=table["actuated"], contact_names=table["contact_names"], feet=table["feet"])
    meta["units"] = dict(meta["units"], current="A (motor current tau/(G*K))",
                         power="W (electrical V*i = R*i^2 + K*G*omega*i)", contact="1 in contact, 0 swinging")
    return meta


def _write_comments(fh, meta: dict) -> None:
    for k, v in meta.items():
        fh.write(f"# {k}: {json.dumps(v) if not isinstance(v, str) else v}\n")


def write_full_csv(result, path: str | Path, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1) -> Path:
    """The full table (README "Export"): trajectory.csv's columns at the given rate plus motor
    current and electrical power per joint, contact flag and mode per foot."""
    path = Path(path)
    tb = sample_table(result, rate_hz, cycles)
    n = len(tb["time"])
    with open(path, "w", newline="", encoding="utf-8") as fh:
        _write_comments(fh, _export_header(result, SAMPLES_FORMAT, rate_hz, cycles, n, tb))
        w = csv.writer(fh)
        w.writerow(full_columns(tb))
        for i in range(n):
            row = [repr(float(tb["time"][i])), str(tb["phase"][i])]
            for key in ("q", "v", "a", "tau", "f", "current", "power"):
                row += [repr(float(x)) for x in np.ravel(tb[key][i])]
            row += [str(int(x)) for x in tb["contact"][i]] + [str(x) for x in tb["mode"][i]]
            w.writerow(row)
    return path


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
            "versions": header(result)["versions"], "unit": "deg" if degrees else "rad", "units": units,
            "joints": list(robot.actuated)}
    with open(path, "w", newline="", encoding="utf-8") as fh:
        _write_comments(fh, meta)  # the last comment line names the columns: `# joints: [...]`
        w = csv.writer(fh)
        for row in pos:
            w.writerow([repr(float(x)) for x in row])
    return path


def _is_revolute(robot, joint: str) -> bool:
    return "P" not in robot.model.joints[robot.model.getJointId(joint)].shortname().replace("JointModel", "")


def write_npz(result, path: str | Path, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1) -> Path:
    """The full table as NumPy arrays (np.load works without allow_pickle): the keys of
    `sample_table`, names as string arrays, and `meta` (the full CSV's header as JSON)."""
    path = Path(path)
    tb = sample_table(result, rate_hz, cycles)
    meta = _export_header(result, SAMPLES_FORMAT, rate_hz, cycles, len(tb["time"]), tb)
    arrays = {k: (np.array(v, dtype=str) if isinstance(v, list) else np.asarray(v)) for k, v in tb.items()}
    arrays["phase"] = np.asarray(tb["phase"], dtype=str)
    arrays["mode"] = np.asarray(tb["mode"], dtype=str)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **arrays)
    return path


def read_export(path: str | Path) -> tuple[dict, dict]:
    """Read an export back: (header dict, data).

    Full CSV and NPZ give the dict of `sample_table` (time, phase, q, v, a, tau, f, current,
    power, contact, mode and the name lists); the motor table gives time (from the rate),
    positions (T, nu) in the file's unit and joints."""
    path = Path(path)
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            data = {k: z[k] for k in z.files if k != "meta"}
        for k in ("coordinates", "actuated", "contact_names", "feet"):
            data[k] = [str(x) for x in data[k]]
        return meta, data
    meta, lines = _read_comments(path)
    if meta.get("format") == MOTORS_FORMAT:
        joints = list(meta["joints"])
        pos = np.array([[float(x) for x in row] for row in csv.reader(lines) if row]).reshape(-1, len(joints))
        return meta, {"time": np.arange(len(pos)) / float(meta["rate_hz"]), "positions": pos, "joints": joints}
    meta, cols = _read_commented_csv(path, lambda name: name == "phase" or name.startswith("mode."))
    if meta.get("format") != SAMPLES_FORMAT:
        raise InputError(f"not a gaitopt export (format {meta.get('format')!r})", file=str(path), field="format",
                         allowed=[SAMPLES_FORMAT, MOTORS_FORMAT])
    coords, act, cn, feet = meta["coordinates"], meta["actuated"], meta["contact_names"], meta["feet"]
    n = len(cols["time"])

    def stack(names):
        return np.column_stack([cols[c] for c in names]) if names else np.zeros((n, 0))
    data = {"time": cols["time"], "phase": cols["phase"]}
    for k in ("q", "v", "a"):
        data[k] = stack([f"{k}.{c}" for c in coords])
    data["tau"] = stack([f"tau.{j}" for j in act])
    data["f"] = stack([f"f.{c}.{ax}" for c in cn for ax in "xyz"]).reshape(n, len(cn), 3)
    data["current"] = stack([f"current.{j}" for j in act])
    data["power"] = stack([f"power.{j}" for j in act])
    data["contact"] = stack([f"contact.{ft}" for ft in feet]).astype(bool)
    data["mode"] = np.column_stack([cols[f"mode.{ft}"] for ft in feet])
    data.update(coordinates=list(coords), actuated=list(act), contact_names=list(cn), feet=list(feet))
    return meta, data


def export_summary(result, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1, files: dict | None = None) -> dict:
    """A JSON-ready summary of an export: the gait, per-joint peaks against the actuator's
    limits, energies per cycle (from the interpolant sampled at rate_hz, at least 400 points
    per cycle, trapezoidal integration phase by phase), cost of transport, duty factor and peak friction ratio
    per foot."""
    from . import actuation as A
    from . import quantities as Q
    from .dynamics import GRAVITY
    traj, robot, problem = result.trajectory, result.robot, result.problem
    T, s = traj.period, traj.stride
    n = max(400, int(np.ceil(T * rate_hz)))
    # Each phase is sampled on its own closed grid and integrated on its own: τ and contact
    # forces may jump at a contact event, and a sample straddling the jump would make the
    # integrals first order in the sample spacing. A phase's last sample sits just inside it
    # (sample() gives the next phase's value at a junction time).
    grids, spans, start = [], [], 0
    for ph in traj.phases:
        t0, t1 = float(ph.t[0]), float(ph.t[-1])
        g = np.linspace(t0, t1, max(2, int(np.ceil(n * (t1 - t0) / T)) + 1))
        g[-1] = t1 - 1e-9 * max(T, 1.0)
        grids.append(g)
        spans.append(slice(start, start + len(g)))
        start += len(g)
    t = np.concatenate(grids)
    tb = sample_table(result, times=t)
    tau, w = tb["tau"], Q.joint_speed(robot, tb["v"])
    mech = tau * w
    copper = Q.joule_power(robot, tau)
    # the joule_loss cost's index: R (τ/(G K))², gear efficiency left out as in the source
    index = tau ** 2 * np.array([A.joule_coefficient(robot.actuators[j], robot.actuators[j].gear_ratio)
                                 for j in robot.actuated])
    elec = tb["power"]
    q_act = tb["q"][:, robot.actuated_index]

    trapezoid = np.trapezoid if hasattr(np, "trapezoid") else np.trapz

    def integral(x):
        return float(sum(trapezoid(x[sl], t[sl]) for sl in spans))
    joints = {}
    for i, j in enumerate(robot.actuated):
        a = robot.actuators[j]
        joints[j] = {"q_min": float(q_act[:, i].min()), "q_max": float(q_act[:, i].max()),
                     "tau_peak": float(np.abs(tau[:, i]).max()), "tau_limit": a.torque_limit,
                     "speed_peak": float(np.abs(w[:, i]).max()), "no_load_speed": a.no_load_speed,
                     "current_peak": float(np.abs(tb["current"][:, i]).max()),
                     "current_rms": float(np.sqrt(integral(tb["current"][:, i] ** 2) / T)),
                     "current_limit": a.current_limit, "power_peak": float(elec[:, i].max())}
    energy = {"electrical": integral(elec.sum(axis=1)),
              "electrical_without_regeneration": integral(np.maximum(elec, 0.0).sum(axis=1)),
              "copper_loss": integral(copper.sum(axis=1)),
              "joule_loss": integral(index.sum(axis=1)),
              "mechanical_positive": integral(np.maximum(mech, 0.0).sum(axis=1)),
              "mechanical_negative": integral(np.minimum(mech, 0.0).sum(axis=1))}
    abs_energy = energy["mechanical_positive"] - energy["mechanical_negative"]
    flags = Q.point_flags(robot, traj, tb["phase"])
    ratio = Q.friction_ratio(tb["f"], problem.slope)
    feet = {}
    for k, ft in enumerate(tb["feet"]):
        pts = [robot.contact_index(c) for c in robot.feet[ft].contacts]
        r = np.where(flags[:, pts], ratio[:, pts], np.nan)
        feet[ft] = {"duty_factor": integral(tb["contact"][:, k].astype(float)) / T,
                    "peak_friction_ratio": float(np.nanmax(r)) if np.any(np.isfinite(r)) else 0.0}
    mass = robot.total_mass
    return {
        "format": SUMMARY_FORMAT, "robot": robot.name, "success": bool(result.success), "status": result.status,
        "transcription": problem.transcription, "cost": result.cost, "cost_terms": result.cost_terms,
        "period_s": T, "stride_m": s, "speed_m_s": s / T if T > 0 else 0.0, "mass_kg": mass,
        "rate_hz": float(rate_hz), "cycles": int(cycles), "duration_s": cycles * T, "friction_mu": problem.constraints.friction,
        "energy_per_cycle_J": energy,
        "joule_loss_per_distance_J_m": energy["joule_loss"] / s if s > 0 else float("nan"),
        "specific_resistance": abs_energy / (mass * GRAVITY * s) if s > 0 else float("nan"),
        "mean_abs_power_W": abs_energy / T if T > 0 else float("nan"),
        "joints": joints, "feet": feet, "files": {k: str(v) for k, v in (files or {}).items()},
        "units": "SI: rad, rad/s, N*m, A, W, J; energies per cycle, from the sampled interpolant",
    }


EXPORT_WRITERS = {"full": ("full_{rate}hz.csv", write_full_csv), "motors": ("motors_{rate}hz.csv", write_motor_table),
                  "npz": ("samples_{rate}hz.npz", write_npz)}


def export(result, fmt: str = "full", path: str | Path | None = None, rate_hz: float = DEFAULT_RATE_HZ,
           cycles: int = 1, degrees: bool = False, outdir: str | Path = ".") -> dict:
    """Write one export (fmt: full | motors | npz) and its JSON summary next to it.

    path: the output file (default OUTDIR/<fmt>_<rate>hz.csv, or samples_<rate>hz.npz);
    degrees applies to the motor table only. Returns {"export": path, "summary": path}."""
    if fmt not in EXPORT_FORMATS:
        raise InputError(f"unknown export format {fmt!r}", field="format", allowed=EXPORT_FORMATS)
    if degrees and fmt != "motors":
        raise InputError("degrees apply to the motor table only", field="degrees", allowed=["--format motors"])
    sample_times(result.trajectory.period, rate_hz, cycles)  # validate before writing anything
    pattern, writer = EXPORT_WRITERS[fmt]
    path = Path(path) if path is not None else Path(outdir) / pattern.format(rate=f"{rate_hz:g}")
    if (path.suffix == ".npz") != (fmt == "npz"):  # read_export tells the formats by suffix
        raise InputError(f"a {fmt} export needs a {'.npz' if fmt == 'npz' else '.csv'} file name", file=str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "motors":
        writer(result, path, rate_hz, cycles, degrees=degrees)
    else:
        writer(result, path, rate_hz, cycles)
    summary_path = path.with_name(path.stem + "_summary.json")
    summary = export_summary(result, rate_hz, cycles, {"export": path})
    summary_path.write_text(json.dumps(summary, indent=2, default=str), encoding="utf-8")
    return {"export": path, "summary": summary_path}
