"""Protection regressions are searched for: each check a change weakens, when it was the only test of a
behaviour, yields a protection regression naming it; overlap with an unchanged test is neutral."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import FAST, by_assessment

pytestmark = pytest.mark.slow

#: Each pre-change test of tests/test_measures.py and how the change weakened it.
WEAKENED = {
    "test_area": "deleted-test",
    "test_perimeter": "loosened-assertion",  # == 10 became <= 20
    "test_initials": "loosened-assertion",  # == "AL" became "A" in ...
    "test_words": "loosened-assertion",  # == [...] became len(...) == 3
    "test_greeting": "loosened-assertion",  # == ... became .startswith("Hello")
    "test_double": "xfail-marker",
    "test_halve": "skipped-test",
    "test_square": "swallowed-error",  # wrapped in try/except AssertionError
    "test_sign": "deleted-test",  # two of its three parametrize rows removed
    "test_clamp01": "loosened-assertion",  # one of its three assertions removed
}


@pytest.mark.parametrize("scope", ["current-change", "changed-tests"])
def test_every_weakened_check_that_alone_caught_a_behaviour_yields_a_regression_naming_it(evaluate, shared_evaluation,
                                                                                        scope):
    if scope == "current-change":  # the evaluation the speed and cluster tests compare with theirs
        done = shared_evaluation("weakened-checks", *FAST)
        report = done.report
        _only_passing_confirmations_go_round_again(done.run_dir / "runs.jsonl")
    else:
        done, report, _, _ = evaluate("weakened-checks", "--scope", scope, "--budget", "4", "--jobs", "2",
                                      "--no-witnesses")
    assert done.returncode == 0, done.stderr
    regressions = by_assessment(report).get("protection-regression", [])
    named: dict[str, set[str]] = {}
    for comparison in regressions:
        for check in comparison.get("weakened_checks", []):
            named.setdefault(check["test"].split("::", 1)[1], set()).add(check["kind"])
    assert named == {test: {kind} for test, kind in WEAKENED.items()}
    found = {m["id"]: m for m in report["mutations"] if m["found_by"] == "regression-search"}
    assert found, "the regression search found nothing beyond the budget"
    for comparison in regressions:
        assert comparison["existing"]["result"] == "killed" and comparison["modified"]["result"] in ("survived", "not-covered")
    assert "Found by: the regression search" in done.stdout
    assert "Caught by: only the old tests: `tests/test_measures.py::test_perimeter` (the assertion on " \
           "`perimeter(2, 3)` was loosened" in done.stdout
    assert "it used to check `assert perimeter(2, 3) == 10`" in done.stdout
    # the loosened and swallowed checks are test-quality concerns of the evaluation too, one per test
    weakened = {(c["test"], c["concern"]) for c in report["test_quality"]
                if c["concern"] in ("loosened-assertion", "swallowed-error")}
    assert weakened == {(test, kind) for test, kind in WEAKENED.items()
                        if kind in ("loosened-assertion", "swallowed-error")}
    assert all(c["path"] == "tests/test_measures.py" and c["line"] for c in report["test_quality"]
               if c["concern"] in ("loosened-assertion", "swallowed-error"))
    concerns = done.stdout.split("## Test Quality Concerns")[1]
    assert "`test_perimeter` (loosened-assertion): this change weakens the test's check: the assertion on " \
           "`perimeter(2, 3)` was loosened" in concerns


def _only_passing_confirmations_go_round_again(runs: Path) -> None:
    """The current tests' confirmation of a would-be regression runs again only after a run whose tests
    passed: one where the weakened test was skipped or marked to fail had no catch to let slip."""
    rounds: dict[str, list[tuple[int, str]]] = {}
    for record in map(json.loads, runs.read_text().splitlines()):
        if record["selection"] == "confirmation" and record["cohort"] == "modified":
            rounds.setdefault(record["mutant_id"], []).append((record["attempt"], record["outcome"]))
    assert any(found[0][1] != "survived" for found in rounds.values()), rounds  # (a skipped test's run is here)
    for found in map(sorted, rounds.values()):
        assert [attempt for attempt, _ in found] == list(range(1, len(found) + 1)), found
        assert all(outcome == "survived" for _, outcome in found[:-1]), found
        assert len(found) == 3 or found[-1][1] != "survived", found


def test_a_weakened_check_whose_behaviour_an_unchanged_test_still_catches_is_no_regression(evaluate):
    done, report, _, _ = evaluate("weakened-checks-overlap", "--scope", "current-change", "--budget", "4",
                                  "--jobs", "2", "--no-witnesses")
    assert done.returncode == 0, done.stderr
    assert "protection-regression" not in by_assessment(report)
    searched = [m for m in report["mutations"] if m["found_by"] == "regression-search"]
    assert searched, "the search ran but kept nothing"
    overlap = {c["mutation_id"] for c in by_assessment(report)["existing-protection"]}
    assert {m["id"] for m in searched} <= overlap  # the unchanged test still catches each of them
    assert "None: every incident the old tests caught is still caught." in done.stdout


def test_a_catch_that_does_not_repeat_is_inconclusive_never_a_lost_protection(evaluate, tmp_path):
    state = tmp_path / "flaky-state"
    state.mkdir()
    # The flakiness lives in a directory outside the workspace, which a sandbox would hide.
    done, report, _, _ = evaluate("flaky-catch", "--scope", "current-change", "--budget", "8", "--jobs", "1",
                                  "--isolation", "none", "--no-witnesses", env={"BATCHING_FLAKY_STATE": str(state)})
    assert done.returncode == 0, done.stderr
    assert "protection-regression" not in by_assessment(report)
    [flaky] = by_assessment(report)["inconclusive"]
    assert flaky["existing"]["result"] == "inconclusive" and flaky["modified"]["result"] == "survived"
    assert "did not catch it when run again: flaky with this mutant" in flaky["reason"]
