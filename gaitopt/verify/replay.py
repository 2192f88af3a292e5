"""The replay: the plan's feedforward torques plus joint PD on the plan, simulated in MuJoCo."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..schedule import active_points
from ..terrain_io import base_height_above_ground, surface_of
from .judge import judge
from .settings import ReplaySettings, load_mujoco
from .sim_model import build_model


@dataclass
class Replay:
    """What `replay` returns. verified: True when the robot neither fell nor slipped and its
    base advance is within the distance tolerance; report: the JSON report (README
    "Verification in MuJoCo"); series: time series for plots — time (T,), q_plan, q_sim (T, nq),
    tau_plan, tau_sim (T, nu), force_plan, force_sim (T, n_feet, 3), feet (names)."""

    verified: bool
    report: dict
    series: dict = field(repr=False)




def replay(result, cycles: int = 2, settings: ReplaySettings = ReplaySettings()) -> Replay:
    """Simulate `cycles` gait cycles of a solved result in MuJoCo (feedforward torques + joint
    PD on the plan) and judge it. Returns a Replay (report dict and time series)."""
    mj = load_mujoco()
    if isinstance(cycles, bool) or not isinstance(cycles, (int, np.integer)) or cycles < 1:
        raise InputError(f"cycles must be a whole number ≥ 1, got {cycles!r}", field="cycles")
    robot, problem, traj = result.robot, result.problem, result.trajectory
    coords = list(robot.coordinates)
    if "base_x" not in coords:
        raise InputError(f"robot {robot.name} has a fixed base: nothing walks", field="base")
    slope = float(problem.slope)
    q0, v0 = traj.phases[0].q[0], traj.phases[0].v[0]
    sim = build_model(robot, slope=slope, friction=float(problem.constraints.friction), traj=traj,
                      settings=settings, q_gains=q0, surface=surface_of(problem))
    dt = settings.timestep
    n = int(round(cycles * traj.period / dt))
    t = np.arange(n + 1) * dt
    ref = traj.sample(t)
    feet = list(robot.feet)
    point_on = np.array([[c.name in active_points(robot, traj.phase_modes()[str(ph)]) for c in robot.contacts]
                         for ph in ref["phase"]])
    nc = len(robot.contacts)
    foot_of = np.array([feet.index(c.foot) for c in robot.contacts])
    f_plan = np.zeros((n + 1, len(feet), 3))
    for ci in range(nc):
        f_plan[:, foot_of[ci]] += ref["f"][:, ci]

    sim.set_state(q0, v0)
    # gains per sample: a joint with a standing foot below it gets its share of the stance gains
    foot_on = np.zeros((n + 1, len(feet)), dtype=bool)
    for ci in range(nc):
        foot_on[:, foot_of[ci]] |= point_on[:, ci]
    stance = (foot_on.astype(int) @ sim.joint_feet.T.astype(int)) > 0          # (T, nu)
    n_on = np.maximum(foot_on.sum(axis=1, keepdims=True), 1)
    kp_t = np.where(stance, np.maximum(sim.kp, sim.kp_stance / n_on), sim.kp)
    kd_t = np.where(stance, np.maximum(sim.kd, sim.kd_stance / n_on), sim.kd)
    ctrl = ref["tau"] + kp_t * ref["q"][:, robot.actuated_index] + kd_t * ref["v"][:, robot.actuated_index]
    q_sim = np.zeros((n + 1, robot.nq))
    tau_sim = np.zeros((n + 1, len(robot.actuated)))
    fc_sim = np.zeros((n + 1, nc, 3))
    pts = np.zeros((n + 1, nc, 3))
    act_ids = np.arange(len(robot.actuated))
    fell_at = None
    h_plan = base_height_above_ground(problem, robot, ref["q"])
    tilt_idx = [coords.index(c) for c in ("base_pitch", "base_roll") if c in coords]
    tilt_plan = float(np.abs(ref["q"][:, tilt_idx]).max())
    last = n
    for k in range(n + 1):
        # step1: kinematics and contacts of the current state; step2: forces and integration,
        # so that the torques and contact forces read after it belong to the state read before
        mj.mj_step1(sim.model, sim.data)
        q_sim[k] = sim.data.qpos[sim.qpos]
        pts[k] = sim.points()
        h = base_height_above_ground(problem, robot, q_sim[k])
        if not np.all(np.isfinite(q_sim[k])) or h < settings.fall_height_fraction * h_plan.min() \
                or np.abs(q_sim[k, tilt_idx]).max() > tilt_plan + settings.fall_tilt:
            fell_at, last = float(t[k]), k
        sim.data.ctrl[:] = ctrl[k]
        sim.model.actuator_biasprm[:, 1] = -kp_t[k]
        sim.model.actuator_biasprm[:, 2] = -kd_t[k]
        mj.mj_step2(sim.model, sim.data)
        tau_sim[k] = sim.data.actuator_force[act_ids]
        fc_sim[k] = sim.contact_forces()
        if fell_at is not None:
            break
    sl = slice(0, last + 1)
    t, q_sim, tau_sim, fc_sim, pts = t[sl], q_sim[sl], tau_sim[sl], fc_sim[sl], pts[sl]
    f_sim = np.zeros((len(t), len(feet), 3))
    for ci in range(nc):
        f_sim[:, foot_of[ci]] += fc_sim[:, ci]
    touching = fc_sim @ sim.ground_normal > 0.0
    q_plan, tau_plan, f_plan, point_on = ref["q"][sl], ref["tau"][sl], f_plan[sl], point_on[sl]
    report = judge(result, sim, settings, cycles, t, q_plan, q_sim, tau_plan, tau_sim, f_plan, f_sim, pts,
                    point_on, touching, fell_at, h_plan, tilt_plan)
    series = {"time": t, "q_plan": q_plan, "q_sim": q_sim, "tau_plan": tau_plan, "tau_sim": tau_sim,
              "force_plan": f_plan, "force_sim": f_sim, "feet": feet, "coordinates": coords,
              "actuated": list(robot.actuated)}
    return Replay(report["verified"], report, series)
