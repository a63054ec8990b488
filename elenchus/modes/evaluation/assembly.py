"""The report: assembled from what the stages found, or reused whole, then written with its other formats.

The JSON report (scope, snapshots, contract, baselines, mutations, comparisons, test quality, notes,
post-flight), the Head text the other formats show, the Markdown and the files for other tools, the
copies the options ask for, and the exit code; or, for an unchanged rerun, the stored report of the
same evaluation in a run directory of its own.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from elenchus import __version__
from elenchus.analysis import quality
from elenchus.execution import sandbox
from elenchus.execution.baseline import Baseline
from elenchus.execution.executor import WarmRunner
from elenchus.mutation.contract import Contract
from elenchus.exit_codes import ExitCode
from elenchus.analysis.matrix import assess
from elenchus.modes.evaluation.reuse import Reuse
from elenchus.modes.evaluation.state import _iso
from elenchus.records import RunDirectory
from elenchus.reporting.report import render_markdown
from elenchus.reporting import outputs
from elenchus.execution.run import Outcome, Verdict
from elenchus.mutation.scope import ScopeAnswer
from elenchus.mutation.select import Plan, Planned, risk_score
from elenchus.repo.session import Session

if TYPE_CHECKING:  # the regression search loads only when a run needs it
    from elenchus.analysis.regression import WeakenedCheck


def _cohort_outcome(verdict: Verdict | None) -> dict:
    if verdict is None:
        return {"result": "not-run", "kill": None}
    kill = None
    outcome: dict = {"result": verdict.outcome.value}
    if verdict.kill is not None and verdict.outcome is Outcome.KILLED:
        kill = {"test": verdict.kill.nodeid, "kind": verdict.kill.kind.value, "attributed": verdict.kill.attributed}
        outcome["kills"] = [{"test": k.nodeid, "kind": k.kind.value} for k in verdict.kills or (verdict.kill,)]
    outcome["kill"] = kill
    return outcome


def _baseline_json(baseline: Baseline, untraced: float | None = None) -> dict:
    found = {"status": baseline.status, "failing_tests": list(baseline.failing_tests),
             "flaky_tests": list(baseline.flaky_tests), "reduced_scope": baseline.reduced_scope,
             "duration_seconds": round(baseline.duration, 3) if baseline.duration is not None else None,
             "reason": baseline.reason}
    if untraced is not None:
        found["untraced_seconds"] = round(untraced, 3)
    return found


class Assembly(Reuse):
    """The report of this run, or of an unchanged earlier one, and writing it."""

    def _reused(self, stored: dict, session: Session) -> ExitCode:
        """The stored report of an evaluation of exactly this, in a run directory of its own."""
        report = stored["report"]
        earlier = report["run"]["id"]
        self.echo(f"Unchanged since run {earlier}: same commits, files, options, interpreter and installed "
                  "packages, so its results are reported again without running anything (pass --fresh to "
                  "measure again).")
        run_dir = RunDirectory.create(session.repo.root)
        self.echo(f"Run directory: {run_dir.path}")
        run_dir.write_manifest({**stored["manifest"], "run_id": run_dir.id, "started": _iso(self.started),
                                "reused_from": earlier})
        for record in stored["runs"]:
            run_dir.append_run({**record, "run": run_dir.id, "cached": True})
        self.sources = stored["sources"]
        changes = session.close()
        report = {**report,
                  "snapshots": {**report["snapshots"], "worktree_fingerprint": session.before.digest()},
                  "notes": [*report["notes"], f"Every result in this report was measured by run {earlier} on "
                            "exactly this content and these options, and reused (checked against its content "
                            "hash); pass --fresh to measure again."],
                  "post_flight": {"worktree_unchanged": not changes, "changes": list(changes)},
                  "run": {"id": run_dir.id, "directory": str(run_dir.path), "started": _iso(self.started),
                          "finished": _iso()}}
        self.report = report
        # Checked against the schemas when first written; only the run, notes and post-flight differ.
        return self._write(report, session, run_dir, checked=True)

    def _sources(self, session: Session, plan: Plan) -> dict[str, str]:
        """Head text of the mutated files and of the tests that caught a mutant (read before the snapshots go)."""
        paths = {p.mutant.path for p in (*plan.challenged, *plan.not_challenged)} | {r.path for r in plan.rejected}
        paths |= {kill.nodeid.partition("::")[0] for verdict in self.verdicts.values() for kill in verdict.kills}
        return {path: text for path in sorted(paths) if (text := session.head.read(path)) is not None}

    def _report(self, session: Session, answer: ScopeAnswer, contract: Contract, plan: Plan,
                baselines: dict[str, Baseline], tests: tuple[str, ...], concerns: list[dict],
                changes: tuple[str, ...], run_dir: RunDirectory) -> dict:
        from elenchus.analysis.witness import NoWitness, Witness, untaken_branch

        change = session.change
        same = self.cohorts_same
        mutations, comparisons = [], []
        searched = {mutant.id: checks for mutant, checks in self.found}
        entries = list(plan.challenged)
        first_rank = len(plan.challenged) + len(plan.not_challenged) + 1
        for offset, (mutant, _) in enumerate(self.found):
            item = contract.item_for(mutant.path, mutant.symbol)
            entries.append(Planned(mutant, first_rank + offset, item.id if item else None,
                                   not mutant.in_changed_lines, risk_score(mutant, contract)))
        equivalent: list[dict] = []
        for planned in entries:
            mutant = planned.mutant
            witness = self.witnesses.get(mutant.id)
            if isinstance(witness, NoWitness) and witness.searched:  # not a gap: no input told it apart
                equivalent.append({"id": mutant.id, "location": {"path": mutant.path, "line": mutant.line,
                                                "end_line": mutant.end_line, "symbol": mutant.symbol},
                                   "changed_intent": mutant.changed_intent, "incident": mutant.incident,
                                   "reason": witness.reason, "family": mutant.family})
                continue
            modified = self._verdict(mutant.id, "modified", same)
            existing = self._verdict(mutant.id, "existing", same)
            result = modified.outcome.value if modified else "not-run"
            reason = modified.reason if modified and result != "killed" else None
            if result == "not-run":
                reason = self._not_run_reason(baselines)
            branch = untaken_branch(witness.reason) if isinstance(witness, NoWitness) else None
            if branch and result in ("survived", "not-covered") and (existing is None
                                                                    or existing.outcome is not Outcome.KILLED):
                # No test run here executes it, so its survival says nothing: with the branch taken, the
                # tests may well catch it. Not a gap, and not caught: not run here.
                result, reason, witness = "not-run", (
                    f"not run here, so whether the tests catch it is unknown: this code {branch}: only the import "
                    "runs it, so no test run in this environment executes it; a run of the tests where the branch "
                    "is taken (another installation, Python or environment) does"), None
            mutations.append({
                "id": mutant.id, "contract_id": planned.contract_id,
                "location": {"path": mutant.path, "line": mutant.line, "end_line": mutant.end_line,
                             "symbol": mutant.symbol if mutant.symbol != "<module>" else None},
                "changed_intent": mutant.changed_intent, "incident": mutant.incident, "diff": mutant.diff,
                "expected_detection": mutant.expected_detection,
                "evidence": f"a one-place change to {mutant.symbol} that parses, compiles to different code, "
                            "and is not in logging, messages, annotations or debug-only code",
                "risk_rank": planned.rank, "retention_risk": planned.retention,
                "result": result, "kill": _cohort_outcome(modified)["kill"] if result == "killed" else None,
                "reason": reason,
                "found_by": "regression-search" if mutant.id in searched else "budget",
                "family": mutant.family,
            })
            if isinstance(witness, Witness):
                mutations[-1]["witness"] = witness.to_json()
                if witness.misfit is not None:  # the usual sentence is not what this mutant does: say what it does
                    mutations[-1]["incident"] = witness.incident
                    mutations[-1]["witness"]["incident_written"] = mutant.incident
            elif isinstance(witness, NoWitness):
                mutations[-1]["reason"] = f"{reason}; {witness.reason}" if reason else witness.reason
                if witness.inputs:  # (what a search that ended without a witness cost: its inputs and time)
                    mutations[-1]["witness_search"] = {"inputs": witness.inputs, "seconds": witness.seconds}
            if modified is None or result == "not-run":
                continue
            existing_status = baselines.get("existing")
            if existing is None and existing_status is not None and not existing_status.usable:
                existing_result, existing_reason = (
                    "not-comparable" if existing_status.status in ("not-comparable", "baseline-red") else "blocked",
                    existing_status.reason)
                if existing_status.status == "baseline-red":  # (which tests: the report lists the current ones too)
                    existing_reason = f"the pre-change tests cannot be compared, since {existing_reason}"
                existing_json = {"result": "not-run", "kill": None}
            else:
                existing_result = existing.outcome.value if existing else "inconclusive"
                existing_reason = existing.reason if existing else "the existing cohort did not run this mutant"
                existing_json = _cohort_outcome(existing)
            assessment = assess(existing_result, modified.outcome.value, existing_reason, modified.reason)
            comparison = {"mutation_id": mutant.id, "existing": existing_json,
                          "modified": _cohort_outcome(modified), "assessment": assessment.assessment,
                          "reason": assessment.reason}
            weakened = self._weakened_by(existing, searched.get(mutant.id, ()))
            if weakened and assessment.assessment == "protection-regression":
                comparison["weakened_checks"] = [check.to_json() for check in weakened]
            comparisons.append(comparison)
        report = {
            "mode": "harden" if self.options.harden else "evaluate",
            "scope": {
                "option": answer.option,
                "detected": {"production_files": list(change.production_files),
                             "test_files_added": list(change.tests_added),
                             "test_files_modified": list(change.tests_modified),
                             "test_files_deleted": list(change.tests_deleted),
                             # (those the runs took: a helper beside the tests pytest never collects is not one)
                             "related_tests": [t for t in change.related_tests if t in tests]},
                "production_sites": self.sites,
                "target": answer.target,
                "excluded": list(session.excluded) + [
                    f"{p}: not Python production code" for p in change.paths("other")
                    if not any(e.startswith(f"{p}: ") for e in session.excluded)],  # (said once, the first way)
                "reason": answer.reason,
                # (hardening chooses its own scope, the confirmed items' code: only the host's reason is kept)
                "inherited": self.options.hosted_scope_reason is not None and not self.options.harden,
            },
            "snapshots": {
                "base": {"rev": session.revisions.base_rev, "sha": session.revisions.base_sha},
                "head": {"rev": session.revisions.head_rev, "sha": session.revisions.head_sha,
                         "worktree": session.revisions.head_is_worktree},
                "worktree_fingerprint": session.before.digest(),
                "derivation": "\n".join(session.revisions.narration),
            },
            "contract": {"source": contract.source, "provisional": contract.provisional, "path": contract.path,
                         "change_id": contract.change_id, "items": contract.to_json()["items"]},
            "baseline": {name: _baseline_json(b, self.untraced.get(name)) for name, b in baselines.items()},
            "budget": {"limit": self.options.budget, "source": "explicit" if self.options.budget_explicit else "default",
                       "how_chosen": plan.how_chosen(), "not_listed": plan.unlisted, "not_expanded": plan.unexpanded},
            "execution": {"test_command": "pytest " + " ".join(tests) + " (with the Elenchus recorder plugin)",
                          "isolation": "a fresh copy of the cohort snapshot per run, outside the working tree; "
                                       "the project is imported from that copy's source roots",
                          "source_roots": list(self.layout.roots),
                          "jobs": self.options.jobs,
                          "runner": self._runner_text(),
                          "test_selection": self._selection_text()},
            "mutations": mutations,
            "not_challenged": [{"id": p.mutant.id, "rank": p.rank, "contract_id": p.contract_id,
                                "location": {"path": p.mutant.path, "line": p.mutant.line,
                                             "end_line": p.mutant.end_line, "symbol": p.mutant.symbol},
                                "changed_intent": p.mutant.changed_intent, "incident": p.mutant.incident,
                                "reason": f"beyond the mutation budget of {plan.budget}",
                                "family": p.mutant.family}
                               for p in plan.not_challenged],
            "rejected": [{"location": {"path": r.path, "line": r.line, "end_line": r.line, "symbol": r.symbol},
                          "changed_intent": r.changed_intent or "none: no misunderstanding was modelled here",
                          "reason": r.reason, "family": r.family} for r in plan.rejected] + equivalent,
            "comparisons": comparisons,
            "test_quality": concerns,
            "notes": self._notes(contract, baselines, plan),
            "isolation": sandbox.current().as_json(),
            "post_flight": {"worktree_unchanged": not changes, "changes": list(changes)},
            "tool": {"name": "elenchus", "version": __version__},
            "run": {"id": run_dir.id, "directory": str(run_dir.path), "started": _iso(self.started),
                    "finished": _iso()},
        }
        return report

    def _runner_text(self) -> str:
        from elenchus.execution.cluster import ClusterExecutor

        if isinstance(self.executor, (WarmRunner, ClusterExecutor)):
            return self.executor.describe()
        return "a fresh interpreter per run" + (" (--runner fresh)" if self.options.runner == "fresh" else "")

    def _selection_text(self) -> str:
        if self.options.test_selection == "all":
            return "every relevant test for each mutant (--test-selection all)"
        return (f"{self.selected} mutant run(s) executed only the tests that execute the mutated lines (line "
                f"coverage of the baseline run); {self.not_covered} mutant x cohort pair(s) no test executes were "
                "not run; other runs executed every relevant test (module-level code, lines run by shared "
                "fixtures or at import, or coverage not measurable)")

    def _weakened_by(self, existing: Verdict | None,
                     searched: tuple[WeakenedCheck, ...]) -> tuple[WeakenedCheck, ...]:
        """The weakened checks among the tests that caught a mutant before the change."""
        if existing is None or existing.outcome is not Outcome.KILLED:
            return ()
        killers = [k.nodeid for k in existing.kills or ((existing.kill,) if existing.kill else ())]
        candidates = dict.fromkeys((*searched, *self.checks))
        return tuple(c for c in candidates if any(c.matches(n) for n in killers))

    def _not_run_reason(self, baselines: dict[str, Baseline]) -> str:
        if self.interrupted:
            return "the run was interrupted before this mutant ran"
        modified = baselines.get("modified")
        if modified is not None and not modified.usable:
            return f"not run: the modified baseline is {modified.status}"
        return "not run"

    def _quality(self, session: Session, tests: tuple[str, ...], baselines: dict[str, Baseline]) -> list[dict]:
        """Concerns about the test files the change touched, and ``tests`` besides (a target's tests)."""
        change = session.change
        paths = sorted(set(tests) | set(change.changed_tests) | set(change.tests_deleted))
        paths = [p for p in paths if p.endswith(".py")]
        files = [quality.TestFile(p, session.head.read(p), session.base.read(p)) for p in paths]
        # (a pure reading of the texts: a push that leaves them as they were reads it from the result store)
        concerns = list(self.cache.memo("test quality", [asdict(f) for f in files], lambda: quality.analyze(files),
                                        lambda found: [asdict(c) for c in found],
                                        lambda stored: tuple(quality.Concern(**{**c, "kind": quality.ConcernKind(
                                            c["kind"])}) for c in stored)))
        for check in self.checks:  # what the change did to checks that stay (deleted and skipped ones are above)
            if check.kind in (quality.ConcernKind.LOOSENED_ASSERTION, quality.ConcernKind.SWALLOWED_ERROR):
                concerns.append(quality.weakened_concern(check.path, check.line, check.test, check.kind,
                                                         check.detail))
        for baseline in baselines.values():
            for nodeid in baseline.flaky_tests:
                concerns.append(quality.flaky_concern(nodeid))
        unique = {(c.path, c.line, c.kind, c.test): c for c in concerns}
        return [{"path": c.path, "line": c.line or None, "test": c.test, "concern": str(c.kind), "why": c.why}
                for c in sorted(unique.values(), key=lambda c: (c.path, c.line or 0, str(c.kind)))]

    def _notes(self, contract: Contract, baselines: dict[str, Baseline], plan: Plan) -> list[str]:
        if self.untouched is not None:  # (no cohort ran, no mutant was made: nothing else to say)
            return [self.untouched, *self.notes]
        notes = list(self.notes)
        if not plan.challenged and self.unparseable:
            notes.append(f"No mutant could be made for this scope: {'; '.join(self.unparseable)}. Fix the syntax "
                         "and run again.")
        elif not plan.challenged:
            notes.append("No mutant could be made for this scope: the change touches no production function "
                         "that the scope covers. Try --scope target --target PATH for a broader evaluation.")
        if contract.provisional:
            notes.append("Every contract item is provisional (derived, not confirmed): a caught incident shows "
                         "that behaviour is detected, not that it is the intended behaviour. Outcomes that "
                         "depend on intent are yours to decide: mark the items you mean as `confirmed` in "
                         ".socratic/intent-contract.json (by hand or with Maieutic, the intent interviewer) "
                         "and pass it with --contract.")
        for name, baseline in baselines.items():
            if baseline.status == "baseline-red" and name == "modified":
                notes.append(f"Classification stopped: the {name} baseline is red; fix or exclude "
                             f"{', '.join(baseline.failing_tests)} and run again.")
            elif baseline.status == "baseline-red" and not self.cohorts_same:
                notes.append(f"The pre-change tests {', '.join(baseline.failing_tests)} fail against Head without "
                             "any mutant (the change altered what they check), so every comparison with the "
                             "existing cohort is not comparable; the modified tests were still evaluated.")
            elif baseline.status in ("not-comparable", "blocked", "inconclusive") and name == "existing":
                notes.append(f"The existing cohort is {baseline.status}: {baseline.reason.rstrip('.')}. Its "
                             "comparisons are not read as protection gained or lost.")
        notes += self._reuse_notes()
        return notes

    def _write(self, report: dict, session: Session, run_dir: RunDirectory, checked: bool = False) -> ExitCode:
        """``checked``: the report (and what is built from it) passed its schemas when first written."""
        if self.options.hosted_scope_reason is None and not checked:  # in hosted mode the Runner validates
            from elenchus.schemas import validate

            validate("mutation-report", report)
        json_path = run_dir.write_json("report.json", report)
        markdown = render_markdown(report)
        md_path = run_dir.write_text("report.md", markdown)
        self.emit(markdown)
        others = {} if self.options.hosted_scope_reason is not None else outputs.write(  # the host renders its own
            report, self.sources, run_dir.path,
            {"html": self.options.html_path, "sarif": self.options.sarif_path, "junit": self.options.junit_path},
            self.echo, self.emit, checked=checked, store=self.cache)
        self.echo(f"Report: {md_path} (JSON: {json_path}"
                  + "".join(f"; {label}: {others[key]}" for key, label in (
                      ("html", "HTML"), ("sarif", "SARIF"), ("junit", "JUnit"),
                      ("mutation-testing-report", "mutation-testing report"))
                      if key in others) + ")")
        if self.options.json_path:
            Path(self.options.json_path).write_text(json.dumps(report, indent=2) + "\n")
            self.echo(f"JSON copy written to {self.options.json_path}")
        if self.options.save:
            target = session.repo.root / ".socratic" / "elenchus-report.json"
            target.parent.mkdir(exist_ok=True)
            target.write_text(json.dumps(report, indent=2) + "\n")
            self.echo(f"Saved {target} (--save), after the post-flight check.")
        if self.untouched is not None:  # a docs-only push is no finding and no failure
            return ExitCode.OK
        if report["baseline"].get("modified", {}).get("status") in ("baseline-red", "blocked"):
            return ExitCode.BLOCKED
        if self.options.fail_on:
            found = {c["assessment"] for c in report["comparisons"]} & set(self.options.fail_on)
            if found:
                self.echo(f"--fail-on: found {', '.join(sorted(found))}")
                return ExitCode.FINDINGS
        return ExitCode.OK
