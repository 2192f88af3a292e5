"""Every shipped gait checked for what it claims, recomputed independently of the NLP.

Each problem file of problems/ is solved once (module-scoped fixture) at test size (knots
scaled by TEST_SCALE, IPOPT silent) from the default guess. The checks work on the exported
knot values (`Trajectory.knots()`, trajectory.csv) with Pinocchio's numeric algorithms
(tests/gaitcheck.py): periodicity and junctions, friction and unilateral contact, stance points
at rest, clearance, impacts, actuator limits, the equations of motion, energy bookkeeping, the
cost terms recomputed from the exported motion, heel/toe rolls, sampling at the knots. Plus a
few single solves that check one physical claim each (a split phase, the Hermite–Simpson
torque-rate bound, titan8's soft touchdown with Hermite–Simpson).
"""
from __future__ import annotations

import casadi as ca
import numpy as np
import pytest
import yaml

import gaitopt as go
from gaitopt.export import read_trajectory_csv, save, write_trajectory_csv
from gaitopt.feasibility import feasibility_margins, worst_margin
from gaitopt.problem import problem_from_dict
from gaitopt.terrain_io import periodic_slope, surface_of
from gaitopt.transcription import transcribe


from gaitcheck import (
    ABS_POWER_RTOL, CONTACT_VEL_TOL, DRIFT_BOUND_TEST, ENERGY_RTOL_FINE, ENERGY_RTOL_TEST, FORCE_TOL, G,
    ID_TOL, LIMIT_RTOL, MIRROR_ID_TOL, PROBLEM_FILES, ROLL_MIN_HEIGHT, ROOT, TEST_SCALE, VIOLATION_TOL,
    actuators_from_yaml, base_shift, check_energy, check_periodicity, check_sample_at_knots,
    foothold_drift, in_contact, junctions, max_torque_rate, quiet, solve_and_measure, Solved,
)


FAST_PROBLEM = "biped7_static_walk"  # the fast subset's small solve: every check below on it (~1 s)


@pytest.fixture(scope="module", params=[pytest.param(p, id=p.stem, marks=pytest.mark.fast if p.stem == FAST_PROBLEM else ())
                                        for p in PROBLEM_FILES])
def solution(request) -> Solved:
    problem = quiet(go.load_problem(request.param).scaled_knots(TEST_SCALE))
    return solve_and_measure(request.param.stem, problem)


@pytest.fixture
def solved(solution) -> Solved:
    """A solution the checks apply to (a failed solve fails test_solves only)."""
    if not solution.result.success:
        pytest.skip(f"{solution.name} did not solve ({solution.result.status}): see test_solves")
    return solution


def test_solves(solution):
    solved = solution
    r = solved.result
    print(f"\n{solved.name}: {r.status}, cost {r.cost:.6g}, {r.stats['iterations']} iterations, "
          f"{r.stats['solve_time_s']:.2f} s, max violation {r.max_violation:.2e}")
    assert r.success, f"{solved.name}: {r.status}: {r.message}; worst {r.violations(3)}"
    assert r.max_violation <= VIOLATION_TOL, r.violations(3)
    assert np.isfinite(r.cost)
    for key in ("q", "v", "a", "tau", "f"):
        assert np.all(np.isfinite(solved.rows[key])), key


def test_cycle_timing(solved):
    """Phases tile the period; the speed is the stride over the period (when given)."""
    traj, problem = solved.traj, solved.problem
    t = np.concatenate([ph.t for ph in traj.phases])
    assert t[0] == 0.0
    assert np.all(np.diff(t) >= 0.0)
    for a, b in zip(traj.phases[:-1], traj.phases[1:]):
        assert b.t[0] == pytest.approx(a.t[-1], abs=1e-12)
    assert traj.phases[-1].t[-1] == pytest.approx(traj.period, rel=1e-12)
    if problem.speed is not None:
        assert problem.speed.min - 1e-6 <= traj.stride / traj.period <= problem.speed.max + 1e-6
    if problem.stride is not None:
        assert problem.stride.min * (1 - 1e-6) <= traj.stride <= problem.stride.max * (1 + 1e-6)
    half = 2 if problem.cycle == "half" else 1
    for i, ph in enumerate(problem.phases):
        T = traj.phases[i].t[-1] - traj.phases[i].t[0]
        assert ph.duration.min * (1 - 1e-6) <= T <= ph.duration.max * (1 + 1e-6)
        assert len(traj.phases[i].t) == ph.knots + 1
    assert len(traj.phases) == half * len(problem.phases)


