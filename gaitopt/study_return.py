"""The return pass of a study with `warm_start: both` (docs/studies.md, "Return pass").

Warm starts follow one branch of local optima: a speed sweep started at its slowest case can
stay on a branch several times worse until it jumps (docs/studies.md, "A branch can be much
worse"). After the forward waves (increasing grid-index sum, gaitopt.study), the return pass
visits the waves in DEcreasing order and re-solves each case from a solved neighbour one grid
step above it (index + 1 along the first parameter that has one and that the case did not start
from), so a better branch found higher up is carried down, as continuation methods do. The
re-solve is kept when it succeeds with a cost lower than the case's row by more than 1e-6
relative (or the row had failed); the row's `return_pass` column says what happened.

Files stay consistent through a kill: a re-solve is saved under OUTDIR/.return/cases/<case>;
results.csv is rewritten (temp file, os.replace) with the new row, which is the commit point;
then the case's folder is renamed to OUTDIR/.return/old/<case>, the new one into its place, and
the old one removed. `recover` finishes or undoes what a kill left half done, and a resumed
study skips the cases whose `return_pass` is filled.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

# results.csv columns appended 2026-11-25 (docs/formats.md): the return pass's outcome ("" not
# visited, better, kept, failed, none), the re-solve's IPOPT iterations and seconds, and the cost
# of the solve not kept (the forward one when the re-solve replaced it, else the re-solve's)
RETURN_COLUMNS = ("return_pass", "return_iterations", "return_solve_time_s", "discarded_cost")
SCRATCH = ".return"
REL_BETTER = 1e-6
# the return_pass values of a visited case, counted apart on the progress line
OUTCOMES = ("better", "kept", "failed", "none")


def upper_neighbour(case, by_index: dict, rows: dict) -> str | None:
    """Key of the solved case one grid step above `case` (index + 1 along the first parameter
    that has one), other than the case its row started from; None if there is none."""
    for k in range(len(case.index)):
        up = by_index.get(case.index[:k] + (case.index[k] + 1,) + case.index[k + 1:])
        if up is not None and rows.get(up.key, {}).get("success") and up.key != rows[case.key].get("warm_from"):
            return up.key
    return None


def is_better(new: dict, old: dict) -> bool:
    """Whether the re-solve's row `new` replaces `old`: it succeeded, and `old` failed or cost
    more by over REL_BETTER relative."""
    if not new.get("success"):
        return False
    return not old.get("success") or new["cost"] < old["cost"] - REL_BETTER * abs(old["cost"])


def _swap(outdir: Path, key: str) -> None:
    """Move a committed re-solve (OUTDIR/.return/cases/<key>) into OUTDIR/cases/<key>, from any
    state a kill left the swap in; the replaced folder goes via OUTDIR/.return/old and is removed."""
    case_dir, new, old = outdir / "cases" / key, outdir / SCRATCH / "cases" / key, outdir / SCRATCH / "old" / key
    if new.is_dir():
        if case_dir.exists():
            shutil.rmtree(old, ignore_errors=True)
            old.parent.mkdir(parents=True, exist_ok=True)
            os.rename(case_dir, old)
        os.rename(new, case_dir)
    shutil.rmtree(old, ignore_errors=True)


def recover(table, outdir: str | Path) -> None:
    """Finish the swaps a kill interrupted after results.csv was rewritten (row `better`), and
    drop re-solves it interrupted before (the case is re-solved again)."""
    outdir = Path(outdir)
    scratch = outdir / SCRATCH
    if not scratch.is_dir():
        return
    for d in sorted((scratch / "cases").glob("*")):
        if table.done.get(d.name, {}).get("return_pass") == "better":
            _swap(outdir, d.name)
        else:
            shutil.rmtree(d, ignore_errors=True)
    for d in sorted((scratch / "old").glob("*")):
        if (outdir / "cases" / d.name).exists():
            shutil.rmtree(d, ignore_errors=True)
        else:  # not reachable by the order of `_swap`; put the folder back rather than lose it
            os.rename(d, outdir / "cases" / d.name)
    shutil.rmtree(scratch, ignore_errors=True)


def _commit(case, new: dict, table, outdir: Path) -> str:
    """Record the re-solve `new` of `case`: its row and folder if better, else the outcome in
    the row's return columns. Returns the outcome written to `return_pass` (better, kept, failed)."""
    old = table.done[case.key]
    stats = {"return_iterations": new.get("iterations"), "return_solve_time_s": new.get("solve_time_s")}
    if is_better(new, old):
        row = {**new, **stats, "return_pass": "better", "discarded_cost": old.get("cost") if old.get("success") else None}
        table.replace(row)  # the commit point: from here the row names the new folder
        _swap(outdir, case.key)
        return "better"
    outcome = "kept" if new.get("success") else "failed"
    table.replace({"case": case.key, **stats, "return_pass": outcome, "discarded_cost": new.get("cost")},
                  fields=RETURN_COLUMNS)
    shutil.rmtree(outdir / SCRATCH / "cases" / case.key, ignore_errors=True)
    return outcome


def return_pass(cases: list, table, outdir: str | Path, executor, stream, on_row, interrupt) -> None:
    """Run the return pass over `cases` (gaitopt.study.Case, all with rows in `table`) in
    decreasing waves, in this process (executor None) or on `executor`; progress "return pass
    k/N" on `stream` (None: quiet); `on_row` gets each replaced row; Ctrl-C (interrupt.hit)
    stops it after the running case, resumable."""
    from .study import _Progress, _run_waves  # why: gaitopt.study imports this module

    outdir = Path(outdir)
    recover(table, outdir)
    by_index = {c.index: c for c in cases}
    todo = [c for c in cases if c.key in table.done and table.done[c.key].get("return_pass") in ("", None)]
    bar = _Progress(len(cases), len(cases) - len(todo), stream, label="return pass ",
                    words=OUTCOMES) if stream is not None else None

    def finish(case, row):
        outcome = _commit(case, row, table, outdir)
        if bar:
            bar.update(outcome)
        if outcome == "better" and on_row:
            on_row(table.done[case.key])
        if interrupt.hit:  # as in the forward pass: stop after the case that was running
            raise KeyboardInterrupt

    try:
        for w in sorted({sum(c.index) for c in todo}, reverse=True):
            wave, start = [], {}
            for case in (c for c in todo if sum(c.index) == w):
                up = upper_neighbour(case, by_index, table.done)
                if up is None:
                    table.replace({"case": case.key, "return_pass": "none"}, fields=("return_pass",))
                    if bar:
                        bar.update("none")
                else:
                    wave.append(case)
                    start[case.key] = str(outdir / "cases" / up)
            _run_waves(wave, executor, finish, lambda c: start[c.key], outdir / SCRATCH, waves=[w])
        recover(table, outdir)  # nothing left to finish: removes OUTDIR/.return
    finally:
        if bar:
            bar.close()
