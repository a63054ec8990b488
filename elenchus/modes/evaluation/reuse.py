"""Stored results: the run records read back, and what a stored result depended on.

An unchanged rerun reuses a whole evaluation, and a changed one every baseline, run and witness whose
inputs did not change. This module owns the records of runs.jsonl and the result cache (written and
read back), the keys a stored result is found by (the run, its identity, the files it depended on,
the sandbox it ran in), why a stored run was measured again, and the report's notes saying so.
"""

from __future__ import annotations

from dataclasses import asdict

from elenchus.execution import sandbox
from elenchus.execution.baseline import Baseline
from elenchus.execution.cohorts import Cohort
from elenchus.execution.dependencies import Digests, Manifest, Reads, baseline_entries, conftests_in, imported_tests, \
    run_entries
from elenchus.execution.coverage_map import CoverageMap
from elenchus.modes.evaluation.state import EvaluationState, _Job
from elenchus.mutation.contract import Contract
from elenchus.execution.run import Outcome, Verdict
from elenchus.mutation.scope import ScopeAnswer
from elenchus.repo.session import Session


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
    """A stored witness, or a stored search that found none; raises when neither, or when the search broke."""
    from elenchus.analysis.witness import NoWitness, Witness
    from elenchus.analysis.witness.search import BROKEN_SEARCH

    if "no_witness" in record:
        found = NoWitness(**record["no_witness"])
        if BROKEN_SEARCH in found.reason:
            raise ValueError("a search that broke")
        return found
    return Witness(**record["witness"])


def _stopped_short(record: dict | None, witness_time: float) -> bool:
    """A stored search that found nothing and claimed nothing (it ran out of its time, or could not search)
    within less time than it has now: it searches again, and may get further."""
    if record is None or "witness" in record or (record.get("no_witness") or {}).get("searched"):
        return False
    return not isinstance(record.get("witness_time"), (int, float)) or record["witness_time"] < witness_time


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


def _isolation() -> dict:
    """The sandbox settings a stored result was measured under: a test may pass only with the network, or
    only outside the sandbox, or only within more memory (``--isolation``, ``--allow-network``, the limits)."""
    settings = sandbox.current().as_json()
    return {name: settings[name] for name in ("kind", "network", "limits")}


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


class Reuse(EvaluationState):
    """The keys and dependencies of stored results, and what the report says about reusing them."""

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