def test_periodicity(solved):
    check_periodicity(solved)


@pytest.mark.parametrize("transcription", ["trapezoidal", "hermite_simpson"])
def test_junction_without_contact_event(transcription):
    """A phase split in two with the same contacts: τ and the contact forces stay continuous
    across the split (only a touchdown or lift-off lets them jump), and the solution passes the
    periodicity checks."""
    data = yaml.safe_load((ROOT / "problems" / "biped7_static_walk.yaml").read_text())
    single, double = data["gait"]["phases"]
    first = dict(single, name="single_early", knots=5, duration={"min": 0.1, "max": 0.4, "guess": 0.2})
    second = dict(single, name="single_late", knots=5, duration={"min": 0.1, "max": 0.4, "guess": 0.2})
    data["gait"]["phases"] = [first, second, dict(double, knots=3)]
    data["transcription"] = transcription
    problem = quiet(problem_from_dict(data, source="split static walk", base_dir=ROOT / "problems"))
    s = solve_and_measure("split static walk", problem)
    assert s.result.success, s.result.message
    calm = [(i, j) for i, j in junctions(s) if s.active[i] == s.active[j]]
    assert len(calm) == 2, "single_early -> single_late and its mirror"
    check_periodicity(s)
    for i, j in calm:
        assert np.abs(s.rows["f"][i]).max() > 1.0  # the stance foot carries the robot there
    # No dependent equality constraints at the optimum (LICQ): a calm junction once left two
    # Hermite–Simpson rows fixing the same free acceleration mode (smallest singular value
    # 5e-12), and the optimum then depended on MUMPS's pivot order (10.87 to 11.52 J/m).
    tr = transcribe(problem, s.robot)
    jac = ca.Function("constraint_jacobian", [tr.nlp["x"]], [ca.jacobian(tr.nlp["g"], tr.nlp["x"])])
    rows = np.array(jac(s.result.x).full())[tr.lbg == tr.ubg]
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    assert np.linalg.svd(rows, compute_uv=False)[-1] > 1e-7


def test_half_cycle_mirror(solved):
    """A half cycle: the second half is the first one mirrored (through the robot's mirror map
    for the coordinates, torques and forces; through Pinocchio for the contact points: the
    partner point's world position reflected y → −y and advanced by half a stride)."""
    s = solved
    if s.problem.cycle != "half":
        pytest.skip("full cycle")
    m, robot = s.robot.mirror, s.robot
    n = len(s.problem.phases)
    first, second = s.traj.phases[:n], s.traj.phases[n:]
    half = base_shift(s, 0.5)
    act = list(robot.actuated_index)
    names = [c.name for c in robot.contacts]
    partner = [int(p) for p in m.contact_perm]
    reflect = np.array([1.0, -1.0, 1.0])
    advance = 0.5 * s.traj.stride * np.array([1.0, 0.0, np.tan(periodic_slope(s.problem))])
    for a, b in zip(first, second):
        assert b.name == f"{a.name}:mirrored"
        np.testing.assert_allclose(b.t, a.t + s.traj.period / 2, rtol=0, atol=1e-12)
        assert {m.foot_pairs[f]: md for f, md in a.modes.items()} == b.modes
        np.testing.assert_allclose(b.q, m.coordinates(a.q) + half, atol=1e-12)
        np.testing.assert_allclose(b.v, m.coordinates(a.v), atol=1e-12)
        np.testing.assert_allclose(b.a, m.coordinates(a.a), atol=1e-12)
        full_a = np.zeros((len(a.t), robot.nv))
        full_a[:, act] = a.tau
        np.testing.assert_allclose(b.tau, m.coordinates(full_a)[:, act], atol=1e-12)
        for k in range(len(a.t)):
            pa, _ = s.pm.points(a.q[k])
            pb, _ = s.pm.points(b.q[k])
            for ci in range(len(names)):
                np.testing.assert_allclose(pb[ci], pa[partner[ci]] * reflect + advance, rtol=0, atol=1e-6,
                                           err_msg=f"{names[ci]} in {b.name} knot {k}")
                np.testing.assert_allclose(b.f[k, ci], a.f[k, partner[ci]] * reflect, atol=1e-12)


