"""Is a solved gait a robot gait? Feet in their ranges of motion and on their own side, legs
apart, soles heading where the body heads, body attitude and height in their bands, knees off
their straight singularity —
measured on the trajectory (numeric forward kinematics of sampled q), not from the NLP's rows.

`feasibility_report(trajectory, robot, problem)` applies the same settings the kinematic
feasibility constraints use (gaitopt.constraints.kinematics) and reports the worst margin of
each; a negative margin is a violation.
"""
from __future__ import annotations

import numpy as np

from .constraints.kinematics import (attitude_bands, base_height_band, foot_boxes, foot_yaw_band, knee_margin,
                                     robot_kinematics, separation_minima, setting, sole_headings,
                                     standing_sole_headings, upper_body_band, upper_body_joints)
from .quantities import contact_points
from .terrain_io import base_height_above_ground
from .legs import in_base_frame


def _contact_positions(robot, q_samples) -> np.ndarray:
    """(n, 3, nc) world positions of the contact points (robot.contacts order) at each posture:
    `gaitopt.quantities.contact_points`, one (3, nc) column block per posture."""
    return contact_points(robot, q_samples).transpose(0, 2, 1)


def _feet_in_base(robot, q_samples, pos) -> dict:
    """foot → (n, 3) reference point (mean of its contact points) in the base frame; pos as
    `_contact_positions`."""
    index = {c.name: i for i, c in enumerate(robot.contacts)}
    return {foot: np.array([in_base_frame(robot, q, p[:, [index[c] for c in f.contacts]].mean(axis=1))
                            for q, p in zip(q_samples, pos)])
            for foot, f in robot.feet.items()}


def sole_yaws(robot, q_samples, pos=None) -> dict:
    """foot → (n,) [rad] each sole's yaw relative to the base's minus its standing value (wrapped
    to (−π, π]), at each posture (FootYaw's quantity); pos as `_contact_positions`."""
    q_samples = np.asarray(q_samples, float)
    pos = _contact_positions(robot, q_samples) if pos is None else pos
    standing = standing_sole_headings(robot)
    out = {foot: [] for foot in standing}
    for q, p in zip(q_samples, pos):
        for foot, (a, b) in sole_headings(robot, q, p).items():
            out[foot].append(np.angle(np.exp(1j * (np.arctan2(b, a) - standing[foot][0]))))
    return {f: np.array(v) for f, v in out.items()}


def feasibility_report(trajectory, robot, problem, samples: int | None = None) -> dict:
    """Worst margin [m or rad] of each kinematic feasibility rule (negative: violated), at the
    trajectory's knots (where the constraints are imposed), or with `samples` at that many
    times of the cycle on the interpolant (between knots a bound may be crossed by an amount
    that shrinks with the knot spacing). Keys: foot_range (foot → margin), leg_separation,
    foot_yaw (foot → margin), base_height, base_attitude (roll/pitch/yaw → margin), knee_margin,
    upper_body; a rule that does not apply to the robot or is switched off is absent."""
    if samples is None:
        q = np.concatenate([p.q for p in trajectory.phases])
        t = np.concatenate([p.t for p in trajectory.phases])
    else:
        t = np.linspace(0.0, trajectory.period, samples, endpoint=False)
        q = trajectory.sample(t)["q"]
    return feasibility_margins(q, robot, problem, t=t, period=trajectory.period)


def feasibility_margins(q, robot, problem, t=None, period: float | None = None) -> dict:
    """`feasibility_report` of postures q (n, nq), e.g. the q columns of trajectory.csv, at
    times t (n,) [s] of a cycle of `period` [s]; the times are needed on a turning gait only,
    whose yaw band is about the path's heading yaw_rate·(t − period/2) (BaseAttitude). Judged
    against `feasibility_bands`: the rules that apply, and their numbers, are those."""
    q = np.asarray(q, float)
    bands = feasibility_bands(problem, robot)
    report = {}
    if not bands:
        return report
    pos = _contact_positions(robot, q)
    feet = _feet_in_base(robot, q, pos)

    if "foot_range" in bands:
        axes = [0, 2] if robot.base == "sagittal" else [0, 1, 2]
        boxes = {foot: (np.array(box["min"]), np.array(box["max"])) for foot, box in bands["foot_range"].items()}
        report["foot_range"] = {
            foot: float(min((feet[foot][:, axes] - lo[axes]).min(), (hi[axes] - feet[foot][:, axes]).min()))
            for foot, (lo, hi) in boxes.items()}

    if "leg_separation" in bands:
        report["leg_separation"] = min(
            float((feet[a][:, axis] - feet[b][:, axis]).min() - row["min"])
            for row in bands["leg_separation"] for (a, b), axis in [(row["feet"], "xy".index(row["axis"]))])

    if "foot_yaw" in bands:
        band = bands["foot_yaw"]["band"]
        report["foot_yaw"] = {foot: float(band - np.abs(y).max()) for foot, y in sole_yaws(robot, q, pos).items()}

    if "base_height" in bands:
        lo, hi = bands["base_height"]["min"], bands["base_height"]["max"]
        height = base_height_above_ground(problem, robot, q)
        report["base_height"] = float(min((height - lo).min(), (hi - height).min()))

    attitude = bands.get("base_attitude", {})
    angles = {k: q[:, robot.index(f"base_{k}")] for k in attitude}
    if problem.yaw_rate and "yaw" in angles:
        if t is None or period is None:
            raise ValueError("a turning gait's yaw band needs the times t and the period")
        angles["yaw"] = angles["yaw"] - problem.yaw_rate * (np.asarray(t, float) - period / 2)
    if attitude:
        report["base_attitude"] = {k: float(min((angles[k] - lo).min(), (hi - angles[k]).min()))
                                   for k, (lo, hi) in attitude.items()}

    if "knee_margin" in bands:
        knees = robot_kinematics(robot)["knees"]
        report["knee_margin"] = float(min((k["bend"] * (q[:, robot.index(j)] - k.get("straight", 0.0))).min()
                                          - bands["knee_margin"] for j, k in knees.items()))
    if "upper_body" in bands:
        index = upper_body_joints(robot)
        report["upper_body"] = float(bands["upper_body"]["band"] - np.abs(q[:, index] - robot.standing_q[index]).max())
    return report


