"""MUMPS's work space kept on the C heap during a solve (glibc only).

MUMPS allocates its factorisation work space at every numeric factorisation and frees it after.
glibc serves a block above its mmap threshold with a fresh mapping, which the kernel zeroes page
by page when it is first touched; the threshold adapts to freed blocks only up to 32 MiB. At 8×
knots the work space is larger (hexapod_ripple: 89 MB), so every factorisation paid for
mapping and zeroing it again: 528 000 page faults and 0.8–0.97 s of system time in a 12 s solve,
against 0.07 s at 1×, where the space is reused (docs/speed.md, "Twelfth session";
bench/mumps_stats.py --heap). During a solve the thresholds are raised, so the space is taken
from the heap and reused. Afterwards they are set to the values glibc's own adaptation ends on
(mmap 32 MiB, trim 64 MiB) and the heap's free top is returned to the system.

Allocation policy only: every number computed is the same. Elsewhere than glibc (macOS,
Windows, musl) nothing is done.
"""
from __future__ import annotations

import contextlib
import ctypes
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
DURING = {M_MMAP_THRESHOLD: 1 << 30, M_TRIM_THRESHOLD: (1 << 31) - 1}  # bytes: 1 GiB, 2 GiB
AFTER = {M_MMAP_THRESHOLD: 32 << 20, M_TRIM_THRESHOLD: 64 << 20}  # glibc's adapted maximum, and twice it


def _glibc():
    """The C library if it is glibc (it has mallopt and malloc_trim), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the process's own symbols, the C library's among them
        libc.gnu_get_libc_version  # noqa: B018 - glibc's own symbol: not musl
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except (OSError, AttributeError):
        return None


@contextlib.contextmanager
def kept_on_heap():
    """Within: blocks up to 1 GiB from glibc's heap, never trimmed; after: the adapted
    thresholds and the free top of the heap returned (`malloc_trim`). Yields whether it applied."""
    libc = _glibc()
    if libc is None:
        yield False
        return
    for param, value in DURING.items():
        libc.mallopt(param, value)
    try:
        yield True
    finally:
        for param, value in AFTER.items():
            libc.mallopt(param, value)
        libc.malloc_trim(0)