def test_contact_forces(solved):
    """Points in contact: normal force ≥ 0 and |f_t| ≤ μ f_n about the ground's normal under the
    point (per foot on sagittal robots); points not in contact carry no force."""
    s = solved
    surface = surface_of(s.problem)
    mu = s.problem.constraints.friction
    # Sagittal feet: the heel/toe split of the tangential force is not physical, so the cone
    # holds for the foot's total force (and every point pushes, never pulls).
    sagittal = s.robot.base == "sagittal"
    worst_ratio = 0.0
    for q, v, a, tau, f, act, label in s.dynamic:
        P, _ = s.pm.points(q)
        normals = surface.normal(P[:, 0], P[:, 1])
        for ci, c in enumerate(s.robot.contacts):
            normal = normals[ci]
            if c.name not in act:
                assert np.all(f[ci] == 0.0), f"{c.name} at {label} is not in contact but carries {f[ci]}"
            else:
                assert f[ci] @ normal >= -FORCE_TOL, f"{c.name} at {label}: normal force {f[ci] @ normal}"
        groups = ([[ci for ci, c in enumerate(s.robot.contacts) if c.foot == foot] for foot in s.robot.feet]
                  if sagittal else [[ci] for ci in range(len(s.robot.contacts))])
        for idx in groups:
            F = f[idx].sum(axis=0)
            fn = F @ normals[idx[0]]
            ft = np.linalg.norm(F - fn * normals[idx[0]])
            who = "+".join(s.robot.contacts[ci].name for ci in idx)
            assert ft <= mu * fn + FORCE_TOL, f"{who} at {label}: |f_t| {ft} > mu f_n {mu * fn}"
            if fn > 1e-3:
                worst_ratio = max(worst_ratio, ft / fn)
    print(f"\n{s.name}: largest |f_t|/f_n {worst_ratio:.4f} (mu {mu})")


def test_contact_velocity(solved):
    """Points in contact are at rest at every collocation point (Pinocchio frame velocities)."""
    s = solved
    worst = 0.0
    for q, v, a, tau, f, act, label in s.kinematic:
        _, vel = s.pm.points(q, v)
        for ci, c in enumerate(s.robot.contacts):
            if c.name in act:
                speed = float(np.linalg.norm(vel[ci]))
                worst = max(worst, speed)
                assert speed <= CONTACT_VEL_TOL, f"{c.name} at {label} moves at {speed} m/s"
    print(f"\n{s.name}: largest stance point speed {worst:.2e} m/s")


def test_foothold_drift(solved):
    """A point in contact stays where it is (sanity bound at test size; see the fine test)."""
    foothold_drift(solved, DRIFT_BOUND_TEST)


