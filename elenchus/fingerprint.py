"""Fingerprint what a review run must never change, and compare after the run.

The post-flight sentence is printed only from an unchanged comparison: it is a
claim backed by evidence, not a courtesy.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from elenchus.git import Repository
from elenchus.snapshot import worktree_paths

POST_FLIGHT_SENTENCE = "The working tree was not modified during this Review-only run."


def _hash_file(path: Path) -> str:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return "missing"
    if stat.S_ISLNK(info.st_mode):
        return "symlink:" + os.readlink(path)
    if stat.S_ISDIR(info.st_mode):
        return "directory"
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    mode = "x" if info.st_mode & stat.S_IXUSR else "-"
    return f"{mode}{digest.hexdigest()}"


def _files_under(directory: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    if not directory.is_dir():
        return found
    for dirpath, _dirs, names in os.walk(directory):
        for name in names:
            full = Path(dirpath) / name
            found[full.relative_to(directory).as_posix()] = _hash_file(full)
    return found


def _packed_refs(common_dir: Path) -> dict[str, str]:
    refs: dict[str, str] = {}
    packed = common_dir / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(errors="replace").splitlines():
            if line and not line.startswith(("#", "^")):
                sha, _, name = line.partition(" ")
                refs[name] = sha
    return refs


@dataclass(frozen=True, slots=True)
class Fingerprint:
    files: tuple[tuple[str, str], ...]  # tracked + untracked-not-ignored: (path, content hash)
    index: str  # hash of the index file ("missing" when there is none)
    head: str  # HEAD file content (symbolic ref or detached SHA)
    refs: tuple[tuple[str, str], ...]  # loose and packed refs, stash included
    reflogs: tuple[tuple[str, str], ...]  # reflog files and their content hashes

    def digest(self) -> str:
        digest = hashlib.sha256()
        for section in (self.files, (("index", self.index), ("HEAD", self.head)), self.refs, self.reflogs):
            for key, value in section:
                digest.update(f"{key}\0{value}\n".encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    @property
    def has_stash(self) -> bool:
        return any(name == "refs/stash" for name, _ in self.refs)


def take(repo: Repository) -> Fingerprint:
    files = tuple((path, _hash_file(repo.root / path)) for path in worktree_paths(repo))
    index = _hash_file(repo.git_dir / "index")
    head = (repo.git_dir / "HEAD").read_text(errors="replace").strip()
    refs = {f"refs/{name}": value for name, value in _files_under(repo.common_dir / "refs").items()}
    for name, sha in _packed_refs(repo.common_dir).items():
        refs.setdefault(name, f"packed:{sha}")
    reflogs = _files_under(repo.common_dir / "logs")
    return Fingerprint(files, index, head, tuple(sorted(refs.items())), tuple(sorted(reflogs.items())))


def _diff_pairs(kind: str, before: tuple[tuple[str, str], ...],
                after: tuple[tuple[str, str], ...]) -> list[str]:
    old, new = dict(before), dict(after)
    changes = []
    for key in sorted(old.keys() | new.keys()):
        if key not in new:
            changes.append(f"{kind} removed: {key}")
        elif key not in old:
            changes.append(f"{kind} added: {key}")
        elif old[key] != new[key]:
            changes.append(f"{kind} changed: {key}")
    return changes


def compare(before: Fingerprint, after: Fingerprint) -> tuple[str, ...]:
    """Exactly what changed between two fingerprints, one sentence each."""
    changes = _diff_pairs("file", before.files, after.files)
    if before.index != after.index:
        changes.append("index changed: the staging area (.git/index) differs")
    if before.head != after.head:
        changes.append(f"HEAD changed: '{before.head}' became '{after.head}'")
    changes += _diff_pairs("ref", before.refs, after.refs)
    if before.has_stash != after.has_stash:
        changes.append("stash " + ("created" if after.has_stash else "dropped"))
    changes += _diff_pairs("reflog", before.reflogs, after.reflogs)
    return tuple(changes)


def post_flight_sentence(changes: tuple[str, ...] | None) -> str | None:
    """The post-flight sentence, only when a comparison was made and found nothing."""
    if changes is None or changes:
        return None
    return POST_FLIGHT_SENTENCE
