"""Robot folders: every robot loads, masses match the data, standing postures touch the ground,
and bad robot.yaml files give an InputError naming the file and the key."""
from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET

import numpy as np
import pinocchio as pin
import pytest

from gaitopt.errors import InputError
from gaitopt.robot import available_robots, load_robot

pytestmark = pytest.mark.fast  # cheap: the whole file is in the fast subset

ROBOTS = available_robots()

# Total mass of each robot [kg], from the data its README cites, and the tolerance of the
# comparison (the digits the source gives, or the rounding of the URDF's numbers).
EXPECTED_MASS = {
    "biped7": (12.0, 1e-9),        # README: chosen total, segment shares from Winter's tables
    "hexapod": (2.40, 1e-9),       # README: body 1.26 kg + 6 legs x 0.19 kg
    "titan8": (22.0, 1e-9),        # data file mass.total_kg (Endo, Arikawa, Hirose, ICRA 2011)
    "solo12": (2.5, 1e-5),         # ODRI hardware 2.5 kg; the URDF sums to 2.5000028 kg
    "anymal_c": (52.13485, 1e-5),  # README: the URDF's total (anymal_c_simple_description)
    "bolt": (1.253878, 1e-6),      # README: the URDF's total
    "go2": (16.085, 1e-6),         # README: the URDF's total (go2_description, rotor links included)
    "rabbit": (32.0, 1e-9),        # README: torso 12 + 2 x femur 6.8 + 2 x tibia 3.2 kg (Chevallereau et al. 2003)
    # HOAP-2: Table 3 of the EPFL thesis gives 7.0256448 kg as the sum WITHOUT the two hand
    # (ARM_JOINT5) links; the URDF holds the hands (total 7.1200448 kg). Checked as the model's
    # mass minus the masses of the hand links read from the URDF.
    "hoap2": (7.0256448, 1e-6),
    "hoap2_sagittal": (7.0256448, 1e-6),
    "g1": (33.34114202, 1e-6),     # README: the URDF's total (example-robot-data g1_29dof_rev_1_0)
}
HOAP2_HAND_LINKS = ("RHJ5_LINK", "LHJ5_LINK")
STANDING_TOL = 1e-6


def urdf_link_mass(urdf, link):
    root = ET.parse(urdf).getroot()
    for el in root.iter("link"):
        if el.get("name") == link:
            return float(el.find("inertial/mass").get("value"))
    raise KeyError(f"{link} not in {urdf}")


def base_modes(name):
    own = load_robot(name).base
    return [own] if own == "fixed" else [own, "fixed"]


# ------------------------------------------------------------------------------ the library


def test_there_are_robots():
    assert ROBOTS, "robots/ holds no robot folder with a robot.yaml"


@pytest.mark.parametrize("name", ROBOTS)
def test_robot_loads(name):
    for base in base_modes(name):
        robot = load_robot(name, base=base)
        assert robot.name == name and robot.base == base
        assert robot.nq == robot.nv == len(robot.coordinates)
        assert robot.contacts and robot.feet
        assert set(robot.actuators) == set(robot.actuated)
        for c in robot.contacts:
            assert robot.model.frames[c.frame_id].name == c.frame
        for a in robot.actuators.values():
            assert a.torque_limit > 0 and a.no_load_speed > 0 and a.stall_torque > 0
        assert robot.standing_q.shape == (robot.nq,)
        finite = np.isfinite(robot.lower) & np.isfinite(robot.upper)
        assert np.all(robot.lower[finite] < robot.upper[finite])


@pytest.mark.parametrize("name", ROBOTS)
def test_total_mass(name):
    if name not in EXPECTED_MASS:
        pytest.fail(f"no expected mass for {name!r}: add the total mass its data give to EXPECTED_MASS")
    expected, tol = EXPECTED_MASS[name]
    for base in base_modes(name):
        robot = load_robot(name, base=base)
        mass = robot.total_mass
        if name.startswith("hoap2"):
            mass -= sum(urdf_link_mass(robot.urdf, link) for link in HOAP2_HAND_LINKS)
        assert abs(mass - expected) <= tol, f"{name} ({base}): {mass!r} kg, data {expected} kg"


