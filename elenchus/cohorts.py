"""Cohorts (SPEC 4.2): the same Head production code under two sets of tests.

* existing: Head production + the pre-change form of the relevant tests (changed
  test files put back to their Base content, added ones removed, deleted ones
  restored). With no test change it is the current relevant suite.
* modified: Head production + every current test change.

Each cohort is a template directory built once in the scratch root; every run
gets its own fresh copy of it.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from elenchus.discover import ChangeSet, related_tests
from elenchus.snapshot import Snapshot
from elenchus.workspace import tree_digest


@dataclass(frozen=True, slots=True)
class Cohort:
    name: str  # existing | modified
    template: Path
    tests: tuple[str, ...]  # test files pytest is given, relative to the template
    digest: str
    same_as: str | None = None  # the cohort whose runs this one shares (no test change)


def selected_tests(change: ChangeSet, head: Snapshot, target_files: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The relevant test files: related to the changed (or targeted) code, plus every changed test."""
    if target_files:
        related = related_tests(head, change.settings, target_files)
    else:
        related = change.related_tests
    return tuple(sorted(set(related) | set(change.paths("test"))))


def _copy(snapshot: Snapshot, destination: Path) -> Path:
    shutil.copytree(snapshot.root, destination, symlinks=True)
    return destination


def build_cohorts(change: ChangeSet, base: Snapshot, head: Snapshot, root: Path,
                  tests: tuple[str, ...]) -> tuple[Cohort, Cohort]:
    modified_dir = _copy(head, root / "cohort-modified")
    modified_tests = tuple(t for t in tests if (modified_dir / t).is_file())
    modified = Cohort("modified", modified_dir, modified_tests, tree_digest(modified_dir))
    test_changes = [f for f in change.files if f.kind in ("test", "infrastructure")]
    if not test_changes:
        return Cohort("existing", modified_dir, modified_tests, modified.digest, same_as="modified"), modified
    existing_dir = _copy(head, root / "cohort-existing")
    for changed in test_changes:
        target = existing_dir / changed.path
        old = base.root / changed.path
        if changed.status == "added":
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.unlink(missing_ok=True)
            shutil.copy2(old, target, follow_symlinks=False)
    existing_tests = tuple(t for t in tests if (existing_dir / t).is_file())
    return Cohort("existing", existing_dir, existing_tests, tree_digest(existing_dir)), modified