def test_clearance(solved):
    """Points not in contact are above the ground (a rolling foot's other point too), and a
    swinging foot's points clear the profile 16·c·s²(1−s)², s the swing progress by knots
    (0 at lift-off, 1 at touchdown), at every knot (Pinocchio positions). Except where a stance
    sets the height: a phase's first knot for a point in contact just before it, and its last
    knot for a point in contact at the next phase's start (the same q as the stance's knot
    there; test_foothold_drift bounds those heights). A point that lifted off at the phase's
    start clears the profile plus its height at lift-off (where the stance's drift left it)
    times 1 − 3x² + 2x³, x the fraction of the phase's knots."""
    s = solved
    surface = surface_of(s.problem)
    c = s.problem.constraints.clearance
    phases = s.traj.phases
    n = len(phases)
    lowest = np.inf
    for ip, ph in enumerate(phases):
        act = in_contact(s.robot, ph.modes)
        before = in_contact(s.robot, phases[(ip - 1) % n].modes)
        after = in_contact(s.robot, phases[(ip + 1) % n].modes)
        for foot, F in s.robot.feet.items():
            progress = None
            if ph.modes[foot] == "swing":
                start, end = ip, ip
                while phases[(start - 1) % n].modes[foot] == "swing":
                    start -= 1
                while phases[(end + 1) % n].modes[foot] == "swing":
                    end += 1
                knots = [len(phases[i % n].t) - 1 for i in range(start, end + 1)]
                done = sum(knots[:ip - start])
                progress = (done + np.arange(len(ph.t))) / sum(knots)
            heights, exact = [], []  # above the (envelope of the) NLP's ground; above the true steps
            for q in ph.q:
                P, _ = s.pm.points(q)
                heights.append(P[:, 2] - surface.envelope(P[:, 0], P[:, 1]))
                exact.append(P[:, 2] - surface.exact_height(P[:, 0], P[:, 1]))
            K = len(ph.t) - 1
            for k, z in enumerate(heights):
                for cname in F.contacts:
                    if cname in act or (k == 0 and cname in before) or (k == K and cname in after):
                        continue
                    ci = s.robot.contact_index(cname)
                    h = z[ci]
                    need = 0.0 if progress is None else 16 * c * progress[k] ** 2 * (1 - progress[k]) ** 2
                    if cname in before:
                        x = k / K
                        need += heights[0][ci] * (1.0 - 3.0 * x ** 2 + 2.0 * x ** 3)
                    lowest = min(lowest, h - need)
                    # over the true steps too (the envelope is within 0.3 % of a rise of their edges)
                    assert exact[k][ci] >= need - 1e-4, f"{cname} at {ph.name} knot {k}: {exact[k][ci]:.6f} m over steps"
                    assert h >= need - 1e-6, f"{cname} at {ph.name} knot {k}: height {h:.6f} m < {need:.6f} m"
    print(f"\n{s.name}: smallest clearance margin {lowest * 1e3:.3f} mm")


def test_impacts(solved):
    """At a touchdown with an inelastic impact: M (v⁺ − v⁻) lies in the span of the contact
    Jacobians' transposes of the points in contact after it, and kinetic energy is lost, not
    gained. Without impact (soft touchdown or no touchdown) the velocity is continuous."""
    s = solved
    rows = s.rows
    for i, j in junctions(s):
        where = f"{rows['phase'][i]} -> {rows['phase'][j]}"
        q, dv = rows["q"][j], rows["v"][j] - rows["v"][i]
        if not np.any(np.abs(dv) > 1e-9):
            continue
        assert s.problem.constraints.touchdown == "impact" and (s.active[j] - s.active[i]), \
            f"velocity jumps at {where} without an impact"
        M = s.pm.mass_matrix(q)
        J = s.pm.point_jacobians(q)
        cols = [J[s.robot.contact_index(c)] for c in sorted(s.active[j])]
        JT = np.concatenate(cols, axis=0).T  # nv × 3·na
        impulse = M @ dv
        lam, *_ = np.linalg.lstsq(JT, impulse, rcond=None)
        resid = np.abs(JT @ lam - impulse).max()
        # the mirrored half holds the impact map only as far as the robot's mass data are
        # left/right symmetric (as the inverse dynamics, test_inverse_dynamics)
        mirrored = ":mirrored" in str(rows["phase"][j])
        rtol = MIRROR_ID_TOL if mirrored else 1e-6
        assert resid <= rtol * max(1.0 if not mirrored else 0.0, np.abs(impulse).max()), \
            f"{where}: impulse not a contact impulse ({resid})"
        loss = s.pm.kinetic(rows["q"][i], rows["v"][i]) - s.pm.kinetic(q, rows["v"][j])
        assert loss >= -1e-9 - (rtol * abs(loss) if mirrored else 0.0), f"{where}: the impact gains kinetic energy {-loss} J"


