"""Deterministic, well-spread sample points without numpy.random (whose import costs about 7 ms
of every `gaitopt solve` when only a load-time check needs a few points)."""
from __future__ import annotations

import numpy as np


def quasi_random(n: int, dim: int) -> np.ndarray:
    """(n, dim) points in [0, 1)^dim: the additive recurrence x_k = frac(1/2 + k·α) with
    α_j = φ_d^−(j+1), φ_d the root > 1 of x^(d+1) = x + 1 (Roberts' R_d sequence: low
    discrepancy in every dimension, the same points at every call)."""
    phi = 2.0
    for _ in range(60):  # fixed-point iteration, converges for every d ≥ 1
        phi = (1.0 + phi) ** (1.0 / (dim + 1))
    alpha = phi ** -np.arange(1, dim + 1)
    return (0.5 + np.outer(np.arange(1, n + 1), alpha)) % 1.0
