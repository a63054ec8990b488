"""Test Quality Concerns (SPEC 4.6): what the tests themselves risk, apart from detection.

The static half reads test files with libcst and flags patterns that make a test
pass while the behaviour it names is wrong (missing or weak assertions, swallowed
failures), couple it to implementation details (private attributes, interaction
checks on dependencies the code owns), make it unreliable (sleeps, unseeded
randomness) or remove protection outright (deleted tests, added skips).

The dynamic half turns what the runs measured into concerns: fixture setup that
dominates a test's cost, and tests that gave different results on the same code.

Every ``why`` is written for the person who owns the tests: what can go wrong for
them, and what to check instead, preferring the output the caller gets, then the
final state they can observe, then communication at boundaries the code does not
own. No concern ever recommends a brittle assertion just to kill a mutant.
"""

from __future__ import annotations

import enum
import re
import textwrap
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

__all__ = [
    "Concern",
    "ConcernKind",
    "FIXTURE_COST_MIN_SETUP_SECONDS",
    "FIXTURE_COST_RATIO",
    "TestFile",
    "analyze",
    "dynamic_concerns",
    "flaky_concern",
]


class ConcernKind(enum.StrEnum):
    """The ``kind`` ids a concern can carry; members compare equal to their strings."""

    NO_ASSERTION = "no-assertion"
    WEAK_ASSERTION = "weak-assertion"
    INTERACTION_ASSERTION = "interaction-assertion"
    PRIVATE_ACCESS = "private-access"
    SLEEP = "sleep"
    UNSEEDED_RANDOMNESS = "unseeded-randomness"
    BROAD_RAISES = "broad-raises"
    TRY_EXCEPT_IN_TEST = "try-except-in-test"
    REMOVED_TEST = "removed-test"
    ADDED_SKIP = "added-skip"
    LOOSENED_ASSERTION = "loosened-assertion"
    SWALLOWED_ERROR = "swallowed-error"
    UNPARSEABLE_TEST_FILE = "unparseable-test-file"
    FIXTURE_COST = "fixture-cost"
    FLAKY = "flaky"


@dataclass(frozen=True, slots=True)
class TestFile:
    """One test file as the change sees it: ``head_source`` None means deleted, ``base_source`` None means added."""

    __test__ = False  # a record, not a pytest test class

    path: str
    head_source: str | None
    base_source: str | None


@dataclass(frozen=True, slots=True)
class Concern:
    """One test-quality concern: where it is, which test, what kind, and why it matters.

    ``line`` is 1-based; 0 means the evidence has no source line (run measurements).
    ``test`` is the qualified name (``TestStack::test_push``), or None for the file.
    """

    path: str
    line: int
    test: str | None
    kind: str
    why: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", str(self.kind))  # a ConcernKind becomes its plain id


# Setup must exceed both bounds for a fixture-cost concern.
FIXTURE_COST_MIN_SETUP_SECONDS = 1.0
FIXTURE_COST_RATIO = 3.0

# Callee names (last dotted component) that check something, for "has an assertion".
_ASSERTING_PREFIXES = ("assert", "check", "verify", "validate", "expect")
_ASSERTING_CALLS = frozenset({
    "pytest.raises", "pytest.warns", "pytest.deprecated_call", "pytest.fail",
    "raises", "warns", "self.fail",
})

# Mock methods and attributes that observe how a dependency was called.
_MOCK_ASSERT_METHODS = frozenset({
    "assert_called", "assert_called_once", "assert_called_with", "assert_called_once_with",
    "assert_has_calls", "assert_any_call", "assert_not_called",
    "assert_awaited", "assert_awaited_once", "assert_awaited_with",
    "assert_awaited_once_with", "assert_has_awaits", "assert_any_await", "assert_not_awaited",
})
_MOCK_CALL_ATTRIBUTES = frozenset({
    "call_count", "call_args", "call_args_list", "called", "mock_calls", "method_calls",
    "await_count", "await_args", "await_args_list", "awaited",
})

