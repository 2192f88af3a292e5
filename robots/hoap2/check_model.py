#!/usr/bin/env python3
"""Numeric checks of hoap2.urdf with Pinocchio (run after make_urdf.py).

    python robots/hoap2/check_model.py

Prints every number quoted in README.md ("Checks") and fails loudly if one is off:
masses, link lengths and height, local-frame orientation against the thesis author's Webots
model, the mirror map of robot.yaml, and the standing posture of both robot.yaml files.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin
import yaml

HERE = Path(__file__).resolve().parent
URDF = HERE / "hoap2.urdf"
M = np.diag([1.0, -1.0, 1.0])  # reflection through the x-z plane


def frame_pose(model, data, q, name):
    pin.framesForwardKinematics(model, data, q)
    oMf = data.oMf[model.getFrameId(name)]
    return oMf.translation.copy(), oMf.rotation.copy()


def configuration(model, values: dict) -> np.ndarray:
    q = pin.neutral(model)
    for name, v in values.items():
        q[model.joints[model.getJointId(name)].idx_q] = v
    return q


def main() -> None:
    fixed = pin.buildModelFromUrdf(str(URDF))  # fixed base: the root is BODY2_LINK
    names = list(fixed.names)[1:]
    assert fixed.nq == 25 and len(names) == 25, fixed.nq
    print(f"loaded: nq={fixed.nq}, joints={names}")
    # Everything below uses the free-flyer model (base at the identity): Pinocchio's
    # centerOfMass leaves out the root link of a fixed-base model (it sits on the universe).
    model = pin.buildModelFromUrdf(str(URDF), pin.JointModelFreeFlyer())
    data = model.createData()

    # -- masses -----------------------------------------------------------------------------
    total = sum(I.mass for I in model.inertias)
    hands = sum(model.inertias[model.getJointId(j)].mass for j in ("RARM_JOINT5", "LARM_JOINT5"))
    print(f"total mass {total:.7f} kg (expected 7.1200448), without hands {total - hands:.7f} "
          f"(expected 7.0256448)")
    assert abs(total - 7.1200448) < 1e-9 and abs(total - hands - 7.0256448) < 1e-9
    assert abs(pin.computeTotalMass(model) - 7.1200448) < 1e-9
    assert abs(sum(I.mass for I in fixed.inertias) - 7.1200448) < 1e-9
    print(f"free-flyer model: nq={model.nq}, nv={model.nv}, mass {pin.computeTotalMass(model):.7f}")

    # -- geometry at the zero posture -------------------------------------------------------
    q0 = pin.neutral(model)
    pin.forwardKinematics(model, data, q0)
    pos = {n: data.oMi[model.getJointId(n)].translation for n in names}
    ls, _ = frame_pose(model, data, q0, "l_sole")
    rs, _ = frame_pose(model, data, q0, "r_sole")
    print("zero posture, relative to the waist axis (BODY2_LINK origin):")
    for n in ("LLEG_JOINT3", "LLEG_JOINT4", "LLEG_JOINT5", "LARM_JOINT1", "LARM_JOINT4",
              "LARM_JOINT5", "HEAD_JOINT1", "HEAD_JOINT2"):
        print(f"  {n:12s} {np.round(pos[n], 4)}")
    print(f"  l_sole {np.round(ls, 4)}  r_sole {np.round(rs, 4)}")
    thigh = np.linalg.norm(pos["LLEG_JOINT4"] - pos["LLEG_JOINT3"])
    shank = np.linalg.norm(pos["LLEG_JOINT5"] - pos["LLEG_JOINT4"])
    upper_arm = np.linalg.norm(pos["LARM_JOINT4"] - pos["LARM_JOINT1"])
    assert np.isclose(thigh, 0.1) and np.isclose(shank, 0.1) and np.isclose(upper_arm, 0.101)
    head_top = pos["HEAD_JOINT2"][2] + 0.038  # head radius of the Webots model's sphere
    print(f"  waist axis above the soles {-ls[2]:.3f} m; head pitch axis {pos['HEAD_JOINT2'][2] - ls[2]:.3f} m;"
          f" height with a 0.038 m head radius {head_top - ls[2]:.3f} m (thesis: 0.50 m)")

    # -- local frames against the Webots model (Hoap2.proto, by the thesis author) -----------
    # centerOfMass of the Webots solids, whose frames are world-aligned at the zero posture;
    # the offset is from the solid origin (the joint anchor; for the upper arm: the shoulder).
    webots = {"LLEG_JOINT6": [0.00382498, -7.8506e-05, -0.0248732],
              "LLEG_JOINT5": [0.00465209, 0.000781354, 0.0032429],
              "LLEG_JOINT4": [0.0117225, 0.00297242, -0.0429459],
              "LLEG_JOINT2": [0.0035, 0.0006, -0.0033],
              "RLEG_JOINT2": [0.0034717, -0.000501018, -0.00328966],
              "LARM_JOINT2": [0.00991179, -0.00010261, -0.00228301],
              "RARM_JOINT2": [0.00991179, -1.0018e-05, -0.00228428],
              "LARM_JOINT3": [0.0683622, -0.00294852, -2.62609e-05],
              "RARM_JOINT3": [0.0686287, 0.00296507, 7.84781e-05],
              "LARM_JOINT4": [0.0462509, -0.00506704, -0.00529933],
              "RARM_JOINT4": [0.0462381, 0.00506243, -0.00529577],
              "HEAD_JOINT2": [0.000529511, -0.000235569, 0.00394438],
              "BODY_JOINT1": [-0.03, 0.000279815, 0.0671529]}
    anchor = {"LARM_JOINT3": "LARM_JOINT1", "RARM_JOINT3": "RARM_JOINT1"}
    worst = 0.0
    for j, w in webots.items():
        i = model.getJointId(j)
        c = data.oMi[i].act(model.inertias[i].lever) - data.oMi[model.getJointId(anchor.get(j, j))].translation
        worst = max(worst, np.abs(c - w).max())
    # the waist (root) link: its inertia sits on the free-flyer joint of the floating model
    root_w = np.array([-0.025737, 0.000362732, 0.00556017])
    c_root = model.inertias[1].lever
    worst = max(worst, np.abs(c_root - root_w).max())
    print(f"CoM offsets vs the Webots model, 14 links: worst difference {worst * 1e3:.3f} mm")
    assert worst < 0.5e-3

    # -- mirror map --------------------------------------------------------------------------
    spec = yaml.safe_load((HERE / "robot.yaml").read_text())
    locked = spec["locked"]
    pairs = spec["mirror"]["joints"]
    flip = set(spec["mirror"]["flip"])
    partner = {}
    for a, b in pairs:
        partner[a], partner[b] = b, a
    rng = np.random.default_rng(0)
    worst_pos = worst_rot = worst_com = 0.0
    for _ in range(200):
        vals = {n: rng.uniform(model.lowerPositionLimit[model.joints[model.getJointId(n)].idx_q],
                               model.upperPositionLimit[model.joints[model.getJointId(n)].idx_q])
                for n in names}
        vals.update(locked)
        mirrored = {partner.get(n, n): (-v if n in flip else v) for n, v in vals.items()}
        q, qm = configuration(model, vals), configuration(model, mirrored)
        for a, b in (("l_sole", "r_sole"), ("r_sole", "l_sole")):
            pa, Ra = frame_pose(model, data, q, a)
            pb, Rb = frame_pose(model, data, qm, b)
            worst_pos = max(worst_pos, np.abs(pb - M @ pa).max())
            worst_rot = max(worst_rot, np.abs(Rb - M @ Ra @ M).max())
        # hand joints (locked, so not in the mirror pairs) and the head
        for a, b in (("LARM_JOINT5", "RARM_JOINT5"), ("RARM_JOINT5", "LARM_JOINT5"),
                     ("HEAD_JOINT2", "HEAD_JOINT2")):
            pin.forwardKinematics(model, data, q)
            pa = data.oMi[model.getJointId(a)].translation.copy()
            pin.forwardKinematics(model, data, qm)
            pb = data.oMi[model.getJointId(b)].translation.copy()
            worst_pos = max(worst_pos, np.abs(pb - M @ pa).max())
        c = pin.centerOfMass(model, data, q)
        cm = pin.centerOfMass(model, pin.Data(model), qm)
        worst_com = max(worst_com, np.abs(cm - M @ c).max())
        # the mirrored configuration must stay inside the joint limits
        assert np.all(qm[7:] >= model.lowerPositionLimit[7:] - 1e-12)
        assert np.all(qm[7:] <= model.upperPositionLimit[7:] + 1e-12)
    print(f"mirror, 200 random q: sole/hand/head positions {worst_pos:.1e} m, sole rotations "
          f"{worst_rot:.1e}; whole-body CoM {worst_com * 1e3:.2f} mm (mass data not exactly symmetric)")
    assert worst_pos < 1e-12 and worst_rot < 1e-12
    # link-by-link mass asymmetry (world frame, zero posture)
    pin.forwardKinematics(model, data, q0)
    com_d = inertia_d = 0.0
    for a, b in pairs:
        ia, ib = model.getJointId(a), model.getJointId(b)
        ca = data.oMi[ia].act(model.inertias[ia].lever)
        cb = data.oMi[ib].act(model.inertias[ib].lever)
        Ia = data.oMi[ia].rotation @ model.inertias[ia].inertia @ data.oMi[ia].rotation.T
        Ib = data.oMi[ib].rotation @ model.inertias[ib].inertia @ data.oMi[ib].rotation.T
        com_d = max(com_d, np.abs(cb - M @ ca).max())
        inertia_d = max(inertia_d, np.abs(Ib - M @ Ia @ M).max() / np.abs(Ia).max())
    c0 = pin.centerOfMass(model, data, q0)
    print(f"left/right link pairs: CoM mismatch after reflection {com_d * 1e3:.2f} mm, inertia "
          f"{inertia_d * 100:.1f} % of the largest entry; zero-posture CoM y = {c0[1] * 1e3:.2f} mm")

    # -- standing postures --------------------------------------------------------------------
    for folder in ("hoap2", "hoap2_sagittal"):
        spec = yaml.safe_load((HERE.parent / folder / "robot.yaml").read_text())
        vals = dict(spec.get("locked", {}))
        vals.update(spec["standing"]["joints"])
        q = configuration(model, vals)
        pl, Rl = frame_pose(model, data, q, "l_sole")
        pr, Rr = frame_pose(model, data, q, "r_sole")
        c = pin.centerOfMass(model, data, q)
        heel = spec["feet"]["left"]["heel"][0]
        toe = spec["feet"]["left"]["toe"][0]
        print(f"{folder} standing: sole z {pl[2]:.5f} / {pr[2]:.5f} m, sole tilt "
              f"{np.degrees(np.arccos(min(1.0, Rl[2, 2]))):.1e} / "
              f"{np.degrees(np.arccos(min(1.0, Rr[2, 2]))):.1e} deg, base_z {-pl[2]:.5f} "
              f"(robot.yaml {spec['standing'].get('base_z')}); CoM x - ankle x "
              f"{(c[0] - pl[0]) * 1e3:.1f} mm (foot {heel * 1e3:.0f}..{toe * 1e3:.0f} mm), "
              f"CoM height {(c[2] - pl[2]):.3f} m, CoM y {c[1] * 1e3:.2f} mm")
        assert abs(pl[2] - pr[2]) < 1e-12 and np.allclose(Rl, np.eye(3)) and np.allclose(Rr, np.eye(3))
        assert abs(-pl[2] - spec["standing"]["base_z"]) < 1e-9
        assert heel < c[0] - pl[0] < toe
        assert np.all(q[7:] >= model.lowerPositionLimit[7:]) and np.all(q[7:] <= model.upperPositionLimit[7:])
    balance_limits(model, data)
    print("all checks passed")


# Thesis sec 8, Table 6: the real robot's balance limits (balance_protocol.yaml, with sources).
# From the zero posture (arms forward), one joint pair (or BODY_JOINT1) is moved until the robot
# falls; "L Arm" = arms lowered (ARM_JOINT1 = pi/2 assumed). At each limit the CoM should be over
# an edge of the feet.
def balance_moves():
    """(move, joints, real limit angle in rad, arm angles) of the 16 protocol moves."""
    spec = yaml.safe_load((HERE / "balance_protocol.yaml").read_text(encoding="utf-8"))
    return [(m["move"], tuple(m["joints"]), m["measured_rad"], spec["arms_lowered"] if m["arms_lowered"] else {})
            for m in spec["moves"]]


def balance_limits(model, data) -> None:
    """CoM over the feet (sole axes, from the point midway between the ankles) at each limit."""
    out = {"Back": [], "Front": [], "Right": [], "Left": []}
    for move, joints, angle, arms in balance_moves():
        vals = {j: angle for j in joints}
        vals.update(arms)
        q = configuration(model, vals)
        pl, Rl = frame_pose(model, data, q, "l_sole")
        pr, _ = frame_pose(model, data, q, "r_sole")
        c = Rl.T @ (pin.centerOfMass(model, data, q) - (pl + pr) / 2)
        direction = move.split()[1]
        out[direction].append(c[1] if direction in ("Right", "Left") else c[0])
    print("thesis balance limits (real robot) -> model CoM from the mid-ankle point:")
    for k, v in out.items():
        v = np.array(v) * 1e3
        print(f"  {k:5s} falls: CoM {'y' if k in ('Right', 'Left') else 'x'} {np.round(v, 1)} mm, "
              f"mean {v.mean():.1f}")
    # fore-aft limits inside the assumed foot (heel -36 mm, toe +58 mm), lateral inside +-70 mm
    assert -36 < 1e3 * max(out["Back"]) and 1e3 * max(out["Front"]) < 58
    assert 1e3 * max(out["Left"]) < 70 and -70 < 1e3 * min(out["Right"])


if __name__ == "__main__":
    main()
