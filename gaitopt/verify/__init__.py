"""Independent verification: replay an optimal gait in MuJoCo, a simulator nobody here wrote.

The robot is rebuilt from its URDF by MuJoCo's own compiler (`mujoco.MjSpec`): visual and
collision meshes are dropped (only the inertias matter), locked joints become fixed joints at
their locked angle, joint limits, damping and friction are switched off (gaitopt models none
of them), each joint's armature is gaitopt's reflected rotor inertia G²·J_rotor, and the base gets gaitopt's explicit coordinates as MuJoCo joints
(sagittal: slide x, slide z, hinge y — the planar constraint; 3-D: three slides and hinges
z, y, x, i.e. Z-Y-X Euler angles, applied in sequence like Pinocchio's joint chain). The floor
is a plane (tilted about y on slopes), sharp-edged boxes for steps, or a height field sampling a
height map (docs/terrain.md); each contact point gets a small sphere whose surface
touches the ground at the point when its foot stands as planned. Building checks the model
against Pinocchio (mass matrix, contact point positions) before anything is simulated.

The replay starts from the plan's first state and applies, on every actuated joint,
τ = τ_ff(t) + K_p (q_ref(t) − q) + K_d (v_ref(t) − v), with τ_ff, q_ref, v_ref the planned
trajectory sampled with the transcription's interpolant, cut to the motor's torque limit and
torque–speed line. It is judged on falls, slip, distance and the executed Joule loss against
the plan's (energy, feedback share, peak torques and contact forces reported); `perturb` replays
it under random model errors. A model that cannot be replayed raises CannotReplay. The gains put each joint at a natural
frequency `pd_frequency_hz` on its diagonal entry of the joint-space inertia matrix at the
first state (the links outboard of it, the floating base free); while three or more feet stand,
the standing legs' joints drop to `support_frequency_hz` (docs/verification.md says why).

    from gaitopt import verify
    rep = verify.replay(result, cycles=2)      # a Replay: report dict + time series
    rep.verified, rep.report["distance"]
    verify.verify_dir("out/heel_toe")          # writes verify.json and verify.png there

mujoco is the optional `sim` extra (pip install "gaitopt[sim]"); it is imported on first use.
"""
from __future__ import annotations

from pathlib import Path

from ..export import load_result
from . import perturb
from .judge import REPORT_FORMAT, base_height, energy_figures, feedback_share, judge
from .replay import Replay, replay
from .report import PLOT_FILE, REPORT_FILE, plot_replay, summary_text, write_replay
from .settings import MAX_CYCLES, MAX_STEPS, CannotReplay, ReplaySettings, check_cycles, check_steps, load_mujoco
from .sim_model import (SimModel, actuator_torque_limits, build_model, check_against_pinocchio, joint_inertias,
                        mesh_free_urdf, torque_speed_range)

__all__ = ["PLOT_FILE", "REPORT_FILE", "REPORT_FORMAT", "CannotReplay", "Replay", "ReplaySettings", "SimModel",
           "actuator_torque_limits", "base_height", "build_model", "check_against_pinocchio", "energy_figures",
           "feedback_share", "perturb", "torque_speed_range", "joint_inertias", "judge", "load_mujoco", "mesh_free_urdf",
           "plot_replay", "replay", "summary_text", "verify_dir", "write_replay"]


def verify_dir(result_dir, cycles: int = 2, output=None, settings: ReplaySettings = ReplaySettings()) -> tuple:
    """Replay the result saved in result_dir (by `gaitopt solve -o`) and write verify.json and
    verify.png to output (default result_dir). Returns (Replay, paths). InputError for cycles
    outside 1 … MAX_CYCLES or a corrupted result directory."""
    check_cycles(cycles)
    result = load_result(result_dir)
    check_steps(result.trajectory.period, cycles, settings.timestep)
    rep = replay(result, cycles=cycles, settings=settings)
    paths = write_replay(rep, Path(output) if output else Path(result_dir), result_dir)
    return rep, paths
