"""run_pytest and judge against real pytest subprocesses on tmp_path projects."""

from __future__ import annotations

import math
import os
import tempfile
import time
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from elenchus.errors import InputGuardError
from elenchus.execution.run import (
    Execution,
    FailureKind,
    Kill,
    Outcome,
    RunResult,
    TestOutcome,
    judge,
    run_pytest,
    scrub_environment,
    timeout_for,
    validate_timeout_factor,
)
from elenchus.execution.workspace import tree_digest

from tests.conftest import FAST_ENV, write_tree

MUTATED = "pkg/mod.py"

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/mod.py": """
        def add(a, b):
            return a + b

        def boom():
            raise ValueError("boom from mod")

        def noop():
            return None

        def spin():
            while True:
                pass
    """,
    "helper.py": """
        def explode():
            raise KeyError("helper")
    """,
    "tests/test_behaviour.py": """
        import os
        import unittest

        import pytest

        import helper
        from pkg.mod import add, boom, noop, spin


        def test_passes():
            assert add(1, 2) == 3

        def test_assertion():
            assert add(1, 2) == 4

        def test_not_raised():
            with pytest.raises(ValueError):
                noop()

        def test_unexpected_from_mod():
            boom()

        def test_unexpected_from_helper():
            helper.explode()

        @pytest.fixture
        def broken():
            raise RuntimeError("fixture broke")

        def test_setup_error(broken):
            assert add(1, 2) == 4

        def test_spins():
            spin()

        def test_sees_no_secrets():
            assert "GITHUB_TOKEN" not in os.environ
            assert "AWS_SECRET_ACCESS_KEY" not in os.environ
            assert os.environ["ELENCHUS_PROBE"] == "kept"
            assert os.environ["PYTHONDONTWRITEBYTECODE"] == "1"

        @pytest.mark.skip(reason="never")
        def test_skipped():
            pass


        class UnitCase(unittest.TestCase):
            def test_assert_equal(self):
                self.assertEqual(add(1, 2), 4)
    """,
    "tests/test_import_error.py": """
        import module_that_does_not_exist

        def test_unreachable():
            pass
    """,
}

BEHAVIOUR = "tests/test_behaviour.py"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("workspace"), PROJECT)


def run(project: Path, *tests: str, timeout: float = 60, **kwargs) -> RunResult:
    kwargs.setdefault("env", FAST_ENV)
    return run_pytest(project, list(tests), timeout, mutated_file=MUTATED, **kwargs)


def only(result: RunResult):
    assert result.execution is Execution.COMPLETED, (result.detail, result.stdout_tail, result.stderr_tail)
    assert len(result.records) == 1, result.records
    return result.records[0]


# --- outcomes and attribution ---------------------------------------------------


def test_run_assertion_failure_is_judged_an_attributed_kill(project):
    result = run(project, f"{BEHAVIOUR}::test_assertion")
    record = only(result)
    assert (record.outcome, record.failure_kind) == (TestOutcome.FAILED, FailureKind.ASSERTION)
    assert (result.exit_code, result.passed, result.failed) == (1, 0, 1)
    verdict = judge(result, MUTATED)
    assert verdict.outcome is Outcome.KILLED
    assert verdict.kill == Kill(f"{BEHAVIOUR}::test_assertion", FailureKind.ASSERTION, attributed=True)


def test_run_pytest_raises_not_raised_is_expected_exception_not_raised_and_killed(project):
    result = run(project, f"{BEHAVIOUR}::test_not_raised")
    assert only(result).failure_kind is FailureKind.EXPECTED_EXCEPTION_NOT_RAISED
    verdict = judge(result, MUTATED)
    assert verdict.outcome is Outcome.KILLED and verdict.kill.attributed


def test_run_unexpected_exception_from_the_mutated_module_is_an_attributed_kill(project):
    result = run(project, f"{BEHAVIOUR}::test_unexpected_from_mod")
    record = only(result)
    assert record.failure_kind is FailureKind.UNEXPECTED_EXCEPTION
    assert record.crossed_files == (BEHAVIOUR, MUTATED)  # workspace-relative
    verdict = judge(result, MUTATED)
    assert verdict.outcome is Outcome.KILLED
    assert verdict.kill == Kill(f"{BEHAVIOUR}::test_unexpected_from_mod", FailureKind.UNEXPECTED_EXCEPTION, True)
    # The same file given as an absolute path inside the workspace matches too.
    assert judge(result, str(project / MUTATED)).outcome is Outcome.KILLED


def test_run_unexpected_exception_from_an_unrelated_helper_is_not_an_attributed_kill(project):
    result = run(project, f"{BEHAVIOUR}::test_unexpected_from_helper")
    assert only(result).crossed_files == (BEHAVIOUR, "helper.py")
    verdict = judge(result, MUTATED)
    assert verdict.outcome is Outcome.INCONCLUSIVE
    assert verdict.kill is not None and verdict.kill.attributed is False
    assert "never crossed pkg/mod.py" in verdict.reason


def test_run_import_error_at_collection_is_never_a_kill_and_judged_not_comparable(project):
    result = run(project, "tests/test_import_error.py")
    record = only(result)
    assert record.nodeid == "tests/test_import_error.py"
    assert (record.outcome, record.failure_kind) == (TestOutcome.ERROR, FailureKind.COLLECTION_ERROR)
    verdict = judge(result, MUTATED)
    assert verdict.outcome is Outcome.NOT_COMPARABLE and verdict.kill is None
    assert "collection" in verdict.reason


def test_run_failing_fixture_is_a_setup_error_never_a_kill(project):
    result = run(project, f"{BEHAVIOUR}::test_setup_error")
    record = only(result)
    assert (record.outcome, record.failure_kind) == (TestOutcome.ERROR, FailureKind.SETUP_ERROR)
    verdict = judge(result, MUTATED)
    assert verdict.outcome is Outcome.NOT_COMPARABLE and verdict.kill is None


def test_run_collection_error_beside_a_real_assertion_still_yields_the_kill(project):
    result = run(project, "tests/test_import_error.py", f"{BEHAVIOUR}::test_assertion")
    assert {r.failure_kind for r in result.records} == {FailureKind.COLLECTION_ERROR, FailureKind.ASSERTION}
    assert judge(result, MUTATED).outcome is Outcome.KILLED


def test_run_unittest_assert_equal_failure_is_an_assertion_kill(project):
    result = run(project, f"{BEHAVIOUR}::UnitCase::test_assert_equal")
    assert only(result).failure_kind is FailureKind.ASSERTION
    assert judge(result, MUTATED).outcome is Outcome.KILLED


def test_run_all_passing_tests_are_judged_survived(project):
    result = run(project, f"{BEHAVIOUR}::test_passes", f"{BEHAVIOUR}::test_skipped")
    assert result.execution is Execution.COMPLETED
    assert (result.exit_code, result.passed, result.failed) == (0, 1, 0)
    verdict = judge(result, MUTATED)
    assert (verdict.outcome, verdict.kill) == (Outcome.SURVIVED, None)


def test_run_with_no_tests_collected_is_judged_not_comparable(tmp_path):
    workspace = write_tree(tmp_path / "ws", {"test_nothing.py": "x = 1\n"})
    result = run_pytest(workspace, None, 60, env=FAST_ENV)
    assert (result.execution, result.exit_code) == (Execution.COMPLETED, 5)
    assert judge(result, MUTATED).outcome is Outcome.NOT_COMPARABLE


def test_run_unknown_test_selector_is_an_infrastructure_error_judged_inconclusive(project):
    result = run(project, "tests/test_missing.py")
    assert result.execution is Execution.INFRASTRUCTURE_ERROR
    assert result.exit_code == 4
    assert (result.passed, result.failed) == (None, None)
    verdict = judge(result, MUTATED)
    assert verdict.outcome is Outcome.INCONCLUSIVE
    # the reason quotes what pytest said, so nobody has to find a stderr that was never kept
    assert verdict.reason.startswith("pytest rejected its command line (exit 4) (stderr ends: ")
    assert "tests/test_missing.py" in verdict.reason and "not found" in verdict.reason, verdict.reason
    from elenchus.modes.evaluate import _run_record

    # the evaluation's record of a run without any test's result keeps what pytest said last; one with
    # results needs none
    kept = _run_record("run", "m1", "modified", result, verdict)["stderr"]
    assert kept is not None and "file or directory not found: tests/test_missing.py" in kept
    ran = run(project, "tests/test_behaviour.py::test_passes")
    assert ran.records and _run_record("run", "m1", "modified", ran, judge(ran, MUTATED))["stderr"] is None


def test_a_run_ends_once_its_records_are_written_unless_pytest_still_has_to_say_why(project):
    """After a pass or a failure the records say everything: the run ends there, without pytest's summary
    (its clean-up costs 5 % of a small run). After a usage error pytest still prints the reason."""
    passed = run(project, "tests/test_behaviour.py::test_passes")
    assert passed.execution is Execution.COMPLETED and passed.exit_code == 0 and len(passed.records) == 1
    failed = run(project, "tests/test_behaviour.py::test_assertion")
    assert failed.exit_code == 1 and judge(failed, MUTATED).outcome is Outcome.KILLED
    for ended in (passed, failed):
        assert " passed" not in ended.stdout_tail and " failed" not in ended.stdout_tail, ended.stdout_tail
    rejected = run(project, "tests/test_missing.py")
    assert rejected.exit_code == 4 and "file or directory not found" in rejected.stderr_tail


def test_run_accepts_deselect_pairs_and_refuses_any_other_option_in_the_selection(project):
    result = run(project, f"{BEHAVIOUR}::test_passes", f"{BEHAVIOUR}::test_assertion",
                 "--deselect", f"{BEHAVIOUR}::test_assertion")
    assert only(result).nodeid == f"{BEHAVIOUR}::test_passes"
    for bad in (["-p", "evil"], ["--rootdir=/"], ["--deselect", "-x"]):
        with pytest.raises(ValueError, match="option-like"):
            run(project, *bad)


def test_run_results_are_frozen_records_holding_tuples(project):
    result = run(project, f"{BEHAVIOUR}::test_passes")
    assert isinstance(result.records, tuple) and isinstance(result.command, tuple)
    with pytest.raises(FrozenInstanceError):
        result.exit_code = 1  # type: ignore[misc]
    assert result.started < result.finished and result.duration > 0


# --- timeout and process hygiene -------------------------------------------------


def _pid_alive(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return False
    return "\nState:\tZ" not in status.read_text()


def test_run_infinite_loop_times_out_is_judged_timeout_and_leaves_no_process(project):
    began = time.monotonic()
    result = run(project, f"{BEHAVIOUR}::test_spins", timeout=3)
    elapsed = time.monotonic() - began
    assert result.execution is Execution.TIMED_OUT
    assert elapsed < 5
    assert result.exit_code is None and (result.passed, result.failed) == (None, None)
    # The SIGTERM became a KeyboardInterrupt inside pytest, so the hung test is named.
    assert result.interrupted_at == f"{BEHAVIOUR}::test_spins"
    verdict = judge(result, MUTATED)
    assert (verdict.outcome, verdict.kill) == (Outcome.TIMEOUT, None)
    with pytest.raises(ProcessLookupError):
        os.killpg(result.pid, 0)
    assert not _pid_alive(result.pid)


def test_a_run_killed_before_it_wrote_its_records_still_names_the_test_it_was_running(tmp_path):
    # The test ignores SIGTERM, so no KeyboardInterrupt writes the records: only the grace's SIGKILL ends it.
    workspace = write_tree(tmp_path / "ws", {
        "test_stubborn.py": """
            import os, signal

            def test_first():
                assert True

            def test_ignores_the_timeout():
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                while True:
                    pass

            def test_crashes():
                os.kill(os.getpid(), signal.SIGKILL)
        """,
    })
    result = run_pytest(workspace, None, 3, env=FAST_ENV)
    assert result.execution is Execution.TIMED_OUT and result.records == ()
    assert result.interrupted_at == "test_stubborn.py::test_ignores_the_timeout"
    assert judge(result).reason.endswith("(running test_stubborn.py::test_ignores_the_timeout)")
    crashed = run_pytest(workspace, ["test_stubborn.py::test_first", "test_stubborn.py::test_crashes"], 60,
                         env=FAST_ENV)
    assert crashed.execution is Execution.INFRASTRUCTURE_ERROR and crashed.exit_code == -9
    assert crashed.interrupted_at == "test_stubborn.py::test_crashes"
    assert judge(crashed).reason.startswith("pytest was killed by signal 9")
    assert judge(crashed).reason.endswith("(running test_stubborn.py::test_crashes)")
    finished = run_pytest(workspace, ["test_stubborn.py::test_first"], 60, env=FAST_ENV)
    assert finished.execution is Execution.COMPLETED and finished.interrupted_at is None
    assert [p.name for p in Path(tempfile.gettempdir()).glob("*/records.jsonl.running")] == []


def test_run_kills_a_process_a_test_left_behind_when_the_run_ends(tmp_path):
    marker = f"elenchus-sleeper-{os.getpid()}-{time.monotonic_ns()}"
    workspace = write_tree(tmp_path / "ws", {
        "test_spawns.py": f"""
            import subprocess, sys

            def test_leaves_a_sleeper():
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", {marker!r}])
        """,
    })
    result = run_pytest(workspace, None, 60, env=FAST_ENV)
    assert only(result).outcome is TestOutcome.PASSED
    deadline = time.monotonic() + 2
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _processes_with(marker)


def _processes_with(marker: str) -> list[int]:
    """Host PIDs whose command line holds ``marker`` (PIDs inside a sandbox differ from the host's)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if marker.encode() in handle.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


# --- isolation --------------------------------------------------------------------


def test_run_record_file_lives_outside_the_workspace_and_the_workspace_is_unchanged(project, tmp_path):
    before = tree_digest(project)
    artifacts = tmp_path / "artifacts"
    selected = [f"{BEHAVIOUR}::{name}" for name in (
        "test_passes", "test_assertion", "test_unexpected_from_mod", "test_setup_error", "UnitCase")]
    result = run(project, *selected, "tests/test_import_error.py", artifacts_dir=artifacts)
    assert result.execution is Execution.COMPLETED
    assert len(result.records) == 6
    assert (artifacts / "records.jsonl").is_file()
    assert str(artifacts) in " ".join(result.command)
    assert tree_digest(project) == before


def test_run_removes_its_private_record_directory_after_reading_it(project, tmp_path, monkeypatch):
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))
    result = run(project, f"{BEHAVIOUR}::test_passes")
    assert only(result).outcome is TestOutcome.PASSED
    assert list(private_tmp.iterdir()) == []