# Calls whose result is a boolean (or, for regexes, a precise match) by name, so
# asserting on it is not mere truthiness; so are names starting with is/has.
_BOOLEAN_CALLS = frozenset({
    "isinstance", "issubclass", "callable", "bool", "all", "any",
    "startswith", "endswith", "exists", "match", "fullmatch", "search",
    "equal", "equals", "contains", "matches",
})
_BOOLEAN_PREFIXES = ("is", "has")
_NOT_PREDICATES = frozenset({"hash", "issue"})  # start with is/has, return no boolean
# Names that never identify the subject of an assertion.
_BUILTIN_NAMES = frozenset({"None", "True", "False", "len", "isinstance", "self", "cls", "bool"})

# The namedtuple API is public despite its underscore.
_PUBLIC_UNDERSCORE_NAMES = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})

_RANDOM_FUNCTIONS = frozenset({
    "random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform",
    "gauss", "getrandbits", "rand", "randn", "permutation", "normal",
})
_SEEDED_CONSTRUCTORS = frozenset({"Random", "RandomState", "default_rng"})
_SLEEP_MODULES = frozenset({"time", "asyncio", "trio", "anyio", "gevent"})

_BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException"})
_RAISES_CALLS = frozenset({"pytest.raises", "raises", "self.assertRaises"})

_PYTEST_SKIP_MARKS = frozenset({"skip", "skipif", "xfail"})
_UNITTEST_SKIPS = frozenset({"skip", "skipIf", "skipUnless", "expectedFailure"})
_RUNTIME_SKIPS = {"pytest.skip": "pytest.skip", "pytest.xfail": "pytest.xfail",
                  "self.skipTest": "self.skipTest"}
_FAILING_CALLS = frozenset({"pytest.fail", "self.fail", "fail"})

_SNIPPET_LIMIT = 60


# --------------------------------------------------------------------------- public API


def analyze(files: Sequence[TestFile]) -> tuple[Concern, ...]:
    """Read each test file (head and base) and return its quality concerns, in (path, line, kind) order.

    Never raises on bad input: a head (or base) that does not parse yields one
    ``unparseable-test-file`` concern for that file.
    """
    sources = [(f, _parse(f.head_source), _parse(f.base_source)) for f in files]
    moved_markers = _markers_by_body(sources)
    concerns: list[Concern] = []
    removed: list[tuple[str, _Source, _TestDef, bool]] = []  # path, base, test, file deleted
    for file, head, base in sources:
        if isinstance(head, _Unparseable):
            concerns.append(_unparseable(file.path, head, "head"))
            continue
        if isinstance(base, _Unparseable):
            concerns.append(_unparseable(file.path, base, "base"))
        if head is not None:
            scanner = _Scanner.run(file.path, head)
            concerns.extend(scanner.verdict())
            if not isinstance(base, _Unparseable):
                added = _added_skips(head, scanner.runtime_skips(), base)
                concerns.extend(_added_skip_concern(file.path, s) for s in added
                                if not _moved_with(s, head, moved_markers))
        if isinstance(base, _Source):
            kept = {t.qualname for t in head.tests} if head is not None else set()
            removed.extend((file.path, base, t, head is None) for t in base.tests if t.qualname not in kept)
    if removed:
        # A test whose body reappears in any head test was moved or renamed, not removed.
        head_bodies = {h.body(t) for _, h, _ in sources if isinstance(h, _Source) for t in h.tests}
        concerns.extend(_removed_test_concern(path, base, test, deleted=deleted)
                        for path, base, test, deleted in removed
                        if base.body(test) not in head_bodies)
    return _ordered(concerns)


def _markers_by_body(sources: Sequence[tuple[TestFile, Any, Any]]) -> dict[str, set[str]]:
    """The skip markers each Base test carried on itself, by its body: a test moved to another file
    brings its markers along, and adds none."""
    found: dict[str, set[str]] = {}
    for _, _, base in sources:
        if isinstance(base, _Source):
            bodies = {t.qualname: base.body(t) for t in base.tests}
            for skip in base.declared_skips:
                if skip.scope == "test" and skip.owner in bodies:
                    found.setdefault(bodies[skip.owner], set()).add(skip.marker)
    return found


