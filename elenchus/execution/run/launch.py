"""Run pytest in a subprocess inside a workspace, through a launcher, and read its records.

``run_pytest`` never raises for anything the tests do: a failing, hanging or crashing
suite comes back as a ``RunResult`` whose ``execution`` says whether the run happened
properly (completed / timed-out / infrastructure-error) and whose ``records`` say what
each test did (one ``TestRecord`` per test, from the Elenchus pytest plugin). The command
it runs (``pytest_command``) loads the plugin from its file under a private name
(``module_loader``); a launcher starts it (``FreshLauncher``, or a fork of a warm worker).

The subprocess runs in its own session (process group) with stdin closed, output
sent to files, bytecode writing off, pytest's cache off and the environment scrubbed
of secret-looking variables. On timeout the whole group gets SIGTERM, then SIGKILL
after a short grace; nothing is left behind.

Split from ``run.py`` (now this package): this is the launching half; ``judging.py`` judges the result.
``run_command`` runs a repository's own command (replx scoring) with the same isolation.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from elenchus.execution import record_protocol as _protocol
from elenchus.execution import sandbox
from elenchus import secrecy
from elenchus.errors import InputGuardError
from elenchus.repo.layout import ROOT, SourceLayout
from elenchus.execution.run.results import (Execution, FailureKind, RunResult, TestOutcome, TestRecord,
                                            _mutated_relative, _relative_to_workspace)

MAX_TIMEOUT_FACTOR = 100.0
DEFAULT_TIMEOUT_CONSTANT = 5.0
KILL_GRACE_SECONDS = 1.0
TAIL_CHARS = 4000

#: The plugin is loaded from its file under this private name, so a workspace that
#: contains its own ``elenchus`` package (Elenchus evaluating itself) cannot shadow it.
PLUGIN_MODULE = "_elenchus_record_plugin"
WARM_MODULE = "_elenchus_warm_worker"
RECODE_MODULE = "_elenchus_recode"


# ---------------------------------------------------------------------------
# guards and timeouts


def validate_timeout_factor(value: object) -> float:
    """Return the factor as a float, or raise ``InputGuardError('timeout-factor')``. Never clamps."""
    if isinstance(value, bool):
        raise InputGuardError("timeout-factor", f"expected a number, got {value!r}")
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise InputGuardError(
                "timeout-factor", f"expected a number such as 3 or 2.5, got {value!r}"
            ) from None
    elif isinstance(value, (int, float)):
        number = float(value)
    else:
        raise InputGuardError("timeout-factor", f"expected a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(number):
        raise InputGuardError("timeout-factor", f"expected a finite number, got {value!r}")
    if number <= 0:
        raise InputGuardError("timeout-factor", f"expected a number above 0, got {value!r}")
    if number > MAX_TIMEOUT_FACTOR:
        raise InputGuardError(
            "timeout-factor",
            f"expected at most {MAX_TIMEOUT_FACTOR:g}, got {value!r}; a larger factor only delays "
            "reporting a hung mutant",
        )
    return number


def timeout_for(baseline_seconds: float, factor: float, constant: float = DEFAULT_TIMEOUT_CONSTANT) -> float:
    """The per-run timeout: ``factor * baseline + constant`` seconds."""
    factor = validate_timeout_factor(factor)
    if not math.isfinite(baseline_seconds) or baseline_seconds < 0:
        raise ValueError(f"baseline duration must be a finite number >= 0, got {baseline_seconds!r}")
    if not math.isfinite(constant) or constant < 0:
        raise ValueError(f"timeout constant must be a finite number >= 0, got {constant!r}")
    return factor * baseline_seconds + constant


# ---------------------------------------------------------------------------
# environment


# Secret-looking variables never reach a test (re-exported for the launchers).
is_secret_variable = secrecy.is_secret_variable
scrub_environment = secrecy.scrub_environment


# ---------------------------------------------------------------------------
# running


def module_loader(name: str, path: str) -> str:
    """Python source that loads the file ``path`` as module ``name``, bound to ``module``.

    Loading Elenchus's own plugins from their files under private names keeps a workspace
    that holds its own ``elenchus`` package (Elenchus evaluating itself) from shadowing them.
    """
    return (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location({name!r}, {path!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        f"sys.modules[{name!r}] = module\n"
        "spec.loader.exec_module(module)\n"
    )


def _bootstrap_code(options: Mapping[str, Any] | None = None, serve: tuple[str, str] | None = None) -> str:
    """Load the plugin and run pytest through it; with ``serve`` (two pipe paths), as a collected
    session of the warm worker (``warm.Collected``) whose runs are forks of it."""
    loaded = module_loader(PLUGIN_MODULE, str(Path(__file__).parent.with_name("plugin.py").resolve())) + "import json\n"
    options_json = json.dumps(dict(options or {}), sort_keys=True)
    if serve is None:
        return loaded + f"raise SystemExit(module.run(json.loads({options_json!r}), sys.argv[1:]))\n"
    return (loaded + "plugin = module\n"
            + module_loader(RECODE_MODULE, str(Path(__file__).parent.with_name("recode.py").resolve()))
            + f"server = sys.modules[{WARM_MODULE!r}].Collected({serve[0]!r}, {serve[1]!r}, module)\n"
            f"raise SystemExit(plugin.run(json.loads({options_json!r}), sys.argv[1:], serve=server.serve))\n")


def _selection(tests: Sequence[str] | None, deselect: Sequence[str]) -> tuple[str, ...]:
    """Paths and node ids, plus ``--deselect NODEID`` pairs; any other option is refused.

    Selectors come from repository content (test names), so an option-like one such as
    ``-p evil`` must not reach pytest's command line.
    """
    selected: list[str] = []
    items = list(tests or ())
    position = 0
    while position < len(items):
        item = items[position]
        if item == "--deselect" and position + 1 < len(items):
            deselect = (*deselect, items[position + 1])
            position += 2
            continue
        if item.startswith("-"):
            raise ValueError(f"a test selector must be a path or node id, got option-like {item!r}")
        selected.append(item)
        position += 1
    for nodeid in deselect:
        if nodeid.startswith("-"):
            raise ValueError(f"a deselected test must be a node id, got option-like {nodeid!r}")
        selected += ["--deselect", nodeid]
    return tuple(selected)


def pytest_command(record_path: Path, tests: Sequence[str] | None, python: str = sys.executable,
                   deselect: Sequence[str] = (), disabled_plugins: Sequence[str] = (),
                   layout: SourceLayout | None = None, mutated_file: str | None = None,
                   mutated_lines: Sequence[int] = (), cover: Sequence[str] = (),
                   select: Sequence[str] | None = None, stop: bool = False,
                   serve: tuple[str, str] | None = None, first: Sequence[str] = ()) -> tuple[str, ...]:
    """The exact argv ``run_pytest`` executes (recorded as the focused test command); with ``serve``,
    a collected session's (``_bootstrap_code``)."""
    layout = layout or SourceLayout((ROOT,), ())
    options = {"roots": list(layout.roots), "modules": list(layout.top_level),
               "trace": {"file": mutated_file, "lines": sorted(set(mutated_lines))}
               if mutated_file and mutated_lines else None,
               "cover": sorted(set(cover)) or None,
               "select": None if select is None else list(select), "first": list(first) or None,
               "stop": stop, "mutated": mutated_file,
               # a run without a mutant (a baseline) says what it read: what its results depend on
               "reads": mutated_file is None and serve is None}
    selected = _selection(tests, deselect)
    blocked: list[str] = []
    for name in disabled_plugins:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise ValueError(f"not a pytest plugin name: {name!r}")
        blocked += ["-p", f"no:{name}"]
    return (
        python,
        "-c",
        _bootstrap_code(options, serve),
        _protocol.RECORD_OPTION,
        str(record_path),
        "-q",
        "-p",
        "no:cacheprovider",
        "--continue-on-collection-errors",
        "--tb=line",  # the records come from the exceptions; pytest's own tracebacks cost more than many tests
        *blocked,
        *selected,
    )


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _is_within(path: Path, parent: Path) -> bool:
    try:
        path.resolve().relative_to(parent.resolve())
    except ValueError:
        return False
    return True


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