def test_actuator_limits(solved):
    """Torque–speed line |R τ/(η G K) + K G ω| ≤ V, current limit |τ| ≤ η G K I_max, URDF
    effort limits, the power limit when on, and joint position / velocity limits, at every
    collocation point."""
    s = solved
    cons = s.problem.constraints
    robot = s.robot
    act = robot.actuated_index
    nb = len(robot.base_coordinates)
    worst_v, worst_i = 0.0, 0.0
    for q, v, a, tau, f, active, label in s.kinematic:
        for i, j in enumerate(robot.actuated):
            A = robot.actuators[j]
            w = v[act[i]]
            volt = A.resistance * tau[i] / (A.gear_efficiency * A.gear_ratio * A.torque_constant) \
                + A.torque_constant * A.gear_ratio * w
            worst_v = max(worst_v, abs(volt) / A.voltage)
            if cons.torque_speed:
                assert abs(volt) <= A.voltage * (1 + LIMIT_RTOL), f"{j} at {label}: {volt} V"
            tl = A.gear_ratio * A.gear_efficiency * A.torque_constant * A.current_limit
            worst_i = max(worst_i, abs(tau[i]) / tl)
            if cons.current_limit:
                assert abs(tau[i]) <= tl * (1 + LIMIT_RTOL), f"{j} at {label}: {tau[i]} N·m > {tl}"
        if cons.effort_limits:
            eff = robot.effort_limit[act]
            assert np.all((eff <= 0) | (np.abs(tau) <= eff * (1 + LIMIT_RTOL))), label
        if cons.power_limit:
            for i, j in enumerate(robot.actuated):
                P = robot.actuators[j].rated_power
                assert abs(tau[i] * v[act[i]]) <= P * (1 + LIMIT_RTOL), f"{j} at {label}: power {tau[i] * v[act[i]]} W"
        if cons.joint_limits:
            assert np.all(q[nb:] >= robot.lower[nb:] - 1e-6) and np.all(q[nb:] <= robot.upper[nb:] + 1e-6), label
        if cons.velocity_limits:
            assert np.all(np.abs(v[nb:]) <= robot.velocity_limit[nb:] * (1 + LIMIT_RTOL)), label
    print(f"\n{s.name}: largest |voltage|/V {worst_v:.4f}, |tau|/torque limit {worst_i:.4f}")
    if cons.torque_rate is not None:
        rate = max_torque_rate(s.traj)
        print(f"{s.name}: largest |dτ/dt| {rate:.1f} N·m/s (bound {cons.torque_rate})")
        assert rate <= cons.torque_rate * (1 + 1e-3)


def test_hermite_simpson_torque_rate_bound():
    """The torque-rate bound holds on Hermite–Simpson's quadratic τ between the knots (the
    slope walk's 1000 N·m/s): bounding only τ_k+1 − τ_k left the midpoint torque free."""
    path = next(f for f in PROBLEM_FILES if f.stem == "biped7_slope_walk")
    problem = quiet(go.load_problem(path).scaled_knots(TEST_SCALE).replace(transcription="hermite_simpson"))
    assert problem.constraints.torque_rate is not None
    result = go.solve(problem)
    assert result.success, result.message
    assert max_torque_rate(result.trajectory) <= problem.constraints.torque_rate * (1 + 1e-3)


