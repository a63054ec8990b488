"""What a driver's call touches besides its result: the lines it ran (``Reach``), what it printed, and the
process-wide input it read (``watched``).

A sibling of ``callreplay.py``, loaded by it from its file under a private name: keep it self-contained,
standard library only, never an import of Elenchus.
"""

from __future__ import annotations

import hashlib
import io
import json
import operator
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any


class Reach:
    """Did a call run any of ``lines`` of ``path``? A trace declined for every other file.

    Lines that ran while the module was imported (module-level code) count for every call:
    the functions read what they built. With ``ran_lines``, those count only when one of them ran
    (``ran``): module-level code under an ``if`` the import did not take is reached by no call.
    """

    def __init__(self, path: str, lines: set[int], ran_lines: frozenset[int] | set[int] = frozenset()) -> None:
        self.path, self.lines, self.ran_lines = os.path.realpath(path), lines, ran_lines
        self.reached = self.at_import = self.ran = False
        self.sides: list[tuple[Any, Any]] = []  # what a boundary mutant's comparison compared (``tied``)
        # what a broadened handler caught in this call (``widened``): None, "same" (only errors the code's own
        # handler catches too) or "other" (one it lets through)
        self.caught: str | None = None
        self._mine: dict[str, bool] = {}  # code file name -> is it the watched file

    def start(self) -> None:
        sys.settrace(self._call)

    def _call(self, frame: Any, event: str, arg: Any) -> Any:
        name = frame.f_code.co_filename
        mine = self._mine.get(name)
        if mine is None:
            mine = self._mine[name] = os.path.realpath(name) == self.path
        return self._line if mine and event == "call" else None

    def _line(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and frame.f_lineno in self.lines:
            self.reached = True
        if event == "line" and frame.f_lineno in self.ran_lines:
            self.ran = True
        return self._line


#: The builtin name a search's copy of a boundary mutant compares through (``Reach.tied``).
TIED = "__elenchus_tied__"
#: The pairs of sides one call's comparison is noted with at most.
MAX_SIDES = 8
_COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def tied(reach: Reach, left: Any, right: Any, mutated: str, original: str) -> Any:
    """``left <mutated> right``, as the mutant compares; the call reaches the mutant only when the code's own
    operator would have answered otherwise (the two sides equal): elsewhere the two run alike."""
    result = _COMPARISONS[mutated](left, right)
    if len(reach.sides) < MAX_SIDES:  # (what the two sides held: a search makes one the other's next)
        reach.sides.append((left, right))
    try:
        if bool(_COMPARISONS[original](left, right)) != bool(result):
            reach.reached = True
    except Exception:  # noqa: BLE001 - a comparison that cannot be read as a truth value tells nothing
        pass
    return result


#: The builtin name a search's copy of a broadened handler catches through (``widened``).
WIDENED = "__elenchus_widened__"


def widened(reach: Reach, original: Any) -> type[Exception]:
    """What the mutant catches (``Exception``), asked while the error being matched is the one handled: the call
    reaches the mutant only when the code's own handler (``original``, its class or tuple) would have let that
    error through; elsewhere the two run alike."""
    error = sys.exc_info()[1]
    try:
        other = isinstance(error, Exception) and not isinstance(error, original)
    except TypeError:  # (a handler's classes no `isinstance` reads: the mutant's catch is all that is known)
        other = True
    if other:
        reach.reached = True
        reach.caught = "other"
    elif reach.caught is None:
        reach.caught = "same"
    return Exception


#: The builtin name a search's copy of a mutant evaluates its edited part through, where its line may run without
#: evaluating that part (``evaluated``).
EVALUATED = "__elenchus_evaluated__"


def evaluated(reach: Reach, value: Any) -> Any:
    """``value``, the edited part of a line just evaluated: the call reaches the mutant."""
    reach.reached = True
    return value


class Argv(list):  # type: ignore[type-arg]
    """The command line the code under test sees (the module's name alone), noting whether it was read: a
    call that parses it (``argparse``'s ``parse_args()``) does what the search never varies."""

    read = False

    def __getitem__(self, index: Any) -> Any:
        Argv.read = True
        return super().__getitem__(index)

    def __iter__(self) -> Iterator[Any]:
        Argv.read = True
        return super().__iter__()

    def __len__(self) -> int:
        Argv.read = True
        return super().__len__()


class Stdin(io.StringIO):
    """A standard input that notes whether the code under test read it: empty, or the text a call is given."""

    read_from = False

    def read(self, size: int | None = -1) -> str:
        Stdin.read_from = True
        return super().read(size)

    def readline(self, size: int | None = -1) -> str:
        Stdin.read_from = True
        return super().readline(size)

    def readlines(self, hint: int | None = -1) -> list[str]:
        Stdin.read_from = True
        return super().readlines(hint)

    def __iter__(self) -> Any:
        Stdin.read_from = True
        return super().__iter__()

    @property
    def buffer(self) -> io.BytesIO:
        Stdin.read_from = True
        return io.BytesIO(self.getvalue().encode("utf-8"))


#: The longest standard output or error a call's answer carries as text (longer is compared by its digest only).
MAX_PRINTED = 2000


class Output(io.StringIO):
    """Standard output or error as a call sees it: one the call closes (``with sys.stdout:``, as a command writing
    to ``-`` does) keeps what was printed, and says it was closed."""

    closed_by_call = False

    def close(self) -> None:
        Output.closed_by_call = True


def watched(call: Callable[[], dict[str, Any]], argv: Sequence[str] | None = None,
            stdin: str | None = None) -> dict[str, Any]:
    """``call``'s answer, with what the call printed (``"printed"``: a digest of its standard output and
    error, the two compared as a test's ``capsys`` would; ``"printed_text"``: the two texts themselves, when
    neither is longer than ``MAX_PRINTED``, for a test to assert) and the process-wide input it read
    (``"ambient"``: the command line, standard input), which every call of the search shares. ``argv``: the
    command line this call is given (a test sets ``sys.argv`` to it), an input of its own, never ambient; so is
    ``stdin``, the text its standard input holds (a test sets ``sys.stdin`` to a buffer of it)."""
    Argv.read = Stdin.read_from = Output.closed_by_call = False
    out, err = Output(), Output()
    kept = sys.stdout, sys.stderr, sys.argv, sys.stdin
    sys.stdout, sys.stderr = out, err
    # (each call its own: one that closes it, `with sys.stdin:`, leaves the next one whole)
    sys.stdin = Stdin(stdin or "")
    if argv is not None:
        sys.argv = Argv(argv)
    try:
        answer = call()
    finally:
        sys.stdout, sys.stderr, sys.argv, sys.stdin = kept
    printed = out.getvalue(), err.getvalue()
    if Output.closed_by_call:
        answer["closed_output"] = True
    if any(printed):
        answer["printed"] = hashlib.sha256(json.dumps(printed).encode("utf-8", "replace")).hexdigest()[:16]
        if max(map(len, printed)) <= MAX_PRINTED:
            answer["printed_text"] = list(printed)
    read = [name for name, flag in (("the command line", Argv.read and argv is None),
                                    ("standard input", Stdin.read_from and stdin is None)) if flag]
    if read:
        answer["ambient"] = read
    return answer
