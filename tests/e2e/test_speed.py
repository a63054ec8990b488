"""The speed work never changes a verdict: per-test selection, warm workers and collected sessions
against a fresh interpreter running every relevant test, on the fixture scenarios; and the run
narrates on stderr while stdout carries the report alone."""

import pytest

from tests.e2e.conftest import FAST, FRESH_ALL


def _results(report: dict) -> dict[str, tuple[str, str, str]]:
    """Per mutant: what each cohort did (not covered reads as not caught) and the assessment."""
    plain = {"not-covered": "survived"}
    return {c["mutation_id"]: (plain.get(c["existing"]["result"], c["existing"]["result"]),
                               plain.get(c["modified"]["result"], c["modified"]["result"]), c["assessment"])
            for c in report["comparisons"]}


@pytest.mark.parametrize("scenario", ["demo", "module-level", "weakened-checks", "src-layout"])
def test_selection_and_warm_workers_give_the_verdicts_of_fresh_runs_of_every_relevant_test(
        shared_evaluation, scenario):
    evaluated = shared_evaluation(scenario, *FAST)
    assert evaluated.returncode in (0, 5), evaluated.stderr
    fast = evaluated.report
    reference = shared_evaluation(scenario, *FAST, *FRESH_ALL)  # (the cluster's killed-worker test reads it too)
    assert reference.returncode in (0, 5), reference.stderr
    slow = reference.report
    runner = fast["execution"]["runner"]
    if scenario == "demo":  # its mutants lie in function bodies: their runs fork a session that collected once
        assert "forked from a pytest session per job slot that had imported the project" in runner, runner
    assert "forked from a" in runner and "fresh interpreter" not in runner, runner
    assert slow["execution"]["runner"].startswith("a fresh interpreter per run")
    assert slow["execution"]["test_selection"].startswith("every relevant test")
    # (No witness search, which is bounded in time: no survivor leaves the comparisons in one run only.)
    fast_results, slow_results = _results(fast), _results(slow)
    assert fast_results.keys() == slow_results.keys() and fast_results
    assert fast_results == slow_results


def test_without_a_terminal_progress_and_narration_go_to_stderr_and_the_report_alone_to_stdout(shared_evaluation):
    done = shared_evaluation("demo", *FAST)  # run without a terminal, like every evaluation here
    assert done.returncode in (0, 5), done.stderr
    report = done.report
    assert done.stdout.lstrip().startswith("# ")  # the Markdown report, nothing before it
    assert "Baseline:" not in done.stdout and "Progress:" not in done.stdout
    progress = [line for line in done.stderr.splitlines() if line.startswith("Progress: ")]
    assert progress and progress[-1].startswith("Progress: ") and " killed, " in progress[-1]
    last = progress[-1].split()[1]
    assert last.split("/")[0] == last.split("/")[1], progress  # the last line says every run is done
    # kills are counted in mutants (each runs in two cohorts), as the report counts them
    killed = int(progress[-1].split(", ")[1].split()[0])
    assert f"{killed} mutant" in progress[-1].split(", ")[1] and \
        killed == sum(1 for m in report["mutations"] if m["result"] == "killed" or any(
            c["mutation_id"] == m["id"] and c["existing"]["result"] == "killed" for c in report["comparisons"]))
    assert "Baseline, modified: green" in done.stderr
    not_covered = [m for m in report["mutations"] if m["result"] == "not-covered"]
    for mutation in not_covered:  # decided without a run, and said so
        assert "no test executes" in (mutation["reason"] or "")
