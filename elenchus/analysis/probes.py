"""Probes for Capture mode: tests that tell a reference function from one of its mutants.

The engine has five steps, each a function that returns a frozen record:

1. ``record_calls`` runs the reference tests once, in a fresh copy, with the
   ``elenchus.execution.callrecord`` plugin, and returns the literal arguments each target
   function actually received (``CallSample``).
2. ``find_distinguishing_input`` looks for an input on which a mutant of a
   module-level function observably differs from the reference: first the recorded
   samples; then boundary candidates, each a recorded call (or a default call) with one
   argument replaced by a constant of the mutated lines or its neighbour, by a literal
   the related tests write, or by an empty, zero, negative or None value of the
   argument's type; then a bounded, derandomized Hypothesis search over inputs built
   from the function's signature (annotations through ``from_type``, defaults) and the
   values seen in the samples. Calls run in two driver processes
   (``callrecord.serve``), one in a copy of the reference and one in a copy with the
   mutant applied; no user code is ever imported into this process. A difference counts only when a probe can fail
   *at its assertion* on it: two unequal literal return values, or the reference
   raising where the mutant returns, or the mutant raising (another exception) where
   the reference returns (or raises): the probe's call sits inside its check, so that
   exception fails the check. A mutant that hangs or returns something that is not a
   literal where the reference returns a value is not used.
3. ``write_probe`` turns a ``Distinction`` into a readable pytest file that imports
   only the public function, calls it with the literal input and asserts the
   reference's value (or ``pytest.raises`` its exception); never call order, call
   counts, private attributes or intermediate state.
4. ``verify_probe`` / ``check_host_probe`` keep a probe only when it passes on the
   reference and fails on a mutant at its assertion, and touches no private names
   (``private_names_in``). Host-written probes go through exactly the same rules.
5. ``run_probe`` runs a probe against a proposed revision: passes,
   behavioural-failure (with the proposed output read by the driver),
   not-comparable (the API no longer fits the probe) or inconclusive.

Hypothesis is used here only.

Limits: only module-level, public, synchronous, non-generator functions get generated
probes (methods, nested functions, private functions and modules are reported by
``unsupported_reason``); only return values and raised exception types are compared,
not the final state of mutated arguments or other objects; inputs must be Python
literals or the standard library's dates, times, durations, Decimals and fractions
(``callrecord.argument_repr``), outputs literals or values a constructor rebuilds; a
bare float result is compared approximately (``pytest.approx`` defaults), containers of floats exactly.
"""

from __future__ import annotations

import ast
import datetime
import decimal
import difflib
import fractions
import functools
import hashlib
import itertools
import json
import math
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import Any

import libcst as cst

from elenchus.execution import callrecord, sandbox
from elenchus import records
from elenchus.encoding import read_python
from elenchus.repo.layout import SourceLayout
from elenchus.mutation.mutate import Mutant
from elenchus.execution.run import (
    Execution,
    FailureKind,
    RunResult,
    TestOutcome,
    TestRecord,
    module_loader,
    run_command,
    run_pytest,
    scrub_environment,
)
from elenchus.execution.workspace import fresh_copy, place_test, remove_tree, scratch_root, write_mutant


@functools.cache
def _hypothesis() -> ModuleType:
    """Hypothesis, imported where a search first needs it: most commands that load this module (the
    evaluation's own process, a witness search that ends before generating inputs) never do, and its
    import costs 0.3 s of CPU. Hypothesis keeps caches under its home directory, by default
    `.hypothesis/` in the current directory: the user's repository. Elenchus's cache directory takes
    them instead, across runs: built again in each search process (in a run's private temporary
    directory), they took 3 s of its 5."""
    import hypothesis
    import hypothesis.strategies
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(records.hypothesis_home())
    return hypothesis


