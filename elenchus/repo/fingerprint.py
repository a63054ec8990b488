"""Fingerprint what a review run must never change, and compare after the run.

The post-flight sentence is printed only from an unchanged comparison: it is a
claim backed by evidence, not a courtesy. It covers everything a run could touch:
tracked and untracked files by content; ignored files (build output, virtual
environments), everything else in the git directory (config, hooks, info, index,
refs, packed refs, stash, reflogs) and the object store (each loose object and pack
file: a corrupted or added object would change what the repository's history says)
by a stat signature whose change time no process can set back.
"""

from __future__ import annotations

import hashlib
import os
import stat
import zlib
from dataclasses import dataclass
from pathlib import Path

from elenchus.repo.git import Repository
from elenchus.repo.snapshot import worktree_paths

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


def _signature(path: Path) -> str:
    """Size, modification and change times and mode: any write moves the change time."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return "missing"
    return f"{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}:{info.st_mode:o}"


def _signatures(directory: Path, skip: set[str], prefix: str = "") -> dict[str, str]:
    """Every file and directory under ``directory`` (relative names in ``skip`` and below are left out)."""
    found: dict[str, str] = {}
    if not directory.is_dir():
        return found
    for dirpath, dirs, names in os.walk(directory):
        here = Path(dirpath)
        relative_dir = here.relative_to(directory).as_posix()
        kept = []
        for name in dirs:
            relative = name if relative_dir == "." else f"{relative_dir}/{name}"
            if relative not in skip:
                kept.append(name)
                found[prefix + relative + "/"] = "directory"
        dirs[:] = kept
        for name in names:
            relative = name if relative_dir == "." else f"{relative_dir}/{name}"
            if relative not in skip:
                found[prefix + relative] = _signature(here / name)
    return found


def _git_state(repo: Repository) -> dict[str, str]:
    """The git directory but its objects (immutable, and large) and what is compared by content
    (index, HEAD, refs, reflogs): config, hooks, info, alternates, stash and worktree metadata."""
    skip = {"objects", "refs", "logs", "index", "HEAD", "packed-refs"}
    state = _signatures(repo.common_dir, skip, ".git/")
    objects = repo.common_dir / "objects"
    state.update(_signatures(objects / "info", set(), ".git/objects/info/"))
    if repo.git_dir != repo.common_dir:
        state.update(_signatures(repo.git_dir, set(), f"{repo.git_dir.name}/"))
    return state


def _objects(repo: Repository) -> dict[str, str]:
    """Every loose object and pack file by stat signature: names, sizes, and modification and change
    times (a run that rewrites an object, even with its old times put back, moves its change time)."""
    objects = repo.common_dir / "objects"
    return {path: value for path, value in _signatures(objects, {"info"}, ".git/objects/").items()
            if value != "directory"}


def _ignored(repo: Repository, listed: set[str]) -> dict[str, str]:
    """Files git ignores (and anything it does not list), outside the git directory."""
    skip = {".git"}
    try:
        skip.add(repo.common_dir.relative_to(repo.root).as_posix())
    except ValueError:
        pass
    return {path: value for path, value in _signatures(repo.root, skip).items()
            if path not in listed and not (path.endswith("/") and value == "directory")}


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
    ignored: tuple[tuple[str, str], ...] = ()  # ignored files: (path, stat signature)
    git_state: tuple[tuple[str, str], ...] = ()  # the git directory but objects: (path, stat signature)
    objects: tuple[tuple[str, str], ...] = ()  # loose objects and packs: (path, stat signature)

    def digest(self) -> str:
        """What a run evaluated: the object store stays out (a fetch between two runs changes no result)."""
        digest = hashlib.sha256()
        for section in (self.files, (("index", self.index), ("HEAD", self.head)), self.refs, self.reflogs,
                        self.ignored, self.git_state):
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
    ignored = _ignored(repo, {path for path, _ in files})
    return Fingerprint(files, index, head, tuple(sorted(refs.items())), tuple(sorted(reflogs.items())),
                       tuple(sorted(ignored.items())), tuple(sorted(_git_state(repo).items())),
                       tuple(sorted(_objects(repo).items())))


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


def _corrupted(repo: Repository, changes: list[str]) -> list[str]:
    """The loose objects among ``changes`` (added or changed) whose content no longer hashes to their name,
    read from the object store directly (zlib, then SHA-1 of the stored object, as git names it)."""
    found = []
    for change in changes:
        kind, _, path = change.partition(": ")
        parts = path.split("/")
        if kind not in ("git object changed", "git object added") or len(parts) != 4 or len(parts[2]) != 2:
            continue
        name = parts[2] + parts[3]
        try:
            content = zlib.decompress((repo.common_dir / "objects" / parts[2] / parts[3]).read_bytes())
            intact = hashlib.sha1(content).hexdigest() == name  # noqa: S324 - git's own object name
        except (OSError, zlib.error):
            intact = False
        if not intact:
            found.append(f"git object corrupted: {path}: its content no longer matches its name")
    return found


def compare(before: Fingerprint, after: Fingerprint, repo: Repository | None = None) -> tuple[str, ...]:
    """Exactly what changed between two fingerprints, one sentence each (with ``repo``, loose objects that
    changed or appeared are also checked against their names)."""
    changes = _diff_pairs("file", before.files, after.files)
    if before.index != after.index:
        changes.append("index changed: the staging area (.git/index) differs")
    if before.head != after.head:
        changes.append(f"HEAD changed: '{before.head}' became '{after.head}'")
    changes += _diff_pairs("ref", before.refs, after.refs)
    if before.has_stash != after.has_stash:
        changes.append("stash " + ("created" if after.has_stash else "dropped"))
    changes += _diff_pairs("reflog", before.reflogs, after.reflogs)
    changes += _diff_pairs("ignored file", before.ignored, after.ignored)
    changes += _diff_pairs("git file", before.git_state, after.git_state)
    objects = _diff_pairs("git object", before.objects, after.objects)
    changes += objects + (_corrupted(repo, objects) if repo is not None else [])
    return tuple(changes)


def post_flight_sentence(changes: tuple[str, ...] | None) -> str | None:
    """The post-flight sentence, only when a comparison was made and found nothing."""
    if changes is None or changes:
        return None
    return POST_FLIGHT_SENTENCE
