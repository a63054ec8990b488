"""A review session: the repository, its pre-flight fingerprint, Base/Head snapshots and the change.

Opening a session is read-only. Closing it removes every snapshot and takes the
post-flight fingerprint, which alone decides whether the post-flight sentence
may be printed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from elenchus.repo import fingerprint
from elenchus.repo.discover import ChangeSet, discover
from elenchus.errors import EmptyDiff, SnapshotUnavailable
from elenchus.repo.git import Repository
from elenchus.repo.revisions import Revisions, resolve_revisions
from elenchus.repo.snapshot import Snapshot, materialize, new_snapshot_dir


@dataclass
class Session:
    repo: Repository
    before: fingerprint.Fingerprint
    revisions: Revisions
    base: Snapshot
    head: Snapshot
    change: ChangeSet
    post_flight_changes: tuple[str, ...] | None = field(default=None)
    base_unavailable: str | None = None  # why the Base could not be materialized, if it could not

    @property
    def excluded(self) -> tuple[str, ...]:
        """What was left out, Head's first; a file left out only at Base says so (its Head version is read)."""
        at_head = {entry.partition(": ")[0] for entry in self.head.excluded}
        base = tuple(entry if entry.partition(": ")[0] in at_head or entry.partition(": ")[0] not in self.head.files
                     else f"{entry} (at Base only; its Head version is read)" for entry in self.base.excluded)
        return tuple(dict.fromkeys(self.head.excluded + base + self.change.unparseable))

    def close(self) -> tuple[str, ...]:
        self.base.remove()
        self.head.remove()
        self.post_flight_changes = fingerprint.compare(self.before, fingerprint.take(self.repo), self.repo)
        return self.post_flight_changes

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.post_flight_changes is None:
            self.close()


def _empty_snapshot(repo: Repository, rev: str) -> Snapshot:
    return Snapshot(new_snapshot_dir(repo, "base"), "base", rev, None, (), ())


def open_session(path: Path | str, base: str | None, head: str | None, allow_empty: bool = False,
                 missing_base_ok: bool = False, progress: Callable[[str], None] | None = None) -> Session:
    """``missing_base_ok``: an unavailable Base becomes an empty snapshot (``base_unavailable`` says
    why) instead of stopping the run. ``progress``: told what a long discovery is doing."""
    repo = Repository(path)
    before = fingerprint.take(repo)
    revisions = resolve_revisions(repo, base, head, missing_base_ok)
    base_unavailable = None
    if revisions.base_sha is None:
        base_unavailable = revisions.narration[0]
        base_snapshot = _empty_snapshot(repo, revisions.base_rev)
    else:
        try:
            base_snapshot = materialize(repo, revisions.base_rev, revisions.base_sha, "base")
        except SnapshotUnavailable as error:
            if not missing_base_ok:
                raise
            base_unavailable = error.message
            base_snapshot = _empty_snapshot(repo, revisions.base_rev)
    try:
        head_snapshot = materialize(repo, revisions.head_rev, revisions.head_sha, "head")
    except BaseException:
        base_snapshot.remove()
        raise
    try:
        change = discover(base_snapshot, head_snapshot, progress=progress)
        if change.is_empty and not allow_empty:
            raise EmptyDiff(
                f"empty diff: Base {revisions.base_rev} and Head {revisions.head_rev} hold the same files; "
                "pass --base/--head for another range, or use `--scope target --target PATH`"
            )
    except BaseException:
        base_snapshot.remove()
        head_snapshot.remove()
        raise
    return Session(repo, before, revisions, base_snapshot, head_snapshot, change, base_unavailable=base_unavailable)
