"""The warm worker: one interpreter per job slot that forks a child for every test run.

A fresh interpreter per run pays Python's start-up, pytest's imports and the imports of
the project's third-party dependencies every time; this worker pays them once. It never
imports the project's own modules, its conftest files or its tests: each child enters
its fresh workspace, takes the run's environment and import path, runs the same
bootstrap a fresh interpreter would (``run.pytest_command``) and exits. A child is a copy
of the pristine worker, so nothing one run does reaches the next; in a sandbox the
worker also empties its private ``/tmp`` and covered directories and ends every other
process after each run.

Protocol, one JSON object per line: the worker first says ``{"ready": ..., "unsafe":
reason or null}``; each request ``{"code", "argv", "cwd", "env", "stdout", "stderr",
"timeout", "grace"}`` is answered with ``{"exit_code", "timed_out", "pid", "error"}``.

Loaded by file under a private name (like the plugin): standard library only, plus
whatever it is told to preload.
"""

from __future__ import annotations

import builtins
import functools
import gc
import importlib
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from typing import Any


#: What ``serve`` was told about the sandbox's private places: (keep, wipe), for ``Collected``.
_PLACES: tuple[list[str], list[str]] = ([], [])


def serve(preload: list[str], project: list[str], keep: list[str], wipe: list[str]) -> None:
    """Answer run requests on the original stdin/stdout until stdin closes.

    ``project``: the project's top-level names (never imported here); ``keep``: the slot
    directory and what the sandbox mounts back (never wiped); ``wipe``: directories emptied
    after each run (only given inside a sandbox, where they are private).
    """
    global _PLACES
    _PLACES = (list(keep), list(wipe))
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(2, 1)  # stray prints of preloaded modules go to the log, never into the protocol
    os.close(null)
    base_path = [entry for entry in sys.path if entry]
    loaded, failed = _preload(preload)
    if _rewrite_hook() is not None:
        _forgive(frozenset(name for name in _pytest_plugins() if name in sys.modules))
    unsafe = _unsafe(project)
    _reply(replies, {"ready": True, "loaded": loaded, "failed": failed, "unsafe": unsafe})
    tmpdir = os.environ.get("TMPDIR")
    # What the worker loaded stays out of every child's garbage collections: pytest collects five times as a
    # session ends, and walking the preloaded modules' objects each time cost a child more than its tests did.
    gc.collect()
    gc.freeze()
    for line in requests:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = _run(request, base_path, requests, replies, tmpdir if wipe else None)
        except Exception as error:  # the worker stays up; the caller runs this one elsewhere
            answer = {"exit_code": None, "timed_out": False, "pid": None, "error": f"warm worker: {error!r}"}
        if wipe:
            _sweep()
            for place in wipe:
                _wipe(place, keep)
        _reply(replies, answer)


def _reply(replies: Any, message: dict[str, Any]) -> None:
    replies.write(json.dumps(message) + "\n")
    replies.flush()


def _preload(names: list[str]) -> tuple[list[str], list[str]]:
    loaded, failed = [], []
    plugins = frozenset() if _rewrite_hook() is not None else _pytest_plugins()
    for name in ["pytest", "_pytest.config", "_pytest.python", "_pytest.main", *names]:
        if name.split(".")[0] in plugins:
            continue  # the child's pytest imports it, after marking it for assertion rewriting
        try:
            importlib.import_module(name)
            loaded.append(name)
        except BaseException:  # noqa: BLE001 - a module that cannot load here loads in the child instead
            failed.append(name)
    return loaded, failed


@functools.cache
def _pytest_plugins() -> frozenset[str]:
    """Top-level modules of the installed pytest plugins (``pytest11`` entry points).

    pytest marks them for assertion rewriting at start-up and warns when one is already
    imported, which a fresh interpreter never has (see ``_forgive``).
    """
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return frozenset()
    from importlib import metadata

    names: set[str] = set()
    for dist in metadata.distributions():
        points = [point for point in dist.entry_points if point.group == "pytest11"]
        if not points:
            continue
        names.update(point.value.split(":")[0].split(".")[0].strip() for point in points)
        for file in dist.files or ():
            parts = str(file).replace("\\", "/").split("/")
            if len(parts) == 1 and parts[0].endswith(".py"):
                names.add(parts[0][:-3])
            elif len(parts) == 2 and parts[1] == "__init__.py":
                names.add(parts[0])
    return frozenset(names)


def _rewrite_hook() -> Any:
    """pytest's assertion-rewriting import hook class, when it has the warning ``_forgive`` adjusts."""
    try:
        from _pytest.assertion.rewrite import AssertionRewritingHook
    except ImportError:
        return None
    return AssertionRewritingHook if hasattr(AssertionRewritingHook, "_warn_already_imported") else None


