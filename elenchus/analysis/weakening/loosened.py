"""loosened-assertion: a test that now checks less than it did.

Each assertion is ranked by how much it pins down (``_Strength``), Base and Head checks are
paired, and a Head check is evidence when it is weaker: a weaker form, a wider tolerance or error
type, a moved bound, an expected value changed while no code the test calls changed, an expected
value derived from the result, or a check removed. The hardcoded-special-case detector reads the
Head tests' checks through ``_checks``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from elenchus.analysis.weakening.change import _TestOwners
from elenchus.analysis.weakening.evidence import Evidence, EvidenceKind
from elenchus.analysis.weakening.source import _Pair, _Source, _is_fixture
from elenchus.analysis.weakening.syntax import (_NO_VALUE, _dotted, _is_literal, _last, _literal, _names_called,
                                                _names_read, _one_line, _snippet)


# --------------------------------------------------------------------------- loosened-assertion


@dataclass(frozen=True, slots=True)
class _Strength:
    rank: int
    form: str


_TAUTOLOGY = _Strength(0, "a check that always passes")
_TRUTHY = _Strength(2, "a truthiness check")
_FALSY = _Strength(2, "a falsiness check")
_NOT_NONE = _Strength(2, "a not-None check")
_NON_EMPTY = _Strength(2, "a non-empty check")
_TYPE = _Strength(4, "a type check")
_PREDICATE = _Strength(5, "a predicate check")
_CALLED = _Strength(5, "a check that a mock was called")
_RELATIONAL = _Strength(6, "a relational comparison")
_MEMBERSHIP = _Strength(6, "a membership check")
_CHECK = _Strength(6, "a check")
_APPROX = _Strength(7, "an approximate comparison")
_EXACT = _Strength(8, "an exact comparison")
_RAISES = _Strength(8, "a check for a specific error")

_DEFAULT_APPROX = (1e-6, 1e-12)  # pytest.approx's default (rel, abs)

_EXACT_METHODS = frozenset({
    "assertEqual", "assertEquals", "failUnlessEqual", "assertListEqual", "assertTupleEqual",
    "assertDictEqual", "assertSetEqual", "assertSequenceEqual", "assertMultiLineEqual", "assertIs",
    "assertIsNone", "assert_called_once_with", "assert_called_with", "assert_awaited_once_with",
    "assert_awaited_with", "assert_array_equal", "assert_frame_equal", "assert_series_equal",
    "assert_equal",
})
_APPROX_METHODS = frozenset({"assertAlmostEqual", "assertAlmostEquals", "assert_allclose",
                             "assert_almost_equal", "assert_array_almost_equal"})
_RELATIONAL_METHODS = frozenset({
    "assertNotEqual", "assertNotEquals", "assertIsNot", "assertGreater", "assertGreaterEqual",
    "assertLess", "assertLessEqual", "assertNotIn", "assertNotAlmostEqual", "assertNotRegex",
    "assertCountEqual", "assertNotIsInstance",
})
_MEMBERSHIP_METHODS = frozenset({"assertIn", "assertRegex", "assertRegexpMatches", "assertDictContainsSubset"})
_CALLED_METHODS = frozenset({"assert_called", "assert_called_once", "assert_any_call", "assert_has_calls",
                             "assert_awaited", "assert_awaited_once", "assert_any_await", "assert_has_awaits"})
_RAISES_CALLS = frozenset({"pytest.raises", "raises", "self.assertRaises", "self.assertRaisesRegex",
                           "self.assertRaisesRegexp", "assertRaises", "assertRaisesRegex"})
_BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException"})
_ORDER_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_OPERATORS = {cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
              cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.In: "in", cst.NotIn: "not in",
              cst.Is: "is", cst.IsNot: "is not"}


@dataclass(frozen=True, slots=True)
class _Check:
    """One assertion in a test, and how much it pins down."""

    node: cst.CSTNode
    shape: tuple
    strength: _Strength
    subject: tuple | None = None  # shape of what is checked (``discount(200, 10)``)
    subject_node: cst.CSTNode | None = None
    op: str | None = None
    expected: object = _NO_VALUE  # the literal it is compared with
    tolerance: tuple[float, float] | None = None  # (rel, abs) for approximate comparisons
    exceptions: frozenset[str] | None = None  # for raises checks
    match: bool = False  # a raises check that also matches the message
    sides: tuple[cst.CSTNode, cst.CSTNode] | None = None  # both sides of an equality, as written
    # The expected side and the checked side as written (``len(parts)``, where ``subject`` is ``parts``):
    # the wording quotes their source, not only the value.
    expected_node: cst.CSTNode | None = None
    written_node: cst.CSTNode | None = None


class _CheckFinder(cst.CSTVisitor):
    """The assertions in one test body, in source order.

    ``helpers`` maps the names of local helper functions that assert (``check``,
    ``self.check``) to the strength of their strongest check: calling one counts
    as making that check on its first argument.
    """

    def __init__(self, source: _Source, helpers: Mapping[str, _Strength] | None = None) -> None:
        super().__init__()
        self.source = source
        self.helpers = helpers or {}
        self.checks: list[_Check] = []

    def visit_Assert(self, node: cst.Assert) -> bool:
        self.checks.append(self._judge(node, node.test))
        return False  # calls inside an assert statement are part of it

    def visit_Call(self, node: cst.Call) -> None:
        name = _dotted(node.func) or ""
        last = _last(node.func)
        if name in _RAISES_CALLS or last in ("assertRaises", "assertRaisesRegex"):
            self.checks.append(self._raises(node, last))
        elif last.startswith("assert") or last in ("fail", "failIf") or last.startswith("failUnless"):
            self.checks.append(self._method(node, last))
        elif name in self.helpers:
            self.checks.append(self._check(node, self.helpers[name], node.args[0].value if node.args else None))

    # ---------------------------------------------------------------- judges

    def _check(self, node: cst.CSTNode, strength: _Strength, subject: cst.CSTNode | None = None,
               **extra: object) -> _Check:
        written = subject
        subject = _unwrap_len(subject) if subject is not None else None
        extra.setdefault("written_node", written)
        return _Check(node, self.source.shape(node), strength,
                      self.source.shape(subject) if subject is not None else None, subject,
                      **extra)  # type: ignore[arg-type]

    def _judge(self, node: cst.CSTNode, expr: cst.BaseExpression) -> _Check:
        strength, subject, extra = _judge_expression(expr)
        return self._check(node, strength, subject, **extra)

    def _raises(self, node: cst.Call, last: str) -> _Check:
        args = [a for a in node.args if a.keyword is None]
        names: set[str] = set()
        if args:
            first = args[0].value
            elements = [e.value for e in first.elements] if isinstance(first, cst.Tuple) else [first]
            names = {_last(e) or "?" for e in elements}
        match = any(a.keyword is not None and a.keyword.value in ("match", "expected_regex") for a in node.args)
        match = match or last.endswith("Regex") or last.endswith("Regexp")
        return _Check(node, self.source.shape(node), _RAISES, ("raises",), None, "raises",
                      exceptions=frozenset(names), match=match)

    def _method(self, node: cst.Call, last: str) -> _Check:
        args = [a.value for a in node.args if a.keyword is None]
        first = args[0] if args else None
        if last in ("assertTrue", "assert_", "failUnless") and first is not None:
            return self._judge(node, first)
        if last in ("assertFalse", "failIf") and first is not None:
            strength, subject, extra = _judge_expression(first)
            if strength is _TAUTOLOGY or strength.rank <= 2:
                return self._check(node, _FALSY, subject)
            return self._check(node, _RELATIONAL, subject)
        if last == "assertIsNotNone":
            return self._check(node, _NOT_NONE, first)
        if last == "assertIsInstance":
            return self._check(node, _TYPE, first)
        if last in _CALLED_METHODS:
            return self._check(node, _CALLED, _mock_of(node))
        subject, expected = _split_sides(args[0] if args else None, args[1] if len(args) > 1 else None)
        if last == "assertIsNone":
            return self._check(node, _EXACT, first, op="==", expected=None)
        if last in ("assert_called_once_with", "assert_called_with", "assert_awaited_once_with",
                    "assert_awaited_with"):
            return self._check(node, _EXACT, _mock_of(node))
        if last in _EXACT_METHODS:
            return self._check(node, _EXACT, subject, op="==", expected=_literal(expected),
                               sides=(args[0], args[1]) if len(args) > 1 else None, expected_node=expected)
        if last in _APPROX_METHODS:
            return self._check(node, _APPROX, subject, op="approx", expected=_literal(expected),
                               tolerance=_almost_equal_tolerance(node, last), expected_node=expected,
                               sides=(args[0], args[1]) if len(args) > 1 else None)
        if last in _RELATIONAL_METHODS:
            op = {"assertGreater": ">", "assertGreaterEqual": ">=", "assertLess": "<",
                  "assertLessEqual": "<="}.get(last)
            if op is not None and len(args) > 1 and _is_literal(args[0]) and not _is_literal(args[1]):
                op = _ORDER_FLIP[op]
            return self._check(node, _RELATIONAL, subject, op=op, expected=_literal(expected))
        if last in _MEMBERSHIP_METHODS:
            return self._check(node, _MEMBERSHIP, args[1] if len(args) > 1 else first)
        if last.startswith("fail"):
            return self._check(node, _EXACT)
        return self._check(node, _CHECK, first)


def _mock_of(call: cst.Call) -> cst.CSTNode | None:
    return call.func.value if isinstance(call.func, cst.Attribute) else None


def _unwrap_len(node: cst.CSTNode) -> cst.CSTNode:
    """``len(x)`` is about ``x``."""
    if isinstance(node, cst.Call) and _dotted(node.func) == "len" and len(node.args) == 1:
        return node.args[0].value
    return node


def _split_sides(left: cst.CSTNode | None, right: cst.CSTNode | None) -> tuple[cst.CSTNode | None, cst.CSTNode | None]:
    """(subject, expected): the expected side is the literal one, else the right-hand one."""
    if left is not None and _is_expected_side(left) and not (right is not None and _is_expected_side(right)):
        return right, left
    return left, right


def _is_expected_side(node: cst.CSTNode) -> bool:
    return _is_literal(node) or _approx_call(node) is not None


def _approx_call(node: cst.CSTNode | None) -> cst.Call | None:
    if isinstance(node, cst.Call) and _last(node.func) == "approx":
        return node
    return None


def _number(node: cst.CSTNode | None) -> float | None:
    value = _literal(node)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _approx_tolerance(call: cst.Call) -> tuple[float, float] | None:
    """(rel, abs) of ``pytest.approx(expected, rel=None, abs=None)``; None when not literal numbers."""
    rel, absolute = _DEFAULT_APPROX
    positional = [a for a in call.args if a.keyword is None][1:]
    named = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    values = dict(zip(("rel", "abs"), (a.value for a in positional)))
    values.update({k: v for k, v in named.items() if k in ("rel", "abs")})
    if "rel" in values:
        rel = _number(values["rel"])  # type: ignore[assignment]
    if "abs" in values:
        absolute = _number(values["abs"])  # type: ignore[assignment]
    if rel is None or absolute is None:
        return None
    return rel, absolute


def _almost_equal_tolerance(call: cst.Call, method: str) -> tuple[float, float] | None:
    named = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    positional = [a.value for a in call.args if a.keyword is None]
    if method in ("assert_allclose",):
        rel = _number(named.get("rtol")) if "rtol" in named else 1e-7
        absolute = _number(named.get("atol")) if "atol" in named else 0.0
        return (rel, absolute) if rel is not None and absolute is not None else None
    if "delta" in named:
        delta = _number(named["delta"])
        return (0.0, delta) if delta is not None else None
    places_node = named.get("places", named.get("decimal", positional[2] if len(positional) > 2 else None))
    places = _number(places_node) if places_node is not None else 7.0
    return (0.0, 0.5 * 10 ** -places) if places is not None else None


def _judge_expression(expr: cst.BaseExpression) -> tuple[_Strength, cst.CSTNode | None, dict]:
    """How strong ``assert <expr>`` is, what it is about, and the expected side of a comparison."""
    if _is_literal(expr):
        value = _literal(expr)
        return (_TAUTOLOGY if value else _EXACT), None, {}  # `assert False` fails by design
    if isinstance(expr, cst.BooleanOperation):
        parts = []
        node: cst.BaseExpression = expr
        operator = type(expr.operator)
        while isinstance(node, cst.BooleanOperation) and isinstance(node.operator, operator):
            parts.append(node.right)
            node = node.left
        parts.append(node)
        judged = [_judge_expression(p) for p in reversed(parts)]
        if operator is cst.And:
            best = max(judged, key=lambda j: j[0].rank)
            return best
        weakest = min(judged, key=lambda j: j[0].rank)
        if weakest[0].rank == 0:
            return _TAUTOLOGY, weakest[1], {}
        rank = max(weakest[0].rank - 1, 0)
        return _Strength(rank, "a disjunction that passes when either side holds"), weakest[1], {}
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        inner = expr.expression
        if isinstance(inner, cst.Comparison):
            strength, subject, _ = _judge_expression(inner)
            return (_RELATIONAL if strength.rank >= _RELATIONAL.rank else strength), subject, {}
        return _FALSY, inner, {}
    if isinstance(expr, cst.Comparison):
        return _judge_comparison(expr)
    if isinstance(expr, cst.Call):
        name = _dotted(expr.func) or ""
        args = [a.value for a in expr.args]
        if name == "isinstance":
            return _TYPE, args[0] if args else None, {}
        if name == "len":
            return _NON_EMPTY, args[0] if args else None, {}
        if name == "bool":
            return _TRUTHY, args[0] if args else None, {}
        return _PREDICATE, expr, {}
    return _TRUTHY, expr, {}


def _is_bool_call(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and _dotted(node.func) == "bool" and len(node.args) == 1 \
        and node.args[0].keyword is None and node.args[0].star == ""


def _judge_comparison(expr: cst.Comparison) -> tuple[_Strength, cst.CSTNode | None, dict]:
    if len(expr.comparisons) > 1:  # 0 < x < 10
        ops = {_OPERATORS.get(type(c.operator)) for c in expr.comparisons}
        strength = _EXACT if ops <= {"==", "is"} else _RELATIONAL
        return strength, expr.comparisons[0].comparator, {}
    target = expr.comparisons[0]
    op = _OPERATORS.get(type(target.operator), "?")
    left, right = expr.left, target.comparator
    subject, expected = _split_sides(left, right)
    if subject is right and op in _ORDER_FLIP:
        op = _ORDER_FLIP[op]
    assert subject is not None and expected is not None
    value = _literal(expected)
    if isinstance(value, bool) and op in ("==", "is", "!=", "is not") and _is_bool_call(subject):
        # ``bool(m) is True`` pins down no more than ``assert m``: the call makes any value a bool.
        holds = value == (op in ("==", "is"))
        return (_TRUTHY if holds else _FALSY), subject.args[0].value, {}
    extra: dict[str, object] = {"op": op, "expected": value, "expected_node": expected}
    if op in ("==", "is"):
        if _dotted(expected) in ("ANY", "mock.ANY", "unittest.mock.ANY") or \
                _dotted(subject) in ("ANY", "mock.ANY", "unittest.mock.ANY"):
            return _TAUTOLOGY, subject, {}
        approx = _approx_call(expected)
        if approx is not None:
            args = [a for a in approx.args if a.keyword is None]
            tolerance = _approx_tolerance(approx)
            explicit = len(args) > 1 or any(a.keyword is not None and a.keyword.value in ("rel", "abs")
                                            for a in approx.args)
            extra = {"op": "approx", "expected": _literal(args[0].value) if args else _NO_VALUE,
                     "tolerance": tolerance, "sides": (left, right), "expected_node": expected}
            return (_APPROX if explicit else _EXACT), subject, extra
        return _EXACT, subject, {**extra, "sides": (left, right)}
    if op in ("!=", "is not"):
        if value is None:
            return _NOT_NONE, subject, {}
        if _is_empty(value) or (value == 0 and _is_len(subject)):
            return _NON_EMPTY, subject, {}
        return _RELATIONAL, subject, extra
    if op in (">", ">=") and _is_len(subject) and value in ((0,) if op == ">" else (1,)):
        return _NON_EMPTY, subject, {}
    if op == "in":
        return _MEMBERSHIP, subject, extra
    return _RELATIONAL, subject, extra


def _is_len(node: cst.CSTNode | None) -> bool:
    return isinstance(node, cst.Call) and _dotted(node.func) == "len"


def _is_empty(value: object) -> bool:
    return isinstance(value, (str, bytes, tuple, frozenset)) and len(value) == 0


def _checks(source: _Source, test: cst.FunctionDef, helpers: Mapping[str, _Strength] | None = None) -> list[_Check]:
    finder = _CheckFinder(source, helpers)
    test.body.visit(finder)
    return finder.checks


def _asserting_helpers(source: _Source) -> dict[str, _Strength]:
    """Local non-test functions that assert, by the name a test calls them with, and their strongest check."""
    tests = set(map(id, source.tests.values()))
    helpers: dict[str, _Strength] = {}
    for qualname, function in source.functions.items():
        if id(function) in tests or _is_fixture(function):
            continue
        checks = _checks(source, function)
        if checks:
            name = qualname if "." not in qualname else "self." + qualname.rsplit(".", 1)[-1]
            helpers[name] = max((c.strength for c in checks), key=lambda strength: strength.rank)
    return helpers


def _pair_checks(base: list[_Check], head: list[_Check]) -> tuple[list[tuple[_Check, _Check]], list[_Check],
                                                                   list[_Check]]:
    """Pair Base checks with Head checks: unchanged ones first, then by subject, then in order.

    Returns the changed pairs, the Base checks left without a Head counterpart and
    the Head checks left without a Base one.
    """
    unchanged = Counter(c.shape for c in head)
    kept = Counter(c.shape for c in base) & unchanged
    drop = Counter(kept)
    base_left = []
    for check in base:
        if drop[check.shape] > 0:
            drop[check.shape] -= 1
        else:
            base_left.append(check)
    drop = Counter(kept)
    head_left = []
    for check in head:
        if drop[check.shape] > 0:
            drop[check.shape] -= 1
        else:
            head_left.append(check)
    pairs: list[tuple[_Check, _Check]] = []
    unpaired: list[_Check] = []
    for check in base_left:
        match = next((h for h in head_left if check.subject is not None and h.subject == check.subject), None)
        if match is not None:
            head_left.remove(match)
            pairs.append((check, match))
        else:
            unpaired.append(check)
    removed = []
    for check in unpaired:
        if head_left:
            pairs.append((check, head_left.pop(0)))
        else:
            removed.append(check)
    return pairs, removed, head_left


def _loosened_assertions(pair: _Pair, owners: _TestOwners, repaired: frozenset[str]) -> Iterator[Evidence]:
    if pair.file.kind != "test" or pair.head is None:
        return
    base_source = pair.base
    base_helpers = _asserting_helpers(base_source) if base_source is not None else {}
    head_helpers = _asserting_helpers(pair.head)
    for name, head_test in pair.head.tests.items():
        base_key = owners.head_to_base.get((pair.path, name))
        if base_key is None or base_key[0] != pair.path or base_source is None:
            continue  # a new test (or one moved from another file) weakens nothing here
        base_test = base_source.tests[base_key[1]]
        base_checks = _checks(base_source, base_test, base_helpers)
        head_checks = _checks(pair.head, head_test, head_helpers)
        pairs, removed, added = _pair_checks(base_checks, head_checks)
        base_locals, head_locals = _local_values(base_test), _local_values(head_test)
        had_independent = any(_independent(b, base_source, base_locals) for b in (*(b for b, _ in pairs), *removed))
        for after in added:
            derived = _derivation(after, pair.head, head_locals)
            if derived is not None and had_independent:
                yield _derived_evidence(pair, name, None, after, derived)
        honest = bool(_names_called(head_test.body) & repaired)
        for before, after in pairs:
            derived = _derivation(after, pair.head, head_locals)
            if derived is not None and _independent(before, base_source, base_locals):
                yield _derived_evidence(pair, name, before, after, derived)
                continue
            detail = _weaker(before, after, base_source, pair.head, honest)
            if detail is not None:
                yield Evidence(EvidenceKind.LOOSENED_ASSERTION, pair.path, pair.head.line(after.node), name,
                               base_source.code(before.node), pair.head.code(after.node), detail)
        for before in removed:
            yield Evidence(EvidenceKind.LOOSENED_ASSERTION, pair.path, base_source.line(before.node), name,
                           base_source.code(before.node), None,
                           f"the assertion `{_snippet(base_source.code(before.node))}` was removed from "
                           f"{name}, which now makes {len(head_checks)} check(s) instead of "
                           f"{len(base_checks)}.")


def _weaker(before: _Check, after: _Check, base: _Source, head: _Source, honest: bool = False) -> str | None:
    """A sentence saying how ``after`` checks less than ``before``, or None when it does not.

    ``honest``: the test calls code the change repaired, so a new expected value
    in an equally strong comparison is a correction, not a loosening.
    """
    about = ""
    if after.subject_node is not None:
        about = f" on `{_snippet(head.code(after.subject_node), 50)}`"
    elif before.subject_node is not None:
        about = f" on `{_snippet(base.code(before.subject_node), 50)}`"
    if after.strength.rank < before.strength.rank:
        return (f"the assertion{about} was loosened from {before.strength.form} to "
                f"{after.strength.form}, so values it used to reject now pass.")
    if after.strength.rank > before.strength.rank:
        return None
    if before.op == after.op == "raises":
        assert before.exceptions is not None and after.exceptions is not None
        broader = (after.exceptions & _BROAD_EXCEPTIONS) - before.exceptions or after.exceptions > before.exceptions
        if broader:
            return (f"the expected error was widened from {_names(before.exceptions)} to "
                    f"{_names(after.exceptions)}, so any error of the wider kind now passes the test.")
        if before.match and not after.match and before.exceptions == after.exceptions:
            return ("the check on the error no longer matches its message, so the same error type "
                    "raised for a different reason now passes the test.")
        return None
    if before.subject != after.subject or before.op != after.op:
        return None
    if before.tolerance is not None and after.tolerance is not None:
        if any(a > b for a, b in zip(after.tolerance, before.tolerance)):
            return (f"the tolerance of the approximate comparison{about} was widened, so values "
                    f"further from the expected one now pass.")
    old, new = before.expected, after.expected
    if old is _NO_VALUE or new is _NO_VALUE or old == new:
        return None
    if before.op in ("==", "is", "approx"):
        if honest and before.strength is after.strength:
            return None
        consequence = "the test now expects what the code returns instead of the value it checked before."
        if not _same_shape(base, before.written_node, head, after.written_node):  # ``parts`` -> ``len(parts)``
            if _is_len(after.written_node) and not _is_len(before.written_node):
                checked = _snippet(head.code(after.subject_node), 40)  # type: ignore[arg-type]
                consequence = f"only the length of `{checked}` is checked now, so any result of that length passes."
            return (f"the assertion{about} was changed from `{_snippet(_compared(base, before), 60)}` to "
                    f"`{_snippet(_compared(head, after), 60)}`: {consequence}")
        return (f"the expected value in the assertion{about} was changed from {_shown(base, before, old)} to "
                f"{_shown(head, after, new)}: {consequence}")
    if before.op in ("<", "<=", ">", ">=") and isinstance(old, (int, float)) and isinstance(new, (int, float)):
        looser = new > old if before.op in ("<", "<=") else new < old
        if looser:
            return (f"the bound in the assertion{about} was moved from {old!r} to {new!r}, so "
                    f"values it used to reject now pass.")
    if before.op == "in" and isinstance(old, (tuple, frozenset)) and isinstance(new, (tuple, frozenset)):
        if set(new) > set(old):
            return (f"the accepted values in the assertion{about} were widened from {old!r} to "
                    f"{new!r}.")
    return None


def _same_shape(base: _Source, old: cst.CSTNode | None, head: _Source, new: cst.CSTNode | None) -> bool:
    if old is None or new is None:
        return old is new
    return base.shape(old) == head.shape(new)


def _compared(source: _Source, check: _Check) -> str:
    """The comparison a check makes, as written: ``len(parts) == 3``, ``self.assertEqual(a, b)``."""
    node = check.node.test if isinstance(check.node, cst.Assert) else check.node
    return _one_line(source.code(node))


def _shown(source: _Source, check: _Check, value: object) -> str:
    """An expected value as the test writes it: a literal's own text (``[1, 2]``, never the tuple the value is
    read as), any other expression quoted whole (```pytest.approx(0.5)```)."""
    node = check.expected_node
    if node is None:
        return repr(value)
    text = _snippet(_one_line(source.code(node)), 60)
    return text if _is_literal(node) else f"`{text}`"


def _names(exceptions: frozenset[str]) -> str:
    return " or ".join(f"`{n}`" for n in sorted(exceptions))


def _local_values(test: cst.FunctionDef) -> dict[str, list[cst.CSTNode]]:
    """Local name -> the values a test assigns to it (``expected = EXPECTED[:len(result)]``)."""
    found: dict[str, list[cst.CSTNode]] = {}

    class Finder(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    found.setdefault(target.target.value, []).append(node.value)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if isinstance(node.target, cst.Name) and node.value is not None:
                found.setdefault(node.target.value, []).append(node.value)

    test.body.visit(Finder())
    return found


@dataclass(frozen=True, slots=True)
class _Derived:
    """An equality whose expected side is computed from the result it checks."""

    result: cst.CSTNode
    expected: cst.CSTNode  # the computed expression (a local's value when the expected side names one)
    form: str  # "itself", "prefix", "cut", "filter" or "other"
    via: tuple[tuple[str, cst.CSTNode], ...] = ()  # locals the expression reads that hold the result's part


def _independent(check: _Check, source: _Source, local_values: Mapping[str, list[cst.CSTNode]]) -> bool:
    """An exact or approximate comparison against a value not computed from the result."""
    return (check.op in ("==", "is", "approx") and check.strength.rank >= _APPROX.rank
            and _derivation(check, source, local_values) is None)


def _derivation(check: _Check, source: _Source, local_values: Mapping[str, list[cst.CSTNode]]) -> _Derived | None:
    """How the expected side of an equality is derived from its result side, or None when it is independent.

    Either side may be the result: the other is derived from it when it contains
    it (by shape), directly or through locals assigned in the test (``n =
    len(result)`` read by ``expected[:n]``), inside a wrapping call too
    (``pytest.approx(expected[:len(result)])``, ``sorted(expected)``). A result
    wrapped in a conversion (``sorted(result)``, ``set(result)``) counts as the
    value it wraps; other calls do not (``total(cart) == cart.price * 2`` is an
    independent expectation).
    """
    if check.sides is None:
        return None
    left, right = check.sides
    if source.shape(left) == source.shape(right):
        return _Derived(left, right, "itself")
    for result, expected in ((left, right), (right, left)):
        if _is_literal(result) or _is_literal(expected):
            continue
        expected = _without_approx(expected)
        if source.shape(expected) == source.shape(result):  # ``result == pytest.approx(result)``
            return _Derived(result, expected, "itself")
        for inner in _unwrapped(result):
            target = source.shape(inner)
            reached = _reaching(source, expected, target, local_values)
            if reached is not None:
                node, via = reached
                return _Derived(inner, node, _derived_form(source, node, target, via), via)
    return None


def _without_approx(node: cst.CSTNode) -> cst.CSTNode:
    """The expected value an ``approx(...)`` wraps: the tolerance is not part of what is expected."""
    while (call := _approx_call(node)) is not None and call.args and call.args[0].keyword is None \
            and not call.args[0].star:
        node = call.args[0].value
    return node


def _reaching(source: _Source, node: cst.CSTNode, target: tuple, local_values: Mapping[str, list[cst.CSTNode]],
              seen: frozenset[str] = frozenset()) -> tuple[cst.CSTNode, tuple[tuple[str, cst.CSTNode], ...]] | None:
    """(the expression to quote, the locals it reads on the way) when ``node`` is computed from ``target``.

    A name the expected side is (or wraps in a conversion: ``sorted(expected)``) is quoted by its value; any
    other local it reads that holds the result's part is named beside it (``expected[:n]``, ``n = len(result)``).
    """
    if source.contains(node, target):
        return node, ()
    core = node
    for core in _unwrapped(node):
        pass
    if isinstance(core, cst.Name) and core.value in local_values and core.value not in seen:
        for value in local_values[core.value]:
            reached = _reaching(source, value, target, local_values, seen | {core.value})
            if reached is not None:
                return reached
    for name in sorted(_names_read(node, bare=True) & set(local_values) - seen):
        for value in local_values[name]:
            if _reaching(source, value, target, local_values, seen | {name}) is not None:
                return node, ((name, value),)
    return None


_CONVERSIONS = frozenset({"sorted", "set", "frozenset", "list", "tuple", "dict", "str", "len", "Counter",
                          "collections.Counter"})


def _unwrapped(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A result and, through conversions of one positional argument, the values it wraps."""
    yield node
    while isinstance(node, cst.Call) and _dotted(node.func) in _CONVERSIONS and node.args \
            and node.args[0].keyword is None and not node.args[0].star:
        node = node.args[0].value
        yield node


