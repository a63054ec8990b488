"""The Markdown report says why when nothing ran, and never claims a catch it did not see."""

from __future__ import annotations

import copy
import json

from elenchus.reporting import html
from elenchus.reporting.report import nothing_ran, render_markdown
from elenchus.resources import data_dir


def example() -> dict:
    return json.loads((data_dir("fixtures") / "documents" / "mutation-report.example.json").read_text())


def idle(report: dict, reason: str) -> dict:
    report = copy.deepcopy(report)
    report["comparisons"] = []
    report["not_challenged"] = []
    for mutation in report["mutations"]:
        mutation.update(result="not-run", kill=None, reason=f"not run: {reason}")
    return report


def test_every_section_says_why_when_no_mutant_ran_and_none_claims_a_catch():
    report = idle(example(), "the modified baseline is baseline-red")
    report["scope"]["detected"]["test_files_modified"] = ["tests/test_core.py"]
    text = render_markdown(report)
    why = "Nothing was evaluated: the modified baseline is baseline-red."
    assert text.count(why) == 2  # Existing Protection and Modified Test Contribution
    assert "Whether the tests catch these incidents is unknown: the modified baseline is baseline-red." in text
    assert "every challenged incident was caught" not in text
    assert "still caught" not in text
    assert nothing_ran(report) == "the modified baseline is baseline-red"


def test_a_report_with_results_keeps_its_sections_and_lists_mutants_that_did_not_run():
    report = example()
    assert nothing_ran(report) is None
    report["mutations"][0].update(result="not-run", kill=None, reason="the run was interrupted before this mutant ran")
    text = render_markdown(report)
    assert "Nothing was evaluated" not in text
    assert "### Not run" in text
    assert "the run was interrupted before this mutant ran" in text


def test_a_changed_file_without_mutants_is_listed_with_the_reason():
    report = example()
    path = report["scope"]["detected"]["production_files"][0]
    report["scope"]["production_sites"] = [{"path": path, "mutants": 0,
                                            "reason": "an import (`import os`); a missing import fails at load"}]
    assert f"`{path}` (no mutant: an import (`import os`)" in render_markdown(report)


def test_caught_by_names_the_strongest_test_and_every_other_test_that_caught_the_incident():
    report = example()
    comparison = next(c for c in report["comparisons"] if c["assessment"] == "existing-protection")
    first = comparison["existing"]["kill"]["test"]
    comparison["existing"]["kills"] = [{"test": first, "kind": "assertion"}] + [
        {"test": f"tests/test_more.py::test_{n}", "kind": "unexpected-exception"} for n in range(5)]
    text = render_markdown(report)
    assert (f"`{first}` (an assertion failed); also `tests/test_more.py::test_0`, `tests/test_more.py::test_1`, "
            "`tests/test_more.py::test_2` and 2 more") in text


def test_a_survivor_listed_as_not_comparable_still_shows_what_tells_it_apart():
    report = example()
    comparison = report["comparisons"][0]
    comparison.update(assessment="not-comparable", reason="the existing tests fail without any mutant")
    mutation = next(m for m in report["mutations"] if m["id"] == comparison["mutation_id"])
    mutation.update(result="survived", kill=None, witness={
        "call": "ratio(1, 0)", "original": "0.0", "mutant": "raise ZeroDivisionError",
        "test": "def test_ratio():\n    assert ratio(1, 0) == 0.0\n", "origin": "edge-value", "seconds": 0.4,
        "incident_check": "fits"})
    text = render_markdown(report)
    unsettled = text.split("### Blocked, inconclusive or not comparable")[1]
    assert "  - What tells it apart: `ratio(1, 0)` gives `0.0` with the code as it is, and raises " \
           "`ZeroDivisionError` with this mutant" in unsettled
    assert "      assert ratio(1, 0) == 0.0" in unsettled


