"""Choose what to challenge: scope of mutation, risk ranking and the budget.

Risks are ranked before any test assertion is read (SPEC 4.4): changed lines
first, then validation, error handling and persistence above cosmetic code,
public API above private helpers. Functions take turns, riskiest first, so every
changed function gets a mutant and none soaks up the budget; at least one
retention risk (pre-existing behaviour not tailored to an added test) is kept
when the budget allows, and every candidate beyond the budget is recorded as
not challenged with its rank.

A large change (more than ``EAGER_SPANS`` functions and statements) is planned
lazily: each group of spans gets a static bound on the score of any mutant it may
hold (its changed lines, the heaviest family whose cues its code has, its name and
contract item), and groups are expanded best bound first until the challenged
mutants, the retention risk and their ranks are settled. Such a plan lists only
the candidates it generated (at most ``LISTED_BEYOND_BUDGET`` beyond the budget)
and counts what it left out in ``unexpanded`` and ``unlisted``.
"""

from __future__ import annotations

import ast
import bisect
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol
from dataclasses import asdict, astuple, dataclass
from pathlib import PurePosixPath

import libcst as cst

from elenchus.mutation.contract import Contract, ContractItem
from elenchus.repo.discover import ChangeSet, function_spans
from elenchus.config import Settings
from elenchus.errors import ElenchusError
from elenchus.mutation.families import FAMILIES, code_features, may_apply
from elenchus.mutation.mutate import (
    Draft,
    FileMutator,
    FunctionSpan,
    Mutant,
    Rejected,
    drafts_and_exhaustive,
    environment_faked,
)
from elenchus.mutation.scope import CONFIRMED_INTENT, SCOPES
from elenchus.repo.snapshot import Snapshot

RISKY_NAME_WORDS = ("valid", "check", "auth", "permission", "verify", "save", "write", "store", "persist",
                    "delete", "remove", "pay", "charge", "price", "lock", "commit", "limit", "bound")


@dataclass(frozen=True, slots=True)
class Planned:
    # A challenged mutant is a Mutant (it runs, so it holds its whole mutated file); one beyond the budget stays a
    # Draft (listed, never run): 28 Mutants of a generated 5 MB module held 134 MB for a list of 25 lines.
    mutant: Mutant | Draft
    rank: int  # 1 = riskiest candidate
    contract_id: str | None
    retention: bool  # pre-existing behaviour, not tailored to an added test
    score: int


@dataclass(frozen=True, slots=True)
class Plan:
    scope: str
    target: str | None
    spans: tuple[tuple[str, tuple[FunctionSpan, ...]], ...]  # (path, spans) that were mutated
    challenged: tuple[Planned, ...]
    not_challenged: tuple[Planned, ...]
    rejected: tuple[Rejected, ...]
    budget: int
    unexpanded: int = 0  # spans (of a large change) whose candidates were never generated: ranked below
    unlisted: int = 0  # generated candidates beyond the budget left out of ``not_challenged``

    def how_chosen(self) -> str:
        """How the challenged mutants were picked, in one sentence: a plan of a few mutants out of a
        change of 60,000 functions must say why those and what became of the rest."""
        whole = sum(1 for _, spans in self.spans if not spans)
        spans = sum(len(spans) for _, spans in self.spans)
        generated = len(self.challenged) + len(self.not_challenged) + self.unlisted
        where = " and ".join(part for part in (
            f"{spans:,} changed function(s) and statement(s)" if spans else "",
            f"{whole:,} whole file(s)" if whole else "") if part) or "no code"
        ranking = ("ranked by risk (a changed line first, then the family's weight, a risky name, public before "
                   "private, a high-risk contract item)")
        text = f"{generated:,} candidate(s) over {where}, {ranking}; the {len(self.challenged)} riskiest within the " \
               f"budget of {self.budget} are challenged"
        if self.unexpanded:
            text += (f". {self.unexpanded:,} of the functions and statements were never expanded into candidates: "
                     "too many to generate them all, they were ranked first by the most risk their code can hold "
                     "(the families whose cues appear in it), and none of them could outrank the challenged ones")
        if self.unlisted:
            text += f". {self.unlisted:,} generated candidate(s) ranked below the listed ones are counted, not listed"
        return text + "."


# -- what the tests exercise (static) ------------------------------------------------


class _CalledNames(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name):
            self.names.add(func.value)
        elif isinstance(func, cst.Attribute):
            self.names.add(func.attr.value)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        name = cst.helpers.get_full_name_for_node(node.name)
        if name:
            self.names.add(name.split(".")[-1])


def names_used_by_tests(sources: Iterable[str]) -> set[str]:
    names: set[str] = set()
    for source in sources:
        try:
            module = cst.parse_module(source)
        except cst.ParserSyntaxError:
            continue
        collector = _CalledNames()
        module.visit(collector)
        names |= collector.names
    return names


def _test_functions(source: str | None) -> dict[str, tuple[str, set[str]]]:
    """{test name: (its code, the names it calls)}."""
    if not source:
        return {}
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return {}
    found: dict[str, tuple[str, set[str]]] = {}

    def visit(body: Iterable[cst.CSTNode], prefix: str) -> None:
        for node in body:
            if isinstance(node, cst.FunctionDef) and node.name.value.startswith("test"):
                collector = _CalledNames()
                node.visit(collector)
                found[prefix + node.name.value] = (module.code_for_node(node), collector.names)
            elif isinstance(node, cst.ClassDef):
                visit(node.body.body, f"{prefix}{node.name.value}::")

    visit(module.body, "")
    return found


def names_by_test(source: str) -> dict[str, set[str]]:
    """{test name (``test_x`` or ``TestC::test_x``): the names it calls}."""
    return {name: used for name, (_, used) in _test_functions(source).items()}


def names_used_by_changed_tests(change: ChangeSet, base: Snapshot, head: Snapshot) -> set[str]:
    """Names called by the test functions that the change added, modified or deleted.

    A changed conftest.py counts whole: a fixture change can affect every test.
    """
    names: set[str] = set()
    for path in change.changed_tests:
        old, new = base.read(path), head.read(path)
        if change.settings.kind_of(path) == "infrastructure":
            names |= names_used_by_tests(text for text in (old, new) if text)
            continue
        before, after = _test_functions(old), _test_functions(new)
        for test in before.keys() | after.keys():
            if before.get(test, ("",))[0] != after.get(test, ("",))[0]:
                names |= before.get(test, ("", set()))[1] | after.get(test, ("", set()))[1]
    return names


def _anchored_spans(contract: Contract | None, head: Snapshot) -> dict[str, list[FunctionSpan] | None]:
    """The Head functions and methods that confirmed (or tested) contract items anchor, whole."""
    chosen: dict[str, list[FunctionSpan] | None] = {}
    missing = []
    for item in contract.items if contract is not None else ():
        if item.status not in ("confirmed", "tested"):
            continue
        for anchor in item.anchors:
            spans = [s for s in function_spans(head.read(anchor.path) or "")
                     if s.qualname == anchor.symbol or s.qualname.startswith(anchor.symbol + ".")]
            if not spans:
                missing.append(f"{item.id} ({anchor.path}::{anchor.symbol})")
            known = {s.qualname for s in chosen.get(anchor.path) or ()}
            chosen.setdefault(anchor.path, []).extend(  # type: ignore[union-attr]
                FunctionSpan(s.qualname, s.start, s.end) for s in spans if s.qualname not in known)
    if not any(chosen.values()):
        where = f": {', '.join(missing)} name no function or method at Head" if missing else ""
        raise ElenchusError(f"no confirmed contract item anchors a function or method at Head{where}; fix the "
                            "anchors in the contract (path and symbol) and run again")
    return {path: spans for path, spans in chosen.items() if spans}


