"""Mutant runs: where they happen, their time limits, and running them in parallel.

Each challenged mutant against each cohort's relevant tests (or only those that execute its lines),
through the executor chosen for this evaluation (fresh interpreters, warm workers, or a Dask
cluster's); each run's limit from its baseline; a run that hits its limit runs once more before it
counts as a timeout; verdicts stored for reuse, and runs done again without the cache when asked.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from elenchus.execution.baseline import Baseline
from elenchus.execution.cohorts import Cohort
from elenchus.console import Progress
from elenchus.execution.coverage_map import Selection
from elenchus.execution.executor import Executor, FreshProcess, RunRequest, WarmRunner
from elenchus.modes.evaluation.reuse import _REPEATABLE, Reuse, _run_record, _verdict_from_record
from elenchus.modes.evaluation.state import WITHOUT_HUNG, _iso, _Job
from elenchus.records import RunDirectory
from elenchus.mutation.mutate import Mutant
from elenchus.execution.run import Execution, Outcome, Verdict, judge, timeout_for
from elenchus.mutation.select import Plan
from elenchus.repo.session import Session

if TYPE_CHECKING:  # the cluster loads only with --cluster
    from elenchus.execution.cluster import ClusterExecutor


class Running(Reuse):
    """The mutant runs and their limits."""

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
        test takes without it, measured once per cohort when a first run times out). When that one stops
        in a test too, the tests run a third time without it, at the first limit: a mutant that makes
        one test loop and another fail is caught by the other, whichever runs first (only a catch there
        counts; anything else leaves the timeout). What the same content gives again is cached
        (``_REPEATABLE``); an inconclusive run is measured again next time.
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
        hung: dict[str, tuple[_Job, Verdict, str, dict]] = {}  # job key -> the job, its timeout, the test that
        # hung, and the record of its second run
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
                    verdict = judge(result, job.mutant.path, ran=job.covered)
                    if attempt == 3:  # (the job as planned: its key stores the verdict, never the test left out)
                        job, held, left_out, held_record = hung.pop(job.key)
                    if verdict.outcome is Outcome.SURVIVED and job.covered:
                        verdict = replace(verdict, reason=f"{verdict.reason} although the mutated line ran in the "
                                                          "baseline run")
                    record = _run_record(run_dir.id, job.mutant.id, job.cohort.name, result, verdict)
                    record.update(attempt=attempt, selection=job.selection if attempt < 3 else WITHOUT_HUNG)
                    run_dir.append_run(record)
                    if verdict.outcome is Outcome.TIMEOUT and attempt == 1:
                        # A loaded machine is not a hang, and a mutant may slow its selected tests a lot
                        # before one fails: the second run may take as long as every relevant test could.
                        first_limits[job.key] = timeout
                        retry(job, timeout)
                        continue
                    if verdict.outcome is Outcome.TIMEOUT and attempt == 2:
                        verdict = replace(verdict, reason=f"no result within {first_limits.get(job.key, limit):g} s, "
                                                          f"nor within {timeout:g} s when run again; {verdict.reason}")
                        if result.interrupted_at and result.interrupted_at not in job.deselect:
                            hung[job.key] = (job, verdict, result.interrupted_at, record)
                            submit(replace(job, deselect=(*job.deselect, result.interrupted_at)),
                                   first_limits.get(job.key, limit), 3)
                            continue
                    if attempt == 3:
                        if verdict.outcome is Outcome.KILLED:
                            verdict = replace(verdict, reason=f"{verdict.reason}; `{left_out}` never finished with "
                                                              "this mutant (two limits), so the tests ran again "
                                                              "without it")
                            record = {**record, "selection": job.selection}  # (stored as the planned run's)
                        else:
                            verdict, record = held, held_record
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

    def _run_again(self, jobs: list[_Job], attempt: int, limit: float, root: Path,
                   run_dir: RunDirectory) -> list[Verdict]:
        """Each of ``jobs`` run once more, in parallel and never from the cache; recorded as attempt ``attempt``."""
        executor = self.executor or FreshProcess(root)

        def run(job: _Job) -> Verdict:
            request = RunRequest(job.cohort, job.tests, job.limit or limit, job.mutant, job.deselect, (), job.select,
                                 job.stop, watch=not job.covered)
            result = executor.run(request)
            verdict = judge(result, job.mutant.path, ran=job.covered)
            record = _run_record(run_dir.id, job.mutant.id, job.cohort.name, result, verdict)
            record.update(attempt=attempt, selection=job.selection)
            run_dir.append_run(record)
            return verdict

        with ThreadPoolExecutor(max_workers=self._parallelism()) as pool:
            return list(pool.map(run, jobs))
