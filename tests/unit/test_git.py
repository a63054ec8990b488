import pytest

from elenchus.repo import fingerprint
from elenchus.repo.discover import discover
from elenchus.errors import GitCallRefused
from elenchus.repo.git import ALLOWED_SUBCOMMANDS, Repository, git_argv
from elenchus.repo.revisions import resolve_revisions
from elenchus.repo.snapshot import materialize

GLOBAL_OPTIONS_WITH_VALUES = {"-c"}


def subcommand_of(argv: list[str]) -> str:
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in GLOBAL_OPTIONS_WITH_VALUES:
            skip = True
        elif not arg.startswith("-"):
            return arg
    raise AssertionError(f"no subcommand in {argv}")


@pytest.mark.parametrize("scenario", ["demo", "weakened-test"])
def test_git_calls_during_snapshot_discovery_and_fingerprint_are_allowlisted_with_no_pager(
        scenario, build_scenario, git_call_log):
    repo_path = build_scenario(scenario)
    repo = Repository(repo_path)
    before = fingerprint.take(repo)
    revisions = resolve_revisions(repo)
    base = materialize(repo, revisions.base_rev, revisions.base_sha, "base")
    head = materialize(repo, revisions.head_rev, revisions.head_sha, "head")
    try:
        discover(base, head)
    finally:
        base.remove()
        head.remove()
    fingerprint.compare(before, fingerprint.take(repo))
    calls = git_call_log()
    assert calls, "the shim saw no git call, so it was not on PATH"
    for argv in calls:
        assert argv[0] == "--no-pager"
        sub = subcommand_of(argv)
        assert sub in ALLOWED_SUBCOMMANDS
        if sub in {"diff", "show", "log"}:
            assert {"--no-ext-diff", "--no-textconv"} <= set(argv)


@pytest.mark.parametrize("subcommand", ["checkout", "stash", "worktree", "archive", "commit", "fetch", "reset"])
def test_git_gateway_refuses_a_write_subcommand_before_any_process_starts(subcommand, build_scenario,
                                                                           git_call_log):
    repo = Repository(build_scenario("demo"))
    started = len(git_call_log())
    with pytest.raises(GitCallRefused, match=f"refused git subcommand '{subcommand}'"):
        repo.run(subcommand)
    with pytest.raises(GitCallRefused):
        git_argv(subcommand, "--help")
    assert len(git_call_log()) == started


def test_git_gateway_scrubs_inherited_git_variables(build_scenario, monkeypatch, tmp_path):
    repo = Repository(build_scenario("demo"))
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    assert repo.text("rev-parse", "--show-toplevel").strip() == str(repo.root)


def test_a_stale_index_is_never_refreshed_in_place(build_scenario):
    """A fresh copy or restored backup leaves the index's cached file times stale; `git diff` would
    rewrite it. Elenchus's diff refreshes a private copy, and still sees the real change."""
    import os
    import time

    path = build_scenario("demo")
    repo = Repository(path)
    later = time.time() + 5
    for tracked in repo.text("ls-files", "-z").split("\0"):
        if tracked:
            os.utime(path / tracked, (later, later))  # stat-dirty, content unchanged
    readme = next(p for p in repo.text("ls-files", "-z").split("\0") if p)
    with open(path / readme, "a") as handle:
        handle.write("edited\n")
    index = path / ".git" / "index"
    before = (index.read_bytes(), index.stat().st_mtime_ns, index.stat().st_ctime_ns)
    changed = repo.text("diff", "-z", "--name-only", "HEAD").split("\0")
    assert [p for p in changed if p] == [readme]
    assert (index.read_bytes(), index.stat().st_mtime_ns, index.stat().st_ctime_ns) == before
