"""`elenchus mutants`: what would be challenged, with incidents and diffs; runs no test."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from elenchus.commands.changes import document as change_document
from elenchus.mutation.contract import Contract, derive_provisional, load_contract
from elenchus.errors import InputGuardError
from elenchus.exit_codes import ExitCode
from elenchus.repo.fingerprint import post_flight_sentence
from elenchus.mutation.scope import SCOPES
from elenchus.mutation.select import Plan, Planned, plan
from elenchus.repo.session import Session, open_session
from elenchus.reporting.report import shown_contract_items


def run(repo: str, base: str | None, head: str | None, scope: str, target: str | None, budget: int,
        contract_path: str | None, change_id: str | None, intent: str | None,
        echo: Callable[[str], None], exhaustive: bool = False,
        progress: Callable[[str], None] | None = None, json_path: str | None = None) -> ExitCode:
    """``progress``: where a long discovery or plan says what it is doing (default: ``echo``);
    ``json_path``: where the same answer goes as JSON (``document``), after the post-flight check."""
    progress = progress or echo
    if scope not in SCOPES:
        raise InputGuardError("scope", f"expected one of {', '.join(SCOPES)}, got {scope!r}")
    if target and scope != "target":
        raise InputGuardError("target", f"--target only applies to --scope target, not --scope {scope}")
    if exhaustive and scope != "target":
        raise InputGuardError("exhaustive", f"--exhaustive only applies to --scope target, not --scope {scope}")
    with open_session(repo, base, head, allow_empty=scope == "target", progress=progress) as session:
        for line in session.revisions.narration:
            echo(line)
        contract = load_contract(session.repo.root, contract_path, change_id) \
            or derive_provisional(session.change, session.head, intent)
        planned = plan(scope, session.change, session.base, session.head, contract, budget, target, exhaustive,
                       progress=progress)
        echo(f"Contract: {contract.source}" + (" (provisional)" if contract.provisional else ""))
        shown, more = shown_contract_items([{"id": i.id, "status": i.status, "risk": i.risk, "behaviour": i.behaviour}
                                            for i in contract.items], {p.contract_id for p in planned.challenged})
        for item in shown:
            echo(f"  {item['id']} [{item['status']}, {item['risk']} risk] {item['behaviour']}")
        if more:
            echo(f"  ...{more} (every item: --json PATH)")
        echo(f"Planned mutants ({len(planned.challenged)} of budget {budget}):")
        echo(f"  How they were chosen: {planned.how_chosen()}")
        for number, p in enumerate(planned.challenged, start=1):
            m = p.mutant
            tags = [f"rank {p.rank}"]
            if p.contract_id:
                tags.append(p.contract_id)
            if m.in_changed_lines:
                tags.append("changed line")
            if p.retention:
                tags.append("retention risk")
            echo(f"{number}. {m.path}:{m.line} {m.symbol} ({', '.join(tags)})")
            echo(f"   Incident: {m.incident}")
            echo(f"   Misunderstanding: {m.changed_intent}")
            echo(f"   Caught by: {m.expected_detection}")
            for line in m.diff.rstrip("\n").splitlines():
                echo(f"   {line}")
        echo(f"Not challenged ({len(planned.not_challenged)}, beyond the budget):" +
             ("" if planned.not_challenged else " none"))
        for p in planned.not_challenged:
            echo(f"  rank {p.rank}: {p.mutant.path}:{p.mutant.line} {p.mutant.symbol}: {p.mutant.incident}")
        if planned.unlisted:
            echo(f"  ...and {planned.unlisted:,} more generated candidates, ranked below these.")
        if planned.unexpanded:
            echo(f"Not expanded ({planned.unexpanded:,} functions and statements): their code cannot hold a "
                 "candidate that ranks above the challenged ones, so none was generated (ranks count the "
                 "generated candidates only).")
        echo(f"Rejected before running ({len(planned.rejected)}):" + ("" if planned.rejected else " none"))
        for r in planned.rejected:
            echo(f"  {r.path}:{r.line} {r.symbol}: {r.reason} ({r.changed_intent})")
        if session.excluded:
            echo(f"Excluded ({len(session.excluded)}):")
            for line in session.excluded:
                echo(f"  {line}")
        answer = document(session, contract, planned) if json_path else None
        changes = session.close()
    echo(post_flight_sentence(changes) or "Post-flight found changes: " + "; ".join(changes))
    if answer is not None:
        answer["post_flight"] = {"worktree_unchanged": not changes, "changes": list(changes)}
        Path(json_path).write_text(json.dumps(answer, indent=2) + "\n", encoding="utf-8")
        echo(f"JSON written to {json_path}")
    return ExitCode.OK


def document(session: Session, contract: Contract, planned: Plan) -> dict:
    """What the command prints, as JSON: each planned mutant with the fields report.json gives a mutation
    (run nothing, so no result), the ones beyond the budget and the rejected ones as report.json lists them."""
    change = change_document(session)
    return {
        "tool": change["tool"],
        "snapshots": change["snapshots"],
        "scope": {"option": planned.scope, "target": planned.target},
        "budget": {"limit": planned.budget},
        "contract": {"source": contract.source, "provisional": contract.provisional, "path": contract.path,
                     "change_id": contract.change_id, "items": contract.to_json()["items"]},
        "mutants": [_planned(p) | {"diff": p.mutant.diff, "expected_detection": p.mutant.expected_detection,
                                   "in_changed_lines": p.mutant.in_changed_lines, "retention_risk": p.retention}
                    for p in planned.challenged],
        "not_challenged": [_planned(p) | {"reason": f"beyond the mutation budget of {planned.budget}"}
                           for p in planned.not_challenged],
        "not_listed": planned.unlisted,  # generated candidates ranked below those, left out
        "not_expanded": planned.unexpanded,  # functions and statements whose candidates were never generated
        "rejected": [{"location": {"path": r.path, "line": r.line, "end_line": r.line, "symbol": r.symbol},
                      "changed_intent": r.changed_intent, "reason": r.reason, "family": r.family}
                     for r in planned.rejected],
        "excluded": change["excluded"],
    }


def _planned(p: Planned) -> dict:
    m = p.mutant
    return {"id": m.id, "rank": p.rank, "contract_id": p.contract_id,
            "location": {"path": m.path, "line": m.line, "end_line": m.end_line,
                         "symbol": m.symbol if m.symbol != "<module>" else None},
            "family": m.family, "incident": m.incident, "changed_intent": m.changed_intent}
