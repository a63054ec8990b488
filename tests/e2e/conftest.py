import json
import os
from pathlib import Path

import pytest

from elenchus import fingerprint
from elenchus.git import Repository

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
