"""Replaying optimal gaits in MuJoCo (gaitopt.verify): the MuJoCo model against Pinocchio, every
shipped problem's solution at test size replayed for REPLAY_CYCLES cycles (no fall, no slip,
distance within 10 % of the plan), the report contract, the CLI and a negative control.

Measured figures are printed; run with -s to see them.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

import gaitopt as go                                     # noqa: E402
from gaitopt import verify                               # noqa: E402
from gaitopt.cli import main                             # noqa: E402
from gaitopt.export import save                          # noqa: E402
from gaitopt.problem import shipped_problems             # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PROBLEM_FILES = shipped_problems()
TEST_SCALE = 1.0          # the shipped problems at their own knots (what `gaitopt solve` gives)
REPLAY_CYCLES = 2
DISTANCE_RTOL = 0.10

# Every shipped problem verifies at its own knots (knots × 1, 2 cycles) with the reflected rotor
# inertias G²·J_rotor in the model (robot.yaml `reflected_inertia`, default on; MuJoCo joint
# armature set to the same) and joint PD at 30 Hz. What each replay measures, and what made the
# marginal ones (slope walk, bolt, HOAP-2 3-D) replay: docs/verification.md (bench/verify.py).


def quiet(problem):
    return problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))


@pytest.fixture(scope="module", params=PROBLEM_FILES, ids=[p.stem for p in PROBLEM_FILES])
def replayed(request):
    result = go.solve(quiet(go.load_problem(request.param).scaled_knots(TEST_SCALE)))
    rep = verify.replay(result, cycles=REPLAY_CYCLES)
    return request.param.stem, result, rep


def test_replay_verifies(replayed):
    name, result, rep = replayed
    assert result.success, f"{name} did not solve: {result.status}"
    r = rep.report
    print(f"\n{name}: distance {r['distance']['simulated_m']:.4f} m simulated vs {r['distance']['planned_m']:.4f} m "
          f"planned ({100 * r['distance']['relative_error']:.1f} %), fell {r['fell']} "
          f"(at {r['fell_at_s']}), largest stance slip {1e3 * max(r['slip_m'].values()):.1f} mm, "
          f"torque RMS difference {r['torque']['rms_difference_all_Nm']:.3g} N·m "
          f"(planned RMS {np.sqrt(np.mean(np.square(list(r['torque']['rms_planned_Nm'].values())))):.3g}), "
          f"contact force RMS difference / weight {r['contact_forces']['rms_difference_over_weight']:.3f}")
    assert not r["fell"], r["failures"]
    assert r["distance"]["relative_error"] <= DISTANCE_RTOL, r["failures"]
    assert not r["slipped"], r["failures"]
    assert rep.verified and r["verified"] and not r["failures"]
    assert r["simulated_s"] == pytest.approx(REPLAY_CYCLES * result.trajectory.period, abs=2 * verify.ReplaySettings().timestep)


@pytest.mark.fast
@pytest.mark.parametrize("robot_name", ["biped7", "hoap2_sagittal", "titan8", "solo12", "hoap2"])
def test_mujoco_model_matches_pinocchio(robot_name):
    """The URDF through MuJoCo's compiler, with gaitopt's base coordinates: the same mass,
    mass matrix, bias forces (gravity, Coriolis) and contact points as Pinocchio's model."""
    robot = go.load_robot(robot_name)
    sim = verify.build_model(robot)          # checks at the standing posture
    rng = np.random.default_rng(0)
    for _ in range(3):
        q = robot.standing_q + 0.3 * rng.standard_normal(robot.nq)
        v = rng.standard_normal(robot.nv)
        errs = verify.check_against_pinocchio(sim, q, v)
        assert max(errs.values()) < 1e-6, errs


@pytest.mark.fast
def test_stance_gains_follow_the_feet_below_each_joint():
    robot = go.load_robot("biped7")
    sim = verify.build_model(robot, settings=verify.ReplaySettings(stance_frequency_hz=2.0))
    feet = list(robot.feet)
    for i, j in enumerate(robot.actuated):
        side = j.split("_")[0]
        assert list(sim.joint_feet[i]) == [f == side for f in feet], j
    # a stance ankle turns the whole robot: far more inertia than its foot
    inertia = verify.joint_inertias(robot, robot.standing_q)
    ankle = robot.actuated.index("left_ankle")
    assert inertia[ankle, 1] > 100 * inertia[ankle, 0]   # 430× with the rotor inertia on the ankle
    assert np.all(sim.kp_stance > 0) and np.all(sim.kp > 0)


