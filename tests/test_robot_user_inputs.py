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
