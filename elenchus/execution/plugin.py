"""The Elenchus pytest plugin: one JSON line per test, with the kind of each failure.

Loaded with ``-p elenchus.execution.plugin`` and active only when ``--elenchus-record PATH`` is
given. ``elenchus.execution.run`` loads this same file under a private module name so that a
workspace holding its own ``elenchus`` package (Elenchus mutating itself) cannot
shadow it: keep this module self-contained (standard library and pytest only).
Its pieces beside it (``classify.py``: the kind of a failure and the check it surfaced in;
``watch.py``: import isolation, the mutated-line watch, coverage and the files read;
``record_protocol.py``) are loaded the same way, from their files under private names.

Records are keyed by nodeid and phase (``report.when``), so a fixture error is never
mistaken for an assertion failure. unittest runs setUp/tearDown/cleanups inside
pytest's "call" phase; a failure there is recognised by unittest's own frames in the
traceback and recorded as a "setup-error" too. Each test line holds::

    {"nodeid", "outcome", "duration", "failure_kind", "crossed_files",
     "exception_type", "message", "check"}

``outcome`` is one of ``OUTCOMES``; ``failure_kind`` is null or one of
``FAILURE_KINDS``; ``check`` says whether the failure surfaced while the test was
checking (``CHECKS``: an ``assert`` statement, an ``assert*`` call, a
``pytest.raises``/``assertRaises`` block) or null, read from the statement at the
test file's frames in the traceback. A failed collection yields one line for the collector's nodeid
(the module) with outcome "error" and kind "collection-error". The file ends with one
``{"session": {...}}`` line (exit status, rootdir, the test that was running if
the session was interrupted, whether the mutated lines executed, and the file each
of the project's modules was imported from), so a reader can tell a complete file
from a cut one.

``run(options, argv)`` is the subprocess entry point: before pytest starts it keeps
other copies of the project's packages off the import path (``isolate_imports``) and
starts watching the mutated lines (``LineWatch``), so code run at import time counts.
The file is written at ``pytest_sessionfinish`` (which pytest also runs after a
KeyboardInterrupt), atomically, through a temporary sibling and a rename. While
recording, a SIGTERM (the runner's timeout) is turned into a KeyboardInterrupt when no
other handler is installed, so a killed run still names the test it was stuck in.
"""

from __future__ import annotations

import json
import os
import signal
import site
import sys
import threading
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import Any

import pytest


