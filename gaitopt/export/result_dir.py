"""A result directory (`gaitopt solve -o DIR`): trajectory.csv, result.json and knots.npz
(every knot and Hermite–Simpson midpoint, losslessly, so that `load_result(DIR)` rebuilds the
exact interpolant), written by `save` and read back by `load_result`."""
from __future__ import annotations

import copy
import dataclasses
import json
import warnings
import zipfile
from pathlib import Path

import numpy as np

from ..collocation import METHODS
from ..errors import InputError
from ..feasibility import feasibility_bands
from ..problem import problem_from_record
from ..result import Multipliers, Result
from ..result_notes import joints_at_position_limits
from ..terrain_io import periodic_slope
from ..robot import load_robot, robot_of
from ..robot_model import ACTUATOR_NUMBERS  # the numbers trajectory.csv's `actuators` record holds
from ..trajectory import Trajectory
from .atomic import atomic_open, atomic_write_text
from .commented_csv import read_comments
from .model_header import design_record
from .trajectory_csv import advance_from_header, header, read_trajectory_csv, split_points, write_trajectory_csv

KNOTS_FILE = "knots.npz"
IMPULSE_PREFIX = "impulse."  # knots.npz members of the impact impulses, one per phase
RESULT_KEYS = ("success", "status", "message", "cost", "cost_terms", "iterations", "problem")


def problem_record(problem) -> dict:
    """The problem as result.json holds it (every default filled in); `problem_from_record`
    reads it back equal."""
    return problem.to_dict()


def result_dict(result) -> dict:
    s = result.stats
    return {
        "success": bool(result.success),
        "status": result.status,
        "message": result.message,
        "cost": result.cost,
        "cost_terms": result.cost_terms,
        "iterations": s["iterations"],
        "solve_time_s": s["solve_time_s"],
        "setup_time_s": s["setup_time_s"],
        "function_eval_time_s": s["function_eval_time_s"],
        "nlp": {"variables": s["n_variables"], "constraints": s["n_constraints"]},
        "robot": result.robot.name,
        "stride": result.trajectory.stride,
        "period": result.trajectory.period,
        "speed": result.trajectory.stride / result.trajectory.period,
        "max_violation": result.max_violation,
        "violations": result.violations(10),
        "problem": problem_record(result.problem),
        "versions": header(result)["versions"],
        # added 2026-11-23, last so that the earlier keys keep their order
        "returned_iteration": s.get("returned_iteration", s["iterations"]),
        "ipopt_options": s.get("ipopt_options", {}),
        # added 2026-11-24 (solver.codegen): the blocks whose derivatives ran compiled, and the
        # seconds this solve's set-up spent compiling them (0 when all came from the cache)
        "compiled_blocks": list(s.get("compiled_blocks", [])),
        "compile_time_s": s.get("compile_time_s", 0.0),
        # added 2026-11-25: what a co-design chose (trajectory.csv's header `design`), None without one
        "design": design_record(result),
        # added 2026-11-25: the kinematic feasibility bands the optimum presses on at its knots
        # (gaitopt.feasibility.binding_rules; [] for a failed solve)
        "binding_rules": result.binding_rules(),  # computed once, shared with its summary
        # added 2026-11-25: the joints the optimum rests on a position limit of at some knot
        # (gaitopt.result_notes.joints_at_position_limits; [] for a failed solve)
        "joints_at_position_limits": joints_at_position_limits(result),
        # added 2026-11-25: the problem's own blocks whose derivatives ran compiled (from the
        # cache `gaitopt compile PROBLEM` filled; `compiled_blocks` lists the robot functions')
        "compiled_own_blocks": list(s.get("compiled_own_blocks", [])),
        # added 2026-11-25 (thirteenth session): the feasibility bands' numbers as imposed, a
        # problem's null settings resolved to the robot's defaults (gaitopt.feasibility)
        "feasibility_bands": feasibility_bands(result.problem, result.robot),
        # added 2026-11-25 (thirteenth session): each touchdown's speed and impact loss
        # (gaitopt.touchdowns.touchdown_table; the summary's "touchdowns" line)
        "touchdowns": result.touchdowns(),
    }


