"""Any direction and turning (#18 item 3): the cycle's planar transform, its composition with
the mirror map for half cycles, the speed mapping's input checks, and a small turning trot
whose exported file closes its cycle modulo the rotation. The shipped sideways and turning
trots are solved, physics-checked and replayed by the parametrised shipped-problem tests."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import casadi as ca
import numpy as np
import pytest
import yaml

import gaitopt as go
from gaitopt.cycle import (advance_vector, mirror_coordinates, planar_advance, transform_state,
                           untransform_casadi)
from gaitopt.errors import InputError
from gaitopt.export import load_result, read_trajectory_csv, save
from gaitopt.problem import problem_from_dict

ROOT = Path(__file__).resolve().parent.parent
TURN = ROOT / "problems" / "solo12_trot_turn.yaml"
SIDEWAYS = ROOT / "problems" / "solo12_trot_sideways.yaml"


def _rz(psi):
    return np.array([[np.cos(psi), -np.sin(psi)], [np.sin(psi), np.cos(psi)]])


def _random_state(robot, rng):
    return robot.standing_q + 0.2 * rng.standard_normal(robot.nv), rng.standard_normal(robot.nv)


@pytest.mark.fast
def test_planar_advance_is_the_chord_of_the_arc():
    """The closed form against the body-frame velocity integrated along the turn."""
    forward, sideways, psi = 0.13, -0.04, 0.7
    theta = (np.arange(100000) + 0.5) / 100000 * psi
    arc = np.mean([_rz(a) @ [forward, sideways] for a in theta], axis=0)
    np.testing.assert_allclose(planar_advance(forward, sideways, psi), arc, rtol=0, atol=1e-9)
    assert planar_advance(forward, sideways, 0) == (forward, sideways)
    sym = ca.SX.sym("T")
    f = ca.Function("d", [sym], [ca.vertcat(*planar_advance(forward, sideways, psi * sym))])
    np.testing.assert_allclose(np.asarray(f(1.0)).ravel(), arc, rtol=0, atol=1e-9)


@pytest.mark.fast
def test_cycle_transform_composes_and_inverts():
    """g^n by hand (positions rotated about z then shifted, yaw added, world velocities and
    forces rotated); g^2 = g∘g, g^-1∘g = identity, and the CasADi inverse (the periodicity
    rows) undoes the numpy map."""
    robot = go.load_robot("solo12")
    coords = list(robot.coordinates)
    ix, iy, iz, iyaw = (coords.index(c) for c in ("base_x", "base_y", "base_z", "base_yaw"))
    rng = np.random.default_rng(3)
    q, v = _random_state(robot, rng)
    f = rng.standard_normal((4, 3))
    adv = advance_vector(coords, 0.0, 0.12, 0.03, 0.4)
    q1, v1, _, f1 = transform_state(coords, adv, 1, q, v, None, f)
    np.testing.assert_allclose(q1[[ix, iy]], _rz(0.4) @ q[[ix, iy]] + [0.12, 0.03], atol=1e-15)
    assert q1[iyaw] == pytest.approx(q[iyaw] + 0.4) and q1[iz] == q[iz]
    np.testing.assert_allclose(v1[[ix, iy]], _rz(0.4) @ v[[ix, iy]], atol=1e-15)
    joints = [i for i in range(robot.nv) if i not in (ix, iy, iyaw)]
    np.testing.assert_array_equal(q1[joints], q[joints])
    np.testing.assert_array_equal(v1[joints], v[joints])
    np.testing.assert_allclose(f1[:, :2], f[:, :2] @ _rz(0.4).T, atol=1e-15)
    q2 = transform_state(coords, adv, 2, q, v)
    q11 = transform_state(coords, adv, 1, *transform_state(coords, adv, 1, q, v)[:2])
    for a, b in zip(q2[:2], q11[:2]):
        np.testing.assert_allclose(a, b, atol=1e-14)
    back = transform_state(coords, adv, -1, q1, v1)
    np.testing.assert_allclose(back[0], q, atol=1e-14)
    np.testing.assert_allclose(back[1], v, atol=1e-14)
    qs, vs = ca.SX.sym("q", robot.nv), ca.SX.sym("v", robot.nv)
    inv = ca.Function("inv", [qs, vs], list(untransform_casadi(coords, qs, vs, 0.12, 0.03, 0.0, 0.4)))
    np.testing.assert_allclose(np.asarray(inv(q1, v1)[0]).ravel(), q, atol=1e-14)
    np.testing.assert_allclose(np.asarray(inv(q1, v1)[1]).ravel(), v, atol=1e-14)


@pytest.mark.fast
def test_half_cycle_mirror_composition_cancels_sideways_and_turn():
    """A half cycle maps its start to its end by H = g_half∘M (the mirror, then the half
    cycle's transform). Twice: the straight gait's full stride; but a half-cycle turn or
    sideways step comes back mirrored, so the full cycle never turns and its sideways steps
    cancel — why a sideways or turning gait needs gait.cycle: full."""
    robot = go.load_robot("solo12")
    coords = list(robot.coordinates)
    iy, iyaw = coords.index("base_y"), coords.index("base_yaw")
    q, v = _random_state(robot, np.random.default_rng(5))
    q[iy], q[iyaw] = 0.0, 0.0   # the cycle's gauge: the base starts on the x axis, heading +x

    def H(adv, q, v):
        return transform_state(coords, adv, 1, mirror_coordinates(robot, q), mirror_coordinates(robot, v))[:2]

    straight = advance_vector(coords, 0.0, 0.066)
    q2, v2 = H(straight, *H(straight, q, v))
    np.testing.assert_allclose(q2, q + advance_vector(coords, 0.0, 0.132), atol=1e-14)
    np.testing.assert_allclose(v2, v, atol=1e-14)
    # by hand: g_half∘M∘g_half∘M = g_half∘(dx, −dy, −ψ), from the cycle's gauge start
    dx, dy, psi = 0.066, 0.02, 0.11
    q2, v2 = H(advance_vector(coords, 0.0, dx, dy, psi), *H(advance_vector(coords, 0.0, dx, dy, psi), q, v))
    net = advance_vector(coords, 0.0, dx * (1 + np.cos(psi)) + dy * np.sin(psi), dx * np.sin(psi) + dy * (1 - np.cos(psi)))
    np.testing.assert_allclose(q2, q + net, atol=1e-14)     # no net turn: +ψ then −ψ
    np.testing.assert_allclose(v2, v, atol=1e-14)           # so nothing is rotated over the cycle
    q2, _ = H(advance_vector(coords, 0.0, dx, dy), *H(advance_vector(coords, 0.0, dx, dy), q, v))
    np.testing.assert_allclose(q2, q + advance_vector(coords, 0.0, 2 * dx), atol=1e-14)  # sideways steps cancel
    # a problem asking for it is refused with one line naming the key
    data = yaml.safe_load(TURN.read_text())
    data["gait"] = {"cycle": "half", "phases": data["gait"]["phases"][:1]}
    with pytest.raises(InputError) as err:
        problem_from_dict(data, source="half.yaml")
    assert "speed" in str(err.value) and "gait.cycle: full" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.fast
@pytest.mark.parametrize("speed, key", [
    ({"forward": 0.3, "yaw_rate": "fast"}, "speed.yaw_rate"),
    ({"forward": -0.1, "sideways": 0.2}, "speed.forward"),
    ({"forward": 0.3, "sidways": 0.2}, "speed.sidways"),
    ({"forward": 0.3, "yaw_rate": 50}, "speed.yaw_rate"),
])
def test_bad_speed_mapping_is_one_line_exit_2(tmp_path, speed, key):
    data = yaml.safe_load(TURN.read_text())
    data["speed"] = speed
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "gaitopt.cli", "solve", str(path), "-o", str(tmp_path / "out")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gaitopt: ") and key in lines[0] and str(path) in lines[0], lines


@pytest.mark.fast
def test_speed_mapping_round_trips_and_sagittal_robots_refuse_it():
    problem = go.load_problem(TURN)
    assert (problem.speed.min, problem.sideways, problem.yaw_rate) == (0.2, 0.0, 0.5)
    from gaitopt.problem import problem_from_record
    back = problem_from_record(problem.to_dict())
    assert (back.speed, back.sideways, back.yaw_rate) == (problem.speed, problem.sideways, problem.yaw_rate)
    assert go.load_problem(SIDEWAYS).speed.min == 0.0
    data = yaml.safe_load((ROOT / "problems" / "biped7_static_walk.yaml").read_text())
    data["speed"] = {"forward": 0.3, "sideways": 0.1}
    data["gait"]["cycle"] = "full"
    problem = problem_from_dict(data, source="sagittal.yaml", base_dir=ROOT / "problems")
    with pytest.raises(InputError, match="cannot move sideways or turn"):
        go.solve(problem)


@pytest.mark.fast
def test_a_left_out_forward_speed_is_zero_unless_a_stride_is_given():
    """`speed: {sideways: v}` walks sideways: the forward speed left out was free, and a sideways
    ANYmal trot came out walking 0.51 m/s diagonally. With a `stride` the forward advance is that."""
    data = yaml.safe_load(SIDEWAYS.read_text())
    data["speed"] = {"sideways": -0.15}
    problem = problem_from_dict(data, source="side.yaml")
    assert problem.speed is not None and (problem.speed.min, problem.speed.max) == (0.0, 0.0)
    assert problem.sideways == -0.15
    from gaitopt.problem import problem_from_record
    assert problem_from_record(problem.to_dict()).speed == problem.speed
    data["stride"] = 0.1
    with_stride = problem_from_dict(data, source="side.yaml")
    assert with_stride.speed is None and with_stride.stride.min == 0.1


@pytest.fixture(scope="module")
def small_turn(tmp_path_factory):
    problem = go.load_problem(TURN).scaled_knots(5 / 12)
    problem = problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))
    result = go.solve(problem)
    out = tmp_path_factory.mktemp("turn")
    save(result, out)
    return result, out


def test_turning_trot_closes_its_cycle_modulo_the_rotation(small_turn):
    """From the exported trajectory.csv alone: the header's cycle_transform is yaw_rate·T and
    the chord of the arc; the NLP's last knot (row −2) joins the next cycle's first (row −1,
    the first row transformed by the header) in q; the body-frame base velocity, not the world
    one, repeats; load_result reads the same transform back."""
    result, out = small_turn
    assert result.success, result.status
    meta, cols = read_trajectory_csv(out / "trajectory.csv")
    coords = list(result.robot.coordinates)
    ix, iy, iyaw = (coords.index(c) for c in ("base_x", "base_y", "base_yaw"))
    q = np.column_stack([cols[f"q.{c}"] for c in coords])
    v = np.column_stack([cols[f"v.{c}"] for c in coords])
    T, ct = meta["period"], meta["cycle_transform"]
    assert ct["yaw"] == pytest.approx(0.5 * T, rel=1e-12)
    np.testing.assert_allclose([ct["x"], ct["y"]], planar_advance(meta["stride"], 0.0, 0.5 * T), atol=1e-12)
    assert meta["stride"] / T == pytest.approx(0.2, rel=1e-6)
    R = _rz(ct["yaw"])
    expected = q[0].copy()
    expected[[ix, iy]] = R @ q[0, [ix, iy]] + [ct["x"], ct["y"]]
    expected[iyaw] += ct["yaw"]
    np.testing.assert_allclose(q[-1], expected, rtol=0, atol=1e-12)        # the file's contract
    residual = np.abs(q[-2] - q[-1]).max()                                   # the NLP's periodicity
    print(f"\nturning trot (5 knots/phase): periodicity residual |q_end - g(q_start)| = {residual:.2e}")
    assert residual < 1e-6
    np.testing.assert_allclose(v[-1, [ix, iy]], R @ v[0, [ix, iy]], atol=1e-12)

    def body(row):
        c, s = np.cos(q[row, iyaw]), np.sin(q[row, iyaw])
        return np.array([[c, s], [-s, c]]) @ v[row, [ix, iy]]
    np.testing.assert_allclose(body(-1), body(0), atol=1e-12)
    assert np.linalg.norm(v[-1, [ix, iy]] - v[0, [ix, iy]]) > 1e-3 * np.linalg.norm(v[0, [ix, iy]])
    back = load_result(out)
    np.testing.assert_allclose(back.trajectory.base_shift, result.trajectory.base_shift, atol=1e-15)
    # several cycles: the heading advances by yaw_rate·T per cycle at every sample time
    t = np.linspace(0.0, 3 * T, 31)
    s = back.trajectory.sample(t)
    later = back.trajectory.sample(t + T)
    np.testing.assert_allclose(later["q"][:, iyaw] - s["q"][:, iyaw], 0.5 * T, atol=1e-12)


def test_csv_alone_chains_the_rotated_cycle_and_old_files_read_straight(small_turn, tmp_path):
    """Without knots.npz load_result rebuilds the transform from trajectory.csv's header; a
    file written before `cycle_transform` existed reads as a straight cycle (stride along x)."""
    import shutil
    import warnings
    from gaitopt.study import warm_start_from_csv
    result, out = small_turn
    d = tmp_path / "csv_only"
    shutil.copytree(out, d)
    (d / "knots.npz").unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = load_result(d)
    np.testing.assert_allclose(back.trajectory.base_shift, result.trajectory.base_shift, atol=1e-15)
    np.testing.assert_allclose(warm_start_from_csv(d / "trajectory.csv").trajectory.base_shift,
                               result.trajectory.base_shift, atol=1e-15)
    text = (d / "trajectory.csv").read_text(encoding="utf-8")
    old = d / "old.csv"
    old.write_text("".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith("# cycle_transform")),
                   encoding="utf-8")
    shift = warm_start_from_csv(old).trajectory.base_shift
    coords = list(result.robot.coordinates)
    assert shift[coords.index("base_x")] == pytest.approx(result.trajectory.stride)
    assert shift[coords.index("base_yaw")] == 0.0 and shift[coords.index("base_y")] == 0.0


@pytest.mark.fast
def test_verify_judges_the_planar_displacement_and_the_heading():
    """A replay that travels the planned distance in a direction 10° off, or turns 20 % less,
    is off by more than the 10 % tolerance; the plan itself is off by nothing. Straight gaits
    keep the base_x criterion."""
    from types import SimpleNamespace
    from gaitopt.verify.judge import _progress
    coords = ["base_x", "base_y", "base_z", "base_yaw", "base_pitch", "base_roll"]
    traj = SimpleNamespace(base_shift=np.array([0.1, 0.01, 0.0, 0.2, 0.0, 0.0]), stride=0.1)
    q_plan = np.zeros((2, 6))
    q_plan[1, :2], q_plan[1, 3] = [0.2, 0.04], 0.4
    planned, simulated, rel, heading = _progress(traj, coords, 2, q_plan, q_plan)
    assert rel == 0.0 and heading["relative_error"] == 0.0 and planned == pytest.approx(np.hypot(0.2, 0.04))
    q_sim = q_plan.copy()
    q_sim[1, :2] = _rz(np.radians(10)) @ q_plan[1, :2]
    _, simulated, rel, heading = _progress(traj, coords, 2, q_plan, q_sim)
    assert simulated == pytest.approx(planned) and rel == pytest.approx(2 * np.sin(np.radians(5)))
    assert heading["direction_error_rad"] == pytest.approx(np.radians(10))
    q_sim = q_plan.copy()
    q_sim[1, 3] = 0.32
    assert _progress(traj, coords, 2, q_plan, q_sim)[3]["relative_error"] == pytest.approx(0.2)
    straight = SimpleNamespace(base_shift=np.array([0.1, 0, 0, 0, 0, 0.0]), stride=0.1)
    q_sim = np.zeros((2, 6))
    q_sim[1, :2] = [0.19, 0.05]   # sideways drift is not judged for a straight gait (as before)
    planned, simulated, rel, heading = _progress(straight, coords, 2, q_plan * 0, q_sim)
    assert (planned, simulated, heading) == (0.2, 0.19, None) and rel == pytest.approx(0.05)


HOAP2_TURN = {
    "description": "HOAP-2 static walk, full cycle, turning", "robot": "hoap2",
    "gait": {"cycle": "full", "phases": [
        {"name": "ss_left", "contacts": {"left": "flat", "right": "swing"}, "knots": 4, "duration": 0.4},
        {"name": "ds_1", "contacts": {"left": "flat", "right": "flat"}, "knots": 5, "duration": 0.6},
        {"name": "ss_right", "contacts": {"left": "swing", "right": "flat"}, "knots": 4, "duration": 0.4},
        {"name": "ds_2", "contacts": {"left": "flat", "right": "flat"}, "knots": 5, "duration": 0.6}]},
    "speed": {"forward": 0.0375, "yaw_rate": 0.2},
    "constraints": {"friction": {"mu": 0.7, "cone": "pyramid"}, "clearance": 0.015, "touchdown": "soft"},
    "cost": {"joule_loss": 1.0, "torque_rate_squared": 1.0e-2}, "transcription": "trapezoidal"}


def _hoap2_turn(tmp_path, yaw_rate):
    data = dict(HOAP2_TURN, speed={"forward": 0.0375, "yaw_rate": yaw_rate})
    path = tmp_path / f"hoap2_turn_{yaw_rate}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return go.load_problem(path)


def test_a_turning_biped_keeps_its_yaw_band_about_the_path(tmp_path):
    """A biped turning 0.4 rad per 2 s cycle: the body's yaw band is held about the path's heading
    yaw_rate·(t − T/2), not about +x (an absolute ±0.25 rad band left it locally infeasible);
    feasibility_report judges the same band from the exported file."""
    from gaitopt.feasibility import feasibility_report
    problem = _hoap2_turn(tmp_path, 0.2)
    result = go.solve(problem, print_level=0)
    assert result.success, result.message
    save(result, tmp_path / "out")
    back = load_result(tmp_path / "out")
    yaw = back.trajectory.sample(np.linspace(0.0, back.trajectory.period, 200))["q"][:, back.robot.index("base_yaw")]
    assert np.ptp(yaw) > 0.3  # the body turns with the path
    margins = feasibility_report(back.trajectory, back.robot, back.problem)["base_attitude"]
    assert margins["yaw"] > -1e-6 and min(margins.values()) > -1e-6


def test_a_turn_no_planted_sole_can_follow_is_refused(tmp_path):
    """At 0.6 rad/s a sole planted 1.6 s would have to turn 0.96 rad against the body, more than
    the foot yaw and body yaw bands allow (0.9 rad): refused before solving, naming yaw_rate."""
    from gaitopt.precheck import check_problem
    problem = _hoap2_turn(tmp_path, 0.6)
    with pytest.raises(InputError) as err:
        check_problem(problem, go.load_robot(problem.robot))
    assert err.value.field == "speed.yaw_rate" and "0.96 rad" in str(err.value)
    check_problem(_hoap2_turn(tmp_path, 0.2), go.load_robot("hoap2"))


def test_sideways_summary_prints_no_negative_zero():
    """A sideways trot's forward stride comes out as −1.8e-40 (no forward advance): the summary
    printed "stride -0.0000 m … speed -0.0000 m/s"."""
    result = go.solve(go.load_problem(SIDEWAYS).scaled_knots(0.5), print_level=0)
    assert result.success, result.status
    line = next(line for line in result.summary().splitlines() if line.startswith("stride"))
    assert line.startswith("stride 0.0000 m,") and "speed 0.0000 m/s" in line and "-0.0000" not in line
