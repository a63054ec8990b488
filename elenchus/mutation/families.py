"""Intent-driven mutation families: each one a plausible misunderstanding of intent.

A family finds the *sites* in a parsed module where its misunderstanding could be
made, and for each site says three things in the user's terms, built from
templates that name the concrete code:

- ``changed_intent``: what the programmer would have misunderstood;
- ``incident``: what a user of the code would suffer;
- ``expected_detection``: what a test must assert to notice.

Sites may sit anywhere in a module: in functions, in class bodies and in module-level
code. A site inside a module- or class-level assignment is named after what it assigns
("`MAX_RETRIES`", "`Config.retries`"), see ``SourceView.who``.

Families never apply their edits and never decide whether a site is worth running:
``elenchus.mutation.mutate`` applies exactly one site at a time and rejects arid or
equivalent mutants. No user-facing text here names an operator class.

Every family satisfies the ``Family`` protocol and is listed in ``FAMILIES``, an
explicit registry (no entry points). Each carries its own before/after examples,
which the unit tests run.
"""

from __future__ import annotations

import ast
import math
import re
import warnings
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

    # Optional: ``cues``, groups of code features (see ``code_features``) of which the code around
    # any site holds at least one group in full. A planner ranks a function by the families it
    # may hold before generating its mutants; a family without cues may apply anywhere.


# --------------------------------------------------------------------------- helpers

_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_AUGMENTED = re.compile(r"(?:[-+*/%&|^@]|<<|>>)=")


def _cues(*groups: str) -> tuple[frozenset[str], ...]:
    """``cues`` from space-separated groups: words, punctuation characters, ``<digit>``, ``<augmented>``."""
    return tuple(frozenset(group.split()) for group in groups)


def code_features(text: str) -> frozenset[str]:
    """The words and punctuation characters of ``text`` (comments included, so never too few),
    plus ``<digit>`` when a digit appears and ``<augmented>`` for an augmented assignment."""
    found = set(_WORD.findall(text))
    found.update(ch for ch in set(text) if not (ch.isalnum() or ch == "_" or ch.isspace()))
    if any(ch.isdigit() for ch in text):
        found.add("<digit>")
    if _AUGMENTED.search(text):
        found.add("<augmented>")
    return frozenset(found)


