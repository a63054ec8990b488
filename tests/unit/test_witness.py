"""Which public function a witness calls to reach a surviving mutant."""

from __future__ import annotations

import re
import textwrap
from dataclasses import replace

import pytest

from elenchus.repo.discover import function_spans
from elenchus.mutation.mutate import FunctionSpan, generate
from elenchus.analysis import probes
from elenchus.execution import callrecord
from elenchus.analysis.probes import Distinction
from elenchus.analysis.witness import NoWitness, Witness, data_for, misfit, targets_for
from elenchus.analysis.witness.targets import in_search_order

SOURCE = textwrap.dedent("""
    LIMIT = 3


    def _scale(x):
        return x * 2


    def total(items):
        return sum(_scale(i) for i in items)


    def capped(x):
        return min(x, LIMIT)


    class Box:
        def size(self):
            return 1
""")


def _shop_project(tmp_path, name, source):
    """A project whose package `shop` holds the module ``name``, and a scratch directory beside it."""
    project, scratch = tmp_path / "project", tmp_path / "scratch"
    (project / "shop").mkdir(parents=True)
    scratch.mkdir()
    (project / "shop" / "__init__.py").write_text("")
    (project / "shop" / f"{name}.py").write_text(source)
    return project, scratch


@pytest.mark.parametrize(("symbol", "expected"), [
    ("total", ["total"]),  # public: itself
    ("_scale", ["total"]),  # private: its public caller
    ("LIMIT", ["capped"]),  # a module constant: the functions that read it
    ("Box.size", ["Box.size"]),  # a public method: itself, on an instance built as the tests built theirs
])
def test_a_witness_calls_the_mutated_function_or_the_nearest_public_function_reaching_it(symbol, expected):
    spans = [FunctionSpan("LIMIT", 2, 2), *(FunctionSpan(s.qualname, s.start, s.end) for s in function_spans(SOURCE))]
    mutants, _ = generate("m.py", SOURCE, spans)  # as the evaluation asks: module-level code by what it assigns
    mutant = next(m for m in mutants if m.symbol == symbol)
    assert targets_for(SOURCE, mutant) == expected


def test_a_private_method_a_constructor_or_a_table_read_by_a_method_is_reached_through_public_methods():
    source = textwrap.dedent("""
        RATES = {"EUR": 1.0}


        class Money:
            def __init__(self, cents):
                self.cents = cents

            def split(self, parts):
                return self._share(parts)

            def _share(self, parts):
                return self.cents // parts

            def __add__(self, other):
                return Money(self.cents + other)

            def _rate(self):
                return RATES["EUR"]

            def converted(self):
                return self._rate() * self.cents


        class Rate:
            def __init__(self, value):
                self.key = self._key(value)

            def _key(self, value):
                return round(value, 2)

            def __lt__(self, other):
                return self.key < other.key


        def total(amounts):
            return sum(Money(a).split(1) for a in amounts)
    """)
    spans = [FunctionSpan("RATES", 2, 2), *(FunctionSpan(s.qualname, s.start, s.end) for s in function_spans(source))]
    mutants, _ = generate("m.py", source, spans)

    def targets(symbol):
        return targets_for(source, next(m for m in mutants if m.symbol == symbol))

    assert targets("Money._share") == ["Money.split", "total"]  # the public method, then its callers
    assert targets("Money.split") == ["Money.split", "total"]
    assert targets("Money.__add__") == ["Money.__add__"]  # reached by `+`
    assert targets("Money.__init__")[:4] == ["Money", "Money.split", "Money.__add__", "Money.converted"]
    assert targets("RATES") == ["Money.converted"]  # a table read by a private method, through its public caller
    assert targets("Rate._key") == ["Rate", "Rate.__lt__"]  # called by the constructor: every instance runs it


def test_a_table_read_deep_inside_a_class_is_reached_through_the_functions_building_it_and_called_ones_first():
    # parse: `MONTHS` is read by a private helper of the constructor three calls down, and `parse(format, text)`
    # (what the tests call) builds the class; `__call__` of a converter is run by the instance holding it. Before,
    # the search stopped three callers up (no module function) and said `__call__` had no public caller at all.
    source = textwrap.dedent("""
        MONTHS = {"Jan": 1, "Feb": 2}


        class convert:
            def __call__(self, text):
                return MONTHS[text]


        class Parser:
            def __init__(self, format):
                self._pattern = self._generate(format)

            def _generate(self, format):
                return self._handle(format)

            def _handle(self, format):
                return "|".join(MONTHS) + format

            def __repr__(self):
                return "<Parser>"

            def parse(self, text):
                return convert()(text) if text in self._pattern else None


        def parse(format, text):
            return Parser(format).parse(text)
    """)
    mutants, _ = generate("m.py", source)
    table = next(m for m in mutants if m.symbol == "<module>" and m.line == 2)
    assert targets_for(source, table) == ["Parser", "Parser.__repr__", "Parser.parse", "parse"]
    call = next(m for m in mutants if m.symbol == "convert.__call__")
    assert targets_for(source, call) == ["Parser.parse", "parse"]  # (the method building and calling one)
    # what the tests called with literals (or whose class they built) first, nearest first within each
    numbers = probes.CallSample("m:parse", ("'{:d}'", "'12'"))
    samples = {"m:parse": [numbers], "m:Parser.parse": [probes.CallSample("m:Parser.parse", ("'12'",))],
               "other:Parser": [probes.CallSample("other:Parser", ("'{:d}'",))]}
    assert in_search_order(source, table, targets_for(source, table), "m", samples) == [
        "Parser.parse", "parse", "Parser", "Parser.__repr__"]
    samples["m:Parser"] = [probes.CallSample("m:Parser", ("'{:d}'",))]  # its instances: every method is called
    assert in_search_order(source, table, targets_for(source, table), "m", samples) == [
        "Parser", "Parser.__repr__", "Parser.parse", "parse"]
    # for a dropped table entry (`"Feb": 2`), first what the tests called with another word of that table
    named = probes.CallSample("m:Parser.parse", ("'21 Jan 2011'",), receiver=callrecord.Receiver(("'{:te}'",)))
    samples["m:Parser.parse"] = [named]
    entry = replace(table, line=2, end_line=2, mutated_source=source.replace('"Feb": 2', '"Feb": 3'))
    assert in_search_order(source, entry, targets_for(source, entry), "m", samples) == [
        "Parser.parse", "Parser", "Parser.__repr__", "parse"]


def test_a_class_body_constant_is_reached_through_the_methods_reading_it():
    # parse's `FixedTzOffset.ZERO = timedelta(0)` made `timedelta(1)`: only `dst()` returns it, through `self`;
    # before, the search went through the functions naming the class and never called `dst`
    source = textwrap.dedent("""
        class Offset:
            ZERO = 0

            def __init__(self, minutes):
                self.minutes = minutes

            def dst(self, when):
                return self.ZERO

            def __eq__(self, other):
                return isinstance(other, Offset) and self.minutes == other.minutes
    """)
    mutants, _ = generate("m.py", source)
    zero = next(m for m in mutants if m.line == 3)
    assert zero.symbol == "Offset"
    assert targets_for(source, zero)[0] == "Offset.dst"


def test_module_level_code_evaluated_as_a_whole_module_is_reached_through_the_functions_reading_it():
    mutants, _ = generate("m.py", SOURCE)  # --scope target: module-level code is "<module>"
    mutant = next(m for m in mutants if m.symbol == "<module>" and m.line == 2)
    assert targets_for(SOURCE, mutant) == ["capped"]



def test_a_table_is_reached_through_the_module_level_names_built_from_it():
    source = textwrap.dedent("""
        MAP = {"4": "x"}
        TRANS = str.maketrans(MAP)


        def shown(text):
            return text.translate(TRANS)
    """)
    mutants, _ = generate("m.py", source)
    mutant = next(m for m in mutants if m.symbol == "<module>" and m.line == 2)
    assert targets_for(source, mutant) == ["shown"]


def test_data_the_module_defines_under_if_or_try_is_reached_through_the_functions_reading_it():
    # titlecase defines its patterns in an `if REGEX_AVAILABLE: ... else: ...` block: its mutants there were
    # "no witness was searched: `<module>` is not a public function" though `titlecase()` reads every one
    source = textwrap.dedent("""
        try:
            import regex as engine
        except ImportError:
            import re as engine

        if hasattr(engine, "fullmatch"):
            WORD = engine.compile(r"[a-z]+")
        else:
            WORD = engine.compile(r"[a-zA-Z]+")
        LIMIT = 3


        def words(text):
            return WORD.findall(text)[:LIMIT]


        def count(text):
            return len(text)
    """)
    mutants, _ = generate("m.py", source)
    nested = next(m for m in mutants if m.symbol == "<module>" and m.line == 8)
    assert targets_for(source, nested) == ["words"]
    assert data_for(source, nested)[0] == ["WORD"]
    # the block's own line: every name the block assigns
    block = next(m for m in mutants if m.symbol == "<module>" and m.line == 7)
    assert targets_for(source, block) == ["words"]


BRANCHED = """\
import re

FAST = True
if FAST:
    WORD = re.compile(r"[a-z]+")
else:
    WORD = re.compile(r"[a-zA-Z]+")


def words(text):
    return WORD.findall(text)
"""


def test_data_under_a_branch_the_import_never_takes_stays_a_gap_saying_so(tmp_path):
    # titlecase's fallback patterns under `else:` of `if REGEX_AVAILABLE:`, with `regex` installed: the functions
    # read the names, never what that branch would assign, so agreeing calls show nothing
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import NoWitness, Witness, find_witness

    project, scratch = _shop_project(tmp_path, "branched", BRANCHED)
    mutants, _ = generate("shop/branched.py", BRANCHED)
    samples = {"shop.branched:words": [probes.CallSample("shop.branched:words", ("'Some words'",))]}
    layout = SourceLayout((".",), ("shop",))
    [dead] = [m for m in mutants if m.line == 7 and m.mutated_source.splitlines()[6].endswith('r"[a-zA-Z]")')]
    found = find_witness(project, dead, samples, (), layout, 20.0, scratch)
    assert isinstance(found, NoWitness) and not found.searched, found.reason
    assert "line 7 never runs when the module is imported here" in found.reason, found.reason
    # the branch the import takes is searched as before: its mutant is told apart
    [live] = [m for m in mutants if m.line == 5 and m.mutated_source.splitlines()[4].endswith('r"[a-z]")')]
    shown = find_witness(project, live, samples, (), layout, 20.0, scratch)
    assert isinstance(shown, Witness), shown.reason


def test_what_the_import_runs_is_reached_through_the_functions_reading_the_data_it_fills():
    source = textwrap.dedent("""
        RULES = []


        def _irregular(singular, plural):
            def folded(text):
                return text.lower()

            RULES.insert(0, (folded(plural), singular))


        def singularize(word):
            for plural, singular in RULES:
                if word == plural:
                    return singular
            return word


        def shout(word):
            return word.upper()


        _irregular("person", "people")
    """)
    mutants, _ = generate("m.py", source)
    call = next(m for m in mutants if m.symbol == "<module>" and "_irregular(" in m.diff.splitlines()[-1])
    assert targets_for(source, call) == ["singularize"]  # the call fills RULES; `shout` reads nothing of it
    nested = next(m for m in mutants if m.symbol == "_irregular.folded")
    assert targets_for(source, nested) == ["singularize"]
    # what they fill, and the lines reading it (not _irregular's own); no state proves them equivalent, since
    # a call can do more than fill the module's data
    reading = source.splitlines().index("    for plural, singular in RULES:") + 1
    assert data_for(source, call) == data_for(source, nested) == (["RULES"], [], [reading])
    later = next(m for m in mutants if m.symbol == "singularize")  # runs at every call: no state decides it
    assert data_for(source, later) == ([], [], [])


GUARDED = textwrap.dedent("""
    def ratio(a, b):
        if b == 0:
            raise ZeroDivisionError("b")
        return a / b


    def last(xs, size):
        return xs[:size]
""")


def _mutant(family: str):
    mutants, _ = generate("m.py", GUARDED, [FunctionSpan(s.qualname, s.start, s.end) for s in function_spans(GUARDED)])
    return next(m for m in mutants if m.family == family)


def test_the_incident_sentence_fits_a_witness_that_shows_what_it_claims():
    dropped = _mutant("dropped-guard")
    shows_the_error = Distinction(("1", "0"), (), None, "ZeroDivisionError", None, "ZeroDivisionError", "edge-value")
    assert misfit(dropped, shows_the_error) is None


def test_an_incident_about_an_error_does_not_fit_a_witness_where_the_code_returns():
    dropped = _mutant("dropped-guard")
    two_values = Distinction(("1", "2"), (), "0.5", None, "2.0", None, "recorded")
    assert "the code returns a value" in misfit(dropped, two_values)
    witness = Witness("ratio(1, 2)", "0.5", "2.0", "test", "recorded", 0.1, misfit(dropped, two_values))
    assert witness.incident == "`ratio(1, 2)` gives `2.0` where the code gives `0.5`"
    assert witness.to_json()["incident_check"].startswith("does not fit: it speaks of an error")


def test_an_incident_about_a_silent_failure_does_not_fit_a_witness_where_the_mutant_raises():
    silent = next(m for m in generate("m.py", GUARDED, [FunctionSpan(s.qualname, s.start, s.end)
                                                          for s in function_spans(GUARDED)])[0]
                  if "silently" in m.incident)
    raising = Distinction(("[1]", "1"), (), "[1]", None, None, "IndexError", "search")
    assert misfit(silent, raising) == "it speaks of a silent failure, but on this call the mutant raises `IndexError`"
    assert misfit(silent, Distinction(("[1, 2]", "2"), (), "[1, 2]", None, "[1]", None, "search")) is None


def test_a_search_that_breaks_leaves_the_survivor_a_gap_saying_why(tmp_path):
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import NoWitness, _searched

    missing = _mutant("dropped-guard")  # its file `m.py` does not exist under tmp_path
    found = _searched(tmp_path, missing, {}, (), SourceLayout((".",), ("m",)), 1.0, tmp_path, ())
    assert isinstance(found, NoWitness) and not found.searched
    assert found.reason.startswith("no witness was searched: the search stopped on an internal error "
                                   "(FileNotFoundError")


