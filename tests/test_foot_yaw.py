"""The foot yaw band (gaitopt.constraints.kinematics.FootYaw), a default kinematic feasibility rule
on 3-D robots whose feet have heel and toe points: without it HOAP-2's static walk toes its feet
in far past the band (2026-11-25: 4–33° through the hip yaws); with it the soles stay within
±band of their standing heading relative to the base's yaw. The numeric re-check
(gaitopt.feasibility) measures what the NLP's rows impose, and bad settings are refused with the
file, the key and the allowed values."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gaitopt as go
from gaitopt.constraints import FootYaw, active_constraints
from gaitopt.constraints.kinematics import FOOT_YAW_BAND, sole_feet, sole_headings, standing_sole_headings
from gaitopt.errors import InputError
from gaitopt.feasibility import binding_rules, feasibility_report, sole_yaws
from gaitopt.result import build_trajectory
from gaitopt.robot import robot_of
from gaitopt.transcription import transcribe

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "problems" / "hoap2_static_walk.yaml"
TOL_RAD = 1e-6


def _solve(overrides=None):
    problem = go.load_problem(STATIC, overrides or {}).scaled_knots(0.5)
    result = go.solve(problem, print_level=0)
    assert result.success, result.message
    return result


@pytest.fixture(scope="module")
def hoap2_on():
    return _solve()


def test_hoap2_toes_in_past_the_band_without_the_rule_and_not_with_it(hoap2_on):
    off = _solve({"constraints.foot_yaw": False})
    # the unconstrained gait judged by the default rules: its soles turn far past ±0.2 rad
    rep_off = feasibility_report(off.trajectory, off.robot, hoap2_on.problem)
    rep_on = feasibility_report(hoap2_on.trajectory, hoap2_on.robot, hoap2_on.problem)
    assert min(rep_off["foot_yaw"].values()) < -0.1, rep_off["foot_yaw"]
    assert min(rep_on["foot_yaw"].values()) > -TOL_RAD, rep_on["foot_yaw"]
    # the optimum presses on the band: it is named among the binding rules
    assert {"foot_yaw.left", "foot_yaw.right"} <= set(binding_rules(rep_on))
    # and the left foot toes in (turns right, negative yaw) without the rule, as measured
    yaws = sole_yaws(off.robot, np.concatenate([p.q for p in off.trajectory.phases]))
    assert yaws["left"].min() < -FOOT_YAW_BAND - 0.1 and yaws["right"].max() > FOOT_YAW_BAND + 0.1


def test_numeric_recheck_agrees_with_the_nlp_rows(hoap2_on):
    """At the optimum and at a perturbed point: each foot's larger NLP row at each knot equals
    h·sin(|ψ − ψ0| − band) from Pinocchio's forward kinematics (h = the heel-to-toe vector's
    horizontal length over its standing length), so the row is positive exactly where
    feasibility_report's margin band − |ψ − ψ0| is negative."""
    problem, robot = hoap2_on.problem, hoap2_on.robot
    tr = transcribe(problem, robot)
    band, standing = FOOT_YAW_BAND, standing_sole_headings(robot)
    rng = np.random.default_rng(3)
    for x in (hoap2_on.x, hoap2_on.x * (1 + 0.1 * rng.standard_normal(hoap2_on.x.size))):
        g = tr.assembly.g_value(x)
        trajectory, _ = build_trajectory(tr, x)
        for phase, solved in zip(problem.phases, trajectory.phases):  # the NLP's phases come first
            rows = np.concatenate([g[a:b] for term, name, a, b in tr.rows if term == "foot_yaw" and name == phase.name])
            nlp = np.sort(rows.reshape(-1, 2).max(axis=1))  # per (knot, foot): the larger of its two rows
            yaws = sole_yaws(robot, solved.q)
            numeric = []
            for k, q in enumerate(solved.q):
                pos = _contact_positions(robot, q)
                for foot, (a, b) in sole_headings(robot, q, pos).items():
                    h = np.hypot(a, b) / standing[foot][1]
                    numeric.append(h * np.sin(abs(yaws[foot][k]) - band))
            assert len(nlp) == len(numeric), phase.name
            assert np.allclose(nlp, np.sort(numeric), atol=1e-9), phase.name
    report = feasibility_report(hoap2_on.trajectory, robot, problem)
    assert min(report["foot_yaw"].values()) == pytest.approx(0.0, abs=1e-6)


def _contact_positions(robot, q):
    import pinocchio as pin
    data = robot.model.createData()
    pin.forwardKinematics(robot.model, data, q)
    pin.updateFramePlacements(robot.model, data)
    return np.stack([data.oMf[c.frame_id].act(np.asarray(c.point, float)) for c in robot.contacts], axis=1)


