"""Quantities derived from a sampled gait: motor current and power, contact flags, centre of
mass, centre of pressure, support polygon and the points of a stick figure.

Everything here works on plain arrays with a leading time axis (as `Trajectory.sample` returns
them) and on a `gaitopt.robot.Robot`; forward kinematics uses Pinocchio's numeric algorithms.
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin

from .schedule import active_points


def motor_current(robot, tau) -> np.ndarray:
    """Motor current i = τ/(η·G·K) per actuated joint [A], tau (T, nu) N·m → (T, nu): the motor
    model of the transcription's current limit and torque–speed line (`Actuator.current`)."""
    tau = np.asarray(tau, float)
    return np.column_stack([robot.actuators[j].current(tau[:, i]) for i, j in enumerate(robot.actuated)]) \
        if robot.actuated else np.zeros((len(tau), 0))


def joint_speed(robot, v) -> np.ndarray:
    """Actuated joint speeds ω (T, nu) [rad/s] from v (T, nv)."""
    return np.asarray(v, float)[:, robot.actuated_index]


def mechanical_power(robot, tau, v) -> np.ndarray:
    """Joint mechanical power τ·ω (T, nu) [W]; positive when the motor drives the joint."""
    return np.asarray(tau, float) * joint_speed(robot, v)


def joule_power(robot, tau) -> np.ndarray:
    """Copper loss R·i² per actuated joint (T, nu) [W], i = τ/(η·G·K)."""
    tau = np.asarray(tau, float)
    return np.column_stack([robot.actuators[j].joule_power(tau[:, i]) for i, j in enumerate(robot.actuated)]) \
        if robot.actuated else np.zeros((len(tau), 0))


def electrical_power(robot, tau, v) -> np.ndarray:
    """Electrical power drawn by each motor, V·i = R·i² + K·G·ω·i (T, nu) [W].

    With i = τ/(η·G·K) the second term is τ·ω/η: copper loss + the mechanical power and the gear
    loss (negative when the joint brakes harder than the copper loses: power returned to the
    supply if the driver regenerates)."""
    tau = np.asarray(tau, float)
    i = motor_current(robot, tau)
    w = joint_speed(robot, v)
    out = np.empty_like(i)
    for k, j in enumerate(robot.actuated):
        a = robot.actuators[j]
        out[:, k] = a.resistance * i[:, k] ** 2 + a.torque_constant * a.gear_ratio * w[:, k] * i[:, k]
    return out


def foot_modes(traj, phase_labels) -> dict:
    """foot → (T,) array of contact mode names (swing | flat | heel | toe | stance) for the
    phase label of each sample."""
    modes = traj.phase_modes()
    feet = list(next(iter(modes.values())))
    return {foot: np.array([modes[str(p)][foot] for p in phase_labels]) for foot in feet}


def point_flags(robot, traj, phase_labels) -> np.ndarray:
    """(T, nc) bool: contact point in contact (robot.contacts order) at each sample."""
    modes = traj.phase_modes()
    names = [c.name for c in robot.contacts]
    table = {p: np.isin(names, active_points(robot, m)) for p, m in modes.items()}
    return np.array([table[str(p)] for p in phase_labels]).reshape(len(phase_labels), len(names))


