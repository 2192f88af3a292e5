"""The result of a gait solve: status, cost breakdown, trajectory, violations, statistics."""
from __future__ import annotations

from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from .cycle import advance_vector, cycle_shift, mirror_contact_forces, planar_advance, mirror_coordinates, mirror_torques
from .nlp import Layout, forces_from_variables
from .result_notes import (_band_values, _grouped, _impact_line, _robot_text, _term_text, failure_hint,
                           joints_at_actuator_limits, joints_at_position_limits)
from .terrain_io import periodic_slope
from .trajectory import PhaseTrajectory, Trajectory, shown


@dataclass(frozen=True)
class Multipliers:
    """IPOPT's multipliers at a result's x, in x's own units: lam_g (ng,) of the constraint rows
    g, lam_x (n,) of the variable bounds (∇f + Jᵀ·lam_g + lam_x = 0 at the optimum). signature:
    the NLP they belong to (`Transcription.signature`: its variables and tagged rows); a warm
    start on an NLP of the same signature starts from them (gaitopt.gait.solve)."""

    lam_g: np.ndarray
    lam_x: np.ndarray
    signature: str


@dataclass
class Result:
    """What `gaitopt.solve` returns. A failed solve is a Result with success False, its status
    and message, and the best iterate IPOPT passed through (`solver.IterateKeeper`; trajectory
    and violations are still there; stats["returned_iteration"] says which).

    cost: objective value; cost_terms: term → weighted value; stats: iterations, solve_time_s,
    setup_time_s, function_eval_time_s, solver_time_s, n_variables, n_constraints;
    trajectory: the full cycle; problem: the Problem with every default filled in.
    """

    success: bool
    status: str
    message: str
    cost: float
    cost_terms: dict
    stats: dict
    trajectory: Trajectory
    problem: object
    robot: object
    impulses: dict = field(default_factory=dict)
    x: np.ndarray | None = field(default=None, repr=False)
    layout: Layout | None = field(default=None, repr=False)  # where each variable block sits in x
    _violations: list = field(default_factory=list, repr=False)
    multipliers: "Multipliers | None" = field(default=None, repr=False)  # at x: a warm start's duals
    # `binding_rules()` once computed (forward kinematics at every knot); not copied by replace()
    _binding: list | None = field(default=None, init=False, repr=False, compare=False)
    _touchdowns: list | None = field(default=None, init=False, repr=False, compare=False)

    def touchdowns(self) -> list:
        """Each touchdown of the full cycle: phase, points, speed_m_s, normal_m_s, loss_J (the
        impact's kinetic energy loss) (`gaitopt.touchdowns.touchdown_table`); [] without a
        trajectory."""
        if self._touchdowns is None:
            from .touchdowns import touchdown_table  # why: Pinocchio's numeric passes, when reported

            self._touchdowns = touchdown_table(self) if getattr(self, "trajectory", None) is not None else []
        return list(self._touchdowns)

    def binding_rules(self) -> list:
        """The kinematic feasibility rules the optimum presses on at its knots
        (`gaitopt.feasibility.binding_rules`: "base_attitude.yaw", "foot_range.FL", …); [] for a
        failed solve."""
        if self._binding is None:
            self._binding = _binding(self)
        return list(self._binding)

    def violations(self, top: int | None = None) -> list:
        """Worst violation per constraint term and phase, largest first: list of dicts with
        term, phase, max_violation (in the constraint's own units), rows."""
        return self._violations[:top] if top else list(self._violations)

    @property
    def max_violation(self) -> float:
        return max((v["max_violation"] for v in self._violations), default=0.0)

    def sample(self, t) -> dict:
        """Trajectory values at times t [s] (a number or an array of T) with the transcription's
        interpolant (`Trajectory.sample`): q, v, a (T, nq) [m, rad, /s, /s²] in the trajectory's
        `coordinates` order, tau (T, nu) [N·m] in `actuated` order, f (T, nc, 3) [N] world x, y, z
        per contact point (`contact_names`; y zero on sagittal robots), phase and time (T,)."""
        return self.trajectory.sample(t)

    def summary(self) -> str:
        worst = self.violations(3)
        lines = [
            f"{'SUCCESS' if self.success else 'FAILED'}: {self.status} — {self.message}",
            f"robot {_robot_text(self.robot)}, cost {self.cost:.6g} "
            + ", ".join(_term_text(k, v, self.problem.cost.get(k, self.stats.get("user_cost_weights", {}).get(k)))
                         for k, v in self.cost_terms.items()),
            f"stride {shown(self.trajectory.stride):.4f} m, period {self.trajectory.period:.4f} s, "
            f"speed {shown(self.trajectory.stride / self.trajectory.period):.4f} m/s"
            + self.trajectory.turn_text()
            # a failed solve's iterate breaks rows, the speed's too: not the problem's figures
            + ("" if self.success else " (the returned iterate's, not the problem's)"),
            f"{self.stats['iterations']} iterations, {self.stats['solve_time_s']:.3f} s solve "
            f"({self.stats['function_eval_time_s']:.3f} s in function evaluations), "
            f"{self.stats['setup_time_s']:.3f} s setup; NLP {self.stats['n_variables']} variables, "
            f"{self.stats['n_constraints']} constraints",
            "worst violations: " + ", ".join(f"{v['term']}@{v['phase']} {v['max_violation']:.2e}" for v in worst),
        ]
        binding = self.binding_rules()
        if binding:  # the gait is what these bands let it be (docs/feasibility.md)
            lines.append("at a feasibility band's edge: " + _grouped(binding, _band_values(self)))
        stops = joints_at_position_limits(self)
        if stops:  # as much a decision of the gait as a band, and only a 1e-8 "violation" above
            lines.append("at a joint's position limit: " + _grouped(stops))
        limits = joints_at_actuator_limits(self)
        if limits:  # what bounds the motor and gear (a sizing study's question)
            lines.append("at an actuator limit: " + _grouped(limits))
        impacts = _impact_line(self)
        if impacts:
            lines.append(impacts)
        hint = failure_hint(self)
        if hint:
            lines.append(hint)
        blocks, own = self.stats.get("compiled_blocks"), self.stats.get("compiled_own_blocks")
        if blocks or own:  # solver.codegen
            compile_s = self.stats.get("compile_time_s", 0.0)
            from .codegen import block_list

            parts = ([block_list(blocks)] if blocks else []) + ([f"{len(own)} of the problem's own blocks"] if own else [])
            lines.insert(4, "compiled derivatives: " + "; ".join(parts)
                         + (f" ({compile_s:.1f} s compiling, in the setup)" if compile_s else " (from the cache)"))
        elif getattr(getattr(self.problem, "solver", None), "codegen", False) is True:
            lines.insert(4, "compiled derivatives: none (solver.codegen: no shared robot function's "
                            "derivatives are large enough to gain from compiling)")
        return "\n".join(lines)


