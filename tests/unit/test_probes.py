"""The Capture probe engine, on real projects in tmp dirs and real pytest / driver subprocesses.

One small src-layout project (``shop.cart.chunks``) is built once per module; its
recorded calls, the off-by-one mutant, the distinguishing input and the written probe
are shared by the tests that read them.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from elenchus.execution import callrecord
from elenchus.analysis.witness.targets import in_search_order
from elenchus.mutation import mutate
from elenchus.analysis import probes, witness

CART = textwrap.dedent(
    """\
    def chunks(items, size):
        return [items[i:i + size] for i in range(0, len(items), size)]
    """
)

CART_TESTS = textwrap.dedent(
    """\
    from shop.cart import chunks


    def test_chunks_makes_three_groups():
        assert len(chunks([1, 2, 3, 4, 5], 2)) == 3
    """
)

LIMITS = textwrap.dedent(
    """\
    def clamp(value, lo, hi):
        \"\"\"``value`` limited to ``[lo, hi]``, and whether it had to be limited.\"\"\"
        if value < lo:
            return lo, True
        if value > hi:
            return hi, True
        return value, False
    """
)

LIMITS_TESTS = textwrap.dedent(
    """\
    from fractions import Fraction

    from shop.limits import clamp


    def test_clamp_keeps_a_value_inside():
        assert clamp(5, 0, 10)[0] == 5


    def test_clamp_again_with_the_same_value():
        assert clamp(5, 0, 10)[0] == 5


    def test_clamp_with_a_fraction():
        assert clamp(Fraction(1, 2), 0, 10)[0] == Fraction(1, 2)


    class Level(int):  # a value no literal and no standard constructor writes
        pass


    def test_clamp_with_a_level():
        assert clamp(Level(3), 0, 10)[0] == 3
    """
)


def make_project(root: Path, module: str, source: str, tests: str) -> Path:
    (root / "src" / "shop").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    (root / "src" / "shop" / "__init__.py").write_text("")
    (root / "src" / "shop" / f"{module}.py").write_text(source)
    (root / "tests" / f"test_{module}.py").write_text(tests)
    return root


def proposed_copy(reference: Path, into: Path, cart_source: str) -> Path:
    shutil.copytree(reference, into)
    (into / "src" / "shop" / "cart.py").write_text(cart_source)
    return into


def pick(mutants, fragment: str):
    [chosen] = [m for m in mutants if fragment in m.mutated_source]
    return chosen


@pytest.fixture(scope="module")
def cart(tmp_path_factory):
    """The reference project, its recorded calls, the off-by-one mutant, its distinction and probe."""
    root = make_project(tmp_path_factory.mktemp("cart") / "reference", "cart", CART, CART_TESTS)
    samples = probes.record_calls(root, ["tests"], [("shop.cart", "chunks")])
    mutants, _ = mutate.generate("src/shop/cart.py", CART)
    mutant = pick(mutants, "items[i:i + size - 1]")
    distinction = probes.find_distinguishing_input(root, mutant, samples["shop.cart:chunks"])
    probe = probes.write_probe(mutant, distinction, "shop.cart", contract_id="cart.chunks")
    return {"root": root, "samples": samples, "mutants": mutants, "mutant": mutant,
            "distinction": distinction, "probe": probe, "tmp": tmp_path_factory.mktemp("proposed")}


# --------------------------------------------------------------------------- recording


def test_record_calls_keeps_the_literal_arguments_the_reference_tests_passed(cart):
    [sample] = cart["samples"]["shop.cart:chunks"]
    assert (sample.args, sample.kwargs) == (([1, 2, 3, 4, 5], 2), {})
    assert sample.args_repr == ("[1, 2, 3, 4, 5]", "2")


def test_capture_runs_its_probes_without_the_plugins_the_suite_never_names(cart, tmp_path):
    from elenchus.analysis import reference_probes
    from elenchus.repo.snapshot import Snapshot

    proposed = Path(shutil.copytree(cart["root"], tmp_path / "proposed"))
    # (spelled so that the suite names neither plugin: loading one is what this conftest sees)
    (proposed / "tests" / "conftest.py").write_text(
        "def pytest_configure(config):\n"
        "    loaded = [name for name in ('x' + 'dist', 'platform' + 'dirs') if config.pluginmanager.has_plugin(name)]\n"
        "    assert not loaded, f'plugins loaded: {loaded}'\n")
    snapshot = Snapshot(proposed, "proposed", "HEAD", None, (), ())
    [result] = reference_probes.run_against_proposed(snapshot, [(cart["probe"], "generated")])
    assert result.outcome == "no-catch", result.message  # it ran, and passes on the unchanged code


def test_record_calls_counts_the_distinct_calls_whose_arguments_are_not_literals(tmp_path):
    source = "def later(day, n=1):\n    return day\n"
    tests = ("import datetime\n\nfrom shop.days import later\n\n\nclass Day:\n"
             "    def __init__(self, n):\n        self.n = n\n\n    def __repr__(self):\n"
             "        return f'Day({self.n})'\n\n\ndef test_later():\n"
             "    for _ in range(3):\n        later(Day(1))\n"
             "    later(Day(2), 2)\n    later(5)\n    later(datetime.date(2000, 1, 1))\n")
    root = make_project(tmp_path / "days", "days", source, tests)
    unrecorded: dict[str, int] = {}
    samples = probes.record_calls(root, ["tests/test_days.py"], [("shop.days", "later")], unrecorded=unrecorded)
    assert [s.args_repr for s in samples["shop.days:later"]] == [("5", "1"), ("datetime.date(2000, 1, 1)", "1")]
    assert unrecorded == {"shop.days:later": 2}  # the two distinct calls with a Day


def test_record_calls_from_the_tests_only_leaves_out_the_calls_made_while_collecting(tmp_path):
    source = "def later(day, n=1):\n    return day\n"
    tests = ("from shop.days import later\n\nTABLE = [later(7)]\n\n\ndef test_later():\n    assert later(5) == 5\n\n\n"
             "def test_other():\n    assert later(6) == 6\n")
    root = make_project(tmp_path / "days", "days", source, tests)
    every = probes.record_calls(root, ["tests/test_days.py"], [("shop.days", "later")])
    assert sorted(s.args_repr for s in every["shop.days:later"]) == [("5", "1"), ("6", "1"), ("7", "1")]
    chosen = probes.record_calls(root, ["tests/test_days.py::test_later"], [("shop.days", "later")], tests_only=True)
    assert [s.args_repr for s in chosen["shop.days:later"]] == [("5", "1")]  # not the import's, not test_other's


def test_a_path_into_the_project_a_test_passed_is_recorded_relative_to_the_project_and_replayed_there(tmp_path):
    # sqlparse's CLI tests pass `os.path.join(os.path.dirname(__file__), 'files', ...)`: the recorded text named the
    # recording's own temporary copy, gone before any replay, so every call of the search read a missing file
    import dataclasses

    source = "def first_line(path):\n    with open(path) as f:\n        return f.readline().strip()\n"
    tests = ("import os\n\nfrom shop.files import first_line\n\n\ndef test_first_line():\n"
             "    assert first_line(os.path.join(os.path.dirname(__file__), 'data', 'a.txt')) == 'select 1'\n")
    root = make_project(tmp_path / "files", "files", source, tests)
    (root / "tests" / "data").mkdir()
    (root / "tests" / "data" / "a.txt").write_text("select 1  \nselect 2\n")
    samples = probes.record_calls(root, ["tests"], [("shop.files", "first_line")])
    [sample] = samples["shop.files:first_line"]
    assert sample.args_repr == ("'tests/data/a.txt'",), sample.args_repr
    mutant = dataclasses.replace(handmade_mutant("src/shop/files.py", "first_line",
                                                 source.replace(".readline().strip()", ".readline()")),
                                 mutated_lines=(3,))
    found = probes.search_input(root, mutant, samples["shop.files:first_line"], search_budget=20)
    assert found.distinction is not None, found.reason
    assert found.distinction.args_repr == ("'tests/data/a.txt'",)
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'select 1'", "'select 1  \\n'")


def test_dates_the_tests_passed_are_recorded_and_the_search_tries_dates_like_them(tmp_path):
    import dataclasses
    import datetime

    source = "def kind(day):\n    return 'weekend' if day.weekday() >= 5 else 'weekday'\n"
    tests = ("import datetime\n\nfrom shop.days import kind\n\n\ndef test_kind():\n"
             "    assert kind(datetime.date(2024, 1, 1)) == 'weekday'\n")
    root = make_project(tmp_path / "days", "days", source, tests)
    unrecorded: dict[str, int] = {}
    samples = probes.record_calls(root, ["tests"], [("shop.days", "kind")], unrecorded=unrecorded)
    [sample] = samples["shop.days:kind"]
    assert sample.args_repr == ("datetime.date(2024, 1, 1)",) and sample.args == (datetime.date(2024, 1, 1),)
    assert not unrecorded.get("shop.days:kind")
    # the tests' Monday passes on the mutant; a Saturday tells it apart
    mutant = dataclasses.replace(handmade_mutant("src/shop/days.py", "kind", source.replace(">= 5", "> 5")),
                                 mutated_lines=(2,))
    found = probes.search_input(root, mutant, samples["shop.days:kind"], search_budget=100)
    assert found.distinction is not None, found.reason
    day = callrecord.argument_value(found.distinction.args_repr[0])
    assert type(day) is datetime.date and day.weekday() == 5
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'weekend'", "'weekday'")
    probe = probes.write_probe(mutant, found.distinction, "shop.days", witness=True)
    assert "import datetime\n" in probe.source
    assert f"    assert kind({found.distinction.args_repr[0]}) == 'weekend'\n" in probe.source
    assert probes.verify_probe(root, probe, mutant).accepted  # passes on the code, fails on the mutant


def test_the_zero_of_a_duration_the_tests_wrote_is_tried_where_no_annotation_types_the_argument(tmp_path):
    # As `Duration(years=1) != timedelta(0)`: the tests pass numbers here and write a two-day duration elsewhere;
    # only an empty duration tells the mutant apart.
    import dataclasses
    import datetime

    source = ("import datetime\n\n\ndef describe(wait):\n"
              "    if isinstance(wait, datetime.timedelta) and not wait:\n"
              "        return 'now'\n    return 'later'\n")
    tests = "from shop.waits import describe\n\n\ndef test_describe():\n    assert describe(3) == 'later'\n"
    root = make_project(tmp_path / "waits", "waits", source, tests)
    samples = probes.record_calls(root, ["tests"], [("shop.waits", "describe")])
    assert [s.args_repr for s in samples["shop.waits:describe"]] == [("3",)]
    mutant = dataclasses.replace(handmade_mutant("src/shop/waits.py", "describe",
                                                 source.replace("and not wait", "and wait is None")),
                                 mutated_lines=(5,))
    found = probes.search_input(root, mutant, samples["shop.waits:describe"],
                                test_literals=[datetime.timedelta(days=2)], search_budget=100)
    assert found.distinction is not None, found.reason
    assert found.distinction.args_repr == ("datetime.timedelta(0)",)
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'now'", "'later'")


def test_a_function_a_test_passes_by_name_is_written_by_that_name_and_never_called_in_the_text():
    # `sorted(words, key=len)`, toolz's `accumulate(add, [1, 2, 3])`, funcy's `walk(str.upper, ...)`
    import operator

    for value, text in ((len, "len"), (operator.add, "operator.add"), (str.upper, "str.upper"), (int, "int")):
        assert callrecord.argument_repr(value) == text
        assert callrecord.argument_value(text) is value
    assert callrecord.argument_imports(["operator.add", "len", "[1]"]) == ("import operator",)
    for value in (print, open, eval, getattr, lambda x: x, dict.fromkeys, str.mro):  # only what computes alone
        assert callrecord.argument_repr(value) is None
    for text in ("len([1])", "operator.add(1, 2)", "str.upper('x')", "list(range(10**9))", "str.mro",
                 "operator.__dict__", "print", "open"):  # named, never called: only a lazy iterator is built
        with pytest.raises(ValueError):
            callrecord.argument_value(text)
    raising = callrecord.argument_value(callrecord.argument_repr(callrecord.Written("map(int, ['?'])")))
    with pytest.raises(ValueError):  # an iterator that raises when it is read
        list(raising)
    assert callrecord.argument_repr(callrecord.Written("len([1])")) is None


def test_what_an_error_says_is_compared_only_when_every_process_would_say_it_alike():
    import os
    import tempfile

    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no text")

    assert callrecord.message_of(ValueError("invalid literal for int() with base 10: '?'")) == \
        "invalid literal for int() with base 10: '?'"
    assert callrecord.message_of(KeyError("a")) == "'a'"
    for said in (f"bad value {object()!r}", "x" * 201, f"no file {tempfile.gettempdir()}/a", f"in {os.getcwd()}"):
        assert callrecord.message_of(ValueError(said)) is None, said  # an address, too long, a path of this process
    assert callrecord.message_of(Unprintable()) is None


def test_an_error_is_the_codes_own_word_only_where_its_raise_statement_raised_it(tmp_path, monkeypatch):
    import importlib.util

    (tmp_path / "checks.py").write_text("def own(x):\n    raise ValueError('bad ' + x)\n\n\n"
                                        "def operation(x):\n    return int(x) * 2\n\n\n"
                                        "def again(x):\n    try:\n        return int(x)\n    except ValueError:\n"
                                        "        raise\n")
    monkeypatch.chdir(tmp_path)
    spec = importlib.util.spec_from_file_location("checks", tmp_path / "checks.py")
    checks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checks)
    for name, own in (("own", True), ("operation", False), ("again", False)):
        with pytest.raises(ValueError) as raised:
            getattr(checks, name)("?")
        assert callrecord.raised_here(raised.value) is own, name
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # (the same statement, in code outside this process's directory)
    with pytest.raises(ValueError) as raised:
        checks.own("?")
    assert callrecord.raised_here(raised.value) is False


def test_an_argument_text_is_read_only_when_it_builds_a_date_time_duration_or_number(tmp_path):
    import datetime
    import decimal

    assert callrecord.argument_value("datetime.date(2000, 1, 2)") == datetime.date(2000, 1, 2)
    assert callrecord.argument_value("[Decimal('1.50'), None]") == [decimal.Decimal("1.50"), None]
    aware = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)
    assert callrecord.argument_value(callrecord.argument_repr(aware)) == aware
    assert callrecord.argument_imports([callrecord.argument_repr(aware), "Decimal('1')", "3"]) == (
        "from decimal import Decimal", "import datetime")
    for text in ("os.system('true')", "__import__('os')", "datetime.sys", "datetime.date.__class__",
                 "(lambda: 1)()", "open('/etc/passwd')", "datetime.date(2000, 1, 2).replace"):
        with pytest.raises(ValueError):
            callrecord.argument_value(text)
    class Local:  # a value of another kind is not written as an argument at all
        def __repr__(self):
            return "Local()"

        def __eq__(self, other):
            return isinstance(other, Local)
    assert callrecord.argument_repr(Local()) is None
    # a calls file the tests could write: a line with anything else in it is dropped
    calls = tmp_path / "calls.jsonl"
    calls.write_text("\n".join(json.dumps({"target": "m:f", "args_repr": [text], "kwargs_repr": {}})
                               for text in ("datetime.date(2000, 1, 2)", "__import__('os').getcwd()")) + "\n")
    found: dict[str, list[probes.CallSample]] = {"m:f": []}
    probes._read_samples(calls, found)
    assert [s.args_repr for s in found["m:f"]] == [("datetime.date(2000, 1, 2)",)]


def test_record_calls_drops_repeated_and_non_literal_calls(tmp_path):
    root = make_project(tmp_path / "limits", "limits", LIMITS, LIMITS_TESTS)
    samples = probes.record_calls(root, ["tests"], [("shop.limits", "clamp"), ("shop.limits", "absent")])
    # (a Fraction is written as a test writes it; the Level is dropped)
    assert [s.args_repr for s in samples["shop.limits:clamp"]] == [("5", "0", "10"), ("Fraction(1, 2)", "0", "10")]
    assert samples["shop.limits:absent"] == []


def test_record_calls_leaves_the_reference_tree_unchanged(cart):
    names = sorted(p.relative_to(cart["root"]).as_posix() for p in cart["root"].rglob("*"))
    assert names == ["pyproject.toml", "src", "src/shop", "src/shop/__init__.py", "src/shop/cart.py",
                     "tests", "tests/test_cart.py"]


# --------------------------------------------------------------------------- distinction and probe


def test_recorded_sample_distinguishes_the_off_by_one_chunk_mutant(cart):
    distinction = cart["distinction"]
    assert distinction.origin == "recorded"
    assert distinction.args_repr == ("[1, 2, 3, 4, 5]", "2")
    assert distinction.reference_repr == "[[1, 2], [3, 4], [5]]"
    assert distinction.mutant_repr == "[[1], [3], [5]]"
    assert distinction.reference_exception is None and distinction.mutant_exception is None


def test_written_probe_calls_the_public_function_and_asserts_the_reference_output(cart):
    probe, mutant = cart["probe"], cart["mutant"]
    assert probe.path == f"tests/test_elenchus_probe_{mutant.id}.py"
    assert probe.test_nodeid == f"{probe.path}::test_chunks_{mutant.id[:8]}"
    assert "from shop.cart import chunks\n" in probe.source
    assert "    assert chunks([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]\n" in probe.source
    assert mutant.incident.split(":")[0] in probe.source  # the docstring names the incident
    assert probes.private_names_in(probe.source) == []
    assert (probe.input_repr, probe.reference_repr, probe.mutant_repr) == (
        "chunks([1, 2, 3, 4, 5], 2)", "[[1, 2], [3, 4], [5]]", "[[1], [3], [5]]")
    assert (probe.contract_id, probe.mutant_ids) == ("cart.chunks", (mutant.id,))
    compile(probe.source, probe.path, "exec")


def test_written_probe_passes_on_the_reference_and_fails_on_the_mutant_at_its_assertion(cart):
    check = probes.verify_probe(cart["root"], cart["probe"], cart["mutant"])
    assert check.accepted, check.reason
    assert check.killed == (cart["mutant"].id,)
    assert "assertion" in check.reason


def test_probe_verification_rejects_a_probe_the_mutant_survives(cart):
    survivor = pick(cart["mutants"], "len(items) + 1")  # one more step, an empty-free range here
    check = probes.verify_probe(cart["root"], cart["probe"], survivor)
    assert not check.accepted
    assert "passes on the mutant" in check.reason


def test_search_finds_the_boundary_input_when_no_recorded_sample_distinguishes(tmp_path):
    root = make_project(tmp_path / "limits", "limits", LIMITS, LIMITS_TESTS)
    mutants, _ = mutate.generate("src/shop/limits.py", LIMITS)
    mutant = pick(mutants, "value >= hi")
    samples = [probes.CallSample("shop.limits:clamp", ("5", "0", "10"))]
    distinction = probes.find_distinguishing_input(root, mutant, samples, search_budget=200)
    assert distinction is not None and distinction.origin == "search"
    value, lo, hi = (eval(text) for text in distinction.args_repr)  # literals only
    assert value == hi and value >= lo
    assert distinction.reference_repr == f"({hi}, False)"
    assert distinction.mutant_repr == f"({hi}, True)"
    probe = probes.write_probe(mutant, distinction, "shop.limits")
    assert probes.verify_probe(root, probe, mutant).accepted


def handmade_mutant(path: str, symbol: str, mutated_source: str) -> mutate.Mutant:
    return mutate.Mutant(
        id="000000000000", path=path, symbol=symbol, line=2, end_line=2, col=5, family="handmade",
        changed_intent="handmade", incident="handmade", expected_detection="none", diff="",
        mutated_source=mutated_source)


def mutant_at(path: str, symbol: str, source: str, old: str, new: str) -> mutate.Mutant:
    """A handmade mutant of ``source`` with ``old`` made ``new``, on the line that holds ``old``."""
    line = next(number for number, text in enumerate(source.splitlines(), 1) if old in text)
    return dataclasses.replace(handmade_mutant(path, symbol, source.replace(old, new)), line=line, end_line=line,
                               mutated_lines=(line,))


def test_a_witness_of_what_an_error_says_reads_it_from_the_raised_exception_in_either_style(tmp_path):
    source = "def load(values):\n    return [int(value) for value in values]\n"
    mutated = "def load(values):\n    raise ValueError('values must be numbers')\n"
    root = make_project(tmp_path / "loading", "loading", source, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/loading.py", "load", mutated)
    said = ("invalid literal for int() with base 10: '?'", "values must be numbers")
    distinction = probes.Distinction(("['?']",), (), None, "ValueError", None, "ValueError", messages=said)
    for style, read in (("pytest", "raised.value"), ("unittest", "raised.exception")):
        probe = probes.write_probe(mutant, distinction, "shop.loading", witness=True, style=style)
        assert f"    assert str({read}) == \"invalid literal for int() with base 10: '?'\"\n" in probe.source, probe.source
        assert probe.reference_repr == f"raise ValueError({said[0]!r})", probe
        (root / "tests" / f"test_{style}.py").write_text(probe.source)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:hypothesis",
               "tests/test_pytest.py", "tests/test_unittest.py"]
    passed = subprocess.run(command, cwd=root, capture_output=True, text=True)
    assert "2 passed" in passed.stdout, passed.stdout  # (on the code as it is)
    (root / "src" / "shop" / "loading.py").write_text(mutated)
    failed = subprocess.run(command, cwd=root, capture_output=True, text=True)
    assert "2 failed" in failed.stdout, failed.stdout


def test_search_gives_no_distinction_for_an_equivalent_mutant(tmp_path):
    source = "def double(n):\n    return n * 2\n"
    root = make_project(tmp_path / "double", "double", source, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/double.py", "double", "def double(n):\n    return n + n\n")
    assert probes.find_distinguishing_input(root, mutant, [], search_budget=50) is None


def test_search_gives_up_on_a_mutant_that_hangs_within_its_time_budget(tmp_path):
    source = "def double(n):\n    return n * 2\n"
    root = make_project(tmp_path / "double", "double", source, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/double.py", "double", "def double(n):\n    while True:\n        pass\n")
    samples = [probes.CallSample("shop.double:double", ("2",))]
    started = time.monotonic()
    found = probes.find_distinguishing_input(root, mutant, samples, search_budget=20, per_call_timeout=0.2,
                                             time_budget=1.5)
    assert found is None  # a hang is never a failure at an assertion
    assert time.monotonic() - started < 15


@pytest.mark.parametrize(
    ("threshold", "samples", "boundary"),
    [("18", ("30", "10"), "18"), ("17.5", ("30.0", "10.0"), "17.5")],
    ids=["int", "float"],
)
def test_boundary_step_finds_the_constant_of_an_off_by_one_the_recorded_samples_miss(
        tmp_path, threshold, samples, boundary):
    source = f"def is_adult(age):\n    return age >= {threshold}\n"
    root = make_project(tmp_path / "adult", "adult", source, "def test_nothing():\n    pass\n")
    mutants, _ = mutate.generate("src/shop/adult.py", source)
    mutant = pick(mutants, f"age > {threshold}")
    recorded = [probes.CallSample("shop.adult:is_adult", (text,)) for text in samples]
    distinction = probes.find_distinguishing_input(root, mutant, recorded, search_budget=0)
    assert distinction is not None and distinction.origin == "boundary"
    assert distinction.args_repr == (boundary,)
    assert (distinction.reference_repr, distinction.mutant_repr) == ("True", "False")


COLOURS = textwrap.dedent("""
    def to_percent(triplet):
        specials = {255: "100%", 64: "25%", 0: "0%"}
        return tuple(specials.get(d, "{:.02f}%".format(d / 255.0 * 100)) for d in triplet)


    def clip(triplet):
        result = []
        for text in triplet:
            number = text.split("%")[0]
            percent = float(number) if "." in number else int(number)
            result.append("0%" if percent < 0 else "{}%".format(percent))
        return tuple(result)
