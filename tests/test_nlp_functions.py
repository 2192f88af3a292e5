"""IPOPT's functions evaluated numerically from the blocks (gaitopt.nlp_functions): the scatter
places, weights, adds and drops entries as documented; evaluations at a sequence of points are
each those of a fresh evaluator (the gathered points are not stale); the Callbacks stay alive
as long as the transcription; an NLP without inline rows or cost still evaluates. That the
values equal the whole expression graph's derivatives: tests/test_assembly.py."""
from __future__ import annotations

import gc

import casadi as ca
import numpy as np
import pytest

import gaitopt as go
from gaitopt.gait import robot_of
from gaitopt.nlp_functions import _Scatter
from gaitopt.transcription import transcribe

from gaitcheck import quiet

pytestmark = pytest.mark.fast


@pytest.fixture(scope="module")
def static():
    p = quiet(go.load_problem("problems/biped7_static_walk.yaml"))
    return transcribe(p, robot_of(p))


def test_scatter_adds_weights_and_drops():
    # entries: (0,0) twice, (2,1), a constant input's (−1 row / −1 column) dropped
    rows = np.array([0, 2, 0, -1, 1])
    cols = np.array([0, 1, 0, 1, -1])
    weights = np.array([1.0, 3.0, 2.0, 5.0, 7.0])
    s = _Scatter.at(3, 2, rows, cols, weights)
    assert s.sparsity == ca.Sparsity.triplet(3, 2, [0, 2], [0, 1])
    out = np.zeros(s.nnz)
    s(np.array([10.0, 20.0, 30.0, 40.0, 50.0]), out)
    assert out.tolist() == [10.0 + 60.0, 60.0]
    dense = _Scatter.dense(3, np.array([2, -1, 2, 0]), np.array([1.0, 9.0, 2.0, 4.0]))
    out = np.zeros(3)
    dense(np.array([1.0, 1.0, 1.0, 1.0]), out)
    assert out.tolist() == [4.0, 0.0, 3.0]


def _evaluate(nlp, opts, xs, lam_g):
    f = float(ca.Function("f", [nlp["x"]], [nlp["f"]])(xs))
    g = np.asarray(ca.Function("g", [nlp["x"]], [nlp["g"]])(xs)).ravel()
    g2, J = opts["jac_g"](xs, [])
    f2, grad = opts["grad_f"](xs, [])
    H = opts["hess_lag"](xs, [], 0.5, lam_g)
    return [f, g, np.asarray(g2).ravel(), np.asarray(ca.DM(J).nonzeros()), float(f2),
            np.asarray(grad).ravel(), np.asarray(ca.DM(H).nonzeros())]


def test_each_point_evaluated_afresh(static):
    """One evaluator at x1, x2, x1 (it gathers each block's points once per x) gives what a
    fresh evaluator gives at each."""
    rng = np.random.default_rng(1)
    xs = [rng.uniform(-0.5, 1.5, static.n_variables) for _ in range(2)]
    lam = rng.normal(size=static.n_constraints)
    nlp, opts = static.assembly.functions()
    for x in (xs[0], xs[1], xs[0]):
        fresh = _evaluate(*static.assembly.functions(), x, lam)
        got = _evaluate(nlp, opts, x, lam)
        for a, b in zip(got, fresh):
            assert np.array_equal(a, b)
    first, second = (_evaluate(nlp, opts, x, lam) for x in xs)
    assert not np.array_equal(first[1], second[1])  # the two points do differ


def test_callbacks_live_as_long_as_the_transcription(static):
    """Solvers made in a function that drops nlp and options still evaluate, the first as well
    as the second (CasADi keeps no reference to a Callback's Python object; the assembly does)."""
    def make():
        nlp, opts = static.assembly.functions()
        return ca.nlpsol("kept", "ipopt", nlp, {"print_time": False, "ipopt": {"print_level": 0}, **opts})

    solvers = [make(), make()]  # the first set must survive the second
    gc.collect()
    x = np.random.default_rng(2).uniform(0.2, 0.8, static.n_variables)
    for solver in solvers:
        g = np.asarray(solver.get_function("nlp_jac_g")(x, [])[0]).ravel()
        assert np.allclose(g, static.assembly.g_value(x), rtol=1e-12, atol=1e-12)


def test_without_cost_or_inline_rows():
    """Blocks only: an empty cost and no inline rows evaluate to f = 0 and the mapped rows."""
    from gaitopt.assembly import Assembly, MappedRows

    x = ca.SX.sym("x", 3)
    z, k = ca.SX.sym("z", 2), ca.SX.sym("k", 1)
    fn = ca.Function("r", [z, k], [ca.vertcat(z[0] * z[1] * k, ca.sin(z[1]))])
    index = np.array([[0, 1], [1, 2]])  # points (x0, x1) and (x1, x2)
    rows = np.array([[0, 2], [1, 3]])
    asm = Assembly(x, ca.SX(0), ca.SX(0, 1), [], [MappedRows(fn, index, np.array([[2.0, 3.0]]), rows)], 4)
    nlp, opts = asm.functions()
    xv = np.array([0.5, 2.0, -1.0])
    assert float(ca.Function("f", [nlp["x"]], [nlp["f"]])(xv)) == 0.0
    g, J = opts["jac_g"](xv, [])
    want = [0.5 * 2.0 * 2.0, np.sin(2.0), 2.0 * -1.0 * 3.0, np.sin(-1.0)]
    assert np.allclose(np.asarray(g).ravel(), want, rtol=1e-15)
    assert np.allclose(np.asarray(ca.densify(J)), [[4.0, 1.0, 0], [0, np.cos(2.0), 0], [0, -3.0, 6.0],
                                                   [0, 0, np.cos(-1.0)]], rtol=1e-15)
