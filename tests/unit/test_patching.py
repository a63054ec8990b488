import difflib

import pytest

from elenchus.repo.patching import PatchError, apply


def unified(path, old, new):
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}"))


def test_patching_applies_a_unified_diff_made_by_difflib(tmp_path):
    old = "def chunks(items, size):\n    return [items[i:i + size] for i in range(0, len(items), size)]\n"
    new = "def chunks(items, size):\n    return [items[i:i + size - 1] for i in range(0, len(items), size)]\n"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/core.py").write_text(old)
    assert apply(tmp_path, unified("pkg/core.py", old, new)) == ("pkg/core.py",)
    assert (tmp_path / "pkg/core.py").read_text() == new


def test_patching_creates_and_deletes_files(tmp_path):
    (tmp_path / "gone.py").write_text("x = 1\n")
    text = ("--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n"
            "--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n")
    apply(tmp_path, text)
    assert (tmp_path / "new.py").read_text() == "a = 1\nb = 2\n" and not (tmp_path / "gone.py").exists()


def test_patching_refuses_a_hunk_that_does_not_match_and_unsafe_paths(tmp_path):
    (tmp_path / "a.py").write_text("x = 2\n")
    with pytest.raises(PatchError, match="does not apply to a.py"):
        apply(tmp_path, unified("a.py", "x = 1\n", "x = 3\n"))
    with pytest.raises(PatchError, match="unsafe path"):
        apply(tmp_path, "--- a/../evil.py\n+++ b/../evil.py\n@@ -1 +1 @@\n-x\n+y\n")
