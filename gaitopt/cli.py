"""Command line: `gaitopt solve`, `gaitopt compile`, `gaitopt list`, `gaitopt robot`, `gaitopt sweep`, and on a
solved RESULT_DIR `gaitopt export`, `gaitopt plot`, `gaitopt animate`.

Exit codes (a contract, docs/formats.md): 0 success, 1 the solve failed (reason printed;
`verify`: ran and did not verify), 2 bad input (one line naming the file and field, no
traceback), 3 an internal error (a bug: one line, the traceback written to a log file), 4
`verify` could not run the replay (one line saying why: a model MuJoCo refuses or that
disagrees with Pinocchio's), 130 interrupted (Ctrl-C). No command prints a Python traceback.
"""
from __future__ import annotations

import argparse
import os
import re
import errno
import signal
import gc
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

# (the shared helpers and the output commands moved out of this module stay importable from
# here). Commands import what only they need when they run: a solve loads neither the replay
# (MuJoCo) nor co-design nor compensation (docs/speed.md).
from .cli_common import (EXIT_BAD_INPUT, EXIT_CANNOT_VERIFY, EXIT_FAILED, EXIT_INTERNAL, EXIT_INTERRUPTED,
                         EXIT_OK, MAX_LINE, _PENDING_WARNINGS, _check_output_dir, _finish, _load, _one_line,
                         _positive, _refuse_input_overwrite, _writing)
from .cli_compensate import add_compensate_command
from .cli_output import _cmd_animate, _cmd_export, _cmd_plot
from .errors import InputError
from .export import save
from .problem import load_problem
from .robot import REPO_ROBOTS, available_robots, load_robot
from .cli_verify import add_verify_command

ERROR_LOG = "gaitopt-error.log"  # the traceback of an internal error
# errors of an output path the user gave (too long, not writable, a file in the way, disk full)
USER_PATH_ERRORS = {errno.ENAMETOOLONG, errno.EACCES, errno.EROFS, errno.ENOTDIR, errno.EISDIR, errno.EEXIST,
                    errno.ENOSPC, errno.EPERM, errno.ELOOP}
# sizes a command accepts (bounded, so that a typo cannot fill a disk or run for days)
MAX_WORKERS = 256


