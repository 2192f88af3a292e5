"""Robots: reading a robot folder (robots/<name>/robot.yaml, schema in robots/README.md) into a
`Robot` (the model itself is in `gaitopt.robot_model`, whose names are re-exported here). The
model is rebuilt so that every coordinate is one named 1-DOF joint (q̇ = v exactly):

* ``sagittal``: base_x (prismatic x), base_z (prismatic z), base_pitch (revolute y);
* ``3d``: base_x, base_y, base_z, then Z-Y-X Euler angles base_yaw, base_pitch, base_roll;
* ``fixed``: the URDF root welded to the world.

The URDF's root link hangs on the last base joint. Locked joints are removed with
``pinocchio.buildReducedModel`` before the base is added.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pinocchio as pin

from .errors import InputError
from .settings import feasibility_settings
from .robot_feet import partner_name, reach, read_feet, warn_if_soles_locked
from .robot_checks import check_heel_behind_toe, check_mirror, standing_base_z
from .robot_model import (BASE_COORDINATES, BASE_MODES, Actuator, ContactPoint, Foot, Mirror, Robot,
                          set_reflected_inertia)
from .robot_urdf import (_build_urdf_model, _captured_output, _check_moving_masses, _check_urdf_numbers, _flush,
                         _one_line, _urdf_path, package_share)
from .robot_yaml import (ACTUATOR_FIELDS, ACTUATOR_RANGES, KINEMATICS_KEYS, MAX_MAGNITUDE, ROBOT_KEYS,
                         _allowed_names, _finite_tree, _short_repr, number, read_yaml, vector)
from .yamlio import Fields, load_yaml  # (moved helpers above stay importable from here)

__all__ = ["BASE_COORDINATES", "BASE_MODES", "Actuator", "ContactPoint", "Foot", "Mirror", "Robot",
           "set_reflected_inertia", "available_robots", "load_robot", "package_share", "robot_folder",
           "robot_of"]

# Coordinates that change sign under the left/right reflection y -> -y of the world.
_BASE_MIRROR_FLIP = {"base_y", "base_yaw", "base_roll"}
_BASE_JOINT_MODELS = {
    "base_x": pin.JointModelPX, "base_y": pin.JointModelPY, "base_z": pin.JointModelPZ,
    "base_yaw": pin.JointModelRZ, "base_pitch": pin.JointModelRY, "base_roll": pin.JointModelRX,
}

REPO_ROBOTS = Path(__file__).resolve().parent.parent / "robots"


# --------------------------------------------------------------------------------------------
# loading


def robot_folder(name_or_path: str | Path, search: list[Path] | None = None) -> Path:
    """Resolve a robot name (a folder of robots/) or a path to a robot folder or robot.yaml.

    A bare name (no "/") is looked up in `search`, robots/ and then the working directory;
    anything with a "/" is a path: that folder (or that robot.yaml) or an InputError naming it,
    never a shipped robot of the same name."""
    if not isinstance(name_or_path, (str, Path)) or not str(name_or_path).strip() or "\0" in str(name_or_path):
        raise InputError(f"expected a robot name or a path to a robot folder, got {_short_repr(name_or_path)}",
                         field="robot", allowed=_allowed_names(available_robots()))
    text = str(name_or_path)
    p = Path(text)
    try:
        if p.name == "robot.yaml" and p.is_file():
            return p.parent.resolve()
        if "/" in text or os.sep in text or p.is_absolute():  # a path: that folder or nothing
            _check_robot_yaml(p, text)
            return p.resolve()
        roots = list(search or []) + [REPO_ROBOTS]
        for root in roots:
            cand = Path(root) / text
            if (cand / "robot.yaml").is_file():
                return cand.resolve()
        if p.is_dir() and (p / "robot.yaml").exists():  # a path relative to the working directory
            _check_robot_yaml(p, text)
            return p.resolve()
    except OSError as err:  # e.g. a name too long for the file system, a permission denied
        raise InputError(f"cannot open {_short_repr(text)}: {err.strerror or err}", field="robot") from None
    looked = ", ".join(str(r) for r in roots)
    raise InputError(f"no robot folder {_short_repr(text)} (a folder with robot.yaml; looked in {looked} "
                     "and the working directory)", field="robot", allowed=_allowed_names(available_robots()))


def _check_robot_yaml(folder: Path, text: str) -> None:
    """The folder `folder` (the path `text` given by the user) holds a robot.yaml file, or InputError."""
    if folder.name == "robot.yaml" and not folder.is_dir():
        raise InputError("file not found", file=text, field="robot")
    if folder.name == "robot.yaml" and not (folder / "robot.yaml").exists():
        raise InputError("is a directory, expected the robot's YAML file", file=text, field="robot")
    yaml_file = folder / "robot.yaml"
    if not folder.is_dir():
        what = "does not exist" if not folder.exists() else "is not a folder"
        raise InputError(f"{_short_repr(text)} is not a robot folder ({what})", field="robot")
    if yaml_file.is_dir():
        raise InputError("is a directory, expected the robot's YAML file", file=str(yaml_file), field="robot")
    if not yaml_file.is_file():
        raise InputError(f"{_short_repr(text)} is not a robot folder (no robot.yaml there)", field="robot")


def available_robots() -> list[str]:
    if not REPO_ROBOTS.is_dir():
        return []
    return sorted(p.name for p in REPO_ROBOTS.iterdir() if (p / "robot.yaml").is_file())


def load_robot(name_or_path: str | Path, *, base: str | None = None,
               search: list[Path] | None = None) -> Robot:
    """Load a robot folder into a `Robot`.

    name_or_path: a folder name under robots/ or a path; base: override the file's base mode
    (sagittal | 3d | fixed). Raises InputError naming file, key and allowed values (one line of
    at most a few hundred characters).
    """
    try:
        return _load_robot(name_or_path, base, search)
    except InputError as err:
        raise _shortened(err) from None


def _shortened(err: InputError, limit: int = 400) -> InputError:
    """`err` as one line of at most about `limit` characters (a long key, value or list cut)."""
    if len(str(err)) <= limit and "\n" not in str(err):
        return err
    allowed = err.allowed
    if isinstance(allowed, (list, tuple, set, frozenset)):
        allowed = _allowed_names(sorted(allowed, key=str))
    if allowed is not None:
        allowed = _one_line(allowed, 100)
    file = _one_line(err.file, 120) if err.file else err.file
    field = _one_line(err.field, 80) if err.field else err.field
    return InputError(_one_line(err.message, 160), file=file, field=field, allowed=allowed)


def _load_robot(name_or_path, base, search) -> Robot:
    folder = robot_folder(name_or_path, search)
    file = folder / "robot.yaml"
    f = Fields(read_yaml(file), file)
    name = f.string("name")
    description = f.string("description", "")
    urdf = _urdf_path(f, folder)
    if base is not None and base not in BASE_MODES:
        raise InputError(f"unknown base mode {_short_repr(base, 60)}", field="base", allowed=BASE_MODES)
    file_base = f.string("base", allowed=BASE_MODES)
    base = base if base is not None else file_base

    full = _build_urdf_model(urdf, file)
    _check_urdf_numbers(full, urdf, file)
    joint_names = list(full.names)[1:]

    locked_f = f.mapping("locked", {})
    locked = {}
    for j in locked_f.data:
        if j not in joint_names:
            raise locked_f.error(str(j), "not a joint of the URDF", _allowed_names(joint_names, near=j))
        locked[j] = number(locked_f, j)
        jm = full.joints[full.getJointId(j)]
        if jm.nq == 1:
            lo, hi = full.lowerPositionLimit[jm.idx_q], full.upperPositionLimit[jm.idx_q]
            if not lo <= locked[j] <= hi:
                raise locked_f.error(str(j), f"{locked[j]} is outside the joint's URDF limits", f"[{lo:.6g}, {hi:.6g}]")
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
    _check_moving_masses(reduced, urdf, file)

    _override_limits(f, reduced)
    model = _with_base(reduced, base)

    coord = [model.names[j] for j in range(1, model.njoints)]
    n_base = len(BASE_COORDINATES[base])
    movable = coord[n_base:]

    passive = f.sequence("passive", [])
    for j in passive:
        if not isinstance(j, str) or j not in movable:
            raise f.error("passive", f"{_short_repr(j, 60)} is not a joint of the model", _allowed_names(movable, near=j))
    actuated = [j for j in movable if j not in passive]

    size = reach(model)  # the farthest frame from the base: bounds foot points, scales the mirror check
    feet, contacts = read_feet(f, model, base, size)
    mirror = _mirror(f, model, base, coord, feet, contacts, joint_names)
    actuators, reflected = _actuators(f, actuated)
    set_reflected_inertia(model, actuators, reflected)
    standing_q = _standing(f, model, coord, base, contacts)
    check_heel_behind_toe(f, model, standing_q, feet, contacts)
    warn_if_soles_locked(f, model, standing_q, contacts)
    check_mirror(f, model, mirror, contacts, size, locked=tuple(locked))
    kinematics = _kinematics(f, coord, model, standing_q)
    f.raw("sources", None)
    f.done(ROBOT_KEYS)
    if name != folder.name:
        raise f.error("name", f"must equal the folder name {folder.name!r}")
    return Robot(name, folder, urdf, base, model, locked, feet, contacts, mirror, actuators,
                 actuated, standing_q, description, kinematics)


def problem_robot_search(problem_dir: Path) -> list:
    """Where the robot folder a problem file in `problem_dir` names is looked for besides the
    shipped robots/: that folder itself, then robots/ beside it (listed so that "no robot
    folder" names both)."""
    problem_dir = Path(problem_dir).resolve()
    return [problem_dir, problem_dir.parent / "robots"]


def robot_of(problem) -> Robot:
    """Load a problem's robot (a robots/ folder name, or a path relative to the problem file)."""
    search = []
    if problem.source:
        source = Path(problem.source).resolve()
        # a source that is no file (a Problem built in code and given a name) has no folder of its own
        search = problem_robot_search(source.parent) if source.is_file() else [source.parent.parent / "robots"]
    return load_robot(problem.robot, search=search)


def _override_limits(f: Fields, model: pin.Model) -> None:
    lim = f.mapping("joint_limits", {})
    names = list(model.names)[1:]
    for j in lim.data:
        if j not in names:
            raise lim.error(str(j), "not a joint of the model (locked joints have no limits)", _allowed_names(names, near=j))
        jf = lim.mapping(j, allowed=["lower", "upper", "velocity", "effort"])
        jid = model.getJointId(j)
        iq, iv = model.joints[jid].idx_q, model.joints[jid].idx_v
        lower, upper = model.lowerPositionLimit.copy(), model.upperPositionLimit.copy()
        vel, eff = model.velocityLimit.copy(), model.effortLimit.copy()
        lower[iq] = number(jf, "lower") if jf.has("lower") else lower[iq]
        upper[iq] = number(jf, "upper") if jf.has("upper") else upper[iq]
        vel[iv] = number(jf, "velocity", positive=True, allowed="> 0 rad/s or m/s") if jf.has("velocity") else vel[iv]
        eff[iv] = number(jf, "effort", positive=True, allowed="> 0 N·m or N") if jf.has("effort") else eff[iv]
        jf.done(["lower", "upper", "velocity", "effort"])
        if model.joints[jid].shortname().startswith("JointModelR"):  # revolute: radians
            for key, value in (("lower", lower[iq]), ("upper", upper[iq])):
                if jf.has(key):
                    _within_a_turn(jf, key, value, "joint limits")
        if not lower[iq] < upper[iq]:
            key = "lower" if jf.has("lower") else "upper"
            raise jf.error(key, f"lower {lower[iq]} must be below upper {upper[iq]}")
        model.lowerPositionLimit, model.upperPositionLimit = lower, upper
        model.velocityLimit, model.effortLimit = vel, eff
    lim.done()


def _within_a_turn(fields: Fields, key: str, value: float, what: str) -> None:
    """Refuse an angle of more than a turn: degrees typed where radians go."""
    if abs(value) > 2 * np.pi:
        raise fields.error(key, f"{value:g} rad is more than a turn: {what} are in radians "
                           f"({value:g}° would be {np.radians(value):.4g} rad)", "[-2π, 2π] rad")


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


def _mirror(f: Fields, model, base, coord, feet, contacts, all_joints):
    if not f.has("mirror"):
        f.raw("mirror", None)
        return None
    mf = f.mapping("mirror", allowed=["joints", "flip", "feet"])
    n = len(coord)
    perm = np.arange(n)
    sign = np.ones(n)
    for c in BASE_COORDINATES[base]:
        if c in _BASE_MIRROR_FLIP:
            sign[coord.index(c)] = -1.0
    for pair in mf.sequence("joints", []):
        if not (isinstance(pair, list) and len(pair) == 2):
            raise mf.error("joints", f"expected pairs [left, right], got {_short_repr(pair, 80)}")
        a, b = pair
        for j in (a, b):
            if not isinstance(j, str) or j not in coord[len(BASE_COORDINATES[base]):]:
                raise mf.error("joints", f"{_short_repr(j, 60)} is not a joint of the model (locked joints are "
                               "left out)", _allowed_names(coord[len(BASE_COORDINATES[base]):], near=j))
        ia, ib = coord.index(a), coord.index(b)
        perm[ia], perm[ib] = ib, ia
    for j in mf.sequence("flip", []):
        if not isinstance(j, str):
            raise mf.error("flip", f"expected joint names, got {_short_repr(j, 60)}", _allowed_names(all_joints))
        if j not in coord:
            if j in all_joints:
                continue  # a flipped joint may be locked in a reduced variant
            raise mf.error("flip", f"{_short_repr(j, 60)} is not a joint of the URDF", _allowed_names(all_joints, near=j))
        sign[coord.index(j)] *= -1.0
    foot_pairs = {}
    for pair in mf.sequence("feet", []):
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) and p in feet for p in pair)):
            raise mf.error("feet", f"expected pairs of foot names, got {_short_repr(pair, 80)}",
                           _allowed_names(feet))
        if [partner_name(c, pair[1]) for c in contacts if c.foot == pair[0]] != list(feet[pair[1]].contacts):
            raise mf.error("feet", f"feet {pair[0]!r} and {pair[1]!r} are not of the same kind (point, heel/toe, "
                           "heel/toe with a sole width)")
        if pair[0] in foot_pairs or pair[1] in foot_pairs:
            raise mf.error("feet", "the pairs must not share feet")
        foot_pairs[pair[0]], foot_pairs[pair[1]] = pair[1], pair[0]
    for foot in feet:
        foot_pairs.setdefault(foot, foot)
    names = [c.name for c in contacts]
    cperm = []
    for c in contacts:
        other = feet[foot_pairs[c.foot]]
        partner = partner_name(c, other.name)  # the same role (and sole side) on the partner foot
        cperm.append(names.index(partner))
    mf.done(["joints", "flip", "feet"])
    if np.any(perm[perm] != np.arange(n)):
        raise mf.error("joints", "the pairs must not share joints")
    return Mirror(perm, sign, foot_pairs, np.array(cperm, dtype=int))


