"""Initial guesses: nominal foot paths + inverse kinematics, or a warm start from a result.

The automatic guess moves the base forward at constant speed from the robot's standing
posture, keeps each stance foot on a foothold placed where the foot sits under the base at mid
stance, swings the other feet along a raised smooth path, solves the legs' inverse kinematics at
every knot (damped least squares, base pose given), differentiates the joint paths for v and a,
and splits inverse dynamics into torques and contact forces by nonnegative least squares, with
every force inside the friction pyramid.
"""
from __future__ import annotations

import warnings

import numpy as np
import pinocchio as pin

from . import quantities as Q
from .constraints.design import ELECTRICAL
from .cycle import FLIP_Y, mirror_contact_name
from .force_split import _ForceSplit
from .nlp import force_axes, variables_from_forces
from .point_kinematics import _ContactKinematics, _point_positions, leg_ik
from .schedule import active_points
from .terrain_io import surface_of


def _smooth(s):
    return s * s * (3.0 - 2.0 * s)


class NominalGait:
    """Base and foot paths of the automatic guess over the expanded cycle."""

    def __init__(self, robot, problem, schedule):
        self.robot = robot
        self.schedule = schedule
        part = 0.5 if problem.cycle == "half" else 1.0
        durations = [ph.duration.guess for ph in problem.phases]
        self.T_part = sum(durations)
        self.period = self.T_part / part
        exp_durations = durations * (2 if part == 0.5 else 1)
        self.starts = np.concatenate([[0.0], np.cumsum(exp_durations)])
        if problem.stride is not None:
            stride = problem.stride.guess
        elif problem.speed is not None:
            stride = problem.speed.guess * self.period
        else:
            stride = 0.0
        self.stride = stride
        self.speed = stride / self.period
        self.tan = np.tan(problem.slope)
        self.surface = None if not problem.terrain else surface_of(problem)
        self.clearance = problem.constraints.clearance
        q0 = robot.standing_q.copy()
        self.q_stand = q0
        model, data = robot.model, robot.model.createData()
        self.stand_points = _point_positions(model, data, robot, q0)
        # footholds: the standing ones shifted along x so that the centroid of all contact
        # points lies under the centre of mass (a biped's standing feet are often centred on the
        # ankles, not on the CoM; a walking biped puts its foot's middle under the CoM at mid stance)
        com = pin.centerOfMass(model, data, q0)
        self.stand_points[:, 0] += com[0] - self.stand_points[:, 0].mean()
        # stance runs per foot as (start, end) times over the expanded cycle
        self.runs = {}
        exp = schedule.expanded
        for foot in robot.feet:
            runs = []
            in_stance = [exp[i][0][foot] != "swing" for i in range(len(exp))]
            i = 0
            n = len(exp)
            while i < n:
                if in_stance[i] and not in_stance[i - 1 if i > 0 else n - 1] or (in_stance[i] and i == 0 and all(in_stance)):
                    j = i
                    while in_stance[(j + 1) % n] and (j + 1) - i < n:
                        j += 1
                    start = self.starts[i]
                    end = self.starts[j + 1] if j + 1 <= n - 1 or j + 1 == n else self.starts[(j + 1) % n] + self.period
                    if j + 1 > n:
                        end = self.starts[(j + 1) % n] + self.period
                    runs.append((start, end))
                i += 1
            self.runs[foot] = sorted(runs)
        if getattr(self.surface, "kind", "") == "steps":
            for foot in robot.feet:
                rows = [i for i, c in enumerate(robot.contacts) if c.foot == foot]
                self.stand_points[rows, 0] += self._tread_shift(rows, self.runs[foot])

    def _tread_shift(self, rows, runs) -> float:
        """The smallest shift [m] along x of a foot's footholds (its points `rows`, at mid stance
        of each of its stance `runs`) that puts every one on a tread: the smoothed step's slope and
        the clearance envelope's at most half the FOOTHOLD_GRADE the problem imposes there. A
        stance placed on a smoothed riser (a foot spacing that is a multiple of the run plus
        about an edge) kept IPOPT from ever meeting foothold_grade; 0 when none fits in ±run."""
        from .constraints.contact import FOOTHOLD_GRADE  # why: the bound the guess keeps clear of
        xs = np.array([self.stand_points[i, 0] + self.base_x(0.5 * (a + b)) for a, b in runs for i in rows])
        if not len(xs):
            return 0.0
        gaps = np.diff(np.asarray(self.surface.edges, float))
        reach = float(gaps.max()) if len(gaps) else 0.3
        shifts = np.linspace(-reach, reach, 2 * int(np.ceil(reach / 1e-3)) + 1)
        shifts = shifts[np.argsort(np.abs(shifts), kind="stable")]
        x = xs[None, :] + shifts[:, None]
        slope = np.maximum(np.abs(self.surface.gradient(x, 0.0 * x)[0]), np.abs(self.surface.envelope_slope(x)))
        ok = np.all(slope <= 0.5 * FOOTHOLD_GRADE, axis=1)
        return float(shifts[ok.argmax()]) if ok.any() else 0.0

    def base_x(self, t):
        return self.speed * t

    def foot_offset(self, foot, t):
        """(dx, dz) displacement of a foot from its standing place at time t."""
        P = self.period
        runs = []
        for shift in (-P, 0.0, P):
            runs += [(a + shift, b + shift) for a, b in self.runs[foot]]
        runs.sort()
        for a, b in runs:
            if a - 1e-12 <= t <= b + 1e-12:
                return self.base_x(0.5 * (a + b)), 0.0
        for (a0, b0), (a1, b1) in zip(runs[:-1], runs[1:]):
            if b0 < t < a1:
                s = (t - b0) / (a1 - b0)
                x0, x1 = self.base_x(0.5 * (a0 + b0)), self.base_x(0.5 * (a1 + b1))
                bump = 1.5 * 16.0 * self.clearance * s * s * (1 - s) ** 2 * 1.0 + 0.5 * self.clearance * np.sin(np.pi * s)
                return x0 + (x1 - x0) * _smooth(s), bump
        return self.base_x(t), 0.0

    def targets(self, t):
        out = self.stand_points.copy()
        for i, c in enumerate(self.robot.contacts):
            dx, dz = self.foot_offset(c.foot, t)
            out[i, 0] += dx
            out[i, 2] += dz + self._ground(out[i, 0], out[i, 1], dz > 0)
        return out

    def _ground(self, x, y, swinging: bool) -> float:
        """Ground height [m] under a foot target: what a swing foot clears, where a stance foot stands."""
        if self.surface is None:
            return self.tan * x
        return float((self.surface.envelope if swinging else self.surface.height)(x, y))

    def base(self, t, q):
        q = q.copy()
        rb = self.robot.base_coordinates
        if "base_x" in rb:
            q[self.robot.index("base_x")] = self.base_x(t)
        if "base_z" in rb:
            x = self.base_x(t)
            level = self.tan * x if self.surface is None else float(self.surface.reference_height(x, 0.0))
            q[self.robot.index("base_z")] = self.q_stand[self.robot.index("base_z")] + level
        return q


