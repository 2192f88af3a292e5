"""Safe YAML reading and strict schema checks shared by robot and problem files."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import yaml

from .errors import InputError


def load_yaml(path: str | Path) -> dict:
    """Read a YAML mapping with the safe loader (nothing in the file is executed)."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except FileNotFoundError:
        raise InputError("file not found", file=str(path)) from None
    except yaml.YAMLError as err:
        raise InputError(f"not valid YAML: {err}".replace("\n", " "), file=str(path)) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError("the file must hold a mapping (key: value) at the top level", file=str(path))
    return data


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
            raise InputError(f"expected a mapping, got {type(data).__name__} {data!r}", file=self.file,
                             field=path or "<top>", allowed=list(allowed) if allowed is not None else None)
        self.data = data
        self._seen: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

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
        value = self.raw(name, default)
        if value is None and default is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(name, f"expected a number, got {value!r}")
        value = float(value)
        if positive and not value > 0:
            raise self.error(name, f"must be > 0, got {value}")
        if low is not None and value < low:
            raise self.error(name, f"must be >= {low}, got {value}")
        if high is not None and value > high:
            raise self.error(name, f"must be <= {high}, got {value}")
        return value

    def integer(self, name: str, default: Any = ..., *, low: int | None = None, high: int | None = None) -> int:
        value = self.raw(name, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(name, f"expected an integer, got {value!r}")
        if low is not None and value < low:
            raise self.error(name, f"must be >= {low}, got {value}")
        if high is not None and value > high:
            raise self.error(name, f"must be <= {high}, got {value}")
        return value

    def boolean(self, name: str, default: Any = ...) -> bool:
        value = self.raw(name, default)
        if not isinstance(value, bool):
            raise self.error(name, f"expected true or false, got {value!r}")
        return value

    def string(self, name: str, default: Any = ..., *, allowed: Iterable[str] | None = None) -> str:
        value = self.raw(name, default)
        if value is None and default is None:
            return None
        if not isinstance(value, str):
            raise self.error(name, f"expected a string, got {value!r}", allowed)
        if allowed is not None and value not in allowed:
            raise self.error(name, f"unknown value {value!r}", allowed)
        return value

    def vector(self, name: str, size: int, default: Any = ...) -> list[float]:
        value = self.raw(name, default)
        if (not isinstance(value, (list, tuple)) or len(value) != size
                or any(isinstance(x, bool) or not isinstance(x, (int, float)) for x in value)):
            raise self.error(name, f"expected a list of {size} numbers, got {value!r}")
        return [float(x) for x in value]

    def mapping(self, name: str, default: Any = ..., allowed: Iterable[str] | None = None) -> "Fields":
        """The sub-mapping `name`; `allowed` (its keys) goes into the error when it is not one."""
        value = self.raw(name, default)
        return Fields(value, self.file, self.key(name), allowed)

    def sequence(self, name: str, default: Any = ...) -> list:
        value = self.raw(name, default)
        if not isinstance(value, list):
            raise self.error(name, f"expected a list, got {value!r}")
        return value

    def done(self, allowed: Iterable[str] | None = None) -> None:
        """Reject keys that were not read (misspelt or unknown)."""
        allowed = set(allowed) if allowed is not None else self._seen
        for k in self.data:
            if k not in allowed:
                raise InputError("unknown key", file=self.file, field=self.key(str(k)),
                                 allowed=sorted(allowed))