def _usage_line(message: str) -> str:
    """argparse's message → `ARG: what is wrong (allowed: …)`."""
    m = re.match(r"argument (\S+): (.*)$", message)
    arg, what = (m.group(1), m.group(2)) if m else (None, message)
    m = re.match(r"the following arguments are required: (.*)$", what)
    if m:
        arg, what = m.group(1), "required, missing"
    m = re.match(r"unrecognized arguments: (.*)$", what)
    if m:
        arg, what = m.group(1), "unrecognized argument(s)"
    what = re.sub(r"\(choose from (.*)\)$", lambda c: f"(allowed: {c.group(1).replace(chr(39), '')})", what)
    if arg == "command":
        arg = "COMMAND"
    return f"{arg}: {what}" if arg else what


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line `gaitopt: ARG: what is wrong (allowed: …)`, exit 2."""

    def error(self, message):
        line = _usage_line(message)
        if line == "COMMAND: required, missing":  # name the commands, as an unknown one does
            commands = next((a.choices for a in self._actions if a.dest == "command" and a.choices), None)
            line += f" (allowed: {', '.join(commands)})" if commands else ""
        print(_one_line(f"gaitopt: {line}"), file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)


def _cmd_solve(args) -> int:
    from .gait import solve  # why: the solve stack (transcription, IPOPT) only for the commands that solve
    problem = load_problem(args.problem, args.set)
    if not Path(args.problem).exists():
        raise InputError("file not found", file=args.problem)
    _check_output_dir(args.output)  # bad input before the solve, not a traceback after it
    print(f"gaitopt: solving {args.problem} ({problem.robot}, {sum(p.knots for p in problem.phases)} "
          f"intervals, {problem.transcription})", flush=True)
    codesign = problem.limb_lengths is not None or bool(problem.design)
    if codesign:  # the Result's robot then has the optimal legs, gears
        from .codesign import gears_at_bounds, optimal_gears, optimal_limb_ratio, solve  # why: co-design only where asked
    try:
        result = solve(problem, print_level=args.print_level)
    except InputError as err:
        if err.file is None:  # e.g. an unknown robot: name the problem file (exit-code contract)
            raise InputError(str(err), file=args.problem) from None
        raise
    with _writing():
        paths = save(result, args.output)
    print(result.summary())
    if problem.design:
        at = gears_at_bounds(result)
        print("optimal gear ratios: " + ", ".join(
            f"{k} {v:.4g}" + (f" (on its bound design.gear_ratio.{k}.{at[k]})" if k in at else "")
            for k, v in optimal_gears(result).items()))
    if problem.limb_lengths is not None and result.success:
        print(f"optimal thigh/shank ratio {optimal_limb_ratio(result):.4g}; robot with these legs: "
              f"{Path(args.output) / 'robot' / result.robot.name}")
    print(f"wrote {paths['trajectory']}, {paths['result']} and {paths['knots']}")
    if not result.success:
        print(f"gaitopt: solve failed: {result.status}: {result.message}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _cmd_compile(args) -> int:
    from .codegen import block_list, cache_dir
    from .gait import compile_problem_derivatives  # why: the transcription stack only for this command
    problem = load_problem(args.problem, args.set)
    print(f"gaitopt: compiling the derivatives of {problem.robot}'s shared functions and of this problem's "
          f"own rows into {cache_dir()} (seconds to a minute)", flush=True)
    try:
        compiler = compile_problem_derivatives(problem)
    except InputError as err:
        if err.field != "solver.codegen":
            raise
        # this command has no solver.codegen to set: name what to fix (the compiler, the cache)
        what = "GAITOPT_CACHE" if "GAITOPT_CACHE" in err.message else "CC"
        raise InputError(err.message, file=args.problem, field=f"${what}") from None
    # (the robot's dynamics functions are kept there too, serialized: gaitopt.function_store)
    blocks, own, seconds = sorted(set(compiler.compiled)), sorted(set(compiler.compiled_own)), compiler.compile_s
    if not blocks and not own:
        why = ("a limb-length co-design's rows change with the start ratio its solve picks (it tries fixed legs "
               "first), so its set-ups build them" if problem.limb_lengths is not None else
               f"no block of {problem.robot} or of this problem is large enough to gain")
        print(f"gaitopt: nothing to compile: {why}; the robot's dynamics functions are kept in the cache")
        return EXIT_OK
    made = f"{seconds:.1f} s compiling" if seconds else "all were there already"
    robot_part = (f"{block_list(blocks)}, and {problem.robot}'s dynamics functions (later set-ups of any "
                  f"{problem.robot} problem load them)") if blocks else f"{problem.robot}'s dynamics functions"
    own_part = (f"; {len(own)} blocks of this problem's own rows (later set-ups of this file load them, "
                "until an edit changes their numbers)") if own else ""
    # the file's own setting decides whether its solves use them: say so when it says false
    use = {True: "solver.codegen: true loads them", False: "but this file sets solver.codegen: false, so its "
           "solves do not use them (auto, the default, or true would)"}.get(problem.solver.codegen,
                                                                           "solver.codegen: auto, the default, loads them")
    print(f"in the cache ({made}): {robot_part}{own_part}; {use}")
    return EXIT_OK


def _cmd_list(args) -> int:
    print("robots:")
    for name in available_robots():
        try:
            r = load_robot(name)
            print(f"  {name:16s} {r.description}")
        except InputError as err:
            print(f"  {name:16s} (cannot load: {err})")
    problems = sorted((REPO_ROBOTS.parent / "problems").glob("*.yaml"))
    print("problems:")
    for p in problems:
        try:
            print(f"  {p.name:32s} {load_problem(p).description}")
        except InputError as err:
            print(f"  {p.name:32s} (invalid: {err})")
    return EXIT_OK


def _cmd_robot(args) -> int:
    from .robot_checks import mirror_mass_mismatch
    r = load_robot(args.robot, base=args.base)
    print(r)
    print(f"  urdf: {r.urdf}")
    print(f"  coordinates: {', '.join(r.coordinates)}")
    print(f"  contacts: {', '.join(c.name for c in r.contacts)}")
    standing = ", ".join(f"{c} {r.standing_q[i]:.4g}" for i, c in enumerate(r.coordinates))
    print(f"  standing: {standing} (m, rad)")
    if r.locked:  # held at these angles, their links rigid on their parents (robot.yaml `locked`)
        print(f"  locked ({len(r.locked)}): " + ", ".join(f"{j} {v:.4g}" for j, v in r.locked.items()) + " (rad)")
    mismatch = mirror_mass_mismatch(r)
    if mismatch is not None:  # the mirror map's check is kinematic; a half cycle also mirrors the masses
        print(f"  mirror: masses not mirror images left to right: mirrored gravity forces off by up to "
              f"{mismatch[0]:.3g} {mismatch[2]} at {mismatch[1]} (a half cycle is approximate; gait.cycle: full is exact)")
    for j, a in r.actuators.items():
        # the URDF's limits bind too (constraints.effort_limits, velocity_limits), whatever the gear
        i = r.coordinates.index(j)
        effort = f"{r.effort_limit[i]:.3g} N·m" if r.effort_limit[i] > 0 else "none"
        print(f"  {j}: torque limit {a.torque_limit:.3g} N·m, stall {a.stall_torque:.3g} N·m, "
              f"no-load {a.no_load_speed:.3g} rad/s; URDF effort {effort}, velocity {r.velocity_limit[i]:.3g} rad/s")
    return EXIT_OK


def _cmd_sweep(args) -> int:
    from .study import run_study  # why: studies solve: the solve stack only for this command
    from .study_table import read_results
    if args.max_workers is not None and not 1 <= args.max_workers <= MAX_WORKERS:
        raise InputError(f"must be from 1 to {MAX_WORKERS}, got {args.max_workers}", field="--max-workers",
                         allowed=f"1 … {MAX_WORKERS}")
    _check_output_dir(args.output)  # e.g. -o naming a file: bad input, not a traceback in the study
    table = Path(args.output) / "results.csv"
    # the cases an earlier run into OUTDIR wrote (those that raised run again): said apart, since
    # "10 solved" after a run that solved nothing read as if it had
    earlier = {r["case"] for r in read_results(table) if r.get("status") != "error"} if table.is_file() else set()
    rows = run_study(args.study, args.output, max_workers=args.max_workers, progress=not args.quiet)
    failed = [r["case"] for r in rows if not r.get("success")]
    resumed = sum(1 for r in rows if r["case"] in earlier)
    # the earlier run's count goes with the cases, not after "failed": "3 failed (2 of them from an
    # earlier run …)" read as 2 of the failed cases when the 2 were solved ones (a user's motor sweep)
    print(f"wrote {table}: {len(rows)} cases"
          + (f" ({resumed} from an earlier run into {args.output})" if resumed else "")
          + f", {len(rows) - len(failed)} solved, {len(failed)} failed")
    return EXIT_FAILED if failed else EXIT_OK


def _add_output_commands(sub) -> None:
    """`gaitopt export`, `gaitopt plot`, `gaitopt animate`: read a RESULT_DIR of `gaitopt solve`."""
    p = sub.add_parser("export", help="sample a solved gait at any rate: full CSV, motor table, NPZ, MuJoCo model "
                       "(MJCF) or reference motion (AMP JSON) + JSON summary")
    p.add_argument("result_dir", help="directory written by `gaitopt solve -o`")
    p.add_argument("--rate", default="500", help="samples per second (default 500: a row every 2 ms)")
    p.add_argument("--cycles", default="1", help="gait cycles, the base advancing each cycle (default 1)")
    p.add_argument("--format", default="full", help="full | motors | npz | hoap2 | mjcf | amp (default full; mjcf: "
                   "keyframes at the knots, --rate and --cycles do not apply)")
    p.add_argument("--degrees", action="store_true", help="motor table in degrees (default radians)")
    p.add_argument("-o", "--output", help="output file (default RESULT_DIR/<format>_<rate>hz.csv|.npz, gait.xml, "
                   "motion_<rate>hz.json)")
    p.set_defaults(func=_cmd_export)
    p = sub.add_parser("plot", help="write the gait's plots as PNG files")
    p.add_argument("result_dir", help="directory written by `gaitopt solve -o`")
    p.add_argument("-o", "--output", help="output directory (default RESULT_DIR/plots)")
    p.set_defaults(func=_cmd_plot)
    p = sub.add_parser("animate", help="animate the gait: GIF, or MP4 where ffmpeg is on PATH")
    p.add_argument("result_dir", help="directory written by `gaitopt solve -o`")
    p.add_argument("-o", "--output", help="output file .gif or .mp4 (default RESULT_DIR/animation.mp4|.gif)")
    p.add_argument("--fps", default="25", help="frames per second of real time (default 25)")
    p.add_argument("--cycles", default="2", help="gait cycles shown (default 2)")
    p.add_argument("--view", default="auto", help="auto | sagittal | 3d (default auto)")
    p.set_defaults(func=_cmd_animate)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gaitopt", description="optimal periodic gaits for legged robots")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("solve", help="solve a problem file; write OUTDIR/trajectory.csv and result.json")
    p.add_argument("problem", help="problem file (YAML)")
    p.add_argument("-o", "--output", required=True, help="output directory")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a problem key, e.g. --set speed=0.3 --set gait.phases.0.knots=8")
    p.add_argument("--print-level", type=int, default=None, choices=range(13), metavar="{0..12}",
                   help="IPOPT print level (0-12)")
    p.set_defaults(func=_cmd_solve)
    p = sub.add_parser("compile", help="compile the derivatives of a problem's robot functions and of its own "
                       "rows into the cache (faster set-ups and solves of that robot, and of this problem as it "
                       "is, from then on)")
    p.add_argument("problem", help="problem file (YAML)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a problem key")
    p.set_defaults(func=_cmd_compile)
    p = sub.add_parser("list", help="list robots and problems")
    p.set_defaults(func=_cmd_list)
    p = sub.add_parser("robot", help="load a robot and print its model")
    p.add_argument("robot")
    p.add_argument("--base", choices=["sagittal", "3d", "fixed"])
    p.set_defaults(func=_cmd_robot)
    p = sub.add_parser("sweep", help="run a study (grid of problems); write OUTDIR/results.csv and OUTDIR/cases/")
    p.add_argument("study", help="study file (YAML)")
    p.add_argument("-o", "--output", required=True, help="output directory (re-run to resume)")
    p.add_argument("-j", "--max-workers", type=int, default=None,
                   help="parallel cases in local processes (default: CPU count; 1 runs in-process)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_sweep)

    _add_output_commands(sub)
    add_verify_command(sub)
    add_compensate_command(sub)
    return parser


def _log_dir(args) -> Path | None:
    """Where an internal error's traceback goes: the command's output directory when it
    exists (the parent of an output file), else the RESULT_DIR it writes into by default."""
    out = getattr(args, "output", None)
    if out:
        p = Path(out)
        candidates = [p] if getattr(args, "command", None) in ("solve", "sweep", "plot", "verify", "compensate") \
            else [p.parent]
    else:
        candidates = [Path(args.result_dir)] if getattr(args, "result_dir", None) else []
    for c in candidates:
        if c.is_dir() and os.access(c, os.W_OK | os.X_OK):
            return c
    return None


def _write_log(args, text: str) -> str:
    """Write the traceback to a log file; returns its path (a temporary file if need be)."""
    d = None
    try:
        d = _log_dir(args) if args is not None else None
    except Exception:  # noqa: BLE001 - the log must be written whatever args hold
        d = None
    if d is not None:
        try:
            path = d / ERROR_LOG
            path.write_text(text, encoding="utf-8")
            return str(path)
        except OSError:
            pass
    try:
        fd, path = tempfile.mkstemp(prefix="gaitopt-error-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        return path
    except OSError:
        return "(none: no writable directory)"


def _stdout_closed() -> int:
    """stdout's reader went away (`gaitopt list | head -1`): exit quietly, and keep Python's
    final flush of stdout from failing again."""
    _to_devnull(sys.__stdout__)
    return EXIT_OK


def _to_devnull(stream) -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


class _QuietStdout:
    """The process's stdout, where a closed pipe (the reader is gone: `gaitopt list | head -1`)
    is not an error: the rest of the output goes to /dev/null and the command runs on to its
    usual exit code."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            _to_devnull(self._stream)
            return len(text)

    def flush(self):
        try:
            self._stream.flush()
        except BrokenPipeError:
            _to_devnull(self._stream)
            try:
                self._stream.flush()
            except OSError:
                pass

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _warning_line(message, category, filename, lineno, file=None, line=None):
    text = _one_line(f"gaitopt: warning: {message}")
    if text not in _PENDING_WARNINGS:
        _PENDING_WARNINGS.append(text)


