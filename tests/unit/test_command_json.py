"""`elenchus changes` and `elenchus mutants` write what they print as JSON where `--json PATH` asks."""

import json
import re

import pytest

from tests.conftest import git, run_cli


def test_changes_json_holds_what_the_command_prints(build_scenario, tmp_path):
    repo = build_scenario("demo")
    target = tmp_path / "changes.json"
    done = run_cli("changes", "--repo", str(repo), "--json", str(target))
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith(f"JSON written to {target}")
    answer = json.loads(target.read_text())
    assert answer["snapshots"]["head"]["sha"] == git(repo, "rev-parse", "HEAD").strip()
    assert answer["snapshots"]["base"]["sha"] == git(repo, "rev-parse", "HEAD~1").strip()
    assert answer["snapshots"]["derivation"].split("\n")[0] in done.stdout
    shown = int(re.search(r"Production files changed \((\d+)\)", done.stdout).group(1))
    assert len(answer["production_files"]) == shown > 0
    for path in answer["production_files"]:
        assert f"  {path} (modified)" in done.stdout
    assert answer["test_files_added"] == ["tests/test_tags.py"] and "Tests added (1):\n  tests/test_tags.py" in \
        done.stdout
    assert answer["functions"], "the demo changes functions"
    for fn in answer["functions"]:
        assert f"  {fn['path']}:{fn['start']}-{fn['end']} {fn['qualname']} ({fn['status']};" in done.stdout
        assert fn["lines_at"] == "head" and set(fn["changed_lines"]) <= set(range(fn["start"], fn["end"] + 1))
    assert answer["post_flight"] == {"worktree_unchanged": True, "changes": []}


def test_mutants_json_holds_the_plan_the_command_prints(build_scenario, tmp_path):
    repo = build_scenario("demo")
    target = tmp_path / "mutants.json"
    done = run_cli("mutants", "--repo", str(repo), "--budget", "3", "--json", str(target))
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith(f"JSON written to {target}")
    answer = json.loads(target.read_text())
    assert answer["budget"] == {"limit": 3} and answer["scope"] == {"option": "current-change", "target": None}
    assert len(answer["mutants"]) == 3
    for number, mutant in enumerate(answer["mutants"], start=1):
        location = mutant["location"]
        assert f"{number}. {location['path']}:{location['line']} {location['symbol']} (rank {mutant['rank']}" \
            in done.stdout
        assert f"   Incident: {mutant['incident']}\n" in done.stdout
        assert mutant["diff"].splitlines()[0] == f"--- a/{location['path']}"
    beyond = int(re.search(r"Not challenged \((\d+), beyond the budget\)", done.stdout).group(1))
    assert len(answer["not_challenged"]) == beyond > 0
    assert all(m["reason"] == "beyond the mutation budget of 3" for m in answer["not_challenged"])
    rejected = int(re.search(r"Rejected before running \((\d+)\)", done.stdout).group(1))
    assert len(answer["rejected"]) == rejected
    assert answer["contract"]["provisional"] is True and answer["contract"]["items"]
    assert f"Contract: {answer['contract']['source']} (provisional)" in done.stdout
    assert answer["post_flight"] == {"worktree_unchanged": True, "changes": []}


@pytest.mark.parametrize("command", ["changes", "mutants"])
def test_a_json_path_that_cannot_be_written_stops_before_anything_runs(build_scenario, tmp_path, command):
    repo = build_scenario("demo")
    done = run_cli(command, "--repo", str(repo), "--json", str(tmp_path / "missing" / "out.json"))
    assert done.returncode == 2
    assert "input guard 'json' fired: the directory" in done.stderr and "does not exist" in done.stderr
    assert done.stdout == ""  # not even the narration of Base and Head: nothing ran
    done = run_cli(command, "--repo", str(repo), "--json", str(tmp_path))
    assert done.returncode == 2 and "is a directory; name a file" in done.stderr and done.stdout == ""


def test_a_junit_path_that_cannot_be_written_stops_evaluate_before_anything_runs(build_scenario, tmp_path):
    repo = build_scenario("demo")
    runs = tmp_path / "runs"
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--junit",
                   str(tmp_path / "missing" / "report.junit.xml"), env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert done.returncode == 2, done.stderr
    assert "input guard 'junit' fired: the directory" in done.stderr and "(nothing was run)" in done.stderr
    assert not runs.exists()
