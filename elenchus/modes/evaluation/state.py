"""What every stage of an evaluation shares: its options, the state one evaluation holds, and one job.

The evaluation engine (``modes/evaluate.py``) is one object whose stages hand each other what they
found; each stage lives in a module of this package as a class over ``EvaluationState``, which owns
that shared state (the options, the narration callbacks, the verdicts, the cache, the executor).
It sits at the bottom of the package: every other stage builds on it, and it imports none of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from elenchus.execution.cohorts import Cohort
from elenchus.execution.dependencies import Digests, Reads
from elenchus.execution.executor import Executor
from elenchus.repo.layout import ROOT, SourceLayout
from elenchus.records import ResultCache
from elenchus.mutation.mutate import Mutant
from elenchus.guards import SEARCH_BUDGET_DEFAULT, WITNESS_TIME_DEFAULT
from elenchus.execution.run import Verdict

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


#: The selection a run records when a test that never finished twice was left out of it (never resumed from:
#: its catch is the timed-out run's verdict, stored with that run's key).
WITHOUT_HUNG = "without a test that never finished"


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


class EvaluationState:
    """What one evaluation's stages hand each other (each stage is a class over this one)."""

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

    def _verdict(self, mutant_id: str, name: str, cohorts_same: bool) -> Verdict | None:
        if name == "existing" and cohorts_same:
            return self.verdicts.get((mutant_id, "modified"))
        return self.verdicts.get((mutant_id, name))
