"""Test Evaluation mode, end to end: the engine behind `elenchus evaluate`, replx scoring and hosted mode.

resolve revisions -> snapshots -> discover -> scope question -> contract -> mutants
-> cohorts -> baselines -> one-mutant runs -> matrix -> report -> post-flight.
Review-only: the user's repository is read, never written (``--save`` is the one
explicit exception, made after the post-flight fingerprint was taken).

This module is the entry point and the order of the stages; each stage lives in
``elenchus.modes.evaluation`` (planning, baselines, running, the regression search,
witnesses, the report, the reuse of stored results).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from elenchus.execution.baseline import Baseline
from elenchus.execution.cohorts import build_cohorts, selected_tests
from elenchus.errors import ElenchusError, InputGuardError
from elenchus.repo.layout import detect_layout
from elenchus.exit_codes import ExitCode
from elenchus.modes.evaluation.assembly import Assembly, _baseline_json
from elenchus.modes.evaluation.baselines import Baselines
from elenchus.modes.evaluation.planning import Planning, _production_sites, _untouched
from elenchus.modes.evaluation.reuse import _run_record, _witness_from_record
from elenchus.modes.evaluation.search import RegressionSearch
from elenchus.modes.evaluation.state import FAIL_ON_CHOICES, RUNNERS, TEST_SELECTIONS, MutantRun, Options
from elenchus.modes.evaluation.witnesses import Witnesses
from elenchus.mutation.scope import CONFIRMED_INTENT, FROM_FILE, ScopeAnswer, resolve_scope
from elenchus.mutation.select import plan as plan_mutants
from elenchus.repo.session import Session, open_session
from elenchus.execution.workspace import scratch_root

# What the rest of Elenchus, the tests and the benchmarks import from here, wherever it lives now.
__all__ = ["Evaluation", "FAIL_ON_CHOICES", "MutantRun", "Options", "RUNNERS", "TEST_SELECTIONS", "run",
           "_run_record", "_witness_from_record"]


class Evaluation(Planning, Baselines, RegressionSearch, Witnesses, Assembly):
    """One evaluation run; holds what the stages hand each other."""

    # -- stages --------------------------------------------------------------------

    def run(self) -> ExitCode:
        demo_dir = None
        options = self.options
        if options.demo:
            from elenchus import scratch

            demo_dir = Path(tempfile.mkdtemp(prefix="elenchus-demo-"))
            repo = scratch.build("demo", demo_dir / "batching")
            self.echo(f"Demo: built the bundled demo project as a git repository at {repo}")
            if options.scope is None:
                options = replace(options, scope="current-change",
                                  scope_reason="Answered by --demo with the recommended option.")
                self.echo("Demo: answering the scope question with the recommended option, current-change.")
            self.options = options
        else:
            repo = Path(options.repo)
        try:
            session = open_session(repo, options.base, options.head, missing_base_ok=True)
            try:
                return self._evaluate(session)
            finally:
                if session.post_flight_changes is None:
                    session.close()
        finally:
            if demo_dir is not None:
                shutil.rmtree(demo_dir, ignore_errors=True)

    def _evaluate(self, session: Session) -> ExitCode:
        options = self.options
        self.base_unavailable = session.base_unavailable
        self.shallow = session.repo.shallow
        for line in session.revisions.narration:
            self.echo(line)
        if options.harden:  # before any mutant: only confirmed intent is hardened
            contract = self._confirmed_contract(session)
            answer = ScopeAnswer(CONFIRMED_INTENT, None, options.hosted_scope_reason or (
                "Hardening challenges the functions and methods the confirmed contract items anchor."), False)
        else:
            answer = resolve_scope(options.scope, options.target, session.change, options.budget,
                                   options.interactive, self.ask, self.echo, from_file=options.scope_from_file)
            reason = options.hosted_scope_reason or options.scope_reason
            if reason is not None:
                answer = ScopeAnswer(answer.option, answer.target, reason, False)
            contract = self._contract(session)
        if options.exhaustive and answer.option != "target":
            raise InputGuardError("exhaustive", f"--exhaustive only applies to --scope target, not {answer.option}")
        self.untouched = _untouched(session.change) if answer.option in ("current-change", "changed-tests") else None
        self.unparseable = session.change.unparseable
        if self.untouched is not None:
            self.echo(self.untouched)
        reuse_key = self._reuse_key(session, answer, contract)
        stored = self.cache.get(reuse_key) if reuse_key is not None else None
        if stored is not None and {"report", "sources", "manifest", "runs"} <= stored.keys():
            return self._reused(stored, session)
        plan = plan_mutants(answer.option, session.change, session.base, session.head, contract,
                            options.budget, answer.target, options.exhaustive, store=self.cache)
        origin = f" (from {FROM_FILE})" if options.scope_from_file and not options.harden else ""
        self.echo(f"Scope: {answer.option}{' ' + answer.target if answer.target else ''}{origin}; "
                  f"{len(plan.challenged)} mutant(s) to challenge, {len(plan.not_challenged)} beyond the budget, "
                  f"{len(plan.rejected)} rejected before running.")
        self.echo(f"Plan: {plan.how_chosen()}")
        mutated_files = tuple(sorted({path for path, _ in plan.spans} | {p.mutant.path for p in plan.challenged}))
        tests = selected_tests(session.change, session.head, mutated_files)
        self.checks = () if self.base_unavailable else self._weakened(session)
        self.sites = _production_sites(session.change, plan, session.head)  # reads Head: before it goes
        layout = detect_layout(session.head, session.change.settings)
        self.layout = layout
        self.cluster = self._connect(session)  # before the run directory: a wrong address leaves nothing behind
        try:
            run_dir = self._run_directory(session, answer, plan, tests)
            self.echo(f"Run directory: {run_dir.path}")
            baselines: dict[str, Baseline] = {}
            with scratch_root() as root:
                existing, modified = build_cohorts(session.change, session.base, session.head, root, tests, layout)
                cohorts = {"existing": existing, "modified": modified}
                self.cohorts_same = existing.same_as is not None
                self._inspect(cohorts)
                baselines = self._baselines(cohorts, root, plan, mutated_files)
                self.executor = self._executor(baselines, root)
                manifest = run_dir.manifest()
                manifest["baseline"] = {name: _baseline_json(b) for name, b in baselines.items()}
                run_dir.write_manifest(manifest)
                if baselines["modified"].usable:  # a red existing cohort only makes its comparisons not comparable
                    try:
                        self._run_mutants(plan, cohorts, baselines, root, run_dir)
                        if self.checks and not self.cohorts_same:
                            self._search(session, contract, plan, cohorts, baselines, root, run_dir)
                        if not self.cohorts_same:
                            self._confirm_regressions(plan, cohorts, baselines, root, run_dir)
                        self._witnesses(session, plan, cohorts, root, baselines["modified"].coverage)
                    except KeyboardInterrupt:
                        self.interrupted = True
                        self.notes.append("The run was interrupted (Ctrl-C or a termination signal); mutants not yet run are 'not-run'.")
                    finally:
                        self.executor.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()  # once more when the baselines stopped the run before any mutant: a no-op
        # (reads the snapshots: before they are removed; about the tests the change touched, and a target's)
        concerns = self._quality(session, tests if answer.option == "target" else (), baselines)
        self.sources = self._sources(session, plan)
        changes = session.close()
        report = self._report(session, answer, contract, plan, baselines, tests, concerns, changes, run_dir)
        self.report = report
        exit_code = self._write(report, session, run_dir)
        if reuse_key is not None and self._repeatable(baselines):
            self.cache.put(reuse_key, {"report": report, "sources": self.sources, "manifest": run_dir.manifest(),
                                       "runs": run_dir.runs()})
        if self.interrupted:
            raise KeyboardInterrupt
        return exit_code


def run(options: Options, echo: Callable[[str], None], ask: Callable[[str, str], str],
        emit: Callable[[str], None] | None = None) -> ExitCode:
    """Evaluate; ``echo`` narrates, ``emit`` (default ``echo``) prints the report itself."""
    for option, path in (("--json", options.json_path), ("--html", options.html_path),
                         ("--sarif", options.sarif_path), ("--junit", options.junit_path)):
        if path and Path(path).resolve().is_dir():
            raise ElenchusError(f"{option} {path} is a directory; pass a file path")
    return Evaluation(options, echo, ask, emit).run()
