"""What an expression in a test says: dotted names, the variables it is about, and how much an assertion pins down.

The libcst helpers every reader of test files shares: names of callees, mock call attributes, the
root variables of an expression, obviously boolean expressions, weak assertion forms (truthiness,
``is not None``, non-empty length), broad ``pytest.raises``, except handlers that report, and
``sleep(0)``. They know nothing of tests or concerns.
"""

from __future__ import annotations

import libcst as cst

from elenchus.analysis.weakening.syntax import _dotted, _last as _last_name

# Mock attributes that observe how a dependency was called.
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

_BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException"})

_RUNTIME_SKIPS = {"pytest.skip": "pytest.skip", "pytest.xfail": "pytest.xfail",
                  "self.skipTest": "self.skipTest"}
_FAILING_CALLS = frozenset({"pytest.fail", "self.fail", "fail"})


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
