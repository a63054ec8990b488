"""The comparison matrix (SPEC 4.5): what each cohort did with a mutant, and what that means.

| existing | modified | assessment             |
|----------|----------|------------------------|
| killed   | killed   | existing-protection    |
| survived | killed   | incremental-protection |
| killed   | survived | protection-regression  |
| survived | survived | unprotected            |

A mutant that stops the code loading ("caught-at-import": the mutated module raises while it is imported,
or collecting the tests crashes through it) is caught by any suite that imports it, but by no check: it is
neither protection nor a risk, whatever the other cohort did.

A mutant that no test of a cohort executes ("not-covered") survives it without a run: it
reads as survived here (a change that deleted the only tests running some code lost that
protection), while the report keeps saying that nothing ran it. Anything else (an
unavailable cohort, a flaky or timed-out run) is never read as protection gained or lost.
"""

from __future__ import annotations

from dataclasses import dataclass

ASSESSMENTS = ("existing-protection", "incremental-protection", "protection-regression", "unprotected",
               "caught-at-import", "not-comparable", "inconclusive", "blocked")
_TABLE = {
    ("killed", "killed"): "existing-protection",
    ("survived", "killed"): "incremental-protection",
    ("killed", "survived"): "protection-regression",
    ("survived", "survived"): "unprotected",
}


@dataclass(frozen=True, slots=True)
class Assessment:
    assessment: str
    reason: str | None


def assess(existing: str, modified: str, existing_reason: str | None = None,
           modified_reason: str | None = None) -> Assessment:
    """Classify one mutant from its two cohort results (killed, survived, timeout, ...)."""
    existing = "survived" if existing == "not-covered" else existing
    modified = "survived" if modified == "not-covered" else modified
    if existing == "blocked" or modified == "blocked":
        return Assessment("blocked", existing_reason or modified_reason or "a cohort could not be built")
    if "caught-at-import" in (existing, modified):
        reason = modified_reason if modified == "caught-at-import" else existing_reason
        return Assessment("caught-at-import", reason or "the mutated code no longer loads")
    if "not-comparable" in (existing, modified):
        reason = existing_reason if existing == "not-comparable" else modified_reason
        return Assessment("not-comparable", reason or "a cohort could not run this mutant comparably")
    if "timeout" in (existing, modified):
        return Assessment("inconclusive", "the run timed out; a timeout is not a behavioural kill")
    if (existing, modified) in _TABLE:
        return Assessment(_TABLE[(existing, modified)], None)
    reason = existing_reason if existing == "inconclusive" else modified_reason
    return Assessment("inconclusive", reason or f"results were {existing} / {modified}")
