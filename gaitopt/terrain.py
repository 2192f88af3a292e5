"""The ground a gait walks on: a plane slope, steps or a stair, or a height map.

Each surface gives its height z = h(x, y) [m] and unit normal at (x, y) for numbers (numpy,
any broadcastable shapes) and for CasADi expressions (the NLP), from one formula:

* `Plane(slope)`: z = x·tan(slope), uphill towards +x.
* `Steps(edges, levels, smoothing)`: level z_i from edge x_i on (z = 0 before the first edge).
  The NLP sees each step smoothed, z = Σ Δz_i·σ((x − x_i)/w), σ(u) = (1 + tanh u)/2: it rises
  from 12 % to 88 % of its height over ±w = `smoothing` around the edge (default 0.01 m).
  `exact_height` is the true step; swing clearance is measured above `envelope`, the smoothed
  steps moved by 3w towards their low side, which lies above the true edge (σ(3) = 99.75 %).
* `HeightMap(origin, spacing, heights)`: heights H[i][j] at (x0 + i·dx, y0 + j·dy), the grid
  tiled periodically in x and y (period nx·dx, ny·dy); the surface is the grid's trigonometric
  interpolant, exact at the nodes and smooth between them (normals exist everywhere).

`reference_height` is the ground level a base height band is measured from: the plane, a ramp
through the steps' middles, the height map's mean. `grade` is the base's rise per metre of
travel in a periodic gait (tan(slope), rise/run of a stair, 0 on a height map).
"""
from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from .errors import InputError

DEFAULT_SMOOTHING = 0.01   # [m] half-width of a smoothed step edge in the NLP
ENVELOPE_SHIFT = 3.0       # swing clearance envelope: edges moved by this many widths
MAX_GRID = 64              # height-map samples per axis (the NLP evaluates every Fourier term)


def _symbolic(x) -> bool:
    return isinstance(x, (ca.SX, ca.MX, ca.DM))


def _tanh(x):
    return ca.tanh(x) if _symbolic(x) else np.tanh(x)


def _cos(x):
    return ca.cos(x) if _symbolic(x) else np.cos(x)


def _sin(x):
    return ca.sin(x) if _symbolic(x) else np.sin(x)


def _unit(nx, ny):
    """Unit normal (−h_x, −h_y, 1)/‖·‖ from the gradient: a (3,) SX or an (..., 3) array."""
    if _symbolic(nx) or _symbolic(ny):
        norm = ca.sqrt(1.0 + nx ** 2 + ny ** 2)
        return ca.vertcat(-nx, -ny, 1.0) / norm
    nx, ny = np.broadcast_arrays(np.asarray(nx, float), np.asarray(ny, float))
    n = np.stack([-nx, -ny, np.ones_like(nx)], axis=-1)
    return n / np.linalg.norm(n, axis=-1, keepdims=True)


class Surface:
    """A terrain surface (see the module docstring). Subclasses define `height` and
    `gradient` ((h_x, h_y) [m/m]) for numbers or CasADi expressions."""

    kind = ""
    grade = 0.0

    def height(self, x, y):
        raise NotImplementedError

    def gradient(self, x, y):
        raise NotImplementedError

    def normal(self, x, y):
        """Unit normal at (x, y): (3,) SX for symbols, (..., 3) array for numbers."""
        return _unit(*self.gradient(x, y))

    def exact_height(self, x, y):
        """The true ground height [m] (differs from `height` at smoothed step edges)."""
        return self.height(x, y)

    def envelope(self, x, y):
        """Height [m] that swing feet clear (≥ the true ground)."""
        return self.height(x, y)

    def reference_height(self, x, y):
        """Ground level [m] under the base for its height band."""
        return self.height(x, y)

    def describe(self) -> dict:
        """Plain data from which `surface_from_dict` rebuilds the surface."""
        raise NotImplementedError


@dataclass(frozen=True)
class Plane(Surface):
    slope: float = 0.0
    kind = "plane"

    @property
    def grade(self) -> float:
        return float(np.tan(self.slope))

    def height(self, x, y):
        return x * self.grade

    def gradient(self, x, y):
        return self.grade + 0.0 * x, 0.0 * y

    def describe(self) -> dict:
        return {"kind": "plane", "slope_rad": float(self.slope)}


