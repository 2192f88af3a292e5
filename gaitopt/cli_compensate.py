"""`gaitopt compensate RESULT_DIR -o OUT`: Jacobi compensation of a solved gait (gaitopt.compensation)."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

from .cli_common import EXIT_FAILED, EXIT_OK, _check_output_dir, _finish, _load, _positive, _signed, _writing
from .errors import InputError

COMPENSATION_FILE = "compensation.json"
MAX_SAMPLES = 100_000


def read_samples(path: str, period: float) -> tuple:
    """Δp samples from a CSV file: rows `time [s], Δp [m]` ('#' comments), times increasing in
    [0, period). Returns (times, values); InputError naming the file otherwise."""
    from .compensation import MAX_OFFSET  # why: the other commands need none of it (docs/speed.md)
    p = Path(path)
    if not p.is_file():
        raise InputError("no such file" if not p.exists() else "not a regular file", file=path, field="--samples")
    try:
        data = np.loadtxt(p, delimiter=",", comments="#", ndmin=2, max_rows=MAX_SAMPLES + 1)
    except (ValueError, OSError, UnicodeDecodeError) as err:
        raise InputError(f"not a table of numbers ({str(err)[:80]})", file=path, field="--samples",
                         allowed="rows `time, dp` in s and m") from None
    if data.shape[1] != 2 or not 1 <= len(data) <= MAX_SAMPLES or not np.all(np.isfinite(data)):
        raise InputError(f"expected 1 … {MAX_SAMPLES} rows of 2 finite numbers, got shape {data.shape}", file=path,
                         field="--samples", allowed="rows `time, dp` in s and m")
    t, dp = data[:, 0], data[:, 1]
    if np.any(np.diff(t) <= 0) or t[0] < 0 or t[-1] >= period:
        raise InputError(f"times must increase within [0, {period:.6g}) s (the gait's period)", file=path,
                         field="--samples")
    if np.abs(dp).max() > MAX_OFFSET:
        raise InputError(f"|Δp| up to {np.abs(dp).max():.4g} m", file=path, field="--samples",
                         allowed=f"at most {MAX_OFFSET} m")
    return tuple(t), tuple(dp)


def _cmd_compensate(args) -> int:
    from .compensation import AXES, MAX_OFFSET, TORQUES, Correction, compensate  # why: this command only
    from .export import save
    if args.axis not in AXES:
        raise InputError(f"unknown axis {args.axis!r}", field="--axis", allowed=list(AXES))
    if args.torques not in TORQUES:
        raise InputError(f"unknown choice {args.torques!r}", field="--torques", allowed=list(TORQUES))
    if Path(args.output).resolve() == Path(args.result_dir).resolve():
        raise InputError("the output would overwrite the input result directory", file=args.output, field="-o")
    _check_output_dir(args.output)
    result = _load(args.result_dir)
    period = result.trajectory.period
    correction = Correction(offset=_signed(args.offset, "--offset", MAX_OFFSET),
                            amplitude=_signed(args.amplitude, "--amplitude", MAX_OFFSET),
                            phase=math.radians(_signed(args.phase_deg, "--phase-deg", 360.0)),
                            harmonic=int(_positive(args.harmonic, "--harmonic", int, limit=20)),
                            samples=read_samples(args.samples, period) if args.samples else None)
    try:
        out, report = compensate(result, correction, args.point, args.axis, hold_attitude=not args.free_attitude,
                                 torques=args.torques)
    except InputError as err:  # name the option, not the function's argument
        field = "--offset + --amplitude + --samples" if err.field == "correction" else f"--{err.field}"
        raise InputError(err.message, field=field, allowed=err.allowed) from None
    record = {"format": "gaitopt-compensation 1", "source": str(args.result_dir), "point": args.point,
              "axis": args.axis, "offset_m": correction.offset, "amplitude_m": correction.amplitude,
              "phase_rad": correction.phase, "harmonic": correction.harmonic, "samples": args.samples,
              "hold_attitude": not args.free_attitude, "torques": args.torques, "report": report.to_dict()}
    with _writing():
        paths = save(out, args.output)
        (Path(args.output) / COMPENSATION_FILE).write_text(json.dumps(record, indent=2, allow_nan=False), encoding="utf-8")
    print(f"compensated {args.point} {args.axis}: |Δp| ≤ {1e3 * report.max_dp:.2f} mm, task error "
          f"{report.task_error:.1e} m, stance drift {report.contact_drift:.1e} m, largest joint change "
          f"{report.max_joint_change:.3g} (rad or m), base-row residual {report.base_residual:.3g} (N, N·m), friction ratio "
          f"{report.friction_ratio:.3f}, {100 * report.friction_use:.4g} % of the plan's friction "
          f"{result.problem.constraints.cone} (μ {result.problem.constraints.friction:g})")
    for note in report.notes:
        print(f"note: {note}")
    print(f"wrote {paths['trajectory']}, {paths['result']} and {Path(args.output) / COMPENSATION_FILE}")
    code = _finish(out, args.result_dir)
    broken = report.broken()
    if broken and code == EXIT_OK:  # written, but not a gait the robot can follow as it stands
        print(f"gaitopt: the compensated gait is not physically consistent ({', '.join(broken)}: the notes above "
              f"say how); files written", file=sys.stderr)
        return EXIT_FAILED
    return code


def add_compensate_command(sub) -> None:
    """Register `gaitopt compensate` on the CLI's subparsers."""
    p = sub.add_parser("compensate", help="Jacobi compensation: move the CoM, the base or a frame of a solved gait "
                                          "by Δp(t), feet held; write a new result directory")
    p.add_argument("result_dir", help="directory written by `gaitopt solve -o` (never modified)")
    p.add_argument("--point", default="com", help="com | base | a frame name of the robot (default com)")
    p.add_argument("--axis", default="x", help="x | y | z, world axis of Δp (default x)")
    p.add_argument("--offset", default="0", help="constant part of Δp [m] (default 0)")
    p.add_argument("--amplitude", default="0", help="Δp += amplitude·sin(2π·harmonic·t/T + phase) [m] (default 0)")
    p.add_argument("--phase-deg", default="0", help="phase of the sinusoid [deg] (default 0)")
    p.add_argument("--harmonic", default="1", help="periods of the sinusoid per gait cycle (default 1)")
    p.add_argument("--samples", help="CSV of `time [s], Δp [m]` rows over one cycle, added (periodic, linear)")
    p.add_argument("--free-attitude", action="store_true", help="let the base tilt too (default: attitude held)")
    p.add_argument("--torques", default="recompute", help="recompute (inverse dynamics of the corrected motion, "
                                                          "default) | plan (keep the planned torques and forces)")
    p.add_argument("-o", "--output", required=True, help="output directory (not RESULT_DIR)")
    p.set_defaults(func=_cmd_compensate)
