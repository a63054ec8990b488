"""Pairs of evaluations started at once on one repository, sharing the run and cache directories.

Every pair must exit 0 and reach the same verdicts as a single evaluation run alone first
(the reference). The first pair finds an empty cache and both of its runs write to it at once;
later pairs read it together. With `--fresh`, nothing is read from or written to the cache:
every run measures everything, so each pair runs its mutants at the same time from scratch.

    python benchmarks/concurrent_evaluations.py [--pairs 10] [--budget 4] [--fresh]
        [--out FILE]  (default: benchmarks/results/concurrent_evaluations.json)
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402


NAME = "concurrent_evaluations"


def start(repo: Path, runs: Path, budget: int, out: Path, fresh: bool = False) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "elenchus", "evaluate", "--repo", str(repo), "--scope",
                             "current-change", "--budget", str(budget), "--jobs", "1", "--json", str(out),
                             *(["--fresh"] if fresh else [])],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "ELENCHUS_RUNS_DIR": str(runs)})


def verdicts(path: Path) -> list:
    report = json.loads(path.read_text())
    return sorted([c["mutation_id"], c["assessment"]] for c in report["comparisons"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--budget", type=int, default=4)
    parser.add_argument("--fresh", action="store_true", help="measure everything in every run")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        work_dir = Path(work)
        repo = scratch.build("demo", work_dir / "demo")
        alone = start(repo, work_dir / "alone-runs", args.budget, work_dir / "alone.json")
        if alone.wait() != 0:
            raise SystemExit(f"the reference evaluation failed: {alone.stderr.read()}")
        reference = verdicts(work_dir / "alone.json")
        shared = work_dir / "runs"
        pairs = []
        started = time.monotonic()
        for number in range(args.pairs):
            outs = [work_dir / f"pair{number}-{side}.json" for side in "ab"]
            procs = [start(repo, shared, args.budget, out, args.fresh) for out in outs]
            codes = [p.wait() for p in procs]
            errors = [p.stderr.read().strip()[-400:] for p in procs]
            pairs.append({"pair": number + 1, "exit_codes": codes,
                          "identical_to_reference": [out.exists() and verdicts(out) == reference for out in outs],
                          "errors": [e for e in errors if e]})
        wall = time.monotonic() - started
    summary = {
        "project": "bundled demo, --scope current-change, one shared ELENCHUS_RUNS_DIR and cache",
        "pairs": args.pairs, "budget": args.budget, "fresh": args.fresh, "wall_seconds": round(wall, 1),
        "all_exit_0": all(code == 0 for p in pairs for code in p["exit_codes"]),
        "all_identical": all(all(p["identical_to_reference"]) for p in pairs),
        "reference_verdicts": reference, "per_pair": pairs,
    }
    summary = {"date": common.now_utc(), "machine": common.machine(), **summary}
    print(json.dumps(summary, indent=2))
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2) + "\n")
    else:
        print(f"written to {common.write_result(NAME, summary)}")


if __name__ == "__main__":
    main()
