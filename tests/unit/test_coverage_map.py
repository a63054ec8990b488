"""Per-test selection: the baseline's line coverage, real pytest runs, and what each mutant runs."""

from pathlib import Path

import pytest

from elenchus.execution.coverage_map import CoverageMap
from elenchus.mutation.mutate import Mutant
from elenchus.execution.run import Execution, TestOutcome, run_pytest

SOURCE = '''LIMIT = 10


def clamp(x):
    if x > LIMIT:
        return LIMIT
    return x


def double(x):
    return x * 2


def unused(x):
    return x - 1


def helper_for_fixture(x):
    return x + 100


def half(x):
    return x // 2


import functools
import re


@functools.lru_cache
def digits():
    return re.compile("[0-9]+")


@functools.lru_cache
def letters():
    return re.compile("[a-z]+")


_SEEN = None


def seen():
    global _SEEN
    if _SEEN is None:
        _SEEN = ["first"]
    return _SEEN
'''

TESTS = '''import pytest

from pkg.calc import clamp, digits, double, half, helper_for_fixture, seen


@pytest.fixture(scope="module")
def shared():
    return helper_for_fixture(1)


def test_clamp_high():
    assert clamp(20) == 10


def test_clamp_low():
    assert clamp(3) == 3


def test_double():
    assert double(2) == 4


@pytest.mark.parametrize("value", [1, 2])
def test_shared(shared, value):
    assert shared + value > 100


class TestDouble:
    def test_negative(self):
        assert double(-1) == -2


@pytest.mark.xfail(reason="flaky on CI")
def test_half():
    assert half(9) == 4


def test_digits_of_a_number():
    assert digits().fullmatch("12")


def test_digits_of_a_word():
    assert not digits().fullmatch("twelve")


def test_seen_first():
    assert seen() == ["first"]


def test_seen_again():
    assert seen()[0] == "first"
'''


def _line(text: str) -> int:
    return next(n for n, line in enumerate(SOURCE.splitlines(), 1) if line.strip() == text)


def _mutant(line: int, end_line: int | None = None) -> Mutant:
    return Mutant(f"m{line}", "pkg/calc.py", "f", line, end_line or line, 1, "f", "intent", "incident", "detect",
                  "", SOURCE, mutated_lines=(line,))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("coverage-map")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "calc.py").write_text(SOURCE)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(TESTS)
    return root


@pytest.fixture(scope="module")
def coverage(workspace) -> CoverageMap:
    result = run_pytest(workspace, ["tests/test_calc.py"], 120, cover=["pkg/calc.py"])
    assert result.execution is Execution.COMPLETED, result.stderr_tail
    found = CoverageMap.from_run(result)
    assert found is not None
    return found


def test_a_line_in_a_function_body_selects_exactly_the_tests_that_execute_it(coverage):
    selection = coverage.select(_mutant(_line("return LIMIT")), SOURCE)
    assert selection.tests == ("tests/test_calc.py::test_clamp_high",)
    assert selection.files == ("tests/test_calc.py",)
    both = coverage.select(_mutant(_line("if x > LIMIT:")), SOURCE)
    assert set(both.tests) == {"tests/test_calc.py::test_clamp_high", "tests/test_calc.py::test_clamp_low"}


def test_a_line_no_test_executes_is_not_covered(coverage):
    selection = coverage.select(_mutant(_line("return x - 1")), SOURCE)
    assert selection.tests == () and not selection.covered
    assert "no test executes" in selection.reason


def test_a_line_only_a_test_expected_to_fail_executes_runs_every_relevant_test(coverage):
    """A run of such tests alone has no test that ran to completion, so it would show nothing (not comparable);
    every relevant test, as without selection, shows the mutant survives them."""
    selection = coverage.select(_mutant(_line("return x // 2")), SOURCE)
    assert selection.tests is None and selection.covered and "expected to fail" in selection.reason
    assert selection.first == ("tests/test_calc.py::test_half",)


def test_module_level_code_and_lines_run_by_a_shared_fixture_run_every_relevant_test(coverage):
    constant = coverage.select(_mutant(_line("LIMIT = 10")), SOURCE)
    assert constant.tests is None and constant.covered and "not inside a function body" in constant.reason
    assert constant.first == ()  # no test of its own to try first: pytest's order
    signature = coverage.select(_mutant(_line("def double(x):")), SOURCE)
    assert signature.tests is None
    # A signature (a default, a decorator) changes every call: the tests running the body go first.
    assert set(signature.first) == {"tests/test_calc.py::test_double", "tests/test_calc.py::TestDouble::test_negative"}
    fixture = coverage.select(_mutant(_line("return x + 100")), SOURCE)
    assert fixture.tests is None and "fixture" in fixture.reason
    assert fixture.first == ("tests/test_calc.py::test_shared[1]",)  # the fixture ran in its setup


