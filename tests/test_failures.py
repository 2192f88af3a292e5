"""Failed solves: an iteration limit gives a result (success False, status, message,
violations), not an exception, and that result is the best iterate IPOPT passed through.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import gaitopt as go

from gaitcheck import HEEL_TOE, TEST_SCALE, VIOLATION_TOL, quiet


@pytest.mark.fast
def test_failed_solve_is_a_result():
    """An iteration limit gives success False, a status, a message and violations (no raise)."""
    problem = quiet(go.load_problem(HEEL_TOE).scaled_knots(TEST_SCALE))
    problem = problem.replace(solver=dataclasses.replace(problem.solver, max_iter=3))
    r = go.solve(problem)
    assert r.success is False
    assert r.status == "Maximum_Iterations_Exceeded"
    assert isinstance(r.message, str) and r.message
    v = r.violations()
    assert v and all({"term", "phase", "max_violation", "rows"} <= set(x) for x in v)
    assert r.max_violation > VIOLATION_TOL
    assert r.max_violation == v[0]["max_violation"]
    assert r.trajectory.phases and np.isfinite(r.cost)
    assert r.stats["iterations"] == 3


def test_failed_solve_keeps_best_iterate():
    """A failed solve returns the best iterate IPOPT passed through, not its last one. The
    heel–toe walk at test size stopped after 12 iterations: its last iterate violates the
    constraints by 0.48, iteration 9 by 0.36 (measured). The returned point is iteration 9
    itself: a solve stopped there ends on the same point. The walk as measured then: without
    the touchdown-speed bound it has shipped with since (docs/modelling.md "Impacts")."""
    problem = quiet(go.load_problem(HEEL_TOE, overrides={"constraints.touchdown_speed": None}).scaled_knots(TEST_SCALE))
    r = go.solve(problem.replace(solver=dataclasses.replace(problem.solver, max_iter=12)))
    assert r.status == "Maximum_Iterations_Exceeded" and r.stats["iterations"] == 12
    k = r.stats["returned_iteration"]
    assert k < 12, "this case was chosen because an earlier iterate is better; it no longer is"
    assert r.max_violation < r.stats["final_iterate_violation"]
    assert f"returned iteration {k}" in r.message
    stopped = go.solve(problem.replace(solver=dataclasses.replace(problem.solver, max_iter=k)))
    assert stopped.stats["returned_iteration"] == k
    assert stopped.max_violation == pytest.approx(r.max_violation, rel=1e-9)
    for a, b in zip(r.trajectory.phases, stopped.trajectory.phases):
        np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(a.tau, b.tau, rtol=0, atol=1e-9)


@pytest.mark.fast
def test_iterate_keeper_reads_casadi_buffers():
    """The keeper reads IPOPT's iterates on CasADi's raw buffers: called as a CasADi Function
    it keeps copies (not views of memory CasADi reuses), ranks feasible iterates by objective
    before infeasible ones by violation, and answers 0 (go on)."""
    import casadi as ca

    from gaitopt.solver import IterateKeeper

    keeper = IterateKeeper(2, 1, [-1.0, -1.0], [1.0, 1.0], [0.0], [0.0], tol=1e-6)
    names = ca.nlpsol_out()

    def call(x, f, g, lam_g):
        args = {"x": x, "f": f, "g": g, "lam_x": [0.0, 0.0], "lam_g": lam_g}
        return float(keeper(*[ca.DM(args[n]) if n in args else ca.DM() for n in names]))

    assert call([0.5, 2.0], 3.0, [0.0], [7.0]) == 0.0  # x[1] 1 above its bound
    assert call([0.9, 3.0], 1.0, [0.0], [8.0]) == 0.0  # 2 above: worse, not kept
    assert (keeper.best[1], keeper.best[3], keeper.best[5]) == (0, 3.0, 1.0)
    np.testing.assert_array_equal(keeper.best[2], [0.5, 2.0])  # a copy, not the buffer of the last call
    np.testing.assert_array_equal(keeper.best[4], [7.0])
    call([0.5, 0.5], 5.0, [0.5], [1.0])   # violation 0.5 < 1: better though its objective is higher
    assert keeper.best[1] == 2 and keeper.best[5] == 0.5
    call([0.1, 0.1], 4.0, [0.0], [2.0])   # feasible: better than any infeasible one
    call([0.2, 0.2], 4.5, [0.0], [3.0])   # feasible, higher objective: not kept
    call([0.0, 0.0], float("nan"), [0.0], [0.0])  # not a finite objective: ignored
    assert keeper.iteration == 5 and keeper.best[1] == 3 and keeper.best[3] == 4.0
    np.testing.assert_array_equal(keeper.best[2], [0.1, 0.1])
