"""The MJCF export (docs/export.md "MJCF"): a standalone MuJoCo model of the robot the optimiser
used, with the gait as keyframes, that plain `mujoco.MjModel.from_xml_path` loads.

The model is `gaitopt.verify.sim_model.robot_spec`'s (the mesh-free URDF, the base coordinates
as joints of the root body, the armature G²·J_rotor of each actuated joint, the floor tilted by
the slope with the problem's friction, a contact sphere and site at each contact point) with one
torque motor per actuated joint, ctrlrange and forcerange ± the torque bound the optimiser
imposed. One keyframe per knot row of trajectory.csv: qpos, qvel and ctrl = the planned
(feedforward) joint torques; custom numeric and text fields give the times, the period, the
stride and the model keys of trajectory.csv's header.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from .atomic import atomic_write_text
from .model_header import torque_bounds
from .trajectory_csv import cycle_transform, model_record

MJCF_FORMAT = "gaitopt-mjcf 1"


def _add_motors(mj, spec, robot, bounds: dict) -> None:
    """A torque motor per actuated joint (robot.actuated order): force = ctrl [N·m], ctrl and
    force limited to ± the joint's torque bound (unlimited where the optimiser had none)."""
    for j in robot.actuated:
        act = spec.add_actuator(name=j, target=j, trntype=mj.mjtTrn.mjTRN_JOINT)
        act.gaintype = mj.mjtGain.mjGAIN_FIXED
        act.gainprm[0] = 1.0
        act.biastype = mj.mjtBias.mjBIAS_NONE
        bound = bounds[j]
        if bound is None:
            act.ctrllimited = act.forcelimited = mj.mjtLimited.mjLIMITED_FALSE
            continue
        act.ctrllimited = act.forcelimited = mj.mjtLimited.mjLIMITED_TRUE
        act.ctrlrange = [-bound, bound]
        act.forcerange = [-bound, bound]


def _numbers(values) -> str:
    """Numbers as MJCF attribute text, every digit kept (MuJoCo's writer keeps 6)."""
    return " ".join(repr(float(x)) for x in np.ravel(values))


def mjcf_spec(result, settings=None):
    """(MjSpec, compiled MjModel) of a solved gait's robot, floor and motors (no keyframes);
    settings: `gaitopt.verify.settings.ReplaySettings` (timestep, contact spheres, friction cone)."""
    # why here: MuJoCo is optional, and gaitopt.verify imports gaitopt.export
    from ..verify.settings import ReplaySettings, load_mujoco
    from ..terrain_io import surface_of
    from ..verify.sim_model import robot_spec
    mj = load_mujoco()
    settings = ReplaySettings() if settings is None else settings
    robot, problem, traj = result.robot, result.problem, result.trajectory
    spec, _, _, _ = robot_spec(robot, slope=problem.slope, friction=problem.constraints.friction, traj=traj,
                               settings=settings, surface=surface_of(problem))
    spec.modelname = robot.name
    _add_motors(mj, spec, robot, torque_bounds(robot, problem))
    model = spec.compile()
    if model.nq != robot.nq or model.nv != robot.nv:
        raise RuntimeError(f"MuJoCo's model has nq={model.nq}, gaitopt's {robot.nq} coordinates")
    return spec, model


def _refine(el, attr: str, exact) -> None:
    """Set el's attribute to the exact values when it holds them rounded (MuJoCo's XML writer
    keeps 6 significant digits); leave it as it is otherwise (another representation)."""
    text = el.get(attr)
    exact = np.ravel(np.asarray(exact, float))
    if text is None or not np.all(np.isfinite(exact)):
        return
    written = np.array([float(x) for x in text.split()])
    exact = exact[:len(written)]
    if len(exact) == len(written) and np.all(np.abs(exact - written) <= 1e-5 * np.maximum(1.0, np.abs(written))):
        el.set(attr, _numbers(exact))


