"""Which public function a witness calls to reach a surviving mutant."""

from __future__ import annotations

import textwrap

import pytest

from elenchus.discover import function_spans
from elenchus.mutate import FunctionSpan, generate
from elenchus.witness import targets_for

SOURCE = textwrap.dedent("""
    LIMIT = 3


    def _scale(x):
        return x * 2


    def total(items):
        return sum(_scale(i) for i in items)


    def capped(x):
        return min(x, LIMIT)


    class Box:
        def size(self):
            return 1
""")


@pytest.mark.parametrize(("symbol", "expected"), [
    ("total", ["total"]),  # public: itself
    ("_scale", ["total"]),  # private: its public caller
    ("LIMIT", ["capped"]),  # a module constant: the functions that read it
    ("Box.size", []),  # a method no module function reaches: no witness can be searched
])
def test_a_witness_calls_the_mutated_function_or_the_nearest_public_function_reaching_it(symbol, expected):
    spans = [FunctionSpan("LIMIT", 2, 2), *(FunctionSpan(s.qualname, s.start, s.end) for s in function_spans(SOURCE))]
    mutants, _ = generate("m.py", SOURCE, spans)  # as the evaluation asks: module-level code by what it assigns
    mutant = next(m for m in mutants if m.symbol == symbol)
    assert targets_for(SOURCE, mutant) == expected
