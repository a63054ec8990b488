import pytest

from elenchus import scratch
from elenchus.errors import ElenchusError

from tests.conftest import git


@pytest.mark.parametrize("name", scratch.scenario_names())
def test_scratch_builds_each_fixture_scenario_as_a_valid_git_repository(name, build_scenario):
    repo = build_scenario(name)
    git(repo, "fsck", "--strict")
    scenario = scratch.load_scenario(name)
    assert len(git(repo, "log", "--format=%H").split()) == len(scenario.commits)
    status = git(repo, "status", "--porcelain")
    assert bool(status.strip()) == (scenario.worktree is not None)


def test_scratch_refuses_to_build_into_an_existing_directory(tmp_path):
    with pytest.raises(ElenchusError, match="existing path"):
        scratch.build("demo", tmp_path)


def test_scratch_names_the_known_scenarios_for_an_unknown_one():
    with pytest.raises(ElenchusError, match="known scenarios: .*demo"):
        scratch.load_scenario("nope")