def test_applies_to_heel_toe_feet_of_3d_robots_only():
    """HOAP-2 (3-D, heel and toe) gets the rule; point feet (solo12, bolt) and sagittal robots do
    not, so their NLPs are unchanged; the standing heading is the sole's own (0 for HOAP-2)."""
    hoap2 = go.load_problem(STATIC)
    assert any(isinstance(c, FootYaw) for c in active_constraints(hoap2, robot_of(hoap2)))
    assert standing_sole_headings(robot_of(hoap2))["left"][0] == pytest.approx(0.0, abs=1e-9)
    for name in ("solo12_trot", "bolt_walk", "biped7_static_walk", "hoap2_walk"):
        problem = go.load_problem(ROOT / "problems" / f"{name}.yaml")
        robot = robot_of(problem)
        assert not sole_feet(robot), name
        assert not any(isinstance(c, FootYaw) for c in active_constraints(problem, robot)), name


@pytest.mark.parametrize("value, field, fragment", [
    ({"band": 15}, "constraints.foot_yaw.band", "<= 1.5708"),       # degrees typed for radians
    ({"band": -0.1}, "constraints.foot_yaw.band", ">= 0"),
    ({"band": float("nan")}, "constraints.foot_yaw.band", "finite"),
    ({"width": 0.2}, "constraints.foot_yaw.width", "unknown key"),
    (0.2, "constraints.foot_yaw", "expected a mapping"),
])
def test_bad_settings_refused(value, field, fragment):
    with pytest.raises(InputError) as info:
        go.load_problem(STATIC, {"constraints.foot_yaw": value})
    err = info.value
    assert err.field == field and fragment in str(err) and "allowed" in str(err), str(err)
    assert "\n" not in str(err)


@pytest.mark.parametrize("name, why", [("biped7_static_walk", "a sagittal base"), ("solo12_trot", "point feet")])
def test_band_on_a_robot_without_soles_refused(name, why):
    problem = go.load_problem(ROOT / "problems" / f"{name}.yaml", {"constraints.foot_yaw": {"band": 0.2}})
    with pytest.raises(InputError) as info:
        transcribe(problem, robot_of(problem))
    assert info.value.field == "constraints.foot_yaw" and why in str(info.value), str(info.value)
    # switched off it is accepted anywhere (the feasibility rules are switched off together)
    off = go.load_problem(ROOT / "problems" / f"{name}.yaml", {"constraints.foot_yaw": False})
    assert off.constraints.foot_yaw is False


def test_band_setting_and_switch(hoap2_on):
    """A band from the problem (or robot.yaml's kinematics) replaces the default; false removes
    the rows and the report's entry."""
    problem = go.load_problem(STATIC, {"constraints.foot_yaw": {"band": 0.35}})
    assert problem.constraints.foot_yaw == {"band": 0.35}
    rep = feasibility_report(hoap2_on.trajectory, hoap2_on.robot, problem)
    base = feasibility_report(hoap2_on.trajectory, hoap2_on.robot, hoap2_on.problem)
    for foot in ("left", "right"):
        assert rep["foot_yaw"][foot] == pytest.approx(base["foot_yaw"][foot] + 0.35 - FOOT_YAW_BAND)
    off = go.load_problem(STATIC, {"constraints.foot_yaw": False})
    assert "foot_yaw" not in feasibility_report(hoap2_on.trajectory, hoap2_on.robot, off)
    tr_on, tr_off = (transcribe(p, robot_of(p)) for p in (go.load_problem(STATIC), off))
    assert not any(t == "foot_yaw" for t, *_ in tr_off.rows)
    assert tr_on.n_constraints - tr_off.n_constraints == sum(b - a for t, _, a, b in tr_on.rows if t == "foot_yaw") > 0


@pytest.mark.parametrize("setting, band", [({"band": 0.35}, 0.35), (False, None)])
def test_robot_yaml_kinematics_setting(tmp_path, hoap2_on, setting, band):
    """robot.yaml `kinematics: {foot_yaw: …}` is the robot's own default, as for the other rules;
    the problem's `constraints.foot_yaw` overrides it."""
    import shutil
    import yaml
    folder = tmp_path / "hoap2"
    shutil.copytree(ROOT / "robots" / "hoap2", folder)
    data = yaml.safe_load((folder / "robot.yaml").read_text(encoding="utf-8"))
    data.setdefault("kinematics", {})["foot_yaw"] = setting
    (folder / "robot.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    problem = go.load_problem(STATIC, {"robot": str(folder)})
    robot = robot_of(problem)
    active = any(isinstance(c, FootYaw) for c in active_constraints(problem, robot))
    rep = feasibility_report(hoap2_on.trajectory, robot, problem)
    if band is None:
        assert not active and "foot_yaw" not in rep
    else:
        base = feasibility_report(hoap2_on.trajectory, hoap2_on.robot, hoap2_on.problem)
        assert active and rep["foot_yaw"]["left"] == pytest.approx(base["foot_yaw"]["left"] + band - FOOT_YAW_BAND)
    # the problem's setting wins, in the rows and in the re-check alike
    problem = go.load_problem(STATIC, {"robot": str(folder), "constraints.foot_yaw": {"band": 0.1}})
    base = feasibility_report(hoap2_on.trajectory, hoap2_on.robot, hoap2_on.problem)
    rep = feasibility_report(hoap2_on.trajectory, robot, problem)
    assert any(isinstance(c, FootYaw) for c in active_constraints(problem, robot))
    assert rep["foot_yaw"]["left"] == pytest.approx(base["foot_yaw"]["left"] + 0.1 - FOOT_YAW_BAND)
