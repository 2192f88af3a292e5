"""HOAP-2 motion files (`gaitopt export --format hoap2`, gaitopt.export.hoap2): rows read back
equal the joint values they came from at the 2 ms sample times (the transcription's
interpolant), locked and unmodelled motors are held, and a motion over the servo limits is
reported (warning, file written, exit 0) where and by how much it exceeds them."""
from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import gaitopt as go
from gaitopt import export as E
from gaitopt.cli import main
from gaitopt.errors import InputError
from gaitopt.export import hoap2 as H
from gaitopt.robot import load_robot
from gaitopt.trajectory import Trajectory

ROOT = Path(__file__).resolve().parent.parent
SIGN = dict(H.MOTORS)


def _solve(name: str):
    result = go.solve(go.load_problem(ROOT / "problems" / f"{name}.yaml").scaled_knots(0.5), print_level=0)
    assert result.success, result.message
    return result


@pytest.fixture(scope="module")
def walk():
    """The shipped sagittal HOAP-2 walk (hoap2_sagittal) at half its knots."""
    return _solve("hoap2_walk")


@pytest.fixture(scope="module")
def static_walk():
    """The shipped 3-D HOAP-2 static walk (hoap2: 23 moving joints, hands locked) at half its knots."""
    return _solve("hoap2_static_walk")


def _time_scaled(result, s: float):
    """The same gait played s times as fast: t/s, v·s, a·s² (q unchanged)."""
    arr = dict(result.trajectory.to_arrays())
    arr["period"] = np.array(float(arr["period"]) / s)
    for key in list(arr):
        if key.endswith(".t"):
            arr[key] = arr[key] / s
        elif key.endswith(".v"):
            arr[key] = arr[key] * s
        elif key.endswith(".a"):
            arr[key] = arr[key] * s * s
    return dataclasses.replace(result, trajectory=Trajectory.from_arrays(arr))


@pytest.mark.parametrize("case", ["walk", "static_walk"])
def test_rows_are_the_joint_values_at_2_ms(case, request, tmp_path):
    walk = request.getfixturevalue(case)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # this slow walk is within the servo limits: no warning
        paths = E.export(walk, "hoap2", tmp_path / "walk.csv")
    meta, data = H.read_hoap2_motion(paths["export"])
    robot, traj = walk.robot, walk.trajectory
    n = int(np.ceil(traj.period * 500 - 1e-9))
    assert data["pulses"].shape == (n, 25) and meta["step_ms"] == 2.0 and meta["rows"] == n
    assert np.array_equal(np.loadtxt(paths["export"], delimiter=",", dtype=np.int64), data["pulses"])
    q = traj.sample(np.arange(n) * 0.002)["q"]  # the interpolant at the rows' times
    moved = 0
    for k, motor in enumerate(data["motors"]):
        if motor in robot.coordinates:
            exact = SIGN[motor] * 209 * np.degrees(q[:, robot.coordinates.index(motor)])
            moved += 1
        else:  # locked by the robot (sagittal: arms hanging, lateral joints at 0; both: hands)
            exact = np.full(n, SIGN[motor] * 209 * np.degrees(robot.locked[motor]))
        assert np.abs(data["pulses"][:, k] - exact).max() <= 0.5 + 1e-9, motor
        assert np.abs(np.degrees(data["angles"][:, k]) - exact / (SIGN[motor] * 209)).max() <= 0.5 / 209 + 1e-12
    assert moved == len(robot.actuated) == {"walk": 7, "static_walk": 23}[case]
    assert meta["not_modelled_held_at_0"] == [] and meta["locked"] == pytest.approx(robot.locked)
    assert meta["servo_check"].startswith("within the servo limits")
    # the motion's peaks as the rows give them
    vel = np.abs(np.diff(data["pulses"], axis=0)).max() / 2.0
    assert vel <= meta["servo_peaks"]["velocity_pulse_per_ms"] <= H.VELOCITY_LIMIT


