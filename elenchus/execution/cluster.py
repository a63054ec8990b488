"""Mutant runs on a Dask cluster (``--cluster tcp://HOST:PORT``): the ``Executor`` the scheduler of
``modes/evaluate.py`` hands each mutant x cohort run to when one machine is not enough.

This process stays the client: it keeps the matrix, the result cache, the run directory and the
report, and it runs the baselines, witness searches and every run without a mutant itself. Each
mutant run becomes one Dask task. A worker receives each cohort once, as a gzip'd tar archive
named by the cohort's digest (the scheduler hands every worker the same scattered copy, which the
worker keeps in memory), unpacks it once into its own temporary directory and checks that the tree
it unpacked has exactly that digest; every run then gets a fresh copy of it, inside the same
sandbox and through the same runner (collected session, warm worker or fresh interpreter) as a
local run, and the task returns the same ``RunResult``. A worker lost mid-run loses only its
unfinished tasks: the scheduler runs them again on another worker, and only a finished task's
result is ever counted.

Workers must run the tests as this machine would: the same Python, the same Elenchus and the same
installed distributions (the project's test dependencies among them). That is checked on every
worker before the first mutant, and again inside every task (a worker that joins later is checked
when it takes its first run); a difference stops the evaluation and names the worker and what
differs.
"""

from __future__ import annotations

import atexit
import functools
import gzip
import hashlib
import io
import os
import re
import socket
import sys
import tarfile
import threading
import uuid
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from elenchus.execution import sandbox
from elenchus.errors import Blocked, InputGuardError
from elenchus.execution.executor import Executor, FreshProcess, RunRequest, WarmRunner
from elenchus.execution.run import KILL_GRACE_SECONDS, RunResult

CONNECT_SECONDS = 20.0  # to reach the scheduler
WORKERS_SECONDS = 60.0  # for at least one worker to be there
RESULT_MARGIN_SECONDS = 300.0  # beyond three times a run's own limit (queueing after a worker was lost)
_ADDRESS = re.compile(r"^(?:tcp|tls)://(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>[0-9]{1,5})$")
_INSTALL = "pip install 'elenchus[distributed]'"


class ClusterUnavailable(Blocked):
    """The scheduler cannot be reached, has no worker, or Dask is not installed (exit 4)."""


class ClusterMismatch(Blocked):
    """A worker would not run the tests as this machine does (exit 4)."""


def address(text: str | None) -> str | None:
    """``--cluster``: a Dask scheduler's ``tcp://HOST:PORT`` (``tls://`` with Dask's TLS settings), or None."""
    if text is None:
        return None
    value = str(text).strip()
    match = _ADDRESS.match(value)
    if match is None or not 1 <= int(match["port"]) <= 65535:
        raise InputGuardError("cluster", f"expected a Dask scheduler address such as tcp://127.0.0.1:8786, got "
                                         f"{text!r}")
    return value


def unconfirmed_address(where: str, base_pyproject: str | None) -> None:
    """An address from ``[tool.elenchus]`` is used only when Base already had it: the cluster receives the
    repository's code, so a change under review must not be able to choose where it goes."""
    import tomllib

    try:
        before = tomllib.loads(base_pyproject or "").get("tool", {}).get("elenchus", {}).get("cluster")
    except (tomllib.TOMLDecodeError, AttributeError):
        before = None
    if before is None or str(before).strip() != where:
        raise ClusterUnavailable(
            f"the change under review sets [tool.elenchus] cluster = {where!r} (Base does not have it), and the "
            "cluster would receive the repository's code; pass --cluster on the command line to send it there, "
            "or run without it; nothing was run")


# ------------------------------------------------------------------------------ the environment


@dataclass(frozen=True, slots=True)
class Environment:
    """What a run's outcome may depend on outside the repository, as each side reports it."""

    python: str  # implementation and version, e.g. "cpython 3.11.7"
    elenchus: str
    distributions: tuple[str, ...]  # name==version of everything the tests could import
    isolation: str  # the sandbox kind this machine can build for the client's kind

    @property
    def digest(self) -> str:
        return hashlib.sha256("\0".join((self.python, self.elenchus, *self.distributions)).encode()).hexdigest()


@functools.lru_cache(maxsize=4)
def environment(isolation: str = "auto") -> Environment:
    """This interpreter's environment, and the sandbox kind it gets when asked for ``isolation``."""
    from elenchus import __version__
    from elenchus.records import installed_distributions

    version = ".".join(map(str, sys.version_info[:3]))
    kind = isolation if isolation == sandbox.NONE else sandbox.detect(isolation).kind
    return Environment(f"{sys.implementation.name} {version}", __version__, installed_distributions(), kind)


