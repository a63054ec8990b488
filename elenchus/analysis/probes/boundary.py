"""Boundary candidates: the calls tried before any search, one argument replaced at a time.

The constants of the mutated lines and their neighbours, the same numbers inside what the
tests passed, the literals the related tests write (``literals_in``) and the empty, zero,
negative, huge and None values of each argument's type, each put into a recorded call (or a
default call) where it fits the types seen for that argument (``_boundary_calls``); and
``_smaller``, which writes a huge integer that told the two apart as a small one.
"""

from __future__ import annotations

import ast
import datetime
import decimal
import fractions
import functools
import itertools
import json
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from elenchus.execution import callrecord
from elenchus.mutation.mutate import Mutant
from elenchus.analysis.probes.common import CallSample, Distinction, _module_tree
from elenchus.analysis.probes.compare import _Comparer
from elenchus.analysis.probes.shapes import _BUILT_KINDS, _Signature, _resolve


TEST_LITERALS = 50  # distinct literals taken from the related test files
TEST_OPTIONS = 12  # sets of keyword arguments taken per called name (``keywords_in``)

_NONE = type(None)
#: An integer no float can hold: ``float()`` of it raises OverflowError. Tried last for an int argument.
_HUGE_INT = 10**400
#: Stand-ins tried for an integer argument longer than ``_LONG_DIGITS`` digits once it told the two apart.
_SMALL_INTS = (1, 2, 10, 100, 1000)
_LONG_DIGITS = 12
#: Empty, zero, negative and huge values tried for an argument of each type, before None.
_EDGE_VALUES: dict[type, tuple[Any, ...]] = {
    int: (0, -1), float: (0.0, -1.0), str: ("",), bytes: (b"",), list: ([],), dict: ({},), tuple: ((),),
    set: (set(),), datetime.timedelta: (datetime.timedelta(0),), decimal.Decimal: (decimal.Decimal(0),),
    fractions.Fraction: (fractions.Fraction(0),),
}


def _smaller(found: Distinction, comparer: _Comparer) -> Distinction:
    """``found`` with each huge integer argument replaced by the smallest stand-in that still tells the two
    apart (one past another integer of the call, or a small power of ten), so that a witness reads
    ``clamp(15, 11, 10)``, not ``clamp(15, 10**400, 10)``. A huge value no small one can replace stays."""
    args, kwargs = list(found.args_repr), dict(found.kwargs_repr)

    def number(text: str) -> int | None:
        return int(text) if re.fullmatch(r"-?\d+", text) else None

    for slot in [*range(len(args)), *kwargs]:
        text = args[slot] if isinstance(slot, int) else kwargs[slot]
        value = number(text)
        if value is None or len(text.lstrip("-")) <= _LONG_DIGITS:
            continue
        sign = -1 if value < 0 else 1
        others = [n for n in map(number, [*args, *kwargs.values()]) if n is not None and n != value]
        for stand_in in sorted(_unique([*(n + sign for n in others), *(sign * n for n in _SMALL_INTS)]), key=abs):
            trial_args, trial_kwargs = list(args), dict(kwargs)
            if isinstance(slot, int):
                trial_args[slot] = repr(stand_in)
            else:
                trial_kwargs[slot] = repr(stand_in)
            smaller = comparer.check(trial_args, trial_kwargs, found.origin)
            if smaller is not None:
                found, args, kwargs = smaller, trial_args, trial_kwargs
                break
    return found


def _plainer(found: Distinction, comparer: _Comparer) -> Distinction:
    """``found`` without the arguments it does not need: each keyword argument, then each last positional one,
    dropped while the two still differ (``format('are', keyword_case='upper')`` where the call the search built on
    also passed ``None, reindent=True``), and each long text without the runs of words it does not need (halves,
    then quarters, down to single words: a test's SQL statement with a keyword put in). A witness shows what
    tells the two apart, and no more."""
    args, kwargs = list(found.args_repr), dict(found.kwargs_repr)
    for name in list(kwargs):
        trial = {key: text for key, text in kwargs.items() if key != name}
        plainer = comparer.check(args, trial, found.origin)
        if plainer is not None:
            found, kwargs = plainer, trial
    while args:
        plainer = comparer.check(args[:-1], kwargs, found.origin)
        if plainer is None:
            break
        found, args = plainer, args[:-1]
    for slot in [*range(len(args)), *kwargs]:  # a long text: the words it needs (a test's SQL, one keyword in it)
        text = args[slot] if isinstance(slot, int) else kwargs[slot]
        value = callrecord.argument_value(text)
        if isinstance(value, str) and len(re.findall(r"\S+\s*", value)) > _SHORT_TEXT:
            found, args, kwargs = _shortened(found, comparer, args, kwargs, slot, value)
    return shorter_lists(found, comparer)


