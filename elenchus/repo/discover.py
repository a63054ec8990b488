"""Discover the change between two snapshots: files, functions, statements, related tests.

Discovery compares the materialized Base and Head trees directly, so a commit
and the working tree (with untracked files) are handled the same way. Only code
counts as changed: lines are compared with comments, docstrings and blank lines
left out, and a function or statement whose code tokens are the same on both sides
(reformatted, re-commented) is not changed. Function spans, docstrings, statements
and imports come from one pass over each source's syntax tree (``outline``), parsed
in pieces of top-level statements so a generated module of megabytes never holds
its whole tree in memory; changed code outside functions (module constants, compiled regexes,
class attributes) is reported as changed statements; related tests come from the
static import graph of the Head tree (a test is related when its imports reach a
changed module, directly or through other modules).
"""

from __future__ import annotations

import ast
import bisect
import difflib
import functools
import io
import itertools
import re
import time
import tokenize
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from elenchus.config import Settings, load_settings
from elenchus.repo.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str
    status: str  # added | modified | deleted
    kind: str  # production | test | infrastructure | other


@dataclass(frozen=True, slots=True)
class ChangedFunction:
    path: str
    qualname: str
    start: int  # Head lines (Base lines when deleted)
    end: int
    changed_lines: tuple[int, ...]
    status: str  # added | modified | deleted
    public: bool
    docstring: str | None = None


@dataclass(frozen=True, slots=True)
class ChangedStatement:
    """Changed code outside any function: a module- or class-level statement at Head."""

    path: str
    symbol: str  # the assigned name ("MAX_SIZE", "Config.retries"), else "<module>" or the class
    start: int  # Head lines
    end: int
    changed_lines: tuple[int, ...]
    status: str  # added | modified


@dataclass(frozen=True, slots=True)
class ChangeSet:
    files: tuple[FileChange, ...]
    functions: tuple[ChangedFunction, ...]
    related_tests: tuple[str, ...]  # existing Head test files whose imports reach changed code
    settings: Settings = field(default_factory=Settings)
    statements: tuple[ChangedStatement, ...] = ()
    unparseable: tuple[str, ...] = ()  # "path: does not parse at Head (line N: message)": no function read

    def paths(self, kind: str, status: str | None = None) -> tuple[str, ...]:
        return tuple(f.path for f in self.files
                     if f.kind == kind and (status is None or f.status == status))

    @property
    def production_files(self) -> tuple[str, ...]:
        return self.paths("production")

    @property
    def tests_added(self) -> tuple[str, ...]:
        return self.paths("test", "added")

    @property
    def tests_modified(self) -> tuple[str, ...]:
        return self.paths("test", "modified")

    @property
    def tests_deleted(self) -> tuple[str, ...]:
        return self.paths("test", "deleted")

    @property
    def changed_tests(self) -> tuple[str, ...]:
        return self.paths("test") + self.paths("infrastructure")

    @property
    def is_empty(self) -> bool:
        return not self.files


# -- one pass over a source ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FunctionSpan:
    qualname: str
    start: int
    end: int
    public: bool
    docstring: str | None


@dataclass(frozen=True, slots=True)
class Statement:
    """A module- or class-level statement: first line (decorators included), last line, a class's body."""

    begin: int
    finish: int
    body: tuple[Statement, ...] = ()


@dataclass(frozen=True, slots=True)
class ImportFact:
    """One import statement as written: ``import module`` (names None) or ``from module import names``."""

    module: str
    level: int  # leading dots of a relative import
    names: tuple[str, ...] | None  # None: `import module`; () : `from module import *`


@dataclass(frozen=True, slots=True)
class Outline:
    """Everything discovery reads from one source's syntax tree, taken in one pass."""

    spans: tuple[FunctionSpan, ...]
    outer: tuple[tuple[str, int, int], ...]  # see ``outer_statements``
    docstring_lines: frozenset[int]
    statements: tuple[Statement, ...]  # module level, in order; a class carries its body
    begins: tuple[int, ...]  # ``statements``' first lines, for bisection
    imports: tuple[ImportFact, ...]
    future_end: int  # last line of the leading `from __future__` imports, 0 when there are none


