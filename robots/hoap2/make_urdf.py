#!/usr/bin/env python3
"""Write hoap2.urdf (Fujitsu HOAP-2, 25 joints) from hoap2_links.yaml.

    python robots/hoap2/make_urdf.py            # writes robots/hoap2/hoap2.urdf

Needs numpy and pyyaml only. The mass properties come from hoap2_links.yaml (the Fujitsu
inspection report, via the EPFL thesis). The kinematic layout is only drawn in the thesis
figures, so it is rebuilt here from the Table 1 link lengths; the reasons for every placement
and axis direction are in README.md ("Layout").

Conventions
- World at the zero posture (every joint at 0): x forward, y left, z up. Origin of the root
  link BODY2_LINK (the waist) = the BODY_JOINT1 axis on the mid-sagittal plane.
- The report gives each link's CoM and inertia in "that joint's local frame, whose Z axis is
  the joint axis" (thesis sec 3.5). So each child link's URDF frame IS that local frame: every
  revolute joint has axis 0 0 1 and its origin rpy turns the parent frame into it.
  Exceptions (the data frame is not a joint frame): BODY2_LINK (root, no joint) and
  BODY1_LINK (report footnote "WAIST coordinate definition"); their CoM and inertia are
  rotated from the data frame into the link frame here.
- The URDF inertia is the report matrix as printed (it is the inertia tensor: its
  off-diagonal entries are the negated products of inertia, as URDF ixy/ixz/iyz are).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import yaml

HERE = Path(__file__).resolve().parent
DATA = HERE / "hoap2_links.yaml"
OUT = HERE / "hoap2.urdf"

# Joint velocity limit: the default 'direct'-mode maximum speed, 57 pulse/ms = 4.76 rad/s
# (thesis sec 3.8, "reachable by every joint in any situation"; the thesis simulator's limit).
VELOCITY_LIMIT = 4.76
# Joint torque limit: NOT in the source ("max torque not in the manual and not measured").
# Estimate = the current-limit torque of the actuator estimate in robot.yaml:
# G*eta*K*I_max = 100 * 0.7 * 0.0125 N*m/A * 4.0 A = 3.5 N*m (see README.md, "Actuators").
EFFORT_LIMIT = 3.5

X = np.array([1.0, 0.0, 0.0])
Y = np.array([0.0, 1.0, 0.0])
Z = np.array([0.0, 0.0, 1.0])


def frame(x_axis, y_axis, z_axis) -> np.ndarray:
    """Rotation whose columns are a local frame's x, y, z axes written in world coordinates."""
    R = np.column_stack([x_axis, y_axis, z_axis]).astype(float)
    assert np.allclose(R.T @ R, np.eye(3)) and np.isclose(np.linalg.det(R), 1.0), R
    return R


# Local-frame orientations at the zero posture (README.md, "Local frames").
WORLD = frame(X, Y, Z)                 # x fwd, y left, z up: HEAD_JOINT1, soles, root
YAW_LEFT_X = frame(Y, -X, Z)           # z up, x left, y back: LEG_JOINT1, ARM_JOINT2
ROLL_UP_X = frame(Z, -Y, X)            # z fwd, x up, y right: LEG_JOINT2/6, ARM_JOINT3/5
PITCH_UP_X = frame(Z, X, Y)            # z left, x up, y fwd: LEG_JOINT3/4/5, ARM_JOINT4
PITCH_FWD_X = frame(X, -Z, Y)          # z left, x fwd, y down: ARM_JOINT1, BODY_JOINT1, HEAD_JOINT2
BODY2_DATA = frame(X, Z, -Y)           # x fwd, y up, z right: data frame of the waist (root)


