"""The subprocesses that run user code: driver processes and the recording run.

No user code is imported into Elenchus's own process. A ``_Driver`` is one
``callrecord.serve`` process in a workspace, answering calls over pipes; ``record_calls``
runs the reference tests once with the ``callrecord`` plugin. Both load
``elenchus/execution/callrecord.py`` from its file under the private name
``CALLRECORD_MODULE`` (``_loader``), so a workspace holding its own ``elenchus`` cannot
shadow it; the scratch directories they work in (``_scratch``) live here too.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from elenchus.execution import callrecord, sandbox
from elenchus.encoding import read_python
from elenchus.execution.run import module_loader, run_command, scrub_environment
from elenchus.execution.workspace import fresh_copy, remove_tree, scratch_root
from elenchus.analysis.probes.common import CallSample


#: ``callrecord`` is loaded from its file under this private name in subprocesses, so a
#: workspace that holds its own ``elenchus`` package cannot shadow it.
CALLRECORD_MODULE = "_elenchus_callrecord"

RECORD_TIMEOUT = 300.0  # seconds for the one recording run of the reference tests
PER_CALL_TIMEOUT = 2.0  # seconds for one call of the function in a driver
DRIVER_START_TIMEOUT = 30.0
MAX_DRIVER_RESTARTS = 5


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


#: Calls a driver keeps the noted sides of.
MAX_SIDED = 16


class _Driver:
    """One ``callrecord.serve`` process in a workspace, answering calls over pipes."""

    def __init__(self, workspace: Path, module: str, qualname: str, per_call: float,
                 roots: Sequence[str] = (), watch: tuple[str, Sequence[int]] | None = None,
                 setup: CallSample | None = None, ran: Sequence[int] = ()) -> None:
        self.setup = setup  # made before every call (the driver starts afresh: each call sees it once more)
        self.workspace = workspace
        self.module = module
        self.qualname = qualname
        self.per_call = per_call
        self.roots = tuple(roots)
        self.watch = watch  # (workspace-relative path, lines): answers say whether a call ran them
        # lines of the watched file that must have run while the module imported for any call to count as
        # reaching them (module-level code under `if`: the import may take the other branch)
        self.ran = tuple(ran)
        self.ran_at_import: bool | None = None  # whether they did; None when not asked
        self.error: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._starts = 0
        self._import_failed = False
        # calls whose boundary comparison the driver noted, with what its two sides held (``callwatch.tied``)
        self.sides: list[tuple[tuple[str, ...], dict[str, str], callrecord.Receiver | None, list[Any]]] = []
        # calls whose broadened handler caught only what the code's catches too ("same"), or more ("other"), and
        # calls that timed out or crashed, of which nothing is known (``callwatch.widened``)
        self.caught = {"same": 0, "other": 0}
        self.lost = 0

    def __enter__(self) -> _Driver:
        self._start()
        return self

    @staticmethod
    def pair(first: _Driver, second: _Driver, stack: ExitStack) -> tuple[_Driver, _Driver]:
        """Both drivers started side by side (each imports the code on its own; started one after the other,
        the second waited for the first to import it, for every function a search goes through), then closed
        with ``stack``."""
        for driver in (first, second):
            stack.callback(driver.close)
            driver._launch()
        for driver in (first, second):
            driver._greet()
        return first, second

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    @property
    def ready(self) -> bool:
        return self._proc is not None

    def _start(self) -> None:
        self._launch()
        self._greet()

    def _launch(self) -> None:
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
                     *([f"{(self.workspace / self.watch[0]).resolve()}:{','.join(map(str, self.watch[1]))}",
                        ",".join(map(str, self.ran))] if self.watch else [])], self.workspace),
                cwd=self.workspace, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True, bufsize=0,
            )
        except OSError as error:
            self._proc, self.error = None, f"could not start the driver: {error}"
            return
        self._buffer = b""

    def _greet(self) -> None:
        """Wait for the launched process to say it imported the code (closed, saying why, when it did not)."""
        if self._proc is None:
            return
        hello = self._read(time.monotonic() + DRIVER_START_TIMEOUT)
        self.ran_at_import = hello.get("ran_at_import") if hello and self.ran else None
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
             receiver: callrecord.Receiver | None = None, first: callrecord.Receiver | None = None,
             argv: Sequence[str] | None = None, stdin: str | None = None, again: bool = False) -> dict[str, Any]:
        """What the function did for this input (a method: on ``receiver``, built afresh): kind
        value/raise/unrepresentable/timeout/crashed.

        ``again``: the call is made twice, in a process of its own, what the first returned emptied in between;
        the answer is the second call's (kind "not-emptied" when the first gave nothing a caller can empty).

        ``first``: another instance built and set up before the receiver, in a process of its own that ends with
        the call (what they change in the module is gone afterwards); the answer then holds the receiver's public
        attributes (``public_after``). ``argv``: the command line the call is given (``sys.argv``); ``stdin``: the
        text its standard input holds."""
        if self._proc is None:
            if self._import_failed or self._starts > MAX_DRIVER_RESTARTS:
                self.lost += 1
                return {"kind": "crashed"}
            self._start()
            if self._proc is None:
                self.lost += 1
                return {"kind": "crashed"}
        assert self._proc.stdin is not None
        setup = self.setup
        request = json.dumps({"args_repr": list(args_repr), "kwargs_repr": dict(kwargs_repr), **(
            {"receiver": receiver.as_json()} if receiver is not None else {}), **(
            {"first": first.as_json(), "isolated": True, "public": True} if first is not None else {}), **(
            {"setup": {"name": setup.target.partition(":")[2], "args_repr": list(setup.args_repr),
                       "kwargs_repr": dict(setup.kwargs_repr)}} if setup is not None else {}), **(
            {"argv": list(argv)} if argv is not None else {}), **(
            {"stdin": stdin} if stdin is not None else {}), **(
            {"again": True, "isolated": True} if again else {})}) + "\n"
        try:
            self._proc.stdin.write(request.encode("utf-8"))
            self._proc.stdin.flush()
        except OSError:
            self.close()
            self.lost += 1
            return {"kind": "crashed"}
        answer = self._read(time.monotonic() + self.per_call + 5.0)
        if answer is None:  # hung beyond its own alarm, or died: start afresh next time
            self.close(graceful=False)
            self.lost += 1
            return {"kind": "timeout"}
        if answer.get("kind") in ("timeout", "crashed"):
            self.lost += 1
        if answer.get("caught") in self.caught:
            self.caught[answer["caught"]] += 1
        if isinstance(answer.get("sides"), list) and first is None and not again and len(self.sides) < MAX_SIDED:
            self.sides.append((tuple(args_repr), dict(kwargs_repr), receiver, answer["sides"]))
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

    def attribute(self, dotted: str) -> dict[str, Any]:
        """What reading ``module.dotted`` gives here, as a call's answer (kind value/raise/...)."""
        return self._ask({"attribute": dotted}) or {"kind": "crashed"}

    def bounds(self, names: Sequence[str]) -> list[int]:
        """The ends of the range tables the module's globals ``names`` hold here (``callrecord.range_ends``)."""
        if not names:
            return []
        answer = self._ask({"bounds": list(names)})
        return [value for value in (answer or {}).get("bounds") or () if type(value) is int]

    def strings(self, names: Sequence[str]) -> list[str]:
        """The strings the module's globals ``names`` hold in this driver, a class's own attributes too
        (``AnsiToWin32.ANSI_OSC_RE``); none when it cannot tell."""
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
                _read_samples(part, found, unrecorded, _roots_of(workspace))
        finally:
            remove_tree(workspace)
            remove_tree(out_dir)
    return found


