"""`elenchus harden`: hands the parsed options to the hardening mode (``modes/harden.py``)."""

from __future__ import annotations

from elenchus.modes.evaluate import Options
from elenchus.modes.harden import apply, run

__all__ = ["Options", "apply", "run"]
