"""The full export table as CSV (README "Export"): trajectory.csv's columns at any rate, plus
motor current and electrical power per joint, contact flag and mode per foot."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ..errors import InputError
from .atomic import atomic_open
from .commented_csv import table_columns, write_comments
from .motors_table import MOTORS_FORMAT
from .sampling import DEFAULT_RATE_HZ, SAMPLES_FORMAT, sample_table, samples_header
from .trajectory_csv import knot_columns


def full_columns(table: dict) -> list:
    """Column names of the full export: trajectory.csv's, then current.<joint> [A],
    power.<joint> [W], contact.<foot> (1 | 0), mode.<foot>."""
    cols = knot_columns(table["coordinates"], table["actuated"], table["contact_names"])
    cols += [f"current.{j}" for j in table["actuated"]] + [f"power.{j}" for j in table["actuated"]]
    cols += [f"contact.{ft}" for ft in table["feet"]] + [f"mode.{ft}" for ft in table["feet"]]
    return cols


def write_full_csv(result, path: str | Path, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1) -> Path:
    """The full table (README "Export"): trajectory.csv's columns at the given rate plus motor
    current and electrical power per joint, contact flag and mode per foot."""
    path = Path(path)
    tb = sample_table(result, rate_hz, cycles)
    n = len(tb["time"])
    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
        write_comments(fh, samples_header(result, rate_hz, cycles, n, tb))
        w = csv.writer(fh)
        w.writerow(full_columns(tb))
        for i in range(n):
            row = [repr(float(tb["time"][i])), str(tb["phase"][i])]
            for key in ("q", "v", "a", "tau", "f", "current", "power"):
                row += [repr(float(x)) for x in np.ravel(tb[key][i])]
            row += [str(int(x)) for x in tb["contact"][i]] + [str(x) for x in tb["mode"][i]]
            w.writerow(row)
    return path


def full_from_lines(path, meta: dict, lines: list) -> dict:
    """The `sample_table` dict of a full CSV from its header and its other lines."""
    cols = table_columns(lines, lambda name: name == "phase" or name.startswith("mode."), path)
    if meta.get("format") != SAMPLES_FORMAT:
        raise InputError(f"not a gaitopt export (format {meta.get('format')!r})", file=str(path), field="format",
                         allowed=[SAMPLES_FORMAT, MOTORS_FORMAT])
    coords, act, cn, feet = meta["coordinates"], meta["actuated"], meta["contact_names"], meta["feet"]
    n = len(cols["time"])

    def stack(names):
        return np.column_stack([cols[c] for c in names]) if names else np.zeros((n, 0))
    data = {"time": cols["time"], "phase": cols["phase"]}
    for k in ("q", "v", "a"):
        data[k] = stack([f"{k}.{c}" for c in coords])
    data["tau"] = stack([f"tau.{j}" for j in act])
    data["f"] = stack([f"f.{c}.{ax}" for c in cn for ax in "xyz"]).reshape(n, len(cn), 3)
    data["current"] = stack([f"current.{j}" for j in act])
    data["power"] = stack([f"power.{j}" for j in act])
    data["contact"] = stack([f"contact.{ft}" for ft in feet]).astype(bool)
    data["mode"] = np.column_stack([cols[f"mode.{ft}"] for ft in feet])
    data.update(coordinates=list(coords), actuated=list(act), contact_names=list(cn), feet=list(feet))
    return data
