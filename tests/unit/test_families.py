"""Every registered mutation family runs its own before/after examples."""

from __future__ import annotations

import re

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from elenchus.mutation.families import FAMILIES, Example, Family, SourceView
from elenchus.mutation.mutate import _apply, generate

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


# ------------------------------------------------------------ every example, line by line

def changed_lines(before: str, after: str) -> tuple[int, int]:
    """First and last line of ``before`` (1-based) that ``after`` changes, as one block."""
    old, new = before.splitlines(), after.splitlines()
    head = next(i for i, (a, b) in enumerate(zip([*old, None], [*new, None])) if a != b)
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head + 1, max(head + 1, len(old) - tail)


@pytest.mark.parametrize(("family", "example"), EXAMPLES)
def test_each_family_example_after_source_compiles_and_changes_only_the_edited_lines(family, example):
    assert example.after != example.before
    compile(example.after, "example.py", "exec")
    mutants, _ = generate("example.py", example.before)
    mutant = next(m for m in mutants if m.family == family.key and m.mutated_source == example.after)
    first, last = changed_lines(example.before, example.after)
    assert mutant.line <= first and last <= mutant.end_line


# ------------------------------------------------------------- module and class level

def sites_of(key: str, source: str) -> list:
    return list(FAMILIES[key].find_sites(MetadataWrapper(cst.parse_module(source))))


def mutants_of(key: str, source: str) -> list:
    return [m for m in generate("m.py", source)[0] if m.family == key]


def test_source_view_names_what_a_module_or_class_level_assignment_assigns():
    source = "MAX_SIZE = 10\n\nclass Config:\n    retries: int = 3\n    print(1)\n\nprint(2)\n"
    module = cst.parse_module(source)
    view = SourceView(MetadataWrapper(module, unsafe_skip_copy=True))
    ten, three = (n for n in view.nodes(cst.Integer) if n.value in ("10", "3"))
    one, two = (n for n in view.nodes(cst.Integer) if n.value in ("1", "2"))
    assert (view.who(ten), view.exercise(ten)) == ("`MAX_SIZE`", "uses `MAX_SIZE`")
    assert (view.who(three), view.exercise(three)) == ("`Config.retries`", "uses `Config.retries`")
    assert (view.who(one), view.exercise(one)) == ("the class body of `Config`", "uses `Config`")
    assert (view.who(two), view.exercise(two)) == ("module-level code", "imports the module")


def test_source_view_keeps_function_names_for_assignments_inside_functions():
    source = "def f():\n    limit = 10\n    return limit\n"
    view = SourceView(MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True))
    ten = next(view.nodes(cst.Integer))
    assert (view.who(ten), view.exercise(ten), view.assigned_name(ten)) == ("`f`", "calls `f`", None)


def test_constant_drift_moves_every_module_level_number_and_dataclass_default():
    source = ("from dataclasses import dataclass, field\n\nOFFSET = -5\nRATIO = 0.25\nBITS = 0xff\n\n"
              "@dataclass\nclass Job:\n    retries: int = 3\n    timeout: float = field(default=2.5)\n")
    changed = {m.incident.split(": ", 1)[1] for m in mutants_of("constant-drift", source)}
    assert changed == {
        "`OFFSET = -5` became `OFFSET = -6`",
        "`RATIO = 0.25` became `RATIO = 1.25`",
        "`BITS = 0xff` became `BITS = 0x100`",
        "`retries: int = 3` became `retries: int = 4`",
        "`timeout: float = field(default=2.5)` became `timeout: float = field(default=3.5)`",
    }


def test_constant_drift_moves_any_integer_in_a_function_but_leaves_its_floats_alone():
    source = "def area(r):\n    return 3.14159 * r ** 2\n"
    assert [m.mutated_source for m in mutants_of("constant-drift", source)] == [
        "def area(r):\n    return 3.14159 * r ** 3\n"]


def test_module_level_allow_lists_and_mappings_lose_one_entry_at_a_time_with_tidy_commas():
    source = ("ALLOWED = frozenset({'jpg', 'png'})\n"
              "ROUTES = {\n    'home': '/',  # landing page\n    'about': '/about',  # static\n}\n")
    dropped = [m.mutated_source for m in mutants_of("dropped-entry", source)]
    assert dropped == [
        "ALLOWED = frozenset({'png'})\n" + source.split("\n", 1)[1],
        "ALLOWED = frozenset({'jpg'})\n" + source.split("\n", 1)[1],
        "ALLOWED = frozenset({'jpg', 'png'})\nROUTES = {\n    'about': '/about',  # static\n}\n",
        "ALLOWED = frozenset({'jpg', 'png'})\nROUTES = {\n    'home': '/',  # landing page\n}\n",
    ]


def test_class_level_mapping_value_and_regex_constant_get_sites_named_after_the_attribute():
    source = "import re\n\nclass Form:\n    LIMITS = {'name': 40, 'strict': True}\n    SLUG_RE = re.compile(r'[a-z-]+')\n"
    incidents = {m.incident for m in mutants_of("changed-entry-value", source)}
    assert "`Form.LIMITS` maps `'name'` to `41` instead of `40`: `'name': 40` became `'name': 41`" in incidents
    slips = [m.incident for m in mutants_of("regex-slip", source)]
    assert ("`Form.SLUG_RE` no longer matches `-` with the pattern `r'[a-z-]+'`: the class `[a-z-]` "
            "became `[a-z]`") in slips