def feasibility_bands(problem, robot) -> dict:
    """The numbers the kinematic feasibility rules impose on this problem and robot, resolved
    from the problem's settings, robot.yaml's `kinematics` and gaitopt's defaults (a problem's
    `null` setting is the robot's default, computed from its standing posture and legs); the
    keys `feasibility_margins` can report, a rule that does not apply or is off absent:
    foot_range {foot: {min, max}} (3,) [m] box of the foot's reference point in the base frame
    (x and z judged on a sagittal robot); leg_separation [{feet: [a, b], axis: x | y, min}] [m]:
    a's coordinate minus b's; foot_yaw {band} [rad] about each sole's standing heading;
    base_height {min, max} [m] above the ground below the base; base_attitude {roll | pitch |
    yaw: [lo, hi]} [rad] (a turning gait's yaw about the path's heading); knee_margin [rad] from
    the straight knee; upper_body {band} [rad or m] about standing."""
    bands = {}
    if "base_z" not in robot.base_coordinates:
        return bands
    if setting(problem, robot, "foot_range") is not False:
        bands["foot_range"] = {foot: {"min": [float(v) for v in lo], "max": [float(v) for v in hi]}
                               for foot, (lo, hi) in foot_boxes(problem, robot).items()}
    rows = separation_minima(problem, robot) if robot.base == "3d" else []
    if rows and setting(problem, robot, "leg_separation") is not False:
        bands["leg_separation"] = [{"feet": [a, b], "axis": "xy"[axis], "min": float(minimum)}
                                   for a, b, axis, minimum in rows]
    if robot.base == "3d" and standing_sole_headings(robot) and setting(problem, robot, "foot_yaw") is not False:
        bands["foot_yaw"] = {"band": float(foot_yaw_band(problem, robot))}
    height = base_height_band(problem, robot)
    if height is not None:
        bands["base_height"] = {"min": float(height[0]), "max": float(height[1])}
    attitude = {c.removeprefix("base_"): [float(lo), float(hi)] for c, (lo, hi) in attitude_bands(problem, robot).items()}
    if attitude:
        bands["base_attitude"] = attitude
    if robot_kinematics(robot).get("knees") and setting(problem, robot, "knee_margin") is not False:
        bands["knee_margin"] = float(knee_margin(problem, robot))
    if upper_body_joints(robot) and setting(problem, robot, "upper_body") is not False:
        bands["upper_body"] = {"band": float(upper_body_band(problem, robot))}
    return bands


def worst_margin(report: dict) -> float:
    """The smallest margin in a feasibility report (negative: some rule is violated)."""
    values = []
    for v in report.values():
        values += list(v.values()) if isinstance(v, dict) else [v]
    return min(values, default=np.inf)


BINDING_TOL = 1e-4  # [m or rad] a margin this small at a knot: the optimum presses on the band


def binding_rules(report: dict, tol: float = BINDING_TOL) -> list:
    """Names of the rules of a feasibility report whose margin is within tol of zero or below
    (the bands the optimum presses on, i.e. that decide the gait): "base_attitude.yaw",
    "foot_range.FL", "base_height", "knee_margin", ... in the report's order."""
    out = []
    for rule, value in report.items():
        items = value.items() if isinstance(value, dict) else [(None, value)]
        out += [rule if key is None else f"{rule}.{key}" for key, margin in items if margin < tol]
    return out


def result_binding_rules(result) -> list:
    """`binding_rules` of a result's gait at its knots (where the rows hold)."""
    return binding_rules(feasibility_report(result.trajectory, result.robot, result.problem))

