"""Weakening evidence (SPEC 8): the static half of scoring a repair run.

A repair loop that made a failing command pass may have bought the pass with a
worse repository (the replx seed, step 6): a deleted or skipped test, an xfail
marker, a loosened assertion, a hardcoded special case for the asserted input, a
swallowed error, an object that equals anything, or a tampered test harness. All
of those exit 0. This package reads the Base and Head version of every changed
file and reports each such change as one ``Evidence`` record, found by comparing
libcst parse trees node by node (never by matching text).

Nodes are compared by *shape*: the node types and values of a subtree with
whitespace, comments and parentheses left out, so a reformatted line is the same
line. Most classes are "present at Head, absent at Base" questions, answered per
owner (the enclosing function's qualified name), so an unchanged ``try/except``
elsewhere in the file never counts as new. Parametrized tests are compared row by
row, and a row removed at Head is a deleted test case named by its pytest id. A
changed expected value is judged together with the production files of the same
change: edited to agree with unchanged code it is a loosening, corrected alongside
the code the test calls it is not (see ``find_weakening``).

The dynamic half (running the command, the comparison matrix) lives elsewhere;
everything here carries ``source="static"``.

This module is the package's public face (``find_weakening`` and the helpers scoring reads). The
records are in ``evidence``; the shared parts in ``syntax`` (names and literals), ``source`` (a
parsed file, its tests and sites) and ``change`` (test identity, repaired production code); each
weakening class has its own module beside them (``deleted``, ``markers``, ``loosened``,
``swallowed``, ``equality``, ``hardcoded``, ``harness``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from elenchus.analysis.weakening.change import _TestOwners, _repaired_names
from elenchus.analysis.weakening.deleted import _deleted_rows, _deleted_tests
from elenchus.analysis.weakening.equality import _always_equal
from elenchus.analysis.weakening.evidence import CLASSES, FILE_KINDS, ChangedFile, Evidence, EvidenceKind
from elenchus.analysis.weakening.hardcoded import _Asserted, _hardcoded_test_values, _special_cases
from elenchus.analysis.weakening.harness import _config_changes, _harness_tampering
from elenchus.analysis.weakening.loosened import _loosened_assertions
from elenchus.analysis.weakening.markers import _added_markers
from elenchus.analysis.weakening.source import _Pair, _Source, _Unparseable, _parse, _unparseable
from elenchus.analysis.weakening.swallowed import _swallowed_errors
from elenchus.analysis.weakening.syntax import _names_called
from elenchus.config import pytest_config_flavour

__all__ = [
    "CLASSES",
    "ChangedFile",
    "Evidence",
    "EvidenceKind",
    "FILE_KINDS",
    "callers",
    "find_weakening",
    "test_calls",
    "test_literals",
]


# --------------------------------------------------------------------------- public API


def find_weakening(files: Sequence[ChangedFile], *, unchanged_tests: Iterable[str] = (),
                   production_evidence: bool = True) -> tuple[Evidence, ...]:
    """Every piece of weakening evidence in the change, ordered by (path, line, kind).

    ``production_evidence`` False: production files only say what the change repaired, and
    no evidence located in them is looked for (a large generated module costs nothing more).

    ``unchanged_tests`` are the sources of the Head test files the change did not
    touch: production code that special-cases a literal is judged against the
    literals of every Head test, changed or not (see ``test_literals``).

    A changed expected value is judged against the production files in ``files``.
    When a test's exact (or equally tolerant approximate) comparison now expects a
    different literal, or one value of a parametrized row changed, that is a
    ``loosened-assertion`` if the repair changed no production code the test
    calls: the test was edited to agree with the code. It is an honest correction,
    and reported as nothing, when the test calls a *repaired* name: a function,
    method or class of a ``production`` file whose code differs between Base and
    Head (by shape, so reformatting does not count), or one that calls or reads
    such a name, transitively, or reads a module constant that changed. Statically
    a wrong correction (code and test moved together to a new wrong value) looks
    the same; the dynamic half (Base tests run against the Head code) catches that.

    Never raises on bad input: a Python file whose Base or Head does not parse
    yields one ``unparseable`` evidence and is otherwise skipped.
    """
    evidence: list[Evidence] = []
    sources: list[_Pair] = []
    for file in files:
        if pytest_config_flavour(file.path) is not None:
            evidence.extend(_config_changes(file))
            continue
        base, head = _parse(file.base_source), _parse(file.head_source)
        failed = [(side, p) for side, p in (("head", head), ("base", base)) if isinstance(p, _Unparseable)]
        if failed:
            side, failure = failed[0]
            evidence.append(_unparseable(file.path, side, failure))
            continue
        sources.append(_Pair(file, base, head))  # type: ignore[arg-type]

    context = [parsed for parsed in map(_parse, unchanged_tests) if isinstance(parsed, _Source)]
    tests_at_head = [*(p.head for p in sources if p.head is not None and p.file.kind != "production"), *context]
    literals = frozenset[object]().union(*(s.literals() for s in tests_at_head))
    asserted = _Asserted.of([*(p.head for p in sources if p.head is not None and p.file.kind == "test"), *context])
    owners = _TestOwners.of(sources)
    repaired = _repaired_names(sources)

    evidence.extend(_deleted_tests(sources, owners))
    evidence.extend(_deleted_rows(sources, owners, repaired))
    evidence.extend(_added_markers(sources, owners))
    for pair in sources:
        if pair.file.kind == "production" and not production_evidence:
            continue  # context only (what the change repaired): its own evidence is not wanted
        evidence.extend(_loosened_assertions(pair, owners, repaired))
        evidence.extend(_swallowed_errors(pair))
        evidence.extend(_always_equal(pair))
        if pair.file.kind == "production":
            evidence.extend(_special_cases(pair, literals, asserted))
        else:
            evidence.extend(_hardcoded_test_values(pair, asserted))
            evidence.extend(_harness_tampering(pair))
    return _ordered(evidence)


def test_calls(source: str) -> dict[str, frozenset[str]]:
    """The names each test of a test file calls (the last part of each callee: ``discount``, ``total`` for
    ``cart.total()``), by the test's pytest name (``TestCart::test_total``); {} when the file does not parse."""
    parsed = _parse(source)
    if not isinstance(parsed, _Source):
        return {}
    return {name: frozenset(_names_called(test)) for name, test in parsed.tests.items()}


