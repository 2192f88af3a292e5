"""Exports of a solved gait (README "Export, plots, animation"): reloading a saved result,
resampling with the transcription's interpolant, the full CSV / motor table / NPZ formats and
their reader, the JSON summary, and the physics the exported columns must satisfy (inverse
dynamics, motor current and power, centre of pressure inside the support polygon).

Three small solves, once for the module: the biped7 heel-toe walk (knots × 0.5) with the
trapezoidal rule and with Hermite–Simpson, and the Solo-12 trot (knots × 0.5).
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import gaitopt as go
from gaitopt import export as E
from gaitopt import quantities as Q
from gaitopt.dynamics import SymbolicDynamics
from gaitopt.errors import InputError
from gaitopt.export import KNOTS_FILE

ROOT = Path(__file__).resolve().parent.parent
HEEL_TOE = ROOT / "problems" / "biped7_heel_toe_walk.yaml"
TROT = ROOT / "problems" / "solo12_trot.yaml"
CASES = {
    "biped_trapezoidal": (HEEL_TOE, "trapezoidal"),
    "biped_hermite_simpson": (HEEL_TOE, "hermite_simpson"),
    "quadruped_trapezoidal": (TROT, "trapezoidal"),
}
ID_TOL = 1e-6        # N·m, inverse dynamics residual at the knots, relative to max(1, |τ|max)
MIRROR_ID_TOL = 1e-3  # × m g at the knots of a mirrored half (as tests/test_gait_physics.py measures)
DEFECT_TOL = 1e-6    # Hermite–Simpson midpoints recovered from the defects (solver tolerance)


def _solve(case):
    path, method = CASES[case]
    problem = go.load_problem(path).scaled_knots(0.5).replace(transcription=method)
    result = go.solve(problem, print_level=0)
    assert result.success, (case, result.status, result.message)
    return result


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """case → (Result from solve, its saved directory)."""
    out = {}
    for case in CASES:
        res = _solve(case)
        d = tmp_path_factory.mktemp(case)
        E.save(res, d)
        out[case] = (res, d)
    return out


@pytest.fixture(params=list(CASES))
def case(request, solved):
    return solved[request.param]


def _phase_arrays(traj):
    return [(p.name, p.modes, {k: getattr(p, k) for k in ("t", "q", "v", "a", "tau", "f")}, p.mid)
            for p in traj.phases]


# ------------------------------------------------------------------------------ reload, knots

def test_save_writes_knots_and_reload_is_exact(case):
    res, d = case
    assert sorted(p.name for p in d.iterdir()) == ["knots.npz", "result.json", "trajectory.csv"]
    back = E.load_result(d)
    assert back.problem == res.problem  # every default, through result.json
    assert back.robot.coordinates == res.robot.coordinates
    assert (back.success, back.status, back.cost, back.cost_terms) == (res.success, res.status, res.cost,
                                                                        res.cost_terms)
    a, b = res.trajectory, back.trajectory
    assert (a.stride, a.period, a.method, a.coordinates, a.actuated, a.contact_names) == \
        (b.stride, b.period, b.method, b.coordinates, b.actuated, b.contact_names)
    np.testing.assert_array_equal(a.base_shift, b.base_shift)
    for (na, ma, xa, mida), (nb, mb, xb, midb) in zip(_phase_arrays(a), _phase_arrays(b), strict=True):
        assert (na, ma) == (nb, mb)
        for k in xa:
            np.testing.assert_array_equal(xa[k], xb[k])
        assert (mida is None) == (midb is None)
        for k in mida or {}:
            np.testing.assert_array_equal(mida[k], midb[k])
    # result.json written from the reloaded result is the same record
    ra, rb = E.result_dict(res), E.result_dict(back)
    assert ra["problem"] == rb["problem"] and ra["violations"] == rb["violations"]
    assert json.loads(json.dumps(ra, default=str)) == json.loads(json.dumps(rb, default=str))


def test_reload_keeps_the_solver_point_for_a_warm_start(solved):
    """load_result reads x and the multipliers back from knots.npz: a warm start from the reloaded
    Result is the warm start from the Result in memory (without them, on the A1 trot: 28 iterations
    against 3, more than the 18 of a cold solve)."""
    res, d = solved["biped_trapezoidal"]
    back = E.load_result(d)
    assert back.x is not None and back.multipliers is not None
    np.testing.assert_array_equal(back.x, res.x)
    np.testing.assert_array_equal(back.multipliers.lam_g, res.multipliers.lam_g)
    np.testing.assert_array_equal(back.multipliers.lam_x, res.multipliers.lam_x)
    assert back.multipliers.signature == res.multipliers.signature
    near = res.problem.replace(speed=0.42)  # the file: 0.4 m/s
    from_memory = go.solve(near, warm_start=res, print_level=0)
    from_disk = go.solve(near, warm_start=back, print_level=0)
    assert from_disk.success and from_disk.stats["iterations"] == from_memory.stats["iterations"]
    np.testing.assert_array_equal(from_disk.x, from_memory.x)


def test_reload_keeps_the_impulses(solved):
    """The impact impulses come back from knots.npz: a warm start on an NLP of another shape
    (another transcription here; on the A1 trot, a torque-capped gait warm-starting the free one)
    reads them from the Result (without them, on the A1 trot: 37 iterations against 18)."""
    res, d = solved["biped_trapezoidal"]
    assert res.impulses
    back = E.load_result(d)
    assert back.impulses.keys() == res.impulses.keys()
    for k in res.impulses:
        np.testing.assert_array_equal(back.impulses[k], res.impulses[k])
    other = res.problem.replace(transcription="hermite_simpson")
    from_memory = go.solve(other, warm_start=res, print_level=0)
    from_disk = go.solve(other, warm_start=back, print_level=0)
    assert from_disk.stats["iterations"] == from_memory.stats["iterations"]
    np.testing.assert_array_equal(from_disk.x, from_memory.x)


FORMAT_1_KEYS = ("format", "robot", "urdf", "base", "locked", "contacts", "friction", "slope_rad", "stride", "period",
                 "transcription", "success", "versions", "units")


def as_format_1(text: str) -> str:
    """A format 2 trajectory.csv as format 1 wrote it: the first 14 header keys, knot rows only,
    no point column (contacts' foot and role were added in format 2, harmless to keep)."""
    lines = text.splitlines(keepends=True)
    head = [ln.replace("gaitopt-trajectory 2", "gaitopt-trajectory 1") for ln in lines if ln.startswith("#")
            and ln[2:].split(":", 1)[0] in FORMAT_1_KEYS]
    body = [ln.rstrip("\n").rsplit(",", 1) for ln in lines if not ln.startswith("#")]
    assert body[0][1] == "point"
    return "".join(head + [body[0][0] + "\n"] + [r[0] + "\n" for r in body[1:] if r[1] == "knot"])


def _reload_csv_alone(res, d, tmp_path, version):
    for name in ("trajectory.csv", "result.json"):
        (tmp_path / name).write_bytes((d / name).read_bytes())
    if version == 1:
        (tmp_path / "trajectory.csv").write_text(as_format_1((d / "trajectory.csv").read_text()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        back = E.load_result(tmp_path)
    return back, any("midpoint" in str(w.message) for w in caught)


@pytest.mark.parametrize("version", [2, 1])
def test_reload_from_trajectory_csv_alone(case, tmp_path, version):
    """Without knots.npz: format 2 (midpoint rows) reloads exactly (to rounding) with either rule.
    Format 1 (knot rows only) still reads: exact for the trapezoidal rule; for Hermite–Simpson the
    midpoint states come from the defects (to the solver's tolerance) and a warning says that the
    midpoint torques and forces are approximated."""
    res, d = case
    back, warned = _reload_csv_alone(res, d, tmp_path, version)
    hs = res.problem.transcription == "hermite_simpson" and version == 1
    assert warned == hs
    T = res.trajectory.period
    t = np.linspace(-0.5 * T, 2.5 * T, 301)
    sa, sb = res.sample(t), back.sample(t)
    kt = res.trajectory.knots()["time"][:-1]
    sak, sbk = res.sample(kt), back.sample(kt)
    for k in ("q", "v", "a", "tau", "f"):
        np.testing.assert_array_equal(sak[k], sbk[k], err_msg=k)  # knots: exact either way
        if not hs:  # midpoint rows, or the interval a and f from knot means: exact up to rounding
            np.testing.assert_allclose(sa[k], sb[k], rtol=0, atol=1e-9 * max(1.0, np.abs(sa[k]).max()), err_msg=k)
    if hs:
        for p, pb in zip(res.trajectory.phases, back.trajectory.phases):
            for k in ("q", "v", "a"):
                scale = max(1.0, np.abs(p.mid[k]).max())
                assert np.abs(p.mid[k] - pb.mid[k]).max() <= DEFECT_TOL * scale * (100 if k == "a" else 1), k
        for k in ("q", "v"):
            np.testing.assert_allclose(sa[k], sb[k], rtol=0, atol=DEFECT_TOL * 10, err_msg=k)


def test_load_result_bad_input(solved, tmp_path):
    _, d = solved["biped_trapezoidal"]
    with pytest.raises(InputError, match="no such result directory"):
        E.load_result(tmp_path / "nope")
    with pytest.raises(InputError, match="no result.json"):
        E.load_result(tmp_path)
    (tmp_path / "result.json").write_text("{not json")
    with pytest.raises(InputError, match=r"result.json: not valid JSON"):
        E.load_result(tmp_path)
    (tmp_path / "result.json").write_text(json.dumps({"success": True}))
    with pytest.raises(InputError, match="missing keys"):
        E.load_result(tmp_path)
    info = json.loads((d / "result.json").read_text())
    info["problem"]["phases"] = [{"name": "x"}]
    (tmp_path / "result.json").write_text(json.dumps(info))
    with pytest.raises(InputError, match="problem: malformed"):
        E.load_result(tmp_path)
    (tmp_path / "result.json").write_bytes((d / "result.json").read_bytes())
    with pytest.raises(InputError, match="neither knots.npz nor trajectory.csv"):
        E.load_result(tmp_path)
    (tmp_path / KNOTS_FILE).write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(InputError, match="knots.npz: cannot read the trajectory"):
        E.load_result(tmp_path)
    # a trajectory of another robot
    _, dq = solved["quadruped_trapezoidal"]
    (tmp_path / KNOTS_FILE).write_bytes((dq / KNOTS_FILE).read_bytes())
    with pytest.raises(InputError, match="do not match robot biped7"):
        E.load_result(tmp_path)


# ---------------------------------------------------------------------------------- resampling

def test_resampling_at_knot_times_reproduces_knots(case):
    """Sampled at its knot times the interpolant returns the knot values (at a junction time
    the later phase's first knot), and at the period the next cycle's first knot."""
    res, _ = case
    traj = res.trajectory
    kn = traj.knots()
    n_rows = len(kn["time"])
    later = np.ones(n_rows, dtype=bool)  # rows a sample at their time returns
    i = 0
    for p in traj.phases:
        i += len(p.t)
        later[i - 1] = False  # a phase's last knot: its time belongs to the next phase
    later[-1] = True
    tb = E.sample_table(res, times=kn["time"][later])
    for k in ("q", "v", "a", "tau", "f"):
        np.testing.assert_array_equal(tb[k], kn[k][later], err_msg=k)
    assert list(tb["phase"]) == list(kn["phase"][later])
    # three cycles later: the same, with the base advanced three strides. t + 3T − 3T may round
    # to just before a knot, i.e. the previous interval's end, equal to the knot within the
    # collocation defects' tolerance; so only knots inside a phase (no jump across a junction)
    interior = np.zeros(n_rows, dtype=bool)
    i = 0
    for p in traj.phases:
        interior[i + 1:i + len(p.t) - 1] = True
        i += len(p.t)
    tb3 = E.sample_table(res, times=kn["time"][interior] + 3 * traj.period)
    np.testing.assert_allclose(tb3["q"], kn["q"][interior] + 3 * traj.base_shift, rtol=0, atol=DEFECT_TOL)
    for k in ("v", "a", "tau", "f"):
        tol = DEFECT_TOL * max(1.0, np.abs(kn[k]).max())
        if traj.method == "trapezoidal" and k in ("a", "f"):
            # constant per interval: a time rounded to just before a knot gets the interval on
            # its left, one just after the one on its right, the knot itself their mean
            sides = [np.concatenate([np.r_[p.mid[k][:1], p.mid[k], p.mid[k][-1:]][j] for p in traj.phases])
                     for j in (slice(0, -1), slice(1, None))]
            for row, got in zip(np.flatnonzero(interior), tb3[k]):
                assert any(np.abs(got - ref[row]).max() <= tol for ref in (kn[k], *sides)), (k, row)
            continue
        np.testing.assert_allclose(tb3[k], kn[k][interior], rtol=0, atol=tol)


def test_hermite_simpson_midpoints(solved):
    """At interval midpoints the quadratic a, τ, f pass through the midpoint variables, and
    v through v_m (the cubic Hermite midpoint, exact where the defects vanish)."""
    res, _ = solved["biped_hermite_simpson"]
    for p in res.trajectory.phases:
        tm = 0.5 * (p.t[:-1] + p.t[1:])
        s = res.trajectory.sample_phase(p.name, tm)
        for k in ("a", "tau", "f"):
            np.testing.assert_allclose(s[k], p.mid[k], rtol=0, atol=1e-9 * max(1.0, np.abs(p.mid[k]).max()))
        np.testing.assert_allclose(s["v"], p.mid["v"], rtol=0, atol=DEFECT_TOL * 10)


def test_sample_times_rate_and_cycles(solved):
    res, _ = solved["biped_trapezoidal"]
    T = res.trajectory.period
    t = E.sample_times(T, 500.0, 3)
    assert t[0] == 0.0 and t[-1] < 3 * T <= t[-1] + 0.002 + 1e-12
    np.testing.assert_allclose(np.diff(t), 0.002, rtol=0, atol=1e-12)
    tb = E.sample_table(res, 500.0, 3)
    np.testing.assert_array_equal(tb["time"], t)
    # one cycle later: base_x advanced by the stride, everything else the same
    k = int(np.searchsorted(t, T))
    later = E.sample_table(res, times=t[:20] + T)
    ix = res.robot.index("base_x")
    np.testing.assert_allclose(later["q"][:, ix], tb["q"][:20, ix] + res.trajectory.stride, atol=1e-9)
    others = [i for i in range(res.robot.nv) if i != ix]
    np.testing.assert_allclose(later["q"][:, others], tb["q"][:20, others], atol=1e-9)
    assert tb["q"][k, ix] > tb["q"][0, ix] + 0.9 * res.trajectory.stride
    for bad in (0.0, -5.0, float("nan"), float("inf")):
        with pytest.raises(InputError, match="rate"):
            E.sample_times(T, bad, 1)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(InputError, match="cycles"):
            E.sample_times(T, 500.0, bad)
    with pytest.raises(InputError, match="exceed"):
        E.sample_times(T, 1e9, 100)


# -------------------------------------------------------------------------- physics of columns

def _id_residual(robot, dyn_fn, tb) -> np.ndarray:
    """ID(q, v, a, f) − B τ (T, nv) [N·m or N] with gaitopt's dynamics (tested against
    Pinocchio in tests/test_dynamics.py)."""
    n = len(tb["time"])
    out = np.array(dyn_fn(tb["q"].T, tb["v"].T, tb["a"].T, tb["f"].reshape(n, -1).T)).T
    out[:, robot.actuated_index] -= tb["tau"]
    return out


def _interval_bounds(res, dyn_fn, m=60):
    """Per interval (phase, k): a function of the interval fraction s giving an
    interpolation-error bound (nv,) of ID(x(t)) − B τ(t) at t = t_k + s h, from the generalised
    forces g(t) = ID(x(t)) of the sampled state inside the interval (the knots have g = B τ;
    the base rows of B τ are zero).

    Trapezoidal (a and f constant on the interval, τ linear, ID exact at the mean of the knot
    states with the mean torque): |g − Bτ| ≤ |s − ½| h · max|g' − Bτ'| (a first-order Taylor
    bound about the midpoint, g' by finite differences) plus the residual at the midpoint time
    (the interpolant's q there is not the knots' mean). Hermite–Simpson
    (τ quadratic through knot, midpoint, knot): |g − I₂g| ≤ |s(s−½)(s−1)| h³/6 · max|g'''| plus
    the midpoint mismatch |g(t_m) − B τ_m| · 4s(1−s) (q(t_m) differs from q_m by the quartic's
    term). Derivatives by finite differences, with a 20 % margin."""
    robot, traj = res.robot, res.trajectory
    bounds = {}
    for p in traj.phases:
        for k in range(len(p.t) - 1):
            h = p.t[k + 1] - p.t[k]
            t = np.linspace(p.t[k], p.t[k + 1], m + 1)[1:-1]
            s = traj.sample_phase(p.name, t)
            g = np.array(dyn_fn(s["q"].T, s["v"].T, s["a"].T, s["f"].reshape(len(t), -1).T)).T
            dt = t[1] - t[0]
            if traj.method == "trapezoidal":
                g[:, robot.actuated_index] -= s["tau"]
                d1 = np.abs(np.diff(g, axis=0)).max(axis=0) / dt
                # the NLP's midpoint state is the knots' mean; the interpolant's q there differs by
                # h² a / 8: its residual at the midpoint time is the constant part of the bound
                sm = traj.sample_phase(p.name, [0.5 * (p.t[k] + p.t[k + 1])])
                mis = np.abs(_id_residual(robot, dyn_fn, sm)[0])
                bounds[(p.name, k)] = lambda s, h=h, d1=d1, mis=mis: 1.2 * (abs(s - 0.5) * h * d1 + mis) + 1e-9
            else:
                d3 = np.abs(np.diff(g, 3, axis=0)).max(axis=0) / dt ** 3
                sm = traj.sample_phase(p.name, [0.5 * (p.t[k] + p.t[k + 1])])
                sm["tau"] = p.mid["tau"][k:k + 1]
                mis = np.abs(_id_residual(robot, dyn_fn, sm)[0])
                bounds[(p.name, k)] = lambda s, h=h, d3=d3, mis=mis: 1.2 * (
                    abs(s * (s - 0.5) * (s - 1)) * h ** 3 / 6 * d3 + 4 * s * (1 - s) * mis)
    return bounds


def test_exported_torques_reproduce_inverse_dynamics(case, tmp_path):
    """The full CSV read back: ID(q, v, a, f) = B τ at the knots (Hermite–Simpson) or interval
    midpoints (trapezoidal) — the NLP's constraint — and
    within the interpolation error at every exported row in between, for the actuated joints
    (τ) and for the unactuated base coordinates (zero)."""
    res, _ = case
    robot, traj = res.robot, res.trajectory
    fn = SymbolicDynamics.of_robot(robot).inverse_dynamics
    scale = max(1.0, max(np.abs(p.tau).max() for p in traj.phases))
    mirror_tol = MIRROR_ID_TOL * robot.total_mass * 9.81
    if traj.method == "trapezoidal":  # the equations of motion hold at the interval midpoints
        kn = {k: np.concatenate([p.mid[k] for p in traj.phases]) for k in ("q", "v", "a", "tau", "f")}
        kn["time"] = np.concatenate([0.5 * (p.t[:-1] + p.t[1:]) for p in traj.phases])
        kn["phase"] = np.concatenate([[p.name] * (len(p.t) - 1) for p in traj.phases])
    else:
        kn = traj.knots()
    r_k = np.abs(_id_residual(robot, fn, {k: kn[k] for k in ("time", "q", "v", "a", "tau", "f")}))
    mirrored = np.array([str(ph).endswith(":mirrored") for ph in kn["phase"]])
    assert r_k[~mirrored].max() <= ID_TOL * scale, r_k[~mirrored].max()
    assert r_k[mirrored].max(initial=0.0) <= mirror_tol

    path = E.write_full_csv(res, tmp_path / "full.csv", rate_hz=1000.0, cycles=2)
    _, tb = E.read_export(path)
    r = np.abs(_id_residual(robot, fn, tb))
    bounds = _interval_bounds(res, fn)
    ratios = []
    for i, t in enumerate(tb["time"]):
        _, p, k, frac = traj._locate(t)
        tol = bounds[(p.name, k)](frac) + (mirror_tol if p.name.endswith(":mirrored") else ID_TOL * scale)
        assert np.all(r[i] <= tol), (t, p.name, k, r[i], tol)
        ratios.append(np.max(r[i] / tol))
    assert len(ratios) == len(tb["time"]) >= int(2 * traj.period * 1000)
    print(f"{res.robot.name} {res.problem.transcription}: ID residual / bound max {max(ratios):.3f}, "
          f"median {np.median(ratios):.3f}; max residual {r.max():.3g} N·m")


def test_motor_current_and_electrical_power(case):
    """i = τ/(η G K); electrical power V·i = R i² + τ ω/η (copper loss + mechanical power and gear
    loss); the
    Joule loss of the optimiser's quadrature over the knots equals the cost term, and the
    summary's sampled integral equals the exact integral of the interpolated torques."""
    res, _ = case
    robot, traj = res.robot, res.trajectory
    tb = E.sample_table(res, 500.0, 1)
    for i, j in enumerate(robot.actuated):
        a = robot.actuators[j]
        np.testing.assert_allclose(tb["current"][:, i],
                                   tb["tau"][:, i] / (a.gear_efficiency * a.gear_ratio * a.torque_constant),
                                   rtol=1e-14, atol=0)
    w = tb["v"][:, robot.actuated_index]
    eta = np.array([robot.actuators[j].gear_efficiency for j in robot.actuated])
    np.testing.assert_allclose(tb["power"], Q.joule_power(robot, tb["tau"]) + tb["tau"] * w / eta, rtol=1e-9, atol=1e-9)
    if "joule_loss" in res.cost_terms and res.problem.transcription == "trapezoidal":
        c = np.array([robot.actuators[j].resistance / (robot.actuators[j].gear_ratio
                                                       * robot.actuators[j].torque_constant) ** 2
                      for j in robot.actuated])
        quad = exact = 0.0
        for p in traj.phases:
            h = np.diff(p.t)
            u0, u1 = p.tau[:-1], p.tau[1:]
            quad += np.sum(h[:, None] * 0.5 * (u0 ** 2 + u1 ** 2) * c)
            exact += np.sum(h[:, None] / 3.0 * (u0 ** 2 + u0 * u1 + u1 ** 2) * c)
        assert quad / traj.stride == pytest.approx(res.cost_terms["joule_loss"], rel=1e-6)
        summary = E.export_summary(res, 2000.0)
        assert summary["energy_per_cycle_J"]["joule_loss"] == pytest.approx(exact, rel=2e-3)


def test_centre_of_pressure_inside_support_polygon(solved):
    """With every normal force ≥ 0 (trapezoidal: linear in time between knots) the centre of
    pressure lies in the convex hull of the contact points in contact."""
    for case in ("biped_trapezoidal", "quadruped_trapezoidal"):
        res, _ = solved[case]
        tb = res.trajectory.sample(np.linspace(0, res.trajectory.period, 301)[:-1])
        g = Q.ground_track(res.robot, res.trajectory, tb)
        inside = 0
        for k in range(len(tb["time"])):
            cop, hull = g["cop"][k], g["support"][k]
            if np.isnan(cop[0]):
                continue
            inside += 1
            if len(hull) >= 3:
                edges = np.roll(hull, -1, axis=0) - hull
                cross = edges[:, 0] * (cop[1] - hull[:, 1]) - edges[:, 1] * (cop[0] - hull[:, 0])
                assert cross.min() >= -1e-9, (case, k)
            elif len(hull) == 2:  # a line of support: the CoP on the segment
                d = hull[1] - hull[0]
                s = np.dot(cop - hull[0], d) / np.dot(d, d)
                assert -1e-9 <= s <= 1 + 1e-9 and abs(d[0] * (cop - hull[0])[1] - d[1] * (cop - hull[0])[0]) <= 1e-9 * np.linalg.norm(d) + 1e-12
            else:
                np.testing.assert_allclose(cop, hull[0], atol=1e-9)
        assert inside > 250
        # the CoM from Pinocchio matches gaitopt's symbolic CoM
        dyn = SymbolicDynamics.of_robot(res.robot)
        com = np.array(dyn.com(tb["q"][0], tb["v"][0])[0]).ravel()
        np.testing.assert_allclose(g["com"][0], com, atol=1e-12)


@pytest.mark.fast
def test_quantities_small_cases():
    hull = Q.convex_hull([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5], [1, 0]])
    assert len(hull) == 4 and {tuple(p) for p in hull} == {(0, 0), (1, 0), (1, 1), (0, 1)}
    assert len(Q.convex_hull([[0, 0], [1, 0], [2, 0]])) == 2
    pts = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    f = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 3.0], [5.0, 5.0, 100.0]])
    np.testing.assert_allclose(Q.centre_of_pressure(pts, f, np.array([True, True, False])), [0.75, 0.0])
    assert np.isnan(Q.centre_of_pressure(pts, f, np.zeros(3, bool))).all()
    # a force along the slope normal has no tangential part
    a = 0.2
    n = np.array([-np.sin(a), 0.0, np.cos(a)])
    assert Q.friction_ratio(10 * n, a) == pytest.approx(0.0, abs=1e-12)
    assert Q.friction_ratio(np.array([3.0, 4.0, 10.0])) == pytest.approx(0.5)
    assert np.isnan(Q.friction_ratio(np.array([1.0, 0.0, -1.0])))


