"""Gait problems: the YAML schema of problem files, read into the frozen specifications of
`gaitopt.problem_spec` (whose names are re-exported here).

A problem file (problems/*.yaml) becomes a `Problem`; every default is filled in here, apart
from solving, so that a result can hand back exactly what was solved. Unknown keys and wrong
types raise `InputError` naming the file, the key path and the allowed values. The schema is
documented in problems/README.md.
"""
from __future__ import annotations

import copy
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

from .direction import speed_fields, speed_record
from .errors import InputError, InputWarning, short
from .problem_overrides import _list_index, _set_path
from .problem_spec import (FOOT_MODES, COST_TERMS, TRANSCRIPTIONS, CYCLES, CONE_TYPES, TOUCHDOWNS,
                          LINEAR_SOLVERS, MAX_PHASE_KNOTS, MAX_TOTAL_KNOTS, MAX_PHASES, MAX_ITER,
                          MAX_FRICTION, MAX_CLEARANCE, MAX_PITCH, MAX_TORQUE_RATE, MAX_WEIGHT,
                          MAX_GEAR_RATIO, MAX_FOOTHOLD, MAX_TOL, MAX_OVERRIDES, Phase, Constraints,
                          SolverOptions, GearDesign, Problem, validate)
from .robot import load_robot, problem_robot_search
from .design_spec import LimbLengthSpec, limb_lengths_record, limb_lengths_spec
from .terrain_io import read_terrain
from .settings import (FEASIBILITY_KEYS, Bounded, base_height, bounded as _bounded, feasibility_settings,
                       touchdown_speed)
from .yamlio import Fields, finite_number, load_yaml, parse_yaml_text


# ------------------------------------------------------------------------------- YAML → Problem

PROBLEM_KEYS = ("name", "description", "robot", "gait", "speed", "stride", "step_length", "terrain", "constraints",
                "cost", "transcription", "solver", "design")


def _as_number(text: str):
    """float(text) when text is a number (as YAML 1.0 or JSON would read it), else text."""
    try:
        return float(text)
    except ValueError:
        return text


def _footholds(c: Fields) -> dict | None:
    """constraints.footholds: {FOOT: [x, y]} (m; [x] alone on sagittal robots)."""
    raw = c.raw("footholds", None)
    if raw is None:
        return None
    ok = isinstance(raw, dict) and len(raw) <= MAX_PHASES and all(
        isinstance(k, str) and isinstance(v, list) and len(v) in (1, 2)
        and all(finite_number(x) is not None and abs(x) <= MAX_FOOTHOLD for x in v) for k, v in raw.items())
    if not ok:
        raise c.error("footholds", f"expected a mapping FOOT: [x, y] (m, relative to the base origin; "
                                   f"[x] on sagittal robots), got {short(raw)}",
                      f"FOOT: [x, y] with |x|, |y| <= {MAX_FOOTHOLD:g} m")
    return {k: tuple(float(x) for x in v) for k, v in raw.items()}


def _design(f: Fields) -> tuple:
    """design: {gear_ratio: {GROUP: {joints: [...], min, max, guess}}}; `joints` defaults to
    [GROUP] (a single joint named by the key). Joint names are checked against the robot when
    the problem is transcribed."""
    df = f.mapping("design", {})
    gf = df.mapping("gear_ratio", {})
    df.done(["gear_ratio", "limb_lengths"])
    out = []
    for name in gf.data:
        g = gf.mapping(name)
        joints = g.sequence("joints", [str(name)], max_len=MAX_PHASES)
        if not joints or not all(isinstance(j, str) for j in joints):
            raise g.error("joints", f"expected a non-empty list of joint names, got {short(joints)}")
        lo = g.number("min", positive=True, high=MAX_GEAR_RATIO)
        hi = g.number("max", positive=True, high=MAX_GEAR_RATIO)
        guess = g.number("guess", (lo * hi) ** 0.5, positive=True, high=MAX_GEAR_RATIO)
        g.done(["joints", "min", "max", "guess"])
        if not lo < hi or not lo <= guess <= hi:
            raise gf.error(str(name), f"need min < max and min <= guess <= max, got {lo:g}, {guess:g}, {hi:g}",
                           "min < max, min <= guess <= max")
        out.append(GearDesign(str(name), tuple(joints), Bounded(lo, hi, guess)))
    taken = [j for d in out for j in d.joints]
    if len(set(taken)) != len(taken):
        raise df.error("gear_ratio", f"a joint may be in one group only, got {short(taken)}")
    return tuple(out)


