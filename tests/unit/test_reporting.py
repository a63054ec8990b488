"""Reports for other tools, built from a report document: valid against the official schemas,
located at the mutated text, and saying the incident and the assessment."""

import json
from collections import Counter
from xml.etree import ElementTree

from elenchus.reporting import annotations, junit, sarif, stryker
from elenchus.reporting.html import render
from elenchus.schemas import external_problem

SOURCE = "def clamp(value, low, high):\n    if value < low:\n        return low\n    return value\n"


def _diff(old: str, new: str, start: int = 1) -> str:
    lines = ["--- a/pkg/core.py", "+++ b/pkg/core.py", f"@@ -{start},1 +{start},1 @@", f"-{old}", f"+{new}"]
    return "\n".join(lines) + "\n"


def _mutation(mutation_id, result, diff, line, incident, kill=None, family="boundary-inclusivity"):
    return {"id": mutation_id, "contract_id": None,
            "location": {"path": "pkg/core.py", "line": line, "end_line": line, "symbol": "clamp"},
            "changed_intent": "thinks the bound is exclusive", "incident": incident, "diff": diff,
            "expected_detection": "a test that calls clamp at the bound", "evidence": "one change",
            "risk_rank": 1, "retention_risk": True, "result": result, "kill": kill, "reason": None,
            "family": family}


def _cohort(result, kill=None):
    return {"result": result, "kill": kill, "kills": [kill] if kill else []}


KILL = {"test": "tests/test_core.py::test_clamp_low", "kind": "assertion", "attributed": True}

REPORT = {
    "tool": {"name": "elenchus", "version": "0.2.0"},
    "scope": {"option": "current-change", "target": None},
    "snapshots": {"base": {"rev": "HEAD~1", "sha": "a" * 40}, "head": {"rev": "HEAD", "sha": "b" * 40}},
    "budget": {"limit": 8},
    "mutations": [
        _mutation("m-boundary", "survived", _diff("    if value < low:", "    if value <= low:", 2), 2,
                  "clamp lets a value equal to `low` through the lower-bound branch"),
        _mutation("m-return", "killed", _diff("        return low", "        return None", 3), 3,
                  "clamp returns None instead of the lower bound", kill=KILL),
        _mutation("m-regressed", "survived", _diff("    return value", "    return None", 4), 4,
                  "clamp returns None for a value inside the range"),
        _mutation("m-uncovered", "not-covered", None, 4, "clamp forgets the value"),
    ],
    "comparisons": [
        {"mutation_id": "m-boundary", "existing": _cohort("survived"), "modified": _cohort("survived"),
         "assessment": "unprotected", "reason": None},
        {"mutation_id": "m-return", "existing": _cohort("killed", KILL), "modified": _cohort("killed", KILL),
         "assessment": "existing-protection", "reason": None},
        {"mutation_id": "m-regressed", "existing": _cohort("killed", KILL), "modified": _cohort("survived"),
         "assessment": "protection-regression", "reason": None},
    ],
    "not_challenged": [{"id": "m-later", "rank": 5, "location": {"path": "pkg/core.py", "line": 2, "end_line": 2,
                                                                  "symbol": "clamp"},
                        "incident": "clamp ignores the upper bound", "reason": "beyond the mutation budget of 8"}],
    "rejected": [{"location": {"path": "pkg/core.py", "line": 1, "end_line": 1, "symbol": None},
                  "changed_intent": "none", "reason": "arid: docstring"},
                 {"location": {"path": "pkg/core.py", "line": 2, "end_line": 2, "symbol": "clamp"},
                  "changed_intent": "none", "incident": "clamp compares with <= where < was meant",
                  "reason": "likely equivalent: no input told it apart"}],
}
SOURCES = {"pkg/core.py": SOURCE, "tests/test_core.py": "def test_clamp_low():\n    assert clamp(0, 1, 2) == 1\n"}


