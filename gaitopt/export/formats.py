"""`export`: one export (full CSV, motor table, NPZ, MJCF or reference-motion JSON) and its
JSON summary; and `read_export`, which reads the first three back (the MJCF and the motion JSON
are read by their consumers' own libraries: mujoco, motion_imitation)."""
from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

from ..errors import InputError
from .atomic import atomic_write_text
from .commented_csv import read_comments
from .full_csv import full_from_lines, write_full_csv
from .hoap2 import write_hoap2_motion
from .mjcf import MJCF_FORMAT, write_mjcf
from .motion_json import MOTION_FORMAT, write_motion_json
from .motors_table import MOTORS_FORMAT, motors_from_lines, write_motor_table
from .npz import read_npz, write_npz
from .sampling import DEFAULT_RATE_HZ, sample_times
from .summary import export_summary

# format → (default file name, writer(result, path, rate_hz, cycles)); the name's suffix is the
# one the format requires
EXPORT_WRITERS = {"full": ("full_{rate}hz.csv", write_full_csv), "motors": ("motors_{rate}hz.csv", write_motor_table),
                  "npz": ("samples_{rate}hz.npz", write_npz), "mjcf": ("gait.xml", write_mjcf),
                  "amp": ("motion_{rate}hz.json", write_motion_json),
                  "hoap2": ("hoap2_{rate}hz.csv", write_hoap2_motion)}  # HOAP-2 motion file (export/hoap2.py)
EXPORT_FORMATS = tuple(EXPORT_WRITERS)


def export_suffix(fmt: str) -> str:
    """The file name suffix an export format requires (.csv, .npz, .xml, .json)."""
    return Path(EXPORT_WRITERS[fmt][0]).suffix


RESULT_FILES = ("trajectory.csv", "result.json", "knots.npz")  # what `gaitopt solve -o` writes


def summary_path(path: str | Path) -> Path:
    """The JSON summary written next to the export `path`: <stem>_summary.json for the CSV
    formats (which share .csv, so one stem is one file), <stem>_<suffix>_summary.json for the
    others (samples_500hz_npz_summary.json, gait_xml_summary.json) so that an NPZ, an MJCF
    and a motion clip given one stem (-o walk.npz, -o walk.xml) keep a summary each."""
    path = Path(path)
    tag = "" if path.suffix == ".csv" else f"_{path.suffix.lstrip('.')}"
    return path.with_name(f"{path.stem}{tag}_summary.json")


def _is_export_file(path: Path) -> bool:
    """An existing file an earlier export wrote (so that re-exporting may replace it)."""
    try:
        if path.suffix == ".npz":
            with zipfile.ZipFile(path) as z:
                return "meta.npy" in z.namelist() and "time.npy" in z.namelist()
        with open(path, encoding="utf-8") as fh:
            head = fh.read(200)
        if path.suffix == ".json":
            return '"format": "gaitopt-export-summary' in head or f'"gaitopt_format": "{MOTION_FORMAT}"' in head
        if path.suffix == ".xml":
            return head.startswith(f"<!-- {MJCF_FORMAT} -->")
        return head.startswith(("# format: gaitopt-samples", "# format: gaitopt-motors"))
    except (OSError, UnicodeDecodeError, zipfile.BadZipFile):
        return False


def check_export_target(path, inputs=None, field: str = "path", export_file: bool = True) -> None:
    """InputError (naming `field`) unless an export may be written to `path` (and its
    `_summary.json`): never over one of the `inputs` directory's files, never over
    trajectory.csv, result.json or knots.npz of a result directory, and, in a result directory
    (one with a result.json), never over a file that is not an earlier export (export_file=False:
    `path` is another kind of output, e.g. an animation: no summary, only the first two rules)."""
    path = Path(path)
    targets = [path, summary_path(path)] if export_file else [path]
    for target in targets:
        try:
            if inputs is not None and Path(inputs).is_dir():
                rd = Path(inputs)
                if target.resolve() == rd.resolve() or any(
                        target.exists() and (rd / f).exists() and os.path.samefile(target, rd / f) for f in RESULT_FILES):
                    raise InputError(f"would write over {target.name}, an input of this command ({rd}); choose "
                                     "another output file", file=str(target), field=field)
            in_result_dir = (target.parent / "result.json").is_file()
            if in_result_dir and (target.name in RESULT_FILES or
                                  (export_file and target.exists() and not _is_export_file(target))):
                raise InputError(f"would write over {target.name} of the result directory {target.parent}, "
                                 "not an earlier export; choose another output file", file=str(target), field=field)
        except OSError as err:
            raise InputError(f"cannot check the output path: {err.strerror or err}", file=str(target),
                             field=field) from None


def export(result, fmt: str = "full", path: str | Path | None = None, rate_hz: float = DEFAULT_RATE_HZ,
           cycles: int = 1, degrees: bool = False, outdir: str | Path = ".") -> dict:
    """Write one export (fmt: full | motors | npz | mjcf | amp | hoap2) and its JSON summary next to it.

    path: the output file (default OUTDIR/ and EXPORT_WRITERS' name: full_<rate>hz.csv,
    motors_<rate>hz.csv, samples_<rate>hz.npz, gait.xml, motion_<rate>hz.json); degrees applies
    to the motor table only; rate and cycles do not apply to mjcf (keyframes at the knots).
    Returns {"export": path, "summary": path}."""
    if fmt not in EXPORT_FORMATS:
        raise InputError(f"unknown export format {fmt!r}", field="format", allowed=EXPORT_FORMATS)
    if degrees and fmt != "motors":
        raise InputError("degrees apply to the motor table only", field="degrees", allowed=["--format motors"])
    sample_times(result.trajectory.period, rate_hz, cycles)  # validate before writing anything
    pattern, writer = EXPORT_WRITERS[fmt]
    path = Path(path) if path is not None else Path(outdir) / pattern.format(rate=f"{rate_hz:g}")
    if path.suffix != export_suffix(fmt):  # read_export tells the formats by suffix
        raise InputError(f"format {fmt!r} needs a {export_suffix(fmt)} file name", file=str(path),
                         allowed=[export_suffix(fmt)])
    if path.name.endswith("_summary.json"):  # an amp clip so named would replace another export's summary
        raise InputError("an export's file name may not end in _summary.json (the summaries' names)",
                         file=str(path), allowed="another file name, e.g. motion.json")
    check_export_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "motors":
        writer(result, path, rate_hz, cycles, degrees=degrees)
    else:
        writer(result, path, rate_hz, cycles)
    summary = export_summary(result, rate_hz, cycles, {"export": path})
    atomic_write_text(summary_path(path), json.dumps(summary, indent=2, default=str))
    return {"export": path, "summary": summary_path(path)}


def read_export(path: str | Path) -> tuple[dict, dict]:
    """Read an export back: (header dict, data).

    Full CSV and NPZ give the dict of `sample_table` (time, phase, q, v, a, tau, f, current,
    power, contact, mode and the name lists); the motor table gives time (from the rate),
    positions (T, nu) in the file's unit and joints. InputError naming the file on a malformed
    export."""
    path = Path(path)
    try:
        if path.suffix == ".npz":
            return read_npz(path)
        meta, lines = read_comments(path)
        if meta.get("format") == MOTORS_FORMAT:
            return meta, motors_from_lines(meta, lines)
        return meta, full_from_lines(path, meta, lines)
    except InputError:
        raise
    except (KeyError, ValueError, TypeError, IndexError, OSError, EOFError, zipfile.BadZipFile) as err:
        raise InputError(f"not a readable gaitopt export ({type(err).__name__}: {str(err)[:120]})",
                         file=str(path)) from None
