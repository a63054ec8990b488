"""One parsed version of a file and everything read from it in one pass, shared by every weakening class.

``_Source`` is a file parsed with libcst: the shape of each node (whitespace-, comment- and
parenthesis-insensitive), its tests as pytest collects them with the skip and xfail marks declared
on them, and the nodes the detectors read (``_Site``), each with the function, class or module that
owns it. ``_Pair`` is the Base and Head version of one changed file; ``_added``/``_removed`` compare
their sites per owner. A file that does not parse becomes one ``unparseable`` evidence here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from elenchus.analysis.weakening.evidence import ChangedFile, Evidence, EvidenceKind
from elenchus.analysis.weakening.syntax import _NO_VALUE, _LiteralCollector, _callee, _dotted, _last, _literal, _snippet


# --------------------------------------------------------------------------- parsing


_MODULE = "<module>"


@dataclass(frozen=True, slots=True)
class _Unparseable:
    line: int
    message: str


@dataclass(frozen=True, slots=True, eq=False)
class _Site:
    """A node of interest, with the function (or class, or module) that owns it and the test it is in."""

    source: _Source
    owner: str
    test: str | None
    node: cst.CSTNode

    def shape(self, node: cst.CSTNode | None = None) -> tuple:
        return self.source.shape(node if node is not None else self.node)


class _Source:
    """One parsed version of a file: its tests, functions, classes and the nodes the detectors read."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._positions: Mapping[cst.CSTNode, CodeRange] | None = None
        self._shapes: dict[cst.CSTNode, tuple] = {}
        tests: dict[str, cst.FunctionDef] = {}
        markers: list[_Marker] = []
        _collect_tests(self, module.body, "", tests, markers)
        self.tests = tests  # pytest qualname ("TestCart::test_total") -> function
        self.declared_markers = tuple(markers)
        collector = _Collector(self, {node: name for name, node in tests.items()})
        module.visit(collector)
        self.functions = collector.functions  # dotted qualname -> function
        self.classes = collector.classes
        self.sites = collector.sites  # category -> sites in source order

    def line(self, node: cst.CSTNode) -> int:
        if self._positions is None:
            self._positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._positions[node].start.line

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node).strip()

    def shape(self, node: cst.CSTNode) -> tuple:
        if not self._shapes:
            builder = _Shapes()
            self.module.visit(builder)
            self._shapes = builder.shapes
        return self._shapes[node]

    def contains(self, node: cst.CSTNode, shape: tuple) -> bool:
        """Whether ``node`` or a node inside it has the given shape."""
        self.shape(node)
        shapes = self._shapes

        class Finder(cst.CSTVisitor):
            found = False

            def on_visit(self, inner: cst.CSTNode) -> bool:
                if shapes.get(inner) == shape:
                    self.found = True
                return not self.found

        finder = Finder()
        node.visit(finder)
        return finder.found

    def literals(self) -> frozenset[object]:
        collector = _LiteralCollector()
        self.module.visit(collector)
        return frozenset(collector.found)

    def of(self, category: str) -> list[_Site]:
        return self.sites.get(category, [])


@dataclass(frozen=True, slots=True)
class _Pair:
    file: ChangedFile
    base: _Source | None
    head: _Source | None

    @property
    def path(self) -> str:
        return self.file.path


def _parse(source: str | None) -> _Source | _Unparseable | None:
    if source is None:
        return None
    try:
        return _Source(cst.parse_module(source))
    except cst.ParserSyntaxError as exc:
        return _Unparseable(max(exc.raw_line, 1), exc.message)
    except (RecursionError, ValueError) as exc:  # pathological input the parser rejects
        return _Unparseable(1, f"{type(exc).__name__}: {exc}")


def _unparseable(path: str, side: str, failure: _Unparseable) -> Evidence:
    return Evidence(EvidenceKind.UNPARSEABLE, path, failure.line, None, None, None,
                    f"the {side} version of {path} could not be parsed ({failure.message}), so it "
                    f"was not examined for weakened checks.")