def shorter_lists(found: Distinction, comparer: _Comparer) -> Distinction:
    """``found`` with each long list argument cut to its first half while the two still differ, down to one item
    (a test's `list(range(100))`, where the first item alone shows the mutant)."""
    for slot in [*range(len(found.args_repr)), *dict(found.kwargs_repr)]:
        args, kwargs = list(found.args_repr), dict(found.kwargs_repr)
        value = callrecord.argument_value(args[slot] if isinstance(slot, int) else kwargs[slot])
        size = len(value) // 2 if isinstance(value, list) and len(value) > _SHORT_LIST else 0
        while size >= 1:
            text = callrecord.argument_repr(value[:size])
            if text is None:
                break
            if isinstance(slot, int):
                args[slot] = text
            else:
                kwargs[slot] = text
            shorter = comparer.check(args, kwargs, found.origin)
            if shorter is None:
                break
            found, size = shorter, size // 2
    return found


def _shortened(found: Distinction, comparer: _Comparer, args: list[str], kwargs: dict[str, str], slot: int | str,
               value: str) -> tuple[Distinction, list[str], dict[str, str]]:
    """``found`` with the text in ``slot`` cut to the runs of words it needs (halves, then quarters, down to single
    words, at most ``_SHORTENING`` calls), then without the space after its last word."""

    def put(text: str) -> tuple[list[str], dict[str, str]]:
        trial_args, trial_kwargs = list(args), dict(kwargs)
        if isinstance(slot, int):
            trial_args[slot] = repr(text)
        else:
            trial_kwargs[slot] = repr(text)
        return trial_args, trial_kwargs

    words = re.findall(r"\S+\s*", value)
    size, checks = len(words) // 2, 0
    while size >= 1 and checks < _SHORTENING:
        start = 0
        while start < len(words) and checks < _SHORTENING:
            kept = words[:start] + words[start + size:]
            checks += 1
            shorter = comparer.check(*put("".join(kept)), found.origin) if kept else None
            if shorter is None:
                start += size
            else:
                found, words = shorter, kept
                args, kwargs = put("".join(kept))
        size //= 2
    stripped = "".join(words).strip()
    shorter = comparer.check(*put(stripped), found.origin) if stripped != "".join(words) else None
    if shorter is not None:
        found, (args, kwargs) = shorter, put(stripped)
    return found, args, kwargs


#: A text of more words than this is shortened by ``_plainer``, in at most ``_SHORTENING`` calls.
_SHORT_TEXT = 3
_SHORTENING = 60
#: Items of a list argument a witness keeps without trying fewer (``shorter_lists``).
_SHORT_LIST = 8


def _literal_nodes(tree: ast.AST) -> list[tuple[ast.expr, Any]]:
    """The scalar literals in ``tree`` with their nodes, in source order: numbers (a
    leading minus included), strings and bytes; not docstrings, booleans or None."""
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    found: list[tuple[ast.expr, Any]] = []
    signed: set[int] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd))
                and isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float)):
            value = node.operand.value
            found.append((node, -value if isinstance(node.op, ast.USub) else value))
            signed.add(id(node.operand))
        elif (isinstance(node, ast.Constant) and type(node.value) in (int, float, str, bytes)
              and id(node) not in docstrings):
            found.append((node, node.value))
    found = [(node, value) for node, value in found if id(node) not in signed]
    return sorted(found, key=lambda pair: (pair[0].lineno, pair[0].col_offset))


def _unique(values: Iterable[Any]) -> list[Any]:
    """``values`` without repeats; ``1``, ``1.0`` and ``True`` are different values here."""
    seen: set[str] = set()
    kept = []
    for value in values:
        key = f"{type(value).__name__}:{value!r}"
        if key not in seen:
            seen.add(key)
            kept.append(value)
    return kept


def _constants_on(source: str, first: int, last: int) -> list[Any]:
    """The scalar literals on lines ``first``..``last`` of ``source`` (the code's, or a mutant's)."""
    return [value for start, end, value in _literal_spans(source) if start <= last and end >= first]


