"""The scan: one pass over a Head test file, each test's assertions judged and hazards anywhere noted.

``_Scanner`` visits the file once; each test's body becomes a ``_Test`` that records its checks
(missing, weak, type-only, interaction assertions), private access, broad raises, swallowing
``try``/``except`` and runtime skips, while the file's sleeps, unseeded randomness and private
imports are noted wherever they are. Local helpers count as assertions when they assert.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from elenchus.analysis.quality.concerns import Concern, ConcernKind, _snippet
from elenchus.analysis.weakening.syntax import _callee, _dotted, _last as _last_name
from elenchus.analysis.quality.expressions import (
    _RUNTIME_SKIPS,
    _handler_reports,
    _has_word_prefix,
    _interaction_why,
    _is_broad_raises,
    _is_name,
    _is_self_or_super,
    _mentions_mock_calls,
    _names,
    _not_none_why,
    _sleeps_zero,
    _weakness,
)
from elenchus.analysis.quality.parsing import _SkipMarker, _Source, _TestDef

# Callee names (last dotted component) that check something, for "has an assertion".
_ASSERTING_PREFIXES = ("assert", "check", "verify", "validate", "expect")
_ASSERTING_CALLS = frozenset({
    "pytest.raises", "pytest.warns", "pytest.deprecated_call", "pytest.fail",
    "raises", "warns", "self.fail",
})

# Mock methods that observe how a dependency was called.
_MOCK_ASSERT_METHODS = frozenset({
    "assert_called", "assert_called_once", "assert_called_with", "assert_called_once_with",
    "assert_has_calls", "assert_any_call", "assert_not_called",
    "assert_awaited", "assert_awaited_once", "assert_awaited_with",
    "assert_awaited_once_with", "assert_has_awaits", "assert_any_await", "assert_not_awaited",
})

# The namedtuple API is public despite its underscore.
_PUBLIC_UNDERSCORE_NAMES = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})

_RANDOM_FUNCTIONS = frozenset({
    "random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform",
    "gauss", "getrandbits", "rand", "randn", "permutation", "normal",
})
_SEEDED_CONSTRUCTORS = frozenset({"Random", "RandomState", "default_rng"})
_SLEEP_MODULES = frozenset({"time", "asyncio", "trio", "anyio", "gevent"})

_RAISES_CALLS = frozenset({"pytest.raises", "raises", "self.assertRaises"})


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
