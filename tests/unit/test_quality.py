"""quality: Test Quality Concerns found by reading test files (SPEC 4.6)."""

from __future__ import annotations

import random
import textwrap

import pytest

from elenchus.analysis.quality import (
    Concern,
    ConcernKind,
    TestFile,
    analyze,
    dynamic_concerns,
    flaky_concern,
)

PATH = "tests/test_stack.py"


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def found(head: str | None, base: str | None = None, path: str = PATH) -> list[tuple[str, int, str | None]]:
    """(kind, line, test) of every concern for one test file, in report order."""
    head = src(head) if head is not None else None
    base = src(base) if base is not None else None
    return [(c.kind, c.line, c.test) for c in analyze([TestFile(path, head, base)])]


def concerns(head: str, base: str | None = None) -> tuple[Concern, ...]:
    return analyze([TestFile(PATH, src(head), src(base) if base is not None else None)])


# --------------------------------------------------------------------------- no-assertion


def test_quality_flags_a_test_without_any_assertion_at_its_def_line():
    head = """
        import pytest

        @pytest.mark.parametrize("n", [1, 2])
        def test_push(n):
            stack = make_stack()
            stack.push(n)
    """
    assert found(head) == [("no-assertion", 4, "test_push")]


def test_quality_does_not_flag_helpers_fixtures_or_conftest_hooks_for_missing_assertions():
    head = """
        import pytest

        def make_stack():
            return []

        @pytest.fixture
        def stack():
            return make_stack()

        @pytest.fixture
        def test_data():
            return [1, 2]

        def pytest_configure(config):
            config.addinivalue_line("markers", "slow")

        class StackBuilder:
            def test_like_method(self):
                return 1
    """
    assert found(head) == []


def test_quality_counts_self_asserts_raises_and_checking_helpers_as_assertions():
    head = """
        import pytest
        import unittest

        def test_raises():
            with pytest.raises(IndexError):
                [].pop()

        def test_warns():
            with pytest.warns(DeprecationWarning):
                old()

        def test_helper():
            check_stack_is_empty(make_stack())

        def test_verify():
            verify(make_stack())

        def test_expect():
            expect(pop()).to_equal(3)

        def test_fails_explicitly():
            if pop() != 3:
                raise AssertionError("wrong")

        class StackTests(unittest.TestCase):
            def test_equal(self):
                self.assertEqual(pop(), 3)
    """
    assert found(head) == []


def test_quality_counts_a_call_of_a_local_helper_that_asserts_as_an_assertion():
    head = """
        import unittest

        def _same_items(left, right):
            assert sorted(left) == sorted(right)

        def run_case(items):
            _same_items(chunks(items, 2), items)

        def make_stack():
            return []

        def test_through_two_helpers():
            run_case([1, 2, 3])

        def test_through_a_helper_that_does_not_assert():
            make_stack()

        class ChunkTests(unittest.TestCase):
            def render(self, items):
                self.assertEqual(chunks(items, 2), [items])

            def test_through_a_method(self):
                self.render([1])
    """
    assert found(head) == [("no-assertion", 15, "test_through_a_helper_that_does_not_assert")]


def test_quality_does_not_take_expected_or_checkout_for_assertion_helpers():
    head = """
        def test_build():
            expected = expected_output()
            checkout(expected)
    """
    assert found(head) == [("no-assertion", 1, "test_build")]


# --------------------------------------------------------------------------- weak-assertion


def test_quality_yields_nothing_for_a_strong_equality_assertion():
    head = """
        def test_chunks_splits_the_tail():
            assert chunks([1, 2, 3], 2) == [[1, 2], [3]]
    """
    assert found(head) == []


def test_quality_flags_a_truthiness_assert_on_a_call_as_weak_assertion():
    head = """
        def test_chunks():
            assert chunks([1, 2, 3], 2)
    """
    result = concerns(head)
    assert [(c.kind, c.line, c.test) for c in result] == [("weak-assertion", 2, "test_chunks")]
    assert "truthy" in result[0].why


@pytest.mark.parametrize("assertion", [
    "assert result",
    "assert result is not None",
    "assert len(result) > 0",
    "assert len(result) >= 1",
    "assert len(result) != 0",
    "assert 0 < len(result)",
])
def test_quality_flags_each_weak_assertion_form(assertion):
    head = f"""
        def test_chunks():
            result = chunks([1, 2, 3], 2)
            {assertion}
    """
    assert found(head) == [("weak-assertion", 3, "test_chunks")]