@functools.lru_cache(maxsize=4)
def _literal_spans(source: str) -> tuple[tuple[int, int, Any], ...]:
    """(first line, last line, value) of each scalar literal of ``source`` (``_literal_nodes``), read once per
    source: each function a search goes through asks of the code's and the mutant's several times, and one walk
    of parse's 1,100-line module took 50 ms."""
    try:  # (parsed here, not through `_module_tree`, whose one place keeps the code's tree)
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    return tuple((node.lineno, node.end_lineno or node.lineno, value) for node, value in _literal_nodes(tree))


def mutated_constants(source: str, mutant: Mutant) -> list[Any]:
    """The constants on the mutant's lines: those the mutation changed first, then the
    others of the reference, then the mutant's own."""
    shift = len(mutant.mutated_source.splitlines()) - len(source.splitlines())
    before = _constants_on(source, mutant.line, mutant.end_line)
    after = _constants_on(mutant.mutated_source, mutant.line, mutant.end_line + shift)

    def count(values: list[Any], value: Any) -> int:
        return sum(1 for v in values if type(v) is type(value) and v == value)

    changed = [v for v in (*before, *after) if count(before, v) != count(after, v)]
    return _unique([*changed, *before, *after])


def _neighbours(value: Any) -> tuple[Any, ...]:
    """A constant and the values around it a boundary mistake would show on."""
    if type(value) is int:
        # A small integer may be an exponent (``if exponent >= 33``): the magnitude it stands for too.
        powers = (10**value, 10.0**value) if 2 <= value <= 308 else ()
        return value - 1, value, value + 1, *powers
    if type(value) is float:
        return (value, value - 1.0, value + 1.0, math.nextafter(value, -math.inf),
                math.nextafter(value, math.inf))
    if type(value) is str:
        # a word a table holds in capitals is typed in lower case too, and looked up whatever its case
        other = value.lower() if value.isupper() else value.upper() if value.islower() else value
        return (value, other, "") if other != value else (value, "")
    if type(value) is bytes:
        return value, b""
    return (value,)


#: Base calls every constant and designed input is put in before any is put in the others.
_FIRST_BASES = 4
#: Later base calls of a shape of their own (the keyword arguments they pass) that take the constants and
#: designed inputs too: as many as the sets of keyword arguments taken from the tests.
_SHAPED_BASES = TEST_OPTIONS
#: Calls the tests made with a text of theirs in capitals or lower case, at most.
_RECASED = 40
#: Numbers of the mutated lines written into the tests' texts (``'50%'`` -> ``'0.0%'``), at most.
_RENUMBERED = 8
#: Calls with the mutated line's constants inside the tuples and texts the tests passed, at most.
_INSIDE = 40
_NUMBER_TEXT = re.compile(r"\d+(?:\.\d+)?")


def _holding(container: Any, value: Any) -> list[Any]:
    """``container`` (a tuple or list of one kind of scalar, as a test passed it) holding ``value`` in every
    place, then in its first: what reaches a table entry or bound the elements are looked up in."""
    if type(container) not in (tuple, list) or not container or type(value) not in (int, float, str, bytes) \
            or not all(type(item) is type(value) for item in container):
        return []
    return [type(container)([value] * len(container)), type(container)([value, *container[1:]])]


def _renumbered(held: Any, numbers: Sequence[Any]) -> list[Any]:
    """The texts the tests passed (alone, or each element of a tuple or list of them) with their first number
    written as each of ``numbers`` in the same place, an integer also as a float (``'50%'`` -> ``'0%'``,
    ``'0.0%'``): a bound the code compares a parsed number with, reached the way the tests reach it."""
    def written(text: str, form: str) -> str:
        found = _NUMBER_TEXT.search(text)
        return text if found is None else text[:found.start()] + form + text[found.end():]

    texts = [held] if type(held) is str else list(held) if type(held) in (tuple, list) and held and all(
        type(item) is str for item in held) else []
    if not any(_NUMBER_TEXT.search(text) for text in texts):
        return []
    found: list[Any] = []
    for number in numbers:
        for form in [str(number)] + ([f"{float(number)}"] if type(number) is int else []):
            if type(held) is str:
                found.append(written(held, form))
            else:  # in every element, then in the first
                found += [type(held)(written(text, form) for text in held),
                          type(held)([written(held[0], form), *held[1:]])]
    return _unique(found)


