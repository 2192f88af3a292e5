"""A study's results.csv (docs/formats.md, "Study output"): one row per case, appended with
flush + fsync as cases finish, read back without rows a kill cut short, and (the return pass of
`warm_start: both`, gaitopt.study_return) one row replaced by rewriting the file atomically."""
from __future__ import annotations

import csv
import os
from pathlib import Path

from .errors import InputError

# columns read back as text (every other one is parsed as a number where it is one)
_TEXT = ("case", "status", "message", "warm_from", "gear_ratios", "return_pass")


def _complete_rows(path: Path) -> tuple:
    """(header, rows as lists of the file's own strings) of a results.csv, without incomplete
    rows (a study killed while writing); ([], []) when there is none."""
    if not path.is_file():
        return [], []
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        return [], []
    return rows[0], [r for r in rows[1:] if len(r) == len(rows[0]) and r[0]]


def read_results(path: str | Path) -> list:
    """Rows of a results.csv as dicts (numbers parsed, success as bool); incomplete rows (a
    study killed while writing) are left out. path: the results.csv or the study's OUTDIR.
    InputError when there is no results.csv there (it returned [] silently)."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.csv"
    if not path.is_file():
        raise InputError(f"no results.csv at {path}: give a study's OUTDIR or its results.csv", field="path")
    return _parsed(*_complete_rows(path))


def _parsed(header: list, raw: list) -> list:
    """The rows `raw` (lists of strings under `header`) as `read_results` gives them."""
    out = []
    for r in raw:
        row = {}
        for k, v in zip(header, r):
            if k == "success":
                row[k] = v == "True"
            else:
                try:
                    row[k] = float(v) if k not in _TEXT else v
                except ValueError:
                    row[k] = v
        out.append(row)
    return out


def _write_atomic(path: Path, columns: list, raw: list) -> None:
    """results.csv as `columns` and the rows `raw` (lists of strings), written beside, synced
    and renamed over the file: a kill leaves the old file or the new one, whole."""
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(columns)
        w.writerows(raw)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _cell(value) -> str:
    """A value as csv.writer writes it (None empty)."""
    return "" if value is None else str(value)


class _Table:
    """results.csv, appended row by row with flush + fsync (a killed study keeps every row).

    columns: this gaitopt's columns. A file whose header is a prefix of them (an older gaitopt's:
    columns are only appended) keeps its own, unless `required` names a column it lacks: then
    the file is rewritten with every column, the new ones empty in its rows."""

    def __init__(self, path: Path, columns: list, required: tuple = ()):
        header, raw = _complete_rows(path)
        if raw and header == columns[:len(header)]:  # an older gaitopt's file: columns are appended
            if all(c in header for c in required):
                columns = header
            else:
                raw = [r + [""] * (len(columns) - len(header)) for r in raw]
                header = columns
        self.path, self.columns = path, columns
        if raw and header != columns:
            raise InputError(f"{path} was written by a different study (other columns); use another OUTDIR",
                             field="-o")
        # a case whose solve raised (status "error": a crash, a compiler missing) runs again
        raw = [r for r in raw if r[columns.index("status")] != "error"]
        # rewrite the complete rows only (a row cut short by a kill would swallow the next one),
        # as the file had them (parsed and written again, 45 would come back as 45.0)
        _write_atomic(path, columns, raw)
        self.done = {r["case"]: r for r in _parsed(columns, raw)}

    def append(self, row: dict) -> None:
        with open(self.path, "a", newline="", encoding="utf-8") as fh:
            csv.DictWriter(fh, self.columns, extrasaction="ignore").writerow(row)
            fh.flush()
            os.fsync(fh.fileno())
        self.done[row["case"]] = row

    def replace(self, row: dict, fields: tuple | None = None) -> None:
        """Put `row` in place of its case's row (the same place in the file), or with `fields`
        only those of its values; the other rows stay as the file had them. Atomic (a temp
        file renamed over results.csv)."""
        header, raw = _complete_rows(self.path)
        i = next(n for n, r in enumerate(raw) if r[0] == row["case"])
        if fields:
            raw[i] = [_cell(row[c]) if c in fields else raw[i][k] for k, c in enumerate(header)]
            self.done[row["case"]] = {**self.done[row["case"]], **{c: row[c] for c in fields if c in header}}
        else:
            raw[i] = [_cell(row.get(c)) for c in header]
            self.done[row["case"]] = row
        _write_atomic(self.path, header, raw)