def automatic_guess(tr) -> np.ndarray:
    """Initial point x0 for a Transcription from nominal foot paths and inverse kinematics."""
    robot, problem, sched = tr.robot, tr.problem, tr.schedule
    nominal = NominalGait(robot, problem, sched)
    x0 = np.zeros(tr.n_variables)
    t0 = 0.0
    q_prev = robot.standing_q.copy()
    per_phase = []
    kin = _ContactKinematics(robot)
    for ph, pv in zip(problem.phases, tr.phases):
        K = ph.knots
        T = ph.duration.guess
        times = t0 + np.linspace(0.0, T, K + 1)
        Q = []
        for t in times:
            qb = nominal.base(t, q_prev)
            q = leg_ik(robot, qb, nominal.targets(t), robot.standing_q, kinematics=kin)
            Q.append(q)
            q_prev = q
        Q = np.array(Q).T  # nv × K+1
        per_phase.append((times, Q))
        t0 += T
    # velocities and accelerations by differences over the whole optimised part (smoother)
    all_t = np.concatenate([t for t, _ in per_phase])
    all_Q = np.concatenate([Q for _, Q in per_phase], axis=1)
    # remove duplicate junction times for the derivative, then map back
    uniq, inv = np.unique(np.round(all_t, 12), return_inverse=True)
    Qu = np.zeros((robot.nv, len(uniq)))
    for i, j in enumerate(inv):
        Qu[:, j] = all_Q[:, i]
    Vu = np.gradient(Qu, uniq, axis=1) if len(uniq) > 2 else np.zeros_like(Qu)
    Au = np.gradient(Vu, uniq, axis=1) if len(uniq) > 2 else np.zeros_like(Qu)
    dim, comp = tr.force_dim, force_axes(tr.force_dim)
    split = _ForceSplit(robot, problem, comp)
    states = []
    offset = 0
    for _, Q in per_phase:
        n = Q.shape[1]
        idx = inv[offset:offset + n]
        offset += n
        states.append((Q, Vu[:, idx], Au[:, idx]))
    # Torques and forces knot by knot (_ForceSplit), each knot's forces pulled towards the
    # previous knot's, strongly across every phase junction (the NLP asks for force continuity
    # only where no point touches down or lifts off; a smooth start serves the others too, and
    # the iteration counts in docs/ were measured with it). Points that lift off at the end of a
    # phase while others stay are unloaded towards it (weight growing as s²), so that the points
    # that stay carry the whole load at the junction. The
    # second sweep starts from the first sweep's last knot (mirrored for a half cycle), for the
    # periodic closure.
    f_prev = None
    n_exp = len(sched.expanded)
    knots = {}  # (phase, knot): the split's state, the same in both sweeps
    for _sweep in range(2):
        out = []
        for p, (pv, (Q, V, A)) in enumerate(zip(tr.phases, states)):
            n = Q.shape[1]
            nxt = set(active_points(robot, sched.expanded[(p + 1) % n_exp][0]))
            lifting = [c for c in pv.active if c not in nxt]
            if len(lifting) == len(pv.active):
                lifting = []  # nothing stays in contact: no force continuity to prepare for
            U = np.zeros((len(robot.actuated_index), n))
            F = np.zeros((dim * len(pv.active), n))
            for k in range(n):
                tie = 30.0 if k == 0 else 1.0
                unload = {c: 30.0 * (k / (n - 1)) ** 2 for c in lifting}
                if (p, k) not in knots:
                    knots[p, k] = split.state(Q[:, k], V[:, k], A[:, k], pv.active)
                U[:, k], F[:, k], f_prev = split.split(knots[p, k], pv.active, f_prev, tie, unload)
            out.append((U, F))
        f_prev = _wrap_forces(robot, problem, f_prev)
    for ph, pv, (Q, V, A), (U, F) in zip(problem.phases, tr.phases, states, out):
        tr.method.fill_guess(x0, pv, Q, V, A, U, F)
        if not ph.duration.fixed:
            x0[tr.globals[f"T_{ph.name}"].index] = ph.duration.guess
    if "stride" in tr.globals:
        x0[tr.globals["stride"].index] = nominal.stride
    fill_slacks(tr, x0)
    return x0


