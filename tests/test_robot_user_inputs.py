"""A new user's hexapod (2026-11-25): robot.yaml's mirror map with feet paired FL-MR solved
silently as a full cycle and a missing coxa flip passed (gaitopt.robot_checks refuses both now);
`kinematics.knees.*.straight: 90` (degrees) was reported by the problem file as bounds leaving
no room, and is refused at robot.yaml."""
from __future__ import annotations

import shutil

import pytest
import yaml

import gaitopt
from gaitopt.errors import InputError
from gaitopt.robot import REPO_ROBOTS

pytestmark = pytest.mark.fast


def _copy(tmp_path, name, edit):
    folder = tmp_path / name
    shutil.copytree(REPO_ROBOTS / name, folder)
    data = yaml.safe_load((folder / "robot.yaml").read_text(encoding="utf-8"))
    edit(data)
    (folder / "robot.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return folder


def _error(folder) -> InputError:
    with pytest.raises(InputError) as info:
        gaitopt.load_robot(folder)
    text = str(info.value)
    assert "\n" not in text and len(text) <= 400 and "robot.yaml" in text, text
    return info.value


def test_feet_paired_with_the_wrong_partner(tmp_path):
    def edit(data):
        data["mirror"]["feet"] = [["L1", "R2"], ["L2", "R1"], ["L3", "R3"]]
    err = _error(_copy(tmp_path, "hexapod", edit))
    # named as a pairing fault, the feet listed (it blamed every coordinate, base_x first)
    assert err.field == "mirror" and "mirror.feet" in str(err) and "L1, L2, R1, R2" in str(err), str(err)
    assert "base_x" not in str(err)


def test_joints_paired_with_the_wrong_partner(tmp_path):
    def edit(data):
        pairs = data["mirror"]["joints"]
        pairs[1][1], pairs[4][1] = pairs[4][1], pairs[1][1]      # L1_femur-R2_femur, L2_femur-R1_femur
    err = _error(_copy(tmp_path, "hexapod", edit))
    assert err.field == "mirror" and "mirror.joints" in str(err) and "L1_femur" in str(err), str(err)


def test_a_missing_flip(tmp_path):
    def edit(data):
        data["mirror"]["flip"] = []          # the coxa joints turn about z: they must flip
    err = _error(_copy(tmp_path, "hexapod", edit))
    assert err.field == "mirror" and "flip" in str(err)


def test_a_flip_too_many_on_a_sagittal_biped(tmp_path):
    def edit(data):
        data["mirror"]["flip"] = ["left_hip", "right_hip"]
    assert _error(_copy(tmp_path, "biped7", edit)).field == "mirror"


def test_pairs_written_right_to_left_are_the_same_map(tmp_path):
    def edit(data):
        data["mirror"]["feet"] = [[b, a] for a, b in data["mirror"]["feet"]]
        data["mirror"]["joints"] = [[b, a] for a, b in data["mirror"]["joints"]]
    robot = gaitopt.load_robot(_copy(tmp_path, "hexapod", edit))
    assert robot.mirror.foot_pairs == gaitopt.load_robot("hexapod").mirror.foot_pairs


def test_knee_straight_in_degrees(tmp_path):
    def edit(data):
        data["kinematics"]["knees"]["left_knee"]["straight"] = 90
    err = _error(_copy(tmp_path, "biped7", edit))
    assert err.field == "kinematics.knees.left_knee.straight" and "radians" in str(err)


def _lock_arms(left: dict, right: dict):
    """HOAP-2 with its arm joints LARM/RARM_JOINT<k> locked at left[k], right[k] (JOINT2, JOINT3
    flip: mirror images hold opposite angles)."""
    def edit(data):
        data["locked"].update({f"LARM_JOINT{k}": v for k, v in left.items()})
        data["locked"].update({f"RARM_JOINT{k}": v for k, v in right.items()})
        data["standing"]["joints"] = {j: v for j, v in data["standing"]["joints"].items() if j not in data["locked"]}
        data["mirror"]["joints"] = [p for p in data["mirror"]["joints"]
                                    if not any(p == [f"LARM_JOINT{k}", f"RARM_JOINT{k}"] for k in left)]
    return edit


ARM_DOWN = {1: 1.5708, 2: 0.0, 3: 0.0, 4: 0.0}


def test_arms_locked_as_mirror_images_load(tmp_path):
    """Arms locked at mirror-image angles (the flipped roll opposite) are symmetric: accepted."""
    robot = gaitopt.load_robot(_copy(tmp_path, "hoap2", _lock_arms({**ARM_DOWN, 2: 1.0}, {**ARM_DOWN, 2: -1.0})))
    assert "LARM_JOINT2" in robot.locked


def test_arms_locked_asymmetrically_refused(tmp_path):
    """A G1 user's trial (2026-11-25): whole arms locked at angles that are not mirror images (one
    arm raised sideways, the other down) loaded silently, and a half cycle would have mirrored a
    robot that is not symmetric. The check compared feet and joint origins of the model, which
    locked arms are not part of; it compares the locked joints' frames now."""
    err = _error(_copy(tmp_path, "hoap2", _lock_arms({**ARM_DOWN, 2: 1.0}, ARM_DOWN)))
    assert err.field == "locked" and "not mirror images" in str(err) and "ARM_JOINT" in str(err), str(err)


def test_arm_partly_locked_asymmetrically_names_locked(tmp_path):
    """Only the shoulder roll locked asymmetrically: the arm joints below it moved off their
    partners' reflection, and the message blamed a wrong pair in mirror.joints; now the locked
    hands (HOAP-2's ARM_JOINT5) are seen off their mirror images, at `locked`."""
    err = _error(_copy(tmp_path, "hoap2", _lock_arms({2: 1.0}, {2: 0.0})))
    assert err.field == "locked" and "not mirror images" in str(err), str(err)


def test_a_sole_width_loads_on_a_fixed_base(tmp_path):
    """A G1 user's trial (2026-11-25): `gaitopt robot g1 --base fixed` (feet with a sole width)
    was refused, "a sole width needs a 3-D base (base: fixed): in the sagittal plane …"; a fixed
    base is 3-D. The sagittal base still refuses the width."""
    def soles(data):
        for foot in data["feet"].values():
            foot["width"] = 0.05
    folder = _copy(tmp_path, "hoap2", soles)
    robot = gaitopt.load_robot(folder, base="fixed")
    assert robot.base == "fixed" and "left_toe_outer" in [c.name for c in robot.contacts]
    with pytest.raises(InputError) as info:
        gaitopt.load_robot(folder, base="sagittal")
    assert "feet." in str(info.value) and "width" in str(info.value)
