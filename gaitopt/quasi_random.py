"""Deterministic, well-spread sample points without numpy.random (whose import costs about 7 ms
of every `gaitopt solve` when only a load-time check needs a few points)."""
from __future__ import annotations

import numpy as np


def _primes(n: int) -> np.ndarray:
    """The first n primes."""
    found, k = [], 2
    while len(found) < n:
        if all(k % p for p in found if p * p <= k):
            found.append(k)
        k += 1
    return np.array(found, float)


def quasi_random(n: int, dim: int) -> np.ndarray:
    """(n, dim) points in [0, 1)^dim: the Kronecker sequence x_k = frac(1/2 + k·α) with
    α_j = frac(√p_j), p_j the j-th prime (irrational, independent steps: a coordinate spreads
    over [0, 1) within a few points, more slowly where α_j is near 0 or 1, e.g. √101; the same
    points at every call)."""
    alpha = np.sqrt(_primes(dim)) % 1.0
    return (0.5 + np.outer(np.arange(1, n + 1), alpha)) % 1.0
