"""The evaluation report as a mutation-testing report (Stryker's format, ``schemaVersion`` 2).

Stryker, PIT and mutmut-compatible viewers (the mutation-testing-elements web component,
Stryker Dashboard, IDE plugins) read this format; writing it lets a team look at Elenchus's
results with the tools it already has. Each mutant keeps its incident and assessment in
``description`` and its evidence in ``statusReason``, so nothing Elenchus says is lost to
the viewer's vocabulary of statuses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

SCHEMA_VERSION = "2"

# The modified (or only) cohort's result -> the format's status.
_STATUS = {
    "killed": "Killed",
    "survived": "Survived",
    "not-covered": "NoCoverage",
    # A timeout is never a behavioural kill (the report calls it inconclusive, not caught), and the
    # format's "Timeout" counts as detected: it is shown as survived, its reason saying it timed out.
    "timeout": "Survived",
    "caught-at-import": "RuntimeError",  # the format's word for a mutant that crashes before any test checks
    "not-comparable": "RuntimeError",
    "inconclusive": "RuntimeError",
    "not-run": "Ignored",
}

ASSESSMENT_WORDS = {
    "existing-protection": "Existing protection: the tests from before the change already catch this",
    "incremental-protection": "Incremental protection: only the new or modified tests catch this",
    "protection-regression": "Protection regression: the tests from before the change caught this, "
                             "the modified tests no longer do",
    "unprotected": "Unprotected: no test catches this",
    "caught-at-import": "Caught at import: the mutated code no longer loads, so the tests fail before any check",
    "not-comparable": "Not comparable: a cohort could not run this mutant comparably",
    "inconclusive": "Inconclusive: the runs do not show whether a test catches this",
    "blocked": "Blocked: a cohort could not be built",
}

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


def build(report: Mapping[str, Any], sources: Mapping[str, str]) -> dict[str, Any]:
    """The mutation-testing report of ``report``; ``sources``: Head text of each file named in it."""
    assessments = {c["mutation_id"]: c for c in report.get("comparisons", ())}
    files: dict[str, dict[str, Any]] = {}
    tests: dict[str, set[str]] = {}

    def file_of(path: str) -> dict[str, Any] | None:
        if path not in files:
            if path not in sources:
                return None
            files[path] = {"language": "python", "source": sources[path], "mutants": []}
        return files[path]

    for mutation in report.get("mutations", ()):
        entry = file_of(mutation["location"]["path"])
        if entry is None:
            continue
        comparison = assessments.get(mutation["id"])
        killers = _killers(mutation, comparison)
        for test in killers:
            tests.setdefault(test.partition("::")[0], set()).add(test)
        mutant = _mutant(mutation["id"], mutation, entry["source"])
        mutant["status"] = _STATUS.get(mutation["result"], "RuntimeError")
        mutant["statusReason"] = _status_reason(mutation, comparison, killers)
        mutant["description"] = _description(mutation, comparison)
        if killers:
            mutant["killedBy"] = killers
        entry["mutants"].append(mutant)
    beyond = len(report.get("not_challenged", ()))
    for number, skipped in enumerate((*report.get("not_challenged", ()), *report.get("rejected", ())), 1):
        entry = file_of(skipped["location"]["path"])
        if entry is None:
            continue
        mutant = _mutant(skipped.get("id") or f"not-run-{number}", skipped, entry["source"])
        mutant["status"] = "Ignored"
        # (a rejected mutant with an incident ran, survived, and no input told it apart: it did run)
        ran = number > beyond and bool(skipped.get("incident"))
        mutant["statusReason"] = (f"Ran and survived, and is not counted as a gap: {skipped['reason']}"
                                  if ran else f"Not run: {skipped['reason']}")
        mutant["description"] = skipped.get("incident") or skipped.get("changed_intent") or skipped["reason"]
        entry["mutants"].append(mutant)
    _unique_ids(files)
    document: dict[str, Any] = {
        "schemaVersion": SCHEMA_VERSION,
        "thresholds": {"high": 80, "low": 60},
        "projectRoot": ".",
        "files": files,
        "testFiles": {path: ({"source": sources[path]} if path in sources else {})
                      | {"tests": [{"id": test, "name": test.partition("::")[2] or test} for test in sorted(names)]}
                      for path, names in sorted(tests.items())},
        "framework": {"name": "Elenchus", "version": str(report.get("tool", {}).get("version") or "unknown"),
                      "branding": {"homepageUrl": "https://pypi.org/project/elenchus/"}},
        "config": {"scope": report.get("scope", {}).get("option"), "budget": report.get("budget", {}).get("limit")},
    }
    return document


def _killers(mutation: Mapping[str, Any], comparison: Mapping[str, Any] | None) -> list[str]:
    if comparison is not None:
        kills = [kill["test"] for kill in comparison.get("modified", {}).get("kills", ()) or ()]
        if kills:
            return kills
    kill = mutation.get("kill")
    return [kill["test"]] if kill else []


def _status_reason(mutation: Mapping[str, Any], comparison: Mapping[str, Any] | None, killers: list[str]) -> str:
    if mutation["result"] == "killed" and killers:
        kind = (mutation.get("kill") or {}).get("kind", "a failure")
        return f"Caught by {killers[0]} ({kind})" + (f" and {len(killers) - 1} more" if len(killers) > 1 else "")
    reasons = [mutation.get("reason"), comparison.get("reason") if comparison else None]
    said = "; ".join(r for r in reasons if r) or mutation["result"]
    return f"Timed out, which is not counted as caught: {said}" if mutation["result"] == "timeout" else said


def _description(mutation: Mapping[str, Any], comparison: Mapping[str, Any] | None) -> str:
    words = ASSESSMENT_WORDS.get(comparison["assessment"], comparison["assessment"]) if comparison else None
    parts = [f"{words}." if words else None, f"Incident: {mutation['incident']}.",
             f"What would notice it: {mutation['expected_detection']}."
             if mutation.get("expected_detection") else None]
    return " ".join(p for p in parts if p)


def _mutant(mutant_id: str, entry: Mapping[str, Any], source: str) -> dict[str, Any]:
    location, replacement = span(entry.get("diff"), entry["location"], source)
    mutant: dict[str, Any] = {"id": mutant_id, "mutatorName": entry.get("family") or "unspecified",
                              "location": location}
    if replacement is not None:
        mutant["replacement"] = replacement
    return mutant


def span(diff: str | None, location: Mapping[str, Any], source: str) -> tuple[dict[str, Any], str | None]:
    """The smallest stretch of ``source`` the mutant changes and the text that replaces it.

    Derived from the mutant's diff (the lines between its first and last changed line, minus
    the text both versions share at either end); without a usable diff, the whole lines of
    ``location`` with no replacement.
    """
    lines = source.splitlines(keepends=True) or [""]
    found = _changed_block(diff) if diff else None
    if found is not None:
        first, old, new = found
        if "".join(lines[first - 1:first - 1 + len(old.splitlines())]).startswith(old):
            start, end = _word_bounds(old, new, _common_prefix(old, new))
            return ({"start": _position(old, start, first), "end": _position(old, len(old) - end, first)},
                    new[start:len(new) - end])
    first = max(1, int(location.get("line") or 1))
    last = min(len(lines), max(first, int(location.get("end_line") or first)))
    tail = lines[last - 1].rstrip("\r\n") if last - 1 < len(lines) else ""
    return {"start": {"line": first, "column": 1}, "end": {"line": last, "column": len(tail) + 1}}, None


def _changed_block(diff: str) -> tuple[int, str, str] | None:
    """First line number and old and new text of the stretch from the first to the last changed
    line of the diff's only hunk (None for zero or several hunks)."""
    hunks: list[tuple[int, list[str]]] = []
    for line in diff.splitlines(keepends=True):
        header = _HUNK.match(line)
        if header:
            hunks.append((int(header.group(1)), []))
        elif hunks and line[:1] in (" ", "-", "+"):
            hunks[-1][1].append(line)
        elif hunks and line.startswith("\\"):
            continue
    if len(hunks) != 1:
        return None
    start, body = hunks[0]
    changed = [i for i, line in enumerate(body) if line[0] in "-+"]
    if not changed:
        return None
    first = start + sum(1 for line in body[:changed[0]] if line[0] != "+")
    stretch = body[changed[0]:changed[-1] + 1]
    old = "".join(line[1:] for line in stretch if line[0] != "+")
    new = "".join(line[1:] for line in stretch if line[0] != "-")
    return first, old, new