def test_friction_ratio_is_the_one_the_cone_bounds(solved, tmp_path):
    """A sagittal flat foot's cone bounds its total force; the split between heel and toe is a
    convention (the toe's x force zero while the heel is down). The summary and the plot showed
    each point's own ratio until 2026-11-25: the heel's 0.373 on the static walk whose feet use
    0.228, the heel 0.5 where a new user's biped7 run used 0.26."""
    robot = go.load_robot("biped7")
    names = [c.name for c in robot.contacts]
    f = np.zeros((1, len(names), 3))
    f[0, names.index("left_heel")] = [6.0, 0.0, 10.0]   # the heel takes the foot's x force
    f[0, names.index("left_toe")] = [0.0, 0.0, 50.0]
    flags = np.zeros((1, len(names)), bool)
    flags[0, [names.index("left_heel"), names.index("left_toe")]] = True
    from gaitopt.terrain import Plane
    pts = np.zeros((1, len(names), 3))
    assert Q.surface_friction_ratio(Plane(0.0), pts, f)[0, names.index("left_heel")] == pytest.approx(0.6)
    r = Q.cone_friction_ratio(robot, Plane(0.0), pts, f, flags)
    assert r[0, names.index("left_heel")] == pytest.approx(0.1) and r[0, names.index("left_toe")] == pytest.approx(0.1)
    assert np.isnan(r[0, names.index("right_heel")])
    # the summary of the heel-toe walk: the feet's total force, sampled
    res, _ = solved["biped_trapezoidal"]
    summary = json.loads(E.export(res, "full", outdir=tmp_path, rate_hz=500.0)["summary"].read_text())
    tb = E.sample_table(res, 500.0, 1)
    for foot in ("left", "right"):
        idx = [names.index(c) for c in robot.feet[foot].contacts]
        total = tb["f"][:, idx, :].sum(axis=1)
        on = total[:, 2] > 1e-9
        expected = np.max(np.abs(total[on, 0]) / total[on, 2])
        assert summary["feet"][foot]["peak_friction_ratio"] == pytest.approx(expected, rel=1e-9), foot