class _Strategies:
    """``hypothesis.strategies``, imported at first use (``_hypothesis``)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_hypothesis().strategies, name)


st = _Strategies()

__all__ = [
    "CallSample",
    "Distinction",
    "Probe",
    "ProbeCheck",
    "ProbeOutcome",
    "ProbeOutcomeKind",
    "check_host_probe",
    "find_distinguishing_input",
    "host_probe",
    "literals_in",
    "module_name_for",
    "private_names_in",
    "record_calls",
    "run_probe",
    "unsupported_reason",
    "verify_probe",
    "write_probe",
]

#: ``callrecord`` is loaded from its file under this private name in subprocesses, so a
#: workspace that holds its own ``elenchus`` package cannot shadow it.
CALLRECORD_MODULE = "_elenchus_callrecord"

RECORD_TIMEOUT = 300.0  # seconds for the one recording run of the reference tests
PROBE_TIMEOUT = 60.0  # seconds for one pytest run of a probe
PER_CALL_TIMEOUT = 2.0  # seconds for one call of the function in a driver
BOUNDARY_BUDGET = 200  # boundary, test-literal and edge-value calls per mutant
TEST_LITERALS = 50  # distinct literals taken from the related test files
SEARCH_BUDGET = 200  # Hypothesis examples per mutant
SEARCH_SECONDS = 60.0  # wall-clock budget of one search
RECEIVERS_TRIED = 8  # distinct instances the tests built that a method's search calls it on
DRIVER_START_TIMEOUT = 30.0
MAX_DRIVER_RESTARTS = 5

_KILL_KINDS = (FailureKind.ASSERTION, FailureKind.EXPECTED_EXCEPTION_NOT_RAISED)
#: An unexpected exception of these types means the call no longer fits the API.
_API_MISMATCH = frozenset({"TypeError", "AttributeError", "ImportError", "ModuleNotFoundError", "NameError"})


# ---------------------------------------------------------------------------
# records


@dataclass(frozen=True, slots=True)
class CallSample:
    """One recorded call of ``target`` (``"pkg.mod:func"``), its arguments as a test writes them
    (``callrecord.argument_repr``: literals, and standard dates, durations and numbers)."""

    target: str
    args_repr: tuple[str, ...]
    kwargs_repr: tuple[tuple[str, str], ...] = ()
    receiver: callrecord.Receiver | None = None  # how the tests built the instance a method was called on

    @property
    def args(self) -> tuple[Any, ...]:
        return tuple(callrecord.argument_value(text) for text in self.args_repr)

    @property
    def kwargs(self) -> dict[str, Any]:
        return {name: callrecord.argument_value(text) for name, text in self.kwargs_repr}


@dataclass(frozen=True, slots=True)
class Distinction:
    """An input on which reference and mutant differ where a probe's assertion can see it.

    Exactly one of ``reference_repr`` / ``reference_exception`` is set, and the same for
    the mutant side. Exceptions are named as a probe writes them (``ValueError``,
    ``pkg.mod.CartError``). ``origin`` tells where the input came from: "recorded" (a
    call the tests made), "boundary" (a constant of the mutated lines, or a neighbour),
    "designed" (what the mutated patterns and tables match), "test-literal" (a literal the
    related tests write), "edge-value" (an empty, zero, negative or None argument) or
    "search" (the Hypothesis search). A result no text rebuilds is compared by what a test
    could still assert (``view``): its public attributes, ``vars(f(x)) == {...}``, else its
    text, ``str(f(x)) == '...'``.
    A value that is not a literal is written as its constructor (``datetime.date(2000, 1,
    2)``), with ``imports`` for the reference's. ``changed_arguments`` holds, for a
    function that changes its arguments in place,
    each positional argument the two leave in different states: (index, the reference's
    state after the call, the mutant's).
    """

    args_repr: tuple[str, ...]
    kwargs_repr: tuple[tuple[str, str], ...]
    reference_repr: str | None
    reference_exception: str | None
    mutant_repr: str | None
    mutant_exception: str | None
    origin: str = "search"
    changed_arguments: tuple[tuple[int, str, str], ...] = ()
    imports: tuple[str, ...] = ()  # what the reference value's text needs (``import datetime``)
    view: str | None = None  # "vars", "str" or "match": the values are the result's attributes, text, match
    receiver: callrecord.Receiver | None = None  # a method's: the instance it is called on, built as the tests did
    # When only the receiver's state after the call differs: (how it is read: "repr", "vars" or "str", the
    # reference's text, the mutant's text) and the imports the reference's text needs.
    receiver_after: tuple[str, str, str] | None = None
    receiver_imports: tuple[str, ...] = ()
    read: bool = False  # a property's: read as an attribute, not called
    setup: CallSample | None = None  # a call of another function of the module, made first (``activate('fr')``)
    undo: CallSample | None = None  # the call the tests made that puts back what ``setup`` changed (``deactivate()``)


@dataclass(frozen=True, slots=True)
class Probe:
    """A probe test file. ``module``/``function``/``args_repr``/``kwargs_repr`` are empty
    for a host-written probe (then ``run_probe`` cannot read the proposed output)."""

    id: str
    path: str  # workspace-relative, POSIX
    source: str
    test_nodeid: str
    contract_id: str | None
    mutant_ids: tuple[str, ...]
    input_repr: str  # the call as written in the probe, e.g. "chunks([1, 2, 3], 2)"
    reference_repr: str  # the reference's value, or "raise ValueError"
    mutant_repr: str | None
    module: str = ""
    function: str = ""
    args_repr: tuple[str, ...] = ()
    kwargs_repr: tuple[tuple[str, str], ...] = ()
    receiver: callrecord.Receiver | None = None


@dataclass(frozen=True, slots=True)
class ProbeCheck:
    accepted: bool
    reason: str
    killed: tuple[str, ...] = ()  # ids of the mutants the probe fails on at its assertion


class ProbeOutcomeKind(StrEnum):
    PASSES = "passes"
    BEHAVIOURAL_FAILURE = "behavioural-failure"  # assertion, expected exception not raised, new exception
    NOT_COMPARABLE = "not-comparable"  # import/collection error, or the call no longer fits the API
    INCONCLUSIVE = "inconclusive"  # timeout, infrastructure, setup error, no test ran


@dataclass(frozen=True, slots=True)
class ProbeOutcome:
    kind: ProbeOutcomeKind
    message: str
    proposed_repr: str | None  # the proposed revision's value or "raise X" for the probe's input


# ---------------------------------------------------------------------------
# module names and what can be probed


def module_name_for(path: str, root: Path | None = None) -> str:
    """The dotted module name tests use for ``path``: ``src/pkg/mod.py`` -> ``pkg.mod``.

    The import roots are the repository root and ``src/`` (src layout). A leading
    ``src/`` is kept only when ``root/src/__init__.py`` exists (then ``src`` is itself a
    package). ``pkg/__init__.py`` -> ``pkg``.
    """
    parts = list(PurePosixPath(Path(path).as_posix()).parts)
    if not parts or not parts[-1].endswith(".py"):
        raise ValueError(f"expected a path to a .py file, got {path!r}")
    src_is_a_package = root is not None and (Path(root) / "src" / "__init__.py").is_file()
    if len(parts) > 1 and parts[0] == "src" and not src_is_a_package:
        parts = parts[1:]
    parts[-1] = parts[-1][: -len(".py")]
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    if not all(part.isidentifier() for part in parts):
        raise ValueError(f"{path!r} is not importable as a module (parts {parts})")
    return ".".join(parts)


@functools.lru_cache(maxsize=1)
def _module_tree(source: str) -> ast.Module | None:
    """The code's parsed module, or None when it does not parse. Read-only and cached: one search
    asks several questions of the same source, and a large module takes seconds to parse."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _function_node(source: str, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The module-level function ``name``, or the method ``Class.name`` of a module-level class; for a
    module-level class ``name``, its ``__init__`` (the class is called as its constructor)."""
    tree = _module_tree(source)
    if tree is None:
        return None
    owner, _, name = name.rpartition(".")
    body: list[ast.stmt] = tree.body
    if owner:
        classes = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == owner]
        body = classes[-1].body if classes and "." not in owner else []
    found = None
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            found = node  # the last definition wins, as at import
    classes = [node for node in body if isinstance(node, ast.ClassDef) and node.name == name] if not owner else []
    if found is None and classes:  # a class, called as its constructor
        found = _function_node(source, f"{name}.__init__")
    return found


def method_kind(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """How a method is called, by its decorators: "static", "class", "property" or "instance"."""
    names = {d.id if isinstance(d, ast.Name) else d.attr for d in node.decorator_list
             if isinstance(d, (ast.Name, ast.Attribute))}
    for decorator, kind in (("staticmethod", "static"), ("classmethod", "class"), ("property", "property"),
                            ("cached_property", "property")):
        if decorator in names:
            return kind
    return "instance"


def public_symbol(symbol: str) -> bool:
    """A function or method a test calls by name, or a special method it reaches by an operator."""
    *owner, name = symbol.split(".")
    return not any(part.startswith("_") for part in owner) and (
        not name.startswith("_") or bool(owner) and name in callrecord.OPERATORS)


def _is_generator(node: ast.FunctionDef) -> bool:
    stack: list[ast.AST] = list(node.body)
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(current))
    return False


def unsupported_reason(reference_dir: Path, mutant: Mutant, symbol: str | None = None,
                       module: str | None = None) -> str | None:
    """Why no probe can be generated for ``mutant`` through ``symbol`` (default: its own function), imported
    from ``module`` (default: the mutated file's own; a public package re-exporting it, when that is private)."""
    symbol = symbol or mutant.symbol
    parts = symbol.split(".")
    if len(parts) > 2 or not all(part.isidentifier() for part in parts):
        return (f"`{symbol}` is not a module-level function or a method of a module-level class (nested "
                "functions are not probed)")
    if not public_symbol(symbol):
        return f"`{symbol}` is private; a probe calls only public API"
    try:
        module = module or module_name_for(mutant.path, reference_dir)
    except ValueError as error:
        return str(error)
    private = [part for part in module.split(".") if part.startswith("_")]
    if private:
        return f"module {module} is private ({'.'.join(private)}); a probe imports only public modules"
    try:
        source = read_python(Path(reference_dir) / mutant.path)
    except (OSError, UnicodeDecodeError) as error:
        return f"cannot read {mutant.path} in the reference: {error}"
    node = _function_node(source, symbol)
    if node is None:
        return f"`{symbol}` is not defined at module level in {mutant.path}"
    if isinstance(node, ast.AsyncFunctionDef):
        return f"`{symbol}` is a coroutine function; probes call synchronous functions only"
    if _is_generator(node):
        return f"`{symbol}` is a generator; its return value is an iterator, not a literal"
    return None


# ---------------------------------------------------------------------------
# subprocess plumbing


def _loader() -> str:
    """Python source that loads ``callrecord`` from its file under a private name as ``module``."""
    return module_loader(CALLRECORD_MODULE, str(Path(callrecord.__file__).resolve()))


@contextmanager
def _scratch(scratch: Path | None) -> Iterator[Path]:
    if scratch is not None:
        directory = Path(tempfile.mkdtemp(prefix="probe-", dir=scratch))
        try:
            yield directory
        finally:
            remove_tree(directory)
    else:
        with scratch_root() as root:
            yield root


class _Driver:
    """One ``callrecord.serve`` process in a workspace, answering calls over pipes."""

    def __init__(self, workspace: Path, module: str, qualname: str, per_call: float,
                 roots: Sequence[str] = (), watch: tuple[str, Sequence[int]] | None = None,
                 setup: CallSample | None = None) -> None:
        self.setup = setup  # made before every call (the driver starts afresh: each call sees it once more)
        self.workspace = workspace
        self.module = module
        self.qualname = qualname
        self.per_call = per_call
        self.roots = tuple(roots)
        self.watch = watch  # (workspace-relative path, lines): answers say whether a call ran them
        self.error: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._starts = 0
        self._import_failed = False

    def __enter__(self) -> _Driver:
        self._start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    @property
    def ready(self) -> bool:
        return self._proc is not None

    def _start(self) -> None:
        self._starts += 1
        env = scrub_environment(os.environ)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONHASHSEED"] = "0"
        if self.roots:  # import the workspace's copy, never the user's checkout
            base = self.workspace.resolve()
            env["PYTHONPATH"] = os.pathsep.join(str(base if r == "." else base / r) for r in self.roots)
        else:
            env.pop("PYTHONPATH", None)
        code = _loader() + "raise SystemExit(module.serve(sys.argv[1:]))\n"
        try:
            self._proc = subprocess.Popen(
                sandbox.current().wrap(
                    [sys.executable, "-P", "-c", code, self.module, self.qualname, repr(self.per_call),
                     *([f"{(self.workspace / self.watch[0]).resolve()}:{','.join(map(str, self.watch[1]))}"]
                       if self.watch else [])], self.workspace),
                cwd=self.workspace, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True, bufsize=0,
            )
        except OSError as error:
            self._proc, self.error = None, f"could not start the driver: {error}"
            return
        self._buffer = b""
        hello = self._read(time.monotonic() + DRIVER_START_TIMEOUT)
        if not hello or not hello.get("ready"):
            detail = (hello or {}).get("error") or "no answer"
            self.error = f"cannot import {self.module}:{self.qualname} in {self.workspace.name}: {detail}"
            self._import_failed = True
            self.close()

    def _read(self, deadline: float) -> dict[str, Any] | None:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer = json.loads(line)
        except ValueError:
            return None
        return answer if isinstance(answer, dict) else None

    def call(self, args_repr: Sequence[str], kwargs_repr: Mapping[str, str],
             receiver: callrecord.Receiver | None = None) -> dict[str, Any]:
        """What the function did for this input (a method: on ``receiver``, built afresh): kind
        value/raise/unrepresentable/timeout/crashed."""
        if self._proc is None:
            if self._import_failed or self._starts > MAX_DRIVER_RESTARTS:
                return {"kind": "crashed"}
            self._start()
            if self._proc is None:
                return {"kind": "crashed"}
        assert self._proc.stdin is not None
        setup = self.setup
        request = json.dumps({"args_repr": list(args_repr), "kwargs_repr": dict(kwargs_repr), **(
            {"receiver": receiver.as_json()} if receiver is not None else {}), **(
            {"setup": {"name": setup.target.partition(":")[2], "args_repr": list(setup.args_repr),
                       "kwargs_repr": dict(setup.kwargs_repr)}} if setup is not None else {})}) + "\n"
        try:
            self._proc.stdin.write(request.encode("utf-8"))
            self._proc.stdin.flush()
        except OSError:
            self.close()
            return {"kind": "crashed"}
        answer = self._read(time.monotonic() + self.per_call + 5.0)
        if answer is None:  # hung beyond its own alarm, or died: start afresh next time
            self.close(graceful=False)
            return {"kind": "timeout"}
        return answer

    def equal(self, texts: Sequence[str], imports: Sequence[str]) -> bool | None:
        """Do two constructor reprs build equal values in this driver? None: it could not tell."""
        answer = self._ask({"equal": list(texts), "imports": list(imports)})
        if answer is None or answer.get("kind") != "value":
            return None
        return {"True": True, "False": False}.get(str(answer.get("repr")))

    def state(self, names: Sequence[str]) -> dict[str, str | None]:
        """A canonical text of each of the module's globals ``names`` here (``callrecord.state_of``; None: it
        holds more than data, or is not there)."""
        state = (self._ask({"state": list(names)}) or {}).get("state")
        if not isinstance(state, dict):
            return {name: None for name in names}
        return {name: text if isinstance(text := state.get(name), str) else None for name in names}

    def _ask(self, request: Mapping[str, Any]) -> dict[str, Any] | None:
        """Send one request other than a call; its answer, or None when the driver is gone (it is then ended)."""
        if self._proc is None or self._proc.stdin is None:
            return None
        try:
            self._proc.stdin.write((json.dumps(request) + "\n").encode())
            self._proc.stdin.flush()
        except OSError:
            self.close()
            return None
        answer = self._read(time.monotonic() + self.per_call + 5.0)
        if answer is None:
            self.close(graceful=False)
        return answer

    def bounds(self, names: Sequence[str]) -> list[int]:
        """The ends of the range tables the module's globals ``names`` hold here (``callrecord.range_ends``)."""
        if not names:
            return []
        answer = self._ask({"bounds": list(names)})
        return [value for value in (answer or {}).get("bounds") or () if type(value) is int]

    def strings(self, names: Sequence[str]) -> list[str]:
        """The strings the module's globals ``names`` hold in this driver (none when it cannot tell)."""
        answer = self._ask({"strings": list(names)})
        return [text for text in (answer or {}).get("strings") or () if isinstance(text, str)]

    def close(self, graceful: bool = True) -> None:
        """End the driver (end of input, then SIGKILL to its process group); nothing is left behind."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            if graceful:
                proc.wait(timeout=1.0)
        except (OSError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


# ---------------------------------------------------------------------------
# 1. recording the calls the reference tests make


def record_calls(
    reference_dir: Path,
    tests: Sequence[str],
    targets: Sequence[tuple[str, str]],
    *,
    timeout: float = RECORD_TIMEOUT,
    scratch: Path | None = None,
    roots: Sequence[str] = (),
    disabled_plugins: Sequence[str] = (),
    unrecorded: dict[str, int] | None = None,
    tests_only: bool = False,
    steps: Sequence[tuple[str, str]] = (),
) -> dict[str, list[CallSample]]:
    """The literal arguments each target received while ``tests`` ran on the reference
    (``tests_only``: while the tests ran, not while they were collected and imported).

    ``unrecorded``, when given, receives how many calls of each target had arguments
    that are not literals (they could not be recorded, nor tried again).

    ``targets`` are ``(dotted module, qualname)`` pairs; the result has one key
    ``"module:qualname"`` per target (an empty list when no call was recorded, also when
    the run could not complete). ``tests`` are paths or node ids (an empty sequence runs
    pytest's default selection). The run happens once, in a fresh copy, under
    ``timeout`` seconds, importing the project from ``roots`` (workspace-relative) when given.
    ``steps`` (``(module, "Class.method")``) are set-up methods: their calls on an instance are recorded as
    part of how it was built (``callrecord.Receiver.steps``).
    """
    keys = [f"{module}:{qualname}" for module, qualname in targets]
    found: dict[str, list[CallSample]] = {key: [] for key in keys}
    # (a method's class: the instances the tests built, any of which its search may call it on)
    found.update({f"{module}:{qualname.rpartition('.')[0]}": [] for module, qualname in targets if "." in qualname})
    if not keys:
        return found
    for key in [*keys, *(f"{module}:{qualname}" for module, qualname in steps)]:
        callrecord.parse_target(key)
    for test in tests:
        if test.startswith("-"):
            raise ValueError(f"a test selector must be a path or node id, got option-like {test!r}")
    with _scratch(scratch) as root:
        workspace = fresh_copy(Path(reference_dir), root)
        out_dir = Path(tempfile.mkdtemp(prefix="calls-", dir=root))
        out = out_dir / "calls.jsonl"
        argv = [sys.executable, "-c", _loader() + "import pytest\n"
                "raise SystemExit(int(pytest.main(sys.argv[1:], plugins=[module])))\n",
                callrecord.CALLS_OPTION, str(out)]
        for key in keys:
            argv += [callrecord.TARGET_OPTION, key]
        for module, qualname in steps:
            argv += [callrecord.STEP_OPTION, f"{module}:{qualname}"]
        if tests_only:
            argv.append(callrecord.TESTS_ONLY_OPTION)
        argv += ["-q", "-p", "no:cacheprovider", *(f"-pno:{name}" for name in disabled_plugins), *tests]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        if roots:  # the workspace's own source roots, never the user's checkout
            base = workspace.resolve()
            env["PYTHONPATH"] = os.pathsep.join(str(base if r == "." else base / r) for r in roots)
        try:
            run_command(workspace, shlex.join(argv), timeout, env=env, writable=[out_dir])
            for part in sorted(out_dir.glob("calls.jsonl*")):
                if part.name.endswith(".part"):
                    continue
                _read_samples(part, found, unrecorded)
        finally:
            remove_tree(workspace)
            remove_tree(out_dir)
    return found


def _read_samples(path: Path, found: dict[str, list[CallSample]], unrecorded: dict[str, int] | None = None) -> None:
    """Add the valid lines of one call file; corrupt or foreign lines are skipped."""
    try:
        lines = read_python(path).splitlines()
    except (OSError, UnicodeDecodeError):
        return
    for line in lines:
        try:
            data = json.loads(line)
            target = str(data["target"])
            if "unrecorded" in data:
                if unrecorded is not None and target in found:
                    unrecorded[target] = unrecorded.get(target, 0) + int(data["unrecorded"])
                continue
            args = tuple(str(text) for text in data["args_repr"])
            kwargs = tuple(sorted((str(k), str(v)) for k, v in dict(data["kwargs_repr"]).items()))
            built = data.get("receiver")
            receiver = None if built is None else callrecord.receiver_from_json(built)
            for text in (*args, *(v for _, v in kwargs)):  # (a file the tests could write: checked, not trusted)
                callrecord.argument_value(text)
        except (ValueError, KeyError, TypeError, SyntaxError, MemoryError, RecursionError, AttributeError):
            continue
        sample = CallSample(target, args, kwargs, receiver)
        bucket = found.get(target)
        if bucket is not None and sample not in bucket and len(bucket) < callrecord.MAX_SAMPLES:
            bucket.append(sample)


# ---------------------------------------------------------------------------
# 2. finding an input that tells reference and mutant apart


def _same(reference: Any, mutant: Any) -> bool:
    """Would the probe's assertion pass for the mutant's value? (approx for a bare float)"""
    if type(reference) is float and isinstance(mutant, (int, float)) and not isinstance(mutant, bool):
        return math.isclose(reference, mutant, rel_tol=1e-6, abs_tol=1e-12)
    try:
        return bool(reference == mutant)
    except Exception:  # noqa: BLE001
        return False


def _observed(answer: Mapping[str, Any]) -> tuple[str | None, str | None] | None:
    """(value repr, exception) for a usable observation, else None."""
    if answer.get("kind") == "value":
        return str(answer["repr"]), None
    if answer.get("kind") == "raise":
        return None, str(answer["exception"])
    return None


def _after(answer: Mapping[str, Any]) -> tuple[str | None, ...]:
    """The positional arguments' states after a call that returned (None: not literal)."""
    return tuple(answer.get("args_after") or ()) if answer.get("kind") == "value" else ()


def _changed_arguments(reference: Sequence[str | None],
                       mutant: Sequence[str | None]) -> tuple[tuple[int, str, str], ...]:
    """Arguments a caller holding them would see in different states after the call."""
    return tuple((index, ref, mut) for index, (ref, mut) in enumerate(zip(reference, mutant))
                 if ref is not None and mut is not None and ref != mut
                 and not _same(callrecord.argument_value(ref), callrecord.argument_value(mut)))


def _differs(reference: tuple[str | None, str | None], mutant: tuple[str | None, str | None]) -> bool:
    """True when a probe asserting the reference's behaviour fails *at its assertion* on the mutant.

    The probe's call sits inside its check (``assert f(x) == v`` or a ``pytest.raises``
    block), so the mutant raising there, or raising another exception, fails the check too.
    """
    ref_value, ref_exc = reference
    mut_value, mut_exc = mutant
    if ref_value is not None and mut_value is not None:
        return not _same(ast.literal_eval(ref_value), ast.literal_eval(mut_value))
    if ref_value is not None:
        return mut_exc is not None  # raised inside `assert f(x) == v`
    return mut_value is not None or mut_exc != ref_exc  # DID NOT RAISE, or another exception in the block


def _acting_lines(source: str, mutated_source: str) -> tuple[int, ...]:
    """Lines of ``source`` that run only when the statements the mutant dropped act.

    A dropped ``if`` acts when its body runs (its test runs on every pass); any other
    dropped statement when it runs. Empty when the mutant drops nothing.
    """
    old, new = source.splitlines(), mutated_source.splitlines()
    # A mutant changes one place: compare only between the common head and tail (quadratic
    # matching of a whole large module would take minutes).
    start, shortest = 0, min(len(old), len(new))
    while start < shortest and old[start] == new[start]:
        start += 1
    end = 0
    while end < shortest - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    matcher = difflib.SequenceMatcher(None, old[start:len(old) - end], new[start:len(new) - end], autojunk=False)
    gone = {start + line for tag, i1, i2, _, _ in matcher.get_opcodes() if tag == "delete"
            for line in range(i1 + 1, i2 + 1)}
    if not gone:
        return ()
    tree = _module_tree(source)
    if tree is None:
        return ()
    acting: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno in gone and (node.end_lineno or node.lineno) in gone:
            for inner in (node.body + node.orelse) if isinstance(node, ast.If) else [node]:
                acting.add(inner.lineno)
    return tuple(sorted(acting))

class _Comparer:
    def __init__(self, reference: _Driver, mutant: _Driver, deadline: float) -> None:
        self.reference = reference
        self.mutant = mutant
        self.deadline = deadline
        self._seen: dict[str, Distinction | None] = {}
        self.tried: dict[str, int] = {}  # inputs actually called, by origin
        self.opaque: dict[str, int] = {}  # results no probe can write down or compare, by what they were
        self.compared = 0  # inputs whose two results were compared
        self.reached = 0  # ... of which the mutant ran the mutated lines
        self.expired = False  # the deadline came before every input meant was tried
        self.receiver: callrecord.Receiver | None = None  # a method's: the instance each call is made on
        self.read = False  # a property's calls are attribute reads
        self.setup_failed: str | None = None  # how the set-up call failed here, when it did

    def check(self, args_repr: Sequence[str], kwargs_repr: Mapping[str, str], origin: str) -> Distinction | None:
        receiver = self.receiver
        key = json.dumps([list(args_repr), sorted(kwargs_repr.items()), receiver and receiver.as_json()])
        if key in self._seen:
            return self._seen[key]
        if time.monotonic() > self.deadline:
            self.expired = True
            return None
        self.tried[origin] = self.tried.get(origin, 0) + 1
        result = None
        reference_answer = self.reference.call(args_repr, kwargs_repr, receiver)
        if reference_answer.get("kind") == "setup-failed":
            failed = (reference_answer.get("setup") or {})
            self.setup_failed = str(failed.get("exception") or failed.get("kind") or "it failed")
        reference = _observed(reference_answer)
        opaque = {self._opaque(reference_answer)}
        if reference is not None:
            mutant_answer = self.mutant.call(args_repr, kwargs_repr, receiver)
            mutant = _observed(mutant_answer)
            opaque.add(self._opaque(mutant_answer))
            if mutant is not None:
                self.compared += 1
                self.reached += bool(mutant_answer.get("reached") or reference_answer.get("reached"))
                # The result is what a test checks first; in-place changes count when it agrees.
                view = reference_answer.get("view")
                differs = view != mutant_answer.get("view") and reference[0] is not None \
                    or self._differs(reference, mutant, reference_answer, mutant_answer)
                changed = () if differs else _changed_arguments(_after(reference_answer), _after(mutant_answer))
                held = None if differs or changed or receiver is None else self._receiver_changed(
                    reference[0] is not None, reference_answer, mutant_answer)
                if view and not (differs or changed or held):  # agreeing attributes or text: they may still differ
                    kind = "results that agree only in their attributes or text"
                    self.opaque[kind] = self.opaque.get(kind, 0) + 1
                if differs or changed or held:
                    result = Distinction(tuple(args_repr), tuple(sorted(kwargs_repr.items())), reference[0],
                                         reference[1], mutant[0], mutant[1], origin, changed,
                                         tuple(reference_answer.get("imports") or ()), view, receiver,
                                         held and held[0], tuple(held[1]) if held else (), self.read,
                                         self.reference.setup)
        for kind in opaque - {None}:  # (once per input, whichever side gave it)
            self.opaque[kind] = self.opaque.get(kind, 0) + 1
        self._seen[key] = result
        return result

    def _differs(self, reference: tuple[str | None, str | None], mutant: tuple[str | None, str | None],
                 reference_answer: Mapping[str, Any], mutant_answer: Mapping[str, Any]) -> bool:
        """``_differs``; two values that are not both literals are compared by the reference driver."""
        built = reference_answer.get("imports") is not None or mutant_answer.get("imports") is not None
        if not built or reference[0] is None or mutant[0] is None:
            return _differs(reference, mutant)
        if reference[0] == mutant[0]:
            return False
        imports = [*(reference_answer.get("imports") or ()), *(mutant_answer.get("imports") or ())]
        same = self.reference.equal([reference[0], mutant[0]], imports)
        if same is not False:  # `==` could not tell, or holds while the values print differently
            kind = "values `==` could not compare" if same is None else "values equal under `==` that print differently"
            self.opaque[kind] = self.opaque.get(kind, 0) + 1
        return same is False

    def _receiver_changed(self, returned: bool, reference_answer: Mapping[str, Any],
                          mutant_answer: Mapping[str, Any]) -> tuple[tuple[str, str, str], list[str]] | None:
        """When the two calls agree, whether they leave the receiver in states a test tells apart: ((how it
        is read, the reference's text, the mutant's), the imports the reference's needs). A state no test can
        write down, or one seen only after a call that raised, is counted as not compared: an in-place
        method's agreeing results back no equivalence. Two receivers holding the same plain data agree, even
        where a test could not write that data without naming private attributes."""
        reference, mutant = reference_answer.get("receiver_after"), mutant_answer.get("receiver_after")
        kind = None
        if not (isinstance(reference, list) and isinstance(mutant, list)):
            kind = "a receiver left in a state a test cannot write down"
        elif reference[:2] != mutant[:2] and "state" in (reference[0], mutant[0]):
            kind = "receivers left in different states a test cannot write down"
        elif reference[:2] == mutant[:2]:  # (alike: "state", plain data alike, says so too)
            kind = "receivers that agree only in their text" if reference[0] == "str" else None
        elif reference[0] == mutant[0] == "repr":
            same = self.reference.equal([reference[1], mutant[1]], [*reference[2], *mutant[2]])
            if same is False and returned:
                return (reference[0], reference[1], mutant[1]), list(reference[2])
            kind = ("a receiver left in different states by calls that raised" if same is False else
                    "receivers `==` could not compare")
        elif not returned:
            kind = "a receiver left in different states by calls that raised"
        else:
            return (reference[0], reference[1], mutant[1]), list(reference[2])
        if kind is not None:
            self.opaque[kind] = self.opaque.get(kind, 0) + 1
        return None

    @staticmethod
    def _opaque(answer: Mapping[str, Any]) -> str | None:
        """What made a result one no probe could write down (too long is only skipped: a literal type)."""
        if answer.get("kind") == "unrepresentable" and not answer.get("too_long"):
            return f"`{answer.get('type') or 'object'}`"
        if None in _after(answer):
            return "an argument changed in place into a non-literal"
        return None

    def confirm(self, found: Distinction) -> bool:
        """The same observations again, fresh: a nondeterministic function makes no probe."""
        kwargs = dict(found.kwargs_repr)
        for _ in range(2):
            reference_answer = self.reference.call(found.args_repr, kwargs, found.receiver)
            mutant_answer = self.mutant.call(found.args_repr, kwargs, found.receiver)
            if _observed(reference_answer) != (found.reference_repr, found.reference_exception) or _observed(
                    mutant_answer) != (found.mutant_repr, found.mutant_exception):
                return False
            if found.receiver_after and [(answer.get("receiver_after") or [None, None])[1] for answer in (
                    reference_answer, mutant_answer)] != list(found.receiver_after[1:]):
                return False
            if found.changed_arguments and _changed_arguments(
                    _after(reference_answer), _after(mutant_answer)) != found.changed_arguments:
                return False
        return True


class _Found(Exception):
    def __init__(self, distinction: Distinction) -> None:
        super().__init__("distinguished")
        self.distinction = distinction


@dataclass(frozen=True, slots=True)
class InputSearch:
    """What looking for a distinguishing input found, and what it tried.

    ``searched`` is False when no input could be tried at all (the function cannot be
    probed or imported): then nothing is known, and ``reason`` says why. ``tried``
    counts the inputs called, by origin; ``seconds`` is the wall time spent.
    """

    distinction: Distinction | None
    searched: bool
    reason: str | None
    tried: tuple[tuple[str, int], ...]
    seconds: float
    reached: int | None = None  # compared inputs that ran the mutated code; None when that was not watched
    proof: str | None = None  # why no input can tell the two apart, when that is known rather than searched

    @property
    def inputs(self) -> int:
        return sum(count for _, count in self.tried)


def find_distinguishing_input(reference_dir: Path, mutant: Mutant, samples: Sequence[CallSample],
                              **options: Any) -> Distinction | None:
    """The first input on which ``mutant`` fails a reference-output assertion, or None (``search_input``)."""
    return search_input(reference_dir, mutant, samples, **options).distinction


def search_input(
    reference_dir: Path,
    mutant: Mutant,
    samples: Sequence[CallSample],
    *,
    test_literals: Sequence[Any] = (),
    boundary_budget: int = BOUNDARY_BUDGET,
    search_budget: int = SEARCH_BUDGET,
    per_call_timeout: float = PER_CALL_TIMEOUT,
    time_budget: float = SEARCH_SECONDS,
    scratch: Path | None = None,
    symbol: str | None = None,
    module: str | None = None,
    roots: Sequence[str] = (),
    data: Sequence[str] = (),
    state: Sequence[str] = (),
    reads: Sequence[int] = (),
    setup: CallSample | None = None,
) -> InputSearch:
    """Look for an input on which ``mutant`` fails a reference-output assertion.

    Recorded ``samples`` (those of this function) are tried first, in order; then up to
    ``boundary_budget`` boundary candidates (``_boundary_calls``: constants of the
    mutated lines and their neighbours, then ``test_literals``, the values the related
    tests write (``literals_in``), then edge values of each argument's type); then up to
    ``search_budget`` Hypothesis examples (derandomized, shrunk to a small input). All
    steps share ``time_budget``. ``symbol`` calls another public function of the module
    (one that reaches the mutated code) instead of the mutated one; ``module`` and
    ``roots`` say how the workspace imports it (default: ``module_name_for``, no roots).

    For code the module runs while it imports (``witness.data_for``): ``data`` names the module-level data it
    fills (whose strings become designed inputs), ``state`` every module-level data name (the same data in
    both modules proves the mutant equivalent), and ``reads`` the lines of the module's functions that read
    ``data``: such a mutant is reached by a call that runs one of them, not by the import every call shares.

    ``setup``: a call of another function of the module the tests made (``activate('fr_FR')``), made before
    every call, for code whose effect shows only in the state it selects.
    """
    started = time.monotonic()
    reference_dir = Path(reference_dir)
    symbol = symbol or mutant.symbol

    watched = False

    def outcome(distinction: Distinction | None, searched: bool, reason: str | None,
                comparer: _Comparer | None = None, proof: str | None = None) -> InputSearch:
        tried = tuple(sorted((comparer.tried if comparer else {}).items()))
        reached = comparer.reached if comparer is not None and watched else None
        return InputSearch(distinction, searched, reason, tried, round(time.monotonic() - started, 3), reached,
                           proof)

    why = unsupported_reason(reference_dir, mutant, symbol, module)
    if why is not None:
        return outcome(None, False, why)
    module = module or module_name_for(mutant.path, reference_dir)
    target = f"{module}:{symbol}"
    mine = [s for s in samples if s.target in (target, "")]
    source = read_python(reference_dir / mutant.path)
    node = _function_node(source, symbol)
    assert isinstance(node, ast.FunctionDef)
    owner = symbol.rpartition(".")[0]
    kind = method_kind(node) if owner else "function"
    receivers: list[callrecord.Receiver | None] = [None]
    if kind in ("instance", "property"):  # called on an instance, built as the tests built theirs
        mine = [s for s in mine if s.receiver is not None]
        built = [s.receiver for s in samples if s.target == f"{module}:{owner}" and s.receiver is not None]
        receivers = _varied(list(dict.fromkeys([*(s.receiver for s in mine), *built])))[:RECEIVERS_TRIED]
        if not receivers:
            return outcome(None, False, f"no test built a `{owner}` the search can build again (with arguments "
                                        f"a test writes: literals, dates, durations, numbers), so `{symbol}` "
                                        "was never called")
    with _scratch(scratch) as root, ExitStack() as stack:
        reference_copy = fresh_copy(reference_dir, root)
        stack.callback(remove_tree, reference_copy)
        mutant_copy = fresh_copy(reference_dir, root)
        stack.callback(remove_tree, mutant_copy)
        write_mutant(mutant_copy, mutant.path, mutant.mutated_source)
        # A dropped statement is reached when the code's own copy of it acts (a dropped guard's
        # body runs); other edits when the mutant runs its edited lines.
        removed = _acting_lines(source, mutant.mutated_source)
        if reads:  # code the import runs is reached by a call that reads what it filled
            removed, read_watch = [], (mutant.path, tuple(reads))
        else:
            read_watch = (mutant.path, removed) if removed else None
        reference = stack.enter_context(_Driver(reference_copy, module, symbol, per_call_timeout, roots,
                                                read_watch, setup))
        watch = (mutant.path, mutant.mutated_lines) if mutant.mutated_lines and not removed and not reads else None
        watched = bool(watch or read_watch)
        mutated = stack.enter_context(_Driver(mutant_copy, module, symbol, per_call_timeout, roots, watch, setup))
        if not reference.ready or not mutated.ready:
            return outcome(None, False, reference.error or mutated.error or f"cannot call {target}")
        same, changed = _compared_state(reference, mutated, state)
        if same:  # the mutated code runs only while the module imports, and left the same data behind
            return outcome(None, True, None, proof=f"the module holds the same data after its import with and "
                                                   f"without the mutant ({_names(state)}), and the mutated code "
                                                   "runs only while it imports")
        comparer = _Comparer(reference, mutated, time.monotonic() + time_budget)
        comparer.read = kind == "property"
        for sample in mine:
            comparer.receiver = sample.receiver if kind in ("instance", "property") else None
            found = comparer.check(sample.args_repr, dict(sample.kwargs_repr), "recorded")
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        constructed = not owner and node.name == "__init__"  # a class called: `self` is what it builds
        signature = _Signature.of(node, bound=kind in ("instance", "class") or constructed)
        designed = (_pattern_examples(source, mutant) + _data_examples((reference, mutated), source, mutant, data)
                    + _in_text(_code_point_characters(source, mutant, node, reference)) + _sized_texts(source, mutant))
        related = _row_examples(reference, source, mutant)
        calls = list({(s.args_repr, s.kwargs_repr): s for s in mine}.values())  # the tests' arguments, once each
        constants = _character_variants(source, mutant, calls) + mutated_constants(source, mutant)
        for receiver in receivers:  # each instance the tests built gets its share of the inputs
            comparer.receiver = receiver
            for sample in calls if receiver is not None else ():  # the tests' arguments on this instance
                found = comparer.check(sample.args_repr, dict(sample.kwargs_repr), "recorded")
                if found is not None and comparer.confirm(found):
                    return outcome(found, True, None, comparer)
            # (an instance set up in a mode gets a quarter: the plain ones share the inputs as if alone; the
            # deadline bounds them all)
            shares = len([r for r in receivers if r is None or not r.steps]) if receiver is None or not \
                receiver.steps else 4
            share = max(boundary_budget // shares, boundary_budget // 4)
            for args_repr, kwargs_repr, origin in _boundary_calls(signature, calls, constants, test_literals,
                                                                   share, designed, related):
                if time.monotonic() > comparer.deadline:
                    comparer.expired = True
                    break
                found = comparer.check(args_repr, kwargs_repr, origin)
                if found is not None:
                    found = _smaller(found, comparer)
                if found is not None and comparer.confirm(found):
                    return outcome(found, True, None, comparer)
            others = receivers if kind == "instance" else []  # `a - b`, `a == b`: b built as the tests built one
            for args_repr in _instance_arguments(signature, [r for r in others if r is not None], owner):
                if time.monotonic() > comparer.deadline:
                    comparer.expired = True
                    break
                found = comparer.check(args_repr, {}, "instance")
                if found is not None and comparer.confirm(found):
                    return outcome(found, True, None, comparer)
            if not signature.parameters:  # (a property: one call says all)
                found = comparer.check([], {}, "edge-value")
            elif search_budget > 0:
                found = _search(signature, calls, comparer, max(1, search_budget // shares))
            else:
                found = None
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        if comparer.opaque:  # those inputs were called, not compared: nothing says they agree
            kinds = ", ".join(sorted(comparer.opaque))
            count = sum(comparer.opaque.values())
            return outcome(None, False, f"`{symbol}` gave results a test cannot write down or compare ({kinds}) "
                                        f"for {count} of {sum(comparer.tried.values())} inputs, so those could "
                                        "not be compared", comparer)
        if not comparer.compared and comparer.setup_failed and setup is not None:
            made = call_text(setup.target.partition(":")[2], setup.args_repr, setup.kwargs_repr)
            return outcome(None, False, f"the set-up call `{made}` the tests made fails here "
                                        f"({comparer.setup_failed})", comparer)
        if not comparer.compared:
            return outcome(None, False, f"no call of `{symbol}` could be compared (each timed out, crashed or "
                                        "returned something too long to write down)", comparer)
        if comparer.expired:  # a search cut short backs no claim of equivalence
            return outcome(None, False, f"the search through `{symbol}` ran out of its {time_budget:g} s after "
                                        f"{sum(comparer.tried.values())} input(s), before every kind of input "
                                        "was tried", comparer)
        if reads and not comparer.reached:  # agreement on calls that never read what the import filled
            differs = f"the module's data differs after its import with the mutant ({_names(changed)}), but" \
                if changed else "the mutated code runs while the module imports, and"
            return outcome(None, False, f"{differs} no call of `{symbol}` read {_names(data)} (line(s) "
                                        f"{', '.join(map(str, reads))})", comparer)
        if (watch or removed) and not comparer.reached:  # agreement on inputs that never ran the change
            what = (f"the code the mutant drops (line(s) {', '.join(map(str, removed))})" if removed else
                    f"the mutated line(s) {', '.join(map(str, mutant.mutated_lines))}")
            return outcome(None, False, f"no call of `{symbol}` ran {what}", comparer)
        return outcome(None, True, None, comparer)


def _instance_arguments(signature: _Signature, built: Sequence[callrecord.Receiver],
                        owner: str) -> Iterator[list[str]]:
    """Calls passing another instance of ``owner`` (one the tests built) as a method's one required argument,
    when nothing types that argument as something else: what the tests combine an instance with
    (``Duration(years=1) - Duration(months=2)``) is often the only way into a branch."""
    required = [p for p in signature.parameters if not p.has_default]
    if len(required) != 1 or required[0].keyword_only or signature.parameters[0] is not required[0]:
        return
    annotation = required[0].annotation
    name = owner.rpartition(".")[2]
    if annotation is not None and not (isinstance(annotation, ast.Name) and annotation.id == name) \
            and not (isinstance(annotation, ast.Constant) and annotation.value == name):
        return
    for other in built:
        if not other.steps:  # (one set up by calls after its construction is no single expression)
            yield [call_text(name, other.args_repr, other.kwargs_repr)]


def _varied(receivers: list[callrecord.Receiver]) -> list[callrecord.Receiver]:
    """The receivers with the first of each kind of construction first (which arguments, of which types:
    ``Duration(years=0.5)`` beside ``Duration(years=4)``), then the others in order; those the tests set up
    after building them (``p.classical(all=True)``) after those they only built, the first of each kind of
    set-up first: they show what only a mode shows, the others what every caller sees."""
    first: dict[str, callrecord.Receiver] = {}
    for receiver in receivers:
        shape = json.dumps([[type(callrecord.argument_value(t)).__name__ for t in receiver.args_repr],
                            [(name, type(callrecord.argument_value(t)).__name__) for name, t in receiver.kwargs_repr],
                            [(step, [name for name, _ in kwargs]) for step, _, kwargs in receiver.steps]])
        first.setdefault(shape, receiver)
    ordered = list(dict.fromkeys([*first.values(), *receivers]))
    return [r for r in ordered if not r.steps] + [r for r in ordered if r.steps]


# --- boundary candidates


_NONE = type(None)
#: An integer no float can hold: ``float()`` of it raises OverflowError. Tried last for an int argument.
_HUGE_INT = 10**400
#: Stand-ins tried for an integer argument longer than ``_LONG_DIGITS`` digits once it told the two apart.
_SMALL_INTS = (1, 2, 10, 100, 1000)
_LONG_DIGITS = 12
#: Empty, zero, negative and huge values tried for an argument of each type, before None.
_EDGE_VALUES: dict[type, tuple[Any, ...]] = {
    int: (0, -1), float: (0.0, -1.0), str: ("",), bytes: (b"",), list: ([],), dict: ({},), tuple: ((),),
    set: (set(),), datetime.timedelta: (datetime.timedelta(0),), decimal.Decimal: (decimal.Decimal(0),),
    fractions.Fraction: (fractions.Fraction(0),),
}


def _smaller(found: Distinction, comparer: _Comparer) -> Distinction:
    """``found`` with each huge integer argument replaced by the smallest stand-in that still tells the two
    apart (one past another integer of the call, or a small power of ten), so that a witness reads
    ``clamp(15, 11, 10)``, not ``clamp(15, 10**400, 10)``. A huge value no small one can replace stays."""
    args, kwargs = list(found.args_repr), dict(found.kwargs_repr)

    def number(text: str) -> int | None:
        return int(text) if re.fullmatch(r"-?\d+", text) else None

    for slot in [*range(len(args)), *kwargs]:
        text = args[slot] if isinstance(slot, int) else kwargs[slot]
        value = number(text)
        if value is None or len(text.lstrip("-")) <= _LONG_DIGITS:
            continue
        sign = -1 if value < 0 else 1
        others = [n for n in map(number, [*args, *kwargs.values()]) if n is not None and n != value]
        for stand_in in sorted(_unique([*(n + sign for n in others), *(sign * n for n in _SMALL_INTS)]), key=abs):
            trial_args, trial_kwargs = list(args), dict(kwargs)
            if isinstance(slot, int):
                trial_args[slot] = repr(stand_in)
            else:
                trial_kwargs[slot] = repr(stand_in)
            smaller = comparer.check(trial_args, trial_kwargs, found.origin)
            if smaller is not None:
                found, args, kwargs = smaller, trial_args, trial_kwargs
                break
    return found


def _literal_nodes(tree: ast.AST) -> list[tuple[ast.expr, Any]]:
    """The scalar literals in ``tree`` with their nodes, in source order: numbers (a
    leading minus included), strings and bytes; not docstrings, booleans or None."""
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    found: list[tuple[ast.expr, Any]] = []
    signed: set[int] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd))
                and isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float)):
            value = node.operand.value
            found.append((node, -value if isinstance(node.op, ast.USub) else value))
            signed.add(id(node.operand))
        elif (isinstance(node, ast.Constant) and type(node.value) in (int, float, str, bytes)
              and id(node) not in docstrings):
            found.append((node, node.value))
    found = [(node, value) for node, value in found if id(node) not in signed]
    return sorted(found, key=lambda pair: (pair[0].lineno, pair[0].col_offset))


def _unique(values: Iterable[Any]) -> list[Any]:
    """``values`` without repeats; ``1``, ``1.0`` and ``True`` are different values here."""
    seen: set[str] = set()
    kept = []
    for value in values:
        key = f"{type(value).__name__}:{value!r}"
        if key not in seen:
            seen.add(key)
            kept.append(value)
    return kept


def _constants_on(source: str, first: int, last: int, mutated: bool = False) -> list[Any]:
    """``mutated``: a mutant's source, asked once (parsed outside the cache that keeps the code's)."""
    if mutated:
        try:
            tree: ast.Module | None = ast.parse(source)
        except SyntaxError:
            tree = None
    else:
        tree = _module_tree(source)
    if tree is None:
        return []
    return [value for node, value in _literal_nodes(tree)
            if node.lineno <= last and (node.end_lineno or node.lineno) >= first]


def mutated_constants(source: str, mutant: Mutant) -> list[Any]:
    """The constants on the mutant's lines: those the mutation changed first, then the
    others of the reference, then the mutant's own."""
    shift = len(mutant.mutated_source.splitlines()) - len(source.splitlines())
    before = _constants_on(source, mutant.line, mutant.end_line)
    after = _constants_on(mutant.mutated_source, mutant.line, mutant.end_line + shift, mutated=True)

    def count(values: list[Any], value: Any) -> int:
        return sum(1 for v in values if type(v) is type(value) and v == value)

    changed = [v for v in (*before, *after) if count(before, v) != count(after, v)]
    return _unique([*changed, *before, *after])


#: Regular-expression syntax: a character of these says nothing about what an input should hold.
_PATTERN_SYNTAX = frozenset("^$[]()+*?{}|\\.")

#: Characters tried where a pattern allows any character but some: letters first, as words hold them.
_FILLERS = "abcdefghijklmnopqrstuvwxyz0123456789-_ ."
#: What a pattern's character category stands for in an example.
_CATEGORY_EXAMPLES = {"CATEGORY_DIGIT": "1", "CATEGORY_NOT_DIGIT": "a", "CATEGORY_WORD": "a", "CATEGORY_NOT_WORD": "-",
                      "CATEGORY_SPACE": " ", "CATEGORY_NOT_SPACE": "a"}
#: Examples made from each pattern on the mutated lines (one per alternative, up to this many).
_PATTERN_ALTERNATIVES = 4


def _pattern_examples(source: str, mutant: Mutant) -> list[str]:
    """Strings that the regular expressions on the mutant's lines match, the code's and the mutant's, each
    alone, with a `!` before and after (where an anchor the mutant dropped shows) and in capitals: a rule of a rule
    table, or a pattern the mutant edited, is told apart by the words it matches (``"quiz"`` for
    ``(?i)(quiz)$``), which no edge value or recorded call may hold."""
    shift = len(mutant.mutated_source.splitlines()) - len(source.splitlines())
    before = [v for v in _constants_on(source, mutant.line, mutant.end_line) if isinstance(v, str)]
    after = [v for v in _constants_on(mutant.mutated_source, mutant.line, mutant.end_line + shift, mutated=True)
             if isinstance(v, str)]
    changed = [v for v in (*before, *after) if (v in before) != (v in after)]
    examples: list[str] = []
    for pattern in _unique([*changed, *before, *after]):
        if not (set(pattern) & _PATTERN_SYNTAX):
            continue
        for found in _matching(pattern):
            examples += [found, found + "!", "!" + found, found.upper()]
    return _unique(examples)[:32]


def _compared_state(reference: _Driver, mutated: _Driver, names: Sequence[str]) -> tuple[bool, list[str]]:
    """(whether every one of ``names`` holds the same data in both modules, the names that differ)."""
    if not names:
        return False, []
    mine, theirs = reference.state(names), mutated.state(names)
    changed = [name for name in names if mine[name] is not None and theirs[name] is not None
               and mine[name] != theirs[name]]
    return all(mine[name] is not None and mine[name] == theirs[name] for name in names), changed


def _names(names: Sequence[str], shown: int = 4) -> str:
    listed = ", ".join(f"`{name}`" for name in list(names)[:shown])
    return listed + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _data_examples(drivers: Sequence[_Driver], source: str, mutant: Mutant, data: Sequence[str]) -> list[str]:
    """The strings held by the module-level data the mutated lines read, or that ``data`` names (what the code
    the import runs fills), as each running module built it, and strings their patterns match, each also in
    capitals (where a case-insensitive rule or a table of lower-case words shows): a mutant that skips the
    first rule of a table is told apart by a word that rule matches (``"zombies"``), which only the running
    module knows."""
    names = list(dict.fromkeys([*_data_names(source, mutant.line, mutant.end_line), *data]))
    if not names:
        return []
    found: list[str] = []
    for driver in drivers:
        for text in driver.strings(names):  # (a long text stands for itself in no call a test would write)
            examples = [*(_matching(text)[:1] if set(text) & _PATTERN_SYNTAX else []),
                        *([text] if len(text) <= _EXAMPLE_CHARS else [])]
            found += [*examples, *(example.upper() for example in examples)]
    return _unique(found)[:_DATA_EXAMPLES]


#: Strings taken from the module's data for one mutant, at most, and the longest tried as an input.
_DATA_EXAMPLES = 60
_EXAMPLE_CHARS = 200


def _row_examples(driver: _Driver, source: str, mutant: Mutant) -> list[list[str]]:
    """Words a row of a table on the mutated lines relates: for a row holding a pattern of stems and texts
    (``(pl_sb_C_en_ina, "ens", "ina")``, stems ``stam|foram|lum``), each stem alone and followed by each
    text of the row (``"stam"``, ``"stamens"``, ``"stamina"``), one group per stem. A mutant that blanks
    one text of such a row shows only on a *pair* of those words (``compare_nouns('stamens', 'stamina')``),
    which no single designed input and no edge value makes."""
    tree = _module_tree(source)
    if tree is None:
        return []
    module_names = set(_data_names(source, mutant.line, mutant.end_line))
    groups: list[list[str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Tuple, ast.List)) or not (
                mutant.line <= node.lineno and (node.end_lineno or node.lineno) <= mutant.end_line):
            continue
        texts = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                 and not set(e.value) & _PATTERN_SYNTAX]
        patterns = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    and set(e.value) & _PATTERN_SYNTAX]
        names = [e.id for e in node.elts if isinstance(e, ast.Name) and e.id in module_names]
        if not texts or not (patterns or names):
            continue
        held = [*patterns, *(driver.strings(names) if names else ())]
        stems = _unique(stem for pattern in held for stem in (
            _matching(pattern) if set(pattern) & _PATTERN_SYNTAX else [pattern]))
        groups += [_unique([stem, *(stem + text for text in texts)]) for stem in stems[:_ROW_STEMS]]
    return groups[:_ROW_GROUPS]