def test_the_mutation_testing_report_is_valid_and_maps_each_result_to_a_status():
    document = stryker.build(REPORT, SOURCES)
    assert external_problem("mutation-testing-report", document) is None
    mutants = {m["id"]: m for m in document["files"]["pkg/core.py"]["mutants"]}
    assert {k: m["status"] for k, m in mutants.items()} == {
        "m-boundary": "Survived", "m-return": "Killed", "m-regressed": "Survived", "m-uncovered": "NoCoverage",
        "m-later": "Ignored", "not-run-2": "Ignored", "not-run-3": "Ignored"}
    assert mutants["m-return"]["killedBy"] == ["tests/test_core.py::test_clamp_low"]
    assert document["testFiles"]["tests/test_core.py"]["tests"] == [
        {"id": "tests/test_core.py::test_clamp_low", "name": "test_clamp_low"}]
    assert mutants["m-boundary"]["mutatorName"] == "boundary-inclusivity"
    assert mutants["m-regressed"]["description"].startswith("Protection regression:")
    assert "clamp returns None for a value inside the range" in mutants["m-regressed"]["description"]
    assert mutants["m-later"]["statusReason"] == "Not run: beyond the mutation budget of 8"
    # a likely equivalent mutant ran and survived: never "Not run"
    assert mutants["not-run-3"]["statusReason"] == ("Ran and survived, and is not counted as a gap: likely "
                                                    "equivalent: no input told it apart")


def test_a_mutant_is_located_at_the_text_it_changes_with_its_replacement():
    document = stryker.build(REPORT, SOURCES)
    mutants = {m["id"]: m for m in document["files"]["pkg/core.py"]["mutants"]}
    # "    if value < low:" -> "    if value <= low:": an "=" inserted after the "<" (column 15)
    assert mutants["m-boundary"]["location"] == {"start": {"line": 2, "column": 15}, "end": {"line": 2, "column": 15}}
    assert mutants["m-boundary"]["replacement"] == "="
    assert mutants["m-return"]["location"] == {"start": {"line": 3, "column": 16}, "end": {"line": 3, "column": 19}}
    assert mutants["m-return"]["replacement"] == "None"
    # no diff: the whole lines of the location, and no replacement is claimed
    assert mutants["m-uncovered"]["location"] == {"start": {"line": 4, "column": 1}, "end": {"line": 4, "column": 17}}
    assert "replacement" not in mutants["m-uncovered"]


def test_a_removed_line_spans_the_whole_line_and_a_diff_that_does_not_match_head_is_not_trusted():
    removed = "--- a/pkg/core.py\n+++ b/pkg/core.py\n@@ -2,3 +2,1 @@\n-    if value < low:\n-        return low\n     return value\n"
    location, replacement = stryker.span(removed, {"line": 2, "end_line": 3}, SOURCE)
    assert location == {"start": {"line": 2, "column": 1}, "end": {"line": 4, "column": 1}} and replacement == ""
    stale = _diff("    if other < low:", "    if other <= low:", 2)
    location, replacement = stryker.span(stale, {"line": 2, "end_line": 2}, SOURCE)
    assert location == {"start": {"line": 2, "column": 1}, "end": {"line": 2, "column": 20}} and replacement is None


