"""The findings of an evaluation as SARIF 2.1.0, for code scanning (GitHub, GitLab, IDEs).

Only what a reviewer should act on becomes a result: a mutant no test catches
(``unprotected``) and one the change stopped catching (``protection-regression``), each at
the mutated lines, with the incident as the message and what would notice it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from elenchus.reporting.stryker import span

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"

RULES: dict[str, dict[str, Any]] = {
    "protection-regression": {
        "level": "error",
        "name": "ProtectionRegression",
        "short": "The change weakened the tests: a mistake they caught before now passes",
        "full": "Before the change, a test caught this mistake in the code; after it, the modified tests no "
                "longer do. Restore the check the change removed or weakened, or say why it had to go.",
    },
    "unprotected": {
        "level": "warning",
        "name": "Unprotected",
        "short": "No test catches this mistake",
        "full": "The mutated code runs through the tests' paths, or could, and every test still passes. Add a "
                "test that checks the behaviour the incident describes.",
    },
}


def build(report: Mapping[str, Any], sources: Mapping[str, str]) -> dict[str, Any]:
    """A SARIF log with one result per unprotected mutant and per protection regression."""
    mutations = {m["id"]: m for m in report.get("mutations", ())}
    results = []
    for comparison in report.get("comparisons", ()):
        rule = comparison["assessment"]
        mutation = mutations.get(comparison["mutation_id"])
        if rule not in RULES or mutation is None:
            continue
        results.append(_result(rule, mutation, comparison, sources.get(mutation["location"]["path"])))
    tool = report.get("tool", {})
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "Elenchus",
                "version": str(tool.get("version") or "unknown"),
                "informationUri": "https://pypi.org/project/elenchus/",
                "rules": [{"id": rule_id, "name": rule["name"],
                           "shortDescription": {"text": rule["short"]},
                           "fullDescription": {"text": rule["full"]},
                           "defaultConfiguration": {"level": rule["level"]}}
                          for rule_id, rule in RULES.items()],
            }},
            "originalUriBaseIds": {"SRCROOT": {"description": {"text": "The root of the evaluated repository."}}},
            "results": results,
        }],
    }


def message(mutation: Mapping[str, Any], comparison: Mapping[str, Any]) -> str:
    """The incident, what the tests did, and what would notice it (shared with CI annotations)."""
    parts = [f"{mutation['incident'].rstrip('.')}."]
    if comparison["assessment"] == "protection-regression":
        kill = (comparison.get("existing") or {}).get("kill") or {}
        caught = f" ({kill['test']})" if kill.get("test") else ""
        parts.append(f"The tests from before the change caught this{caught}; the modified tests do not.")
    else:
        parts.append("Every test passes with this mistake in the code.")
    if mutation.get("expected_detection"):
        parts.append(f"What would notice it: {mutation['expected_detection'].rstrip('.')}.")
    return " ".join(parts)


def _result(rule: str, mutation: Mapping[str, Any], comparison: Mapping[str, Any],
            source: str | None) -> dict[str, Any]:
    location = mutation["location"]
    if source is not None:
        found, _ = span(mutation.get("diff"), location, source)
        region = {"startLine": found["start"]["line"], "startColumn": found["start"]["column"],
                  "endLine": found["end"]["line"], "endColumn": found["end"]["column"]}
        if (region["endLine"], region["endColumn"]) <= (region["startLine"], region["startColumn"]):
            region = {"startLine": region["startLine"], "endLine": region["startLine"]}  # an insertion point
    else:
        region = {"startLine": int(location["line"]), "endLine": int(location.get("end_line") or location["line"])}
    return {
        "ruleId": rule,
        "level": RULES[rule]["level"],
        "message": {"text": message(mutation, comparison)},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": location["path"], "uriBaseId": "SRCROOT"},
            "region": region,
        }}],
        "partialFingerprints": {"elenchusMutant/v1": mutation["id"]},
        "properties": {"assessment": comparison["assessment"], "symbol": location.get("symbol"),
                       "family": mutation.get("family")},
    }
