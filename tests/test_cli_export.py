"""`gaitopt export`, `gaitopt plot`, `gaitopt animate` and `gaitopt list` end to end in a
subprocess, on RESULT_DIRs written by `gaitopt.export.save` (as `gaitopt solve -o` writes
them): files and formats, exit codes 0 / 1 (a failed solve) / 2 (bad input: one line
`gaitopt: ...`, no traceback).
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import gaitopt as go
from gaitopt import export as E

from test_cli import assert_bad_input, gaitopt  # the subprocess runner of tests/test_cli.py

ROOT = Path(__file__).resolve().parent.parent
HEEL_TOE = ROOT / "problems" / "biped7_heel_toe_walk.yaml"


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    """A solved RESULT_DIR and one of a failed solve (2 IPOPT iterations)."""
    problem = go.load_problem(HEEL_TOE).scaled_knots(0.5)
    ok = go.solve(problem, print_level=0)
    assert ok.success
    failed = go.solve(problem.replace(solver=dataclasses.replace(problem.solver, max_iter=2)), print_level=0)
    assert not failed.success
    root = tmp_path_factory.mktemp("cli_export")
    E.save(ok, root / "ok")
    E.save(failed, root / "failed")
    return {"ok": root / "ok", "failed": root / "failed", "result": ok}


def test_export_full_motors_npz(dirs, tmp_path):
    d, res = dirs["ok"], dirs["result"]
    T = res.trajectory.period
    proc = gaitopt("export", d, "--rate", 250, "--cycles", 2, "--format", "full")
    assert proc.returncode == 0, proc.stderr
    path = d / "full_250hz.csv"
    assert f"wrote {path}" in proc.stdout
    meta, data = E.read_export(path)
    assert len(data["time"]) == int(np.ceil(2 * T * 250 - 1e-9)) and meta["cycles"] == 2
    np.testing.assert_array_equal(data["q"], E.sample_table(res, 250.0, 2)["q"])
    summary = json.loads((d / "full_250hz_summary.json").read_text())
    assert summary["robot"] == "biped7" and summary["success"] is True

    out = tmp_path / "walk_motors.csv"
    proc = gaitopt("export", d, "--format", "motors", "--degrees", "-o", out)
    assert proc.returncode == 0, proc.stderr
    table = np.loadtxt(out, delimiter=",")  # a plain numeric table at 500 Hz, degrees
    assert table.shape == (int(np.ceil(T * 500 - 1e-9)), len(res.robot.actuated))
    q = E.sample_table(res, 500.0, 1)["q"][:, res.robot.actuated_index]
    np.testing.assert_allclose(np.radians(table), q, rtol=1e-14, atol=1e-14)

    proc = gaitopt("export", d, "--format", "npz", "--rate", "1000")
    assert proc.returncode == 0, proc.stderr
    meta, data = E.read_export(d / "samples_1000hz.npz")
    assert meta["rate_hz"] == 1000.0 and data["tau"].shape == (len(data["time"]), len(res.robot.actuated))


def test_plot_and_animate(dirs, tmp_path):
    d = dirs["ok"]
    proc = gaitopt("plot", d, "-o", tmp_path / "plots")
    assert proc.returncode == 0, proc.stderr
    pngs = sorted(p.stem for p in (tmp_path / "plots").glob("*.png"))
    assert pngs == sorted(n for n in go.plot.PLOTS if n != "stick_3d")  # a sagittal biped
    proc = gaitopt("animate", d, "--fps", 8, "--cycles", 1)
    assert proc.returncode == 0, proc.stderr
    anim = list(d.glob("animation.*"))
    assert len(anim) == 1 and anim[0].suffix == (".mp4" if go.animate.ffmpeg_available() else ".gif")
    assert anim[0].stat().st_size > 1000


@pytest.mark.fast
def test_list_describes_robots_and_problems():
    proc = gaitopt("list")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for name in go.available_robots():
        line = next(ln for ln in lines if ln.split()[:1] == [name])
        assert len(line.split()) > 2 and "cannot load" not in line, line
    for p in (ROOT / "problems").glob("*.yaml"):
        line = next(ln for ln in lines if ln.split()[:1] == [p.name])
        assert len(line.split()) > 2 and "invalid" not in line, line


def test_failed_solve_exits_1_but_writes(dirs, tmp_path):
    d = dirs["failed"]
    out = tmp_path / "f.csv"
    proc = gaitopt("export", d, "--format", "motors", "-o", out)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "failed solve" in proc.stderr and "Maximum_Iterations_Exceeded" in proc.stderr
    assert "Traceback" not in proc.stderr and out.is_file()


def test_verify_of_a_failed_solve_never_exits_0(dirs, tmp_path, monkeypatch, capsys):
    """A failed solve's best iterate that happens to replay like its plan is not a verified gait:
    exit 1 and stderr says the RESULT_DIR holds a failed solve (it printed "verified", exit 0).
    The replay is stubbed as matching, so that only the command's verdict is tested."""
    from types import SimpleNamespace

    from gaitopt.cli import main
    from gaitopt.verify import command
    matching = SimpleNamespace(verified=True, report={"failures": []})
    monkeypatch.setattr(command, "replay", lambda result, cycles: matching)
    monkeypatch.setattr(command, "write_replay", lambda rep, outdir, d: {"report": "r", "plot": "p"})
    monkeypatch.setattr(command, "summary_text", lambda report: "")
    assert main(["verify", str(dirs["ok"]), "-o", str(tmp_path / "ok")]) == 0
    assert main(["verify", str(dirs["failed"]), "-o", str(tmp_path / "failed")]) == 1
    err = capsys.readouterr().err
    assert "holds a failed solve" in err and "Maximum_Iterations_Exceeded" in err and len(err.strip().splitlines()) == 1


