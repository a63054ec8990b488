"""Mutant generation: one minimal libcst edit per site, rejected before running when pointless.

``generate`` parses a file once, asks every family in ``elenchus.mutation.families.FAMILIES``
for its sites inside the requested function spans, applies each site as exactly one
node-level edit (everything outside the edited node stays byte-identical), and
sorts the result into:

- ``Mutant`` records, ready to run, each with its intent, incident, expected
  detection and unified diff;
- ``Rejected`` records with the reason, never silently dropped: arid code
  (logging, output, messages, docstrings, annotations, display-only dunders,
  debug-only branches), code unreachable by clients (script blocks), mutants that
  do not compile, mutants whose compiled code equals the original's, and
  duplicates (the same compiled program as an earlier mutant).

A file longer than ``WINDOW_LINES`` is mutated one top-level statement at a time: each
*window* holds that statement at its own lines, so a change in a generated module of
megabytes parses, compiles and diffs only the statements it asks about (``FileMutator``).
``Draft`` is a mutant whose mutated file is not built yet, for planners that rank many.

libcst is used here and in ``elenchus.mutation.families`` only.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import hashlib
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import CodeType
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from elenchus.repo.discover import outline
from elenchus.mutation.families import FAMILIES, REMOVE, RegexSlip, Site, SourceView

__all__ = [
    "Draft",
    "FileMutator",
    "FunctionSpan",
    "Mutant",
    "Rejected",
    "generate",
    "edited_lines",
    "generate_exhaustive",
]

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


# ------------------------------------------------------------------------------ public


def generate(
    path: str, source: str, spans: Sequence[FunctionSpan] | None = None
) -> tuple[tuple[Mutant, ...], tuple[Rejected, ...]]:
    """Every intent-driven mutant of ``source`` inside ``spans`` (None: the whole file).

    With ``spans``, a site belongs to the innermost span containing its line and takes
    that span's ``qualname`` as its symbol; sites outside every span are out of scope
    (neither mutant nor rejection). Without, the symbol is the qualified name of the
    enclosing function or class (``Stack.push``), or ``<module>``.

    ``Mutant.id`` hashes the path, symbol, family, the site's line relative to the
    symbol's first line, its column, the original node's text and the edit, so it
    survives edits elsewhere in the file. ``in_changed_lines`` is set when any line
    of the site is in the span's ``changed_lines``. Output order is deterministic: by
    line, column, family key, then the edit itself.
    """
    return FileMutator(path, source).generate(spans)


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


#: Files with more lines than this are mutated one top-level statement (window) at a time, each
#: candidate compiled and diffed with its statement alone. Mutants are the same as whole-file
#: generation makes them, except that a deletion beside identical lines may be shown (diff and
#: watched lines) at another of its equivalent places than a diff of the whole file would pick.
#: (A 5,000-line module compiled whole for each of its 700 candidates took most of a minute.)
WINDOW_LINES = 2_000
#: Characters Python and ``str.splitlines`` disagree on as line breaks: such a file is never windowed.
_ODD_BREAKS = re.compile(r"\r(?!\n)|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_REGEX_MODULES = re.compile(r"\b(?:re|regex)\b")
_CONTEXT = 3  # lines around a window's region in its diff: ``_diff``'s two and one to spare


@dataclass(frozen=True, slots=True)
class _Window:
    """One region of a large file (a top-level statement and the comments after it) as a module of
    its own: the region at its own line numbers, after the file's `from __future__` head (or a
    `pass`, so the region is never taken for the module docstring), then a `pass` when more
    statements follow in the file (so dropping the region's statement is not the last one)."""

    index: int
    first: int  # file lines of the region
    last: int
    text: str
    prefix: int  # characters before the region in ``text``
    suffix: int  # characters after it
    delta: int  # file line = window line + delta


class FileMutator:
    """One file's mutation state, read once: its regions, the facts families need from the whole
    file. ``drafts`` and ``generate`` may be asked about one group of spans at a time."""

    def __init__(self, path: str, source: str, window_lines: int | None = None) -> None:
        window_lines = WINDOW_LINES if window_lines is None else window_lines
        self.window_lines = window_lines
        self.path = path
        self.source = source
        self.lines = source.splitlines(keepends=True)
        self.regions: list[tuple[int, int]] = []
        self.lead_end = 0  # last line of the file's `from __future__` head
        if len(self.lines) > window_lines and not _ODD_BREAKS.search(source):
            self.regions = self._find_regions()
        self._offsets: list[int] | None = None
        self._regex_uses: dict[str, set[str]] | None = None
        self._module_lines: dict[int, tuple[int, ...]] = {}
        self._trees: dict[int, ast.Module | None] = {}

    @property
    def windowed(self) -> bool:
        return bool(self.regions)

    def _find_regions(self) -> list[tuple[int, int]]:
        found = outline(self.source)
        if found is None or not found.statements:
            return []
        self.lead_end = found.future_end
        starts: list[int] = []
        last = 0
        for statement in found.statements:  # statements sharing a line (`a = 1; b = 2`) share a region
            if statement.begin > last:
                starts.append(statement.begin)
            last = max(last, statement.finish)
        starts[0] = 1
        return [(first, (starts[i + 1] - 1) if i + 1 < len(starts) else len(self.lines))
                for i, first in enumerate(starts)]

    def groups(self, spans: Sequence[FunctionSpan]) -> list[tuple[FunctionSpan, ...]]:
        """``spans`` in the groups ``drafts`` takes one at a time: one per region of a windowed
        file (in line order), else all of them together."""
        if not self.windowed:
            return [tuple(spans)] if spans else []
        firsts = [first for first, _ in self.regions]
        by_region: dict[int, list[FunctionSpan]] = {}
        for span in spans:
            by_region.setdefault(max(0, bisect.bisect_right(firsts, span.start) - 1), []).append(span)
        return [tuple(by_region[index]) for index in sorted(by_region)]

    def generate(self, spans: Sequence[FunctionSpan] | None = None) -> tuple[tuple[Mutant, ...], tuple[Rejected, ...]]:
        drafts, rejected = self.drafts(spans)
        return tuple(d.mutant(self.source) for d in drafts), rejected

    def drafts(self, spans: Sequence[FunctionSpan] | None = None) -> tuple[tuple[Draft, ...], tuple[Rejected, ...]]:
        """``generate``'s output with each mutated file left unbuilt."""
        if spans is None or not self.windowed:
            try:
                module = cst.parse_module(self.source)
            except cst.ParserSyntaxError as error:
                return (), (_unparseable(self.path, error),)
            wrapper = MetadataWrapper(module, unsafe_skip_copy=True)  # freshly parsed: nothing to protect
            found, failures = _family_sites(self.path, wrapper)
            made, rejected = _build(self.path, self.source, wrapper, iter(found), spans, _WholeFile())
            return made, (*failures, *rejected)
        made_all: list[Draft] = []
        failures: dict[str, Rejected] = {}
        rejected_all: list[Rejected] = []
        for group in self.groups(spans):
            made, failed, rejected = self._window_drafts(group)
            made_all.extend(made)
            for failure in failed:
                failures.setdefault(failure.family or failure.reason, failure)
            rejected_all.extend(rejected)
        return tuple(made_all), (*failures.values(), *rejected_all)

    def _window_drafts(self, spans: Sequence[FunctionSpan]) -> tuple[
            tuple[Draft, ...], tuple[Rejected, ...], tuple[Rejected, ...]]:
        firsts = [first for first, _ in self.regions]
        window = self.window(max(0, bisect.bisect_right(firsts, spans[0].start) - 1))
        try:
            module = cst.parse_module(window.text)
        except cst.ParserSyntaxError as error:
            found = _unparseable(self.path, error)
            return (), (), (Rejected(found.path, found.symbol, found.line + window.delta, found.family,
                                     found.changed_intent, found.reason),)
        wrapper = _WindowWrapper(module, unsafe_skip_copy=True)
        wrapper.regex_uses = self.regex_uses()
        found_sites, failures = _family_sites(self.path, wrapper)
        local = [FunctionSpan(s.qualname, s.start - window.delta, s.end - window.delta,
                              tuple(n - window.delta for n in s.changed_lines)) for s in spans]
        made, rejected = _build(self.path, window.text, wrapper, iter(found_sites), local, _InWindow(self, window))
        return made, failures, rejected

    def window(self, index: int) -> _Window:
        first, last = self.regions[index]
        lead = self.lead_end
        if first <= lead:
            first = 1  # the region is part of the docstring and `from __future__` head: start there
        offsets = self.offsets()
        newline = "\r\n" if self.source[max(0, self.source.find("\n") - 1)] == "\r" else "\n"
        if first == 1:
            head = ""
        elif lead:
            head = self.source[:offsets[lead]]
        else:
            head = "pass" + newline
        tail = "pass" + newline if last < len(self.lines) else ""
        body = self.source[offsets[first - 1]:offsets[last]]
        head_lines = 0 if first == 1 else (lead or 1)
        return _Window(index, first, last, head + body + tail, len(head), len(tail), first - 1 - head_lines)

    def offsets(self) -> list[int]:
        if self._offsets is None:
            self._offsets = [0, *itertools.accumulate(len(line) for line in self.lines)]
        return self._offsets

    def regex_uses(self) -> dict[str, set[str]]:
        """Names the whole file uses as regular expressions, as ``RegexSlip`` would find them."""
        if self._regex_uses is None:
            uses: dict[str, set[str]] = {}
            offsets = self.offsets()
            for first, last in self.regions:
                text = self.source[offsets[first - 1]:offsets[last]]
                if _REGEX_MODULES.search(text):
                    tree = self._parse(text)
                    if tree is not None:
                        RegexSlip.uses_in(tree, uses)
            self._regex_uses = uses
        return self._regex_uses

    def tree_for(self, line: int) -> ast.Module | None:
        """The syntax tree (at file line numbers) holding ``line``: a region's, or the file's."""
        if not self.windowed:
            if -1 not in self._trees:
                self._trees[-1] = self._parse(self.source)
            return self._trees[-1]
        index = max(0, bisect.bisect_right([f for f, _ in self.regions], line) - 1)
        if index not in self._trees:
            first, last = self.regions[index]
            offsets = self.offsets()
            tree = self._parse(self.source[offsets[first - 1]:offsets[last]])
            if tree is not None:
                ast.increment_lineno(tree, first - 1)
            self._trees[index] = tree
        return self._trees[index]

    @staticmethod
    def _parse(text: str) -> ast.Module | None:
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError):
            return None

    def module_lines(self, index: int) -> tuple[int, ...]:
        """File lines of region ``index`` that run at module level (see ``_runnable_by_scope``)."""
        if index not in self._module_lines:
            first, last = self.regions[index]
            offsets = self.offsets()
            runnable = _runnable_by_scope(self.source[offsets[first - 1]:offsets[last]])
            self._module_lines[index] = tuple(sorted(n + first - 1 for n in runnable.get(0, ())))
        return self._module_lines[index]


