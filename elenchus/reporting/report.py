"""The evaluation report: one JSON document (valid against the report schema) and its Markdown.

The Markdown is rendered from the JSON document alone, so the two can never
disagree. Sections, in order: Evaluation Scope, Existing Protection, Modified
Test Contribution, Still At Risk, Test Quality Concerns. No score, no merge
recommendation: each result is told as the incident it represents.
"""

from __future__ import annotations

import re
from collections import Counter

from elenchus.mutation.contract import SOURCE_WORDS
from elenchus.repo.fingerprint import POST_FLIGHT_SENTENCE
from elenchus.guards import BUDGET_RANGE

SCOPE_LABELS = {
    "current-change": "Current change: existing and modified tests",
    "changed-tests": "Changed tests only",
    "target": "Broader target",
    "confirmed-intent": "Confirmed intent: the code the confirmed contract items anchor",
}
#: The kinds of rejection, as the summary line names them.
_ARID = "in code no test should pin (docstrings, annotations, log and message text, interpreter and platform checks)"
_REJECTION_WORDS = {"arid": _ARID, "arid code": _ARID}

_RESULT_WORDS = {
    "killed": "caught", "survived": "not caught", "not-covered": "not run by any test", "timeout": "timed out",
    "not-comparable": "not comparable", "inconclusive": "inconclusive", "not-run": "not run",
    "caught-at-import": "caught at import (the code no longer loads)",
}


def _where(location: dict) -> str:
    symbol = f" in `{location['symbol']}`" if location.get("symbol") else ""
    return f"{location['path']}:{location['line']}{symbol}"


def _kill_text(outcome: dict) -> str:
    """The test named as having caught the mutant, and the others that caught it too."""
    kill = outcome.get("kill")
    if kill:
        how = {"assertion": "an assertion failed",
               "expected-exception-not-raised": "the expected exception was not raised",
               "unexpected-exception": "it failed with an exception the mutant caused",
               "timeout": "timed out"}.get(kill["kind"], kill["kind"])
        others = [k["test"] for k in outcome.get("kills") or () if k["test"] != kill["test"]]
        also = ""
        if others:
            shown = ", ".join(f"`{test}`" for test in others[:3])
            also = f"; also {shown}" + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        return f"`{kill['test']}` ({how}){also}"
    return _RESULT_WORDS.get(outcome["result"], outcome["result"])


def _site_text(site: dict | None) -> str:
    if site is None:
        return ""
    if site["mutants"]:
        return f" ({site['mutants']} mutant{'s' if site['mutants'] != 1 else ''})"
    return f" (no mutant: {site['reason']})"


def nothing_ran(report: dict) -> str | None:
    """Why no mutant produced a result, or None when at least one did."""
    mutations = report["mutations"]
    if not mutations:
        return "no mutant was made for this scope (see the notes)"
    if any(m["result"] != "not-run" for m in mutations):
        return None
    reasons = [m["reason"] for m in mutations if m.get("reason")]
    return reasons[0].removeprefix("not run: ") if reasons else "no mutant was run"


def _weakened_text(check: dict) -> str:
    """A weakened check: its test, what the change did, and what it used to check when that fits a line."""
    before = check.get("before") or ""
    used = f"; it used to check `{before.strip()}`" if before and "\n" not in before.strip() else ""
    return f"`{check['test']}` ({check['what_changed'].rstrip('.')}{used})"


def _diff_block(diff: str | None) -> list[str]:
    return ["", "```diff", diff.rstrip("\n"), "```"] if diff else []


def _behaves(observed: str) -> str:
    """"raise ValueError" -> "raises `ValueError`"; "0" -> "gives `0`"."""
    if observed.startswith("raise "):
        return f"raises `{observed[len('raise '):]}`"
    if observed.startswith("print "):  # (a call that returns the same, and prints something else)
        return f"prints `{observed[len('print '):]}`"
    return f"gives `{observed}`"