def layout(L: dict) -> list[dict]:
    """Every joint at the zero posture: name, parent and child link, joint position (world),
    child link frame orientation (world). L = Table 1 link lengths."""
    joints = []

    def add(name, parent, child, pos, R, kind="revolute"):
        joints.append(dict(name=name, parent=parent, child=child,
                           pos=np.asarray(pos, float), R=R, kind=kind))

    # Waist joint at the root origin; torso link frame turned so that z = +y (world).
    add("BODY_JOINT1", "BODY2_LINK", "BODY1_LINK", [0.0, 0.0, 0.0], PITCH_FWD_X)

    for side, s, P in (("R", -1.0, "RLEG"), ("L", 1.0, "LLEG")):
        # hip: the yaw, roll and pitch axes meet WAIST_LINK2 behind, WAIST_LINK1 below the
        # waist axis and LEG_LINK1 to the side
        hip = np.array([-L["WAIST_LINK2"], s * L["LEG_LINK1"], -L["WAIST_LINK1"]])
        knee = hip - [0.0, 0.0, L["LEG_LINK2"]]
        ankle = knee - [0.0, 0.0, L["LEG_LINK3"]]
        sole = ankle - [0.0, 0.0, L["LEG_LINK4"]]
        add(f"{P}_JOINT1", "BODY2_LINK", f"{side}J1_LINK", hip, YAW_LEFT_X)
        add(f"{P}_JOINT2", f"{side}J1_LINK", f"{side}J2_LINK", hip, ROLL_UP_X)
        add(f"{P}_JOINT3", f"{side}J2_LINK", f"{side}J3_LINK", hip, PITCH_UP_X)
        add(f"{P}_JOINT4", f"{side}J3_LINK", f"{side}J4_LINK", knee, PITCH_UP_X)
        add(f"{P}_JOINT5", f"{side}J4_LINK", f"{side}J5_LINK", ankle, PITCH_UP_X)
        add(f"{P}_JOINT6", f"{side}J5_LINK", f"{side}J6_LINK", ankle, ROLL_UP_X)
        add(f"{side.lower()}_sole_joint", f"{side}J6_LINK", f"{side.lower()}_sole", sole,
            WORLD, kind="fixed")

    for side, s, P in (("R", -1.0, "RARM"), ("L", 1.0, "LARM")):
        # shoulder: BODY_LINK2 behind, BODY_LINK1 above the waist axis, ARM_LINK1 to the side;
        # the arm points forward at the zero posture
        shoulder = np.array([-L["BODY_LINK2"], s * L["ARM_LINK1"], L["BODY_LINK1"]])
        elbow = shoulder + [L["ARM_LINK2"], 0.0, 0.0]
        wrist = elbow + [HAND_JOINT_FROM_ELBOW, 0.0, 0.0]
        add(f"{P}_JOINT1", "BODY1_LINK", f"{side}HJ1_LINK", shoulder, PITCH_FWD_X)
        add(f"{P}_JOINT2", f"{side}HJ1_LINK", f"{side}HJ2_LINK", shoulder, YAW_LEFT_X)
        # the twist frame origin is put at the elbow (where the report's upper-arm CoM,
        # 32.4 mm back along the twist axis, puts it); any point on the axis is kinematically
        # the same
        add(f"{P}_JOINT3", f"{side}HJ2_LINK", f"{side}HJ3_LINK", elbow, ROLL_UP_X)
        add(f"{P}_JOINT4", f"{side}HJ3_LINK", f"{side}HJ4_LINK", elbow, PITCH_UP_X)
        add(f"{P}_JOINT5", f"{side}HJ4_LINK", f"{side}HJ5_LINK", wrist, ROLL_UP_X)

    neck = np.array([-L["BODY_LINK2"], 0.0, L["BODY_LINK1"]])
    head = neck + [L["HEAD_LINK2"], 0.0, L["HEAD_LINK1"]]
    add("HEAD_JOINT1", "BODY1_LINK", "HEAD1_LINK", neck, WORLD)
    add("HEAD_JOINT2", "HEAD1_LINK", "HEAD2_LINK", head, PITCH_FWD_X)
    return joints


# Hand (ARM_JOINT5) axis position along the forearm: not in Table 1. 0.100 m from the elbow as
# in the thesis author's Webots model; the hand then reaches ARM_LINK3 = 0.146 m (README.md).
HAND_JOINT_FROM_ELBOW = 0.100

# link name -> key of its mass data in hoap2_links.yaml ("LINK belonging to joint X")
LINK_DATA = {"BODY2_LINK": "BODY_JOINT2", "BODY1_LINK": "BODY_JOINT1",
             "HEAD1_LINK": "HEAD_JOINT1", "HEAD2_LINK": "HEAD_JOINT2"}
for _side, _leg, _arm in (("R", "RLEG", "RARM"), ("L", "LLEG", "LARM")):
    LINK_DATA.update({f"{_side}J{k}_LINK": f"{_leg}_JOINT{k}" for k in range(1, 7)})
    LINK_DATA.update({f"{_side}HJ{k}_LINK": f"{_arm}_JOINT{k}" for k in range(1, 6)})

# links whose data frame differs from the link (= joint) frame: data frame orientation (world)
DATA_FRAME = {"BODY2_LINK": BODY2_DATA, "BODY1_LINK": WORLD}


def reflect(inertia: np.ndarray, axis: str) -> np.ndarray:
    D = np.diag([-1.0 if a == axis else 1.0 for a in "xyz"])
    return D @ inertia @ D


def box_inertia(mass: float, size) -> np.ndarray:
    a, b, c = size
    return mass / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def mass_properties(links: dict, estimates: dict) -> dict:
    """key -> (mass, com, inertia) in the data frame, every null filled from `estimates`."""
    out = {}
    for key, entry in links.items():
        est = estimates.get(key, {})
        mass = float(entry["mass"])
        com = entry["com"]
        if com is None:
            com = est["com"]
        com = [c if c is not None else est[f"com_{'xyz'[i]}"] for i, c in enumerate(com)]
        inertia = entry["inertia"]
        if inertia is None:
            rule = est["inertia"] if "inertia" in est else {"box": est["box"]}
            if isinstance(rule, dict) and "mirror_of" in rule:
                inertia = reflect(np.array(links[rule["mirror_of"]]["inertia"], float),
                                  rule["lateral_axis"])
            elif isinstance(rule, dict) and "box" in rule:
                inertia = box_inertia(mass, rule["box"])
            else:
                inertia = rule
        out[key] = (mass, np.array(com, float), np.array(inertia, float))
    return out


