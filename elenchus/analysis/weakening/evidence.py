"""The records of weakening evidence, the one thing every other module of the package builds on.

``Evidence`` (one piece of evidence), ``EvidenceKind`` (its kinds, and ``CLASSES``, the weakening
classes in the order SPEC 8 lists them) and ``ChangedFile`` (one changed file, as the caller passes
it). They are kept apart from the detectors so that the parsing, the shared helpers and every
weakening class can import them without importing each other; the rest of Elenchus imports them
from the package.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class EvidenceKind(enum.StrEnum):
    """The ``kind`` of a piece of evidence; members compare equal to their strings."""

    DELETED_TEST = "deleted-test"
    SKIPPED_TEST = "skipped-test"
    XFAIL_MARKER = "xfail-marker"
    LOOSENED_ASSERTION = "loosened-assertion"
    HARDCODED_SPECIAL_CASE = "hardcoded-special-case"
    SWALLOWED_ERROR = "swallowed-error"
    ALWAYS_EQUAL = "always-equal"
    HARNESS_TAMPERING = "harness-tampering"
    UNPARSEABLE = "unparseable"  # not a weakening: the file could not be examined


# The weakening classes, in the order SPEC 8 lists them (``unparseable`` is not one).
CLASSES: tuple[str, ...] = tuple(str(k) for k in EvidenceKind if k is not EvidenceKind.UNPARSEABLE)

FILE_KINDS = ("test", "infrastructure", "production")


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """One changed file: ``base_source`` None means added at Head, ``head_source`` None means deleted.

    ``kind`` is "test" (a file pytest collects tests from), "infrastructure"
    (conftest.py, helpers, pytest configuration) or "production". Pytest
    configuration files (``pyproject.toml``, ``pytest.ini``, ``tox.ini``,
    ``setup.cfg``) may be passed too; they are read for harness changes only.
    """

    path: str
    kind: str
    base_source: str | None
    head_source: str | None

    def __post_init__(self) -> None:
        if self.kind not in FILE_KINDS:
            raise ValueError(f"ChangedFile.kind must be one of {FILE_KINDS}, got {self.kind!r} for {self.path}")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One piece of weakening evidence.

    ``line`` is 1-based, at Head (at Base for something deleted). ``test`` is the
    test's qualified name as pytest shows it (``TestCart::test_total``) when the
    evidence sits in or removes one test. ``before``/``after`` are the Base and
    Head text of the node concerned (None on the side where it does not exist).
    ``row_ids`` are the pytest ids of the parametrized rows a ``deleted-test``
    (or an edited row's ``loosened-assertion``) is about, as they appeared at
    Base (``("3-4", "five")``); empty for every other piece of evidence.
    ``function`` is the qualified name of the production function a
    ``hardcoded-special-case`` sits in (``discount``, ``Cart.total``): a run of
    other inputs through it (a held-out test) is what can confirm it.
    """

    kind: str
    path: str
    line: int
    test: str | None
    before: str | None
    after: str | None
    detail: str
    source: str = "static"
    row_ids: tuple[str, ...] = ()
    function: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", str(self.kind))  # an EvidenceKind becomes its plain id
