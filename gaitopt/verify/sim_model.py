"""The robot in MuJoCo, rebuilt from its URDF by MuJoCo's own compiler (`gaitopt.verify` says
what is changed), and checked against Pinocchio before anything is simulated."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from ..actuation import imposed_effort_limits
from ..schedule import active_points
from .terrain_geoms import add_terrain
from .settings import CannotReplay, ReplaySettings, load_mujoco


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
    balanced_links: dict = None  # link → ‖ΔI‖ [kg·m²] of the URDF inertias balanced (balance_inertias)
    torque_limit: np.ndarray = None  # (nu,) N·m, ± the motors' forcerange (inf: unlimited)
    agreement: dict = None  # check_against_pinocchio's errors and tolerances at the gains' posture
    kp_support: np.ndarray = None  # (nu,) gains while three or more feet stand, before sharing
    kd_support: np.ndarray = None

    def set_state(self, q, v) -> None:
        """Set MuJoCo's state from gaitopt's q, v (nq,) and run its kinematics."""
        mj = load_mujoco()
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
        mj = load_mujoco()
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
        mj = load_mujoco()
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


POINT_MASS_RADIUS = 1e-3  # m, the sphere a URDF point mass (mass, zero inertia) becomes in MuJoCo


def balance_inertias(urdf_text: str, rtol: float = 1e-9) -> tuple:
    """(URDF text, {link: ‖ΔI‖ [kg·m²]}) with every link inertia that is not a physical one
    (a non-positive principal moment, or principal moments A + B < C) replaced by its balanced
    form: the three principal moments set to their mean, as MuJoCo's `balanceinertia` option
    does (MuJoCo refuses such an inertia, and checks positivity before it would balance). A link
    with mass and no inertia at all (a point mass, which Pinocchio takes) gets a sphere's of
    radius POINT_MASS_RADIUS: MuJoCo refused it, and verify stopped with exit 4."""
    root = ET.fromstring(urdf_text)
    changed = {}
    keys = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    for link in root.iter("link"):
        el = link.find("inertial/inertia")
        if el is None:
            continue
        g = {k: float(el.get(k, 0.0)) for k in keys}
        inertia = np.array([[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]],
                            [g["ixz"], g["iyz"], g["izz"]]])
        a, b, c = np.sort(np.linalg.eigvalsh(inertia))
        if not np.any(inertia):
            mass = link.find("inertial/mass")
            m = float(mass.get("value", 0.0)) if mass is not None else 0.0
            if m <= 0:
                continue  # a massless link: MuJoCo takes it as it is
            mean = 0.4 * m * POINT_MASS_RADIUS ** 2
        elif a > 0 and a + b >= c * (1 - rtol):
            continue
        else:
            mean = np.trace(inertia) / 3.0
        for k in keys:
            el.set(k, repr(float(mean)) if k in ("ixx", "iyy", "izz") else "0")
        changed[link.get("name")] = float(np.linalg.norm(inertia - mean * np.eye(3)))
    return ET.tostring(root, encoding="unicode"), changed


def _new_spec(mj, robot, settings: ReplaySettings):
    """The MjSpec of the mesh-free URDF with gaitopt's options, joints without limits, damping
    or friction, and the base coordinates as joints of the root body. Returns (spec, root body,
    URDF joint name → child link name)."""
    # physically impossible link inertias (e.g. a camera's or a hatch's) balanced as MuJoCo's own
    # option does; reported in verify.json (model.balanced_links)
    urdf, _ = balance_inertias(mesh_free_urdf(robot))
    spec = mj.MjSpec.from_string(urdf)
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
    return spec, root, child_of


def _add_ground(mj, spec, robot, root, child_of, traj, slope, friction, settings, surface=None) -> tuple:
    """The ground — the floor plane (tilted on slopes), or a `gaitopt.terrain` surface's boxes
    or height field (`terrain_geoms`) — and a contact sphere (and a site) per contact point.
    Returns (ground normal, ground tangents, foot geom name → contact point index): off a plane
    the vertical and the horizontal axes (what slips are measured along)."""
    if surface is None or surface.kind == "plane":
        slope = slope if surface is None else surface.slope
        c, s = np.cos(slope), np.sin(slope)
        normal = np.array([-s, 0.0, c])
        tangents = np.array([[c, 0.0, s], [0.0, 1.0, 0.0]])
        floor = spec.worldbody.add_geom(name="floor", type=mj.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1])
        floor.quat = [np.cos(-slope / 2), 0.0, np.sin(-slope / 2), 0.0]
        floors = [floor]
    else:
        normal, tangents = np.array([0.0, 0.0, 1.0]), np.eye(3)[:2]
        floors = add_terrain(mj, spec, surface)
    for floor in floors:
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
    return normal, tangents, foot_geom_names


def _pd_gains(robot, q_gains, settings: ReplaySettings) -> tuple:
    """(kp, kd, kp_stance, kd_stance, joint_feet, kp_support, kd_support): the gains at posture
    q_gains (class SimModel)."""
    w = 2 * np.pi * settings.pd_frequency_hz
    inertia = joint_inertias(robot, q_gains)
    kp = inertia[:, 0] * w ** 2
    kd = 2 * settings.pd_damping * inertia[:, 0] * w
    ws = 2 * np.pi * settings.stance_frequency_hz
    kp_stance = inertia[:, 1] * ws ** 2
    kd_stance = 2 * settings.pd_damping * inertia[:, 1] * ws
    wu = 2 * np.pi * settings.support_frequency_hz
    kp_support, kd_support = inertia[:, 1] * wu ** 2, 2 * settings.pd_damping * inertia[:, 1] * wu
    feet = list(robot.feet)
    joint_feet = np.zeros((len(robot.actuated), len(feet)), dtype=bool)
    for i, j in enumerate(robot.actuated):
        jid = robot.model.getJointId(j)
        for cp in robot.contacts:
            if jid in robot.model.supports[robot.model.frames[cp.frame_id].parentJoint]:
                joint_feet[i, feet.index(cp.foot)] = True
    return kp, kd, kp_stance, kd_stance, joint_feet, kp_support, kd_support


def actuator_torque_limits(robot, problem=None) -> np.ndarray:
    """(nu,) the largest joint torque [N·m] each actuated joint's motor gives: the smaller of
    the URDF effort limit (where given, > 0) and the current limit's η·G·K·I_max. With the
    `problem` the gait was planned for, the URDF effort limit only where the plan imposed it
    (`constraints.effort_limits`, not on co-designed gears): it describes the shipped gear, so a
    gear study switches it off (docs/studies.md), and the replay of its cases must too (until
    2026-11-25 a user's Go2 calf planned at G = 30 was clamped at the 12.134:1 gear's 45.4 N·m
    instead of its motor's 112 N·m)."""
    effort = robot.effort_limit[robot.actuated_index] if problem is None else imposed_effort_limits(problem, robot)
    current = np.array([robot.actuators[j].torque_limit for j in robot.actuated])
    return np.minimum(np.where(effort > 0, effort, np.inf), current)


def torque_speed_range(robot, qd) -> tuple:
    """(lower, upper) (nu,) joint torques [N·m] the motors can give at joint speeds qd (nu,)
    [rad/s] with the supply voltage V: the torque–speed line of `actuation.motor_voltage`,
    R·τ/(η G K) + K G q̇ = ±V, solved for τ = η G K (±V − K G q̇) / R."""
    lo, hi = np.empty(len(robot.actuated)), np.empty(len(robot.actuated))
    for i, j in enumerate(robot.actuated):
        a = robot.actuators[j]
        c = a.gear_efficiency * a.gear_ratio * a.torque_constant / a.resistance
        back_emf = a.torque_constant * a.gear_ratio * qd[i]
        lo[i], hi[i] = c * (-a.voltage - back_emf), c * (a.voltage - back_emf)
    return lo, hi


def _add_actuators(mj, spec, robot, kp, kd, limit=None) -> None:
    """One motor per actuated joint: force = ctrl − kp q − kd q̇, within ± limit (nu,) [N·m]
    (None or inf: unlimited)."""
    for i, j in enumerate(robot.actuated):
        act = spec.add_actuator(name=j, target=j, trntype=mj.mjtTrn.mjTRN_JOINT)
        # force = ctrl − kp q − kd q̇; ctrl = τ_ff + kp q_ref + kd v_ref (the q̇ term is implicit)
        act.gaintype = mj.mjtGain.mjGAIN_FIXED
        act.gainprm[0] = 1.0
        act.biastype = mj.mjtBias.mjBIAS_AFFINE
        act.biasprm[0], act.biasprm[1], act.biasprm[2] = 0.0, -kp[i], -kd[i]
        act.ctrllimited = mj.mjtLimited.mjLIMITED_FALSE
        if limit is not None and np.isfinite(limit[i]):
            act.forcelimited = mj.mjtLimited.mjLIMITED_TRUE
            act.forcerange = [-float(limit[i]), float(limit[i])]


def robot_spec(robot, *, slope: float = 0.0, friction: float = 0.7, traj=None,
               settings: ReplaySettings = ReplaySettings(), surface=None) -> tuple:
    """The MjSpec of `robot` without actuators: the mesh-free URDF, the base joints, the
    armature, the floor (slope [rad], or a `gaitopt.terrain` surface; friction μ) and a contact
    sphere and site per contact point (placed as `build_model` says). Returns (spec, ground normal, ground tangents, foot
    geom name → contact point index); `build_model` and the MJCF export add their actuators."""
    mj = load_mujoco()
    spec, root, child_of = _new_spec(mj, robot, settings)
    normal, tangents, foot_geom_names = _add_ground(mj, spec, robot, root, child_of, traj, slope, friction,
                                                    settings, surface)
    return spec, normal, tangents, foot_geom_names


def build_model(robot, *, slope: float = 0.0, friction: float = 0.7, traj=None,
                settings: ReplaySettings = ReplaySettings(), q_gains=None, check: bool = True,
                surface=None, problem=None) -> SimModel:
    """Build `robot` in MuJoCo from its URDF (`gaitopt.verify` says what is changed).

    slope [rad] tilts the floor about world y (uphill towards +x); surface: a `gaitopt.terrain`
    surface instead (steps as boxes, a height map as a height field); friction: μ of every foot
    contact; traj: the planned Trajectory (contact spheres are placed for the foot orientation
    at each point's first planned stance); q_gains: posture (nq,) for the PD gains (default the
    standing posture). check: compare the mass matrix and contact points with Pinocchio at
    q_gains and raise CannotReplay if they disagree (a modelling mismatch, not a gait failure);
    CannotReplay too when MuJoCo refuses the model. The motors are torque-limited at
    `actuator_torque_limits` (of `problem`, the one the gait was planned for, when given)
    unless settings.torque_limits is False.
    """
    mj = load_mujoco()
    spec, normal, tangents, foot_geom_names = robot_spec(robot, slope=slope, friction=friction, traj=traj,
                                                         settings=settings, surface=surface)
    q_gains = robot.standing_q if q_gains is None else np.asarray(q_gains, float)
    kp, kd, kp_stance, kd_stance, joint_feet, kp_support, kd_support = _pd_gains(robot, q_gains, settings)
    limit = actuator_torque_limits(robot, problem) if settings.torque_limits else np.full(len(robot.actuated), np.inf)
    # with the torque–speed line the replay sets the range at every step (from the stall torque)
    stall = np.array([robot.actuators[j].stall_torque for j in robot.actuated])
    _add_actuators(mj, spec, robot, kp, kd, np.minimum(limit, stall) if settings.torque_speed else limit)
    try:
        model = spec.compile()
    except Exception as err:  # noqa: BLE001 - MuJoCo's compiler raises ValueError or its own errors
        raise CannotReplay(f"MuJoCo cannot compile {robot.name}'s model: {' '.join(str(err).split())}") from None
    data = mj.MjData(model)
    names = list(robot.coordinates)
    qpos = np.array([model.jnt_qposadr[model.joint(n).id] for n in names], dtype=int)
    dof = np.array([model.jnt_dofadr[model.joint(n).id] for n in names], dtype=int)
    if model.nq != len(names) or model.nv != len(names):
        raise CannotReplay(f"MuJoCo's model of {robot.name} has nq={model.nq}, nv={model.nv}; gaitopt's has "
                           f"{len(names)} coordinates")
    act_dof = dof[robot.actuated_index]
    sites = np.array([model.site(f"contact_{cp.name}").id for cp in robot.contacts], dtype=int)
    foot_geoms = {model.geom(n).id: ci for n, ci in foot_geom_names.items()}
    sim = SimModel(robot, model, data, qpos, dof, act_dof, sites, foot_geoms, kp, kd, kp_stance, kd_stance,
                   joint_feet, normal, tangents, balance_inertias(mesh_free_urdf(robot))[1], limit,
                   kp_support=kp_support, kd_support=kd_support)
    if check:
        sim.agreement = check_against_pinocchio(sim, q_gains)
    return sim


# MuJoCo stores each body's inertia as principal moments and axes (an iterative eigen-
# decomposition); the joint-space inertia it rebuilds from them agrees with Pinocchio's to
# about 1e-6 of the matrix's largest entry on some URDFs (bolt: 1.1e-6). A balanced link
# changes it by its own (small) inertia. Larger differences mean a different model.
MASS_MATRIX_RTOL = 1e-5


def check_against_pinocchio(sim: SimModel, q, v=None, rtol: float = 1e-6) -> dict:
    """Compare MuJoCo with Pinocchio at (q, v) (nq,), every error relative to the model's own
    scale: total mass (to the mass), mass matrix (to its largest entry), bias forces C + G (to
    the larger of their largest entry and m·g·L), contact points (to L), L the robot's size (the
    largest distance of a contact point from the centre of mass, at least 1 mm). Tolerances:
    rtol for mass and points; max(rtol, MASS_MATRIX_RTOL) plus the balanced links' Σ‖ΔI‖ over
    the largest entry of M for M and the bias. Returns {"errors": {mass, mass_matrix, bias,
    points}, "tolerances": the same keys}; raises CannotReplay naming the mismatches."""
    robot = sim.robot
    v = np.zeros(robot.nv) if v is None else np.asarray(v, float)
    sim.set_state(q, v)
    data = robot.model.createData()
    M = pin.crba(robot.model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    b = pin.rnea(robot.model, data, q, v, np.zeros(robot.nv))
    com = pin.centerOfMass(robot.model, data, q)
    pin.framesForwardKinematics(robot.model, data, q)
    pts = np.array([data.oMf[c.frame_id].act(c.point) for c in robot.contacts])
    size = max(float(np.linalg.norm(pts - com, axis=1).max(initial=0.0)), 1e-3)
    weight = robot.total_mass * float(np.linalg.norm(robot.model.gravity.linear))
    errs = {
        "mass": abs(float(np.sum(sim.model.body_mass)) - robot.total_mass) / robot.total_mass,
        "mass_matrix": float(np.abs(sim.mass_matrix() - M).max() / np.abs(M).max()),
        "bias": float(np.abs(sim.bias() - b).max() / max(np.abs(b).max(), weight * size)),
        "points": float(np.abs(sim.points() - pts).max() / size),
    }
    # a balanced link changes M by up to its ‖ΔI‖ (and the bias forces accordingly)
    balanced = sum((sim.balanced_links or {}).values()) / np.abs(M).max()
    tol = {k: (max(rtol, MASS_MATRIX_RTOL) + balanced if k in ("mass_matrix", "bias") else rtol) for k in errs}
    bad = {k: f"{e:.3g} (tolerance {tol[k]:.3g})" for k, e in errs.items() if not e <= tol[k]}
    if bad:
        raise CannotReplay(f"MuJoCo's model of {robot.name} disagrees with Pinocchio's (relative errors): "
                           + ", ".join(f"{k} {x}" for k, x in bad.items()))
    return {"errors": errs, "tolerances": tol}
