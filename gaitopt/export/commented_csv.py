"""The text layout every gaitopt CSV shares: `# key: value` comment lines (JSON values where
structured), then a header row and rows (README "trajectory.csv")."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np


def write_comments(fh, meta: dict) -> None:
    """One `# key: value` line per item: strings as they are, anything else as JSON."""
    for k, v in meta.items():
        fh.write(f"# {k}: {json.dumps(v) if not isinstance(v, str) else v}\n")


def read_comments(path: str | Path) -> tuple[dict, list]:
    """`# key: value` comment lines (JSON values where they parse) → dict; the other lines."""
    meta, lines = {}, []
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
    return meta, lines


def table_columns(lines: list, is_text) -> dict:
    """One header row, then rows → column name → array; columns for which is_text(name) stay
    strings, the others are floats."""
    rows = list(csv.reader(lines))
    names, body = rows[0], rows[1:]
    data = {}
    for j, name in enumerate(names):
        col = [r[j] for r in body]
        data[name] = np.array(col) if is_text(name) else np.array(col, dtype=float)
    return data


def read_commented_csv(path: str | Path, is_text) -> tuple[dict, dict]:
    """Comment lines, one header row, rows. Returns (header dict, column name → array)."""
    meta, lines = read_comments(path)
    return meta, table_columns(lines, is_text)
