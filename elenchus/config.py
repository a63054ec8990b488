"""Project settings from ``[tool.elenchus]`` in the repository's pyproject.toml.

Only classification settings are read from the repository: they describe where
tests and importable code live. Nothing in them can widen what Elenchus is allowed to run.
"""

from __future__ import annotations

import fnmatch
import tomllib
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


def _strings(table: dict, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    value = table.get(key)
    if value is None:
        return default
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ElenchusError(
            f"[tool.elenchus] {key} must be a list of strings, got {value!r}; fix pyproject.toml"
        )
    return tuple(value)


def load_settings(pyproject_text: str | None) -> Settings:
    if not pyproject_text:
        return Settings()
    try:
        table = tomllib.loads(pyproject_text).get("tool", {}).get("elenchus", {})
    except tomllib.TOMLDecodeError as error:
        raise ElenchusError(f"pyproject.toml is not valid TOML ({error}); fix it or remove it") from None
    return Settings(
        test_patterns=_strings(table, "test-patterns", DEFAULT_TEST_PATTERNS),
        test_dirs=_strings(table, "test-dirs", DEFAULT_TEST_DIRS),
        infrastructure=_strings(table, "infrastructure", DEFAULT_INFRASTRUCTURE),
        exclude=_strings(table, "exclude", DEFAULT_EXCLUDE),
        source_roots=_strings(table, "source-roots", ()),
    )
