import pytest

from elenchus import scratch
from elenchus.config import Settings, load_settings
from elenchus.repo.discover import _functions_of, _statements_of, changed_lines, function_spans, module_names
from elenchus.repo.session import open_session


@pytest.mark.parametrize("name", scratch.scenario_names())
def test_discover_finds_what_each_fixture_scenario_declares(name, build_scenario):
    expect = scratch.load_scenario(name).expect
    with open_session(build_scenario(name), None, None) as session:
        change = session.change
        assert list(change.production_files) == expect["production_files"]
        assert list(change.tests_added) == expect["tests_added"]
        assert list(change.tests_modified) == expect["tests_modified"]
        assert list(change.tests_deleted) == expect["tests_deleted"]
        assert sorted({f.qualname for f in change.functions}) == expect["changed_functions"]
        assert list(change.related_tests) == expect["related_tests"]
    assert session.post_flight_changes == ()


def test_discover_gives_changed_functions_their_libcst_line_ranges(build_scenario):
    with open_session(build_scenario("demo"), None, None) as session:
        clamp = next(f for f in session.change.functions if f.qualname == "clamp")
        source = session.head.read("src/batching/core.py").splitlines()
        assert source[clamp.start - 1].startswith("def clamp(")
        assert source[clamp.end - 1].strip() == "return value"
        assert clamp.status == "modified" and clamp.public


def test_function_spans_name_methods_by_class_and_skip_nested_functions():
    source = "class Stack:\n    def push(self, x):\n        def inner():\n            pass\n        self.items.append(x)\n\ndef _helper():\n    return 1\n"
    spans = function_spans(source)
    assert [(s.qualname, s.start, s.end, s.public) for s in spans] == [
        ("Stack.push", 2, 5, True), ("_helper", 7, 8, False)]


def test_changed_lines_mark_a_pure_deletion_inside_a_function_on_both_sides_of_the_gap():
    old = "def f(xs):\n    xs.sort()\n    xs.reverse()\n    return xs\n"
    new = "def f(xs):\n    xs.sort()\n    return xs\n"
    head, base = changed_lines(old, new)
    assert base == (3,) and head == (2, 3)


def test_changed_lines_mark_nothing_at_head_when_whole_statements_were_deleted():
    head, base = changed_lines("a = 1\nb = 2\nc = 3\n", "a = 1\nc = 3\n")
    assert base == (2,) and head == ()


def test_changed_lines_ignore_comments_docstrings_blank_lines_and_spacing():
    old = 'def f(x):\n    """Old doc."""\n    # old comment\n    return x+1\n'
    new = 'def f(x):\n    """New doc,\n    two lines."""\n    # new comment\n\n    return x + 1  # why\n'
    assert changed_lines(old, new) == ((), ())


def test_blank_lines_that_moved_never_pull_an_unchanged_code_line_into_the_change():
    # Only `a = 1` became `q = 9`; the blank lines moved from before it to the end of the file.
    assert changed_lines("return x\n\n\na = 1\nc = 3\n", "return x\nq = 9\nc = 3\n\n\n") == ((2,), (4,))
    # Only blank and comment lines moved: no code line changed.
    old = "c = 3\nreturn x\nb = 2\n\n\nc = 3\n\n\na = 1\nc = 3\n\n\n"
    new = "c = 3\n\n\n# note\nreturn x\nb = 2\n\n\n\nc = 3\na = 1\n\n\nc = 3\n"
    assert changed_lines(old, new) == ((), ())


def test_a_function_whose_code_was_only_reflowed_is_not_changed(tmp_path):
    old = "def f(a, b):\n    return g(a, b)\n"
    new = "def f(a, b):\n    return g(\n        a,\n        b\n    )\n"
    assert _functions_of("m.py", old, new) == []
    assert _functions_of("m.py", old, new.replace("b\n    )", "b + 1\n    )"))[0].qualname == "f"


def test_changed_module_and_class_level_code_becomes_changed_statements_named_after_their_target():
    old = ('import re\n\nMAX = 5\nPATTERN = re.compile(r"[a-z]+")\nTABLE = {\n    "a": 1,\n    "b": 2,\n}\n\n'
           'class C:\n    retries: int = 3\n    name = "c"\n\n    def f(self):\n        return 1\n')
    new = ('import re\n\nMAX = 6\nPATTERN = re.compile(r"[a-z0-9]+")\nTABLE = {\n    "a": 1,\n}\n\n'
           'class C:\n    retries: float = 3\n    name = "c"\n\n    def f(self):\n        return 1\n')
    found = {(s.symbol, s.changed_lines) for s in _statements_of("m.py", old, new)}
    assert found == {("MAX", (3,)), ("PATTERN", (4,)), ("TABLE", (6, 7)), ("C.retries", (10,))}
    assert _functions_of("m.py", old, new) == []


def test_module_names_cover_src_layout_and_packages():
    assert module_names("src/pkg/mod.py") == ("src.pkg.mod", "pkg.mod", "mod")
    assert module_names("pkg/__init__.py") == ("pkg",)


def test_test_classification_follows_pytest_conventions_and_tool_elenchus_settings():
    default = Settings()
    assert default.kind_of("tests/helpers.py") == "test"
    assert default.kind_of("pkg/test_x.py") == "test"
    assert default.kind_of("pkg/x_test.py") == "test"
    assert default.kind_of("tests/conftest.py") == "infrastructure"
    assert default.kind_of("pkg/x.py") == "production"
    assert default.kind_of("docs/conf.py") == "other"
    custom = load_settings('[tool.elenchus]\ntest-patterns = ["check_*.py"]\ntest-dirs = ["spec"]\n')
    assert custom.kind_of("pkg/check_x.py") == "test"
    assert custom.kind_of("spec/x.py") == "test"
    assert custom.kind_of("pkg/test_x.py") == "production"
