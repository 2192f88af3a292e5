"""Is a solved gait a robot gait? Feet in their ranges of motion and on their own side, legs
apart, body attitude and height in their bands, knees off their straight singularity —
measured on the trajectory (numeric forward kinematics of sampled q), not from the NLP's rows.

`feasibility_report(trajectory, robot, problem)` applies the same settings the kinematic
feasibility constraints use (gaitopt.constraints.kinematics) and reports the worst margin of
each; a negative margin is a violation.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pinocchio as pin

from .constraints.kinematics import (BASE_ATTITUDE_BAND, UPPER_BODY_BAND, attitude_pitch_centre, upper_body_joints, FOOT_RANGE_FRACTION, KNEE_MARGIN, LEG_SEPARATION_FRACTION,
                                     base_height_band, robot_kinematics)
from .cycle import height_above_terrain
from .legs import in_base_frame, leg_geometry


def _feet_in_base(robot, q_samples) -> dict:
    """foot → (n, 3) reference point (mean of its contact points) in the base frame."""
    model, data = robot.model, robot.model.createData()
    out = {f: [] for f in robot.feet}
    for q in q_samples:
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        for foot, f in robot.feet.items():
            pts = [data.oMf[robot.contact(c).frame_id].act(np.asarray(robot.contact(c).point, float))
                   for c in f.contacts]
            out[foot].append(in_base_frame(robot, q, np.mean(pts, axis=0)))
    return {f: np.array(v) for f, v in out.items()}


def _setting(problem, robot, key):
    value = getattr(problem.constraints, key)
    return robot_kinematics(robot).get(key) if value is None else value


def feasibility_report(trajectory, robot, problem, samples: int | None = None) -> dict:
    """Worst margin [m or rad] of each kinematic feasibility rule (negative: violated), at the
    trajectory's knots (where the constraints are imposed), or with `samples` at that many
    times of the cycle on the interpolant (between knots a bound may be crossed by an amount
    that shrinks with the knot spacing). Keys: foot_range (foot → margin), leg_separation,
    base_height, base_attitude (roll/pitch/yaw → margin), knee_margin; a rule that does not
    apply to the robot or is switched off is absent."""
    if samples is None:
        q = np.concatenate([p.q for p in trajectory.phases])
    else:
        q = trajectory.sample(np.linspace(0.0, trajectory.period, samples, endpoint=False))["q"]
    return feasibility_margins(q, robot, problem)


def feasibility_margins(q, robot, problem) -> dict:
    """`feasibility_report` of postures q (n, nq), e.g. the q columns of trajectory.csv."""
    q = np.asarray(q, float)
    report = {}
    if "base_z" not in robot.base_coordinates:
        return report
    geo = leg_geometry(robot)
    feet = _feet_in_base(robot, q)
    ctx = SimpleNamespace(problem=problem, robot=robot)

    foot_range = _setting(problem, robot, "foot_range")
    if foot_range is not False:
        kind = "biped" if len(robot.feet) == 2 else "multi"
        axes = [0, 2] if robot.base == "sagittal" else [0, 1, 2]
        out = {}
        for foot, pos in feet.items():
            given = foot_range or {}
            half = given.get("feet", {}).get(foot, given.get("half_size"))
            half = np.asarray(half, float) if half is not None else FOOT_RANGE_FRACTION[kind] * geo.length[foot]
            lo, hi = geo.stance[foot] - half, geo.stance[foot] + half
            side = np.sign(geo.stance[foot][1]) if abs(geo.stance[foot][1]) > 1e-9 else 0.0
            lo[1] = max(lo[1], 0.0) if side > 0 else lo[1]
            hi[1] = min(hi[1], 0.0) if side < 0 else hi[1]
            out[foot] = float(min((pos[:, axes] - lo[axes]).min(), (hi[axes] - pos[:, axes]).min()))
        report["foot_range"] = out

    separation = _setting(problem, robot, "leg_separation")
    if robot.base == "3d" and separation is not False and (geo.lateral_pairs or geo.neighbours):
        margins = []
        for (a, b), axis, key in [(p, 1, "lateral") for p in geo.lateral_pairs] + \
                                 [(p, 0, "longitudinal") for p in geo.neighbours]:
            minimum = (separation or {}).get(key, LEG_SEPARATION_FRACTION * (geo.stance[a][axis] - geo.stance[b][axis]))
            margins.append(float((feet[a][:, axis] - feet[b][:, axis]).min() - minimum))
        report["leg_separation"] = min(margins)

    band = base_height_band(ctx)
    if band is not None:
        height = height_above_terrain(q, robot.coordinates, problem.slope)
        report["base_height"] = float(min((height - band[0]).min(), (band[1] - height).min()))

    attitude = _setting(problem, robot, "base_attitude")
    widths = {**BASE_ATTITUDE_BAND, **(attitude or {})} if attitude is not False else {}
    centre = {"roll": 0.0, "pitch": attitude_pitch_centre(problem, robot), "yaw": 0.0}
    out = {}
    for axis, width in widths.items():
        name = f"base_{axis}"
        if name in robot.base_coordinates:
            out[axis] = float(width - np.abs(q[:, robot.index(name)] - centre[axis]).max())
    if out:
        report["base_attitude"] = out

    knees = robot_kinematics(robot).get("knees")
    margin = _setting(problem, robot, "knee_margin")
    if knees and margin is not False:
        margin = KNEE_MARGIN if margin is None or margin is True else float(margin)
        report["knee_margin"] = float(min((k["bend"] * (q[:, robot.index(j)] - k.get("straight", 0.0))).min() - margin
                                          for j, k in knees.items()))
    upper = _setting(problem, robot, "upper_body")
    index = upper_body_joints(robot)
    if index and upper is not False:
        band = (upper or {}).get("band", UPPER_BODY_BAND)
        report["upper_body"] = float(band - np.abs(q[:, index] - robot.standing_q[index]).max())
    return report


def worst_margin(report: dict) -> float:
    """The smallest margin in a feasibility report (negative: some rule is violated)."""
    values = []
    for v in report.values():
        values += list(v.values()) if isinstance(v, dict) else [v]
    return min(values, default=np.inf)
