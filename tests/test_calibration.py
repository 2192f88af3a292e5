"""The source papers' calibration checks (docs/calibration.md), on gaitopt's own
symbolic dynamics (`SymbolicDynamics.inverse_dynamics`) against references computed without it
(gaitopt.calibration):

1. static standing: joint torques equal statics — for every joint, minus the moment about its
   axis of the loads outboard of it (link weights and foot forces); on TITAN-VIII each knee
   carries (m − m_lower_legs)·g/4 = 49.1 N (Endo, Arikawa, Hirose, ICRA 2011, Sec. III-A and
   footnote 2);
2. a slow vertical sinusoidal body motion on all feet: ∫ Σ τ q̇ dt over the rise equals the
   potential-energy gain, and over a full period it vanishes;
3. joint torques from the foot forces through the leg Jacobian transpose (Jacobian by finite
   differences of the foot position) equal inverse dynamics when the legs are massless.

Foot forces come from the base rows of the equations of motion (the minimum-norm solution:
statically indeterminate with more than three feet). Run with -s to see the measured figures.
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import gaitopt as go
from gaitopt.calibration import equilibrium_forces, inverse_dynamics, statics_torques
from gaitopt.point_kinematics import place_contacts

pytestmark = pytest.mark.fast  # cheap: the whole file is in the fast subset

G = 9.81
RTOL = 0.01                 # the papers' 1 %
TITAN_KNEE_FORCE = 49.1     # N, the TITAN-VIII paper's knee reaction (ICRA 2011, footnote 2; 49.05 rounded)


@pytest.fixture(scope="module")
def titan8():
    robot = go.load_robot("titan8")
    return robot, go.SymbolicDynamics.of_robot(robot)


@pytest.fixture(scope="module")
def hoap2():
    robot = go.load_robot("hoap2")
    return robot, go.SymbolicDynamics.of_robot(robot)


# ------------------------------------------------------------------------- 1. static standing


@pytest.mark.parametrize("which", ["titan8", "hoap2"])
def test_standing_torques_equal_statics(which, request):
    robot, sd = request.getfixturevalue(which)
    q, z = robot.standing_q, np.zeros(robot.nv)
    f, residual = equilibrium_forces(robot, sd, q, z, z)
    weight = robot.total_mass * G
    assert np.abs(residual).max() < 1e-9 * weight
    assert f[:, 2].sum() == pytest.approx(weight, rel=1e-9)
    tau = inverse_dynamics(sd, q, z, z, f)
    ref = statics_torques(robot, q, f)
    idx = robot.actuated_index
    scale = np.abs(ref[idx]).max()
    err = np.abs(tau[idx] - ref[idx])
    print(f"\n{which} standing: largest joint torque {scale:.4f} N·m, largest |ID − statics| {err.max():.2e} N·m")
    # every joint within 1 % of its own statics torque, or 1 % of the largest where it is ~0
    assert np.all(err <= RTOL * np.maximum(np.abs(ref[idx]), 0.01 * scale)), \
        {robot.coordinates[i]: (tau[i], ref[i]) for i in idx}


def test_titan8_knee_carries_the_body_weight_share(titan8):
    """Posture A (gravitationally decoupled): each foot carries m g/4, the force through each
    knee is the vertical (m − m_lower_legs)·g/4 = 49.1 N, and the knee torque vanishes."""
    robot, sd = titan8
    q, z = robot.standing_q, np.zeros(robot.nv)
    f, _ = equilibrium_forces(robot, sd, q, z, z)
    m = robot.total_mass
    shanks = [robot.model.getJointId(f"{leg}_knee") for leg in ("FL", "FR", "HL", "HR")]
    m_lower = sum(robot.model.inertias[j].mass for j in shanks)   # shank + foot links
    assert m == pytest.approx(22.0, rel=1e-9) and m_lower == pytest.approx(2.0, rel=1e-9)
    np.testing.assert_allclose(f[:, 2], m * G / 4, rtol=1e-9)
    np.testing.assert_allclose(f[:, :2], 0.0, atol=1e-9)
    expected = (m - m_lower) * G / 4
    assert expected == pytest.approx(TITAN_KNEE_FORCE, rel=RTOL)
    # the force the thigh passes to the shank across the knee (Pinocchio's RNEA joint forces)
    model, data = robot.model, robot.model.createData()
    fext = [pin.Force.Zero() for _ in range(model.njoints)]
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    for ci, cp in enumerate(robot.contacts):
        j = model.frames[cp.frame_id].parentJoint
        p = data.oMf[cp.frame_id].act(cp.point)
        fext[j] = fext[j] + data.oMi[j].actInv(pin.Force(f[ci], np.cross(p, f[ci])))
    pin.rnea(model, data, q, z, z, fext)
    tau = inverse_dynamics(sd, q, z, z, f)
    for j in shanks:
        knee_force = data.oMi[j].rotation @ data.f[j].linear
        print(f"\n{model.names[j]}: force across the knee {knee_force.round(6)} N (expected vertical "
              f"{-expected:.4f}), torque {tau[model.joints[j].idx_v]:.2e} N·m")
        # data.f: the force of the parent on the subtree, in the joint frame: the ground pushes
        # the shank up, so the thigh pushes it down with (m − m_lower)·g/4
        assert knee_force[2] == pytest.approx(-expected, rel=RTOL)
        assert knee_force[2] == pytest.approx(-TITAN_KNEE_FORCE, rel=RTOL)
        np.testing.assert_allclose(knee_force[:2], 0.0, atol=1e-6)
        assert abs(tau[model.joints[j].idx_v]) < 1e-9
    thigh = [robot.index(f"{leg}_thigh") for leg in ("FL", "FR", "HL", "HR")]
    assert np.all(np.abs(tau[thigh]) > 1.0)   # the thigh joint J2 alone carries the weight


# --------------------------------------------------------- 2. slow vertical body motion


def vertical_motion(robot, sd, amplitude=0.02, period=10.0, n=400):
    """One period of base_z = z0 + A sin(2π t/T) with all feet fixed: times (n+1,), q, v, a
    (n+1, nv) by periodic central differences of the IK solution."""
    t = np.linspace(0.0, period, n + 1)
    dt = t[1] - t[0]
    q0 = robot.standing_q
    p0 = np.array(sd.contact_kinematics(q0, np.zeros(robot.nv), np.zeros(robot.nv))[0]).T
    iz = robot.index("base_z")
    qs = []
    q = q0.copy()
    for ti in t[:-1]:
        q = q.copy()
        q[iz] = q0[iz] + amplitude * np.sin(2 * np.pi * ti / period)
        q = place_contacts(robot, q, p0)
        qs.append(q)
    qs = np.array(qs)
    v = (np.roll(qs, -1, 0) - np.roll(qs, 1, 0)) / (2 * dt)
    a = (np.roll(qs, -1, 0) - 2 * qs + np.roll(qs, 1, 0)) / dt ** 2
    close = lambda x: np.vstack([x, x[:1]])   # noqa: E731  the period's end = its start
    return t, close(qs), close(v), close(a)


# TITAN-VIII, the source's robot: four point feet and three joints per leg make the feet-fixed
# IK square (on the bipeds the heel and toe points leave the IK redundant)
@pytest.mark.parametrize("which", ["titan8"])
def test_slow_vertical_motion_energy(which, request):
    robot, sd = request.getfixturevalue(which)
    A, T, n = 0.02, 10.0, 400
    t, q, v, a = vertical_motion(robot, sd, A, T, n)
    idx = robot.actuated_index
    power = []
    for k in range(len(t)):
        f, residual = equilibrium_forces(robot, sd, q[k], v[k], a[k])
        assert np.abs(residual).max() < 1e-8 * robot.total_mass * G
        tau = inverse_dynamics(sd, q[k], v[k], a[k], f)
        power.append(tau[idx] @ v[k, idx])
    power = np.array(power)
    # the rise: from the lowest point (t = 3T/4) through the wrap to the highest (t = T/4)
    rise = np.r_[np.arange(3 * n // 4, n), np.arange(0, n // 4 + 1)]
    dt = t[1] - t[0]
    w_rise = np.trapezoid(power[rise], dx=dt)
    w_period = np.trapezoid(power, dx=dt)
    # the gain of potential energy: the CoM's rise (the legs rise less than the body)
    model, data = robot.model, robot.model.createData()
    z_com = [pin.centerOfMass(model, data, q[k])[2] for k in (3 * n // 4, n // 4)]
    dpe = robot.total_mass * G * (z_com[1] - z_com[0])
    assert 0.5 * robot.total_mass * G * 2 * A < dpe < robot.total_mass * G * 2 * A
    print(f"\n{which}: rise work {w_rise:.5f} J vs potential-energy gain {dpe:.5f} J "
          f"({100 * (w_rise / dpe - 1):+.4f} %), work over the period {w_period:.2e} J")
    assert w_rise == pytest.approx(dpe, rel=RTOL)
    assert abs(w_period) <= RTOL * dpe


# ------------------------------------------------------ 3. Jacobian transpose vs dynamics


def fd_point_jacobian(robot, q, contact, joints, eps=1e-6):
    """∂p/∂q of a contact point's world position w.r.t. the given coordinates (3, len(joints)),
    by central differences of Pinocchio's forward kinematics."""
    model, data = robot.model, robot.model.createData()
    cp = robot.contact(contact)

    def point(qq):
        pin.framesForwardKinematics(model, data, qq)
        return data.oMf[cp.frame_id].act(cp.point)

    J = np.zeros((3, len(joints)))
    for i, j in enumerate(joints):
        dq = np.zeros(robot.nv)
        dq[j] = eps
        J[:, i] = (point(q + dq) - point(q - dq)) / (2 * eps)
    return J


