"""End to end: the real CLI on fixture repositories, real pytest subprocesses, real reports."""

import json
import os
import shutil
from pathlib import Path

import pytest

from elenchus.execution import sandbox
from elenchus.schemas import validate

from tests.conftest import run_cli
from tests.e2e.conftest import FAST, TIMEOUTS, by_assessment, mutation, no_process_mentions

pytestmark = pytest.mark.slow

SECTIONS = ["## Evaluation Scope", "## Existing Protection", "## Modified Test Contribution", "## Still At Risk",
            "## Test Quality Concerns"]


def test_evaluate_demo_reports_incremental_protection_and_unprotected_incidents(shared_evaluation):
    done = shared_evaluation("demo", *FAST)  # the evaluation the speed and cluster tests compare too
    report, runs = done.report, done.runs
    assert done.returncode == 0, done.stderr
    validate("mutation-report", report)
    found = by_assessment(report)
    assert found.get("incremental-protection") and found.get("unprotected")
    for comparison in found["incremental-protection"]:
        assert comparison["modified"]["kill"]["test"].startswith("tests/test_tags.py::")
    markdown = (runs / report["run"]["id"] / "report.md").read_text()
    assert [markdown.index(s) for s in SECTIONS] == sorted(markdown.index(s) for s in SECTIONS)
    assert "The working tree was not modified during this Review-only run." in done.stdout
    assert report["post_flight"] == {"worktree_unchanged": True, "changes": []}
    for word in ("score", "ROR", "AOR", "merge"):
        assert word not in markdown
    lines = (runs / report["run"]["id"] / "runs.jsonl").read_text().splitlines()
    assert len(lines) == 2 * len(report["mutations"])  # one line per mutant x cohort
    # --no-witnesses: no survivor has a witness or is called likely equivalent, and the report says why
    before = {c["mutation_id"]: c["existing"]["result"] for c in report["comparisons"]}
    survivors = [m for m in report["mutations"] if m["result"] in ("survived", "not-covered")
                 and before.get(m["id"]) != "killed"]
    assert survivors and not any("witness" in m for m in report["mutations"])
    assert not any(r["reason"].startswith("likely equivalent") for r in report["rejected"])
    assert f"No witness was searched for the {len(survivors)} surviving mutant(s) (the search was turned off: " \
           "--no-witnesses" in " ".join(report["notes"])


def test_evaluate_loosened_and_deleted_tests_yield_protection_regressions_attributed_to_them(evaluate):
    done, report, _, _ = evaluate("weakened-test", "--scope", "current-change", "--budget", "8",
                                  "--fail-on", "protection-regression", "--no-witnesses")
    assert done.returncode == 5, done.stderr  # the CI user asked to fail on this finding
    regressions = by_assessment(report)["protection-regression"]
    killers = {c["existing"]["kill"]["test"] for c in regressions}
    assert "tests/test_core.py::test_chunks_keeps_every_element_in_order" in killers
    assert "tests/test_core.py::test_chunks_rejects_a_zero_size" in killers
    incidents = [mutation(report, c["mutation_id"])["incident"] for c in regressions]
    assert any("drops the last element" in incident for incident in incidents)
    concerns = {(q["concern"], q["test"]) for q in report["test_quality"]}
    assert ("weak-assertion", "test_chunks_keeps_every_element_in_order") in concerns
    assert ("removed-test", "test_chunks_rejects_a_zero_size") in concerns


def test_evaluate_api_rename_is_not_comparable_never_a_regression(evaluate):
    done, report, _, _ = evaluate("api-rename", "--scope", "current-change", "--budget", "4", "--no-witnesses")
    assert done.returncode == 0, done.stderr
    assert report["baseline"]["existing"]["status"] == "not-comparable"
    assessments = {c["assessment"] for c in report["comparisons"]}
    assert assessments == {"not-comparable"}
    assert "cannot import name 'chunks'" in report["comparisons"][0]["reason"]
    # whether the old tests catch any of them is unknown: the report does not say they caught none
    count = len(report["comparisons"])
    assert "## Existing Protection\n\nNo challenged incident was shown caught by the tests that existed before the " \
           f"change: for {count} of the {count} challenged, whether they catch it is unknown" in done.stdout, done.stdout


