"""The return pass of `warm_start: both` (gaitopt.study_return, docs/studies.md "Return pass"):
a case whose forward solve ended worse is replaced by its re-solve from the neighbour above,
rows and folders stay one per case, a resumed study does not redo finished return cases, and
`warm_start: true` writes the rows it wrote before."""
from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import gaitopt as go
import gaitopt.study as study_mod
import gaitopt.study_return as ret
from gaitopt.errors import InputError
from gaitopt.study import read_results, run_study, study_from_dict

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = ROOT / "problems" / "biped7_heel_toe_walk.yaml"
LIMITS_OFF = {"constraints.effort_limits": False, "constraints.velocity_limits": False}
SPEEDS = [0.3, 0.35, 0.4]
FORWARD = ("case", "success", "status", "cost", "iterations", "warm_from", "energy_per_m", "gear_ratios")


def _study(warm_start, speeds=SPEEDS):
    return study_from_dict({"problem": str(PROBLEM), "overrides": LIMITS_OFF, "scale_knots": 0.5,
                            "warm_start": warm_start, "parameters": {"speed": list(speeds)}}, "inline")


def _cold_solves_high_clearance(monkeypatch):
    """The study's cold solves (its first case) get a 6 cm swing clearance instead of 2 cm: a
    gait feasible for the case's own problem (a higher foot path) at a higher cost, from which
    the forward pass warm-starts the rest. Returns the list of (speed, warm) solves made."""
    real, calls = study_mod.solve, []

    def solve(problem, **kw):
        calls.append((problem.speed.min, kw.get("warm_start") is not None))
        if kw.get("warm_start") is None:
            problem = problem.replace(constraints={"clearance": 0.06})
        return real(problem, **kw)

    monkeypatch.setattr(study_mod, "solve", solve)
    return calls


def test_the_return_pass_replaces_a_worse_case_with_its_re_solve_from_above(tmp_path, monkeypatch):
    calls = _cold_solves_high_clearance(monkeypatch)
    out = tmp_path / "o"
    bar = io.StringIO()
    rows = run_study(_study("both"), out, executor=None, progress=bar)
    assert [r["case"] for r in rows] == ["speed=0.3", "speed=0.35", "speed=0.4"]
    assert len(read_results(out / "results.csv")) == 3  # one row per case after both passes
    first = rows[0]
    # the forward row of speed=0.3 was the 6 cm gait; the return pass started it from speed=0.35
    assert first["return_pass"] == "better" and first["warm_from"] == "speed=0.35" and first["success"]
    assert first["cost"] < first["discarded_cost"] * (1 - 1e-3)
    # ... and found the 2 cm problem's own optimum: a cold solve of it, unpatched, agrees
    monkeypatch.undo()
    problem = go.load_problem(PROBLEM, {**LIMITS_OFF, "speed": 0.3}).scaled_knots(0.5)
    assert first["cost"] == pytest.approx(go.solve(problem, print_level=0).cost, rel=1e-5)
    # the case's folder is the kept solve's, and nothing is left beside it
    saved = json.loads((out / "cases" / "speed=0.3" / "result.json").read_text(encoding="utf-8"))
    assert saved["cost"] == pytest.approx(first["cost"], rel=1e-12)
    assert sorted(p.name for p in out.iterdir()) == ["cases", "results.csv", "study.json"]
    assert sorted(p.name for p in (out / "cases").iterdir()) == [r["case"] for r in rows]
    # the top case has no neighbour above; the middle one re-solved to the same optimum
    assert [r["return_pass"] for r in rows[1:]] == ["kept", "none"]
    assert rows[1]["discarded_cost"] == pytest.approx(rows[1]["cost"], rel=1e-5)
    # re-solves (warm) of 0.35 from 0.4 and of 0.3 from 0.35, after the forward pass
    assert calls == [(0.3, False), (0.35, True), (0.4, True), (0.35, True), (0.3, True)]
    assert "return pass [" in bar.getvalue() and "3/3 cases (1 better, 1 kept, 0 failed, 1 none, 0 resumed)" in bar.getvalue()


def test_warm_start_true_writes_the_rows_it_wrote_before(tmp_path):
    """`true` runs no return pass (its return columns empty); with one optimum per case, `both`
    keeps every forward row as it was, only its return columns filled."""
    run_study(_study(True), tmp_path / "t", executor=None, progress=False)
    run_study(_study("both"), tmp_path / "b", executor=None, progress=False)
    one, two = (read_results(tmp_path / d / "results.csv") for d in "tb")
    assert all(r[c] == "" for r in one for c in ret.RETURN_COLUMNS)
    assert [r["case"] for r in one] == [r["case"] for r in two]
    for a, b in zip(one, two):
        assert {c: a[c] for c in FORWARD if c != "cost"} == {c: b[c] for c in FORWARD if c != "cost"}
        assert a["cost"] == pytest.approx(b["cost"], rel=1e-12)
    assert [r["return_pass"] for r in two] == ["kept", "kept", "none"]


