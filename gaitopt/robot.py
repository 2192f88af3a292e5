"""Robots: a Pinocchio model with explicit floating-base coordinates, feet, mirror map, actuators.

A robot folder (robots/<name>/robot.yaml, schema in robots/README.md) becomes a `Robot`. The
model is rebuilt so that every coordinate is one named 1-DOF joint (q̇ = v exactly):

* ``sagittal``: base_x (prismatic x), base_z (prismatic z), base_pitch (revolute y);
* ``3d``: base_x, base_y, base_z, then Z-Y-X Euler angles base_yaw, base_pitch, base_roll;
* ``fixed``: the URDF root welded to the world.

The URDF's root link hangs on the last base joint. Locked joints are removed with
``pinocchio.buildReducedModel`` before the base is added.
"""
from __future__ import annotations

import copy
import site
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pinocchio as pin

from .errors import InputError
from .yamlio import Fields, load_yaml

BASE_MODES = ("sagittal", "3d", "fixed")
BASE_COORDINATES = {
    "sagittal": ("base_x", "base_z", "base_pitch"),
    "3d": ("base_x", "base_y", "base_z", "base_yaw", "base_pitch", "base_roll"),
    "fixed": (),
}
# Coordinates that change sign under the left/right reflection y -> -y of the world.
_BASE_MIRROR_FLIP = {"base_y", "base_yaw", "base_roll"}
_BASE_JOINT_MODELS = {
    "base_x": pin.JointModelPX, "base_y": pin.JointModelPY, "base_z": pin.JointModelPZ,
    "base_yaw": pin.JointModelRZ, "base_pitch": pin.JointModelRY, "base_roll": pin.JointModelRX,
}
ACTUATOR_FIELDS = ("motor", "resistance", "torque_constant", "voltage", "current_limit",
                   "rated_power", "rotor_inertia", "gear_ratio", "gear_efficiency", "source")
ROBOT_KEYS = ("name", "description", "urdf", "base", "locked", "joint_limits", "passive", "feet",
              "mirror", "standing", "actuators", "sources")

REPO_ROBOTS = Path(__file__).resolve().parent.parent / "robots"


@dataclass(frozen=True)
class Actuator:
    """A DC motor behind a gear, seen from the joint.

    Units: resistance Ω, torque_constant N·m/A, voltage V, current_limit A, rated_power W,
    rotor_inertia kg·m² (motor side), gear_ratio (motor turns per joint turn), gear_efficiency.
    """

    resistance: float
    torque_constant: float
    voltage: float
    current_limit: float
    gear_ratio: float
    gear_efficiency: float = 1.0
    rated_power: float = float("inf")
    rotor_inertia: float = 0.0
    motor: str = ""
    source: str = ""

    @property
    def torque_limit(self) -> float:
        """Peak joint torque from the current limit, G·η·K·I_max [N·m]."""
        return self.gear_ratio * self.gear_efficiency * self.torque_constant * self.current_limit

    @property
    def stall_torque(self) -> float:
        """Joint torque at zero speed with the full supply voltage, G·η·K·V/R [N·m]."""
        return self.gear_ratio * self.gear_efficiency * self.torque_constant * self.voltage / self.resistance

    @property
    def no_load_speed(self) -> float:
        """Joint speed where the torque-speed line reaches zero torque, V/(K·G) [rad/s]."""
        return self.voltage / (self.torque_constant * self.gear_ratio)

    @property
    def reflected_inertia(self) -> float:
        """Rotor inertia seen at the joint, G²·J_rotor [kg·m²]."""
        return self.gear_ratio ** 2 * self.rotor_inertia

    def current(self, torque):
        """Motor current for a joint torque, i = τ/(η·G·K) [A]: the motor model of the current
        limit and the torque–speed line (the gear passes η of the motor torque)."""
        return torque / (self.gear_efficiency * self.gear_ratio * self.torque_constant)

    def joule_power(self, torque):
        """Copper loss R·i² [W] with i = `current(torque)`."""
        return self.resistance * self.current(torque) ** 2

    def with_gear(self, gear_ratio: float) -> "Actuator":
        from dataclasses import replace
        return replace(self, gear_ratio=float(gear_ratio))


