"""Every survivor comes with a witness, or is not reported as a gap."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import git

pytestmark = pytest.mark.slow


def test_a_survivor_comes_with_a_verified_witness_and_an_indistinguishable_one_is_no_gap(evaluate, tmp_path):
    # (time enough to finish every search on a loaded host: a search cut short claims no equivalence)
    done, report, repo, _ = evaluate("witness", "--scope", "current-change", "--budget", "32", "--jobs", "2",
                                     "--fail-on", "unprotected", "--witness-time", "30")
    assert done.returncode == 5, done.stderr  # the unguarded zero divisor is a real gap
    guard = next(m for m in report["mutations"] if "`if whole == 0: return 0.0` was removed" in m["incident"])
    assert guard["result"] == "survived"
    witness = guard["witness"]
    assert witness["call"].startswith("ratio(") and witness["call"].endswith(", 0)")  # the zero input
    assert (witness["original"], witness["mutant"]) == ("0.0", "raise ZeroDivisionError")
    assert f"- What tells it apart: `{witness['call']}` gives `0.0` with the code as it is, and raises " \
           "`ZeroDivisionError` with this mutant" in done.stdout

    # The ready-to-paste test passes on the code and fails on the mutant, run here by hand.
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy)
    (copy / "tests" / "test_witness.py").write_text(witness["test"])
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_witness.py"]
    assert subprocess.run(command, cwd=copy, capture_output=True).returncode == 0
    (copy / "guard.diff").write_text(guard["diff"])
    git(copy, "apply", "guard.diff")
    failed = subprocess.run(command, cwd=copy, capture_output=True, text=True)
    assert failed.returncode == 1 and "ZeroDivisionError" in failed.stdout

    # `if value > limit: return limit` then `return value`: equivalent at equality, rejected before running.
    reasons = {r["location"]["line"]: r["reason"] for r in report["rejected"]}
    assert reasons[12].startswith("equivalent at the boundary: when `value` equals `limit`")
    # floor_at's `value < lo` -> `<=`: no static rule knows its shape, and no input tells it apart.
    [equivalent] = [r for r in report["rejected"] if r["reason"].startswith("likely equivalent")]
    assert equivalent["location"]["symbol"] == "floor_at" and "input(s)" in equivalent["reason"]
    reached = re.search(r"; (\d+) of them ran the mutated code", equivalent["reason"])  # the claim says what backs it
    assert reached is not None and int(reached.group(1)) > 0
    assert all(m["location"]["symbol"] != "floor_at" or m["result"] != "survived" for m in report["mutations"])
    assert "## Likely Equivalent" in done.stdout
    still_at_risk = done.stdout.split("## Still At Risk")[1].split("## Likely Equivalent")[0]
    assert "floor_at` now treats" not in still_at_risk
