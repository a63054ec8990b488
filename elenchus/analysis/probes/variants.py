"""The tests' recorded calls, varied for a mutant: with another word of the table it edits, with an option other
tests pass, with a flag it reads turned the other way, without a keyword whose default it changes, with a value its
dropped conversion would have changed; the instances they built around a text, around that text with a blank line
and spaces. Each shows an edit the calls as the tests wrote them never reach."""

from __future__ import annotations

import ast
import dataclasses
import functools
import io
import re
from collections.abc import Sequence
from typing import Any

from elenchus.execution import callrecord
from elenchus.mutation.mutate import Mutant
from elenchus.analysis.probes.common import CallSample, _module_nodes, _module_tree
from elenchus.analysis.probes.boundary import _constants_on, _unique
from elenchus.analysis.probes.designed import _PATTERN_SYNTAX


def table_swaps(source: str, mutant: Mutant) -> list[tuple[str, str]]:
    """For a literal table whose entry the mutant drops or changes (``"Feb": 2`` in a table of month names):
    (another text of the same table, the entry's own text), those of the entry's length first. The tests'
    texts hold the other members (``"21 Nov 2011"``), and a dropped entry shows only on a text holding the
    same words with its own in their place (``"21 Feb 2011"``), which neither the entry alone nor any
    recorded call gives."""
    own = {v for v in _constants_on(source, mutant.line, mutant.end_line) if isinstance(v, str) and v.strip()}
    tables = [(last - first, texts) for first, last, texts in _literal_tables(source)
              if first <= mutant.line and mutant.end_line <= last and own & set(texts)]
    if not tables:
        return []
    texts = min(tables, key=lambda table: table[0])[1]  # the innermost table holding the entry
    return [(other, word) for word in texts if word in own
            for other in sorted((t for t in texts if t != word), key=lambda t: abs(len(t) - len(word)))]


@functools.lru_cache(maxsize=4)
def _literal_tables(source: str) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """(first line, last line, its texts) of each dict, list, tuple or set literal holding two texts or more that
    are no patterns (read-only: cached, since every target of every survivor of a module asks)."""
    tree = _module_tree(source)
    found = []
    for node in ast.walk(tree) if tree is not None else ():
        members = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(
            node, (ast.List, ast.Tuple, ast.Set)) else None
        texts = tuple(_unique(m.value for m in members or () if isinstance(m, ast.Constant) and isinstance(
            m.value, str) and m.value.strip() and not set(m.value) & _PATTERN_SYNTAX - {"."}))
        if len(texts) > 1:
            found.append((node.lineno, node.end_lineno or node.lineno, texts))
    return tuple(found)


def swapped_calls(samples: Sequence[CallSample], swaps: Sequence[tuple[str, str]]
                   ) -> list[tuple[CallSample, list[str], dict[str, str]]]:
    """The tests' calls (each on the instance it was made on) with a word of a ``table_swaps`` pair put in place
    of the other wherever it stands as a word of their texts: ``Parser('a {:te} b').parse('21 Feb 2011')`` where
    the test wrote ``'21 Nov 2011'``. (sample, args_repr, kwargs_repr), at most ``_SWAPPED``."""
    words = [(re.compile(rf"(?<!\w){re.escape(other)}(?!\w)"), word) for other, word in swaps]
    made: list[tuple[CallSample, list[str], dict[str, str]]] = []
    for sample in samples:
        texts = [*((index, value) for index, value in enumerate(sample.args)),
                 *((name, value) for name, value in sample.kwargs.items())]
        for slot, value in texts:
            if not isinstance(value, str):
                continue
            for pattern, word in words:
                swapped = pattern.sub(lambda _: word, value)
                if swapped == value:
                    continue
                args, kwargs = list(sample.args_repr), dict(sample.kwargs_repr)
                if isinstance(slot, int):
                    args[slot] = repr(swapped)
                else:
                    kwargs[slot] = repr(swapped)
                made.append((sample, args, kwargs))
                if len(made) >= _SWAPPED:
                    return made
    return made


#: Calls the tests made with a word of a table the mutant edits put in place of another, at most.
_SWAPPED = 40