def test_run_refuses_artifacts_inside_the_workspace(project):
    with pytest.raises(ValueError, match="outside the workspace"):
        run(project, BEHAVIOUR, artifacts_dir=project / "out")
    assert not (project / "out").exists()


def test_run_environment_is_scrubbed_of_secrets_in_the_subprocess(project):
    env = dict(FAST_ENV, GITHUB_TOKEN="ghp_x", AWS_SECRET_ACCESS_KEY="y", ELENCHUS_PROBE="kept")
    result = run(project, f"{BEHAVIOUR}::test_sees_no_secrets", env=env)
    assert only(result).outcome is TestOutcome.PASSED, result.stdout_tail


def test_run_a_workspace_with_its_own_elenchus_package_does_not_shadow_the_plugin(tmp_path):
    workspace = write_tree(tmp_path / "ws", {
        "elenchus/__init__.py": "",
        "elenchus/execution/plugin.py": "raise RuntimeError('the workspace copy must not be loaded')\n",
        "test_self.py": """
            import elenchus

            def test_imports_the_workspace_package():
                assert elenchus.__file__.startswith(__file__.rsplit("/", 1)[0])
        """,
    })
    result = run_pytest(workspace, None, 60, env=FAST_ENV)
    assert only(result).outcome is TestOutcome.PASSED, (result.stdout_tail, result.stderr_tail)