def test_a_search_that_never_tried_the_kind_of_input_the_tests_use_claims_no_equivalence(tmp_path):
    from elenchus.repo.layout import SourceLayout
    from elenchus.mutation.mutate import Mutant
    from elenchus.analysis.witness import NoWitness, find_witness

    source = "def describe(x):\n    zone = getattr(x, 'tzinfo', None)\n" \
             "    return 'aware' if zone is not None else 'plain'\n"
    project, scratch = tmp_path / "project", tmp_path / "scratch"
    (project / "src" / "shop").mkdir(parents=True)
    scratch.mkdir()
    (project / "src" / "shop" / "__init__.py").write_text("")
    (project / "src" / "shop" / "tz.py").write_text(source)
    mutant = Mutant(id="0" * 12, path="src/shop/tz.py", symbol="describe", line=2, end_line=2, col=5,
                    family="handmade", changed_intent="handmade", incident="handmade", expected_detection="none",
                    diff="", mutated_source=source.replace("'tzinfo'", "'tzname'"), mutated_lines=(2,))
    layout = SourceLayout(("src",), ("shop",))
    samples = {"shop.tz:describe": [probes.CallSample("shop.tz:describe", ("1",))]}
    # (time enough to finish on a loaded host: a search cut short by its time claims nothing)
    plain = find_witness(project, mutant, samples, (), layout, 30.0, scratch)
    assert isinstance(plain, NoWitness) and plain.searched  # literals only: likely equivalent, as far as it knows
    dated = find_witness(project, mutant, samples, (), layout, 2.0, scratch, (), {"shop.tz:describe": 3})
    assert isinstance(dated, NoWitness) and not dated.searched
    assert "made 3 distinct call(s) of it that the search cannot repeat (an argument" in dated.reason


def test_a_proposed_test_goes_beside_the_test_file_named_after_its_module_in_that_files_style():
    from elenchus.mutation.mutate import Mutant
    from elenchus.analysis.witness import placement_for

    files = {
        "tests/test_misc.py": "from shop.cart import total\n\ndef test_total():\n    assert total([]) == 0\n",
        "tests/unit/test_cart.py": "import unittest\n\nclass CartTest(unittest.TestCase):\n    def test_x(self):\n"
                                   "        pass\n",
        "tests/test_prices.py": "import pytest\n\ndef test_y():\n    pass\n",
    }
    mutant = Mutant.__new__(Mutant)
    object.__setattr__(mutant, "id", "abcdef0123456789")
    placed = placement_for(mutant, "shop.cart", sorted(files), files.get)
    assert placed.path == "tests/unit/test_elenchus_cart_abcdef01.py" and placed.style == "unittest"
    del files["tests/unit/test_cart.py"]
    placed = placement_for(mutant, "shop.cart", sorted(files), files.get)  # the one importing the module
    assert placed.path == "tests/test_elenchus_cart_abcdef01.py" and placed.style == "pytest"


RATIO = "def ratio(part, whole):\n    if whole == 0:\n        return 0.0\n    return part / whole\n"


def _ratio_cohort(tmp_path):
    from elenchus.execution.cohorts import Cohort
    from elenchus.repo.layout import SourceLayout
    from elenchus.execution.workspace import tree_digest

    template = tmp_path / "template"
    (template / "shop").mkdir(parents=True)
    (template / "shop" / "__init__.py").write_text("")
    (template / "shop" / "calc.py").write_text(RATIO)
    (template / "tests").mkdir()
    (template / "tests" / "test_calc.py").write_text("from shop.calc import ratio\n\n\ndef test_half():\n"
                                                     "    assert ratio(1, 2) == 0.5\n")
    layout = SourceLayout((".",), ("shop",))
    return Cohort("modified", template, ("tests/test_calc.py",), tree_digest(template), layout=layout), layout


def _guard_dropped():
    from elenchus.mutation.mutate import Mutant

    mutated = RATIO.replace("    if whole == 0:\n        return 0.0\n", "")
    return Mutant(id="d" * 12, path="shop/calc.py", symbol="ratio", line=2, end_line=3, col=5, family="dropped-guard",
                  changed_intent="the zero guard is gone", incident="`ratio` divides by zero",
                  expected_detection="assert ratio(1, 0) == 0.0", diff="", mutated_source=mutated, mutated_lines=(2, 3))


