"""Each cohort before any mutant: the safety inspection of its tests, then its baseline.

Nothing runs until the tests were read for destructive, network and credential use (blocked, or run
contained by the sandbox); then each cohort's tests run once without a mutant, at once when two jobs
are allowed, or a stored baseline is reused when nothing it read changed.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from elenchus.execution import sandbox
from elenchus.execution.baseline import Baseline, establish
from elenchus.execution.cohorts import Cohort
from elenchus.execution.dependencies import conftests_in
from elenchus.errors import Blocked
from elenchus.execution.inspection import inspect_tree, uncleared
from elenchus.modes.evaluation.reuse import Reuse, _baseline_from_record, _isolation
from elenchus.mutation.select import Plan, Planned, names_by_test


def _observes(planned: tuple[Planned, ...], cohort: Cohort) -> Callable[[frozenset[str]], bool]:
    """Whether the tests left after excluding some still call every challenged function."""
    per_test: dict[str, set[str]] = {}
    for path in cohort.tests:
        source = (cohort.template / path).read_text(errors="replace")
        for name, used in names_by_test(source).items():
            per_test[f"{path}::{name}"] = used

    def observes(excluded: frozenset[str]) -> bool:
        remaining: set[str] = set()
        for nodeid, used in per_test.items():
            if nodeid not in excluded:
                remaining |= used
        return all(p.mutant.symbol.split(".")[-1] in remaining for p in planned)

    return observes


class Baselines(Reuse):
    """The inspection before the first run, and the baselines."""

    def _inspect(self, cohorts: dict[str, Cohort]) -> None:
        """Block before the first run when the tests would do something unsafe (SPEC 2)."""
        chosen = sandbox.current()
        contained = chosen.contains
        for cohort in cohorts.values():
            if cohort.same_as:
                continue  # the same files as the cohort it shares its runs with: looked at there
            command = "pytest " + " ".join(cohort.tests)
            if chosen.fallback and command not in self.options.allow_commands:
                reached = uncleared(cohort.template, cohort.tests)
                if reached:  # reading them cannot tell what they do, and nothing would contain them
                    listed = "\n  ".join(reached[:10]) + (f"\n  and {len(reached) - 10} more" if len(reached) > 10
                                                          else "")
                    raise Blocked(
                        f"blocked: no sandbox can be built here ({chosen.reason}), and the {cohort.name} tests "
                        f"reach files, processes or the network in ways reading them cannot clear:\n  {listed}\n"
                        "Nothing was run. Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`), or "
                        "pass --isolation none to run them with your account's access anyway.")
            findings = inspect_tree(cohort.template, cohort.tests, store=self.cache)
            if findings and contained:
                listed = "; ".join(str(f) for f in findings[:5])
                more = f" and {len(findings) - 5} more" if len(findings) > 5 else ""
                self.notes.append(f"The {cohort.name} tests contain code that looks unsafe ({listed}{more}); it "
                                  "ran contained by the sandbox, which hides your files and the network from it.")
                self.echo(f"Warning: the {cohort.name} tests look unsafe in {len(findings)} place(s); running them "
                          "contained by the sandbox.")
            elif findings and command not in self.options.allow_commands:
                listed = "\n  ".join(str(f) for f in findings[:10])
                raise Blocked(
                    f"blocked: unsafe command: running `{command}` ({cohort.name} tests) would execute code "
                    f"that looks unsafe:\n  {listed}\nNothing was run. If you have checked it and want it run "
                    f"in a disposable snapshot, pass --allow-command \"{command}\"")

    def _baselines(self, cohorts: dict[str, Cohort], root: Path, plan: Plan,
                   mutated_files: tuple[str, ...]) -> dict[str, Baseline]:
        """Each cohort's baseline; the two run at once when two jobs are allowed (they share nothing)."""
        baselines: dict[str, Baseline] = {}
        cover = mutated_files if self.options.test_selection == "coverage" else ()
        measure: list[tuple[str, str, bool]] = []  # (cohort, cache key, set aside red tests)
        for name in ("modified", "existing"):
            cohort = cohorts[name]
            if name == "existing" and self.base_unavailable:
                baselines[name] = Baseline(name, "blocked", (), (), None, None, (
                    "the Base revision is not in this shallow clone, so the pre-change tests are unavailable; "
                    "fetch more history (`git fetch --deepen N` or `git fetch --unshallow`; in GitHub Actions, "
                    "`fetch-depth: 0` on actions/checkout) and rerun" if self.shallow else
                    "the Base revision is not in the local object store, so the pre-change tests are unavailable"))
                self.echo("Baseline, existing: blocked (the Base is unavailable)")
                continue
            if cohort.same_as:
                continue  # it shares the baseline of the cohort it is the same as
            set_aside = name == "existing" and self.options.set_aside_red_existing
            # (what a baseline depended on is known only from its record: the record names it, and holds
            # while each of those files is unchanged)
            key = self.cache.key("baseline", cohort.name, cohort.tests, cohort.disabled_plugins, cohort.layout,
                                 conftests_in(cohort.template), [p.mutant.id for p in plan.challenged],
                                 set_aside, cover, _isolation())
            reused = self.cache.read(key, _baseline_from_record)
            changed = self._changed(cohort, reused[0].get("depends")) if reused is not None else None
            if reused is not None and changed is None:
                baselines[name] = reused[1]
                self.reads[name] = reused[1].reads
                self.echo(f"Baseline, {name}: {baselines[name].status} (reused: nothing it read changed, with the "
                          "same installed packages; pass --fresh to run it again)")
                continue
            if changed is not None:
                self.cache.hits -= 1
                self.again.append(f"The {name} baseline ran again because {changed}.")
            measure.append((name, key, set_aside))
            self.echo(f"Baseline: running the {name} tests ({len(cohort.tests)} file(s)) without any mutant"
                      + (f", again because {changed}..." if changed else "..."))

        def established(item: tuple[str, str, bool]) -> Baseline:
            name, _, set_aside = item
            return establish(cohorts[name], root, _observes(plan.challenged, cohorts[name]), set_aside, cover)

        with ThreadPoolExecutor(max_workers=max(1, min(len(measure), self.options.jobs))) as pool:
            for (name, key, _), b in zip(measure, pool.map(established, measure)):
                baselines[name] = b
                self.reads[name] = b.reads
                if b.status in ("green", "flaky", "baseline-red", "not-comparable"):
                    depends = self._baseline_manifest(cohorts[name], b.reads)
                    self.cache.put(key, {"cohort": b.cohort, "status": b.status, "depends": depends.as_json(),
                                         "reads": None if b.reads is None else [[w, list(e)] for w, e in b.reads],
                                         "failing_tests": list(b.failing_tests),
                                         "flaky_tests": list(b.flaky_tests), "reduced_scope": b.reduced_scope,
                                         "duration": b.duration, "reason": b.reason, "empty": b.empty,
                                         "excluded": list(b.excluded),
                                         "coverage": b.coverage.to_json() if b.coverage else None,
                                         "third_party": list(b.third_party)})
                self.echo(f"Baseline, {name}: {b.status}" + (f" ({b.reason})" if b.reason else ""))
        for name, cohort in cohorts.items():
            if cohort.same_as and cohort.same_as in baselines and name not in baselines:
                baselines[name] = replace(baselines[cohort.same_as], cohort=name)
                self.reads[name] = self.reads.get(cohort.same_as)
        return baselines
