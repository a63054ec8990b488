"""Source roots and top-level names: where a run imports the project from."""

from __future__ import annotations

from pathlib import Path

import pytest

from elenchus.config import Settings, load_settings
from elenchus.errors import ElenchusError
from elenchus.repo.layout import SourceLayout, detect_layout
from elenchus.repo.snapshot import Snapshot


def snapshot(root: Path, files: dict[str, str]) -> Snapshot:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return Snapshot(root, "head", "HEAD", None, tuple(sorted(files)), ())


def test_a_src_directory_with_production_code_is_a_source_root_before_the_repository_root(tmp_path):
    head = snapshot(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/core.py": "", "tests/test_core.py": ""})
    layout = detect_layout(head, Settings())
    assert layout.roots == ("src", ".")
    assert layout.top_level == ("pkg",)
    assert layout.module_name("src/pkg/core.py") == "pkg.core"
    assert layout.module_name("src/pkg/__init__.py") == "pkg"


def test_a_flat_project_imports_from_the_repository_root(tmp_path):
    head = snapshot(tmp_path, {"pkg/__init__.py": "", "single.py": "", "tests/test_x.py": "", "setup.py": ""})
    layout = detect_layout(head, Settings())
    assert layout.roots == (".",)
    assert layout.top_level == ("pkg", "single")  # setup.py is not production code


@pytest.mark.parametrize(("config_name", "text"), [
    ("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["lib"]\n'),
    ("pytest.ini", "[pytest]\npythonpath = lib\n"),
    ("setup.cfg", "[tool:pytest]\npythonpath = lib\n"),
    ("pyproject.toml", '[tool.setuptools.package-dir]\n"" = "lib"\n'),
    ("setup.cfg", "[options]\npackage_dir =\n    =lib\n"),
    ("pyproject.toml", '[tool.hatch.build.targets.wheel]\npackages = ["lib/pkg"]\n'),
])
def test_pytest_pythonpath_and_package_dir_settings_name_source_roots(tmp_path, config_name, text):
    head = snapshot(tmp_path, {config_name: text, "lib/pkg/__init__.py": "", "lib/pkg/core.py": ""})
    layout = detect_layout(head, Settings())
    assert layout.roots[0] == "lib"
    assert layout.module_name("lib/pkg/core.py") == "pkg.core"


def test_tool_elenchus_source_roots_come_first(tmp_path):
    pyproject = '[tool.elenchus]\nsource-roots = ["code"]\n'
    head = snapshot(tmp_path, {"pyproject.toml": pyproject, "code/app/__init__.py": "", "src/other.py": ""})
    layout = detect_layout(head, load_settings(pyproject))
    assert layout.roots == ("code", "src", ".")
    assert layout.top_level == ("app", "other")


@pytest.mark.parametrize("value", ['["../elsewhere"]', '["/abs"]', '["missing"]'])
def test_a_source_root_outside_the_repository_or_missing_is_refused_with_the_setting_named(tmp_path, value):
    pyproject = f"[tool.elenchus]\nsource-roots = {value}\n"
    head = snapshot(tmp_path, {"pyproject.toml": pyproject, "pkg/__init__.py": ""})
    with pytest.raises(ElenchusError, match=r"source-roots"):
        detect_layout(head, load_settings(pyproject))


def test_module_name_is_none_for_a_file_that_no_root_makes_importable():
    layout = SourceLayout(("src",), ("pkg",))
    assert layout.module_name("scripts/my-tool.py") is None
