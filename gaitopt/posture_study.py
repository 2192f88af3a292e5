"""Walking postures on optimised gaits: a gait problem held in a posture, and the averaged
absolute power of its solution read from the exported trajectory.

The TITAN-VIII study (Endo, Arikawa, Hirose, ICRA 2011, Sec. IV-B) compares postures A–D on one
prescribed crawl (`gaitopt.prescribed.crawl`). Here the same comparison is made on optimised
crawls: the problem's optimiser chooses the motion, and the posture is imposed as the paper
gives it — the body at a fixed height above the ground and each foot touching down at the
front end of its stroke about the posture's stroke centre (relative to the body).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .energy import absolute_work, cycle_energies, phase_integral
from . import quantities as Q
from .prescribed import stroke_centres
from .settings import Bounded

# Fig. 7's postures are drawn, not tabulated: (dx, dy) [m] of each foot's stroke centre from its
# hip, chosen in notebooks/titan8_postures.ipynb (A: foot under the knee, shank vertical, GDA).
TITAN8_POSTURES = {"A": (0.0, 0.25), "B": (0.0, 0.18), "C": (0.0, 0.32), "D": (0.06, 0.25)}
TITAN8_BASE_HEIGHT = 0.243  # m, Sec. IV-B: the feet at Z = −0.243 m in every posture
TITAN8_STROKE = 0.18        # m, stance stroke of each foot relative to the body


def posture_footholds(robot, foot_offset, stroke: float) -> dict:
    """Foot → touchdown point (x, y) [m] relative to the base: the stroke centre
    (`gaitopt.prescribed.stroke_centres`) moved forwards by half the stroke."""
    centres = stroke_centres(robot, foot_offset, 0.0)
    return {foot: (float(c[0] + stroke / 2), float(c[1])) for foot, c in centres.items()}


def held_in_posture(problem, robot, foot_offset, base_height: float, stroke: float):
    """The problem with its body held in a posture: base height fixed at base_height [m] and
    every foot landing at its `posture_footholds` point. Returns a new Problem."""
    cons = dataclasses.replace(problem.constraints, base_height=Bounded.fixed_at(base_height),
                               footholds=posture_footholds(robot, foot_offset, stroke))
    return problem.replace(constraints=cons)


def _cycle_power(traj):
    """(t, τ, v, spans) of the interpolant over the full cycle (`Trajectory.sample_cycle`)."""
    t, smp, spans = traj.sample_cycle()
    return t, smp["tau"], smp["v"], spans


def average_abs_power(robot, traj) -> float:
    """P̄ = (1/T) ∫ Σ_i |τ_i q̇_i| dt [W] of a trajectory over its full cycle: its interpolant,
    sampled at 8 points per interval (what the abs_power cost integrates
    exactly where τ q̇ keeps its sign inside an interval; docs/modelling.md)."""
    t, tau, v, spans = _cycle_power(traj)
    return absolute_work(cycle_energies(robot, t, tau, v, spans)) / traj.period


def joint_abs_power(robot, traj) -> dict:
    """Actuated joint → (1/T) ∫ |τ_i q̇_i| dt [W] over the full cycle (the interpolant, as above)."""
    t, tau, v, spans = _cycle_power(traj)
    power = np.abs(Q.mechanical_power(robot, tau, v))
    return {j: phase_integral(power[:, i], t, spans) / traj.period for i, j in enumerate(robot.actuated)}