def _actuators(f: Fields, actuated):
    """(joint → Actuator, reflected_inertia switch) from robot.yaml's `actuators`."""
    af = f.mapping("actuators", allowed=["default", "joints", "reflected_inertia"])
    default = af.mapping("default", {})
    per_joint = af.mapping("joints", {})
    reflected = af.boolean("reflected_inertia", True)
    af.done(["default", "joints", "reflected_inertia"])

    def read(fields: Fields, base: dict) -> dict:
        out = dict(base)
        for k in fields.data:
            if k not in ACTUATOR_FIELDS:
                raise fields.error(str(k), "unknown actuator field", ACTUATOR_FIELDS)
            if k in ("motor", "source"):
                out[k] = fields.string(k)
            else:
                out[k] = number(fields, k, **ACTUATOR_RANGES[k][0], allowed=ACTUATOR_RANGES[k][1])
        return out

    base_vals = read(default, {})
    out = {}
    for j in per_joint.data:
        if j not in actuated:
            raise per_joint.error(str(j), "not an actuated joint", _allowed_names(actuated, near=j))
    for j in actuated:
        vals = read(per_joint.mapping(j, allowed=ACTUATOR_FIELDS), base_vals) if per_joint.has(j) else base_vals
        missing = [k for k in ("resistance", "torque_constant", "voltage", "current_limit", "gear_ratio")
                   if k not in vals]
        if missing:  # named where they would go: the joint's own entry if it has one, else default
            where, whom = (f"joints.{j}", "") if per_joint.has(j) else ("default", f" (joint {j} has no entry of its own)")
            raise af.error(where, f"missing actuator data {missing}{whom}", ACTUATOR_FIELDS)
        out[j] = Actuator(**vals)
    _warn_if_stalled(out, f.file)
    return out, reflected


