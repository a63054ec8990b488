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
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from elenchus.execution import sandbox
from elenchus.execution.cohorts import Cohort
from elenchus.mutation.mutate import Mutant
from elenchus.execution.run import (FRESH, KILL_GRACE_SECONDS, WARM_MODULE, Execution, Launch, Launcher, RunResult,
                          module_loader, pytest_command, run_environment, run_pytest, scrub_environment)
from elenchus.execution.workspace import fresh_copy, place_test, remove_tree, verify_unchanged, write_mutant

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
    stop: bool = False  # end at the first test that surely caught the mutant
    extra: tuple[tuple[str, str], ...] = ()  # (path, text) of test files written into the copy: a probe
    watch: bool = True  # trace whether the mutated lines run (a cost; needless where the baseline's coverage says)
    first: tuple[str, ...] = ()  # without ``select``: test keys to run before the others (order only)


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
        for path, text in request.extra:
            place_test(workspace, path, text)
        argv = list(request.tests)
        for nodeid in request.deselect:
            argv += ["--deselect", nodeid]
        return run_pytest(workspace, argv, request.timeout, mutated_file=mutant.path if mutant else None,
                          env=_run_env(), disabled_plugins=cohort.disabled_plugins, layout=cohort.layout,
                          mutated_lines=mutant.mutated_lines if mutant and request.watch else (),
                          cover=request.cover, select=request.select, first=request.first,
                          stop=request.stop, launcher=launcher)
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


class NotCollected(Exception):
    """A collected session could not take this run or these tests; they run from the warm worker."""


class Declined(Exception):
    """The collected session cannot hold this mutant (it changes code that runs at import)."""


@dataclass(slots=True)
class _Session:
    """A collected session in one worker, for one cohort and one set of test files."""

    key: tuple
    workspace: Path
    requests: int  # our end of the requests pipe
    replies: int
    pipes: tuple[Path, Path]
    buffer: bytes = b""
    retire: bool = False


