"""`elenchus evaluate` on a real change of a real PyPI project, side by side with mutmut 3.

For each project (default: ``parse`` 1.20.1 -> 1.20.2) the script downloads the two
consecutive releases' sdists, builds a git repository whose first commit is release N and
whose second commit is release N+1 (the real change), and then:

(a) runs ``elenchus evaluate --repo REPO --scope current-change --budget 16 --jobs 2`` with
    ``ELENCHUS_RUNS_DIR`` (and so the result cache) in a fresh temp dir, timing the wall
    clock and time-stamping its progress lines; reads ``report.json`` and ``runs.jsonl`` from
    the printed run directory; and times a bare ``python -m pytest -q <selected test files>``
    in a copy of the Head tree (3 times, median) for the per-run ratio. To show where a run's
    time goes it also times the same tests (3 times each) as Elenchus runs them (fresh copy,
    no bytecode cache, no pytest cache), two bare runs at once (as ``--jobs 2`` does), and
    through ``elenchus.execution.run.run_pytest`` on its own (the recorder plugin, sequential);

(b) runs ``mutmut run`` (mutmut 3) in a separate copy of the Head tree, restricted by
    ``[tool.mutmut]`` to the changed production files (``only_mutate``), to the same
    selected test files (``pytest_add_cli_args_test_selection``), and, by mutant-name globs
    on the command line, to the changed functions and methods Elenchus discovered.

Nothing is installed: the projects are pure Python and importable from the root of the
checkout (Elenchus runs pytest with the workspace as the current directory, and
``python -m pytest`` puts the current directory on ``sys.path``; mutmut puts its
``mutants/`` copy first on ``sys.path``).

Run: ``python benchmarks/evaluate_vs_mutmut.py [--project parse] [--project more-itertools]``.
Writes ``benchmarks/results/evaluate_vs_mutmut.json``.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import datetime
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

NAME = "evaluate_vs_mutmut"

# Two consecutive releases each; both ship their tests in the sdist and run under plain pytest.
PROJECTS = {
    "parse": ("1.20.1", "1.20.2"),  # 3 functions changed (hyphens in field names) + 2 new tests
    # 63 functions changed in 2 modules; a ~15 s test suite. (10.6.0 -> 10.7.0 is baseline-red for
    # Elenchus: the old OneTests::test_too_short fails against the new `one`, so nothing is classified.)
    "more-itertools": ("10.7.0", "10.8.0"),
}
BUDGET = 16
JOBS = 2
BARE_REPEAT = 3
EXCERPT_LINES = 40

SPINNER = re.compile(r"^[\u2800-\u28ff]\s*")
PROGRESS = re.compile(r"^\s*\d+/\d+\s")


# -- processes with time-stamped output -------------------------------------------


def stream(argv: list[str], cwd: Path, env: dict[str, str], markers: tuple[str, ...]) -> dict:
    """Run ``argv`` and record the seconds (from launch) at which each marker first appears.

    Output is split on both newlines and carriage returns (mutmut redraws a spinner with
    ``\\r``); spinner glyphs are stripped and repeated lines collapsed.
    """
    seen: dict[str, float] = {}
    lines: list[str] = []
    launched_epoch = time.time()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    pending = b""
    assert proc.stdout is not None
    while True:
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        now = time.perf_counter() - start
        pending += chunk
        parts = re.split(rb"[\r\n]", pending)
        pending = parts.pop()
        for raw in parts:
            text = SPINNER.sub("", raw.decode("utf-8", "replace")).rstrip()
            if not text.strip():
                continue
            for marker in markers:
                if marker not in seen and marker in text:
                    seen[marker] = round(now, 3)
            if not lines or lines[-1] != text:
                lines.append(text)
    if pending.strip():
        lines.append(SPINNER.sub("", pending.decode("utf-8", "replace")).rstrip())
    code = proc.wait()
    wall = time.perf_counter() - start
    return {"exit_code": code, "wall_seconds": round(wall, 3), "markers": seen, "lines": lines,
            "launched_epoch": launched_epoch}


def run_quiet(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode, (done.stdout + done.stderr)[-1500:]


# -- the repository ---------------------------------------------------------------


def build_repository(name: str, base: str, head: str, scratch: Path, downloads: Path) -> dict:
    trees = {}
    for version in (base, head):
        archive = common.download_sdist(name, version, downloads)
        trees[version] = (archive.name, common.unpack_sdist(archive, scratch / "unpacked" / version))
    repo = scratch / "repo"
    common.init_repo(repo)
    common.replace_tree(repo, trees[base][1])
    base_sha = common.commit_all(repo, f"{name} {base}")
    common.replace_tree(repo, trees[head][1])
    head_sha = common.commit_all(repo, f"{name} {head}")
    return {"path": repo, "base_sha": base_sha, "head_sha": head_sha,
            "sdists": [trees[base][0], trees[head][0]]}


def discover_change(repo: Path) -> dict:
    """Changed production files and functions, as Elenchus's own discovery sees them."""
    from elenchus.repo.session import open_session

    with open_session(repo, None, None) as session:
        change = session.change
        production = [f.path for f in change.files if f.kind == "production" and f.status != "deleted"]
        functions = [
            {"path": fn.path, "qualname": fn.qualname, "status": fn.status}
            for fn in change.functions
            if fn.path in production and fn.status != "deleted"
        ]
        return {"production_files": production, "functions": functions,
                "tests_added": list(change.tests_added), "tests_modified": list(change.tests_modified),
                "related_tests": list(change.related_tests),
                # what Elenchus selects (cohorts.selected_tests): related tests plus every changed test
                "selected_tests": sorted(set(change.related_tests) | set(change.paths("test")))}


