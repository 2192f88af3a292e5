"""`gaitopt verify RESULT_DIR [--cycles N] [--perturb N] [--seed S] [-o DIR]`: the command-line
side of the replay (gaitopt.cli_verify registers its arguments; exit codes in gaitopt.cli's docstring)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..cli_common import (EXIT_CANNOT_VERIFY, EXIT_FAILED, EXIT_OK, _load, _one_line, _positive, _whole,
                          _writing)
from .perturb import MAX_RUNS, perturbed_replays
from .replay import replay
from .report import summary_text, write_replay
from .settings import MAX_CYCLES, CannotReplay, ReplaySettings, check_steps


def cmd_verify(args) -> int:
    """`gaitopt verify`: replay (and with --perturb N, N perturbed replays), write verify.json and
    verify.png, print the summary; the exit code of gaitopt.cli's contract (0, 1, 2, 4)."""
    cycles = _positive(args.cycles, "--cycles", int, limit=MAX_CYCLES)
    runs = _whole(args.perturb, "--perturb", MAX_RUNS)
    seed = _whole(args.seed, "--seed", 2 ** 32 - 1)
    result = _load(args.result_dir)
    check_steps(result.trajectory.period, cycles * (1 + runs), ReplaySettings().timestep,
                field="--perturb" if runs else "--cycles")
    try:
        rep = replay(result, cycles=cycles)
        if runs:
            rep.report["perturbed"] = perturbed_replays(result, runs, seed=seed, cycles=cycles)
    except CannotReplay as err:
        print(_one_line(f"gaitopt: cannot verify {args.result_dir}: {err}"), file=sys.stderr)
        return EXIT_CANNOT_VERIFY
    outdir = Path(args.output) if args.output else Path(args.result_dir)
    with _writing():
        paths = write_replay(rep, outdir, args.result_dir)
    print(summary_text(rep.report))
    print(f"wrote {paths['report']} and {paths['plot']}")
    if not rep.verified:
        print(f"gaitopt: verification failed: {'; '.join(rep.report['failures'])}", file=sys.stderr)
        return EXIT_FAILED
    if not result.success:  # a replay of the best iterate is no verdict on an optimal gait: never exit 0
        print(_one_line(f"gaitopt: the replay matches the plan, but {args.result_dir} holds a failed solve "
                        f"({result.status}: {result.message}): not verified"), file=sys.stderr)
        return EXIT_FAILED
    print("verified")
    return EXIT_OK