def write_result_json(result, path: str | Path) -> Path:
    path = Path(path)
    atomic_write_text(path, json.dumps(result_dict(result), indent=2, default=str))
    return path


def write_knots_npz(result, path: str | Path) -> Path:
    """Write every knot and Hermite–Simpson midpoint value losslessly (`Trajectory.to_arrays`):
    the companion of trajectory.csv that `load_result` prefers. With the solver's point and
    multipliers (a solved Result) also `nlp.x`, `nlp.lam_g`, `nlp.lam_x`, `nlp.signature`
    (`Result.multipliers`): a warm start from this directory on an NLP of the same shape starts
    from them (a sweep's neighbour, gaitopt.study). The impact impulses [N·s] per phase
    (`Result.impulses`) as `impulse.PHASE`: a warm start on an NLP of another shape interpolates
    the trajectory and takes them as they are (`gaitopt.guess.warm_start`)."""
    path = Path(path)
    arrays = result.trajectory.to_arrays()
    arrays.update({f"{IMPULSE_PREFIX}{name}": np.asarray(lam, float) for name, lam in (result.impulses or {}).items()})
    m = getattr(result, "multipliers", None)
    if m is not None and result.x is not None:
        arrays.update({"nlp.x": np.asarray(result.x, float), "nlp.lam_g": np.asarray(m.lam_g, float),
                       "nlp.lam_x": np.asarray(m.lam_x, float), "nlp.signature": np.array(str(m.signature))})
    with atomic_open(path, "wb") as fh:
        np.savez(fh, **arrays)  # doubles: compression saved a fifth of the size for 3× the time
    return path


def read_nlp_point(path: str | Path) -> tuple:
    """(x (n,), Multipliers) from a knots.npz that has them (`write_knots_npz`), else (None, None):
    a file without them, or whose members are not finite 1-D arrays of matching sizes and a
    short signature, gives none (a warm start then starts from the trajectory alone)."""
    try:
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as data:
            if "nlp.x" not in data:
                return None, None
            x, lam_g, lam_x = (np.array(data[k], dtype=float) for k in ("nlp.x", "nlp.lam_g", "nlp.lam_x"))
            signature = str(data["nlp.signature"])
    except (KeyError, ValueError, TypeError, OSError, EOFError, zipfile.BadZipFile):
        return None, None
    ok = (x.ndim == lam_g.ndim == lam_x.ndim == 1 and x.shape == lam_x.shape and len(signature) <= 64
          and all(np.all(np.isfinite(a)) for a in (x, lam_g, lam_x)))
    return (x, Multipliers(lam_g, lam_x, signature)) if ok else (None, None)


def read_impulses(path: str | Path) -> dict:
    """The impact impulses phase → (k,) [N·s] of a knots.npz (`write_knots_npz`); {} for a file
    without them or with a member that is not a finite 1-D array (a warm start then guesses them)."""
    try:
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as data:
            out = {k[len(IMPULSE_PREFIX):]: np.array(data[k], dtype=float) for k in data.files
                   if k.startswith(IMPULSE_PREFIX)}
    except (KeyError, ValueError, TypeError, OSError, EOFError, zipfile.BadZipFile):
        return {}
    return out if all(a.ndim == 1 and np.all(np.isfinite(a)) for a in out.values()) else {}