@pytest.mark.parametrize("text, how", [('return re.compile("[0-9]+")', "`@lru_cache`"),
                                       ('_SEEN = ["first"]', "module global")])
def test_a_function_that_keeps_what_it_does_for_later_calls_runs_every_relevant_test(coverage, text, how):
    # validators' `_path_regex` (`@lru_cache`): its body ran in the first test that called it, and the coverage names
    # that test alone; a mutant run against it alone passed, while another test, served the mutant's pattern, fails
    line = _line(text)
    assert len(coverage.lines["pkg/calc.py"][line]) == 1  # (only the first caller ran it)
    selection = coverage.select(_mutant(line), SOURCE)
    assert selection.tests is None and how in selection.reason, selection
    assert selection.first == coverage.lines["pkg/calc.py"][line]  # (that one first)
    # (one no test calls is not covered, as before: no run)
    assert coverage.select(_mutant(_line('return re.compile("[a-z]+")')), SOURCE).tests == ()


def test_a_run_with_tests_to_try_first_runs_them_first_and_leaves_none_out(workspace):
    first = ["tests/test_calc.py::TestDouble::test_negative", "tests/test_calc.py::test_clamp_low"]
    every = run_pytest(workspace, ["tests/test_calc.py"], 120)
    ahead = run_pytest(workspace, ["tests/test_calc.py"], 120, first=first)
    assert [r.nodeid for r in ahead.records][:2] == first
    rest = [r.nodeid for r in every.records if r.nodeid not in first]
    assert [r.nodeid for r in ahead.records][2:] == rest  # the others in pytest's own order


def test_past_kills_come_first_then_the_fastest(coverage):
    line = _line("return x * 2")
    plain = coverage.select(_mutant(line), SOURCE)
    assert set(plain.tests) == {"tests/test_calc.py::test_double", "tests/test_calc.py::TestDouble::test_negative"}
    ordered = coverage.select(_mutant(line), SOURCE, {"tests/test_calc.py::TestDouble::test_negative": 2})
    assert ordered.tests[0] == "tests/test_calc.py::TestDouble::test_negative"


def test_the_map_survives_a_round_trip_through_json(coverage):
    again = CoverageMap.from_json(coverage.to_json())
    assert again == coverage
    assert again.key_of("tests/test_calc.py::test_double") == "tests/test_calc.py::test_double"


def test_a_selected_run_executes_only_those_tests_in_that_order(workspace):
    keys = ["tests/test_calc.py::TestDouble::test_negative", "tests/test_calc.py::test_shared[2]"]
    result = run_pytest(workspace, ["tests/test_calc.py"], 120, select=keys)
    assert [r.nodeid for r in result.records] == ["tests/test_calc.py::TestDouble::test_negative",
                                                  "tests/test_calc.py::test_shared[2]"]
    assert all(r.outcome is TestOutcome.PASSED for r in result.records)


def test_stop_ends_the_run_at_the_first_failed_check(workspace, tmp_path):
    mutated = tmp_path / "ws"
    import shutil

    shutil.copytree(workspace, mutated)
    (mutated / "pkg" / "calc.py").write_text(SOURCE.replace("return x * 2", "return x * 3"))
    keys = ["tests/test_calc.py::test_double", "tests/test_calc.py::TestDouble::test_negative"]
    stopped = run_pytest(mutated, ["tests/test_calc.py"], 120, mutated_file="pkg/calc.py", select=keys, stop=True)
    assert [r.nodeid for r in stopped.records] == ["tests/test_calc.py::test_double"]
    assert stopped.records[0].outcome is TestOutcome.FAILED and stopped.exit_code == 1
    every = run_pytest(mutated, ["tests/test_calc.py"], 120, mutated_file="pkg/calc.py", select=keys)
    assert [r.outcome for r in every.records] == [TestOutcome.FAILED, TestOutcome.FAILED]