class _WindowWrapper(MetadataWrapper):
    """A window's wrapper, carrying ``regex_uses``: what ``RegexSlip`` needs from the whole file."""

    regex_uses: dict[str, set[str]]


def generate_exhaustive(path: str, source: str) -> tuple[tuple[Mutant, ...], tuple[Rejected, ...]]:
    """Every candidate of mutmut's operator catalog for the whole file, labelled as incidents.

    For the broader-target scope. mutmut supplies only the candidate edits (its
    per-node operator table; none of its trampolines, configuration or global
    state). Each candidate whose code change equals an intent-family mutant takes
    that family's label; the others get an incident sentence by the kind of node
    edited. A candidate with no label is rejected with that reason, and the usual
    rejection rules (arid, invalid, equivalent, duplicate) apply to all of them.
    See references/mutmut-evaluation.md.
    """
    return drafts_and_exhaustive(path, source, family=False)[2:]


def drafts_and_exhaustive(path: str, source: str, family: bool = True) -> tuple[
        tuple[Draft, ...], tuple[Rejected, ...], tuple[Mutant, ...], tuple[Rejected, ...]]:
    """``FileMutator(path, source).drafts(None)`` (unless not ``family``: empty) and
    ``generate_exhaustive(path, source)`` from one parse and one family search, each mutated
    text made, compiled and diffed once."""
    operators = _mutmut_operators()
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        return (), ((_unparseable(path, error),) if family else ()), (), (_unparseable(path, error),)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)  # freshly parsed: nothing to protect
    view = SourceView(wrapper)
    positions = wrapper.resolve(PositionProvider)
    splicer = _Splicer(source, view, positions)
    shapes = _Shapes(source, splicer)
    checked: dict[str, list] = {}
    found, failures = _family_sites(path, wrapper)
    family_made: tuple[Draft, ...] = ()
    family_refused: tuple[Rejected, ...] = ()
    if family:
        family_made, rejected = _build(path, source, wrapper, iter(found), None, _WholeFile(), splicer, checked)
        family_refused = (*failures, *rejected)

    intent_sites: dict[str, Site] = {}
    for site in found:
        intent_sites.setdefault(shapes.of(site), site)

    sites: list[Site] = []
    unlabelled: list[Rejected] = []
    for node in list(view.all_nodes()):
        for node_type, operator in operators:
            if not isinstance(node, node_type):
                continue
            try:
                produced = list(operator(node))
            except Exception as error:  # a catalog defect on one node must not stop the file
                unlabelled.append(Rejected(
                    path=path, symbol=view.qualname(node) or MODULE_SYMBOL,
                    line=_range(view, positions, node).start.line, family="", changed_intent="",
                    reason=f"internal: the catalog failed on `{view.code(node)}` "
                           f"({type(error).__name__})"))
                continue
            for mutated in produced:
                candidate = Site(family="", target=node, replacement=mutated, anchor=node,
                                 changed_intent="", incident="", expected_detection="")
                known = intent_sites.get(shapes.of(candidate))
                labelled = _relabel(candidate, known) if known else _label(view, node, mutated)
                if labelled is not None:
                    sites.append(labelled)
                    continue
                unlabelled.append(Rejected(
                    path=path, symbol=view.qualname(node) or MODULE_SYMBOL,
                    line=_range(view, positions, node).start.line, family="", changed_intent="",
                    reason=(f"unlabelled: no incident sentence for changing `{view.code(node)}` "
                            f"to `{view.code(mutated)}`")))
    drafts, rejected = _build(path, source, wrapper, iter(sites), None, _WholeFile(), splicer, checked)
    ordered = sorted((*rejected, *unlabelled), key=lambda r: (r.line, r.family, r.reason))
    return family_made, family_refused, tuple(d.mutant(source) for d in drafts), (*failures, *ordered)


# ---------------------------------------------------------------------------- pipeline