def _phase(f: Fields, i: int, raw: Any) -> Phase:
    pf = Fields(raw, f.file, f"gait.phases[{i}]")
    name = pf.string("name", f"phase{i}")
    cf = pf.mapping("contacts")
    contacts = {}
    for foot in cf.data:
        contacts[str(foot)] = cf.string(foot, allowed=FOOT_MODES)
    cf.done()
    knots = pf.integer("knots", low=2, high=MAX_PHASE_KNOTS)
    duration = _bounded(pf, "duration")
    if duration is None:
        raise pf.error("duration", "missing: a number [s] or {min, max, guess}")
    pf.done(["name", "contacts", "knots", "duration"])
    return Phase(name, contacts, knots, duration)


def _constraints(f: Fields) -> Constraints:
    d = Constraints()
    c = f.mapping("constraints", {}, allowed=[k for k in Constraints.__dataclass_fields__ if k != "cone"])
    fr = c.mapping("friction", {}, allowed=["mu", "cone"])
    mu = fr.number("mu", d.friction, positive=True, high=MAX_FRICTION)
    cone = fr.string("cone", d.cone, allowed=CONE_TYPES)
    fr.done(["mu", "cone"])
    rate = c.raw("torque_rate", None)
    cons = Constraints(
        friction=mu, cone=cone,
        clearance=c.number("clearance", d.clearance, low=0.0, high=MAX_CLEARANCE),
        joint_limits=c.boolean("joint_limits", d.joint_limits),
        velocity_limits=c.boolean("velocity_limits", d.velocity_limits),
        torque_speed=c.boolean("torque_speed", d.torque_speed),
        current_limit=c.boolean("current_limit", d.current_limit),
        power_limit=c.boolean("power_limit", d.power_limit),
        effort_limits=c.boolean("effort_limits", d.effort_limits),
        torque_rate=None if rate is None else c.number("torque_rate", positive=True, high=MAX_TORQUE_RATE),
        touchdown=c.string("touchdown", d.touchdown, allowed=TOUCHDOWNS),
        base_pitch_limit=c.number("base_pitch_limit", d.base_pitch_limit, positive=True, high=MAX_PITCH),
        base_height=base_height(c),
        footholds=_footholds(c), touchdown_speed=touchdown_speed(c),
        **feasibility_settings(c, FEASIBILITY_KEYS),
    )
    c.done([k for k in Constraints.__dataclass_fields__ if k not in ("friction", "cone")] + ["friction"])
    return cons


def _cost(f: Fields) -> dict:
    raw_cost = f.raw("cost", "joule_loss")
    if isinstance(raw_cost, str):
        if raw_cost not in COST_TERMS:
            raise f.error("cost", f"unknown cost {short(raw_cost)}", COST_TERMS)
        return {raw_cost: 1.0}
    cf = f.mapping("cost", allowed=COST_TERMS)
    cost = {}
    for term in cf.data:
        if term not in COST_TERMS:
            raise cf.error(str(term), "unknown cost term", COST_TERMS)
        cost[term] = cf.number(term, positive=True, high=MAX_WEIGHT)
    if not cost:
        raise f.error("cost", "at least one cost term is needed", COST_TERMS)
    return cost