def _moved_with(skip: _SkipMarker, head: _Source, moved: Mapping[str, set[str]]) -> bool:
    """Whether ``skip`` sits on a Head test whose body a Base test had, with the same marker."""
    if skip.scope != "test":
        return False
    test = next((t for t in head.tests if t.qualname == skip.owner), None)
    return test is not None and skip.marker in moved.get(head.body(test), set())


def dynamic_concerns(durations: Mapping[str, tuple[float, float]]) -> tuple[Concern, ...]:
    """Flag ``fixture-cost`` for each test (by pytest nodeid) whose setup dominates its run.

    ``durations`` maps nodeid to (setup_seconds, call_seconds). Setup dominates when
    it exceeds FIXTURE_COST_MIN_SETUP_SECONDS and FIXTURE_COST_RATIO times the call.
    The runs give no source line, so these concerns carry line 0.
    """
    concerns = []
    for nodeid, (setup, call) in durations.items():
        if setup > FIXTURE_COST_MIN_SETUP_SECONDS and setup > FIXTURE_COST_RATIO * call:
            path, test = _split_nodeid(nodeid)
            concerns.append(Concern(
                path, 0, test, ConcernKind.FIXTURE_COST,
                f"{_who(test, path)} spends {setup:.2f}s in fixture setup and {call:.2f}s "
                f"running, so its fixtures dominate what every run (and every mutant) "
                f"pays; a cheaper or shared, wider-scoped fixture keeps the same checks "
                f"for less time.",
            ))
    return _ordered(concerns)


def weakened_concern(path: str, line: int, test: str, kind: str, detail: str) -> Concern:
    """A check the change loosened, or whose failure it now swallows (found by comparing Base and Head)."""
    if kind == ConcernKind.SWALLOWED_ERROR:
        return Concern(path, line, test, ConcernKind.SWALLOWED_ERROR,
                       f"this change silences the test's check: {detail.rstrip('.')}; let the assertion fail "
                       "the test.")
    return Concern(path, line, test, ConcernKind.LOOSENED_ASSERTION,
                   f"this change weakens the test's check: {detail.rstrip('.')}; confirm the looser "
                   "expectation is what the code promises.")


def flaky_concern(nodeid: str) -> Concern:
    """A ``flaky`` concern (line 0) for a test that gave different results on the same code."""
    path, test = _split_nodeid(nodeid)
    return Concern(
        path, 0, test, ConcernKind.FLAKY,
        f"{_who(test, path)} passed and failed on repeated runs of the same code, so its "
        f"result is not evidence either way (it was counted as neither a kill nor a "
        f"survival); make it deterministic: fixed seeds, no sleeps, no shared state "
        f"between tests.",
    )


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


def _is_fixture(func: cst.FunctionDef) -> bool:
    return any(_last_name(_callee(d.decorator)) == "fixture" for d in func.decorators)


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


# --------------------------------------------------------------------------- file-level concerns


def _unparseable(path: str, failure: _Unparseable, side: str) -> Concern:
    consequence = ("its tests were not examined for quality concerns" if side == "head"
                   else "removed tests and added skips could not be detected")
    return Concern(path, failure.line, None, ConcernKind.UNPARSEABLE_TEST_FILE,
                   f"the {side} version of this file could not be parsed ({failure.message}), "
                   f"so {consequence}.")


def _added_skip_concern(path: str, skip: _SkipMarker) -> Concern:
    target = {"test": f"the test {skip.owner}", "class": f"every test in {skip.owner}",
              "module": "every test in this file"}[skip.scope]
    return Concern(path, skip.line, skip.owner, ConcernKind.ADDED_SKIP,
                   f"`{skip.marker}` was added to {target}; skipped or expected-to-fail tests "
                   f"do not protect the behaviour they name, so it goes unchecked until the "
                   f"skip is removed.")


def _removed_test_concern(path: str, base: _Source, test: _TestDef, *, deleted: bool) -> Concern:
    how = "deleted with this file" if deleted else "removed"
    return Concern(path, base.line(test.node), test.qualname, ConcernKind.REMOVED_TEST,
                   f"the test {test.qualname} was {how}, so the behaviour it checked is no "
                   f"longer protected unless another test covers it; confirm that before "
                   f"accepting the change.")


