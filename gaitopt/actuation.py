"""Actuator algebra shared by fixed gears and gear-ratio co-design.

Every function takes the gear ratio G as a number or a CasADi expression, so that the same
formula serves a fixed actuator and a gear ratio that is a decision variable of the NLP
(problem `design.gear_ratio`). Joint side: τ [N·m], q̇ [rad/s]; motor: R [Ω], K [N·m/A],
V [V], I_max [A]; η gear efficiency.

Co-design: the gear variables, and the rows that replace the bounds of designed joints, are
the constraint components `GearRatioDesign` and `CurrentLimit` (gaitopt.constraints).
"""
from __future__ import annotations

import numpy as np


def motor_voltage(actuator, tau, qd, gear):
    """Motor terminal voltage R·i + K·ω_m with i = τ/(η G K) and ω_m = G q̇ [V]."""
    a = actuator
    return a.resistance * tau / (a.gear_efficiency * gear * a.torque_constant) + a.torque_constant * gear * qd


def joule_coefficient(actuator, gear):
    """c with Joule loss R·(τ/(G K))² = c·τ² [W/(N·m)²] (η left out, as in the source paper)."""
    return actuator.resistance / (gear * actuator.torque_constant) ** 2


def designed_joints(problem, robot) -> dict:
    """Joint → design group name for every joint whose gear ratio is a decision variable."""
    out = {}
    for group in getattr(problem, "design", ()) or ():
        for j in group.joints:
            out[j] = group.name
    return out


def imposed_effort_limits(problem, robot) -> np.ndarray:
    """(nu,) the URDF effort limit [N·m] of each actuated joint where the plan imposes it (the
    `TorqueLimits` bound: `constraints.effort_limits` on, the limit given (> 0), the joint's gear
    not co-designed — the URDF's number describes the shipped gear), inf elsewhere. What plots,
    exports and the MuJoCo replay bound τ by, beside the current limit."""
    effort = np.asarray(robot.effort_limit, float)[robot.actuated_index]
    if not problem.constraints.effort_limits:
        return np.full(len(robot.actuated), np.inf)
    designed = designed_joints(problem, robot)
    return np.array([e if e > 0 and j not in designed else np.inf for j, e in zip(robot.actuated, effort)])