def with_options(samples: Sequence[CallSample], options: Sequence[tuple[tuple[str, str], ...]],
                 node: ast.FunctionDef, bound: bool = False) -> list[CallSample]:
    """The tests' calls of a function with a set of keyword arguments other tests pass it (``keywords_in``) in
    place of what the call gave those names, or added: ``format('select abort', keyword_case='upper')`` where the
    recorded test only formatted, or passed ``keyword_case=None``. Only names the function takes (``bound``: a
    method's first, ``self``, is never passed); each set on the ``_OPTIONED`` calls with the fewest keyword
    arguments, every set on one call before any on the next."""
    ordered = [a.arg for a in (*node.args.posonlyargs, *node.args.args)][1 if bound else 0:]
    takes = {*ordered, *(a.arg for a in node.args.kwonlyargs)}
    distinct = list({(s.args_repr, s.kwargs_repr, s.receiver): s for s in samples}.values())
    calls = sorted(distinct, key=lambda s: len(s.kwargs_repr))[:_OPTIONED]  # (the plainest calls carry them)
    made: dict[tuple[Any, ...], CallSample] = {}
    usable = [w for w in options if node.args.kwarg is not None or all(name in takes for name, _ in w)]
    for sample in calls:  # (each set on the first call before any on the next)
        for written in usable:
            given = dict(sample.kwargs_repr)
            if all(given.get(name) == text for name, text in written) \
                    or any(name in ordered[:len(sample.args_repr)] for name, _ in written):
                continue
            kwargs = (*((name, text) for name, text in sample.kwargs_repr if name not in dict(written)), *written)
            call = CallSample(sample.target, sample.args_repr, kwargs, sample.receiver)
            made.setdefault((call.args_repr, call.kwargs_repr, call.receiver), call)
    return list(made.values())


def flags_flipped(samples: Sequence[CallSample], node: ast.FunctionDef, source: str, mutant: Mutant,
                  bound: bool = False) -> list[CallSample]:
    """The tests' calls with a flag the mutated code reads turned the other way: ``url(text,
    skip_ipv6_addr=True)`` where every test left it out. A flag the caller sets is often handed down by name to the
    helper the mutant edits (``skip_ipv6_addr or value.count(":") < 2``), and the edit shows only with the flag
    given; no test may give it, and the edge values go into a few calls only, seldom the text the flag is about.
    A flag: a parameter of the searched function, by keyword, whose default is ``True`` or ``False``, named on the
    mutated lines as a variable or an attribute. Every call with the flag, up to ``_FLIPPED``."""
    read = {n.id if isinstance(n, ast.Name) else n.attr for n in _module_nodes(source)
            if isinstance(n, (ast.Name, ast.Attribute)) and mutant.line <= n.lineno <= mutant.end_line}
    ordered = [*node.args.posonlyargs, *node.args.args]
    pairs = [*zip(ordered[len(ordered) - len(node.args.defaults):], node.args.defaults),
             *zip(node.args.kwonlyargs, node.args.kw_defaults)]
    positional = [a.arg for a in ordered][1 if bound else 0:]
    flags = [(arg.arg, repr(not default.value)) for arg, default in pairs
             if arg not in node.args.posonlyargs and arg.arg in read
             and isinstance(default, ast.Constant) and isinstance(default.value, bool)]
    made: dict[tuple[Any, ...], CallSample] = {}
    for sample in samples:
        for name, text in flags:
            if name in positional[:len(sample.args_repr)] or dict(sample.kwargs_repr).get(name) == text:
                continue
            kwargs = (*((given, value) for given, value in sample.kwargs_repr if given != name), (name, text))
            call = CallSample(sample.target, sample.args_repr, kwargs, sample.receiver)
            made.setdefault((call.args_repr, call.kwargs_repr, call.receiver), call)
            if len(made) >= _FLIPPED:
                return list(made.values())
    return list(made.values())


#: Calls the tests made with a flag the mutated code reads turned the other way, at most.
_FLIPPED = 80


def changed_defaults(node: ast.FunctionDef, mutated: ast.FunctionDef | None) -> set[str]:
    """The parameters whose default the mutated copy of ``node`` gives another value (``rfc_1034=False`` made
    ``True``)."""
    if mutated is None:
        return set()

    def defaults(function: ast.FunctionDef) -> dict[str, str]:
        ordered = [*function.args.posonlyargs, *function.args.args]
        given = dict(zip([a.arg for a in ordered[len(ordered) - len(function.args.defaults):]],
                         map(ast.unparse, function.args.defaults)))
        given.update((a.arg, ast.unparse(d)) for a, d in zip(function.args.kwonlyargs, function.args.kw_defaults)
                     if d is not None)
        return given

    before, after = defaults(node), defaults(mutated)
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def without_options(samples: Sequence[CallSample], names: set[str]) -> list[CallSample]:
    """The tests' calls that pass one of ``names`` by keyword, made without it: where a mutant changes that
    parameter's default, the text a test checked with the option given (``domain('example.com.', rfc_1034=True)``)
    is the one that shows what the new default does to a caller who leaves it out."""
    made: dict[tuple[Any, ...], CallSample] = {}
    for sample in samples:
        kept = tuple((name, text) for name, text in sample.kwargs_repr if name not in names)
        if len(kept) < len(sample.kwargs_repr):
            call = CallSample(sample.target, sample.args_repr, kept, sample.receiver)
            made.setdefault((call.args_repr, call.kwargs_repr, call.receiver), call)
    return list(made.values())