# ------------------------------------------------------------------------ formats, round trip

def test_full_csv_round_trip_and_columns(case, tmp_path):
    res, d = case
    path = E.write_full_csv(res, tmp_path / "full.csv", rate_hz=250.0, cycles=2)
    meta, data = E.read_export(path)
    tb = E.sample_table(res, 250.0, 2)
    for k in ("time", "q", "v", "a", "tau", "f", "current", "power", "contact"):
        np.testing.assert_array_equal(data[k], tb[k], err_msg=k)
    for k in ("phase", "mode", "coordinates", "actuated", "contact_names", "feet"):
        assert np.array_equal(np.asarray(data[k]), np.asarray(tb[k])), k
    assert meta["format"] == "gaitopt-samples 1" and meta["rate_hz"] == 250.0 and meta["cycles"] == 2
    assert meta["rows"] == len(tb["time"]) == int(np.ceil(2 * res.trajectory.period * 250 - 1e-9))
    # trajectory.csv's columns first, in its order, then the added ones
    header = next(ln for ln in path.read_text().splitlines() if not ln.startswith("#")).split(",")
    csv_header = next(ln for ln in (d / "trajectory.csv").read_text().splitlines() if not ln.startswith("#")).split(",")
    assert csv_header[-1] == "point"  # trajectory.csv's own column (knot | mid), not sampled
    csv_header = csv_header[:-1]
    assert header[:len(csv_header)] == csv_header
    # the header carries trajectory.csv's model keys (format 2)
    assert {k: v for k, v in meta.items() if k in ("armature", "actuators", "base_joints", "phases", "terrain")} \
        == {k: v for k, v in E.header(res).items() if k in ("armature", "actuators", "base_joints", "phases", "terrain")}
    feet = list(res.robot.feet)
    assert header[len(csv_header):] == [f"current.{j}" for j in res.robot.actuated] + \
        [f"power.{j}" for j in res.robot.actuated] + [f"contact.{f}" for f in feet] + [f"mode.{f}" for f in feet]
    # contact flags agree with the forces: no force on a swinging foot
    for fi, foot in enumerate(feet):
        idx = [res.robot.contact_index(c) for c in res.robot.feet[foot].contacts]
        assert np.all(data["f"][~data["contact"][:, fi]][:, idx] == 0.0)
        assert np.all((data["mode"][:, fi] == "swing") == ~data["contact"][:, fi])


