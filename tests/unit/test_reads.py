"""What a run read (the baseline's audit of opened, imported and listed files) and what a stored run
therefore depends on."""

import textwrap
from pathlib import Path

from elenchus.execution.dependencies import Digests, Manifest, imported_tests, run_entries
from elenchus.execution.run import run_pytest
from tests.conftest import write_tree


def test_a_run_without_a_mutant_files_each_read_under_the_test_file_that_ran(tmp_path):
    workspace = write_tree(tmp_path / "ws", {
        "data/cases.txt": "1\n",
        "helpers.py": "VALUE = 1\n",
        "test_reads.py": """
            import os
            from pathlib import Path

            import helpers


            def test_opens_a_file():
                assert Path("data/cases.txt").read_text() == "1\\n"


            def test_lists_a_directory():
                assert os.listdir("data") == ["cases.txt"]
        """,
        "test_other.py": "def test_nothing():\n    pass\n",
    })
    result = run_pytest(workspace, ["test_reads.py", "test_other.py"], 120)
    assert result.passed == 3, (result.stdout_tail, result.stderr_tail)
    reads = dict(result.reads)
    assert "data/cases.txt" in reads["test_reads.py"] and "data/" in reads["test_reads.py"]
    assert "data/cases.txt" not in reads.get("test_other.py", ()) and "data/cases.txt" not in reads[""]
    # imported modules are the session's (collection imports them)
    assert {"helpers.py", "test_reads.py", "test_other.py"} <= set(reads[""])


def test_a_run_whose_test_starts_a_process_leaves_what_it_read_unknown(tmp_path):
    workspace = write_tree(tmp_path / "ws", {"test_spawn.py": """
        import subprocess
        import sys


        def test_spawns():
            subprocess.run([sys.executable, "-c", "open('data.txt').read()"], check=False)
    """})
    result = run_pytest(workspace, ["test_spawn.py"], 120)
    assert result.passed == 1 and result.reads is None


def test_what_importing_a_test_file_runs_ignores_its_tests_bodies_and_comments(tmp_path):
    source = textwrap.dedent("""
        import json

        LIMIT = 3


        def helper():
            return LIMIT


        def test_one():
            assert helper() == 3


        class TestMore:
            def test_two(self):
                assert True
    """)
    changes = {"a comment": source + "# note\n",
               "a test's body": source.replace("assert helper() == 3", "assert helper() + 1 == 4"),
               "a method test's body": source.replace("assert True", "assert 1"),
               "a test added": source + "\n\ndef test_three():\n    pass\n"}
    moved = {"a module-level value": source.replace("LIMIT = 3", "LIMIT = 4"),
             "a helper's body": source.replace("return LIMIT", "return LIMIT + 0"),
             "an import": source.replace("import json", "import os"),
             "a test's decorator": source.replace("def test_one", "@pytest.mark.skip\ndef test_one")}
    (tmp_path / "test_x.py").write_text(source)
    before = Digests(tmp_path).of("test_x.py#module")
    for name, text in {**changes, **moved}.items():
        (tmp_path / "test_x.py").write_text(text)
        assert (Digests(tmp_path).of("test_x.py#module") == before) == (name in changes), name


def test_the_first_changed_entry_is_named_as_a_user_reads_it(tmp_path):
    write_tree(tmp_path, {"a.txt": "1", "tests/test_a.py": "x = 1\n"})
    earlier = Digests(tmp_path).manifest(["a.txt", "b.txt", "tests/", "tests/test_a.py#module"]).as_json()
    assert Digests(tmp_path).manifest(earlier).first_change(earlier) is None
    (tmp_path / "a.txt").write_text("2")
    assert Digests(tmp_path).manifest(earlier).first_change(earlier) == "a.txt changed"
    (tmp_path / "a.txt").write_text("1")
    (tmp_path / "b.txt").write_text("new")
    assert Digests(tmp_path).manifest(earlier).first_change(earlier) == "b.txt appeared"
    (tmp_path / "b.txt").unlink()
    (tmp_path / "tests" / "test_b.py").write_text("")
    assert Digests(tmp_path).manifest(earlier).first_change(earlier) == "the files in tests changed"
    (tmp_path / "tests" / "test_b.py").unlink()
    (tmp_path / "tests" / "test_a.py").write_text("x = 2\n")
    assert Digests(tmp_path).manifest(earlier).first_change(earlier) == \
        "what importing tests/test_a.py runs changed"
    assert Manifest((("*", "new"),)).first_change({"*": "old"}).startswith("a file of the project changed")


def test_a_run_depends_on_the_tests_it_ran_what_they_read_and_the_import_of_the_others_it_collected(tmp_path):
    write_tree(tmp_path, {"tests/test_a.py": "def test_a():\n    pass\n",
                          "tests/test_b.py": "from tests.test_c import helper\n",
                          "tests/test_c.py": "def helper():\n    pass\n",
                          "tests/test_d.py": ""})
    tests = ("tests/test_a.py", "tests/test_b.py", "tests/test_c.py", "tests/test_d.py")
    reads = (("", ("src/shop.py", *tests)), ("tests/test_a.py", ("data/a.txt",)), ("tests/test_d.py", ("d.txt",)))
    imported = imported_tests(tmp_path, reads, tests)
    assert imported == {"tests/test_c.py"}  # a test module another imports is a dependency of every run
    entries = run_entries(reads, {"tests/test_a.py"}, {"tests/test_a.py", "tests/test_d.py"}, tests, imported,
                          ["conftest.py"], "src/shop.py")
    assert {"tests/test_a.py", "data/a.txt", "tests/test_c.py", "tests/test_d.py#module", "conftest.py",
            "pyproject.toml"} <= set(entries)
    # not what the tests it did not run read, nor a test file it did not collect, nor the mutated file
    assert not {"d.txt", "tests/test_d.py", "tests/test_b.py", "tests/test_b.py#module", "src/shop.py"} & set(entries)


def test_a_stored_search_is_reused_unless_it_broke_or_now_has_longer_than_it_had():
    import pytest

    from elenchus.modes.evaluation.reuse import _stopped_short, _witness_from_record

    done = {"searched": True, "reason": "likely equivalent: no input told it apart (tried `f`: 200 input(s))",
            "inputs": 200, "seconds": 1.0}
    assert _witness_from_record({"no_witness": done}).reason.startswith("likely equivalent")
    proven = {**done, "reason": "equivalent (proven): the module holds the same data"}
    assert _witness_from_record({"no_witness": proven}).searched
    ran_out = {**done, "searched": False, "reason": "no witness was found, so it stays a gap: `f`: the search ran out"}
    # derandomized, a search that ran out of its time would run out at the same place: the same content reuses it
    assert _witness_from_record({"no_witness": ran_out}).reason.endswith("the search ran out")
    assert not _stopped_short({"no_witness": ran_out, "witness_time": 5}, 5)
    assert not _stopped_short({"no_witness": ran_out, "witness_time": 10}, 5)
    assert _stopped_short({"no_witness": ran_out, "witness_time": 5}, 10)  # given longer now: it searches again
    assert _stopped_short({"no_witness": ran_out}, 5)  # a record that does not say how long it had
    assert not _stopped_short({"no_witness": done, "witness_time": 1}, 10)  # a finished search is not short
    assert not _stopped_short({"witness": {"test": "..."}}, 10)
    assert not _stopped_short(None, 10)
    broken = {**ran_out, "reason": "no witness was searched: the search stopped on an internal error (OSError: x)"}
    with pytest.raises(ValueError):  # a search that broke runs again
        _witness_from_record({"no_witness": broken})