# Nodes that never change what code means, left out of shapes.
_TRIVIA = (cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.Newline, cst.Comment,
           cst.EmptyLine, cst.TrailingWhitespace, cst.LeftParen, cst.RightParen, cst.Comma,
           cst.Semicolon)


class _Shapes(cst.CSTVisitor):
    """Every node's shape, built bottom-up in one pass (``node.children`` would re-walk each subtree).

    A shape is a whitespace-, comment- and parenthesis-insensitive structural key:
    node types, names and literal values. ``x = 1`` has the same shape on its own
    line as after a colon, and ``0x10`` the same as ``16``.
    """

    def __init__(self) -> None:
        super().__init__()
        self.shapes: dict[cst.CSTNode, tuple] = {}
        self._stack: list[list[tuple]] = [[]]

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._stack.append([])
        return not isinstance(node, (*_TRIVIA, cst.Name, cst.Integer, cst.Float, cst.Imaginary,
                                     cst.SimpleString, cst.FormattedStringText))

    def on_leave(self, original_node: cst.CSTNode) -> None:
        parts = self._stack.pop()
        if isinstance(original_node, _TRIVIA):
            return
        shape = _leaf_shape(original_node)
        if shape is None:
            kind = ("suite" if isinstance(original_node, (cst.IndentedBlock, cst.SimpleStatementSuite))
                    else type(original_node).__name__)
            shape = (kind, *parts)
        self.shapes[original_node] = shape
        if isinstance(original_node, cst.SimpleStatementLine):
            self._stack[-1].extend(parts)  # a line's statements stand for it in the enclosing block
        else:
            self._stack[-1].append(shape)


def _leaf_shape(node: cst.CSTNode) -> tuple | None:
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
        return ("num", repr(node.evaluated_value))
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = _literal(node)
        return ("str", repr(value)) if value is not _NO_VALUE else None
    if isinstance(node, cst.Name):
        return ("name", node.value)
    if isinstance(node, cst.FormattedStringText):
        return ("text", node.value)
    return None


# --------------------------------------------------------------------------- tests as pytest collects them


@dataclass(frozen=True, slots=True)
class _Row:
    """One row of a ``parametrize`` argument-values list."""

    node: cst.CSTNode  # the element as written
    shape: tuple  # ("row", value shapes...): the spelling, ``id=`` and ``marks=`` left out
    values: tuple[cst.CSTNode, ...] | None  # one node per argname; None when not spelled out
    id: str | None  # the pytest id of the row (of this decorator's part, when decorators are stacked);
    # None when only a run could tell it (an f-string, a value from a call, an ``ids`` function)
    text: str  # the row as written, on one line: what the wording names when the id is not known

    @property
    def name(self) -> str:
        return f"`{self.id}`" if self.id is not None else f"written `{_snippet(self.text, 60)}`"


@dataclass(frozen=True, slots=True)
class _Marker:
    """A skip or xfail applied to a test, a class, or a whole module."""

    owner: str | None  # test or class qualname; None for the module
    kind: EvidenceKind  # SKIPPED_TEST or XFAIL_MARKER
    name: str  # e.g. "pytest.mark.skip"
    node: cst.CSTNode
    scope: str  # "test", "class", "module", "helper", or "row" (``pytest.param(..., marks=...)``)
    row: _Row | None = None  # the parametrized row a "row" marker is on


_PYTEST_MARKS = {"skip": EvidenceKind.SKIPPED_TEST, "skipif": EvidenceKind.SKIPPED_TEST,
                 "xfail": EvidenceKind.XFAIL_MARKER}
_UNITTEST_DECORATORS = {"skip": EvidenceKind.SKIPPED_TEST, "skipIf": EvidenceKind.SKIPPED_TEST,
                        "skipUnless": EvidenceKind.SKIPPED_TEST,
                        "expectedFailure": EvidenceKind.XFAIL_MARKER}
