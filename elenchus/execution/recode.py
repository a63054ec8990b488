"""Put a mutant into an interpreter that already imported the original module.

A collected session (``warm.Collected``) imported the project and collected its tests once;
each run forks it and must then behave exactly as if the mutated file had been imported. That
holds when the mutant changes only what runs inside function bodies: the module's own code and
every class body are the same bytecode, so importing either file builds the same objects, and
the only difference is the code the functions run. ``plan`` checks that by compiling both
files and comparing them; ``apply`` gives every live function of the original code the
mutant's code (``function.__code__``), which reaches every reference to it: an import by
name, a method, a decorator's wrapped function.

Anything else (a changed default, decorator, class attribute or module constant; a function
the import left no object of; different closure variables) is declined with the reason, and
that run imports the mutant itself in a fresh copy instead.

Loaded by file under a private name (like the plugin): standard library only.
"""

from __future__ import annotations

import functools
import gc
import os
import sys
import types
from typing import Any

#: Function code (CO_OPTIMIZED | CO_NEWLOCALS); a class or module body has neither.
_FUNCTION_FLAGS = 0x1 | 0x2


class Declined(Exception):
    """This mutant cannot be put into the collected session; the message says why."""


def _codes(code: types.CodeType) -> list[types.CodeType]:
    return [const for const in code.co_consts if isinstance(const, types.CodeType)]


def _without_lines(code: types.CodeType) -> types.CodeType:
    """``code`` with its line table and first line blanked, so shifted lines compare equal."""
    return code.replace(co_firstlineno=1, co_linetable=b"")


def _shape(code: types.CodeType) -> types.CodeType:
    """``code`` without lines and with its nested code objects blanked: what its body does itself."""
    return _without_lines(code).replace(
        co_consts=tuple(None if isinstance(c, types.CodeType) else c for c in code.co_consts))


def _same_apart_from_lines(a: types.CodeType, b: types.CodeType) -> bool:
    if _without_lines(a).replace(co_consts=()) != _without_lines(b).replace(co_consts=()):
        return False
    ca, cb = a.co_consts, b.co_consts
    if len(ca) != len(cb):
        return False
    for x, y in zip(ca, cb):
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType):
            if not _same_apart_from_lines(x, y):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def _pairs(a: types.CodeType, b: types.CodeType, where: str) -> list[tuple[types.CodeType, types.CodeType]]:
    """The (original, mutant) codes of the functions the import defines that differ, below ``a``, a
    body that runs at import (the module's, or a class's)."""
    if _shape(a) != _shape(b):
        raise Declined(f"the mutant changes code that runs at import ({where})")
    inner_a, inner_b = _codes(a), _codes(b)
    if [c.co_name for c in inner_a] != [c.co_name for c in inner_b]:
        raise Declined(f"the mutant changes which functions or classes {where} defines")
    found: list[tuple[types.CodeType, types.CodeType]] = []
    for x, y in zip(inner_a, inner_b):
        if _same_apart_from_lines(x, y):
            continue
        if not x.co_flags & _FUNCTION_FLAGS:  # a class body: it ran at import, look inside it
            found += _pairs(x, y, f"class {x.co_qualname}")
            continue
        if x.co_name.startswith("<"):  # a lambda or comprehension made (or run) at import
            raise Declined(f"the mutant changes a {x.co_name.strip('<>')} evaluated at import ({where})")
        found.append((x, y))
    return found


def _nested(x: types.CodeType, y: types.CodeType) -> tuple[list[tuple[types.CodeType, types.CodeType]],
                                                            list[types.CodeType]]:
    """Pairs of the functions defined inside ``x`` that differ, and those of ``x`` without a counterpart.

    A function object made by an earlier call (a closure a factory returned at import) keeps
    its code when the outer function gets new code, so it needs a pair of its own.
    """
    inner_x, inner_y = _codes(x), _codes(y)
    if [c.co_name for c in inner_x] != [c.co_name for c in inner_y]:
        return [], inner_x
    pairs: list[tuple[types.CodeType, types.CodeType]] = []
    unmatched: list[types.CodeType] = []
    for p, q in zip(inner_x, inner_y):
        if _same_apart_from_lines(p, q):
            continue
        pairs.append((p, q))
        more, lost = _nested(p, q)
        pairs += more
        unmatched += lost
    return pairs, unmatched


def plan(path: str, original: str, mutant: str) -> list[tuple[types.FunctionType, types.CodeType]]:
    """The live functions to give new code for the mutant of the file ``path``, with that code;
    empty when the file was never imported (a run that imports it reads the mutant from the file).

    ``original`` and ``mutant`` are the file's two texts. Raises ``Declined`` when the mutant
    cannot be put into an interpreter that imported ``original``. Called in the collected
    session, whose objects every forked run shares: ``apply`` there needs no search.
    """
    real = _real(path)
    imported = [module for module in list(sys.modules.values())
                if isinstance(getattr(module, "__file__", None), str) and _real(module.__file__) == real]
    if not imported:
        return []
    filename = imported[0].__file__
    try:
        a = compile(original, filename, "exec", dont_inherit=True)
        b = compile(mutant, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        raise Declined(f"the mutant does not compile here: {error}") from None
    top = _pairs(a, b, "the module")
    if not top:
        raise Declined("the mutant compiles to the same code as the original")
    live: dict[types.CodeType, list[types.FunctionType]] = {}
    for function in _live_functions(real):
        live.setdefault(function.__code__, []).append(function)
    pairs = list(top)
    for old, new in top:
        if old not in live:
            raise Declined(f"no live function runs {old.co_qualname} (the import did not keep one, or a "
                           "decorator or import hook replaced its code)")
        nested, unmatched = _nested(old, new)
        stale = [code.co_qualname for code in unmatched if code in live]
        if stale:
            raise Declined(f"a function made by an earlier call of {old.co_qualname} ({stale[0]}) would keep "
                           "the original code")
        pairs += nested
    swaps: list[tuple[types.FunctionType, types.CodeType]] = []
    for old, new in pairs:
        for function in live.get(old, ()):
            if old.co_freevars != new.co_freevars:
                raise Declined(f"the mutant changes the variables {old.co_qualname} closes over")
            swaps.append((function, new))
    return swaps


@functools.lru_cache(maxsize=4096)
def _real(filename: str) -> str:
    return os.path.realpath(filename)


_LIVE: dict[str, list[types.FunctionType]] = {}


def _live_functions(real: str) -> list[types.FunctionType]:
    """Every function object whose code comes from the file ``real``. Nothing runs in the collected
    session between its runs, so the answer is kept."""
    found = _LIVE.get(real)
    if found is None:
        found = _LIVE[real] = [thing for thing in gc.get_objects()
                               if type(thing) is types.FunctionType and _real(thing.__code__.co_filename) == real]
    return found


def apply(swaps: list[tuple[Any, Any]]) -> None:
    """Give each function its mutant code (in the forked run)."""
    for function, code in swaps:
        function.__code__ = code