# --------------------------------------------------------------------------- the scan


@dataclass(slots=True)
class _Function:
    """A function or method in the file: does it assert, and which local helpers does it call."""

    key: str  # "name" for functions, "self.name" for methods
    asserts: bool = False
    calls: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class _Check:
    """One assertion in a test, and how much it pins down."""

    node: cst.CSTNode
    names: frozenset[str]  # the variables it mentions
    weak_why: str | None = None  # set when it only checks truthiness, non-None or non-empty
    type_only: bool = False  # ``isinstance``/``assertIsInstance``
    helper: str | None = None  # a call of a local helper: a check only if that helper asserts


class _Test:
    """What one test's body shows: its assertions and its own concerns."""

    def __init__(self, path: str, source: _Source, test: _TestDef) -> None:
        self.path = path
        self.source = source
        self.name = test.qualname
        self.node = test.node
        self.assertions = 0
        self.checks: list[_Check] = []
        self.concerns: list[Concern] = []
        self.skips: list[_SkipMarker] = []

    def flag(self, node: cst.CSTNode, kind: ConcernKind, why: str) -> None:
        self.concerns.append(Concern(self.path, self.source.line(node), self.name, kind, why))

    def snippet(self, node: cst.CSTNode) -> str:
        return _snippet(self.source.code(node))

    def on_assert(self, node: cst.Assert) -> None:
        expr = node.test
        code = f"assert {self.snippet(expr)}"
        if _mentions_mock_calls(expr):
            self.flag(node, ConcernKind.INTERACTION_ASSERTION, _interaction_why(code))
            self.checks.append(_Check(node, _names(expr)))
        elif isinstance(expr, cst.Call) and _is_name(expr.func, "isinstance"):
            self.checks.append(_Check(node, _names(expr), type_only=True))
        else:
            self.checks.append(_Check(node, _names(expr), weak_why=_weakness(expr, code)))

    def on_call(self, node: cst.Call, name: str, last: str, asserting: bool, helper: str | None) -> None:
        names = frozenset[str]().union(*(_names(arg.value) for arg in node.args))
        if last in _MOCK_ASSERT_METHODS and isinstance(node.func, cst.Attribute):
            self.flag(node, ConcernKind.INTERACTION_ASSERTION, _interaction_why(self.snippet(node)))
            self.checks.append(_Check(node, _names(node.func.value) | names))
        elif asserting:
            self._judge_assert_call(node, last, names)
        elif helper is not None:
            self.checks.append(_Check(node, names, helper=helper))
        if name in _RAISES_CALLS and _is_broad_raises(node):
            self.flag(node, ConcernKind.BROAD_RAISES,
                      f"`{self.snippet(node)}` passes for any error, including a TypeError "
                      f"from a typo or a crash in setup, so it cannot tell the intended failure "
                      f"from a broken one; expect the specific exception (and message) the "
                      f"caller is meant to see.")
        marker = _RUNTIME_SKIPS.get(name)
        if marker is not None:
            self.skips.append(_SkipMarker(self.name, "test", marker, self.source.line(node)))

    def _judge_assert_call(self, node: cst.Call, method: str, names: frozenset[str]) -> None:
        code = self.snippet(node)
        if any(_mentions_mock_calls(arg.value) for arg in node.args):
            self.flag(node, ConcernKind.INTERACTION_ASSERTION, _interaction_why(code))
            self.checks.append(_Check(node, names))
        elif method == "assertIsNotNone":
            self.checks.append(_Check(node, names, weak_why=_not_none_why(code)))
        elif method == "assertTrue" and node.args:
            self.checks.append(_Check(node, names, weak_why=_weakness(node.args[0].value, code)))
        elif method == "assertIsInstance":
            self.checks.append(_Check(node, names, type_only=True))
        else:
            self.checks.append(_Check(node, names))

    def on_attribute(self, node: cst.Attribute) -> None:
        attr = node.attr.value
        if (attr.startswith("_") and len(attr) > 1 and not attr.endswith("__")
                and attr not in _PUBLIC_UNDERSCORE_NAMES and not _is_self_or_super(node.value)):
            self.flag(node, ConcernKind.PRIVATE_ACCESS,
                      f"`{self.snippet(node)}` reaches into the private detail `{attr}`, so "
                      f"the test breaks when the implementation is reorganised even though "
                      f"callers see no difference; check the result through the public "
                      f"interface instead.")

    def on_try(self, node: cst.Try | cst.TryStar) -> None:
        if node.handlers and not all(_handler_reports(h) for h in node.handlers):
            self.flag(node, ConcernKind.TRY_EXCEPT_IN_TEST,
                      "a `try`/`except` in the test body can swallow the failure the test "
                      "should report: if the code stops raising, or the except catches the "
                      "wrong error, the test still passes; use `pytest.raises` (or "
                      "`self.assertRaises`) for errors the caller is meant to see.")

    def verdict(self, asserting_helpers: set[str]) -> Iterator[Concern]:
        checks = [c for c in self.checks if c.helper is None or c.helper in asserting_helpers]
        if self.assertions == 0 and not checks:
            yield Concern(
                self.path, self.source.line(self.node), self.name, ConcernKind.NO_ASSERTION,
                f"{self.name} runs the code but checks nothing about what it produces, so "
                f"it passes whatever the code returns and fails only if something raises; "
                f"assert on the output the caller gets, or else the final state they can "
                f"observe.")
        strong = [c for c in checks if c.weak_why is None and not c.type_only]
        strong_names = frozenset[str]().union(*(c.names for c in strong))
        for check in checks:
            if check.type_only and not strong:
                self.flag(check.node, ConcernKind.WEAK_ASSERTION,
                          f"`{self.snippet(check.node)}` checks only the type of the result, "
                          f"and nothing else in the test checks its value: any value of the "
                          f"right type passes, however wrong; compare the output with the "
                          f"value the caller should get.")
            # A guard such as `assert x is not None` before a real check on `x` is fine.
            elif check.weak_why is not None and not (check.names & strong_names):
                self.flag(check.node, ConcernKind.WEAK_ASSERTION, check.weak_why)
        yield from self.concerns