@dataclass(frozen=True)
class ContactPoint:
    """A point fixed on a foot frame that can touch the ground.

    name: ``<foot>_heel``, ``<foot>_toe`` or ``<foot>`` for point feet; role: heel | toe | point;
    frame: URDF frame name; frame_id: its index in `Robot.model`; point: (3,) m in that frame.
    """

    name: str
    foot: str
    role: str
    frame: str
    frame_id: int
    point: np.ndarray = field(compare=False)


@dataclass(frozen=True)
class Foot:
    """A foot: `kind` is ``heel_toe`` (contact modes flat/heel/toe/swing) or ``point``."""

    name: str
    frame: str
    kind: str
    contacts: tuple[str, ...]

    @property
    def modes(self) -> tuple[str, ...]:
        return ("swing", "flat", "heel", "toe") if self.kind == "heel_toe" else ("swing", "stance")


@dataclass(frozen=True)
class Mirror:
    """Left/right reflection of coordinates: mirrored[i] = sign[i] · x[perm[i]] (an involution).

    Applies to q, v, a (size nv, since nq = nv here), to torques through `actuated`, and to
    contact forces through `contact_perm` (world-frame y components change sign).
    """

    perm: np.ndarray
    sign: np.ndarray
    foot_pairs: dict
    contact_perm: np.ndarray

    def coordinates(self, x):
        x = np.asarray(x)
        return self.sign * x[..., self.perm]

    def forces(self, f):
        """Mirror stacked world-frame contact forces (..., 3·n_contacts)."""
        f = np.asarray(f)
        shape = f.shape
        f3 = f.reshape(shape[:-1] + (-1, 3))[..., self.contact_perm, :] * np.array([1.0, -1.0, 1.0])
        return f3.reshape(shape)


class Robot:
    """A robot model ready for symbolic dynamics and gait problems.

    Attributes: name, folder, urdf (absolute path), base (mode), model (pinocchio.Model with one
    1-DOF joint per coordinate), coordinates (names, length nq = nv), base_coordinates,
    joints (non-base coordinate names), actuated (names), actuated_index (indices into v),
    locked (name → value), feet (name → Foot), contacts (list of ContactPoint, fixed order),
    mirror (Mirror or None), actuators (actuated joint → Actuator), standing_q (nq,),
    lower, upper (nq,) position limits, velocity_limit, effort_limit (nq,).
    """

    def __init__(self, name, folder, urdf, base, model, locked, feet, contacts, mirror,
                 actuators, actuated, standing_q, description=""):
        self.name = name
        self.folder = folder
        self.urdf = urdf
        self.base = base
        self.model = model
        self.locked = dict(locked)
        self.feet = feet
        self.contacts = contacts
        self.mirror = mirror
        self.actuators = actuators
        self.actuated = list(actuated)
        self.description = description
        self.coordinates = [model.names[j] for j in range(1, model.njoints)]
        self.base_coordinates = list(BASE_COORDINATES[base])
        self.joints = self.coordinates[len(self.base_coordinates):]
        self.actuated_index = np.array([self.coordinates.index(j) for j in self.actuated], dtype=int)
        self.standing_q = np.asarray(standing_q, dtype=float)
        self.lower = np.array(model.lowerPositionLimit, dtype=float)
        self.upper = np.array(model.upperPositionLimit, dtype=float)
        self.velocity_limit = np.array(model.velocityLimit, dtype=float)
        self.effort_limit = np.array(model.effortLimit, dtype=float)

    @property
    def nq(self) -> int:
        return self.model.nq

    @property
    def nv(self) -> int:
        return self.model.nv

    @property
    def total_mass(self) -> float:
        return float(sum(self.model.inertias[j].mass for j in range(self.model.njoints)))

    def contact(self, name: str) -> ContactPoint:
        for c in self.contacts:
            if c.name == name:
                return c
        raise KeyError(name)

    def contact_index(self, name: str) -> int:
        return [c.name for c in self.contacts].index(name)

    def index(self, coordinate: str) -> int:
        """Index of a coordinate (base or joint) in q and v."""
        return self.coordinates.index(coordinate)

    def with_actuators(self, actuators: dict) -> "Robot":
        """A copy of this robot with some actuators replaced (e.g. another gear or motor).

        actuators: actuated joint name → `Actuator`; joints not listed keep theirs. The
        Pinocchio model is copied when it carries reflected rotor inertias (they follow the new
        actuators); every other attribute is shared (never mutated); the URDF
        effort and velocity limits are left as they are (switch them off in the problem's
        constraints when they describe the original actuator).
        """
        unknown = [j for j in actuators if j not in self.actuators]
        if unknown:
            raise InputError(f"not actuated joints: {unknown}", field="actuators", allowed=self.actuated)
        bad = [j for j, a in actuators.items() if not isinstance(a, Actuator)]
        if bad:
            raise InputError(f"expected gaitopt.robot.Actuator values for {bad}", field="actuators")
        new = copy.copy(self)
        new.actuators = {**self.actuators, **actuators}
        if np.any(np.asarray(self.model.armature) != 0.0):
            # the reflected rotor inertias follow the new gears and motors (on a copied model)
            new.model = self.model.copy()
            set_reflected_inertia(new.model, new.actuators, True)
        return new

    def __repr__(self):
        return (f"Robot({self.name!r}, base={self.base}, nq={self.nq}, mass={self.total_mass:.4f} kg, "
                f"feet={list(self.feet)}, actuated={len(self.actuated)})")


