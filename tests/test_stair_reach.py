"""Stairs whose rise no foot can pass over are refused before solving (gaitopt.precheck,
`terrain.stairs.rise`): a swinging foot passes each edge above the upper tread, |rise|/2 above the
stair's mean slope, while the standing feet stay on treads and the base in its height and
attitude bands (docs/feasibility.md). A new user's rise of 0.4 m on a 0.12 m run for solo12 ran
1000 iterations (47 s) before IPOPT gave up. The check must refuse no stair a gait exists on: the
solved steep stairs below pass it, and the geometry it assumes holds on a solved gait."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import gaitopt as go
from gaitopt.errors import InputError
from gaitopt.legs import base_origin, base_rotation
from gaitopt.penetration import TOLERANCE, deepest_penetration
from gaitopt.precheck import _base_rotations, check_problem
from gaitopt.quantities import contact_points
from gaitopt.terrain_io import surface_of

ROOT = go.__path__[0] + "/../problems/"


def _stairs(name: str, rise: float, run: float, **extra):
    """A shipped problem on a stair of `rise` per `run` (the stair spanning the feet's path);
    solo12_stairs' stride becomes the run."""
    over = {"terrain": {"stairs": {"rise": rise, "run": run, "count": 16, "start_x": -1.0 - 0.5 * run},
                        "smoothing": 0.01}, "solver.print_level": 0, **extra}
    if name == "solo12_stairs":
        over["stride"] = run
    return go.load_problem(ROOT + f"{name}.yaml", over)


def _limit(err: InputError) -> float:
    return float(re.search(r"\|rise\| <= ([0-9.]+) m", str(err)).group(1))


@pytest.mark.fast
@pytest.mark.parametrize("name, rise, run, foot", [
    ("solo12_stairs", 0.4, 0.12, "FR"),     # the new user's stair: trot, full cycle
    ("solo12_stairs", -0.4, 0.12, "HL"),    # the same stair down
    ("titan8_crawl", 0.45, 0.12, "HL"),     # another robot and gait: crawl, half cycle
])
def test_a_rise_no_foot_can_pass_over_is_refused(name, rise, run, foot):
    problem = _stairs(name, rise, run)
    robot = go.load_robot(problem.robot)
    with pytest.raises(InputError) as err:
        check_problem(problem, robot)
    text = str(err.value)
    assert err.value.field == "terrain.stairs.rise" and "\n" not in text and "…" not in text
    assert f"foot {foot!r} cannot pass over an edge" in text and "above the mean slope" in text
    # the limit it names is the check's own: that rise passes, 5 % more does not
    limit = _limit(err.value)
    assert 0.1 < limit < abs(rise)
    check_problem(_stairs(name, np.sign(rise) * limit, run), robot)
    with pytest.raises(InputError):
        check_problem(_stairs(name, np.sign(rise) * limit * 1.05, run), robot)


@pytest.mark.fast
@pytest.mark.parametrize("name, rise, run", [
    # stairs gaits were solved on (below, and docs/feasibility.md), without passing through an edge
    ("solo12_stairs", 0.03, 0.13), ("solo12_stairs", 0.1, 0.13), ("titan8_crawl", 0.04, 0.12),
])
def test_stairs_a_gait_exists_on_pass(name, rise, run):
    problem = _stairs(name, rise, run)
    check_problem(problem, go.load_robot(problem.robot))


@pytest.mark.fast
def test_sampled_orientations_are_the_models():
    """The check's orientations are the robot's (legs.base_rotation, Z-Y-X) and span the bands."""
    problem = go.load_problem(ROOT + "solo12_stairs.yaml")
    robot = go.load_robot("solo12")
    R, step = _base_rotations(problem, robot)
    assert R.shape[1:] == (3, 3) and 0.0 < step < 0.05
    np.testing.assert_allclose(R @ R.transpose(0, 2, 1), np.broadcast_to(np.eye(3), R.shape), atol=1e-12)
    # one of the samples, rebuilt from its angles by base_rotation of a single q
    roll, pitch, yaw = np.arctan2(R[:, 2, 1], R[:, 2, 2]), np.arcsin(-R[:, 2, 0]), np.arctan2(R[:, 1, 0], R[:, 0, 0])
    q = robot.standing_q.copy()
    for c, v in (("base_roll", roll[1234]), ("base_pitch", pitch[1234]), ("base_yaw", yaw[1234])):
        q[robot.index(c)] = v
    np.testing.assert_allclose(base_rotation(robot, q), R[1234], atol=1e-12)
    # the bands: pitch centred on the stair's mean grade (nose up is negative pitch), roll and yaw ±0.25
    grade = np.arctan(0.03 / 0.13)
    assert pitch.min() == pytest.approx(-grade - 0.25) and pitch.max() == pytest.approx(-grade + 0.25)
    assert roll.min() == pytest.approx(-0.25) and yaw.max() == pytest.approx(0.25)


def _solve(problem):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the penetration warning: measured by the tests
        return go.solve(problem)


def test_the_checks_premises_hold_on_a_solved_steep_stair():
    """solo12's trot up 0.1 m per 0.13 m run (38°, allowed by the check) solves without passing
    through an edge; on its motion (sampled between the knots) every contact point over an edge
    is |rise|/2 above the stair's mean slope, and the check's height above that slope,
    h − n·(R p), is the contact point's (n = (tan θ, 0, −1), R = legs.base_rotation)."""
    result = _solve(_stairs("solo12_stairs", 0.1, 0.13, **{"solver.max_iter": 300}))
    assert result.success, result.status
    assert deepest_penetration(result).depth <= TOLERANCE
    robot, surface = result.robot, surface_of(result.problem)
    _, samples, _ = result.trajectory.sample_cycle(16)
    q = samples["q"]
    points = contact_points(robot, q)                                    # (T, nc, 3)
    above = points[..., 2] - surface.reference_height(points[..., 0], 0.0)
    base = np.array([base_origin(robot, qi) for qi in q])
    h = base[:, 2] - surface.reference_height(base[:, 0], 0.0)
    n = np.array([0.1 / 0.13, 0.0, -1.0])
    rel = points - base[:, None, :]                                      # R p in world components
    np.testing.assert_allclose(h[:, None] - rel @ n, above, atol=1e-9)
    edges = np.asarray(surface.edges)
    near = np.abs(points[..., 0, None] - edges).min(axis=-1) < 2e-3
    assert near.any()
    # the true edge is |rise|/2 above the slope; within 2 mm of it the slope is 1.5 mm higher,
    # and between knots the motion may dip by the penetration tolerance
    assert above[near].min() >= 0.05 - 2e-3 * 0.1 / 0.13 - TOLERANCE, above[near].min()


def test_another_robot_and_gait_solves_on_a_stair_the_check_allows():
    """titan8's crawl (half cycle, one foot swinging at a time) up 0.04 m per 0.12 m run."""
    result = _solve(_stairs("titan8_crawl", 0.04, 0.12, **{"solver.max_iter": 300}).scaled_knots(0.5))
    assert result.success, (result.status, result.max_violation)
    assert deepest_penetration(result).depth <= TOLERANCE


@pytest.mark.fast
def test_cli_refuses_the_new_users_stair_with_exit_2(tmp_path, capsys):
    from gaitopt.cli import main
    code = main(["solve", ROOT + "solo12_stairs.yaml", "-o", str(tmp_path / "out"), "--set", "stride=0.12",
                 "--set", "terrain.stairs={rise: 0.4, run: 0.12, count: 12, start_x: -0.5}"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "terrain.stairs.rise" in err and "out of reach" in err
    assert not (tmp_path / "out").exists()
