"""`gaitopt export`, `gaitopt plot`, `gaitopt animate` on a RESULT_DIR of `gaitopt solve` (their
arguments are declared in gaitopt.cli, which looks the commands up in its own namespace)."""
from __future__ import annotations

import warnings
from pathlib import Path

from .cli_common import _finish, _load, _one_line, _positive, _refuse_input_overwrite, _writing
from .errors import InputError


def warn_beyond_terrain(result, cycles: int) -> None:
    """One warning when `cycles` cycles of the plan leave the ground it repeats on (past a
    stair's last edge: the exported or drawn robot climbs steps that are not there, and ends in
    the air above the landing); the file is still written, it is the plan."""
    from .terrain_io import surface_of
    from .terrain_reach import reach_message, terrain_reach
    problem = result.problem
    reach = terrain_reach(result, surface_of(problem), cycles)
    if reach.cycles < cycles:
        warnings.warn(reach_message(reach, cycles, problem))


def _cmd_export(args) -> int:
    from .export.formats import EXPORT_FORMATS, export, export_suffix  # why: the writers for this command only
    from .export.sampling import MAX_CYCLES, MAX_RATE_HZ, MAX_ROWS
    rate = _positive(args.rate, "--rate", limit=MAX_RATE_HZ)
    cycles = _positive(args.cycles, "--cycles", int, limit=MAX_CYCLES)
    if args.format not in EXPORT_FORMATS:
        raise InputError(f"unknown format {_one_line(args.format, 40)!r}", field="--format", allowed=EXPORT_FORMATS)
    if args.degrees and args.format != "motors":
        raise InputError("applies to --format motors only", field="--degrees")
    if args.output:
        suffix = export_suffix(args.format)
        if Path(args.output).suffix != suffix:
            raise InputError(f"--format {args.format} needs a {suffix} file name", file=args.output, field="-o",
                             allowed=[suffix])
        _refuse_input_overwrite(args.output, args.result_dir)
    result = _load(args.result_dir)
    rows = cycles * result.trajectory.period * rate
    if rows > MAX_ROWS:
        raise InputError(f"{rows:.3g} rows ({cycles} cycles of {result.trajectory.period:.4g} s at {rate:g} Hz) "
                         f"exceed the limit of {MAX_ROWS}; lower --rate or --cycles", field="--rate",
                         allowed=f"--cycles × period × --rate ≤ {MAX_ROWS} rows")
    warn_beyond_terrain(result, cycles)
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
    from .animate import MAX_CYCLES, MAX_FPS, MAX_FRAMES, VIEWS, default_suffix, frame_count, save_animation
    fps = _positive(args.fps, "--fps", limit=MAX_FPS)  # (matplotlib, as for plot: imported here)
    if fps < 1:  # a frame per second at least: fewer is no animation (and overflows the writers)
        raise InputError(f"{fps:g} is below 1 frame per second", field="--fps", allowed=f"1 ≤ --fps ≤ {MAX_FPS:g}")
    cycles = _positive(args.cycles, "--cycles", int, limit=MAX_CYCLES)
    if args.view not in VIEWS:
        raise InputError(f"unknown view {_one_line(args.view, 40)!r}", field="--view", allowed=VIEWS)
    if args.output:
        _refuse_input_overwrite(args.output, args.result_dir, export_file=False)
    result = _load(args.result_dir)
    try:
        frame_count(result.trajectory.period, fps, cycles)
    except InputError as err:
        raise InputError(err.message, field="--fps", allowed=f"--cycles × period × --fps ≤ {MAX_FRAMES} frames") from None
    path = Path(args.output) if args.output else Path(args.result_dir) / f"animation{default_suffix()}"
    warn_beyond_terrain(result, cycles)
    with _writing():
        save_animation(result, path, fps=fps, cycles=cycles, view=args.view)
    print(f"wrote {path}")
    return _finish(result, args.result_dir)
