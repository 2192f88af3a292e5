"""A catalogue of DC motors (robots/motors.yaml) to combine with gears into actuators.

A motor is the motor-side half of a `gaitopt.robot.Actuator`; `Motor.actuator(G, η)` adds the
gear. Every entry of the catalogue names its data source (`source`).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .robot import REPO_ROBOTS, Actuator, number, read_yaml
from .yamlio import Fields

MOTOR_CATALOGUE = REPO_ROBOTS / "motors.yaml"
MOTOR_FIELDS = ("motor", "resistance", "torque_constant", "voltage", "current_limit", "rated_power",
                "rotor_inertia", "source")


@dataclass(frozen=True)
class Motor:
    """A DC motor, motor side. Units: resistance Ω, torque_constant N·m/A, voltage V,
    current_limit A (peak current allowed), rated_power W, rotor_inertia kg·m²."""

    name: str
    motor: str
    resistance: float
    torque_constant: float
    voltage: float
    current_limit: float
    rated_power: float
    rotor_inertia: float
    source: str

    def actuator(self, gear_ratio: float, gear_efficiency: float = 1.0) -> Actuator:
        """This motor behind a gear of ratio G (motor turns per joint turn) and efficiency η."""
        return Actuator(resistance=self.resistance, torque_constant=self.torque_constant,
                        voltage=self.voltage, current_limit=self.current_limit,
                        gear_ratio=float(gear_ratio), gear_efficiency=float(gear_efficiency),
                        rated_power=self.rated_power, rotor_inertia=self.rotor_inertia,
                        motor=self.motor, source=self.source)


def load_motors(path: str | Path | None = None) -> dict:
    """Read a motor catalogue (default robots/motors.yaml): name → `Motor`.

    Raises InputError naming the file, the key path and the allowed keys."""
    path = Path(path) if path is not None else MOTOR_CATALOGUE
    f = Fields(read_yaml(path), path)
    mf = f.mapping("motors")
    f.done(["motors"])
    out = {}
    for name in mf.data:
        if not isinstance(name, str) or not name:
            raise mf.error(str(name), "a motor name must be a non-empty string")
        m = mf.mapping(name, allowed=MOTOR_FIELDS)
        out[str(name)] = Motor(
            name=str(name), motor=m.string("motor"),
            resistance=number(m, "resistance", positive=True, allowed="> 0 Ω"),
            torque_constant=number(m, "torque_constant", positive=True, allowed="> 0 N·m/A"),
            voltage=number(m, "voltage", positive=True, allowed="> 0 V"),
            current_limit=number(m, "current_limit", positive=True, allowed="> 0 A"),
            rated_power=number(m, "rated_power", positive=True, allowed="> 0 W"),
            rotor_inertia=number(m, "rotor_inertia", low=0.0, allowed=">= 0 kg·m²"),
            source=m.string("source"))
        m.done(MOTOR_FIELDS)
    if not out:
        raise f.error("motors", "the catalogue is empty")
    return out
