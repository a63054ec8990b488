"""Which lines of a mutated file stand for its edit, and the edit's unified diff.

The runs ask whether the mutated code executed by watching lines: the edited ones, the first line
of the statement holding the edit, and for a dropped statement the nearest lines that run around
the gap (``edited_lines``). ``_diff`` makes the whole file's diff from the changed lines and the
context around them, so a long file is never matched line by line.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable
from types import CodeType

import libcst as cst
from libcst.metadata import CodeRange

from elenchus.mutation.families import REMOVE, Site, SourceView
from elenchus.mutation.mutate.records import Positions

_CONTEXT = 3  # lines around a window's region in its diff: ``_diff``'s two and one to spare
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", re.MULTILINE)


def _range(view: SourceView, positions: Positions, node: cst.CSTNode) -> CodeRange:
    current: cst.CSTNode | None = node
    while current is not None:
        found = positions.get(current)
        if found is not None:
            return found
        current = view.parent(current)
    return CodeRange((1, 0), (1, 0))


def _watched_lines(view: SourceView, positions: Positions, site: Site, before: str, after: str,
                   module_gap: Callable[[int, set[int]], list[int]] | None = None) -> tuple[int, ...]:
    """The edited lines, plus the first line of the statement holding the edit.

    Python reports a multi-line statement by the lines its bytecode carries (a display of
    constants is folded into its first line), so the statement's first line stands in
    for the edit when asking whether the mutated code ran.
    """
    lines = set(_edited_lines(before, after, module_gap))
    if site.replacement is not REMOVE:
        for node in (site.anchor, *view.ancestors(site.anchor)):
            if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                lines.add(_range(view, positions, node).start.line)
                break
    return tuple(sorted(lines))


def edited_lines(before: str, after: str) -> tuple[int, ...]:
    """Lines of ``after`` (1-based) that stand where ``before`` was edited.

    A dropped statement leaves no line of its own: the nearest lines that run just before
    and after the gap, in the same function, stand for it (not a docstring, a blank line
    or a comment, which never run), so "did the mutated code run" asks whether execution
    got there.
    """
    return _edited_lines(before, after, None)


def _edited_lines(before: str, after: str,
                  module_gap: Callable[[int, set[int]], list[int]] | None) -> tuple[int, ...]:
    """``edited_lines``; ``module_gap(gap, module lines)`` answers for a gap at module level
    when ``after`` is a window of a larger file."""
    old, new = before.splitlines(), after.splitlines()
    # Only the lines between the common head and tail are matched: a whole module matched line by
    # line for every candidate took minutes on a 5,000-line file.
    head, shorter = 0, min(len(old), len(new))
    while head < shorter and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shorter - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    lines: set[int] = set()
    matcher = difflib.SequenceMatcher(None, old[head:len(old) - tail], new[head:len(new) - tail], autojunk=False)
    runnable: dict[int, set[int]] | None = None
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] | None = None
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        j1, j2 = j1 + head, j2 + head
        if j2 > j1:
            lines.update(range(j1 + 1, j2 + 1))
            continue
        functions = _functions(after) if functions is None else functions  # (parsed once per text)
        runnable = _runnable_by_scope(after, functions) if runnable is None else runnable
        holder = _scope_of(after, j1, functions)
        scope = next((lines_in for first, lines_in in runnable.items() if first == holder), None)
        if scope is not None and holder == 0 and module_gap is not None:
            lines.update(module_gap(j1, scope))
            continue
        if scope is None:  # the source does not compile: the neighbours as they are
            lines.update(n for n in (j1, j1 + 1) if 1 <= n <= len(new))
            continue
        lines.update(n for n in (max((n for n in scope if n <= j1), default=None),
                                 min((n for n in scope if n > j1), default=None)) if n is not None)
    return tuple(sorted(lines))


def _functions(source: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _scope_of(source: str, line: int,
              functions: list[ast.FunctionDef | ast.AsyncFunctionDef] | None = None) -> int:
    """The first line of the innermost function holding ``line`` (0: module level);
    ``functions``: ``_functions(source)``, if already known."""
    functions = _functions(source) if functions is None else functions
    holding = [f for f in functions if f.lineno <= line <= (f.end_lineno or f.lineno)]
    return max((f.lineno for f in holding), default=0)


def _runnable_by_scope(source: str,
                       functions: list[ast.FunctionDef | ast.AsyncFunctionDef] | None = None) -> dict[int, set[int]]:
    """{first line of a function (0: module level): the lines of its own code that report line events}."""
    try:
        code = compile(source, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return {}
    functions = _functions(source) if functions is None else functions
    headers = {f.lineno for f in functions} | {d.lineno for f in functions for d in f.decorator_list}
    # A code object starts at its first decorator; a scope is named by its `def` line.
    def_line = {min([f.lineno, *(d.lineno for d in f.decorator_list)]): f.lineno for f in functions}
    found: dict[int, set[int]] = {}
    stack = [(code, 0)]
    while stack:
        current, scope = stack.pop()
        found.setdefault(scope, set()).update(
            line for _, _, line in current.co_lines() if line and line not in headers)
        for inner in current.co_consts:
            if isinstance(inner, CodeType):  # a function is its own scope; comprehensions and lambdas are not
                stack.append((inner, def_line.get(inner.co_firstlineno, scope)
                              if not inner.co_name.startswith("<") else scope))
    return found


def _diff(path: str, before: str, after: str) -> str:
    """The unified diff of the whole file, made from the lines between the common head and tail and
    ``_CONTEXT`` lines around them (its hunks then renumbered): the same text, without matching every
    unchanged line of a long file."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    head, shorter = 0, min(len(old), len(new))
    while head < shorter and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shorter - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    start, keep = max(0, head - _CONTEXT), max(0, tail - _CONTEXT)
    text = "".join(difflib.unified_diff(old[start:len(old) - keep], new[start:len(new) - keep],
                                        fromfile=f"a/{path}", tofile=f"b/{path}", n=2))
    if not start:
        return text
    return _HUNK.sub(lambda m: f"@@ -{int(m[1]) + start}{m[2] or ''} +{int(m[3]) + start}{m[4] or ''} @@", text)
