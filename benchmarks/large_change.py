"""A change that adds one 5 MB generated module: `elenchus changes` and `evaluate --budget 3`.

Builds a two-commit repository in a temp dir: a small package `calc` with its tests, then a
commit that adds `calc/generated.py`, about 5 MB of 64,480 small generated functions
(arithmetic, comparisons, if/return, loops; one test calls a few of them). Runs, each in its
own process under `/usr/bin/time -v` for the peak resident set size:

- `elenchus changes --repo REPO`,
- `elenchus evaluate --repo REPO --scope current-change --budget 3 --jobs 2 --fresh`,

and records wall time, peak RSS (null when `/usr/bin/time` is missing), exit code and the
first stderr/stdout lines that narrate progress.

    python benchmarks/large_change.py [--functions 64480] [--isolation auto] [--keep DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

NAME = "large_change"

CORE = '''"""A small hand-written module."""


def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value


def total(items):
    result = 0
    for item in items:
        result += item
    return result
'''

TEST_CORE = '''from calc.core import clamp, total


def test_clamp():
    assert clamp(5, 0, 10) == 5
    assert clamp(-1, 0, 10) == 0
    assert clamp(11, 0, 10) == 10


def test_total():
    assert total([1, 2, 3]) == 6
'''

TEST_GENERATED = '''from calc.generated import f_000000, f_000001, f_000002


def test_some_generated():
    assert f_000000(3, 4) == 3 + 4 * 2
    assert f_000001(5, 2) is True
    assert f_000002(1, 9) == 9
'''


def generated_function(n: int) -> str:
    """One small function; the shape cycles through a few kinds, the constants vary."""
    name = f"f_{n:06d}"
    k = n % 97 + 1
    kind = n % 5
    if kind == 0:
        return f"def {name}(first, second):\n    return first + second * {n % 3 + 2}\n"
    if kind == 1:
        return f"def {name}(left, right):\n    return left >= right and left != {k}\n"
    if kind == 2:
        return f"def {name}(x, y):\n    if x > y:\n        return x - {k}\n    return y\n"
    if kind == 3:
        return f"def {name}(items, limit={k}):\n    return [i for i in items if i < limit]\n"
    return f"def {name}(x):\n    total = 0\n    for i in range(x):\n        total += i % {k}\n    return total\n"


def generated_module(functions: int) -> str:
    return '"""Generated: do not edit."""\n\n' + "\n\n".join(generated_function(n) for n in range(functions))


def build(root: Path, functions: int) -> Path:
    """The two-commit repository; the second commit adds calc/generated.py."""
    repo = root / "large"
    common.init_repo(repo)
    (repo / "calc").mkdir()
    (repo / "tests").mkdir()
    (repo / "calc" / "__init__.py").write_text("")
    (repo / "calc" / "core.py").write_text(CORE)
    (repo / "tests" / "test_core.py").write_text(TEST_CORE)
    (repo / "pyproject.toml").write_text('[project]\nname = "calc"\nversion = "0"\n\n'
                                         '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    common.commit_all(repo, "calc")
    (repo / "calc" / "generated.py").write_text(generated_module(functions))
    (repo / "tests" / "test_generated.py").write_text(TEST_GENERATED)
    common.commit_all(repo, "add the generated module")
    return repo


def _descendants(root: int) -> list[int]:
    """``root`` and every process below it (sandboxed runs start sessions of their own)."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += parents.get(pid, [])
    return found


def _tree_pss_mb(root: int) -> float | None:
    """The proportional set size of the whole process tree: shared pages (forked workers) counted once."""
    total, seen = 0, False
    for pid in _descendants(root):
        try:
            text = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        match = re.search(r"^Pss:\s+(\d+) kB", text, re.M)
        if match:
            total, seen = total + int(match.group(1)), True
    return round(total / 1024, 1) if seen else None


