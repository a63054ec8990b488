"""End to end: [tool.elenchus] in the repository's pyproject.toml sets what the command line would."""

import json

import pytest

from elenchus.repo import fingerprint
from elenchus import scratch
from elenchus.repo.git import Repository

from tests.conftest import git, run_cli, write_tree

pytestmark = pytest.mark.slow

SETTINGS = '''
[tool.elenchus]
scope = "current-change"
budget = 2
runner = "fresh"
test-selection = "all"
witnesses = false
fail-on = ["unprotected"]
'''


def _demo_with(tmp_path, table: str):
    """The demo, with ``table`` appended to pyproject.toml in the change's commit (a clean tree)."""
    repo = scratch.build("demo", tmp_path / "repo")
    with (repo / "pyproject.toml").open("a") as handle:
        handle.write(table)
    git(repo, "add", "pyproject.toml")
    git(repo, "commit", "-q", "--amend", "--no-edit")
    return repo


def _evaluate(repo, runs, *args):
    done = run_cli("evaluate", "--repo", str(repo), *args, env={"ELENCHUS_RUNS_DIR": str(runs)})
    reports = sorted(runs.glob("*/report.json"))
    return done, json.loads(reports[-1].read_text()) if reports else None


def test_file_settings_apply_and_the_command_line_overrides_them(tmp_path):
    repo = _demo_with(tmp_path, SETTINGS)
    done, report = _evaluate(repo, tmp_path / "runs-file")
    assert done.returncode == 5, done.stderr  # fail-on = ["unprotected"], and the demo has one
    assert {key: report["budget"][key] for key in ("limit", "source")} == {"limit": 2, "source": "explicit"}
    assert report["budget"]["how_chosen"].endswith("the 2 riskiest within the budget of 2 are challenged.")
    assert report["scope"]["option"] == "current-change"
    assert report["execution"]["runner"].startswith("a fresh interpreter per run")
    assert "every relevant test" in report["execution"]["test_selection"]
    assert "the search was turned off" in " ".join(report["notes"])  # witnesses = false
    done, report = _evaluate(repo, tmp_path / "runs-cli", "--budget", "3", "--runner", "warm", "--fail-on",
                             "protection-regression")
    assert done.returncode == 0, done.stderr
    assert report["budget"]["limit"] == 3 and report["execution"]["runner"].startswith("forked from a warm")
    shown = run_cli("config", "--repo", str(repo), "--budget", "3")
    assert shown.returncode == 0, shown.stderr
    lines = {line.split("=")[0].strip(): line for line in shown.stdout.splitlines() if "=" in line}
    assert lines["budget"].endswith("3    [command line]")
    assert lines["runner"].endswith('"fresh"    [pyproject.toml [tool.elenchus]]')
    assert lines["jobs"].endswith("[default]")
    assert lines["witnesses"].endswith("false    [pyproject.toml [tool.elenchus]]")


@pytest.mark.parametrize("table, guard", [
    ("[tool.elenchus]\nbudgett = 4\n", "[tool.elenchus] budgett"),
    ("[tool.elenchus]\nbudget = 0\n", "[tool.elenchus] budget"),
    ("[tool.elenchus]\nallow-command = [\"pytest\"]\n", "[tool.elenchus] allow-command"),
    ("[tool.elenchus]\nisolation = \"none\"\n", "[tool.elenchus] isolation"),
])
def test_a_bad_or_unknown_key_stops_with_exit_2_naming_it_and_changes_nothing(tmp_path, table, guard):
    repo = _demo_with(tmp_path, table)
    before = fingerprint.take(Repository(repo))
    done, report = _evaluate(repo, tmp_path / "runs")
    assert done.returncode == 2, done.stderr
    assert f"input guard '{guard}' fired" in done.stderr and "pyproject.toml" in done.stderr
    assert report is None  # nothing ran
    assert fingerprint.compare(before, fingerprint.take(Repository(repo))) == ()