def _roots_of(workspace: Path) -> tuple[str, ...]:
    """How a path into ``workspace`` starts, as the tests may have written it (resolved or not)."""
    return tuple(dict.fromkeys(f"{path}{os.sep}" for path in (workspace, workspace.resolve())))


def _read_samples(path: Path, found: dict[str, list[CallSample]], unrecorded: dict[str, int] | None = None,
                  roots: Sequence[str] = ()) -> None:
    """Add the valid lines of one call file; corrupt or foreign lines are skipped.

    A path into the recording's workspace (``roots``: a data file a test found beside itself,
    ``os.path.join(os.path.dirname(__file__), 'files', 'a.sql')``) is read relative to it: the workspace is
    gone once the tests ran, while each call is replayed, and a witness is run, from the project's root."""
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
            args = tuple(_relative(str(text), roots) for text in data["args_repr"])
            kwargs = tuple(sorted((str(k), _relative(str(v), roots)) for k, v in dict(data["kwargs_repr"]).items()))
            built = data.get("receiver")
            if built is not None and roots:
                built = json.loads(_relative(json.dumps(built), [json.dumps(root)[1:-1] for root in roots]))
            receiver = None if built is None else callrecord.receiver_from_json(built)
            for text in (*args, *(v for _, v in kwargs)):  # (a file the tests could write: checked, not trusted)
                callrecord.argument_value(text)
        except (ValueError, KeyError, TypeError, SyntaxError, MemoryError, RecursionError, AttributeError):
            continue
        sample = CallSample(target, args, kwargs, receiver)
        bucket = found.get(target)
        if bucket is not None and sample not in bucket and len(bucket) < callrecord.KEPT_SAMPLES:
            bucket.append(sample)


def _relative(text: str, roots: Sequence[str]) -> str:
    """``text`` with each path into the workspace made relative to it (``'/tmp/ws/tests/a.sql'`` ->
    ``'tests/a.sql'``)."""
    for root in roots:
        text = text.replace(root, "")
    return text
