"""The challenged incidents as JUnit XML, for CI systems that show test results (GitLab's
``artifacts:reports:junit``, Jenkins' JUnit plugin, Azure Pipelines' test results).

One test case per incident a mutant challenged, in one suite per mutated file, its class name the
module and the function that holds the mutant. The report's assessments decide the outcome, never
a reading of its own:

- a protection regression or an unprotected mutant (what SARIF and the annotations report) is a
  ``<failure>``: the incident is the message, and the text says where it is, what the tests did,
  and the call that tells the mutant apart when one was found;
- a mutant the tests catch (existing or incremental protection) passes, naming the test;
- every other challenged mutant is ``<skipped>`` with the report's reason: caught at import (no
  check caught it, and it is no gap), inconclusive (a timeout among them: a timeout is not a
  behavioural kill, and the report does not count it as caught or as missed), not comparable,
  blocked, not run, and the likely equivalent ones (they ran and survived, but no input told them
  apart, so they are not gaps).

Candidates beyond the budget and those rejected before running are no test case: nothing
challenged them (the report counts them). ``errors`` is always 0: what JUnit calls an error, a
test that could not reach a verdict, is what Elenchus reports as unknown, and that is ``<skipped>``
with its reason. No ``time`` is written: the report measures no time per incident. And no score.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any
from xml.etree import ElementTree

FAILURES = {"protection-regression": "Protection regression", "unprotected": "Unprotected"}
PASSED = {"existing-protection": "Existing protection", "incremental-protection": "Incremental protection"}
SKIPPED = {"caught-at-import": "Caught at import", "inconclusive": "Inconclusive",
           "not-comparable": "Not comparable", "blocked": "Blocked"}
_KINDS = {"assertion": "an assertion failed", "expected-exception-not-raised": "the expected exception was not raised",
          "unexpected-exception": "it failed with an exception the mutant caused", "timeout": "timed out"}
# XML 1.0 has no way to write these characters: they are shown as Python would escape them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def build(report: Mapping[str, Any]) -> str:
    """The JUnit XML document of ``report`` (text, with its XML declaration)."""
    comparisons = {c["mutation_id"]: c for c in report.get("comparisons", ())}
    by_file: dict[str, list[ElementTree.Element]] = {}
    entries = [(m, comparisons.get(m["id"]), False) for m in report.get("mutations", ())]
    # (a rejected candidate with an incident ran and survived, and no input told it apart)
    entries += [(r, None, True) for r in report.get("rejected", ()) if r.get("incident")]
    names = Counter((_classname(e["location"]), _name(e)) for e, _, _ in entries)
    for entry, comparison, equivalent in entries:
        case = _case(entry, comparison, equivalent)
        if names[(case.get("classname"), case.get("name"))] > 1:  # the same sentence on the same line
            case.set("name", f"{case.get('name')} [{_text(entry.get('id') or entry.get('family') or '?')}]")
        by_file.setdefault(entry["location"]["path"], []).append(case)
    root = ElementTree.Element("testsuites", {"name": "Elenchus"})
    totals: Counter[str] = Counter()
    for path, cases in sorted(by_file.items()):
        counts = {"tests": len(cases), "failures": sum(1 for c in cases if c.find("failure") is not None),
                  "errors": 0, "skipped": sum(1 for c in cases if c.find("skipped") is not None)}
        suite = ElementTree.SubElement(root, "testsuite", {"name": _text(path), "file": _text(path)}
                                       | {key: str(value) for key, value in counts.items()})
        suite.extend(cases)
        totals.update(counts)
    for key in ("tests", "failures", "errors"):
        root.set(key, str(totals[key]))
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"


def _case(entry: Mapping[str, Any], comparison: Mapping[str, Any] | None,
          equivalent: bool) -> ElementTree.Element:
    location = entry["location"]
    case = ElementTree.Element("testcase", {"name": _name(entry), "classname": _classname(location)})
    where = _where(location)
    if comparison is None:  # a likely equivalent mutant, or one the modified tests never ran
        reason = entry.get("reason") or entry.get("result", "not-run").replace("-", " ")
        message = reason if equivalent or reason.lower().startswith("not run") else f"Not run: {reason}"
        _child(case, "skipped", "likely-equivalent" if equivalent else "not-run", message,
               [f"At {where}", f"Incident: {_sentence(entry['incident'])}"])
        return case
    assessment = comparison["assessment"]
    if assessment in FAILURES:
        _child(case, "failure", assessment, _sentence(entry["incident"]), _failure_lines(entry, comparison, where))
    elif assessment in PASSED:
        out = ElementTree.SubElement(case, "system-out")
        now, before = _caught(comparison["modified"]), _caught(comparison["existing"])
        caught = (f"caught by {now}, added by this change" if assessment == "incremental-protection"
                  else f"caught before and after the change by {now}" if now == before
                  else f"caught by {now}; before the change by {before}")
        out.text = _text(f"{PASSED[assessment]} at {where}: {caught}\n")
    else:
        reason = comparison.get("reason") or entry.get("reason") or assessment
        _child(case, "skipped", assessment, f"{SKIPPED.get(assessment, assessment)}: {reason}",
               [f"At {where}", f"Incident: {_sentence(entry['incident'])}",
                f"With the current tests: {_caught(comparison['modified'])}"])
    return case


def _failure_lines(mutation: Mapping[str, Any], comparison: Mapping[str, Any], where: str) -> list[str]:
    assessment = comparison["assessment"]
    lines = [f"{FAILURES[assessment]} at {where}", f"Incident: {_sentence(mutation['incident'])}"]
    if assessment == "protection-regression":
        checks = comparison.get("weakened_checks") or []
        if checks:
            lines.append("Only the tests from before the change caught it; the change removed or weakened: "
                         + "; ".join(f"{c['test']} ({c['what_changed'].rstrip('.')})" for c in checks))
        else:
            lines.append(f"Only the tests from before the change caught it: {_caught(comparison['existing'])}; "
                         "the modified tests do not.")
    elif mutation.get("result") == "not-covered":
        lines.append("No test executes this code (measured by line coverage while the tests ran without any "
                     "mutant).")
    else:
        lines.append("Every selected test passed with this mutant in place.")
    witness = mutation.get("witness")
    if witness:
        lines.append(f"What tells it apart: {witness['call']} {_behaves(witness['original'])} with the code as it "
                     f"is, and {_behaves(witness['mutant'])} with this mutant.")
        lines += ["A test that catches it (verified: passes now, fails on the mutant):", "",
                  witness["test"].rstrip("\n"), ""]
    else:
        reason = mutation.get("reason") or ""
        lead = next((lead for lead in ("no witness was searched", "no witness was found") if lead in reason), None)
        if lead:
            lines.append(f"What tells it apart: unknown ({reason[reason.index(lead):]}).")
    if mutation.get("expected_detection"):
        lines.append(f"What would notice it: {_sentence(mutation['expected_detection'])}")
    if mutation.get("changed_intent"):
        lines.append(f"Misunderstanding: {mutation['changed_intent']}")
    if mutation.get("diff"):
        lines += ["", "The mutant:", mutation["diff"].rstrip("\n")]
    return lines


def _child(case: ElementTree.Element, tag: str, kind: str, message: str, lines: list[str]) -> None:
    child = ElementTree.SubElement(case, tag, {"type": kind, "message": _text(message)})
    child.text = _text("\n".join(lines) + "\n")


def _caught(cohort: Mapping[str, Any] | None) -> str:
    kill = (cohort or {}).get("kill")
    if not kill:
        return {"survived": "no test", "not-covered": "no test (none runs this code)", "timeout": "timed out",
                "not-run": "not run"}.get((cohort or {}).get("result"), (cohort or {}).get("result") or "unknown")
    others = len([k for k in (cohort or {}).get("kills") or () if k["test"] != kill["test"]])
    return f"{kill['test']} ({_KINDS.get(kill['kind'], kill['kind'])})" + (f" and {others} more" if others else "")


def _behaves(observed: str) -> str:
    if observed.startswith("print "):  # (a call that returns the same, and prints something else)
        return f"prints {observed[len('print '):]}"
    return f"raises {observed[len('raise '):]}" if observed.startswith("raise ") else f"gives {observed}"


def _name(entry: Mapping[str, Any]) -> str:
    return _text(f"{entry['incident'].rstrip('.')} (line {entry['location']['line']})")


def _classname(location: Mapping[str, Any]) -> str:
    """``pkg.core.Cart.total``: the module, then the function (Jenkins reads the last part as the class)."""
    module = location["path"].removesuffix(".py").replace("/", ".")
    return _text(f"{module}.{location['symbol']}" if location.get("symbol") else module)


def _where(location: Mapping[str, Any]) -> str:
    symbol = f" in {location['symbol']}" if location.get("symbol") else ""
    return f"{location['path']}:{location['line']}{symbol}"


def _sentence(text: str) -> str:
    return f"{text.rstrip().rstrip('.')}."


def _text(text: str) -> str:
    return _NOT_XML.sub(lambda found: f"\\x{ord(found.group()):02x}" if ord(found.group()) < 0x100
                        else f"\\u{ord(found.group()):04x}", text)
