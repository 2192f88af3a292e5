"""Independent verification: replay an optimal gait in MuJoCo, a simulator nobody here wrote.

The robot is rebuilt from its URDF by MuJoCo's own compiler (`mujoco.MjSpec`): visual and
collision meshes are dropped (only the inertias matter), locked joints become fixed joints at
their locked angle, joint limits, damping and friction are switched off (gaitopt models none
of them), each joint's armature is gaitopt's reflected rotor inertia G²·J_rotor, and the base gets gaitopt's explicit coordinates as MuJoCo joints
(sagittal: slide x, slide z, hinge y — the planar constraint; 3-D: three slides and hinges
z, y, x, i.e. Z-Y-X Euler angles, applied in sequence like Pinocchio's joint chain). The floor
is a plane (tilted about y on slopes); each contact point gets a small sphere whose surface
touches the ground at the point when its foot stands as planned. Building checks the model
against Pinocchio (mass matrix, contact point positions) before anything is simulated.

The replay starts from the plan's first state and applies, on every actuated joint,
τ = τ_ff(t) + K_p (q_ref(t) − q) + K_d (v_ref(t) − v), with τ_ff, q_ref, v_ref the planned
trajectory sampled with the transcription's interpolant. The gains put each joint at a natural
frequency `pd_frequency_hz` on its diagonal entry of the joint-space inertia matrix at the
first state (the links outboard of it, the floating base free).

    from gaitopt import verify
    rep = verify.replay(result, cycles=2)      # a Replay: report dict + time series
    rep.verified, rep.report["distance"]
    verify.verify_dir("out/heel_toe")          # writes verify.json and verify.png there

mujoco is the optional `sim` extra (pip install "gaitopt[sim]"); it is imported on first use.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pinocchio as pin

from . import __version__
from .errors import InputError
from .schedule import active_points

REPORT_FORMAT = "gaitopt-verify 1"
REPORT_FILE = "verify.json"
PLOT_FILE = "verify.png"


def _mujoco():
    try:
        import mujoco
    except ImportError:
        raise InputError("MuJoCo is not installed: pip install \"gaitopt[sim]\" (or pip install mujoco)",
                         field="verify") from None
    return mujoco


@dataclass(frozen=True)
class ReplaySettings:
    """How the replay is simulated and judged (SI units).

    timestep: MuJoCo step [s]; solref: contact (time constant [s], damping ratio); solimp:
    MuJoCo's impedance (d0, d_width, width [m], midpoint, power); foot_radius: contact sphere
    radius [m]; pd_frequency_hz, pd_damping: joint PD natural frequency and damping ratio on
    the joint's diagonal entry of the joint-space inertia matrix (the links outboard of it);
    stance_frequency_hz: while a foot below a joint stands, its gains are raised to this natural
    frequency on the inertia of the rest of the robot about the joint, shared by the standing
    feet (0: off);
    cone: pyramidal | elliptic friction cone; noslip_iterations: MuJoCo's no-slip solver passes
    (0: off; it removes the creep of MuJoCo's soft friction).
    Criteria: distance_rtol: |simulated − planned| base advance / planned; slip_tol: tangential
    displacement [m] of a contact point within one planned stance while it touches the ground;
    fall_height_fraction: the base
    has fallen when its height above the ground drops below this × the plan's lowest;
    fall_tilt: or when |pitch| or |roll| exceeds the plan's largest by this [rad].
    """

    timestep: float = 5e-4
    solref: tuple = (0.004, 1.0)
    solimp: tuple = (0.95, 0.99, 0.001, 0.5, 2.0)
    foot_radius: float = 0.005
    pd_frequency_hz: float = 30.0
    stance_frequency_hz: float = 0.0
    pd_damping: float = 1.0
    cone: str = "elliptic"
    noslip_iterations: int = 10
    distance_rtol: float = 0.10
    slip_tol: float = 0.02
    fall_height_fraction: float = 0.5
    fall_tilt: float = 0.5


# ------------------------------------------------------------------------------ the model


def _rotation_about(axis, angle) -> np.ndarray:
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    return pin.exp3(axis * angle)


def mesh_free_urdf(robot) -> str:
    """The robot's URDF text with visual and collision elements removed and locked joints made
    fixed at their locked values (the joint origin composed with the locked rotation or shift)."""
    tree = ET.parse(robot.urdf)
    root = tree.getroot()
    for link in root.iter("link"):
        for tag in ("visual", "collision"):
            for el in link.findall(tag):
                link.remove(el)
    for el in [e for e in root if e.tag in ("mujoco", "transmission", "gazebo")]:
        root.remove(el)
    for joint in root.iter("joint"):
        name = joint.get("name")
        if name not in robot.locked:
            continue
        value = float(robot.locked[name])
        origin = joint.find("origin")
        if origin is None:
            origin = ET.SubElement(joint, "origin")
        xyz = np.array([float(x) for x in (origin.get("xyz") or "0 0 0").split()])
        rpy = np.array([float(x) for x in (origin.get("rpy") or "0 0 0").split()])
        axis_el = joint.find("axis")
        axis = np.array([float(x) for x in axis_el.get("xyz").split()]) if axis_el is not None else np.array([1.0, 0, 0])
        R = pin.rpy.rpyToMatrix(rpy)
        if joint.get("type") == "prismatic":
            xyz = xyz + R @ axis * value
        else:
            R = R @ _rotation_about(axis, value)
        origin.set("xyz", " ".join(repr(float(x)) for x in xyz))
        origin.set("rpy", " ".join(repr(float(x)) for x in pin.rpy.matrixToRpy(R)))
        joint.set("type", "fixed")
        for tag in ("axis", "limit", "dynamics", "mimic", "safety_controller", "calibration"):
            for el in joint.findall(tag):
                joint.remove(el)
    return ET.tostring(root, encoding="unicode")


@dataclass
class SimModel:
    """A robot in MuJoCo. model/data: mujoco.MjModel/MjData; qpos, dof: gaitopt coordinate
    index → MuJoCo qpos / dof address (arrays of length nq); act_dof: MuJoCo dof address of each
    actuated joint (robot.actuated order); sites: MuJoCo site id of each contact point
    (robot.contacts order); foot_geoms: geom id → contact point index; kp, kd: PD gains (nu,);
    kp_stance, kd_stance: gains while a foot below the joint stands, before sharing (nu,);
    joint_feet (nu, n_feet) bool: the feet below each actuated joint (robot.feet order);
    ground_normal, ground_tangents: world unit vectors of the floor."""

    robot: object
    model: object
    data: object
    qpos: np.ndarray
    dof: np.ndarray
    act_dof: np.ndarray
    sites: np.ndarray
    foot_geoms: dict
    kp: np.ndarray
    kd: np.ndarray
    kp_stance: np.ndarray
    kd_stance: np.ndarray
    joint_feet: np.ndarray
    ground_normal: np.ndarray
    ground_tangents: np.ndarray

    def set_state(self, q, v) -> None:
        """Set MuJoCo's state from gaitopt's q, v (nq,) and run its kinematics."""
        mj = _mujoco()
        self.data.qpos[self.qpos] = q
        self.data.qvel[self.dof] = v
        mj.mj_forward(self.model, self.data)

    def state(self) -> tuple:
        """gaitopt's q, v (nq,) from MuJoCo's state."""
        return self.data.qpos[self.qpos].copy(), self.data.qvel[self.dof].copy()

    def points(self) -> np.ndarray:
        """World positions (nc, 3) of the planned contact points."""
        return self.data.site_xpos[self.sites].copy()

    def mass_matrix(self) -> np.ndarray:
        """Joint-space inertia in gaitopt's coordinate order (nq, nq) at the current state."""
        mj = _mujoco()
        M = np.zeros((self.model.nv, self.model.nv))
        try:
            mj.mj_fullM(self.model, self.data, M)          # MuJoCo ≥ 3.4
        except TypeError:
            mj.mj_fullM(self.model, M, self.data.qM)
        return M[np.ix_(self.dof, self.dof)]

    def bias(self) -> np.ndarray:
        """Coriolis, centrifugal and gravity forces C(q, v) + G(q) (nq,) at the current state."""
        return self.data.qfrc_bias[self.dof].copy()

    def contact_forces(self) -> np.ndarray:
        """World forces (nc, 3) [N] the ground exerts now on each contact point's sphere."""
        mj = _mujoco()
        out = np.zeros((len(self.sites), 3))
        f6 = np.zeros(6)
        for i in range(self.data.ncon):
            con = self.data.contact[i]
            g1, g2 = int(con.geom1), int(con.geom2)
            foot_geom = g2 if g2 in self.foot_geoms else (g1 if g1 in self.foot_geoms else None)
            if foot_geom is None:
                continue
            mj.mj_contactForce(self.model, self.data, i, f6)
            # the contact frame's first row is the normal, pointing from geom1 to geom2
            f = con.frame.reshape(3, 3).T @ f6[:3]
            out[self.foot_geoms[foot_geom]] += f if foot_geom == g2 else -f
        return out


def _contact_offsets(robot, traj, normal) -> list:
    """Per contact point: the sphere centre in the foot frame, foot_radius along the ground
    normal from the point, taken in the foot's orientation at its first planned stance knot."""
    data = robot.model.createData()
    out = []
    for c in robot.contacts:
        q = None
        for p in traj.phases:
            if c.name in active_points(robot, p.modes):
                q = p.q[0]
                break
        q = robot.standing_q if q is None else q
        pin.framesForwardKinematics(robot.model, data, q)
        out.append(data.oMf[c.frame_id].rotation.T @ normal)
    return out


def joint_inertias(robot, q) -> np.ndarray:
    """(nu, 2) inertia [kg·m²] about each actuated joint's axis, every other joint locked, at
    posture q (nq,): column 0 of the links outboard of it (what it turns while its foot swings:
    the diagonal of the joint-space inertia matrix), column 1 of all the other links (what it
    turns while its foot stands)."""
    model, data = robot.model, robot.model.createData()
    M = pin.crba(model, data, q)
    distal = np.diag(np.triu(M) + np.triu(M, 1).T)[robot.actuated_index]
    pin.ccrba(model, data, q, np.zeros(robot.nv))
    com, mass, inertia_g = data.com[0], data.Ig.mass, data.Ig.inertia   # Ig: about the CoM
    pin.computeJointJacobians(model, data, q)
    out = np.zeros((len(robot.actuated), 2))
    for i, name in enumerate(robot.actuated):
        j = model.getJointId(name)
        axis = pin.getJointJacobian(model, data, j, pin.LOCAL_WORLD_ALIGNED)[3:, model.joints[j].idx_v]
        r = com - data.oMi[j].translation
        whole = axis @ inertia_g @ axis + mass * (r @ r - (r @ axis) ** 2)
        out[i] = distal[i], max(whole - distal[i], 0.0)
    return out


def build_model(robot, *, slope: float = 0.0, friction: float = 0.7, traj=None,
                settings: ReplaySettings = ReplaySettings(), q_gains=None, check: bool = True) -> SimModel:
    """Build `robot` in MuJoCo from its URDF (module docstring for what is changed).

    slope [rad] tilts the floor about world y (uphill towards +x); friction: μ of every foot
    contact; traj: the planned Trajectory (contact spheres are placed for the foot orientation
    at each point's first planned stance); q_gains: posture (nq,) for the PD gains (default the
    standing posture). check: compare the mass matrix and contact points with Pinocchio at
    q_gains and raise RuntimeError if they disagree (a modelling mismatch, not a gait failure).
    """
    mj = _mujoco()
    spec = mj.MjSpec.from_string(mesh_free_urdf(robot))
    spec.compiler.inertiafromgeom = mj.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    spec.option.timestep = settings.timestep
    spec.option.integrator = mj.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.cone = {"pyramidal": mj.mjtCone.mjCONE_PYRAMIDAL, "elliptic": mj.mjtCone.mjCONE_ELLIPTIC}[settings.cone]
    spec.option.noslip_iterations = settings.noslip_iterations
    spec.option.gravity = np.array(robot.model.gravity.linear)

    # URDF joint → child link: the MuJoCo body that moves with that joint
    urdf_root = ET.fromstring(mesh_free_urdf(robot))
    child_of = {j.get("name"): j.find("child").get("link") for j in urdf_root.iter("joint")}
    children = set(child_of.values())
    root_link = next(link.get("name") for link in urdf_root.iter("link") if link.get("name") not in children)
    root = spec.body(root_link)

    model = robot.model
    for j in spec.joints:
        j.limited = mj.mjtLimited.mjLIMITED_FALSE
        j.damping = np.zeros(3)
        j.frictionloss = 0.0
        # the reflected rotor inertia G²·J_rotor gaitopt's model carries (0 where it has none)
        j.armature = (float(model.armature[model.joints[model.getJointId(j.name)].idx_v])
                      if model.existJointName(j.name) else 0.0)
    base_axes = {"base_x": (mj.mjtJoint.mjJNT_SLIDE, [1, 0, 0]), "base_y": (mj.mjtJoint.mjJNT_SLIDE, [0, 1, 0]),
                 "base_z": (mj.mjtJoint.mjJNT_SLIDE, [0, 0, 1]), "base_yaw": (mj.mjtJoint.mjJNT_HINGE, [0, 0, 1]),
                 "base_pitch": (mj.mjtJoint.mjJNT_HINGE, [0, 1, 0]), "base_roll": (mj.mjtJoint.mjJNT_HINGE, [1, 0, 0])}
    # joints of one MuJoCo body compose in order, each about its axis in the frame left by the
    # previous ones: the same chain as gaitopt's base joints
    for name in robot.base_coordinates:
        jtype, axis = base_axes[name]
        root.add_joint(name=name, type=jtype, axis=axis)

    c, s = np.cos(slope), np.sin(slope)
    normal = np.array([-s, 0.0, c])
    tangents = np.array([[c, 0.0, s], [0.0, 1.0, 0.0]])
    floor = spec.worldbody.add_geom(name="floor", type=mj.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1])
    floor.quat = [np.cos(-slope / 2), 0.0, np.sin(-slope / 2), 0.0]
    floor.contype, floor.conaffinity = 1, 2          # touches the feet only
    floor.friction = [friction, 0.005, 0.0001]

    offsets = _contact_offsets(robot, traj, normal) if traj is not None else \
        [np.array([0.0, 0.0, 1.0])] * len(robot.contacts)
    foot_geom_names = {}
    for ci, cp in enumerate(robot.contacts):
        fr = robot.model.frames[cp.frame_id]
        jname = robot.model.names[fr.parentJoint]
        body = root if jname in robot.base_coordinates else spec.body(child_of[jname])
        # the MuJoCo body frame of a URDF link is Pinocchio's joint frame
        p_joint = fr.placement.act(cp.point)
        n_joint = fr.placement.rotation @ offsets[ci]
        body.add_site(name=f"contact_{cp.name}", pos=p_joint, size=[0.002, 0, 0])
        g = body.add_geom(name=f"foot_{cp.name}", type=mj.mjtGeom.mjGEOM_SPHERE,
                          size=[settings.foot_radius, 0, 0], pos=p_joint + settings.foot_radius * n_joint)
        g.density = 0.0
        g.contype, g.conaffinity = 2, 1
        g.condim = 3
        g.friction = [friction, 0.005, 0.0001]
        g.solref = list(settings.solref)
        g.solimp = list(settings.solimp)
        foot_geom_names[g.name] = ci

    q_gains = robot.standing_q if q_gains is None else np.asarray(q_gains, float)
    w = 2 * np.pi * settings.pd_frequency_hz
    inertia = joint_inertias(robot, q_gains)
    kp = inertia[:, 0] * w ** 2
    kd = 2 * settings.pd_damping * inertia[:, 0] * w
    ws = 2 * np.pi * settings.stance_frequency_hz
    kp_stance = inertia[:, 1] * ws ** 2
    kd_stance = 2 * settings.pd_damping * inertia[:, 1] * ws
    feet = list(robot.feet)
    joint_feet = np.zeros((len(robot.actuated), len(feet)), dtype=bool)
    for i, j in enumerate(robot.actuated):
        jid = robot.model.getJointId(j)
        for cp in robot.contacts:
            if jid in robot.model.supports[robot.model.frames[cp.frame_id].parentJoint]:
                joint_feet[i, feet.index(cp.foot)] = True
    for i, j in enumerate(robot.actuated):
        act = spec.add_actuator(name=j, target=j, trntype=mj.mjtTrn.mjTRN_JOINT)
        # force = ctrl − kp q − kd q̇; ctrl = τ_ff + kp q_ref + kd v_ref (the q̇ term is implicit)
        act.gaintype = mj.mjtGain.mjGAIN_FIXED
        act.gainprm[0] = 1.0
        act.biastype = mj.mjtBias.mjBIAS_AFFINE
        act.biasprm[0], act.biasprm[1], act.biasprm[2] = 0.0, -kp[i], -kd[i]
        act.ctrllimited = mj.mjtLimited.mjLIMITED_FALSE

    model = spec.compile()
    data = mj.MjData(model)
    names = list(robot.coordinates)
    qpos = np.array([model.jnt_qposadr[model.joint(n).id] for n in names], dtype=int)
    dof = np.array([model.jnt_dofadr[model.joint(n).id] for n in names], dtype=int)
    if model.nq != len(names) or model.nv != len(names):
        raise RuntimeError(f"MuJoCo model has nq={model.nq}, nv={model.nv}; gaitopt has {len(names)} coordinates")
    act_dof = dof[robot.actuated_index]
    sites = np.array([model.site(f"contact_{cp.name}").id for cp in robot.contacts], dtype=int)
    foot_geoms = {model.geom(n).id: ci for n, ci in foot_geom_names.items()}
    sim = SimModel(robot, model, data, qpos, dof, act_dof, sites, foot_geoms, kp, kd, kp_stance, kd_stance,
                   joint_feet, normal, tangents)
    if check:
        check_against_pinocchio(sim, q_gains)
    return sim


