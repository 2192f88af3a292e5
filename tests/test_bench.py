"""bench/solve.py reads IPOPT's journal for its linear-algebra columns; check the reading on a
real (small) solve, since a changed journal format would otherwise print zeros unnoticed."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast  # cheap: the whole file is in the fast subset

ROOT = Path(__file__).resolve().parent.parent


# The path of a hard solve depends on the IPOPT options of its process's first solve (measured:
# an infeasible gear-600 heel-toe walk took 385 or 542 iterations after a first solve with
# gaitopt's options or with `output_file` added; docs/speed.md), so the journaled solve runs in a
# process of its own and leaves the suite's later solves as a plain process would make them.
_CHILD = """
import importlib.util, json, sys
import gaitopt as go
spec = importlib.util.spec_from_file_location("bench_solve", sys.argv[1] + "/bench/solve.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
problem = go.load_problem(sys.argv[1] + "/problems/biped7_static_walk.yaml").scaled_knots(0.5)
result, la = bench.solve_logged(problem)
print(json.dumps({"success": result.success, "iterations": result.stats["iterations"],
                  "n_variables": result.stats["n_variables"], "la": la,
                  "leaked": "output_file" in problem.solver.options}))
"""


def test_journal_counts_factorisations():
    out = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT)], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    la = got["la"]
    assert got["success"]
    # one factorisation per iteration at least (cold starts take no least-squares multiplier
    # estimate, which would add one), and the journal names the MUMPS factor's size
    assert la["factorizations"] >= got["iterations"]
    # a factorisation rejected for its inertia is one more than the iteration's accepted one
    assert 0 <= la["wrong_inertia"] <= la["factorizations"] - got["iterations"]
    assert la["refinements"] > 0
    # the factor holds at least the KKT matrix's nonzeros: a few per variable
    assert la["factor_doubles"] > 3 * got["n_variables"]
    # the journal option did not leak into the problem the caller holds
    assert not got["leaked"]


_INERTIA_CHILD = """
import importlib.util, json, sys
import gaitopt as go
from gaitopt.robot import robot_of
from gaitopt.transcription import transcribe
spec = importlib.util.spec_from_file_location("bench_inertia", sys.argv[1] + "/bench/inertia.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
problem = go.load_problem(sys.argv[1] + "/problems/biped7_static_walk.yaml").scaled_knots(0.5)
tr = transcribe(problem, robot_of(problem))
rh = bench.reduced_hessian(tr, bench.iterate(tr, problem, 3000))
print(json.dumps({"ev": rh["ev"][:3].tolist(), "ev_no_barrier": rh["ev_no_barrier"][:3].tolist(),
                  "rank": rh["rank"], "n_eq": rh["n_eq"], "shape": list(rh["d"].shape), "n": tr.n_variables}))
"""


def test_reduced_hessian_is_positive_definite_at_an_optimum():
    """bench/inertia.py at the static walk's optimum: the equality rows have full rank and the
    reduced Hessian with the barrier terms is positive definite (a strict local minimum; IPOPT
    accepted its last factorisation), while without them it is not (the active inequality rows
    hold those directions): a wrong sign or size of the barrier estimate fails here."""
    out = subprocess.run([sys.executable, "-c", _INERTIA_CHILD, str(ROOT)], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["rank"] == got["n_eq"]
    assert got["ev"][0] > 0.0
    assert got["ev_no_barrier"][0] < 0.0
    assert got["shape"] == [got["n"], 2]
