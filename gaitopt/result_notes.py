"""What a solve's summary says of its gait beyond the numbers: the cost terms with their units and
weights, the joints resting on a position limit, the actuator limits reached, the feasibility
bands at their edge with their numbers, the touchdowns and their impacts, the robot's folder,
and a failed solve's hint. Functions of a `gaitopt.result.Result` (read, never changed); the
Result's `summary()` and a study's rows (`limits_note`) print them."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .problem_spec import COST_UNITS


def _term_text(name: str, value: float, weight) -> str:
    """A cost term for the summary with its unit: `joule_loss 138.063 J/m`; weighted,
    `torque_rate_squared 0.5 (0.1 × 5 N²·m²/s)` (the term's own value and unit in brackets); a
    term of one's own (no unit known) as the bare number, or with its weight
    `pitch_rate_squared 0.03 (10 × 0.003)`."""
    unit = COST_UNITS.get(name)
    if not weight or (unit is None and weight == 1.0):
        return f"{name} {value:.6g}"
    if weight == 1.0:
        return f"{name} {value:.6g}" + (f" {unit}" if unit else "")
    return f"{name} {value:.6g} ({weight:g} × {value / weight:.6g}" + (f" {unit})" if unit else ")")


def joints_at_position_limits(result, tol: float = 1e-4) -> list:
    """Where the optimum rests on a joint's position limit (robot.yaml / URDF) at some knot,
    within tol [rad or m]: ["upper.FL_calf_joint", "lower.RL_hip_joint", …] (limit, joint), [] for
    a failed solve or with constraints.joint_limits off. The feasibility line does not name these,
    and the worst-violations line shows them as 1e-8 "violations": a new user's Go2 trot stood on
    its calves' −0.838 rad stops (the knee cannot straighten further) with only that to tell."""
    traj = getattr(result, "trajectory", None)
    constraints = getattr(getattr(result, "problem", None), "constraints", None)
    if not result.success or traj is None or not getattr(constraints, "joint_limits", False):
        return []
    robot = result.robot
    nb = len(robot.base_coordinates)
    q = np.concatenate([p.q for p in traj.phases])[:, nb:]  # knots: where the bounds hold
    lower, upper = robot.lower[nb:], robot.upper[nb:]
    out = []
    for side, at in (("upper", q.max(axis=0) >= upper - tol), ("lower", q.min(axis=0) <= lower + tol)):
        out += [f"{side}.{name}" for name, hit in zip(robot.joints, at) if hit]
    return out


def joints_at_actuator_limits(result, tol: float = 1e-4) -> list:
    """Where the optimum reaches an actuator limit at some knot or midpoint, within tol of it
    (relative): ["torque_speed.RL_calf_joint", "current_limit.FL_knee", …] (limit, joint) for
    the limits the problem applies — the motor's torque–speed line |R i + K G q̇| ≤ V and current
    limit |τ| ≤ η G K I_max (at the co-designed gears of a co-design result), the URDF's effort
    (not on designed joints) and velocity limits; [] for a failed solve. What bounds a gear or
    motor in a sizing study; the worst-violations line shows these as 1e-8 "violations" at most
    (a user's Go2 calf at G = 40 and 1 m/s ran on its 24 V line with nothing to say so)."""
    if not result.success:
        return []
    hits = [name for name, ratio in _actuator_limit_ratios(result).items() if ratio.max() >= 1.0 - tol]
    return sorted(hits, key=lambda name: name.partition(".")[0])  # one group per limit, joints in order


def _actuator_limit_ratios(result) -> dict:
    """{"current_limit.FL_calf_joint": |x|/limit at every knot and midpoint, …} for the actuator
    limits the problem applies (`joints_at_actuator_limits`), of whatever iterate the result holds
    (a failed solve's too); {} without a trajectory."""
    traj = getattr(result, "trajectory", None)
    c = getattr(getattr(result, "problem", None), "constraints", None)
    if traj is None or c is None:
        return {}
    from .actuation import imposed_effort_limits, motor_voltage  # numpy only
    robot = result.robot
    idx = [robot.index(j) for j in robot.actuated]
    # knots and midpoints (trapezoidal: τ and q̇ linear between knots; Hermite–Simpson: its variables)
    tau = np.concatenate([x for p in traj.phases for x in (p.tau, p.mid["tau"] if p.mid else p.tau[:0])])
    qd = np.concatenate([x for p in traj.phases for x in (p.v, p.mid["v"] if p.mid else p.v[:0])])[:, idx]
    effort = imposed_effort_limits(result.problem, robot)  # inf where the plan does not impose it
    out = {}
    for k, j in enumerate(robot.actuated):
        a = robot.actuators[j]
        if c.torque_speed:
            out[f"torque_speed.{j}"] = np.abs(motor_voltage(a, tau[:, k], qd[:, k], a.gear_ratio)) / a.voltage
        if c.current_limit:
            out[f"current_limit.{j}"] = np.abs(tau[:, k]) / a.torque_limit
        if np.isfinite(effort[k]):
            out[f"effort_limit.{j}"] = np.abs(tau[:, k]) / effort[k]
        if c.velocity_limits and np.isfinite(robot.velocity_limit[idx[k]]) and robot.velocity_limit[idx[k]] > 0:
            out[f"velocity_limit.{j}"] = np.abs(qd[:, k]) / robot.velocity_limit[idx[k]]
    return out


def limits_note(result) -> str:
    """What the summary says of a solve's limits, for one line of a table (a sweep row's message):
    an optimum's "at an actuator limit: current_limit (FL_calf_joint, …)" — what bounds a gear or
    motor — else a failed solve's hint (`failure_hint`); '' when there is none."""
    if not result.success:
        return failure_hint(result)
    limits = joints_at_actuator_limits(result)
    return "at an actuator limit: " + _grouped(limits) if limits else ""


def _grouped(names, values: dict | None = None) -> str:
    """"foot_range.FL", "foot_range.FR", "base_height" → "foot_range (FL, FR), base_height";
    values: rule → text of its band, added in the brackets ("knee_margin (0.15 rad)"), or key →
    text for a rule whose keys have bands of their own ("base_attitude (pitch -0.25…0.25 rad)")."""
    groups = {}
    for name in names:
        rule, _, key = name.partition(".")
        groups.setdefault(rule, []).append(key)
    out = []
    for rule, keys in groups.items():
        value = (values or {}).get(rule)
        if isinstance(value, dict):  # per key: each named with its own band
            inside = ", ".join(f"{k} {value[k]}" if k in value else k for k in keys)
        else:
            inside = ": ".join(([", ".join(keys)] if any(keys) else []) + ([value] if value else []))
        out.append(rule + (f" ({inside})" if inside else ""))
    return ", ".join(out)


def _robot_text(robot) -> str:
    """The robot's name, with its folder when it is not one gaitopt ships: a problem file's
    folder is looked in first, and a copy there (a new user's /tmp/robots/biped7) was used with
    nothing but "robot biped7" said."""
    from .robot import REPO_ROBOTS  # why: only when summarised

    folder = getattr(robot, "folder", None)
    if folder is None:
        return robot.name
    try:
        shipped = Path(folder).resolve().parent == REPO_ROBOTS.resolve()
    except OSError:
        shipped = False
    return robot.name if shipped else f"{robot.name} ({folder})"


TOUCHDOWN_AT_REST = 1e-4  # [m/s] touchdown speeds below this are the solver's tolerance, not an impact


def _impact_line(result) -> str:
    """The summary's line on the touchdowns (`Result.touchdowns`): the largest speed, and what the
    impacts take per cycle and per metre, said to be outside the cost unless impact_loss is in it;
    '' without impacts (soft touchdowns, or none)."""
    rows = result.touchdowns()
    if not rows or getattr(result.problem.constraints, "touchdown", "impact") != "impact":
        return ""
    loss = sum(r["loss_J"] for r in rows)
    speed = max(r["speed_m_s"] for r in rows)
    if speed < TOUCHDOWN_AT_REST:
        return "touchdowns: at rest (no impact loss)"
    distance = result.trajectory.distance
    per_m = f", {loss / distance:.3g} J/m" if distance > 0 else ""
    where = "in the cost" if "impact_loss" in result.cost_terms else "not in the cost"
    return (f"touchdowns: up to {speed:.3g} m/s "
            f"({max(max(r['normal_m_s'] for r in rows), 0.0):.3g} m/s along the ground's normal); their impacts take "
            f"{loss:.3g} J per cycle{per_m} ({where})")


def _band_values(result) -> dict:
    """rule → a short text of its band's numbers (`gaitopt.feasibility.feasibility_bands`) for
    the summary's "at a feasibility band's edge" line: which numbers the gait presses on, the
    robot's defaults or the problem's (a new user's Talos could not see them). foot_range's
    boxes are left to result.json: a box per foot is too long for a line."""
    from .feasibility import feasibility_bands  # why: forward kinematics, only when summarised

    bands = feasibility_bands(result.problem, result.robot)
    text = {}
    if "base_height" in bands:
        text["base_height"] = f"{bands['base_height']['min']:.3g}–{bands['base_height']['max']:.3g} m"
    if "knee_margin" in bands:
        text["knee_margin"] = f"{bands['knee_margin']:.3g} rad"
    if "foot_yaw" in bands:
        text["foot_yaw"] = f"±{bands['foot_yaw']['band']:.3g} rad"
    if "upper_body" in bands:
        text["upper_body"] = f"±{bands['upper_body']['band']:.3g} rad or m"
    if "base_attitude" in bands:
        text["base_attitude"] = {k: f"{lo:.3g}…{hi:.3g} rad" for k, (lo, hi) in bands["base_attitude"].items()}
    if "leg_separation" in bands:
        least = {}
        for row in bands["leg_separation"]:
            least[row["axis"]] = min(least.get(row["axis"], np.inf), row["min"])
        text["leg_separation"] = ", ".join(f"{axis} ≥ {m:.3g}" for axis, m in sorted(least.items(), reverse=True)) + " m"
    return text


def failure_hint(result) -> str:
    """A line on what to try when a failed solve ends on a violation whose usual cause is known,
    else ''. foothold_grade on stairs: IPOPT's restoration stops in a local minimum of the two
    keep-out rows before an up edge (docs/terrain.md); moving the stairs by a few millimetres
    or changing the knots takes another path (a user's stair walk, ANYmal's walk at one start).
    foothold_tread: a foot's points do not fit on one tread (a sole longer than the run)."""
    worst = result.violations(1)
    if result.success:
        return ""
    if not worst or worst[0]["term"] not in ("foothold_grade", "foothold_tread"):
        return _actuator_hint(result)
    if worst[0]["term"] == "foothold_tread":
        return ("hint: a foot's points ended on two treads (foothold_tread, docs/terrain.md): a sole fits on a "
                "run longer than its length plus about 7.4 terrain.smoothing widths (or turned across the stair "
                "within base_attitude.yaw and foot_range); where it fits, change the knots or "
                "terrain.stairs.start_x for another path")
    where = "terrain.stairs.start_x" if "stairs" in (getattr(result.problem, "terrain", None) or {}) \
        else "the steps' x"
    return (f"hint: a foothold is trapped before a step's edge (foothold_grade, docs/terrain.md): move {where} "
            "by a few millimetres or change the knots; IPOPT then takes another path")


# a failed iterate "at" a limit: within 1 % of it (IPOPT's best infeasible point stops short of its
# bounds: a user's A1 calves at 3.705 of 3.71 N·m, so the optimum's 1e-4 would miss it), at a
# quarter of its points or more (that iterate also touched the thighs' limits at 0–4 of 26 points,
# pushing every torque it had; the calves held theirs at 14–15)
ITERATE_LIMIT_TOL = 1e-2
ITERATE_LIMIT_SHARE = 0.25


def _actuator_hint(result) -> str:
    """A failed solve whose returned iterate holds actuators at their limits at many points: the
    motor and gear may not carry the gait. A user's motor sweep on an A1 calf (maxon RE 40, 24 V,
    15 A at G = 9.1: 3.71 N·m where the solved gaits need 10–11) ended "the constraints look
    infeasible" with the dynamics rows violated and nothing to say the motor was too weak."""
    held = {}
    for name, ratio in _actuator_limit_ratios(result).items():
        n = int(np.count_nonzero(ratio >= 1.0 - ITERATE_LIMIT_TOL))
        if n >= ITERATE_LIMIT_SHARE * len(ratio):
            held[name] = (n, len(ratio))
    if not held:
        return ""
    names = sorted(held, key=lambda name: name.partition(".")[0])
    points = ", ".join(f"{name.partition('.')[2]} {held[name][0]}" for name in names)
    return (f"hint: the returned iterate holds {_grouped(names)} at the limit (within 1 %) at many of its "
            f"{held[names[0]][1]} knots and midpoints ({points}): these actuators may not carry this gait; "
            "try a larger gear ratio or motor, or a slower gait (docs/studies.md)")
