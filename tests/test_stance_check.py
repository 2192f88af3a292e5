"""The exported stance measured on the true ground (gaitopt.stance_check): a heel–toe walk up
stairs rests each loaded point on its tread, within the friction cone; the same plan lifted,
moved across an edge, or with its forces tilted is warned about; plane problems are skipped."""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import gaitopt as go
from gaitopt.penetration import TOLERANCE
from gaitopt.stance_check import FRICTION_TOLERANCE, stance_gaps, warn_if_off_ground

from gaitcheck import quiet

STAIRS = {"stairs": {"rise": 0.08, "run": 0.3, "count": 10, "start_x": -1.2}, "smoothing": 0.006}


@pytest.fixture(scope="module")
def heel_toe_stairs():
    """biped7's heel–toe walk up the strider trial's stair (0.08/0.3 m, stride 0.6 m; 56
    iterations, under a second)."""
    p = go.load_problem("problems/biped7_heel_toe_walk.yaml").replace(terrain=STAIRS, stride=0.6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its swinging sole's edge crosses a nose (gaitopt.penetration)
        result = go.solve(quiet(p))
    assert result.success
    return result


def _moved(result, coordinate: str, by: float, forces=None):
    """The result with `coordinate` of every knot moved by `by` (the contact points with it),
    and the knot forces mapped by `forces` (f (K+1, nc, 3) → same)."""
    i = list(result.robot.coordinates).index(coordinate)
    phases = []
    for ph in result.trajectory.phases:
        q = ph.q.copy()
        q[:, i] += by
        phases.append(dataclasses.replace(ph, q=q, f=ph.f if forces is None else forces(ph.f)))
    return dataclasses.replace(result, trajectory=dataclasses.replace(result.trajectory, phases=tuple(phases)))


def test_the_heel_toe_stair_walk_stands_on_its_treads(heel_toe_stairs):
    gaps = stance_gaps(heel_toe_stairs)
    assert gaps.height[0] <= TOLERANCE  # the held toe's drift, 1.3 mm
    assert gaps.friction[0] <= 1.0 + 1e-6
    assert gaps.two_treads is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_off_ground(heel_toe_stairs)


def test_a_lifted_stance_is_said(heel_toe_stairs):
    lifted = _moved(heel_toe_stairs, "base_z", 0.005)
    assert stance_gaps(lifted).height[0] == pytest.approx(stance_gaps(heel_toe_stairs).height[0] + 0.005, abs=2e-3)
    with pytest.warns(UserWarning, match=r"carries force [5-7]\.\d mm off the true ground"):
        warn_if_off_ground(lifted)


def test_a_foot_across_an_edge_is_said(heel_toe_stairs):
    """Moved 0.1 m forward, the flat foot (heel 0.087 m, toe 0.227 m) stands across the edge at
    0.3 m: a foot's loaded points one rise apart."""
    across = _moved(heel_toe_stairs, "base_x", 0.1)
    assert stance_gaps(across).two_treads[0] == pytest.approx(0.08)
    with pytest.warns(UserWarning, match=r"stands on two treads \(80 mm apart"):
        warn_if_off_ground(across)


def test_forces_outside_the_cone_are_said(heel_toe_stairs):
    """Each force's tangential part tripled: friction use up to 3× the cone's (the trial's
    exported forces reached |f_t|/f_n 2.45 against a pyramid of 0.49)."""
    def tilted(f):
        f = f.copy()
        f[..., 0] *= 3.0
        return f

    gaps = stance_gaps(_moved(heel_toe_stairs, "base_x", 0.0, forces=tilted))
    assert gaps.friction[0] > 1.0 + FRICTION_TOLERANCE
    with pytest.warns(UserWarning, match=r"uses \d\.\d\d of its friction cone"):
        warn_if_off_ground(_moved(heel_toe_stairs, "base_x", 0.0, forces=tilted))


def test_plane_problems_are_not_measured():
    p = quiet(go.load_problem("problems/biped7_static_walk.yaml"))
    assert stance_gaps(go.solve(p)) is None


@pytest.mark.parametrize("name", ["solo12_stairs"])
def test_shipped_terrain_gaits_are_not_warned(name):
    result = go.solve(quiet(go.load_problem(f"problems/{name}.yaml")))
    gaps = stance_gaps(result)
    assert gaps.height[0] <= TOLERANCE and gaps.friction[0] <= 1.0 + FRICTION_TOLERANCE and gaps.two_treads is None
    assert np.isfinite(gaps.friction[0])


def test_a_held_toe_drifting_into_its_tread_is_said():
    """A solved heel–toe stair walk whose held toe drifts 3.0 mm into its tread in the toe roll's
    first interval (clearance 0.06 m; the rows set its height where its stance starts and its
    velocity at the knots after): both warnings name it as a stance point; with the rolling
    phases at 12 knots instead of 6 it stays within 1 mm (2026-11-25)."""
    p = go.load_problem("problems/biped7_heel_toe_walk.yaml").replace(terrain=STAIRS, stride=0.6)
    p = p.replace(constraints=dataclasses.replace(p.constraints, clearance=0.06))
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        result = go.solve(quiet(p))
    assert result.success
    height, name = stance_gaps(result).height[:2]
    # the half cycle mirrors one toe's roll onto the other: their drifts tie to the last bits, so
    # either toe may be the worst
    assert name in ("left_toe", "right_toe") and 0.0025 < height < 0.0040
    text = " ".join(str(w.message) for w in said)
    assert f"stance point {name} passes" in text and f"{name} carries force" in text


def test_the_warning_fits_the_command_lines_one_line_whole():
    """The command line prints a warning as one line of at most MAX_LINE characters: the old
    text (measurements, then 290 characters of advice) was always cut there, mid-word, losing
    the stair's advice (a new user's Go2 stair trot, 2026-11-25). Every measurement at once,
    with long point names and wide numbers, now fits; the advice names what applies."""
    from gaitopt.cli_common import MAX_LINE
    from gaitopt.stance_check import StanceGap, off_ground_message

    worst = StanceGap(height=(0.1725, "right_heel_outer", 1.125, -2.345),
                      friction=(12.34, "right_heel_outer", 1.125, -2.345),
                      two_treads=(0.125, "right_heel_outer", 1.125, -2.345))
    for stairs in (True, False):
        for rolling in (True, False):
            text = "gaitopt: warning: " + off_ground_message(worst, stairs=stairs, rolling=rolling)
            assert len(text) <= MAX_LINE, (len(text), text)
            assert text.endswith("(docs/terrain.md)")
            assert ("terrain.stairs.start_x" in text) == stairs
            assert ("heel and toe" in text) == rolling
    assert off_ground_message(StanceGap(None, (0.5, "FL", 0.0, 0.0), None), stairs=True, rolling=False) is None