""")


@pytest.mark.parametrize(("old", "new", "symbol", "recorded", "expected"), [
    # an entry of a table the elements are looked up in: the tests passed (255, 255, 255)
    ('64: "25%", ', "", "to_percent", "(255, 255, 255)", {"((64, 64, 64),)", "((64, 255, 255),)"}),
    # a bound the code compares a parsed number with: the tests wrote '50%'
    ("percent < 0", "percent <= 0", "clip", "('50%', '20%', '10%')",
     {"(('0.0%', '0.0%', '0.0%'),)", "(('0.0%', '20%', '10%'),)"}),
], ids=["table-key", "number-in-text"])
def test_the_constants_of_the_mutated_line_are_tried_inside_the_tuples_and_texts_the_tests_passed(
        tmp_path, old, new, symbol, recorded, expected):
    root = make_project(tmp_path / "colours", "colours", COLOURS, "def test_nothing():\n    pass\n")
    line = next(number for number, text in enumerate(COLOURS.splitlines(), 1) if old in text)
    mutant = dataclasses.replace(handmade_mutant("src/shop/colours.py", symbol, COLOURS.replace(old, new)),
                                 line=line, end_line=line, mutated_lines=(line,))
    samples = [probes.CallSample(f"shop.colours:{symbol}", (recorded,))]
    distinction = probes.find_distinguishing_input(root, mutant, samples, search_budget=0)
    assert distinction is not None and distinction.origin == "boundary"
    assert f"({', '.join(distinction.args_repr)},)" in expected, distinction


HEX = textwrap.dedent("""
    import string


    def parse(text):
        if not text.startswith("#"):
            raise ValueError("no #")
        if not all(c in string.hexdigits for c in text[1:]):
            raise ValueError("not six hex digits")
        return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)
""")


@pytest.mark.parametrize(("old", "new"), [("text[1:]):", "text[2:]):"),
                                          ("for c in text[1:]", "for c in text[1:-1]")], ids=["first", "last"])
def test_a_weakened_character_check_is_told_apart_by_a_character_the_parse_after_it_still_takes(tmp_path, old, new):
    # `int(' f', 16)`, `int('+f', 16)` and `int('f ', 16)` succeed: the check is all that refused them
    root = make_project(tmp_path / "hex", "hex", HEX, "def test_nothing():\n    pass\n")
    line = next(number for number, text in enumerate(HEX.splitlines(), 1) if "hexdigits" in text)
    mutant = dataclasses.replace(handmade_mutant("src/shop/hex.py", "parse", HEX.replace(old, new)),
                                 line=line, end_line=line, mutated_lines=(line,))
    samples = [probes.CallSample("shop.hex:parse", ("'#ffffff'",))]
    found = probes.search_input(root, mutant, samples, search_budget=50)
    assert found.distinction is not None, found.reason  # (not "likely equivalent")
    assert found.distinction.reference_exception == "ValueError" and found.distinction.mutant_repr is not None


def test_a_character_check_is_reached_through_the_recorded_text_of_its_shape_not_the_first_words_recorded(tmp_path):
    # a colour parser's tests pass a hundred names first; only their `#...` texts reach the check
    root = make_project(tmp_path / "hex", "hex", HEX, "def test_nothing():\n    pass\n")
    line = next(number for number, text in enumerate(HEX.splitlines(), 1) if "hexdigits" in text)
    mutant = dataclasses.replace(handmade_mutant("src/shop/hex.py", "parse", HEX.replace("text[1:]):", "text[2:]):")),
                                 line=line, end_line=line, mutated_lines=(line,))
    words = ["red", "navy", "chucknorris", "Window", "olive", "teal", "maroon", "fuchsia"]
    samples = [probes.CallSample("shop.hex:parse", (repr(text),)) for text in [*words, "#ffffff"]]
    found = probes.search_input(root, mutant, samples, search_budget=0)
    assert found.distinction is not None, found.reason
    assert found.distinction.args_repr[0].startswith("'#") and found.distinction.reference_exception == "ValueError"


MAIL = textwrap.dedent("""
    def valid(address):
        scheme, _, rest = address.partition(":")
        if scheme != "mailto":
            return False
        if not rest or rest.count("@") > 1:
            return False
        user, _, host = rest.rpartition("@")
        return bool(user) and "." in host
""")


@pytest.mark.parametrize(("old", "new", "lines", "budget"), [
    (" or ", " and ", 1, 200),
    ('    if not rest or rest.count("@") > 1:\n        return False\n', "", 2, 8),
], ids=["either-made-both", "early-return-dropped"])
def test_a_check_of_how_many_separators_a_text_holds_is_told_apart_by_a_test_text_with_one_more(tmp_path, old, new,
                                                                                              lines, budget):
    # As validators' `url`: `not value or value.count("@") > 1` made `and`, or its early return dropped, lets a
    # second `@` through, and the tests wrote addresses with one. No edit of the first names a character to put
    # in; the second names `@` as removed, and the texts with it put in first or last (`'@mailto:...'`) tell
    # nothing: with few inputs to spend, the one more `@` takes turns with those.
    root = make_project(tmp_path / "mail", "mail", MAIL, "def test_nothing():\n    pass\n")
    line = next(number for number, text in enumerate(MAIL.splitlines(), 1) if "count" in text)
    mutant = dataclasses.replace(handmade_mutant("src/shop/mail.py", "valid", MAIL.replace(old, new)),
                                 line=line, end_line=line + lines - 1, mutated_lines=(line,) if lines == 1 else ())
    samples = [probes.CallSample("shop.mail:valid", (repr(text),))
               for text in ["mailto:ann@example.com", "mailto:bob@example.org"]]
    found = probes.search_input(root, mutant, samples, search_budget=0, boundary_budget=budget)
    assert found.distinction is not None, found.reason
    assert found.distinction.args_repr[0].count("@") == 2, found.distinction
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("False", "True"), found.distinction


LOGIN = textwrap.dedent("""
    import re


    def _name_pattern():
        return re.compile(r"^[a-z][a-z0-9:." + r"_-]*$")


    def login(value):
        if value.count(":") > 1:
            return bool(_name_pattern().match(value))
        name, _, secret = value.partition(":")
        return bool(_name_pattern().match(name)) and "/" not in secret
""")


def test_a_part_of_a_text_checked_another_way_is_told_apart_by_what_the_pattern_the_code_calls_refuses(tmp_path):
    # As validators' `_validate_auth_segment`: `> 1` made `>= 1` checks `name:secret` whole with the name's pattern,
    # which refuses a secret the code takes (`'ann:h<unter2'`). The mutated line holds no pattern: the one its
    # function calls does, written in two parts neither of which compiles alone.
    root = make_project(tmp_path / "login", "login", LOGIN, "def test_nothing():\n    pass\n")
    line = next(number for number, text in enumerate(LOGIN.splitlines(), 1) if "count" in text)
    mutant = dataclasses.replace(handmade_mutant("src/shop/login.py", "login", LOGIN.replace("> 1", ">= 1")),
                                 line=line, end_line=line, mutated_lines=(line,))
    samples = [probes.CallSample("shop.login:login", (repr(text),)) for text in ["ann:hunter2", "bob:pass.word"]]
    found = probes.search_input(root, mutant, samples, search_budget=0)
    assert found.distinction is not None, found.reason  # (never "likely equivalent")
    text = ast.literal_eval(found.distinction.args_repr[0])
    assert text.count(":") == 1 and text.partition(":")[0] in ("ann", "bob"), found.distinction
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("True", "False"), found.distinction


LINK = textwrap.dedent("""
    import re


    def _fragment_pattern():
        return re.compile(r"[0-9a-z/:@._~-]*")


    def link(text):
        fragment = text.partition("#")[2]
        if fragment:
            return bool(_fragment_pattern().fullmatch(fragment))
        return True
""")


@pytest.mark.parametrize("texts, budget", [
    pytest.param(["www.example.com/a/long/path#top", "docs.example.org/guide/intro#x"], probes.BOUNDARY_BUDGET,
                 id="texts-with-a-fragment"),
    # the tests' texts recorded first are plain addresses of every length, and the one with a fragment comes late:
    # the texts split into the most kinds of part take the refused character too
    pytest.param(["www.example.com", "example.org/a", "x.io", "docs.example.org/guide/intro", "a.b/c/d",
                  "www.a.bc/d.e", "example.com/", "shop.example.com/cart/items",
                  "www.example.com/a/long/path?page=2#top"], 64, id="a-fragment-late"),
    # validators' tests: plain addresses of each length first, then texts that each bring separators the others
    # lack, the one with a fragment bringing the fewest (the fifth to eighth texts taken are tried too)
    pytest.param(["a.com", "bb.com", "ccc.com", "dddd.com", "a-b_c.d/e~f!g$h&i'j(k)l*m+n,o;p=q:r@s.com",
                  "w.com/[a]", "w.com/%5E^", "www.example.com/a/long/path#top"], probes.BOUNDARY_BUDGET,
                 id="a-fragment-among-many-separators"),
])
def test_a_check_of_a_texts_last_part_skipped_is_told_apart_by_a_test_text_ending_in_what_its_pattern_refuses(
        tmp_path, texts, budget):
    # As validators' `_validate_optionals`: `if fragment:` negated skips the fragment's check, and only a character
    # the pattern refuses at the end of a test's text (`'www.example.com/a/long/path#top<'`) shows it
    root = make_project(tmp_path / "link", "link", LINK, "def test_nothing():\n    pass\n")
    line = next(number for number, text in enumerate(LINK.splitlines(), 1) if "if fragment" in text)
    mutant = dataclasses.replace(handmade_mutant("src/shop/link.py", "link", LINK.replace("if fragment:",
                                                                                           "if not fragment:")),
                                 line=line, end_line=line, mutated_lines=(line,))
    samples = [probes.CallSample("shop.link:link", (repr(text),)) for text in texts]
    found = probes.search_input(root, mutant, samples, search_budget=0, boundary_budget=budget)
    assert found.distinction is not None, found.reason  # (never "likely equivalent")
    text = ast.literal_eval(found.distinction.args_repr[0])
    assert text.partition("#")[0] in [t.partition("#")[0] for t in texts if "#" in t], found.distinction
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("False", "True"), found.distinction


ADDRESS = textwrap.dedent("""
    from urllib.parse import urlsplit


    def _known(scheme):
        return (
            scheme in {"http", "https"}
            if scheme
            else False
        )


    def address(text):
        scheme, host, path, _, _ = urlsplit(text)
        return bool(_known(scheme) and host)
""")


def test_a_value_asked_whether_it_is_empty_is_told_apart_by_a_test_text_with_that_part_left_out(tmp_path):
    # As validators' `_validate_scheme`: `else False` made `else True` shows only for an address without a scheme,
    # which no test wrote: `'//example.com/a'`, the tests' `'http://example.com/a'` with its first part left out
    root = make_project(tmp_path / "address", "address", ADDRESS, "def test_nothing():\n    pass\n")
    mutant = mutant_at("src/shop/address.py", "_known", ADDRESS, "else False", "else True")
    samples = [probes.CallSample("shop.address:address", (repr(text),))
               for text in ["http://example.com/a", "https://shop.example.org/cart", "http://a.io"]]
    found = probes.search_input(root, mutant, samples, search_budget=0, symbol="address")
    assert found.distinction is not None, found.reason  # (never "likely equivalent")
    text = ast.literal_eval(found.distinction.args_repr[0])
    assert text.startswith("//") or text.startswith("://"), found.distinction
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("False", "True"), found.distinction


HOST = textwrap.dedent("""
    def _named(value, skip_ipv6):
        return skip_ipv6 or value.count(":") < 2 or not value.startswith("[")


    def host(value, skip_ipv6=False):
        if _named(value, skip_ipv6):
            return "[" not in value and value.replace(".", "").isalnum()
        return value.count(":") > 1 and value.strip("[]").replace(":", "").isalnum()
""")


def test_a_flag_the_mutated_code_reads_is_turned_the_other_way_in_the_tests_calls(tmp_path):
    # As validators' `_confirm_ipv6_skip`: `url` hands `skip_ipv6_addr` down, and `or` made `and` shows only for a
    # bracketed address with the flag given, which no test gave; the edge values went into the first calls only
    root = make_project(tmp_path / "host", "host", HOST, "def test_nothing():\n    pass\n")
    mutant = mutant_at("src/shop/host.py", "_named", HOST, "skip_ipv6 or value", "skip_ipv6 and value")
    texts = [f"shop{n}.example.com" for n in range(30)] + ["[1080::8:800:200C:417A]", "[::1]"]
    samples = [probes.CallSample("shop.host:host", (repr(text),)) for text in texts]
    found = probes.search_input(root, mutant, samples, search_budget=0, symbol="host")
    assert found.distinction is not None, found.reason  # (never "likely equivalent")
    assert found.distinction.origin == "flags", found.distinction
    assert found.distinction.kwargs_repr == (("skip_ipv6", "True"),), found.distinction
    assert ast.literal_eval(found.distinction.args_repr[0]).startswith("["), found.distinction
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("False", "True"), found.distinction


TAGGED = textwrap.dedent("""
    import re


    def _known_tag(tag):
        return re.fullmatch(r"[a-z0-9-]*", tag) is not None


    def address(text):
        host, _, tag = text.partition("#")
        fine = True
        if tag:
            fine = _known_tag(tag)
        return fine and re.fullmatch(r"[a-z.]+", host) is not None
""")


def test_what_a_pattern_refuses_goes_into_texts_the_code_took(tmp_path):
    # As validators' `if fragment:` negated: only a valid address with a refused character in its fragment shows
    # it. The tests' texts of the most kinds and parts were ones the code refuses for their host, which hid it.
    root = make_project(tmp_path / "tagged", "tagged", TAGGED, "def test_nothing():\n    pass\n")
    mutant = mutant_at("src/shop/tagged.py", "address", TAGGED, "if tag:", "if not tag:")
    texts = ["a!b@c$d%e^f&g*h(i)j#x", "1+2=3;4:5", "-x-y_z|w", "~home/~x", "shop.example#top"]
    samples = [probes.CallSample("shop.tagged:address", (repr(text),)) for text in texts]
    found = probes.search_input(root, mutant, samples, search_budget=0, symbol="address")
    assert found.distinction is not None, found.reason  # (never "likely equivalent")
    assert ast.literal_eval(found.distinction.args_repr[0]).startswith("shop.example#"), found.distinction
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("False", "True"), found.distinction


SINGULAR = textwrap.dedent("""\
    def singular(word, count=None):
        if count == 1:
            return word
        if word[-5:] == "quies":
            return word[:-3] + "y"
        if word.endswith("s"):
            return word[:-1]
        return word
