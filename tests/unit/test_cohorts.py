import pytest

from elenchus.execution.cohorts import build_cohorts, selected_tests, unneeded_plugins
from elenchus.execution.run import Execution, run_pytest
from elenchus.repo.session import open_session

from tests.conftest import write_tree

ALL_SKIPPABLE = ("hypothesispytest", "platformdirs", "xdist", "xdist.looponfail")


def test_cohorts_existing_holds_head_production_with_the_pre_change_tests(build_scenario, tmp_path):
    with open_session(build_scenario("weakened-test"), None, None) as session:
        tests = selected_tests(session.change, session.head)
        existing, modified = build_cohorts(session.change, session.base, session.head, tmp_path, tests)
        assert (existing.template / "tests/test_core.py").read_text() == session.base.read("tests/test_core.py")
        assert (modified.template / "tests/test_core.py").read_text() == session.head.read("tests/test_core.py")
        for cohort in (existing, modified):
            assert (cohort.template / "src/batching/core.py").read_text() == session.head.read(
                "src/batching/core.py")
        assert existing.same_as is None and tests == ("tests/test_core.py",)


def test_cohorts_without_a_test_change_share_one_template(build_scenario, tmp_path):
    with open_session(build_scenario("baseline-red"), None, None) as session:
        tests = selected_tests(session.change, session.head)
        existing, modified = build_cohorts(session.change, session.base, session.head, tmp_path, tests)
    assert existing.same_as == "modified" and existing.template == modified.template


def _two_commits(repo, first: dict, second: dict) -> None:
    from tests.conftest import git

    write_tree(repo, first)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    write_tree(repo, second)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two")


CODE = "def f():\n    return 1\n"
USES = "import unittest\n\nfrom pkg.mod import f\n\n\nclass T(unittest.TestCase):\n    def test(self):\n" \
       "        self.assertEqual(f(), 1)\n"


@pytest.mark.parametrize(("files", "expected"), [
    # a helper and a check kept out of the suite sit beside the tests: pytest collects neither by name
    ({"tests/test_mod.py": USES, "tests/exhaustive.py": USES, "tests/definitions.py": "from pkg.mod import f\n"},
     ("tests/test_mod.py",)),
    # the project's own python_files names its tests
    ({"pytest.ini": "[pytest]\npython_files = check_*.py\n", "tests/check_mod.py": USES, "tests/test_old.py": USES},
     ("tests/check_mod.py",)),
    ({"setup.cfg": "[tool:pytest]\npython_files =\n    check_*.py\n    test_*.py\n", "tests/check_mod.py": USES,
      "tests/test_mod.py": USES, "tests/helpers.py": USES}, ("tests/check_mod.py", "tests/test_mod.py")),
    # no test of the project is named as pytest collects them: every one is run, by path
    ({"tests/mod_tests.py": USES, "tests/more_tests.py": USES}, ("tests/mod_tests.py", "tests/more_tests.py")),
])
def test_the_tests_run_are_the_files_pytest_collects_by_name_where_the_project_names_them_so(tmp_path, files,
                                                                                               expected):
    repo = tmp_path / "repo"
    _two_commits(repo, {"pkg/__init__.py": "", "pkg/mod.py": CODE, **files},
                 {"pkg/mod.py": CODE.replace("1", "2")})
    with open_session(repo, None, None) as session:
        assert selected_tests(session.change, session.head) == expected


def test_cohorts_skip_the_hypothesis_plugin_only_for_suites_that_never_mention_it(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_a.py").write_text("def test_a():\n    assert 1 + 1 == 2\n")
    assert unneeded_plugins(tmp_path, ("tests/test_a.py",)) == ALL_SKIPPABLE
    (tmp_path / "tests/test_b.py").write_text("from hypothesis import given\n")
    assert unneeded_plugins(tmp_path, ("tests/test_a.py", "tests/test_b.py")) == (
        "platformdirs", "xdist", "xdist.looponfail")


@pytest.mark.parametrize("files", [
    {"tests/test_w.py": "def test_w(worker_id):\n    assert worker_id == 'master'\n"},  # an xdist fixture
    {"tests/conftest.py": "pytest_plugins = ['helpers']\n",  # ... from a helper module
     "tests/helpers.py": "import pytest\n\n@pytest.fixture\ndef slot(testrun_uid):\n    return testrun_uid\n",
     "tests/test_w.py": "def test_w(slot):\n    assert slot\n"},
    {"pytest.ini": "[pytest]\naddopts = -n 1\n", "tests/test_w.py": "def test_w():\n    assert True\n"},
    {"pytest.ini": "[pytest]\naddopts = -nauto\n", "tests/test_w.py": "def test_w():\n    assert True\n"},
])
def test_a_suite_that_uses_xdist_keeps_it_and_runs_green(tmp_path, files, installed_plugins):
    write_tree(tmp_path, files)
    disabled = unneeded_plugins(tmp_path, ("tests/test_w.py",))
    assert "xdist" not in disabled and "xdist.looponfail" not in disabled
    assert {"hypothesispytest", "platformdirs"} <= set(disabled)
    kept = run_pytest(tmp_path, ["tests/test_w.py"], 120, disabled_plugins=disabled)
    assert _green(kept), (kept.execution, kept.detail, kept.records)
    if "pytest.ini" not in files:  # (under -n the records come from xdist's workers, not this process)
        assert [r.outcome for r in kept.records] == ["passed"]
    # (and skipping it would have broken that suite: the check above is what keeps it)
    skipped = run_pytest(tmp_path, ["tests/test_w.py"], 120, disabled_plugins=(*disabled, "xdist", "xdist.looponfail"))
    assert not _green(skipped)


def _green(result) -> bool:
    """The run completed and no test it recorded failed (under ``-n`` the tests run in xdist's workers)."""
    return result.execution is Execution.COMPLETED and all(r.outcome == "passed" for r in result.records)


def test_plugins_named_only_in_pytest_addopts_of_the_environment_are_kept(tmp_path, monkeypatch):
    write_tree(tmp_path, {"tests/test_a.py": "def test_a():\n    assert True\n"})
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:randomly --dist=loadfile")
    assert unneeded_plugins(tmp_path, ("tests/test_a.py",)) == ("hypothesispytest", "platformdirs")
