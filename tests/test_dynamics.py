"""SymbolicDynamics against Pinocchio's numeric algorithms, for every robot of robots/.

Every robot of `available_robots()` is tested with the base mode of its robot.yaml and with
``fixed`` (the URDF root welded to the world). Each case builds its CasADi functions once
(module-scoped fixture) and evaluates them on N_STATES random states (seeded):

* q inside the joint limits where they are finite (else in [-pi, pi]); base translations in
  [-0.5, 0.5] m (base_z in [0, 1] m), base angles in [-1, 1] rad;
* v, a standard normal; contact forces normal with a scale of the robot's weight per contact.

Agreement is relative: |got - ref| <= RTOL * max(1, |ref|), element by element.
"""
from __future__ import annotations

import zlib

import casadi as ca
import numpy as np
import pinocchio as pin
import pytest

from gaitopt.dynamics import GRAVITY, SymbolicDynamics
from gaitopt.dynamics_reference import PinocchioCasadiDynamics, pinocchio_casadi_available
from gaitopt.robot import BASE_COORDINATES, available_robots, load_robot

pytestmark = pytest.mark.fast  # cheap: the whole file is in the fast subset

RTOL = 1e-9
N_STATES = 20
LWA = pin.LOCAL_WORLD_ALIGNED
REFLECT = np.array([1.0, -1.0, 1.0])  # the mirror reflection y -> -y of world vectors

# Mirror symmetry of the inverse dynamics (mirrored state -> mirrored torques) holds exactly
# only where the mass data are left/right symmetric. test_mirror_inverse_dynamics_symmetrised
# checks the map itself to RTOL on a copy of the model whose inertias are made symmetric;
# test_mirror_inverse_dynamics checks the robot's own data, with a looser tolerance for robots
# whose data are not symmetric (measured mirror error relative to the state's largest torque
# in brackets, 20 states, robot.yaml base / fixed):
MIRROR_TORQUE_RTOL = {
    # Fujitsu inspection report (EPFL thesis, appendix 12.1): each link of one physical unit was
    # measured; L/R masses differ (LEG_JOINT4 links by 0.155 g, ARM_JOINT3 links by 2.4 g) and
    # the waist/head centres of mass are off the x-z plane.  [2.0e-4 / 5.1e-4]
    "hoap2": 2e-3,
    "hoap2_sagittal": 2e-3,  # same data, lateral joints and arms locked  [1.3e-5 / 4.3e-4]
    # anymal.urdf: base body CoM y = 0.18 mm and non-mirrored products of inertia (0.018 kg m^2);
    # HAA/HFE link CoMs mirror only to 0.1 mm.  [2.5e-4 / 4.0e-5]
    "anymal_c": 1e-3,
    # solo12.urdf: the HFE (upper leg) CoMs of left and right legs mirror only to 27.5 um.
    # [4.1e-6 / 3.1e-5]
    "solo12": 1e-4,
    # bolt.urdf: HAA link masses differ by 1.5 mg, HAA/HFE CoMs mirror to 27.5 um.
    # [9.3e-6 / 2.9e-5]
    "bolt": 1e-4,
    # go2.urdf (example-robot-data): the base inertia has products ixy = 1.2166e-4 and
    # iyz = -3.12e-5 kg m^2 (not mirror-symmetric); the legs mirror exactly.  [1.4e-5 / 0]
    "go2": 1e-4,
    # g1_29dof_rev_1_0.urdf: torso_link CoM y = 0.346 mm (the locked waist and arms merge it into
    # the pelvis body: CoM y 0.14 mm of 19 kg), shoulder pitch origins mirror to 10 um.
    # [4.9e-4 / 2.4e-5]
    "g1": 2e-3,
}


# ----------------------------------------------------------------------------------- helpers


def close(got, ref, what, rtol=RTOL):
    """Assert |got - ref| <= rtol * max(1, |ref|) elementwise, with a useful message."""
    got = np.asarray(got, dtype=float)
    ref = np.asarray(ref, dtype=float)
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    err = np.abs(got - ref) / np.maximum(1.0, np.abs(ref))
    worst = float(np.max(err)) if err.size else 0.0
    assert np.all(np.isfinite(got)), f"{what}: non-finite values {got}"
    assert worst <= rtol, (f"{what}: relative error {worst:.3e} > {rtol:.0e} at index "
                           f"{np.unravel_index(np.argmax(err), err.shape)}: got {got.ravel()[np.argmax(err)]!r}, "
                           f"pinocchio {ref.ravel()[np.argmax(err)]!r}")


