"""The executors: warm workers give the same results as fresh interpreters, start every run clean,
honour timeouts, and step aside (saying why) when forking them would not be safe."""

import json
import os
from pathlib import Path

import pytest

from elenchus.execution import sandbox
from elenchus.execution.cohorts import Cohort
from elenchus.execution.executor import FreshProcess, RunRequest, WarmRunner
from elenchus.mutation.mutate import Mutant
from elenchus.execution.run import Execution, Outcome, TestOutcome, judge
from elenchus.execution.workspace import tree_digest

SOURCE = "def add(a, b):\n    return a + b\n"
TESTS = '''import os
import tempfile
from pathlib import Path

from pkg.core import add

STATE = []


def test_add():
    assert add(2, 3) == 5


def test_starts_clean():
    """Fails if anything of an earlier run is still here: a module global, a temp file, a HOME file."""
    assert STATE == []
    STATE.append(1)
    marks = [Path(tempfile.gettempdir(), "elenchus-leak"), Path(os.path.expanduser("~"), "elenchus-leak")]
    if os.environ.get("CHECK_PRIVATE_PLACES"):
        assert not any(mark.exists() for mark in marks), [str(m) for m in marks if m.exists()]
        for mark in marks:
            mark.write_text("left by an earlier run")


def test_environment_is_the_runs():
    assert os.environ.get("PYTHONDONTWRITEBYTECODE") == "1"
    assert os.getcwd() == str(Path(__file__).resolve().parents[1])
'''
HANG = "import time\n\n\ndef test_hangs():\n    time.sleep(60)\n"


@pytest.fixture
def cohort(tmp_path) -> Cohort:
    template = tmp_path / "template"
    (template / "pkg").mkdir(parents=True)
    (template / "pkg" / "__init__.py").write_text("")
    (template / "pkg" / "core.py").write_text(SOURCE)
    (template / "tests").mkdir()
    (template / "tests" / "test_core.py").write_text(TESTS)
    (template / "tests" / "test_hang.py").write_text(HANG)
    return Cohort("modified", template, ("tests/test_core.py",), tree_digest(template))


def _mutant(replacement: str) -> Mutant:
    mutated = SOURCE.replace("a + b", replacement)
    return Mutant(replacement, "pkg/core.py", "add", 2, 2, 5, "f", "intent", "incident", "detect", "", mutated,
                  mutated_lines=(2,))


def _outcomes(result) -> dict[str, TestOutcome]:
    return {r.nodeid: r.outcome for r in result.records}


def test_warm_runs_give_the_fresh_verdicts_and_say_where_they_ran(cohort, tmp_path):
    warm = WarmRunner(tmp_path / "scratch", 1, ["json"], ["pkg"])
    fresh = FreshProcess(tmp_path / "scratch")
    try:
        for mutant in (_mutant("a - b"), _mutant("b + a"), None):
            request = RunRequest(cohort, cohort.tests, 60, mutant)
            hot, cold = warm.run(request), fresh.run(request)
            assert hot.execution is Execution.COMPLETED, hot.stderr_tail
            assert (hot.executor, cold.executor) == ("warm", "fresh"), warm.reason
            assert _outcomes(hot) == _outcomes(cold)
            if mutant is not None:
                assert judge(hot, mutant.path).outcome is judge(cold, mutant.path).outcome
        assert judge(warm.run(RunRequest(cohort, cohort.tests, 60, _mutant("a - b"))), "pkg/core.py").outcome \
            is Outcome.KILLED
        assert warm.warm_runs == 4 and warm.fresh_runs == 0 and warm.reason is None
        assert warm.describe().startswith("forked from a warm interpreter")
    finally:
        warm.close()
    assert not list((tmp_path / "scratch").glob("warm-*")), "a worker's slot was left behind"


def test_a_warm_runs_garbage_collections_leave_out_what_the_worker_preloaded(cohort, tmp_path):
    # pytest collects garbage five times as its session ends; walking every object of the preloaded modules each
    # time cost a child more than a small suite's tests. Those objects are held apart (frozen), the run's are not.
    (cohort.template / "tests" / "test_gc.py").write_text(
        "import gc\n\n\ndef test_preloaded_objects_are_held_apart():\n"
        "    assert gc.get_freeze_count() > 10000, gc.get_freeze_count()\n")
    checked = Cohort(cohort.name, cohort.template, ("tests/test_gc.py",), tree_digest(cohort.template))
    warm = WarmRunner(tmp_path / "scratch", 1, ["json"], ["pkg"])
    try:
        hot = warm.run(RunRequest(checked, checked.tests, 60))
        assert hot.executor == "warm" and hot.execution is Execution.COMPLETED, hot.stderr_tail
        assert _outcomes(hot) == {"tests/test_gc.py::test_preloaded_objects_are_held_apart": TestOutcome.PASSED}, \
            hot.stdout_tail
    finally:
        warm.close()