def differences(here: Environment, there: Environment) -> list[str]:
    """What a worker's environment lacks or has beyond this one's, in words."""
    found = []
    if here.python != there.python:
        found.append(f"Python {there.python.split()[-1]} ({there.python.split()[0]}) where this machine has "
                     f"{here.python.split()[-1]}")
    if here.elenchus != there.elenchus:
        found.append(f"Elenchus {there.elenchus} where this machine has {here.elenchus}")
    mine, theirs = set(here.distributions), set(there.distributions)
    missing, extra = sorted(mine - theirs), sorted(theirs - mine)
    if missing:
        found.append("not installed there: " + ", ".join(missing[:6]) + (f" and {len(missing) - 6} more"
                                                                        if len(missing) > 6 else ""))
    if extra:
        found.append("installed there only: " + ", ".join(extra[:6]) + (f" and {len(extra) - 6} more"
                                                                       if len(extra) > 6 else ""))
    if here.isolation != there.isolation:
        found.append(f"its sandbox is {there.isolation} where this machine's is {here.isolation}")
    return found


def _mismatch(worker: str, found: list[str]) -> ClusterMismatch:
    return ClusterMismatch(
        f"the Dask worker {worker} would not run the tests as this machine does: {'; '.join(found)}. Install the "
        "same Python, Elenchus and test dependencies there (the same lock or requirements file), or run without "
        "--cluster; nothing was run on the cluster")


# ------------------------------------------------------------------------------ the cohort archive


def archive(template: Path) -> bytes:
    """``template`` as a gzip'd tar: directories, regular files and symlinks, modes kept, times zeroed
    (the same tree always gives the same bytes)."""
    buffer = io.BytesIO()

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        if not (info.isdir() or info.isreg() or info.issym()):
            return None
        info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
        return info

    # (gzip's own header holds a time too: zeroed, or two archives made a second apart differ)
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=6, mtime=0) as packed, \
            tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.add(str(template), arcname=".", recursive=True, filter=keep)
    return buffer.getvalue()


def _members(tar: tarfile.TarFile) -> list[tarfile.TarInfo]:
    """Every member, refusing any that would land outside the destination (an absolute name, ``..``, or a
    path through a symlink the archive made) or that is not a directory, regular file or symlink."""
    members, links = [], set()
    for info in tar.getmembers():
        parts = Path(info.name).parts
        through = any(Path(*parts[:end]) in links for end in range(1, len(parts)))
        if info.name.startswith("/") or ".." in parts or through or not (info.isdir() or info.isreg() or info.issym()):
            raise ValueError(f"the cohort archive holds an entry that cannot be unpacked safely: {info.name!r}")
        if info.issym():
            links.add(Path(*parts))
        members.append(info)
    return members


def unpack(data: bytes, destination: Path, digest: str) -> Path:
    """The archive's tree at ``destination``, verified to have ``digest`` (the client's template digest);
    nothing is left there when it cannot be."""
    from elenchus.execution.workspace import remove_tree, tree_digest

    destination.mkdir(parents=True)
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            members = _members(tar)
            if hasattr(tarfile, "fully_trusted_filter"):  # checked above; keep modes exactly as the client has
                tar.extractall(destination, members, filter="fully_trusted")
            else:  # pragma: no cover - Python before 3.11.4
                tar.extractall(destination, members)
        found = tree_digest(destination)
        if found != digest:
            raise ValueError(f"the unpacked cohort has digest {found[:12]}, not the client's {digest[:12]}")
    except BaseException:
        remove_tree(destination)
        raise
    return destination


# ------------------------------------------------------------------------------ the worker side


@dataclass(frozen=True, slots=True)
class _Task:
    """What a task needs besides the request and the archive: how the client runs its tests."""

    client: str  # one evaluation's token: its runners on a worker are its own
    expected: str  # the client's environment digest
    sandbox: sandbox.Sandbox
    runner: str  # collected | warm | fresh
    preload: tuple[str, ...]
    project: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Done:
    worker: str
    result: RunResult | None = None
    environment: Environment | None = None  # the worker's, when it is not the client's
    broken: str | None = None  # the archive could not be unpacked as sent


_lock = threading.Lock()
_cohorts: dict[str, Path] = {}  # digest -> unpacked template, for this worker process's life
_runners: dict[tuple[str, int], Executor] = {}  # (client token, thread) -> runner
_root: Path | None = None