def callers(sources: Iterable[str], names: Iterable[str]) -> frozenset[str]:
    """``names`` and the functions of the given sources that call one of them, transitively, by last name
    (a wrapper of a special-cased function reaches it too); unparseable sources add nothing."""
    calls: dict[str, set[str]] = {}
    for text in sources:
        parsed = _parse(text)
        if isinstance(parsed, _Source):
            for qualname, function in parsed.functions.items():
                calls.setdefault(qualname.rsplit(".", 1)[-1], set()).update(_names_called(function.body))
    reached = set(names)
    while True:
        more = {name for name, called in calls.items() if called & reached} - reached
        if not more:
            return frozenset(reached)
        reached |= more


def test_literals(sources: Iterable[str]) -> frozenset[object]:
    """The numbers and strings written in the given (test) sources; unparseable sources add nothing.

    Docstrings and other bare string statements are left out; booleans and None
    are not literals here. A negative number contributes both its value and its
    magnitude.
    """
    found: set[object] = set()
    for text in sources:
        parsed = _parse(text)
        if isinstance(parsed, _Source):
            found |= parsed.literals()
    return frozenset(found)


test_literals.__test__ = False  # type: ignore[attr-defined]  # a helper, not a pytest test


# --------------------------------------------------------------------------- order


def _ordered(evidence: Iterable[Evidence]) -> tuple[Evidence, ...]:
    unique = {(e.kind, e.path, e.line, e.test, e.before, e.after, e.detail): e for e in evidence}
    return tuple(sorted(unique.values(), key=lambda e: (e.path, e.line, e.kind, e.test or "", e.detail)))