""")


def test_the_mutated_lines_own_text_is_tried_before_each_recorded_call_gets_every_constant(tmp_path):
    # As inflect's `_sinoun`: a parametrized test recorded hundreds of words, and a test passed a count. The dropped
    # early return shows only on a word ending in `quies`; the numbers of the line (`-5`, `-3`) fit the count, and
    # they and the tests' words with a letter of `"quies"` put in used to fill the budget, each in every recorded
    # call, before `"quies"` itself was passed once.
    root = make_project(tmp_path / "words", "words", SINGULAR, "def test_nothing():\n    pass\n")
    line = next(number for number, text in enumerate(SINGULAR.splitlines(), 1) if "quies" in text)
    dropped = SINGULAR.replace('    if word[-5:] == "quies":\n        return word[:-3] + "y"\n', "")
    mutant = dataclasses.replace(handmade_mutant("src/shop/words.py", "singular", dropped),
                                 line=line, end_line=line + 1, mutated_lines=())
    samples = [probes.CallSample("shop.words:singular", ("'cats'", "2")),
               *(probes.CallSample("shop.words:singular", (repr(f"word{n}s"), "None")) for n in range(120))]
    found = probes.search_input(root, mutant, samples, search_budget=0)
    assert found.distinction is not None, found.reason
    assert found.distinction.origin == "boundary" and "'quies'" in found.distinction.args_repr, found.distinction
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'quy'", "'quie'")


SIZE = "LIMIT = 100\n\n\ndef is_large(n):\n    return n >= LIMIT\n"

SIZE_TESTS = textwrap.dedent(
    """\
    \"\"\"Tests of is_large; this docstring is not a literal worth trying.\"\"\"
    from shop.size import LIMIT, is_large


    def test_the_limit_is_a_hundred():
        assert LIMIT == 100


    def test_is_large():
        assert is_large(500) and not is_large(-5)
    """
)


def test_literals_in_test_files_are_numbers_strings_and_displays_in_order_without_docstrings():
    source = 'def test_it():\n    """Doc."""\n    assert f(-3, "a", [1, 2], True, None) == (-3, 2.5)\n'
    assert probes.literals_in([source, "def broken(:\n"]) == (-3, "a", [1, 2], 1, 2, (-3, 2.5), 2.5)


def test_test_literal_step_tries_the_values_the_related_tests_write(tmp_path):
    root = make_project(tmp_path / "size", "size", SIZE, SIZE_TESTS)
    mutant = pick(mutate.generate("src/shop/size.py", SIZE)[0], "n > LIMIT")
    recorded = [probes.CallSample("shop.size:is_large", ("500",)), probes.CallSample("shop.size:is_large", ("-5",))]
    # no constant in `n > LIMIT`: only the tests' call with `LIMIT`'s value given for `n`, tried last, ties the two
    # sides of the comparison
    found = probes.find_distinguishing_input(root, mutant, recorded, search_budget=0)
    assert found is not None and found.origin == "designed" and found.args_repr == ("100",), found
    literals = probes.literals_in([(root / "tests" / "test_size.py").read_text()])
    assert literals == (100, 500, -5)
    distinction = probes.find_distinguishing_input(root, mutant, recorded, test_literals=literals, search_budget=0)
    assert distinction is not None and distinction.origin == "test-literal"
    assert (distinction.args_repr, distinction.reference_repr, distinction.mutant_repr) == (("100",), "True", "False")


def test_edge_value_step_finds_the_empty_string_of_the_argument_type(tmp_path):
    source = "def words(text):\n    if not text:\n        return None\n    return text.split()\n"
    root = make_project(tmp_path / "words", "words", source, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/words.py", "words", source.replace("if not text:", "if text is None:"))
    recorded = [probes.CallSample("shop.words:words", ("'a b'",)), probes.CallSample("shop.words:words", ("'c'",))]
    distinction = probes.find_distinguishing_input(root, mutant, recorded, search_budget=0)
    assert distinction is not None and distinction.origin == "edge-value"
    assert (distinction.args_repr, distinction.reference_repr, distinction.mutant_repr) == (("''",), "None", "[]")


def test_edge_values_of_the_first_call_come_before_test_literals_that_would_fill_the_budget(tmp_path):
    source = "def words(text, limit):\n    if not text:\n        return None\n    return text.split()[:limit]\n"
    root = make_project(tmp_path / "words", "words", source, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/words.py", "words", source.replace("if not text:", "if text is None:"))
    recorded = [probes.CallSample("shop.words:words", ("'a b'", str(n))) for n in range(1, 11)]
    many = tuple(f"word {n}" for n in range(50))  # 10 calls x 50 literals: more than the boundary budget
    found = probes.search_input(root, mutant, recorded, test_literals=many, search_budget=0)
    assert found.distinction is not None and found.distinction.origin == "edge-value"
    assert "test-literal" not in dict(found.tried)


DAYS = ("import datetime\n\n\ndef day_after(year, month, day):\n"
        "    return datetime.date(year, month, day) + datetime.timedelta(days=1)\n")


def test_a_value_that_is_not_a_literal_is_compared_and_written_as_its_constructor(tmp_path):
    root = make_project(tmp_path / "days", "days", DAYS, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/days.py", "day_after", DAYS.replace("days=1", "days=2"))
    recorded = [probes.CallSample("shop.days:day_after", ("2000", "1", "1"))]
    distinction = probes.find_distinguishing_input(root, mutant, recorded, search_budget=0)
    assert (distinction.reference_repr, distinction.mutant_repr, distinction.imports) == (
        "datetime.date(2000, 1, 2)", "datetime.date(2000, 1, 3)", ("import datetime",))
    probe = probes.write_probe(mutant, distinction, "shop.days", witness=True)
    assert probe.source.count("import datetime\n") == 1
    assert "    assert day_after(2000, 1, 1) == datetime.date(2000, 1, 2)\n" in probe.source
    check = probes.verify_probe(root, probe, mutant)
    assert check.accepted, check.reason


def test_an_integer_no_float_can_hold_tells_a_broadened_except_apart_and_is_written_as_a_power(tmp_path):
    source = "def half(n):\n    try:\n        return float(n) / 2\n    except (TypeError, ValueError):\n        return None\n"
    root = make_project(tmp_path / "half", "half", source, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/half.py", "half", source.replace("(TypeError, ValueError)", "Exception"))
    recorded = [probes.CallSample("shop.half:half", ("4",))]
    distinction = probes.find_distinguishing_input(root, mutant, recorded, search_budget=0)
    assert (distinction.origin, distinction.reference_exception, distinction.mutant_repr) == (
        "edge-value", "OverflowError", "None")
    probe = probes.write_probe(mutant, distinction, "shop.half", witness=True)
    assert "    with pytest.raises(OverflowError):\n        half(10**400)\n" in probe.source
    assert probes.verify_probe(root, probe, mutant).accepted


#: The demo's module: `clamp` rejects lo above hi.
DEMO_CORE = Path(__file__).resolve().parents[2] / "fixtures/projects/batching/demo/src/batching/core.py"


def test_a_huge_value_that_told_the_two_apart_gives_way_to_the_smallest_that_still_does(tmp_path):
    source = DEMO_CORE.read_text()
    root = make_project(tmp_path / "clamp", "clamp", source, "def test_nothing():\n    pass\n")
    guard = '    if hi is not None and lo > hi:\n        raise ValueError("lo must not exceed hi")\n'
    assert guard in source
    mutant = handmade_mutant("src/shop/clamp.py", "clamp", source.replace(guard, ""))
    recorded = [probes.CallSample("shop.clamp:clamp", ("15", "0", "10"))]
    distinction = probes.find_distinguishing_input(root, mutant, recorded, search_budget=0)
    # Of the edge values only 10**400 puts lo above hi; the witness says it with 11, one past hi.
    assert (distinction.args_repr, distinction.reference_exception, distinction.mutant_repr) == (
        ("15", "11", "10"), "ValueError", "10")
    probe = probes.write_probe(mutant, distinction, "shop.clamp", witness=True)
    assert "clamp(15, 11, 10)" in probe.source and "10**400" not in probe.source
    assert probes.verify_probe(root, probe, mutant).accepted


def test_inputs_that_never_run_the_mutated_line_prove_nothing_so_nothing_is_claimed_equivalent(tmp_path):
    import dataclasses

    source = "def rarity(n):\n    if n > 10**9 and n % 7 == 3:\n        return 'rare'\n    return 'common'\n"
    root = make_project(tmp_path / "rare", "rare", source, "def test_nothing():\n    pass\n")
    mutant = dataclasses.replace(handmade_mutant("src/shop/rare.py", "rarity", source.replace("'rare'", "'Rare'")),
                                 mutated_lines=(3,))
    found = probes.search_input(root, mutant, [probes.CallSample("shop.rare:rarity", ("5",))], search_budget=0)
    assert found.distinction is None and not found.searched and found.inputs > 0
    assert found.reason == "no call of `rarity` ran the mutated line(s) 3" and found.reached == 0
    reached = dataclasses.replace(mutant, mutated_lines=(4,))  # the common line: every call runs it
    found = probes.search_input(root, reached, [probes.CallSample("shop.rare:rarity", ("5",))], search_budget=0)
    assert found.searched and found.reached is not None and found.reached > 0



def test_a_dropped_guard_is_reached_only_when_its_body_runs_in_the_code(tmp_path):
    source = "def fee(n):\n    if str(n).endswith('42'):\n        return n\n    return n + 1\n"
    root = make_project(tmp_path / "fee", "fee", source, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/fee.py", "fee", "def fee(n):\n    return n + 1\n")
    found = probes.search_input(root, mutant, [probes.CallSample("shop.fee:fee", ("5",))], search_budget=0)
    assert not found.searched and found.reason == "no call of `fee` ran the code the mutant drops (line(s) 3)"
    found = probes.search_input(root, mutant, [probes.CallSample("shop.fee:fee", ("142",))], search_budget=0)
    assert found.distinction is not None and found.distinction.args_repr == ("142",)


def test_a_rule_of_a_regex_table_is_told_apart_by_a_word_the_rule_matches(tmp_path):
    import dataclasses

    source = textwrap.dedent('''\
        import re

        RULES = [
            (r"(?i)(quiz)$", r"\\1zes"),
            (r"(?i)(x|ch|ss|sh)$", r"\\1es"),
            (r"$", "s"),
        ]


        def pluralize(word):
            for rule, replacement in RULES:
                if re.search(rule, word):
                    return re.sub(rule, replacement, word)
            return word
    ''')
    root = make_project(tmp_path / "plural", "plural", source, "def test_nothing():\n    pass\n")
    mutated = source.replace("(x|ch|ss|sh)$", "(x|ch|ss)$")  # `dish` no longer becomes `dishes`
    mutant = dataclasses.replace(handmade_mutant("src/shop/plural.py", "pluralize", mutated),
                                 line=5, end_line=5, mutated_lines=(5,))
    # the tests pluralized `cat` only, and no edge value ends in `sh`: only the rule's own words tell it apart
    found = probes.search_input(root, mutant, [probes.CallSample("shop.plural:pluralize", ("'cat'",))],
                                search_budget=0)
    assert found.distinction is not None and found.distinction.origin == "designed"
    [word] = (eval(text) for text in found.distinction.args_repr)
    assert word.endswith("sh")
    assert found.distinction.reference_repr == repr(word + "es")
    assert probes._matching(r"(?i)(analy|ba|the)(sis|ses)$") == ["analysis", "bases", "theses"]
    assert probes._matching(r"(?i)([^aeiouy]|qu)y$") == ["by", "quy"]
    assert probes._matching(r"(unbalanced") == []


def test_a_repeat_made_optional_is_told_apart_by_the_shortest_word_the_mutated_pattern_matches(tmp_path):
    # titlecase's `MAC_MC`: `(\w.+)` made `(\w.*)` now takes `"Mca"`, which the code leaves as it is; a word
    # rendered with each repeat taken once (`"Mcaa"`) is matched by both patterns alike
    source = textwrap.dedent('''\
        import re

        MAC = re.compile(r"^(Mc)(\\w.+)")


        def cap(word, hook=None):
            found = MAC.match(word)
            return found.group(1) + found.group(2).capitalize() if found else (hook or str.capitalize)(word)
    ''')
    root = make_project(tmp_path / "mac", "mac", source, "def test_nothing():\n    pass\n")
    mutant = dataclasses.replace(handmade_mutant("src/shop/mac.py", "cap", source.replace(r"(\w.+)", r"(\w.*)")),
                                 line=3, end_line=3, mutated_lines=(3,))
    for words in (["Mcdonald"], [f"word{n}" for n in range(150)]):
        # (with a hundred and fifty recorded calls, the patterns of the line itself, passed as the `hook` of each,
        # used to spend the budget before any designed word was passed)
        samples = [probes.CallSample("shop.mac:cap", (repr(word), "None")) for word in words]
        found = probes.search_input(root, mutant, samples, search_budget=0)
        assert found.distinction is not None and found.distinction.origin == "designed", found.reason
        assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'Mca'", "'McA'"), found
    assert probes._matching(r"a(b)?c\d+") == ["abc1", "ac1", "abc12"]


SIGNED = textwrap.dedent('''\
    import re

    SIGNED = re.compile(r"\\s*" + r"(?P<sign>[+-])?" + r"\\s*(?P<rest>.*)$")


    def minutes(text):
        found = SIGNED.match(text)
        sign = -1 if found.group("sign") == "-" else 1
        rest = found.group("rest")
        return sign * int(rest[:-1]) if rest.endswith("m") and rest[:-1].isdigit() else None
''')


def test_a_class_of_characters_dropped_from_a_pattern_is_told_apart_by_the_tests_texts_with_one_of_them_put_in(
        tmp_path):
    # pytimeparse's `COMPILED_SIGN` with its leading `\s*` made `r''`: `' -32m'` is -32 with the code and None with
    # the mutant (the space is taken for the sign's place, the sign for the rest). The tests wrote `'-32m'`; the
    # characters the edit removed were read as `s`, never as the space `\s` stands for.
    root = make_project(tmp_path / "signed", "signed", SIGNED, "def test_nothing():\n    pass\n")
    mutant = dataclasses.replace(handmade_mutant("src/shop/signed.py", "minutes",
                                                 SIGNED.replace('(r"\\s*" + r"(?P', '(r"" + r"(?P')),
                                 line=3, end_line=3, mutated_lines=(3,))
    assert mutant.mutated_source != SIGNED
    samples = [probes.CallSample("shop.signed:minutes", (repr(text),)) for text in ["-32m", "+5m", "7m", "- 2m"]]
    found = probes.search_input(root, mutant, samples, search_budget=0)
    assert found.distinction is not None, found  # (never "likely equivalent")
    assert ast.literal_eval(found.distinction.args_repr[0])[:1].isspace(), found.distinction
    assert found.distinction.mutant_repr == "None", found.distinction


TITLE = textwrap.dedent("""\
    import re

    INITIAL = re.compile(r"^[A-Z]\\.$")
    SMALL = ("a.", "v.", "and")


    def title(line):
        all_caps = line.upper() == line
        words = line.split(" ")
        out = []
        for index, word in enumerate(words):
            if all_caps and INITIAL.match(word):
                out.append(word)
            elif 0 < index < len(words) - 1 and word.lower() in SMALL:
                out.append(word.lower())
            else:
                out.append(word.capitalize())
        return " ".join(out)
