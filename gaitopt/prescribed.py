"""Prescribed gaits: the joint torques and powers of a body and foot motion given in advance.

The walking-posture study of TITAN-VIII (Endo, Arikawa, Hirose, ICRA 2011) compares postures on
one prescribed crawl, not on optimised gaits: the body moves at constant height and speed, the
support feet stay on the ground, each swing foot follows a cycloid. Here the joint motion
follows from inverse kinematics of that motion and the torques from inverse dynamics with
the support forces that have the least tangential component the motion allows (three feet
in support are statically indeterminate; the choice is the one a compliant, non-pushing
contact makes). Nothing is optimised, so postures are compared on the same motion.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .point_kinematics import _point_jacobians, place_contacts


@dataclass
class PrescribedGait:
    """Samples of one cycle of a prescribed gait (n samples, uniform in time).

    t (n,) s; q, v, a (n, nv); tau (n, nu) N·m of the actuated joints; f (n, nc, 3) world
    contact forces N; stance (n, nc) bool; power (n, nu) W = τ·q̇ per actuated joint.
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    tau: np.ndarray
    f: np.ndarray
    stance: np.ndarray
    period: float
    power: np.ndarray

    @property
    def average_abs_power(self) -> float:
        """P̄ = (1/T) ∫ Σ_i |τ_i q̇_i| dt [W] (rectangle rule on the periodic samples)."""
        return float(np.abs(self.power).sum(axis=1).mean())


def _cycloid(s: np.ndarray, length: float, height: float):
    """Forward and vertical displacement of a cycloid swing at progress s ∈ [0, 1] [m]."""
    x = length * (s - np.sin(2 * np.pi * s) / (2 * np.pi))
    z = height * 0.5 * (1.0 - np.cos(2 * np.pi * s))
    return x, z


def stroke_centres(robot, foot_offset, base_height: float, feet=None) -> dict:
    """Foot → the middle of its stroke (3,) [m] relative to the base origin (body frame at the
    standing posture, no rotation): its leg's first joint (the hip) plus foot_offset (dx, dy),
    dy outwards (mirrored for feet whose hip is at negative y), at z = −base_height."""
    model, data = robot.model, robot.model.createData()
    pin.framesForwardKinematics(model, data, robot.standing_q.copy())
    base = np.array([robot.standing_q[robot.index(c)] for c in ("base_x", "base_y", "base_z")])
    centre = {}
    for foot in feet if feet is not None else robot.feet:
        c = robot.contact(robot.feet[foot].contacts[0])
        joint = model.frames[c.frame_id].parentJoint
        while model.parents[joint] > 0 and model.names[model.parents[joint]] not in robot.base_coordinates:
            joint = model.parents[joint]
        hip = data.oMi[joint].translation - base
        side = 1.0 if hip[1] >= 0 else -1.0
        centre[foot] = np.array([hip[0] + foot_offset[0], hip[1] + side * foot_offset[1], -base_height])
    return centre


