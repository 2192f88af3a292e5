"""The replay: the plan's feedforward torques plus joint PD on the plan, simulated in MuJoCo with
torque-limited motors."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..schedule import active_points
from ..terrain_io import base_height_above_ground, surface_of
from ..terrain_reach import reach_message, terrain_reach
from .judge import judge
from .settings import CannotReplay, ReplaySettings, load_mujoco
from .sim_model import build_model, torque_speed_range
from .terrain_geoms import TERRAIN_EXTENT


@dataclass
class Replay:
    """What `replay` returns. verified: True when the robot neither fell nor slipped, its base
    advance is within the distance tolerance and its Joule loss within the energy tolerance;
    report: the JSON report (docs/formats.md, verify.json); series: time series for plots —
    time (T,), q_plan, q_sim, v_plan, v_sim (T, nq), tau_plan, tau_sim (T, nu), force_plan,
    force_sim (T, n_feet, 3), feet (names)."""

    verified: bool
    report: dict
    series: dict = field(repr=False)


def _reference(result, cycles: int, dt: float) -> dict:
    """The plan sampled at every MuJoCo step over `cycles` cycles: t (T,), ref (Trajectory.sample),
    point_on (T, nc) planned contact flags, f_plan (T, n_feet, 3) planned force per foot,
    foot_of (nc,) foot index of each contact point."""
    robot, traj = result.robot, result.trajectory
    n = int(round(cycles * traj.period / dt))
    t = np.arange(n + 1) * dt
    ref = traj.sample(t)
    feet = list(robot.feet)
    modes = traj.phase_modes()
    point_on = np.array([[c.name in active_points(robot, modes[str(ph)]) for c in robot.contacts]
                         for ph in ref["phase"]])
    foot_of = np.array([feet.index(c.foot) for c in robot.contacts])
    f_plan = np.zeros((n + 1, len(feet), 3))
    for ci in range(len(robot.contacts)):
        f_plan[:, foot_of[ci]] += ref["f"][:, ci]
    return {"t": t, "ref": ref, "point_on": point_on, "f_plan": f_plan, "foot_of": foot_of, "feet": feet}


def _gains(sim, point_on, foot_of, n_feet, settings: ReplaySettings) -> tuple:
    """(kp_t, kd_t) (T, nu): a joint with a standing foot below it gets its share of the stance
    gains if they are larger than its own; while three or more feet stand, instead, its share
    of the support gains (settings.support_frequency_hz on the inertia of the rest of the robot
    about the joint, divided by the number of standing feet)."""
    foot_on = np.zeros((len(point_on), n_feet), dtype=bool)
    for ci in range(point_on.shape[1]):
        foot_on[:, foot_of[ci]] |= point_on[:, ci]
    stance = (foot_on.astype(int) @ sim.joint_feet.T.astype(int)) > 0          # (T, nu)
    n_on = np.maximum(foot_on.sum(axis=1, keepdims=True), 1)
    kp = np.where(stance, np.maximum(sim.kp, sim.kp_stance / n_on), sim.kp)
    kd = np.where(stance, np.maximum(sim.kd, sim.kd_stance / n_on), sim.kd)
    if not settings.support_frequency_hz:
        return kp, kd
    # why: three or more standing legs hold the body by themselves (a support polygon) and close
    # kinematic loops through the ground, where joint PD tuned to the legs' own inertia squeezes
    # the robot over millimetre foot-placement errors; sized on the body they carry, the legs
    # are the body's suspension (docs/verification.md, 2026-11-24). With one or two standing
    # feet the joints' stiffness balances the robot, and stays.
    support = stance & (n_on >= 3)
    return (np.where(support, sim.kp_support / n_on, kp), np.where(support, sim.kd_support / n_on, kd))


def _simulate(sim, settings, ref, kp_t, kd_t, fallen, delay_steps: int = 0) -> dict:
    """Step MuJoCo through the samples of ref; fallen(q) → True stops it. A command computed
    from the state at step k reaches the motors at step k + delay_steps (before: the first
    command). Returns q, v (T, nq), tau (T, nu), lo, hi (T, nu) the motors' bounds, fc, pts
    (T, nc, 3), last (index of the last sample), fell_at (index or None)."""
    mj = load_mujoco()
    robot = sim.robot
    n, nc, nu = len(ref["tau"]) - 1, len(robot.contacts), len(robot.actuated)
    act = robot.actuated_index
    ctrl = ref["tau"] + kp_t * ref["q"][:, act] + kd_t * ref["v"][:, act]
    out = {"q": np.zeros((n + 1, robot.nq)), "v": np.zeros((n + 1, robot.nv)), "tau": np.zeros((n + 1, nu)),
           "fc": np.zeros((n + 1, nc, 3)), "pts": np.zeros((n + 1, nc, 3)), "last": n, "fell_at": None}
    limit = sim.torque_limit if sim.torque_limit is not None else np.full(nu, np.inf)
    out["lo"], out["hi"] = np.tile(-limit, (n + 1, 1)), np.tile(limit, (n + 1, 1))
    for k in range(n + 1):
        # step1: kinematics and contacts of the current state; step2: forces and integration,
        # so that the torques and contact forces read after it belong to the state read before
        mj.mj_step1(sim.model, sim.data)
        q, v = sim.data.qpos[sim.qpos], sim.data.qvel[sim.dof]
        out["q"][k], out["v"][k], out["pts"][k] = q, v, sim.points()
        if fallen(out["q"][k]):
            out["fell_at"], out["last"] = k, k
        kc = max(k - delay_steps, 0)
        # MuJoCo applies ctrl − kp q − kd q̇ at the current state: the delayed command's PD on its
        # own (old) state is ctrl[kc] − kp q_kc − kd v_kc, so add back the current-state terms
        c = ctrl[kc] if kc == k else (ctrl[kc] - kp_t[kc] * out["q"][kc, act] - kd_t[kc] * out["v"][kc, act]
                                      + kp_t[k] * q[act] + kd_t[k] * v[act])
        sim.data.ctrl[:] = c
        sim.model.actuator_biasprm[:, 1] = -kp_t[k]
        sim.model.actuator_biasprm[:, 2] = -kd_t[k]
        if settings.torque_speed:  # the motors' torque–speed line at the joint speeds now
            # clipped into ± limit (never an empty range: past the no-load speed the line lies
            # outside the band, and the current limit holds)
            lo, hi = torque_speed_range(robot, v[act])
            sim.model.actuator_forcerange[:, 0] = np.clip(lo, -limit, limit)
            sim.model.actuator_forcerange[:, 1] = np.clip(hi, -limit, limit)
            out["lo"][k], out["hi"][k] = sim.model.actuator_forcerange[:, 0], sim.model.actuator_forcerange[:, 1]
        mj.mj_step2(sim.model, sim.data)
        out["tau"][k] = sim.data.actuator_force[:nu]
        out["fc"][k] = sim.contact_forces()
        if out["fell_at"] is not None:
            break
    return out


def replay(result, cycles: int = 2, settings: ReplaySettings = ReplaySettings(), perturbation=None) -> Replay:
    """Simulate `cycles` gait cycles of a solved result in MuJoCo (feedforward torques + joint
    PD on the plan, motors torque-limited) and judge it. perturbation: a
    `gaitopt.verify.perturb.Perturbation` applied to the simulated robot (None: the nominal
    model, checked against Pinocchio). Returns a Replay (report dict and time series).
    CannotReplay when the model cannot be simulated."""
    if isinstance(cycles, bool) or not isinstance(cycles, (int, np.integer)) or cycles < 1:
        raise InputError(f"cycles must be a whole number ≥ 1, got {cycles!r}", field="cycles")
    robot, problem, traj = result.robot, result.problem, result.trajectory
    coords = list(robot.coordinates)
    if "base_x" not in coords:
        raise CannotReplay(f"robot {robot.name} has a fixed base: nothing walks")
    slope = float(problem.slope)
    surface = surface_of(problem)
    reach = terrain_reach(result, surface, cycles, extent=TERRAIN_EXTENT)
    if reach.cycles < cycles:  # past a stair's end or the replay's ground: no verdict on the gait
        raise CannotReplay(reach_message(reach, cycles, problem, extent=TERRAIN_EXTENT))
    q0, v0 = traj.phases[0].q[0], traj.phases[0].v[0]
    sim = build_model(robot, slope=slope, friction=float(problem.constraints.friction), traj=traj,
                      settings=settings, q_gains=q0, check=perturbation is None, surface=surface,
                      problem=problem)
    if perturbation is not None:
        perturbation.apply(sim)
    pl = _reference(result, cycles, settings.timestep)
    ref, point_on, f_plan, feet = pl["ref"], pl["point_on"], pl["f_plan"], pl["feet"]
    sim.set_state(q0, v0)
    kp_t, kd_t = _gains(sim, point_on, pl["foot_of"], len(feet), settings)
    h_plan = base_height_above_ground(problem, robot, ref["q"])
    tilt_idx = [coords.index(c) for c in ("base_pitch", "base_roll") if c in coords]
    tilt_plan = float(np.abs(ref["q"][:, tilt_idx]).max())

    def fallen(q):
        low = base_height_above_ground(problem, robot, q) < settings.fall_height_fraction * h_plan.min()
        return not np.all(np.isfinite(q)) or low or np.abs(q[tilt_idx]).max() > tilt_plan + settings.fall_tilt

    delay = 0 if perturbation is None else int(round(perturbation.delay_s / settings.timestep))
    s = _simulate(sim, settings, ref, kp_t, kd_t, fallen, delay)
    sl = slice(0, s["last"] + 1)
    t = pl["t"][sl]
    f_sim = np.zeros((len(t), len(feet), 3))
    for ci in range(len(robot.contacts)):
        f_sim[:, pl["foot_of"][ci]] += s["fc"][sl, ci]
    touching = s["fc"][sl] @ sim.ground_normal > 0.0
    fell_at = None if s["fell_at"] is None else float(pl["t"][s["fell_at"]])
    series = {"time": t, "q_plan": ref["q"][sl], "q_sim": s["q"][sl], "v_plan": ref["v"][sl], "v_sim": s["v"][sl],
              "tau_plan": ref["tau"][sl], "tau_sim": s["tau"][sl], "tau_lower": s["lo"][sl], "tau_upper": s["hi"][sl], "force_plan": f_plan[sl], "force_sim": f_sim,
              "feet": feet, "coordinates": coords, "actuated": list(robot.actuated)}
    report = judge(result, sim, settings, cycles, series, s["pts"][sl], point_on[sl], touching, fell_at,
                   h_plan, tilt_plan)
    return Replay(report["verified"], report, series)
