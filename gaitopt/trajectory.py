"""Optimal gait trajectories: knot values per phase and the interpolant of the transcription.

A `Trajectory` holds one full gait cycle (a half-cycle solution is expanded through the mirror
map). Phases do not share knots: at a phase junction there are two knots with the same time,
the state just before and just after (they differ in velocity at an impact).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from .collocation import METHODS
from .cycle import PLANAR, transform_state

KNOTS_FORMAT_VERSION = 1  # knots.npz, the lossless companion of trajectory.csv


def shown(x) -> float:
    """x for a printed line: rounded to 1e-12 and with +0.0 added, so that a zero that comes out
    as −1.8e-40 or −0.0 (a sideways trot's forward stride) prints as 0.0000, not -0.0000."""
    return round(float(x), 12) + 0.0


@dataclass(frozen=True)
class PhaseTrajectory:
    """Knot values of one phase: t (K+1,) s; q, v, a (K+1, nv); tau (K+1, nu);
    f (K+1, nc, 3) world forces [N] (zero for points not in contact); mid: the same at the K
    interval midpoints (Hermite–Simpson: its midpoint variables; trapezoidal: the midpoint
    state, the interval's constant a and f, the mean τ — where the equations of motion hold;
    the knot a and f are then means of the intervals meeting there); modes: foot → mode."""

    name: str
    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    tau: np.ndarray
    f: np.ndarray
    modes: dict
    mid: dict | None = None


@dataclass(frozen=True)
class Trajectory:
    """A full gait cycle. coordinates: q/v/a names; actuated: τ names; contact_names;
    stride [m] base advance per cycle; period [s]; method: collocation rule name."""

    phases: tuple
    coordinates: tuple
    actuated: tuple
    contact_names: tuple
    stride: float
    period: float
    method: str
    # the cycle's advance (gaitopt.cycle): base_x, base_y, base_z [m] in the frame of the cycle's
    # start and base_yaw [rad]; a cycle that turns is rotated about world z as well as shifted
    base_shift: np.ndarray = field(repr=False)

    def cycle_state(self, n: int, q, v=None, a=None, f=None) -> tuple:
        """(q, v, a, f) of cycle n from cycle 0's (`gaitopt.cycle.transform_state`)."""
        return transform_state(self.coordinates, self.base_shift, n, q, v, a, f)

    @property
    def turn(self) -> float:
        """Base yaw per cycle [rad] (0 unless the gait turns)."""
        c = list(self.coordinates)
        return float(self.base_shift[c.index("base_yaw")]) if "base_yaw" in c else 0.0

    @property
    def distance(self) -> float:
        """Path length of the base per cycle [m]: its planar advance (the chord), lengthened to
        the arc when the gait turns."""
        c = list(self.coordinates)
        chord = float(np.hypot(*(self.base_shift[c.index(k)] if k in c else 0.0 for k in PLANAR[:2])))
        h = 0.5 * self.turn
        return chord * h / np.sin(h) if h else chord

    def turn_text(self) -> str:
        """', advance (dx, dy) m and yaw … deg per cycle' when the gait moves sideways or turns."""
        c = list(self.coordinates)
        if "base_y" not in c or not (self.turn or self.base_shift[c.index("base_y")]):
            return ""
        dx, dy = (shown(self.base_shift[c.index(k)]) for k in PLANAR[:2])
        turn = shown(self.turn)
        return (f", advance ({dx:.4f}, {dy:.4f}) m and yaw {np.degrees(turn):.2f} deg per cycle "
                f"({self.distance / self.period:.4f} m/s along the path, {turn / self.period:.4f} rad/s)")

    @property
    def phase_names(self) -> list:
        return [p.name for p in self.phases]

    def phase_span(self, name: str) -> tuple:
        """(start, end) time [s] of the first phase with this name."""
        for p in self.phases:
            if p.name == name:
                return float(p.t[0]), float(p.t[-1])
        raise KeyError(name)

    def knots(self) -> dict:
        """Stacked knot values over the cycle plus a final row: the first knot of the next
        cycle (time + period, base advanced; rotated too when the gait turns). Keys: time, phase, q, v, a, tau, f."""
        out = {k: [] for k in ("time", "phase", "q", "v", "a", "tau", "f")}
        for p in self.phases:
            out["time"].append(p.t)
            out["phase"] += [p.name] * len(p.t)
            for k in ("q", "v", "a", "tau", "f"):
                out[k].append(getattr(p, k))
        first = self.phases[0]
        out["time"].append(first.t[:1] + self.period)
        out["phase"].append(first.name)
        q, v, a, f = self.cycle_state(1, first.q[:1], first.v[:1], first.a[:1], first.f[:1])
        for k, x in (("q", q), ("v", v), ("a", a), ("tau", first.tau[:1]), ("f", f)):
            out[k].append(x)
        return {k: (np.concatenate(v) if k != "phase" else np.array(v)) for k, v in out.items()}

    def _locate(self, t: float):
        """(cycle number, phase, interval index, fraction) of time t (any real)."""
        n = np.floor(t / self.period) if self.period > 0 else 0.0
        tc = t - n * self.period
        eps = 1e-12 * max(1.0, abs(self.period))
        # only rounding may put tc at the period: that instant is the next cycle's start
        # (np.isclose's default rtol 1e-5 wrapped tens of microseconds early, and made
        # sample_phase return a phase's first knot at its end time)
        if tc >= self.period - eps:
            n, tc = n + 1, 0.0
        last = self.phases[-1]
        for p in self.phases:
            # a junction time belongs to the later phase: its first knot (as documented)
            if p.t[0] - eps <= tc and (tc < p.t[-1] - eps or p is last):
                k = int(np.searchsorted(p.t, tc, side="right") - 1)
                k = min(max(k, 0), len(p.t) - 2)
                h = p.t[k + 1] - p.t[k]
                return int(n), p, k, min(max((tc - p.t[k]) / h, 0.0), 1.0) if h > 0 else 0.0
        return int(n), self.phases[-1], len(self.phases[-1].t) - 2, 1.0

    def sample(self, t) -> dict:
        """Values at times t (s, any real: cycles repeat with the base advanced, and rotated
        when the gait turns: `cycle_state`), using the
        interpolant of the transcription: trapezoidal — a and f constant on each interval
        (their knot values, the mean of both sides, exactly at a knot), v linear, q quadratic,
        τ linear; Hermite–Simpson — a, τ, f quadratic through knots and midpoint, v and q its
        integrals. Returns arrays with a leading time axis. At a phase junction time the later
        phase's first knot is returned."""
        t = np.atleast_1d(np.asarray(t, float))
        rule = METHODS[self.method]
        res = {k: [] for k in ("q", "v", "a", "tau", "f")}
        phase = []
        for ti in t:
            n, p, k, s = self._locate(ti)
            h = p.t[k + 1] - p.t[k]
            mid = None
            if p.mid is not None:
                mid = (p.mid["q"][k], p.mid["v"][k], p.mid["a"][k])
            q, v, a = rule.interpolate(s, h, p.q[k], p.v[k], p.a[k], p.q[k + 1], p.v[k + 1], p.a[k + 1], mid)
            tau, f = (rule.interpolate_input(s, getattr(p, key)[k], getattr(p, key)[k + 1],
                                             p.mid[key][k] if p.mid is not None else None, key) for key in ("tau", "f"))
            q, v, a, f = self.cycle_state(n, q, v, a, f)
            for key, x in (("q", q), ("v", v), ("a", a), ("tau", tau), ("f", f)):
                res[key].append(x)
            phase.append(p.name)
        out = {k: np.array(v) for k, v in res.items()}
        out["phase"] = np.array(phase)
        out["time"] = t
        return out

    def sample_cycle(self, per_interval: int = 8) -> tuple:  # 8: the trapezoid's error on a quintic τ q̇ < 1 %
        """The interpolant over one cycle, phase by phase, per_interval samples per interval:
        (t (T,), {q, v, a, tau, f: arrays with a leading time axis}, spans: a slice per phase
        for `gaitopt.energy.phase_integral`). Each phase's grid is closed (its own end knots), so
        a quantity that jumps at a junction is integrated on both sides of it."""
        from .energy import phase_spans  # here: energy's imports (CasADi) stay off the reading path

        grids = [np.linspace(p.t[0], p.t[-1], per_interval * (len(p.t) - 1) + 1) for p in self.phases]
        samples = [self.sample_phase(p.name, g) for p, g in zip(self.phases, grids)]
        return (np.concatenate(grids), {k: np.concatenate([s[k] for s in samples]) for k in samples[0]},
                phase_spans(len(g) for g in grids))

    def sample_phase(self, name: str, t) -> dict:
        """Like sample, but times inside the named phase (the phase's own knots at its ends)."""
        p = next(ph for ph in self.phases if ph.name == name)
        t = np.clip(np.asarray(t, float), p.t[0], p.t[-1])
        # sample inside the phase without wrapping: shift times so the phase starts at 0
        shifted = PhaseTrajectory(p.name, p.t - p.t[0], p.q, p.v, p.a, p.tau, p.f, p.modes, p.mid)
        sub = Trajectory((shifted,), self.coordinates, self.actuated, self.contact_names, self.stride,
                         float(p.t[-1] - p.t[0]) + 1e-9, self.method, self.base_shift * 0)
        return sub.sample(t - p.t[0])

    # ------------------------------------------------------------------ storage and reloading

    def phase_modes(self) -> dict:
        """Phase name → {foot: contact mode} (swing | flat | heel | toe | stance)."""
        return {p.name: dict(p.modes) for p in self.phases}

    def to_arrays(self) -> dict:
        """Every knot and midpoint value as plain arrays (no pickled objects), for np.savez;
        `from_arrays` rebuilds the identical Trajectory. Keys: format, coordinates, actuated,
        contact_names, stride, period, method, base_shift, phase_names, phase_modes (JSON), and
        per phase i `p{i}.t`, `p{i}.q`, … and `p{i}.mid.q`, … (Hermite–Simpson midpoints)."""
        out = {
            "format": np.array(f"gaitopt-knots {KNOTS_FORMAT_VERSION}"),
            "coordinates": np.array(self.coordinates, dtype=str),
            "actuated": np.array(self.actuated, dtype=str),
            "contact_names": np.array(self.contact_names, dtype=str),
            "stride": np.array(float(self.stride)),
            "period": np.array(float(self.period)),
            "method": np.array(self.method),
            "base_shift": np.asarray(self.base_shift, dtype=float),
            "phase_names": np.array(self.phase_names, dtype=str),
            "phase_modes": np.array(json.dumps([p.modes for p in self.phases])),
        }
        for i, p in enumerate(self.phases):
            for k in ("t", "q", "v", "a", "tau", "f"):
                out[f"p{i}.{k}"] = np.asarray(getattr(p, k), dtype=float)
            if p.mid is not None:
                for k in ("q", "v", "a", "tau", "f"):
                    out[f"p{i}.mid.{k}"] = np.asarray(p.mid[k], dtype=float)
        return out

    @classmethod
    def from_arrays(cls, data) -> "Trajectory":
        """Inverse of `to_arrays` (data: a dict or an opened .npz). Raises ValueError
        `KEY: what is wrong` on a malformed input (callers name the file): a missing key, an
        unknown format or method, a non-finite or non-positive period, a non-finite stride,
        arrays of the wrong shape or with non-finite values, knot times not increasing within a
        phase or phases not meeting end to start."""
        def get(key):
            if key not in data:
                raise ValueError(f"{key}: missing")
            return data[key]

        def floats(key, shape):
            try:
                x = np.array(get(key), dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"{key}: not numbers") from None
            if x.shape != shape:
                raise ValueError(f"{key}: shape {x.shape}, expected {shape}")
            if not np.all(np.isfinite(x)):
                raise ValueError(f"{key}: non-finite values")
            return x

        def names_of(key):
            x = np.asarray(get(key))
            if x.ndim != 1:
                raise ValueError(f"{key}: expected a list of names, got shape {x.shape}")
            return tuple(str(c) for c in x)

        fmt = str(get("format"))
        if fmt != f"gaitopt-knots {KNOTS_FORMAT_VERSION}":
            raise ValueError(f"format: unknown knots format {fmt[:40]!r} (allowed: gaitopt-knots {KNOTS_FORMAT_VERSION})")
        method = str(get("method"))
        if method not in METHODS:
            raise ValueError(f"method: unknown collocation rule {method[:40]!r} (allowed: {', '.join(METHODS)})")
        coordinates, actuated, contact_names = names_of("coordinates"), names_of("actuated"), names_of("contact_names")
        nv, nu, nc = len(coordinates), len(actuated), len(contact_names)
        period, stride = float(floats("period", ())), float(floats("stride", ()))
        if period <= 0:
            raise ValueError(f"period: must be positive, got {period!r}")
        base_shift = floats("base_shift", (nv,))
        names = list(names_of("phase_names"))
        if not names:
            raise ValueError("phase_names: no phases")
        try:
            modes = json.loads(str(get("phase_modes")))
        except json.JSONDecodeError:
            raise ValueError("phase_modes: not JSON") from None
        if not isinstance(modes, list) or len(modes) != len(names) or not all(isinstance(m, dict) for m in modes):
            raise ValueError(f"phase_modes: expected a list of {len(names)} foot → mode mappings")
        phases = []
        tol = 1e-9 * max(1.0, period)
        for i, name in enumerate(names):
            t = floats(f"p{i}.t", np.shape(get(f"p{i}.t")))
            if t.ndim != 1 or len(t) < 2:
                raise ValueError(f"p{i}.t: expected at least 2 knot times, got shape {t.shape}")
            if np.any(np.diff(t) <= 0):
                raise ValueError(f"p{i}.t: knot times of phase {name!r} not increasing")
            if i > 0 and abs(t[0] - phases[-1].t[-1]) > tol:
                raise ValueError(f"p{i}.t: phase {name!r} starts at {t[0]!r} s, the previous one ends at "
                                 f"{phases[-1].t[-1]!r} s")
            k1 = len(t)
            shapes = {"q": (k1, nv), "v": (k1, nv), "a": (k1, nv), "tau": (k1, nu), "f": (k1, nc, 3)}
            vals = {k: floats(f"p{i}.{k}", s) for k, s in shapes.items()}
            mid = None
            if any(f"p{i}.mid.{k}" in data for k in shapes):
                mid = {k: floats(f"p{i}.mid.{k}", (k1 - 1,) + s[1:]) for k, s in shapes.items()}
            phases.append(PhaseTrajectory(name, t, vals["q"], vals["v"], vals["a"], vals["tau"], vals["f"],
                                          dict(modes[i]), mid))
        span = phases[-1].t[-1] - phases[0].t[0]
        if abs(span - period) > 1e-6 * max(1.0, period):
            raise ValueError(f"period: {period!r} s, but the knots span {span!r} s")
        return cls(tuple(phases), coordinates, actuated, contact_names, stride, period, method, base_shift)

    @classmethod
    def from_knot_table(cls, cols: dict, *, coordinates, actuated, contact_names, stride: float, period: float,
                        method: str, modes: dict, base_shift, mids: dict | None = None) -> "Trajectory":
        """Rebuild a Trajectory from the knot rows of trajectory.csv (`cols`: column name →
        array, as `gaitopt.export.read_trajectory_csv` returns; modes: phase name → foot modes).

        Exact for the trapezoidal rule (its per-interval a and f are recovered from the knot
        means, starting at each phase's first knot, which carries its first interval). The CSV
        has no Hermite–Simpson midpoints: q_m, v_m, a_m are recovered from the collocation defects (exact to the solver's tolerance), τ_m and f_m
        are taken as the mean of the interval's ends (an approximation; `knots.npz`, written
        next to trajectory.csv by `gaitopt.export.save`, holds the exact values).

        mids: the midpoint rows of a format 2 trajectory.csv (the same columns, one row per
        interval in time order): then every midpoint value is taken from them, exactly."""
        if method not in METHODS:
            raise ValueError(f"transcription: unknown collocation rule {method!r} (allowed: {', '.join(METHODS)})")
        needed = ["time", "phase"] + [f"{k}.{c}" for k in ("q", "v", "a") for c in coordinates]
        needed += [f"tau.{j}" for j in actuated] + [f"f.{c}.{ax}" for c in contact_names for ax in "xyz"]
        missing = [c for c in needed if c not in cols]
        if missing:
            raise ValueError(f"columns: missing {missing[:6]}{' …' if len(missing) > 6 else ''}")
        labels = np.asarray(cols["phase"])[:-1]  # the last row is the next cycle's first knot
        n = len(labels)
        unknown = sorted({str(x) for x in labels} - set(modes))
        if unknown:
            raise ValueError(f"phase: unknown phase {unknown[0]!r} (allowed: {', '.join(modes)})")
        starts = [0] + [i for i in range(1, n) if labels[i] != labels[i - 1]] + [n]
        q, v, a, tau, f = (_table_arrays(cols, coordinates, actuated, contact_names)[k] for k in KEYS)
        t = np.asarray(cols["time"], dtype=float)
        mid_table = _table_arrays(mids, coordinates, actuated, contact_names) if mids is not None else None
        if mid_table is not None and len(mid_table["q"]) != n - (len(starts) - 1):
            raise ValueError(f"point: {len(mid_table['q'])} midpoint rows for {n - (len(starts) - 1)} intervals")
        phases = []
        for s, e in zip(starts[:-1], starts[1:]):
            name = str(labels[s])
            if e - s < 2:
                raise ValueError(f"phase {name!r} has {e - s} knot row(s); need at least 2")
            sl = slice(s, e)
            if mid_table is not None:  # interval i of the cycle sits between knot rows i + phase index
                ms = slice(s - starts.index(s), e - 1 - starts.index(s))
                mid = {k: x[ms].copy() for k, x in mid_table.items()}
            else:
                mid = METHODS[method].midpoints_from_knots(t[sl], q[sl], v[sl], a[sl], tau[sl], f[sl])
            phases.append(PhaseTrajectory(name, t[sl].copy(), q[sl].copy(), v[sl].copy(), a[sl].copy(),
                                          tau[sl].copy(), f[sl].copy(), dict(modes[name]), mid))
        return cls(tuple(phases), tuple(coordinates), tuple(actuated), tuple(contact_names), float(stride),
                   float(period), method, np.asarray(base_shift, dtype=float))


KEYS = ("q", "v", "a", "tau", "f")


def _table_arrays(cols: dict, coordinates, actuated, contact_names) -> dict:
    """q, v, a (n, nv), tau (n, nu), f (n, nc, 3) from knot-table columns (name → (n,))."""
    n = len(cols["time"])
    out = {k: np.column_stack([cols[f"{k}.{c}"] for c in coordinates]) for k in ("q", "v", "a")}
    out["tau"] = np.column_stack([cols[f"tau.{j}"] for j in actuated]) if actuated else np.zeros((n, 0))
    out["f"] = np.stack([np.column_stack([cols[f"f.{c}.{ax}"] for ax in "xyz"]) for c in contact_names], axis=1) \
        if contact_names else np.zeros((n, 0, 3))
    return out
