"""Regression search: mutants that only the checks a change weakened used to catch.

A generic, budgeted mutant set rarely holds the one mutant a deleted test uniquely
killed, so protection regressions are searched for. When the change deletes, skips,
xfails, loosens or swallows a check (the static weakening evidence of
``elenchus.analysis.weakening``), the evaluation runs the Base form of those tests alone,
recording which production lines each of them executes at Head; this module turns
that into a candidate pool (mutants on those lines, functions the test calls by name
first, each weakened check taking turns), bounded by ``--search-budget``. The
candidates the Base checks kill are then run against the whole Head relevant set: one
that no Head test kills is a protection regression, attributed to the weakened check.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from elenchus.mutation.contract import Contract
from elenchus.repo.discover import ChangeSet, function_spans, outer_statements
from elenchus.mutation.mutate import FunctionSpan, Mutant, generate
from elenchus.mutation.select import names_by_test, risk_score
from elenchus.repo.snapshot import Snapshot
from elenchus.analysis.weakening import ChangedFile, find_weakening

#: Weakening classes that take a check away from a test that still exists at Base.
TEST_WEAKENINGS = ("deleted-test", "skipped-test", "xfail-marker", "loosened-assertion", "swallowed-error")
#: Candidates a weakened check catches, only to see current tests catch them too, before it stops looking.
KEEP_PER_CHECK = 6
IMPORT_CONTEXT = "<import>"

_WHAT = {
    "deleted-test": "deleted", "skipped-test": "skipped", "xfail-marker": "marked as an expected failure",
    "loosened-assertion": "loosened", "swallowed-error": "wrapped so its failure is swallowed",
}


@dataclass(frozen=True, slots=True)
class WeakenedCheck:
    """A Base test whose check the change removed or weakened."""

    path: str
    test: str  # as pytest names it inside the file: "test_x" or "TestC::test_x"
    kind: str  # the weakening class
    line: int
    detail: str  # what the change did to it, in words
    before: str | None  # the Base text of the check (the whole test when it was deleted)

    @property
    def nodeid(self) -> str:
        return f"{self.path}::{self.test}"

    def matches(self, nodeid: str) -> bool:
        """Whether a (possibly parametrized) node id is this check's test."""
        return nodeid.split("[", 1)[0] == self.nodeid

    def to_json(self) -> dict:
        return {"test": self.nodeid, "kind": self.kind, "line": self.line, "what_changed": self.detail,
                "before": self.before}

    def sentence(self) -> str:
        return f"`{self.nodeid}` ({_WHAT.get(self.kind, self.kind)} by this change: {self.detail.rstrip('.')})"


def weakened_checks(change: ChangeSet, base: Snapshot, head: Snapshot) -> tuple[WeakenedCheck, ...]:
    """Every Base test whose check the change deleted, skipped, xfailed, loosened or swallowed."""
    files = weakening_inputs(change, base, head)
    return checks_weakened_in(files, {f.path: change.settings.kind_of(f.path) for f in files})


def weakening_inputs(change: ChangeSet, base: Snapshot, head: Snapshot) -> list[ChangedFile]:
    """The changed files a weakened check can be read from, with their Base and Head text."""
    files = []
    for changed in change.files:
        if changed.kind not in ("test", "infrastructure", "production"):
            continue
        old = base.read(changed.path) if changed.status != "added" else None
        new = head.read(changed.path) if changed.status != "deleted" else None
        files.append(ChangedFile(changed.path, changed.kind, old, new))
    return files


def checks_weakened_in(files: Sequence[ChangedFile], kinds: Mapping[str, str]) -> tuple[WeakenedCheck, ...]:
    """``weakened_checks`` on what it reads (``kinds``: what the project's settings call each file): a pure
    reading, so the same texts give the same checks."""
    if not any(f.kind == "test" and f.base_source is not None for f in files):
        return ()  # a check is weakened only in a test file that existed before the change
    found: dict[tuple[str, str, str], WeakenedCheck] = {}
    for evidence in find_weakening(files, production_evidence=False):  # weakened checks live in tests
        if evidence.kind not in TEST_WEAKENINGS or not evidence.test:
            continue
        if kinds.get(evidence.path) != "test":
            continue
        key = (evidence.path, evidence.test, evidence.kind)
        found.setdefault(key, WeakenedCheck(evidence.path, evidence.test, evidence.kind, evidence.line,
                                            evidence.detail, evidence.before))
    return tuple(found.values())


def lines_by_check(checks: Sequence[WeakenedCheck],
                   coverage: Iterable[tuple[str, str, tuple[int, ...]]]) -> dict[WeakenedCheck, dict[str, set[int]]]:
    """The production lines each check's test executed (not counting what importing modules ran)."""
    found: dict[WeakenedCheck, dict[str, set[int]]] = {check: {} for check in checks}
    for path, test, lines in coverage:
        if test == IMPORT_CONTEXT:
            continue
        for check in checks:
            if check.matches(test):
                found[check].setdefault(path, set()).update(lines)
    return found


