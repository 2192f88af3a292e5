"""Safe YAML reading and strict schema checks shared by robot and problem files."""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Iterable

import yaml

from .errors import InputError, short

# what an input file may be: its size, and the size and depth of what it holds once YAML
# aliases are expanded (a few hundred bytes of nested aliases can stand for billions of items)
MAX_FILE_BYTES = 256 * 1024       # the shipped files are a few kB; PyYAML reads ~50 kB/s
MAX_TEXT = 10_000                 # characters of a YAML text given on the command line
MAX_ELEMENTS = 200_000
MAX_DEPTH = 64
# every number read from a file is finite and at most this large in magnitude
MAX_MAGNITUDE = 1e9

_NUMBER_LIKE = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")
# YAML 1.1 (PyYAML) reads 1e-3 (an exponent without a dot) as a string: numbers take it as meant
EXPONENT_ONLY = re.compile(r"^[-+]?\d+[eE][-+]?\d+$")
_YAML11_BOOLS = "YAML reads yes/no/on/off/true/false as booleans"
# libyaml's safe loader when PyYAML was built with it: the same YAML 1.1 rules and types as
# yaml.SafeLoader, about ten times faster (a solo12 solve read its two files in 28 ms)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(SAFE_LOADER):
    """The safe loader, reading a plain (unquoted) 1e9, -2E-3 or 1.0e3 as a float as YAML 1.2
    does: PyYAML's YAML 1.1 wants a dot and a signed exponent (1.0e+9) and left the others
    strings, which lists (ratio_bounds: [0.5, 1e9]) and robot.yaml then refused. A key given
    twice in one mapping is an error (YAML 1.2 forbids it; PyYAML kept the last silently, so a
    study's second `speed:` list replaced the first)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in getattr(node, "value", ()):
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise yaml.constructor.ConstructorError(None, None, f"the key {key_node.value!r} is given twice",
                                                            key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


_Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)[eE][-+]?[0-9]+$"),
                              list("-+.0123456789"))


def _safe_load(text: str) -> Any:
    """yaml.load with the safe loader; RecursionError for a text nested too deeply, whichever
    way PyYAML reports it (≥ 6.0.4: its own 'exceeded maximum nesting depth'; before: Python's
    stack overflowing)."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as err:
        if "nesting depth" in str(getattr(err, "problem", None) or err):
            raise RecursionError(str(err)) from None
        raise


def check_size(data: Any, file: str, field: str | None = None) -> None:
    """InputError when `data` (as loaded, aliases shared) expands to more than MAX_ELEMENTS
    items or nests deeper than MAX_DEPTH; walks at most MAX_ELEMENTS items."""
    count = 0
    stack = [(data, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_ELEMENTS:
            raise InputError(f"too large: more than {MAX_ELEMENTS} values once YAML aliases are expanded",
                             file=file, field=field, allowed=f"at most {MAX_ELEMENTS} values")
        if depth > MAX_DEPTH:
            raise InputError(f"nested too deeply (more than {MAX_DEPTH} levels)", file=file, field=field,
                             allowed=f"at most {MAX_DEPTH} levels")
        if isinstance(node, dict):
            for k, v in node.items():
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(node, (list, tuple, set)):
            stack.extend((v, depth + 1) for v in node)


def parse_yaml_text(text: str, file: str, field: str | None = None) -> Any:
    """yaml.safe_load of a short text (a --set value), as InputError when it is not valid."""
    if len(text) > MAX_TEXT:
        raise InputError(f"too long: {len(text)} characters", file=file, field=field,
                         allowed=f"at most {MAX_TEXT} characters")
    try:
        value = _safe_load(text)
    except yaml.YAMLError as err:
        what = getattr(err, "problem", None) or str(err).split("\n")[0]
        raise InputError(f"not valid YAML ({what}): {short(text)}", file=file, field=field,
                         allowed="a YAML value, e.g. 0.3, true, [1, 2], {min: 0.2, max: 0.4}") from None
    except RecursionError:
        raise InputError("not valid YAML: nested too deeply", file=file, field=field) from None
    check_size(value, file, field)
    return value


def load_yaml(path: str | Path) -> dict:
    """Read a YAML mapping with the safe loader (nothing in the file is executed)."""
    path = Path(path)
    file = str(path)
    if path.exists() and not path.is_dir() and not path.is_file():
        # a FIFO, socket or device: opening or reading it may block forever
        raise InputError("not a regular file", file=file, allowed="a YAML file")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise InputError("file not found", file=file) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", file=file, allowed="a YAML file") from None
    except PermissionError:
        raise InputError("cannot read: permission denied", file=file) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or type(err).__name__}", file=file) from None
    if len(raw) > MAX_FILE_BYTES:
        raise InputError(f"file too large (more than {MAX_FILE_BYTES} bytes)", file=file,
                         allowed=f"at most {MAX_FILE_BYTES} bytes")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in raw[:4096]:
        raise InputError("not UTF-8 text (looks like UTF-16)", file=file, allowed="UTF-8 text")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte 0x{raw[err.start]:02x} at offset {err.start})", file=file,
                         allowed="UTF-8 text") from None
    try:
        data = _safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        what = getattr(err, "problem", None) or str(err).split("\n")[0]
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise InputError(f"not valid YAML: {what}{at}", file=file) from None
    except RecursionError:
        raise InputError("not valid YAML: nested too deeply", file=file,
                         allowed=f"at most {MAX_DEPTH} levels") from None
    if data is None:
        raise InputError("the file is empty", file=file, allowed="a mapping (key: value) at the top level")
    if not isinstance(data, dict):
        raise InputError("the file must hold a mapping (key: value) at the top level", file=file)
    check_size(data, file)
    return data


