"""The full export table as NumPy arrays (np.load works without allow_pickle)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .atomic import atomic_open
from .sampling import DEFAULT_RATE_HZ, sample_table, samples_header

NAME_LISTS = ("coordinates", "actuated", "contact_names", "feet")


def write_npz(result, path: str | Path, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1) -> Path:
    """The full table as NumPy arrays (np.load works without allow_pickle): the keys of
    `sample_table`, names as string arrays, and `meta` (the full CSV's header as JSON)."""
    path = Path(path)
    tb = sample_table(result, rate_hz, cycles)
    meta = samples_header(result, rate_hz, cycles, len(tb["time"]), tb)
    arrays = {k: (np.array(v, dtype=str) if isinstance(v, list) else np.asarray(v)) for k, v in tb.items()}
    arrays["phase"] = np.asarray(tb["phase"], dtype=str)
    arrays["mode"] = np.asarray(tb["mode"], dtype=str)
    with atomic_open(path, "wb") as fh:
        np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **arrays)
    return path


def read_npz(path: str | Path) -> tuple[dict, dict]:
    """(header dict, the `sample_table` dict) of an NPZ export."""
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        data = {k: z[k] for k in z.files if k != "meta"}
    for k in NAME_LISTS:
        data[k] = [str(x) for x in data[k]]
    return meta, data