@pytest.mark.parametrize("assertion", [
    "assert not result",
    "assert result == [[1, 2], [3]]",
    "assert len(result) == 2",
    "assert [3] in result",
    "assert os.path.isfile(result)",
    "assert result.is_empty()",
    "assert result.startswith('x')",
    "assert re.search('a+', result)",
    "assert result.has_items",
    "assert Validator(result).is_valid(3)",
])
def test_quality_does_not_flag_obviously_boolean_assertions(assertion):
    head = f"""
        def test_chunks():
            result = chunks([1, 2, 3], 2)
            {assertion}
    """
    assert found(head) == []


def test_quality_does_not_flag_a_not_none_guard_before_a_real_check_on_the_same_value():
    head = """
        def test_total():
            order = load_order(7)
            assert order is not None
            assert order.total == 30
    """
    assert found(head) == []


def test_quality_flags_isinstance_only_when_it_is_the_only_assertion():
    only = """
        def test_parse():
            assert isinstance(parse("1"), int)
    """
    with_value = """
        def test_parse():
            value = parse("1")
            assert isinstance(value, int)
            assert value == 1
    """
    assert found(only) == [("weak-assertion", 2, "test_parse")]
    assert found(with_value) == []


def test_quality_flags_unittest_assert_true_on_a_value_and_assert_is_not_none():
    head = """
        import unittest

        class ParseTests(unittest.TestCase):
            def test_truthy(self):
                self.assertTrue(parse("1"))

            def test_not_none(self):
                self.assertIsNotNone(parse("1"))

            def test_comparison(self):
                self.assertTrue(parse("1") == 1)

            def test_type_only(self):
                self.assertIsInstance(parse("1"), int)
    """
    assert found(head) == [
        ("weak-assertion", 5, "ParseTests::test_truthy"),
        ("weak-assertion", 8, "ParseTests::test_not_none"),
        ("weak-assertion", 14, "ParseTests::test_type_only"),
    ]


# --------------------------------------------------------------------------- interaction-assertion


def test_quality_flags_mock_call_assertions_as_interaction_assertions():
    head = """
        from unittest import mock

        def test_save_calls_repository():
            repo = mock.Mock()
            save(repo, 3)
            repo.insert.assert_called_once_with(3)

        def test_save_counts_calls():
            repo = mock.Mock()
            save(repo, 3)
            assert repo.insert.call_count == 1

        class SaveTests:
            pass
    """
    result = concerns(head)
    assert [(c.kind, c.line, c.test) for c in result] == [
        ("interaction-assertion", 6, "test_save_calls_repository"),
        ("interaction-assertion", 11, "test_save_counts_calls"),
    ]
    assert "how a dependency was called" in result[0].why
    assert "output" in result[0].why


def test_quality_flags_call_args_compared_through_a_unittest_assert():
    head = """
        import unittest

        class SaveTests(unittest.TestCase):
            def test_args(self):
                save(self.repo, 3)
                self.assertEqual(self.repo.insert.call_args, mock.call(3))
    """
    assert found(head) == [("interaction-assertion", 6, "SaveTests::test_args")]


# --------------------------------------------------------------------------- private-access


def test_quality_flags_private_attribute_access_on_the_object_under_test():
    head = """
        class TestStack:
            def test_push(self):
                stack = Stack()
                stack.push(1)
                assert stack._items == [1]
    """
    result = concerns(head)
    assert [(c.kind, c.line, c.test) for c in result] == [("private-access", 5, "TestStack::test_push")]
    assert "`_items`" in result[0].why


def test_quality_allows_self_private_helpers_dunders_and_namedtuple_api():
    head = """
        class TestStack:
            def test_push(self):
                stack = self._make()
                point = Point(1, 2)._replace(x=3)
                assert stack.__class__.__name__ == "Stack"
                assert point == Point(3, 2)
    """
    assert found(head) == []


def test_quality_flags_a_private_import_from_production_code_at_module_level():
    head = """
        from stack.core import _grow, Stack
        from tests._support import build

        def test_grow():
            assert _grow([1]) == [1, None]
    """
    assert found(head) == [("private-access", 1, None)]


