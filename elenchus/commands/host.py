"""`elenchus host`: answer a Runner scaffold from a Socratic host (references/socratic-host.md).

The host's scope is inherited, never asked; only the scaffold's editable fields are
filled; schema files are never opened in this mode (the Runner validates).
"""

from __future__ import annotations

from collections.abc import Callable

from elenchus import sandbox
from elenchus.errors import NotImplementedYet
from elenchus.exit_codes import ExitCode
from elenchus.host import canonical_blocks, fill, host_scope, read_scaffold, write_answer


def run(scaffold_path: str, out: str | None, echo: Callable[[str], None]) -> ExitCode:
    scaffold = read_scaffold(scaffold_path)
    settings = scaffold.host
    scope = host_scope(scaffold)
    if settings.mode == "harden":
        raise NotImplementedYet("hosted harden mode is not implemented yet; hosted evaluate and capture are")
    sandbox.activate(sandbox.for_review([settings.repo or "."]))  # the host's runs are sandboxed like any other
    if settings.mode == "capture":
        return _capture(scaffold, scope, out, echo)
    from elenchus.modes.evaluate import Evaluation, Options

    options = Options(repo=settings.repo or ".", base=settings.base, head=settings.head, scope=scope.option,
                      target=scope.target, interactive=False, hosted_scope_reason=scope.reason,
                      hosted_contract=settings.contract)
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
                              proposed_patch=None, budget=8)
    document = capture.execute(options, lambda line: None, hosted=True)
    report, catches = capture.as_report(document, {
        "option": scope.option, "target": scope.target, "reason": scope.reason, "inherited": True,
        "detected": {"production_files": [], "test_files_added": [], "test_files_modified": [],
                     "test_files_deleted": [], "related_tests": []}, "excluded": []})
    answer = fill(scaffold, canonical_blocks(report, catches))
    write_answer(answer, out)
    if out:
        echo(f"Answer written to {out} (capture run {document['run']['id']})")
    return ExitCode.OK
