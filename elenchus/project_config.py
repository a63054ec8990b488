"""``[tool.elenchus]`` in the repository's pyproject.toml: the evaluate settings a team keeps with
its code, merged under the command line, with where each effective value came from.

The file is the one in the working tree of ``--repo`` (what the user edits). It cannot widen
what the tests may do: ``allow-command``, ``allow-network`` and ``isolation = "none"`` are
refused there (a change under review could otherwise grant itself permission); they are
command-line options only.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elenchus.config import (
    DEFAULT_EXCLUDE,
    DEFAULT_INFRASTRUCTURE,
    DEFAULT_TEST_DIRS,
    DEFAULT_TEST_PATTERNS,
)
from elenchus.errors import InputGuardError
from elenchus.guards import (
    BUDGET_DEFAULT,
    SEARCH_BUDGET_DEFAULT,
    TIMEOUT_CONSTANT_DEFAULT,
    TIMEOUT_FACTOR_DEFAULT,
    WITNESS_TIME_DEFAULT,
)
from elenchus.execution.sandbox import FILE_SIZE_MB_DEFAULT, MEMORY_MB_DEFAULT, PROCESSES_DEFAULT

FILE = "pyproject.toml"
TABLE = "[tool.elenchus]"

# file key -> the evaluate command's parameter it sets
OPTIONS: dict[str, str] = {
    "scope": "scope", "target": "target", "budget": "budget", "jobs": "jobs", "timeout-factor": "timeout_factor",
    "timeout-constant": "timeout_constant",
    "search-budget": "search_budget", "witness-time": "witness_time", "witnesses": "witnesses",
    "fail-on": "fail_on", "runner": "runner", "test-selection": "test_selection", "exhaustive": "exhaustive",
    "isolation": "isolation", "require-isolation": "require_isolation", "max-memory": "max_memory",
    "max-processes": "max_processes", "max-file-size": "max_file_size", "cluster": "cluster",
}

# options that only mean something with scope = "target"
SCOPE_TARGET_ONLY = ("target", "exhaustive")

# what applies when neither the command line nor the file sets an option
DEFAULTS: dict[str, Any] = {
    "scope": "asked in a terminal (current-change recommended); required elsewhere",
    "target": "none", "budget": BUDGET_DEFAULT, "jobs": "the number of CPUs, at most 4",
    "timeout-factor": TIMEOUT_FACTOR_DEFAULT, "timeout-constant": TIMEOUT_CONSTANT_DEFAULT,
    "search-budget": SEARCH_BUDGET_DEFAULT,
    "witness-time": WITNESS_TIME_DEFAULT, "witnesses": True, "fail-on": [], "runner": "collected",
    "test-selection": "coverage", "exhaustive": False, "isolation": "auto", "require-isolation": False,
    "max-memory": MEMORY_MB_DEFAULT, "max-processes": PROCESSES_DEFAULT, "max-file-size": FILE_SIZE_MB_DEFAULT,
    "cluster": "none: every run here",
}

# keys that describe the project (``config.load_settings``, ``secrecy.configure``), with their defaults
CLASSIFICATION: dict[str, tuple[str, ...]] = {
    "test-patterns": DEFAULT_TEST_PATTERNS, "test-dirs": DEFAULT_TEST_DIRS, "infrastructure": DEFAULT_INFRASTRUCTURE,
    "exclude": DEFAULT_EXCLUDE, "source-roots": (),
    "secret-files": (), "secret-variables": (),  # read by ``secrecy.configure``, added to the built-in patterns
}


@dataclass(frozen=True, slots=True)
class Setting:
    key: str
    value: Any
    origin: str  # "command line", "pyproject.toml [tool.elenchus]" or "default"


def read_table(repo: str | Path) -> tuple[dict[str, Any], Path | None]:
    """The validated ``[tool.elenchus]`` table of ``repo``'s pyproject.toml ({} when there is none)."""
    path = Path(repo) / FILE
    if not path.is_file():
        return {}, None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InputGuardError(FILE, f"{path} is not valid TOML ({error}); fix it (nothing was run)") from None
    table = data.get("tool", {}).get("elenchus", {})
    if not isinstance(table, dict):
        raise InputGuardError(TABLE, f"{path}: tool.elenchus must be a table; fix pyproject.toml (nothing was run)")
    if not table:
        return table, path
    from elenchus.schemas import config_problems  # jsonschema loads its metaschemas: only for a table to check

    problems = config_problems(table)
    if len(problems) == 1:
        [(key, detail)] = problems
        raise InputGuardError(f"{TABLE} {key}" if key else TABLE,
                              f"{path}: {detail.rstrip('.')}; fix pyproject.toml (nothing was run)")
    if problems:  # every one at once: a fix-and-rerun loop per key wastes the user's time
        lines = "".join(f"\n  - {detail.rstrip('.')}" for _, detail in problems)
        raise InputGuardError(TABLE, f"{path} has {len(problems)} settings to fix (nothing was run):{lines}")
    return table, path


def merge(params: Mapping[str, Any], given: Callable[[str], bool], table: Mapping[str, Any]) -> tuple[
        dict[str, Any], list[Setting]]:
    """``params`` with every option the command line did not give (``given(name)`` is False) taken
    from ``table``; and each setting with its origin."""
    merged = dict(params)
    settings = []
    # A scope chosen on the command line replaces the file's: the file's target (and exhaustive) belong to
    # the file's scope = "target" and would otherwise make the command line's scope fail its guards.
    other_scope = params.get("scope") if given("scope") and params.get("scope") != "target" else None
    for key, name in OPTIONS.items():
        if given(name):
            settings.append(Setting(key, params.get(name), "command line"))
        elif key in table and other_scope and key in SCOPE_TARGET_ONLY:
            settings.append(Setting(key, DEFAULTS[key], f"default (the file's {key} applies to scope \"target\" "
                                                        f"only, and --scope {other_scope} was given)"))
        elif key in table:
            merged[name] = _as_option(table[key])
            settings.append(Setting(key, table[key], f"{FILE} {TABLE}"))
        else:
            settings.append(Setting(key, DEFAULTS[key], "default"))
    for key, default in CLASSIFICATION.items():
        if key in table:
            settings.append(Setting(key, table[key], f"{FILE} {TABLE}"))
        else:
            settings.append(Setting(key, list(default), "default"))
    return merged, settings


def _as_option(value: Any) -> Any:
    """A file value as the command line would have given it (the same guards then check it)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


def describe(settings: list[Setting], path: Path | None) -> list[str]:
    """Lines for ``elenchus config``."""
    lines = [f"Settings file: {path}" if path else f"Settings file: none ({FILE} has no {TABLE} table here)"]
    width = max(len(s.key) for s in settings)
    for setting in settings:
        value = _shown(setting.value)
        lines.append(f"  {setting.key.ljust(width)} = {value}    [{setting.origin}]")
    return lines


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(f'"{v}"' for v in value) + "]"
    if isinstance(value, str):  # a number given on the command line reads as one; a described default as prose
        return value if " " in value or value.replace(".", "", 1).isdigit() else f'"{value}"'
    return str(value)