#: A line a top-level statement may start on: code at column 0 that does not continue one.
_STATEMENT_START = re.compile(r"(?![ \t\f\r\n#)\]}])(?!(?:else|elif|except|finally)\b)")
#: Line breaks other than \n and \r\n: Python and ``str.splitlines`` disagree about them (a file holding one
#: is never cut into pieces or windows).
ODD_BREAKS = re.compile(r"\r(?!\n)|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_CHUNK_CHARS = 256 * 1024


def parsed_pieces(source: str) -> Iterator[tuple[int, ast.Module]]:
    """(line offset, tree) for consecutive pieces of whole top-level statements, one at a time.

    Raises SyntaxError or ValueError when the source does not parse.

    A piece ends before a line that looks like the start of a top-level statement, and only
    counts when it parses alone: a false start (inside a string, brackets or a
    continuation) leaves the piece before it unfinished, so it does not parse and the
    piece grows. Pieces that all parse make up the whole module, cut between statements.
    """
    if len(source) <= _CHUNK_CHARS or ODD_BREAKS.search(source):
        yield 0, ast.parse(source)
        return
    lines = source.splitlines(keepends=True)
    offsets = [0, *itertools.accumulate(len(line) for line in lines)]  # character offset of each line
    starts = [n for n, line in enumerate(lines) if n and _STATEMENT_START.match(line)] + [len(lines)]
    start_offsets = [offsets[n] for n in starts]
    first, want = 0, _CHUNK_CHARS
    while first < len(lines):
        at = max(bisect.bisect_left(start_offsets, offsets[first] + want), bisect.bisect_right(starts, first))
        end = starts[min(at, len(starts) - 1)]
        try:
            tree = ast.parse(source[offsets[first]:offsets[end]])
        except (SyntaxError, ValueError):
            if end == len(lines):
                raise  # the rest does not parse, so neither does the file
            want *= 2  # ended at a false start: take more
            continue
        yield first, tree
        first, want = end, _CHUNK_CHARS


def _docstring_statement(body: list[ast.stmt]) -> ast.stmt | None:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def _target_name(node: ast.stmt) -> str | None:
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        targets = [node.targets[0]]
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    if len(targets) == 1 and isinstance(targets[0], ast.Name):
        return targets[0].id
    return None


def _first_line(node: ast.stmt) -> int:
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])


