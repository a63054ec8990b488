"""Candidate generation: ``generate`` and ``FileMutator``, from the families' sites to drafts and rejections.

``FileMutator`` reads a file once (a large one as windows, one top-level statement each) and
``_build`` turns the families' sites into candidates: located in their spans, refused when arid,
equivalent or invalid, applied, compiled, de-duplicated by program, and placed back in the file with
their diff and watched lines.
"""

from __future__ import annotations

import ast
import bisect
import hashlib
import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from elenchus.repo.discover import ODD_BREAKS, outline
from elenchus.mutation.families import FAMILIES, REMOVE, RegexSlip, Site, SourceView
from elenchus.mutation.mutate.applying import _Splicer
from elenchus.mutation.mutate.lines import _CONTEXT, _HUNK, _diff, _range, _runnable_by_scope, _watched_lines
from elenchus.mutation.mutate.records import MODULE_SYMBOL, Draft, FunctionSpan, Mutant, Positions, Rejected
from elenchus.mutation.mutate.guarded import _arid_handler
from elenchus.mutation.mutate.rejection import _arid_reason, _boundary_equivalent, _compile, _fingerprint, _idle_update


def generate(
    path: str, source: str, spans: Sequence[FunctionSpan] | None = None, faked: frozenset[str] = frozenset()
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

    ``faked``: the checks of the interpreter or platform the tests set themselves (``environment_faked``): a
    condition reading one is mutated like any other, where one reading only what a test run here cannot
    change is arid.
    """
    return FileMutator(path, source, faked=faked).generate(spans)


#: Files with more lines than this are mutated one top-level statement (window) at a time, each
#: candidate compiled and diffed with its statement alone. Mutants are the same as whole-file
#: generation makes them, except that a deletion beside identical lines may be shown (diff and
#: watched lines) at another of its equivalent places than a diff of the whole file would pick.
#: (A 5,000-line module compiled whole for each of its 700 candidates took most of a minute.)
WINDOW_LINES = 2_000
_REGEX_MODULES = re.compile(r"\b(?:re|regex)\b")


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

    def __init__(self, path: str, source: str, window_lines: int | None = None,
                 faked: frozenset[str] = frozenset()) -> None:
        window_lines = WINDOW_LINES if window_lines is None else window_lines
        self.window_lines = window_lines
        # (``generate``; those this file names: the tests' other texts say nothing of it)
        words = set(re.findall(r"\w+", source)) if faked else set()
        self.faked = frozenset(name for name in faked if name.rpartition(".")[2] in words)
        self.path = path
        self.source = source
        self.lines = source.splitlines(keepends=True)
        self.regions: list[tuple[int, int]] = []
        self.lead_end = 0  # last line of the file's `from __future__` head
        if len(self.lines) > window_lines and not ODD_BREAKS.search(source):
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
            made, rejected = _build(self.path, self.source, wrapper, iter(found), spans, _WholeFile(),
                                     faked=self.faked)
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
        made, rejected = _build(self.path, window.text, wrapper, iter(found_sites), local, _InWindow(self, window),
                                faked=self.faked)
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


def _build(
    path: str,
    source: str,
    wrapper: MetadataWrapper,
    sites: Iterator[Site],
    spans: Sequence[FunctionSpan] | None,
    place: _WholeFile | _InWindow,
    splicer: _Splicer | None = None,
    checked: dict[str, list] | None = None,
    faked: frozenset[str] = frozenset(),
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

        reason = _arid_reason(view, site, faked) or _arid_handler(view, site) or _boundary_equivalent(view, site) \
            or _idle_update(view, site)
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