#: Recorded calls each set of the tests' keyword arguments is added to.
_OPTIONED = 4


#: For a conversion a mutant drops (``int(ordinal)`` made ``ordinal``), values it changes made from one a test gave:
#: a whole number with a fraction added, a positive one negated, a list out of order or with an item twice.
_CHANGED_BY: dict[str, Any] = {
    "int": lambda v: [v + 0.5] if type(v) is int else [],
    "round": lambda v: [v + 0.25, v + 0.5] if type(v) is int else [],
    "abs": lambda v: [-v] if type(v) in (int, float) and v > 0 else [-1] if v == 0 else [],
    "sorted": lambda v: [v[::-1]] if type(v) in (list, tuple) and len(v) > 1 and list(v) != list(v)[::-1] else [],
    "set": lambda v: [[*v, v[0]]] if type(v) in (list, tuple) and v else [],
}
#: Calls the tests made with a value a dropped conversion changes in place of theirs, at most.
_UNCONVERTED = 24


def unconverted_calls(samples: Sequence[CallSample], node: ast.FunctionDef, source: str, mutant: Mutant,
                      bound: bool = False) -> list[CallSample]:
    """The tests' calls with a value the conversion the mutant drops would have changed, in place of the one they
    passed the parameter it converts: ``from_ordinal(1.5)`` where every test passed a whole number to a function
    that wrote ``int(ordinal)``, made ``ordinal``. The tests' values are what the conversion leaves as it is, so
    none of their calls tells the two apart."""
    converted = _dropped_conversion(source, mutant)
    if converted is None:
        return []
    name, parameter = converted
    ordered = [a.arg for a in (*node.args.posonlyargs, *node.args.args)][1 if bound else 0:]
    if parameter not in ordered and parameter not in {a.arg for a in node.args.kwonlyargs}:
        return []
    made: dict[tuple[Any, ...], CallSample] = {}
    for sample in samples:
        index = ordered.index(parameter) if parameter in ordered else None
        given = sample.args_repr[index] if index is not None and index < len(sample.args_repr) \
            else dict(sample.kwargs_repr).get(parameter)
        try:
            values = _CHANGED_BY[name](ast.literal_eval(given)) if given is not None else []
        except (ValueError, SyntaxError, TypeError, IndexError):
            continue
        for value in values:
            args, kwargs = list(sample.args_repr), dict(sample.kwargs_repr)
            if index is not None and index < len(args):
                args[index] = repr(value)
            else:
                kwargs[parameter] = repr(value)
            call = CallSample(sample.target, tuple(args), tuple(kwargs.items()), sample.receiver)
            made.setdefault((call.args_repr, call.kwargs_repr, call.receiver), call)
            if len(made) >= _UNCONVERTED:
                return list(made.values())
    return list(made.values())


def _dropped_conversion(source: str, mutant: Mutant) -> tuple[str, str] | None:
    """(the conversion, the parameter it was given) where the mutant's only edit is a call of ``_CHANGED_BY``
    replaced by its one argument, a name (``int(ordinal)`` made ``ordinal``); else None."""
    if mutant.line != mutant.end_line:
        return None
    lines, changed = source.splitlines(), mutant.mutated_source.splitlines()
    if len(lines) != len(changed) or mutant.line > len(lines):
        return None
    line = lines[mutant.line - 1]
    for call in (n for n in _module_nodes(source) if isinstance(n, ast.Call) and n.lineno == mutant.line):
        if not (isinstance(call.func, ast.Name) and call.func.id in _CHANGED_BY and len(call.args) == 1
                and not call.keywords and isinstance(call.args[0], ast.Name)):
            continue
        text = ast.get_source_segment(source, call)
        if text is not None and line.replace(text, call.args[0].id, 1) == changed[mutant.line - 1]:
            return call.func.id, call.args[0].id
    return None


def spaced_streams(receivers: Sequence[callrecord.Receiver]) -> list[callrecord.Receiver]:
    """The first instance the tests built around a text stream (``reader(io.StringIO('{"a": 1}\\n'))``), built again
    around that text with a blank line first, and with a space around each line. A reader that skips blank lines
    or trims what it reads (ndjson's, with its ``.strip()`` dropped) differs only on such a text, and the tests'
    texts seldom hold one."""
    for receiver in receivers:
        for index, text in enumerate(receiver.args_repr):
            try:
                value = callrecord.argument_value(text)
            except ValueError:
                continue
            if type(value) is not io.StringIO or not value.getvalue().strip():
                continue
            held = value.getvalue()
            spaced = "\n".join(f" {line} " if line.strip() else line for line in held.split("\n"))
            return [dataclasses.replace(receiver, args_repr=(*receiver.args_repr[:index], f"io.StringIO({other!r})",
                                                             *receiver.args_repr[index + 1:]))
                    for other in ("\n" + held, spaced)]
    return []
