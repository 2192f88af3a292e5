"""Studies: a grid of gait problems (gear ratios, motors, speed, any problem key) solved case by
case, each warm-started from a solved neighbour, with a results table written as cases finish.

A study file (YAML, schema in README "Studies and co-design"):

    description: gear ratio of the knees and hips of the heel-toe biped at two speeds
    problem: ../biped7_heel_toe_walk.yaml     # relative to the study file
    overrides: {constraints.effort_limits: false}   # every case; problem key paths
    scale_knots: 0.5                          # optional: every phase's knots × this
    groups: {knee: [left_knee, right_knee]}   # joint groups for gear_ratio.* / motor.*
    motors: ../../robots/motors.yaml          # optional catalogue (default robots/motors.yaml)
    gear_efficiency: 0.7                      # η of the gear when a motor is swapped (default: kept)
    warm_start: true                          # false: cold; both: then a return pass (study_return)
    parameters:                               # the grid is the product of these, in this order
      gear_ratio.knee: [40, 66, 100]          # gear_ratio (all joints) | gear_ratio.<joint or group>
      motor: [re25_20w_42v]                   # motor (all joints) | motor.<joint or group>
      speed: [0.3, 0.4]                       # anything else: a problem key path

OUTDIR/results.csv holds one row per finished case, appended, flushed and synced as each case
finishes (columns: case, param.<parameter> for each parameter, then the solve status and the
figures of `case_metrics`); OUTDIR/cases/<case>/ holds its trajectory.csv and result.json;
OUTDIR/study.json the study as run. Running the same study into the same OUTDIR again skips
the cases that have a row: a killed study resumes.

Cases run in waves (wave w = the cases whose grid indices add up to w), so every case after
the first has a neighbour one grid step away that finished before it; it starts from the
nearest successfully solved case's trajectory.csv (read from disk, so that resumed studies and
workers on other machines warm-start the same way). With `warm_start: both` a return pass
follows (gaitopt.study_return). This module knows nothing about gaits
beyond calling `gaitopt.solve` and reading the Result.
"""
from __future__ import annotations

import json
import os
import sys
import time
import warnings
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .codesign import with_design
from .codegen import require_compiler
from .errors import InputError
from .export import KNOTS_FILE, read_trajectory_csv, save
from .export.result_dir import read_impulses, read_nlp_point
from .export.atomic import atomic_write_text
from .export.trajectory_csv import advance_from_header
from .gait import solve
from .interrupts import noted_sigint
from .motors import load_motors
from .precheck import mirror_actuator_mismatches, mismatch_text
from .problem import load_problem
from .result_notes import limits_note
from .robot import robot_of
from .study_table import _complete_rows, _Table, read_results  # noqa: F401  (read_results: importable from here)
from .study_metrics import case_metrics, metric_columns  # noqa: F401  (case_metrics: importable from here)
from .study_return import RETURN_COLUMNS, recover, return_pass
from .study_file import (ACTUATOR_PARAMETERS, MAX_CASES, MAX_PARAMETERS, MAX_SCALE_KNOTS, MAX_VALUES,
                         STUDY_KEYS, Study, load_study, study_from_dict)
from .trajectory import PhaseTrajectory, Trajectory


# ------------------------------------------------------------------------------ cases

@dataclass(frozen=True)
class Case:
    """One grid point, ready to solve: `problem` (a Problem) and `actuators` (joint → Actuator
    replacing the robot's), `key` (a stable name, also its folder) and the parameter `values`."""

    key: str
    index: tuple
    values: dict
    problem: Any
    actuators: dict


def _case_key(values: dict) -> str:
    def fmt(v):
        return f"{v:g}" if isinstance(v, float) else str(v)
    text = "_".join(f"{k}={fmt(v)}" for k, v in values.items())
    return "".join(c if c.isalnum() or c in "._=-" else "-" for c in text)