#: Stems taken from one row's pattern, and groups of related words for one mutant, at most.
_ROW_STEMS = 4
_ROW_GROUPS = 12


def _data_names(source: str, first: int, last: int) -> list[str]:
    """Names on lines ``first``..``last`` that the module assigns or imports at its top level (its tables and
    constants, ``from .table_zero import ZERO_WIDTH`` too), in order of appearance."""
    tree = _module_tree(source)
    if tree is None:
        return []
    # (names unpacked together count: `(singulars, plurals) = make_lists(...)`)
    assigned = {name.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                for name in ast.walk(target) if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store)}
    assigned |= {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
                 for alias in node.names if alias.name != "*"}
    used = [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id in assigned
            and first <= node.lineno <= last]
    return list(dict.fromkeys(node.id for node in sorted(used, key=lambda n: (n.lineno, n.col_offset))))


def _in_text(characters: list[str]) -> list[str]:
    """Each character alone, then inside text: a character a parser widens or drops (``"\\uffff"`` made
    ``"00"``) shows only where its neighbours move with it (``"\\uffff" + "fff"``)."""
    return _unique([*characters, *(c + "fff" for c in characters), *("f" + c + "ff" for c in characters)])


def _sized_texts(source: str, mutant: Mutant) -> list[str]:
    """For a size bound on the mutated lines (``len(text) > 128``, ``text[:128]``): texts just past it with one
    marked character at, before and after the bound (``"0" * 127 + "f" + "00"``), since a cut one place early
    or late shows only on the character at the cut, which no short input or edge value reaches."""
    lines = "\n".join(source.splitlines()[mutant.line - 1:mutant.end_line])
    if "len(" not in lines and "[" not in lines:
        return []
    bounds = [v for v in mutated_constants(source, mutant) if type(v) is int and 2 <= v <= _SIZED_MAX]
    return _unique("0" * at + "f" + "00" for bound in bounds for at in (bound - 1, bound, bound + 1))


