"""Apply a unified diff to a disposable snapshot (``capture --proposed-patch``).

The patch is applied only inside a snapshot Elenchus created; every hunk must
match its context exactly, so a patch made against another revision is refused
rather than half applied. No external program (git apply, patch) is run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from elenchus.errors import ElenchusError

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class PatchError(ElenchusError):
    pass


@dataclass(frozen=True, slots=True)
class FilePatch:
    old_path: str | None  # None: the file is created
    new_path: str | None  # None: the file is deleted
    hunks: tuple[tuple[int, tuple[str, ...]], ...]  # (old start line, hunk lines with their ' '/'-'/'+')


def _strip(name: str) -> str | None:
    name = name.split("\t")[0].strip()
    if name == "/dev/null":
        return None
    parts = PurePosixPath(name).parts
    if parts and parts[0] in ("a", "b"):
        parts = parts[1:]
    path = PurePosixPath(*parts)
    if path.is_absolute() or ".." in path.parts or not parts:
        raise PatchError(f"the patch names an unsafe path {name!r}; only paths inside the repository are allowed")
    return path.as_posix()


def parse(text: str) -> tuple[FilePatch, ...]:
    lines = text.splitlines()
    patches: list[FilePatch] = []
    index = 0
    while index < len(lines):
        if not (lines[index].startswith("--- ") and index + 1 < len(lines) and lines[index + 1].startswith("+++ ")):
            index += 1
            continue
        old, new = _strip(lines[index][4:]), _strip(lines[index + 1][4:])
        index += 2
        hunks: list[tuple[int, tuple[str, ...]]] = []
        while index < len(lines) and lines[index].startswith("@@"):
            match = _HUNK.match(lines[index])
            if not match:
                raise PatchError(f"malformed hunk header at patch line {index + 1}: {lines[index]!r}")
            old_count = int(match.group(2) or "1")
            new_count = int(match.group(4) or "1")
            start = int(match.group(1))
            index += 1
            body: list[str] = []
            seen_old = seen_new = 0
            while index < len(lines) and (seen_old < old_count or seen_new < new_count):
                line = lines[index]
                if line.startswith("\\"):
                    index += 1
                    continue
                tag = line[:1] or " "
                if tag not in " +-":
                    raise PatchError(f"unexpected line in a hunk at patch line {index + 1}: {line!r}")
                body.append(tag + line[1:])
                seen_old += tag in " -"
                seen_new += tag in " +"
                index += 1
            hunks.append((start, tuple(body)))
        patches.append(FilePatch(old, new, tuple(hunks)))
    if not patches:
        raise PatchError("the patch holds no file change (expected unified diff '---'/'+++' headers)")
    return tuple(patches)


def _apply_hunks(original: list[str], hunks: tuple[tuple[int, tuple[str, ...]], ...], path: str) -> list[str]:
    result: list[str] = []
    cursor = 0
    for start, body in hunks:
        expected = [line[1:] for line in body if line[0] in " -"]
        position = max(start - 1, 0) if expected else start
        if original[position:position + len(expected)] != expected:
            raise PatchError(f"the patch does not apply to {path}: the hunk at line {start} does not match the "
                             "reference revision; make the patch against --reference")
        result += original[cursor:position]
        result += [line[1:] for line in body if line[0] in " +"]
        cursor = position + len(expected)
    return result + original[cursor:]


def apply(root: Path, text: str) -> tuple[str, ...]:
    """Apply the unified diff ``text`` to the tree at ``root``; returns the touched paths."""
    touched = []
    for patch in parse(text):
        target = patch.new_path or patch.old_path
        assert target is not None
        if patch.old_path is not None:
            source = root / patch.old_path
            if not source.is_file():
                raise PatchError(f"the patch changes {patch.old_path}, which the reference revision does not have")
            original = source.read_text().splitlines()
        else:
            original = []
        updated = _apply_hunks(original, patch.hunks, target)
        if patch.new_path is None:
            (root / patch.old_path).unlink()  # type: ignore[operator]
        else:
            destination = root / patch.new_path
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_text("\n".join(updated) + ("\n" if updated else ""))
            if patch.old_path and patch.old_path != patch.new_path:
                (root / patch.old_path).unlink()
        touched.append(target)
    return tuple(touched)