def num(x):
    """casadi DM (or a list of them) -> numpy; column vectors become 1-D."""
    a = np.array(x, dtype=float)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    return a


def random_states(robot, n, seed):
    rng = np.random.default_rng(seed)
    nv = robot.nv
    lo, hi = robot.lower.copy(), robot.upper.copy()
    for i, c in enumerate(robot.coordinates):
        if c in BASE_COORDINATES["3d"]:
            if c == "base_z":
                lo[i], hi[i] = 0.0, 1.0
            elif c in ("base_x", "base_y"):
                lo[i], hi[i] = -0.5, 0.5
            else:
                lo[i], hi[i] = -1.0, 1.0
        elif not (np.isfinite(lo[i]) and np.isfinite(hi[i]) and lo[i] < hi[i]):
            lo[i], hi[i] = -np.pi, np.pi
    weight = sum(robot.model.inertias[j].mass for j in range(robot.model.njoints)) * GRAVITY
    fscale = weight / max(1, len(robot.contacts))
    states = []
    for _ in range(n):
        q = rng.uniform(lo, hi)
        v = rng.standard_normal(nv)
        a = rng.standard_normal(nv)
        f = fscale * rng.standard_normal(3 * len(robot.contacts))
        states.append((q, v, a, f))
    return states


def contact_frame_model(robot):
    """A copy of robot.model with one OP_FRAME at every contact point (on the foot frame's
    parent joint, axes of the foot frame). Returns (model, data, [frame ids])."""
    model = pin.Model(robot.model)
    ids = []
    for c in robot.contacts:
        fr = model.frames[c.frame_id]
        placement = pin.SE3(fr.placement.rotation, fr.placement.act(np.asarray(c.point, float)))
        frame = pin.Frame(f"gaitopt_contact_{c.name}", fr.parentJoint, c.frame_id, placement, pin.OP_FRAME)
        ids.append(model.addFrame(frame, False))
    return model, model.createData(), ids


def pin_fext(model, data, robot, q, forces):
    """World-frame contact forces at the contact points -> pin.Force per joint, joint frame."""
    pin.forwardKinematics(model, data, q)
    fext = [pin.Force.Zero() for _ in range(model.njoints)]
    for i, c in enumerate(robot.contacts):
        fr = model.frames[c.frame_id]
        j = fr.parentJoint
        r = fr.placement.act(np.asarray(c.point, float))  # point in joint coordinates
        F = data.oMi[j].rotation.T @ forces[3 * i:3 * i + 3]
        fext[j] = fext[j] + pin.Force(F, np.cross(r, F))
    return fext


def contact_sets(robot):
    """{label: contact indices}: all points of the first foot, of it and a second foot (its
    mirror partner when there is one) and, for heel/toe feet, the first foot's heel alone."""
    feet = list(robot.feet)
    first = feet[0]
    sets = {f"foot {first}": [robot.contact_index(n) for n in robot.feet[first].contacts]}
    second = None
    if robot.mirror is not None and robot.mirror.foot_pairs.get(first, first) != first:
        second = robot.mirror.foot_pairs[first]
    elif len(feet) > 1:
        second = feet[1]
    if second is not None:
        names = robot.feet[first].contacts + robot.feet[second].contacts
        sets[f"feet {first}+{second}"] = [robot.contact_index(n) for n in names]
    if len(robot.feet[first].contacts) > 1:  # heel/toe feet: one point alone (full rank in 3-D)
        heel = robot.feet[first].contacts[0]
        sets[f"point {heel}"] = [robot.contact_index(heel)]
    return sets


# ----------------------------------------------------------------------------------- cases


def _cases():
    out = []
    for name in available_robots():
        out.append(pytest.param((name, None), id=f"{name}-yaml"))
        out.append(pytest.param((name, "fixed"), id=f"{name}-fixed"))
    return out


class Case:
    """One (robot, base) with its CasADi functions (built once, on first use) and states."""

    def __init__(self, name, base):
        self.robot = load_robot(name, base=base)
        self.dyn = SymbolicDynamics.of_robot(self.robot)
        self.pmodel, self.pdata, self.cframes = contact_frame_model(self.robot)
        seed = zlib.crc32(f"{name}/{self.robot.base}".encode())
        self.states = random_states(self.robot, N_STATES, seed)
        self._cache = {}

    def fn(self, key, build):
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]