def _last_line(path: Path) -> str:
    try:
        lines = [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""


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
        # The sandbox's init and this worker start from it, and every fork shares the block: /proc/*/environ
        # of each process a test can see holds no secret of the caller's environment.
        env = scrub_environment(_run_env())
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                current.wrap([sys.executable, "-c", code], self.slot, [], sys.executable),
                cwd=self.slot, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                start_new_session=True, close_fds=True)
        self._buffer = b""
        self.session: _Session | None = None
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

    def _send(self, command: Sequence[str], workspace: Path, env: Mapping[str, str], stdout_path: Path,
              stderr_path: Path, timeout: float | None, kill_grace: float) -> None:
        request = {"code": command[2], "argv": list(command[3:]), "cwd": str(workspace), "env": dict(env),
                   "stdout": str(stdout_path), "stderr": str(stderr_path), "timeout": timeout, "grace": kill_grace}
        try:
            assert self.process.stdin is not None
            self.process.stdin.write((json.dumps(request) + "\n").encode())
            self.process.stdin.flush()
        except OSError as error:
            raise WorkerUnavailable(f"the warm worker is gone ({error})") from None

    def launch(self, command: Sequence[str], workspace: Path, run_dir: Path, env: Mapping[str, str],
               stdout_path: Path, stderr_path: Path, timeout: float | None, kill_grace: float,
               python: str) -> Launch:
        self._send(command, workspace, env, stdout_path, stderr_path, timeout, kill_grace)
        wait = (timeout or 3600.0) + kill_grace + REPLY_MARGIN_SECONDS
        answer = self._reply(time.monotonic() + wait)
        if answer is None:
            raise WorkerUnavailable(f"the warm worker stopped answering ({self._log_tail()})")
        if answer.get("error"):
            raise WorkerUnavailable(str(answer["error"]))
        return Launch(answer.get("exit_code"), bool(answer.get("timed_out")), answer.get("pid"))

    # -- a collected session (``warm.Collected``): the worker forks it and waits for it to end,
    #    while the runs go through two pipes in the slot

    def start_session(self, request: RunRequest, key: tuple) -> _Session:
        """Fork a session that collects ``request``'s tests in a copy of its cohort; raises
        ``NotCollected`` when it does not get ready within the run's own time limit."""
        cohort = request.cohort
        workspace = fresh_copy(cohort.template, self.slot)
        pipes = (self.slot / "collected-requests", self.slot / "collected-replies")
        for pipe in pipes:
            pipe.unlink(missing_ok=True)
            os.mkfifo(pipe, 0o600)
        session = _Session(key, workspace, os.open(pipes[0], os.O_RDWR), os.open(pipes[1], os.O_RDWR), pipes)
        self.session = session
        tests = list(request.tests)
        for nodeid in request.deselect:
            tests += ["--deselect", nodeid]
        command = pytest_command(self.slot / "collected-records.jsonl", tests, sys.executable,
                                 disabled_plugins=cohort.disabled_plugins, layout=cohort.layout,
                                 serve=(str(pipes[0]), str(pipes[1])))
        self._send(command, workspace, run_environment(workspace, _run_env(), cohort.layout),
                   self.slot / "collected-stdout.txt", self.slot / "collected-stderr.txt", None, KILL_GRACE_SECONDS)
        ready = self._answer(session, time.monotonic() + request.timeout)
        if ready is None or not ready.get("ready") or ready.get("unsafe"):
            why = (ready or {}).get("unsafe") or "the session that collects the tests did not get ready (" + (
                _last_line(self.slot / "collected-stderr.txt") or "no message") + ")"
            self.end_session()
            raise NotCollected(why)
        return session

    def ask(self, message: dict, deadline: float) -> dict:
        """Send one run to the session and wait for its answer; ``NotCollected`` when none comes."""
        session = self.session
        assert session is not None
        self._write(session, (json.dumps(message) + "\n").encode(), deadline)
        answer = self._answer(session, deadline)
        if answer is None:
            raise NotCollected("the collected session stopped answering (" + (
                _last_line(self.slot / "collected-stderr.txt") or "no message") + ")")
        return answer

    def _write(self, session: _Session, data: bytes, deadline: float) -> None:
        """Write a request whole; a session that ended or stopped reading (a full pipe) raises
        ``NotCollected`` instead of blocking for ever."""
        stdout = self.process.stdout
        assert stdout is not None
        os.set_blocking(session.requests, False)
        while data:
            left = deadline - time.monotonic()
            readable, writable, _ = select.select([stdout], [session.requests], [], max(0.0, left))
            if readable or (not writable and left <= 0):
                raise NotCollected("the collected session stopped reading its requests")
            if writable:
                try:
                    data = data[os.write(session.requests, data):]
                except BlockingIOError:
                    continue
                except OSError as error:
                    raise NotCollected(f"the collected session is gone ({error})") from None

    def _answer(self, session: _Session, deadline: float) -> dict | None:
        """The session's next line; None when it ended (the worker answered) or ``deadline`` passed."""
        stdout = self.process.stdout
        assert stdout is not None
        while b"\n" not in session.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready = select.select([session.replies, stdout], [], [], left)[0]
            if session.replies in ready:
                chunk = os.read(session.replies, 65536)
                session.buffer += chunk
                continue
            if ready:
                return None  # the worker speaks only once the session has ended
        line, _, session.buffer = session.buffer.partition(b"\n")
        return json.loads(line)

    def end_session(self, wait: bool = True) -> None:
        """Let the session end (its requests pipe closes), collect the worker's answer and clean up;
        ``WorkerUnavailable`` when the worker does not answer. Without ``wait`` (the worker is being
        stopped anyway) nothing waits for the session's last run."""
        session, self.session = self.session, None
        if session is None:
            return
        os.close(session.requests)
        ended = self._reply(time.monotonic() + REPLY_MARGIN_SECONDS) if wait else {}
        os.close(session.replies)
        for pipe in session.pipes:
            pipe.unlink(missing_ok=True)
        remove_tree(session.workspace)
        if ended is None:
            raise WorkerUnavailable(f"the warm worker did not end a collected session ({self._log_tail()})")

    def close(self) -> None:
        from elenchus.execution.run import _stop

        if self.session is not None:
            try:
                self.end_session(wait=False)
            except OSError:
                pass
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


