"""`elenchus evaluate` on a directory of real two-commit repositories, counted for a before/after comparison.

Each repository under ``--repos`` holds two consecutive releases of a PyPI project: commit 1 is
release N, commit 2 (HEAD) is release N+1, so HEAD~1..HEAD is a real change. For every one the
script runs

    elenchus evaluate --repo R --scope current-change --budget B --jobs J --fresh --json TMP.json

with ``ELENCHUS_RUNS_DIR`` in a fresh temp dir, and records, from the JSON report:

- the exit code and wall seconds of the run, and the baseline status of each cohort;
- how many mutants were challenged (``mutations``), left beyond the budget (``not_challenged``)
  and rejected (``rejected``); the counts of ``mutations[].result`` and of
  ``comparisons[].assessment``; every mutant whose result is neither killed nor survived, with its
  reason;
- the changed production files (``scope.detected.production_files``) and those among them that
  got no mutant at all (challenged or not challenged);
- the changed production lines: lines of HEAD that ``difflib`` marks as inserted or replaced
  between the two revisions (``git show REV:PATH``) in the changed production ``.py`` files, split
  into code lines inside a function body (``def`` through its last line) and code lines outside
  every function (module level and class bodies: constants, dicts, regexes, class attributes,
  imports); blank lines, comment-only lines and docstrings are counted apart. A changed line counts as reached when
  it falls inside the ``line``..``end_line`` range of a mutant (challenged or not) or of a
  rejected candidate in the same file.

A value that was not measured (no report, a file that does not parse) is ``null``, never guessed.
Nothing in the repositories is modified: Elenchus works on its own snapshots, and this script
only reads them with ``git show``.

Run with the Python of the environment the tests need (their test-only dependencies installed):

    python benchmarks/real_pairs.py --elenchus VENV/bin/elenchus --repos DIR --out results/FILE.json \\
        [--budget 32] [--jobs 2] [--only NAME] [--reports-dir DIR]
"""

from __future__ import annotations

import argparse
import ast
import difflib
import io
import json
import os
import shutil
import subprocess
import sys
import time
import tokenize
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

NAME = "real_pairs"
BUDGET = 32
JOBS = 2
TAIL_LINES = 15
REASON_CHARS = 300


# -- Elenchus -------------------------------------------------------------------------


