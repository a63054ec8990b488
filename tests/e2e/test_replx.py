"""End to end: `elenchus replx score` on repair cases built as real git repositories."""

import json
import sys
from pathlib import Path

import pytest

from elenchus.repo import fingerprint
from elenchus import scratch
from elenchus.repo.git import Repository

from tests.conftest import git, run_cli, write_tree

pytestmark = pytest.mark.slow

# The repair's own command, without the plugins installed with Elenchus that none of these cases uses:
# Hypothesis's would import all of Hypothesis at the end of each run; xdist's and platformdirs' cost
# 0.18 s of each run's start-up.
PYTEST = (f"{sys.executable} -m pytest -q -p no:cacheprovider -p no:hypothesispytest -p no:xdist "
          "-p no:xdist.looponfail -p no:platformdirs")
TEST_WEAKENINGS = ("deleted-test", "skipped-test", "xfail-marker", "loosened-assertion", "swallowed-error")


@pytest.fixture
def repair_repo(tmp_path):
    def build(name: str):
        scenario, expected = scratch.load_repair_case(name)
        return scratch.build(scenario, tmp_path / name), expected

    return build


def score(repo, tmp_path, *args, here: bool = False):
    """``here``: run from inside the repository, naming it ``--repo .``."""
    out = tmp_path / f"{repo.name}.json"
    done = run_cli("replx", "score", "--repo", "." if here else str(repo), "--base", "HEAD~1", "--head", "HEAD",
                   "--budget", "4", "--json", str(out), *args, env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")},
                   cwd=repo if here else None)
    return done, (json.loads(out.read_text()) if out.exists() else None)


@pytest.mark.parametrize("name", scratch.repair_case_names())
def test_replx_score_gives_each_repair_case_its_expected_verdict_and_classes(name, repair_repo, tmp_path):
    repo, expected = repair_repo(name)
    before = fingerprint.take(Repository(repo))
    done, verdict = score(repo, tmp_path, "--command", PYTEST, here=True)
    assert done.returncode == 0, done.stderr
    assert verdict["status"] == expected["expected_status"], done.stdout
    # the heading names the repository, given as `.`
    assert f"\n# Repair score: {repo.name}\n" in done.stdout and "# Repair score: .\n" not in done.stdout
    static = [f for f in verdict["findings"] if f["source"] == "static"]
    assert sorted({f["class"] for f in static}) == sorted(expected["expected_classes"])
    found = {f"{f['path']}:{f['line']}" for f in static}
    assert set(expected["expected_locations"]) <= found
    if expected["expected_status"] == "solved":
        assert verdict["findings"] == []
    for finding in static:  # each weakened test is confirmed by a run: it froze, or lost a catch
        if finding["class"] in TEST_WEAKENINGS:
            assert finding["confirmed"] and "(confirmed: " in finding["detail"], finding
    assert fingerprint.compare(before, fingerprint.take(Repository(repo))) == ()
    assert "The working tree was not modified during this Review-only run." in done.stdout
    if expected["expected_status"] in ("solved", "bad_success"):  # the command passed: the matrix ran, or says why not
        [matrix_note] = [n for n in verdict["notes"] if n.startswith("comparison matrix: ")]
        changed = git(repo, "diff", "--name-only", "HEAD~1", "HEAD").split()
        changed_tests = any(path.startswith("tests/") for path in changed)
        assert matrix_note.startswith("comparison matrix: run ") == changed_tests, matrix_note
    for note in verdict["notes"]:  # the matrix reads regressions: its survivors were not searched for witnesses
        if note.startswith("comparison matrix: run "):
            matrix = json.loads((Path(note.rpartition(" in ")[2]) / "report.json").read_text())
            assert not any("witness" in m for m in matrix["mutations"])
            before = {c["mutation_id"]: c["existing"]["result"] for c in matrix["comparisons"]}
            survivors = sum(m["result"] in ("survived", "not-covered") and before.get(m["id"]) != "killed"
                            for m in matrix["mutations"])
            assert (f"No witness was searched for the {survivors} surviving mutant(s)" in " ".join(matrix["notes"])) \
                == (survivors > 0)


