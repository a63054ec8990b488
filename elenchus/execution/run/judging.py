"""Judge a run: what a mutant's ``RunResult`` proves (``judge``, a ``Verdict``: killed / survived /
timeout / not-comparable / inconclusive / caught at import), and whether its tests imported the
project from outside the workspace (``foreign_import``, ``foreign_modules``, ``import_advice``).

Split from ``run.py`` (now this package): launching a run and judging it are apart, so judging reads
records only and never starts a process.
"""

from __future__ import annotations

import os
import re
from pathlib import PurePosixPath

from elenchus.execution import record_protocol as _protocol
from elenchus.execution.run.results import (Execution, FailureKind, Kill, Outcome, RunResult, TestOutcome,
                                            TestRecord, Verdict, _mutated_relative, _relative_to_workspace)


def _normalise(path: str) -> str:
    text = path.replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return str(PurePosixPath(text))


def _same_file(crossed: str, mutated: str) -> bool:
    a, b = _normalise(crossed), _normalise(mutated)
    if a == b:
        return True
    a_abs, b_abs = a.startswith("/"), b.startswith("/")
    if a_abs != b_abs:  # only one side could not be made workspace-relative: compare by suffix
        longer, shorter = (a, b) if a_abs else (b, a)
        return longer.endswith("/" + shorter)
    return False


def is_attributed(record: TestRecord, mutated_file: str | None) -> bool:
    """Did this failure reach behaviour (and so count as a kill of the mutant)?

    An assertion failure or a missing expected exception always does. Any other
    exception does when it surfaced while the test was checking (an ``assert``
    statement, an ``assert*`` call, a ``pytest.raises``/``assertRaises`` block: a
    mutant returning None makes ``result[0] == x`` raise TypeError there) or when its
    traceback crossed the mutated file. Import and syntax errors never do.
    """
    if not record.is_failure:
        return False
    if record.failure_kind in (FailureKind.ASSERTION, FailureKind.EXPECTED_EXCEPTION_NOT_RAISED):
        return True
    if record.failure_kind is FailureKind.UNEXPECTED_EXCEPTION:
        if (record.exception_type or "").rsplit(".", 1)[-1] in _protocol.NEVER_A_KILL_EXCEPTIONS:
            return False
        if record.check is not None:
            return True
        return bool(mutated_file) and any(_same_file(crossed, mutated_file) for crossed in record.crossed_files)
    return False


def _is_structural(record: TestRecord) -> bool:
    """A failure that says the mutant broke the harness, not the behaviour."""
    if record.failure_kind in (FailureKind.COLLECTION_ERROR, FailureKind.SETUP_ERROR):
        return True
    return (record.exception_type or "").rsplit(".", 1)[-1] in _protocol.NEVER_A_KILL_EXCEPTIONS


def _crashed_loading(record: TestRecord, mutated_file: str | None) -> bool:
    """Whether collecting the tests failed inside the mutated file: the mutated module raised while it was
    imported, or a test module's import-time code called into it and it raised, or a name it should define
    is missing (``cannot import name 'x' from 'pkg.mod' (.../pkg/mod.py)``)."""
    if record.failure_kind is not FailureKind.COLLECTION_ERROR or not mutated_file:
        return False
    if any(_same_file(crossed, mutated_file) for crossed in record.crossed_files):
        return True
    named = re.search(r"\((?:.*/)?" + re.escape(_normalise(mutated_file)) + r"\)", record.message or "")
    return (record.exception_type or "").rsplit(".", 1)[-1] == "ImportError" and named is not None


_CONFTEST_FAILURE = re.compile(r"ImportError while loading conftest '(?P<path>[^']+)'\.")


