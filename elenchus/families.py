"""Intent-driven mutation families: each one a plausible misunderstanding of intent.

A family finds the *sites* in a parsed module where its misunderstanding could be
made, and for each site says three things in the user's terms, built from
templates that name the concrete code:

- ``changed_intent``: what the programmer would have misunderstood;
- ``incident``: what a user of the code would suffer;
- ``expected_detection``: what a test must assert to notice.

Families never apply their edits and never decide whether a site is worth running:
``elenchus.mutate`` applies exactly one site at a time and rejects arid or
equivalent mutants. No user-facing text here names an operator class.

Every family satisfies the ``Family`` protocol and is listed in ``FAMILIES``, an
explicit registry (no entry points). Each carries its own before/after examples,
which the unit tests run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider

__all__ = [
    "Example",
    "FAMILIES",
    "Family",
    "REMOVE",
    "Site",
    "SourceView",
]

#: Marker replacement meaning "drop this statement" (comments above it are kept).
REMOVE = cst.RemovalSentinel.REMOVE


@dataclass(frozen=True, slots=True)
class Example:
    """A family's own sample: ``before`` mutated at one site gives ``after``."""

    before: str
    after: str
    changed_intent: str
    incident: str


@dataclass(frozen=True, slots=True)
class Site:
    """One place where a family's misunderstanding can be made, as one node edit.

    ``target`` is replaced by ``replacement`` (or dropped when it is ``REMOVE``);
    ``anchor`` is the node whose position locates the site for the user.
    """

    family: str
    target: cst.CSTNode
    replacement: cst.CSTNode | cst.RemovalSentinel
    anchor: cst.CSTNode
    changed_intent: str
    incident: str
    expected_detection: str


@runtime_checkable
class Family(Protocol):
    @property
    def key(self) -> str:
        """Internal id, e.g. "boundary-inclusivity"."""
        ...

    @property
    def title(self) -> str:
        """Human name, e.g. "boundary inclusivity"."""
        ...

    @property
    def risk_weight(self) -> int:
        """Higher means a worse incident when the mutant goes unnoticed."""
        ...

    @property
    def examples(self) -> tuple[Example, ...]:
        """Before/after samples with the exact incident each one stands for."""
        ...

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        """Yield every site of this family in ``wrapper.module``."""
        ...


# --------------------------------------------------------------------------- helpers

_N = TypeVar("_N", bound=cst.CSTNode)
_SNIPPET_LIMIT = 72
_SPACE = cst.SimpleWhitespace(" ")
_ARITHMETIC_OPS = (
    cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo,
    cst.Power, cst.MatrixMultiply,
)
_ATOMS = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float,
    cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString,
    cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp, cst.Ellipsis,
)


class SourceView:
    """Read-only helpers over one parsed module, shared by every family."""

    def __init__(self, wrapper: MetadataWrapper) -> None:
        self.module = wrapper.module
        self.parents = wrapper.resolve(ParentNodeProvider)

    def all_nodes(self) -> Iterator[cst.CSTNode]:
        """Every node except the Module itself."""
        return iter(self.parents)

    def nodes(self, kind: type[_N]) -> Iterator[_N]:
        for node in self.parents:
            if isinstance(node, kind):
                yield node

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        current = self.parents.get(node)
        while current is not None:
            yield current
            current = self.parents.get(current)

    def code(self, node: cst.CSTNode) -> str:
        """The node's source on one line, shortened for a sentence."""
        if isinstance(node, cst.Annotation):
            node = node.annotation  # an Annotation alone has no printable indicator
        text = " ".join(self.module.code_for_node(node).split())
        if text.endswith(","):
            text = text[:-1].rstrip()
        if len(text) > _SNIPPET_LIMIT:
            text = text[: _SNIPPET_LIMIT - 3].rstrip() + "..."
        return text

    def qualname(self, node: cst.CSTNode) -> str | None:
        names = [
            a.name.value
            for a in self.ancestors(node)
            if isinstance(a, (cst.FunctionDef, cst.ClassDef))
        ]
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            names.insert(0, node.name.value)
        return ".".join(reversed(names)) if names else None

    def function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        for a in self.ancestors(node):
            if isinstance(a, cst.FunctionDef):
                return a
            if isinstance(a, (cst.ClassDef, cst.Lambda)):
                return None
        return None

    def who(self, node: cst.CSTNode) -> str:
        """Sentence subject for the code around ``node``: "`clamp`" or "module-level code"."""
        qual = self.qualname(node)
        if qual is None:
            return "module-level code"
        if self._innermost_is_class(node):
            return f"the class body of `{qual}`"
        return f"`{qual}`"

    def exercise(self, node: cst.CSTNode) -> str:
        """What a test does to reach ``node``: "calls `clamp`" or "imports the module"."""
        qual = self.qualname(node)
        if qual is None:
            return "imports the module"
        if self._innermost_is_class(node):
            return f"uses `{qual}`"
        return f"calls `{qual}`"

    def _innermost_is_class(self, node: cst.CSTNode) -> bool:
        for a in self.ancestors(node):
            if isinstance(a, cst.FunctionDef):
                return False
            if isinstance(a, cst.ClassDef):
                return True
        return False

    def context(self, node: cst.CSTNode) -> cst.CSTNode:
        """The smallest statement-sized piece of code that shows ``node`` in use."""
        current = node
        for parent in self.ancestors(node):
            if isinstance(current, cst.BaseSmallStatement):
                break
            if isinstance(parent, (cst.BaseCompoundStatement, cst.Param, cst.Module,
                                   cst.Annotation)):
                break
            current = parent
        if isinstance(current, (cst.Return, cst.Expr)) and current.value is not None:
            current = current.value  # `''.join(parts)` reads better than `return ''.join(parts)`
        if len(self.code(current)) >= _SNIPPET_LIMIT:
            direct = self.parent(node)
            while isinstance(direct, (cst.Arg, cst.Element, cst.SubscriptElement, cst.Index,
                                      cst.ComparisonTarget)):
                direct = self.parent(direct)
            if isinstance(direct, cst.BaseExpression) and len(self.code(direct)) < _SNIPPET_LIMIT:
                return direct
            return node
        return current

    def swapped_code(self, context: cst.CSTNode, target: cst.CSTNode,
                     replacement: cst.CSTNode) -> str:
        """Source of ``context`` after replacing ``target`` inside it."""
        if context is target:
            return self.code(replacement)
        return self.code(context.deep_replace(target, replacement))


