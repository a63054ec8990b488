"""Locate the data shipped beside the package (schemas, fixture projects).

In a wheel they live under ``elenchus/_data``; in a source checkout or editable
install they are the repository's top-level ``schemas/`` and ``fixtures/``.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"Elenchus data directory '{name}' is missing from this install; reinstall the package"
    )
