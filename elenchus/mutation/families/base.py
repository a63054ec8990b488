"""What every mutation family shares, and nothing else: the records a family gives (``Example``,
``Site``, the ``Family`` protocol, ``REMOVE``), the code features a planner matches against a
family's ``cues``, ``SourceView`` over one parsed module, and the small edit and wording helpers
(parentheses, shifted bounds, dropped statements and elements, site sentences) the families
use. It exists so that the family modules share one copy of these and import nothing from one
another.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider


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


def _with_text(string: cst.SimpleString, text: str) -> cst.SimpleString:
    """``string`` with its contents (as written in source) replaced, prefix and quotes kept."""
    return string.with_changes(value=f"{string.prefix}{string.quote}{text}{string.quote}")
