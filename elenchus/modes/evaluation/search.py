"""The regression search, and the second look every would-be protection regression gets.

A change that weakened a check may have lost a catch that no budgeted mutant shows: the weakened
tests run in their pre-change form, and the candidates on the lines they execute meet the current
tests. Before any mutant is reported as a protection regression, the tests that caught it run again
in both cohorts, so a flaky catch is called inconclusive, never a lost one.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from elenchus.execution.baseline import BASELINE_TIMEOUT_SECONDS, Baseline, run_once
from elenchus.execution.cohorts import Cohort, relevant_tests
from elenchus.execution.coverage_map import CoverageMap
from elenchus.modes.evaluation.running import Running
from elenchus.modes.evaluation.state import _Job
from elenchus.mutation.contract import Contract
from elenchus.records import RunDirectory
from elenchus.mutation.mutate import Mutant
from elenchus.execution.run import Outcome, RunResult, TestOutcome, Verdict
from elenchus.mutation.select import Plan
from elenchus.repo.session import Session

if TYPE_CHECKING:  # the regression search loads only when a run needs it
    from elenchus.analysis.regression import WeakenedCheck


class RegressionSearch(Running):
    """The regression search and the confirmation of would-be regressions."""

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
        Only a run whose tests passed goes to another round: one where none ran to completion
        (skipped, marked to fail) had no catch to let slip, and would say the same again.
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
                if verdict.outcome is not Outcome.SURVIVED:
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
