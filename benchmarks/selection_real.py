"""Per-test selection and collected sessions on real release pairs: same verdicts, and how much faster.

For every two-commit repository under ``--repos`` (commit 1 = release N of a PyPI project,
HEAD = release N+1) the script runs, one after the other, each with a fresh
``ELENCHUS_RUNS_DIR`` and ``--fresh``:

    elenchus evaluate --repo R --scope current-change --budget B --jobs 2 --fresh --json F
    elenchus evaluate ... --runner fresh --test-selection all     (--against all+fresh, the default)
    elenchus evaluate ... --runner warm                           (--against selection+warm)

and records the wall seconds of both, the median per-run duration from ``runs.jsonl``, the
count of mutant x cohort pairs decided "not covered" without a run, and, per mutant, both
cohorts' results and the assessment. A mutant whose assessment differs is listed with both
reports' reasons. "not covered" reads as "survived" when comparing results (it is one, decided
without a run). A survivor that a time-bounded witness search called likely equivalent in one
run and not the other leaves that run's comparisons; such mutants are counted apart.

Run with a Python that has the projects' test dependencies and Elenchus importable:

    PYTHONPATH=. VENV/bin/python benchmarks/selection_real.py --repos DIR [--repos DIR2] \\
        [--budget 16] [--only NAME] [--out selection_real]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

#: The default configuration (per-test selection, runs forked from collected sessions) against a reference.
REFERENCES = {"all+fresh": ("--runner", "fresh", "--test-selection", "all"),
              "selection+warm": ("--runner", "warm")}
PLAIN = {"not-covered": "survived"}


def _evaluate(repo: Path, budget: int, extra: tuple[str, ...]) -> dict:
    runs = common.temp_root("selection-real-runs-")
    out = runs / "report.json"
    command = [sys.executable, "-m", "elenchus", "evaluate", "--repo", str(repo), "--scope", "current-change",
               "--budget", str(budget), "--jobs", "2", "--fresh", "--json", str(out), *extra]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "ELENCHUS_RUNS_DIR": str(runs)},
                          stdin=subprocess.DEVNULL)
    wall = time.monotonic() - started
    report = json.loads(out.read_text()) if out.is_file() else None
    durations, not_covered = [], 0
    for record_file in runs.glob("*/runs.jsonl"):
        for line in record_file.read_text().splitlines():
            record = json.loads(line)
            if record.get("outcome") == "not-covered":
                not_covered += 1
            elif record.get("duration") is not None and record.get("selection") == "relevant tests":
                durations.append(record["duration"])
    return {"exit_code": done.returncode, "wall_seconds": round(wall, 1), "report": report,
            "median_run_seconds": common.rounded(common.median(durations)), "runs": len(durations),
            "not_covered_pairs": not_covered, "stderr_tail": done.stderr[-600:] if done.returncode not in (0, 5)
            else None}


def _results(report: dict | None) -> dict[str, dict]:
    if report is None:
        return {}
    return {c["mutation_id"]: {"existing": PLAIN.get(c["existing"]["result"], c["existing"]["result"]),
                               "modified": PLAIN.get(c["modified"]["result"], c["modified"]["result"]),
                               "assessment": c["assessment"], "reason": c["reason"]}
            for c in report["comparisons"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", action="append", required=True, type=Path)
    parser.add_argument("--budget", type=int, default=16)
    parser.add_argument("--only", action="append")
    parser.add_argument("--out", default="selection_real")
    parser.add_argument("--against", choices=sorted(REFERENCES), default="all+fresh",
                        help="the reference configuration the default one is compared with")
    args = parser.parse_args()
    configurations = {"selection+collected": (), args.against: REFERENCES[args.against]}
    default, reference = configurations
    repos = sorted(p for d in args.repos for p in d.iterdir() if (p / ".git").exists())
    if args.only:
        repos = [r for r in repos if any(r.name.startswith(o) for o in args.only)]
    pairs = []
    for repo in repos:
        measured = {}
        for name, extra in configurations.items():
            print(f"{repo.name}: {name} ...", file=sys.stderr, flush=True)
            measured[name] = _evaluate(repo, args.budget, extra)
        fast, slow = (_results(measured[n]["report"]) for n in configurations)
        shared = sorted(fast.keys() & slow.keys())
        differing = [{"mutant": m, default: fast[m], reference: slow[m]} for m in shared
                     if {k: v for k, v in fast[m].items() if k != "reason"}
                     != {k: v for k, v in slow[m].items() if k != "reason"}]
        pairs.append({
            "repository": repo.name,
            "configurations": {n: {k: v for k, v in m.items() if k != "report"} for n, m in measured.items()},
            "mutants_compared": len(shared),
            "only_in_one_run": sorted(fast.keys() ^ slow.keys()),
            "assessments_differing": differing,
            "assessments": {n: _counts(measured[n]["report"]) for n in configurations},
            "speedup_wall": common.rounded(measured[reference]["wall_seconds"]
                                           / measured[default]["wall_seconds"], 2)
            if measured[default]["wall_seconds"] else None,
        })
        print(json.dumps(pairs[-1]["configurations"], indent=1), file=sys.stderr)
    document = {"benchmark": "selection_real", "measured": common.now_utc(), "machine": common.machine(),
                "budget": args.budget, "configurations": {n: list(e) for n, e in configurations.items()},
                "pairs": pairs,
                "totals": {"mutants_compared": sum(p["mutants_compared"] for p in pairs),
                           "assessments_differing": sum(len(p["assessments_differing"]) for p in pairs)}}
    path = common.write_result(args.out, document)
    print(f"wrote {path}", file=sys.stderr)


def _counts(report: dict | None) -> dict[str, int] | None:
    if report is None:
        return None
    counts: dict[str, int] = {}
    for comparison in report["comparisons"]:
        counts[comparison["assessment"]] = counts.get(comparison["assessment"], 0) + 1
    return counts


if __name__ == "__main__":
    main()
