"""Discover the change between two snapshots: files, functions, statements, related tests.

Discovery compares the materialized Base and Head trees directly, so a commit
and the working tree (with untracked files) are handled the same way. Only code
counts as changed: lines are compared with comments, docstrings and blank lines
left out, and a function or statement whose code tokens are the same on both sides
(reformatted, re-commented) is not changed. Function spans come from libcst
positions; changed code outside functions (module constants, compiled regexes,
class attributes) is reported as changed statements; related tests come from the
static import graph of the Head tree (a test is related when its imports reach a
changed module, directly or through other modules).
"""

from __future__ import annotations

import ast
import difflib
import functools
import io
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from elenchus.config import Settings, load_settings
from elenchus.snapshot import Snapshot


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


# -- functions ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FunctionSpan:
    qualname: str
    start: int
    end: int
    public: bool
    docstring: str | None


class _SpanCollector(cst.CSTVisitor):
    """Top-level functions and methods (nested functions belong to their outer function)."""

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


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


@functools.lru_cache(maxsize=128)
def code_view(source: str) -> tuple[str, ...]:
    """One entry per line: its code tokens joined by spaces, "" for blank, comment and docstring lines.

    Formatting inside a line (spacing) and comments never count as a change; a source
    that does not tokenize falls back to its stripped lines.
    """
    lines = source.splitlines()
    view = [""] * len(lines)
    try:
        skip = _docstring_lines(ast.parse(source))
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


