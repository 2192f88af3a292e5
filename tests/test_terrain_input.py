"""The problem file's `terrain` section as a new user writes it wrong: every mistake is one line
naming the file, the field and what is allowed (exit 2 from the CLI); a slope in radians typed
into slope_deg is warned about once; ground a periodic gait cannot repeat on (a single ledge) is
refused before solving in the user's terms. From a new user's trial (2026-11-25)."""
from __future__ import annotations

import warnings

import pytest

import gaitopt as go
from gaitopt.errors import InputError, InputWarning
from gaitopt.problem import problem_from_dict, problem_from_record
from gaitopt.robot import load_robot
from gaitopt.terrain_io import check_terrain

BASE = {"robot": "solo12", "gait": {"cycle": "full", "phases": [
    {"name": "a", "contacts": {"FL": "stance", "FR": "swing", "HL": "swing", "HR": "stance"}, "knots": 4,
     "duration": 0.22},
    {"name": "b", "contacts": {"FL": "swing", "FR": "stance", "HL": "stance", "HR": "swing"}, "knots": 4,
     "duration": 0.22}]}, "stride": 0.13}
STAIR = {"rise": 0.03, "run": 0.13, "count": 3}
GRID = [[0, 0], [0, 0]]


def _error(terrain) -> InputError:
    with pytest.raises(InputError) as err:
        problem_from_dict({**BASE, "terrain": terrain}, "user.yaml")
    text = str(err.value)
    assert "\n" not in text and text.startswith("user.yaml: ") and "(allowed: " in text, text
    return err.value