class Poses:
    """Forward kinematics of a robot with Pinocchio: joint origins, contact points, CoM.

    `robot` is a gaitopt Robot; `evaluate(q)` for q (nq,) returns a dict with joints
    (njoints−1, 3) world positions of the joint origins [m], contacts (nc, 3) world contact
    points [m], link_ends (k, 3) centres of mass of the links with no joint below them [m] and
    com (3,) [m]; `segments` lists (a, b) index pairs into `points(q)` (joints, contacts,
    link ends stacked) that draw the stick figure."""

    def __init__(self, robot):
        self.robot = robot
        self.model = robot.model
        self.data = robot.model.createData()
        m = self.model
        nj = m.njoints - 1
        segs = []
        # joint j's origin hangs on its parent joint's origin; the base coordinates are a chain
        # of 1-DOF joints whose origins (on the ground, then at the base) are not links
        n_base = len(robot.base_coordinates)
        for j in range(max(2, n_base + 1), m.njoints):
            segs.append((m.parents[j] - 1, j - 1))
        for ci, c in enumerate(robot.contacts):
            parent = m.frames[c.frame_id].parentJoint
            if parent > 0:
                segs.append((parent - 1, nj + ci))
        for foot in robot.feet.values():  # the sole line of heel–toe feet, a sole's outline
            idx = [nj + robot.contact_index(n) for n in foot.contacts]
            if len(idx) == 2:
                segs.append(tuple(idx))
            elif len(idx) == 4:  # heel inner, heel outer, toe inner, toe outer (gaitopt.robot_feet)
                segs += [(idx[0], idx[1]), (idx[1], idx[3]), (idx[3], idx[2]), (idx[2], idx[0])]
        # links with no joint below them (a torso above the hips, a head) end at their centre
        # of mass, from the root body (the last base joint) on; not a link that carries a
        # contact point, already drawn to it (a Go2's bent calf grew a spur to its CoM)
        nc = len(robot.contacts)
        has_child = {int(m.parents[j]) for j in range(1, m.njoints)}
        carries_foot = {int(m.frames[c.frame_id].parentJoint) for c in robot.contacts}
        self.com_joints = [j for j in range(max(1, n_base), m.njoints)
                           if (j not in has_child and j not in carries_foot or j == n_base)
                           and m.inertias[j].mass > 0 and np.linalg.norm(m.inertias[j].lever) > 0.01]
        segs += [(j - 1, nj + nc + k) for k, j in enumerate(self.com_joints)]
        # joints robot.yaml locks (`locked`: a G1's waist and arms) are frames of the reduced
        # model, their links merged into the parent body: drawn as sticks from their URDF parent
        # joint so that the arms and the torso show (body colour)
        self.locked_frames, locked_segs = _locked_sticks(robot, m, n_base, nj + nc + len(self.com_joints))
        self.segments = segs + locked_segs

    def segment_sides(self) -> list:
        """Per segment 0, 1 or None: on a leg of the first or the second foot of its mirror pair
        (robot.yaml's `mirror.feet` order, e.g. left and right), or on neither (body, or a chain
        both sides share), so that drawings can tell the legs apart."""
        m, robot = self.model, self.robot
        nj, nc = m.njoints - 1, len(robot.contacts)
        pairs = robot.mirror.foot_pairs if robot.mirror is not None else {}
        order = list(pairs)  # insertion order: each pair's first foot before its partner
        side = {f: (0 if order.index(f) < order.index(p) else 1) for f, p in pairs.items() if p != f}
        foot_joint = [(c.foot, m.frames[c.frame_id].parentJoint) for c in robot.contacts]

        def of_joint(j):  # the sides of the feet whose chain passes through joint j
            return {side.get(f) for f, fj in foot_joint if j in list(m.supports[fj])}
        out = []
        for _, b in self.segments:
            if b < nj:
                sides = of_joint(b + 1)
            elif b < nj + nc:
                sides = {side.get(robot.contacts[b - nj].foot)}
            elif b < nj + nc + len(self.com_joints):
                sides = of_joint(self.com_joints[b - nj - nc])
            else:  # a locked joint's stick: the body's
                sides = set()
            out.append(sides.pop() if len(sides) == 1 else None)
        return out

    def evaluate(self, q) -> dict:
        m, d = self.model, self.data
        q = np.asarray(q, float)
        pin.forwardKinematics(m, d, q)
        pin.updateFramePlacements(m, d)
        joints = np.array([d.oMi[j].translation for j in range(1, m.njoints)])
        contacts = np.array([d.oMf[c.frame_id].act(c.point) for c in self.robot.contacts]).reshape(-1, 3)
        com = np.array(pin.centerOfMass(m, d, q))
        ends = np.array([d.oMi[j].act(m.inertias[j].lever) for j in self.com_joints]).reshape(-1, 3)
        locked = np.array([d.oMf[f].translation for f in self.locked_frames]).reshape(-1, 3)
        return {"joints": joints, "contacts": contacts, "com": com, "link_ends": ends, "locked": locked}

    @staticmethod
    def stack(e: dict) -> np.ndarray:
        """Joints, contacts, link ends and locked joints of an `evaluate` result stacked (n, 3) [m]:
        the nodes `segments` refers to."""
        return np.vstack([e["joints"], e["contacts"], e["link_ends"], e.get("locked", np.zeros((0, 3)))])

    def points(self, q) -> np.ndarray:
        """`stack(evaluate(q))`."""
        return self.stack(self.evaluate(q))