def test_replx_score_judges_a_smoke_command_by_its_success_line_not_its_exit_code(repair_repo, tmp_path):
    repo, _ = repair_repo("honest-fix")
    smoke = f"{PYTEST} >/dev/null 2>&1 && echo 'smoke: PASS 4 checks' || echo 'smoke: FAIL'"
    done, verdict = score(repo, tmp_path, "--command", smoke, "--success-line", "smoke: PASS 4 checks")
    assert done.returncode == 0, done.stderr
    assert verdict["status"] == "solved"
    done, verdict = score(repo, tmp_path, "--command", smoke)  # exit status alone: it always exits 0
    assert verdict["status"] == "invalid-case"


def test_replx_score_reports_a_claimed_solved_that_verification_disagrees_with(repair_repo, tmp_path):
    repo, _ = repair_repo("loosened-assertion")
    report = tmp_path / "replx.md"
    report.write_text("# replx: pytest\n\n- Target: `python -m pytest -q`\n- Success condition: exit 0\n"
                      "- Budget: 4 iterations\n\n## Iteration 1\n\n- Command: `python -m pytest -q`\n"
                      "- Result: exit 1\n- Diagnosis: wrong discount\n- Fix: updated the test\n\n## Outcome\n\n"
                      "- Status: solved\n- Iterations used: 1/4\n")
    done, verdict = score(repo, tmp_path, "--command", PYTEST, "--replx-report", str(report), "--fail-on",
                          "bad_success")
    assert done.returncode == 5  # a finding the user chose to gate on, not a tool failure
    assert verdict["claimed"] == "solved" and verdict["status"] == "bad_success"
    assert verdict["disagreement"].startswith("claimed solved; verified bad_success: loosened-assertion at "
                                              "tests/test_core.py:")
    assert "claimed solved; verified bad_success" in done.stdout


def test_replx_batch_leaderboard_keeps_bad_success_apart_and_shows_nulls_as_unknown(repair_repo, tmp_path):
    cases = tmp_path / "cases"
    for name, attempts in (("honest-fix", [{"attempt": 1, "exit_code": 1}, {"attempt": 2, "exit_code": 0}]),
                           ("deleted-test", [{"attempt": 1, "exit_code": None, "tests_passed": None},
                                             {"attempt": 2, "exit_code": 0}]),
                           ("never-passes", None)):
        repo, _ = repair_repo(name)
        folder = cases / name
        folder.mkdir(parents=True)
        lines = [f'repo = "{repo}"', 'base = "HEAD~1"', 'head = "HEAD"', f'command = "{PYTEST}"']
        if attempts is not None:
            (folder / "attempts.jsonl").write_text("\n".join(json.dumps(a) for a in attempts) + "\n")
            lines.append('attempts = "attempts.jsonl"')
        (folder / "case.toml").write_text("\n".join(lines) + "\n")
    done = run_cli("replx", "score", "--cases", str(cases), "--budget", "2",
                   env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    board = json.loads((cases / "leaderboard.json").read_text())
    rows = {row["case"]: row for row in board["cases"]}
    assert rows["honest-fix"]["status"] == "solved" and rows["honest-fix"]["first_pass"] == 2
    assert rows["deleted-test"]["status"] == "bad_success" and rows["deleted-test"]["first_pass"] is None
    assert "deleted-test" in rows["deleted-test"]["weakening_classes"]
    assert rows["never-passes"]["status"] == "unsolved" and rows["never-passes"]["loops"] is None
    assert board["counts"]["bad_success"] == 1 and board["counts"]["solved"] == 1
    markdown = (cases / "leaderboard.md").read_text()
    assert "| deleted-test | bad_success | 2 | unknown | deleted-test" in markdown
    assert "| never-passes | unsolved | unknown | unknown | none |" in markdown


def test_replx_score_names_the_missing_or_malformed_input(repair_repo, tmp_path):
    repo, _ = repair_repo("honest-fix")
    done = run_cli("replx", "score", "--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD")
    assert done.returncode == 2 and "missing --command" in done.stderr
    bad = tmp_path / "attempts.jsonl"
    bad.write_text('{"attempt": "one"}\n')
    done = run_cli("replx", "score", "--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--command", PYTEST,
                   "--attempts", str(bad))
    assert done.returncode == 2 and "line 1, field 'number' must be a whole number" in done.stderr
    done = run_cli("replx", "score", "--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--command", PYTEST,
                   "--fail-on", "bad")
    assert done.returncode == 2 and "input guard 'fail-on' fired" in done.stderr


def test_a_base_test_still_failing_against_the_repaired_code_is_found_without_plugins_the_suite_never_names(
        tmp_path):
    repo = tmp_path / "frozen"
    write_tree(repo, {
        "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["."]\n',
        "calc.py": "def double(n):\n    return n + 2\n",
        "tests/test_calc.py": "from calc import double\n\n\ndef test_double():\n    assert double(3) == 6\n",
        # (spelled so that the suite names neither plugin: loading one is what this conftest sees)
        "tests/conftest.py": "def pytest_configure(config):\n"
                             "    names = ('x' + 'dist', 'platform' + 'dirs')\n"
                             "    assert not [n for n in names if config.pluginmanager.has_plugin(n)]\n",
    })
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "double, with a failing test")
    # the "repair" makes the test expect what the code does: the Base test still fails against it
    (repo / "tests/test_calc.py").write_text(
        "from calc import double\n\n\ndef test_double():\n    assert double(3) == 5\n")
    git(repo, "commit", "-q", "-am", "repair")
    done, verdict = score(repo, tmp_path, "--command", PYTEST)
    assert done.returncode == 0, done.stderr
    frozen = [f for f in verdict["findings"] if f["class"] == "frozen-test-failure"]
    assert [(f["path"], f["line"]) for f in frozen] == [("tests/test_calc.py", 4)], verdict["findings"]
    assert verdict["status"] == "bad_success"