@pytest.mark.fast
@pytest.mark.parametrize("terrain, field, says, allowed", [
    # a height map read from a file: not supported, and said so (it was "spacing: missing required key")
    ({"height_map": {"file": "map.csv"}}, "terrain.height_map.file", "no file is read", "heights (rows"),
    ({"height_map": "map.csv"}, "terrain.height_map", "expected a mapping", "spacing ([dx, dy] m)"),
    ({"height_map": None}, "terrain.height_map", "expected a mapping", "heights (rows"),
    ({"height_map": {"spacing": [0.1, 0.1]}}, "terrain.height_map.heights", "missing required key", "spacing ("),
    ({"height_map": {"spacing": [0.1, 0.1], "heights": GRID, "orign": [0, 0]}}, "terrain.height_map.orign",
     "unknown key", "origin ("),
    # an empty heights list (it was "got shape (0,)"), and values that are not numbers
    ({"height_map": {"spacing": [0.1, 0.1], "heights": []}}, "terrain.height_map.heights", "at least 2 rows",
     "2 to 64 rows"),
    ({"height_map": {"spacing": [0.1, 0.1], "heights": [[], []]}}, "terrain.height_map.heights", "at least 2 rows",
     "2 to 64 rows"),
    ({"height_map": {"spacing": [0.1, 0.1], "heights": [0, 0, 0]}}, "terrain.height_map.heights",
     "row 0 is not a list", "2 to 64 rows"),
    ({"height_map": {"spacing": [0.1, 0.1], "heights": [[0, True], [0, 0]]}}, "terrain.height_map.heights",
     "row 0, column 1: expected a number, got true", "2 to 64 rows"),
    ({"height_map": {"spacing": [0.1, 0.1], "heights": [[0, "0.1"], [0, 0]]}}, "terrain.height_map.heights",
     "without quotes", "2 to 64 rows"),
    ({"height_map": {"spacing": [0.1, 0.1], "heights": [[0, 0, 0], [0, 0]]}}, "terrain.height_map.heights",
     "unequal lengths [2, 3]", "equally many"),
    ({"height_map": {"spacing": [0.1, 0.1], "heights": "[[0, 0], [0, 0]]"}}, "terrain.height_map.heights",
     "expected a list of rows", "2 to 64 rows"),
    ({"height_map": {"spacing": 0.1, "heights": GRID}}, "terrain.height_map.spacing", "list of 2", "[x, x]"),
    # stairs: an unknown key comes before a missing one (tread was reported as "run: missing")
    ({"stairs": {"tread": 0.13, "rise": 0.03, "count": 3}}, "terrain.stairs.tread", "tread length is run", "run (m"),
    ({"stairs": {**STAIR, "start": 0.0}}, "terrain.stairs.start", "unknown key", "start_x (m, the first edge"),
    ({"stairs": {"rise": 0.03, "count": 3}}, "terrain.stairs.run", "missing required key", "run (m per step)"),
    ({"stairs": None}, "terrain.stairs", "expected a mapping", "rise (m per step"),
    ({"stairs": [0.03, 0.13, 3]}, "terrain.stairs", "expected a mapping", "count (steps)"),
    ({"stairs": {**STAIR, "count": 2.5}}, "terrain.stairs.count", "expected an integer", "an integer in [1, 200]"),
    ({"stairs": {**STAIR, "rise": "3 cm"}}, "terrain.stairs.rise", "expected a number", "[-0.5, 0.5]"),
    ({"stairs": {**STAIR, "run": 130}}, "terrain.stairs.run", "must be <= 2", "[0.02, 2]"),
    # steps
    ({"steps": []}, "terrain.steps", "at least one step edge", "{x: m, height: m}"),
    ({"steps": None}, "terrain.steps", "expected a list", "{x: m, height: m}"),
    ({"steps": {"x": 0.2, "height": 0.05}}, "terrain.steps", "expected a list", "{x: m, height: m}"),
    ({"steps": [[0.2, 0.05]]}, "terrain.steps[0]", "expected a mapping", "x (m, the edge)"),
    ({"steps": [{"x": 0.2, "h": 0.05}]}, "terrain.steps[0].h", "level is height", "height (m"),
    ({"steps": [{"x": 0.2}]}, "terrain.steps[0].height", "missing required key", "height (m"),
    # the section itself
    ({"slope": 10}, "terrain.slope", "slope_deg, in degrees", "slope_deg"),
    ({"slope_deg": "10"}, "terrain.slope_deg", "without quotes", "[-30, 30]"),
    ({"slope_deg": 45}, "terrain.slope_deg", "must be <= 30", "[-30, 30]"),
    ({"stairs": STAIR, "smooth": 0.01}, "terrain.smooth", "unknown key", "smoothing, "),
])
def test_each_terrain_mistake_names_file_field_and_allowed(terrain, field, says, allowed):
    err = _error(terrain)
    assert err.field == field, str(err)
    assert says in err.message, str(err)
    assert allowed in str(err).split("(allowed: ", 1)[1], str(err)


@pytest.mark.fast
def test_unknown_keys_list_the_closest_allowed_first():
    # InputError sorts a list of allowed names: the closest-first order must survive it
    assert str(_error({"stairs": STAIR, "smooth": 0.01})).split("(allowed: ")[1].startswith("smoothing")
    assert str(_error({"stairs": {**STAIR, "star_x": 0}})).split("(allowed: ")[1].startswith("start_x")


def _slope_warnings(value):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        problem = problem_from_dict({**BASE, "terrain": {"slope_deg": value}}, "user.yaml")
    return problem, [w for w in caught if issubclass(w.category, InputWarning)]


@pytest.mark.fast
def test_a_slope_in_radians_typed_as_degrees_is_warned_once():
    problem, caught = _slope_warnings(0.1745)
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "user.yaml" in text and "terrain.slope_deg" in text and "slope_deg: 9.998" in text
    assert problem.slope == pytest.approx(0.1745 * 3.141592653589793 / 180)  # read as given: in degrees
    for value in (0, 10, -5, 1.0):  # degrees beyond a radian's range of allowed slopes: no warning
        assert not _slope_warnings(value)[1], value
    # reading the saved problem back (result.json) does not warn again
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        problem_from_record(problem.to_dict())
    assert not [w for w in again if issubclass(w.category, InputWarning)]


