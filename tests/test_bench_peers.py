"""bench/crocoddyl.py and bench/rabbit.py: the parts that do not time anything — the message
when Crocoddyl's environment is missing, the matched problem's numbers, and the RABBIT
single-support variant the bench builds from the shipped file."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import gaitopt as go

pytestmark = pytest.mark.fast  # cheap: the whole file is in the fast subset

ROOT = Path(__file__).resolve().parent.parent


def _load(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_crocoddyl_missing_environment_is_a_clear_skip(tmp_path, capsys):
    bench = _load("crocoddyl")
    assert bench.run_crocoddyl(str(tmp_path / "no-python"), runs=1) is None
    out = capsys.readouterr().out
    assert "Crocoddyl skipped" in out and str(tmp_path / "no-python") in out


def test_anymal_trot_matches_crocoddyls_benchmark():
    """problems/anymal_c_trot.yaml has Crocoddyl's trot numbers: 0.01 s intervals, 25 swing
    knots and 2 support knots per step, stride = step length, clearance = step height."""
    bench = _load("crocoddyl")
    trot = bench.TROT
    p = go.load_problem(bench.PROBLEM)
    assert p.cycle == "half"
    knots = {ph.name: ph.knots for ph in p.phases}
    assert sorted(knots.values()) == [trot["supportKnots"], trot["stepKnots"]]
    period = 2 * (trot["supportKnots"] + trot["stepKnots"]) * trot["timeStep"]
    for ph in p.phases:
        assert ph.duration.guess == pytest.approx(ph.knots * trot["timeStep"])
    assert p.speed.guess * period == pytest.approx(trot["stepLength"])
    assert p.constraints.clearance == pytest.approx(trot["stepHeight"])


def test_rabbit_single_support_variant():
    bench = _load("rabbit")
    p = go.load_problem(bench.PROBLEM, overrides=bench.CLASSIC)
    assert [ph.name for ph in p.phases] == ["single_support"]
    assert p.phases[0].knots == 25 and p.constraints.touchdown == "impact"
