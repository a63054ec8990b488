"""Every process a review starts runs in a throwaway sandbox built by a trusted tool.

Running a repository's tests runs its code, and a hostile or careless suite can write
into the user's checkout, read credentials, reach the network or leave processes
behind. Pattern matching the test files cannot stop that (an f-string builds the same
``rm -rf``), so the boundary is the operating system's: bubblewrap where it is
installed, otherwise util-linux ``unshare`` with user, mount, PID and network
namespaces. Inside, the workspace, the run's own artifact files and a private ``/tmp``
and ``HOME`` are the only writable places; the user's repository, home directory and
Elenchus's run directories are hidden; the interpreter and its site-packages are
mounted back read-only. A new PID namespace means every descendant dies with the run
(and with Elenchus); the network is the sandbox's own loopback unless it is allowed.
Memory, process and file-size limits are set with ``prlimit``.

The policy is chosen once per command (``activate``) and read by every launcher
(``current``); worker processes inherit it through their environment.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from elenchus.errors import InputGuardError, IsolationUnavailable

BUBBLEWRAP = "bubblewrap"
UNSHARE = "unshare"
#: The reason a run without isolation gives when the user asked for it.
ASKED_NONE = "--isolation none was given"
NONE = "none"
KINDS = ("auto", BUBBLEWRAP, UNSHARE, NONE)

MEMORY_MB_DEFAULT = 8192
PROCESSES_DEFAULT = 1024
FILE_SIZE_MB_DEFAULT = 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of every sandboxed process (megabytes, processes, megabytes)."""

    memory_mb: int = MEMORY_MB_DEFAULT
    processes: int = PROCESSES_DEFAULT
    file_size_mb: int = FILE_SIZE_MB_DEFAULT


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How test processes are isolated; ``kind`` is bubblewrap, unshare or none."""

    kind: str
    network: bool = False  # True: the host's network is reachable (--allow-network)
    limits: Limits = field(default_factory=Limits)
    hidden: tuple[str, ...] = ()  # directories the tests must not see (repository, HOME, run directories)
    reason: str | None = None  # why there is no isolation, when kind is none

    @property
    def isolated(self) -> bool:
        return self.kind != NONE

    @property
    def fallback(self) -> bool:
        """No isolation though none was asked for: no sandbox could be built here."""
        return not self.isolated and self.reason != ASKED_NONE

    @property
    def contains(self) -> bool:
        """Whether code that looks unsafe may run: bubblewrap with no network hides files, secrets and hosts."""
        return self.kind == BUBBLEWRAP and not self.network

    def describe(self) -> str:
        """One line for the report: what the tests could and could not reach."""
        if not self.isolated:
            return (f"Isolation: none ({self.reason or 'turned off'}); the tests ran with your user's access "
                    "to files, processes and the network.")
        tool = "bubblewrap" if self.kind == BUBBLEWRAP else "unshare namespaces"
        network = "the host's network allowed" if self.network else "no network beyond the sandbox's own loopback"
        writable = ("only the disposable workspace and a private /tmp and HOME writable"
                    if self.kind == BUBBLEWRAP else
                    "a private /tmp and HOME (the rest of the file system keeps its permissions)")
        limits = (f"limits {self.limits.memory_mb} MB memory, {self.limits.processes} processes"
                  f"{' (not binding for root)' if os.geteuid() == 0 else ''}, {self.limits.file_size_mb} MB per file")
        return (f"Isolation: {tool}: your repository, home directory and Elenchus's run directories hidden, "
                f"{writable}, {network}, every process ended with its run; {limits}.")

    def as_json(self) -> dict[str, object]:
        return {"kind": self.kind, "network": self.network, "limits": asdict(self.limits),
                "reason": self.reason, "description": self.describe()}

    def wrap(self, argv: Sequence[str], workspace: Path, writable: Sequence[Path] = (),
             python: str = sys.executable) -> list[str]:
        """``argv`` run inside this sandbox, working in ``workspace`` (writable with ``writable``)."""
        argv = list(argv)
        if not self.isolated:
            return argv
        workspace = Path(workspace).resolve()
        writable_paths = [workspace, *(Path(p).resolve() for p in writable)]
        exposed = _exposed(python, tuple(str(Path(h).resolve()) for h in self.hidden))
        if self.kind == BUBBLEWRAP:
            wrapped = _bubblewrap(self, argv, workspace, writable_paths, exposed)
        else:
            wrapped = _unshare(self, argv, workspace, writable_paths, exposed)
        return _prlimit(self.limits) + wrapped


def _home() -> str:
    return str(Path.home().resolve()) if Path.home().is_dir() else ""


def _hidden_dirs(sandbox: Sandbox) -> list[str]:
    """Directories to cover, outermost first, never /tmp's own children (a private /tmp hides them)."""
    candidates = sorted({str(Path(p).resolve()) for p in (*sandbox.hidden, _home()) if p and Path(p).is_dir()},
                        key=len)
    kept: list[str] = []
    for path in candidates:
        if path in ("/", "/tmp") or _under(path, "/tmp") or any(_under(path, outer) for outer in kept):
            continue
        kept.append(path)
    return kept


