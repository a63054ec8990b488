"""Write the reports for other tools beside ``report.json``, and copies where the user asked.

Each document is checked against its format's official schema first: a file another tool
would reject is not written (the run says so) rather than left to fail there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from elenchus.records import ResultCache
from elenchus.reporting import annotations, html, junit, sarif, stryker

STRYKER_FILE = "mutation-testing-report.json"
HTML_FILE = "report.html"
SARIF_FILE = "report.sarif"
JUNIT_FILE = "report.junit.xml"


def write(report: Mapping[str, Any], sources: Mapping[str, str], directory: Path,
          copies: Mapping[str, str | None], echo: Callable[[str], None], emit: Callable[[str], None],
          environ: Mapping[str, str] = os.environ, checked: bool = False,
          store: ResultCache | None = None) -> dict[str, Path]:
    """The four files in ``directory``; ``copies``: ``{"html": PATH, "sarif": PATH, "junit": PATH}`` (None: no
    copy).

    Under GitHub Actions the findings are also printed as workflow annotations (``emit``).
    ``checked``: documents built from this report passed their schemas before (a reused evaluation).
    ``store``: where the verdict on a document is remembered, so the same text is not checked twice (a push
    that changes nothing the runs depended on builds the same documents).
    """
    if not checked:
        # jsonschema loads its metaschemas: only when checking
        from elenchus.schemas import external_problem, external_schema_digest

    written: dict[str, Path] = {}
    mutation_report = stryker.build(report, sources)
    sarif_log = sarif.build(report, sources)
    junit_xml = junit.build(report)
    documents = {
        "mutation-testing-report": (STRYKER_FILE, json.dumps(mutation_report, indent=2) + "\n", mutation_report),
        "sarif": (SARIF_FILE, json.dumps(sarif_log, indent=2) + "\n", sarif_log),
        "junit": (JUNIT_FILE, junit_xml, junit_xml),  # (an XML format: checked as text)
    }
    for name, (file, text, document) in documents.items():
        if checked:
            problem = None
        elif store is not None:
            problem = store.memo("valid document", [name, external_schema_digest(name), text],
                                 lambda: external_problem(name, document), lambda found: found, _problem)
        else:
            problem = external_problem(name, document)
        if problem is not None:
            echo(f"Not written: {file} would not be a valid {name} document ({problem}). This is a defect in "
                 "Elenchus; the JSON and Markdown reports are complete. Please report it with report.json.")
            continue
        written[name] = _write_text(directory / file, text)
    if "mutation-testing-report" in written:
        written["html"] = _write_text(directory / HTML_FILE, html.render(mutation_report, report))
    for name, label in (("html", "HTML"), ("sarif", "SARIF"), ("junit", "JUnit")):
        target = copies.get(name)
        if target and name in written:
            _write_text(Path(target), written[name].read_text(encoding="utf-8"))
            echo(f"{label} copy written to {target}")
    if annotations.wanted(environ):
        for line in annotations.lines(report):
            emit(line)
    return written


def _problem(stored: object) -> str | None:
    """A remembered verdict on a document: None (valid) or the problem found."""
    if stored is not None and not isinstance(stored, str):
        raise TypeError(f"not a document's verdict: {stored!r}")
    return stored


def _write_text(target: Path, text: str) -> Path:
    partial = target.with_name(f".{target.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, target)
    return target
