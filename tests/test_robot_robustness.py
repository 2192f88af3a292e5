"""Robustness contract of robot folders: every bad robot folder is one InputError naming
robot.yaml (or the URDF) and the key, at most a few hundred characters; on the command line
exit code 2, exactly one stderr line, no traceback, nothing printed by the URDF parser."""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import gaitopt
from gaitopt.errors import InputError
from gaitopt.motors import load_motors
from gaitopt.robot import REPO_ROBOTS, Actuator, robot_of

# not in the fast subset (about 8 s): tests/test_cli.py holds the fast bad-input checks

SOURCE = REPO_ROBOTS / "biped7"
MAX_MESSAGE = 400


def _robot_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "biped7"
    shutil.copytree(SOURCE, folder)
    return folder


@pytest.fixture
def robot_dir(tmp_path):
    return _robot_copy(tmp_path)


def _data(folder: Path) -> dict:
    return yaml.safe_load((folder / "robot.yaml").read_text(encoding="utf-8"))


def _write(folder: Path, data) -> None:
    (folder / "robot.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _set(data: dict, path: str, value) -> None:
    """Set a dotted key path (created where missing); value DELETE removes the key."""
    keys = path.split(".")
    d = data
    for k in keys[:-1]:
        d = d.setdefault(k, {})
    if value is DELETE:
        d.pop(keys[-1], None)
    else:
        d[keys[-1]] = value


DELETE = object()


def _assert_input_error(folder, field: str | None, *, file: str = "robot.yaml", contains: str | None = None):
    with pytest.raises(InputError) as info:
        gaitopt.load_robot(folder)
    err = info.value
    text = str(err)
    assert len(text) <= MAX_MESSAGE, text
    assert "\n" not in text, text
    assert file in text, text
    if field is not None:
        assert err.field is not None and field in err.field, text
        assert field in text, text
    if contains is not None:
        assert contains in text, text
    return err


# ---------------------------------------------------------------------------- numbers in robot.yaml

INF, NAN = math.inf, math.nan
NUMBER_CASES = {
    # name: (key path, value, field named)
    "voltage_nan": ("actuators.default.voltage", NAN, "actuators.default.voltage"),
    "voltage_inf": ("actuators.default.voltage", INF, "actuators.default.voltage"),
    "voltage_zero": ("actuators.default.voltage", 0.0, "actuators.default.voltage"),
    "voltage_negative": ("actuators.default.voltage", -42.0, "actuators.default.voltage"),
    "resistance_zero": ("actuators.default.resistance", 0.0, "actuators.default.resistance"),
    "resistance_neg_inf": ("actuators.default.resistance", -INF, "actuators.default.resistance"),
    "torque_constant_zero": ("actuators.default.torque_constant", 0, "actuators.default.torque_constant"),
    "torque_constant_nan": ("actuators.default.torque_constant", NAN, "actuators.default.torque_constant"),
    "current_limit_zero": ("actuators.default.current_limit", 0.0, "actuators.default.current_limit"),
    "current_limit_inf": ("actuators.default.current_limit", INF, "actuators.default.current_limit"),
    "gear_ratio_zero": ("actuators.default.gear_ratio", 0.0, "actuators.default.gear_ratio"),
    "gear_ratio_negative": ("actuators.default.gear_ratio", -66.0, "actuators.default.gear_ratio"),
    "gear_ratio_joint_zero": ("actuators.joints.left_knee.gear_ratio", 0.0, "actuators.joints.left_knee.gear_ratio"),
    "gear_efficiency_zero": ("actuators.default.gear_efficiency", 0.0, "actuators.default.gear_efficiency"),
    "gear_efficiency_above_one": ("actuators.default.gear_efficiency", 1.5, "actuators.default.gear_efficiency"),
    "gear_efficiency_nan": ("actuators.default.gear_efficiency", NAN, "actuators.default.gear_efficiency"),
    "rotor_inertia_negative": ("actuators.default.rotor_inertia", -1e-6, "actuators.default.rotor_inertia"),
    "rotor_inertia_inf": ("actuators.default.rotor_inertia", INF, "actuators.default.rotor_inertia"),
    "rated_power_zero": ("actuators.default.rated_power", 0.0, "actuators.default.rated_power"),
    "huge_integer": ("actuators.default.voltage", 10 ** 400, "actuators.default.voltage"),
    "voltage_string": ("actuators.default.voltage", "42 V", "actuators.default.voltage"),
    "voltage_bool": ("actuators.default.voltage", True, "actuators.default.voltage"),
    "limit_lower_above_upper": ("joint_limits.left_knee", {"lower": 1.0, "upper": 0.5}, "joint_limits.left_knee"),
    "limit_lower_nan": ("joint_limits.left_knee.lower", NAN, "joint_limits.left_knee.lower"),
    "limit_upper_inf": ("joint_limits.left_knee.upper", INF, "joint_limits.left_knee.upper"),
    "limit_velocity_inf": ("joint_limits.left_knee.velocity", INF, "joint_limits.left_knee.velocity"),
    "limit_effort_zero": ("joint_limits.left_knee.effort", 0.0, "joint_limits.left_knee.effort"),
    "limit_unknown_key": ("joint_limits.left_knee.lowr", 0.0, "joint_limits.left_knee.lowr"),
    "limit_unknown_joint": ("joint_limits.no_such_joint.lower", 0.0, "joint_limits.no_such_joint"),
    "standing_joint_nan": ("standing.joints.left_knee", NAN, "standing.joints.left_knee"),
    "standing_base_z_inf": ("standing.base_z", INF, "standing.base_z"),
    # millimetres (biped7 stands at 0.4195892794 m): the feet would start 419 m off the ground
    "standing_base_z_mm": ("standing.base_z", 419.5892794, "standing.base_z"),
    "standing_base_z_off": ("standing.base_z", 0.40, "standing.base_z"),
    "standing_outside_limits": ("standing.joints.left_knee", 100.0, "standing.joints.left_knee"),
    "locked_outside_limits": ("locked.left_ankle", 100.0, "locked.left_ankle"),
    "voltage_absurd": ("actuators.default.voltage", 1e300, "actuators.default.voltage"),
    "effort_absurd": ("joint_limits.left_knee.effort", 1e300, "joint_limits.left_knee.effort"),
    "standing_unknown_joint": ("standing.joints.no_such_joint", 0.1, "standing.joints.no_such_joint"),
    "locked_nan": ("locked.left_ankle", NAN, "locked.left_ankle"),
    "foot_point_nan": ("feet.left.heel", [NAN, 0.0, -0.03], "feet.left.heel"),
    "foot_point_inf": ("feet.left.toe", [0.1, 0.0, -INF], "feet.left.toe"),
    "foot_point_two_coordinates": ("feet.left.heel", [-0.035, -0.03], "feet.left.heel"),
    "foot_point_four_coordinates": ("feet.left.toe", [0.1, 0.0, 0.0, -0.03], "feet.left.toe"),
    "foot_point_strings": ("feet.left.toe", ["a", "b", "c"], "feet.left.toe"),
    "knee_bend_zero": ("kinematics.knees.left_knee.bend", 0, "kinematics.knees.left_knee.bend"),
    "knee_bend_half": ("kinematics.knees.left_knee.bend", 0.5, "kinematics.knees.left_knee.bend"),
    "knee_bend_nan": ("kinematics.knees.left_knee.bend", NAN, "kinematics.knees.left_knee.bend"),
    "knee_bend_true": ("kinematics.knees.left_knee.bend", True, "kinematics.knees.left_knee.bend"),
    "knee_straight_inf": ("kinematics.knees.left_knee.straight", INF, "kinematics.knees.left_knee.straight"),
    "knee_unknown_joint": ("kinematics.knees.no_knee", {"bend": 1}, "kinematics.knees.no_knee"),
    "knee_margin_inf": ("kinematics.knee_margin", INF, "kinematics.knee_margin"),
    "knee_margin_nan": ("kinematics.knee_margin", NAN, "kinematics.knee_margin"),
    "foot_range_inf": ("kinematics.foot_range", {"half_size": [0.1, INF, 0.1]}, "kinematics.foot_range"),
    "leg_separation_inf": ("kinematics.leg_separation", {"lateral": INF}, "kinematics.leg_separation"),
    "base_height_nan": ("kinematics.base_height", {"min": NAN, "max": 0.5}, "kinematics.base_height"),
    "foot_yaw_degrees": ("kinematics.foot_yaw", {"band": 20}, "kinematics.foot_yaw"),
    "foot_yaw_nan": ("kinematics.foot_yaw", {"band": NAN}, "kinematics.foot_yaw"),
}


@pytest.mark.parametrize("case", sorted(NUMBER_CASES))
def test_bad_numbers(robot_dir, case):
    path, value, field = NUMBER_CASES[case]
    data = _data(robot_dir)
    _set(data, path, value)
    _write(robot_dir, data)
    _assert_input_error(robot_dir, field)


def test_nan_written_as_yaml_text(robot_dir):
    """`voltage: .nan` exactly as a user writes it."""
    text = (robot_dir / "robot.yaml").read_text(encoding="utf-8")
    (robot_dir / "robot.yaml").write_text(text.replace("voltage: 42.0", "voltage: .nan"), encoding="utf-8")
    _assert_input_error(robot_dir, "actuators.default.voltage", contains="finite")
    (robot_dir / "robot.yaml").write_text(text.replace("voltage: 42.0", "voltage: -.inf"), encoding="utf-8")
    _assert_input_error(robot_dir, "actuators.default.voltage")


def test_exponent_without_dot_in_robot_yaml(robot_dir):
    """robot.yaml gets the problem files' reading of 1e-3-style numbers (YAML 1.1 left them strings)."""
    text = (robot_dir / "robot.yaml").read_text(encoding="utf-8")
    (robot_dir / "robot.yaml").write_text(text.replace("gear_ratio: 66.0", "gear_ratio: 66e0"), encoding="utf-8")
    robot = gaitopt.load_robot(robot_dir)
    assert all(a.gear_ratio == 66.0 for a in robot.actuators.values())


def test_foot_point_in_millimetres(robot_dir):
    """A foot point typed in millimetres is refused at robot.yaml's field, not later as a base
    held metres above the ground that the problem's feet cannot reach (a new user's trial)."""
    data = _data(robot_dir)
    _set(data, "feet.left.toe", [105.0, 0.0, -31.2])
    _write(robot_dir, data)
    _assert_input_error(robot_dir, "feet.left.toe", contains="give it in metres")


def test_heel_and_toe_swapped(robot_dir):
    """A heel given ahead of its toe is refused at the foot (a new user's trial: it solved a
    walk that lands on the front point in its `heel` phase)."""
    data = _data(robot_dir)
    foot = data["feet"]["left"]
    foot["heel"], foot["toe"] = foot["toe"], foot["heel"]
    _write(robot_dir, data)
    _assert_input_error(robot_dir, "feet.left", contains="heel behind toe")


@pytest.mark.parametrize("flip", [["LLEG_JOINT2", "RLEG_JOINT2"], ["LLEG_JOINT3", "RLEG_JOINT3"]])
def test_wrong_mirror_flip_names_the_joints(tmp_path, flip):
    """A 3-D robot's mirror map with a roll joint not flipped, or a pitch joint flipped, is
    refused naming those joints (a new user's trial: forgetting the hip roll flip solved a
    lopsided gait). The shipped map is exact to 1e-14 m; each mistake is centimetres off."""
    folder = tmp_path / "hoap2"
    shutil.copytree(REPO_ROBOTS / "hoap2", folder)
    data = _data(folder)
    flips = data["mirror"]["flip"]
    data["mirror"]["flip"] = [j for j in flips if j not in flip] + [j for j in flip if j not in flips]
    _write(folder, data)
    err = _assert_input_error(folder, "mirror", contains=flip[0])
    assert flip[1] in str(err)


def test_mirror_check_is_kinematic(robot_dir):
    """A robot whose masses are not symmetric (a heavier left thigh) keeps its mirror map: the
    check compares feet and joint origins, not the centre of mass."""
    urdf = robot_dir / "biped7.urdf"
    text = urdf.read_text(encoding="utf-8")
    heavy = re.sub(r'(<link name="left_thigh">.*?<mass value=)"([^"]*)"', lambda m: f'{m.group(1)}"{2 * float(m.group(2))}"',
                   text, count=1, flags=re.S)
    assert heavy != text
    urdf.write_text(heavy, encoding="utf-8")
    robot = gaitopt.load_robot(robot_dir)
    assert robot.mirror is not None and robot.total_mass > 12.5


def test_a_mistyped_name_lists_the_closest_names_first():
    """Allowed lists are cut after 12 names: a typo of an 18-coordinate robot's last joint listed
    the base coordinates and cut the name meant (a new user's trial)."""
    from gaitopt.robot_yaml import _allowed_names
    coord = ["base_x", "base_y", "base_z", "base_yaw", "base_pitch", "base_roll"] + [
        f"{leg}_{j}" for leg in ("FL", "FR", "HL", "HR") for j in ("hip_roll", "hip_pitch", "knee")]
    text = _allowed_names(coord, near="HR_kne")
    assert text.startswith("HR_knee, ") and text.endswith("(18 in all)")
    assert "HR_knee" not in _allowed_names(coord)  # without the typo: the first 12, as before


def test_missing_default_actuator_data_is_named_at_default(robot_dir):
    """Data missing from `default` for a joint without an entry of its own is named there, not
    at actuators.joints.JOINT, a key the file does not have."""
    data = _data(robot_dir)
    _set(data, "actuators.default.torque_constant", DELETE)
    _write(robot_dir, data)
    err = _assert_input_error(robot_dir, "actuators.default", contains="torque_constant")
    assert "joints." not in err.field


def test_resistance_in_milliohms_warns(robot_dir):
    """A winding resistance 1000× too large (mΩ typed as Ω) leaves the motors a stall torque far
    below their limits: one warning naming the file, a joint and the units; shipped data none."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the shipped numbers: no warning
        gaitopt.load_robot(robot_dir)
    data = _data(robot_dir)
    _set(data, "actuators.default.resistance", 6300.0)
    _write(robot_dir, data)
    with pytest.warns(UserWarning) as caught:
        gaitopt.load_robot(robot_dir)
    [w] = [c for c in caught if "stall current" in str(c.message)]
    text = str(w.message)
    assert "robot.yaml" in text and "and 5 other joints" in text and "resistance in Ω" in text


def test_joint_limits_in_degrees(robot_dir):
    """Joint limits typed in degrees are refused at joint_limits (they were reported as the
    standing posture being outside them, a new user's trial)."""
    data = _data(robot_dir)
    _set(data, "joint_limits", {"left_knee": {"lower": -10.0, "upper": 150.0}})
    _write(robot_dir, data)
    _assert_input_error(robot_dir, "joint_limits.left_knee.lower", contains="radians")


def test_missing_actuators_lists_what_goes_there(robot_dir):
    data = _data(robot_dir)
    _set(data, "actuators", DELETE)
    _write(robot_dir, data)
    _assert_input_error(robot_dir, "actuators", contains="(allowed: default, joints, reflected_inertia)")


def test_the_copy_loads(robot_dir):
    robot = gaitopt.load_robot(robot_dir)
    assert robot.name == "biped7" and robot.folder == robot_dir.resolve()


def test_actuator_refuses_bad_values():
    good = dict(resistance=6.3, torque_constant=0.05, voltage=42.0, current_limit=4.0, gear_ratio=66.0)
    Actuator(**good)
    for key, value in [("gear_ratio", 0.0), ("resistance", NAN), ("torque_constant", -1.0), ("voltage", INF),
                       ("gear_efficiency", 0.0), ("gear_efficiency", 1.2), ("rotor_inertia", -1.0)]:
        with pytest.raises(InputError, match=key):
            Actuator(**{**good, key: value})
    with pytest.raises(InputError, match="gear_ratio"):
        Actuator(**good).with_gear(0.0)


# ---------------------------------------------------------------------------- structure of robot.yaml

STRUCTURE_CASES = {
    "unknown_frame": ("feet.left.frame", "no_such_frame", "feet.left.frame"),
    "frame_not_string": ("feet.left.frame", 3, "feet.left.frame"),
    "foot_not_mapping": ("feet.left", [0, 0, 0], "feet.left"),
    "foot_point_and_heel": ("feet.left.point", [0.0, 0.0, 0.0], "feet.left.point"),
    "no_feet": ("feet", {}, "feet"),
    "feet_missing": ("feet", DELETE, "feet"),
    "mirror_unknown_joint": ("mirror.joints", [["left_hip", "no_such_joint"]], "mirror.joints"),
    "mirror_base_coordinate": ("mirror.joints", [["base_x", "left_hip"]], "mirror.joints"),
    "mirror_not_pairs": ("mirror.joints", [["left_hip"]], "mirror.joints"),
    "mirror_nested_list": ("mirror.joints", [[["left_hip"], "right_hip"]], "mirror.joints"),
    "mirror_unknown_foot": ("mirror.feet", [["left", "middle"]], "mirror.feet"),
    "mirror_unhashable_foot": ("mirror.feet", [[["left"], "right"]], "mirror.feet"),
    "mirror_unknown_flip": ("mirror.flip", ["no_such_joint"], "mirror.flip"),
    "mirror_flip_not_list": ("mirror.flip", "left_hip", "mirror.flip"),
    "mirror_not_mapping": ("mirror", ["left", "right"], "mirror"),
    "mirror_unknown_key": ("mirror.legs", [], "mirror.legs"),
    "passive_unknown": ("passive", ["no_such_joint"], "passive"),
    "passive_unhashable": ("passive", [["left_hip"]], "passive"),
    "urdf_not_string": ("urdf", 3, "urdf"),
    "urdf_empty": ("urdf", "", "urdf"),
    "urdf_missing_file": ("urdf", "nowhere.urdf", "urdf"),
    "urdf_directory": ("urdf", ".", "urdf"),
    "urdf_package_path_missing": ("urdf", {"package": "example-robot-data", "path": "robots/nothing/none.urdf"},
                                  "urdf"),
    "urdf_package_unknown": ("urdf", {"package": "no-such-package", "path": "a.urdf"}, "urdf.package"),
    "base_unknown": ("base", "planar", "base"),
    "name_mismatch": ("name", "other", "name"),
    "unknown_top_key": ("colour", "red", "colour"),
    "actuator_unknown_field": ("actuators.default.colour", "red", "actuators.default.colour"),
    "actuator_unknown_joint": ("actuators.joints.no_such_joint", {"gear_ratio": 10.0}, "actuators.joints.no_such_joint"),
    "actuators_missing_data": ("actuators.default.voltage", DELETE, "actuators"),
    "locked_unknown": ("locked.no_such_joint", 0.0, "locked.no_such_joint"),
    "standing_not_mapping": ("standing", [1, 2], "standing"),
    "kinematics_unknown_key": ("kinematics.knee", {}, "kinematics.knee"),
}


@pytest.mark.parametrize("case", sorted(STRUCTURE_CASES))
def test_bad_structure(robot_dir, case):
    path, value, field = STRUCTURE_CASES[case]
    data = _data(robot_dir)
    _set(data, path, value)
    _write(robot_dir, data)
    _assert_input_error(robot_dir, field)


@pytest.mark.parametrize("content", [b"", b"- a\n- b\n", b"just text\n", b"name: [unclosed\n",
                                     b"name: biped7\n\xff\xfe bad: \x80\n"])
def test_bad_robot_yaml_file(robot_dir, content):
    (robot_dir / "robot.yaml").write_bytes(content)
    _assert_input_error(robot_dir, None)


LONG_CASES = {
    "long_unknown_key": ("k" * 1000, 1),
    "long_frame_name": ("feet.left.frame", "f" * 2000),
    "long_list_for_a_number": ("actuators.default.voltage", [1] * 2000),
    "long_mirror_pair": ("mirror.joints", [["j" * 2000, "right_hip"]]),
}


@pytest.mark.parametrize("case", sorted(LONG_CASES))
def test_long_values_give_short_messages(robot_dir, case):
    path, value = LONG_CASES[case]
    data = _data(robot_dir)
    if "." in path:
        _set(data, path, value)
    else:
        data[path] = value
    _write(robot_dir, data)
    _assert_input_error(robot_dir, None)


def test_robot_yaml_is_a_directory(robot_dir):
    (robot_dir / "robot.yaml").unlink()
    (robot_dir / "robot.yaml").mkdir()
    _assert_input_error(robot_dir, "robot")


def test_path_is_not_a_robot_folder(tmp_path):
    """A path (anything with "/") is that folder or an error naming it, never the shipped robot."""
    for bad in [tmp_path / "biped7", tmp_path, tmp_path / "biped7" / "robot.yaml"]:
        with pytest.raises(InputError) as info:
            gaitopt.load_robot(str(bad))
        assert str(bad) in str(info.value) and info.value.field == "robot"
    (tmp_path / "biped7").mkdir()
    (tmp_path / "biped7" / "README.md").write_text("not a robot\n")
    with pytest.raises(InputError, match="not a robot folder"):
        gaitopt.load_robot(f"{tmp_path}/biped7")
    with pytest.raises(InputError, match="robot"):
        gaitopt.load_robot("no/such/biped7")


@pytest.mark.parametrize("value", [None, 3, "", "   ", "bi\0ped"])
def test_bad_robot_argument(value):
    with pytest.raises(InputError) as info:
        gaitopt.load_robot(value)
    assert info.value.field == "robot" and len(str(info.value)) <= MAX_MESSAGE


# ---------------------------------------------------------------------------- broken URDFs

def _break_urdf(folder: Path, how: str) -> None:
    urdf = folder / "biped7.urdf"
    text = urdf.read_text(encoding="utf-8")
    if how == "truncated":
        urdf.write_text(text[: len(text) // 2], encoding="utf-8")
    elif how == "unknown_link":
        urdf.write_text(text.replace('<child link="left_foot"/>', '<child link="no_such_link"/>', 1), encoding="utf-8")
    elif how == "missing":
        urdf.unlink()
    elif how == "not_xml":
        urdf.write_text("this is not XML\n", encoding="utf-8")
    elif how == "empty":
        urdf.write_text("", encoding="utf-8")
    elif how == "not_utf8":
        urdf.write_bytes(b"\xff\xfe\x80 broken")
    elif how == "nan_mass":
        urdf.write_text(re.sub(r'<mass value="[^"]*"/>', '<mass value="nan"/>', text, count=1), encoding="utf-8")
    elif how == "no_inertial":  # the left shank's <inertial> left out: a massless moving link
        urdf.write_text(re.sub(r'(<link name="left_shank">\s*)<inertial>.*?</inertial>', r"\1", text, flags=re.S),
                        encoding="utf-8")
    elif how == "zero_mass":
        urdf.write_text(re.sub(r'(<link name="left_foot">.*?<mass value=)"[^"]*"', r'\1"0"', text, flags=re.S),
                        encoding="utf-8")
    elif how == "millimetres":  # every origin in mm
        urdf.write_text(re.sub(r'xyz="([^"]*)"', lambda m: 'xyz="%s"' % " ".join(
            str(1000 * float(v)) for v in m.group(1).split()), text), encoding="utf-8")
    else:
        raise AssertionError(how)


URDF_CASES = ["truncated", "unknown_link", "missing", "not_xml", "empty", "not_utf8", "nan_mass", "no_inertial",
              "zero_mass", "millimetres"]


@pytest.mark.parametrize("how", URDF_CASES)
def test_broken_urdf(robot_dir, how, capfd):
    _break_urdf(robot_dir, how)
    urdf = robot_dir / "biped7.urdf"
    text = urdf.read_text(encoding="utf-8", errors="replace") if urdf.is_file() else ""
    if how == "unknown_link":
        assert '<child link="no_such_link"/>' in text
    if how in ("no_inertial", "zero_mass"):  # the edit happened: one link fewer with a positive mass
        assert sum(float(m) > 0 for m in re.findall(r'<mass value="([^"]*)"', text)) == 6, text
    err = _assert_input_error(robot_dir, "urdf", contains={"no_inertial": "left_shank", "zero_mass": "left_foot",
                                                           "millimetres": "metres"}.get(how, ""))
    assert "biped7.urdf" in str(err)
    out, errout = capfd.readouterr()
    assert out == "" and errout == "", (out, errout)


# ---------------------------------------------------------------------------- motor catalogue

MOTOR_GOOD = {"motor": "m", "resistance": 1.0, "torque_constant": 0.05, "voltage": 24.0, "current_limit": 4.0,
              "rated_power": 20.0, "rotor_inertia": 1e-6, "source": "s"}


@pytest.mark.parametrize("key,value", [("resistance", 0.0), ("resistance", NAN), ("torque_constant", -0.1),
                                       ("voltage", INF), ("current_limit", 0), ("rated_power", INF),
                                       ("rotor_inertia", -1e-6), ("rotor_inertia", NAN), ("voltage", 10 ** 400),
                                       ("colour", "red")])
def test_bad_motor_catalogue(tmp_path, key, value):
    path = tmp_path / "motors.yaml"
    path.write_text(yaml.safe_dump({"motors": {"m1": {**MOTOR_GOOD, key: value}}}), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_motors(path)
    text = str(info.value)
    assert "motors.yaml" in text and f"motors.m1.{key}" in text and len(text) <= MAX_MESSAGE


def test_motor_catalogue_files(tmp_path):
    assert load_motors()  # the shipped catalogue
    path = tmp_path / "motors.yaml"
    path.write_text(yaml.safe_dump({"motors": {"m1": MOTOR_GOOD}}), encoding="utf-8")
    motor = load_motors(path)["m1"]
    with pytest.raises(InputError, match="gear_ratio"):
        motor.actuator(0.0)
    with pytest.raises(InputError, match="gear_efficiency"):
        motor.actuator(10.0, 1.5)
    for content in [b"\xff\xfe\x80", b"- 1\n", b"motors: {}\n"]:
        path.write_bytes(content)
        with pytest.raises(InputError, match="motors.yaml"):
            load_motors(path)
    with pytest.raises(InputError, match="directory"):
        load_motors(tmp_path)


# ---------------------------------------------------------------------------- the command line

def _cli(*args, cwd=None):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run([sys.executable, "-m", "gaitopt.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def _assert_one_line_error(proc, *expected):
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == "", proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    line = lines[0]
    assert line.startswith("gaitopt: ") and len(line) <= MAX_MESSAGE + 20, line
    for e in expected:
        assert e in line, line


def test_cli_bad_robots(tmp_path):
    """One process per kind of failure: URDF parser output, bad number, a path that is not a
    robot folder (even though robots/biped7 exists), a robot.yaml that is not UTF-8."""
    urdf_dir = _robot_copy(tmp_path / "a")
    _break_urdf(urdf_dir, "unknown_link")
    _assert_one_line_error(_cli("robot", urdf_dir), "robot.yaml", "urdf", "biped7.urdf")

    truncated = _robot_copy(tmp_path / "b")
    _break_urdf(truncated, "truncated")
    _assert_one_line_error(_cli("robot", truncated), "robot.yaml", "urdf")

    number_dir = _robot_copy(tmp_path / "c")
    text = (number_dir / "robot.yaml").read_text(encoding="utf-8")
    (number_dir / "robot.yaml").write_text(text.replace("gear_ratio: 66.0", "gear_ratio: 0"), encoding="utf-8")
    _assert_one_line_error(_cli("robot", number_dir), "robot.yaml", "actuators.default.gear_ratio")

    (tmp_path / "empty").mkdir()
    _assert_one_line_error(_cli("robot", "./biped7", cwd=tmp_path / "empty"), "./biped7", "not a robot folder")

    utf = _robot_copy(tmp_path / "d")
    (utf / "robot.yaml").write_bytes(b"name: biped7\n\xff\xfe\n")
    _assert_one_line_error(_cli("robot", utf), "robot.yaml", "UTF-8")


def test_cli_good_robot_copy(robot_dir):
    proc = _cli("robot", robot_dir)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert str(robot_dir.resolve() / "biped7.urdf") in proc.stdout


def test_missing_robot_of_a_problem_names_the_problems_folder(tmp_path):
    """A bare robot name in a problem file is looked for next to the problem file first
    (docs/bring_your_own_robot.md §1): when it is not found anywhere, the error lists that folder
    too. A Talos user's folder one level off was reported as looked for in robots/ beside the
    problem's folder, gaitopt's robots/ and the working directory only."""
    folder = tmp_path / "problems"
    folder.mkdir()
    problem = yaml.safe_load((REPO_ROBOTS.parent / "problems" / "biped7_heel_toe_walk.yaml").read_text())
    problem["robot"] = "my_robot"
    (folder / "walk.yaml").write_text(yaml.safe_dump(problem))
    problem = gaitopt.load_problem(str(folder / "walk.yaml"))  # the robot is loaded when needed
    with pytest.raises(InputError) as info:
        robot_of(problem)
    assert info.value.field == "robot" and f"looked in {folder.resolve()}, " in str(info.value)
    shutil.copytree(SOURCE, folder / "my_robot")  # there it is found
    (folder / "my_robot" / "robot.yaml").write_text(
        (SOURCE / "robot.yaml").read_text().replace("name: biped7", "name: my_robot"))
    assert gaitopt.load_problem(str(folder / "walk.yaml")).robot == str((folder / "my_robot").resolve())
