"""The robustness contract of the command line (docs/formats.md "The one-line contract"): no
command prints a Python traceback; bad input is exit 2 with exactly one stderr line; an
internal error (a bug) is exit 3, one line naming a log file with the traceback; Ctrl-C is 130,
quietly; a closed stdout ends quietly; sizes are bounded with the limit named; no command writes
over its inputs; writers are atomic; corrupted result directories are refused, never exported.

One small problem is solved once (module fixture); each case copies its result directory and
corrupts the copy; commands run in a subprocess.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "problems" / "biped7_static_walk.yaml"
MAX_LINE = 500


def run(*args, timeout=120, code=None):
    """`python -m gaitopt.cli ARGS` (or `python -c CODE`) in a subprocess."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "gaitopt.cli", *map(str, args)]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def run_many(argvs: list) -> list:
    """run(*argv) for each argv, a few at a time (each is mostly interpreter start-up)."""
    with ThreadPoolExecutor(max_workers=max(2, min(6, 2 * (os.cpu_count() or 1)))) as pool:
        return list(pool.map(lambda argv: run(*argv), argvs))


def run_inprocess(*args):
    """`gaitopt.cli.main(ARGS)` in this process (the code path of the command line, without the
    interpreter start-up): a CompletedProcess-like result."""
    from gaitopt import cli
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def one_line(proc, exit_code=2, *fragments, prefix="gaitopt: "):
    """The exit code, exactly one short stderr line starting `prefix`, no traceback."""
    assert proc.returncode == exit_code, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    line = lines[0]
    assert line.startswith(prefix) and len(line) <= MAX_LINE, line
    for f in fragments:
        assert str(f) in line, (f, line)
    return line