class _TreeMemory(threading.Thread):
    """Samples the process tree's PSS every quarter second; ``peak`` is the largest sum seen."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root, self.peak, self.done = root, None, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.25):
            now = _tree_pss_mb(self.root)
            if now is not None and (self.peak is None or now > self.peak):
                self.peak = now


def measured(command: list[str], env: dict[str, str], timeout: float) -> dict:
    """Run ``command`` under /usr/bin/time -v when present: wall seconds, peak RSS (MB) of the largest single
    process, the peak of the whole process tree's PSS (sampled; null when /proc has no smaps_rollup), exit code.

    On timeout the whole process group is killed and the peak RSS is unknown (null)."""
    timer = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)
    with tempfile.NamedTemporaryFile("r", suffix=".time") as stats:
        full = [timer, "-v", "-o", stats.name, *command] if timer else command
        started = time.monotonic()
        process = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                   start_new_session=True)
        sampler = _TreeMemory(process.pid)
        sampler.start()
        try:
            out, err = process.communicate(timeout=timeout)
            code: int | None = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            code = None
        wall = time.monotonic() - started
        sampler.done.set()
        sampler.join()
        text = stats.read() if timer and code is not None else ""
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    return {
        "command": " ".join(["elenchus", *command[3:]]),
        "exit_code": code,
        "timed_out": code is None,
        "wall_seconds": round(wall, 2),
        "peak_rss_mb": round(int(peak.group(1)) / 1024, 1) if peak else None,
        "peak_tree_pss_mb": sampler.peak if code is not None else None,
        "stdout_head": out.splitlines()[:12],
        "stderr_head": err.splitlines()[:12],
        "stdout_tail": out.splitlines()[-6:],
        "stderr_tail": err.splitlines()[-6:],
    }


def run_tree(repo: Path, label: str, tree: str | None, args: argparse.Namespace, runs: str) -> dict:
    env = {**os.environ, "ELENCHUS_RUNS_DIR": runs}
    if tree:
        env["PYTHONPATH"] = tree
    python = [sys.executable, "-m", "elenchus"]
    result: dict = {"label": label, "elenchus_tree": tree or str(common.CHECKOUT)}
    result["changes"] = measured([*python, "changes", "--repo", str(repo)], env, args.timeout)
    print(json.dumps({label: result["changes"]}, indent=2))
    result["evaluate"] = None
    result["evaluate_report"] = None
    if label in args.changes_only:
        return result
    before = set(Path(runs).glob("*/report.json"))
    result["evaluate"] = measured([*python, "evaluate", "--repo", str(repo), "--scope", "current-change",
                                   "--budget", "3", "--jobs", "2", "--fresh", "--isolation", args.isolation],
                                  env, args.timeout)
    print(json.dumps({label: result["evaluate"]}, indent=2))
    reports = sorted(set(Path(runs).glob("*/report.json")) - before)
    if reports:
        report = json.loads(reports[0].read_text())
        comparisons = report.get("comparisons", [])
        result["evaluate_report"] = {"challenged": len(comparisons),
                                     "assessments": sorted(str(c.get("assessment")) for c in comparisons)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=64_480)
    parser.add_argument("--isolation", default="auto")
    parser.add_argument("--timeout", type=float, default=1800, help="per command, seconds")
    parser.add_argument("--tree", action="append", default=[], metavar="LABEL=DIR",
                        help="also run the elenchus package in DIR (first on PYTHONPATH)")
    parser.add_argument("--changes-only", action="append", default=[], metavar="LABEL")
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    root = args.keep or common.temp_root("elenchus-large-")
    root.mkdir(parents=True, exist_ok=True)
    try:
        repo = root / "large" if (root / "large" / ".git").is_dir() else build(root, args.functions)
        size = (repo / "calc" / "generated.py").stat().st_size
        print(f"repository {repo}: calc/generated.py {size / 1e6:.2f} MB")
        if args.build_only:
            return
        trees = [("this checkout", None)] + [tuple(t.split("=", 1)) for t in args.tree]
        load_start = common.load_average()
        results = []
        with tempfile.TemporaryDirectory() as runs:
            for label, tree in trees:
                results.append(run_tree(repo, label, tree, args, runs))
        summary = {
            "date": common.now_utc(),
            "machine": common.machine(),
            "load_average_start": load_start,
            "load_average_end": common.load_average(),
            "scenario": {"functions": args.functions, "generated_module_bytes": size,
                         "isolation": args.isolation, "timeout_seconds": args.timeout},
            "runs": results,
        }
        rows = []
        for result in results:
            for name in ("changes", "evaluate"):
                r = result[name]
                if r is not None:
                    rows.append([result["label"], name, r["exit_code"], r["timed_out"], r["wall_seconds"],
                                 r["peak_rss_mb"], r["peak_tree_pss_mb"]])
        print(common.table(["tree", "command", "exit", "timed out", "wall s", "peak RSS MB (one process)",
                            "peak PSS MB (all processes)"], rows))
        if args.out:
            args.out.write_text(json.dumps(summary, indent=2) + "\n")
            print(f"written to {args.out}")
        else:
            print(f"written to {common.write_result(NAME, summary)}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
