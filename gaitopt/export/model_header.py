"""What an export's header says about the model the optimiser used (trajectory.csv format 2,
docs/formats.md "Rebuilding the dynamics"): with these keys and the URDF alone, plain Pinocchio
rebuilds the equations of motion the optimiser imposed,

    M(q) a + b(q, v) + diag(armature) a = Sᵀ τ + Σ_c J_c(q)ᵀ f_c,

M and b of the URDF model (locked joints removed, the base joints of `base_joints` in front),
armature the reflected rotor inertias G²·J_rotor, S the selection of the actuated coordinates,
J_c the world-aligned linear Jacobian of contact point c and f_c its world-frame force. No joint
damping or friction enters the optimiser's dynamics."""
from __future__ import annotations

import numpy as np

from ..actuation import imposed_effort_limits
from ..collocation import METHODS
from ..dynamics import GRAVITY
from ..schedule import active_points
from ..terrain_io import periodic_slope, surface_of

# pinocchio joint model of each base coordinate, chained from the world in this order
BASE_JOINT_TYPES = {"base_x": "PX", "base_y": "PY", "base_z": "PZ", "base_yaw": "RZ", "base_pitch": "RY",
                    "base_roll": "RX"}
MIRRORED = ":mirrored"  # suffix of the phases of a half cycle's mirrored second half
EOM_TEXT = ("M(q) a + b(q,v) + diag(armature) a = S^T tau + sum_c J_c(q)^T f_c; b = Coriolis, centrifugal "
            "and gravity (pinocchio.rnea(q, v, 0)); J_c = linear part of the LOCAL_WORLD_ALIGNED Jacobian "
            "of contact point c; f_c world-frame force; no joint damping or friction")
# where each rule imposes the equations of motion (rows of the `point` column)
EOM_ROWS = {"trapezoidal": ["mid"], "hermite_simpson": ["knot", "mid"]}
COLLOCATION_TEXT = {
    "trapezoidal": ("mid rows: the interval's midpoint state (the mean of its knot states), its constant a "
                    "and f, the mean of its knot torques; knot rows: a and f are the means of the two "
                    "intervals meeting there, where the equations of motion are not imposed"),
    "hermite_simpson": ("knot and mid rows are the rule's variables (q, v, a, tau, f at knots and interval "
                        "midpoints); a, tau, f quadratic through knot, mid, knot"),
}


def _finite_or_none(x: float):
    """JSON has no infinity: None where there is no bound."""
    return float(x) if np.isfinite(x) else None


def actuator_record(robot, joint: str) -> dict:
    """One actuated joint's actuator as the header holds it (SI units)."""
    a = robot.actuators[joint]
    return {"gear_ratio": a.gear_ratio, "gear_efficiency": a.gear_efficiency, "torque_constant": a.torque_constant,
            "resistance": a.resistance, "voltage": a.voltage, "current_limit": a.current_limit,
            "rated_power": _finite_or_none(a.rated_power), "rotor_inertia": a.rotor_inertia,
            "reflected_inertia": a.reflected_inertia, "torque_limit": a.torque_limit,
            "stall_torque": a.stall_torque, "no_load_speed": a.no_load_speed, "motor": a.motor}


def torque_bounds(robot, problem) -> dict:
    """Joint → the |τ| bound [N·m] the optimiser imposed (URDF effort limit and/or the current
    limit η·G·K·I_max, whichever is on and smaller), None when unbounded."""
    out = {}
    effort = imposed_effort_limits(problem, robot)
    constraints = problem.constraints
    for i, j in enumerate(robot.actuated):
        bound = effort[i]
        if constraints.current_limit:
            bound = min(bound, robot.actuators[j].torque_limit)
        out[j] = _finite_or_none(bound)
    return out


def phase_records(robot, traj) -> list:
    """The full cycle's phases: name, start and end [s], intervals, foot modes, the contact
    points in contact (whose forces enter the equations of motion) and mirror_of: for the
    second half of a half-cycle problem the optimised phase it mirrors left/right (its rows hold
    the equations of motion only as far as the robot is left/right symmetric), else null."""
    names = [p.name for p in traj.phases]
    return [{"name": p.name, "start": float(p.t[0]), "end": float(p.t[-1]), "intervals": len(p.t) - 1,
             "modes": dict(p.modes), "contacts": list(active_points(robot, p.modes)),
             "mirror_of": p.name[:-len(MIRRORED)] if p.name.endswith(MIRRORED) and
             p.name[:-len(MIRRORED)] in names else None} for p in traj.phases]


