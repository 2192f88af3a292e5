"""Kinematic feasibility on by default (gaitopt.constraints.kinematics): each rule is shown on a
gait that breaks it when the rule is switched off and keeps it when on, measured on the sampled
trajectory by numeric forward kinematics (gaitopt.feasibility), not from the NLP's rows; and
problems that cannot be solved are refused before solving (gaitopt.precheck)."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gaitopt as go
from gaitopt.errors import InputError
from gaitopt.export.trajectory_csv import read_trajectory_csv
from gaitopt.feasibility import BINDING_TOL, binding_rules, feasibility_bands, feasibility_report, result_binding_rules
from gaitopt.legs import leg_geometry
from gaitopt.precheck import check_problem
from gaitopt.problem import shipped_problems
from gaitopt.robot import robot_of

ROOT = Path(__file__).resolve().parent.parent
# The rows hold at the knots (to the solver's tolerance); between knots the interpolant may cross
# a bound by an amount that shrinks with the knot spacing: checked separately, relative to the leg.
TOL_M, TOL_RAD = 1e-6, 1e-6
BETWEEN_KNOTS = 0.02  # of the leg length
OFF = {"constraints.foot_range": False, "constraints.leg_separation": False,
       "constraints.base_attitude": False, "constraints.base_height": False, "constraints.knee_margin": False, "constraints.upper_body": False,
       "constraints.foot_yaw": False}


def _solve(name, overrides=None, scale=0.5):
    problem = go.load_problem(ROOT / "problems" / f"{name}.yaml", overrides or {}).scaled_knots(scale)
    result = go.solve(problem, print_level=0)
    assert result.success, (name, overrides, result.message)
    return result, feasibility_report(result.trajectory, result.robot, result.problem)


@pytest.fixture(scope="module")
def solo12_on():
    return _solve("solo12_trot")[0]


@pytest.fixture(scope="module")
def solo12(solo12_on):
    on = solo12_on
    off, _ = _solve("solo12_trot", OFF)
    # the 'off' gait judged by the default rules
    rep_off = feasibility_report(off.trajectory, off.robot, on.problem)
    return feasibility_report(on.trajectory, on.robot, on.problem), rep_off


@pytest.mark.parametrize("rule", ["base_height", "foot_range", "knee_margin"])
def test_solo12_rule_broken_when_off_and_kept_when_on(solo12, rule):
    rep_on, rep_off = solo12
    worst = lambda r: min(r[rule].values()) if isinstance(r[rule], dict) else r[rule]  # noqa: E731
    tol = TOL_RAD if rule == "knee_margin" else TOL_M
    assert worst(rep_off) < -0.01, f"{rule}: the unconstrained optimum should break it ({worst(rep_off)})"
    assert worst(rep_on) > -tol, f"{rule}: {worst(rep_on)}"


def test_binding_rules_name_the_bands_the_optimum_presses_on(solo12_on, tmp_path):
    """The rules whose margin at the knots is within BINDING_TOL of zero, no others; the trot's
    base height band (which its optimum breaks when off) is one; said in the summary and in
    result.json's binding_rules."""
    rep = feasibility_report(solo12_on.trajectory, solo12_on.robot, solo12_on.problem)
    rules = result_binding_rules(solo12_on)
    assert "base_height" in rules
    flat = {f"{k}.{j}" if isinstance(v, dict) else k: m
            for k, v in rep.items() for j, m in (v.items() if isinstance(v, dict) else [(None, v)])}
    assert rules == [name for name, margin in flat.items() if margin < BINDING_TOL]
    assert all(margin >= BINDING_TOL for name, margin in flat.items() if name not in rules)
    assert "at a feasibility band's edge: " in solo12_on.summary() and "base_height" in solo12_on.summary()
    # with the band's numbers, the robot's defaults here (a new user could not see them)
    low, high = feasibility_bands(solo12_on.problem, solo12_on.robot)["base_height"].values()
    assert f"base_height ({low:.3g}–{high:.3g} m)" in solo12_on.summary()
    go.export.save(solo12_on, tmp_path / "out")
    assert json.loads((tmp_path / "out" / "result.json").read_text())["binding_rules"] == rules
    assert binding_rules({"foot_range": {"FL": 0.02, "FR": 5e-5}, "knee_margin": -0.1, "upper_body": 0.3}) \
        == ["foot_range.FR", "knee_margin"]


