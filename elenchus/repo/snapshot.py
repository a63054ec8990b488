"""Materialize a commit, or the working tree, as a disposable directory.

Snapshots are how Elenchus looks at Base and Head without switching branches:
files are written into a fresh temp directory outside the repository, with
their executable bits and symlinks, and ``.git`` is never copied. Secret-looking
files are skipped and listed, so no credential ever reaches a test run.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from elenchus.encoding import decode_python, why_undecodable
from elenchus.errors import ElenchusError
from elenchus.secrecy import is_secret_file
from elenchus.repo.git import Repository, zsplit

WORKTREE = "WORKTREE"


#: Files never read or copied (a project adds patterns in ``[tool.elenchus] secret-files``).
is_secret = is_secret_file


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A materialized tree. ``sha`` is None for the working tree."""

    root: Path
    label: str
    rev: str
    sha: str | None
    files: tuple[str, ...]
    excluded: tuple[str, ...]  # "path: reason"

    def read(self, path: str) -> str | None:
        """The file's text; a Python file is decoded as Python does (None when it cannot be). A symlink is
        never read through: what it names outside the snapshot is not the repository's."""
        target = self.root / path
        if target.is_symlink() or not target.is_file():
            return None
        data = target.read_bytes()
        if path.endswith(".py"):
            return decode_python(data)
        return data.decode("utf-8", errors="surrogateescape")

    def raw(self, path: str) -> bytes | None:
        """The file's bytes (a symlink: its target path), None when it is absent."""
        target = self.root / path
        if target.is_symlink():
            return os.readlink(target).encode("utf-8", "surrogateescape")
        return target.read_bytes() if target.is_file() else None

    def undecodable(self, path: str) -> bool:
        """A Python file that exists but is not text in the encoding it declares: never parsed or mutated."""
        target = self.root / path
        return path.endswith(".py") and not target.is_symlink() and target.is_file() and self.read(path) is None

    def link(self, path: str) -> str | None:
        """The target a symlink names (what git stores for it), or None when ``path`` is no symlink."""
        target = self.root / path
        return os.readlink(target) if target.is_symlink() else None

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def new_snapshot_dir(repo: Repository, label: str) -> Path:
    root = Path(tempfile.mkdtemp(prefix=f"elenchus-{label}-"))
    if root.resolve().is_relative_to(repo.root):
        shutil.rmtree(root)
        raise ElenchusError(
            f"the temp directory {root} lies inside the repository {repo.root}; "
            "set TMPDIR to a directory outside it"
        )
    return root


def _safe_target(root: Path, path: str) -> Path:
    target = root.joinpath(*PurePosixPath(path).parts)
    if ".." in PurePosixPath(path).parts or PurePosixPath(path).is_absolute():
        raise ElenchusError(f"refused to write '{path}' outside the snapshot {root}")
    return target


def materialize_commit(repo: Repository, rev: str, sha: str, label: str,
                       dest: Path | None = None) -> Snapshot:
    """Write the tree of commit ``sha`` into a new temp directory."""
    root = dest or new_snapshot_dir(repo, label)
    files: list[str] = []
    excluded: list[str] = []
    try:
        tree = repo.tree_of(sha, rev)
        made_dirs: set[Path] = set()
        for entry in repo.walk_tree(tree, rev):
            if entry.mode == 0o160000:
                excluded.append(f"{entry.path}: submodule (not materialized)")
                continue
            if is_secret(entry.path):
                excluded.append(f"{entry.path}: secret-looking file")
                continue
            target = _safe_target(root, entry.path)
            if target.parent not in made_dirs:
                target.parent.mkdir(parents=True, exist_ok=True)
                made_dirs.add(target.parent)
            _, data = repo.read_object(entry.sha, rev)
            if entry.mode == 0o120000:  # kept for the tests that use it; never code, never read through
                os.symlink(data.decode("utf-8", "surrogateescape"), target)
                excluded.append(f"{entry.path}: {_LINK}")
            else:
                target.write_bytes(data)
                if entry.mode == 0o100755:
                    target.chmod(0o755)
                if entry.path.endswith(".py") and decode_python(data) is None:
                    excluded.append(f"{entry.path}: not mutated: {why_undecodable(data)}")
            files.append(entry.path)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return Snapshot(root, label, rev, sha, tuple(files), tuple(excluded))


#: How a symlink is listed: git stores its target path; the file it names (inside or outside the repository)
#: is never taken for the repository's code, and a tracked file it names is evaluated once, as itself.
_LINK = "symlink (not followed)"


def worktree_paths(repo: Repository) -> list[str]:
    """Tracked files plus untracked files that git does not ignore."""
    out = repo.run("ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout
    return sorted(set(zsplit(out)))


def materialize_worktree(repo: Repository, label: str = "worktree",
                         dest: Path | None = None) -> Snapshot:
    """Copy the working tree as it is now, uncommitted edits included."""
    root = dest or new_snapshot_dir(repo, label)
    files: list[str] = []
    excluded: list[str] = []
    try:
        for path in worktree_paths(repo):
            source = repo.root / path
            try:
                info = source.lstat()
            except FileNotFoundError:
                continue  # a tracked file deleted in the working tree
            if stat.S_ISDIR(info.st_mode):
                excluded.append(f"{path}: submodule (not materialized)")
                continue
            if is_secret(path):
                excluded.append(f"{path}: secret-looking file")
                continue
            target = _safe_target(root, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            if stat.S_ISLNK(info.st_mode):  # (as in a commit: kept, never code, never read through)
                os.symlink(os.readlink(source), target)
                excluded.append(f"{path}: {_LINK}")
            else:
                shutil.copyfile(source, target)
                target.chmod(0o755 if info.st_mode & stat.S_IXUSR else 0o644)
                if path.endswith(".py"):
                    data = target.read_bytes()
                    if decode_python(data) is None:
                        excluded.append(f"{path}: not mutated: {why_undecodable(data)}")
            files.append(path)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return Snapshot(root, label, WORKTREE, None, tuple(files), tuple(excluded))


def materialize(repo: Repository, rev: str, sha: str | None, label: str) -> Snapshot:
    if sha is None:
        return materialize_worktree(repo, label)
    return materialize_commit(repo, rev, sha, label)