def _conftest_crash(stderr: str, mutated_file: str | None, workspace: str) -> tuple[str, str] | None:
    """(the conftest.py, the error) when pytest stopped before collecting (exit 4) because importing a
    conftest.py crossed the mutated file and raised: the tests' shared set-up imports the mutated module,
    which no longer loads. pytest says so on stderr only, in a traceback of ``path:line: in`` frames."""
    found = _CONFTEST_FAILURE.search(stderr)
    if found is None or not mutated_file:
        return None
    frames = re.findall(r"^(\S+?):\d+: in ", stderr[found.end():], flags=re.MULTILINE)
    if not any(_same_file(frame, mutated_file) for frame in frames):
        return None
    errors = re.findall(r"^E\s+(.+)$", stderr[found.end():], flags=re.MULTILINE)
    conftest = found.group("path")
    if workspace and os.path.isabs(conftest):
        conftest = _relative_to_workspace(conftest, os.path.realpath(workspace)) or conftest
    return conftest, (errors[-1].strip()[:300] if errors else "an error")


def _describe(record: TestRecord) -> str:
    kind = record.failure_kind.value if record.failure_kind else record.outcome.value
    detail = ": ".join(part for part in (record.exception_type, record.message) if part)
    return f"{record.nodeid} ({kind}{': ' + detail if detail else ''})"


def _evidence_strength(record: TestRecord) -> int:
    """0: a check failed; 1: an exception surfaced in a check; 2: it only crossed the mutated code."""
    if record.failure_kind in (FailureKind.ASSERTION, FailureKind.EXPECTED_EXCEPTION_NOT_RAISED):
        return 0
    return 1 if record.check is not None else 2


def foreign_import(result: RunResult, mutated: str | None) -> str | None:
    """Where the tests imported the mutated module from, when that was not the workspace.

    None when the workspace's copy was imported, when the module was never imported,
    or when the run could not tell (no module record, e.g. tests run by xdist workers).
    """
    if not mutated or result.modules is None:
        return None
    workspace_real = os.path.realpath(result.workspace)
    own = os.path.join(workspace_real, mutated)
    files = {name: file for name, file in result.modules if file}
    if any(os.path.realpath(file) == own for file in files.values()):
        return None
    module = result.mutated_module
    tail = "/" + module.replace(".", "/") if module else None
    for name, file in sorted(files.items()):
        real = os.path.realpath(file)
        if real.startswith(workspace_real + os.sep):
            continue
        stem = real[:-len("/__init__.py")] if real.endswith("/__init__.py") else real.removesuffix(".py")
        if name == module or (tail and stem.endswith(tail)):
            return f"`{name}` from {file}"
    return None


def foreign_modules(result: RunResult) -> tuple[tuple[str, str], ...]:
    """The project's modules this run imported from outside its workspace, as (name, file)."""
    workspace_real = os.path.realpath(result.workspace)
    return tuple((name, file) for name, file in result.modules or ()
                 if file and not os.path.realpath(file).startswith(workspace_real + os.sep))


def import_advice(where: str, what: str = "the mutant") -> str:
    return (f"the tests imported {where}, not the copy under evaluation, so this run says nothing about "
            f"{what}. Make the copy under evaluation importable first: list the directories that hold your "
            "packages in `source-roots` under [tool.elenchus] in pyproject.toml, and remove any sys.path or "
            "PYTHONPATH setting in conftest.py or the pytest configuration that points at your checkout")


def _survival(result: RunResult, passed: int) -> str:
    text = f"all {passed} selected tests passed"
    if result.mutated_lines_executed is False:
        return text + "; none of them ran the mutated line"
    if result.mutated_lines_executed is True:
        return text + " although the mutated line ran"
    return text


