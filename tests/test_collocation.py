"""Closed-form checks of each collocation rule of `gaitopt.collocation.METHODS`, without the NLP.

State (q, v), collocated input a = q̈. For every rule: the defects vanish on motions of the rule's
exactness class and converge at the rule's order on a smooth motion; the interpolant reproduces
the knots and is exact on the exactness class; the quadrature weights integrate polynomials of
the rule's degree exactly and converge at its order. Then the rule-specific helpers.

The rules' signatures differ today; every call into a rule is made in one of the adapters just
below (`defects`, `interpolate`, `quadrature`), so a change of signature is one edit here.
An interval's data is `interval = (q_m, v_m, a_m)`: the midpoint values for Hermite–Simpson;
for the trapezoidal rule a_m is the interval's constant acceleration (the `mid` convention of
`Trapezoidal.interpolate`; its q_m, v_m are not used by the defects).
"""
from __future__ import annotations

import numpy as np
import pytest
from numpy.polynomial import polynomial as P

from gaitopt.collocation import METHODS, HermiteSimpson, Trapezoidal, interval_to_knots, knots_to_interval

pytestmark = pytest.mark.fast  # cheap: the whole file is in the fast subset

RULES = sorted(METHODS)
KNOWN = {"trapezoidal", "hermite_simpson"}  # the rules the adapters below know how to call


# ------------------------------------------------------------------------------- adapters


def defects(rule, h, knot0, knot1, interval) -> np.ndarray:
    """The rule's defect residuals (rows, …) of one interval; knot = (q, v, a)."""
    return np.array(rule.defects(h, *knot0, *knot1, interval))


def interpolate(rule, tau, h, knot0, knot1, interval):
    """(q, v, a) at fraction tau of the interval (interval None: the knot-only form, where the
    rule has one)."""
    return rule.interpolate(tau, h, *knot0, *knot1, mid=interval)


def quadrature(rule, f, t0: float, t1: float, n_intervals: int) -> float:
    """∫ f dt over [t0, t1] by the rule's weights on n_intervals equal intervals (f vectorised)."""
    w, wm = rule.weights(n_intervals)
    h = (t1 - t0) / n_intervals
    t = t0 + h * np.arange(n_intervals + 1)
    total = w @ f(t)
    if wm is not None:
        total += wm @ f(t[:-1] + h / 2)
    return h * total


# ---------------------------------------------------------------------- closed-form motions


class Motion:
    """q(t) = Σ c_i t^i per coordinate (c: (degree + 1, n)), or q = sin(ω t + φ); v, a exact."""

    def __init__(self, q, v, a):
        self.q, self.v, self.a = q, v, a

    @classmethod
    def polynomial(cls, c):
        c = np.asarray(c, float)
        dc, ddc = P.polyder(c, 1), P.polyder(c, 2)
        return cls(lambda t: P.polyval(t, c), lambda t: P.polyval(t, dc), lambda t: P.polyval(t, ddc))

    @classmethod
    def sine(cls, omega, phase):
        omega, phase = np.asarray(omega, float), np.asarray(phase, float)
        return cls(lambda t: np.sin(omega * t + phase), lambda t: omega * np.cos(omega * t + phase),
                   lambda t: -omega ** 2 * np.sin(omega * t + phase))

    def knot(self, t):
        return self.q(t), self.v(t), self.a(t)

    def interval(self, t0, h):
        """(q_m, v_m, a_m) at the interval's midpoint, from the closed form."""
        return self.knot(t0 + h / 2)


def random_poly(degree, n=3, seed=0):
    return np.random.default_rng(seed).normal(size=(degree + 1, n))


# The largest degree of q each rule's defects and interpolant are exact for (q̈ constant for the
# trapezoid; q̈ quadratic for Hermite–Simpson, except its q-midpoint defect: see below).
EXACT_DEGREE = {"trapezoidal": 2, "hermite_simpson": 4}
T0, H = 0.3, 0.37  # an interval not starting at 0, of no special length


