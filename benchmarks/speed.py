"""Speed: `elenchus evaluate` side by side with mutmut 3 and bare pytest, four figures in one run.

(a) Broader target. isodate 0.7.2 (sdist) becomes a git repository with two commits: the
    sdist (its setuptools-scm ``src/isodate/version.py`` added although ``.gitignore``d, since
    ``isodate/__init__.py`` imports it), then a commit that only adds ``BENCHMARK.txt``
    (Elenchus needs a Base and a Head that differ even for ``--scope target``: with one commit
    it stops at "HEAD is the repository's first commit", with ``--base HEAD --head HEAD`` at
    "empty diff"). Then it times
    ``elenchus evaluate --repo REPO --scope target --target src/isodate/duration.py --budget 256
    --jobs 2 --fresh`` and ``mutmut run --max-children 2`` in a ``git archive`` copy of Head
    whose ``pyproject.toml`` gets ``[tool.mutmut]`` with ``only_mutate = ["src/isodate/duration.py"]``
    and the test files Elenchus selected (``pytest_add_cli_args_test_selection``). Reported for
    both: mutants, wall seconds, wall seconds per mutant, and the ratios Elenchus / mutmut.

(b) A real change. more-itertools 10.7.0 -> 10.8.0 as a two-commit repository (built by
    ``evaluate_vs_mutmut.build_repository``): ``elenchus evaluate --repo REPO --scope
    current-change --budget 16 --jobs 2 --fresh`` (the wall time to the verdicts of both
    cohorts) against mutmut restricted, as ``evaluate_vs_mutmut.py`` restricts it, to the
    changed files, the selected test files and, by mutant-name globs, the changed functions
    Elenchus discovers. Same figures as (a).

(c) Per run. Each mutant x cohort run's ``duration`` (``runs.jsonl`` in the run directory that
    Elenchus prints as "Run directory: ..."), median, against a fresh
    ``python -m pytest -q -p no:cacheprovider <the same tests>`` in a ``git archive`` copy of
    Head (a new copy for each of 3 repetitions, ``PYTHONDONTWRITEBYTECODE=1`` and ``PYTHONPATH``
    set to the source roots the report names, as Elenchus does; median). "The same tests": a run
    record's ``tests`` field (node ids) when it has one (per-test selection), else the test
    files of the report's ``execution.test_command``. Runs are grouped by that test set; the
    ``--max-test-sets`` groups with the most runs are timed (the rest are reported as ``null``).
    The bare command is timed under each of ``--bare-python`` (default: the Elenchus Python,
    whose installed pytest plugins all autoload, and the mutmut Python, normally a venv with
    only mutmut and pytest).

(d) Unchanged rerun. The command of (a) and of (b) again, without ``--fresh`` and with the same
    ``ELENCHUS_RUNS_DIR``. ``--fresh`` neither reads nor writes the result cache, so this takes two
    passes: the cold one finds the cache empty, measures everything again and fills it; the warm
    one is the unchanged rerun that reuses the results (its wall time is the figure). Reported:
    wall time of each pass, how many runs came from the cache, whether the verdicts are the
    same. Also ``--scope current-change`` on the isodate repository of (a), where the only change
    is the non-Python ``BENCHMARK.txt`` (nothing to evaluate: exit 4), and ``--base HEAD --head
    HEAD`` (refused as an empty diff: exit 2).

Every measured configuration gets its own fresh ``ELENCHUS_RUNS_DIR`` (so no cache leaks
between them) except the reruns of (d). Nothing is installed into the projects: isodate is
imported from ``src`` (Elenchus puts its source roots on ``PYTHONPATH``; mutmut puts
``mutants/src`` first on ``sys.path``), more-itertools from the checkout root. Nothing runs in
parallel with anything else, and before each measured command the script waits (up to
``--idle-max-wait`` s) until the CPUs are under ``--idle-busy-below`` busy; each command records
the load average and the CPU seconds the machine spent while it ran and how much of that
was other work (``machine_during``; see ``Meter``). A value that was not measured is ``null``.

Which Elenchus is measured: ``--elenchus-python PY`` (default: this interpreter) runs
``PY -m elenchus`` with ``PYTHONPATH=--elenchus-path`` (a checkout, e.g. a clone at a fixed
commit, so that concurrent edits to the working checkout do not leak in); the JSON records
the file that was imported and that checkout's commit. ``--mutmut-python PY`` is the
interpreter of a venv with mutmut 3 and pytest (default: this interpreter).

Run (about 45 min on 2 vCPUs; (b) and its reruns are most of it)::

    python benchmarks/speed.py [--only a,b,c,d] [--label before] [--out FILE]
        [--target-budget N] [--target-exhaustive] [--change-budget N]
        [--elenchus-python PY] [--elenchus-path CHECKOUT] [--mutmut-python PY]
        [--download-dir DIR] [--work-dir DIR] [--idle-busy-below 0.25] [--idle-max-wait 900]

for example, the "before" figures (Elenchus at 2ec3bef in a separate clone, mutmut in its own venv)::

    git clone -q /work/main /work/bench/speed/elenchus-before
    git -C /work/bench/speed/elenchus-before checkout 2ec3bef
    python3 -m venv /work/bench/speed/venv
    /work/bench/speed/venv/bin/pip install 'mutmut>=3,<4' pytest      # 3.8.1, pytest 9.2.0
    cd /work/bench/speed && /work/main/.venv/bin/python /work/main/benchmarks/speed.py --label before
        --elenchus-python /work/main/.venv/bin/python --elenchus-path /work/bench/speed/elenchus-before
        --mutmut-python /work/bench/speed/venv/bin/python --download-dir /work/bench/speed/downloads
        --work-dir /work/bench/speed/run-before --out /work/main/benchmarks/results/speed_before.json

Writes ``benchmarks/results/speed.json`` unless ``--out`` says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402
import evaluate_vs_mutmut as evm  # noqa: E402

NAME = "speed"
BENCHMARKS = Path(__file__).resolve().parent

ISODATE = ("isodate", "0.7.2", "src/isodate/duration.py")
MORE_ITERTOOLS = ("more-itertools", "10.7.0", "10.8.0")
TARGET_BUDGET = 256
TARGET_EXHAUSTIVE = False  # (a) with --exhaustive: mutmut's catalog as well, so as many mutants as mutmut's or more
CHANGE_BUDGET = 16
JOBS = 2
BARE_REPEAT = 3
MAX_TEST_SETS = 12

ELENCHUS_MARKERS = evm.ELENCHUS_MARKERS + ("Witnesses:",)
SUMMARY_LINE = re.compile(r"(\d+) (passed|failed|error|errors|skipped|xfailed|xpassed|subtests passed)")


@dataclass
class Tools:
    elenchus_python: str
    elenchus_path: str | None
    mutmut_python: str
    bare_pythons: list[str]


# -- helpers ------------------------------------------------------------------------------


def base_env() -> dict[str, str]:
    """The environment without anything that would change which code is imported."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ELENCHUS_RUNS_DIR", "PYTHONHOME")}