""")


def test_code_that_looks_at_the_case_of_its_text_is_given_the_tests_texts_in_capitals(tmp_path):
    # titlecase's `if all_caps:` made `if not all_caps:`: only a line in capitals with an initial inside it
    # shows it (`"THIS V. THAT"`), and the tests wrote theirs in lower case
    root = make_project(tmp_path / "title", "title", TITLE, "def test_nothing():\n    pass\n")
    line = next(number for number, text in enumerate(TITLE.splitlines(), 1) if "if all_caps and" in text)
    mutant = dataclasses.replace(
        handmade_mutant("src/shop/title.py", "title", TITLE.replace("if all_caps and", "if not all_caps and")),
        line=line, end_line=line, mutated_lines=(line,))
    found = probes.search_input(root, mutant, [probes.CallSample("shop.title:title", ("'this v. that'",))])
    assert found.distinction is not None, found.reason
    assert found.distinction.args_repr == ("'THIS V. THAT'",) and found.distinction.origin == "designed"
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'This V. That'", "'This v. That'")


def test_a_result_no_text_rebuilds_is_compared_by_its_attributes_else_its_text(tmp_path):
    import dataclasses

    source = textwrap.dedent('''\
        from decimal import Decimal


        class Span:
            def __init__(self, years, months):
                self.years = Decimal(years)
                self.months = Decimal(months)

            def __repr__(self):  # loses the fraction: no text rebuilds an equal value
                return f"Span({int(self.years)}, {int(self.months)})"

            def __eq__(self, other):
                return vars(self) == vars(other)


        class Label:
            def __init__(self, text):
                self._text = text

            def __str__(self):
                return f"label {self._text}"


        def span(text):
            years, _, months = text.partition("y")
            return Span(years.replace(",", "."), months or "0")


        def label(text):
            return Label(text.upper())


        def note(text):
            found = Label(text.upper())
            found._source = text
            return found
    ''')
    root = make_project(tmp_path / "span", "span", source, "def test_nothing():\n    pass\n")

    def on_its_line(symbol: str, old: str, new: str) -> mutate.Mutant:
        line = next(number for number, text in enumerate(source.splitlines(), 1) if old in text)
        return dataclasses.replace(handmade_mutant("src/shop/span.py", symbol, source.replace(old, new)),
                                   line=line, end_line=line, mutated_lines=(line,))

    mutant = on_its_line("span", 'years.replace(",", ".")', "years")
    found = probes.search_input(root, mutant, [probes.CallSample("shop.span:span", ("'1,5y'",))], search_budget=0)
    assert found.distinction is not None and found.distinction.view == "vars"
    assert found.distinction.reference_repr == "{'years': Decimal('1.5'), 'months': Decimal('0')}"
    probe = probes.write_probe(mutant, found.distinction, "shop.span", witness=True)
    assert "    assert vars(span('1,5y')) == {'years': Decimal('1.5'), 'months': Decimal('0')}\n" in probe.source
    assert probe.input_repr == "vars(span('1,5y'))"
    assert probes.verify_probe(root, probe, mutant).accepted  # passes on the code, fails on the mutant
    # private attributes only, but a text of its own: compared by `str()`
    shouted = on_its_line("label", "Label(text.upper())", "Label(text)")
    found = probes.search_input(root, shouted, [probes.CallSample("shop.span:label", ("'ab'",))], search_budget=0)
    assert found.distinction is not None and found.distinction.view == "str"
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'label AB'", "'label ab'")
    # agreeing text is weaker than equal values where something lies beneath it: no claim rests on it
    hidden = on_its_line("note", "found._source = text", "found._source = text.lower()")
    found = probes.search_input(root, hidden, [probes.CallSample("shop.span:note", ("'Ab'",))], search_budget=5)
    assert found.distinction is None and not found.searched
    assert "results that agree only in their attributes or text" in found.reason
    # ... where all each result holds agrees, down to its private attributes, the two agree as values do
    same = on_its_line("span", 'months or "0"', 'months or "00"')  # (`Decimal('00')` is `Decimal('0')`)
    found = probes.search_input(root, same, [probes.CallSample("shop.span:span", ("'1,5y'",))], search_budget=5)
    assert found.distinction is None and found.searched and found.reached, found


def test_inputs_whose_results_cannot_be_compared_are_counted_once_each_however_many_ways(tmp_path):
    # parse's searches said "for 740 of 664 inputs": a method's call whose result agrees only in its attributes
    # and whose instance agrees only in its text was counted once for each
    import dataclasses

    source = textwrap.dedent('''\
        class Result:
            def __init__(self, fields):
                self.fields = fields
                self._made = object()  # (beneath its text, something no state is read from)

            def __str__(self):
                return f"result {self.fields}"


        class Parser:
            def __init__(self, sep):
                self._sep = sep

            def __str__(self):
                return f"parser {self._sep}"

            def parse(self, text):
                return Result(text.split(self._sep))
    ''')
    root = make_project(tmp_path / "parsing", "parsing", source, "def test_nothing():\n    pass\n")
    line = next(number for number, text in enumerate(source.splitlines(), 1) if "text.split(" in text)
    mutant = dataclasses.replace(handmade_mutant("src/shop/parsing.py", "Parser.parse", source.replace(
        "text.split(self._sep)", "text.split(self._sep, -1)")), line=line, end_line=line, mutated_lines=(line,))
    calls = [probes.CallSample("shop.parsing:Parser.parse", (repr(text),), receiver=callrecord.Receiver(("','",)))
             for text in ("a,b", "c", "d,e,f")]
    found = probes.search_input(root, mutant, calls, search_budget=5)
    assert found.distinction is None and not found.searched
    assert "results that agree only in their attributes or text" in found.reason
    assert "receivers that agree only in their text" in found.reason
    counted, tried = map(int, re.search(r"for (\d+) of (\d+) inputs", found.reason).groups())
    assert 3 <= counted <= tried


def test_a_regex_match_is_compared_by_what_it_matched_where_and_each_group(tmp_path):
    import dataclasses

    source = 'import re\n\nPAIR = re.compile(r"(\\d+)-(\\d+)")\n\n\ndef pair(text):\n    return PAIR.match(text)\n'
    root = make_project(tmp_path / "pair", "pair", source, "def test_nothing():\n    pass\n")
    # the same whole match and span (all `str()` of a match shows), another second group
    mutant = dataclasses.replace(handmade_mutant("src/shop/pair.py", "<module>",
                                                 source.replace("-(\\d+)", "-(\\d)+")), line=3, end_line=3,
                                 mutated_lines=(3,))
    found = probes.search_input(root, mutant, [probes.CallSample("shop.pair:pair", ("'12-34'",))],
                                search_budget=0, symbol="pair")
    assert found.distinction is not None and found.distinction.view == "match"
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == (
        "('12-34', (0, 5), ('12', '34'), {})", "('12-34', (0, 5), ('12', '4'), {})")
    probe = probes.write_probe(mutant, found.distinction, "shop.pair", function="pair", witness=True)
    assert ("    found = pair('12-34')\n    expected = ('12-34', (0, 5), ('12', '34'), {})\n"
            "    assert (found.group(0), found.span(), found.groups(), found.groupdict()) == expected\n"
            ) in probe.source
    assert probe.input_repr == "pair('12-34')"
    assert probes.verify_probe(root, probe, mutant).accepted  # passes on the code, fails on the mutant


def test_a_character_the_mutated_line_names_is_put_in_place_of_another_it_names(tmp_path):
    import dataclasses

    source = "def amount(text):\n    return float(text.replace(',', '.'))\n"
    root = make_project(tmp_path / "amount", "amount", source, "def test_nothing():\n    pass\n")
    mutant = dataclasses.replace(handmade_mutant("src/shop/amount.py", "amount",
                                                 source.replace("text.replace(',', '.')", "text")),
                                 mutated_lines=(2,))
    found = probes.search_input(root, mutant, [probes.CallSample("shop.amount:amount", ("'1.5'",))],
                                search_budget=0)
    assert found.distinction is not None and found.distinction.args_repr == ("'1,5'",)
    assert (found.distinction.reference_repr, found.distinction.mutant_exception) == ("1.5", "ValueError")


def test_a_dropped_anchor_is_told_apart_by_a_match_with_a_character_after_it(tmp_path):
    import dataclasses

    source = 'import re\n\nPATTERN = re.compile(r"^[a-z0-9_-]+$")\n\n\ndef valid(tag):\n' \
             '    return PATTERN.match(tag) is not None\n'
    root = make_project(tmp_path / "tags", "tags", source, "def test_nothing():\n    pass\n")
    mutant = dataclasses.replace(handmade_mutant("src/shop/tags.py", "PATTERN", source.replace("+$", "+")),
                                 line=3, end_line=3, mutated_lines=(3,))
    found = probes.search_input(root, mutant, [probes.CallSample("shop.tags:valid", ("'alpha'",))],
                                search_budget=0, symbol="valid")
    # (what the pattern matches, then a character: one it refuses, after the tests' text, or `!` after its own)
    assert found.distinction is not None and (found.distinction.origin, found.distinction.args_repr) in (
        ("designed", ("'a!'",)), ("boundary", ("'alpha<'",))), found.distinction


def test_a_skipped_rule_of_a_table_built_at_import_is_told_apart_by_a_word_that_rule_matches(tmp_path):
    import dataclasses

    source = textwrap.dedent('''\
        import re

        RULES = [(r"(?i)s$", "")]


        def _irregular(singular, plural):
            RULES.insert(0, ("(?i)(" + plural[0] + ")" + plural[1:] + "$", r"\\1" + singular[1:]))


        def singularize(word):
            for rule, replacement in RULES:
                if re.search(rule, word):
                    return re.sub(rule, replacement, word)
            return word


        _irregular("zombie", "zombies")
        _irregular("person", "people")
    ''')
    root = make_project(tmp_path / "single", "single", source, "def test_nothing():\n    pass\n")
    line = source.splitlines().index("    for rule, replacement in RULES:") + 1
    mutant = dataclasses.replace(
        handmade_mutant("src/shop/single.py", "singularize", source.replace("in RULES:", "in RULES[1:]:")),
        line=line, end_line=line, mutated_lines=(line,))
    # Only the running module knows the first rule (`people`, inserted last); the tests singularized `cats`.
    found = probes.search_input(root, mutant, [probes.CallSample("shop.single:singularize", ("'cats'",))],
                                search_budget=0)
    assert found.distinction is not None and found.distinction.origin == "designed"
    assert found.distinction.args_repr == ("'people'",)
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'person'", "'people'")


def test_a_blanked_ending_of_a_stem_table_row_is_told_apart_by_two_words_the_row_relates(tmp_path):
    import dataclasses

    source = textwrap.dedent('''\
        import re

        # (unpacked: table builders return several; a long pattern, built at import: real tables run to
        # hundreds of characters)
        (A_AE, EN_INA) = ("(?:formul|nebul)", "(?:stam|lum|" + "|".join("q%dz" % n for n in range(80)) + ")")


        def _related(pair, stems, end1, end2):
            return bool(re.search(rf"({stems})({end1}\\|\\1{end2}|{end2}\\|\\1{end1})", pair))


        def both_plural(word1, word2):
            rows = (
                (A_AE, "as", "ae"),
                (EN_INA, "ens", "ina"),
            )
            pair = word1 + "|" + word2
            return any(_related(pair, stems, end1, end2) for stems, end1, end2 in rows)
    ''')
    root = make_project(tmp_path / "rows", "rows", source, "def test_nothing():\n    pass\n")
    line = source.splitlines().index('        (EN_INA, "ens", "ina"),') + 1
    mutant = dataclasses.replace(
        handmade_mutant("src/shop/rows.py", "both_plural", source.replace('"ens", "ina"', '"", "ina"')),
        line=line, end_line=line, mutated_lines=(line,))
    # The tests compared `cats` with `dogs`; one word of the row alone, or an edge value, shows nothing: the
    # blanked ending shows on the row's stem beside its other ending.
    found = probes.search_input(root, mutant, [probes.CallSample("shop.rows:both_plural", ("'cats'", "'dogs'"))],
                                search_budget=0)
    assert found.distinction is not None and found.distinction.origin == "designed"
    assert found.distinction.args_repr == ("'stam'", "'stamina'")
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("False", "True")


def test_a_cut_one_place_early_is_told_apart_by_a_text_just_past_the_size_bound(tmp_path):
    source = ("def hexes(text):\n    if len(text) > 12:\n        text = text[:12]\n"
              "    return text.count('f')\n")
    root = make_project(tmp_path / "cut", "cut", source, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/cut.py", "hexes", source.replace("text[:12]", "text[:11]"))
    mutant = __import__("dataclasses").replace(mutant, line=3, end_line=3, mutated_lines=(3,))
    # the tests only counted in a short text: the cut shows on the character at the bound
    found = probes.search_input(root, mutant, [probes.CallSample("shop.cut:hexes", ("'abc'",))], search_budget=0)
    assert found.distinction is not None and found.distinction.origin == "designed"
    assert found.distinction.args_repr == (repr("0" * 11 + "f" + "00"),)
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("1", "0")
    # a character a parser widens shows inside text too (its neighbours move with it)
    assert probes._in_text(["\uffff"]) == ["\uffff", "\ufffffff", "f\uffffff"]


def test_module_data_left_the_same_by_the_import_proves_equivalence_and_data_left_changed_forbids_it(tmp_path):
    import dataclasses

    source = ("SIZE = 2 * 2\nSPARE = 3\n\n\ndef area(n):\n    if n == 123456789:\n        return SPARE\n"
              "    return n * SIZE\n")
    root = make_project(tmp_path / "data", "data", source, "def test_nothing():\n    pass\n")
    sample = [probes.CallSample("shop.data:area", ("5",))]
    same = dataclasses.replace(handmade_mutant("src/shop/data.py", "<module>", source.replace("2 * 2", "2 + 2")),
                               line=1, end_line=1, mutated_lines=(1,))
    found = probes.search_input(root, same, sample, search_budget=0, symbol="area", data=["SIZE"],
                                state=["SIZE", "SPARE"])
    assert found.distinction is None and found.searched and found.inputs == 0  # nothing to try: it is proven
    assert found.proof == ("the module holds the same data after its import with and without the mutant "
                           "(`SIZE`, `SPARE`), and the mutated code runs only while it imports")
    # SPARE = 4 shows only on an input nobody tries: the data differs, so no equivalence is claimed
    hidden = dataclasses.replace(handmade_mutant("src/shop/data.py", "<module>", source.replace("= 3", "= 4")),
                                 line=2, end_line=2, mutated_lines=(2,))
    found = probes.search_input(root, hidden, sample, search_budget=0, symbol="area", data=["SPARE"],
                                state=["SIZE", "SPARE"], reads=[7])
    assert found.distinction is None and not found.searched and found.proof is None and found.inputs > 0
    assert found.reason == ("the module's data differs after its import with the mutant (`SPARE`), but no call of "
                            "`area` read `SPARE` (line(s) 7)") and found.reached == 0
    # counting the import every call shares as reaching it, the same search would have called it likely equivalent
    assert probes.search_input(root, hidden, sample, search_budget=0, symbol="area").searched
    # a call that reads the table reaches the mutant, and tells it apart
    found = probes.search_input(root, hidden, [probes.CallSample("shop.data:area", ("123456789",))],
                                search_budget=0, symbol="area", data=["SPARE"], state=["SIZE", "SPARE"], reads=[7])
    assert found.distinction is not None and found.distinction.args_repr == ("123456789",)


def test_a_search_cut_short_by_its_time_claims_no_equivalence(tmp_path):
    source = "import time\n\n\ndef double(n):\n    time.sleep(0.2)\n    return n * 2\n"
    root = make_project(tmp_path / "slow", "slow", source, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/slow.py", "double", source.replace("n * 2", "n + n"))
    samples = [probes.CallSample("shop.slow:double", ("2",))]
    found = probes.search_input(root, mutant, samples, search_budget=50, time_budget=1.5)
    assert found.distinction is None and not found.searched and 0 < found.inputs < 50
    assert found.reason.startswith(f"the search through `double` ran out of its 1.5 s after {found.inputs} input(s)")
    # with the time to finish, the same search is complete, and backs the claim
    assert probes.search_input(root, mutant, samples, search_budget=3, boundary_budget=3, time_budget=60).searched


SECONDS = textwrap.dedent("""
    def seconds(text):
        whole, _, extra = text.partition("+")
        return int(float(whole)) + (int(extra, 10) if extra else 0)
