"""Every registered mutation family runs its own before/after examples."""

from __future__ import annotations

import re

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from elenchus.families import FAMILIES, Example, Family
from elenchus.mutate import _apply, generate

OPERATOR_VOCABULARY = re.compile(
    r"\b(ROR|AOR|COR|LCR|SDL|UOI|ABS|operators?|mutation operators?)\b", re.IGNORECASE)

EXAMPLES = [
    pytest.param(family, example, id=f"{key}-{index}")
    for key, family in FAMILIES.items()
    for index, example in enumerate(family.examples)
]


def edit_stays_within(before: str, after: str, line: int, end_line: int) -> bool:
    """Whether ``after`` keeps every line of ``before`` outside lines ``line..end_line``."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    kept_tail = len(old) - end_line
    return (new[: line - 1] == old[: line - 1]
            and new[len(new) - kept_tail:] == old[end_line:]
            and len(new) >= (line - 1) + kept_tail)


def quoted_code(sentence: str) -> list[str]:
    return re.findall(r"`([^`]+)`", sentence)


def test_the_family_registry_lists_at_least_twelve_families_by_their_own_key():
    assert len(FAMILIES) >= 12
    for key, family in FAMILIES.items():
        assert isinstance(family, Family)
        assert family.key == key
        assert family.title and family.title != family.key
        assert family.risk_weight >= 1
        assert family.examples and all(isinstance(e, Example) for e in family.examples)


@pytest.mark.parametrize(("family", "example"), EXAMPLES)
def test_each_family_example_mutates_to_exactly_its_after_source(family, example):
    mutants, _ = generate("example.py", example.before)
    matching = [m for m in mutants if m.family == family.key and m.mutated_source == example.after]
    assert matching, f"{family.key} did not produce the example's after-source"
    mutant = matching[0]
    assert mutant.changed_intent == example.changed_intent
    assert mutant.incident == example.incident

    cst.parse_module(example.after)
    compile(example.after, "example.py", "exec")

    assert edit_stays_within(example.before, example.after, mutant.line, mutant.end_line), \
        "the rest of the file is not byte-identical"


@pytest.mark.parametrize(("family", "example"), EXAMPLES)
def test_each_family_example_incident_names_the_concrete_code_and_no_operator(family, example):
    flat_source = " ".join(example.before.split())
    snippets = quoted_code(example.incident)
    assert snippets, "the incident quotes no code"
    assert any(s in flat_source for s in snippets), "the incident names no code from the source"
    for sentence in (example.incident, example.changed_intent):
        assert not OPERATOR_VOCABULARY.search(sentence)


@pytest.mark.parametrize("family", list(FAMILIES.values()), ids=list(FAMILIES))
def test_every_site_a_family_finds_changes_the_code_and_still_parses(family):
    for example in family.examples:
        wrapper = MetadataWrapper(cst.parse_module(example.before))
        sites = list(family.find_sites(wrapper))
        assert sites
        for site in sites:
            mutated = _apply(wrapper.module, site)
            assert mutated != example.before
            cst.parse_module(mutated)
            assert site.family == family.key
            for sentence in (site.incident, site.changed_intent, site.expected_detection):
                assert sentence and not OPERATOR_VOCABULARY.search(sentence)


def test_a_file_with_no_site_for_any_family_yields_no_mutant_and_stays_byte_identical():
    source = "import os\n\n# nothing to mutate here\nPATH = os.sep\n"
    wrapper = MetadataWrapper(cst.parse_module(source))
    for family in FAMILIES.values():
        assert list(family.find_sites(wrapper)) == []
    assert generate("quiet.py", source) == ((), ())


def test_dropped_guard_keeps_the_comment_above_it_and_uses_pass_when_the_guard_stands_alone():
    source = "def check(x):\n    # refuse negatives\n    if x < 0:\n        raise ValueError(x)\n"
    mutants, _ = generate("guard.py", source)
    dropped = [m for m in mutants if m.family == "dropped-guard"]
    assert [m.mutated_source for m in dropped] == [
        "def check(x):\n    # refuse negatives\n    pass\n"]


def test_negation_parenthesizes_a_compound_condition_so_its_meaning_is_inverted_whole():
    source = "def f(a, b):\n    while a or b:\n        a, b = b, None\n"
    mutants, _ = generate("neg.py", source)
    negated = [m.mutated_source for m in mutants if m.family == "negated-condition"]
    assert negated == ["def f(a, b):\n    while not (a or b):\n        a, b = b, None\n"]
