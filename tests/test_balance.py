"""HOAP-2 balance limits (gaitopt.balance): the tipping angle against a hand computation, its
monotonicity, the protocol table and the cross-validated margin."""
from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from gaitopt import balance as B
from gaitopt.errors import InputError
from gaitopt.robot import load_robot

pytestmark = pytest.mark.fast


@pytest.fixture(scope="module")
def hoap2():
    robot = load_robot("hoap2")
    return robot, B.load_protocol(robot.folder)


def _ankle_pitch_by_hand(robot, heel: float) -> float:
    """Both ankle pitches at θ, everything else 0, soles flat: the body above the ankles turns
    rigidly by −θ about the ankle axis, the feet stay. The CoM reaches the heel line x = heel
    (from the ankle) where M_up (x0 cos θ − z0 sin θ) + m_feet x_feet = M heel, i.e.
    R cos(θ + φ) = k with R = |(a, b)|, φ = atan2(b, a): θ = acos(k / R) − φ."""
    model = pin.buildModelFromUrdf(str(robot.urdf), pin.JointModelFreeFlyer())
    data = model.createData()
    q = pin.neutral(model)
    pin.centerOfMass(model, data, q, True)  # subtree CoMs data.com[j] (joint frame), masses data.mass[j]
    pin.framesForwardKinematics(model, data, q)
    ankle = data.oMi[model.getJointId("LLEG_JOINT5")].translation
    feet = [model.getJointId(j) for j in ("LLEG_JOINT5", "RLEG_JOINT5")]  # each subtree: a foot
    com = {j: data.oMi[j].act(data.com[j]) - ankle for j in feet}
    m_feet = sum(data.mass[j] for j in feet)
    x_feet = sum(data.mass[j] * com[j][0] for j in feet) / m_feet
    M = data.mass[0]
    up = (M * (data.com[0] - ankle) - sum(data.mass[j] * com[j] for j in feet)) / (M - m_feet)
    a, b = (M - m_feet) * up[0], (M - m_feet) * up[2]
    k = M * heel - m_feet * x_feet
    return float(np.arccos(k / np.hypot(a, b)) - np.arctan2(b, a))


def test_tipping_angle_matches_a_hand_computation(hoap2):
    robot, protocol = hoap2
    stance = B.Stance(robot, protocol.foot_width)
    tip = B.tipping_angle(stance, ("RLEG_JOINT5", "LLEG_JOINT5"), {}, +1)
    assert tip["edge"] == "back"
    assert tip["angle"] == pytest.approx(_ankle_pitch_by_hand(robot, stance.heel), abs=1e-6)
    # and at that angle the CoM projection is on the heel line
    e = stance.evaluate({"RLEG_JOINT5": tip["angle"], "LLEG_JOINT5": tip["angle"]})
    assert e["com"][0] == pytest.approx(stance.heel, abs=1e-6) and abs(e["margin"]) < 1e-6


def test_tipping_angle_is_monotone_in_the_support(hoap2):
    """A support shrunk by an inset margin tips earlier; a wider sole tips a lateral move later."""
    robot, protocol = hoap2
    stance = B.Stance(robot, protocol.foot_width)
    for joints, direction in ((("RLEG_JOINT3", "LLEG_JOINT3"), 1), (("RLEG_JOINT5", "LLEG_JOINT5"), -1),
                              (("RLEG_JOINT6", "LLEG_JOINT6"), 1)):
        angles = [abs(B.tipping_angle(stance, joints, {}, direction, margin=m)["angle"]) for m in (0.0, 0.005, 0.01)]
        assert angles[0] > angles[1] > angles[2] > 0, (joints, angles)
    wide = B.Stance(robot, protocol.foot_width + 0.01)
    lateral = [abs(B.tipping_angle(s, ("RLEG_JOINT6", "LLEG_JOINT6"), {}, -1)["angle"]) for s in (stance, wide)]
    assert lateral[1] > lateral[0]


def test_equal_ankle_rolls_lift_one_sole(hoap2):
    """Equal ankle rolls with the hip rolls at 0 keep the soles parallel but lift one by the
    hip spacing (2 · LEG_LINK1 = 0.078 m) times sin θ."""
    robot, protocol = hoap2
    stance = B.Stance(robot, protocol.foot_width)
    for theta in (-0.2, 0.1, 0.25):
        e = stance.evaluate({"RLEG_JOINT6": theta, "LLEG_JOINT6": theta})
        assert e["lift"] == pytest.approx(0.078 * np.sin(abs(theta)), abs=1e-9)
    with pytest.raises(InputError, match="not parallel"):
        stance.evaluate({"RLEG_JOINT5": 0.1})  # one ankle only: the soles tilt against each other