def _family_sites(path: str, wrapper: MetadataWrapper) -> tuple[list[Site], tuple[Rejected, ...]]:
    """All families' sites; a family that fails on this file is recorded, not raised."""
    found: list[Site] = []
    failures: list[Rejected] = []
    for key, family in FAMILIES.items():
        try:
            found.extend(family.find_sites(wrapper))
        except Exception as error:  # one family's defect must not hide the others' mutants
            failures.append(Rejected(
                path=path, symbol=MODULE_SYMBOL, line=1, family=key, changed_intent="",
                reason=f"internal: this family could not analyse the file "
                       f"({type(error).__name__}: {error})"))
    return found, tuple(failures)


@dataclass(frozen=True, slots=True)
class _Candidate:
    site: Site
    symbol: str
    line: int
    end_line: int
    col: int
    relative_line: int
    changed: bool
    replacement_text: str


class _WholeFile:
    """Where a whole-file candidate lands: the file itself."""

    delta = 0

    def edit(self, source: str, mutated: str) -> tuple[int, int, str]:
        return 0, len(source), mutated

    def diff(self, path: str, source: str, mutated: str, edit: tuple[int, int, str]) -> str:
        return _diff(path, source, mutated)

    def watched(self, view: SourceView, positions: Positions, site: Site, source: str, mutated: str) -> tuple[int, ...]:
        return _watched_lines(view, positions, site, source, mutated)


class _InWindow:
    """Where a window's candidate lands: its region of the file, at file line numbers."""

    def __init__(self, file: FileMutator, window: _Window) -> None:
        self.file = file
        self.window = window
        self.delta = window.delta

    def edit(self, source: str, mutated: str) -> tuple[int, int, str] | None:
        """The region's new text, placed in the file; None if the edit reached outside the region."""
        w = self.window
        if not (mutated.startswith(source[:w.prefix]) and mutated.endswith(source[len(source) - w.suffix:])):
            return None
        offsets = self.file.offsets()
        return offsets[w.first - 1], offsets[w.last], mutated[w.prefix:len(mutated) - w.suffix]

    def diff(self, path: str, source: str, mutated: str, edit: tuple[int, int, str]) -> str:
        """``_diff`` of the file, read from the region and the lines around it."""
        lines, w = self.file.lines, self.window
        before = lines[max(0, w.first - 1 - _CONTEXT):w.first - 1]
        after = lines[w.last:w.last + _CONTEXT]
        text = _diff(path, "".join(before + lines[w.first - 1:w.last] + after),
                     "".join(before) + edit[2] + "".join(after))
        shift = w.first - 1 - len(before)
        return _HUNK.sub(lambda m: f"@@ -{int(m[1]) + shift}{m[2] or ''} +{int(m[3]) + shift}{m[4] or ''} @@", text)

    def watched(self, view: SourceView, positions: Positions, site: Site, source: str, mutated: str) -> tuple[int, ...]:
        lines = _watched_lines(view, positions, site, source, mutated, self._module_neighbours(source, mutated))
        return tuple(n + self.delta for n in lines)

    def _module_neighbours(self, source: str, mutated: str) -> Callable[[int, set[int]], list[int]]:
        """For a gap at module level: the nearest module-level lines that run before and after it,
        looked for in the region first, then in the file's other regions (window line numbers)."""
        w, file = self.window, self.file
        first = w.first - self.delta  # the region's first window line
        grown = mutated.count("\n") - source.count("\n")
        last = w.last - self.delta + grown  # its last line in the mutated window

        def neighbours(gap: int, scope: set[int]) -> list[int]:
            inside = [n for n in scope if first <= n <= last]
            before = max((n for n in inside if n <= gap), default=None)
            after = min((n for n in inside if n > gap), default=None)
            index = w.index - 1
            while before is None and index >= 0:
                found = file.module_lines(index)
                before = found[-1] - self.delta if found else None
                index -= 1
            index = w.index + 1
            while after is None and index < len(file.regions):
                found = file.module_lines(index)
                after = found[0] - self.delta + grown if found else None
                index += 1
            return [n for n in (before, after) if n is not None]

        return neighbours


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", re.MULTILINE)


def _build(
    path: str,
    source: str,
    wrapper: MetadataWrapper,
    sites: Iterator[Site],
    spans: Sequence[FunctionSpan] | None,
    place: _WholeFile | _InWindow,
    splicer: _Splicer | None = None,
    checked: dict[str, list] | None = None,
) -> tuple[tuple[Draft, ...], tuple[Rejected, ...]]:
    """Candidates of ``source`` (the file, or a window of it that ``place`` maps back).
    ``splicer``: one already made for this ``wrapper`` and ``source``, with what it has applied;
    ``checked``: what earlier builds of the same ``source`` and ``place`` found for each mutated text."""
    checked = {} if checked is None else checked
    module = wrapper.module
    view = SourceView(wrapper)
    positions = wrapper.resolve(PositionProvider)
    shift = place.delta
    original_code, original_error = _compile(source, path, shift)
    splicer = splicer or _Splicer(source, view, positions)

    candidates = []
    for site in sites:
        candidate = _locate(view, positions, site, spans)
        if candidate is not None:
            candidates.append(candidate)
    candidates.sort(key=lambda c: (c.line, c.col, c.site.family, c.replacement_text, c.end_line))

    original_print = _fingerprint(original_code) if original_code is not None else None
    outcomes: list[Draft | Rejected] = []
    programs: dict[tuple[object, ...], list[int]] = {}
    for candidate in candidates:
        site = candidate.site

        def reject(reason: str, candidate: _Candidate = candidate) -> Rejected:
            return Rejected(path=path, symbol=candidate.symbol, line=candidate.line + shift,
                            family=candidate.site.family,
                            changed_intent=candidate.site.changed_intent, reason=reason)

        reason = _arid_reason(view, site) or _boundary_equivalent(view, site)
        if reason is not None:
            outcomes.append(reject(reason))
            continue
        mutated_source = splicer.apply(site)
        if mutated_source == source:
            outcomes.append(reject("equivalent: the edit leaves the source text unchanged"))
            continue
        if mutated_source not in checked:  # (the same text from two sites: compiled once)
            code, error = _compile(mutated_source, path, shift)
            checked[mutated_source] = [code is not None, error, _fingerprint(code) if code is not None else None, None]
        compiled, error, program, diff = checked[mutated_source]
        if not compiled:
            outcomes.append(reject(f"invalid: the mutated file does not compile ({error})"))
            continue
        if original_print is None:
            outcomes.append(reject(
                f"invalid: the original file does not compile ({original_error}), so the "
                f"mutant cannot be compared with it"))
            continue
        if program == original_print:
            outcomes.append(reject("equivalent: compiles to the same code as the original"))
            continue
        edit = place.edit(source, mutated_source)
        if edit is None:
            outcomes.append(reject("internal: the edit reached outside the statement it was made in"))
            continue
        programs.setdefault(program, []).append(len(outcomes))
        if diff is None:
            diff = checked[mutated_source][3] = place.diff(path, source, mutated_source, edit)
        outcomes.append(Draft(
            id=_mutant_id(path, candidate, module.code_for_node(site.anchor)),
            path=path,
            symbol=candidate.symbol,
            line=candidate.line + shift,
            end_line=candidate.end_line + shift,
            col=candidate.col,
            family=site.family,
            changed_intent=site.changed_intent,
            incident=site.incident,
            expected_detection=site.expected_detection,
            diff=diff,
            in_changed_lines=candidate.changed,
            mutated_lines=place.watched(view, positions, site, source, mutated_source),
            edit=edit,
            order=(candidate.line + shift, candidate.col, site.family, candidate.replacement_text,
                   candidate.end_line + shift),
        ))

    # The same program reached twice: keep one mutant, preferring the more specific story
    # ("`name is None` became `name is not None`" over "the condition was negated").
    for indexes in programs.values():
        if len(indexes) < 2:
            continue
        keep = min(indexes, key=lambda i: (outcomes[i].family in _GENERIC_FAMILIES, i))
        kept = outcomes[keep]
        for i in indexes:
            if i != keep:
                loser = outcomes[i]
                assert isinstance(loser, Draft) and isinstance(kept, Draft)
                outcomes[i] = Rejected(path=path, symbol=loser.symbol, line=loser.line,
                                       family=loser.family, changed_intent=loser.changed_intent,
                                       reason=f"duplicate: the same program as mutant {kept.id}")
    drafts = tuple(o for o in outcomes if isinstance(o, Draft))
    rejected = tuple(o for o in outcomes if isinstance(o, Rejected))
    return drafts, rejected