def may_apply(family: Family, features: frozenset[str]) -> bool:
    """Whether ``family`` can have a site in code with these ``code_features`` (its cues allow it)."""
    cues = getattr(family, "cues", None)
    return cues is None or any(group <= features for group in cues)


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
        """Sentence subject for the code around ``node``.

        "`clamp`" inside a function, "`MAX_SIZE`" or "`Config.retries`" inside a module-
        or class-level assignment, else "module-level code" or "the class body of `X`".
        """
        assigned = self.assigned_name(node)
        if assigned is not None:
            return f"`{assigned}`"
        qual = self.qualname(node)
        if qual is None:
            return "module-level code"
        if self._innermost_is_class(node):
            return f"the class body of `{qual}`"
        return f"`{qual}`"

    def exercise(self, node: cst.CSTNode) -> str:
        """What a test does to reach ``node``: "calls `clamp`", "uses `MAX_SIZE`" or "imports the module"."""
        assigned = self.assigned_name(node)
        if assigned is not None:
            return f"uses `{assigned}`"
        qual = self.qualname(node)
        if qual is None:
            return "imports the module"
        if self._innermost_is_class(node):
            return f"uses `{qual}`"
        return f"calls `{qual}`"

    def assigned_name(self, node: cst.CSTNode) -> str | None:
        """"MAX_SIZE" or "Config.retries" when ``node`` sits in a module- or class-level
        assignment to a plain name (``node`` may be the assignment itself), else None."""
        for current in (node, *self.ancestors(node)):
            if isinstance(current, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                target = current.targets[0].target if isinstance(current, cst.Assign) else current.target
                if not isinstance(target, cst.Name) or self.in_function(current):
                    return None
                owner = self.qualname(current)
                return f"{owner}.{target.value}" if owner else target.value
            if isinstance(current, (cst.BaseStatement, cst.BaseSmallStatement)):
                return None
        return None

    def in_function(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` is part of a function, at any depth."""
        return any(isinstance(a, cst.FunctionDef) for a in self.ancestors(node))

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


#: Places where any expression may stand without parentheses.
_OPEN_SLOTS = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Arg, cst.Element,
               cst.DictElement, cst.Index)


#: Expressions whose line breaks sit inside their own brackets.
_BRACKETED = (cst.Call, cst.Subscript, cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp,
              cst.SetComp)


def _fit(view: SourceView, original: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    """``new`` ready to stand where ``original`` stands, parenthesized only where needed:
    in an operand position, or when it spans lines that only ``original``'s brackets joined."""
    spans_lines = "\n" in view.module.code_for_node(new) and not isinstance(new, _BRACKETED)
    if isinstance(view.parent(original), _OPEN_SLOTS) and not spans_lines:
        return _keep_parens(original, new)
    return _keep_parens(original, _as_atom(new) if not spans_lines else _parenthesized(new))


def _verb(view: SourceView, expr: cst.BaseExpression) -> str:
    """How the code around ``expr`` uses it: "returns", "holds" (a setting) or "uses"."""
    holder = view.parent(expr)
    if isinstance(holder, cst.Return):
        return "returns"
    if isinstance(holder, (cst.Assign, cst.AnnAssign)) and view.assigned_name(expr) is not None:
        return "holds"
    return "uses"


def _without_element(display: cst.Dict | cst.List | cst.Tuple | cst.Set,
                     index: int) -> tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel]:
    """The minimal edit that drops one element, leaving no dangling `, ` or blank line."""
    elements = display.elements
    if index < len(elements) - 1:
        return elements[index], REMOVE
    last, previous = elements[index], elements[index - 1]
    kept = previous.with_changes(comma=last.comma)
    edited = display
    spacing = previous.comma.whitespace_after if isinstance(previous.comma, cst.Comma) else None
    closing = _closing_bracket(display)
    if (isinstance(spacing, cst.ParenthesizedWhitespace) and closing is not None
            and isinstance(closing.whitespace_before, cst.ParenthesizedWhitespace)):
        # One element per line: the closing bracket keeps its line, `previous` its comment.
        kept = previous.with_changes(comma=previous.comma.with_changes(
            whitespace_after=cst.SimpleWhitespace("")))
        edited = display.deep_replace(closing, closing.with_changes(
            whitespace_before=closing.whitespace_before.with_changes(
                first_line=spacing.first_line, empty_lines=spacing.empty_lines)))
    return display, edited.with_changes(elements=[*elements[:-2], kept])


def _closing_bracket(display: cst.Dict | cst.List | cst.Tuple | cst.Set
                     ) -> cst.RightCurlyBrace | cst.RightSquareBracket | cst.RightParen | None:
    if isinstance(display, cst.Tuple):
        return display.rpar[-1] if display.rpar else None
    return display.rbracket if isinstance(display, cst.List) else display.rbrace


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


def _change(view: SourceView, node: cst.BaseExpression, new: cst.BaseExpression) -> str:
    """"`total = 0` became `total = 1`": the code around ``node`` before and after the edit."""
    context = view.context(node)
    return f"`{view.code(context)}` became `{view.swapped_code(context, node, new)}`"


def _in_dunder_assignment(view: SourceView, node: cst.CSTNode) -> bool:
    """Whether ``node`` is part of `__all__ = ...`, `__version__ = ...` and the like."""
    name = view.assigned_name(node)
    last = name.rsplit(".", 1)[-1] if name else ""
    return len(last) > 4 and last.startswith("__") and last.endswith("__")


def _used_as_value(view: SourceView, expr: cst.BaseExpression) -> bool:
    """Whether the result of ``expr`` is used (it is not a statement of its own)."""
    return not isinstance(view.parent(expr), cst.Expr)


def _is_target(view: SourceView, expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` is (part of) something assigned to, deleted or looped into."""
    current: cst.CSTNode = expr
    for parent in view.ancestors(expr):
        if isinstance(parent, (cst.AssignTarget, cst.Del, cst.AsName)):
            return True
        if isinstance(parent, (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor)):
            return parent.target is current
        if not isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
            return False
        current = parent
    return False


#: A separator and the one a programmer most plausibly confuses it with.
_SEPARATOR_NEIGHBOURS = {
    ",": ";", ";": ",", ".": ",", "-": "_", "_": "-", "/": "\\", "\\": "/", ": ": ":",
    ", ": ",", "=": ":", "\t": " ",
}


def _separator_neighbour(string: cst.SimpleString) -> cst.SimpleString | None:
    """``string`` with its separator swapped for the neighbour (`','` -> `';'`), or None."""
    value = string.evaluated_value
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    neighbour = _SEPARATOR_NEIGHBOURS.get(text)
    if neighbour is None or string.quote not in ("'", '"'):
        return None
    if "r" in string.prefix.lower():
        return None if "\\" in neighbour or "\t" in neighbour else _with_text(string, neighbour)
    return _with_text(string, neighbour.replace("\\", "\\\\").replace("\t", "\\t"))


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
    cues = _cues('<', '>')
    examples = (
        Example(
            before="def admit(count, limit):\n    if count <= limit:\n        return 'in'\n    return 'full'\n",
            after="def admit(count, limit):\n    if count < limit:\n        return 'in'\n    return 'full'\n",
            changed_intent="treats `limit` as an exclusive bound for `count`",
            incident="`admit` now treats `count` equal to `limit` as if it were above `limit`: "
                     "`count <= limit` became `count < limit`",
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
    cues = _cues(': [', 'range')
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
    cues = _cues('if', 'elif', 'while')
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
    cues = _cues('if raise', 'if return')
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
        Example(
            before=("def ratio(part, whole):\n"
                    "    if whole == 0:\n"
                    "        return 0.0\n"
                    "    return part / whole\n"),
            after=("def ratio(part, whole):\n"
                   "    return part / whole\n"),
            changed_intent="assumes `whole == 0` needs no special handling",
            incident="`ratio` no longer handles the case `whole == 0` on its own: the early return "
                     "`if whole == 0: return 0.0` was removed",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.If):
            if node.orelse is not None or isinstance(view.parent(node), cst.If):
                continue  # an if/else or elif chain is a decision, not a guard
            raised = _raise_in(node.body)
            if raised is None:
                early = self._early_return(view, node)
                if early is not None:
                    yield early
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


    def _early_return(self, view: SourceView, node: cst.If) -> Site | None:
        """A guard clause that returns a special value before the general case: `if whole == 0: return 0.0`."""
        statements = node.body.body
        if len(statements) != 1 or not isinstance(statements[0], (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return None
        smalls = statements[0].body
        if len(smalls) != 1 or not isinstance(smalls[0], cst.Return) or smalls[0].value is None:
            return None
        block = view.parent(node)
        siblings = list(block.body) if isinstance(block, (cst.IndentedBlock, cst.Module)) else []
        if not siblings or siblings[-1] is node or view.function(node) is None:
            return None  # the general case must follow the guard, inside a function
        cond, value = view.code(node.test), view.code(smalls[0].value)
        target, replacement = _drop_statement(view, node)
        return _site(
            self.key, target, replacement, node,
            f"assumes `{cond}` needs no special handling",
            f"{view.who(node)} no longer handles the case `{cond}` on its own: the early return "
            f"`if {cond}: return {value}` was removed",
            f"a test that {view.exercise(node)} with input where `{cond}` holds and checks that it gives "
            f"`{value}`",
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
    cues = _cues('raise')
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
    cues = _cues('except')
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
    cues = _cues('return')
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
    cues = _cues('.', '[', '<augmented>')
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
    cues = _cues('( ,')
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
    cues = _cues('=')
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
    """The nearest plausibly-confused literal: 0<->1, n->n+1, x->x+1.0, -n->-(n+1),
    True<->False, ''<->'x'."""
    if isinstance(expr, cst.Integer) and int(expr.evaluated_value) in (0, 1):
        new: cst.BaseExpression | None = cst.Integer("1" if int(expr.evaluated_value) == 0 else "0")
    elif isinstance(expr, (cst.Integer, cst.Float)):
        new = _bumped(expr)
    elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        magnitude = _bumped(expr.expression)
        new = expr.with_changes(expression=magnitude) if magnitude is not None else None
    elif isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        new = cst.Name("False" if expr.value == "True" else "True")
    elif isinstance(expr, cst.SimpleString):
        new = _with_text(expr, "" if expr.raw_value else "x")
    else:
        new = None
    return _keep_parens(expr, new) if new is not None else None


def _bumped(number: cst.BaseExpression) -> cst.BaseExpression | None:
    """``number`` plus one, as a literal of its kind (`0xff` -> `0x100`, `2.5` -> `3.5`)."""
    if isinstance(number, cst.Integer):
        return number.with_changes(value=_integer_text(int(number.evaluated_value) + 1, number.value))
    if isinstance(number, cst.Float):
        bumped = float(number.evaluated_value) + 1.0
        if math.isinf(bumped):
            return None  # 1e999 spells infinity, which has no literal to drift to
        return number.with_changes(value=repr(bumped))
    return None


def _drifted_value(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """A drifted value in a mapping: a separator becomes its neighbour, other literals drift."""
    if isinstance(expr, cst.SimpleString):
        neighbour = _separator_neighbour(expr)
        if neighbour is not None:
            return neighbour
    return _drifted_constant(expr)


def _integer_text(value: int, like: str) -> str:
    """``value`` written in the base of the literal ``like`` (`0xff` drifts to `0x100`)."""
    base = like[:2].lower()
    if value >= 0 and base in ("0x", "0o", "0b"):
        return {"0x": hex, "0o": oct, "0b": bin}[base](value)
    return str(value)


def _is_negative(node: cst.CSTNode | None) -> bool:
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus)


def _with_text(string: cst.SimpleString, text: str) -> cst.SimpleString:
    """``string`` with its contents (as written in source) replaced, prefix and quotes kept."""
    return string.with_changes(value=f"{string.prefix}{string.quote}{text}{string.quote}")


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
    cues = _cues('in')
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
    cues = _cues('is')
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
    cues = _cues('=', '!')
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
    cues = _cues('and', 'or')
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
    cues = _cues('any', 'all')
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
    cues = _cues('min', 'max')
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
    cues = _cues('strip', 'lstrip', 'rstrip', 'lower', 'upper', 'casefold', 'sorted', 'abs')
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


class BypassedCall:
    key = "bypassed-call"
    title = "call bypassed: its argument used as it is"
    risk_weight = 3
    examples = (
        Example(
            before="def parse_port(text):\n    return int(text)\n",
            after="def parse_port(text):\n    return text\n",
            changed_intent="believes `text` is already what `int(text)` makes of it",
            incident="`parse_port` returns `text` itself instead of converting it with `int(text)`: "
                     "`int(text)` became `text`",
        ),
        Example(
            before="def clamp(value, lo, hi):\n    return max(lo, min(value, hi))\n",
            after="def clamp(value, lo, hi):\n    return max(lo, value)\n",
            changed_intent="believes `value` is already what `min(value, hi)` makes of it",
            incident="`clamp` uses `value` itself instead of limiting it with `min(value, hi)`: "
                     "`max(lo, min(value, hi))` became `max(lo, value)`",
        ),
        Example(
            before="import os\n\nDATA_DIR = os.path.normpath(BASE_DIR + '/data')\n",
            after="import os\n\nDATA_DIR = BASE_DIR + '/data'\n",
            changed_intent="believes `BASE_DIR + '/data'` is already what "
                           "`os.path.normpath(BASE_DIR + '/data')` makes of it",
            incident="`DATA_DIR` holds `BASE_DIR + '/data'` itself instead of normalizing it with "
                     "`os.path.normpath(BASE_DIR + '/data')`: `DATA_DIR = os.path.normpath(BASE_DIR "
                     "+ '/data')` became `DATA_DIR = BASE_DIR + '/data'`",
        ),
    )

    _CONVERSIONS = ("int", "float", "str", "bytes", "bool", "complex", "tuple", "frozenset", "list",
                    "set", "dict", "Decimal", "Fraction", "Path", "PurePath")
    _NORMALIZERS = ("normpath", "abspath", "realpath", "normcase", "expanduser", "expandvars")
    _DOING = {
        **dict.fromkeys(_CONVERSIONS, "converting it with"),
        **dict.fromkeys(_NORMALIZERS, "normalizing it with"),
        "round": "rounding it with", "min": "limiting it with", "max": "limiting it with",
        "reversed": "reversing it with",
    }
    #: Reached through a module (`os.path.normpath`, `decimal.Decimal`); the rest are builtins.
    _QUALIFIED = frozenset({*_NORMALIZERS, "Decimal", "Fraction", "Path", "PurePath"})
    cues = tuple(frozenset({name}) for name in _DOING)

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            name = _call_name(call)
            if name not in self._DOING or not _used_as_value(view, call):
                continue
            if isinstance(call.func, cst.Attribute) and name not in self._QUALIFIED:
                continue
            for arg in self._bypassing_arguments(call, name):
                new = _fit(view, call, arg.value)
                subject, whole = view.code(arg.value), view.code(call)
                yield _site(
                    self.key, call, new, call,
                    f"believes `{subject}` is already what `{whole}` makes of it",
                    f"{view.who(call)} {_verb(view, call)} `{subject}` itself instead of "
                    f"{self._DOING[name]} `{whole}`: {_change(view, call, new)}",
                    f"a test that {view.exercise(call)} where `{subject}` and `{whole}` differ, and "
                    f"checks the result",
                )

    @staticmethod
    def _bypassing_arguments(call: cst.Call, name: str) -> list[cst.Arg]:
        """The arguments that could stand for the call: the subject, or any of min/max's."""
        if any(arg.star for arg in call.args):
            return []
        args = _positional(call)
        if name in ("min", "max"):
            args = args[:3] if len(args) >= 2 else []
        else:
            args = args[:1]
            if name in ("list", "dict", "set") and args and isinstance(
                    args[0].value, (cst.Name, cst.Attribute)):
                return []  # a copy of a named collection: dropped-copy tells that story
        return [a for a in args
                if not _is_literal(a.value) and not isinstance(a.value, (
                    cst.FormattedString, cst.ConcatenatedString, cst.GeneratorExp, cst.Lambda))]


class DroppedChainStep:
    key = "dropped-chain-step"
    title = "step dropped from a method chain"
    risk_weight = 3
    cues = _cues('( .')
    examples = (
        Example(
            before="def slug(title):\n    return title.replace(' ', '-').replace('/', '-')\n",
            after="def slug(title):\n    return title.replace('/', '-')\n",
            changed_intent="believes `.replace(' ', '-')` makes no difference to `title`",
            incident="`slug` no longer applies `.replace(' ', '-')` to `title`: "
                     "`title.replace(' ', '-').replace('/', '-')` became `title.replace('/', '-')`",
        ),
        Example(
            before="def recent(session, since):\n"
                   "    return session.query(Event).filter(Event.at > since).all()\n",
            after="def recent(session, since):\n    return session.query(Event).all()\n",
            changed_intent="believes `.filter(Event.at > since)` makes no difference to "
                           "`session.query(Event)`",
            incident="`recent` no longer applies `.filter(Event.at > since)` to "
                     "`session.query(Event)`: `session.query(Event).filter(Event.at > since).all()` "
                     "became `session.query(Event).all()`",
        ),
        Example(
            before="from datetime import datetime\n\n"
                   "STARTED = datetime.now().replace(microsecond=0)\n",
            after="from datetime import datetime\n\nSTARTED = datetime.now()\n",
            changed_intent="believes `.replace(microsecond=0)` makes no difference to "
                           "`datetime.now()`",
            incident="`STARTED` no longer applies `.replace(microsecond=0)` to `datetime.now()`: "
                     "`datetime.now().replace(microsecond=0)` became `datetime.now()`",
        ),
    )

    #: Methods that return a transformed copy of their receiver, so dropping one anywhere in a
    #: chain is plausible; other methods are dropped only from the middle of a chain.
    _TRANSFORMS = frozenset({"replace", "removeprefix", "removesuffix", "title", "capitalize",
                             "swapcase", "zfill", "expandtabs", "resolve", "absolute", "expanduser",
                             "astimezone", "normalize"})
    #: Steps whose loss another family describes: missing-normalization and dropped-copy.
    _OWNED = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "copy"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            func = call.func
            if not isinstance(func, cst.Attribute) or func.attr.value in self._OWNED:
                continue
            receiver, top = func.value, _chain_top(view, call)
            inner = _is_method_call(receiver) and top is not call  # `.filter()` in `q.filter().all()`
            if not (inner or (func.attr.value in self._TRANSFORMS and _used_as_value(view, top))):
                continue  # a last step like `.split()` changes what comes out, not how it is made
            new = _fit(view, call, receiver)
            step, subject = "." + view.code(call.with_changes(func=func.attr)), view.code(receiver)
            yield _site(
                self.key, call, new, func.attr,
                f"believes `{step}` makes no difference to `{subject}`",
                f"{view.who(call)} no longer applies `{step}` to `{subject}`: `{view.code(top)}` "
                f"became `{view.swapped_code(top, call, new)}`",
                f"a test that {view.exercise(call)} where `{step}` changes `{subject}`, and checks "
                f"the result",
            )


def _is_method_call(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)


def _chain_top(view: SourceView, call: cst.Call) -> cst.Call:
    """The last call of the method chain ``call`` belongs to (`a.b().c()` for `a.b()`)."""
    top = call
    while True:
        attribute = view.parent(top)
        outer = view.parent(attribute) if isinstance(attribute, cst.Attribute) else None
        if not (isinstance(outer, cst.Call) and outer.func is attribute):
            return top
        top = outer


class DroppedCopy:
    key = "dropped-copy"
    title = "defensive copy dropped"
    risk_weight = 4
    cues = _cues(': [', 'copy', 'deepcopy', 'list', 'dict', 'set')
    examples = (
        Example(
            before="class Cart:\n    def items(self):\n        return self._items[:]\n",
            after="class Cart:\n    def items(self):\n        return self._items\n",
            changed_intent="believes nobody changes `self._items` or its copy `self._items[:]` "
                           "afterwards",
            incident="`Cart.items` returns `self._items` itself instead of a copy, so a change to "
                     "one shows up in the other: `self._items[:]` became `self._items`",
        ),
        Example(
            before="def settings(overrides):\n    merged = dict(DEFAULTS)\n"
                   "    merged.update(overrides)\n    return merged\n",
            after="def settings(overrides):\n    merged = DEFAULTS\n"
                  "    merged.update(overrides)\n    return merged\n",
            changed_intent="believes nobody changes `DEFAULTS` or its copy `dict(DEFAULTS)` afterwards",
            incident="`settings` uses `DEFAULTS` itself instead of a copy, so a change to one shows "
                     "up in the other: `merged = dict(DEFAULTS)` became `merged = DEFAULTS`",
        ),
        Example(
            before="import copy\n\nSTATE = copy.deepcopy(INITIAL_STATE)\n",
            after="import copy\n\nSTATE = INITIAL_STATE\n",
            changed_intent="believes nobody changes `INITIAL_STATE` or its copy "
                           "`copy.deepcopy(INITIAL_STATE)` afterwards",
            incident="`STATE` holds `INITIAL_STATE` itself instead of a copy, so a change to one "
                     "shows up in the other: `STATE = copy.deepcopy(INITIAL_STATE)` became "
                     "`STATE = INITIAL_STATE`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.all_nodes():
            if not isinstance(node, (cst.Subscript, cst.Call)) or not self._kept(view, node):
                continue
            original = self._copied(node)
            if original is None:
                continue
            new = _fit(view, node, original)
            subject, copied, name = view.code(original), view.code(node), view.assigned_name(node)
            yield _site(
                self.key, node, new, node,
                f"believes nobody changes `{subject}` or its copy `{copied}` afterwards",
                f"{view.who(node)} {_verb(view, node)} `{subject}` itself instead of a copy, so a "
                f"change to one shows up in the other: {_change(view, node, new)}",
                f"a test that {view.exercise(node)}, then changes `{subject}` or "
                f"{f'`{name}`' if name else 'the result'}, and checks that the other is unaffected",
            )

    @staticmethod
    def _kept(view: SourceView, node: cst.BaseExpression) -> bool:
        """Whether the copy is stored, returned or looped over (not an operand like `set(a) & b`)."""
        holder = view.parent(node)
        if isinstance(holder, (cst.Assign, cst.AnnAssign, cst.Return, cst.Yield)):
            return holder.value is node
        return isinstance(holder, cst.For) and holder.iter is node

    @staticmethod
    def _copied(node: cst.Subscript | cst.Call) -> cst.BaseExpression | None:
        """What ``node`` copies: `xs` in `xs[:]`, `xs.copy()`, `list(xs)`, `copy.copy(xs)`."""
        if isinstance(node, cst.Subscript):
            piece = node.slice[0].slice if len(node.slice) == 1 else None
            whole = isinstance(piece, cst.Slice) and piece.lower is piece.upper is piece.step is None
            return node.value if whole else None
        func, args = node.func, node.args
        if isinstance(func, cst.Attribute) and func.attr.value == "copy" and not args:
            return func.value
        if len(args) != 1 or args[0].keyword is not None or args[0].star:
            return None
        value = args[0].value
        if isinstance(func, cst.Name) and func.value in ("list", "dict", "set"):
            return value if isinstance(value, (cst.Name, cst.Attribute)) else None
        module_copy = (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                       and func.value.value == "copy")
        if _call_name(node) in ("copy", "deepcopy") and (module_copy or isinstance(func, cst.Name)):
            return value
        return None


class BaseClassInstance:
    key = "base-class-instance"
    title = "subclass gets a base-class instance"
    risk_weight = 3
    cues = _cues('(')
    examples = (
        Example(
            before="class Money:\n    def __add__(self, other):\n"
                   "        return type(self)(self.cents + other.cents)\n",
            after="class Money:\n    def __add__(self, other):\n"
                  "        return Money(self.cents + other.cents)\n",
            changed_intent="believes `Money.__add__` only ever runs on `Money` itself, never on a "
                           "subclass",
            incident="subclasses of `Money` get a plain `Money` back from `Money.__add__`: "
                     "`type(self)(self.cents + other.cents)` became `Money(self.cents + other.cents)`",
        ),
        Example(
            before="class Config:\n    @classmethod\n    def from_dict(cls, data):\n"
                   "        return cls(**data)\n",
            after="class Config:\n    @classmethod\n    def from_dict(cls, data):\n"
                  "        return Config(**data)\n",
            changed_intent="believes `Config.from_dict` only ever runs on `Config` itself, never on "
                           "a subclass",
            incident="subclasses of `Config` get a plain `Config` back from `Config.from_dict`: "
                     "`cls(**data)` became `Config(**data)`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            method = view.function(call)
            if method is None or not self._own_class(call.func, method):
                continue
            owner = view.parent(view.parent(method))  # the class around the method's block
            if not isinstance(owner, cst.ClassDef):
                continue
            cls, qual = _class_path(view, owner), view.qualname(method)
            new = _keep_parens(call.func, cst.parse_expression(cls))
            yield _site(
                self.key, call.func, new, call,
                f"believes `{qual}` only ever runs on `{cls}` itself, never on a subclass",
                f"subclasses of `{cls}` get a plain `{cls}` back from `{qual}`: `{view.code(call)}` "
                f"became `{view.swapped_code(call, call.func, new)}`",
                f"a test that calls `{qual}` on a subclass of `{cls}` and checks that the result is "
                f"an instance of that subclass",
            )

    @staticmethod
    def _own_class(func: cst.BaseExpression, method: cst.FunctionDef) -> bool:
        """Whether ``func`` is `type(self)`, `self.__class__`, or `cls` in a classmethod."""
        params = [*method.params.posonly_params, *method.params.params]
        decorators = {d.decorator.value for d in method.decorators if isinstance(d.decorator, cst.Name)}
        if not params or "staticmethod" in decorators:
            return False
        first = params[0].name.value
        if "classmethod" in decorators:
            return isinstance(func, cst.Name) and func.value == first
        if isinstance(func, cst.Attribute):
            return (func.attr.value == "__class__" and isinstance(func.value, cst.Name)
                    and func.value.value == first)
        return (isinstance(func, cst.Call) and isinstance(func.func, cst.Name)
                and func.func.value == "type" and len(func.args) == 1
                and isinstance(func.args[0].value, cst.Name) and func.args[0].value.value == first)


def _class_path(view: SourceView, cls: cst.ClassDef) -> str:
    """How code inside ``cls`` names it: `Outer.Inner` up to the nearest function."""
    names = [cls.name.value]
    for a in view.ancestors(cls):
        if isinstance(a, cst.FunctionDef):
            break
        if isinstance(a, cst.ClassDef):
            names.insert(0, a.name.value)
    return ".".join(names)


class RegexSlip:
    key = "regex-slip"
    title = "regular expression slip"
    risk_weight = 3
    cues = _cues("'", '"')
    examples = (
        Example(
            before="import re\n\n\ndef slugify(text):\n    return re.sub(r'[-_.]+', '-', text)\n",
            after="import re\n\n\ndef slugify(text):\n    return re.sub(r'[-_]+', '-', text)\n",
            changed_intent="believes the text never has `.` where `[-_.]` matches",
            incident="`slugify` no longer matches `.` with the pattern `r'[-_.]+'`: the class "
                     "`[-_.]` became `[-_]`",
        ),
        Example(
            before="import re\n\nVERSION_RE = re.compile(r'^v\\d+$')\n",
            after="import re\n\nVERSION_RE = re.compile(r'^v\\d*$')\n",
            changed_intent="believes `\\d` may be missing where `r'^v\\d+$'` matches",
            incident="`VERSION_RE` also matches where there is no `\\d`, though the pattern "
                     "`r'^v\\d+$'` requires at least one: `\\d+` became `\\d*`",
        ),
        Example(
            before="import re\n\nVERSION_RE = re.compile(r'^v\\d+$')\n",
            after="import re\n\nVERSION_RE = re.compile(r'^v\\d$')\n",
            changed_intent="believes `\\d` appears once where `r'^v\\d+$'` matches",
            incident="`VERSION_RE` matches a single `\\d` where the pattern `r'^v\\d+$'` takes one or more: "
                     "`\\d+` became `\\d`",
        ),
        Example(
            before="class Account:\n    NAME_PATTERN = r'^[a-z]+$'\n",
            after="class Account:\n    NAME_PATTERN = r'^[a-z]+'\n",
            changed_intent="believes a match of `r'^[a-z]+$'` that does not reach the end of the "
                           "text is as good as one that does",
            incident="`Account.NAME_PATTERN` no longer requires a match of `r'^[a-z]+$'` to reach "
                     "the end of the text: `r'^[a-z]+$'` became `r'^[a-z]+'`",
        ),
    )

    _FUNCTIONS = frozenset({"compile", "match", "search", "fullmatch", "sub", "subn", "split",
                            "findall", "finditer"})
    _NAMED = re.compile(r"(^|_)(RE|REGEX|PATTERN)$")

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        # A window of a large file (see elenchus.mutation.mutate) carries the uses found in the whole file.
        named_uses: dict[str, set[str]] | None = getattr(wrapper, "regex_uses", None)
        if named_uses is None:
            named_uses = {}
            for call in view.nodes(cst.Call):
                used = self._regex_function(call)
                if used and call.args and isinstance(call.args[0].value, (cst.Name, cst.Attribute)):
                    value = call.args[0].value
                    name = value.value if isinstance(value, cst.Name) else value.attr.value
                    named_uses.setdefault(name, set()).add(used)
        for node in view.nodes(cst.SimpleString):
            uses = self._uses(view, node, named_uses)
            if uses is None or not self._editable(node):
                continue
            for edit in _regex_edits(node.raw_value):
                if (edit.kind == "start" and uses and uses <= {"match", "fullmatch"}
                        or edit.kind == "end" and uses == {"fullmatch"}):
                    continue  # the call anchors the match already: the edit changes nothing
                new = _with_text(node, edit.pattern)
                if not _compiles_as_regex(new):
                    continue
                yield self._site(view, node, new, edit)

    def _site(self, view: SourceView, node: cst.SimpleString, new: cst.SimpleString,
              edit: _RegexEdit) -> Site:
        who, literal, new_literal = view.who(node), view.code(node), view.code(new)
        part, new_part, piece = edit.part, edit.new_part, edit.piece
        intent, incident, detection = {
            "class": (f"believes the text never has `{piece}` where `{part}` matches",
                      f"{who} no longer matches `{piece}` with the pattern `{literal}`: the class "
                      f"`{part}` became `{new_part}`",
                      f"with text that has `{piece}` where `{part}` should match it"),
            "excluded": (f"believes the text never has `{piece}` where `{part}` matches",
                         f"{who} now matches `{piece}` where the pattern `{literal}` excluded it: the "
                         f"class `{part}` became `{new_part}`",
                         f"with text that has `{piece}` where `{part}` must refuse it"),
            "plus": (f"believes `{piece}` may be missing where `{literal}` matches",
                     f"{who} also matches where there is no `{piece}`, though the pattern "
                     f"`{literal}` requires at least one: `{part}` became `{new_part}`",
                     f"with text that lacks `{piece}` where `{literal}` requires it, expecting no match"),
            "single": (f"believes `{piece}` appears once where `{literal}` matches",
                       f"{who} matches a single `{piece}` where the pattern `{literal}` takes one or more: "
                       f"`{part}` became `{new_part}`",
                       f"with text that has `{piece}` twice in a row where `{literal}` matches"),
            "start": (f"believes a match of `{literal}` that does not start the text is as good as "
                      f"one that does",
                      f"{who} no longer requires a match of `{literal}` to start the text: "
                      f"`{literal}` became `{new_literal}`",
                      f"with extra text before a match of `{literal}`, expecting no match"),
            "end": (f"believes a match of `{literal}` that does not reach the end of the text is "
                    f"as good as one that does",
                    f"{who} no longer requires a match of `{literal}` to reach the end of the text: "
                    f"`{literal}` became `{new_literal}`",
                    f"with extra text after a match of `{literal}`, expecting no match"),
        }[edit.kind]
        return _site(self.key, node, new, node, intent, incident,
                     f"a test that {view.exercise(node)} {detection}")

    @classmethod
    def uses_in(cls, tree: ast.AST, into: dict[str, set[str]]) -> None:
        """``find_sites``' names used as patterns (`re.match(NAME_RE, ...)`), read from an ``ast`` tree."""
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and isinstance(call.func.value, ast.Name) and call.func.value.id in ("re", "regex")
                    and call.func.attr in cls._FUNCTIONS):
                continue
            arguments = [(a.lineno, a.col_offset, a.value if isinstance(a, ast.Starred) else a) for a in call.args]
            arguments += [(k.lineno, k.col_offset, k.value) for k in call.keywords]
            if not arguments:
                continue
            first = min(arguments, key=lambda a: (a[0], a[1]))[2]  # libcst keeps source order
            if isinstance(first, (ast.Name, ast.Attribute)):
                name = first.id if isinstance(first, ast.Name) else first.attr
                into.setdefault(name, set()).add(call.func.attr)

    def _regex_function(self, call: cst.Call) -> str | None:
        func = call.func
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value in ("re", "regex") and func.attr.value in self._FUNCTIONS):
            return func.attr.value
        return None

    def _uses(self, view: SourceView, node: cst.SimpleString,
              named_uses: dict[str, set[str]]) -> set[str] | None:
        """The `re` functions ``node`` is a pattern for (empty: unknown), or None if it is not one."""
        arg = view.parent(node)
        call = view.parent(arg) if isinstance(arg, cst.Arg) else None
        if isinstance(call, cst.Call) and isinstance(arg, cst.Arg) and call.args[0] is arg:
            used = self._regex_function(call)
            return {used} if used else None
        holder, name = view.parent(node), view.assigned_name(node)
        if name is None or not isinstance(holder, (cst.Assign, cst.AnnAssign)):
            return None
        last = name.rsplit(".", 1)[-1]
        if last in named_uses:
            return named_uses[last]
        return set() if self._NAMED.search(last.upper()) else None

    @staticmethod
    def _editable(node: cst.SimpleString) -> bool:
        """Source text that is the pattern itself: raw, or free of escapes; no verbose comments."""
        text = node.raw_value
        if "\\" in text and "r" not in node.prefix.lower():
            return False
        return not (len(node.quote) == 3 and "#" in text)


def _compiles_as_regex(string: cst.SimpleString) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "possible nested set" and the like: still a pattern
        try:
            re.compile(string.evaluated_value)
        except (re.error, ValueError):
            return False
    return True


@dataclass(frozen=True, slots=True)
class _RegexEdit:
    """One slip in a pattern: ``part`` of it became ``new_part``; ``piece`` is what it concerns."""

    pattern: str
    kind: str  # "class", "excluded" (negated class), "plus", "single", "start" or "end"
    part: str
    new_part: str
    piece: str


def _regex_edits(pattern: str) -> Iterator[_RegexEdit]:
    """A class member dropped, `x+` loosened to `x*` or made single `x`, a `^` or `$` anchor dropped."""
    if pattern.startswith("^"):
        yield _RegexEdit(pattern[1:], "start", "^", "", "^")
    groups: list[int] = []
    atom: int | None = None  # where the atom before the current character starts
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            atom, i = i, i + 2
            continue
        if char == "[":
            end, members = _class_members(pattern, i)
            if end is None:
                return
            part = pattern[i:end + 1]
            kind = "excluded" if part.startswith("[^") else "class"
            for start, stop in members if len(members) > 1 else ():
                yield _RegexEdit(pattern[:start] + pattern[stop:], kind, part,
                                 pattern[i:start] + pattern[stop:end + 1], pattern[start:stop])
            atom, i = i, end + 1
            continue
        if char == "+" and atom is not None:
            piece = pattern[atom:i]
            yield _RegexEdit(pattern[:i] + "*" + pattern[i + 1:], "plus", f"{piece}+", f"{piece}*",
                             piece)
            if pattern[i + 1:i + 2] not in ("?", "+"):  # (`x+?` made `x?` would be another slip)
                yield _RegexEdit(pattern[:i] + pattern[i + 1:], "single", f"{piece}+", piece, piece)
        if char == "(":
            groups.append(i)
        if char == ")":
            atom = groups.pop() if groups else None  # a group is one atom: `(ab)+`
        else:
            atom = None if char in "(|^$*+?{" else i
        if char == "{":  # a `{m,n}` quantifier: skip to its end
            close = pattern.find("}", i)
            i = close if close >= 0 else len(pattern)
        i += 1
    backslashes = len(pattern[:-1]) - len(pattern[:-1].rstrip("\\"))
    if pattern.endswith("$") and backslashes % 2 == 0 and len(pattern) > 1:
        yield _RegexEdit(pattern[:-1], "end", "$", "", "$")


def _class_members(pattern: str, start: int) -> tuple[int | None, list[tuple[int, int]]]:
    """Where the class opening at ``start`` closes, and its members (`a`, `a-z`, `\\d`)."""
    i = start + 1
    if pattern[i:i + 1] == "^":
        i += 1
    members = []
    first = True
    while i < len(pattern) and (pattern[i] != "]" or first):  # `[]a]`: a leading `]` is literal
        first, begin = False, i
        i += 2 if pattern[i] == "\\" else 1
        if pattern[i:i + 1] == "-" and pattern[i + 1:i + 2] not in ("", "]"):
            i += 3 if pattern[i + 1] == "\\" else 2
        members.append((begin, i))
    return (i, members) if i < len(pattern) else (None, [])


class WrongSeparator:
    key = "wrong-separator"
    title = "wrong separator string"
    risk_weight = 2
    cues = _cues("'", '"')
    examples = (
        Example(
            before="def parse_row(line):\n    return line.split(',')\n",
            after="def parse_row(line):\n    return line.split(';')\n",
            changed_intent="believes the separator in `line.split(',')` is `';'`, not `','`",
            incident="`parse_row` works with the separator `';'` instead of `','`: "
                     "`line.split(',')` became `line.split(';')`",
        ),
        Example(
            before="HEADER = ', '.join(COLUMNS)\n",
            after="HEADER = ','.join(COLUMNS)\n",
            changed_intent="believes the separator in `HEADER = ', '.join(COLUMNS)` is `','`, "
                           "not `', '`",
            incident="`HEADER` works with the separator `','` instead of `', '`: "
                     "`HEADER = ', '.join(COLUMNS)` became `HEADER = ','.join(COLUMNS)`",
        ),
    )

    _METHODS = frozenset({"split", "rsplit", "join", "replace", "partition", "rpartition",
                          "startswith", "endswith", "strip", "lstrip", "rstrip"})
    _KEYWORDS = frozenset({"sep", "delimiter", "separator"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.SimpleString):
            if not self._separates(view, node):
                continue
            new = _separator_neighbour(node)
            if new is None:
                continue
            old_text, new_text = view.code(node), view.code(new)
            context = view.code(view.context(node))
            yield _site(
                self.key, node, new, node,
                f"believes the separator in `{context}` is `{new_text}`, not `{old_text}`",
                f"{view.who(node)} works with the separator `{new_text}` instead of `{old_text}`: "
                f"{_change(view, node, new)}",
                f"a test that {view.exercise(node)} and checks a result that depends on the "
                f"separator `{old_text}`",
            )

    def _separates(self, view: SourceView, node: cst.SimpleString) -> bool:
        """Whether ``node`` is a separator argument, a `sep=`, or the receiver of `.join`."""
        parent = view.parent(node)
        if isinstance(parent, cst.Attribute):
            call = view.parent(parent)
            return parent.attr.value == "join" and isinstance(call, cst.Call) and call.func is parent
        if not isinstance(parent, cst.Arg):
            return False
        if parent.keyword is not None:
            return parent.keyword.value in self._KEYWORDS
        call = view.parent(parent)
        return (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and call.func.attr.value in self._METHODS and call.func.attr.value != "join")


class DroppedEntry:
    key = "dropped-entry"
    title = "entry missing from a mapping or list"
    risk_weight = 3
    cues = _cues(',')
    examples = (
        Example(
            before="MIME_TYPES = {'.svg': 'image/svg+xml', '.png': 'image/png'}\n",
            after="MIME_TYPES = {'.png': 'image/png'}\n",
            changed_intent="believes nothing needs the key `'.svg'`",
            incident="`MIME_TYPES` no longer maps `'.svg'`: the entry `'.svg': 'image/svg+xml'` "
                     "was removed",
        ),
        Example(
            before="class Upload:\n    ALLOWED = ('jpg', 'png', 'gif')\n",
            after="class Upload:\n    ALLOWED = ('jpg', 'gif')\n",
            changed_intent="believes `'png'` does not belong in `('jpg', 'png', 'gif')`",
            incident="`Upload.ALLOWED` no longer includes `'png'`: it was removed from "
                     "`('jpg', 'png', 'gif')`",
        ),
        Example(
            before="PLURALS = [\n    (r'(?i)(quiz)$', r'\\1zes'),\n    (r'$', 's'),\n]\n",
            after="PLURALS = [\n    (r'$', 's'),\n]\n",
            changed_intent="believes the row `(r'(?i)(quiz)$', r'\\1zes')` does not belong in `PLURALS`",
            incident="`PLURALS` no longer holds the row `(r'(?i)(quiz)$', r'\\1zes')`: it was removed from "
                     "`PLURALS`",
        ),
        Example(
            before="def to_json(user):\n    return {'id': user.id, 'name': user.name}\n",
            after="def to_json(user):\n    return {'id': user.id}\n",
            changed_intent="believes nothing needs the key `'name'`",
            incident="`to_json` no longer maps `'name'`: the entry `'name': user.name` was removed",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.all_nodes():
            if isinstance(node, cst.Dict) and len(node.elements) > 1:
                if _in_dunder_assignment(view, node):
                    continue
                for index in self._distinct(view, node):
                    entry = node.elements[index]
                    if isinstance(entry, cst.DictElement):
                        yield self._dict_site(view, node, index, entry)
            elif isinstance(node, (cst.List, cst.Tuple, cst.Set)) and self._is_setting(view, node):
                for index in self._distinct(view, node):
                    yield self._element_site(view, node, index, node.elements[index])

    @staticmethod
    def _distinct(view: SourceView, node: cst.Dict | cst.List | cst.Tuple | cst.Set) -> list[int]:
        """Elements to drop, skipping a repeat of the one before (dropping either is one program)."""
        texts = [view.code(e) for e in node.elements]
        return [i for i, text in enumerate(texts) if i == 0 or text != texts[i - 1]]

    def _dict_site(self, view: SourceView, node: cst.Dict, index: int, entry: cst.DictElement) -> Site:
        target, replacement = _without_element(node, index)
        key = view.code(entry.key)
        return _site(
            self.key, target, replacement, entry,
            f"believes nothing needs the key `{key}`",
            f"{view.who(node)} no longer maps `{key}`: the entry `{view.code(entry)}` was removed",
            f"a test that {view.exercise(node)} and needs the entry for `{key}`",
        )

    def _element_site(self, view: SourceView, node: cst.List | cst.Tuple | cst.Set, index: int,
                      element: cst.BaseElement) -> Site:
        target, replacement = _without_element(node, index)
        item, display = view.code(element.value), view.code(node)
        if isinstance(element.value, cst.Tuple):  # a row of a rule table: the table is named, not shown
            table = f"`{view.assigned_name(node)}`"
            return _site(
                self.key, target, replacement, element,
                f"believes the row `{item}` does not belong in {table}",
                f"{view.who(node)} no longer holds the row `{item}`: it was removed from {table}",
                f"a test that {view.exercise(node)} with a case only the row `{item}` handles",
            )
        return _site(
            self.key, target, replacement, element,
            f"believes `{item}` does not belong in `{display}`",
            f"{view.who(node)} no longer includes `{item}`: it was removed from `{display}`",
            f"a test that {view.exercise(node)} and relies on `{item}` being included",
        )

    @staticmethod
    def _is_setting(view: SourceView, node: cst.List | cst.Tuple | cst.Set) -> bool:
        """A module- or class-level list of plain values, like an allow-list or defaults: the
        value assigned (perhaps through `frozenset(...)`), or a value in such a mapping."""
        holder = view.parent(node)
        if isinstance(holder, cst.Arg):
            holder = view.parent(view.parent(holder))
        if not (isinstance(holder, (cst.Assign, cst.AnnAssign)) or (
                isinstance(holder, cst.DictElement) and holder.value is node)):
            return False
        if len(node.elements) < 2 or view.assigned_name(node) is None:
            return False
        plain = all(isinstance(e, cst.Element) and (
            _is_literal(e.value) or isinstance(e.value, (cst.Name, cst.Attribute)) or _is_row(e.value))
            for e in node.elements)
        return plain and not _in_dunder_assignment(view, node)


def _is_row(value: cst.BaseExpression) -> bool:
    """A row of a rule table: a tuple of literals, such as `(r"(?i)(quiz)$", r"\\1zes")`."""
    return isinstance(value, cst.Tuple) and len(value.elements) > 1 and all(
        isinstance(e, cst.Element) and _is_literal(e.value) for e in value.elements)


class ChangedEntryValue:
    key = "changed-entry-value"
    title = "wrong value in a mapping"
    risk_weight = 2
    cues = _cues('{')
    examples = (
        Example(
            before="TIMEOUTS = {'connect': 5, 'read': 30}\n",
            after="TIMEOUTS = {'connect': 6, 'read': 30}\n",
            changed_intent="believes `'connect'` should map to `6`, not `5`",
            incident="`TIMEOUTS` maps `'connect'` to `6` instead of `5`: `'connect': 5` became "
                     "`'connect': 6`",
        ),
        Example(
            before="def request_options(token):\n"
                   "    return {'headers': {'Authorization': token}, 'verify': True}\n",
            after="def request_options(token):\n"
                  "    return {'headers': {'Authorization': token}, 'verify': False}\n",
            changed_intent="believes `'verify'` should map to `False`, not `True`",
            incident="`request_options` maps `'verify'` to `False` instead of `True`: "
                     "`'verify': True` became `'verify': False`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for entry in view.nodes(cst.DictElement):
            new = _drifted_value(entry.value)
            if new is None or _in_dunder_assignment(view, entry):
                continue
            key, old_text, new_text = view.code(entry.key), view.code(entry.value), view.code(new)
            yield _site(
                self.key, entry.value, new, entry,
                f"believes `{key}` should map to `{new_text}`, not `{old_text}`",
                f"{view.who(entry)} maps `{key}` to `{new_text}` instead of `{old_text}`: "
                f"`{key}: {old_text}` became `{key}: {new_text}`",
                f"a test that {view.exercise(entry)} and depends on the value for `{key}`",
            )


class ConstantDrift:
    key = "constant-drift"
    title = "constant drift"
    risk_weight = 1
    cues = _cues('<digit>', "'", '"', 'True', 'False')
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
        Example(
            before="MAX_RETRIES = 5\nTIMEOUT = 2.5\n",
            after="MAX_RETRIES = 6\nTIMEOUT = 2.5\n",
            changed_intent="believes `MAX_RETRIES` should be `6`, not `5`",
            incident="`MAX_RETRIES` is now `6` instead of `5`: `MAX_RETRIES = 5` became "
                     "`MAX_RETRIES = 6`",
        ),
        Example(
            before="class Config:\n    retries: int = 3\n    timeout: float = 2.5\n",
            after="class Config:\n    retries: int = 3\n    timeout: float = 3.5\n",
            changed_intent="believes `Config.timeout` should be `3.5`, not `2.5`",
            incident="`Config.timeout` is now `3.5` instead of `2.5`: `timeout: float = 2.5` became "
                     "`timeout: float = 3.5`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.all_nodes():
            if not self._drifts(view, node):
                continue
            new = _drifted_constant(node)
            if new is None:
                continue
            old_text, new_text, change = view.code(node), view.code(new), _change(view, node, new)
            name = view.assigned_name(node)
            holder = view.parent(node)
            if name is not None and isinstance(holder, (cst.Assign, cst.AnnAssign)):
                yield _site(
                    self.key, node, new, node,
                    f"believes `{name}` should be `{new_text}`, not `{old_text}`",
                    f"`{name}` is now `{new_text}` instead of `{old_text}`: {change}",
                    f"a test whose expected result depends on `{name}` being `{old_text}`",
                )
                continue
            context = view.code(view.context(node))
            yield _site(
                self.key, node, new, node,
                f"believes the value in `{context}` is `{new_text}`, not `{old_text}`",
                f"{view.who(node)} works with `{new_text}` where `{old_text}` was meant: {change}",
                f"a test that {view.exercise(node)} and whose expected result depends on the "
                f"`{old_text}` in `{context}`",
            )

    def _drifts(self, view: SourceView, node: cst.CSTNode) -> bool:
        """Whether ``node`` is a literal this family drifts: numbers (`-5` as a whole, never
        its `5`), True/False and strings. Floats only outside functions, where they are
        settings rather than the terms of a formula."""
        if isinstance(node, (cst.Integer, cst.Float)) and _is_negative(view.parent(node)):
            return False
        number = node.expression if _is_negative(node) else node
        if isinstance(number, cst.Float) and view.in_function(node):
            return False
        literal = isinstance(number, (cst.Integer, cst.Float, cst.SimpleString)) or (
            isinstance(node, cst.Name) and node.value in ("True", "False"))
        if isinstance(number, cst.Integer) and self._same_as_boundary(view, node):
            return False
        return literal and not self._covered_elsewhere(view, node)

    #: Comparisons (whole number on the right) where moving it up or down by one is, on whole
    #: numbers, the same as boundary-inclusivity's mutant: `age >= 19` is `age > 18`.
    _BOUNDARY_SHIFTS = {1: (cst.GreaterThanEqual, cst.LessThan), -1: (cst.GreaterThan, cst.LessThanEqual)}
    _MIRRORED = {cst.GreaterThanEqual: cst.LessThanEqual, cst.LessThanEqual: cst.GreaterThanEqual,
                 cst.GreaterThan: cst.LessThan, cst.LessThan: cst.GreaterThan}

    def _same_as_boundary(self, view: SourceView, node: cst.CSTNode) -> bool:
        parent = view.parent(node)
        if isinstance(parent, cst.ComparisonTarget) and parent.comparator is node:
            operator = type(parent.operator)
        elif isinstance(parent, cst.Comparison) and parent.left is node:
            operator = self._MIRRORED.get(type(parent.comparisons[0].operator))
        else:
            return False
        # 1 drifts down to 0 and `-5` to `-6`; every other whole number drifts up.
        down = _is_negative(node) or (isinstance(node, cst.Integer) and node.evaluated_value == 1)
        return operator in self._BOUNDARY_SHIFTS[-1 if down else 1]

    @staticmethod
    def _covered_elsewhere(view: SourceView, node: cst.CSTNode) -> bool:
        """Skip spots another family owns (defaults, slice and range bounds, mapping values),
        keys, and dunder assignments like `__version__`."""
        parent = view.parent(node)
        if isinstance(parent, (cst.Param, cst.Slice, cst.ConcatenatedString)):
            return True
        if isinstance(parent, cst.DictElement):
            return parent.value is node or isinstance(node, cst.SimpleString)
        if isinstance(parent, cst.Arg):
            call = view.parent(parent)
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "range":
                return True
        if isinstance(node, cst.SimpleString) and isinstance(parent, cst.Index):
            return True
        return _in_dunder_assignment(view, node)


class LoopSkipsEdge:
    key = "loop-skips-edge"
    title = "loop skips its first or last element"
    risk_weight = 3
    cues = _cues('for')
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
        BypassedCall(),
        DroppedChainStep(),
        DroppedCopy(),
        BaseClassInstance(),
        RegexSlip(),
        WrongSeparator(),
        DroppedEntry(),
        ChangedEntryValue(),
        ConstantDrift(),
        LoopSkipsEdge(),
    )
}
