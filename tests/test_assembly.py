"""The NLP assembled from rows built once per class of points (gaitopt.assembly,
gaitopt.tracing) equals the whole expression graph: rows, Jacobian and Lagrangian Hessian at a
random point, for both rules; and a component that needs a knot's own number is called point
by point, its rows in the same place as when it is traced."""
from __future__ import annotations

import casadi as ca
import numpy as np
import pytest

import gaitopt as go
from gaitopt.constraints import Constraint
from gaitopt.constraints.kinematics import LegSeparation
from gaitopt.gait import robot_of
from gaitopt.transcription import transcribe

from gaitcheck import quiet

pytestmark = pytest.mark.fast
STATIC = "problems/biped7_static_walk.yaml"


def _static(rule: str):
    p = quiet(go.load_problem(STATIC))
    return p.replace(transcription=rule)


def _whole_graph(tr, x, lam, lam_f):
    """(g, J, triu H) of the inlined SX graph at x, differentiated by CasADi as one graph."""
    X, g, f = tr.nlp["x"], tr.nlp["g"], tr.nlp["f"]
    fn = ca.Function("ref", [X], [g, ca.jacobian(g, X), ca.triu(ca.hessian(ca.dot(ca.DM(lam), g) + lam_f * f, X)[0])])
    return fn(x)


# every cost term (those summed over the points are mapped, gaitopt.point_sum), with a free
# stride and phase durations inside them
COSTS = [None, {"specific_resistance": 1.0, "torque_rate_squared": 1e-4}, {"abs_power": 1.0},
         {"torque_squared": 1.0, "impact_loss": 2.0}, {"joule_loss": 1.0, "fri_stability": 50.0}]


@pytest.mark.parametrize("cost", COSTS, ids=lambda c: "+".join(c) if c else "joule_loss")
@pytest.mark.parametrize("rule", ["trapezoidal", "hermite_simpson"])
def test_assembled_derivatives_equal_the_whole_graph(rule, cost):
    p = _static(rule) if cost is None else _static(rule).replace(cost=cost)
    tr = transcribe(p, robot_of(p))
    assert tr.assembly.maps, "no rows were mapped"
    assert tr.assembly.cost_maps, "no cost term was mapped"
    if cost and "abs_power" in cost:  # PowerSplit's rows, per point (NlpBuilder.con_points), mapped too
        assert [m for m in tr.assembly.maps if m.fn.name().startswith("points_power_split")]
    rng = np.random.default_rng(3)
    x, lam = rng.uniform(-0.5, 1.5, tr.n_variables), rng.normal(size=tr.n_constraints)
    scale = rng.uniform(0.5, 4.0, tr.n_variables)
    g0, J0, H0 = _whole_graph(tr, x, lam, 0.7)
    nlp, opts = tr.assembly.functions(scale)
    xs = x / scale
    g1, J1 = opts["jac_g"](xs, [])
    H1 = opts["hess_lag"](xs, [], 0.7, lam)
    D = ca.DM(scale)
    assert np.allclose(np.asarray(g1).ravel(), np.asarray(g0).ravel(), rtol=1e-12, atol=1e-10)
    assert np.allclose(np.asarray(tr.assembly.g_value(x)), np.asarray(g0).ravel(), rtol=1e-12, atol=1e-10)
    assert J1.sparsity() == J0.sparsity()
    assert np.allclose(np.asarray(ca.densify(J1)), np.asarray(ca.densify(J0 @ ca.diag(D))), rtol=1e-10, atol=1e-8)
    assert np.allclose(np.asarray(ca.densify(H1)), np.asarray(ca.densify(ca.diag(D) @ H0 @ ca.diag(D))),
                       rtol=1e-10, atol=1e-8)
    f, grad = opts["grad_f"](xs, [])
    X = tr.nlp["x"]
    f0, grad0 = ca.Function("c", [X], [tr.nlp["f"], ca.gradient(tr.nlp["f"], X)])(x)
    assert float(f) == pytest.approx(float(f0), rel=1e-12)
    assert np.allclose(np.asarray(grad).ravel(), scale * np.asarray(grad0).ravel(), rtol=1e-10, atol=1e-10)


