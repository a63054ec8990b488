"""Probes for Capture mode: tests that tell a reference function from one of its mutants.

The engine has five steps, each a function that returns a frozen record:

1. ``record_calls`` runs the reference tests once, in a fresh copy, with the
   ``elenchus.execution.callrecord`` plugin, and returns the literal arguments each target
   function actually received (``CallSample``).
2. ``find_distinguishing_input`` looks for an input on which a mutant of a
   module-level function observably differs from the reference: first the recorded
   samples, then those with keyword arguments other tests pass (``keywords_in``); then
   boundary candidates, each a recorded call (or a default call) with one argument
   replaced by a constant of the mutated lines or its neighbour, by a literal
   the related tests write, or by an empty, zero, negative or None value of the
   argument's type; then a bounded, derandomized Hypothesis search over inputs built
   from the function's signature (annotations through ``from_type``, defaults) and the
   values seen in the samples. Calls run in two driver processes
   (``callrecord.serve``), one in a copy of the reference and one in a copy with the
   mutant applied; no user code is ever imported into this process. A difference counts only when a probe can fail
   *at its assertion* on it: two unequal literal return values, or the reference
   raising where the mutant returns, or the mutant raising (another exception) where
   the reference returns (or raises): the probe's call sits inside its check, so that
   exception fails the check. A mutant that hangs or returns something that is not a
   literal where the reference returns a value is not used.
3. ``write_probe`` turns a ``Distinction`` into a readable pytest file that imports
   only the public function, calls it with the literal input and asserts the
   reference's value (or ``pytest.raises`` its exception); never call order, call
   counts, private attributes or intermediate state.
4. ``verify_probe`` / ``check_host_probe`` keep a probe only when it passes on the
   reference and fails on a mutant at its assertion, and touches no private names
   (``private_names_in``). Host-written probes go through exactly the same rules.
5. ``run_probe`` runs a probe against a proposed revision: passes,
   behavioural-failure (with the proposed output read by the driver),
   not-comparable (the API no longer fits the probe) or inconclusive.

Hypothesis is used here only.

Limits: only public, synchronous functions and methods of module-level classes get generated
probes (a generator's call is read as what it yields, ``list(f(x))``; nested functions, private
functions and modules are reported by ``unsupported_reason``); return values, raised exception
types, arguments and receivers changed in place and printed output are compared; inputs must be Python
literals or the standard library's dates, times, durations, Decimals and fractions
(``callrecord.argument_repr``), outputs literals or values a constructor rebuilds; a
bare float result is compared approximately (``pytest.approx`` defaults), containers of floats exactly.

The package, by step: ``common`` (the records and what can be probed), ``drivers`` (the
driver processes and the recording run), ``compare`` (what counts as a difference),
``boundary``, ``designed`` and ``commands`` (the candidate inputs), ``shapes`` (the Hypothesis search
space), ``search`` (the input search), ``writing`` (probe files) and ``verification``
(keeping probes, and running them against a proposal). Everything the rest of Elenchus
uses is imported from here.
"""

from __future__ import annotations

from elenchus.analysis.probes.common import (
    CallSample,
    Distinction,
    Probe,
    ProbeCheck,
    ProbeOutcome,
    ProbeOutcomeKind,
    method_kind,
    module_name_for,
    public_symbol,
    unsupported_reason,
)
from elenchus.analysis.probes.drivers import (
    CALLRECORD_MODULE,
    DRIVER_START_TIMEOUT,
    MAX_DRIVER_RESTARTS,
    PER_CALL_TIMEOUT,
    RECORD_TIMEOUT,
    _read_samples,
    record_calls,
)
from elenchus.analysis.probes.boundary import TEST_LITERALS, keywords_in, literals_in, mutated_constants
from elenchus.analysis.probes.designed import _in_text, _matching
from elenchus.analysis.probes.variants import swapped_calls, table_swaps
from elenchus.analysis.probes.search import (
    BOUNDARY_BUDGET,
    RECEIVERS_TRIED,
    SEARCH_BUDGET,
    SEARCH_SECONDS,
    InputSearch,
    find_distinguishing_input,
    search_input,
)
from elenchus.analysis.probes.writing import arguments_narrated, call_text, host_probe, write_probe
from elenchus.analysis.probes.verification import (
    PROBE_TIMEOUT,
    ProbeRun,
    check_host_probe,
    passes_on,
    private_names_in,
    run_probe,
    verify_probe,
)

__all__ = [
    "CallSample",
    "Distinction",
    "Probe",
    "ProbeCheck",
    "ProbeOutcome",
    "ProbeOutcomeKind",
    "check_host_probe",
    "find_distinguishing_input",
    "host_probe",
    "keywords_in",
    "literals_in",
    "module_name_for",
    "private_names_in",
    "record_calls",
    "run_probe",
    "unsupported_reason",
    "verify_probe",
    "write_probe",
]