def test_result_json_holds_the_bands_as_imposed(solo12_on, tmp_path):
    """result.json's feasibility_bands: the numbers behind the problem's null (robot default)
    settings. Judged from the exported knots alone, they give the report's margins; explicit
    settings and switched-off rules show as such."""
    go.export.save(solo12_on, tmp_path / "out")
    bands = json.loads((tmp_path / "out" / "result.json").read_text())["feasibility_bands"]
    rep = feasibility_report(solo12_on.trajectory, solo12_on.robot, solo12_on.problem)
    assert set(bands) == set(rep)
    _, cols = read_trajectory_csv(tmp_path / "out" / "trajectory.csv")
    robot = solo12_on.robot
    knots = np.asarray(cols["point"]) == "knot" if "point" in cols else slice(None)  # Hermite–Simpson midpoints apart
    for angle, (lo, hi) in bands["base_attitude"].items():
        a = np.asarray(cols[f"q.base_{angle}"])[knots]
        assert rep["base_attitude"][angle] == pytest.approx(min((a - lo).min(), (hi - a).min()), abs=1e-9)
    knees = robot.kinematics["knees"]
    worst_knee = min((k["bend"] * (np.asarray(cols[f"q.{j}"])[knots] - k.get("straight", 0.0))).min()
                     for j, k in knees.items())
    assert rep["knee_margin"] == pytest.approx(worst_knee - bands["knee_margin"], abs=1e-9)
    assert bands["base_height"]["min"] < bands["base_height"]["max"]
    for foot, box in bands["foot_range"].items():
        assert np.all(np.array(box["min"]) < np.array(box["max"])), foot
    problem = solo12_on.problem
    tight = dataclasses.replace(problem, constraints=dataclasses.replace(
        problem.constraints, knee_margin=0.3, base_attitude=False))
    resolved = feasibility_bands(tight, robot)
    assert resolved["knee_margin"] == 0.3 and "base_attitude" not in resolved


def test_summary_names_the_joints_resting_on_a_position_limit(tmp_path):
    """A joint at its position limit decides the gait as a band does: the summary says so. The
    Go2 trot with gaitopt's default bands stands on its calves' URDF stops (−0.838 rad, the knee
    cannot straighten further); the shipped file's own bands keep them off; with
    constraints.joint_limits off nothing is named (a new user's Go2 trial saw only
    'worst violations: joint_limits 1.44e-08')."""
    from gaitopt.result_notes import joints_at_position_limits
    defaults = {"constraints.base_height": None, "constraints.base_attitude": None, "constraints.foot_range": None}
    on_stops, _ = _solve("go2_trot", defaults, scale=1)
    calves = [f"upper.{leg}_calf_joint" for leg in ("FL", "FR", "RL", "RR")]
    assert joints_at_position_limits(on_stops) == calves
    assert ("at a joint's position limit: upper (FL_calf_joint, FR_calf_joint, RL_calf_joint, RR_calf_joint)"
            in on_stops.summary())
    from gaitopt.export.result_dir import save
    save(on_stops, tmp_path / "out")  # and result.json, for programs that read it
    assert json.loads((tmp_path / "out" / "result.json").read_text())["joints_at_position_limits"] == calves
    shipped, _ = _solve("go2_trot", scale=1)
    assert joints_at_position_limits(shipped) == [] and "position limit" not in shipped.summary()
    off = dataclasses.replace(on_stops, problem=on_stops.problem.replace(constraints={"joint_limits": False}))
    assert joints_at_position_limits(off) == []


def test_solo12_between_knots(solo12_on):
    result = solo12_on
    leg = leg_geometry(result.robot).length["FL"]
    rep = feasibility_report(result.trajectory, result.robot, result.problem, samples=400)
    assert min(rep["foot_range"].values()) > -BETWEEN_KNOTS * leg
    assert rep["base_height"] > -BETWEEN_KNOTS * leg


def test_bolt_legs_do_not_cross():
    on, rep_on = _solve("bolt_walk")
    off, _ = _solve("bolt_walk", {"constraints.leg_separation": False, "constraints.foot_range": False})
    rep_off = feasibility_report(off.trajectory, off.robot, on.problem)
    assert rep_off["leg_separation"] < -0.005
    assert rep_on["leg_separation"] > -TOL_M
    assert min(rep_on["foot_range"].values()) > -TOL_M  # and each foot on its own side


