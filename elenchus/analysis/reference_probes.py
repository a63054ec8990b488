"""Capture mode (SPEC 9): does a proposed diff behave like a mistake we can imagine?

The reference revision is mutated where the proposed diff changes it; each mutant
becomes a probe test that passes on the reference and fails on the mutant at its
assertion; the probes then run against the proposed revision. A probe that fails
there behaviourally is a weak catch, told as a ready-to-copy "Behavior difference"
comment at the changed line. Everything runs in disposable snapshots.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from elenchus.analysis import probes as probe_engine
from elenchus.execution.cohorts import unneeded_plugins
from elenchus.mutation.contract import Contract, derive_provisional
from elenchus.repo.discover import ChangeSet, discover, function_spans, related_tests
from elenchus.mutation.mutate import FunctionSpan, Mutant, Rejected, generate
from elenchus.mutation.select import risk_score
from elenchus.repo.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class Challenge:
    """One reference mutant and what capture learned from it."""

    mutant: Mutant
    contract_id: str | None
    rank: int
    probe: probe_engine.Probe | None
    evidence: str  # the distinguishing input, or why none was found


@dataclass(frozen=True, slots=True)
class ProbeResult:
    probe: probe_engine.Probe
    source: str  # generated | host
    outcome: str  # weak-catch | no-catch | not-comparable | inconclusive
    message: str
    proposed_repr: str | None


@dataclass(frozen=True, slots=True)
class BehaviorDifference:
    path: str
    line: int
    contract_id: str | None
    call: str
    reference: str
    proposed: str
    incident: str
    question: str
    same_as_mistake: bool  # the proposal gives exactly the mutant's output

    def comment(self) -> str:
        contract = f", {self.contract_id}" if self.contract_id else ""
        relation = ("It behaves exactly like this imagined mistake" if self.same_as_mistake else
                    "Found by the probe built for this imagined mistake (the outputs differ from it too)")
        return (f"**Behavior difference** ({self.path}:{self.line}{contract})\n\n"
                f"- Input: `{self.call}`\n- Reference behaviour: `{self.reference}`\n"
                f"- Proposed behaviour: `{self.proposed}`\n"
                f"- {relation}: {self.incident}\n- Question: {self.question}\n")


def reference_spans(change: ChangeSet, reference: Snapshot,
                    proposed: Snapshot | None = None) -> dict[str, list[FunctionSpan]]:
    """The reference-side spans of every function the proposed diff modifies or removes, each with the
    reference lines the proposal edits (when ``proposed`` is given)."""
    wanted: dict[str, set[str]] = {}
    for fn in change.functions:
        if fn.status in ("modified", "deleted"):
            wanted.setdefault(fn.path, set()).add(fn.qualname)
    spans: dict[str, list[FunctionSpan]] = {}
    for path, names in wanted.items():
        source = reference.read(path) or ""
        edited = edited_lines(source, (proposed.read(path) or "") if proposed is not None else source)
        for span in function_spans(source):
            if span.qualname in names and span.public:
                spans.setdefault(path, []).append(FunctionSpan(
                    span.qualname, span.start, span.end,
                    tuple(n for n in sorted(edited) if span.start <= n <= span.end)))
    if proposed is not None:  # module- and class-level code the proposal edits (a table, a constant, a pattern),
        # read on the reference's side: the same change seen from the proposal back to the reference
        for statement in discover(proposed, reference).statements:
            if change.settings.kind_of(statement.path) == "production":
                spans.setdefault(statement.path, []).append(FunctionSpan(
                    statement.symbol, statement.start, statement.end, statement.changed_lines))
    return spans


def edited_lines(reference: str, proposed: str) -> set[int]:
    """The reference's lines (1-based) the proposal replaces or removes, and the two beside each place it
    only inserts lines: where a mistake it might make would sit."""
    matcher = difflib.SequenceMatcher(None, reference.splitlines(), proposed.splitlines(), autojunk=False)
    lines: set[int] = set()
    for tag, first, last, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            lines.update(range(first + 1, last + 1))
        elif tag == "insert":
            lines.update(n for n in (first, first + 1) if n >= 1)
    return lines


def plan_reference_mutants(change: ChangeSet, reference: Snapshot, contract: Contract, budget: int,
                           proposed: Snapshot | None = None,
                           ) -> tuple[list[tuple[int, Mutant]], list[tuple[int, Mutant]], list[Rejected]]:
    """(challenged, not challenged, rejected), ranked by risk: the mistakes on the lines the proposal edits
    first (an off-by-one there is what the proposal may itself be), then one function at a time."""
    candidates: list[Mutant] = []
    rejected: list[Rejected] = []
    for path, spans in sorted(reference_spans(change, reference, proposed).items()):
        made, refused = generate(path, reference.read(path) or "", spans)
        candidates += made
        rejected += refused
    ranked = sorted(candidates, key=lambda m: (-risk_score(m, contract), m.path, m.line, m.col, m.family, m.id))
    ordered: list[Mutant] = [m for m in ranked if m.in_changed_lines]
    seen: set[tuple[str, str]] = {(m.path, m.symbol) for m in ordered}
    for mutant in ranked:  # the riskiest mutant of every function before any second one
        if (mutant.path, mutant.symbol) not in seen:
            seen.add((mutant.path, mutant.symbol))
            ordered.append(mutant)
    ordered += [m for m in ranked if m not in ordered]
    rank = {m.id: position for position, m in enumerate(ranked, start=1)}
    chosen = ordered[:budget]
    return ([(rank[m.id], m) for m in chosen], [(rank[m.id], m) for m in ordered[budget:]], rejected)


def derive_capture_contract(change: ChangeSet, proposed: Snapshot, intent: str | None) -> Contract:
    """Provisional risks mapped from the proposed diff: one item per changed behaviour."""
    return derive_provisional(change, proposed, intent)


def gives(observed: str) -> str:
    """What a call did, as a sentence says it: ``gives '13th'``, ``raises TypeError`` (never "gives raise")."""
    if observed.startswith("print "):  # (a call that returns the same, and prints something else)
        return f"prints {observed[len('print '):]}"
    return f"raises {observed[len('raise '):]}" if observed.startswith("raise ") else f"gives {observed}"


def _through(reference: Snapshot, mutant: Mutant) -> tuple[list[str], tuple[list[str], list[str], list[int]]]:
    """For a mutant outside any function (module-level data): the public functions that reach it, nearest
    first, and what the search needs to read the data (``witness.data_for``); for a function's mutant, nothing:
    it is called itself."""
    from elenchus.analysis import witness

    if mutant.symbol in {span.qualname for span in function_spans(reference.read(mutant.path) or "")}:
        return [], ([], [], [])
    source = reference.read(mutant.path) or ""
    return witness.targets_for(source, mutant), witness.data_for(source, mutant)


#: Public functions tried for one mutant of module-level data, at most.
_THROUGH = 3


def _call_key(args_repr: Sequence[str], kwargs_repr: Sequence[tuple[str, str]] | dict) -> str:
    return repr((tuple(args_repr), tuple(sorted(dict(kwargs_repr).items()))))


def build_challenges(reference: Snapshot, change: ChangeSet, contract: Contract, chosen: list[tuple[int, Mutant]],
                     echo: Callable[[str], None]) -> list[Challenge]:
    tests = related_tests(reference, change.settings, tuple({m.path for _, m in chosen}))
    # A mutant of module-level data is told apart through the public functions that read it (as a witness is).
    reached = {m.id: _through(reference, m) for _, m in chosen}
    targets = sorted({(probe_engine.module_name_for(m.path, reference.root), symbol) for _, m in chosen
                      for symbol in (reached[m.id][0] or [m.symbol])})
    unneeded = unneeded_plugins(reference.root, tests)  # (the probes written here name no plugin)
    samples = probe_engine.record_calls(reference.root, tests, targets, disabled_plugins=unneeded) if tests else {}
    test_literals = probe_engine.literals_in([reference.read(test) or "" for test in tests])
    challenges = []
    asserted: set[str] = set()  # the calls earlier probes assert
    for rank, mutant in chosen:
        item = contract.item_for(mutant.path, mutant.symbol)
        module = probe_engine.module_name_for(mutant.path, reference.root)
        through, (data, state, reads) = reached[mutant.id]
        symbols = [symbol for symbol in (through or [mutant.symbol])
                   if probe_engine.unsupported_reason(reference.root, mutant, symbol=symbol) is None][:_THROUGH]
        if not symbols:
            why = probe_engine.unsupported_reason(reference.root, mutant, symbol=(through or [mutant.symbol])[0])
            challenges.append(Challenge(mutant, item.id if item else None, rank, None, f"no generated probe: {why}"))
            continue
        echo(f"Probing: {mutant.incident}")
        found, symbol = None, symbols[0]
        for symbol in symbols:
            # The calls no probe asserts yet first: probes that repeat one call tell the proposal nothing new.
            recorded = samples.get(f"{module}:{symbol}", [])
            recorded = sorted(recorded, key=lambda sample: _call_key(sample.args_repr, sample.kwargs_repr) in asserted)
            found = probe_engine.find_distinguishing_input(
                reference.root, mutant, recorded, test_literals=test_literals, symbol=symbol, module=module,
                data=data, state=state, reads=reads)
            if found is not None:
                break
        if found is None:
            challenges.append(Challenge(mutant, item.id if item else None, rank, None,
                                        "no input found whose output differs between the reference and the "
                                        "mutant (recorded calls, boundary and edge values, the tests' literals "
                                        "and a bounded input search)"))
            continue
        probe = probe_engine.write_probe(mutant, found, module, contract_id=item.id if item else None,
                                         function=symbol)
        check = probe_engine.verify_probe(reference.root, probe, mutant, disabled_plugins=unneeded)
        if check.accepted:
            asserted.add(_call_key(found.args_repr, found.kwargs_repr))
        evidence = f"on {probe.input_repr} the reference {gives(probe.reference_repr)}, the mutant " \
                   f"{gives(probe.mutant_repr)}"
        challenges.append(Challenge(mutant, item.id if item else None, rank, probe if check.accepted else None,
                                    evidence if check.accepted else f"{evidence}; probe rejected: {check.reason}"))
    return challenges


def anchor_line(change: ChangeSet, path: str, symbol: str) -> int:
    """The first changed line of ``symbol`` in the proposed revision (its start when unknown)."""
    for fn in change.functions:
        if fn.path == path and fn.qualname == symbol:
            return fn.changed_lines[0] if fn.changed_lines and fn.status != "deleted" else fn.start
    for statement in change.statements:  # a table, a constant or a pattern the proposal edits
        if statement.path == path and statement.symbol == symbol:
            return statement.changed_lines[0] if statement.changed_lines else statement.start
    return 1


def run_against_proposed(proposed: Snapshot, accepted: Sequence[tuple[probe_engine.Probe, str]]) -> list[ProbeResult]:
    results = []
    unneeded = unneeded_plugins(proposed.root, tuple(probe.path for probe, _ in accepted))
    for probe, source in accepted:
        outcome = probe_engine.run_probe(proposed.root, probe, disabled_plugins=unneeded)
        kind = {"behavioural-failure": "weak-catch", "passes": "no-catch"}.get(outcome.kind, outcome.kind)
        results.append(ProbeResult(probe, source, kind, _relative(outcome.message), outcome.proposed_repr))
    return results


def _relative(message: str) -> str:
    """A run's message with its disposable workspace's paths made relative to the repository (a temporary
    directory that no longer exists tells the reader nothing)."""
    return _WORKSPACE_PATH.sub("", message)


#: The absolute part of a path inside a run's workspace (``/tmp/elenchus-session-x/.../ws-ab12/``).
_WORKSPACE_PATH = re.compile(r"/[^\s'\"()]*?/ws-[^/\s'\"()]+/")


def baselines(reference: Snapshot, proposed: Snapshot, tests: Sequence[str]) -> dict[str, dict]:
    """The related tests run once on each revision, no mutant in sight: what a probe's verdict stands beside
    (a proposal that already fails the project's own tests says so before any probe does)."""
    from elenchus.execution.run import run_pytest
    from elenchus.execution.workspace import fresh_copy, remove_tree, scratch_root

    found: dict[str, dict] = {}
    with scratch_root() as root:
        for name, snapshot in (("reference", reference), ("proposed", proposed)):
            present = [t for t in tests if (snapshot.root / t).is_file()]
            if not present:
                found[name] = {"status": "no-tests", "tests": 0, "failing_tests": [], "duration_seconds": None}
                continue
            workspace = fresh_copy(snapshot.root, root)
            try:
                result = run_pytest(workspace, present, 600.0, disabled_plugins=unneeded_plugins(workspace,
                                                                                                 tuple(present)))
            finally:
                remove_tree(workspace)
            failing = sorted(r.nodeid for r in result.records if r.is_failure)
            found[name] = {"status": "green" if result.records and not failing else "baseline-red",
                           "tests": len(result.records), "failing_tests": failing,
                           "duration_seconds": round(result.duration, 3)}
    return found


def behaviour_differences(results: list[ProbeResult], challenges: list[Challenge], change: ChangeSet,
                          reference_rev: str) -> list[BehaviorDifference]:
    by_mutant = {c.mutant.id: c for c in challenges}
    differences = []
    told: set[tuple[str, str]] = set()  # (call, what the proposal gives): one comment says it once
    for result in results:
        if result.outcome != "weak-catch" or (result.probe.input_repr, result.proposed_repr or result.message) in told:
            continue
        told.add((result.probe.input_repr, result.proposed_repr or result.message))
        probe = result.probe
        challenge = next((by_mutant[i] for i in probe.mutant_ids if i in by_mutant), None)
        mutant = challenge.mutant if challenge else None
        path = mutant.path if mutant else probe.path
        symbol = mutant.symbol if mutant else ""
        proposed = result.proposed_repr or result.message
        call = probe.input_repr
        differences.append(BehaviorDifference(
            path, anchor_line(change, path, symbol) if mutant else 1, probe.contract_id, call,
            probe.reference_repr, proposed, mutant.incident if mutant else "a probe written by the host",
            f"Is it intended that `{call}` now gives `{proposed}` instead of `{probe.reference_repr}` "
            f"(as at {reference_rev})?", proposed == probe.mutant_repr))
    return differences


def apply_probes(repo_root: Path, probes: Sequence[probe_engine.Probe]) -> list[str]:
    """Write the kept probes into the user's tests (only with --apply): the one write Capture makes."""
    written = []
    for probe in probes:
        target = repo_root / probe.path
        if target.exists():
            continue  # never overwrite a file the user has
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(probe.source)
        written.append(probe.path)
    return written