def _joints_of(study: Study, target: str | None, robot, key: str) -> list:
    if target is None:
        return list(robot.actuated)
    if target in study.groups:
        joints = list(study.groups[target])
    elif target in robot.actuated:
        joints = [target]
    else:
        raise InputError("not an actuated joint or a group of `groups`", file=study.source,
                         field=f"parameters.{key}", allowed=list(study.groups) + list(robot.actuated))
    bad = [j for j in joints if j not in robot.actuated]
    if bad:
        raise InputError(f"not actuated joints: {bad}", file=study.source, field=f"groups.{target}",
                         allowed=robot.actuated)
    return joints


def build_cases(study: Study) -> tuple[list, object]:
    """Every case of the study with its Problem and actuators, checked before anything is
    solved (a bad value raises InputError naming the parameter). Returns (cases, base robot)."""

    try:
        base = load_problem(study.problem, dict(study.overrides))
    except InputError as err:
        given = _given(err, study.overrides)
        if not given:
            raise
        # a bad value the study's overrides gave: named in the study file, not the base problem's
        raise InputError(f"{err.message} (applied to {study.problem})", file=study.source,
                         field=f"overrides.{given[0]}", allowed=err.allowed) from None
    robot = robot_of(base)
    catalogue = None
    cases = []
    for idx, values in study.grid():
        overrides = dict(study.overrides)
        acts = dict(robot.actuators)
        changed = set()
        # motors first, then gears, so that "motor" and "gear_ratio" combine in any order
        for kind in ("motor", "gear_ratio"):
            for key, value in values.items():
                name, _, target = key.partition(".")
                if name != kind:
                    continue
                joints = _joints_of(study, target or None, robot, key)
                if kind == "motor":
                    catalogue = catalogue or load_motors(study.motors)
                    if value not in catalogue:
                        raise InputError(f"unknown motor {value!r}", file=study.source, field=f"parameters.{key}",
                                         allowed=list(catalogue))
                    for j in joints:
                        eta = study.gear_efficiency or acts[j].gear_efficiency
                        acts[j] = catalogue[value].actuator(acts[j].gear_ratio, eta)
                else:
                    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                        raise InputError(f"a gear ratio must be a positive number, got {value!r}",
                                         file=study.source, field=f"parameters.{key}")
                    for j in joints:
                        acts[j] = acts[j].with_gear(value)
                changed.update(joints)
        for key, value in values.items():
            if key.partition(".")[0] not in ACTUATOR_PARAMETERS:
                overrides[key] = value
        try:
            problem = load_problem(study.problem, overrides)
        except InputError as err:
            swept = _given(err, values)
            if not swept:
                raise InputError(f"case {values}: {err}", file=study.source, field="parameters") from None
            # a bad parameter: named in the study file, what the problem file allows kept whole
            raise InputError(f"{err.message} (case {_case_key(values)}, applied to {study.problem})",
                             file=study.source, field=f"parameters.{swept[0]}", allowed=err.allowed) from None
        _mirror_partners_swept_together(study, values, problem, robot, acts)
        if study.scale_knots is not None:
            problem = problem.scaled_knots(study.scale_knots)
        cases.append(Case(_case_key(values), idx, values, problem, {j: acts[j] for j in sorted(changed)}))
    _distinct_case_names(study, cases)
    return cases, robot


def _mirror_partners_swept_together(study: Study, values: dict, problem, robot, acts: dict) -> None:
    """A half cycle mirrors each joint's motion onto its partner, so a gear or motor swept on one
    joint of a mirror pair must be swept on both (`gaitopt.precheck.mirror_actuator_mismatches`;
    the solve would refuse it, case by case): refused here, before anything is solved, naming
    the parameter."""
    bad = mirror_actuator_mismatches(problem, robot, acts)
    if not bad:
        return
    joint, partner, diff = bad[0]
    key = next((k for k in values if k.partition(".")[0] in ACTUATOR_PARAMETERS
                and {joint, partner} & set(_joints_of(study, k.partition(".")[2] or None, robot, k))), "parameters")
    raise InputError(f"{mismatch_text(joint, partner, diff)}: a half cycle mirrors one "
                     f"onto the other; sweep both (a group of `groups`)", file=study.source,
                     field=f"parameters.{key}" if key != "parameters" else key)


