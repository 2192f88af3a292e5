"""The HOAP-2 motion file (`gaitopt export --format hoap2`): one row every 2 ms, every motor's
position in pulses (209 pulse = 1 deg, 0 = the robot's initial posture with every joint at 0)
in the column order of the robot's motion files, checked against the servo limits the thesis
gives (57 pulse/ms, 5 pulse/ms²). docs/export.md ("HOAP-2 motion files") gives the sources and
the sign convention.
"""
from __future__ import annotations

import csv
import warnings
from pathlib import Path

import numpy as np

from .atomic import atomic_open
from .commented_csv import read_comments, write_comments
from .sampling import sample_times
from .trajectory_csv import header
from ..errors import InputError

HOAP2_FORMAT = "gaitopt-motors-hoap2 1"
PULSES_PER_DEGREE = 209
VELOCITY_LIMIT = 57.0      # pulse/ms, default 'direct'-mode maximum every joint reaches (thesis sec 3.8)
ACCELERATION_LIMIT = 5.0   # pulse/ms², "about", the smallest maximum every joint reaches (thesis sec 3.8)

# Column order and pulse sign (pulses = sign · 209 · degrees). The first 21 columns are the
# joint columns of the robot's motion files, in their order, and the signs are those of the
# thesis author's replay controller (Webots hoap2.c: its sscanf field order and its pulse[]
# table), which reads those files. The last 4 motors are not in those files' joint columns;
# their sign is unknown and + is assumed (docs/export.md).
MOTORS = (
    ("RLEG_JOINT1", 1), ("RLEG_JOINT2", 1), ("RLEG_JOINT3", -1), ("RLEG_JOINT4", 1), ("RLEG_JOINT5", 1),
    ("RLEG_JOINT6", -1), ("RARM_JOINT1", 1), ("RARM_JOINT2", 1), ("RARM_JOINT3", -1), ("RARM_JOINT4", -1),
    ("LLEG_JOINT1", 1), ("LLEG_JOINT2", 1), ("LLEG_JOINT3", 1), ("LLEG_JOINT4", -1), ("LLEG_JOINT5", -1),
    ("LLEG_JOINT6", -1), ("LARM_JOINT1", -1), ("LARM_JOINT2", 1), ("LARM_JOINT3", -1), ("LARM_JOINT4", 1),
    ("BODY_JOINT1", 1),
    ("HEAD_JOINT1", 1), ("HEAD_JOINT2", 1), ("RARM_JOINT5", 1), ("LARM_JOINT5", 1),
)
SIGN_ASSUMED = ("HEAD_JOINT1", "HEAD_JOINT2", "RARM_JOINT5", "LARM_JOINT5")


def motor_angles(result, times) -> tuple[np.ndarray, dict]:
    """Every HOAP-2 motor's angle [rad] at `times` (T,) s from the transcription's interpolant:
    (T, 25) in MOTORS order, and how each motor is held: "moved" (a model coordinate),
    "locked" (the robot's locked value) or "not modelled" (held at 0, the initial posture)."""
    robot = result.robot
    names = [m for m, _ in MOTORS]
    if not any(m in robot.coordinates for m in names):
        from .formats import EXPORT_FORMATS  # here: formats imports this module
        raise InputError(f"robot {robot.name} has no HOAP-2 joint ({names[0]}, …): the hoap2 format is for the "
                         "hoap2 robots", field="format", allowed=[f for f in EXPORT_FORMATS if f != "hoap2"])
    q = result.trajectory.sample(times)["q"]
    out = np.zeros((len(times), len(names)))
    held = {}
    for k, m in enumerate(names):
        if m in robot.coordinates:
            out[:, k], held[m] = q[:, robot.coordinates.index(m)], "moved"
        elif m in robot.locked:
            out[:, k], held[m] = robot.locked[m], "locked"
        else:
            held[m] = "not modelled"
    return out, held


def to_pulses(angles) -> np.ndarray:
    """Angles [rad] (..., 25) in MOTORS order → motor positions [pulse], rounded to integers."""
    signs = np.array([s for _, s in MOTORS])
    return np.rint(signs * PULSES_PER_DEGREE * np.degrees(angles)).astype(np.int64)


def to_radians(pulses) -> np.ndarray:
    """Motor positions [pulse] (..., 25) in MOTORS order → joint angles [rad]."""
    signs = np.array([s for _, s in MOTORS])
    return np.radians(np.asarray(pulses, float) / (signs * PULSES_PER_DEGREE))


def servo_check(pulses, step_ms: float, before=None, after=None) -> dict:
    """Velocity (p[k+1] − p[k])/step [pulse/ms] and acceleration (p[k+1] − 2p[k] + p[k−1])/step²
    [pulse/ms²] of the rows (T, 25) against VELOCITY_LIMIT and ACCELERATION_LIMIT. before/after:
    the row preceding the first and the one following the last (of the gait continuing), else
    the ends are not differenced. Returns per motor over the limit: the
    quantity, its peak, peak/limit, the number of steps and the first and last row (velocity of
    row k: from row k to k+1; acceleration: at row k), plus the overall peaks and one summary line."""
    p = np.asarray(pulses, float)
    vel = np.diff(np.vstack([x for x in (p, after) if x is not None]), axis=0) / step_ms  # row k: k → k+1
    acc = np.diff(np.vstack([x for x in (before, p, after) if x is not None]), 2, axis=0) / step_ms ** 2
    acc_first = 0 if before is not None else 1  # the row the first acceleration belongs to
    names = [m for m, _ in MOTORS]
    over = []
    for what, x, limit, first in (("velocity", vel, VELOCITY_LIMIT, 0), ("acceleration", acc, ACCELERATION_LIMIT,
                                                                         acc_first)):
        for k, m in enumerate(names):
            bad = np.flatnonzero(np.abs(x[:, k]) > limit) + first
            if len(bad):
                over.append({"motor": m, "quantity": what, "peak": float(np.abs(x[:, k]).max()),
                             "ratio": float(np.abs(x[:, k]).max() / limit), "steps": int(len(bad)),
                             "first_row": int(bad.min()), "last_row": int(bad.max())})
    peaks = {"velocity_pulse_per_ms": float(np.abs(vel).max(initial=0.0)),
             "acceleration_pulse_per_ms2": float(np.abs(acc).max(initial=0.0))}
    return {"over": over, "peaks": peaks, "line": _summary_line(over, peaks)}


