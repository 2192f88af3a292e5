"""The figures a study's results.csv gives for each solved case (docs/formats.md, "Study
output"): energies per metre and per joint the peaks and RMS values a motor is sized by.
`gaitopt.study` writes them; this module only computes them from a Result."""
from __future__ import annotations

import numpy as np

from . import quantities as Q
from .actuation import motor_voltage
from .energy import absolute_work, cycle_energies, cycle_rms, joint_energies, specific_resistance


def case_metrics(result) -> dict:
    """Figures of one solved gait over its full cycle, from the transcription's interpolant
    sampled at 8 points per interval of every phase (`Trajectory.sample_cycle`) (trapezoid phase by phase,
    `gaitopt.energy`): what a motor replaying the gait does between the knots too, as in an
    export's summary. (Until 2026-11-24 the knots alone, the quadrature of the costs then: an
    absolute-work cost hid torque at knots where q̇ vanished and the table read 1.5–5× too
    little work; docs/modelling.md.)

    energy_per_m [J/m]: electrical energy drawn per metre without regeneration,
    ∫ Σ max(R i² + K G q̇ i, 0) dt / s with the motor current i = τ/(η G K) of the current limit;
    joule_loss_per_m [J/m]: the joule_loss cost's index ∫ Σ R (τ/(G K))² dt / s (η left out);
    abs_work_per_m [J/m]: ∫ Σ |τ q̇| dt / s; specific_resistance [-]: abs_work_per_m / (m g).
    Per joint: peak_torque [N·m], peak_speed [rad/s], peak_current [A] = max |τ|/(η G K) (what the
    current limit bounds), peak_power [W] = max |τ q̇|, peak_voltage [V] = max |R i + K G q̇|;
    rms_torque [N·m] and rms_current [A] = √(∫ x² dt / T) over the cycle (what a motor's
    continuous, thermal rating bounds; appended 2026-11-25); joule_loss_per_m and energy_per_m
    per joint [J/m], each joint's share of the totals above (appended 2026-11-25, thirteenth
    session: which actuator a design change should go to); peak_electrical_power [W], the
    largest Σ max(V·i, 0) over the motors at one instant (what the supply delivers at most, no
    regeneration counted, as energy_per_m), and per joint its motor's largest V·i (appended
    with them: the mechanical peak_power columns stand for neither; a sizing user's A1).
    """
    robot, traj = result.robot, result.trajectory
    t, smp, spans = traj.sample_cycle()
    tau, v = smp["tau"], smp["v"]
    e = cycle_energies(robot, t, tau, v, spans)
    qd = Q.joint_speed(robot, v)
    volts = np.column_stack([motor_voltage(robot.actuators[j], tau[:, i], qd[:, i], robot.actuators[j].gear_ratio)
                             for i, j in enumerate(robot.actuated)])
    peaks = {"torque": tau, "speed": qd, "current": Q.motor_current(robot, tau),
             "power": Q.mechanical_power(robot, tau, v), "voltage": volts}
    s = traj.distance  # path length per cycle: the stride when the gait goes straight
    row = {"energy_per_m": e["electrical_without_regeneration"] / s, "joule_loss_per_m": e["joule_loss"] / s,
           "abs_work_per_m": absolute_work(e) / s,
           "specific_resistance": specific_resistance(e, robot.total_mass, s)}
    for name, val in peaks.items():
        for j, x in zip(traj.actuated, np.abs(val).max(axis=0)):
            row[f"peak_{name}.{j}"] = float(x)
    for name, val in (("torque", tau), ("current", peaks["current"])):
        for j, x in zip(traj.actuated, cycle_rms(val, t, spans, traj.period)):
            row[f"rms_{name}.{j}"] = float(x)
    per_joint = joint_energies(robot, t, tau, v, spans)
    for column, key in JOINT_ENERGIES:
        for j, x in zip(traj.actuated, per_joint[key]):
            row[f"{column}.{j}"] = float(x / s)
    drawn = np.maximum(Q.electrical_power(robot, tau, v), 0.0)  # each motor's V·i where positive
    row["peak_electrical_power"] = float(drawn.sum(axis=1).max())
    for j, x in zip(traj.actuated, drawn.max(axis=0)):
        row[f"peak_electrical_power.{j}"] = float(x)
    return row


# per-joint columns of results.csv: (column prefix, joint_energies key), appended 2026-11-25
JOINT_ENERGIES = (("joule_loss_per_m", "joule_loss"), ("energy_per_m", "electrical_without_regeneration"))


def metric_columns(actuated) -> tuple[list, list, list]:
    """(the energy and peak columns, in the order since the first results.csv; the RMS columns,
    appended after `message` on 2026-11-25; the per-joint energy columns, appended after the
    return pass's on 2026-11-25) for the actuated joints `actuated`."""
    cols = ["energy_per_m", "joule_loss_per_m", "abs_work_per_m", "specific_resistance"]
    for name in ("torque", "speed", "current", "power", "voltage"):
        cols += [f"peak_{name}.{j}" for j in actuated]
    return (cols, [f"rms_{name}.{j}" for name in ("torque", "current") for j in actuated],
            [f"{column}.{j}" for column, _ in JOINT_ENERGIES for j in actuated]
            + ["peak_electrical_power"] + [f"peak_electrical_power.{j}" for j in actuated])
