"""What the recorder plugin and the process reading its records agree on: the option that names the
record file, the exception names that never count as a kill, the checks a failure can surface in, and
where a run names the test it is running.

Standard library only: the evaluating process imports it without importing pytest (0.17 s of every
command's start-up), and ``plugin.py`` loads it from its file under a private name, as it is loaded.
"""

from __future__ import annotations

from pathlib import Path

RECORD_OPTION = "--elenchus-record"

#: Exceptions that say the code could not load, never what it did: not a kill wherever they surface.
NEVER_A_KILL_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "SyntaxError", "IndentationError",
                                     "TabError"})

#: Where a failure surfaced inside the test: a check statement, or null.
CHECKS = ("assert", "assert-call", "raises-block")


def running_path(record_path: Path) -> Path:
    """Where the run's running test is named while it runs (the plugin's ``Recorder._mark``)."""
    return record_path.with_name(record_path.name + ".running")
