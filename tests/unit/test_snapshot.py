import os
import stat
import subprocess

import pytest

from elenchus.repo import fingerprint
from elenchus.errors import SnapshotUnavailable
from elenchus.repo.git import Repository
from elenchus.repo.snapshot import WORKTREE, materialize, materialize_commit, materialize_worktree

from tests.conftest import REAL_GIT, git


@pytest.fixture
def repo_with_modes_and_secrets(build_scenario):
    path = build_scenario("demo")
    (path / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (path / "run.sh").chmod(0o755)
    os.symlink("src/batching/core.py", path / "core_link.py")
    (path / ".env").write_text("TOKEN=do-not-copy\n")
    (path / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "add script, link and secrets")
    (path / "src/batching/core.py").write_text((path / "src/batching/core.py").read_text() + "\n# edited\n")
    (path / "notes.txt").write_text("untracked but not ignored\n")
    (path / ".gitignore").write_text("ignored.log\n")
    (path / "ignored.log").write_text("ignored\n")
    return path


def git_tree(repo, rev):
    """{path: (mode, bytes)} as git itself holds the commit."""
    out = git(repo, "ls-tree", "-r", "-z", rev).split("\0")
    tree = {}
    for entry in filter(None, out):
        meta, path = entry.split("\t", 1)
        mode, _, sha = meta.split()
        data = subprocess.run([REAL_GIT, "cat-file", "blob", sha], cwd=repo, capture_output=True).stdout
        tree[path] = (mode, data)
    return tree


def disk_tree(root):
    tree = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            info = os.lstat(full)
            if stat.S_ISLNK(info.st_mode):
                tree[rel] = ("120000", os.readlink(full).encode())
            else:
                mode = "100755" if info.st_mode & stat.S_IXUSR else "100644"
                tree[rel] = (mode, open(full, "rb").read())
    return tree


@pytest.mark.parametrize("rev", ["HEAD~2", "HEAD~1", "HEAD"])
def test_snapshot_of_a_commit_is_byte_identical_to_git_with_modes_and_symlinks(rev, repo_with_modes_and_secrets):
    path = repo_with_modes_and_secrets
    repo = Repository(path)
    before = fingerprint.take(repo)
    snap = materialize_commit(repo, rev, repo.resolve(rev), "base")
    try:
        expected = {p: v for p, v in git_tree(path, rev).items() if p not in (".env", "id_rsa")}
        assert disk_tree(snap.root) == expected
        assert not (snap.root / ".git").exists()
        assert not snap.root.resolve().is_relative_to(path.resolve())
        if rev == "HEAD":
            assert sorted(snap.excluded) == [".env: secret-looking file", "core_link.py: symlink (not followed)",
                                             "id_rsa: secret-looking file"]
            assert disk_tree(snap.root)["run.sh"][0] == "100755"
            assert disk_tree(snap.root)["core_link.py"][0] == "120000"
    finally:
        snap.remove()
    assert fingerprint.compare(before, fingerprint.take(repo)) == ()


def test_a_symlink_is_never_read_through_and_is_listed_as_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ext.py").write_text("def secret():\n    return 42\n")
    repo_path = tmp_path / "repo"
    (repo_path / "pkg").mkdir(parents=True)
    (repo_path / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    os.symlink(outside / "ext.py", repo_path / "pkg" / "ext.py")  # out of the repository, to Python
    os.symlink(outside / "missing.py", repo_path / "pkg" / "gone.py")  # to nothing
    os.symlink("mod.py", repo_path / "pkg" / "alias.py")  # inside, to a tracked file
    git(repo_path, "init", "-q", "-b", "main")
    git(repo_path, "add", "-A")
    git(repo_path, "commit", "-qm", "links")
    repo = Repository(repo_path)
    for snap in (materialize_commit(repo, "HEAD", repo.resolve("HEAD"), "head"), materialize_worktree(repo)):
        try:
            assert sorted(snap.excluded) == [f"pkg/{name}.py: symlink (not followed)"
                                             for name in ("alias", "ext", "gone")]
            assert [snap.read(f"pkg/{name}.py") for name in ("alias", "ext", "gone")] == [None, None, None]
            assert not any(snap.undecodable(f"pkg/{name}.py") for name in ("alias", "ext", "gone"))
            assert snap.link("pkg/alias.py") == "mod.py" and snap.link("pkg/mod.py") is None
            assert snap.read("pkg/mod.py") == "def f():\n    return 1\n"  # the file it names, as itself
            assert (snap.root / "pkg" / "alias.py").is_symlink()  # still there for the tests that use it
        finally:
            snap.remove()


def test_snapshot_of_the_working_tree_has_uncommitted_edits_and_untracked_files_but_no_ignored_or_secret(
        repo_with_modes_and_secrets):
    path = repo_with_modes_and_secrets
    repo = Repository(path)
    before = fingerprint.take(repo)
    snap = materialize_worktree(repo)
    try:
        files = disk_tree(snap.root)
        assert files["src/batching/core.py"][1].endswith(b"# edited\n")
        assert files["notes.txt"][1] == b"untracked but not ignored\n"
        assert files["run.sh"][0] == "100755"
        assert files["core_link.py"] == ("120000", b"src/batching/core.py")
        assert "ignored.log" not in files and ".env" not in files and "id_rsa" not in files
        assert {".env: secret-looking file", "id_rsa: secret-looking file"} <= set(snap.excluded)
        assert snap.rev == WORKTREE and snap.sha is None
    finally:
        snap.remove()
    assert fingerprint.compare(before, fingerprint.take(repo)) == ()


def test_snapshot_of_a_shallow_clone_beyond_its_depth_is_unavailable_without_fetching(build_scenario, tmp_path):
    origin = build_scenario("demo")
    clone = tmp_path / "shallow"
    subprocess.run([REAL_GIT, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)], check=True)
    repo = Repository(clone)
    with pytest.raises(SnapshotUnavailable, match=r"snapshot unavailable: HEAD~1 is not in the local object "
                                                   r"store; fetching it would need a network call"):
        materialize(repo, "HEAD~1", repo.resolve("HEAD~1"), "base")


def test_snapshot_with_a_missing_object_is_unavailable_and_leaves_no_directory(build_scenario, tmp_path):
    path = build_scenario("demo")
    repo = Repository(path)
    head = repo.resolve("HEAD")
    blob = git(path, "rev-parse", "HEAD:src/batching/core.py").strip()
    (path / ".git/objects" / blob[:2] / blob[2:]).unlink()
    leftovers_before = set(os.listdir(os.environ.get("TMPDIR", "/tmp")))
    with pytest.raises(SnapshotUnavailable, match=f"snapshot unavailable: HEAD is not in the local object store"):
        materialize(repo, "HEAD", head, "head")
    new = set(os.listdir(os.environ.get("TMPDIR", "/tmp"))) - leftovers_before
    assert not [n for n in new if n.startswith("elenchus-head-")]