@pytest.mark.fast
def test_locked_joints_are_fixed_at_their_values():
    robot = go.load_robot("hoap2_sagittal")
    assert robot.locked
    text = verify.mesh_free_urdf(robot)
    assert "<visual" not in text and "<collision" not in text
    sim = verify.build_model(robot)
    names = {sim.model.joint(i).name for i in range(sim.model.njnt)}
    assert not names & set(robot.locked)
    assert names == set(robot.coordinates)


@pytest.fixture(scope="module")
def static_walk_dir(tmp_path_factory):
    problem = quiet(go.load_problem(ROOT / "problems" / "biped7_static_walk.yaml").scaled_knots(TEST_SCALE))
    out = tmp_path_factory.mktemp("static_walk")
    save(go.solve(problem), out)
    return out


def test_cli_writes_report_and_plot(static_walk_dir, tmp_path, capsys):
    out = tmp_path / "v"
    code = main(["verify", str(static_walk_dir), "--cycles", "1", "-o", str(out)])
    printed = capsys.readouterr()
    report = json.loads((out / verify.REPORT_FILE).read_text())
    assert code == (0 if report["verified"] else 1), printed.err
    assert code == 0, report["failures"]
    assert (out / verify.PLOT_FILE).stat().st_size > 10_000
    for key in ("format", "verified", "failures", "robot", "cycles", "simulated_s", "period_s", "distance", "fell",
                "fell_at_s", "base", "slipped", "slip_m", "slip_planned_m", "joint_tracking_rms_rad", "torque",
                "contact_forces", "settings", "pd_gains", "versions", "files", "result_dir"):
        assert key in report, key
    assert report["format"] == verify.REPORT_FORMAT
    assert set(report["distance"]) == {"planned_m", "simulated_m", "relative_error"}
    assert set(report["torque"]["rms_difference_Nm"]) == set(go.load_robot("biped7").actuated)
    assert set(report["contact_forces"]["feet"]) == {"left", "right"}
    assert report["cycles"] == 1


def test_cli_verification_failure_exit_1(static_walk_dir, tmp_path, capsys):
    """Negative control: the same gait on ice (μ = 0.01 in result.json) must fail to verify
    (measured: μ = 0.05 still verifies over one cycle, 12 mm largest slip; μ = 0.02 slips 23 mm)."""
    import shutil
    d = tmp_path / "ice"
    shutil.copytree(static_walk_dir, d)
    info = json.loads((d / "result.json").read_text())
    info["problem"]["constraints"]["friction"] = 0.01
    (d / "result.json").write_text(json.dumps(info))
    code = main(["verify", str(d), "--cycles", "1"])
    err = capsys.readouterr().err
    report = json.loads((d / verify.REPORT_FILE).read_text())
    assert code == 1 and not report["verified"]
    assert report["slipped"] or report["fell"], report
    assert err.startswith("gaitopt: verification failed")


@pytest.mark.parametrize("args", [["verify", "/nonexistent/dir"], ["verify", "{d}", "--cycles", "0"],
                                  ["verify", "{d}", "--cycles", "two"]])
def test_cli_bad_input_exit_2(args, static_walk_dir, capsys):
    code = main([a.format(d=static_walk_dir) for a in args])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("gaitopt: ") and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.fast
def test_missing_mujoco_is_a_clear_input_error(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "mujoco", None)
    with pytest.raises(go.InputError, match="pip install"):
        verify.build_model(go.load_robot("biped7"))


def test_verify_dir_api(static_walk_dir, tmp_path):
    rep, paths = verify.verify_dir(static_walk_dir, cycles=1, output=tmp_path)
    assert paths["report"].is_file() and paths["plot"].is_file()
    saved = json.loads(paths["report"].read_text())
    assert saved["verified"] == rep.verified
    assert saved["distance"] == rep.report["distance"]
    n = len(rep.series["time"])
    assert rep.series["q_sim"].shape == (n, 9) and rep.series["force_sim"].shape == (n, 2, 3)