@pytest.fixture(scope="module", params=_cases())
def case(request):
    name, base = request.param
    c = Case(name, base)
    if base == "fixed" and load_robot(name).base == "fixed":
        pytest.skip("robot.yaml already has base: fixed (tested as -yaml)")
    if base == "fixed" and any(c.pmodel.frames[ct.frame_id].parentJoint == 0 for ct in c.robot.contacts):
        pytest.skip("a contact point is welded to the world in the fixed-base model")
    return c


# ------------------------------------------------------------------------ dynamics vs pinocchio


def test_inverse_dynamics_with_contact_forces(case):
    m, d, dyn = case.pmodel, case.pdata, case.dyn
    f_id = dyn.inverse_dynamics
    for k, (q, v, a, f) in enumerate(case.states):
        ref = pin.rnea(m, d, q, v, a, pin_fext(m, d, case.robot, q, f))
        close(num(f_id(q, v, a, f)), ref, f"inverse_dynamics state {k}")


def test_rigid_inverse_dynamics(case):
    """The links' dynamics alone: Pinocchio's rnea on the model without armature, and
    inverse_dynamics minus armature ⊙ a (what the transcription's rows add back)."""
    m, d, dyn = case.pmodel, case.pdata, case.dyn
    bare = pin.Model(m)
    bare.armature[:] = 0.0
    bd = bare.createData()
    arm = np.asarray(m.armature, float)
    for k, (q, v, a, f) in enumerate(case.states):
        got = num(dyn.rigid_inverse_dynamics(q, v, a, f))
        close(got, pin.rnea(bare, bd, q, v, a, pin_fext(bare, bd, case.robot, q, f)), f"rigid state {k}")
        close(got + arm * a, num(dyn.inverse_dynamics(q, v, a, f)), f"rigid + armature state {k}")


def test_rnea(case):
    m, d = case.pmodel, case.pdata
    for k, (q, v, a, _) in enumerate(case.states):
        close(num(case.dyn.rnea(q, v, a)), pin.rnea(m, d, q, v, a), f"rnea state {k}")


def test_mass_matrix(case):
    m, d = case.pmodel, case.pdata
    for k, (q, _, _, _) in enumerate(case.states):
        M = pin.crba(m, d, q)
        M = np.triu(M) + np.triu(M, 1).T
        got = num(case.dyn.mass_matrix(q))
        close(got, M, f"mass_matrix state {k}")
        close(got, got.T, f"mass_matrix symmetry state {k}")


def test_mass_times(case):
    """M(q) dv − Σ J_cᵀ f_c in one RNEA pass (the impact rows) = Pinocchio's rnea(q, 0, dv, f)
    minus its gravity rnea(q, 0, 0)."""
    m, d, dyn = case.pmodel, case.pdata, case.dyn
    q, dv, f = ca.SX.sym("q", m.nq), ca.SX.sym("dv", m.nv), ca.SX.sym("f", 3 * len(dyn.contacts))
    fn = ca.Function("mass_times", [q, dv, f], [dyn.mass_times(q, dv, f)])
    zero = np.zeros(m.nv)
    for k, (qk, _, a, fk) in enumerate(case.states):
        ref = pin.rnea(m, d, qk, zero, a, pin_fext(m, d, case.robot, qk, fk)) - pin.rnea(m, d, qk, zero, zero)
        close(num(fn(qk, a, fk)), ref, f"mass_times state {k}")


def test_bias_forces(case):
    m, d = case.pmodel, case.pdata
    for k, (q, v, _, _) in enumerate(case.states):
        close(num(case.dyn.bias_forces(q, v)), pin.nonLinearEffects(m, d, q, v), f"bias_forces state {k}")


def test_frame_placement(case):
    m, d, robot = case.pmodel, case.pdata, case.robot
    fids = sorted({c.frame_id for c in robot.contacts})
    fns = {fid: case.fn(("placement", fid), lambda fid=fid: case.dyn.frame_placement(fid)) for fid in fids}
    for k, (q, _, _, _) in enumerate(case.states):
        pin.forwardKinematics(m, d, q)
        pin.updateFramePlacements(m, d)
        for fid, fn in fns.items():
            p, R = fn(q)
            close(num(p), d.oMf[fid].translation, f"placement {m.frames[fid].name} p state {k}")
            close(num(R), d.oMf[fid].rotation, f"placement {m.frames[fid].name} R state {k}")