def _whole_statements(source: str, first: int, last: int) -> bool:
    """Whether Base lines ``first..last`` hold only complete module- or class-level statements."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    view = code_view(source)
    covered: set[int] = set()
    bodies = [tree.body]
    while bodies:
        for node in bodies.pop():
            begin = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
            finish = node.end_lineno or node.lineno
            if first <= begin and finish <= last:
                covered.update(range(begin, finish + 1))
            elif isinstance(node, ast.ClassDef):
                bodies.append(node.body)
    return all(n in covered for n in range(first, last + 1) if view[n - 1])


def changed_lines(old: str, new: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(changed Head code lines, changed Base code lines), 1-based.

    Lines are compared by their code alone (``code_view``). A pure deletion of code
    marks the Head lines on both sides of the gap, so the function or statement that
    lost lines still counts as changed, unless what went were whole statements.
    """
    old_view, new_view = code_view(old), code_view(new)
    head_changed: set[int] = set()
    base_changed: set[int] = set()
    matcher = difflib.SequenceMatcher(None, old_view, new_view, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
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


def _functions_of(path: str, old: str | None, new: str | None) -> list[ChangedFunction]:
    new_spans = {s.qualname: s for s in function_spans(new or "")}
    old_spans = {s.qualname: s for s in function_spans(old or "")}
    head_lines, base_lines = changed_lines(old or "", new or "")
    old_view, new_view = code_view(old or ""), code_view(new or "")
    found: list[ChangedFunction] = []
    for name, span in new_spans.items():
        lines = tuple(n for n in head_lines if span.start <= n <= span.end)
        if name not in old_spans:
            found.append(ChangedFunction(path, name, span.start, span.end,
                                         tuple(n for n in range(span.start, span.end + 1) if new_view[n - 1]),
                                         "added", span.public, span.docstring))
            continue
        before = old_spans[name]
        same_code = _code_tokens(old_view, before.start, before.end) == _code_tokens(new_view, span.start, span.end)
        if lines and not same_code:
            found.append(ChangedFunction(path, name, span.start, span.end, lines, "modified",
                                         span.public, span.docstring))
    for name, span in old_spans.items():
        if name not in new_spans:
            lines = tuple(n for n in base_lines if span.start <= n <= span.end)
            found.append(ChangedFunction(path, name, span.start, span.end, lines, "deleted",
                                         span.public, span.docstring))
    return sorted(found, key=lambda f: (f.status == "deleted", f.start, f.qualname))


# -- statements outside functions ------------------------------------------------------


def _target_name(node: ast.stmt) -> str | None:
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        targets = [node.targets[0]]
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    if len(targets) == 1 and isinstance(targets[0], ast.Name):
        return targets[0].id
    return None


def outer_statements(source: str) -> tuple[tuple[str, int, int], ...]:
    """(symbol, start, end) of every statement outside a function: module level and class bodies.

    Functions are left out (they have their own spans); a class contributes its header
    (decorators to the colon) and its body statements; a module-level compound statement
    such as ``try``/``if`` counts whole (functions inside it still have their own spans).
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    found: list[tuple[str, int, int]] = []

    def visit(body: list[ast.stmt], owner: str | None) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if isinstance(node, ast.ClassDef):
                qualname = f"{owner}.{node.name}" if owner else node.name
                header_start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                header_end = node.body[0].lineno - 1 if node.body else node.lineno
                found.append((qualname, header_start, max(node.lineno, header_end)))
                visit(node.body, qualname)
                continue
            name = _target_name(node)
            symbol = (f"{owner}.{name}" if owner else name) if name else (owner or "<module>")
            found.append((symbol, node.lineno, node.end_lineno or node.lineno))

    visit(tree.body, None)
    return tuple(found)


def _statements_of(path: str, old: str | None, new: str | None) -> list[ChangedStatement]:
    if new is None:
        return []
    head_lines, _ = changed_lines(old or "", new)
    if not head_lines:
        return []
    old_view, new_view = code_view(old or ""), code_view(new)
    before = {symbol: _code_tokens(old_view, a, b) for symbol, a, b in outer_statements(old or "")}
    found: list[ChangedStatement] = []
    for symbol, start, end in outer_statements(new):
        lines = tuple(n for n in head_lines if start <= n <= end)
        if not lines:
            continue
        if symbol != "<module>" and before.get(symbol) == _code_tokens(new_view, start, end):
            continue  # the same code, moved or reformatted
        status = "added" if old is None else "modified"
        found.append(ChangedStatement(path, symbol, start, end, lines, status))
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
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return set()
    package = tuple(PurePosixPath(path).parent.parts)
    collector = _ImportCollector(package)
    module.visit(collector)
    return {name for name in collector.names if name}


def related_tests(snapshot: Snapshot, settings: Settings, changed_production: Iterable[str]) -> tuple[str, ...]:
    """Test files in ``snapshot`` whose import closure reaches a changed production module."""
    by_name: dict[str, str] = {}
    production = [p for p in snapshot.files if settings.kind_of(p) == "production"]
    for path in production:
        for name in module_names(path):
            by_name.setdefault(name, path)
    edges: dict[str, set[str]] = {}
    for path in snapshot.files:
        if settings.kind_of(path) in ("production", "test", "infrastructure"):
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


def discover(base: Snapshot, head: Snapshot, settings: Settings | None = None) -> ChangeSet:
    settings = settings or load_settings(head.read("pyproject.toml"))
    base_files, head_files = set(base.files), set(head.files)
    files: list[FileChange] = []
    functions: list[ChangedFunction] = []
    statements: list[ChangedStatement] = []
    for path in sorted(base_files | head_files):
        if base.undecodable(path) or head.undecodable(path):
            continue  # listed among the excluded files with the reason; never parsed or mutated
        old = base.read(path) if path in base_files else None
        new = head.read(path) if path in head_files else None
        if old == new:
            continue
        status = "added" if old is None else "deleted" if new is None else "modified"
        kind = settings.kind_of(path)
        files.append(FileChange(path, status, kind))
        if kind == "production":
            functions.extend(_functions_of(path, old, new))
            statements.extend(_statements_of(path, old, new))
    production = [f.path for f in files if f.kind == "production"]
    related = related_tests(head, settings, production) if production else ()
    return ChangeSet(tuple(files), tuple(functions), related, settings, tuple(statements))