def save(result, outdir: str | Path) -> dict:
    """Write OUTDIR/trajectory.csv, OUTDIR/result.json and OUTDIR/knots.npz (the exact knot
    and midpoint values, for `load_result`); returns their paths."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    result = _with_designed_urdf(result, outdir)
    return {"trajectory": write_trajectory_csv(result, outdir / "trajectory.csv"),
            "result": write_result_json(result, outdir / "result.json"),
            "knots": write_knots_npz(result, outdir / KNOTS_FILE)}


def _with_designed_urdf(result, outdir: Path):
    """A limb-length co-design's Result with its robot's URDF written as OUTDIR/robot/<name>
    (`codesign.write_designed`; a reloaded one's designed folder copied), and the robot naming
    that file: trajectory.csv's header then names the legs the gait was solved with, not the
    shipped robot's, and `load_result` reloads them. Any other Result is returned as it is."""
    robot = result.robot
    if result.problem.limb_lengths is None:
        return result
    folder = outdir / "robot" / robot.name
    if result.x is not None and result.layout is not None:
        from ..codesign import write_designed  # why: the solve stack, co-design results only
        write_designed(result, outdir / "robot")
    elif Path(robot.folder).resolve() != folder.resolve() and (Path(robot.folder) / "robot.yaml").is_file() \
            and Path(robot.urdf).parent.resolve() == Path(robot.folder).resolve() \
            and Path(robot.folder).parent.name == "robot":  # a reloaded co-design's own folder
        folder.mkdir(parents=True, exist_ok=True)
        for f in (Path(robot.folder) / "robot.yaml", Path(robot.urdf)):
            atomic_write_text(folder / f.name, f.read_text(encoding="utf-8"))
    else:
        return result
    robot = copy.copy(robot)
    robot.urdf = str((folder / f"{robot.name}.urdf").resolve())
    return dataclasses.replace(result, robot=robot)


# ------------------------------------------------------------------------ reading a result back


def _recorded_actuators(csv_path: Path, robot):
    """The robot with the actuators its trajectory.csv header records (`actuators`: the motors
    and gears the gait was solved with), where they differ from the robot folder's: a study
    case's swept gear or motor (`gaitopt sweep` solves each case on `Robot.with_actuators`), so
    that plots, exports and the MuJoCo replay of OUTDIR/cases/<case> see that case's motor
    envelope and reflected rotor inertia G²·J, not the shipped ones (until 2026-11-25 they saw
    the shipped ones: a user's Go2 calf at G = 40 was drawn outside a 12.134:1 envelope). The
    robot as it is without the file or the record."""
    if not csv_path.is_file():
        return robot
    record = read_comments(csv_path)[0].get("actuators")
    if not isinstance(record, dict):
        return robot
    acts = {}
    for j, rec in record.items():
        if j not in robot.actuators or not isinstance(rec, dict):
            continue
        a = robot.actuators[j]
        values = {k: (np.inf if k == "rated_power" and rec.get(k) is None else rec.get(k, getattr(a, k)))
                  for k in ACTUATOR_NUMBERS}
        if all(values[k] == getattr(a, k) for k in ACTUATOR_NUMBERS):
            continue
        try:
            motor = rec.get("motor", a.motor)
            acts[j] = dataclasses.replace(a, **values, motor=motor if isinstance(motor, str) else a.motor)
        except InputError as err:
            raise InputError(err.message, file=str(csv_path), field=f"actuators.{j}.{(err.field or '').split('.')[-1]}") \
                from None
    return robot.with_actuators(acts) if acts else robot


def _designed_gears(csv_path: Path, problem, robot):
    """A gear co-design's robot with the gears its trajectory.csv header records (`design`
    gear_ratio, the designed actuators the gait was solved with); the robot as it is without a
    design section, or without the file or the record (written before it)."""
    if not problem.design or not csv_path.is_file():
        return robot
    gears = ((read_comments(csv_path)[0].get("design") or {}).get("gear_ratio")) or {}
    acts = {}
    for g in problem.design:
        G = gears.get(g.name)
        if G is None:
            continue
        if isinstance(G, bool) or not isinstance(G, (int, float)) or not g.bounds.min * (1 - 1e-6) <= G <= \
                g.bounds.max * (1 + 1e-6):
            raise InputError(f"gear ratio {str(G)[:40]!r} outside the design's [{g.bounds.min:g}, {g.bounds.max:g}]",
                             file=str(csv_path), field=f"design.gear_ratio.{g.name}")
        acts.update({j: robot.actuators[j].with_gear(float(G)) for j in g.joints})
    return robot.with_actuators(acts) if acts else robot


def _modes_by_phase(problem, robot) -> dict:
    """Phase name → foot modes over the full cycle (mirrored halves through the foot pairs)."""
    out = {p.name: dict(p.contacts) for p in problem.phases}
    if problem.cycle == "half" and robot.mirror is not None:
        pairs = robot.mirror.foot_pairs
        out.update({f"{p.name}:mirrored": {pairs[f]: m for f, m in p.contacts.items()} for p in problem.phases})
    return out


def _trajectory_from_csv(path: Path, problem, robot, table=None) -> Trajectory:
    meta, cols = table if table is not None else read_trajectory_csv(path, midpoints=True)
    cols, mids = split_points(cols)
    contacts = [c.name for c in robot.contacts]
    shift = advance_from_header(meta, robot.coordinates, periodic_slope(problem), path)
    stride = float(meta["stride"])
    if mids is None and not METHODS[problem.transcription].knot_table_exact:
        warnings.warn(f"{path}: no {KNOTS_FILE} next to it; {problem.transcription} midpoint torques and forces "
                      "are approximated by the mean of their interval's ends", stacklevel=4)
    return Trajectory.from_knot_table(cols, coordinates=robot.coordinates, actuated=robot.actuated,
                                      contact_names=contacts, stride=stride, period=float(meta["period"]),
                                      method=problem.transcription, modes=_modes_by_phase(problem, robot),
                                      base_shift=shift, mids=mids)


def _read_result_json(d: Path) -> dict:
    if not d.is_dir():
        raise InputError("no such result directory", file=str(d))
    rj = d / "result.json"
    if not rj.is_file():
        raise InputError("no result.json in this directory (write one with `gaitopt solve -o DIR`)", file=str(d))
    try:
        info = json.loads(rj.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InputError(f"not valid JSON ({str(err)[:80]})", file=str(rj)) from None
    except (OSError, RecursionError) as err:
        raise InputError(f"cannot read ({type(err).__name__})", file=str(rj)) from None
    if not isinstance(info, dict):
        raise InputError(f"not a JSON object (a mapping) but a {type(info).__name__}", file=str(rj))
    missing = [k for k in RESULT_KEYS if k not in info]
    if missing:
        raise InputError(f"missing keys {missing}", file=str(rj), allowed=None)
    for key, kinds, what in _RESULT_TYPES:
        x = info[key]
        if isinstance(x, bool) and bool not in kinds or not isinstance(x, kinds):
            raise InputError(f"expected {what}, got {str(x)[:40]!r}", file=str(rj), field=key)
    for key in ("period", "stride"):
        x = info.get(key)
        if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float)) or not np.isfinite(x)
                              or (key == "period" and x <= 0)):
            raise InputError(f"must be a {'positive ' if key == 'period' else ''}finite number, got {str(x)[:40]!r}",
                             file=str(rj), field=key)
    return info


