"""Every declared dependency is imported somewhere in the package (none is carried for nothing)."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMPORT_NAMES = {"libcst": "libcst", "pytest": "pytest", "jsonschema": "jsonschema", "gitdb": "gitdb",
                "mutmut": "mutmut", "click": "click", "rich": "rich", "hypothesis": "hypothesis",
                "coverage": "coverage", "lxml": "lxml"}


def test_every_declared_dependency_is_imported_by_the_package():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = [re.match(r"[A-Za-z0-9_.-]+", spec).group(0) for spec in declared]
    assert set(names) == set(IMPORT_NAMES), "name the import of a new dependency here"
    source = "\n".join(p.read_text() for p in (ROOT / "elenchus").rglob("*.py"))
    for name in names:
        module = IMPORT_NAMES[name]
        assert re.search(rf"^\s*(import {module}\b|from {module}(\.| import))", source, re.M), name
