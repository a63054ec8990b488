"""End to end: `elenchus host` answers a Runner scaffold for a real repository."""

import json
import subprocess
import sys

import pytest

from elenchus.resources import data_dir

pytestmark = pytest.mark.slow

AUDIT = """
import sys, json
opened = []
def hook(event, args):
    if event == "open" and isinstance(args[0], str) and "schema" in args[0] and args[0].endswith(".json"):
        opened.append(args[0])
sys.addaudithook(hook)
from elenchus.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    print("OPENED", json.dumps(opened))
    raise
"""


def test_host_fills_only_editable_fields_with_the_four_blocks_using_the_host_scope(build_scenario, tmp_path):
    repo = build_scenario("weakened-test")
    scaffold = json.loads((data_dir("fixtures") / "host" / "scaffold.example.json").read_text())
    scaffold["host"].update({"repo": str(repo), "base": "HEAD"})
    scaffold["host"]["scope"] = {"option": "changed-tests", "target": None, "reason": "the host asked the user"}
    source = tmp_path / "scaffold.json"
    source.write_text(json.dumps(scaffold))
    answer_path = tmp_path / "answer.json"
    done = subprocess.run([sys.executable, "-c", AUDIT, "host", "--scaffold", str(source), "--out",
                           str(answer_path)], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env={**__import__("os").environ, "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    assert "OPENED []" in done.stdout, "a schema file was opened in hosted mode"
    assert "Which scope" not in done.stdout
    answer = json.loads(answer_path.read_text())
    editable = {field.strip("/") for field in scaffold["editable_fields"]}
    for key, value in scaffold["document"].items():
        if key not in editable:
            assert answer[key] == value
    for block in ("evidence", "protection", "risks", "decisions"):
        assert block in answer
    assert answer["evidence"]["scope"]["option"] == "changed-tests"
    assert answer["evidence"]["scope"]["inherited"] is True
    assert answer["evidence"]["scope"]["reason"] == "the host asked the user"
    assert any(risk["category"] == "protection-regression" for risk in answer["risks"])
    assert any("Keep the removed check?" in d["question"] for d in answer["decisions"])


def test_host_capture_mode_puts_the_weak_catch_into_decisions(build_scenario, tmp_path):
    repo = build_scenario("capture-off-by-one")
    scaffold = json.loads((data_dir("fixtures") / "host" / "scaffold.example.json").read_text())
    scaffold["host"] = {"scope": {"option": "current-change", "target": None, "reason": "the host's choice"},
                        "mode": "capture", "repo": str(repo), "reference": "HEAD~1", "proposed": "HEAD",
                        "budget": 3, "contract": {"change_id": "chunk-fix", "items": []}}
    source = tmp_path / "scaffold.json"
    source.write_text(json.dumps(scaffold))
    answer_path = tmp_path / "answer.json"
    done = subprocess.run([sys.executable, "-c", AUDIT, "host", "--scaffold", str(source), "--out",
                           str(answer_path)], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env={**__import__("os").environ, "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    assert "OPENED []" in done.stdout, "a schema file was opened in hosted mode"
    answer = json.loads(answer_path.read_text())
    assert answer["evidence"]["mode"] == "capture"
    kinds = [d["kind"] for d in answer["decisions"]]
    assert "behaviour-difference" in kinds
    difference = answer["decisions"][kinds.index("behaviour-difference")]
    assert "chunks([1, 2, 3, 4, 5], 2)" in json.dumps(difference)
    # the whole evidence the standalone run has: the host's budget and change, the files it detected
    evidence = answer["evidence"]
    assert evidence["mutants"]["budget"] == 3 and evidence["mutants"]["run"] + len(evidence["notes"]) == 3
    assert evidence["contract"]["change_id"] == "chunk-fix"
    assert evidence["scope"]["detected"]["production_files"] == ["src/batching/core.py"]
    # the project's related tests on both revisions, the fingerprint and how the revisions were chosen
    assert set(evidence["baseline"]) == {"reference", "proposed"}
    assert evidence["baseline"]["reference"]["status"] == "green" and evidence["baseline"]["reference"]["tests"]
    assert evidence["snapshots"]["worktree_fingerprint"]
    assert evidence["snapshots"]["derivation"].startswith("Reference: HEAD~1 (")
    # a generated probe is a proposed test, never a test of the repository that killed the mutant
    assert answer["protection"] and all(p["killing_test"] is None and p["kill_kind"] == "proposed-probe"
                                        for p in answer["protection"])
    assert "unprotected" not in kinds


def _host_run(tmp_path, scaffold, *out):
    source = tmp_path / "scaffold.json"
    source.write_text(json.dumps(scaffold))
    return subprocess.run([sys.executable, "-m", "elenchus", "host", "--scaffold", str(source), *out],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env={**__import__("os").environ, "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})


def test_host_refuses_an_answer_path_in_a_missing_directory_before_anything_runs(build_scenario, tmp_path):
    repo = build_scenario("capture-off-by-one")
    scaffold = json.loads((data_dir("fixtures") / "host" / "scaffold.example.json").read_text())
    scaffold["host"] = {"scope": {"option": "current-change", "target": None, "reason": "the host's choice"},
                        "mode": "capture", "repo": str(repo), "reference": "HEAD~1", "proposed": "HEAD"}
    done = _host_run(tmp_path, scaffold, "--out", str(tmp_path / "missing" / "answer.json"))
    assert done.returncode == 2, done.stderr
    assert "input guard 'out' fired" in done.stderr and "does not exist" in done.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


@pytest.mark.parametrize("shape, pointer", [
    ('{"document": ' + "[" * 200_000 + "]" * 200_000 + "}", "deeper than 64 levels"),
    (None, "/host/contract/items"),
], ids=["nested-200k", "contract-items-not-an-array"])
def test_a_malformed_scaffold_is_a_clean_refusal_never_an_internal_error(tmp_path, shape, pointer):
    scaffold = json.loads((data_dir("fixtures") / "host" / "scaffold.example.json").read_text())
    scaffold["host"]["contract"] = {"items": "nope"}
    source = tmp_path / "scaffold.json"
    source.write_text(shape if shape is not None else json.dumps(scaffold))
    done = subprocess.run([sys.executable, "-m", "elenchus", "host", "--scaffold", str(source)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env={**__import__("os").environ, "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 2, done.stderr
    assert pointer in done.stderr and "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_host_names_the_scaffold_pointer_when_its_repository_is_not_a_checkout(tmp_path):
    scaffold = json.loads((data_dir("fixtures") / "host" / "scaffold.example.json").read_text())
    scaffold["host"]["repo"] = str(tmp_path / "nowhere")
    done = _host_run(tmp_path, scaffold)
    assert done.returncode == 2, done.stderr
    assert "/host/repo" in done.stderr and "--repo" not in done.stderr