def _witness_lines(mutation: dict) -> list[str]:
    """What tells a survivor apart, and the verified test that would catch it."""
    witness = mutation.get("witness")
    if witness:
        return [f"- What tells it apart: `{witness['call']}` {_behaves(witness['original'])} with the code as it "
                f"is, and {_behaves(witness['mutant'])} with this mutant",
                *([f"- Told from the call, not the change: the sentence written from the change "
                   f"(\"{witness.get('incident_written', '')}\") does not fit: "
                   f"{witness['incident_check'][len('does not fit: '):]}"]
                  if witness.get("incident_check", "fits") != "fits" else []),
                "- A test that catches it (verified: passes now, fails on the mutant):", "",
                "```python", witness["test"].rstrip("\n"), "```"]
    reason = mutation.get("reason") or ""
    for lead in ("no witness was searched", "no witness was found"):
        if lead in reason:
            return [f"- What tells it apart: unknown ({reason[reason.index(lead):]})"]
    return []


def _incident_block(mutation: dict, lines: list[str], caught_by: str | None = None,
                    why_not: str | None = None, level: str = "###") -> None:
    contract = f" [{mutation['contract_id']}]" if mutation.get("contract_id") else ""
    retention = " (retention risk: pre-existing behaviour)" if mutation.get("retention_risk") else ""
    heading = mutation["incident"]
    if mutation.get("duplicate_heading"):  # another incident reads the same: the location tells them apart
        heading += f" ({_where(mutation['location'])}{', ' + mutation['id'] if mutation['duplicate_heading'] > 1 else ''})"
    lines.append(f"{level} {heading}")
    lines.append("")
    lines.append(f"- Where: {_where(mutation['location'])}{contract}{retention}")
    if mutation.get("found_by") == "regression-search":
        lines.append("- Found by: the regression search (a mutant the weakened tests used to catch, "
                     "in addition to the budget)")
    lines.append(f"- Misunderstanding: {mutation['changed_intent']}")
    if caught_by:
        lines.append(f"- Caught by: {caught_by}")
    if why_not:
        lines.append(f"- Why no test caught it: {why_not}")
    lines += _diff_block(mutation.get("diff"))
    witness = _witness_lines(mutation) if mutation.get("result") in ("survived", "not-covered") else []
    if witness:
        lines += [""] + witness
    lines.append("")


#: Assessments that say nothing of the old tests: they could not be compared, were blocked, or were inconclusive.
UNCOMPARED = ("not-comparable", "blocked", "inconclusive")


def missed_now(comparison: dict) -> bool:
    """The old tests could not be compared, yet the current ones miss the incident: a gap to act on all the same."""
    return comparison["assessment"] in UNCOMPARED and comparison["modified"]["result"] in ("survived", "not-covered")


#: How a survivor's reason says its code lies in a module-level branch the import here did not take.
_UNTAKEN = re.compile(r"this code (runs only where .+?): only the import runs it")


def untaken(mutation: dict) -> str | None:
    """How the branch holding the mutated code reads ("runs only where ..."), when the import here took the
    other way (no test run in this environment can execute it); else None."""
    found = _UNTAKEN.search(mutation.get("reason") or "")
    return found.group(1) if found else None


#: What shows an incident no test catches, in the order "What to act on" lists them: a witness (a ready test), no
#: test running its code, no call found that shows it (it may not matter), no search made.
_SHOWN = ("witness", "not-covered", "not-found", "not-searched")


def _shown_by(mutation: dict) -> str:
    """Which of ``_SHOWN`` shows an incident no test catches."""
    if (mutation.get("witness") or {}).get("call"):
        return "witness"
    if mutation.get("result") == "not-covered":
        return "not-covered"
    return "not-found" if "no witness was found" in (mutation.get("reason") or "") else "not-searched"


def _shown(mutation: dict) -> str:
    """What shows an incident no test catches: its witness call, or why there is none."""
    shown_by = _shown_by(mutation)
    if shown_by == "witness":
        witness = mutation["witness"]
        return f"`{witness['call']}` {_behaves(witness['original'])} with the code and " \
               f"{_behaves(witness['mutant'])} with the mutant"
    return {"not-covered": "no test runs this code", "not-found": "no call was found that shows it",
            # (not searched: that says nothing of whether a call shows it)
            "not-searched": "no witness was searched for it"}[shown_by]


