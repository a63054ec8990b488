"""Witnesses: a call that tells a surviving mutant apart from the code under evaluation.

A survivor tells a reviewer to write a test, so it has to be shown to differ. For each
survivor this module looks for a call of the mutated function, or of a public function
of the same module that reaches it, whose result differs between the code and the
mutant (``probes.search_input``: calls the tests made, the mutated constants and their
neighbours, the tests' literals, then a derandomized search), writes a ready-to-paste
test asserting the code's result, and keeps it only when a fresh workspace shows it
passing on the code and failing on the mutant at its assertion. A survivor for which a
real search found nothing is likely equivalent, not a gap; one that could not be
searched at all, or whose results could not be compared (values that are not
literals), stays a gap, with the reason. One in module-level code on a branch the import
here did not take is not searched: no call made here reaches it (``untaken_branch``).

The package: ``targets`` (what a witness calls, read from the source), ``search`` (one
survivor's search, its written test and its verdict) and ``survivors`` (every survivor of an
evaluation, one recording run, the searches in processes side by side). Everything the rest
of Elenchus uses is imported from here.
"""

from __future__ import annotations

from elenchus.analysis.witness.targets import (
    SETUP_TARGETS,
    SETUPS_TRIED,
    _lines_of,
    data_for,
    instance_setups_for,
    public_home,
    setups_for,
    targets_for,
)
from elenchus.analysis.witness.search import (
    Candidate,
    NoWitness,
    Placement,
    Verify,
    Witness,
    find_witness,
    misfit,
    placement_for,
    search_witness,
    settle,
    verifier,
)
from elenchus.analysis.witness.survivors import (
    CALLERS_PER_FUNCTION,
    _callers,
    _search_processes,
    _searched,
    untaken_branch,
    witness_survivors,
)