def elenchus_env(tools: Tools, runs_dir: Path | None) -> dict[str, str]:
    env = base_env()
    env["PYTHONUNBUFFERED"] = "1"
    if tools.elenchus_path:
        env["PYTHONPATH"] = tools.elenchus_path
    if runs_dir is not None:
        env["ELENCHUS_RUNS_DIR"] = str(runs_dir)
    return env


def python_json(python: str, code: str, env: dict[str, str], cwd: Path) -> object:
    """Run ``code`` under ``python`` (benchmarks/ on sys.path) and parse the JSON of its last line."""
    prologue = f"import sys, json\nsys.path.insert(0, {str(BENCHMARKS)!r})\n"
    done = subprocess.run([python, "-c", prologue + code], check=False, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{python} -c ... failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def git_facts(path: Path) -> dict:
    def run(*args: str) -> str | None:
        done = subprocess.run(["git", "-C", str(path), *args], check=False, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else None

    status = run("status", "--porcelain", "--", "elenchus")
    return {"commit": run("rev-parse", "--short=12", "HEAD"), "subject": run("log", "-1", "--format=%s"),
            "package_has_uncommitted_edits": None if status is None else bool(status)}


def elenchus_identity(tools: Tools, cwd: Path) -> dict:
    facts = python_json(tools.elenchus_python,
                        "import elenchus, platform\n"
                        "print(json.dumps({'file': elenchus.__file__, 'version': getattr(elenchus, '__version__', None),"
                        " 'python': platform.python_version()}))",
                        elenchus_env(tools, None), cwd)
    assert isinstance(facts, dict)
    package = Path(facts["file"]).resolve().parent
    if tools.elenchus_path and not package.is_relative_to(Path(tools.elenchus_path).resolve()):
        raise SystemExit(f"--elenchus-path {tools.elenchus_path}: {tools.elenchus_python} imports elenchus from "
                         f"{facts['file']} instead (run from a directory without an elenchus package)")
    return {"python": tools.elenchus_python, "pythonpath": tools.elenchus_path, "imported_from": facts["file"],
            "version": facts["version"], "python_version": facts["python"], **git_facts(package.parent)}


def tool_versions(python: str, cwd: Path) -> dict:
    return python_json(python,
                       "from importlib.metadata import version, PackageNotFoundError\n"
                       "def v(name):\n"
                       "    try:\n        return version(name)\n"
                       "    except PackageNotFoundError:\n        return None\n"
                       "import platform\n"
                       "print(json.dumps({'python': platform.python_version(), 'mutmut': v('mutmut'),"
                       " 'pytest': v('pytest'), 'libcst': v('libcst'), 'hypothesis': v('hypothesis')}))",
                       base_env(), cwd)  # type: ignore[return-value]


def per(seconds: float | None, count: int | None) -> float | None:
    return round(seconds / count, 3) if seconds is not None and count else None


def ratio(top: float | None, bottom: float | None) -> float | None:
    return round(top / bottom, 3) if top is not None and bottom else None


# -- other work on the machine -------------------------------------------------------------


def _cpu_jiffies() -> tuple[int, int] | None:
    """(busy, total) jiffies of all CPUs since boot, from /proc/stat."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    except (OSError, ValueError, IndexError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields[:8]) - idle, sum(fields[:8])


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Meter:
    """CPU seconds the whole machine spent during a command, and how much of it was not ours.

    Ours (``own_cpu_seconds``): the CPU time of the processes this script started, as
    ``RUSAGE_CHILDREN`` counts it -- only what was reaped up the chain, so the test processes
    Elenchus runs in its sandbox (bubblewrap) are missing from it while mutmut's and bare
    pytest's are counted. ``other_cpu_seconds`` (the machine's busy time minus ours) is exact for
    mutmut and bare pytest and an upper bound for Elenchus; ``machine_busy_cpu_seconds`` against
    wall x nproc shows how full the machine was.
    """

    def __init__(self) -> None:
        self.jiffies = _cpu_jiffies()
        self.ours = _children_cpu()
        self.load = common.load_average()

    def read(self) -> dict:
        now = _cpu_jiffies()
        ours = _children_cpu() - self.ours
        if now is None or self.jiffies is None:
            return {"load_average_at_start": self.load, "own_cpu_seconds": round(ours, 1)}
        hz = os.sysconf("SC_CLK_TCK")
        busy = (now[0] - self.jiffies[0]) / hz
        return {"load_average_at_start": self.load, "load_average_at_end": common.load_average(),
                "machine_busy_cpu_seconds": round(busy, 1), "own_cpu_seconds": round(ours, 1),
                "other_cpu_seconds": round(max(busy - ours, 0.0), 1)}


IDLE = {"busy_below": 0.25, "max_wait": 900.0}


def wait_for_idle() -> dict:
    """Wait (at most ``IDLE['max_wait']`` s) until the CPUs are under ``IDLE['busy_below']`` busy over 3 s."""
    started = time.monotonic()
    busy = None
    while True:
        before = _cpu_jiffies()
        time.sleep(3)
        after = _cpu_jiffies()
        if before is None or after is None:
            return {"waited_seconds": 0.0, "busy_fraction": None}
        busy = (after[0] - before[0]) / max(after[1] - before[1], 1)
        waited = time.monotonic() - started
        if busy < IDLE["busy_below"] or waited >= IDLE["max_wait"]:
            break
        if waited < 4:
            print(f"    waiting for the machine to go idle (busy {busy:.0%})...", flush=True)
        time.sleep(2)
    return {"waited_seconds": round(time.monotonic() - started, 1), "busy_fraction_when_started": round(busy, 3),
            "idle": busy < IDLE["busy_below"]}


# -- repositories -------------------------------------------------------------------------


def build_isodate(scratch: Path, downloads: Path) -> dict:
    name, version, _target = ISODATE
    archive = common.download_sdist(name, version, downloads)
    tree = common.unpack_sdist(archive, scratch / "unpacked")
    repo = scratch / "repo"
    common.init_repo(repo)
    common.replace_tree(repo, tree)
    common.git(repo, "add", "-A")
    common.git(repo, "add", "-f", "src/isodate/version.py")  # generated by setuptools-scm, .gitignored
    common.git(repo, "commit", "-q", "--no-verify", "-m", f"{name} {version}")
    base_sha = common.git(repo, "rev-parse", "HEAD").strip()
    (repo / "BENCHMARK.txt").write_text("A change that touches no Python: Elenchus needs Base != Head.\n")
    head_sha = common.commit_all(repo, "benchmark marker (no Python changed)")
    return {"path": repo, "base_sha": base_sha, "head_sha": head_sha, "sdists": [archive.name]}


# -- Elenchus ---------------------------------------------------------------------------------


def selected_from(report: dict) -> list[str]:
    command = report.get("execution", {}).get("test_command", "")
    return command.split("pytest ", 1)[1].split(" (with", 1)[0].split() if "pytest " in command else []


def evaluate(tools: Tools, arguments: list[str], runs_dir: Path, cwd: Path) -> dict:
    """One ``elenchus evaluate``: wall time, progress markers, and the run directory's records."""
    argv = [tools.elenchus_python, "-m", "elenchus", "evaluate", *arguments]
    shown = "elenchus evaluate " + " ".join(arguments)
    print(f"  $ ELENCHUS_RUNS_DIR={runs_dir} {shown}", flush=True)
    runs_dir.mkdir(parents=True, exist_ok=True)
    idle = wait_for_idle()
    meter = Meter()
    streamed = evm.stream(argv, cwd, elenchus_env(tools, runs_dir), ELENCHUS_MARKERS)
    machine = {**idle, **meter.read()}
    lines = streamed["lines"]
    run_dir = next((Path(line.split("Run directory:", 1)[1].strip()) for line in lines
                    if line.startswith("Run directory:")), None)
    result: dict = {"command": shown, "elenchus_runs_dir": str(runs_dir), "exit_code": streamed["exit_code"],
                    "wall_seconds": streamed["wall_seconds"], "machine_during": machine,
                    "run_directory": str(run_dir) if run_dir else None, "stdout_first_lines": lines[:8]}
    print(f"    exit {streamed['exit_code']}, {streamed['wall_seconds']} s; CPU s: ours "
          f"{machine.get('own_cpu_seconds')}, others' {machine.get('other_cpu_seconds')}", flush=True)
    if run_dir is None or not (run_dir / "report.json").is_file():
        result["error"] = "no report.json: " + " | ".join(lines[-12:])
        result["records"] = []
        return result
    report = json.loads((run_dir / "report.json").read_text())
    runs_file = run_dir / "runs.jsonl"
    records = [json.loads(line) for line in runs_file.read_text().splitlines() if line.strip()] \
        if runs_file.is_file() else []
    measured = [r for r in records if not r.get("cached")]
    durations = [r["duration"] for r in measured if r.get("duration") is not None]
    mutations = report.get("mutations", [])
    markers = streamed["markers"]
    launched = streamed["launched_epoch"]
    phases: dict[str, float | None] = {"setup_until_scope_line": markers.get("Scope:"), "baselines": None,
                                       "mutant_runs_first_start_to_last_end": None, "witness_search": None,
                                       "after_last_run_until_report": None}
    baseline_end = max((markers[m] for m in ("Baseline, modified:", "Baseline, existing:") if m in markers),
                       default=None)
    if baseline_end is not None and "Run directory:" in markers:
        phases["baselines"] = round(baseline_end - markers["Run directory:"], 3)
    if measured:
        first = min(evm._epoch(r["start"]) for r in measured) - launched
        last = max(evm._epoch(r["end"]) for r in measured) - launched
        phases["mutant_runs_first_start_to_last_end"] = round(last - first, 3)
        if "# Elenchus evaluation" in markers:
            phases["after_last_run_until_report"] = round(markers["# Elenchus evaluation"] - last, 3)
    if "Witnesses:" in markers and "# Elenchus evaluation" in markers:
        phases["witness_search"] = round(markers["# Elenchus evaluation"] - markers["Witnesses:"], 3)
    result.update({
        "mutants_challenged": len(mutations),
        "mutants_beyond_budget": len(report.get("not_challenged", [])),
        "mutants_rejected": len(report.get("rejected", [])),
        "runs": len(records),
        "runs_measured": len(measured),
        "runs_from_cache": len(records) - len(measured),
        "runs_by_cohort": dict(Counter(r.get("cohort") for r in records)),
        "median_run_seconds": common.rounded(common.median(durations)),
        "mean_run_seconds": common.rounded(sum(durations) / len(durations)) if durations else None,
        "sum_run_seconds": common.rounded(sum(durations)) if durations else None,
        "run_outcomes": dict(Counter(f"{r.get('cohort')}:{r.get('outcome')}" for r in records)),
        "run_seconds_by_outcome": evm._by_outcome(measured),
        "mutation_results": dict(Counter(str(m.get("result")) for m in mutations)),
        "assessments": dict(Counter(str(c.get("assessment")) for c in report.get("comparisons", []))),
        "baseline": {name: {"status": b.get("status"), "seconds": b.get("duration_seconds"),
                            "reason": b.get("reason")} for name, b in report.get("baseline", {}).items()},
        "isolation": (report.get("isolation") or {}).get("kind"),
        "selected_tests": selected_from(report),
        "source_roots": report.get("execution", {}).get("source_roots"),
        "test_command": report.get("execution", {}).get("test_command"),
        "runs_with_tests_field": sum(1 for r in records if isinstance(r.get("tests"), list)),
        "phases_seconds": phases,
        "progress_markers_seconds": markers,
        "timeouts": [{"cohort": r.get("cohort"), "mutant": r.get("mutant_id")} for r in records
                     if r.get("outcome") == "timeout"],
        "verdicts": sorted([c.get("mutation_id"), c.get("assessment")] for c in report.get("comparisons", [])),
        "records": records,  # dropped before writing; (c) reads them
    })
    return result


# -- mutmut -----------------------------------------------------------------------------------


def run_mutmut(tools: Tools, repo: Path, where: Path, change: dict, tests: list[str], restrict: bool) -> dict:
    """``mutmut run --max-children JOBS [GLOB...]`` in a ``git archive`` copy of Head.

    ``change`` needs ``production_files`` (and ``functions`` when ``restrict``: mutant-name globs
    for the changed functions, computed by ``evaluate_vs_mutmut.mutmut_selection`` under the mutmut
    Python). ``tests`` are the test files Elenchus selected.
    """
    copy = common.export_head(repo, where)
    result: dict = {"max_children": JOBS}
    globs: list[str] = []
    if restrict:
        selection = python_json(tools.mutmut_python,
                                "from pathlib import Path\nimport evaluate_vs_mutmut as e\n"
                                f"print(json.dumps(e.mutmut_selection(Path({str(copy)!r}), json.loads({json.dumps(change)!r}))))",
                                base_env(), where.parent)
        globs, mapping = selection  # type: ignore[misc]
        result.update({"mutant_name_globs": globs, "changed_function_mapping": mapping})
        if not globs:
            result["error"] = "none of the changed functions is a top-level function or method mutmut 3 mutates"
            return result
    result["config"] = evm.configure_mutmut(copy, change, tests)
    script = Path(tools.mutmut_python).with_name("mutmut")
    argv = ([str(script)] if script.exists() else [tools.mutmut_python, "-m", "mutmut"]) + \
        ["run", "--max-children", str(JOBS), *globs]
    result["command"] = f"mutmut run --max-children {JOBS}" + "".join(f" '{g}'" for g in globs)
    print(f"  $ (in {copy}) {result['command'][:200]}", flush=True)
    idle = wait_for_idle()
    meter = Meter()
    streamed = evm.stream(argv, copy, dict(base_env(), PYTHONUNBUFFERED="1"), evm.MUTMUT_MARKERS)
    result["machine_during"] = {**idle, **meter.read()}
    print(f"    exit {streamed['exit_code']}, {streamed['wall_seconds']} s; CPU s: ours "
          f"{result['machine_during'].get('own_cpu_seconds')}, others' "
          f"{result['machine_during'].get('other_cpu_seconds')}", flush=True)
    result.update({"exit_code": streamed["exit_code"], "wall_seconds": streamed["wall_seconds"],
                   "progress_markers_seconds": streamed["markers"]})
    progress = [line for line in streamed["lines"] if evm.PROGRESS.match(line)]
    result["last_progress_line"] = progress[-1] if progress else None
    result["stdout_last_lines"] = [line for line in streamed["lines"] if not evm.PROGRESS.match(line)][-6:]

    statuses_by_code = python_json(tools.mutmut_python,
                                   "from mutmut.stats import status_by_exit_code as s\n"
                                   "print(json.dumps({str(k): v for k, v in s.items()}))", base_env(), where.parent)
    assert isinstance(statuses_by_code, dict)
    pattern = re.compile("|".join(re.escape(g).replace(r"\*", ".*") for g in globs)) if globs else None
    codes: dict[str, int | None] = {}
    durations: list[float] = []
    generated = 0
    for meta in (copy / "mutants").rglob("*.meta"):
        data = json.loads(meta.read_text())
        by_key = data.get("exit_code_by_key", {})
        generated += len(by_key)
        for key, code in by_key.items():
            if pattern is None or pattern.fullmatch(key):
                codes[key] = code
                if key in data.get("durations_by_key", {}):
                    durations.append(data["durations_by_key"][key])
    markers = streamed["markers"]
    order = [m for m in evm.MUTMUT_MARKERS if m in markers]
    phases = {here: round((markers[there] if there in markers else streamed["wall_seconds"]) - markers[here], 3)
              for here, there in zip(order, order[1:] + ["<exit>"])}
    run = sum(1 for c in codes.values() if c is not None)
    result.update({
        "mutants_generated_in_files": generated,
        "mutants_selected": len(codes),
        "mutants_run": run,
        "statuses": dict(Counter(statuses_by_code.get(str(c), f"exit {c}") for c in codes.values())),
        "median_mutant_seconds": common.rounded(common.median(durations)),
        "mean_mutant_seconds": common.rounded(sum(durations) / len(durations)) if durations else None,
        "phase_seconds": phases,
    })
    shutil.rmtree(copy / "mutants", ignore_errors=True)
    return result


def side_by_side(elenchus: dict, mutmut: dict) -> dict:
    e_mutants, m_mutants = elenchus.get("mutants_challenged"), mutmut.get("mutants_run")
    e_wall, m_wall = elenchus.get("wall_seconds"), mutmut.get("wall_seconds")
    e_per, m_per = per(e_wall, e_mutants), per(m_wall, m_mutants)
    return {
        "elenchus": {"mutants": e_mutants, "runs": elenchus.get("runs"), "wall_seconds": e_wall,
                     "wall_seconds_per_mutant": e_per, "wall_seconds_per_run": per(e_wall, elenchus.get("runs"))},
        "mutmut": {"mutants": m_mutants, "wall_seconds": m_wall, "wall_seconds_per_mutant": m_per},
        "ratio_wall_elenchus_to_mutmut": ratio(e_wall, m_wall),
        "ratio_per_mutant_elenchus_to_mutmut": ratio(e_per, m_per),
    }


# -- (a) and (b) ----------------------------------------------------------------------------


def figure_a(tools: Tools, scratch: Path, downloads: Path) -> dict:
    name, version, target = ISODATE
    print(f"\n== (a) {name} {version}, --scope target --target {target}", flush=True)
    built = build_isodate(scratch, downloads)
    repo = built["path"]
    arguments = ["--repo", str(repo), "--scope", "target", "--target", target, "--budget", str(TARGET_BUDGET),
                 "--jobs", str(JOBS), "--fresh", *(["--exhaustive"] if TARGET_EXHAUSTIVE else [])]
    elenchus = evaluate(tools, arguments, scratch / "elenchus-runs", scratch)
    tests = elenchus.get("selected_tests") or []
    mutmut = run_mutmut(tools, repo, scratch / "mutmut-head", {"production_files": [target]}, tests, restrict=False) \
        if tests else {"error": "Elenchus selected no tests (no report.json?)"}
    return {"project": name, "release": version, "target": target, "sdists": built["sdists"],
            "repository": {"path": str(repo), "base_sha": built["base_sha"], "head_sha": built["head_sha"],
                           "second_commit": "adds BENCHMARK.txt only"},
            "arguments": arguments, "summary": side_by_side(elenchus, mutmut), "elenchus": elenchus,
            "mutmut": mutmut}


def figure_b(tools: Tools, scratch: Path, downloads: Path) -> dict:
    name, base, head = MORE_ITERTOOLS
    print(f"\n== (b) {name} {base} -> {head}, --scope current-change", flush=True)
    built = evm.build_repository(name, base, head, scratch, downloads)
    repo = built["path"]
    env = elenchus_env(tools, scratch / "discovery-runs")
    change = python_json(tools.elenchus_python,
                         "from pathlib import Path\nimport evaluate_vs_mutmut as e\n"
                         f"print(json.dumps(e.discover_change(Path({str(repo)!r}))))", env, scratch)
    assert isinstance(change, dict)
    print(f"  changed production files: {', '.join(change['production_files'])}; "
          f"changed functions: {len(change['functions'])}", flush=True)
    arguments = ["--repo", str(repo), "--scope", "current-change", "--budget", str(CHANGE_BUDGET),
                 "--jobs", str(JOBS), "--fresh"]
    elenchus = evaluate(tools, arguments, scratch / "elenchus-runs", scratch)
    tests = elenchus.get("selected_tests") or change["selected_tests"]
    mutmut = run_mutmut(tools, repo, scratch / "mutmut-head", change, tests, restrict=True)
    return {"project": name, "releases": {"base": base, "head": head}, "sdists": built["sdists"],
            "repository": {"path": str(repo), "base_sha": built["base_sha"], "head_sha": built["head_sha"]},
            "change": {"production_files": change["production_files"], "functions": len(change["functions"]),
                       "tests_modified": change["tests_modified"], "tests_added": change["tests_added"],
                       "selected_tests": change["selected_tests"]},
            "arguments": arguments, "summary": side_by_side(elenchus, mutmut), "elenchus": elenchus,
            "mutmut": mutmut}


# -- (c) per run against bare pytest -------------------------------------------------------


def pytest_counts(output: str) -> dict[str, int]:
    last = [line for line in output.strip().splitlines() if SUMMARY_LINE.search(line)]
    return {kind: int(n) for n, kind in SUMMARY_LINE.findall(last[-1])} if last else {}


def fresh_pytest(python: str, repo: Path, where: Path, tests: list[str], roots: list[str]) -> dict:
    times, codes, counts = [], [], []
    idle = wait_for_idle()
    meter = Meter()
    for number in range(BARE_REPEAT):
        copy = common.export_head(repo, where / f"fresh-{number}")
        env = dict(base_env(), PYTHONDONTWRITEBYTECODE="1",
                   PYTHONPATH=os.pathsep.join(str(copy / r) if r != "." else str(copy) for r in roots))
        seconds, code, tail = evm.run_quiet([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], copy, env)
        times.append(round(seconds, 3))
        codes.append(code)
        counts.append(pytest_counts(tail))
        shutil.rmtree(copy, ignore_errors=True)
    return {"python": python, "seconds": times, "median_seconds": common.rounded(common.median(times)),
            "exit_codes": codes, "counts_last_repetition": counts[-1] if counts else None,
            "machine_during": {**idle, **meter.read()}}


def figure_c(tools: Tools, evaluation: dict, repo: Path, scratch: Path, max_sets: int) -> dict:
    records = [r for r in evaluation.get("records", []) if not r.get("cached") and r.get("duration") is not None]
    if not records:
        return {"error": "no measured runs in runs.jsonl", "runs": 0}
    selected = evaluation.get("selected_tests") or []
    roots = evaluation.get("source_roots") or ["."]
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        tests = record.get("tests")
        key = ("tests field", *tests) if isinstance(tests, list) else ("selected test files", *selected)
        groups.setdefault(key, []).append(record)
    ordered = sorted(groups.items(), key=lambda item: -len(item[1]))
    sets = []
    run_ratios: list[float] = []
    for index, (key, group) in enumerate(ordered):
        source, tests = key[0], list(key[1:])
        durations = [r["duration"] for r in group]
        entry: dict = {"source": source, "tests_count": len(tests), "tests": tests if len(tests) <= 20 else
                       tests[:20] + [f"... {len(tests) - 20} more"], "runs": len(group),
                       "runs_by_cohort": dict(Counter(r.get("cohort") for r in group)),
                       "median_run_seconds": common.rounded(common.median(durations)),
                       "median_tests_executed_per_run": common.median(
                           [(r.get("tests_passed") or 0) + (r.get("tests_failed") or 0) for r in group]),
                       "fresh_pytest": None}
        if index < max_sets and tests:
            print(f"  fresh pytest, set {index + 1}/{min(len(ordered), max_sets)} ({len(tests)} tests/files, "
                  f"{len(group)} runs)", flush=True)
            entry["fresh_pytest"] = [fresh_pytest(python, repo, scratch / f"set-{index}", tests, roots)
                                     for python in tools.bare_pythons]
            first = entry["fresh_pytest"][0]["median_seconds"]
            entry["ratio_median_run_to_fresh_pytest"] = [ratio(entry["median_run_seconds"], f["median_seconds"])
                                                         for f in entry["fresh_pytest"]]
            if first:
                run_ratios += [d / first for d in durations]
        elif not tests:
            entry["note"] = "no tests: nothing to time"
        sets.append(entry)
    durations = [r["duration"] for r in records]
    single = sets[0] if len(sets) == 1 and sets[0]["fresh_pytest"] else None
    return {
        "runs": len(records),
        "runs_with_tests_field": sum(1 for r in records if isinstance(r.get("tests"), list)),
        "test_sets": len(sets),
        "test_sets_timed": sum(1 for s in sets if s["fresh_pytest"]),
        "median_run_seconds": common.rounded(common.median(durations)),
        "fresh_pytest_median_seconds": [f["median_seconds"] for f in single["fresh_pytest"]] if single else None,
        "bare_pythons": tools.bare_pythons,
        "ratio_median_run_to_fresh_pytest": single["ratio_median_run_to_fresh_pytest"] if single else None,
        "median_of_per_run_ratios_to_first_bare_python": common.rounded(common.median(run_ratios)),
        "source_roots_on_pythonpath": roots,
        "sets": sets,
    }


# -- (d) reruns --------------------------------------------------------------------------------


def figure_d(tools: Tools, firsts: dict[str, tuple[dict, list[str], Path, Path]], isodate: Path | None,
             scratch: Path, out: dict) -> dict:
    """Reruns of (a) and (b) in their own ELENCHUS_RUNS_DIR, and evaluations with nothing to evaluate.

    ``--fresh`` neither reads nor writes the result cache, so the first rerun without it finds
    the cache empty (it measures everything again and fills the cache); the second one is the
    unchanged rerun that reuses the results. The quick evaluations with nothing to evaluate go
    first; ``out`` is filled as each finishes (an interrupted run still writes what was measured).
    """
    if isodate is not None:
        print("\n== (d) nothing changed between Base and Head (isodate, BENCHMARK.txt only)", flush=True)
        for key, extra in (("nothing_changed_current_change", []),
                           ("empty_diff_base_head_equal", ["--base", "HEAD", "--head", "HEAD"])):
            arguments = ["--repo", str(isodate), *extra, "--scope", "current-change", "--budget",
                         str(CHANGE_BUDGET), "--jobs", str(JOBS), "--fresh"]
            done = evaluate(tools, arguments, scratch / f"runs-{key}", scratch)
            out[key] = {"command": done["command"], "exit_code": done["exit_code"],
                        "wall_seconds": done["wall_seconds"], "mutants_challenged": done.get("mutants_challenged"),
                        "runs": done.get("runs"), "baseline": done.get("baseline"),
                        "stdout_first_lines": done["stdout_first_lines"][:6], "machine_during": done["machine_during"]}
    for label, (first, arguments, runs_dir, cwd) in firsts.items():
        rerun = [a for a in arguments if a != "--fresh"]
        passes: dict = {}
        out[f"rerun_{label}"] = {"command": "elenchus evaluate " + " ".join(rerun), "passes_so_far": passes}
        for turn in ("cold", "warm"):
            print(f"\n== (d) rerun of ({label}) without --fresh, same ELENCHUS_RUNS_DIR, cache {turn}", flush=True)
            again = evaluate(tools, rerun, runs_dir, cwd)
            again.pop("records", None)
            passes[turn] = {
                "exit_code": again["exit_code"], "wall_seconds": again["wall_seconds"],
                "ratio_to_first": ratio(again["wall_seconds"], first.get("wall_seconds")),
                "runs": again.get("runs"), "runs_from_cache": again.get("runs_from_cache"),
                "runs_measured": again.get("runs_measured"),
                "same_verdicts_as_first": (again.get("verdicts") == first.get("verdicts"))
                if again.get("verdicts") is not None and first.get("verdicts") is not None else None,
                "mutation_results": again.get("mutation_results"), "phases_seconds": again.get("phases_seconds"),
                "baseline": again.get("baseline"), "machine_during": again.get("machine_during"),
                "error": again.get("error")}
        out[f"rerun_{label}"] = {
            "command": "elenchus evaluate " + " ".join(rerun), "elenchus_runs_dir": str(runs_dir),
            "first_wall_seconds": first.get("wall_seconds"),
            "wall_seconds": passes["warm"]["wall_seconds"], "exit_code": passes["warm"]["exit_code"],
            "runs": passes["warm"]["runs"], "runs_from_cache": passes["warm"]["runs_from_cache"],
            "note": "wall_seconds is the warm pass (the cache filled by the cold pass); the --fresh first run "
                    "wrote no cache, so the cold pass measures everything again",
            "cold": passes["cold"], "warm": passes["warm"]}
    return out


# -- driver -------------------------------------------------------------------------------------


def print_summary(document: dict) -> None:
    figures = document["figures"]
    for key in ("a", "b"):
        if key not in figures or "summary" not in figures[key]:
            continue
        s = figures[key]["summary"]
        print(f"\n({key}) {figures[key]['project']}")
        print(common.table(["", "elenchus", "mutmut 3", "elenchus / mutmut"], [
            ["mutants", s["elenchus"]["mutants"], s["mutmut"]["mutants"], None],
            ["wall s", s["elenchus"]["wall_seconds"], s["mutmut"]["wall_seconds"], s["ratio_wall_elenchus_to_mutmut"]],
            ["wall s per mutant", s["elenchus"]["wall_seconds_per_mutant"], s["mutmut"]["wall_seconds_per_mutant"],
             s["ratio_per_mutant_elenchus_to_mutmut"]],
        ]))
    for key, c in (figures.get("c") or {}).items():
        print(f"\n(c) {key}: {c.get('runs')} runs, median {c.get('median_run_seconds')} s; fresh pytest medians "
              f"{c.get('fresh_pytest_median_seconds')} ({', '.join(Path(p).parent.parent.name + '/' + Path(p).name for p in c.get('bare_pythons') or [])}); "
              f"ratios {c.get('ratio_median_run_to_fresh_pytest')}")
    for key, d in (figures.get("d") or {}).items():
        if not isinstance(d, dict):
            continue
        print(f"(d) {key}: exit {d.get('exit_code')}, {d.get('wall_seconds')} s"
              + (f", {d.get('runs_from_cache')}/{d.get('runs')} runs from cache; first (--fresh) run "
                 f"{d.get('first_wall_seconds')} s, cold rerun {d['cold']['wall_seconds']} s"
                 if "first_wall_seconds" in d else ""))


def main() -> int:
    global TARGET_BUDGET, CHANGE_BUDGET, TARGET_EXHAUSTIVE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="a,b,c,d", help="comma-separated subset of a,b,c,d (default: all); "
                        "c and d use the evaluations of a and b from the same invocation")
    parser.add_argument("--out", type=Path, default=common.RESULTS / f"{NAME}.json")
    parser.add_argument("--label", default=None, help="free text stored in the JSON (e.g. before, after)")
    parser.add_argument("--elenchus-python", default=sys.executable,
                        help="interpreter that runs `-m elenchus` (needs Elenchus's dependencies and pytest)")
    parser.add_argument("--elenchus-path", default=None,
                        help="an Elenchus checkout put on PYTHONPATH (default: whatever the interpreter imports)")
    parser.add_argument("--mutmut-python", default=sys.executable, help="interpreter of a venv with mutmut 3")
    parser.add_argument("--bare-python", action="append", default=None,
                        help="repeatable; interpreters for (c)'s fresh pytest (default: Elenchus's, then mutmut's)")
    parser.add_argument("--max-test-sets", type=int, default=MAX_TEST_SETS,
                        help=f"(c): time at most this many distinct test sets per evaluation (default {MAX_TEST_SETS})")
    parser.add_argument("--target-budget", type=int, default=TARGET_BUDGET, help=f"(a)'s --budget (default {TARGET_BUDGET})")
    parser.add_argument("--target-exhaustive", action="store_true",
                        help="(a) with --exhaustive (mutmut's catalog too): the same or more mutants than mutmut's")
    parser.add_argument("--change-budget", type=int, default=CHANGE_BUDGET, help=f"(b)'s --budget (default {CHANGE_BUDGET})")
    parser.add_argument("--idle-busy-below", type=float, default=IDLE["busy_below"],
                        help="before each measured command wait until the CPUs are less busy than this fraction "
                             f"over 3 s (default {IDLE['busy_below']}; 1 = never wait)")
    parser.add_argument("--idle-max-wait", type=float, default=IDLE["max_wait"],
                        help=f"seconds to wait for that at most (default {IDLE['max_wait']:.0f})")
    parser.add_argument("--download-dir", type=Path, default=None, help="reuse/keep sdists here")
    parser.add_argument("--work-dir", type=Path, default=None,
                        help="build repositories and run directories here and keep them (default: a temp dir, removed)")
    args = parser.parse_args()
    only = {part.strip() for part in args.only.split(",") if part.strip()}
    if not only <= {"a", "b", "c", "d"}:
        parser.error("--only takes a comma-separated subset of a,b,c,d")
    if args.elenchus_path:
        args.elenchus_path = str(Path(args.elenchus_path).resolve())
    bare = args.bare_python or list(dict.fromkeys([args.elenchus_python, args.mutmut_python]))
    TARGET_BUDGET, CHANGE_BUDGET, TARGET_EXHAUSTIVE = args.target_budget, args.change_budget, args.target_exhaustive
    IDLE.update(busy_below=args.idle_busy_below, max_wait=args.idle_max_wait)
    tools = Tools(args.elenchus_python, args.elenchus_path, args.mutmut_python, bare)

    work = args.work_dir.resolve() if args.work_dir else common.temp_root("elenchus-bench-speed-")
    if args.work_dir and work.exists() and any(work.iterdir()):
        parser.error(f"--work-dir {work} is not empty")
    work.mkdir(parents=True, exist_ok=True)
    downloads = (args.download_dir or work / "downloads").resolve()
    started = time.perf_counter()
    load_at_start = common.load_average()
    document: dict = {
        "benchmark": NAME,
        "label": args.label,
        "date": common.now_utc(),
        "machine": common.machine(),
        "machine_note": "machine.elenchus_* describe the checkout holding this script; "
                        "elenchus_under_test is the code that was measured",
        "elenchus_under_test": elenchus_identity(tools, work),
        "mutmut_environment": {"python": tools.mutmut_python, **tool_versions(tools.mutmut_python, work)},
        "elenchus_environment": tool_versions(tools.elenchus_python, work),
        "load_average_at_start": load_at_start,
        "settings": {"jobs": JOBS, "target_budget": TARGET_BUDGET, "target_exhaustive": TARGET_EXHAUSTIVE,
                     "change_budget": CHANGE_BUDGET,
                     "bare_repeat": BARE_REPEAT, "max_test_sets": args.max_test_sets, "only": sorted(only),
                     "idle_wait": dict(IDLE)},
        "figures": {},
    }
    print(f"Elenchus under test: {document['elenchus_under_test']['imported_from']} "
          f"({document['elenchus_under_test']['commit']}); mutmut {document['mutmut_environment']['mutmut']}")
    figures = document["figures"]
    evaluations: dict[str, tuple[dict, Path]] = {}
    firsts: dict[str, tuple[dict, list[str], Path, Path]] = {}
    isodate_repo = None
    try:
        if "a" in only:
            a = figure_a(tools, work / "a-isodate", downloads)
            figures["a"] = a
            evaluations["a"] = (a["elenchus"], Path(a["repository"]["path"]))
            firsts["a"] = (a["elenchus"], a["arguments"], Path(a["elenchus"]["elenchus_runs_dir"]), work / "a-isodate")
            isodate_repo = Path(a["repository"]["path"])
        if "b" in only:
            b = figure_b(tools, work / "b-more-itertools", downloads)
            figures["b"] = b
            evaluations["b"] = (b["elenchus"], Path(b["repository"]["path"]))
            firsts["b"] = (b["elenchus"], b["arguments"], Path(b["elenchus"]["elenchus_runs_dir"]),
                           work / "b-more-itertools")
        if "c" in only:
            figures["c"] = {}
            for key, (evaluation, repo) in evaluations.items():
                print(f"\n== (c) per run against fresh pytest, ({key})", flush=True)
                figures["c"][key] = figure_c(tools, evaluation, repo, work / f"c-{key}", args.max_test_sets)
            if not evaluations:
                figures["c"]["error"] = "(c) reads the evaluations of (a) and (b): run it with a and/or b"
        if "d" in only:
            if isodate_repo is None:
                isodate_repo = build_isodate(work / "d-isodate", downloads)["path"]
            figures["d"] = {}
            figure_d(tools, firsts, isodate_repo, work / "d", figures["d"])
            if not firsts:
                figures["d"]["note"] = "no rerun: (d) reruns the evaluations of (a) and (b) from the same invocation"
    finally:
        for figure in ("a", "b"):
            if figure in figures:
                figures[figure]["elenchus"].pop("records", None)
        document["load_average_at_end"] = common.load_average()
        document["total_wall_seconds"] = round(time.perf_counter() - started, 1)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
    print_summary(document)
    print(f"\nload average (1/5/15 min) at start {load_at_start}, at end {document['load_average_at_end']}; "
          f"total {document['total_wall_seconds']} s")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