def test_npz_round_trip(case, tmp_path):
    res, _ = case
    path = E.write_npz(res, tmp_path / "s.npz", rate_hz=300.0, cycles=1)
    with np.load(path, allow_pickle=False) as z:  # plain arrays only
        assert "q" in z.files
    meta, data = E.read_export(path)
    tb = E.sample_table(res, 300.0, 1)
    for k in tb:
        assert np.array_equal(np.asarray(data[k]), np.asarray(tb[k])), k
    assert meta["format"] == "gaitopt-samples 1" and meta["robot"] == res.robot.name


def test_motor_table(case, tmp_path):
    res, _ = case
    robot = res.robot
    rad = E.write_motor_table(res, tmp_path / "m.csv", rate_hz=500.0, cycles=2)
    deg = E.write_motor_table(res, tmp_path / "d.csv", rate_hz=500.0, cycles=2, degrees=True)
    q = E.sample_table(res, 500.0, 2)["q"][:, robot.actuated_index]
    meta, data = E.read_export(rad)
    assert meta["format"] == "gaitopt-motors 1" and meta["unit"] == "rad" and meta["joints"] == robot.actuated
    np.testing.assert_array_equal(data["positions"], q)
    np.testing.assert_allclose(np.diff(data["time"]), 0.002, atol=1e-12)
    meta_d, data_d = E.read_export(deg)
    assert meta_d["unit"] == "deg"
    np.testing.assert_allclose(np.radians(data_d["positions"]), q, rtol=1e-14, atol=1e-14)
    # the plain table: comment lines, the last naming the columns, then numbers only
    lines = rad.read_text().splitlines()
    comments = [ln for ln in lines if ln.startswith("#")]
    assert lines[:len(comments)] == comments and comments[-1] == "# joints: " + json.dumps(robot.actuated)
    np.testing.assert_array_equal(np.loadtxt(rad, delimiter=",", ndmin=2), q)