def test_sarif_holds_one_result_per_unprotected_mutant_and_protection_regression():
    log = sarif.build(REPORT, SOURCES)
    assert external_problem("sarif", log) is None
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("unprotected", "warning"),
                                                            ("protection-regression", "error")]
    regression = results[1]
    assert regression["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/core.py"
    assert regression["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 4, "startColumn": 12, "endLine": 4, "endColumn": 17}
    text = regression["message"]["text"]
    assert text.startswith("clamp returns None for a value inside the range.")
    assert "(tests/test_core.py::test_clamp_low); the modified tests do not." in text
    assert "What would notice it: a test that calls clamp at the bound." in text
    assert {rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]} == {"unprotected",
                                                                                  "protection-regression"}


def test_github_annotations_escape_what_would_end_a_workflow_command():
    report = json.loads(json.dumps(REPORT))
    report["mutations"][0]["incident"] = "clamp: 100% wrong,\nsometimes"
    found = annotations.lines(report)
    assert len(found) == 2
    assert found[0].startswith("::warning file=pkg/core.py,line=2,endLine=2,title=Unprotected mutant in clamp::")
    assert "clamp: 100%25 wrong,%0Asometimes." in found[0]
    assert found[1].startswith("::warning file=pkg/core.py,line=4,endLine=4,title=Protection regression in clamp::")
    assert annotations.wanted({"GITHUB_ACTIONS": "true"}) and not annotations.wanted({})


def test_the_html_page_is_self_contained_and_escapes_the_embedded_report():
    report = json.loads(json.dumps(REPORT))
    report["mutations"][0]["incident"] = "clamp lets </script><script>alert(1)</script> through"
    page = render(stryker.build(report, SOURCES), report)
    assert page.count("<script") == 3 and page.count("</script>") == 3  # the component, the data, the binding
    assert "<script src" not in page and "<link" not in page and "@import" not in page
    assert "http" not in page.split("<script>")[0]  # the page's own markup names no address
    assert "<li><span class=\"count\">1</span> Protection regression:" in page
    assert "clamp lets &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; through" in page  # the summary


def test_the_html_page_lists_what_the_current_tests_miss_when_the_old_tests_could_not_be_compared():
    report = json.loads(json.dumps(REPORT))
    for comparison in report["comparisons"]:
        comparison.update(assessment="not-comparable", reason="the pre-change tests cannot be collected")
    page = render(stryker.build(report, SOURCES), report)
    findings = page.split('<ul class="findings">')[1].split("</ul>")[0]
    assert findings.count("<li>") == 2, findings  # the two the current tests miss, not the one they catch
    assert "<strong>Not caught by the current tests</strong> (pkg/core.py:2): clamp lets a value equal to" in findings


def _junit_cases(text: str) -> dict[str, ElementTree.Element]:
    root = ElementTree.fromstring(text)
    return {case.get("name"): case for case in root.iter("testcase")}


def test_junit_xml_fails_exactly_the_unprotected_mutants_and_protection_regressions_and_skips_with_reasons():
    report = json.loads(json.dumps(REPORT))
    report["mutations"][0]["witness"] = {"call": "clamp(1, 1, 2)", "original": "1", "mutant": "raise ValueError",
                                         "test": "def test_clamp_at_low():\n    assert clamp(1, 1, 2) == 1\n"}
    report["mutations"] += [
        _mutation("m-slow", "timeout", _diff("    return value", "    while True: pass", 4), 4, "clamp never returns"),
        _mutation("m-import", "caught-at-import", _diff("    return value", "    return value +", 4), 4,
                  "clamp no longer parses\x1b[31m"),  # (a control character XML 1.0 cannot hold)
    ]
    report["comparisons"] += [
        {"mutation_id": "m-slow", "existing": _cohort("killed", KILL), "modified": _cohort("timeout"),
         "assessment": "inconclusive", "reason": "the run timed out; a timeout is not a behavioural kill"},
        {"mutation_id": "m-import", "existing": _cohort("caught-at-import"), "modified": _cohort("caught-at-import"),
         "assessment": "caught-at-import", "reason": "importing pkg.core raised SyntaxError"},
    ]
    text = junit.build(report)
    assert external_problem("junit", text) is None
    root = ElementTree.fromstring(text)
    cases = _junit_cases(text)
    outcome = {name: next((child.tag for child in case if child.tag in ("failure", "skipped")), "passed")
               for name, case in cases.items()}
    assert outcome == {
        "clamp lets a value equal to `low` through the lower-bound branch (line 2)": "failure",
        "clamp returns None instead of the lower bound (line 3)": "passed",
        "clamp returns None for a value inside the range (line 4)": "failure",
        "clamp forgets the value (line 4)": "skipped",  # (a mutation with no comparison: no cohort compared it)
        "clamp never returns (line 4)": "skipped",  # a timeout is not caught, and not a gap either
        "clamp no longer parses\\x1b[31m (line 4)": "skipped",
        "clamp compares with <= where < was meant (line 2)": "skipped",  # ran, likely equivalent
    }  # (the mutant beyond the budget and the one rejected before running are no test case)
    unprotected = cases["clamp lets a value equal to `low` through the lower-bound branch (line 2)"].find("failure")
    assert unprotected.get("type") == "unprotected"
    assert unprotected.get("message") == "clamp lets a value equal to `low` through the lower-bound branch."
    assert unprotected.text.startswith("Unprotected at pkg/core.py:2 in clamp\n")
    assert "What tells it apart: clamp(1, 1, 2) gives 1 with the code as it is, and raises ValueError with this " \
           "mutant." in unprotected.text and "def test_clamp_at_low():" in unprotected.text
    regression = cases["clamp returns None for a value inside the range (line 4)"].find("failure")
    assert regression.get("type") == "protection-regression"
    assert "Only the tests from before the change caught it: tests/test_core.py::test_clamp_low (an assertion " \
           "failed); the modified tests do not." in regression.text
    skipped = {name: case.find("skipped") for name, case in cases.items() if outcome[name] == "skipped"}
    assert skipped["clamp never returns (line 4)"].get("message") == \
        "Inconclusive: the run timed out; a timeout is not a behavioural kill"
    assert skipped["clamp compares with <= where < was meant (line 2)"].get("message") == \
        "likely equivalent: no input told it apart"
    assert cases["clamp returns None instead of the lower bound (line 3)"].find("system-out").text.startswith(
        "Existing protection at pkg/core.py:3 in clamp: caught before and after the change by "
        "tests/test_core.py::test_clamp_low")
    assert {case.get("classname") for case in cases.values()} == {"pkg.core.clamp"}
    suite = root.find("testsuite")
    assert suite.get("name") == "pkg/core.py"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == \
        ("7", "2", "0", "4")
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("7", "2", "0")
    assert "score" not in text.lower() and "%" not in text


def test_junit_xml_that_breaks_the_published_schema_is_caught():
    text = junit.build(REPORT)
    assert external_problem("junit", text) is None
    missing = text.replace(' failures="2" errors="0" skipped="2"', ' errors="0" skipped="2"', 1)
    assert missing != text
    assert "The attribute 'failures' is required but missing" in external_problem("junit", missing)
    stray = text.replace("<system-out>", "<stdout>", 1).replace("</system-out>", "</stdout>", 1)
    assert "stdout" in external_problem("junit", stray)
    assert external_problem("junit", text[:-40]).startswith("not well-formed XML")


def test_a_timed_out_mutant_is_survived_with_its_reason_so_the_viewer_never_counts_it_as_detected():
    report = json.loads(json.dumps(REPORT))
    report["mutations"][0].update(result="timeout", reason="no result within 2 s, nor within 4 s when run again")
    report["comparisons"][0].update(assessment="inconclusive",
                                    reason="the run timed out; a timeout is not a behavioural kill")
    document = stryker.build(report, SOURCES)
    assert external_problem("mutation-testing-report", document) is None
    mutant = next(m for m in document["files"]["pkg/core.py"]["mutants"] if m["id"] == "m-boundary")
    assert mutant["status"] == "Survived"  # the format's "Timeout" counts as detected
    assert mutant["statusReason"] == ("Timed out, which is not counted as caught: no result within 2 s, nor within "
                                      "4 s when run again; the run timed out; a timeout is not a behavioural kill")


def test_the_html_page_hides_the_viewers_score_and_says_timeouts_are_not_detected():
    page = render(stryker.build(REPORT, SOURCES), REPORT)
    binding = page.rsplit("<script>", 1)[1]  # runs after the component is defined, before it gets the report
    assert binding.index("customElements.get('mte-metrics-table')") < binding.index("app.report =")
    assert "column.category !== 'percentage'" in binding
    assert "customElements.get('mte-result-status-bar')" in binding and "render = () => null" in binding
    assert "A run that timed out is shown as Survived" in page