#: Families whose story is less specific than another family's for the same program.
_GENERIC_FAMILIES = frozenset({"negated-condition", "constant-drift", "default-return"})


def _unparseable(path: str, error: cst.ParserSyntaxError) -> Rejected:
    return Rejected(path=path, symbol=MODULE_SYMBOL, line=error.raw_line, family="",
                    changed_intent="", reason=f"invalid: the file does not parse ({error.message})")


def _locate(view: SourceView, positions: Positions, site: Site,
            spans: Sequence[FunctionSpan] | None) -> _Candidate | None:
    anchor_range = _range(view, positions, site.anchor)
    target_range = _range(view, positions, site.target)
    start = anchor_range.start
    if isinstance(site.anchor, cst.ComparisonTarget):  # its range starts at the space before `<`
        start = _range(view, positions, site.anchor.operator).start
    line = start.line
    end_line = max(anchor_range.end.line, target_range.end.line)
    col = start.column + 1
    if spans is None:
        symbol, first_line = _symbol_of(view, positions, site.anchor)
        changed = False
    else:
        span = _innermost(spans, line)
        if span is None:
            return None
        symbol, first_line = span.qualname, span.start
        changed = any(line <= n <= end_line for n in span.changed_lines)
    replacement_text = ("<removed>" if site.replacement is REMOVE
                        else view.module.code_for_node(site.replacement))
    return _Candidate(site=site, symbol=symbol, line=line, end_line=end_line, col=col,
                      relative_line=line - first_line, changed=changed,
                      replacement_text=replacement_text)


def _range(view: SourceView, positions: Positions, node: cst.CSTNode) -> CodeRange:
    current: cst.CSTNode | None = node
    while current is not None:
        found = positions.get(current)
        if found is not None:
            return found
        current = view.parent(current)
    return CodeRange((1, 0), (1, 0))


def _symbol_of(view: SourceView, positions: Positions, node: cst.CSTNode) -> tuple[str, int]:
    qualname = view.qualname(node)
    if qualname is None:
        return MODULE_SYMBOL, 1
    for owner in view.ancestors(node):
        if isinstance(owner, (cst.FunctionDef, cst.ClassDef)):
            return qualname, positions[owner.name].start.line
    return qualname, 1


def _innermost(spans: Sequence[FunctionSpan], line: int) -> FunctionSpan | None:
    containing = [s for s in spans if s.start <= line <= s.end]
    if not containing:
        return None
    return min(containing, key=lambda s: (s.end - s.start, -s.start, s.qualname))


def _mutant_id(path: str, candidate: _Candidate, anchor_text: str) -> str:
    parts = (path, candidate.symbol, candidate.site.family,
             f"{candidate.relative_line}:{candidate.col}", anchor_text, candidate.replacement_text)
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:12]


def _watched_lines(view: SourceView, positions: Positions, site: Site, before: str, after: str,
                   module_gap: Callable[[int, set[int]], list[int]] | None = None) -> tuple[int, ...]:
    """The edited lines, plus the first line of the statement holding the edit.

    Python reports a multi-line statement by the lines its bytecode carries (a display of
    constants is folded into its first line), so the statement's first line stands in
    for the edit when asking whether the mutated code ran.
    """
    lines = set(_edited_lines(before, after, module_gap))
    if site.replacement is not REMOVE:
        for node in (site.anchor, *view.ancestors(site.anchor)):
            if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                lines.add(_range(view, positions, node).start.line)
                break
    return tuple(sorted(lines))


def edited_lines(before: str, after: str) -> tuple[int, ...]:
    """Lines of ``after`` (1-based) that stand where ``before`` was edited.

    A dropped statement leaves no line of its own: the nearest lines that run just before
    and after the gap, in the same function, stand for it (not a docstring, a blank line
    or a comment, which never run), so "did the mutated code run" asks whether execution
    got there.
    """
    return _edited_lines(before, after, None)


def _edited_lines(before: str, after: str,
                  module_gap: Callable[[int, set[int]], list[int]] | None) -> tuple[int, ...]:
    """``edited_lines``; ``module_gap(gap, module lines)`` answers for a gap at module level
    when ``after`` is a window of a larger file."""
    old, new = before.splitlines(), after.splitlines()
    # Only the lines between the common head and tail are matched: a whole module matched line by
    # line for every candidate took minutes on a 5,000-line file.
    head, shorter = 0, min(len(old), len(new))
    while head < shorter and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shorter - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    lines: set[int] = set()
    matcher = difflib.SequenceMatcher(None, old[head:len(old) - tail], new[head:len(new) - tail], autojunk=False)
    runnable: dict[int, set[int]] | None = None
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] | None = None
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        j1, j2 = j1 + head, j2 + head
        if j2 > j1:
            lines.update(range(j1 + 1, j2 + 1))
            continue
        functions = _functions(after) if functions is None else functions  # (parsed once per text)
        runnable = _runnable_by_scope(after, functions) if runnable is None else runnable
        holder = _scope_of(after, j1, functions)
        scope = next((lines_in for first, lines_in in runnable.items() if first == holder), None)
        if scope is not None and holder == 0 and module_gap is not None:
            lines.update(module_gap(j1, scope))
            continue
        if scope is None:  # the source does not compile: the neighbours as they are
            lines.update(n for n in (j1, j1 + 1) if 1 <= n <= len(new))
            continue
        lines.update(n for n in (max((n for n in scope if n <= j1), default=None),
                                 min((n for n in scope if n > j1), default=None)) if n is not None)
    return tuple(sorted(lines))