def test_scrub_environment_drops_secret_variables_and_keeps_ordinary_ones():
    env = {
        "AWS_SECRET_ACCESS_KEY": "a", "AWS_ACCESS_KEY_ID": "b", "GITHUB_TOKEN": "c", "GH_TOKEN": "d",
        "DB_PASSWORD": "e", "STRIPE_API_KEY": "f", "GOOGLE_APPLICATION_CREDENTIALS": "/k.json",
        "SSH_AUTH_SOCK": "/tmp/agent", "MY_SECRET": "g",
        "DATABASE_URL": "postgres://user:hunter2@db/app",
        "PATH": "/usr/bin", "HOME": "/home/u", "PYTHONPATH": "/src", "LANG": "C.UTF-8",
        "KEYBOARD_LAYOUT_PATH": "/x", "DATABASE_URL_LOCAL": "sqlite:///tmp/db", "USER": "u",
    }
    kept = scrub_environment(env)
    assert set(kept) == {"PATH", "HOME", "PYTHONPATH", "LANG", "KEYBOARD_LAYOUT_PATH", "DATABASE_URL_LOCAL", "USER"}
    assert env["GITHUB_TOKEN"] == "c"  # the input is not modified


# --- timeouts and guards -----------------------------------------------------------


def test_timeout_for_is_factor_times_baseline_plus_constant():
    assert timeout_for(2.0, 3) == 11.0
    assert timeout_for(2.0, 3, constant=1.0) == 7.0
    assert timeout_for(0.0, 1.5) == 5.0


