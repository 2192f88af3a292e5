"""The plan's contact points measured against the true ground over the interpolant
(gaitopt.penetration): the shipped stair trot stays out of its steps; the same motion lowered
by 20 mm is found 20 mm deeper and warned about; plane and slope problems are not sampled."""
from __future__ import annotations

import dataclasses
import warnings

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
