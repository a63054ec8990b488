"""A hostile test suite against the sandbox: every attack is contained or reported.

Each test gives a real pytest run (through ``run_pytest`` or the real CLI) a test file that
attacks the machine: it writes into the user's repository by absolute path, reads secrets,
leaves processes behind, reaches a listener on the host's loopback. The sandbox must
contain each attack; where it cannot (no isolation), the post-flight must report it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from elenchus.execution import sandbox
from elenchus.execution.run import Execution, TestOutcome, run_pytest

from tests.conftest import FAST_ENV, git, run_cli, write_tree

BUBBLEWRAP = sandbox.detect("bubblewrap")
UNSHARE = sandbox.detect("unshare")
pytestmark = pytest.mark.skipif(not BUBBLEWRAP.isolated,
                                reason=f"no sandbox on this machine: {BUBBLEWRAP.reason}")
#: The attacks every kind of sandbox must contain (unshare only where it works here).
KINDS = [sandbox.BUBBLEWRAP, pytest.param(sandbox.UNSHARE, marks=pytest.mark.skipif(
    not UNSHARE.isolated, reason=f"unshare namespaces are not usable here: {UNSHARE.reason}"))]


@pytest.fixture
def outside(tmp_path):
    """A directory outside /tmp and HOME, visible only if the sandbox leaks (like a user's checkout)."""
    root = Path(tempfile.mkdtemp(prefix="elenchus-hostile-", dir="/var/tmp"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _workspace(tmp_path: Path, test_source: str) -> Path:
    return write_tree(tmp_path / "ws", {"tests/test_attack.py": test_source})


def _run(workspace: Path, hidden: list[Path], timeout: float = 60.0, kind: str = sandbox.BUBBLEWRAP,
         limits: sandbox.Limits | None = None):
    with sandbox.using(sandbox.detect(kind, hidden=hidden, limits=limits)):
        return run_pytest(workspace, ["tests/test_attack.py"], timeout, env=FAST_ENV)


def _marker_processes(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_writes_by_absolute_path_never_reach_the_repository(kind, tmp_path, outside):
    repo = write_tree(outside / "repo", {"mod.py": "X = 1\n", ".gitignore": "build/\n", "build/out.txt": "old\n"})
    (repo / ".git" / "hooks").mkdir(parents=True)
    (repo / ".git" / "config").write_text("[core]\n")
    targets = [repo / "mod.py", repo / ".git" / "hooks" / "pre-commit", repo / ".git" / "config",
               repo / "build" / "out.txt", Path.home() / f"elenchus-hostile-{uuid.uuid4().hex}"]
    workspace = _workspace(tmp_path, f"""
        import os
        def test_attack():
            for target in {[str(t) for t in targets]!r}:
                try:
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    with open(target, "w") as handle:
                        handle.write("pwned")
                except OSError:
                    pass
            target = "{repo}" + "/mod.py"
            os.system(f"rm -rf {{target}}")
            os.system("rm -rf " + target)
            getattr(os, "re" + "move")(target) if os.path.exists(target) else None
            import pathlib, shutil
            pathlib.Path(target).unlink(missing_ok=True)
            shutil.rmtree("{repo}", ignore_errors=True)
    """)
    before = {t: t.read_text() if t.exists() else None for t in targets}
    result = _run(workspace, [repo], kind=kind)
    assert result.execution is Execution.COMPLETED, result.stderr_tail
    assert [r.outcome for r in result.records] == [TestOutcome.PASSED]
    assert {t: t.read_text() if t.exists() else None for t in targets} == before


@pytest.mark.parametrize("kind", KINDS)
def test_secrets_are_out_of_reach(kind, tmp_path, outside, monkeypatch):
    repo = write_tree(outside / "repo", {".env": "API_TOKEN=hunter2-env\n", "id_rsa": "hunter2-key\n"})
    monkeypatch.setenv("DEPLOY_TOKEN", "hunter2-variable")
    workspace = _workspace(tmp_path, f"""
        import os
        def read(path):
            try:
                with open(path, errors="replace") as handle:
                    return handle.read()
            except OSError:
                return ""
        def test_attack():
            seen = read({str(repo / '.env')!r}) + read({str(repo / 'id_rsa')!r})
            seen += os.environ.get("DEPLOY_TOKEN", "")
            for pid in (os.getppid(), 1):
                seen += read(f"/proc/{{pid}}/environ")
            print("SEEN:" + seen.replace(chr(0), " "))
            assert "hunter2" not in seen
    """)
    result = _run(workspace, [repo], kind=kind)
    assert result.execution is Execution.COMPLETED, result.stderr_tail
    assert [r.outcome for r in result.records] == [TestOutcome.PASSED], result.stdout_tail


@pytest.mark.parametrize("kind", KINDS)
def test_no_process_a_warm_run_can_see_holds_a_secret_of_the_callers_environment(kind, tmp_path, monkeypatch):
    from elenchus.execution.cohorts import Cohort
    from elenchus.execution.executor import RunRequest, WarmRunner
    from elenchus.execution.workspace import tree_digest

    monkeypatch.setenv("DEPLOY_TOKEN", "hunter2-variable")
    template = write_tree(tmp_path / "template", {"pkg/__init__.py": "", "tests/test_attack.py": """
        import os
        def test_attack():
            seen = ""
            for entry in os.listdir("/proc"):  # the sandbox's init, the warm worker, this run
                if entry.isdigit():
                    try:
                        with open(f"/proc/{entry}/environ", errors="replace") as handle:
                            seen += handle.read()
                    except OSError:
                        pass
            assert "hunter2" not in seen, seen.replace(chr(0), " ")
    """})
    cohort = Cohort("modified", template, ("tests/test_attack.py",), tree_digest(template))
    with sandbox.using(sandbox.detect(kind)):
        warm = WarmRunner(tmp_path / "scratch", 1, [], ["pkg"])
        try:
            result = warm.run(RunRequest(cohort, cohort.tests, 60))
        finally:
            warm.close()
    assert result.executor == "warm" and result.execution is Execution.COMPLETED, result.stderr_tail
    assert [r.outcome for r in result.records] == [TestOutcome.PASSED], result.stdout_tail


def test_results_measured_with_the_network_are_measured_again_without_it(tmp_path):
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)  # a service the suite needs, on this machine's loopback
    try:
        repo = write_tree(tmp_path / "repo", {"calc.py": "def add(a, b):\n    return a + b\n"})
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        write_tree(repo, {"tests/test_calc.py": f"""
            import socket
            from calc import add
            def test_add():
                socket.create_connection(("127.0.0.1", {server.getsockname()[1]}), timeout=5).close()
                assert add(2, 3) == 5
        """})
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "head")
        env = {"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")}  # (and its result store beside them)
        command = ("evaluate", "--repo", str(repo), "--scope", "current-change", "--no-witnesses")
        first = run_cli(*command, "--allow-network", env=env)
        assert first.returncode == 0, first.stdout + first.stderr
        assert "Baseline, modified: green" in first.stderr
        second = run_cli(*command, env=env)  # the same, without the network: its green is not this one's
    finally:
        server.close()
    assert second.returncode == 4, second.stdout + second.stderr
    assert "Baseline, modified: baseline-red" in second.stderr and "reused" not in second.stderr, second.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_the_host_loopback_is_unreachable(kind, tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    workspace = _workspace(tmp_path, f"""
        import socket
        import pytest
        def test_attack():
            with pytest.raises(OSError):
                socket.create_connection(("127.0.0.1", {port}), timeout=2)
    """)
    try:
        result = _run(workspace, [], kind=kind)
    finally:
        listener.close()
    assert [r.outcome for r in result.records] == [TestOutcome.PASSED], result.stdout_tail


@pytest.mark.parametrize("kind", KINDS)
def test_processes_started_in_a_new_session_end_with_the_run(kind, tmp_path):
    marker = f"elenchus-orphan-{uuid.uuid4().hex}"
    workspace = _workspace(tmp_path, f"""
        import subprocess, sys
        def test_attack():
            for _ in range(5):
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", {marker!r}],
                                 start_new_session=True)
    """)
    result = _run(workspace, [], kind=kind)
    assert [r.outcome for r in result.records] == [TestOutcome.PASSED], result.stdout_tail
    deadline = time.monotonic() + 1.0
    while _marker_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _marker_processes(marker) == []


def test_limits_stop_a_test_that_fills_the_disk_or_the_memory(tmp_path):
    workspace = _workspace(tmp_path, """
        import pytest

        def test_attack():
            with pytest.raises(OSError):  # the file-size limit: EFBIG (Python ignores SIGXFSZ)
                with open("big.bin", "wb") as handle:
                    handle.write(b"x" * (3 * 1024 * 1024))
            with pytest.raises(MemoryError):
                bytearray(1024 * 1024 * 1024)
    """)
    result = _run(workspace, [], limits=sandbox.Limits(memory_mb=512, processes=1024, file_size_mb=2))
    assert [r.outcome for r in result.records] == [TestOutcome.PASSED], result.stdout_tail


def test_killing_elenchus_ends_every_test_process(tmp_path):
    """SIGKILL of Elenchus mid-run: a looping test and its 20 children die within a second or two."""
    marker = f"elenchus-loop-{uuid.uuid4().hex}"
    repo = write_tree(tmp_path / "repo", {
        "calc.py": "def add(a, b):\n    return a + b\n",
        "tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    })
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    write_tree(repo, {"tests/test_loop.py": f"""
        import subprocess, sys, time
        from calc import add
        def test_loop():
            if add(1, 1) != 2:  # only a mutant loops: the baseline stays green
                for _ in range(20):
                    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", {marker!r}],
                                     start_new_session=True)
                while True:
                    time.sleep(0.1)
    """})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")
    runs = tmp_path / "runs"
    temp = tmp_path / "tmp"  # what the killed run leaves behind stays here: another test's command would sweep
    temp.mkdir()  # it from a shared TMPDIR and say so on its stderr
    proc = subprocess.Popen([sys.executable, "-m", "elenchus", "evaluate", "--repo", str(repo), "--scope", "target",
                             "--target", "calc.py", "--budget", "4", "--jobs", "1", "--fresh"],
                            env={**FAST_ENV, "ELENCHUS_RUNS_DIR": str(runs), "TMPDIR": str(temp)},
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while len(_marker_processes(marker)) < 20 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert len(_marker_processes(marker)) >= 20, "the looping mutant never started its children"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 2.0
        while _marker_processes(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _marker_processes(marker) == []
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _marker_processes(marker):
            os.kill(pid, signal.SIGKILL)


def _hostile_repo(root: Path, targets: list[Path]) -> Path:
    """A repository whose new test writes into the repository itself (tracked, hook, config, ignored)."""
    repo = write_tree(root, {
        "calc.py": "def add(a, b):\n    return a + b\n",
        ".gitignore": "build/\n",
        "tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    })
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    write_tree(repo, {"build/out.txt": "old\n", "tests/test_attack.py": f"""
        import os
        from calc import add
        def test_attack():
            assert add(1, 2) == 3
            for target in {[str(t) for t in targets]!r}:
                try:
                    with open(target, "a") as handle:
                        handle.write("pwned")
                except OSError:
                    pass
    """})
    git(repo, "add", "tests/test_attack.py")
    git(repo, "commit", "-q", "-m", "head")
    return repo


def test_evaluate_contains_a_hostile_suite_and_says_how(tmp_path, outside):
    repo = outside / "repo"
    targets = [repo / "calc.py", repo / ".git" / "hooks" / "pre-commit", repo / ".git" / "config",
               repo / "build" / "out.txt"]
    _hostile_repo(repo, targets)
    before = {t: t.read_bytes() if t.exists() else None for t in targets}
    out = tmp_path / "report.json"
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "2", "--jobs", "1",
                   "--fresh", "--no-witnesses", "--require-isolation", "--json", str(out),
                   env={**FAST_ENV, "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    assert {t: t.read_bytes() if t.exists() else None for t in targets} == before
    report = json.loads(out.read_text())
    assert report["isolation"]["kind"] == "bubblewrap"
    assert report["post_flight"]["worktree_unchanged"] is True
    assert "Isolation: bubblewrap" in done.stdout


def test_without_isolation_post_flight_reports_every_write(tmp_path):
    repo = tmp_path / "repo"
    targets = [repo / ".git" / "hooks" / "pre-commit", repo / ".git" / "config", repo / "build" / "out.txt"]
    _hostile_repo(repo, targets)
    out = tmp_path / "report.json"
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "2", "--jobs", "1",
                   "--fresh", "--no-witnesses", "--isolation", "none", "--json", str(out),
                   env={**FAST_ENV, "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["isolation"]["kind"] == "none"
    post = report["post_flight"]
    assert post["worktree_unchanged"] is False
    changed = " ".join(post["changes"])
    assert ".git/hooks/pre-commit" in changed and ".git/config" in changed and "build/out.txt" in changed
    assert "The working tree was not modified" not in done.stdout
    assert "Isolation: none" in done.stdout


def test_without_isolation_post_flight_names_git_objects_a_test_corrupted_or_added(tmp_path):
    repo = _hostile_repo(tmp_path / "repo", [])
    blob = git(repo, "rev-parse", "HEAD~1:calc.py").strip()
    corrupted = repo / ".git" / "objects" / blob[:2] / blob[2:]
    added = repo / ".git" / "objects" / "ee" / ("e" * 38)
    write_tree(repo, {"tests/test_attack.py": f"""
        import os, zlib
        from calc import add
        def test_attack():
            assert add(1, 2) == 3
            target = {str(corrupted)!r}
            if not os.path.exists({str(added)!r}):
                before = os.stat(target)
                os.chmod(target, 0o644)
                with open(target, "r+b") as handle:
                    data = handle.read()
                    handle.seek(0)
                    handle.write(data[:-1] + bytes([data[-1] ^ 1]))
                os.chmod(target, before.st_mode)
                os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # its times put back
                os.makedirs(os.path.dirname({str(added)!r}), exist_ok=True)
                with open({str(added)!r}, "wb") as handle:
                    handle.write(zlib.compress(b"blob 5\\0pwned"))
    """})
    git(repo, "add", "tests/test_attack.py")
    git(repo, "commit", "-q", "--amend", "-m", "head")
    out = tmp_path / "report.json"
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "2", "--jobs", "1",
                   "--fresh", "--no-witnesses", "--isolation", "none", "--json", str(out),
                   env={**FAST_ENV, "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    post = json.loads(out.read_text())["post_flight"]
    assert post["worktree_unchanged"] is False
    assert f"git object changed: .git/objects/{blob[:2]}/{blob[2:]}" in post["changes"]
    assert f"git object added: .git/objects/ee/{'e' * 38}" in post["changes"]
    # read from the object store: both hold content that no longer matches their names
    assert f"git object corrupted: .git/objects/{blob[:2]}/{blob[2:]}: its content no longer matches its name" \
        in post["changes"]
    assert f"git object corrupted: .git/objects/ee/{'e' * 38}: its content no longer matches its name" \
        in post["changes"]
    assert "The working tree was not modified" not in done.stdout


@pytest.mark.skipif(not UNSHARE.isolated, reason=f"unshare namespaces are not usable here: {UNSHARE.reason}")
def test_unshare_is_used_when_every_tool_on_path_lives_under_tmp(tmp_path):
    # every tool of the system reached through a directory under /tmp (the private /tmp the sandbox mounts
    # hides it), and bubblewrap not at all: the unshare sandbox must still be built
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for folder in ("/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"):
        for tool in Path(folder).iterdir() if Path(folder).is_dir() else ():
            if tool.name != "bwrap" and not (bin_dir / tool.name).exists() and os.access(tool, os.X_OK):
                (bin_dir / tool.name).symlink_to(tool)
    repo = _hostile_repo(tmp_path / "repo", [])
    out = tmp_path / "report.json"
    env = {**FAST_ENV, "PATH": str(bin_dir), "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")}
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "1", "--jobs", "1",
                   "--no-witnesses", "--require-isolation", "--json", str(out), env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["isolation"]["kind"] == "unshare"


def test_require_isolation_stops_when_no_sandbox_can_be_built(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("git", "sh"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    repo = _hostile_repo(tmp_path / "repo", [])
    env = {**FAST_ENV, "PATH": str(bin_dir), "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")}
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--require-isolation", env=env)
    assert done.returncode == 4, done.stderr
    assert "no isolation is available" in done.stderr and "bubblewrap" in done.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
    # without --require-isolation, tests whose code reaches files (this one opens them) are refused before
    # anything runs: reading them cannot clear them, and nothing would contain them
    command = ("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "1", "--jobs", "1",
               "--no-witnesses")
    refused = run_cli(*command, env=env)
    assert refused.returncode == 4, refused.stderr
    assert "blocked: no sandbox can be built here" in refused.stderr
    assert "tests/test_attack.py:1: imports os" in refused.stderr and "calls open()" in refused.stderr
    assert "--isolation none" in refused.stderr and "Baseline:" not in refused.stderr
    # tests that reach none of that run, and the run says so on stderr before its first run
    plain = write_tree(tmp_path / "plain", {"calc.py": "def add(a, b):\n    return a + b\n"})
    git(plain, "init", "-q", "-b", "main")
    git(plain, "add", "-A")
    git(plain, "commit", "-q", "-m", "base")
    write_tree(plain, {"tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n"
                                             "    assert add(2, 3) == 5\n"})
    git(plain, "add", "-A")
    git(plain, "commit", "-q", "-m", "head")
    going = run_cli("evaluate", "--repo", str(plain), *command[3:], env=env)
    assert going.returncode == 0, going.stderr
    warning = going.stderr.index("Warning: no sandbox can be built here")
    assert "apt-get install bubblewrap" in going.stderr and "--require-isolation" in going.stderr
    assert warning < going.stderr.index("Baseline:")
    chosen = run_cli(*command, "--isolation", "none", env=env)
    assert chosen.returncode == 0, chosen.stderr
    assert "Warning: no sandbox" not in chosen.stderr  # asked for: said once, as asked
    assert chosen.stderr.count("Warning: --isolation none was given") == 1


def test_no_process_an_evaluation_starts_holds_a_secret_of_the_callers_environment(tmp_path):
    # the baselines, the warm workers and their forks, the sandbox's init: every /proc/*/environ a test can read
    repo = write_tree(tmp_path / "repo", {"calc.py": "def add(a, b):\n    return a + b\n"})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    write_tree(repo, {"tests/test_calc.py": """
        import os
        from calc import add

        def test_no_secret_in_sight():  # (first: a run stops at its first kill)
            seen = ""
            for entry in os.listdir("/proc"):
                if entry.isdigit():
                    try:
                        with open(f"/proc/{entry}/environ", errors="replace") as handle:
                            seen += handle.read()
                    except OSError:
                        pass
            assert "hunter2" not in seen

        def test_add():
            assert add(2, 3) == 5
    """})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")
    out = tmp_path / "report.json"
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", "--budget", "4", "--jobs", "2",
                   "--fresh", "--json", str(out),
                   env={**FAST_ENV, "DEPLOY_TOKEN": "hunter2-variable", "ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["baseline"]["modified"]["status"] == "green", report["baseline"]
    assert report["mutations"] and all(m["result"] == "killed" for m in report["mutations"]), report["mutations"]
    # a secret in sight would fail the second test in the mutant runs too: every kill is the first test's
    kills = [kill["test"] for c in report["comparisons"] for cohort in ("existing", "modified")
             for kill in (c.get(cohort) or {}).get("kills") or ()]
    assert kills and all(test.endswith("::test_add") for test in kills), kills
