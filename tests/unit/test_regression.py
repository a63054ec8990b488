"""The regression search's planning: weakened checks, the lines they executed, the candidate pool."""

from __future__ import annotations

from pathlib import Path

from elenchus.config import Settings
from elenchus.repo.discover import discover
from elenchus.analysis.regression import IMPORT_CONTEXT, WeakenedCheck, candidate_pool, lines_by_check, weakened_checks
from elenchus.repo.snapshot import Snapshot

from tests.conftest import write_tree

PRODUCTION = """
    def area(width, height):
        return width * height


    def double(n):
        return n * 2


    def unrelated(text):
        return text.strip()
"""
BASE_TESTS = """
    from pkg.mod import area, double


    def test_area():
        assert area(2, 3) == 6


    def test_double():
        assert double(4) == 8


    def test_kept():
        assert double(1) == 2
"""
HEAD_TESTS = """
    import pytest

    from pkg.mod import double


    @pytest.mark.skip(reason="slow")
    def test_double():
        assert double(4) == 8


    def test_kept():
        assert double(1) == 2
"""


def snapshot(root: Path, files: dict[str, str], label: str) -> Snapshot:
    write_tree(root, files)
    listed = tuple(sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()))
    return Snapshot(root, label, label.upper(), None, listed, ())


def change_pair(tmp_path: Path) -> tuple[Snapshot, Snapshot]:
    common = {"pkg/__init__.py": "", "pkg/mod.py": PRODUCTION}
    base = snapshot(tmp_path / "base", {**common, "tests/test_mod.py": BASE_TESTS}, "base")
    head = snapshot(tmp_path / "head", {**common, "tests/test_mod.py": HEAD_TESTS}, "head")
    return base, head


def test_weakened_checks_name_each_base_test_the_change_deleted_or_skipped(tmp_path):
    base, head = change_pair(tmp_path)
    checks = weakened_checks(discover(base, head, Settings()), base, head)
    assert {(c.nodeid, c.kind) for c in checks} == {
        ("tests/test_mod.py::test_area", "deleted-test"),
        ("tests/test_mod.py::test_double", "skipped-test"),
    }
    assert all(c.detail for c in checks)


def test_a_change_without_test_changes_has_no_weakened_checks(tmp_path):
    base, _ = change_pair(tmp_path)
    assert weakened_checks(discover(base, base, Settings()), base, base) == ()


def test_a_check_matches_its_parametrized_node_ids_but_not_a_longer_name():
    check = WeakenedCheck("tests/t.py", "test_sign", "deleted-test", 3, "rows removed", None)
    assert check.matches("tests/t.py::test_sign[-5--1]")
    assert check.matches("tests/t.py::test_sign")
    assert not check.matches("tests/t.py::test_sign_of_zero")


def test_lines_by_check_leaves_out_what_importing_the_modules_ran(tmp_path):
    check = WeakenedCheck("tests/test_mod.py", "test_area", "deleted-test", 5, "removed", None)
    coverage = (("pkg/mod.py", IMPORT_CONTEXT, (1, 5, 9)), ("pkg/mod.py", "tests/test_mod.py::test_area", (2,)),
                ("pkg/mod.py", "tests/test_mod.py::test_kept", (6,)))
    assert lines_by_check([check], coverage) == {check: {"pkg/mod.py": {2}}}


def test_the_pool_holds_mutants_of_the_code_each_check_ran_taking_turns_within_the_budget(tmp_path):
    base, head = change_pair(tmp_path)
    area = WeakenedCheck("tests/test_mod.py", "test_area", "deleted-test", 5, "removed", None)
    double = WeakenedCheck("tests/test_mod.py", "test_double", "skipped-test", 9, "skipped", None)
    executed = {area: {"pkg/mod.py": {2}}, double: {"pkg/mod.py": {6}}}
    pool = candidate_pool([area, double], executed, head, base, None, set(), budget=3)
    assert len(pool) == 3
    symbols = [mutant.symbol for mutant, _ in pool]
    assert symbols[:2] == ["area", "double"]  # each check takes its turn, riskiest first
    assert symbols.count("double") == 2  # area has one candidate (`return None`); double takes the rest
    assert "unrelated" not in symbols  # no check ran it
    owners = {mutant.symbol: {c.test for c in checks} for mutant, checks in pool}
    assert owners == {"area": {"test_area"}, "double": {"test_double"}}
    already = {pool[0][0].id}
    assert pool[0][0].id not in {m.id for m, _ in candidate_pool([area, double], executed, head, base, None,
                                                                  already, budget=3)}


def test_mutants_on_lines_no_current_test_runs_come_first(tmp_path):
    base, head = change_pair(tmp_path)
    check = WeakenedCheck("tests/test_mod.py", "test_both", "deleted-test", 5, "removed", None)
    executed = {check: {"pkg/mod.py": {2, 6}}}
    current = (("pkg/mod.py", "tests/test_mod.py::test_kept", (6,)),)  # double is still run by test_kept
    pool = candidate_pool([check], executed, head, base, None, set(), budget=2, current=current)
    assert pool[0][0].symbol == "area"  # only the weakened test ran area: a lost catch hides there


GENDERED = """
    def ordinal(n, gender="male"):
        word = "er" if gender == "male" else "re"
        return f"{n}{word}"


    def width(n):
        return n * 2
"""
GENDER_TESTS = """
    import pytest

    from pkg.mod import ordinal, width


    @pytest.mark.parametrize(("n", "gender", "expected"), [(1, "male", "1er"), (1, "female", "1re")])
    def test_genders(n, gender, expected):
        assert ordinal(n, gender=gender) == expected
        assert width(0) == 0
"""


def test_mutants_of_lines_holding_a_value_the_weakened_test_writes_come_first(tmp_path):
    common = {"pkg/__init__.py": "", "pkg/mod.py": GENDERED}
    base = snapshot(tmp_path / "base", {**common, "tests/test_mod.py": GENDER_TESTS}, "base")
    head = snapshot(tmp_path / "head", {**common, "tests/test_mod.py": "def test_nothing():\n    pass\n"}, "head")
    check = WeakenedCheck("tests/test_mod.py", "test_genders", "deleted-test", 7, "removed", None)
    executed = {check: {"pkg/mod.py": {1, 2, 3, 6, 7}}}
    pool = candidate_pool([check], executed, head, base, None, set(), budget=64)
    lines = [mutant.line for mutant, _ in pool]
    assert set(lines) == {1, 2, 3, 7}
    written = [i for i, line in enumerate(lines) if line in (1, 2)]  # they hold "male", "er", "re"
    assert max(written) < min(i for i, line in enumerate(lines) if line in (3, 7))