def test_every_bad_value_is_reported_at_once_with_the_value_seen_what_is_accepted_and_a_near_key(tmp_path):
    repo = _demo_with(tmp_path, '[tool.elenchus]\nbudgett = 4\njobs = "two"\nrunner = "hot"\n'
                                'fail-on = ["unprotectd"]\nallow-network = true\n')
    before = fingerprint.take(Repository(repo))
    done, report = _evaluate(repo, tmp_path / "runs")
    assert done.returncode == 2, done.stderr
    assert report is None  # nothing ran
    assert fingerprint.compare(before, fingerprint.take(Repository(repo))) == ()
    assert "input guard '[tool.elenchus]' fired" in done.stderr and "has 5 settings to fix" in done.stderr
    problems = [line.removeprefix("  - ") for line in done.stderr.splitlines() if line.startswith("  - ")]
    assert len(problems) == 5, done.stderr
    unknown, jobs, runner, fail_on, network = problems  # in the file's order
    assert unknown.startswith("unknown key 'budgett' (set to 4); did you mean 'budget'")
    assert jobs.startswith('jobs = "two": must be a whole number; accepted: Mutant runs in parallel, 1..64')
    assert runner.startswith('runner = "hot": must be one of "collected", "warm", "fresh"')
    assert fail_on.startswith('fail-on[0] = "unprotectd": must be one of ') and "did you mean 'unprotected'?" in fail_on
    assert network.startswith("allow-network = true: Not accepted here") and "--allow-network" in network


def test_a_scope_from_the_file_is_reported_as_the_files_and_a_scope_given_on_the_command_line_replaces_it(
        tmp_path):
    repo = _demo_with(tmp_path, '[tool.elenchus]\nscope = "current-change"\nrunner = "fresh"\n')
    done, report = _evaluate(repo, tmp_path / "runs-file", "--budget", "1", "--no-witnesses")
    assert done.returncode == 0, done.stderr
    assert "Scope: current-change (from [tool.elenchus] in pyproject.toml); 1 mutant(s)" in done.stderr
    assert report["scope"]["reason"].startswith('Taken from [tool.elenchus] in pyproject.toml '
                                                '(scope = "current-change").')
    assert "--scope" not in report["scope"]["reason"]
    # the file's target goes with the file's scope: a scope given on the command line runs without it
    repo = _demo_with(tmp_path / "target", '[tool.elenchus]\nscope = "target"\ntarget = "src"\nrunner = "fresh"\n')
    done, report = _evaluate(repo, tmp_path / "runs-cli", "--scope", "current-change", "--budget", "1",
                             "--no-witnesses")
    assert done.returncode == 0, done.stderr
    assert report["scope"]["option"] == "current-change" and report["scope"]["target"] is None
    assert report["scope"]["reason"].startswith("Chosen with --scope.")
    assert "Scope: current-change; 1 mutant(s)" in done.stderr


def test_tests_named_otherwise_are_found_once_test_patterns_names_them_and_the_blocked_baseline_says_how(tmp_path):
    # titlecase keeps its tests in `titlecase/tests.py`, which no default pattern names
    repo = write_tree(tmp_path / "repo", {
        "shop/__init__.py": "def double(n):\n    return n * 2\n",
        "shop/tests.py": "import unittest\n\nfrom shop import double\n\n\nclass T(unittest.TestCase):\n"
                         "    def test_double(self):\n        self.assertEqual(double(2), 4)\n",
        "pyproject.toml": SETTINGS.replace('fail-on = ["unprotected"]\n', ""),
    })
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "shop" / "__init__.py").write_text("def double(n):\n    return n + n\n")
    git(repo, "commit", "-q", "-am", "change")
    done, report = _evaluate(repo, tmp_path / "runs-default")
    assert "Baseline, modified: blocked" in done.stderr, done.stderr
    assert 'test-patterns = ["test_*.py", "*_test.py", "tests.py"]' in done.stderr, done.stderr
    with (repo / "pyproject.toml").open("a") as handle:
        handle.write('test-patterns = ["test_*.py", "*_test.py", "tests.py"]\n')
    git(repo, "commit", "-q", "-am", "name the tests")
    done, report = _evaluate(repo, tmp_path / "runs-named", "--base", "HEAD~2")
    assert "Baseline, modified: green" in done.stderr, done.stderr
    assert report["mutations"] and all(m["result"] == "killed" for m in report["mutations"]), report["mutations"]
