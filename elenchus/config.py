"""Project settings from ``[tool.elenchus]`` in the repository's pyproject.toml.

Only classification settings are read from the repository: they describe where
tests and importable code live. Nothing in them can widen what Elenchus is allowed to run.
"""

from __future__ import annotations

import configparser
import fnmatch
import json
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from elenchus.errors import ElenchusError

DEFAULT_TEST_PATTERNS = ("test_*.py", "*_test.py")
DEFAULT_TEST_DIRS = ("tests", "test")
DEFAULT_INFRASTRUCTURE = ("conftest.py",)
DEFAULT_EXCLUDE = ("docs/*", "doc/*", "benchmarks/*", "examples/*", "setup.py", "noxfile.py",
                   "fabfile.py", "*/migrations/*", "build/*", "dist/*", ".*/*")


@dataclass(frozen=True, slots=True)
class Settings:
    test_patterns: tuple[str, ...] = DEFAULT_TEST_PATTERNS
    test_dirs: tuple[str, ...] = DEFAULT_TEST_DIRS
    infrastructure: tuple[str, ...] = DEFAULT_INFRASTRUCTURE
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    source_roots: tuple[str, ...] = ()  # directories that hold the importable packages (detected when empty)

    def kind_of(self, path: str) -> str:
        """'test', 'infrastructure', 'production', or 'other' (not Python / excluded)."""
        pure = PurePosixPath(path)
        if pure.suffix != ".py":
            return "other"
        if any(fnmatch.fnmatchcase(pure.name, p) for p in self.infrastructure):
            return "infrastructure"
        if any(fnmatch.fnmatchcase(pure.name, p) for p in self.test_patterns):
            return "test"
        if any(part in self.test_dirs for part in pure.parts[:-1]):
            return "test"
        if any(fnmatch.fnmatchcase(path, p) for p in self.exclude):
            return "other"
        return "production"


def _strings(table: dict, key: str, default: tuple[str, ...], bad: list[str]) -> tuple[str, ...]:
    """The list of strings at ``key``; a bad value is added to ``bad`` (every one is reported at once)."""
    value = table.get(key)
    if value is None:
        return default
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        bad.append(f"{key} = {json.dumps(value, default=str)}: must be a list of strings, e.g. [\"a\", \"b\"]")
        return default
    return tuple(value)


def load_settings(pyproject_text: str | None) -> Settings:
    if not pyproject_text:
        return Settings()
    try:
        table = tomllib.loads(pyproject_text).get("tool", {}).get("elenchus", {})
    except tomllib.TOMLDecodeError as error:
        raise ElenchusError(f"pyproject.toml is not valid TOML ({error}); fix it or remove it") from None
    bad: list[str] = []
    settings = Settings(
        test_patterns=_strings(table, "test-patterns", DEFAULT_TEST_PATTERNS, bad),
        test_dirs=_strings(table, "test-dirs", DEFAULT_TEST_DIRS, bad),
        infrastructure=_strings(table, "infrastructure", DEFAULT_INFRASTRUCTURE, bad),
        exclude=_strings(table, "exclude", DEFAULT_EXCLUDE, bad),
        source_roots=_strings(table, "source-roots", (), bad),
    )
    if bad:
        raise ElenchusError(f"[tool.elenchus] in pyproject.toml has {len(bad)} setting(s) to fix: {'; '.join(bad)}")
    return settings


# -- pytest's own settings, read as data (never run) -------------------------------------------

#: The files pytest reads its settings from, in the order it looks for them in the root directory.
PYTEST_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
_FLAVOURS = {"pyproject.toml": "toml", "pytest.ini": "ini", ".pytest.ini": "ini", "tox.ini": "ini", "setup.cfg": "cfg"}
#: The test files pytest collects when its ``python_files`` setting is not given.
PYTEST_DEFAULT_FILES = ("test_*.py", "*_test.py")


def pytest_config_flavour(path: str) -> str | None:
    """How ``path`` holds pytest settings ("toml", "ini" or "cfg"), or None when it is not such a file."""
    return _FLAVOURS.get(PurePosixPath(path).name)


def pytest_ini_options(path: str, text: str | None) -> dict[str, object] | str:
    """The pytest ini options of a configuration file, or an error message."""
    if text is None:
        return {}
    flavour = pytest_config_flavour(path)
    if flavour == "toml":
        try:
            table = tomllib.loads(text).get("tool", {}).get("pytest", {})
        except tomllib.TOMLDecodeError as exc:
            return str(exc)
        options = table.get("ini_options", {})
        return dict(options) if isinstance(options, dict) else {}
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        return str(exc).splitlines()[0]
    section = "tool:pytest" if flavour == "cfg" else "pytest"
    return dict(parser[section]) if parser.has_section(section) else {}


def pytest_file_patterns(read: Callable[[str], str | None]) -> tuple[str, ...]:
    """The names of the files pytest collects tests from in this repository: ``python_files`` of the first
    configuration file at its root that holds pytest settings, else pytest's default."""
    for name in PYTEST_CONFIGS:
        text = read(name)
        options = pytest_ini_options(name, text)
        if text is None or isinstance(options, str) or not options and not name.endswith("pytest.ini"):
            continue  # (absent, unreadable, or no pytest settings: pytest looks at the next file)
        value = options.get("python_files") if isinstance(options, dict) else None
        if isinstance(value, str):
            return tuple(value.split()) or PYTEST_DEFAULT_FILES
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return tuple(value) or PYTEST_DEFAULT_FILES
        return PYTEST_DEFAULT_FILES
    return PYTEST_DEFAULT_FILES


def collected(paths: Iterable[str], patterns: Iterable[str]) -> tuple[str, ...]:
    """The ``paths`` whose file names match one of ``patterns`` (as pytest matches ``python_files``)."""
    patterns = tuple(patterns)
    return tuple(p for p in paths if any(fnmatch.fnmatchcase(PurePosixPath(p).name, pattern) for pattern in patterns))