@pytest.mark.parametrize("value", [0, -1, "abc", math.nan, 1000, math.inf, True, None, "0", 100.5])
def test_timeout_factor_guard_fires_for_invalid_values(value):
    with pytest.raises(InputGuardError) as caught:
        validate_timeout_factor(value)
    assert caught.value.guard == "timeout-factor"
    assert repr(value) in caught.value.message or str(value) in caught.value.message


@pytest.mark.parametrize(("value", "expected"), [(1, 1.0), (2.5, 2.5), ("3", 3.0), (100, 100.0)])
def test_timeout_factor_guard_accepts_positive_numbers_up_to_100_unchanged(value, expected):
    assert validate_timeout_factor(value) == expected


def test_timeout_for_refuses_a_bad_factor_instead_of_clamping():
    with pytest.raises(InputGuardError):
        timeout_for(1.0, 0)


def test_run_pytest_refuses_a_non_positive_timeout(project):
    with pytest.raises(InputGuardError) as caught:
        run(project, BEHAVIOUR, timeout=0)
    assert caught.value.guard == "timeout"


def test_the_evaluating_process_reads_records_without_importing_pytest():
    import subprocess
    import sys

    # pytest is the runs' own business: importing it cost every command 0.17 s of start-up
    code = ("import sys, elenchus.execution.run, elenchus.modes.evaluate, elenchus.modes.capture, elenchus.commands.replx\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