def test_an_incident_the_current_tests_miss_is_to_act_on_even_when_the_old_tests_could_not_be_compared():
    # titlecase 2.3 -> 2.4: the old tests no longer collect against Head, every comparison is "not comparable",
    # and "What to act on" said "Nothing" over 18 incidents the current tests miss
    report = example()
    for comparison in report["comparisons"]:
        comparison.update(assessment="not-comparable", reason="the pre-change tests cannot be collected against Head")
    gap = next(m for m in report["mutations"] if m["id"] == "M2")
    missed = next(c for c in report["comparisons"] if c["mutation_id"] == "M2")
    missed["modified"] = {"result": "survived", "kill": None}
    gap.update(result="survived", witness={"call": "chunks([1], -1)", "original": "raise ValueError", "mutant": "[]",
                                           "test": "def test_it():\n    pass\n", "origin": "edge-value",
                                           "seconds": 0.3, "incident_check": "fits"})
    act = render_markdown(report).split("### What to act on")[1].split("## Existing Protection")[0]
    assert [line for line in act.splitlines() if line.startswith("- ")] == [
        f"- Not caught by the current tests at src/chunker/chunks.py:6 in `chunks`: {gap['incident']}; "
        "`chunks([1], -1)` raises `ValueError` with the code and gives `[]` with the mutant (whether the old tests "
        "caught it is unknown: they could not be compared)"], act
    assert "Nothing" not in act


def test_incidents_the_old_tests_could_not_be_compared_on_say_the_reason_once_and_the_missed_ones_first():
    # titlecase 2.3 -> 2.4: 103 caught incidents each repeated the same 200-character reason, and the section
    # was most of the report
    report = example()
    reason = "the pre-change tests cannot be collected against Head (tests.py: 'yield' keyword)"
    for comparison in report["comparisons"]:
        comparison.update(assessment="not-comparable", reason=reason)
    missed = next(c for c in report["comparisons"] if c["mutation_id"] == "M2")
    missed["modified"] = {"result": "survived", "kill": None}
    next(m for m in report["mutations"] if m["id"] == "M2").update(result="survived", kill=None)
    section = render_markdown(report).split("### Blocked, inconclusive or not comparable")[1].split("\n##")[0]
    assert section.count(reason) == 1
    assert f"Not comparable ({len(report['comparisons'])} incident(s)): {reason}." in section
    listed = [line for line in section.splitlines() if line.startswith("- ")]
    assert len(listed) == len(report["comparisons"])
    assert listed[0].endswith("with the current tests, not caught"), listed
    assert all("with the current tests, `" in line for line in listed[1:]), listed


def test_incidents_beyond_the_budget_are_a_count_with_the_riskiest_and_how_to_raise_the_budget():
    report = example()
    location = report["mutations"][0]["location"]
    report["not_challenged"] = [{"id": f"n{rank}", "rank": rank, "location": location,
                                 "incident": f"incident number {rank} happens", "reason": "beyond the budget"}
                                for rank in range(30, 0, -1)]
    text = render_markdown(report).split("### Not challenged (beyond the budget)")[1].split("\n## ")[0]
    limit = report["budget"]["limit"]
    assert f"30 more incident(s) ranked below the {limit} challenged were not run" in text
    assert [line for line in text.splitlines() if line.startswith("- ")] == [
        f"- incident number {rank} happens ({location['path']}:{location['line']}"
        + (f" in `{location['symbol']}`" if location.get("symbol") else "") + ")" for rank in (1, 2, 3)]
    assert f"`--budget {min(16384, limit + 30)}`" in text and "[tool.elenchus]" in text


def test_incidents_that_read_the_same_get_headings_told_apart_by_location():
    report = example()
    first, second = report["mutations"][0], copy.deepcopy(report["mutations"][0])
    second.update(id="twin", location={**first["location"], "line": first["location"]["line"] + 7})
    report["mutations"].append(second)
    report["comparisons"].append({**copy.deepcopy(next(c for c in report["comparisons"]
                                                       if c["mutation_id"] == first["id"])), "mutation_id": "twin"})
    headings = [line for line in render_markdown(report).splitlines()
                if line.startswith("#") and first["incident"] in line]
    assert len(headings) == 2 and len(set(headings)) == 2
    assert any(f":{first['location']['line'] + 7}" in heading for heading in headings)


