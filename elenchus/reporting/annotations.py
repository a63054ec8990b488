"""GitHub Actions workflow commands: one ``::warning`` per finding, shown on the diff of the pull request.

Printed on stdout only when ``GITHUB_ACTIONS=true`` (the runner sets it), after the report.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from elenchus.reporting.sarif import RULES, message

TITLES = {"protection-regression": "Protection regression", "unprotected": "Unprotected mutant"}


def wanted(environ: Mapping[str, str]) -> bool:
    return environ.get("GITHUB_ACTIONS") == "true"


def lines(report: Mapping[str, Any]) -> list[str]:
    """``::warning file=PATH,line=N,endLine=M,title=T::MESSAGE`` for each protection regression
    and unprotected mutant, in report order."""
    mutations = {m["id"]: m for m in report.get("mutations", ())}
    found = []
    for comparison in report.get("comparisons", ()):
        mutation = mutations.get(comparison["mutation_id"])
        if comparison["assessment"] not in RULES or mutation is None:
            continue
        location = mutation["location"]
        symbol = location.get("symbol")
        title = TITLES[comparison["assessment"]] + (f" in {symbol}" if symbol else "")
        properties = (f"file={_property(location['path'])},line={int(location['line'])},"
                      f"endLine={int(location.get('end_line') or location['line'])},title={_property(title)}")
        found.append(f"::warning {properties}::{_data(message(mutation, comparison))}")
    return found


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