def test_point_kinematics(case):
    m, d, robot = case.pmodel, case.pdata, case.robot
    fns = [case.fn(("pk", i), lambda c=c: case.dyn.point_kinematics(c.frame_id, c.point))
           for i, c in enumerate(robot.contacts)]
    for k, (q, v, a, _) in enumerate(case.states):
        pin.forwardKinematics(m, d, q, v, a)
        pin.updateFramePlacements(m, d)
        allp, alldp, allddp = (num(x) for x in case.dyn.contact_kinematics(q, v, a))
        for i, (c, fn, cf) in enumerate(zip(robot.contacts, fns, case.cframes)):
            p, dp, ddp = (num(x) for x in fn(q, v, a))
            ref_p = d.oMf[cf].translation
            ref_dp = pin.getFrameVelocity(m, d, cf, LWA).linear
            ref_ddp = pin.getFrameClassicalAcceleration(m, d, cf, LWA).linear
            close(p, ref_p, f"point {c.name} position state {k}")
            close(dp, ref_dp, f"point {c.name} velocity state {k}")
            close(ddp, ref_ddp, f"point {c.name} classical acceleration state {k}")
            close(allp[:, i], ref_p, f"contact_kinematics {c.name} p state {k}")
            close(alldp[:, i], ref_dp, f"contact_kinematics {c.name} dp state {k}")
            close(allddp[:, i], ref_ddp, f"contact_kinematics {c.name} ddp state {k}")


def test_point_and_contact_jacobian(case):
    m, d, robot = case.pmodel, case.pdata, case.robot
    fns = [case.fn(("pj", i), lambda c=c: case.dyn.point_jacobian(c.frame_id, c.point))
           for i, c in enumerate(robot.contacts)]
    for k, (q, _, _, _) in enumerate(case.states):
        refs = [pin.computeFrameJacobian(m, d, q, cf, LWA)[:3] for cf in case.cframes]
        for c, fn, ref in zip(robot.contacts, fns, refs):
            close(num(fn(q)), ref, f"point_jacobian {c.name} state {k}")
        close(num(case.dyn.contact_jacobian(q)), np.vstack(refs), f"contact_jacobian state {k}")


def test_com(case):
    m, d = case.pmodel, case.pdata
    for k, (q, v, _, _) in enumerate(case.states):
        pin.centerOfMass(m, d, q, v)
        c, vc = case.dyn.com(q, v)
        close(num(c), d.com[0], f"com state {k}")
        close(num(vc), d.vcom[0], f"vcom state {k}")


def test_energies(case):
    """Kinetic energy of the bodies vs computeKineticEnergy (on the model without armature:
    Pinocchio 4.1's armature term in computeKineticEnergy counts only some joints), plus the
    reflected rotor inertias ½ Σ armature v²; in total it equals ½ vᵀ M v with M from crba."""
    m, d = case.pmodel, case.pdata
    bare = pin.Model(m)
    bare.armature[:] = 0.0
    bd = bare.createData()
    arm = np.asarray(m.armature, float)
    for k, (q, v, _, _) in enumerate(case.states):
        T = float(case.dyn.kinetic_energy(q, v))
        close(T, pin.computeKineticEnergy(bare, bd, q, v) + 0.5 * arm @ v ** 2, f"kinetic_energy state {k}")
        M = pin.crba(m, d, q)
        M = np.triu(M) + np.triu(M, 1).T
        close(T, 0.5 * v @ M @ v, f"kinetic_energy = ½ vᵀMv state {k}")
        close(float(case.dyn.potential_energy(q)), pin.computePotentialEnergy(m, d, q),
              f"potential_energy state {k}")


def test_centroidal_momentum(case):
    m, d = case.pmodel, case.pdata
    for k, (q, v, _, _) in enumerate(case.states):
        hg = pin.computeCentroidalMomentum(m, d, q, v)
        close(num(case.dyn.centroidal_momentum(q, v)), np.concatenate([hg.linear, hg.angular]),
              f"centroidal_momentum state {k}")


def _stacked_jacobian(case, q, idx):
    return np.vstack([pin.computeFrameJacobian(case.pmodel, case.pdata, q, case.cframes[i], LWA)[:3] for i in idx])


