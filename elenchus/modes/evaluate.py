"""Test Evaluation mode, end to end: the engine behind `elenchus evaluate`, replx scoring and hosted mode.

resolve revisions -> snapshots -> discover -> scope question -> contract -> mutants
-> cohorts -> baselines -> one-mutant runs -> matrix -> report -> post-flight.
Review-only: the user's repository is read, never written (``--save`` is the one
explicit exception, made after the post-flight fingerprint was taken).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from elenchus import __version__
from elenchus.analysis import quality
from elenchus.execution import sandbox
from elenchus.execution.baseline import BASELINE_TIMEOUT_SECONDS, Baseline, establish, run_once
from elenchus.execution.cohorts import Cohort, build_cohorts, relevant_tests, selected_tests
from elenchus.execution.dependencies import Digests, Manifest, Reads, baseline_entries, conftests_in, imported_tests, \
    run_entries
from elenchus.console import Progress
from elenchus.execution.coverage_map import CoverageMap, Selection
from elenchus.repo.discover import ChangeSet, parse_failure
from elenchus.execution.executor import Executor, FreshProcess, RunRequest, WarmRunner
from elenchus.mutation.contract import Contract, contract_from_json, derive_provisional, load_contract, \
    require_for_hardening
from elenchus.errors import Blocked, ElenchusError, InputGuardError
from elenchus.execution.inspection import inspect_tree, uncleared
from elenchus.repo.layout import ROOT, SourceLayout, detect_layout
from elenchus.exit_codes import ExitCode
from elenchus.analysis.matrix import assess
from elenchus.records import ResultCache, RunDirectory, resume_mismatch
from elenchus.reporting.report import render_markdown
from elenchus.reporting import outputs
from elenchus.mutation.mutate import Mutant
from elenchus.guards import SEARCH_BUDGET_DEFAULT, WITNESS_TIME_DEFAULT
from elenchus.execution.run import Execution, Outcome, RunResult, TestOutcome, Verdict, judge, timeout_for
from elenchus.mutation.scope import CONFIRMED_INTENT, FROM_FILE, ScopeAnswer, resolve_scope
from elenchus.mutation.select import Plan, Planned, names_by_test, plan as plan_mutants, risk_score
from elenchus.repo.session import Session, open_session
from elenchus.execution.workspace import scratch_root

if TYPE_CHECKING:  # the regression search and the witnesses load only when a run needs them (an unchanged
    # rerun reuses its report without them)
    from elenchus.execution.cluster import ClusterExecutor
    from elenchus.analysis.regression import WeakenedCheck
    from elenchus.analysis.witness import NoWitness, Witness

FAIL_ON_CHOICES = ("protection-regression", "unprotected", "not-comparable", "inconclusive")
RUNNERS = ("collected", "warm", "fresh")
TEST_SELECTIONS = ("coverage", "all")


@dataclass(frozen=True, slots=True)
class Options:
    repo: str = "."
    base: str | None = None
    head: str | None = None
    scope: str | None = None
    target: str | None = None
    budget: int = 16
    budget_explicit: bool = False
    jobs: int = 1
    timeout_factor: float = 3.0
    timeout_constant: float = 5.0  # seconds a run may take beyond the factor times its baseline
    contract: str | None = None
    change_id: str | None = None
    intent: str | None = None
    save: bool = False
    json_path: str | None = None
    html_path: str | None = None  # a copy of report.html
    sarif_path: str | None = None  # a copy of report.sarif
    junit_path: str | None = None  # a copy of report.junit.xml
    resume: str | None = None
    fail_on: tuple[str, ...] = ()
    demo: bool = False
    interactive: bool = False
    allow_commands: tuple[str, ...] = ()
    fresh: bool = False
    set_aside_red_existing: bool = False  # replx scoring: old tests may fail at Head on purpose
    exhaustive: bool = False  # target scope: mutmut's catalog as an extra candidate source
    search_budget: int = SEARCH_BUDGET_DEFAULT  # candidates the regression search may try
    witness_time: float = WITNESS_TIME_DEFAULT  # seconds of input search per survivor
    witnesses: bool = True  # search a witness for each survivor (--no-witnesses; replx reads only the regressions)
    no_witnesses_because: str = "the search was turned off: --no-witnesses, or witnesses = false in [tool.elenchus]"
    scope_reason: str | None = None  # why the scope was chosen, when it was not asked (the demo)
    hosted_scope_reason: str | None = None  # hosted mode: the scope is the host's, inherited
    hosted_contract: dict | None = None  # hosted mode: the host's contract, validated by the Runner
    runner: str = "collected"  # collected / warm: fork each run from a collected session / a warm interpreter per
    # job slot; fresh: a new interpreter per run
    test_selection: str = "coverage"  # coverage: only the tests that execute the mutated lines; all: every one
    harden: bool = False  # challenge the confirmed contract items' code; survivors get proposed tests
    cluster: str | None = None  # tcp://HOST:PORT of a Dask scheduler: mutant runs become its tasks
    cluster_from_file: bool = False  # the address came from [tool.elenchus], not the command line
    scope_from_file: bool = False  # the scope came from [tool.elenchus], not the command line


@dataclass(frozen=True, slots=True)
class MutantRun:
    """One mutant x cohort execution, as recorded in runs.jsonl."""

    mutant_id: str
    cohort: str
    verdict: Verdict
    record: dict


@dataclass(frozen=True, slots=True)
class _Job:
    """One mutant to run against some tests of a cohort."""

    mutant: Mutant
    cohort: Cohort
    tests: tuple[str, ...]
    deselect: tuple[str, ...] = ()
    selection: str = "relevant tests"  # or "weakened checks" (the regression search)
    select: tuple[str, ...] | None = None  # test keys that execute the mutated lines; None: all of ``tests``
    first: tuple[str, ...] = ()  # without ``select``: test keys to run before the others (order only)
    stop: bool = False  # end at the first test that surely caught the mutant (where not every catching test is needed)
    limit: float | None = None  # seconds for the selected tests; None: the limit for every relevant test
    covered: bool = False  # the baseline's line coverage saw the mutated lines run: no need to trace them again

    @property
    def key(self) -> str:
        return self.key_of(self.mutant, self.cohort.name)

    @staticmethod
    def key_of(mutant: Mutant, cohort: str) -> str:
        return f"{mutant.id}:{cohort}"


def _iso(seconds: float | None = None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _observes(planned: tuple[Planned, ...], cohort: Cohort) -> Callable[[frozenset[str]], bool]:
    """Whether the tests left after excluding some still call every challenged function."""
    per_test: dict[str, set[str]] = {}
    for path in cohort.tests:
        source = (cohort.template / path).read_text(errors="replace")
        for name, used in names_by_test(source).items():
            per_test[f"{path}::{name}"] = used

    def observes(excluded: frozenset[str]) -> bool:
        remaining: set[str] = set()
        for nodeid, used in per_test.items():
            if nodeid not in excluded:
                remaining |= used
        return all(p.mutant.symbol.split(".")[-1] in remaining for p in planned)

    return observes


def _run_record(run_id: str, mutant_id: str, cohort: str, result, verdict: Verdict) -> dict:
    return {
        "run": run_id, "mutant_id": mutant_id, "cohort": cohort,
        "start": result.started, "end": result.finished, "exit_code": result.exit_code,
        "tests_passed": result.passed, "tests_failed": result.failed,
        "failure_kind": verdict.kill.kind.value if verdict.kill else None,
        "duration": round(result.duration, 3) if result.duration is not None else None,
        "execution": result.execution.value, "outcome": verdict.outcome.value,
        "killing_test": verdict.kill.nodeid if verdict.kill else None,
        "attributed": verdict.kill.attributed if verdict.kill else None,
        "reason": verdict.reason,
        "timeout": result.timeout,
        "mutated_lines_executed": result.mutated_lines_executed,
        "kills": [[k.nodeid, k.kind.value] for k in verdict.kills],
        # a run that ended without a test's result: what pytest said last (its own files go with its workspace)
        "stderr": (result.stderr_tail or None) if not result.records else None,
    }


def _verdict_from_record(record: dict) -> Verdict:
    from elenchus.execution.run import FailureKind, Kill

    kill = None
    if record.get("killing_test"):
        kill = Kill(record["killing_test"], FailureKind(record["failure_kind"]), bool(record["attributed"]))
    kills = tuple(Kill(nodeid, FailureKind(kind), True) for nodeid, kind in record.get("kills") or ())
    return Verdict(Outcome(record["outcome"]), kill, record.get("reason") or "", kills or ((kill,) if kill else ()))


def _witness_from_record(record: dict) -> object:
    """A stored witness, or a stored search that found none in every kind of input; raises when neither."""
    from elenchus.analysis.witness import NoWitness, Witness

    if "no_witness" in record:
        found = NoWitness(**record["no_witness"])
        if not found.searched or not found.reason.startswith(("likely equivalent", "equivalent (proven)")):
            raise ValueError("not a completed search")
        return found
    return Witness(**record["witness"])


def _baseline_from_record(record: dict) -> Baseline:
    """A stored baseline; raises ValueError, KeyError or TypeError when the record is not one."""
    coverage, reads = record.get("coverage"), record.get("reads")
    fields = {name: value for name, value in record.items() if name != "depends"}
    baseline = Baseline(**{**fields, "failing_tests": tuple(record["failing_tests"]),
                           "flaky_tests": tuple(record["flaky_tests"]), "excluded": tuple(record["excluded"]),
                           "coverage": CoverageMap.from_json(coverage) if coverage else None,
                           "third_party": tuple(record.get("third_party") or ()),
                           "reads": None if reads is None else tuple((str(where), tuple(str(e) for e in entries))
                                                                     for where, entries in reads)})
    if baseline.status not in ("green", "baseline-red", "flaky", "inconclusive", "not-comparable", "blocked"):
        raise ValueError(f"not a baseline status: {baseline.status!r}")
    return baseline


def _cohort_outcome(verdict: Verdict | None) -> dict:
    if verdict is None:
        return {"result": "not-run", "kill": None}
    kill = None
    outcome: dict = {"result": verdict.outcome.value}
    if verdict.kill is not None and verdict.outcome is Outcome.KILLED:
        kill = {"test": verdict.kill.nodeid, "kind": verdict.kill.kind.value, "attributed": verdict.kill.attributed}
        outcome["kills"] = [{"test": k.nodeid, "kind": k.kind.value} for k in verdict.kills or (verdict.kill,)]
    outcome["kill"] = kill
    return outcome


def _baseline_json(baseline: Baseline, untraced: float | None = None) -> dict:
    found = {"status": baseline.status, "failing_tests": list(baseline.failing_tests),
             "flaky_tests": list(baseline.flaky_tests), "reduced_scope": baseline.reduced_scope,
             "duration_seconds": round(baseline.duration, 3) if baseline.duration is not None else None,
             "reason": baseline.reason}
    if untraced is not None:
        found["untraced_seconds"] = round(untraced, 3)
    return found


def _production_sites(change, plan: Plan, head) -> list[dict]:
    """Per changed production file: its mutants (challenged or not), and why there are none."""
    sites = []
    for path in change.production_files:
        if path in change.paths("production", "deleted"):
            continue
        count = sum(p.mutant.path == path for p in (*plan.challenged, *plan.not_challenged))
        reason = None
        broken = parse_failure(head.read(path)) if count == 0 else None
        if broken:
            reason = f"the file does not parse at Head ({broken}), so no mutant can be made"
        elif count == 0:
            reasons = list(dict.fromkeys(r.reason.removeprefix("no mutant: ") for r in plan.rejected
                                         if r.path == path))
            touched = any(f.path == path and f.status != "deleted" for f in change.functions) or any(
                s.path == path for s in change.statements)
            if reasons:
                reason = "; ".join(reasons[:3]) + (
                    f" (and {len(reasons) - 3} more)" if len(reasons) > 3 else "")
            elif not touched:
                reason = "no code line changed: only comments, docstrings, blank lines or formatting"
            else:
                reason = "outside the chosen scope"
        sites.append({"path": path, "mutants": count, "reason": reason})
    return sites


class Evaluation:
    """One evaluation run; holds what the stages hand each other."""

    def __init__(self, options: Options, echo: Callable[[str], None], ask: Callable[[str, str], str],
                 emit: Callable[[str], None] | None = None) -> None:
        self.options = options
        self.echo = echo  # narration (stderr on the command line)
        self.emit = emit or echo  # the report itself (stdout), so it can be piped on its own
        self.ask = ask
        self.notes: list[str] = []
        self.untouched: str | None = None  # why there is nothing to evaluate: the change touches no code or test
        self.unparseable: tuple[str, ...] = ()  # changed files that do not parse at Head, and where
        self.resumed = 0  # runs reused from --resume
        self.resume_rejected = 0  # recorded runs of --resume whose content check failed
        self.started = time.time()
        self.verdicts: dict[tuple[str, str], Verdict] = {}
        self.interrupted = False
        self.cohorts_same = False
        self.untraced: dict[str, float | None] = {}  # cohort -> its relevant tests' seconds without line coverage
        self.reads: dict[str, Reads | None] = {}  # cohort -> what its baseline read (None: not known)
        self.digests: dict[str, Digests] = {}  # cohort -> its files' digests, each computed once
        self.imported: dict[str, frozenset[str]] = {}  # cohort -> test files another file imports
        self.reran: dict[str, int] = {}  # why stored runs were measured again, and how many each reason
        self.again: list[str] = []  # why stored baselines were
        self.base_unavailable: str | None = None
        self.shallow = False  # the repository is a shallow clone (what an unavailable Base usually means)
        self.report: dict | None = None
        self.cache = ResultCache(reuse=not options.fresh)  # (a fresh measurement is kept for the next run)
        self.layout = SourceLayout((ROOT,), ())
        self.sites: list[dict] = []
        self.checks: tuple[WeakenedCheck, ...] = ()
        self.found: list[tuple[Mutant, tuple[WeakenedCheck, ...]]] = []  # the regression search's evidence
        self.witnesses: dict[str, Witness | NoWitness] = {}
        self.executor: Executor | None = None
        self.cluster: ClusterExecutor | None = None  # --cluster: where the mutant runs go
        self.selected = 0  # mutant runs that executed only the tests running the mutated lines
        self.not_covered = 0  # mutant x cohort pairs no test executes: decided without a run
        self.sources: dict[str, str] = {}  # Head text of the files the other report formats show

    # -- stages --------------------------------------------------------------------

    def run(self) -> ExitCode:
        demo_dir = None
        options = self.options
        if options.demo:
            from elenchus import scratch

            demo_dir = Path(tempfile.mkdtemp(prefix="elenchus-demo-"))
            repo = scratch.build("demo", demo_dir / "batching")
            self.echo(f"Demo: built the bundled demo project as a git repository at {repo}")
            if options.scope is None:
                options = replace(options, scope="current-change",
                                  scope_reason="Answered by --demo with the recommended option.")
                self.echo("Demo: answering the scope question with the recommended option, current-change.")
            self.options = options
        else:
            repo = Path(options.repo)
        try:
            session = open_session(repo, options.base, options.head, missing_base_ok=True)
            try:
                return self._evaluate(session)
            finally:
                if session.post_flight_changes is None:
                    session.close()
        finally:
            if demo_dir is not None:
                shutil.rmtree(demo_dir, ignore_errors=True)

    def _evaluate(self, session: Session) -> ExitCode:
        options = self.options
        self.base_unavailable = session.base_unavailable
        self.shallow = session.repo.shallow
        for line in session.revisions.narration:
            self.echo(line)
        if options.harden:  # before any mutant: only confirmed intent is hardened
            contract = self._confirmed_contract(session)
            answer = ScopeAnswer(CONFIRMED_INTENT, None, options.hosted_scope_reason or (
                "Hardening challenges the functions and methods the confirmed contract items anchor."), False)
        else:
            answer = resolve_scope(options.scope, options.target, session.change, options.budget,
                                   options.interactive, self.ask, self.echo, from_file=options.scope_from_file)
            reason = options.hosted_scope_reason or options.scope_reason
            if reason is not None:
                answer = ScopeAnswer(answer.option, answer.target, reason, False)
            contract = self._contract(session)
        if options.exhaustive and answer.option != "target":
            raise InputGuardError("exhaustive", f"--exhaustive only applies to --scope target, not {answer.option}")
        self.untouched = _untouched(session.change) if answer.option in ("current-change", "changed-tests") else None
        self.unparseable = session.change.unparseable
        if self.untouched is not None:
            self.echo(self.untouched)
        reuse_key = self._reuse_key(session, answer, contract)
        stored = self.cache.get(reuse_key) if reuse_key is not None else None
        if stored is not None and {"report", "sources", "manifest", "runs"} <= stored.keys():
            return self._reused(stored, session)
        plan = plan_mutants(answer.option, session.change, session.base, session.head, contract,
                            options.budget, answer.target, options.exhaustive, store=self.cache)
        origin = f" (from {FROM_FILE})" if options.scope_from_file and not options.harden else ""
        self.echo(f"Scope: {answer.option}{' ' + answer.target if answer.target else ''}{origin}; "
                  f"{len(plan.challenged)} mutant(s) to challenge, {len(plan.not_challenged)} beyond the budget, "
                  f"{len(plan.rejected)} rejected before running.")
        self.echo(f"Plan: {plan.how_chosen()}")
        mutated_files = tuple(sorted({path for path, _ in plan.spans} | {p.mutant.path for p in plan.challenged}))
        tests = selected_tests(session.change, session.head, mutated_files)
        from elenchus.analysis.regression import weakened_checks

        self.checks = () if self.base_unavailable else weakened_checks(session.change, session.base, session.head)
        self.sites = _production_sites(session.change, plan, session.head)  # reads Head: before it goes
        layout = detect_layout(session.head, session.change.settings)
        self.layout = layout
        self.cluster = self._connect(session)  # before the run directory: a wrong address leaves nothing behind
        try:
            run_dir = self._run_directory(session, answer, plan, tests)
            self.echo(f"Run directory: {run_dir.path}")
            baselines: dict[str, Baseline] = {}
            with scratch_root() as root:
                existing, modified = build_cohorts(session.change, session.base, session.head, root, tests, layout)
                cohorts = {"existing": existing, "modified": modified}
                self.cohorts_same = existing.same_as is not None
                self._inspect(cohorts)
                baselines = self._baselines(cohorts, root, plan, mutated_files)
                self.executor = self._executor(baselines, root)
                manifest = run_dir.manifest()
                manifest["baseline"] = {name: _baseline_json(b) for name, b in baselines.items()}
                run_dir.write_manifest(manifest)
                if baselines["modified"].usable:  # a red existing cohort only makes its comparisons not comparable
                    try:
                        self._run_mutants(plan, cohorts, baselines, root, run_dir)
                        if self.checks and not self.cohorts_same:
                            self._search(session, contract, plan, cohorts, baselines, root, run_dir)
                        if not self.cohorts_same:
                            self._confirm_regressions(plan, cohorts, baselines, root, run_dir)
                        self._witnesses(session, plan, cohorts, root, baselines["modified"].coverage)
                    except KeyboardInterrupt:
                        self.interrupted = True
                        self.notes.append("The run was interrupted (Ctrl-C or a termination signal); mutants not yet run are 'not-run'.")
                    finally:
                        self.executor.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()  # once more when the baselines stopped the run before any mutant: a no-op
        # (reads the snapshots: before they are removed; about the tests the change touched, and a target's)
        concerns = self._quality(session, tests if answer.option == "target" else (), baselines)
        self.sources = self._sources(session, plan)
        changes = session.close()
        report = self._report(session, answer, contract, plan, baselines, tests, concerns, changes, run_dir)
        self.report = report
        exit_code = self._write(report, session, run_dir)
        if reuse_key is not None and self._repeatable(baselines):
            self.cache.put(reuse_key, {"report": report, "sources": self.sources, "manifest": run_dir.manifest(),
                                       "runs": run_dir.runs()})
        if self.interrupted:
            raise KeyboardInterrupt
        return exit_code

    # -- an unchanged rerun ------------------------------------------------------------

    def _reuse_key(self, session: Session, answer: ScopeAnswer, contract: Contract) -> str | None:
        """What a whole evaluation depends on, or None when it must not be reused (resumed or hosted runs).

        The commits, the working tree's files when Head is the working tree, how Base and Head
        were chosen, the scope, the contract, every option that changes a result, and the
        sandbox; the cache key adds the interpreter, the installed packages and Elenchus's own code.
        """
        options = self.options
        if not self.cache.enabled or options.resume or options.hosted_scope_reason is not None:
            return None
        revisions = session.revisions
        # (--fresh measures again what the same settings measure: its results are this evaluation's)
        settings = {name: value for name, value in asdict(options).items() if name not in _OUTPUT_ONLY | {"fresh"}}
        return self.cache.key("evaluation", str(session.repo.root), revisions.base_sha, revisions.head_sha,
                              revisions.head_is_worktree, session.before.files if revisions.head_is_worktree else None,
                              revisions.narration, answer.option, answer.target, answer.reason, contract.source,
                              contract.path, contract.provisional, contract.to_json(), settings,
                              sandbox.current().as_json())

    def _repeatable(self, baselines: dict[str, Baseline]) -> bool:
        """Whether running again would measure the same: green baselines and a verdict for every run, none
        of them inconclusive (an interrupted run, a red baseline or an infrastructure failure is measured again)."""
        return (not self.interrupted and all(b.status == "green" for b in baselines.values())
                and all(v.outcome in _REPEATABLE for v in self.verdicts.values()))

    def _reused(self, stored: dict, session: Session) -> ExitCode:
        """The stored report of an evaluation of exactly this, in a run directory of its own."""
        report = stored["report"]
        earlier = report["run"]["id"]
        self.echo(f"Unchanged since run {earlier}: same commits, files, options, interpreter and installed "
                  "packages, so its results are reported again without running anything (pass --fresh to "
                  "measure again).")
        run_dir = RunDirectory.create(session.repo.root)
        self.echo(f"Run directory: {run_dir.path}")
        run_dir.write_manifest({**stored["manifest"], "run_id": run_dir.id, "started": _iso(self.started),
                                "reused_from": earlier})
        for record in stored["runs"]:
            run_dir.append_run({**record, "run": run_dir.id, "cached": True})
        self.sources = stored["sources"]
        changes = session.close()
        report = {**report,
                  "snapshots": {**report["snapshots"], "worktree_fingerprint": session.before.digest()},
                  "notes": [*report["notes"], f"Every result in this report was measured by run {earlier} on "
                            "exactly this content and these options, and reused (checked against its content "
                            "hash); pass --fresh to measure again."],
                  "post_flight": {"worktree_unchanged": not changes, "changes": list(changes)},
                  "run": {"id": run_dir.id, "directory": str(run_dir.path), "started": _iso(self.started),
                          "finished": _iso()}}
        self.report = report
        # Checked against the schemas when first written; only the run, notes and post-flight differ.
        return self._write(report, session, run_dir, checked=True)

    def _sources(self, session: Session, plan: Plan) -> dict[str, str]:
        """Head text of the mutated files and of the tests that caught a mutant (read before the snapshots go)."""
        paths = {p.mutant.path for p in (*plan.challenged, *plan.not_challenged)} | {r.path for r in plan.rejected}
        paths |= {kill.nodeid.partition("::")[0] for verdict in self.verdicts.values() for kill in verdict.kills}
        return {path: text for path in sorted(paths) if (text := session.head.read(path)) is not None}

    def _confirmed_contract(self, session: Session) -> Contract:
        options = self.options
        contract = contract_from_json(options.hosted_contract, "socratic", None) \
            if options.hosted_contract is not None else \
            load_contract(session.repo.root, options.contract, options.change_id)
        require_for_hardening(contract)
        return contract  # type: ignore[return-value]

    def _contract(self, session: Session) -> Contract:
        options = self.options
        if options.hosted_contract is not None:  # the Runner validated it; schemas stay closed here
            return contract_from_json(options.hosted_contract, "socratic", None)
        return load_contract(session.repo.root, options.contract, options.change_id) \
            or derive_provisional(session.change, session.head, options.intent)

    def _run_directory(self, session: Session, answer: ScopeAnswer, plan: Plan,
                       tests: tuple[str, ...]) -> RunDirectory:
        manifest = {
            "run_id": None, "tool": {"name": "elenchus", "version": __version__},
            "repository": str(session.repo.root),
            "base_rev": session.revisions.base_rev, "base_sha": session.revisions.base_sha,
            "head_rev": session.revisions.head_rev, "head_sha": session.revisions.head_sha,
            "worktree_fingerprint": session.before.digest(),
            "files": [{"path": f.path, "status": f.status, "kind": f.kind} for f in session.change.files],
            "scope": answer.option, "target": answer.target, "budget": self.options.budget,
            "search_budget": self.options.search_budget,
            "mutant_ids": [p.mutant.id for p in plan.challenged],
            "cohorts": ["existing", "modified"], "isolation": "fresh copy of a cohort snapshot per run",
            "test_command": "pytest " + " ".join(tests), "baseline": None,
            "started": _iso(self.started),
        }
        if self.options.resume:
            previous = RunDirectory.existing(self.options.resume)
            why = resume_mismatch(previous.manifest(), manifest)
            if why is None:
                for record in previous.runs():
                    if record.get("selection") == "confirmation":
                        continue  # a second look at a would-be regression: taken again after resuming
                    self.verdicts[(record["mutant_id"], record["cohort"])] = _verdict_from_record(record)
                self.resumed = len(self.verdicts)
                checked = (f"; {previous.rejected} recorded line(s) failed their content check and run again"
                           if previous.rejected else "")
                self.echo(f"Resuming {previous.id}: {len(self.verdicts)} recorded run(s) reused{checked}.")
                self.resume_rejected = previous.rejected
                return previous
            self.echo(f"Starting over instead of resuming {previous.id}: {why}.")
        run_dir = RunDirectory.create(session.repo.root)
        manifest["run_id"] = run_dir.id
        run_dir.write_manifest(manifest)
        return run_dir

    def _inspect(self, cohorts: dict[str, Cohort]) -> None:
        """Block before the first run when the tests would do something unsafe (SPEC 2)."""
        chosen = sandbox.current()
        contained = chosen.contains
        for cohort in cohorts.values():
            if cohort.same_as:
                continue  # the same files as the cohort it shares its runs with: looked at there
            command = "pytest " + " ".join(cohort.tests)
            if chosen.fallback and command not in self.options.allow_commands:
                reached = uncleared(cohort.template, cohort.tests)
                if reached:  # reading them cannot tell what they do, and nothing would contain them
                    listed = "\n  ".join(reached[:10]) + (f"\n  and {len(reached) - 10} more" if len(reached) > 10
                                                          else "")
                    raise Blocked(
                        f"blocked: no sandbox can be built here ({chosen.reason}), and the {cohort.name} tests "
                        f"reach files, processes or the network in ways reading them cannot clear:\n  {listed}\n"
                        "Nothing was run. Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`), or "
                        "pass --isolation none to run them with your account's access anyway.")
            findings = inspect_tree(cohort.template, cohort.tests)
            if findings and contained:
                listed = "; ".join(str(f) for f in findings[:5])
                more = f" and {len(findings) - 5} more" if len(findings) > 5 else ""
                self.notes.append(f"The {cohort.name} tests contain code that looks unsafe ({listed}{more}); it "
                                  "ran contained by the sandbox, which hides your files and the network from it.")
                self.echo(f"Warning: the {cohort.name} tests look unsafe in {len(findings)} place(s); running them "
                          "contained by the sandbox.")
            elif findings and command not in self.options.allow_commands:
                listed = "\n  ".join(str(f) for f in findings[:10])
                raise Blocked(
                    f"blocked: unsafe command: running `{command}` ({cohort.name} tests) would execute code "
                    f"that looks unsafe:\n  {listed}\nNothing was run. If you have checked it and want it run "
                    f"in a disposable snapshot, pass --allow-command \"{command}\"")

    def _baselines(self, cohorts: dict[str, Cohort], root: Path, plan: Plan,
                   mutated_files: tuple[str, ...]) -> dict[str, Baseline]:
        """Each cohort's baseline; the two run at once when two jobs are allowed (they share nothing)."""
        baselines: dict[str, Baseline] = {}
        cover = mutated_files if self.options.test_selection == "coverage" else ()
        measure: list[tuple[str, str, bool]] = []  # (cohort, cache key, set aside red tests)
        for name in ("modified", "existing"):
            cohort = cohorts[name]
            if name == "existing" and self.base_unavailable:
                baselines[name] = Baseline(name, "blocked", (), (), None, None, (
                    "the Base revision is not in this shallow clone, so the pre-change tests are unavailable; "
                    "fetch more history (`git fetch --deepen N` or `git fetch --unshallow`; in GitHub Actions, "
                    "`fetch-depth: 0` on actions/checkout) and rerun" if self.shallow else
                    "the Base revision is not in the local object store, so the pre-change tests are unavailable"))
                self.echo("Baseline, existing: blocked (the Base is unavailable)")
                continue
            if cohort.same_as:
                continue  # it shares the baseline of the cohort it is the same as
            set_aside = name == "existing" and self.options.set_aside_red_existing
            # (what a baseline depended on is known only from its record: the record names it, and holds
            # while each of those files is unchanged)
            key = self.cache.key("baseline", cohort.name, cohort.tests, cohort.disabled_plugins, cohort.layout,
                                 conftests_in(cohort.template), [p.mutant.id for p in plan.challenged],
                                 set_aside, cover, _isolation())
            reused = self.cache.read(key, _baseline_from_record)
            changed = self._changed(cohort, reused[0].get("depends")) if reused is not None else None
            if reused is not None and changed is None:
                baselines[name] = reused[1]
                self.reads[name] = reused[1].reads
                self.echo(f"Baseline, {name}: {baselines[name].status} (reused: nothing it read changed, with the "
                          "same installed packages; pass --fresh to run it again)")
                continue
            if changed is not None:
                self.cache.hits -= 1
                self.again.append(f"The {name} baseline ran again because {changed}.")
            measure.append((name, key, set_aside))
            self.echo(f"Baseline: running the {name} tests ({len(cohort.tests)} file(s)) without any mutant"
                      + (f", again because {changed}..." if changed else "..."))

        def established(item: tuple[str, str, bool]) -> Baseline:
            name, _, set_aside = item
            return establish(cohorts[name], root, _observes(plan.challenged, cohorts[name]), set_aside, cover)

        with ThreadPoolExecutor(max_workers=max(1, min(len(measure), self.options.jobs))) as pool:
            for (name, key, _), b in zip(measure, pool.map(established, measure)):
                baselines[name] = b
                self.reads[name] = b.reads
                if b.status in ("green", "flaky", "baseline-red", "not-comparable"):
                    depends = self._baseline_manifest(cohorts[name], b.reads)
                    self.cache.put(key, {"cohort": b.cohort, "status": b.status, "depends": depends.as_json(),
                                         "reads": None if b.reads is None else [[w, list(e)] for w, e in b.reads],
                                         "failing_tests": list(b.failing_tests),
                                         "flaky_tests": list(b.flaky_tests), "reduced_scope": b.reduced_scope,
                                         "duration": b.duration, "reason": b.reason, "empty": b.empty,
                                         "excluded": list(b.excluded),
                                         "coverage": b.coverage.to_json() if b.coverage else None,
                                         "third_party": list(b.third_party)})
                self.echo(f"Baseline, {name}: {b.status}" + (f" ({b.reason})" if b.reason else ""))
        for name, cohort in cohorts.items():
            if cohort.same_as and cohort.same_as in baselines and name not in baselines:
                baselines[name] = replace(baselines[cohort.same_as], cohort=name)
                self.reads[name] = self.reads.get(cohort.same_as)
        return baselines

    def _run_mutants(self, plan: Plan, cohorts: dict[str, Cohort], baselines: dict[str, Baseline],
                     root: Path, run_dir: RunDirectory) -> None:
        """Each challenged mutant against each cohort's relevant tests."""
        jobs: list[_Job] = []
        for planned in plan.challenged:
            for name in ("existing", "modified"):
                cohort, baseline = cohorts[name], baselines[name]
                if not baseline.usable or cohort.same_as or (planned.mutant.id, name) in self.verdicts:
                    continue
                if baseline.empty:
                    self.verdicts[(planned.mutant.id, name)] = Verdict(
                        Outcome.SURVIVED, None, "no test of this cohort relates to the mutated code")
                    continue
                selection = self._selection(planned.mutant, baseline, cohort)
                if selection is not None and not selection.covered:
                    self._not_covered(planned.mutant, name, run_dir, selection)
                    continue
                # Only the existing cohort's runs need every test that catches a mutant (the regression
                # search and its confirmations read them); elsewhere the first sure kill ends the run.
                stop = name == "modified"
                if selection is None or selection.tests is None:
                    jobs.append(_Job(planned.mutant, cohort, cohort.tests, baseline.deselect, stop=stop,
                                     covered=selection is not None and selection.ran,
                                     first=selection.first if selection is not None and stop else ()))
                    continue
                self.selected += 1
                jobs.append(_Job(planned.mutant, cohort, selection.files, baseline.deselect,
                                 select=selection.tests, stop=stop,
                                 limit=self._selected_limit(baseline, selection.tests), covered=True))
        self._run_jobs(jobs, root, run_dir, self._limit(baselines))

    def _selection(self, mutant: Mutant, baseline: Baseline, cohort: Cohort) -> Selection | None:
        """The tests of ``cohort`` that execute the mutant's lines; None when that was not measured."""
        if baseline.coverage is None:
            return None
        source = (cohort.template / mutant.path).read_text(errors="replace") \
            if (cohort.template / mutant.path).is_file() else ""
        kills: dict[str, int] = {}
        for (_, name), verdict in self.verdicts.items():
            if name == cohort.name:
                for kill in verdict.kills:
                    key = baseline.coverage.key_of(kill.nodeid)
                    if key is not None:
                        kills[key] = kills.get(key, 0) + 1
        return baseline.coverage.select(mutant, source, kills)

    def _not_covered(self, mutant: Mutant, cohort: str, run_dir: RunDirectory, selection: Selection) -> None:
        """No test executes the mutated lines: decided without a run, and recorded as such."""
        self.not_covered += 1
        verdict = Verdict(Outcome.NOT_COVERED, None, "no test executes the mutated lines (line coverage of the "
                                                      "baseline run), so no test could catch it")
        self.verdicts[(mutant.id, cohort)] = verdict
        now = _iso()
        run_dir.append_run({"run": run_dir.id, "mutant_id": mutant.id, "cohort": cohort, "start": now, "end": now,
                            "exit_code": None, "tests_passed": None, "tests_failed": None, "failure_kind": None,
                            "duration": None, "execution": "not-run", "outcome": verdict.outcome.value,
                            "killing_test": None, "attributed": None, "reason": verdict.reason, "timeout": None,
                            "mutated_lines_executed": False, "kills": [], "attempt": 0,
                            "selection": selection.reason})

    def _executor(self, baselines: dict[str, Baseline], root: Path) -> Executor:
        """Warm workers preloaded with what the baselines imported from site-packages, unless asked otherwise;
        with ``--cluster``, mutant runs go to the cluster's workers (which run them the same way)."""
        preload = sorted({name for b in baselines.values() for name in b.third_party})
        local: Executor = FreshProcess(root) if self.options.runner == "fresh" else WarmRunner(
            root, self.options.jobs, preload, self.layout.top_level, collect=self.options.runner == "collected")
        if self.cluster is None:
            return local
        self.cluster.attach(local, self.options.runner, tuple(preload), tuple(self.layout.top_level))
        return self.cluster

    def _connect(self, session: Session) -> ClusterExecutor | None:
        """The cluster of ``--cluster``, connected and its workers checked before any baseline."""
        if self.options.cluster is None:
            return None
        from elenchus.execution.cluster import ClusterExecutor, unconfirmed_address

        if self.options.cluster_from_file:
            unconfirmed_address(self.options.cluster, session.base.read("pyproject.toml") if session.base else None)

        self.echo(f"Cluster: connecting to the Dask scheduler at {self.options.cluster} and checking its workers...")
        cluster = ClusterExecutor(self.options.cluster)
        self.echo(f"Cluster: {cluster.parallelism} worker thread(s) with the same Python, Elenchus and installed "
                  "packages as this machine; the mutant runs go there.")
        return cluster

    def _limit(self, baselines: dict[str, Baseline]) -> float:
        """The per-run limit: the timeout factor times the slowest baseline run, plus a constant."""
        slowest = max((b.duration for b in baselines.values() if b.usable and b.duration is not None),
                      default=1.0)
        return self._timeout(slowest)

    def _timeout(self, seconds: float) -> float:
        """The limit for a run whose tests took ``seconds`` in the baseline: the factor times that, plus the
        constant."""
        return timeout_for(seconds, self.options.timeout_factor, self.options.timeout_constant)

    def _selected_limit(self, baseline: Baseline, tests: tuple[str, ...]) -> float:
        """The limit for a run of only ``tests``: the factor times what they took in the baseline plus
        the baseline's time outside any test (start-up, imports, collection), plus the constant.

        Both parts were measured with line coverage on, so they overstate an untraced run. Never more
        than the limit for every relevant test: a hanging mutant then costs seconds, not the whole
        suite's limit twice.
        """
        coverage = baseline.coverage
        if coverage is None or baseline.duration is None:
            return self._limit({baseline.cohort: baseline})
        outside = max(0.0, baseline.duration - sum(r.duration for r in baseline.records))
        selected = sum(coverage.durations.get(key, 0.0) for key in tests)
        return min(self._timeout(outside + selected), self._limit({baseline.cohort: baseline}))

    def _run_jobs(self, jobs: list[_Job], root: Path, run_dir: RunDirectory, limit: float,
                  narrate: bool = True) -> dict[str, Verdict]:
        """Run ``jobs`` in parallel; store each verdict under (mutant id, cohort name) and return them by job key.

        A run that hits its limit gets one more before it counts as a timeout: with double that limit, or
        the limit for every relevant test if that is longer (``limit``, from the baseline, which ran with
        line coverage on; for a run of selected tests, the same factor applied to what every relevant
        test takes without it, measured once per cohort when a first run times out). What the same
        content gives again is cached (``_REPEATABLE``); an inconclusive run is measured again next time.
        """
        finished: dict[str, Verdict] = {}
        todo: list[_Job] = []
        for job in jobs:
            stored = self.cache.read(self._run_key(job), _verdict_from_record)
            if stored is not None:
                cached, verdict = stored
                self.verdicts[(job.mutant.id, job.cohort.name)] = finished[job.key] = verdict
                run_dir.append_run({**cached, "run": run_dir.id, "cached": True})
            else:
                todo.append(job)
        reasons: dict[str, int] = {}
        for job in todo:
            why = self._why_again(job)
            if why is not None:
                reasons[why] = reasons.get(why, 0) + 1
                self.reran[why] = self.reran.get(why, 0) + 1
        if narrate and (len(todo) < len(jobs) or reasons):
            new = len(todo) - sum(reasons.values())
            self.echo(f"Stored results: {len(jobs) - len(todo)} of {len(jobs)} run(s) reused (nothing they depended "
                      f"on changed); {len(todo)} to run" + (f" ({new} never measured before)." if new else "."))
        for why, count in sorted(reasons.items(), key=lambda i: (-i[1], i[0])) if narrate else ():
            self.echo(f"  {count} stored run(s) measured again because {why}.")
        # Runs of the same cohort and test files one after another: a job slot's collected session serves them all.
        todo.sort(key=lambda job: (job.cohort.name, job.select is None, job.tests, job.deselect))
        progress = Progress(len(todo), self.options.interactive, self.echo if narrate else None)
        pool = ThreadPoolExecutor(max_workers=self._parallelism())
        pending: dict = {}
        first_limits: dict[str, float] = {}
        waiting: dict[str, list[tuple[_Job, float]]] = {}  # cohort -> selected runs to retry once it is timed
        timings: dict = {}  # future -> cohort: every relevant test of it, run without line coverage
        executor = self.executor or FreshProcess(root)

        def submit(job: _Job, timeout: float, attempt: int) -> None:
            request = RunRequest(job.cohort, job.tests, timeout, job.mutant, job.deselect, (), job.select, job.stop,
                                 watch=not job.covered, first=job.first)
            pending[pool.submit(executor.run, request)] = (job, timeout, attempt)

        def retry(job: _Job, timeout: float) -> None:
            """The second run of a timed-out one; a run of selected tests waits for its cohort to be timed."""
            name = job.cohort.name
            if job.select is None or name in self.untraced:
                submit(job, max(timeout * 2, self._retry_limit(job, limit)), 2)
            elif name in waiting:
                waiting[name].append((job, timeout))
            else:
                waiting[name] = [(job, timeout)]
                self.echo(f"Timing the {name} tests without line coverage, for the second run of a mutant that "
                          "timed out...")
                timings[pool.submit(executor.run, RunRequest(job.cohort, job.cohort.tests, limit, None,
                                                              job.deselect))] = name

        try:
            for job in todo:
                submit(job, job.limit or limit, 1)
            while pending or timings:
                done, _ = wait([*pending, *timings], return_when=FIRST_COMPLETED)
                for future in done:
                    if future in timings:
                        name, result = timings.pop(future), future.result()
                        self.untraced[name] = result.duration if result.execution is Execution.COMPLETED else None
                        for held, first in waiting.pop(name):
                            submit(held, max(first * 2, self._retry_limit(held, limit)), 2)
                        continue
                    job, timeout, attempt = pending.pop(future)
                    result = future.result()
                    verdict = judge(result, job.mutant.path)
                    if verdict.outcome is Outcome.SURVIVED and job.covered:
                        verdict = replace(verdict, reason=f"{verdict.reason} although the mutated line ran in the "
                                                          "baseline run")
                    record = _run_record(run_dir.id, job.mutant.id, job.cohort.name, result, verdict)
                    record.update(attempt=attempt, selection=job.selection)
                    run_dir.append_run(record)
                    if verdict.outcome is Outcome.TIMEOUT and attempt == 1:
                        # A loaded machine is not a hang, and a mutant may slow its selected tests a lot
                        # before one fails: the second run may take as long as every relevant test could.
                        first_limits[job.key] = timeout
                        retry(job, timeout)
                        continue
                    if verdict.outcome is Outcome.TIMEOUT:
                        verdict = replace(verdict, reason=f"no result within {first_limits.get(job.key, limit):g} s, "
                                                          f"nor within {timeout:g} s when run again; {verdict.reason}")
                    self.verdicts[(job.mutant.id, job.cohort.name)] = finished[job.key] = verdict
                    if verdict.outcome in _REPEATABLE:
                        # A timeout is stored once it held twice, the second time with the longer limit:
                        # an unchanged rerun does not wait for an endless loop again.
                        self.cache.put(self._run_key(job), {**record, "reason": verdict.reason})
                        self.cache.put(self.cache.key("run-identity", self._identity(job)),
                                       {"depends": self._depends(job).as_json()})
                    progress.advance(job.mutant.incident, verdict.outcome.value, job.mutant.id)
        except BaseException:
            for future in [*pending, *timings]:
                future.cancel()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            progress.close()
        return finished

    def _retry_limit(self, job: _Job, limit: float) -> float:
        """How long every relevant test may take: ``limit`` (from the line-traced baseline), or for a run of
        selected tests the timeout factor applied to the cohort's untraced time, when it was measured."""
        seconds = self.untraced.get(job.cohort.name) if job.select is not None else None
        return limit if seconds is None else min(limit, self._timeout(seconds))

    def _parallelism(self) -> int:
        """Runs in flight at once: the job slots here, or every worker thread of the cluster."""
        from elenchus.execution.cluster import ClusterExecutor

        if isinstance(self.executor, ClusterExecutor):
            return self.executor.parallelism
        return self.options.jobs

    def _run_key(self, job: _Job) -> str:
        """What the run measured: the mutant, the *set* of tests selected, the options that change a verdict,
        and the content of what those tests depend on (``_depends``). The order the tests ran in (``first``:
        the kills seen so far, the test times) changes no verdict."""
        return self.cache.key("run", self._identity(job), self._depends(job).digest())

    def _identity(self, job: _Job) -> list:
        """A run without what it depended on: the same run on another commit has the same identity."""
        cohort = job.cohort
        return [cohort.name, cohort.disabled_plugins, cohort.layout, conftests_in(cohort.template),
                sorted(job.tests), sorted(job.deselect), job.mutant.path, job.mutant.mutated_source,
                self.options.timeout_factor, self.options.timeout_constant,
                None if job.select is None else sorted(job.select), job.stop, _isolation()]

    def _why_again(self, job: _Job) -> str | None:
        """Why ``job`` runs although the same run (mutant, tests, options) was stored before: the first entry it
        depends on that changed. None for a run never stored before (another mutant, another test selection)."""
        earlier = self.cache.peek(self.cache.key("run-identity", self._identity(job)))
        if earlier is None:
            return None
        return self._depends(job).first_change(earlier.get("depends") or {}) or \
            "its earlier result was not kept (it ended without a verdict that holds)"

    def _digests(self, cohort: Cohort) -> Digests:
        found = self.digests.get(cohort.name)
        if found is None or found.template != cohort.template:
            found = self.digests[cohort.name] = Digests(cohort.template)
        return found

    def _depends(self, job: _Job) -> Manifest:
        """The files a run of ``job`` depends on, as its cohort's baseline measured them, with their digests."""
        cohort = job.cohort
        reads = self.reads.get(cohort.name)
        if reads is None:  # not measured (a test starts processes): every file of the cohort counts
            return Manifest((("*", cohort.digest),))
        collected = {test.partition("::")[0] for test in job.tests}
        ran = collected if job.select is None else {key.partition("::")[0] for key in job.select}
        imported = self.imported.get(cohort.name)
        if imported is None:
            imported = self.imported[cohort.name] = imported_tests(cohort.template, reads, cohort.tests)
        return self._digests(cohort).manifest(run_entries(reads, ran, collected, cohort.tests, imported,
                                                          conftests_in(cohort.template), job.mutant.path))

    def _baseline_manifest(self, cohort: Cohort, reads: Reads | None) -> Manifest:
        if reads is None:
            return Manifest((("*", cohort.digest),))
        return self._digests(cohort).manifest(baseline_entries(reads, cohort.tests, conftests_in(cohort.template)))

    def _changed(self, cohort: Cohort, depends: object) -> str | None:
        """What changed in ``cohort`` since a record that ``depends`` on those entries; None when nothing did."""
        if not isinstance(depends, dict) or not depends:
            return "it was stored without what it depended on"
        digests = self._digests(cohort)
        now = Manifest(tuple((entry, cohort.digest if entry == "*" else digests.of(entry))
                             for entry in sorted(depends)))
        return now.first_change(depends)

    def _search(self, session: Session, contract: Contract, plan: Plan, cohorts: dict[str, Cohort],
                baselines: dict[str, Baseline], root: Path, run_dir: RunDirectory) -> None:
        """Look for mutants that only the checks this change weakened used to catch.

        The Base forms of the weakened tests run alone in the existing cohort, recording the
        production lines each executes; the candidates on those lines that they kill then
        meet the whole Head relevant set in the modified cohort.
        """
        from elenchus.analysis.regression import KEEP_PER_CHECK, candidate_pool, lines_by_check

        existing, modified = cohorts["existing"], cohorts["modified"]
        checks = [c for c in self.checks if (existing.template / c.path).is_file()]
        nodeids = tuple(sorted({c.nodeid for c in checks}))
        if not nodeids:
            return
        self.echo(f"Regression search: running the {len(nodeids)} test(s) this change weakened, in their "
                  "pre-change form, to see what they execute...")
        production = tuple(p for p in session.head.files if session.change.settings.kind_of(p) == "production")
        probe = run_once(existing, root, nodeids, BASELINE_TIMEOUT_SECONDS, cover=production, executor=self.executor)
        green = {r.nodeid for r in probe.records if r.outcome is TestOutcome.PASSED}
        red = tuple(sorted(r.nodeid for r in probe.records if r.is_failure))  # never evidence of a kill
        usable = [c for c in checks if any(c.matches(n) for n in green)]
        for check in checks:
            if check not in usable:
                self.notes.append(f"Regression search: the pre-change form of {check.nodeid} does not pass "
                                  "against Head without any mutant, so it cannot show what it used to catch.")
        if not usable or probe.coverage is None:
            return
        executed = lines_by_check(usable, probe.coverage)
        # What the current tests execute: a line no other current test runs is where a lost catch hides.
        current = run_once(modified, root, modified.tests, BASELINE_TIMEOUT_SECONDS,
                           deselect=baselines["modified"].deselect, cover=production, executor=self.executor)
        measured = {existing.name: probe, modified.name: current}
        known = {p.mutant.id for p in plan.challenged}
        pool = candidate_pool(usable, executed, session.head, session.base, contract, known,
                              self.options.search_budget, current.coverage or ())
        self.echo(f"Regression search: up to {len(pool)} candidate(s) against the weakened tests...")
        selection = tuple(sorted({c.nodeid for c in usable}))
        limit = self._limit(baselines)
        batch_size = max(4, 2 * self.options.jobs)
        tried: dict[WeakenedCheck, int] = {check: 0 for check in usable}  # caught, yet still caught now
        regressed: set[WeakenedCheck] = set()
        remaining = list(pool)
        while remaining:  # rounds: a check stops drawing once it shows a regression or its turns are spent
            open_checks = {c for c in usable if c not in regressed and tried[c] < KEEP_PER_CHECK}
            batch = [m for m, owners in remaining if open_checks & set(owners)][:batch_size]
            remaining = [(m, owners) for m, owners in remaining if m not in batch and open_checks & set(owners)]
            if not batch:
                break
            jobs = [self._narrowed(_Job(m, existing, selection, red, "weakened checks"), measured[existing.name],
                                   limit) for m in batch]
            verdicts = self._run_jobs(jobs, root, run_dir, limit, narrate=False)
            caught_by: dict[str, tuple[WeakenedCheck, ...]] = {}
            for mutant in batch:
                verdict = verdicts.get(_Job.key_of(mutant, existing.name))
                if verdict is not None and verdict.outcome is Outcome.KILLED:
                    caught = tuple(c for c in usable if any(c.matches(k.nodeid) for k in verdict.kills))
                    if caught:
                        caught_by[mutant.id] = caught
            caught_now = [m for m in batch if m.id in caught_by]
            jobs = [self._narrowed(_Job(m, modified, relevant_tests(session.change, session.head, (m.path,),
                                                                    modified.template),
                                        baselines["modified"].deselect), measured[modified.name], limit)
                    for m in caught_now]
            verdicts = self._run_jobs(jobs, root, run_dir, limit, narrate=False)
            for mutant in caught_now:
                self.found.append((mutant, caught_by[mutant.id]))
                now = verdicts.get(_Job.key_of(mutant, modified.name))
                if now is not None and now.outcome in (Outcome.SURVIVED, Outcome.NOT_COVERED):
                    regressed.update(caught_by[mutant.id])
                else:
                    for check in caught_by[mutant.id]:
                        tried[check] += 1
        self.echo(f"Regression search: {len(self.found)} mutant(s) caught by the weakened tests, "
                  f"{len(regressed)} weakened check(s) shown to have lost a catch.")

    def _narrowed(self, job: _Job, measured: RunResult, limit: float) -> _Job:
        """``job`` as a run of only its tests that ``measured`` (a run of them recording line coverage of every
        production file) saw executing the mutant's lines, forked from a collected session like a mutant's own
        runs, when its lines lie inside a function body and ran in no fixture or import; else ``job`` itself."""
        coverage = CoverageMap.from_run(measured) if self.options.test_selection == "coverage" else None
        path = job.cohort.template / job.mutant.path
        if coverage is None or not path.is_file():
            return job
        selection = coverage.select(job.mutant, path.read_text(errors="replace"))
        nodeids = {key: nodeid for nodeid, key in coverage.keys.items()}

        def wanted(key: str) -> bool:  # one of the job's tests (a file, or a node id and its rows), not deselected
            nodeid = nodeids.get(key)
            if nodeid is None or nodeid in job.deselect:
                return False
            return any(nodeid == test or nodeid.startswith((f"{test}[", f"{test}::")) if "::" in test
                       else coverage.files.get(key) == test for test in job.tests)

        keys = tuple(key for key in selection.tests or () if wanted(key) and key in coverage.durations)
        if selection.tests is None or not keys:  # (those that passed: one skipped or expected to fail shows nothing)
            return job
        files = tuple(sorted({coverage.files[key] for key in keys}))
        return replace(job, tests=files, select=keys, covered=True,
                       limit=self._limit_of(measured, coverage, keys, limit))

    def _limit_of(self, measured: RunResult, coverage: CoverageMap, keys: tuple[str, ...], ceiling: float) -> float:
        """The limit for a run of only ``keys``: the factor times what they took in ``measured`` plus its time
        outside any test, plus the constant; never more than ``ceiling``."""
        outside = max(0.0, measured.duration - sum(r.duration for r in measured.records))
        selected = sum(coverage.durations.get(key, 0.0) for key in keys)
        return min(self._timeout(outside + selected), ceiling)

    def _confirm_regressions(self, plan: Plan, cohorts: dict[str, Cohort], baselines: dict[str, Baseline],
                             root: Path, run_dir: RunDirectory) -> None:
        """Run each would-be protection regression once more before claiming it.

        The tests that caught the mutant before the change run again against it, in both
        cohorts. A catch that does not repeat, or a test that catches it in the current
        cohort too, means the test is flaky with this mutant: that comparison is
        inconclusive, never a lost catch. The runs of one round go in parallel; the current
        cohort gets up to three rounds, since a flaky catch slips through one run, rarely three.
        """
        existing, modified = cohorts["existing"], cohorts["modified"]
        mutants = {p.mutant.id: p.mutant for p in plan.challenged} | {m.id: m for m, _ in self.found}
        suspects = []
        for mutant_id, mutant in mutants.items():
            before, now = self.verdicts.get((mutant_id, "existing")), self.verdicts.get((mutant_id, "modified"))
            if before is None or now is None or before.outcome is not Outcome.KILLED \
                    or now.outcome not in (Outcome.SURVIVED, Outcome.NOT_COVERED):
                continue
            killers = tuple(sorted({k.nodeid for k in before.kills or (before.kill,) if k is not None}))
            if killers:
                suspects.append((mutant, killers))
        if not suspects:
            return
        self.echo(f"Confirming {len(suspects)} protection regression(s) by running the tests that caught them "
                  "again...")
        limit = self._limit(baselines)
        # Never from the cache: the point is a second, independent run.
        jobs = [self._confirmation(m, existing, baselines["existing"], killers) for m, killers in suspects]
        again = {job.mutant.id: verdict for job, verdict in zip(jobs, self._run_again(jobs, 1, limit, root, run_dir))}
        current: dict[str, Verdict] = {}
        left = {}
        ran = {r.nodeid for r in baselines["modified"].records}  # a test its baseline ran no longer exists
        files = {nodeid.split("::", 1)[0] for nodeid in ran}  # where the baseline ran its file without it
        for mutant, killers in suspects:
            still = tuple(n for n in killers if (modified.template / n.split("::", 1)[0]).is_file()
                          and (n in ran or n.split("::", 1)[0] not in files))
            if still:
                left[mutant.id] = self._confirmation(mutant, modified, baselines["modified"], still)
        for attempt in range(1, 4):
            if not left:
                break
            jobs = list(left.values())
            for job, verdict in zip(jobs, self._run_again(jobs, attempt, limit, root, run_dir)):
                current[job.mutant.id] = verdict
                if verdict.outcome is Outcome.KILLED:
                    del left[job.mutant.id]
        for mutant, killers in suspects:
            if again[mutant.id].outcome is not Outcome.KILLED:
                self.verdicts[(mutant.id, "existing")] = Verdict(
                    Outcome.INCONCLUSIVE, None, f"the tests that caught it ({', '.join(killers)}) did not catch it "
                    "when run again: flaky with this mutant, so no protection is claimed lost")
                continue
            now = current.get(mutant.id)
            if now is not None and now.outcome is Outcome.KILLED:
                self.verdicts[(mutant.id, "modified")] = Verdict(
                    Outcome.INCONCLUSIVE, None, f"{now.kill.nodeid if now.kill else killers[0]} passed with "
                    "this mutant in one run of the current tests and failed in another: flaky, so no protection "
                    "is claimed lost")

    def _confirmation(self, mutant: Mutant, cohort: Cohort, baseline: Baseline, tests: tuple[str, ...]) -> _Job:
        """A run of just ``tests`` (node ids) against ``mutant``, ending at the first sure catch: forked from
        the cohort's collected session, as the mutant's own runs were, when its lines lie where the
        baseline's coverage lets a run select its tests; else those tests in a run of their own."""
        selection = self._selection(mutant, baseline, cohort)
        coverage = baseline.coverage
        keys = tuple(coverage.key_of(nodeid) for nodeid in tests) if coverage is not None else ()
        if selection is not None and selection.tests is not None and keys and all(keys) \
                and all(coverage.files.get(key) in selection.files for key in keys):
            return _Job(mutant, cohort, selection.files, baseline.deselect, "confirmation", select=keys, stop=True,
                        limit=self._selected_limit(baseline, keys), covered=True)
        return _Job(mutant, cohort, tests, (), "confirmation", stop=True)

    def _run_again(self, jobs: list[_Job], attempt: int, limit: float, root: Path,
                   run_dir: RunDirectory) -> list[Verdict]:
        """Each of ``jobs`` run once more, in parallel and never from the cache; recorded as attempt ``attempt``."""
        executor = self.executor or FreshProcess(root)

        def run(job: _Job) -> Verdict:
            request = RunRequest(job.cohort, job.tests, job.limit or limit, job.mutant, job.deselect, (), job.select,
                                 job.stop, watch=not job.covered)
            result = executor.run(request)
            verdict = judge(result, job.mutant.path)
            record = _run_record(run_dir.id, job.mutant.id, job.cohort.name, result, verdict)
            record.update(attempt=attempt, selection=job.selection)
            run_dir.append_run(record)
            return verdict

        with ThreadPoolExecutor(max_workers=self._parallelism()) as pool:
            return list(pool.map(run, jobs))

    def _witnesses(self, session: Session, plan: Plan, cohorts: dict[str, Cohort], root: Path,
                   coverage: CoverageMap | None) -> None:
        """Look for a call that tells each survivor apart from the code (a mutant that the old
        tests caught but the current ones miss needs none: the old test is its witness)."""
        from elenchus.analysis.witness import NoWitness, Witness, witness_survivors

        survivors = []
        for mutant in [p.mutant for p in plan.challenged] + [m for m, _ in self.found]:
            now = self._verdict(mutant.id, "modified", self.cohorts_same)
            before = self._verdict(mutant.id, "existing", self.cohorts_same)
            if now is not None and now.outcome in (Outcome.SURVIVED, Outcome.NOT_COVERED) and not (
                    before is not None and before.outcome is Outcome.KILLED):
                survivors.append(mutant)
        if survivors and not self.options.witnesses:
            self.notes.append(f"No witness was searched for the {len(survivors)} surviving mutant(s) "
                              f"({self.options.no_witnesses_because}): each stays a gap, none is called likely "
                              "equivalent.")
        elif survivors:
            # A witness verified on the same content is evidence still, and so is a search that tried every
            # kind of input within its time and found none (a likely or proven equivalence: derandomized, it
            # finds none again); one that ran out of time runs again, and may get further.
            # (keyed on what the modified tests read, as their baseline measured it: a change to a licence or a
            # document reuses a witness; a change to any code or test file they read looks for it again)
            modified = cohorts["modified"]
            read = self._baseline_manifest(modified, self.reads.get("modified")).digest()
            keys = {m.id: self.cache.key("witness", read, modified.tests, modified.disabled_plugins, modified.layout,
                                         conftests_in(modified.template), m.path, m.mutated_source,
                                         self.options.harden, _isolation()) for m in survivors}
            for mutant in survivors:
                stored = self.cache.read(keys[mutant.id], _witness_from_record)
                if stored is not None:
                    self.witnesses[mutant.id] = stored[1]
            survivors = [m for m in survivors if m.id not in self.witnesses]
            kept = sum(1 for w in self.witnesses.values() if isinstance(w, Witness))
            none = len(self.witnesses) - kept
            searched = f"{none} search(es) that tried every kind of input and found none, reused too" if none else ""
            reused = f" ({kept} more reused from an earlier run on the same content{'; ' + searched if none else ''})" \
                if self.witnesses else ""
            if survivors:
                self.echo(f"Witnesses: looking for a call that tells each of {len(survivors)} surviving mutant(s) "
                          f"apart from the code (up to {self.options.witness_time:g} s each){reused}...")
            else:
                self.echo(f"Witnesses: {kept} reused from an earlier run on the same content." +
                          (f" {searched[0].upper()}{searched[1:]}." if none else ""))
            found = witness_survivors(survivors, cohorts["modified"], session.head, self.layout,
                                      self.options.witness_time, self.options.jobs, root,
                                      placed=self.options.harden, executor=self.executor,
                                      coverage=coverage) if survivors else {}
            for mutant_id, witness in found.items():
                if isinstance(witness, Witness):
                    self.cache.put(keys[mutant_id], {"witness": asdict(witness)})
                elif isinstance(witness, NoWitness) and witness.searched and witness.reason.startswith(
                        ("likely equivalent", "equivalent (proven)")):
                    self.cache.put(keys[mutant_id], {"no_witness": asdict(witness)})
            self.witnesses.update(found)

    # -- report ----------------------------------------------------------------------

    def _verdict(self, mutant_id: str, name: str, cohorts_same: bool) -> Verdict | None:
        if name == "existing" and cohorts_same:
            return self.verdicts.get((mutant_id, "modified"))
        return self.verdicts.get((mutant_id, name))

    def _report(self, session: Session, answer: ScopeAnswer, contract: Contract, plan: Plan,
                baselines: dict[str, Baseline], tests: tuple[str, ...], concerns: list[dict],
                changes: tuple[str, ...], run_dir: RunDirectory) -> dict:
        from elenchus.analysis.witness import NoWitness, Witness

        change = session.change
        same = self.cohorts_same
        mutations, comparisons = [], []
        searched = {mutant.id: checks for mutant, checks in self.found}
        entries = list(plan.challenged)
        first_rank = len(plan.challenged) + len(plan.not_challenged) + 1
        for offset, (mutant, _) in enumerate(self.found):
            item = contract.item_for(mutant.path, mutant.symbol)
            entries.append(Planned(mutant, first_rank + offset, item.id if item else None,
                                   not mutant.in_changed_lines, risk_score(mutant, contract)))
        equivalent: list[dict] = []
        for planned in entries:
            mutant = planned.mutant
            witness = self.witnesses.get(mutant.id)
            if isinstance(witness, NoWitness) and witness.searched:  # not a gap: no input told it apart
                equivalent.append({"id": mutant.id, "location": {"path": mutant.path, "line": mutant.line,
                                                "end_line": mutant.end_line, "symbol": mutant.symbol},
                                   "changed_intent": mutant.changed_intent, "incident": mutant.incident,
                                   "reason": witness.reason, "family": mutant.family})
                continue
            modified = self._verdict(mutant.id, "modified", same)
            existing = self._verdict(mutant.id, "existing", same)
            result = modified.outcome.value if modified else "not-run"
            reason = modified.reason if modified and result != "killed" else None
            if result == "not-run":
                reason = self._not_run_reason(baselines)
            mutations.append({
                "id": mutant.id, "contract_id": planned.contract_id,
                "location": {"path": mutant.path, "line": mutant.line, "end_line": mutant.end_line,
                             "symbol": mutant.symbol if mutant.symbol != "<module>" else None},
                "changed_intent": mutant.changed_intent, "incident": mutant.incident, "diff": mutant.diff,
                "expected_detection": mutant.expected_detection,
                "evidence": f"a one-place change to {mutant.symbol} that parses, compiles to different code, "
                            "and is not in logging, messages, annotations or debug-only code",
                "risk_rank": planned.rank, "retention_risk": planned.retention,
                "result": result, "kill": _cohort_outcome(modified)["kill"] if result == "killed" else None,
                "reason": reason,
                "found_by": "regression-search" if mutant.id in searched else "budget",
                "family": mutant.family,
            })
            if isinstance(witness, Witness):
                mutations[-1]["witness"] = witness.to_json()
                if witness.misfit is not None:  # the usual sentence is not what this mutant does: say what it does
                    mutations[-1]["incident"] = witness.incident
                    mutations[-1]["witness"]["incident_written"] = mutant.incident
            elif isinstance(witness, NoWitness):
                mutations[-1]["reason"] = f"{reason}; {witness.reason}" if reason else witness.reason
            if modified is None:
                continue
            existing_status = baselines.get("existing")
            if existing is None and existing_status is not None and not existing_status.usable:
                existing_result, existing_reason = (
                    "not-comparable" if existing_status.status in ("not-comparable", "baseline-red") else "blocked",
                    existing_status.reason)
                existing_json = {"result": "not-run", "kill": None}
            else:
                existing_result = existing.outcome.value if existing else "inconclusive"
                existing_reason = existing.reason if existing else "the existing cohort did not run this mutant"
                existing_json = _cohort_outcome(existing)
            assessment = assess(existing_result, modified.outcome.value, existing_reason, modified.reason)
            comparison = {"mutation_id": mutant.id, "existing": existing_json,
                          "modified": _cohort_outcome(modified), "assessment": assessment.assessment,
                          "reason": assessment.reason}
            weakened = self._weakened_by(existing, searched.get(mutant.id, ()))
            if weakened and assessment.assessment == "protection-regression":
                comparison["weakened_checks"] = [check.to_json() for check in weakened]
            comparisons.append(comparison)
        report = {
            "mode": "harden" if self.options.harden else "evaluate",
            "scope": {
                "option": answer.option,
                "detected": {"production_files": list(change.production_files),
                             "test_files_added": list(change.tests_added),
                             "test_files_modified": list(change.tests_modified),
                             "test_files_deleted": list(change.tests_deleted),
                             # (those the runs took: a helper beside the tests pytest never collects is not one)
                             "related_tests": [t for t in change.related_tests if t in tests]},
                "production_sites": self.sites,
                "target": answer.target,
                "excluded": list(session.excluded) + [
                    f"{p}: not Python production code" for p in change.paths("other")
                    if not any(e.startswith(f"{p}: ") for e in session.excluded)],  # (said once, the first way)
                "reason": answer.reason,
                # (hardening chooses its own scope, the confirmed items' code: only the host's reason is kept)
                "inherited": self.options.hosted_scope_reason is not None and not self.options.harden,
            },
            "snapshots": {
                "base": {"rev": session.revisions.base_rev, "sha": session.revisions.base_sha},
                "head": {"rev": session.revisions.head_rev, "sha": session.revisions.head_sha,
                         "worktree": session.revisions.head_is_worktree},
                "worktree_fingerprint": session.before.digest(),
                "derivation": "\n".join(session.revisions.narration),
            },
            "contract": {"source": contract.source, "provisional": contract.provisional, "path": contract.path,
                         "change_id": contract.change_id, "items": contract.to_json()["items"]},
            "baseline": {name: _baseline_json(b, self.untraced.get(name)) for name, b in baselines.items()},
            "budget": {"limit": self.options.budget, "source": "explicit" if self.options.budget_explicit else "default",
                       "how_chosen": plan.how_chosen(), "not_listed": plan.unlisted, "not_expanded": plan.unexpanded},
            "execution": {"test_command": "pytest " + " ".join(tests) + " (with the Elenchus recorder plugin)",
                          "isolation": "a fresh copy of the cohort snapshot per run, outside the working tree; "
                                       "the project is imported from that copy's source roots",
                          "source_roots": list(self.layout.roots),
                          "jobs": self.options.jobs,
                          "runner": self._runner_text(),
                          "test_selection": self._selection_text()},
            "mutations": mutations,
            "not_challenged": [{"id": p.mutant.id, "rank": p.rank, "contract_id": p.contract_id,
                                "location": {"path": p.mutant.path, "line": p.mutant.line,
                                             "end_line": p.mutant.end_line, "symbol": p.mutant.symbol},
                                "changed_intent": p.mutant.changed_intent, "incident": p.mutant.incident,
                                "reason": f"beyond the mutation budget of {plan.budget}",
                                "family": p.mutant.family}
                               for p in plan.not_challenged],
            "rejected": [{"location": {"path": r.path, "line": r.line, "end_line": r.line, "symbol": r.symbol},
                          "changed_intent": r.changed_intent or "none: no misunderstanding was modelled here",
                          "reason": r.reason, "family": r.family} for r in plan.rejected] + equivalent,
            "comparisons": comparisons,
            "test_quality": concerns,
            "notes": self._notes(contract, baselines, plan),
            "isolation": sandbox.current().as_json(),
            "post_flight": {"worktree_unchanged": not changes, "changes": list(changes)},
            "tool": {"name": "elenchus", "version": __version__},
            "run": {"id": run_dir.id, "directory": str(run_dir.path), "started": _iso(self.started),
                    "finished": _iso()},
        }
        return report

    def _runner_text(self) -> str:
        from elenchus.execution.cluster import ClusterExecutor

        if isinstance(self.executor, (WarmRunner, ClusterExecutor)):
            return self.executor.describe()
        return "a fresh interpreter per run" + (" (--runner fresh)" if self.options.runner == "fresh" else "")

    def _selection_text(self) -> str:
        if self.options.test_selection == "all":
            return "every relevant test for each mutant (--test-selection all)"
        return (f"{self.selected} mutant run(s) executed only the tests that execute the mutated lines (line "
                f"coverage of the baseline run); {self.not_covered} mutant x cohort pair(s) no test executes were "
                "not run; other runs executed every relevant test (module-level code, lines run by shared "
                "fixtures or at import, or coverage not measurable)")

    def _weakened_by(self, existing: Verdict | None,
                     searched: tuple[WeakenedCheck, ...]) -> tuple[WeakenedCheck, ...]:
        """The weakened checks among the tests that caught a mutant before the change."""
        if existing is None or existing.outcome is not Outcome.KILLED:
            return ()
        killers = [k.nodeid for k in existing.kills or ((existing.kill,) if existing.kill else ())]
        candidates = dict.fromkeys((*searched, *self.checks))
        return tuple(c for c in candidates if any(c.matches(n) for n in killers))

    def _not_run_reason(self, baselines: dict[str, Baseline]) -> str:
        if self.interrupted:
            return "the run was interrupted before this mutant ran"
        modified = baselines.get("modified")
        if modified is not None and not modified.usable:
            return f"not run: the modified baseline is {modified.status}"
        return "not run"

    def _quality(self, session: Session, tests: tuple[str, ...], baselines: dict[str, Baseline]) -> list[dict]:
        """Concerns about the test files the change touched, and ``tests`` besides (a target's tests)."""
        change = session.change
        paths = sorted(set(tests) | set(change.changed_tests) | set(change.tests_deleted))
        paths = [p for p in paths if p.endswith(".py")]
        files = [quality.TestFile(p, session.head.read(p), session.base.read(p)) for p in paths]
        concerns = list(quality.analyze(files))
        for check in self.checks:  # what the change did to checks that stay (deleted and skipped ones are above)
            if check.kind in (quality.ConcernKind.LOOSENED_ASSERTION, quality.ConcernKind.SWALLOWED_ERROR):
                concerns.append(quality.weakened_concern(check.path, check.line, check.test, check.kind,
                                                         check.detail))
        for baseline in baselines.values():
            for nodeid in baseline.flaky_tests:
                concerns.append(quality.flaky_concern(nodeid))
        unique = {(c.path, c.line, c.kind, c.test): c for c in concerns}
        return [{"path": c.path, "line": c.line or None, "test": c.test, "concern": str(c.kind), "why": c.why}
                for c in sorted(unique.values(), key=lambda c: (c.path, c.line or 0, str(c.kind)))]

    def _notes(self, contract: Contract, baselines: dict[str, Baseline], plan: Plan) -> list[str]:
        if self.untouched is not None:  # (no cohort ran, no mutant was made: nothing else to say)
            return [self.untouched, *self.notes]
        notes = list(self.notes)
        if not plan.challenged and self.unparseable:
            notes.append(f"No mutant could be made for this scope: {'; '.join(self.unparseable)}. Fix the syntax "
                         "and run again.")
        elif not plan.challenged:
            notes.append("No mutant could be made for this scope: the change touches no production function "
                         "that the scope covers. Try --scope target --target PATH for a broader evaluation.")
        if contract.provisional:
            notes.append("Every contract item is provisional (derived, not confirmed): a caught incident shows "
                         "that behaviour is detected, not that it is the intended behaviour. Outcomes that "
                         "depend on intent are yours to decide: mark the items you mean as `confirmed` in "
                         ".socratic/intent-contract.json (by hand or with Maieutic, the intent interviewer) "
                         "and pass it with --contract.")
        for name, baseline in baselines.items():
            if baseline.status == "baseline-red" and name == "modified":
                notes.append(f"Classification stopped: the {name} baseline is red; fix or exclude "
                             f"{', '.join(baseline.failing_tests)} and run again.")
            elif baseline.status == "baseline-red" and not self.cohorts_same:
                notes.append(f"The pre-change tests {', '.join(baseline.failing_tests)} fail against Head without "
                             "any mutant (the change altered what they check), so every comparison with the "
                             "existing cohort is not comparable; the modified tests were still evaluated.")
            elif baseline.status in ("not-comparable", "blocked", "inconclusive") and name == "existing":
                notes.append(f"The existing cohort is {baseline.status}: {baseline.reason.rstrip('.')}. Its "
                             "comparisons are not read as protection gained or lost.")
        notes += self._reuse_notes()
        return notes

    def _rerun_lines(self) -> list[str]:
        """One line per reason a stored result was measured again, the most frequent first."""
        return [*self.again, *(f"{count} stored run(s) measured again because {why}."
                               for why, count in sorted(self.reran.items(), key=lambda i: (-i[1], i[0])))]

    def _reuse_notes(self) -> list[str]:
        """Results not measured by this run are marked as such, and so are stored ones that failed their check."""
        notes = []
        if self.cache.hits:
            notes.append(f"{self.cache.hits} result(s) were reused from earlier runs: nothing those runs depended "
                         "on changed (the code and test files they imported, the files they opened, the test "
                         "configuration, the installed packages; each entry checked against its keyed seal); "
                         "pass --fresh to measure everything again.")
        notes += self._rerun_lines()
        if self.resumed:
            notes.append(f"{self.resumed} result(s) were reused from the resumed run "
                         "(each checked against its keyed seal).")
        if self.cache.unwritable:
            notes.append(f"Results could not be stored for reuse ({self.cache.unwritable}); the next run measures "
                         "them again.")
        rejected = self.cache.rejected + self.resume_rejected
        if rejected:
            notes.append(f"{rejected} stored result(s) failed their content check (cut short or edited) and were "
                         "measured again instead of being trusted.")
        return notes

    def _write(self, report: dict, session: Session, run_dir: RunDirectory, checked: bool = False) -> ExitCode:
        """``checked``: the report (and what is built from it) passed its schemas when first written."""
        if self.options.hosted_scope_reason is None and not checked:  # in hosted mode the Runner validates
            from elenchus.schemas import validate

            validate("mutation-report", report)
        json_path = run_dir.write_json("report.json", report)
        markdown = render_markdown(report)
        md_path = run_dir.write_text("report.md", markdown)
        self.emit(markdown)
        others = {} if self.options.hosted_scope_reason is not None else outputs.write(  # the host renders its own
            report, self.sources, run_dir.path,
            {"html": self.options.html_path, "sarif": self.options.sarif_path, "junit": self.options.junit_path},
            self.echo, self.emit, checked=checked)
        self.echo(f"Report: {md_path} (JSON: {json_path}"
                  + "".join(f"; {label}: {others[key]}" for key, label in (
                      ("html", "HTML"), ("sarif", "SARIF"), ("junit", "JUnit"),
                      ("mutation-testing-report", "mutation-testing report"))
                      if key in others) + ")")
        if self.options.json_path:
            Path(self.options.json_path).write_text(json.dumps(report, indent=2) + "\n")
            self.echo(f"JSON copy written to {self.options.json_path}")
        if self.options.save:
            target = session.repo.root / ".socratic" / "elenchus-report.json"
            target.parent.mkdir(exist_ok=True)
            target.write_text(json.dumps(report, indent=2) + "\n")
            self.echo(f"Saved {target} (--save), after the post-flight check.")
        if self.untouched is not None:  # a docs-only push is no finding and no failure
            return ExitCode.OK
        if report["baseline"].get("modified", {}).get("status") in ("baseline-red", "blocked"):
            return ExitCode.BLOCKED
        if self.options.fail_on:
            found = {c["assessment"] for c in report["comparisons"]} & set(self.options.fail_on)
            if found:
                self.echo(f"--fail-on: found {', '.join(sorted(found))}")
                return ExitCode.FINDINGS
        return ExitCode.OK