def test_installed_pytest_plugins_are_left_for_pytest_to_import_under_filterwarnings_error(cohort, tmp_path):
    # pytest marks installed plugins for assertion rewriting and warns if one is already imported;
    # a project that turns warnings into errors would then fail every warm run before its tests.
    (cohort.template / "pytest.ini").write_text("[pytest]\nfilterwarnings =\n    error\n")
    strict = Cohort(cohort.name, cohort.template, cohort.tests, tree_digest(cohort.template))
    warm = WarmRunner(tmp_path / "scratch", 1, ["xdist", "execnet", "json"], ["pkg"])
    try:
        request = RunRequest(strict, strict.tests, 60, _mutant("a - b"))
        hot, cold = warm.run(request), FreshProcess(tmp_path / "scratch").run(request)
        assert hot.executor == "warm" and hot.execution is Execution.COMPLETED, hot.stderr_tail
        assert _outcomes(hot) == _outcomes(cold) and judge(hot, "pkg/core.py").outcome is Outcome.KILLED
        assert "xdist" in warm._workers[0].ready["loaded"]  # still imported once, not in every run
    finally:
        warm.close()


def test_a_warm_run_that_fails_where_a_fresh_one_completes_sends_every_later_run_fresh(cohort, tmp_path):
    # Whatever the reason a project notices the preloaded modules, the fresh interpreter's result wins.
    (cohort.template / "conftest.py").write_text(
        "import sys\n\nif 'wave' in sys.modules:\n    raise RuntimeError('wave was imported before the tests')\n")
    picky = Cohort(cohort.name, cohort.template, cohort.tests, tree_digest(cohort.template))
    warm = WarmRunner(tmp_path / "scratch", 2, ["wave"], ["pkg"])
    try:
        first = warm.run(RunRequest(picky, picky.tests, 60, _mutant("a - b")))
        assert first.execution is Execution.COMPLETED and first.executor == "fresh"
        assert judge(first, "pkg/core.py").outcome is Outcome.KILLED
        assert "could not run the tests" in (warm.reason or "") and "fresh interpreter could" in warm.reason
        assert warm.run(RunRequest(picky, picky.tests, 60)).executor == "fresh"
        assert warm.warm_runs == 0 and warm.fresh_runs == 2
        assert warm.describe().startswith("a fresh interpreter per run, because a run forked")
    finally:
        warm.close()


@pytest.mark.skipif(not sandbox.current().isolated, reason="private places need the sandbox")
def test_nothing_one_warm_run_leaves_in_tmp_or_home_reaches_the_next(cohort, tmp_path, monkeypatch):
    monkeypatch.setenv("CHECK_PRIVATE_PLACES", "1")
    warm = WarmRunner(tmp_path / "scratch", 1, [], ["pkg"])
    try:
        for _ in range(3):
            result = warm.run(RunRequest(cohort, ("tests/test_core.py",), 60))
            assert _outcomes(result)["tests/test_core.py::test_starts_clean"] is TestOutcome.PASSED, \
                result.stdout_tail
            assert result.executor == "warm"
    finally:
        warm.close()


def test_a_hanging_warm_run_times_out_naming_the_test_and_leaves_no_process(cohort, tmp_path):
    warm = WarmRunner(tmp_path / "scratch", 1, [], ["pkg"])
    try:
        # (long enough for the fork to reach the test on a loaded 2-core host: the timeout must find it running)
        result = warm.run(RunRequest(cohort, ("tests/test_hang.py",), 8))
        assert result.execution is Execution.TIMED_OUT
        assert result.interrupted_at == "tests/test_hang.py::test_hangs"
        assert judge(result).outcome is Outcome.TIMEOUT
        after = warm.run(RunRequest(cohort, ("tests/test_core.py",), 60))  # the worker is still usable
        assert after.execution is Execution.COMPLETED and after.executor == "warm"
    finally:
        warm.close()
    leftovers = [pid for pid in os.listdir("/proc") if pid.isdigit() and _mentions(pid, "test_hang")]
    assert leftovers == []