def literals_in(sources: Sequence[str]) -> tuple[Any, ...]:
    """The literal values test ``sources`` write, in order of appearance and without
    repeats: numbers, strings, bytes, and list/tuple/set/dict displays made of literals, and the dates,
    durations and numbers they build from literals (``date(2000, 2, 1)``).
    Docstrings, booleans and None are left out; a source that does not parse adds nothing."""
    found: list[Any] = []
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        displays: list[tuple[ast.expr, Any]] = []
        for node in ast.walk(tree):
            if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
                try:
                    value = ast.literal_eval(node)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    continue
                displays.append((node, value))
        nodes = sorted([*_literal_nodes(tree), *displays, *_built_nodes(tree)],
                       key=lambda pair: (pair[0].lineno, pair[0].col_offset))
        found += [value for _, value in nodes if callrecord.argument_repr(value) is not None]
    return tuple(_unique(found))


def keywords_in(sources: Sequence[str]) -> dict[str, tuple[tuple[tuple[str, str], ...], ...]]:
    """Per called name, the sets of keyword arguments test ``sources`` pass it as literals
    (``sqlparse.format(sql, keyword_case='upper')`` gives ``format``: ``(('keyword_case', "'upper'"),)``), each
    choice of names first, at most ``TEST_OPTIONS``. The recording runs a few tests per function; an option only
    other tests pass (a mode of output, a flag) is often the only way a change shows. A method of a text
    (``'{a}'.format(a=1)``) is not a call of the project's."""
    found: dict[str, list[tuple[tuple[str, str], ...]]] = {}
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.keywords:
                continue
            if isinstance(node.func, ast.Name):
                name = node.func.id
            elif isinstance(node.func, ast.Attribute) and not isinstance(node.func.value, (ast.Constant,
                                                                                          ast.JoinedStr)):
                name = node.func.attr
            else:
                continue
            if any(keyword.arg is None for keyword in node.keywords):  # (``**options``: not written out)
                continue
            written = []
            for keyword in node.keywords:
                try:
                    text = callrecord.argument_repr(ast.literal_eval(keyword.value))
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    text = None
                if text is None:
                    break
                written.append((str(keyword.arg), text))
            else:
                sets = found.setdefault(name, [])
                if tuple(written) not in sets:
                    sets.append(tuple(written))
    return {name: _each_choice_first(sets) for name, sets in found.items()}


def _each_choice_first(sets: list[tuple[tuple[str, str], ...]]) -> tuple[tuple[tuple[str, str], ...], ...]:
    """The first set of each choice of names (`keyword_case=`, `reindent=`), then the other values given to the
    same names (`keyword_case='lower'` after `'upper'`): at most ``TEST_OPTIONS``."""
    seen: set[frozenset[str]] = set()
    first, later = [], []
    for written in sets:
        names = frozenset(name for name, _ in written)
        (later if names in seen else first).append(written)
        seen.add(names)
    return tuple([*first, *later][:TEST_OPTIONS])


#: How a test names the standard constructors of dates, durations and numbers, as ``argument_value`` reads them.
_CONSTRUCTORS = {"date": "datetime.date", "datetime": "datetime.datetime", "time": "datetime.time",
                 "timedelta": "datetime.timedelta", "Decimal": "Decimal", "Fraction": "Fraction"}


