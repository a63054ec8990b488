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
                        "mode": "capture", "repo": str(repo), "reference": "HEAD~1", "proposed": "HEAD"}
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