def _sibling(name: str) -> Any:
    """A self-contained module beside this file (standard library and pytest only), loaded from its file
    under a private name as this one is (a workspace's own ``elenchus`` package cannot shadow it either)."""
    import importlib.util

    private = f"_elenchus_{name}"
    if private not in sys.modules:
        spec = importlib.util.spec_from_file_location(private, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[private] = module
        spec.loader.exec_module(module)
    return sys.modules[private]


_protocol = _sibling("record_protocol")
RECORD_OPTION: str = _protocol.RECORD_OPTION
NEVER_A_KILL_EXCEPTIONS: frozenset[str] = _protocol.NEVER_A_KILL_EXCEPTIONS
CHECKS: tuple[str, ...] = _protocol.CHECKS
running_path = _protocol.running_path

_classify = _sibling("classify")
classify_exception = _classify.classify_exception
check_at = _classify.check_at
_statements_of = _classify._statements_of
_short_message = _classify._short_message
_failure_from_excinfo = _classify._failure_from_excinfo
_collection_failure = _classify._collection_failure

_watch = _sibling("watch")
LineWatch = _watch.LineWatch
LineCoverage = _watch.LineCoverage
ReadLog = _watch.ReadLog
isolate_imports = _watch.isolate_imports

OUTCOMES = ("passed", "failed", "skipped", "error", "xfailed", "xpassed")
FAILURE_KINDS = (
    "assertion",
    "expected-exception-not-raised",
    "unexpected-exception",
    "collection-error",
    "setup-error",
    "timeout",
)

#: Failures that are a check's own verdict.
STRONG_FAILURES = ("assertion", "expected-exception-not-raised")

#: Attribute set on each failed TestReport by the makereport wrapper. A plain report
#: attribute survives xdist's report serialisation (TestReport keeps unknown keys).
_FAILURE_ATTR = "elenchus_failure"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("elenchus", "Elenchus mutation-testing recorder")
    group.addoption(
        RECORD_OPTION,
        dest="elenchus_record",
        metavar="PATH",
        default=None,
        help="write one JSON line per test (outcome, failure kind, crossed files) to PATH",
    )


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("elenchus_record", None)
    if not path:
        return
    # Workers annotate their reports; only the controller (or a plain session) writes.
    is_xdist_worker = hasattr(config, "workerinput")
    context = next((p for p in config.pluginmanager.get_plugins() if isinstance(p, RunContext)), None)
    recorder = Recorder(Path(path), config.rootpath, persist=not is_xdist_worker, context=context)
    config.pluginmanager.register(recorder, "elenchus-recorder")


# ---------------------------------------------------------------------------
# aggregation of the phases of one test


class _TestPhases:
    """Reports of one nodeid, by phase; a test with subtests has several "call" reports."""

    __slots__ = ("nodeid", "reports")

    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid
        self.reports: dict[str, list[pytest.TestReport]] = {}

    def add(self, report: pytest.TestReport) -> None:
        self.reports.setdefault(report.when, []).append(report)

    @property
    def complete(self) -> bool:
        return "teardown" in self.reports

    def record(self) -> dict[str, Any]:
        setup = self.reports.get("setup", [])
        calls = self.reports.get("call", [])
        teardown = self.reports.get("teardown", [])
        duration = sum(r.duration for rs in self.reports.values() for r in rs)
        outcome = "passed"
        failure: dict[str, Any] | None = None

        failed_setup = next((r for r in setup if r.failed), None)
        failed_call = next((r for r in calls if r.failed), None)
        failed_teardown = next((r for r in teardown if r.failed), None)
        if failed_setup is not None:
            outcome, failure = "error", self._failure(failed_setup, "setup-error")
        elif failed_call is not None:
            if str(failed_call.longrepr or "").startswith("[XPASS(strict)]"):
                outcome = "xpassed"  # pytest counts it failed; no exception was raised
            else:
                failure = self._failure(failed_call, "unexpected-exception")
                # A unittest setUp/tearDown failure is an error, as a fixture's would be.
                outcome = "error" if failure["failure_kind"] == "setup-error" else "failed"
        elif calls:
            outcome = self._plain_outcome(calls[-1])
        elif setup:
            outcome = self._plain_outcome(setup[-1])
        if failed_teardown is not None and outcome not in ("failed", "error"):
            outcome, failure = "error", self._failure(failed_teardown, "setup-error")

        return {
            "nodeid": self.nodeid,
            "outcome": outcome,
            "duration": round(duration, 6),
            "failure_kind": failure["failure_kind"] if failure else None,
            "crossed_files": failure["crossed_files"] if failure else [],
            "exception_type": failure["exception_type"] if failure else None,
            "message": failure["message"] if failure else None,
            "check": failure.get("check") if failure else None,
        }

    @staticmethod
    def _plain_outcome(report: pytest.TestReport) -> str:
        xfail = hasattr(report, "wasxfail")
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        if report.passed and xfail:
            return "xpassed"
        return "passed"

    @staticmethod
    def _failure(report: pytest.TestReport, fallback_kind: str) -> dict[str, Any]:
        found = getattr(report, _FAILURE_ATTR, None)
        if isinstance(found, dict):
            return found
        # No exception was captured for this report (e.g. a plugin set it failed).
        return {
            "failure_kind": fallback_kind if report.when == "call" else "setup-error",
            "exception_type": None,
            "message": _short_message(str(report.longrepr or "")) or None,
            "crossed_files": [],
            "check": None,
        }


# ---------------------------------------------------------------------------
# the plugin object


class Recorder:
    """Registered by ``pytest_configure`` when ``--elenchus-record`` is given."""

    def __init__(self, path: Path, rootdir: Path, *, persist: bool = True,
                 context: RunContext | None = None) -> None:
        self.path = path
        self.rootdir = rootdir
        self.persist = persist
        self.context = context
        self.tests: dict[str, _TestPhases] = {}
        self.collection_errors: list[dict[str, Any]] = []
        self._collect_excinfo: dict[str, Any] = {}
        self._running: str | None = None
        self._marker: tuple[Path, int] | None = None  # the record path it belongs to, and its descriptor
        self._previous_sigterm: Any = None
        self.exit_when_written = False  # a forked run of a collected session ends once its records are out

    # -- a SIGTERM (the runner's timeout) ends the session like Ctrl-C, so the
    #    records of the tests that finished are still written.
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if not self.persist or threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            self._previous_sigterm = signal.signal(signal.SIGTERM, _sigterm_to_interrupt)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._previous_sigterm is not None:
            signal.signal(signal.SIGTERM, self._previous_sigterm)
            self._previous_sigterm = None

    # -- annotation (runs in every process, xdist workers included)
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, Any, None]:
        outcome = yield
        report = outcome.get_result()
        if report.failed and call.excinfo is not None:
            item_path = getattr(item, "path", None)
            setattr(report, _FAILURE_ATTR, _failure_from_excinfo(call.excinfo, call.when, item_path))

    def pytest_exception_interact(self, node: Any, call: Any, report: Any) -> None:
        if isinstance(node, pytest.Collector) and call is not None:
            self._collect_excinfo[node.nodeid] = call.excinfo

    # -- recording (controller only)
    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self._running = nodeid
        if self.persist:
            self._mark(nodeid)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.persist:
            return
        phases = self.tests.get(report.nodeid)
        if phases is None:
            phases = self.tests[report.nodeid] = _TestPhases(report.nodeid)
        phases.add(report)

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        self._running = None
        if self.persist:
            self._mark(None)

    def _mark(self, nodeid: str | None) -> None:
        """Keep the running test's node id in ``<record>.running``, empty between tests: a run killed
        before it could write its records (a test that ignores SIGTERM, a hang in C code, a loaded host
        outlasting the grace) still names the test that was running."""
        if self._marker is None or self._marker[0] != self.path:  # (a forked run has a record path of its own)
            if self._marker is not None:
                os.close(self._marker[1])
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._marker = (self.path, os.open(running_path(self.path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
        descriptor = self._marker[1]
        if nodeid is None:
            os.ftruncate(descriptor, 0)
        else:
            os.pwrite(descriptor, nodeid.encode("utf-8", "surrogateescape") + b"\n", 0)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if not self.persist or not report.failed:
            return
        excinfo = self._collect_excinfo.pop(report.nodeid, None)
        line = _collection_failure(report, excinfo)
        if all(seen["nodeid"] != line["nodeid"] for seen in self.collection_errors):  # xdist: once per worker
            self.collection_errors.append(line)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if not self.persist:
            return
        lines = list(self.collection_errors)
        incomplete = []
        for phases in self.tests.values():
            if phases.complete:
                lines.append(phases.record())
            else:
                incomplete.append(phases.nodeid)
        trailer: dict[str, Any] = {
            "exitstatus": int(exitstatus),
            "rootdir": str(self.rootdir),
            "interrupted_at": self._running,
            "incomplete": incomplete,
        }
        if self.context is not None:
            trailer.update(self.context.summary())
        lines.append({"session": trailer})
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".partial")
        with open(partial, "w", encoding="utf-8") as handle:
            for line in lines:
                handle.write(json.dumps(line, sort_keys=True) + "\n")
        os.replace(partial, self.path)
        if self._marker is not None:  # the trailer says what was running now
            os.close(self._marker[1])
            running_path(self._marker[0]).unlink(missing_ok=True)
            self._marker = None
        _skip_idle_summaries(session.config)
        context = self.context
        if self.exit_when_written or (context is not None and context.ends_when_written and not context.parallel
                                      and int(exitstatus) in _SAID_IN_THE_RECORDS):
            # What pytest does after this (its unconfigure hooks, five garbage collections, the terminal
            # summary, the interpreter's shutdown) tells Elenchus nothing: 5 % of a small run's time.
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:  # noqa: BLE001
                    pass
            os._exit(int(exitstatus))


#: Exit statuses whose whole story is in the records (tests passed, failed, none collected). After any other
#: (interrupted, an internal error, a usage error such as a path not found) pytest still has to print why.
_SAID_IN_THE_RECORDS = frozenset({0, 1, 5})

#: Autoloaded plugins whose terminal summary imports their whole library even when no test used it
#: (Hypothesis's costs about 1.3 s a run, more than the rest of a small suite's run).
_IDLE_SUMMARIES = {"hypothesispytest": "hypothesis"}


def _skip_idle_summaries(config: pytest.Config) -> None:
    """Once the records are out, leave out the summaries of plugins whose library no test imported:
    they would have nothing to report, and a run is not finished until they have said so."""
    for plugin_name, library in _IDLE_SUMMARIES.items():
        plugin = config.pluginmanager.get_plugin(plugin_name)
        if plugin is not None and library not in sys.modules:
            config.pluginmanager.unregister(plugin)


def _sigterm_to_interrupt(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process
    raise KeyboardInterrupt("SIGTERM received (Elenchus run timeout)")


# ---------------------------------------------------------------------------
# the run's context: import isolation, the mutated lines, the modules imported

class RunContext:
    """What the run was told before pytest started, and what it saw by the end."""

    MODULE_LIMIT = 500

    def __init__(self, workspace: str, names: Iterable[str], watch: LineWatch | None,
                 removed: list[str], cover: LineCoverage | None = None,
                 select: Iterable[str] | None = None, stop: bool = False, mutated: str | None = None,
                 first: Iterable[str] | None = None, reads: ReadLog | None = None) -> None:
        self.workspace = workspace
        self.reads = reads
        self.names = frozenset(names)
        self.watch = watch
        self.removed = removed
        self.cover = cover
        self.parallel = False
        self.select = None if select is None else {key: order for order, key in enumerate(select)}
        self.first = {key: order for order, key in enumerate(first or ())}
        self.stop = stop
        self.mutated = self.mutated_paths(mutated)
        self.keys: dict[str, str] = {}
        self.session: pytest.Session | None = None
        self.forked = False  # a run forked from a collected session (``Collected``)
        self.ends_when_written = False  # a run of its own ends once its records are out (``run``)
        self._key_of: dict[str, str] = {}  # nodeid -> test key, kept across the forks of a collected session

    def test_key(self, item: pytest.Item) -> str:
        """``path::name`` with the path relative to the workspace: the same whatever pytest's rootdir."""
        found = self._key_of.get(item.nodeid)
        if found is None:
            path = getattr(item, "path", None)
            relative = Path(os.path.relpath(path, self.workspace)).as_posix() if path else item.nodeid
            _, sep, name = item.nodeid.partition("::")
            found = self._key_of[item.nodeid] = f"{relative}::{name}" if sep else relative
        return found

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        """Keep only the selected tests, in the order given (those likeliest to fail first); or keep every
        test and move the ``first`` ones ahead, in their order (the others keep theirs)."""
        if self.select is None:
            if self.first:
                last = len(self.first)
                items.sort(key=lambda item: self.first.get(self.test_key(item), last))
            return
        kept = sorted((i for i in items if self.test_key(i) in self.select), key=lambda i: self.select[self.test_key(i)])
        dropped = [i for i in items if self.test_key(i) not in self.select]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = kept

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def mutated_paths(self, relative: str | None) -> frozenset[str]:
        """The mutated file as a traceback names it (absolute, and resolved)."""
        if not relative:
            return frozenset()
        path = os.path.abspath(os.path.join(self.workspace, relative))
        return frozenset({path, os.path.realpath(path)})

    def caught(self, failure: dict[str, Any]) -> bool:
        """Whether this failure is a kill of the mutant whatever else runs: a check failed, or an exception
        (not one that says the code could not load) surfaced in a check or came through the mutated file.
        Every such failure counts as a kill when the run is judged, so stopping at it loses no verdict."""
        kind = failure.get("failure_kind")
        if kind in STRONG_FAILURES:
            return True
        if kind != "unexpected-exception" \
                or str(failure.get("exception_type") or "").rsplit(".", 1)[-1] in NEVER_A_KILL_EXCEPTIONS:
            return False
        return failure.get("check") is not None or any(
            path in self.mutated for path in failure.get("crossed_files") or ())

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """With ``stop``, the first test that surely caught the mutant ends the run: that is the kill."""
        failure = getattr(report, _FAILURE_ATTR, None)
        if self.stop and self.session is not None and report.when == "call" and report.failed \
                and isinstance(failure, dict) and self.caught(failure):
            self.session.shouldfail = "a test caught the mutant"

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> None:
        if self.reads is not None:
            self.reads.current = self.test_key(item).partition("::")[0]

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self) -> None:
        if self.reads is not None:
            self.reads.current = ""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if self.cover is not None:
            self.keys[item.nodeid] = self.test_key(item)
            self.cover.switch(item.nodeid, "setup")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        if self.cover is not None:
            self.cover.switch(item.nodeid)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> None:
        if self.cover is not None:
            self.cover.switch(item.nodeid, "teardown")

    def pytest_configure(self, config: pytest.Config) -> None:
        # With xdist the tests run in other processes, which this context does not see.
        dist = getattr(config.option, "dist", "no")
        self.parallel = bool(getattr(config.option, "numprocesses", None)) or dist not in ("no", None)

    def summary(self) -> dict[str, Any]:
        executed = self.watch.executed() if self.watch is not None else None
        modules: dict[str, str | None] | None = None
        if self.names and not self.parallel:
            modules = {}
            for name, module in sorted(sys.modules.items()):
                if name.split(".")[0] in self.names and len(modules) < self.MODULE_LIMIT:
                    modules[name] = getattr(module, "__file__", None)
        found: dict[str, Any] = {
            "mutated_lines_executed": None if self.parallel else executed,
            "modules": modules,
            "import_isolation": self.removed,
            # (a forked run imported nothing its session had not: only a baseline's answer is used)
            "third_party": None if self.parallel or self.forked else _third_party(self.names),
            # (with xdist the tests open their files in other processes)
            "reads": None if self.reads is None or self.parallel else self.reads.summary(),
        }
        if self.cover is not None:
            self.cover.stop()
            found["coverage"] = None if self.parallel else self.cover.summary()
            found["test_keys"] = None if self.parallel else self.keys
        return found


def _third_party(project: frozenset[str]) -> list[str]:
    """Top-level modules imported from site-packages (a warm worker may preload them), never the project's."""
    sites = tuple(os.path.realpath(d) + os.sep for d in [*site.getsitepackages(), site.getusersitepackages()])
    found = set()
    for name, module in list(sys.modules.items()):
        top = name.split(".")[0]
        file = getattr(module, "__file__", None)
        if top in project or top.startswith("_elenchus") or not file or "." in name:
            continue
        if os.path.realpath(file).startswith(sites):
            found.add(top)
    return sorted(found)[:RunContext.MODULE_LIMIT]


def _autoloaded(name: str) -> bool:
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    import importlib.util

    return importlib.util.find_spec(name) is not None


class Collected:
    """Keeps the session collected and lets every run be a fork of it (``warm.Collected``).

    ``serve`` answers run requests until they stop (then the session ends having run nothing)
    and returns, in each forked run, that run's request: the records go to its own file, only
    its selected tests run, in its order, and pytest's own run loop takes over from there.
    """

    def __init__(self, context: RunContext, serve: Any) -> None:
        self.context = context
        self.serve = serve

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        unsafe = "the tests run in other processes (pytest-xdist)" if self.context.parallel else None
        for item in session.items:  # worked out once here, not again in every forked run
            self.context.test_key(item)
            path = getattr(item, "path", None)
            if path is not None:
                _statements_of(os.path.abspath(str(path)))
        request = self.serve(self.context.workspace, unsafe)
        if request is None:
            return True
        self._become(session, request)
        return None

    def _become(self, session: pytest.Session, request: dict[str, Any]) -> None:
        config = session.config
        capture = getattr(config.pluginmanager.getplugin("capturemanager"), "_global_capturing", None)
        for stream, fd in (("out", 1), ("err", 2)):  # where pytest puts the output back between tests
            saved = getattr(getattr(capture, stream, None), "targetfd_save", None)
            if isinstance(saved, int):
                os.dup2(fd, saved)
        recorder = config.pluginmanager.get_plugin("elenchus-recorder")
        if isinstance(recorder, Recorder):
            recorder.path = Path(request["record"])
            recorder.exit_when_written = True
        context = self.context
        context.forked = True
        context.stop = bool(request.get("stop"))
        context.mutated = context.mutated_paths((request.get("mutant") or {}).get("path"))
        if request.get("select") is not None:
            context.select = {key: order for order, key in enumerate(request["select"])}
            context.pytest_collection_modifyitems(session, config, session.items)
            session.testscollected = len(session.items)
        trace = request.get("trace")
        if trace and trace.get("lines"):
            context.watch = LineWatch(os.path.join(context.workspace, trace["file"]), trace["lines"])
            context.watch.start()


def run(options: dict[str, Any], argv: list[str], serve: Any = None) -> int:
    """The subprocess entry point: isolate imports, watch the mutated lines, run pytest.

    ``options``: ``roots`` (workspace-relative source roots), ``modules`` (the project's
    top-level names), ``trace`` (``{"file": relative path, "lines": [...]}`` or null),
    ``cover`` (relative paths whose lines each test executes are recorded, or null),
    ``select`` (test keys to run, in that order, or null: all collected), ``stop`` (end the
    run at the first test that surely caught the mutant), ``mutated`` (the mutated file, relative,
    or null), ``first`` (without ``select``: test keys to run before the others, or null), ``reads`` (record
    the workspace files the run opens and imports, by test file).
    ``serve``: collect, then serve forked runs (``Collected``).
    """
    workspace = os.getcwd()
    removed = isolate_imports(workspace, options.get("roots") or (), options.get("modules") or ())
    watch = None
    trace = options.get("trace")
    if trace and trace.get("lines"):
        watch = LineWatch(os.path.join(workspace, trace["file"]), trace["lines"])
    cover = LineCoverage(workspace, options["cover"]) if options.get("cover") else None
    reads = ReadLog(workspace) if options.get("reads") and serve is None else None
    if reads is not None:
        reads.install()
    context = RunContext(workspace, options.get("modules") or (), watch, removed, cover,
                         options.get("select"), bool(options.get("stop")), options.get("mutated"),
                         options.get("first"), reads)
    args = list(argv)
    if _autoloaded("pytest_cov"):
        args.append("--no-cov")  # the project's coverage run would take over the line watch
    sys.stdout.flush()
    if cover is not None:
        cover.start()
    elif watch is not None:
        watch.start()
    try:
        plugins: list[Any] = [sys.modules[__name__], context]
        if serve is not None:
            plugins.append(Collected(context, serve))
        else:  # (a collected session ends when its worker says so; its forks end when written)
            context.ends_when_written = True
        return int(pytest.main(args, plugins=plugins))
    finally:
        if watch is not None:
            watch.stop()
        if cover is not None:
            cover.stop()
