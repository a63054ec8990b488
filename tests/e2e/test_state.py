"""Stored state cannot lie, bad input and bad machines give clean messages, nothing is left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from elenchus import tempspace

from tests.conftest import FAST_ENV, committed, git, run_cli, write_tree

pytestmark = pytest.mark.slow


def _flip(path: Path) -> bool:
    text = path.read_text()
    if '"outcome": "killed"' in text:
        path.write_text(text.replace('"outcome": "killed"', '"outcome": "survived"'))
        return True
    return False


def test_a_flipped_outcome_in_the_cache_is_measured_again_and_counted(build_scenario, tmp_path):
    repo = build_scenario("demo")
    env = {"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")}
    args = ("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "3", "--no-witnesses")
    first = run_cli(*args, env=env)
    assert first.returncode == 0, first.stderr
    flipped = [p for p in sorted((tmp_path / "cache").rglob("*.json")) if _flip(p)]
    assert flipped, "no cached kill to tamper with"
    second = run_cli(*args, env=env)
    assert second.returncode == 0, second.stderr
    reports = [json.loads(p.read_text()) for p in sorted((tmp_path / "runs").glob("*/report.json"))]
    assert reports[0]["comparisons"] == reports[1]["comparisons"]
    notes = " ".join(reports[1]["notes"])
    assert f"{len(flipped)} stored result(s) failed their content check" in notes
    assert "result(s) were reused from earlier runs" in notes


def test_a_record_forged_with_its_plain_hash_recomputed_is_measured_again_and_counted(build_scenario, tmp_path):
    import hashlib

    from elenchus.records import SEAL

    repo = build_scenario("demo")
    env = {"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")}
    args = ("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "3", "--no-witnesses")
    first = run_cli(*args, env=env)
    assert first.returncode == 0, first.stderr
    key = tmp_path / "cache" / ".seal-key"
    assert key.is_file() and key.stat().st_mode & 0o777 == 0o600  # owner-only, inside the hidden store
    forged = 0
    for path in sorted((tmp_path / "cache").rglob("*.json")):
        data = json.loads(path.read_text())
        if data.get("outcome") == "killed":  # a kill made a survival, sealed as an unkeyed hash would be
            data.pop(SEAL)
            data["outcome"] = "survived"
            data[SEAL] = hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()
            path.write_text(json.dumps(data))
            forged += 1
    assert forged, "no cached kill to forge"
    second = run_cli(*args, "--witness-time", "4", env=env)  # (another evaluation: its runs come one by one)
    assert second.returncode == 0, second.stderr
    reports = [json.loads(p.read_text()) for p in sorted((tmp_path / "runs").glob("*/report.json"))]
    assert reports[0]["comparisons"] == reports[1]["comparisons"]
    assert f"{forged} stored result(s) failed their content check" in " ".join(reports[1]["notes"])


def test_a_sealed_record_of_the_wrong_shape_is_measured_again_and_counted_never_a_traceback(build_scenario,
                                                                                             tmp_path):
    from elenchus.records import SEAL, seal

    repo = build_scenario("demo")
    env = {"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")}
    args = ("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "3", "--no-witnesses")
    first = run_cli(*args, env=env)
    assert first.returncode == 0, first.stderr
    forged = 0
    for path in sorted((tmp_path / "cache").rglob("*.json")):
        data = json.loads(path.read_text())
        data.pop(SEAL, None)
        if {"report", "runs"} <= data.keys():  # the whole evaluation's record: what is tried here is its runs
            path.unlink()
        elif data.get("kills"):  # each kill as an object, sealed again as a forger would
            data["kills"] = [{"test": nodeid, "kind": kind} for nodeid, kind in data["kills"]]
            path.write_text(json.dumps({**data, SEAL: seal(data)}))
            forged += 1
        elif data.get("status") == "green":  # a baseline whose status no baseline has
            data["status"] = "splendid"
            path.write_text(json.dumps({**data, SEAL: seal(data)}))
            forged += 1
    assert forged >= 2, "no stored kill or baseline to forge"
    second = run_cli(*args, env=env)
    assert second.returncode == 0, second.stderr
    assert "internal error" not in second.stderr and "Traceback" not in second.stderr
    reports = [json.loads(p.read_text()) for p in sorted((tmp_path / "runs").glob("*/report.json"))]
    assert reports[0]["comparisons"] == reports[1]["comparisons"]
    assert f"{forged} stored result(s) failed their content check" in " ".join(reports[1]["notes"])


def test_an_edited_line_of_a_resumed_run_is_not_trusted(build_scenario, tmp_path):
    repo = build_scenario("demo")
    env = {"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")}
    args = ("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "3", "--fresh", "--no-witnesses")
    first = run_cli(*args, env=env)
    assert first.returncode == 0, first.stderr
    run_dir = next((tmp_path / "runs").iterdir())
    runs = run_dir / "runs.jsonl"
    lines = runs.read_text().splitlines()
    edited = next(i for i, line in enumerate(lines) if '"outcome": "killed"' in line)
    lines[edited] = lines[edited].replace('"outcome": "killed"', '"outcome": "survived"')
    runs.write_text("\n".join(lines) + "\n")
    again = run_cli(*args, "--resume", run_dir.name, env=env)
    assert again.returncode == 0, again.stderr
    assert "1 recorded line(s) failed their content check and run again" in again.stderr
    record = json.loads(lines[edited])
    report = json.loads((run_dir / "report.json").read_text())
    comparison = next(c for c in report["comparisons"] if c["mutation_id"] == record["mutant_id"])
    assert comparison[record["cohort"]]["result"] == "killed"  # measured again, not replayed


def test_a_corrupt_manifest_stops_resuming_with_a_clean_message(build_scenario, tmp_path):
    repo = build_scenario("demo")
    run_dir = tmp_path / "runs" / "20260101T000000Z-abcdef"
    run_dir.mkdir(parents=True)
    (run_dir / "manifest.json").write_text("{not json")
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--resume", run_dir.name,
                   env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 2, done.stderr
    assert "manifest.json is unreadable or corrupt" in done.stderr and "internal error" not in done.stderr


def test_an_unwritable_json_path_stops_before_the_first_run(build_scenario, tmp_path):
    repo = build_scenario("demo")
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change",
                   "--json", str(tmp_path / "missing" / "report.json"),
                   env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 2
    assert "json" in done.stderr and "does not exist" in done.stderr
    assert not (tmp_path / "runs").exists()


def test_an_unwritable_runs_directory_is_a_clean_blocked_message(build_scenario, tmp_path):
    repo = build_scenario("demo")
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "1",
                   env={"ELENCHUS_RUNS_DIR": str(blocker / "runs")})
    assert done.returncode in (2, 4), done.stderr
    assert "internal error" not in done.stderr and str(blocker) in done.stderr


def test_a_latin1_source_with_a_coding_line_is_mutated_and_an_undecodable_one_is_excluded(tmp_path):
    repo = committed(tmp_path / "repo", {"tests/test_calc.py": "def test_nothing():\n    assert True\n"})
    (repo / "latin.py").write_bytes(
        b'# -*- coding: latin-1 -*-\nGREETING = "caf\xe9"\n\n\ndef greet(name):\n'
        b'    if name:\n        return GREETING + " " + name\n    return GREETING\n\n\n'
        b'def shout(name):\n    if len(name) > 3:\n        return name.upper()\n    return name\n')
    (repo / "bad.py").write_bytes(b'def bad():\n    return "\xff\xfe"\n')
    (repo / "worse.py").write_bytes(b'# caf\xe9\ndef worse():\n    return 1\n')  # not UTF-8 from its first line
    write_tree(repo, {"tests/test_latin.py": """
        from latin import greet, shout

        def test_greet():
            assert greet("x") == "caf\\xe9 x"
            assert greet("") == "caf\\xe9"

        def test_shout():
            assert shout("hello") == "HELLO"
    """})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")
    out = tmp_path / "report.json"
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "16", "--json",
                   str(out), env={**FAST_ENV, "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    # Python refuses both: said as Python would, and the rest evaluated
    for name, byte in (("bad.py", 23), ("worse.py", 5)):
        assert f"{name}: not mutated: not valid Python source: not UTF-8 and no coding line (byte {byte})" in \
            report["scope"]["excluded"]
    greet = [m for m in report["mutations"] if m["location"]["symbol"] == "greet"]
    assert greet and all(m["result"] == "killed" for m in greet), greet
    assert all(m["location"]["path"] not in ("bad.py", "worse.py") for m in report["mutations"])
    # the witness search reads the source as Python does: a survivor in the latin-1 file gets its witness
    shout = [m for m in report["mutations"] if m["location"]["symbol"] == "shout" and m["result"] == "survived"]
    assert shout and all(m.get("witness") for m in shout), shout
    assert "codec can't decode" not in done.stdout


def test_a_file_left_out_only_at_base_says_its_head_version_is_read(tmp_path):
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "latin.py").write_bytes(b'# caf\xe9\ndef greet():\n    return 1\n')
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "latin.py").write_bytes(b'# -*- coding: latin-1 -*-\n# caf\xe9\ndef greet():\n    return 2\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head: a coding line")
    done = run_cli("changes", "--repo", str(repo), env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    assert ("latin.py: not mutated: not valid Python source: not UTF-8 and no coding line (byte 5) (at Base only; "
            "its Head version is read)") in done.stdout
    assert "latin.py:3-4 greet (added" in done.stdout  # (Python could not read it before: all of it is new)
    # a change that touches only a file Python cannot read is no empty diff: it is listed, and left out
    (repo / "other.py").write_bytes(b'# caf\xe9\ndef other():\n    return 3\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "an unreadable file")
    done = run_cli("changes", "--repo", str(repo), env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    assert "empty diff" not in done.stderr
    assert "other.py: not mutated: not valid Python source: not UTF-8 and no coding line (byte 5)" in done.stdout


def test_leftovers_of_a_killed_run_are_removed_at_the_next_start(tmp_path):
    base = tmp_path / "tmp"
    base.mkdir()
    stale = base / f"{tempspace.PREFIX}dead"
    stale.mkdir()
    (stale / ".lock").write_text("")
    (stale / "ws-1").mkdir()
    old = time.time() - 2 * tempspace.SETTLE_SECONDS
    os.utime(stale, (old, old))
    live = subprocess.Popen([sys.executable, "-c", "import time, tempfile\nfrom elenchus import tempspace\n"
                             "tempspace.claim()\nprint(tempfile.gettempdir(), flush=True)\ntime.sleep(60)"],
                            env={**os.environ, "TMPDIR": str(base)}, stdout=subprocess.PIPE, text=True)
    try:
        held = Path(live.stdout.readline().strip())
        assert held.parent == base and held.is_dir() and not stale.exists()
        assert tempspace.sweep(base) == 0 and held.is_dir()  # a live run's directory is never taken
    finally:
        live.kill()
        live.wait()
    assert tempspace.sweep(base) == 0 and held.exists()  # too young to tell from one being set up
    os.utime(held, (old, old))
    assert tempspace.sweep(base) == 1 and not held.exists()


@pytest.mark.skipif(os.getuid() != 0, reason="a directory owned by another user can only be made as root here")
def test_the_sweep_neither_removes_nor_mentions_another_users_leftovers(tmp_path):
    base = tmp_path / "tmp"
    base.mkdir()
    old = time.time() - 2 * tempspace.SETTLE_SECONDS
    leftovers = {}
    for owner, uid in (("theirs", 4242), ("mine", os.getuid())):
        leftover = base / f"{tempspace.PREFIX}{owner}"
        (leftover / "ws-1").mkdir(parents=True)
        (leftover / ".lock").write_text("")
        for path in (leftover / "ws-1", leftover / ".lock", leftover):
            os.chown(path, uid, uid)
        os.utime(leftover, (old, old))
        leftovers[owner] = leftover
    done = run_cli("--version", env={"TMPDIR": str(base)})  # every start sweeps: the first run on a machine too
    assert done.returncode == 0, done.stderr
    assert "Removed 1 temporary directory left behind by an earlier run" in done.stderr  # ours, and only ours
    assert not leftovers["mine"].exists()
    assert leftovers["theirs"].is_dir() and (leftovers["theirs"] / "ws-1").is_dir()  # another user's: untouched
    assert tempspace.sweep(base) == 0 and leftovers["theirs"].is_dir()  # and never counted
    again = run_cli("--version", env={"TMPDIR": str(base)})
    assert again.returncode == 0 and "Removed" not in again.stderr, again.stderr


def test_sigterm_ends_a_run_like_ctrl_c_and_leaves_no_temporary_directory(tmp_path):
    repo = write_tree(tmp_path / "repo", {"calc.py": "def add(a, b):\n    return a + b\n"})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    write_tree(repo, {"tests/test_calc.py": "import time\nfrom calc import add\n\n\ndef test_add():\n"
                                            "    time.sleep(3)\n    assert add(2, 3) == 5\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "elenchus", "evaluate", "--repo", str(repo), "--scope", "target",
                             "--target", "calc.py", "--budget", "4", "--fresh"],
                            env={**FAST_ENV, "TMPDIR": str(base), "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list(base.glob(f"{tempspace.PREFIX}*/elenchus-head-*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    # stopped mid-run (the baseline alone takes 3 s), with the status a shell gives SIGTERM (128 + 15; Ctrl-C: 130)
    assert proc.returncode == 143, stderr
    assert "elenchus: terminated" in stderr and "internal error" not in stderr
    assert list(base.iterdir()) == []


def test_the_result_store_named_by_elenchus_cache_dir_is_used_and_reused_from_any_run_directory(
        build_scenario, tmp_path):
    repo = build_scenario("demo")
    store = tmp_path / "ci-cache"
    args = ("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "3", "--no-witnesses")
    first = run_cli(*args, env={"ELENCHUS_RUNS_DIR": str(tmp_path / "job-1"), "ELENCHUS_CACHE_DIR": str(store)})
    assert first.returncode == 0, first.stderr
    assert list(store.rglob("*.json")) and (store / ".seal-key").is_file()
    assert not (tmp_path / "cache").exists()  # not beside the runs
    # another job, another run directory, the store restored: nothing is measured again
    second = run_cli(*args, env={"ELENCHUS_RUNS_DIR": str(tmp_path / "job-2"), "ELENCHUS_CACHE_DIR": str(store)})
    assert second.returncode == 0, second.stderr
    assert "Unchanged since run " in second.stderr and "Baseline" not in second.stderr