# ------------------------------------------------------------------------ no site

def test_dunder_assignments_get_no_site_from_any_family():
    source = ("__all__ = ['parse', 'format']\n__version__ = '1.2.3'\n__author__ = 'Ada'\n"
              "__slots__ = ('x', 'y')\nMETA = {'__doc__': None}\n__table__ = {'a': 1, 'b': 2}\n")
    wrapper = MetadataWrapper(cst.parse_module(source))
    sites = [s for family in FAMILIES.values() for s in family.find_sites(wrapper)]
    assert sites == []


def test_f_strings_get_no_regex_or_separator_or_constant_site():
    source = ("import re\n\nPREFIX_RE = re.compile(rf'^{PREFIX}[-_]+$')\n\n"
              "def row(a, b):\n    return f'{a},{b}'.split(f',')\n")
    for key in ("regex-slip", "wrong-separator", "constant-drift", "changed-entry-value"):
        assert sites_of(key, source) == []


def test_docstrings_get_no_site_from_the_string_families():
    source = ('"""Split on \',\' and match [-_.]+."""\n\n\nclass Parser:\n    """Rows; like a, b."""\n\n'
              '    def rows(self, text):\n        """Split on ,."""\n        return text\n')
    for key in ("regex-slip", "wrong-separator", "dropped-entry", "changed-entry-value", "bypassed-call"):
        assert sites_of(key, source) == []
    mutants, rejected = generate("doc.py", source)
    assert not [m for m in mutants if m.family == "constant-drift"]
    assert {r.reason for r in rejected} == {"arid: docstring"}


def test_a_call_used_as_a_statement_is_never_bypassed_or_stripped_of_a_step():
    source = ("def f(x, hi, s):\n    int(x)\n    min(x, hi)\n    s.replace('a', 'b')\n"
              "    s.encode().replace(b'a', b'b')\n    return None\n")
    assert sites_of("bypassed-call", source) == []
    assert sites_of("dropped-chain-step", source) == []


def test_bypassed_call_skips_literal_and_secondary_arguments():
    source = "def f(x, n):\n    return int('7') + round(x, 2) + int(x, 16) + str(1) + min(n)\n"
    bypassed = [s.changed_intent for s in sites_of("bypassed-call", source)]
    assert bypassed == ["believes `x` is already what `round(x, 2)` makes of it",
                        "believes `x` is already what `int(x, 16)` makes of it"]


def test_bypassed_call_keeps_a_multi_line_argument_valid_with_parentheses():
    source = "def names(extra):\n    return set(\n        list(extra)\n        + ['a']\n    ) | {'b'}\n"
    mutants = mutants_of("bypassed-call", source)
    assert mutants
    for mutant in mutants:
        compile(mutant.mutated_source, "m.py", "exec")


def test_dropped_copy_ignores_slice_assignment_deletion_and_copies_used_as_operands():
    source = ("def f(xs, ys, d):\n    xs[:] = ys\n    del ys[:]\n    both = set(xs) & set(ys)\n"
              "    return list(d) + [1]\n")
    assert sites_of("dropped-copy", source) == []


def test_dropped_copy_covers_loops_over_a_copy_and_copy_methods():
    source = "def prune(xs, d):\n    for x in xs[:]:\n        xs.remove(x)\n    return d.copy()\n"
    assert [m.mutated_source for m in mutants_of("dropped-copy", source)] == [
        "def prune(xs, d):\n    for x in xs:\n        xs.remove(x)\n    return d.copy()\n",
        "def prune(xs, d):\n    for x in xs[:]:\n        xs.remove(x)\n    return d\n",
    ]


def test_base_class_instance_needs_a_method_of_the_class_and_names_nested_classes_fully():
    source = ("class Outer:\n    class Money:\n        def double(self):\n"
              "            return self.__class__(self.cents * 2)\n\n"
              "        @staticmethod\n        def zero(cls):\n            return cls(0)\n\n"
              "        def later(self):\n            def make():\n                return type(self)(0)\n"
              "            return make\n")
    assert [s.incident for s in sites_of("base-class-instance", source)] == [
        "subclasses of `Outer.Money` get a plain `Outer.Money` back from `Outer.Money.double`: "
        "`self.__class__(self.cents * 2)` became `Outer.Money(self.cents * 2)`"]


def test_swapped_arguments_keeps_the_names_of_one_option_together_but_not_two_options_or_two_long_names():
    # (titlecase: `add_argument('-f', '--input-file')` the other way round names the same option `input_file`)
    source = ("def cmd(parser):\n    parser.add_argument('-f', '--input-file')\n"
              "    parser.add_argument('--wordlist', '--words')\n    parser.add_argument('-a', '-b')\n")
    assert [s.incident.split(": ", 1)[0] for s in sites_of("swapped-arguments", source)] == [
        "`cmd` calls `parser.add_argument` with `'--wordlist'` and `'--words'` in the wrong order",
        "`cmd` calls `parser.add_argument` with `'-a'` and `'-b'` in the wrong order"]


