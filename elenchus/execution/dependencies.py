"""What a stored result depended on, as the baseline measured it, so a change to anything else reuses it.

The baseline run records every workspace file the tests opened or imported and every directory they
listed, filed under the test file that was running or under the session (collection, imports, wide
fixtures): ``plugin.ReadLog``. A mutant run's dependencies are then the session's reads (less the test
files it did not select, unless another file imports them), the test files whose tests it ran and what
those tests read, what importing the other test files it collected runs (a test's body runs only when
the test does), and pytest's configuration and every ``conftest.py``. A run whose reads are not known (a
test started a process) depends on every file: the cohort's digest, as before.

A ``Manifest`` is those entries with the digest of each as it is now; its digest is part of a stored
result's key, and two manifests name the first entry that changed between them (why a run re-ran).
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: pytest's configuration files: each shapes every run, whatever the tests read.
CONFIGS = ("pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini")
#: Names the import system finds in a directory it lists (a new doc file there changes no import).
_IMPORTABLE = re.compile(r"\.(?:py|pyc|pyw|so|pyd|pth)$")
#: A test module named by an import in another file (``from tests.helpers import x``).
_IMPORTED = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+([\w., ()]+)|import\s+([\w., ]+))", re.MULTILINE)

Reads = tuple[tuple[str, tuple[str, ...]], ...]  # (test file or "" for the session, its entries)


@dataclass(frozen=True, slots=True)
class Manifest:
    """Entries a result depended on, each with its digest now: a path (its bytes), ``dir/`` (the names
    in it) or ``dir/*`` (the importable names in it); ``*`` stands for the whole cohort."""

    entries: tuple[tuple[str, str], ...]

    def digest(self) -> str:
        return hashlib.sha256("\n".join(f"{e}\0{d}" for e, d in self.entries).encode()).hexdigest()

    def as_json(self) -> dict[str, str]:
        return dict(self.entries)

    def first_change(self, earlier: Mapping[str, str]) -> str | None:
        """What changed since ``earlier`` (a manifest's ``as_json``), said as a user would: the first entry
        whose digest differs, in path order; None when nothing did."""
        for entry, digest in self.entries:
            before = earlier.get(entry)
            if before == digest:
                continue
            if entry == "*":
                return "a file of the project changed (the tests start processes, so every file counts)"
            if entry.endswith("/*") or entry.endswith("/"):
                where = entry.rstrip("*").rstrip("/")
                return f"the files in {where if where not in ('', '.') else 'the top directory'} changed"
            if entry.endswith("#module"):
                entry = f"what importing {entry[:-len('#module')]} runs"
            if before is None:
                return f"{entry} is read now and was not before"
            return f"{entry} {'appeared' if before == _ABSENT else 'was removed' if digest == _ABSENT else 'changed'}"
        return None


_ABSENT = "absent"


class Digests:
    """Each entry's digest in one template, computed once per evaluation."""

    def __init__(self, template: Path) -> None:
        self.template = template
        self._known: dict[str, str] = {}

    def of(self, entry: str) -> str:
        found = self._known.get(entry)
        if found is None:
            found = self._known[entry] = self._measure(entry)
        return found

    def _measure(self, entry: str) -> str:
        if entry.endswith("#module"):
            try:
                return _module_part((self.template / entry[:-len("#module")]).read_bytes())
            except FileNotFoundError:
                return _ABSENT
            except OSError as error:
                return f"unreadable: {error.strerror}"
        importable = entry.endswith("/*")
        listing = importable or entry.endswith("/")
        path = self.template / entry.rstrip("*").rstrip("/") if entry.rstrip("*/") else self.template
        try:
            if listing:
                names = sorted(n for n in os.listdir(path) if not importable or _IMPORTABLE.search(n)
                               or (path / n).is_dir())
                return hashlib.sha256("\n".join(names).encode()).hexdigest()
            return hashlib.sha256(path.read_bytes()).hexdigest()
        except (FileNotFoundError, NotADirectoryError):
            return _ABSENT
        except OSError as error:  # unreadable now: never equal to what was read before
            return f"unreadable: {error.strerror}"

    def manifest(self, entries: Iterable[str]) -> Manifest:
        return Manifest(tuple((entry, self.of(entry)) for entry in sorted(set(entries))))


def imported_tests(template: Path, reads: Reads, test_files: Sequence[str]) -> frozenset[str]:
    """The test files another file the session read imports by name (a test module used as a helper):
    a dependency of every run, selected or not."""
    stems = {Path(f).with_suffix("").as_posix().replace("/", "."): f for f in test_files}
    names = {name.rsplit(".", 1)[-1]: f for name, f in stems.items()}
    found: set[str] = set()
    for where, entries in reads:
        if where:
            continue
        for entry in entries:
            if not entry.endswith(".py"):
                continue
            try:
                text = (template / entry).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for module, members, plain in _IMPORTED.findall(text):
                for dotted in [*(m.strip() for m in plain.split(",")), module,
                               *(f"{module}.{m.strip()}" for m in members.replace("(", "").replace(")", "").split(","))]:
                    name = dotted.split(" as ")[0].strip()
                    hit = stems.get(name) or names.get(name.rsplit(".", 1)[-1] if name else "")
                    if hit is not None and hit != entry:
                        found.add(hit)
    return frozenset(found)


def run_entries(reads: Reads, selected: Iterable[str], collected: Iterable[str], test_files: Sequence[str],
                imported: frozenset[str], conftests: Iterable[str], mutated: str | None = None) -> list[str]:
    """The entries a run depends on (see the module's docstring): of the test files it ``collected``, those
    whose tests it ran (``selected``) whole, with what their tests read; the others by what their import
    runs (``path#module``: the file without the bodies of its tests, which only a selected test runs)."""
    chosen = set(selected) | imported
    imports = set(collected) - chosen
    unselected = set(test_files) - chosen
    by_file = dict(reads)
    entries = {e for e in by_file.get("", ()) if e not in unselected}
    for path in chosen:
        entries |= set(by_file.get(path, ()))
    entries |= chosen | {f"{path}#module" for path in imports} | set(CONFIGS) | set(conftests)
    entries.discard(mutated or "")
    return sorted(entries)


def _module_part(data: bytes) -> str:
    """What importing a test file runs, as a syntax tree: its source without its tests (``test*`` functions
    and methods; their decorators' expressions stay, since the import evaluates them), so a test added,
    removed or edited there changes only the runs that ran that file's tests. Its bytes when it does not parse."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return hashlib.sha256(data).hexdigest()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef)):
            node.body = [kept for statement in node.body for kept in (
                [ast.Expr(d) for d in statement.decorator_list]
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name.startswith("test")
                else [statement])]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


def baseline_entries(reads: Reads, test_files: Sequence[str], conftests: Iterable[str]) -> list[str]:
    """What a whole baseline depends on: everything it read, every test file, the configuration."""
    return sorted({e for _, entries in reads for e in entries} | set(test_files) | set(CONFIGS) | set(conftests))


def conftests_in(template: Path) -> tuple[str, ...]:
    return tuple(sorted(p.relative_to(template).as_posix() for p in template.rglob("conftest.py")))
