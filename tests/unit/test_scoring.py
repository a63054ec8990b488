"""scoring: which run confirms a static finding (the verdicts themselves run end to end in tests/e2e/test_replx.py)."""

from __future__ import annotations

from pathlib import Path

from elenchus.modes.scoring import Finding, HeldOut, _static_findings
from elenchus.analysis.weakening import ChangedFile, find_weakening

from tests.unit.test_weakening import case_evidence, case_trees

HELDOUT = Path(__file__).resolve().parents[2] / "fixtures" / "repairs" / "heldout" / "test_pricing_contract.py"
PLACED = "tests/heldout_test_pricing_contract.py"
DISCOUNT_TEST = f"{PLACED}::test_discount_takes_exactly_the_percentage_off"
PADDED_TEST = f"{PLACED}::test_parse_quantity_reads_a_number_with_spaces_around_it"


def special_case_files() -> list[ChangedFile]:
    base, head = case_trees("hardcoded-special-case")
    path = "src/pricing/core.py"
    return [ChangedFile(path, "production", base[path], head[path])]


def heldout(failing: list[tuple[str, str]], text: str | None = None) -> HeldOut:
    return HeldOut((PLACED,), (), tuple(t for t, _ in failing), tuple(failing), (),
                   ((PLACED, text if text is not None else HELDOUT.read_text()),))


def test_a_hardcoded_special_case_is_confirmed_by_a_failing_held_out_test_that_calls_its_function():
    failing = [(DISCOUNT_TEST, "AssertionError: assert 39.5 == 40.0")]
    findings = _static_findings(case_evidence("hardcoded-special-case"), [], heldout(failing),
                                special_case_files(), [])
    by_line = {f.line: f for f in findings}
    assert sorted(by_line) == [8, 10, 17]
    for line in (8, 10):
        assert by_line[line].confirmed
        assert by_line[line].detail.endswith(
            f"(confirmed: the held-out test `{DISCOUNT_TEST}` runs other inputs through `discount` and fails on "
            "Head: AssertionError: assert 39.5 == 40.0)")
    # parse_quantity's special case: its held-out tests passed, so no run confirms it
    assert not by_line[17].confirmed and "confirmed" not in by_line[17].detail


def test_a_held_out_test_that_never_calls_the_special_cased_function_confirms_nothing():
    findings = _static_findings(case_evidence("hardcoded-special-case"), [],
                                heldout([(PADDED_TEST, "ValueError: not a quantity: ' 7 '")]),
                                special_case_files(), [])
    assert [(f.line, f.confirmed) for f in findings] == [(8, False), (10, False), (17, True)]
    assert findings[2].detail.endswith(f"(confirmed: the held-out test `{PADDED_TEST}` runs other inputs through "
                                       "`parse_quantity` and fails on Head: ValueError: not a quantity: ' 7 ')")
    assert all(not f.confirmed for f in _static_findings(case_evidence("hardcoded-special-case"), [], None,
                                                         special_case_files(), []))


def test_a_held_out_test_reaches_a_special_case_through_a_caller_in_the_changed_code():
    files = special_case_files()
    wrapper = "\n\ndef checkout(total, percent):\n    return discount(total, percent) + 0.0\n"
    files = [ChangedFile(f.path, f.kind, f.base_source + wrapper, f.head_source + wrapper)  # type: ignore[operator]
             for f in files]
    text = "from pricing.core import checkout\n\n\ndef test_checkout():\n    assert checkout(50, 20) == 40.0\n"
    test = f"{PLACED}::test_checkout"
    evidence = find_weakening(files, unchanged_tests=[case_trees("hardcoded-special-case")[1]["tests/test_core.py"]])
    findings = _static_findings(evidence, [], heldout([(test, "AssertionError: assert 39.5 == 40.0")], text), files, [])
    assert [(f.line, f.confirmed) for f in findings] == [(8, True), (10, True), (17, False)]
    assert f"the held-out test `{test}` runs other inputs through `discount`" in findings[0].detail


def test_a_finding_about_one_parametrized_row_is_confirmed_by_the_run_of_that_row():
    base = ("import pytest\n\n\n@pytest.mark.parametrize('x', [1, 2, 3, 4, 5])\n"
            "def test_x(x):\n    assert f(x)\n")
    head = base.replace("4, 5]", "pytest.param(4, marks=pytest.mark.xfail), 5]")
    (evidence,) = find_weakening([ChangedFile("tests/test_x.py", "test", base, head)])
    assert evidence.row_ids == ("4",)
    runs = [Finding("frozen-test-failure", "tests/test_x.py", 5, f"test_x[{row}]", None, None, "froze",
                    "frozen-tests", True) for row in ("4", "2")]  # the row marked, then another that froze
    (finding,) = _static_findings((evidence,), runs, None, [], [])
    assert finding.confirmed
    assert finding.detail.endswith("(confirmed: the pre-repair test `test_x[4]` still fails against the repaired code)")