@pytest.mark.parametrize("which", [0, 1, 2], ids=["one_foot", "two_feet", "one_point"])
def test_impact_map(case, which):
    """impact_map vs pin.impulseDynamics(model, data, q, v, J, r_coeff=0, damping=0).

    Where the stacked 3-D point Jacobian has dependent rows (sagittal models: every y row is
    zero; heel + toe of one rigid foot in 3-D: rotation about the heel-toe line is free;
    planar legs welded to the world) impact_map keeps an independent set of rows of its own;
    the velocity after impact is unique: the reference then uses an SVD-selected independent
    set of rows, and only v+ and J^T Λ (not Λ itself, whose split is not unique) are compared.
    """
    robot = case.robot
    sets = list(contact_sets(robot).items())
    if which >= len(sets):
        pytest.skip("no such contact set (single foot, or point feet: one point = one foot)")
    label, idx = sets[which]
    fn = case.fn(("impact", tuple(idx)), lambda: case.dyn.impact_map(idx))
    m, d = case.pmodel, case.pdata
    J0 = _stacked_jacobian(case, case.states[0][0], idx)
    deficient = np.linalg.matrix_rank(J0, tol=1e-9 * max(1.0, np.abs(J0).max())) < J0.shape[0]
    for k, (q, v, _, _) in enumerate(case.states):
        J = _stacked_jacobian(case, q, idx)
        if deficient:
            U, s, _ = np.linalg.svd(J)
            r = int(np.sum(s > 1e-9 * s[0]))
            Jr = U[:, :r].T @ J
        else:
            Jr = J
        v_ref = pin.impulseDynamics(m, d, q, v, Jr, 0.0, 0.0).copy()
        lam_ref = d.impulse_c.copy()
        v_plus, lam = (num(x) for x in fn(q, v))
        # impact_map solves the KKT system K = [[M, -J^T], [J, 0]] with CasADi's symbolic QR;
        # its error was measured at up to ~90 eps cond(K) (hexapod: cond(K) ~ 7e4, error
        # 1.1e-9, where Pinocchio's and an exact rational solve agree to 1e-13). The
        # tolerance is RTOL, widened to 1000 eps cond(K) for worse-conditioned states.
        M = pin.crba(m, d, q)
        M = np.triu(M) + np.triu(M, 1).T
        r = Jr.shape[0]
        cond = np.linalg.cond(np.block([[M, -Jr.T], [Jr, np.zeros((r, r))]]))
        tol = max(RTOL, 1000 * np.finfo(float).eps * cond)
        close(v_plus, v_ref, f"impact_map v+ ({label}) state {k} cond(K) {cond:.1e}", tol)
        close(J @ v_plus, np.zeros(J.shape[0]), f"contact velocity after impact ({label}) state {k}",
              tol * max(1.0, np.abs(v).max()))
        if deficient:
            close(J.T @ lam, Jr.T @ lam_ref, f"impact_map J^T impulse ({label}) state {k}", tol)
        else:
            close(lam, lam_ref, f"impact_map impulse ({label}) state {k}", tol)


# ------------------------------------------------------------------------------- mirror map


def _mirror(case):
    if case.robot.mirror is None:
        pytest.skip("robot.yaml has no mirror map")
    return case.robot.mirror


def test_mirror_is_an_involution(case):
    mir = _mirror(case)
    n = case.robot.nv
    assert sorted(mir.perm.tolist()) == list(range(n))
    assert np.array_equal(mir.perm[mir.perm], np.arange(n))
    assert np.array_equal(mir.sign[mir.perm], mir.sign)  # paired coordinates flip together
    assert np.array_equal(mir.contact_perm[mir.contact_perm], np.arange(len(case.robot.contacts)))
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, n))
    assert np.array_equal(mir.coordinates(mir.coordinates(x)), x)
    f = rng.standard_normal((5, 3 * len(case.robot.contacts)))
    assert np.array_equal(mir.forces(mir.forces(f)), f)


def test_mirror_kinematics(case):
    """Contact points of the mirrored state are the reflected partner points (exactly: the
    geometry is symmetric for every robot, hoap2 included), and so are their velocities."""
    mir = _mirror(case)
    ck = case.dyn.contact_kinematics
    for k, (q, v, a, _) in enumerate(case.states):
        p, dp, ddp = (num(x) for x in ck(q, v, a))
        pm, dpm, ddpm = (num(x) for x in ck(mir.coordinates(q), mir.coordinates(v), mir.coordinates(a)))
        for got, ref, what in ((pm, p, "position"), (dpm, dp, "velocity"), (ddpm, ddp, "acceleration")):
            close(got, ref[:, mir.contact_perm] * REFLECT[:, None], f"mirrored contact {what} state {k}")