def test_a_resumed_return_pass_does_not_redo_finished_cases(tmp_path, monkeypatch):
    out = tmp_path / "o"
    speeds = [0.3, 0.35, 0.4, 0.45]
    real_commit, committed = ret._commit, []

    def commit_then_stop(case, new, table, outdir):
        committed.append(case.key)
        real_commit(case, new, table, outdir)
        raise KeyboardInterrupt  # Ctrl-C after the first return case is recorded

    monkeypatch.setattr(ret, "_commit", commit_then_stop)
    with pytest.raises(KeyboardInterrupt):
        run_study(_study("both", speeds), out, executor=None, progress=False)
    assert committed == ["speed=0.4"]   # speed=0.45 has nothing above it: "none", without a solve
    assert {r["case"]: r["return_pass"] for r in read_results(out / "results.csv")} == {
        "speed=0.3": "", "speed=0.35": "", "speed=0.4": "kept", "speed=0.45": "none"}
    monkeypatch.setattr(ret, "_commit", real_commit)
    calls = _cold_solves_high_clearance(monkeypatch)  # counts the solves; none is cold now
    rows = run_study(_study("both", speeds), out, executor=None, progress=False)
    assert calls == [(0.35, True), (0.3, True)]
    assert [r["return_pass"] for r in rows] == ["kept", "kept", "kept", "none"]
    assert len(read_results(out / "results.csv")) == 4


def test_a_warm_start_true_outdir_of_an_older_gaitopt_resumes_as_both(tmp_path, monkeypatch):
    """Switching a finished `true` study to `both` runs the return pass alone on its rows, also
    in a results.csv without the return columns (before 2026-11-25): they are appended, empty,
    then filled; `both` back to `true` is refused (its rows may hold return-pass solves)."""
    out = tmp_path / "o"
    run_study(_study(True), out, executor=None, progress=False)
    table = out / "results.csv"
    with open(table, newline="", encoding="utf-8") as fh:
        header, *raw = list(csv.reader(fh))
    n = header.index(ret.RETURN_COLUMNS[0])  # then the per-joint energies (appended after them)
    assert tuple(header[n:n + len(ret.RETURN_COLUMNS)]) == ret.RETURN_COLUMNS
    with open(table, "w", newline="", encoding="utf-8") as fh:   # as an older gaitopt wrote it
        csv.writer(fh).writerows([r[:n] for r in [header, *raw]])
    calls = _cold_solves_high_clearance(monkeypatch)
    rows = run_study(_study("both"), out, executor=None, progress=False)
    assert calls == [(0.35, True), (0.3, True)]     # the return pass only
    assert [r["return_pass"] for r in rows] == ["kept", "kept", "none"]
    with open(table, newline="", encoding="utf-8") as fh:
        written = list(csv.reader(fh))
    assert written[0] == header and [r[:n] for r in written[1:]] == [r[:n] for r in raw]
    with pytest.raises(InputError, match="warm_start"):
        run_study(_study(True), out, executor=None, progress=False)


def test_parallel_return_pass(tmp_path):
    """-j 2: the return pass's waves run on the process pool like the forward ones."""
    rows = run_study(_study("both"), tmp_path / "o", executor="process", max_workers=2, progress=False)
    assert [r["return_pass"] for r in rows] == ["kept", "kept", "none"] and all(r["success"] for r in rows)
    assert not (tmp_path / "o" / ret.SCRATCH).exists()


class _FakeTable:
    def __init__(self, done):
        self.done = done


@pytest.mark.fast
@pytest.mark.parametrize("moved_old", [False, True])
def test_recover_finishes_a_committed_swap_and_drops_an_uncommitted_one(tmp_path, moved_old):
    """A kill after results.csv named the re-solve (row `better`) but before its folder was
    moved in: the resumed study moves it in (whether or not the old folder had been moved
    aside); a re-solve whose row was not rewritten is dropped."""
    for key, text in (("a", "old a"), ("b", "old b")):
        (tmp_path / "cases" / key).mkdir(parents=True)
        (tmp_path / "cases" / key / "result.json").write_text(text)
        (tmp_path / ret.SCRATCH / "cases" / key).mkdir(parents=True)
        (tmp_path / ret.SCRATCH / "cases" / key / "result.json").write_text("new " + key)
    if moved_old:
        (tmp_path / ret.SCRATCH / "old").mkdir()
        (tmp_path / "cases" / "a").rename(tmp_path / ret.SCRATCH / "old" / "a")
    ret.recover(_FakeTable({"a": {"return_pass": "better"}, "b": {"return_pass": ""}}), tmp_path)
    assert (tmp_path / "cases" / "a" / "result.json").read_text() == "new a"
    assert (tmp_path / "cases" / "b" / "result.json").read_text() == "old b"
    assert not (tmp_path / ret.SCRATCH).exists()