def test_hoap2_torso_attitude_band():
    on, rep_on = _solve("hoap2_walk")
    off, _ = _solve("hoap2_walk", {"constraints.base_attitude": False, "constraints.foot_range": False,
                                   "constraints.upper_body": False})
    rep_off = feasibility_report(off.trajectory, off.robot, on.problem)
    assert rep_off["base_attitude"]["pitch"] < -0.05
    assert rep_on["base_attitude"]["pitch"] > -TOL_RAD


def test_hoap2_upper_body_band():
    on, rep_on = _solve("hoap2_walk")
    off, _ = _solve("hoap2_walk", {"constraints.upper_body": False})
    rep_off = feasibility_report(off.trajectory, off.robot, on.problem)
    assert rep_off["upper_body"] < -0.05  # the waist leans past the band without the rule
    assert rep_on["upper_body"] > -TOL_RAD


def test_settings_resize_and_switch_off():
    problem = go.load_problem(ROOT / "problems" / "solo12_trot.yaml",
                              {"constraints.base_height": {"min": 0.2, "max": 0.25},
                               "constraints.foot_range": {"half_size": [0.05, 0.04, 0.05]},
                               "constraints.base_attitude": {"yaw": 0.1}, "constraints.knee_margin": 0.3})
    assert problem.constraints.base_height.max == 0.25
    assert problem.constraints.foot_range["half_size"] == [0.05, 0.04, 0.05]
    off = go.load_problem(ROOT / "problems" / "solo12_trot.yaml", OFF)
    assert all(getattr(off.constraints, k.split(".")[1]) is False for k in OFF)
    with pytest.raises(InputError, match="foot_range"):
        go.load_problem(ROOT / "problems" / "solo12_trot.yaml", {"constraints.foot_range": {"half_size": [1, 2]}})


# ---- impossible problems, refused before solving

def _problem(name, overrides):
    return go.load_problem(ROOT / "problems" / f"{name}.yaml", overrides)


@pytest.mark.parametrize("name, overrides, field", [
    # a foot on the ground all cycle while the base advances
    ("solo12_trot", {"gait.phases.0.contacts": {"FL": "stance", "FR": "swing", "HL": "stance", "HR": "stance"}},
     "gait.phases"),
    # a base held higher than the legs reach
    ("solo12_trot", {"constraints.base_height": {"min": 0.5, "max": 0.6}}, "constraints.base_height"),
    # stride and speed that no period within the phase durations allows
    ("biped7_static_walk", {"stride": 2.0}, "speed"),
    # a swing clearance above what the base height band and the foot's range allow (a new
    # user's 0.5 m: 625 iterations to IPOPT's infeasibility before this check)
    ("solo12_trot", {"constraints.clearance": 0.5}, "constraints.clearance"),
    # the same with `level: true` in the attitude band: the flag was read as a 1 rad tilt, whose
    # slack let clearances up to 0.4 m through
    ("solo12_trot", {"constraints.clearance": 0.3, "constraints.base_attitude": {"level": True}},
     "constraints.clearance"),
    # a speed no stride within the feet's range boxes reaches in the shortest cycle (a new user's
    # hexapod at speed 15, a unit slip: 580 iterations before this check)
    ("hexapod_tripod", {"speed": 15.0}, "speed"),
])
def test_impossible_problems_are_refused_before_solving(name, overrides, field):
    problem = _problem(name, overrides)
    robot = go.load_robot(problem.robot)
    with pytest.raises(InputError) as err:
        check_problem(problem, robot)
    assert err.value.field == field


