"""What the user sees while a run is in progress: a progress line on a terminal, quiet otherwise."""

from __future__ import annotations

import sys
import time


class Progress:
    """Mutants done / total, the current incident and elapsed time, redrawn on one stderr line."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled and total > 0 and sys.stderr.isatty()
        self.started = time.monotonic()
        self._bar = None
        if self.enabled:
            from rich.progress import BarColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn

            self._bar = RichProgress(TextColumn("runs {task.completed}/{task.total}"), BarColumn(),
                                     TimeElapsedColumn(), TextColumn("{task.description}"),
                                     transient=True)
            self._task = self._bar.add_task("", total=total)
            self._bar.start()

    def advance(self, incident: str, outcome: str) -> None:
        self.done += 1
        if self._bar is not None:
            self._bar.update(self._task, advance=1, description=f"{outcome}: {incident[:70]}")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