def test_findings_come_first_one_line_each_and_existing_protection_is_one_line_per_incident():
    report = example()
    gap = next(m for m in report["mutations"] if m["id"] == "M2")
    gap["witness"] = {"call": "chunks([1], -1)", "original": "raise ValueError", "mutant": "[]",
                      "test": "def test_it():\n    pass\n", "origin": "edge-value", "seconds": 0.3,
                      "incident_check": "fits"}
    text = render_markdown(report)
    scope, rest = text.split("## Existing Protection")
    act = scope.split("### What to act on")[1]
    assert [line for line in act.splitlines() if line.startswith("- ")] == [
        f"- Not caught at src/chunker/chunks.py:6 in `chunks`: {gap['incident']}; `chunks([1], -1)` raises "
        "`ValueError` with the code and gives `[]` with the mutant"]
    protected = rest.split("## Modified Test Contribution")[0]
    caught = next(m for m in report["mutations"] if m["id"] == "M3")
    assert [line for line in protected.splitlines() if line.strip()] == [
        f"- {caught['incident']} (src/chunker/chunks.py:8 in `chunks`) [C3]: caught by "
        "`tests/test_chunks.py::test_empty_input_gives_no_chunks` (an assertion failed)"]
    assert ("Rejected: 1 in code no test should pin (docstrings, annotations, log and message text, interpreter and "
            "platform checks)") in scope
    # a regression comes first, and a report with nothing to act on says so
    report["comparisons"][0].update(assessment="protection-regression")
    regressed = next(m for m in report["mutations"] if m["id"] == report["comparisons"][0]["mutation_id"])
    act = render_markdown(report).split("### What to act on")[1].split("## Existing Protection")[0]
    assert act.strip().splitlines()[0].startswith(f"- Protection regression at {_where(regressed)}: "
                                                  f"{regressed['incident']}; only the old tests caught it (")
    # a gap without a witness says whether one was looked for
    del gap["witness"]
    for reason, shown in (("no witness was found, so it stays a gap: 40 inputs tried",
                           "no call was found that shows it"),
                          ("all 2 selected tests passed", "no witness was searched for it")):
        gap["reason"] = reason
        act = render_markdown(report).split("### What to act on")[1].split("## Existing Protection")[0]
        assert f"- Not caught at src/chunker/chunks.py:6 in `chunks`: {gap['incident']}; {shown}\n" in act
    # an incident told by the witness's own call (the usual sentence did not fit it) is told once
    gap.update(incident="`chunks([1], -1)` gives `[]` where the code raises `ValueError`", witness={
        "call": "chunks([1], -1)", "original": "raise ValueError", "mutant": "[]", "test": "def test_it():\n    pass\n",
        "origin": "edge-value", "seconds": 0.3, "incident_check": "does not fit: it raises"})
    act = render_markdown(report).split("### What to act on")[1].split("## Existing Protection")[0]
    assert "- Not caught at src/chunker/chunks.py:6 in `chunks`: `chunks([1], -1)` gives `[]` where the code raises " \
           "`ValueError`\n" in act, act
    report["comparisons"] = [c for c in report["comparisons"] if c["assessment"] == "existing-protection"]
    act = render_markdown(report).split("### What to act on")[1].split("## Existing Protection")[0]
    assert act.strip() == "Nothing: no protection regression, and no challenged incident the tests miss."


def _where(mutation: dict) -> str:
    location = mutation["location"]
    return f"{location['path']}:{location['line']} in `{location['symbol']}`"


def test_a_long_list_of_files_excluded_for_one_reason_is_shown_as_its_first_few_and_a_count():
    report = example()
    cache = [f"src/.mypy_cache/3.7/m{i}.data.json: not Python production code" for i in range(300)]
    report["scope"]["excluded"] = ["README.md: not Python production code", "id_rsa: secret-looking file", *cache,
                                   "pkg/link.py: symlink (not followed)"]
    line = next(text for text in render_markdown(report).splitlines() if text.startswith("- Excluded: "))
    assert line == ("- Excluded: README.md, src/.mypy_cache/3.7/m0.data.json, src/.mypy_cache/3.7/m1.data.json, "
                    "src/.mypy_cache/3.7/m2.data.json, src/.mypy_cache/3.7/m3.data.json and 296 more (all in "
                    "report.json): not Python production code; id_rsa: secret-looking file; pkg/link.py: symlink "
                    "(not followed)")


