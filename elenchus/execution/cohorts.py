"""Cohorts (SPEC 4.2): the same Head production code under two sets of tests.

Both cohorts run the relevant tests: every Head test whose imports reach the mutated
code (not only the changed test files), so a mutant that an unchanged test still
catches is never claimed as lost protection.

* existing: Head production + the pre-change form of the relevant tests (changed
  test files put back to their Base content, added ones removed, deleted ones
  restored). With no test change it is the current relevant suite.
* modified: Head production + every current test change.

Each cohort is a template directory built once in the scratch root; every run
gets its own fresh copy of it.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from elenchus.config import DEFAULT_TEST_PATTERNS, collected, pytest_file_patterns
from elenchus.repo.discover import ChangeSet, related_tests
from elenchus.repo.layout import ROOT, SourceLayout
from elenchus.repo.snapshot import Snapshot
from elenchus.execution.workspace import tree_digest


@dataclass(frozen=True, slots=True)
class Cohort:
    name: str  # existing | modified
    template: Path
    tests: tuple[str, ...]  # test files pytest is given, relative to the template
    digest: str
    same_as: str | None = None  # the cohort whose runs this one shares (no test change)
    disabled_plugins: tuple[str, ...] = ()  # pytest plugins this cohort's runs do without
    layout: SourceLayout = SourceLayout((ROOT,), ())  # where its runs import the project from


#: Autoloaded pytest plugins a suite can only observe by naming them, each with the words that show a
#: suite might (in its tests, their helpers, its conftest and pytest configuration, or PYTEST_ADDOPTS):
#: skipping the others makes every run cheaper (pytest imports each plugin package, rewriting its asserts,
#: at start-up: 0.18 s of a small run for xdist and platformdirs together). Hypothesis's plugin would also
#: import all of Hypothesis for its terminal summary (the recorder leaves that out in runs no test of which
#: imported it).
_UNOBSERVED_UNLESS_NAMED: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    (("hypothesispytest",), re.compile(r"hypothesis")),
    (("platformdirs",), re.compile(r"platformdirs")),
    # its fixtures, its hooks' module, and its command-line options (``addopts = -n auto``)
    (("xdist", "xdist.looponfail"), re.compile(
        r"xdist|worker_id|testrun_uid|looponfail|(?<![\w-])(?:-[ndf](?![A-Za-z-])|-n(?:auto|logical)"
        r"|--(?:numprocesses|maxprocesses|dist|tx|rsyncdir|max-worker-restart)\b)")),
)
_PYTEST_CONFIGS = ("pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini")


def unneeded_plugins(template: Path, tests: tuple[str, ...]) -> tuple[str, ...]:
    """Autoloaded plugins the suite cannot observe: skipping them makes runs cheaper."""
    files = {template / name for name in _PYTEST_CONFIGS} | {template / t for t in tests}
    files |= set(template.rglob("conftest.py"))
    for test in tests:  # helpers beside the tests (a fixture module a conftest lists in pytest_plugins)
        files |= set((template / test).parent.glob("*.py"))
    texts = [os.environ.get("PYTEST_ADDOPTS", "")]
    for path in sorted(files):
        try:
            texts.append(path.read_text(errors="replace"))
        except OSError:
            continue
    return tuple(name for names, named in _UNOBSERVED_UNLESS_NAMED if not any(named.search(t) for t in texts)
                 for name in names)


def selected_tests(change: ChangeSet, head: Snapshot, mutated_files: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The relevant test files: every Head test whose imports reach the changed or mutated code,
    plus every changed test (added, modified or deleted), whatever it imports; of those, the files pytest
    collects by their names (``python_files``), where the project names its tests so. pytest runs any file it
    is given by path, so a helper beside the tests (``definitions.py``) or a check kept out of the suite on
    purpose (``full_colors.py``, 17 million colours) would run too; a project none of whose tests pytest
    would collect by name keeps them all."""
    related = set(change.related_tests)
    if mutated_files:
        related |= set(related_tests(head, change.settings, mutated_files))
    chosen = tuple(sorted(related | set(change.paths("test"))))
    patterns = pytest_file_patterns(head.read)
    if change.settings.test_patterns != DEFAULT_TEST_PATTERNS:  # (named as tests on purpose, in [tool.elenchus])
        patterns += change.settings.test_patterns
    if collected((p for p in head.files if change.settings.kind_of(p) == "test"), patterns):
        return collected(chosen, patterns)
    return chosen


def relevant_tests(change: ChangeSet, head: Snapshot, mutated_files: tuple[str, ...],
                   template: Path) -> tuple[str, ...]:
    """``selected_tests`` for ``mutated_files``, as far as the cohort ``template`` holds them."""
    return tuple(t for t in selected_tests(change, head, mutated_files) if (template / t).is_file())


def _copy(snapshot: Snapshot, destination: Path) -> Path:
    shutil.copytree(snapshot.root, destination, symlinks=True)
    return destination


def build_cohorts(change: ChangeSet, base: Snapshot, head: Snapshot, root: Path,
                  tests: tuple[str, ...], layout: SourceLayout | None = None) -> tuple[Cohort, Cohort]:
    """Both cohorts share Head's production code, so they share its ``layout``."""
    layout = layout or SourceLayout((ROOT,), ())
    modified_dir = _copy(head, root / "cohort-modified")
    modified_tests = tuple(t for t in tests if (modified_dir / t).is_file())
    modified = Cohort("modified", modified_dir, modified_tests, tree_digest(modified_dir),
                      disabled_plugins=unneeded_plugins(modified_dir, modified_tests), layout=layout)
    test_changes = [f for f in change.files if f.kind in ("test", "infrastructure")]
    if not test_changes:
        return replace(modified, name="existing", same_as="modified"), modified
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
    return Cohort("existing", existing_dir, existing_tests, tree_digest(existing_dir),
                  disabled_plugins=unneeded_plugins(existing_dir, existing_tests), layout=layout), modified
