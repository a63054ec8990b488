from elenchus.cohorts import build_cohorts, selected_tests, unneeded_plugins
from elenchus.session import open_session


def test_cohorts_existing_holds_head_production_with_the_pre_change_tests(build_scenario, tmp_path):
    with open_session(build_scenario("weakened-test"), None, None) as session:
        tests = selected_tests(session.change, session.head)
        existing, modified = build_cohorts(session.change, session.base, session.head, tmp_path, tests)
        assert (existing.template / "tests/test_core.py").read_text() == session.base.read("tests/test_core.py")
        assert (modified.template / "tests/test_core.py").read_text() == session.head.read("tests/test_core.py")
        for cohort in (existing, modified):
            assert (cohort.template / "src/batching/core.py").read_text() == session.head.read(
                "src/batching/core.py")
        assert existing.same_as is None and tests == ("tests/test_core.py",)


def test_cohorts_without_a_test_change_share_one_template(build_scenario, tmp_path):
    with open_session(build_scenario("baseline-red"), None, None) as session:
        tests = selected_tests(session.change, session.head)
        existing, modified = build_cohorts(session.change, session.base, session.head, tmp_path, tests)
    assert existing.same_as == "modified" and existing.template == modified.template


def test_cohorts_skip_the_hypothesis_plugin_only_for_suites_that_never_mention_it(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_a.py").write_text("def test_a():\n    assert 1 + 1 == 2\n")
    assert unneeded_plugins(tmp_path, ("tests/test_a.py",)) == ("hypothesispytest",)
    (tmp_path / "tests/test_b.py").write_text("from hypothesis import given\n")
    assert unneeded_plugins(tmp_path, ("tests/test_a.py", "tests/test_b.py")) == ()