def _worker_root() -> Path:
    """This worker's own temporary directory (removed when the worker exits; a killed worker's is
    swept by the next Elenchus process to start on that machine)."""
    global _root
    if _root is None:
        from elenchus import tempspace

        tempspace.claim()
        import tempfile

        _root = Path(tempfile.mkdtemp(prefix="cluster-")).resolve()
        atexit.register(_close_all)
    return _root


def _close_all() -> None:
    with _lock:
        runners = list(_runners.values())
        _runners.clear()
    for runner in runners:
        runner.close()


def _template(digest: str, data: bytes) -> Path:
    with _lock:
        found = _cohorts.get(digest)
        if found is None:
            found = unpack(data, _worker_root() / "cohorts" / digest[:32], digest)
            _cohorts[digest] = found
    return found


def _runner(task: _Task) -> Executor:
    """One runner per client and task thread: a warm worker or a collected session serves one run at a
    time, and Dask runs as many tasks at once as the worker has threads."""
    key = (task.client, threading.get_ident())
    with _lock:
        runner = _runners.get(key)
        if runner is None:
            root = _worker_root() / "runs" / f"{task.client[:12]}-{len(_runners)}"
            runner = (FreshProcess(root) if task.runner == "fresh" else
                      WarmRunner(root, 1, task.preload, task.project, collect=task.runner == "collected"))
            _runners[key] = runner
    return runner


def _remote_run(request: RunRequest, data: bytes, task: _Task) -> _Done:
    """The task itself, on a worker: never raises for what the client should hear about."""
    from distributed import get_worker

    name = get_worker().address
    here = environment(task.sandbox.kind)
    if here.digest != task.expected or here.isolation != task.sandbox.kind:
        return _Done(name, environment=here)
    try:
        template = _template(request.cohort.digest, data)
    except (OSError, ValueError, tarfile.TarError) as error:
        return _Done(name, broken=str(error))
    if sandbox.current() != task.sandbox:
        sandbox.activate(task.sandbox)
    local = replace(request, cohort=replace(request.cohort, template=template))
    return _Done(name, _runner(task).run(local))


def _release(client: str) -> int:
    """End one client's runners on this worker (its collected sessions and warm workers)."""
    with _lock:
        keys = [key for key in _runners if key[0] == client]
        runners = [_runners.pop(key) for key in keys]
    for runner in runners:
        runner.close()
    return len(runners)


def _report_environment(isolation: str) -> Environment:
    return environment(isolation)


# ------------------------------------------------------------------------------ the client side


