"""The records mutant generation hands out: the spans to mutate, runnable mutants, drafts and rejections.

Every other part of ``elenchus.mutation.mutate`` (and every stage after it) speaks in these frozen
records, so they sit at the bottom of the package with nothing of it below them: a ``FunctionSpan``
in, a ``Mutant`` (or a ``Draft`` whose mutated file is built on demand) or a ``Rejected`` with its
reason out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange

MODULE_SYMBOL = "<module>"
Positions = Mapping[cst.CSTNode, CodeRange]


@dataclass(frozen=True, slots=True)
class FunctionSpan:
    """A function (or other symbol) to mutate: 1-based inclusive lines of the file."""

    qualname: str
    start: int
    end: int
    changed_lines: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Mutant:
    """One runnable mutant. ``line``/``end_line`` are 1-based, ``col`` is 1-based."""

    id: str
    path: str
    symbol: str
    line: int
    end_line: int
    col: int
    family: str
    changed_intent: str
    incident: str
    expected_detection: str
    diff: str
    mutated_source: str
    in_changed_lines: bool = False
    mutated_lines: tuple[int, ...] = ()  # lines of ``mutated_source`` that stand where the edit is


@dataclass(frozen=True, slots=True)
class Rejected:
    """A site that was not turned into a runnable mutant, and why."""

    path: str
    symbol: str
    line: int
    family: str
    changed_intent: str
    reason: str


@dataclass(frozen=True, slots=True)
class Draft:
    """A mutant whose mutated file is not built yet: ``edit`` says how (characters start..end
    of the file become the text). ``order`` is its place in ``generate``'s output."""

    id: str
    path: str
    symbol: str
    line: int
    end_line: int
    col: int
    family: str
    changed_intent: str
    incident: str
    expected_detection: str
    diff: str
    in_changed_lines: bool
    mutated_lines: tuple[int, ...]
    edit: tuple[int, int, str]
    order: tuple[int, int, str, str, int]

    def mutant(self, source: str) -> Mutant:
        start, end, text = self.edit
        return Mutant(id=self.id, path=self.path, symbol=self.symbol, line=self.line, end_line=self.end_line,
                      col=self.col, family=self.family, changed_intent=self.changed_intent, incident=self.incident,
                      expected_detection=self.expected_detection, diff=self.diff,
                      mutated_source=source[:start] + text + source[end:], in_changed_lines=self.in_changed_lines,
                      mutated_lines=self.mutated_lines)