def test_every_rule_has_adapters():
    assert set(METHODS) == KNOWN, f"new rules {set(METHODS) - KNOWN}: extend the adapters and EXACT_DEGREE"
    for name, rule in METHODS.items():
        assert rule.name == name


# ----------------------------------------------------------------------------------- defects


@pytest.mark.parametrize("name", RULES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_defects_vanish_on_exactness_class(name, seed):
    """(a) Knot and midpoint values taken from a random q of the rule's exactness degree
    (trapezoidal: q quadratic, q̈ constant; Hermite–Simpson: q quartic, q̈ quadratic) zero every
    defect to round-off — except Hermite–Simpson's q-midpoint defect
    q_m − (q0 + q1)/2 − h/8 (v0 − v1), the midpoint of the cubic Hermite interpolant of (q, v):
    it is exact for cubic q, and on a quartic it equals the interpolation error exactly,
    q''''·(h/2)⁴/4! = q''''·h⁴/384."""
    rule = METHODS[name]
    degree = EXACT_DEGREE[name]
    c = random_poly(degree, seed=seed)
    m = Motion.polynomial(c)
    d = defects(rule, H, m.knot(T0), m.knot(T0 + H), m.interval(T0, H))
    scale = np.abs(c).max() * 10
    if name == "hermite_simpson":
        q4 = 24.0 * c[4]
        np.testing.assert_allclose(d[0], q4 * H ** 4 / 384.0, rtol=0, atol=1e-13 * scale)
        d = d[1:]
        # the cubic: all four vanish
        m3 = Motion.polynomial(c[:4])
        np.testing.assert_allclose(defects(rule, H, m3.knot(T0), m3.knot(T0 + H), m3.interval(T0, H)), 0.0,
                                   rtol=0, atol=1e-13 * scale)
    np.testing.assert_allclose(d, 0.0, rtol=0, atol=1e-13 * scale)
    # and not one degree higher (the class is the largest one)
    up = Motion.polynomial(np.vstack([c, np.ones((1, c.shape[1]))]))
    assert np.abs(defects(rule, H, up.knot(T0), up.knot(T0 + H), up.interval(T0, H))).max() > 1e-6


# Expected orders on a smooth motion, for h → h/2 on a fixed phase (max over its intervals).
# Local (per-interval) truncation errors of the defects, exact knot and midpoint values of q = sin:
#   trapezoidal, q defect:  q1 − q0 − h/2 (v0 + v1) = −h³ q'''/12 + O(h⁴)   (trapezoid rule)    → 3
#   trapezoidal, v defect:  v1 − v0 − h a(t_m)      =  h³ a''/24 + O(h⁴)    (midpoint rule)     → 3
#   Hermite–Simpson, q_m and v_m defects (cubic Hermite midpoint): (h/2)⁴/4! q'''' , v''''      → 4
#   Hermite–Simpson, q and v defects (Simpson's rule):  −h⁵/2880 v'''' , a''''                   → 5
# Divided by h, the integration defects (summed over a phase's 1/h intervals) give the global
# order: 2 for the trapezoid, 4 for Simpson. The midpoint defects are interpolation conditions at
# one point each, not accumulated: they are compared undivided, order 4.
# Each entry: (row of the defect vector, divide by h, expected order).
ORDERS = {
    "trapezoidal": [(0, True, 2.0), (1, True, 2.0)],
    "hermite_simpson": [(0, False, 4.0), (1, False, 4.0), (2, True, 4.0), (3, True, 4.0)],
}
ORDER_TOL = 0.3
INTERVALS = [4, 8, 16, 32, 64]  # four halvings


def observed_orders(errors):
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


@pytest.mark.parametrize("name", RULES)
def test_defects_converge_on_smooth_motion(name):
    """(b) On q = sin(ω t + φ) (3 coordinates) over a phase [0, 1], the largest defect of each
    row (divided by h for the integration defects) shrinks at the rule's order: trapezoidal 2
    (local order 3 for both defects), Hermite–Simpson 4 (local order 4 for the midpoint
    defects, compared undivided; local order 5 for the Simpson defects, divided by h). Measured
    over four halvings, each observed order within ±ORDER_TOL of the expected one."""
    rule = METHODS[name]
    m = Motion.sine(omega=[2.0, 3.0, 5.0], phase=[0.1, 0.7, 1.3])
    errors = {row: [] for row, _, _ in ORDERS[name]}
    for K in INTERVALS:
        h = 1.0 / K
        worst = np.zeros(len(ORDERS[name]))
        for k in range(K):
            t0 = k * h
            d = defects(rule, h, m.knot(t0), m.knot(t0 + h), m.interval(t0, h))
            for i, (row, per_h, _) in enumerate(ORDERS[name]):
                worst[i] = max(worst[i], np.abs(d[row]).max() / (h if per_h else 1.0))
        for i, (row, _, _) in enumerate(ORDERS[name]):
            errors[row].append(worst[i])
    report = []
    for row, per_h, expected in ORDERS[name]:
        orders = observed_orders(errors[row])
        report.append(f"{name} defect {row}{'/h' if per_h else ''}: errors "
                      + " ".join(f"{e:.2e}" for e in errors[row]) + " orders " + " ".join(f"{o:.2f}" for o in orders)
                      + f" (expected {expected:g})")
    print("\n" + "\n".join(report))
    for (row, _, expected), line in zip(ORDERS[name], report):
        orders = observed_orders(errors[row])
        assert np.all(np.abs(orders - expected) <= ORDER_TOL), line


# ------------------------------------------------------------------------------- interpolant


def consistent_interval(name, rng):
    """Random knots and interval data on which the rule's defects vanish (not a polynomial of
    its class: the knot accelerations are free where the rule leaves them free)."""
    q0, v0, a0, a1, am = rng.normal(size=(5, 3))
    h = 0.29
    if name == "trapezoidal":
        v1 = v0 + h * am
        q1 = q0 + 0.5 * h * (v0 + v1)
        return h, (q0, v0, a0), (q1, v1, a1), (None, None, am)
    v1 = v0 + h / 6.0 * (a0 + 4.0 * am + a1)
    vm = 0.5 * (v0 + v1) + h / 8.0 * (a0 - a1)
    q1 = q0 + h / 6.0 * (v0 + 4.0 * vm + v1)
    qm = 0.5 * (q0 + q1) + h / 8.0 * (v0 - v1)
    return h, (q0, v0, a0), (q1, v1, a1), (qm, vm, am)


@pytest.mark.parametrize("name", RULES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_interpolate_reproduces_knots(name, seed):
    """(c) Wherever the defects vanish, the interpolant starts at knot 0 (tau = 0) and ends at
    knot 1 (tau = 1): q, v and a (the trapezoid's a: the knot values at the ends, the interval's
    constant inside)."""
    rule = METHODS[name]
    h, k0, k1, interval = consistent_interval(name, np.random.default_rng(seed))
    np.testing.assert_allclose(defects(rule, h, k0, k1, interval), 0.0, rtol=0, atol=1e-14)
    for tau, knot in ((0.0, k0), (1.0, k1)):
        got = interpolate(rule, tau, h, k0, k1, interval)
        for what, x, y in zip("qva", got, knot):
            np.testing.assert_allclose(x, y, rtol=0, atol=1e-13, err_msg=f"{what} at tau {tau}")
    if name == "trapezoidal":
        np.testing.assert_array_equal(interpolate(rule, 0.5, h, k0, k1, interval)[2], interval[2])


TAUS = np.linspace(0.0, 1.0, 11)


@pytest.mark.parametrize("name", RULES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_interpolate_exact_on_exactness_class(name, seed):
    """(c) On q of the rule's exactness degree (knot and interval values from the closed form),
    the interpolant is the motion itself at every tau in [0, 1]."""
    rule = METHODS[name]
    m = Motion.polynomial(random_poly(EXACT_DEGREE[name], seed=seed))
    k0, k1, interval = m.knot(T0), m.knot(T0 + H), m.interval(T0, H)
    for tau in TAUS:
        got = interpolate(rule, tau, H, k0, k1, interval)
        for what, x, y in zip("qva", got, m.knot(T0 + tau * H)):
            np.testing.assert_allclose(x, y, rtol=0, atol=1e-13, err_msg=f"{what} at tau {tau}")


def test_trapezoidal_knot_only_interpolant():
    """(c) The trapezoid's knot-only form (no interval data): exact on constant a (q quadratic);
    on a linear a its v and a are exact and q is the quadratic through the knots' (q0, v0) with
    the mean acceleration (v1 − v0)/h, ending at q0 + h/2 (v0 + v1): at q1 wherever the
    trapezoid's q defect vanishes."""
    for degree in (2, 3):
        c = random_poly(degree, seed=degree)
        m = Motion.polynomial(c)
        k0, k1 = m.knot(T0), m.knot(T0 + H)
        for tau in TAUS:
            q, v, a = interpolate(Trapezoidal, tau, H, k0, k1, None)
            qe, ve, ae = m.knot(T0 + tau * H)
            np.testing.assert_allclose(v, ve, rtol=0, atol=1e-13)
            np.testing.assert_allclose(a, ae, rtol=0, atol=1e-13)
            s = tau * H
            q_expected = qe if degree == 2 else k0[0] + k0[1] * s + (k1[1] - k0[1]) / H * s ** 2 / 2
            np.testing.assert_allclose(q, q_expected, rtol=0, atol=1e-13)
        np.testing.assert_allclose(interpolate(Trapezoidal, 1.0, H, k0, k1, None)[0], k0[0] + H / 2 * (k0[1] + k1[1]),
                                   rtol=0, atol=1e-13)


# -------------------------------------------------------------------------------- quadrature

WEIGHT_DEGREE = {"trapezoidal": 1, "hermite_simpson": 3}   # polynomial integrands exact up to
WEIGHT_ORDER = {"trapezoidal": 2.0, "hermite_simpson": 4.0}  # error ∝ h^order on smooth ones


@pytest.mark.parametrize("name", RULES)
@pytest.mark.parametrize("n_intervals", [1, 2, 5])
def test_weights_exact_for_polynomials(name, n_intervals):
    """(d) Over a phase [0.2, 1.3], the knot (and midpoint) weights integrate t^p exactly for
    p ≤ the rule's degree (trapezoid 1, Simpson 3), and not t^(degree + 1)."""
    rule = METHODS[name]
    t0, t1 = 0.2, 1.3
    for p in range(WEIGHT_DEGREE[name] + 2):
        exact = (t1 ** (p + 1) - t0 ** (p + 1)) / (p + 1)
        got = quadrature(rule, lambda t: t ** p, t0, t1, n_intervals)
        if p <= WEIGHT_DEGREE[name]:
            assert got == pytest.approx(exact, rel=1e-14, abs=1e-14), p
        else:
            assert abs(got - exact) > 1e-6, p
    w, wm = rule.weights(n_intervals)
    assert w.shape == (n_intervals + 1,)
    assert wm is None or wm.shape == (n_intervals,)
    assert w.sum() + (0.0 if wm is None else wm.sum()) == pytest.approx(n_intervals, rel=1e-14)


@pytest.mark.parametrize("name", RULES)
def test_weights_converge_on_smooth_integrand(name):
    """(d) ∫₀¹ exp(t) cos(3t) dt by the weights: error ∝ h² for the trapezoid, h⁴ for Simpson
    (observed order over four halvings within ±ORDER_TOL)."""
    rule = METHODS[name]
    a = 3.0
    f = lambda t: np.exp(t) * np.cos(a * t)  # noqa: E731
    F = lambda t: np.exp(t) * (np.cos(a * t) + a * np.sin(a * t)) / (1 + a ** 2)  # noqa: E731
    exact = F(1.0) - F(0.0)
    errors = [abs(quadrature(rule, f, 0.0, 1.0, K) - exact) for K in INTERVALS]
    orders = observed_orders(errors)
    print(f"\n{name} weights: errors " + " ".join(f"{e:.2e}" for e in errors)
          + " orders " + " ".join(f"{o:.2f}" for o in orders))
    assert np.all(np.abs(orders - WEIGHT_ORDER[name]) <= ORDER_TOL), orders


# --------------------------------------------------------------------------- rule specifics


def test_trapezoidal_midpoint():
    """(e) The equations of motion's point: the means of the knot states. On constant a, v_m is
    the exact midpoint velocity and q_m exceeds the quadratic's midpoint value by h² a / 8."""
    m = Motion.polynomial(random_poly(2, seed=4))
    k0, k1 = m.knot(T0), m.knot(T0 + H)
    qm, vm = Trapezoidal.midpoint(k0[0], k0[1], k1[0], k1[1])
    q_true, v_true, a = m.interval(T0, H)
    np.testing.assert_allclose(vm, v_true, rtol=0, atol=1e-14)
    np.testing.assert_allclose(qm - q_true, H ** 2 * a / 8.0, rtol=0, atol=1e-14)


def test_trapezoidal_held():
    """(e) A per-interval constant: the knot values at tau ≤ 0 and ≥ 1, the constant inside."""
    x0, xi, x1 = np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([5.0, 6.0])
    for tau, expected in ((-0.1, x0), (0.0, x0), (1e-9, xi), (0.5, xi), (1 - 1e-9, xi), (1.0, x1), (1.2, x1)):
        assert Trapezoidal.held(tau, x0, xi, x1) is expected, tau


@pytest.mark.parametrize("shape", [(1,), (5,), (7, 3), (4, 2, 3)])
def test_interval_knots_round_trip(shape):
    """(e) interval_to_knots: the mean of the two intervals at an inner knot, the adjacent
    interval's value at the end knots; knots_to_interval inverts it, and the two compose to the
    identity both ways on their images."""
    x = np.random.default_rng(len(shape)).normal(size=shape)
    k = interval_to_knots(x)
    assert k.shape == (shape[0] + 1,) + shape[1:]
    np.testing.assert_array_equal(k[0], x[0])
    np.testing.assert_array_equal(k[-1], x[-1])
    np.testing.assert_allclose(k[1:-1], 0.5 * (x[:-1] + x[1:]), rtol=0, atol=1e-15)
    np.testing.assert_allclose(knots_to_interval(k), x, rtol=0, atol=1e-12)
    np.testing.assert_allclose(interval_to_knots(knots_to_interval(k)), k, rtol=0, atol=1e-12)
    # a list is accepted too
    np.testing.assert_allclose(knots_to_interval(k.tolist()), x, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hermite_simpson_quadratic_rate(seed):
    """(e) For x(s) = x0 + α s + β s², s ∈ [0, 1], through (x0, x(½), x(1)): quadratic_rate gives
    dx/ds = A + B s exactly, so A and A + B are its end slopes (h·dx/dt at the interval's ends)."""
    x0, alpha, beta = np.random.default_rng(seed).normal(size=(3, 4))
    x = lambda s: x0 + alpha * s + beta * s ** 2  # noqa: E731
    A, B = HermiteSimpson.quadratic_rate(x0, x(0.5), x(1.0))
    np.testing.assert_allclose(A, alpha, rtol=0, atol=1e-14)
    np.testing.assert_allclose(A + B, alpha + 2.0 * beta, rtol=0, atol=1e-14)
    np.testing.assert_allclose(B, 2.0 * beta, rtol=0, atol=1e-14)
    # the interpolant's acceleration is that quadratic: its rate at the ends, per unit time
    m = Motion.polynomial(random_poly(4, seed=seed))
    h = H
    k0, k1, interval = m.knot(T0), m.knot(T0 + h), m.interval(T0, h)
    A, B = HermiteSimpson.quadratic_rate(k0[2], interval[2], k1[2])
    jerk = Motion.polynomial(P.polyder(random_poly(4, seed=seed), 1)).a  # q''' = (q')''
    np.testing.assert_allclose(A / h, jerk(T0), rtol=0, atol=1e-12)
    np.testing.assert_allclose((A + B) / h, jerk(T0 + h), rtol=0, atol=1e-12)