def _full_precision(root, spec, result, bounds: dict) -> None:
    """Rewrite with every digit the numbers MuJoCo's XML writer rounds: the bodies' placements,
    masses, centres of mass and inertia tensors (the URDF's, as MuJoCo read them), the joints',
    geoms' and sites' placements, each joint's armature, each motor's ctrlrange and forcerange."""
    for body in root.iter("body"):
        sb = spec.body(body.get("name") or "")
        if sb is None:
            continue
        _refine(body, "pos", sb.pos)
        _refine(body, "quat", sb.quat)
        inertial = body.find("inertial")
        if inertial is not None:
            _refine(inertial, "pos", sb.ipos)
            _refine(inertial, "mass", [sb.mass])
            if np.all(np.isfinite(sb.fullinertia)):  # the URDF's tensor: MuJoCo diagonalises it on loading
                for attr in ("quat", "diaginertia"):
                    inertial.attrib.pop(attr, None)
                inertial.set("fullinertia", _numbers(sb.fullinertia))
            else:
                _refine(inertial, "diaginertia", sb.inertia)
                _refine(inertial, "quat", sb.iquat)
    for tag, find in (("joint", spec.joint), ("geom", spec.geom), ("site", spec.site)):
        for el in root.iter(tag):
            se = find(el.get("name") or "")
            if se is not None:
                _refine(el, "pos", se.pos)
                if tag == "joint":
                    _refine(el, "axis", se.axis)
    arm = dict(zip(result.robot.coordinates, np.asarray(result.robot.model.armature, float)))
    for joint in root.iter("joint"):
        if joint.get("name") in arm and joint.get("armature") is not None:
            joint.set("armature", repr(float(arm[joint.get("name")])))
    for motor in root.iter("general"):
        b = bounds.get(motor.get("name"))
        if b is not None:
            motor.set("ctrlrange", _numbers([-b, b]))
            motor.set("forcerange", _numbers([-b, b]))


def mjcf_text(result, settings=None) -> str:
    """The MJCF document (see the module docstring)."""
    from ..verify.settings import ReplaySettings  # why here: see mjcf_spec
    settings = ReplaySettings() if settings is None else settings
    spec, model = mjcf_spec(result, settings)
    robot, problem, traj = result.robot, result.problem, result.trajectory
    root = ET.fromstring(spec.to_xml())
    _full_precision(root, spec, result, torque_bounds(robot, problem))
    qadr = [int(model.jnt_qposadr[model.joint(n).id]) for n in robot.coordinates]
    dadr = [int(model.jnt_dofadr[model.joint(n).id]) for n in robot.coordinates]
    kn = traj.knots()
    custom = ET.SubElement(root, "custom")
    for name, data in (("gaitopt_period", [traj.period]), ("gaitopt_stride", [traj.stride]),
                       ("gaitopt_key_time", kn["time"])):
        ET.SubElement(custom, "numeric", name=name, size=str(len(data)), data=_numbers(data))
    ET.SubElement(custom, "text", name="gaitopt_key_phase", data=" ".join(str(p) for p in kn["phase"]))
    info = {"format": MJCF_FORMAT, "robot": robot.name, "transcription": problem.transcription,
            "success": bool(result.success), "period": traj.period, "stride": traj.stride,
            "keys": "one per knot row of trajectory.csv (knot{i}: qpos, qvel, ctrl = planned torque)",
            "foot_radius": settings.foot_radius, **model_record(result),
            "cycle_transform": cycle_transform(traj)}  # appended 2026-11-24: chains turning cycles
    ET.SubElement(custom, "text", name="gaitopt", data=json.dumps(info))
    keys = ET.SubElement(root, "keyframe")
    for i, t in enumerate(kn["time"]):
        qpos, qvel = np.zeros(model.nq), np.zeros(model.nv)
        qpos[qadr], qvel[dadr] = kn["q"][i], kn["v"][i]
        ET.SubElement(keys, "key", name=f"knot{i}", time=repr(float(t)), qpos=_numbers(qpos), qvel=_numbers(qvel),
                      ctrl=_numbers(kn["tau"][i]))
    ET.indent(root, "  ")
    return f"<!-- {MJCF_FORMAT} -->\n" + ET.tostring(root, encoding="unicode") + "\n"


def write_mjcf(result, path: str | Path, rate_hz: float | None = None, cycles: int = 1) -> Path:
    """Write the MJCF file (see the module docstring). rate_hz and cycles do not apply: the
    keyframes are the knots of one cycle and the next cycle's first knot."""
    return atomic_write_text(path, mjcf_text(result))