def _print_warnings() -> None:
    for text in _PENDING_WARNINGS:
        print(text, file=sys.stderr)
    _PENDING_WARNINGS.clear()


def main(argv=None) -> int:
    """Run one command; returns the exit code (0, 1, 2, 3, 4 or 130: see the module docstring).
    No exception escapes: bad input is one line (exit 2), any other exception an internal error
    (exit 3, one line naming the log file that holds the traceback)."""
    real_stdout = sys.stdout
    if real_stdout is not None and real_stdout is sys.__stdout__:
        sys.stdout = _QuietStdout(real_stdout)
    try:
        return _main(argv)
    finally:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        sys.stdout = real_stdout


def _main(argv) -> int:
    args = None
    _PENDING_WARNINGS.clear()
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _warning_line  # a warning is one line too, never source code
            args = build_parser().parse_args(argv)
            _resume_collector(args)
            code = args.func(args)
        sys.stdout.flush()
        _print_warnings()
        return code
    except InputError as err:
        _PENDING_WARNINGS.clear()
        print(_one_line(f"gaitopt: {err}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:  # Ctrl-C: quietly (files being written are left as they were)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return _stdout_closed()
    except SystemExit:
        raise
    except OSError as err:
        if err.errno in USER_PATH_ERRORS:  # an output path the system refuses: the user's to fix
            _PENDING_WARNINGS.clear()
            where = f"{_one_line(str(err.filename), 120)}: " if err.filename else ""
            print(_one_line(f"gaitopt: {where}cannot write: {err.strerror}"), file=sys.stderr)
            return EXIT_BAD_INPUT
        return _internal_error(args, err)
    except Exception as err:  # noqa: BLE001 - a bug: one line, the traceback in a log file
        return _internal_error(args, err)


def _resume_collector(args) -> None:
    """In the `gaitopt` command, whose imports ran with the cyclic collector paused (gaitopt's
    __init__): load the solve stack for the commands that solve, freeze what the imports made
    (objects that live until exit) and resume the collector. Elsewhere (main() called from a
    program, the collector on) nothing."""
    if gc.isenabled():
        return
    if args.func in (_cmd_solve, _cmd_compile, _cmd_sweep):
        from . import gait  # noqa: F401  # why: imported now, its objects frozen with the rest
    gc.freeze()
    gc.enable()


def _internal_error(args, err) -> int:
    """A bug: one line naming the log file that holds the traceback (exit 3)."""
    log = _write_log(args, "".join(traceback.format_exception(err)))
    head, tail = "gaitopt: internal error (a bug): ", f"; traceback in {log}"
    short = _one_line(f"{type(err).__name__}: {err}", max(40, min(200, MAX_LINE - len(head) - len(tail))))
    try:
        print(head + short + tail, file=sys.stderr)
    except OSError:
        pass
    return EXIT_INTERNAL


def run() -> None:
    """The console entry point: main() with its exit code."""
    from . import _exit_130

    if signal.getsignal(signal.SIGINT) is _exit_130:  # the start-up's quiet exit: main() handles Ctrl-C now
        signal.signal(signal.SIGINT, signal.default_int_handler)
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = _stdout_closed()
    except (OSError, ValueError):
        pass
    # The interpreter's collections at exit walk every object a solve left (20 ms of a 0.7 s
    # `gaitopt solve`, docs/speed.md); frozen, they are skipped. Files are closed by now; objects
    # still in reference cycles are simply not finalized, which Python never guarantees at exit.
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
