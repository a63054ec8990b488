"""What Still At Risk holds, counted from `elenchus evaluate` JSON reports (before/after a change to Elenchus).

For each report given, prints one JSON object: the count of each mutation result, the reported gaps
(survived or not covered) and how many carry a verified witness, the "likely equivalent" and "equivalent
(proven)" claims, the mutants caught at import, and the witness search seconds per survivor (median and
maximum over the survivors that were searched: witnesses found, equivalence claims, and the gaps whose
search ended without either, from `witness_search` in reports that have it). Hand labels (is a
gap useful, is a claim truly equivalent) are not computed here: they are written down beside these counts
in `results/still_at_risk_real.md`, with how each was checked.

    python benchmarks/still_at_risk.py LABEL=REPORT.json [LABEL=REPORT.json ...]
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

_SECONDS = re.compile(r"; ([0-9.]+) s\)$")


def counts(report: dict) -> dict:
    mutations = report["mutations"]
    gaps = [m for m in mutations if m["result"] in ("survived", "not-covered")]
    witnessed = [m for m in gaps if (m.get("witness") or {}).get("call")]
    likely = [r for r in report["rejected"] if r["reason"].startswith("likely equivalent")]
    proven = [r for r in report["rejected"] if r["reason"].startswith("equivalent (proven)")]
    seconds = [m["witness"]["seconds"] for m in witnessed if m["witness"].get("seconds") is not None]
    seconds += [float(found.group(1)) for r in likely if (found := _SECONDS.search(r["reason"]))]
    seconds += [m["witness_search"]["seconds"] for m in gaps if m not in witnessed and m.get("witness_search")]
    return {
        "results": dict(sorted(Counter(m["result"] for m in mutations).items())),
        "gaps": len(gaps),
        "gaps_with_witness": len(witnessed),
        "likely_equivalent": len(likely),
        "equivalent_proven": len(proven),
        "caught_at_import": sum(m["result"] == "caught-at-import" for m in mutations),
        "not_comparable": sum(m["result"] == "not-comparable" for m in mutations),
        "witness_seconds_median": round(statistics.median(seconds), 3) if seconds else None,
        "witness_seconds_max": round(max(seconds), 3) if seconds else None,
        "gaps_without_witness": [{"line": m["location"]["line"], "incident": m["incident"],
                                  "reason": m.get("reason")} for m in gaps if m not in witnessed],
        "equivalence_claims": [{"line": r["location"]["line"], "incident": r.get("incident"),
                                "reason": r["reason"]} for r in likely + proven],
    }


def main(argv: list[str]) -> int:
    if not argv or any("=" not in arg for arg in argv):
        print(__doc__, file=sys.stderr)
        return 2
    found = {}
    for arg in argv:
        label, path = arg.split("=", 1)
        found[label] = counts(json.loads(Path(path).read_text(encoding="utf-8")))
    print(json.dumps(found, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
