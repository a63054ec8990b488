"""Witnesses: a call that tells each surviving mutant apart from the code, or a search that found none.

After the runs, each survivor (that the pre-change tests did not catch) gets an input search, unless
witnesses were turned off; every search done on the same content (a verified witness, a search that
found none, one that ran out of its time) is reused from the result cache, so a push that changes
nothing the tests read searches nothing again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from elenchus.execution.cohorts import Cohort
from elenchus.execution.coverage_map import CoverageMap
from elenchus.execution.dependencies import conftests_in
from elenchus.modes.evaluation.reuse import Reuse, _isolation, _stopped_short, _witness_from_record
from elenchus.execution.run import Outcome
from elenchus.mutation.select import Plan
from elenchus.repo.session import Session


class Witnesses(Reuse):
    """The witness search for the survivors."""

    def _witnesses(self, session: Session, plan: Plan, cohorts: dict[str, Cohort], root: Path,
                   coverage: CoverageMap | None) -> None:
        """Look for a call that tells each survivor apart from the code (a mutant that the old
        tests caught but the current ones miss needs none: the old test is its witness)."""
        from elenchus.analysis.witness import NoWitness, Witness, witness_survivors
        from elenchus.analysis.witness.search import BROKEN_SEARCH

        survivors = []
        for mutant in [p.mutant for p in plan.challenged] + [m for m, _ in self.found]:
            now = self._verdict(mutant.id, "modified", self.cohorts_same)
            before = self._verdict(mutant.id, "existing", self.cohorts_same)
            if now is not None and now.outcome in (Outcome.SURVIVED, Outcome.NOT_COVERED) and not (
                    before is not None and before.outcome is Outcome.KILLED):
                survivors.append(mutant)
        if survivors and not self.options.witnesses:
            self.notes.append(f"No witness was searched for the {len(survivors)} surviving mutant(s) "
                              f"({self.options.no_witnesses_because}): each stays a gap, none is called likely "
                              "equivalent.")
        elif survivors:
            # Every search is reused on the same content: a verified witness, a search that found none, and one
            # that ran out of its time (derandomized, it would run out at the same place; a longer
            # --witness-time than it had, or --fresh, searches again). Only a search that broke runs again.
            # (keyed on what the modified tests read, as their baseline measured it: a change to a licence or a
            # document reuses a witness; a change to any code or test file they read looks for it again)
            modified = cohorts["modified"]
            read = self._baseline_manifest(modified, self.reads.get("modified")).digest()
            keys = {m.id: self.cache.key("witness", read, modified.tests, modified.disabled_plugins, modified.layout,
                                         conftests_in(modified.template), m.path, m.mutated_source,
                                         self.options.harden, _isolation()) for m in survivors}
            for mutant in survivors:
                if _stopped_short(self.cache.peek(keys[mutant.id]), self.options.witness_time):
                    continue
                stored = self.cache.read(keys[mutant.id], _witness_from_record)
                if stored is not None:
                    self.witnesses[mutant.id] = stored[1]
            survivors = [m for m in survivors if m.id not in self.witnesses]
            reused = _reused_searches(self.witnesses.values())
            if survivors:
                self.echo(f"Witnesses: looking for a call that tells each of {len(survivors)} surviving mutant(s) "
                          f"apart from the code (up to {self.options.witness_time:g} s each)"
                          f"{f' ({reused})' if reused else ''}...")
            else:
                self.echo(f"Witnesses: {reused}.")
            found = witness_survivors(survivors, cohorts["modified"], session.head, self.layout,
                                      self.options.witness_time, self.options.jobs, root,
                                      placed=self.options.harden, executor=self.executor,
                                      coverage=coverage) if survivors else {}
            for mutant_id, witness in found.items():
                if isinstance(witness, Witness):
                    self.cache.put(keys[mutant_id], {"witness": asdict(witness)})
                elif isinstance(witness, NoWitness) and BROKEN_SEARCH not in witness.reason:
                    self.cache.put(keys[mutant_id], {"no_witness": asdict(witness),
                                                     "witness_time": self.options.witness_time})
            self.witnesses.update(found)


def _reused_searches(reused: Iterable[object]) -> str:
    """What the stored searches gave, for the progress line ("" when nothing was reused)."""
    from elenchus.analysis.witness import Witness

    outcomes = list(reused)
    found = sum(1 for w in outcomes if isinstance(w, Witness))
    claims = sum(1 for w in outcomes if not isinstance(w, Witness) and w.searched)
    gaps = len(outcomes) - found - claims
    parts = [f"{found} witness(es)" if found else "",
             f"{claims} search(es) that tried every kind of input and found none" if claims else "",
             f"{gaps} search(es) that ran out of time or could not search, each still a gap "
             "(pass --fresh, or a longer --witness-time, to search again)" if gaps else ""]
    listed = [part for part in parts if part]
    return f"reused from an earlier run on the same content: {'; '.join(listed)}" if listed else ""
