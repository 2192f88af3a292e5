"""A robot with designed limb lengths: its Pinocchio model in memory, and the same robot written
as a URDF + robot.yaml that `gaitopt.load_robot` reads (to re-solve at fixed lengths).

The stretch of each thigh and shank is the one `gaitopt.limb_lengths` puts in the symbolic
dynamics (its module docstring gives the rule); here it is applied to numbers: to the merged
bodies of the Pinocchio model (`designed_robot`), or to the URDF link by link (`write_robot`),
each link and fixed joint that hangs rigidly from a segment's joint stretched in its own frame.
"""
from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pinocchio as pin
import yaml

from .export.atomic import atomic_write_text
from .constraints.kinematics import default_foot_half_size
from .point_kinematics import place_contacts
from .quantities import contact_points
from .legs import leg_geometry
from .limb_lengths import stretch, stretched_body
from .robot import read_yaml


def _num(x) -> np.ndarray:
    return np.array(x, float).reshape(np.shape(x)) if not hasattr(x, "full") else np.array(x.full())


def designed_robot(robot, segments, scales):
    """A copy of `robot` whose segments (gaitopt.limb_lengths.Segment) are scaled by `scales`
    (one factor each). Its standing posture puts the contact points where the shipped robot's
    are (inverse kinematics, base kept), and robot.yaml's `kinematics.foot_range` is set to the
    shipped robot's default box sizes unless given, so that the kinematic feasibility settings
    (gaitopt.constraints.kinematics) are the shipped robot's, as in the co-design NLP. The model
    is copied, nothing of `robot` is changed."""
    model = pin.Model(robot.model)
    S_of = {}
    for seg, s in zip(segments, np.asarray(scales, float)):
        S = _num(stretch(seg.e, float(s)))
        S_of[seg.joint] = S
        I = model.inertias[seg.joint]
        com, inertia = stretched_body(S, np.array(I.lever), np.array(I.inertia))
        model.inertias[seg.joint] = pin.Inertia(I.mass, _num(com).ravel(), _num(inertia))
    for j in range(1, model.njoints):
        S = S_of.get(model.parents[j])
        if S is not None:
            M = model.jointPlacements[j]
            model.jointPlacements[j] = pin.SE3(M.rotation, S @ M.translation)
    for i in range(len(model.frames)):
        fr = model.frames[i]
        S = S_of.get(fr.parentJoint)
        if S is not None and fr.type != pin.FrameType.JOINT:
            fr.placement = pin.SE3(fr.placement.rotation, S @ fr.placement.translation)
            model.frames[i] = fr
    out = copy.copy(robot)
    out.model = model
    # the feasibility geometry must not follow the design (the co-design NLP used the shipped
    # robot's): the standing feet stay where they were, the foot boxes keep their sizes
    shipped = leg_geometry(robot)
    targets = contact_points(robot, [robot.standing_q])[0]
    out.standing_q = place_contacts(out, robot.standing_q, targets)
    kin = dict(robot.kinematics)
    if "foot_range" not in kin:
        kin["foot_range"] = {"feet": {f: [float(x) for x in default_foot_half_size(robot, shipped, f)]
                                      for f in robot.feet}}
    out.kinematics = kin
    return out


def _rpy(el) -> np.ndarray:
    o = el.find("origin")
    rpy = [0.0, 0.0, 0.0] if o is None else [float(x) for x in o.get("rpy", "0 0 0").split()]
    return pin.rpy.rpyToMatrix(*rpy)


def _xyz(el) -> np.ndarray:
    o = el.find("origin")
    return np.zeros(3) if o is None else np.array([float(x) for x in o.get("xyz", "0 0 0").split()])


def _set_xyz(el, xyz) -> None:
    o = el.find("origin")
    if o is None:
        o = ET.SubElement(el, "origin")
    o.set("xyz", " ".join(repr(float(x)) for x in xyz))


def _stretch_link(link, S_link) -> None:
    """Stretch one URDF link's inertial by S_link (the stretch in the link's frame)."""
    inertial = link.find("inertial")
    if inertial is None:
        return
    R = _rpy(inertial)
    el = inertial.find("inertia")
    k = {n: float(el.get(n, "0")) for n in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    I = np.array([[k["ixx"], k["ixy"], k["ixz"]], [k["ixy"], k["iyy"], k["iyz"]], [k["ixz"], k["iyz"], k["izz"]]])
    _, I2 = stretched_body(R.T @ S_link @ R, np.zeros(3), I)   # the stretch in the inertial's frame
    I2 = _num(I2)
    for n, (a, b) in {"ixx": (0, 0), "ixy": (0, 1), "ixz": (0, 2), "iyy": (1, 1), "iyz": (1, 2), "izz": (2, 2)}.items():
        el.set(n, repr(float(I2[a, b])))
    _set_xyz(inertial, S_link @ _xyz(inertial))


def stretched_urdf(urdf_text: str, segments, scales, joint_names) -> str:
    """The URDF with each segment's link (the child link of joint `joint_names[seg.joint]`) and
    the links fixed to it stretched: inertials, and the origins of the joints they parent."""
    root = ET.fromstring(urdf_text)
    links = {ln.get("name"): ln for ln in root.findall("link")}
    joints = root.findall("joint")
    for seg, s in zip(segments, np.asarray(scales, float)):
        S = _num(stretch(seg.e, float(s)))
        top = next(j for j in joints if j.get("name") == joint_names[seg.joint]).find("child").get("link")
        todo = [(top, np.eye(3))]            # (link, its rotation in the segment joint's frame)
        while todo:
            name, R = todo.pop()
            S_link = R.T @ S @ R
            _stretch_link(links[name], S_link)
            for j in joints:
                if j.find("parent").get("link") != name:
                    continue
                _set_xyz(j, S_link @ _xyz(j))
                if j.get("type") == "fixed":
                    todo.append((j.find("child").get("link"), R @ _rpy(j)))
    return ET.tostring(root, encoding="unicode")


def write_robot(robot, segments, scales, outdir, note: str = "") -> Path:
    """Write `robot` with scaled segments as outdir/<name>/{<name>.urdf, robot.yaml} (robot.yaml
    is the original's with `urdf` pointing at the new file and the standing posture and foot
    boxes of `designed_robot`) and return the folder. Refuses to write into the robot's own folder."""
    folder = Path(outdir) / robot.name
    if folder.resolve() == Path(robot.folder).resolve():
        raise ValueError(f"refusing to overwrite the robot's own folder {folder}")
    folder.mkdir(parents=True, exist_ok=True)
    text = stretched_urdf(Path(robot.urdf).read_text(encoding="utf-8"), segments, scales, list(robot.model.names))
    atomic_write_text(folder / f"{robot.name}.urdf", text)
    spec = read_yaml(Path(robot.folder) / "robot.yaml")
    spec["urdf"] = f"{robot.name}.urdf"
    designed = designed_robot(robot, segments, scales)
    q = designed.standing_q
    standing = {"joints": {j: float(q[robot.index(j)]) for j in robot.joints}}
    if "base_z" in robot.base_coordinates:
        standing["base_z"] = float(q[robot.index("base_z")])
    spec["standing"] = standing
    spec.setdefault("kinematics", {})["foot_range"] = designed.kinematics["foot_range"]
    spec["description"] = f"{spec.get('description', robot.name)}; {note}" if note else spec.get("description", "")
    atomic_write_text(folder / "robot.yaml", yaml.safe_dump(spec, sort_keys=False))
    return folder
