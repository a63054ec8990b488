"""Where a run happens: the scheduler hands each run to an ``Executor`` and gets a ``RunResult`` back.

``FreshProcess`` starts a new interpreter per run. ``WarmRunner`` keeps one warm worker
per job slot (``warm.py``), each in its own sandbox, and forks a child per run; when a
worker cannot be trusted to give every run a clean start (a preloaded dependency imports
the project or starts a thread, fork is unavailable), stops answering, or fails a run that a
fresh interpreter completes, its runs go to a fresh interpreter instead and the reason is kept
for the report. Both copy the cohort
into a fresh workspace per run and check afterwards that the template was not touched.
"""

from __future__ import annotations

import json
import os
import queue
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from elenchus import sandbox
from elenchus.cohorts import Cohort
from elenchus.mutate import Mutant
from elenchus.run import FRESH, Execution, Launch, Launcher, RunResult, module_loader, run_pytest
from elenchus.workspace import fresh_copy, remove_tree, verify_unchanged, write_mutant

WARM_MODULE = "_elenchus_warm_worker"
READY_SECONDS = 120.0  # a worker that has not preloaded by then is given up for fresh interpreters
REPLY_MARGIN_SECONDS = 30.0  # beyond a run's own timeout and grace, before the worker counts as hung


@dataclass(frozen=True, slots=True)
class RunRequest:
    """One pytest run of some tests of a cohort, with or without a mutant."""

    cohort: Cohort
    tests: tuple[str, ...]
    timeout: float
    mutant: Mutant | None = None
    deselect: tuple[str, ...] = ()
    cover: tuple[str, ...] = ()
    select: tuple[str, ...] | None = None  # test keys (coverage_map.Selection), None: all collected
    stop: bool = False  # end at the first failed check


class Executor(Protocol):
    name: str

    def run(self, request: RunRequest) -> RunResult: ...

    def close(self) -> None: ...