def judge(result: RunResult, mutated_file: str | None = None, ran: bool = False) -> Verdict:
    """What the run proves about the mutant of ``mutated_file`` (default: the run's own); ``ran``: the
    baseline's coverage saw the mutated lines run, so this run did not watch them again."""
    mutated = _mutated_relative(mutated_file or result.mutated_file, result.workspace)

    if result.execution is Execution.TIMED_OUT:
        where = f" (running {result.interrupted_at})" if result.interrupted_at else ""
        return Verdict(Outcome.TIMEOUT, None, f"{result.detail or 'timed out'}{where}")
    if result.execution is Execution.INFRASTRUCTURE_ERROR and result.exit_code == 4:
        crash = _conftest_crash(result.stderr_tail, mutated, result.workspace)
        if crash is not None:
            return Verdict(Outcome.CAUGHT_AT_IMPORT, None,
                           f"loading {crash[0]} failed inside the mutated code ({crash[1]}), before any test ran")
    if result.execution is Execution.INFRASTRUCTURE_ERROR:
        where = f" (running {result.interrupted_at})" if result.interrupted_at else ""
        return Verdict(Outcome.INCONCLUSIVE, None, f"{result.detail or 'infrastructure error'}{where}")
    if result.exit_code == 5:
        return Verdict(Outcome.NOT_COMPARABLE, None, "pytest collected no tests (exit 5)")

    where = foreign_import(result, mutated)
    if where is not None:
        return Verdict(Outcome.NOT_COMPARABLE, None, import_advice(where))

    failures = [r for r in result.records if r.is_failure]
    attributed = [r for r in sorted(failures, key=_evidence_strength) if is_attributed(r, mutated)]
    if attributed:  # name the test that checked, if one did; keep every test that caught it
        kills = tuple(Kill(r.nodeid, r.failure_kind, True) for r in attributed if r.failure_kind is not None)
        return Verdict(Outcome.KILLED, kills[0], f"killed at {_describe(attributed[0])}", kills)
    timeouts = [r for r in failures if r.failure_kind is FailureKind.TIMEOUT]
    if timeouts:
        return Verdict(Outcome.TIMEOUT, None, f"a per-test timeout fired: {_describe(timeouts[0])}")
    if failures:
        crash = next((r for r in failures if _crashed_loading(r, mutated)), None)
        where = "inside the mutated code"
        if crash is None and (ran or result.mutated_lines_executed is True) \
                and all(r.failure_kind is FailureKind.COLLECTION_ERROR for r in failures):
            # what the mutated code returned broke the test module's import-time code after it (a decorator that
            # returns None): the traceback never crosses the mutated file, but its lines ran (watched here, or seen
            # by the baseline's coverage)
            crash, where = failures[0], "after its import-time code ran the mutated code"
        if crash is not None and all(_is_structural(r) for r in failures):
            error = ": ".join(part for part in (crash.exception_type, crash.message) if part) or "an error"
            others = len(failures) - 1
            return Verdict(Outcome.CAUGHT_AT_IMPORT, None,
                           f"collecting {crash.nodeid} failed {where} ({error}), before any test ran"
                           + (f"; {others} more failed to collect or set up" if others else ""))
        if all(_is_structural(r) for r in failures):
            listed = "; ".join(_describe(r) for r in failures[:3])
            more = f" and {len(failures) - 3} more" if len(failures) > 3 else ""
            return Verdict(
                Outcome.NOT_COMPARABLE, None,
                f"every failure is a collection, import or setup error, never a kill: {listed}{more}",
            )
        runtime = next(r for r in failures if not _is_structural(r))
        assert runtime.failure_kind is not None
        where = f" never crossed {mutated}" if mutated else " cannot be tied to a mutated file"
        return Verdict(
            Outcome.INCONCLUSIVE, Kill(runtime.nodeid, runtime.failure_kind, False),
            f"a test failed but not at a behavioural assertion: {_describe(runtime)};"
            f" the exception{where}",
        )
    if result.exit_code == 2:
        return Verdict(Outcome.INCONCLUSIVE, None, "the pytest session was interrupted (exit 2)")
    if result.exit_code != 0:
        return Verdict(Outcome.INCONCLUSIVE, None,
                       f"pytest exited {result.exit_code} but recorded no failing test (a strict xpass?)")
    if not any(r.outcome is TestOutcome.PASSED for r in result.records):
        return Verdict(Outcome.NOT_COMPARABLE, None, "no test ran to completion (all skipped or xfailed)")
    passed = sum(r.outcome is TestOutcome.PASSED for r in result.records)
    return Verdict(Outcome.SURVIVED, None, _survival(result, passed))