#: The largest size bound texts are made for (longer texts cost every call of the search).
_SIZED_MAX = 4096


def _code_point_characters(source: str, mutant: Mutant, target: ast.FunctionDef,
                           reference: _Driver | None = None) -> list[str]:
    """For code that reads characters as code points (``ord``), the characters at and beside each integer
    constant the mutation changed (a bound ``0x7f`` of a character-width function shows on ``'\\x7f'`` and
    ``'\\x7e'``), and at and beside the ends of the range tables the called function reads (the first
    range's start, the last range's end: a bisection's guard shows there), which no edge value or recorded
    word holds."""
    mutated = _function_node(source, mutant.symbol)
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "ord"
               for function in (target, mutated) if function is not None for n in ast.walk(function)):
        return []
    bounds = [v for v in mutated_constants(source, mutant) if type(v) is int]
    if reference is not None:
        bounds += reference.bounds(_data_read(source, target))
    return _unique(chr(code) for value in bounds if 0 <= value <= sys.maxunicode
                   for code in (value, value - 1, value + 1) if 0 <= code <= sys.maxunicode)


def _data_read(source: str, function: ast.FunctionDef) -> list[str]:
    """The module-level data ``function`` reads, in order of appearance."""
    return _data_names(source, function.lineno, function.end_lineno or function.lineno)


