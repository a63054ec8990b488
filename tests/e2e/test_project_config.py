"""End to end: [tool.elenchus] in the repository's pyproject.toml sets what the command line would."""

import json

import pytest

from elenchus import fingerprint, scratch
from elenchus.git import Repository

from tests.conftest import git, run_cli

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
    assert report["budget"] == {"limit": 2, "source": "explicit"}
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