def _wrap_forces(robot, problem, f_full):
    """{point: world force} at the end of the optimised part, seen at its start."""
    if f_full is None or problem.cycle != "half":
        return f_full
    return {mirror_contact_name(robot, c): FLIP_Y * f for c, f in f_full.items()}


def fill_slacks(tr, x0):
    """Power slacks P⁺ = max(P, 0), P⁻ = max(−P, 0) consistent with x0's torques at each power
    node (gaitopt.collocation.PowerNode), P = τ q̇, or the electrical power for the pairs of
    ElectricalPowerSplit (at the robot's gears): exact at knots and midpoints, linear between
    the knots at Hermite–Simpson's quarter points (a start value only)."""
    for key, (pos, neg) in tr.slacks.items():
        tau, v = _node_state(x0, tr.phases[key[0]], key[1])
        power = Q.electrical_power if key[2:] == (ELECTRICAL,) else Q.mechanical_power
        pw = power(tr.robot, tau[None, :], v[None, :])[0]
        x0[pos.index.ravel()] = np.maximum(pw, 0.0)
        x0[neg.index.ravel()] = np.maximum(-pw, 0.0)


def _node_state(x0, pv, node: float) -> tuple:
    """(τ, v) of x0 at a power node k + s of a phase: the knot's, or linear between the knots,
    or at a midpoint the rule's own midpoint variables where it has them."""
    k, s = int(node), node % 1
    tau, v = x0[pv.tau.index[:, k]], x0[pv.v.index[:, k]]
    if s:
        tau = (1 - s) * tau + s * x0[pv.tau.index[:, k + 1]]
        v = (1 - s) * v + s * x0[pv.v.index[:, k + 1]]
    if s == 0.5:
        v = x0[pv.interval["v"].index[:, k]]
        if "tau" in pv.interval:
            tau = x0[pv.interval["tau"].index[:, k]]
    return tau, v