def _mentions(pid: str, text: str) -> bool:
    try:
        return text in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def test_a_preload_that_imports_the_project_sends_every_run_to_a_fresh_interpreter(cohort, tmp_path):
    # The project here is named like a standard module the worker preloads: importing it would be
    # importing the project before its workspace exists, so the worker must step aside.
    warm = WarmRunner(tmp_path / "scratch", 1, ["json"], ["json"])
    try:
        result = warm.run(RunRequest(cohort, cohort.tests, 60))
        assert result.execution is Execution.COMPLETED and result.executor == "fresh"
        assert warm.fresh_runs == 1 and warm.warm_runs == 0
        assert "imported the project's own module json" in warm.describe()
        assert warm.describe().startswith("a fresh interpreter per run")
    finally:
        warm.close()


def test_a_worker_that_dies_mid_run_costs_no_result(cohort, tmp_path):
    warm = WarmRunner(tmp_path / "scratch", 1, [], ["pkg"])
    try:
        assert warm.run(RunRequest(cohort, cohort.tests, 60)).executor == "warm"
        for worker in list(warm._workers):
            worker.process.kill()
            worker.process.wait()
        result = warm.run(RunRequest(cohort, cohort.tests, 60, _mutant("a - b")))
        assert result.executor == "fresh" and judge(result, "pkg/core.py").outcome is Outcome.KILLED
        assert "warm worker" in (warm.reason or "")
    finally:
        warm.close()


def test_run_records_name_the_executor(cohort, tmp_path):
    result = FreshProcess(tmp_path / "scratch").run(RunRequest(cohort, cohort.tests, 60))
    assert json.dumps(result.executor) == '"fresh"'


def _selected(cohort: Cohort, mutant: Mutant | None, *names: str, timeout: float = 60) -> RunRequest:
    keys = tuple(f"tests/test_core.py::{name}" for name in names or ("test_add", "test_starts_clean"))
    return RunRequest(cohort, ("tests/test_core.py",), timeout, mutant, select=keys)


def test_collected_runs_give_the_fresh_verdicts_and_step_aside_for_code_that_runs_at_import(cohort, tmp_path):
    warm = WarmRunner(tmp_path / "scratch", 1, ["json"], ["pkg"])
    fresh = FreshProcess(tmp_path / "scratch")
    at_import = Mutant("default", "pkg/core.py", "add", 1, 1, 5, "f", "intent", "incident", "detect", "",
                       SOURCE.replace("def add(a, b):", "def add(a, b=1):"), mutated_lines=(1,))
    try:
        for mutant, where in ((_mutant("a - b"), "collected"), (_mutant("b + a"), "collected"),
                              (_mutant("a - b"), "collected"), (at_import, "warm")):
            request = _selected(cohort, mutant)
            hot, cold = warm.run(request), fresh.run(request)
            assert hot.execution is Execution.COMPLETED, hot.stderr_tail
            assert hot.executor == where, warm.describe()
            # test_starts_clean fails if an earlier run's module state leaked into this one
            assert _outcomes(hot) == _outcomes(cold)
            assert judge(hot, mutant.path).outcome is judge(cold, mutant.path).outcome
        assert warm.collected_runs == 3 and warm.warm_runs == 1
        assert "3 run(s) forked from a pytest session per job slot" in warm.describe()
        assert "the most common reason: the mutant changes code that runs at import" in warm.describe()
    finally:
        warm.close()
    assert not list((tmp_path / "scratch").glob("warm-*")), "a worker's slot was left behind"


def test_a_run_that_writes_into_the_workspace_ends_its_collected_session(cohort, tmp_path):
    (cohort.template / "tests" / "test_core.py").write_text(TESTS + '''

def test_writes_here():
    mark = Path("left-behind.txt")
    assert not mark.exists(), "an earlier run's file is still in the workspace"
    mark.write_text("x")
    assert add(1, 1) == 2
''')
    writing = Cohort(cohort.name, cohort.template, cohort.tests, tree_digest(cohort.template))
    warm = WarmRunner(tmp_path / "scratch", 1, [], ["pkg"])
    try:
        for _ in range(3):
            result = warm.run(_selected(writing, _mutant("b + a"), "test_writes_here"))
            assert result.executor == "collected"
            assert judge(result, "pkg/core.py").outcome is Outcome.SURVIVED, result.records
    finally:
        warm.close()


