"""The concern records every part of test quality hands out, and the order a report lists them in.

``ConcernKind`` names what a concern is about, ``TestFile`` is what the static half reads and
``Concern`` what both halves give back; ``_ordered`` sorts and de-duplicates them, and the small
text helpers word them. Nothing else of ``elenchus.analysis.quality`` sits below this module.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass


class ConcernKind(enum.StrEnum):
    """The ``kind`` ids a concern can carry; members compare equal to their strings."""

    NO_ASSERTION = "no-assertion"
    WEAK_ASSERTION = "weak-assertion"
    INTERACTION_ASSERTION = "interaction-assertion"
    PRIVATE_ACCESS = "private-access"
    SLEEP = "sleep"
    UNSEEDED_RANDOMNESS = "unseeded-randomness"
    BROAD_RAISES = "broad-raises"
    TRY_EXCEPT_IN_TEST = "try-except-in-test"
    REMOVED_TEST = "removed-test"
    ADDED_SKIP = "added-skip"
    LOOSENED_ASSERTION = "loosened-assertion"
    SWALLOWED_ERROR = "swallowed-error"
    UNPARSEABLE_TEST_FILE = "unparseable-test-file"
    FIXTURE_COST = "fixture-cost"
    FLAKY = "flaky"


@dataclass(frozen=True, slots=True)
class TestFile:
    """One test file as the change sees it: ``head_source`` None means deleted, ``base_source`` None means added."""

    __test__ = False  # a record, not a pytest test class

    path: str
    head_source: str | None
    base_source: str | None


@dataclass(frozen=True, slots=True)
class Concern:
    """One test-quality concern: where it is, which test, what kind, and why it matters.

    ``line`` is 1-based; 0 means the evidence has no source line (run measurements).
    ``test`` is the qualified name (``TestStack::test_push``), or None for the file.
    """

    path: str
    line: int
    test: str | None
    kind: str
    why: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", str(self.kind))  # a ConcernKind becomes its plain id


_SNIPPET_LIMIT = 60


# --------------------------------------------------------------------------- small helpers


def _snippet(code: str) -> str:
    flat = re.sub(r"\s+", " ", code).strip()
    return flat if len(flat) <= _SNIPPET_LIMIT else flat[: _SNIPPET_LIMIT - 1] + "…"


def _split_nodeid(nodeid: str) -> tuple[str, str | None]:
    path, sep, test = nodeid.partition("::")
    return path, (test if sep and test else None)


def _who(test: str | None, path: str) -> str:
    return test if test is not None else f"the tests in {path}"


def _ordered(concerns: Iterable[Concern]) -> tuple[Concern, ...]:
    """Sort by (path, line, kind), keeping one concern per test, line and kind (the first in source order)."""
    unique: dict[tuple[str, int, str | None, str], Concern] = {}
    for concern in concerns:
        unique.setdefault((concern.path, concern.line, concern.test, concern.kind), concern)
    return tuple(sorted(unique.values(),
                        key=lambda c: (c.path, c.line, c.kind, c.test or "", c.why)))
