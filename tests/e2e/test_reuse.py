"""Results reused across commits: a run re-runs only when a file it depended on (as its baseline measured
it: imported, opened, or the test files whose tests it ran) changed, and says which."""

import json
from pathlib import Path

from tests.conftest import git, run_cli, write_tree

BASE = {
    "src/shop/__init__.py": "",
    "src/shop/price.py": """
        def total(prices):
            return sum(prices)


        def discount(amount, percent):
            return amount * (100 - percent) / 100
    """,
    "tests/data/totals.txt": "1 2 3 = 6\n",
    "tests/test_total.py": """
        from pathlib import Path

        from shop.price import total

        CASES = Path(__file__).with_name("data") / "totals.txt"


        def test_total_of_each_case():
            for line in CASES.read_text().splitlines():
                numbers, expected = line.split(" = ")
                assert total([int(n) for n in numbers.split()]) == int(expected)
    """,
    "tests/test_discount.py": """
        from shop.price import discount


        def test_discount():
            assert discount(200, 10) == 180
    """,
    "pyproject.toml": "[tool.pytest.ini_options]\npythonpath = ['src']\n",
    "README.md": "A shop.\n",
}


def _commit(repo: Path, files: dict[str, str], message: str) -> None:
    write_tree(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def test_a_stored_run_is_measured_again_only_when_a_file_it_depended_on_changed_and_says_which(tmp_path):
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _commit(repo, BASE, "base")
    _commit(repo, {"src/shop/price.py": BASE["src/shop/price.py"].replace(
        "return sum(prices)", "if not prices:\n                return 0\n            return sum(prices)").replace(
        "(100 - percent) / 100", "(100 - min(percent, 100)) / 100")}, "head")
    runs = tmp_path / "runs"
    env = {"ELENCHUS_RUNS_DIR": str(runs)}

    def evaluate(commits_since_base: int):
        done = run_cli("evaluate", "--repo", str(repo), "--base", f"HEAD~{commits_since_base}", "--head", "HEAD",
                       "--scope", "current-change", "--budget", "6", "--no-witnesses", "--jobs", "2", env=env)
        assert done.returncode == 0, done.stderr
        newest = max(runs.iterdir(), key=lambda p: p.stat().st_mtime)
        records = [json.loads(line) for line in (newest / "runs.jsonl").read_text().splitlines()]
        # (the runs that happened in the cohort of Head's tests: Base's tests stay as they were)
        return done, [r for r in records if r["attempt"] and r["cohort"] == "modified"], json.loads((newest / "report.json").read_text())

    first, measured, _ = evaluate(1)
    assert measured and not any(r.get("cached") for r in measured)
    # A document changed: nothing any run read. Every run and both baselines are reused.
    _commit(repo, {"README.md": "A shop that sells things.\n"}, "docs")
    docs, records, report = evaluate(2)
    assert "Baseline, modified: green (reused: nothing it read changed" in docs.stderr, docs.stderr
    assert records and all(r.get("cached") for r in records), records
    assert f"Stored results: {len(records)} of {len(records)} run(s) reused" in docs.stderr
    # A data file one test opens changed: only the runs of mutants in `total`, whose selected test opens it,
    # are measured again, and say why; the runs of `discount`'s mutants (its test opens nothing) are reused.
    symbol = {m["id"]: m["location"]["symbol"] for m in report["mutations"]}
    _commit(repo, {"tests/data/totals.txt": "1 2 3 = 6\n4 = 4\n"}, "data")
    data, records, report = evaluate(3)
    again = {symbol[r["mutant_id"]] for r in records if not r.get("cached")}
    assert again == {"total"}, records
    assert {symbol[r["mutant_id"]] for r in records if r.get("cached")} == {"discount"}, records
    count = sum(1 for r in records if not r.get("cached"))
    line = f"{count} stored run(s) measured again because tests/data/totals.txt changed."
    assert line in data.stderr and line in report["notes"], (data.stderr, report["notes"])
    # A test's body changed: the runs that ran it are measured again, naming the file; the others are reused.
    _commit(repo, {"tests/test_discount.py": BASE["tests/test_discount.py"].replace(
        "== 180", "== 180\n            assert discount(50, 0) == 50")}, "a test")
    body, records, _ = evaluate(4)
    assert {symbol[r["mutant_id"]] for r in records if not r.get("cached")} == {"discount"}, records
    assert {symbol[r["mutant_id"]] for r in records if r.get("cached")} == {"total"}, records
    assert "measured again because tests/test_discount.py changed." in body.stderr, body.stderr