class _Reader:
    """Collects an ``Outline`` from the pieces of one module."""

    def __init__(self) -> None:
        self.spans: list[FunctionSpan] = []
        self.outer: list[tuple[str, int, int]] = []
        self.docstrings: set[int] = set()
        self.imports: list[ImportFact] = []
        self.statements: list[Statement] = []
        self.future_end = 0
        self.leading = True  # still among the module docstring and `from __future__` imports
        self.offset = 0

    def module(self, offset: int, tree: ast.Module, first_piece: bool) -> None:
        self.offset = offset
        if first_piece:
            self._docstring(tree.body)
        for index, node in enumerate(tree.body):
            if self.leading:
                if isinstance(node, ast.ImportFrom) and node.module == "__future__" and not node.level:
                    self.future_end = (node.end_lineno or node.lineno) + offset
                elif not (first_piece and index == 0 and _docstring_statement(tree.body) is node):
                    self.leading = False
            self.statements.append(self._statement(node))
            self._outer(node, None)
            self._walk(node, [], False)

    def _statement(self, node: ast.stmt) -> Statement:
        body = tuple(self._statement(n) for n in node.body) if isinstance(node, ast.ClassDef) else ()
        return Statement(_first_line(node) + self.offset, (node.end_lineno or node.lineno) + self.offset, body)

    def _outer(self, node: ast.stmt, owner: str | None) -> None:
        """``outer_statements``: module-level statements and class bodies, functions left out."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        if isinstance(node, ast.ClassDef):
            qualname = f"{owner}.{node.name}" if owner else node.name
            header_end = node.body[0].lineno - 1 if node.body else node.lineno
            self.outer.append((qualname, _first_line(node) + self.offset, max(node.lineno, header_end) + self.offset))
            for child in node.body:
                self._outer(child, qualname)
            return
        name = _target_name(node)
        symbol = (f"{owner}.{name}" if owner else name) if name else (owner or "<module>")
        self.outer.append((symbol, node.lineno + self.offset, (node.end_lineno or node.lineno) + self.offset))

    def _docstring(self, body: list[ast.stmt]) -> None:
        first = _docstring_statement(body)
        if first is not None:
            self.docstrings.update(range(first.lineno + self.offset, (first.end_lineno or first.lineno) + self.offset + 1))

    def _walk(self, node: ast.stmt, scope: list[str], in_def: bool) -> None:
        """Spans (top-level functions and methods; nested ones belong to their outer function),
        docstrings and imports, statement by statement (no function or import hides in an expression)."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not in_def:
                names = [*scope, node.name]
                public = not any(n.startswith("_") and not (n.startswith("__") and n.endswith("__")) for n in names)
                self.spans.append(FunctionSpan(".".join(names), node.lineno + self.offset,
                                               (node.end_lineno or node.lineno) + self.offset, public,
                                               ast.get_docstring(node)))
            self._docstring(node.body)
            for child in node.body:
                self._walk(child, scope, True)
            return
        if isinstance(node, ast.ClassDef):
            self._docstring(node.body)
            inner = scope if in_def else [*scope, node.name]
            for child in node.body:
                self._walk(child, inner, in_def)
            return
        if isinstance(node, ast.Import):
            self.imports.extend(ImportFact(alias.name, 0, None) for alias in node.names)
            return
        if isinstance(node, ast.ImportFrom):
            star = any(alias.name == "*" for alias in node.names)
            self.imports.append(ImportFact(node.module or "", node.level or 0,
                                           () if star else tuple(alias.name for alias in node.names)))
            return
        for name in ("body", "handlers", "orelse", "finalbody", "cases"):  # in source order
            for child in getattr(node, name, ()):
                if isinstance(child, (ast.excepthandler, ast.match_case)):
                    for grandchild in child.body:
                        self._walk(grandchild, scope, in_def)
                elif isinstance(child, ast.stmt):
                    self._walk(child, scope, in_def)

    def outline(self) -> Outline:
        return Outline(tuple(self.spans), tuple(self.outer), frozenset(self.docstrings), tuple(self.statements),
                       tuple(s.begin for s in self.statements), tuple(self.imports), self.future_end)


@functools.lru_cache(maxsize=4096)
def outline(source: str) -> Outline | None:
    """The source's functions, statements, docstrings and imports; None when it does not parse.

    Cached by source text: discovery, the import graph, scoping and mutation ask about the
    same files, and each is parsed once.
    """
    reader = _Reader()
    try:
        for number, (offset, tree) in enumerate(parsed_pieces(source)):  # each piece's tree is dropped once read
            reader.module(offset, tree, number == 0)
    except (SyntaxError, ValueError):
        return None
    return reader.outline()


class _SpanCollector(cst.CSTVisitor):
    """Top-level functions and methods (nested functions belong to their outer function).

    Only for sources the running Python cannot parse but libcst can (newer syntax).
    """

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        self.scope: list[tuple[str, str]] = []  # (kind, name)
        self.spans: list[FunctionSpan] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        if any(kind == "def" for kind, _ in self.scope):
            return False
        self.scope.append(("class", node.name.value))
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        if self.scope and self.scope[-1] == ("class", original_node.name.value):
            self.scope.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        names = [name for _, name in self.scope] + [node.name.value]
        position = self.get_metadata(PositionProvider, node)
        public = not any(n.startswith("_") and not (n.startswith("__") and n.endswith("__"))
                         for n in names)
        self.spans.append(FunctionSpan(".".join(names), position.start.line, position.end.line,
                                       public, node.get_docstring()))
        return False