def _spans(source: str, lines: set[int]) -> list[FunctionSpan]:
    """Functions holding an executed line, and module- or class-level statements a run function names."""
    functions = [s for s in function_spans(source) if any(s.start <= n <= s.end for n in lines)]
    spans = [FunctionSpan(s.qualname, s.start, s.end) for s in functions]
    lines_of = source.splitlines()
    bodies = "\n".join("\n".join(lines_of[s.start - 1:s.end]) for s in functions)
    for symbol, start, end in outer_statements(source):
        leaf = symbol.rsplit(".", 1)[-1]
        if leaf.isidentifier() and leaf != "<module>" and leaf in bodies:
            spans.append(FunctionSpan(symbol, start, end))
    return spans


def candidate_pool(checks: Sequence[WeakenedCheck], executed: Mapping[WeakenedCheck, Mapping[str, set[int]]],
                   head: Snapshot, base: Snapshot, contract: Contract | None, exclude: set[str],
                   budget: int, current: Iterable[tuple[str, str, tuple[int, ...]]] = ()
                   ) -> list[tuple[Mutant, tuple[WeakenedCheck, ...]]]:
    """Up to ``budget`` mutants on lines the weakened checks executed, each check taking turns.

    Within a check, mutants on lines no current test executes come first (``current``:
    what each current test ran; a catch only the weakened test made hides there), then
    mutants of functions its Base test calls by name, then mutants of lines holding a
    value the Base test writes (a branch taken only for that value shares a line with
    the others, where line coverage cannot tell it apart), then by risk score. A mutant
    already challenged (``exclude``) is left out: it has its result.
    """
    runners: dict[tuple[str, int], set[str]] = {}
    for path, test, lines in current:
        if test != IMPORT_CONTEXT:
            for line in lines:
                runners.setdefault((path, line), set()).add(test)
    made: dict[str, tuple[Mutant, ...]] = {}
    constants: dict[str, dict[int, set[Any]]] = {}
    paths = sorted({path for per_file in executed.values() for path in per_file})
    for path in paths:
        source = head.read(path) or ""
        lines = set().union(*(per_file.get(path, set()) for per_file in executed.values()))
        made[path] = generate(path, source, _spans(source, lines))[0]
        constants[path] = _constants_by_line(source)
    queues: list[list[Mutant]] = []
    for check in checks:
        test_source = base.read(check.path) or ""
        called = names_by_test(test_source).get(check.test, set())
        written_values = {v for v in _test_literals(test_source, check.test)
                          if (len(v) > 1 if isinstance(v, str) else abs(v) > 1)}  # 0, 1, "a" are everywhere
        mine = []
        for path, lines in executed.get(check, {}).items():
            for mutant in made.get(path, ()):
                if mutant.id in exclude:
                    continue
                runs = any(mutant.line <= n <= mutant.end_line for n in lines)
                named = mutant.symbol.rsplit(".", 1)[-1] in called
                if runs or named:
                    others = {t for n in range(mutant.line, mutant.end_line + 1)
                              for t in runners.get((mutant.path, n), ()) if not check.matches(t)}
                    alone = 150 if current and not others else -min(len(others), 50)
                    shares = any(constants[mutant.path].get(n, set()) & written_values
                                 for n in range(mutant.line, mutant.end_line + 1))
                    mine.append((-(risk_score(mutant, contract) + alone + (50 if named else 0) + (20 if runs else 0)
                                   + (40 if shares else 0)), mutant.path, mutant.line, mutant.id, mutant))
        queues.append([entry[-1] for entry in sorted(mine)])
    owners: dict[str, set[int]] = {}
    picked: dict[str, Mutant] = {}
    while len(picked) < budget and any(queues):
        for index, queue in enumerate(queues):
            while queue and queue[0].id in picked:
                owners[queue.pop(0).id].add(index)
            if queue and len(picked) < budget:
                mutant = queue.pop(0)
                picked[mutant.id] = mutant
                owners.setdefault(mutant.id, set()).add(index)
    return [(mutant, tuple(checks[i] for i in sorted(owners[mutant.id]))) for mutant in picked.values()]


def _constants_by_line(source: str) -> dict[int, set[Any]]:
    """{line: the string and number literals on it} (not booleans, None or the empty string)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[int, set[Any]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)) and not isinstance(
                node.value, bool) and node.value != "":
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                found.setdefault(line, set()).add(node.value)
    return found


def _test_literals(source: str, test: str) -> set[Any]:
    """The literals test ``test`` (``test_x`` or ``TestC::test_x``) writes, its decorators' rows included."""
    try:
        scope: list[ast.stmt] = ast.parse(source).body
    except SyntaxError:
        return set()
    *classes, name = test.split("::")
    for class_name in classes:
        scope = next((node.body for node in scope if isinstance(node, ast.ClassDef) and node.name == class_name), [])
    node = next((n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name), None)
    if node is None:
        return set()
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    by_line = _constants_by_line(source)
    return set().union(*(by_line.get(line, set()) for line in range(first, (node.end_lineno or node.lineno) + 1)))