@pytest.mark.parametrize("name", ROBOTS)
def test_standing_posture_on_the_ground(name):
    robot = load_robot(name)
    if robot.base == "fixed":
        pytest.skip("fixed base: no standing height")
    data = robot.model.createData()
    q = robot.standing_q
    assert np.all(q >= robot.lower - 1e-12) and np.all(q <= robot.upper + 1e-12), "standing posture outside the limits"
    pin.framesForwardKinematics(robot.model, data, q)
    z = np.array([data.oMf[c.frame_id].act(np.asarray(c.point, float))[2] for c in robot.contacts])
    names = [c.name for c in robot.contacts]
    assert abs(z.min()) <= STANDING_TOL, f"lowest contact point at z = {z.min():.3e} m"
    bad = {n: float(h) for n, h in zip(names, z) if abs(h) > STANDING_TOL}
    assert not bad, f"contact points off the ground in the standing posture (z [m]): {bad}"


@pytest.mark.parametrize("name", ROBOTS)
def test_standing_posture_is_mirror_symmetric(name):
    """The standing posture is its own mirror image (where the robot has a mirror map)."""
    robot = load_robot(name)
    if robot.mirror is None:
        pytest.skip("no mirror map")
    q = robot.standing_q
    np.testing.assert_allclose(robot.mirror.coordinates(q), q, atol=1e-9)


# ------------------------------------------------------------------------------ bad folders

URDF = """<?xml version="1.0"?>
<robot name="toy">
  <link name="body">
    <inertial><origin xyz="0 0 0"/><mass value="2.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <link name="left_leg">
    <inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <link name="right_leg">
    <inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <link name="left_foot"/>
  <link name="right_foot"/>
  <joint name="left_hip" type="revolute">
    <parent link="body"/><child link="left_leg"/><origin xyz="0 0.1 0"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="5"/>
  </joint>
  <joint name="right_hip" type="revolute">
    <parent link="body"/><child link="right_leg"/><origin xyz="0 -0.1 0"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="5"/>
  </joint>
  <joint name="left_ankle_fixed" type="fixed">
    <parent link="left_leg"/><child link="left_foot"/><origin xyz="0 0 -0.2"/>
  </joint>
  <joint name="right_ankle_fixed" type="fixed">
    <parent link="right_leg"/><child link="right_foot"/><origin xyz="0 0 -0.2"/>
  </joint>
</robot>
"""

GOOD = """\
name: toy
description: a two-legged toy for the input checks
urdf: toy.urdf
base: sagittal
feet:
  left: {frame: left_foot, point: [0.0, 0.0, 0.0]}
  right: {frame: right_foot, point: [0.0, 0.0, 0.0]}
mirror:
  joints: [[left_hip, right_hip]]
  flip: []
  feet: [[left, right]]
actuators:
  default:
    resistance: 1.0
    torque_constant: 0.05
    voltage: 24.0
    current_limit: 2.0
    gear_ratio: 50.0
"""


def write_robot(tmp_path, yaml_text, name="toy"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "toy.urdf").write_text(URDF)
    (folder / "robot.yaml").write_text(textwrap.dedent(yaml_text))
    return folder


def test_toy_robot_loads(tmp_path):
    robot = load_robot(write_robot(tmp_path, GOOD))
    assert robot.coordinates == ["base_x", "base_z", "base_pitch", "left_hip", "right_hip"]
    assert abs(robot.total_mass - 3.0) < 1e-12
    assert abs(robot.standing_q[robot.index("base_z")] - 0.2) < 1e-12


def test_reflected_rotor_inertia(tmp_path):
    """Each actuated joint's armature is G²·J_rotor (the rotor turns G times faster), 0 on the
    base and with `reflected_inertia: false`; it follows a swapped gear, on a copied model."""
    robot = load_robot("biped7")
    arm = np.asarray(robot.model.armature)
    for j, a in robot.actuators.items():
        i = robot.index(j)
        assert arm[i] == pytest.approx(a.gear_ratio ** 2 * a.rotor_inertia, rel=1e-15) and arm[i] > 0
    assert np.all(arm[:len(robot.base_coordinates)] == 0.0)
    geared = robot.with_actuators({"left_knee": robot.actuators["left_knee"].with_gear(100.0)})
    i = robot.index("left_knee")
    assert geared.model.armature[i] == pytest.approx(100.0 ** 2 * robot.actuators["left_knee"].rotor_inertia)
    assert robot.model.armature[i] == pytest.approx(arm[i])  # the original model is untouched
    text = GOOD.replace("    gear_ratio: 50.0", "    gear_ratio: 50.0\n    rotor_inertia: 2.0e-6")
    on = load_robot(write_robot(tmp_path, text, "toy"))
    assert on.model.armature[on.index("left_hip")] == pytest.approx(50.0 ** 2 * 2e-6)
    (tmp_path / "off").mkdir()
    off = load_robot(write_robot(tmp_path / "off", text.replace("actuators:\n", "actuators:\n  reflected_inertia: false\n"), "toy"))
    assert np.all(np.asarray(off.model.armature) == 0.0)


