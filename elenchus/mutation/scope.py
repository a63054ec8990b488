"""The scope question (SPEC 4.1): what to evaluate, with detected counts and expected cost.

Asked before any mutant is generated. On a terminal it is a numbered question with
the recommendation preselected; without one, and without ``--scope``, the question
is printed and the run stops with exit 3 so a CI user can answer it with a flag.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from elenchus.repo.discover import ChangeSet
from elenchus.errors import DecisionNeeded, InputGuardError

SCOPES = ("current-change", "changed-tests", "target")
# Hardening's scope, never asked: the functions the confirmed contract items anchor.
CONFIRMED_INTENT = "confirmed-intent"


@dataclass(frozen=True, slots=True)
class ScopeOption:
    key: str
    label: str
    detail: str
    cost: str
    recommended: bool


@dataclass(frozen=True, slots=True)
class ScopeAnswer:
    option: str
    target: str | None
    reason: str
    asked: bool


def options(change: ChangeSet, budget: int) -> tuple[ScopeOption, ...]:
    production = len(change.production_files)
    functions = len([f for f in change.functions if f.status != "deleted"])
    changed_tests = len(change.changed_tests)
    related = len(change.related_tests)
    cohorts = 2 if changed_tests else 1
    runs = f"up to {budget} mutants x {cohorts} cohort(s) = {budget * cohorts} test runs, plus {cohorts} baseline(s)"
    return (
        ScopeOption("current-change", "Current change: existing and modified tests",
                    f"{production} production file(s), {functions} changed function(s), {related} related "
                    f"existing test file(s), {changed_tests} added/modified/deleted test file(s)",
                    runs, recommended=True),
        ScopeOption("changed-tests", "Changed tests only",
                    f"the production code that the {changed_tests} changed test file(s) exercise; faster, "
                    "but not an audit of the wider suite",
                    runs if changed_tests else "nothing to run: no test file changed", recommended=False),
        ScopeOption("target", "Broader target (a module or the whole repository)",
                    "name a module or path with --target (or . for the whole repository)",
                    f"more candidates and longer runs; still at most {budget} mutants per run (--budget)",
                    recommended=False),
    )


def question_text(choices: tuple[ScopeOption, ...]) -> str:
    lines = ["Which scope should Elenchus evaluate?"]
    for number, option in enumerate(choices, start=1):
        tag = " (Recommended)" if option.recommended else ""
        lines.append(f"  {number}. {option.label}{tag}: {option.detail}. Expected cost: {option.cost}.")
    lines.append("Answer with --scope current-change|changed-tests|target (and --target PATH for a target).")
    return "\n".join(lines)


#: Where a scope set in the project's settings comes from, as the narration and the report name it.
FROM_FILE = "[tool.elenchus] in pyproject.toml"


def resolve_scope(scope: str | None, target: str | None, change: ChangeSet, budget: int, interactive: bool,
                  ask: Callable[[str, str], str], echo: Callable[[str], None],
                  from_file: bool = False) -> ScopeAnswer:
    """The user's answer: from ``--scope`` (or, ``from_file``, the project's settings), from the terminal,
    or a stop with exit 3."""
    choices = options(change, budget)
    recommended = ("Recommended: it covers both the existing protection around the changed code "
                   "and what the test changes add or remove.")
    if target and scope not in (None, "target"):
        raise InputGuardError("target", f"--target only applies to --scope target, not --scope {scope}")
    if scope is not None:
        if scope not in SCOPES:
            raise InputGuardError("scope", f"expected one of {', '.join(SCOPES)}, got {scope!r}")
        if scope == "target" and not target:
            raise InputGuardError("target", "--scope target needs --target PATH (use . for the whole repository)")
        chosen = f"Taken from {FROM_FILE} (scope = \"{scope}\")." if from_file else "Chosen with --scope."
        return ScopeAnswer(scope, target if scope == "target" else None,
                           chosen + ("" if scope != "current-change" else f" {recommended}"), False)
    if not interactive:
        echo(question_text(choices))
        raise DecisionNeeded("the evaluation scope must be chosen before any mutant is generated; "
                             "rerun with --scope (non-interactive runs cannot be asked)")
    echo(question_text(choices))
    while True:
        answer = ask("Choose 1-3", "1").strip()
        if answer in ("1", "2", "3"):
            break
        echo(f"Please answer 1, 2 or 3 (got {answer!r}).")
    option = choices[int(answer) - 1].key
    if option == "target" and not target:
        target = ask("Which module or path? (. for the whole repository)", ".").strip() or "."
    return ScopeAnswer(option, target if option == "target" else None,
                       "Chosen at the prompt." + (f" {recommended}" if option == "current-change" else ""), True)
