"""What a run sees from inside its own interpreter, before and while pytest runs: import isolation
(``isolate_imports``: the workspace's copy of the project is the one imported), whether the mutated
lines executed (``LineWatch``), which lines each test executed (``LineCoverage``), and the workspace
files the run opened and imported, by test file (``ReadLog``).

Split from ``plugin.py``, which loads it from its file under a private name (as it loads
``record_protocol.py``) inside the pytest subprocess: keep it self-contained, standard library only
(coverage.py is imported only by ``LineCoverage``), never an import of Elenchus.
"""

from __future__ import annotations

import importlib.machinery
import os
import site
import sys
import threading
from collections.abc import Iterable
from typing import Any


class LineWatch:
    """Notices whether any of ``lines`` of the file ``path`` executes.

    A pure-Python trace: the global function declines every frame whose code holds no
    watched line at its call event (one dict lookup), and tracing stops for good once a
    watched line ran, so its cost stays small. Another tracer taking over (a debugger, coverage) makes the
    answer unknown rather than "not executed".
    """

    def __init__(self, path: str, lines: Iterable[int]) -> None:
        self.real = os.path.realpath(path)
        self.lines = frozenset(lines)
        self.seen = False
        self.displaced = False
        self._files: dict[str, bool] = {}
        self._codes: dict[Any, bool] = {}
        self._active = False
        self._trace = self._global  # one bound method, so ``sys.gettrace() is self._trace`` holds

    def start(self) -> None:
        self._active = True
        threading.settrace(self._trace)
        sys.settrace(self._trace)

    def _global(self, frame: Any, event: str, arg: Any) -> Any:
        if self.seen:
            return None
        code = frame.f_code
        wanted = self._codes.get(code)
        if wanted is None:
            wanted = self._codes[code] = self._holds_watched_line(code)
        return self._local if wanted else None

    def _holds_watched_line(self, code: Any) -> bool:
        """Only frames whose code has a watched line get the (costly) line events."""
        name = code.co_filename
        mine = self._files.get(name)
        if mine is None:
            mine = self._files[name] = os.path.realpath(name) == self.real
        return mine and any(line in self.lines for _, _, line in code.co_lines())

    def _local(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and frame.f_lineno in self.lines:
            self.seen = True
            self.stop()
            return None
        return self._local

    def stop(self) -> None:
        if not self._active:
            return
        self._active = False
        if not self.seen and sys.gettrace() is not self._trace:
            self.displaced = True
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]

    def executed(self) -> bool | None:
        """True when a watched line ran; None when another tracer took over before it did."""
        if self.seen:
            return True
        if self.displaced or (self._active and sys.gettrace() is not self._trace):
            return None
        return False


class LineCoverage:
    """Which lines of some files each test executes (coverage.py, one context per test).

    Lines run while modules are imported, before any test, are filed under "<import>".
    Used for one run at a time (the regression search asks what the weakened tests
    execute), so coverage.py's start-up cost is paid once, not per mutant.
    """

    IMPORT = "<import>"
    FIXTURE = "<fixture>"  # lines a test's setup or teardown ran: a shared fixture may hand them to others
    PHASE = "\x1f"  # joins a nodeid and its setup/teardown phase in a context name

    def __init__(self, workspace: str, paths: Iterable[str]) -> None:
        import coverage

        self.files = {os.path.realpath(os.path.join(workspace, p)): p for p in paths}
        self.coverage = coverage.Coverage(data_file=None, include=list(self.files), config_file=False,
                                          branch=False)

    def start(self) -> None:
        self.coverage.start()

    def stop(self) -> None:
        self.coverage.stop()

    def switch(self, nodeid: str, phase: str = "call") -> None:
        self.coverage.switch_context(nodeid if phase == "call" else f"{nodeid}{self.PHASE}{phase}")

    def summary(self) -> dict[str, dict[str, list[int]]]:
        """Lines by test (all its phases), plus ``IMPORT`` and ``FIXTURE`` for lines run outside a test body."""
        data = self.coverage.get_data()
        found: dict[str, dict[str, list[int]]] = {}
        for measured in data.measured_files():
            relative = self.files.get(os.path.realpath(measured))
            if relative is None:
                continue
            per_test: dict[str, set[int]] = {}
            for line, contexts in (data.contexts_by_lineno(measured) or {}).items():
                for context in contexts or [""]:
                    nodeid, phased, _ = (context or self.IMPORT).partition(self.PHASE)
                    per_test.setdefault(nodeid, set()).add(line)
                    if phased:
                        per_test.setdefault(self.FIXTURE, set()).add(line)
            found[relative] = {test: sorted(lines) for test, lines in per_test.items()}
        return found


def _inside(path: str, root_real: str) -> bool:
    real = os.path.realpath(path)
    return real == root_real or real.startswith(root_real + os.sep)


def _provides(entry: str, name: str) -> bool:
    return os.path.isdir(os.path.join(entry, name)) or os.path.isfile(os.path.join(entry, name + ".py"))


_STANDARD_FINDERS = (importlib.machinery.BuiltinImporter, importlib.machinery.FrozenImporter,
                     importlib.machinery.PathFinder)


