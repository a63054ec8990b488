"""A model of ``elenchus evaluate --cluster`` for a 5,000-mutant change on 1, 10 and 100 Dask workers.

Why a model: the cluster path was measured on one machine only (``cluster_overhead.json``: a scheduler and two
one-thread workers on the loopback interface). No benchmark here has 10 or 100 workers, so this script builds those
figures from what was measured (per-run seconds, the cluster path's per-run overhead, the client's own phases) and
names every figure it had to assume. ``references/scale-out.md`` explains the model and shows its table.

Every measured input is read from ``benchmarks/results/*.json`` and written out with its file and key; every
assumption is written with ``"measured": false`` and why; what is neither measured nor assumed is ``null`` and left
out of the sums. Standard library only:

    .venv/bin/python benchmarks/scale_model.py [--out PATH] [--mutants 5000] [--threads-per-worker 2]
                                               [--client-jobs 2]
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import re
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
GUARDS = HERE.parent / "elenchus" / "guards.py"
SPEED = "speed_exhaustive.json"  # the latest side-by-side speed figures (more-itertools' runs, fresh pytest times)
WORKERS = (1, 10, 100)
inputs: dict[str, dict] = {}
assumptions: dict[str, dict] = {}


def read(file: str, key: str, name: str | None = None):
    """One measured figure (``key`` dotted, list indexes as numbers), kept in ``inputs`` under ``name``."""
    value = json.loads((RESULTS / file).read_text())
    for part in key.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    inputs[name or f"{file}: {key}"] = {"value": value, "source": f"benchmarks/results/{file}: {key}"}
    return value


def assume(name: str, value, why: str):
    assumptions[name] = {"value": value, "measured": False, "why": why}
    return value


def executed(outcomes: dict) -> int:
    """Runs that really ran: a mutant no test executes is decided without one (``not-covered``)."""
    return sum(count for key, count in outcomes.items() if not key.endswith(":not-covered"))


def jobs_of(command: str) -> int:
    return int(re.search(r"--jobs (\d+)", command)[1])


def budget_cap() -> int:
    """The largest ``--budget`` of one evaluation, read from the code (a setting, not a measurement)."""
    for node in ast.parse(GUARDS.read_text()).body:
        if isinstance(node, ast.Assign) and "BUDGET_RANGE" in ast.unparse(node.targets[0]):
            return ast.literal_eval(node.value)[1][1]
    raise SystemExit(f"no BUDGET_RANGE in {GUARDS}")


def profile(file: str, at: str, local: str, counts: tuple[str, str], warmup: str, archive: str | None) -> dict:
    """The client's phases of one measured evaluation (``file``, under ``at``) and the per-run seconds of the
    same suite run on one machine (under ``local``)."""
    get = lambda key: read(file, f"{at}.{key}")  # noqa: E731
    here = lambda key: read(file, f"{local}.{key}")  # noqa: E731
    outcomes, mutants = get("run_outcomes"), get("mutants_challenged")
    runs, phase = executed(outcomes), (lambda key: get(f"phases_seconds.{key}"))
    setup, span, witness, after = (phase(k) for k in ("setup_until_scope_line", "mutant_runs_first_start_to_last_end",
                                                       "witness_search", "after_last_run_until_report"))
    beyond, rejected = (read(counts[0], f"{counts[1]}.mutants_{key}") for key in ("beyond_budget", "rejected"))
    survivors, record = get("assessments.unprotected"), get("baseline.modified.seconds")
    timeout = (get("run_seconds_by_outcome") or {}).get("timeout") if file == SPEED else None
    return {
        "runs_per_mutant": runs / mutants,
        "run_median": here("median_run_seconds"),
        "run_mean": here("sum_run_seconds") / executed(here("run_outcomes")),  # cluster_overhead.json keeps no mean
        "tail_mean": 2 * timeout["mean_seconds"] if timeout else None,  # a timed-out job runs twice in a row
        "planning_per_candidate": setup / (mutants + beyond + rejected),
        "candidates_per_mutant": 1 + rejected / (mutants + beyond),  # challenged plus rejected at the measured share
        "fixed": get("wall_seconds") - setup - span - after,  # connect, cohorts, baselines: once per evaluation
        "report_per_mutant": (after - witness) / mutants,  # after the last run: witness search, then the report
        "survivor_share": survivors / mutants,
        "recording": record,
        "witness_per_survivor": max(0.0, witness - record) * jobs_of(get("command")) / survivors,
        "cohorts": len({key.split(":")[0] for key in outcomes}),
        "warmup": read(SPEED, warmup),
        "archive_bytes": read(file, archive) if archive else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=RESULTS / "scale_model.json")
    parser.add_argument("--mutants", type=int, default=5000)
    parser.add_argument("--threads-per-worker", type=int, default=2)
    parser.add_argument("--client-jobs", type=int, default=2, help="--jobs of the client (its witness searches)")
    args = parser.parse_args()

    # The cluster path against --jobs 2, measured: what a run costs a thread beyond the run's own seconds.
    co = "cluster_overhead.json"
    in_flight = read(co, "cluster.workers") * read(co, "cluster.threads_per_worker")
    thread_seconds, beyond_run = {}, {}  # per run that ran: a thread's share of the span; that minus the run itself
    for side, width in (("cluster", in_flight), ("local", jobs_of(read(co, "local.command")))):
        runs = executed(read(co, f"{side}.run_outcomes"))
        thread_seconds[side] = width * read(co, f"{side}.phases_seconds.mutant_runs_first_start_to_last_end") / runs
        beyond_run[side] = thread_seconds[side] - read(co, f"{side}.sum_run_seconds") / runs
    # What the cluster path adds to a run against --jobs 2 (the recorded overhead_per_run_seconds is the same
    # difference divided by every record, the not-covered ones that never ran included).
    cluster_extra = thread_seconds["cluster"] - thread_seconds["local"]
    for key in ("overhead_per_run_seconds", "empty_task_roundtrip.median_seconds", "wall_ratio_cluster_to_local",
                "same_verdicts", "runs_compared", "repository.cohort_archive_bytes", "cluster.median_run_seconds",
                "local.wall_seconds"):
        read(co, key)

    sched = assume("scheduler_seconds_per_task", 0.001, "Dask's best practices (docs.dask.org/en/stable/"
                   "best-practices.html, 'Avoid Very Large Graphs'): every task costs 200 us to 1 ms; the upper "
                   "figure, used as the scheduler's throughput limit")
    upload = assume("client_upload_bytes_per_second", 125e6, "1 Gbit/s: each cohort archive is scattered from the "
                    "client to every worker once (Client.scatter(broadcast=True))")
    assume("recording_run_seconds", "baseline.modified.seconds of the profile", "a witness search starts with one "
           "run of the tests that reach the searched functions, recording calls; assumed to cost at most one "
           "baseline run (all of the modified cohort's tests, with line coverage on)")
    assume("warmup_seconds", f"{SPEED} figures.c.*.fresh_pytest_median_seconds[0]", "a worker thread's first run "
           "unpacks the archive and starts its warm interpreter and collected session; a fresh pytest that also "
           "runs every test of the files is taken as an upper bound, paid once (threads warm up side by side)")
    assume("planning_linear_in_candidates", True, "planning seconds grow with the candidates planned (challenged, "
           "beyond the budget, rejected); all 5,000 are challenged, rejected ones at the measured share")
    assume("runs_per_mutant_as_measured", True, "not-covered mutants, both cohorts, second attempts after a "
           "timeout, the regression search and confirmations: in the measured proportion")
    assume("network_latency_beyond_loopback_seconds", 0.0, "the per-run overhead was measured on 127.0.0.1")
    unmeasured = {name: {"value": None, "why": why} for name, why in {
        "client_seconds_per_result": "the client's main thread judges and records every result in turn; no "
                                     "benchmark isolates it, so the limit it sets is not modelled",
        "session_starts_per_thread": "with many threads, runs of the same test files spread over more of them, "
                                     "so more collected sessions start; only the warm-up bound above covers it",
        "more_itertools_cohort_archive_bytes": "not measured: its distribution term is left out",
        "more_itertools_recording_vs_search_split": "2 survivors were measured; the split rests on "
                                                    "recording_run_seconds: its seconds per survivor are an upper bound",
    }.items()}

    profiles = {
        "isodate": profile(co, "cluster", "local", (co, "cluster"),
                           "figures.c.a.fresh_pytest_median_seconds.0", "repository.cohort_archive_bytes"),
        "more-itertools": profile(SPEED, "figures.b.elenchus", "figures.b.elenchus", (SPEED, "figures.b.elenchus"),
                                  "figures.c.b.fresh_pytest_median_seconds.0", None),
    }

    def evaluation(p: dict, mutants: float, statistic: str, threads: int | None, client_jobs: int) -> dict:
        """Seconds of one evaluation on ``threads`` worker threads (None: this machine, --jobs ``client_jobs``)."""
        runs, run = mutants * p["runs_per_mutant"], p[f"run_{statistic}"]
        if threads is None:
            cost, width, extra, scheduler = run + beyond_run["local"], client_jobs, 0.0, 0.0
        else:
            cost, width, scheduler = run + beyond_run["local"] + cluster_extra, threads, runs * sched
            archives = p["archive_bytes"] * p["cohorts"] * threads / args.threads_per_worker / upload \
                if p["archive_bytes"] else 0.0
            extra = p["warmup"] + archives
        tail = p["tail_mean"] if statistic == "mean" and p["tail_mean"] else cost  # the last job may start last
        terms = {
            "planning": p["planning_per_candidate"] * p["candidates_per_mutant"] * mutants,
            "connect_cohorts_baselines": p["fixed"],
            "mutant_runs": max(runs * cost / width, scheduler) + tail + extra,
            "witness_search": p["recording"]
            + mutants * p["survivor_share"] * p["witness_per_survivor"] / client_jobs,
            "report": p["report_per_mutant"] * mutants,
        }
        return {**{key: round(value, 1) for key, value in terms.items()}, "total": round(sum(terms.values()), 1),
                "runs": round(runs), "threads": width, "seconds_per_run_on_a_thread": round(cost, 4),
                "scheduler_bound": scheduler > runs * cost / width}

    cap = budget_cap()
    parts = math.ceil(args.mutants / cap)
    model = {}
    for name, p in profiles.items():
        model[name] = {"derived": {key: round(value, 4) if isinstance(value, float) else value
                                   for key, value in p.items()}}
        for statistic in ("median", "mean"):
            row = {f"this machine, --jobs {args.client_jobs}": evaluation(p, args.mutants, statistic, None,
                                                                           args.client_jobs)}
            for workers in WORKERS:
                threads = workers * args.threads_per_worker
                row[f"{workers} worker(s)"] = cell = evaluation(p, args.mutants, statistic, threads, args.client_jobs)
                cell[f"total_as_{parts}_evaluations_one_after_another"] = round(
                    parts * evaluation(p, args.mutants / parts, statistic, threads, args.client_jobs)["total"], 1)
            row["witness_search_at_client_jobs"] = {
                jobs: evaluation(p, args.mutants, statistic, None, jobs)["witness_search"] for jobs in (2, 8, 32)}
            model[name][f"per-run {statistic}"] = row

    document = {
        "benchmark": "scale_model", "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "note": "Modelled, not measured: only two threads on one machine were run (cluster_overhead.json).",
        "parameters": {"mutants": args.mutants, "workers": list(WORKERS),
                       "threads_per_worker": args.threads_per_worker, "client_jobs": args.client_jobs},
        "formula": "total = planning + connect_cohorts_baselines + mutant_runs + witness_search + report; "
                   "mutant_runs = max(R x c / P, R x s) + tail + warmup + archive bytes x cohorts x workers / "
                   "upload; "
                   "R = mutants x runs per mutant; c = per-run seconds + what a run costs a thread beyond them; "
                   "P = workers x threads per worker (the client keeps one thread per worker thread); s = scheduler "
                   "seconds per task; witness_search = recording run + survivors x seconds per survivor / "
                   "client --jobs",
        "per_run_seconds_isodate": {
            "thread_seconds": {k: round(v, 4) for k, v in thread_seconds.items()},
            "beyond_the_run": {k: round(v, 4) for k, v in beyond_run.items()},
            "cluster_path_adds": round(cluster_extra, 4),
            "how": "thread seconds = threads in flight x mutant-run span / runs that ran; beyond the run = that "
                   "minus the mean run; the cluster path adds the difference of the two sides' thread seconds"},
        "budget_cap": {"value": cap, "source": "elenchus/guards.py: BUDGET_RANGE", "evaluations_needed": parts},
        "inputs": inputs, "assumptions": assumptions, "unmeasured": unmeasured, "model": model,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    for name, rows in model.items():
        for statistic in ("median", "mean"):
            totals = {k: v["total"] for k, v in rows[f"per-run {statistic}"].items() if "total" in v}
            print(f"{name}, per-run {statistic}: {totals}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
