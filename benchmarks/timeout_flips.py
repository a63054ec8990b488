"""Timeout flips under load: the same evaluation, --fresh, several times while the CPU is busy.

A mutant that is slow but finishes (the `slow-mutant` scenario: one mutant sleeps 7 s) must get
the same verdict every time, even while other processes load every core: a run that hits its
limit is run again with double the limit before it counts as a timeout. This script builds the
scenario, starts one busy loop per core, runs `elenchus evaluate --fresh` N times, and records
each mutant's verdict per run and the number of flips (mutants whose verdict was not the same
in every run).

    python benchmarks/timeout_flips.py [--runs 5] [--out benchmarks/results/timeout_flips.json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from elenchus import scratch


def _burn(stop: multiprocessing.synchronize.Event) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "timeout_flips.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="elenchus-flips-") as tmp:
        repo = scratch.build("slow-mutant", Path(tmp) / "repo")
        stop = multiprocessing.Event()
        burners = [multiprocessing.Process(target=_burn, args=(stop,)) for _ in range(os.cpu_count() or 2)]
        for burner in burners:
            burner.start()
        runs = []
        try:
            for number in range(args.runs):
                out = Path(tmp) / f"report-{number}.json"
                started = time.monotonic()
                done = subprocess.run(
                    [sys.executable, "-m", "elenchus", "evaluate", "--repo", str(repo), "--scope", "current-change",
                     "--fresh", "--json", str(out)],
                    capture_output=True, text=True, env={**os.environ, "ELENCHUS_RUNS_DIR": str(Path(tmp) / "runs")})
                report = json.loads(out.read_text()) if out.exists() else None
                runs.append({
                    "exit_code": done.returncode,
                    "wall_seconds": round(time.monotonic() - started, 1),
                    "verdicts": {m["id"]: m["result"] for m in report["mutations"]} if report else None,
                })
                print(f"run {number + 1}: exit {done.returncode}, {runs[-1]['wall_seconds']} s, "
                      f"{runs[-1]['verdicts']}", flush=True)
        finally:
            stop.set()
            for burner in burners:
                burner.join()
    seen: dict[str, set[str]] = {}
    for run in runs:
        for mutant, verdict in (run["verdicts"] or {}).items():
            seen.setdefault(mutant, set()).add(verdict)
    result = {
        "scenario": "slow-mutant",
        "busy_loops": os.cpu_count(),
        "runs": runs,
        "mutants": len(seen),
        "flips": sum(len(verdicts) > 1 for verdicts in seen.values()),
        "timeouts": sum(v == "timeout" for run in runs for v in (run["verdicts"] or {}).values()),
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"{result['mutants']} mutants, {result['flips']} flips, {result['timeouts']} timeouts -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
