"""Input guards for explicit numeric options (SPEC 10).

An explicit value that is zero, negative, non-integer or out of range stops the
run with the guard's name; it is never clamped. Omitting a value selects the
default, which is not an error.
"""

from __future__ import annotations

import math

from elenchus.errors import InputGuardError

BUDGET_DEFAULT, BUDGET_RANGE = 16, (1, 16384)
SEARCH_BUDGET_DEFAULT, SEARCH_BUDGET_RANGE = 64, (1, 1024)
JOBS_RANGE = (1, 64)
TIMEOUT_FACTOR_DEFAULT, TIMEOUT_FACTOR_MAX = 3.0, 100.0


def integer_in_range(guard: str, raw: str | int | None, default: int, lo: int, hi: int) -> int:
    if raw is None:
        return default
    text = str(raw).strip()
    try:
        value = int(text, 10)
    except ValueError:
        raise InputGuardError(guard, f"expected a whole number from {lo} to {hi}, got {text!r}") from None
    if not lo <= value <= hi:
        raise InputGuardError(guard, f"expected a whole number from {lo} to {hi}, got {value}; "
                                     "nothing was run or changed")
    return value


def budget(raw: str | int | None) -> int:
    return integer_in_range("budget", raw, BUDGET_DEFAULT, *BUDGET_RANGE)


def search_budget(raw: str | int | None) -> int:
    return integer_in_range("search-budget", raw, SEARCH_BUDGET_DEFAULT, *SEARCH_BUDGET_RANGE)


WITNESS_TIME_DEFAULT, WITNESS_TIME_MAX = 5.0, 600.0
#: Seconds every run may take beyond the timeout factor times its tests' baseline time (PIT's timeoutConst).
TIMEOUT_CONSTANT_DEFAULT, TIMEOUT_CONSTANT_MAX = 5.0, 600.0


def seconds_up_to(guard: str, raw: str | float | None, default: float, most: float) -> float:
    """A number of seconds above 0 and at most ``most``; ``default`` when not given."""
    if raw is None:
        return default
    text = str(raw).strip()
    try:
        value = float(text)
    except ValueError:
        raise InputGuardError(guard, f"expected a number of seconds above 0 and at most {most:g}, "
                                     f"got {text!r}") from None
    if not math.isfinite(value) or value <= 0 or value > most:
        raise InputGuardError(guard, f"expected a number of seconds above 0 and at most {most:g}, "
                                     f"got {text}; nothing was run")
    return value


def witness_time(raw: str | float | None) -> float:
    """Seconds of input search per surviving mutant: above 0, at most 600."""
    return seconds_up_to("witness-time", raw, WITNESS_TIME_DEFAULT, WITNESS_TIME_MAX)


def timeout_constant(raw: str | float | None) -> float:
    """Seconds a run may take beyond the factor times its baseline: above 0, at most 600. A fast suite
    whose hung mutants should end sooner lowers it; a machine with slow start-up raises it."""
    return seconds_up_to("timeout-constant", raw, TIMEOUT_CONSTANT_DEFAULT, TIMEOUT_CONSTANT_MAX)


def jobs(raw: str | int | None, default: int) -> int:
    return integer_in_range("jobs", raw, default, *JOBS_RANGE)


def timeout_factor(raw: str | float | None) -> float:
    if raw is None:
        return TIMEOUT_FACTOR_DEFAULT
    text = str(raw).strip()
    try:
        value = float(text)
    except ValueError:
        raise InputGuardError("timeout-factor", f"expected a number above 0 and at most "
                                                f"{TIMEOUT_FACTOR_MAX:g}, got {text!r}") from None
    if not math.isfinite(value) or value <= 0 or value > TIMEOUT_FACTOR_MAX:
        raise InputGuardError("timeout-factor", f"expected a number above 0 and at most "
                                                f"{TIMEOUT_FACTOR_MAX:g}, got {text}; nothing was run")
    return value
