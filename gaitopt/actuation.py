"""Actuator algebra shared by fixed gears and gear-ratio co-design.

Every function takes the gear ratio G as a number or a CasADi expression, so that the same
formula serves a fixed actuator and a gear ratio that is a decision variable of the NLP
(problem `design.gear_ratio`). Joint side: τ [N·m], q̇ [rad/s]; motor: R [Ω], K [N·m/A],
V [V], I_max [A]; η gear efficiency.

Co-design: one global variable per gear group, scaled as G = G_guess·(1 + z) so that z = 0
(what the automatic and warm-start guesses put in unknown globals) is the guess and z is O(1).
With a free G the current limit |τ| ≤ η G K I_max is a constraint row (not a bound on τ), and
the joint's URDF effort limit (which describes the shipped gear) is not applied. Reflected
rotor inertia G²·J_rotor is not modelled (neither is it for fixed gears).
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


def gear_ratios(problem, robot, builder, globals_: dict) -> list:
    """Gear ratio per actuated joint: the actuator's number, or the expression of its design
    group's variable (created here as globals_["gear_<group>"]). Checks the groups against the
    robot (and, for half cycles, against the mirror map)."""
    from .errors import InputError
    design = getattr(problem, "design", ()) or ()
    exprs = {}
    for group in design:
        for j in group.joints:
            if j not in robot.actuated:
                raise InputError(f"{j!r} is not an actuated joint of {robot.name}", file=problem.source,
                                 field=f"design.gear_ratio.{group.name}", allowed=robot.actuated)
        if problem.cycle == "half" and robot.mirror is not None:
            # the mirrored half reuses each joint's partner's torques: partners must share a gear
            for j in group.joints:
                partner = robot.coordinates[int(robot.mirror.perm[robot.index(j)])]
                if partner not in group.joints:
                    raise InputError(f"a half cycle needs mirror partners in one group: add {partner!r}",
                                     file=problem.source, field=f"design.gear_ratio.{group.name}")
        b = group.bounds
        z = builder.var(f"gear_{group.name}", (1, 1), b.min / b.guess - 1.0, b.max / b.guess - 1.0)
        globals_[f"gear_{group.name}"] = z
        exprs[group.name] = b.guess * (1.0 + z.sym)
    where = designed_joints(problem, robot)
    return [exprs[where[j]] if j in where else robot.actuators[j].gear_ratio for j in robot.actuated]


def free_torque_bounds(problem, robot, u_lim: np.ndarray) -> np.ndarray:
    """Torque bounds (nu,) with designed joints unbounded: their current limit becomes rows."""
    where = designed_joints(problem, robot)
    return np.array([np.inf if j in where else u for j, u in zip(robot.actuated, u_lim)])


def current_limit_rows(actuator, tau, gear, gear_guess: float):
    """Rows ≥ 0 of |τ| ≤ η G K I_max for a free G, scaled by the guess of G."""
    import casadi as ca
    a = actuator
    i_scaled = tau / (a.gear_efficiency * a.torque_constant * a.current_limit)
    return ca.vertcat(gear - i_scaled, gear + i_scaled) / gear_guess