def _locked_sticks(robot, model, n_base: int, first: int) -> tuple:
    """(frame ids, segments) of the joints robot.yaml locks: each locked joint's frame (a node
    numbered from `first` on) joined to its URDF parent joint's node (a locked one's, a joint of
    the model's, or the base's for the root link). The reduced model keeps the frames but not
    their tree, which is read from the URDF; ((), []) without locked joints or a readable URDF."""
    if not robot.locked:
        return [], []
    import xml.etree.ElementTree as ET

    try:
        joints = ET.parse(robot.urdf).getroot().findall("joint")
    except (OSError, ET.ParseError):
        return [], []
    parent_link = {j.get("name"): j.find("parent").get("link") for j in joints if j.find("parent") is not None}
    joint_of_child = {j.find("child").get("link"): j.get("name") for j in joints if j.find("child") is not None}
    frames = {model.frames[f].name: f for f in range(model.nframes)
              if model.frames[f].type == pin.FrameType.FIXED_JOINT}
    locked = [name for name in robot.locked if name in frames]
    node = {name: first + k for k, name in enumerate(locked)}
    segs = []
    for name in locked:
        above = joint_of_child.get(parent_link.get(name))
        while above is not None and above not in node and not model.existJointName(above):
            above = joint_of_child.get(parent_link.get(above))  # through the URDF's fixed joints
        if above in node:
            segs.append((node[above], node[name]))
        elif above is not None:
            segs.append((model.getJointId(above) - 1, node[name]))
        else:  # on the root link: the base's node
            segs.append((n_base - 1, node[name]))
    return [frames[name] for name in locked], segs


def centre_of_pressure(points, forces, in_contact) -> np.ndarray:
    """Centre of pressure on the ground (x, y) [m] of one instant; NaN with no normal load.

    points (nc, 3) contact point positions [m], forces (nc, 3) world forces [N], in_contact
    (nc,) bool. P = Σ f_z,i p_i / Σ f_z,i over the points in contact. With every contact point
    on level ground this is the zero-moment point (ZMP); it equals the foot-rotation indicator
    (FRI) only while the stance feet are flat (not rolling on the heel or toe)."""
    fz = np.where(in_contact, forces[:, 2], 0.0)
    total = fz.sum()
    if total <= 1e-9:
        return np.array([np.nan, np.nan])
    return (fz[:, None] * points[:, :2]).sum(axis=0) / total


def convex_hull(points) -> np.ndarray:
    """Convex hull of 2-D points (n, 2), counter-clockwise, without repeating the first
    point (Andrew's monotone chain; degenerate inputs give 1 or 2 points)."""
    pts = sorted(set(map(tuple, np.round(np.asarray(points, float).reshape(-1, 2), 12))))
    if len(pts) <= 2:
        return np.array(pts).reshape(-1, 2)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def ground_track(robot, traj, samples) -> dict:
    """CoM ground projection, centre of pressure and support polygon of sampled instants.

    samples: the dict `Trajectory.sample` returns. Returns com (T, 3) [m], cop (T, 2) [m]
    (NaN without load), support: list of (k, 2) convex hulls of the points in contact [m],
    contacts (T, nc, 3) contact point positions [m], in_contact (T, nc) bool."""
    poses = Poses(robot)
    flags = point_flags(robot, traj, samples["phase"])
    com, cop, support, pts = [], [], [], []
    for k in range(len(samples["time"])):
        e = poses.evaluate(samples["q"][k])
        com.append(e["com"])
        pts.append(e["contacts"])
        cop.append(centre_of_pressure(e["contacts"], samples["f"][k], flags[k]))
        support.append(convex_hull(e["contacts"][flags[k], :2]))
    return {"com": np.array(com), "cop": np.array(cop), "support": support,
            "contacts": np.array(pts), "in_contact": flags}