def _given(err: InputError, keys) -> list:
    """The keys (problem key paths a study sets) that an error of the problem file's is about."""
    f = err.field
    return [k for k in keys if f is not None and (f == k or f.startswith(k + ".") or k.startswith(f + "."))]


def _distinct_case_names(study: Study, cases: list) -> None:
    """Each case has its own name (its folder and results.csv row): two parameter values that
    print alike (equal, or equal to 6 significant digits) would share both."""
    seen = {}
    for c in cases:
        if c.key in seen:
            other = seen[c.key]
            key = next(k for k in c.values if c.values[k] != other.values[k]) if c.values != other.values \
                else next(iter(c.values))
            raise InputError(f"the values {other.values[key]!r} and {c.values[key]!r} give one case name "
                             f"({c.key}): give values that differ in their first 6 significant digits",
                             file=study.source, field=f"parameters.{key}")
        seen[c.key] = c


def _columns(study: Study, robot) -> list:
    cols = ["case"] + [f"param.{k}" for k, _ in study.parameters]
    cols += ["success", "status", "cost", "iterations", "solve_time_s", "max_violation", "stride", "period",
             "speed"]
    figures, rms, per_joint = metric_columns(robot.actuated)
    # appended 2026-11-25: the RMS figures, the return pass of `warm_start: both`
    # (gaitopt.study_return), the per-joint energies
    return cols + figures + ["gear_ratios", "warm_from", "message"] + rms + list(RETURN_COLUMNS) + per_joint


# ------------------------------------------------------------------------------ one case

def warm_start_from_csv(path: str | Path):
    """A warm-start source (has .trajectory and .impulses, as `gaitopt.solve` reads them) from a
    saved trajectory.csv: knot values per phase, trapezoidal interpolation; the solver's point,
    multipliers and impact impulses from knots.npz beside it when it holds them."""

    meta, data = read_trajectory_csv(path)
    names = list(data)
    coords = [c[2:] for c in names if c.startswith("q.")]
    actuated = [c[4:] for c in names if c.startswith("tau.")]
    contacts = list(dict.fromkeys(c[2:].rsplit(".", 1)[0] for c in names if c.startswith("f.")))
    n = len(data["time"]) - 1  # the last row is the next cycle's first knot
    phase = data["phase"][:n]
    stack = {k: np.column_stack([data[f"{k}.{c}"][:n] for c in coords]) for k in ("q", "v", "a")}
    tau = np.column_stack([data[f"tau.{j}"][:n] for j in actuated])
    f = np.stack([np.column_stack([data[f"f.{c}.{ax}"][:n] for ax in "xyz"]) for c in contacts], axis=1)
    phases, start = [], 0
    for i in range(1, n + 1):
        if i == n or phase[i] != phase[start]:
            sl = slice(start, i)
            phases.append(PhaseTrajectory(str(phase[start]), data["time"][sl], stack["q"][sl], stack["v"][sl],
                                          stack["a"][sl], tau[sl], f[sl], {}))
            start = i
    stride, period = float(meta["stride"]), float(meta["period"])
    # a file without cycle_transform: the base's periodic rise from the header's terrain entry
    rise = (meta.get("terrain") or {}).get("periodic_slope_rad", meta.get("slope_rad", 0.0))
    shift = advance_from_header(meta, coords, float(rise), path)
    traj = Trajectory(tuple(phases), tuple(coords), tuple(actuated), tuple(contacts), stride, period,
                      "trapezoidal", shift)
    # the solver's point and multipliers, if the directory's knots.npz has them: a case of the
    # same NLP shape then starts from them (gaitopt.gait.solve; a speed sweep's neighbours on
    # solo12 took 29-32 iterations from the csv alone, more than cold)
    knots = Path(path).with_name(KNOTS_FILE)
    x, multipliers = read_nlp_point(knots)
    # the impact impulses too: a neighbour of another NLP shape takes them as they are (a
    # warm start without them guessed them and took more iterations; load_result, 2026-11-25)
    return _WarmStart(traj, read_impulses(knots), x, multipliers)


