"""Every survivor comes with a witness, or is not reported as a gap."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git

pytestmark = pytest.mark.slow


def test_a_survivor_comes_with_a_verified_witness_and_an_indistinguishable_one_is_no_gap(evaluate, tmp_path):
    # (time enough to finish every search on a loaded host: a search cut short claims no equivalence)
    done, report, repo, _ = evaluate("witness", "--scope", "current-change", "--budget", "32", "--jobs", "2",
                                     "--fail-on", "unprotected", "--witness-time", "30")
    assert done.returncode == 5, done.stderr  # the unguarded zero divisor is a real gap
    # stderr and the report give the same counts: the likely equivalent mutants ran, so they are challenged
    planned, rejected = re.search(r"(\d+) mutant\(s\) to challenge, \d+ beyond the budget, (\d+) rejected",
                                  done.stderr).groups()
    equivalent = sum(1 for r in report["rejected"] if r["reason"].startswith("likely equivalent"))
    assert equivalent and f"- Mutants: {planned} challenged (budget 32), {equivalent} of them likely equivalent " \
        "(ran and survived, no input told them apart), 0 not challenged, " \
        f"{rejected} rejected before running" in done.stdout
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
    # the claim says what backs it: inputs that made the two sides equal, where alone the two can differ
    reached = re.search(r"; (\d+) of them made `value` equal to `lo` at line \d+", equivalent["reason"])
    assert reached is not None and int(reached.group(1)) > 0
    assert all(m["location"]["symbol"] != "floor_at" or m["result"] != "survived" for m in report["mutations"])
    assert "## Likely Equivalent" in done.stdout
    still_at_risk = done.stdout.split("## Still At Risk")[1].split("## Likely Equivalent")[0]
    assert "floor_at` now treats" not in still_at_risk


def test_a_verified_witness_is_reused_on_the_same_content(build_scenario, tmp_path):
    from tests.conftest import git, run_cli

    repo = build_scenario("witness")
    env = {"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")}
    args = ("evaluate", "--repo", str(repo), "--base", "HEAD~1", "--scope", "current-change", "--budget", "32",
            "--jobs", "2")

    def witnesses(*extra: str) -> tuple[str, dict]:
        done = run_cli(*args, *extra, env=env)
        assert done.returncode == 0, done.stderr
        # (this run's own directory: two runs started in the same second sort by their random suffix)
        [run_dir] = re.findall(r"^Run directory: (.+)$", done.stderr, re.MULTILINE)
        report = json.loads((Path(run_dir) / "report.json").read_text())
        return done.stderr, {m["id"]: m["witness"] for m in report["mutations"] if m.get("witness")}

    # Searches that run out of their time are reused too on the same content (a push that changes only a
    # document searches nothing again), until they are given longer.
    short, _ = witnesses("--witness-time", "0.01")
    assert "Witnesses: looking for a call" in short
    (repo / "README.md").write_text((repo / "README.md").read_text() + "\nNothing any test reads.\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a document")
    args = (*args[:4], "HEAD~2", *args[5:])
    again, _ = witnesses("--witness-time", "0.01")
    assert "Witnesses: looking for a call" not in again, again
    assert "search(es) that ran out of time or could not search, each still a gap" in again, again
    longer, first = witnesses("--witness-time", "10")
    assert "Witnesses: looking for a call" in longer and first
    # another setting (the whole evaluation is not reused): the runs and the verified witnesses are
    later, again = witnesses("--witness-time", "9")
    assert again == first
    assert f"reused from an earlier run on the same content: {len(first)} witness(es)" in later
    assert "Witnesses: looking for a call" not in later


def test_survivors_inside_methods_get_witnesses_called_on_instances_built_as_the_tests_built_theirs(
        evaluate, tmp_path):
    # (time enough to finish every search on a loaded host)
    done, report, repo, _ = evaluate("value-class", "--scope", "current-change", "--budget", "32", "--jobs", "2",
                                     "--witness-time", "30")
    assert done.returncode == 0, done.stderr
    risks = [m for m in report["mutations"] if m["result"] in ("survived", "not-covered")]
    assert {m["location"]["symbol"] for m in risks} == {"Money.deposit", "Money._share"}
    assert all("witness" in m for m in risks), [m.get("reason") for m in risks]  # every gap is shown
    assert not [r for r in report["rejected"] if r["reason"].startswith("likely equivalent")]

    # An in-place method returns None either way: its witness checks the state it leaves the instance in.
    [deposit] = [m for m in risks if m["location"]["symbol"] == "Money.deposit"]
    assert deposit["witness"]["call"] == "Money(100).deposit(50)"  # built as the test built its wallet
    assert "    money = Money(100)\n    money.deposit(50)\n" \
           "    assert vars(money) == {'cents': 150, 'currency': 'EUR'}\n" in deposit["witness"]["test"]
    # A private helper's guard is reached through the public method that calls it.
    guards = [m for m in risks if m["location"]["symbol"] == "Money._share"]
    assert all(m["witness"]["call"].startswith("Money(10).split(") for m in guards)
    assert "`Money(10).split(1)` gives `[10]` with the code and raises `ValueError` with the mutant" in done.stdout

    # Each written test passes on the code and fails on its mutant, run here by hand.
    for mutant in (deposit, guards[0]):
        copy = tmp_path / f"copy-{mutant['id']}"
        shutil.copytree(repo, copy)
        (copy / "tests" / "test_witness.py").write_text(mutant["witness"]["test"])
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_witness.py"]
        assert subprocess.run(command, cwd=copy, capture_output=True).returncode == 0
        (copy / "mutant.diff").write_text(mutant["diff"])
        git(copy, "apply", "mutant.diff")
        assert subprocess.run(command, cwd=copy, capture_output=True).returncode == 1


BRANCHED = '''\
"""Quoting, with a fallback for an installation without a codec."""

try:
    import json as _codec
except ImportError:  # (an installation without it)
    _codec = None
    QUOTE = "'"
else:
    QUOTE = '"'

if _codec is None:
    LIMIT = 3 + 4
else:
    LIMIT = 10


def quote(word):
    return QUOTE + word + QUOTE


def shorten(text):
    return text[:LIMIT]
'''


def test_mutants_in_a_branch_the_import_did_not_take_are_not_run_here_never_gaps(tmp_path):
    """Module-level code on the branch the import here did not take (a fallback for a missing package)
    runs in no test here: its mutants survive the runs without being run, which says nothing of whether
    the tests catch them. They are not run here, said so, one line per branch; never a gap to act on."""
    from tests.conftest import run_cli, write_tree

    repo = tmp_path / "repo"
    write_tree(repo, {"tests/test_nothing.py": "def test_nothing():\n    assert True\n"})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    write_tree(repo, {"quoting.py": BRANCHED, "tests/test_quoting.py": """
        from quoting import quote, shorten

        def test_quote():
            assert quote("a") == '"a"'

        def test_shorten():
            assert shorten("abcdefghijkl") == "abcdefghij"
    """})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "40", "--jobs", "2",
                   "--witness-time", "20", "--fail-on", "unprotected",
                   env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr  # (no gap: every mutant the tests here run is caught)
    report = json.loads(next((tmp_path / "runs").glob("*/report.json")).read_text())
    untaken = {5: "the `try:` at line 3 raises ImportError, and here it does not",
               6: "the `try:` at line 3 raises ImportError, and here it does not",
               7: "the `try:` at line 3 raises ImportError, and here it does not",
               12: "`if _codec is None:` (line 11) is true, and here it is false"}
    fallback = [m for m in report["mutations"] if m["location"]["line"] in untaken]
    assert {m["location"]["line"] for m in fallback} >= {7, 12}, [(m["location"], m["result"]) for m in fallback]
    # (widening the handler of an import catches nothing more: arid, never run)
    assert [r for r in report["rejected"] if r["location"]["line"] == 5
            and r["reason"].startswith("arid: the `try` body only imports")], report["rejected"]
    compared = {c["mutation_id"] for c in report["comparisons"]}
    for mutation in fallback:  # each says why, spent no search, and is compared with nothing
        assert mutation["result"] == "not-run" and "witness" not in mutation and mutation["id"] not in compared
        assert mutation["reason"].startswith("not run here, so whether the tests catch it is unknown: this code "
                                             f"runs only where {untaken[mutation['location']['line']]}: only the "
                                             "import runs it"), mutation["reason"]
    # the code that runs here is run and searched as ever
    assert all(m["result"] == "killed" for m in report["mutations"] if m["location"]["line"] not in untaken)
    act = done.stdout.split("### What to act on")[1].split("\n## ")[0]
    assert "Nothing: no protection regression" in act, act
    not_run = done.stdout.split("### Not run")[1].split("\n#")[0]
    rows = [row for row in not_run.splitlines() if row.startswith("- ")]
    assert len(rows) == len({untaken[m["location"]["line"]] for m in fallback}), not_run  # one per branch
    lines = sorted({m["location"]["line"] for m in fallback if m["location"]["line"] in (5, 6, 7)})
    count = sum(m["location"]["line"] in (5, 6, 7) for m in fallback)
    span = f"{lines[0]}-{lines[-1]}" if len(lines) > 1 else f"{lines[0]}"
    assert rows[0].startswith(f"- quoting.py:{span}{f' ({count} incidents)' if count > 1 else ''}: "), rows[0]
    assert "No test run here executes this code, which runs only where the `try:` at line 3 raises ImportError, " \
           f"and here it does not: whether the tests catch {'them' if count > 1 else 'it'} is unknown here" \
           in rows[0], rows[0]
    count = sum(m["location"]["line"] == 12 for m in fallback)
    assert rows[1].startswith(f"- quoting.py:12{f' ({count} incidents)' if count > 1 else ''}: "), rows[1]
    assert rows[1].endswith("a run of the tests where the branch is taken (another installation, Python or "
                            f"environment) runs {'them' if count > 1 else 'it'}"), rows[1]


def test_a_gap_whose_search_found_no_witness_says_how_many_inputs_the_search_tried_and_how_long_it_took(tmp_path):
    # witness search time per survivor is measured over every search, those that end without a witness too
    from elenchus.schemas import validate
    from tests.conftest import committed, run_cli

    repo = committed(tmp_path / "repo", {
        "shop/__init__.py": "",
        # tokens compare by identity and print their address: no test writes a list of them down
        "shop/tokens.py": "class Token:\n    pass\n\n\ndef tokens(n):\n    return [Token() for _ in range(n)]\n",
        "tests/test_tokens.py": "from shop.tokens import tokens\n\n\ndef test_tokens():\n    assert tokens(3)\n",
    })
    (repo / "shop" / "tokens.py").write_text(
        "class Token:\n    pass\n\n\ndef tokens(n):\n    return [Token() for _ in range(min(n, 100))]\n")
    git(repo, "commit", "-q", "-am", "two")
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--fresh", "--jobs", "2",
                   "--witness-time", "5", env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stdout + done.stderr
    path = next((tmp_path / "runs").glob("*/report.json"))
    report = json.loads(path.read_text())
    validate("mutation-report", report)
    opaque = [m for m in report["mutations"] if "cannot write down or compare" in (m["reason"] or "")]
    assert opaque, [m["reason"] for m in report["mutations"]]
    for gap in opaque:
        assert "witness" not in gap and gap["witness_search"]["inputs"] >= 1 and gap["witness_search"]["seconds"] >= 0
    counted = subprocess.run([sys.executable, str(Path(__file__).parents[2] / "benchmarks" / "still_at_risk.py"),
                              f"tokens={path}"], capture_output=True, text=True, check=True)
    assert json.loads(counted.stdout)["tokens"]["witness_seconds_median"] is not None
