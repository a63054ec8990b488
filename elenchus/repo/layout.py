"""Where the project's importable code lives: its source roots and top-level names.

A run must import the mutated copy, never the user's own source tree: every run puts
the workspace's source roots first on the import path and keeps other copies of the
project's top-level packages out of it (``elenchus.execution.plugin.isolate_imports``). The
roots come, in order, from ``[tool.elenchus] source-roots``, pytest's ``pythonpath``
setting, the setuptools/hatch package directories, a ``src/`` directory that holds
production code, and the repository root last.
"""

from __future__ import annotations

import configparser
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from elenchus.config import Settings
from elenchus.errors import ElenchusError
from elenchus.repo.snapshot import Snapshot

ROOT = "."


@dataclass(frozen=True, slots=True)
class SourceLayout:
    roots: tuple[str, ...]  # workspace-relative directories, first wins; "." is the repository root
    top_level: tuple[str, ...]  # importable names of the project's production packages and modules

    def module_name(self, path: str) -> str | None:
        """The dotted name a production file is imported as, from the first root holding it."""
        pure = PurePosixPath(path)
        for root in self.roots:
            if root == ROOT:
                relative = pure
            elif PurePosixPath(root) in pure.parents:
                relative = pure.relative_to(root)
            else:
                continue
            parts = list(relative.with_suffix("").parts)
            if parts and parts[-1] == "__init__":
                parts.pop()
            if parts and all(part.isidentifier() for part in parts):
                return ".".join(parts)
        return None


def _clean_root(value: str, origin: str) -> str:
    text = value.strip().replace("\\", "/").rstrip("/") or ROOT
    pure = PurePosixPath(text)
    if pure.is_absolute() or ".." in pure.parts:
        raise ElenchusError(f"{origin}: {value!r} must be a directory inside the repository, given "
                            "relative to its root (for example \"src\"); fix the setting")
    return pure.as_posix() if pure.parts else ROOT


def _pytest_pythonpath(snapshot: Snapshot) -> list[str]:
    """pytest's own ``pythonpath`` ini setting, wherever pytest would read it."""
    found: list[str] = []
    pyproject = snapshot.read("pyproject.toml")
    if pyproject:
        try:
            options = tomllib.loads(pyproject).get("tool", {}).get("pytest", {}).get("ini_options", {})
        except tomllib.TOMLDecodeError:
            options = {}
        value = options.get("pythonpath")
        found += [value] if isinstance(value, str) else [v for v in value or () if isinstance(v, str)]
    for name, section in (("pytest.ini", "pytest"), ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        text = snapshot.read(name)
        if not text:
            continue
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
        except configparser.Error:
            continue
        if parser.has_option(section, "pythonpath"):
            found += parser.get(section, "pythonpath").split()
    return found


def _package_dirs(snapshot: Snapshot) -> list[str]:
    """Package directories declared for setuptools or hatch builds."""
    found: list[str] = []
    pyproject = snapshot.read("pyproject.toml")
    if pyproject:
        try:
            tool = tomllib.loads(pyproject).get("tool", {})
        except tomllib.TOMLDecodeError:
            tool = {}
        package_dir = tool.get("setuptools", {}).get("package-dir", {})
        if isinstance(package_dir, dict) and isinstance(package_dir.get(""), str):
            found.append(package_dir[""])
        packages = tool.get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {}).get("packages")
        for package in packages if isinstance(packages, list) else ():
            if isinstance(package, str) and "/" in package.strip("/"):
                found.append(PurePosixPath(package.strip("/")).parent.as_posix())
    setup_cfg = snapshot.read("setup.cfg")
    if setup_cfg:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(setup_cfg)
            value = parser.get("options", "package_dir", fallback="")
        except configparser.Error:
            value = ""
        for line in value.splitlines():
            key, _, directory = line.partition("=")
            if not key.strip() and directory.strip():
                found.append(directory.strip())
    return found


def _top_level(files: Iterable[str], roots: tuple[str, ...], settings: Settings) -> tuple[str, ...]:
    layout = SourceLayout(roots, ())
    names: set[str] = set()
    for path in files:
        if settings.kind_of(path) != "production":
            continue
        name = layout.module_name(path)
        if name:
            names.add(name.split(".")[0])
    return tuple(sorted(names))


def detect_layout(snapshot: Snapshot, settings: Settings) -> SourceLayout:
    """The source roots and top-level names of the project in ``snapshot``."""
    candidates: list[str] = []
    for value in settings.source_roots:
        root = _clean_root(value, "[tool.elenchus] source-roots")
        if root != ROOT and not (snapshot.root / root).is_dir():
            raise ElenchusError(f"[tool.elenchus] source-roots names {value!r}, which is not a directory "
                                "of the evaluated revision; list the directories that hold your packages")
        candidates.append(root)
    for value in _pytest_pythonpath(snapshot) + _package_dirs(snapshot):
        try:
            candidates.append(_clean_root(value, "pythonpath"))
        except ElenchusError:
            continue  # pytest reports its own bad settings; an outside path is not a source root
    if any(f.startswith("src/") and settings.kind_of(f) == "production" for f in snapshot.files):
        candidates.append("src")
    candidates.append(ROOT)
    roots = tuple(r for r in dict.fromkeys(candidates) if r == ROOT or (snapshot.root / r).is_dir())
    return SourceLayout(roots, _top_level(snapshot.files, roots, settings))