@dataclass(frozen=True)
class Steps(Surface):
    """Edges x_i [m] (increasing) and the level z_i [m] from each edge on; a stair keeps its
    rise/run as `grade`."""

    edges: tuple
    levels: tuple
    smoothing: float = DEFAULT_SMOOTHING
    stair_grade: float = 0.0
    kind = "steps"

    @property
    def grade(self) -> float:
        return self.stair_grade

    @property
    def rises(self) -> np.ndarray:
        return np.diff(np.concatenate([[0.0], self.levels]))

    def _sum(self, x, shift: float, deriv: bool = False):
        w, out = self.smoothing, 0.0 * x
        for xe, dz in zip(self.edges, self.rises):
            # an up step's envelope edge moves back (−x), a down step's forward
            th = _tanh((x - xe + np.sign(dz) * shift) / w)
            out = out + (dz * 0.5 * (1.0 - th ** 2) / w if deriv else dz * 0.5 * (1.0 + th))
        return out

    def height(self, x, y):
        return self._sum(x, 0.0)

    def gradient(self, x, y):
        return self._sum(x, 0.0, deriv=True), 0.0 * y

    def envelope(self, x, y):
        return self._sum(x, ENVELOPE_SHIFT * self.smoothing)

    def envelope_slope(self, x):
        """∂(envelope)/∂x [m/m]."""
        return self._sum(x, ENVELOPE_SHIFT * self.smoothing, deriv=True)

    def exact_height(self, x, y):
        x = np.asarray(x, float)
        idx = np.searchsorted(np.asarray(self.edges), x, side="right")
        return np.concatenate([[0.0], self.levels])[idx]

    def reference_height(self, x, y):
        """A ramp through the middles of the treads: each step's rise spread linearly over the
        half-treads either side of its edge (a straight line along a stair)."""
        e = np.asarray(self.edges, float)
        gaps = np.diff(e)
        out = 0.0 * x
        for i, (xe, dz) in enumerate(zip(e, self.rises)):
            before = gaps[i - 1] if i > 0 else (gaps[0] if len(gaps) else 0.3)
            after = gaps[i] if i < len(gaps) else before
            a, b = xe - 0.5 * before, xe + 0.5 * after
            u = (x - a) / (b - a)
            out = out + dz * (ca.fmin(ca.fmax(u, 0.0), 1.0) if _symbolic(u) else np.clip(u, 0.0, 1.0))
        return out

    def describe(self) -> dict:
        return {"kind": "steps", "edges": [float(v) for v in self.edges], "levels": [float(v) for v in self.levels],
                "smoothing": float(self.smoothing), "grade": float(self.stair_grade)}


@dataclass(frozen=True)
class HeightMap(Surface):
    """Grid heights (nx, ny) [m] at (x0 + i·dx, y0 + j·dy), tiled periodically; the surface is
    Σ_kl Re(c_kl·exp(2πi(k(x − x0)/Lx + l(y − y0)/Ly))) with c = fft2(H)/(nx·ny)."""

    origin: tuple
    spacing: tuple
    heights: tuple  # rows along x of heights along y
    kind = "height_map"

    @property
    def grid(self) -> np.ndarray:
        return np.asarray(self.heights, float)

    @property
    def period(self) -> tuple:
        nx, ny = self.grid.shape
        return nx * self.spacing[0], ny * self.spacing[1]

    def _terms(self):
        """[(a, b, kx, ky)]: h = Σ a·cos(θ) − b·sin(θ), θ = kx·(x − x0) + ky·(y − y0)."""
        H = self.grid
        nx, ny = H.shape
        C = np.fft.fft2(H) / H.size
        Lx, Ly = self.period
        fx, fy = np.fft.fftfreq(nx, 1.0 / nx), np.fft.fftfreq(ny, 1.0 / ny)
        out = []
        for i in range(nx):
            for j in range(ny):
                if abs(C[i, j]) > 1e-12:
                    out.append((C[i, j].real, C[i, j].imag, 2 * np.pi * fx[i] / Lx, 2 * np.pi * fy[j] / Ly))
        return out

    def _eval(self, x, y, which):
        x0, y0 = self.origin
        out = 0.0 * x + 0.0 * y
        for a, b, kx, ky in self._terms():
            th = kx * (x - x0) + ky * (y - y0)
            if which == "h":
                out = out + a * _cos(th) - b * _sin(th)
            else:
                k = kx if which == "x" else ky
                if k != 0.0:
                    out = out - k * (a * _sin(th) + b * _cos(th))
        return out

    def height(self, x, y):
        return self._eval(x, y, "h")

    def gradient(self, x, y):
        return self._eval(x, y, "x"), self._eval(x, y, "y")

    def reference_height(self, x, y):
        return float(self.grid.mean()) + 0.0 * x

    def describe(self) -> dict:
        return {"kind": "height_map", "origin": [float(v) for v in self.origin],
                "spacing": [float(v) for v in self.spacing], "heights": self.grid.tolist()}


def stair(rise: float, run: float, count: int, start_x: float, smoothing: float = DEFAULT_SMOOTHING) -> Steps:
    """`count` steps up of `rise` [m] every `run` [m] from x = start_x (negative rise: down)."""
    edges = tuple(start_x + i * run for i in range(count))
    levels = tuple(rise * (i + 1) for i in range(count))
    return Steps(edges, levels, smoothing, rise / run)
