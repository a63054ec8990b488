"""The terminal side of `elenchus evaluate`: the scope question and Ctrl-C."""

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _read_until(fd: int, text: str, timeout: float = 60.0) -> str:
    seen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and text.encode() not in seen:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
    return seen.decode(errors="replace")


def test_evaluate_on_a_terminal_asks_a_numbered_scope_question_with_the_recommendation_preselected(
        build_scenario, tmp_path):
    repo = build_scenario("demo")
    primary, secondary = os.openpty()
    env = {**os.environ, "ELENCHUS_RUNS_DIR": str(tmp_path / "runs"), "COLUMNS": "200"}
    process = subprocess.Popen([sys.executable, "-m", "elenchus", "evaluate", "--repo", str(repo), "--budget", "2",
                                "--no-witnesses"],
                               stdin=secondary, stdout=secondary, stderr=secondary, env=env, close_fds=True)
    os.close(secondary)
    try:
        shown = _read_until(primary, "Choose 1-3")
        assert "1. Current change: existing and modified tests (Recommended)" in shown
        assert "2. Changed tests only" in shown and "3. Broader target" in shown
        os.write(primary, b"\n")  # Enter takes the preselected recommendation
        rest = _read_until(primary, "Review-only run.", timeout=120)
        assert process.wait(timeout=120) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(primary)
    assert "Scope: current-change" in rest
    report = json.loads(next((tmp_path / "runs").glob("*/report.json")).read_text())
    assert report["scope"]["option"] == "current-change"
    assert report["scope"]["reason"].startswith("Chosen at the prompt.")


def test_evaluate_interrupted_with_ctrl_c_writes_what_was_measured_and_removes_its_temp_dirs(
        build_scenario, tmp_path):
    repo = build_scenario("endless-loop")
    temp = tmp_path / "tmp"
    temp.mkdir()
    runs = tmp_path / "runs"
    env = {**os.environ, "ELENCHUS_RUNS_DIR": str(runs), "TMPDIR": str(temp)}
    # A shell without job control starts background jobs with SIGINT ignored, and an ignored signal
    # stays ignored across exec: the child gets the default disposition, as a terminal would give it.
    process = subprocess.Popen([sys.executable, "-m", "elenchus", "evaluate", "--repo", str(repo), "--scope",
                                "current-change", "--budget", "40", "--jobs", "1", "--no-witnesses",
                                "--timeout-constant", "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        lines = list(runs.glob("*/runs.jsonl"))
        if lines and len(lines[0].read_text().splitlines()) >= 2:
            break
        time.sleep(0.2)
    status = Path(f"/proc/{process.pid}/status").read_text()
    masks = {line.split(":")[0]: line.split(":")[1].strip() for line in status.splitlines()
             if line.startswith(("SigBlk", "SigIgn", "SigCgt"))}
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, (stderr, masks, stdout[-1500:])
    report = json.loads(next(runs.glob("*/report.json")).read_text())
    results = {m["result"] for m in report["mutations"]}
    assert "not-run" in results and results - {"not-run"}
    assert any("interrupted" in note for note in report["notes"])
    assert list(temp.iterdir()) == [], "temp dirs were left behind"
