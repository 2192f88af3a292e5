"""Cases bench/fuzz.py found ending in an internal error (exit 3), now bad input (exit 2, one
line): an output path the system refuses, settings whose bounds contradict the joint limits, an
animation slower than one frame per second, a problem record that is not a record."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "problems" / "biped7_static_walk.yaml"
SMALL = ["--set", "gait.phases.0.knots=4", "--set", "gait.phases.1.knots=2", "--print-level", "0"]


def gaitopt(*args):
    return subprocess.run([sys.executable, "-m", "gaitopt.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def assert_bad_input(proc, fragment):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr and len(lines[0]) <= 400, lines
    assert fragment in lines[0], lines


@pytest.fixture(scope="module")
def result_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("fuzzreg") / "res"
    proc = gaitopt("solve", STATIC, "-o", out, *SMALL)
    assert proc.returncode == 0, proc.stderr
    return out


def test_output_path_too_long(tmp_path):
    assert_bad_input(gaitopt("solve", STATIC, "-o", tmp_path / ("o" * 300), *SMALL), "cannot write")


def test_contradictory_bounds_are_refused_before_ipopt(tmp_path):
    proc = gaitopt("solve", ROOT / "problems" / "solo12_trot.yaml", "-o", tmp_path / "out",
                   "--set", "constraints.knee_margin=3", "--print-level", "0")
    assert_bad_input(proc, "leave no room")


def test_animation_below_one_frame_per_second(result_dir, tmp_path):
    assert_bad_input(gaitopt("animate", result_dir, "--fps", "0.001", "-o", tmp_path / "a.gif"), "--fps")


def test_malformed_problem_record(result_dir, tmp_path):
    bad = tmp_path / "res"
    shutil.copytree(result_dir, bad)
    info = json.loads((bad / "result.json").read_text())
    info["problem"]["constraints"] = ["not", "a", "mapping"]
    (bad / "result.json").write_text(json.dumps(info))
    assert_bad_input(gaitopt("export", bad, "--format", "npz", "-o", tmp_path / "x.npz"), "problem")


def test_an_nlp_too_large_for_memory_is_refused_before_building(tmp_path):
    proc = gaitopt("solve", ROOT / "problems" / "hexapod_ripple.yaml", "-o", tmp_path / "out",
                   "--set", "gait.knots=800", "--print-level", "0")
    assert_bad_input(proc, "variables")