def _solver(f: Fields) -> SolverOptions:
    s = f.mapping("solver", {})
    sd = SolverOptions()
    opts = s.raw("options", {})
    if (not isinstance(opts, dict) or len(opts) > MAX_OVERRIDES
            or not all(isinstance(k, str) and len(k) <= 100 for k in opts)
            or not all(isinstance(v, bool) or (isinstance(v, str) and len(v) <= 200)
                       or finite_number(v) is not None for v in opts.values())):
        raise s.error("options", f"expected a mapping of IPOPT option names to finite numbers or strings, "
                                 f"got {short(opts)}", "NAME: number | string")
    # YAML 1.1 reads 1e-3 (no dot) as a string and yes/no as booleans; IPOPT has no string
    # option that looks like a number and no boolean options (its switches are "yes"/"no")
    opts = {k: ("yes" if v else "no") if isinstance(v, bool) else _as_number(v) if isinstance(v, str) else v
            for k, v in opts.items()}
    bad = [k for k, v in opts.items() if isinstance(v, float) and finite_number(v) is None]
    if bad:
        raise s.error(f"options.{bad[0]}", f"must be a finite number, got {short(opts[bad[0]])}",
                      "a finite number or a string")
    solver = SolverOptions(
        name=s.string("name", sd.name, allowed=["ipopt"]),
        linear_solver=s.string("linear_solver", sd.linear_solver, allowed=LINEAR_SOLVERS),
        max_iter=s.integer("max_iter", sd.max_iter, low=0, high=MAX_ITER),
        tol=s.number("tol", sd.tol, positive=True, high=MAX_TOL),
        constr_viol_tol=s.number("constr_viol_tol", sd.constr_viol_tol, positive=True, high=MAX_TOL),
        print_level=s.integer("print_level", sd.print_level, low=0, high=12),
        scale_variables=s.boolean("scale_variables", sd.scale_variables),
        codegen=_codegen(s, sd.codegen),
        options=dict(opts),
    )
    s.done()
    return solver


def _codegen(s: Fields, default):
    """solver.codegen: true, false or auto (`SolverOptions.codegen`)."""
    value = s.raw("codegen", default)
    if isinstance(value, bool) or value == "auto":
        return value
    raise s.error("codegen", f"must be true, false or auto, got {short(value)}", ["true", "false", "auto"])


def _stride(f: Fields, cycle: str) -> Bounded | None:
    """`stride`, or `step_length` (half cycles: half the stride) converted to it."""
    stride = _bounded(f, "stride")
    step = _bounded(f, "step_length")
    if step is not None:
        # a step is the advance from one foot's touchdown to the other's: half a symmetric
        # (half) cycle's stride; a full cycle may hold any number of steps, so say the stride
        if cycle != "half":
            raise f.error("step_length", "needs gait.cycle: half (a step is half the stride); "
                                         "give stride (the advance over the full cycle) instead",
                          ["stride", "speed"])
        if stride is not None:
            raise f.error("step_length", "give step_length or stride, not both", ["step_length", "stride"])
        stride = Bounded(2.0 * step.min, 2.0 * step.max, 2.0 * step.guess)
    return stride


PATTERN_KEYS = ("pattern", "duty_factor", "offsets", "period")


def problem_from_dict(data: dict, source: str = "<dict>", base_dir: Path | None = None) -> Problem:
    """Build and validate a Problem from plain data (as read from YAML)."""
    if isinstance(data, dict) and "robot" not in data and "problem" in data and "parameters" in data:
        # a study given where a problem is expected ("compile, then sweep"): say which command takes it
        raise InputError("this is a study file (problem: and parameters:), not a problem file: run it with gaitopt "
                         "sweep; solve and compile take its problem: file", file=source, field="robot")
    f = Fields(data, source)
    robot = f.string("robot")
    if not robot or "\0" in robot or len(robot) > 1000:
        raise f.error("robot", f"expected a robot folder name or path, got {short(robot)}",
                      "a robot name or a path of at most 1000 characters")
    if base_dir is not None and ("/" in robot or robot.endswith(".yaml") or (base_dir / robot / "robot.yaml").is_file()):
        # a path relative to the problem file (a bare name only when such a folder is there),
        # never to the working directory
        robot = str((base_dir / robot).resolve())
    g = f.mapping("gait")
    if any(g.has(k) for k in PATTERN_KEYS):  # the phases follow from the robot's legs (with phases: an error)
        from .patterns import expand_gait  # why: a problem file that lists its phases needs none of it

        search = problem_robot_search(base_dir) if base_dir is not None else []
        g = Fields(expand_gait(g.data, load_robot(robot, search=search), source), source, "gait")
    cycle = g.string("cycle", "full", allowed=CYCLES)
    raw_phases = g.sequence("phases", max_len=MAX_PHASES)
    if not raw_phases:
        raise g.error("phases", "at least one phase is needed")
    phases = tuple(_phase(f, i, p) for i, p in enumerate(raw_phases))
    g.done(["cycle", "phases"])

    slope, terrain = read_terrain(f)
    cons, cost, solver = _constraints(f), _cost(f), _solver(f)
    speed, sideways, yaw_rate = speed_fields(f)
    problem = Problem(
        robot=robot, phases=phases, cycle=cycle,
        speed=speed, stride=_stride(f, cycle), sideways=sideways, yaw_rate=yaw_rate,
        slope=slope, terrain=terrain, constraints=cons, cost=cost,
        transcription=f.string("transcription", "trapezoidal", allowed=TRANSCRIPTIONS),
        solver=solver, name=f.string("name", Path(source).stem), description=f.string("description", ""),
        source=source, design=_design(f), limb_lengths=limb_lengths_spec(f.mapping("design", {})),
    )
    f.done(PROBLEM_KEYS)
    validate(problem)
    return problem


