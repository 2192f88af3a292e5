"""The contact rows and the impact map of `gaitopt.dynamics.SymbolicDynamics`: a mixin its class
inherits (these methods use its kinematics, mass matrix and contact Jacobian)."""
from __future__ import annotations

import casadi as ca
import numpy as np

from .rigid_points import rigid_plan


class ContactRows:
    """`independent_contact_rows` and `impact_map` of SymbolicDynamics."""

    def independent_contact_rows(self, contact_indices):
        """S: the contact constraint rows of the listed points, independent ones only.

        Stacked point Jacobians are rank-deficient in two structural ways: a world axis the
        model cannot move along (sagittal models: every y row is zero), and several points on
        one rigid body (heel and toe of a foot, a sole's four corners: their velocities differ
        only by ω × r). The first point on a body contributes its three directions, a second
        the two perpendicular to the line r joining them, a third off that line the one normal
        to the plane of the three (what turns the body about the line), a further one none
        (`gaitopt.rigid_points.rigid_plan`); body-frame directions turned to the world, and rows
        that vanish at random states are dropped. Returns S (r × 3k) SX of q with J_rows = S J_c
        (J_c the stacked 3k × nv world point Jacobian).
        """
        q = self._q
        kin = self.kinematics(q)
        k = len(contact_indices)
        on_body = []  # (parent joint, point in its frame) per listed point
        for ci in contact_indices:
            fid, point = self.contacts[ci]
            fr = self.model.frames[fid]
            r = np.array(fr.placement.rotation) @ np.asarray(point, float) + np.array(fr.placement.translation)
            on_body.append((fr.parentJoint, r))
        cand = []
        for i, ((j, r), (n, earlier)) in enumerate(zip(on_body, rigid_plan(on_body))):
            if n:
                cand += self._rigid_rows(kin.R[j], i, r, [(e, on_body[e][1]) for e in earlier], k)
        S = ca.vertcat(*cand)
        # drop rows that vanish identically (checked numerically at random states)
        Jc = self._contact_rows_jacobian(contact_indices)
        rows_fn = ca.Function("rows", [q], [S @ Jc])
        rng = np.random.default_rng(0)
        norms = np.zeros(S.shape[0])
        for _ in range(3):
            R = np.asarray(rows_fn(rng.uniform(-1.0, 1.0, self.nv)))
            norms = np.maximum(norms, np.abs(R).max(axis=1))
        keep = [r for r in range(S.shape[0]) if norms[r] > 1e-12 * max(1.0, norms.max())]
        return S[keep, :]

    @staticmethod
    def _rigid_rows(R, i, r, before, k):
        """Rows (1 × 3k SX) point i at r (body frame) adds to the body's points `before`
        [(index, r)]: all three directions for the first; else directions e (body frame, turned to
        the world by R) of v_i − v_first: the two ⊥ the line to the first, or the normal of the
        plane through the first two and this one."""
        if not before:
            dirs = [None] * 3
        else:
            i0, r0 = before[0]
            d = (r - r0) / np.linalg.norm(r - r0)
            if len(before) == 1:
                e1 = np.cross(d, np.eye(3)[int(np.argmin(np.abs(d)))])
                e1 /= np.linalg.norm(e1)
                dirs = [e1, np.cross(d, e1)]
            else:
                nrm = np.cross(before[1][1] - r0, r - r0)
                dirs = [nrm / np.linalg.norm(nrm)]
        rows = []
        for ax, e in enumerate(dirs):
            row = ca.SX.zeros(1, 3 * k)
            if e is None:
                row[0, 3 * i + ax] = 1.0
            else:
                ew = R @ ca.DM(e)  # world direction
                row[0, 3 * i:3 * i + 3] = ew.T
                row[0, 3 * i0:3 * i0 + 3] = -ew.T
            rows.append(row)
        return rows

    def _contact_rows_jacobian(self, contact_indices):
        """J_c (3k × nv) SX of q: the listed points' rows of `contact_jacobian`."""
        rows = [3 * i + ax for i in contact_indices for ax in range(3)]
        return self.contact_jacobian(self._q)[rows, :]

    def impact_map(self, contact_indices) -> ca.Function:
        """(q, v⁻) → (v⁺, Λ): velocity after a perfectly inelastic impact on the given contacts.

        Solves M (v⁺ − v⁻) = J_rᵀ λ, J_r v⁺ = 0 with J_r = S J_c the independent rows of the
        stacked contact Jacobian (`independent_contact_rows`), so the system is regular even
        for sagittal models and two-point feet; v⁺ is then unique and equals Pinocchio's
        impulseDynamics. Λ = Sᵀ λ (3k,) world impulses [N·s] of the listed points (indices into
        self.contacts) with J_cᵀ Λ the generalised impulse. Where the points' impulses are not
        unique (two points on one foot), Λ is one valid split: the second point carries the
        impulse perpendicular to the heel–toe line, and an equal and opposite amount is added
        to the first. For large models prefer the implicit form inside an NLP (transcription).
        """
        q, v = self._q, self._v
        S = self.independent_contact_rows(contact_indices)
        Jr = S @ self._contact_rows_jacobian(contact_indices)
        M = self.mass_matrix(q)
        r = Jr.shape[0]
        K = ca.blockcat([[M, -Jr.T], [Jr, ca.SX.zeros(r, r)]])
        sol = ca.solve(K, ca.vertcat(M @ v, ca.SX.zeros(r)))
        return self._fn("impact_map", [q, v], [sol[:self.nv], S.T @ sol[self.nv:]], ["q", "v_minus"],
                        ["v_plus", "impulse"])
