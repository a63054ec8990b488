"""Survivors, witnesses and likely-equivalent mutants in a directory of `elenchus evaluate` reports.

    python benchmarks/witness_summary.py REPORTS_DIR [--out FILE.json]

For each report (one per repository, as written by ``real_pairs.py --reports-dir``): how many
mutants survived every current test (the survivors before witnesses are looked for), how many of
them came with a verified witness, how many were set aside as likely equivalent (no input told them
apart), how many stayed undecided (not searched, or their results could not be compared, and why),
and the witness search cost per survivor: the seconds recorded with each witness or each
likely-equivalent verdict (median and max).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path

_SECONDS = re.compile(r"; ([0-9.]+) s\)$")


def summarize(report: dict) -> dict:
    survivors = [m for m in report["mutations"] if m["result"] == "survived"]
    witnessed = [m for m in survivors if m.get("witness")]
    not_searched = [m for m in survivors if any(lead in (m.get("reason") or "") for lead in
                                                ("no witness was searched", "no witness was found"))]
    equivalent = [r for r in report["rejected"] if r["reason"].startswith("likely equivalent")]
    costs = [m["witness"]["seconds"] for m in witnessed if m["witness"].get("seconds") is not None]
    costs += [float(found.group(1)) for r in equivalent if (found := _SECONDS.search(r["reason"]))]
    return {
        "survivors_before_witnesses": len(survivors) + len(equivalent),
        "with_witness": len(witnessed),
        "likely_equivalent": len(equivalent),
        "not_decided": len(not_searched),
        "not_decided_reasons": sorted({re.split(r"no witness was (?:searched|found, so it stays a gap): ",
                                                 m["reason"] or "", maxsplit=1)[-1] for m in not_searched}),
        "witness_seconds_median": round(statistics.median(costs), 3) if costs else None,
        "witness_seconds_max": round(max(costs), 3) if costs else None,
        "witnessed": [{"id": m["id"], "incident": m["incident"], "call": m["witness"]["call"],
                       "original": m["witness"]["original"], "mutant": m["witness"]["mutant"]} for m in witnessed],
        "equivalent": [{"location": r["location"], "incident": r.get("incident"), "reason": r["reason"]}
                       for r in equivalent],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    reports = {path.stem: json.loads(path.read_text()) for path in sorted(args.reports.glob("*.json"))}
    table = {name: summarize(report) for name, report in reports.items() if "mutations" in report}
    text = json.dumps(table, indent=2) + "\n"
    if args.out:
        args.out.write_text(text)
    for name, row in table.items():
        print(f"{name}: {row['survivors_before_witnesses']} survivors, {row['with_witness']} with a witness, "
              f"{row['likely_equivalent']} likely equivalent, {row['not_decided']} undecided (no comparable search); "
              f"witness search "
              f"median {row['witness_seconds_median']} s, max {row['witness_seconds_max']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