def test_a_hanging_collected_run_times_out_naming_the_test_and_the_session_serves_on(cohort, tmp_path):
    warm = WarmRunner(tmp_path / "scratch", 1, [], ["pkg"])
    try:
        result = warm.run(_selected(cohort, _mutant("next(x for x in iter(int, 1) if x)"), "test_add", timeout=3))
        assert result.executor == "collected" and result.execution is Execution.TIMED_OUT
        assert result.interrupted_at == "tests/test_core.py::test_add"
        after = warm.run(_selected(cohort, _mutant("a - b")))
        assert after.executor == "collected" and judge(after, "pkg/core.py").outcome is Outcome.KILLED
        assert warm._workers[0].session is not None  # the same session served both
    finally:
        warm.close()


def test_a_mutant_larger_than_a_pipe_reaches_its_collected_session(cohort, tmp_path):
    padding = "".join(f"# line {n} of a long module, beyond what one pipe write holds\n" for n in range(4000))
    (cohort.template / "pkg" / "core.py").write_text(SOURCE + padding)
    large = Cohort(cohort.name, cohort.template, cohort.tests, tree_digest(cohort.template))
    mutant = Mutant("a - b", "pkg/core.py", "add", 2, 2, 5, "f", "intent", "incident", "detect", "",
                    SOURCE.replace("a + b", "a - b") + padding, mutated_lines=(2,))
    assert len(mutant.mutated_source) > 200_000
    warm = WarmRunner(tmp_path / "scratch", 1, [], ["pkg"])
    try:
        result = warm.run(_selected(large, mutant, "test_add"))
        assert result.executor == "collected" and judge(result, "pkg/core.py").outcome is Outcome.KILLED
    finally:
        warm.close()


STOPPING = '''from pkg.core import add


def test_unrelated_error():
    {}["never the mutant's doing"]


def test_through_the_code():
    total = add(2, 3)
    assert total == 5


def test_after():
    assert add(1, 1) == 2
'''


def test_a_stopping_run_ends_at_the_first_test_that_surely_caught_the_mutant(cohort, tmp_path):
    """An exception that came through the mutated file is a kill wherever it surfaced; one that never
    reached the mutated code, or that says the code could not load, is not: the run goes on past it."""
    (cohort.template / "tests" / "test_stop.py").write_text(STOPPING)
    stopping = Cohort(cohort.name, cohort.template, ("tests/test_stop.py",), tree_digest(cohort.template))
    order = tuple(f"tests/test_stop.py::{name}" for name in ("test_unrelated_error", "test_through_the_code",
                                                               "test_after"))
    raising = _mutant("a + None")  # TypeError inside pkg/core.py, outside any check of the test
    not_loading = _mutant("__import__('no_such_module_here')")
    warm = WarmRunner(tmp_path / "scratch", 1, [], ["pkg"])
    fresh = FreshProcess(tmp_path / "scratch")
    try:
        for runner, where in ((warm, "collected"), (fresh, "fresh")):
            request = RunRequest(stopping, stopping.tests, 60, raising, select=order, stop=True)
            stopped = runner.run(request)
            assert stopped.executor == where
            assert [r.nodeid for r in stopped.records] == list(order[:2])
            verdict = judge(stopped, "pkg/core.py")
            assert verdict.outcome is Outcome.KILLED and verdict.kill.nodeid == order[1]
            on = runner.run(RunRequest(stopping, stopping.tests, 60, not_loading, select=order, stop=True))
            assert [r.nodeid for r in on.records] == list(order)  # ModuleNotFoundError: never a kill
            assert judge(on, "pkg/core.py").outcome is not Outcome.KILLED
    finally:
        warm.close()


def test_short_runs_share_one_worker_and_long_ones_get_a_worker_each(cohort, tmp_path):
    """A second worker costs a second interpreter: it starts only once the first stayed busy for as long as
    starting one took, which short runs never do and runs of a slow test soon do."""
    from concurrent.futures import ThreadPoolExecutor

    import shutil

    template = tmp_path / "slow"
    shutil.copytree(cohort.template, template)
    (template / "tests" / "test_slow.py").write_text("import time\n\n\ndef test_slow():\n    time.sleep(4)\n")
    slow = Cohort("modified", template, ("tests/test_slow.py",), tree_digest(template))
    for requests, workers, where in (([_selected(cohort, _mutant("b + a"), "test_add")] * 6, 1, "collected"),
                                     ([RunRequest(slow, slow.tests, 60)] * 2, 2, "warm")):
        warm = WarmRunner(tmp_path / f"scratch-{workers}", 2, [], ["pkg"])
        try:
            with ThreadPoolExecutor(max_workers=2) as pool:
                results = list(pool.map(warm.run, requests))
            assert all(r.execution is Execution.COMPLETED and r.executor == where for r in results), warm.reason
            assert warm._started == workers
        finally:
            warm.close()
