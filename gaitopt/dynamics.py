"""Symbolic rigid-body dynamics (CasADi SX) built by walking a Pinocchio model tree.

The PyPI wheel of Pinocchio has no ``pinocchio.casadi``; these functions are gaitopt's own and
are tested against Pinocchio's numeric algorithms (tests/test_dynamics.py) to 1e-9.

Conventions (Pinocchio's): spatial vectors are (linear, angular); the velocity and acceleration
of joint i are expressed in joint i's frame; gravity is g = (0, 0, -9.81) m/s² in the world;
contact forces are world-frame forces (N) applied at contact points. Every joint is 1-DOF
(revolute or prismatic, any axis), so q̇ = v and q, v, a all have size nv.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import casadi as ca
import numpy as np
import pinocchio as pin

# the pinocchio.casadi cross-check moved to its own module; its names stay importable from here
from .dynamics_reference import PinocchioCasadiDynamics, pinocchio_casadi_available  # noqa: F401
from .dynamics_impacts import ContactRows

GRAVITY = 9.81


def _cross(a, b):
    # ca.cross builds the same six products as an element-by-element vertcat, in one call
    # (much faster from Python: building solo12's expressions spent most of its time here)
    return ca.cross(a, b)


def _const(x):
    """A model number as a CasADi constant; expressions (a parametrised model, e.g.
    `gaitopt.limb_lengths.LimbDynamics`) pass through."""
    return x if isinstance(x, ca.SX) else ca.DM(x)


def _skew(u):
    return np.array([[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]])


@dataclass(frozen=True)
class _Joint:
    """What the recursion needs of one 1-DOF joint (numbers only)."""

    parent: int
    index: int  # position of the joint's coordinate in q and v
    placement_R: np.ndarray
    placement_p: np.ndarray
    revolute: bool
    axis: np.ndarray
    mass: float
    com: np.ndarray
    inertia_com: np.ndarray


def _joint_table(model: pin.Model) -> list:
    table = [None]
    for j in range(1, model.njoints):
        jm = model.joints[j]
        if jm.nq != 1 or jm.nv != 1:
            raise ValueError(f"joint {model.names[j]} has nq={jm.nq}; only 1-DOF joints are supported")
        jd = jm.createData()
        jm.calc(jd, np.zeros(1))
        S = np.array(jd.S).reshape(6)
        lin, ang = S[:3], S[3:]
        revolute = np.linalg.norm(ang) > 0.5
        if revolute and np.linalg.norm(lin) > 1e-12:
            raise ValueError(f"joint {model.names[j]}: helical joints are not supported")
        axis = ang if revolute else lin
        M = model.jointPlacements[j]
        I = model.inertias[j]
        table.append(_Joint(model.parents[j], jm.idx_v, np.array(M.rotation), np.array(M.translation), revolute,
                            np.array(axis), float(I.mass), np.array(I.lever), np.array(I.inertia)))
    return table


def _rotation(axis: np.ndarray, angle, K=None, KK=None):
    """Rotation matrix about a unit axis (Rodrigues), with exact zeros for aligned axes.
    K, KK: ca.DM(_skew(axis)) and ca.DM(_skew(axis) @ _skew(axis)) if already made."""
    c, s = ca.cos(angle), ca.sin(angle)
    if K is None:
        K = _skew(axis)
        K, KK = ca.DM(K), ca.DM(K @ K)
    return ca.DM.eye(3) + s * K + (1 - c) * KK


@dataclass(frozen=True)
class _JointConstants:
    """The CasADi constants of one joint's numbers (_Joint), made once per model: a ca.DM made
    from Python costs about 25 µs and every recursion pass used them afresh (the same values,
    so the same expression nodes)."""

    R: ca.DM  # placement_R
    p: object  # placement_p (an expression in a parametrised model)
    R_axis: ca.DM  # placement_R @ axis
    S_lin: ca.DM
    S_ang: ca.DM
    K: ca.DM  # skew(axis)
    KK: ca.DM  # skew(axis)²
    com: object
    inertia_com: object

    @classmethod
    def of(cls, J: "_Joint") -> "_JointConstants":
        K = _skew(J.axis)
        return cls(ca.DM(J.placement_R), _const(J.placement_p), ca.DM(J.placement_R @ J.axis),
                   ca.DM(J.axis * (0.0 if J.revolute else 1.0)), ca.DM(J.axis * (1.0 if J.revolute else 0.0)),
                   ca.DM(K), ca.DM(K @ K), _const(J.com), _const(J.inertia_com))


class Kinematics:
    """Placements, velocities and accelerations of every joint for one (q, v, a).

    R[j], p[j]: world rotation (3×3) and position (3,) of joint j; vel[j] = (v_lin, ω) and
    acc[j] = (a_lin, α) spatial velocity / acceleration in joint j's frame (acc without gravity).
    """

    def __init__(self, R, p, vel, acc, liR, lip):
        self.R, self.p, self.vel, self.acc = R, p, vel, acc
        self.liR, self.lip = liR, lip


def _stored(build):
    """A cached_property whose Function a SymbolicDynamics loads from its `store`
    (gaitopt.function_store: the same Function, kept on disk by the model's content) when it has
    one, else builds. Subclasses (LimbDynamics: functions of extra inputs) always build."""
    def get(self):
        if self.store is None or type(self) is not SymbolicDynamics:
            return build(self)
        return self.store.function(build.__name__, lambda: build(self))

    get.__name__, get.__doc__ = build.__name__, build.__doc__
    return cached_property(get)


class SymbolicDynamics(ContactRows):
    """CasADi functions of one Pinocchio model's dynamics.

    model: a pinocchio.Model whose joints are all 1-DOF; contacts: list of (frame_id, point (3,))
    defining the contact points whose world forces enter `inverse_dynamics` (in this order).
    Every public function below returns a cached `casadi.Function` of SX expressions.
    """

    def __init__(self, model: pin.Model, contacts=()):
        self.model = model
        # a gaitopt.function_store.FunctionStore of this model, or None: every Function built here
        self.store = None
        self.nv = model.nv
        self.contacts = [(int(fid), np.asarray(pt, dtype=float)) for fid, pt in contacts]
        self.nc = len(self.contacts)
        self._joints = _joint_table(model)
        self._constants = {}  # joint → (its _Joint, _JointConstants): remade if the _Joint is replaced
        self._own_kinematics = {}  # (v is None, a is None) → (the _Joints, Kinematics of self._q, …)
        self._impact_rows = {}  # (perm, sign) of the incoming velocity's map → `impact_rows`
        # Mass of the moving bodies; a body welded to the world (joint 0) has no dynamics and,
        # as in Pinocchio, is not part of the centre of mass.
        self.total_mass = float(sum(model.inertias[j].mass for j in range(1, model.njoints)))
        self._q = ca.SX.sym("q", self.nv)
        self._v = ca.SX.sym("v", self.nv)
        self._a = ca.SX.sym("a", self.nv)
        self._f = ca.SX.sym("f", 3 * self.nc)

    # every function here is a plain SX Function of its declared inputs (no extra inputs):
    # expressions of `symbols` may be wrapped into new Functions (Context.shared)
    plain = True

    @property
    def symbols(self) -> tuple:
        """(q, v) (nv,) SX symbols the functions here are built on."""
        return self._q, self._v

    @classmethod
    def of_robot(cls, robot) -> "SymbolicDynamics":
        """Dynamics of a `gaitopt.robot.Robot` with its contact points in `robot.contacts` order."""
        return cls(robot.model, [(c.frame_id, c.point) for c in robot.contacts])

    def _frame_offset(self, frame_id: int, point):
        """Position (3,) of a point fixed on a frame (point in the frame's coordinates) in the
        frame's parent joint frame [m]."""
        fr = self.model.frames[frame_id]
        return np.array(fr.placement.rotation) @ np.asarray(point, float) + np.array(fr.placement.translation)

    # ---------------------------------------------------------------- recursions on expressions

    def _consts(self, j: int) -> _JointConstants:
        """Joint j's constants (a subclass may replace self._joints[j]: LimbDynamics)."""
        J = self._joints[j]
        hit = self._constants.get(j)
        if hit is None or hit[0] is not J:
            hit = self._constants[j] = (J, _JointConstants.of(J))
        return hit[1]

    def kinematics(self, q, v=None, a=None) -> Kinematics:
        """Forward kinematics on expressions; v and a may be None (then only placements), or v
        alone (at rest: accelerations only, vel entries None).
        Of this object's own symbols (self._q, …), made once: the inverse dynamics and the
        contact kinematics share one pass (the same expression nodes either way)."""
        own = q is self._q and (v is None or v is self._v) and (a is None or a is self._a)
        if not own:
            return self._kinematics(q, v, a)
        key, joints = (v is None, a is None), tuple(self._joints)
        hit = self._own_kinematics.get(key)
        if hit is None or any(x is not y for x, y in zip(hit[0], joints)):
            hit = self._own_kinematics[key] = (joints, self._kinematics(q, v, a))
        return hit[1]

    def _kinematics(self, q, v, a) -> Kinematics:
        n = self.model.njoints
        R, p = [ca.SX.eye(3)] + [None] * (n - 1), [ca.SX.zeros(3)] + [None] * (n - 1)
        zero = ca.SX.zeros(3)
        vel = [(zero, zero)] + [None] * (n - 1)
        acc = [(zero, zero)] + [None] * (n - 1)
        liR, lip = [None] * n, [None] * n
        for j in range(1, n):
            J, C = self._joints[j], self._consts(j)
            k = J.index
            if J.revolute:
                Rl = C.R @ _rotation(J.axis, q[k], C.K, C.KK)
                pl = C.p
            else:
                Rl = C.R
                pl = C.p + C.R_axis * q[k]
            liR[j], lip[j] = Rl, pl
            R[j] = R[J.parent] @ Rl
            p[j] = p[J.parent] + R[J.parent] @ pl
            if v is None:
                if a is not None:  # at rest: what v = 0 leaves once CasADi drops x·0 and x + 0
                    al_p, al_w = acc[J.parent]
                    acc[j] = (Rl.T @ (al_p - _cross(pl, al_w)) + C.S_lin * a[k], Rl.T @ al_w + C.S_ang * a[k])
                continue
            vl_p, w_p = vel[J.parent]
            # actInv of the parent velocity into this joint's frame
            w = Rl.T @ w_p
            vl = Rl.T @ (vl_p - _cross(pl, w_p))
            vJ_l, vJ_w = C.S_lin * v[k], C.S_ang * v[k]
            vel[j] = (vl + vJ_l, w + vJ_w)
            if a is None:
                continue
            al_p, al_w = acc[J.parent]
            aw = Rl.T @ al_w
            al = Rl.T @ (al_p - _cross(pl, al_w))
            # v_j × (S q̇): the velocity-product term of a joint with constant S
            vj_l, vj_w = vel[j]
            c_l = _cross(vj_w, vJ_l) + _cross(vj_l, vJ_w)
            c_w = _cross(vj_w, vJ_w)
            acc[j] = (al + C.S_lin * a[k] + c_l, aw + C.S_ang * a[k] + c_w)
        return Kinematics(R, p, vel, acc, liR, lip)

    def _inertia_times(self, j, vl, w):
        """Spatial inertia of body j times a motion (vl, ω): returns (f_lin, f_ang)."""
        J, C = self._joints[j], self._consts(j)
        c = C.com
        f_lin = J.mass * (vl - _cross(c, w))
        f_ang = C.inertia_com @ w + _cross(c, f_lin)
        return f_lin, f_ang

    def rnea_expr(self, q, v, a, forces=None, gravity=True, armature=True):
        """τ = M(q) a + C(q, v) + G(q) − Σ J_cᵀ f_c as an expression (nv,).

        v: None for v = 0 (the same expression, without building the terms that vanish);
        forces: world-frame contact forces, (3·nc,) in self.contacts order, or None;
        armature: False leaves out the rotor inertia reflected through the gears (the model's
        armature, in M), for a caller that adds it itself (`rigid_inverse_dynamics`).
        """
        n = self.model.njoints
        kin = self.kinematics(q, v, a)
        g = ca.DM([0.0, 0.0, GRAVITY if gravity else 0.0])
        f = [None] * n
        for j in range(1, n):
            al, aw = kin.acc[j]
            # Gravity as a fictitious upward acceleration of the world, in joint j's frame.
            al = al + kin.R[j].T @ g
            i_l, i_a = self._inertia_times(j, al, aw)
            if v is None:
                f[j] = [i_l, i_a]
                continue
            vl, w = kin.vel[j]
            h_l, h_a = self._inertia_times(j, vl, w)
            # f = I a + v ×* (I v)
            f[j] = [i_l + _cross(w, h_l), i_a + _cross(w, h_a) + _cross(vl, h_l)]
        if forces is not None:
            for ic, (fid, point) in enumerate(self.contacts):
                fr = self.model.frames[fid]
                j = fr.parentJoint
                r = _const(self._frame_offset(fid, point))
                F = kin.R[j].T @ forces[3 * ic:3 * ic + 3]
                f[j][0] = f[j][0] - F
                f[j][1] = f[j][1] - _cross(r, F)
        tau = [None] * self.nv
        for j in range(n - 1, 0, -1):
            J, C = self._joints[j], self._consts(j)
            fl, fa = f[j]
            tau[J.index] = ca.dot(C.S_lin, fl) + ca.dot(C.S_ang, fa)
            if J.parent > 0:
                Rl, pl = kin.liR[j], kin.lip[j]
                Fl = Rl @ fl
                f[J.parent][0] = f[J.parent][0] + Fl
                f[J.parent][1] = f[J.parent][1] + Rl @ fa + _cross(pl, Fl)
        # rotor inertia reflected through each gear (Pinocchio's model.armature): a torque
        # armature_i·a_i on the joint's own axis, as Pinocchio's rnea and crba add it
        arm = np.asarray(self.model.armature, float) if armature else np.zeros(0)
        for i in np.flatnonzero(arm):
            tau[int(i)] = tau[int(i)] + float(arm[i]) * a[int(i)]
        return ca.vertcat(*tau)

    def point_expr(self, kin: Kinematics, frame_id: int, point, order: int = 0):
        """World position (order 0), velocity (1) or classical acceleration (2) of a point
        fixed on a frame; point (3,) in the frame's coordinates. Returns a (3,) expression."""
        fr = self.model.frames[frame_id]
        j = fr.parentJoint
        r = _const(self._frame_offset(frame_id, point))
        if order == 0:
            return kin.p[j] + kin.R[j] @ r
        vl, w = kin.vel[j]
        v_pt = vl + _cross(w, r)
        if order == 1:
            return kin.R[j] @ v_pt
        al, aw = kin.acc[j]
        return kin.R[j] @ (al + _cross(aw, r) + _cross(w, v_pt))

    def _com_terms(self, kin: Kinematics, with_velocity: bool):
        m_tot = self.total_mass
        com = ca.SX.zeros(3)
        vcom = ca.SX.zeros(3)
        for j in range(1, self.model.njoints):
            J = self._joints[j]
            if J.mass == 0.0:
                continue
            c = _const(J.com)
            com += J.mass * (kin.p[j] + kin.R[j] @ c)
            if with_velocity:
                vl, w = kin.vel[j]
                vcom += J.mass * (kin.R[j] @ (vl + _cross(w, c)))
        return com / m_tot, vcom / m_tot

    # ------------------------------------------------------------------ casadi Functions

    def _fn(self, name, inputs, outputs, in_names, out_names):
        return ca.Function(name, inputs, outputs, in_names, out_names)

    @_stored
    def inverse_dynamics(self) -> ca.Function:
        """(q, v, a, f) → τ (nv,): τ = M a + C + G − Σ_c J_cᵀ f_c, f (3·nc,) world forces [N]."""
        q, v, a, f = self._q, self._v, self._a, self._f
        return self._fn("inverse_dynamics", [q, v, a, f], [self.rnea_expr(q, v, a, f)],
                        ["q", "v", "a", "f"], ["tau"])

    @_stored
    def rigid_inverse_dynamics(self) -> ca.Function:
        """(q, v, a, f) → `inverse_dynamics` without the armature term (nv,): the links' dynamics
        alone, the same for every gear ratio and motor of the robot (a gear sweep's cases share
        it, and its compiled derivatives: gaitopt.codegen); τ = this + armature ⊙ a."""
        q, v, a, f = self._q, self._v, self._a, self._f
        return self._fn("rigid_inverse_dynamics", [q, v, a, f], [self.rnea_expr(q, v, a, f, armature=False)],
                        ["q", "v", "a", "f"], ["tau"])

    @_stored
    def rnea(self) -> ca.Function:
        """(q, v, a) → τ (nv,) without contact forces (Pinocchio's rnea)."""
        q, v, a = self._q, self._v, self._a
        return self._fn("rnea", [q, v, a], [self.rnea_expr(q, v, a)], ["q", "v", "a"], ["tau"])

    @_stored
    def mass_matrix(self) -> ca.Function:
        """q → M(q) (nv×nv), the Jacobian of the gravity-free, velocity-free RNEA in a."""
        q, a = self._q, self._a
        tau = self.rnea_expr(q, None, a, gravity=False)
        return self._fn("mass_matrix", [q], [ca.jacobian(tau, a)], ["q"], ["M"])

    def mass_times(self, q, dv, forces=None):
        """M(q) dv − Σ J_cᵀ f_c (nv,) as an expression: the gravity-free, velocity-free RNEA at
        acceleration dv; forces as in rnea_expr (world-frame, (3·nc,), or None). Equal to
        mass_matrix(q) @ dv − contact_jacobian(q)ᵀ f in one RNEA pass instead of the two
        matrices (solo12's junction rows: 7 400 graph nodes with the matrices, 2 800 with this;
        docs/speed.md, "Whole process, second pass")."""
        forces = ca.SX.zeros(3 * self.nc) if forces is None else forces
        return self._mass_times(q, dv, forces)

    def impact_rows(self, perm=None, sign=None) -> ca.Function:
        """(q, v⁺, v⁻, f) → M(q)(v⁺ − S v⁻) − Σ J_cᵀ f_c (nv,): an inelastic impact's rows with
        the velocity before it given as another knot's v, S = diag(sign)·P a signed permutation
        (v⁻ mirrored: a half cycle's junction) or the identity (perm None). One Function per S
        and robot, called by every touchdown: a shared block (gaitopt.nlp `con_call`) whose
        derivatives are built once, not inside the junction rows (solo12's trot: 40 ms of set-up)."""
        key = (None, None) if perm is None else (tuple(int(i) for i in perm), tuple(float(x) for x in sign))
        fn = self._impact_rows.get(key)
        if fn is None:
            q, vp, vm, f = self._q, self._v, ca.SX.sym("v_minus", self.nv), self._f
            before = vm if perm is None else ca.DM(list(key[1])) * vm[list(key[0])]
            name = "impact_rows" if perm is None else "impact_rows_mirrored"
            fn = self._fn(name, [q, vp, vm, f], [self.mass_times(q, vp - before, f)],
                          ["q", "v_plus", "v_minus", "f"], ["rows"])
            self._impact_rows[key] = fn
        return fn

    @_stored
    def _mass_times(self) -> ca.Function:
        # a Function (not the bare expression) so that subclasses' extra inputs are filled the
        # way every other function's are (LimbDynamics: the limb scale)
        q, dv, f = self._q, self._a, self._f
        return self._fn("mass_times", [q, dv, f], [self.rnea_expr(q, None, dv, f, gravity=False)],
                        ["q", "dv", "f"], ["tau"])

    @_stored
    def bias_forces(self) -> ca.Function:
        """(q, v) → C(q, v) + G(q) (nv,) (Pinocchio's nonLinearEffects)."""
        q, v = self._q, self._v
        return self._fn("bias_forces", [q, v], [self.rnea_expr(q, v, ca.SX.zeros(self.nv))],
                        ["q", "v"], ["h"])

    def frame_placement(self, frame_id: int) -> ca.Function:
        """q → (p (3,), R (3×3)): world placement of a frame (Pinocchio's data.oMf)."""
        q = self._q
        kin = self.kinematics(q)
        fr = self.model.frames[frame_id]
        j = fr.parentJoint
        R = kin.R[j] @ ca.DM(np.array(fr.placement.rotation))
        p = kin.p[j] + kin.R[j] @ _const(self._frame_offset(frame_id, np.zeros(3)))
        return self._fn(f"placement_{fr.name}", [q], [p, R], ["q"], ["p", "R"])

    def point_kinematics(self, frame_id: int, point) -> ca.Function:
        """(q, v, a) → (p, ṗ, p̈) (3,) each: world position [m], velocity [m/s] and classical
        acceleration [m/s²] of a point (3,) fixed on a frame, in the frame's coordinates."""
        q, v, a = self._q, self._v, self._a
        kin = self.kinematics(q, v, a)
        out = [self.point_expr(kin, frame_id, point, k) for k in range(3)]
        return self._fn("point_kinematics", [q, v, a], out, ["q", "v", "a"], ["p", "dp", "ddp"])

    def point_jacobian(self, frame_id: int, point) -> ca.Function:
        """q → J (3×nv): world-aligned linear Jacobian of a point fixed on a frame, ṗ = J v."""
        q, v = self._q, self._v
        kin = self.kinematics(q, v)
        dp = self.point_expr(kin, frame_id, point, 1)
        return self._fn("point_jacobian", [q], [ca.jacobian(dp, v)], ["q"], ["J"])

    @_stored
    def contact_kinematics(self) -> ca.Function:
        """(q, v, a) → (p, ṗ, p̈), each 3×nc: all contact points, world frame."""
        q, v, a = self._q, self._v, self._a
        kin = self.kinematics(q, v, a)
        cols = [[self.point_expr(kin, fid, pt, k) for fid, pt in self.contacts] for k in range(3)]
        out = [ca.horzcat(*c) if c else ca.SX(3, 0) for c in cols]
        return self._fn("contact_kinematics", [q, v, a], out, ["q", "v", "a"], ["p", "dp", "ddp"])

    @_stored
    def contact_jacobian(self) -> ca.Function:
        """q → J (3·nc × nv): stacked world-aligned point Jacobians of all contact points."""
        q, v = self._q, self._v
        kin = self.kinematics(q, v)
        dp = ca.vertcat(*[self.point_expr(kin, fid, pt, 1) for fid, pt in self.contacts])
        return self._fn("contact_jacobian", [q], [ca.jacobian(dp, v)], ["q"], ["J"])

    @_stored
    def com(self) -> ca.Function:
        """(q, v) → (c (3,), ċ (3,)): centre of mass position [m] and velocity [m/s]."""
        q, v = self._q, self._v
        c, vc = self._com_terms(self.kinematics(q, v), True)
        return self._fn("com", [q, v], [c, vc], ["q", "v"], ["com", "vcom"])

    @_stored
    def kinetic_energy(self) -> ca.Function:
        """(q, v) → T = ½ Σ_i v_iᵀ I_i v_i + ½ Σ_j armature_j v_j² [J] (bodies and reflected
        rotor inertias, as Pinocchio's computeKineticEnergy)."""
        q, v = self._q, self._v
        kin = self.kinematics(q, v)
        T = 0
        for j in range(1, self.model.njoints):
            vl, w = kin.vel[j]
            hl, ha = self._inertia_times(j, vl, w)
            T += 0.5 * (ca.dot(vl, hl) + ca.dot(w, ha))
        arm = np.asarray(self.model.armature, float)
        T += 0.5 * ca.dot(ca.DM(arm), v ** 2)
        return self._fn("kinetic_energy", [q, v], [T], ["q", "v"], ["T"])

    @_stored
    def potential_energy(self) -> ca.Function:
        """q → V = Σ_i m_i g z_com,i [J] (zero at z = 0, g = 9.81 m/s²)."""
        q = self._q
        c, _ = self._com_terms(self.kinematics(q), False)
        return self._fn("potential_energy", [q], [self.total_mass * GRAVITY * c[2]], ["q"], ["V"])

    @_stored
    def centroidal_momentum(self) -> ca.Function:
        """(q, v) → h_G (6,): linear momentum [kg·m/s] and angular momentum about the CoM
        [kg·m²/s], world axes (Pinocchio's computeCentroidalMomentum)."""
        q, v = self._q, self._v
        kin = self.kinematics(q, v)
        hl_o, ha_o = ca.SX.zeros(3), ca.SX.zeros(3)
        for j in range(1, self.model.njoints):
            vl, w = kin.vel[j]
            hl, ha = self._inertia_times(j, vl, w)
            Hl = kin.R[j] @ hl
            hl_o += Hl
            ha_o += kin.R[j] @ ha + _cross(kin.p[j], Hl)
        c, _ = self._com_terms(kin, False)
        return self._fn("centroidal_momentum", [q, v], [ca.vertcat(hl_o, ha_o - _cross(c, hl_o))],
                        ["q", "v"], ["h"])