def closest_first(typed, names, n: int = 3, cutoff: float = 0.6) -> list:
    """`names` (as str, in their order) with the (at most n) closest to what was typed first: a
    long list of allowed names is cut to one line, and the name meant must not be among those cut."""
    import difflib

    names = [str(x) for x in names]
    close = difflib.get_close_matches(str(typed), names, n=n, cutoff=cutoff)
    return close + [x for x in names if x not in close]


def _range_text(low, high, positive: bool, low_open: bool = False) -> str:
    lo = "0" if positive and (low is None or low <= 0) else (f"{low:g}" if low is not None else f"-{MAX_MAGNITUDE:g}")
    lo_open = positive and (low is None or low <= 0) or low_open
    hi = f"{high:g}" if high is not None else f"{MAX_MAGNITUDE:g}"
    return f"a number in {'(' if lo_open else '['}{lo}, {hi}]"


def number_error_text(value: Any) -> str:
    """What is wrong with a value that is not a number (YAML 1.1's pitfalls named)."""
    if isinstance(value, bool):
        return f"expected a number, got {str(value).lower()} ({_YAML11_BOOLS})"
    if isinstance(value, str) and _NUMBER_LIKE.match(value):
        return f"expected a number, got the string {short(value)} (write it without quotes)"
    return f"expected a number, got {short(value)}"


