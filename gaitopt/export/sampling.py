"""The gait sampled at any rate with the transcription's interpolant (README "Export, plots,
animation"): the table the full CSV, the NPZ export and the plots are made of, and the header
the sampled exports share."""
from __future__ import annotations

import numpy as np

from .. import quantities as Q
from ..errors import InputError
from .trajectory_csv import header

DEFAULT_RATE_HZ = 500.0  # a row every 2 ms, as the HOAP-2 motion files
SAMPLES_FORMAT = "gaitopt-samples 1"
MAX_ROWS = 1_000_000  # rows of a sampled export (a full CSV of 1e6 rows is about 1 GB)
MAX_RATE_HZ = 100_000.0  # samples per second
MAX_CYCLES = 1000  # gait cycles of an export


def sample_times(period: float, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1) -> np.ndarray:
    """Times i/rate [s], i = 0, 1, … of `cycles` gait cycles, the end excluded: [0, cycles·period),
    so that a table can be looped or appended to the next one without a repeated row."""
    if isinstance(rate_hz, bool) or not (isinstance(rate_hz, (int, float, np.integer, np.floating))
                                         and np.isfinite(rate_hz) and rate_hz > 0):
        raise InputError(f"rate must be a positive number of samples per second, got {rate_hz!r}", field="rate",
                         allowed=f"0 < rate ≤ {MAX_RATE_HZ:g}")
    if rate_hz > MAX_RATE_HZ:
        raise InputError(f"rate {rate_hz:g} Hz exceeds the limit of {MAX_RATE_HZ:g} Hz", field="rate",
                         allowed=f"0 < rate ≤ {MAX_RATE_HZ:g}")
    if isinstance(cycles, bool) or not isinstance(cycles, (int, np.integer)) or cycles < 1:
        raise InputError(f"cycles must be a whole number ≥ 1, got {cycles!r}", field="cycles",
                         allowed=f"1 … {MAX_CYCLES}")
    if cycles > MAX_CYCLES:
        raise InputError(f"{cycles} cycles exceed the limit of {MAX_CYCLES}", field="cycles",
                         allowed=f"1 … {MAX_CYCLES}")
    if not (isinstance(period, (int, float, np.integer, np.floating)) and np.isfinite(period) and period > 0):
        raise InputError(f"the gait period must be positive and finite, got {period!r}", field="period")
    span = cycles * period
    n = int(np.ceil(span * rate_hz - 1e-9))
    if n > MAX_ROWS:
        raise InputError(f"{n} rows ({cycles} cycles of {period:.4g} s at {rate_hz:g} Hz) exceed the limit of "
                         f"{MAX_ROWS}; lower the rate or the cycles", field="rate", allowed=f"≤ {MAX_ROWS} rows")
    return np.arange(max(n, 1)) / float(rate_hz)


def sample_table(result, rate_hz: float = DEFAULT_RATE_HZ, cycles: int = 1, times=None) -> dict:
    """The gait sampled with the transcription's interpolant, the base advancing each cycle.

    times: explicit sample times [s] (then rate_hz and cycles are ignored). Returns time (T,),
    phase (T,) labels, q, v, a (T, nv), tau, current [A], power [W, electrical V·i] (T, nu),
    f (T, nc, 3) world forces [N], contact (T, n_feet) bool, mode (T, n_feet) contact modes,
    and the names: coordinates, actuated, contact_names, feet."""
    traj, robot = result.trajectory, result.robot
    t = sample_times(traj.period, rate_hz, cycles) if times is None else np.atleast_1d(np.asarray(times, float))
    s = traj.sample(t)
    modes = Q.foot_modes(traj, s["phase"])
    feet = list(modes)
    return {
        "time": s["time"], "phase": s["phase"], "q": s["q"], "v": s["v"], "a": s["a"], "tau": s["tau"],
        "f": s["f"], "current": Q.motor_current(robot, s["tau"]), "power": Q.electrical_power(robot, s["tau"], s["v"]),
        "contact": np.column_stack([modes[ft] != "swing" for ft in feet]),
        "mode": np.column_stack([modes[ft] for ft in feet]),
        "coordinates": list(traj.coordinates), "actuated": list(traj.actuated),
        "contact_names": list(traj.contact_names), "feet": feet,
    }


def samples_header(result, rate_hz: float, cycles: int, rows: int, table: dict) -> dict:
    """The header of the full CSV and of the NPZ export: trajectory.csv's, with the sampling,
    the name lists and the units of the added columns."""
    meta = header(result)
    meta["format"] = SAMPLES_FORMAT
    meta.update(rate_hz=float(rate_hz), cycles=int(cycles), rows=int(rows), coordinates=table["coordinates"],
                actuated=table["actuated"], contact_names=table["contact_names"], feet=table["feet"])
    meta["units"] = dict(meta["units"], current="A (motor current tau/(G*K))",
                         power="W (electrical V*i = R*i^2 + K*G*omega*i)", contact="1 in contact, 0 swinging")
    return meta