def _matching(pattern: str) -> list[str]:
    """Up to ``_PATTERN_ALTERNATIVES`` short strings ``pattern`` matches (the n-th takes the n-th alternative
    of each choice); none when it is not a regular expression Python compiles."""
    try:
        compiled = re.compile(pattern)
        parsed = _regex_parser().parse(pattern)
    except (re.error, TypeError, ValueError, OverflowError, RecursionError):
        return []
    found: list[str] = []
    for choice in range(_PATTERN_ALTERNATIVES):
        try:
            text = _render(parsed, choice)
        except (RecursionError, ValueError, KeyError):
            continue
        if text not in found and compiled.search(text) is not None:
            found.append(text)
    return found


def _regex_parser() -> Any:
    """Python's own parser of regular expressions (``re._parser`` since 3.11, ``sre_parse`` before)."""
    try:
        import re._parser as parser  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_parse as parser  # type: ignore[import-not-found,no-redef]
    return parser


def _render(parsed: Any, choice: int) -> str:
    """One string the parsed pattern matches: the ``choice``-th alternative of each branch (the last when
    there are fewer), each repeat taken once (or as often as its minimum), a class's first member."""
    text: list[str] = []
    for op, value in parsed:
        name = str(op)
        if name == "LITERAL":
            text.append(chr(value))
        elif name == "NOT_LITERAL":
            text.append(next(c for c in _FILLERS if ord(c) != value))
        elif name == "ANY":
            text.append("a")
        elif name == "IN":
            text.append(_member(value))
        elif name == "BRANCH":
            branches = value[1]
            text.append(_render(branches[min(choice, len(branches) - 1)], choice))
        elif name == "SUBPATTERN":
            text.append(_render(value[-1], choice))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _, inner = value
            text.append(_render(inner, choice) * max(low, 1))
        elif name in ("ATOMIC_GROUP",):
            text.append(_render(value, choice))
        # anchors (AT), lookarounds (ASSERT, ASSERT_NOT), back references and conditionals add nothing
    return "".join(text)


def _member(items: Any) -> str:
    """A character of a class ``[...]``: its first member, or for ``[^...]`` the first filler it allows."""
    negated = any(str(op) == "NEGATE" for op, _ in items)
    if not negated:
        for op, value in items:
            name = str(op)
            if name == "LITERAL":
                return chr(value)
            if name == "RANGE":
                return chr(value[0])
            if name == "CATEGORY":
                return _CATEGORY_EXAMPLES.get(str(value), "a")
        return "a"
    pattern = re.compile("[" + "".join(_class_text(op, value) for op, value in items) + "]")
    return next((c for c in _FILLERS if pattern.fullmatch(c)), "a")


def _class_text(op: Any, value: Any) -> str:
    """The parsed member of a class written back as class syntax (``NEGATE`` as ``^``)."""
    name = str(op)
    if name == "NEGATE":
        return "^"
    if name == "LITERAL":
        return re.escape(chr(value))
    if name == "RANGE":
        return f"{re.escape(chr(value[0]))}-{re.escape(chr(value[1]))}"
    if name == "CATEGORY":
        return {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_WORD": r"\w",
                "CATEGORY_NOT_WORD": r"\W", "CATEGORY_SPACE": r"\s", "CATEGORY_NOT_SPACE": r"\S"}.get(str(value), "")
    return ""


def _character_variants(source: str, mutant: Mutant, samples: Sequence[CallSample]) -> list[str]:
    """Recorded string arguments with a character the mutation added or removed put in, or with one
    character the mutated lines name put in place of another.

    When a mutant drops `_` from the class `[a-z0-9_-]`, the inputs that tell it apart
    contain `_`: "alpha-2" becomes "alpha-2_", "_alpha-2" and "a_lpha-2".
    """
    shift = len(mutant.mutated_source.splitlines()) - len(source.splitlines())
    before = [v for v in _constants_on(source, mutant.line, mutant.end_line) if isinstance(v, str)]
    after = [v for v in _constants_on(mutant.mutated_source, mutant.line, mutant.end_line + shift, mutated=True)
             if isinstance(v, str)]
    changed = (set("".join(v for v in before if v not in after)) ^ set("".join(v for v in after if v not in before)))
    characters = sorted(changed - _PATTERN_SYNTAX)
    strings = [value for sample in samples for value in (*sample.args, *sample.kwargs.values())
               if isinstance(value, str)]
    # One character the line names put in place of another it names: `.replace(',', '.')` dropped is told
    # apart by "P1,5Y" where the tests wrote "P1.5Y".
    singles = sorted({v for v in (*before, *after) if len(v) == 1})
    swapped = [text.replace(old, new) for text in strings for old in singles for new in singles
               if old != new and old in text]
    variants = [variant for text in strings for character in characters
                for variant in (text + character, character + text, text[:1] + character + text[1:])]
    # A check of each character against a set (`all(c in string.hexdigits for c in text[1:])`) weakened or
    # dropped shows on a text that a later parse still takes: `int(' f', 16)`, `int('+f', 16)` and
    # `int('\u0661', 16)` all succeed. So the tests' strings with their second or last character one of those.
    checked = _CHARACTER_CHECKS.search("\n".join(source.splitlines()[mutant.line - 1:mutant.end_line]))
    slipped = [text[:index] + character + text[index + 1:] for text in _shapes(strings) if len(text) > 1
               for index in (1, len(text) - 1) for character in _SLIPPING] if checked else []
    return _unique(swapped + slipped + variants + characters)[:60]


def _shapes(strings: Sequence[str], kept: int = 6) -> list[str]:
    """Texts of different shapes, taken in turn from each kind of first character, in the order recorded.

    A check guarded by others (`len(text) == 4 and text.startswith("#") and all(...)`) is reached only by
    the tests' texts of that shape, and the first texts recorded are often a hundred words that never get
    there: so one word, one `#...` text, one `+...` text, then a word of another length, and so on.
    """
    kinds: dict[str, dict[int, str]] = {}
    for text in strings:
        first = text[:1]
        kind = "letter" if first.isalpha() else "digit" if first.isdigit() else first
        kinds.setdefault(kind, {}).setdefault(len(text), text)
    turns = [list(by_length.values()) for by_length in kinds.values()]
    taken = [text for row in itertools.zip_longest(*turns) for text in row if text is not None]
    return taken[:kept]


#: What a line that checks characters against a set names.
_CHARACTER_CHECKS = re.compile(r"\b(?:hexdigits|octdigits|digits|ascii_letters|ascii_lowercase|ascii_uppercase|"
                               r"printable|whitespace|punctuation|isdigit|isdecimal|isnumeric|isalnum|isalpha|"
                               r"isspace|isidentifier|isprintable|isascii)\b")
#: Characters that slip past such a check into what parses the text next: a space, signs, an underscore,
#: a digit of another script (ARABIC-INDIC DIGIT ONE), a letter beyond ASCII.
_SLIPPING = (" ", "+", "-", "_", "\u0661", "\u00ff")


def _neighbours(value: Any) -> tuple[Any, ...]:
    """A constant and the values around it a boundary mistake would show on."""
    if type(value) is int:
        # A small integer may be an exponent (``if exponent >= 33``): the magnitude it stands for too.
        powers = (10**value, 10.0**value) if 2 <= value <= 308 else ()
        return value - 1, value, value + 1, *powers
    if type(value) is float:
        return (value, value - 1.0, value + 1.0, math.nextafter(value, -math.inf),
                math.nextafter(value, math.inf))
    if type(value) is str:
        return value, ""
    if type(value) is bytes:
        return value, b""
    return (value,)


#: Numbers of the mutated lines written into the tests' texts (``'50%'`` -> ``'0.0%'``), at most.
_RENUMBERED = 8
#: Calls with the mutated line's constants inside the tuples and texts the tests passed, at most.
_INSIDE = 40
_NUMBER_TEXT = re.compile(r"\d+(?:\.\d+)?")


def _holding(container: Any, value: Any) -> list[Any]:
    """``container`` (a tuple or list of one kind of scalar, as a test passed it) holding ``value`` in every
    place, then in its first: what reaches a table entry or bound the elements are looked up in."""
    if type(container) not in (tuple, list) or not container or type(value) not in (int, float, str, bytes) \
            or not all(type(item) is type(value) for item in container):
        return []
    return [type(container)([value] * len(container)), type(container)([value, *container[1:]])]


def _renumbered(held: Any, numbers: Sequence[Any]) -> list[Any]:
    """The texts the tests passed (alone, or each element of a tuple or list of them) with their first number
    written as each of ``numbers`` in the same place, an integer also as a float (``'50%'`` -> ``'0%'``,
    ``'0.0%'``): a bound the code compares a parsed number with, reached the way the tests reach it."""
    def written(text: str, form: str) -> str:
        found = _NUMBER_TEXT.search(text)
        return text if found is None else text[:found.start()] + form + text[found.end():]

    texts = [held] if type(held) is str else list(held) if type(held) in (tuple, list) and held and all(
        type(item) is str for item in held) else []
    if not any(_NUMBER_TEXT.search(text) for text in texts):
        return []
    found: list[Any] = []
    for number in numbers:
        for form in [str(number)] + ([f"{float(number)}"] if type(number) is int else []):
            if type(held) is str:
                found.append(written(held, form))
            else:  # in every element, then in the first
                found += [type(held)(written(text, form) for text in held),
                          type(held)([written(held[0], form), *held[1:]])]
    return _unique(found)


def literals_in(sources: Sequence[str]) -> tuple[Any, ...]:
    """The literal values test ``sources`` write, in order of appearance and without
    repeats: numbers, strings, bytes, and list/tuple/set/dict displays made of literals, and the dates,
    durations and numbers they build from literals (``date(2000, 2, 1)``).
    Docstrings, booleans and None are left out; a source that does not parse adds nothing."""
    found: list[Any] = []
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        displays: list[tuple[ast.expr, Any]] = []
        for node in ast.walk(tree):
            if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
                try:
                    value = ast.literal_eval(node)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    continue
                displays.append((node, value))
        nodes = sorted([*_literal_nodes(tree), *displays, *_built_nodes(tree)],
                       key=lambda pair: (pair[0].lineno, pair[0].col_offset))
        found += [value for _, value in nodes if callrecord.argument_repr(value) is not None]
    return tuple(_unique(found))


#: How a test names the standard constructors of dates, durations and numbers, as ``argument_value`` reads them.
_CONSTRUCTORS = {"date": "datetime.date", "datetime": "datetime.datetime", "time": "datetime.time",
                 "timedelta": "datetime.timedelta", "Decimal": "Decimal", "Fraction": "Fraction"}