def elenchus_source(executable: Path) -> dict:
    """The Elenchus package the executable runs: its directory, version and git commit (or nulls)."""
    out: dict = {"executable": str(executable), "package_dir": None, "version": None, "commit": None,
                 "package_has_uncommitted_edits": None}
    try:
        shebang = executable.read_text(errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return out
    if not shebang.startswith("#!"):
        return out
    python = shebang[2:].strip().split()[0]
    done = subprocess.run([python, "-c", "import elenchus, os; print(os.path.dirname(elenchus.__file__)); "
                                         "print(getattr(elenchus, '__version__', ''))"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return out
    package_dir, version = (done.stdout.splitlines() + ["", ""])[:2]
    out["package_dir"], out["version"] = package_dir or None, version or None
    if package_dir:
        rev = subprocess.run(["git", "-C", package_dir, "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True)
        if rev.returncode == 0:
            out["commit"] = rev.stdout.strip() or None
            status = subprocess.run(["git", "-C", package_dir, "status", "--porcelain", "--", "."],
                                    capture_output=True, text=True)
            out["package_has_uncommitted_edits"] = bool(status.stdout.strip()) if status.returncode == 0 else None
    return out


def run_elenchus(executable: Path, repo: Path, budget: int, jobs: int, scratch: Path) -> dict:
    """One ``elenchus evaluate`` run; returns exit code, wall seconds, output tail and the report (or None)."""
    report_path = scratch / "report.json"
    argv = [str(executable), "evaluate", "--repo", str(repo), "--scope", "current-change",
            "--budget", str(budget), "--jobs", str(jobs), "--fresh", "--json", str(report_path)]
    env = dict(os.environ, ELENCHUS_RUNS_DIR=str(scratch / "runs"), PYTHONUNBUFFERED="1")
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    wall = time.perf_counter() - start
    report = None
    if report_path.is_file():
        try:
            report = json.loads(report_path.read_text())
        except json.JSONDecodeError:
            report = None
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return {"command": "elenchus " + " ".join(argv[1:]).replace(str(report_path), "TMP.json"),
            "exit_code": done.returncode, "wall_seconds": round(wall, 1),
            "output_tail": lines[-TAIL_LINES:] if (done.returncode != 0 or report is None) else None,
            "report": report}


# -- changed lines ----------------------------------------------------------------------


def show(repo: Path, rev: str, path: str) -> str | None:
    """``git show REV:PATH`` (None when the file does not exist at REV)."""
    done = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=repo, capture_output=True)
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def changed_head_lines(old: str | None, new: str) -> set[int]:
    """1-based HEAD line numbers that ``difflib`` marks as inserted or replaced (all of them for a new file)."""
    new_lines = new.splitlines()
    if old is None:
        return set(range(1, len(new_lines) + 1))
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new_lines, autojunk=False)
    changed: set[int] = set()
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            changed.update(range(j1 + 1, j2 + 1))
    return changed


def function_lines(tree: ast.AST) -> set[int]:
    """Lines that belong to some ``def`` (decorators, signature and body); lambdas do not count."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            inside.update(range(first, (node.end_lineno or node.lineno) + 1))
    return inside


def docstring_lines(tree: ast.AST) -> set[int]:
    """Lines of module, class and function docstrings."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def code_lines(source: str) -> set[int] | None:
    """Lines holding at least one token other than a comment or a line break (None if it does not tokenize)."""
    lines: set[int] = set()
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER, tokenize.ENCODING}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type not in skip:
                lines.update(range(token.start[0], token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return lines


def reached_lines(report: dict, path: str) -> tuple[set[int], set[int]]:
    """Lines of ``path`` inside a mutant's range (challenged or not), and inside a rejected candidate's."""
    mutated: set[int] = set()
    rejected: set[int] = set()
    for key, into in (("mutations", mutated), ("not_challenged", mutated), ("rejected", rejected)):
        for entry in report.get(key) or []:
            location = entry.get("location") or {}
            if location.get("path") == path and location.get("line"):
                into.update(range(location["line"], (location.get("end_line") or location["line"]) + 1))
    return mutated, rejected


def line_counts(repo: Path, report: dict) -> dict:
    """Changed production lines inside / outside function bodies, and how many a mutant or rejection reached."""
    base = (report.get("snapshots") or {}).get("base", {}).get("sha")
    head = (report.get("snapshots") or {}).get("head", {}).get("sha")
    production = [p for p in (report.get("scope") or {}).get("detected", {}).get("production_files", [])
                  if p.endswith(".py")]
    if not base or not head:
        return {"error": "report has no base/head sha", "files": None}
    keys = ("changed_lines", "blank_comment_or_docstring", "code_inside_functions", "code_inside_functions_reached",
            "code_outside_functions", "code_outside_functions_reached_by_mutant",
            "code_outside_functions_reached_by_mutant_or_rejection")
    totals: dict[str, int | None] = {k: 0 for k in keys}
    files = []
    for path in production:
        new = show(repo, head, path)
        if new is None:  # deleted at Head: nothing there to mutate
            files.append({"path": path, "deleted": True})
            continue
        changed = changed_head_lines(show(repo, base, path), new)
        code = code_lines(new)
        try:
            tree = ast.parse(new)
        except SyntaxError:
            tree = None
        mutated, rejected = reached_lines(report, path)
        row: dict = {"path": path, "changed_lines": len(changed)}
        if code is None or tree is None:
            row["error"] = "does not parse at Head"
            for key in keys[1:]:
                row[key] = None
                totals[key] = None
        else:
            inside = function_lines(tree)
            code -= docstring_lines(tree)
            changed_code = changed & code
            outside = sorted(changed_code - inside)
            row.update({
                "blank_comment_or_docstring": len(changed - code),
                "code_inside_functions": len(changed_code & inside),
                "code_inside_functions_reached": len(changed_code & inside & (mutated | rejected)),
                "code_outside_functions": len(outside),
                "code_outside_functions_reached_by_mutant": sum(1 for n in outside if n in mutated),
                "code_outside_functions_reached_by_mutant_or_rejection":
                    sum(1 for n in outside if n in mutated or n in rejected),
                "code_outside_functions_not_reached": [n for n in outside if n not in mutated and n not in rejected],
            })
            for key in keys[1:]:
                if totals[key] is not None:
                    totals[key] += row[key]  # type: ignore[operator]
        totals["changed_lines"] += len(changed)  # type: ignore[operator]
        files.append(row)
    return {**totals, "files": files}


# -- one repository ---------------------------------------------------------------------


def summarize(repo: Path, run: dict) -> dict:
    report = run.pop("report")
    row: dict = {"repo": repo.name, **run}
    if report is None:
        row.update({k: None for k in ("base_sha", "head_sha", "baseline", "mutants_challenged",
                                      "mutants_not_challenged", "mutants_rejected", "mutation_results",
                                      "assessments", "not_killed_or_survived", "production_files",
                                      "production_files_without_mutants", "mutants_per_production_file", "lines")})
        return row
    mutations = report.get("mutations") or []
    not_challenged = report.get("not_challenged") or []
    production = (report.get("scope") or {}).get("detected", {}).get("production_files", [])
    per_file = Counter(m["location"]["path"] for m in mutations + not_challenged)
    snapshots = report.get("snapshots") or {}
    row.update({
        "base_sha": (snapshots.get("base") or {}).get("sha"),
        "head_sha": (snapshots.get("head") or {}).get("sha"),
        "baseline": {name: {"status": b.get("status"), "duration_seconds": b.get("duration_seconds"),
                            "failing_tests": len(b.get("failing_tests") or []),
                            "reason": b.get("reason")} for name, b in (report.get("baseline") or {}).items()},
        "mutants_challenged": len(mutations),
        "mutants_not_challenged": len(not_challenged),
        "mutants_rejected": len(report.get("rejected") or []),
        "mutation_results": dict(Counter(str(m.get("result")) for m in mutations)),
        "assessments": dict(Counter(str(c.get("assessment")) for c in report.get("comparisons") or [])),
        "not_killed_or_survived": [
            {"id": m.get("id"), "result": m.get("result"), "location": m.get("location"),
             "reason": (m.get("reason") or "")[:REASON_CHARS] or None}
            for m in mutations if m.get("result") not in ("killed", "survived")],
        "production_files": production,
        "production_files_without_mutants": [p for p in production if per_file.get(p, 0) == 0],
        "mutants_per_production_file": {p: per_file.get(p, 0) for p in production},
        "lines": line_counts(repo, report),
    })
    return row


def repositories(root: Path, only: list[str] | None) -> list[Path]:
    found = sorted(p for p in root.iterdir() if (p / ".git").exists())
    return [p for p in found if not only or p.name in only or p.name.split("-")[0] in only]


def print_table(rows: list[dict]) -> None:
    def counts(value: dict | None) -> str | None:
        return ", ".join(f"{k} {v}" for k, v in sorted(value.items())) if value else None

    table_rows = []
    for r in rows:
        lines = r.get("lines") or {}
        outside = lines.get("code_outside_functions")
        reached = lines.get("code_outside_functions_reached_by_mutant_or_rejection")
        table_rows.append([
            r["repo"], r["exit_code"], r["wall_seconds"],
            "/".join(str((b or {}).get("status")) for b in (r.get("baseline") or {}).values()) or None,
            r.get("mutants_challenged"), r.get("mutants_not_challenged"), r.get("mutants_rejected"),
            counts(r.get("mutation_results")),
            f"{len(r['production_files_without_mutants'])}/{len(r['production_files'])}"
            if r.get("production_files") is not None else None,
            f"{reached}/{outside}" if outside is not None else None,
        ])
    print(common.table(["repo", "exit", "wall s", "baselines", "chal", "beyond", "rej", "results",
                        "files 0 mutants", "outside-fn lines reached"], table_rows))
    print()
    print(common.table(["repo", "assessments"], [[r["repo"], counts(r.get("assessments"))] for r in rows]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elenchus", type=Path, required=True, help="the elenchus executable to measure")
    parser.add_argument("--repos", type=Path, required=True, help="directory of two-commit git repositories")
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
    parser.add_argument("--budget", type=int, default=BUDGET, help=f"--budget for elenchus (default {BUDGET})")
    parser.add_argument("--jobs", type=int, default=JOBS, help=f"--jobs for elenchus (default {JOBS})")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="repeatable: only this repository (directory name, or its part before the first '-')")
    parser.add_argument("--reports-dir", type=Path, default=None,
                        help="also keep each full report here as REPO.json (default: not kept)")
    args = parser.parse_args()
    executable = args.elenchus.resolve()
    if not executable.is_file():
        parser.error(f"--elenchus {executable}: no such file")
    repos = repositories(args.repos.resolve(), args.only)
    if not repos:
        parser.error(f"--repos {args.repos}: no git repository found")

    load_at_start = common.load_average()
    started = common.now_utc()
    rows = []
    for repo in repos:
        print(f"== {repo.name}", flush=True)
        scratch = common.temp_root(f"elenchus-real-pairs-{repo.name}-")
        try:
            run = run_elenchus(executable, repo, args.budget, args.jobs, scratch)
            if args.reports_dir and run["report"] is not None:
                args.reports_dir.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(scratch / "report.json", args.reports_dir / f"{repo.name}.json")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        row = summarize(repo, run)
        print(f"   exit {row['exit_code']}, {row['wall_seconds']} s, results {row.get('mutation_results')}",
              flush=True)
        rows.append(row)

    print()
    print_table(rows)
    machine = common.machine()
    source = elenchus_source(executable)
    # machine() describes the checkout holding this script; the measured Elenchus may be another one
    machine.update({"elenchus_version": source["version"], "elenchus_commit": source["commit"],
                    "elenchus_package_has_uncommitted_edits": source["package_has_uncommitted_edits"]})
    document = {
        "benchmark": NAME,
        "date": started,
        "finished": common.now_utc(),
        "machine": machine,
        "elenchus": source,
        "load_average_at_start": load_at_start,
        "load_average_at_end": common.load_average(),
        "settings": {"budget": args.budget, "jobs": args.jobs, "scope": "current-change", "fresh": True,
                     "repos_dir": str(args.repos.resolve())},
        "repos": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
