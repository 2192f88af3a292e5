"""Gear-ratio co-design: gear ratios as NLP variables, checked against a fixed-gear grid."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import gaitopt as go
from gaitopt import codesign
from gaitopt.energy import cycle_energies, phase_spans
from gaitopt.errors import InputError
from gaitopt.study import case_metrics

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = ROOT / "problems" / "biped7_heel_toe_walk.yaml"
JOINTS = ["left_hip", "right_hip", "left_knee", "right_knee", "left_ankle", "right_ankle"]
# fast enough that the motor's torque-speed line bounds the gear from above
BASE = {"speed": 0.8, "constraints.effort_limits": False, "constraints.velocity_limits": False}
GRID = (150.0, 300.0, 450.0, 600.0)  # 450 and 600 are infeasible at 0.8 m/s


def _problem(design=None):
    ov = dict(BASE)
    if design is not None:
        ov["design"] = {"gear_ratio": design}
    return go.load_problem(PROBLEM, ov).scaled_knots(0.5)


@pytest.fixture(scope="module")
def grid():
    """The same gear on every joint, solved on a grid (each from the previous one)."""
    robot = go.load_robot("biped7")
    out, prev = {}, None
    for G in GRID:
        r = go.solve(_problem(), robot=robot.with_actuators({j: robot.actuators[j].with_gear(G) for j in JOINTS}),
                     warm_start=prev, print_level=0)
        out[G] = r
        prev = r if r.success else prev
    return out


@pytest.fixture(scope="module")
def designed(grid):
    best = min((r for r in grid.values() if r.success), key=lambda r: r.cost)
    design = {"all": {"joints": JOINTS, "min": GRID[0], "max": GRID[-1]}}
    return best, codesign.solve(_problem(design), warm_start=best, print_level=0)


def test_codesign_optimum_is_no_worse_than_the_best_grid_point(designed):
    best, result = designed
    assert result.success, result.message
    assert result.cost <= best.cost * (1 + 1e-6)
    G = codesign.optimal_gears(result)["all"]
    assert GRID[0] * (1 - 1e-6) <= G <= GRID[-1] * (1 + 1e-6)


def test_codesign_gait_respects_the_motor_at_the_optimal_gear(designed):
    _, result = designed
    G = codesign.optimal_gears(result)["all"]
    assert all(result.robot.actuators[j].gear_ratio == pytest.approx(G) for j in JOINTS)
    m = case_metrics(result)  # numeric formulas of gaitopt.robot.Actuator at the optimal gear
    a = result.robot.actuators["left_knee"]
    assert max(m[f"peak_current.{j}"] for j in JOINTS) <= a.current_limit * (1 + 1e-6)
    assert max(m[f"peak_voltage.{j}"] for j in JOINTS) <= a.voltage * (1 + 1e-6)
    # the Joule loss the NLP minimised through the symbolic gear is the numeric one at G, by the
    # cost's own quadrature (the trapezoid over the knots) ...
    traj = result.trajectory
    knots = [np.concatenate([getattr(p, k) for p in traj.phases]) for k in ("t", "tau", "v")]
    e = cycle_energies(result.robot, *knots, phase_spans(len(p.t) for p in traj.phases))
    assert e["joule_loss"] / traj.distance == pytest.approx(result.cost, rel=1e-6)
    # ... and the table's (the exported motion, densely: at most that, test_study)
    assert m["joule_loss_per_m"] <= result.cost * (1 + 1e-9)
    assert m["joule_loss_per_m"] == pytest.approx(result.cost, rel=0.08)
    assert result.max_violation < 1e-6


def test_fixed_gear_solve_at_the_optimum_reproduces_it(designed):
    """Fixing the gear at the co-design optimum and warm-starting from its gait gives the same cost."""
    _, result = designed
    again = go.solve(_problem(), robot=result.robot, warm_start=result, print_level=0)
    assert again.success
    assert again.cost == pytest.approx(result.cost, rel=1e-3)


@pytest.mark.fast
@pytest.mark.parametrize("design, match", [
    ({"hip": {"joints": ["left_hip"], "min": 10, "max": 100}}, "mirror partners in one group: add 'right_hip'"),
    ({"elbow": {"min": 10, "max": 100}}, "'elbow' is not an actuated joint"),
])
def test_bad_design_at_transcription(design, match):
    with pytest.raises(InputError, match=match):
        go.solve(_problem(design), print_level=0)


@pytest.mark.fast
@pytest.mark.parametrize("design, match", [
    ({"knee": {"joints": ["left_knee"], "min": 100, "max": 10}}, "need min < max"),
    ({"knee": {"joints": ["left_knee"], "min": 10, "max": 100, "step": 1}}, r"design\.gear_ratio\.knee\.step: unknown key"),
    ({"a": {"joints": ["left_knee"], "min": 1, "max": 9}, "b": {"joints": ["left_knee"], "min": 1, "max": 9}},
     "one group only"),
])
def test_bad_design_section(design, match):
    with pytest.raises(InputError, match=match):
        _problem(design)


def test_saved_codesign_header_and_reload_carry_the_designed_gears(designed, tmp_path):
    """trajectory.csv's header of a gear co-design records the optimal gear (design.gear_ratio,
    and every designed joint's actuator and armature G²·J_rotor), plain Pinocchio rebuilt from
    it meets the equations of motion, and load_result gives back a robot with that gear (it
    gave the shipped one, so exports and compensate of a reloaded result used the wrong gears)."""
    from gaitopt.export import load_result, save
    from test_export_selfcontained import EOM_TOL, eom_residuals

    _, result = designed
    G = codesign.optimal_gears(result)["all"]
    shipped = go.load_robot("biped7").actuators["left_knee"].gear_ratio
    assert abs(G / shipped - 1) > 1e-3  # the design moved the gear: the checks below can fail
    save(result, tmp_path)
    meta, res = eom_residuals(tmp_path / "trajectory.csv")
    assert meta["design"] == {"gear_ratio": {"all": pytest.approx(G, rel=1e-12)}}
    # result.json too (a user looked for the gears there first)
    assert json.loads((tmp_path / "result.json").read_text())["design"] == meta["design"]
    for j in JOINTS:
        a = meta["actuators"][j]
        assert a["gear_ratio"] == pytest.approx(G, rel=1e-12)
        assert meta["armature"][j] == pytest.approx(G ** 2 * a["rotor_inertia"], rel=1e-9)
    assert max(r[2] for r in res if not r[4]) < EOM_TOL
    back = load_result(tmp_path)
    assert all(back.robot.actuators[j].gear_ratio == pytest.approx(G, rel=1e-12) for j in JOINTS)
    np.testing.assert_allclose(back.robot.model.armature, result.robot.model.armature, rtol=1e-12)
    assert codesign.optimal_gears(back) == {"all": pytest.approx(G, rel=1e-12)}  # it raised: no NLP point


def test_cli_solve_of_a_gear_design_saves_the_optimal_gears(tmp_path):
    """`gaitopt solve` of a problem with design.gear_ratio writes the robot at the optimal gear
    (it wrote the shipped gear, so trajectory.csv, exports and verify disagreed with the cost)."""
    import subprocess
    import sys

    import yaml

    data = yaml.safe_load(PROBLEM.read_text())
    data["speed"] = 0.8
    data.setdefault("constraints", {}).update(effort_limits=False, velocity_limits=False)
    data["design"] = {"gear_ratio": {"all": {"joints": JOINTS, "min": GRID[0], "max": GRID[1]}}}
    for ph in data["gait"]["phases"]:
        ph["knots"] = max(2, ph["knots"] // 2)
    path = tmp_path / "design.yaml"
    path.write_text(yaml.safe_dump(data))
    proc = subprocess.run([sys.executable, "-m", "gaitopt.cli", "solve", str(path), "-o", str(tmp_path / "out"),
                           "--print-level", "0"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    from gaitopt.export import load_result
    back = load_result(tmp_path / "out")
    G = codesign.optimal_gears(back)["all"]
    printed = float(proc.stdout.split("optimal gear ratios: all ")[1].split()[0])
    assert G == pytest.approx(printed, rel=1e-3)
    shipped = go.load_robot("biped7").actuators["left_knee"].gear_ratio
    assert abs(G / shipped - 1) > 1e-3, G  # the check above can fail
    m = case_metrics(back)
    assert m["joule_loss_per_m"] == pytest.approx(back.cost, rel=0.08)


@pytest.mark.fast
def test_the_urdf_effort_limit_of_a_designed_gear_is_nowhere_a_bound():
    """The transcription drops the URDF effort limit of a co-designed joint (it describes the
    shipped gear); trajectory.csv's torque_bounds, the MJCF motors, the plots and the replay
    said it bound τ all the same (the Go2 calf: 45.43 N·m at any designed gear)."""
    from types import SimpleNamespace
    from gaitopt.actuation import imposed_effort_limits
    from gaitopt.export.model_header import torque_bounds
    from gaitopt.plot import _torque_limit
    from gaitopt.verify.sim_model import actuator_torque_limits
    calf = ["FL_calf_joint", "FR_calf_joint", "RL_calf_joint", "RR_calf_joint"]
    problem = go.load_problem(ROOT / "problems" / "go2_trot.yaml",
                              {"design": {"gear_ratio": {"calf": {"joints": calf, "min": 6, "max": 50}}}})
    robot = go.load_robot("go2").with_actuators({j: go.load_robot("go2").actuators[j].with_gear(30.0) for j in calf})
    motor = {j: robot.actuators[j].torque_limit for j in robot.actuated}  # η G K I_max, 112 N·m on a calf
    effort = imposed_effort_limits(problem, robot)
    assert [j for j, e in zip(robot.actuated, effort) if np.isinf(e)] == calf
    bounds = torque_bounds(robot, problem)
    result = SimpleNamespace(robot=robot, problem=problem)
    for i, j in enumerate(robot.actuated):
        expect = motor[j] if j in calf else min(motor[j], robot.effort_limit[robot.actuated_index[i]])
        assert bounds[j] == pytest.approx(expect) and _torque_limit(result, j) == pytest.approx(expect)
        assert actuator_torque_limits(robot, problem)[i] == pytest.approx(expect)
    assert motor["FL_calf_joint"] == pytest.approx(0.9 * 30 * 0.126 * 33.03)


@pytest.mark.fast
def test_a_gear_on_its_bound_is_said_to_be():
    """An optimal gear on its design bound is not an interior optimum (a user's Go2 calf at
    0.3 m/s ended on max = 50): `gaitopt solve` says "(on its bound design.gear_ratio.calf.max)"."""
    from types import SimpleNamespace
    calf = ["FL_calf_joint", "FR_calf_joint", "RL_calf_joint", "RR_calf_joint"]
    problem = go.load_problem(ROOT / "problems" / "go2_trot.yaml",
                              {"design": {"gear_ratio": {"calf": {"joints": calf, "min": 6, "max": 50}}}})
    robot = go.load_robot("go2")
    for G, expect in ((50.0, {"calf": "max"}), (6.0, {"calf": "min"}), (32.2, {})):
        geared = robot.with_actuators({j: robot.actuators[j].with_gear(G) for j in calf})
        result = SimpleNamespace(problem=problem, robot=geared, x=None, layout=None)  # as load_result gives it
        assert codesign.gears_at_bounds(result) == expect
