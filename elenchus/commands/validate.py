"""``elenchus validate KIND PATH``: check a document against its schema."""

from __future__ import annotations

from typing import Callable

from elenchus import schemas
from elenchus.exit_codes import ExitCode


def run(kind: str, path: str, echo: Callable[[str], object]) -> ExitCode:
    """Print a one-line confirmation, or raise the error that names what failed.

    An unknown kind raises InputGuardError; a missing or unreadable file raises
    ElenchusError; invalid JSON or a schema failure raises SchemaViolation with the
    JSON path. The CLI turns each into its message and exit code 2.
    """
    schemas.validate_file(kind, path)
    echo(f"valid: {path} is a {kind} document")
    return ExitCode.OK
