"""Mutant generation: one minimal libcst edit per site, rejected before running when pointless.

``generate`` parses a file once, asks every family in ``elenchus.families.FAMILIES``
for its sites inside the requested function spans, applies each site as exactly one
node-level edit (everything outside the edited node stays byte-identical), and
sorts the result into:

- ``Mutant`` records, ready to run, each with its intent, incident, expected
  detection and unified diff;
- ``Rejected`` records with the reason, never silently dropped: arid code
  (logging, output, messages, docstrings, annotations, display-only dunders,
  debug-only branches), code unreachable by clients (script blocks), mutants that
  do not compile, mutants whose compiled code equals the original's, and
  duplicates of an earlier mutant.

libcst is used here and in ``elenchus.families`` only.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import CodeType

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from elenchus.families import FAMILIES, REMOVE, Site, SourceView

__all__ = [
    "FunctionSpan",
    "Mutant",
    "Rejected",
    "generate",
    "generate_exhaustive",
]

MODULE_SYMBOL = "<module>"


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

    Output order is deterministic: by line, column, family key, then the edit itself.
    """
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        return (), (_unparseable(path, error),)
    wrapper = MetadataWrapper(module)

    def sites() -> Iterator[Site]:
        for family in FAMILIES.values():
            yield from family.find_sites(wrapper)

    return _build(path, source, wrapper, sites(), spans)


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
    operators = _mutmut_operators()
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        return (), (_unparseable(path, error),)
    wrapper = MetadataWrapper(module)
    view = SourceView(wrapper)

    intent_sites: dict[str, Site] = {}
    for family in FAMILIES.values():
        for site in family.find_sites(wrapper):
            intent_sites.setdefault(_shape(_apply(wrapper.module, site)), site)

    sites: list[Site] = []
    unlabelled: list[Rejected] = []
    positions = wrapper.resolve(PositionProvider)
    for node in list(view.nodes(cst.CSTNode)):
        for node_type, operator in operators:
            if not isinstance(node, node_type):
                continue
            for mutated in operator(node):
                candidate = Site(family="", target=node, replacement=mutated, anchor=node,
                                 changed_intent="", incident="", expected_detection="")
                known = intent_sites.get(_shape(_apply(wrapper.module, candidate)))
                labelled = _relabel(candidate, known) if known else _label(view, node, mutated)
                if labelled is not None:
                    sites.append(labelled)
                    continue
                unlabelled.append(Rejected(
                    path=path, symbol=view.qualname(node) or MODULE_SYMBOL,
                    line=_range(view, positions, node).start.line, family="", changed_intent="",
                    reason=(f"unlabelled: no incident sentence for changing `{view.code(node)}` "
                            f"to `{view.code(mutated)}`")))
    mutants, rejected = _build(path, source, wrapper, iter(sites), None)
    return mutants, tuple(sorted((*rejected, *unlabelled), key=lambda r: (r.line, r.family, r.reason)))


# ---------------------------------------------------------------------------- pipeline


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


def _build(
    path: str,
    source: str,
    wrapper: MetadataWrapper,
    sites: Iterator[Site],
    spans: Sequence[FunctionSpan] | None,
) -> tuple[tuple[Mutant, ...], tuple[Rejected, ...]]:
    module = wrapper.module
    view = SourceView(wrapper)
    positions = wrapper.resolve(PositionProvider)
    original_code, original_error = _compile(source, path)

    candidates = []
    for site in sites:
        candidate = _locate(view, positions, site, spans)
        if candidate is not None:
            candidates.append(candidate)
    candidates.sort(key=lambda c: (c.line, c.col, c.site.family, c.replacement_text, c.end_line))

    mutants: list[Mutant] = []
    rejected: list[Rejected] = []
    seen: dict[str, str] = {}
    for candidate in candidates:
        site = candidate.site

        def reject(reason: str, candidate: _Candidate = candidate) -> None:
            rejected.append(Rejected(path=path, symbol=candidate.symbol, line=candidate.line,
                                     family=candidate.site.family,
                                     changed_intent=candidate.site.changed_intent, reason=reason))

        reason = _arid_reason(view, site)
        if reason is not None:
            reject(reason)
            continue
        mutated_source = _apply(module, site)
        mutant_id = _mutant_id(path, candidate, module.code_for_node(site.anchor))
        if mutated_source == source:
            reject("equivalent: the edit leaves the source text unchanged")
            continue
        if mutated_source in seen:
            reject(f"duplicate: the same code change as mutant {seen[mutated_source]}")
            continue
        seen[mutated_source] = mutant_id
        mutated_code, error = _compile(mutated_source, path)
        if mutated_code is None:
            reject(f"invalid: the mutated file does not compile ({error})")
            continue
        if original_code is None:
            reject(f"invalid: the original file does not compile ({original_error}), so the "
                   f"mutant cannot be compared with it")
            continue
        if _same_code(original_code, mutated_code):
            reject("equivalent: compiles to the same code as the original")
            continue
        mutants.append(Mutant(
            id=mutant_id,
            path=path,
            symbol=candidate.symbol,
            line=candidate.line,
            end_line=candidate.end_line,
            col=candidate.col,
            family=site.family,
            changed_intent=site.changed_intent,
            incident=site.incident,
            expected_detection=site.expected_detection,
            diff=_diff(path, source, mutated_source),
            mutated_source=mutated_source,
            in_changed_lines=candidate.changed,
        ))
    return tuple(mutants), tuple(rejected)