class _Scanner(cst.CSTVisitor):
    """One pass over a head file: each test's body, plus hazards anywhere (sleeps, randomness, imports)."""

    def __init__(self, path: str, source: _Source) -> None:
        super().__init__()
        self._path = path
        self._source = source
        self._tests = {t.node: t for t in source.tests}
        self._active: _Test | None = None
        self._done: list[_Test] = []
        self._scopes: list[str] = []  # "class" or "function", innermost last
        self._frames: list[_Function] = []  # enclosing functions, innermost last
        self._functions: list[_Function] = []
        self._random_modules = {"random"}  # local names bound to the random module
        self._random_names: set[str] = set()  # random functions imported by name
        self._random_calls: list[tuple[cst.Call, str | None]] = []
        self._seeded = False
        self._concerns: list[Concern] = []

    @classmethod
    def run(cls, path: str, source: _Source) -> _Scanner:
        scanner = cls(path, source)
        source.module.visit(scanner)
        return scanner

    def runtime_skips(self) -> list[_SkipMarker]:
        """``pytest.skip``/``pytest.xfail``/``self.skipTest`` calls met inside tests."""
        return [s for t in self._done for s in t.skips]

    @property
    def _test_name(self) -> str | None:
        return self._active.name if self._active is not None else None

    def verdict(self) -> list[Concern]:
        asserting = _asserting_helpers(self._functions)
        concerns = [c for t in self._done for c in t.verdict(asserting)]
        concerns.extend(self._concerns)
        if not self._seeded:
            concerns.extend(
                Concern(self._path, self._source.line(call), test, ConcernKind.UNSEEDED_RANDOMNESS,
                        f"`{_snippet(self._source.code(call))}` draws random values that are "
                        f"never seeded in this file, so a failure may not come back on the next "
                        f"run; seed it (`random.seed(...)` or `random.Random(seed)`) or use "
                        f"fixed inputs.")
                for call, test in self._random_calls)
        return concerns

    # scopes -------------------------------------------------------------------

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes.append("class")

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        in_class = bool(self._scopes) and self._scopes[-1] == "class"
        function = _Function(("self." if in_class else "") + node.name.value)
        self._frames.append(function)
        self._functions.append(function)
        self._scopes.append("function")

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._frames.pop()
        self._scopes.pop()

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        test = self._tests.get(node)
        if test is not None:
            self._active = _Test(self._path, self._source, test)

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        if node in self._tests and self._active is not None:
            self._done.append(self._active)
            self._active = None

    def _asserted(self) -> None:
        if self._active is not None:
            self._active.assertions += 1
        if self._frames:
            self._frames[-1].asserts = True

    # nodes --------------------------------------------------------------------

    def visit_Assert(self, node: cst.Assert) -> None:
        self._asserted()
        if self._active is not None:
            self._active.on_assert(node)

    def visit_Raise(self, node: cst.Raise) -> None:
        if node.exc is not None and _last_name(_callee(node.exc)) == "AssertionError":
            self._asserted()

    def visit_Call(self, node: cst.Call) -> None:
        name = _dotted(node.func) or ""
        last = _last_name(node.func)
        asserting = name in _ASSERTING_CALLS or _has_word_prefix(last, _ASSERTING_PREFIXES)
        helper = None
        if asserting:
            self._asserted()
        elif isinstance(node.func, cst.Name):
            helper = last
        elif isinstance(node.func, cst.Attribute) and _is_self_or_super(node.func.value):
            helper = "self." + last
        if helper is not None and self._frames:
            self._frames[-1].calls.add(helper)
        if self._active is not None:
            self._active.on_call(node, name, last, asserting, helper)
        self._note_hazards(node, name, last)

    def _note_hazards(self, node: cst.Call, name: str, last: str) -> None:
        parts = name.split(".")
        if last == "seed" or (last in _SEEDED_CONSTRUCTORS and node.args):
            self._seeded = True
        if (len(parts) >= 2 and parts[-2] in self._random_modules and last in _RANDOM_FUNCTIONS) \
                or (len(parts) == 1 and name in self._random_names):
            self._random_calls.append((node, self._test_name))
        if last == "sleep" and (len(parts) == 1 or parts[-2] in _SLEEP_MODULES) and not _sleeps_zero(node):
            self._concerns.append(Concern(
                self._path, self._source.line(node), self._test_name, ConcernKind.SLEEP,
                f"`{_snippet(self._source.code(node))}` makes the suite slower and the test "
                f"timing-dependent: it can fail on a loaded machine and hides what it is "
                f"waiting for; wait on the observable condition, or inject a clock."))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self._active is not None:
            self._active.on_attribute(node)

    def visit_Try(self, node: cst.Try) -> None:
        if self._active is not None:
            self._active.on_try(node)

    def visit_TryStar(self, node: cst.TryStar) -> None:
        if self._active is not None:
            self._active.on_try(node)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if _dotted(alias.name) == "random" and alias.asname is not None:
                local = _dotted(alias.asname.name)
                if local:
                    self._random_modules.add(local)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = _dotted(node.module) if node.module is not None else None
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = _dotted(alias.name) or ""
            local = _dotted(alias.asname.name) if alias.asname is not None else name
            if module == "random" and name in _RANDOM_FUNCTIONS and local:
                self._random_names.add(local)
            if (module is not None and not node.relative and module != "__future__"
                    and not module.startswith(("test", "conftest"))
                    and name.startswith("_") and not name.endswith("__")):
                self._concerns.append(Concern(
                    self._path, self._source.line(alias), self._test_name, ConcernKind.PRIVATE_ACCESS,
                    f"the test imports the private name `{name}` from `{module}`, so it breaks "
                    f"when the implementation is reorganised even though callers see no "
                    f"difference; test through the public interface instead."))


