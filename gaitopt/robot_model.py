"""The Robot model: a Pinocchio model with explicit floating-base coordinates, its feet and
contact points, the left/right mirror map and the actuators (`gaitopt.robot` builds one from a
robot folder).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields, replace

import numpy as np
import pinocchio as pin

from .errors import InputError

BASE_MODES = ("sagittal", "3d", "fixed")
BASE_COORDINATES = {
    "sagittal": ("base_x", "base_z", "base_pitch"),
    "3d": ("base_x", "base_y", "base_z", "base_yaw", "base_pitch", "base_roll"),
    "fixed": (),
}


_INF = float("inf")
# (field, low, high, low excluded, inf allowed) of the Actuator numbers
_ACTUATOR_CHECKS = (
    ("resistance", 0.0, _INF, True, False),
    ("torque_constant", 0.0, _INF, True, False),
    ("voltage", 0.0, _INF, True, False),
    ("current_limit", 0.0, _INF, True, False),
    ("gear_ratio", 0.0, _INF, True, False),
    ("gear_efficiency", 0.0, 1.0, True, False),
    ("rated_power", 0.0, _INF, True, True),   # default: no rating (inf)
    ("rotor_inertia", 0.0, _INF, False, False),
)


@dataclass(frozen=True)
class Actuator:
    """A DC motor behind a gear, seen from the joint.

    Units: resistance Ω, torque_constant N·m/A, voltage V, current_limit A, rated_power W,
    rotor_inertia kg·m² (motor side), gear_ratio (motor turns per joint turn), gear_efficiency.
    """

    resistance: float
    torque_constant: float
    voltage: float
    current_limit: float
    gear_ratio: float
    gear_efficiency: float = 1.0
    rated_power: float = float("inf")
    rotor_inertia: float = 0.0
    motor: str = ""
    source: str = ""

    def __post_init__(self):
        # Every motor model divides by η·G·K, R or K·G: refuse values that would make those
        # divisions meaningless, whoever builds the actuator (robot.yaml, the motor catalogue,
        # a study's gear ratio).
        for name, lo, hi, lo_open, allow_inf in _ACTUATOR_CHECKS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
                raise InputError(f"expected a number, got {type(value).__name__}", field=f"actuators.{name}")
            x = float(value)
            ok = (x == x) and (allow_inf or abs(x) != float("inf")) and (x > lo if lo_open else x >= lo) and x <= hi
            if not ok:
                rng = f"{'>' if lo_open else '>='} {lo:g}" + (f" and <= {hi:g}" if hi != float("inf") else "")
                raise InputError(f"must be finite and {rng}, got {x}", field=f"actuators.{name}")

    @property
    def torque_limit(self) -> float:
        """Peak joint torque from the current limit, G·η·K·I_max [N·m]."""
        return self.gear_ratio * self.gear_efficiency * self.torque_constant * self.current_limit

    @property
    def stall_torque(self) -> float:
        """Joint torque at zero speed with the full supply voltage, G·η·K·V/R [N·m]."""
        return self.gear_ratio * self.gear_efficiency * self.torque_constant * self.voltage / self.resistance

    @property
    def no_load_speed(self) -> float:
        """Joint speed where the torque-speed line reaches zero torque, V/(K·G) [rad/s]."""
        return self.voltage / (self.torque_constant * self.gear_ratio)

    @property
    def reflected_inertia(self) -> float:
        """Rotor inertia seen at the joint, G²·J_rotor [kg·m²]."""
        return self.gear_ratio ** 2 * self.rotor_inertia

    def current(self, torque):
        """Motor current for a joint torque, i = τ/(η·G·K) [A]: the motor model of the current
        limit and the torque–speed line (the gear passes η of the motor torque)."""
        return torque / (self.gear_efficiency * self.gear_ratio * self.torque_constant)

    def joule_power(self, torque):
        """Copper loss R·i² [W] with i = `current(torque)`."""
        return self.resistance * self.current(torque) ** 2

    def with_gear(self, gear_ratio: float) -> "Actuator":
        return replace(self, gear_ratio=float(gear_ratio))


# the Actuator's numbers (what a joint's rows, cost and limits read; not the motor's name, source)
ACTUATOR_NUMBERS = tuple(f.name for f in fields(Actuator) if f.name not in ("motor", "source"))


@dataclass(frozen=True)
class ContactPoint:
    """A point fixed on a foot frame that can touch the ground.

    name: ``<foot>_heel``, ``<foot>_toe`` or ``<foot>`` for point feet, and for a foot with a
    sole width ``<foot>_<role>_<side>`` (``left_heel_inner`` …, see `gaitopt.robot_feet`); role:
    heel | toe | point; frame: URDF frame name; frame_id: its index in `Robot.model`; point: (3,)
    m in that frame; side: inner | outer for a sole's corners, else "".
    """

    name: str
    foot: str
    role: str
    frame: str
    frame_id: int
    point: np.ndarray = field(compare=False)
    side: str = ""


@dataclass(frozen=True)
class Foot:
    """A foot: `kind` is ``heel_toe`` (contact modes flat/heel/toe/swing) or ``point``."""

    name: str
    frame: str
    kind: str
    contacts: tuple[str, ...]

    @property
    def modes(self) -> tuple[str, ...]:
        return ("swing", "flat", "heel", "toe") if self.kind == "heel_toe" else ("swing", "stance")


@dataclass(frozen=True)
class Mirror:
    """Left/right reflection of coordinates: mirrored[i] = sign[i] · x[perm[i]] (an involution).

    Applies to q, v, a (size nv, since nq = nv here), to torques through `actuated`, and to
    contact forces through `contact_perm` (world-frame y components change sign).
    """

    perm: np.ndarray
    sign: np.ndarray
    foot_pairs: dict
    contact_perm: np.ndarray

    def coordinates(self, x):
        x = np.asarray(x)
        return self.sign * x[..., self.perm]

    def forces(self, f):
        """Mirror stacked world-frame contact forces (..., 3·n_contacts)."""
        f = np.asarray(f)
        shape = f.shape
        f3 = f.reshape(shape[:-1] + (-1, 3))[..., self.contact_perm, :] * np.array([1.0, -1.0, 1.0])
        return f3.reshape(shape)


class Robot:
    """A robot model ready for symbolic dynamics and gait problems.

    Attributes: name, folder, urdf (absolute path), base (mode), model (pinocchio.Model with one
    1-DOF joint per coordinate), coordinates (names, length nq = nv), base_coordinates,
    joints (non-base coordinate names), actuated (names), actuated_index (indices into v),
    locked (name → value), feet (name → Foot), contacts (list of ContactPoint, fixed order),
    mirror (Mirror or None), actuators (actuated joint → Actuator), standing_q (nq,),
    lower, upper (nq,) position limits, velocity_limit, effort_limit (nq,).
    """

    def __init__(self, name, folder, urdf, base, model, locked, feet, contacts, mirror,
                 actuators, actuated, standing_q, description="", kinematics=None):
        self.name = name
        # robot.yaml `kinematics`: knee joints and feasibility settings (gaitopt.constraints.kinematics)
        self.kinematics = dict(kinematics or {})
        self.folder = folder
        self.urdf = urdf
        self.base = base
        self.model = model
        self.locked = dict(locked)
        self.feet = feet
        self.contacts = contacts
        self.mirror = mirror
        self.actuators = actuators
        self.actuated = list(actuated)
        self.description = description
        self.coordinates = [model.names[j] for j in range(1, model.njoints)]
        self.base_coordinates = list(BASE_COORDINATES[base])
        self.joints = self.coordinates[len(self.base_coordinates):]
        self.actuated_index = np.array([self.coordinates.index(j) for j in self.actuated], dtype=int)
        self.standing_q = np.asarray(standing_q, dtype=float)
        self.lower = np.array(model.lowerPositionLimit, dtype=float)
        self.upper = np.array(model.upperPositionLimit, dtype=float)
        self.velocity_limit = np.array(model.velocityLimit, dtype=float)
        self.effort_limit = np.array(model.effortLimit, dtype=float)

    @property
    def nq(self) -> int:
        return self.model.nq

    @property
    def nv(self) -> int:
        return self.model.nv

    @property
    def total_mass(self) -> float:
        return float(sum(self.model.inertias[j].mass for j in range(self.model.njoints)))

    def contact(self, name: str) -> ContactPoint:
        for c in self.contacts:
            if c.name == name:
                return c
        raise KeyError(name)

    def contact_index(self, name: str) -> int:
        return [c.name for c in self.contacts].index(name)

    def index(self, coordinate: str) -> int:
        """Index of a coordinate (base or joint) in q and v."""
        return self.coordinates.index(coordinate)

    def with_actuators(self, actuators: dict) -> "Robot":
        """A copy of this robot with some actuators replaced (e.g. another gear or motor).

        actuators: actuated joint name → `Actuator`; joints not listed keep theirs. The
        Pinocchio model is copied when it carries reflected rotor inertias (they follow the new
        actuators); every other attribute is shared (never mutated); the URDF
        effort and velocity limits are left as they are (switch them off in the problem's
        constraints when they describe the original actuator).
        """
        unknown = [j for j in actuators if j not in self.actuators]
        if unknown:
            raise InputError(f"not actuated joints: {unknown}", field="actuators", allowed=self.actuated)
        bad = [j for j, a in actuators.items() if not isinstance(a, Actuator)]
        if bad:
            raise InputError(f"expected gaitopt.robot.Actuator values for {bad}", field="actuators")
        new = copy.copy(self)
        new.actuators = {**self.actuators, **actuators}
        if np.any(np.asarray(self.model.armature) != 0.0):
            # the reflected rotor inertias follow the new gears and motors (on a copied model)
            new.model = self.model.copy()
            set_reflected_inertia(new.model, new.actuators, True)
        return new

    def __repr__(self):
        return (f"Robot({self.name!r}, base={self.base}, nq={self.nq}, mass={self.total_mass:.4f} kg, "
                f"feet={list(self.feet)}, actuated={len(self.actuated)})")


def set_reflected_inertia(model: pin.Model, actuators: dict, on: bool) -> None:
    """model.armature of each actuated joint = G²·J_rotor of its actuator (0 when off): the rotor
    turns G times faster than the joint, so its inertia adds G²·J_rotor on the joint axis."""
    model.armature[:] = 0.0
    if on:
        for j, a in actuators.items():
            model.armature[model.joints[model.getJointId(j)].idx_v] = a.reflected_inertia