def test_export_and_summary(solved, tmp_path):
    res, _ = solved["quadruped_trapezoidal"]
    paths = E.export(res, "motors", outdir=tmp_path, rate_hz=200.0, cycles=3, degrees=True)
    assert paths["export"] == tmp_path / "motors_200hz.csv" and paths["export"].is_file()
    summary = json.loads(paths["summary"].read_text())
    assert summary["format"] == "gaitopt-export-summary 1" and summary["cycles"] == 3 and summary["rate_hz"] == 200.0
    assert summary["files"]["export"] == str(paths["export"])
    assert set(summary["joints"]) == set(res.robot.actuated)
    for j, v in summary["joints"].items():
        assert 0 <= v["tau_peak"] <= v["tau_limit"] * (1 + 1e-6)
        # the exported current is the one the current limit bounds
        assert v["current_peak"] <= v["current_limit"] * (1 + 1e-6)
    e = summary["energy_per_cycle_J"]
    assert e["mechanical_positive"] > 0 > e["mechanical_negative"]
    etas = {res.robot.actuators[j].gear_efficiency for j in res.robot.actuated}
    assert len(etas) == 1  # one gear efficiency on every joint of this robot: the totals add up
    eta = etas.pop()
    assert e["electrical"] == pytest.approx(
        e["copper_loss"] + (e["mechanical_positive"] + e["mechanical_negative"]) / eta, rel=1e-9)
    assert e["copper_loss"] == pytest.approx(e["joule_loss"] / eta ** 2, rel=1e-9)
    assert summary["speed_m_s"] == pytest.approx(0.3, rel=1e-6)
    # trot: each foot on the ground half of the cycle, friction inside μ
    for foot, v in summary["feet"].items():
        assert v["duty_factor"] == pytest.approx(0.5, abs=0.01), foot
        assert v["peak_friction_ratio"] <= res.problem.constraints.friction * (1 + 1e-6)
    assert E.export(res, "npz", outdir=tmp_path)["export"] == tmp_path / "samples_500hz.npz"
    for kw, match in (({"fmt": "xml"}, "format"), ({"fmt": "npz", "degrees": True}, "degrees"),
                      ({"rate_hz": -1.0}, "rate"), ({"cycles": 0}, "cycles"),
                      ({"fmt": "npz", "path": tmp_path / "bad" / "x.csv"}, "needs a .npz"),
                      ({"path": tmp_path / "bad" / "x.npz"}, "needs a .csv")):
        with pytest.raises(InputError, match=match):
            E.export(res, **{"fmt": "full", **kw}, outdir=tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_same_stem_exports_keep_their_summaries(solved, tmp_path):
    """-o walk.csv, walk.npz, walk.xml, walk.json: four summaries, each naming its own export
    (they all wrote walk_summary.json, the last one replacing the others); CSV keeps its name."""
    res, _ = solved["quadruped_trapezoidal"]
    names = {"full": "walk.csv", "npz": "walk.npz", "mjcf": "walk.xml", "amp": "walk.json"}
    paths = {fmt: E.export(res, fmt, path=tmp_path / name, rate_hz=100.0) for fmt, name in names.items()}
    assert paths["full"]["summary"] == tmp_path / "walk_summary.json"
    assert paths["npz"]["summary"] == tmp_path / "walk_npz_summary.json"
    assert len({p["summary"] for p in paths.values()}) == 4
    for p in paths.values():
        assert json.loads(p["summary"].read_text())["files"]["export"] == str(p["export"])
    with pytest.raises(InputError, match="_summary.json"):
        E.export(res, "amp", path=tmp_path / "walk_summary.json")
    assert json.loads(paths["full"]["summary"].read_text())["files"]["export"] == str(tmp_path / "walk.csv")