def _derived_form(source: _Source, expected: cst.CSTNode, result: tuple,
                  via: Sequence[tuple[str, cst.CSTNode]] = ()) -> str:
    """What deriving ``expected`` from the result does: cut it to fit, filter it, or something else."""
    forms: list[str] = []
    held = {name for name, _ in via}  # locals that hold the result's part (``n = len(result)``)
    values = dict(via)

    def touches(node: cst.CSTNode) -> bool:
        return source.contains(node, result) or bool(held & _names_read(node, bare=True))

    def length_of_result(node: cst.CSTNode | None) -> bool:
        if isinstance(node, cst.Name) and node.value in values:
            node = values[node.value]
        return (_is_len(node) and len(node.args) == 1  # type: ignore[union-attr]
                and source.shape(node.args[0].value) == result)  # type: ignore[union-attr]

    class Finder(cst.CSTVisitor):
        def visit_Subscript(self, node: cst.Subscript) -> None:
            if touches(node.value) or not touches(node):
                return
            (element, *rest) = node.slice
            part = element.slice
            prefix = (not rest and isinstance(part, cst.Slice) and part.lower is None and part.step is None
                      and length_of_result(part.upper))
            forms.append("prefix" if prefix else "cut")

        def visit_CompFor(self, node: cst.CompFor) -> None:
            if any(touches(i.test) for i in node.ifs):
                forms.append("filter")

        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
            if isinstance(node.operator, cst.BitAnd) and touches(node):
                forms.append("filter")

        def visit_Call(self, node: cst.Call) -> None:
            if _dotted(node.func) == "filter" and touches(node):
                forms.append("filter")

    expected.visit(Finder())
    return forms[0] if forms else "other"


_DERIVED_CONSEQUENCE = {
    "prefix": "any result that is a prefix of it passes",
    "cut": "the expectation is cut down to fit whatever the result is",
    "filter": "any result made only of expected items passes, however many of them it leaves out",
    "other": "the result is no longer checked against an independent value",
}


def _derived_evidence(pair: _Pair, test: str, before: _Check | None, after: _Check, derived: _Derived) -> Evidence:
    assert pair.head is not None and pair.base is not None
    code = _snippet(pair.head.code(derived.expected), 60)
    where = "".join(f", where `{name} = {_snippet(pair.head.code(value), 40)}`" for name, value in derived.via)
    if derived.form == "itself":
        detail = (f"the assertion now compares `{_snippet(pair.head.code(derived.result), 40)}` with itself "
                  f"(`{_snippet(pair.head.code(after.node), 60)}`), so it passes whatever the result is.")
    else:
        detail = (f"the expected value is now derived from the result (`{code}`{where}), so "
                  f"{_DERIVED_CONSEQUENCE[derived.form]}.")
    return Evidence(EvidenceKind.LOOSENED_ASSERTION, pair.path, pair.head.line(after.node), test,
                    pair.base.code(before.node) if before is not None else None, pair.head.code(after.node),
                    detail)
