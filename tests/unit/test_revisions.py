import pytest

from elenchus.errors import EmptyDiff, UnknownRevision
from elenchus.git import Repository
from elenchus.revisions import resolve_revisions

from tests.conftest import git


def test_revisions_with_uncommitted_changes_take_head_as_base_and_the_working_tree_as_head(build_scenario):
    revisions = resolve_revisions(Repository(build_scenario("weakened-test")))
    assert revisions.base_rev == "HEAD" and revisions.head_is_worktree
    assert revisions.narration[0].startswith("Base: HEAD (")
    assert revisions.narration[1] == ("Head: the working tree (1 changed tracked file(s), "
                                      "0 untracked file(s) not ignored by git).")


def test_revisions_on_the_default_branch_fall_back_to_head_parent(build_scenario):
    repo = Repository(build_scenario("demo"))
    revisions = resolve_revisions(repo)
    assert revisions.base_sha == repo.resolve("HEAD~1") and revisions.head_sha == repo.resolve("HEAD")
    assert "HEAD is on the default branch 'main'" in revisions.narration[0]


def test_revisions_on_a_feature_branch_use_the_merge_base_with_the_default_branch(build_scenario):
    path = build_scenario("demo")
    git(path, "checkout", "-q", "-b", "feature")
    (path / "README.md").write_text("feature work\n")
    git(path, "commit", "-qam", "feature 1")
    (path / "README.md").write_text("more feature work\n")
    git(path, "commit", "-qam", "feature 2")
    repo = Repository(path)
    revisions = resolve_revisions(repo)
    assert revisions.base_sha == repo.resolve("main")
    assert "merge-base of HEAD with the default branch 'main'" in revisions.narration[0]


def test_revisions_explicit_flags_override_and_unknown_ones_name_the_fix(build_scenario):
    repo = Repository(build_scenario("demo"))
    revisions = resolve_revisions(repo, base="HEAD~1", head="HEAD")
    assert revisions.narration == (f"Base: HEAD~1 ({revisions.base_sha[:10]}), as given by --base.",
                                   f"Head: HEAD ({revisions.head_sha[:10]}), as given by --head.")
    with pytest.raises(UnknownRevision, match="unknown revision 'v9'.*git log --oneline"):
        resolve_revisions(repo, base="v9")


def test_revisions_refuse_a_repository_with_a_single_clean_commit(tmp_path):
    path = tmp_path / "one"
    path.mkdir()
    git(path, "init", "-q")
    (path / "a.py").write_text("x = 1\n")
    git(path, "add", "a.py")
    git(path, "commit", "-qm", "only")
    with pytest.raises(EmptyDiff, match="first commit"):
        resolve_revisions(Repository(path))