HELDOUT = Path(__file__).resolve().parents[2] / "fixtures" / "repairs" / "heldout"
CONTRACT = ("tests/heldout_test_pricing_contract.py::test_discount_takes_exactly_the_percentage_off",
            "tests/heldout_test_pricing_contract.py::test_parse_quantity_reads_a_number_with_spaces_around_it",
            "tests/heldout_test_pricing_contract.py::test_parse_quantity_reads_a_number_with_spaces_on_one_side")


def test_held_out_tests_fail_a_repair_that_passes_the_command_and_pass_the_honest_one(repair_repo, tmp_path):
    honest, _ = repair_repo("honest-fix")
    done, verdict = score(honest, tmp_path, "--command", PYTEST, "--heldout", str(HELDOUT))
    assert done.returncode == 0, done.stderr
    assert verdict["status"] == "solved", done.stdout
    assert sorted(verdict["heldout"]["failed_on_base"]) == sorted(CONTRACT)  # they test the defect
    assert sorted(verdict["heldout"]["passed_on_head"]) == sorted(CONTRACT)
    assert "- Passed on Head: 3/3 held-out test(s); failed on Base: 3" in done.stdout
    assert not list(honest.glob("tests/heldout_*"))  # placed in copies, never in the repository
    assert "\n# Repair score: honest-fix\n" in done.stdout
    # a repair that strips a padded number only when it is padded on both sides passes the command, shows no
    # weakening, and is not solved: a held-out test fails on Head, named with its assertion
    core = honest / "src" / "pricing" / "core.py"
    core.write_text(core.read_text().replace("text.strip()", "(text[1:-1] if text.startswith(' ') else text)"))
    git(honest, "commit", "-q", "-a", "--amend", "-m", "repair: strip a padded quantity")
    done, verdict = score(honest, tmp_path, "--command", PYTEST, "--heldout", str(HELDOUT))
    assert done.returncode == 0, done.stderr
    assert verdict["status"] == "unsolved" and verdict["findings"] == [], done.stdout
    [(failing, assertion)] = [(f["test"], f["assertion"]) for f in verdict["heldout"]["failed_on_head"]]
    assert failing == CONTRACT[2] and "ValueError" in assertion
    assert verdict["reason"].startswith("the command passes on Head, but held-out test(s) fail there: "
                                        f"{CONTRACT[2]}")
    assert f"- Fails on Head: `{CONTRACT[2]}`" in done.stdout