@functools.lru_cache(maxsize=128)
def function_spans(source: str) -> tuple[FunctionSpan, ...]:
    """Spans of top-level functions and methods; empty when the source does not parse.

    Cached by source text: discovery, scoping and capture ask about the same files.
    """
    found = outline(source)
    if found is not None:
        return found.spans
    try:
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    except cst.ParserSyntaxError:
        return ()
    collector = _SpanCollector()
    wrapper.visit(collector)
    return tuple(collector.spans)


# -- code lines ----------------------------------------------------------------

_NOT_CODE = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                       tokenize.ENDMARKER, tokenize.ENCODING})


@functools.lru_cache(maxsize=128)
def code_view(source: str) -> tuple[str, ...]:
    """One entry per line: its code tokens joined by spaces, "" for blank, comment and docstring lines.

    Formatting inside a line (spacing) and comments never count as a change; a source
    that does not tokenize falls back to its stripped lines.
    """
    lines = source.splitlines()
    view = [""] * len(lines)
    found = outline(source)
    if found is None:
        return tuple(line.strip() for line in lines)
    skip = found.docstring_lines
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in _NOT_CODE or token.start[0] in skip:
                continue
            row = token.start[0] - 1
            if 0 <= row < len(view):
                view[row] = f"{view[row]} {token.string}" if view[row] else token.string
            for continued in range(token.start[0], min(token.end[0], len(view))):
                view[continued] = view[continued] or "\\"  # inside a multi-line token: code
    except (SyntaxError, tokenize.TokenError, ValueError):
        return tuple(line.strip() for line in lines)
    return tuple(view)


def _code_tokens(view: tuple[str, ...], start: int, end: int) -> str:
    return " ".join(text for text in view[start - 1:end] if text)


def _within(lines: Sequence[int], start: int, end: int) -> tuple[int, ...]:
    """The members of sorted ``lines`` from ``start`` to ``end``."""
    return tuple(lines[bisect.bisect_left(lines, start):bisect.bisect_right(lines, end)])


def _covered(statements: Sequence[Statement], begins: Sequence[int], first: int, last: int,
             covered: set[int]) -> None:
    """Lines of the statements (and class-body statements) that lie whole within ``first..last``."""
    for statement in statements[max(0, bisect.bisect_right(begins, first) - 1):bisect.bisect_right(begins, last)]:
        if first <= statement.begin and statement.finish <= last:
            covered.update(range(statement.begin, statement.finish + 1))
        elif statement.body:
            _covered(statement.body, [s.begin for s in statement.body], first, last, covered)


def _whole_statements(source: str, first: int, last: int) -> bool:
    """Whether Base lines ``first..last`` hold only complete module- or class-level statements."""
    found = outline(source)
    if found is None:
        return False
    view = code_view(source)
    covered: set[int] = set()
    _covered(found.statements, found.begins, first, last, covered)
    return all(n in covered for n in range(first, last + 1) if view[n - 1])


#: Above this many lines a side, the common head and tail are matched before the diff (as git does),
#: so a one-line change in a generated module costs a pass, not a quadratic search.
TRIM_LINES = 20_000


def _opcodes(old_view: tuple[str, ...], new_view: tuple[str, ...]) -> Iterator[tuple[str, int, int, int, int]]:
    """The diff of the code lines alone (a line that holds no code never changes anything), as opcodes over
    the whole views: a changed range runs from its first code line to its last, and a gap in Head sits just
    before the next code line. (Blank, comment and docstring lines, most of a long module, made the line
    matching quadratic: 1.8 s for a 5,000-line file, 0.01 s without them.)"""
    old_at = [n for n, text in enumerate(old_view) if text]
    new_at = [n for n, text in enumerate(new_view) if text]
    old_code, new_code = [old_view[n] for n in old_at], [new_view[n] for n in new_at]
    head = tail = 0
    if max(len(old_code), len(new_code)) > TRIM_LINES:
        limit = min(len(old_code), len(new_code))
        while head < limit and old_code[head] == new_code[head]:
            head += 1
        while tail < limit - head and old_code[-1 - tail] == new_code[-1 - tail]:
            tail += 1
    matcher = difflib.SequenceMatcher(None, old_code[head:len(old_code) - tail],
                                      new_code[head:len(new_code) - tail], autojunk=False)

    def span(at: list[int], size: int, first: int, last: int) -> tuple[int, int]:
        start = at[first] if first < len(at) else size
        return (start, at[last - 1] + 1) if last > first else (start, start)

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        yield (tag, *span(old_at, len(old_view), i1 + head, i2 + head),
               *span(new_at, len(new_view), j1 + head, j2 + head))


