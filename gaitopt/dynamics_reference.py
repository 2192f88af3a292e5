"""A second implementation of the rigid-body functions on ``pinocchio.casadi``, to test
`gaitopt.dynamics.SymbolicDynamics` against where that module exists (conda and source builds of
Pinocchio; the PyPI wheel has none)."""
from __future__ import annotations

from functools import cached_property

import casadi as ca
import numpy as np
import pinocchio as pin


def pinocchio_casadi_available() -> bool:
    """True where ``pinocchio.casadi`` can be imported (conda / source builds, not the PyPI wheel)."""
    try:
        import pinocchio.casadi  # noqa: F401  # why: optional, missing from the PyPI wheel
    except ImportError:
        return False
    return True


class PinocchioCasadiDynamics:
    """Alternative backend on ``pinocchio.casadi`` (same call signatures as SymbolicDynamics for
    inverse_dynamics, rnea, mass_matrix, com, kinetic_energy, potential_energy, contact_kinematics).

    Only usable where pinocchio.casadi exists; tests compare it with SymbolicDynamics there.
    """

    def __init__(self, model: pin.Model, contacts=()):
        import pinocchio.casadi as cpin  # why: optional, missing from the PyPI wheel
        self.cpin = cpin
        self.model = model
        self.nv = model.nv
        self.contacts = [(int(fid), np.asarray(pt, dtype=float)) for fid, pt in contacts]
        self.nc = len(self.contacts)
        self.cmodel = cpin.Model(model)
        self.cdata = self.cmodel.createData()
        self._q, self._v, self._a = (ca.SX.sym(s, self.nv) for s in "qva")
        self._f = ca.SX.sym("f", 3 * self.nc)

    @classmethod
    def of_robot(cls, robot):
        return cls(robot.model, [(c.frame_id, c.point) for c in robot.contacts])

    @cached_property
    def inverse_dynamics(self) -> ca.Function:
        cpin, q, v, a, f = self.cpin, self._q, self._v, self._a, self._f
        cpin.framesForwardKinematics(self.cmodel, self.cdata, q)
        tau = cpin.rnea(self.cmodel, self.cdata, q, v, a)
        for ic, (fid, pt) in enumerate(self.contacts):
            J = cpin.computeFrameJacobian(self.cmodel, self.cdata, q, fid, pin.LOCAL_WORLD_ALIGNED)
            R = self.cdata.oMf[fid].rotation
            r_world = R @ ca.DM(pt)
            Jp = J[:3, :] - ca.skew(r_world) @ J[3:, :]
            tau = tau - Jp.T @ f[3 * ic:3 * ic + 3]
        return ca.Function("inverse_dynamics", [q, v, a, f], [tau], ["q", "v", "a", "f"], ["tau"])

    @cached_property
    def rnea(self) -> ca.Function:
        cpin, q, v, a = self.cpin, self._q, self._v, self._a
        return ca.Function("rnea", [q, v, a], [cpin.rnea(self.cmodel, self.cdata, q, v, a)])

    @cached_property
    def mass_matrix(self) -> ca.Function:
        cpin, q = self.cpin, self._q
        M = cpin.crba(self.cmodel, self.cdata, q)
        M = ca.triu(M) + ca.triu(M, False).T
        return ca.Function("mass_matrix", [q], [M])

    @cached_property
    def com(self) -> ca.Function:
        cpin, q, v = self.cpin, self._q, self._v
        cpin.centerOfMass(self.cmodel, self.cdata, q, v)
        return ca.Function("com", [q, v], [self.cdata.com[0], self.cdata.vcom[0]])

    @cached_property
    def kinetic_energy(self) -> ca.Function:
        cpin, q, v = self.cpin, self._q, self._v
        return ca.Function("kinetic_energy", [q, v], [cpin.computeKineticEnergy(self.cmodel, self.cdata, q, v)])

    @cached_property
    def potential_energy(self) -> ca.Function:
        cpin, q = self.cpin, self._q
        return ca.Function("potential_energy", [q], [cpin.computePotentialEnergy(self.cmodel, self.cdata, q)])