""")


def test_an_edit_in_a_branch_its_line_did_not_take_backs_no_claim(tmp_path):
    # As pytimeparse's `(int(mdict['secs'], 10) if mdict['secs'] else 0)` made `(mdict['secs'] if ... else 0)`:
    # every call ran the line, none with seconds, so none evaluated the edited branch (`'1.5+30'` raises
    # `TypeError` with the mutant). Their agreement once made it "likely equivalent".
    root = make_project(tmp_path / "clock", "clock", SECONDS, "def test_nothing():\n    pass\n")
    mutant = mutant_at("src/shop/clock.py", "seconds", SECONDS, "int(extra, 10) if", "extra if")
    samples = [probes.CallSample("shop.clock:seconds", (repr(text),)) for text in ["1.5", "2", "3.25", "10", "0.5"]]
    found = probes.search_input(root, mutant, samples, search_budget=0, boundary_budget=0, symbol="seconds")
    assert found.distinction is None and not found.searched, found  # (a gap, never "likely equivalent")
    assert found.reason == "no call of `seconds` evaluated `extra` at line 4, the part of the line the mutant changes"
    # a call with seconds evaluates it, and tells the two apart
    found = probes.search_input(root, mutant, [*samples, probes.CallSample("shop.clock:seconds", ("'1.5+30'",))],
                                search_budget=0, boundary_budget=0, symbol="seconds")
    assert found.distinction is not None and found.distinction.args_repr == ("'1.5+30'",), found
    assert (found.distinction.reference_repr, found.distinction.mutant_exception) == ("31", "TypeError"), found


def test_a_code_point_bound_is_told_apart_by_the_character_at_it(tmp_path):
    import dataclasses

    source = ("def width(char):\n    code = ord(char)\n    if code < 32 or 0x7F <= code < 0xA0:\n"
              "        return -1\n    return 1\n")
    root = make_project(tmp_path / "width", "width", source, "def test_nothing():\n    pass\n")
    mutant = dataclasses.replace(handmade_mutant("src/shop/width.py", "width",
                                                 source.replace("0x7F <= code", "0x7F < code")),
                                 line=3, end_line=3, mutated_lines=(3,))
    found = probes.search_input(root, mutant, [probes.CallSample("shop.width:width", ("'a'",))], search_budget=0)
    assert found.distinction is not None and found.distinction.origin == "designed"
    assert found.distinction.args_repr == ("'\\x7f'",)
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("-1", "1")


def test_a_bisection_guard_is_told_apart_by_the_character_at_the_end_of_the_range_table(tmp_path):
    import dataclasses

    source = textwrap.dedent('''\
        from shop.tables import ZERO


        def _bisearch(ucs, table):
            if ucs < table[0][0] or ucs > table[-1][1]:
                return 0
            for start, end in table:
                if start <= ucs <= end:
                    return 1
            return 0


        def width(char):
            return 0 if _bisearch(ord(char), ZERO) else 1
    ''')
    root = make_project(tmp_path / "width", "width", source, "def test_nothing():\n    pass\n")
    # the range table lives in another module, as wcwidth's do: only the running module holds its ends
    (root / "src" / "shop" / "tables.py").write_text("ZERO = ((0x0300, 0x036F), (0x0483, 0x0489))\n")
    mutant = dataclasses.replace(handmade_mutant("src/shop/width.py", "_bisearch",
                                                 source.replace("ucs < table[0][0]", "ucs <= table[0][0]")),
                                 line=5, end_line=5, mutated_lines=(5,))
    found = probes.search_input(root, mutant, [probes.CallSample("shop.width:width", ("'a'",))],
                                search_budget=0, symbol="width")
    assert found.distinction is not None and found.distinction.origin == "designed"
    assert found.distinction.args_repr == (repr("\u0300"),)  # the first range's start
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("0", "1")


def test_hypothesis_keeps_its_caches_in_elenchus_cache_directory_not_in_a_run_or_the_repository(tmp_path):
    from elenchus import records

    source = "def twice(n):\n    return n * 2\n"
    root = make_project(tmp_path / "twice", "twice", source, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/twice.py", "twice", source.replace("n * 2", "n + n"))
    probes.search_input(root, mutant, [], search_budget=5)  # (generated inputs: Hypothesis ran)
    from hypothesis.configuration import storage_directory

    # Rebuilt in each search process (a run's private temporary directory), they took 3 s of a 5 s search.
    found = storage_directory()
    assert Path(getattr(found, "path", found)) == records.hypothesis_home()  # (a Path before Hypothesis 6.1xx)


def test_the_commands_import_hypothesis_only_where_a_search_generates_inputs():
    import subprocess
    import sys

    # 0.3 s of CPU in every evaluation's own process, which never generates an input itself
    code = "import sys, elenchus.analysis.witness, elenchus.modes.evaluate; print('hypothesis' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_module_level_lines_ran_at_import_count_as_reached_by_every_call(tmp_path):
    import dataclasses

    source = "SPARE = 3\n\n\ndef twice(n):\n    return n * 2\n"
    root = make_project(tmp_path / "spare", "spare", source, "def test_nothing():\n    pass\n")
    mutant = dataclasses.replace(handmade_mutant("src/shop/spare.py", "twice", source.replace("= 3", "= 4")),
                                 mutated_lines=(1,))
    found = probes.search_input(root, mutant, [probes.CallSample("shop.spare:twice", ("5",))], search_budget=5)
    assert found.distinction is None and found.searched  # compared on inputs that ran with the change in place


def test_a_small_integer_constant_is_also_tried_as_the_magnitude_it_may_be_the_exponent_of(tmp_path):
    import dataclasses

    source = ("import math\n\n\ndef unit(x):\n    exponent = int(math.log10(abs(x))) if x else 0\n"
              "    if exponent >= 6:\n        return 'M'\n    return ''\n")
    root = make_project(tmp_path / "unit", "unit", source, "def test_nothing():\n    pass\n")
    mutant = dataclasses.replace(handmade_mutant("src/shop/unit.py", "unit", source.replace(">= 6", "> 6")),
                                 line=6, end_line=6)
    found = probes.search_input(root, mutant, [probes.CallSample("shop.unit:unit", ("5.0",))], search_budget=0)
    assert found.distinction is not None and found.distinction.origin == "boundary"
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'M'", "''")


def test_results_that_cannot_be_written_are_not_compared_so_nothing_is_claimed_equivalent(tmp_path):
    # A private attribute and no text of its own: nothing a test could assert about the result.
    source = "class Box:\n    def __init__(self, n):\n        self._n = n\n\n\ndef boxed(n):\n    return Box(n + 1)\n"
    root = make_project(tmp_path / "box", "box", source, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/box.py", "boxed", source.replace("n + 1", "n + 2"))
    recorded = [probes.CallSample("shop.box:boxed", ("1",))]
    found = probes.search_input(root, mutant, recorded, search_budget=20)
    assert found.distinction is None and not found.searched and found.inputs > 0
    assert found.reason.startswith("`boxed` gave results a test cannot write down or compare (`Box`) for ")
    assert found.reason.endswith("proves nothing, so the mutant is not called equivalent"), found.reason
    # with a public attribute, a test can assert it: `vars(boxed(1)) == {'n': 2}` tells the two apart
    public = make_project(tmp_path / "public", "box", source.replace("_n", "n"), "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/box.py", "boxed", source.replace("_n", "n").replace("n + 1", "n + 2"))
    found = probes.search_input(public, mutant, recorded, search_budget=20)
    assert found.distinction is not None and found.distinction.view == "vars"
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("{'n': 2}", "{'n': 3}")


def test_a_list_of_objects_is_not_mistaken_for_a_literal_that_is_only_too_long(tmp_path):
    source = "class Box:\n    def __init__(self, n):\n        self.n = n\n\n\ndef boxes(n):\n    return [Box(n)]\n"
    root = make_project(tmp_path / "box", "box", source, "def test_nothing():\n    pass\n")
    # (a list on both sides: where one side gave None or raised, `boxes(x) is not None` would tell them apart)
    mutant = handmade_mutant("src/shop/box.py", "boxes", source.replace("Box(n)]", "Box(n), Box(n)]"))
    found = probes.search_input(root, mutant, [probes.CallSample("shop.box:boxes", ("1",))], search_budget=5)
    assert found.distinction is None and not found.searched and "(`list`)" in found.reason


def test_equal_values_that_print_differently_are_neither_told_apart_nor_called_equivalent(tmp_path):
    source = "import datetime\n\n\ndef zone(hours):\n    return datetime.timezone(datetime.timedelta(hours=hours))\n"
    root = make_project(tmp_path / "zone", "zone", source, "def test_nothing():\n    pass\n")
    renamed = source.replace("timedelta(hours=hours))", "timedelta(hours=hours), 'Zone')")
    mutant = handmade_mutant("src/shop/zone.py", "zone", renamed)  # same offset, another name: == holds
    recorded = [probes.CallSample("shop.zone:zone", ("1",))]
    found = probes.search_input(root, mutant, recorded, search_budget=10)
    assert found.distinction is None  # `==` holds: no test comparing results can tell them apart
    assert not found.searched and "values equal under `==` that print differently" in found.reason  # nor equivalent


VERSIONS = textwrap.dedent(
    """\
    class Version:
        def __init__(self, major, minor):
            self.major, self.minor = major, minor

        def __eq__(self, other):
            return str(self) == str(other)

        def __str__(self):
            return f"{self.major}.{self.minor}"

        def __repr__(self):
            return f"Version({self.major}, {self.minor})"


    def bumped(text):
        major, minor = text.split(".")
        return str(Version(int(major) + 1, int(minor)))
    """)


def test_text_equal_under_eq_to_an_object_the_mutant_returns_is_told_apart_by_its_type(tmp_path):
    # As semver's `replace`: `str(...)` dropped, the mutant returns the `Version` itself, equal to the text
    # under its `==`; every caller that uses the result as text breaks, and `type(f(x)) is str` shows it.
    tests = "from shop.versions import bumped\n\n\ndef test_bumped():\n    assert bumped('1.2') == '2.2'\n"
    root = make_project(tmp_path / "versions", "versions", VERSIONS, tests)
    samples = probes.record_calls(root, ["tests"], [("shop.versions", "bumped")])
    mutant = handmade_mutant("src/shop/versions.py", "bumped", VERSIONS.replace(
        "return str(Version(int(major) + 1, int(minor)))", "return Version(int(major) + 1, int(minor))"))
    found = probes.search_input(root, mutant, samples["shop.versions:bumped"], search_budget=20)
    assert found.distinction is not None, found.reason
    assert found.distinction.typed == "str"
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'2.2'", "Version(2, 2)")
    probe = probes.write_probe(mutant, found.distinction, "shop.versions", witness=True)
    assert "    assert type(bumped('1.2')) is str\n" in probe.source, probe.source
    assert "equal to it under `==` but not a `str`" in probe.source
    assert probes.verify_probe(root, probe, mutant).accepted  # passes on the code, fails on the mutant


QUANTITY = textwrap.dedent(
    """\
    class QuantityError(ValueError):
        pass


    def parse_quantity(text):
        quantity = int(text)
        if quantity < 0:
            raise QuantityError(text)
        return quantity
    """
)


def test_probe_for_a_dropped_guard_expects_the_reference_exception(tmp_path):
    root = make_project(tmp_path / "qty", "qty", QUANTITY, "def test_nothing():\n    pass\n")
    mutants, _ = mutate.generate("src/shop/qty.py", QUANTITY)
    [mutant] = [m for m in mutants if m.family == "dropped-guard"]
    samples = [probes.CallSample("shop.qty:parse_quantity", ("'7'",)),
               probes.CallSample("shop.qty:parse_quantity", ("'-3'",))]
    distinction = probes.find_distinguishing_input(root, mutant, samples, search_budget=0)
    assert (distinction.args_repr, distinction.reference_exception, distinction.mutant_repr) == (
        ("'-3'",), "shop.qty.QuantityError", "-3")
    probe = probes.write_probe(mutant, distinction, "shop.qty")
    assert "from shop.qty import parse_quantity, QuantityError\n" in probe.source
    assert "    with pytest.raises(QuantityError):\n        parse_quantity('-3')\n" in probe.source
    assert probe.reference_repr == "raise shop.qty.QuantityError"
    check = probes.verify_probe(root, probe, mutant)
    assert check.accepted, check.reason
    assert "expected-exception-not-raised" in check.reason


PADDING = textwrap.dedent(
    """\
    def pad(row, width):
        while len(row) < width:
            row.append(0)
    """
)


def test_a_function_that_changes_its_argument_in_place_is_told_apart_by_the_arguments_state(tmp_path):
    root = make_project(tmp_path / "pad", "pad", PADDING, "def test_nothing():\n    pass\n")
    mutant = handmade_mutant("src/shop/pad.py", "pad", PADDING.replace("row.append(0)", "row.append(1)"))
    samples = [probes.CallSample("shop.pad:pad", ("[7]", "3"))]
    distinction = probes.find_distinguishing_input(root, mutant, samples, search_budget=0)
    assert (distinction.reference_repr, distinction.mutant_repr) == ("None", "None")
    assert distinction.changed_arguments == ((0, "[7, 0, 0]", "[7, 1, 1]"),)
    probe = probes.write_probe(mutant, distinction, "shop.pad", witness=True)
    assert "    argument = [7]\n    assert pad(argument, 3) is None\n    assert argument == [7, 0, 0]\n" in probe.source
    assert (probe.reference_repr, probe.mutant_repr) == ("None", "None")
    assert probes.arguments_narrated(distinction, 2, short=True) == " (argument 1 becomes [7, 1, 1])"
    assert "returns None and leaves argument 1 as [7, 0, 0]" in probe.source.replace("\n    ", " ")
    check = probes.verify_probe(root, probe, mutant)
    assert check.accepted, check.reason


def test_callrecord_plugin_records_keyword_arguments_when_loaded_by_name(tmp_path):
    source = "def greet(name, *, punct=\"!\"):\n    return name + punct\n"
    tests = ("from shop.greet import greet\n\n\ndef test_greet():\n"
             "    assert greet(\"ann\", punct=\"?\") == \"ann?\"\n    assert greet(\"bob\") == \"bob!\"\n")
    root = make_project(tmp_path / "greet", "greet", source, tests)
    out = tmp_path / "calls.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "elenchus.execution.callrecord",
         callrecord.CALLS_OPTION, str(out), callrecord.TARGET_OPTION, "shop.greet:greet"],
        cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines == [
        {"target": "shop.greet:greet", "args_repr": ["'ann'"], "kwargs_repr": {"punct": "'?'"}},
        {"target": "shop.greet:greet", "args_repr": ["'bob'"], "kwargs_repr": {"punct": "'!'"}},
    ]


# --------------------------------------------------------------------------- host probes


def test_host_probe_touching_a_private_attribute_is_rejected_naming_it(cart):
    source = "from shop import cart\n\n\ndef test_cache_starts_empty():\n    assert cart._cache == {}\n"
    check = probes.check_host_probe(cart["root"], "tests/test_host_private.py", source, [cart["mutant"]])
    assert not check.accepted
    assert "cart._cache" in check.reason


def test_host_probe_failing_on_the_reference_is_rejected(cart):
    source = ("from shop.cart import chunks\n\n\ndef test_one_big_chunk():\n"
              "    assert chunks([1, 2, 3], 2) == [[1, 2, 3]]\n")
    check = probes.check_host_probe(cart["root"], "tests/test_host_wrong.py", source, [cart["mutant"]])
    assert not check.accepted
    assert "fails on the reference" in check.reason


def test_host_probe_failing_only_by_an_import_error_is_rejected(cart):
    source = "from shop.cart import batches\n\n\ndef test_batches():\n    assert batches([1], 1) == [[1]]\n"
    check = probes.check_host_probe(cart["root"], "tests/test_host_import.py", source, [cart["mutant"]])
    assert not check.accepted
    assert "import, collection or setup error" in check.reason


def test_host_probe_that_kills_a_mutant_at_its_assertion_is_accepted(cart):
    source = ("from shop.cart import chunks\n\n\ndef test_pairs_and_a_rest():\n"
              "    assert chunks([1, 2, 3], 2) == [[1, 2], [3]]\n")
    check = probes.check_host_probe(cart["root"], "tests/test_host_good.py", source, [cart["mutant"]])
    assert check.accepted, check.reason
    assert check.killed == (cart["mutant"].id,)


def test_private_names_in_a_probe_cover_attributes_imports_and_reflection():
    source = textwrap.dedent(
        """\
        from shop._impl import helper
        from shop.cart import _secret, chunks
        import shop._cache

        def test_it(monkeypatch):
            monkeypatch.setattr("shop.cart._cache", {})
            assert getattr(chunks, "__wrapped__", None) is None
            assert chunks.__dict__ == {}
            assert chunks.__name__ == "chunks"
        """
    )
    assert probes.private_names_in(source) == [
        "shop._impl", "shop.cart._secret", "shop._cache", "shop.cart._cache", "__wrapped__", "chunks.__dict__"]
    assert probes.private_names_in("from __future__ import annotations\n") == []


# --------------------------------------------------------------------------- against a proposed revision


def test_probe_against_a_proposal_that_renames_the_function_is_not_comparable(cart):
    renamed = proposed_copy(cart["root"], cart["tmp"] / "renamed", CART.replace("def chunks", "def split_into"))
    outcome = probes.run_probe(renamed, cart["probe"])
    assert outcome.kind is probes.ProbeOutcomeKind.NOT_COMPARABLE
    assert outcome.proposed_repr is None


def test_probe_against_a_behaviour_preserving_refactor_passes(cart):
    refactor = textwrap.dedent(
        """\
        def chunks(items, size):
            result = []
            for start in range(0, len(items), size):
                result.append(items[start:start + size])
            return result
        """
    )
    outcome = probes.run_probe(proposed_copy(cart["root"], cart["tmp"] / "refactor", refactor), cart["probe"])
    assert outcome.kind is probes.ProbeOutcomeKind.PASSES


def test_probe_against_a_proposal_reintroducing_the_off_by_one_is_a_behavioural_failure(cart):
    regressed = textwrap.dedent(
        """\
        def chunks(items, size):
            result = []
            for start in range(0, len(items), size):
                result.append(items[start:start + size - 1])
            return result
        """
    )
    outcome = probes.run_probe(proposed_copy(cart["root"], cart["tmp"] / "regressed", regressed), cart["probe"])
    assert outcome.kind is probes.ProbeOutcomeKind.BEHAVIOURAL_FAILURE
    assert outcome.proposed_repr == "[[1], [3], [5]]"
    assert "[[1], [3], [5]]" in outcome.message


# --------------------------------------------------------------------------- small pieces


@pytest.mark.parametrize(
    ("path", "expected"),
    [("src/shop/cart.py", "shop.cart"), ("shop/cart.py", "shop.cart"), ("shop/__init__.py", "shop"),
     ("src/shop/__init__.py", "shop"), ("cart.py", "cart")],
)
def test_module_name_for_follows_the_src_and_flat_layouts(path, expected):
    assert probes.module_name_for(path) == expected


def test_module_name_for_keeps_src_when_it_is_a_package(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("")
    assert probes.module_name_for("src/shop/cart.py", tmp_path) == "src.shop.cart"


@pytest.mark.parametrize(
    ("value", "kept"),
    [([1, 2, 3], True), ({"a": (1.5, None)}, True), ({1, 2}, True), (b"x", True), (float("nan"), False),
     (float("inf"), False), (object(), False), (frozenset({1}), False), (range(3), False), ([1, [object()]], False),
     (True, True), (list(range(10_000)), False)],
)
def test_callrecord_keeps_only_values_that_round_trip_as_literals(value, kept):
    assert callrecord.is_literal(value) is kept


def test_unsupported_reason_names_private_and_nested_functions_and_lets_methods_and_generators_through(tmp_path):
    source = ("def _hidden(x):\n    return x\n\n\ndef numbers(n):\n    yield n\n\n\n"
              "class A:\n    def m(self):\n        def inner():\n            return 1\n        return inner()\n\n"
              "    def _n(self):\n        return 2\n\n    def __add__(self, other):\n        return 3\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(source)

    def reason(symbol: str) -> str | None:
        mutant = mutate.Mutant(id="0" * 12, path="pkg/mod.py", symbol=symbol, line=1, end_line=1, col=1,
                               family="f", changed_intent="", incident="", expected_detection="", diff="",
                               mutated_source=source)
        return probes.unsupported_reason(tmp_path, mutant)

    assert "private" in reason("_hidden")
    assert reason("numbers") is None  # a generator is called as a test lists it: `list(numbers(1))`
    assert reason("A.m") is None  # a method is called on an instance built as the tests built theirs
    assert reason("A.__add__") is None  # ... a special method through its operator
    assert "private" in reason("A._n")
    assert "not a module-level function or a method of a module-level class" in reason("A.m.inner")


MONEY = textwrap.dedent("""
    class Money:
        def __init__(self, cents, currency="EUR"):
            self.cents = cents
            self.currency = currency

        def split(self, parts):
            share = self._share(parts)
            return [share] * (parts - 1) + [self.cents - share * (parts - 1)]

        def _share(self, parts):
            return self.cents // parts

        def deposit(self, cents):
            self.cents = self.cents + cents

        def __add__(self, cents):
            return Money(self.cents + cents, self.currency)

        @property
        def euros(self):
            return self.cents / 100

        def is_foreign(self):
            return self.currency != "EUR"

        def same_currency(self, other):
            return self.currency == other.currency
""")
MONEY_TESTS = textwrap.dedent("""
    from shop.money import Money


    def test_split():
        assert Money(10).split(2) == [5, 5]


    def test_deposit():
        wallet = Money(100, currency="USD")
        wallet.deposit(50)
        assert wallet.currency == "USD"


    def test_add_and_euros():
        assert (Money(250) + 1).currency == "EUR"
        assert Money(250).euros == 2.5
        assert not Money(250).is_foreign()
""")
MONEY_TARGETS = [("shop.money", name) for name in ("Money.split", "Money.deposit", "Money.__add__", "Money.euros",
                                                    "Money.is_foreign")]


@pytest.fixture(scope="module")
def money(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("money") / "reference", "money", MONEY, MONEY_TESTS)
    return root, probes.record_calls(root, ["tests"], MONEY_TARGETS)


def money_mutant(old: str, new: str, symbol: str) -> mutate.Mutant:
    line = next(number for number, text in enumerate(MONEY.splitlines(), 1) if old.strip() in text)
    return mutate.Mutant(id="0" * 12, path="src/shop/money.py", symbol=symbol, line=line, end_line=line, col=9,
                         family="handmade", changed_intent="handmade", incident="handmade", expected_detection="none",
                         diff="", mutated_source=MONEY.replace(old, new), mutated_lines=(line,))


def test_a_method_call_is_recorded_with_how_the_tests_built_its_instance(money):
    _, samples = money
    [split] = samples["shop.money:Money.split"]
    assert (split.receiver, split.args_repr) == (callrecord.Receiver(("10",)), ("2",))
    [deposit] = samples["shop.money:Money.deposit"]
    assert deposit.receiver == callrecord.Receiver(("100", "'USD'"))  # (a default left out, as `split`'s)
    assert deposit.args_repr == ("50",)
    [add] = samples["shop.money:Money.__add__"]
    assert (add.receiver, add.args_repr) == (callrecord.Receiver(("250",)), ("1",))
    [euros] = samples["shop.money:Money.euros"]
    assert (euros.receiver, euros.args_repr) == (callrecord.Receiver(("250",)), ())


def test_a_method_is_also_called_on_the_other_instances_the_tests_built(money):
    root, samples = money
    assert callrecord.Receiver(("100", "'USD'")) in [s.receiver for s in samples["shop.money:Money"]]
    mutant = money_mutant('return self.currency != "EUR"', "return False", "Money.is_foreign")
    found = probes.search_input(root, mutant, [*samples["shop.money:Money.is_foreign"], *samples["shop.money:Money"]],
                                search_budget=10)
    # the tests call it on a Money in euros only; the dollars deposited elsewhere tell the mutant apart
    assert found.distinction is not None, found.reason
    assert found.distinction.receiver == callrecord.Receiver(("100", "'USD'"))
    probe = probes.write_probe(mutant, found.distinction, "shop.money", witness=True)
    assert "    assert Money(100, 'USD').is_foreign() == True\n" in probe.source
    assert probes.verify_probe(root, probe, mutant).accepted


def test_a_method_is_called_with_another_instance_the_tests_built_as_its_argument(money):
    root, samples = money
    mutant = money_mutant("return self.currency == other.currency", "return self.currency != other.currency",
                          "Money.same_currency")
    # no test calls it, and numbers or None have no currency: an instance the tests built, as the argument,
    # tells the mutant apart
    found = probes.search_input(root, mutant, samples["shop.money:Money"], search_budget=10)
    assert found.distinction is not None, found.reason
    assert found.distinction.origin == "instance"
    reference = found.distinction.reference_repr
    assert {reference, found.distinction.mutant_repr} == {"True", "False"}
    probe = probes.write_probe(mutant, found.distinction, "shop.money", witness=True)
    assert re.search(rf"    assert Money\(.*\)\.same_currency\(Money\(.*\)\) == {reference}\n", probe.source), \
        probe.source
    assert probes.verify_probe(root, probe, mutant).accepted


def test_a_private_helper_is_told_apart_through_the_public_method_on_an_instance_like_the_tests(money):
    root, samples = money
    mutant = money_mutant("self.cents // parts", "self.cents / parts", "Money._share")
    found = probes.search_input(root, mutant, samples["shop.money:Money.split"], symbol="Money.split",
                                module="shop.money", search_budget=50)
    assert found.distinction is not None, found.reason
    assert found.distinction.receiver == callrecord.Receiver(("10",))
    probe = probes.write_probe(mutant, found.distinction, "shop.money", function="Money.split", witness=True)
    assert "from shop.money import Money\n" in probe.source
    assert f"    assert Money(10).split({found.distinction.args_repr[0]}) == " in probe.source
    assert probe.input_repr.startswith("Money(10).split(")
    assert probes.verify_probe(root, probe, mutant).accepted


def test_an_in_place_method_is_told_apart_by_the_state_it_leaves_its_instance_in(money):
    root, samples = money
    mutant = money_mutant("self.cents + cents\n", "self.cents - cents\n", "Money.deposit")
    found = probes.search_input(root, mutant, samples["shop.money:Money.deposit"], search_budget=20)
    distinction = found.distinction
    assert distinction is not None, found.reason  # both return None: only the instance shows the change
    assert (distinction.reference_repr, distinction.mutant_repr) == ("None", "None")
    assert distinction.receiver_after == ("vars", "{'cents': 150, 'currency': 'USD'}",
                                          "{'cents': 50, 'currency': 'USD'}")
    probe = probes.write_probe(mutant, distinction, "shop.money", witness=True)
    assert "    money = Money(100, 'USD')\n    money.deposit(50)\n" \
           "    assert vars(money) == {'cents': 150, 'currency': 'USD'}\n" in probe.source
    assert probes.verify_probe(root, probe, mutant).accepted


SPELLER = textwrap.dedent("""
    class Speller:
        def __init__(self):
            self.classical = False

        def set_classical(self, on):
            self.classical = on

        def reset(self):
            self.set_classical(False)

        def plural(self, word):
            if self.classical and word.endswith("um"):
                return word[:-2] + "a"
            return word + "s"
