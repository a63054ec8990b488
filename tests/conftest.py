"""Shared fixtures: real git repositories built from the checked-in scenarios."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from elenchus import scratch

REAL_GIT = shutil.which("git")

# Installed pytest plugins are not needed by small tmp_path projects (hypothesis's alone costs
# ~0.6 s of start-up per run).
FAST_ENV = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
FAST_ENV.pop("PYTEST_ADDOPTS", None)


def pytest_configure(config):
    """Byte-compile Elenchus once, before any test worker starts. An editable install has no bytecode
    (pip compiles a wheel's at install), and where PYTHONDONTWRITEBYTECODE is set every process the
    tests start (each command, each sandboxed pytest run loading the recorder plugin) would compile
    Elenchus again from source: 0.4 s of CPU per command."""
    if not hasattr(config, "workerinput"):
        import compileall

        compileall.compile_dir(str(Path(scratch.__file__).parent), quiet=1)
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        # Set only where tests run (a worker, or a run without workers), after this pytest loaded its own plugins.
        os.environ.update(NO_PLUGINS)


#: Every pytest a test starts (a fixture project's suite run by Elenchus, or by the test itself) loads no
#: installed plugin: none of the fixture projects uses one, and hypothesis's and xdist's start-up alone cost
#: ~0.8 s of CPU per run (the suite took 382 s with them left out, 421 s and 427 s with them, on this 2-core
#: machine). A test about installed plugins asks for them back (``installed_plugins``).
NO_PLUGINS = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


@pytest.fixture
def installed_plugins(monkeypatch):
    """Let the pytest runs this test starts load the installed plugins (xdist, hypothesis), as a user's would."""
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``{relative path: dedented text}`` under ``root`` and return it."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def git(repo: Path, *args: str) -> str:
    """Run git as a user would (tests may write; Elenchus never does)."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    done = subprocess.run([REAL_GIT, "-c", "commit.gpgsign=false", *args], cwd=repo, env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout


def committed(repo: Path, files: dict[str, str]) -> Path:
    """A new git repository at ``repo`` on `main`, holding ``files`` in one commit (``base``)."""
    write_tree(repo, files)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


@pytest.fixture
def build_scenario(tmp_path):
    """Build a fixture scenario as a real git repository: ``build_scenario("demo")``."""

    def build(name: str) -> Path:
        return scratch.build(name, tmp_path / name)

    return build


@pytest.fixture
def git_call_log(tmp_path, monkeypatch):
    """Put a recording `git` shim first on PATH; returns a function reading the calls."""
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    log = tmp_path / "git-calls.log"
    shim = shim_dir / "git"
    shim.write_text(
        f"#!{sys.executable}\n"
        "import os, sys, json\n"
        f"open({str(log)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"os.execv({REAL_GIT!r}, [{REAL_GIT!r}] + sys.argv[1:])\n"
    )
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim_dir}{os.pathsep}{os.environ['PATH']}")

    def calls() -> list[list[str]]:
        import json

        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    return calls


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """Drive the real CLI in a subprocess."""
    return subprocess.run([sys.executable, "-m", "elenchus", *args], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


#: Test files that build the session's longest shared evaluations (the weakened-checks scenario with fresh
#: runs of every test, a Dask cluster's runs): started first, so the last tests of the session are short
#: ones and no worker is left waiting on a long one at the end.
FIRST = ("tests/e2e/test_speed.py", "tests/e2e/test_cluster.py", "tests/e2e/test_regressions.py")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: item.nodeid.split("::", 1)[0] not in FIRST)  # (a stable sort: else as collected)