def test_a_run_of_selected_tests_gets_a_limit_from_their_own_baseline_time():
    from elenchus.execution.baseline import Baseline
    from elenchus.execution.coverage_map import CoverageMap
    from elenchus.modes.evaluate import Evaluation, Options
    from elenchus.execution.run import TestOutcome, TestRecord

    def record(name: str, seconds: float) -> TestRecord:
        return TestRecord(f"tests/test_a.py::{name}", TestOutcome.PASSED, seconds, None, (), None, None)

    records = (record("test_fast", 0.5), record("test_slow", 40.0))
    keys = {r.nodeid: r.nodeid for r in records}
    coverage = CoverageMap({}, {}, {"tests/test_a.py::test_fast": 0.5, "tests/test_a.py::test_slow": 40.0},
                           {k: "tests/test_a.py" for k in keys}, keys)
    baseline = Baseline("modified", "green", (), (), None, 42.0, None, records, coverage=coverage)
    evaluation = Evaluation(Options(timeout_factor=3.0), print, lambda prompt, default: default)
    whole = evaluation._limit({"modified": baseline})
    assert whole == 3 * 42.0 + 5
    # 1.5 s outside any test (start-up, collection) + the fast test's 0.5 s
    assert evaluation._selected_limit(baseline, ("tests/test_a.py::test_fast",)) == 3 * 2.0 + 5
    assert evaluation._selected_limit(baseline, tuple(keys)) == whole  # never above the whole-suite limit
    without_map = Baseline("modified", "green", (), (), None, 42.0, None, records)
    assert evaluation._selected_limit(without_map, ("tests/test_a.py::test_fast",)) == whole


BRANCHED = '''import json

try:
    import json as codec
except ImportError:
    codec = None
else:
    READY = True

if codec is not None:
    MODE = "json"
elif hasattr(json, "nothing"):
    MODE = "odd"
else:
    MODE = "plain"

if MODE == "never":
    LEVEL = 0
elif MODE == "json":
    LEVEL = 1
else:
    LEVEL = 2


class Settings:
    if MODE == "json":
        WIDTH = 10
    else:
        WIDTH = 5


def width():
    if MODE == "never":
        return 0
    return Settings.WIDTH


if MODE != "json":
    def fallback(text):
        return text.strip()


if __name__ == "__main__":
    print(width())
'''


def test_module_level_code_on_a_branch_the_import_did_not_take_says_how_the_branch_reads(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "branched.py").write_text(BRANCHED)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_branched.py").write_text("from pkg.branched import width\n\n\n"
                                                         "def test_width():\n    assert width() == 10\n")
    result = run_pytest(tmp_path, ["tests/test_branched.py"], 120, cover=["pkg/branched.py"])
    found = CoverageMap.from_run(result)
    assert found is not None, result.stderr_tail

    def how(text: str, end: str | None = None) -> str | None:
        lines = BRANCHED.splitlines()
        start = next(n for n, line in enumerate(lines, 1) if line.strip() == text)
        stop = next(n for n, line in enumerate(lines, 1) if line.strip() == end) if end else start
        mutant = Mutant("m", "pkg/branched.py", "<module>", start, stop, 1, "f", "intent", "incident", "detect", "",
                        BRANCHED, mutated_lines=(1, start))  # (a watched line the import ran: not the span)
        return found.untaken_branch(mutant, BRANCHED)

    assert how("codec = None") == how("except ImportError:", "codec = None") == \
        "runs only where the `try:` at line 3 raises ImportError, and here it does not"
    # an `elif` the import never reached, and the `else` after it: the first `if`'s other way
    assert how('MODE = "odd"') == how('MODE = "plain"') == \
        "runs only where `if codec is not None:` (line 10) is false, and here it is true"
    assert how("LEVEL = 0") == "runs only where `if MODE == \"never\":` (line 17) is true, and here it is false"
    # an `elif` the import reached and took
    assert how("LEVEL = 2") == "runs only where `elif MODE == \"json\":` (line 19) is false, and here it is true"
    assert how("WIDTH = 5") == "runs only where `if MODE == \"json\":` (line 26) is false, and here it is true"
    # code the import ran, a function body no test ran, and taken branches: none of this is said
    assert how("READY = True") is None and how('MODE = "json"') is None and how("WIDTH = 10") is None
    assert how("LEVEL = 1") is None
    # the module run as a script: a test can do that here, so no other environment is needed
    assert how("print(width())") is None
    # a function the branch defines: never defined here
    assert how("return text.strip()") == how("def fallback(text):", "return text.strip()") == \
        "runs only where `if MODE != \"json\":` (line 38) is true, and here it is false"
    assert how("return 0") is None and how("import json as codec") is None
