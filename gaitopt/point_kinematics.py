"""Contact points' kinematics and inverse kinematics, the automatic guess's numerical kernels.

Small Pinocchio kinematics and numpy solves, called hundreds of times per guess: every numpy call
costs about a microsecond, so the frames and points are looked up once. (numpy's private LAPACK
kernels, called without np.linalg's per-call checks, saved 1.5 ms more on the heel–toe guess:
not worth depending on a private API.) Every solve's iterations and exported
bytes depend on the guess to the last bit: each kernel gives the bits of its straightforward
version (tests/test_guess.py).
"""
from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

def _point_positions(model, data, robot, q):
    pin.framesForwardKinematics(model, data, q)
    return np.array([data.oMf[c.frame_id].act(c.point) for c in robot.contacts])


def _point_jacobians(model, data, robot, q):
    """(n_contacts, 3, nv) world-aligned Jacobians of the contact points at q."""
    return _contact_kinematics(model, data, robot, q, positions=False)[1]


def _contact_kinematics(model, data, robot, q, positions=True):
    """Contact point positions (n_contacts, 3) [m] (None unless `positions`) and Jacobians
    (n_contacts, 3, nv) at q from one kinematics pass (see _ContactKinematics)."""
    return _ContactKinematics(robot, model, data)(q, positions)


class _ContactKinematics:
    """The contact points' positions and world-aligned Jacobians at q, for one robot and one
    Pinocchio data: J_p = J_lin − [R p]× J_ang from the frame's world-aligned Jacobian, the
    products in batched matmuls that are, per point, the same BLAS products as a loop's (R @ p
    with Pinocchio's column-major R; [r]× @ J_ang), so every bit is the straightforward
    version's (tests/test_guess.py). computeJointJacobians places the joints as
    forwardKinematics does, so the positions equal `_point_positions`'s bit for bit. The frames
    and points are looked up once: the inverse kinematics calls this hundreds of times per
    guess, and each numpy call costs about a microsecond."""

    def __init__(self, robot, model=None, data=None):
        self.model = robot.model if model is None else model
        self.data = self.model.createData() if data is None else data
        self.frames = list(dict.fromkeys(c.frame_id for c in robot.contacts))
        which = [self.frames.index(c.frame_id) for c in robot.contacts]  # each point's frame
        self.which = which if len(self.frames) < len(which) else None
        self.point_list = [c.point for c in robot.contacts]
        self.points = np.array(self.point_list, float).reshape(-1, 3, 1)
        # [r]× flattened row-major as r @ skew: one ±1 per off-diagonal entry, so exact
        self.skew = np.zeros((3, 9))
        for i, j, sign in [(2, 1, -1), (1, 2, 1), (2, 3, 1), (0, 5, -1), (1, 6, -1), (0, 7, 1)]:
            self.skew[i, j] = sign

    def __call__(self, q, positions=True):
        """(positions (n_contacts, 3) [m] or None, Jacobians (n_contacts, 3, nv)) at q (nq,)."""
        model, data, which = self.model, self.data, self.which
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        placements, RT, Jf = [], [], []
        for f in self.frames:
            M = data.oMf[f]
            placements.append(M)
            RT.append(M.rotation.T)
            Jf.append(pin.getFrameJacobian(model, data, f, pin.LOCAL_WORLD_ALIGNED))
        if which is not None:  # points sharing a frame
            placements, RT, Jf = [placements[i] for i in which], [RT[i] for i in which], [Jf[i] for i in which]
        R = np.array(RT).transpose(0, 2, 1)  # column-major, as Pinocchio's
        J = np.array(Jf)
        n = len(self.point_list)
        skew = ((R @ self.points).reshape(n, 3) @ self.skew).reshape(n, 3, 3)
        points = np.array([M.act(p) for M, p in zip(placements, self.point_list)]) if positions else None
        return points, J[:, :3] - skew @ J[:, 3:]


def leg_ik(robot, q_init, targets, q_ref, iterations=30, damping=1e-4, reg=1e-3, kinematics=None):
    """Joint angles (base fixed at q_init's base) placing contact points at targets (nc×3).

    Gauss–Newton with damping and a pull towards q_ref; joint limits clip each step.
    kinematics: a _ContactKinematics of the robot to reuse (default: a new one).
    """
    kin = kinematics or _ContactKinematics(robot)
    nb, nv = len(robot.base_coordinates), robot.nv
    q = q_init.copy()
    lo, hi = robot.lower[nb:] + 1e-6, robot.upper[nb:] - 1e-6
    ridge = (damping + reg) * np.eye(nv - nb)
    pull = q_ref[nb:]
    qj = q[nb:]  # the joints, a view of q
    for _ in range(iterations):
        points, J = kin(q)
        err = (targets - points).ravel()
        J = J.reshape(-1, nv)[:, nb:]
        H = J.T @ J + ridge
        g = J.T @ err + reg * (pull - qj)
        if not math.isfinite(H.sum() + g.sum()):  # any inf or NaN (entries are bounded by the limbs)
            break  # targets out of any reach: keep the last finite posture (the NLP judges it)
        dq = np.linalg.solve(H, g)  # H is positive definite (damping + reg > 0)
        # np.clip's bounds as np.maximum then np.minimum (equal for floats, half the overhead)
        np.minimum(np.maximum(qj + dq, lo, out=qj), hi, out=qj)
        if math.sqrt(dq @ dq) < 1e-10:  # np.linalg.norm of a vector, without its checks
            break
    return q


def place_contacts(robot, q, targets, iterations: int = 50, tol: float = 1e-12) -> np.ndarray:
    """Joint angles putting every contact point exactly on its world target (nc, 3) [m], the
    base coordinates kept at q's (Gauss–Newton, minimum-norm steps where the legs are
    redundant). Returns q (nq,); raises ValueError when a point stays more than 1e-9 m off
    (out of reach)."""
    model, data = robot.model, robot.model.createData()
    nb = len(robot.base_coordinates)
    q = np.array(q, float)
    for _ in range(iterations):
        err = (targets - _point_positions(model, data, robot, q)).ravel()
        if np.abs(err).max() < tol:
            return q
        J = _point_jacobians(model, data, robot, q).reshape(-1, robot.nv)[:, nb:]
        q[nb:] += np.linalg.lstsq(J, err, rcond=None)[0]
    err = (targets - _point_positions(model, data, robot, q)).ravel()
    if np.abs(err).max() > 1e-9:
        raise ValueError(f"contact points out of reach: {np.abs(err).max():.2e} m from their targets")
    return q