def test_evaluate_baseline_red_names_the_failing_test_and_classifies_nothing(evaluate):
    done, report, _, _ = evaluate("baseline-red", "--scope", "current-change", "--budget", "4")
    assert done.returncode == 4
    assert report["baseline"]["modified"]["status"] == "baseline-red"
    assert report["baseline"]["modified"]["failing_tests"] == [
        "tests/test_core.py::test_normalize_tag_ignores_case_and_spaces"]
    assert report["comparisons"] == []
    assert {m["result"] for m in report["mutations"]} == {"not-run"}
    # No section claims anything was caught or protected when nothing ran; each says why.
    assert "caught" not in done.stdout.split("## Existing Protection")[1].split("## Modified")[0].replace(
        "Nothing was evaluated", "")
    assert "Nothing: every challenged incident was caught" not in done.stdout
    assert "## Existing Protection\n\nNothing was evaluated: the modified baseline is baseline-red." in done.stdout
    assert "Whether the tests catch these incidents is unknown: the modified baseline is baseline-red." \
        in done.stdout


def test_evaluate_flaky_test_is_reported_and_never_counted_as_a_kill(evaluate, tmp_path):
    state = tmp_path / "flaky-state"
    state.mkdir()
    # The flakiness lives in a directory outside the workspace, which a sandbox would hide.
    done, report, _, _ = evaluate("flaky-test", "--scope", "current-change", "--budget", "4", "--isolation", "none",
                                  "--no-witnesses",
                                  env={"BATCHING_FLAKY_STATE": str(state)})
    assert done.returncode == 0, done.stderr
    flaky = "tests/test_timing.py::test_chunks_of_a_large_batch_arrive_in_time"
    assert report["baseline"]["modified"]["status"] == "flaky"
    assert report["baseline"]["modified"]["flaky_tests"] == [flaky]
    kills = [c[side]["kill"]["test"] for c in report["comparisons"] for side in ("existing", "modified")
             if c[side]["kill"]]
    assert kills and flaky not in kills
    assert ("flaky", "test_chunks_of_a_large_batch_arrive_in_time") in {
        (q["concern"], q["test"]) for q in report["test_quality"]}


