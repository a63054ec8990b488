import pytest

from elenchus import fingerprint
from elenchus.git import Repository

from tests.conftest import git


def edit_tracked(repo):
    (repo / "README.md").write_text("edited\n")


def add_untracked(repo):
    (repo / "scratch.txt").write_text("new\n")


def stage_change(repo):
    (repo / "README.md").write_text("staged\n")
    git(repo, "add", "README.md")


def move_ref(repo):
    git(repo, "update-ref", "refs/heads/main", "HEAD~1")


def new_stash(repo):
    (repo / "README.md").write_text("to stash\n")
    git(repo, "stash", "push", "-q")


@pytest.mark.parametrize("action, expected", [
    (edit_tracked, "file changed: README.md"),
    (add_untracked, "file added: scratch.txt"),
    (stage_change, "index changed"),
    (move_ref, "ref changed: refs/heads/main"),
    (new_stash, "stash created"),
])
def test_fingerprint_comparison_detects_each_kind_of_change(action, expected, build_scenario):
    path = build_scenario("demo")
    repo = Repository(path)
    before = fingerprint.take(repo)
    action(path)
    changes = fingerprint.compare(before, fingerprint.take(repo))
    assert any(change.startswith(expected) for change in changes), changes
    assert fingerprint.post_flight_sentence(changes) is None


def test_post_flight_sentence_appears_only_for_an_unchanged_comparison(build_scenario):
    repo = Repository(build_scenario("weakened-test"))
    before = fingerprint.take(repo)
    changes = fingerprint.compare(before, fingerprint.take(repo))
    assert changes == ()
    assert fingerprint.post_flight_sentence(changes) == (
        "The working tree was not modified during this Review-only run.")
    assert fingerprint.post_flight_sentence(None) is None
    assert before.digest() == fingerprint.take(repo).digest()