class _SessionLauncher:
    """A launcher that hands the run to the worker's collected session."""

    name = "collected"

    def __init__(self, worker: _Worker, request: RunRequest) -> None:
        self.worker = worker
        self.request = request
        self.scratch = worker.slot

    def launch(self, command: Sequence[str], workspace: Path, run_dir: Path, env: Mapping[str, str],
               stdout_path: Path, stderr_path: Path, timeout: float | None, kill_grace: float,
               python: str) -> Launch:
        request, mutant = self.request, self.request.mutant
        assert mutant is not None and self.worker.session is not None
        lines = sorted(set(mutant.mutated_lines)) if request.watch else []
        message = {"mutant": {"path": mutant.path, "source": mutant.mutated_source},
                   "select": None if request.select is None else list(request.select), "stop": request.stop,
                   "trace": {"file": mutant.path, "lines": lines} if lines else None,
                   "record": str(run_dir / "records.jsonl"), "stdout": str(stdout_path), "stderr": str(stderr_path),
                   "timeout": timeout, "grace": kill_grace}
        answer = self.worker.ask(message, time.monotonic() + (timeout or 3600.0) + kill_grace + REPLY_MARGIN_SECONDS)
        if answer.get("declined"):
            raise Declined(str(answer["declined"]))
        self.worker.session.retire = bool(answer.get("retire"))
        return Launch(answer.get("exit_code"), bool(answer.get("timed_out")), answer.get("pid"))