def test_mirrored_motors_have_opposite_signs(walk):
    """The leg pitch motors are mounted mirrored (replay controller's table): the same hip pitch on
    both legs gives opposite pulse counts; the knees likewise."""
    angles = np.zeros(25)
    names = [m for m, _ in H.MOTORS]
    for j, a in (("RLEG_JOINT3", -0.35), ("LLEG_JOINT3", -0.35), ("RLEG_JOINT4", 0.7), ("LLEG_JOINT4", 0.7)):
        angles[names.index(j)] = a
    p = H.to_pulses(angles)
    assert p[names.index("RLEG_JOINT3")] == -p[names.index("LLEG_JOINT3")] != 0
    assert p[names.index("RLEG_JOINT4")] == -p[names.index("LLEG_JOINT4")] != 0
    assert np.allclose(H.to_radians(p), angles, atol=np.radians(0.5 / 209))


def test_over_the_servo_limits_warns_where_and_by_how_much(walk, tmp_path):
    fast = _time_scaled(walk, 4.0)  # four times as fast: peak velocity × 4, acceleration × 16
    with pytest.warns(UserWarning, match="exceeds the servo limits"):
        path = H.write_hoap2_motion(fast, tmp_path / "fast.csv")
    meta, data = H.read_hoap2_motion(path)
    p = data["pulses"].astype(float)
    vel = np.abs(np.diff(p, axis=0)) / 2.0
    over = np.flatnonzero(vel.max(axis=1) > H.VELOCITY_LIMIT)
    assert len(over) > 0 and "velocity" in meta["servo_check"]
    check = H.servo_check(data["pulses"], 2.0)  # the rows alone, recomputed from the file
    worst = max((o for o in check["over"] if o["quantity"] == "velocity"), key=lambda o: o["ratio"])
    k = data["motors"].index(worst["motor"])
    assert worst["peak"] == pytest.approx(vel[:, k].max())
    assert worst["ratio"] == pytest.approx(vel[:, k].max() / H.VELOCITY_LIMIT)
    bad = np.flatnonzero(vel[:, k] > H.VELOCITY_LIMIT)
    assert (worst["first_row"], worst["last_row"], worst["steps"]) == (bad.min(), bad.max(), len(bad))
    assert f"{worst['motor']} velocity" in meta["servo_check"] or len(check["over"]) > 4


def test_cli_exports_over_the_limits_with_exit_0(walk, tmp_path, capsys):
    d = tmp_path / "fast"
    E.save(_time_scaled(walk, 4.0), d)
    assert main(["export", str(d), "--format", "hoap2"]) == 0
    err = capsys.readouterr().err
    assert "gaitopt: warning: hoap2_500hz.csv: exceeds the servo limits" in err
    meta, _ = H.read_hoap2_motion(d / "hoap2_500hz.csv")
    assert meta["servo_check"] in err
    assert main(["export", str(d), "--format", "hoap2"]) == 0  # an earlier export may be replaced


@pytest.mark.fast
def test_servo_check_on_known_motions():
    t = np.arange(50)[:, None] * np.ones((1, 25))
    ramp = H.servo_check(120 * t, 2.0)  # 60 pulse/ms everywhere, no acceleration
    assert {o["quantity"] for o in ramp["over"]} == {"velocity"} and len(ramp["over"]) == 25
    assert ramp["over"][0] == {"motor": "RLEG_JOINT1", "quantity": "velocity", "peak": 60.0, "ratio": 60 / 57,
                               "steps": 49, "first_row": 0, "last_row": 48}
    parabola = H.servo_check(12 * t ** 2, 2.0)  # second difference 24 / 4 ms² = 6 pulse/ms²
    acc = [o for o in parabola["over"] if o["quantity"] == "acceleration"]
    assert acc[0]["peak"] == pytest.approx(6.0) and (acc[0]["first_row"], acc[0]["last_row"]) == (1, 48)
    calm = H.servo_check(10 * t, 2.0)
    assert calm["over"] == [] and calm["line"].startswith("within")


@pytest.mark.fast
def test_not_a_hoap2_robot_is_bad_input():
    with pytest.raises(InputError, match="hoap2 format is for the hoap2 robots") as err:
        H.motor_angles(SimpleNamespace(robot=load_robot("biped7")), np.zeros(2))
    # the formats the robot can use: every other one (mjcf and amp were left out)
    assert sorted(err.value.allowed) == ["amp", "full", "mjcf", "motors", "npz"]
