"""Mutant runs on a Dask cluster: a real scheduler and real workers, each its own process on the loopback
interface, give the verdicts of a local run; a worker killed mid-run changes none of them; a worker whose
installed packages differ stops the evaluation before anything runs on the cluster."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.e2e.conftest import FAST, FRESH_ALL

distributed = pytest.importorskip("distributed")


class LocalCluster:
    """``dask scheduler`` and ``dask worker`` processes on 127.0.0.1, as a user would start them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.processes: dict[str, subprocess.Popen] = {}
        self.logs: list = []
        self.file = root / "scheduler.json"
        self._start("scheduler", ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(self.file)])
        deadline = time.monotonic() + 60
        while not (self.file.is_file() and self.file.read_text().strip().endswith("}")):
            assert time.monotonic() < deadline, (root / "scheduler.log").read_text()
            time.sleep(0.1)
        self.address = json.loads(self.file.read_text())["address"]

    def _start(self, name: str, argv: list[str], env: dict | None = None) -> None:
        log = open(self.root / f"{name}.log", "wb")  # noqa: SIM115 - closed in stop()
        self.logs.append(log)
        # A worker takes a session directory in TMPDIR and is killed, never stopped: what it leaves stays
        # here, not in the TMPDIR other tests' commands sweep (and say so on their stderr).
        temp = self.root / "tmp"
        temp.mkdir(exist_ok=True)
        self.processes[name] = subprocess.Popen([sys.executable, "-m", *argv], stdout=log, stderr=log,
                                                env={**(env or os.environ), "TMPDIR": str(temp)},
                                                start_new_session=True)

    def add_worker(self, name: str, env: dict | None = None) -> None:
        self._start(name, ["distributed.cli.dask_worker", self.address, "--nthreads", "1", "--no-nanny",
                           "--no-dashboard", "--name", name], env)

    def wait_for(self, count: int) -> None:
        with distributed.Client(self.address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(count, timeout=60)

    def kill(self, name: str) -> None:
        os.killpg(self.processes[name].pid, signal.SIGKILL)
        self.processes[name].wait(timeout=30)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)
        for log in self.logs:
            log.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and two one-thread workers, shared by the tests that leave them running."""
    local = LocalCluster(tmp_path_factory.mktemp("dask"))
    try:
        local.add_worker("w1")
        local.add_worker("w2")
        local.wait_for(2)
        yield local
    finally:
        local.stop()


def _evaluate(repo: Path, runs: Path, *args: str, wait: bool = True):
    argv = [sys.executable, "-m", "elenchus", "evaluate", "--repo", str(repo), *FAST, *args]
    env = dict(os.environ, ELENCHUS_RUNS_DIR=str(runs))
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    return _finish(process, runs) if wait else process


def _finish(process: subprocess.Popen, runs: Path):
    stdout, stderr = process.communicate(timeout=600)
    assert process.returncode in (0, 5), stderr
    return stderr, json.loads(next(runs.glob("*/report.json")).read_text())


def _mutant_runs(runs: Path) -> list[dict]:
    lines = next(runs.glob("*/runs.jsonl")).read_text().splitlines()
    return [record for record in map(json.loads, lines) if record.get("execution") != "not-run"]


def _verdicts(runs: Path) -> dict[tuple, tuple]:
    """Every mutant x cohort run's verdict; with every test that caught it where all of them ran (the
    modified cohort stops at the first, and which one comes first follows each baseline's timings)."""
    found = {}
    for r in _mutant_runs(runs):
        kills = tuple(sorted(nodeid for nodeid, _ in r["kills"])) if r["cohort"] == "existing" else ()
        found[(r["mutant_id"], r["cohort"], r["selection"], r["attempt"])] = (r["outcome"], kills)
    return found


def _assessments(report: dict) -> dict[str, str]:
    return {c["mutation_id"]: c["assessment"] for c in report["comparisons"]}


def _same_report(here: dict, there: dict, runs_here: Path, runs_there: Path) -> None:
    assert _verdicts(runs_there) == _verdicts(runs_here) and _verdicts(runs_here)
    # (No witness search, which is bounded in time: no survivor leaves the comparisons in one run only.)
    a, b = _assessments(here), _assessments(there)
    assert a.keys() == b.keys() and a
    assert a == b


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["demo", "weakened-checks", "module-level"])
def test_cluster_runs_give_the_verdicts_of_a_local_run(cluster, build_scenario, shared_evaluation, tmp_path,
                                                      scenario):
    here = shared_evaluation(scenario, *FAST)  # the local run the speed tests compare with fresh runs too
    assert here.returncode in (0, 5), here.stderr
    narration, there = _evaluate(build_scenario(scenario), tmp_path / "there", "--cluster", cluster.address)
    assert f"Cluster: connecting to the Dask scheduler at {cluster.address}" in narration
    runner = there["execution"]["runner"]
    assert f"on the Dask cluster at {cluster.address}" in runner and "on this machine" not in runner, runner
    _same_report(here.report, there, here.runs, tmp_path / "there")


