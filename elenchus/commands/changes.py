"""`elenchus changes`: show how Base and Head were chosen and what changed, run nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from elenchus import __version__
from elenchus.exit_codes import ExitCode
from elenchus.repo.fingerprint import post_flight_sentence
from elenchus.repo.session import Session, open_session


def _ranges(lines: tuple[int, ...]) -> str:
    spans: list[str] = []
    for line in lines:
        if spans and line == int(spans[-1].split("-")[-1]) + 1:
            spans[-1] = f"{spans[-1].split('-')[0]}-{line}"
        else:
            spans.append(str(line))
    return ", ".join(spans)


def run(repo: str, base: str | None, head: str | None, echo: Callable[[str], None],
        progress: Callable[[str], None] | None = None, json_path: str | None = None) -> ExitCode:
    """``progress``: where discovery says what a long phase is doing, e.g. stderr (default: ``echo``);
    ``json_path``: where the same answer goes as JSON (``document``), after the post-flight check."""
    with open_session(repo, base, head, progress=progress or echo) as session:
        for line in session.revisions.narration:
            echo(line)
        change = session.change
        groups = (
            ("Production files changed", [f"{f.path} ({f.status})" for f in change.files if f.kind == "production"]),
            ("Tests added", list(change.tests_added)),
            ("Tests modified", list(change.tests_modified)),
            ("Tests deleted", list(change.tests_deleted)),
            ("Test infrastructure changed", list(change.paths("infrastructure"))),
            ("Other files changed", list(change.paths("other"))),
            ("Existing tests related to the changed code", list(change.related_tests)),
            ("Excluded (left out of the snapshots, or kept for the tests but never mutated)", list(session.excluded)),
        )
        for title, items in groups:
            echo(f"{title} ({len(items)}):" + ("" if items else " none"))
            for item in items:
                echo(f"  {item}")
        echo(f"Changed functions and methods ({len(change.functions)}):" + ("" if change.functions else " none"))
        for fn in change.functions:
            echo(f"  {fn.path}:{fn.start}-{fn.end} {fn.qualname} ({fn.status}; "
                 f"{'Base' if fn.status == 'deleted' else 'Head'} lines {_ranges(fn.changed_lines)})")
        statements = change.statements
        echo(f"Changed code outside functions ({len(statements)}):" + ("" if statements else " none"))
        for statement in statements:
            echo(f"  {statement.path}:{statement.start}-{statement.end} {statement.symbol} ({statement.status}; "
                 f"Head lines {_ranges(statement.changed_lines)})")
        answer = document(session) if json_path else None
        changes = session.close()
    sentence = post_flight_sentence(changes)
    echo(sentence or "Post-flight found changes to the repository:\n  " + "\n  ".join(changes))
    if answer is not None:
        answer["post_flight"] = {"worktree_unchanged": not changes, "changes": list(changes)}
        Path(json_path).write_text(json.dumps(answer, indent=2) + "\n", encoding="utf-8")
        echo(f"JSON written to {json_path}")
    return ExitCode.OK


def document(session: Session) -> dict:
    """What the command prints, as JSON: the same lists under the names report.json gives them
    (``scope.detected``), and each changed function and statement with its lines."""
    revisions, change = session.revisions, session.change
    return {
        "tool": {"name": "elenchus", "version": __version__},
        "snapshots": {"base": {"rev": revisions.base_rev, "sha": revisions.base_sha},
                      "head": {"rev": revisions.head_rev, "sha": revisions.head_sha,
                               "worktree": revisions.head_is_worktree},
                      "derivation": "\n".join(revisions.narration)},
        "files": [{"path": f.path, "status": f.status, "kind": f.kind} for f in change.files],
        "production_files": list(change.production_files),
        "test_files_added": list(change.tests_added),
        "test_files_modified": list(change.tests_modified),
        "test_files_deleted": list(change.tests_deleted),
        "infrastructure_files": list(change.paths("infrastructure")),
        "other_files": list(change.paths("other")),
        "related_tests": list(change.related_tests),
        "excluded": list(session.excluded),
        # (a deleted function's lines are Base lines; every other line is a Head line)
        "functions": [{"path": fn.path, "qualname": fn.qualname, "start": fn.start, "end": fn.end,
                       "status": fn.status, "lines_at": "base" if fn.status == "deleted" else "head",
                       "changed_lines": list(fn.changed_lines)} for fn in change.functions],
        "statements": [{"path": s.path, "symbol": s.symbol, "start": s.start, "end": s.end, "status": s.status,
                        "lines_at": "head", "changed_lines": list(s.changed_lines)} for s in change.statements],
    }