@dataclass
class _WarmStart:
    trajectory: Any
    impulses: dict
    x: Any = None  # the solver's point and multipliers, from knots.npz beside the csv
    multipliers: Any = None


# a row's key for the warnings its case raised: taken off by `_run_waves`, never in results.csv
WARNINGS_KEY = "_warnings"


def run_case(case: Case, outdir: str, warm_dir: str | None = None) -> dict:
    """Solve one case, save OUTDIR/cases/<key>/, and return its results-table row, with the
    warnings the case raised under WARNINGS_KEY ((text, category), once each, in order).

    Runs in a worker process (arguments and return value are plain picklable data), whose
    warnings never reached the terminal: they come back in the row, and `_run_waves` raises
    them again in the calling process (found 2026-11-25: `gaitopt sweep` showed a case's warnings
    with -j 1 only). An unexpected exception in the solve is recorded as a failed row, so one
    case cannot stop a study."""
    with warnings.catch_warnings(record=True) as caught:  # the filters as they are: what would show
        row = _run_case(case, outdir, warm_dir)
    row[WARNINGS_KEY] = list(dict.fromkeys((str(w.message), w.category) for w in caught))
    return row


def _warn_again(row: dict) -> dict:
    """The row without WARNINGS_KEY, its warnings raised in this process (`run_case`)."""
    for text, category in row.pop(WARNINGS_KEY, ()):
        warnings.warn(text, category, stacklevel=3)
    return row


def _run_case(case: Case, outdir: str, warm_dir: str | None) -> dict:
    robot = robot_of(case.problem)
    if case.actuators:
        robot = robot.with_actuators(case.actuators)
    warm = warm_start_from_csv(Path(warm_dir) / "trajectory.csv") if warm_dir else None
    row = {"case": case.key, **{f"param.{k}": v for k, v in case.values.items()}, "warm_from": Path(warm_dir).name if warm_dir else "",
           "gear_ratios": json.dumps({j: robot.actuators[j].gear_ratio for j in robot.actuated})}
    try:
        result = solve(case.problem, robot=robot, warm_start=warm, print_level=0)
    except Exception as err:  # noqa: BLE001 — recorded in the table; the study goes on
        row.update(success=False, status="error", message=f"{type(err).__name__}: {err}".replace("\n", " "))
        return row
    if case.problem.design:  # co-design cases: figures at the optimal gears
        result = with_design(result)
        row["gear_ratios"] = json.dumps({j: result.robot.actuators[j].gear_ratio for j in result.robot.actuated})
    save(result, Path(outdir) / "cases" / case.key)
    traj = result.trajectory
    # the row says what the summary would of the actuators: the limits an optimum reaches (what bounds
    # a gear or motor), a failed case's hint (a user's A1 calf motor sweep said neither)
    note = limits_note(result)
    row.update(success=bool(result.success), status=result.status,
               message=result.message + (f"; {note}" if note else ""), cost=result.cost,
               iterations=result.stats["iterations"], solve_time_s=result.stats["solve_time_s"],
               max_violation=result.max_violation, stride=traj.stride, period=traj.period,
               speed=traj.stride / traj.period, **case_metrics(result))
    return row


# ------------------------------------------------------------------------------ progress

