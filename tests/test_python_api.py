"""The Python API a notebook user calls: `Problem.replace` with constraint and solver changes,
and `gaitopt.solve`'s arguments checked, each wrong value an InputError naming its field
(a user's notebook trial, 2026-11-25: these reached the transcription or IPOPT and failed there
with an AttributeError or CasADi's "type mismatch", or solved a negative clearance). No solving."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import gaitopt as go
from gaitopt.problem import shipped_problems

pytestmark = pytest.mark.fast

STATIC = shipped_problems()[0].parent / "biped7_static_walk.yaml"


@pytest.fixture(scope="module")
def walk():
    return go.load_problem(STATIC)


def test_constraint_changes_merge_into_the_problem(walk):
    new = walk.replace(constraints={"clearance": 0.03, "friction": {"mu": 0.5}}, solver={"max_iter": 7})
    assert new.constraints == dataclasses.replace(walk.constraints, clearance=0.03, friction=0.5)
    assert new.solver == dataclasses.replace(walk.solver, max_iter=7)
    assert new.source == walk.source and new.phases == walk.phases
    # the same as the problem file with the keys overridden
    assert new.constraints == go.load_problem(STATIC, {"constraints.clearance": 0.03,
                                                       "constraints.friction.mu": 0.5}).constraints


@pytest.mark.parametrize("path", shipped_problems(), ids=lambda p: p.stem)
def test_no_change_is_the_same_problem(path):
    p = go.load_problem(path)
    assert p.replace(constraints={}, solver={}) == p
    assert p.replace(constraints=p.constraints, solver=p.solver) == p


@pytest.mark.parametrize("changes, field", [
    ({"constraints": {"clearance": -1}}, "constraints.clearance"),
    ({"constraints": {"clearence": 0.03}}, "constraints.clearence"),
    ({"constraints": {"friction": 0.5}}, "constraints.friction"),
    ({"constraints": {"touchdown": "soft landing"}}, "constraints.touchdown"),
    ({"constraints": [("clearance", 0.03)]}, "constraints"),
    ({"solver": {"print_level": "0"}}, "solver.print_level"),
    ({"solver": {"max_iter": -5}}, "solver.max_iter"),
    ({"solver": "ipopt"}, "solver"),
    ({"cost": ["joule_loss", "abs_power"]}, "cost"),
    # whole file keys (a raw dict reached the solve: KeyError 'height_map', AttributeError)
    ({"terrain": {"height_map": {}}}, "terrain.height_map.spacing"),
    ({"terrain": {"stairs": {"tread": 0.1}}}, "terrain.stairs.tread"),
    ({"terrain": "flat"}, "terrain"),
    ({"design": {"gear_ratio": {"knees": 1}}}, "design.gear_ratio.knees"),
    ({"design": "gears"}, "design"),
])
def test_bad_changes_name_their_field(walk, changes, field):
    with pytest.raises(go.InputError) as err:
        walk.replace(**changes)
    assert err.value.field == field


def test_terrain_and_design_are_decoded_as_a_files(walk):
    """terrain and design given as a problem file writes them are that file's problem; None
    is the plane."""
    import math

    slope = walk.replace(terrain={"slope_deg": 5})
    assert math.isclose(slope.slope, math.radians(5)) and slope.terrain is None
    assert slope == go.load_problem(STATIC, {"terrain": {"slope_deg": 5}})
    assert slope.replace(terrain=None).slope == 0.0
    stairs = {"stairs": {"rise": 0.02, "run": 0.13, "count": 10, "start_x": -0.52}}
    assert walk.replace(terrain=stairs).terrain == go.load_problem(STATIC, {"terrain": stairs}).terrain
    design = {"gear_ratio": {"knees": {"joints": ["left_knee", "right_knee"], "min": 5, "max": 20}}}
    assert walk.replace(design=design).design == go.load_problem(STATIC, {"design": design}).design


def test_a_hand_built_section_is_checked(walk):
    with pytest.raises(go.InputError) as err:
        walk.replace(constraints=dataclasses.replace(walk.constraints, clearance=-0.02))
    assert err.value.field == "constraints.clearance"
    with pytest.raises(go.InputError) as err:
        walk.replace(solver=dataclasses.replace(walk.solver, print_level="0"))
    assert err.value.field == "solver.print_level"


class _NotAConstraint:
    term = "x"


@pytest.mark.parametrize("kwargs, field", [
    ({"print_level": "0"}, "print_level"),
    ({"print_level": 13}, "print_level"),
    ({"warm_start": "/tmp/some_outdir"}, "warm_start"),
    ({"robot": "biped7"}, "robot"),
    ({"constraints": _NotAConstraint()}, "constraints"),
    ({"constraints": [_NotAConstraint()]}, "constraints"),
])
def test_solve_names_a_wrong_argument(walk, kwargs, field):
    with pytest.raises(go.InputError) as err:
        go.solve(walk, **kwargs)
    assert err.value.field == field


def test_solve_names_a_wrong_problem_and_x0(walk):
    with pytest.raises(go.InputError) as err:
        go.solve({"robot": "biped7"})
    assert err.value.field == "problem"
    with pytest.raises(go.InputError) as err:
        go.solve(walk.scaled_knots(0.5), x0=np.zeros(3), print_level=0)
    assert err.value.field == "x0" and "variables" in err.value.message


@pytest.mark.parametrize("costs, field", [
    ({"joule_loss": lambda ctx: 0}, "costs"),          # a built-in term's name
    ({"mine": "joule_loss"}, "costs.mine"),            # not a function
    ({"mine": (lambda ctx: 0, -1.0)}, "costs.mine"),   # weight not positive
    ([lambda ctx: 0], "costs"),
])
def test_solve_names_a_wrong_user_cost(walk, costs, field):
    with pytest.raises(go.InputError) as err:
        go.solve(walk.scaled_knots(0.5), costs=costs, print_level=0)
    assert err.value.field == field


def test_solve_refuses_another_robot(walk):
    # a user's quad8 walk solved on solo12 (the same feet names), recorded as quad8's
    trot = go.load_problem(STATIC.parent / "solo12_trot.yaml")
    with pytest.raises(go.InputError) as err:
        go.solve(trot, robot=go.load_robot("anymal_c"), print_level=0)
    assert err.value.field == "robot" and "solo12" in err.value.message


@pytest.mark.parametrize("factor", ["2", float("nan"), 0, -1.0, float("inf"), None])
def test_scaled_knots_names_a_bad_factor(walk, factor):
    with pytest.raises(go.InputError) as err:
        walk.scaled_knots(factor)
    assert err.value.field == "scaled_knots"


def test_scaled_knots_takes_numpy_numbers(walk):
    assert walk.scaled_knots(np.int64(2)) == walk.scaled_knots(2) == walk.scaled_knots(np.float64(2.0))


def test_overrides_as_one_string_are_named():
    with pytest.raises(go.InputError) as err:
        go.load_problem(STATIC, "speed=0.3")
    assert "list of KEY=VALUE" in err.value.message
    assert go.load_problem(STATIC, ["speed=0.3"]).speed.guess == 0.3


def test_lazy_names_are_listed_and_loaded():
    """`dir(go)` (Jupyter's completion of `go.`) lists the names loaded on first use, and each of
    them, `go.verify` and `go.study` as the docs write them, loads (they raised AttributeError)."""
    import subprocess
    import sys
    code = ("import gaitopt as go; names = ('solve', 'compile_derivatives', 'export', 'plot', 'animate', "
            "'quantities', 'verify', 'study'); missing = [n for n in names if n not in dir(go)]; "
            "assert not missing, missing; assert callable(go.verify.replay) and callable(go.study.case_metrics); "
            "assert callable(go.solve); print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_summary_names_a_robot_folder_gaitopt_does_not_ship(tmp_path):
    """A problem file's own folder is looked in before gaitopt's robots/: a copy there is used,
    and the summary names its folder (it said only "robot biped7"); a shipped robot, its name."""
    import shutil

    root = Path(__file__).resolve().parent.parent
    shutil.copytree(root / "robots" / "biped7", tmp_path / "robots" / "biped7")
    (tmp_path / "problems").mkdir()
    problem_file = tmp_path / "problems" / "walk.yaml"
    shutil.copy(root / "problems" / "biped7_static_walk.yaml", problem_file)
    copy = go.solve(go.load_problem(problem_file).scaled_knots(0.5), print_level=0)
    assert f"robot biped7 ({tmp_path / 'robots' / 'biped7'})" in copy.summary().replace(str(tmp_path.resolve()), str(tmp_path))
    shipped = go.solve(go.load_problem(root / "problems" / "biped7_static_walk.yaml").scaled_knots(0.5), print_level=0)
    assert "robot biped7, cost" in shipped.summary()
