"""`--set KEY.PATH=VALUE` overrides of a problem file's plain data (before it is decoded)."""
from __future__ import annotations

from typing import Any

from .errors import InputError, short


def _list_index(node: list, k: str, source: str, dotted: str) -> int:
    """The index `k` of a list element that exists (0 … len-1), else InputError."""
    allowed = f"an index 0…{len(node) - 1}" if node else "none (the list is empty)"
    try:
        i = int(k)
    except ValueError:
        raise InputError(f"{short(k, 40)} is not a list index", file=source, field=f"--set {dotted}",
                         allowed=allowed) from None
    if not 0 <= i < len(node):
        raise InputError(f"no list element {short(k, 40)}: the list has {len(node)}", file=source,
                         field=f"--set {dotted}", allowed=allowed)
    return i


def _set_path(data: dict, dotted: str, value: Any, source: str) -> None:
    """data[key][key]… = value along the dotted key path (list elements by index); InputError
    (field "--set KEY") when the path does not exist or goes below a value."""
    if not isinstance(dotted, str) or not dotted or len(dotted) > 200:
        raise InputError(f"expected a key path, got {short(dotted)}", file=source, field="--set",
                         allowed="KEY.PATH=VALUE, e.g. speed=0.3, gait.phases.0.knots=8")
    keys = dotted.split(".")
    if any(not k for k in keys):
        raise InputError("empty key in the key path", file=source, field=f"--set {dotted}",
                         allowed="KEY.PATH=VALUE, e.g. speed=0.3, gait.phases.0.knots=8")
    node = data
    for i, k in enumerate(keys[:-1]):
        if isinstance(node, list):
            node = node[_list_index(node, k, source, dotted)]
        elif isinstance(node, dict):
            if node.get(k) is None:  # absent, or an empty mapping written `key:`
                if keys[i + 1].isdigit():  # an element of a list the file does not have
                    where = ".".join(keys[:i + 1])
                    raise InputError(f"the file has no list {where} to take element {keys[i + 1]} of", file=source,
                                     field=f"--set {dotted}",
                                     allowed=f"keys of {'.'.join(keys[:i]) or 'the file'}: "
                                             + (", ".join(map(str, node)) or "none"))
                node[k] = {}
            node = node[k]
        if not isinstance(node, (dict, list)):
            raise InputError(f"cannot set a key below a value ({short(node, 40)})", file=source,
                             field=f"--set {dotted}")
    last = keys[-1]
    if isinstance(node, list):
        node[_list_index(node, last, source, dotted)] = value
    else:
        node[last] = value