#: The sandbox's own processes: they do not pass SIGTERM on, so it goes past them to the tests.
_SANDBOX_PROCESSES = frozenset({"bwrap", "unshare", "setpriv"})


def _descendants(pid: int) -> list[tuple[int, str]]:
    """Every process below ``pid`` (host PIDs) with its command name."""
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as handle:
                stat = handle.read()
        except OSError:
            continue
        name, rest = stat[stat.find("(") + 1:stat.rfind(")")], stat[stat.rfind(")") + 2:].split()
        if len(rest) > 1:
            children.setdefault(int(rest[1]), []).append((int(entry), name))
    found, frontier = [], [pid]
    while frontier:
        for child in children.get(frontier.pop(), []):
            found.append(child)
            frontier.append(child[0])
    return found


def _stop(proc: subprocess.Popen[bytes], grace: float) -> None:
    """SIGTERM the tests (past the sandbox's own processes), SIGKILL everything after ``grace``
    seconds, and reap the leader. Ending the sandbox ends every process inside it."""
    inside = [pid for pid, name in _descendants(proc.pid) if name not in _SANDBOX_PROCESSES]
    for pid in inside:
        try:
            os.kill(pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
    if not inside:
        _kill_group(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    _kill_group(proc.pid, signal.SIGKILL)
    proc.wait()


def _tail(path: Path, limit: int = TAIL_CHARS) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - limit * 4))
            data = handle.read()
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")[-limit:]


