"""What a value holds, as a canonical text two processes can compare (stdlib only, loaded beside the replay
driver as ``callreplay.py`` loads its other siblings).

``state_of`` reads builtin data only: a module's tables, a receiver's plain attributes. ``whole_state`` reads
all of a result no text rebuilds: its class, every attribute (private ones too), an exception's arguments, and
the objects it holds, down to builtin data; two results whose whole states agree hold the same, where two that
agree only in their public attributes or text may not.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: How many values one state may hold before it is too large to compare (as the driver's own bound).
_BUDGET = 500 * 20


class _Opaque(Exception):
    """A value whose state cannot be written down canonically (an object, a function)."""


def _builtin(value: Any, canonical: Any) -> Any:
    """The canonical form of builtin data (``None`` where ``value`` is not such data)."""
    kind = type(value)
    if value is None or kind in (bool, int, float, str, bytes):
        return [kind.__name__, repr(value)]
    if kind in (list, tuple):
        return [kind.__name__, [canonical(item) for item in value]]
    if kind in (set, frozenset):
        return [kind.__name__, sorted((canonical(item) for item in value), key=json.dumps)]
    if kind is dict:
        return ["dict", [[canonical(key), canonical(item)] for key, item in value.items()]]
    if isinstance(value, re.Pattern):
        return ["re", canonical(value.pattern), value.flags]
    return None


def _spent(budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise _Opaque


def state_of(values: Any) -> str | None:
    """A canonical text of ``values`` (builtin data, compiled patterns), equal in two processes exactly when
    they hold equal data whatever their hash seeds; None when some of it is not such data."""
    budget = [_BUDGET]

    def canonical(value: Any) -> Any:
        _spent(budget)
        found = _builtin(value, canonical)
        if found is None and value is not None:
            raise _Opaque
        return found

    try:
        return json.dumps(canonical(values))
    except (_Opaque, RecursionError, ValueError):
        return None


def whole_state(value: Any, written: Any = None) -> str | None:
    """A canonical text of all ``value`` holds: builtin data as ``state_of`` reads it; an instance of a class
    defined in Python (no slots, no builtin base but an exception's) as its class's name, every attribute it
    holds and an exception's arguments; a function or class by where it is defined; a value of another type by
    ``written`` (``literal_repr``: dates, decimals). None where some of it is held where none of these reads
    (slots, a builtin base's own fields, a lambda, a cycle)."""
    budget = [_BUDGET]
    path: set[int] = set()

    def canonical(item: Any) -> Any:
        _spent(budget)
        found = _builtin(item, canonical)
        if found is not None or item is None:
            return found
        if id(item) in path:
            raise _Opaque
        path.add(id(item))
        try:
            return _held(item, canonical, written)
        finally:
            path.discard(id(item))

    try:
        return json.dumps(canonical(value))
    except (_Opaque, RecursionError, ValueError):
        return None


def _held(item: Any, canonical: Any, written: Any) -> Any:
    bound = getattr(item, "__self__", None)
    if bound is not None and callable(item) and hasattr(item, "__func__"):  # (a method bound to what it holds)
        return ["method", canonical(bound), getattr(item, "__name__", "")]
    if isinstance(item, type) or callable(item) and hasattr(item, "__code__"):
        name = getattr(item, "__qualname__", "")
        if "<" in name or not getattr(item, "__module__", None):  # (a lambda, a function of a function)
            raise _Opaque
        return ["defined", item.__module__, name]
    kind = type(item)
    attributes = getattr(item, "__dict__", None)
    if isinstance(attributes, dict) and _plain_class(kind):
        held = [kind.__module__, kind.__qualname__, [[name, canonical(attributes[name])] for name in attributes]]
        if isinstance(item, BaseException):
            held.append(canonical(item.args))
        return ["object", *held]
    text = written(item) if written is not None else None
    if text is None:
        raise _Opaque
    return ["written", text]


def _plain_class(kind: type) -> bool:
    """Whether an instance of ``kind`` holds all it has in its ``__dict__`` (an exception's arguments aside)."""
    for base in kind.__mro__:
        if base is object or base.__module__ == "builtins" and issubclass(base, BaseException):
            continue
        if base.__module__ == "builtins" or "__slots__" in vars(base):
            return False
    return True