# --------------------------------------------------------------------------- sleep and randomness


def test_quality_flags_sleep_calls_in_tests_but_not_a_zero_asyncio_yield():
    head = """
        import asyncio
        import time
        from time import sleep

        def test_worker_finishes():
            start_worker()
            time.sleep(0.5)
            assert status() == "done"

        def test_again():
            sleep(1)
            assert status() == "done"

        async def test_yield():
            await asyncio.sleep(0)
            assert status() == "done"
    """
    assert found(head) == [
        ("sleep", 7, "test_worker_finishes"),
        ("sleep", 11, "test_again"),
    ]


def test_quality_flags_unseeded_random_calls_in_a_test_file():
    head = """
        import random
        from random import shuffle

        def test_sort():
            items = [random.randint(0, 9) for _ in range(5)]
            shuffle(items)
            assert sorted(items) == sorted(items, key=int)
    """
    assert found(head) == [
        ("unseeded-randomness", 5, "test_sort"),
        ("unseeded-randomness", 6, "test_sort"),
    ]


@pytest.mark.parametrize("seeding", ["random.seed(1234)", "rng = random.Random(1234)"])
def test_quality_yields_no_randomness_concern_for_a_seeded_file(seeding):
    head = f"""
        import random

        {seeding}

        def test_sort():
            items = random.sample(range(10), 5)
            assert sorted(items) == sorted(items, key=int)
    """
    assert found(head) == []


# --------------------------------------------------------------------------- broad-raises


@pytest.mark.parametrize("raises", [
    "pytest.raises(Exception)",
    "pytest.raises(BaseException)",
    "pytest.raises((ValueError, Exception))",
])
def test_quality_flags_pytest_raises_on_a_catch_all_exception(raises):
    head = f"""
        import pytest

        def test_pop_empty():
            with {raises}:
                Stack().pop()
    """
    assert found(head) == [("broad-raises", 4, "test_pop_empty")]


def test_quality_flags_assert_raises_exception_in_a_unittest_case():
    head = """
        import unittest

        class StackTests(unittest.TestCase):
            def test_pop_empty(self):
                with self.assertRaises(Exception):
                    Stack().pop()
    """
    assert found(head) == [("broad-raises", 5, "StackTests::test_pop_empty")]


@pytest.mark.parametrize("raises", [
    "pytest.raises(IndexError)",
    "pytest.raises(Exception, match='empty stack')",
])
def test_quality_does_not_flag_specific_or_message_matched_raises(raises):
    head = f"""
        import pytest

        def test_pop_empty():
            with {raises}:
                Stack().pop()
    """
    assert found(head) == []


# --------------------------------------------------------------------------- try-except-in-test


def test_quality_flags_a_try_except_that_can_swallow_the_failure():
    head = """
        def test_pop_empty():
            try:
                Stack().pop()
            except IndexError as error:
                assert str(error) == "empty"
    """
    result = concerns(head)
    assert [(c.kind, c.line, c.test) for c in result] == [("try-except-in-test", 2, "test_pop_empty")]
    assert "pytest.raises" in result[0].why


def test_quality_does_not_flag_try_blocks_that_reraise_fail_or_only_finally():
    head = """
        import pytest

        def test_reraise():
            try:
                assert pop() == 3
            except KeyError:
                raise

        def test_fail():
            try:
                assert pop() == 3
            except KeyError:
                pytest.fail("pop must not raise")

        def test_cleanup():
            try:
                assert pop() == 3
            finally:
                reset()
    """
    assert found(head) == []


# --------------------------------------------------------------------------- removed-test


def test_quality_flags_a_removed_test_at_its_line_in_base():
    base = """
        def test_push():
            assert push(1) == [1]

        class TestPop:
            def test_pop_empty(self):
                assert pop([]) is None
    """
    head = """
        def test_push():
            assert push(1) == [1]
    """
    result = concerns(head, base)
    assert [(c.kind, c.line, c.test) for c in result] == [("removed-test", 5, "TestPop::test_pop_empty")]
    assert "TestPop::test_pop_empty" in result[0].why


def test_quality_flags_every_test_of_a_deleted_file():
    base = """
        def test_push():
            assert push(1) == [1]

        def test_pop():
            assert pop([1]) == 1
    """
    assert found(None, base) == [("removed-test", 1, "test_push"), ("removed-test", 4, "test_pop")]