# -- (a) Elenchus --------------------------------------------------------------------


ELENCHUS_MARKERS = ("Scope:", "Run directory:", "Baseline: running the modified", "Baseline, modified:",
                    "Baseline: running the existing", "Baseline, existing:", "# Elenchus evaluation")


def elenchus_argv(repo: Path) -> list[str]:
    script = Path(sys.executable).with_name("elenchus")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "elenchus"]
    return command + ["evaluate", "--repo", str(repo), "--scope", "current-change",
                      "--budget", str(BUDGET), "--jobs", str(JOBS)]


def _epoch(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


def run_elenchus(repo: Path, scratch: Path) -> dict:
    env = dict(os.environ, ELENCHUS_RUNS_DIR=str(scratch / "elenchus-runs"), PYTHONUNBUFFERED="1")
    argv = elenchus_argv(repo)
    print(f"  $ elenchus {' '.join(argv[argv.index('evaluate'):])}")
    streamed = stream(argv, scratch, env, ELENCHUS_MARKERS)
    lines = streamed["lines"]
    run_dir = next((Path(line.split("Run directory:", 1)[1].strip()) for line in lines
                    if line.startswith("Run directory:")), None)
    result: dict = {
        "command": "elenchus " + " ".join(argv[argv.index("evaluate"):]),
        "exit_code": streamed["exit_code"],
        "wall_seconds": streamed["wall_seconds"],
        "run_directory_found": run_dir is not None,
        "stdout_first_lines": lines[:12],
        "stdout_last_lines": lines[-8:] if streamed["exit_code"] != 0 else None,
    }
    scope_section = _section(lines, "## Evaluation Scope")
    result["report_summary_excerpt"] = scope_section[:EXCERPT_LINES]
    if run_dir is None or not (run_dir / "report.json").is_file():
        result["error"] = "no report.json: " + " | ".join(lines[-15:])
        return result

    report = json.loads((run_dir / "report.json").read_text())
    runs = [json.loads(line) for line in (run_dir / "runs.jsonl").read_text().splitlines() if line.strip()] \
        if (run_dir / "runs.jsonl").is_file() else []
    measured = [r for r in runs if not r.get("cached")]
    durations = [r["duration"] for r in measured if r.get("duration") is not None]
    test_command = report.get("execution", {}).get("test_command", "")
    selected = test_command.split("pytest ", 1)[1].split(" (with", 1)[0].split() if "pytest " in test_command else []

    launched = streamed["launched_epoch"]
    markers = streamed["markers"]
    phases: dict[str, float | None] = {k: None for k in (
        "setup_until_scope_line", "baselines", "baselines_end_to_first_mutant_run", "mutant_runs",
        "after_last_run_until_report")}
    if measured:
        first_start = min(_epoch(r["start"]) for r in measured) - launched
        last_end = max(_epoch(r["end"]) for r in measured) - launched
        phases["mutant_runs"] = round(last_end - first_start, 3)
        baseline_end = max((markers[m] for m in ("Baseline, modified:", "Baseline, existing:") if m in markers),
                           default=None)
        if baseline_end is not None:
            phases["baselines_end_to_first_mutant_run"] = round(first_start - baseline_end, 3)
        if "# Elenchus evaluation" in markers:
            phases["after_last_run_until_report"] = round(markers["# Elenchus evaluation"] - last_end, 3)
    if "Scope:" in markers:
        phases["setup_until_scope_line"] = markers["Scope:"]
        baseline_end = max((markers[m] for m in ("Baseline, modified:", "Baseline, existing:") if m in markers),
                           default=None)
        if baseline_end is not None:
            phases["baselines"] = round(baseline_end - markers.get("Run directory:", markers["Scope:"]), 3)

    mutant_phase = phases["mutant_runs"]
    overhead = None
    if mutant_phase and measured:
        overhead = (JOBS * mutant_phase - sum(durations)) / len(measured)

    mutations = report.get("mutations", [])
    result.update({
        "run_directory": str(run_dir),
        "mutants_challenged": len(mutations),
        "mutants_beyond_budget": len(report.get("not_challenged", [])),
        "mutants_rejected": len(report.get("rejected", [])),
        "mutant_runs": len(measured),
        "mutant_runs_reused_from_cache": len(runs) - len(measured),
        "mean_run_seconds": common.rounded(sum(durations) / len(durations)) if durations else None,
        "median_run_seconds": common.rounded(common.median(durations)),
        "min_run_seconds": common.rounded(min(durations)) if durations else None,
        "max_run_seconds": common.rounded(max(durations)) if durations else None,
        "per_run_overhead_outside_pytest_seconds": common.rounded(overhead),
        "phases_seconds": phases,
        "progress_markers_seconds": markers,
        "run_outcomes": dict(Counter(f"{r['cohort']}:{r['outcome']}" for r in runs)),
        "mutation_results": dict(Counter(str(m.get("result")) for m in mutations)),
        "assessments": dict(Counter(c.get("assessment") for c in report.get("comparisons", []))),
        "mutated_symbols": dict(Counter(m["location"]["symbol"] for m in mutations)),
        "baseline_seconds": {name: b.get("duration_seconds") for name, b in report.get("baseline", {}).items()},
        "timeouts": [{"cohort": r["cohort"], "mutant": r["mutant_id"]} for r in runs if r["outcome"] == "timeout"],
        "run_seconds_by_outcome": _by_outcome(measured),
        "runs_neither_killed_nor_survived": [
            {"cohort": r["cohort"], "mutant": r["mutant_id"], "outcome": r["outcome"], "duration": r.get("duration"),
             "reason": r.get("reason")} for r in runs if r["outcome"] not in ("killed", "survived")],
        "baseline_reasons": {name: b.get("reason") for name, b in report.get("baseline", {}).items()},
        "report_notes": report.get("notes"),
        "selected_tests": selected,
        "test_command": test_command,
        "post_flight": report.get("post_flight"),
    })
    return result


def _by_outcome(runs: list[dict]) -> dict:
    """Per outcome: how many runs, their mean and median seconds, and the mean of failed tests."""
    groups: dict[str, list[dict]] = {}
    for run in runs:
        groups.setdefault(run["outcome"], []).append(run)
    out = {}
    for outcome, group in sorted(groups.items()):
        seconds = [r["duration"] for r in group if r.get("duration") is not None]
        failed = [r["tests_failed"] for r in group if r.get("tests_failed") is not None]
        out[outcome] = {"runs": len(group),
                        "mean_seconds": common.rounded(sum(seconds) / len(seconds)) if seconds else None,
                        "median_seconds": common.rounded(common.median(seconds)),
                        "mean_tests_failed": round(sum(failed) / len(failed), 1) if failed else None}
    return out


def _section(lines: list[str], heading: str) -> list[str]:
    if heading not in lines:
        return []
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


# -- bare pytest, and the same tests as Elenchus runs them -----------------------------------


def _elenchus_disabled_plugins(tree: Path, tests: list[str]) -> tuple[str, ...]:
    """The autoloaded pytest plugins Elenchus's cohorts switch off for these tests (if it does)."""
    try:
        from elenchus.execution.cohorts import unneeded_plugins
    except ImportError:
        return ()
    return tuple(unneeded_plugins(tree, tuple(tests)))


def bare_runs(repo: Path, scratch: Path, tests: list[str]) -> dict:
    """Seconds for the selected tests under four conditions, ``BARE_REPEAT`` times each."""
    python = sys.executable
    out: dict = {"tests": tests}

    # 1. the ratio's denominator: `python -m pytest -q FILES` in one copy of the Head tree
    copy = common.export_head(repo, scratch / "bare-head")
    times, codes = [], []
    for _ in range(BARE_REPEAT):
        seconds, code, tail = run_quiet([python, "-m", "pytest", "-q", *tests], copy)
        times.append(seconds)
        codes.append(code)
    out["bare"] = {"command": "python -m pytest -q " + " ".join(tests), "seconds": [round(t, 3) for t in times],
                   "median_seconds": common.rounded(common.median(times)), "exit_codes": codes,
                   "last_output": tail.strip().splitlines()[-1:] if tail.strip() else [],
                   "note": "one copy of the Head tree; the first repetition writes __pycache__ and .pytest_cache; "
                           "every pytest plugin installed in the environment autoloads"}

    # 2. like for like: what Elenchus runs, minus Elenchus -- a fresh copy each time, no bytecode
    #    cache, no pytest cache, and the autoloaded plugins Elenchus switches off switched off too
    disabled = _elenchus_disabled_plugins(copy, tests)
    blocked = [arg for name in disabled for arg in ("-p", f"no:{name}")]
    like_for_like = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *blocked, *tests]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    times = []
    for number in range(BARE_REPEAT):
        fresh = common.export_head(repo, scratch / f"bare-fresh-{number}")
        times.append(run_quiet(like_for_like, fresh, env)[0])
        shutil.rmtree(fresh, ignore_errors=True)
    out["bare_like_elenchus"] = {
        "command": "PYTHONDONTWRITEBYTECODE=1 python -m pytest -q -p no:cacheprovider "
                   + " ".join(blocked + tests) + "  (fresh copy each time)",
        "disabled_plugins": list(disabled),
        "seconds": [round(t, 3) for t in times], "median_seconds": common.rounded(common.median(times))}

    # 3. two like-for-like runs at once, as --jobs 2 runs two mutants at once
    times = []
    for round_number in range(BARE_REPEAT):
        results: list[float] = []
        copies = [common.export_head(repo, scratch / f"bare-pair-{round_number}-{i}") for i in range(2)]

        def one(where: Path) -> None:
            results.append(run_quiet(like_for_like, where, env)[0])

        threads = [threading.Thread(target=one, args=(where,)) for where in copies]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        times.extend(results)
        for where in copies:
            shutil.rmtree(where, ignore_errors=True)
    out["bare_like_elenchus_two_at_once"] = {"seconds": [round(t, 3) for t in times],
                                             "median_seconds": common.rounded(common.median(times))}

    # 4. Elenchus's own runner (bootstrap + recorder plugin), one at a time, fresh copies
    from elenchus.execution.run import run_pytest

    times = []
    for number in range(BARE_REPEAT):
        fresh = common.export_head(repo, scratch / f"elenchus-runner-{number}")
        try:
            result = run_pytest(fresh, tests, None, disabled_plugins=disabled)
        except TypeError:  # an Elenchus without the disabled_plugins parameter
            result = run_pytest(fresh, tests, None)
        times.append(result.duration)
        shutil.rmtree(fresh, ignore_errors=True)
    out["elenchus_runner_sequential"] = {"seconds": [round(t, 3) for t in times],
                                          "median_seconds": common.rounded(common.median(times))}
    return out


