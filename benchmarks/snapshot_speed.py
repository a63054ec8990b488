"""How fast Elenchus materializes snapshots and takes fingerprints on a sizeable real tree.

Downloads one PyPI sdist (default: sympy 1.13.3, about 2,000 files), unpacks it into a
temp dir, makes it a git repository with two commits (the sdist, then a small edit plus a
new file), and times, median of ``--repeat`` (default 5):

- ``materialize_commit(repo, "HEAD", ...)`` with loose objects (straight after the commits),
- the same after ``git gc`` (packed objects, deltas resolved by gitdb in pure Python),
- ``materialize_worktree(repo)``,
- ``fingerprint.take(repo)``,
- ``git archive HEAD | tar -x`` as a reference point (what plain git does, in C).

Each timed call gets a fresh ``Repository`` (its construction, one ``git rev-parse``, is not
timed) and the snapshot is removed outside the timed region. The page cache is warm after
the first repetition, so the medians are warm-cache figures.

Run: ``python benchmarks/snapshot_speed.py [--project NAME --version V] [--repeat N]``.
Writes ``benchmarks/results/snapshot_speed.json``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

from elenchus.repo import fingerprint  # noqa: E402
from elenchus.repo.git import Repository  # noqa: E402
from elenchus.repo.snapshot import materialize_commit, materialize_worktree  # noqa: E402

NAME = "snapshot_speed"


def loose_and_packed(repo: Path) -> dict:
    counts: dict[str, str] = {}
    for line in common.git(repo, "count-objects", "-v").splitlines():
        key, _, value = line.partition(":")
        counts[key.strip()] = value.strip()
    return {"loose_objects": int(counts.get("count", 0)), "packed_objects": int(counts.get("in-pack", 0))}


def time_commit_snapshot(path: Path, repeat: int) -> tuple[list[float], int, int]:
    times: list[float] = []
    files = size = 0
    for _ in range(repeat):
        repo = Repository(path)
        sha = repo.resolve("HEAD")
        seconds, snap = common.timed(lambda: materialize_commit(repo, "HEAD", sha, "base"))
        times.append(seconds)
        files, size = common.tree_size(snap.root)
        snap.remove()
    return times, files, size


def time_worktree_snapshot(path: Path, repeat: int) -> tuple[list[float], int, int]:
    times: list[float] = []
    files = size = 0
    for _ in range(repeat):
        repo = Repository(path)
        seconds, snap = common.timed(lambda: materialize_worktree(repo))
        times.append(seconds)
        files, size = common.tree_size(snap.root)
        snap.remove()
    return times, files, size


def time_fingerprint(path: Path, repeat: int) -> tuple[list[float], int]:
    times: list[float] = []
    files = 0
    for _ in range(repeat):
        repo = Repository(path)
        seconds, taken = common.timed(lambda: fingerprint.take(repo))
        times.append(seconds)
        files = len(taken.files)
    return times, files


def time_git_archive(path: Path, scratch: Path, repeat: int) -> tuple[list[float], int, int]:
    times: list[float] = []
    files = size = 0
    for number in range(repeat):
        dest = scratch / f"archive-{number}"
        dest.mkdir()

        def extract() -> None:
            done = subprocess.run(f"git archive HEAD | tar -x -C '{dest}'", shell=True, cwd=path)
            if done.returncode != 0:
                raise SystemExit("git archive | tar -x failed")

        seconds, _ = common.timed(extract)
        times.append(seconds)
        files, size = common.tree_size(dest)
        shutil.rmtree(dest)
    return times, files, size


def row(label: str, times: list[float], files: int, size: int | None) -> dict:
    med = common.median(times)
    return {
        "operation": label,
        "files": files,
        "mb": None if size is None else round(size / 1e6, 2),
        "median_seconds": common.rounded(med),
        "files_per_second": round(files / med) if med else None,
        "all_seconds": [round(t, 4) for t in times],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", default="sympy")
    parser.add_argument("--version", default="1.13.3")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--download-dir", type=Path, default=None,
                        help="reuse/keep the sdist here instead of a throwaway temp dir")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (prints its path)")
    args = parser.parse_args()
    load_at_start = common.load_average()

    scratch = common.temp_root("elenchus-bench-snapshot-")
    try:
        downloads = args.download_dir or scratch / "downloads"
        seconds, archive = common.timed(lambda: common.download_sdist(args.project, args.version, downloads))
        print(f"sdist: {archive.name} ({archive.stat().st_size / 1e6:.1f} MB, fetched in {seconds:.1f} s)")
        tree = common.unpack_sdist(archive, scratch / "unpacked")

        repo = scratch / "repo"
        common.init_repo(repo)
        shutil.copytree(tree, repo, dirs_exist_ok=True, symlinks=True)
        commit_seconds, _ = common.timed(lambda: common.commit_all(repo, f"{args.project} {args.version}"))
        readme = next((p for p in sorted(repo.iterdir()) if p.name.lower().startswith("readme")), None)
        if readme is not None:
            with open(readme, "a", encoding="utf-8") as handle:
                handle.write("\nA line added by the Elenchus snapshot benchmark.\n")
        (repo / "BENCHMARK_NOTE.txt").write_text("second commit\n")
        common.commit_all(repo, "second commit: edit the README, add a file")
        loose = loose_and_packed(repo)
        print(f"repository: 2 commits, {loose['loose_objects']} loose objects "
              f"(git add + first commit took {commit_seconds:.1f} s)")

        results = []
        times, files, size = time_commit_snapshot(repo, args.repeat)
        results.append(row("materialize_commit HEAD (loose objects)", times, files, size))
        times, files, size = time_worktree_snapshot(repo, args.repeat)
        results.append(row("materialize_worktree", times, files, size))
        times, files = time_fingerprint(repo, args.repeat)
        results.append(row("fingerprint.take", times, files, size))
        times, files, size = time_git_archive(repo, scratch, args.repeat)
        results.append(row("git archive HEAD | tar -x (reference)", times, files, size))

        gc_seconds, _ = common.timed(lambda: common.git(repo, "gc", "-q"))
        packed = loose_and_packed(repo)
        print(f"git gc took {gc_seconds:.1f} s: {packed['loose_objects']} loose, "
              f"{packed['packed_objects']} packed objects")
        times, files, size = time_commit_snapshot(repo, args.repeat)
        results.insert(1, row("materialize_commit HEAD (packed, after git gc)", times, files, size))
        times, files, size = time_git_archive(repo, scratch, args.repeat)
        results.append(row("git archive HEAD | tar -x (reference, packed)", times, files, size))

        print()
        print(common.table(
            ["operation", "files", "MB", f"median s (of {args.repeat})", "files/s"],
            [[r["operation"], r["files"], r["mb"], r["median_seconds"], r["files_per_second"]] for r in results],
        ))

        document = {
            "benchmark": NAME,
            "date": common.now_utc(),
            "machine": common.machine(),
            "load_average_at_start": load_at_start,
            "load_average_at_end": common.load_average(),
            "project": {"name": args.project, "version": args.version, "sdist": archive.name,
                        "sdist_mb": round(archive.stat().st_size / 1e6, 2)},
            "repository": {"commits": 2, "before_gc": loose, "after_gc": packed,
                           "git_gc_seconds": round(gc_seconds, 3)},
            "repeat": args.repeat,
            "cache": "warm (page cache primed by earlier repetitions); fresh Repository per repetition",
            "results": results,
        }
        print(f"load average (1/5/15 min) at start {load_at_start}, at end {document['load_average_at_end']}")
        target = common.write_result(NAME, document)
        print(f"\nwrote {target.relative_to(common.CHECKOUT)}")
    finally:
        if args.keep:
            print(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