def test_inverse_dynamics(solved):
    """Pinocchio's RNEA with the exported contact forces gives the exported torques on the
    actuated joints and zero on the base and passive coordinates. The optimised part of the
    cycle holds it to ID_TOL; the mirrored half of a half cycle holds it only as far as the
    robot's mass data are left/right symmetric (MIRROR_ID_TOL · m g; solo12, hoap2, anymal_c
    and bolt are not exactly symmetric, see tests/test_dynamics.py)."""
    s = solved
    act = s.robot.actuated_index
    weight = sum(I.mass for I in s.robot.model.inertias) * G
    worst = {False: 0.0, True: 0.0}
    for q, v, a, tau, f, active, label in s.dynamic:
        gen = s.pm.rnea(q, v, a, f)
        expected = np.zeros(s.robot.nv)
        expected[act] = tau
        err = float(np.abs(gen - expected).max())
        mirrored = ":mirrored" in label
        worst[mirrored] = max(worst[mirrored], err)
        tol = MIRROR_ID_TOL * weight if mirrored else ID_TOL * max(1.0, np.abs(gen).max())
        assert err <= tol, \
            f"{label}: |ID − Bτ| = {err}; {dict(zip(s.robot.coordinates, np.round(gen - expected, 9)))}"
    print(f"\n{s.name}: largest inverse dynamics residual {worst[False]:.2e} (optimised part), "
          f"{worst[True]:.2e} (mirrored half; weight {weight:.1f} N)")


def test_energy_balance(solved):
    """∫Σ τ q̇ dt over a cycle = impact losses + m g stride tan(slope), at test size within
    ENERGY_RTOL_TEST of ∫Σ|τ q̇| dt (quadrature error O(h²); see the fine-grid test)."""
    check_energy(solved, ENERGY_RTOL_TEST)


@pytest.fixture(scope="module")
def titan8_hs() -> Solved:
    """titan8's crawl (soft touchdown, abs power + torque-rate regulariser) with
    Hermite–Simpson at test size."""
    path = next(f for f in PROBLEM_FILES if f.stem == "titan8_crawl")
    problem = quiet(go.load_problem(path).scaled_knots(TEST_SCALE).replace(transcription="hermite_simpson"))
    return solve_and_measure("titan8_crawl (Hermite–Simpson)", problem)


def test_energy_balance_soft_touchdown(titan8_hs):
    """A soft touchdown loses nothing at impacts: the actuators' net work over the cycle is the
    potential energy gain (0 on flat ground) to 1 % of the absolute work, at test size with
    Hermite–Simpson (the trapezoidal rule's O(h²) error is 1.2 % there; measured)."""
    assert titan8_hs.result.success, titan8_hs.result.message
    check_energy(titan8_hs, ENERGY_RTOL_FINE)


def test_joule_loss_from_csv(solved, tmp_path_factory):
    """Joule loss recomputed from trajectory.csv and robot.yaml's actuator data equals
    result.cost_terms['joule_loss'] (trapezoid over the knots, per path length)."""
    s = solved
    if "joule_loss" not in s.problem.cost:
        pytest.skip("no joule_loss term")
    if s.problem.transcription != "trapezoidal":
        pytest.skip("trajectory.csv has no midpoints for Simpson's rule")
    path = write_trajectory_csv(s.result, tmp_path_factory.mktemp(s.name) / "trajectory.csv")
    meta, cols = read_trajectory_csv(path)
    acts = actuators_from_yaml(s.robot)
    t = cols["time"]
    power = np.zeros_like(t)
    for j, A in acts.items():
        power += A["resistance"] * (cols[f"tau.{j}"] / (A["gear_ratio"] * A["torque_constant"])) ** 2
    energy = np.sum(np.diff(t) * (power[:-1] + power[1:]) / 2)  # junction rows: zero-width intervals
    # per distance: the base's path length, |(stride, sideways·T)| (README; the stride when straight)
    joule = energy / np.hypot(meta["stride"], s.problem.sideways * meta["period"])
    expected = s.result.cost_terms["joule_loss"] / s.problem.cost["joule_loss"]
    print(f"\n{s.name}: joule loss from csv {joule:.9g} J/m, result {expected:.9g} J/m")
    assert joule == pytest.approx(expected, rel=1e-8)


