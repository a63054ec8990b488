"""What a run gives and what it proves, as records: the two outcome axes (did the run happen, what
each test did), the failure kinds, ``TestRecord`` and ``RunResult`` for a run, ``Kill`` and ``Verdict``
for what it proves about a mutant; and the mutated file's path as the records name it.

Split from ``run.py`` (now this package) so that both ``launch.py`` (which runs pytest and reads its
records) and ``judging.py`` (which judges them) build on the same records without importing each other.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePosixPath


# ---------------------------------------------------------------------------
# outcomes: two axes, string enums


class Execution(StrEnum):
    """Did the run happen properly?"""

    COMPLETED = "completed"  # pytest ran to its end and the record file was read
    TIMED_OUT = "timed-out"  # the process group was killed at the timeout
    INFRASTRUCTURE_ERROR = "infrastructure-error"  # pytest could not run or report (exit 3/4, no records)


class TestOutcome(StrEnum):
    """What one test did (pytest's own vocabulary)."""

    __test__ = False

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    ERROR = "error"  # setup/teardown or collection failure
    XFAILED = "xfailed"
    XPASSED = "xpassed"


class FailureKind(StrEnum):
    ASSERTION = "assertion"  # AssertionError (rewritten assert, unittest assert*), pytest.fail()
    EXPECTED_EXCEPTION_NOT_RAISED = "expected-exception-not-raised"  # pytest.raises / assertRaises
    UNEXPECTED_EXCEPTION = "unexpected-exception"  # any other exception in the test body
    COLLECTION_ERROR = "collection-error"  # the test module could not be collected (import errors)
    SETUP_ERROR = "setup-error"  # a fixture / setUp / teardown failed
    TIMEOUT = "timeout"  # a per-test timeout plugin (pytest-timeout) failed the test


class Outcome(StrEnum):
    """What a mutant run proves."""

    KILLED = "killed"
    SURVIVED = "survived"
    NOT_COVERED = "not-covered"  # no test executes the mutated lines: nothing ran, nothing could catch it
    TIMEOUT = "timeout"
    NOT_COMPARABLE = "not-comparable"
    INCONCLUSIVE = "inconclusive"
    CAUGHT_AT_IMPORT = "caught-at-import"  # the mutant stops the code loading: neither a check's kill nor a risk


# ---------------------------------------------------------------------------
# records


@dataclass(frozen=True, slots=True)
class TestRecord:
    """One test as the plugin saw it; ``crossed_files`` are workspace-relative when inside it."""

    __test__ = False

    nodeid: str
    outcome: TestOutcome
    duration: float
    failure_kind: FailureKind | None
    crossed_files: tuple[str, ...]
    exception_type: str | None
    message: str | None
    check: str | None = None  # the check the failure surfaced in (record_protocol.CHECKS), or None

    @property
    def is_failure(self) -> bool:
        return self.outcome in (TestOutcome.FAILED, TestOutcome.ERROR)


@dataclass(frozen=True, slots=True)
class RunResult:
    execution: Execution
    records: tuple[TestRecord, ...]
    exit_code: int | None  # pytest's exit status; None when it never exited on its own
    started: str  # ISO 8601, UTC
    finished: str
    duration: float  # seconds, wall clock
    passed: int | None  # None when not measured (timed out, no records)
    failed: int | None  # failed + errored tests; None when not measured
    stdout_tail: str
    stderr_tail: str
    command: tuple[str, ...]
    workspace: str
    mutated_file: str | None
    timeout: float | None
    pid: int | None  # also the process-group id of the run
    interrupted_at: str | None = None  # the test running when the session was interrupted
    detail: str | None = None  # why the execution was not "completed"
    mutated_lines_executed: bool | None = None  # None: not watched, or not measurable
    modules: tuple[tuple[str, str | None], ...] | None = None  # (module, file) of the project's imports
    import_isolation: tuple[str, ...] = ()  # what the run removed to import the workspace's copy
    mutated_module: str | None = None  # the dotted name the mutated file is imported as
    coverage: tuple[tuple[str, str, tuple[int, ...]], ...] | None = None  # (file, test, lines) when asked
    test_keys: tuple[tuple[str, str], ...] | None = None  # (nodeid, workspace-relative key) when covered
    executor: str = "fresh"  # where the run happened: a fresh interpreter, or forked from a warm one
    third_party: tuple[str, ...] = ()  # top-level modules the tests imported from site-packages
    # workspace files the run opened or imported, by test file ("" for the session); None: not known
    reads: tuple[tuple[str, tuple[str, ...]], ...] | None = None


@dataclass(frozen=True, slots=True)
class Kill:
    nodeid: str
    kind: FailureKind
    attributed: bool


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    kill: Kill | None  # the strongest evidence: the test named as having caught it
    reason: str
    kills: tuple[Kill, ...] = ()  # every test whose failure was attributed, strongest first


# ---------------------------------------------------------------------------
# paths as the records name them (workspace-relative when inside it)


def _relative_to_workspace(path: str, workspace_real: str) -> str:
    real = os.path.realpath(path)
    if real == workspace_real or real.startswith(workspace_real + os.sep):
        return PurePosixPath(Path(os.path.relpath(real, workspace_real))).as_posix()
    return path


def _mutated_relative(mutated_file: str | None, workspace: str) -> str | None:
    if not mutated_file:
        return None
    if os.path.isabs(mutated_file) and workspace:
        return _relative_to_workspace(mutated_file, os.path.realpath(workspace))
    return mutated_file
