"""Command line: `gaitopt solve`, `gaitopt list`, `gaitopt robot`, `gaitopt sweep`, and on a
solved RESULT_DIR `gaitopt export`, `gaitopt plot`, `gaitopt animate`.

Exit codes (a contract): 0 success, 1 the solve failed (reason printed), 2 bad input (one line
naming the file and field, no traceback).
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

from .codesign import optimal_gears
from .errors import InputError
from .export import EXPORT_FORMATS, export, load_result, save
from .problem import load_problem
from .robot import REPO_ROBOTS, available_robots, load_robot
from .verify import replay, write_replay

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own exit code 2 matches ours; keep it one line
        self.print_usage(sys.stderr)
        print(f"gaitopt: error: {message}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)


def _cmd_solve(args) -> int:
    from .gait import solve  # why: the solve stack (transcription, IPOPT) only for the commands that solve
    problem = load_problem(args.problem, args.set)
    if not Path(args.problem).exists():
        raise InputError("file not found", file=args.problem)
    _check_output_dir(args.output)  # bad input before the solve, not a traceback after it
    print(f"gaitopt: solving {args.problem} ({problem.robot}, {sum(p.knots for p in problem.phases)} "
          f"intervals, {problem.transcription})", flush=True)
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
        print("optimal gear ratios: " + ", ".join(f"{k} {v:.4g}" for k, v in optimal_gears(result).items()))
    print(f"wrote {paths['trajectory']} and {paths['result']}")
    if not result.success:
        print(f"gaitopt: solve failed: {result.status}: {result.message}", file=sys.stderr)
        return EXIT_FAILED
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
    r = load_robot(args.robot, base=args.base)
    print(r)
    print(f"  urdf: {r.urdf}")
    print(f"  coordinates: {', '.join(r.coordinates)}")
    print(f"  contacts: {', '.join(c.name for c in r.contacts)}")
    for j, a in r.actuators.items():
        print(f"  {j}: torque limit {a.torque_limit:.3g} N·m, stall {a.stall_torque:.3g} N·m, "
              f"no-load {a.no_load_speed:.3g} rad/s")
    return EXIT_OK


def _cmd_sweep(args) -> int:
    from .study import run_study  # why: studies solve: the solve stack only for this command
    rows = run_study(args.study, args.output, max_workers=args.max_workers, progress=not args.quiet)
    failed = [r["case"] for r in rows if not r.get("success")]
    print(f"wrote {Path(args.output) / 'results.csv'}: {len(rows)} cases, {len(rows) - len(failed)} solved, "
          f"{len(failed)} failed")
    return EXIT_FAILED if failed else EXIT_OK

# ------------------------------------------------- export, plot, animate (take a RESULT_DIR)


def _positive(value: str, name: str, kind=float):
    """Parse a command-line number here (not in argparse) so bad input is one `gaitopt:` line."""
    try:
        x = kind(value)
    except ValueError:
        raise InputError(f"expected {'a whole' if kind is int else 'a'} number, got {value!r}", field=name) from None
    if not x > 0 or x != x or x == float("inf"):
        raise InputError(f"must be positive and finite, got {value!r}", field=name)
    return x


def _load(result_dir):
    """The saved result, with reload warnings (e.g. no knots.npz) as one stderr line each."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = load_result(result_dir)
    for w in caught:
        print(f"gaitopt: warning: {w.message}", file=sys.stderr)
    return result


