"""Constraint components of the transcription (see `base` for the interface).

`CONSTRAINTS` is the literal, read-only table of built-in components, in the order the
transcription calls them (which fixes the order of variables and rows in the NLP). A user
component is a `Constraint` subclass instance passed to `gaitopt.transcription.transcribe`
(or `gaitopt.solve`) as `constraints=[...]`; it is called after the built-in ones of its
`where`.
"""
from __future__ import annotations

from .base import Constraint, Context, Terrain, VariableBounds
from .contact import ContactAtRest, ContactGround, FrictionCone, InverseDynamics, friction_rows
from .design import ABS_POWER_COSTS, ELECTRICAL, ElectricalPowerSplit, GearRatioDesign, LimbLengthDesign, PowerSplit
from .dynamics import Collocation
from .junction import (CycleGauge, ForceContinuity, ImpactMap, Speed, StateContinuity, TorqueContinuity,
                       TouchdownSpeed, VelocityContinuity)
from .kinematics import BaseAttitude, FootRangeOfMotion, FootYaw, KneeMargin, LegSeparation, UpperBodyPosture
from .limits import (BaseAboveGround, CurrentLimit, JointLimits, PowerLimit, TorqueLimits,
                     TorqueRateLimit, TorqueSpeedLimit, VelocityLimits)
from .posture import BaseHeight, Foothold
from .swing import RollClearance, SwingClearance, lift_off_fade

CONSTRAINTS = (
    # variable bounds
    JointLimits, KneeMargin, UpperBodyPosture, BaseAttitude, BaseAboveGround, VelocityLimits, TorqueLimits,
    # design variables (after the effort limits: designed joints lose their torque bounds)
    GearRatioDesign, LimbLengthDesign,
    # per phase, then at every collocation point, then per interval
    Collocation,
    InverseDynamics, FrictionCone, BaseHeight, Foothold, ContactAtRest, ContactGround, SwingClearance,
    RollClearance, TorqueSpeedLimit, CurrentLimit, PowerLimit, FootRangeOfMotion, LegSeparation, FootYaw,
    TorqueRateLimit,
    # phase junctions and the cycle
    StateContinuity, TorqueContinuity, ImpactMap, TouchdownSpeed, VelocityContinuity, ForceContinuity,
    Speed, PowerSplit, ElectricalPowerSplit, CycleGauge,
)


def active_constraints(problem, robot) -> list:
    """Instances of the built-in components that apply to `problem` on `robot`, in table order."""
    return [cls() for cls in CONSTRAINTS if cls.applies(problem, robot)]


__all__ = ["CONSTRAINTS", "Constraint", "Context", "Terrain", "VariableBounds", "active_constraints",
           "friction_rows", "lift_off_fade", "ABS_POWER_COSTS", "ELECTRICAL"] + [c.__name__ for c in CONSTRAINTS]
