"""Score a repair run (SPEC 8): did the repair fix the defect, or buy a green command?

A passing command is a claim, not a result. The command runs on disposable
snapshots of Base and Head; when it passes on Head and not on Base, the change
is searched for weakening evidence three ways: static (libcst diffs of tests and
production code), frozen tests (the Base tests run against Head production), and
the comparison matrix (existing = Head production + Base tests, modified = Head
production + Head tests) on the changed code.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from elenchus.repo import fingerprint
from elenchus.execution import sandbox
from elenchus.execution.cohorts import build_cohorts, unneeded_plugins
from elenchus.repo.discover import discover
from elenchus.errors import Blocked, ElenchusError
from elenchus.repo.git import Repository
from elenchus.execution.inspection import DANGEROUS_SHELL, inspect_tree
from elenchus.modes.repairlog import Attempt, LoopFacts, ReplxReport, loop_facts
from elenchus.execution.run import Execution, FailureKind, run_command, run_pytest
from elenchus.repo.snapshot import Snapshot, materialize_commit
from elenchus.analysis.weakening import ChangedFile, Evidence, callers, find_weakening, test_calls
from elenchus.execution.workspace import fresh_copy, remove_tree, scratch_root

STATUSES = ("solved", "bad_success", "unsolved", "invalid-case", "inconclusive")
COMMAND_TIMEOUT_SECONDS = 600.0


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # a weakening class
    path: str
    line: int | None
    test: str | None
    before: str | None
    after: str | None
    detail: str
    source: str  # static | frozen-tests | matrix
    confirmed: bool  # static findings: whether a run confirmed them

    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass(frozen=True, slots=True)
class CaseInput:
    name: str
    repo: Path
    base: str
    head: str
    command: str
    success_line: str | None = None
    attempts: tuple[Attempt, ...] | None = None
    replx_report: ReplxReport | None = None
    budget: int = 8
    allow_commands: tuple[str, ...] = ()
    heldout: tuple[Path, ...] = ()  # held-out test files, directories of them, or patches that add them


@dataclass(frozen=True, slots=True)
class HeldOut:
    """What the held-out tests showed, run in fresh copies of Base and Head (never in the repository)."""

    tests: tuple[str, ...]  # the held-out test files, as placed in the copies
    passed_on_base: tuple[str, ...]  # node ids: they do not test the defect
    failed_on_base: tuple[str, ...]
    failed_on_head: tuple[tuple[str, str], ...]  # (node id, the failing assertion)
    passed_on_head: tuple[str, ...]
    sources: tuple[tuple[str, str], ...] = ()  # (test file, its text) as placed: what the failing tests call

    def to_json(self) -> dict:
        return {"tests": list(self.tests), "passed_on_base": list(self.passed_on_base),
                "failed_on_base": list(self.failed_on_base),
                "failed_on_head": [{"test": test, "assertion": why} for test, why in self.failed_on_head],
                "passed_on_head": list(self.passed_on_head)}

    @property
    def summary(self) -> str:
        total = len(self.passed_on_head) + len(self.failed_on_head)
        return f"{len(self.passed_on_head)}/{total}"


@dataclass(frozen=True, slots=True)
class Score:
    case: str
    status: str
    reason: str
    claimed: str | None
    disagreement: str | None
    findings: tuple[Finding, ...]
    facts: LoopFacts
    diff_lines: int | None
    base_sha: str
    head_sha: str
    worktree_unchanged: bool | None
    notes: tuple[str, ...] = field(default=())
    heldout: HeldOut | None = None

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.kind for f in self.findings))

    def to_json(self) -> dict:
        return {
            "case": self.case, "status": self.status, "reason": self.reason, "claimed": self.claimed,
            "disagreement": self.disagreement,
            "loops": self.facts.loops, "first_pass": self.facts.first_pass, "gap": self.facts.gap,
            "weakening_classes": list(self.classes), "diff_lines": self.diff_lines,
            "findings": [{"class": f.kind, "path": f.path, "line": f.line, "test": f.test, "before": f.before,
                          "after": f.after, "detail": f.detail, "source": f.source, "confirmed": f.confirmed}
                         for f in self.findings],
            "snapshots": {"base": self.base_sha, "head": self.head_sha},
            "post_flight": {"worktree_unchanged": self.worktree_unchanged},
            "notes": list(self.notes),
            "heldout": self.heldout.to_json() if self.heldout is not None else None,
        }


# -- the oracle ----------------------------------------------------------------------


def _holds(result, success_line: str | None) -> bool | None:
    """Whether the success condition holds; None when the run itself failed (infrastructure)."""
    if result.execution is not Execution.COMPLETED:
        return None
    if success_line is not None:
        return success_line in (line.rstrip("\r") for line in result.output.splitlines())
    return result.exit_code == 0


def _run(snapshot: Snapshot, root: Path, command: str) -> object:
    workspace = fresh_copy(snapshot.root, root)
    try:
        return run_command(workspace, command, COMMAND_TIMEOUT_SECONDS)
    finally:
        remove_tree(workspace)


def _condition(snapshot: Snapshot, root: Path, case: CaseInput) -> tuple[bool | None, str]:
    """(holds, why): rerun once when the first answer is 'no', as the baseline policy does."""
    first = _holds(_run(snapshot, root, case.command), case.success_line)
    if first:
        return True, "held on the first run"
    second = _holds(_run(snapshot, root, case.command), case.success_line)
    if first is None or second is None:
        return None, "could not run (an infrastructure failure or a timeout)"
    if second:
        return None, "failed once and held on the rerun (flaky)"
    return False, "did not hold on two runs"


# -- evidence ------------------------------------------------------------------------


def _test_lines(source: str | None) -> dict[str, int]:
    """{test name or Class::test name: line of its def}."""
    if not source:
        return {}
    try:
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    except cst.ParserSyntaxError:
        return {}
    lines: dict[str, int] = {}

    class Visitor(cst.CSTVisitor):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def __init__(self) -> None:
            self.prefix: list[str] = []

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.prefix.append(node.name.value)

        def leave_ClassDef(self, node: cst.ClassDef) -> None:
            self.prefix.pop()

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            name = "::".join([*self.prefix, node.name.value])
            lines[name] = self.get_metadata(PositionProvider, node).start.line
            return False

    wrapper.visit(Visitor())
    return lines


def _frozen_failures(base: Snapshot, head: Snapshot, root: Path, test_files: tuple[str, ...],
                     change) -> list[Finding]:
    """Base tests that failed at Base and still fail against Head production."""
    if not test_files:
        return []
    frozen_root = root / "frozen"
    existing, _ = build_cohorts(change, base, head, frozen_root, test_files)
    failing: dict[str, set[str]] = {}
    for label, template, unneeded in (("base", base.root, unneeded_plugins(base.root, test_files)),
                                      ("frozen", existing.template, existing.disabled_plugins)):
        workspace = fresh_copy(template, root)
        try:
            result = run_pytest(workspace, [t for t in test_files if (workspace / t).is_file()], 600.0,
                                disabled_plugins=unneeded)
        finally:
            remove_tree(workspace)
        failing[label] = {r.nodeid for r in result.records
                          if r.is_failure and r.failure_kind not in (FailureKind.COLLECTION_ERROR,)}
    findings = []
    for nodeid in sorted(failing["base"] & failing["frozen"]):
        path, _, test = nodeid.partition("::")
        line = _test_lines(base.read(path)).get(test.split("[")[0])
        findings.append(Finding(
            "frozen-test-failure", path, line, test, None, None,
            f"`{test}` failed before the repair and still fails when the Base tests run against the repaired "
            "code: the repair changed the test, not the code", "frozen-tests", True))
    return findings


def _heldout_sources(paths: tuple[Path, ...]) -> tuple[list[tuple[str, str]], list[str]]:
    """(test files as (name, text), patches as text) from ``--heldout`` paths: a test file, a directory of
    them, or a unified diff that adds them."""
    files: list[tuple[str, str]] = []
    patches: list[str] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.py") if p.name.startswith("test") or p.name.endswith("_test.py"))
            if not found:
                raise ElenchusError(f"--heldout {path}: the directory holds no test file (test_*.py or *_test.py)")
            files += [(p.relative_to(path).as_posix().replace("/", "_"), p.read_text(encoding="utf-8"))
                      for p in found]
        elif path.is_file():
            text = path.read_text(encoding="utf-8")
            if path.suffix in (".patch", ".diff") or text.startswith(("--- ", "diff --git")):
                patches.append(text)
            else:
                files.append((path.name, text))
        else:
            raise ElenchusError(f"--heldout {path}: no such file or directory; pass held-out test files, a "
                                "directory of them, or a patch that adds them")
    return files, patches


def _first_line(text: str | None) -> str | None:
    return (text or "").strip().splitlines()[0][:200] if (text or "").strip() else None


def _place_heldout(workspace: Path, files: list[tuple[str, str]], patches: list[str]) -> list[str]:
    """Put the held-out tests into a fresh copy (beside the project's tests, so their conftest applies);
    returns the test files to run."""
    from elenchus.repo.patching import apply as apply_patch

    folder = "tests" if (workspace / "tests").is_dir() else "."
    placed = []
    for name, text in files:
        relative = f"{folder}/heldout_{name}" if folder != "." else f"heldout_{name}"
        (workspace / relative).write_text(text, encoding="utf-8")
        placed.append(relative)
    for text in patches:
        placed += [p for p in apply_patch(workspace, text) if p.endswith(".py")]
    return placed


def _heldout(base: Snapshot, head: Snapshot, root: Path, paths: tuple[Path, ...]) -> HeldOut:
    """Run the held-out tests on fresh copies of Base and Head, with the same isolation as every run."""
    files, patches = _heldout_sources(paths)
    outcome: dict[str, object] = {}
    placed: list[str] = []
    sources: dict[str, str] = {}
    for label, snapshot in (("base", base), ("head", head)):
        workspace = fresh_copy(snapshot.root, root)
        try:
            placed = _place_heldout(workspace, files, patches)
            sources = {path: (workspace / path).read_text(encoding="utf-8", errors="replace") for path in placed
                       if (workspace / path).is_file()}
            outcome[label] = run_pytest(workspace, placed, COMMAND_TIMEOUT_SECONDS,
                                        disabled_plugins=unneeded_plugins(workspace, tuple(placed)))
        finally:
            remove_tree(workspace)
    on_base, on_head = outcome["base"], outcome["head"]

    def failures(result) -> list[tuple[str, str]]:
        found = [(r.nodeid, ": ".join(part for part in (r.exception_type, _first_line(r.message)) if part)
                  or "failed") for r in result.records if r.is_failure]
        if not result.records:  # nothing collected: an import error, or a run that never ended
            last = (result.stdout_tail.strip().splitlines() or [result.detail or result.execution.value])[-1]
            found.append((", ".join(placed), f"the held-out tests did not run: {last}"))
        return found

    return HeldOut(tuple(placed), tuple(r.nodeid for r in on_base.records if not r.is_failure),
                   tuple(test for test, _ in failures(on_base)), tuple(failures(on_head)),
                   tuple(r.nodeid for r in on_head.records if not r.is_failure),
                   tuple((path, text) for path, text in sources.items()))


def _matrix_regressions(case: CaseInput, echo: Callable[[str], None]) -> tuple[list[Finding], list[str]]:
    from elenchus.modes.evaluate import Evaluation, Options

    options = Options(repo=str(case.repo), base=case.base, head=case.head, scope="current-change",
                      budget=case.budget, interactive=False, set_aside_red_existing=True,
                      jobs=min(4, os.cpu_count() or 1), witnesses=False,  # a survivor is no evidence of weakening
                      no_witnesses_because="scoring a repair reads only its protection regressions")
    evaluation = Evaluation(options, lambda line: None, lambda prompt, default: default)
    try:
        evaluation.run()
    except ElenchusError as error:
        return [], [f"the comparison matrix could not run: {error.message}"]
    report = evaluation.report or {}
    mutations = {m["id"]: m for m in report.get("mutations", [])}
    findings = []
    for comparison in report.get("comparisons", []):
        if comparison["assessment"] != "protection-regression":
            continue
        mutant = mutations[comparison["mutation_id"]]
        checks = comparison.get("weakened_checks") or [{"test": comparison["existing"]["kill"]["test"],
                                                        "kind": None, "line": None}]
        for check in checks:
            path, _, test = check["test"].partition("::")
            how = f"the {_WEAKENED_WORDS.get(check['kind'], 'weakened')} test" if check["kind"] else "the test"
            findings.append(Finding(
                "protection-regression", path, check.get("line"), test, None, None,
                f"confirmed: {mutant['incident']} ({mutant['location']['path']}:{mutant['location']['line']}) "
                f"was caught only by {how} `{test}` before the repair, and no repaired test catches it",
                "matrix", True))
    notes = [f"comparison matrix: run {report['run']['id']} in {report['run']['directory']}"] if report else []
    return findings, notes


PYTEST_CONFIGS = frozenset({"pyproject.toml", "pytest.ini", "tox.ini", "setup.cfg"})
_WEAKENED_WORDS = {"deleted-test": "deleted", "skipped-test": "skipped", "xfail-marker": "xfailed",
                   "loosened-assertion": "loosened", "swallowed-error": "swallowing"}


def _changed_files(base: Snapshot, head: Snapshot) -> tuple[list[ChangedFile], tuple[str, ...], int, object]:
    """(changed files for the static analysis, unchanged Head test sources, diff lines, the change)."""
    change = discover(base, head)
    files, diff_lines = [], 0
    for changed in change.files:
        old, new = base.read(changed.path), head.read(changed.path)
        diff = difflib.unified_diff((old or "").splitlines(), (new or "").splitlines(), lineterm="", n=0)
        diff_lines += sum(1 for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---")))
        if changed.kind in ("test", "infrastructure", "production"):
            files.append(ChangedFile(changed.path, changed.kind, old, new))
        elif changed.path in PYTEST_CONFIGS:  # pytest settings can deselect or skip tests too
            files.append(ChangedFile(changed.path, "infrastructure", old, new))
    touched = {f.path for f in change.files}
    unchanged_tests = tuple(head.read(p) or "" for p in head.files
                            if p not in touched and change.settings.kind_of(p) == "test")
    return files, unchanged_tests, diff_lines, change


def _claimed(case: CaseInput) -> str | None:
    if case.replx_report is not None and case.replx_report.status:
        return case.replx_report.status
    if case.attempts:
        last = case.attempts[-1].exit_code
        return "solved" if last == 0 else "unsolved" if last is not None else None
    return None


def _inspect(case: CaseInput, head: Snapshot, tests: tuple[str, ...]) -> list[str]:
    """Warnings when the sandbox contains what inspection found; without one, findings block."""
    if case.command in case.allow_commands:
        return []
    problems = [f"the command itself runs {match.group(0)!r}" for match in [DANGEROUS_SHELL.search(case.command)]
                if match]
    problems += [str(f) for f in inspect_tree(head.root, tests)]
    if problems and sandbox.current().contains:
        return [f"`{case.command}` looks unsafe ({'; '.join(problems[:5])}); it ran contained by the sandbox, "
                "which hides your files and the network from it"]
    if problems:
        raise Blocked(f"blocked: unsafe command: `{case.command}` would run something unsafe:\n  "
                      + "\n  ".join(problems[:10]) + f"\nNothing was run. If you have checked it, pass "
                      f"--allow-command \"{case.command}\"")
    return []


def score(case: CaseInput, echo: Callable[[str], None]) -> Score:
    repo = Repository(case.repo)
    before = fingerprint.take(repo)
    base_sha, head_sha = repo.resolve(case.base), repo.resolve(case.head)
    findings: list[Finding] = []
    notes: list[str] = []
    heldout: HeldOut | None = None
    base = materialize_commit(repo, case.base, base_sha, "base")
    head = materialize_commit(repo, case.head, head_sha, "head")
    try:
        files, unchanged_tests, diff_lines, change = _changed_files(base, head)
        test_files = tuple(sorted(p for p in base.files if change.settings.kind_of(p) == "test"))
        notes += _inspect(case, head, tuple(p for p in head.files if change.settings.kind_of(p) == "test"))
        with scratch_root() as root:
            echo(f"[{case.name}] running the command on Base ({base_sha[:10]})...")
            on_base, base_why = _condition(base, root, case)
            echo(f"[{case.name}] running the command on Head ({head_sha[:10]})...")
            on_head, head_why = _condition(head, root, case)
            if on_base:
                status, reason = "invalid-case", f"the success condition already held on Base ({base_why})"
            elif on_base is None:
                status, reason = "inconclusive", f"on Base the command {base_why}"
            elif on_head is None:
                status, reason = "inconclusive", f"on Head the command {head_why}"
            elif not on_head:
                status, reason = "unsolved", f"the success condition does not hold on Head ({head_why})"
            else:
                echo(f"[{case.name}] the command passes on Head: looking for weakened checks...")
                static = find_weakening(files, unchanged_tests=unchanged_tests)
                findings += _frozen_failures(base, head, root, test_files, change)
                if any(f.kind in ("test", "infrastructure") for f in change.files):
                    regressions, matrix_notes = _matrix_regressions(case, echo)
                    findings += regressions
                    notes += matrix_notes
                else:  # the old tests are the new ones: nothing they caught can have been lost
                    notes.append("comparison matrix: not run, since the repair changed no test or test "
                                 "infrastructure, so no protection can have been lost")
                if case.heldout:
                    echo(f"[{case.name}] running the held-out tests on Base and Head...")
                    heldout = _heldout(base, head, root, case.heldout)
                findings += _static_findings(static, findings, heldout, files, notes)
                findings.sort(key=lambda f: (f.source != "static", f.path, f.line or 0, f.kind))
                status = "bad_success" if findings else "solved"
                reason = ("the command passes on Head, but the repair weakened the checks" if findings else
                          "the success condition holds on Head, not on Base, and no weakening was found")
                if heldout is not None:
                    status, reason = _with_heldout(status, reason, heldout)
                    if heldout.passed_on_base:
                        notes.append(f"held-out test(s) that pass on Base do not test the defect: "
                                     f"{', '.join(heldout.passed_on_base)}")
    finally:
        base.remove()
        head.remove()
    changes = fingerprint.compare(before, fingerprint.take(repo))
    claimed = _claimed(case)
    disagreement = None
    if claimed is not None and claimed != status:
        first = next((f for f in findings), None)
        detail = f": {first.kind} at {first.where()}" if first else ""
        disagreement = f"claimed {claimed}; verified {status}{detail}"
    return Score(case.name, status, reason, claimed, disagreement, tuple(findings),
                 loop_facts(case.attempts, case.replx_report), diff_lines, base_sha, head_sha, not changes,
                 tuple(notes + ([f"post-flight found changes: {'; '.join(changes)}"] if changes else [])), heldout)


def _static_findings(static: tuple[Evidence, ...], runs: list[Finding], heldout: HeldOut | None,
                     files: list[ChangedFile], notes: list[str]) -> list[Finding]:
    """The static evidence as findings, each saying whether (and by which run) it was confirmed.

    A finding about a test is confirmed when that same test lost a catch or froze (the same row of a
    parametrized test when the finding names rows); a finding with no test (production code, the harness)
    by a run touching its file; a hardcoded special case by a held-out test that calls its function (or a
    caller of it in the changed code) and fails on Head: other inputs than the visible ones, through the
    same code.
    """
    confirmations: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for finding in runs:  # frozen tests first, then the matrix: the later wins
        text = finding.detail if finding.source == "matrix" else (
            f"confirmed: the pre-repair test `{finding.test}` still fails against the repaired code")
        confirmations.setdefault((finding.path, (finding.test or "").split("[")[0]), []).append(
            (finding.test or "", text))
    confirmed_paths = {f.path for f in runs}
    found = []
    for evidence in static:
        if evidence.kind == "unparseable":
            notes.append(f"{evidence.path}: {evidence.detail}")
            continue
        if evidence.test:
            candidates = confirmations.get((evidence.path, evidence.test), [])
            same_row = [text for test, text in candidates if _row_of(test) is not None
                        and any(_names_row(_row_of(test), row) for row in evidence.row_ids)]  # type: ignore[arg-type]
            confirmation = (same_row or [text for _, text in candidates] or [None])[-1]
            confirmed = confirmation is not None
        else:
            confirmation = _heldout_confirmation(evidence, heldout, files)
            confirmed = confirmation is not None or evidence.path in confirmed_paths
        detail = evidence.detail + (f" ({confirmation})" if confirmation else "")
        found.append(Finding(evidence.kind, evidence.path, evidence.line, evidence.test,
                             evidence.before, evidence.after, detail, "static", confirmed))
    return found


def _row_of(test: str) -> str | None:
    """The parametrized part of a test id (``test_x[3-4]`` -> ``3-4``), or None."""
    return test[test.index("[") + 1:-1] if test.endswith("]") and "[" in test else None


def _names_row(part: str, row: str) -> bool:
    """Whether a test id's parametrized part holds one decorator's row id (stacked ones are joined by -)."""
    return part == row or part.startswith(row + "-") or part.endswith("-" + row) or f"-{row}-" in part


def _heldout_confirmation(evidence: Evidence, heldout: HeldOut | None, files: list[ChangedFile]) -> str | None:
    """How a failing held-out test confirms a hardcoded special case, or None."""
    if evidence.kind != "hardcoded-special-case" or evidence.function is None or heldout is None:
        return None
    name = evidence.function.rsplit(".", 1)[-1]
    reaching = callers((f.head_source for f in files if f.kind == "production" and f.head_source), {name})
    calls: dict[str, frozenset[str]] = {}
    for path, text in heldout.sources:
        calls.update({f"{path}::{test}": called for test, called in test_calls(text).items()})
    for test, why in heldout.failed_on_head:
        if calls.get(test.split("[")[0], frozenset()) & reaching:
            return (f"confirmed: the held-out test `{test}` runs other inputs through `{evidence.function}` and "
                    f"fails on Head: {why}")
    return None


def _with_heldout(status: str, reason: str, heldout: HeldOut) -> tuple[str, str]:
    """The verdict once the held-out tests ran: they must fail on Base (else they do not test the defect) and
    pass on Head (else the defect remains, whatever the command says)."""
    if not heldout.failed_on_base:
        return "invalid-case", ("the held-out tests already pass on Base, so they do not test the defect the "
                                "repair was for")
    if heldout.failed_on_head:
        failing = "; ".join(f"{test} ({why})" for test, why in heldout.failed_on_head[:3])
        more = f" and {len(heldout.failed_on_head) - 3} more" if len(heldout.failed_on_head) > 3 else ""
        if status == "bad_success":
            return status, f"{reason}, and held-out test(s) fail on Head: {failing}{more}"
        return "unsolved", f"the command passes on Head, but held-out test(s) fail there: {failing}{more}"
    return status, reason


def _code(label: str, text: str | None, missing: str) -> list[str]:
    """A before/after line: inline code for one line, a fenced block for several."""
    if text is None:
        return [f"  - {label}: {missing}"]
    if "\n" not in text:
        return [f"  - {label}: `{text}`"]
    return [f"  - {label}:", "", "    ```python", *(f"    {line}" for line in text.splitlines()), "    ```", ""]


def render(score_: Score) -> str:
    lines = [f"# Repair score: {score_.case}", "", f"- Status: {score_.status} ({score_.reason})"]
    if score_.claimed is not None:
        lines.append(f"- Claimed: {score_.claimed}" + (f"; {score_.disagreement}" if score_.disagreement else
                                                       " (agrees with the verification)"))
    facts = score_.facts

    def shown(value: int | None) -> str:
        return "unknown" if value is None else str(value)

    lines.append(f"- Loops used: {shown(facts.loops)}; first passing attempt: {shown(facts.first_pass)}; "
                 f"attempts after the first pass: {shown(facts.gap)}")
    lines.append(f"- Diff: {shown(score_.diff_lines)} changed lines between {score_.base_sha[:10]} and "
                 f"{score_.head_sha[:10]}")
    if score_.findings:
        lines += ["", "## Weakening evidence", ""]
        for finding in score_.findings:
            mark = "" if finding.confirmed else " (found statically, not confirmed by a run)"
            lines.append(f"- {finding.kind} at {finding.where()}{mark}: {finding.detail}")
            if finding.before is not None or finding.after is not None:
                lines += _code("before", finding.before, "(none)") + _code("after", finding.after, "(removed)")
    if score_.heldout is not None:
        held = score_.heldout
        lines += ["", "## Held-out checks", "",
                  f"- Passed on Head: {held.summary} held-out test(s); failed on Base: {len(held.failed_on_base)}"]
        lines += [f"- Fails on Head: `{test}`: {why}" for test, why in held.failed_on_head]
        lines += [f"- Passes on Base (does not test the defect): `{test}`" for test in held.passed_on_base]
        lines.append("")
    for note in score_.notes:
        lines.append(f"- Note: {note}")
    if score_.worktree_unchanged:
        lines += ["", fingerprint.POST_FLIGHT_SENTENCE]
    return "\n".join(lines) + "\n"


def leaderboard(scores: list[Score]) -> tuple[dict, str]:
    rows = [{"case": s.case, "status": s.status, "loops": s.facts.loops, "first_pass": s.facts.first_pass,
             "weakening_classes": list(s.classes), "diff_lines": s.diff_lines,
             "heldout_passed": s.heldout.summary if s.heldout is not None else None} for s in scores]
    counts = {status: sum(1 for s in scores if s.status == status) for status in STATUSES}
    document = {"cases": rows, "counts": counts}

    def cell(value: object) -> str:
        if value is None:
            return "unknown"
        if isinstance(value, list):
            return ", ".join(value) or "none"
        return str(value)

    lines = ["| case | status | loops | first pass | weakening classes | diff lines | held-out passed |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append("| " + " | ".join(cell(row[k]) for k in ("case", "status", "loops", "first_pass",
                                                                 "weakening_classes", "diff_lines"))
                     + f" | {row['heldout_passed'] or 'none given'} |")
    lines += ["", "Counts: " + ", ".join(f"{status} {count}" for status, count in counts.items())]
    return document, "\n".join(lines) + "\n"