def private_places(sandbox: Sandbox, python: str = sys.executable) -> tuple[list[str], list[str]]:
    """What a long-lived process in ``sandbox`` may empty between runs (``/tmp`` and the covered
    directories, HOME among them), and what it must leave alone there (what is mounted back)."""
    covered = _hidden_dirs(sandbox)
    exposed = _exposed(python, tuple(str(Path(h).resolve()) for h in sandbox.hidden))
    return ["/tmp", *covered], [p for p in exposed if _under(p, "/tmp") or any(_under(p, h) for h in covered)]


def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _bubblewrap(sandbox: Sandbox, argv: list[str], workspace: Path, writable: list[Path],
                exposed: tuple[str, ...]) -> list[str]:
    hidden = _hidden_dirs(sandbox)
    command = ["bwrap", "--unshare-all", *(["--share-net"] if sandbox.network else []),
               "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
               "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
    for path in hidden:
        command += ["--tmpfs", path]
    for path in exposed:
        if _under(path, "/tmp") or any(_under(path, h) for h in hidden):
            command += ["--ro-bind", path, path]
    for path in writable:
        command += ["--bind", str(path), str(path)]
    return command + ["--setenv", "TMPDIR", "/tmp", "--chdir", str(workspace), "--", *argv]


# Inside new user, mount, PID and network namespaces (root inside, the caller outside):
# park the places to keep on a scratch mount, cover /tmp and the hidden directories with
# empty file systems, move the kept places back (read-only where asked) and exec the
# command. Paths arrive as arguments, never as code.
_UNSHARE_SETUP = r"""
set -e
MKDIR=$1 MOUNT=$2 UMOUNT=$3 IP=$4; shift 4
stage=$1; shift
"$MOUNT" -t tmpfs elenchus-stage "$stage"
n=$1; shift; i=0
while [ "$i" -lt "$n" ]; do
    "$MKDIR" -p "$stage/$i"; "$MOUNT" --rbind "$2" "$stage/$i"; eval "mode_$i=\$1 path_$i=\$2"; shift 2
    i=$((i+1))
done
"$MOUNT" -t tmpfs elenchus-tmp /tmp
h=$1; shift
while [ "$h" -gt 0 ]; do "$MOUNT" -t tmpfs elenchus-hidden "$1"; shift; h=$((h-1)); done
i=0
while [ "$i" -lt "$n" ]; do
    eval "mode=\$mode_$i path=\$path_$i"
    "$MKDIR" -p "$path"; "$MOUNT" --move "$stage/$i" "$path"
    if [ "$mode" = ro ]; then "$MOUNT" -o remount,bind,ro "$path"; fi
    i=$((i+1))
done
"$UMOUNT" "$stage"
"$IP" link set lo up 2>/dev/null || true
export TMPDIR=/tmp
cd "$1"; shift
exec "$@"
"""
#: The tools the set-up runs, found before it starts: once /tmp is covered, a PATH entry under it is empty.
_SETUP_TOOLS = ("mkdir", "mount", "umount", "ip")
_STAGES = ("/mnt", "/media", "/srv", "/opt")


def _unshare(sandbox: Sandbox, argv: list[str], workspace: Path, writable: list[Path],
             exposed: tuple[str, ...]) -> list[str]:
    """Namespaces without bubblewrap: a private /tmp and covered hidden directories; the rest
    of the file system keeps its permissions (no read-only root as with bubblewrap)."""
    hidden = _hidden_dirs(sandbox)
    kept = [("ro", p) for p in exposed if _under(p, "/tmp") or any(_under(p, h) for h in hidden)]
    kept += [("rw", str(p)) for p in writable]
    stage = next((s for s in _STAGES if Path(s).is_dir()), "/mnt")
    places = [part for mode, path in kept for part in (mode, path)]
    # unshare has no --die-with-parent: setpriv gives it a parent-death signal, and --kill-child
    # passes that death on to the namespace's first process, which takes every other with it.
    guard = ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []
    return [*guard, "unshare", "--user", "--map-root-user", "--mount", "--propagation", "private", "--pid", "--fork",
            "--kill-child", "--mount-proc", "--ipc", "--uts", *([] if sandbox.network else ["--net"]),
            "/bin/sh", "-c", _UNSHARE_SETUP, "elenchus-sandbox", *_setup_tools(), stage, str(len(kept)), *places,
            str(len(hidden)), *hidden, str(workspace), *argv]


def _setup_tools() -> list[str]:
    """Each set-up tool's real path (a link under /tmp followed to what it names); its bare name when it is
    not found, so the set-up says which one is missing."""
    return [os.path.realpath(found) if (found := shutil.which(tool)) else tool for tool in _SETUP_TOOLS]


def _prlimit(limits: Limits) -> list[str]:
    tool = shutil.which("prlimit")
    if tool is None:
        return []
    mb = 1024 * 1024
    return [tool, f"--as={limits.memory_mb * mb}", f"--nproc={limits.processes}",
            f"--fsize={limits.file_size_mb * mb}", "--"]


@functools.lru_cache(maxsize=8)
def _exposed(python: str, hidden: tuple[str, ...]) -> tuple[str, ...]:
    """What an interpreter needs to run: its prefixes, its import path and Elenchus itself.

    An import-path entry inside a hidden directory (an editable install of the project
    under review) stays hidden, as does the script directory at the head of the path.
    """
    query = "import json, sys; print(json.dumps([[sys.prefix, sys.base_prefix, sys.exec_prefix], sys.path[1:]]))"
    if python == sys.executable:
        prefixes, entries = [sys.prefix, sys.base_prefix, sys.exec_prefix], sys.path[1:]
    else:
        try:
            done = subprocess.run([python, "-c", query], capture_output=True, text=True, timeout=30, check=True)
            prefixes, entries = json.loads(done.stdout)
        except (OSError, subprocess.SubprocessError, ValueError):
            prefixes, entries = [], []
    entries = [e for e in entries if e and not any(_under(str(Path(e).resolve()), h) for h in hidden)]
    paths = [*prefixes, *entries, str(Path(python).parent), str(Path(__file__).resolve().parents[1])]
    found = sorted({str(Path(p).resolve()) for p in paths if p and Path(p).exists()}, key=len)
    kept: list[str] = []
    for path in found:
        if path != "/" and not any(_under(path, outer) for outer in kept):
            kept.append(path)
    return tuple(kept)


@functools.lru_cache(maxsize=4)
def _works(kind: str) -> str | None:
    """None when ``kind`` can build a sandbox here, else why not."""
    tool = "bwrap" if kind == BUBBLEWRAP else "unshare"
    if shutil.which(tool) is None:
        return f"{tool} is not installed"
    workspace = tempfile.mkdtemp(prefix="elenchus-sandbox-probe-")
    try:
        probe = Sandbox(kind).wrap(["/bin/true"], Path(workspace), python=sys.executable)
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as error:
        return f"{tool} could not start ({error})"
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"{tool} cannot create namespaces here ({detail})"
    return None


def detect(kind: str = "auto", *, network: bool = False, limits: Limits | None = None,
           hidden: Sequence[str | Path] = (), require: bool = False) -> Sandbox:
    """The sandbox to use: the first of bubblewrap and unshare that works here (``auto``),
    or exactly ``kind``; with ``require``, no isolation is an error instead of a warning."""
    if kind not in KINDS:
        raise InputGuardError("isolation", f"expected one of {', '.join(KINDS)}, got {kind!r}")
    chosen = Sandbox(NONE, network, limits or Limits(), tuple(str(h) for h in hidden))
    if kind == NONE:
        chosen = replace(chosen, reason=ASKED_NONE)
    else:
        reasons = []
        for candidate in ((BUBBLEWRAP, UNSHARE) if kind == "auto" else (kind,)):
            why = _works(candidate)
            if why is None:
                chosen = replace(chosen, kind=candidate)
                break
            reasons.append(why)
        else:
            chosen = replace(chosen, reason="; ".join(reasons))
    if require and not chosen.isolated:
        raise IsolationUnavailable(
            f"no isolation is available: {chosen.reason}. Install bubblewrap (Debian/Ubuntu: "
            "`apt-get install bubblewrap`), or run on a machine that allows user namespaces; "
            "without --require-isolation the run goes on unisolated and says so")
    return chosen


def for_review(repos: Sequence[str | Path], kind: str = "auto", *, network: bool = False,
               limits: Limits | None = None, require: bool = False) -> Sandbox:
    """The sandbox of a review: the repositories, Elenchus's run and cache directories and HOME hidden."""
    from elenchus import records

    hidden = [Path(r).resolve() for r in repos if r] + [records.runs_root(), records.ResultCache().root,
                                                         records.hypothesis_home()]
    return detect(kind, network=network, limits=limits, hidden=hidden, require=require)


_ENV = "ELENCHUS_SANDBOX"
_active: Sandbox | None = None


def activate(sandbox: Sandbox) -> None:
    """Use ``sandbox`` for every process this command and its workers start."""
    global _active
    _active = sandbox
    os.environ[_ENV] = json.dumps({"kind": sandbox.kind, "network": sandbox.network,
                                   "limits": asdict(sandbox.limits), "hidden": list(sandbox.hidden),
                                   "reason": sandbox.reason})


@contextlib.contextmanager
def using(sandbox: Sandbox) -> Iterator[Sandbox]:
    """``sandbox`` for the duration of a block, then whatever was active before."""
    global _active
    previous, inherited = _active, os.environ.get(_ENV)
    activate(sandbox)
    try:
        yield sandbox
    finally:
        _active = previous
        if inherited is None:
            os.environ.pop(_ENV, None)
        else:
            os.environ[_ENV] = inherited


def current() -> Sandbox:
    """The active sandbox: the one activated (here or in the parent process), else the best available."""
    global _active
    if _active is None:
        inherited = os.environ.get(_ENV)
        if inherited:
            data = json.loads(inherited)
            _active = Sandbox(data["kind"], data["network"], Limits(**data["limits"]), tuple(data["hidden"]),
                              data["reason"])
        else:
            _active = detect()
    return _active