class _Progress:
    """A one-line text progress bar on a stream (stderr by default); on a stream that is not a
    terminal (a log file, a CI job's output) one line per finished case instead, since a log
    keeps every carriage-return update of a bar run together on one line."""

    def __init__(self, total: int, done: int, stream=None, width: int = 30, label: str = "",
                 words: tuple = ("solved", "failed")):
        # one count per outcome word, all shown (return pass: better, kept, failed, none, as
        # results.csv's return_pass column says them)
        self.total, self.done, self.words = total, done, words
        self.counts = dict.fromkeys(words, 0)
        self.label, self.resumed = label, done
        self.stream = stream if stream is not None else sys.stderr
        self.width, self.t0 = width, time.perf_counter()
        isatty = getattr(self.stream, "isatty", None)
        self.terminal = bool(isatty and isatty())
        self.show()

    def update(self, outcome) -> None:
        """Count one finished case: `outcome` one of `words`, or a bool (True: the first word,
        False: the second)."""
        if isinstance(outcome, bool):
            outcome = self.words[0 if outcome else 1]
        self.done += 1
        self.counts[outcome] += 1
        self.show()

    def show(self) -> None:
        n = int(self.width * self.done / max(self.total, 1))
        counts = ", ".join(f"{self.counts[w]} {w}" for w in self.words)
        line = (f"{self.label}[{'#' * n}{'.' * (self.width - n)}] {self.done}/{self.total} cases "
                f"({counts}, {self.resumed} resumed) {time.perf_counter() - self.t0:.0f} s")
        if not self.terminal:
            self.stream.write(line + "\n")
        else:
            self.stream.write("\r" + line + ("\n" if self.done >= self.total else ""))
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line if the sweep stopped before its last case (Ctrl-C, an error):
        what the shell prints next starts on a line of its own."""
        if self.terminal and self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()


# ------------------------------------------------------------------------------ run

def _nearest(index: tuple, solved: dict) -> str | None:
    """Key of the solved case nearest to `index` in grid steps (ties: the earlier in grid order)."""
    # (distance, grid index): `solved` is in finish order, which with several workers varies
    # from run to run; the grid index makes the choice among equally near ones repeatable
    best = min(((sum(abs(a - b) for a, b in zip(index, idx)), tuple(idx), key) for key, idx in solved.items()),
               default=None)
    return best[2] if best else None


def run_study(study: Study | str | Path, outdir: str | Path, *, executor: Executor | str | None = "process",
              max_workers: int | None = None, progress: bool | Any = True,
              on_row: Callable[[dict], None] | None = None) -> list:
    """Solve every case of a study not yet in OUTDIR/results.csv; return all rows in grid order.

    executor: "process" (default: a local ProcessPoolExecutor with max_workers, in-process when
    max_workers is 1), None (in-process), or any concurrent.futures.Executor (e.g. a Dask
    `client.get_executor()`; workers must see OUTDIR). progress: True (bar on stderr), False, or
    a text stream. on_row: called with each finished row, and with each row the return pass
    of `warm_start: both` replaces (gaitopt.study_return), in the calling process.
    """
    if not isinstance(study, Study):
        study = load_study(study)
    if not (executor in ("process", None) or isinstance(executor, Executor) or hasattr(executor, "submit")):
        raise InputError(f"executor must be 'process', None or a concurrent.futures.Executor, got {executor!r}",
                         field="executor")
    cases, robot = build_cases(study)
    if any(c.problem.solver.codegen is True for c in cases):
        # every case whose library the cache lacks would fail alike: say it once, before
        # anything runs (a lone solve looks for the compiler only when it must compile)
        require_compiler(file=study.source)
    outdir = Path(outdir)
    record = _record(study, robot)
    _same_study(outdir, record)  # before anything in OUTDIR is written
    (outdir / "cases").mkdir(parents=True, exist_ok=True)
    both = study.warm_start == "both"
    table = _Table(outdir / "results.csv", _columns(study, robot), RETURN_COLUMNS if both else ())
    recover(table, outdir)  # a swap of the return pass that a kill cut short (gaitopt.study_return)
    # what was run, for the record and for the next run into this OUTDIR (`_same_study`)
    atomic_write_text(outdir / "study.json", json.dumps(record, indent=2, default=str))
    todo = [c for c in cases if c.key not in table.done]
    stream = None if progress is False else (sys.stderr if progress is True else progress)
    bar = _Progress(len(cases), len(cases) - len(todo), stream) if stream is not None else None
    solved = {c.key: c.index for c in cases if c.key in table.done and table.done[c.key]["success"]}

    own = None
    if isinstance(executor, str):  # "process"
        workers = max_workers or os.cpu_count() or 1
        if workers > 1 and (len(todo) > 1 or both):
            own = executor = ProcessPoolExecutor(max_workers=workers)
        else:
            executor = None

    def finish(case, row):
        table.append(row)
        if row.get("success"):
            solved[case.key] = case.index
        if bar:
            bar.update(bool(row.get("success")))
        if on_row:
            on_row(row)
        if interrupt.hit:  # a Ctrl-C that CasADi swallowed or made an error row: stop here
            raise KeyboardInterrupt

    def warm_dir(case):
        near = _nearest(case.index, solved) if study.warm_start else None
        return str(outdir / "cases" / near) if near else None

    # Ctrl-C stops the sweep where it lands, or at the latest in `finish` after the running case
    try:
        with noted_sigint(raise_now=True) as interrupt:
            _run_waves(todo, executor, finish, warm_dir, outdir)
            if both:
                return_pass(cases, table, outdir, executor, stream, on_row, interrupt)
    finally:
        if bar:
            bar.close()
        if own is not None:
            own.shutdown(cancel_futures=True)
    by_key = table.done
    return [by_key[c.key] for c in cases if c.key in by_key]


# study.json keys that name or describe the study without changing a case's result
_NOT_RESULTS = ("source", "description")


def _record(study: Study, robot) -> dict:
    """study.json: the study as run, and (`inputs`, appended 2026-11-25) the SHA-256 of the files
    its cases' results depend on: the base problem, robot.yaml and the URDF."""
    import hashlib

    files = {"problem": Path(study.problem), "robot.yaml": Path(robot.folder) / "robot.yaml", "urdf": Path(robot.urdf)}
    inputs = {k: hashlib.sha256(p.read_bytes()).hexdigest() for k, p in files.items() if p.is_file()}
    return {**json.loads(json.dumps(asdict(study), default=str)), "inputs": inputs}