def _forgive(early: frozenset[str]) -> None:
    """Let pytest in the children accept the plugins this worker imported before it started.

    pytest warns that an already imported plugin "cannot be rewritten" (only the plugin's own
    asserts keep plain messages; the tests' asserts are rewritten as always), and a project
    with ``filterwarnings = error`` turns that warning into a failed start. The warning is
    dropped for exactly ``early``, the plugins a fresh interpreter would have imported itself.
    """
    hook = _rewrite_hook()
    original = hook._warn_already_imported

    def warn(self: Any, name: str) -> None:
        if name not in early:
            original(self, name)

    hook._warn_already_imported = warn


def _unsafe(project: list[str]) -> str | None:
    """Why forking this worker would not give each run a clean start, or None."""
    own = sorted(name for name in sys.modules if name.split(".")[0] in set(project))
    if own:
        return f"preloading the test dependencies imported the project's own module {own[0]}"
    early = sorted(name for name in _pytest_plugins() if name in sys.modules) if _rewrite_hook() is None else []
    if early:
        return (f"preloading the test dependencies imported the pytest plugin {early[0]}, which pytest must "
                "import itself to rewrite its assertions")
    if threading.active_count() > 1:
        return "a preloaded module started a thread, and a forked copy of it would not be safe"
    return None


def _run(request: dict[str, Any], base_path: list[str], requests: Any, replies: Any,
         tmpdir: str | None) -> dict[str, Any]:
    """Fork the run, wait for it within its timeout, and say how it ended."""
    sys.stdout.flush()
    sys.stderr.flush()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(request, base_path, (requests.fileno(), replies.fileno()), tmpdir)
    timeout = request.get("timeout")
    exited = _wait(pid, None if timeout is None else started + float(timeout))
    timed_out = exited is None
    if timed_out:
        _terminate(pid, float(request.get("grace") or 1.0))
    _kill_group(pid, signal.SIGKILL)  # stragglers of its session
    return {"exit_code": None if timed_out else exited, "timed_out": timed_out, "pid": pid, "error": None}


def _child(request: dict[str, Any], base_path: list[str], protocol: tuple[int, int], tmpdir: str | None) -> None:
    """Become the run: a session of its own, the run's files, directory, environment and path."""
    code = 70
    try:
        os.setsid()
        for fd in protocol:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        for fd, target in ((null, 0), (out, 1), (err, 2)):
            os.dup2(fd, target)
            os.close(fd)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(request["cwd"])
        env = dict(request["env"])
        if tmpdir is not None:
            env["TMPDIR"] = tmpdir  # the sandbox's private /tmp, as a fresh interpreter there would see
        os.environ.clear()
        os.environ.update(env)
        time.tzset()
        tempfile.tempdir = None  # read TMPDIR again
        extra = [entry for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry]
        sys.path[:] = ["", *extra, *base_path]  # as `python -c` builds it
        sys.argv = ["-c", *request["argv"]]
        sys.dont_write_bytecode = True
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the child
        try:
            exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__", "__builtins__": builtins})
            code = 0
        except SystemExit as done:
            if done.code is None or isinstance(done.code, int):
                code = done.code or 0
            else:
                print(done.code, file=sys.stderr)
                code = 1
        except BaseException:  # noqa: BLE001 - reported as the interpreter would
            traceback.print_exc()
            code = 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
    finally:
        os._exit(code)


def _wait(pid: int, deadline: float | None) -> int | None:
    """The child's exit code, or None when ``deadline`` passed first."""
    opener = getattr(os, "pidfd_open", None)
    handle = None
    if opener is not None:
        try:
            handle = opener(pid)
        except OSError:
            handle = None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            if handle is not None:
                select.select([handle], [], [], left)
            else:
                time.sleep(0.005 if left is None else min(0.005, left))
    finally:
        if handle is not None:
            os.close(handle)


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _terminate(pid: int, grace: float) -> None:
    """SIGTERM (the recorder turns it into an interruption that still writes its records), then
    SIGKILL; the child is reaped either way."""
    _kill_group(pid, signal.SIGTERM)
    if _wait(pid, time.monotonic() + grace) is None:
        _kill_group(pid, signal.SIGKILL)
        _wait(pid, None)