_RESULT_TYPES = (("success", (bool,), "true or false"), ("status", (str,), "a string"),
                 ("message", (str,), "a string"), ("cost", (int, float, type(None)), "a number"),
                 ("cost_terms", (dict,), "a mapping"), ("iterations", (int,), "a whole number"),
                 ("problem", (dict,), "a mapping"))


def _malformed(err: Exception, path: Path) -> InputError:
    """`KEY: what is wrong` (the checks of Trajectory.from_arrays/from_knot_table) → InputError."""
    text = " ".join(str(err).split())[:200]
    key, sep, what = text.partition(": ")
    if sep and key and " " not in key and "'" not in key:
        return InputError(what, file=str(path), field=key)
    return InputError(f"cannot read the trajectory ({type(err).__name__}: {text})", file=str(path))


def _check_agree(traj: Trajectory, table: tuple, knots: Path, csv_path: Path, robot) -> None:
    """knots.npz and trajectory.csv of one directory hold the same knots (and midpoints)."""
    meta, cols = table
    cols, mids = split_points(cols)
    if mids is not None and any(p.mid is not None for p in traj.phases):
        _check_mids_agree(traj, mids, knots, csv_path)
    kn = traj.knots()
    n_csv, n_npz = len(cols["time"]), len(kn["time"])
    where = f"{csv_path} vs {KNOTS_FILE}"
    if n_csv != n_npz:
        raise InputError(f"{n_csv} knot rows in trajectory.csv but {n_npz} in {KNOTS_FILE}", file=str(knots),
                         field="shape")
    for key, a, b in (("period", float(meta["period"]), traj.period), ("stride", float(meta["stride"]), traj.stride)):
        if abs(a - b) > 1e-9 * max(1.0, abs(b)):
            raise InputError(f"{a!r} in trajectory.csv but {b!r} in {KNOTS_FILE}", file=str(knots), field=key)
    if [str(x) for x in cols["phase"]] != [str(x) for x in kn["phase"]]:
        raise InputError(f"the phases of trajectory.csv and {KNOTS_FILE} differ", file=where, field="phase")
    if not np.allclose(cols["time"], kn["time"], rtol=1e-9, atol=1e-12):
        raise InputError(f"the knot times of trajectory.csv and {KNOTS_FILE} differ", file=where, field="time")
    for k, names in (("q", traj.coordinates), ("tau", traj.actuated)):
        for j, c in enumerate(names):
            col = cols.get(f"{k}.{c}")
            if col is None:
                raise InputError("missing column", file=str(csv_path), field=f"{k}.{c}")
            if not np.allclose(col, kn[k][:, j], rtol=1e-9, atol=1e-9):
                raise InputError(f"trajectory.csv and {KNOTS_FILE} differ", file=where, field=f"{k}.{c}")


