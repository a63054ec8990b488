"""Results reused across commits: the same evaluation on a copy of a two-commit repository, then after a
commit to an unrelated file, to one test file, to a data file the tests read, and to the mutated module;
last, ``--fresh`` on the final commit, whose verdicts must equal the reused ones.

    python benchmarks/reuse_across_commits.py --repo /tmp/iso/webcolors --name webcolors \\
        --test tests/test_normalization.py -- --scope target --target src/webcolors.py --budget 100

Each step's wall time, and its runs reused / measured, come from the run directory it wrote. Writes
``results/reuse_across_commits_<name>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import GIT_IDENTITY, git, load_average, machine, now_utc, temp_root, write_result


def _evaluate(repo: Path, base: str, runs: Path, arguments: list[str], fresh: bool = False) -> dict:
    before = set(runs.iterdir()) if runs.exists() else set()
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "elenchus", "evaluate", "--repo", str(repo), "--base", base,
                           "--head", "HEAD", "--jobs", "2", *(["--fresh"] if fresh else []), *arguments],
                          capture_output=True, text=True, cwd="/tmp", env={**os.environ, "ELENCHUS_RUNS_DIR": str(runs)})
    wall = time.monotonic() - started
    [made] = set(runs.iterdir()) - before
    records = [json.loads(line) for line in (made / "runs.jsonl").read_text().splitlines()]
    ran = [r for r in records if r.get("attempt")]
    report = json.loads((made / "report.json").read_text())
    return {"exit": done.returncode, "wall_seconds": round(wall, 2), "runs": len(ran),
            "reused": sum(1 for r in ran if r.get("cached")),
            "stderr_reuse_lines": [line.strip() for line in done.stderr.splitlines()
                                   if "reused" in line or "again" in line],
            "verdicts": {m["id"]: m["result"] for m in report["mutations"]},
            "comparisons": {c["mutation_id"]: c["assessment"] for c in report["comparisons"]}}


def _commit(repo: Path, path: str, text: str, message: str) -> None:
    target = repo / path
    target.write_text(target.read_text(encoding="utf-8", errors="surrogateescape") + text, encoding="utf-8",
                      errors="surrogateescape")
    git(repo, "add", "-A")
    git(repo, *GIT_IDENTITY, "commit", "-q", "-m", message)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="a git repository whose HEAD~1..HEAD is evaluated")
    parser.add_argument("--name", required=True)
    parser.add_argument("--unrelated", default="LICENSE", help="a file no test reads")
    parser.add_argument("--test", required=True, help="a test file: a test function is appended to it")
    parser.add_argument("--data", help="a data file the tests read: a line is appended to it")
    parser.add_argument("--module", help="the mutated module: a comment is appended to it")
    parser.add_argument("arguments", nargs="*", help="evaluate's other arguments (after --)")
    options = parser.parse_args()
    root = temp_root("reuse-")
    repo = root / options.name
    subprocess.run(["git", "clone", "-q", str(options.repo), str(repo)], check=True)
    base = git(repo, "rev-parse", "HEAD~1").strip()
    runs = root / "runs"
    steps: dict[str, dict] = {"fresh": _evaluate(repo, base, runs, options.arguments, fresh=True)}
    steps["same_command_again"] = _evaluate(repo, base, runs, options.arguments)
    _commit(repo, options.unrelated, "\nA line no test reads.\n", "unrelated")
    steps["unrelated_file"] = _evaluate(repo, base, runs, options.arguments)
    _commit(repo, options.test, "\n\ndef test_reuse_benchmark_added():\n    assert True\n", "one test file")
    steps["one_test_file"] = _evaluate(repo, base, runs, options.arguments)
    if options.data:
        _commit(repo, options.data, "\n", "a data file")
        steps["data_file"] = _evaluate(repo, base, runs, options.arguments)
    if options.module:
        _commit(repo, options.module, "\n# a comment\n", "the mutated module")
        steps["mutated_module"] = _evaluate(repo, base, runs, options.arguments)
    last = list(steps)[-1]
    fresh = _evaluate(repo, base, runs, options.arguments, fresh=True)
    same = fresh["verdicts"] == steps[last]["verdicts"] and fresh["comparisons"] == steps[last]["comparisons"]
    for step in steps.values():
        step["mutants"] = len(step.pop("verdicts"))
        step.pop("comparisons")
    document = {"what": f"{options.name}: evaluate {' '.join(options.arguments)} (Base pinned, Head moving)",
                "date": now_utc(), "machine": machine(), "load_average_start": load_average(),
                "steps": steps,
                "fresh_on_the_last_commit": {"wall_seconds": fresh["wall_seconds"], "runs": fresh["runs"],
                                             "verdicts_identical_to_the_reused_run": same}}
    print(write_result(f"reuse_across_commits_{options.name}", document))
    print(json.dumps(steps, indent=1))


if __name__ == "__main__":
    main()