def _summary_line(over: list, peaks: dict) -> str:
    limits = f"servo limits {VELOCITY_LIMIT:g} pulse/ms, {ACCELERATION_LIMIT:g} pulse/ms²"
    if not over:
        return (f"within the {limits}: peak velocity {peaks['velocity_pulse_per_ms']:.3g} pulse/ms, peak "
                f"acceleration {peaks['acceleration_pulse_per_ms2']:.3g} pulse/ms²")
    worst = sorted(over, key=lambda o: -o["ratio"])
    parts = [f"{o['motor']} {o['quantity']} {o['peak']:.3g} ({o['ratio']:.2f}× the limit, {o['steps']} steps, "
             f"rows {o['first_row']}–{o['last_row']})" for o in worst[:4]]
    more = f"; and {len(worst) - 4} more" if len(worst) > 4 else ""
    return f"exceeds the {limits} ({len(over)} motor/quantity pairs): " + "; ".join(parts) + more


def write_hoap2_motion(result, path: str | Path, rate_hz: float = 500.0, cycles: int = 1) -> Path:
    """The HOAP-2 motion file: `# key: value` comment lines (the last, `# motors: [...]`, names
    the columns; `# servo_check:` says whether and where the servo limits are exceeded), then
    one row per sample (every 1/rate s; 500 Hz = the robot's 2 ms), 25 integer pulse columns.
    Exceeding a servo limit is a warning (the file is written). `numpy.loadtxt(path,
    delimiter=",")` reads the rows."""
    path = Path(path)
    period = result.trajectory.period
    t = sample_times(period, rate_hz, cycles)
    step_ms = 1000.0 / float(rate_hz)
    # the gait one step before the first row and one after the last (it goes on periodically):
    # the check then sees the motion itself at the ends, not a start from or stop to rest
    angles, held = motor_angles(result, np.concatenate([[-t[1] if len(t) > 1 else 0.0], t, [len(t) / rate_hz]]))
    pulses = to_pulses(angles)
    rows = pulses[1:-1]
    check = servo_check(rows, step_ms, before=pulses[0], after=pulses[-1])
    robot = result.robot
    meta = {"format": HOAP2_FORMAT, "robot": robot.name, "rate_hz": float(rate_hz), "step_ms": step_ms,
            "cycles": int(cycles), "rows": len(rows), "period": period, "stride": result.trajectory.stride,
            "transcription": result.problem.transcription, "success": bool(result.success),
            "versions": header(result)["versions"],
            "unit": f"pulse ({PULSES_PER_DEGREE} pulse = 1 deg; 0 = the initial posture, every joint at 0)",
            "pulses_per_degree": {m: s * PULSES_PER_DEGREE for m, s in MOTORS},
            "sign_assumed": list(SIGN_ASSUMED),
            "locked": {m: float(robot.locked[m]) for m in held if held[m] == "locked"},
            "not_modelled_held_at_0": [m for m in held if held[m] == "not modelled"],
            "servo_limits": {"velocity_pulse_per_ms": VELOCITY_LIMIT, "acceleration_pulse_per_ms2": ACCELERATION_LIMIT},
            "servo_check": check["line"], "servo_peaks": check["peaks"],
            "motors": [m for m, _ in MOTORS]}
    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
        write_comments(fh, meta)  # the last comment line names the columns: `# motors: [...]`
        w = csv.writer(fh)
        for row in rows:
            w.writerow([str(int(x)) for x in row])
    if check["over"]:
        warnings.warn(f"{path.name}: {check['line']}", stacklevel=2)
    return path


def read_hoap2_motion(path: str | Path) -> tuple[dict, dict]:
    """A HOAP-2 motion file back: (header dict, {time (T,) s, pulses (T, 25) int, angles (T, 25)
    rad, motors}). InputError naming the file when it is not one."""
    meta, lines = read_comments(path)
    if meta.get("format") != HOAP2_FORMAT:
        raise InputError(f"not a {HOAP2_FORMAT} file", file=str(path), field="format")
    motors = list(meta["motors"])
    if motors != [m for m, _ in MOTORS]:
        raise InputError("unexpected motor columns", file=str(path), field="motors")
    try:
        pulses = np.array([[int(x) for x in row] for row in csv.reader(lines) if row], dtype=np.int64)
    except ValueError as err:
        raise InputError(f"not an integer table ({err})", file=str(path)) from None
    pulses = pulses.reshape(-1, len(motors))
    return meta, {"time": np.arange(len(pulses)) / float(meta["rate_hz"]), "pulses": pulses,
                  "angles": to_radians(pulses), "motors": motors}
