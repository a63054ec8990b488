"""`elenchus capture`: hands the parsed options to Capture mode (``modes/capture.py``)."""

from __future__ import annotations

from elenchus.modes.capture import Options, run

__all__ = ["Options", "run"]
