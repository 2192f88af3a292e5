"""MUMPS's work space kept on glibc's heap during a solve (gaitopt.work_space).

A large block freed and taken again inside `kept_on_heap` is reused, not mapped and zeroed by the
kernel again (what every MUMPS factorisation above 32 MiB of work space paid); the solve's
numbers are the same with and without it; after it the heap's free top is returned.
"""
from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import resource
from pathlib import Path

import numpy as np
import pytest

import gaitopt as go
from gaitopt import solver as solver_module
from gaitopt.work_space import _glibc, kept_on_heap

ROOT = Path(__file__).resolve().parent.parent
glibc_only = pytest.mark.skipif(_glibc() is None, reason="not glibc: kept_on_heap does nothing here")
BLOCK = 80 << 20  # bytes: above glibc's 32 MiB ceiling for its adaptive mmap threshold


def _filled_block(libc) -> None:
    """malloc a BLOCK, write every byte, free it: what MUMPS does with its work space (through
    the C library, as Fortran's ALLOCATE does; NumPy's arrays ask for huge pages instead)."""
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    ptr = libc.malloc(ctypes.c_size_t(BLOCK))
    assert ptr
    ctypes.memset(ptr, 1, BLOCK)
    libc.free(ptr)


def _faults_of_second_block() -> int:
    """Minor page faults of filling a BLOCK after one was filled and freed."""
    libc = _glibc()
    _filled_block(libc)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    _filled_block(libc)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


@glibc_only
def test_a_freed_large_block_is_reused_not_zeroed_again():
    pages = BLOCK // resource.getpagesize()
    assert _faults_of_second_block() > pages // 2  # glibc maps it afresh: a fault per page
    with kept_on_heap() as applied:
        assert applied
        assert _faults_of_second_block() < pages // 20  # the heap grew once: then it is reused
    assert _faults_of_second_block() > pages // 2  # after: glibc's own policy again


def test_the_solve_is_the_same_with_and_without_it(monkeypatch):
    problem = go.load_problem(ROOT / "problems" / "biped7_static_walk.yaml").scaled_knots(0.5)
    problem = problem.replace(solver=dataclasses.replace(problem.solver, print_level=0, codegen=False))
    kept = go.solve(problem)
    monkeypatch.setattr(solver_module, "kept_on_heap", contextlib.nullcontext)
    plain = go.solve(problem)
    assert kept.success and np.array_equal(kept.x, plain.x)
    assert kept.stats["iterations"] == plain.stats["iterations"]