@pytest.mark.fast
def test_the_return_pass_progress_counts_each_outcome_as_results_csv_names_it(tmp_path, monkeypatch):
    """The progress line counts better, kept, failed and none apart, as the rows' return_pass
    says them (a case without a neighbour above, or whose re-solve failed, is not `kept`).
    The re-solves are stubbed: rows made up, nothing solved."""
    columns = ["case", "success", "status", "cost", "iterations", "solve_time_s", "warm_from", *ret.RETURN_COLUMNS]
    table = study_mod._Table(tmp_path / "results.csv", columns, ret.RETURN_COLUMNS)
    cases = [study_mod.Case(f"v={i}", (i,), {"v": i}, None, {}) for i in range(4)]
    for i, cost in enumerate((10.0, 5.0, 4.0, 3.0)):
        table.append({"case": f"v={i}", "success": True, "status": "ok", "cost": cost, "iterations": 9,
                      "solve_time_s": 0.1, "warm_from": f"v={i - 1}" if i else ""})
    resolved = {"v=0": (True, 4.0), "v=1": (True, 5.0), "v=2": (False, 7.0)}  # better, kept, failed

    def run_waves(wave, executor, finish, warm_dir, outdir, waves=None):
        for case in wave:
            ok, cost = resolved[case.key]
            finish(case, {"case": case.key, "success": ok, "status": "ok" if ok else "failed", "cost": cost,
                          "iterations": 3, "solve_time_s": 0.01, "warm_from": warm_dir(case)})

    monkeypatch.setattr(study_mod, "_run_waves", run_waves)
    bar = io.StringIO()
    ret.return_pass(cases, table, tmp_path, None, bar, None, type("Interrupt", (), {"hit": False}))
    rows = read_results(tmp_path)
    assert [r["return_pass"] for r in rows] == ["better", "kept", "failed", "none"]
    assert "4/4 cases (1 better, 1 kept, 1 failed, 1 none, 0 resumed)" in bar.getvalue()


@pytest.mark.fast
def test_warm_start_values(tmp_path):
    assert _study("both").warm_start == "both" and _study(False).warm_start is False
    with pytest.raises(InputError, match="warm_start.*true, false, both"):
        _study("return")


def test_ctrl_c_in_the_return_pass_exits_130_and_resumes(tmp_path):
    """`gaitopt sweep` with `warm_start: both`: stderr names the return pass; Ctrl-C there
    stops after the running case (exit 130) with one row per case, and the run resumes."""
    study = tmp_path / "s.yaml"
    study.write_text(yaml.safe_dump({"problem": str(PROBLEM), "overrides": LIMITS_OFF, "scale_knots": 0.5,
                                     "warm_start": "both", "parameters": {"speed": [0.3, 0.35, 0.4, 0.45]}}))
    out = tmp_path / "o"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "gaitopt.cli", "sweep", str(study), "-o", str(out), "-j", "1"]
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in p.stderr:  # universal newlines: each "\r" update of the bar is a line
        if "return pass [" in line and "1/4 cases" in line:
            break
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err[-1500:]
    rows = read_results(out / "results.csv")
    assert len(rows) == 4 and "Traceback" not in err
    visited = [r["case"] for r in rows if r["return_pass"]]
    assert 1 <= len(visited) < 4
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-1500:]
    assert "4/4 cases (0 solved, 0 failed, 4 resumed)" in again.stderr   # no forward case solved again
    assert "return pass [" in again.stderr and f"(0 better, 0 kept, 0 failed, 0 none, {len(visited)} resumed)" in again.stderr
    assert all(r["return_pass"] for r in read_results(out / "results.csv"))


def test_read_results_takes_the_outdir_and_names_a_missing_table(tmp_path):
    """read_results(OUTDIR) reads OUTDIR/results.csv; a folder or file without one is an
    InputError (it returned [] silently, as if the study had no rows)."""
    (tmp_path / "results.csv").write_text("case,success\nspeed=0.3,True\n")
    assert read_results(tmp_path) == read_results(tmp_path / "results.csv") == [{"case": "speed=0.3", "success": True}]
    with pytest.raises(go.InputError, match="no results.csv"):
        read_results(tmp_path / "missing")

