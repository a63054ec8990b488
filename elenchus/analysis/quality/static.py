"""The static half: ``analyze`` reads each test file's Head and Base and gathers their concerns.

It parses both sides, scans the Head, and compares the two for what a diff alone shows: tests
removed (unless their body reappears elsewhere, moved or renamed, or their name reappears in the same
file, moved into a class or out of one) and skips added (unless they came along with a moved test),
with one ``unparseable-test-file`` concern where a side does not parse.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from elenchus.analysis.quality.concerns import Concern, ConcernKind, TestFile, _ordered
from elenchus.analysis.quality.parsing import _SkipMarker, _Source, _TestDef, _Unparseable, _added_skips, _parse
from elenchus.analysis.quality.scan import _Scanner


def analyze(files: Sequence[TestFile]) -> tuple[Concern, ...]:
    """Read each test file (head and base) and return its quality concerns, in (path, line, kind) order.

    Never raises on bad input: a head (or base) that does not parse yields one
    ``unparseable-test-file`` concern for that file.
    """
    sources = [(f, _parse(f.head_source), _parse(f.base_source)) for f in files]
    moved_markers = _markers_by_body(sources)
    concerns: list[Concern] = []
    removed: list[tuple[str, _Source, _TestDef, bool]] = []  # path, base, test, file deleted
    for file, head, base in sources:
        if isinstance(head, _Unparseable):
            concerns.append(_unparseable(file.path, head, "head"))
            continue
        if isinstance(base, _Unparseable):
            concerns.append(_unparseable(file.path, base, "base"))
        if head is not None:
            scanner = _Scanner.run(file.path, head)
            concerns.extend(scanner.verdict())
            if not isinstance(base, _Unparseable):
                added = _added_skips(head, scanner.runtime_skips(), base)
                concerns.extend(_added_skip_concern(file.path, s) for s in added
                                if not _moved_with(s, head, moved_markers))
        if isinstance(base, _Source):
            kept = _kept_names(head, base) if isinstance(head, _Source) else set()
            removed.extend((file.path, base, t, head is None) for t in base.tests if t.qualname not in kept)
    if removed:
        # A test whose body reappears in any head test was moved or renamed, not removed.
        head_bodies = {h.body(t) for _, h, _ in sources if isinstance(h, _Source) for t in h.tests}
        concerns.extend(_removed_test_concern(path, base, test, deleted=deleted)
                        for path, base, test, deleted in removed
                        if base.body(test) not in head_bodies)
    return _ordered(concerns)


def _kept_names(head: _Source, base: _Source) -> set[str]:
    """The Base tests this Head still has: by qualname, or by name alone when exactly one test of that
    name left its class (or moved into one) and exactly one new test of the name arrived in this file.

    Rewriting module-level tests as methods of ``unittest.TestCase`` classes changes both the
    qualname and the body (``assert`` becomes ``self.assertEqual``); the test is still there, and
    whether it checks less is for the weakening comparison, not a removal.
    """
    head_names = {t.qualname for t in head.tests}
    base_names = {t.qualname for t in base.tests}
    kept = head_names & base_names
    left = _by_short_name(t for t in base.tests if t.qualname not in kept)
    arrived = _by_short_name(t for t in head.tests if t.qualname not in base_names)
    for short, gone in left.items():
        if len(gone) == 1 and len(arrived.get(short, ())) == 1:
            kept.add(gone[0])
    return kept


def _by_short_name(tests: Iterable[_TestDef]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for test in tests:
        found.setdefault(test.qualname.rsplit("::", 1)[-1], []).append(test.qualname)
    return found


def _markers_by_body(sources: Sequence[tuple[TestFile, Any, Any]]) -> dict[str, set[str]]:
    """The skip markers each Base test carried on itself, by its body: a test moved to another file
    brings its markers along, and adds none."""
    found: dict[str, set[str]] = {}
    for _, _, base in sources:
        if isinstance(base, _Source):
            bodies = {t.qualname: base.body(t) for t in base.tests}
            for skip in base.declared_skips:
                if skip.scope == "test" and skip.owner in bodies:
                    found.setdefault(bodies[skip.owner], set()).add(skip.marker)
    return found


def _moved_with(skip: _SkipMarker, head: _Source, moved: Mapping[str, set[str]]) -> bool:
    """Whether ``skip`` sits on a Head test whose body a Base test had, with the same marker."""
    if skip.scope != "test":
        return False
    test = next((t for t in head.tests if t.qualname == skip.owner), None)
    return test is not None and skip.marker in moved.get(head.body(test), set())


def _unparseable(path: str, failure: _Unparseable, side: str) -> Concern:
    consequence = ("its tests were not examined for quality concerns" if side == "head"
                   else "removed tests and added skips could not be detected")
    return Concern(path, failure.line, None, ConcernKind.UNPARSEABLE_TEST_FILE,
                   f"the {side} version of this file could not be parsed ({failure.message}), "
                   f"so {consequence}.")


def _added_skip_concern(path: str, skip: _SkipMarker) -> Concern:
    target = {"test": f"the test {skip.owner}", "class": f"every test in {skip.owner}",
              "module": "every test in this file"}[skip.scope]
    return Concern(path, skip.line, skip.owner, ConcernKind.ADDED_SKIP,
                   f"`{skip.marker}` was added to {target}; skipped or expected-to-fail tests "
                   f"do not protect the behaviour they name, so it goes unchecked until the "
                   f"skip is removed.")


def _removed_test_concern(path: str, base: _Source, test: _TestDef, *, deleted: bool) -> Concern:
    how = "deleted with this file" if deleted else "removed"
    return Concern(path, base.line(test.node), test.qualname, ConcernKind.REMOVED_TEST,
                   f"the test {test.qualname} was {how}, so the behaviour it checked is no "
                   f"longer protected unless another test covers it; confirm that before "
                   f"accepting the change.")