# --------------------------------------------------------------------------------------------
# loading


def robot_folder(name_or_path: str | Path, search: list[Path] | None = None) -> Path:
    """Resolve a robot name (a folder of robots/) or a path to a robot folder or robot.yaml."""
    p = Path(name_or_path)
    if p.name == "robot.yaml" and p.is_file():
        return p.parent.resolve()
    if p.is_dir() and (p / "robot.yaml").is_file():
        return p.resolve()
    for root in list(search or []) + [REPO_ROBOTS]:
        cand = Path(root) / str(name_or_path)
        if (cand / "robot.yaml").is_file():
            return cand.resolve()
    raise InputError(f"no robot {str(name_or_path)!r}", field="robot", allowed=available_robots())


def available_robots() -> list[str]:
    if not REPO_ROBOTS.is_dir():
        return []
    return sorted(p.name for p in REPO_ROBOTS.iterdir() if (p / "robot.yaml").is_file())


def package_share(package: str) -> Path:
    """Folder where a cmeel package (e.g. example-robot-data) installs its data files."""
    roots = []
    try:
        roots += site.getsitepackages()
    except AttributeError:  # virtualenvs without site.getsitepackages
        pass
    roots += [p for p in sys.path if p]
    for root in roots:
        cand = Path(root) / "cmeel.prefix" / "share" / package
        if cand.is_dir():
            return cand
    raise InputError(f"package {package!r} is not installed (pip install {package})", field="urdf.package")


def _urdf_path(f: Fields, folder: Path) -> Path:
    value = f.raw("urdf")
    if isinstance(value, str):
        path = (folder / value).resolve()
    elif isinstance(value, dict):
        u = f.mapping("urdf")
        package = u.string("package", allowed=["example-robot-data"])
        rel = u.string("path")
        u.done()
        path = package_share(package) / rel
    else:
        raise f.error("urdf", "expected a path or {package:, path:}")
    if not path.is_file():
        raise f.error("urdf", f"URDF not found at {path}")
    return path


