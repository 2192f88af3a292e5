"""The text layout every gaitopt CSV shares: `# key: value` comment lines (JSON values where
structured), then a header row and rows (README "trajectory.csv")."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from ..errors import InputError


def write_comments(fh, meta: dict) -> None:
    """One `# key: value` line per item: strings as they are, anything else as JSON."""
    for k, v in meta.items():
        fh.write(f"# {k}: {json.dumps(v) if not isinstance(v, str) else v}\n")


def read_comments(path: str | Path) -> tuple[dict, list]:
    """`# key: value` comment lines (JSON values where they parse) → dict; the other lines.
    InputError (naming the file) when it cannot be read as text."""
    meta, lines = {}, []
    if Path(path).exists() and not Path(path).is_file():  # a FIFO or device would block the read
        raise InputError("not a regular file", file=str(path))
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("#"):
                    key, _, val = line[1:].strip().partition(": ")
                    try:
                        meta[key] = json.loads(val)
                    except json.JSONDecodeError:
                        meta[key] = val
                else:
                    lines.append(line)
    except FileNotFoundError:
        raise InputError("no such file", file=str(path)) from None
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start})", file=str(path)) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", file=str(path)) from None
    return meta, lines


def _bad_cell(path, name: str, col: list) -> InputError:
    for i, cell in enumerate(col):
        try:
            float(cell)
        except ValueError:
            return InputError(f"data row {i + 1}: not a number: {cell[:40]!r}", file=path and str(path), field=name)
    return InputError("not a number column", file=path and str(path), field=name)


def table_columns(lines: list, is_text, path: str | Path | None = None) -> dict:
    """One header row, then rows → column name → array; columns for which is_text(name) stay
    strings, the others are floats. InputError (naming path and the column) on a malformed
    table: no header, duplicate names, ragged rows, cells that are not numbers."""
    where = str(path) if path is not None else None
    try:
        rows = [r for r in csv.reader(lines) if r]
    except csv.Error as err:
        raise InputError(f"not a CSV table ({err})", file=where) from None
    if not rows:
        raise InputError("no header row (the table is empty)", file=where, field="columns")
    names, body = rows[0], rows[1:]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(f"duplicate column names {dup[:5]}", file=where, field="columns")
    for i, r in enumerate(body):
        if len(r) != len(names):
            raise InputError(f"data row {i + 1} has {len(r)} cells, the header {len(names)}", file=where,
                             field="columns")
    data = {}
    for j, name in enumerate(names):
        col = [r[j] for r in body]
        if is_text(name):
            data[name] = np.array(col)
        else:
            try:
                data[name] = np.array(col, dtype=float)
            except ValueError:
                raise _bad_cell(path, name, col) from None
    return data


def read_commented_csv(path: str | Path, is_text) -> tuple[dict, dict]:
    """Comment lines, one header row, rows. Returns (header dict, column name → array)."""
    meta, lines = read_comments(path)
    return meta, table_columns(lines, is_text, path)
