"""Energy of a gait over one cycle: electrical, copper loss, the joule_loss cost's index and
mechanical work, integrated phase by phase; and the figures per distance made from them.

One implementation for the two callers, which differ only in the samples they pass: a study's
results table (`study.case_metrics`) integrates over the knots, the quadrature the optimiser's
own cost uses, and an export summary (`export.summary`) over the transcription's interpolant
sampled densely, which is what a motor driver replaying the export would see.
"""
from __future__ import annotations

import numpy as np

from . import quantities as Q
from .actuation import joule_coefficient
from .dynamics import GRAVITY

_trapezoid = np.trapezoid if hasattr(np, "trapezoid") else np.trapz  # numpy < 2 names it trapz


def phase_spans(lengths) -> list:
    """Slices of consecutive blocks of the given lengths (one block of samples per phase)."""
    spans, start = [], 0
    for n in lengths:
        spans.append(slice(start, start + n))
        start += n
    return spans


def phase_integral(x, t, spans) -> float:
    """∫ x dt, trapezoidal within each phase's span of samples and summed over the phases:
    torques and contact forces may jump at a contact event, and an interval straddling the jump
    would make the integral first order in the sample spacing."""
    return float(sum(_trapezoid(x[sl], t[sl]) for sl in spans))


def cycle_rms(x, t, spans, period: float) -> np.ndarray:
    """Root mean square over one cycle of each column of samples x (T, n) at times t (T,), each
    phase a span (`phase_spans`): √(∫ x² dt / period), shape (n,)."""
    x = np.asarray(x, float)
    return np.sqrt(np.array([phase_integral(x[:, i] ** 2, t, spans) for i in range(x.shape[1])]) / period)


def _joule_index(robot, tau) -> np.ndarray:
    """(T, nu) the joule_loss cost's integrand per joint, R (τ/(G K))² [W]."""
    return tau ** 2 * np.array([joule_coefficient(robot.actuators[j], robot.actuators[j].gear_ratio)
                                for j in robot.actuated])


def cycle_energies(robot, t, tau, v, spans) -> dict:
    """Energies [J] of samples at times t (T,) with torques tau (T, nu) and velocities v (T, nv),
    each phase a span of the samples (`phase_spans`): electrical (V·i summed over the motors,
    regeneration counted), electrical_without_regeneration (each motor's V·i where positive),
    copper_loss (R i², i = τ/(η G K)), joule_loss (the joule_loss cost's index R (τ/(G K))², gear
    efficiency left out as in the source), mechanical_positive and mechanical_negative (τ·ω)."""
    tau = np.asarray(tau, float)
    mech = Q.mechanical_power(robot, tau, v)
    elec = Q.electrical_power(robot, tau, v)
    index = _joule_index(robot, tau)

    def integral(x):
        return phase_integral(x.sum(axis=1), t, spans)
    return {"electrical": integral(elec),
            "electrical_without_regeneration": integral(np.maximum(elec, 0.0)),
            "copper_loss": integral(Q.joule_power(robot, tau)),
            "joule_loss": integral(index),
            "mechanical_positive": integral(np.maximum(mech, 0.0)),
            "mechanical_negative": integral(np.minimum(mech, 0.0))}


def joint_energies(robot, t, tau, v, spans) -> dict:
    """Per actuated joint (nu,) [J], samples as for `cycle_energies`: joule_loss (the cost's index
    R (τ/(G K))²) and electrical_without_regeneration (the motor's V·i where positive). Each sums
    over the joints to `cycle_energies`' entry of that name."""
    tau = np.asarray(tau, float)
    index = _joule_index(robot, tau)
    drawn = np.maximum(Q.electrical_power(robot, tau, v), 0.0)
    return {name: np.array([phase_integral(x[:, i], t, spans) for i in range(x.shape[1])])
            for name, x in (("joule_loss", index), ("electrical_without_regeneration", drawn))}


def absolute_work(energies: dict) -> float:
    """∫ Σ |τ·ω| dt [J]: positive work plus the magnitude of the negative."""
    return energies["mechanical_positive"] - energies["mechanical_negative"]


def specific_resistance(energies: dict, mass: float, stride: float) -> float:
    """Absolute work per weight and distance, ∫ Σ |τ·ω| dt / (m g s) [-] (nan without progress)."""
    return absolute_work(energies) / (mass * GRAVITY * stride) if stride > 0 else float("nan")