def _check_mids_agree(traj: Trajectory, mids: dict, knots: Path, csv_path: Path) -> None:
    """The midpoint rows of trajectory.csv (format 2) are knots.npz's midpoints."""
    where = f"{csv_path} vs {KNOTS_FILE}"
    ours = [p.mid for p in traj.phases]
    if any(m is None for m in ours) or len(mids["time"]) != sum(len(m["q"]) for m in ours):
        raise InputError(f"{len(mids['time'])} midpoint rows in trajectory.csv, not the midpoints of {KNOTS_FILE}",
                         file=str(knots), field="point")
    for k, names in (("q", traj.coordinates), ("tau", traj.actuated)):
        stacked = np.concatenate([m[k] for m in ours])
        for j, c in enumerate(names):
            col = mids.get(f"{k}.{c}")
            if col is None:
                raise InputError("missing column", file=str(csv_path), field=f"{k}.{c}")
            if not np.allclose(col, stacked[:, j], rtol=1e-9, atol=1e-9):
                raise InputError(f"trajectory.csv and {KNOTS_FILE} differ", file=where, field=f"{k}.{c}")


def _read_trajectory(d: Path, problem, robot, info: dict | None = None) -> Trajectory:
    """The trajectory from knots.npz, or else from trajectory.csv; checked against the robot,
    against trajectory.csv when both are there, and against result.json's period and stride."""
    knots, csv_path = d / KNOTS_FILE, d / "trajectory.csv"
    for p in (knots, csv_path):
        if p.exists() and not p.is_file():
            raise InputError("not a regular file", file=str(p))
    # InputError naming the key; every row (format 2 has midpoint rows)
    table = read_trajectory_csv(csv_path, midpoints=True) if csv_path.is_file() else None
    if knots.is_file():
        source = knots
        try:
            with open(knots, "rb") as fh, np.load(fh, allow_pickle=False) as data:
                traj = Trajectory.from_arrays(data)
        except (KeyError, ValueError, TypeError, IndexError, OSError, EOFError, zipfile.BadZipFile) as err:
            if isinstance(err, InputError):
                raise
            raise _malformed(err, knots) from None
    elif table is not None:
        source = csv_path
        try:
            traj = _trajectory_from_csv(csv_path, problem, robot, table)
        except (KeyError, ValueError, TypeError, IndexError) as err:
            if isinstance(err, InputError):
                raise
            raise _malformed(err, csv_path) from None
    else:
        raise InputError(f"neither {KNOTS_FILE} nor trajectory.csv is here", file=str(d))
    if list(traj.coordinates) != list(robot.coordinates) or list(traj.actuated) != list(robot.actuated):
        raise InputError(f"the trajectory's coordinates do not match robot {robot.name}'s: "
                         f"{list(traj.coordinates)} vs {list(robot.coordinates)}", file=str(source), field="coordinates")
    contacts = [c.name for c in robot.contacts]
    if list(traj.contact_names) != contacts:
        raise InputError(f"the trajectory's contacts do not match robot {robot.name}'s: "
                         f"{list(traj.contact_names)} vs {contacts}", file=str(source), field="contact_names")
    for ph, want in zip(traj.phases, problem.phases):  # rows cut out of a phase read as a coarser phase
        if len(ph.t) != want.knots + 1:
            raise InputError(f"phase {want.name!r} has {len(ph.t)} knots, result.json's problem {want.knots + 1}",
                             file=str(source), field="phase")
    if table is not None and source == knots:
        _check_agree(traj, table, knots, csv_path, robot)
    for key in ("period", "stride"):
        x = (info or {}).get(key)
        if x is not None and abs(x - getattr(traj, key)) > 1e-9 * max(1.0, abs(x)):
            raise InputError(f"{x!r} in result.json but {getattr(traj, key)!r} in {source.name}",
                             file=str(d / "result.json"), field=key)
    return traj