def _binding(result) -> list:
    """The feasibility rules the optimum presses on (gaitopt.feasibility), [] for a failed solve
    or without a trajectory to measure."""
    if not result.success or getattr(result, "trajectory", None) is None:
        return []
    from .feasibility import result_binding_rules  # why: forward kinematics, only when summarised

    return result_binding_rules(result)


def evaluate_violations(tr, x: np.ndarray) -> list:
    """Per (term, phase): the largest violation of g's bounds and of the variable bounds."""
    g = tr.assembly.g_value(x)
    viol = np.maximum(np.maximum(tr.lbg - g, g - tr.ubg), 0.0)
    table = {}
    for term, phase, a, b in tr.rows:
        key = (term, phase)
        val = float(viol[a:b].max()) if b > a else 0.0
        cur = table.setdefault(key, {"term": term, "phase": phase, "max_violation": 0.0, "rows": 0})
        cur["max_violation"] = max(cur["max_violation"], val)
        cur["rows"] += int(b - a)  # row spans may be numpy integers; result.json wants plain ints
    xv = np.maximum(np.maximum(tr.lbx - x, x - tr.ubx), 0.0)
    for term, phase, idx in tr.bound_rows:
        key = (term, phase)
        cur = table.setdefault(key, {"term": term, "phase": phase, "max_violation": 0.0, "rows": 0})
        if len(idx):
            cur["max_violation"] = max(cur["max_violation"], float(xv[idx].max()))
        cur["rows"] += len(idx)
    return sorted(table.values(), key=lambda r: -r["max_violation"])


def build_trajectory(tr, x: np.ndarray) -> tuple[Trajectory, dict]:
    """Knot values of the solution, expanded to the full cycle; and the impact impulses."""
    robot, problem = tr.robot, tr.problem
    names = [c.name for c in robot.contacts]
    dim = tr.force_dim
    nc = len(names)
    stride = float(x[tr.globals["stride"].index].ravel()[0]) if "stride" in tr.globals else problem.stride.min
    half = problem.cycle == "half"

    def forces(fvals, active):
        return forces_from_variables(fvals, active, names, dim)

    phases = []
    t0 = 0.0
    duration = ca.Function("T", [tr.x], [ca.vertcat(*[pv.duration for pv in tr.phases])])
    durations = np.asarray(duration(x)).ravel()
    for ps, pv, T in zip(tr.schedule.phases, tr.phases, durations):
        t = t0 + np.linspace(0.0, float(T), ps.knots + 1)
        a, f, mid = tr.method.phase_values(x, pv, forces)
        phases.append(PhaseTrajectory(ps.name, t, x[pv.q.index].T, x[pv.v.index].T, a, x[pv.tau.index].T, f,
                                      dict(ps.modes), mid))
        t0 += float(T)
    T_part = t0
    shift = cycle_shift(robot.coordinates, periodic_slope(problem))
    if half:
        half_shift = shift * stride / 2
        second = []
        for p in phases:
            second.append(PhaseTrajectory(
                f"{p.name}:mirrored", p.t + T_part, mirror_coordinates(robot, p.q) + half_shift,
                mirror_coordinates(robot, p.v), mirror_coordinates(robot, p.a), mirror_torques(robot, p.tau),
                mirror_contact_forces(robot, p.f), {robot.mirror.foot_pairs[f]: md for f, md in p.modes.items()},
                _mirror_mid(robot, p.mid, half_shift)))
        phases += second
    period = T_part * (2 if half else 1)
    yaw = problem.yaw_rate * period
    dx, dy = planar_advance(stride, problem.sideways * period, yaw)
    traj = Trajectory(tuple(phases), tuple(robot.coordinates), tuple(robot.actuated), tuple(names), stride,
                      period, problem.transcription, advance_vector(robot.coordinates, periodic_slope(problem), dx, dy, yaw))
    impulses = {name: x[lam.index].ravel() for name, lam in tr.impulses.items()}
    return traj, impulses


def _mirror_mid(robot, mid, q_shift):
    """The mirrored half's midpoint table (see PhaseTrajectory.mid)."""
    if mid is None:
        return None
    return {"q": mirror_coordinates(robot, mid["q"]) + q_shift, "v": mirror_coordinates(robot, mid["v"]),
            "a": mirror_coordinates(robot, mid["a"]), "tau": mirror_torques(robot, mid["tau"]),
            "f": mirror_contact_forces(robot, mid["f"])}