def _finding(mutation: dict) -> str:
    """The incident and what shows it; an incident the witness's own call already tells (the usual sentence did
    not fit that call) is not told twice."""
    call = (mutation.get("witness") or {}).get("call")
    if call and mutation["incident"].startswith(f"`{call}` "):
        return mutation["incident"]
    return f"{mutation['incident']}; {_shown(mutation)}"


def finding_order(comparison: dict, mutations: dict[str, dict]) -> int:
    """Where an incident no test catches comes among the others (``_SHOWN``'s order)."""
    return _SHOWN.index(_shown_by(mutations[comparison["mutation_id"]]))


def _act_on(by_assessment: dict[str, list[dict]], mutations: dict[str, dict]) -> list[str]:
    """One line per finding, first: each protection regression, then each incident no test catches with
    the call that shows it (those a witness shows first: ``finding_order``)."""
    lines = ["### What to act on", ""]
    for comparison in by_assessment.get("protection-regression", []):
        mutation = mutations[comparison["mutation_id"]]
        lines.append(f"- Protection regression at {_where(mutation['location'])}: {mutation['incident']}; only the "
                     f"old tests caught it ({_kill_text(comparison['existing'])})")
    for comparison in sorted(by_assessment.get("unprotected", []), key=lambda c: finding_order(c, mutations)):
        mutation = mutations[comparison["mutation_id"]]
        lines.append(f"- Not caught at {_where(mutation['location'])}: {_finding(mutation)}")
    for comparison in sorted([c for name in UNCOMPARED for c in by_assessment.get(name, []) if missed_now(c)],
                             key=lambda c: finding_order(c, mutations)):
        mutation = mutations[comparison["mutation_id"]]
        lines.append(f"- Not caught by the current tests at {_where(mutation['location'])}: {_finding(mutation)} "
                     "(whether the old tests caught it is unknown: they could not be compared)")
    if len(lines) == 2:
        lines.append("Nothing: no protection regression, and no challenged incident the tests miss.")
    return lines + [""]


#: Where the line for one branch the import did not take goes, in the list of what was not run.
_UNTAKEN_SLOT = "- (a branch the import did not take)"


def _branch_line(found: list[dict]) -> str:
    """One line for the incidents in one branch the import here did not take."""
    first, last = min(m["location"]["line"] for m in found), max(m["location"]["end_line"] for m in found)
    where = f"{found[0]['location']['path']}:{first}" + (f"-{last}" if last > first else "")
    shown = "; ".join(m["incident"] for m in found[:3]) + (f"; and {len(found) - 3} more" if len(found) > 3 else "")
    count, them = (f" ({len(found)} incidents)", "them") if len(found) > 1 else ("", "it")
    return (f"- {where}{count}: {shown}. No test run here executes this code, which {untaken(found[0])}: whether "
            f"the tests catch {them} is unknown here; a run of the tests where the branch is taken (another "
            f"installation, Python or environment) runs {them}")


def _not_challenged(report: dict) -> list[str]:
    """A count, the riskiest few, and how to challenge them: not one line per candidate."""
    items = sorted(report["not_challenged"], key=lambda item: item["rank"])
    budget = report.get("budget", {}).get("limit")
    lines = [f"{len(items)} more incident(s) ranked below the {budget} challenged were not run, so whether the "
             "tests catch them is unknown. The riskiest:"]
    lines += [f"- {item['incident']} ({_where(item['location'])})" for item in items[:3]]
    most = BUDGET_RANGE[1]
    lines.append(f"To challenge them, raise the budget: `--budget {min(most, (budget or 0) + len(items))}` (at most "
                 f"{most}), or `budget` under [tool.elenchus] in pyproject.toml; `elenchus mutants` lists every one.")
    return lines


