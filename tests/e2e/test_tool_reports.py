"""End to end: the reports for other tools, from a real evaluation with every assessment in it."""

import json
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree

import pytest

from elenchus.schemas import external_problem, validate

from tests import browser
from tests.e2e.conftest import FAST, TIMEOUTS, by_assessment

pytestmark = pytest.mark.slow

FOUR = ("existing-protection", "incremental-protection", "protection-regression", "unprotected")


@pytest.fixture(scope="module")
def evaluated(shared_evaluation):
    """One evaluation of a change holding all four assessments, run as a GitHub Actions job would (once for
    the session, whichever worker asks first)."""
    done = shared_evaluation("every-assessment", "--scope", "current-change", "--budget", "12",
                             "--html", "{folder}/elenchus.html", "--sarif", "{folder}/elenchus.sarif",
                             "--junit", "{folder}/elenchus.junit.xml", github=True)
    assert done.returncode == 0, done.stderr
    return done, done.report, done.run_dir, done.own, done.repo


def test_the_fixture_holds_every_assessment(evaluated):
    _, report, _, _, _ = evaluated
    validate("mutation-report", report)
    found = by_assessment(report)
    assert all(found.get(name) for name in FOUR), sorted(found)


def test_the_mutation_testing_report_is_valid_and_matches_the_json_report(evaluated):
    _, report, run_dir, _, repo = evaluated
    document = json.loads((run_dir / "mutation-testing-report.json").read_text())
    assert external_problem("mutation-testing-report", document) is None
    assert document["schemaVersion"] == "2"
    core = document["files"]["src/batching/core.py"]
    assert core["source"] == (repo / "src/batching/core.py").read_text()
    mutants = {m["id"]: m for entry in document["files"].values() for m in entry["mutants"]}
    expected = {"killed": "Killed", "survived": "Survived", "not-covered": "NoCoverage", "timeout": "Survived"}
    for mutation in report["mutations"]:
        mutant = mutants[mutation["id"]]
        assert mutant["status"] == expected.get(mutation["result"], mutant["status"])
        assert mutation["incident"] in mutant["description"]
        assert mutant["mutatorName"] == mutation["family"]
        lines = core["source"].splitlines() if mutation["location"]["path"] == "src/batching/core.py" else None
        if lines is not None:  # the located text is on the mutant's lines
            assert mutation["location"]["line"] <= mutant["location"]["start"]["line"] <= \
                mutation["location"]["end_line"] + 1
    for comparison in report["comparisons"]:
        assert comparison["assessment"].replace("-", " ") in mutants[comparison["mutation_id"]]["description"].lower()
    killers = {test for m in mutants.values() for test in m.get("killedBy", ())}
    listed = {t["id"] for entry in document["testFiles"].values() for t in entry["tests"]}
    assert killers and killers <= listed


