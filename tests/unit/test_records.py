"""Result keys cover the code that measured the result, not only its version number."""

import shutil
from pathlib import Path

from elenchus import records
from elenchus.records import ResultCache, code_digest, own_code

PACKAGE = Path(records.__file__).resolve().parent


def test_the_digest_follows_the_source_files_not_where_they_live(tmp_path):
    copy = tmp_path / "elenchus"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert code_digest(copy) == code_digest(PACKAGE) == own_code()
    launch = copy / "execution" / "run" / "launch.py"
    launch.write_text(launch.read_text() + "\n# one more line\n")
    assert code_digest(copy) != code_digest(PACKAGE)
    (copy / "helper.py").write_text("X = 1\n")  # a new module counts too
    changed = code_digest(copy)
    (copy / "helper.py").rename(copy / "other.py")  # and so does its name
    assert code_digest(copy) != changed


def test_a_result_measured_by_other_code_of_the_same_version_is_not_found(monkeypatch):
    key = ResultCache.key("run", "digest", ["tests/test_a.py"])
    assert ResultCache.key("run", "digest", ["tests/test_a.py"]) == key
    monkeypatch.setattr(records, "own_code", lambda: "code of an editable checkout one commit later")
    assert ResultCache.key("run", "digest", ["tests/test_a.py"]) != key