@pytest.mark.parametrize("runner", ["warm", "fresh"])
def test_a_witness_verified_through_the_evaluations_runs_is_the_one_verified_in_fresh_interpreters(tmp_path, runner):
    from elenchus.execution.executor import FreshProcess, WarmRunner
    from elenchus.analysis.witness import Candidate, NoWitness, find_witness, search_witness, settle, verifier

    cohort, layout = _ratio_cohort(tmp_path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    mutant = _guard_dropped()
    executor = WarmRunner(scratch, 1, ["json"], ["shop"], collect=False) if runner == "warm" else FreshProcess(scratch)
    try:
        verify = verifier(cohort, executor)
        through = find_witness(cohort.template, mutant, {}, (0, 1, 2), layout, 10.0, scratch, verify=verify)
        alone = find_witness(cohort.template, mutant, {}, (0, 1, 2), layout, 10.0, scratch)
        assert isinstance(through, Witness) and isinstance(alone, Witness), (through, alone)
        assert (through.call, through.original, through.mutant, through.test) == \
               (alone.call, alone.original, alone.mutant, alone.test)
        assert through.original == "0.0" and through.mutant == "raise ZeroDivisionError"
        assert "fails at its assertion" in through.verification
        if runner == "warm":
            assert executor.warm_runs == 2 and executor.fresh_runs == 0, executor.reason  # code, then mutant
            # The report's account of the runs says which of them checked witness tests.
            assert executor.describe().endswith("; 2 of these 2 runs checked witness tests, on the code and on a mutant")

        # A test that does not catch the mutant is not kept: the survivor stays a gap, saying why.
        candidate = search_witness(cohort.template, mutant, {}, (0, 1, 2), layout, 10.0, scratch)
        assert isinstance(candidate, Candidate)
        harmless = replace(candidate.probe, source="from shop.calc import ratio\n\n\ndef test_it():\n"
                                                   "    assert ratio(1, 2) == 0.5\n")
        settled = settle(replace(candidate, probe=harmless), verify(harmless, mutant), 0.1, False)
        assert not isinstance(settled, Witness) and settled.unkept
        assert "passes on the mutant, so it does not detect it" in settled.notes[-1]
        rest = search_witness(cohort.template, mutant, {}, (0, 1, 2), layout, 10.0, scratch, progress=settled)
        assert isinstance(rest, NoWitness) and not rest.searched and "differs, but its test was not kept" in rest.reason
    finally:
        executor.close()


def test_calls_are_recorded_from_the_fastest_tests_that_run_the_functions_a_witness_will_call(tmp_path):
    from elenchus.execution.cohorts import Cohort
    from elenchus.execution.coverage_map import CoverageMap
    from elenchus.analysis.witness import CALLERS_PER_FUNCTION, _callers, _lines_of

    source = "def total(items):\n    return sum(items)\n\n\ndef ratio(part, whole):\n    return part / whole\n"
    assert _lines_of(source, ["ratio"]) == {6}  # its body: the `def` line runs at import, not when called
    count = 4 * CALLERS_PER_FUNCTION
    keys = {f"tests/test_m.py::test_{n}": f"tests/test_m.py::test_{n}" for n in range(count)}
    ordered = list(keys.values())
    durations = {key: 0.01 * 2.0 ** (count - n) for n, key in enumerate(ordered)}  # the later, the faster
    lines = {"m.py": {2: tuple(ordered[:3 * CALLERS_PER_FUNCTION]), 6: (ordered[-1],)}}
    coverage = CoverageMap(lines, {}, durations, {k: "tests/test_m.py" for k in ordered}, keys)
    cohort = Cohort("modified", tmp_path, ("tests/test_m.py",), "0" * 64)
    assert _callers(cohort, coverage, {("m.py", "ratio"): {6}}) == (ordered[-1],)  # only its caller runs
    fastest = _callers(cohort, coverage, {("m.py", "total"): {2}})  # many callers: the fastest few
    assert sorted(fastest) == sorted(ordered[2 * CALLERS_PER_FUNCTION:3 * CALLERS_PER_FUNCTION])
    assert _callers(cohort, coverage, {("m.py", "other"): {9}}) == ()  # no test runs it: nothing to record
    assert _callers(cohort, None, {("m.py", "ratio"): {6}}) == ("tests/test_m.py",)  # no coverage: every test
    # a file the coverage did not measure (a target's evaluation measures the target's files only): every test
    assert _callers(cohort, coverage, {("pkg/__init__.py", "format"): {3}}) == ("tests/test_m.py",)
    shared = CoverageMap(lines, {"m.py": frozenset({6})}, durations, coverage.files, keys)
    assert _callers(cohort, shared, {("m.py", "ratio"): {6}}) == ("tests/test_m.py",)  # run at import: a whole run


def test_tests_about_as_fast_as_each_other_are_recorded_in_the_order_of_their_keys_in_every_run(tmp_path):
    # what a test took varies from one run to the next by a few per cent: the tests a recording runs, and so the
    # calls the search tries first, must not
    from elenchus.execution.cohorts import Cohort
    from elenchus.execution.coverage_map import CoverageMap
    from elenchus.analysis.witness import CALLERS_PER_FUNCTION, _callers

    keys = {f"tests/test_m.py::test_{n:02}": f"tests/test_m.py::test_{n:02}" for n in range(3 * CALLERS_PER_FUNCTION)}
    ordered = list(keys.values())
    lines = {"m.py": {2: tuple(ordered)}}
    cohort = Cohort("modified", tmp_path, ("tests/test_m.py",), "0" * 64)
    chosen = set()
    for run in range(3):  # each run's times: 21 to 31 ms, each test's own a little off from the last run's
        durations = {key: 0.021 + 0.001 * ((n * 7 + run * 5) % 11) for n, key in enumerate(ordered)}
        coverage = CoverageMap(lines, {}, durations, {k: "tests/test_m.py" for k in ordered}, keys)
        chosen.add(_callers(cohort, coverage, {("m.py", "total"): {2}}))
    assert chosen == {tuple(ordered[:CALLERS_PER_FUNCTION])}, chosen


def test_the_cases_of_each_test_function_about_as_fast_take_turns_in_a_recording(tmp_path):
    # validators' `url`: the invalid texts' test sorts before the valid ones', and a recording of the first cases by
    # name alone held no valid address, so no scheme dropped from the table was told apart
    from elenchus.execution.cohorts import Cohort
    from elenchus.execution.coverage_map import CoverageMap
    from elenchus.analysis.witness import CALLERS_PER_FUNCTION, _callers

    invalid = [f"tests/test_url.py::test_returns_failed_validation_on_invalid_url[case{n:02}]" for n in range(40)]
    valid = [f"tests/test_url.py::test_returns_true_on_valid_url[case{n:02}]" for n in range(40)]
    keys = {key: key for key in [*invalid, *valid]}
    coverage = CoverageMap({"url.py": {2: tuple(keys)}}, {}, {key: 0.002 for key in keys},
                           {k: "tests/test_url.py" for k in keys}, keys)
    chosen = _callers(Cohort("modified", tmp_path, ("tests/test_url.py",), "0" * 64), coverage,
                      {("url.py", "url"): {2}})
    half = CALLERS_PER_FUNCTION // 2
    assert set(chosen) == {*invalid[:half], *valid[:half]}, chosen


def test_search_processes_fork_from_a_server_that_imported_the_search_code_once():
    import multiprocessing

    from elenchus.analysis.witness import _search_processes

    context = _search_processes()
    if "forkserver" not in multiprocessing.get_all_start_methods():
        assert context.get_start_method() == "spawn"
        return
    assert context.get_start_method() == "forkserver"
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        # Asked before anything of this test reaches the child: the search code is there already.
        question = "'elenchus.analysis.witness' in __import__('sys').modules"
        assert pool.submit(eval, question).result(timeout=60) is True


def test_only_plain_data_left_by_the_import_can_prove_a_mutant_equivalent():
    from elenchus.mutation.mutate import Mutant

    source = textwrap.dedent("""
        import random
        import re

        SIZE = 2 * 2
        PATTERN = re.compile(r"^a+$")
        SEED = random.seed(4)
        HANDLERS = []


        def _register(name):
            HANDLERS.append(name)


        def area(n):
            return n * SIZE + len(HANDLERS) if PATTERN.match("a") else SEED


        _register("x")
        KEEP = [_register]
    """)

    def mutant(symbol: str, old: str, new: str) -> Mutant:
        line = next(n for n, text in enumerate(source.splitlines(), 1) if old in text)
        return Mutant(id="0" * 12, path="m.py", symbol=symbol, line=line, end_line=line, col=1, family="handmade",
                      changed_intent="", incident="", expected_detection="", diff="",
                      mutated_source=source.replace(old, new))

    reading = [source.splitlines().index("    return n * SIZE + len(HANDLERS) if PATTERN.match(\"a\") else SEED")
               + 1]
    everything = ["HANDLERS", "KEEP", "PATTERN", "SEED", "SIZE"]
    # plain data (a pure expression, a compiled pattern): what it leaves is all it does
    assert data_for(source, mutant("SIZE", "2 * 2", "2 + 2")) == (["SIZE"], everything, reading)
    assert data_for(source, mutant("PATTERN", "a+$", "a*$")) == (["PATTERN"], everything, reading)
    # `random.seed(...)` acts outside the module: the data left behind proves nothing
    assert data_for(source, mutant("SEED", "seed(4)", "seed(5)")) == (["SEED"], [], reading)
    # a function the import calls, but also keeps (KEEP): it may run again later, so no data decides it
    assert data_for(source, mutant("_register", "HANDLERS.append(name)", "HANDLERS.append(None)")) == ([], [], [])


def test_a_widened_handler_no_call_ran_into_stays_a_gap_never_likely_equivalent(tmp_path):
    from elenchus.repo.layout import SourceLayout
    from elenchus.mutation.mutate import Mutant
    from elenchus.analysis.witness import NoWitness, find_witness

    source = "TABLE = {'a': 1}\n\n\ndef lookup(key):\n    try:\n        return TABLE.get(str(key))\n" \
             "    except KeyError:\n        return None\n"
    project, scratch = _shop_project(tmp_path, "table", source)
    widened = source.replace("except KeyError:", "except Exception:")
    mutant = Mutant(id="0" * 12, path="shop/table.py", symbol="lookup", line=7, end_line=7, col=5,
                    family="broadened-handler", changed_intent="handmade", incident="handmade",
                    expected_detection="none", diff="", mutated_source=widened, mutated_lines=(7,))
    samples = {"shop.table:lookup": [probes.CallSample("shop.table:lookup", ("'a'",))]}
    # No key makes `TABLE.get(str(key))` raise at all: the handler never caught anything, so nothing was seen of
    # what it catches (the test below has a key that makes the code raise something else)
    found = find_witness(project, mutant, samples, (), SourceLayout((".",), ("shop",)), 30.0, scratch)
    assert isinstance(found, NoWitness) and not found.searched, found.reason
    assert found.reason.endswith("no call of `lookup` made the code the handler of line 7 guards raise an error "
                                 "`except KeyError` lets through"), found.reason


def test_a_table_only_another_module_reads_is_told_apart_through_the_packages_own_functions(tmp_path):
    # sqlparse's `KEYWORDS` (sqlparse/keywords.py) is read by its lexer (sqlparse/lexer.py) and reached by
    # `sqlparse.format`: "no public function of sqlparse/keywords.py calls it", so no witness was searched
    from elenchus.repo.layout import SourceLayout
    from elenchus.mutation.mutate import Mutant
    from elenchus.analysis.witness import NoWitness, Witness, find_witness

    words = "WORDS = {\n    'ABORT': 'keyword',\n    'SELECT': 'keyword',\n}\n"
    project, scratch = _shop_project(tmp_path, "words", words)
    (project / "shop" / "lexer.py").write_text(
        "from shop.words import WORDS\n\n\ndef tag(text):\n"
        "    return ' '.join(f'<{w}>' if w in WORDS else w for w in text.split())\n")
    # (the package's first function gives objects no test writes down, as `sqlparse.parse` does: its time
    # goes to the next one once each of the tests' calls gave one)
    (project / "shop" / "__init__.py").write_text(
        "from shop import lexer\n\n\nclass Token:\n    def __init__(self, word):\n        self.word = word\n\n\n"
        "def tokens(text):\n    return [Token(w) for w in lexer.tag(text).split()]\n\n\n"
        "def mark(text):\n    return lexer.tag(text)\n")
    mutant = Mutant(id="0" * 12, path="shop/words.py", symbol="WORDS", line=2, end_line=2, col=5,
                    family="handmade", changed_intent="handmade", incident="handmade", expected_detection="none",
                    diff="", mutated_source=words.replace("    'ABORT': 'keyword',\n", ""), mutated_lines=(2,))
    samples = {"shop:mark": [probes.CallSample("shop:mark", ("'SELECT x'",))],
               "shop:tokens": [probes.CallSample("shop:tokens", ("'SELECT x'",))]}
    found = find_witness(project, mutant, samples, (), SourceLayout((".",), ("shop",)), 20.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert found.call == "mark('ABORT x')", found.call  # (the table's word in place of the test's)
    assert (found.original, found.mutant) == ("'<ABORT> x'", "'ABORT x'"), found
    assert "from shop import mark" in found.test
    # an entry no input tells apart is still a gap, never likely equivalent: agreement through another module's
    # code, whose reach is not watched, claims nothing
    kept = replace(mutant, mutated_source=words.replace("'ABORT': 'keyword'", "'ABORT': 'word'"))
    alike = find_witness(project, kept, samples, (), SourceLayout((".",), ("shop",)), 20.0, scratch)
    assert isinstance(alike, NoWitness) and not alike.searched, alike.reason
    assert "is read only by other modules of `shop`" in alike.reason, alike.reason
    assert "`tokens` gave results a test cannot write down or compare (`list`) for each of the tests' 1 call(s), " \
           "so no other input was tried" in alike.reason, alike.reason
    assert re.search(r"`mark`: \d+ input\(s\) \(", alike.reason), alike.reason  # (what the search tried says so)
    # a whole file's mutants have the symbol `<module>`: the reason names the data
    whole = find_witness(project, replace(kept, symbol="<module>"), samples, (), SourceLayout((".",), ("shop",)),
                         20.0, scratch)
    assert "`WORDS` is read only by other modules of `shop`" in whole.reason, whole.reason


#: A filter that finds its steps by name (`getattr`), and the package function that uses it.
_SHOUT = textwrap.dedent("""\
    class Shout:
        def process(self, words):
            return [getattr(self, "_process_" + ("long" if len(w) > 12 else "short"))(w) for w in words]

        def _process_long(self, word):
            return word.upper()

        def _process_short(self, word):
            return word
""")
_SHOUT_PACKAGE = ("from shop.filters import Shout\n\n\n"
                  "def shout(text):\n    return ' '.join(Shout().process(text.split()))\n")


def _shout_mutant(mutated_source):
    from elenchus.mutation.mutate import Mutant

    return Mutant(id="0" * 12, path="shop/filters.py", symbol="Shout._process_long", line=6, end_line=6, col=16,
                  family="handmade", changed_intent="handmade", incident="handmade", expected_detection="none",
                  diff="", mutated_source=mutated_source, mutated_lines=(6,))


def test_a_method_its_class_finds_by_name_is_told_apart_through_the_packages_own_functions(tmp_path):
    # sqlparse's `ReindentFilter._process_case` is found by name (`getattr(self, '_process_' + ...)`), the filter
    # built by the formatter in another module and reached by `sqlparse.format`: no function of its own module
    # calls it, so "no witness was searched"
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import NoWitness, Witness, find_witness

    filters = _SHOUT
    project, scratch = _shop_project(tmp_path, "filters", filters)
    (project / "shop" / "__init__.py").write_text(_SHOUT_PACKAGE)
    mutant = _shout_mutant(filters.replace("word.upper()", "word.title()"))
    assert targets_for(filters, mutant) == []
    samples = {"shop:shout": [probes.CallSample("shop:shout", ("'hi extraordinarily'",))]}
    found = find_witness(project, mutant, samples, (), SourceLayout((".",), ("shop",)), 20.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert found.call == "shout('hi extraordinarily')", found.call
    assert (found.original, found.mutant) == ("'hi EXTRAORDINARILY'", "'hi Extraordinarily'"), found
    assert "from shop import shout" in found.test
    # a change no input tells apart is a gap, never likely equivalent: the reach through another module's code
    # is not watched
    kept = replace(mutant, mutated_source=filters.replace("word.upper()", "word.upper().upper()"))
    alike = find_witness(project, kept, samples, (), SourceLayout((".",), ("shop",)), 5.0, scratch)
    assert isinstance(alike, NoWitness) and not alike.searched, alike.reason
    assert "`Shout._process_long` is called by no public function of its own module, so the search went through " \
           "`shop`'s own functions, whose agreement claims nothing" in alike.reason, alike.reason


def test_code_only_another_module_calls_is_searched_with_the_calls_of_the_tests_that_ran_it(tmp_path):
    # sqlparse's `format` is called by hundreds of tests; its fastest ones never format a `CASE`, so the calls
    # recorded from them never reached `ReindentFilter._process_case`: the tests that ran it are recorded too
    from elenchus.execution.cohorts import Cohort
    from elenchus.execution.coverage_map import CoverageMap
    from elenchus.execution.workspace import tree_digest
    from elenchus.repo.layout import SourceLayout
    from elenchus.repo.snapshot import Snapshot
    from elenchus.analysis.witness import CALLERS_PER_FUNCTION, Witness, survivors

    template, scratch = tmp_path / "template", tmp_path / "scratch"
    (template / "shop").mkdir(parents=True)
    (template / "tests").mkdir()
    scratch.mkdir()
    (template / "shop" / "filters.py").write_text(_SHOUT)
    (template / "shop" / "__init__.py").write_text(_SHOUT_PACKAGE)
    short = [f"test_short_{n}" for n in range(3 * CALLERS_PER_FUNCTION)]  # (few enough recorded to narrow to)
    (template / "tests" / "test_shout.py").write_text(
        "from shop import shout\n\n\n" + "".join(f"def {name}():\n    assert shout('a b') == 'a b'\n\n\n"
                                                for name in short)
        + "def test_long():\n    assert shout('extra' + 'ordinarily')\n")  # (no literal of it reaches the code)
    layout = SourceLayout((".",), ("shop",))
    cohort = Cohort("modified", template, ("tests/test_shout.py",), tree_digest(template), layout=layout)
    keys = {f"tests/test_shout.py::{name}": f"tests/test_shout.py::{name}" for name in [*short, "test_long"]}
    every, long = tuple(keys.values()), ("tests/test_shout.py::test_long",)
    durations = {key: 1.0 if key in long else 0.01 for key in every}  # (the test that reaches it is the slowest)
    coverage = CoverageMap({"shop/__init__.py": {5: every}, "shop/filters.py": {3: every, 6: long, 9: every}}, {},
                           durations, dict.fromkeys(every, "tests/test_shout.py"), keys)
    head = Snapshot(template, "head", "head", None, ("shop/__init__.py", "shop/filters.py"), ())
    mutant = _shout_mutant(_SHOUT.replace("word.upper()", "word.title()"))
    [found] = survivors.witness_survivors([mutant], cohort, head, layout, 20.0, 1, scratch,
                                          coverage=coverage).values()
    assert isinstance(found, Witness), found.reason
    assert found.call == "shout('extraordinarily')", found.call


_DOMAINS = ("import re\n\n\ndef domain(value, *, dotted=False):\n"
            "    end = r'\\.?$' if dotted else r'$'\n"
            "    return re.match(r'^(?:[a-z0-9-]+\\.)+[a-z]+' + end, value) is not None\n\n\n"
            "def email(value):\n    user, _, host = value.partition('@')\n    return bool(user) and domain(host)\n")


def test_a_changed_default_is_witnessed_from_the_tests_named_after_its_function_not_only_the_fastest(tmp_path):
    # validators' `domain`: the fastest tests running it are the email validator's, which pass no option; the
    # tests of `domain` itself check `'3.cn.'` with `rfc_1034=True`, and are recorded too, after them
    from elenchus.execution.cohorts import Cohort
    from elenchus.execution.coverage_map import CoverageMap
    from elenchus.execution.workspace import tree_digest
    from elenchus.mutation.mutate import generate
    from elenchus.repo.layout import SourceLayout
    from elenchus.repo.snapshot import Snapshot
    from elenchus.analysis.witness import CALLERS_PER_FUNCTION, Witness, survivors

    template, scratch = tmp_path / "template", tmp_path / "scratch"
    (template / "shop").mkdir(parents=True)
    (template / "tests").mkdir()
    scratch.mkdir()
    (template / "shop" / "__init__.py").write_text("")
    (template / "shop" / "domains.py").write_text(_DOMAINS)
    mail = [f"test_mail_{n}" for n in range(3 * CALLERS_PER_FUNCTION)]
    (template / "tests" / "test_email.py").write_text(
        "from shop.domains import email\n\n\n" + "".join(
            f"def {name}():\n    assert email('me@site{n}.example.com')\n\n\n" for n, name in enumerate(mail)))
    (template / "tests" / "test_domain.py").write_text(
        "from shop.domains import domain\n\n\ndef test_domain_dotted():\n"
        "    assert domain('3.' + 'cn.', dotted=True)\n")  # (no literal of the tests writes the text alone)
    layout = SourceLayout((".",), ("shop",))
    files = ("tests/test_domain.py", "tests/test_email.py")
    cohort = Cohort("modified", template, files, tree_digest(template), layout=layout)
    nodeids = [*(f"tests/test_email.py::{name}" for name in mail), "tests/test_domain.py::test_domain_dotted"]
    keys = {nodeid: nodeid for nodeid in nodeids}
    durations = {key: 1.0 if "dotted" in key else 0.01 for key in nodeids}  # (the test of `domain` is slowest)
    coverage = CoverageMap({"shop/domains.py": {5: tuple(nodeids), 6: tuple(nodeids)}}, {}, durations,
                           {key: key.partition("::")[0] for key in nodeids}, keys)
    head = Snapshot(template, "head", "head", None, ("shop/__init__.py", "shop/domains.py"), ())
    [mutant] = [m for m in generate("shop/domains.py", _DOMAINS)[0] if "dotted=True):" in m.mutated_source]
    [found] = survivors.witness_survivors([mutant], cohort, head, layout, 20.0, 1, scratch,
                                          coverage=coverage).values()
    assert isinstance(found, Witness), found.reason
    assert (found.call, found.original, found.mutant, found.origin) == ("domain('3.cn.')", "False", "True",
                                                                       "defaults"), found


def test_a_broadened_handler_is_told_apart_by_a_value_of_a_kind_the_tests_never_passed(tmp_path):
    # funcy's `nth(n, seq)`: `seq[n]` under `except TypeError:` made `except Exception:`; the tests passed texts,
    # ranges and iterators, and only a mapping (`nth(0, {})`, KeyError) shows what the mutant swallows
    from elenchus.repo.layout import SourceLayout
    from elenchus.mutation.mutate import Mutant
    from elenchus.analysis.witness import Witness, find_witness

    source = ("from itertools import islice\n\n\ndef nth(n, seq):\n    try:\n        return seq[n]\n"
              "    except IndexError:\n        return None\n    except TypeError:\n"
              "        return next(islice(seq, n, None), None)\n")
    project, scratch = _shop_project(tmp_path, "seqs", source)
    mutant = Mutant(id="0" * 12, path="shop/seqs.py", symbol="nth", line=9, end_line=9, col=5,
                    family="broadened-handler", changed_intent="handmade", incident="handmade",
                    expected_detection="none", diff="",
                    mutated_source=source.replace("except TypeError:", "except Exception:"), mutated_lines=(9,))
    samples = {"shop.seqs:nth": [probes.CallSample("shop.seqs:nth", ("0", "'xyz'")),
                                 probes.CallSample("shop.seqs:nth", ("3", "'xyz'"))]}
    found = find_witness(project, mutant, samples, (), SourceLayout((".",), ("shop",)), 30.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert found.call == "nth(0, {})", found.call
    assert found.origin == "foreign" and found.original == "raise KeyError" and found.mutant == "None", found


@pytest.mark.parametrize("family, why", [
    ("dropped-copy", "shares the original where the code made a copy"),
    # (the same search, for the family that builds a base class where the instance's own class was built)
    ("base-class-instance", "differs only for a subclass"),
])
def test_a_dropped_copy_no_input_told_apart_stays_a_gap_never_likely_equivalent(tmp_path, family, why):
    from elenchus.repo.layout import SourceLayout
    from elenchus.mutation.mutate import Mutant
    from elenchus.analysis.witness import NoWitness, find_witness

    source = ("DEFAULTS = {'all': False}\n\n\ndef enabled():\n    chosen = DEFAULTS.copy()\n"
              "    chosen['all'] = True\n    return chosen['all']\n")
    project, scratch = _shop_project(tmp_path, "settings", source)
    mutant = Mutant(id="0" * 12, path="shop/settings.py", symbol="enabled", line=5, end_line=5, col=5,
                    family=family, changed_intent="handmade", incident="handmade", expected_detection="none",
                    diff="", mutated_source=source.replace("DEFAULTS.copy()", "DEFAULTS"), mutated_lines=(5,))
    samples = {"shop.settings:enabled": [probes.CallSample("shop.settings:enabled", ())]}
    # `enabled()` gives True either way: only reading `DEFAULTS` after the call shows the alias
    found = find_witness(project, mutant, samples, (), SourceLayout((".",), ("shop",)), 30.0, scratch)
    assert isinstance(found, NoWitness) and not found.searched, found.reason
    assert why in found.reason
    other = replace(mutant, family="handmade")  # the same search, for a mutant it can clear
    assert find_witness(project, other, samples, (), SourceLayout((".",), ("shop",)), 30.0, scratch).searched


@pytest.mark.parametrize("exported", ["from ._impl import scale, _helper\n",
                                      "from pkg._impl import *  # noqa: F403\n",
                                      "import os\n"], ids=["named", "star", "not-exported"])
def test_a_function_of_a_private_module_is_called_from_the_public_package_that_re_exports_it(tmp_path, exported):
    from elenchus.repo.layout import SourceLayout
    from elenchus.mutation.mutate import Mutant
    from elenchus.analysis.witness import Witness, find_witness

    source = "__all__ = ['scale']\n\n\ndef scale(x):\n    return x * 2\n\n\ndef _helper():\n    return 0\n"
    project, scratch = tmp_path / "project", tmp_path / "scratch"
    (project / "pkg").mkdir(parents=True)
    scratch.mkdir()
    (project / "pkg" / "__init__.py").write_text(exported)
    (project / "pkg" / "_impl.py").write_text(source)
    mutant = Mutant(id="0" * 12, path="pkg/_impl.py", symbol="scale", line=5, end_line=5, col=5,
                    family="handmade", changed_intent="handmade", incident="handmade", expected_detection="none",
                    diff="", mutated_source=source.replace("x * 2", "x * 3"), mutated_lines=(5,))
    samples = {"pkg._impl:scale": [probes.CallSample("pkg._impl:scale", ("0",))]}  # (0 * 3 == 0 * 2)
    found = find_witness(project, mutant, samples, (), SourceLayout((".",), ("pkg",)), 30.0, scratch)
    if exported.startswith("import os"):  # nothing a user imports reaches it: no call is written
        assert not isinstance(found, Witness) and "module pkg._impl is private" in found.reason
        return
    assert isinstance(found, Witness), found.reason
    imports = [line for line in found.test.splitlines() if line.startswith(("from ", "import "))]
    assert imports == ["from pkg import scale"], found.test
    assert found.call.startswith("scale(")


LOCALES = textwrap.dedent("""
    _CURRENT = {"locale": None}
    _SEPARATOR = {
        "fr_FR": " ",
        "de_DE": ".",
    }


    def activate(locale):
        _CURRENT["locale"] = locale
        return object()  # (its catalog: nothing a test writes down)


    def deactivate():
        _CURRENT["locale"] = None


    def separator():
        return _SEPARATOR.get(_CURRENT["locale"], ",")
""")


def test_an_entry_seen_only_after_a_set_up_call_is_told_apart_by_making_that_call_first(tmp_path):
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import Candidate, search_witness, setups_for

    assert setups_for(LOCALES) == ["activate", "deactivate"]  # they change what the module does afterwards
    project, scratch = _shop_project(tmp_path, "i18n", LOCALES)
    spans = [FunctionSpan("_SEPARATOR", 3, 6), *(FunctionSpan(s.qualname, s.start, s.end)
                                                for s in function_spans(LOCALES))]
    mutants, _ = generate("shop/i18n.py", LOCALES, spans)
    [dropped] = [m for m in mutants if m.symbol == "_SEPARATOR" and '"de_DE"' not in m.mutated_source]
    # The tests activated French only: German is never read unless activated first.
    samples = {"shop.i18n:separator": [probes.CallSample("shop.i18n:separator", ())],
               "shop.i18n:activate": [probes.CallSample("shop.i18n:activate", ("'fr_FR'",))],
               "shop.i18n:deactivate": [probes.CallSample("shop.i18n:deactivate", ())]}
    found = search_witness(project, dropped, samples, (), SourceLayout((".",), ("shop",)), 30.0, scratch)
    assert isinstance(found, Candidate), found.reason
    assert found.probe.input_repr == "activate('de_DE'); separator()"
    assert "from shop.i18n import activate, deactivate, separator\n" in found.probe.source
    # the locale it activates is put back as the tests put theirs back, whatever the assertion does
    assert "    activate('de_DE')\n    try:\n        assert separator() == '.'\n    finally:\n" \
           "        deactivate()\n" in found.probe.source
    assert probes.verify_probe(project, found.probe, dropped).accepted


def test_a_set_up_call_that_fails_here_leaves_the_survivor_a_gap_never_likely_equivalent(tmp_path):
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import NoWitness, search_witness

    # Its catalogs are build output no snapshot holds (git ignores them): activating fails in the workspace.
    source = LOCALES.replace('def activate(locale):\n', 'def activate(locale):\n'
                             '    open(__file__.replace("i18n.py", locale + ".mo")).close()\n')
    project, scratch = _shop_project(tmp_path, "i18n", source)
    spans = [FunctionSpan("_SEPARATOR", 3, 6), *(FunctionSpan(s.qualname, s.start, s.end)
                                                for s in function_spans(source))]
    mutants, _ = generate("shop/i18n.py", source, spans)
    [dropped] = [m for m in mutants if m.symbol == "_SEPARATOR" and '"de_DE"' not in m.mutated_source]
    samples = {"shop.i18n:separator": [probes.CallSample("shop.i18n:separator", ())],
               "shop.i18n:activate": [probes.CallSample("shop.i18n:activate", ("'fr_FR'",))]}
    found = search_witness(project, dropped, samples, (), SourceLayout((".",), ("shop",)), 30.0, scratch)
    assert isinstance(found, NoWitness) and not found.searched, found.reason  # the default locale alone agrees
    assert "the set-up call `activate('de_DE')` the tests made fails here (FileNotFoundError)" in found.reason
    assert "activate('.')" not in found.reason  # a table's value is no locale: only words shaped like one


def test_a_survivor_of_a_source_too_large_to_read_is_left_unsearched_saying_why(tmp_path, monkeypatch):
    from elenchus.analysis.witness import survivors
    from elenchus.repo.snapshot import Snapshot

    cohort, layout = _ratio_cohort(tmp_path)
    head = Snapshot(cohort.template, "head", "head", None, ("shop/__init__.py", "shop/calc.py"), ())
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(survivors, "LARGEST_SEARCHED", len(RATIO) - 1)  # (a 5 MB module, scaled down)
    found = survivors.witness_survivors([_guard_dropped()], cohort, head, layout, 10.0, 2, scratch)
    [answer] = found.values()
    assert not answer.searched and answer.inputs == 0
    assert answer.reason.startswith("no witness was searched: `shop/calc.py` is 0.0 MB of source, more than the "
                                    "0 MB a search reads")
    monkeypatch.setattr(survivors, "LARGEST_SEARCHED", len(RATIO))  # at the limit, the search runs and finds it
    [answer] = survivors.witness_survivors([_guard_dropped()], cohort, head, layout, 10.0, 2, scratch).values()
    assert answer.call.startswith("ratio(") and answer.call.endswith(", 0)")


def test_a_target_whose_search_ran_out_of_time_backs_no_equivalence_claim(tmp_path):
    from elenchus.repo.layout import SourceLayout
    from elenchus.mutation.mutate import Mutant
    from elenchus.analysis.witness import NoWitness, find_witness

    source = ("import time\n\n\ndef _double(n):\n    return n * 2\n\n\ndef quick(n):\n    return _double(n)\n\n\n"
              "def slow(n):\n    time.sleep(0.25)\n    return _double(n)\n")
    project, scratch = _shop_project(tmp_path, "calc", source)
    mutant = Mutant(id="0" * 12, path="shop/calc.py", symbol="_double", line=5, end_line=5, col=12,
                    family="handmade", changed_intent="handmade", incident="handmade", expected_detection="none",
                    diff="", mutated_source=source.replace("n * 2", "n + n"), mutated_lines=(5,))
    samples = {f"shop.calc:{name}": [probes.CallSample(f"shop.calc:{name}", ("3",))] for name in ("quick", "slow")}
    layout = SourceLayout((".",), ("shop",))
    # `quick` is searched in full and agrees; `slow` runs out of the time left after a few inputs: what it never
    # tried is unknown, so the two searches together claim nothing
    found = find_witness(project, mutant, samples, (), layout, 8.0, scratch)
    assert isinstance(found, NoWitness) and not found.searched, found.reason
    assert "`slow`: the search through `slow` ran out of its" in found.reason, found.reason
    assert found.reason.startswith("no witness was found, so it stays a gap")
    # the same two targets, both searched in full: likely equivalent
    quick = source.replace("    time.sleep(0.25)\n", "")
    (project / "shop" / "calc.py").write_text(quick)
    again = find_witness(project, replace(mutant, mutated_source=quick.replace("n * 2", "n + n")), samples, (),
                         layout, 60.0, scratch)
    assert again.searched and again.reason.startswith("likely equivalent"), again.reason


CLI = """\
import argparse


def shout(text):
    print(text.upper())


def report(text):
    print(text.upper() * 3000)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loud", action="store_true", help="say it loudly")
    return parser.parse_args().loud
"""


def _cli_mutant(symbol, before, after):
    from elenchus.mutation.mutate import Mutant

    line = next(number for number, text in enumerate(CLI.splitlines(), 1) if before in text)
    return Mutant(id="0" * 12, path="shop/cli.py", symbol=symbol, line=line, end_line=line, col=4,
                  family="handmade", changed_intent="handmade", incident="handmade", expected_detection="none",
                  diff="", mutated_source=CLI.replace(before, after, 1), mutated_lines=(line,))


@pytest.mark.parametrize(("symbol", "before", "after", "why"), [
    ("report", "print(text.upper() * 3000)", "print(text.lower() * 3000)", "output printed differently with the mutant"),
    ("main", 'help="say it loudly"', 'help=""',
     "calls that read the command line or standard input, the same in every call here"),
], ids=["printed-at-length", "command-line"])
def test_calls_that_print_something_else_or_read_the_command_line_back_no_equivalence_claim(tmp_path, symbol, before,
                                                                                           after, why):
    # titlecase's `cmd()` parses the command line and writes to standard output: each mutant of its options
    # returned None like the code, on the one command line a search has, and was called "likely equivalent"
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import NoWitness, find_witness

    project, scratch = _shop_project(tmp_path, "cli", CLI)
    samples = {f"shop.cli:{name}": [probes.CallSample(f"shop.cli:{name}", ("'hi'",))] for name in ("shout", "report")}
    samples["shop.cli:main"] = []
    found = find_witness(project, _cli_mutant(symbol, before, after), samples, (), SourceLayout((".",), ("shop",)),
                         20.0, scratch)
    assert isinstance(found, NoWitness) and not found.searched, found.reason
    assert found.reason.startswith("no witness was found, so it stays a gap") and why in found.reason, found.reason


def test_a_call_that_prints_something_else_is_witnessed_by_what_it_prints(tmp_path):
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import NoWitness, Witness, find_witness

    project, scratch = _shop_project(tmp_path, "cli", CLI)
    samples = {"shop.cli:shout": [probes.CallSample("shop.cli:shout", ("'hi'",))]}
    layout = SourceLayout((".",), ("shop",))
    found = find_witness(project, _cli_mutant("shout", "text.upper()", "text.lower()"), samples, (), layout, 20.0,
                         scratch)
    assert isinstance(found, Witness), found.reason
    assert "    with contextlib.redirect_stdout(io.StringIO()) as printed:\n        shout('hi')\n" \
           "    assert printed.getvalue() == 'HI\\n'\n" in found.test, found.test
    assert (found.original, found.mutant) == ("print 'HI\\n'", "print 'hi\\n'"), found
    # a mutant that prints the same: the same search backs the claim
    alike = find_witness(project, _cli_mutant("shout", "text.upper()", "text.upper().upper()"), samples, (), layout,
                         20.0, scratch)
    assert isinstance(alike, NoWitness) and alike.reason.startswith("likely equivalent"), alike.reason


MODES = '''\
ALL = {"herd": True, "zero": True}
NONE = {"herd": False, "zero": False}


class Engine:
    def __init__(self):
        self.modes = NONE.copy()

    def classical(self, **kwargs):
        if not kwargs:
            self.modes = ALL.copy()
            return
        for key, value in kwargs.items():
            self.modes[key] = value

    def plural(self, word, count=2):
        if count == 0 and not self.modes["zero"]:
            return word
        return word + "s"
'''


FIELDS = '''\
DEFAULTS = {"all": False}


def settings():
    return DEFAULTS.copy()


class Parser:
    def __init__(self, fields):
        self._fields = list(fields)

    @property
    def fields(self):
        return self._fields.copy()
'''


def test_a_dropped_copy_of_what_a_function_hands_out_is_told_apart_by_emptying_it_and_asking_again(tmp_path):
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import Witness, find_witness

    project, scratch = _shop_project(tmp_path, "fields", FIELDS)
    mutants, _ = generate("shop/fields.py", FIELDS, [FunctionSpan(s.qualname, s.start, s.end)
                                                     for s in function_spans(FIELDS)])
    layout = SourceLayout((".",), ("shop",))
    # a module function handing out the module's own dict: emptied by one caller, empty for the next
    [shared] = [m for m in mutants if m.family == "dropped-copy" and "return DEFAULTS\n" in m.mutated_source]
    samples = {"shop.fields:settings": [probes.CallSample("shop.fields:settings", ())]}
    found = find_witness(project, shared, samples, (), layout, 30.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert found.origin == "emptied-result" and found.call == "settings().clear(); settings()", found
    assert "    settings().clear()\n    assert settings() == {'all': False}\n" in found.test, found.test
    assert (found.original, found.mutant) == ("{'all': False}", "{}"), found
    # a property no test read, on an instance the tests built: read, emptied, read again on the same instance
    [own] = [m for m in mutants if m.family == "dropped-copy" and "return self._fields\n" in m.mutated_source]
    built = {"shop.fields:Parser": [probes.CallSample("shop.fields:Parser", ("['a']",), (),
                                                      callrecord.Receiver(("['a']",)))]}
    found = find_witness(project, own, built, (), layout, 30.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert "    parser = Parser(['a'])\n    parser.fields.clear()\n    assert parser.fields == ['a']\n" \
        in found.test, found.test


def test_a_dropped_copy_is_told_apart_by_another_instance_set_up_first(tmp_path):
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import NoWitness, Witness, find_witness

    project, scratch = _shop_project(tmp_path, "engine", MODES)
    mutants, _ = generate("shop/engine.py", MODES, [FunctionSpan(s.qualname, s.start, s.end)
                                                       for s in function_spans(MODES)])
    [shared] = [m for m in mutants if m.family == "dropped-copy" and "self.modes = ALL\n" in m.mutated_source]
    plain = callrecord.Receiver()
    # The tests made `e = Engine(); e.classical()` and, on another engine, `e.classical(); e.classical(zero=False)`:
    # each call alone gives the same engine with the mutant; the second changes the mutant's shared `ALL`.
    samples = {"shop.engine:Engine.classical": [
        probes.CallSample("shop.engine:Engine.classical", (), (), plain),
        probes.CallSample("shop.engine:Engine.classical", (), (("zero", "False"),),
                          callrecord.Receiver(steps=(("classical", (), ()),)))]}
    layout = SourceLayout((".",), ("shop",))
    found = find_witness(project, shared, samples, (), layout, 30.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert found.call == ("other_engine = Engine(); other_engine.classical(); "
                          "other_engine.classical(zero=False); Engine().classical()"), found.call
    assert "    other_engine.classical(zero=False)\n    engine = Engine()\n" \
           "    engine.classical()\n    assert engine.modes == {'herd': True, 'zero': True}\n" \
           in found.test, found.test
    assert "the instance's `modes` becomes {'herd': True, 'zero': False}" in found.mutant, found.mutant
    # without the call that changes an instance in place, nothing the mutant shares is ever changed
    alone = {"shop.engine:Engine.classical": samples["shop.engine:Engine.classical"][:1]}
    missed = find_witness(project, shared, alone, (), layout, 30.0, scratch)
    assert isinstance(missed, NoWitness) and not missed.searched
    assert "shares the original where the code made a copy" in missed.reason
    # The tests made `Engine().classical()` and, on a fresh engine, `classical(zero=False)`: no test changed an
    # engine after the call that copies, so the other one is set up that way: the copying call, then a change.
    apart = {"shop.engine:Engine.classical": [
        probes.CallSample("shop.engine:Engine.classical", (), (), plain),
        probes.CallSample("shop.engine:Engine.classical", (), (("zero", "False"),), plain)]}
    crossed = find_witness(project, shared, apart, (), layout, 30.0, scratch)
    assert isinstance(crossed, Witness), crossed.reason
    assert crossed.call == found.call, crossed.call


VERBS = '''\
IRREGULAR = {"is": "are", "was": "were"}


def plural_verb(text):
    return _special(text) or text


def _special(word):
    first = word.split(" ")[0]
    if first.endswith("n't") and first[:-3] in IRREGULAR:
        return f"{IRREGULAR[first[:-3]]}n't{word[len(first):]}"
    return None
'''


def test_a_slice_one_place_off_past_the_first_word_is_told_apart_by_two_words_the_tests_passed(tmp_path):
    # As inflect's `_pl_special_verb`: the tests call the private helper with one word (`"wasn't"`), for which
    # the rest of the text is empty with the code and the mutant alike; the public caller is given that word
    # followed by another, and the word the slice now swallows shows.
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import Candidate, search_witness

    project, scratch = _shop_project(tmp_path, "verbs", VERBS)
    mutants, _ = generate("shop/verbs.py", VERBS, [FunctionSpan(s.qualname, s.start, s.end)
                                                       for s in function_spans(VERBS)])
    [skipped] = [m for m in mutants if "word[len(first) + 1:]" in m.mutated_source]
    samples = {"shop.verbs:plural_verb": [probes.CallSample("shop.verbs:plural_verb", ("'runs'",))],
               "shop.verbs:_special": [probes.CallSample("shop.verbs:_special", ('"wasn\'t"',))]}
    found = search_witness(project, skipped, samples, ("runs",), SourceLayout((".",), ("shop",)), 30.0, scratch)
    assert isinstance(found, Candidate), found.reason
    assert found.probe.input_repr in ('plural_verb("wasn\'t runs")', "plural_verb(\"runs wasn't\")"), \
        found.probe.input_repr
    assert probes.verify_probe(project, found.probe, skipped).accepted
    # among many words, those holding what the guard of the mutated line looks for (`n't`) are joined first
    from elenchus.analysis.probes.designed import _joined_texts

    joined = _joined_texts(VERBS, skipped, [*(f"w{n}" for n in range(12)), "wasn't", "two words"])
    assert joined[0].startswith("wasn't ") and all(" " in text for text in joined), joined


PHRASES = '''\
PREPOSITIONS = ["of", "in", "about"]


def plural(text):
    return _phrase(text) or text + "s"


def _phrase(text):
    words = text.split(" ")
    if len(words) >= 3:
        for at in range(1, len(words) - 1):
            if words[at] in PREPOSITIONS:
                return " ".join(words[:at - 1] + [words[at - 1] + "s"] + words[at:])
    return None
'''


def test_a_loop_bound_one_place_off_is_told_apart_by_a_word_of_the_table_it_looks_words_up_in_placed_last(tmp_path):
    # As inflect's `_plnoun` (`plural('a cup of')`): the loop never looks at the last word, and with the mutant it
    # does; only a text whose last word is in the table shows it, and the tests' texts hold theirs in the middle.
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import Candidate, search_witness

    project, scratch = _shop_project(tmp_path, "phrases", PHRASES)
    mutants, _ = generate("shop/phrases.py", PHRASES, [FunctionSpan(s.qualname, s.start, s.end)
                                                       for s in function_spans(PHRASES)])
    [further] = [m for m in mutants if "range(1, len(words) - 1 + 1)" in m.mutated_source]
    samples = {"shop.phrases:plural": [probes.CallSample("shop.phrases:plural", ("'cat'",))],
               "shop.phrases:_phrase": [probes.CallSample("shop.phrases:_phrase", ("'mother in law'",))]}
    found = search_witness(project, further, samples, ("cat", "mother in law"), SourceLayout((".",), ("shop",)),
                           30.0, scratch)
    assert isinstance(found, Candidate), found.reason
    assert found.probe.input_repr.startswith("plural('") and found.probe.input_repr.split()[-1][:-2] in (
        "of", "in", "about"), found.probe.input_repr
    assert probes.verify_probe(project, found.probe, further).accepted


def test_the_tests_that_call_a_private_function_by_name_are_recorded_for_its_arguments(tmp_path):
    from elenchus.execution.cohorts import Cohort
    from elenchus.execution.coverage_map import CoverageMap
    from elenchus.analysis.witness.survivors import _naming_callers

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_m.py").write_text("def test_plural():\n    plural('x')\n\n\n"
                                                  "def test_helper():\n    _helper('y')\n")
    (tmp_path / "tests" / "test_n.py").write_text("def test_other():\n    m._helper('z')\n")
    ordered = ["tests/test_m.py::test_plural", "tests/test_m.py::test_helper", "tests/test_n.py::test_other"]
    keys = {nodeid: nodeid for nodeid in ordered}
    durations = {ordered[0]: 0.1, ordered[1]: 0.5, ordered[2]: 0.2}  # the caller through `plural` is fastest
    coverage = CoverageMap({"m.py": {6: tuple(ordered)}}, {}, durations,
                           {k: k.partition("::")[0] for k in ordered}, keys)
    cohort = Cohort("modified", tmp_path, ("tests/test_m.py", "tests/test_n.py"), "0" * 64)
    # the test named after it, not the faster ones that only reach it through a public function
    assert _naming_callers(cohort, coverage, {("m.py", "_helper"): {6}}, 8) == ("tests/test_m.py::test_helper",)
    # none named after it: those whose file calls it by name
    renamed = CoverageMap({"m.py": {6: (ordered[0], ordered[2])}}, {}, durations,
                          {k: k.partition("::")[0] for k in ordered}, keys)
    assert _naming_callers(cohort, renamed, {("m.py", "_helper"): {6}}, 8) == (
        "tests/test_m.py::test_plural", "tests/test_n.py::test_other")
    assert _naming_callers(cohort, None, {("m.py", "_helper"): {6}}, 8) == ()


def test_every_case_of_the_tests_named_after_a_public_function_is_recorded_for_its_options(tmp_path):
    # validators' `domain`: the fastest tests running it are the email validator's, which pass no option; the
    # cases of `test_valid_domain` pass `rfc_1034=True` with the texts it takes
    from elenchus.execution.cohorts import Cohort
    from elenchus.execution.coverage_map import CoverageMap
    from elenchus.analysis.witness.survivors import NAMED_CASES, _naming_callers

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_domain.py").write_text("def test_valid_domain(value, dot):\n    domain(value)\n")
    (tmp_path / "tests" / "test_email.py").write_text("def test_valid_email(value):\n    email(value)\n")
    cases = [f"tests/test_domain.py::test_valid_domain[case{n}]" for n in range(NAMED_CASES + 5)]
    emails = [f"tests/test_email.py::test_valid_email[case{n}]" for n in range(20)]
    keys = {nodeid: nodeid for nodeid in [*cases, *emails]}
    durations = {**{nodeid: 0.5 - n / 1000 for n, nodeid in enumerate(cases)}, **{nodeid: 0.1 for nodeid in emails}}
    coverage = CoverageMap({"validators/domain.py": {30: tuple(keys)}}, {}, durations,
                           {k: k.partition("::")[0] for k in keys}, keys)
    cohort = Cohort("modified", tmp_path, ("tests/test_domain.py", "tests/test_email.py"), "0" * 64)
    spans = {("validators/domain.py", "domain"): {30}}
    # each case, up to a bound: taken evenly from the first collected to the last, whatever each took (the last ones
    # ran fastest here): a parametrized test lists its cases by kind, and the last kind is one too
    spread = _naming_callers(cohort, coverage, spans, NAMED_CASES, in_order=True)
    assert len(spread) == NAMED_CASES and {cases[0], cases[-1]} < set(spread) <= set(cases), spread
    # else the fastest, those about as fast as each other (all of them, here) in the order of their keys
    assert set(_naming_callers(cohort, coverage, spans, NAMED_CASES)) == set(sorted(cases)[:NAMED_CASES])


COMMAND = """\
import argparse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("words", nargs="*")
    parser.add_argument("--loud", action="store_true")
    args = parser.parse_args()
    text = " ".join(args.words)
    print(text.upper() if args.loud else text)
"""


def test_a_commands_entry_point_is_given_command_lines_and_witnessed_by_what_it_prints(tmp_path):
    # titlecase's `cmd()` parses the command line: every call the search made shared one (`['titlecase']`), so
    # about thirty mutants of its options and branches had no witness
    from elenchus.repo.layout import SourceLayout
    from elenchus.mutation.mutate import Mutant
    from elenchus.analysis.witness import Witness, find_witness

    project, scratch = _shop_project(tmp_path, "command", COMMAND)
    line = 10
    mutant = Mutant(id="0" * 12, path="shop/command.py", symbol="main", line=line, end_line=line, col=4,
                    family="handmade", changed_intent="handmade", incident="handmade", expected_detection="none",
                    diff="", mutated_source=COMMAND.replace("text.upper() if", "text if"), mutated_lines=(line,))
    found = find_witness(project, mutant, {"shop.command:main": []}, ("a cup",), SourceLayout((".",), ("shop",)),
                         20.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert "    with unittest.mock.patch.object(sys, 'argv', ['command', '--loud', 'a cup']):\n" \
           "        with contextlib.redirect_stdout(io.StringIO()) as printed:\n            main()\n" \
           "        assert printed.getvalue() == 'A CUP\\n'\n" in found.test, found.test
    assert "import sys\nimport unittest.mock\n" in found.test
    assert found.call == "main() with sys.argv = ['command', '--loud', 'a cup']", found.call
    # a mutant no command line tried tells apart backs no claim: the few tried are not all a command takes
    from elenchus.analysis.witness import NoWitness

    alike = replace(mutant, mutated_source=COMMAND.replace('nargs="*")', 'nargs="*", default=None)'), line=6,
                    end_line=6, mutated_lines=(6,))
    kept = find_witness(project, alike, {"shop.command:main": []}, ("a cup",), SourceLayout((".",), ("shop",)),
                        20.0, scratch)
    assert isinstance(kept, NoWitness) and not kept.searched, kept.reason
    assert kept.reason.startswith("no witness was found, so it stays a gap") and "command line" in kept.reason


READING = """\
import argparse
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("words", nargs="*")
    args = parser.parse_args()
    if len(args.words) > 0:
        text = " ".join(args.words)
    else:
        text = sys.stdin.read()
    print(text.title())
"""


def test_a_command_reading_standard_input_or_several_words_is_witnessed_with_both_set_by_the_test(tmp_path):
    # titlecase's `cmd()` reads standard input when no text is given, and joins its words with a space: each
    # call of the search had an empty standard input and the tests' texts as one word, so neither showed
    from elenchus.repo.layout import SourceLayout
    from elenchus.mutation.mutate import Mutant
    from elenchus.analysis.witness import Witness, find_witness

    project, scratch = _shop_project(tmp_path, "reading", READING)
    read = Mutant(id="0" * 12, path="shop/reading.py", symbol="main", line=9, end_line=9, col=4,
                  family="handmade", changed_intent="handmade", incident="handmade", expected_detection="none",
                  diff="", mutated_source=READING.replace("> 0:", ">= 0:"), mutated_lines=(9,))
    found = find_witness(project, read, {"shop.reading:main": []}, ("a cup",), SourceLayout((".",), ("shop",)),
                         20.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert "    with unittest.mock.patch.object(sys, 'argv', ['reading']):\n" \
           "        with unittest.mock.patch.object(sys, 'stdin', io.StringIO('a cup')):\n" \
           "            with contextlib.redirect_stdout(io.StringIO()) as printed:\n                main()\n" \
           "            assert printed.getvalue() == 'A Cup\\n'\n" in found.test, found.test
    assert found.call == "main() with sys.argv = ['reading'] and standard input 'a cup'", found.call
    joined = replace(read, mutated_source=READING.replace('" ".join', '"".join'), line=10, end_line=10,
                     mutated_lines=(10,))
    found = find_witness(project, joined, {"shop.reading:main": []}, ("a cup",), SourceLayout((".",), ("shop",)),
                         20.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert found.call == "main() with sys.argv = ['reading', 'a', 'cup']", found.call
    assert "assert printed.getvalue() == 'A Cup\\n'" in found.test, found.test


CLOSING = """\
import argparse
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("words", nargs="*")
    args = parser.parse_args()
    out = sys.stdout
    with out:
        out.write(" ".join(args.words).title())
"""


def test_a_command_that_closes_its_output_is_witnessed_by_a_buffer_that_outlives_the_call(tmp_path):
    # titlecase's `cmd()` writes through `with ofile:` where `ofile` is standard output: the search's own buffer
    # was closed by the call and the driver crashed, and a test's `io.StringIO()` could not be read afterwards
    from elenchus.repo.layout import SourceLayout
    from elenchus.mutation.mutate import Mutant
    from elenchus.analysis.witness import Witness, find_witness

    project, scratch = _shop_project(tmp_path, "closing", CLOSING)
    mutant = Mutant(id="0" * 12, path="shop/closing.py", symbol="main", line=11, end_line=11, col=8,
                    family="handmade", changed_intent="handmade", incident="handmade", expected_detection="none",
                    diff="", mutated_source=CLOSING.replace(".title())", ")"), mutated_lines=(11,))
    found = find_witness(project, mutant, {"shop.closing:main": []}, ("a cup",), SourceLayout((".",), ("shop",)),
                         20.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert "    with unittest.mock.patch.object(sys, 'argv', ['closing', 'a cup']):\n" \
           "        printed = io.StringIO()\n        printed.close = lambda: None  # the call closes its output\n" \
           "        with contextlib.redirect_stdout(printed):\n            main()\n" \
           "        assert printed.getvalue() == 'A Cup'\n" in found.test, found.test
    # a mutant that raises: the call's result is asserted, with a buffer the call may close around it
    raising = replace(mutant, mutated_source=CLOSING.replace(".title())", ".title(1))"))
    found = find_witness(project, raising, {"shop.closing:main": []}, ("a cup",), SourceLayout((".",), ("shop",)),
                         20.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert "        output = io.StringIO()\n        output.close = lambda: None  # the call closes its output\n" \
           "        with contextlib.redirect_stdout(output):\n            assert main() is None\n" in found.test, found.test


def _witness_on_an_instance(tmp_path, name, source, chosen, method, args=(), literals=()):
    """The verified witness for the mutant of ``source`` (module ``shop.<name>``) that ``chosen`` picks, searched
    from one call the tests made of ``method`` on an instance built with ``[1, 2]``."""
    found = _searched(tmp_path, name, source, chosen, method, [args], callrecord.Receiver(("[1, 2]",)), literals)
    assert isinstance(found, Witness), found.reason
    return found


INDEXED = '''\
class Indexed:
    """Items in order, with an index from each item to its place."""

    def __init__(self, items=()):
        self.items = []
        self.map = {}
        for item in items:
            self.add(item)

    def __repr__(self):
        return f"Indexed({self.items!r})"

    def __eq__(self, other):
        return isinstance(other, Indexed) and self.items == other.items

    def __contains__(self, item):
        return item in self.map

    def add(self, item):
        if item not in self.map:
            self.map[item] = len(self.items)
            self.items.append(item)

    def pop(self):
        item = self.items.pop()
        del self.map[item]
        return item
'''


def test_an_instance_that_prints_alike_but_keeps_a_stale_index_is_told_apart_by_its_attributes(tmp_path):
    # `Indexed([1])` prints, and equals, the same whether or not its index still holds the popped item; the next
    # `2 in s` reads the index. A search that compared the repr alone called this likely equivalent.
    found = _witness_on_an_instance(tmp_path, "indexed", INDEXED, lambda m: m.family == "lost-side-effect" and
                                    "del self.map[item]" not in m.mutated_source, "Indexed.pop")
    assert "assert vars(indexed) == {'items': [1], 'map': {1: 0}}" in found.test, found.test


SETLIKE = '''\
class Items:
    def __init__(self, items=()):
        self.items = list(items)

    def __repr__(self):
        return f"{type(self).__name__}({self.items!r})"

    def __eq__(self, other):
        return isinstance(other, Items) and self.items == other.items

    def copy(self):
        return self.__class__(self.items)

    def union(self, other):
        cls = Items
        if isinstance(self, Items):
            cls = self.__class__
        return cls(self.items + [item for item in other if item not in self.items])

    def remove_all(self, *others):
        gone = set()
        for other in others:
            gone |= set(other)
        self.items = [item for item in self.items if item not in gone]
'''


@pytest.mark.parametrize("line, method, args", [(12, "copy", ()), (16, "union", ("[3]",))])
def test_a_method_that_keeps_its_callers_subclass_is_told_apart_on_an_instance_of_one(tmp_path, line, method, args):
    # `copy` building `Items(...)` where the code built `self.__class__(...)`, and `union` whose `isinstance(self,
    # Items)` was negated: equal results for every `Items`, another class for a caller's subclass
    found = _witness_on_an_instance(tmp_path, "items", SETLIKE, lambda m: m.line == line and m.family in (
        "base-class-instance", "negated-condition"), f"Items.{method}", args)
    assert "class ItemsSubclass(Items):\n" in found.test, found.test
    assert f"    assert type(ItemsSubclass([1, 2]).{method}(" in found.test, found.test
    assert found.call.startswith("class ItemsSubclass(Items): pass; ItemsSubclass([1, 2])."), found.call


def test_a_dict_handed_back_as_the_defaultdict_it_was_counted_in_is_told_apart_by_its_type(tmp_path):
    # `frequencies(['a'])` equals `{'a': 1}` either way, but the mutant's `defaultdict` answers `['b']` with 0
    # where the code's dict raises: no text writes it, its type tells
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import Witness, find_witness

    source = ("from collections import defaultdict\n\n\ndef frequencies(seq):\n    d = defaultdict(int)\n"
              "    for item in seq:\n        d[item] += 1\n    return dict(d)\n")
    project, scratch = _shop_project(tmp_path, "counts", source)
    mutants, _ = generate("shop/counts.py", source, [FunctionSpan(s.qualname, s.start, s.end)
                                                      for s in function_spans(source)])
    [shared] = [m for m in mutants if "    return d\n" in m.mutated_source]
    samples = {"shop.counts:frequencies": [probes.CallSample("shop.counts:frequencies", ("['a']",))]}
    found = find_witness(project, shared, samples, (), SourceLayout((".",), ("shop",)), 30.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert "    assert type(frequencies(" in found.test and ") is dict\n" in found.test, found.test
    assert "the mutant returns a defaultdict object, not a `dict`" in " ".join(found.test.split()), found.test
    assert (found.original, found.mutant) == ("{'a': 1}", "a defaultdict object"), found


def test_a_method_taking_any_number_of_arguments_is_given_one(tmp_path):
    # the tests passed only other bags (`items.remove_all(Items([2]))`), which no literal rebuilds; a call with no
    # argument never runs the loop, and one list in `*others` shows that nothing is removed any more
    found = _witness_on_an_instance(tmp_path, "items", SETLIKE, lambda m: m.family == "lost-side-effect" and
                                    "gone |= set(other)" not in m.mutated_source, "Items.remove_all", literals=([2],))
    assert ".remove_all(" in found.call and ".remove_all()" not in found.call, found


def test_an_instance_that_prints_alike_but_keeps_a_private_stale_index_backs_no_equivalence(tmp_path):
    # the same stale index, held in a private attribute no test writes down: no witness, and never "likely
    # equivalent" (the next `2 in s` would still tell them apart)
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import NoWitness, find_witness

    source = INDEXED.replace("self.map", "self._map")
    project, scratch = _shop_project(tmp_path, "indexed", source)
    mutants, _ = generate("shop/indexed.py", source, [FunctionSpan(s.qualname, s.start, s.end)
                                                      for s in function_spans(source)])
    [stale] = [m for m in mutants if m.family == "lost-side-effect" and "del self._map[item]" not in m.mutated_source]
    samples = {"shop.indexed:Indexed.pop": [probes.CallSample("shop.indexed:Indexed.pop", (), (),
                                                              callrecord.Receiver(("[1, 2]",)))]}
    found = find_witness(project, stale, samples, (), SourceLayout((".",), ("shop",)), 30.0, scratch)
    assert isinstance(found, NoWitness) and not found.searched, found.reason
    assert "print alike but hold different attributes a test cannot write down" in found.reason, found.reason


def _searched(tmp_path, name, source, chosen, symbol, calls, receiver=None, literals=()):
    """The witness search for the one mutant of ``source`` (module ``shop.<name>``, the whole of it mutated, as
    ``--scope target`` does) that ``chosen`` picks, with the tests' ``calls`` of ``symbol`` (tuples of argument
    texts; on ``receiver``, for a method) recorded, and the related tests' ``literals``."""
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import find_witness

    project, scratch = _shop_project(tmp_path, name, source)
    mutants, _ = generate(f"shop/{name}.py", source)
    [mutant] = [m for m in mutants if chosen(m)]
    target = f"shop.{name}:{symbol}"
    recorded = {target: [probes.CallSample(target, args, (), receiver) for args in calls]}
    return find_witness(project, mutant, recorded, literals, SourceLayout((".",), ("shop",)), 30.0, scratch)


def test_what_a_lazy_iterator_yields_is_listed_as_a_test_reads_it(tmp_path):
    # toolz's `partition` hands back a `zip` or a `zip_longest`: a test lists what it yields; taken for objects a
    # test cannot compare, the mutant's padding was never told apart
    source = ("from itertools import zip_longest\n\nNO_PAD = '__no__pad__'\n\n\n"
              "def partition(n, seq, pad=NO_PAD):\n    args = [iter(seq)] * n\n    if pad is NO_PAD:\n"
              "        return zip(*args)\n    return zip_longest(*args, fillvalue=pad)\n")
    # (without the guard, the pad is yielded as the last element)
    found = _searched(tmp_path, "chunks", source, lambda m: m.family == "dropped-guard", "partition",
                      [("2", "[1, 2, 3]", "None")])
    assert isinstance(found, Witness), found.reason
    assert found.call.startswith("list(partition("), found.call
    assert found.original != found.mutant and found.original.startswith("[("), found


def test_an_iterator_handed_back_where_the_code_listed_it_is_told_apart_by_its_type(tmp_path):
    # `list(found)` made `found`, a generator: listed, the two yield the same; a test comparing the result with a
    # list tells them apart
    source = "def evens(seq):\n    found = (x for x in seq if x % 2 == 0)\n    return list(found)\n"
    found = _searched(tmp_path, "numbers", source, lambda m: "    return found\n" in m.mutated_source, "evens",
                      [("[1, 2]",)])
    assert isinstance(found, Witness), found.reason
    assert "    assert type(evens(" in found.test and ") is list\n" in found.test, found.test
    assert found.mutant == "a generator object", found


_DRAWN = textwrap.dedent("""\
    import random


    def sample(prob, seq, seed=0):
        rng = random.Random(seed)
        return [x for x in seq if rng.random() < prob]


    def room(text, width):
        if len(text) >= width:
            return 0
        return width - len(text)


    def shift(positions, gone):
        kept = [p for p in positions if p != gone]
        return [p - 1 if p > gone else p for p in kept]
""")


def _drawn_witness(tmp_path, symbol, samples):
    return _searched(tmp_path, "draws", _DRAWN, lambda m: m.family == "boundary-inclusivity" and m.symbol == symbol,
                     symbol, samples)


@pytest.mark.parametrize("symbol, samples, equal", [
    ("shift", [("[0, 1, 2]", "1")], "`p` equal to `gone` at line 17"),
    ("room", [("'ab'", "4")], "`len(text)` equal to `width` at line 10")])
def test_a_boundary_mutant_is_called_likely_equivalent_only_after_inputs_that_made_its_two_sides_equal(
        tmp_path, symbol, samples, equal):
    # `shift`'s `p > gone` made `p >= gone` runs on every input, but `p` never equals `gone` there (the items equal
    # to it were left out first), and only there do the two differ; `room`'s `len(text) >= width` made `>` ties at
    # `room('ab', 2)`, and agrees
    from elenchus.analysis.witness import NoWitness

    found = _drawn_witness(tmp_path, symbol, samples)
    assert isinstance(found, NoWitness), found
    if symbol == "shift":  # the line ran, its sides never tied: a gap saying so
        assert not found.searched and f"no call of `shift` made {equal}" in found.reason, found.reason
    else:
        assert found.searched and re.search(rf"\d+ of them made {re.escape(equal)}", found.reason), found.reason


def test_a_boundary_mutant_is_given_the_tests_call_with_one_side_of_its_comparison_in_place_of_the_other(tmp_path):
    # toolz's `random_sample`: `random() < prob` made `<=` differs only where a draw is exactly `prob`; the tests'
    # call compared a draw with 0.5, and that draw given as `prob` ties them; the first item alone shows it
    found = _drawn_witness(tmp_path, "sample", [("0.5", repr(list(range(1, 13))), "7")])
    assert isinstance(found, Witness), found.reason
    assert found.call.startswith("sample(0.") and found.call.endswith(", [1], 7)"), found.call
    assert found.origin == "designed" and found.original != found.mutant, found


def test_a_difference_drawn_by_chance_is_neither_a_witness_nor_ground_for_a_claim(tmp_path):
    # `Random(seed)` made `Random(seed or 0)`: without a seed the code draws anew each call and the mutant always
    # draws alike; two draws from three items repeat themselves now and then, and a witness asserting one of them
    # fails as often as it passes
    from elenchus.analysis.witness import NoWitness, find_witness
    from elenchus.repo.layout import SourceLayout

    source = ("import random\n\n\ndef pick(items, seed=None):\n    if not items:\n        return None\n"
              "    rng = random.Random(seed)\n    return rng.choice(items)\n")
    project, scratch = _shop_project(tmp_path, "draws", source)
    [mutant] = [m for m in generate("shop/draws.py", source)[0] if m.family == "default-return"]
    mutant = replace(mutant, mutated_source=source.replace("Random(seed)", "Random(seed or 0)"), line=7,
                     mutated_lines=(7,))
    target = "shop.draws:pick"
    recorded = {target: [probes.CallSample(target, args, (), None)
                         for args in [("[1, 2, 3]", "7"), ("[1, 2, 3]",), ("[]",)]]}
    found = find_witness(project, mutant, recorded, (), SourceLayout((".",), ("shop",)), 30.0, scratch)
    assert isinstance(found, NoWitness) and not found.searched, found
    assert re.search(r"`pick\([^`]*\)` answered differently when it was made again", found.reason), found.reason


def test_a_repeat_made_single_is_told_apart_by_a_text_it_matches_twice(tmp_path):
    # pysrt's `RE_INTEGER`, `\d+` made `\d`: the pattern reads what `int()` refused, and every string designed
    # from it held one digit, where both agree; it was claimed likely equivalent. `'12!'` takes two digits
    source = ("import re\n\nRE_INTEGER = re.compile(r'^(\\d+)')\n\n\ndef parse_int(digits):\n    try:\n"
              "        return int(digits)\n    except ValueError:\n        match = RE_INTEGER.match(digits)\n"
              "        if match:\n            return int(match.group())\n        return 0\n")
    found = _searched(tmp_path, "ints", source, lambda m: "r'^(\\d)'" in m.mutated_source, "parse_int",
                      [("'5'",), ("'x'",)])
    assert isinstance(found, Witness), found.reason
    assert (found.call, found.original, found.mutant) == ("parse_int('12!')", "12", "1"), found


def test_a_handler_widened_around_reading_the_callers_iterable_is_told_apart_by_one_that_raises(tmp_path):
    # toolz's `accumulate(add, seq)`: `except StopIteration` around `next(seq)` made `except Exception`; the tests
    # passed `operator.add`, a function named as a test names it, and an iterable that raises while it is read
    # shows the error the mutant swallows
    source = ("def accumulate(binop, seq):\n    seq = iter(seq)\n    try:\n        result = next(seq)\n"
              "    except StopIteration:\n        return\n    yield result\n    for elem in seq:\n"
              "        result = binop(result, elem)\n        yield result\n")
    found = _searched(tmp_path, "seqs", source, lambda m: m.family == "broadened-handler", "accumulate",
                      [("operator.add", "[1, 2, 3]")])
    assert isinstance(found, Witness), found.reason
    assert found.call == "list(accumulate(operator.add, map(int, ['?'])))", found.call
    assert (found.original, found.mutant) == ("raise ValueError", "[]"), found
    assert "import operator\n" in found.test, found.test


def test_a_handler_widened_into_one_that_raises_its_own_error_is_told_apart_by_what_the_error_says(tmp_path):
    # ordered-set's `update`: `except TypeError` around reading the caller's iterable made `except Exception`, whose
    # `raise ValueError(...)` then replaces the `ValueError` the caller's own iterable raised: the same type, so only
    # what each says tells them apart, as a test reads it (`str(raised.value) == ...`)
    source = ("def load(values):\n    try:\n        return [int(value) for value in values]\n"
              "    except TypeError:\n        raise ValueError('values must be an iterable of numbers') from None\n")
    found = _searched(tmp_path, "loading", source, lambda m: m.family == "broadened-handler", "load",
                      [("['1', '2']",)])
    assert isinstance(found, Witness), found.reason
    assert found.original.startswith("raise ValueError(\"invalid literal for int() with base 10"), found
    assert found.mutant == "raise ValueError('values must be an iterable of numbers')", found
    assert "    assert str(raised.value) == \"invalid literal for int() with base 10: " in found.test, found.test


def test_what_a_mutated_pattern_matches_is_tried_though_the_tests_texts_with_its_character_would_fill_the_budget(
        tmp_path):
    # titlecase's `APOS_SECOND`, `[dol]` made `[ol]`: the tests' many texts with a `d` put in (`"da tale"`) never
    # hold an apostrophe; what the pattern matches (`"d'a"`) does, and it waited behind them all
    source = ("import re\n\nAPOS_SECOND = re.compile(r\"^[dol]'\\w+$\", re.I)\n\n\n"
              "def title(text, prefix=''):\n    words = [prefix]\n    for word in text.split(' '):\n"
              "        if APOS_SECOND.match(word):\n"
              "            word = word[0].lower() + word[1] + word[2].upper() + word[3:]\n"
              "        else:\n            word = word[:1].upper() + word[1:]\n        words.append(word)\n"
              "    return ' '.join(words)\n")
    texts = [f"'{adjective} tale of {count} cities'" for adjective in ("a", "the", "one", "some", "any")
             for count in ("two", "three", "four", "five", "six")]
    found = _searched(tmp_path, "titles", source, lambda m: "[ol]" in m.mutated_source, "title",
                      [(text, f"'{number}.'") for number, text in enumerate(texts)])
    assert isinstance(found, Witness), found.reason
    assert "\"d'a\"" in found.call, found.call
    assert found.origin == "designed", found


def test_a_changed_default_is_shown_by_a_call_the_tests_made_with_that_option_made_without_it(tmp_path):
    # validators' `domain(value, *, rfc_1034=False)` made `rfc_1034=True`: the tests checked `'example.com.'` only
    # with the option given; without it, the code refuses the trailing dot and the mutant takes it
    source = ("import re\n\n\ndef domain(value, *, rfc_1034=False):\n"
              "    trailing = r'\\.?$' if rfc_1034 else r'$'\n"
              "    return re.match(r'^(?:[a-z0-9-]+\\.)+[a-z]+' + trailing, value) is not None\n")
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import find_witness

    project, scratch = _shop_project(tmp_path, "domains", source)
    [mutant] = [m for m in generate("shop/domains.py", source)[0] if "rfc_1034=True" in m.mutated_source]
    target = "shop.domains:domain"
    names = [f"'{host}.{site}.{top}'" for host in ("www", "mail", "ftp", "api", "cdn")
             for site in ("example", "python", "kernel", "debian", "gnu") for top in ("com", "org")]
    calls = [*(probes.CallSample(target, (name,)) for name in names),  # (many: a random search seldom gets there)
             probes.CallSample(target, ("'example.com.'",), (("rfc_1034", "True"),))]
    found = find_witness(project, mutant, {target: calls}, (), SourceLayout((".",), ("shop",)), 30.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert found.call == "domain('example.com.')" and (found.original, found.mutant) == ("False", "True"), found
    assert found.origin == "defaults", found


def test_a_dropped_check_of_a_class_of_characters_is_shown_by_the_tests_text_with_a_character_it_refuses(tmp_path):
    # validators' `url`: `optional_segments &= bool(re.fullmatch(r"[0-9a-z?/:@...]*", fragment))` dropped; the tests'
    # fragments all pass the check, and one with `<` put in shows what the mutant lets through
    source = ("import re\n\n\ndef valid(url):\n    base, _, fragment = url.partition('#')\n"
              "    ok = bool(re.fullmatch(r'[a-z:/.]+', base))\n    if fragment:\n"
              "        ok &= bool(re.fullmatch(r'[0-9a-z?/:@._~-]*', fragment))\n    return ok\n")
    found = _searched(tmp_path, "links", source, lambda m: m.family == "lost-side-effect", "valid",
                      [("'http://a.com/#top'",), ("'http://b.org/x#sec-2'",), ("'http://c.net/'",)])
    assert isinstance(found, Witness), found.reason
    assert "<" in found.call and (found.original, found.mutant) == ("False", "True"), found


def test_the_tests_texts_that_ran_the_mutated_line_take_its_character_first(tmp_path):
    # validators' `url`: `_` dropped from the class a fragment is checked with; the tests' first twenty addresses
    # have no fragment, so `_` put into them never reaches the check: the one that ran it takes it first
    source = ("import re\n\n\ndef valid(url):\n    base, _, fragment = url.partition('#')\n"
              "    if fragment:\n        if not re.fullmatch(r'[a-z_]*', fragment):\n            return False\n"
              "    return bool(re.fullmatch(r'[a-z0-9:/._]+', base))\n")
    plain = [(f"'http://site{n}.com/'",) for n in range(25)]
    found = _searched(tmp_path, "links", source, lambda m: "[a-z]*" in m.mutated_source, "valid",
                      [*plain, ("'http://z.com/#top'",)])
    assert isinstance(found, Witness), found.reason
    assert "#" in found.call and "_" in found.call.partition("#")[2], found


def test_a_tuple_of_iterators_is_read_as_what_each_yields(tmp_path):
    # funcy's `split(pred, seq)` hands back what passes and what does not, each an iterator; `bool`, a function the
    # tests named, is passed as they passed it
    source = ("from itertools import tee\n\n\ndef split(pred, seq):\n    yes, no = tee((pred(x), x) for x in seq)\n"
              "    return (x for passed, x in yes if passed), (x for passed, x in no if not passed)\n")
    found = _searched(tmp_path, "seqs", source, lambda m: "for x in seq[1:]" in m.mutated_source, "split",
                      [("bool", "[0, 1, 2]")])
    assert isinstance(found, Witness), found.reason
    assert found.call.startswith("tuple(map(list, split(bool, ")
    assert found.original != found.mutant and found.original.startswith("(["), found


def test_items_no_text_rebuilds_are_told_apart_by_the_text_each_writes(tmp_path):
    # sqlparse's `split` hands back statements, objects no literal rebuilds, each printing as its own SQL: a test
    # compares `[str(item) for item in f(x)]`
    source = ("class Statement:\n    def __init__(self, text):\n        self.text = text\n\n"
              "    def __str__(self):\n        return self.text\n\n\n"
              "def split(sql):\n    return [Statement(part.strip()) for part in sql.split(';') if part.strip()]\n")
    found = _searched(tmp_path, "statements", source, lambda m: "Statement(part)" in m.mutated_source, "split",
                      [("'select 1; select 2'",)])
    assert isinstance(found, Witness), found.reason
    assert found.call == "[str(item) for item in split('select 1; select 2')]", found.call
    assert (found.original, found.mutant) == ("['select 1', 'select 2']", "['select 1', ' select 2']"), found


_ANY = '''\
from typing import Any, Sequence


class Items:
    def __init__(self, items=()):
        self.items = list(items)

    def __repr__(self):
        return f"Items({self.items!r})"

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, Sequence):
            return self.items == list(other)
        try:
            other_as_set = set(other)
        except TypeError:
            return False
        return set(self.items) == other_as_set
'''


def test_a_handler_widened_in_a_method_typed_any_is_told_apart_by_a_value_of_a_kind_the_tests_never_passed(
        tmp_path):
    # ordered-set's `__eq__(self, other: Any)`: `except TypeError` around `set(other)` made `except Exception`; an
    # argument typed `Any` takes a value of any kind, and an iterator that raises while it is read shows the error
    # the mutant swallows
    found = _witness_on_an_instance(tmp_path, "items", _ANY, lambda m: m.family == "broadened-handler",
                                    "Items.__eq__", ("[1, 2]",))
    assert "map(int, ['?'])" in found.call and (found.original, found.mutant) == ("raise ValueError", "False"), found


_ALIASED = '''\
from typing import AbstractSet, Sequence, TypeVar, Union

T = TypeVar("T")
SetLike = Union[AbstractSet[T], Sequence[T]]


class Items:
    def __init__(self, items=()):
        self.items = list(items)

    def __repr__(self):
        return f"Items({self.items!r})"

    def update(self, sequence: SetLike[T]) -> int:
        try:
            for item in sequence:
                self.items.append(item)
        except TypeError:
            raise ValueError(f"Argument needs to be an iterable, got {type(sequence)}")
        return len(self.items)
'''


def test_a_handler_widened_in_a_method_typed_with_an_alias_of_collections_is_told_apart_by_what_its_error_says(
        tmp_path):
    # ordered-set's `update(self, sequence: SetLike[T])`, `SetLike` the module's alias of a set or a sequence:
    # `except TypeError` made `except Exception` raises its own `ValueError` where the caller's iterator raised one
    found = _witness_on_an_instance(tmp_path, "items", _ALIASED, lambda m: m.family == "broadened-handler",
                                    "Items.update", ("[3]",))
    assert "map(int, ['?'])" in found.call, found
    assert found.mutant == "raise ValueError(\"Argument needs to be an iterable, got <class 'map'>\")", found


def test_an_annotation_is_loose_when_it_names_no_kind_or_only_a_protocol_of_collections():
    import ast

    from elenchus.analysis.probes.boundary import _untyped

    for text in ("Any", "typing.Any", "object", "Iterable[int]", "collections.abc.Iterator[str]", "Sequence[T]",
                 "Optional[AbstractSet[int]]", "Union[AbstractSet[T], Sequence[T]]", "Iterable[int] | None",
                 "'Sequence[int]'"):
        assert _untyped(ast.parse(text, mode="eval").body), text
    for text in ("int", "list[int]", "Optional[int]", "Union[str, Sequence[str]]", "str | None", "Mapping[str, int]",
                 "'Foo'"):
        assert not _untyped(ast.parse(text, mode="eval").body), text


_BOX = '''\
class Full(Exception):
    pass


class Box:
    def __init__(self, limit):
        self.limit = limit
        self.items = []

    def __repr__(self):
        return f"Box({self.limit!r})"

    def add(self, item):
        if len(self.items) >= self.limit:
            raise Full(item)
        self.items.append(item)
        return len(self.items)
'''


def test_a_boundary_mutant_is_given_the_instance_built_with_one_side_of_its_comparison_in_place_of_the_other(
        tmp_path):
    # a limit set when the instance is built: `Box(3).add('a')` compared no items with 3, and no argument of the
    # call holds either side; the same call on `Box(0)` ties them, where `>=` made `>` lets the item in
    found = _searched(tmp_path, "box", _BOX, lambda m: m.family == "boundary-inclusivity", "Box.add", [("'a'",)],
                      callrecord.Receiver(("3",)))
    assert isinstance(found, Witness), found.reason
    assert found.call.startswith("Box(0).add("), found.call
    assert (found.original, found.mutant) == ("raise shop.box.Full", "1"), found


def test_a_boundary_mutant_the_import_runs_is_told_apart_through_the_functions_reading_what_it_set(tmp_path):
    # `SMALL = SIZE < 10` at module level: the import runs it, so the search watches the lines reading `SMALL`, and
    # the mutant's own copy is the mutant as written (no driver there compares its sides for it)
    source = "SIZE = 10\nSMALL = SIZE < 10\n\n\ndef describe():\n    return 'small' if SMALL else 'large'\n"
    found = _searched(tmp_path, "sizes", source, lambda m: m.family == "boundary-inclusivity", "describe", [()])
    assert isinstance(found, Witness), found.reason
    assert (found.call, found.original, found.mutant) == ("describe()", "'large'", "'small'"), found


#: cachetools' `__update`: the order of the keys, kept beside the cache's own data.
_UPDATE = '''\
    def __update(self, key):
        try:
            self.__order.move_to_end(key)
        except KeyError:
            self.__order[key] = None
'''

_RECENT = '''\
import collections


class Recent:
    def __init__(self, size):
        self.size = size
        self.__data = {}
        self.__order = collections.OrderedDict()

    def __repr__(self):
        return f"Recent({self.size})"

    def put(self, key, value):
        self.__data[key] = value
        self.__update(key)

''' + _UPDATE


def test_a_broadened_handler_that_only_ever_caught_what_the_code_catches_is_likely_equivalent(tmp_path):
    # cachetools' `LRUCache.__update`: `move_to_end(key)` under `except KeyError` made `except Exception`, run only
    # with a key the cache just stored. Every call that ran into the handler brought a `KeyError`, the mutant ran
    # as the code did, and the instances no test can compare back no gap
    found = _searched(tmp_path, "recent", _RECENT, lambda m: m.family == "broadened-handler", "Recent.put",
                      [("1", "2")], callrecord.Receiver(("2",)))
    assert isinstance(found, NoWitness) and found.searched, found
    assert found.reason.startswith("likely equivalent: the code the handler guards raised only errors the code's "
                                   "own handler catches too"), found.reason
    caught = int(re.search(r"catches too, in (\d+) call", found.reason)[1])
    assert caught > 1 and f"{caught} ran into the handler with an error it catches" in found.reason, found.reason


_TIMED = '''\
class Timed:
    def __init__(self, size):
        self.size = size
        self.__data = {}
        self.__ages = {}

    def __repr__(self):
        return f"Timed({self.size})"

    def put(self, key, value):
        self.__data[key] = value
        self.__ages[key] = 0

    def get(self, key):
        try:
            age = self.__ages[key]
        except KeyError:
            old = False
        else:
            old = age > self.size
        return None if old else self.__data[key]
'''


def test_a_broadened_handler_that_caught_another_error_with_the_same_outcome_stays_a_gap(tmp_path):
    # cachetools' `TTLCache.__getitem__`: an unhashable key raises `TypeError` in the guarded lookup, which the
    # mutant swallows, and then again in the next; the two agree, but the mutant did run otherwise: no claim
    found = _searched(tmp_path, "timed", _TIMED, lambda m: m.family == "broadened-handler", "Timed.get",
                      [("1",)], callrecord.Receiver(("2",)))
    assert isinstance(found, NoWitness) and not found.searched, found
    assert found.reason.startswith("no witness was found, so it stays a gap"), found.reason


def test_a_broadened_handler_of_a_system_error_is_never_cleared_by_the_errors_it_caught(tmp_path):
    # `except FileNotFoundError` made `except Exception`: no input the search builds makes a directory of the
    # path or takes its permission away, so the errors the handler caught say nothing of those
    source = ("import os\n\nBASE = os.path.dirname(__file__)\n\n\ndef load(number):\n"
              "    path = os.path.join(BASE, f'{int(number) % 100}.txt')\n    try:\n"
              "        with open(path) as stored:\n            return stored.read()\n"
              "    except FileNotFoundError:\n        return ''\n")
    found = _searched(tmp_path, "stored", source, lambda m: m.family == "broadened-handler", "load", [("7",)])
    assert isinstance(found, NoWitness) and not found.searched, found
    assert found.reason == ("no witness was found, so it stays a gap: `load`: no call of `load` made the code the "
                            "handler of line 11 guards raise an error `except FileNotFoundError` lets through"), found


def test_agreement_on_the_few_inputs_that_ran_a_narrow_branch_backs_no_claim(tmp_path):
    # only `describe(451)` runs the branch whose `.strip()` the mutant drops: one agreeing call of hundreds says
    # little of the branch, so the survivor stays a gap that says how few calls ran it
    source = ("def describe(code):\n    if code == 451:\n"
              "        return ('unavailable ' + 'for legal reasons').strip()\n    return 'ok'\n")
    found = _searched(tmp_path, "codes", source, lambda m: m.family == "missing-normalization", "describe",
                      [("200",), ("451",)])
    assert isinstance(found, NoWitness) and not found.searched, found
    assert re.search(r"only [1-4] call\(s\) of `describe` ran the mutated line\(s\) 3, too few for their agreement "
                     r"to back a claim", found.reason), found.reason


_RECENT_ITEMS = '''\
import collections


class Cache:
    def __init__(self, maxsize):
        self.maxsize = maxsize
        self._data = {}

    def __repr__(self):
        return f"Cache({self._data!r}, maxsize={self.maxsize})"

    def __getitem__(self, key):
        return self._data[key]

    def __setitem__(self, key, value):
        self._data[key] = value


class Recent(Cache):
    def __init__(self, maxsize):
        Cache.__init__(self, maxsize)
        self.__order = collections.OrderedDict()

    def __setitem__(self, key, value, cache_setitem=Cache.__setitem__):
        cache_setitem(self, key, value)
        self.__update(key)

''' + _UPDATE


def test_an_item_set_is_a_call_the_search_makes_and_reaches_a_private_helper_through(tmp_path):
    # cachetools' `LRUCache.__setitem__` calls `__update(key)`, whose handler the tests' `cache[key] = value`
    # runs into with each new key: searched through the item set, it caught only what the code catches
    found = _searched(tmp_path, "recent", _RECENT_ITEMS, lambda m: m.family == "broadened-handler",
                      "Recent.__setitem__", [("1", "'a'")], callrecord.Receiver(("2",)))
    assert isinstance(found, NoWitness) and found.searched, found
    assert found.reason.startswith("likely equivalent: the code the handler guards raised only errors"), found
    assert "tried `Recent.__setitem__`: " in found.reason, found.reason


_BOX_ITEMS = '''\
class Box:
    def __init__(self, size):
        self.size = size
        self.items = {}

    def __repr__(self):
        return f"Box({self.size}, {self.items!r})"

    def __setitem__(self, key, value):
        if len(self.items) > self.size:
            raise KeyError(key)
        self.items[key] = value
'''


def test_an_item_set_the_mutant_refuses_is_witnessed_by_the_call_the_operator_module_makes(tmp_path):
    # `Box(0)[1] = 'a'` is stored by the code and refused by the mutant (`>` made `>=`): a statement has no value
    # to assert, so the witness asserts `operator.setitem(...)`, which fails at the assertion on the mutant
    found = _searched(tmp_path, "box", _BOX_ITEMS, lambda m: m.family == "boundary-inclusivity", "Box.__setitem__",
                      [("1", "'a'")], callrecord.Receiver(("0",)))
    assert isinstance(found, Witness), found.reason
    assert found.call == "Box(0)[1] = 'a'" and (found.original, found.mutant) == ("None", "raise KeyError"), found
    assert "import operator\n" in found.test and "    assert operator.setitem(Box(0), 1, 'a') is None\n" in found.test


def test_a_broadened_handler_whose_argument_is_typed_takes_no_foreign_value_and_backs_no_claim(tmp_path):
    # validators' `domain(value: str)`: the texts the search gives it raise only what the code catches, but no
    # value of another kind was tried (the annotation keeps them out), and `lookup(1)` raises AttributeError in the
    # code where the mutant returns None: agreement on texts alone claims nothing
    source = ("TABLE = {'a': 1}\n\n\ndef lookup(key: str):\n    if not key:\n        return None\n    try:\n"
              "        return TABLE[key.lower()]\n    except KeyError:\n        return None\n")
    found = _searched(tmp_path, "typed", source, lambda m: m.family == "broadened-handler", "lookup", [("'A'",)])
    assert isinstance(found, NoWitness) and not found.searched, found
    assert found.reason.endswith("no call of `lookup` made the code the handler of line 9 guards raise an error "
                                 "`except KeyError` lets through"), found.reason


_BAG = '''\
class Bag:
    def __init__(self, size, pick=min):
        self.size = size
        self.pick = pick
        self.items = []

    def add(self, item):
        if len(self.items) >= self.size:
            self.drop()
        self.items.append(item)

    def drop(self):
        try:
            item = self.pick(self.items)
        except ValueError:
            raise KeyError("empty") from None
        self.items.remove(item)
        return item
'''


def test_an_instance_whose_set_up_raises_is_no_input_to_compare(tmp_path):
    # cachetools' `RRCache(2, None)` filled with three items: the third evicts through `None(...)`, so the instance
    # never comes to be, on the code (TypeError) or the mutant (KeyError); a test building it would fail first
    receiver = callrecord.Receiver(("1", "None"), steps=(("add", ("1",), ()), ("add", ("2",), ())))
    found = _searched(tmp_path, "bag", _BAG, lambda m: m.family == "broadened-handler", "Bag.drop", [()], receiver)
    assert isinstance(found, NoWitness) and not found.searched, found
    assert "not kept" not in found.reason and "no call of `Bag.drop` could be compared" in found.reason, found.reason


def test_a_broadened_handler_one_public_caller_makes_catch_more_stays_a_gap_whatever_another_saw(tmp_path):
    # `find` hands `_find` texts only, and its calls catch only KeyError; `find_text(key: str)` takes no foreign
    # value, yet `find_text(None)` makes the widened handler catch an AttributeError, which `find_text` itself then
    # swallows as the code does: the two agree, but the mutant did run otherwise, so no caller's agreement clears it
    source = ("TABLE = {'a': 1}\n\n\ndef _find(key):\n    try:\n        return TABLE[key.lower()]\n"
              "    except KeyError:\n        return None\n\n\ndef find(key):\n"
              "    return _find(key) if isinstance(key, str) else None\n\n\ndef find_text(key: str):\n    try:\n"
              "        return _find(key)\n    except AttributeError:\n        return None\n")
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import find_witness

    project, scratch = _shop_project(tmp_path, "finds", source)
    mutants, _ = generate("shop/finds.py", source)
    [mutant] = [m for m in mutants if m.family == "broadened-handler" and m.symbol == "_find"]
    samples = {f"shop.finds:{name}": [probes.CallSample(f"shop.finds:{name}", ("'A'",))]
               for name in ("find", "find_text")}
    found = find_witness(project, mutant, samples, (), SourceLayout((".",), ("shop",)), 30.0, scratch)
    assert isinstance(found, NoWitness) and not found.searched, found
    assert found.reason.startswith("no witness was found, so it stays a gap: a call made the guarded code raise an "
                                   "error the handler did not catch before, and its result agreed"), found.reason


COERCING = """\
class Span:
    def __init__(self, length=0):
        self.length = length

    def __eq__(self, other):
        return isinstance(other, Span) and self.length == other.length

    def __repr__(self):
        return f"Span({self.length!r})"

    def __add__(self, other):
        return Span(self.length + self.coerce(other).length)

    @classmethod
    def coerce(cls, other):
        if isinstance(other, Span):
            return other
        if isinstance(other, int):
            return cls(other)
        return cls(other.length)
"""


def test_a_mutant_that_builds_an_equal_object_where_the_code_hands_back_its_argument_is_never_called_equivalent(
        tmp_path):
    # pysrt's `coerce` without `if isinstance(other, SubRipTime): return other` builds an equal `SubRipTime` of its
    # own: every result compares equal, yet a caller shifting what it got shifts its own time only with the code
    from elenchus.repo.layout import SourceLayout
    from elenchus.analysis.witness import find_witness

    project, scratch = _shop_project(tmp_path, "span", COERCING)
    (project / "tests").mkdir()
    (project / "tests" / "test_span.py").write_text(
        "from shop.span import Span\n\n\ndef test_add():\n    for length in (0, 3, 12):\n"
        "        assert Span(1) + Span(length) == Span(1) + length == Span(length + 1)\n")
    mutants, _ = generate("shop/span.py", COERCING)
    [dropped] = [m for m in mutants if m.symbol == "Span.coerce" and m.family == "dropped-guard" and m.line == 16]
    samples = probes.record_calls(project, ["tests"], [("shop.span", "Span.coerce"), ("shop.span", "Span.__add__"),
                                                       ("shop.span", "Span.__init__")])
    found = find_witness(project, dropped, samples, (), SourceLayout((".",), ("shop",)), 20.0, scratch)
    assert isinstance(found, NoWitness) and not found.searched, found.reason
    assert "the code hands back `other`, the very object it was given" in found.reason, found.reason
