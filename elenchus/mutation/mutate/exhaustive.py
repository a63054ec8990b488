"""The broader-target scope: mutmut's operator catalog over the whole file, each candidate labelled as an incident.

``generate_exhaustive`` (and ``drafts_and_exhaustive``, which shares one parse and one family search
with intent-driven generation) takes mutmut's per-node operator table for its edits only; a candidate
whose program an intent family also makes takes that family's label (matched by ``_Shapes``), the
others an incident sentence by the kind of node edited (``_label``), and the usual rejection applies.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from elenchus.mutation.families import Site, SourceView
from elenchus.mutation.mutate.applying import _Splicer
from elenchus.repo.discover import ODD_BREAKS
from elenchus.mutation.mutate.generation import _build, _family_sites, _unparseable, _WholeFile
from elenchus.mutation.mutate.lines import _range
from elenchus.mutation.mutate.records import MODULE_SYMBOL, Draft, Mutant, Rejected


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


def drafts_and_exhaustive(path: str, source: str, family: bool = True, faked: frozenset[str] = frozenset()) -> tuple[
        tuple[Draft, ...], tuple[Rejected, ...], tuple[Mutant, ...], tuple[Rejected, ...]]:
    """``FileMutator(path, source).drafts(None)`` (unless not ``family``: empty) and
    ``generate_exhaustive(path, source)`` from one parse and one family search, each mutated
    text made, compiled and diffed once (``faked``: as ``generate`` takes it)."""
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
        family_made, rejected = _build(path, source, wrapper, iter(found), None, _WholeFile(), splicer, checked,
                                      faked)
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
    drafts, rejected = _build(path, source, wrapper, iter(sites), None, _WholeFile(), splicer, checked, faked)
    ordered = sorted((*rejected, *unlabelled), key=lambda r: (r.line, r.family, r.reason))
    return family_made, family_refused, tuple(d.mutant(source) for d in drafts), (*failures, *ordered)


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
        if "\0" not in source and "barry_as_FLUFL" not in source and not ODD_BREAKS.search(source):
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
