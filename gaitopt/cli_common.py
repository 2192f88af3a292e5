"""What the commands of gaitopt.cli share: exit codes, one-line messages, command-line numbers,
output paths (never a command's inputs) and the reading of a RESULT_DIR."""
from __future__ import annotations

import math
import os
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

from .errors import InputError
from .export import load_result

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CANNOT_VERIFY = 4  # `verify`: the replay could not be run (not a verdict on the gait)
MAX_LINE = 400  # characters of a one-line error
_PENDING_WARNINGS: list = []  # printed when the command ends without an error (bad input: one line only)


def _one_line(text: str, limit: int = MAX_LINE) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"




def _positive(value: str, name: str, kind=float, limit=None):
    """Parse a command-line number here (not in argparse) so bad input is one `gaitopt:` line:
    positive, finite and, with a limit, at most that (the limit named)."""
    allowed = None if limit is None else f"1 … {limit:g}" if kind is int else f"0 < {name} ≤ {limit:g}"
    try:
        x = kind(str(value).strip())
    except (ValueError, OverflowError):
        raise InputError(f"expected {'a whole' if kind is int else 'a'} number, got {_one_line(value, 40)!r}",
                         field=name, allowed=allowed) from None
    if not x > 0 or x != x or x == float("inf"):
        raise InputError(f"must be positive and finite, got {_one_line(value, 40)!r}", field=name, allowed=allowed)
    if limit is not None and x > limit:
        raise InputError(f"{x:g} exceeds the limit of {limit:g}", field=name, allowed=allowed)
    return x


def _whole(value: str, name: str, limit: int) -> int:
    """A whole number from 0 to limit given on the command line, else InputError naming it."""
    try:
        x = int(str(value).strip())
    except ValueError:
        raise InputError(f"expected a whole number, got {str(value)[:40]!r}", field=name,
                         allowed=f"0 … {limit}") from None
    if not 0 <= x <= limit:
        raise InputError(f"must be from 0 to {limit}, got {x}", field=name, allowed=f"0 … {limit}")
    return x


def _signed(text: str, name: str, limit: float) -> float:
    """A finite number with |x| ≤ limit given on the command line, else InputError naming it."""
    try:
        x = float(str(text).strip())
    except ValueError:
        raise InputError(f"expected a number, got {str(text)[:40]!r}", field=name,
                         allowed=f"|{name}| ≤ {limit:g}") from None
    if not math.isfinite(x) or abs(x) > limit:
        raise InputError(f"got {str(text)[:40]!r}", field=name, allowed=f"a finite number, |x| ≤ {limit:g}")
    return x


def _refuse_input_overwrite(out, result_dir, option: str = "-o", export_file: bool = True) -> None:
    """InputError naming the option unless `out` is a file this command may write: never one
    of the RESULT_DIR's own files (the command's inputs), nor a file of a result directory that
    an earlier export did not write (see gaitopt.export.formats.check_export_target)."""
    from .export.formats import check_export_target
    check_export_target(out, result_dir, option, export_file)


def _load(result_dir):
    """The saved result, with reload warnings (e.g. no knots.npz) as one stderr line each."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = load_result(result_dir)
    for w in caught:
        _PENDING_WARNINGS.append(_one_line(f"gaitopt: warning: {w.message}"))
    return result


def _check_output_dir(path) -> None:
    """InputError unless `path` is a directory that can be written, or can be created (the
    directory itself is made only when the results are saved)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InputError("cannot write: exists and is not a directory", file=str(p))
    existing = p
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"cannot write: {existing} is not a writable directory", file=str(p))


@contextmanager
def _writing():
    """An unwritable output path is bad input (exit 2, one line), not a traceback."""
    try:
        yield
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", file=err.filename) from None


def _finish(result, result_dir) -> int:
    """Exit 1 (after writing) when the saved result is a failed solve: its gait is not optimal."""
    if not result.success:
        print(f"gaitopt: {result_dir} holds a failed solve ({result.status}: {result.message}); "
              "files written from its best iterate", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK
