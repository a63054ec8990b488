"""Choose what to challenge: scope of mutation, risk ranking and the budget.

Risks are ranked before any test assertion is read (SPEC 4.4): changed lines
first, then validation, error handling and persistence above cosmetic code,
public API above private helpers. Functions take turns, riskiest first, so every
changed function gets a mutant and none soaks up the budget; at least one
retention risk (pre-existing behaviour not tailored to an added test) is kept
when the budget allows, and every candidate beyond the budget is recorded as
not challenged with its rank.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

import libcst as cst

from elenchus.contract import Contract
from elenchus.discover import ChangeSet, function_spans
from elenchus.errors import ElenchusError
from elenchus.families import FAMILIES
from elenchus.mutate import FunctionSpan, Mutant, Rejected, generate, generate_exhaustive
from elenchus.scope import SCOPES
from elenchus.snapshot import Snapshot

RISKY_NAME_WORDS = ("valid", "check", "auth", "permission", "verify", "save", "write", "store", "persist",
                    "delete", "remove", "pay", "charge", "price", "lock", "commit", "limit", "bound")


@dataclass(frozen=True, slots=True)
class Planned:
    mutant: Mutant
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


def _exercised_spans(change: ChangeSet, base: Snapshot, head: Snapshot) -> dict[str, list[FunctionSpan]]:
    """Head production functions called by the added, modified or deleted tests."""
    names = names_used_by_changed_tests(change, base, head)
    spans: dict[str, list[FunctionSpan]] = {}
    for path in head.files:
        if change.settings.kind_of(path) != "production":
            continue
        for span in function_spans(head.read(path) or ""):
            if span.qualname.split(".")[-1] in names:
                spans.setdefault(path, []).append(FunctionSpan(span.qualname, span.start, span.end))
    return spans


# -- scope ------------------------------------------------------------------------


def spans_for_scope(scope: str, change: ChangeSet, base: Snapshot, head: Snapshot,
                    target: str | None = None) -> dict[str, list[FunctionSpan] | None]:
    """{path: spans} to mutate; None means the whole file."""
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


def unreached_lines(path: str, source: str, spans: Iterable[FunctionSpan], made: Iterable[Mutant],
                    refused: Iterable[Rejected]) -> list[Rejected]:
    """A rejection with its reason for every changed code line that no candidate reaches.

    Every changed line that holds code gets at least one candidate or a recorded reason,
    so a changed file never shows zero mutants without saying why.
    """
    reached = set()
    for mutant in made:
        reached.update(range(mutant.line, mutant.end_line + 1))
    reached.update(r.line for r in refused)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines = source.splitlines()
    found: list[Rejected] = []
    seen_statements: set[int] = set()
    for span in spans:
        has_mutant = any(span.start <= n <= span.end for n in reached)
        for line in span.changed_lines:
            if line in reached or not 1 <= line <= len(lines):
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
    score = 100 if mutant.in_changed_lines else 0
    family = FAMILIES.get(mutant.family)
    score += 10 * (family.risk_weight if family else 1)
    leaf = mutant.symbol.split(".")[-1].lower()
    if any(word in leaf for word in RISKY_NAME_WORDS):
        score += 15
    score += -10 if any(part.startswith("_") and not part.endswith("__") for part in mutant.symbol.split(".")) else 10
    item = contract.item_for(mutant.path, mutant.symbol) if contract else None
    if item is not None and item.risk == "high":
        score += 10
    return score


def _is_retention(mutant: Mutant, change: ChangeSet) -> bool:
    """Pre-existing behaviour: not on a changed line and in a function that existed at Base."""
    if mutant.in_changed_lines:
        return False
    added = {(f.path, f.qualname) for f in change.functions if f.status == "added"}
    return (mutant.path, mutant.symbol) not in added


def _nearby_retention(chosen: dict[str, list[FunctionSpan] | None], change: ChangeSet, head: Snapshot,
                      contract: Contract | None) -> Mutant | None:
    """The riskiest mutant of an unchanged function in the changed files: pre-existing behaviour
    that the change's own tests were not written for."""
    best: tuple[int, Mutant] | None = None
    for path in sorted(p for p in change.production_files if head.read(p) is not None):
        taken = {s.qualname for s in chosen.get(path) or ()}
        source = head.read(path) or ""
        spans = [FunctionSpan(s.qualname, s.start, s.end) for s in function_spans(source)
                 if s.qualname not in taken]
        if not spans:
            continue
        for mutant in generate(path, source, spans)[0]:
            score = risk_score(mutant, contract)
            if best is None or score > best[0]:
                best = (score, mutant)
    return best[1] if best else None


def plan(scope: str, change: ChangeSet, base: Snapshot, head: Snapshot, contract: Contract | None,
         budget: int, target: str | None = None, exhaustive: bool = False) -> Plan:
    """``exhaustive`` (target scope only) adds mutmut's operator catalog as a candidate source;
    every candidate is still labelled as an incident (references/mutmut-evaluation.md)."""
    chosen = spans_for_scope(scope, change, base, head, target)
    candidates: list[Mutant] = []
    rejected: list[Rejected] = []
    for path in sorted(chosen):
        spans = chosen[path]
        source = head.read(path) or ""
        made, refused = generate(path, source, spans)
        if exhaustive and scope == "target":  # add what mutmut's catalog reaches and no family does
            known = {m.mutated_source for m in made}
            extra, extra_refused = generate_exhaustive(path, source)
            made += tuple(m for m in extra if m.mutated_source not in known)
            refused += tuple(r for r in extra_refused if not r.reason.startswith("duplicate:"))
        candidates.extend(made)
        rejected.extend(refused)
        rejected.extend(unreached_lines(path, source, spans or (), made, refused))
    scored = sorted(candidates, key=lambda m: (-risk_score(m, contract), m.path, m.line, m.col, m.family, m.id))
    ranked = {m.id: rank for rank, m in enumerate(scored, start=1)}

    # Round robin over functions, riskiest function first, so every changed function gets a
    # mutant and no single function soaks up the budget; within a function, by rank.
    queues: dict[tuple[str, str], list[Mutant]] = {}
    for mutant in scored:
        queues.setdefault((mutant.path, mutant.symbol), []).append(mutant)
    picked: list[Mutant] = []
    while len(picked) < budget and any(queues.values()):
        for queue in queues.values():
            if queue and len(picked) < budget:
                picked.append(queue.pop(0))

    if budget >= 2 and not any(_is_retention(m, change) for m in picked):
        retention = next((m for m in scored if m not in picked and _is_retention(m, change)), None)
        if retention is None:
            retention = _nearby_retention(chosen, change, head, contract)
            if retention is not None:
                scored.append(retention)
                ranked[retention.id] = len(scored)
        if retention is not None:
            if len(picked) >= budget:
                picked.pop()
            picked.append(retention)
    picked.sort(key=lambda m: ranked[m.id])
    chosen_ids = {m.id for m in picked}

    def planned(m: Mutant) -> Planned:
        item = contract.item_for(m.path, m.symbol) if contract else None
        return Planned(m, ranked[m.id], item.id if item else None, _is_retention(m, change), risk_score(m, contract))

    spans = tuple((path, tuple(s or ())) for path, s in sorted(chosen.items()))
    return Plan(scope, target, spans,
                tuple(planned(m) for m in picked),
                tuple(planned(m) for m in scored if m.id not in chosen_ids),
                tuple(rejected), budget)