def check_against_pinocchio(sim: SimModel, q, v=None, rtol: float = 1e-6) -> dict:
    """Compare MuJoCo with Pinocchio at (q, v): total mass, mass matrix, bias forces and
    contact point positions. Raises RuntimeError naming the largest mismatch; returns the
    errors (relative for M and bias, metres for points)."""
    robot = sim.robot
    v = np.zeros(robot.nv) if v is None else np.asarray(v, float)
    sim.set_state(q, v)
    data = robot.model.createData()
    M = pin.crba(robot.model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    b = pin.rnea(robot.model, data, q, v, np.zeros(robot.nv))
    pin.framesForwardKinematics(robot.model, data, q)
    pts = np.array([data.oMf[c.frame_id].act(c.point) for c in robot.contacts])
    errs = {
        "mass": abs(float(np.sum(sim.model.body_mass)) - robot.total_mass) / robot.total_mass,
        "mass_matrix": float(np.abs(sim.mass_matrix() - M).max() / np.abs(M).max()),
        "bias": float(np.abs(sim.bias() - b).max() / max(1.0, np.abs(b).max())),
        "points_m": float(np.abs(sim.points() - pts).max()),
    }
    bad = {k: e for k, e in errs.items() if not e <= rtol}
    if bad:
        raise RuntimeError(f"MuJoCo's model of {robot.name} disagrees with Pinocchio's: {bad}")
    return errs


# ------------------------------------------------------------------------------ the replay


@dataclass
class Replay:
    """What `replay` returns. verified: True when the robot neither fell nor slipped and its
    base advance is within the distance tolerance; report: the JSON report (README
    "Verification in MuJoCo"); series: time series for plots — time (T,), q_plan, q_sim (T, nq),
    tau_plan, tau_sim (T, nu), force_plan, force_sim (T, n_feet, 3), feet (names)."""

    verified: bool
    report: dict
    series: dict = field(repr=False)


def _base_height(q, coords, slope):
    """Base height above the floor, along world z [m]."""
    return q[..., coords.index("base_z")] - q[..., coords.index("base_x")] * np.tan(slope)


def replay(result, cycles: int = 2, settings: ReplaySettings = ReplaySettings()) -> Replay:
    """Simulate `cycles` gait cycles of a solved result in MuJoCo (feedforward torques + joint
    PD on the plan) and judge it. Returns a Replay (report dict and time series)."""
    mj = _mujoco()
    if isinstance(cycles, bool) or not isinstance(cycles, (int, np.integer)) or cycles < 1:
        raise InputError(f"cycles must be a whole number ≥ 1, got {cycles!r}", field="cycles")
    robot, problem, traj = result.robot, result.problem, result.trajectory
    coords = list(robot.coordinates)
    if "base_x" not in coords:
        raise InputError(f"robot {robot.name} has a fixed base: nothing walks", field="base")
    slope = float(problem.slope)
    q0, v0 = traj.phases[0].q[0], traj.phases[0].v[0]
    sim = build_model(robot, slope=slope, friction=float(problem.constraints.friction), traj=traj,
                      settings=settings, q_gains=q0)
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
    h_plan = _base_height(ref["q"], coords, slope)
    tilt_idx = [coords.index(c) for c in ("base_pitch", "base_roll") if c in coords]
    tilt_plan = float(np.abs(ref["q"][:, tilt_idx]).max())
    last = n
    for k in range(n + 1):
        # step1: kinematics and contacts of the current state; step2: forces and integration,
        # so that the torques and contact forces read after it belong to the state read before
        mj.mj_step1(sim.model, sim.data)
        q_sim[k] = sim.data.qpos[sim.qpos]
        pts[k] = sim.points()
        h = _base_height(q_sim[k], coords, slope)
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
    report = _judge(result, sim, settings, cycles, t, q_plan, q_sim, tau_plan, tau_sim, f_plan, f_sim, pts,
                    point_on, touching, fell_at, h_plan, tilt_plan)
    series = {"time": t, "q_plan": q_plan, "q_sim": q_sim, "tau_plan": tau_plan, "tau_sim": tau_sim,
              "force_plan": f_plan, "force_sim": f_sim, "feet": feet, "coordinates": coords,
              "actuated": list(robot.actuated)}
    return Replay(report["verified"], report, series)


def _runs(flags) -> list:
    """(start, end) index pairs, end inclusive, of the runs of True in a 1-D bool array."""
    edges = np.diff(np.r_[0, np.asarray(flags, dtype=int), 0])
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1))


