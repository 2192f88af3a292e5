"""`export`: one sampled export (full CSV, motor table or NPZ) and its JSON summary; and
`read_export`, which reads any of the three back."""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError
from .commented_csv import read_comments
from .full_csv import full_from_lines, write_full_csv
from .motors_table import MOTORS_FORMAT, motors_from_lines, write_motor_table
from .npz import read_npz, write_npz
from .sampling import DEFAULT_RATE_HZ, sample_times
from .summary import export_summary

EXPORT_FORMATS = ("full", "motors", "npz")
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


def read_export(path: str | Path) -> tuple[dict, dict]:
    """Read an export back: (header dict, data).

    Full CSV and NPZ give the dict of `sample_table` (time, phase, q, v, a, tau, f, current,
    power, contact, mode and the name lists); the motor table gives time (from the rate),
    positions (T, nu) in the file's unit and joints."""
    path = Path(path)
    if path.suffix == ".npz":
        return read_npz(path)
    meta, lines = read_comments(path)
    if meta.get("format") == MOTORS_FORMAT:
        return meta, motors_from_lines(meta, lines)
    return meta, full_from_lines(path, meta, lines)