def _isolation() -> dict:
    """The sandbox settings a stored result was measured under: a test may pass only with the network, or
    only outside the sandbox, or only within more memory (``--isolation``, ``--allow-network``, the limits)."""
    settings = sandbox.current().as_json()
    return {name: settings[name] for name in ("kind", "network", "limits")}


def _untouched(change: ChangeSet) -> str | None:
    """Why a change gives nothing to evaluate: every file it touches is neither code nor a test (docs, a
    licence, CI settings), so no mutant can be made and no test relates to it; else None."""
    if not change.files or any(f.kind != "other" for f in change.files):
        return None
    names = [f.path for f in change.files]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return (f"Nothing to evaluate: the change touches no production code and no test ({shown}), so no mutant "
            "was made and no test was run; the tests protect the code exactly as before.")


# Options that only say where the report goes or which findings fail the command: the same evaluation.
# Options that change no result: where the report goes, when to fail, and where the runs happen (a cluster
# runs them exactly as this machine would, which is checked before its first run).
_OUTPUT_ONLY = frozenset({"json_path", "html_path", "sarif_path", "junit_path", "save", "fail_on", "interactive", "demo",
                          "cluster"})
# What a run ends with that the same content and environment give again: stored and reused. (A run that is
# not comparable failed only in collection, import or setup, with a mutant the baseline had no such failure
# without; an inconclusive one may have been the machine or a flaky test, and is measured again.)
_REPEATABLE = frozenset({Outcome.KILLED, Outcome.SURVIVED, Outcome.NOT_COVERED, Outcome.TIMEOUT,
                         Outcome.NOT_COMPARABLE, Outcome.CAUGHT_AT_IMPORT})


def run(options: Options, echo: Callable[[str], None], ask: Callable[[str, str], str],
        emit: Callable[[str], None] | None = None) -> ExitCode:
    """Evaluate; ``echo`` narrates, ``emit`` (default ``echo``) prints the report itself."""
    for option, path in (("--json", options.json_path), ("--html", options.html_path),
                         ("--sarif", options.sarif_path), ("--junit", options.junit_path)):
        if path and Path(path).resolve().is_dir():
            raise ElenchusError(f"{option} {path} is a directory; pass a file path")
    return Evaluation(options, echo, ask, emit).run()