@pytest.mark.fast
@pytest.mark.parametrize("steps", [
    [{"x": 0.2, "height": 0.05}, {"x": 0.6, "height": 0.0}],     # docs/terrain.md's example: a block
    [{"x": 0.1, "height": 0.05}],                                 # a single step up
])
def test_a_single_ledge_is_refused_in_the_users_terms(steps):
    problem = problem_from_dict({**BASE, "terrain": {"steps": steps}}, "user.yaml")
    with pytest.raises(InputError) as err:
        check_terrain(problem, load_robot("solo12"))
    text = str(err.value)
    assert err.value.field == "terrain.steps"
    assert "periodic gait needs height(x + 0.13) = height(x) + 0 m" in text
    assert "stair" not in err.value.message  # the message is about the user's steps, not stairs
    assert "a periodic gait cannot cross a single ledge or block" in text and "…" not in text
    # a real path is longer: the line is cut at its end, the reason still in it
    long = problem_from_dict({**BASE, "terrain": {"steps": steps}}, "/home/someone/gaits/problems/user_walk.yaml")
    with pytest.raises(InputError) as err:
        check_terrain(long, load_robot("solo12"))
    assert "a periodic gait cannot cross a single ledge or block" in str(err.value)


@pytest.mark.fast
def test_steps_that_repeat_with_the_stride_are_accepted():
    # a level path of blocks every stride: height(x + 0.13) = height(x) over the feet's path
    edges = [{"x": -0.6 + 0.13 * i + dx, "height": h} for i in range(14) for dx, h in ((0.0, 0.02), (0.065, 0.0))]
    problem = problem_from_dict({**BASE, "terrain": {"steps": edges}}, "user.yaml")
    check_terrain(problem, load_robot("solo12"))


@pytest.mark.fast
@pytest.mark.parametrize("terrain, says", [
    ("{height_map: {file: map.csv}}", "terrain.height_map.file: a height map's heights are written"),
    ("{stairs: {tread: 0.13, rise: 0.03, count: 10}}", "terrain.stairs.tread"),
    ("{steps: [{x: 0.2, height: 0.05}, {x: 0.6, height: 0.0}]}", "terrain.steps: the ground does not repeat"),
])
def test_cli_terrain_mistakes_exit_2_with_one_line(terrain, says, tmp_path, capsys):
    from gaitopt.cli import main
    path = tmp_path / "user.yaml"
    path.write_text(_problem_text(terrain), encoding="utf-8")
    code = main(["solve", str(path), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "user.yaml" in err and says in err, err


def test_cli_warns_about_slope_deg_in_radians(tmp_path, capsys):
    from gaitopt.cli import main
    path = tmp_path / "user.yaml"
    path.write_text(_problem_text("{slope_deg: 0.1745}"), encoding="utf-8")
    main(["solve", str(path), "--set", "solver.max_iter=0", "--set", "gait.phases.0.knots=2", "--set",
          "gait.phases.1.knots=2", "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "slope_deg" in ln]
    assert len(lines) == 1 and lines[0].startswith("gaitopt: warning: ") and "user.yaml" in lines[0], err


def _problem_text(terrain: str) -> str:
    lines = open(go.__path__[0] + "/../problems/solo12_stairs.yaml", encoding="utf-8").read().splitlines()
    lines = [ln for ln in lines if not ln.startswith(("  stairs", "  smoothing"))]
    return "\n".join(ln if ln != "terrain:" else f"terrain: {terrain}" for ln in lines)


@pytest.mark.fast
def test_a_height_map_built_in_python_may_hold_numpy_rows():
    import numpy as np
    for heights in (np.zeros((3, 2)), [np.zeros(2, np.float32), np.ones(2)]):
        problem = problem_from_dict({**BASE, "terrain": {"height_map": {"spacing": [0.1, 0.1], "heights": heights}}},
                                    "user.yaml")
        assert np.asarray(problem.terrain["height_map"]["heights"]).shape == np.shape(heights)
