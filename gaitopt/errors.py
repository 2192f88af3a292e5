"""Errors raised on bad input. A failed *solve* is never an exception: it is a result status."""
from __future__ import annotations

import reprlib

# the whole message is one line of at most MAX_MESSAGE characters (without the CLI's prefix)
MAX_MESSAGE = 380
_PART = {"file": 100, "field": 80, "message": 180}
_MIN_ALLOWED = 100

_repr = reprlib.Repr()
_repr.maxstring = 60
_repr.maxother = 60
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = _repr.maxfrozenset = 6
_repr.maxlevel = 3


def _clip(text: str, limit: int, *, keep_end: bool = False) -> str:
    """One line of at most `limit` characters ("…" where it was cut)."""
    text = " ".join(str(text).split()) if ("\n" in text or "\r" in text or "\t" in text) else text
    if len(text) <= limit:
        return text
    return "…" + text[-(limit - 1):] if keep_end else text[:limit - 1] + "…"


def short(value: object, limit: int = 80) -> str:
    """A bounded repr of a value read from a file, for messages: never builds the repr of a
    huge (e.g. YAML alias-expanded) object; at most `limit` characters."""
    try:
        text = _repr.repr(value)
    except Exception:  # noqa: BLE001 — a message must never fail
        text = f"<{type(value).__name__}>"
    return _clip(text, limit)


class InputError(ValueError):
    """Bad input in a robot or problem file, or a bad argument.

    The message is one line naming the file, the key path and what is allowed, so that the
    command line can print it as is (exit code 2). Every part is shortened so that the line
    holds at most MAX_MESSAGE characters.
    """

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None,
                 allowed: object | None = None):
        self.message = message
        self.file = file
        self.field = field
        self.allowed = allowed
        parts = []
        if file:
            parts.append(_clip(str(file), _PART["file"], keep_end=True))
        if field:
            parts.append(_clip(str(field), _PART["field"]))
        where = ": ".join(parts)
        message = _clip(str(message), _PART["message"])
        text = f"{where}: {message}" if where else message
        if allowed is not None:
            if isinstance(allowed, (list, tuple, set, frozenset)):
                items = sorted(allowed, key=str)
                allowed = ", ".join(str(a) for a in items[:40])
            room = max(_MIN_ALLOWED, MAX_MESSAGE - len(text) - len(" (allowed: )"))
            text += f" (allowed: {_clip(str(allowed), room)})"
        super().__init__(_clip(text, MAX_MESSAGE))


class InputWarning(UserWarning):
    """Input that is legal but looks like a mistake (a unit typed for another): warned once
    where the file is read, not again when a saved result's problem record is read back."""