def snapshot(d: Path) -> dict:
    """Every file under d → its bytes."""
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(Path(d).rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """A RESULT_DIR of a small solve (6 intervals), never modified by the tests."""
    out = tmp_path_factory.mktemp("robust") / "result"
    proc = run("solve", STATIC, "-o", out, "--set", "gait.phases.0.knots=4", "--set", "gait.phases.1.knots=2",
               "--print-level", 0, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr
    assert {"trajectory.csv", "result.json", "knots.npz"} <= set(os.listdir(out))
    return out


@pytest.fixture
def rdir(solved, tmp_path):
    """A fresh copy of the RESULT_DIR to corrupt."""
    d = tmp_path / "result"
    shutil.copytree(solved, d)
    return d


# ----------------------------------------------------------------- 1. argparse: one line, exit 2

@pytest.mark.parametrize("args, fragments", [
    ([], ["COMMAND", "required", "(allowed: ", "solve", "compensate"]),
    (["frobnicate"], ["COMMAND", "frobnicate", "(allowed: ", "solve", "export"]),
    (["solve", STATIC], ["-o/--output", "required"]),
    (["solve", STATIC, "-o", "x", "--print-level", "lots"], ["--print-level", "lots"]),
    (["solve", STATIC, "-o", "x", "--print-level", "99"], ["--print-level", "(allowed: "]),
    (["robot", "biped7", "--base", "weird"], ["--base", "weird", "(allowed: ", "sagittal"]),
    (["export"], ["result_dir", "required"]),
    (["export", "somewhere", "--bogus"], ["--bogus", "unrecognized"]),
    (["sweep", "s.yaml", "-o", "x", "-j", "many"], ["--max-workers", "many"]),
])
def test_usage_errors_are_one_line(args, fragments):
    line = one_line(run(*args), 2, *fragments, prefix="gaitopt: ")
    assert "usage:" not in line


def test_help_still_prints_usage():
    proc = run("export", "-h")
    assert proc.returncode == 0 and "usage:" in proc.stdout and proc.stderr == ""


# --------------------------------------------------- 2. internal errors, Ctrl-C, a closed stdout

BOOM = ("import sys, gaitopt.cli as c\n"
        "def boom(args):\n    raise {exc}\n"
        "c._cmd_{cmd} = boom\n"
        "sys.exit(c.main({argv!r}))\n")


def test_internal_error_exit_3_traceback_in_temp_log():
    proc = run(code=BOOM.format(exc="ZeroDivisionError('a planted bug')", cmd="list", argv=["list"]))
    line = one_line(proc, 3, "internal error (a bug)", "ZeroDivisionError: a planted bug", "traceback in ")
    log = Path(re.search(r"traceback in (.+)$", line).group(1))
    try:
        text = log.read_text()
        assert "Traceback" in text and "a planted bug" in text and "def boom" not in line
    finally:
        log.unlink(missing_ok=True)


def test_internal_error_log_in_output_directory(rdir, tmp_path):
    before = snapshot(rdir)
    out = tmp_path / "exports"
    out.mkdir()
    argv = ["export", str(rdir), "-o", str(out / "x.csv")]
    proc = run(code=BOOM.format(exc="KeyError('planted')", cmd="export", argv=argv))
    one_line(proc, 3, "internal error (a bug): KeyError", f"traceback in {out / 'gaitopt-error.log'}")
    assert "Traceback" in (out / "gaitopt-error.log").read_text()
    assert snapshot(rdir) == before


def test_keyboard_interrupt_exit_130_quietly():
    proc = run(code=BOOM.format(exc="KeyboardInterrupt()", cmd="list", argv=["list"]))
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == ""


def test_ctrl_c_during_the_solve_stops_ipopt(tmp_path):
    """SIGINT while IPOPT iterates: IPOPT stops at its next iteration, exit 130, nothing on
    stderr, no output written (a slow solve: ANYmal with specific resistance, ~250 iterations)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "gaitopt.cli", "solve", "problems/anymal_c_trot.yaml", "-o", str(out),
                          "--set", "cost=specific_resistance"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    seen = []
    for line in p.stdout:  # IPOPT's iteration lines: the interrupt lands inside the solve
        seen.append(line)
        if re.match(r"\s*3\s", line):
            break
    p.send_signal(signal.SIGINT)
    rest, err = p.communicate(timeout=120)
    assert p.returncode == 130, (p.returncode, rest[-1500:], err[-1500:])
    assert "requested by user" in rest  # IPOPT's own stop, not a finished solve
    assert err == "" and not out.exists()


def test_closed_stdout_is_quiet():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.Popen([sys.executable, "-m", "gaitopt.cli", "list"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.close()  # the reader is gone before gaitopt writes a line
    err = p.stderr.read().decode()
    p.wait(timeout=120)
    p.stderr.close()
    assert p.returncode == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err, err
    proc = subprocess.run(f"{sys.executable} -m gaitopt.cli list | head -1", shell=True, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "robots:" and proc.stderr == "", proc.stderr

def test_the_installed_command_takes_the_exit_path_of_python_m():
    """The `gaitopt` console script is `gaitopt.cli:run`, as `python -m gaitopt.cli` is (its
    closed-pipe handling and the frozen exit, 25 ms of every command: docs/speed.md); it
    named `main` until 2026-11-24, so the tests above checked a path users never ran."""
    import tomllib
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"gaitopt": "gaitopt.cli:run"}
    script = Path(sys.executable).with_name("gaitopt")
    if not script.exists():  # not installed beside this interpreter (e.g. run from a checkout)
        return
    proc = subprocess.run([str(script), "list"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("robots:") and proc.stderr == "", proc.stderr
    assert "gaitopt.cli import run" in script.read_text(), "reinstall: pip install -e ."


# --------------------------------------------------------------------------- 3. bounded sizes

SIZES = [
    (["export", "{d}", "--rate", "1e9"], ["--rate", "100000"]),
    (["export", "{d}", "--rate", "0"], ["--rate", "positive"]),
    (["export", "{d}", "--rate", "-5"], ["--rate", "positive"]),
    (["export", "{d}", "--rate", "nan"], ["--rate"]),
    (["export", "{d}", "--rate", "inf"], ["--rate"]),
    (["export", "{d}", "--rate", "fast"], ["--rate", "number"]),
    (["export", "{d}", "--cycles", "1001"], ["--cycles", "1000"]),
    (["export", "{d}", "--cycles", "2.5"], ["--cycles", "whole number"]),
    (["export", "{d}", "--rate", "100000", "--cycles", "1000"], ["--rate", "1000000"]),
    (["animate", "{d}", "--fps", "1000"], ["--fps", "240"]),
    (["animate", "{d}", "--fps", "0"], ["--fps", "positive"]),
    (["animate", "{d}", "--fps", "nan"], ["--fps"]),
    (["animate", "{d}", "--cycles", "51"], ["--cycles", "50"]),
    (["animate", "{d}", "--fps", "240", "--cycles", "50"], ["--fps", "5000 frames"]),
    (["verify", "{d}", "--cycles", "51"], ["--cycles", "50"]),
    (["verify", "{d}", "--cycles", "0"], ["--cycles", "positive"]),
    (["verify", "{d}", "--cycles", "inf"], ["--cycles"]),
    (["sweep", "s.yaml", "-o", "{d}/sweep", "-j", "0"], ["--max-workers", "256"]),
]


SIZES_IN_SUBPROCESS = (0, 8, 13, 14)  # the others run through gaitopt.cli.main in this process


@pytest.fixture(scope="module")
def size_runs(solved):
    before = snapshot(solved)
    procs = dict(zip(SIZES_IN_SUBPROCESS, run_many([[a.format(d=solved) for a in SIZES[i][0]]
                                                    for i in SIZES_IN_SUBPROCESS])))
    return procs, before


@pytest.mark.parametrize("i", range(len(SIZES)), ids=[" ".join(a[2:]) or a[0] for a, _ in SIZES])
def test_sizes_bounded(solved, size_runs, i):
    procs, before = size_runs
    args = [a.format(d=solved) for a in SIZES[i][0]]
    one_line(procs[i] if i in procs else run_inprocess(*args), 2, *SIZES[i][1])
    assert snapshot(solved) == before


# ------------------------------------------------------- 4. never over inputs; atomic writers

@pytest.mark.parametrize("name, fmt", [("result.json", "full"), ("trajectory.csv", "full"),
                                       ("trajectory.csv", "motors"), ("knots.npz", "npz")])
def test_export_refuses_to_overwrite_its_inputs(rdir, name, fmt):
    before = snapshot(rdir)
    one_line(run("export", rdir, "--format", fmt, "-o", rdir / name), 2, "-o", name)
    assert snapshot(rdir) == before


def test_export_refuses_files_of_another_result_dir(rdir, solved, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(solved, other)
    (other / "notes.csv").write_text("mine\n")  # a file no export wrote
    before = snapshot(other)
    one_line(run("export", rdir, "-o", other / "trajectory.csv"), 2, "-o", "trajectory.csv")
    one_line(run_inprocess("export", rdir, "-o", other / "notes.csv"), 2, "-o", "notes.csv", "not an earlier export")
    one_line(run_inprocess("export", rdir, "-o", other / "verify.json"), 2, "-o", ".csv")
    one_line(run_inprocess("animate", rdir, "-o", other / "knots.npz"), 2, "-o", "knots.npz")
    assert snapshot(other) == before


def test_export_default_output_is_written_and_rewritten(rdir):
    before = snapshot(rdir)
    for _ in range(2):  # a second export rewrites its own output, atomically
        proc = run("export", rdir, "--rate", 50)
        assert proc.returncode in (0, 1), proc.stderr
        assert "Traceback" not in proc.stderr
    after = snapshot(rdir)
    assert {k: after[k] for k in before} == before
    assert {"full_50hz.csv", "full_50hz_summary.json"} <= set(after)
    assert not [k for k in after if ".tmp" in k]


def test_writers_are_atomic(solved, tmp_path, monkeypatch):
    """An exception in the middle of writing leaves the previous file as it was, no temp file."""
    from gaitopt import export as E
    from gaitopt.export import atomic, full_csv, result_dir, trajectory_csv
    res = E.load_result(solved)
    d = tmp_path / "w"
    shutil.copytree(solved, d)
    E.write_full_csv(res, d / "full.csv", 20.0)
    before = snapshot(d)

    def boom(*a, **k):
        raise RuntimeError("interrupted")
    monkeypatch.setattr(trajectory_csv, "columns", boom)  # after the header lines were written
    monkeypatch.setattr(full_csv, "full_columns", boom)
    monkeypatch.setattr(result_dir, "result_dict", boom)
    monkeypatch.setattr(np, "savez_compressed", boom)
    monkeypatch.setattr(np, "savez", boom)  # knots.npz: uncompressed
    for write in (lambda: E.write_trajectory_csv(res, d / "trajectory.csv"),
                  lambda: E.write_full_csv(res, d / "full.csv", 20.0),
                  lambda: E.write_result_json(res, d / "result.json"),
                  lambda: E.write_knots_npz(res, d / "knots.npz"),
                  lambda: E.write_npz(res, d / "samples.npz", 20.0),
                  lambda: E.save(res, d)):
        with pytest.raises(RuntimeError, match="interrupted"):
            write()
        assert snapshot(d) == before
    with pytest.raises(RuntimeError):
        with atomic.atomic_open(d / "new.txt") as fh:
            fh.write("half")
            raise RuntimeError("interrupted")
    assert snapshot(d) == before


# ------------------------------------------------------------ 5. corrupted result directories

def _edit_csv(d: Path, edit) -> None:
    p = d / "trajectory.csv"
    p.write_text(edit(p.read_text()))


def _comment(key, value):
    return lambda text: re.sub(rf"^# {key}: .*$", f"# {key}: {value}", text, count=1, flags=re.M)


def _data_lines(text):
    lines = text.splitlines(keepends=True)
    first = next(i for i, ln in enumerate(lines) if not ln.startswith("#"))
    return lines, first  # lines[first] is the header row


def _set_cell(row, col, value):
    def edit(text):
        lines, h = _data_lines(text)
        names = lines[h].rstrip("\n").split(",")
        j = names.index(col) if isinstance(col, str) else col
        cells = lines[h + row].rstrip("\n").split(",")
        cells[j] = value
        lines[h + row] = ",".join(cells) + "\n"
        return "".join(lines)
    return edit


def _swap_times(text):
    lines, h = _data_lines(text)
    a, b = lines[h + 2].split(",", 1), lines[h + 3].split(",", 1)
    lines[h + 2], lines[h + 3] = ",".join([b[0], a[1]]), ",".join([a[0], b[1]])
    return "".join(lines)


def _repeat_time(text):
    lines, h = _data_lines(text)
    t = lines[h + 1].split(",", 1)[0]
    rest = lines[h + 2].split(",", 1)[1]
    lines[h + 2] = f"{t},{rest}"
    return "".join(lines)


def _drop_column(name):
    def edit(text):
        lines, h = _data_lines(text)
        j = lines[h].rstrip("\n").split(",").index(name)
        for i in range(h, len(lines)):
            cells = lines[i].rstrip("\n").split(",")
            del cells[j]
            lines[i] = ",".join(cells) + "\n"
        return "".join(lines)
    return edit


def _edit_knots(d: Path, edit) -> None:
    p = d / "knots.npz"
    with np.load(p, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    edit(data)
    with open(p, "wb") as fh:
        np.savez_compressed(fh, **data)


def _knots(key, value):
    def edit(data):
        data[key] = value(data[key]) if callable(value) else value
    return edit


def _shorten_last_phase(data):
    last = max(int(k[1:].split(".")[0]) for k in data if re.match(r"p\d+\.t$", k))
    for k in list(data):
        if k.startswith(f"p{last}."):
            data[k] = data[k][:-1]


def _drop_row(row):
    def edit(text):
        lines, h = _data_lines(text)
        del lines[h + row]
        return "".join(lines)
    return edit


def _drop_knots(d: Path) -> None:
    (d / "knots.npz").unlink()


CORRUPTIONS = {
    # result.json
    "json_not_json": (lambda d: (d / "result.json").write_text("{not json"), ["result.json", "JSON"]),
    "json_a_list": (lambda d: (d / "result.json").write_text("[1, 2]"), ["result.json", "mapping"]),
    "json_missing_key": (lambda d: (d / "result.json").write_text(json.dumps({"success": True})),
                         ["result.json", "missing keys"]),
    "json_bad_type": (lambda d: (d / "result.json").write_text(json.dumps(
        dict(json.loads((d / "result.json").read_text()), success="yes"))), ["result.json", "success"]),
    "json_period_disagrees": (lambda d: (d / "result.json").write_text(json.dumps(
        dict(json.loads((d / "result.json").read_text()), period=2.5))), ["result.json", "period"]),
    "no_result_json": (lambda d: (d / "result.json").unlink(), ["no result.json"]),
    # trajectory.csv (checked even when knots.npz is there)
    "csv_format_version": (lambda d: _edit_csv(d, _comment("format", "gaitopt-trajectory 9")),
                           ["trajectory.csv", "format", "gaitopt-trajectory 1", "gaitopt-trajectory 2"]),
    "csv_period_zero": (lambda d: _edit_csv(d, _comment("period", "0")), ["trajectory.csv", "period"]),
    "csv_period_negative": (lambda d: _edit_csv(d, _comment("period", "-1.0")), ["trajectory.csv", "period"]),
    "csv_stride_nan": (lambda d: _edit_csv(d, _comment("stride", "NaN")), ["trajectory.csv", "stride", "finite"]),
    "csv_stride_text": (lambda d: _edit_csv(d, _comment("stride", "far")), ["trajectory.csv", "stride"]),
    "csv_nan_cell": (lambda d: _edit_csv(d, _set_cell(3, "q.base_x", "nan")), ["trajectory.csv", "q.base_x"]),
    "csv_inf_cell": (lambda d: _edit_csv(d, _set_cell(2, "tau.left_knee", "inf")),
                     ["trajectory.csv", "tau.left_knee"]),
    "csv_text_cell": (lambda d: _edit_csv(d, _set_cell(2, "v.base_z", "fast")), ["trajectory.csv", "v.base_z"]),
    "csv_ragged_row": (lambda d: _edit_csv(d, lambda t: t + "1.0,2.0\n"), ["trajectory.csv", "cells"]),
    "csv_times_not_monotone": (lambda d: _edit_csv(d, _swap_times), ["trajectory.csv", "time", "monotone"]),
    "csv_equal_times_in_phase": (lambda d: _edit_csv(d, _repeat_time), ["trajectory.csv", "time", "junction"]),
    "csv_missing_column": (lambda d: _edit_csv(d, _drop_column("q.left_knee")), ["trajectory.csv", "q.left_knee"]),
    "csv_differs_from_knots": (lambda d: _edit_csv(d, _set_cell(2, "q.base_z", "0.123")),
                               ["trajectory.csv", "q.base_z"]),
    "csv_empty": (lambda d: (d / "trajectory.csv").write_text(""), ["trajectory.csv"]),
    # knots.npz
    "knots_garbage": (lambda d: (d / "knots.npz").write_bytes(b"PK\x03\x04 truncated"), ["knots.npz"]),
    "knots_format": (lambda d: _edit_knots(d, _knots("format", np.array("gaitopt-knots 7"))),
                     ["knots.npz", "format"]),
    "knots_period_zero": (lambda d: _edit_knots(d, _knots("period", np.array(0.0))), ["knots.npz", "period"]),
    "knots_stride_inf": (lambda d: _edit_knots(d, _knots("stride", np.array(np.inf))), ["knots.npz", "stride"]),
    "knots_shape": (lambda d: _edit_knots(d, _knots("p0.q", lambda x: x[:, :-1])), ["knots.npz", "p0.q", "shape"]),
    "knots_nan": (lambda d: _edit_knots(d, _knots("p1.tau", lambda x: np.where(x == x, np.nan, x))),
                  ["knots.npz", "p1.tau"]),
    "knots_missing_array": (lambda d: _edit_knots(d, lambda data: data.pop("p2.f")), ["knots.npz", "p2.f", "missing"]),
    "knots_times": (lambda d: _edit_knots(d, _knots("p0.t", lambda x: x[::-1].copy())), ["knots.npz", "p0.t"]),
    "knots_phase_shortened": (lambda d: _edit_knots(d, _shorten_last_phase), ["knots.npz", "period"]),
    # a midpoint row and the knot row after it dropped (format 2 rows alternate knot, mid, knot …)
    "csv_fewer_rows_than_knots": (lambda d: (_edit_csv(d, _drop_row(2)), _edit_csv(d, _drop_row(2))),
                                  ["knots.npz", "rows"]),
    "csv_mid_row_dropped": (lambda d: _edit_csv(d, _drop_row(2)), ["trajectory.csv", "point", "alternate"]),
    # no knots.npz: trajectory.csv alone must be valid
    "no_knots_csv_nan": (lambda d: (_drop_knots(d), _edit_csv(d, _set_cell(4, "f.left_heel.z", "nan"))),
                         ["trajectory.csv", "f.left_heel.z"]),
    "no_knots_csv_unknown_phase": (lambda d: (_drop_knots(d), _edit_csv(d, _set_cell(2, "phase", "flying"))),
                                   ["trajectory.csv", "phase", "flying"]),
    "knots_a_directory": (lambda d: (_drop_knots(d), (d / "knots.npz").mkdir()), ["knots.npz", "not a regular file"]),
    "csv_a_directory": (lambda d: ((d / "trajectory.csv").unlink(), (d / "trajectory.csv").mkdir()),
                        ["trajectory.csv", "not a regular file"]),
    "no_knots_no_csv": (lambda d: (_drop_knots(d), (d / "trajectory.csv").unlink()), ["neither knots.npz"]),
}


# these run in a subprocess (one or two per file); the others through gaitopt.cli.main in-process
CORRUPTIONS_IN_SUBPROCESS = ("json_a_list", "json_not_json", "csv_format_version", "csv_nan_cell",
                             "csv_times_not_monotone", "knots_garbage", "knots_shape", "csv_fewer_rows_than_knots",
                             "no_knots_csv_unknown_phase")


@pytest.fixture(scope="module")
def corrupted_runs(solved, tmp_path_factory):
    """Every corruption of CORRUPTIONS applied to its own copy, then `gaitopt export` on each."""
    root = tmp_path_factory.mktemp("corrupted")
    cases = {}
    for case, (corrupt, _) in CORRUPTIONS.items():
        d = root / case / "result"
        shutil.copytree(solved, d)
        corrupt(d)
        cases[case] = (["export", d, "--rate", 50, "-o", root / case / "out.csv"], snapshot(d))
    procs = dict(zip(CORRUPTIONS_IN_SUBPROCESS, run_many([cases[c][0] for c in CORRUPTIONS_IN_SUBPROCESS])))
    return {case: (procs.get(case),) + cases[case] for case in cases}


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_corrupted_result_dir_is_refused(corrupted_runs, case):
    proc, argv, before = corrupted_runs[case]
    d, out = argv[1], argv[-1]
    one_line(proc if proc is not None else run_inprocess(*argv), 2, *CORRUPTIONS[case][1])
    assert not out.exists() and not out.with_name("out_summary.json").exists()
    assert snapshot(d) == before


@pytest.mark.parametrize("command", ["plot", "animate", "verify"])
def test_corrupted_result_dir_refused_by_every_reader(rdir, tmp_path, command):
    _edit_csv(rdir, _comment("period", "0"))
    before = snapshot(rdir)
    one_line(run(command, rdir, "-o", tmp_path / ("out.gif" if command == "animate" else "out")), 2,
             "trajectory.csv", "period")
    assert snapshot(rdir) == before


def test_missing_knots_falls_back_to_a_valid_csv(rdir, tmp_path):
    """Without knots.npz a valid trajectory.csv is read (documented fallback)."""
    _drop_knots(rdir)
    proc = run("export", rdir, "--rate", 50, "-o", tmp_path / "out.csv")
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr and (tmp_path / "out.csv").exists()


def test_not_a_directory(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    one_line(run("export", f), 2, str(f), "no such result directory")
    one_line(run("export", tmp_path / "nope"), 2, "no such result directory")


def test_api_limits_and_targets(solved, tmp_path):
    """The same checks in the library: replay steps, animation frames, export targets."""
    from gaitopt.animate import MAX_FRAMES, frame_count
    from gaitopt.errors import InputError
    from gaitopt.export.formats import check_export_target
    from gaitopt.verify.settings import MAX_STEPS, check_cycles, check_steps
    with pytest.raises(InputError, match=str(MAX_STEPS)):
        check_steps(1e6, 2, 5e-4)
    assert check_steps(1.0, 2, 5e-4) == 4000
    for bad in (0, 51, 2.0, True):
        with pytest.raises(InputError, match="cycles"):
            check_cycles(bad)
    with pytest.raises(InputError, match=str(MAX_FRAMES)):
        frame_count(100.0, 240.0, 50)
    for bad in (0.0, -1.0, float("nan"), float("inf"), 241.0):
        with pytest.raises(InputError, match="fps"):
            frame_count(1.0, bad, 1)
    for name in ("trajectory.csv", "result.json", "knots.npz"):
        with pytest.raises(InputError, match=name):
            check_export_target(solved / name, solved, "-o")
    check_export_target(tmp_path / "fresh.csv", solved, "-o")  # a new file anywhere is fine


def test_warnings_are_one_line_and_never_before_a_bad_input_line(monkeypatch):
    import warnings

    from gaitopt import cli
    from gaitopt.errors import InputError

    def warn_then(exc):
        def cmd(args):
            warnings.warn("first line\nsecond line")
            if exc:
                raise exc
            return 0
        return cmd
    monkeypatch.setattr(cli, "_cmd_list", warn_then(InputError("bad", field="--x")))
    one_line(run_inprocess("list"), 2, "gaitopt: --x: bad")
    monkeypatch.setattr(cli, "_cmd_list", warn_then(None))
    proc = run_inprocess("list")
    assert proc.returncode == 0 and proc.stderr == "gaitopt: warning: first line second line\n", proc.stderr


def test_sweep_output_under_a_file_is_bad_input(tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    study = next((ROOT / "problems" / "studies").glob("*.yaml"))
    one_line(run_inprocess("sweep", study, "-o", f / "cases", "-q"), 2, "not a writable directory")
    assert f.read_text() == "x"


@pytest.mark.parametrize("module", ["gaitopt.dynamics", "gaitopt.cli_output", "gaitopt.cli_verify"])
def test_ctrl_c_while_the_command_imports(module):
    """Ctrl-C in the command's first 0.2 s (numpy, CasADi, Pinocchio loading; emulated: SIGINT
    sent while `module` is being imported) exits 130 with nothing on stderr, as later; a program
    that imports gaitopt keeps its KeyboardInterrupt."""
    code = ("import os, signal, sys\n"
            "class Interrupted:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            f"        if name == {module!r}:\n"
            "            os.kill(os.getpid(), signal.SIGINT)\n"
            "sys.meta_path.insert(0, Interrupted())\n"
            "sys.argv[0] = sys.argv[1]\n"
            "from gaitopt.cli import run\n"
            "for _ in range(10 ** 6):  # a signal lands between bytecodes\n"
            "    pass\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    kw = dict(env=env, capture_output=True, text=True, timeout=120,
              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # not ignored, as in a terminal
    command = subprocess.run([sys.executable, "-c", code, "/usr/local/bin/gaitopt"], **kw)
    assert command.returncode == 130 and command.stderr == "", command.stderr[-800:]
    library = subprocess.run([sys.executable, "-c", code, "my_script.py"], **kw)
    assert library.returncode != 0 and "KeyboardInterrupt" in library.stderr


def test_command_start_up_collector_and_blas_threads():
    """The `gaitopt` command imports with the cyclic collector paused and resumes it (the imports'
    objects frozen) before the command runs, the solve stack loaded first for a solve, and holds
    NumPy's OpenBLAS to one thread unless told otherwise; a program that imports gaitopt keeps
    its collector on and its BLAS threads."""
    code = ("import gc, os, sys\n"
            "sys.argv[0] = sys.argv[1]\n"
            "import gaitopt.cli as cli\n"
            "paused = not gc.isenabled()\n"
            "args = cli.build_parser().parse_args(['solve', 'x.yaml', '-o', 'out'])\n"
            "cli._resume_collector(args)\n"
            "print(paused, gc.isenabled(), 'gaitopt.gait' in sys.modules, gc.get_freeze_count() > 0,\n"
            "      os.environ.get('OPENBLAS_NUM_THREADS'))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("OPENBLAS_NUM_THREADS", None)
    command = subprocess.run([sys.executable, "-c", code, "/usr/local/bin/gaitopt"], env=env, capture_output=True,
                             text=True, timeout=120)
    assert command.stdout.split() == ["True", "True", "True", "True", "1"], command.stderr[-800:]
    library = subprocess.run([sys.executable, "-c", code, "my_script.py"], env=env, capture_output=True, text=True,
                             timeout=120)
    assert library.stdout.split() == ["False", "True", "False", "False", "None"], library.stderr[-800:]
    mine = subprocess.run([sys.executable, "-c", code, "/usr/local/bin/gaitopt"],
                          env=dict(env, OPENBLAS_NUM_THREADS="2"), capture_output=True, text=True, timeout=120)
    assert mine.stdout.split()[-1] == "2", mine.stderr[-800:]


def test_editable_install_adds_a_path_not_an_import_hook():
    """README's `pip install -e .` puts the repository on sys.path (pyproject's package-dir): no
    import hook module is loaded at every Python start-up (its imports cost ~10 ms of each
    `gaitopt` command; docs/speed.md). Checked where gaitopt is installed editable, as README and
    CI install it."""
    import importlib.metadata as md

    # (a checkout's gaitopt.egg-info, which setuptools leaves beside the package, lists no files)
    files = [f for d in md.distributions(name="gaitopt") for f in (d.files or [])]
    pth = [f for f in files if f.name.endswith(".pth")]
    if not pth:
        pytest.skip("gaitopt is not installed editable here (a wheel, or a checkout on PYTHONPATH)")
    hooks = [f for f in files if "editable" in f.name and f.name.endswith(".py")]
    assert not hooks, f"the editable install loads an import hook: {hooks}"
    line = pth[0].read_text().strip()
    assert not line.startswith("import") and Path(line).resolve() == ROOT.resolve(), line