class WarmRunner:
    """Runs forked from warm workers, one worker per job slot; a fresh interpreter when that is unsafe."""

    name = "warm"

    def __init__(self, root: Path, slots: int, preload: Sequence[str], project: Sequence[str],
                 collect: bool = True) -> None:
        self.root = root
        self.collect = collect and hasattr(os, "mkfifo")
        self._uncollectable: dict[tuple, str] = {}  # (cohort, tests, deselect) -> why not
        self.collected_runs = 0
        self.declined: dict[str, int] = {}  # why a mutant was run from the worker instead -> how many
        self.slots = slots
        self.preload = tuple(preload)
        self.project = tuple(project)
        self.fresh = FreshProcess(root)
        self.reason: str | None = None if hasattr(os, "fork") else "this platform cannot fork a warm interpreter"
        self._free: list[_Worker] = []  # idle workers, the last returned first
        self._started = 0
        self._start_seconds: float | None = None  # how long the first worker took to start
        self._session_seconds: float | None = None if self.collect else 0.0  # and to collect the tests once
        self._closed = False
        self._lock = threading.Lock()
        self._turns = threading.Condition(self._lock)  # runs wait their turn for a worker
        self._tickets = 0  # turns given out
        self._serving = 0  # the turn served next
        self._done: set[int] = set()  # turns that ended, not yet passed
        self._workers: list[_Worker] = []
        # Workers start from this one long-lived thread: the sandbox ends a worker when the thread that
        # started it ends (bubblewrap's --die-with-parent), and the callers' threads end with each batch.
        self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="elenchus-warm-start")
        self.warm_runs = 0
        self.fresh_runs = 0
        self.test_runs = 0  # of all those, runs of a written test (a witness verified on the code or a mutant)

    def _acquire(self) -> _Worker | None:
        """An idle worker, to the runs in the order they asked; a new one only when the first in line has
        waited as long as a new worker takes to become useful (start, and collect the tests), as the first
        worker showed. Short runs are served by the workers there are (a small change's runs cost no second
        interpreter); long ones soon get a worker each."""
        with self._turns:
            ticket = self._tickets
            self._tickets += 1
            deadline = None
            try:
                while True:
                    if self.reason is not None or self._closed:
                        return None  # once a worker proved unfit, no run is trusted to the others either
                    if ticket == self._serving:
                        if self._free:
                            return self._free.pop()
                        if self._started < self.slots and (
                                self._started == 0 or (deadline is not None and time.monotonic() >= deadline)):
                            return self._start()
                        if deadline is None and self._start_seconds is not None and self._session_seconds is not None:
                            deadline = time.monotonic() + self._start_seconds + self._session_seconds
                    wait = None if self._started >= self.slots or ticket != self._serving else (
                        0.05 if deadline is None else max(0.0, deadline - time.monotonic()))
                    self._turns.wait(wait)
            finally:
                self._done.add(ticket)  # (one that gave up out of turn is passed over when its turn comes)
                while self._serving in self._done:
                    self._done.discard(self._serving)
                    self._serving += 1
                self._turns.notify_all()

    def _release(self, worker: _Worker) -> None:
        """``worker`` back to the runs waiting, unless it was lost (they then go to fresh interpreters)."""
        with self._turns:
            if worker in self._workers:
                self._free.append(worker)
            self._turns.notify_all()

    def _start(self) -> _Worker | None:
        """A new worker (under ``_lock``), or None when it could not start or is unfit (``reason`` says why)."""
        self._started += 1
        started = time.monotonic()
        try:
            worker = self._starter.submit(_Worker, self.root, self._started, self.preload, self.project).result()
        except (OSError, WorkerUnavailable, ValueError) as error:
            self.reason = str(error)
            return None
        if self._start_seconds is None:
            self._start_seconds = max(0.1, time.monotonic() - started)
        self._workers.append(worker)
        unsafe = (worker.ready or {}).get("unsafe")
        if unsafe:
            self.reason = unsafe
            return None
        return worker

    def run(self, request: RunRequest) -> RunResult:
        if request.extra:
            with self._lock:
                self.test_runs += 1
        worker = self._acquire()
        if worker is None:
            self.fresh_runs += 1
            return self.fresh.run(request)
        try:
            result = self._collected(worker, request) if self.collect else None
            if result is not None:
                return result
            worker.end_session()  # the worker waits on its session: it takes other runs once that ended
            if self._session_seconds is None:  # its first run needed no session: a new worker is ready once started
                self._session_seconds = 0.0
            result = run_in(request, worker.slot, _SlotLauncher(worker))
        except WorkerUnavailable as error:
            with self._lock:
                self.reason = self.reason or str(error)
                self._workers.remove(worker)
            worker.close()
            self.fresh_runs += 1
            return self.fresh.run(request)
        finally:
            self._release(worker)  # whatever happened, the runs waiting their turn are not left waiting
        if result.execution is Execution.INFRASTRUCTURE_ERROR:
            return self._second_opinion(request, result)
        self.warm_runs += 1
        return result

    def _collected(self, worker: _Worker, request: RunRequest) -> RunResult | None:
        """``request`` forked from the worker's session that collected its tests, when it can be;
        None: run it from the worker as usual. Only a run of selected tests qualifies: its mutated
        lines lie inside a function body and never ran at import or in a fixture."""
        mutant, cohort = request.mutant, request.cohort
        if mutant is None or request.select is None or request.cover:
            return None
        key = (cohort.digest, request.tests, request.deselect)
        with self._lock:
            if key in self._uncollectable:
                return None
        try:
            if worker.session is not None and worker.session.key != key:
                worker.end_session()
            if worker.session is None:
                began = time.monotonic()
                worker.start_session(request, key)
                if self._session_seconds is None:
                    self._session_seconds = time.monotonic() - began
            try:
                result = run_pytest(worker.session.workspace, list(request.tests), request.timeout,
                                    mutated_file=mutant.path, env=_run_env(), deselect=request.deselect,
                                    disabled_plugins=cohort.disabled_plugins, layout=cohort.layout,
                                    mutated_lines=mutant.mutated_lines if request.watch else (),
                                    select=request.select, stop=request.stop,
                                    launcher=_SessionLauncher(worker, request))
            finally:
                verify_unchanged(cohort.template, cohort.digest)
        except Declined as declined:
            with self._lock:
                reason = str(declined)
                self.declined[reason] = self.declined.get(reason, 0) + 1
            return None
        except (NotCollected, OSError) as error:
            worker.end_session()
            self._give_up(key, str(error))
            return None
        if result.execution is Execution.INFRASTRUCTURE_ERROR:
            worker.end_session()
            self._give_up(key, f"a run forked from the collected session could not run the tests ({result.detail})")
            return None
        if worker.session is not None and worker.session.retire:
            worker.end_session()
        with self._lock:
            self.collected_runs += 1
        return result

    def _give_up(self, key: tuple, reason: str) -> None:
        with self._lock:
            self._uncollectable.setdefault(key, reason)

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
        told, total = self._where(), self.warm_runs + self.fresh_runs + self.collected_runs
        if self.test_runs and total:
            told += f"; {self.test_runs} of these {total} runs checked witness tests, on the code and on a mutant"
        return told

    def _where(self) -> str:
        warm = "forked from a warm interpreter per job slot (pytest and the tests' dependencies imported once)"
        if self.collected_runs:
            reasons = sorted(self.declined.items(), key=lambda item: -item[1])
            reasons += [(reason, 0) for reason in self._uncollectable.values()]
            collected = (f"{self.collected_runs} run(s) forked from a pytest session per job slot that had imported "
                         "the project and collected the tests once (the mutated function's code swapped in)")
            if self.warm_runs:
                collected += (f"; {self.warm_runs} forked from a warm interpreter per job slot instead"
                              + (f", the most common reason: {reasons[0][0]}" if reasons else ""))
            warm = collected
        if not self.warm_runs and not self.fresh_runs and not self.collected_runs:
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
            self._turns.notify_all()
        for worker in workers:
            worker.close()
        self._starter.shutdown(wait=True)
