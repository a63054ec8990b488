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
