"""What the sandbox costs per run: the demo evaluated with and without isolation, in turns.

Each round evaluates the bundled demo project twice with `--fresh` (nothing reused), once
with `--isolation none` and once with `--isolation bubblewrap` (the order alternates), and
reads every mutant run's measured duration from `runs.jsonl` (the run's wall time around
the test process, sandbox set-up included). The cost is the ratio of the median run times.

    python benchmarks/sandbox_cost.py [--rounds 5] [--budget 8] [--out FILE]  (default: benchmarks/results/sandbox_cost.json)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from elenchus import scratch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402


NAME = "sandbox_cost"


def evaluate(repo: Path, isolation: str, budget: int) -> dict:
    with tempfile.TemporaryDirectory() as runs:
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "elenchus", "evaluate", "--repo", str(repo), "--scope",
                               "current-change", "--budget", str(budget), "--jobs", "1", "--fresh",
                               "--isolation", isolation], capture_output=True, text=True,
                              env={**os.environ, "ELENCHUS_RUNS_DIR": runs})
        wall = time.monotonic() - started
        if done.returncode != 0:
            raise SystemExit(f"evaluate --isolation {isolation} failed ({done.returncode}):\n{done.stderr}")
        records = [json.loads(line) for path in Path(runs).glob("*/runs.jsonl")
                   for line in path.read_text().splitlines()]
        report = json.loads(next(Path(runs).glob("*/report.json")).read_text())
    return {"wall": wall, "runs": [r["duration"] for r in records if r.get("duration") is not None],
            "isolation": report["isolation"]["kind"],
            "verdicts": sorted((c["mutation_id"], c["assessment"]) for c in report["comparisons"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=8)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch_dir:
        repo = scratch.build("demo", Path(scratch_dir) / "demo")
        samples: dict[str, list[float]] = {"none": [], "bubblewrap": []}
        walls: dict[str, list[float]] = {"none": [], "bubblewrap": []}
        verdicts = set()
        for number in range(args.rounds):
            order = ("none", "bubblewrap") if number % 2 == 0 else ("bubblewrap", "none")
            for isolation in order:
                result = evaluate(repo, isolation, args.budget)
                if result["isolation"] != isolation:
                    raise SystemExit(f"asked for {isolation}, the report says {result['isolation']}")
                samples[isolation] += result["runs"]
                walls[isolation].append(result["wall"])
                verdicts.add(tuple(map(tuple, result["verdicts"])))
    median = {k: statistics.median(v) for k, v in samples.items()}
    summary = {
        "project": "bundled demo (elenchus evaluate --demo's repository), --scope current-change",
        "rounds": args.rounds, "budget": args.budget, "cpus": os.cpu_count(),
        "runs_measured": {k: len(v) for k, v in samples.items()},
        "median_run_seconds": {k: round(v, 4) for k, v in median.items()},
        "mean_run_seconds": {k: round(statistics.fmean(v), 4) for k, v in samples.items()},
        "median_evaluation_wall_seconds": {k: round(statistics.median(v), 3) for k, v in walls.items()},
        "sandbox_cost_per_run": round(median["bubblewrap"] / median["none"] - 1, 4),
        "identical_verdicts": len(verdicts) == 1,
    }
    summary = {"date": common.now_utc(), "machine": common.machine(), **summary}
    print(json.dumps(summary, indent=2))
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2) + "\n")
    else:
        print(f"written to {common.write_result(NAME, summary)}")


if __name__ == "__main__":
    main()
