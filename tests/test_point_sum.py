"""gaitopt.point_sum: a cost summed over points is mapped only where one Function of the first
point's variables gives every point's term; otherwise it is summed as one SX expression. Either
way its value is the plain sum."""
from __future__ import annotations

import casadi as ca
import numpy as np
import pytest

from gaitopt.point_sum import PointSum

pytestmark = pytest.mark.fast


def _plain(points, integrand):
    return sum(w * integrand(*inputs) for w, inputs in points)


def _summed(key, points, integrand) -> PointSum:
    ps = PointSum()
    for w, inputs in points:
        ps.add(key, w, integrand, *inputs)
    return ps


def _check(ps, x, points, integrand):
    values = np.random.default_rng(0).uniform(0.5, 2.0, x.numel())
    want = float(ca.Function("want", [x], [_plain(points, integrand)])(values))
    assert ps.value(x, values) == pytest.approx(want, rel=1e-13)
    blocks, rest = ps.blocks(x)
    return blocks, rest


@pytest.mark.parametrize("shared", [True, False], ids=["one_duration_object", "duration_built_per_point"])
def test_points_of_one_form_are_one_mapped_function(shared):
    """Mapped both when an input is one object at every point (read from its symbols once) and
    when it is an expression built again at each point (found by dependency and value)."""
    x = ca.SX.sym("x", 12)
    T = x[11]  # a free duration, shared by every point
    h = T / 5

    def integrand(tau, h):
        return h * ca.sumsqr(tau)

    points = [(w, [x[2 * k:2 * k + 2], h if shared else T / 5]) for k, w in enumerate([0.5, 1.0, 1.0, 1.0, 0.5])]
    blocks, rest = _check(_summed("knots", points, integrand), x, points, integrand)
    assert len(blocks) == 1 and rest.is_zero()
    assert sorted(blocks[0].index.tolist()) == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9], [11] * 5]
    assert blocks[0].params.tolist() == [[0.5, 1.0, 1.0, 1.0, 0.5]]


def test_a_number_that_differs_between_points_is_not_mapped():
    """Inputs 1·x0, 2·x1, 3·x2 read one variable each in the same pattern, but the first
    point's Function (1·z) is not the others': the group is summed as SX."""
    x = ca.SX.sym("x", 3)

    def integrand(u):
        return u ** 2

    points = [(1.0, [(k + 1) * x[k]]) for k in range(3)]
    blocks, rest = _check(_summed("scaled", points, integrand), x, points, integrand)
    assert not blocks and not rest.is_zero()


def test_an_integrand_reading_another_symbol_is_not_mapped():
    x = ca.SX.sym("x", 4)
    scale = x[3]  # read by the integrand but not among its inputs (like a co-designed limb scale)

    def integrand(u):
        return scale * u ** 2

    points = [(1.0, [x[k]]) for k in range(3)]
    blocks, rest = _check(_summed("foreign", points, integrand), x, points, integrand)
    assert not blocks and not rest.is_zero()


def test_scaled_multiplies_every_weight():
    x = ca.SX.sym("x", 3)
    ps = PointSum()
    for k in range(3):
        ps.add("g", 1.0 + k, lambda u: u ** 2, x[k])
    values = np.array([1.0, 2.0, 3.0])
    assert ps.scaled(2.5).value(x, values) == pytest.approx(2.5 * (1 + 2 * 4 + 3 * 9), rel=1e-15)
