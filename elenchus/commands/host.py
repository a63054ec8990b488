"""`elenchus host`: answer a Runner scaffold from a Socratic host (references/socratic-host.md).

The host's scope is inherited, never asked; only the scaffold's editable fields are
filled; schema files are never opened in this mode (the Runner validates).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from elenchus.execution import sandbox
from elenchus.guards import BUDGET_DEFAULT
from elenchus.exit_codes import ExitCode
from elenchus.modes.host import ScaffoldError, canonical_blocks, fill, host_scope, read_scaffold, write_answer


def run(scaffold_path: str, out: str | None, echo: Callable[[str], None]) -> ExitCode:
    scaffold = read_scaffold(scaffold_path)
    settings = scaffold.host
    _repository(scaffold_path, settings.repo)
    scope = host_scope(scaffold)
    sandbox.activate(sandbox.for_review([settings.repo or "."]))  # the host's runs are sandboxed like any other
    if settings.mode == "capture":
        return _capture(scaffold, scope, out, echo)
    if settings.mode == "harden":
        return _harden(scaffold, scope, out, echo)
    from elenchus.modes.evaluate import Evaluation, Options

    options = Options(repo=settings.repo or ".", base=settings.base, head=settings.head, scope=scope.option,
                      target=scope.target, interactive=False, hosted_scope_reason=scope.reason,
                      hosted_contract=settings.contract, **_budget(settings))
    evaluation = Evaluation(options, lambda line: None, lambda prompt, default: default)
    code = evaluation.run()
    if evaluation.report is None:
        return code
    document = fill(scaffold, canonical_blocks(evaluation.report))
    write_answer(document, out)
    if out:
        echo(f"Answer written to {out} (run {evaluation.report['run']['id']})")
    return code


def _capture(scaffold, scope, out: str | None, echo: Callable[[str], None]) -> ExitCode:
    from elenchus.modes import capture

    settings = scaffold.host
    options = capture.Options(repo=settings.repo or ".", reference=settings.reference, proposed=settings.proposed,
                              proposed_patch=None, budget=settings.budget or BUDGET_DEFAULT,
                              hosted_contract=settings.contract)
    document = capture.execute(options, lambda line: None, hosted=True)
    report, catches = capture.as_report(document, {
        "option": scope.option, "target": scope.target, "reason": scope.reason, "inherited": True,
        "detected": document["detected"], "excluded": []})
    answer = fill(scaffold, canonical_blocks(report, catches))
    write_answer(answer, out)
    if out:
        echo(f"Answer written to {out} (capture run {document['run']['id']})")
    return ExitCode.OK


def _harden(scaffold, scope, out: str | None, echo: Callable[[str], None]) -> ExitCode:
    """Hardening at ``proposed`` (default: Head as evaluate chooses it) against ``reference`` (default: its
    Base), on the host's contract (or the repository's); the proposed tests stay in the run's test handoff."""
    from elenchus.modes import harden
    from elenchus.modes.evaluate import Options

    settings = scaffold.host
    options = Options(repo=settings.repo or ".", base=settings.reference, head=settings.proposed, interactive=False,
                      hosted_scope_reason=scope.reason, hosted_contract=settings.contract, harden=True,
                      **_budget(settings))
    code, report, _ = harden.execute(options, lambda line: None, lambda text: None)
    if report is None:
        return code
    write_answer(fill(scaffold, canonical_blocks(report)), out)
    if out:
        echo(f"Answer written to {out} (harden run {report['run']['id']}; test handoff in its run directory)")
    return code


def _budget(settings) -> dict:
    """The host's budget, as if given on the command line (it outranks the repository's configuration)."""
    return {} if settings.budget is None else {"budget": settings.budget, "budget_explicit": True}


def _repository(scaffold_path: str, repo: str | None) -> None:
    """The repository the scaffold names, checked first, and its error told in the scaffold's terms: a
    hosted run has no ``--repo`` to fix."""
    from elenchus.repo.git import NotAGitRepository, Repository

    try:
        Repository(repo or ".")
    except NotAGitRepository:
        where = "/host/repo" if repo else "/host/repo (omitted: the current directory)"
        raise ScaffoldError(f"scaffold {scaffold_path}: {where}: {Path(repo or '.').resolve()} is not a git "
                            "checkout; name the repository to review in /host/repo", "/host/repo") from None
