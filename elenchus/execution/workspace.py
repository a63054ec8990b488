"""Disposable workspaces: fresh copies of a template snapshot, one per run.

A template (a materialized Base/Head snapshot) is never edited. Each run gets
``fresh_copy`` of it, the mutant is written into the copy with ``write_mutant``, and
afterwards ``verify_unchanged`` proves the template still has the digest it had
before (the restoration check). Everything lives under one ``scratch_root()`` in the
system temp directory, which is removed on exit, on Ctrl-C and on SIGTERM.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

from elenchus.encoding import encode_python
from elenchus.errors import Blocked, ElenchusError

SCRATCH_PREFIX = "elenchus-"


class TemplateChanged(Blocked):
    """A run modified the template snapshot it was copied from: isolation failed."""


class WorkspaceError(ElenchusError):
    """A workspace operation was asked to do something unsafe or impossible."""


# ---------------------------------------------------------------------------
# copies


def _copyable(directory: str, names: list[str]) -> list[str]:
    """Names to skip: anything that is not a directory, regular file or symlink (FIFOs block)."""
    skipped = []
    for name in names:
        mode = os.lstat(os.path.join(directory, name)).st_mode
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            skipped.append(name)
    return skipped


def fresh_copy(template: Path, into_parent: Path) -> Path:
    """Copy ``template`` into a new directory under ``into_parent`` and return it.

    Symlinks are copied as symlinks (never followed), file modes and times are kept.
    """
    template = Path(template)
    if not template.is_dir():
        raise WorkspaceError(f"template snapshot {template} is not a directory")
    into_parent = Path(into_parent)
    into_parent.mkdir(parents=True, exist_ok=True)
    destination = Path(tempfile.mkdtemp(prefix="ws-", dir=into_parent))
    shutil.copytree(template, destination, symlinks=True, ignore=_copyable, dirs_exist_ok=True)
    return destination


def place_test(workspace: Path, relpath: str, source: str) -> Path:
    """Write the test file ``source`` at ``workspace/relpath`` (a new file, or replacing one): a probe
    or a proposed test that a run executes beside the project's own tests."""
    rel = PurePosixPath(Path(relpath).as_posix())
    if rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.suffix != ".py":
        raise WorkspaceError(f"a test path must be a relative .py path inside the project, got {relpath!r}")
    target = workspace.joinpath(*rel.parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    root = workspace.resolve()
    if root not in target.parent.resolve().parents and target.parent.resolve() != root:
        raise WorkspaceError(f"test path {relpath!r} leaves the workspace through a symlink")
    if target.is_symlink():
        target.unlink()
    target.write_text(source, encoding="utf-8")
    return target


def _inside(workspace: Path, relpath: str | os.PathLike[str]) -> Path:
    rel = PurePosixPath(Path(relpath).as_posix())
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise WorkspaceError(f"mutant path must be relative to the workspace and stay inside it, got {relpath!r}")
    target = workspace / Path(*rel.parts)
    # The containing directory must resolve inside the workspace (no symlinked escape).
    parent = target.parent.resolve()
    root = workspace.resolve()
    if parent != root and root not in parent.parents:
        raise WorkspaceError(f"mutant path {relpath!r} leaves the workspace {workspace} through a symlink")
    return target


def write_mutant(workspace: Path, relpath: str | os.PathLike[str], source: str | bytes) -> Path:
    """Replace ``workspace/relpath`` with ``source`` (a new file, renamed into place).

    The file is replaced, never edited in place, so a hard link or symlink back to a
    template is broken rather than written through. Its mode is kept and its cached
    bytecode removed. The file must already exist: a mutant changes code, it does not
    add modules.
    """
    workspace = Path(workspace)
    target = _inside(workspace, relpath)
    if not (target.is_file() or target.is_symlink()):
        raise WorkspaceError(f"cannot write a mutant of {relpath!r}: no such file in workspace {workspace}")
    data = encode_python(source) if isinstance(source, str) else bytes(source)
    mode = stat.S_IMODE(os.stat(target).st_mode) if target.exists() else 0o644
    fd, temporary = tempfile.mkstemp(prefix=".elenchus-mutant-", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    cache = target.parent / "__pycache__"
    if cache.is_dir():
        for stale in cache.glob(f"{target.stem}.*.pyc"):
            stale.unlink(missing_ok=True)
    return target


# ---------------------------------------------------------------------------
# digests


def tree_digest(path: Path) -> str:
    """sha256 over every entry's relative path, type, mode and content or link target.

    Symlinks are hashed by their target text and never followed; times are ignored.
    """
    root = Path(path)
    digest = hashlib.sha256()

    def entry(kind: str, rel: str, mode: int, payload: bytes) -> None:
        digest.update(b"%s\0%s\0%o\0" % (kind.encode(), rel.encode("utf-8", "surrogateescape"), mode))
        digest.update(payload)
        digest.update(b"\n")

    entry("root", ".", stat.S_IMODE(os.lstat(root).st_mode), b"")
    for current, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        base = Path(current)
        for name in sorted(dirnames + filenames):
            full = base / name
            rel = full.relative_to(root).as_posix()
            info = os.lstat(full)
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                entry("link", rel, mode, os.fsencode(os.readlink(full)))
            elif stat.S_ISDIR(info.st_mode):
                entry("dir", rel, mode, b"")
            elif stat.S_ISREG(info.st_mode):
                content = hashlib.sha256()
                with open(full, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        content.update(block)
                entry("file", rel, mode, content.hexdigest().encode())
            else:
                entry("other", rel, mode, b"%o" % stat.S_IFMT(info.st_mode))
    return digest.hexdigest()


def verify_unchanged(template: Path, digest: str) -> None:
    """Raise ``TemplateChanged`` naming ``template`` unless its digest is still ``digest``."""
    seen = tree_digest(template)
    if seen != digest:
        raise TemplateChanged(
            f"the template snapshot {template} changed during a run (digest {seen[:12]}, "
            f"expected {digest[:12]}): a test wrote outside its workspace copy, so no result "
            "from this template can be trusted; find the test that writes to absolute paths"
        )


# ---------------------------------------------------------------------------
# removal and the scratch root


def remove_tree(path: Path) -> None:
    """Remove ``path`` even when copies kept read-only modes; a missing path is fine."""
    path = Path(path)
    if not os.path.lexists(path):
        return
    if path.is_symlink() or not path.is_dir():
        path.unlink()
        return

    def make_writable_and_retry(function: Any, failed: str, _error: Any) -> None:
        for target in (os.path.dirname(failed), failed):
            try:
                if not os.path.islink(target):
                    os.chmod(target, stat.S_IRWXU)
            except OSError:
                pass
        if function in (os.rmdir, os.unlink, os.remove):
            function(failed)
        elif function is os.open or function is os.scandir or function is os.listdir:
            remove_tree(Path(failed))

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=make_writable_and_retry)
    else:
        shutil.rmtree(path, onerror=make_writable_and_retry)


def _inside_a_repository(path: Path) -> Path | None:
    for candidate in (path, *path.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


#: The signals that stopped this process's run, in order: the command's exit status names the first (130 for
#: Ctrl-C, 143 for SIGTERM), whichever handler turned it into a KeyboardInterrupt.
STOPPED_BY: list[int] = []


def _sigterm_as_interrupt(signum: int, frame: Any) -> None:
    STOPPED_BY.append(signum)
    raise KeyboardInterrupt(f"signal {signum} received")


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Let cleanup finish: a Ctrl-C or SIGTERM that arrives meanwhile takes effect once the removal is
    done (it is held, never dropped)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        received.append(signum)
        STOPPED_BY.append(signum)

    previous = {sig: signal.signal(sig, hold) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if received:
            raise KeyboardInterrupt(f"signal {received[0]} received during cleanup")


@contextmanager
def scratch_root() -> Iterator[Path]:
    """One temporary root (``<tmp>/elenchus-*``) for a whole run, removed on any exit.

    While inside, SIGTERM is turned into KeyboardInterrupt (main thread only), so a
    terminated run still unwinds and removes everything it created.
    """
    base = Path(tempfile.gettempdir()).resolve()
    repository = _inside_a_repository(base)
    if repository is not None:
        raise Blocked(
            f"the temporary directory {base} is inside the git repository {repository}; "
            "workspaces must live outside any repository: set TMPDIR to a directory outside it"
        )
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _sigterm_as_interrupt) if in_main else None
    root = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=base))
    try:
        yield root
    finally:
        try:
            with _signals_deferred():
                remove_tree(root)
        finally:
            if in_main:
                signal.signal(signal.SIGTERM, previous)


class WorkspacePool:
    """Fresh workspaces from templates under one scratch root.

    ``with WorkspacePool() as pool:`` owns a ``scratch_root()``; ``pool.workspace(t)``
    yields a fresh copy of template ``t``, removes it afterwards and then checks that
    ``t`` still has the digest taken when it was first used.
    """

    def __init__(self, root: Path | None = None) -> None:
        self._root = Path(root) if root is not None else None
        self._scratch: Any = None
        self._digests: dict[Path, str] = {}

    @property
    def root(self) -> Path:
        if self._root is None:
            raise WorkspaceError("the workspace pool is not open: use it as a context manager")
        return self._root

    def __enter__(self) -> WorkspacePool:
        if self._root is None:
            self._scratch = scratch_root()
            self._root = self._scratch.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._scratch is not None:
            scratch, self._scratch, self._root = self._scratch, None, None
            scratch.__exit__(*exc_info)

    def digest_of(self, template: Path) -> str:
        key = Path(template).resolve()
        if key not in self._digests:
            self._digests[key] = tree_digest(key)
        return self._digests[key]

    @contextmanager
    def workspace(self, template: Path) -> Iterator[Path]:
        digest = self.digest_of(template)
        copy = fresh_copy(template, self.root)
        try:
            yield copy
        finally:
            remove_tree(copy)
            verify_unchanged(template, digest)
