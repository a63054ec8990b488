"""Names and literals in libcst nodes, the vocabulary every detector reads code with.

A dotted name, a callee, the last part of a name, the Python value of a literal expression
(``_NO_VALUE`` when it has none), the literals of a file, the names a node reads or calls, and code
shortened to one line or a snippet for the wording. They depend on nothing but libcst, so the
parsed file, every weakening class and the test quality scan (``analysis/quality/``) share one copy of each.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Hashable, Iterator

import libcst as cst


# --------------------------------------------------------------------------- names and literals


_NO_VALUE: object = type("_NoValue", (), {"__repr__": lambda self: "<no value>"})()


def _dotted(node: cst.CSTNode | None) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner is not None else None
    return None


def _callee(node: cst.CSTNode) -> cst.CSTNode:
    return node.func if isinstance(node, cst.Call) else node


def _last(node: cst.CSTNode | None) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return ""


def _literal(node: cst.CSTNode | None) -> object:
    """The Python value of a literal expression (numbers, strings, containers of them), or _NO_VALUE."""
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
        return node.evaluated_value
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = node.evaluated_value
        except Exception:  # an f-string part or an odd prefix: not a plain literal
            return _NO_VALUE
        return _NO_VALUE if value is None else value
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = _literal(node.expression)
        if isinstance(inner, (int, float, complex)) and not isinstance(inner, bool):
            return -inner if isinstance(node.operator, cst.Minus) else inner
        return _NO_VALUE
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        values = [_literal(e.value) if isinstance(e, cst.Element) else _NO_VALUE for e in node.elements]
        if any(v is _NO_VALUE for v in values):
            return _NO_VALUE
        return frozenset(values) if isinstance(node, cst.Set) else tuple(values)  # type: ignore[arg-type]
    if isinstance(node, cst.Dict):
        pairs = []
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                return _NO_VALUE
            key, value = _literal(element.key), _literal(element.value)
            if key is _NO_VALUE or value is _NO_VALUE:
                return _NO_VALUE
            pairs.append((key, value))
        return ("dict", tuple(pairs))
    return _NO_VALUE


def _is_literal(node: cst.CSTNode | None) -> bool:
    return _literal(node) is not _NO_VALUE


def _is_trivial(value: object) -> bool:
    """Values too common to say anything about the tests: None, booleans, 0, 1, -1, empty text or containers."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, (int, float, complex)):
        return value in (0, 1, -1)
    if isinstance(value, (str, bytes, tuple, frozenset)):
        return len(value) == 0
    return False


def _scalars(value: object) -> Iterator[object]:
    """The non-trivial numbers and strings in a literal value (containers are flattened)."""
    if isinstance(value, (tuple, frozenset)):
        for item in value:
            yield from _scalars(item)
    elif isinstance(value, Hashable) and not _is_trivial(value):
        yield value


def _one_line(code: str) -> str:
    """Code as written, on one line: line breaks, comments and runs of spaces between tokens collapsed.

    String literals keep their spaces: ``(a,`` and ``b)`` on two lines become ``(a, b)``.
    """
    if "\n" not in code and "  " not in code and "#" not in code:
        return code
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return " ".join(code.split())
    skipped = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
               tokenize.ENDMARKER)
    parts: list[str] = []
    end: tuple[int, int] | None = None
    for token in tokens:
        if token.type in skipped:
            continue
        if parts and token.start != end and parts[-1] not in "([{" and token.string not in ")]},":
            parts.append(" ")
        parts.append(token.string)
        end = token.end
    return "".join(parts)


def _snippet(text: str, limit: int = 80) -> str:
    first, _, rest = text.strip().partition("\n")
    if rest or len(first) > limit:
        return first[: limit - 1].rstrip() + "…"
    return first


class _LiteralCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: set[object] = set()

    def visit_Expr(self, node: cst.Expr) -> bool:  # a docstring or bare string says nothing
        return not isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString))

    def visit_Integer(self, node: cst.Integer) -> None:
        self.found.add(node.evaluated_value)

    def visit_Float(self, node: cst.Float) -> None:
        self.found.add(node.evaluated_value)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._add(node)

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> bool:
        self._add(node)
        return False

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        value = _literal(node)
        if isinstance(value, (int, float)):
            self.found.add(value)

    def _add(self, node: cst.CSTNode) -> None:
        value = _literal(node)
        if isinstance(value, (str, bytes)):
            self.found.add(value)


def _names_read(node: cst.CSTNode, *, bare: bool = False) -> set[str]:
    """Every name a node reads or calls: bare names and the last part of attributes.

    With ``bare``, only the variables an expression reads: names, not attribute parts or keyword names
    (``a.n``, ``rel=``).
    """
    class Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.found: set[str] = set()

        def visit_Name(self, node: cst.Name) -> None:  # ``a.b.c`` visits a, b and c (``bare``: a)
            self.found.add(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            if not bare:
                return True
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            if not bare:
                return True
            node.value.visit(self)
            return False

    finder = Finder()
    node.visit(finder)
    return finder.found


def _names_called(node: cst.CSTNode) -> set[str]:
    """The last part of every callee in a node (``discount``, ``cart.total`` -> ``total``)."""
    class Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.found: set[str] = set()

        def visit_Call(self, node: cst.Call) -> None:
            self.found.add(_last(node.func))

    finder = Finder()
    node.visit(finder)
    return finder.found - {""}