def friction_ratio(forces, slope: float = 0.0) -> np.ndarray:
    """|f_t| / f_n of world forces (..., 3) on a plane sloped by `slope` [rad] about world y
    (uphill towards +x; normal (−sin, 0, cos)) [-]; NaN where f_n ≤ 0."""
    forces = np.asarray(forces, float)
    s, c = np.sin(slope), np.cos(slope)
    fn = -s * forces[..., 0] + c * forces[..., 2]
    ft = np.hypot(c * forces[..., 0] + s * forces[..., 2], forces[..., 1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(fn > 1e-9, ft / np.where(fn > 1e-9, fn, 1.0), np.nan)


def surface_friction_ratio(surface, points, forces) -> np.ndarray:
    """|f_t| / f_n [-] of world forces (..., 3) at contact points (..., 3) [m] on a
    `gaitopt.terrain` surface, about its normal at each point's (x, y); NaN where f_n ≤ 0.
    Divide by μ for the friction use."""
    forces = np.asarray(forces, float)
    points = np.asarray(points, float)
    n = surface.normal(points[..., 0], points[..., 1])
    fn = (forces * n).sum(axis=-1)
    ft = np.linalg.norm(forces - fn[..., None] * n, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(fn > 1e-9, ft / np.where(fn > 1e-9, fn, 1.0), np.nan)


def cone_friction_ratio(robot, surface, points, forces, flags) -> np.ndarray:
    """(T, nc) |f_t| / f_n [-] of the forces the plan's friction cones bound, on each contact
    point in contact (NaN elsewhere), about the ground's normal as in `surface_friction_ratio`;
    points (T, nc, 3) [m], forces (T, nc, 3) world [N], flags (T, nc) in contact.

    3-D: each point's own force (each point has its own cone). Sagittal plane: the total force of
    the foot's points in contact, written on each of them, about the normal under the first of
    them (`constraints.contact.friction_rows`): a flat sagittal foot slides as a whole, and the
    split of its tangential force between heel and toe is a convention (the toe's x force is
    zero while the heel is down, `Context.internal_mask`), so a point's own ratio is not a
    physical figure (biped7 static walk: heel 0.373 against the foot's 0.228)."""
    points, forces = np.asarray(points, float), np.asarray(forces, float)
    flags = np.asarray(flags, bool)
    ratio = surface_friction_ratio(surface, points, forces)
    if robot.base != "sagittal":
        return np.where(flags, ratio, np.nan)
    out = np.full(flags.shape, np.nan)
    for foot in robot.feet.values():
        idx = [robot.contact_index(c) for c in foot.contacts]
        on = flags[:, idx]
        total = (forces[:, idx, :] * on[..., None]).sum(axis=1)
        first = np.array(idx)[np.argmax(on, axis=1)]  # the foot's first point in contact
        r = surface_friction_ratio(surface, points[np.arange(len(first)), first], total)
        out[:, idx] = np.where(on, r[:, None], np.nan)
    return out


def contact_points(robot, q_samples) -> np.ndarray:
    """(T, nc, 3) world positions [m] of the robot's contact points at each q (T, nq): the
    points of `Poses.evaluate`, without its joints and centre of mass (gaitopt.feasibility runs
    this at every knot of every solve)."""
    model, data = robot.model, robot.model.createData()
    out = np.empty((len(q_samples), len(robot.contacts), 3))
    for k, q in enumerate(np.asarray(q_samples, float)):
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        out[k] = [data.oMf[c.frame_id].act(c.point) for c in robot.contacts]
    return out


def ground_frames(surface, points) -> tuple:
    """(n, t1, t2), each (..., 3): the ground's unit normal at the (x, y) of points (..., 3) [m]
    on a `gaitopt.terrain` surface, its tangent in the x–z plane and n × t1 (the frame of
    `Terrain.frame_at`, in which the friction cones are written)."""
    points = np.asarray(points, float)
    n = surface.normal(points[..., 0], points[..., 1])
    t1 = np.stack([n[..., 2], 0.0 * n[..., 0], -n[..., 0]], axis=-1) / np.hypot(n[..., 0], n[..., 2])[..., None]
    return n, t1, np.cross(n, t1)


def friction_use(surface, points, forces, mu: float, cone: str = "pyramid", sagittal: bool = False) -> np.ndarray:
    """Share [-] of the friction the plan's cone allows, for world forces (..., 3) at contact
    points (..., 3) [m] on a `gaitopt.terrain` surface, in the terrain frame at each point's
    (x, y) (normal n, t1 ⟂ n in the x–z plane, t2 = n × t1: `Terrain.frame_at`). As
    `constraints.contact.friction_rows` bounds it: cone |f_t| ≤ μ f_n; pyramid (3-D) |f_t1|,
    |f_t2| ≤ μ/√2 · f_n; sagittal |f_t1| ≤ μ f_n. 1 is the cone's edge; 0 where no force,
    inf for a tangential force without a normal one."""
    forces = np.asarray(forces, float)
    n, t1, t2 = ground_frames(surface, points)
    f1, f2 = (forces * t1).sum(axis=-1), (forces * t2).sum(axis=-1)
    fn = (forces * n).sum(axis=-1)
    if sagittal:
        ft, cap = np.abs(f1), mu
    elif cone == "cone":
        ft, cap = np.hypot(f1, f2), mu
    else:
        ft, cap = np.maximum(np.abs(f1), np.abs(f2)), mu / np.sqrt(2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(fn > 1e-9, ft / (cap * np.where(fn > 1e-9, fn, 1.0)), np.where(ft > 1e-9, np.inf, 0.0))
