"""Trapezoidal and Hermite–Simpson transcriptions converge to the same gait: their optimal costs
agree on fine grids (the static walk, and the heel-toe walk of tests/conftest.py).
"""
from __future__ import annotations

import pytest

import gaitopt as go

from gaitcheck import FINE_SCALE, STATIC, compare_costs, fine, quiet


@pytest.fixture(scope="module")
def static_pair() -> tuple:
    """The static walk at knots × FINE_SCALE: trapezoidal from the default guess, then
    Hermite–Simpson from that optimum (the walk has more than one local optimum; the comparison
    is between two transcriptions of one)."""
    problem = quiet(go.load_problem(STATIC).scaled_knots(FINE_SCALE))
    trap = go.solve(problem)
    hs = go.solve(problem.replace(transcription="hermite_simpson"), warm_start=trap if trap.success else None)
    return trap, hs


@pytest.mark.fast  # the cheapest agreement check (two solves, ~8 s): the fast subset's costliest test
def test_trapezoidal_vs_hermite_simpson(static_pair):
    """Both transcriptions converge to the same gait: costs within TRAP_HS_RTOL on a fine grid
    (static walk, knots × FINE_SCALE; measured 0.53 % at × 4, and 1.9 % at × 2)."""
    compare_costs(f"static walk, knots x{FINE_SCALE:g}", *static_pair)


def test_trapezoidal_vs_hermite_simpson_heel_toe(request):
    """The same comparison on the heel-toe walk at knots × FINE_SCALE (measured 1.14 %; 0.38 % at
    × 8: trapezoidal 16.919 J/m, Hermite–Simpson 16.854; the trapezoidal cost converges at about
    second order, 18.76 → 17.42 → 17.06 → 16.92 at × 1, 2, 4, 8)."""
    fine_trap, fine_hs = fine(request, "fine_trap"), fine(request, "fine_hs")
    compare_costs(f"heel-toe walk, knots x{FINE_SCALE:g}", fine_trap.result, fine_hs.result)
