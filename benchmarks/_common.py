"""Helpers shared by the benchmark scripts (not product code; never imported by Elenchus).

Benchmarks may run any git command they like (``git init``, ``commit``, ``gc``,
``archive``) on repositories they build themselves in temp dirs: the read-only
allowlist binds Elenchus, not its measuring harness.

Downloaded sdists live only in a temp dir (or a ``--download-dir`` the caller owns)
and are never written under the Elenchus checkout.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
RESULTS = BENCHMARKS / "results"
CHECKOUT = BENCHMARKS.parent

GIT_IDENTITY = ("-c", "user.name=b", "-c", "user.email=b@b", "-c", "commit.gpgsign=false", "-c", "gc.auto=0")


# -- machine -------------------------------------------------------------------


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _elenchus_version() -> str | None:
    try:
        import elenchus

        return getattr(elenchus, "__version__", None)
    except ImportError:
        return None


def _elenchus_commit() -> str | None:
    done = subprocess.run(["git", "-C", str(CHECKOUT), "rev-parse", "--short=12", "HEAD"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def _elenchus_dirty() -> bool | None:
    done = subprocess.run(["git", "-C", str(CHECKOUT), "status", "--porcelain", "--", "elenchus"],
                          capture_output=True, text=True)
    return bool(done.stdout.strip()) if done.returncode == 0 else None


def machine() -> dict:
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "nproc": usable,
        "cpu_count": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "git": git or None,
        "elenchus_version": _elenchus_version(),
        "elenchus_commit": _elenchus_commit(),
        "elenchus_package_has_uncommitted_edits": _elenchus_dirty(),
    }


def load_average() -> list[float] | None:
    """1, 5 and 15 minute load averages: other work on the machine skews every figure."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def now_utc() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# -- timing --------------------------------------------------------------------


def timed(action: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    value = action()
    return time.perf_counter() - start, value


def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def rounded(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


# -- sdists --------------------------------------------------------------------


def download_sdist(name: str, version: str, into: Path) -> Path:
    """``pip download`` one sdist (no dependencies, no wheels) into ``into``; return its path."""
    into.mkdir(parents=True, exist_ok=True)
    before = set(into.iterdir())
    normal = name.lower().replace("-", "_").replace(".", "_")
    for existing in before:
        stem = existing.name.lower().replace("-", "_")
        if stem.startswith(f"{normal}_{version}.") and existing.name.endswith((".tar.gz", ".zip")):
            return existing  # reused from a --download-dir
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
         f"{name}=={version}", "-d", str(into)],
        capture_output=True, text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"pip download {name}=={version} failed:\n{done.stderr[-2000:]}")
    added = [p for p in into.iterdir() if p not in before]
    if len(added) != 1:
        raise SystemExit(f"expected one new file from pip download {name}=={version}, got {added}")
    return added[0]


def unpack_sdist(archive: Path, into: Path) -> Path:
    """Unpack an sdist into ``into`` and return its single top-level directory.

    The ``data`` filter drops ownership, so the tree belongs to the current user (git
    would otherwise refuse it as "dubious ownership" when running as root).
    """
    into.mkdir(parents=True, exist_ok=True)
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as handle:
            handle.extractall(into)
    else:
        with tarfile.open(archive) as handle:
            handle.extractall(into, filter="data")
    tops = [p for p in into.iterdir()]
    if len(tops) != 1 or not tops[0].is_dir():
        raise SystemExit(f"{archive.name}: expected one top-level directory, got {[p.name for p in tops]}")
    return tops[0]


# -- git (benchmark harness only) ----------------------------------------------


def git(repo: Path, *args: str, capture: bool = True) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    done = subprocess.run(["git", *GIT_IDENTITY, *args], cwd=repo, env=env, capture_output=capture, text=True)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed in {repo}:\n{done.stderr}")
    return done.stdout if capture else ""


def init_repo(repo: Path) -> None:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def replace_tree(repo: Path, source: Path) -> None:
    """Make the working tree of ``repo`` hold exactly the files of ``source`` (``.git`` kept)."""
    for child in repo.iterdir():
        if child.name == ".git":
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    shutil.copytree(source, repo, dirs_exist_ok=True, symlinks=True)


def export_head(repo: Path, dest: Path, rev: str = "HEAD") -> Path:
    """``git archive REV | tar -x`` into ``dest`` (a plain copy of the tree, no ``.git``)."""
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.Popen(["git", "archive", "--format=tar", rev], cwd=repo, stdout=subprocess.PIPE)
    untar = subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout)
    archive.stdout.close()  # type: ignore[union-attr]
    if archive.wait() != 0 or untar.returncode != 0:
        raise SystemExit(f"git archive {rev} | tar -x failed for {repo}")
    return dest


def tree_size(root: Path) -> tuple[int, int]:
    """(files, bytes) below ``root``, symlinks counted as files of their link size."""
    files = size = 0
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            info = os.lstat(os.path.join(dirpath, name))
            files += 1
            size += info.st_size
    return files, size


# -- output --------------------------------------------------------------------


def temp_root(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))


def write_result(name: str, document: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    target = RESULTS / f"{name}.json"
    target.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return target


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def cell(value: object) -> str:
        if value is None:
            return "n/a"
        if isinstance(value, float):
            return f"{value:.3f}" if abs(value) < 100 else f"{value:.1f}"
        return str(value)

    text_rows = [[cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in text_rows)) if text_rows else len(h)
              for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in text_rows]
    return "\n".join(lines)
