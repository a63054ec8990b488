"""Kill judgement by the check a failure reached, mutated-line watching and import truth.

Real pytest subprocesses on tmp_path projects. The "mutant" is written straight into
the project (``first`` returns None, ``Box`` never sets ``size``), so each test reads
as the situation a real mutant creates.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from elenchus.execution import plugin, sandbox
from elenchus.repo.layout import SourceLayout
from elenchus.execution.run import FailureKind, Outcome, judge, run_pytest

from tests.conftest import FAST_ENV, write_tree

MUTATED = "pkg/mod.py"

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/mod.py": """
        LIMIT = 3  # line 1: module-level code runs at import


        def first(xs):
            return None  # the mutant: `return xs[0]` became `return None`


        class Box:
            def __init__(self, size):
                pass  # the mutant: `self.size = size` was dropped


        def never_called():
            return 1
    """,
    "helper.py": """
        def parse(text):
            return text.upper()  # TypeError for None, raised outside the mutated file
    """,
    "tests/test_checks.py": """
        import unittest

        import pytest

        import helper
        from pkg.mod import Box, first


        def check_first(value):
            assert value[0] == 1


        @pytest.fixture
        def head():
            return first([1])[0]


        def test_assert_line_type_error():
            assert first([1, 2])[0] == 1


        def test_assert_line_attribute_error():
            assert Box(3).size == 3


        def test_raises_block_gets_another_exception():
            with pytest.raises(ValueError):
                helper.parse(None)


        def test_check_in_a_helper_of_the_test_file():
            check_first(first([1]))


        def test_not_a_check_line():
            value = first([1])[0]
            assert value == 1


        def test_fixture_breaks(head):
            assert head == 1


        class TestUnit(unittest.TestCase):
            def test_assert_call_type_error(self):
                self.assertEqual(first([1])[0], 1)
    """,
}
CHECKS = "tests/test_checks.py"

@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("attribution"), PROJECT)


def verdict_of(project: Path, test: str, **kwargs):
    result = run_pytest(project, [f"{CHECKS}::{test}"], 60, mutated_file=MUTATED, env=FAST_ENV, **kwargs)
    return result, judge(result, MUTATED)


@pytest.mark.parametrize(("test", "check"), [
    ("test_assert_line_type_error", "assert"),
    ("test_assert_line_attribute_error", "assert"),
    ("test_raises_block_gets_another_exception", "raises-block"),
    ("test_check_in_a_helper_of_the_test_file", "assert"),
    ("TestUnit::test_assert_call_type_error", "assert-call"),
])
def test_an_exception_raised_while_checking_is_an_attributed_kill_whatever_its_type(project, test, check):
    result, verdict = verdict_of(project, test)
    record = result.records[0]
    assert record.failure_kind is FailureKind.UNEXPECTED_EXCEPTION
    assert record.check == check
    assert not any(f.endswith(MUTATED) for f in record.crossed_files)  # attributed by the check alone
    assert verdict.outcome is Outcome.KILLED and verdict.kill.attributed


def test_an_exception_at_a_line_that_is_not_a_check_and_never_crossed_the_mutant_stays_unattributed(project):
    result, verdict = verdict_of(project, "test_not_a_check_line")
    assert result.records[0].check is None
    assert verdict.outcome is Outcome.INCONCLUSIVE and not verdict.kill.attributed


def test_a_mutant_that_only_breaks_a_fixture_is_never_a_kill(project):
    result, verdict = verdict_of(project, "test_fixture_breaks")
    assert result.records[0].failure_kind is FailureKind.SETUP_ERROR
    assert result.records[0].check is None
    assert verdict.outcome is Outcome.NOT_COMPARABLE


def test_a_mutated_module_that_no_longer_defines_an_imported_name_is_caught_at_import_and_no_other_is(tmp_path):
    project = write_tree(tmp_path / "p", {
        "pkg/__init__.py": "",
        "pkg/mod.py": "if False:  # the mutant: True became False\n    def used():\n        return 1\n",
        "pkg/other.py": "def helper():\n    return 2\n",
        "tests/test_mod.py": "from pkg.mod import used\n\n\ndef test_used():\n    assert used() == 1\n",
        "tests/test_other.py": "from pkg.other import gone\n\n\ndef test_gone():\n    assert gone() == 2\n",
    })
    verdict = judge(run_pytest(project, ["tests/test_mod.py"], 60, mutated_file=MUTATED, env=FAST_ENV))
    assert verdict.outcome is Outcome.CAUGHT_AT_IMPORT and verdict.kill is None
    assert verdict.reason.startswith("collecting tests/test_mod.py failed inside the mutated code (ImportError: "
                                     "cannot import name 'used' from 'pkg.mod'")
    # a name missing from a module that is not the mutated one says nothing about the mutant
    verdict = judge(run_pytest(project, ["tests/test_other.py"], 60, mutated_file=MUTATED, env=FAST_ENV))
    assert verdict.outcome is Outcome.NOT_COMPARABLE


def test_a_test_module_whose_import_time_code_breaks_on_what_the_mutated_code_returned_is_caught_at_import(tmp_path):
    # cachetools' `cachedmethod` made to return None: a test class's `@cachedmethod(...)` calls None while its
    # module is collected, in the test module, after the mutated code returned
    project = write_tree(tmp_path / "p", {
        "pkg/__init__.py": "",
        "pkg/mod.py": "def cached(cache):\n    return None  # the mutant: `return decorator` became `return None`\n",
        "tests/test_mod.py": "from pkg.mod import cached\n\n\n@cached({})\ndef one():\n    return 1\n\n\n"
                             "def test_one():\n    assert one() == 1\n",
        "tests/test_other.py": "def test_two():\n    assert 1 + 1 == 2\n",
    })
    result = run_pytest(project, ["tests"], 60, mutated_file=MUTATED, mutated_lines=(2,), env=FAST_ENV)
    assert result.mutated_lines_executed is True
    assert [r.failure_kind for r in result.records if r.is_failure] == [FailureKind.COLLECTION_ERROR]
    verdict = judge(result)
    assert verdict.outcome is Outcome.CAUGHT_AT_IMPORT and verdict.kill is None
    assert verdict.reason == ("collecting tests/test_mod.py failed after its import-time code ran the mutated code "
                              "(TypeError: 'NoneType' object is not callable), before any test ran")
    # unwatched, where the baseline's coverage saw the mutated lines run (the evaluation's runs then skip the watch)
    unwatched = run_pytest(project, ["tests"], 60, mutated_file=MUTATED, env=FAST_ENV)
    assert unwatched.mutated_lines_executed is None and judge(unwatched).outcome is Outcome.NOT_COMPARABLE
    assert judge(unwatched, ran=True) == verdict
    # a module that fails to collect without the mutated code having run says nothing about the mutant
    (project / "tests" / "test_mod.py").write_text("import nowhere\n\n\ndef test_one():\n    assert True\n")
    result = run_pytest(project, ["tests"], 60, mutated_file=MUTATED, mutated_lines=(2,), env=FAST_ENV)
    assert result.mutated_lines_executed is False
    assert judge(result).outcome is Outcome.NOT_COMPARABLE


def test_a_conftest_that_can_no_longer_import_the_mutated_module_is_caught_at_import(tmp_path):
    project = write_tree(tmp_path / "p", {
        "pkg/__init__.py": "",
        # the mutant: `re.compile("a+", re.VERBOSE)` with its arguments swapped, which raises at import
        "pkg/mod.py": "import re\n\nPATTERN = re.compile(re.VERBOSE, 'a+')\n\n\ndef f():\n    return 1\n",
        "pkg/other.py": "import re\n\nPATTERN = re.compile(re.VERBOSE, 'a+')\n",
        "tests/conftest.py": "from pkg.mod import f\n",
        "tests/test_mod.py": "from pkg.mod import f\n\n\ndef test_f():\n    assert f() == 1\n",
    })
    # pytest stops before collecting anything (exit 4) and says why only on stderr
    result = run_pytest(project, ["tests/test_mod.py"], 60, mutated_file=MUTATED, env=FAST_ENV)
    assert result.exit_code == 4 and result.records == ()
    verdict = judge(result)
    assert verdict.outcome is Outcome.CAUGHT_AT_IMPORT and verdict.kill is None
    assert verdict.reason == ("loading tests/conftest.py failed inside the mutated code (TypeError: first argument "
                              "must be string or compiled pattern), before any test ran")
    # the same crash in a file that is not the mutated one says nothing about the mutant
    (project / "tests" / "conftest.py").write_text("import pkg.other\n")
    assert judge(run_pytest(project, ["tests/test_mod.py"], 60, mutated_file=MUTATED, env=FAST_ENV)).outcome \
        is Outcome.INCONCLUSIVE


@pytest.mark.parametrize(("source", "line", "expected"), [
    ("def test():\n    assert f()[0] == 1\n", 2, "assert"),
    ("def test():\n    assert (\n        f()[0]\n        == 1\n    )\n", 3, "assert"),
    ("def test(self):\n    self.assertEqual(f()[0], 1)\n", 2, "assert-call"),
    ("def test():\n    np.testing.assert_allclose(f(), 1)\n", 2, "assert-call"),
    ("def test():\n    with pytest.raises(KeyError):\n        x = 1\n        f()\n", 4, "raises-block"),
    ("def test():\n    with pytest.raises(KeyError):\n        f()\n", 2, None),
    ("def test():\n    pytest.raises(KeyError, f, 1)\n", 2, "raises-block"),
    ("def test():\n    with open(p) as h:\n        f()\n", 3, None),
    ("def test():\n    value = f()[0]\n", 2, None),
])
def test_check_at_reads_the_statement_kind_at_a_test_line(tmp_path, source, line, expected):
    path = tmp_path / f"test_{abs(hash((source, line)))}.py"
    path.write_text(source)
    assert plugin.check_at(str(path), line) == expected


# --- did the mutated lines run? ---------------------------------------------------------


@pytest.mark.parametrize(("lines", "expected"), [
    ((5,), True),  # first's body: called by the test
    ((14,), False),  # never_called's body
    ((1,), True),  # module-level code, run while the test module imports pkg.mod
])
def test_the_run_records_whether_the_mutated_lines_executed(project, lines, expected):
    result, _ = verdict_of(project, "test_not_a_check_line", mutated_lines=lines)
    assert result.mutated_lines_executed is expected


def test_a_survivor_whose_mutated_line_never_ran_says_so(tmp_path):
    project = write_tree(tmp_path / "p", {
        "pkg/__init__.py": "",
        "pkg/mod.py": "def used():\n    return 1\n\n\ndef unused():\n    return 2\n",
        "tests/test_mod.py": "from pkg.mod import used\n\n\ndef test_used():\n    assert used() == 1\n",
    })
    result = run_pytest(project, ["tests"], 60, mutated_file=MUTATED, env=FAST_ENV, mutated_lines=(6,))
    verdict = judge(result)
    assert verdict.outcome is Outcome.SURVIVED
    assert "none of them ran the mutated line" in verdict.reason


# --- import truth -----------------------------------------------------------------------


def _reaching_outside(tmp_path: Path) -> tuple[Path, Path]:
    """A checkout outside the workspace and a workspace whose conftest puts it first on sys.path."""
    outside = write_tree(tmp_path / "checkout", {"pkg/__init__.py": "", "pkg/mod.py": "def one():\n    return 1\n"})
    project = write_tree(tmp_path / "ws", {
        "pkg/__init__.py": "",
        "pkg/mod.py": "def one():\n    return 2\n",  # the mutant, never imported
        "conftest.py": f"import sys\nsys.path.insert(0, {str(outside)!r})\n",
        "tests/test_mod.py": "from pkg.mod import one\n\n\ndef test_one():\n    assert one() == 1\n",
    })
    return outside, project


def test_a_run_whose_tests_import_the_mutated_module_from_elsewhere_is_not_comparable(tmp_path):
    """Without a sandbox, the tests can reach another copy; the run says so instead of judging it."""
    outside, project = _reaching_outside(tmp_path)
    layout = SourceLayout((".",), ("pkg",))
    with sandbox.using(sandbox.Sandbox(sandbox.NONE, reason="this test checks the unsandboxed path")):
        result = run_pytest(project, ["tests"], 60, mutated_file=MUTATED, env=FAST_ENV, layout=layout,
                            mutated_lines=(2,))
    assert dict(result.modules or ())["pkg.mod"] == str(outside / "pkg" / "mod.py")
    verdict = judge(result)
    assert verdict.outcome is Outcome.NOT_COMPARABLE
    assert str(outside / "pkg" / "mod.py") in verdict.reason and "source-roots" in verdict.reason


@pytest.mark.skipif(not sandbox.detect("bubblewrap").isolated, reason="bubblewrap is not usable here")
def test_in_the_sandbox_another_copy_of_the_project_is_out_of_reach(tmp_path):
    outside, project = _reaching_outside(tmp_path)
    with sandbox.using(sandbox.detect("bubblewrap")):
        result = run_pytest(project, ["tests"], 60, mutated_file=MUTATED, env=FAST_ENV,
                            layout=SourceLayout((".",), ("pkg",)), mutated_lines=(2,))
    assert dict(result.modules or ())["pkg.mod"] == str(project / "pkg" / "mod.py")
    assert judge(result).outcome is Outcome.KILLED


def test_a_src_layout_project_imports_the_workspace_copy_without_any_configuration(tmp_path):
    project = write_tree(tmp_path / "ws", {
        "src/pkg/__init__.py": "",
        "src/pkg/mod.py": "def one():\n    return 1\n",
        "tests/test_mod.py": "from pkg.mod import one\n\n\ndef test_one():\n    assert one() == 1\n",
    })
    layout = SourceLayout(("src", "."), ("pkg",))
    result = run_pytest(project, ["tests"], 60, mutated_file="src/pkg/mod.py", env=FAST_ENV, layout=layout)
    assert (result.passed, result.failed) == (1, 0), result.stdout_tail
    assert dict(result.modules or ())["pkg.mod"] == str((project / "src/pkg/mod.py").resolve())
    assert judge(result).outcome is Outcome.SURVIVED


def test_isolate_imports_drops_foreign_path_entries_and_import_hooks_of_the_project(tmp_path):
    outside = write_tree(tmp_path / "checkout", {"pkg/__init__.py": "", "other/__init__.py": ""})
    workspace = write_tree(tmp_path / "ws", {"src/pkg/__init__.py": ""})
    script = textwrap.dedent(f"""
        import importlib.machinery, json, sys
        sys.path.append({str(outside)!r})

        class EditableFinder:  # what an editable install's .pth puts on sys.meta_path
            @classmethod
            def find_spec(cls, name, path=None, target=None):
                if name == "pkg":
                    return importlib.machinery.ModuleSpec("pkg", None, origin={str(outside / 'pkg/__init__.py')!r})
                return None

        sys.meta_path.append(EditableFinder)
        import importlib.util
        spec = importlib.util.spec_from_file_location("p", {plugin.__file__!r})
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        removed = module.isolate_imports({str(workspace)!r}, ["src", "."], ["pkg"])
        import pkg
        print(json.dumps({{"removed": removed, "pkg": pkg.__file__,
                          "finder_left": EditableFinder in sys.meta_path}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                          env=FAST_ENV, check=True)
    seen = json.loads(done.stdout)
    assert seen["pkg"] == str((workspace / "src/pkg/__init__.py").resolve())
    assert not seen["finder_left"]
    assert any(str(outside) in entry for entry in seen["removed"] if entry.startswith("import path"))
    assert any("EditableFinder" in entry for entry in seen["removed"])


def test_a_baseline_whose_tests_import_the_project_from_elsewhere_is_blocked_before_any_mutant(tmp_path):
    from elenchus.execution.baseline import establish
    from elenchus.execution.cohorts import Cohort
    from elenchus.execution.workspace import tree_digest

    outside = write_tree(tmp_path / "checkout", {"pkg/__init__.py": "", "pkg/mod.py": "def one():\n    return 1\n"})
    template = write_tree(tmp_path / "template", {
        "pkg/__init__.py": "",
        "pkg/mod.py": "def one():\n    return 1\n",
        "conftest.py": f"import sys\nsys.path.insert(0, {str(outside)!r})\n",
        "tests/test_mod.py": "from pkg.mod import one\n\n\ndef test_one():\n    assert one() == 1\n",
    })
    cohort = Cohort("modified", template, ("tests/test_mod.py",), tree_digest(template),
                    layout=SourceLayout((".",), ("pkg",)))
    with sandbox.using(sandbox.Sandbox(sandbox.NONE, reason="this test checks the unsandboxed path")):
        baseline = establish(cohort, tmp_path / "scratch", lambda excluded: True)
    assert baseline.status == "blocked"
    assert f"`pkg` from {outside / 'pkg' / '__init__.py'}" in baseline.reason
    assert "source-roots" in baseline.reason


def test_the_named_kill_is_the_test_that_checked_not_one_that_merely_crossed_the_mutant(tmp_path):
    project = write_tree(tmp_path / "p", {
        "pkg/__init__.py": "",
        "pkg/mod.py": "SUFFIXES = {}\n\n\ndef suffix(kind):\n    return SUFFIXES[kind]\n",  # the "decimal" entry dropped
        "tests/test_a_bench.py": "from pkg.mod import suffix\n\n\ndef test_a_benchmark():\n    suffix('decimal')\n",
        "tests/test_b_check.py": "from pkg.mod import suffix\n\n\ndef test_b_value():\n    assert suffix('decimal') == 'kB'\n",
    })
    result = run_pytest(project, ["tests"], 60, mutated_file=MUTATED, env=FAST_ENV)
    verdict = judge(result)
    assert verdict.outcome is Outcome.KILLED
    assert verdict.kill.nodeid == "tests/test_b_check.py::test_b_value"