def _exercised_spans(change: ChangeSet, base: Snapshot, head: Snapshot) -> dict[str, list[FunctionSpan]]:
    """Head production functions called by the added, modified or deleted tests."""
    names = names_used_by_changed_tests(change, base, head)
    spans: dict[str, list[FunctionSpan]] = {}
    if not names:
        return spans
    for path in head.files:
        if change.settings.kind_of(path) != "production":
            continue
        for span in function_spans(head.read(path) or ""):
            if span.qualname.split(".")[-1] in names:
                spans.setdefault(path, []).append(FunctionSpan(span.qualname, span.start, span.end))
    return spans


# -- scope ------------------------------------------------------------------------


def spans_for_scope(scope: str, change: ChangeSet, base: Snapshot, head: Snapshot,
                    target: str | None = None, contract: Contract | None = None) -> dict[str, list[FunctionSpan] | None]:
    """{path: spans} to mutate; None means the whole file."""
    if scope == CONFIRMED_INTENT:
        return _anchored_spans(contract, head)
    if scope not in SCOPES:
        raise ElenchusError(f"unknown scope {scope!r}; choose one of {', '.join(SCOPES)}")
    chosen: dict[str, list[FunctionSpan] | None] = {}
    if scope == "target":
        if not target:
            raise ElenchusError("the target scope needs a module or path: pass --target PATH "
                                "(use --target . for the whole repository)")
        prefix = PurePosixPath(target.strip("/")) if target not in (".", "./") else None
        for path in head.files:
            if change.settings.kind_of(path) != "production":
                continue
            pure = PurePosixPath(path)
            if prefix is None or pure == prefix or prefix in pure.parents or \
                    pure.with_suffix("").as_posix().replace("/", ".").endswith(target):
                chosen[path] = None
        if not chosen:
            raise ElenchusError(f"--target {target!r} matches no production Python file at Head; "
                                "pass a file, a directory or a dotted module name")
        return chosen
    if scope == "current-change":
        for fn in change.functions:
            if fn.status != "deleted":
                chosen.setdefault(fn.path, []).append(  # type: ignore[union-attr]
                    FunctionSpan(fn.qualname, fn.start, fn.end, fn.changed_lines))
        for statement in change.statements:  # changed constants, regexes, tables, class attributes
            chosen.setdefault(statement.path, []).append(  # type: ignore[union-attr]
                FunctionSpan(statement.symbol, statement.start, statement.end, statement.changed_lines))
    for path, spans in _exercised_spans(change, base, head).items():
        existing = chosen.setdefault(path, [])
        known = {s.qualname for s in existing}  # type: ignore[union-attr]
        existing.extend(s for s in spans if s.qualname not in known)  # type: ignore[union-attr]
    return chosen


# -- changed lines no mutant reaches --------------------------------------------------


def _innermost_statement(tree: ast.Module, line: int) -> tuple[ast.stmt | None, ast.stmt | None]:
    """(innermost statement holding ``line``, the function or class whose header holds it)."""
    best: ast.stmt | None = None
    header: ast.stmt | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if start <= line < (node.body[0].lineno if node.body else node.lineno + 1):
                header = node
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            if best is None or (node.end_lineno or node.lineno) - node.lineno <= \
                    (best.end_lineno or best.lineno) - best.lineno:
                best = node
    return best, header


def _own_lines(statement: ast.stmt) -> range:
    """The lines a statement holds itself: a compound statement's header, a simple one whole."""
    body = getattr(statement, "body", None)
    if isinstance(body, list) and body:
        return range(statement.lineno, body[0].lineno)
    return range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)


def _why_no_mutant(tree: ast.Module, line: int, text: str) -> str:
    statement, header = _innermost_statement(tree, line)
    code = " ".join(text.split())
    code = code if len(code) <= 60 else code[:57].rstrip() + "..."
    if header is not None:
        if any(d.lineno <= line <= (d.end_lineno or d.lineno) for d in header.decorator_list):
            return f"no mutant: a decorator line (`{code}`); no family models a changed decorator"
        if isinstance(header, ast.ClassDef):
            return f"no mutant: a class header (`{code}`); its bases and keywords are not mutated"
        return f"no mutant: the signature of `{header.name}` (`{code}`); only literal defaults are mutated"
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return (f"no mutant: an import (`{code}`); a missing or wrong import fails when the module loads, "
                "which is never counted as a caught behaviour")
    targets = statement.targets if isinstance(statement, ast.Assign) else \
        [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else []
    dunders = [t.id for t in targets if isinstance(t, ast.Name) and t.id.startswith("__") and t.id.endswith("__")]
    if dunders:
        return f"no mutant: `{dunders[0]}` is module metadata (exports, version), not behaviour"
    if isinstance(statement, ast.AnnAssign) and statement.value is None:
        return f"no mutant: a type annotation without a value (`{code}`); annotations do not change behaviour"
    if isinstance(statement, (ast.Pass, ast.Global, ast.Nonlocal)) or (
            isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)):
        return f"no mutant: `{code}` does nothing a test could observe"
    return f"no mutant: no family models a misunderstanding of `{code}`"