def load_robot(name_or_path: str | Path, *, base: str | None = None,
               search: list[Path] | None = None) -> Robot:
    """Load a robot folder into a `Robot`.

    name_or_path: a folder name under robots/ or a path; base: override the file's base mode
    (sagittal | 3d | fixed). Raises InputError naming file, key and allowed values.
    """
    folder = robot_folder(name_or_path, search)
    file = folder / "robot.yaml"
    f = Fields(load_yaml(file), file)
    name = f.string("name")
    description = f.string("description", "")
    urdf = _urdf_path(f, folder)
    base = base if base is not None else f.string("base", allowed=BASE_MODES)
    if base not in BASE_MODES:
        raise InputError(f"unknown base mode {base!r}", field="base", allowed=BASE_MODES)

    try:
        full = pin.buildModelFromUrdf(str(urdf))
    except Exception as err:  # pinocchio raises plain RuntimeError/ValueError
        raise InputError(f"Pinocchio cannot read the URDF {urdf}: {err}", file=str(file), field="urdf") from None
    joint_names = list(full.names)[1:]

    locked_f = f.mapping("locked", {})
    locked = {}
    for j in locked_f.data:
        if j not in joint_names:
            raise locked_f.error(str(j), "not a joint of the URDF", joint_names)
        locked[j] = locked_f.number(j)
    locked_f.done()

    q_lock = pin.neutral(full)
    for j, val in locked.items():
        jid = full.getJointId(j)
        if full.joints[jid].nq != 1:
            raise locked_f.error(j, "only 1-DOF joints can be locked")
        q_lock[full.joints[jid].idx_q] = val
    lock_ids = [full.getJointId(j) for j in locked]
    reduced = pin.buildReducedModel(full, lock_ids, q_lock) if lock_ids else full
    for j in range(1, reduced.njoints):
        jm = reduced.joints[j]
        if jm.nq != 1 or jm.nv != 1:
            raise InputError(f"joint {reduced.names[j]!r} is {jm.shortname()} with nq={jm.nq}: gaitopt needs "
                             "1-DOF revolute or prismatic joints (make continuous joints revolute, or lock it)",
                             file=str(file), field="urdf")

    _override_limits(f, reduced)
    model = _with_base(reduced, base)

    coord = [model.names[j] for j in range(1, model.njoints)]
    n_base = len(BASE_COORDINATES[base])
    movable = coord[n_base:]

    passive = f.sequence("passive", [])
    for j in passive:
        if j not in movable:
            raise f.error("passive", f"{j!r} is not a joint of the model", movable)
    actuated = [j for j in movable if j not in passive]

    feet, contacts = _feet(f, model)
    mirror = _mirror(f, model, base, coord, feet, contacts, joint_names)
    actuators, reflected = _actuators(f, actuated)
    set_reflected_inertia(model, actuators, reflected)
    standing_q = _standing(f, model, coord, base, contacts)
    f.raw("sources", None)
    f.done(ROBOT_KEYS)
    if name != folder.name:
        raise f.error("name", f"must equal the folder name {folder.name!r}")
    return Robot(name, folder, urdf, base, model, locked, feet, contacts, mirror, actuators,
                 actuated, standing_q, description)


def _override_limits(f: Fields, model: pin.Model) -> None:
    lim = f.mapping("joint_limits", {})
    names = list(model.names)[1:]
    for j in lim.data:
        if j not in names:
            raise lim.error(str(j), "not a joint of the model (locked joints have no limits)", names)
        jf = lim.mapping(j)
        jid = model.getJointId(j)
        iq, iv = model.joints[jid].idx_q, model.joints[jid].idx_v
        lower, upper = model.lowerPositionLimit.copy(), model.upperPositionLimit.copy()
        vel, eff = model.velocityLimit.copy(), model.effortLimit.copy()
        lower[iq] = jf.number("lower", lower[iq])
        upper[iq] = jf.number("upper", upper[iq])
        vel[iv] = jf.number("velocity", vel[iv], positive=True)
        eff[iv] = jf.number("effort", eff[iv], positive=True)
        jf.done()
        if not lower[iq] < upper[iq]:
            raise lim.error(j, f"lower {lower[iq]} must be below upper {upper[iq]}")
        model.lowerPositionLimit, model.upperPositionLimit = lower, upper
        model.velocityLimit, model.effortLimit = vel, eff
    lim.done()


