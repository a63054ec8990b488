"""The Elenchus pytest plugin, black-box: real pytest subprocesses on tmp_path projects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write_tree

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/mod.py": """
        def add(a, b):
            return a + b

        def boom():
            raise ValueError("boom from mod")

        def noop():
            return None
    """,
    "helper.py": """
        def explode():
            raise KeyError("helper")
    """,
    "test_kinds.py": """
        import unittest

        import pytest

        import helper
        from pkg.mod import add, boom, noop


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

        def test_explicit_fail():
            pytest.fail("explicit")

        @pytest.fixture
        def broken():
            raise RuntimeError("fixture broke")

        def test_setup_error(broken):
            pass

        @pytest.fixture
        def broken_teardown():
            yield
            raise RuntimeError("teardown broke")

        def test_teardown_error(broken_teardown):
            pass

        def test_skipped():
            pytest.skip("not today")

        @pytest.mark.xfail
        def test_xfailed():
            assert False

        @pytest.mark.xfail
        def test_xpassed():
            pass


        class UnitCase(unittest.TestCase):
            def test_assert_equal(self):
                self.assertEqual(add(1, 2), 4)

            def test_assert_raises(self):
                with self.assertRaises(ValueError):
                    noop()

            def test_assert_raises_callable(self):
                self.assertRaises(ValueError, noop)

            def test_unexpected(self):
                boom()

            def test_passes(self):
                self.assertEqual(add(1, 2), 3)


        class BrokenSetUp(unittest.TestCase):
            def setUp(self):
                raise RuntimeError("setUp broke")

            def test_never_runs(self):
                pass


        class BrokenTearDown(unittest.TestCase):
            def tearDown(self):
                raise RuntimeError("tearDown broke")

            def test_body_passes(self):
                pass
    """,
    "test_collect_error.py": """
        import module_that_does_not_exist

        def test_unreachable():
            pass
    """,
}


def run_recorded(project: Path, record: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    env.pop("PYTEST_ADDOPTS", None)
    command = [sys.executable, "-m", "pytest", "-p", "elenchus.execution.plugin", "-q", "-p", "no:cacheprovider"]
    if record is not None:
        command += ["--elenchus-record", str(record)]
    return subprocess.run(
        [*command, *args], cwd=project, env=env, capture_output=True, text=True, timeout=60
    )


def read_lines(record: Path) -> tuple[dict[str, dict], dict]:
    tests, session = {}, {}
    for line in record.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        if "session" in data:
            session = data["session"]
        else:
            tests[data["nodeid"]] = data
    return tests, session


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict], dict, Path]:
    project = write_tree(tmp_path_factory.mktemp("project"), PROJECT)
    record = tmp_path_factory.mktemp("records") / "records.jsonl"
    completed = run_recorded(project, record, "--continue-on-collection-errors")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    tests, session = read_lines(record)
    return tests, session, project


def test_plugin_writes_one_line_per_test_with_every_field(recorded):
    tests, session, _ = recorded
    assert len(tests) == 19
    for line in tests.values():
        assert set(line) == {
            "nodeid", "outcome", "duration", "failure_kind", "crossed_files", "exception_type", "message", "check",
        }
        assert line["outcome"] in ("passed", "failed", "skipped", "error", "xfailed", "xpassed")
        assert line["duration"] >= 0
    assert session["exitstatus"] == 1
    assert session["interrupted_at"] is None


def test_plugin_records_a_passing_test_without_failure_fields(recorded):
    line = recorded[0]["test_kinds.py::test_passes"]
    assert line["outcome"] == "passed"
    assert line["failure_kind"] is None and line["message"] is None and line["crossed_files"] == []


def test_plugin_classifies_a_rewritten_assert_as_assertion(recorded):
    line = recorded[0]["test_kinds.py::test_assertion"]
    assert (line["outcome"], line["failure_kind"], line["exception_type"]) == ("failed", "assertion", "AssertionError")
    assert line["message"] == "assert 3 == 4"


def test_plugin_classifies_pytest_raises_did_not_raise_as_expected_exception_not_raised(recorded):
    line = recorded[0]["test_kinds.py::test_not_raised"]
    assert line["failure_kind"] == "expected-exception-not-raised"
    assert line["message"].startswith("DID NOT RAISE")


def test_plugin_records_the_files_an_unexpected_exception_crossed(recorded):
    tests, _, project = recorded
    line = tests["test_kinds.py::test_unexpected_from_mod"]
    assert (line["failure_kind"], line["exception_type"]) == ("unexpected-exception", "ValueError")
    crossed = [Path(p) for p in line["crossed_files"]]
    assert crossed == [project / "test_kinds.py", project / "pkg" / "mod.py"]


def test_plugin_records_an_exception_from_a_helper_as_crossing_only_the_helper(recorded):
    tests, _, project = recorded
    line = tests["test_kinds.py::test_unexpected_from_helper"]
    assert line["failure_kind"] == "unexpected-exception"
    assert [Path(p) for p in line["crossed_files"]] == [project / "test_kinds.py", project / "helper.py"]


def test_plugin_classifies_an_explicit_pytest_fail_as_assertion(recorded):
    assert recorded[0]["test_kinds.py::test_explicit_fail"]["failure_kind"] == "assertion"


def test_plugin_classifies_a_failing_fixture_as_setup_error(recorded):
    line = recorded[0]["test_kinds.py::test_setup_error"]
    assert (line["outcome"], line["failure_kind"], line["message"]) == ("error", "setup-error", "fixture broke")


def test_plugin_classifies_a_failing_fixture_teardown_as_setup_error(recorded):
    line = recorded[0]["test_kinds.py::test_teardown_error"]
    assert (line["outcome"], line["failure_kind"]) == ("error", "setup-error")


def test_plugin_records_skip_xfail_and_xpass_outcomes(recorded):
    tests = recorded[0]
    assert tests["test_kinds.py::test_skipped"]["outcome"] == "skipped"
    assert tests["test_kinds.py::test_xfailed"]["outcome"] == "xfailed"
    assert tests["test_kinds.py::test_xpassed"]["outcome"] == "xpassed"
    assert all(tests[n]["failure_kind"] is None for n in (
        "test_kinds.py::test_skipped", "test_kinds.py::test_xfailed", "test_kinds.py::test_xpassed"))


def test_plugin_classifies_unittest_assert_equal_as_assertion(recorded):
    line = recorded[0]["test_kinds.py::UnitCase::test_assert_equal"]
    assert (line["outcome"], line["failure_kind"], line["message"]) == ("failed", "assertion", "3 != 4")


def test_plugin_classifies_unittest_assert_raises_as_expected_exception_not_raised(recorded):
    tests = recorded[0]
    assert tests["test_kinds.py::UnitCase::test_assert_raises"]["failure_kind"] == "expected-exception-not-raised"
    callable_form = tests["test_kinds.py::UnitCase::test_assert_raises_callable"]
    assert callable_form["failure_kind"] == "expected-exception-not-raised"
    assert callable_form["message"] == "ValueError not raised by noop"


def test_plugin_classifies_unittest_exceptions_like_pytest_ones(recorded):
    tests, _, project = recorded
    unexpected = tests["test_kinds.py::UnitCase::test_unexpected"]
    assert unexpected["failure_kind"] == "unexpected-exception"
    assert str(project / "pkg" / "mod.py") in unexpected["crossed_files"]
    assert tests["test_kinds.py::UnitCase::test_passes"]["outcome"] == "passed"


def test_plugin_classifies_unittest_setup_and_teardown_failures_as_setup_error(recorded):
    # unittest runs setUp/tearDown inside pytest's "call" phase; the plugin still
    # reports them as the fixture errors they are, never as failures of the test body.
    tests = recorded[0]
    set_up = tests["test_kinds.py::BrokenSetUp::test_never_runs"]
    assert (set_up["outcome"], set_up["failure_kind"], set_up["message"]) == ("error", "setup-error", "setUp broke")
    tear_down = tests["test_kinds.py::BrokenTearDown::test_body_passes"]
    assert (tear_down["outcome"], tear_down["failure_kind"]) == ("error", "setup-error")


def test_plugin_records_an_import_error_as_collection_error_of_the_module(recorded):
    line = recorded[0]["test_collect_error.py"]
    assert (line["outcome"], line["failure_kind"]) == ("error", "collection-error")
    assert line["exception_type"] == "ModuleNotFoundError"
    assert "module_that_does_not_exist" in line["message"]


def test_plugin_is_inactive_without_the_record_option(tmp_path):
    project = write_tree(tmp_path / "p", {"test_one.py": "def test_one():\n    assert True\n"})
    completed = run_recorded(project, None)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert sorted(p.name for p in project.iterdir()) == ["test_one.py"]


def test_plugin_still_writes_the_record_file_when_the_session_is_interrupted(tmp_path):
    project = write_tree(tmp_path / "p", {
        "test_stop.py": """
            def test_first():
                pass

            def test_interrupts():
                raise KeyboardInterrupt

            def test_never_reached():
                pass
        """,
    })
    record = tmp_path / "out" / "records.jsonl"
    completed = run_recorded(project, record)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    tests, session = read_lines(record)
    assert tests["test_stop.py::test_first"]["outcome"] == "passed"
    assert "test_stop.py::test_never_reached" not in tests
    assert session["exitstatus"] == 2
    assert session["interrupted_at"] == "test_stop.py::test_interrupts"


def test_hypothesis_is_imported_by_a_recorded_run_only_when_a_test_used_it(tmp_path):
    """Hypothesis's autoloaded plugin imports all of Hypothesis (over a second) in its terminal summary,
    even when no test used it: a recorded run leaves that summary out then, and only then."""
    project = write_tree(tmp_path / "p", {
        "conftest.py": """
            import sys

            def pytest_unconfigure(config):
                plugin = config.pluginmanager.get_plugin("hypothesispytest")
                with open("state.txt", "w") as out:
                    out.write(f"{'hypothesis' in sys.modules} {plugin is not None}")
        """,
        "test_plain.py": "def test_one():\n    assert True\n",
        "test_uses.py": """
            from hypothesis import given, strategies as st

            @given(st.integers())
            def test_any(n):
                assert n == n
        """,
    })
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    env.pop("PYTEST_ADDOPTS", None)

    def state(*args: str) -> str:
        command = [sys.executable, "-m", "pytest", "-p", "elenchus.execution.plugin", "-q", "-p", "no:cacheprovider",
                   "-p", "no:xdist", *args]
        done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return (project / "state.txt").read_text()

    assert state("test_plain.py") == "True True"  # without recording, pytest as usual: the summary imports it
    assert state("--elenchus-record", str(tmp_path / "a.jsonl"), "test_plain.py") == "False False"
    assert state("--elenchus-record", str(tmp_path / "b.jsonl"), "test_uses.py") == "True True"
    tests, _ = read_lines(tmp_path / "b.jsonl")
    assert tests["test_uses.py::test_any"]["outcome"] == "passed"