def check_inertia(name: str, inertia: np.ndarray) -> None:
    assert np.allclose(inertia, inertia.T, atol=0.0), name
    ev = np.linalg.eigvalsh(inertia)
    assert ev[0] > 0.0, f"{name}: inertia not positive definite {ev}"
    assert ev[0] + ev[1] >= ev[2], f"{name}: principal moments break the triangle inequality {ev}"


def rpy(R: np.ndarray) -> tuple[float, float, float]:
    """URDF roll-pitch-yaw (R = Rz(yaw) Ry(pitch) Rx(roll)), checked by rebuilding R."""
    pitch = math.atan2(-R[2, 0], math.hypot(R[0, 0], R[1, 0]))
    if math.hypot(R[0, 0], R[1, 0]) > 1e-9:
        roll = math.atan2(R[2, 1], R[2, 2])
        yaw = math.atan2(R[1, 0], R[0, 0])
    else:  # pitch = +-pi/2: only roll -+ yaw is defined; take yaw = 0
        yaw = 0.0
        roll = math.atan2(-R[1, 2], R[1, 1])
    cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch),
                              math.sin(pitch), math.cos(yaw), math.sin(yaw))
    back = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]]) @ \
        np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]]) @ \
        np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    assert np.allclose(back, R, atol=1e-12), (R, roll, pitch, yaw)
    return roll, pitch, yaw


def num(v: float) -> str:
    v = float(v)
    if abs(v) < 1e-15:
        return "0"
    return f"{v:.15g}"  # 15 digits: drops float noise, keeps every printed digit


def vec(v) -> str:
    return " ".join(num(x) for x in v)


def build() -> str:
    data = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    L = data["link_lengths"]
    props = mass_properties(data["links"], data["estimates"])
    joints = layout(L)

    world_R = {"BODY2_LINK": WORLD}
    world_p = {"BODY2_LINK": np.zeros(3)}
    for j in joints:
        world_R[j["child"]] = j["R"]
        world_p[j["child"]] = j["pos"]

    lines = ['<?xml version="1.0"?>',
             "<!-- Fujitsu HOAP-2 (25 joints), written by make_urdf.py from hoap2_links.yaml:",
             "     do not edit by hand. Sources and assumptions: README.md in this folder. -->",
             '<robot name="hoap2">']

    link_order = ["BODY2_LINK"] + [j["child"] for j in joints]
    total = 0.0
    for link in link_order:
        if link not in LINK_DATA:  # sole frames: massless
            lines.append(f'  <link name="{link}"/>')
            continue
        key = LINK_DATA[link]
        mass, com, inertia = props[key]
        check_inertia(key, inertia)
        # rotate data-frame values into the link frame (identity except BODY1/BODY2)
        Rr = world_R[link].T @ DATA_FRAME.get(link, world_R[link])
        com_l = Rr @ com
        I_l = Rr @ inertia @ Rr.T
        total += mass
        lines += [f'  <link name="{link}">',
                  f'    <!-- {key}: the link moved by {key} -->' if key != "BODY_JOINT2"
                  else "    <!-- BODY_JOINT2 entry: the waist (root), no joint -->",
                  "    <inertial>",
                  f'      <origin xyz="{vec(com_l)}" rpy="0 0 0"/>',
                  f'      <mass value="{num(mass)}"/>',
                  f'      <inertia ixx="{num(I_l[0, 0])}" ixy="{num(I_l[0, 1])}" '
                  f'ixz="{num(I_l[0, 2])}" iyy="{num(I_l[1, 1])}" iyz="{num(I_l[1, 2])}" '
                  f'izz="{num(I_l[2, 2])}"/>',
                  "    </inertial>",
                  "  </link>"]

    ranges = data["joint_range_deg"]
    for j in joints:
        Rp, pp = world_R[j["parent"]], world_p[j["parent"]]
        xyz = Rp.T @ (j["pos"] - pp)
        r = rpy(Rp.T @ j["R"])
        lines.append(f'  <joint name="{j["name"]}" type="{j["kind"]}">')
        lines.append(f'    <parent link="{j["parent"]}"/>')
        lines.append(f'    <child link="{j["child"]}"/>')
        lines.append(f'    <origin xyz="{vec(xyz)}" rpy="{vec(r)}"/>')
        if j["kind"] == "revolute":
            lo, hi = (math.radians(a) for a in ranges[j["name"]])
            lines.append('    <axis xyz="0 0 1"/>')
            lines.append(f'    <limit lower="{num(lo)}" upper="{num(hi)}" '
                         f'effort="{num(EFFORT_LIMIT)}" velocity="{num(VELOCITY_LIMIT)}"/>')
        lines.append("  </joint>")
    lines.append("</robot>")

    stated = data["mass_check"]
    hands = props["RARM_JOINT5"][0] + props["LARM_JOINT5"][0]
    assert abs(total - stated["sum_all_26_entries"]) < 1e-9, total
    assert abs(total - hands - stated["stated_total"]) < 1e-9, total - hands
    assert sum(j["kind"] == "revolute" for j in joints) == 25
    return "\n".join(lines) + "\n"


def main() -> None:
    OUT.write_text(build(), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
