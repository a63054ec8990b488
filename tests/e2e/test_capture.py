"""End to end: `elenchus capture` on fixture repositories, real pytest runs, real probes."""

import difflib
import json

import pytest

from elenchus.repo import fingerprint
from elenchus.repo.git import Repository
from elenchus.schemas import validate

from tests.conftest import git, run_cli

pytestmark = pytest.mark.slow


def capture(repo, tmp_path, *args, reference="HEAD~1", budget=("--budget", "4")):
    out = tmp_path / "capture.json"
    done = run_cli("capture", "--repo", str(repo), "--reference", reference, *budget, "--json", str(out),
                   *args, env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")}, cwd=repo)
    assert not (repo / ".hypothesis").exists(), "the probe search wrote its cache into the current directory"
    report = json.loads(out.read_text()) if out.exists() else None
    return done, report


def test_capture_reports_a_reintroduced_off_by_one_as_a_weak_catch_with_a_behavior_difference(
        build_scenario, tmp_path):
    repo = build_scenario("capture-off-by-one")
    before = fingerprint.take(Repository(repo))
    done, report = capture(repo, tmp_path, "--proposed", "HEAD")
    assert done.returncode == 0, done.stderr
    assert any(o["result"] == "weak-catch" for o in report["outcomes"])
    difference = report["behavior_differences"][0]
    assert (difference["path"], difference["line"]) == ("src/batching/core.py", 8)
    assert difference["input"] == "chunks([1, 2, 3, 4, 5], 2)"
    assert difference["reference"] == "[[1, 2], [3, 4], [5]]" and difference["proposed"] == "[[1], [3], [5]]"
    assert "**Behavior difference** (src/batching/core.py:8, C1)" in done.stdout
    assert fingerprint.compare(before, fingerprint.take(Repository(repo))) == ()
    assert "The working tree was not modified during this Review-only run." in done.stdout
    handoff = json.loads(next((tmp_path / "runs").glob("*/test-handoff.json")).read_text())
    validate("test-handoff", handoff)
    assert handoff["probes"] and handoff["apply"] == {"requested": False, "written": []}


def test_capture_boundary_reports_a_strict_comparison_at_the_boundary_value_no_test_calls(
        build_scenario, tmp_path):
    done, report = capture(build_scenario("capture-boundary"), tmp_path, "--proposed", "HEAD")
    assert done.returncode == 0, done.stderr
    [difference] = report["behavior_differences"]
    assert (difference["path"], difference["line"]) == ("src/batching/voting.py", 6)
    assert difference["input"] == "can_vote(18)"  # the tests only call can_vote(30) and can_vote(10)
    assert (difference["reference"], difference["proposed"]) == ("True", "False")
    assert "**Behavior difference** (src/batching/voting.py:6" in done.stdout
    assert "- Input: `can_vote(18)`" in done.stdout


def test_capture_at_its_default_budget_challenges_the_lines_the_proposal_edits_first(build_scenario, tmp_path):
    # `ordinal` has a dozen guards whose imagined mistakes rank above a changed constant's; the proposal edits
    # only the teens check, and makes 13 "13rd"
    done, report = capture(build_scenario("capture-ranked"), tmp_path, "--proposed", "HEAD", budget=())
    assert done.returncode == 0, done.stderr
    assert len(report["mutants"]) == 16  # the budget --help states
    edited = [m for m in report["mutants"] if m["location"]["line"] == 16]
    assert edited and report["mutants"][:len(edited)] == edited
    assert all(item["location"]["line"] != 16 for item in report["not_challenged"])
    [difference] = {d["input"]: d for d in report["behavior_differences"]}.values()
    assert (difference["line"], difference["input"]) == (16, "ordinal(13)")
    assert (difference["reference"], difference["proposed"]) == ("'13th'", "'13rd'")
    # (the same run:) probes assert a call no earlier probe asserts where the tests made one
    calls: dict[int, list[str]] = {m["location"]["line"]: [] for m in report["mutants"]}
    for mutant in report["mutants"]:
        if mutant["probe"]:
            calls[mutant["location"]["line"]].append(mutant["evidence"].split(" the reference gives")[0])
    # `ordinal(1)` tells apart both the negated teens check (line 16) and the dropped `% 10 == 1` case (line
    # 18); the tests also called `ordinal(21)`, which shows the second: its probe asserts that call instead
    assert "on ordinal(1)" in calls[16]
    assert calls[18] == ["on ordinal(21)"], calls
    # an exception is said as one: "raises", never "gives raise"
    assert "on ordinal(None) the reference raises TypeError, the mutant gives None" in [
        m["evidence"] for m in report["mutants"]]


def test_capture_finds_no_weak_catch_in_a_behaviour_preserving_refactor(build_scenario, tmp_path):
    done, report = capture(build_scenario("capture-refactor"), tmp_path, "--proposed", "HEAD")
    assert done.returncode == 0, done.stderr
    assert report["outcomes"] and {o["result"] for o in report["outcomes"]} == {"no-catch"}
    assert report["behavior_differences"] == []


def test_capture_of_a_renamed_api_is_not_comparable_never_a_catch(build_scenario, tmp_path):
    done, report = capture(build_scenario("api-rename"), tmp_path, "--proposed", "HEAD")
    assert done.returncode == 0, done.stderr
    results = {o["result"] for o in report["outcomes"]}
    assert "not-comparable" in results and "weak-catch" not in results
    # the summary counts the probes that could not run, never a bare "None"
    blocked = sum(1 for o in report["outcomes"] if o["result"] in ("not-comparable", "inconclusive"))
    assert f"None found, but {blocked} of {len(report['outcomes'])} probe(s) could not run against the proposal" \
        in done.stdout
    assert "None: no probe found" not in done.stdout
    # what a probe run said is told with the repository's paths, not the disposable workspace's
    assert "/ws-" not in done.stdout and "(src/batching/core.py)" in json.dumps(report["outcomes"])


def test_capture_applies_a_proposed_patch_only_inside_a_snapshot(build_scenario, tmp_path):
    repo = build_scenario("capture-off-by-one")
    old = git(repo, "show", "HEAD~1:src/batching/core.py")
    new = git(repo, "show", "HEAD:src/batching/core.py")
    patch = tmp_path / "proposal.diff"
    patch.write_text("".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                  "a/src/batching/core.py", "b/src/batching/core.py")))
    git(repo, "reset", "-q", "--hard", "HEAD~1")  # the user's checkout is at the reference
    before = fingerprint.take(Repository(repo))
    done, report = capture(repo, tmp_path, "--proposed-patch", str(patch), reference="HEAD")
    assert done.returncode == 0, done.stderr
    assert any(o["result"] == "weak-catch" for o in report["outcomes"])
    assert fingerprint.compare(before, fingerprint.take(Repository(repo))) == ()


