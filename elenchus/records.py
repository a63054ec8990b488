"""Run records (SPEC 7): a run directory outside the working tree.

``manifest.json`` fixes what was evaluated (snapshots, fingerprint, files,
cohorts, scope) before anything is mutated; ``runs.jsonl`` grows by one line per
mutant x cohort execution while the run is in progress (a value that was not
measured is ``null``); the reports land beside them. ``--resume`` reuses the
recorded runs only when the repository still matches the manifest.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from elenchus.errors import Blocked, ElenchusError

_T = TypeVar("_T")

MANIFEST = "manifest.json"
RUNS = "runs.jsonl"
# What must match for a resumed run to reuse earlier results.
RESUME_KEYS = ("base_sha", "head_sha", "worktree_fingerprint", "scope", "target", "budget", "search_budget",
               "mutant_ids")


def cache_home() -> Path:
    """Elenchus's per-user cache directory: ``$XDG_CACHE_HOME/elenchus``, else ``~/.cache/elenchus``."""
    return Path(os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")) / "elenchus"


def runs_root() -> Path:
    configured = os.environ.get("ELENCHUS_RUNS_DIR")
    if configured:
        return Path(configured).expanduser()
    return cache_home() / "runs"


def hypothesis_home() -> Path:
    """Where the witness search keeps Hypothesis's caches (its Unicode tables, the constants it reads from
    local modules): kept across runs, since building them again costs a search seconds of its budget."""
    return cache_home() / "hypothesis"


def new_run_id() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(3)


SEAL = "seal"


def seal(record: dict) -> str:
    """The keyed seal (HMAC-SHA256) a stored record carries: a torn or edited record no longer matches it, and
    one forged with its plain hash recomputed does not either, since the key is not in the record."""
    return hmac.new(_seal_key(), json.dumps(record, sort_keys=True).encode("utf-8"), hashlib.sha256).hexdigest()


def _seal_key() -> bytes:
    """The key of this machine's result store: 32 random bytes, created owner-only (0600) on first use inside
    the store, which every sandbox hides from the tests (so no test can read it, nor forge a seal)."""
    return _key_at(str(ResultCache().root / SEAL_KEY))


@functools.lru_cache(maxsize=8)
def _key_at(where: str) -> bytes:
    path = Path(where)
    key = _read_key(path)
    if key is not None:
        return key
    key = secrets.token_bytes(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another run made it first: use that one
        return _read_key(path) or key
    except OSError:  # a store that cannot be written keeps nothing: this run's own key seals its records
        return key
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(key.hex())
    return key


def _read_key(path: Path) -> bytes | None:
    """The key stored at ``path``, waiting a moment for one another run is writing; None when there is none."""
    for _ in range(100):
        try:
            text = path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return None
        except OSError:
            return None
        if len(text) == 64:
            try:
                return bytes.fromhex(text)
            except ValueError:
                return None
        time.sleep(0.01)
    return None


#: The seal key's file name inside the result store.
SEAL_KEY = ".seal-key"


def unsealed(text: str) -> dict | None:
    """The record stored in ``text`` when its seal holds, else None."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get(SEAL), str):
        return None
    claimed = data.pop(SEAL)
    return data if claimed == seal(data) else None


def _write_atomically(target: Path, text: str) -> None:
    """Write under a private temporary name and rename: readers see the old or the new file, whole."""
    descriptor, partial = tempfile.mkstemp(prefix=f".{target.name}-", suffix=".partial", dir=target.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(partial, target)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


@dataclass
class RunDirectory:
    path: Path
    rejected: int = 0  # recorded runs whose seal did not hold, at the last ``runs()``

    @classmethod
    def create(cls, repo_root: Path, run_id: str | None = None) -> RunDirectory:
        path = runs_root() / (run_id or new_run_id())
        if path.resolve().is_relative_to(repo_root.resolve()):
            raise ElenchusError(f"the run directory {path} would lie inside the repository {repo_root}; "
                                "set ELENCHUS_RUNS_DIR to a directory outside it")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise Blocked(f"cannot create the run directory {path} ({error.strerror}); set ELENCHUS_RUNS_DIR "
                          "to a writable directory outside the repository") from None
        return cls(path)

    @classmethod
    def existing(cls, run: str) -> RunDirectory:
        candidate = Path(run) if os.sep in run or Path(run).is_dir() else runs_root() / run
        if not (candidate / MANIFEST).is_file():
            raise ElenchusError(f"--resume {run}: no run with a manifest.json there ({candidate}); "
                                "pass a run id printed by an earlier run, or its directory")
        return cls(candidate)

    @property
    def id(self) -> str:
        return self.path.name

    def write_manifest(self, manifest: dict) -> None:
        self.write_json(MANIFEST, manifest)

    def manifest(self) -> dict:
        try:
            document = json.loads((self.path / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ElenchusError(f"the run {self.id} cannot be resumed: its manifest.json is unreadable or "
                                f"corrupt ({error}); start a new run without --resume") from None
        if not isinstance(document, dict):
            raise ElenchusError(f"the run {self.id} cannot be resumed: its manifest.json is not a JSON object; "
                                "start a new run without --resume")
        return document

    def write_json(self, name: str, document: dict) -> Path:
        target = self.path / name
        _write_atomically(target, json.dumps(document, indent=2, sort_keys=False) + "\n")
        return target

    def write_text(self, name: str, text: str) -> Path:
        target = self.path / name
        target.write_text(text)
        return target

    def append_run(self, record: dict) -> None:
        """One line per run, sealed with the hash of its content (``runs`` checks it)."""
        line = json.dumps({**record, SEAL: seal(record)}, sort_keys=True) + "\n"
        descriptor = os.open(self.path / RUNS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, line.encode("utf-8"))  # one write: concurrent appends never interleave
        finally:
            os.close(descriptor)

    def runs(self) -> list[dict]:
        """The recorded runs whose seal holds; a cut or edited line is not evidence (``rejected`` counts it)."""
        path = self.path / RUNS
        self.rejected = 0
        if not path.is_file():
            return []
        records = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            record = unsealed(line)
            if record is None:
                self.rejected += 1
            else:
                records.append(record)
        return records


def resume_mismatch(previous: dict, current: dict) -> str | None:
    """Why a resumed run must start over, or None when the recorded runs still apply."""
    for key in RESUME_KEYS:
        if previous.get(key) != current.get(key):
            return (f"the {key.replace('_', ' ')} differs from the recorded run "
                    f"({previous.get(key)!r} then, {current.get(key)!r} now)")
    return None


@functools.lru_cache(maxsize=1)
def installed_distributions() -> tuple[str, ...]:
    """``name==version`` of every distribution the tests can import (this interpreter's).

    Read from the name of each ``NAME-VERSION.dist-info`` directory, which the installer derives from
    that metadata (parsing every METADATA file cost about 0.3 s of each command); anything else (an
    egg-info directory, say) from its metadata."""
    from importlib import metadata

    found = set()
    for distribution in metadata.distributions():
        folder = getattr(distribution, "_path", None)
        name, _, version = folder.name[: -len(".dist-info")].rpartition("-") \
            if isinstance(folder, Path) and folder.name.endswith(".dist-info") else ("", "", "")
        if not (name and version):
            name = (distribution.metadata.get("Name") if distribution.metadata else None) or ""
            version = distribution.version if name else ""
        if name:
            found.add(f"{re.sub(r'[-_.]+', '-', name).lower()}=={version}")
    return tuple(sorted(found))


def code_digest(package: Path) -> str:
    """A digest of the Python source files under ``package``, by path and content."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def own_code() -> str:
    """Elenchus's own ``code_digest``: a result measured by other code (an upgrade, an editable checkout
    between commits) is measured again, whatever the version number says."""
    return code_digest(Path(__file__).resolve().parent)


class ResultCache:
    """Results keyed by the exact content they were measured on (SPEC 6).

    A key covers the cohort's template digest (every file the tests see: code, tests,
    conftest and test configuration files), the selected tests, the mutated source, the
    timeout factor, the interpreter, the installed distributions and Elenchus's own code,
    so a repeated evaluation of the same change reruns nothing, and any change to any of
    them (a ``pip install`` included) misses the cache.
    """

    def __init__(self, root: Path | None = None, enabled: bool = True, reuse: bool = True) -> None:
        """``reuse`` False (``--fresh``): nothing is read back, and what is measured is still stored. The store
        is ``$ELENCHUS_CACHE_DIR`` when set (where a CI system caches it between jobs), else beside the runs."""
        configured = os.environ.get("ELENCHUS_CACHE_DIR")
        self.root = root or (Path(configured).expanduser().resolve() if configured else runs_root().parent / "cache")
        self.enabled = enabled
        self.reuse = reuse
        self.hits = 0  # entries reused
        self.rejected = 0  # entries found torn, edited or in an old format: run again
        self.unwritable: str | None = None  # why results could not be stored, if they could not

    @staticmethod
    def key(*parts: object) -> str:
        import hashlib
        import sys

        from elenchus import __version__

        digest = hashlib.sha256(f"{__version__}\0{own_code()}\0{sys.version}\0{sys.executable}".encode())
        digest.update("\0".join(installed_distributions()).encode())
        for part in parts:
            digest.update(b"\0" + json.dumps(part, sort_keys=True, default=str).encode())
        return digest.hexdigest()

    def get(self, key: str) -> dict | None:
        record = self.peek(key)
        if record is not None:
            self.hits += 1
        return record

    def peek(self, key: str) -> dict | None:
        """``get`` without counting a reuse: a note about earlier runs, not a result."""
        if not self.enabled or not self.reuse:
            return None
        path = self.root / key[:2] / f"{key}.json"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        record = unsealed(text)
        if record is None:
            self.rejected += 1
        return record

    def read(self, key: str, shaped: Callable[[dict], _T]) -> tuple[dict, _T] | None:
        """``get``, and what ``shaped`` makes of the record; a record that holds its seal but not its shape
        (``shaped`` raises ValueError, KeyError, TypeError or AttributeError: a field of the wrong kind) counts
        as one that failed its check, and is measured again."""
        record = self.get(key)
        if record is None:
            return None
        try:
            return record, shaped(record)
        except (ValueError, KeyError, TypeError, AttributeError):
            self.hits -= 1
            self.rejected += 1
            return None

    def memo(self, kind: str, inputs: object, compute: Callable[[], _T], encode: Callable[[_T], object],
             decode: Callable[[object], _T]) -> _T:
        """What a pure reading of ``inputs`` gave before (the same inputs, Elenchus and installed packages), else
        ``compute()``, stored for the next run: a push that changes none of them reads nothing again. Not a
        measured result, so it never counts as one reused; a stored value ``decode`` refuses is computed again."""
        key = self.key("memo", kind, inputs)
        record = self.peek(key)
        if record is not None and "value" in record:
            try:
                return decode(record["value"])
            except (ValueError, KeyError, TypeError, AttributeError):
                self.rejected += 1
        value = compute()
        self.put(key, {"value": encode(value)})
        return value

    def put(self, key: str, record: dict) -> None:
        if not self.enabled:
            return
        path = self.root / key[:2] / f"{key}.json"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A private temporary name: two evaluations may store the same key at once.
            _write_atomically(path, json.dumps({**record, SEAL: seal(record)}, sort_keys=True))
        except OSError as error:
            self.unwritable = f"{self.root}: {error.strerror}"  # the run goes on; the report says so