def _built_nodes(tree: ast.AST) -> list[tuple[ast.expr, Any]]:
    """The dates, times, durations, Decimals and Fractions a test builds from literals (``date(2000, 2, 1)``,
    ``datetime.timedelta(days=10)``, ``Decimal('1.5')``), read with ``argument_value`` (nothing is run)."""
    found: list[tuple[ast.expr, Any]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else \
            node.func.attr if isinstance(node.func, ast.Attribute) else None
        if name not in _CONSTRUCTORS:
            continue
        call = ast.Call(ast.parse(_CONSTRUCTORS[name], mode="eval").body, node.args, node.keywords)
        try:
            found.append((node, callrecord.argument_value(ast.unparse(call))))
        except ValueError:
            continue
    return found


def _kinds(annotation: ast.expr | None) -> list[type]:
    """The builtin types an annotation names (``Optional[int]`` -> int, NoneType)."""
    import types
    import typing

    def flatten(resolved: Any) -> list[type]:
        origin = typing.get_origin(resolved)
        if origin is typing.Union or origin is types.UnionType:
            return [kind for member in typing.get_args(resolved) for kind in flatten(member)]
        if origin is not None:
            return [origin] if isinstance(origin, type) else []
        return [resolved] if isinstance(resolved, type) else []

    resolved = _resolve(annotation)
    return [] if resolved is None else flatten(resolved)


def _fits(value: Any, kinds: Sequence[type]) -> bool:
    """May ``value`` stand for an argument seen with ``kinds``? (ints and floats mix;
    any value fits an argument of unknown type, or one seen only as None)"""
    known = {kind for kind in kinds if kind is not _NONE}
    if not known:
        return True
    if type(value) in (int, float):
        return bool(known & {int, float})
    return type(value) in known


#: Annotations that name no kind a value must be of (``other: Any``), or only a protocol of collections
#: (``seq: Iterable[T]``, ``Sequence[T]``, ``AbstractSet[T]``): a value of a kind the tests never passed fits them
#: as well as none, and code that guards reading it (``except TypeError``) expects one.
_LOOSE_NAMES = frozenset({"Any", "object", "Iterable", "Iterator", "Sequence", "Collection", "Container",
                          "Reversible", "AbstractSet", "Set", "MutableSet", "MutableSequence"})


def _untyped(annotation: ast.expr | None) -> bool:
    """No annotation, or one ``_LOOSE_NAMES`` names alone or in a union (``Optional[Iterable[int]]``, ``A | B``,
    a forward reference in quotes)."""
    if annotation is None or isinstance(annotation, ast.Constant) and annotation.value is None:
        return True
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return _untyped(ast.parse(annotation.value, mode="eval").body)
        except (SyntaxError, ValueError, RecursionError):
            return False
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _untyped(annotation.left) and _untyped(annotation.right)
    base = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else None
    if isinstance(annotation, ast.Subscript) and name in ("Union", "Optional"):
        members = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        return all(_untyped(member) for member in members)
    return name in _LOOSE_NAMES


#: Stands for the end of the shorter of two lists taken in turn (``_boundary_calls``).
_NOTHING = object()


def _boundary_calls(signature: _Signature, samples: Sequence[CallSample], constants: Sequence[Any],
                    test_literals: Sequence[Any], budget: int, designed: Sequence[Any] = (),
                    related: Sequence[Sequence[str]] = (), recase: bool = False, foreign: Sequence[Any] = (),
                    variants: Sequence[Any] = (), later: Sequence[Any] = ()
                    ) -> Iterator[tuple[list[str], dict[str, str], str]]:
    """Up to ``budget`` distinct calls, each a base call with one argument replaced.

    The base calls are the recorded ``samples``; with none, one default call: each
    required parameter gets the first edge value of its annotated type (0 when the type
    is unknown), and positional parameters with a literal default are passed it. In
    order: the ``constants`` of the mutated lines and their neighbours ("boundary"), the
    ``designed`` inputs (strings the mutated patterns and tables match, characters at code-point
    bounds: "designed", each followed by one of the ``variants``, the tests' texts with a character of the
    mutated lines put in, "boundary", so that neither list crowds out the other; the ``later`` texts, made from
    code beyond the mutated lines, after the recased ones, "boundary"; before everything, each two
    words of a ``related`` group in two text arguments of the first base call; each constant and designed input
    goes into the first few base calls before any goes into the rest; with ``recase``, the base calls' texts in
    capitals and in lower case), the first base call's empty, zero, negative, huge and None
    values ("edge-value"), the ``test_literals`` ("test-literal"), then the other base calls' edge values; those of
    the first base call always fit in the budget. A replacement must fit the types seen for that
    argument in the samples, its default and its annotation, except a ``foreign`` value ("foreign": after the
    designed inputs, in each argument of the first base calls no annotation types, or one typed ``Any`` or a
    protocol of collections, ``_untyped``): a value of another kind,
    for code whose handler the mutant broadens to errors such a value raises. Yields (args_repr,
    kwargs_repr, origin); calls equal to a sample are skipped.
    """
    positional = [p for p in signature.parameters if not p.keyword_only]
    keyword = [p for p in signature.parameters if p.keyword_only]
    kinds: dict[int | str, list[type]] = {}
    unannotated = {*(index for index, p in enumerate(positional) if _untyped(p.annotation)),
                   *(p.name for p in keyword if _untyped(p.annotation))}

    def note(slot: int | str, *seen: type) -> None:
        bucket = kinds.setdefault(slot, [])
        for kind in seen:
            if kind not in bucket:
                bucket.append(kind)

    for sample in samples:
        for index, value in enumerate(sample.args):
            note(index, type(value))
        for name, value in sample.kwargs.items():
            note(name, type(value))
    for index, parameter in enumerate(positional):
        note(index, *(type(v) for v in parameter.default), *_kinds(parameter.annotation))
    for parameter in keyword:
        note(parameter.name, *(type(v) for v in parameter.default), *_kinds(parameter.annotation))

    def stand_in(slot: int | str) -> Any:
        seen = kinds.get(slot, [])
        for kind in seen:
            if kind in _EDGE_VALUES:
                return _EDGE_VALUES[kind][0]
        return None if seen == [_NONE] else 0

    bases: list[tuple[tuple[Any, ...], dict[str, Any]]] = [(s.args, s.kwargs) for s in samples]
    if not bases:
        args: list[Any] = []
        for index, parameter in enumerate(positional):
            if parameter.has_default and not parameter.default:
                break
            args.append(parameter.default[0] if parameter.default else stand_in(index))
        bases.append((tuple(args), {p.name: stand_in(p.name) for p in keyword if not p.has_default}))

    def slots(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[int | str]:
        return [*range(len(args)), *kwargs, *(p.name for p in keyword if p.name not in kwargs)]

    def replaced(base: tuple[tuple[Any, ...], dict[str, Any]], slot: int | str,
                 value: Any) -> tuple[list[str], dict[str, str]] | None:
        args, kwargs = list(base[0]), dict(base[1])
        if isinstance(slot, int):
            args[slot] = value
        else:
            kwargs[slot] = value
        args_repr = [text for text in map(callrecord.argument_repr, args) if text is not None]
        kwargs_repr = {name: text for name, v in kwargs.items() if (text := callrecord.argument_repr(v)) is not None}
        if len(args_repr) != len(args) or len(kwargs_repr) != len(kwargs):
            return None
        return args_repr, kwargs_repr

    def edge_values(base: tuple[tuple[Any, ...], dict[str, Any]]) -> Iterator[tuple[Any, int | str, Any, str]]:
        for slot in slots(*base):
            edges = [v for kind in kinds.get(slot, []) for v in _EDGE_VALUES.get(kind, ())]
            huge = [_HUGE_INT] if int in kinds.get(slot, []) else []  # last: some code is slow on it
            for value in _unique([*edges, None, *huge]):
                yield value, slot, base, "edge-value"

    def spread(values: Sequence[Any], origin: str, tier: Sequence[tuple[tuple[Any, ...], dict[str, Any]]]
               ) -> Iterator[tuple[Any, int | str, tuple[tuple[Any, ...], dict[str, Any]], str]]:
        for value in values:
            for base in tier:
                for slot in slots(*base):
                    yield value, slot, base, origin

    def steps() -> Iterator[tuple[Any, int | str, tuple[tuple[Any, ...], dict[str, Any]], str]]:
        # two words a table's row relates, in two text arguments (`compare('stamens', 'stamina')`): few, and
        # made for the mutated row alone
        texts = [slot for slot in range(len(bases[0][0])) if _fits("", kinds.get(slot, []))]
        for group in related:
            for first, second in itertools.permutations(group, 2):
                for one, other in itertools.combinations(texts, 2):
                    args = list(bases[0][0])
                    args[one] = first
                    yield second, other, (tuple(args), bases[0][1]), "designed"
        # Each constant and designed input goes into the first few base calls before any goes into all of them:
        # a parametrized test records hundreds of calls, and the first constant (`-5` of `word[-5:] == "quies"`,
        # or the mutated pattern itself) put in each of them would spend the budget before the telling one
        # (`"quies"`, a word the mutated pattern alone matches) is ever passed.
        first, rest = bases[:_FIRST_BASES], bases[_FIRST_BASES:]
        # (and into each later base call of a shape of its own, the keyword arguments it passes: `keyword_case=
        # 'lower'` is what shows a word the mutant no longer takes for a keyword)
        shapes, shaped = {frozenset(base[1]) for base in first}, []
        for base in rest:
            if frozenset(base[1]) not in shapes and len(shaped) < _SHAPED_BASES:
                shapes.add(frozenset(base[1]))
                shaped.append(base)
        near = _unique(v for constant in constants for v in _neighbours(constant))
        yield from spread(near, "boundary", [*first, *shaped])
        # inside what the tests passed: `(64, 64, 64)` where they passed `(255, 255, 255)` and the mutant
        # drops the entry for 64; `'0.0%'` where they wrote `'50%'` and the mutant moves a bound at 0
        # (at most _INSIDE of them: the designed inputs after them keep their share of the budget)
        numbers = [v for v in near if type(v) in (int, float)][:_RENUMBERED]
        inside = ((value, slot, base) for base in bases for slot in slots(*base)
                  for held in [base[0][slot] if isinstance(slot, int) else base[1].get(slot)]
                  for value in [*(v for near_value in near for v in _holding(held, near_value)),
                                *_renumbered(held, numbers)])
        for value, slot, base in itertools.islice(inside, _INSIDE):
            yield value, slot, base, "boundary"
        # what a pattern on the line matches (`"d'a"` for `^[dol]'\w+$`) and a test's text with a character of
        # the line's put in (`"alpha-2_"` where `_` left `[a-z0-9_-]`), in turn: either alone may be the one that
        # tells, and either list may fill the budget
        put_in = [v for v in _unique(variants) if v not in near]
        turns = itertools.zip_longest(_unique(designed), put_in, fillvalue=_NOTHING)
        for pair in turns:
            for value, origin in zip(pair, ("designed", "boundary")):
                if value is not _NOTHING:
                    yield from spread([value], origin, [*first, *shaped])
        # a value of a kind no test passed (`nth(0, {})` raises KeyError, which `except TypeError` let through
        # and `except Exception` swallows)
        yield from ((value, slot, base, "foreign") for value in foreign for base in first
                    for slot in slots(*base) if slot in unannotated)
        # for code that looks at the case of its text (`all_caps = line.upper() == line`): each call the tests
        # made with its text in capitals, then in lower case (`"THIS V. THAT"` where a test wrote `"this v. that"`)
        recased = ((value, slot, base) for base in bases if recase for slot in slots(*base)
                   for held in [base[0][slot] if isinstance(slot, int) else base[1].get(slot)] if isinstance(held, str)
                   for value in _unique([held.upper(), held.lower()]) if value != held)
        for value, slot, base in itertools.islice(recased, _RECASED):
            yield value, slot, base, "designed"
        # what a pattern the mutated code calls refuses, inside the tests' texts (`'http://user:p"ass@a.com'`)
        yield from spread(_unique(later), "boundary", [*first, *shaped])
        yield from spread(near, "boundary", rest)
        yield from spread(_unique(designed), "designed", rest)
        yield from spread(put_in, "boundary", rest)
        yield from edge_values(bases[0])  # few, and often the telling ones: before the time runs out
        built = [value for value in test_literals if isinstance(value, _BUILT_KINDS)]
        # the zero of each kind the tests used too: an empty duration is where `x == 0` and `x == other` meet
        zeros = [zero for kind in {type(value): None for value in built} for zero in _EDGE_VALUES.get(kind, ())]
        built = _unique([*{type(value): value for value in reversed(built)}.values(), *zeros,
                         *built])[:TEST_LITERALS // 2]
        plain = [value for value in test_literals if not isinstance(value, _BUILT_KINDS)][:TEST_LITERALS]
        for value in _unique([*built, *plain]):  # (the few dates and numbers first: they fit where text cannot)
            for base in bases:
                for slot in slots(*base):
                    yield value, slot, base, "test-literal"
        for base in bases[1:]:
            yield from edge_values(base)

    # The first call's edge values are few and often the telling ones: the constants leave room for them.
    reserve = len(list(edge_values(bases[0])))
    seen = {json.dumps([list(s.args_repr), sorted(s.kwargs_repr)]) for s in samples}
    given = 0
    for value, slot, base, origin in steps():
        if given >= budget:
            return
        if origin in ("boundary", "designed", "foreign") and given >= budget - reserve:
            continue
        # (a date, duration or number the tests wrote may stand for any argument no annotation types: the
        # `other` of an operator takes whatever the tests combine with it)
        loose = origin == "test-literal" and isinstance(value, _BUILT_KINDS) and slot in unannotated \
            or origin == "foreign"
        if value is not None and not loose and not _fits(value, kinds.get(slot, [])):
            continue
        call = replaced(base, slot, value)
        if call is None:
            continue
        key = json.dumps([call[0], sorted(call[1].items())])
        if key not in seen:
            seen.add(key)
            given += 1
            yield call[0], call[1], origin
