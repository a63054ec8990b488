"""A test file parsed: its tests as pytest collects them, and the skip markers on them.

``_parse`` turns a source into a ``_Source`` (tests with their qualified names, declared skips, node
positions on demand) or an ``_Unparseable``; the skip helpers normalize decorators, module marks and
runtime ``pytest.skip`` calls, and ``_added_skips`` finds those Head carries beyond Base.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from elenchus.analysis.weakening.source import _is_fixture
from elenchus.analysis.weakening.syntax import _callee, _dotted, _last as _last_name
from elenchus.analysis.quality.expressions import _CallCollector, _RUNTIME_SKIPS, _is_name

_PYTEST_SKIP_MARKS = frozenset({"skip", "skipif", "xfail"})
_UNITTEST_SKIPS = frozenset({"skip", "skipIf", "skipUnless", "expectedFailure"})


# --------------------------------------------------------------------------- parsing


@dataclass(frozen=True, slots=True)
class _TestDef:
    qualname: str
    node: cst.FunctionDef


@dataclass(frozen=True, slots=True)
class _SkipMarker:
    owner: str | None  # test or class qualname; None for the module
    scope: str  # "test", "class" or "module"
    marker: str  # normalized, e.g. "pytest.mark.skip"
    line: int


class _Source:
    """A parsed test file: its tests, its declared skips, and node positions (resolved on first use)."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._positions: Mapping[cst.CSTNode, CodeRange] | None = None
        tests: list[_TestDef] = []
        skips: list[_SkipMarker] = []
        _collect(self, module.body, prefix="", tests=tests, skips=skips)
        self.tests = tuple(tests)
        self.declared_skips = tuple(skips)  # decorators and module marks; runtime skips need a scan

    def line(self, node: cst.CSTNode) -> int:
        if self._positions is None:
            self._positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._positions[node].start.line

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def body(self, test: _TestDef) -> str:
        """A test's body as it reads wherever it sits: a test moved into a class (or out of one) keeps it."""
        return textwrap.dedent(self.code(test.node.body).strip("\n")).strip()


@dataclass(frozen=True, slots=True)
class _Unparseable:
    line: int
    message: str


def _parse(source: str | None) -> _Source | _Unparseable | None:
    if source is None:
        return None
    try:
        return _Source(cst.parse_module(source))
    except cst.ParserSyntaxError as exc:
        return _Unparseable(max(exc.raw_line, 1), exc.message)
    except (RecursionError, ValueError) as exc:  # pathological input the parser rejects
        return _Unparseable(1, f"{type(exc).__name__}: {exc}")


def _collect(source: _Source, body: Sequence[cst.CSTNode], *, prefix: str,
             tests: list[_TestDef], skips: list[_SkipMarker]) -> None:
    """Find tests as pytest collects them, and the skip decorators and marks that apply to them."""
    testcase_names: set[str] = set()
    for statement in body:
        if isinstance(statement, cst.FunctionDef):
            name = statement.name.value
            if name.startswith("test") and not _is_fixture(statement):
                tests.append(_TestDef(prefix + name, statement))
                skips.extend(_decorator_skips(source, statement.decorators, prefix + name, "test"))
        elif isinstance(statement, cst.ClassDef):
            if _is_testcase(statement, testcase_names):
                testcase_names.add(statement.name.value)
            if _is_test_class(statement, testcase_names):
                qualname = prefix + statement.name.value
                skips.extend(_decorator_skips(source, statement.decorators, qualname, "class"))
                _collect(source, _statements(statement.body), prefix=qualname + "::",
                         tests=tests, skips=skips)
        elif prefix == "" and isinstance(statement, cst.SimpleStatementLine):
            skips.extend(_module_skips(source, statement))