""")
SPELLER_TESTS = textwrap.dedent("""
    from shop.speller import Speller


    class Flag:
        def __bool__(self):
            return True


    def test_modern():
        assert Speller().plural("cat") == "cats"


    def test_classical():
        speller = Speller()
        speller.set_classical(True)
        assert speller.plural("datum")  # (says nothing of which plural)


    def test_reset():
        speller = Speller()
        speller.set_classical(True)
        speller.reset()
        assert speller.plural("datum") == "datums"


    def test_flag():
        speller = Speller()
        speller.set_classical(Flag())
        assert speller.plural("cat") == "cats"
""")


def test_a_method_is_called_on_an_instance_set_up_the_way_the_tests_set_theirs_up(tmp_path):
    root = make_project(tmp_path / "speller", "speller", SPELLER, SPELLER_TESTS)
    unrecorded: dict[str, int] = {}
    samples = probes.record_calls(root, ["tests"], [("shop.speller", "Speller.plural")], unrecorded=unrecorded,
                                  steps=[("shop.speller", "Speller.set_classical"), ("shop.speller", "Speller.reset")])
    on = ("set_classical", ("True",), ())
    # the set-up calls each test made on its instance, in order; `reset`'s own call of `set_classical` is not one
    assert {sample.receiver for sample in samples["shop.speller:Speller.plural"]} == {
        callrecord.Receiver(), callrecord.Receiver(steps=(on,)), callrecord.Receiver(steps=(on, ("reset", (), ())))}
    assert unrecorded["shop.speller:Speller.plural"] == 1  # set up with a value no test text rebuilds
    line = next(number for number, text in enumerate(SPELLER.splitlines(), 1) if '+ "a"' in text)
    mutant = mutate.Mutant(id="1" * 12, path="src/shop/speller.py", symbol="Speller.plural", line=line,
                           end_line=line, col=13, family="handmade", changed_intent="handmade", incident="handmade",
                           expected_detection="none", diff="", mutated_source=SPELLER.replace('+ "a"', '+ "ae"'),
                           mutated_lines=(line,))
    # only the classical mode reaches the mutated line: the instance must be set up before the call
    found = probes.search_input(root, mutant, samples["shop.speller:Speller.plural"], search_budget=10)
    assert found.distinction is not None, found.reason
    assert found.distinction.receiver == callrecord.Receiver(steps=(on,))
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'data'", "'datae'")
    probe = probes.write_probe(mutant, found.distinction, "shop.speller", witness=True)
    assert "    speller = Speller()\n    speller.set_classical(True)\n    assert speller.plural('datum') == 'data'\n" \
        in probe.source, probe.source
    assert probe.input_repr == "speller = Speller(); speller.set_classical(True); speller.plural('datum')"
    assert probes.verify_probe(root, probe, mutant).accepted


MATCHER = textwrap.dedent("""
    import re


    class Matcher:
        def __init__(self, word, case_sensitive=False):
            self.word = word
            self._flags = 0 if case_sensitive else re.IGNORECASE

        def describe(self):
            return "a matcher of " + self.word

        def find(self, text):
            return re.search(re.escape(self.word), text, self._flags) is not None


    def compile(word, case_sensitive=False):
        return Matcher(word, case_sensitive=case_sensitive)


    def _private(word):
        return Matcher(word)


    def matches(word, text):
        return Matcher(word).find(text)
""")

MATCHER_TESTS = textwrap.dedent("""
    from shop.matcher import Matcher, _private, compile, matches


    def test_find():
        assert compile("cat").find("a cat")
        assert not Matcher("dog", case_sensitive=True).find("a cat")
        assert _private("cow").find("a cow")
        assert matches("hen", "a hen")
        assert Matcher("dog").describe() == "a matcher of dog"
""")


def test_an_instance_built_by_the_modules_function_is_rebuilt_by_it_and_its_own_default_reaches_the_method(
        tmp_path):
    root = make_project(tmp_path / "matcher", "matcher", MATCHER, MATCHER_TESTS)
    samples = probes.record_calls(root, ["tests"], [("shop.matcher", "Matcher.find"),
                                                    ("shop.matcher", "Matcher.describe")])
    # built as the test built each: through the public function that returns its class's call, else the class
    # (a private function, or one returning something else, `matches`, is not how a test builds one)
    assert {sample.receiver for sample in samples["shop.matcher:Matcher.find"]} == {
        callrecord.Receiver(("'cat'",), factory="compile"), callrecord.Receiver(("'dog'", "True")),
        callrecord.Receiver(("'cow'",)), callrecord.Receiver(("'hen'",))}
    line = next(number for number, text in enumerate(MATCHER.splitlines(), 1) if text.startswith("def compile"))
    mutant = mutate.Mutant(id="2" * 12, path="src/shop/matcher.py", symbol="compile", line=line, end_line=line,
                           col=0, family="handmade", changed_intent="handmade", incident="handmade",
                           expected_detection="none", diff="", mutated_lines=(line,),
                           mutated_source=MATCHER.replace("def compile(word, case_sensitive=False)",
                                                          "def compile(word, case_sensitive=True)"))
    # the default only the function passes on shows in a call on what it built, with the text in capitals
    # and what the tests called on an instance it built comes before what they called on others
    targets = witness.targets_for(MATCHER, mutant)
    assert targets == ["compile", "Matcher.describe", "Matcher.find"]
    assert in_search_order(MATCHER, mutant, targets, "shop.matcher", samples) == [
        "compile", "Matcher.find", "Matcher.describe"]
    found = probes.search_input(root, mutant, samples["shop.matcher:Matcher.find"], search_budget=10,
                                symbol="Matcher.find")
    assert found.distinction is not None, found.reason
    assert found.distinction.receiver == callrecord.Receiver(("'cat'",), factory="compile")
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("True", "False")
    probe = probes.write_probe(mutant, found.distinction, "shop.matcher", witness=True, function="Matcher.find")
    assert "from shop.matcher import compile\n" in probe.source, probe.source
    assert f"    assert compile('cat').find({found.distinction.args_repr[0]}) == True\n" in probe.source, probe.source
    assert probes.verify_probe(root, probe, mutant).accepted


def test_a_receiver_read_from_a_calls_file_is_checked_not_trusted():
    made = callrecord.Receiver(("2",), (("unit", "'kg'"),), (("classical", (), (("all", "True"),)),))
    assert callrecord.receiver_from_json(json.loads(json.dumps(made.as_json()))) == made
    built = callrecord.Receiver(("'{}x'",), factory="compile")
    assert callrecord.receiver_from_json(json.loads(json.dumps(built.as_json()))) == built
    with pytest.raises(ValueError):  # only the module's public function is called
        callrecord.receiver_from_json({"args_repr": [], "kwargs_repr": {}, "factory": "__import__"})
    step = ["classical", [], {"all": "True"}]
    for bad in ({"args_repr": [], "kwargs_repr": {}, "steps": [step] * (callrecord.MAX_STEPS + 1)},  # never written
                {"args_repr": [], "kwargs_repr": {}, "steps": [["_reset", [], {}]]},  # a private method
                {"args_repr": [], "kwargs_repr": {}, "steps": [["classical", ["__import__('os')"], {}]]}):
        with pytest.raises(ValueError):
            callrecord.receiver_from_json(bad)


def test_the_set_up_methods_of_a_class_are_those_that_change_its_instances():
    source = SPELLER + textwrap.dedent("""
        class Book:
            def __init__(self):
                self.words = []

            def add(self, word):
                self.words.append(word)

            def count(self):
                return len(self.words)

            def _clear(self):
                self.words = []

            def restart(self):
                self._clear()
    """)
    # (`reset` changes the instance through `set_classical`, `restart` through a private method)
    assert witness.instance_setups_for(source, "Speller") == ["Speller.set_classical", "Speller.reset"]
    assert witness.instance_setups_for(source, "Book") == ["Book.add", "Book.restart"]


def test_an_item_set_on_an_instance_is_a_set_up_step_recorded_replayed_and_written_as_a_statement(tmp_path):
    # `cache[1] = 'a'` fills the cache a later call reads: it is recorded as a step of the instance's making, read
    # back from the calls file, and written as the statement the test wrote; and as a call of its own, without the
    # default no test passes (cachetools' `cache_setitem=Cache.__setitem__`, a function no literal writes)
    source = ("class Cache:\n    def __init__(self, size):\n        self.size = size\n        self.items = {}\n\n"
              "    def __setitem__(self, key, value, store=dict.__setitem__):\n        store(self.items, key, value)\n"
              "        self.count = len(self.items)\n\n"
              "    def __delitem__(self, key):\n        del self.items[key]\n\n"
              "    def get(self, key):\n        return self.items.get(key)\n")
    assert witness.instance_setups_for(source, "Cache") == ["Cache.__setitem__", "Cache.__delitem__"]
    tests = ("from shop.cache import Cache\n\n\ndef test_get():\n    cache = Cache(2)\n    cache[1] = 'a'\n"
             "    cache[2] = 'b'\n    del cache[2]\n    assert cache.get(1) == 'a'\n")
    root = make_project(tmp_path / "cache", "cache", source, tests)
    samples = probes.record_calls(root, ["tests"], [("shop.cache", "Cache.get"), ("shop.cache", "Cache.__setitem__")],
                                  steps=[("shop.cache", "Cache.__setitem__"), ("shop.cache", "Cache.__delitem__")])
    assert [(s.args_repr, s.kwargs_repr, s.receiver.steps) for s in samples["shop.cache:Cache.__setitem__"]] == [
        (("1", "'a'"), (), ()), (("2", "'b'"), (), (("__setitem__", ("1", "'a'"), ()),))]
    [sample] = samples["shop.cache:Cache.get"]
    assert sample.receiver.steps == (("__setitem__", ("1", "'a'"), ()), ("__setitem__", ("2", "'b'"), ()),
                                     ("__delitem__", ("2",), ())), sample
    assert callrecord.receiver_from_json(json.loads(json.dumps(sample.receiver.as_json()))) == sample.receiver
    distinction = probes.Distinction(("1",), (), "'a'", None, "None", None, "recorded", receiver=sample.receiver)
    mutant = handmade_mutant("src/shop/cache.py", "Cache.get", source)
    test = probes.write_probe(mutant, distinction, "shop.cache", function="Cache.get", witness=True).source
    assert "    cache = Cache(2)\n    cache[1] = 'a'\n    cache[2] = 'b'\n    del cache[2]\n" in test, test


def test_an_in_place_method_whose_instance_no_test_can_write_down_backs_no_equivalence(tmp_path):
    source = ("class Log:\n    def __init__(self, name):\n        self.name = name\n        self._seen = []\n\n"
              "    def note(self, item):\n        self._seen.append(item)\n")
    tests = "from shop.log import Log\n\n\ndef test_note():\n    Log('a').note(1)\n"
    root = make_project(tmp_path / "log", "log", source, tests)
    samples = probes.record_calls(root, ["tests"], [("shop.log", "Log.note")])
    mutant = dataclasses.replace(handmade_mutant("src/shop/log.py", "Log.note", source.replace(
        "append(item)", "append(None)")), line=7, mutated_lines=(7,))
    found = probes.search_input(root, mutant, samples["shop.log:Log.note"], search_budget=10)
    assert found.distinction is None and not found.searched  # no claim of equivalence
    assert "a receiver left in a state a test cannot write down" in found.reason


COUNTER = textwrap.dedent("""
    class Counter:
        def __init__(self):
            self._count = 0

        def add(self, step):
            self._count = self._count + step
            return step * 2
