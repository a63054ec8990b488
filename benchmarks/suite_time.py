"""How long the README's test command takes on a clean clone, and how many checks the suite makes.

Each round clones the checkout's commit (``--rev``) into a temp dir, installs it into a fresh venv
the way the README says, then times the test command alone (install excluded) and reads pytest's
summary line. The assertion count is static: ``assert`` statements, ``pytest.raises`` /
``pytest.warns`` blocks and ``self.assert*`` calls in ``tests/``, at the measured commit and at
``--before`` (the commit the figures are compared with), so a faster suite that checks less shows.

    python benchmarks/suite_time.py --rounds 3 --before e429292 --out results/suite_time.json
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CHECKOUT, RESULTS, git, load_average, machine, median, now_utc, rounded  # noqa: E402

TEST_COMMAND = (".venv/bin/python", "-m", "pytest", "-q")


def checks_in(source: str) -> dict[str, int]:
    """The checks one test file makes, by kind."""
    found = {"assert": 0, "raises": 0, "assert_method": 0}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert):
            found["assert"] += 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("raises", "warns") and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id == "pytest":
                found["raises"] += 1
            elif node.func.attr.startswith("assert") and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id == "self":
                found["assert_method"] += 1
    return found


def checks_at(rev: str) -> dict[str, int]:
    """The checks of every ``tests/**/*.py`` at ``rev`` (fixture projects under ``fixtures/`` are not tests)."""
    names = git(CHECKOUT, "ls-tree", "-r", "--name-only", rev, "--", "tests").split()
    total = {"files": 0, "assert": 0, "raises": 0, "assert_method": 0}
    for name in names:
        if not name.endswith(".py"):
            continue
        counted = checks_in(git(CHECKOUT, "show", f"{rev}:{name}"))
        total["files"] += 1
        for kind, count in counted.items():
            total[kind] += count
    total["all"] = total["assert"] + total["raises"] + total["assert_method"]
    return total


def speed_probe() -> float:
    """Seconds a fixed pure-Python loop takes: this host's speed drifts by half within an hour (other guests),
    so each round says how fast the machine was when it ran."""
    started = time.perf_counter()
    total = 0
    for number in range(5_000_000):
        total += number % 7
    return time.perf_counter() - started


def one_round(rev: str, scratch: Path) -> dict:
    clone = scratch / "clone"
    subprocess.run(["git", "clone", "-q", str(CHECKOUT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", rev], check=True)
    subprocess.run([sys.executable, "-m", "venv", ".venv"], cwd=clone, check=True)
    subprocess.run([".venv/bin/pip", "install", "-q", "-e", ".[test]"], cwd=clone, check=True)
    load, probe = load_average(), speed_probe()
    started = time.monotonic()
    done = subprocess.run(TEST_COMMAND, cwd=clone, capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")})
    wall = time.monotonic() - started
    summary = next((line for line in reversed(done.stdout.splitlines()) if " in " in line and "passed" in line), "")
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)",
                                                        summary)}
    return {"wall_seconds": rounded(wall, 1), "exit_code": done.returncode, "summary": summary.strip("= "),
            "counts": counts, "load_average_before": load,
            "speed_probe_seconds_before": rounded(probe, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default="HEAD", help="the commit to measure (default: the checkout's HEAD)")
    parser.add_argument("--before", help="the commit to count checks at for comparison")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS / "suite_time.json")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    rev = git(CHECKOUT, "rev-parse", "--short=12", args.rev).strip()
    rounds = []
    for index in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="suite-time-") as scratch:
            found = one_round(rev, Path(scratch))
        print(f"round {index + 1}: {found['wall_seconds']} s, {found['summary']}", file=sys.stderr)
        rounds.append(found)
    result = {
        "measured": now_utc(),
        "machine": machine(),
        "command": " ".join(TEST_COMMAND),
        "commit": rev,
        "rounds": rounds,
        "median_wall_seconds": rounded(median([r["wall_seconds"] for r in rounds]), 1),
        "checks": {rev: checks_at(rev), **({args.before: checks_at(args.before)} if args.before else {})},
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("median_wall_seconds", "checks")}, indent=2))


if __name__ == "__main__":
    main()