def crawl(robot, *, speed: float, period: float, swing_order, foot_offset, base_height: float,
          swing_height: float, samples: int = 480, iterations: int = 50) -> PrescribedGait:
    """A crawl gait of a quadruped, prescribed as in the TITAN-VIII posture study.

    speed m/s and period s of the cycle; swing_order: feet in swing order, each swinging for
    period/len(order) (duty factor 1 − 1/len(order)); foot_offset (dx, dy) m: the middle of
    each foot's stroke relative to its hip (the first joint's origin), dy outwards (mirrored
    for right feet, which sit at negative y); base_height m; swing_height m of the cycloid.
    The body moves along x at constant height with no rotation; feet in support stay where
    they landed. Returns `PrescribedGait` with `samples` samples of one cycle.
    """
    model, data = robot.model, robot.model.createData()
    names = [c.name for c in robot.contacts]
    feet = list(swing_order)
    if sorted(feet) != sorted(robot.feet) or any(robot.feet[f].kind != "point" for f in feet):
        raise ValueError(f"swing_order must list every point foot of {robot.name} once: {sorted(robot.feet)}")
    nf = len(feet)
    t_swing = period / nf
    stroke = speed * (period - t_swing)      # body advance while a foot supports [m]
    stride = speed * period                  # foot advance during its swing [m]

    q0 = robot.standing_q.copy()
    centre = stroke_centres(robot, foot_offset, base_height, feet)

    if samples % nf:
        raise ValueError(f"samples must be a multiple of the number of feet ({nf})")
    t = np.arange(samples) * period / samples
    ib = [robot.index(c) for c in ("base_x", "base_y", "base_z")]
    targets = np.zeros((samples, len(names), 3))
    stance = np.zeros((samples, len(names)), bool)
    for i_f, foot in enumerate(feet):
        ci = names.index(robot.feet[foot].contacts[0])
        k_since = (np.arange(samples) - i_f * (samples // nf)) % samples   # exact, in samples
        since = k_since * (period / samples)       # time since this foot's last lift-off
        swinging = k_since < samples // nf
        lift_t = t - since                         # when it lifted off (body then at speed·lift_t)
        lift_x = speed * lift_t + centre[foot][0] - stroke / 2
        land_x = speed * (lift_t + t_swing) + centre[foot][0] + stroke / 2   # = lift_x + stride
        dx, dz = _cycloid(np.clip(since / t_swing, 0.0, 1.0), stride, swing_height)
        # in support: where it landed after its last lift-off
        targets[:, ci, 0] = np.where(swinging, lift_x + dx, land_x)
        targets[:, ci, 1] = centre[foot][1]
        targets[:, ci, 2] = np.where(swinging, dz, 0.0)
        stance[:, ci] = ~swinging

    q = np.zeros((samples, robot.nv))
    qk = q0.copy()
    nb = len(robot.base_coordinates)
    for k in range(samples):
        qk[:nb] = 0.0
        qk[ib] = [speed * t[k], 0.0, base_height]
        qk = place_contacts(robot, qk, targets[k], iterations)
        q[k] = qk
    # periodic central differences (the base advances by the stride over a cycle)
    h = period / samples
    shift = np.zeros(robot.nv)
    shift[ib[0]] = stride
    q_next = np.vstack([q[1:], q[:1] + shift])
    q_prev = np.vstack([q[-1:] - shift, q[:-1]])
    v = (q_next - q_prev) / (2 * h)
    a = (q_next - 2 * q + q_prev) / h ** 2
    tau, f = _support_dynamics(robot, model, data, q, v, a, stance)
    return PrescribedGait(t, q, v, a, tau, f, stance, period, tau * v[:, robot.actuated_index])


def _support_dynamics(robot, model, data, q, v, a, stance):
    """τ (n, nu) and support forces (n, nc, 3): the base's equations of motion hold with the
    least tangential (x, y) force, normal forces weighted 1e-3 as much."""
    n = len(q)
    nb = len(robot.base_coordinates)
    nc = len(robot.contacts)
    tau = np.zeros((n, len(robot.actuated)))
    f = np.zeros((n, nc, 3))
    weights = np.array([1.0, 1.0, 1e-3])
    for k in range(n):
        rnea = pin.rnea(model, data, q[k], v[k], a[k])
        J = _point_jacobians(model, data, robot, q[k])          # (nc, 3, nv)
        idx = np.flatnonzero(stance[k])
        A = np.hstack([J[i].T[:nb] for i in idx])                 # base rows: Σ Jᵀ f = rnea_base
        W = np.tile(weights, len(idx))
        # min Σ w f² subject to A f = b: f = W⁻¹Aᵀ (A W⁻¹ Aᵀ)⁻¹ b
        Winv = 1.0 / W
        lam = np.linalg.solve((A * Winv) @ A.T, rnea[:nb])
        fk = Winv * (A.T @ lam)
        full = rnea - sum(J[i].T @ fk[3 * j:3 * j + 3] for j, i in enumerate(idx))
        tau[k] = full[robot.actuated_index]
        f[k, idx] = fk.reshape(-1, 3)
    return tau, f
