import fcntl
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from elenchus.repo import fingerprint
from elenchus import scratch
from elenchus.repo.git import Repository

from tests.conftest import run_cli


def _listing(repo: Path) -> set[str]:
    """Every path in the repository, ignored files and .git included."""
    return {str(p.relative_to(repo)) for p in repo.rglob("*")}


@pytest.fixture
def evaluate(tmp_path, build_scenario):
    """Run `elenchus evaluate` on a fixture scenario; check the repository is untouched; return results."""

    def run(name: str, *args: str, env: dict | None = None):
        repo = build_scenario(name)
        before = fingerprint.take(Repository(repo))
        listing = _listing(repo)
        runs = tmp_path / "runs"
        done = run_cli("evaluate", "--repo", str(repo), *args,
                       env={"ELENCHUS_RUNS_DIR": str(runs), **(env or {})})
        assert fingerprint.compare(before, fingerprint.take(Repository(repo))) == ()
        assert _listing(repo) == listing, "a file appeared in or vanished from the repository"
        reports = sorted(runs.glob("*/report.json"))
        report = json.loads(reports[-1].read_text()) if reports else None
        return done, report, repo, runs

    return run


def by_assessment(report: dict) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for comparison in report["comparisons"]:
        found.setdefault(comparison["assessment"], []).append(comparison)
    return found


def mutation(report: dict, mutation_id: str) -> dict:
    return next(m for m in report["mutations"] if m["id"] == mutation_id)


def no_process_mentions(text: str) -> bool:
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if text in cmdline:
                return False
    return True


#: The evaluation the speed tests compare with fresh runs of every relevant test, the cluster tests with
#: a cluster's runs, and the regression tests read: the same one, shared. Where a test does not read
#: witnesses, it leaves their
#: search out (a bounded search may call a survivor likely equivalent in one run and not in another).
FAST = ("--scope", "current-change", "--budget", "8", "--jobs", "2", "--fresh", "--no-witnesses")
#: An evaluation whose mutants include endless loops: their runs time out, which is never a catch (a
#: constant of 2 s instead of 5 s: each endless loop spins for seconds, not for its whole default limit).
TIMEOUTS = ("endless-loop", "--scope", "current-change", "--budget", "30", "--jobs", "2", "--fresh", "--no-witnesses",
            "--timeout-factor", "1", "--timeout-constant", "2")
#: With ``FAST``, the reference those evaluations are compared with: a fresh interpreter per run, running
#: every relevant test.
FRESH_ALL = ("--runner", "fresh", "--test-selection", "all")


@dataclass(frozen=True)
class Evaluated:
    """One finished `elenchus evaluate` of a fixture scenario: shared, so read it and never change it."""

    returncode: int
    stdout: str
    stderr: str
    report: dict | None
    repo: Path
    runs: Path
    own: Path  # the folder ``{folder}`` named in its arguments

    @property
    def run_dir(self) -> Path:
        return self.runs / self.report["run"]["id"]


@pytest.fixture(scope="session")
def shared_evaluation(tmp_path_factory):
    """``shared_evaluation(scenario, *args)``: the evaluation of a scenario with those arguments, run once
    per test session however many tests (and xdist workers) ask for it; each checks the repository
    untouched, like ``evaluate``. The first to ask runs it under a lock; the others read what it wrote.
    It runs outside GitHub Actions whatever runs the suite (no workflow annotations on its stdout), unless
    ``github=True``. ``{folder}`` in an argument names a folder of the evaluation's own (for ``--html`` and
    the like), which exists before it runs."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared-evaluations"
    root.mkdir(exist_ok=True)

    def get(scenario: str, *args: str, github: bool = False) -> Evaluated:
        key = hashlib.sha256(json.dumps([scenario, *args, *(["github"] if github else [])]).encode()).hexdigest()[:16]
        folder = root / key
        with open(root / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (folder / "done.json").is_file():
                shutil.rmtree(folder, ignore_errors=True)  # a run that broke before it was written
                repo = scratch.build(scenario, folder / "repo")
                before = fingerprint.take(Repository(repo))
                listing = _listing(repo)
                (folder / "own").mkdir()
                done = run_cli("evaluate", "--repo", str(repo), *(a.replace("{folder}", str(folder / "own"))
                                                                   for a in args),
                               env={"ELENCHUS_RUNS_DIR": str(folder / "runs"),
                                    "GITHUB_ACTIONS": "true" if github else ""})
                assert fingerprint.compare(before, fingerprint.take(Repository(repo))) == ()
                assert _listing(repo) == listing, "a file appeared in or vanished from the repository"
                (folder / "done.json").write_text(json.dumps([done.returncode, done.stdout, done.stderr]))
        returncode, stdout, stderr = json.loads((folder / "done.json").read_text())
        reports = sorted((folder / "runs").glob("*/report.json"))
        report = json.loads(reports[-1].read_text()) if reports else None
        return Evaluated(returncode, stdout, stderr, report, folder / "repo", folder / "runs", folder / "own")

    return get