def same_grid(problem, trajectory) -> bool:
    """Whether a result's trajectory lies on the problem's grid: the same transcription, and
    every phase of the problem in it under the same name with as many intervals. A warm start
    from it then gives every variable of this NLP a solved value (near its optimum when the
    problems are near); from another grid or rule, values interpolated between knots that miss
    this NLP's collocation rows (gaitopt.gait.solve starts the two differently: trapezoidal →
    Hermite–Simpson on six shipped problems, 231 iterations started near, 167 as a guess, the
    same optima)."""
    if trajectory.method != problem.transcription:
        return False
    knots = {}
    for p in trajectory.phases:
        knots.setdefault(p.name, len(p.t) - 1)  # the first of a name (a half cycle mirrors it)
    return all(knots.get(ph.name) == ph.knots for ph in problem.phases)


def warm_start(tr, result) -> np.ndarray:
    """x0 from a previous result on the same robot and phases (knot counts may differ). A phase
    the result lacks (by name) keeps the automatic guess's values, with a warning: a gait
    written another way (a pattern's phase names) starts from nothing of the result's."""
    x0 = automatic_guess(tr)
    prev = result.trajectory
    missing = [ph.name for ph in tr.problem.phases if ph.name not in prev.phase_names]
    if missing:
        warnings.warn(f"warm start: the result has no phase {', '.join(missing)} (it has "
                      f"{', '.join(dict.fromkeys(prev.phase_names))}); those start from the automatic guess",
                      stacklevel=3)
    for ph, pv in zip(tr.problem.phases, tr.phases):
        if ph.name not in prev.phase_names:
            continue
        t_lo, t_hi = prev.phase_span(ph.name)
        K = ph.knots
        fr = np.linspace(0.0, 1.0, K + 1)
        ts = t_lo + fr * (t_hi - t_lo)
        tm = t_lo + 0.5 * (fr[:-1] + fr[1:]) * (t_hi - t_lo)
        knots, mids = prev.sample_phase(ph.name, ts), prev.sample_phase(ph.name, tm)
        for smp in (knots, mids):  # forces of this phase's points in contact, as its variables
            smp["f"] = variables_from_forces(smp["f"], pv.active, prev.contact_names, tr.force_dim)
        tr.method.fill_warm_start(x0, pv, knots, mids)
        if not ph.duration.fixed:
            x0[tr.globals[f"T_{ph.name}"].index] = t_hi - t_lo
    if "stride" in tr.globals:
        x0[tr.globals["stride"].index] = prev.stride
    for name, lam in tr.impulses.items():
        if name in result.impulses:
            x0[lam.index.ravel()] = result.impulses[name]
    fill_slacks(tr, x0)
    return x0