def test_a_contract_of_thousands_of_items_shows_a_few_dozen_and_counts_the_rest():
    report = example()
    held = report["mutations"][0]
    items = [{"id": f"C{n}", "status": "provisional", "risk": "high" if n % 7 == 0 else "medium",
              "behaviour": f"`f_{n:05d}` does what its name says", "anchors": []} for n in range(1, 5_001)]
    report["contract"]["items"] = items
    held["contract_id"] = "C4000"  # a challenged mutant's item is shown even far down the list
    report["budget"]["how_chosen"] = "3 candidate(s) over 5,005 changed function(s) and statement(s), ranked by risk"
    text = render_markdown(report)
    shown = [line for line in text.splitlines() if line.startswith("  - C")]
    assert len(shown) == 24 and "  - C4000 (provisional, medium risk)" in text
    assert "  - C1 (provisional, medium risk)" in text and "  - C3000 " not in text
    more, high = 5_000 - 24, 714 - sum("high risk" in line for line in shown)  # C7, C14, C21 are shown
    assert (f"  - and {more:,} more item(s): {high} provisional, high risk; {more - high:,} provisional, medium risk "
            "(every item is in report.json)") in text
    assert "- How the mutants were chosen: 3 candidate(s) over 5,005 changed function(s)" in text
    assert len(text) < 20_000


def test_a_contract_of_a_few_dozen_items_is_listed_whole():
    report = example()
    report["contract"]["items"] = [{"id": f"C{n}", "status": "provisional", "risk": "medium", "behaviour": "b",
                                    "anchors": []} for n in range(1, 25)]
    text = render_markdown(report)
    assert sum(line.startswith("  - C") for line in text.splitlines()) == 24
    assert "more item(s)" not in text


def test_what_to_act_on_lists_the_incidents_a_witness_shows_before_those_no_call_was_found_to_show():
    # colorama's target: 40 incidents no test catches, the 16 with a ready witness test scattered among 24 a
    # search found no call for (some of them may not matter at all)
    report = example()
    gap = next(m for m in report["mutations"] if m["id"] == "M2")
    gap.update(result="survived", reason="no witness was found, so it stays a gap: 40 inputs tried")
    shown = copy.deepcopy(gap)
    shown.update(id="shown", location={**gap["location"], "line": gap["location"]["line"] + 3},
                 witness={"call": "chunks([1], -1)", "original": "raise ValueError", "mutant": "[]",
                          "test": "def test_it():\n    pass\n", "origin": "edge-value", "seconds": 0.3,
                          "incident_check": "fits"})
    unrun = copy.deepcopy(gap)
    unrun.update(id="unrun", result="not-covered", reason="no test runs it",
                 location={**gap["location"], "line": gap["location"]["line"] + 5})
    report["mutations"] += [shown, unrun]
    missed = next(c for c in report["comparisons"] if c["mutation_id"] == "M2")
    report["comparisons"] += [{**copy.deepcopy(missed), "mutation_id": "shown"},
                              {**copy.deepcopy(missed), "mutation_id": "unrun"}]
    act = render_markdown(report).split("### What to act on")[1].split("## Existing Protection")[0]
    listed = [line for line in act.splitlines() if line.startswith("- Not caught")]
    assert [line.rpartition("; ")[2] for line in listed] == [
        "`chunks([1], -1)` raises `ValueError` with the code and gives `[]` with the mutant",
        "no test runs this code", "no call was found that shows it"], listed
    page = html.render({}, report)
    findings = page.split('<ul class="findings">')[1].split("</ul>")[0]
    assert findings.index(":9)") < findings.index(":11)") < findings.index(":6)"), findings
