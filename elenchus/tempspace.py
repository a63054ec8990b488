"""One private temporary directory per Elenchus process, so nothing a run makes outlives it.

Every snapshot, workspace and run artifact an Elenchus process creates lands under one
directory it holds a lock on (``tempfile`` is pointed there, and so are worker
processes through ``TMPDIR``). A normal exit removes it; a run killed with SIGKILL
cannot, so the next start removes every such directory whose lock nobody holds and that belongs
to the user running it: on a shared machine another user's leftovers are theirs to remove (and
to hear about), never ours.
"""

from __future__ import annotations

import atexit
import errno
import fcntl
import os
import shutil
import tempfile
import time
from pathlib import Path

from elenchus.errors import Blocked

PREFIX = "elenchus-session-"
_LOCK = ".lock"
#: A directory this young may be one whose owner has not taken its lock yet.
SETTLE_SECONDS = 30.0
_held: dict[str, object] = {}


def sweep(base: Path) -> int:
    """Remove this user's session directories under ``base`` whose process is gone; how many were removed."""
    removed = 0
    for candidate in base.glob(PREFIX + "*"):
        lock_path = candidate / _LOCK
        if not candidate.is_dir() or candidate.is_symlink() or str(candidate) in _held:
            continue
        try:
            status = candidate.lstat()
            if status.st_uid != os.getuid():  # another user's run (root included): not ours to remove or report
                continue
            if time.time() - status.st_mtime < SETTLE_SECONDS:
                continue
            with open(lock_path, "a") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a live run: leave it
                shutil.rmtree(candidate, ignore_errors=True)
                removed += not candidate.exists()  # counted only when it is really gone
        except OSError:
            continue
    return removed


def claim() -> int:
    """Make this process's session directory the default temporary directory; returns how many
    leftovers of killed runs were removed first."""
    if _held:
        return 0
    base = Path(tempfile.gettempdir())
    removed = sweep(base)
    try:
        root = Path(tempfile.mkdtemp(prefix=PREFIX, dir=base))
        handle = open(root / _LOCK, "w")  # noqa: SIM115 - held open for the life of the process
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        reason = "it is full" if error.errno in (errno.ENOSPC, errno.EDQUOT) else error.strerror
        raise Blocked(f"cannot create a temporary directory in {base} ({reason}); free some space there or "
                      "set TMPDIR to a writable directory with room for two copies of the repository") from None
    _held[str(root)] = handle
    tempfile.tempdir = str(root)
    os.environ["TMPDIR"] = str(root)  # spawned workers put their files here too
    atexit.register(release)
    return removed


def release() -> None:
    """Remove this process's session directory (at exit)."""
    for root, handle in list(_held.items()):
        shutil.rmtree(root, ignore_errors=True)
        try:
            handle.close()  # type: ignore[attr-defined]
        except OSError:
            pass
        _held.pop(root, None)
