"""A boundary mutant, a broadened handler, or an edit in a part of a line that runs only sometimes, made to say
where it matters.

``count < limit`` made ``count <= limit`` differs from the code only where the two sides are equal: a search whose
inputs ran the line a thousand times without making them equal saw nothing of the mutant, and its agreement backs no
claim of equivalence. The search's copy of such a mutant compares through a builtin the call driver installs
(``callrecord.TIED``): it answers as the mutant does, and counts the call as reaching the mutant only where the
code's own operator would have answered otherwise.

``except KeyError`` made ``except Exception`` differs only where the guarded code raises something else. Its copy
catches through ``callrecord.WIDENED``, which notes each error caught: a call reaches the mutant only where the code
would have let that error through. Where the calls ran into the handler and none did, the mutant ran as the code on
every input tried, whatever their results were.

``(int(secs, 10) if secs else 0)`` made ``(secs if secs else 0)`` differs only where ``secs`` is true: its copy
evaluates that branch through ``callrecord.EVALUATED``, and a call reaches the mutant only where it did.
"""

from __future__ import annotations

import ast
import builtins

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from elenchus.analysis.probes.common import common_ends
from elenchus.execution import callrecord
from elenchus.mutation.mutate import Mutant

#: The operators a boundary mutant swaps, each with the one it stands for.
_OPERATORS: dict[type[cst.BaseCompOp], str] = {
    cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">="}
_SWAPPED = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}


@dataclass(frozen=True, slots=True)
class Tied:
    """The mutant's source with its comparison going through ``callrecord.TIED``, and its two sides as written."""

    source: str
    left: str
    right: str

    def told(self, line: int) -> str:
        return f"made `{self.left}` equal to `{self.right}` at line {line}, where the mutant differs"


def tied(mutant: Mutant) -> Tied | None:
    """The copy of a boundary mutant (``count <= limit`` where the code wrote ``count < limit``) a search runs,
    or None: another kind of mutant, or a chained comparison (``0 < x <= n``) it does not rewrite."""
    if mutant.family != "boundary-inclusivity" or mutant.line <= 0:
        return None
    try:
        wrapper = MetadataWrapper(cst.parse_module(mutant.mutated_source))
    except cst.ParserSyntaxError:
        return None
    positions = wrapper.resolve(PositionProvider)
    found: list[cst.Comparison] = []

    class _Find(cst.CSTVisitor):
        def visit_Comparison(self, node: cst.Comparison) -> None:
            if len(node.comparisons) == 1 and type(node.comparisons[0].operator) in _OPERATORS:
                start = positions[node.comparisons[0].operator].start
                if (start.line, start.column + 1) == (mutant.line, mutant.col):
                    found.append(node)

    wrapper.visit(_Find())
    if len(found) != 1:
        return None
    [comparison] = found
    module = wrapper.module
    operator = _OPERATORS[type(comparison.comparisons[0].operator)]
    right = comparison.comparisons[0].comparator
    call = cst.Call(func=cst.Name(callrecord.TIED),
                    args=[cst.Arg(comparison.left), cst.Arg(right), cst.Arg(cst.SimpleString(repr(operator))),
                          cst.Arg(cst.SimpleString(repr(_SWAPPED[operator])))],
                    lpar=comparison.lpar, rpar=comparison.rpar)

    class _Swap(cst.CSTTransformer):
        def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> cst.BaseExpression:
            return call if original is comparison else updated

    source = module.visit(_Swap()).code
    try:
        compile(source, mutant.path, "exec")
    except (SyntaxError, ValueError):
        return None
    return Tied(source, module.code_for_node(comparison.left).strip(), module.code_for_node(right).strip())


@dataclass(frozen=True, slots=True)
class Widened:
    """The mutant's source with its handler catching through ``callrecord.WIDENED``, and what the code caught."""

    source: str
    caught: str  # the code's own handler's classes, as written: `KeyError`, `(TypeError, KeyError)`
    # Python's own errors of values (`KeyError`, `ValueError`), none of the system's (`OSError` and its kind): where
    # a handler catches those, what else the guarded code raises comes of the inputs a search varies, not of a file
    # missing, a disk full or a network down that no input makes
    of_values: bool = False

    def told(self, line: int) -> str:
        return f"made the code the handler of line {line} guards raise an error `except {self.caught}` lets through"


def widened(mutant: Mutant, source: str) -> Widened | None:
    """The copy of a broadened handler a search runs (``except __elenchus_widened__(KeyError):`` where the mutant
    wrote ``except Exception:``), each line where it was, or None: another kind of mutant, or one it cannot find."""
    if mutant.family != "broadened-handler" or mutant.line <= 0:
        return None

    def handler(text: str) -> ast.ExceptHandler | None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
        return next((node for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler) and node.type is not None
                     and (node.lineno, node.col_offset + 1) == (mutant.line, mutant.col)), None)

    original, mutated = handler(source), handler(mutant.mutated_source)
    if original is None or original.type is None or mutated is None or mutated.type is None \
            or not (isinstance(mutated.type, ast.Name) and mutated.type.id == "Exception") \
            or mutated.type.end_lineno != mutated.type.lineno or mutated.type.end_col_offset is None:
        return None
    caught = ast.unparse(original.type)
    lines = mutant.mutated_source.splitlines(keepends=True)
    line = lines[mutated.type.lineno - 1].encode()  # (the offsets count bytes)
    start, end = mutated.type.col_offset, mutated.type.end_col_offset
    lines[mutated.type.lineno - 1] = (line[:start] + f"{callrecord.WIDENED}({caught})".encode()
                                      + line[end:]).decode()
    copy = "".join(lines)
    try:
        compile(copy, mutant.path, "exec")
    except (SyntaxError, ValueError):
        return None
    return Widened(copy, caught, _of_values(original.type))