# ------------------------------------------------------------- a saved record → Problem

def _record_as_file(r: dict) -> dict:
    """A `Problem.to_dict` record spelled in the problem-file schema (what problem_from_dict
    reads): the same values under the file's keys."""
    def bounded(b):
        return None if b is None else {"min": b["min"], "max": b["max"], "guess": b["guess"]}

    # keys a record of an older gaitopt lacks take their defaults, as in a problem file
    cons = dict(r["constraints"])
    cons["friction"] = {k: v for k, v in (("mu", cons.get("friction")), ("cone", cons.pop("cone", None)))
                        if v is not None}
    if cons.get("base_height") is not False:
        cons["base_height"] = bounded(cons.get("base_height"))
    if cons.get("footholds") is not None:
        cons["footholds"] = {k: list(v) for k, v in cons["footholds"].items()}
    phases = [{"name": p["name"], "contacts": dict(p["contacts"]), "knots": p["knots"],
               "duration": bounded(p["duration"])} for p in r["phases"]]
    data = {"robot": r["robot"], "gait": {"cycle": r["cycle"], "phases": phases},
            "speed": speed_record(bounded(r["speed"]), r.get("sideways", 0.0), r.get("yaw_rate", 0.0)),
            "stride": bounded(r["stride"]),
            "terrain": _record_terrain(r), "constraints": cons, "cost": dict(r["cost"]),
            "transcription": r["transcription"], "solver": dict(r["solver"]),
            "name": r["name"], "description": r["description"]}
    if r.get("design"):
        data["design"] = {"gear_ratio": {g["name"]: {"joints": list(g["joints"]), **bounded(g["bounds"])}
                                         for g in r["design"]}}
    if r.get("limb_lengths"):
        data.setdefault("design", {})["limb_lengths"] = limb_lengths_record(LimbLengthSpec(**r["limb_lengths"]))
    return data


def _record_terrain(r: dict) -> dict:
    """The problem-file `terrain` section of a record (older records: the slope only)."""
    if r.get("terrain"):
        return dict(r["terrain"])
    return {"slope_deg": float(r["slope"]) * 180.0 / 3.141592653589793}


def problem_from_record(record: dict, file: str = "<record>") -> Problem:
    """The Problem of a `Problem.to_dict` record (result.json's `problem`), decoded by
    problem_from_dict like a problem file, so that it equals the problem that was saved. The
    robot is kept as recorded: problem_from_dict made a robot path absolute when the problem
    was first read. Raises InputError naming `file` and field `problem`."""
    try:
        with warnings.catch_warnings():  # warned when the problem file was read
            warnings.simplefilter("ignore", InputWarning)
            problem = problem_from_dict(_record_as_file(record), file)
    except InputError as err:  # (a ValueError too: caught first)
        raise InputError(f"malformed problem record ({err.field}: {err.message})", file=file,
                         field="problem") from None
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as err:
        raise InputError(f"malformed problem record ({type(err).__name__}: {str(err)[:80]})", file=file,
                         field="problem") from None
    # the record's slope in radians is exact (slope_deg is its rounding); source was the
    # problem file the saved problem came from, not this record
    try:
        return replace(problem, slope=float(record["slope"]), source=str(record["source"]))
    except (KeyError, TypeError, ValueError) as err:
        raise InputError(f"malformed problem record ({type(err).__name__})", file=file, field="problem") from None


SECTIONS = {"constraints": Constraints, "solver": SolverOptions}