def test_sarif_has_one_result_per_finding_at_the_mutated_line(evaluated):
    _, report, run_dir, copies, _ = evaluated
    log = json.loads((run_dir / "report.sarif").read_text())
    assert external_problem("sarif", log) is None
    assert (copies / "elenchus.sarif").read_text() == (run_dir / "report.sarif").read_text()
    findings = [c for c in report["comparisons"] if c["assessment"] in ("protection-regression", "unprotected")]
    results = log["runs"][0]["results"]
    assert len(results) == len(findings)
    mutations = {m["id"]: m for m in report["mutations"]}
    for comparison, result in zip(findings, results):
        mutation = mutations[comparison["mutation_id"]]
        assert result["ruleId"] == comparison["assessment"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == mutation["location"]["path"]
        assert mutation["location"]["line"] <= location["region"]["startLine"] <= mutation["location"]["end_line"]
        assert result["message"]["text"].startswith(mutation["incident"].rstrip("."))


def test_under_github_actions_each_finding_is_an_annotation_on_stdout(evaluated):
    done, report, _, _, _ = evaluated
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::warning ")]
    findings = [c for c in report["comparisons"] if c["assessment"] in ("protection-regression", "unprotected")]
    assert len(annotations) == len(findings)
    mutations = {m["id"]: m for m in report["mutations"]}
    first = mutations[findings[0]["mutation_id"]]
    assert annotations[0].startswith(f"::warning file={first['location']['path']},line={first['location']['line']},")
    assert "::warning" not in done.stderr


def test_the_demo_gets_the_three_files_and_no_annotation_outside_github_actions(shared_evaluation):
    done = shared_evaluation("demo", *FAST)  # (the fixture above checks the three files after a witness search)
    assert done.returncode == 0, done.stderr
    assert "::warning" not in done.stdout  # (shared evaluations run outside GitHub Actions)
    run_dir = done.run_dir  # the demo gets all three files too
    assert external_problem("mutation-testing-report",
                            json.loads((run_dir / "mutation-testing-report.json").read_text())) is None
    assert external_problem("sarif", json.loads((run_dir / "report.sarif").read_text())) is None
    assert "<mutation-test-report-app" in (run_dir / "report.html").read_text()


def _check_junit(report: dict, text: str) -> ElementTree.Element:
    """``text`` is valid JUnit XML whose failures are exactly the report's protection regressions and
    unprotected mutants, each at its file and line, with the witness call when there is one; whose
    passes are exactly the caught ones; and whose counts add up."""
    assert external_problem("junit", text) is None
    root = ElementTree.fromstring(text)
    mutations = {m["id"]: m for m in report["mutations"]}
    findings = [c for c in report["comparisons"] if c["assessment"] in ("protection-regression", "unprotected")]
    failures = list(root.iter("failure"))
    assert Counter((f.get("type"), f.get("message")) for f in failures) == Counter(
        (c["assessment"], mutations[c["mutation_id"]]["incident"].rstrip(".") + ".") for c in findings)
    for comparison in findings:
        mutation = mutations[comparison["mutation_id"]]
        location = mutation["location"]
        text_of = [f.text for f in failures if f.get("message").startswith(mutation["incident"].rstrip("."))
                   and f"at {location['path']}:{location['line']}" in f.text]
        assert text_of, mutation["incident"]
        if mutation.get("witness"):
            assert any(f"What tells it apart: {mutation['witness']['call']} " in t for t in text_of)
    cases = list(root.iter("testcase"))
    passed = [c for c in cases if c.find("failure") is None and c.find("skipped") is None]
    assert len(passed) == sum(1 for c in report["comparisons"]
                              if c["assessment"] in ("existing-protection", "incremental-protection"))
    ran_equivalent = [r for r in report["rejected"] if r.get("incident")]
    assert len(cases) == len(report["mutations"]) + len(ran_equivalent)  # each challenged incident, once
    assert not list(root.iter("error"))
    paths = {entry["location"]["path"] for entry in report["mutations"] + ran_equivalent}
    assert [suite.get("name") for suite in root.iter("testsuite")] == sorted(paths)  # a suite per file
    for suite in root.iter("testsuite"):
        own = suite.findall("testcase")
        module = suite.get("name").removesuffix(".py").replace("/", ".")
        assert all(c.get("classname") == module or c.get("classname").startswith(module + ".") for c in own)
        assert int(suite.get("tests")) == len(own)
        assert int(suite.get("failures")) == sum(1 for c in own if c.find("failure") is not None)
        assert int(suite.get("skipped")) == sum(1 for c in own if c.find("skipped") is not None)
        assert suite.get("errors") == "0"
    for key in ("tests", "failures", "errors"):
        assert int(root.get(key)) == sum(int(suite.get(key)) for suite in root.iter("testsuite"))
    return root


def test_junit_xml_has_a_failure_per_finding_and_a_case_per_challenged_incident(evaluated):
    _, report, run_dir, copies, _ = evaluated
    text = (run_dir / "report.junit.xml").read_text()
    assert (copies / "elenchus.junit.xml").read_text() == text
    root = _check_junit(report, text)
    found = by_assessment(report)
    assert int(root.get("failures")) == len(found["protection-regression"]) + len(found["unprotected"]) > 0
    witnessed = [m for m in report["mutations"] if m.get("witness")]
    assert witnessed, "the fixture's survivors have witnesses to show"
    assert [s.get("name") for s in root.iter("testsuite")] == ["src/batching/core.py"]


def test_junit_xml_of_the_weakened_checks_names_each_regression(shared_evaluation):
    done = shared_evaluation("weakened-checks", *FAST)  # the evaluation the regression and speed tests read
    assert done.returncode == 0, done.stderr
    text = (done.run_dir / "report.junit.xml").read_text()
    root = _check_junit(done.report, text)
    regressions = [f for f in root.iter("failure") if f.get("type") == "protection-regression"]
    assert regressions
    for comparison in by_assessment(done.report)["protection-regression"]:
        for check in comparison.get("weakened_checks", []):
            assert any(check["test"] in f.text for f in regressions), check["test"]


@pytest.mark.skipif(browser.find() is None, reason="needs Chromium (.ci/run installs Debian's chromium package)")
def test_the_html_report_renders_offline_in_a_real_browser(evaluated, request):
    _, report, run_dir, copies, _ = evaluated
    page = run_dir / "report.html"
    assert (copies / "elenchus.html").read_text() == page.read_text()
    incident = next(m["incident"] for m in report["mutations"]
                    if any(c["mutation_id"] == m["id"] and c["assessment"] == "protection-regression"
                           for c in report["comparisons"]))
    total = sum(1 for _ in report["mutations"]) + len(report["not_challenged"]) + len(report["rejected"])
    chromium = browser.Browser(browser.find())
    try:
        chromium.open(page.as_uri())
        text = chromium.wait_for_text("core.py", "All files", incident)
        shot = Path(request.config.rootpath) / "test-output" / "report-html.png"
        shot.parent.mkdir(exist_ok=True)
        chromium.screenshot(shot)
        requested = chromium.requested()
    finally:
        chromium.close()
    assert "core.py" in text and "All files" in text, text[:2000]
    assert incident in text
    assert str(total) in text  # the component's mutant count
    assert all(url.startswith(("file:", "data:", "about:")) for url in requested), requested
    assert shot.stat().st_size > 10_000


#: The viewer's classes for a mutation score above, between and below its thresholds.
THRESHOLD_COLOURS = {"bg-red-600", "bg-yellow-400", "bg-green-600", "text-red-700", "text-yellow-600", "text-green-700"}


def test_a_timed_out_mutant_is_undetected_in_the_mutation_testing_report_with_its_reason(shared_evaluation):
    done = shared_evaluation(*TIMEOUTS)
    assert done.returncode == 0, done.stderr
    timeouts = [m for m in done.report["mutations"] if m["result"] == "timeout"]
    assert timeouts, "no mutant timed out"
    document = json.loads((done.run_dir / "mutation-testing-report.json").read_text())
    assert external_problem("mutation-testing-report", document) is None
    mutants = {m["id"]: m for entry in document["files"].values() for m in entry["mutants"]}
    for mutation in timeouts:  # the text calls it inconclusive, never caught: "Timeout" would count as detected
        mutant = mutants[mutation["id"]]
        assert mutant["status"] == "Survived"
        assert mutant["statusReason"].startswith("Timed out, which is not counted as caught: ")
        assert mutation["reason"] in mutant["statusReason"]


@pytest.mark.skipif(browser.find() is None, reason="needs Chromium (.ci/run installs Debian's chromium package)")
def test_the_html_report_shows_counts_and_source_but_no_score_and_no_timeout_as_detected(shared_evaluation):
    done = shared_evaluation(*TIMEOUTS)
    report = done.report
    results = [m["result"] for m in report["mutations"]]
    assert "timeout" in results, "no mutant timed out"
    page = done.run_dir / "report.html"
    chromium = browser.Browser(browser.find())
    try:
        chromium.open(page.as_uri())
        overview = chromium.wait_for_text("All files", "Detected")
        seen = chromium.evaluate(browser.TABLES)
        chromium.open(page.as_uri() + "#mutant/search.py")  # (the viewer names files below their common folder)
        in_file = chromium.wait_for_text("def first_at_least", "Detected")
        seen_in_file = chromium.evaluate(browser.TABLES)
    finally:
        chromium.close()
    assert "def first_at_least" in in_file, in_file[:3000]  # the source view is kept
    for text, found in ((overview, seen), (in_file, seen_in_file)):
        assert "score" not in text.lower() and "Of covered" not in text, text[:3000]
        table = found["tables"][0]
        assert not any("score" in header.lower() or header in ("Of total", "Of covered")
                       for header in table["headers"]), table["headers"]
        assert not THRESHOLD_COLOURS & set(found["classes"])
        assert found["progressbars"] == 0
        cells = dict(zip(table["headers"], table["rows"][0]))  # the first row: all files, or the file shown
        assert cells["Detected"] == str(results.count("killed"))  # the timeouts are not detected
        assert cells["Timeout"] == "0"
        assert cells["Undetected"] == str(sum(results.count(r) for r in ("survived", "not-covered", "timeout")))
        assert cells["Killed"] == str(results.count("killed"))