def test_export_mjcf_and_motion_json(dirs, tmp_path):
    """`--format mjcf` and `--format amp` from the command line: default names, loadable by their
    consumers (the physics checks are in tests/test_export_consumers.py); a wrong suffix, or an
    output over the result directory's own files, is bad input and writes nothing."""
    mujoco = pytest.importorskip("mujoco")
    d, res = dirs["ok"], dirs["result"]
    proc = gaitopt("export", d, "--format", "mjcf")
    assert proc.returncode == 0, proc.stderr
    m = mujoco.MjModel.from_xml_path(str(d / "gait.xml"))
    assert m.nkey == len(res.trajectory.knots()["time"]) and m.nu == len(res.robot.actuated)
    assert json.loads((d / "gait_xml_summary.json").read_text())["robot"] == "biped7"
    assert gaitopt("export", d, "--format", "mjcf").returncode == 0  # an earlier export may be replaced
    proc = gaitopt("export", d, "--format", "amp", "--rate", "30")
    assert proc.returncode == 0, proc.stderr
    clip = json.loads((d / "motion_30hz.json").read_text())
    assert clip["LoopMode"] == "Wrap" and len(clip["Frames"]) == round(30 * res.trajectory.period) + 1
    for fmt, name, frag in (("mjcf", "m.csv", ".xml"), ("amp", "m.xml", ".json"), ("full", "m.json", ".csv")):
        assert_bad_input(gaitopt("export", d, "--format", fmt, "-o", tmp_path / name), name, frag)
    before = (d / "result.json").read_bytes()
    assert_bad_input(gaitopt("export", d, "--format", "amp", "-o", d / "result.json"), "-o", "result.json")
    assert (d / "result.json").read_bytes() == before
    (tmp_path / "mine.xml").write_text("<mujoco/>")  # not an export: refused in a result directory
    (tmp_path / "result.json").write_text("{}")
    assert_bad_input(gaitopt("export", d, "--format", "mjcf", "-o", tmp_path / "mine.xml"), "mine.xml")
    assert not list(tmp_path.glob("*.tmp*"))


def test_bad_input_exits_2(dirs, tmp_path):
    d = dirs["ok"]
    assert_bad_input(gaitopt("export", tmp_path / "nope"), "nope", "no such result directory")
    assert_bad_input(gaitopt("plot", tmp_path), "no result.json")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "result.json").write_text("{oops")
    assert_bad_input(gaitopt("animate", bad), "result.json", "not valid JSON")
    for args, frag in ((["--rate", "0"], "--rate"), (["--rate", "fast"], "--rate"), (["--cycles", "0"], "--cycles"),
                       (["--cycles", "1.5"], "--cycles"), (["--format", "xml"], "allowed: amp, full, hoap2, mjcf, motors, npz"),
                       (["--format", "npz", "--degrees"], "--degrees")):
        assert_bad_input(gaitopt("export", d, *args), frag)
    assert_bad_input(gaitopt("animate", d, "-o", tmp_path / "a.avi"), "a.avi", ".gif, .mp4")
    assert_bad_input(gaitopt("animate", d, "--view", "top"), "--view", "sagittal")
    assert_bad_input(gaitopt("plot", d, "-o", "/proc/gaitopt_plots"), "cannot write")
    assert not list(tmp_path.glob("*.avi"))


@pytest.mark.fast
def test_rows_cut_out_of_trajectory_csv_are_refused(dirs, tmp_path):
    """Without knots.npz, trajectory.csv with rows of a phase deleted was read as a coarser
    phase and replayed (verify judged a different gait); now exit-2 input naming the phase."""
    import shutil

    from gaitopt.errors import InputError
    d = tmp_path / "cut"
    shutil.copytree(dirs["ok"], d)
    (d / E.KNOTS_FILE).unlink()
    assert E.load_result(d).success  # the intact file alone reads
    lines = (d / "trajectory.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    first = next(i for i, ln in enumerate(lines) if not ln.startswith("#")) + 1  # after the column names
    (d / "trajectory.csv").write_text("".join(lines[:first + 2] + lines[first + 4:]), encoding="utf-8")
    with pytest.raises(InputError, match="knots") as err:
        E.load_result(d)
    assert err.value.field == "phase"
