"""`elenchus evaluate`: hands the parsed options to the evaluation engine (``modes/evaluate.py``)."""

from __future__ import annotations

from elenchus.modes.evaluate import FAIL_ON_CHOICES, Options, run

__all__ = ["FAIL_ON_CHOICES", "Options", "run"]