def _of_values(caught: ast.expr) -> bool:
    """Does a handler catch only Python's own errors of values (``KeyError``, ``(TypeError, ValueError)``)?"""
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    for name in names:
        found = getattr(builtins, name.id, None) if isinstance(name, ast.Name) else None
        if not (isinstance(found, type) and issubclass(found, Exception)) or issubclass(found, (OSError, Warning)):
            return False
    return True


@dataclass(frozen=True, slots=True)
class Evaluated:
    """The mutant's source with the part of its line that runs only sometimes going through
    ``callrecord.EVALUATED``, and that part as written."""

    source: str
    part: str

    def told(self, line: int) -> str:
        return f"evaluated `{self.part}` at line {line}, the part of the line the mutant changes"


#: Where an expression's part runs only sometimes when the expression runs: (the node's class, its field), and for
#: the fields that hold a list, the place from which on (``a and b``: ``b`` only when ``a`` is true).
_SOMETIMES: dict[tuple[type[ast.AST], str], int] = {
    (ast.IfExp, "body"): 0, (ast.IfExp, "orelse"): 0, (ast.BoolOp, "values"): 1, (ast.Lambda, "body"): 0,
    (ast.ListComp, "elt"): 0, (ast.SetComp, "elt"): 0, (ast.GeneratorExp, "elt"): 0,
    (ast.DictComp, "key"): 0, (ast.DictComp, "value"): 0, (ast.comprehension, "ifs"): 0,
    (ast.Compare, "comparators"): 1, (ast.Assert, "msg"): 0}


def evaluated(mutant: Mutant, source: str) -> Evaluated | None:
    """The copy of a mutant whose edit sits in a part of its line that may not run when the line does (a branch of
    ``x if c else y``, ``b`` of ``a and b``, ``c`` of ``a < b < c``, a comprehension's item or condition, a lambda's
    body, an assertion's message), or None.

    ``(int(secs, 10) if secs else 0)`` made ``(secs if secs else 0)`` differs only for a true ``secs``: calls that
    ran the line with no seconds never ran the mutant, and their agreement backs no claim of equivalence. The copy
    goes through ``callrecord.EVALUATED`` around the innermost such part holding the edit: a call reaches the
    mutant only where that part was evaluated."""
    if mutant.line <= 0:
        return None
    mutated = mutant.mutated_source
    start, end = common_ends(source, mutated)  # (the characters the two share at their ends)
    try:
        tree = ast.parse(mutated)
    except (SyntaxError, ValueError):
        return None
    lines = mutated.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(lineno: int, column: int) -> int:  # (ast counts columns in bytes)
        return offsets[lineno - 1] + len(lines[lineno - 1].encode()[:column].decode(errors="replace"))

    found: list[tuple[int, int, ast.expr]] = []
    for node in ast.walk(tree):
        for (kind, field), first in _SOMETIMES.items():
            if not isinstance(node, kind):
                continue
            parts = getattr(node, field)
            for part in (parts[first:] if isinstance(parts, list) else [parts]):
                span = offset(part.lineno, part.col_offset), offset(part.end_lineno, part.end_col_offset)
                if span[0] <= start and len(mutated) - end <= span[1]:
                    found.append((*span, part))
    if not found:
        return None
    begin, stop, part = min(found, key=lambda span: span[1] - span[0])
    try:  # (the text spliced is that part, whatever the offsets of its line say: an f-string's inside, say)
        if ast.dump(ast.parse(f"({mutated[begin:stop]})", mode="eval").body) != ast.dump(part):
            return None
    except (SyntaxError, ValueError):
        return None
    copy = f"{mutated[:begin]}{callrecord.EVALUATED}({mutated[begin:stop]}){mutated[stop:]}"
    try:
        compile(copy, mutant.path, "exec")
    except (SyntaxError, ValueError):
        return None
    return Evaluated(copy, " ".join(mutated[begin:stop].split()))


#: Calls made with one side put in place of the other, at most.
MAX_TIE_CALLS = 12


def tie_calls(sided: Sequence[tuple[tuple[str, ...], Mapping[str, str], callrecord.Receiver | None, Sequence[Any]]]
              ) -> list[tuple[list[str], dict[str, str], callrecord.Receiver | None]]:
    """Calls that may make a boundary mutant's two sides equal: each call the driver noted, with an argument that
    held one side's value given the other's (`random_sample(0.5, ...)` compared a draw of 0.84 with `prob`:
    `random_sample(0.84..., ...)` ties them), then with the instance it was called on built so
    (`Box(3).add('a')` compared 0 items with a limit of 3: `Box(0).add('a')`), in the order the calls were made."""
    found: list[tuple[list[str], dict[str, str], callrecord.Receiver | None]] = []
    for args_repr, kwargs_repr, receiver, sides in sided:
        for pair in sides:
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(text, str) for text in pair)):
                continue
            left, right = pair
            for held, given in ((left, right), (right, left)):
                if held == given:
                    continue
                args = [given if text == held else text for text in args_repr]
                kwargs = {name: given if text == held else text for name, text in kwargs_repr.items()}
                built = receiver if receiver is None else replace(
                    receiver, args_repr=tuple(given if text == held else text for text in receiver.args_repr),
                    kwargs_repr=tuple((name, given if text == held else text)
                                      for name, text in receiver.kwargs_repr))
                made = (list(args_repr), dict(kwargs_repr), receiver)
                for call in ((args, kwargs, receiver), (made[0], made[1], built)):
                    if call != made and call not in found:
                        found.append(call)
                if len(found) >= MAX_TIE_CALLS:
                    return found[:MAX_TIE_CALLS]
    return found
