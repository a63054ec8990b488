"""The dynamic half: concerns from what the runs measured, and from the checks the change weakened.

Fixture setup that dominates a test's cost (``dynamic_concerns``), tests that gave different results
on the same code (``flaky_concern``), and assertions a change loosened or whose failure it now
swallows (``weakened_concern``): evidence the evaluation gathers, turned into concerns with no
reading of the test files here.
"""

from __future__ import annotations

from collections.abc import Mapping

from elenchus.analysis.quality.concerns import Concern, ConcernKind, _ordered, _split_nodeid, _who

# Setup must exceed both bounds for a fixture-cost concern.
FIXTURE_COST_MIN_SETUP_SECONDS = 1.0
FIXTURE_COST_RATIO = 3.0


def dynamic_concerns(durations: Mapping[str, tuple[float, float]]) -> tuple[Concern, ...]:
    """Flag ``fixture-cost`` for each test (by pytest nodeid) whose setup dominates its run.

    ``durations`` maps nodeid to (setup_seconds, call_seconds). Setup dominates when
    it exceeds FIXTURE_COST_MIN_SETUP_SECONDS and FIXTURE_COST_RATIO times the call.
    The runs give no source line, so these concerns carry line 0.
    """
    concerns = []
    for nodeid, (setup, call) in durations.items():
        if setup > FIXTURE_COST_MIN_SETUP_SECONDS and setup > FIXTURE_COST_RATIO * call:
            path, test = _split_nodeid(nodeid)
            concerns.append(Concern(
                path, 0, test, ConcernKind.FIXTURE_COST,
                f"{_who(test, path)} spends {setup:.2f}s in fixture setup and {call:.2f}s "
                f"running, so its fixtures dominate what every run (and every mutant) "
                f"pays; a cheaper or shared, wider-scoped fixture keeps the same checks "
                f"for less time.",
            ))
    return _ordered(concerns)


def weakened_concern(path: str, line: int, test: str, kind: str, detail: str) -> Concern:
    """A check the change loosened, or whose failure it now swallows (found by comparing Base and Head)."""
    if kind == ConcernKind.SWALLOWED_ERROR:
        return Concern(path, line, test, ConcernKind.SWALLOWED_ERROR,
                       f"this change silences the test's check: {detail.rstrip('.')}; let the assertion fail "
                       "the test.")
    return Concern(path, line, test, ConcernKind.LOOSENED_ASSERTION,
                   f"this change weakens the test's check: {detail.rstrip('.')}; confirm the looser "
                   "expectation is what the code promises.")


def flaky_concern(nodeid: str) -> Concern:
    """A ``flaky`` concern (line 0) for a test that gave different results on the same code."""
    path, test = _split_nodeid(nodeid)
    return Concern(
        path, 0, test, ConcernKind.FLAKY,
        f"{_who(test, path)} passed and failed on repeated runs of the same code, so its "
        f"result is not evidence either way (it was counted as neither a kill nor a "
        f"survival); make it deterministic: fixed seeds, no sleeps, no shared state "
        f"between tests.",
    )