def _check_output_dir(path) -> None:
    """InputError unless `path` is a directory that can be written, or can be created (the
    directory itself is made only when the results are saved)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InputError("cannot write: exists and is not a directory", file=str(p))
    existing = p
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"cannot write: {existing} is not a writable directory", file=str(p))


@contextmanager
def _writing():
    """An unwritable output path is bad input (exit 2, one line), not a traceback."""
    try:
        yield
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", file=err.filename) from None


def _finish(result, result_dir) -> int:
    """Exit 1 (after writing) when the saved result is a failed solve: its gait is not optimal."""
    if not result.success:
        print(f"gaitopt: {result_dir} holds a failed solve ({result.status}: {result.message}); "
              "files written from its best iterate", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _cmd_export(args) -> int:
    rate = _positive(args.rate, "--rate")
    cycles = _positive(args.cycles, "--cycles", int)
    if args.format not in EXPORT_FORMATS:
        raise InputError(f"unknown format {args.format!r}", field="--format", allowed=EXPORT_FORMATS)
    if args.degrees and args.format != "motors":
        raise InputError("applies to --format motors only", field="--degrees")
    result = _load(args.result_dir)
    with _writing():
        paths = export(result, args.format, args.output, rate_hz=rate, cycles=cycles, degrees=args.degrees,
                       outdir=args.result_dir)
    print(f"wrote {paths['export']} and {paths['summary']}")
    return _finish(result, args.result_dir)


def _cmd_plot(args) -> int:
    from .plot import plot_all  # why: matplotlib only for the commands that draw
    result = _load(args.result_dir)
    outdir = Path(args.output) if args.output else Path(args.result_dir) / "plots"
    with _writing():
        paths = plot_all(result, outdir)
    print(f"wrote {len(paths)} plots to {outdir}: {', '.join(p.name for p in paths)}")
    return _finish(result, args.result_dir)


def _cmd_animate(args) -> int:
    from .animate import VIEWS, default_suffix, save_animation  # why: matplotlib, as for plot
    fps = _positive(args.fps, "--fps")
    cycles = _positive(args.cycles, "--cycles", int)
    if args.view not in VIEWS:
        raise InputError(f"unknown view {args.view!r}", field="--view", allowed=VIEWS)
    result = _load(args.result_dir)
    path = Path(args.output) if args.output else Path(args.result_dir) / f"animation{default_suffix()}"
    with _writing():
        save_animation(result, path, fps=fps, cycles=cycles, view=args.view)
    print(f"wrote {path}")
    return _finish(result, args.result_dir)


def _cmd_verify(args) -> int:
    cycles = _positive(args.cycles, "--cycles", int)
    result = _load(args.result_dir)
    rep = replay(result, cycles=cycles)
    outdir = Path(args.output) if args.output else Path(args.result_dir)
    with _writing():
        paths = write_replay(rep, outdir, args.result_dir)
    r = rep.report
    print(f"{r['robot']}: {cycles} cycles in MuJoCo: distance {r['distance']['simulated_m']:.4f} m simulated vs "
          f"{r['distance']['planned_m']:.4f} m planned ({100 * r['distance']['relative_error']:.1f} % off), "
          f"fell {r['fell']}, slipped {r['slipped']} (largest {1e3 * max(r['slip_m'].values()):.1f} mm), "
          f"torque RMS difference {r['torque']['rms_difference_all_Nm']:.3g} N·m")
    print(f"wrote {paths['report']} and {paths['plot']}")
    if not rep.verified:
        print(f"gaitopt: verification failed: {'; '.join(r['failures'])}", file=sys.stderr)
        return EXIT_FAILED
    print("verified")
    return EXIT_OK


def _add_verify_command(sub) -> None:
    """`gaitopt verify RESULT_DIR`: replay the gait in MuJoCo (the `sim` extra)."""
    p = sub.add_parser("verify", help="replay a solved gait in MuJoCo; write verify.json and verify.png")
    p.add_argument("result_dir", help="directory written by `gaitopt solve -o`")
    p.add_argument("--cycles", default="2", help="gait cycles simulated (default 2)")
    p.add_argument("-o", "--output", help="output directory (default RESULT_DIR)")
    p.set_defaults(func=_cmd_verify)


def _add_output_commands(sub) -> None:
    """`gaitopt export`, `gaitopt plot`, `gaitopt animate`: read a RESULT_DIR of `gaitopt solve`."""
    p = sub.add_parser("export", help="sample a solved gait at any rate: full CSV, motor table or NPZ + JSON summary")
    p.add_argument("result_dir", help="directory written by `gaitopt solve -o`")
    p.add_argument("--rate", default="500", help="samples per second (default 500: a row every 2 ms)")
    p.add_argument("--cycles", default="1", help="gait cycles, the base advancing each cycle (default 1)")
    p.add_argument("--format", default="full", help="full | motors | npz (default full)")
    p.add_argument("--degrees", action="store_true", help="motor table in degrees (default radians)")
    p.add_argument("-o", "--output", help="output file (default RESULT_DIR/<format>_<rate>hz.csv|.npz)")
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


def main(argv=None) -> int:
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
    _add_verify_command(sub)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InputError as err:
        print(f"gaitopt: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