BAD = {
    # case: (replace this text of GOOD, by this, key the message must name)
    "unknown_key": ("base: sagittal\n", "base: sagittal\ncolour: red\n", "colour"),
    "wrong_base": ("base: sagittal", "base: planar", "base"),
    "missing_foot_frame": ("{frame: left_foot,", "{frame: left_sole,", "feet.left.frame"),
    "mirror_pair_unknown_joint": ("[[left_hip, right_hip]]", "[[left_hip, right_knee]]", "mirror.joints"),
    "mirror_pair_not_a_pair": ("[[left_hip, right_hip]]", "[[left_hip]]", "mirror.joints"),
    "mirror_flip_unknown_joint": ("flip: []", "flip: [left_knee]", "mirror.flip"),
    "mirror_feet_unknown": ("feet: [[left, right]]", "feet: [[left, middle]]", "mirror.feet"),
    "unknown_actuator_field": ("    torque_constant: 0.05", "    torque_const: 0.05", "actuators.default.torque_const"),
    "actuator_field_not_a_number": ("    voltage: 24.0", "    voltage: high", "actuators.default.voltage"),
    "actuator_field_missing": ("    gear_ratio: 50.0\n", "", "actuators.default"),  # no joint entry of its own
    "missing_urdf_key": ("urdf: toy.urdf\n", "", "urdf"),
    "urdf_not_found": ("urdf: toy.urdf", "urdf: nothere.urdf", "urdf"),
    "name_not_folder": ("name: toy", "name: other", "name"),
    "feet_no_geometry": ("{frame: left_foot, point: [0.0, 0.0, 0.0]}", "{frame: left_foot}", "feet.left"),
    "unknown_foot_key": ("point: [0.0, 0.0, 0.0]}\n  right", "point: [0.0, 0.0, 0.0], size: 1}\n  right", "feet.left.size"),
    # a knee's bend sign against its standing angle (a new user's Go2 with one calf's sign
    # flipped: it loaded, and the solve blamed the problem file's constraints), and against a
    # range with no angle on the bend side (standing on the stop, at straight)
    "knee_bend_against_standing": ("actuators:\n", "standing:\n  joints: {left_hip: 0.5, right_hip: 0.5}\n"
                                   "kinematics:\n  knees: {left_hip: {bend: -1}, right_hip: {bend: -1}}\nactuators:\n",
                                   "kinematics.knees.left_hip.bend"),
    "knee_bend_no_range": ("actuators:\n", "standing:\n  joints: {left_hip: 1.0, right_hip: 1.0}\n"
                           "kinematics:\n  knees: {left_hip: {bend: 1, straight: 1.0}}\nactuators:\n",
                           "kinematics.knees.left_hip.bend"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_robot_yaml(tmp_path, case):
    old, new, key = BAD[case]
    assert old in GOOD, f"test data: {old!r} not in GOOD"
    folder = write_robot(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(InputError) as info:
        load_robot(folder)
    msg = str(info.value)
    assert str(folder / "robot.yaml") in msg, f"message does not name the file: {msg}"
    assert key in msg, f"message does not name the key {key!r}: {msg}"
    assert "\n" not in msg, f"message is not one line: {msg!r}"


def test_bad_base_argument():
    with pytest.raises(InputError) as info:
        load_robot(ROBOTS[0], base="planar")
    assert "base" in str(info.value) and "planar" in str(info.value)


def test_unknown_robot():
    with pytest.raises(InputError) as info:
        load_robot("no_such_robot_xyz")
    assert "no_such_robot_xyz" in str(info.value)


def test_g1_walk_kept_with_the_robot_solves():
    """robots/g1/walk.yaml, a new user's humanoid walk kept with its robot (it does not replay in
    MuJoCo, so it is not a shipped problem): it loads and solves at half its knots."""
    import dataclasses
    from pathlib import Path

    from gaitopt.gait import solve
    from gaitopt.problem import load_problem

    problem = load_problem(Path(__file__).resolve().parent.parent / "robots" / "g1" / "walk.yaml").scaled_knots(0.5)
    result = solve(problem.replace(solver=dataclasses.replace(problem.solver, print_level=0)))
    assert result.success, result.message
    assert result.max_violation < 1e-6
