"""The baseline policy (SPEC 4.3), applied to each cohort in a disposable copy.

Failing tests are isolated and rerun once: a repeatable failure is
``baseline-red`` and stops classification; an intermittent one is flaky, and
flaky tests are excluded only when the stable green subset still observes the
challenged behaviour, otherwise the cohort is ``inconclusive``. Old tests that
cannot be collected against Head make the existing cohort ``not-comparable``.
A flaky or pre-existing failure is never evidence of a kill or a survival.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from elenchus.execution.cohorts import Cohort
from elenchus.execution.coverage_map import CoverageMap
from elenchus.execution.executor import Executor, FreshProcess, RunRequest
from elenchus.mutation.mutate import Mutant
from elenchus.execution.run import Execution, FailureKind, RunResult, TestRecord, foreign_modules, import_advice

BASELINE_TIMEOUT_SECONDS = 900.0


@dataclass(frozen=True, slots=True)
class Baseline:
    cohort: str
    status: str  # green | baseline-red | flaky | inconclusive | not-comparable | blocked
    failing_tests: tuple[str, ...]
    flaky_tests: tuple[str, ...]
    reduced_scope: str | None
    duration: float | None  # seconds of the first full run; None when not measured
    reason: str | None
    records: tuple[TestRecord, ...] = ()
    empty: bool = False  # a cohort with no relevant test: every mutant survives it without a run
    excluded: tuple[str, ...] = ()  # repeatable failures set aside instead of stopping (replx scoring)
    coverage: CoverageMap | None = None  # which tests execute which mutated lines; None: not measured
    third_party: tuple[str, ...] = ()  # what the tests imported from site-packages (a warm worker preloads it)
    # workspace files the first run opened or imported, by test file ("" for the session); None: not known
    reads: tuple[tuple[str, tuple[str, ...]], ...] | None = None

    @property
    def usable(self) -> bool:
        """Whether mutants may be judged against this cohort."""
        return self.status in ("green", "flaky")

    @property
    def deselect(self) -> tuple[str, ...]:
        return self.flaky_tests + self.excluded


def run_once(cohort: Cohort, root: Path, tests: tuple[str, ...], timeout: float,
             mutant: Mutant | None = None, deselect: tuple[str, ...] = (), cover: tuple[str, ...] = (),
             executor: Executor | None = None) -> RunResult:
    """One pytest run in a fresh copy of the cohort (a new interpreter unless ``executor`` says otherwise)."""
    return (executor or FreshProcess(root)).run(RunRequest(cohort, tests, timeout, mutant, deselect, cover))


def _plain(message: str | None) -> str:
    """A message without the disposable workspace prefix, which means nothing to the reader."""
    return re.sub(r"/\S*?/ws-[^/\s]+/", "", message or "")


def _failed(result: RunResult) -> list[TestRecord]:
    return [r for r in result.records if r.is_failure]


def establish(cohort: Cohort, root: Path, observes: Callable[[frozenset[str]], bool],
              set_aside_red: bool = False, cover: tuple[str, ...] = ()) -> Baseline:
    """Apply the policy to ``cohort``; ``observes(excluded)`` says whether the tests left after
    excluding ``excluded`` still observe every challenged behaviour.

    ``set_aside_red`` (replx scoring, whose old tests may fail on purpose) deselects repeatable
    failures instead of stopping: they are reported elsewhere as frozen test failures.
    ``cover`` (the mutated production files): the first run also records which tests execute
    which of their lines, so each mutant run can execute only those tests.
    """
    first = run_once(cohort, root, cohort.tests, BASELINE_TIMEOUT_SECONDS, cover=cover) if cohort.tests else None
    baseline = _establish(cohort, root, observes, set_aside_red, first)
    if first is None or not baseline.usable:
        return baseline
    return replace(baseline, coverage=CoverageMap.from_run(first) if cover else None,
                   third_party=first.third_party, reads=first.reads)


def _establish(cohort: Cohort, root: Path, observes: Callable[[frozenset[str]], bool],
               set_aside_red: bool, first: RunResult | None) -> Baseline:
    if not cohort.tests:
        if cohort.name == "existing":  # the change brought the only relevant tests: nothing protected before
            return Baseline(cohort.name, "green", (), (), None, None,
                            "no pre-change test relates to the evaluated code, so nothing caught it before",
                            empty=True)
        return Baseline(cohort.name, "blocked", (), (), None, None,
                        "no runnable tests: no test file in this cohort relates to the evaluated code (test files "
                        "are those named as `test-patterns` in [tool.elenchus] says, `test_*.py` and `*_test.py` "
                        "unless set; if yours are named otherwise, list that name there too, e.g. "
                        "test-patterns = [\"test_*.py\", \"*_test.py\", \"tests.py\"])")
    assert first is not None
    if first.execution is not Execution.COMPLETED:
        return Baseline(cohort.name, "inconclusive", (), (), None, None,
                        f"the baseline run did not complete ({first.detail or first.execution.value})")
    if first.exit_code == 5 or not first.records:
        return Baseline(cohort.name, "blocked", (), (), None, first.duration,
                        "no runnable tests: pytest collected nothing from " + ", ".join(cohort.tests))
    foreign = foreign_modules(first)
    if foreign:  # every mutant run would test someone else's copy: stop before the first one
        name, file = foreign[0]
        return Baseline(cohort.name, "blocked", (), (), None, first.duration,
                        import_advice(f"`{name}` from {file}", "any mutant"), first.records)
    failures = _failed(first)
    collection = [r for r in failures if r.failure_kind is FailureKind.COLLECTION_ERROR]
    if collection:
        names = tuple(r.nodeid for r in collection)
        detail = "; ".join(f"{r.nodeid}: {_plain(r.message) or r.exception_type}" for r in collection[:3])
        if cohort.name == "existing":
            return Baseline(cohort.name, "not-comparable", (), (), None, first.duration,
                            f"the pre-change tests cannot be collected against Head ({detail})", first.records)
        return Baseline(cohort.name, "baseline-red", names, (), None, first.duration,
                        f"tests cannot be collected ({detail})", first.records)
    if not failures:
        return Baseline(cohort.name, "green", (), (), None, first.duration, None, first.records)

    rerun = run_once(cohort, root, tuple(r.nodeid for r in failures), BASELINE_TIMEOUT_SECONDS)
    if rerun.execution is not Execution.COMPLETED:
        return Baseline(cohort.name, "inconclusive", (), (), None, first.duration,
                        "the rerun of the failing tests did not complete")
    still_failing = {r.nodeid for r in _failed(rerun)}
    repeatable = tuple(sorted(r.nodeid for r in failures if r.nodeid in still_failing))
    flaky = tuple(sorted(r.nodeid for r in failures if r.nodeid not in still_failing))
    if repeatable and set_aside_red:
        return Baseline(cohort.name, "green", (), flaky,
                        "set aside tests that fail without any mutant: " + ", ".join(repeatable + flaky),
                        first.duration, None, first.records, excluded=repeatable)
    if repeatable:
        return Baseline(cohort.name, "baseline-red", repeatable, flaky, None, first.duration,
                        "these tests fail repeatably without any mutant: " + ", ".join(repeatable),
                        first.records)
    if observes(frozenset(flaky)):
        return Baseline(cohort.name, "flaky", (), flaky, "excluded flaky tests: " + ", ".join(flaky),
                        first.duration, None, first.records)
    return Baseline(cohort.name, "inconclusive", (), flaky, None, first.duration,
                    "flaky tests were the only ones observing the challenged behaviour: " + ", ".join(flaky),
                    first.records)
