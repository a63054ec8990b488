"""Moved tests on a real release pair: how many Base tests the weakening evidence calls deleted.

Build the pair from two consecutive sdists (semver 2.13.0 -> 3.0.0 split the root `test_semver.py` into
`tests/test_*.py`), one commit each, then:

    python benchmarks/moved_tests_real.py PATH/TO/PAIR BASE_TEST_FILE...

prints the weakened checks by kind, the Base tests (in the named files) that a Head test of the same name
still carries, and the deleted-test findings among them. Results: benchmarks/results/moved_tests_real.md.
"""
import sys, re, ast, collections
from pathlib import Path
from elenchus.repo.session import open_session
from elenchus.analysis.regression import weakened_checks
with open_session(sys.argv[1], None, None) as s:
    checks = weakened_checks(s.change, s.base, s.head)
    kinds = collections.Counter(c.kind for c in checks)
    print("weakened checks:", dict(kinds))
    base_tests = set()
    for p in sys.argv[2:]:
        for n in ast.walk(ast.parse(s.base.read(p))):
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test"): base_tests.add(n.name)
    head_tests = set()
    for p in s.head.files:
        if p.startswith("tests/test_"):
            for n in ast.walk(ast.parse(s.head.read(p))):
                if isinstance(n, ast.FunctionDef) and n.name.startswith("test"): head_tests.add(n.name)
    print("base tests", len(base_tests), "same name at head", len(base_tests & head_tests))
    deleted = [c for c in checks if c.kind == "deleted-test"]
    same = [c for c in deleted if c.test.split("[")[0].split("::")[-1] in head_tests]
    print("deleted-test", len(deleted), "of which a same-named test exists at head:", len(same))
    for c in same[:8]: print("  ", c.path, c.test, c.detail[:150])
    for c in [c for c in checks if c.kind == "skipped-test"][:5]: print(" skip", c.path, c.test, c.detail[:120])