_RUNTIME_MARKERS = {"pytest.skip": EvidenceKind.SKIPPED_TEST, "self.skipTest": EvidenceKind.SKIPPED_TEST,
                    "pytest.xfail": EvidenceKind.XFAIL_MARKER}


def _mark_of(expr: cst.CSTNode) -> tuple[str, EvidenceKind] | None:
    """A skip/xfail mark or decorator expression, normalized (``mark.skip`` -> ``pytest.mark.skip``)."""
    name = _dotted(_callee(expr))
    if name is None:
        return None
    parts = name.split(".")
    last = parts[-1]
    if len(parts) >= 2 and parts[-2] == "mark" and last in _PYTEST_MARKS:
        return f"pytest.mark.{last}", _PYTEST_MARKS[last]
    if last in _UNITTEST_DECORATORS and (len(parts) == 1 or parts[-2] == "unittest"):
        return f"unittest.{last}", _UNITTEST_DECORATORS[last]
    return None


class _MarkFinder(cst.CSTVisitor):
    """Skip/xfail marks anywhere in a decorator (``pytest.param(..., marks=pytest.mark.xfail)`` too)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[cst.CSTNode, str, EvidenceKind]] = []

    def visit_Call(self, node: cst.Call) -> bool:
        mark = _mark_of(node)
        if mark is not None:
            self.found.append((node, *mark))
            return False
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        mark = _mark_of(node)
        if mark is not None:
            self.found.append((node, *mark))
            return False
        return True

    def visit_Name(self, node: cst.Name) -> None:
        mark = _mark_of(node)
        if mark is not None:
            self.found.append((node, *mark))


def _marks_in(node: cst.CSTNode) -> list[tuple[cst.CSTNode, str, EvidenceKind]]:
    finder = _MarkFinder()
    node.visit(finder)
    return finder.found


def _block(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    return suite.body if isinstance(suite, cst.IndentedBlock) else ()


def _statements(suite: cst.BaseSuite) -> list[cst.CSTNode]:
    """The statements of a block, with one-line statements split and docstrings/bare strings dropped."""
    found: list[cst.CSTNode] = []
    body = suite.body if isinstance(suite, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
    for statement in body:
        smalls = statement.body if isinstance(statement, cst.SimpleStatementLine) else [statement]
        for small in smalls:
            if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                continue
            found.append(small)
    return found


def _collect_tests(source: _Source, body: Sequence[cst.CSTNode], prefix: str,
                   tests: dict[str, cst.FunctionDef], markers: list[_Marker]) -> None:
    """Tests as pytest collects them, with the skip and xfail marks declared on them."""
    testcases: set[str] = set()
    for statement in body:
        if isinstance(statement, cst.FunctionDef):
            name = prefix + statement.name.value
            if statement.name.value.startswith("test") and not _is_fixture(statement):
                tests[name] = statement
                for decorator in statement.decorators:
                    markers.extend(_Marker(name, kind, mark, node, "test")
                                   for node, mark, kind in _marks_in(decorator.decorator))
        elif isinstance(statement, cst.ClassDef):
            if any(_last(base.value).endswith("TestCase") or _last(base.value) in testcases
                   for base in statement.bases):
                testcases.add(statement.name.value)
            if _is_test_class(statement, testcases):
                name = prefix + statement.name.value
                for decorator in statement.decorators:
                    markers.extend(_Marker(name, kind, mark, node, "class")
                                   for node, mark, kind in _marks_in(decorator.decorator))
                _collect_tests(source, _block(statement.body), name + "::", tests, markers)
        elif not prefix and isinstance(statement, cst.SimpleStatementLine):
            markers.extend(_module_markers(statement))


def _is_fixture(func: cst.FunctionDef) -> bool:
    return any(_last(_callee(d.decorator)) == "fixture" for d in func.decorators)


def _is_test_class(cls: cst.ClassDef, testcases: set[str]) -> bool:
    statements = _block(cls.body)
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if (isinstance(small, cst.Assign) and _literal(small.value) is False
                        and any(_dotted(t.target) == "__test__" for t in small.targets)):
                    return False
    if cls.name.value in testcases:
        return True
    has_init = any(isinstance(s, cst.FunctionDef) and s.name.value == "__init__" for s in statements)
    return cls.name.value.startswith("Test") and not has_init


def _module_markers(statement: cst.SimpleStatementLine) -> Iterator[_Marker]:
    """``pytestmark = pytest.mark.skip(...)`` (or a list of marks)."""
    for small in statement.body:
        targets = (small.targets if isinstance(small, cst.Assign)
                   else [small] if isinstance(small, cst.AnnAssign) else [])
        if any(_dotted(t.target) == "pytestmark" for t in targets) and small.value is not None:
            for node, mark, kind in _marks_in(small.value):
                yield _Marker(None, kind, mark, node, "module")


# --------------------------------------------------------------------------- one pass over a file


class _Collector(cst.CSTVisitor):
    """Record the nodes every detector reads, each with its owner (enclosing def or class)."""

    CATEGORIES = {
        cst.If: "if", cst.ExceptHandler: "handler", cst.ExceptStarHandler: "handler",
        cst.WithItem: "withitem", cst.Raise: "raise", cst.Return: "exit", cst.Pass: "exit",
        cst.Continue: "exit", cst.Call: "call", cst.Assign: "assign", cst.AugAssign: "assign",
        cst.AnnAssign: "assign", cst.Import: "import", cst.ImportFrom: "import",
    }

    def __init__(self, source: _Source, tests: Mapping[cst.FunctionDef, str]) -> None:
        super().__init__()
        self._source = source
        self._tests = tests
        self._scope: list[str] = []
        self._test: list[str | None] = [None]
        self.functions: dict[str, cst.FunctionDef] = {}
        self.classes: dict[str, cst.ClassDef] = {}
        self.sites: dict[str, list[_Site]] = {}

    @property
    def _owner(self) -> str:
        return ".".join(self._scope) or _MODULE

    def on_visit(self, node: cst.CSTNode) -> bool:
        category = self.CATEGORIES.get(type(node))
        if category is not None:
            self.sites.setdefault(category, []).append(_Site(self._source, self._owner, self._test[-1], node))
        if isinstance(node, cst.FunctionDef):
            self._scope.append(node.name.value)
            self.functions.setdefault(self._owner, node)
            self._test.append(self._tests.get(node, self._test[-1]))
        elif isinstance(node, cst.ClassDef):
            self._scope.append(node.name.value)
            self.classes.setdefault(self._owner, node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, cst.FunctionDef):
            self._scope.pop()
            self._test.pop()
        elif isinstance(original_node, cst.ClassDef):
            self._scope.pop()


def _added(base: Iterable[_Site], head: Iterable[_Site], key: Callable[[_Site], Hashable]) -> list[_Site]:
    """Head sites beyond the number of Base sites with the same key (earlier ones count as kept)."""
    before = Counter(key(site) for site in base)
    seen: Counter[Hashable] = Counter()
    added = []
    for site in head:
        k = key(site)
        seen[k] += 1
        if seen[k] > before[k]:
            added.append(site)
    return added


def _removed(base: Iterable[_Site], head: Iterable[_Site], key: Callable[[_Site], Hashable]) -> list[_Site]:
    return _added(head, base, key)


def _sites(source: _Source | None, category: str) -> list[_Site]:
    return source.of(category) if source is not None else []


def _owned_shape(site: _Site) -> Hashable:
    return site.owner, site.shape()


def _owner_words(site: _Site) -> str:
    if site.test is not None:
        return site.test
    return "module-level code" if site.owner == _MODULE else site.owner


def _where(site: _Site) -> str:
    if site.test is not None:
        return f"in {site.test}"
    return "at module level" if site.owner == _MODULE else f"in {site.owner}"
