"""What the user sees while a run is in progress: a redrawn bar on a terminal, plain lines elsewhere.

A CI log or a pipe has no terminal to redraw, yet a long run must not look hung: there the
progress is a line every ``INTERVAL_SECONDS`` or every ``STEP`` of the runs, whichever comes
first (never more than one every ``PAUSE_SECONDS``), with the kills so far and an estimate of
the time left.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

INTERVAL_SECONDS = 10.0
STEP = 0.05  # a line at least every 5 % of the runs...
PAUSE_SECONDS = 2.0  # ...but not more often than this, so quick runs do not flood the log


class Progress:
    """Runs done / total, kills so far and the time left, for ``what`` (e.g. "mutant runs")."""

    def __init__(self, total: int, interactive: bool, echo: Callable[[str], None] | None = None,
                 what: str = "mutant runs") -> None:
        self.total = total
        self.done = 0
        self.killed: set[str] = set()  # the mutants (not the runs: one mutant runs in each cohort) caught so far
        self.what = what
        self.started = time.monotonic()
        self._echo = echo
        self._last_line = self.started
        self._last_done = 0
        self._bar = None
        if interactive and total > 0 and sys.stderr.isatty():
            from rich.progress import BarColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn

            self._bar = RichProgress(TextColumn("runs {task.completed}/{task.total}"), BarColumn(),
                                     TimeElapsedColumn(), TextColumn("{task.description}"),
                                     transient=True)
            self._task = self._bar.add_task("", total=total)
            self._bar.start()

    @property
    def kills(self) -> int:
        return len(self.killed)

    def advance(self, incident: str, outcome: str, mutant: str | None = None) -> None:
        """One run done; ``mutant`` (its id) counts it once among the mutants killed, whatever its cohorts."""
        self.done += 1
        if outcome == "killed":
            self.killed.add(mutant or f"run {self.done}")
        if self._bar is not None:
            self._bar.update(self._task, advance=1, description=f"{outcome}: {incident[:70]}")
            return
        now = time.monotonic()
        stepped = self.done - self._last_done >= max(1, self.total * STEP) and now - self._last_line >= PAUSE_SECONDS
        due = now - self._last_line >= INTERVAL_SECONDS or stepped
        if self._echo is not None and self.total > 0 and (due or self.done == self.total):
            self._echo(self.line(now))
            self._last_line, self._last_done = now, self.done

    def line(self, now: float | None = None) -> str:
        """``Progress: 12/40 mutant runs, 9 mutants killed, 31 s elapsed, about 1 min 33 s left``."""
        elapsed = (now if now is not None else time.monotonic()) - self.started
        left = ""
        if 0 < self.done < self.total:
            left = f", about {_duration(elapsed / self.done * (self.total - self.done))} left"
        killed = f"{self.kills} mutant{'' if self.kills == 1 else 's'} killed" if self.what == "mutant runs" \
            else f"{self.kills} killed"
        return (f"Progress: {self.done}/{self.total} {self.what}, {killed}, "
                f"{_duration(elapsed)} elapsed{left}")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"
