"""A saved problem reloads equal to the one solved: result.json's `problem` (the record
`export.problem_record` writes) is read back by problem.py's own decoder
(`problem_from_record` → `problem_from_dict`), for every shipped problem and every schema
feature. And reading a result back does not import the solve stack.

One small solve for the module (the biped7 heel-toe walk with a base-height bound and a
gear-ratio design group, knots × 0.5), for the files `gaitopt solve -o` writes.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gaitopt as go
from gaitopt import export as E
from gaitopt.errors import InputError
from gaitopt.problem import load_problem, problem_from_record, shipped_problems

ROOT = Path(__file__).resolve().parent.parent
HEEL_TOE = ROOT / "problems" / "biped7_heel_toe_walk.yaml"
TROT = ROOT / "problems" / "solo12_trot.yaml"
KNEE_GEARS = {"knee": {"joints": ["left_knee", "right_knee"], "min": 20, "max": 300}}

# schema feature → (problem file, overrides as `--set` would give them)
FEATURES = {
    "base_height": (HEEL_TOE, {"constraints.base_height": {"min": 0.3, "max": 2.0, "guess": 0.9}}),
    "base_height_fixed": (HEEL_TOE, {"constraints.base_height": 0.8}),
    "footholds": (TROT, {"constraints.footholds": {"FL": [0.2, 0.15], "HR": [-0.2, -0.15]}}),
    "design": (HEEL_TOE, {"design": {"gear_ratio": {**KNEE_GEARS, "left_hip": {"min": 20, "max": 500},
                                                    "right_hip": {"min": 30, "max": 400, "guess": 50}}}}),
    "torque_rate": (HEEL_TOE, {"constraints.torque_rate": 800.0}),
    "soft_touchdown": (HEEL_TOE, {"constraints.touchdown": "soft"}),
    "full_cycle": (HEEL_TOE, {"gait.cycle": "full"}),
    "hermite_simpson": (HEEL_TOE, {"transcription": "hermite_simpson"}),
    "weighted_cost": (HEEL_TOE, {"cost": {"joule_loss": 1.0, "torque_rate_squared": 0.01, "abs_power": 0.5}}),
    "solver_options": (HEEL_TOE, {"solver.options": {"mu_strategy": "adaptive", "acceptable_tol": "1e-4",
                                                     "warm_start_init_point": True},
                                  "solver.max_iter": 300, "solver.linear_solver": "spral"}),
    "cone_and_switches": (HEEL_TOE, {"constraints.friction": {"mu": 0.5, "cone": "cone"},
                                     "constraints.power_limit": True, "constraints.joint_limits": False}),
    "stride_and_slope": (HEEL_TOE, {"speed": None, "stride": {"min": 0.2, "max": 0.5}, "terrain.slope_deg": 7.0}),
    "step_length": (HEEL_TOE, {"speed": None, "step_length": 0.25}),
}


def _saved_and_reloaded(problem, file="result.json"):
    """The problem through result.json: the record `gaitopt solve -o` writes, as JSON text
    (`write_result_json` dumps with default=str), and read back."""
    record = json.loads(json.dumps(E.problem_record(problem), indent=2, default=str))
    return problem_from_record(record, file)


@pytest.mark.parametrize("path", shipped_problems(), ids=lambda p: p.stem)
def test_shipped_problem_round_trip(path):
    problem = load_problem(path)
    assert _saved_and_reloaded(problem) == problem


@pytest.mark.parametrize("feature", list(FEATURES))
def test_schema_feature_round_trip(feature):
    path, overrides = FEATURES[feature]
    problem = load_problem(path, overrides)
    back = _saved_and_reloaded(problem)
    assert back == problem
    assert back.constraints == problem.constraints and back.design == problem.design  # the fields that broke


def test_features_are_what_they_say():
    """The overrides above do change the feature they name (a typo would test defaults)."""
    p = {k: load_problem(path, o) for k, (path, o) in FEATURES.items()}
    assert p["base_height"].constraints.base_height.max == 2.0
    assert p["footholds"].constraints.footholds == {"FL": (0.2, 0.15), "HR": (-0.2, -0.15)}
    assert [g.name for g in p["design"].design] == ["knee", "left_hip", "right_hip"]
    assert p["torque_rate"].constraints.torque_rate == 800.0
    assert p["soft_touchdown"].constraints.touchdown == "soft"
    assert p["full_cycle"].cycle == "full"
    assert p["hermite_simpson"].transcription == "hermite_simpson"
    assert p["solver_options"].solver.options == {"mu_strategy": "adaptive", "acceptable_tol": 1e-4,
                                                  "warm_start_init_point": "yes"}
    assert p["step_length"].stride.min == 0.5


def test_problems_made_in_code_round_trip():
    """A problem changed with Problem.replace (not from a file) reloads equal too."""
    base = load_problem(HEEL_TOE)
    problem = base.replace(cost={"torque_squared": 2.0}, slope=0.05, name="made in code", description="")
    assert _saved_and_reloaded(problem) == problem


def test_record_of_an_older_gaitopt_takes_defaults():
    """result.json written before a schema key existed: the missing keys take their defaults."""
    problem = load_problem(HEEL_TOE)
    record = json.loads(json.dumps(E.problem_record(problem), default=str))
    for key in ("base_height", "footholds", "torque_rate", "cone"):
        del record["constraints"][key]
    del record["design"], record["slope_deg"], record["solver"]["codegen"]
    assert problem_from_record(record, "result.json") == problem


def test_malformed_record_names_result_json():
    record = E.problem_record(load_problem(HEEL_TOE))
    bad = dict(record, phases=[{"name": "x"}])
    with pytest.raises(InputError, match=r"^out/result.json: problem: malformed problem record"):
        problem_from_record(bad, "out/result.json")
    bad = dict(record, constraints=dict(record["constraints"], touchdown="bounce"))
    with pytest.raises(InputError, match=r"problem: malformed problem record \(constraints.touchdown"):
        problem_from_record(bad, "out/result.json")


# ------------------------------------------------------------------- through the files


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """(the Result of a small solve with base_height and design, its RESULT_DIR)."""
    problem = load_problem(HEEL_TOE, {"constraints.base_height": {"min": 0.3, "max": 2.0},
                                      "design": {"gear_ratio": KNEE_GEARS}}).scaled_knots(0.5)
    result = go.solve(problem, print_level=0)
    d = tmp_path_factory.mktemp("saved")
    E.save(result, d)
    return result, d


def test_result_json_holds_the_problem_record(saved):
    result, d = saved
    info = json.loads((d / "result.json").read_text(encoding="utf-8"))
    assert info["problem"] == json.loads(json.dumps(E.problem_record(result.problem), default=str))
    back = E.load_result(d)
    assert back.problem == result.problem
    assert back.problem.constraints.base_height == result.problem.constraints.base_height
    assert back.problem.design == result.problem.design


SOLVE_STACK = ("gaitopt.transcription", "gaitopt.solver", "gaitopt.guess", "gaitopt.gait")


def test_reading_a_result_does_not_import_the_solve_stack(saved):
    """Loading, exporting and plotting a saved result import neither the transcription nor
    IPOPT's driver nor the initial guess (in a fresh interpreter)."""
    _, d = saved
    code = (f"import sys, gaitopt.export as E, gaitopt.plot as P\n"
            f"r = E.load_result({str(d)!r})\n"
            f"E.sample_table(r, 100.0)\n"
            f"P.plot_all(r, {str(d / 'plots')!r})\n"
            f"print(sorted(m for m in {SOLVE_STACK!r} if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "MPLBACKEND": "Agg"})
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_the_facade_still_solves():
    """`gaitopt.solve` is there although the facade imports the solve stack only on use."""
    assert go.solve is importlib.import_module("gaitopt.gait").solve
    assert go.__version__ == importlib.import_module("gaitopt.version").__version__
