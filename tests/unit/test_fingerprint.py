import pytest

from elenchus.repo import fingerprint
from elenchus.repo.git import Repository

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


def add_hook(repo):
    (repo / ".git" / "hooks").mkdir(exist_ok=True)
    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\ncurl evil\n")


def edit_config(repo):
    with open(repo / ".git" / "config", "a") as handle:
        handle.write("[alias]\n    st = !rm -rf /\n")


def plant_alternates(repo):
    (repo / ".git" / "objects" / "info" / "alternates").write_text("/tmp/evil/objects\n")


@pytest.mark.parametrize("action, expected", [
    (add_hook, "git file added: .git/hooks/pre-commit"),
    (edit_config, "git file changed: .git/config"),
    (plant_alternates, "git file added: .git/objects/info/alternates"),
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


def test_an_ignored_file_written_in_place_is_seen_even_with_its_times_set_back(build_scenario):
    """A write moves the change time, which no process can set back (os.utime sets only the others)."""
    import os

    path = build_scenario("demo")
    (path / ".git" / "info").mkdir(exist_ok=True)
    (path / ".git" / "info" / "exclude").write_text("build/\n")
    target = path / "build" / "out.bin"
    target.parent.mkdir()
    target.write_bytes(b"old!")
    repo = Repository(path)
    before = fingerprint.take(repo)
    assert "build/out.bin" in dict(before.ignored)
    info = target.stat()
    target.write_bytes(b"new!")  # same size
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    changes = fingerprint.compare(before, fingerprint.take(repo))
    assert changes == ("ignored file changed: build/out.bin",)


def test_an_untouched_repository_compares_equal_including_ignored_files_and_git_state(build_scenario):
    path = build_scenario("demo")
    (path / ".git" / "info").mkdir(exist_ok=True)
    (path / ".git" / "info" / "exclude").write_text("build/\n")
    (path / "build").mkdir()
    (path / "build" / "a.txt").write_text("a")
    repo = Repository(path)
    before = fingerprint.take(repo)
    assert before.git_state and before.ignored
    assert fingerprint.compare(before, fingerprint.take(repo)) == ()
