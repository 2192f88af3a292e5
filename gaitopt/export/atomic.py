"""Atomic file writing: every file gaitopt writes goes to a temporary file in the same
directory first and is then renamed over the target (`os.replace`), so that an interrupted run
never leaves a half-written file where a good one was."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_path(path: str | Path):
    """Yield a temporary path (same directory, same suffix) to write; on success it replaces
    `path`, on an exception it is removed and `path` is left as it was."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".tmp{path.suffix}", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@contextmanager
def atomic_open(path: str | Path, mode: str = "w", **kwargs):
    """open() a temporary file next to `path`; it replaces `path` only when the block ends
    without an exception (the data flushed to disk first)."""
    with atomic_path(path) as tmp:
        with open(tmp, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())


def atomic_write_text(path: str | Path, text: str) -> Path:
    with atomic_open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return Path(path)