def test_abs_power_matches_interpolant(solved):
    """The abs_power term (|τ q̇| at the power nodes, through the P⁺/P⁻ slacks) equals the
    time-averaged Σ|τ q̇| of the interpolated motion (`result.sample` on a dense grid) within
    ABS_POWER_RTOL (titan8_crawl at test size 6 %: sign changes inside intervals). With the
    slacks at the knots only and no torque-rate regulariser, the optimum let τ and q̇ take turns
    to vanish at the knots (titan8_crawl measured 0.09 W at the knots, 2.2 W between)."""
    s = solved
    if "abs_power" not in s.problem.cost:
        pytest.skip("no abs_power term")
    tr = s.traj
    t = np.linspace(0.0, tr.period, 20001)
    smp = s.result.sample(t)
    act = [tr.coordinates.index(j) for j in tr.actuated]
    power = np.abs(smp["tau"] * smp["v"][:, act]).sum(axis=1)
    interpolated = np.trapezoid(power, t) / tr.period
    knots = s.result.cost_terms["abs_power"] / s.problem.cost["abs_power"]
    print(f"\n{s.name}: mean |power| at the collocation points {knots:.4g} W, interpolated {interpolated:.4g} W")
    assert knots == pytest.approx(interpolated, rel=ABS_POWER_RTOL)


@pytest.mark.parametrize("transcription, rtol", [("trapezoidal", 0.06), ("hermite_simpson", 0.12)])
def test_specific_resistance_is_the_interpolated_motions(transcription, rtol):
    """With specific resistance alone (no regulariser), the cost equals the absolute work of
    the exported motion (its interpolant, integrated densely) per weight and distance, within
    what sign changes of τ q̇ inside an interval hide from the power nodes (measured at test
    size 3.4 % trapezoidal, 9.2 % Hermite–Simpson, whose quintic τ q̇ changes sign more often
    between its five nodes; at 1× 3.7 % and 6.7 %).
    With |τ q̇| at the knots only, the optimiser hid torque at knots where q̇ vanished: the cost
    read 0.043 for an interpolant of 0.064 (trapezoidal) and 0.037 for 0.137 (Hermite–Simpson)
    on this walk at 1×."""
    problem = quiet(go.load_problem(ROOT / "problems" / "biped7_heel_toe_walk.yaml").scaled_knots(TEST_SCALE)
                    .replace(cost="specific_resistance", transcription=transcription))
    result = go.solve(problem)
    assert result.success, result.message
    tr = result.trajectory
    t = np.linspace(0.0, tr.period, 40001)
    smp = result.sample(t)
    act = [tr.coordinates.index(j) for j in tr.actuated]
    work = np.trapezoid(np.abs(smp["tau"] * smp["v"][:, act]).sum(axis=1), t)
    interpolated = work / (result.robot.total_mass * G * tr.distance)
    print(f"\n{transcription}: cost {result.cost:.5f}, interpolated motion {interpolated:.5f}")
    assert result.cost == pytest.approx(interpolated, rel=rtol)


def test_hermite_simpson_torque_rate_and_abs_power(titan8_hs):
    """Hermite–Simpson on titan8's crawl (abs power + torque-rate regulariser): the
    torque_rate_squared term equals (1/T) ∫ |dτ/dt|² dt of the quadratic τ interpolant inside
    each phase, and the abs_power term the interpolated motion's mean Σ|τ q̇|. When the rate
    counted the knots only, the midpoint torques oscillated freely and the collocated abs
    power read a third of the interpolant's (0.34 vs 1.06 W at 1× knots)."""
    problem, result = titan8_hs.problem, titan8_hs.result
    assert result.success, result.message
    tr = result.trajectory
    act = [tr.coordinates.index(j) for j in tr.actuated]
    rate, power = 0.0, 0.0
    for ph in tr.phases:
        t = np.linspace(ph.t[0], ph.t[-1], 4001)
        smp = tr.sample_phase(ph.name, t)
        # the exact derivative of each quadratic piece, from its knot and midpoint values
        dtau = np.empty_like(smp["tau"])
        for k in range(len(ph.t) - 1):
            inside = (t >= ph.t[k]) & (t <= ph.t[k + 1])
            h = ph.t[k + 1] - ph.t[k]
            s_ = (t[inside] - ph.t[k]) / h
            t0, tm, t1 = ph.tau[k], ph.mid["tau"][k], ph.tau[k + 1]
            dtau[inside] = ((-3 * t0 + 4 * tm - t1)[None, :] + s_[:, None] * (4 * (t0 - 2 * tm + t1))[None, :]) / h
        rate += np.trapezoid((dtau ** 2).sum(axis=1), t)
        power += np.trapezoid(np.abs(smp["tau"] * smp["v"][:, act]).sum(axis=1), t)
    weights = problem.cost
    assert result.cost_terms["torque_rate_squared"] / weights["torque_rate_squared"] == \
        pytest.approx(rate / tr.period, rel=1e-3)
    assert result.cost_terms["abs_power"] / weights["abs_power"] == pytest.approx(power / tr.period, rel=ABS_POWER_RTOL)