def _with_base(urdf_model: pin.Model, base: str) -> pin.Model:
    """Copy a fixed-base model under a chain of 1-DOF base joints (none for ``fixed``)."""
    if base == "fixed":
        return urdf_model
    model = pin.Model()
    model.name = urdf_model.name
    parent = 0
    big = 1e3
    for cname in BASE_COORDINATES[base]:
        is_angle = cname in ("base_yaw", "base_pitch", "base_roll")
        lim = np.pi if is_angle else big
        parent = model.addJoint(parent, _BASE_JOINT_MODELS[cname](), pin.SE3.Identity(), cname,
                                np.array([0.0]), np.array([big]), np.array([-lim]), np.array([lim]))
        model.addJointFrame(parent, -1)
    # The root link's inertia sits on joint 0 of the fixed-base model: move it to the base.
    model.appendBodyToJoint(parent, urdf_model.inertias[0], pin.SE3.Identity())
    root_frame = model.nframes - 1  # JOINT frame of the last base joint
    joint_map = {0: parent}
    for j in range(1, urdf_model.njoints):
        jm = urdf_model.joints[j]
        iq, iv = jm.idx_q, jm.idx_v
        jid = model.addJoint(joint_map[urdf_model.parents[j]], jm, urdf_model.jointPlacements[j],
                             urdf_model.names[j], urdf_model.effortLimit[iv:iv + 1],
                             urdf_model.velocityLimit[iv:iv + 1], urdf_model.lowerPositionLimit[iq:iq + 1],
                             urdf_model.upperPositionLimit[iq:iq + 1])
        model.appendBodyToJoint(jid, urdf_model.inertias[j], pin.SE3.Identity())
        joint_map[j] = jid
    frame_map = {0: root_frame}
    for k in range(1, urdf_model.nframes):
        fr = urdf_model.frames[k]
        # buildReducedModel leaves a locked joint's FIXED_JOINT frame as its own parentFrame:
        new = pin.Frame(fr.name, joint_map[fr.parentJoint], frame_map.get(fr.parentFrame, root_frame), fr.placement,
                        fr.type, fr.inertia)
        # append_inertia=False: the bodies' inertias were already added with their joints.
        frame_map[k] = model.addFrame(new, False)
    return model


def _feet(f: Fields, model: pin.Model):
    feet_f = f.mapping("feet")
    if not feet_f.data:
        raise feet_f.error("feet", "a robot needs at least one foot")
    frame_names = [fr.name for fr in model.frames]
    feet, contacts = {}, []
    for foot in feet_f.data:
        ff = feet_f.mapping(foot)
        frame = ff.string("frame")
        if frame not in frame_names:
            raise ff.error("frame", f"no frame {frame!r} in the URDF",
                           [n for n in frame_names if "foot" in n.lower() or "sole" in n.lower()] or None)
        fid = model.getFrameId(frame)
        if ff.has("point"):
            if ff.has("heel") or ff.has("toe"):
                raise ff.error("point", "a foot is either a point foot or has heel and toe points")
            contacts.append(ContactPoint(str(foot), str(foot), "point", frame, fid, np.array(ff.vector("point", 3))))
            kind = "point"
            names = (str(foot),)
        elif ff.has("heel") and ff.has("toe"):
            heel, toe = np.array(ff.vector("heel", 3)), np.array(ff.vector("toe", 3))
            contacts.append(ContactPoint(f"{foot}_heel", str(foot), "heel", frame, fid, heel))
            contacts.append(ContactPoint(f"{foot}_toe", str(foot), "toe", frame, fid, toe))
            kind = "heel_toe"
            names = (f"{foot}_heel", f"{foot}_toe")
        else:
            raise feet_f.error(str(foot), "give either `point` or both `heel` and `toe`", ["frame", "point", "heel", "toe"])
        ff.done(["frame", "point", "heel", "toe"])
        feet[str(foot)] = Foot(str(foot), frame, kind, names)
    return feet, contacts