def _stance_slips(pts, point_on, tangents, touching=None) -> np.ndarray:
    """Largest tangential displacement [m] of each contact point within one planned stance,
    while it touches the ground, from where it first touched in that stance: pts (T, nc, 3)
    positions, point_on (T, nc) planned contact flags, touching (T, nc) simulated contact
    flags (None: always touching)."""
    out = np.zeros(pts.shape[1])
    for ci in range(pts.shape[1]):
        for k, e in _runs(point_on[:, ci]):
            run = pts[k:e + 1, ci] if touching is None else pts[k:e + 1, ci][touching[k:e + 1, ci]]
            if len(run):
                d = (run - run[0]) @ tangents.T
                out[ci] = max(out[ci], float(np.sqrt((d ** 2).sum(axis=1)).max()))
    return out


def _rms(x, axis=0):
    return np.sqrt(np.mean(np.square(x), axis=axis))


def _judge(result, sim, settings, cycles, t, q_plan, q_sim, tau_plan, tau_sim, f_plan, f_sim, pts,
           point_on, touching, fell_at, h_plan, tilt_plan) -> dict:
    mujoco = _mujoco()
    robot, traj = result.robot, result.trajectory
    coords = list(robot.coordinates)
    ix = coords.index("base_x")
    planned = cycles * traj.stride
    simulated = float(q_sim[-1, ix] - q_sim[0, ix])
    fell = fell_at is not None
    # the plan's own contact points, for the foothold drift the plan itself has
    data = robot.model.createData()
    plan_pts = []
    for q in q_plan:
        pin.framesForwardKinematics(robot.model, data, q)
        plan_pts.append([data.oMf[c.frame_id].act(c.point) for c in robot.contacts])
    slip = _stance_slips(pts, point_on, sim.ground_tangents, touching)
    slip_plan = _stance_slips(np.array(plan_pts), point_on, sim.ground_tangents)
    rel = abs(simulated - planned) / abs(planned) if planned else float("inf")
    slipped = bool(slip.max(initial=0.0) > settings.slip_tol)
    failures = []
    if fell:
        failures.append(f"fell at t = {fell_at:.3f} s")
    if slipped:
        worst = int(np.argmax(slip))
        failures.append(f"{robot.contacts[worst].name} slipped {slip[worst] * 1e3:.1f} mm in stance "
                        f"(tolerance {settings.slip_tol * 1e3:.1f} mm)")
    if not rel <= settings.distance_rtol:
        failures.append(f"travelled {simulated:.4f} m instead of {planned:.4f} m "
                        f"({100 * rel:.1f} % off, tolerance {100 * settings.distance_rtol:.0f} %)")
    weight = robot.total_mass * float(np.linalg.norm(robot.model.gravity.linear))
    dtau = tau_sim - tau_plan
    joints = list(robot.actuated)
    rms_plan = _rms(tau_plan)
    feet = list(robot.feet)
    n = sim.ground_normal
    forces = {}
    for i, foot in enumerate(feet):
        planned_on = np.linalg.norm(f_plan[:, i], axis=1) > 0
        fn_p, fn_s = f_plan[:, i] @ n, f_sim[:, i] @ n
        forces[foot] = {
            "rms_difference_N": float(_rms(np.linalg.norm(f_sim[:, i] - f_plan[:, i], axis=1))),
            "mean_normal_planned_N": float(fn_p.mean()),
            "mean_normal_simulated_N": float(fn_s.mean()),
            "peak_normal_planned_N": float(fn_p.max()),
            "peak_normal_simulated_N": float(fn_s.max()),
            "unplanned_contact_fraction": float(np.mean((fn_s > 1e-6) & ~planned_on)),
        }
    all_diff = np.linalg.norm(f_sim - f_plan, axis=2)
    tilt_idx = [coords.index(c) for c in ("base_pitch", "base_roll") if c in coords]
    joint_idx = robot.actuated_index
    report = {
        "format": REPORT_FORMAT,
        "verified": not failures,
        "failures": failures,
        "robot": robot.name,
        "success": bool(result.success),
        "cycles": int(cycles),
        "simulated_s": float(t[-1]),
        "period_s": float(traj.period),
        "distance": {"planned_m": float(planned), "simulated_m": simulated, "relative_error": float(rel)},
        "fell": fell,
        "fell_at_s": fell_at,
        "base": {
            "height_min_planned_m": float(h_plan.min()),
            "height_min_simulated_m": float(_base_height(q_sim, coords, result.problem.slope).min()),
            "tilt_max_planned_rad": float(tilt_plan),
            "tilt_max_simulated_rad": float(np.abs(q_sim[:, tilt_idx]).max()) if tilt_idx else 0.0,
            "final_error": {c: float(q_sim[-1, i] - q_plan[-1, i]) for i, c in enumerate(coords)
                            if c in robot.base_coordinates},
        },
        "slipped": slipped,
        "slip_m": {c.name: float(slip[i]) for i, c in enumerate(robot.contacts)},
        "slip_planned_m": {c.name: float(slip_plan[i]) for i, c in enumerate(robot.contacts)},
        "joint_tracking_rms_rad": {j: float(x) for j, x in zip(joints, _rms(q_sim[:, joint_idx] - q_plan[:, joint_idx]))},
        "torque": {
            "rms_difference_Nm": {j: float(x) for j, x in zip(joints, _rms(dtau))},
            "rms_planned_Nm": {j: float(x) for j, x in zip(joints, rms_plan)},
            "rms_difference_all_Nm": float(_rms(dtau.ravel())),
            "relative": float(_rms(dtau.ravel()) / max(_rms(tau_plan.ravel()), 1e-12)),
            "peak_simulated_Nm": {j: float(x) for j, x in zip(joints, np.abs(tau_sim).max(axis=0))},
        },
        "contact_forces": {
            "feet": forces,
            "rms_difference_over_weight": float(_rms(all_diff.ravel()) / weight),
        },
        "settings": {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(settings).items()},
        "pd_gains": {j: {"kp": float(sim.kp[i]), "kd": float(sim.kd[i]), "kp_stance": float(sim.kp_stance[i]),
                         "kd_stance": float(sim.kd_stance[i])} for i, j in enumerate(joints)},
        "versions": {"gaitopt": __version__, "mujoco": mujoco.__version__},
    }
    return report


