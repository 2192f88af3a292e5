"""The JSON summary written next to every export: the gait, per-joint peaks against the
actuator's limits, energies per cycle, cost of transport, and per foot the duty factor and the
peak friction ratio."""
from __future__ import annotations

import numpy as np

from .. import quantities as Q
from ..energy import absolute_work, cycle_energies, cycle_rms, phase_integral, phase_spans, specific_resistance
from ..terrain_io import surface_of
from .sampling import DEFAULT_RATE_HZ, sample_table
from .trajectory_csv import model_record

SUMMARY_FORMAT = "gaitopt-export-summary 1"


def _phase_grids(traj, n: int) -> list:
    """Per phase, a closed grid of about n·(its share of the period) samples. A phase's last
    sample sits just inside it (sample() gives the next phase's value at a junction time)."""
    T = traj.period
    grids = []
    for ph in traj.phases:
        t0, t1 = float(ph.t[0]), float(ph.t[-1])
        g = np.linspace(t0, t1, max(2, int(np.ceil(n * (t1 - t0) / T)) + 1))
        g[-1] = t1 - 1e-9 * max(T, 1.0)
        grids.append(g)
    return grids


def _joint_figures(robot, tb, t, spans, T) -> dict:
    tau, w = tb["tau"], Q.joint_speed(robot, tb["v"])
    q_act = tb["q"][:, robot.actuated_index]
    rms = cycle_rms(tb["current"], t, spans, T)
    joints = {}
    for i, j in enumerate(robot.actuated):
        a = robot.actuators[j]
        joints[j] = {"q_min": float(q_act[:, i].min()), "q_max": float(q_act[:, i].max()),
                     "tau_peak": float(np.abs(tau[:, i]).max()), "tau_limit": a.torque_limit,
                     "speed_peak": float(np.abs(w[:, i]).max()), "no_load_speed": a.no_load_speed,
                     "current_peak": float(np.abs(tb["current"][:, i]).max()),
                     "current_rms": float(rms[i]),
                     "current_limit": a.current_limit, "power_peak": float(tb["power"][:, i].max())}
    return joints


def _foot_figures(robot, traj, problem, tb, t, spans, T) -> dict:
    flags = Q.point_flags(robot, traj, tb["phase"])
    # about the ground's normal under each point (the local surface's on steps and height maps)
    # the force each friction cone bounds: a point's (3-D) or its foot's total (sagittal)
    ratio = Q.cone_friction_ratio(robot, surface_of(problem), Q.contact_points(robot, tb["q"]), tb["f"], flags)
    feet = {}
    for k, ft in enumerate(tb["feet"]):
        pts = [robot.contact_index(c) for c in robot.feet[ft].contacts]
        r = ratio[:, pts]
        feet[ft] = {"duty_factor": phase_integral(tb["contact"][:, k].astype(float), t, spans) / T,
                    "peak_friction_ratio": float(np.nanmax(r)) if np.any(np.isfinite(r)) else 0.0}
    return feet


def export_summary(result, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1, files: dict | None = None) -> dict:
    """A JSON-ready summary of an export: the gait, per-joint peaks against the actuator's
    limits, energies per cycle (from the interpolant sampled at rate_hz, at least 400 points
    per cycle, trapezoidal integration phase by phase), cost of transport, duty factor and peak friction ratio
    per foot."""
    traj, robot, problem = result.trajectory, result.robot, result.problem
    T, s = traj.period, traj.distance  # path length per cycle: the stride when the gait goes straight
    grids = _phase_grids(traj, max(400, int(np.ceil(T * rate_hz))))
    spans = phase_spans(len(g) for g in grids)
    t = np.concatenate(grids)
    tb = sample_table(result, times=t)
    energy = cycle_energies(robot, t, tb["tau"], tb["v"], spans)
    abs_energy = absolute_work(energy)
    mass = robot.total_mass
    return {
        "format": SUMMARY_FORMAT, "robot": robot.name, "success": bool(result.success), "status": result.status,
        "transcription": problem.transcription, "cost": result.cost, "cost_terms": result.cost_terms,
        "period_s": T, "stride_m": traj.stride, "speed_m_s": s / T if T > 0 else 0.0, "mass_kg": mass,
        "rate_hz": float(rate_hz), "cycles": int(cycles), "duration_s": cycles * T, "friction_mu": problem.constraints.friction,
        "energy_per_cycle_J": energy,
        "joule_loss_per_distance_J_m": energy["joule_loss"] / s if s > 0 else float("nan"),
        "specific_resistance": specific_resistance(energy, mass, s),
        "mean_abs_power_W": abs_energy / T if T > 0 else float("nan"),
        "joints": _joint_figures(robot, tb, t, spans, T),
        "feet": _foot_figures(robot, traj, problem, tb, t, spans, T),
        "files": {k: str(v) for k, v in (files or {}).items()},
        "units": "SI: rad, rad/s, N*m, A, W, J; energies per cycle, from the sampled interpolant",
        # added 2026-11-24: the model the optimiser used (trajectory.csv format 2's header keys)
        "model": model_record(result),
        # appended 2026-11-24 (seventh session): the electrical_energy cost's figure and the
        # path length the per-distance figures divide by (the stride is 0 for a sideways gait)
        "electrical_energy_per_distance_J_m": energy["electrical_without_regeneration"] / s if s > 0 else float("nan"),
        "distance_m": s,
    }