def _statements(block: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    return block.body if isinstance(block, cst.IndentedBlock) else ()


def _is_testcase(cls: cst.ClassDef, known: set[str]) -> bool:
    """A unittest.TestCase subclass (or a subclass of one defined earlier in the file)."""
    for base in cls.bases:
        name = _last_name(base.value)
        if name.endswith("TestCase") or name in known:
            return True
    return False


def _is_test_class(cls: cst.ClassDef, testcase_names: set[str]) -> bool:
    """As pytest collects: unittest.TestCase subclasses, or ``Test*`` classes without ``__init__``."""
    statements = _statements(cls.body)
    if any(_assigns_false(s, "__test__") for s in statements):
        return False
    if cls.name.value in testcase_names:
        return True
    has_init = any(isinstance(s, cst.FunctionDef) and s.name.value == "__init__" for s in statements)
    return cls.name.value.startswith("Test") and not has_init


def _assigns_false(statement: cst.CSTNode, target: str) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    return any(isinstance(small, cst.Assign) and _is_name(small.value, "False")
               and any(_dotted(t.target) == target for t in small.targets)
               for small in statement.body)


# --------------------------------------------------------------------------- skips


def _skip_marker(expr: cst.BaseExpression) -> str | None:
    """Normalize a decorator or mark expression to a skip marker name, if it is one."""
    name = _dotted(_callee(expr))
    if name is None:
        return None
    parts = name.split(".")
    last = parts[-1]
    if len(parts) >= 2 and parts[-2] == "mark" and last in _PYTEST_SKIP_MARKS:
        return f"pytest.mark.{last}"
    if last in _UNITTEST_SKIPS and (len(parts) == 1 or parts[-2] == "unittest"):
        return f"unittest.{last}"
    return None


def _decorator_skips(source: _Source, decorators: Sequence[cst.Decorator],
                     owner: str, scope: str) -> Iterator[_SkipMarker]:
    for decorator in decorators:
        marker = _skip_marker(decorator.decorator)
        if marker is not None:
            yield _SkipMarker(owner, scope, marker, source.line(decorator))


def _module_skips(source: _Source, statement: cst.SimpleStatementLine) -> Iterator[_SkipMarker]:
    """``pytestmark = pytest.mark.skip(...)`` (or a list of marks) and module-level ``pytest.skip``."""
    for small in statement.body:
        if isinstance(small, cst.Assign) and any(_dotted(t.target) == "pytestmark" for t in small.targets):
            value = small.value
            marks = [e.value for e in value.elements] if isinstance(value, (cst.List, cst.Tuple)) else [value]
            for mark in marks:
                marker = _skip_marker(mark)
                if marker is not None:
                    yield _SkipMarker(None, "module", marker, source.line(mark))
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            marker = _RUNTIME_SKIPS.get(_dotted(small.value.func) or "")
            if marker is not None:
                yield _SkipMarker(None, "module", marker, source.line(small.value))


def _runtime_skips(source: _Source) -> Iterator[_SkipMarker]:
    """``pytest.skip(...)``/``pytest.xfail(...)``/``self.skipTest(...)`` calls inside each test."""
    for test in source.tests:
        collector = _CallCollector()
        test.node.body.visit(collector)
        for call in collector.calls:
            marker = _RUNTIME_SKIPS.get(_dotted(call.func) or "")
            if marker is not None:
                yield _SkipMarker(test.qualname, "test", marker, 0)


def _added_skips(head: _Source, head_runtime: Sequence[_SkipMarker],
                 base: _Source | None) -> Iterator[_SkipMarker]:
    """Head skip markers beyond what the same owner carried in base (a new skipped test counts)."""
    before: Counter[tuple[str | None, str]] = Counter()
    if base is not None:
        before.update((s.owner, s.marker) for s in (*base.declared_skips, *_runtime_skips(base)))
    seen: Counter[tuple[str | None, str]] = Counter()
    for skip in sorted((*head.declared_skips, *head_runtime), key=lambda s: s.line):
        key = (skip.owner, skip.marker)
        seen[key] += 1
        if seen[key] > before[key]:
            yield skip