# ------------------------------------------------------------------------------ output


def _compare(ax, t, simulated, planned, labels, ylabel, title, **style) -> None:
    """Simulated (solid) and planned (dashed, same colour) columns of (T, k) arrays on one axis."""
    for i, label in enumerate(labels):
        line, = ax.plot(t, simulated[:, i], label=label, **style)
        ax.plot(t, planned[:, i], "--", color=line.get_color(), **style)
    ax.set_xlabel("time [s]")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title}: simulated (solid), planned (dashed)")
    ax.legend(fontsize=6, ncol=2)


def plot_replay(rep: Replay):
    """A comparison figure (matplotlib Figure, Agg canvas): base position and orientation,
    joint torques and foot vertical forces, simulated (solid) against planned (dashed)."""
    from .plot import new_figure
    s = rep.series
    t, coords = s["time"], s["coordinates"]
    fig = new_figure(11.0, 8.0)
    axes = fig.subplots(2, 2)
    for ax, names, unit, title in ((axes[0, 0], ("base_x", "base_y", "base_z"), "m", "base position"),
                                   (axes[0, 1], ("base_yaw", "base_pitch", "base_roll"), "rad", "base orientation")):
        idx = [coords.index(c) for c in names if c in coords]
        _compare(ax, t, s["q_sim"][:, idx], s["q_plan"][:, idx], [coords[i] for i in idx], unit, title)
    _compare(axes[1, 0], t, s["tau_sim"], s["tau_plan"], s["actuated"], "N·m", "joint torques", lw=0.8)
    _compare(axes[1, 1], t, s["force_sim"][:, :, 2], s["force_plan"][:, :, 2], s["feet"], "N",
             "foot vertical force", lw=0.8)
    r = rep.report
    fig.suptitle(f"{r['robot']}: {'VERIFIED' if r['verified'] else 'FAILED: ' + '; '.join(r['failures'])}\n"
                 f"distance {r['distance']['simulated_m']:.3f} m simulated vs {r['distance']['planned_m']:.3f} m "
                 f"planned, torque RMS difference {r['torque']['rms_difference_all_Nm']:.3g} N·m", fontsize=9)
    return fig


def write_replay(rep: Replay, outdir, result_dir=None) -> dict:
    """Write verify.json and verify.png into outdir; returns their paths."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    report = dict(rep.report)
    plot_path = outdir / PLOT_FILE
    report["files"] = {"report": REPORT_FILE, "plot": PLOT_FILE}
    if result_dir is not None:
        report["result_dir"] = str(result_dir)
    path = outdir / REPORT_FILE
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    plot_replay(rep).savefig(plot_path, dpi=110)
    return {"report": path, "plot": plot_path}


def verify_dir(result_dir, cycles: int = 2, output=None, settings: ReplaySettings = ReplaySettings()) -> tuple:
    """Replay the result saved in result_dir (by `gaitopt solve -o`) and write verify.json and
    verify.png to output (default result_dir). Returns (Replay, paths)."""
    from .export import load_result
    result = load_result(result_dir)
    rep = replay(result, cycles=cycles, settings=settings)
    paths = write_replay(rep, Path(output) if output else Path(result_dir), result_dir)
    return rep, paths