""")


def test_receivers_left_with_the_same_private_data_agree_and_different_private_data_backs_no_claim(tmp_path):
    tests = "from shop.counter import Counter\n\n\ndef test_add():\n    assert Counter().add(2) == 4\n"
    root = make_project(tmp_path / "counter", "counter", COUNTER, tests)
    samples = probes.record_calls(root, ["tests"], [("shop.counter", "Counter.add")])["shop.counter:Counter.add"]

    def mutant(old: str, new: str) -> mutate.Mutant:
        at = next(number for number, text in enumerate(COUNTER.splitlines(), 1) if old in text)
        return dataclasses.replace(handmade_mutant("src/shop/counter.py", "Counter.add", COUNTER.replace(old, new)),
                                   line=at, mutated_lines=(at,))

    # The same result and the same `_count` every time: the inputs were compared, so equivalence may be claimed
    same = probes.search_input(root, mutant("step * 2", "step + step"), samples, search_budget=20)
    assert same.distinction is None and same.searched, same.reason
    assert same.reached  # (and they ran the mutated line)
    # The same results, `_count` left otherwise: no test can write that down without naming `_count`, so
    # neither a witness nor a claim
    hidden = probes.search_input(root, mutant("self._count + step", "self._count - step"), samples,
                                 search_budget=20)
    assert hidden.distinction is None and not hidden.searched
    assert "receivers left in different states a test cannot write down" in hidden.reason


def test_a_special_method_is_called_through_its_operator_and_a_property_is_read(money):
    root, samples = money
    mutant = money_mutant("self.cents + cents, self", "self.cents - cents, self", "Money.__add__")
    found = probes.search_input(root, mutant, samples["shop.money:Money.__add__"], search_budget=20)
    assert found.distinction is not None, found.reason
    probe = probes.write_probe(mutant, found.distinction, "shop.money", witness=True)
    assert "    assert vars(Money(250) + 1) == {'cents': 251, 'currency': 'EUR'}\n" in probe.source
    assert probes.verify_probe(root, probe, mutant).accepted
    mutant = money_mutant("self.cents / 100", "self.cents / 10", "Money.euros")
    found = probes.search_input(root, mutant, samples["shop.money:Money.euros"], search_budget=20)
    assert found.distinction is not None, found.reason
    probe = probes.write_probe(mutant, found.distinction, "shop.money", witness=True)
    assert "    assert Money(250).euros == pytest.approx(2.5)\n" in probe.source
    assert probes.verify_probe(root, probe, mutant).accepted


def test_a_constructor_is_told_apart_by_calling_the_class_as_the_tests_did(money):
    root, samples = money
    assert [s.args_repr for s in samples["shop.money:Money"]][:2] == [("10",), ("100", "'USD'")]
    # The class as a target of its own: its calls are its constructions, never its body running at import.
    alone = probes.record_calls(root, ["tests"], [("shop.money", "Money")])["shop.money:Money"]
    assert alone and all(s.receiver == callrecord.Receiver(s.args_repr, s.kwargs_repr) for s in alone)
    mutant = money_mutant("self.cents = cents", "self.cents = abs(cents)", "Money.__init__")
    found = probes.search_input(root, mutant, samples["shop.money:Money"], symbol="Money", module="shop.money",
                                search_budget=20)
    assert found.distinction is not None, found.reason  # no test built a Money below zero
    probe = probes.write_probe(mutant, found.distinction, "shop.money", function="Money", witness=True)
    assert "    assert vars(Money(-1)) == {'cents': -1, 'currency': 'EUR'}\n" in probe.source
    assert probes.verify_probe(root, probe, mutant).accepted


def test_a_method_no_test_called_on_an_instance_it_could_build_is_never_searched(money):
    root, _ = money
    mutant = money_mutant("self.cents // parts", "self.cents / parts", "Money._share")
    found = probes.search_input(root, mutant, [], symbol="Money.split", module="shop.money", search_budget=5)
    assert not found.searched and "no test built a `Money` the search can build again" in found.reason


def test_results_equal_in_value_that_print_differently_are_counted_and_shown_not_hidden(tmp_path):
    # `ceiling(5, 5)` gives 5 with the code and 5.0 with the mutant: equal under `==`, so no value check sees it,
    # but a claim of equivalence must say a type or text check would.
    import dataclasses

    source = "def ceiling(value, hi):\n    if value > hi:\n        return float(hi)\n    return value\n"
    tests = "from shop.limits import ceiling\n\n\ndef test_ceiling():\n    assert ceiling(3, 5) == 3\n"
    root = make_project(tmp_path / "limits", "limits", source, tests)
    samples = probes.record_calls(root, ["tests"], [("shop.limits", "ceiling")])
    mutant = dataclasses.replace(handmade_mutant("src/shop/limits.py", "ceiling", source.replace("> hi", ">= hi")),
                                 mutated_lines=(2,))
    found = probes.search_input(root, mutant, samples["shop.limits:ceiling"], search_budget=50)
    assert found.distinction is None and found.searched  # equal under `==` on every input tried
    assert found.alike > 0
    call, code, mutated = re.fullmatch(r"`(ceiling\(.*\))` gives `(.*)` with the code and `(.*)` with the mutant",
                                       found.first_alike).groups()
    assert float(code) == float(mutated) and code != mutated, found.first_alike
    from elenchus.analysis.witness.search import _describe

    assert "gave results equal under `==` that print differently" in _describe(found)


def test_public_data_no_call_shows_is_told_apart_by_reading_it_and_the_witness_asserts_what_it_holds(tmp_path):
    # As semver's `Version.NAMES`: made a list instead of a tuple, every method that walks it behaves the same;
    # `Version.NAMES == ('major', 'minor')` is what a test can assert.
    import dataclasses

    from elenchus.analysis.witness.targets import public_attribute

    source = textwrap.dedent('''\
        class Version:
            __slots__ = ("_major", "_minor")
            NAMES = tuple([item[1:] for item in __slots__])

            def __init__(self, major, minor):
                self._major, self._minor = major, minor

            def to_dict(self):
                return {name: getattr(self, "_" + name) for name in self.NAMES}
    ''')
    tests = "from shop.version import Version\n\n\ndef test_to_dict():\n" \
            "    assert Version(1, 2).to_dict() == {'major': 1, 'minor': 2}\n"
    root = make_project(tmp_path / "version", "version", source, tests)
    changed = source.replace("tuple([item[1:] for item in __slots__])", "[item[1:] for item in __slots__]")
    mutant = dataclasses.replace(handmade_mutant("src/shop/version.py", "Version.NAMES", changed),
                                 line=3, end_line=3, mutated_lines=(3,))
    assert public_attribute(source, mutant) == "Version.NAMES"
    for private in ("Version.__slots__", "_Hidden.NAMES", "Version.to_dict"):
        assert public_attribute(source, dataclasses.replace(mutant, symbol=private)) is None
    samples = probes.record_calls(root, ["tests"], [("shop.version", "Version"), ("shop.version", "Version.to_dict")])
    calls = [*samples["shop.version:Version.to_dict"], *samples["shop.version:Version"]]
    without = probes.search_input(root, mutant, calls, search_budget=20, symbol="Version.to_dict")
    assert without.distinction is None  # no call of the method shows it
    found = probes.search_input(root, mutant, calls, search_budget=20, symbol="Version.to_dict",
                                attribute="Version.NAMES")
    assert found.distinction is not None and found.distinction.origin == "attribute"
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == (
        "('major', 'minor')", "['major', 'minor']")
    probe = probes.write_probe(mutant, found.distinction, "shop.version", function="Version.to_dict", witness=True)
    assert "    assert Version.NAMES == ('major', 'minor')\n" in probe.source, probe.source
    assert "from shop.version import Version\n" in probe.source
    assert probe.source.startswith('"""Elenchus witness: asserts what `Version.NAMES` holds."""')
    assert probes.verify_probe(root, probe, mutant).accepted  # passes on the code, fails on the mutant


DATES = '''\
MONTHS = {
    "Jan": 1,
    "Feb": 2,
    "Nov": 11,
}


class Reader:
    def __init__(self, order):
        self.order = order

    def read(self, text):
        day, month, year = text.split()[:3] if self.order == "dmy" else text.split()[1::-1] + text.split()[2:3]
        return (int(year), MONTHS[month], int(day)) if month in MONTHS else None
'''


def test_a_dropped_table_entry_is_told_apart_by_a_later_test_text_with_its_word_in_place_of_another(tmp_path):
    # parse's month table: fifty calls of numbers come first, then `Reader('dmy').read('21 Nov 2011')`; with
    # `"Feb": 2` dropped every call the tests made agrees, and `'21 Feb 2011'` on the same reader tells it apart.
    # Before, the recorder kept the first fifty calls only, and no input put a table's word into a test's text.
    tests = ("from shop.dates import Reader\n\n\ndef test_numbers():\n"
             "    for n in range(60):\n        assert Reader('dmy').read(f'{n} x 2000') is None\n\n\n"
             "def test_names():\n    assert Reader('dmy').read('21 Nov 2011') == (2011, 11, 21)\n"
             "    assert Reader('mdy').read('Jan 5 2011') == (2011, 1, 5)\n")
    root = make_project(tmp_path / "dates", "dates", DATES, tests)
    samples = probes.record_calls(root, ["tests"], [("shop.dates", "Reader.read")])
    recorded = samples["shop.dates:Reader.read"]
    assert len(recorded) == 52 and recorded[-2].args_repr == ("'21 Nov 2011'",)
    assert recorded[-2].receiver == callrecord.Receiver(("'dmy'",))
    mutant = dataclasses.replace(handmade_mutant("src/shop/dates.py", "<module>", DATES.replace('    "Feb": 2,\n', "")),
                                 line=3, end_line=3, mutated_lines=())
    found = probes.search_input(root, mutant, recorded, search_budget=0, symbol="Reader.read", data=["MONTHS"])
    assert found.distinction is not None, found.reason
    assert found.distinction.receiver == callrecord.Receiver(("'dmy'",))
    assert found.distinction.args_repr == ("'21 Feb 2011'",)
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("(2011, 2, 21)", "None")
    probe = probes.write_probe(mutant, found.distinction, "shop.dates", function="Reader.read", witness=True)
    assert "    assert Reader('dmy').read('21 Feb 2011') == (2011, 2, 21)\n" in probe.source
    assert probes.verify_probe(root, probe, mutant).accepted


BATCHES = '''\
def batches(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]
'''


def test_a_generator_is_recorded_at_its_call_and_told_apart_by_the_list_it_yields(tmp_path):
    # Before, the recorder skipped generators (their frames start again at every resume) and the search said
    # "`batches` is a generator; its return value is an iterator, not a literal": no witness was searched.
    tests = ("from shop.batches import batches\n\n\ndef test_batches():\n"
             "    assert list(batches([1, 2, 3, 4], 2)) == [[1, 2], [3, 4]]\n")
    root = make_project(tmp_path / "batches", "batches", BATCHES, tests)
    samples = probes.record_calls(root, ["tests"], [("shop.batches", "batches")])
    assert samples["shop.batches:batches"] == [probes.CallSample("shop.batches:batches", ("[1, 2, 3, 4]", "2"))]
    mutant = dataclasses.replace(handmade_mutant("src/shop/batches.py", "batches",
                                                 BATCHES.replace("start + size]", "start + size - 1]")),
                                 line=3, end_line=3, mutated_lines=(3,))
    found = probes.search_input(root, mutant, samples["shop.batches:batches"], search_budget=0)
    assert found.distinction is not None, found.reason
    assert found.distinction.listed and found.distinction.origin == "recorded"
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("[[1, 2], [3, 4]]", "[[1], [3]]")
    probe = probes.write_probe(mutant, found.distinction, "shop.batches", witness=True)
    assert "    assert list(batches([1, 2, 3, 4], 2)) == [[1, 2], [3, 4]]\n" in probe.source
    assert probes.verify_probe(root, probe, mutant).accepted
    # an error raised while it runs is raised where a test lists it
    failing = dataclasses.replace(mutant, mutated_source=BATCHES.replace("items[start:start + size]",
                                                                         "items[start:start + size][size]"))
    found = probes.search_input(root, failing, samples["shop.batches:batches"], search_budget=0)
    assert found.distinction is not None and found.distinction.mutant_exception == "IndexError", found.reason
    probe = probes.write_probe(failing, found.distinction, "shop.batches", witness=True)
    assert "    assert list(batches([1, 2, 3, 4], 2)) == [[1, 2], [3, 4]]\n" in probe.source
    assert probes.verify_probe(root, probe, failing).accepted


FILTERS = '''\
def word_filter(words):
    if not words:
        return lambda word: None
    known = {w.upper(): w for w in words}
    return lambda word: known.get(word.upper())
'''


def test_a_function_returned_where_the_mutant_returns_none_is_told_apart_by_asserting_it_is_not_none(tmp_path):
    # titlecase's `create_wordlist_filter_from_file` returns a callback; with `return lambda ...` made `return None`
    # the search said "results a test cannot write down (`function`)" for every input, and no witness was given
    root = make_project(tmp_path / "filters", "filters", FILTERS, "def test_nothing():\n    pass\n")
    mutant = dataclasses.replace(handmade_mutant("src/shop/filters.py", "word_filter", FILTERS.replace(
        "        return lambda word: None", "        return None")), line=3, end_line=3, mutated_lines=(3,))
    found = probes.search_input(root, mutant, [probes.CallSample("shop.filters:word_filter", ("['NASA']",))],
                                search_budget=0)
    assert found.distinction is not None, found.reason
    assert found.distinction.nonnull and found.distinction.args_repr == ("[]",)
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("a function object", "None")
    probe = probes.write_probe(mutant, found.distinction, "shop.filters", witness=True)
    assert "    assert word_filter([]) is not None\n" in probe.source
    assert "the code returns a function object; the mutant returns None." in probe.source.replace("\n    ", " ")
    assert probes.verify_probe(root, probe, mutant).accepted
    # and the other way round: None where the mutant returns a function
    source = FILTERS.replace("        return lambda word: None", "        return None")
    root_none = make_project(tmp_path / "filters_none", "filters", source, "def test_nothing():\n    pass\n")
    other = dataclasses.replace(mutant, mutated_source=source.replace("    if not words:\n", "    if words is None:\n"),
                                line=2, end_line=2, mutated_lines=(2,))
    found = probes.search_input(root_none, other, [probes.CallSample("shop.filters:word_filter", ("['NASA']",))],
                                search_budget=0)
    assert found.distinction is not None, found.reason
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("None", "a function object")
    probe = probes.write_probe(other, found.distinction, "shop.filters", witness=True)
    assert "    assert word_filter([]) is None\n" in probe.source
    assert probes.verify_probe(root_none, probe, other).accepted


def test_a_difference_seen_only_by_a_call_that_read_standard_input_is_no_witness(tmp_path):
    # titlecase's `cmd()` reads standard input when given no text: a test under pytest cannot (its standard input
    # is closed), so the witness written for it failed on the code itself and the search lost its target
    source = "import sys\n\n\ndef first():\n    return sys.stdin.readline() or 'none'\n"
    root = make_project(tmp_path / "first", "first", source, "def test_nothing():\n    pass\n")
    mutant = dataclasses.replace(handmade_mutant("src/shop/first.py", "first", source.replace("'none'", "'nil'")),
                                 line=5, end_line=5, mutated_lines=(5,))
    found = probes.search_input(root, mutant, [probes.CallSample("shop.first:first", ())], search_budget=0)
    assert found.distinction is None and not found.searched, found
    assert "calls that read the command line or standard input, the same in every call here" in found.reason, \
        found.reason


RENDER = '''\
WORDS = {
    "ABORT": "keyword",
    "SELECT": "keyword",
}


def render(text, case=None, strict=False):
    if case not in (None, "upper", "lower") or strict not in (True, False):
        raise ValueError(case)
    words = []
    for word in text.split():
        if case is not None and WORDS.get(word.upper()) == "keyword":
            word = word.upper() if case == "upper" else word.lower()
        words.append(word)
    return " ".join(words)
'''


#: `render`'s table without its `"ABORT"` entry.
NO_ABORT = dataclasses.replace(handmade_mutant("src/shop/words.py", "<module>",
                                               RENDER.replace('    "ABORT": "keyword",\n', "")),
                               line=2, end_line=2, mutated_lines=())


def test_the_keyword_arguments_the_tests_pass_a_function_are_read_each_choice_of_names_first():
    sources = ["import shop\nfrom shop.words import render\n\n\ndef test_a():\n"
               "    assert shop.words.render('select x', case='upper') == 'SELECT x'\n"
               "    assert render('select x', strict=True) == 'select x'\n"
               "    assert render('select x', case='lower') == 'select x'\n"
               "    assert render('select x', case=CASE) == 'select x'\n"
               "    assert render('select x', **OPTIONS) == 'select x'\n"
               "    assert '{a}'.format(a=1) == '1'\n",
               "def broken(:\n"]
    assert probes.keywords_in(sources) == {"render": ((("case", "'upper'"),), (("strict", "True"),),
                                                      (("case", "'lower'"),))}


def test_a_dropped_table_entry_is_told_apart_through_an_option_only_other_tests_pass(tmp_path):
    # sqlparse: `format` is recorded from the fastest tests, none passing `keyword_case`, and four of those calls
    # raise; a word dropped from the keyword table shows only where a test asks for keywords in capitals
    # (`format('abort', keyword_case='upper')`). Before, no call the search made passed an option the recorded
    # calls did not.
    tests = ("from shop.words import render\n\n\ndef test_plain():\n    assert render('select x', strict=True)"
             " == 'select x'\n\n\ndef test_upper():\n    assert render('select x', case='upper') == 'SELECT x'\n")
    root = make_project(tmp_path / "words", "words", RENDER, tests)
    raising = [probes.CallSample("shop.words:render", ("'select x'",), (("strict", repr(bad)),)) for bad in "abcd"]
    recorded = [*raising, probes.CallSample("shop.words:render", ("'select x'",), (("strict", "True"),))]
    mutant = NO_ABORT
    options = probes.keywords_in([tests])["render"]
    found = probes.search_input(root, mutant, recorded, search_budget=0, symbol="render", data=["WORDS"],
                                options=options)
    assert found.distinction is not None, found.reason
    # only what tells the two apart: not the `strict=True` of the call the option was put into
    assert found.distinction.kwargs_repr in ((("case", "'upper'"),), (("case", "'lower'"),)), found.distinction
    assert dict(found.tried)["options"] >= 1
    probe = probes.write_probe(mutant, found.distinction, "shop.words", function="render", witness=True)
    assert probes.verify_probe(root, probe, mutant).accepted
    alone = probes.search_input(root, mutant, recorded, search_budget=0, symbol="render", data=["WORDS"])
    assert alone.distinction is None and "options" not in dict(alone.tried)


def test_an_option_goes_into_the_plainest_calls_in_place_of_what_they_gave_it_and_never_twice():
    import ast

    from elenchus.analysis.probes.variants import with_options

    [node] = ast.parse("class Words:\n    def __init__(self, text, case=None):\n        pass\n").body[0].body
    made = [probes.CallSample("shop.words:Words", ("'x'",), (("case", "None"),)),
            probes.CallSample("shop.words:Words", ("'y'",), (("case", "'lower'"),))]
    options = ((("case", "'upper'"),), (("text", "'z'"),), (("mode", "1"),), (("case", "'lower'"),))
    called = with_options(made, options, node, bound=True)
    # `text` is given by position in every call, `mode` is no parameter, and `case='lower'` is no change to the
    # second call: each call gets `case` in place of its own
    assert [(c.args_repr, c.kwargs_repr) for c in called] == [
        (("'x'",), (("case", "'upper'"),)), (("'x'",), (("case", "'lower'"),)), (("'y'",), (("case", "'upper'"),))]


def test_a_tests_call_with_a_table_word_put_in_keeps_only_the_arguments_that_tell_the_two_apart(tmp_path):
    # sqlparse's command line calls `format(sql, 'utf-8', comma_first=False, ..., wrap_after=0)`: the witness
    # built on it named all seventeen options where one shows the dropped keyword
    root = make_project(tmp_path / "words", "words", RENDER, "def test_nothing():\n    pass\n")
    recorded = [probes.CallSample("shop.words:render", ("'SELECT x'",), (("case", "'lower'"), ("strict", "True")))]
    found = probes.search_input(root, NO_ABORT, recorded, search_budget=0, symbol="render", data=["WORDS"])
    assert found.distinction is not None, found.reason
    assert (found.distinction.args_repr, found.distinction.kwargs_repr) == (("'ABORT x'",), (("case", "'lower'"),))
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'abort x'", "'ABORT x'")


def test_a_long_text_that_tells_the_two_apart_is_cut_to_the_words_it_needs(tmp_path):
    # sqlparse: a dropped keyword was shown by a test's whole statement with the word in place of `NULL`
    # (`format('UPDATE "gallery_photo" SET "owner_id" = 4018, "deleted_at" = ARE, ...', reindent=True)`)
    root = make_project(tmp_path / "words", "words", RENDER, "def test_nothing():\n    pass\n")
    recorded = [probes.CallSample("shop.words:render", ("'SELECT the name, the price from the items where x'",),
                                  (("case", "'lower'"),))]
    found = probes.search_input(root, NO_ABORT, recorded, search_budget=0, symbol="render", data=["WORDS"])
    assert found.distinction is not None, found.reason
    assert (found.distinction.args_repr, found.distinction.kwargs_repr) == (("'ABORT'",), (("case", "'lower'"),))
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("'abort'", "'ABORT'")


@pytest.mark.parametrize(("source", "old", "new", "part"), [
    ("def f(a, b):\n    return a and g(b)\n", "g(b)", "g(a)", "g(a)"),
    ("def f(a, b):\n    return 0 < a < b + 1\n", "b + 1", "b - 1", "b - 1"),
    ("def f(xs):\n    return [x * 2 for x in xs if x]\n", "x * 2", "x * 3", "x * 3"),
    ("def f(xs):\n    return [x for x in xs if x > 1]\n", "x > 1", "x >= 1", "x >= 1"),
    ("def f(a):\n    return sorted(a, key=lambda x: -x)\n", "-x", "x", "x"),
    ("def f(a, c):\n    return f'{a if c else 2}'\n", "else 2", "else 3", "3"),
    ("def f(a, c):\n    return (a if c else None) or (g(a) if a else 0)\n", "g(a) if", "g(c) if", "g(c)"),
])
def test_an_edit_in_a_part_of_its_line_that_runs_only_sometimes_is_watched_where_that_part_runs(source, old, new,
                                                                                                 part):
    from elenchus.analysis.probes.watched import evaluated

    mutant = dataclasses.replace(handmade_mutant("m.py", "f", source.replace(old, new)), line=2, end_line=2)
    found = evaluated(mutant, source)
    assert found is not None and found.part == part, found
    assert f"__elenchus_evaluated__({part})" in found.source
    assert found.source.replace(f"__elenchus_evaluated__({part})", part) == mutant.mutated_source


@pytest.mark.parametrize(("source", "old", "new"), [
    ("def f(a, b):\n    return a + b\n", "a + b", "a - b"),  # (the line runs it whenever it runs)
    ("def f(a, b):\n    return a and b\n", "a and b", "a or b"),  # (the operator: both run the first part)
    ("def f(xs):\n    return [x for x in xs[1:] if x]\n", "xs[1:]", "xs[2:]"),  # (the first iterable runs always)
    ("def f(a, c):\n    return 1 if c else 2\n", "if c", "if not c"),  # (the condition runs always)
])
def test_an_edit_in_a_part_of_its_line_that_always_runs_is_watched_by_its_line(source, old, new):
    from elenchus.analysis.probes.watched import evaluated

    mutant = dataclasses.replace(handmade_mutant("m.py", "f", source.replace(old, new)), line=2, end_line=2)
    assert evaluated(mutant, source) is None


WRAPPER = textwrap.dedent("""
    class Wrapper:
        def __init__(self, stream, strip=None, autoreset=False):
            self.stream = stream
            self.strip = bool(strip)
            self.autoreset = autoreset

        def should_wrap(self):
            return self.strip or self.autoreset
""")


def test_an_instance_its_tests_built_around_an_in_memory_stream_is_built_again_and_called():
    # As colorama's `AnsiToWin32(StringIO(), strip=True).should_wrap()`: the stream was no argument a test writes,
    # so no method of the class was ever called ("no test built a `AnsiToWin32` the search can build again")
    import io

    assert callrecord.argument_repr(io.StringIO()) == "io.StringIO('')"
    assert callrecord.argument_repr(io.BytesIO(b"1,2")) == "io.BytesIO(b'1,2')"
    assert callrecord.argument_imports(["io.StringIO('')", "1"]) == ("import io",)
    read = io.StringIO("ab")
    read.read(1)
    assert callrecord.argument_repr(read) is None  # (read from already: its text does not rebuild it)
    rebuilt = callrecord.argument_value("io.StringIO('ab')")
    assert isinstance(rebuilt, io.StringIO) and rebuilt.read() == "ab"
    for text in ("io.open('x')", "io.TextIOWrapper(1)", "io.StringIO.__init__"):
        with pytest.raises(ValueError):
            callrecord.argument_value(text)


def test_a_method_of_an_instance_built_around_a_stream_gets_a_witness(tmp_path):
    tests = ("import io\n\nfrom shop.wrapper import Wrapper\n\n\ndef test_wrap():\n"
             "    assert Wrapper(io.StringIO(), strip=True).should_wrap()\n")
    root = make_project(tmp_path / "wrapper", "wrapper", WRAPPER, tests)
    # (its `__init__` searched too, as a survivor there makes it: the instance it builds is still noted)
    samples = probes.record_calls(root, ["tests"], [("shop.wrapper", "Wrapper.should_wrap"),
                                                    ("shop.wrapper", "Wrapper.__init__")])
    recorded = samples["shop.wrapper:Wrapper.should_wrap"]
    assert [(s.receiver.args_repr, s.receiver.kwargs_repr) for s in recorded] == \
        [(("io.StringIO('')", "True"), ())]
    mutant = mutant_at("src/shop/wrapper.py", "Wrapper.should_wrap", WRAPPER, "self.strip or self.autoreset",
                       "self.strip and self.autoreset")
    found = probes.search_input(root, mutant, recorded, search_budget=0)
    assert found.distinction is not None, found.reason
    assert (found.distinction.reference_repr, found.distinction.mutant_repr) == ("True", "False"), found.distinction


WRITER = textwrap.dedent("""
    def dump(words, stream):
        for word in words:
            stream.write(word.upper())
            stream.write("\\\\n")