def _same_study(outdir: Path, record: dict) -> None:
    """InputError (field -o) if OUTDIR holds results of another study: its study.json differs
    in a setting that changes results, or in the files the cases read. Without rows there is
    nothing to mix; a study.json without `inputs` (before 2026-11-25) is compared without them."""
    _, rows = _complete_rows(outdir / "results.csv")
    stored = outdir / "study.json"
    if not rows or not stored.is_file():
        return
    try:
        old = json.loads(stored.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        old = None
    if not isinstance(old, dict):
        raise InputError(f"{stored} is unreadable, so the results in {outdir} cannot be matched to this study; "
                         "use another OUTDIR", field="-o")
    keys = [k for k in record if k not in _NOT_RESULTS and (k != "inputs" or "inputs" in old)]
    # true → both adds the return pass to the same forward rows (gaitopt.study_return)
    differ = [k for k in keys if old.get(k) != record[k] and (k, old.get(k), record[k]) != ("warm_start", True, "both")]
    if differ:
        changed = [f for f in record["inputs"] if old.get("inputs", {}).get(f) != record["inputs"][f]]
        what = ", ".join("the files " + ", ".join(changed) if k == "inputs" else k for k in differ)
        raise InputError(f"{outdir} holds {len(rows)} results of another study (its study.json differs in {what}); "
                         "use another OUTDIR, or remove it to start again", field="-o")


def _run_waves(todo, executor, finish, warm_dir, outdir, waves=None) -> None:
    """The cases in waves of equal index sum (a case's warm start is solved in an earlier
    wave; `waves`: their order, default increasing), in this process or on the executor; each
    finished case goes to `finish`. warm_dir(case) → the folder it starts from, or None."""
    for w in waves if waves is not None else sorted({sum(c.index) for c in todo}):
        wave = [c for c in todo if sum(c.index) == w]
        if executor is None:
            # in-process, a case may also start from one solved earlier in its own wave
            for case in wave:
                finish(case, _warn_again(run_case(case, str(outdir), warm_dir(case))))
        else:
            futures = {executor.submit(run_case, case, str(outdir), warm_dir(case)): case for case in wave}
            for fut in as_completed(futures):
                finish(futures[fut], _warn_again(fut.result()))