def test_capture_rejects_host_probes_that_touch_private_names_or_fail_on_the_reference(build_scenario, tmp_path):
    repo = build_scenario("capture-off-by-one")
    probes = tmp_path / "host-probes"
    probes.mkdir()
    (probes / "test_private.py").write_text(
        "from batching import core\n\ndef test_private():\n    assert core._cache is None\n")
    (probes / "test_wrong.py").write_text(
        "from batching import chunks\n\ndef test_wrong():\n    assert chunks([1, 2, 3], 2) == [[1, 2, 3]]\n")
    (probes / "test_good.py").write_text(
        "from batching import chunks\n\ndef test_good():\n    assert chunks([1, 2, 3], 2) == [[1, 2], [3]]\n")
    done, report = capture(repo, tmp_path, "--proposed", "HEAD", "--probe-dir", str(probes))
    assert done.returncode == 0, done.stderr
    verdicts = {v["path"].rsplit("/", 1)[1]: v for v in report["host_probes"]}
    assert not verdicts["test_private.py"]["accepted"] and "_cache" in verdicts["test_private.py"]["reason"]
    assert not verdicts["test_wrong.py"]["accepted"] and "reference" in verdicts["test_wrong.py"]["reason"]
    assert verdicts["test_good.py"]["accepted"], verdicts["test_good.py"]["reason"]


def test_capture_apply_writes_the_kept_probes_and_nothing_else(build_scenario, tmp_path):
    repo = build_scenario("capture-refactor")
    done, report = capture(repo, tmp_path, "--proposed", "HEAD", "--apply")
    assert done.returncode == 0, done.stderr
    assert report["applied"] and all(p.startswith("tests/test_elenchus_probe_") for p in report["applied"])
    status = git(repo, "status", "--porcelain").splitlines()
    assert sorted(line[3:] for line in status) == sorted(report["applied"])
    assert "not review-only" in done.stdout


def test_capture_mutates_a_table_the_proposal_edits_and_tells_it_apart_through_the_function_reading_it(
        build_scenario, tmp_path):
    done, report = capture(build_scenario("capture-table"), tmp_path, "--proposed", "HEAD", budget=("--budget", "3"))
    assert done.returncode == 0, done.stderr
    assert report["mutants"] and all(m["location"]["symbol"] == "SUFFIXES" for m in report["mutants"])
    [difference] = report["behavior_differences"]
    assert (difference["path"], difference["input"]) == ("src/batching/suffixes.py", "ordinal(13)")
    assert (difference["reference"], difference["proposed"]) == ("'13th'", "'13rd'")
    assert difference["line"] == 8  # beside where the entry was, in the proposal
