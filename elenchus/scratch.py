"""Build scratch git repositories (the demo, the fixture scenarios) without running git.

Elenchus never runs a git command that writes. The demo still needs a real
repository with history, so this module writes one from scratch into a fresh
temp directory it owns: objects go through gitdb's pure-Python object store, and
the index, refs and HEAD are plain files in git's documented formats. It refuses
to write into a directory that already exists.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import tomllib
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from elenchus.errors import ElenchusError
from elenchus.resources import data_dir

AUTHOR = "Elenchus Fixture <fixtures@elenchus.invalid>"


@dataclass(frozen=True, slots=True)
class Step:
    message: str
    overlay: str  # directory (relative to the fixtures dir) copied over the previous tree
    delete: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    description: str
    proves: str
    commits: tuple[Step, ...]
    worktree: Step | None  # uncommitted edits applied on top of the last commit
    expect: dict


def load_scenario(name: str) -> Scenario:
    path = data_dir("fixtures") / "scenarios" / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(scenario_names())
        raise ElenchusError(f"unknown fixture scenario '{name}'; known scenarios: {known}")
    data = tomllib.loads(path.read_text())

    def step(table: dict) -> Step:
        return Step(table["message"], table["overlay"], tuple(table.get("delete", ())))

    worktree = data.get("worktree")
    return Scenario(name, data["description"], data["proves"],
                    tuple(step(c) for c in data["commits"]),
                    step(worktree) if worktree else None, data.get("expect", {}))


def scenario_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in (data_dir("fixtures") / "scenarios").glob("*.toml")))


def _tree_files(directory: Path) -> dict[str, Path]:
    files = {}
    for dirpath, dirnames, names in os.walk(directory):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in names:
            if not name.endswith(".pyc"):
                full = Path(dirpath) / name
                files[full.relative_to(directory).as_posix()] = full
    return files


class _Writer:
    def __init__(self, root: Path) -> None:
        from gitdb import LooseObjectDB

        self.root = root
        self.git = root / ".git"
        for sub in ("objects/info", "objects/pack", "refs/heads", "refs/tags"):
            (self.git / sub).mkdir(parents=True)
        (self.git / "HEAD").write_text("ref: refs/heads/main\n")
        (self.git / "config").write_text(
            "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n")
        self.odb = LooseObjectDB(str(self.git / "objects"))

    def store(self, kind: bytes, data: bytes) -> bytes:
        from gitdb import IStream

        return self.odb.store(IStream(kind, len(data), BytesIO(data))).binsha

    def tree(self, entries: dict[str, tuple[int, bytes]]) -> bytes:
        """Store nested trees for {path: (mode, blob sha)}; return the root tree sha."""
        children: dict[str, dict] = {}
        for path, value in entries.items():
            node = children
            *dirs, leaf = path.split("/")
            for part in dirs:
                node = node.setdefault(part, {})
            node[leaf] = value

        def write(node: dict) -> bytes:
            items = []
            for name, value in node.items():
                if isinstance(value, dict):
                    items.append((name + "/", name, 0o40000, write(value)))
                else:
                    items.append((name, name, value[0], value[1]))
            items.sort(key=lambda item: item[0].encode())
            body = b"".join(f"{mode:o} {name}".encode() + b"\0" + sha for _, name, mode, sha in items)
            return self.store(b"tree", body)

        return write(children)

    def commit(self, tree: bytes, parent: bytes | None, message: str, when: int) -> bytes:
        lines = [f"tree {tree.hex()}"]
        if parent:
            lines.append(f"parent {parent.hex()}")
        lines += [f"author {AUTHOR} {when} +0000", f"committer {AUTHOR} {when} +0000", "", message, ""]
        sha = self.store(b"commit", "\n".join(lines).encode())
        (self.git / "refs/heads/main").write_text(sha.hex() + "\n")
        return sha

    def write_index(self, entries: dict[str, tuple[int, bytes]]) -> None:
        body = bytearray(b"DIRC" + struct.pack(">II", 2, len(entries)))
        for path in sorted(entries, key=lambda p: p.encode()):
            mode, sha = entries[path]
            info = (self.root / path).lstat()
            name = path.encode()
            entry = struct.pack(
                ">IIIIIIIIII", int(info.st_ctime), 0, int(info.st_mtime), 0, info.st_dev & 0xFFFFFFFF,
                info.st_ino & 0xFFFFFFFF, mode, info.st_uid, info.st_gid, info.st_size & 0xFFFFFFFF,
            ) + sha + struct.pack(">H", min(len(name), 0xFFF)) + name
            entry += b"\0" * (8 - len(entry) % 8)
            body += entry
        body += hashlib.sha1(bytes(body)).digest()
        (self.git / "index").write_bytes(bytes(body))


def _apply(root: Path, overlay: Path, delete: tuple[str, ...]) -> None:
    for rel, source in _tree_files(overlay).items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
        target.chmod(0o755 if source.stat().st_mode & stat.S_IXUSR else 0o644)
    for rel in delete:
        (root / rel).unlink()


def _entries(writer: _Writer, root: Path) -> dict[str, tuple[int, bytes]]:
    entries = {}
    for rel, full in _tree_files(root).items():
        if rel.startswith(".git/"):
            continue
        mode = 0o100755 if full.stat().st_mode & stat.S_IXUSR else 0o100644
        entries[rel] = (mode, writer.store(b"blob", full.read_bytes()))
    return entries


def build(scenario: Scenario | str, dest: Path) -> Path:
    """Build ``scenario`` as a git repository at ``dest`` (which must not exist yet)."""
    if isinstance(scenario, str):
        scenario = load_scenario(scenario)
    if dest.exists():
        raise ElenchusError(f"refusing to build a scratch repository in existing path {dest}")
    dest.mkdir(parents=True)
    writer = _Writer(dest)
    fixtures = data_dir("fixtures")
    parent = None
    entries: dict[str, tuple[int, bytes]] = {}
    for number, step in enumerate(scenario.commits):
        _apply(dest, fixtures / step.overlay, step.delete)
        entries = _entries(writer, dest)
        parent = writer.commit(writer.tree(entries), parent, step.message, 1_700_000_000 + 3600 * number)
    writer.write_index(entries)
    if scenario.worktree:
        _apply(dest, fixtures / scenario.worktree.overlay, scenario.worktree.delete)
    return dest


def repair_case_names() -> tuple[str, ...]:
    cases = data_dir("fixtures") / "repairs" / "cases"
    return tuple(sorted(p.name for p in cases.iterdir() if (p / "case.toml").is_file()))


def load_repair_case(name: str) -> tuple[Scenario, dict]:
    """A repair case as a scenario (Base commit, then the repair) plus its expectations."""
    folder = data_dir("fixtures") / "repairs" / "cases" / name
    if not (folder / "case.toml").is_file():
        raise ElenchusError(f"unknown repair case '{name}'; known cases: {', '.join(repair_case_names())}")
    data = tomllib.loads((folder / "case.toml").read_text())
    steps = [Step("pricing before the repair", "repairs/project")]
    if (folder / "base_overlay").is_dir():
        steps.append(Step("pricing, already fixed", f"repairs/cases/{name}/base_overlay"))
    steps.append(Step(f"repair: {name}", f"repairs/cases/{name}/overlay", tuple(data.get("delete", ()))))
    return Scenario(name, data["description"], data["description"], tuple(steps), None, data), data
