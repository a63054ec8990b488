"""hardcoded-special-case: code or test setup changed to give the very value a test asserts.

Production code that now special-cases a literal the tests use, or returns the value an assertion
expects, instead of computing it; and test code (a fixture, a mock, a module constant) changed to
that value, so the test checks itself rather than the code. What the Head tests assert is
collected once (``_Asserted``) from their checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import libcst as cst

from elenchus.analysis.weakening.equality import _patch_target
from elenchus.analysis.weakening.evidence import Evidence, EvidenceKind
from elenchus.analysis.weakening.loosened import _checks, _split_sides
from elenchus.analysis.weakening.source import (_MODULE, _Pair, _Site, _Source, _added, _is_fixture, _owned_shape,
                                                _owner_words, _sites, _statements, _where)
from elenchus.analysis.weakening.syntax import (_LiteralCollector, _dotted, _is_literal, _literal, _names_read,
                                                _one_line, _scalars, _snippet)


# --------------------------------------------------------------------------- hardcoded-special-case


@dataclass(frozen=True, slots=True)
class _Asserted:
    """What the Head tests assert: the literals in their assertions and the names those read."""

    literals: frozenset[object]
    names: frozenset[str]

    @classmethod
    def of(cls, sources: Iterable[_Source]) -> _Asserted:
        literals: set[object] = set()
        names: set[str] = set()
        for source in sources:
            for test in source.tests.values():
                for check in _checks(source, test):
                    collector = _LiteralCollector()
                    check.node.visit(collector)
                    literals |= collector.found
                    names |= _names_read(check.node)
        return cls(frozenset(literals), frozenset(names))


def _matching_literals(value: object, known: frozenset[object]) -> list[object]:
    """The non-trivial scalars of ``value`` (a literal, possibly a container) found in ``known``."""
    return [scalar for scalar in _scalars(value) if _hashable_in(scalar, known)]


def _hashable_in(value: object, known: frozenset[object]) -> bool:
    try:
        return value in known
    except TypeError:
        return False


def _compared_literals(condition: cst.BaseExpression, known: frozenset[object]) -> list[tuple[str, object]]:
    """(variable, literal) for each ``variable == literal`` (or ``is``/``in``) whose literal the tests use."""
    found: list[tuple[str, object]] = []
    if isinstance(condition, cst.BooleanOperation):
        return _compared_literals(condition.left, known) + _compared_literals(condition.right, known)
    if isinstance(condition, cst.Comparison) and len(condition.comparisons) == 1:
        target = condition.comparisons[0]
        if type(target.operator) in (cst.Equal, cst.Is, cst.In):
            subject, expected = _split_sides(condition.left, target.comparator)
            if subject is not None and expected is not None and not _is_literal(subject):
                for literal in _matching_literals(_literal(expected), known):
                    found.append((_snippet(cst.Module([]).code_for_node(subject), 40), literal))
    return found


def _literal_outcome(body: cst.BaseSuite) -> cst.CSTNode | None:
    """The first statement of an ``if`` body that returns or assigns a literal."""
    for statement in _statements(body):
        if isinstance(statement, cst.Return) and _is_literal(statement.value) and statement.value is not None:
            return statement
        if isinstance(statement, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and _is_literal(statement.value):
            return statement
    return None


def _special_cases(pair: _Pair, literals: frozenset[object], asserted: _Asserted) -> Iterator[Evidence]:
    base, head = pair.base, pair.head
    if head is None:
        return
    base_ifs = _sites(base, "if")
    flagged: set[cst.CSTNode] = set()
    for site in _added(base_ifs, head.of("if"), lambda s: (s.owner, s.shape(s.node.test))):  # type: ignore[attr-defined]
        node = site.node
        assert isinstance(node, cst.If)
        compared = _compared_literals(node.test, literals)
        outcome = _literal_outcome(node.body)
        if not compared or outcome is None:
            continue
        flagged.add(outcome)
        condition = _one_line(head.code(node.test))
        yield Evidence(EvidenceKind.HARDCODED_SPECIAL_CASE, pair.path, head.line(node), None, None,
                       f"if {condition}: {_one_line(head.code(outcome))}",
                       f"{_owner_words(site)} now special-cases the input the tests use "
                       f"(`{_snippet(condition, 100)}`) and answers with the fixed value "
                       f"`{_snippet(head.code(outcome), 40)}`, so those tests pass while every other input "
                       f"still takes the old path.", function=site.owner if site.owner != _MODULE else None)
    # A function that now returns the very value an assertion expects.
    base_exits = _sites(base, "exit")
    for site in _added(base_exits, head.of("exit"), _owned_shape):
        node = site.node
        if not isinstance(node, cst.Return) or node in flagged or site.owner == _MODULE:
            continue
        values = _matching_literals(_literal(node.value), asserted.literals)
        if values and base is not None and site.owner in base.functions:
            yield Evidence(EvidenceKind.HARDCODED_SPECIAL_CASE, pair.path, head.line(node), None, None,
                           head.code(node),
                           f"{site.owner} now returns the fixed value `{_snippet(head.code(node.value), 40)}`, "  # type: ignore[arg-type]
                           f"which is exactly what a test asserts, instead of computing it.", function=site.owner)


def _fixture_returns(source: _Source | None) -> dict[str, tuple[cst.CSTNode, object]]:
    """Fixture name -> (its return/yield node, the literal it gives), for fixtures that give a literal."""
    if source is None:
        return {}
    found: dict[str, tuple[cst.CSTNode, object]] = {}
    for name, function in source.functions.items():
        if not _is_fixture(function):
            continue
        for statement in _statements(function.body):
            value: cst.CSTNode | None = None
            if isinstance(statement, cst.Return):
                value = statement.value
            elif isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Yield):
                value = statement.value.value  # type: ignore[assignment]
            if value is not None and _is_literal(value):
                found[name] = (statement, _literal(value))
                break
    return found


def _mock_values(source: _Source | None) -> list[tuple[_Site, str, cst.CSTNode]]:
    """``x.return_value = lit``, ``return_value=lit`` and ``setattr(..., lambda ...: lit)``: (site, target, value)."""
    if source is None:
        return []
    found: list[tuple[_Site, str, cst.CSTNode]] = []
    for site in source.of("assign"):
        node = site.node
        if isinstance(node, cst.Assign) and _is_literal(node.value):
            for target in node.targets:
                name = _dotted(target.target) or ""
                if name.endswith(".return_value"):
                    found.append((site, name, node.value))
    for site in source.of("call"):
        call = site.node
        assert isinstance(call, cst.Call)
        label = _patch_target(call) or f"{_snippet(source.code(call.func), 40)}(return_value=...)"
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "return_value" and _is_literal(arg.value):
                found.append((site, label, arg.value))
        target = _patch_target(call)
        values = [a.value for a in call.args if a.keyword is None]
        if target is not None and values and isinstance(values[-1], cst.Lambda) and _is_literal(values[-1].body):
            found.append((site, target, values[-1].body))
    return found


def _hardcoded_test_values(pair: _Pair, asserted: _Asserted) -> Iterator[Evidence]:
    base, head = pair.base, pair.head
    if head is None or base is None:
        return
    before = _fixture_returns(base)
    for name, (node, value) in _fixture_returns(head).items():
        old = before.get(name)
        if old is None or old[1] == value or not _matching_literals(value, asserted.literals):
            continue
        yield Evidence(EvidenceKind.HARDCODED_SPECIAL_CASE, pair.path, head.line(node), None,
                       base.code(old[0]), head.code(node),
                       f"the fixture {name} now gives {value!r} instead of {old[1]!r}, the very value a "
                       f"test asserts, so the test checks the fixture rather than the code.")
    old_mocks = {(site.owner, target): _literal(value) for site, target, value in _mock_values(base)}
    for site, target, value_node in _mock_values(head):
        value = _literal(value_node)
        key = (site.owner, target)
        known_owner = site.owner == _MODULE or site.owner in base.functions
        if not known_owner or (key in old_mocks and old_mocks[key] == value):
            continue
        if not _matching_literals(value, asserted.literals):
            continue
        was = f" instead of {old_mocks[key]!r}" if key in old_mocks else ""
        yield Evidence(EvidenceKind.HARDCODED_SPECIAL_CASE, pair.path, head.line(site.node), site.test,
                       None, head.code(site.node),
                       f"the mock `{target}` {_where(site)} now returns {value!r}{was}, the very value a "
                       f"test asserts, so the test checks the mock rather than the code.")
    # Module constants the assertions read, changed to a new literal.
    old_constants = _module_constants(base)
    for name, (node, value) in _module_constants(head).items():
        if name not in old_constants or old_constants[name][1] == value:
            continue
        if name not in asserted.names and not _matching_literals(value, asserted.literals):
            continue
        yield Evidence(EvidenceKind.HARDCODED_SPECIAL_CASE, pair.path, head.line(node), None,
                       base.code(old_constants[name][0]), head.code(node),
                       f"the constant {name} was changed from {old_constants[name][1]!r} to {value!r}, "
                       f"and an assertion reads it, so the expected value moved to meet the code.")


def _module_constants(source: _Source) -> dict[str, tuple[cst.CSTNode, object]]:
    found: dict[str, tuple[cst.CSTNode, object]] = {}
    for site in source.of("assign"):
        node = site.node
        if site.owner != _MODULE or not isinstance(node, (cst.Assign, cst.AnnAssign)):
            continue
        targets = node.targets if isinstance(node, cst.Assign) else [node]
        for target in targets:
            if isinstance(target.target, cst.Name) and target.target.value != "pytestmark" \
                    and _is_literal(node.value):
                found[target.target.value] = (node, _literal(node.value))
    return found
