import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_architecture_map_names_only_modules_that_exist():
    text = (ROOT / "ARCHITECTURE.md").read_text()
    named = set(re.findall(r"`(elenchus/[\w/]+\.py)`", text))
    assert named, "ARCHITECTURE.md names no module"
    missing = sorted(p for p in named if not (ROOT / p).is_file())
    assert missing == []


def test_architecture_map_names_every_module_of_the_package():
    text = (ROOT / "ARCHITECTURE.md").read_text()
    named = set(re.findall(r"`(elenchus/[\w/]+\.py)`", text))
    actual = {p.relative_to(ROOT).as_posix() for p in (ROOT / "elenchus").rglob("*.py")
              if p.name != "__init__.py" or p.parent.name == "elenchus"}
    assert sorted(actual - named) == []


def test_architecture_stage_modules_exist_in_pipeline_order():
    text = (ROOT / "ARCHITECTURE.md").read_text()
    stages = re.findall(r"^\d+\. ([a-z ]+):", text, flags=re.M)
    assert stages == ["resolve revisions", "materialize snapshots", "discover change", "contract", "mutants",
                      "cohorts", "baseline", "runs", "matrix", "report"]


# The wings from the bottom up; a wing imports only wings of a lower rank (and itself).
WING_RANK = {"": 0, "repo": 1, "mutation": 2, "execution": 3, "reporting": 3, "analysis": 4, "modes": 5, "commands": 6}
TOP = {"elenchus.cli", "elenchus.__main__", "elenchus.project_config"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, name: str) -> set[str]:
    """Every elenchus module `path` imports, at the top or inside a function."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {n for n in found if n == "elenchus" or n.startswith("elenchus.")}


def _wing(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else ""


def test_every_wing_imports_only_the_wings_below_it():
    modules = {_module_name(p): p for p in (ROOT / "elenchus").rglob("*.py")}
    assert set(WING_RANK) >= {_wing(m) for m in modules}, "a new wing needs a rank here and a paragraph in ARCHITECTURE.md"
    upward = []
    for name, path in modules.items():
        if name in TOP:
            continue
        for target in _imported(path, name) & set(modules):
            if target == "elenchus" or _wing(target) == _wing(name):
                continue
            if WING_RANK[_wing(target)] >= WING_RANK[_wing(name)]:
                upward.append(f"{name} imports {target}")
    assert sorted(upward) == []


def test_the_one_way_check_sees_an_upward_import(tmp_path):
    module = tmp_path / "elenchus" / "repo" / "probe.py"
    module.parent.mkdir(parents=True)
    module.write_text("def f():\n    from elenchus.analysis import matrix\n    from . import git\n")
    imported = {n for n in _imported(module, "elenchus.repo.probe") if n.count(".") == 2}
    assert imported == {"elenchus.analysis.matrix", "elenchus.repo.git"}
    assert WING_RANK[_wing("elenchus.analysis.matrix")] > WING_RANK[_wing("elenchus.repo.probe")]


def test_every_wing_has_its_paragraph_in_the_architecture_map():
    text = (ROOT / "ARCHITECTURE.md").read_text()
    for wing in WING_RANK:
        if wing:
            assert f"### `{wing}/`" in text


#: No module holds more than this many lines: past it, a module has grown a second job (split it along its seams).
LINE_CEILING = 800


def test_no_module_is_over_the_line_ceiling():
    over = {p.relative_to(ROOT).as_posix(): n for p in (ROOT / "elenchus").rglob("*.py")
            if (n := len(p.read_text().splitlines())) > LINE_CEILING}
    assert over == {}


def _runs_git(source: str) -> bool:
    """Does this code start a git process itself (a command list or string beginning with git)?"""
    verbs = "add|apply|checkout|commit|diff|fetch|log|ls-files|merge|merge-base|reset|rev-parse|show|stash|status|tag"
    return re.search(rf"""[\[(]\s*["']git["']|["']git\s+(?:{verbs})\b""", source) is not None


def test_only_the_read_only_git_module_starts_git():
    starters = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "elenchus").rglob("*.py")
                      if _runs_git(p.read_text()))
    assert starters == ["elenchus/repo/git.py"]
    assert _runs_git('subprocess.run(["git", "checkout", "main"])') and _runs_git('os.system("git stash")')
    assert not _runs_git("digest = 'gitdb'") and not _runs_git('kind = "git object changed"')