def _built_nodes(tree: ast.AST) -> list[tuple[ast.expr, Any]]:
    """The dates, times, durations, Decimals and Fractions a test builds from literals (``date(2000, 2, 1)``,
    ``datetime.timedelta(days=10)``, ``Decimal('1.5')``), read with ``argument_value`` (nothing is run)."""
    found: list[tuple[ast.expr, Any]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else \
            node.func.attr if isinstance(node.func, ast.Attribute) else None
        if name not in _CONSTRUCTORS:
            continue
        call = ast.Call(ast.parse(_CONSTRUCTORS[name], mode="eval").body, node.args, node.keywords)
        try:
            found.append((node, callrecord.argument_value(ast.unparse(call))))
        except ValueError:
            continue
    return found


def _kinds(annotation: ast.expr | None) -> list[type]:
    """The builtin types an annotation names (``Optional[int]`` -> int, NoneType)."""
    import types
    import typing

    def flatten(resolved: Any) -> list[type]:
        origin = typing.get_origin(resolved)
        if origin is typing.Union or origin is types.UnionType:
            return [kind for member in typing.get_args(resolved) for kind in flatten(member)]
        if origin is not None:
            return [origin] if isinstance(origin, type) else []
        return [resolved] if isinstance(resolved, type) else []

    resolved = _resolve(annotation)
    return [] if resolved is None else flatten(resolved)


def _fits(value: Any, kinds: Sequence[type]) -> bool:
    """May ``value`` stand for an argument seen with ``kinds``? (ints and floats mix;
    any value fits an argument of unknown type, or one seen only as None)"""
    known = {kind for kind in kinds if kind is not _NONE}
    if not known:
        return True
    if type(value) in (int, float):
        return bool(known & {int, float})
    return type(value) in known


def _boundary_calls(signature: _Signature, samples: Sequence[CallSample], constants: Sequence[Any],
                    test_literals: Sequence[Any], budget: int, designed: Sequence[Any] = (),
                    related: Sequence[Sequence[str]] = ()) -> Iterator[tuple[list[str], dict[str, str], str]]:
    """Up to ``budget`` distinct calls, each a base call with one argument replaced.

    The base calls are the recorded ``samples``; with none, one default call: each
    required parameter gets the first edge value of its annotated type (0 when the type
    is unknown), and positional parameters with a literal default are passed it. In
    order: the ``constants`` of the mutated lines and their neighbours ("boundary"), the
    ``designed`` inputs (strings the mutated patterns and tables match, characters at code-point
    bounds: "designed"; before everything, each two words of a ``related`` group in two text
    arguments of the first base call), the first base call's empty, zero, negative, huge and None
    values ("edge-value"), the ``test_literals`` ("test-literal"), then the other base calls' edge values; those of
    the first base call always fit in the budget. A replacement must fit the types seen for that
    argument in the samples, its default and its annotation. Yields (args_repr,
    kwargs_repr, origin); calls equal to a sample are skipped.
    """
    positional = [p for p in signature.parameters if not p.keyword_only]
    keyword = [p for p in signature.parameters if p.keyword_only]
    kinds: dict[int | str, list[type]] = {}
    unannotated = {*(index for index, p in enumerate(positional) if p.annotation is None),
                   *(p.name for p in keyword if p.annotation is None)}

    def note(slot: int | str, *seen: type) -> None:
        bucket = kinds.setdefault(slot, [])
        for kind in seen:
            if kind not in bucket:
                bucket.append(kind)

    for sample in samples:
        for index, value in enumerate(sample.args):
            note(index, type(value))
        for name, value in sample.kwargs.items():
            note(name, type(value))
    for index, parameter in enumerate(positional):
        note(index, *(type(v) for v in parameter.default), *_kinds(parameter.annotation))
    for parameter in keyword:
        note(parameter.name, *(type(v) for v in parameter.default), *_kinds(parameter.annotation))

    def stand_in(slot: int | str) -> Any:
        seen = kinds.get(slot, [])
        for kind in seen:
            if kind in _EDGE_VALUES:
                return _EDGE_VALUES[kind][0]
        return None if seen == [_NONE] else 0

    bases: list[tuple[tuple[Any, ...], dict[str, Any]]] = [(s.args, s.kwargs) for s in samples]
    if not bases:
        args: list[Any] = []
        for index, parameter in enumerate(positional):
            if parameter.has_default and not parameter.default:
                break
            args.append(parameter.default[0] if parameter.default else stand_in(index))
        bases.append((tuple(args), {p.name: stand_in(p.name) for p in keyword if not p.has_default}))

    def slots(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[int | str]:
        return [*range(len(args)), *kwargs, *(p.name for p in keyword if p.name not in kwargs)]

    def replaced(base: tuple[tuple[Any, ...], dict[str, Any]], slot: int | str,
                 value: Any) -> tuple[list[str], dict[str, str]] | None:
        args, kwargs = list(base[0]), dict(base[1])
        if isinstance(slot, int):
            args[slot] = value
        else:
            kwargs[slot] = value
        args_repr = [text for text in map(callrecord.argument_repr, args) if text is not None]
        kwargs_repr = {name: text for name, v in kwargs.items() if (text := callrecord.argument_repr(v)) is not None}
        if len(args_repr) != len(args) or len(kwargs_repr) != len(kwargs):
            return None
        return args_repr, kwargs_repr

    def edge_values(base: tuple[tuple[Any, ...], dict[str, Any]]) -> Iterator[tuple[Any, int | str, Any, str]]:
        for slot in slots(*base):
            edges = [v for kind in kinds.get(slot, []) for v in _EDGE_VALUES.get(kind, ())]
            huge = [_HUGE_INT] if int in kinds.get(slot, []) else []  # last: some code is slow on it
            for value in _unique([*edges, None, *huge]):
                yield value, slot, base, "edge-value"

    def steps() -> Iterator[tuple[Any, int | str, tuple[tuple[Any, ...], dict[str, Any]], str]]:
        # two words a table's row relates, in two text arguments (`compare('stamens', 'stamina')`): few, and
        # made for the mutated row alone
        texts = [slot for slot in range(len(bases[0][0])) if _fits("", kinds.get(slot, []))]
        for group in related:
            for first, second in itertools.permutations(group, 2):
                for one, other in itertools.combinations(texts, 2):
                    args = list(bases[0][0])
                    args[one] = first
                    yield second, other, (tuple(args), bases[0][1]), "designed"
        near = _unique(v for constant in constants for v in _neighbours(constant))
        for value in near:
            for base in bases:
                for slot in slots(*base):
                    yield value, slot, base, "boundary"
        # inside what the tests passed: `(64, 64, 64)` where they passed `(255, 255, 255)` and the mutant
        # drops the entry for 64; `'0.0%'` where they wrote `'50%'` and the mutant moves a bound at 0
        # (at most _INSIDE of them: the designed inputs after them keep their share of the budget)
        numbers = [v for v in near if type(v) in (int, float)][:_RENUMBERED]
        inside = ((value, slot, base) for base in bases for slot in slots(*base)
                  for held in [base[0][slot] if isinstance(slot, int) else base[1].get(slot)]
                  for value in [*(v for near_value in near for v in _holding(held, near_value)),
                                *_renumbered(held, numbers)])
        for value, slot, base in itertools.islice(inside, _INSIDE):
            yield value, slot, base, "boundary"
        for value in _unique(designed):
            for base in bases:
                for slot in slots(*base):
                    yield value, slot, base, "designed"
        yield from edge_values(bases[0])  # few, and often the telling ones: before the time runs out
        built = [value for value in test_literals if isinstance(value, _BUILT_KINDS)]
        # the zero of each kind the tests used too: an empty duration is where `x == 0` and `x == other` meet
        zeros = [zero for kind in {type(value): None for value in built} for zero in _EDGE_VALUES.get(kind, ())]
        built = _unique([*{type(value): value for value in reversed(built)}.values(), *zeros,
                         *built])[:TEST_LITERALS // 2]
        plain = [value for value in test_literals if not isinstance(value, _BUILT_KINDS)][:TEST_LITERALS]
        for value in _unique([*built, *plain]):  # (the few dates and numbers first: they fit where text cannot)
            for base in bases:
                for slot in slots(*base):
                    yield value, slot, base, "test-literal"
        for base in bases[1:]:
            yield from edge_values(base)

    # The first call's edge values are few and often the telling ones: the constants leave room for them.
    reserve = len(list(edge_values(bases[0])))
    seen = {json.dumps([list(s.args_repr), sorted(s.kwargs_repr)]) for s in samples}
    given = 0
    for value, slot, base, origin in steps():
        if given >= budget:
            return
        if origin in ("boundary", "designed") and given >= budget - reserve:
            continue
        # (a date, duration or number the tests wrote may stand for any argument no annotation types: the
        # `other` of an operator takes whatever the tests combine with it)
        loose = origin == "test-literal" and isinstance(value, _BUILT_KINDS) and slot in unannotated
        if value is not None and not loose and not _fits(value, kinds.get(slot, [])):
            continue
        call = replaced(base, slot, value)
        if call is None:
            continue
        key = json.dumps([call[0], sorted(call[1].items())])
        if key not in seen:
            seen.add(key)
            given += 1
            yield call[0], call[1], origin


# --- the search space


@dataclass(frozen=True, slots=True)
class _Parameter:
    name: str
    keyword_only: bool
    has_default: bool
    default: tuple[Any, ...]  # (value,) when the default is a literal
    annotation: ast.expr | None


@dataclass(frozen=True, slots=True)
class _Signature:
    parameters: tuple[_Parameter, ...]

    @classmethod
    def of(cls, node: ast.FunctionDef, bound: bool = False) -> _Signature:
        """``bound``: a method called on its instance or class, which gives its first parameter."""
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        if bound and positional:
            positional.pop(0)
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
        defaults += list(arguments.defaults)
        parameters = [cls._parameter(arg, default, False) for arg, default in zip(positional, defaults)]
        parameters += [cls._parameter(arg, default, True)
                       for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults)]
        return cls(tuple(parameters))

    @staticmethod
    def _parameter(arg: ast.arg, default: ast.expr | None, keyword_only: bool) -> _Parameter:
        value: tuple[Any, ...] = ()
        if default is not None:
            try:
                literal = ast.literal_eval(default)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
            else:
                if callrecord.is_literal(literal):
                    value = (literal,)
        return _Parameter(arg.arg, keyword_only, default is not None, value, arg.annotation)


_TYPE_NAMES: dict[str, Any] = {
    "int": int, "float": float, "str": str, "bytes": bytes, "bool": bool, "None": type(None),
    "NoneType": type(None), "list": list, "dict": dict, "tuple": tuple, "set": set,
    "List": list, "Dict": dict, "Tuple": tuple, "Set": set, "Sequence": list, "MutableSequence": list,
    "Iterable": list, "Collection": list, "Mapping": dict, "MutableMapping": dict, "AbstractSet": set,
    "date": datetime.date, "time": datetime.time, "timedelta": datetime.timedelta, "Decimal": decimal.Decimal,
    "Fraction": fractions.Fraction,
}


def _resolve(node: ast.expr | None) -> Any:
    """A builtin/typing type for an annotation made only of literal-friendly names, else None.

    Annotations are read from the source, never evaluated: only the names above count.
    """
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        if node.value is None:
            return type(None)
        if isinstance(node.value, str):
            try:
                return _resolve(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                return None
        return None
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = node.id if isinstance(node, ast.Name) else node.attr
        return _TYPE_NAMES.get(name)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _resolve(node.left), _resolve(node.right)
        return None if left is None or right is None else _union((left, right))
    if isinstance(node, ast.Subscript):
        base = node.value.id if isinstance(node.value, ast.Name) else (
            node.value.attr if isinstance(node.value, ast.Attribute) else None)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base in ("Optional", "Union"):
            members = [_resolve(item) for item in items]
            if any(member is None for member in members):
                return None
            if base == "Optional":
                members.append(type(None))
            return _union(tuple(members))
        origin = _TYPE_NAMES.get(base or "")
        if origin not in (list, dict, tuple, set):
            return None
        if origin is tuple and len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is ...:
            element = _resolve(items[0])
            return None if element is None else tuple[element, ...]
        members = [_resolve(item) for item in items]
        if any(member is None for member in members):
            return None
        return origin[tuple(members)] if len(members) > 1 else origin[members[0]]
    return None


def _union(members: tuple[Any, ...]) -> Any:
    import typing

    return typing.Union[members]  # noqa: UP007


class _Pools:
    """Scalars seen in samples and defaults, by exact type; ints with their neighbours."""

    LIMIT = 40

    def __init__(self, values: Sequence[Any]) -> None:
        self.by_type: dict[type, list[Any]] = {}
        for value in values:
            self._walk(value)
        ints = self.by_type.get(int, [])
        widened = list(dict.fromkeys(v + d for v in ints for d in (0, -1, 1)))
        if ints:
            self.by_type[int] = sorted(widened, key=lambda v: (abs(v), v))[: self.LIMIT]

    def _walk(self, value: Any) -> None:
        kind = type(value)
        if kind in (list, tuple, set):
            for item in value:
                self._walk(item)
        elif kind is dict:
            for key, item in value.items():
                self._walk(key)
                self._walk(item)
        elif kind is not bool and kind is not type(None):
            pool = self.by_type.setdefault(kind, [])
            if value not in pool and len(pool) < self.LIMIT:
                pool.append(value)

    def scalar(self, kind: type, base: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        seen = self.by_type.get(kind)
        return st.one_of(st.sampled_from(seen), base) if seen else base


#: Argument kinds beyond literals (``callrecord.argument_repr``): inputs of the same kind as the tests gave.
_BUILT_KINDS = (datetime.date, datetime.datetime, datetime.time, datetime.timedelta, decimal.Decimal,
                fractions.Fraction)


def _built_strategy(value: Any) -> st.SearchStrategy[Any]:
    """Dates, datetimes (in the seen value's time zone), times, durations, Decimals (with its places) and
    fractions."""
    if type(value) is datetime.datetime:
        return st.datetimes(timezones=st.just(value.tzinfo)) if value.tzinfo is not None else st.datetimes()
    if type(value) is decimal.Decimal:
        exponent = value.as_tuple().exponent
        places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        return st.decimals(allow_nan=False, allow_infinity=False, places=places)
    return {datetime.date: st.dates, datetime.time: st.times, datetime.timedelta: st.timedeltas,
            fractions.Fraction: st.fractions}[type(value)]()


def _shape(value: Any, pools: _Pools, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values shaped like ``value`` (same types, nearby sizes), seeded with the seen scalars."""
    kind = type(value)
    if kind is bool:
        return st.booleans()
    if kind is int:
        return pools.scalar(int, st.integers())
    if kind is float:
        return pools.scalar(float, st.floats(allow_nan=False, allow_infinity=False))
    if kind is str:
        return pools.scalar(str, st.text(max_size=10))
    if kind is bytes:
        return pools.scalar(bytes, st.binary(max_size=10))
    if kind in _BUILT_KINDS:
        return pools.scalar(kind, _built_strategy(value))
    if value is None:
        return st.none()
    if depth > 3:
        return st.none()
    if kind in (list, set):
        elements = _elements(list(value), pools, depth, hashable=kind is set)
        size = max(8, len(value) + 2)
        if kind is set:
            return st.sets(elements, max_size=size)
        return st.lists(elements, max_size=size)
    if kind is tuple:
        if 0 < len(value) <= 6:
            return st.tuples(*(_shape(item, pools, depth + 1) for item in value))
        return st.lists(_elements(list(value), pools, depth), max_size=len(value) + 2).map(tuple)
    if kind is dict:
        keys = _elements(list(value), pools, depth, hashable=True)
        values = _elements(list(value.values()), pools, depth)
        return st.dictionaries(keys, values, max_size=max(6, len(value) + 1))
    return st.none()


def _signature_of_type(value: Any) -> str:
    kind = type(value)
    if kind in (list, tuple, set):
        return f"{kind.__name__}[{','.join(sorted({_signature_of_type(v) for v in value}))}]"
    if kind is dict:
        pairs = {f"{_signature_of_type(k)}:{_signature_of_type(v)}" for k, v in value.items()}
        return f"dict[{','.join(sorted(pairs))}]"
    return kind.__name__


def _elements(values: Sequence[Any], pools: _Pools, depth: int, hashable: bool = False) -> st.SearchStrategy[Any]:
    shapes: dict[str, Any] = {}
    for value in values:
        if hashable and type(value) in (list, dict, set):
            continue
        shapes.setdefault(_signature_of_type(value), value)
    if not shapes:
        return pools.scalar(int, st.integers(-10, 10))
    return st.one_of([_shape(value, pools, depth + 1) for value in list(shapes.values())[:4]])


def _generic(pools: _Pools) -> st.SearchStrategy[Any]:
    small_int = pools.scalar(int, st.integers(-10, 100))
    return st.one_of(small_int, st.text(max_size=5), st.lists(small_int, max_size=6), st.none(), st.booleans())


def _parameter_strategy(parameter: _Parameter, seen: Sequence[Any], pools: _Pools) -> st.SearchStrategy[Any]:
    literals = list(seen) + list(parameter.default)
    options: list[st.SearchStrategy[Any]] = []
    unique: list[Any] = []
    for value in literals:
        if not any(type(value) is type(u) and value == u for u in unique):
            unique.append(value)
    if unique:
        options.append(st.sampled_from(unique))
    annotated = _resolve(parameter.annotation)
    if annotated is not None:
        try:
            options.append(st.from_type(annotated).filter(lambda v: callrecord.argument_repr(v) is not None))
        except Exception:  # noqa: BLE001 - an annotation Hypothesis cannot build: use the samples
            pass
    shapes: dict[str, Any] = {}
    for value in unique:
        shapes.setdefault(_signature_of_type(value), value)
    options += [_shape(value, pools) for value in shapes.values()]
    if not options:
        options.append(_generic(pools))
    return st.one_of(options)


def _search(signature: _Signature, samples: Sequence[CallSample], comparer: _Comparer,
            budget: int) -> Distinction | None:
    """Hypothesis over the signature; the first difference found is shrunk, then returned."""
    positional = [p for p in signature.parameters if not p.keyword_only]
    keyword = [p for p in signature.parameters if p.keyword_only]
    seen_at: dict[str, list[Any]] = {p.name: [] for p in signature.parameters}
    everything: list[Any] = []
    for sample in samples:
        args, kwargs = sample.args, sample.kwargs
        everything += [*args, *kwargs.values()]
        for parameter, value in zip(positional, args):
            seen_at[parameter.name].append(value)
        for name, value in kwargs.items():
            if name in seen_at:
                seen_at[name].append(value)
    for parameter in signature.parameters:
        everything += list(parameter.default)
    pools = _Pools(everything)
    strategies = {p.name: _parameter_strategy(p, seen_at[p.name], pools) for p in signature.parameters}
    required = sum(1 for p in positional if not p.has_default)
    optional = len(positional) - required

    def positional_args(count: int) -> st.SearchStrategy[tuple[Any, ...]]:
        return st.tuples(*(strategies[p.name] for p in positional[:count]))

    args_strategy = st.integers(0, optional).flatmap(lambda extra: positional_args(required + extra))
    kwargs_strategy = st.fixed_dictionaries(
        {p.name: strategies[p.name] for p in keyword if not p.has_default},
        optional={p.name: strategies[p.name] for p in keyword if p.has_default},
    )

    hypothesis = _hypothesis()

    @hypothesis.settings(max_examples=budget, derandomize=True, database=None, deadline=None,
                         suppress_health_check=list(hypothesis.HealthCheck),
                         phases=(hypothesis.Phase.generate, hypothesis.Phase.shrink),
                         verbosity=hypothesis.Verbosity.quiet, report_multiple_bugs=False)
    @hypothesis.given(args_strategy, kwargs_strategy)
    def search(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        args_repr = [callrecord.argument_repr(value) for value in args]
        kwargs_repr = {name: callrecord.argument_repr(value) for name, value in kwargs.items()}
        if None in args_repr or None in kwargs_repr.values():
            return
        found = comparer.check(args_repr, kwargs_repr, "search")  # type: ignore[arg-type]
        if found is not None:
            raise _Found(found)

    try:
        search()
    except _Found as found:
        return found.distinction
    except Exception:  # noqa: BLE001 - Hypothesis' own failures (flaky driver) mean no input
        return None
    return None


# ---------------------------------------------------------------------------
# 3. writing a probe


def call_text(function: str, args_repr: Sequence[str], kwargs_repr: Sequence[tuple[str, str]],
               receiver: callrecord.Receiver | None = None, instance: str | None = None, read: bool = False) -> str:
    """The call as a test writes it. A method ``Class.name`` with a ``receiver`` is called on the instance
    built as the tests built it (``Money(5, 'EUR').split(2)``; on ``instance``, a name holding it, when
    given): a special method by its operator or builtin (``(Money(5, 'EUR') + 1)``), a property (``read``) as
    an attribute."""
    arguments = [*map(_readable, args_repr), *(f"{name}={_readable(text)}" for name, text in kwargs_repr)]
    if receiver is None:
        return f"{function}({', '.join(arguments)})"
    owner, _, name = function.rpartition(".")
    built = instance or call_text(owner, receiver.args_repr, receiver.kwargs_repr)
    if name in callrecord.OPERATORS:
        template = callrecord.OPERATORS[name][1]
        text = template.format(built, *arguments)
        return f"({text})" if " " in template or template.startswith("-") else text
    if read:
        return f"{built}.{name}"
    return f"{built}.{name}({', '.join(arguments)})"


def _argument_texts(distinction: Distinction) -> list[str]:
    """Every argument a probe writes: the call's, its set-up call's, and its instance's construction."""
    calls = [(distinction.args_repr, distinction.kwargs_repr)]
    calls += [(made.args_repr, made.kwargs_repr) for made in (distinction.setup,) if made]
    texts = [text for args, kwargs in calls for text in (*args, *(value for _, value in kwargs))]
    return texts + list(distinction.receiver.texts() if distinction.receiver else ())


def _bare(text: str) -> str:
    """``text`` without the parentheses around all of it (an operator's call passed to ``vars``)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    try:
        whole, inner = ast.parse(text, mode="eval"), ast.parse(text[1:-1], mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return text
    same = ast.dump(whole) == ast.dump(inner) and not isinstance(inner.body, ast.Tuple)
    return text[1:-1] if same else text


def _snake(function: str) -> str:
    """A test name's part for ``function`` (``Money.__add__`` -> ``money_add``)."""
    return re.sub(r"_+", "_", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", function.replace(".", "_"))).strip("_").lower()


def _instance_name(function: str) -> str:
    """The local name a test gives the instance whose method it calls (``Money.split`` -> ``money``)."""
    owner = function.rpartition(".")[0]
    name = _snake(owner) or "instance"
    return name if name not in ("pytest", "unittest", "self", owner) else f"{name}_instance"


def _building(function: str, receiver: callrecord.Receiver, instance: str) -> list[str]:
    """The lines that build a method's instance as the tests built theirs: its class's call, then the set-up
    calls they made on it (``engine = Engine()``, ``engine.classical(all=True)``)."""
    built = call_text(function.rpartition(".")[0], receiver.args_repr, receiver.kwargs_repr)
    return [f"{instance} = {built}", *(call_text(f"{instance}.{name}", args, kwargs)
                                       for name, args, kwargs in receiver.steps)]


def _readable(text: str) -> str:
    """A power of ten too long to read (``10**400``) as a person writes it."""
    found = re.fullmatch(r"(-?)10{20,}", text)
    return f"{found.group(1)}10**{len(text) - len(found.group(1)) - 1}" if found else text


def _behaviour(value: str | None, exception: str | None) -> str:
    return value if value is not None else f"raise {exception}"


_KEEP = "\x00"  # stands for a space inside `code`, where a docstring line must not break


def _docstring(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    pieces = escaped.split("`")
    escaped = "`".join(piece.replace(" ", _KEEP) if i % 2 else piece for i, piece in enumerate(pieces))
    lines: list[str] = []
    for paragraph in escaped.split("\n\n"):
        lines += textwrap.wrap(paragraph, width=92, break_long_words=False, break_on_hyphens=False) or [""]
        lines.append("")
    body = "\n".join(f"    {line}" if line else "" for line in lines[:-1]).replace(_KEEP, " ")
    return f'    """{body.lstrip()}\n    """\n'


def _narrate(value: str | None, exception: str | None) -> str:
    return f"returns {value}" if value is not None else f"raises {exception}"


def _is_float(text: str) -> bool:
    """Is ``text`` a float literal (asserted with ``pytest.approx``)? Constructor texts are not."""
    try:
        return type(ast.literal_eval(text)) is float
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _held_arguments(distinction: Distinction, taken: str) -> dict[int, str]:
    """Local names for the arguments a probe must hold to look at them after the call (not ``taken``)."""
    indexes = [index for index, _, _ in distinction.changed_arguments]
    stem = "argument" if "argument" not in taken else "held"
    return {index: stem if len(indexes) == 1 else f"{stem}_{index + 1}" for index in indexes}


#: How the state of a method's instance after the call is named, by how it is read.
_INSTANCE_STATE = {"vars": "the instance's attributes", "str": "the instance's text", "repr": "the instance"}


def arguments_narrated(distinction: Distinction, side: int, short: bool = False) -> str:
    """How one side leaves the arguments (or the method's instance) it changed in place (side 1: reference,
    2: mutant)."""
    changes = [(f"argument {change[0] + 1}", change[side]) for change in distinction.changed_arguments]
    if distinction.receiver_after is not None:
        changes.append((_INSTANCE_STATE[distinction.receiver_after[0]], distinction.receiver_after[side]))
    if not changes:
        return ""
    if short:
        return " (" + "; ".join(f"{what} {'become' if what.endswith('s') else 'becomes'} {after}"
                                for what, after in changes) + ")"
    return " and leaves " + ", ".join(f"{what} as {after}" for what, after in changes)


def _import_lines(names: Mapping[str, list[str]]) -> list[str]:
    lines = []
    for module, imported in names.items():
        if module:
            lines.append(f"from {module} import {', '.join(sorted(set(imported), key=str.lower))}")
        else:
            lines += [f"import {name}" for name in imported]
    return lines


def write_probe(mutant: Mutant, distinction: Distinction, module: str, *, contract_id: str | None = None,
                function: str | None = None, witness: bool = False, incident: str | None = None,
                style: str = "pytest", path: str | None = None) -> Probe:
    """A readable pytest file asserting the reference's behaviour on the distinguishing input.

    ``function`` is the public function the input calls (default: the mutated one);
    ``witness`` words it for Test Evaluation (the code as it is) rather than Capture;
    ``incident`` replaces the mutant's sentence when that does not describe this input;
    ``style`` "unittest" writes a ``unittest.TestCase`` method instead of a test function (the
    style of the project's nearest test file); ``path`` is where the file will go."""
    function = function or mutant.symbol
    code = "the code" if witness else "the reference"
    names: dict[str, list[str]] = {}
    first = function.split(".")[0]
    if first.startswith("test"):  # imported under its own name pytest would collect it as a test
        parent, _, leaf = module.rpartition(".")
        names.setdefault(parent, []).append(leaf)
        callee = f"{leaf}.{function}"
    else:
        names.setdefault(module, []).append(first)
        callee = function
    held = _held_arguments(distinction, " ".join([callee, *distinction.imports]))
    passed = tuple(held.get(index, text) for index, text in enumerate(distinction.args_repr))
    receiver = distinction.receiver
    stepped = receiver is not None and bool(receiver.steps)  # (set up after its construction: held in a name)
    instance = _instance_name(function) if distinction.receiver_after or stepped else None
    call = call_text(callee, passed, distinction.kwargs_repr, receiver, instance, distinction.read)
    shown = call_text(function, distinction.args_repr, distinction.kwargs_repr, receiver, instance if stepped else None,
                      read=distinction.read)
    building = _building(function, receiver, instance) if receiver is not None and instance is not None else []
    matched = distinction.view == "match" and distinction.reference_exception is None
    if distinction.view is not None and distinction.reference_exception is None and not matched:
        # what a test can assert of it
        call, shown = f"{distinction.view}({_bare(call)})", f"{distinction.view}({_bare(shown)})"
    if stepped:
        shown = "; ".join([*building, shown])
    test_name = f"test_{_snake(function)}_{mutant.id[:8]}"
    path = path or f"tests/test_elenchus_probe_{mutant.id}.py"

    needs_pytest = False
    if distinction.reference_exception is not None:
        needs_pytest = True
        exc_module, _, exc_name = distinction.reference_exception.rpartition(".")
        if exc_module:
            names.setdefault(exc_module, []).append(exc_name)
        body = f"    with pytest.raises({exc_name}):\n        {call}\n"
    else:
        assert distinction.reference_repr is not None
        expected = distinction.reference_repr
        if _is_float(expected):
            needs_pytest = True
            expected = f"pytest.approx({expected})"
        line = f"    assert {call} is None\n" if expected == "None" else f"    assert {call} == {expected}\n"
        body = line if len(line) <= 100 else f"    expected = {expected}\n    assert {call} == expected\n"
        if matched:  # a regex match: what it matched, where, and each group
            body = f"    found = {call}\n    expected = {expected}\n    assert {callrecord.MATCH_FACTS} == expected\n"
        if held:  # the call changes arguments in place: hold them, then check their states
            body = "".join(f"    {held[index]} = {distinction.args_repr[index]}\n" for index in sorted(held)) + body
            for index, after, _ in distinction.changed_arguments:
                if _is_float(after):
                    needs_pytest, after = True, f"pytest.approx({after})"
                body += f"    assert {held[index]} == {after}\n"
        if instance is not None and receiver is not None and distinction.receiver_after is not None:
            # the call leaves its instance in another state: build it, call, then check the state
            how, after, _ = distinction.receiver_after
            state = {"repr": instance, "vars": f"vars({instance})", "str": f"str({instance})"}[how]
            body = f"    {call}\n    assert {state} == {after}\n"
    if building:  # the instance, built (and set up) as the tests built theirs, before the call
        body = "".join(f"    {line}\n" for line in building) + body
    if distinction.setup is not None:  # the call the tests made first, that selects the state shown
        setup_name = distinction.setup.target.partition(":")[2]
        names.setdefault(module, []).append(setup_name)
        before = call_text(setup_name, distinction.setup.args_repr, distinction.setup.kwargs_repr)
        if distinction.undo is not None:  # the state it selects must not outlive the test
            undo_name = distinction.undo.target.partition(":")[2]
            names[module].append(undo_name)
            undone = call_text(undo_name, distinction.undo.args_repr, distinction.undo.kwargs_repr)
            body = f"    try:\n{textwrap.indent(body, '    ')}    finally:\n        {undone}\n"
        body = f"    {before}\n" + body
        shown = f"{before}; {shown}"
    if style == "unittest":  # the TestCase's own assertions where they say the same
        body = body.replace("with pytest.raises(", "with self.assertRaises(")
        lines = []
        for line in body.splitlines(keepends=True):
            left, approx, right = line.rpartition(" == pytest.approx(")
            if approx and left.lstrip().startswith("assert ") and right.endswith(")\n"):
                indent = left[:len(left) - len(left.lstrip())]
                line = f"{indent}self.assertAlmostEqual({left.lstrip()[len('assert '):]}, {right[:-2]})\n"
            lines.append(line)
        body = "".join(lines)
        needs_pytest = "pytest." in body
    imports = ("import unittest\n\n" if style == "unittest" else "") + ("import pytest\n\n" if needs_pytest else "") \
        + "\n".join(dict.fromkeys([*callrecord.argument_imports(_argument_texts(distinction)),
                                    *distinction.imports, *distinction.receiver_imports, *_import_lines(names)]))

    summary = (f"Guards against: {incident or mutant.incident}\n\n"
               f"Mutant {mutant.id} at {mutant.path}:{mutant.line} {mutant.changed_intent}. "
               f"For {shown} {code} "
               f"{_narrate(distinction.reference_repr, distinction.reference_exception)}"
               f"{arguments_narrated(distinction, 1)}; the mutant "
               f"{_narrate(distinction.mutant_repr, distinction.mutant_exception)}"
               f"{arguments_narrated(distinction, 2)}.")
    if contract_id:
        summary += f"\n\nContract: {contract_id}."
    heading = ("Elenchus witness: asserts the current behaviour of" if witness else
               "Elenchus probe (Capture mode): asserts the reference behaviour of")
    if style == "unittest":
        case = "Test" + "".join(part[:1].upper() + part[1:] for part in re.split(r"[_.]", function) if part) \
            + "Witness"
        method = textwrap.indent(f"def {test_name}(self):\n" + _docstring(summary) + body, "    ")
        definition, nodeid = f"class {case}(unittest.TestCase):\n{method}", f"{path}::{case}::{test_name}"
    else:
        definition, nodeid = f"def {test_name}():\n" + _docstring(summary) + body, f"{path}::{test_name}"
    source = f'"""{heading} `{function}` on one input."""\n\n' + imports + "\n\n\n" + definition
    return Probe(
        id=mutant.id,
        path=path,
        source=source,
        test_nodeid=nodeid,
        contract_id=contract_id,
        mutant_ids=(mutant.id,),
        input_repr=shown,
        reference_repr=_behaviour(distinction.reference_repr, distinction.reference_exception),
        mutant_repr=_behaviour(distinction.mutant_repr, distinction.mutant_exception),
        module=module,
        function=function,
        args_repr=distinction.args_repr,
        kwargs_repr=distinction.kwargs_repr,
        receiver=receiver,
    )


def host_probe(path: str, source: str, *, mutant_ids: Sequence[str] = (), contract_id: str | None = None) -> Probe:
    """A ``Probe`` for a test file written by a host (an agent or a person); runs as a whole file."""
    digest = hashlib.sha256(f"{path}\0{source}".encode()).hexdigest()[:12]
    return Probe(id=f"host-{digest}", path=PurePosixPath(Path(path).as_posix()).as_posix(), source=source,
                 test_nodeid=PurePosixPath(Path(path).as_posix()).as_posix(), contract_id=contract_id,
                 mutant_ids=tuple(mutant_ids), input_repr="", reference_repr="", mutant_repr=None)


# ---------------------------------------------------------------------------
# 4. verifying probes


#: Dunder attributes a test may use without reaching into an object's internals.
_HARMLESS_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__", "__init__", "__enter__", "__exit__",
                               "__iter__", "__next__", "__len__", "__future__"})
_REFLECTIVE_CALLS = frozenset({"getattr", "setattr", "delattr", "hasattr", "patch", "object"})


def _private(name: str) -> bool:
    return name.startswith("_") and name not in _HARMLESS_DUNDERS


class _PrivateNames(cst.CSTVisitor):
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.found: list[str] = []

    def _add(self, name: str) -> None:
        if name not in self.found:
            self.found.append(name)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if _private(node.attr.value):
            self._add(self.module.code_for_node(node))

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = self.module.code_for_node(alias.name)
            if any(_private(part) for part in dotted.split(".")):
                self._add(dotted)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        dotted = self.module.code_for_node(node.module) if node.module is not None else ""
        if any(_private(part) for part in dotted.split(".") if part):
            self._add(dotted)
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = self.module.code_for_node(alias.name)
            if _private(name):
                self._add(f"{dotted}.{name}" if dotted else name)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
        if name not in _REFLECTIVE_CALLS:
            return
        for arg in node.args:
            if isinstance(arg.value, cst.SimpleString):
                text = arg.value.evaluated_value
                if isinstance(text, str) and any(_private(part) for part in text.split(".")):
                    self._add(text)


def private_names_in(source: str) -> list[str]:
    """Private names a probe reaches: ``obj._x`` attributes, reflective dunders, imports of
    ``_name`` (or from ``_private`` modules) and ``getattr``/``setattr``/``patch`` strings naming
    one. A source that does not parse yields ``["<unparseable>"]``."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return ["<unparseable>"]
    visitor = _PrivateNames(module)
    module.visit(visitor)
    return visitor.found


def _run_in_copy(template: Path, probe_path: str, probe_source: str, selector: str, root: Path,
                 timeout: float, mutant: Mutant | None = None, layout: SourceLayout | None = None,
                 disabled_plugins: Sequence[str] = ()) -> RunResult:
    workspace = fresh_copy(Path(template), root)
    try:
        if mutant is not None:
            write_mutant(workspace, mutant.path, mutant.mutated_source)
        place_test(workspace, probe_path, probe_source)
        return run_pytest(workspace, [selector], timeout, mutated_file=mutant.path if mutant else None,
                          layout=layout, disabled_plugins=disabled_plugins)
    finally:
        remove_tree(workspace)


def _describe(record: TestRecord) -> str:
    kind = record.failure_kind.value if record.failure_kind else record.outcome.value
    detail = f" ({record.exception_type}: {record.message})" if record.message else ""
    return f"{record.nodeid}: {kind}{detail}"


def _reference_problem(result: RunResult) -> str | None:
    """Why the probe run on the reference does not count as a pass (None: it passed)."""
    if result.execution is not Execution.COMPLETED:
        return f"did not complete on the reference ({result.execution.value}: {result.detail})"
    failures = [r for r in result.records if r.is_failure]
    structural = [r for r in failures if r.failure_kind in (FailureKind.COLLECTION_ERROR, FailureKind.SETUP_ERROR)]
    if structural and len(structural) == len(failures):
        return f"fails on the reference only by an import, collection or setup error: {_describe(structural[0])}"
    if failures:
        return f"fails on the reference: {_describe(failures[0])}"
    if not any(r.outcome is TestOutcome.PASSED for r in result.records):
        return "no test of the probe passed on the reference (none collected, or all skipped)"
    return None


def _kill(result: RunResult) -> tuple[TestRecord | None, str]:
    """The record failing at an assertion on the mutant, or None and why not."""
    if result.execution is Execution.TIMED_OUT:
        return None, "timed out on the mutant, which is not a failure at an assertion"
    if result.execution is not Execution.COMPLETED:
        return None, f"did not complete on the mutant ({result.execution.value}: {result.detail})"
    failures = [r for r in result.records if r.is_failure]
    for record in failures:
        if record.failure_kind in _KILL_KINDS or (
                record.failure_kind is FailureKind.UNEXPECTED_EXCEPTION and record.check is not None):
            return record, f"fails at its assertion: {_describe(record)}"
    if failures:
        first = failures[0]
        if first.failure_kind in (FailureKind.COLLECTION_ERROR, FailureKind.SETUP_ERROR):
            return None, f"fails on the mutant only by an import, collection or setup error: {_describe(first)}"
        return None, f"fails on the mutant but not at its assertion: {_describe(first)}"
    return None, "passes on the mutant, so it does not detect it"


#: How a probe is run for its verification: (its path, its source, the mutant or None for the code,
#: the time limit) -> the result of pytest running it in a fresh copy of the code.
ProbeRun = Callable[[str, str, "Mutant | None", float], RunResult]


def verify_probe(reference_dir: Path, probe: Probe, mutant: Mutant, *, timeout: float = PROBE_TIMEOUT,
                 scratch: Path | None = None, layout: SourceLayout | None = None,
                 disabled_plugins: Sequence[str] = (), run: ProbeRun | None = None) -> ProbeCheck:
    """Accept ``probe`` only if it touches no private name, passes on a fresh copy of the
    reference, and fails at its assertion on a fresh copy with ``mutant`` applied.

    ``run`` runs it (an evaluation's warm workers, say); by default a fresh interpreter in a copy
    under ``scratch``."""
    private = private_names_in(probe.source)
    if private:
        return ProbeCheck(False, f"touches private names: {', '.join(private)}; a probe may use only public API")
    with ExitStack() as stack:
        if run is None:
            root = stack.enter_context(_scratch(scratch))

            def run(path: str, source: str, changed: Mutant | None, limit: float) -> RunResult:
                return _run_in_copy(reference_dir, path, source, path, root, limit, changed, layout, disabled_plugins)
        problem = _reference_problem(run(probe.path, probe.source, None, timeout))
        if problem is not None:
            return ProbeCheck(False, problem)
        record, why = _kill(run(probe.path, probe.source, mutant, timeout))
    if record is None:
        return ProbeCheck(False, f"passes on the reference but {why} (mutant {mutant.id})")
    return ProbeCheck(True, f"passes on the reference and, on mutant {mutant.id}, {why}", (mutant.id,))


def passes_on(reference_dir: Path, path: str, source: str, *, timeout: float = PROBE_TIMEOUT,
              layout: SourceLayout | None = None, scratch: Path | None = None) -> str | None:
    """Why the test file ``source`` at ``path`` does not pass on a fresh copy of ``reference_dir`` (None: it passes)."""
    with _scratch(scratch) as root:
        return _reference_problem(_run_in_copy(reference_dir, path, source, path, root, timeout, layout=layout))


def check_host_probe(reference_dir: Path, path: str, source: str, mutants: Sequence[Mutant], *,
                     timeout: float = PROBE_TIMEOUT, scratch: Path | None = None) -> ProbeCheck:
    """Verify a probe written by someone else by the same rules; it must kill at least one
    of ``mutants`` at its assertion (all are tried; ``killed`` lists those it kills)."""
    private = private_names_in(source)
    if private:
        return ProbeCheck(False, f"touches private names: {', '.join(private)}; a probe may use only public API")
    rel = PurePosixPath(Path(path).as_posix())
    if rel.is_absolute() or ".." in rel.parts or rel.suffix != ".py":
        return ProbeCheck(False, f"a probe path must be a relative .py path inside the project, got {path!r}")
    selector = rel.as_posix()
    with _scratch(scratch) as root:
        problem = _reference_problem(_run_in_copy(reference_dir, selector, source, selector, root, timeout))
        if problem is not None:
            return ProbeCheck(False, problem)
        killed: list[str] = []
        misses: list[str] = []
        for mutant in mutants:
            record, why = _kill(_run_in_copy(reference_dir, selector, source, selector, root, timeout, mutant))
            (killed if record is not None else misses).append(mutant.id if record is not None else
                                                              f"{mutant.id}: {why}")
    if not killed:
        detail = "; ".join(misses) if misses else "no mutant was given"
        return ProbeCheck(False, f"passes on the reference but kills no given mutant at an assertion ({detail})")
    return ProbeCheck(True, f"passes on the reference and fails at its assertion on {', '.join(killed)}",
                      tuple(killed))


# ---------------------------------------------------------------------------
# 5. running a probe against a proposed revision


def run_probe(workspace_dir: Path, probe: Probe, *, timeout: float = PROBE_TIMEOUT,
              per_call_timeout: float = PER_CALL_TIMEOUT, scratch: Path | None = None,
              disabled_plugins: Sequence[str] = ()) -> ProbeOutcome:
    """Run ``probe`` in a fresh copy of ``workspace_dir`` (the proposed revision), without the pytest
    plugins ``disabled_plugins``."""
    with _scratch(scratch) as root:
        workspace = fresh_copy(Path(workspace_dir), root)
        try:
            place_test(workspace, probe.path, probe.source)
            # The whole file, not the node id: a module that no longer imports must come back
            # as a collection error, not as pytest's "not found" usage error.
            result = run_pytest(workspace, [probe.path], timeout, disabled_plugins=disabled_plugins)
            kind, message = _classify(result)
            proposed = None
            if kind is ProbeOutcomeKind.BEHAVIOURAL_FAILURE and probe.module and probe.function:
                with _Driver(workspace, probe.module, probe.function, per_call_timeout) as driver:
                    if driver.ready:
                        observed = _observed(driver.call(probe.args_repr, dict(probe.kwargs_repr), probe.receiver))
                        if observed is not None:
                            proposed = _behaviour(*observed)
        finally:
            remove_tree(workspace)
    return ProbeOutcome(kind, message, proposed)


def _classify(result: RunResult) -> tuple[ProbeOutcomeKind, str]:
    if result.execution is Execution.TIMED_OUT:
        return ProbeOutcomeKind.INCONCLUSIVE, f"timed out: {result.detail}"
    if result.execution is not Execution.COMPLETED:
        return ProbeOutcomeKind.INCONCLUSIVE, f"{result.execution.value}: {result.detail}"
    failures = [r for r in result.records if r.is_failure]
    for record in failures:
        if record.failure_kind in _KILL_KINDS:
            return ProbeOutcomeKind.BEHAVIOURAL_FAILURE, record.message or _describe(record)
    for record in failures:
        if record.failure_kind is FailureKind.COLLECTION_ERROR:
            return ProbeOutcomeKind.NOT_COMPARABLE, f"the probe cannot be imported or collected: {_describe(record)}"
        if record.failure_kind is FailureKind.UNEXPECTED_EXCEPTION:
            name = (record.exception_type or "").rpartition(".")[2]
            if name in _API_MISMATCH:
                return ProbeOutcomeKind.NOT_COMPARABLE, f"the call no longer fits the API: {_describe(record)}"
            return ProbeOutcomeKind.BEHAVIOURAL_FAILURE, f"raised where the reference did not: {_describe(record)}"
    if failures:
        return ProbeOutcomeKind.INCONCLUSIVE, f"failed outside the probe's body: {_describe(failures[0])}"
    if any(r.outcome is TestOutcome.PASSED for r in result.records):
        return ProbeOutcomeKind.PASSES, "passes on the proposed revision"
    return ProbeOutcomeKind.INCONCLUSIVE, "no test of the probe ran to completion"