def _warn_if_stalled(actuators: dict, source) -> None:
    """One warning when, for some joints, the supply voltage cannot drive a tenth of the current
    limit through the winding (stall current V/R): consistent data have V/R near or above the
    limit; far below it, a resistance given in mΩ or a voltage in mV is the usual cause, and the
    solve then fails as infeasible after hundreds of iterations (a new user's trial: R 300 for 0.3)."""
    ratio = {j: a.voltage / a.resistance / a.current_limit for j, a in actuators.items()}
    stalled = [j for j, r in ratio.items() if r < 0.1]
    if not stalled:
        return
    import warnings

    j = min(stalled, key=ratio.get)
    a = actuators[j]
    stall = a.voltage / a.resistance
    others = f" and {len(stalled) - 1} other joints" if len(stalled) > 1 else ""
    warnings.warn(f"{source}: actuators: joint {j}{others}: the stall current voltage / resistance = {stall:.3g} A is "
                  f"{100 * ratio[j]:.2g} % of the current_limit {a.current_limit:.3g} A, so the motor gives at most "
                  f"{a.gear_efficiency * a.gear_ratio * a.torque_constant * stall:.3g} N·m: check the units "
                  "(resistance in Ω, voltage in V)", stacklevel=2)


def _kinematics(f: Fields, coord, model, standing_q) -> dict:
    """robot.yaml `kinematics`: the robot's own settings of the kinematic feasibility
    constraints (gaitopt.constraints.kinematics), in the problem file's forms, plus
    `knees: {JOINT: {bend: 1 | -1, straight: rad}}` (knee-type joints and the side they bend to;
    the standing angle and the joint's range must lie on that side, `_check_bend`)."""
    kf = f.mapping("kinematics", {}, allowed=list(KINEMATICS_KEYS))
    out = {}
    if kf.has("knees"):
        knees = kf.mapping("knees")
        out["knees"] = {}
        for joint in knees.data:
            if joint not in coord:
                raise knees.error(str(joint), "unknown joint", allowed=_allowed_names(coord, near=joint))
            k = knees.mapping(joint, allowed=["bend", "straight"])
            bend = k.raw("bend")
            if isinstance(bend, bool) or bend not in (1, -1):
                raise k.error("bend", f"expected 1 or -1 (the sign of q when the knee bends), got "
                              f"{_short_repr(bend, 40)}", allowed="1, -1")
            out["knees"][str(joint)] = {"bend": float(bend), "straight": number(k, "straight", 0.0)}
            _within_a_turn(k, "straight", out["knees"][str(joint)]["straight"], "knee angles")
            _check_bend(k, coord.index(joint), out["knees"][str(joint)], model, standing_q)
            k.done(["bend", "straight"])
    # the other keys have the problem file's forms: read by the same decoder
    try:
        settings = feasibility_settings(kf, [k for k in KINEMATICS_KEYS if k != "knees" and kf.has(k)])
    except OverflowError:  # an integer too large for a float
        raise f.error("kinematics", "numbers must be finite") from None
    for key, value in settings.items():
        _finite_tree(kf, key, value)
    out.update(settings)
    kf.done(KINEMATICS_KEYS)
    return out


