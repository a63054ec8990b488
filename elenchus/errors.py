"""One exception family. Each message says what happened, the value seen and the fix.

Expected errors map themselves to an exit code; anything else reaching the top-level
handler is an internal error.
"""

from __future__ import annotations

from elenchus.exit_codes import ExitCode


class ElenchusError(Exception):
    """Root of every error a user is meant to read."""

    exit_code: ExitCode = ExitCode.INPUT_ERROR

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __reduce__(self):  # survives crossing a worker-process boundary
        return (type(self), (self.message,))


class InputGuardError(ElenchusError):
    """An explicit value failed a named guard (SPEC 10): nothing was changed."""

    def __init__(self, guard: str, detail: str) -> None:
        super().__init__(f"input guard '{guard}' fired: {detail}")
        self.guard = guard
        self.detail = detail

    def __reduce__(self):
        return (type(self), (self.guard, self.detail))


class NotAGitRepository(ElenchusError):
    pass


class UnknownRevision(ElenchusError):
    pass


class EmptyDiff(ElenchusError):
    pass


class GitCallRefused(ElenchusError):
    """A git subcommand outside the read-only allowlist was requested."""

    exit_code = ExitCode.INTERNAL_ERROR


class GitFailed(ElenchusError):
    """An allowlisted git call exited non-zero; carries the command and its output."""

    def __init__(self, message: str, argv: tuple[str, ...] = (), returncode: int | None = None,
                 stderr: str = "") -> None:
        super().__init__(message)
        self.argv = argv
        self.returncode = returncode
        self.stderr = stderr

    def __reduce__(self):
        return (type(self), (self.message, self.argv, self.returncode, self.stderr))


class SnapshotUnavailable(ElenchusError):
    exit_code = ExitCode.BLOCKED


class SchemaViolation(ElenchusError):
    """A document failed its JSON schema; the message names the JSON path."""


class ContractError(ElenchusError):
    pass


class Blocked(ElenchusError):
    """The run cannot continue safely (baseline red, unsafe command, no runnable tests)."""

    exit_code = ExitCode.BLOCKED


class DecisionNeeded(ElenchusError):
    """A question must be answered before anything is generated (e.g. the scope)."""

    exit_code = ExitCode.DECISION_NEEDED


class IntentUnconfirmed(DecisionNeeded, ContractError):
    """Hardening was asked for intent nobody has confirmed: the user decides first (exit 3)."""


class NotImplementedYet(ElenchusError):
    exit_code = ExitCode.INTERNAL_ERROR


class IsolationUnavailable(ElenchusError):
    """--require-isolation was given and no sandbox can be built on this machine."""

    exit_code = ExitCode.BLOCKED
