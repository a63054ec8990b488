"""Disposable workspaces: copies, mutants, digests and the scratch root's cleanup."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from elenchus.errors import Blocked, ElenchusError
from elenchus.execution.workspace import (
    TemplateChanged,
    WorkspaceError,
    WorkspacePool,
    fresh_copy,
    remove_tree,
    scratch_root,
    tree_digest,
    verify_unchanged,
    write_mutant,
)


@pytest.fixture
def template(tmp_path: Path) -> Path:
    root = tmp_path / "template"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    (root / "readonly.txt").write_text("frozen\n")
    (root / "readonly.txt").chmod(0o444)
    (root / "empty").mkdir()
    (root / "link.py").symlink_to("pkg/mod.py")
    (root / "dangling").symlink_to("does/not/exist")
    return root


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


# --- fresh_copy ---------------------------------------------------------------------


def test_fresh_copy_reproduces_the_template_with_symlinks_and_modes(template, tmp_path):
    copy = fresh_copy(template, tmp_path / "scratch")
    assert copy.parent == tmp_path / "scratch" and copy != template
    assert (copy / "pkg" / "mod.py").read_text() == "def f():\n    return 1\n"
    assert (copy / "link.py").is_symlink() and os.readlink(copy / "link.py") == "pkg/mod.py"
    assert (copy / "dangling").is_symlink() and os.readlink(copy / "dangling") == "does/not/exist"
    assert mode(copy / "run.sh") == 0o755 and mode(copy / "readonly.txt") == 0o444
    assert (copy / "empty").is_dir()
    assert tree_digest(copy) == tree_digest(template)


def test_fresh_copy_gives_every_call_its_own_directory(template, tmp_path):
    first = fresh_copy(template, tmp_path / "scratch")
    second = fresh_copy(template, tmp_path / "scratch")
    assert first != second and first.is_dir() and second.is_dir()


def test_fresh_copy_skips_fifos_instead_of_blocking_on_them(template, tmp_path):
    os.mkfifo(template / "pipe")
    copy = fresh_copy(template, tmp_path / "scratch")
    assert not (copy / "pipe").exists()


def test_fresh_copy_of_a_missing_template_is_an_error(tmp_path):
    with pytest.raises(WorkspaceError, match="not a directory"):
        fresh_copy(tmp_path / "nope", tmp_path / "scratch")


# --- write_mutant -------------------------------------------------------------------


def test_write_mutant_replaces_the_file_in_the_copy_and_never_the_template(template, tmp_path):
    digest = tree_digest(template)
    copy = fresh_copy(template, tmp_path / "scratch")
    written = write_mutant(copy, "pkg/mod.py", "def f():\n    return 2\n")
    assert written == copy / "pkg" / "mod.py"
    assert written.read_text() == "def f():\n    return 2\n"
    verify_unchanged(template, digest)


def test_write_mutant_keeps_the_file_mode(template, tmp_path):
    copy = fresh_copy(template, tmp_path / "scratch")
    write_mutant(copy, "run.sh", b"#!/bin/sh\necho mutated\n")
    assert mode(copy / "run.sh") == 0o755
    assert (copy / "run.sh").read_bytes() == b"#!/bin/sh\necho mutated\n"


def test_write_mutant_replaces_a_symlink_instead_of_writing_through_it(template, tmp_path):
    copy = fresh_copy(template, tmp_path / "scratch")
    write_mutant(copy, "link.py", "x = 2\n")
    assert not (copy / "link.py").is_symlink()
    assert (copy / "pkg" / "mod.py").read_text() == "def f():\n    return 1\n"


def test_write_mutant_removes_stale_bytecode_of_the_file(template, tmp_path):
    copy = fresh_copy(template, tmp_path / "scratch")
    cache = copy / "pkg" / "__pycache__"
    cache.mkdir()
    (cache / "mod.cpython-311.pyc").write_bytes(b"stale")
    (cache / "other.cpython-311.pyc").write_bytes(b"keep")
    write_mutant(copy, "pkg/mod.py", "def f():\n    return 2\n")
    assert sorted(p.name for p in cache.iterdir()) == ["other.cpython-311.pyc"]


@pytest.mark.parametrize("relpath", ["../outside.py", "/etc/passwd", "pkg/../../x.py", ""])
def test_write_mutant_refuses_paths_that_leave_the_workspace(template, tmp_path, relpath):
    copy = fresh_copy(template, tmp_path / "scratch")
    with pytest.raises(WorkspaceError):
        write_mutant(copy, relpath, "x = 1\n")


def test_write_mutant_refuses_a_path_through_a_symlinked_directory_outside(template, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.py").write_text("safe\n")
    copy = fresh_copy(template, tmp_path / "scratch")
    (copy / "escape").symlink_to(outside)
    with pytest.raises(WorkspaceError, match="symlink"):
        write_mutant(copy, "escape/victim.py", "owned\n")
    assert (outside / "victim.py").read_text() == "safe\n"


def test_write_mutant_refuses_a_file_that_does_not_exist(template, tmp_path):
    copy = fresh_copy(template, tmp_path / "scratch")
    with pytest.raises(WorkspaceError, match="no such file"):
        write_mutant(copy, "pkg/new.py", "x = 1\n")


# --- tree_digest / verify_unchanged -------------------------------------------------


def test_tree_digest_is_stable_and_ignores_times(template):
    before = tree_digest(template)
    os.utime(template / "pkg" / "mod.py", (1, 1))
    assert tree_digest(template) == before


@pytest.mark.parametrize(
    "change",
    [
        lambda t: (t / "pkg" / "mod.py").write_text("def f():\n    return 2\n"),
        lambda t: (t / "pkg" / "mod.py").chmod(0o600),
        lambda t: ((t / "link.py").unlink(), (t / "link.py").symlink_to("pkg/__init__.py")),
        lambda t: (t / "new_dir").mkdir(),
        lambda t: (t / "pkg" / "__init__.py").rename(t / "pkg" / "init.py"),
        lambda t: (t / "empty").rmdir(),
    ],
    ids=["content", "mode", "symlink-target", "new-empty-dir", "rename", "removed-dir"],
)
def test_tree_digest_changes_for_every_kind_of_template_edit(template, change):
    before = tree_digest(template)
    change(template)
    assert tree_digest(template) != before


def test_verify_unchanged_raises_naming_the_changed_template(template):
    digest = tree_digest(template)
    verify_unchanged(template, digest)
    (template / "pkg" / "mod.py").write_text("tampered\n")
    with pytest.raises(TemplateChanged) as caught:
        verify_unchanged(template, digest)
    assert str(template) in caught.value.message
    assert isinstance(caught.value, ElenchusError)


# --- removal and scratch_root ---------------------------------------------------------


def test_remove_tree_removes_read_only_directories(template, tmp_path):
    copy = fresh_copy(template, tmp_path / "scratch")
    (copy / "pkg").chmod(0o555)
    copy.chmod(0o555)
    remove_tree(copy)
    assert not copy.exists()


def test_scratch_root_is_a_fresh_elenchus_directory_in_the_temp_dir_removed_on_exit(template):
    with scratch_root() as root:
        assert root.parent == Path(tempfile.gettempdir()).resolve()
        assert root.name.startswith("elenchus-")
        copy = fresh_copy(template, root)
        (copy / "pkg").chmod(0o555)
    assert not root.exists()


def test_scratch_root_is_removed_on_an_exception_and_on_keyboard_interrupt(template):
    for error in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(error)):
            with scratch_root() as root:
                fresh_copy(template, root)
                raise error
        assert not root.exists()


def test_scratch_root_restores_the_sigterm_handler(template):
    before = signal.getsignal(signal.SIGTERM)
    with scratch_root():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before


def test_scratch_root_is_removed_when_the_process_receives_sigterm(template, tmp_path):
    script = textwrap.dedent(f"""
        import os, signal, sys, time
        from pathlib import Path
        from elenchus.execution.workspace import fresh_copy, scratch_root
        try:
            with scratch_root() as root:
                fresh_copy(Path({str(template)!r}), root)
                print(root, flush=True)
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(30)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(143)
    """)
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    root_line, outcome = completed.stdout.split()
    assert (completed.returncode, outcome) == (143, "interrupted"), completed.stderr
    assert Path(root_line).name.startswith("elenchus-")
    assert not Path(root_line).exists()


def test_a_ctrl_c_during_the_removal_is_held_until_it_is_done_never_dropped(template, monkeypatch):
    """Cleanup is not cut short, and the interrupt still ends the run afterwards."""
    from elenchus.execution import workspace

    removed = []

    def slow_removal(path):
        os.kill(os.getpid(), signal.SIGINT)  # arrives in the middle of the removal
        removed.append(path)
        shutil.rmtree(path)

    monkeypatch.setattr(workspace, "remove_tree", slow_removal)
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt, match="during cleanup"):
        with scratch_root() as root:
            fresh_copy(template, root)
    assert removed == [root] and not root.exists()
    assert signal.getsignal(signal.SIGINT) is before


def test_scratch_root_refuses_a_temp_dir_inside_a_git_repository(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    inner = tmp_path / "tmp"
    inner.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(inner))
    with pytest.raises(Blocked, match="TMPDIR"):
        with scratch_root():
            pass  # pragma: no cover
    assert list(inner.iterdir()) == []


# --- WorkspacePool ---------------------------------------------------------------------


def test_workspace_pool_removes_each_workspace_and_then_its_root(template):
    with WorkspacePool() as pool:
        root = pool.root
        with pool.workspace(template) as first:
            write_mutant(first, "pkg/mod.py", "def f():\n    return 3\n")
        assert not first.exists()
        with pool.workspace(template) as second:
            assert (second / "pkg" / "mod.py").read_text() == "def f():\n    return 1\n"
        assert list(root.iterdir()) == []
    assert not root.exists()


def test_workspace_pool_detects_a_run_that_wrote_into_the_template(template):
    with WorkspacePool() as pool:
        with pytest.raises(TemplateChanged):
            with pool.workspace(template):
                (template / "pkg" / "mod.py").write_text("written through an absolute path\n")