def _asserting_helpers(functions: Sequence[_Function]) -> set[str]:
    """Keys of the file's functions that assert, directly or through other local helpers."""
    asserting = {f.key for f in functions if f.asserts}
    changed = True
    while changed:
        changed = False
        for function in functions:
            if function.key not in asserting and function.calls & asserting:
                asserting.add(function.key)
                changed = True
    return asserting


# --------------------------------------------------------------------------- expression helpers


def _dotted(node: cst.CSTNode | None) -> str | None:
    """``a.b.c`` for a Name/Attribute chain; None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head is not None else None
    return None


def _last_name(node: cst.CSTNode) -> str:
    """``c`` for ``a.b.c`` and for ``make().c``; empty for anything that is not a name."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return ""


def _callee(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.func if isinstance(expr, cst.Call) else expr


class _CallCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def _mentions_mock_calls(expr: cst.CSTNode) -> bool:
    finder = _MockAttributeFinder()
    expr.visit(finder)
    return finder.found


class _MockAttributeFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in _MOCK_CALL_ATTRIBUTES:
            self.found = True


def _names(node: cst.CSTNode) -> frozenset[str]:
    """Root variable names an expression mentions (``result`` for ``result.items[0]``)."""
    finder = _NameFinder()
    node.visit(finder)
    return frozenset(finder.names - _BUILTIN_NAMES)


class _NameFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # the attribute name itself is not a variable
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # a keyword is not a variable
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        if isinstance(node.func, cst.Attribute):
            node.func.value.visit(self)  # `result.items()` is about `result`
        elif not isinstance(node.func, cst.Name):
            node.func.visit(self)  # but `chunks(xs)` is about `xs`, not `chunks`
        for arg in node.args:
            arg.visit(self)
        return False


def _is_boolean(expr: cst.BaseExpression) -> bool:
    """Obviously boolean: a comparison, ``not``, ``and``/``or``, a bool literal, a predicate call or name."""
    if isinstance(expr, (cst.Comparison, cst.BooleanOperation)):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        return True
    if isinstance(expr, cst.Name) and expr.value in {"True", "False"}:
        return True
    if isinstance(expr, cst.Call):
        last = _last_name(expr.func)
        return last in _BOOLEAN_CALLS or _is_predicate_name(last)
    if isinstance(expr, (cst.Name, cst.Attribute)):
        return _is_predicate_name(_last_name(expr))
    return False


def _is_predicate_name(name: str) -> bool:
    """``is*``/``has*`` (``isfile``, ``is_empty``, ``hasattr``), but not ``hash`` or ``issue``."""
    name = name.lstrip("_")
    return name.startswith(_BOOLEAN_PREFIXES) and not name.lower().startswith(tuple(_NOT_PREDICATES))


def _has_word_prefix(name: str, prefixes: tuple[str, ...]) -> bool:
    """``assert_x``, ``assertEqual``, ``check`` match "assert"/"check"; ``expected``, ``checkout`` do not."""
    for prefix in prefixes:
        if name.startswith(prefix):
            rest = name[len(prefix):]
            if not rest or rest[0] == "_" or rest[0].isupper():
                return True
    return False


def _weakness(expr: cst.BaseExpression, code: str) -> str | None:
    """Why asserting ``expr`` is weak, or None when it pins the value down."""
    if isinstance(expr, cst.Comparison):
        if _is_not_none(expr):
            return _not_none_why(code)
        if _is_nonempty_length(expr):
            return (f"`{code}` only checks that something came back, so a result with wrong, "
                    f"missing or extra items still passes; compare it with the items the "
                    f"caller should get.")
        return None
    if _is_boolean(expr):
        return None
    return (f"`{code}` only checks that the value is truthy, so any non-empty or non-zero "
            f"result passes, right or wrong; compare the output with the value the caller "
            f"should get.")


def _not_none_why(code: str) -> str:
    return (f"`{code}` only checks that something came back, not what: any wrong value "
            f"passes; compare the output with the value the caller should get.")


def _interaction_why(code: str) -> str:
    return (f"`{code}` checks how a dependency was called rather than what the code produced, "
            f"so a correct refactor can fail it while a wrong result passes; assert on the "
            f"output or final state, and keep call checks for boundaries the code does not own "
            f"(network, email, other processes).")


def _is_not_none(expr: cst.Comparison) -> bool:
    return (len(expr.comparisons) == 1 and isinstance(expr.comparisons[0].operator, cst.IsNot)
            and _is_name(expr.comparisons[0].comparator, "None"))


def _is_nonempty_length(expr: cst.Comparison) -> bool:
    """``len(x) > 0``, ``len(x) >= 1``, ``len(x) != 0`` and their mirrored forms."""
    if len(expr.comparisons) != 1:
        return False
    op = expr.comparisons[0].operator
    left, right = expr.left, expr.comparisons[0].comparator
    if _is_len(left):
        return ((isinstance(op, (cst.GreaterThan, cst.NotEqual)) and _is_int(right, 0))
                or (isinstance(op, cst.GreaterThanEqual) and _is_int(right, 1)))
    if _is_len(right):
        return ((isinstance(op, (cst.LessThan, cst.NotEqual)) and _is_int(left, 0))
                or (isinstance(op, cst.LessThanEqual) and _is_int(left, 1)))
    return False


def _is_len(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Call) and _is_name(expr.func, "len")


def _is_int(expr: cst.BaseExpression, value: int) -> bool:
    return isinstance(expr, cst.Integer) and expr.evaluated_value == value


def _is_name(expr: cst.BaseExpression, value: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == value


def _is_self_or_super(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Name):
        return expr.value in {"self", "cls"}
    return isinstance(expr, cst.Call) and _is_name(expr.func, "super")


def _is_broad_raises(call: cst.Call) -> bool:
    """``pytest.raises(Exception)`` and the like, unless a ``match=`` narrows it by message."""
    if any(_is_keyword(arg, "match") for arg in call.args):
        return False
    expected = next((a.value for a in call.args if _is_keyword(a, "expected_exception")), None)
    if expected is None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        expected = positional[0].value if positional else None
    if expected is None:
        return False
    candidates = [e.value for e in expected.elements] if isinstance(expected, cst.Tuple) else [expected]
    return any(_last_name(c) in _BROAD_EXCEPTIONS for c in candidates)


def _is_keyword(arg: cst.Arg, keyword: str) -> bool:
    return arg.keyword is not None and arg.keyword.value == keyword


def _handler_reports(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    """An except handler that re-raises, fails or skips cannot swallow a failure."""
    finder = _ReportFinder()
    handler.body.visit(finder)
    return finder.found


class _ReportFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def visit_Raise(self, node: cst.Raise) -> None:
        self.found = True

    def visit_Call(self, node: cst.Call) -> None:
        name = _dotted(node.func) or ""
        if name in _FAILING_CALLS or name in _RUNTIME_SKIPS:
            self.found = True


def _sleeps_zero(call: cst.Call) -> bool:
    """``asyncio.sleep(0)`` yields control; it does not wait."""
    if len(call.args) != 1:
        return False
    value = call.args[0].value
    return isinstance(value, (cst.Integer, cst.Float)) and value.evaluated_value == 0


# --------------------------------------------------------------------------- small helpers


def _snippet(code: str) -> str:
    flat = re.sub(r"\s+", " ", code).strip()
    return flat if len(flat) <= _SNIPPET_LIMIT else flat[: _SNIPPET_LIMIT - 1] + "…"


def _split_nodeid(nodeid: str) -> tuple[str, str | None]:
    path, sep, test = nodeid.partition("::")
    return path, (test if sep and test else None)


def _who(test: str | None, path: str) -> str:
    return test if test is not None else f"the tests in {path}"


def _ordered(concerns: Iterable[Concern]) -> tuple[Concern, ...]:
    """Sort by (path, line, kind), keeping one concern per test, line and kind (the first in source order)."""
    unique: dict[tuple[str, int, str | None, str], Concern] = {}
    for concern in concerns:
        unique.setdefault((concern.path, concern.line, concern.test, concern.kind), concern)
    return tuple(sorted(unique.values(),
                        key=lambda c: (c.path, c.line, c.kind, c.test or "", c.why)))