def _word_bounds(old: str, new: str, start: int) -> tuple[int, int]:
    """The shared prefix and suffix lengths, shrunk so the changed text starts and ends at whole
    words ("value" became "None", not "valu" became "Non")."""
    end = _common_suffix(old[start:], new[start:])

    def word(text: str, at: int) -> bool:
        return 0 <= at < len(text) and (text[at].isalnum() or text[at] == "_")

    while start and word(old, start - 1) and (word(old, start) or word(new, start)):
        start -= 1
    while end and word(old, len(old) - end) and (word(old, len(old) - end - 1) or word(new, len(new) - end - 1)):
        end -= 1
    return start, end


def _common_prefix(a: str, b: str) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


def _common_suffix(a: str, b: str) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def _position(text: str, offset: int, first_line: int) -> dict[str, int]:
    before = text[:offset]
    return {"line": first_line + before.count("\n"), "column": offset - (before.rfind("\n") + 1) + 1}


def _unique_ids(files: Mapping[str, Mapping[str, Any]]) -> None:
    """Mutant ids must be unique across the report; a repeated one gets a suffix."""
    seen: dict[str, int] = {}
    for entry in files.values():
        for mutant in entry["mutants"]:
            count = seen.get(mutant["id"], 0)
            seen[mutant["id"]] = count + 1
            if count:
                mutant["id"] = f"{mutant['id']}-{count + 1}"