def test_heel_toe_rolls(solved):
    """In a heel or toe phase the foot rolls the right way: over a run of consecutive heel
    phases the toe comes down (flat-foot landing) and over a toe run the heel rises (push-off),
    each by more than ROLL_MIN_HEIGHT (heights from Pinocchio, normal to the ground). How far
    it rolls is the optimiser's choice: the Joule-optimal biped7 walk keeps its roll phases
    at their minimum duration (README, "What the optima look like")."""
    s = solved
    robot = s.robot
    phases = s.traj.phases
    normal = np.array([-np.sin(s.problem.slope), 0.0, np.cos(s.problem.slope)])
    names = [c.name for c in robot.contacts]
    rolls = []
    for foot, F in robot.feet.items():
        n = len(phases)
        modes = [ph.modes[foot] for ph in phases]
        for mode, other in (("heel", "toe"), ("toe", "heel")):
            if mode not in modes:
                continue
            if all(m == mode for m in modes):
                pytest.fail(f"{foot} rolls on its {mode} all cycle")
            ci = names.index(next(c for c in F.contacts if robot.contact(c).role == other))
            for ip in range(n):
                if modes[ip] != mode or modes[ip - 1] == mode:
                    continue  # not the start of a run
                run = [ip]
                while modes[(run[-1] + 1) % n] == mode:
                    run.append((run[-1] + 1) % n)
                first, last = phases[run[0]].q[0], phases[run[-1]].q[-1]
                rise = float((s.pm.points(last)[0][ci] - s.pm.points(first)[0][ci]) @ normal)
                rolls.append((foot, mode, phases[ip].name, other, rise))
    if not rolls:
        pytest.skip("no heel or toe phases")
    print(f"\n{s.name}: " + ", ".join(f"{f} {m} from {p}: {o} {1e3 * r:+.1f} mm" for f, m, p, o, r in rolls))
    for foot, mode, pname, other, rise in rolls:
        if mode == "heel":
            assert rise < -ROLL_MIN_HEIGHT, f"{foot} on its heel from {pname}: toe moves {1e3 * rise:+.2f} mm"
        else:
            assert rise > ROLL_MIN_HEIGHT, f"{foot} on its toe from {pname}: heel moves {1e3 * rise:+.2f} mm"


def test_sample_at_knots(solved):
    """sample(t) at the knot times reproduces the knot values (the problem's transcription)."""
    check_sample_at_knots(solved)


def test_robot_gait_by_the_numbers(solved, tmp_path):
    """Every shipped gait is a robot gait by the numbers, measured from its exported
    trajectory.csv with Pinocchio's forward kinematics: feet in their ranges of motion and on
    their own side, legs apart, base attitude and height in their bands, knees off straight
    (gaitopt.feasibility, the kinematic feasibility defaults of docs/feasibility.md)."""
    save(solved.result, tmp_path)
    header, cols = read_trajectory_csv(tmp_path / "trajectory.csv")
    q = np.column_stack([cols[f"q.{c}"] for c in solved.robot.coordinates])
    # times: a turning gait's yaw band is about the path's heading at each time
    report = feasibility_margins(q, solved.robot, solved.problem, t=np.asarray(cols["time"], float),
                                 period=float(header["period"]))
    assert report or "base_z" not in solved.robot.base_coordinates
    assert worst_margin(report) >= -1e-6, f"{solved.name}: {report}"