def _keep_parens(original: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    """Give ``new`` the parentheses ``original`` had, so `return(x)` stays valid."""
    if original.lpar and not new.lpar:
        return new.with_changes(lpar=original.lpar, rpar=original.rpar)
    return new


def _parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    if expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _as_operand(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` ready to be the left operand of ``+``/``-`` or a subscript base."""
    if expr.lpar or isinstance(expr, _ATOMS):
        return expr
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ARITHMETIC_OPS):
        return expr
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return expr
    return _parenthesized(expr)


def _as_atom(expr: cst.BaseExpression) -> cst.BaseExpression:
    if expr.lpar or isinstance(expr, _ATOMS):
        return expr
    return _parenthesized(expr)


def _shift(expr: cst.BaseExpression, delta: int) -> cst.BaseExpression | None:
    """``expr`` plus ``delta`` (+1 or -1), folded into a literal when it is one."""
    if isinstance(expr, cst.Integer):
        value = int(expr.evaluated_value) + delta
        literal: cst.BaseExpression = cst.Integer(str(abs(value)))
        if value < 0:
            literal = cst.UnaryOperation(operator=cst.Minus(), expression=literal)
        return _keep_parens(expr, literal)
    if (isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus)
            and isinstance(expr.expression, cst.Integer)):
        magnitude = int(expr.expression.evaluated_value) - delta
        if magnitude <= 0:
            return None  # -1 + 1 would be 0: no longer "one more" but "nothing"
        return expr.with_changes(expression=cst.Integer(str(magnitude)))
    operator = cst.Subtract if delta < 0 else cst.Add
    return cst.BinaryOperation(
        left=_as_operand(expr),
        operator=operator(whitespace_before=_SPACE, whitespace_after=_SPACE),
        right=cst.Integer(str(abs(delta))),
    )


def _call_name(call: cst.Call) -> str | None:
    func = call.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _positional(call: cst.Call) -> list[cst.Arg]:
    """Leading positional arguments (stops at the first keyword or star)."""
    args = []
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            break
        args.append(arg)
    return args


def _drop_statement(view: SourceView, stmt: cst.CSTNode) -> tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel]:
    """The minimal edit that drops ``stmt``: remove it, or ``pass`` if it stands alone."""
    parent = view.parent(stmt)
    if isinstance(stmt, cst.BaseSmallStatement):
        if isinstance(parent, cst.SimpleStatementLine) and len(parent.body) == 1:
            return _drop_statement(view, parent)
        if isinstance(parent, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and len(parent.body) > 1:
            return stmt, REMOVE
        return stmt, cst.Pass(semicolon=getattr(stmt, "semicolon", cst.MaybeSentinel.DEFAULT))
    siblings = parent.body if isinstance(parent, (cst.IndentedBlock, cst.Module)) else ()
    if len(siblings) > 1:
        return stmt, REMOVE
    return stmt, cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=getattr(stmt, "leading_lines", ()))


def _header_keyword(view: SourceView, node: cst.If) -> str:
    parent = view.parent(node)
    return "elif" if isinstance(parent, cst.If) and parent.orelse is node else "if"


def _site(family: str, target: cst.CSTNode, replacement: cst.CSTNode | cst.RemovalSentinel,
          anchor: cst.CSTNode, intent: str, incident: str, detection: str) -> Site:
    return Site(family=family, target=target, replacement=replacement, anchor=anchor,
                changed_intent=intent, incident=incident, expected_detection=detection)


def _comparison_parts(view: SourceView, target: cst.ComparisonTarget) -> tuple[cst.Comparison, str, str]:
    comparison = view.parent(target)
    assert isinstance(comparison, cst.Comparison)
    index = next(i for i, t in enumerate(comparison.comparisons) if t is target)
    left = comparison.left if index == 0 else comparison.comparisons[index - 1].comparator
    return comparison, view.code(left), view.code(target.comparator)


def _swap_comparison(view: SourceView, target: cst.ComparisonTarget,
                     new_operator: cst.BaseCompOp) -> tuple[cst.CSTNode, str, str]:
    """Replacement operator node, plus the whole comparison before and after."""
    comparison = view.parent(target)
    assert isinstance(comparison, cst.Comparison)
    return new_operator, view.code(comparison), view.swapped_code(comparison, target.operator, new_operator)


# ---------------------------------------------------------------------------- families


class BoundaryInclusivity:
    key = "boundary-inclusivity"
    title = "boundary inclusivity"
    risk_weight = 4
    examples = (
        Example(
            before="def clamp(value, lo, hi):\n    if value <= hi:\n        return value\n    return hi\n",
            after="def clamp(value, lo, hi):\n    if value < hi:\n        return value\n    return hi\n",
            changed_intent="treats `hi` as an exclusive bound for `value`",
            incident="`clamp` now treats `value` equal to `hi` as if it were above `hi`: "
                     "`value <= hi` became `value < hi`",
        ),
        Example(
            before="def is_adult(age):\n    return age >= 18\n",
            after="def is_adult(age):\n    return age > 18\n",
            changed_intent="treats `18` as an exclusive bound for `age`",
            incident="`is_adult` now treats `age` equal to `18` as if it were below `18`: "
                     "`age >= 18` became `age > 18`",
        ),
    )

    # original operator -> (new operator, inclusive?, how equality is now treated)
    _SWAPS = {
        cst.LessThan: (cst.LessThanEqual, "inclusive", "below"),
        cst.LessThanEqual: (cst.LessThan, "exclusive", "above"),
        cst.GreaterThan: (cst.GreaterThanEqual, "inclusive", "above"),
        cst.GreaterThanEqual: (cst.GreaterThan, "exclusive", "below"),
    }

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for target in view.nodes(cst.ComparisonTarget):
            swap = self._SWAPS.get(type(target.operator))
            if swap is None:
                continue
            new_type, kind, side = swap
            op = target.operator
            new_op = _rebuild_operator(op, new_type)
            _, left, right = _comparison_parts(view, target)
            replacement, before, after = _swap_comparison(view, target, new_op)
            yield _site(
                self.key, op, replacement, target,
                f"treats `{right}` as an {kind} bound for `{left}`",
                f"{view.who(target)} now treats `{left}` equal to `{right}` as if it were {side} "
                f"`{right}`: `{before}` became `{after}`",
                f"a test that {view.exercise(target)} with `{left}` exactly equal to `{right}` "
                f"and checks the result",
            )


class OffByOne:
    key = "off-by-one"
    title = "off-by-one in ranges and slices"
    risk_weight = 4
    examples = (
        Example(
            before="def chunks(xs, size):\n    return [xs[i:i + size] for i in range(0, len(xs), size)]\n",
            after="def chunks(xs, size):\n    return [xs[i:i + size - 1] for i in range(0, len(xs), size)]\n",
            changed_intent="treats the end index `i + size` of `xs[i:i + size]` as inclusive",
            incident="`chunks` silently drops the last element of `xs[i:i + size]`: "
                     "`xs[i:i + size]` became `xs[i:i + size - 1]`",
        ),
        Example(
            before="def total(n):\n    s = 0\n    for i in range(1, n):\n        s += i\n    return s\n",
            after="def total(n):\n    s = 0\n    for i in range(1, n + 1):\n        s += i\n    return s\n",
            changed_intent="believes `range(1, n)` stops one step before `n`, so reaches for `n` itself",
            incident="`total` runs one extra iteration with the value `n`: "
                     "`range(1, n)` became `range(1, n + 1)`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.Slice):
            yield from self._slice_sites(view, node)
        for call in view.nodes(cst.Call):
            if isinstance(call.func, cst.Name) and call.func.value == "range":
                yield from self._range_sites(view, call)

    def _slice_sites(self, view: SourceView, node: cst.Slice) -> Iterator[Site]:
        element = view.parent(node)
        subscript = view.parent(element) if element is not None else None
        if not isinstance(subscript, cst.Subscript):
            return
        who, text = view.who(node), view.code(subscript)
        if node.upper is not None:
            upper = view.code(node.upper)
            for delta in (-1, 1):
                new = _shift(node.upper, delta)
                if new is None:
                    continue
                after = view.swapped_code(subscript, node.upper, new)
                if delta < 0:
                    yield _site(
                        self.key, node.upper, new, node.upper,
                        f"treats the end index `{upper}` of `{text}` as inclusive",
                        f"{who} silently drops the last element of `{text}`: `{text}` became `{after}`",
                        f"a test that {view.exercise(node)} and checks that the last element "
                        f"of `{text}` is kept",
                    )
                else:
                    yield _site(
                        self.key, node.upper, new, node.upper,
                        f"believes the end index `{upper}` of `{text}` stops one element short",
                        f"{who} takes one element too many in `{text}`: `{text}` became `{after}`",
                        f"a test that {view.exercise(node)} with more elements than `{text}` "
                        f"should keep and checks exactly which ones come out",
                    )
        if node.lower is not None:
            lower = view.code(node.lower)
            new = _shift(node.lower, 1)
            if new is not None:
                after = view.swapped_code(subscript, node.lower, new)
                yield _site(
                    self.key, node.lower, new, node.lower,
                    f"treats the start index `{lower}` of `{text}` as exclusive",
                    f"{who} silently skips the first element of `{text}`: `{text}` became `{after}`",
                    f"a test that {view.exercise(node)} and checks that the first element "
                    f"of `{text}` is kept",
                )

    @staticmethod
    def _forward_step(step: cst.BaseExpression) -> bool:
        if isinstance(step, cst.Integer):
            return int(step.evaluated_value) > 0
        return isinstance(step, (cst.Name, cst.Attribute))

    def _range_sites(self, view: SourceView, call: cst.Call) -> Iterator[Site]:
        args = _positional(call)
        if len(args) != len(call.args) or not 1 <= len(args) <= 3:
            return
        if len(args) == 3 and not self._forward_step(args[2].value):
            return  # a negative step reverses what "one more" means
        who, text = view.who(call), view.code(call)
        start = args[0].value if len(args) > 1 else None
        stop = args[1].value if len(args) > 1 else args[0].value
        stop_text = view.code(stop)
        minus = _shift(stop, -1)
        if minus is not None:
            yield _site(
                self.key, stop, minus, stop,
                f"believes `{text}` includes its stop `{stop_text}`",
                f"{who} stops one iteration early and never reaches the last value before "
                f"`{stop_text}`: `{text}` became `{view.swapped_code(call, stop, minus)}`",
                f"a test that {view.exercise(call)} and depends on the last value of `{text}`",
            )
        plus = _shift(stop, 1)
        if plus is not None:
            yield _site(
                self.key, stop, plus, stop,
                f"believes `{text}` stops one step before `{stop_text}`, so reaches for "
                f"`{stop_text}` itself",
                f"{who} runs one extra iteration with the value `{stop_text}`: "
                f"`{text}` became `{view.swapped_code(call, stop, plus)}`",
                f"a test that {view.exercise(call)} and checks that `{stop_text}` itself "
                f"is never processed",
            )
        if start is not None:
            start_text = view.code(start)
            later = _shift(start, 1)
            if later is not None:
                yield _site(
                    self.key, start, later, start,
                    f"believes `{text}` starts after `{start_text}`",
                    f"{who} skips the first iteration, the value `{start_text}`: "
                    f"`{text}` became `{view.swapped_code(call, start, later)}`",
                    f"a test that {view.exercise(call)} and depends on the value "
                    f"`{start_text}` being processed",
                )


class NegatedCondition:
    key = "negated-condition"
    title = "negated condition"
    risk_weight = 3
    examples = (
        Example(
            before="def label(n):\n    if n % 2 == 0:\n        return 'even'\n    return 'odd'\n",
            after="def label(n):\n    if not (n % 2 == 0):\n        return 'even'\n    return 'odd'\n",
            changed_intent="reads the condition `n % 2 == 0` the wrong way round",
            incident="`label` takes the `if` branch when `n % 2 == 0` is false and skips it when it "
                     "is true: `if n % 2 == 0:` became `if not (n % 2 == 0):`",
        ),
        Example(
            before="def sign(x):\n    return 1 if x >= 0 else -1\n",
            after="def sign(x):\n    return 1 if not (x >= 0) else -1\n",
            changed_intent="reads the condition `x >= 0` the wrong way round",
            incident="`sign` picks `-1` when `x >= 0` holds and `1` when it does not: "
                     "`1 if x >= 0 else -1` became `1 if not (x >= 0) else -1`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in (n for n in view.all_nodes() if isinstance(n, (cst.If, cst.While, cst.IfExp))):
            test = node.test
            if not _room_before_test(node):
                continue  # `if(x):` has no room for `not`
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                new: cst.BaseExpression = _keep_parens(test, test.expression)
                if not new.lpar and isinstance(new, (cst.BooleanOperation, cst.IfExp,
                                                     cst.Lambda, cst.NamedExpr)):
                    new = _parenthesized(new)
            else:
                inner = test if isinstance(test, (cst.Name, cst.Attribute, cst.Call,
                                                  cst.Subscript)) else _parenthesized(test)
                new = cst.UnaryOperation(operator=cst.Not(whitespace_after=_SPACE), expression=inner)
            cond, new_cond, who = view.code(test), view.code(new), view.who(node)
            intent = f"reads the condition `{cond}` the wrong way round"
            if isinstance(node, cst.If):
                kw = _header_keyword(view, node)
                incident = (f"{who} takes the `{kw}` branch when `{cond}` is false and skips it when "
                            f"it is true: `{kw} {cond}:` became `{kw} {new_cond}:`")
            elif isinstance(node, cst.While):
                incident = (f"{who} loops while `{cond}` is false instead of while it is true: "
                            f"`while {cond}:` became `while {new_cond}:`")
            else:
                incident = (f"{who} picks `{view.code(node.orelse)}` when `{cond}` holds and "
                            f"`{view.code(node.body)}` when it does not: `{view.code(node)}` became "
                            f"`{view.swapped_code(node, test, new)}`")
            yield _site(
                self.key, test, new, test, intent, incident,
                f"a test that {view.exercise(node)} once with `{cond}` true and once with it false "
                f"and checks both results",
            )


def _room_before_test(node: cst.If | cst.While | cst.IfExp) -> bool:
    space: cst.BaseParenthesizableWhitespace
    if isinstance(node, cst.If):
        space = node.whitespace_before_test
    elif isinstance(node, cst.While):
        space = node.whitespace_after_while
    else:
        space = node.whitespace_after_if
    return not isinstance(space, cst.SimpleWhitespace) or bool(space.value)


class DroppedGuard:
    key = "dropped-guard"
    title = "dropped guard or validation"
    risk_weight = 5
    examples = (
        Example(
            before=("def withdraw(balance, amount):\n"
                    "    # never overdraw\n"
                    "    if amount > balance:\n"
                    "        raise ValueError('insufficient funds')\n"
                    "    return balance - amount\n"),
            after=("def withdraw(balance, amount):\n"
                   "    # never overdraw\n"
                   "    return balance - amount\n"),
            changed_intent="assumes `amount > balance` can never happen, so its check is unnecessary",
            incident="`withdraw` no longer rejects the case `amount > balance`: the guard "
                     "`if amount > balance: raise ValueError` was removed",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.If):
            if node.orelse is not None or isinstance(view.parent(node), cst.If):
                continue  # an if/else or elif chain is a decision, not a guard
            raised = _raise_in(node.body)
            if raised is None:
                continue
            target, replacement = _drop_statement(view, node)
            cond, exc = view.code(node.test), _exception_name(view, raised)
            yield _site(
                self.key, target, replacement, node,
                f"assumes `{cond}` can never happen, so its check is unnecessary",
                f"{view.who(node)} no longer rejects the case `{cond}`: the guard "
                f"`if {cond}: raise {exc}` was removed",
                f"a test that {view.exercise(node)} with input where `{cond}` holds and expects "
                f"`{exc}` (`pytest.raises`)",
            )


def _raise_in(body: cst.BaseSuite) -> cst.Raise | None:
    statements = body.body
    for stmt in statements:
        smalls = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else (stmt,)
        for small in smalls:
            if isinstance(small, cst.Raise) and small.exc is not None:
                return small
    return None


def _exception_name(view: SourceView, raised: cst.Raise) -> str:
    exc = raised.exc
    if exc is None:
        return "the caught error"
    if isinstance(exc, cst.Call):
        return view.code(exc.func)
    return view.code(exc)


class SwallowedException:
    key = "swallowed-exception"
    title = "swallowed exception"
    risk_weight = 5
    examples = (
        Example(
            before=("def parse_port(text):\n"
                    "    port = int(text)\n"
                    "    if not 0 < port < 65536:\n"
                    "        raise ValueError(f'bad port {port}')\n"
                    "    return port\n"),
            after=("def parse_port(text):\n"
                   "    port = int(text)\n"
                   "    if not 0 < port < 65536:\n"
                   "        return None\n"
                   "    return port\n"),
            changed_intent="believes the failure `ValueError` is harmless and can be ignored",
            incident="`parse_port` hides the failure and returns `None` instead of raising "
                     "`ValueError`: `raise ValueError(...)` became `return None`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.Raise):
            who = view.who(node)
            if node.exc is None:
                new: cst.BaseSmallStatement = cst.Pass(semicolon=node.semicolon)
                yield _site(
                    self.key, node, new, node,
                    "believes the caught error is harmless and can be ignored",
                    f"{who} swallows the caught error instead of re-raising it: `raise` became `pass`",
                    f"a test that {view.exercise(node)} so that the handled error occurs and "
                    f"expects it to propagate (`pytest.raises`)",
                )
                continue
            exc = _exception_name(view, node)
            shown = f"raise {exc}(...)" if isinstance(node.exc, cst.Call) and node.exc.args else view.code(node)
            if view.function(node) is not None:
                new = cst.Return(value=cst.Name("None"), semicolon=node.semicolon)
                incident = (f"{who} hides the failure and returns `None` instead of raising `{exc}`: "
                            f"`{shown}` became `return None`")
            else:
                new = cst.Pass(semicolon=node.semicolon)
                incident = (f"{who} carries on as if nothing went wrong instead of raising `{exc}`: "
                            f"`{shown}` became `pass`")
            yield _site(
                self.key, node, new, node,
                f"believes the failure `{exc}` is harmless and can be ignored",
                incident,
                f"a test that {view.exercise(node)} with input that must fail and expects `{exc}` "
                f"(`pytest.raises`)",
            )


class BroadenedHandler:
    key = "broadened-handler"
    title = "over-broad exception handler"
    risk_weight = 4
    examples = (
        Example(
            before=("def load(path):\n"
                    "    try:\n"
                    "        return open(path).read()\n"
                    "    except FileNotFoundError:\n"
                    "        return ''\n"),
            after=("def load(path):\n"
                   "    try:\n"
                   "        return open(path).read()\n"
                   "    except Exception:\n"
                   "        return ''\n"),
            changed_intent="believes any error raised here means `FileNotFoundError`",
            incident="`load` now also swallows unrelated errors as if they were `FileNotFoundError`, "
                     "hiding real failures: `except FileNotFoundError` became `except Exception`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.ExceptHandler):
            if node.type is None:
                continue
            if isinstance(node.type, cst.Name) and node.type.value in ("Exception", "BaseException"):
                continue
            new: cst.BaseExpression = cst.Name("Exception")
            if not node.whitespace_after_except.value:
                new = _keep_parens(node.type, new)
            caught = view.code(node.type)
            yield _site(
                self.key, node.type, new, node,
                f"believes any error raised here means `{caught}`",
                f"{view.who(node)} now also swallows unrelated errors as if they were `{caught}`, "
                f"hiding real failures: `except {caught}` became `except Exception`",
                f"a test where the `try` body in {view.who(node)} fails with an error other than "
                f"`{caught}` and expects it to propagate",
            )


class DefaultReturn:
    key = "default-return"
    title = "early or default return"
    risk_weight = 3
    examples = (
        Example(
            before="def evens(xs):\n    return [x for x in xs if x % 2 == 0]\n",
            after="def evens(xs):\n    return []\n",
            changed_intent="treats `[]` as an acceptable answer in place of "
                           "`[x for x in xs if x % 2 == 0]`",
            incident="`evens` returns `[]` where callers expect `[x for x in xs if x % 2 == 0]`: "
                     "`return [x for x in xs if x % 2 == 0]` became `return []`",
        ),
        Example(
            before="def is_admin(user) -> bool:\n    return user.role == 'admin'\n",
            after="def is_admin(user) -> bool:\n    return False\n",
            changed_intent="treats `False` as an acceptable answer in place of `user.role == 'admin'`",
            incident="`is_admin` returns `False` where callers expect `user.role == 'admin'`: "
                     "`return user.role == 'admin'` became `return False`",
        ),
    )

    _BY_ANNOTATION = {
        "bool": "False", "int": "0", "float": "0.0", "str": '""', "bytes": 'b""',
        "list": "[]", "List": "[]", "Sequence": "[]", "Iterable": "[]",
        "dict": "{}", "Dict": "{}", "Mapping": "{}",
        "set": "set()", "Set": "set()", "frozenset": "frozenset()",
        "tuple": "()", "Tuple": "()",
    }
    _BY_CALL = {
        "len": "0", "sum": "0", "int": "0", "round": "0", "abs": "0", "count": "0",
        "float": "0.0", "str": '""', "join": '""', "format": '""', "strip": '""',
        "lower": '""', "upper": '""', "list": "[]", "sorted": "[]", "dict": "{}",
        "set": "set()", "tuple": "()", "isinstance": "False", "any": "False", "all": "False",
        "bool": "False", "hasattr": "False", "callable": "False", "startswith": "False",
        "endswith": "False",
    }

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.Return):
            value = node.value
            if value is None or _is_literal(value):
                continue
            default = self._default(view, node, value)
            if default == view.code(value):
                continue
            new = _keep_parens(value, cst.parse_expression(default))
            expr, who = view.code(value), view.who(node)
            yield _site(
                self.key, value, new, node,
                f"treats `{default}` as an acceptable answer in place of `{expr}`",
                f"{who} returns `{default}` where callers expect `{expr}`: "
                f"`return {expr}` became `return {default}`",
                f"a test that {view.exercise(node)} along this path and asserts on the returned value",
            )

    def _default(self, view: SourceView, node: cst.Return, value: cst.BaseExpression) -> str:
        function = view.function(node)
        if function is not None and function.returns is not None:
            annotation = function.returns.annotation
            if isinstance(annotation, cst.BinaryOperation) or view.code(annotation).startswith("Optional"):
                return "None"
            head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
            name = head.attr.value if isinstance(head, cst.Attribute) else getattr(head, "value", None)
            if isinstance(name, str) and name in self._BY_ANNOTATION:
                return self._BY_ANNOTATION[name]
        if isinstance(value, (cst.Comparison, cst.BooleanOperation)) or (
                isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not)):
            return "False"
        if isinstance(value, (cst.List, cst.ListComp)):
            return "[]"
        if isinstance(value, (cst.Dict, cst.DictComp)):
            return "{}"
        if isinstance(value, (cst.Set, cst.SetComp)):
            return "set()"
        if isinstance(value, cst.Tuple):
            return "()"
        if isinstance(value, (cst.FormattedString, cst.ConcatenatedString)):
            return '""'
        if isinstance(value, cst.Call):
            name = _call_name(value)
            if name in self._BY_CALL:
                return self._BY_CALL[name]
        return "None"


def _is_literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
        return True
    if isinstance(expr, cst.Name) and expr.value in ("None", "True", "False"):
        return True
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)) and not expr.elements:
        return True
    if isinstance(expr, cst.Dict) and not expr.elements:
        return True
    return isinstance(expr, cst.UnaryOperation) and isinstance(expr.expression, (cst.Integer, cst.Float))


class LostSideEffect:
    key = "lost-side-effect"
    title = "lost state update or side effect"
    risk_weight = 4
    examples = (
        Example(
            before=("class Stack:\n"
                    "    def push(self, item):\n"
                    "        self.items.append(item)\n"
                    "        self.size += 1\n"),
            after=("class Stack:\n"
                   "    def push(self, item):\n"
                   "        self.items.append(item)\n"),
            changed_intent="believes `self.size += 1` is already taken care of elsewhere",
            incident="`Stack.push` never updates `self.size`: `self.size += 1` was dropped",
        ),
        Example(
            before="def register(registry, name):\n    registry.add(name)\n",
            after="def register(registry, name):\n    pass\n",
            changed_intent="believes `registry.add(name)` is already taken care of elsewhere",
            incident="`register` never adds to `registry`: `registry.add(name)` was dropped",
        ),
    )

    _ADDS = frozenset({"append", "extend", "add", "insert", "appendleft", "update", "setdefault",
                       "push", "put", "put_nowait"})
    _REMOVES = frozenset({"remove", "discard", "pop", "popleft", "clear", "delete", "unlink"})
    _PERSISTS = frozenset({"save", "commit", "write", "writelines", "flush", "send", "sendall",
                           "emit", "publish", "notify", "store", "persist", "set", "register",
                           "release", "acquire", "close", "bulk_create", "create", "execute"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in (n for n in view.all_nodes()
                     if isinstance(n, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Del))):
            found = self._describe(view, node)
            if found is None:
                continue
            incident_head, subject_text = found
            stmt = view.code(node)
            target, replacement = _drop_statement(view, node)
            yield _site(
                self.key, target, replacement, node,
                f"believes `{stmt}` is already taken care of elsewhere",
                f"{view.who(node)} {incident_head}: `{stmt}` was dropped",
                f"a test that {view.exercise(node)} and then checks the observable state of "
                f"`{subject_text}`",
            )

    def _describe(self, view: SourceView, node: cst.CSTNode) -> tuple[str, str] | None:
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets if isinstance(t.target, (cst.Attribute, cst.Subscript))]
            if not targets:
                return None
            text = view.code(targets[0])
            return f"never updates `{text}`", text
        if isinstance(node, cst.AnnAssign):
            if node.value is None or not isinstance(node.target, (cst.Attribute, cst.Subscript)):
                return None
            text = view.code(node.target)
            return f"never updates `{text}`", text
        if isinstance(node, cst.AugAssign):
            text = view.code(node.target)
            return f"never updates `{text}`", text
        if isinstance(node, cst.Del):
            if not isinstance(node.target, (cst.Attribute, cst.Subscript)):
                return None
            text = view.code(node.target)
            base = view.code(node.target.value)
            return f"never removes `{text}` from `{base}`", base
        if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            func = node.value.func
            if not isinstance(func, cst.Attribute):
                return None
            receiver, method = view.code(func.value), func.attr.value
            if method in self._ADDS:
                return f"never adds to `{receiver}`", receiver
            if method in self._REMOVES:
                return f"never removes from `{receiver}`", receiver
            if method in self._PERSISTS:
                return (f"never calls `{receiver}.{method}(...)`, so the change it makes is lost",
                        receiver)
        return None


class SwappedArguments:
    key = "swapped-arguments"
    title = "swapped arguments"
    risk_weight = 3
    examples = (
        Example(
            before="def transfer(bank, alice, bob, amount):\n    bank.move(alice, bob, amount)\n",
            after="def transfer(bank, alice, bob, amount):\n    bank.move(bob, alice, amount)\n",
            changed_intent="believes `bank.move` takes `bob` before `alice`",
            incident="`transfer` calls `bank.move` with `alice` and `bob` in the wrong order: "
                     "`bank.move(alice, bob, amount)` became `bank.move(bob, alice, amount)`",
        ),
    )

    # Builtins whose arguments are symmetric or of different kinds: a swap is not a
    # plausible misunderstanding there.
    _SKIP = frozenset({"min", "max", "print", "isinstance", "issubclass", "getattr", "setattr",
                       "hasattr", "delattr", "super", "set", "frozenset", "dict", "hash", "id",
                       "type", "zip", "map", "filter", "cast", "range"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            if isinstance(call.func, cst.Name) and call.func.value in self._SKIP:
                continue
            args = _positional(call)
            callee = view.code(call.func)
            for i in range(min(len(args) - 1, 3)):
                first, second = args[i], args[i + 1]
                a, b = view.code(first.value), view.code(second.value)
                if a == b:
                    continue
                new_args = list(call.args)
                new_args[i] = first.with_changes(value=second.value)
                new_args[i + 1] = second.with_changes(value=first.value)
                new = call.with_changes(args=new_args)
                yield _site(
                    self.key, call, new, first,
                    f"believes `{callee}` takes `{b}` before `{a}`",
                    f"{view.who(call)} calls `{callee}` with `{a}` and `{b}` in the wrong order: "
                    f"`{view.code(call)}` became `{view.code(new)}`",
                    f"a test that {view.exercise(call)} with clearly different values for `{a}` "
                    f"and `{b}` and checks the outcome",
                )


class ChangedDefault:
    key = "changed-default"
    title = "wrong default"
    risk_weight = 2
    examples = (
        Example(
            before="def page(items, size=10):\n    return items[:size]\n",
            after="def page(items, size=11):\n    return items[:size]\n",
            changed_intent="believes the default for `size` is `11`",
            incident="callers of `page` that omit `size` now get `11` instead of `10`: "
                     "`size=10` became `size=11`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for param in view.nodes(cst.Param):
            if param.default is None:
                continue
            parameters = view.parent(param)
            owner = view.parent(parameters) if parameters is not None else None
            if not isinstance(owner, cst.FunctionDef):
                continue
            new = _drifted_constant(param.default)
            if new is None:
                continue
            name, old_text, new_text = param.name.value, view.code(param.default), view.code(new)
            yield _site(
                self.key, param.default, new, param,
                f"believes the default for `{name}` is `{new_text}`",
                f"callers of `{view.qualname(owner)}` that omit `{name}` now get `{new_text}` instead "
                f"of `{old_text}`: `{name}={old_text}` became `{name}={new_text}`",
                f"a test that calls `{view.qualname(owner)}` without passing `{name}` and checks "
                f"the result",
            )


def _drifted_constant(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """The nearest plausibly-confused literal: 0<->1, n->n+1, True<->False, ''<->'x'."""
    if isinstance(expr, cst.Integer):
        value = int(expr.evaluated_value)
        new: cst.BaseExpression = cst.Integer({0: "1", 1: "0"}.get(value, str(value + 1)))
    elif isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        new = cst.Name("False" if expr.value == "True" else "True")
    elif isinstance(expr, cst.SimpleString):
        quote = expr.quote
        prefix = expr.prefix
        new = cst.SimpleString(f"{prefix}{quote}x{quote}" if not expr.raw_value else f"{prefix}{quote}{quote}")
    else:
        return None
    return _keep_parens(expr, new)


class _SwapCompareFamily:
    """Shared shape of the families that flip one comparison operator."""

    key = ""
    _SWAPS: dict[type, type] = {}

    def _accept(self, target: cst.ComparisonTarget) -> bool:
        return True

    def _texts(self, who: str, left: str, right: str, before: str, after: str,
               original: cst.BaseCompOp) -> tuple[str, str]:
        raise NotImplementedError

    def _detection(self, exercise: str, left: str, right: str) -> str:
        raise NotImplementedError

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for target in view.nodes(cst.ComparisonTarget):
            new_type = self._SWAPS.get(type(target.operator))
            if new_type is None or not self._accept(target):
                continue
            new_op = _rebuild_operator(target.operator, new_type)
            _, left, right = _comparison_parts(view, target)
            replacement, before, after = _swap_comparison(view, target, new_op)
            intent, incident = self._texts(view.who(target), left, right, before, after, target.operator)
            yield _site(self.key, target.operator, replacement, target, intent, incident,
                        self._detection(view.exercise(target), left, right))


def _rebuild_operator(op: cst.BaseCompOp, new_type: type) -> cst.BaseCompOp:
    """``new_type`` with the spacing of ``op`` (two-word operators get a single space)."""
    before, after = op.whitespace_before, op.whitespace_after  # type: ignore[attr-defined]
    if new_type in (cst.NotIn, cst.IsNot):
        built = new_type(whitespace_before=before, whitespace_between=_SPACE, whitespace_after=after)
    else:
        built = new_type(whitespace_before=before, whitespace_after=after)
    assert isinstance(built, cst.BaseCompOp)
    return built


class MembershipInversion(_SwapCompareFamily):
    key = "membership-inversion"
    title = "membership confusion (in / not in)"
    risk_weight = 3
    examples = (
        Example(
            before="def allowed(user, banned):\n    return user not in banned\n",
            after="def allowed(user, banned):\n    return user in banned\n",
            changed_intent="reads the membership test of `user` in `banned` the wrong way round",
            incident="`allowed` treats `user` as present in `banned` exactly when it is absent: "
                     "`user not in banned` became `user in banned`",
        ),
    )
    _SWAPS = {cst.In: cst.NotIn, cst.NotIn: cst.In}

    def _texts(self, who: str, left: str, right: str, before: str, after: str,
               original: cst.BaseCompOp) -> tuple[str, str]:
        if isinstance(original, cst.In):
            incident = f"{who} treats `{left}` as absent from `{right}` exactly when it is present"
        else:
            incident = f"{who} treats `{left}` as present in `{right}` exactly when it is absent"
        return (f"reads the membership test of `{left}` in `{right}` the wrong way round",
                f"{incident}: `{before}` became `{after}`")

    def _detection(self, exercise: str, left: str, right: str) -> str:
        return (f"a test that {exercise} once with `{left}` in `{right}` and once without, "
                f"and checks both results")


class NoneCheckInversion(_SwapCompareFamily):
    key = "none-check-inversion"
    title = "missing-value check confusion (is None / is not None)"
    risk_weight = 4
    examples = (
        Example(
            before="def greet(name=None):\n    if name is None:\n        return 'hello'\n"
                   "    return 'hello ' + name\n",
            after="def greet(name=None):\n    if name is not None:\n        return 'hello'\n"
                  "    return 'hello ' + name\n",
            changed_intent="confuses the case where `name` is missing with the case where it is given",
            incident="`greet` handles a missing `name` as if it were given, and a given one as "
                     "missing: `name is None` became `name is not None`",
        ),
    )
    _SWAPS = {cst.Is: cst.IsNot, cst.IsNot: cst.Is}

    def _accept(self, target: cst.ComparisonTarget) -> bool:
        return isinstance(target.comparator, cst.Name) and target.comparator.value == "None"

    def _texts(self, who: str, left: str, right: str, before: str, after: str,
               original: cst.BaseCompOp) -> tuple[str, str]:
        return (f"confuses the case where `{left}` is missing with the case where it is given",
                f"{who} handles a missing `{left}` as if it were given, and a given one as missing: "
                f"`{before}` became `{after}`")

    def _detection(self, exercise: str, left: str, right: str) -> str:
        return f"a test that {exercise} once with `{left}` set to None and once with a real value"


class EqualityInversion(_SwapCompareFamily):
    key = "equality-inversion"
    title = "equality confusion (== / !=)"
    risk_weight = 3
    examples = (
        Example(
            before="def same_owner(a, b):\n    return a.owner == b.owner\n",
            after="def same_owner(a, b):\n    return a.owner != b.owner\n",
            changed_intent="reads the equality check between `a.owner` and `b.owner` the wrong way round",
            incident="`same_owner` takes the opposite decision on whether `a.owner` equals `b.owner`: "
                     "`a.owner == b.owner` became `a.owner != b.owner`",
        ),
    )
    _SWAPS = {cst.Equal: cst.NotEqual, cst.NotEqual: cst.Equal}

    def _texts(self, who: str, left: str, right: str, before: str, after: str,
               original: cst.BaseCompOp) -> tuple[str, str]:
        return (f"reads the equality check between `{left}` and `{right}` the wrong way round",
                f"{who} takes the opposite decision on whether `{left}` equals `{right}`: "
                f"`{before}` became `{after}`")

    def _detection(self, exercise: str, left: str, right: str) -> str:
        return (f"a test that {exercise} once with `{left}` equal to `{right}` and once with them "
                f"different, and checks both results")


class AndOrConfusion:
    key = "and-or-confusion"
    title = "and / or confusion"
    risk_weight = 3
    examples = (
        Example(
            before="def can_edit(user, doc):\n    return user.active and doc.owner == user.id\n",
            after="def can_edit(user, doc):\n    return user.active or doc.owner == user.id\n",
            changed_intent="believes either `user.active` or `doc.owner == user.id` is enough",
            incident="`can_edit` accepts the case where only one of `user.active` and "
                     "`doc.owner == user.id` holds: `user.active and doc.owner == user.id` became "
                     "`user.active or doc.owner == user.id`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.BooleanOperation):
            op = node.operator
            new_op = (cst.Or if isinstance(op, cst.And) else cst.And)(
                whitespace_before=op.whitespace_before, whitespace_after=op.whitespace_after)
            a, b, who = view.code(node.left), view.code(node.right), view.who(node)
            change = f"`{view.code(node)}` became `{view.swapped_code(node, op, new_op)}`"
            if isinstance(op, cst.And):
                intent = f"believes either `{a}` or `{b}` is enough"
                incident = f"{who} accepts the case where only one of `{a}` and `{b}` holds: {change}"
            else:
                intent = f"believes `{a}` and `{b}` must both hold"
                incident = f"{who} now requires both `{a}` and `{b}` where either was enough: {change}"
            yield _site(
                self.key, op, new_op, node, intent, incident,
                f"a test that {view.exercise(node)} with exactly one of `{a}` and `{b}` true "
                f"and checks the result",
            )


class _RenameCallFamily:
    """Shared shape of the families that swap a builtin for its opposite."""

    key = ""
    _SWAPS: dict[str, str] = {}

    def _texts(self, who: str, old: str, new: str, arg: str, change: str) -> tuple[str, str, str]:
        raise NotImplementedError

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            func = call.func
            if not isinstance(func, cst.Name) or func.value not in self._SWAPS or not call.args:
                continue
            new_func = func.with_changes(value=self._SWAPS[func.value])
            new_call = call.with_changes(func=new_func)
            arg = view.code(_as_atom(call.args[0].value)) if len(call.args) == 1 else ", ".join(
                view.code(a.value) for a in call.args)
            change = f"`{view.code(call)}` became `{view.code(new_call)}`"
            intent, incident, detection = self._texts(view.who(call), func.value, new_func.value,
                                                      arg, change)
            yield _site(self.key, func, new_func, call, intent, incident,
                        f"a test that {view.exercise(call)} {detection}")


class AnyAllConfusion(_RenameCallFamily):
    key = "any-all-confusion"
    title = "any / all confusion"
    risk_weight = 3
    examples = (
        Example(
            before="def has_error(results):\n    return any(r.failed for r in results)\n",
            after="def has_error(results):\n    return all(r.failed for r in results)\n",
            changed_intent="believes every item of `(r.failed for r in results)` must qualify",
            incident="`has_error` now requires every item of `(r.failed for r in results)` to "
                     "qualify where a single one was enough: `any(r.failed for r in results)` "
                     "became `all(r.failed for r in results)`",
        ),
    )
    _SWAPS = {"any": "all", "all": "any"}

    def _texts(self, who: str, old: str, new: str, arg: str, change: str) -> tuple[str, str, str]:
        if old == "any":
            return (f"believes every item of `{arg}` must qualify",
                    f"{who} now requires every item of `{arg}` to qualify where a single one was "
                    f"enough: {change}",
                    f"with only some items of `{arg}` qualifying and checks the result")
        return (f"believes a single item of `{arg}` qualifying is enough",
                f"{who} is satisfied by a single qualifying item of `{arg}` where every item had "
                f"to qualify: {change}",
                f"with only some items of `{arg}` qualifying and checks the result")


class MinMaxConfusion(_RenameCallFamily):
    key = "min-max-confusion"
    title = "min / max confusion"
    risk_weight = 3
    examples = (
        Example(
            before="def clamp(value, lo, hi):\n    return max(lo, min(value, hi))\n",
            after="def clamp(value, lo, hi):\n    return max(lo, max(value, hi))\n",
            changed_intent="believes the largest of `value, hi` is wanted",
            incident="`clamp` picks the largest of `value, hi` where the smallest was meant: "
                     "`min(value, hi)` became `max(value, hi)`",
        ),
    )
    _SWAPS = {"min": "max", "max": "min"}

    def _texts(self, who: str, old: str, new: str, arg: str, change: str) -> tuple[str, str, str]:
        wanted, got = ("smallest", "largest") if old == "min" else ("largest", "smallest")
        return (f"believes the {got} of `{arg}` is wanted",
                f"{who} picks the {got} of `{arg}` where the {wanted} was meant: {change}",
                f"with clearly different values among `{arg}` and checks which one comes out")


class MissingNormalization:
    key = "missing-normalization"
    title = "missing normalization (strip / case / sort / abs)"
    risk_weight = 2
    examples = (
        Example(
            before="def same_email(a, b):\n    return a.strip().lower() == b.strip().lower()\n",
            after="def same_email(a, b):\n    return a.strip() == b.strip().lower()\n",
            changed_intent="believes `a.strip()` already arrives in a single letter case",
            incident="`same_email` becomes case-sensitive about `a.strip()`: "
                     "`a.strip().lower()` became `a.strip()`",
        ),
    )

    _STRIPS = frozenset({"strip", "lstrip", "rstrip"})
    _CASES = frozenset({"lower", "upper", "casefold"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value in self._STRIPS | self._CASES:
                if func.attr.value in self._CASES and call.args:
                    continue
                value = func.value
                kind = "strip" if func.attr.value in self._STRIPS else "case"
            elif (isinstance(func, cst.Name) and func.value in ("sorted", "abs")
                  and len(_positional(call)) == 1):
                value = call.args[0].value
                kind = func.value
            else:
                continue
            new = _keep_parens(call, _as_atom(value))
            subject, who = view.code(value), view.who(call)
            change = f"`{view.code(call)}` became `{view.code(new)}`"
            intent, incident, detection = {
                "strip": (f"believes `{subject}` never carries surrounding whitespace",
                          f"{who} keeps surrounding whitespace in `{subject}`: {change}",
                          f"with `{subject}` padded by whitespace"),
                "case": (f"believes `{subject}` already arrives in a single letter case",
                         f"{who} becomes case-sensitive about `{subject}`: {change}",
                         f"with `{subject}` in mixed case"),
                "sorted": (f"believes `{subject}` is already in order",
                           f"{who} uses `{subject}` in its original order instead of sorted: {change}",
                           f"with `{subject}` out of order"),
                "abs": (f"believes `{subject}` is never negative",
                        f"{who} lets a negative `{subject}` through unchanged: {change}",
                        f"with a negative `{subject}`"),
            }[kind]
            yield _site(self.key, call, new, call, intent, incident,
                        f"a test that {view.exercise(call)} {detection} and checks the result")


class ConstantDrift:
    key = "constant-drift"
    title = "constant drift"
    risk_weight = 1
    examples = (
        Example(
            before="def count_words(text):\n    total = 0\n    for w in text.split():\n"
                   "        total += 1\n    return total\n",
            after="def count_words(text):\n    total = 1\n    for w in text.split():\n"
                  "        total += 1\n    return total\n",
            changed_intent="believes the value in `total = 0` is `1`, not `0`",
            incident="`count_words` works with `1` where `0` was meant: `total = 0` became `total = 1`",
        ),
        Example(
            before="def join(parts, sep=','):\n    return ''.join(parts)\n",
            after="def join(parts, sep=','):\n    return 'x'.join(parts)\n",
            changed_intent="believes the value in `''.join(parts)` is `'x'`, not `''`",
            incident="`join` works with `'x'` where `''` was meant: `''.join(parts)` became "
                     "`'x'.join(parts)`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in (n for n in view.all_nodes()
                     if isinstance(n, (cst.Integer, cst.Name, cst.SimpleString))):
            if isinstance(node, cst.Integer) and int(node.evaluated_value) not in (0, 1):
                continue
            if isinstance(node, cst.Name) and node.value not in ("True", "False"):
                continue
            if self._covered_elsewhere(view, node):
                continue
            new = _drifted_constant(node)
            if new is None:
                continue
            if isinstance(node, cst.Integer):
                new = _keep_parens(node, cst.Integer("1" if int(node.evaluated_value) == 0 else "0"))
            context = view.context(node)
            old_text, new_text = view.code(node), view.code(new)
            yield _site(
                self.key, node, new, node,
                f"believes the value in `{view.code(context)}` is `{new_text}`, not `{old_text}`",
                f"{view.who(node)} works with `{new_text}` where `{old_text}` was meant: "
                f"`{view.code(context)}` became `{view.swapped_code(context, node, new)}`",
                f"a test that {view.exercise(node)} and whose expected result depends on the "
                f"`{old_text}` in `{view.code(context)}`",
            )

    @staticmethod
    def _covered_elsewhere(view: SourceView, node: cst.CSTNode) -> bool:
        """Skip spots another family owns (defaults, slice and range bounds) or keys."""
        parent = view.parent(node)
        if isinstance(parent, cst.Param):
            return True
        if isinstance(parent, cst.Slice):
            return True
        if isinstance(parent, cst.Arg):
            call = view.parent(parent)
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "range":
                return True
        if isinstance(parent, cst.ConcatenatedString):
            return True
        if isinstance(node, cst.SimpleString):
            if isinstance(parent, (cst.DictElement,)) and parent.key is node:
                return True
            if isinstance(parent, cst.Index):
                return True
        return False


class LoopSkipsEdge:
    key = "loop-skips-edge"
    title = "loop skips its first or last element"
    risk_weight = 3
    examples = (
        Example(
            before="def total(prices):\n    s = 0\n    for p in prices:\n        s += p\n    return s\n",
            after="def total(prices):\n    s = 0\n    for p in prices[1:]:\n        s += p\n    return s\n",
            changed_intent="assumes the first item of `prices` needs no processing, like a header",
            incident="`total` never processes the first item of `prices`: `for p in prices` became "
                     "`for p in prices[1:]`",
        ),
    )

    _SLICEABLE_CALLS = frozenset({"sorted", "list", "tuple", "split", "splitlines", "readlines",
                                  "rsplit"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in (n for n in view.all_nodes() if isinstance(n, (cst.For, cst.CompFor))):
            iterable = node.iter
            if not self._sliceable(iterable):
                continue
            base = _as_atom(iterable)
            items, loop_var, who = view.code(iterable), view.code(node.target), view.who(node)
            for edge, piece in (("first", cst.Slice(lower=cst.Integer("1"), upper=None)),
                                ("last", cst.Slice(lower=None, upper=cst.UnaryOperation(
                                    cst.Minus(), cst.Integer("1"))))):
                new = cst.Subscript(value=base, slice=[cst.SubscriptElement(slice=piece)])
                kind = "a header" if edge == "first" else "a terminator"
                yield _site(
                    self.key, iterable, new, iterable,
                    f"assumes the {edge} item of `{items}` needs no processing, like {kind}",
                    f"{who} never processes the {edge} item of `{items}`: `for {loop_var} in "
                    f"{items}` became `for {loop_var} in {view.code(new)}`",
                    f"a test that {view.exercise(node)} where the {edge} item of `{items}` changes "
                    f"the result",
                )

    def _sliceable(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, (cst.Name, cst.Attribute, cst.List)):
            return True
        if isinstance(expr, cst.Tuple) and expr.lpar:
            return True
        if isinstance(expr, cst.Subscript):
            return not any(isinstance(e.slice, cst.Slice) for e in expr.slice)
        if isinstance(expr, cst.Call):
            return _call_name(expr) in self._SLICEABLE_CALLS
        return False


#: The registry: every intent-driven family, by key. Order is presentation order.
FAMILIES: dict[str, Family] = {
    family.key: family
    for family in (
        BoundaryInclusivity(),
        OffByOne(),
        NegatedCondition(),
        DroppedGuard(),
        SwallowedException(),
        BroadenedHandler(),
        DefaultReturn(),
        LostSideEffect(),
        SwappedArguments(),
        ChangedDefault(),
        AndOrConfusion(),
        AnyAllConfusion(),
        MinMaxConfusion(),
        MembershipInversion(),
        NoneCheckInversion(),
        EqualityInversion(),
        MissingNormalization(),
        ConstantDrift(),
        LoopSkipsEdge(),
    )
}
