"""End to end: `elenchus harden` proposes verified tests for confirmed intent, and writes them only on --apply."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from elenchus.repo import fingerprint
from elenchus.repo.git import Repository
from elenchus.repo.patching import apply as apply_patch
from elenchus.resources import data_dir
from elenchus.schemas import validate

from tests.conftest import git, run_cli

pytestmark = pytest.mark.slow

GUARD = "the early return `if whole == 0: return 0.0` was removed"


def _harden(repo: Path, runs: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict | None, dict | None]:
    done = run_cli("harden", "--repo", str(repo), *args, env={"ELENCHUS_RUNS_DIR": str(runs)})
    handoffs = sorted(runs.glob("*/test-handoff.json"))
    if not handoffs:
        return done, None, None
    report = json.loads((handoffs[-1].parent / "report.json").read_text())
    return done, report, json.loads(handoffs[-1].read_text())


def _pytest(repo: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
                          cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(repo / "src"), "PYTHONDONTWRITEBYTECODE": "1"})


def test_harden_proposes_a_verified_test_in_the_projects_style_and_apply_writes_it(build_scenario, tmp_path):
    repo = build_scenario("harden")
    runs = tmp_path / "runs"
    before = fingerprint.take(Repository(repo))
    done, report, handoff = _harden(repo, runs)
    assert done.returncode == 0, done.stderr
    assert fingerprint.compare(before, fingerprint.take(Repository(repo))) == ()  # review-only
    assert not list(repo.glob("tests/test_elenchus_*"))
    validate("test-handoff", handoff)
    validate("mutation-report", report)
    assert report["mode"] == "harden" and report["scope"]["option"] == "confirmed-intent"
    assert {(m["location"]["path"], m["location"]["symbol"]) for m in report["mutations"]} == {
        ("src/batching/ratio.py", "ratio")}  # only what the confirmed item anchors
    proposal = next(p for p in handoff["probes"] if GUARD in p["incident"])
    assert proposal["contract_id"] == "C1"
    assert proposal["path"].startswith("tests/test_elenchus_ratio_")  # beside tests/test_ratio.py
    source = proposal["test_source"]
    assert "class TestRatioWitness(unittest.TestCase):" in source  # the nearest test file's style
    assert "self.assertAlmostEqual(ratio(1, 0), 0.0)" in source and "pytest" not in source
    assert [run["on"] for run in proposal["verification_runs"]] == ["reference", "mutant"]
    assert handoff["apply"] == {"requested": False, "written": []}
    assert "# Elenchus hardening" in done.stdout and "Nothing was written to the repository" in done.stdout
    # In words a newcomer reads: where the contract came from, and that the test passes on Head.
    assert "- Contract: the repository's intent contract (" in done.stdout and "socratic (" not in done.stdout
    assert "- Verified: passes on Head and, on mutant " in done.stdout and "the reference" not in done.stdout
    assert f"elenchus harden --apply {runs}" in done.stdout

    # By hand: the test passes on Head and fails on the mutant, at its assertion.
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".git"))
    (copy / proposal["path"]).write_text(source)
    assert _pytest(copy).returncode == 0
    mutation = next(m for m in report["mutations"] if m["id"] == proposal["id"])
    apply_patch(copy, mutation["diff"])
    failed = _pytest(copy)
    assert failed.returncode == 1 and "ZeroDivisionError" in failed.stdout

    applied = run_cli("harden", "--repo", str(repo), "--apply", str(sorted(runs.glob("*/test-handoff.json"))[-1]),
                      env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert applied.returncode == 0, applied.stderr
    written = sorted(p.relative_to(repo).as_posix() for p in repo.glob("tests/test_elenchus_*"))
    assert written == sorted(p["path"] for p in handoff["probes"])
    assert f"Wrote {proposal['path']}" in applied.stdout
    assert _pytest(repo).returncode == 0  # the project's suite passes with the new tests

    again, report, handoff = _harden(repo, runs)
    assert again.returncode == 0, again.stderr
    comparison = next(c for c in report["comparisons"] if c["mutation_id"] == proposal["id"])
    assert comparison["modified"]["result"] == "killed"
    # The run stops at its first failed test, and the other written test may catch this mutant too.
    assert comparison["modified"]["kill"]["test"].split("::")[0] in written
    assert handoff["probes"] == [] and handoff["unproven"] == []


def test_harden_stops_before_any_mutant_on_intent_nobody_confirmed(build_scenario, tmp_path):
    repo = build_scenario("harden")
    contract = json.loads((repo / ".socratic" / "intent-contract.json").read_text())
    contract["items"][0]["status"] = "needs-decision"
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(contract))
    done, report, _ = _harden(repo, tmp_path / "runs", "--contract", str(path))
    assert done.returncode == 3, done.stderr
    assert "C1 (needs-decision: ratio gives the share" in done.stderr
    assert '"status" to "confirmed"' in done.stderr and "Nothing was mutated" in done.stderr
    assert report is None and not list((tmp_path / "runs").glob("*/runs.jsonl"))


def test_apply_refuses_when_the_working_tree_moved_and_writes_nothing(build_scenario, tmp_path):
    repo = build_scenario("harden")
    runs = tmp_path / "runs"
    done, _, handoff = _harden(repo, runs)
    assert done.returncode == 0 and handoff["probes"], done.stderr
    (repo / "src" / "batching" / "ratio.py").write_text((repo / "src" / "batching" / "ratio.py").read_text()
                                                         + "\n# edited after harden\n")
    applied = run_cli("harden", "--repo", str(repo), "--apply", str(next(runs.glob("*/test-handoff.json"))),
                      env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert applied.returncode == 4, applied.stderr
    assert "Head moved since the tests were proposed" in applied.stderr and "nothing was written" in applied.stderr
    assert not list(repo.glob("tests/test_elenchus_*"))


def test_hosted_harden_fills_only_the_editable_fields(build_scenario, tmp_path):
    repo = build_scenario("harden")
    contract = {**json.loads((repo / ".socratic" / "intent-contract.json").read_text()), "change_id": "ratio-guard"}
    scaffold = json.loads((data_dir("fixtures") / "host" / "scaffold.example.json").read_text())
    scaffold["host"] = {"scope": {"option": "current-change", "target": None, "reason": "the host's choice"},
                        "mode": "harden", "repo": str(repo), "reference": "HEAD~1", "proposed": "HEAD",
                        "contract": contract}
    source = tmp_path / "scaffold.json"
    source.write_text(json.dumps(scaffold))
    answer_path = tmp_path / "answer.json"
    before = fingerprint.take(Repository(repo))
    done = run_cli("host", "--scaffold", str(source), "--out", str(answer_path),
                   env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    assert fingerprint.compare(before, fingerprint.take(Repository(repo))) == ()
    answer = json.loads(answer_path.read_text())
    editable = {field.strip("/") for field in scaffold["editable_fields"]}
    for key, value in scaffold["document"].items():
        if key not in editable:
            assert answer[key] == value
    assert answer["evidence"]["mode"] == "harden"
    assert answer["evidence"]["scope"]["reason"] == "the host's choice"
    assert any(r["category"] == "unprotected" and GUARD in json.dumps(r) for r in answer["risks"])
    assert (next((tmp_path / "runs").iterdir()) / "test-handoff.json").is_file()
    # the host's change is named, and hardening's own scope is not called the host's
    assert contract.get("change_id") and answer["evidence"]["contract"]["change_id"] == contract["change_id"]
    assert answer["evidence"]["scope"]["option"] == "confirmed-intent"
    assert answer["evidence"]["scope"]["inherited"] is False


def test_the_handoff_names_the_revision_hardened_not_the_checkouts_head(build_scenario, tmp_path):
    repo = build_scenario("harden")
    hardened = Repository(repo).resolve("HEAD")
    (repo / "NOTES.md").write_text("a later commit\n")
    git(repo, "add", "NOTES.md")
    git(repo, "commit", "-qm", "a later commit")
    assert Repository(repo).resolve("HEAD") != hardened
    done, report, handoff = _harden(repo, tmp_path / "runs", "--head", hardened)
    assert done.returncode == 0, done.stderr
    assert report["snapshots"]["head"]["sha"] == hardened
    assert handoff["reference"]["sha"] == hardened
    summary = next((tmp_path / "runs").glob("*/harden.md")).read_text()
    assert f"(on commit {hardened[:10]})" in summary