def _stats(info: dict) -> dict:
    info = dict(info, nlp=info.get("nlp") if isinstance(info.get("nlp"), dict) else {},
                ipopt_options=info.get("ipopt_options") if isinstance(info.get("ipopt_options"), dict) else {})
    blocks, compile_s = info.get("compiled_blocks", []), info.get("compile_time_s", 0.0)
    own = info.get("compiled_own_blocks", [])
    return {"iterations": info["iterations"], "solve_time_s": info.get("solve_time_s", float("nan")),
            "setup_time_s": info.get("setup_time_s", float("nan")),
            "function_eval_time_s": info.get("function_eval_time_s", float("nan")),
            "n_variables": info.get("nlp", {}).get("variables", 0),
            "n_constraints": info.get("nlp", {}).get("constraints", 0),
            "returned_iteration": info.get("returned_iteration", info["iterations"]),
            "ipopt_options": dict(info.get("ipopt_options", {})),
            "compiled_blocks": [str(b) for b in blocks] if isinstance(blocks, list) else [],
            "compiled_own_blocks": [str(b) for b in own] if isinstance(own, list) else [],
            "compile_time_s": compile_s if isinstance(compile_s, (int, float)) else 0.0}


def load_result(result_dir: str | Path) -> Result:
    """Rebuild the Result that `gaitopt solve -o RESULT_DIR` (or `save`) saved (a
    `gaitopt.result.Result` with the ten worst violations, layout None, and the solver's x,
    multipliers and impact impulses when knots.npz has them, else x None and no impulses).

    With them a warm start from the reloaded Result on an NLP of the same shape starts from the
    optimum and its duals, as from the Result in memory (`gaitopt.solve(problem,
    warm_start=load_result(OUTDIR))`); without them it started from the trajectory alone and took
    more iterations than a cold solve (A1 trot, 12 knots: 28 iterations against 18 cold and 3 from the Result in memory).

    Reads result.json (problem, status, statistics), reloads the robot, and the trajectory from
    knots.npz (exact knots and midpoints) or, if it is missing, from trajectory.csv (exact for
    the trapezoidal rule, see `Trajectory.from_knot_table` for Hermite–Simpson). Raises
    InputError naming the file and what is wrong."""
    d = Path(result_dir)
    info = _read_result_json(d)
    rj = d / "result.json"
    problem = problem_from_record(info["problem"], str(rj))
    designed = d / "robot" / str(problem.robot)
    try:
        # a limb-length co-design's gait belongs to the legs `gaitopt solve` wrote under
        # OUTDIR/robot, not to the shipped robot result.json names
        robot = load_robot(designed) if problem.limb_lengths is not None and (designed / "robot.yaml").is_file() \
            else robot_of(problem)
    except InputError as err:
        raise (InputError(str(err), file=str(rj)) if err.file is None else err) from None
    robot = _designed_gears(d / "trajectory.csv", problem, _recorded_actuators(d / "trajectory.csv", robot))
    traj = _read_trajectory(d, problem, robot, info)
    x, multipliers = read_nlp_point(d / KNOTS_FILE)  # (None, None) without them: the trajectory only
    return Result(bool(info["success"]), str(info["status"]), str(info["message"]), info["cost"],
                  dict(info["cost_terms"]), _stats(info), traj, problem, robot, read_impulses(d / KNOTS_FILE), x,
                  _violations=list(info["violations"]) if isinstance(info.get("violations"), list) else [],
                  multipliers=multipliers)
