"""Optimal gait trajectories: knot values per phase and the interpolant of the transcription.

A `Trajectory` holds one full gait cycle (a half-cycle solution is expanded through the mirror
map). Phases do not share knots: at a phase junction there are two knots with the same time,
the state just before and just after (they differ in velocity at an impact).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .collocation import METHODS


@dataclass(frozen=True)
class PhaseTrajectory:
    """Knot values of one phase: t (K+1,) s; q, v, a (K+1, nv); tau (K+1, nu);
    f (K+1, nc, 3) world forces [N] (zero for points not in contact); mid: the same at the K
    interval midpoints for Hermite–Simpson, else None; modes: foot → contact mode."""

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
    base_shift: np.ndarray = field(repr=False)  # q advance per cycle (base_x, base_z on slopes)

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
        cycle (time + period, base advanced). Keys: time, phase, q, v, a, tau, f."""
        out = {k: [] for k in ("time", "phase", "q", "v", "a", "tau", "f")}
        for p in self.phases:
            out["time"].append(p.t)
            out["phase"] += [p.name] * len(p.t)
            for k in ("q", "v", "a", "tau", "f"):
                out[k].append(getattr(p, k))
        first = self.phases[0]
        out["time"].append(first.t[:1] + self.period)
        out["phase"].append(first.name)
        out["q"].append(first.q[:1] + self.base_shift)
        for k in ("v", "a", "tau", "f"):
            out[k].append(getattr(first, k)[:1])
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
        """Values at times t (s, any real: cycles repeat with the base advanced), using the
        interpolant of the transcription for q, v, a, and linear (trapezoidal) or quadratic
        (Hermite–Simpson) interpolation of τ and f. Returns arrays with a leading time axis.
        At a phase junction time the later phase's first knot is returned."""
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
            res["q"].append(q + n * self.base_shift)
            res["v"].append(v)
            res["a"].append(a)
            for key in ("tau", "f"):
                x0, x1 = getattr(p, key)[k], getattr(p, key)[k + 1]
                if p.mid is not None:
                    xm = p.mid[key][k]
                    val = x0 * (1 - s) * (1 - 2 * s) + 4 * xm * s * (1 - s) + x1 * s * (2 * s - 1)
                else:
                    val = x0 + s * (x1 - x0)
                res[key].append(val)
            phase.append(p.name)
        out = {k: np.array(v) for k, v in res.items()}
        out["phase"] = np.array(phase)
        out["time"] = t
        return out

    def sample_phase(self, name: str, t) -> dict:
        """Like sample, but times inside the named phase (the phase's own knots at its ends)."""
        p = next(ph for ph in self.phases if ph.name == name)
        t = np.clip(np.asarray(t, float), p.t[0], p.t[-1])
        # sample inside the phase without wrapping: shift times so the phase starts at 0
        shifted = PhaseTrajectory(p.name, p.t - p.t[0], p.q, p.v, p.a, p.tau, p.f, p.modes, p.mid)
        sub = Trajectory((shifted,), self.coordinates, self.actuated, self.contact_names, self.stride,
                         float(p.t[-1] - p.t[0]) + 1e-9, self.method, self.base_shift * 0)
        return sub.sample(t - p.t[0])