def _check_bend(k: Fields, i: int, knee: dict, model, standing_q) -> None:
    """Refuse a knee whose `bend` sign contradicts the robot: the standing angle bent to the
    other side of `straight`, or a joint range with no room on the bend side. A flipped sign
    was otherwise blamed at the solve on the problem file's `constraints` ("the position
    bounds leave no room"), where there is nothing to fix (a new user's Go2 trial)."""
    bend, straight = knee["bend"], knee["straight"]
    q, lo, hi = float(standing_q[i]), float(model.lowerPositionLimit[i]), float(model.upperPositionLimit[i])
    other = -int(bend)
    if bend * (q - straight) < 0:
        raise k.error("bend", f"{int(bend)}, but the standing angle {q:.6g} rad is bent to the other side of "
                      f"straight ({straight:.6g} rad)", allowed=f"{other}, or standing angles on the bend side")
    if bend * ((hi if bend > 0 else lo) - straight) <= 0:
        raise k.error("bend", f"{int(bend)}, but the joint's range [{lo:.6g}, {hi:.6g}] rad has no angle bent that "
                      f"way from straight ({straight:.6g} rad)", allowed=f"{other}, or a range on the bend side")


def _standing(f: Fields, model, coord, base, contacts):
    sf = f.mapping("standing", {}, allowed=["joints", "base_z"])
    q = pin.neutral(model)
    jf = sf.mapping("joints", {})
    for j in jf.data:
        if j not in coord:
            raise jf.error(str(j), "not a coordinate of the model", _allowed_names(coord, near=j))
        i = coord.index(j)
        q[i] = number(jf, j)
        lo, hi = model.lowerPositionLimit[i], model.upperPositionLimit[i]
        if not lo <= q[i] <= hi:
            raise jf.error(str(j), f"{q[i]} is outside the joint limits", f"[{lo:.6g}, {hi:.6g}]")
    jf.done()
    if base != "fixed":
        q[coord.index("base_z")] = standing_base_z(sf, model, q, contacts)
    sf.done(["joints", "base_z"])
    return q
