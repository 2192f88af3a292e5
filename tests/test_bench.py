"""bench/solve.py reads IPOPT's journal for its linear-algebra columns; check the reading on a
real (small) solve, since a changed journal format would otherwise print zeros unnoticed."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import gaitopt as go

pytestmark = pytest.mark.fast  # cheap: the whole file is in the fast subset

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("bench_solve", ROOT / "bench" / "solve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_journal_counts_factorisations():
    bench = _bench()
    problem = go.load_problem(ROOT / "problems" / "biped7_static_walk.yaml").scaled_knots(0.5)
    result, la = bench.solve_logged(problem)
    assert result.success
    # one factorisation per iteration at least (cold starts take no least-squares multiplier
    # estimate, which would add one), and the journal names the MUMPS factor's size
    assert la["factorizations"] >= result.stats["iterations"]
    assert la["refinements"] > 0
    # the factor holds at least the KKT matrix's nonzeros: a few per variable
    assert la["factor_doubles"] > 3 * result.stats["n_variables"]
    # the journal option did not leak into the problem the caller holds
    assert "output_file" not in problem.solver.options
