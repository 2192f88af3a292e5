"""Fixtures shared by the test modules.

Fast subset: `python -m pytest -m fast -q` runs the tests marked `fast` — every test module's cheapest
checks, the static walk's solve with all physics checks on it — in ~35 s on 2 cores (full suite ~3 min).
Mark whole cheap files with `pytestmark = pytest.mark.fast`, single tests with `@pytest.mark.fast`.

The fine-grid solutions of the biped7 heel-toe and slope walks are session-scoped: they are
used by test_convergence.py and test_method_agreement.py and are solved once per run, not once
per module.
"""
from __future__ import annotations

import pytest

import gaitopt as go
from gaitcheck import FINE_SCALE, HEEL_TOE, SLOPE, Solved, quiet, solve_and_measure


@pytest.fixture(scope="session")
def default_trap() -> Solved:
    return solve_and_measure("heel_toe trapezoidal default knots", quiet(go.load_problem(HEEL_TOE)))


@pytest.fixture(scope="session")
def fine_trap(default_trap) -> Solved:
    # Mesh continuation: from the optimum at the default knots, to stay in one local optimum
    # (the walk has several; bench/solve.py's cold starts reach 17.417 J/m at × 2 and 17.063 at
    # × 4 today, but which one a cold start finds has changed with every solver setting).
    coarse = default_trap.result
    problem = quiet(go.load_problem(HEEL_TOE).scaled_knots(FINE_SCALE))
    return solve_and_measure("heel_toe trapezoidal fine", problem, warm_start=coarse if coarse.success else None)


@pytest.fixture(scope="session")
def fine_slope() -> Solved:
    if not SLOPE.exists():
        pytest.skip(f"no {SLOPE.name}")
    problem = quiet(go.load_problem(SLOPE).scaled_knots(FINE_SCALE))
    return solve_and_measure("slope walk trapezoidal fine", problem)


@pytest.fixture(scope="session")
def fine_hs(fine_trap) -> Solved:
    # From the trapezoidal optimum: the walk has several local optima, and the comparison is
    # between the two transcriptions of one of them.
    problem = quiet(go.load_problem(HEEL_TOE).scaled_knots(FINE_SCALE).replace(transcription="hermite_simpson"))
    return solve_and_measure("heel_toe hermite_simpson fine", problem, warm_start=fine_trap.result)