def _functions(source: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _scope_of(source: str, line: int,
              functions: list[ast.FunctionDef | ast.AsyncFunctionDef] | None = None) -> int:
    """The first line of the innermost function holding ``line`` (0: module level);
    ``functions``: ``_functions(source)``, if already known."""
    functions = _functions(source) if functions is None else functions
    holding = [f for f in functions if f.lineno <= line <= (f.end_lineno or f.lineno)]
    return max((f.lineno for f in holding), default=0)


def _runnable_by_scope(source: str,
                       functions: list[ast.FunctionDef | ast.AsyncFunctionDef] | None = None) -> dict[int, set[int]]:
    """{first line of a function (0: module level): the lines of its own code that report line events}."""
    try:
        code = compile(source, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return {}
    functions = _functions(source) if functions is None else functions
    headers = {f.lineno for f in functions} | {d.lineno for f in functions for d in f.decorator_list}
    # A code object starts at its first decorator; a scope is named by its `def` line.
    def_line = {min([f.lineno, *(d.lineno for d in f.decorator_list)]): f.lineno for f in functions}
    found: dict[int, set[int]] = {}
    stack = [(code, 0)]
    while stack:
        current, scope = stack.pop()
        found.setdefault(scope, set()).update(
            line for _, _, line in current.co_lines() if line and line not in headers)
        for inner in current.co_consts:
            if isinstance(inner, CodeType):  # a function is its own scope; comprehensions and lambdas are not
                stack.append((inner, def_line.get(inner.co_firstlineno, scope)
                              if not inner.co_name.startswith("<") else scope))
    return found


def _diff(path: str, before: str, after: str) -> str:
    """The unified diff of the whole file, made from the lines between the common head and tail and
    ``_CONTEXT`` lines around them (its hunks then renumbered): the same text, without matching every
    unchanged line of a long file."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    head, shorter = 0, min(len(old), len(new))
    while head < shorter and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shorter - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    start, keep = max(0, head - _CONTEXT), max(0, tail - _CONTEXT)
    text = "".join(difflib.unified_diff(old[start:len(old) - keep], new[start:len(new) - keep],
                                        fromfile=f"a/{path}", tofile=f"b/{path}", n=2))
    if not start:
        return text
    return _HUNK.sub(lambda m: f"@@ -{int(m[1]) + start}{m[2] or ''} +{int(m[3]) + start}{m[4] or ''} @@", text)


# -------------------------------------------------------------------------- applying


class _OneEdit(cst.CSTTransformer):
    """Replace (or drop) exactly one node, matched by identity.

    A dropped statement hands its leading comment lines to the next statement (or
    the block footer), so comments outside the edited node stay byte-identical.
    """

    def __init__(self, target: cst.CSTNode, replacement: cst.CSTNode | cst.RemovalSentinel,
                 path: frozenset[int] | None = None) -> None:
        super().__init__()
        self.target = target
        self.replacement = replacement
        self.path = path  # ids of the target's ancestors: only they can hold it (None: visit everything)

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Nothing below the target needs visiting, nor any subtree off the path to it: such a
        # subtree is left as it is, the same object, so it prints as before.
        return node is not self.target and (self.path is None or id(node) in self.path)

    def on_leave(  # type: ignore[override]  # one replacement may change the node's type
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.RemovalSentinel:
        if original_node is self.target:
            return self.replacement
        if self.replacement is REMOVE and isinstance(original_node, (cst.IndentedBlock, cst.Module)):
            return self._keep_leading_lines(original_node, updated_node)
        return updated_node

    def _keep_leading_lines(self, original: cst.IndentedBlock | cst.Module,
                            updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, (cst.IndentedBlock, cst.Module))
        index = next((i for i, s in enumerate(original.body) if s is self.target), None)
        lines = tuple(getattr(self.target, "leading_lines", ()))
        if index is None or not lines:
            return updated
        body = list(updated.body)
        if index < len(body):
            follower = body[index]
            already = tuple(getattr(follower, "leading_lines", ()))
            body[index] = follower.with_changes(leading_lines=[*lines, *already])
            return updated.with_changes(body=body)
        return updated.with_changes(footer=[*lines, *updated.footer])


def _apply(module: cst.Module, site: Site, path: frozenset[int] | None = None) -> str:
    """The whole file with ``site`` applied (slow path: prints every node)."""
    return module.visit(_OneEdit(site.target, site.replacement, path)).code


class _Splicer:
    """Applies sites by regenerating only the enclosing statement and splicing its text.

    Regenerating a whole module per mutant costs O(file) libcst work; the statement
    holding the edit (for a removal, the enclosing function, whose block loses a
    statement) is usually a small fraction. The splice is verified: the unit's
    original text, generated with the indentation of its enclosing blocks, must sit
    exactly at its position in the source, or the slow path is used instead.
    """

    def __init__(self, source: str, view: SourceView, positions: Positions) -> None:
        self.source = source
        self.view = view
        self.positions = positions
        self.module = view.module
        self.line_offsets = [0]
        for text in source.splitlines(keepends=True):
            self.line_offsets.append(self.line_offsets[-1] + len(text))
        self._units: dict[int, tuple[int, str, tuple[str, ...]] | None] = {}
        self._applied: dict[tuple[int, int], tuple[cst.CSTNode, object, str]] = {}

    def apply(self, site: Site) -> str:
        key = (id(site.target), id(site.replacement))  # the text depends on these two alone
        if key not in self._applied:  # (the entry holds both nodes, so their ids stay theirs)
            self._applied[key] = (site.target, site.replacement, self._apply(site))
        return self._applied[key][2]

    def _apply(self, site: Site) -> str:
        path = frozenset(id(node) for node in self.view.ancestors(site.target))
        unit = self._unit(site.target) if site.replacement is REMOVE else self._statement(site.target)
        found = self._locate_unit(unit) if unit is not None else None
        if unit is None or found is None:
            return _apply(self.module, site, path)
        offset, original_text, indents = found
        edited = unit.visit(_OneEdit(site.target, site.replacement, path))
        if not isinstance(edited, cst.CSTNode):
            return _apply(self.module, site, path)
        new_text = self._codegen(edited, indents)
        return self.source[:offset] + new_text + self.source[offset + len(original_text):]

    def _statement(self, target: cst.CSTNode) -> cst.CSTNode | None:
        """The innermost statement of a block (or of the module) holding ``target``."""
        parent = self.view.parent(target)
        if parent is None or isinstance(parent, cst.Module):
            return None
        for node in self.view.ancestors(target):
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) \
                    and isinstance(self.view.parent(node), (cst.IndentedBlock, cst.Module)):
                return node
        return None

    def _unit(self, target: cst.CSTNode) -> cst.CSTNode | None:
        """The innermost function around ``target``, else its top-level statement."""
        parent = self.view.parent(target)
        if parent is None or isinstance(parent, cst.Module):
            return None
        top = None
        for node in self.view.ancestors(target):
            if isinstance(node, cst.FunctionDef):
                return node
            if isinstance(self.view.parent(node), cst.Module):
                top = node
        return top

    def _locate_unit(self, unit: cst.CSTNode) -> tuple[int, str, tuple[str, ...]] | None:
        key = id(unit)
        if key not in self._units:
            self._units[key] = self._find(unit)
        return self._units[key]

    def _find(self, unit: cst.CSTNode) -> tuple[int, str, tuple[str, ...]] | None:
        indents = tuple(
            block.indent if block.indent is not None else self.module.default_indent
            for block in reversed(list(self.view.ancestors(unit)))
            if isinstance(block, cst.IndentedBlock)
        )
        try:
            text = self._codegen(unit, indents)
        except Exception:  # private codegen entry point changed: take the slow path
            return None
        position = self.positions.get(unit)
        if position is None or not text:
            return None
        anchor = self.line_offsets[position.start.line - 1] + position.start.column
        offset = self.source.rfind(text, 0, anchor + len(text))  # starts at or before anchor
        if offset < 0 or offset + len(text) <= anchor:
            return None
        return offset, text, indents

    def _codegen(self, node: cst.CSTNode, indents: tuple[str, ...]) -> str:
        from libcst._nodes.internal import CodegenState

        state = CodegenState(default_indent=self.module.default_indent,
                             default_newline=self.module.default_newline,
                             indent_tokens=list(indents))
        node._codegen(state)
        return "".join(state.tokens)


# ------------------------------------------------------------------------- rejection

_DISPLAY_DUNDERS = frozenset({"__repr__", "__str__", "__format__", "__rich_repr__"})
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical",
                          "fatal", "log"})
_DEBUG_FLAGS = frozenset({"__debug__", "DEBUG", "TYPE_CHECKING"})
_STRINGS = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)


def _arid_reason(view: SourceView, site: Site) -> str | None:
    """Why the site sits in code whose mutation no client could notice, or None."""
    if _is_docstring(view, site.target) or _is_docstring(view, site.anchor):
        return "arid: docstring"
    in_string = isinstance(site.target, _STRINGS)
    previous: cst.CSTNode | None = None
    for node in (site.anchor, *view.ancestors(site.anchor)):
        if isinstance(node, (cst.FormattedString, cst.ConcatenatedString)):
            in_string = True
        if isinstance(node, cst.Annotation):
            return "arid: type annotation"
        if isinstance(node, cst.FunctionDef) and node.name.value in _DISPLAY_DUNDERS:
            return f"arid: inside `{node.name.value}`, which only formats text for display"
        if isinstance(node, cst.Call) and _is_log_call(view, node):
            return f"arid: inside the logging or output call `{view.code(node.func)}(...)`"
        if isinstance(node, cst.Raise) and in_string and previous is not None:
            return "arid: message text of a raised exception"
        if isinstance(node, (cst.Assign, cst.AnnAssign)) and in_string and previous is not None \
                and previous is node.value and _raised_only(view, node):
            return "arid: message text of a raised exception"
        if isinstance(node, (cst.Assign, cst.AnnAssign)) and _dunder_target(node):
            return f"arid: `{_dunder_target(node)}` is module metadata, not behaviour"
        if isinstance(node, cst.If) and (previous is None or previous is node.test
                                         or previous is node.body):
            if _is_debug_flag(node.test):
                return f"arid: debug-only branch `if {view.code(node.test)}:`"
            if _is_script_guard(node.test):
                return "unreachable by clients: runs only as a script (`if __name__ == '__main__':`)"
        previous = node
    return None


def _raised_only(view: SourceView, node: cst.Assign | cst.AnnAssign) -> bool:
    """Is ``node`` a function's message for an exception: it assigns one name (``msg = f"..."``), which the
    function reads only inside ``raise`` statements (``raise ValueError(msg)``), as linters that forbid
    string literals in ``raise`` ask code to write it?"""
    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
    function = view.function(node)
    if len(targets) != 1 or not isinstance(targets[0], cst.Name) or function is None:
        return False
    name, reads = targets[0].value, 0
    stack: list[tuple[cst.CSTNode, bool]] = [(function.body, False)]
    while stack:
        current, raised = stack.pop()
        if isinstance(current, cst.Name) and current.value == name and current is not targets[0]:
            parent = view.parent(current)
            stored = isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)) and \
                getattr(parent, "target", None) is current
            if not stored and not raised:
                return False  # read somewhere else: printed, returned, logged, compared
            reads += not stored
        stack.extend((child, raised or isinstance(current, cst.Raise)) for child in current.children)
    return reads > 0


def _dunder_target(node: cst.Assign | cst.AnnAssign) -> str | None:
    """``__all__``, ``__version__``, ``__author__``...: the assigned dunder name, else None."""
    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
    for target in targets:
        if isinstance(target, cst.Name) and target.value.startswith("__") and target.value.endswith("__"):
            return target.value
    return None


def _is_docstring(view: SourceView, node: cst.CSTNode) -> bool:
    if not isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return False
    expr = view.parent(node)
    line = view.parent(expr) if isinstance(expr, cst.Expr) else None
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return False
    holder = view.parent(line)
    if isinstance(holder, cst.Module):
        return bool(holder.body) and holder.body[0] is line
    if isinstance(holder, cst.IndentedBlock) and holder.body[0] is line:
        return isinstance(view.parent(holder), (cst.FunctionDef, cst.ClassDef))
    return False


def _is_log_call(view: SourceView, call: cst.Call) -> bool:
    func = call.func
    if isinstance(func, cst.Name):
        return func.value in ("print", "warn", "pprint")
    if not isinstance(func, cst.Attribute):
        return False
    method, receiver = func.attr.value, view.code(func.value)
    if method == "warn" and receiver == "warnings":
        return True
    if method == "write" and receiver in ("sys.stdout", "sys.stderr"):
        return True
    if method in _LOG_METHODS:
        last = receiver.rsplit(".", 1)[-1]
        return "log" in last.lower()
    return False


def _is_debug_flag(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.Name):
        return test.value in _DEBUG_FLAGS
    if isinstance(test, cst.Attribute):
        return test.attr.value in _DEBUG_FLAGS
    return False


def _is_script_guard(test: cst.BaseExpression) -> bool:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = {test.left, target.comparator}
    names = {s.value for s in sides if isinstance(s, cst.Name)}
    strings = {s.evaluated_value for s in sides if isinstance(s, cst.SimpleString)}
    return names == {"__name__"} and strings == {"__main__"}


# ----------------------------------------------------------------------- equivalence

_STRICT_PAIRS = ({cst.LessThan, cst.LessThanEqual}, {cst.GreaterThan, cst.GreaterThanEqual})
#: Operands whose evaluation has no side effect, so evaluating them once more or once less is harmless.
_PURE = (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString, cst.Comparison, cst.UnaryOperation,
         cst.BooleanOperation)


def _boundary_equivalent(view: SourceView, site: Site) -> str | None:
    """Why moving a bound between strict and inclusive cannot change behaviour, or None.

    ``A < B`` and ``A <= B`` differ only when ``A == B``. When the branch the condition
    picks then yields one side and the other branch yields the other side (``if v > hi:
    return hi`` followed by ``return v``; ``a if a < b else b``; ``if v > hi: v = hi``),
    both give the same value there, so no input can tell the mutant apart.
    """
    if site.replacement is REMOVE or not any(
            type(site.target) in pair and type(site.replacement) in pair for pair in _STRICT_PAIRS):
        return None
    target = view.parent(site.target)
    comparison = view.parent(target) if isinstance(target, cst.ComparisonTarget) else None
    if not isinstance(comparison, cst.Comparison) or len(comparison.comparisons) != 1:
        return None
    left, right = _text(view, comparison.left), _text(view, comparison.comparisons[0].comparator)
    sides = {left, right}
    if len(sides) != 2:
        return None
    test = comparison
    parent = view.parent(test)
    while isinstance(parent, cst.BooleanOperation):  # `hi is not None and v > hi`: same question
        if not all(isinstance(side, _PURE) for side in (parent.left, parent.right)):
            return None
        test, parent = parent, view.parent(parent)
    outcomes = _branch_values(view, parent, test)
    if outcomes is None or {_text(view, value) for value in outcomes} != sides:
        return None
    return (f"equivalent at the boundary: when `{left}` equals `{right}` both branches give the same "
            "value, so no input can tell the bounds apart")


def _text(view: SourceView, node: cst.CSTNode) -> str:
    return " ".join(view.module.code_for_node(node).split())


def _branch_values(view: SourceView, holder: cst.CSTNode | None, test: cst.CSTNode) -> tuple | None:
    """The two values a condition chooses between: (if true, if false), or None when not that simple."""
    if isinstance(holder, cst.IfExp) and holder.test is test:
        return holder.body, holder.orelse
    if not isinstance(holder, cst.If) or holder.test is not test:
        return None
    body = _only_statement(holder.body)
    if isinstance(body, cst.Assign) and len(body.targets) == 1:  # `if v > hi: v = hi`: a no-op at equality
        return body.targets[0].target, body.value
    if not isinstance(body, cst.Return) or body.value is None:
        return None
    if holder.orelse is not None:
        other = _only_statement(holder.orelse.body) if isinstance(holder.orelse, cst.Else) else None
    else:
        block = view.parent(holder)
        siblings = list(block.body) if isinstance(block, (cst.IndentedBlock, cst.Module)) else []
        index = next((i for i, node in enumerate(siblings) if node is holder), None)
        following = siblings[index + 1] if index is not None and index + 1 < len(siblings) else None
        other = _only_statement(following) if following is not None else None
    if not isinstance(other, cst.Return) or other.value is None:
        return None
    return body.value, other.value


def _only_statement(node: cst.CSTNode) -> cst.CSTNode | None:
    """The single small statement of a block or statement line, else None."""
    if isinstance(node, cst.IndentedBlock):
        if len(node.body) != 1:
            return None
        node = node.body[0]
    if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and len(node.body) == 1:
        return node.body[0]
    return None



def _compile(source: str, path: str, shift: int = 0) -> tuple[CodeType | None, str]:
    """``shift``: what to add to a line of ``source`` to name it in the file (a window's delta)."""
    try:
        return compile(source, path, "exec", dont_inherit=True), ""
    except (SyntaxError, ValueError) as error:
        message = getattr(error, "msg", None) or str(error)
        line = getattr(error, "lineno", None)
        return None, f"{message} at line {line + shift}" if line else message


def _fingerprint(code: CodeType) -> tuple[object, ...]:
    """What a code object computes, line numbers aside: equal fingerprints, same program.

    Compares bytecode, names, local names and constants, recursing into nested code
    objects. Constants are tagged with their type: 0, 0.0 and False compare equal in
    Python but are different programs.
    """
    return (code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
            tuple(_const_fingerprint(c) for c in code.co_consts))


def _const_fingerprint(value: object) -> object:
    if isinstance(value, CodeType):
        return ("code", _fingerprint(value))
    if isinstance(value, tuple):
        return ("tuple", tuple(_const_fingerprint(v) for v in value))
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(repr(_const_fingerprint(v)) for v in value)))
    return (type(value).__name__, repr(value))


# ------------------------------------------------------------ exhaustive (mutmut) scope


def _mutmut_operators() -> Sequence[tuple[type, Callable[[Any], Iterable[cst.CSTNode]]]]:
    """mutmut's table of (node type, node -> mutated nodes); its module moved within 3.x."""
    try:
        from mutmut.mutation.mutators import mutation_operators
    except ImportError:  # mutmut 3.0-3.3
        from mutmut.node_mutation import mutation_operators  # type: ignore[no-redef,import-not-found]
    return mutation_operators


def _shape(source: str) -> str:
    """The program a source text denotes, formatting aside (for matching candidates)."""
    try:
        return ast.dump(ast.parse(source))
    except SyntaxError:
        return source


class _Shapes:
    """``_shape`` of what ``splicer`` makes of sites, computed from the site's unit alone.

    A module's ``ast.dump`` is the dump of everything around a statement (``before``), the
    statement's dump, then the rest (``after``). A site's unit (``_Splicer._unit``: a function,
    or a top-level statement) is whole lines at the indentation of its enclosing blocks, and
    the mutated file differs from the source only there (checked), so its new text
    parses (under one ``if 1:`` per enclosing block) to the statements the whole mutated file
    would hold there: its shape is ``before`` + their dumps + ``after``, the very string
    ``_shape`` returns. Anything else (a file printed whole, a unit that is not whole lines,
    a text that does not parse on its own) takes ``_shape`` itself.
    """

    _MARK = "\0elenchus-unit\0"

    def __init__(self, source: str, splicer: _Splicer) -> None:
        self.source = source
        self.splicer = splicer
        self.tree: ast.Module | None = None
        if "\0" not in source and "barry_as_FLUFL" not in source and not _ODD_BREAKS.search(source):
            try:
                self.tree = ast.parse(source)
            except (SyntaxError, ValueError):
                self.tree = None
        self.dump = ast.dump(self.tree) if self.tree is not None else ""
        self._frames: dict[int, tuple[str, str, str, int, int, int] | None] = {}

    def of(self, site: Site) -> str:
        mutated = self.splicer.apply(site)
        unit = self.splicer._unit(site.target) if self.tree is not None else None
        frame = self._frame(unit) if unit is not None else None
        if frame is None:
            return _shape(mutated)
        before, after, header, depth, offset, end = frame
        tail = len(self.source) - end
        if not (mutated.startswith(self.source[:offset]) and mutated.endswith(self.source[end:])) \
                or len(mutated) < offset + tail:
            return _shape(mutated)  # the edit reached outside the unit
        new_text = mutated[offset:len(mutated) - tail]
        if not (new_text.endswith("\n") or tail == 0):
            return _shape(mutated)
        dumped = self._statements(header + new_text, depth)
        return _shape(mutated) if dumped is None else before + dumped + after

    @staticmethod
    def _statements(text: str, depth: int) -> str | None:
        """The dumps of the statements ``text`` holds under ``depth`` headers, joined as a list's."""
        try:
            tree: ast.AST = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
        body = tree.body  # type: ignore[attr-defined]
        for _ in range(depth):
            if len(body) != 1 or not isinstance(body[0], ast.If):
                return None
            body = body[0].body
        return ", ".join(ast.dump(statement) for statement in body) if body else None

    def _frame(self, unit: cst.CSTNode) -> tuple[str, str, str, int, int, int] | None:
        key = id(unit)  # (the splicer's unit table keeps the unit alive)
        if key not in self._frames:
            self._frames[key] = self._find_frame(unit)
        return self._frames[key]

    def _find_frame(self, unit: cst.CSTNode) -> tuple[str, str, str, int, int, int] | None:
        assert self.tree is not None
        found = self.splicer._locate_unit(unit)
        if found is None:
            return None
        offset, text, indents = found
        end = offset + len(text)
        if not (offset == 0 or self.source[offset - 1] == "\n") or not (text.endswith("\n") or end == len(self.source)):
            return None
        first = self.source.count("\n", 0, offset) + 1
        last = self.source.count("\n", 0, end - 1) + 1
        header = "".join("".join(indents[:k]) + "if 1:\n" for k in range(len(indents)))
        # The statements the unit is: a run of one body list lying within its lines.
        for holder in ast.walk(self.tree):
            for field in ("body", "orelse", "finalbody"):
                body = getattr(holder, field, None)
                if not isinstance(body, list):
                    continue
                run = [i for i, statement in enumerate(body) if isinstance(statement, ast.stmt)
                       and first <= min([statement.lineno,
                                         *(d.lineno for d in getattr(statement, "decorator_list", ()))])
                       and (statement.end_lineno or statement.lineno) <= last]
                if not run:
                    continue
                i, j = run[0], run[-1] + 1
                if run != list(range(i, j)):
                    return None
                kept, marker = body[i:j], ast.Expr(ast.Name(id=self._MARK, ctx=ast.Load()))
                body[i:j] = [marker]
                try:
                    marked = ast.dump(self.tree)
                finally:
                    body[i:j] = kept
                mark = ast.dump(marker)
                if marked.count(mark) != 1:
                    return None
                before, after = marked.split(mark)
                original = self._statements(header + text, len(indents))
                if original is None or before + original + after != self.dump:
                    return None  # the unit's text alone does not give the file's statements
                return before, after, header, len(indents), offset, end
        return None


def _relabel(candidate: Site, known: Site) -> Site:
    return Site(family=known.family, target=candidate.target, replacement=candidate.replacement,
                anchor=candidate.anchor, changed_intent=known.changed_intent,
                incident=known.incident, expected_detection=known.expected_detection)


_MIRRORED = {
    frozenset({"lower", "upper"}): "converts `{recv}` to the opposite letter case",
    frozenset({"lstrip", "rstrip"}): "trims whitespace from the wrong side of `{recv}`",
    frozenset({"ljust", "rjust"}): "pads `{recv}` on the wrong side",
    frozenset({"removeprefix", "removesuffix"}): "removes text from the wrong end of `{recv}`",
}


def _label(view: SourceView, node: cst.CSTNode, mutated: cst.CSTNode) -> Site | None:
    """An incident label for a catalog candidate that no intent family produces."""
    who, exercise = view.who(node), view.exercise(node)
    context = view.context(node) if isinstance(node, cst.BaseExpression) else node
    before = view.code(context)
    after = view.swapped_code(context, node, mutated)
    change = f"`{before}` became `{after}`"
    old, new = view.code(node), view.code(mutated)
    family = intent = incident = ""
    detection = f"a test that {exercise} and checks the result that depends on `{before}`"

    if isinstance(node, (cst.BaseNumber, cst.SimpleString)) or (
            isinstance(node, cst.Name) and node.value in ("True", "False")):
        family = "constant-drift"
        intent = f"believes the value in `{before}` is `{new}`, not `{old}`"
        incident = f"{who} works with `{new}` where `{old}` was meant: {change}"
    elif isinstance(node, cst.Name) and node.value == "deepcopy":
        family = "shallow-copy"
        intent = "believes a shallow copy is as good as a deep one here"
        incident = (f"{who} makes a shallow copy, so later changes leak through shared inner "
                    f"objects: {change}")
    elif isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
        target = view.code(node.targets[0].target if isinstance(node, cst.Assign) else node.target)
        family = "lost-value"
        intent = f"believes the value computed for `{target}` is not needed"
        stored = view.code(mutated.value) if isinstance(mutated, (cst.Assign, cst.AnnAssign)) \
            and mutated.value is not None else "nothing"
        incident = f"{who} stores `{stored}` in `{target}` instead of the computed value: {change}"
        detection = f"a test that {exercise} and checks what `{target}` ends up holding"
    elif isinstance(node, cst.AugAssign) and isinstance(mutated, cst.Assign):
        family = "overwritten-accumulator"
        target = view.code(node.target)
        intent = f"believes `{target}` should be replaced rather than updated"
        incident = f"{who} overwrites `{target}` instead of accumulating into it: {change}"
        detection = f"a test that {exercise} so that `{target}` is updated more than once"
    elif isinstance(node, (cst.AugAssign, cst.BinaryOperation)):
        family = "arithmetic-slip"
        intent = f"believes `{after}` computes what `{before}` does"
        incident = f"{who} computes the wrong value: {change}"
    elif isinstance(node, cst.UnaryOperation):
        family = "negated-condition" if isinstance(node.operator, cst.Not) else "arithmetic-slip"
        intent = f"believes `{new}` means the same as `{old}`"
        incident = f"{who} uses `{new}` where `{old}` was meant: {change}"
    elif isinstance(node, cst.ComparisonTarget):
        family = "identity-confusion"
        intent = f"reads the check `{before}` the wrong way round"
        incident = f"{who} takes the opposite decision on `{before}`: {change}"
    elif isinstance(node, cst.Call) and isinstance(mutated, cst.Call):
        family, intent, incident = _label_call(view, node, mutated, who, change)
    elif isinstance(node, cst.Break):
        family = "loop-control-slip"
        intent = "believes leaving the loop means leaving the function"
        incident = f"{who} returns early where it meant to leave only the loop: `break` became `return`"
    elif isinstance(node, cst.Continue):
        family = "loop-control-slip"
        intent = "believes skipping this item means ending the loop"
        incident = f"{who} stops the whole loop where it meant to skip one item: `continue` became `break`"
    elif isinstance(node, cst.Lambda) and isinstance(mutated, cst.Lambda):
        family = "default-return"
        intent = f"believes the callback `{old}` can return `{view.code(mutated.body)}`"
        incident = f"{who} passes a callback that returns `{view.code(mutated.body)}` instead of `{view.code(node.body)}`: {change}"
    elif isinstance(node, cst.Match) and isinstance(mutated, cst.Match):
        kept = {id(c) for c in mutated.cases}
        dropped = next((c for c in node.cases if id(c) not in kept), None)
        if dropped is not None:
            pattern = view.code(dropped.pattern)
            family = "dropped-case"
            intent = f"believes the case `{pattern}` never occurs"
            incident = f"{who} no longer handles the case `{pattern}`; it falls through to the other cases"
            detection = f"a test that {exercise} with a value matching `{pattern}`"
    elif isinstance(node, cst.IfExp) and isinstance(mutated, cst.IfExp):
        forced_true = isinstance(mutated.test, cst.BooleanOperation) and isinstance(
            mutated.test.operator, cst.Or)
        chosen = view.code(node.body if forced_true else node.orelse)
        family = "forced-branch"
        intent = f"believes `{view.code(node.test)}` always comes out {'true' if forced_true else 'false'}"
        incident = f"{who} always picks `{chosen}`, whatever `{view.code(node.test)}` says: {change}"
        detection = f"a test that {exercise} once with `{view.code(node.test)}` true and once false"
    if not incident:
        return None
    return Site(family=family, target=node, replacement=mutated, anchor=node,
                changed_intent=intent, incident=incident, expected_detection=detection)


def _label_call(view: SourceView, node: cst.Call, mutated: cst.Call, who: str,
                change: str) -> tuple[str, str, str]:
    callee = view.code(node.func)
    if isinstance(node.func, cst.Attribute) and isinstance(mutated.func, cst.Attribute) \
            and node.func.attr.value != mutated.func.attr.value:
        old, new = node.func.attr.value, mutated.func.attr.value
        recv = view.code(node.func.value)
        what = _MIRRORED.get(frozenset({old, new}), "searches `{recv}` from the wrong end")
        return ("mirrored-string-method", f"believes `{new}` does what `{old}` does",
                f"{who} {what.format(recv=recv)}: {change}")
    if len(mutated.args) < len(node.args):
        kept = {id(a.value) for a in mutated.args}
        dropped = next((a for a in node.args if id(a.value) not in kept), None)
        if dropped is not None:
            arg = view.code(dropped.value)
            return ("dropped-argument", f"believes `{callee}` does not need `{arg}`",
                    f"{who} calls `{callee}` without `{arg}`: {change}")
    for old_arg, new_arg in zip(node.args, mutated.args):
        if old_arg.value is not new_arg.value and isinstance(new_arg.value, cst.Name) \
                and new_arg.value.value == "None":
            arg = view.code(old_arg.value)
            return ("dropped-argument", f"believes `{callee}` works without a real `{arg}`",
                    f"{who} passes `None` to `{callee}` instead of `{arg}`: {change}")
        if old_arg.keyword is not None and new_arg.keyword is not None \
                and old_arg.keyword.value != new_arg.keyword.value:
            return ("wrong-key", f"believes the key is `{new_arg.keyword.value}`",
                    f"{who} builds the mapping under the key `{new_arg.keyword.value}` instead of "
                    f"`{old_arg.keyword.value}`: {change}")
    return "", "", ""
