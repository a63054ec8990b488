"""Discover the change between two snapshots: files, functions, related tests.

Discovery compares the materialized Base and Head trees directly, so a commit
and the working tree (with untracked files) are handled the same way. Function
spans come from libcst positions; related tests come from the static import
graph of the Head tree (a test is related when its imports reach a changed
module, directly or through other modules).
"""

from __future__ import annotations

import difflib
import functools
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
class ChangeSet:
    files: tuple[FileChange, ...]
    functions: tuple[ChangedFunction, ...]
    related_tests: tuple[str, ...]  # existing Head test files whose imports reach changed code
    settings: Settings = field(default_factory=Settings)

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


def changed_lines(old: str, new: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(changed Head line numbers, changed Base line numbers), 1-based.

    A pure deletion marks the Head line that now stands where the text was, so the
    function that lost lines still counts as changed.
    """
    old_lines, new_lines = old.splitlines(), new.splitlines()
    head_changed: set[int] = set()
    base_changed: set[int] = set()
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        base_changed.update(range(i1 + 1, i2 + 1))
        if j2 > j1:
            head_changed.update(range(j1 + 1, j2 + 1))
        else:
            head_changed.add(max(1, min(j1 + 1, len(new_lines))))
    return tuple(sorted(head_changed)), tuple(sorted(base_changed))


def _functions_of(path: str, old: str | None, new: str | None) -> list[ChangedFunction]:
    new_spans = {s.qualname: s for s in function_spans(new or "")}
    old_spans = {s.qualname: s for s in function_spans(old or "")}
    head_lines, base_lines = changed_lines(old or "", new or "")
    found: list[ChangedFunction] = []
    for name, span in new_spans.items():
        lines = tuple(n for n in head_lines if span.start <= n <= span.end)
        if name not in old_spans:
            found.append(ChangedFunction(path, name, span.start, span.end,
                                         tuple(range(span.start, span.end + 1)), "added",
                                         span.public, span.docstring))
        elif lines:
            found.append(ChangedFunction(path, name, span.start, span.end, lines, "modified",
                                         span.public, span.docstring))
    for name, span in old_spans.items():
        if name not in new_spans:
            lines = tuple(n for n in base_lines if span.start <= n <= span.end)
            found.append(ChangedFunction(path, name, span.start, span.end, lines, "deleted",
                                         span.public, span.docstring))
    return sorted(found, key=lambda f: (f.status == "deleted", f.start, f.qualname))


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
    for path in sorted(base_files | head_files):
        old = base.read(path) if path in base_files else None
        new = head.read(path) if path in head_files else None
        if old == new:
            continue
        status = "added" if old is None else "deleted" if new is None else "modified"
        kind = settings.kind_of(path)
        files.append(FileChange(path, status, kind))
        if kind == "production":
            functions.extend(_functions_of(path, old, new))
    production = [f.path for f in files if f.kind == "production"]
    related = related_tests(head, settings, production) if production else ()
    return ChangeSet(tuple(files), tuple(functions), related, settings)