def test_quality_does_not_report_a_renamed_or_moved_test_as_removed():
    base = """
        def test_push():
            assert push(1) == [1]
    """
    renamed = """
        def test_push_appends_the_item():
            assert push(1) == [1]
    """
    moved = analyze([
        TestFile("tests/test_old.py", None, src(base)),
        TestFile("tests/test_new.py", src(base), None),
    ])
    assert found(renamed, base) == []
    assert moved == ()


def test_quality_a_test_moved_into_a_class_of_its_file_and_rewritten_is_not_removed():
    # (titlecase 2.4 rewrote `def test_initials_regex(): assert ...` as a unittest method of that name)
    base = """
        def test_initials_regex():
            assert bool(UC_INITIALS.match("A.B")) is True

        def test_at_and_t():
            assert titlecase("at&t", callback=at_n_t) == "AT&T"
    """
    head = """
        import unittest

        class TestInitialsRegex(unittest.TestCase):
            def test_initials_regex(self):
                self.assertRegex("A.B", UC_INITIALS)

        class TestSymbols(unittest.TestCase):
            def test_at_n_t(self):
                self.assertEqual(titlecase("at&t", callback=at_n_t), "AT&T")
    """
    # renamed and rewritten at once is beyond telling apart from a removal: that one stays
    assert found(head, base) == [("removed-test", 4, "test_at_and_t")]
    # a name that arrives twice could continue either, so the removal is not explained away
    twice = src(head) + "\nclass TestMore(unittest.TestCase):\n    def test_initials_regex(self):\n        pass\n"
    assert [(k, t) for k, _, t in found(twice, base) if k == "removed-test"] == [
        ("removed-test", "test_initials_regex"), ("removed-test", "test_at_and_t")]


def test_quality_a_test_moved_into_a_class_in_another_file_with_its_skip_is_neither_removed_nor_a_new_skip():
    base = """
        import pytest

        @pytest.mark.skip(reason="slow")
        def test_push():
            assert push(1) == [1]
            assert push(2) == [2]
    """
    head = """
        import pytest

        class TestStack:
            @pytest.mark.skip(reason="slow")
            def test_push(self):
                assert push(1) == [1]
                assert push(2) == [2]
    """
    moved = analyze([
        TestFile("tests/test_old.py", "import pytest\n", src(base)),
        TestFile("tests/test_stack.py", src(head), None),
    ])
    assert [(c.kind, c.test) for c in moved if c.kind in ("removed-test", "added-skip")] == []
    # a skip the move added is still one
    skipped = head.replace('@pytest.mark.skip(reason="slow")', '@pytest.mark.xfail(reason="flaky")')
    moved = analyze([
        TestFile("tests/test_old.py", "import pytest\n", src(base)),
        TestFile("tests/test_stack.py", src(skipped), None),
    ])
    assert [(c.kind, c.test) for c in moved if c.kind in ("removed-test", "added-skip")] == [
        ("added-skip", "TestStack::test_push")]


# --------------------------------------------------------------------------- added-skip


def test_quality_flags_a_skip_decorator_added_to_an_existing_test():
    base = """
        import pytest

        def test_push():
            assert push(1) == [1]
    """
    head = """
        import pytest

        @pytest.mark.skip(reason="flaky on CI")
        def test_push():
            assert push(1) == [1]
    """
    result = concerns(head, base)
    assert [(c.kind, c.line, c.test) for c in result] == [("added-skip", 3, "test_push")]
    assert "pytest.mark.skip" in result[0].why


def test_quality_does_not_flag_a_skip_the_test_already_had_in_base():
    base = """
        import sys
        import pytest

        @pytest.mark.skipif(sys.platform == "win32", reason="posix only")
        def test_fork():
            assert fork() == 0
    """
    assert found(base, base) == []


def test_quality_flags_added_runtime_skips_class_skips_and_module_marks():
    base = """
        import unittest
        import pytest

        def test_pop():
            assert pop([1]) == 1

        class StackTests(unittest.TestCase):
            def test_push(self):
                self.assertEqual(push(1), [1])
    """
    head = """
        import unittest
        import pytest

        pytestmark = [pytest.mark.xfail(reason="rewrite pending")]

        def test_pop():
            pytest.skip("later")
            assert pop([1]) == 1

        @unittest.skip("later")
        class StackTests(unittest.TestCase):
            def test_push(self):
                self.assertEqual(push(1), [1])
    """
    assert found(head, base) == [
        ("added-skip", 4, None),
        ("added-skip", 7, "test_pop"),
        ("added-skip", 10, "StackTests"),
    ]