def _run_env() -> dict[str, str]:
    """The caller's environment without PYTHONPATH, which could make the tests import the user's
    real source tree instead of the mutated copy (the run sets its own: the workspace's roots)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def run_in(request: RunRequest, parent: Path, launcher: Launcher = FRESH) -> RunResult:
    """``request`` in a fresh copy of its cohort under ``parent``; the template is verified unchanged after."""
    cohort, mutant = request.cohort, request.mutant
    workspace = fresh_copy(cohort.template, parent)
    try:
        if mutant is not None:
            write_mutant(workspace, mutant.path, mutant.mutated_source)
        argv = list(request.tests)
        for nodeid in request.deselect:
            argv += ["--deselect", nodeid]
        return run_pytest(workspace, argv, request.timeout, mutated_file=mutant.path if mutant else None,
                          env=_run_env(), disabled_plugins=cohort.disabled_plugins, layout=cohort.layout,
                          mutated_lines=mutant.mutated_lines if mutant else (), cover=request.cover,
                          select=request.select, stop=request.stop, launcher=launcher)
    finally:
        remove_tree(workspace)
        verify_unchanged(cohort.template, cohort.digest)


class FreshProcess:
    """A new interpreter for every run."""

    name = "fresh"

    def __init__(self, root: Path) -> None:
        self.root = root

    def run(self, request: RunRequest) -> RunResult:
        return run_in(request, self.root)

    def close(self) -> None:
        pass


class WorkerUnavailable(Exception):
    """The warm worker could not take this run; it goes to a fresh interpreter."""


class _Worker:
    """One warm worker in its own sandbox, with a slot directory that holds the current run."""

    def __init__(self, root: Path, index: int, preload: Sequence[str], project: Sequence[str]) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.slot = Path(tempfile.mkdtemp(prefix=f"warm-{index}-", dir=root)).resolve()
        self.log = Path(tempfile.mkstemp(prefix=f"warm-{index}-", suffix=".log")[1])
        self.ready: dict | None = None
        current = sandbox.current()
        wipe, keep = sandbox.private_places(current) if current.isolated else ([], [])
        arguments = [list(preload), list(project), [str(self.slot), *keep], wipe]
        code = (module_loader(WARM_MODULE, str(Path(__file__).with_name("warm.py").resolve()))
                + f"module.serve(*{json.dumps(arguments)})\n")
        env = {k: v for k, v in _run_env().items()}
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                current.wrap([sys.executable, "-c", code], self.slot, [], sys.executable),
                cwd=self.slot, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                start_new_session=True, close_fds=True)
        self._buffer = b""
        self.ready = self._reply(time.monotonic() + READY_SECONDS)
        if self.ready is None:
            raise WorkerUnavailable(f"the warm worker did not start ({self._log_tail()})")

    def _log_tail(self) -> str:
        try:
            text = self.log.read_text(errors="replace").strip()
        except OSError:
            return "no log"
        return (text.splitlines() or ["no message"])[-1][:300]

    def _reply(self, deadline: float) -> dict | None:
        """The worker's next line, or None when it exits or says nothing before ``deadline``."""
        stdout = self.process.stdout
        assert stdout is not None
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([stdout], [], [], left)[0]:
                return None
            chunk = os.read(stdout.fileno(), 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def launch(self, command: Sequence[str], workspace: Path, run_dir: Path, env: Mapping[str, str],
               stdout_path: Path, stderr_path: Path, timeout: float | None, kill_grace: float,
               python: str) -> Launch:
        request = {"code": command[2], "argv": list(command[3:]), "cwd": str(workspace), "env": dict(env),
                   "stdout": str(stdout_path), "stderr": str(stderr_path), "timeout": timeout, "grace": kill_grace}
        try:
            assert self.process.stdin is not None
            self.process.stdin.write((json.dumps(request) + "\n").encode())
            self.process.stdin.flush()
        except OSError as error:
            raise WorkerUnavailable(f"the warm worker is gone ({error})") from None
        wait = (timeout or 3600.0) + kill_grace + REPLY_MARGIN_SECONDS
        answer = self._reply(time.monotonic() + wait)
        if answer is None:
            raise WorkerUnavailable(f"the warm worker stopped answering ({self._log_tail()})")
        if answer.get("error"):
            raise WorkerUnavailable(str(answer["error"]))
        return Launch(answer.get("exit_code"), bool(answer.get("timed_out")), answer.get("pid"))

    def close(self) -> None:
        from elenchus.run import _stop

        if self.process.poll() is None:
            try:
                assert self.process.stdin is not None
                self.process.stdin.close()
                self.process.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if self.process.poll() is None:
            _stop(self.process, 0.5)
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        shutil.rmtree(self.slot, ignore_errors=True)
        self.log.unlink(missing_ok=True)


class _SlotLauncher:
    """A launcher bound to one worker: the runs live in its slot."""

    name = "warm"

    def __init__(self, worker: _Worker) -> None:
        self.worker = worker
        self.scratch = worker.slot

    def launch(self, *args, **kwargs) -> Launch:  # noqa: ANN002, ANN003 - Launcher.launch
        return self.worker.launch(*args, **kwargs)


class WarmRunner:
    """Runs forked from warm workers, one worker per job slot; a fresh interpreter when that is unsafe."""

    name = "warm"

    def __init__(self, root: Path, slots: int, preload: Sequence[str], project: Sequence[str]) -> None:
        self.root = root
        self.slots = slots
        self.preload = tuple(preload)
        self.project = tuple(project)
        self.fresh = FreshProcess(root)
        self.reason: str | None = None if hasattr(os, "fork") else "this platform cannot fork a warm interpreter"
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._started = 0
        self._closed = False
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self.warm_runs = 0
        self.fresh_runs = 0

    def _acquire(self) -> _Worker | None:
        if self.reason is not None:
            return None  # once a worker proved unfit, no run is trusted to the others either
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            if self.reason is not None or self._closed:
                return None
            if self._started < self.slots:
                self._started += 1
                try:
                    worker = _Worker(self.root, self._started, self.preload, self.project)
                except (OSError, WorkerUnavailable, ValueError) as error:
                    self.reason = str(error)
                    return None
                self._workers.append(worker)
                unsafe = (worker.ready or {}).get("unsafe")
                if unsafe:
                    self.reason = unsafe
                    return None
                return worker
        return self._idle.get()

    def run(self, request: RunRequest) -> RunResult:
        worker = self._acquire()
        if worker is None:
            self.fresh_runs += 1
            return self.fresh.run(request)
        try:
            result = run_in(request, worker.slot, _SlotLauncher(worker))
        except WorkerUnavailable as error:
            with self._lock:
                self.reason = self.reason or str(error)
                self._workers.remove(worker)
            worker.close()
            self.fresh_runs += 1
            return self.fresh.run(request)
        self._idle.put(worker)
        if result.execution is Execution.INFRASTRUCTURE_ERROR:
            return self._second_opinion(request, result)
        self.warm_runs += 1
        return result

    def _second_opinion(self, request: RunRequest, warm: RunResult) -> RunResult:
        """A warm run that could not run the tests is run again in a fresh interpreter. If that one
        completes, the workers differ from a fresh start in some way this project notices, so every
        later run goes fresh too; either way the fresh result is the one kept."""
        self.fresh_runs += 1
        fresh = self.fresh.run(request)
        if fresh.execution is not Execution.INFRASTRUCTURE_ERROR:
            with self._lock:
                self.reason = self.reason or (
                    f"a run forked from the warm interpreter could not run the tests ({warm.detail}) where a "
                    "fresh interpreter could")
        return fresh

    def describe(self) -> str:
        """One line for the report: where the runs happened, and why some did not happen warm."""
        warm = "forked from a warm interpreter per job slot (pytest and the tests' dependencies imported once)"
        if not self.warm_runs and not self.fresh_runs:
            return "no mutant run was needed"
        if self.reason is None or not self.fresh_runs:
            return warm
        if self.warm_runs:
            return f"{warm}; {self.fresh_runs} run(s) in a fresh interpreter because {self.reason}"
        return f"a fresh interpreter per run, because {self.reason}"

    def close(self) -> None:
        with self._lock:
            workers, self._workers = self._workers, []
            self._started = self.slots  # nothing starts after closing
            self._closed = True
        for worker in workers:
            worker.close()