def changed_lines(old: str, new: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(changed Head code lines, changed Base code lines), 1-based.

    Lines are compared by their code alone (``code_view``). A pure deletion of code
    marks the Head lines on both sides of the gap, so the function or statement that
    lost lines still counts as changed, unless what went were whole statements.
    """
    old_view, new_view = code_view(old), code_view(new)
    head_changed: set[int] = set()
    base_changed: set[int] = set()
    if not old_view or not new_view:  # all added or all deleted: every code line
        return (tuple(n for n in range(1, len(new_view) + 1) if new_view[n - 1]),
                tuple(n for n in range(1, len(old_view) + 1) if old_view[n - 1]))
    for tag, i1, i2, j1, j2 in _opcodes(old_view, new_view):
        if tag == "equal":
            continue
        removed = [n for n in range(i1 + 1, i2 + 1) if old_view[n - 1]]
        added = [n for n in range(j1 + 1, j2 + 1) if new_view[n - 1]]
        base_changed.update(removed)
        head_changed.update(added)
        if removed and not added and not _whole_statements(old, removed[0], removed[-1]):
            head_changed.update(_nearest_code(new_view, j1, -1) + _nearest_code(new_view, j1 + 1, 1))
    return tuple(sorted(head_changed)), tuple(sorted(base_changed))


def _nearest_code(view: tuple[str, ...], line: int, step: int) -> list[int]:
    while 1 <= line <= len(view):
        if view[line - 1]:
            return [line]
        line += step
    return []


def _functions_of(path: str, old: str | None, new: str | None,
                  lines: tuple[tuple[int, ...], tuple[int, ...]] | None = None) -> list[ChangedFunction]:
    """``lines``: ``changed_lines(old, new)`` when the caller has it already."""
    new_spans = {s.qualname: s for s in function_spans(new or "")}
    old_spans = {s.qualname: s for s in function_spans(old or "")}
    head_lines, base_lines = lines or changed_lines(old or "", new or "")
    old_view, new_view = code_view(old or ""), code_view(new or "")
    found: list[ChangedFunction] = []
    for name, span in new_spans.items():
        if name not in old_spans:
            found.append(ChangedFunction(path, name, span.start, span.end,
                                         tuple(n for n in range(span.start, span.end + 1) if new_view[n - 1]),
                                         "added", span.public, span.docstring))
            continue
        changed = _within(head_lines, span.start, span.end)
        if not changed:
            continue
        before = old_spans[name]
        if _code_tokens(old_view, before.start, before.end) != _code_tokens(new_view, span.start, span.end):
            found.append(ChangedFunction(path, name, span.start, span.end, changed, "modified",
                                         span.public, span.docstring))
    for name, span in old_spans.items():
        if name not in new_spans:
            found.append(ChangedFunction(path, name, span.start, span.end, _within(base_lines, span.start, span.end),
                                         "deleted", span.public, span.docstring))
    return sorted(found, key=lambda f: (f.status == "deleted", f.start, f.qualname))


# -- statements outside functions ------------------------------------------------------


def outer_statements(source: str) -> tuple[tuple[str, int, int], ...]:
    """(symbol, start, end) of every statement outside a function: module level and class bodies.

    Functions are left out (they have their own spans); a class contributes its header
    (decorators to the colon) and its body statements; a module-level compound statement
    such as ``try``/``if`` counts whole (functions inside it still have their own spans).
    """
    found = outline(source)
    return found.outer if found is not None else ()


def _statements_of(path: str, old: str | None, new: str | None,
                   lines: tuple[tuple[int, ...], tuple[int, ...]] | None = None) -> list[ChangedStatement]:
    """``lines``: ``changed_lines(old, new)`` when the caller has it already."""
    if new is None:
        return []
    head_lines, _ = lines or changed_lines(old or "", new)
    if not head_lines:
        return []
    old_view, new_view = code_view(old or ""), code_view(new)
    before = {symbol: _code_tokens(old_view, a, b) for symbol, a, b in outer_statements(old or "")}
    found: list[ChangedStatement] = []
    for symbol, start, end in outer_statements(new):
        changed = _within(head_lines, start, end)
        if not changed:
            continue
        if symbol != "<module>" and before.get(symbol) == _code_tokens(new_view, start, end):
            continue  # the same code, moved or reformatted
        status = "added" if old is None else "modified"
        found.append(ChangedStatement(path, symbol, start, end, changed, status))
    return found


# -- import graph ---------------------------------------------------------------


def module_names(path: str) -> tuple[str, ...]:
    """Importable names a file may go by: 'src/pkg/mod.py' -> ('src.pkg.mod', 'pkg.mod', 'mod')."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return tuple(".".join(parts[i:]) for i in range(len(parts)) if parts[i:])


class _ImportCollector(cst.CSTVisitor):
    def __init__(self, package: tuple[str, ...]) -> None:
        self.package = package
        self.names: set[str] = set()

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self.names.add(cst.helpers.get_full_name_for_node(alias.name) or "")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        base = cst.helpers.get_full_name_for_node(node.module) if node.module else ""
        if node.relative:
            depth = len(node.relative)
            anchor = self.package[: len(self.package) - (depth - 1)] if depth > 1 else self.package
            base = ".".join([*anchor, base] if base else anchor)
        if base:
            self.names.add(base)
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                leaf = cst.helpers.get_full_name_for_node(alias.name)
                if leaf:
                    self.names.add(f"{base}.{leaf}" if base else leaf)


def imports_of(path: str, source: str) -> set[str]:
    """Module names (and ``module.name`` for each name imported from it) that ``path`` imports."""
    found = outline(source)
    if found is None:  # newer syntax than this Python parses: libcst may still read it
        return _imports_by_libcst(path, source)
    package = tuple(PurePosixPath(path).parent.parts)
    names: set[str] = set()
    for fact in found.imports:
        if fact.names is None:
            names.add(fact.module)
            continue
        base = fact.module
        if fact.level:
            anchor = package[: len(package) - (fact.level - 1)] if fact.level > 1 else package
            base = ".".join([*anchor, base] if base else anchor)
        if base:
            names.add(base)
        names.update(f"{base}.{leaf}" if base else leaf for leaf in fact.names)
    return {name for name in names if name}


def _imports_by_libcst(path: str, source: str) -> set[str]:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return set()
    package = tuple(PurePosixPath(path).parent.parts)
    collector = _ImportCollector(package)
    module.visit(collector)
    return {name for name in collector.names if name}


def related_tests(snapshot: Snapshot, settings: Settings, changed_production: Iterable[str],
                  progress: Callable[[str], None] | None = None) -> tuple[str, ...]:
    """Test files in ``snapshot`` whose import closure reaches a changed production module."""
    by_name: dict[str, str] = {}
    production = [p for p in snapshot.files if settings.kind_of(p) == "production"]
    for path in production:
        for name in module_names(path):
            by_name.setdefault(name, path)
    edges: dict[str, set[str]] = {}
    python = [p for p in snapshot.files if settings.kind_of(p) in ("production", "test", "infrastructure")]
    if progress and len(python) >= PROGRESS_FILES:
        progress(f"Reading the imports of {len(python):,} files to find the related tests...")
    for path in python:
        edges[path] = {by_name[n] for n in imports_of(path, snapshot.read(path) or "") if n in by_name}
    importers: dict[str, set[str]] = {}
    for path, deps in edges.items():
        for dep in deps:
            importers.setdefault(dep, set()).add(path)
    reached = set(changed_production)
    frontier = list(reached)
    while frontier:  # walk the reverse import graph from the changed modules
        for importer in importers.get(frontier.pop(), ()):
            if importer not in reached:
                reached.add(importer)
                frontier.append(importer)
    return tuple(sorted(p for p in reached if settings.kind_of(p) == "test"))


# -- the change -----------------------------------------------------------------


#: Sources at least this large, and import graphs of at least this many files, report their progress.
PROGRESS_CHARS = 1_000_000
PROGRESS_FILES = 2_000


def _size(source: str | None) -> str:
    text = source or ""
    return f"{len(text.encode('utf-8', 'surrogatepass')) / 1e6:.1f} MB, {text.count(chr(10)) + 1:,} lines"


def parse_failure(source: str | None) -> str | None:
    """Where and why ``source`` is not Python (``line 2: invalid syntax``), or None when it parses.

    Read one piece of whole statements at a time first: a generated module of 5 MB parsed whole took 0.8 GB
    (the whole parse only names the line of a source that fails)."""
    try:
        for _ in parsed_pieces(source or ""):
            pass
        return None
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        pass
    try:
        ast.parse(source or "")
    except SyntaxError as error:
        return f"line {error.lineno}: {error.msg}"
    except (ValueError, MemoryError, RecursionError) as error:  # (null bytes, nesting too deep)
        return str(error) or type(error).__name__
    return None


def discover(base: Snapshot, head: Snapshot, settings: Settings | None = None,
             progress: Callable[[str], None] | None = None) -> ChangeSet:
    """``progress``: told what a long phase is doing (a large file, a large import graph); silent by default."""
    settings = settings or load_settings(head.read("pyproject.toml"))
    base_files, head_files = set(base.files), set(head.files)
    files: list[FileChange] = []
    functions: list[ChangedFunction] = []
    statements: list[ChangedStatement] = []
    unparseable: list[str] = []
    for path in sorted(base_files | head_files):
        if head.undecodable(path):  # listed among the excluded files with the reason; never parsed or mutated,
            if base.raw(path) != head.raw(path):  # but a change all the same (the rest is evaluated)
                status = "added" if path not in base_files else "modified"
                files.append(FileChange(path, status, "other"))
            continue
        links = (base.link(path) if path in base_files else None, head.link(path) if path in head_files else None)
        if links != (None, None):  # a symlink is its target path, never the code it names
            if links[0] != links[1] or (path in base_files) != (path in head_files):
                status = "added" if path not in base_files else "deleted" if path not in head_files else "modified"
                files.append(FileChange(path, status, "other"))
            continue
        # (a Base that Python could not read: every line of the readable Head is new)
        old = base.read(path) if path in base_files and not base.undecodable(path) else None
        new = head.read(path) if path in head_files else None
        if old == new:
            continue
        status = "added" if path not in base_files else "deleted" if new is None else "modified"
        kind = settings.kind_of(path)
        files.append(FileChange(path, status, kind))
        broken = parse_failure(new) if kind == "production" and new is not None else None
        if broken is not None:  # (its functions are not deleted: the file cannot be read at all)
            unparseable.append(f"{path}: does not parse at Head ({broken})")
        elif kind == "production":
            large = progress is not None and max(len(old or ""), len(new or "")) >= PROGRESS_CHARS
            started = time.monotonic()
            if large:
                progress(f"Reading {path} ({status}; {_size(new if new is not None else old)})...")
            lines = changed_lines(old or "", new or "")
            found = _functions_of(path, old, new, lines)
            functions.extend(found)
            statements.extend(_statements_of(path, old, new, lines))
            if large:
                progress(f"Read {path}: {len(function_spans(new or old or '')):,} functions, {len(found):,} changed "
                         f"({time.monotonic() - started:.1f} s).")
    production = [f.path for f in files if f.kind == "production"]
    related = related_tests(head, settings, production, progress) if production else ()
    return ChangeSet(tuple(files), tuple(functions), related, settings, tuple(statements), tuple(unparseable))