def test_quality_flags_a_skip_on_a_test_in_a_newly_added_file():
    head = """
        import unittest

        class StackTests(unittest.TestCase):
            @unittest.expectedFailure
            def test_push(self):
                self.assertEqual(push(1), [1])
    """
    assert found(head, None) == [("added-skip", 4, "StackTests::test_push")]


# --------------------------------------------------------------------------- collection rules


def test_quality_names_tests_in_nested_classes_and_unittest_subclasses_qualified():
    head = """
        import unittest

        class Base(unittest.TestCase):
            pass

        class StackTests(Base):
            def test_push(self):
                push(1)

        class TestStack:
            class TestPop:
                async def test_pop(self):
                    await pop()

        class TestWithInit:
            def __init__(self):
                pass

            def test_ignored(self):
                pass
    """
    assert found(head) == [
        ("no-assertion", 7, "StackTests::test_push"),
        ("no-assertion", 12, "TestStack::TestPop::test_pop"),
    ]


def test_quality_reports_an_unparseable_head_as_one_concern_instead_of_raising():
    head = """
        def test_push(:
            assert push(1) == [1]
    """
    result = analyze([TestFile(PATH, src(head), None)])
    assert [(c.kind, c.test) for c in result] == [("unparseable-test-file", None)]
    assert result[0].line >= 1
    assert "could not be parsed" in result[0].why


def test_quality_still_examines_the_head_when_only_the_base_is_unparseable():
    base = "def test_push(:\n"
    head = """
        def test_push():
            push(1)
    """
    kinds = {(c.kind, c.test) for c in analyze([TestFile(PATH, src(head), base)])}
    assert kinds == {("unparseable-test-file", None), ("no-assertion", "test_push")}


def test_quality_orders_concerns_by_path_line_and_kind_whatever_the_input_order():
    files = [
        TestFile("tests/test_b.py", "def test_b():\n    time.sleep(1)\n", None),
        TestFile("tests/test_a.py", "def test_a():\n    pass\n\ndef test_c():\n    assert f()\n", None),
    ]
    shuffled = list(files)
    random.Random(7).shuffle(shuffled)
    result = analyze(files)
    assert [(c.path, c.line, c.kind) for c in result] == [
        ("tests/test_a.py", 1, "no-assertion"),
        ("tests/test_a.py", 5, "weak-assertion"),
        ("tests/test_b.py", 1, "no-assertion"),
        ("tests/test_b.py", 2, "sleep"),
    ]
    assert analyze(shuffled) == result


def test_quality_concern_kind_is_a_plain_string_id():
    concern = Concern(PATH, 1, "test_push", ConcernKind.SLEEP, "why")
    assert type(concern.kind) is str
    assert concern.kind == "sleep"


# --------------------------------------------------------------------------- dynamic concerns


def test_quality_flags_fixture_cost_when_setup_dominates_the_test():
    durations = {
        "tests/test_db.py::TestRepo::test_insert[pg]": (2.5, 0.2),
        "tests/test_db.py::test_cheap": (0.9, 0.0),  # setup under a second
        "tests/test_db.py::test_slow_body": (1.5, 0.6),  # setup not 3x the call
    }
    result = dynamic_concerns(durations)
    assert [(c.path, c.test, c.kind, c.line) for c in result] == [
        ("tests/test_db.py", "TestRepo::test_insert[pg]", "fixture-cost", 0),
    ]
    assert "2.50s" in result[0].why and "0.20s" in result[0].why


def test_quality_builds_a_flaky_concern_from_a_nodeid():
    concern = flaky_concern("tests/test_db.py::TestRepo::test_insert")
    assert (concern.path, concern.test, concern.kind) == ("tests/test_db.py", "TestRepo::test_insert", "flaky")
    assert "neither a kill nor a survival" in concern.why


def test_quality_keeps_a_nodeid_without_a_test_part_as_a_file_concern():
    concern = flaky_concern("tests/test_db.py")
    assert (concern.path, concern.test) == ("tests/test_db.py", None)
