"""The source papers' calibration checks and the TITAN-VIII walking-posture study, on gaitopt's
symbolic dynamics (`SymbolicDynamics`) with prescribed motions (no optimisation).

* `equilibrium_forces`: contact forces that make the base rows of the equations of motion hold
  (minimum-norm: with more than three feet the split is statically indeterminate);
* `statics_torques`: joint torques from statics alone — minus the moment about each joint's axis
  of the loads outboard of it (link weights and contact forces);
* `feet_fixed_ik`: leg joint angles that put the contact points on given targets;
* `prescribed_crawl`: the TITAN-VIII crawl of Endo, Arikawa, Hirose (ICRA 2011): body at
  constant height and speed, stance feet fixed on the ground, cycloid swings, one leg at a time
  (HL, FL, HR, FR), in a walking posture (`POSTURES`); joint torques by inverse dynamics with the
  equilibrium forces, and the time-averaged absolute mechanical power (the abs_power cost).

    from gaitopt import calibration as cal
    robot = go.load_robot("titan8")
    crawl = cal.prescribed_crawl(robot, cal.POSTURES["A"])
    crawl["mean_abs_power_W"]
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .dynamics import SymbolicDynamics


def inverse_dynamics(sd: SymbolicDynamics, q, v, a, forces) -> np.ndarray:
    """gaitopt's generalised forces M a + C + G − Σ Jᵀ f (nv,); forces (nc, 3) world [N]."""
    return np.array(sd.inverse_dynamics(q, v, a, np.asarray(forces, float).ravel())).ravel()


def equilibrium_forces(robot, sd: SymbolicDynamics, q, v, a, active=None) -> tuple:
    """Minimum-norm contact forces (nc, 3) [N] of the points in `active` (bool (nc,), default
    all) that make the base rows of the equations of motion hold (nothing actuates the base);
    and the base residual left (n_base,), zero when the points can carry the base wrench."""
    nb = len(robot.base_coordinates)
    nc = len(robot.contacts)
    active = np.ones(nc, dtype=bool) if active is None else np.asarray(active, dtype=bool)
    h = inverse_dynamics(sd, q, v, a, np.zeros((nc, 3)))
    J = np.array(sd.contact_jacobian(q))                      # (3 nc, nv)
    rows = np.flatnonzero(np.repeat(active, 3))
    f = np.zeros(3 * nc)
    if len(rows):
        f[rows] = np.linalg.lstsq(J[rows, :nb].T, h[:nb], rcond=None)[0]
    f = f.reshape(nc, 3)
    return f, inverse_dynamics(sd, q, v, a, f)[:nb]


def statics_torques(robot, q, forces) -> np.ndarray:
    """τ_j = −axis_j · Σ (p − o_j) × F over the weights of the links outboard of joint j and the
    contact forces (nc, 3) on them, for every joint (revolute) coordinate; (nv,) N·m, base rows 0.
    Uses only Pinocchio's forward kinematics, no dynamics algorithm."""
    model = robot.model
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    pin.computeJointJacobians(model, data, q)
    g = model.gravity.linear
    tau = np.zeros(robot.nv)
    for name in robot.joints:
        j = model.getJointId(name)
        o = data.oMi[j].translation
        axis = pin.getJointJacobian(model, data, j, pin.LOCAL_WORLD_ALIGNED)[3:, model.joints[j].idx_v]
        sub = set(model.subtrees[j])
        moment = np.zeros(3)
        for b in sub:
            moment += np.cross(data.oMi[b].act(model.inertias[b].lever) - o, model.inertias[b].mass * g)
        for ci, cp in enumerate(robot.contacts):
            if model.frames[cp.frame_id].parentJoint in sub:
                moment += np.cross(data.oMf[cp.frame_id].act(cp.point) - o, forces[ci])
        tau[model.joints[j].idx_v] = -axis @ moment
    return tau


def feet_fixed_ik(robot, sd: SymbolicDynamics, q_guess, targets, iters: int = 50, tol: float = 1e-12):
    """Joint angles that put every contact point on its world target (nc, 3) [m], the base
    coordinates kept at q_guess's (Newton steps, minimum-norm when the legs are redundant).
    Returns q (nq,); raises RuntimeError if the points miss their targets by more than 1e-9 m."""
    nb = len(robot.base_coordinates)
    q = np.array(q_guess, float)
    zero = np.zeros(robot.nv)
    for _ in range(iters):
        r = (np.array(sd.contact_kinematics(q, zero, zero)[0]).T - targets).ravel()
        if np.abs(r).max() < tol:
            return q
        q[nb:] -= np.linalg.lstsq(np.array(sd.contact_jacobian(q))[:, nb:], r, rcond=None)[0]
    r = (np.array(sd.contact_kinematics(q, zero, zero)[0]).T - targets).ravel()
    if np.abs(r).max() > 1e-9:
        raise RuntimeError(f"feet_fixed_ik: contact points {np.abs(r).max():.2e} m from their targets")
    return q


# ------------------------------------------------------------------ TITAN-VIII postures


