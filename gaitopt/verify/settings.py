"""How a replay is simulated and judged, and MuJoCo itself (an optional dependency)."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError

MAX_CYCLES = 50  # gait cycles of one replay (`gaitopt verify --cycles`)
MAX_STEPS = 1_000_000  # MuJoCo steps of one replay (500 s simulated at the default 0.5 ms step)


def check_cycles(cycles, field: str = "cycles") -> int:
    """cycles as a whole number from 1 to MAX_CYCLES, else InputError naming the limit."""
    if isinstance(cycles, bool) or not isinstance(cycles, int) or not 1 <= cycles <= MAX_CYCLES:
        raise InputError(f"must be a whole number from 1 to {MAX_CYCLES}, got {cycles!r}", field=field,
                         allowed=f"1 … {MAX_CYCLES}")
    return cycles


def check_steps(period: float, cycles: int, timestep: float, field: str = "cycles") -> int:
    """The MuJoCo steps of a replay, else InputError naming the limit MAX_STEPS."""
    n = cycles * period / timestep
    if not n <= MAX_STEPS:  # also NaN
        raise InputError(f"{n:.3g} MuJoCo steps ({cycles} cycles of {period:.4g} s at {timestep:g} s) exceed the "
                         f"limit of {MAX_STEPS}", field=field, allowed=f"cycles × period / timestep ≤ {MAX_STEPS}")
    return int(n)


class CannotReplay(RuntimeError):
    """The replay could not be run (a model MuJoCo refuses or that disagrees with Pinocchio's, a
    robot with nothing to walk on, a simulation that diverged at the start): not a verdict on
    the gait. The message is one line saying why (`gaitopt verify` exit 4)."""


def load_mujoco():
    """The mujoco module, or an InputError saying how to install it."""
    try:
        import mujoco  # why: optional (the `sim` extra); only replays need it
    except ImportError:
        raise InputError("MuJoCo is not installed: pip install \"gaitopt[sim]\" (or pip install mujoco)",
                         field="verify") from None
    return mujoco


@dataclass(frozen=True)
class ReplaySettings:
    """How the replay is simulated and judged (SI units).

    timestep: MuJoCo step [s]; solref: contact (time constant [s], damping ratio); solimp:
    MuJoCo's impedance (d0, d_width, width [m], midpoint, power); foot_radius: contact sphere
    radius [m]; pd_frequency_hz, pd_damping: joint PD natural frequency and damping ratio on
    the joint's diagonal entry of the joint-space inertia matrix (the links outboard of it);
    stance_frequency_hz: while a foot below a joint stands, its gains are raised to this natural
    frequency on the inertia of the rest of the robot about the joint, shared by the standing
    feet (0: off); support_frequency_hz: while three or more feet stand, the standing legs' joints
    get this natural frequency on the inertia of the rest of the robot about the joint, shared
    by the standing feet, with damping ratio pd_damping (0: off);
    cone: pyramidal | elliptic friction cone; noslip_iterations: MuJoCo's no-slip solver passes
    (0: off; it removes the creep of MuJoCo's soft friction).
    torque_limits: motors saturate at ± the actuator's torque limit (the URDF effort limit and
    the current limit's η·G·K·I_max, the smaller; MuJoCo's forcerange); torque_speed: and, at
    every step, inside the motor's torque–speed line at the joint's speed then,
    η·G·K·(±V − K·G·q̇)/R (the forcerange updated before each step).
    Criteria: distance_rtol: |simulated − planned| base advance / planned; slip_tol: tangential
    displacement [m] of a contact point within one planned stance while it touches the ground;
    fall_height_fraction: the base
    has fallen when its height above the ground drops below this × the plan's lowest;
    fall_tilt: or when |pitch| or |roll| exceeds the plan's largest by this [rad];
    energy_rtol: |executed − planned| / planned per cycle, for each energy figure the plan's cost
    priced (gaitopt.verify.judge.judged_figures; None: not judged).
    """

    timestep: float = 5e-4
    solref: tuple = (0.004, 1.0)
    solimp: tuple = (0.95, 0.99, 0.001, 0.5, 2.0)
    foot_radius: float = 0.005
    pd_frequency_hz: float = 30.0
    stance_frequency_hz: float = 0.0
    pd_damping: float = 1.0
    cone: str = "elliptic"
    noslip_iterations: int = 10
    distance_rtol: float = 0.10
    slip_tol: float = 0.02
    fall_height_fraction: float = 0.5
    fall_tilt: float = 0.5
    torque_limits: bool = True
    torque_speed: bool = True
    energy_rtol: float | None = 0.10
    support_frequency_hz: float = 2.0