def test_mirror_inverse_dynamics(case):
    """ID(mirror(q, v, a), mirror(f)) = mirror(ID(q, v, a, f)) with the robot's own data: to
    RTOL where the data are symmetric, else to MIRROR_TORQUE_RTOL relative to the largest
    torque of the state (the error then measures the data's asymmetry, not the numerics)."""
    mir = _mirror(case)
    fid = case.dyn.inverse_dynamics
    rtol = MIRROR_TORQUE_RTOL.get(case.robot.name)
    for k, (q, v, a, f) in enumerate(case.states):
        tau = num(fid(q, v, a, f))
        tau_m = num(fid(mir.coordinates(q), mir.coordinates(v), mir.coordinates(a), mir.forces(f)))
        if rtol is None:
            close(tau_m, mir.coordinates(tau), f"mirrored inverse dynamics state {k}")
        else:
            scale = np.abs(tau).max()
            err = np.abs(tau_m - mir.coordinates(tau)) / np.maximum(scale, np.abs(tau))
            assert err.max() <= rtol, f"mirrored inverse dynamics state {k}: {err.max():.3e} > {rtol}"


def symmetrised_model(robot):
    """A copy of robot.model whose body inertias are the mean of each body and the mirror image
    of its partner body (taken at q = 0, a mirror-symmetric configuration)."""
    model = pin.Model(robot.model)
    data = model.createData()
    pin.forwardKinematics(model, data, np.zeros(model.nq))
    D = np.diag(REFLECT)
    jid = [model.getJointId(c) for c in robot.coordinates]
    partner = {jid[i]: jid[k] for i, k in enumerate(robot.mirror.perm)}
    world = {j: data.oMi[j].act(model.inertias[j]) for j in range(1, model.njoints)}
    new = {}
    for j in range(1, model.njoints):
        Ij, Ik = world[j], world[partner[j]]
        mean = (pin.Inertia(0.5 * Ij.mass, Ij.lever, 0.5 * Ij.inertia)
                + pin.Inertia(0.5 * Ik.mass, D @ Ik.lever, 0.5 * D @ Ik.inertia @ D))
        new[j] = data.oMi[j].actInv(mean)
    for j, inertia in new.items():
        model.inertias[j] = inertia
    return model


def test_mirror_inverse_dynamics_symmetrised(case):
    """The mirror map itself, to RTOL: on the model with symmetrised inertias (identical to the
    robot's model where its data are symmetric) mirrored states give mirrored torques."""
    mir = _mirror(case)
    robot = case.robot
    if robot.name in MIRROR_TORQUE_RTOL:
        dyn = case.fn("symmetrised", lambda: SymbolicDynamics(symmetrised_model(robot),
                                                               [(c.frame_id, c.point) for c in robot.contacts]))
    else:
        dyn = case.dyn
    fid = dyn.inverse_dynamics
    for k, (q, v, a, f) in enumerate(case.states):
        tau = num(fid(q, v, a, f))
        tau_m = num(fid(mir.coordinates(q), mir.coordinates(v), mir.coordinates(a), mir.forces(f)))
        close(tau_m, mir.coordinates(tau), f"mirrored inverse dynamics (symmetrised inertias) state {k}")


# ----------------------------------------------------------------------- pinocchio.casadi backend


def test_pinocchio_casadi_backend(case):
    if not pinocchio_casadi_available():
        pytest.skip("pinocchio.casadi is not importable (the PyPI `pin` wheel has no CasADi bindings; "
                    "conda-forge or source builds do)")
    robot = case.robot
    pc = PinocchioCasadiDynamics.of_robot(robot)
    dyn = case.dyn
    for k, (q, v, a, f) in enumerate(case.states[:5]):
        close(num(pc.inverse_dynamics(q, v, a, f)), num(dyn.inverse_dynamics(q, v, a, f)), f"cpin inverse_dynamics {k}")
        close(num(pc.rnea(q, v, a)), num(dyn.rnea(q, v, a)), f"cpin rnea {k}")
        close(num(pc.mass_matrix(q)), num(dyn.mass_matrix(q)), f"cpin mass_matrix {k}")
        c1, v1 = pc.com(q, v)
        c2, v2 = dyn.com(q, v)
        close(num(c1), num(c2), f"cpin com {k}")
        close(num(v1), num(v2), f"cpin vcom {k}")
        close(num(pc.kinetic_energy(q, v)), num(dyn.kinetic_energy(q, v)), f"cpin kinetic_energy {k}")
        close(num(pc.potential_energy(q)), num(dyn.potential_energy(q)), f"cpin potential_energy {k}")