def test_regex_slip_skips_anchors_the_call_already_implies_and_escaped_plain_strings():
    source = ("import re\n\ndef f(s):\n    a = re.match(r'^\\w+', s)\n    b = re.fullmatch(r'\\d+$', s)\n"
              "    return a, b, re.search('\\\\d+', s)\n")
    kinds = [s.incident.split(": ", 1)[0] for s in sites_of("regex-slip", source)]
    assert kinds == [
        "`f` also matches where there is no `\\w`, though the pattern `r'^\\w+'` requires at least one",
        "`f` matches a single `\\w` where the pattern `r'^\\w+'` takes one or more",
        "`f` also matches where there is no `\\d`, though the pattern `r'\\d+$'` requires at least one",
        "`f` matches a single `\\d` where the pattern `r'\\d+$'` takes one or more",
    ]


def test_regex_slip_keeps_a_plus_at_an_end_of_a_pattern_whose_match_is_only_asked_whether_it_exists():
    # validators' `not re.search(r"\s|__+", value)`: `__+` made `__` finds a match wherever the code's did
    source = ("import re\n\ndef f(s):\n    if re.search(r'\\d+x', s) or bool(re.match(r'a\\w+', s)):\n"
              "        return not re.search(r'\\s|__+', s)\n"
              "    return re.search(r'x\\d+', s), re.match(r'\\d+x', s) is None\n")
    singles = [s.incident.split(": ", 1)[0] for s in sites_of("regex-slip", source) if "a single" in s.incident]
    assert singles == [  # (the match object handed back, or compared with None: what it matched still counts)
        "`f` matches a single `\\d` where the pattern `r'x\\d+'` takes one or more",
        "`f` matches a single `\\d` where the pattern `r'\\d+x'` takes one or more",
    ], singles


def test_regex_slip_skips_the_start_anchor_of_a_compiled_pattern_only_ever_matched_from_the_start():
    # (titlecase: `MAC_MC = regex.compile(r"^([Mm]c|MC)(\w.+)")`, read only as `MAC_MC.match(word)`)
    source = ("import re\n\nMAC = re.compile(r'^Mc\\w')\nDR = re.compile(r'^Dr$', re.I)\nAT = re.compile(r'^at')\n"
              "FROM = re.compile(r'^from')\n\n"
              "def f(word):\n    return MAC.match(word), DR.fullmatch(word), AT.search(word), FROM.match(word, 2)\n")
    starts = [s.incident.split(": ", 1)[0] for s in sites_of("regex-slip", source) if "to start the text" in s.incident]
    # `search` finds a match anywhere, and a start position past 0 is no start of the text: those anchors count
    assert starts == ["`AT` no longer requires a match of `r'^at'` to start the text",
                      "`FROM` no longer requires a match of `r'^from'` to start the text"]
    passed_on = source + "\nPATTERNS = [MAC]\n"  # a pattern handed to other code may be searched there
    starts = [s.incident.split(": ", 1)[0] for s in sites_of("regex-slip", passed_on)
              if "to start the text" in s.incident]
    assert starts[0] == "`MAC` no longer requires a match of `r'^Mc\\w'` to start the text"


def test_regex_slip_reads_a_negated_class_and_a_quantified_group():
    source = "import re\n\nTOKEN_RE = re.compile(r'(ab)+[^,;]')\n"
    incidents = [s.incident for s in sites_of("regex-slip", source)]
    assert incidents == [
        "`TOKEN_RE` also matches where there is no `(ab)`, though the pattern `r'(ab)+[^,;]'` "
        "requires at least one: `(ab)+` became `(ab)*`",
        "`TOKEN_RE` matches a single `(ab)` where the pattern `r'(ab)+[^,;]'` takes one or more: `(ab)+` became "
        "`(ab)`",
        "`TOKEN_RE` now matches `,` where the pattern `r'(ab)+[^,;]'` excluded it: the class "
        "`[^,;]` became `[^;]`",
        "`TOKEN_RE` now matches `;` where the pattern `r'(ab)+[^,;]'` excluded it: the class "
        "`[^,;]` became `[^,]`",
    ]


def test_wrong_separator_keeps_prefixes_and_never_writes_an_invalid_raw_string():
    source = "def f(data, path):\n    return data.split(b','), path.split(r'/'), path.split('/')\n"
    assert [m.mutated_source.splitlines()[1] for m in mutants_of("wrong-separator", source)] == [
        "    return data.split(b';'), path.split(r'/'), path.split('/')",
        "    return data.split(b','), path.split(r'/'), path.split('\\\\')",
    ]


def test_a_separator_in_an_exception_message_is_rejected_as_arid():
    source = "def f(xs):\n    raise ValueError(', '.join(xs))\n"
    _, rejected = generate("m.py", source)
    assert ("wrong-separator", "arid: message text of a raised exception") in [
        (r.family, r.reason) for r in rejected]