def time_planning(repo: Path) -> dict:
    """`elenchus changes` (session: snapshots, discovery) and `elenchus mutants` (plus mutant planning)."""
    script = Path(sys.executable).with_name("elenchus")
    base = [str(script)] if script.exists() else [sys.executable, "-m", "elenchus"]
    changes = run_quiet(base + ["changes", "--repo", str(repo)], repo.parent)
    mutants = run_quiet(base + ["mutants", "--repo", str(repo), "--scope", "current-change",
                                "--budget", str(BUDGET)], repo.parent)
    return {"elenchus_changes_seconds": round(changes[0], 3), "elenchus_changes_exit": changes[1],
            "elenchus_mutants_seconds": round(mutants[0], 3), "elenchus_mutants_exit": mutants[1]}


# -- (b) mutmut ------------------------------------------------------------------------


MUTMUT_MARKERS = ("Generating mutants", "done in", "Running stats", "Running clean tests",
                  "Running forced fail test", "Running mutation testing", "mutations/second")


def _top_level(tree: ast.Module) -> tuple[dict[str, ast.AST], dict[str, dict[str, ast.AST]]]:
    functions: dict[str, ast.AST] = {}
    classes: dict[str, dict[str, ast.AST]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            classes[node.name] = {n.name: n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return functions, classes


def mutmut_selection(head: Path, change: dict) -> tuple[list[str], list[dict]]:
    """Mutant-name globs for the changed functions, and how each changed function maps to one."""
    from mutmut.mutation.trampoline_templates import mangle_function_name
    from mutmut.utils.format_utils import get_mutant_name

    globs: list[str] = []
    mapping: list[dict] = []
    parsed: dict[str, tuple] = {}
    for fn in change["functions"]:
        path = fn["path"]
        if path not in parsed:
            parsed[path] = _top_level(ast.parse((head / path).read_text(encoding="utf-8")))
        functions, classes = parsed[path]
        parts = fn["qualname"].split(".")
        mangled = None
        how = None
        if parts[0] in functions:
            mangled = mangle_function_name(name=parts[0], class_name=None)
            how = "top-level function" if len(parts) == 1 else f"nested in top-level function {parts[0]}"
        elif parts[0] in classes and len(parts) >= 2 and parts[1] in classes[parts[0]]:
            mangled = mangle_function_name(name=parts[1], class_name=parts[0])
            how = "method of a top-level class" if len(parts) == 2 else f"nested in method {parts[0]}.{parts[1]}"
        else:
            how = "not a top-level function or method (e.g. defined inside a module-level try/if)"
        pattern = None
        if mangled is not None:
            pattern = get_mutant_name(Path(path), mangled) + "__mutmut_*"
            if pattern not in globs:
                globs.append(pattern)
        mapping.append({**fn, "mutmut_glob": pattern, "how": how})
    return globs, mapping


def _source_paths(production: list[str]) -> list[str]:
    paths: list[str] = []
    for path in production:
        first = PurePosixPath(path).parts[0]
        entry = first if first in ("src", "source") or len(PurePosixPath(path).parts) > 1 else path
        if entry not in paths:
            paths.append(entry)
    return paths


def configure_mutmut(copy: Path, change: dict, tests: list[str]) -> dict:
    settings = {
        "source_paths": _source_paths(change["production_files"]),
        "only_mutate": list(change["production_files"]),
        "pytest_add_cli_args_test_selection": list(tests),
    }
    pyproject = copy / "pyproject.toml"
    if pyproject.is_file():
        text = pyproject.read_text(encoding="utf-8")
        if "[tool.mutmut]" in text:
            raise SystemExit(f"{pyproject} already has [tool.mutmut]; refusing to guess how to merge")
        body = "\n".join(f"{key} = {json.dumps(value)}" for key, value in settings.items())
        pyproject.write_text(text.rstrip("\n") + "\n\n[tool.mutmut]\n" + body + "\n", encoding="utf-8")
        where = "pyproject.toml [tool.mutmut]"
    else:
        cfg = copy / "setup.cfg"
        text = cfg.read_text(encoding="utf-8") if cfg.is_file() else ""
        body = "\n".join(f"{key} =\n" + "".join(f"    {v}\n" for v in value) for key, value in settings.items())
        cfg.write_text(text.rstrip("\n") + "\n\n[mutmut]\n" + body, encoding="utf-8")
        where = "setup.cfg [mutmut]"
    return {"file": where, **settings}


def run_mutmut(repo: Path, scratch: Path, change: dict, tests: list[str]) -> dict:
    from mutmut.stats import status_by_exit_code

    copy = common.export_head(repo, scratch / "mutmut-head")
    globs, mapping = mutmut_selection(copy, change)
    config = configure_mutmut(copy, change, tests)
    result: dict = {"config": config, "mutant_name_globs": globs, "changed_function_mapping": mapping,
                    "max_children": JOBS}
    if not globs:
        result["error"] = "none of the changed functions is a top-level function or method mutmut 3 mutates"
        return result
    script = Path(sys.executable).with_name("mutmut")
    argv = [str(script) if script.exists() else "mutmut", "run", "--max-children", str(JOBS), *globs]
    result["command"] = "mutmut run --max-children %d %s" % (JOBS, " ".join(f"'{g}'" for g in globs))
    print(f"  $ {result['command']}")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    streamed = stream(argv, copy, env, MUTMUT_MARKERS)
    result.update({"exit_code": streamed["exit_code"], "wall_seconds": streamed["wall_seconds"],
                   "progress_markers_seconds": streamed["markers"]})
    progress = [line for line in streamed["lines"] if PROGRESS.match(line)]
    summary = [line for line in streamed["lines"] if "mutmut_" not in line and not PROGRESS.match(line)
               and not line.strip().startswith("also copying")]
    if progress:
        summary.insert(next((i for i, line in enumerate(summary) if "mutations/second" in line), len(summary)),
                       progress[-1])
    result["stdout_excerpt"] = summary[:EXCERPT_LINES]

    keys: dict[str, int | None] = {}
    durations: dict[str, float] = {}
    generated = 0
    for meta in (copy / "mutants").rglob("*.meta"):
        data = json.loads(meta.read_text())
        generated += len(data.get("exit_code_by_key", {}))
        for key, code in data.get("exit_code_by_key", {}).items():
            if any(re.fullmatch(re.escape(g).replace(r"\*", ".*"), key) for g in globs):
                keys[key] = code
                if key in data.get("durations_by_key", {}):
                    durations[key] = data["durations_by_key"][key]
    statuses = Counter(status_by_exit_code.get(code, f"exit {code}") for code in keys.values())
    covered = Counter(k.split("__mutmut_")[0] for k in keys)
    for row in mapping:
        row["mutmut_mutants"] = covered.get(row["mutmut_glob"].split("__mutmut_")[0], 0) \
            if row["mutmut_glob"] else 0
    values = list(durations.values())
    markers = streamed["markers"]
    phases = {}
    order = [m for m in MUTMUT_MARKERS if m in markers]
    for here, there in zip(order, order[1:] + ["<exit>"]):
        phases[here] = round((markers[there] if there in markers else streamed["wall_seconds"]) - markers[here], 3)
    result.update({
        "mutants_generated_in_changed_files": generated,
        "mutants_selected": len(keys),
        "mutants_run": sum(1 for c in keys.values() if c is not None),
        "statuses": dict(statuses),
        "mean_mutant_seconds": common.rounded(sum(values) / len(values)) if values else None,
        "median_mutant_seconds": common.rounded(common.median(values)),
        "max_mutant_seconds": common.rounded(max(values)) if values else None,
        "phase_seconds": phases,
    })
    return result


# -- driver ----------------------------------------------------------------------------


def bench_project(name: str, base: str, head: str, scratch: Path, downloads: Path) -> dict:
    print(f"\n== {name} {base} -> {head}")
    built = build_repository(name, base, head, scratch, downloads)
    repo = built["path"]
    change = discover_change(repo)
    print(f"  changed production files: {', '.join(change['production_files'])}; "
          f"changed functions: {len(change['functions'])}")

    elenchus = run_elenchus(repo, scratch)
    print(f"  elenchus: exit {elenchus['exit_code']}, {elenchus['wall_seconds']} s, "
          f"{elenchus.get('mutant_runs')} runs")
    tests = elenchus.get("selected_tests") or []
    tests_source = "report.json execution.test_command"
    if not tests:  # Elenchus produced no report: fall back to the same selection rule it uses
        tests, tests_source = change["selected_tests"], "discovery (related + changed tests), no report.json"
    bare = bare_runs(repo, scratch, tests) if tests else {"error": "no selected tests"}
    bare["tests_source"] = tests_source
    mutmut = run_mutmut(repo, scratch, change, tests) if tests else {"error": "no selected tests"}
    elenchus["planning_alone"] = time_planning(repo)
    print(f"  mutmut: exit {mutmut.get('exit_code')}, {mutmut.get('wall_seconds')} s, "
          f"{mutmut.get('mutants_run')} mutants")

    mean_run = elenchus.get("mean_run_seconds")
    bare_median = (bare.get("bare") or {}).get("median_seconds")

    def ratio(denominator: float | None) -> float | None:
        return round(mean_run / denominator, 2) if mean_run and denominator else None

    return {
        "project": name,
        "releases": {"base": base, "head": head},
        "sdists": built["sdists"],
        "repository": {"base_sha": built["base_sha"], "head_sha": built["head_sha"]},
        "how_importable": "pure Python, nothing installed: pytest runs from the checkout root, which is on "
                          "sys.path (python -m pytest / Elenchus's python -c bootstrap; mutmut inserts mutants/)",
        "change": change,
        "elenchus": elenchus,
        "bare_pytest": bare,
        "ratios": {
            "elenchus_mean_run_to_bare_median": ratio(bare_median),
            "elenchus_mean_run_to_bare_like_elenchus": ratio((bare.get("bare_like_elenchus") or {})
                                                             .get("median_seconds")),
            "elenchus_mean_run_to_bare_like_elenchus_two_at_once": ratio(
                (bare.get("bare_like_elenchus_two_at_once") or {}).get("median_seconds")),
            "elenchus_mean_run_to_elenchus_runner_sequential": ratio((bare.get("elenchus_runner_sequential") or {})
                                                                     .get("median_seconds")),
        },
        "mutmut": mutmut,
    }


def print_tables(projects: list[dict]) -> None:
    for p in projects:
        e, m, b, r = p["elenchus"], p["mutmut"], p["bare_pytest"], p["ratios"]
        print(f"\n{p['project']} {p['releases']['base']} -> {p['releases']['head']} "
              f"({len(p['change']['functions'])} changed functions in {', '.join(p['change']['production_files'])})")
        rows = [
            ["wall clock, s", e.get("wall_seconds"), m.get("wall_seconds")],
            ["mutants run", e.get("mutants_challenged"), m.get("mutants_run")],
            ["test runs (mutant x cohort)", e.get("mutant_runs"), m.get("mutants_run")],
            ["mean s per run", e.get("mean_run_seconds"), m.get("mean_mutant_seconds")],
            ["candidates generated", (e.get("mutants_challenged") or 0) + (e.get("mutants_beyond_budget") or 0)
             + (e.get("mutants_rejected") or 0) if "mutants_challenged" in e else None,
             m.get("mutants_generated_in_changed_files")],
            ["results", ", ".join(f"{k} {v}" for k, v in (e.get("mutation_results") or {}).items()),
             ", ".join(f"{k} {v}" for k, v in (m.get("statuses") or {}).items())],
        ]
        print(common.table(["", "elenchus (budget 16, jobs 2)", "mutmut 3 (changed functions, 2 children)"], rows))
        print()
        print(common.table(["per-run comparison", "seconds", "elenchus mean run / this"], [
            ["elenchus mean run (runs.jsonl duration)", e.get("mean_run_seconds"), None],
            ["bare python -m pytest -q (median of 3)", (b.get("bare") or {}).get("median_seconds"),
             r["elenchus_mean_run_to_bare_median"]],
            ["bare like Elenchus (fresh copy, no caches, same plugins off)",
             (b.get("bare_like_elenchus") or {}).get("median_seconds"), r["elenchus_mean_run_to_bare_like_elenchus"]],
            ["bare like Elenchus, two at once (as --jobs 2)",
             (b.get("bare_like_elenchus_two_at_once") or {}).get("median_seconds"),
             r["elenchus_mean_run_to_bare_like_elenchus_two_at_once"]],
            ["elenchus.execution.run.run_pytest alone", (b.get("elenchus_runner_sequential") or {}).get("median_seconds"),
             r["elenchus_mean_run_to_elenchus_runner_sequential"]],
        ]))
        print(f"\nelenchus phases (s): {e.get('phases_seconds')}; planning alone: {e.get('planning_alone')}; "
              f"per-run overhead outside pytest: {e.get('per_run_overhead_outside_pytest_seconds')} s")
        print(f"mutmut phases (s): {m.get('phase_seconds')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", action="append", metavar="NAME[:BASE:HEAD]",
                        help=f"repeatable; default: parse; releases default to {PROJECTS}")
    parser.add_argument("--download-dir", type=Path, default=None,
                        help="reuse/keep sdists here instead of a throwaway temp dir")
    parser.add_argument("--keep", action="store_true", help="keep the temp dirs (prints their paths)")
    parser.add_argument("--output", default=NAME, help=f"result name under benchmarks/results (default {NAME})")
    args = parser.parse_args()
    load_at_start = common.load_average()

    names = args.project or ["parse"]
    projects = []
    for spec in names:
        name, _, releases = spec.partition(":")
        if releases:
            base, _, head = releases.partition(":")
        elif name in PROJECTS:
            base, head = PROJECTS[name]
        else:
            parser.error(f"--project {spec}: give the releases as NAME:BASE:HEAD")
        scratch = common.temp_root(f"elenchus-bench-eval-{name}-")
        try:
            projects.append(bench_project(name, base, head, scratch, args.download_dir or scratch / "downloads"))
        finally:
            if args.keep:
                print(f"kept {scratch}")
            else:
                shutil.rmtree(scratch, ignore_errors=True)

    print_tables(projects)
    document = {
        "benchmark": NAME,
        "date": common.now_utc(),
        "machine": common.machine(),
        "load_average_at_start": load_at_start,
        "load_average_at_end": common.load_average(),
        "settings": {"budget": BUDGET, "jobs": JOBS, "scope": "current-change", "bare_repeat": BARE_REPEAT},
        "projects": projects,
    }
    target = common.write_result(args.output, document)
    print(f"load average (1/5/15 min) at start {load_at_start}, at end {document['load_average_at_end']}")
    print(f"\nwrote {target.relative_to(common.CHECKOUT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
