"""Before any cohort: the contract, where the run is recorded, and what the change gives to challenge.

The first stage of an evaluation after the scope is known: the contract it is judged against (the
confirmed one for hardening), the run directory (or the resumed one and its recorded verdicts), and
three readings of the change made while Head is still there: each changed production file's mutants
or why it has none, whether the change touches any code or test at all, and the checks it weakened.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from elenchus import __version__
from elenchus.repo.discover import ChangeSet, parse_failure
from elenchus.mutation.contract import Contract, contract_from_json, derive_provisional, load_contract, \
    require_for_hardening
from elenchus.modes.evaluation.reuse import _verdict_from_record
from elenchus.modes.evaluation.state import WITHOUT_HUNG, EvaluationState, _iso
from elenchus.records import RunDirectory, resume_mismatch
from elenchus.mutation.scope import ScopeAnswer
from elenchus.mutation.select import Plan
from elenchus.repo.session import Session

if TYPE_CHECKING:
    from elenchus.analysis.regression import WeakenedCheck


def _production_sites(change, plan: Plan, head) -> list[dict]:
    """Per changed production file: its mutants (challenged or not), and why there are none."""
    sites = []
    for path in change.production_files:
        if path in change.paths("production", "deleted"):
            continue
        count = sum(p.mutant.path == path for p in (*plan.challenged, *plan.not_challenged))
        reason = None
        broken = parse_failure(head.read(path)) if count == 0 else None
        if broken:
            reason = f"the file does not parse at Head ({broken}), so no mutant can be made"
        elif count == 0:
            reasons = list(dict.fromkeys(r.reason.removeprefix("no mutant: ") for r in plan.rejected
                                         if r.path == path))
            touched = any(f.path == path and f.status != "deleted" for f in change.functions) or any(
                s.path == path for s in change.statements)
            if reasons:
                reason = "; ".join(reasons[:3]) + (
                    f" (and {len(reasons) - 3} more)" if len(reasons) > 3 else "")
            elif not touched:
                reason = "no code line changed: only comments, docstrings, blank lines or formatting"
            else:
                reason = "outside the chosen scope"
        sites.append({"path": path, "mutants": count, "reason": reason})
    return sites


def _untouched(change: ChangeSet) -> str | None:
    """Why a change gives nothing to evaluate: every file it touches is neither code nor a test (docs, a
    licence, CI settings), so no mutant can be made and no test relates to it; else None."""
    if not change.files or any(f.kind != "other" for f in change.files):
        return None
    names = [f.path for f in change.files]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return (f"Nothing to evaluate: the change touches no production code and no test ({shown}), so no mutant "
            "was made and no test was run; the tests protect the code exactly as before.")


class Planning(EvaluationState):
    """The contract and the run directory."""

    def _weakened(self, session: Session) -> tuple[WeakenedCheck, ...]:
        """The checks the change weakened: a pure reading of the changed files' texts, so a push that leaves
        them as they were reads them from the result store instead of parsing them again."""
        from elenchus.analysis.regression import WeakenedCheck, checks_weakened_in, weakening_inputs

        files = weakening_inputs(session.change, session.base, session.head)
        kinds = {f.path: session.change.settings.kind_of(f.path) for f in files}
        return self.cache.memo("weakened checks", [[asdict(f) for f in files], kinds],
                               lambda: checks_weakened_in(files, kinds),
                               lambda checks: [asdict(check) for check in checks],
                               lambda stored: tuple(WeakenedCheck(**check) for check in stored))

    def _confirmed_contract(self, session: Session) -> Contract:
        options = self.options
        contract = contract_from_json(options.hosted_contract, "socratic", None) \
            if options.hosted_contract is not None else \
            load_contract(session.repo.root, options.contract, options.change_id)
        require_for_hardening(contract)
        return contract  # type: ignore[return-value]

    def _contract(self, session: Session) -> Contract:
        options = self.options
        if options.hosted_contract is not None:  # the Runner validated it; schemas stay closed here
            return contract_from_json(options.hosted_contract, "socratic", None)
        return load_contract(session.repo.root, options.contract, options.change_id) \
            or derive_provisional(session.change, session.head, options.intent)

    def _run_directory(self, session: Session, answer: ScopeAnswer, plan: Plan,
                       tests: tuple[str, ...]) -> RunDirectory:
        manifest = {
            "run_id": None, "tool": {"name": "elenchus", "version": __version__},
            "repository": str(session.repo.root),
            "base_rev": session.revisions.base_rev, "base_sha": session.revisions.base_sha,
            "head_rev": session.revisions.head_rev, "head_sha": session.revisions.head_sha,
            "worktree_fingerprint": session.before.digest(),
            "files": [{"path": f.path, "status": f.status, "kind": f.kind} for f in session.change.files],
            "scope": answer.option, "target": answer.target, "budget": self.options.budget,
            "search_budget": self.options.search_budget,
            "mutant_ids": [p.mutant.id for p in plan.challenged],
            "cohorts": ["existing", "modified"], "isolation": "fresh copy of a cohort snapshot per run",
            "test_command": "pytest " + " ".join(tests), "baseline": None,
            "started": _iso(self.started),
        }
        if self.options.resume:
            previous = RunDirectory.existing(self.options.resume)
            why = resume_mismatch(previous.manifest(), manifest)
            if why is None:
                for record in previous.runs():
                    if record.get("selection") in ("confirmation", WITHOUT_HUNG):
                        continue  # a second look at a would-be regression, or at a timeout: taken again
                    self.verdicts[(record["mutant_id"], record["cohort"])] = _verdict_from_record(record)
                self.resumed = len(self.verdicts)
                checked = (f"; {previous.rejected} recorded line(s) failed their content check and run again"
                           if previous.rejected else "")
                self.echo(f"Resuming {previous.id}: {len(self.verdicts)} recorded run(s) reused{checked}.")
                self.resume_rejected = previous.rejected
                return previous
            self.echo(f"Starting over instead of resuming {previous.id}: {why}.")
        run_dir = RunDirectory.create(session.repo.root)
        manifest["run_id"] = run_dir.id
        run_dir.write_manifest(manifest)
        return run_dir
