"""Verdict transitions between two sets of `elenchus evaluate` reports of the same repositories.

    python benchmarks/compare_reports.py BEFORE_DIR AFTER_DIR [--out FILE.json]

Each directory holds one report per repository (``NAME.json``, as written by
``real_pairs.py --reports-dir``). Mutants are matched by id (ids are stable for the same
site and edit), so the counts say, per repository, how each mutant that both runs challenged
moved (for example ``inconclusive -> killed``), how many mutants only one run made, how many
comparison assessments moved, and how many killed mutants were named as caught by another test
(which test is named first can differ between two runs of the same code: the order of the
likeliest killers follows the kills already seen and the baseline's test times).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path


def _results(report: dict) -> dict[str, str]:
    return {m["id"]: m["result"] for m in report["mutations"]}


def _assessments(report: dict) -> dict[str, str]:
    return {c["mutation_id"]: c["assessment"] for c in report.get("comparisons", [])}


def _killers(report: dict) -> dict[str, str | None]:
    return {m["id"]: (m.get("kill") or {}).get("test") for m in report["mutations"] if m["result"] == "killed"}


def compare(before: dict, after: dict) -> dict:
    old, new = _results(before), _results(after)
    common = old.keys() & new.keys()
    moves = Counter(f"{old[i]} -> {new[i]}" for i in common if old[i] != new[i])
    was, now = _assessments(before), _assessments(after)
    assessed = was.keys() & now.keys()
    killed_before, killed_after = _killers(before), _killers(after)
    killed = killed_before.keys() & killed_after.keys()
    return {
        "common_mutants": len(common),
        "unchanged": sum(old[i] == new[i] for i in common),
        "transitions": dict(sorted(moves.items())),
        "only_before": len(old.keys() - new.keys()),
        "only_after": len(new.keys() - old.keys()),
        "results_before": dict(Counter(old.values())),
        "results_after": dict(Counter(new.values())),
        "assessments_compared": len(assessed),
        "assessment_transitions": dict(sorted(Counter(
            f"{was[i]} -> {now[i]}" for i in assessed if was[i] != now[i]).items())),
        "killed_both": len(killed),
        "killed_named_by_another_test": sum(killed_before[i] != killed_after[i] for i in killed),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    table = {}
    for path in sorted(args.after.glob("*.json")):
        previous = args.before / path.name
        if previous.is_file():
            table[path.stem] = compare(json.loads(previous.read_text()), json.loads(path.read_text()))
    text = json.dumps(table, indent=2) + "\n"
    if args.out:
        args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
