"""The reference-motion export for learning pipelines (docs/export.md "Reference motion (AMP)"):
the JSON motion clip of Peng et al.'s motion_imitation (and the AMP code built on it).

    {"LoopMode": "Wrap", "FrameDuration": dt, "EnableCycleOffsetPosition": true,
     "EnableCycleOffsetRotation": true, "MotionWeight": 1.0, "Frames": [[...], ...], ...}

Each frame: root position x, y, z [m] (the base origin, the URDF root link's frame, in the
world), root orientation as a unit quaternion (x, y, z, w), then the joint angles [rad] (m for
prismatic joints) in gaitopt's coordinate order (trajectory.csv's q.<joint> columns, the URDF's
joints in Pinocchio's depth-first order, locked ones left out). Frame i is the gait at i·dt
(the transcription's interpolant); the last frame is the first of the next cycle (the base
advanced by the stride), so that FrameDuration × (frames − 1) is the span of the clip, as the
format's readers compute it. Planar (sagittal) robots: y = 0 and the quaternion is the pitch
rotation about y. The key `gaitopt` (ignored by the format's readers) names the columns.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .atomic import atomic_write_text
from .sampling import DEFAULT_RATE_HZ, sample_table, sample_times

MOTION_FORMAT = "gaitopt-motion 1"


def _axis_quaternion(axis: int, angle) -> np.ndarray:
    """(T, 4) quaternions (x, y, z, w) of rotations by angle (T,) about world axis 0, 1 or 2."""
    q = np.zeros((len(angle), 4))
    q[:, axis] = np.sin(0.5 * angle)
    q[:, 3] = np.cos(0.5 * angle)
    return q


def _quaternion_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product of (T, 4) quaternions in (x, y, z, w) order."""
    av, aw, bv, bw = a[:, :3], a[:, 3:], b[:, :3], b[:, 3:]
    return np.hstack([aw * bv + bw * av + np.cross(av, bv), aw * bw - np.sum(av * bv, axis=1, keepdims=True)])


def root_quaternion(q: np.ndarray, coordinates) -> np.ndarray:
    """(T, 4) root orientation (x, y, z, w) of q (T, nq): R = Rz(yaw) Ry(pitch) Rx(roll), gaitopt's
    base joints in order (missing angles are zero), with w ≥ 0."""
    quat = np.tile([0.0, 0.0, 0.0, 1.0], (len(q), 1))
    for name, axis in (("base_yaw", 2), ("base_pitch", 1), ("base_roll", 0)):
        if name in coordinates:
            quat = _quaternion_product(quat, _axis_quaternion(axis, q[:, list(coordinates).index(name)]))
    return np.where(quat[:, 3:] < 0, -quat, quat)


def motion_frames(result, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1) -> tuple:
    """(frames (N + 1, 7 + n_joints), frame duration [s], joint names): N = cycles ·
    round(period · rate_hz) frames per span, dt = cycles · period / N."""
    traj, robot = result.trajectory, result.robot
    sample_times(traj.period, rate_hz, cycles)  # InputError on a bad rate, cycles or size
    per_cycle = max(1, int(round(traj.period * rate_hz)))
    dt = traj.period / per_cycle
    t = np.arange(cycles * per_cycle + 1) * dt
    q = sample_table(result, times=t)["q"]
    coords = list(robot.coordinates)
    root = np.zeros((len(t), 3))
    for k, name in enumerate(("base_x", "base_y", "base_z")):
        if name in coords:
            root[:, k] = q[:, coords.index(name)]
    joints = list(robot.joints)
    frames = np.hstack([root, root_quaternion(q, coords), q[:, [coords.index(j) for j in joints]]])
    return frames, dt, joints


def write_motion_json(result, path: str | Path, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1) -> Path:
    """Write the motion clip (see the module docstring); frames about rate_hz per second, exactly
    round(period · rate_hz) per cycle."""
    frames, dt, joints = motion_frames(result, rate_hz, cycles)
    traj = result.trajectory
    clip = {
        "LoopMode": "Wrap",
        "gaitopt_format": MOTION_FORMAT,
        "FrameDuration": dt,
        "EnableCycleOffsetPosition": True,
        "EnableCycleOffsetRotation": True,
        "MotionWeight": 1.0,
        "Frames": [[float(x) for x in row] for row in frames],
        "gaitopt": {"robot": result.robot.name, "columns": ["root_x", "root_y", "root_z", "root_qx", "root_qy",
                                                            "root_qz", "root_qw"] + joints,
                    "quaternion": "x, y, z, w (Hamilton, unit, w >= 0); R = Rz(yaw) Ry(pitch) Rx(roll)",
                    "period": traj.period, "stride": traj.stride, "cycles": int(cycles),
                    "frames_per_cycle": (len(frames) - 1) // int(cycles), "base": result.robot.base,
                    "transcription": result.problem.transcription, "success": bool(result.success)},
    }
    return atomic_write_text(path, json.dumps(clip))
