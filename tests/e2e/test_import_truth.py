"""Runs import the copy under evaluation: a src-layout project gives the same verdicts whether it
is installed editable into the evaluating environment, not installed at all, or laid out flat."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import git
from tests.e2e.conftest import FAST

pytestmark = pytest.mark.slow

BUDGET = "8"


def verdicts(report: dict) -> dict[tuple[str, str], tuple[str, str]]:
    """(symbol, incident) -> (modified result, assessment); paths differ between layouts, incidents do not."""
    assessments = {c["mutation_id"]: c["assessment"] for c in report["comparisons"]}
    return {(m["location"]["symbol"], m["incident"]): (m["result"], assessments.get(m["id"], "none"))
            for m in report["mutations"]}


def evaluate(python: str, repo: Path, runs: Path) -> tuple[subprocess.CompletedProcess, dict]:
    done = subprocess.run(
        [python, "-m", "elenchus", "evaluate", "--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD",
         "--scope", "current-change", "--budget", BUDGET, "--fresh", "--no-witnesses"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL,
        env={**os.environ, "ELENCHUS_RUNS_DIR": str(runs)})
    reports = sorted(runs.glob("*/report.json"))
    assert reports, done.stdout + done.stderr
    return done, json.loads(reports[-1].read_text())


def flat_copy(repo: Path, into: Path) -> Path:
    """The same two last commits with ``src/`` lifted to the repository root."""
    into.mkdir()
    git(into, "init", "-q", "-b", "main")
    for rev in ("HEAD~1", "HEAD"):
        tree = into.parent / f"tree-{rev.replace('~', '-')}"
        archive = subprocess.run([shutil.which("git"), "archive", rev], cwd=repo, capture_output=True,
                                 check=True).stdout
        tree.mkdir()
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        for entry in into.iterdir():
            if entry.name != ".git":
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        for entry in tree.iterdir():
            if entry.name == "src":
                for package in entry.iterdir():
                    shutil.move(str(package), into / package.name)
            else:
                shutil.move(str(entry), into / entry.name)
        (into / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
        git(into, "add", "-A")
        git(into, "commit", "-q", "-m", f"flat {rev}")
    return into


def venv_with_editable_install(repo: Path, where: Path) -> str:
    """A fresh venv that sees this environment's packages and has ``repo`` installed editable."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    venv_python = str(where / "bin" / "python")
    venv_site = subprocess.run([venv_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip()
    parent_site = sysconfig.get_paths()["purelib"]
    Path(venv_site, "parent.pth").write_text(f"import site; site.addsitedir({parent_site!r})\n")
    subprocess.run([venv_python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--no-index", "-e", str(repo)], check=True, capture_output=True)
    probe = subprocess.run([venv_python, "-c", "import batching; print(batching.__file__)"], cwd=where,
                           capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == str(repo / "src" / "batching" / "__init__.py")  # the install is real
    return venv_python


def test_src_layout_verdicts_are_the_same_installed_editable_not_installed_and_flat(build_scenario, shared_evaluation,
                                                                                   tmp_path):
    repo = build_scenario("src-layout")

    # not installed: the evaluation the speed test compares with fresh runs (Base HEAD~1, Head HEAD, as below)
    assert FAST[FAST.index("--budget") + 1] == BUDGET  # (the runs below are compared with it)
    plain = shared_evaluation("src-layout", *FAST)
    plain_report = plain.report
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert (plain_report["snapshots"]["base"]["rev"], plain_report["snapshots"]["head"]["rev"]) == ("HEAD~1", "HEAD")
    assert plain_report["baseline"]["modified"]["status"] == "green"
    assert plain_report["execution"]["source_roots"] == ["src", "."]
    expected = verdicts(plain_report)
    assert {result for result, _ in expected.values()} >= {"killed", "survived"}

    editable_python = venv_with_editable_install(repo, tmp_path / "venv")
    editable, editable_report = evaluate(editable_python, repo, tmp_path / "runs-editable")
    assert editable.returncode == 0, editable.stdout + editable.stderr
    assert verdicts(editable_report) == expected

    flat = flat_copy(repo, tmp_path / "flat")
    flat_run, flat_report = evaluate(sys.executable, flat, tmp_path / "runs-flat")
    assert flat_run.returncode == 0, flat_run.stdout + flat_run.stderr
    flat_verdicts = verdicts(flat_report)
    common = expected.keys() & flat_verdicts.keys()  # equal-risk mutants may be picked in another order
    assert len(common) >= int(BUDGET) - 2
    assert {key: flat_verdicts[key] for key in common} == {key: expected[key] for key in common}