class _LateKnots(Constraint):
    """Test component: base height ≥ −1 m at knots past the phase's middle (it needs the knot's
    number, so it cannot be traced for a class of knots)."""

    term = "late_knots"
    where = ("point",)

    def add_point(self, ctx, p, point):
        if point.kinematic and 2 * int(point.progress) > ctx.phases[p].n_intervals:
            ctx.builder.con(self.term, ctx.phases[p].name, point.q[ctx.robot.index("base_z")], -1.0, np.inf)


class _EveryKnot(_LateKnots):
    term = "every_knot"

    def add_point(self, ctx, p, point):
        if point.kinematic:
            ctx.builder.con(self.term, ctx.phases[p].name, point.q[ctx.robot.index("base_z")], -1.0, np.inf)


def test_component_needing_the_knot_number_is_called_point_by_point():
    p = _static("trapezoidal")
    robot = robot_of(p)
    plain = transcribe(p, robot)
    late, every = transcribe(p, robot, constraints=[_LateKnots()]), transcribe(p, robot, constraints=[_EveryKnot()])
    K = [pv.n_intervals for pv in plain.phases]
    x = np.random.default_rng(0).uniform(0.2, 0.8, plain.n_variables)
    iz = robot.index("base_z")
    for tr, first in ((every, lambda k: 0), (late, lambda k: k // 2 + 1)):
        rows = [r for r in tr.rows if r[0] in ("late_knots", "every_knot")]
        g = tr.assembly.g_value(x)
        # one row per chosen knot, in knot order within each phase, holding that knot's base_z
        want = np.concatenate([x[np.asarray(pv.q.index)[iz, first(k):]] for pv, k in zip(tr.phases, K)])
        assert np.array_equal(np.array([g[a] for _, _, a, b in rows]), want)
        # the other rows are the NLP without the component, in the same order
        keep = np.ones(tr.n_constraints, bool)
        for _, _, a, b in rows:
            keep[a:b] = False
        assert np.array_equal(g[keep], plain.assembly.g_value(x))
        assert tr.assembly.maps


def test_inverse_dynamics_is_one_shared_call_differentiated_once():
    """Every dynamic class's equations of motion call the robot's inverse dynamics as a block
    of its own (the zero forces of feet off the ground read a constant), all of them one
    Function, so its derivatives are built once; the values are the class rows' (tested above)."""
    p = _static("trapezoidal")
    tr = transcribe(p, robot_of(p))
    calls = [m for m in tr.assembly.maps if m.fn.name() == "call_rigid_inverse_dynamics"]
    dynamic_phases = len(tr.phases)
    assert len(calls) == dynamic_phases  # one per phase's midpoint class
    assert len({id(m.fn) for m in calls}) == 1
    assert all((m.index < 0).any() for m in calls)  # a foot in the air: its forces are constants


class _CallOfExpressions(Constraint):
    """Test component: base height twice over, written as a call of a Function on 2·q (an
    expression, not the class's own symbols: the call must be inlined)."""

    term = "doubled_q"
    where = ("point",)

    def add_point(self, ctx, p, point):
        if point.kinematic:
            q = ca.SX.sym("q", point.q.numel())
            fn = ca.Function("base_z_of", [q], [q[ctx.robot.index("base_z")]])
            ctx.builder.con_call(self.term, ctx.phases[p].name, fn, [2 * point.q], -point.q[ctx.robot.index("base_z")],
                                 -10.0, np.inf)


def test_a_call_of_expressions_is_inlined_with_the_same_rows():
    p = _static("trapezoidal")
    robot = robot_of(p)
    tr = transcribe(p, robot, constraints=[_CallOfExpressions()])
    assert not [m for m in tr.assembly.maps if m.fn.name() == "call_base_z_of"]
    x = np.random.default_rng(1).uniform(0.2, 0.8, tr.n_variables)
    g = tr.assembly.g_value(x)
    iz = robot.index("base_z")
    rows = [r for r in tr.rows if r[0] == "doubled_q"]
    want = np.concatenate([x[np.asarray(pv.q.index)[iz, :]] for pv in tr.phases])
    assert np.allclose(np.sort([g[a] for _, _, a, b in rows]), np.sort(want), rtol=1e-14)


class _ReversedSeparation(LegSeparation):
    """Test component: the built-in leg separation pairs in the other order under another term
    (its rows are the built-in gaps negated): a shared function must not be reused for it."""

    term = "reversed_separation"

    def bound(self, ctx, bounds):
        super().bound(ctx, bounds)
        self.rows = [(b, a, axis, -10.0) for a, b, axis, _ in self.rows]


def test_a_component_with_other_rows_gets_its_own_shared_function():
    p = go.load_problem("problems/solo12_trot.yaml").scaled_knots(0.3)
    tr = transcribe(p, robot_of(p), constraints=[_ReversedSeparation()])
    g = tr.assembly.g_value(np.random.default_rng(0).uniform(-0.5, 1.5, tr.n_variables))
    rows = {t: np.concatenate([g[a:b] for term, _, a, b in tr.rows if term == t])
            for t in ("leg_separation", "reversed_separation")}
    assert rows["leg_separation"].size == rows["reversed_separation"].size > 0
    assert np.abs(rows["leg_separation"]).max() > 1e-3
    assert np.allclose(rows["reversed_separation"], -rows["leg_separation"], rtol=1e-12, atol=1e-14)


def test_con_call_is_a_shared_block_only_on_variables_and_zeros():
    """NlpBuilder.con_call: arguments made of variables and zeros make a shared block (the call's
    rows, `rest` inline at the same offsets); an argument that is an expression of them is
    inlined, with the same rows either way."""
    import casadi as ca

    from gaitopt.nlp import NlpBuilder

    a, b = ca.SX.sym("a", 2), ca.SX.sym("b")
    fn = ca.Function("f", [a, b], [ca.vertcat(a[0] * a[1] * b, ca.sin(a[0]) + b)])
    values = []
    for make_args in (lambda u, v: [ca.vertcat(u.sym[0], 0), v.sym], lambda u, v: [2 * u.sym, v.sym]):
        B = NlpBuilder()
        u, v = B.var("u", (2, 1)), B.var("v", (1, 1))
        B.con_call("t", "p", fn, make_args(u, v), ca.vertcat(v.sym, 0))
        A, *_ = B.nlp(ca.SX(0))
        shared = [mr for mr in A.maps if mr.shared]
        values.append((len(shared), A.inline.numel(), float(np.sum(np.abs(_g(A, [0.3, -0.4, 1.5]))))))
    assert values[0][:2] == (1, 2) and values[1][:2] == (0, 2)
    B = NlpBuilder()
    u, v = B.var("u", (2, 1)), B.var("v", (1, 1))
    B.con_call("t", "p", fn, [ca.vertcat(u.sym[0], 0), v.sym], ca.vertcat(v.sym, 0))
    A, *_ = B.nlp(ca.SX(0))
    x = np.array([0.3, -0.4, 1.5])
    assert np.allclose(_g(A, x), [0.3 * 0 * 1.5 + 1.5, np.sin(0.3) + 1.5])


def _g(A, x):
    from gaitopt.nlp_functions import NlpEvaluator

    ev = NlpEvaluator(A.n, A.ng, A.row_blocks(), A.cost_blocks())
    out = np.zeros(A.ng)
    ev.g(np.asarray(x, float), out)
    return out