def unreached_lines(path: str, source: str, spans: Iterable[FunctionSpan], made: Iterable[Mutant | Draft],
                    refused: Iterable[Rejected]) -> list[Rejected]:
    """A rejection with its reason for every changed code line that no candidate reaches.

    Every changed line that holds code gets at least one candidate or a recorded reason,
    so a changed file never shows zero mutants without saying why.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return _unreached(path, source, spans, made, refused, lambda line: tree)


def _unreached(path: str, source: str, spans: Iterable[FunctionSpan], made: Iterable[Mutant | Draft],
               refused: Iterable[Rejected], tree_for: Callable[[int], ast.Module | None]) -> list[Rejected]:
    """``unreached_lines`` with the syntax tree holding each line from ``tree_for`` (a region's
    tree for a large file)."""
    reached = set()
    for mutant in made:
        reached.update(range(mutant.line, mutant.end_line + 1))
    reached.update(r.line for r in refused)
    ordered = sorted(reached)
    lines = source.splitlines()
    found: list[Rejected] = []
    seen_statements: set[int] = set()
    for span in spans:
        at = bisect.bisect_left(ordered, span.start)
        has_mutant = at < len(ordered) and ordered[at] <= span.end
        for line in span.changed_lines:
            if line in reached or not 1 <= line <= len(lines):
                continue
            tree = tree_for(line)
            if tree is None:
                continue
            statement, header = _innermost_statement(tree, line)
            if has_mutant and header is not None:
                continue  # the signature of a function with mutants: its body speaks for it
            if header is None and statement is not None and reached.intersection(_own_lines(statement)):
                continue  # another line of the same statement has its mutant
            key = id(header or statement) if (header or statement) is not None else line
            if key in seen_statements:
                continue
            seen_statements.add(key)
            found.append(Rejected(path=path, symbol=span.qualname, line=line, family="",
                                  changed_intent="none: no mutation family applies to this line",
                                  reason=_why_no_mutant(tree, line, lines[line - 1])))
    return found


# -- ranking --------------------------------------------------------------------------


def risk_score(mutant: Mutant, contract: Contract | None) -> int:
    item = contract.item_for(mutant.path, mutant.symbol) if contract else None
    return _score(mutant.path, mutant.symbol, FAMILIES[mutant.family].risk_weight if mutant.family in FAMILIES
                  else 1, mutant.in_changed_lines, item)


def _score(path: str, symbol: str, weight: int, in_changed_lines: bool, item: ContractItem | None) -> int:
    score = 100 if in_changed_lines else 0
    score += 10 * weight
    leaf = symbol.split(".")[-1].lower()
    if any(word in leaf for word in RISKY_NAME_WORDS):
        score += 15
    score += -10 if any(part.startswith("_") and not part.endswith("__") for part in symbol.split(".")) else 10
    if item is not None and item.risk == "high":
        score += 10
    return score


class _Items:
    """``Contract.item_for`` by dictionary: a change of thousands of functions has as many items."""

    def __init__(self, contract: Contract | None) -> None:
        self.first: dict[tuple[str, str], int] = {}
        self.items = contract.items if contract else ()
        for number, item in enumerate(self.items):
            for anchor in item.anchors:
                self.first.setdefault((anchor.path, anchor.symbol), number)

    def item_for(self, path: str, symbol: str) -> ContractItem | None:
        parts = symbol.split(".")
        numbers = [self.first.get((path, ".".join(parts[:n]))) for n in range(1, len(parts) + 1)]
        found = [n for n in numbers if n is not None]
        return self.items[min(found)] if found else None


#: Up to this many spans a plan generates and lists every candidate; above, it is planned lazily.
EAGER_SPANS = 256
#: A lazy plan stops after expanding this many groups even when ranks are not settled yet.
EXPANSION_LIMIT = 2_048
#: A lazy plan lists at most this many candidates beyond the budget.
LISTED_BEYOND_BUDGET = 64
#: A lazy plan mutates files longer than this one top-level statement at a time (see
#: ``elenchus.mutation.mutate.WINDOW_LINES``), so it can generate a few functions' candidates without the rest.
LAZY_WINDOW_LINES = 1_000


@dataclass(frozen=True, slots=True)
class _Group:
    """Spans generated together (a region of a large file, or a whole small file) and the most
    any of their candidates, and any of their retention candidates, can score."""

    path: str
    spans: tuple[FunctionSpan, ...]
    first: int
    bound: int | None  # None: no family's cues appear in their code
    retention_bound: int | None  # None: they cannot hold a retention candidate

    def key(self, retention: bool = False) -> tuple[int, str, int]:
        """No candidate of the group sorts before this (``_Planner.key`` order)."""
        bound = self.retention_bound if retention else self.bound
        assert bound is not None
        return -bound, self.path, self.first


class _Planner:
    """What a plan reads once: the files, their mutators, the contract by symbol; and the
    candidates generated so far, group by group."""

    def __init__(self, change: ChangeSet, head: Snapshot, contract: Contract | None,
                 window_lines: int | None = None) -> None:
        self.head = head
        self.window_lines = window_lines
        self.items = _Items(contract)
        self.added = {(f.path, f.qualname) for f in change.functions if f.status == "added"}
        self.sources: dict[str, str] = {}
        self.mutators: dict[str, FileMutator] = {}
        self.keys: dict[str, tuple] = {}
        self.made: dict[tuple[str, int], tuple[tuple[Draft, ...], tuple[Rejected, ...]]] = {}  # by (path, first)
        self._faked: frozenset[str] | None = None

    def faked(self) -> frozenset[str]:
        """The interpreter and platform checks the head's tests and conftests set themselves (read once, on the
        first file mutated): a condition on one is theirs to test."""
        if self._faked is None:
            settings = Settings()
            self._faked = environment_faked(self.head.read(path) or "" for path in self.head.files
                                            if settings.kind_of(path) in ("test", "infrastructure"))
        return self._faked

    def mutator(self, path: str) -> FileMutator:
        if path not in self.mutators:
            self.sources[path] = self.head.read(path) or ""
            self.mutators[path] = FileMutator(path, self.sources[path], self.window_lines, self.faked())
        return self.mutators[path]

    def score(self, draft: Draft | Mutant) -> int:
        family = FAMILIES.get(draft.family)
        return _score(draft.path, draft.symbol, family.risk_weight if family else 1, draft.in_changed_lines,
                      self.items.item_for(draft.path, draft.symbol))

    def key(self, draft: Draft | Mutant) -> tuple:
        return (-self.score(draft), draft.path, draft.line, draft.col, draft.family, draft.id)

    def retention(self, draft: Draft | Mutant) -> bool:
        """Pre-existing behaviour: not on a changed line and in a function that existed at Base."""
        return not draft.in_changed_lines and (draft.path, draft.symbol) not in self.added

    def groups(self, path: str, spans: Sequence[FunctionSpan]) -> list[_Group]:
        mutator = self.mutator(path)
        lines = mutator.lines
        found = []
        for group in mutator.groups(spans):
            bounds = [self._bounds(path, span, "".join(lines[span.start - 1:span.end])) for span in group]
            best = [b for b, _ in bounds if b is not None]
            kept = [r for _, r in bounds if r is not None]
            found.append(_Group(path, group, min(s.start for s in group), max(best) if best else None,
                                max(kept) if kept else None))
        return found

    def _bounds(self, path: str, span: FunctionSpan, text: str) -> tuple[int | None, int | None]:
        features = code_features(text)
        weights = [f.risk_weight for f in FAMILIES.values() if may_apply(f, features)]
        if not weights:
            return None, None
        item = self.items.item_for(path, span.qualname)
        bound = _score(path, span.qualname, max(weights), bool(span.changed_lines), item)
        kept = None if (path, span.qualname) in self.added else _score(path, span.qualname, max(weights), False, item)
        return bound, kept

    def expand(self, group: _Group) -> tuple[tuple[Draft, ...], tuple[Rejected, ...]]:
        made = self.mutator(group.path).drafts(group.spans)
        self.made[(group.path, group.first)] = made
        for draft in made[0]:
            self.keys[draft.id] = self.key(draft)
        return made


def _pick(scored: list[Draft], budget: int, retention: Callable[[Draft], bool]) -> tuple[list[Draft], Draft | None]:
    """Round robin over functions, riskiest function first, so every changed function gets a
    mutant and no single function soaks up the budget; within a function, by rank. Then the
    retention candidate to add, when none was picked and the budget allows."""
    queues: dict[tuple[str, str], list[Draft]] = {}
    for draft in scored:
        queues.setdefault((draft.path, draft.symbol), []).append(draft)
    picked: list[Draft] = []
    heads = [0] * len(queues)
    lists = list(queues.values())
    while len(picked) < budget and any(h < len(q) for h, q in zip(heads, lists)):
        for number, queue in enumerate(lists):
            if heads[number] < len(queue) and len(picked) < budget:
                picked.append(queue[heads[number]])
                heads[number] += 1
    keep = None
    if budget >= 2 and not any(retention(d) for d in picked):
        chosen = {d.id for d in picked}
        keep = next((d for d in scored if d.id not in chosen and retention(d)), None)
    return picked, keep


def _settled(planner: _Planner, groups: list[_Group], budget: int, progress: Callable[[str], None] | None) -> int:
    """Expand groups, best bound first, until the picks and their ranks cannot change; the
    number of groups expanded."""
    order = sorted((g for g in groups if g.bound is not None), key=lambda g: g.key())
    keeping = sorted((g for g in groups if g.retention_bound is not None), key=lambda g: g.key(True))
    expanded: set[tuple[str, int]] = set()
    heads: dict[tuple[str, str], tuple] = {}  # best key of each function (path, symbol)
    ranked_heads: list[tuple] = []
    kept: list[tuple] = []  # keys of retention candidates
    at = kept_at = 0
    started = time.monotonic()

    def take(group: _Group) -> None:
        expanded.add((group.path, group.first))
        for draft in planner.expand(group)[0]:
            key = planner.keys[draft.id]
            queue = (draft.path, draft.symbol)
            if queue not in heads or key < heads[queue]:
                if queue in heads:
                    ranked_heads.remove(heads[queue])
                heads[queue] = key
                bisect.insort(ranked_heads, key)
            if planner.retention(draft):
                bisect.insort(kept, key)
        if progress and len(expanded) % 500 == 0:
            progress(f"Generated candidates for {len(expanded):,} groups of functions "
                     f"({time.monotonic() - started:.0f} s)...")

    while len(expanded) < EXPANSION_LIMIT:
        while at < len(order) and (order[at].path, order[at].first) in expanded:
            at += 1
        while kept_at < len(keeping) and (keeping[kept_at].path, keeping[kept_at].first) in expanded:
            kept_at += 1
        frontier = order[at].key() if at < len(order) else None
        if frontier is not None and bisect.bisect_left(ranked_heads, frontier) < budget:
            take(order[at])  # the first `budget` functions are not all known yet
            continue
        if frontier is None and len(ranked_heads) < budget:
            break  # everything is known: functions take more than one turn
        picked = set(ranked_heads[:budget])
        if budget >= 2 and not any(key in kept for key in picked):
            first = next((key for key in kept if key not in picked), None)
            ahead = keeping[kept_at].key(True) if kept_at < len(keeping) else None
            if ahead is not None and (first is None or ahead < first):
                take(keeping[kept_at])  # a better retention candidate may still be unknown
                continue
        break  # (the retention candidate's rank counts the generated candidates only)
    return len(expanded)


def _nearby_retention(chosen: dict[str, list[FunctionSpan] | None], change: ChangeSet, head: Snapshot,
                      contract: Contract | None, planner: _Planner | None = None) -> Mutant | None:
    """The riskiest mutant of an unchanged function in the changed files: pre-existing behaviour
    that the change's own tests were not written for.

    Generated group by group, best bound first, until no unexpanded group can beat it."""
    planner = planner or _Planner(change, head, contract)
    groups: list[_Group] = []
    for path in sorted(p for p in change.production_files if head.read(p) is not None):
        taken = {s.qualname for s in chosen.get(path) or ()}
        source = planner.mutator(path).source
        spans = [FunctionSpan(s.qualname, s.start, s.end) for s in function_spans(source)
                 if s.qualname not in taken]
        groups.extend(g for g in planner.groups(path, spans) if g.bound is not None)
    groups.sort(key=lambda g: g.key())
    best: tuple[tuple, Draft] | None = None
    for group in groups:
        if best is not None and best[0] < group.key():
            break
        for draft in planner.mutator(group.path).drafts(group.spans)[0]:
            key = (-planner.score(draft), draft.path, *draft.order)
            if best is None or key < best[0]:
                best = (key, draft)
    return best[1].mutant(planner.sources[best[1].path]) if best else None


class DraftStore(Protocol):
    """Where generated candidates are kept between runs (``records.ResultCache``)."""

    def key(self, *parts: object) -> str: ...

    def peek(self, key: str) -> dict | None: ...

    def put(self, key: str, record: dict) -> None: ...


def _drafts(mutator: FileMutator, spans: Sequence[FunctionSpan] | None,
            store: DraftStore | None) -> tuple[tuple[Draft, ...], tuple[Rejected, ...]]:
    """``mutator.drafts(spans)``, kept in ``store`` by the file's source: generating a large module's candidates
    takes seconds, and a commit that changed nothing in it (a document, a test) asks for the same ones."""
    if store is None:
        return mutator.drafts(spans)
    key = store.key("drafts", mutator.path, mutator.source, mutator.window_lines,
                    None if spans is None else [list(astuple(span)) for span in spans],
                    sorted(mutator.faked))  # (a test that starts patching `sys.platform` makes its gates mutants)
    record = store.peek(key)
    if record is not None:
        try:
            return (tuple(Draft(**{**d, "mutated_lines": tuple(d["mutated_lines"]), "edit": tuple(d["edit"]),
                                   "order": tuple(d["order"])}) for d in record["drafts"]),
                    tuple(Rejected(**r) for r in record["rejected"]))
        except (KeyError, TypeError, ValueError):
            pass  # (not what this version stores: generated again)
    made, refused = mutator.drafts(spans)
    store.put(key, {"drafts": [asdict(d) for d in made], "rejected": [asdict(r) for r in refused]})
    return made, refused


def plan(scope: str, change: ChangeSet, base: Snapshot, head: Snapshot, contract: Contract | None,
         budget: int, target: str | None = None, exhaustive: bool = False,
         progress: Callable[[str], None] | None = None, store: DraftStore | None = None) -> Plan:
    """``exhaustive`` (target scope only) adds mutmut's operator catalog as a candidate source;
    every candidate is still labelled as an incident (references/mutmut-evaluation.md).
    ``progress``: told what a large plan is doing; silent by default. ``store``: where the candidates of
    each file are kept for the next run on the same source."""
    chosen = spans_for_scope(scope, change, base, head, target, contract)
    total = sum(len(spans) for spans in chosen.values() if spans is not None)
    lazy = total > EAGER_SPANS  # (files mutated whole, in the target scope, are always generated in full)
    planner = _Planner(change, head, contract, LAZY_WINDOW_LINES if lazy else None)
    groups: list[_Group] = []
    started = time.monotonic()
    if lazy:
        for path, spans in sorted(chosen.items()):
            if spans is not None:
                groups.extend(planner.groups(path, spans))
        if progress:
            progress(f"Ranking {total:,} changed functions and statements by the risk their code can hold...")
        done = _settled(planner, groups, budget, progress)
        if progress:
            progress(f"Generated candidates for {done:,} of {len(groups):,} groups of functions "
                     f"({time.monotonic() - started:.1f} s); the rest rank below the budget.")
    candidates: list[Draft] = []
    rejected: list[Rejected] = []
    unexpanded = 0
    for path in sorted(chosen):
        spans = chosen[path]
        mutator = planner.mutator(path)
        source = mutator.source
        if spans is None:
            if exhaustive and scope == "target":  # add what mutmut's catalog reaches and no family does
                made, refused, extra, extra_refused = drafts_and_exhaustive(path, source, faked=planner.faked())
                known = {d.edit for d in made}
                made += tuple(_as_draft(m, source) for m in extra if (0, len(source), m.mutated_source) not in known)
                refused += tuple(r for r in extra_refused if not r.reason.startswith("duplicate:"))
            else:
                made, refused = _drafts(mutator, None, store)
            accounted: Sequence[FunctionSpan] = ()
        elif not lazy:
            made, refused = _drafts(mutator, spans, store)
            accounted = spans
        else:
            path_groups = [g for g in groups if g.path == path]
            parts = [planner.made[(g.path, g.first)] for g in path_groups if (g.path, g.first) in planner.made]
            made = tuple(d for part in parts for d in part[0])
            refused = tuple(r for part in parts for r in part[1])
            done_spans = {s for g in path_groups if (g.path, g.first) in planner.made for s in g.spans}
            unexpanded += sum(1 for s in spans if s not in done_spans)
            accounted = [s for s in spans if s in done_spans]  # only expanded spans report unreached lines
        candidates.extend(made)
        rejected.extend(refused)
        rejected.extend(_unreached(path, source, accounted, made, refused, mutator.tree_for))
    scored = sorted(candidates, key=planner.key)
    ranked = {d.id: rank for rank, d in enumerate(scored, start=1)}
    picked, retention = _pick(scored, budget, planner.retention)
    extra: Mutant | None = None
    if budget >= 2 and not any(planner.retention(d) for d in picked) and retention is None:
        extra = _nearby_retention(chosen, change, head, contract, planner)
        if extra is not None:
            ranked[extra.id] = len(scored) + 1
    if retention is not None or extra is not None:
        if len(picked) >= budget:
            picked.pop()
    picked_mutants = [d.mutant(planner.sources[d.path]) for d in picked]
    if retention is not None:
        picked_mutants.append(retention.mutant(planner.sources[retention.path]))
    elif extra is not None:
        picked_mutants.append(extra)
    picked_mutants.sort(key=lambda m: ranked[m.id])
    chosen_ids = {m.id for m in picked_mutants}

    def planned(m: Mutant | Draft) -> Planned:
        item = planner.items.item_for(m.path, m.symbol)
        return Planned(m, ranked[m.id], item.id if item else None, planner.retention(m), planner.score(m))

    beyond = [d for d in scored if d.id not in chosen_ids]
    listed = beyond[:LISTED_BEYOND_BUDGET] if lazy else beyond
    spans_out = tuple((path, tuple(s or ())) for path, s in sorted(chosen.items()))
    return Plan(scope, target, spans_out,
                tuple(planned(m) for m in picked_mutants),
                tuple(planned(d) for d in listed),
                tuple(rejected), budget, unexpanded, len(beyond) - len(listed))


def _as_draft(mutant: Mutant, source: str) -> Draft:
    return Draft(mutant.id, mutant.path, mutant.symbol, mutant.line, mutant.end_line, mutant.col, mutant.family,
                 mutant.changed_intent, mutant.incident, mutant.expected_detection, mutant.diff,
                 mutant.in_changed_lines, mutant.mutated_lines, (0, len(source), mutant.mutated_source),
                 (mutant.line, mutant.col, mutant.family, "", mutant.end_line))