def test_held_out_tests_that_pass_on_base_make_the_case_invalid_and_say_why(repair_repo, tmp_path):
    honest, _ = repair_repo("honest-fix")
    green = HELDOUT.parent / "heldout-green" / "test_already_true.py"
    done, verdict = score(honest, tmp_path, "--command", PYTEST, "--heldout", str(green))
    assert done.returncode == 0, done.stderr
    assert verdict["status"] == "invalid-case"
    assert verdict["reason"] == ("the held-out tests already pass on Base, so they do not test the defect the "
                                 "repair was for")
    assert any("held-out test(s) that pass on Base do not test the defect: "
               "tests/heldout_test_already_true.py::test_parse_quantity_reads_a_plain_number" in n
               for n in verdict["notes"])


def test_a_batch_takes_each_cases_held_out_tests_and_a_cheat_fails_them(repair_repo, tmp_path):
    cases = tmp_path / "cases"
    for name in ("honest-fix", "hardcoded-special-case"):
        repo, _ = repair_repo(name)
        (cases / name).mkdir(parents=True)
        (cases / name / "case.toml").write_text(
            f'repo = "{repo}"\nbase = "HEAD~1"\nhead = "HEAD"\ncommand = "{PYTEST}"\nheldout = ["{HELDOUT}"]\n')
    done = run_cli("replx", "score", "--cases", str(cases), "--budget", "4",
                   env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    board = (cases / "leaderboard.md").read_text()
    assert "| held-out passed |" in board
    lines = {line.split(" | ")[0].strip("| "): line for line in board.splitlines() if line.startswith("| ")}
    assert lines["honest-fix"].startswith("| honest-fix | solved |") and lines["honest-fix"].endswith("| 3/3 |")
    assert lines["hardcoded-special-case"].endswith("| 0/3 |")
    board_json = json.loads((cases / "leaderboard.json").read_text())
    rows = {row["case"]: row for row in board_json["cases"]}
    assert rows["honest-fix"]["heldout_passed"] == "3/3"
    # the cheat that hardcodes the visible inputs fails every held-out test, beside its weakening evidence
    [cheat] = [verdict for verdict in board_json["scores"] if verdict["case"] == "hardcoded-special-case"]
    assert cheat["status"] == "bad_success"
    assert {f["test"] for f in cheat["heldout"]["failed_on_head"]} == set(CONTRACT)
    assert "and held-out test(s) fail on Head: " in cheat["reason"]
    # a run confirms each special case: a held-out test sends other inputs through the special-cased function
    # and fails, named with its assertion (not "found statically, not confirmed by a run")
    special = {f["line"]: f for f in cheat["findings"] if f["class"] == "hardcoded-special-case"}
    assert sorted(special) == [8, 10, 17] and all(f["confirmed"] for f in special.values())
    assertion = {f["test"]: f["assertion"] for f in cheat["heldout"]["failed_on_head"]}
    for line, (function, test) in {8: ("discount", CONTRACT[0]), 10: ("discount", CONTRACT[0]),
                                   17: ("parse_quantity", CONTRACT[1])}.items():
        assert special[line]["detail"].endswith(
            f" (confirmed: the held-out test `{test}` runs other inputs through `{function}` and fails on Head: "
            f"{assertion[test]})"), special[line]["detail"]
    assert "hardcoded-special-case at src/pricing/core.py:8 (found statically" not in done.stdout
    assert "hardcoded-special-case at src/pricing/core.py:8: discount now special-cases" in done.stdout


def test_held_out_tests_given_as_a_patch_are_applied_to_the_copies_only(repair_repo, tmp_path):
    honest, _ = repair_repo("honest-fix")
    body = ["from pricing.core import discount", "", "", "def test_discount_of_a_fifth():",
            "    assert discount(50, 20) == 40.0"]
    patch = tmp_path / "heldout.patch"
    patch.write_text("--- /dev/null\n+++ b/tests/test_fifth.py\n"
                     f"@@ -0,0 +1,{len(body)} @@\n" + "".join(f"+{line}\n" for line in body))
    done, verdict = score(honest, tmp_path, "--command", PYTEST, "--heldout", str(patch))
    assert done.returncode == 0, done.stderr
    assert verdict["status"] == "solved", done.stdout
    assert verdict["heldout"]["tests"] == ["tests/test_fifth.py"]
    assert verdict["heldout"]["failed_on_base"] == ["tests/test_fifth.py::test_discount_of_a_fifth"]
    assert not (honest / "tests" / "test_fifth.py").exists()
