"""Mutant generation: one minimal libcst edit per site, rejected before running when pointless.

``generate`` parses a file once, asks every family in ``elenchus.mutation.families.FAMILIES``
for its sites inside the requested function spans, applies each site as exactly one
node-level edit (everything outside the edited node stays byte-identical), and
sorts the result into:

- ``Mutant`` records, ready to run, each with its intent, incident, expected
  detection and unified diff;
- ``Rejected`` records with the reason, never silently dropped: arid code
  (logging, output, messages, docstrings, annotations, display-only dunders,
  debug-only branches), code unreachable by clients (script blocks), mutants that
  do not compile, mutants whose compiled code equals the original's, and
  duplicates (the same compiled program as an earlier mutant).

A file longer than ``WINDOW_LINES`` is mutated one top-level statement at a time: each
*window* holds that statement at its own lines, so a change in a generated module of
megabytes parses, compiles and diffs only the statements it asks about (``FileMutator``).
``Draft`` is a mutant whose mutated file is not built yet, for planners that rank many.

libcst is used in this package and in ``elenchus.mutation.families`` only.

The package, by part: ``records`` (the records), ``generation`` (``generate``, ``FileMutator`` and
the builder), ``applying`` (one node-level edit), ``rejection`` (arid, equivalent and invalid
candidates), ``guarded`` (handlers widened around code that can raise nothing more), ``lines``
(watched lines and diffs) and ``exhaustive`` (mutmut's catalog, labelled).
"""

from elenchus.mutation.mutate.applying import _apply  # noqa: F401  (tests apply one site with it)
from elenchus.mutation.mutate.exhaustive import drafts_and_exhaustive, generate_exhaustive  # noqa: F401
from elenchus.mutation.mutate.generation import WINDOW_LINES, FileMutator, generate  # noqa: F401
from elenchus.mutation.mutate.lines import edited_lines
from elenchus.mutation.mutate.rejection import environment_faked
from elenchus.mutation.mutate.records import MODULE_SYMBOL, Draft, FunctionSpan, Mutant, Rejected  # noqa: F401

__all__ = [
    "Draft",
    "FileMutator",
    "FunctionSpan",
    "Mutant",
    "Rejected",
    "generate",
    "edited_lines",
    "environment_faked",
    "generate_exhaustive",
]