""")


def test_what_a_call_writes_into_a_stream_it_was_given_empty_is_a_witness_a_test_reads_back(tmp_path):
    # A writer given `io.StringIO('')`, rebuilt from the tests' call: both return None, and only the text left in the
    # stream tells the mutant apart, as `stream.getvalue()` reads it after the call
    root = make_project(tmp_path / "writer", "writer", WRITER, "def test_nothing():\n    pass\n")
    mutant = mutant_at("src/shop/writer.py", "dump", WRITER, 'stream.write("\\\\n")', 'stream.write("")')
    samples = [probes.CallSample("shop.writer:dump", (repr(words), "io.StringIO('')")) for words in
               (["a", "b"], ["x"], [], ["some", "words", "here"], ["q", "r", "s", "t"], ["one"])]
    found = probes.search_input(root, mutant, samples, search_budget=0, boundary_budget=0)
    assert found.distinction is not None, found.reason
    (index, code, changed), = found.distinction.changed_arguments
    assert index == 1 and code.startswith("io.StringIO(") and "\\n" in code and "\\n" not in changed, (code, changed)
    probe = probes.write_probe(mutant, found.distinction, "shop.writer", witness=True)
    assert ".getvalue() == " in probe.source, probe.source
    assert probes.verify_probe(root, probe, mutant).accepted, probe.source  # passes on the code, fails on the mutant


def test_a_stream_wound_back_or_not_given_empty_is_no_state_a_call_is_compared_by():
    # Its text alone would say a stream wound back to its start holds what one left at its end holds: a reader
    # stopped part way, or a writer that rewinds, is not told by `getvalue()`
    import io

    written = io.StringIO()
    written.write("ab")
    assert callrecord.written_repr(written) == "io.StringIO('ab')"
    written.seek(0)
    assert callrecord.written_repr(written) is None
    assert callrecord.is_empty_stream(io.BytesIO()) and not callrecord.is_empty_stream(io.StringIO("x"))


def search_method(tmp_path, name: str, source: str, test: str, qualname: str, old: str, new: str,
                  search_budget: int = 0):
    """The search for a mutant of method ``qualname`` of ``src/shop/<name>.py``, whose one test (``test``, the body of
    `test_it` after `import io` and the class's import) built the instance its calls were recorded on: (the project,
    the mutant, what the search found)."""
    owner = qualname.partition(".")[0]
    tests = f"import io\n\nfrom shop.{name} import {owner}\n\n\ndef test_it():\n    {test}\n"
    root = make_project(tmp_path / name, name, source, tests)
    recorded = probes.record_calls(root, ["tests"], [(f"shop.{name}", qualname)])[f"shop.{name}:{qualname}"]
    mutant = mutant_at(f"src/shop/{name}.py", qualname, source, old, new)
    return root, mutant, probes.search_input(root, mutant, recorded, search_budget=search_budget)


WRITING = textwrap.dedent("""
    class Shouter:
        def __init__(self, out, mark="!"):
            self.out = out
            self.mark = mark

        def say(self, word):
            self.out.write(word.upper() + self.mark)
""")


def test_a_method_that_writes_into_the_stream_its_instance_holds_is_told_apart_by_what_it_wrote(tmp_path):
    root, mutant, found = search_method(tmp_path, "shout", WRITING, "Shouter(io.StringIO()).say('hi')",
                                        "Shouter.say", "word.upper() + self.mark", "word + self.mark")
    assert found.distinction is not None, found.reason
    assert found.distinction.receiver_after[0] == ".out.getvalue()", found.distinction
    probe = probes.write_probe(mutant, found.distinction, "shop.shout", witness=True)
    assert ".out.getvalue() == " in probe.source, probe.source
    assert probes.verify_probe(root, probe, mutant).accepted, probe.source


KEEPER = textwrap.dedent("""
    class Box:
        def __init__(self, held):
            self.held = held


    class Keeper:
        def __init__(self, out):
            self.out = out
            self.last = None

        def keep(self, word):
            self.out.write(word)
            self.last = Box(word.upper())
""")


def test_receivers_that_wrote_alike_but_hold_what_no_test_writes_down_back_no_claim(tmp_path):
    # The stream agrees, but what the mutant changed sits in an attribute no literal writes (an object): the calls
    # were not compared, so their agreement claims nothing
    _, _, found = search_method(tmp_path, "keeper", KEEPER, "Keeper(io.StringIO()).keep('hi')", "Keeper.keep",
                                "Box(word.upper())", "Box(word)", search_budget=20)
    assert found.distinction is None and not found.searched, found  # (never "likely equivalent")
    assert "receivers that agree only in what they wrote into a stream" in found.reason, found.reason


STRIPPER = textwrap.dedent("""
    import re


    class Stripper:
        MARK_RE = re.compile(r"<([a-z]+)>")

        def strip(self, text):
            for match in self.MARK_RE.finditer(text):
                start, end = match.span()
                text = text[:start] + text[end:]
            return text
""")


def test_a_line_inside_a_loop_over_what_a_class_pattern_matches_is_reached_with_a_text_it_matches(tmp_path):
    # As colorama's `for match in self.ANSI_OSC_RE.finditer(text):`: the tests' texts hold no mark, so the loop's
    # body never ran; the pattern is a class's own attribute, read in the loop's header, not on the mutated line
    _, _, found = search_method(tmp_path, "strip", STRIPPER, "assert Stripper().strip('plain') == 'plain'",
                                "Stripper.strip", "text[:start] + text[end:]", "text[:start] + text[end + 1:]")
    assert found.distinction is not None, found.reason
    assert "<" in found.distinction.args_repr[0], found.distinction


def test_only_an_instance_its_class_call_alone_builds_again_is_rebuilt_without_a_construction_seen():
    class Bare:
        def strip(self, text):
            return text

    class Kept(Bare):
        __slots__ = ("held",)

    class Built:
        def __init__(self):
            self.held = []

    touched = Bare()
    touched.seen = True
    assert callrecord.built_bare(Bare())
    assert not callrecord.built_bare(touched)  # (set up after it was built: `Bare()` alone is not it)
    assert not callrecord.built_bare(Kept()) and not callrecord.built_bare(Built())
    assert not callrecord.built_bare(dict())


COLLECTOR = textwrap.dedent("""
    def collect(words, *, into=None, out=None):
        for word in words:
            if into is not None:
                into.append(word.upper())
            if out is not None:
                out.write(word.upper())
""")


@pytest.mark.parametrize("keyword", ["into", "out"])
def test_a_keyword_argument_the_call_changes_in_place_otherwise_is_held_and_read_back(tmp_path, keyword):
    # `collect(words, into=[])`, keyword-only: both calls return None, and only the list (or the stream) given by
    # name holds what the mutant changed: the witness holds it (`argument = []`, `collect(..., into=argument)`) and
    # asserts what it holds after the call. Counting those calls as agreeing made a false "likely equivalent".
    root = make_project(tmp_path / "collect", "collect", COLLECTOR, "def test_nothing():\n    pass\n")
    given = "[]" if keyword == "into" else "io.StringIO('')"
    old = "into.append(word.upper())" if keyword == "into" else "out.write(word.upper())"
    mutant = mutant_at("src/shop/collect.py", "collect", COLLECTOR, old, old.replace("word.upper()", "word"))
    samples = [probes.CallSample("shop.collect:collect", (repr(words),), ((keyword, given),)) for words in
               (["a", "b"], ["x"], ["some", "words", "here"], ["q", "r", "s", "t"], ["one"], ["z", "y"])]
    found = probes.search_input(root, mutant, samples, search_budget=20, boundary_budget=0)
    assert found.distinction is not None, found.reason
    assert [change[0] for change in found.distinction.changed_arguments] == [keyword], found.distinction
    probe = probes.write_probe(mutant, found.distinction, "shop.collect", witness=True)
    assert f"{keyword}=argument)" in probe.source, probe.source
    assert probes.verify_probe(root, probe, mutant).accepted, probe.source


PRIVATE_WRITER = textwrap.dedent("""
    class Writer:
        def __init__(self, fp, sep=","):
            self._fp = fp
            self._sep = sep

        def row(self, values):
            self._fp.write(self._sep.join(str(value) for value in values) + "\\\\n")
""")


def test_a_method_that_writes_into_the_stream_its_class_was_given_is_told_apart_through_that_stream(tmp_path):
    # As a JSON-lines or CSV writer keeping its stream as `self._fp`: no test may name the private attribute, so
    # the witness holds the stream it builds the instance around, and reads it back
    root, mutant, found = search_method(tmp_path, "rows", PRIVATE_WRITER, "Writer(io.StringIO()).row([1, 2])",
                                        "Writer.row", "self._sep.join", "''.join")
    assert found.distinction is not None, found.reason
    assert found.distinction.receiver_after[0] == "@0.getvalue()", found.distinction
    probe = probes.write_probe(mutant, found.distinction, "shop.rows", witness=True)
    assert "stream = io.StringIO('')" in probe.source and "stream.getvalue() == " in probe.source, probe.source
    assert "_fp" not in probe.source, probe.source
    assert probes.verify_probe(root, probe, mutant).accepted, probe.source


CONVERTING = textwrap.dedent("""
    def to_milliseconds(seconds, scale=1000):
        return int(seconds) * scale
""")


def test_a_dropped_conversion_is_told_apart_by_a_value_it_would_have_changed(tmp_path):
    # pysrt's `from_ordinal(ordinal)` wrote `cls(milliseconds=int(ordinal))`; every test passed a whole number, which
    # `int` leaves as it is, and `int(ordinal)` made `ordinal` was claimed likely equivalent: `from_ordinal(1.5)`
    # tells it apart
    root = make_project(tmp_path / "convert", "convert", CONVERTING, "def test_nothing():\n    pass\n")
    mutant = mutant_at("src/shop/convert.py", "to_milliseconds", CONVERTING, "int(seconds)", "seconds")
    samples = [probes.CallSample("shop.convert:to_milliseconds", (repr(seconds),)) for seconds in (0, 2, 7, 30, 61, 3)]
    found = probes.search_input(root, mutant, samples, search_budget=0, boundary_budget=0)
    assert found.distinction is not None, found.reason
    assert found.distinction.args_repr == ("0.5",) and found.distinction.origin == "designed", found.distinction
    # (only a call replaced by its argument, a parameter, is such an edit)
    other = mutant_at("src/shop/convert.py", "to_milliseconds", CONVERTING, "int(seconds) * scale", "int(seconds)")
    from elenchus.analysis.probes.variants import _dropped_conversion

    assert _dropped_conversion(CONVERTING, mutant) == ("int", "seconds")
    assert _dropped_conversion(CONVERTING, other) is None


ALTERNATE = textwrap.dedent("""
    class Span:
        def __init__(self, length=0):
            self.length = length

        def __repr__(self):
            return f"Span({self.length!r})"

        @classmethod
        def from_text(cls, text):
            return cls(int(text))
""")


def test_a_class_method_building_the_base_class_is_told_apart_on_a_callers_subclass(tmp_path):
    # pysrt's `from_string`, `from_time` and `coerce` build `cls(...)`: made `SubRipTime(...)`, only a subclass's
    # call shows it, `SubRipTimeSubclass.from_string('...')` handing back a plain `SubRipTime`
    root = make_project(tmp_path / "span", "span", ALTERNATE, "def test_nothing():\n    pass\n")
    mutant = mutant_at("src/shop/span.py", "Span.from_text", ALTERNATE, "return cls(int(text))",
                       "return Span(int(text))")
    mutant = dataclasses.replace(mutant, family="base-class-instance")
    samples = [probes.CallSample("shop.span:Span.from_text", (repr(text),)) for text in ("3", "12", "0")]
    found = probes.search_input(root, mutant, samples, search_budget=0, boundary_budget=0)
    assert found.distinction is not None, found.reason
    probe = probes.write_probe(mutant, found.distinction, "shop.span", witness=True)
    assert "    assert type(SpanSubclass.from_text(" in probe.source, probe.source  # (on the class: no instance built)
    # a call made on the class leaves no instance whose state could go uncompared: the results, alike down to
    # all they hold, agree
    alike = dataclasses.replace(mutant_at("src/shop/span.py", "Span.from_text", ALTERNATE, "return cls(int(text))",
                                          "return cls(int(text) + 0)"), family="base-class-instance")
    agreed = probes.search_input(root, alike, samples, search_budget=0, boundary_budget=0)
    assert agreed.distinction is None and agreed.searched, agreed
    assert probes.verify_probe(root, probe, mutant).accepted, probe.source


READER = textwrap.dedent("""
    class Reader:
        def __init__(self, lines):
            self.lines = lines

        def first(self):
            for line in self.lines:
                if line.strip():
                    return line.strip()
            return None
""")


def test_a_method_without_parameters_agreeing_on_the_few_instances_the_tests_built_backs_no_claim(tmp_path):
    # As ndjson's `reader.__next__` without its `.strip()`: every call of a method without parameters ran the
    # mutated line and agreed, but the calls were the tests' two instances; one built around a blank line differs
    _, _, found = search_method(tmp_path, "reader", READER, "Reader(['a', 'b']).first(); Reader(['c']).first()",
                                "Reader.first", "if line.strip():", "if line:")
    assert found.distinction is None and not found.searched, found  # (never "likely equivalent")
    assert "too few for their agreement to back a claim" in found.reason, found.reason


SCALED = textwrap.dedent("""
    class Duration:
        def __init__(self, ms):
            self.ms = ms

        def __eq__(self, other):
            return isinstance(other, Duration) and other.ms == self.ms

        def __repr__(self):
            return f"Duration({self.ms!r})"

        def __imul__(self, ratio):
            self.ms = int(round(self.ms * ratio))
            return self
""")


def test_an_augmented_assignment_is_searched_and_written_as_the_operator_modules_call(tmp_path):
    # pysrt's `SubRipTime.__imul__`: the rounding dropped truncates a scaled time; no test calls `__imul__` by
    # name, `time *= 1.5` does, and a test asserts what `operator.imul` hands back (what the name is bound to)
    test = "d = Duration(4)\n    d *= 0.5\n    assert d.ms == 2"
    root, mutant, found = search_method(tmp_path, "scaled", SCALED, test, "Duration.__imul__",
                                        "int(round(self.ms * ratio))", "int(self.ms * ratio)", search_budget=200)
    assert found.distinction is not None, found.reason
    probe = probes.write_probe(mutant, found.distinction, "shop.scaled", witness=True)
    assert "import operator\n" in probe.source and "    assert operator.imul(Duration(" in probe.source, probe.source
    assert probes.verify_probe(root, probe, mutant).accepted


LINES = textwrap.dedent("""
    class Lines:
        def __init__(self, stream):
            self.stream = stream

        def __iter__(self):
            return self

        def __next__(self):
            line = self.stream.readline()
            if not line:
                raise StopIteration
            return line.strip()
""")


def test_an_iterators_next_item_is_searched_as_next_gives_it(tmp_path):
    # ndjson's `reader.__next__` with its `.strip()` dropped: the tests counted the records; `next(...)` on a
    # reader built as theirs shows the line's end kept
    test = "assert len(list(Lines(io.StringIO('a\\nb\\n')))) == 2"
    root, mutant, found = search_method(tmp_path, "lines", LINES, test, "Lines.__next__", "return line.strip()",
                                        "return line")
    assert found.distinction is not None, found.reason
    probe = probes.write_probe(mutant, found.distinction, "shop.lines", witness=True)
    assert "    assert next(Lines(io.StringIO(" in probe.source, probe.source
    assert probes.verify_probe(root, probe, mutant).accepted


def test_the_whole_state_of_a_result_reads_everything_it_holds_or_nothing():
    # two results agree as values only where all each holds agrees: private attributes, an exception's arguments
    # and the objects beneath; where some of it lies where no attribute shows it, there is no whole state
    import types
    from elenchus.execution.callreplay import whole_state

    class Error(Exception):
        pass

    class Slotted:
        __slots__ = ("x",)

    class Holder:
        pass

    def made(**attributes):
        held = Holder()
        held.__dict__.update(attributes)
        return held

    assert whole_state(made(_raw="a", kept=[1])) != whole_state(made(_raw="b", kept=[1]))
    assert whole_state(made(_raw="a", kept=[1])) == whole_state(made(_raw="a", kept=[1])) is not None
    assert whole_state(Error("one")) != whole_state(Error("two"))
    assert whole_state(made(check=whole_state)) is not None  # (a function, by where it is defined)
    for opaque in (made(check=lambda: 1), made(inner=Slotted()), made(module=types), made(inner=object())):
        assert whole_state(opaque) is None, opaque
    looped = made()
    looped.again = looped
    assert whole_state(looped) is None
    # a method bound to an instance holds that instance: two bound to instances holding other data differ
    class Counter:
        def __init__(self, start):
            self.start = start

        def count(self):
            return self.start

    assert whole_state(made(step=Counter(1).count)) != whole_state(made(step=Counter(2).count))


RECORDS = textwrap.dedent("""
    import json


    class Records:
        def __init__(self, stream):
            self.stream = stream

        def __iter__(self):
            return self

        def __next__(self):
            line = ''
            while line == '':
                line = next(self.stream).strip()
            return json.loads(line)
""")


def test_an_instance_built_around_a_text_is_built_again_around_it_with_a_blank_line(tmp_path):
    # ndjson's reader skips blank lines by what `.strip()` leaves; dropped, a blank line is read as a record and
    # refused, and no test's text holds one
    test = "assert len(list(Records(io.StringIO('{\"a\": 1}\\n{\"b\": 2}\\n')))) == 2"
    root, mutant, found = search_method(tmp_path, "records", RECORDS, test, "Records.__next__",
                                        "line = next(self.stream).strip()", "line = next(self.stream)")
    assert found.distinction is not None, found.reason
    assert found.distinction.receiver.args_repr[0].startswith("io.StringIO('\\n"), found.distinction
    assert found.distinction.mutant_exception is not None and found.distinction.reference_exception is None
    probe = probes.write_probe(mutant, found.distinction, "shop.records", witness=True)
    assert probes.verify_probe(root, probe, mutant).accepted, probe.source