def _sweep() -> None:
    """End every process of the sandbox but this worker and its ancestors (a run's escaped daemons)."""
    keep = {os.getpid(), 1}
    parent = os.getppid()
    while parent > 1 and parent not in keep:
        keep.add(parent)
        try:
            with open(f"/proc/{parent}/stat", encoding="utf-8") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in keep:
            try:
                os.kill(int(entry), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break


def _wipe(place: str, keep: list[str]) -> None:
    """Empty ``place`` except the paths down to each of ``keep``."""
    try:
        entries = os.listdir(place)
    except OSError:
        return
    for entry in entries:
        path = os.path.join(place, entry)
        if path in keep:
            continue
        if any(k.startswith(path + os.sep) for k in keep):
            _wipe(path, keep)
        elif os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


class Collected:
    """A pytest session, forked from this worker, that collected its tests once and forks every run.

    The session's run loop (``plugin.Collected``) calls ``serve``. Each request, one JSON line
    on the ``requests`` pipe, names a mutant and the run's tests and files; the mutant is
    written into the session's workspace and put into a forked copy of the session
    (``recode``), which returns from ``serve`` to run the tests; the session waits for it
    within its timeout, ends its process group, puts the file back and answers on the
    ``replies`` pipe with ``{"exit_code", "timed_out", "pid", "retire"}`` or ``{"declined":
    reason}`` (that run is made in a fresh copy instead). The session retires (answers
    ``retire``, then ends) when a run left the workspace changed.
    """

    def __init__(self, requests: str, replies: str, recode: Any) -> None:
        self.requests_path = requests
        self.replies_path = replies
        self.recode = recode

    def serve(self, workspace: str, unsafe: str | None) -> dict[str, Any] | None:
        """The run's request in each forked run; None in the session once it must end."""
        requests = open(self.requests_path, encoding="utf-8")  # noqa: SIM115 - lives as long as the session
        replies = open(self.replies_path, "w", encoding="utf-8")  # noqa: SIM115
        keep, wipe = _PLACES
        unsafe = unsafe or next((f"collecting the tests left files in {place}" for place in wipe
                                 if _leftovers(place, keep)), None)
        _reply(replies, {"ready": True, "unsafe": unsafe})
        if unsafe:
            return None
        state = _tree(workspace)
        for line in requests:
            if not line.strip():
                continue
            request = json.loads(line)
            path = os.path.join(workspace, request["mutant"]["path"])
            try:
                with open(path, "rb") as handle:
                    original = handle.read()
                before = os.stat(path)
                swaps = self.recode.plan(path, original.decode("utf-8"), request["mutant"]["source"])
            except (OSError, UnicodeDecodeError) as error:
                _reply(replies, {"declined": f"the mutated file cannot be read here: {error}"})
                continue
            except self.recode.Declined as declined:
                _reply(replies, {"declined": str(declined)})
                continue
            with open(path, "wb") as handle:
                handle.write(request["mutant"]["source"].encode("utf-8"))
            sys.stdout.flush()
            sys.stderr.flush()
            started = time.monotonic()
            pid = os.fork()
            if pid == 0:
                self._enter(request, (requests, replies))
                self.recode.apply(swaps)
                return request
            timeout = request.get("timeout")
            exited = _wait(pid, None if timeout is None else started + float(timeout))
            if exited is None:
                _terminate(pid, float(request.get("grace") or 1.0))
            _kill_group(pid, signal.SIGKILL)
            with open(path, "wb") as handle:
                handle.write(original)
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
            if wipe:
                _sweep()
                for place in wipe:
                    _wipe(place, keep)
            retire = _tree(workspace) != state
            _reply(replies, {"exit_code": exited, "timed_out": exited is None, "pid": pid, "retire": retire})
            if retire:
                return None
        return None

    @staticmethod
    def _enter(request: dict[str, Any], pipes: tuple[Any, Any]) -> None:
        """The forked run: a session of its own, its output to its files."""
        os.setsid()
        for pipe in pipes:
            pipe.close()  # this copy only; the session keeps its own
        out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        for fd, target in ((out, 1), (err, 2)):
            os.dup2(fd, target)
            os.close(fd)
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _tree(root: str) -> dict[str, tuple[int, int, int]]:
    """Every path under ``root`` with its size, modification time and mode: a run that wrote there shows."""
    found: dict[str, tuple[int, int, int]] = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(directory, name)
            try:
                stat = os.lstat(path)
            except OSError:
                continue
            found[path] = (stat.st_size, stat.st_mtime_ns, stat.st_mode)
    return found


def _leftovers(place: str, keep: list[str]) -> bool:
    """Does ``place`` hold anything but the paths down to ``keep``?"""
    try:
        entries = os.listdir(place)
    except OSError:
        return False
    for entry in entries:
        path = os.path.join(place, entry)
        if path in keep:
            continue
        if not any(k.startswith(path + os.sep) for k in keep) or _leftovers(path, keep):
            return True
    return False