def checked_sections(problem: Problem, changes: dict) -> dict:
    """`changes` of `Problem.replace` with its `constraints` and `solver` (and `terrain` and
    `design`, FILE_KEYS) decoded as a problem file's sections (problem_from_dict: the same
    checks and defaults): a dict there holds problem-file keys merged into the problem's section (`friction: {mu, cone}` merged too), a
    `Constraints` / `SolverOptions` is taken whole. A Python dict or a dataclass built by hand
    used to reach the transcription unchecked (an AttributeError there, or a negative clearance
    solved). InputError (file "Problem.replace") names the key."""
    for key, kind in SECTIONS.items():
        if key in changes and not isinstance(changes[key], (dict, kind)):
            raise InputError(f"must be a mapping of problem-file keys or a {kind.__name__}, got {short(changes[key])}",
                             file="Problem.replace", field=key,
                             allowed=f"e.g. {key}={{'clearance': 0.03}}" if key == "constraints"
                             else f"e.g. {key}={{'max_iter': 200}}")
    whole = {k: v for k, v in changes.items() if k in SECTIONS and not isinstance(v, dict)}
    data = _record_as_file(replace(problem, **whole).to_dict())
    for key in SECTIONS:
        if isinstance(changes.get(key), dict):
            section = dict(data[key])
            for k, v in changes[key].items():
                both = isinstance(v, dict) and isinstance(section.get(k), dict) and k == "friction"
                section[k] = {**section[k], **v} if both else v
            data[key] = section
    # whole file keys given as a problem file writes them: decoded with the file's checks (a raw
    # dict reached the solve before: KeyError 'height_map', AttributeError in codesign.solve)
    decoded_fields = [k for k in SECTIONS if k in changes]
    for key, (fields, example) in FILE_KEYS.items():
        value = changes.get(key, ...)
        if value is ...:
            continue
        if isinstance(value, dict):
            data[key] = value
        elif key == "terrain" and value is None:
            data.pop(key, None)  # the plane
        elif key == "design" and isinstance(value, tuple) and all(isinstance(d, GearDesign) for d in value):
            continue  # taken whole
        else:
            raise InputError(f"must be a mapping of problem-file keys, got {short(value)}",
                             file="Problem.replace", field=key, allowed=example)
        decoded_fields += fields
    decoded = problem_from_dict(data, "Problem.replace")
    return {**changes, **{k: getattr(decoded, k) for k in decoded_fields}}


# problem-file keys Problem.replace decodes whole: the Problem fields each sets, an example
FILE_KEYS = {"terrain": (("terrain", "slope"), "e.g. terrain={'slope_deg': 5} or None (the plane)"),
             "design": (("design", "limb_lengths"), "e.g. design={'gear_ratio': {...}} as in a problem file")}
CHECKED_KEYS = frozenset(SECTIONS) | frozenset(FILE_KEYS)  # the changes `checked_sections` decodes


REPO_PROBLEMS = Path(__file__).resolve().parent.parent / "problems"


def shipped_problems() -> list:
    """The repository's problem files (problems/*.yaml, sorted), without scratch files of work in
    progress (names starting with "_")."""
    return sorted(p for p in REPO_PROBLEMS.glob("*.yaml") if not p.name.startswith("_"))


def load_problem(path: str | Path, overrides: list[str] | dict | None = None) -> Problem:
    """Read a problem file. overrides: ["key.path=value", ...] (values parsed as YAML) or a dict
    {"key.path": value}; list elements are addressed by index (gait.phases.0.knots=10)."""
    path = Path(path)
    data = load_yaml(path)
    data = copy.deepcopy(data)
    items = []
    if isinstance(overrides, (str, bytes)):  # iterated, a string was taken character by character
        raise InputError(f"overrides must be a list of KEY=VALUE strings or a dict, got the string {short(overrides)}",
                         file=str(path), field="--set", allowed=f"[{short(overrides)}] or {{KEY.PATH: VALUE}}")
    if isinstance(overrides, dict):
        items = list(overrides.items())
    else:
        for item in overrides or []:
            if not isinstance(item, str) or "=" not in item:
                raise InputError(f"expected KEY=VALUE, got {short(item)}", file=str(path), field="--set",
                                 allowed="KEY.PATH=VALUE, e.g. speed=0.3, gait.phases.0.knots=8")
            k, v = item.split("=", 1)
            k = k.strip()
            items.append((k, parse_yaml_text(v, str(path), f"--set {k}")))
    if len(items) > MAX_OVERRIDES:
        raise InputError(f"too many overrides: {len(items)}", file=str(path), field="--set",
                         allowed=f"at most {MAX_OVERRIDES}")
    for k, v in items:
        _set_path(data, k, v, str(path))
    return problem_from_dict(data, str(path), path.parent)
