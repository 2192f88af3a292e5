"""Errors raised on bad input. A failed *solve* is never an exception: it is a result status."""
from __future__ import annotations


class InputError(ValueError):
    """Bad input in a robot or problem file, or a bad argument.

    The message is one line naming the file, the key path and what is allowed, so that the
    command line can print it as is (exit code 2).
    """

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None,
                 allowed: object | None = None):
        self.message = message
        self.file = file
        self.field = field
        self.allowed = allowed
        parts = []
        if file:
            parts.append(str(file))
        if field:
            parts.append(field)
        where = ": ".join(parts)
        text = f"{where}: {message}" if where else message
        if allowed is not None:
            if isinstance(allowed, (list, tuple, set, frozenset)):
                allowed = ", ".join(str(a) for a in sorted(allowed, key=str))
            text += f" (allowed: {allowed})"
        super().__init__(text)