@dataclass(frozen=True)
class Posture:
    """A TITAN-VIII walking posture: where each foot stands, at mid-stance, relative to its leg.

    reach: horizontal distance [m] from the thigh joint J2 to the foot, along the leg (the thigh
    is 0.2 m long: 0.2 puts the shank vertical); forward: shift [m] of every foot along the
    walking direction, front feet forward and hind feet backward. The body stays at the
    standing height (feet 0.243 m below the hips, the source's Z = −0.243 m)."""

    name: str
    reach: float
    forward: float = 0.0
    description: str = ""


# The source gives the postures' foot positions only in a figure (titan8.yaml: X, Y null); A is
# the gravitationally decoupled standard posture, B–D are chosen here: each leaves the shank
# tilted, so that J2 and J3 both carry the weight.
POSTURES = {
    "A": Posture("A", 0.20, 0.0, "standard posture: shank vertical under the knee (gravitationally decoupled)"),
    "B": Posture("B", 0.26, 0.0, "feet 0.06 m further out: shank tilted outward"),
    "C": Posture("C", 0.15, 0.0, "feet 0.05 m further in: shank tilted inward"),
    "D": Posture("D", 0.26, 0.06, "feet 0.06 m further out and 0.06 m further forward/backward"),
}
CRAWL_ORDER = ("HL", "FL", "HR", "FR")      # swing order of problems/titan8_crawl.yaml


def _nominal_feet(robot, posture: Posture, height: float) -> dict:
    """Body-frame foot positions at mid-stance: foot → (3,) m."""
    m = robot.model
    out = {}
    for foot in robot.feet:
        hip = m.jointPlacements[m.getJointId(f"{foot}_hip")]          # J1 in the body frame
        j2 = m.jointPlacements[m.getJointId(f"{foot}_thigh")]         # J2 in the J1 frame
        p = hip.act(j2.translation + np.array([posture.reach, 0.0, -height]))
        p[0] += posture.forward if foot.startswith("F") else -posture.forward
        out[foot] = p
    return out


def prescribed_crawl(robot, posture: Posture, *, period: float = 4.8, speed: float = 0.05,
                     swing_height: float = 0.05, samples: int = 480, order=CRAWL_ORDER) -> dict:
    """The source's crawl in a posture, on a titan8-like robot (point feet named like its legs).

    The body moves along x at `speed` [m/s] at the standing height, level; each leg swings for
    period/4 s in `order` along a cycloid (height `swing_height` m, arriving at rest) and stands
    the rest of the period; a stance foot stays where it landed, the stroke centred on the
    posture's foot position. Joint angles by `feet_fixed_ik`, velocities and accelerations by
    central differences (`samples` per period), contact forces by `equilibrium_forces` on the
    standing feet, torques by inverse dynamics.

    Returns time (T,) s, q, v, a (T, nv), tau (T, nu) N·m, f (T, nc, 3) N, stance (T, nc) bool,
    power (T, nu) W (τ·ω per joint), mean_abs_power_W = (1/T)∫ Σ|τ ω| dt (the abs_power cost),
    min_normal_force_N (smallest normal force of a standing foot), base_residual (largest).
    """
    sd = SymbolicDynamics.of_robot(robot)
    height = float(robot.standing_q[robot.index("base_z")])
    nominal = _nominal_feet(robot, posture, height)
    swing = period / len(order)
    stride = speed * period
    half_stroke = speed * (period - swing) / 2
    dt = period / samples
    times = np.arange(-1, samples + 1) * dt

    def foot_at(foot, t):
        t0 = order.index(foot) * swing                 # this leg's swing start within the cycle
        cycle = np.floor((t - t0) / period)
        tc = t - t0 - cycle * period
        x_land = speed * (t0 + swing + cycle * period) + nominal[foot][0] + half_stroke
        if tc < swing:
            s = tc / swing
            x = x_land - stride + stride * (s - np.sin(2 * np.pi * s) / (2 * np.pi))
            return np.array([x, nominal[foot][1], swing_height * (1 - np.cos(2 * np.pi * s)) / 2]), False
        return np.array([x_land, nominal[foot][1], 0.0]), True

    q = robot.standing_q.copy()
    ix = robot.index("base_x")
    qs, stance = [], []
    for t in times:
        q = q.copy()
        q[ix] = speed * t
        placed = [foot_at(c.foot, t) for c in robot.contacts]
        q = feet_fixed_ik(robot, sd, q, np.array([p for p, _ in placed]))
        qs.append(q)
        stance.append([on for _, on in placed])
    qs, stance = np.array(qs), np.array(stance)[1:-1]
    v = (qs[2:] - qs[:-2]) / (2 * dt)
    a = (qs[2:] - 2 * qs[1:-1] + qs[:-2]) / dt ** 2
    q = qs[1:-1]
    idx = robot.actuated_index
    tau, forces, residual = [], [], 0.0
    for k in range(samples):
        f, res = equilibrium_forces(robot, sd, q[k], v[k], a[k], stance[k])
        residual = max(residual, float(np.abs(res).max()))
        forces.append(f)
        tau.append(inverse_dynamics(sd, q[k], v[k], a[k], f)[idx])
    tau, forces = np.array(tau), np.array(forces)
    power = tau * v[:, idx]
    return {"time": times[1:-1], "q": q, "v": v, "a": a, "tau": tau, "f": forces, "stance": stance,
            "power": power, "mean_abs_power_W": float(np.abs(power).sum(axis=1).mean()),
            "min_normal_force_N": float(forces[..., 2][stance].min()), "base_residual": residual}