def finite_number(value: Any) -> float | None:
    """float(value) when value is a finite number of at most MAX_MAGNITUDE (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        x = float(value)
    except OverflowError:
        return None
    if not math.isfinite(x) or abs(x) > MAX_MAGNITUDE:
        return None
    return x


class Fields:
    """Typed, strict access to one mapping of a YAML file.

    Every read names its key path in errors, and `done()` rejects keys that were never read.
    """

    def __init__(self, data: Any, file: str | Path, path: str = "", allowed: Iterable[str] | None = None):
        self.file = str(file)
        self.path = path
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise InputError(f"expected a mapping, got {type(data).__name__} {short(data)}", file=self.file,
                             field=path or "<top>", allowed=list(allowed) if allowed is not None else None)
        self.data = data
        self._seen: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else str(name)

    def has(self, name: str) -> bool:
        return name in self.data

    def raw(self, name: str, default: Any = ...) -> Any:
        self._seen.add(name)
        if name not in self.data:
            if default is ...:
                raise InputError("missing required key", file=self.file, field=self.key(name))
            return default
        return self.data[name]

    def error(self, name: str, message: str, allowed: object | None = None) -> InputError:
        return InputError(message, file=self.file, field=self.key(name), allowed=allowed)

    def number(self, name: str, default: Any = ..., *, low: float | None = None,
               high: float | None = None, positive: bool = False) -> float:
        """A finite number (never NaN or ±inf, at most MAX_MAGNITUDE), within [low, high]
        (> 0 when positive); the range is named in the message. 1e-3 (which YAML 1.1 reads
        as a string) is taken as the number; yes/no/on/off (booleans) are refused."""
        present = name in self.data
        value = self.raw(name, default)
        if value is None and default is None:
            return None
        allowed = _range_text(low, high, positive)
        if not present:  # the caller's default
            return float(value)
        if isinstance(value, str) and EXPONENT_ONLY.match(value):
            value = float(value)  # 1e-3: a number YAML 1.1 left as a string
        x = finite_number(value)
        if x is None:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                raise self.error(name, f"must be a finite number, got {short(value)}", allowed)
            raise self.error(name, number_error_text(value), allowed)
        if positive and not x > 0:
            raise self.error(name, f"must be > 0, got {x:g}", allowed)
        if low is not None and x < low:
            raise self.error(name, f"must be >= {low:g}, got {x:g}", allowed)
        if high is not None and x > high:
            raise self.error(name, f"must be <= {high:g}, got {x:g}", allowed)
        return x

    def integer(self, name: str, default: Any = ..., *, low: int | None = None, high: int | None = None) -> int:
        """An integer within [low, high] (high at most MAX_MAGNITUDE); the range is named."""
        present = name in self.data
        value = self.raw(name, default)
        if not present and default is None:
            return None
        hi = high if high is not None else int(MAX_MAGNITUDE)
        allowed = f"an integer in [{low if low is not None else -int(MAX_MAGNITUDE)}, {hi}]"
        if present and isinstance(value, str) and EXPONENT_ONLY.match(value):
            value = float(value)  # 1e4 given as --set text
        if present and isinstance(value, float) and math.isfinite(value) and value.is_integer() \
                and abs(value) <= MAX_MAGNITUDE:
            value = int(value)  # 1e4 (read as a float) or 100.0: the whole number meant
        if isinstance(value, bool):
            raise self.error(name, f"expected an integer, got {str(value).lower()} ({_YAML11_BOOLS})", allowed)
        if not isinstance(value, int):
            raise self.error(name, f"expected an integer, got {short(value)}", allowed)
        if low is not None and value < low:
            raise self.error(name, f"must be >= {low}, got {short(value)}", allowed)
        if value > hi or value < -int(MAX_MAGNITUDE):
            raise self.error(name, f"must be <= {hi}, got {short(value, 30)}", allowed)
        return value

    def boolean(self, name: str, default: Any = ...) -> bool:
        value = self.raw(name, default)
        if not isinstance(value, bool):
            raise self.error(name, f"expected true or false, got {short(value)}", "true, false")
        return value

    def string(self, name: str, default: Any = ..., *, allowed: Iterable[str] | None = None) -> str:
        value = self.raw(name, default)
        if value is None and default is None:
            return None
        if not isinstance(value, str):
            raise self.error(name, f"expected a string, got {short(value)}", allowed)
        if allowed is not None and value not in allowed:
            raise self.error(name, f"unknown value {short(value)}", allowed)
        return value

    def vector(self, name: str, size: int, default: Any = ...) -> list[float]:
        value = self.raw(name, default)
        if (not isinstance(value, (list, tuple)) or len(value) != size
                or any(finite_number(x) is None for x in value)):
            raise self.error(name, f"expected a list of {size} finite numbers, got {short(value)}",
                             f"[{', '.join(['x'] * size)}], each finite, |x| <= {MAX_MAGNITUDE:g}")
        return [float(x) for x in value]

    def mapping(self, name: str, default: Any = ..., allowed: Iterable[str] | None = None) -> "Fields":
        """The sub-mapping `name`; `allowed` (its keys) goes into the error when it is missing
        or not a mapping."""
        if name not in self.data and default is ... and allowed is not None:
            self._seen.add(name)
            raise InputError("missing required key: a mapping", file=self.file, field=self.key(name),
                             allowed=", ".join(map(str, allowed)))
        value = self.raw(name, default)
        return Fields(value, self.file, self.key(name), allowed)

    def sequence(self, name: str, default: Any = ..., *, max_len: int | None = None) -> list:
        value = self.raw(name, default)
        if not isinstance(value, list):
            raise self.error(name, f"expected a list, got {short(value)}")
        if max_len is not None and len(value) > max_len:
            raise self.error(name, f"too many items: {len(value)}", f"at most {max_len}")
        return value

    def done(self, allowed: Iterable[str] | None = None) -> None:
        """Reject keys that were not read (misspelt or unknown)."""
        allowed = set(allowed) if allowed is not None else self._seen
        for k in self.data:
            if k not in allowed:
                raise InputError("unknown key", file=self.file, field=self.key(str(k)),
                                 allowed=", ".join(closest_first(k, sorted(allowed, key=str))))