def test_impossible_problem_exits_2_from_the_cli(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "gaitopt.cli", "solve", str(ROOT / "problems" / "solo12_trot.yaml"),
                           "-o", str(tmp_path / "out"), "--set", "constraints.base_height={min: 0.5, max: 0.6}"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "constraints.base_height" in proc.stderr
    assert not (tmp_path / "out" / "trajectory.csv").exists()


def test_shipped_problems_pass_the_precheck():
    for path in shipped_problems():
        problem = go.load_problem(path)
        check_problem(problem, robot_of(problem))


@pytest.mark.parametrize("key, value, component", [
    ("foot_range", {"half_size": [0.1, 0.05, 0.08]}, "FootRangeOfMotion"),
    ("leg_separation", {"lateral": 0.05}, "LegSeparation"),
    ("upper_body", {"band": 0.2}, "UpperBodyPosture"),
    ("knee_margin", 0.1, "KneeMargin"),
])
def test_problem_setting_overrides_robot_yaml_false(tmp_path, key, value, component):
    """A rule robot.yaml switches off (`kinematics: {KEY: false}`) is imposed when the problem
    gives it a value, the value feasibility_report judges by (the rows were left out while the
    report judged the problem's band)."""
    import shutil

    import yaml

    from gaitopt import constraints
    folder = tmp_path / "hoap2"
    shutil.copytree(ROOT / "robots" / "hoap2", folder)
    data = yaml.safe_load((folder / "robot.yaml").read_text(encoding="utf-8"))
    data.setdefault("kinematics", {})[key] = False
    (folder / "robot.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    kind = getattr(constraints, component)
    off = go.load_problem(ROOT / "problems" / "hoap2_static_walk.yaml", {"robot": str(folder)})
    assert not any(isinstance(c, kind) for c in constraints.active_constraints(off, robot_of(off)))
    on = go.load_problem(ROOT / "problems" / "hoap2_static_walk.yaml",
                         {"robot": str(folder), f"constraints.{key}": value})
    assert any(isinstance(c, kind) for c in constraints.active_constraints(on, robot_of(on)))


@pytest.mark.fast
def test_default_lateral_separation_keeps_wide_soles_apart():
    """Partner feet stay at least half their standing distance apart, and soles wide enough to
    meet at that distance at least their two half-widths plus SOLE_GAP (a new user's Talos, soles
    0.124 m wide at 0.17 m, ran with its soles overlapping by 50 mm), never more than standing."""
    from types import SimpleNamespace

    from gaitopt.constraints.kinematics import SOLE_GAP, default_lateral

    def geo(gap, half_width):
        return SimpleNamespace(stance={"l": np.array([0.0, gap / 2, -1.0]), "r": np.array([0.0, -gap / 2, -1.0])},
                               half_width={"l": half_width, "r": half_width})
    assert default_lateral(geo(0.17, 0.0), "l", "r") == pytest.approx(0.085)      # point or line feet
    assert default_lateral(geo(0.237, 0.025), "l", "r") == pytest.approx(0.1185)  # G1: narrow soles
    assert default_lateral(geo(0.17, 0.062), "l", "r") == pytest.approx(0.124 + SOLE_GAP)  # Talos
    assert default_lateral(geo(0.10, 0.06), "l", "r") == pytest.approx(0.10)     # wider than standing


def test_sole_half_widths_and_shipped_defaults():
    """leg_geometry's sole half-widths from the contact points (G1: corners 25 mm either side of
    the sole's centre line; point feet 0), and every shipped problem's lateral minimum as before
    the soles counted (half the standing distance, or its explicit setting)."""
    from gaitopt.constraints.kinematics import LEG_SEPARATION_FRACTION, separation_minima, setting

    g1 = go.load_robot("g1")
    assert leg_geometry(g1).half_width == pytest.approx({"left": 0.025, "right": 0.025}, abs=1e-9)
    assert set(leg_geometry(go.load_robot("solo12")).half_width.values()) == {0.0}
    for path in shipped_problems():
        problem = go.load_problem(path)
        robot = robot_of(problem)
        if robot.base != "3d":
            continue
        geo = leg_geometry(robot)
        given = (setting(problem, robot, "leg_separation") or {}).get("lateral")
        for a, b, axis, minimum in separation_minima(problem, robot):
            if axis == 1:
                standing = geo.stance[a][1] - geo.stance[b][1]
                assert minimum == pytest.approx(given if given is not None else LEG_SEPARATION_FRACTION * standing)


@pytest.mark.fast
def test_summary_groups_binding_rules_with_their_bands():
    from gaitopt.result_notes import _grouped
    names = ["foot_range.FL", "foot_range.FR", "base_attitude.pitch", "knee_margin", "foot_yaw.left"]
    values = {"knee_margin": "0.15 rad", "foot_yaw": "±0.2 rad",
              "base_attitude": {"roll": "-0.25…0.25 rad", "pitch": "-0.1…0.3 rad"}}
    assert _grouped(names, values) == ("foot_range (FL, FR), base_attitude (pitch -0.1…0.3 rad), knee_margin (0.15 rad), "
                                       "foot_yaw (left: ±0.2 rad)")
    assert _grouped(names) == "foot_range (FL, FR), base_attitude (pitch), knee_margin, foot_yaw (left)"