@pytest.mark.slow
def test_a_worker_killed_mid_run_changes_no_verdict_and_its_run_is_counted_once(build_scenario, shared_evaluation,
                                                                               tmp_path):
    repo = build_scenario("demo")
    # A fresh interpreter per run of every relevant test keeps each run on a worker long enough to be caught
    # in flight; the local run is the one the speed test compares with the default runs.
    local_run = shared_evaluation("demo", *FAST, *FRESH_ALL)
    assert local_run.returncode in (0, 5), local_run.stderr
    here = local_run.report
    local = LocalCluster(tmp_path / "dask")
    try:
        local.add_worker("w1")
        local.add_worker("w2")
        local.wait_for(2)
        process = _evaluate(repo, tmp_path / "there", *FRESH_ALL, "--cluster", local.address, wait=False)
        victim = None
        with distributed.Client(local.address, timeout=30, set_as_default=False) as watcher:
            deadline = time.monotonic() + 300
            while victim is None and time.monotonic() < deadline and process.poll() is None:
                busy = {address for address, keys in watcher.processing().items()
                        if any(str(key).startswith("elenchus-run-") for key in keys)}
                names = {info["name"]: address for address, info in watcher.scheduler_info()["workers"].items()}
                victim = next((name for name, address in sorted(names.items()) if address in busy), None)
                if victim is None:
                    time.sleep(0.05)
            assert victim is not None, "no run was ever seen in flight on a worker"
            local.kill(victim)  # while it runs a mutant: the scheduler must give that run to the other worker
        stderr, there = _finish(process, tmp_path / "there")
    finally:
        local.stop()
    _same_report(here, there, local_run.runs, tmp_path / "there")
    runner = there["execution"]["runner"]
    assert "on the Dask cluster" in runner and "on this machine" not in runner, runner
    counted = [(r["mutant_id"], r["cohort"], r["attempt"]) for r in _mutant_runs(tmp_path / "there")]
    assert len(counted) == len(set(counted)) == len(_mutant_runs(local_run.runs))  # no run counted twice


def test_a_worker_with_other_installed_packages_stops_the_evaluation_before_any_run(build_scenario, tmp_path):
    extra = tmp_path / "site"
    info = extra / "elenchus_cluster_probe-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: elenchus-cluster-probe\nVersion: 1.0\n")
    local = LocalCluster(tmp_path / "dask")
    try:
        local.add_worker("odd", env=dict(os.environ, PYTHONPATH=str(extra)))
        local.wait_for(1)
        runs = tmp_path / "runs"
        done = run_cli("evaluate", "--repo", str(build_scenario("demo")), "--scope", "current-change",
                       "--cluster", local.address, env={"ELENCHUS_RUNS_DIR": str(runs)})
    finally:
        local.stop()
    assert done.returncode == 4, done.stderr
    assert "would not run the tests as this machine does" in done.stderr
    assert "installed there only: elenchus-cluster-probe==1.0" in done.stderr
    assert "Baseline" not in done.stderr and not list(runs.glob("*/runs.jsonl"))  # nothing ran, nothing kept


def test_an_unreachable_scheduler_or_a_malformed_address_stops_before_any_run(build_scenario, tmp_path):
    repo = build_scenario("demo")
    runs = tmp_path / "runs"
    refused = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--cluster", "tcp://127.0.0.1:1",
                      env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert refused.returncode == 4, refused.stderr
    assert "could not reach the Dask scheduler at tcp://127.0.0.1:1" in refused.stderr
    assert "dask scheduler" in refused.stderr and not runs.exists()
    malformed = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--cluster", "127.0.0.1:8786",
                        env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert malformed.returncode == 2 and "input guard 'cluster' fired" in malformed.stderr
    assert "tcp://127.0.0.1:8786" in malformed.stderr and not runs.exists()


def test_a_cluster_named_only_by_the_change_under_review_is_refused_before_anything_is_sent(build_scenario, tmp_path):
    repo = build_scenario("demo")
    pyproject = repo / "pyproject.toml"
    text = pyproject.read_text() if pyproject.is_file() else ""
    pyproject.write_text(text + '\n[tool.elenchus]\ncluster = "tcp://127.0.0.1:1"\n')  # uncommitted: Head only
    runs = tmp_path / "runs"
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", env={"ELENCHUS_RUNS_DIR": str(runs)})
    assert done.returncode == 4, done.stderr
    assert "the change under review sets [tool.elenchus] cluster" in done.stderr
    assert "pass --cluster on the command line" in done.stderr and "Cluster: connecting" not in done.stderr
    assert not runs.exists()