def test_evaluate_endless_loop_mutant_times_out_within_its_bound_and_leaves_no_process(shared_evaluation, tmp_path):
    done = shared_evaluation(*TIMEOUTS)  # (the evaluation the tool-report tests read)
    assert done.returncode == 0, done.stderr
    report, repo, runs = done.report, done.repo, tmp_path / "runs"
    # a copy of its runs and its result store (with the store's key), for the evaluation made again below
    shutil.copytree(done.runs, runs)
    shutil.copytree(done.runs.parent / "cache", tmp_path / "cache")
    timeouts = [m for m in report["mutations"] if m["result"] == "timeout"]
    assert timeouts, "no mutant timed out"
    assert all(m["kill"] is None for m in timeouts)
    bound = 1 * report["baseline"]["modified"]["duration_seconds"] + 2.0
    records = [json.loads(line) for line in (runs / report["run"]["id"] / "runs.jsonl").read_text().splitlines()]
    timed = [r for r in records if r["outcome"] == "timeout"]
    assert timed and all(r["duration"] <= r["attempt"] * bound + 3.0 for r in timed)
    assert all(r["timeout"] <= r["attempt"] * bound + 0.01 for r in timed)  # the constant given, not 5 s
    # a second run may take at least as long as every relevant test could (timed without line coverage
    # when a run of selected tests timed out): a slow kill is not lost
    untraced = report["baseline"]["modified"].get("untraced_seconds")
    assert untraced is not None and "Timing the modified tests without line coverage" in done.stderr
    least = min(bound, 1 * untraced + 2.0)
    assert all(r["timeout"] >= least - 0.01 for r in timed if r["attempt"] == 2)
    for mutation in timeouts:  # each was given a second run with double the limit before it counted
        attempts = sorted(r["attempt"] for r in timed if r["mutant_id"] == mutation["id"] and r["cohort"] == "modified")
        assert attempts == [1, 2]
    cached = [json.loads(p.read_text()) for p in (runs.parent / "cache").rglob("*.json")]
    stored = [entry for entry in cached if entry.get("outcome") == "timeout"]
    assert len(stored) == len(timeouts) and not any(entry.get("outcome") == "inconclusive" for entry in cached)
    assert all("nor within" in entry["reason"] for entry in stored)  # the verdict, both limits, is what is kept
    assert no_process_mentions("elenchus-") or no_process_mentions(report["run"]["id"])
    comparisons = {c["mutation_id"]: c for c in report["comparisons"]}
    assert all(comparisons[m["id"]]["assessment"] == "inconclusive" for m in timeouts)
    # Run again with a setting that changes only the witness search: every run comes from the cache,
    # the endless loops included, so nothing waits for them again.
    again = run_cli("evaluate", "--repo", str(repo), *[a for a in TIMEOUTS[1:] if a != "--fresh"], "--witness-time",
                    "4", env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert again.returncode == 0, again.stderr
    second = json.loads(sorted(runs.glob("*/report.json"))[-1].read_text())
    records = [json.loads(line) for line in (runs / second["run"]["id"] / "runs.jsonl").read_text().splitlines()]
    assert records and all(r.get("cached") for r in records)
    assert sorted(m["id"] for m in second["mutations"] if m["result"] == "timeout") == sorted(m["id"] for m in timeouts)
    reasons = {m["id"]: m["reason"] for m in second["mutations"] if m["result"] == "timeout"}
    assert reasons == {m["id"]: m["reason"] for m in timeouts}


RING = """\
def position(ring, target):
    \"\"\"Steps around the ring from its start to the first place holding target.\"\"\"
    step = 0
    while ring[step % len(ring)] != target:
        step += 1
    return step
"""


def test_a_mutant_that_makes_one_test_loop_and_another_fail_is_caught_by_the_other(tmp_path):
    # (funcy's `takewhile` with `seq is EMPTY` negated: `test_split_by` looped, `test_takewhile` failed; the
    # verdict was a catch or a timeout as the runs' test order fell)
    from tests.conftest import FAST_ENV, committed, git, write_tree

    repo = committed(tmp_path / "repo", {"tests/test_other.py": "def test_nothing():\n    assert True\n"})
    (repo / "ring.py").write_text(RING)
    write_tree(repo, {"tests/test_ring.py": """
        import time

        from ring import position

        def test_a_second_place_of_three():
            time.sleep(0.3)  # (the slower test: a mutant's run starts with the faster one, which loops)
            assert position([1, 2, 3], 2) == 1

        def test_b_ring_of_one_value():
            assert position([2, 2], 2) == 0
    """})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")
    out = tmp_path / "report.json"
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "40", "--jobs", "2",
                   "--no-witnesses", "--timeout-factor", "1", "--timeout-constant", "2", "--json", str(out),
                   env={**FAST_ENV, "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    # the loop's condition negated: [2, 2] keeps it true forever; [1, 2, 3] ends it at once, giving 0 for 1
    negated = [m for m in report["mutations"] if m["location"]["line"] == 4
               and m["family"] in ("negated-condition", "equality-inversion")]
    records = [json.loads(line) for line in next((tmp_path / "runs").glob("*/runs.jsonl")).read_text().splitlines()]
    assert negated
    for mutation in negated:
        assert mutation["result"] == "killed", mutation
        assert mutation["kill"]["test"] == "tests/test_ring.py::test_a_second_place_of_three", mutation["kill"]
        runs = [(r["attempt"], r["outcome"], r["selection"]) for r in records if r["mutant_id"] == mutation["id"]]
        assert runs == [(1, "timeout", "relevant tests"), (2, "timeout", "relevant tests"),
                        (3, "killed", "without a test that never finished")], runs
        assert "running tests/test_ring.py::test_b_ring_of_one_value" in next(
            r["reason"] for r in records if r["mutant_id"] == mutation["id"] and r["attempt"] == 2)
    # `step += 1` dropped loops on [1, 2, 3] while [2, 2] passes: left out, nothing catches it, so it stays a timeout
    stuck = [m for m in report["mutations"] if m["location"]["line"] == 5 and m["result"] != "survived"]
    assert stuck and all(m["result"] == "timeout" for m in stuck), [(m["incident"], m["result"]) for m in stuck]
    assert all(m["reason"].startswith("no result within") for m in stuck), [m["reason"] for m in stuck]


def test_evaluate_runs_a_slow_but_finishing_mutant_again_with_double_the_limit_instead_of_a_timeout(evaluate):
    # factor 1: the limit (baseline + 5 s) stays below the mutant's 7 s even with the baseline's coverage recording
    done, report, _, runs = evaluate("slow-mutant", "--scope", "current-change", "--fresh", "--timeout-factor", "1",
                                     "--no-witnesses")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (runs / report["run"]["id"] / "runs.jsonl").read_text().splitlines()]
    slow_ids = {r["mutant_id"] for r in records if r["outcome"] == "timeout"}
    assert len(slow_ids) == 1
    mine = sorted((r["attempt"], r["outcome"]) for r in records if r["mutant_id"] in slow_ids)
    assert mine == [(1, "timeout"), (2, "survived")]
    # It only pauses longer: a survivor, not a timeout.
    assert not any(m["result"] == "timeout" for m in report["mutations"])


def test_evaluate_without_a_terminal_or_scope_prints_the_question_and_exits_3(evaluate):
    done, report, _, runs = evaluate("demo")
    assert done.returncode == 3
    assert "Which scope should Elenchus evaluate?" in done.stderr
    assert "1. Current change: existing and modified tests (Recommended)" in done.stderr
    assert report is None and not runs.exists()


def test_evaluate_save_and_json_write_only_where_asked(build_scenario, tmp_path):
    repo = build_scenario("demo")
    copy = tmp_path / "copy.json"
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "2", "--save",
                   "--no-witnesses", "--json", str(copy), env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    saved = json.loads((repo / ".socratic" / "elenchus-report.json").read_text())
    assert saved == json.loads(copy.read_text())
    validate("mutation-report", saved)


def test_evaluate_resume_reuses_recorded_runs_and_starts_over_when_the_repo_changed(build_scenario, tmp_path):
    repo = build_scenario("demo")
    env = {"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")}
    args = ("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "3", "--no-witnesses")
    first = run_cli(*args, env=env)
    assert first.returncode == 0, first.stderr
    run_id = next((tmp_path / "runs").iterdir()).name
    runs_file = tmp_path / "runs" / run_id / "runs.jsonl"
    recorded = runs_file.read_text()
    again = run_cli(*args, "--resume", run_id, env=env)
    assert again.returncode == 0, again.stderr
    assert f"Resuming {run_id}: " in again.stderr
    assert runs_file.read_text() == recorded  # nothing was rerun
    (repo / "notes.txt").write_text("an untracked file changes the working tree\n")
    third = run_cli(*args, "--head", "HEAD", "--base", "HEAD~1", "--resume", run_id, env=env)
    assert third.returncode == 0, third.stderr
    assert f"Starting over instead of resuming {run_id}: the worktree fingerprint differs" in third.stderr


def test_evaluate_without_a_sandbox_blocks_a_suite_whose_conftest_phones_home_unless_allowed(evaluate):
    done, report, _, runs = evaluate("unsafe-conftest", "--scope", "current-change", "--isolation", "none")
    assert done.returncode == 4
    assert "blocked: unsafe command" in done.stderr
    assert "tests/conftest.py:9: destructive: `subprocess.run` runs 'curl -s https://metrics" in done.stderr
    assert '--allow-command "pytest tests/test_core.py"' in done.stderr
    assert report is None and not list(runs.glob("*/runs.jsonl"))


@pytest.mark.skipif(not sandbox.detect("bubblewrap").contains, reason="bubblewrap is not usable here")
def test_evaluate_in_the_sandbox_runs_a_suite_that_looks_unsafe_and_warns(evaluate):
    done, report, _, _ = evaluate("unsafe-conftest", "--scope", "current-change", "--budget", "2", "--no-witnesses")
    assert done.returncode == 0, done.stderr
    assert "running them contained by the sandbox" in done.stderr
    warning = next(n for n in report["notes"] if "contained by the sandbox" in n)
    assert "tests/conftest.py:9" in warning
    assert report["isolation"]["kind"] == "bubblewrap" and report["isolation"]["network"] is False


def test_evaluate_repeated_on_the_same_change_reruns_nothing_unless_fresh(build_scenario, tmp_path):
    repo = build_scenario("demo")
    runs = tmp_path / "runs"
    args = ("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "3", "--no-witnesses")
    seen: set[Path] = set()

    def made() -> Path:
        """The run directory the last evaluation made (names sort by the second only: two in one second
        would not sort in the order they were made)."""
        [new] = set(runs.iterdir()) - seen
        seen.add(new)
        return new

    first = run_cli(*args, env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert first.returncode == 0, first.stderr
    oldest = made()
    first_report = json.loads((oldest / "report.json").read_text())
    first_records = [json.loads(line) for line in (oldest / "runs.jsonl").read_text().splitlines()]
    # Exactly the same evaluation: the whole report is reused, nothing runs, in a run directory of its own.
    second = run_cli(*args, env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert second.returncode == first.returncode, second.stderr
    assert f"Unchanged since run {oldest.name}" in second.stderr and "Baseline" not in second.stderr
    newest = made()
    assert newest != oldest and json.loads((newest / "manifest.json").read_text())["reused_from"] == oldest.name
    second_report = json.loads((newest / "report.json").read_text())
    assert second_report["comparisons"] == first_report["comparisons"]
    assert second_report["mutations"] == first_report["mutations"]
    assert second_report["run"]["id"] == newest.name and second_report["post_flight"]["worktree_unchanged"]
    assert any(f"measured by run {oldest.name}" in note for note in second_report["notes"])
    assert second.stdout.replace(newest.name, oldest.name).split("## ")[1:-1] == \
        first.stdout.split("## ")[1:-1]  # the same report but its notes
    records = [json.loads(line) for line in (newest / "runs.jsonl").read_text().splitlines()]
    assert len(records) == len(first_records) and all(r["cached"] and r["run"] == newest.name for r in records)
    # A setting that changes only the witness search makes it another evaluation: its runs come from
    # the cache one by one (kills and survivals), the baseline too.
    third = run_cli(*args, "--witness-time", "4", env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert third.returncode == 0, third.stderr
    assert ("Baseline, modified: green (reused: nothing it read changed, with the same installed packages; "
            "pass --fresh to run it again)") in third.stderr
    # What the cache keeps: kills, survivals and timeouts that held twice (never a not-covered pair: it did not run).
    settled = {(r["mutant_id"], r["cohort"]) for r in first_records
               if r["outcome"] in ("killed", "survived") or (r["outcome"] == "timeout" and r["attempt"] == 2)}
    latest = made()
    records = [json.loads(line) for line in (latest / "runs.jsonl").read_text().splitlines()]
    assert settled and records
    first_seen = [(r["mutant_id"], r["cohort"], r["outcome"], r["attempt"]) for r in first_records]
    for record in records:
        assert bool(record.get("cached")) == ((record["mutant_id"], record["cohort"]) in settled), \
            (record, first_seen)
    assert json.loads((latest / "report.json").read_text())["comparisons"] == first_report["comparisons"]
    fresh = run_cli(*args, "--fresh", env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert "Baseline: running the modified tests" in fresh.stderr and "Unchanged since" not in fresh.stderr
    # what --fresh measured is kept: the same command next time reuses it, nothing runs
    measured = made()
    again = run_cli(*args, env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert f"Unchanged since run {measured.name}" in again.stderr and "Baseline" not in again.stderr


def test_evaluate_red_pre_change_tests_make_comparisons_not_comparable_and_still_evaluate_the_new_tests(evaluate):
    done, report, _, _ = evaluate("intended-change", "--scope", "current-change", "--budget", "4",
                                  "--no-witnesses")
    assert done.returncode == 0, done.stderr
    assert report["baseline"]["existing"]["status"] == "baseline-red"
    assert report["baseline"]["existing"]["failing_tests"] == [
        "tests/test_core.py::test_normalize_tag_ignores_case_and_spaces"]
    assert report["baseline"]["modified"]["status"] == "green"
    assert report["comparisons"] and {c["assessment"] for c in report["comparisons"]} == {"not-comparable"}
    # each says which tests could not be compared: the old ones, not the current ones the report also lists
    assert {c["reason"] for c in report["comparisons"]} == {
        "the pre-change tests cannot be compared, since these tests fail repeatably without any mutant: "
        "tests/test_core.py::test_normalize_tag_ignores_case_and_spaces"}
    assert {m["result"] for m in report["mutations"]} <= {"killed", "survived", "timeout"}
    assert any("fail against Head without any mutant" in note for note in report["notes"])


def test_evaluate_in_a_shallow_clone_blocks_the_incremental_comparison_and_still_evaluates_the_suite(
        build_scenario, tmp_path):
    import subprocess

    from tests.conftest import REAL_GIT

    origin = build_scenario("demo")
    clone = tmp_path / "shallow"
    subprocess.run([REAL_GIT, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)], check=True)
    done = run_cli("evaluate", "--repo", str(clone), "--scope", "current-change", "--budget", "4", "--no-witnesses",
                   env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    assert "Base: HEAD~1 is unavailable (snapshot unavailable:" in done.stderr
    report = json.loads(next((tmp_path / "runs").glob("*/report.json")).read_text())
    validate("mutation-report", report)
    assert report["snapshots"]["base"]["sha"] is None
    assert report["baseline"]["existing"]["status"] == "blocked"
    reason = report["baseline"]["existing"]["reason"]
    assert reason.startswith("the Base revision is not in this shallow clone") and "`git fetch --deepen N`" in reason
    assert "shallow clone, which holds only the most recent commits" in done.stderr  # the cause, said up front
    assert {c["assessment"] for c in report["comparisons"]} == {"blocked"}
    assert {m["result"] for m in report["mutations"]} & {"killed", "survived"}


def test_evaluate_challenges_changed_module_and_class_level_lines_and_names_what_they_assign(evaluate):
    done, report, _, _ = evaluate("module-level", "--scope", "current-change", "--budget", "40", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    by_line: dict[int, list[dict]] = {}
    for mutation in report["mutations"]:
        by_line.setdefault(mutation["location"]["line"], []).append(mutation)
    assert {m["location"]["symbol"] for m in by_line[7]} == {"MAX_BATCH"}  # MAX_BATCH = 128
    assert {m["location"]["symbol"] for m in by_line[8]} == {"TAG_PATTERN"}  # the compiled regex
    assert {m["location"]["symbol"] for m in by_line[12]} == {"UNITS"}  # the new "g" entry
    assert {m["location"]["symbol"] for m in by_line[18]} == {"Policy.retries"}  # annotation-only change

    def result_of(added: str) -> str:
        [found] = [m["result"] for m in report["mutations"] if any(
            line.startswith("+" + added) or line.strip().startswith("+" + added) for line in m["diff"].splitlines())]
        return found

    assert result_of("MAX_BATCH = 129") == "killed"  # module-level code runs at import: still a kill
    assert result_of("    retries: float = 4") == "killed"
    assert result_of('    "g": 1000000001') == "survived"  # no test scales by "g"
    [import_line] = [r for r in report["rejected"] if r["location"]["line"] == 4]
    assert import_line["reason"].startswith("no mutant: an import (`import string`)")
    [site] = report["scope"]["production_sites"]
    assert site["path"] == "src/batching/settings.py" and site["mutants"] >= len(report["mutations"])
    assert site["reason"] is None
    survivors = [m for m in report["mutations"] if m["result"] == "survived"]
    assert survivors and all("passed" in m["reason"] and m["witness"]["call"] for m in survivors)
    # dropping `_` from the tag pattern: the witness puts a `_` into an input the tests used
    [underscore] = [m for m in survivors if "no longer matches `_`" in m["incident"]]
    assert "_" in underscore["witness"]["call"]


def _one_module_repo(root: Path, module: str = "mod", extra: dict | None = None) -> Path:
    """A committed repository of one module, ``pkg/<module>.py`` (``f`` returns 1), and its test."""
    from tests.conftest import git, write_tree

    repo = write_tree(root, {"pkg/__init__.py": "", f"pkg/{module}.py": "def f():\n    return 1\n",
                             f"tests/test_{module}.py": f"from pkg.{module} import f\n\n\ndef test_f():\n"
                                                       "    assert f() == 1\n", **(extra or {})})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    return repo


def test_evaluate_says_why_a_changed_file_that_does_not_parse_has_no_mutant(tmp_path):
    repo = _one_module_repo(tmp_path / "repo", "m")
    (repo / "pkg" / "m.py").write_text("def f(:\n    return 1\n")
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change",
                   env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 4, done.stderr  # the suite cannot even be collected: baseline red
    said = "pkg/m.py: does not parse at Head (line 1: invalid syntax)"
    assert "`pkg/m.py` (no mutant: the file does not parse at Head (line 1: invalid syntax)" in done.stdout
    assert f"- Excluded: {said}" in done.stdout
    assert f"- No mutant could be made for this scope: {said}. Fix the syntax" in done.stdout
    # every command says the same, and none lists its functions as deleted
    for command in ("changes", "mutants"):
        shown = run_cli(command, "--repo", str(repo), "--head", "WORKTREE")
        assert shown.returncode == 0, shown.stderr
        assert f"  {said}" in shown.stdout and "deleted" not in shown.stdout.replace("Tests deleted (0)", "")


def test_a_change_that_touches_no_code_and_no_test_is_nothing_to_evaluate_and_exits_0(tmp_path):
    from tests.conftest import git

    repo = _one_module_repo(tmp_path / "repo", extra={"README.md": "# Demo\n"})
    (repo / "README.md").write_text("# Demo\n\nMore words.\n")  # what a docs-only push holds
    (repo / "pyproject.toml").write_text("[project]\nname = 'demo'\nversion = '1.0'\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "docs")
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--fail-on", "unprotected",
                   "--fail-on", "not-comparable", "--fail-on", "inconclusive",
                   env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stdout + done.stderr  # (it was 4: "blocked: no runnable tests")
    said = ("Nothing to evaluate: the change touches no production code and no test (README.md, pyproject.toml), "
            "so no mutant was made and no test was run")
    assert said in done.stderr
    notes = done.stdout.split("## Notes")[1]
    assert said in notes and "blocked" not in notes and "--fail-on" not in done.stderr
    report = json.loads(next((tmp_path / "runs").glob("*/report.json")).read_text())
    validate("mutation-report", report)
    assert report["mutations"] == [] and report["notes"][0].startswith("Nothing to evaluate")


def test_the_related_tests_the_report_names_are_those_the_runs_took(tmp_path):
    from tests.conftest import git

    # a helper beside the tests imports the module too, but pytest never collects it by name
    repo = _one_module_repo(tmp_path / "repo", extra={"tests/helpers.py": "from pkg.mod import f\n\nVALUE = f()\n"})
    (repo / "pkg" / "mod.py").write_text("def f():\n    return 2 - 1\n")
    git(repo, "commit", "-q", "-am", "two")
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "1", "--no-witnesses",
                   env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    report = json.loads(next((tmp_path / "runs").glob("*/report.json")).read_text())
    assert report["scope"]["detected"]["related_tests"] == ["tests/test_mod.py"]
    assert "- Related existing tests: `tests/test_mod.py`\n" in done.stdout
    # (what the change did to test files, named as files: a test function it removed is a Test Quality finding)
    assert "- Test files modified: none\n- Test files deleted: none\n" in done.stdout


def test_symlinks_out_of_the_repository_are_listed_never_read_nor_mutated(tmp_path):
    from tests.conftest import git

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ext.py").write_text("def secret():\n    return 42\n")
    (outside / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    repo = _one_module_repo(tmp_path / "repo")
    os.symlink(outside / "ext.py", repo / "pkg" / "ext.py")
    os.symlink(outside / "passwd", repo / "pkg" / "pw.py")
    (repo / "pkg" / "mod.py").write_text("def f():\n    return 2 - 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two")
    changes = run_cli("changes", "--repo", str(repo))
    assert changes.returncode == 0, changes.stderr
    assert "pkg/ext.py: symlink (not followed)" in changes.stdout and "pkg/pw.py: symlink (not followed)" in \
        changes.stdout
    assert "secret" not in changes.stdout and "root:x" not in changes.stdout
    assert "pkg/mod.py:1-2 f (modified" in changes.stdout
    mutants = run_cli("mutants", "--repo", str(repo))
    assert mutants.returncode == 0, mutants.stderr
    # (its code, not the digits: a commit's SHA in the narration may hold "42")
    assert "secret" not in mutants.stdout and "return 42" not in mutants.stdout and "root:x" not in mutants.stdout
    assert "pkg/mod.py" in mutants.stdout


def test_a_mutant_that_stops_the_code_loading_is_caught_at_import_never_a_risk_nor_a_kill(tmp_path):
    from tests.conftest import git

    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "units.py").write_text('UNITS = {"k": 1000, "m": 1000000}\n\n\n'
                                           "def scale(value, unit):\n    return value * UNITS[unit]\n")
    (repo / "pkg" / "seq.py").write_text("def last(items):\n    return 0\n")
    (repo / "tests" / "test_units.py").write_text(
        "from pkg.units import scale\n\n\ndef test_scale():\n    assert scale(2, 'k') == 2000\n")
    (repo / "tests" / "test_seq.py").write_text(
        "from pkg.seq import last\n\nEXPECTED = last([1, 2, 3])  # computed while the module is collected\n\n\n"
        "def test_last():\n    assert EXPECTED == 3\n")
    (repo / "pkg" / "memo.py").write_text("def memoized(cache):\n    return lambda function: function\n")
    (repo / "tests" / "test_memo.py").write_text(
        "from pkg.memo import memoized\n\n\n@memoized({})  # applied while the module is collected\n"
        "def one():\n    return 1\n\n\ndef test_one():\n    assert one() == 1\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    with open(repo / "pkg" / "units.py", "a") as handle:  # `""` for "k": the module raises KeyError at import
        handle.write('\n\nDEFAULT_UNIT = "k"\nDEFAULT_FACTOR = UNITS[DEFAULT_UNIT]\n')
    # `- 0` for `- 1`: the test module's import-time call raises IndexError inside `last`
    (repo / "pkg" / "seq.py").write_text("def last(items):\n    return items[len(items) - 1]\n")
    # `None` for `decorator`: the test module's `@memoized({})` calls None after the mutated code returned
    (repo / "pkg" / "memo.py").write_text("def memoized(cache):\n    def decorator(function):\n"
                                          "        return function\n\n    return decorator\n")
    git(repo, "commit", "-q", "-am", "two")
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--fresh", "--no-witnesses",
                   "--fail-on", "unprotected", "--fail-on", "not-comparable", "--fail-on", "inconclusive",
                   env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(next((tmp_path / "runs").glob("*/report.json")).read_text())
    validate("mutation-report", report)
    crashed = {m["id"]: m for m in report["mutations"] if m["result"] == "caught-at-import"}
    diffs = "\n".join(m["diff"] for m in crashed.values())
    assert '+DEFAULT_UNIT = ""' in diffs and "+    return items[len(items) - 0]" in diffs
    reasons = sorted(m["reason"] for m in crashed.values())
    assert reasons == [
        "collecting tests/test_memo.py failed after its import-time code ran the mutated code (TypeError: "
        "'NoneType' object is not callable), before any test ran",
        "collecting tests/test_seq.py failed inside the mutated code (IndexError: list index out of range), "
        "before any test ran",
        "collecting tests/test_units.py failed inside the mutated code (KeyError: ''), before any test ran"]
    assert all(m["kill"] is None for m in crashed.values())
    assessed = {c["mutation_id"]: c["assessment"] for c in report["comparisons"]}
    assert {assessed[i] for i in crashed} == {"caught-at-import"}
    at_risk = done.stdout.split("## Still At Risk")[1].split("## Caught At Import")[0]
    assert "DEFAULT_UNIT" not in at_risk and "len(items) - 0" not in at_risk
    assert "- `DEFAULT_UNIT` is now `\"\"` instead of `\"k\"`" in done.stdout.split("## Caught At Import")[1]
    assert "KeyError" in done.stdout.split("## Caught At Import")[1].split("##")[0]
    stryker = json.loads(next((tmp_path / "runs").glob("*/mutation-testing-report.json")).read_text())
    statuses = [m["status"] for f in stryker["files"].values() for m in f["mutants"] if m["id"] in crashed]
    assert statuses == ["RuntimeError"] * 3


def test_test_quality_speaks_about_the_tests_the_change_touched_and_a_targets_tests(tmp_path):
    from tests.conftest import FAST_ENV, git, write_tree

    repo = write_tree(tmp_path / "repo", {
        "calc.py": "def _double(n):\n    return n * 2\n\n\ndef add(a, b):\n    return a + b\n",
        "tests/test_private.py": "from calc import _double\n\n\ndef test_double():\n    assert _double(2) == 4\n",
        "tests/test_add.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    })
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    write_tree(repo, {"calc.py": "def _double(n):\n    return n * 2\n\n\ndef add(a, b):\n    return b + a\n",
                      "tests/test_add.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
                                           "    assert add(0, 0) == 0\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")

    def concerns(*scope: str) -> set[str]:
        out = tmp_path / f"report-{len(scope)}.json"
        done = run_cli("evaluate", "--repo", str(repo), *scope, "--budget", "2", "--no-witnesses", "--json",
                       str(out), env={**FAST_ENV, "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
        assert done.returncode == 0, done.stderr
        return {c["path"] for c in json.loads(out.read_text())["test_quality"]}

    # the unchanged test file reaches a private name: not the change's concern ...
    assert "tests/test_private.py" not in concerns("--scope", "current-change")
    # ... but the target's tests are what a target evaluation is about
    assert "tests/test_private.py" in concerns("--scope", "target", "--target", "calc.py")