class ClusterExecutor:
    """Mutant runs as Dask tasks; runs without a mutant (baselines, regression-search recordings) stay here."""

    name = "cluster"

    def __init__(self, where: str, connect_seconds: float = CONNECT_SECONDS,
                 workers_seconds: float = WORKERS_SECONDS) -> None:
        """Connect and check every worker's environment (before any baseline, so a wrong address or a
        mismatched worker costs seconds); ``attach`` then says how to run."""
        try:
            import distributed
        except ImportError:
            raise ClusterUnavailable(f"--cluster needs Dask distributed, which is not installed here: {_INSTALL} "
                                     "(the workers need it too)") from None
        self.address = where
        self._distributed = distributed
        host, _, port = where.partition("://")[2].rpartition(":")
        try:  # a refused connection is an answer: Dask's client would retry it until its timeout
            socket.create_connection((host.strip("[]"), int(port)), timeout=connect_seconds).close()
            self.client = distributed.Client(where, timeout=connect_seconds, set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise ClusterUnavailable(
                f"could not reach the Dask scheduler at {where} ({error}); start one with `dask scheduler` and "
                f"workers with `dask worker {where}` (see the README), or run without --cluster") from None
        try:
            self.client.wait_for_workers(1, timeout=workers_seconds)
        except (TimeoutError, OSError):
            self.client.close()
            raise ClusterUnavailable(f"the Dask scheduler at {where} has no worker after {workers_seconds:g} s; start "
                                     f"one with `dask worker {where}`, or run without --cluster") from None
        active = sandbox.current()
        self.environment = environment(active.kind)
        self._task = _Task(uuid.uuid4().hex, self.environment.digest, active, "fresh", (), ())
        try:
            self.check()
        except BaseException:
            self.client.close()
            raise
        self.local: Executor | None = None
        self._archives: dict[str, object] = {}  # cohort digest -> the scattered archive's future
        self._lock = threading.Lock()
        self.runs: Counter[str] = Counter()  # worker address -> runs it finished
        self.runners: Counter[str] = Counter()  # where on the worker: collected / warm / fresh
        self.here = 0  # mutant runs that came back to this machine
        self.reason: str | None = None  # why, the first time
        self.lost = False  # the cluster stopped taking runs: the rest run here
        self.archive_bytes = 0
        self._closed = False

    def attach(self, local: Executor, runner: str, preload: tuple[str, ...], project: tuple[str, ...]) -> None:
        """How the runs go: ``local`` for those that stay here, and the workers' own runner (the same
        ``--runner``, preloading what the baselines imported)."""
        self.local = local
        self._task = replace(self._task, runner=runner, preload=preload, project=project)

    @property
    def parallelism(self) -> int:
        """Runs worth having in flight at once: every worker thread."""
        try:
            return max(1, sum(self.client.nthreads().values()))
        except (OSError, TimeoutError):
            return 1

    def check(self) -> None:
        """Every worker there now runs the tests as this machine does, or ``ClusterMismatch``."""
        reports = self.client.run(_report_environment, self._task.sandbox.kind)
        for worker, there in sorted(reports.items()):
            found = differences(self.environment, there)
            if found:
                raise _mismatch(worker, found)

    def _scattered(self, request: RunRequest, again: bool = False) -> object:
        digest = request.cohort.digest
        with self._lock:
            if again or digest not in self._archives:
                data = archive(request.cohort.template)
                self.archive_bytes += len(data)
                self._archives[digest] = self.client.scatter(data, broadcast=True, hash=False)
            return self._archives[digest]

    def run(self, request: RunRequest) -> RunResult:
        assert self.local is not None, "attach() says how to run first"
        if request.mutant is None:
            return self.local.run(request)
        if self.lost:
            return self._here(request, None)
        done = None
        for attempt in range(2):  # a second time with the archive scattered again (every holder was lost)
            try:
                future = self.client.submit(_remote_run, request, self._scattered(request, again=attempt > 0),
                                            self._task, pure=False, key=f"elenchus-run-{uuid.uuid4().hex}")
                done = future.result(timeout=RESULT_MARGIN_SECONDS + 3 * (request.timeout + KILL_GRACE_SECONDS))
                break
            except self._distributed.KilledWorker as error:  # this run, not the cluster: the next runs go there
                return self._here(request, f"a run on the cluster ended every worker that took it ({error})")
            except TimeoutError as error:  # the run has its own limit: a task this late is on a wedged worker
                future.cancel()
                return self._here(request, f"a run on the cluster gave no answer in time ({error!r})")
            except (self._distributed.CancelledError, OSError) as error:
                if attempt:
                    self.lost = True
                    return self._here(request, f"the cluster at {self.address} stopped taking runs ({error!r})")
        assert done is not None
        if done.environment is not None:
            raise _mismatch(done.worker, differences(self.environment, done.environment) or ["another environment"])
        if done.broken is not None:
            return self._here(request, f"the worker {done.worker} could not unpack the cohort ({done.broken})")
        with self._lock:
            self.runs[done.worker] += 1
            self.runners[done.result.executor] += 1
        return done.result

    def _here(self, request: RunRequest, reason: str | None) -> RunResult:
        """A mutant run on this machine instead, the reason kept for the report."""
        with self._lock:
            self.here += 1
            self.reason = self.reason or reason
        assert self.local is not None
        return self.local.run(request)

    def describe(self) -> str:
        """One line for the report: where the mutant runs happened."""
        total = sum(self.runs.values())
        if not total and not self.here:
            return "no mutant run was needed"
        how = {"collected": "forked from a collected pytest session", "warm": "forked from a warm interpreter",
               "fresh": "in a fresh interpreter"}
        ways = ", ".join(f"{count} {how.get(kind, kind)}" for kind, count in self.runners.most_common())
        text = (f"{total} mutant run(s) on the Dask cluster at {self.address}, on {len(self.runs)} worker(s), each "
                f"in a fresh copy of its cohort inside the worker's sandbox ({ways})") if total else ""
        if self.here:
            text += ("; " if text else "") + f"{self.here} on this machine because {self.reason}"
        return text

    def close(self) -> None:
        """End this evaluation's runners on the workers and disconnect (a second call does nothing)."""
        if self._closed:
            return
        self._closed = True
        try:
            self.client.run(_release, self._task.client)
        except Exception:  # noqa: BLE001 - a cluster that went away has nothing left to release
            pass
        try:
            self.client.close(timeout=10)
        except Exception:  # noqa: BLE001
            pass
        if self.local is not None:
            self.local.close()