def _told_apart(mutations: list[dict]) -> dict[str, dict]:
    """Mutations by id, each marked when its incident reads exactly like another's (1: the location
    differs; 2: even that is the same, so the id is added too)."""
    incidents = Counter(m["incident"] for m in mutations)
    places = Counter((m["incident"], _where(m["location"])) for m in mutations)
    marked = {}
    for mutation in mutations:
        if incidents[mutation["incident"]] > 1:
            same_place = places[(mutation["incident"], _where(mutation["location"]))] > 1
            mutation = {**mutation, "duplicate_heading": 2 if same_place else 1}
        marked[mutation["id"]] = mutation
    return marked



#: Files listed with one reason before the rest are counted (every one stays in report.json).
EXCLUDED_SHOWN = 5
#: Contract items listed before the rest are counted (every one stays in report.json).
CONTRACT_ITEMS_SHOWN = 24


def shown_contract_items(items: list[dict], held: set[str | None]) -> tuple[list[dict], str | None]:
    """The items a challenged mutant holds to, then the first others, in the contract's order, and a count of
    the rest (None when every item is shown): a generated module of 60,000 functions derives as many
    provisional items, and listing them all buried the findings under a 5 MB report.md."""
    order = {item["id"]: number for number, item in enumerate(items)}
    chosen = set(sorted((i for i in held if i in order), key=order.__getitem__)[:CONTRACT_ITEMS_SHOWN])
    chosen |= set([i["id"] for i in items if i["id"] not in chosen][:CONTRACT_ITEMS_SHOWN - len(chosen)])
    rest = [item for item in items if item["id"] not in chosen]
    kinds = Counter(f"{item['status']}, {item['risk']} risk" for item in rest)
    more = (f"and {len(rest):,} more item(s): " + "; ".join(f"{count:,} {kind}" for kind, count in sorted(kinds.items()))
            if rest else None)
    return [item for item in items if item["id"] in chosen], more


def _excluded_shown(excluded: list[str]) -> list[str]:
    """Each reason's first few files, then how many more: a release that ships a tool's cache (300 JSON
    files "not Python production code") would bury the findings under one line of paths."""
    by_reason: dict[str, list[str]] = {}
    for entry in excluded:
        path, _, reason = entry.partition(": ")
        by_reason.setdefault(reason, []).append(path)
    shown = []
    for reason, paths in by_reason.items():
        more = len(paths) - EXCLUDED_SHOWN
        if more <= 1:
            shown += [f"{path}: {reason}" for path in paths]
        else:
            shown.append(f"{', '.join(paths[:EXCLUDED_SHOWN])} and {more} more (all in report.json): {reason}")
    return shown


