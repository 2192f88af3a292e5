"""The source papers' calibration checks, on gaitopt's symbolic dynamics (`SymbolicDynamics`)
with prescribed motions (no optimisation); tests/test_calibration.py runs them.

* `equilibrium_forces`: contact forces that make the base rows of the equations of motion hold
  (minimum-norm: with more than three feet the split is statically indeterminate);
* `statics_torques`: joint torques from statics alone — minus the moment about each joint's axis
  of the loads outboard of it (link weights and contact forces);

The TITAN-VIII walking-posture study (a prescribed crawl) is `gaitopt.prescribed`; both put the
feet on their targets with `gaitopt.point_kinematics.place_contacts`.
"""
from __future__ import annotations

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