def leg_joints(robot, foot):
    model = robot.model
    fid = robot.contact(robot.feet[foot].contacts[0]).frame_id
    j = model.frames[fid].parentJoint
    return [model.joints[k].idx_v for k in model.supports[j] if model.names[k] not in robot.base_coordinates
            and k != 0]


def massless_legs(robot):
    """A copy of the robot whose leg links have zero mass and whose joints have no reflected
    rotor inertia (only the URDF root, the body, keeps its inertia)."""
    import copy
    light = copy.copy(robot)
    light.model = robot.model.copy()
    root = light.model.getJointId(robot.base_coordinates[-1])
    for j in range(1, light.model.njoints):
        if j != root:
            light.model.inertias[j] = pin.Inertia.Zero()
    light.model.armature[:] = 0.0
    return light


def test_jacobian_transpose_equals_dynamics_with_massless_legs(titan8):
    robot, sd_real = titan8
    rng = np.random.default_rng(3)
    light = massless_legs(robot)
    sd_light = go.SymbolicDynamics(light.model, [(c.frame_id, c.point) for c in robot.contacts])
    q = robot.standing_q + np.r_[np.zeros(len(robot.base_coordinates)), 0.1 * rng.standard_normal(len(robot.joints))]
    v = 0.3 * rng.standard_normal(robot.nv)
    a = 1.0 * rng.standard_normal(robot.nv)
    errors = {}
    for name, r, sd in (("massless legs", light, sd_light), ("real legs", robot, sd_real)):
        f, residual = equilibrium_forces(r, sd, q, v, a)
        assert np.abs(residual).max() < 1e-9 * max(1.0, np.abs(f).max())
        tau = inverse_dynamics(sd, q, v, a, f)
        worst = 0.0
        for foot in robot.feet:
            cols = leg_joints(robot, foot)
            ci = robot.contact_index(robot.feet[foot].contacts[0])
            tau_jt = -fd_point_jacobian(robot, q, robot.contacts[ci].name, cols).T @ f[ci]
            worst = max(worst, float(np.abs(tau_jt - tau[cols]).max() / np.abs(tau[cols]).max()))
        errors[name] = worst
    print(f"\ntitan8 |τ(Jᵀ F) − τ(ID)| / |τ|: {errors}")
    assert errors["massless legs"] < 1e-6        # finite differences only
    assert errors["massless legs"] <= RTOL
    # the check discriminates: with the real leg masses, at this motion, Jᵀ F is off
    assert errors["real legs"] > RTOL
