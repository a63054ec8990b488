"""`elenchus changes`: show how Base and Head were chosen and what changed, run nothing."""

from __future__ import annotations

from collections.abc import Callable

from elenchus.exit_codes import ExitCode
from elenchus.fingerprint import post_flight_sentence
from elenchus.session import open_session


def _ranges(lines: tuple[int, ...]) -> str:
    spans: list[str] = []
    for line in lines:
        if spans and line == int(spans[-1].split("-")[-1]) + 1:
            spans[-1] = f"{spans[-1].split('-')[0]}-{line}"
        else:
            spans.append(str(line))
    return ", ".join(spans)


def run(repo: str, base: str | None, head: str | None, echo: Callable[[str], None],
        progress: Callable[[str], None] | None = None) -> ExitCode:
    """``progress``: where discovery says what a long phase is doing, e.g. stderr (default: ``echo``)."""
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
        changes = session.close()
    sentence = post_flight_sentence(changes)
    echo(sentence or "Post-flight found changes to the repository:\n  " + "\n  ".join(changes))
    return ExitCode.OK