def _spec_origin(finder: Any, name: str) -> str | None:
    try:
        spec = finder.find_spec(name, None)
    except Exception:  # a third-party finder that cannot answer does not own the name
        return None
    if spec is None:
        return None
    if spec.origin and spec.origin not in ("built-in", "frozen", "namespace"):
        return str(spec.origin)
    locations = list(spec.submodule_search_locations or ())
    return str(locations[0]) if locations else None


def isolate_imports(workspace: str, roots: Iterable[str], names: Iterable[str]) -> list[str]:
    """Make the workspace's copy of the project the one that gets imported.

    Puts the workspace's source roots first on ``sys.path``, removes other path entries
    that hold the project's top-level packages (an editable install's ``.pth`` entry,
    a user's checkout) except the site directories, removes import hooks that map those
    names outside the workspace (an editable install's finder), and forgets copies a
    ``.pth`` file imported already. Returns what was removed, for the record.
    """
    root_real = os.path.realpath(workspace)
    names = set(names)
    for root in reversed(list(roots)):
        entry = root_real if root == "." else os.path.join(root_real, root)
        while entry in sys.path:
            sys.path.remove(entry)
        sys.path.insert(0, entry)
    removed: list[str] = []
    if not names:
        return removed
    site_dirs = {os.path.realpath(d) for d in [*site.getsitepackages(), site.getusersitepackages()]}
    for entry in list(sys.path):
        if not entry or _inside(entry, root_real) or os.path.realpath(entry) in site_dirs:
            continue
        if any(_provides(entry, name) for name in names):
            sys.path.remove(entry)
            removed.append(f"import path entry {entry}")
    for finder in list(sys.meta_path):
        if finder in _STANDARD_FINDERS or isinstance(finder, _STANDARD_FINDERS):
            continue
        for name in sorted(names):
            origin = _spec_origin(finder, name)
            if origin is not None and not _inside(origin, root_real):
                sys.meta_path.remove(finder)
                removed.append(f"import hook {getattr(finder, '__name__', type(finder).__name__)} "
                               f"(mapped {name} to {origin})")
                break
    for name in list(sys.modules):
        if name.split(".")[0] in names:
            file = getattr(sys.modules[name], "__file__", None)
            if file and not _inside(file, root_real):
                del sys.modules[name]
                removed.append(f"module {name} already imported from {file}")
    return removed


class ReadLog:
    """The workspace files a run opened or imported, each filed under the test file that was running (or
    under the session: collection, imports, fixtures of a wider scope), so a stored result names what it
    depended on and a change to anything else reuses it (``Evaluation._depends``).

    Python's audit hook sees every ``open()`` of the interpreter; a child process, a fork, or a file
    read by an extension module is not seen, so a run that started one (``spawned``) leaves its reads
    unknown and every file counts.
    """

    LIMIT = 20000
    _SPAWNING = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                           "os.forkpty", "pty.spawn"})

    def __init__(self, workspace: str) -> None:
        self.roots = tuple(dict.fromkeys(os.path.join(p, "") for p in (workspace, os.path.realpath(workspace))))
        self.current = ""  # the running test's file, workspace-relative; "" outside any test
        self.files: dict[str, set[str]] = {}
        self.spawned = False
        self.recording = True
        self.count = 0

    def install(self) -> None:
        sys.addaudithook(self._event)

    def _event(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.recording:
            return
        if event == "open":
            path = args[0] if args else None
            if isinstance(path, int) or path is None:
                return
            try:
                text = os.fsdecode(path)
            except TypeError:
                return
            self._note(text)
        elif event in ("os.listdir", "os.scandir"):
            path = args[0] if args else None
            if isinstance(path, int):
                return
            try:
                text = os.fsdecode(path) if path is not None else "."
            except TypeError:
                return
            # (the import system lists the directories it imports from: only importable names matter there)
            caller = sys._getframe(1).f_code.co_filename
            self._note(text, "/*" if caller.startswith("<frozen importlib") else "/")
        elif event in self._SPAWNING:
            self.spawned = True

    def _note(self, text: str, listing: str = "") -> None:
        absolute = os.path.normpath(text if os.path.isabs(text) else os.path.join(os.getcwd(), text))
        for root in self.roots:
            if os.path.join(absolute, "").startswith(root):
                relative = (absolute[len(root):] or ".") + listing
                if "__pycache__" not in relative and self.count < self.LIMIT:
                    bucket = self.files.setdefault(self.current, set())
                    if relative not in bucket:
                        bucket.add(relative)
                        self.count += 1
                return

    def summary(self) -> dict[str, Any] | None:
        """``{test file or "": [paths]}``, or None when what the run read is not known."""
        self.recording = False
        for module in list(sys.modules.values()):
            file = getattr(module, "__file__", None)
            if isinstance(file, str):
                self.current = ""
                self.recording = True
                self._note(file)
                self.recording = False
        if self.spawned or self.count >= self.LIMIT:
            return None
        return {where: sorted(paths) for where, paths in sorted(self.files.items())}