def _unparseable(path: str, error: cst.ParserSyntaxError) -> Rejected:
    return Rejected(path=path, symbol=MODULE_SYMBOL, line=error.raw_line, family="",
                    changed_intent="", reason=f"invalid: the file does not parse ({error.message})")


def _locate(view: SourceView, positions, site: Site,
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


def _range(view: SourceView, positions, node: cst.CSTNode) -> CodeRange:
    current: cst.CSTNode | None = node
    while current is not None:
        found = positions.get(current)
        if found is not None:
            return found
        current = view.parent(current)
    return CodeRange((1, 0), (1, 0))


def _symbol_of(view: SourceView, positions, node: cst.CSTNode) -> tuple[str, int]:
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


def _diff(path: str, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True),
        fromfile=f"a/{path}", tofile=f"b/{path}", n=2,
    ))


# -------------------------------------------------------------------------- applying


class _OneEdit(cst.CSTTransformer):
    """Replace (or drop) exactly one node, matched by identity.

    A dropped statement hands its leading comment lines to the next statement (or
    the block footer), so comments outside the edited node stay byte-identical.
    """

    def __init__(self, target: cst.CSTNode, replacement: cst.CSTNode | cst.RemovalSentinel) -> None:
        super().__init__()
        self.target = target
        self.replacement = replacement

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node is not self.target  # nothing below the target needs visiting

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        if original_node is self.target:
            return self.replacement
        if self.replacement is REMOVE and isinstance(original_node, (cst.IndentedBlock, cst.Module)):
            return self._keep_leading_lines(original_node, updated_node)
        return updated_node

    def _keep_leading_lines(self, original, updated):
        index = next((i for i, s in enumerate(original.body) if s is self.target), None)
        lines = tuple(getattr(self.target, "leading_lines", ()))
        if index is None or not lines:
            return updated
        body = list(updated.body)
        if index < len(body):
            follower = body[index]
            body[index] = follower.with_changes(leading_lines=[*lines, *follower.leading_lines])
            return updated.with_changes(body=body)
        return updated.with_changes(footer=[*lines, *updated.footer])


def _apply(module: cst.Module, site: Site) -> str:
    return module.visit(_OneEdit(site.target, site.replacement)).code


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
        if isinstance(node, cst.If) and (previous is None or previous is node.test
                                         or previous is node.body):
            if _is_debug_flag(node.test):
                return f"arid: debug-only branch `if {view.code(node.test)}:`"
            if _is_script_guard(node.test):
                return "unreachable by clients: runs only as a script (`if __name__ == '__main__':`)"
        previous = node
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


def _compile(source: str, path: str) -> tuple[CodeType | None, str]:
    try:
        return compile(source, path, "exec", dont_inherit=True), ""
    except (SyntaxError, ValueError) as error:
        message = getattr(error, "msg", None) or str(error)
        line = getattr(error, "lineno", None)
        return None, f"{message} at line {line}" if line else message


def _same_code(a: CodeType, b: CodeType) -> bool:
    """Whether two code objects are the same program (line numbers aside)."""
    return (
        a.co_code == b.co_code
        and a.co_names == b.co_names
        and a.co_varnames == b.co_varnames
        and a.co_freevars == b.co_freevars
        and a.co_cellvars == b.co_cellvars
        and _same_const(a.co_consts, b.co_consts)
    )


def _same_const(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False  # 0, 0.0 and False compare equal but are different programs
    if isinstance(a, CodeType):
        return _same_code(a, b)  # type: ignore[arg-type]
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same_const(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
    if isinstance(a, frozenset):
        return sorted(map(repr, a)) == sorted(map(repr, b))  # type: ignore[call-overload]
    if isinstance(a, (float, complex)):
        return repr(a) == repr(b)
    return a == b


# ------------------------------------------------------------ exhaustive (mutmut) scope


def _mutmut_operators() -> Sequence[tuple[type, object]]:
    """mutmut's table of (node type, node -> mutated nodes); its module moved within 3.x."""
    try:
        from mutmut.mutation.mutators import mutation_operators
    except ImportError:  # mutmut 3.0-3.3
        from mutmut.node_mutation import mutation_operators  # type: ignore[no-redef]
    return mutation_operators


def _shape(source: str) -> str:
    """The program a source text denotes, formatting aside (for matching candidates)."""
    try:
        return ast.dump(ast.parse(source))
    except SyntaxError:
        return source


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
        incident = f"{who} stores `{view.code(mutated.value)}` in `{target}` instead of the computed value: {change}"
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
    elif isinstance(node, cst.Lambda):
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