def render_markdown(report: dict) -> str:
    mutations = _told_apart(report["mutations"])
    comparisons = report["comparisons"]
    by_assessment: dict[str, list[dict]] = {}
    for comparison in comparisons:
        by_assessment.setdefault(comparison["assessment"], []).append(comparison)
    scope = report["scope"]
    snapshots = report["snapshots"]
    lines = ["# Elenchus hardening" if report["mode"] == "harden" else "# Elenchus evaluation", ""]

    # -- Evaluation Scope
    lines += ["## Evaluation Scope", ""]
    lines.append(f"- Option: {SCOPE_LABELS[scope['option']]}"
                 + (f" (target `{scope['target']}`)" if scope.get("target") else "") + f". {scope['reason']}")
    for line in snapshots.get("derivation", "").split("\n"):
        if line:
            lines.append(f"- {line}")
    detected = scope["detected"]
    sites = {site["path"]: site for site in scope.get("production_sites") or ()}
    # (files: a test function removed from a file that stays is a Test Quality finding, not a deleted file)
    for label, key in (("Production files changed", "production_files"), ("Test files added", "test_files_added"),
                       ("Test files modified", "test_files_modified"), ("Test files deleted", "test_files_deleted"),
                       ("Related existing tests", "related_tests")):
        values = detected[key]
        lines.append(f"- {label}: " + (", ".join(f"`{v}`" + _site_text(sites.get(v)) for v in values)
                                       if values else "none"))
    contract = report["contract"]
    kind = "provisional, derived from docstrings, names, README and --intent" \
        if contract["source"] == "provisional-derived" \
        else f"{SOURCE_WORDS.get(contract['source'], contract['source'])} ({contract['path'] or 'from the host'})"
    lines.append(f"- Intent contract: {kind}")
    shown, more = shown_contract_items(contract["items"], {m.get("contract_id") for m in report["mutations"]})
    lines += [f"  - {item['id']} ({item['status']}, {item['risk']} risk): {item['behaviour']}" for item in shown]
    if more:
        lines.append(f"  - {more} (every item is in report.json)")
    if budget_plan := report.get("budget", {}).get("how_chosen"):
        lines.append(f"- How the mutants were chosen: {budget_plan}")
    budget = report.get("budget", {})
    # (the counts stderr gave: those that ran, the likely equivalent ones included; the regression search's own)
    ran_equivalent = sum(1 for r in report["rejected"] if r.get("incident"))
    searched = sum(1 for m in report["mutations"] if m.get("found_by") == "regression-search")
    challenged = len(report["mutations"]) + ran_equivalent - searched
    extra = [f"{ran_equivalent} of them likely equivalent (ran and survived, no input told them apart)"
             if ran_equivalent else "", f"{searched} more found by the regression search" if searched else ""]
    lines.append(f"- Mutants: {challenged} challenged (budget {budget.get('limit', '?')})"
                 + "".join(f", {text}" for text in extra if text)
                 + f", {len(report['not_challenged'])} not challenged, "
                   f"{len(report['rejected']) - ran_equivalent} rejected before running")
    reasons = Counter(_REJECTION_WORDS.get(kind := r["reason"].split(":")[0], kind) for r in report["rejected"]
                      if not r.get("incident"))
    if reasons:
        lines.append("  - Rejected: " + "; ".join(f"{count} {reason}" for reason, count in sorted(reasons.items())))
    for name, baseline in sorted(report["baseline"].items(), key=lambda item: item[0] != "modified"):
        text = f"- Baseline, {name} tests: {baseline['status']}"
        if baseline.get("duration_seconds") is not None:
            text += f" ({baseline['duration_seconds']:.2f} s)"
        if baseline.get("failing_tests"):
            text += "; failing: " + ", ".join(f"`{t}`" for t in baseline["failing_tests"])
        if baseline.get("flaky_tests"):
            text += "; flaky: " + ", ".join(f"`{t}`" for t in baseline["flaky_tests"])
        if baseline.get("reason") and not baseline.get("failing_tests"):
            text += f": {baseline['reason']}"
        lines.append(text)
    if scope["excluded"]:
        lines.append("- Excluded: " + "; ".join(_excluded_shown(scope["excluded"])))
    lines.append("")

    idle = nothing_ran(report)
    idle_text = f"Nothing was evaluated: {idle}." if idle else None
    if not idle_text and report["mode"] != "harden":
        lines += _act_on(by_assessment, mutations)

    # -- Existing Protection
    lines += ["## Existing Protection", ""]
    searched = {m["id"] for m in report["mutations"] if m.get("found_by") == "regression-search"}
    overlap = by_assessment.get("existing-protection", [])
    existing = [c for c in overlap if c["mutation_id"] not in searched]  # search evidence is told below
    if idle_text:
        lines += [idle_text, ""]
    elif not existing:
        uncompared = sum(len(by_assessment.get(name, [])) for name in UNCOMPARED)
        challenged = sum(len(found) for found in by_assessment.values())
        if uncompared:  # (none caught would read as a finding, where for these nothing is known)
            lines += [f"No challenged incident was shown caught by the tests that existed before the change: for "
                      f"{uncompared} of the {challenged} challenged, whether they catch it is unknown (see "
                      "\"Blocked, inconclusive or not comparable\" under Still At Risk).", ""]
        else:
            lines += ["No challenged incident was caught by the tests that existed before the change.", ""]
    for comparison in existing:  # one line each: what to act on is elsewhere (details in the JSON and HTML)
        mutation = mutations[comparison["mutation_id"]]
        contract = f" [{mutation['contract_id']}]" if mutation.get("contract_id") else ""
        lines.append(f"- {mutation['incident']} ({_where(mutation['location'])}){contract}: caught by "
                     f"{_kill_text(comparison['existing'])}")
    if existing:
        lines.append("")

    # -- Modified Test Contribution
    lines += ["## Modified Test Contribution", ""]
    if not (detected["test_files_added"] or detected["test_files_modified"] or detected["test_files_deleted"]):
        lines += ["No test file changed, so the change adds and removes no protection.", ""]
    elif idle_text:
        lines += [idle_text + " What the test changes add or remove is unknown.", ""]
    else:
        incremental = by_assessment.get("incremental-protection", [])
        regressions = by_assessment.get("protection-regression", [])
        lines += ["### Incremental protection", ""]
        if not incremental:
            lines += ["The test changes catch no incident that the existing tests missed.", ""]
        for comparison in incremental:
            _incident_block(mutations[comparison["mutation_id"]], lines,
                            caught_by=_kill_text(comparison["modified"]) + ", added by this change", level="####")
        lines += ["### Neutral overlap", ""]
        if existing:
            lines.append(f"{len(existing)} incident(s) are caught both before and after the test change; "
                         "overlap is neutral unless it is costly to maintain.")
        still = len(overlap) - len(existing)
        if still:
            lines.append(f"{still} incident(s) that the weakened tests used to catch (found by the regression "
                         "search) are still caught by the current tests.")
        if not overlap:
            lines.append("None.")
        lines += ["", "### Protection regressions", ""]
        if not regressions:
            lines += ["None: every incident the old tests caught is still caught.", ""]
        for comparison in regressions:
            checks = comparison.get("weakened_checks") or []
            if checks:
                caught_by = "only the old tests: " + "; ".join(_weakened_text(c) for c in checks)
                why_not = "the change removed or weakened that check, and no current test catches this incident"
            else:
                caught_by = f"only the old tests: {_kill_text(comparison['existing'])}"
                why_not = "the test change removed or loosened the check that caught it"
            _incident_block(mutations[comparison["mutation_id"]], lines, caught_by=caught_by, why_not=why_not,
                            level="####")

    # -- Still At Risk
    lines += ["## Still At Risk", ""]
    unprotected = by_assessment.get("unprotected", [])
    if unprotected:
        lines += ["### Not caught by any test", ""]
    for comparison in unprotected:
        mutation = mutations[comparison["mutation_id"]]
        ran = ("; none of them even ran the mutated line" if "none of them ran the mutated line"
               in (mutation.get("reason") or "") else "")
        why = f"every selected test passed with this mutant in place{ran}"
        if mutation.get("result") == "not-covered":
            why = "no test executes this code (measured by line coverage while the tests ran without any mutant)"
        _incident_block(mutation, lines, why_not=f"{why}. To notice it: {mutation['expected_detection']}",
                        level="####")
    unsettled = [c for c in comparisons if c["assessment"] in ("blocked", "inconclusive", "not-comparable")]
    if unsettled:
        lines += ["### Blocked, inconclusive or not comparable", ""]
        # (one reason, often the same for every incident, is said once: each incident is then one line, those the
        # current tests miss first, with what tells them apart)
        groups: dict[tuple[str, str], list[dict]] = {}
        for comparison in unsettled:
            groups.setdefault((comparison["assessment"], comparison["reason"]), []).append(comparison)
        for (assessment, reason), members in groups.items():
            lines += [f"{_RESULT_WORDS.get(assessment, assessment).capitalize()} ({len(members)} incident(s)): "
                      f"{reason.rstrip('.')}.", ""]
            for comparison in sorted(members, key=lambda c: not missed_now(c)):
                mutation = mutations[comparison["mutation_id"]]
                lines.append(f"- {mutation['incident']} ({_where(mutation['location'])}): with the current tests, "
                             f"{_kill_text(comparison['modified'])}")
                if mutation.get("result") in ("survived", "not-covered"):  # missed now: what tells it apart
                    shown = "\n".join(_witness_lines(mutation)).split("\n")
                    lines += [f"  {line}" if line else "" for line in shown]
            lines.append("")
    not_run = [m for m in report["mutations"] if m["result"] == "not-run"]
    if not_run:
        lines += ["### Not run", ""]
        if idle_text:
            lines += [f"Whether the tests catch these incidents is unknown: {idle}.", ""]
        branches: dict[tuple[str, str], list[dict]] = {}  # one line per branch the import here did not take
        for mutation in not_run:
            branch = untaken(mutation)
            if branch and not idle_text:
                if (mutation["location"]["path"], branch) not in branches:
                    lines.append(_UNTAKEN_SLOT)
                branches.setdefault((mutation["location"]["path"], branch), []).append(mutation)
                continue
            reason = "" if idle_text else f": {mutation.get('reason') or 'not run'}"
            lines.append(f"- {mutation['incident']} ({_where(mutation['location'])}){reason}")
        slots = iter(_branch_line(found) for found in branches.values())  # (in the order their slots were taken)
        lines[:] = [next(slots) if line is _UNTAKEN_SLOT else line for line in lines]
        lines.append("")
    if report["not_challenged"]:
        lines += ["### Not challenged (beyond the budget)", ""] + _not_challenged(report) + [""]
    if idle_text and not report["mutations"]:
        lines += [f"Unknown: {idle}, so nothing can be said to be caught.", ""]
    elif not (unprotected or unsettled or report["not_challenged"] or not_run):
        lines += ["Nothing: every challenged incident was caught and nothing was left beyond the budget.", ""]

    # -- Likely equivalent: survivors no input told apart are not gaps
    equivalent = [r for r in report["rejected"] if r["reason"].startswith(("likely equivalent",
                                                                           "equivalent (proven)"))]
    if equivalent:
        lines += ["## Likely Equivalent", "",
                  "These mutants survived, but no input could tell them apart from the code (or, proven, none "
                  "can), so they are not reported as gaps:", ""]
        for item in equivalent:
            lines.append(f"- {item.get('incident') or item['changed_intent']} ({_where(item['location'])}): "
                         f"{item['reason']}")
        lines.append("")

    # -- Caught at import: the suite goes red, but no check is what caught them
    unviable = by_assessment.get("caught-at-import", [])
    if unviable:
        lines += ["## Caught At Import", "",
                  "These mutants stop the code loading, so the tests fail before any of them checks behaviour: "
                  "they are neither caught by a check nor a gap.", ""]
        for comparison in unviable:
            mutation = mutations[comparison["mutation_id"]]
            lines.append(f"- {mutation['incident']} ({_where(mutation['location'])}): {comparison['reason']}")
        lines.append("")

    # -- Test Quality Concerns
    lines += ["## Test Quality Concerns", ""]
    if not report["test_quality"]:
        lines += ["None found in the evaluated tests.", ""]
    for concern in report["test_quality"]:
        where = f"{concern['path']}:{concern['line']}" if concern.get("line") else concern["path"]
        test = f" `{concern['test']}`" if concern.get("test") else ""
        lines.append(f"- {where}{test} ({concern['concern']}): {concern['why']}")
    lines.append("")

    if report["notes"]:
        lines += ["## Notes", ""] + [f"- {note}" for note in report["notes"]] + [""]
    if report.get("isolation"):
        lines += [report["isolation"]["description"], ""]
    post = report["post_flight"]
    if post["worktree_unchanged"] is True:
        lines.append(POST_FLIGHT_SENTENCE)
    elif post["worktree_unchanged"] is False:
        lines.append("Post-flight found changes to the repository during this run: " + "; ".join(post["changes"]))
    else:
        lines.append("Post-flight could not be taken; no claim is made about the working tree.")
    lines.append("")
    return "\n".join(lines)