def model_header(result) -> dict:
    """The keys format 2 appends to trajectory.csv's header (see the module docstring)."""
    robot, problem, traj = result.robot, result.problem, result.trajectory
    c = problem.constraints
    nb = len(robot.base_coordinates)
    arm = np.asarray(robot.model.armature, float)
    return {
        "gravity": [0.0, 0.0, -GRAVITY],
        "base_joints": [{"name": n, "type": BASE_JOINT_TYPES[n]} for n in robot.base_coordinates],
        "coordinates": list(robot.coordinates),
        "actuated": list(robot.actuated),
        "passive": [j for j in robot.coordinates[nb:] if j not in robot.actuated],
        "armature": {n: float(arm[i]) for i, n in enumerate(robot.coordinates)},
        "actuators": {j: actuator_record(robot, j) for j in robot.actuated},
        "torque_bounds": torque_bounds(robot, problem),
        "joint_limits": {n: {"lower": _finite_or_none(robot.lower[i]), "upper": _finite_or_none(robot.upper[i]),
                             "velocity": _finite_or_none(robot.velocity_limit[i]),
                             "effort": _finite_or_none(robot.effort_limit[i])}
                         for i, n in enumerate(robot.coordinates) if i >= nb},
        "limits": {"joint_limits": c.joint_limits, "velocity_limits": c.velocity_limits,
                   "effort_limits": c.effort_limits, "current_limit": c.current_limit,
                   "torque_speed": c.torque_speed, "power_limit": c.power_limit, "torque_rate": c.torque_rate},
        "feet": {f.name: {"frame": f.frame, "kind": f.kind, "contacts": list(f.contacts)} for f in robot.feet.values()},
        "terrain": terrain_record(problem),
        "touchdown": c.touchdown,
        "phases": phase_records(robot, traj),
        "collocation": {"rule": problem.transcription, "eom_rows": EOM_ROWS[problem.transcription],
                        "rows": COLLOCATION_TEXT[problem.transcription]},
        "equations_of_motion": EOM_TEXT,
    }


def design_record(result) -> dict | None:
    """The header's `design` (appended 2026-11-24): what a co-design chose, None without one.
    gear_ratio: design group → its gear ratio [-] (the `actuators` entries carry it too);
    limb_lengths: legs (feet) → thigh and shank length [m] and the thigh/shank ratio [-] of the
    robot whose URDF `urdf` names (a co-design's own, written under the result directory)."""
    from ..constraints.design import designed_legs  # why: co-design only
    problem, robot = result.problem, result.robot
    if not problem.design and problem.limb_lengths is None:
        return None
    out = {}
    if problem.design:
        out["gear_ratio"] = {d.name: float(robot.actuators[d.joints[0]].gear_ratio) for d in problem.design}
    if problem.limb_lengths is not None:
        legs = designed_legs(problem, robot)
        out["limb_lengths"] = {"thigh_shank_ratio": float(legs[0].ratio),
                               "legs": {leg.foot: {"thigh": float(leg.thigh.length), "shank": float(leg.shank.length)}
                                        for leg in legs}}
    return out


def terrain_record(problem) -> dict:
    """The header's `terrain`: the plane's slope and normal, friction and cone, and (appended,
    docs/terrain.md) the base's periodic rise as a slope and the surface, from which
    `gaitopt.terrain_io.surface_from_description` rebuilds steps or a height map."""
    c = problem.constraints
    planar = not problem.terrain
    return {"slope_rad": problem.slope, "normal": [-float(np.sin(problem.slope)), 0.0, float(np.cos(problem.slope))],
            "height": "z = x * tan(slope_rad)" if planar else "z = surface height (see surface)",
            "friction": c.friction, "cone": c.cone,
            "periodic_slope_rad": periodic_slope(problem), "surface": surface_of(problem).describe()}


def collocation_rows(traj):
    """Yield (time, phase, point, q, v, a, tau, f) over one cycle in time order: every knot
    (point "knot") and, between two knots of a phase, the interval's midpoint values (point
    "mid", as `PhaseTrajectory.mid`), then the next cycle's first knot."""
    rule = METHODS[traj.method]
    for p in traj.phases:
        mid = p.mid if p.mid is not None else rule.midpoints_from_knots(p.t, p.q, p.v, p.a, p.tau, p.f)
        for k in range(len(p.t)):
            yield float(p.t[k]), p.name, "knot", p.q[k], p.v[k], p.a[k], p.tau[k], p.f[k]
            if k + 1 < len(p.t):
                yield (0.5 * float(p.t[k] + p.t[k + 1]), p.name, "mid", mid["q"][k], mid["v"][k], mid["a"][k],
                       mid["tau"][k], mid["f"][k])
    first = traj.phases[0]
    q, v, a, f = traj.cycle_state(1, first.q[0], first.v[0], first.a[0], first.f[0])  # rotated when it turns
    yield float(first.t[0] + traj.period), first.name, "knot", q, v, a, first.tau[0], f