#: Lines of stderr quoted in the reason of a run that ended without results (the run record keeps its tail).
LAST_WORDS_LINES = 3


def _last_words(stderr_path: Path) -> str:
    """The last lines pytest wrote to stderr, so a run that ended without results says what went wrong."""
    lines = [line.strip() for line in _tail(stderr_path).splitlines() if line.strip()]
    if not lines:
        return " (nothing on stderr)"
    return " (stderr ends: " + " | ".join(line[:200] for line in lines[-LAST_WORDS_LINES:]) + ")"


def _running(marker: Path) -> str | None:
    """The test a run was running when it ended without its records (killed past the grace, or crashed):
    the plugin names it in ``marker`` while it runs."""
    try:
        text = marker.read_bytes().decode("utf-8", "replace")
        marker.unlink()
    except OSError:
        return None
    return text[:-1] if text.endswith("\n") and "\n" not in text[:-1] else None


def _parse_records(record_path: Path, workspace: Path) -> tuple[tuple[TestRecord, ...], dict[str, Any] | None]:
    """Records and the session trailer; raises ValueError on a corrupt file."""
    workspace_real = os.path.realpath(workspace)
    records: list[TestRecord] = []
    session: dict[str, Any] | None = None
    with open(record_path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if "session" in data:
                    session = dict(data["session"])
                    continue
                kind = data.get("failure_kind")
                records.append(
                    TestRecord(
                        nodeid=str(data["nodeid"]),
                        outcome=TestOutcome(data["outcome"]),
                        duration=float(data.get("duration") or 0.0),
                        failure_kind=FailureKind(kind) if kind else None,
                        crossed_files=tuple(
                            _relative_to_workspace(str(f), workspace_real) for f in data.get("crossed_files") or ()
                        ),
                        exception_type=data.get("exception_type"),
                        message=data.get("message"),
                        check=data.get("check") if data.get("check") in _protocol.CHECKS else None,
                    )
                )
            except (KeyError, TypeError, ValueError) as error:
                raise ValueError(f"{record_path} line {number}: {error}") from None
    return tuple(records), session


@dataclass(frozen=True, slots=True)
class Launch:
    """How a launched pytest process ended."""

    exit_code: int | None  # None when it never exited on its own
    timed_out: bool
    pid: int | None
    error: str | None = None  # why it could not start


class Launcher(Protocol):
    """Starts one pytest process and waits for it: a fresh interpreter, or a fork of a warm one."""

    name: str
    scratch: Path | None  # where workspaces and run artifacts must live, or None: anywhere

    def launch(self, command: Sequence[str], workspace: Path, run_dir: Path, env: Mapping[str, str],
               stdout_path: Path, stderr_path: Path, timeout: float | None, kill_grace: float,
               python: str) -> Launch: ...


class FreshLauncher:
    """A new interpreter per run, in the sandbox, in its own session; the group dies at the end."""

    name = "fresh"
    scratch = None

    def launch(self, command: Sequence[str], workspace: Path, run_dir: Path, env: Mapping[str, str],
               stdout_path: Path, stderr_path: Path, timeout: float | None, kill_grace: float,
               python: str) -> Launch:
        wrapped = sandbox.current().wrap(command, workspace, [run_dir], python)
        with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
            try:
                proc = subprocess.Popen(
                    wrapped,
                    cwd=workspace,
                    env=dict(env),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                    close_fds=True,
                )
            except OSError as error:
                return Launch(None, False, None, f"could not start pytest in {workspace}: {error}")
            try:
                return Launch(_status(proc.wait(timeout=timeout), list(wrapped) != list(command)), False, proc.pid)
            except subprocess.TimeoutExpired:
                _stop(proc, kill_grace)
                return Launch(None, True, proc.pid)
            except BaseException:  # KeyboardInterrupt in the caller: leave nothing behind
                _stop(proc, 0.0)
                raise
            finally:
                # Whatever the leader did, stragglers in its group (grandchildren) go too.
                _kill_group(proc.pid, signal.SIGKILL)


FRESH = FreshLauncher()


def _status(code: int, sandboxed: bool) -> int:
    """pytest's exit status as ``subprocess`` gives it unsandboxed: the sandbox reports a death by signal N
    as 128 + N, which pytest itself never exits with."""
    return -(code - 128) if sandboxed and 128 < code <= 128 + signal.NSIG else code


def run_pytest(
    workspace: Path,
    tests: Sequence[str] | None,
    timeout: float | None,
    mutated_file: str | None = None,
    env: Mapping[str, str] | None = None,
    python: str = sys.executable,
    *,
    artifacts_dir: Path | None = None,
    kill_grace: float = KILL_GRACE_SECONDS,
    deselect: Sequence[str] = (),
    disabled_plugins: Sequence[str] = (),
    layout: SourceLayout | None = None,
    mutated_lines: Sequence[int] = (),
    cover: Sequence[str] = (),
    select: Sequence[str] | None = None,
    stop: bool = False,
    launcher: Launcher | None = None,
    first: Sequence[str] = (),
) -> RunResult:
    """Run pytest once in ``workspace`` and report what happened; never raises for test outcomes.

    ``tests`` are node ids or paths (None: pytest's own default selection), optionally
    with ``--deselect NODEID`` pairs (or pass ``deselect``); no other option is accepted
    there. ``env`` is the base environment (default ``os.environ``); it is scrubbed of
    secrets either way, and ``PYTHONPATH`` becomes the workspace's source roots
    (``layout``), so the tests and anything they start import the workspace's copy.
    ``mutated_lines`` (lines of ``mutated_file``) are watched: the result says whether
    any of them ran. ``cover`` (workspace-relative files) records which of their lines each
    test executed (``RunResult.coverage``). ``select`` (test keys, see ``plugin.RunContext``)
    runs only those tests, in that order; ``first`` (test keys, without ``select``) runs those before the
    others, leaving none out; ``stop`` ends the run at the first test that surely caught the mutant
    (``plugin.RunContext.caught``).
    ``launcher`` starts the process (default: a fresh interpreter in the sandbox).
    The record file, stdout and stderr go to ``artifacts_dir`` (kept) or to a private
    temporary directory (removed); neither may be inside the workspace.
    """
    workspace = Path(workspace)
    if timeout is not None and (not math.isfinite(timeout) or timeout <= 0):
        raise InputGuardError("timeout", f"expected a number of seconds above 0, got {timeout!r}")

    command_tests = _selection(tests, deselect)  # refuse option-like selectors before any work
    if artifacts_dir is not None and _is_within(Path(artifacts_dir), workspace):
        raise ValueError(f"run artifacts must live outside the workspace, got {artifacts_dir} inside {workspace}")

    keep = artifacts_dir is not None
    launcher = launcher or FRESH
    run_dir = Path(artifacts_dir) if keep else Path(tempfile.mkdtemp(prefix="elenchus-run-", dir=launcher.scratch))
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        if _is_within(run_dir, workspace):
            raise ValueError(f"run artifacts must live outside the workspace, got {run_dir} inside {workspace}")
        return _run(workspace, command_tests, timeout, mutated_file, env, python, run_dir, kill_grace,
                    disabled_plugins, layout or SourceLayout((ROOT,), ()), mutated_lines, cover, select, stop,
                    launcher, first)
    finally:
        if not keep:
            shutil.rmtree(run_dir, ignore_errors=True)


def run_environment(workspace: Path, env: Mapping[str, str] | None, layout: SourceLayout) -> dict[str, str]:
    """``env`` (default ``os.environ``) without secrets, bytecode writing off, and the workspace's
    source roots as ``PYTHONPATH``, so the tests and anything they start import the workspace's copy."""
    run_env = scrub_environment(os.environ if env is None else env)
    run_env["PYTHONDONTWRITEBYTECODE"] = "1"
    run_env["PYTHONPATH"] = os.pathsep.join(
        str(Path(workspace).resolve() / root) if root != ROOT else str(Path(workspace).resolve())
        for root in layout.roots)
    return run_env


def _run(
    workspace: Path,
    tests: Sequence[str] | None,
    timeout: float | None,
    mutated_file: str | None,
    env: Mapping[str, str] | None,
    python: str,
    run_dir: Path,
    kill_grace: float,
    disabled_plugins: Sequence[str],
    layout: SourceLayout,
    mutated_lines: Sequence[int],
    cover: Sequence[str],
    select: Sequence[str] | None,
    stop: bool,
    launcher: Launcher,
    first: Sequence[str] = (),
) -> RunResult:
    record_path = run_dir / "records.jsonl"
    stdout_path = run_dir / "stdout.txt"
    stderr_path = run_dir / "stderr.txt"
    record_path.unlink(missing_ok=True)
    running = _protocol.running_path(record_path)
    running.unlink(missing_ok=True)
    relative_mutant = _mutated_relative(mutated_file, str(workspace))
    command = pytest_command(record_path, tests, python, disabled_plugins=disabled_plugins, layout=layout,
                             mutated_file=relative_mutant, mutated_lines=mutated_lines, cover=cover,
                             select=select, stop=stop, first=first)
    run_env = run_environment(workspace, env, layout)

    started = _now()
    clock = time.monotonic()
    launched = launcher.launch(command, workspace, run_dir, run_env, stdout_path, stderr_path, timeout,
                               kill_grace, python)
    exit_code, timed_out, pid, launch_error = launched.exit_code, launched.timed_out, launched.pid, launched.error
    finished = _now()
    duration = time.monotonic() - clock

    def result(execution: Execution, records: tuple[TestRecord, ...] = (), *, detail: str | None = None,
               session: dict[str, Any] | None = None) -> RunResult:
        measured = execution is Execution.COMPLETED
        return RunResult(
            execution=execution,
            records=records,
            exit_code=None if timed_out else exit_code,
            started=started,
            finished=finished,
            duration=round(duration, 6),
            passed=sum(r.outcome is TestOutcome.PASSED for r in records) if measured else None,
            failed=sum(r.is_failure for r in records) if measured else None,
            stdout_tail=_tail(stdout_path),
            stderr_tail=_tail(stderr_path),
            command=command,
            workspace=str(workspace),
            mutated_file=mutated_file,
            timeout=timeout,
            pid=pid,
            interrupted_at=(session or {}).get("interrupted_at") if session is not None else _running(running),
            detail=detail,
            mutated_lines_executed=_executed(session),
            modules=_modules(session),
            import_isolation=tuple(str(r) for r in (session or {}).get("import_isolation") or ()),
            mutated_module=layout.module_name(relative_mutant) if relative_mutant else None,
            coverage=_coverage(session),
            test_keys=_test_keys(session),
            third_party=tuple(str(n) for n in (session or {}).get("third_party") or ()),
            reads=_reads(session),
            executor=launcher.name,
        )

    if launch_error is not None:
        return result(Execution.INFRASTRUCTURE_ERROR, detail=launch_error)

    records: tuple[TestRecord, ...] = ()
    session: dict[str, Any] | None = None
    parse_error: str | None = None
    if record_path.exists():
        try:
            records, session = _parse_records(record_path, workspace)
        except (OSError, ValueError) as error:
            parse_error = f"the Elenchus record file is corrupt: {error}"

    if timed_out:
        return result(Execution.TIMED_OUT, records, session=session,
                      detail=f"no result within {timeout:g} s; the process group was killed")
    assert exit_code is not None
    if exit_code < 0:
        return result(Execution.INFRASTRUCTURE_ERROR, records, session=session,
                      detail=f"pytest was killed by signal {-exit_code}" + _last_words(stderr_path))
    if exit_code == 3:
        return result(Execution.INFRASTRUCTURE_ERROR, records, session=session,
                      detail="pytest stopped on an internal error (exit 3)" + _last_words(stderr_path))
    if exit_code == 4:
        return result(Execution.INFRASTRUCTURE_ERROR, records, session=session,
                      detail="pytest rejected its command line (exit 4)" + _last_words(stderr_path))
    if parse_error is not None:
        return result(Execution.INFRASTRUCTURE_ERROR, detail=parse_error)
    if not record_path.exists() or session is None:
        return result(Execution.INFRASTRUCTURE_ERROR, records, session=session,
                      detail=f"pytest exited {exit_code} without a complete Elenchus record file"
                             + _last_words(stderr_path))
    if exit_code not in (0, 1, 2, 5):
        return result(Execution.INFRASTRUCTURE_ERROR, records, session=session,
                      detail=f"pytest exited with unexpected status {exit_code}" + _last_words(stderr_path))
    return result(Execution.COMPLETED, records, session=session)


def _executed(session: dict[str, Any] | None) -> bool | None:
    value = (session or {}).get("mutated_lines_executed")
    return value if isinstance(value, bool) else None


def _coverage(session: dict[str, Any] | None) -> tuple[tuple[str, str, tuple[int, ...]], ...] | None:
    found = (session or {}).get("coverage")
    if not isinstance(found, dict):
        return None
    return tuple((str(path), str(test), tuple(int(n) for n in lines))
                 for path, tests in sorted(found.items()) for test, lines in sorted(tests.items()))


def _test_keys(session: dict[str, Any] | None) -> tuple[tuple[str, str], ...] | None:
    found = (session or {}).get("test_keys")
    if not isinstance(found, dict):
        return None
    return tuple(sorted((str(nodeid), str(key)) for nodeid, key in found.items()))


def _reads(session: dict[str, Any] | None) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
    found = (session or {}).get("reads")
    if not isinstance(found, dict):
        return None
    return tuple((str(where), tuple(str(p) for p in paths)) for where, paths in sorted(found.items())
                 if isinstance(paths, list))


def _modules(session: dict[str, Any] | None) -> tuple[tuple[str, str | None], ...] | None:
    found = (session or {}).get("modules")
    if not isinstance(found, dict):
        return None
    return tuple((str(name), str(file) if file else None) for name, file in sorted(found.items()))

# ---------------------------------------------------------------------------
# a repository command (replx scoring): same isolation, no plugin


@dataclass(frozen=True, slots=True)
class CommandResult:
    execution: Execution
    exit_code: int | None  # None when it timed out or never started
    output: str  # stdout then stderr, for the success-line oracle
    duration: float
    detail: str | None = None


def run_command(workspace: Path, command: str, timeout: float, env: Mapping[str, str] | None = None,
                kill_grace: float = KILL_GRACE_SECONDS, writable: Sequence[Path] = ()) -> CommandResult:
    """Run a shell command once in ``workspace`` (sandboxed, its own process group, scrubbed
    environment); ``writable`` are the places outside the workspace it may write to."""
    run_env = scrub_environment(os.environ if env is None else env)
    run_env["PYTHONDONTWRITEBYTECODE"] = "1"
    clock = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(sandbox.current().wrap(["/bin/sh", "-c", command], workspace, writable),
                                    cwd=workspace, env=run_env,
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True, close_fds=True)
        except OSError as error:
            return CommandResult(Execution.INFRASTRUCTURE_ERROR, None, "", 0.0, f"could not start: {error}")
        timed_out = False
        try:
            exit_code: int | None = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out, exit_code = True, None
            _stop(proc, kill_grace)
        except BaseException:
            _stop(proc, 0.0)
            raise
        finally:
            _kill_group(proc.pid, signal.SIGKILL)
        out.seek(0)
        err.seek(0)
        output = out.read().decode("utf-8", "replace") + err.read().decode("utf-8", "replace")
    duration = round(time.monotonic() - clock, 6)
    if timed_out:
        return CommandResult(Execution.TIMED_OUT, None, output, duration, f"no result within {timeout:g} s")
    if exit_code is not None and (exit_code < 0 or exit_code in (126, 127)):
        return CommandResult(Execution.INFRASTRUCTURE_ERROR, exit_code, output, duration,
                             f"the command could not run (exit {exit_code})")
    return CommandResult(Execution.COMPLETED, exit_code, output, duration)
