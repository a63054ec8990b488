import pytest

from elenchus.errors import EmptyDiff, UnknownRevision
from elenchus.repo.git import Repository
from elenchus.repo.revisions import resolve_revisions

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


def test_a_base_missing_from_a_shallow_clone_names_the_cause_and_the_fix_and_the_fix_works(tmp_path):
    import subprocess

    from tests.conftest import REAL_GIT, run_cli, write_tree

    origin = write_tree(tmp_path / "origin", {"calc.py": "def add(a, b):\n    return a + b\n"})
    git(origin, "init", "-q", "-b", "main")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "one")
    write_tree(origin, {"calc.py": "def add(a, b):\n    return b + a\n"})
    git(origin, "commit", "-q", "-am", "two")
    clone = tmp_path / "clone"
    subprocess.run([REAL_GIT, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)], check=True)
    assert Repository(clone).shallow

    done = run_cli("changes", "--repo", str(clone))
    assert done.returncode == 4, done.stderr  # blocked: nothing to compare with until the history is fetched
    message = done.stderr
    assert message.startswith("elenchus: snapshot unavailable: HEAD~1 is not in the local object store")
    assert f"The cause: {clone} is a shallow clone" in message and "HEAD~1 is not among them." in message
    for fix in ("`git fetch --deepen N`", "`git fetch --unshallow`", "actions/checkout `fetch-depth: 0`"):
        assert fix in message
    assert git(clone, "rev-parse", "HEAD").strip() not in message  # the revision by its name, not a bare SHA

    unknown = run_cli("changes", "--repo", str(clone), "--base", "no-such-branch")
    assert unknown.returncode == 4 and "shallow clone" in unknown.stderr
    assert "or is not a name git knows" in unknown.stderr  # a name that may be misspelled is not called missing

    git(clone, "fetch", "-q", "--deepen", "1")  # the fix the message gives (the test fetches; Elenchus never does)
    done = run_cli("changes", "--repo", str(clone))
    assert done.returncode == 0, done.stderr
    assert "calc.py" in done.stdout


def test_a_revision_missing_from_a_full_clone_says_nothing_about_shallow_clones(build_scenario):
    repo = Repository(build_scenario("demo"))
    assert not repo.shallow
    assert "shallow" not in repo.unavailable("HEAD~1").message
