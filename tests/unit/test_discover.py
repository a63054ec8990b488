import pytest

from elenchus import scratch
from elenchus.config import Settings, load_settings
from elenchus.discover import changed_lines, function_spans, module_names
from elenchus.session import open_session


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


def test_changed_lines_mark_a_pure_deletion_on_the_following_head_line():
    head, base = changed_lines("a\nb\nc\n", "a\nc\n")
    assert base == (2,) and head == (2,)


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
