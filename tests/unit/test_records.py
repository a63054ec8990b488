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


def test_a_pure_reading_is_remembered_across_runs_and_a_fresh_run_reads_again(tmp_path):
    from elenchus.records import ResultCache

    calls = []

    def read(text: str) -> list[int]:
        calls.append(text)
        return [len(text)]

    def remembered(cache: ResultCache, text: str) -> list[int]:
        return cache.memo("length", [text], lambda: read(text), list, lambda stored: [int(n) for n in stored])

    assert remembered(ResultCache(tmp_path), "abc") == [3]
    assert remembered(ResultCache(tmp_path), "abc") == [3]  # another run, the same text: not read again
    assert calls == ["abc"]
    assert remembered(ResultCache(tmp_path), "abcd") == [4]  # another text is read
    fresh = ResultCache(tmp_path, reuse=False)
    assert remembered(fresh, "abc") == [3] and calls == ["abc", "abcd", "abc"]  # --fresh reads again
    later = ResultCache(tmp_path)
    assert remembered(later, "abc") == [3] and later.hits == 0  # a reading is not a result reused
    [stored] = [p for p in tmp_path.rglob("*.json") if '"value": [3]' in p.read_text()]
    key = stored.stem
    later.put(key, {"value": ["not a number"]})  # sealed, but not what the reading gives: read again
    assert remembered(later, "abc") == [3] and len(calls) == 4 and later.rejected == 1
