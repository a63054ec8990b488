"""Cluster overhead: the same evaluation with ``--jobs 2`` on this machine and with ``--cluster`` on a Dask
scheduler and two one-thread workers on the loopback interface of this machine (so both have two runs in
flight and the same cores), one after the other.

The project is isodate 0.7.2 as in ``speed.py`` (a): ``elenchus evaluate --repo REPO --scope target
--target src/isodate/duration.py --budget B --jobs 2 --fresh`` [``--cluster tcp://127.0.0.1:PORT``]. Reported
per side: wall seconds, the phases (``speed.evaluate``), the runs and their median duration as measured
where they ran, and whether every run's verdict is the same on both sides. For the cluster side also: the
seconds from the first to the last mutant run (against the same span locally), what that costs per run
beyond the local path, and, separately, the round trip of an empty Dask task from one client thread
(``--roundtrips`` of them, median): the scheduler's own share of that per-run cost.

``benchmarks/scale_model.py`` builds a model of 1, 10 and 100 workers from these figures (``references/scale-out.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402
import speed  # noqa: E402

NAME = "cluster_overhead"


def start_cluster(root: Path, python: str, workers: int) -> tuple[str, list[subprocess.Popen]]:
    root.mkdir(parents=True, exist_ok=True)
    scheduler_file = root / "scheduler.json"
    processes = []

    def start(name: str, argv: list[str]) -> None:
        log = open(root / f"{name}.log", "wb")  # noqa: SIM115 - lives as long as the process
        processes.append(subprocess.Popen([python, "-m", *argv], stdout=log, stderr=log, start_new_session=True,
                                          env=speed.base_env()))

    start("scheduler", ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                        "--scheduler-file", str(scheduler_file)])
    deadline = time.monotonic() + 60
    while not (scheduler_file.is_file() and scheduler_file.read_text().strip().endswith("}")):
        if time.monotonic() > deadline:
            raise SystemExit("the scheduler did not start: " + (root / "scheduler.log").read_text()[-2000:])
        time.sleep(0.1)
    address = json.loads(scheduler_file.read_text())["address"]
    for index in range(workers):
        start(f"worker-{index + 1}", ["distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny",
                                      "--no-dashboard", "--name", f"w{index + 1}"])
    import distributed

    with distributed.Client(address, timeout=30, set_as_default=False) as client:
        client.wait_for_workers(workers, timeout=120)
    return address, processes


def stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def _noop() -> None:
    return None


def roundtrips(address: str, count: int) -> dict:
    """``count`` empty tasks, one at a time from one thread: what the scheduler adds to every run."""
    import distributed

    with distributed.Client(address, timeout=30, set_as_default=False) as client:
        client.submit(_noop, pure=False).result()  # the function is sent once
        seconds = []
        for _ in range(count):
            started = time.perf_counter()
            client.submit(_noop, pure=False).result()
            seconds.append(time.perf_counter() - started)
    return {"count": count, "median_seconds": round(statistics.median(seconds), 5),
            "p90_seconds": round(sorted(seconds)[int(0.9 * (count - 1))], 5)}


def verdicts(evaluation: dict) -> dict[str, str]:
    found = {}
    for record in evaluation.get("records", []):
        if record.get("execution") != "not-run":
            found[f"{record['mutant_id']}:{record['cohort']}:{record.get('selection')}:{record.get('attempt')}"] = \
                record["outcome"]
    return found


def summary(evaluation: dict) -> dict:
    keep = ("command", "exit_code", "wall_seconds", "mutants_challenged", "mutants_beyond_budget",
            "mutants_rejected", "runs", "runs_measured",
            "median_run_seconds", "mean_run_seconds", "sum_run_seconds", "phases_seconds", "run_outcomes",
            "assessments", "baseline", "isolation", "error")
    return {key: evaluation.get(key) for key in keep if key in evaluation}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, default=speed.TARGET_BUDGET)
    parser.add_argument("--roundtrips", type=int, default=200)
    parser.add_argument("--out", type=Path, default=common.RESULTS / f"{NAME}.json")
    parser.add_argument("--download-dir", type=Path, default=None)
    args = parser.parse_args()
    python = sys.executable
    tools = speed.Tools(python, None, python, [python])
    work = common.temp_root("elenchus-bench-cluster-")
    downloads = (args.download_dir or work / "downloads").resolve()
    document: dict = {"benchmark": NAME, "date": common.now_utc(), "machine": common.machine(),
                      "load_average_at_start": common.load_average(), "settings": {"budget": args.budget}}
    processes: list[subprocess.Popen] = []
    try:
        built = speed.build_isodate(work / "isodate", downloads)
        repo = Path(built["path"])
        from elenchus.execution.cluster import archive

        tree = work / "tree"  # what a cohort holds: the tracked files, without .git
        shutil.copytree(repo, tree, ignore=shutil.ignore_patterns(".git"))
        cohort_archive_bytes = len(archive(tree))
        arguments = ["--repo", str(repo), "--scope", "target", "--target", speed.ISODATE[2], "--budget",
                     str(args.budget), "--jobs", "2", "--fresh"]
        print("== on this machine, --jobs 2", flush=True)
        local = speed.evaluate(tools, arguments, work / "runs-local", work)
        print("== on a Dask scheduler and two one-thread workers on 127.0.0.1", flush=True)
        started = time.perf_counter()
        address, processes = start_cluster(work / "dask", python, 2)
        cluster_start = round(time.perf_counter() - started, 3)
        remote = speed.evaluate(tools, [*arguments, "--cluster", address], work / "runs-cluster", work)
        trips = roundtrips(address, args.roundtrips)
        here, there = verdicts(local), verdicts(remote)
        span_local = (local.get("phases_seconds") or {}).get("mutant_runs_first_start_to_last_end")
        span_cluster = (remote.get("phases_seconds") or {}).get("mutant_runs_first_start_to_last_end")
        # runs that ran: a mutant no test executes is decided without one (not-covered)
        runs = sum(n for key, n in (remote.get("run_outcomes") or {}).items() if not key.endswith(":not-covered"))
        report = json.loads((Path(remote["run_directory"]) / "report.json").read_text()) \
            if remote.get("run_directory") else {}
        document.update({
            "repository": {"project": "isodate 0.7.2", "target": speed.ISODATE[2], "sdists": built["sdists"],
                           "cohort_archive_bytes": cohort_archive_bytes},
            "local": summary(local),
            "cluster": {**summary(remote), "address": address, "workers": 2, "threads_per_worker": 1,
                        "seconds_to_start_scheduler_and_workers": cluster_start,
                        "runner": (report.get("execution") or {}).get("runner")},
            "same_verdicts": here == there and bool(here),
            "runs_compared": len(here),
            "differing_runs": sorted(k for k in here.keys() | there.keys() if here.get(k) != there.get(k)),
            "mutant_runs_span_seconds": {"local": span_local, "cluster": span_cluster},
            "overhead_per_run_seconds": common.rounded(
                2 * (span_cluster - span_local) / runs, 4) if span_local and span_cluster and runs else None,
            "overhead_per_run_note": "2 x (cluster span - local span) / runs that ran (not-covered mutants need "
                                     "none): two runs are in flight on each side",
            "empty_task_roundtrip": trips,
            "wall_ratio_cluster_to_local": speed.ratio(remote.get("wall_seconds"), local.get("wall_seconds")),
        })
    finally:
        stop(processes)
        document["load_average_at_end"] = common.load_average()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({k: document.get(k) for k in ("same_verdicts", "runs_compared", "mutant_runs_span_seconds",
                                                    "overhead_per_run_seconds", "empty_task_roundtrip",
                                                    "wall_ratio_cluster_to_local")}, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
