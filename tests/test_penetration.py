"""The plan's contact points measured against the true ground over the interpolant
(gaitopt.penetration): the shipped stair trot stays out of its steps; the same motion lowered
by 20 mm is found 20 mm deeper and warned about; plane and slope problems are not sampled."""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import gaitopt as go
from gaitopt.penetration import TOLERANCE, deepest_penetration, warn_if_inside

from gaitcheck import quiet


@pytest.fixture(scope="module")
def stairs():
    return go.solve(quiet(go.load_problem("problems/solo12_stairs.yaml")))


class _Lowered:
    """A trajectory whose sampled base height is `dz` lower (the contact points with it)."""

    def __init__(self, traj, coords, dz):
        self.traj, self.iz, self.dz = traj, list(coords).index("base_z"), dz

    def __getattr__(self, name):  # phases, modes, times: the trajectory's own
        return getattr(self.traj, name)

    def sample_cycle(self, per_interval=8):
        t, s, spans = self.traj.sample_cycle(per_interval)
        q = s["q"].copy()
        q[:, self.iz] -= self.dz
        return t, {**s, "q": q}, spans


def test_stair_trot_stays_out_of_its_steps(stairs):
    deepest = deepest_penetration(stairs)
    assert deepest is not None and deepest.depth <= TOLERANCE
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_inside(stairs)


def test_a_lowered_motion_is_found_inside_and_said(stairs):
    base = deepest_penetration(stairs)
    lowered = dataclasses.replace(stairs, trajectory=_Lowered(stairs.trajectory, stairs.robot.coordinates, 0.02))
    deepest = deepest_penetration(lowered)
    assert deepest.depth == pytest.approx(base.depth + 0.02, abs=2e-3)  # stance points sink by 20 mm
    with pytest.warns(UserWarning, match=r"passes 2\d\.\d mm inside the terrain"):
        warn_if_inside(lowered)


def test_plane_problems_are_not_sampled():
    p = quiet(go.load_problem("problems/biped7_static_walk.yaml"))
    assert deepest_penetration(go.solve(p)) is None


def test_a_solve_failing_on_a_foothold_says_what_to_try(stairs):
    """A failed solve whose worst row is foothold_grade (IPOPT stopped in the keep-out rows'
    local minimum before an up edge, docs/terrain.md) says to move the stairs or change the
    knots; a success, or a failure on another row, says nothing of it."""
    trapped = [{"term": "foothold_grade", "phase": "walk", "max_violation": 0.271, "rows": 8}]
    failed = dataclasses.replace(stairs, success=False, status="Infeasible_Problem_Detected",
                                 _violations=trapped + stairs.violations())
    assert "hint: a foothold is trapped" in failed.summary() and "terrain.stairs.start_x" in failed.summary()
    other = dataclasses.replace(failed, _violations=[{**trapped[0], "term": "inverse_dynamics"}])
    assert "hint" not in other.summary() and "hint" not in stairs.summary()
    straddling = dataclasses.replace(failed, _violations=[{**trapped[0], "term": "foothold_tread"}])
    assert "hint: a foot's points ended on two treads" in straddling.summary()


def test_a_failed_solves_stride_and_speed_are_marked_as_its_iterates(stairs):
    """A new user's Go2 stair trot, infeasible at one start, printed "stride 0.3279 m, speed
    0.5855 m/s" for a problem asking 0.28 m and 0.5 m/s: those are the returned iterate's."""
    failed = dataclasses.replace(stairs, success=False, status="Infeasible_Problem_Detected")
    line = next(ln for ln in failed.summary().splitlines() if ln.startswith("stride "))
    assert line.endswith("m/s (the returned iterate's, not the problem's)")
    assert "iterate" not in next(ln for ln in stairs.summary().splitlines() if ln.startswith("stride "))


@pytest.mark.fast
def test_a_sole_across_a_nose_is_found_between_its_corners():
    """A sole whose heel and toe corners stand on two treads (each on the ground) passes
    through the step's nose between them: found along its edge (a strider trial, 2026-11-25:
    40 mm, unwarned when only the corners were sampled)."""
    from types import SimpleNamespace

    from gaitopt.penetration import deepest_among
    from gaitopt.terrain import stair

    steps = stair(0.08, 0.2, 3, 0.1, 0.006)  # edges at x = 0.1, 0.3, 0.5
    contacts = [SimpleNamespace(name=f"left_{r}_{s}", foot="left", role=r, side=s)
                for r in ("heel", "toe") for s in ("inner", "outer")]
    corners = np.array([[[0.0, -0.045, 0.0], [0.0, 0.045, 0.0], [0.22, -0.045, 0.08], [0.22, 0.045, 0.08]]])
    deepest = deepest_among(steps, contacts, np.zeros(1), corners)
    # the edge at x = 0.1 lies 0.1/0.22 of the way along: the sole there at 36 mm under the 80 mm tread
    assert deepest.depth == pytest.approx(0.08 - 0.08 * 0.1 / 0.22, abs=0.004)
    assert "–" in deepest.point and deepest.depth > TOLERANCE
    flat = corners.copy()
    flat[0, 2:, 0], flat[0, 2:, 2] = 0.09, 0.0  # a shorter sole on the first tread: nothing inside
    assert deepest_among(steps, contacts, np.zeros(1), flat).depth <= 1e-12


def test_a_swinging_soles_edge_through_a_nose_is_said_as_a_swing():
    """biped7's heel–toe walk up a 0.08/0.3 m stair (stride 0.6 m): the swinging foot, toes up,
    crosses the nose with its heel and toe above the clearance envelope and its sole 35 mm
    inside between them (likely the strider trial's 72.7 mm, 2026-11-25). The warning said a longer run
    would keep it out (it is the stance sole's advice); it now names the swing's clearance."""
    stairs = {"stairs": {"rise": 0.08, "run": 0.3, "count": 10, "start_x": -1.2}, "smoothing": 0.006}
    p = quiet(go.load_problem("problems/biped7_heel_toe_walk.yaml").replace(terrain=stairs, stride=0.6))
    with pytest.warns(UserWarning, match=r"swinging sole edge left_heel–left_toe at \d+% passes 3\d\.\d mm inside.*"
                                         r"constraints\.clearance"):
        go.solve(p)