def test_protocol_table(hoap2):
    robot, protocol = hoap2
    rows = B.balance_table(robot, protocol)
    assert len(rows) == len(protocol.moves) == 16
    stance = B.Stance(robot, protocol.foot_width)
    for row, move in zip(rows, protocol.moves):
        assert row["move"] == move.name and row["measured_deg"] == pytest.approx(np.degrees(move.measured))
        if row["tipped"]:
            assert row["error_deg"] == pytest.approx(row["predicted_deg"] - row["measured_deg"])
            assert np.sign(row["predicted_deg"]) == move.direction
            assert row["edge"] == row["falls"]  # the model falls the way the robot did
            posture = dict(protocol.arms_lowered) if move.arms_lowered else {}
            e = stance.evaluate({**posture, **{j: np.radians(row["predicted_deg"]) for j in move.joints}})
            assert abs(e["margin"]) < 1e-6  # the CoM is on the support's edge
        else:  # counted at the joint-range end: a lower bound of the error
            assert abs(row["error_deg"]) == pytest.approx(abs(row["limit_deg"] - row["measured_deg"]))
    assert B.mean_abs_error(rows) == pytest.approx(np.mean([abs(r["error_deg"]) for r in rows]))


def test_cross_validation_scores_held_out_moves(hoap2):
    robot, protocol = hoap2
    grid = (0.0, 0.01, 0.02)
    cv = B.cross_validated_margin(robot, protocol, grid=grid)
    names = [m.name for m in protocol.moves]
    for fold in cv["folds"]:
        test = [i for i, n in enumerate(names) if n not in fold["train"]]
        assert len(test) == len(fold["train"]) == 8 and fold["margin_m"] in grid
        rows = B.balance_table(robot, protocol, margin=fold["margin_m"])
        assert fold["test_mae_deg"] == pytest.approx(B.mean_abs_error([rows[i] for i in test]))
        assert fold["train_mae_deg"] == min(B.mean_abs_error([r for r, n in zip(
            B.balance_table(robot, protocol, margin=m), names) if n in fold["train"]]) for m in grid)


def test_bad_protocol_file_is_bad_input(tmp_path):
    (tmp_path / B.PROTOCOL_FILE).write_text("robot: hoap2\nmoves: [{move: x}]\n")
    with pytest.raises(InputError, match="malformed balance protocol"):
        B.load_protocol(tmp_path)


def test_backlash_at_the_moved_joint_shifts_the_limit_by_the_play(hoap2):
    """Play d at the moved joints themselves: the robot tips when commanded + d reaches the
    limit without play, i.e. d earlier."""
    robot, protocol = hoap2
    stance = B.Stance(robot, protocol.foot_width)
    ankles = ("RLEG_JOINT5", "LLEG_JOINT5")
    d = np.radians(2.0)
    free = B.tipping_angle(stance, ankles, {}, +1)["angle"]
    play = B.tipping_angle(stance, ankles, {}, +1, offsets={j: d for j in ankles})["angle"]
    assert play == pytest.approx(free - d, abs=1e-6)


def test_backlash_is_taken_up_towards_the_fall(hoap2):
    robot, protocol = hoap2
    by_name = {m.name: m for m in protocol.moves}
    assert set(B.backlash_offsets(protocol, by_name["leg3 Back"]).values()) == {np.radians(2.0)}
    assert set(B.backlash_offsets(protocol, by_name["leg5 Front"]).values()) == {-np.radians(2.0)}
    assert B.backlash_offsets(protocol, by_name["leg6 Left"]) == {}
    plain = B.balance_table(robot, protocol)
    played = B.balance_table(robot, protocol, backlash=True)
    for a, b in zip(plain, played):  # the play makes fore-aft moves tip earlier, sideways ones the same
        if a["falls"] in ("back", "front") and a["tipped"]:
            assert abs(b["predicted_deg"]) < abs(a["predicted_deg"])
        elif a["falls"] in ("left", "right"):
            assert b["predicted_deg"] == a["predicted_deg"]
