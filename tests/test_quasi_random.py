"""gaitopt.quasi_random: the deterministic sample points the robot checks use."""
from __future__ import annotations

import numpy as np
import pytest

from gaitopt.quasi_random import quasi_random


@pytest.mark.fast
@pytest.mark.parametrize("dim", [1, 5, 19])
def test_points_fill_the_cube_the_same_way_every_time(dim):
    x = quasi_random(12, dim)
    assert x.shape == (12, dim) and np.array_equal(x, quasi_random(12, dim))
    assert (x >= 0).all() and (x < 1).all()
    for j in range(dim):  # every coordinate spread over [0, 1): no gap wider than 0.3
        v = np.sort(np.concatenate([x[:, j], [0.0, 1.0]]))
        assert np.diff(v).max() < 0.3, (j, v)
