"""Test Quality Concerns (SPEC 4.6): what the tests themselves risk, apart from detection.

The static half reads test files with libcst and flags patterns that make a test
pass while the behaviour it names is wrong (missing or weak assertions, swallowed
failures), couple it to implementation details (private attributes, interaction
checks on dependencies the code owns), make it unreliable (sleeps, unseeded
randomness) or remove protection outright (deleted tests, added skips).

The dynamic half turns what the runs measured into concerns: fixture setup that
dominates a test's cost, and tests that gave different results on the same code.

Every ``why`` is written for the person who owns the tests: what can go wrong for
them, and what to check instead, preferring the output the caller gets, then the
final state they can observe, then communication at boundaries the code does not
own. No concern ever recommends a brittle assertion just to kill a mutant.

The package, by part: ``concerns`` (the records and their order), ``static`` (``analyze``, with
``parsing``, ``scan`` and ``expressions`` below it) and ``dynamic`` (concerns from run data).
"""

from elenchus.analysis.quality.concerns import Concern, ConcernKind, TestFile
from elenchus.analysis.quality.dynamic import (  # noqa: F401  (weakened_concern: the evaluation uses it)
    FIXTURE_COST_MIN_SETUP_SECONDS,
    FIXTURE_COST_RATIO,
    dynamic_concerns,
    flaky_concern,
    weakened_concern,
)
from elenchus.analysis.quality.static import analyze

__all__ = [
    "Concern",
    "ConcernKind",
    "FIXTURE_COST_MIN_SETUP_SECONDS",
    "FIXTURE_COST_RATIO",
    "TestFile",
    "analyze",
    "dynamic_concerns",
    "flaky_concern",
]