def _mirror(f: Fields, model, base, coord, feet, contacts, all_joints):
    if not f.has("mirror"):
        f.raw("mirror", None)
        return None
    mf = f.mapping("mirror")
    n = len(coord)
    perm = np.arange(n)
    sign = np.ones(n)
    for c in BASE_COORDINATES[base]:
        if c in _BASE_MIRROR_FLIP:
            sign[coord.index(c)] = -1.0
    for pair in mf.sequence("joints", []):
        if not (isinstance(pair, list) and len(pair) == 2):
            raise mf.error("joints", f"expected pairs [left, right], got {pair!r}")
        a, b = pair
        for j in (a, b):
            if j not in coord:
                raise mf.error("joints", f"{j!r} is not a joint of the model (locked joints are left out)",
                               coord[len(BASE_COORDINATES[base]):])
        ia, ib = coord.index(a), coord.index(b)
        perm[ia], perm[ib] = ib, ia
    for j in mf.sequence("flip", []):
        if j not in coord:
            if j in all_joints:
                continue  # a flipped joint may be locked in a reduced variant
            raise mf.error("flip", f"{j!r} is not a joint of the URDF", all_joints)
        sign[coord.index(j)] *= -1.0
    foot_pairs = {}
    for pair in mf.sequence("feet", []):
        if not (isinstance(pair, list) and len(pair) == 2 and all(p in feet for p in pair)):
            raise mf.error("feet", f"expected pairs of foot names, got {pair!r}", list(feet))
        foot_pairs[pair[0]], foot_pairs[pair[1]] = pair[1], pair[0]
    for foot in feet:
        foot_pairs.setdefault(foot, foot)
    names = [c.name for c in contacts]
    cperm = []
    for c in contacts:
        other = feet[foot_pairs[c.foot]]
        partner = c.name if other.name == c.foot else (other.name if c.role == "point" else f"{other.name}_{c.role}")
        cperm.append(names.index(partner))
    mf.done(["joints", "flip", "feet"])
    if np.any(perm[perm] != np.arange(n)):
        raise mf.error("joints", "the pairs must not share joints")
    return Mirror(perm, sign, foot_pairs, np.array(cperm, dtype=int))


def _actuators(f: Fields, actuated):
    """(joint → Actuator, reflected_inertia switch) from robot.yaml's `actuators`."""
    af = f.mapping("actuators")
    default = af.mapping("default", {})
    per_joint = af.mapping("joints", {})
    reflected = af.boolean("reflected_inertia", True)
    af.done(["default", "joints", "reflected_inertia"])

    def read(fields: Fields, base: dict) -> dict:
        out = dict(base)
        for k in fields.data:
            if k not in ACTUATOR_FIELDS:
                raise fields.error(str(k), "unknown actuator field", ACTUATOR_FIELDS)
            out[k] = fields.string(k) if k in ("motor", "source") else fields.number(k, low=0.0)
        return out

    base_vals = read(default, {})
    out = {}
    for j in per_joint.data:
        if j not in actuated:
            raise per_joint.error(str(j), "not an actuated joint", actuated)
    for j in actuated:
        vals = read(per_joint.mapping(j), base_vals) if per_joint.has(j) else base_vals
        missing = [k for k in ("resistance", "torque_constant", "voltage", "current_limit", "gear_ratio")
                   if k not in vals]
        if missing:
            raise af.error(f"joints.{j}", f"missing actuator data {missing}", ACTUATOR_FIELDS)
        out[j] = Actuator(**vals)
    return out, reflected


def set_reflected_inertia(model: pin.Model, actuators: dict, on: bool) -> None:
    """model.armature of each actuated joint = G²·J_rotor of its actuator (0 when off): the rotor
    turns G times faster than the joint, so its inertia adds G²·J_rotor on the joint axis."""
    model.armature[:] = 0.0
    if on:
        for j, a in actuators.items():
            model.armature[model.joints[model.getJointId(j)].idx_v] = a.reflected_inertia


def _standing(f: Fields, model, coord, base, contacts):
    sf = f.mapping("standing", {})
    q = pin.neutral(model)
    jf = sf.mapping("joints", {})
    for j in jf.data:
        if j not in coord:
            raise jf.error(str(j), "not a coordinate of the model", coord)
        q[coord.index(j)] = jf.number(j)
    jf.done()
    if base != "fixed":
        iz = coord.index("base_z")
        if sf.has("base_z"):
            q[iz] = sf.number("base_z")
        else:
            data = model.createData()
            pin.framesForwardKinematics(model, data, q)
            zmin = min((data.oMf[c.frame_id].act(c.point))[2] for c in contacts)
            q[iz] = -zmin
    sf.done(["joints", "base_z"])
    return q
