"""Precision and recall of protection-regression claims over the fixture scenarios.

Each scenario below is a change whose weakened checks are known: `expected` names the tests
whose weakening must yield a protection regression (each was the only test of its behaviour),
and nothing else may. The script builds every scenario as a git repository, runs
`elenchus evaluate` with each listed scope, and counts, per run, the weakened tests named by a
protection regression (true positives), the expected ones not named (false negatives) and any
other test named (false positives), then writes the table.

    python benchmarks/regression_fixtures.py [--out benchmarks/results/regression_fixtures.json]
        [--python OTHER_VENV/bin/python]   # evaluate with another installed Elenchus (a before/after)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from elenchus import scratch

MEASURES = {"test_area", "test_perimeter", "test_initials", "test_words", "test_greeting", "test_double",
            "test_halve", "test_square", "test_sign", "test_clamp01"}
SCENARIOS = (
    ("weakened-checks", "current-change", MEASURES),
    ("weakened-checks", "changed-tests", MEASURES),
    ("weakened-checks-overlap", "current-change", set()),
    ("weakened-checks-overlap", "changed-tests", set()),
    ("weakened-test", "current-change", {"test_chunks_keeps_every_element_in_order",
                                         "test_chunks_rejects_a_zero_size"}),
    ("weakened-test", "changed-tests", {"test_chunks_keeps_every_element_in_order",
                                        "test_chunks_rejects_a_zero_size"}),
)


def named_tests(report: dict) -> set[str]:
    """The tests a protection regression blames: the weakened checks, else the old killing test."""
    named = set()
    for comparison in report["comparisons"]:
        if comparison["assessment"] != "protection-regression":
            continue
        checks = comparison.get("weakened_checks") or [comparison["existing"]["kill"]]
        named |= {check["test"].split("::", 1)[1].split("[", 1)[0] for check in checks}
    return named


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "regression_fixtures.json"))
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose Elenchus evaluates")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="elenchus-regressions-") as tmp:
        for number, (scenario, scope, expected) in enumerate(SCENARIOS):
            repo = scratch.build(scenario, Path(tmp) / f"{number}-{scenario}")
            out = Path(tmp) / f"{number}.json"
            started = time.monotonic()
            done = subprocess.run(
                [args.python, "-m", "elenchus", "evaluate", "--repo", str(repo), "--scope", scope,
                 "--budget", "4", "--jobs", "2", "--fresh", "--json", str(out)],
                capture_output=True, text=True, cwd=tmp,  # not this checkout: `-m elenchus` must find --python's
                env={**os.environ, "ELENCHUS_RUNS_DIR": str(Path(tmp) / "runs")})
            named = named_tests(json.loads(out.read_text())) if out.exists() else None
            row = {"scenario": scenario, "scope": scope, "exit_code": done.returncode,
                   "wall_seconds": round(time.monotonic() - started, 1), "expected": sorted(expected),
                   "named": sorted(named) if named is not None else None,
                   "true_positives": len(named & expected) if named is not None else None,
                   "false_negatives": len(expected - named) if named is not None else None,
                   "false_positives": len(named - expected) if named is not None else None}
            rows.append(row)
            print(f"{scenario} ({scope}): {row['true_positives']} found, {row['false_negatives']} missed, "
                  f"{row['false_positives']} wrongly claimed, {row['wall_seconds']} s", flush=True)
    measured = [r for r in rows if r["named"] is not None]
    tp = sum(r["true_positives"] for r in measured)
    fp = sum(r["false_positives"] for r in measured)
    fn = sum(r["false_negatives"] for r in measured)
    result = {"python": args.python, "runs": rows, "true_positives": tp, "false_positives": fp, "false_negatives": fn,
              "precision": round(tp / (tp + fp), 3) if tp + fp else None,
              "recall": round(tp / (tp + fn), 3) if tp + fn else None}
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"precision {result['precision']}, recall {result['recall']} -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
