"""Mutant generation: minimal edits, stable ids, and rejections recorded with their reason."""

from __future__ import annotations

import dataclasses
import re
import textwrap

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elenchus.mutation.mutate import (FunctionSpan, Mutant, Rejected, environment_faked, generate,
                                      generate_exhaustive)

OPERATOR_VOCABULARY = re.compile(
    r"\b(ROR|AOR|COR|LCR|SDL|UOI|operators?|mutation operators?)\b", re.IGNORECASE)


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def reasons(rejected, family=None) -> list[str]:
    return [r.reason for r in rejected if family is None or r.family == family]


def edit_stays_within(before: str, after: str, line: int, end_line: int) -> bool:
    """Whether ``after`` keeps every line of ``before`` outside lines ``line..end_line``."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    kept_tail = len(old) - end_line
    return (new[: line - 1] == old[: line - 1]
            and new[len(new) - kept_tail:] == old[end_line:]
            and len(new) >= (line - 1) + kept_tail)


# ----------------------------------------------------------------------------- records

def test_mutate_records_are_frozen_slotted_and_keep_the_agreed_field_names():
    assert [f.name for f in dataclasses.fields(Mutant)] == [
        "id", "path", "symbol", "line", "end_line", "col", "family", "changed_intent",
        "incident", "expected_detection", "diff", "mutated_source", "in_changed_lines", "mutated_lines"]
    assert [f.name for f in dataclasses.fields(Rejected)] == [
        "path", "symbol", "line", "family", "changed_intent", "reason"]
    assert [f.name for f in dataclasses.fields(FunctionSpan)] == [
        "qualname", "start", "end", "changed_lines"]
    span = FunctionSpan("f", 1, 2)
    assert span.changed_lines == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        span.start = 3  # type: ignore[misc]
    assert not hasattr(span, "__dict__")


CLAMP = src('''
    def clamp(value, lo, hi):
        """Keep value within [lo, hi]."""
        if value < lo:
            return lo
        if value > hi:
            return hi
        return value
''')


def test_mutate_reports_the_clamp_boundary_as_an_incident_with_a_two_line_context_diff():
    mutants, rejected = generate("pkg/clamp.py", CLAMP)
    boundary = [m for m in mutants if m.family == "boundary-inclusivity"]
    assert [m.incident for m in boundary] == [
        "`clamp` now treats `value` equal to `lo` as if it were below `lo`: "
        "`value < lo` became `value <= lo`",
    ]
    # `if value > hi: return hi` then `return value`: at value == hi both give hi.
    assert [r.reason for r in rejected if r.family == "boundary-inclusivity"] == [
        "equivalent at the boundary: when `value` equals `hi` both branches give the same value, so no input "
        "can tell the bounds apart"]
    first = boundary[0]
    assert (first.symbol, first.line, first.col) == ("clamp", 3, 14)
    assert first.diff.startswith("--- a/pkg/clamp.py\n+++ b/pkg/clamp.py\n@@ -1,5 +1,5 @@\n")
    assert "-    if value < lo:\n+    if value <= lo:\n" in first.diff
    assert re.fullmatch(r"[0-9a-f]{12}", first.id)
    assert first.expected_detection == (
        "a test that calls `clamp` with `value` exactly equal to `lo` and checks the result")


def test_mutate_output_is_sorted_by_line_column_and_family_and_identical_across_calls():
    first = generate("pkg/clamp.py", CLAMP)
    second = generate("pkg/clamp.py", CLAMP)
    assert first == second
    keys = [(m.line, m.col, m.family) for m in first[0]]
    assert keys == sorted(keys)
    assert len({m.id for m in first[0]}) == len(first[0])


# -------------------------------------------------------------------------- rejections

def test_mutate_rejects_sites_inside_logging_and_print_calls_as_arid():
    source = src('''
        import logging
        log = logging.getLogger(__name__)

        def f(x, y):
            log.info("moved %s to %s", x, y)
            print("done", x == 1)
            return x
    ''')
    mutants, rejected = generate("arid.py", source)
    assert not [m for m in mutants if m.line in (5, 6)]
    assert "arid: inside the logging or output call `log.info(...)`" in reasons(rejected)
    assert "arid: inside the logging or output call `print(...)`" in reasons(rejected)


def test_mutate_rejects_docstrings_and_exception_messages_as_arid():
    source = src('''
        def f(x):
            """"""
            if x is None:
                raise ValueError("")
            return x
    ''')
    _, rejected = generate("doc.py", source)
    assert ("constant-drift", 2, "arid: docstring") in [(r.family, r.line, r.reason) for r in rejected]
    assert ("constant-drift", 4, "arid: message text of a raised exception") in [
        (r.family, r.line, r.reason) for r in rejected]


def test_mutate_rejects_a_message_held_in_a_name_only_a_raise_reads_as_arid_and_keeps_one_read_elsewhere():
    source = src('''
        def replace(parts, known):
            unknown = set(parts) - set(known)
            if unknown:
                error = "unexpected argument(s): %s" % ", ".join(sorted(unknown))
                raise TypeError(error)
            return parts


        def describe(parts):
            label = ", ".join(parts)
            if not parts:
                raise ValueError(label)
            return label
    ''')
    mutants, rejected = generate("msg.py", source)
    assert ("wrong-separator", 4, "arid: message text of a raised exception") in [
        (r.family, r.line, r.reason) for r in rejected]
    assert not [m for m in mutants if m.line == 4 and m.family == "wrong-separator"]
    # `label` is also returned: its separator is behaviour, and stays a mutant
    assert [m for m in mutants if m.line == 10 and m.family == "wrong-separator"]


def test_mutate_rejects_type_annotations_as_arid():
    source = src('''
        from typing import Literal

        def mode(flag: Literal[True]) -> Literal[0]:
            return flag
    ''')
    mutants, rejected = generate("ann.py", source)
    assert [m.family for m in mutants] == ["default-return"]  # `return flag` itself is live code
    assert reasons(rejected, "constant-drift") == ["arid: type annotation"] * 2


def test_mutate_rejects_repr_bodies_as_display_only():
    source = src('''
        class Point:
            def __repr__(self):
                return "Point(%d, %d)" % (self.x, self.y) if self.x >= 0 else "Point(?)"
    ''')
    mutants, rejected = generate("repr.py", source)
    assert mutants == ()
    assert set(reasons(rejected)) == {"arid: inside `__repr__`, which only formats text for display"}


@pytest.mark.parametrize("flag", ["DEBUG", "TYPE_CHECKING", "__debug__", "settings.DEBUG"])
def test_mutate_rejects_debug_only_branches_as_arid(flag):
    source = src(f'''
        def f(items):
            if {flag}:
                items.append(0)
            return items
    ''')
    mutants, rejected = generate("debug.py", source)
    assert not [m for m in mutants if m.line in (2, 3)]
    assert f"arid: debug-only branch `if {flag}:`" in reasons(rejected)


_GATED = src('''
    import os
    import sys
    PY2 = sys.version_info[0] == 2
    if sys.version_info >= (3, 10):
        def pairs(items):
            return list(zip(items, items[1:]))
    else:
        def pairs(items):
            return [(a, b) for a, b in zip(items, items[1:])]
    def sep(path):
        if len(path) > 3 or sys.platform == "win32":
            return "\\\\"
        if PY2:
            return path[:-1]
        return ";" if os.name == "nt" else ":"
''')


def test_mutate_rejects_a_condition_on_the_interpreter_or_platform_as_arid_and_keeps_the_others_beside_it():
    mutants, rejected = generate("gated.py", _GATED)
    gates = {(r.line, r.family) for r in rejected if r.reason.startswith(
        "arid: chooses code by the interpreter or platform it runs on")}
    # the version check, its alias's definition and use, the platform checks (an `if` and a conditional value)
    assert {(4, "negated-condition"), (4, "boundary-inclusivity"), (3, "equality-inversion"),
            (11, "equality-inversion"), (13, "negated-condition"), (13, "dropped-guard"),
            (15, "negated-condition"), (15, "equality-inversion")} <= gates
    kept = {(m.line, m.family) for m in mutants}
    # `len(path) > 3` is the function's own condition, so the whole `if` does not only ask which platform this is
    assert {(11, "boundary-inclusivity"), (11, "negated-condition"), (11, "dropped-guard")} <= kept
    # what each branch does, and what the conditional value picks between, are still mutated
    assert {(6, "off-by-one"), (9, "off-by-one"), (14, "off-by-one"), (15, "constant-drift")} <= kept
    assert not {line for line, _ in kept} & {3, 4, 13}


def test_mutate_keeps_values_that_only_look_like_an_interpreter_or_platform_check():
    # a build target named like a platform, a bound read from `sys.maxsize`, a game's `WIN`: what the caller
    # passes decides these conditions, not the interpreter the tests run on
    source = src('''
        import sys
        LINUX = "linux"
        WIN = 3
        PY3 = not (sys.version_info[0] == 2)
        def build(target):
            if target == LINUX:
                return "elf"
            return "exe"
        def clamp(n):
            return sys.maxsize if n > sys.maxsize else n
        def won(score):
            return score == WIN
        def modern():
            return "f-strings" if PY3 else "format"
    ''')
    mutants, rejected = generate("values.py", source)
    kept = {m.line for m in mutants}
    assert {6, 10, 12} <= kept, sorted(kept)
    assert not [r for r in rejected if r.line in (6, 10, 12) and "interpreter or platform" in r.reason]
    # a name derived from one, and named as compatibility modules name them, is still a check
    assert [r for r in rejected if r.line == 14 and "interpreter or platform" in r.reason]


def test_mutate_keeps_a_condition_on_the_platform_the_tests_set_themselves():
    faked = environment_faked(['mocker.patch("sys.platform", "win32")\n',
                               'if sys.version_info < (3, 8):\n    pytest.skip("old")\n'])
    assert "sys.platform" in faked and "sys.version_info" not in faked  # (read to skip, not set)
    mutants, rejected = generate("gated.py", _GATED, faked=faked)
    assert (11, "equality-inversion") in [(m.line, m.family) for m in mutants]
    assert not [r for r in rejected if r.line == 11 and "interpreter or platform" in r.reason]
    assert [r for r in rejected if r.line == 4 and "interpreter or platform" in r.reason]  # versions: still arid
    assert environment_faked(["monkeypatch.setattr(sys, 'platform', 'linux')"]) >= {"sys.platform"}
    assert "PY2" in environment_faked(["monkeypatch.setattr(compat, 'PY2', True)"])


_HANDLERS = src('''
    import collections
    try:
        import regex
    except ImportError:
        regex = None
    _REGISTRY = {}
    class _Size:
        def __getitem__(self, key):
            return 1
    class Cache:
        __size = _Size()
        def __init__(self, choice, getsizeof=None):
            self.__order = collections.OrderedDict()
            self.__counter = collections.Counter()
            self.__data = dict()
            self.__choice = choice
            if getsizeof:
                self.__size = dict()
        def oldest(self):
            try:
                key = next(iter(self.__order))
            except StopIteration:
                raise KeyError("empty") from None
            return key
        def rarest(self):
            try:
                ((key, _),) = self.__counter.most_common(1)
            except ValueError:
                raise KeyError("empty") from None
            return key
        def touch_oldest(self):
            try:
                key = next(iter(self.__order))
                self.__touch(key)
            except (StopIteration, KeyError):
                return None
            return key
        def __touch(self, key):
            self.__order.move_to_end(key)
        def get(self, key):
            try:
                return self.__data[key]
            except KeyError:
                return None
        def first_or_none(self):
            try:
                return next(iter(self.__order))
            except KeyError:
                return None
        def pick(self):
            try:
                return self.__choice(list(self.__data))
            except IndexError:
                return None
        def size_of_oldest(self):
            try:
                return self.__size[next(iter(self.__order))]
            except KeyError:
                return 0
    def registered():
        try:
            return next(iter(_REGISTRY))
        except StopIteration:
            return None
    def number(text):
        try:
            return int(text)
        except ValueError:
            return 0
    class Lookup:
        def __init__(self):
            self.__data = {}
        def get(self, key):
            try:
                found = key
                return self.__data[found]
            except (KeyError, NameError):
                return None
''')


def test_mutate_rejects_a_handler_widened_around_code_that_only_imports_or_reads_its_own_containers():
    mutants, rejected = generate("cache.py", _HANDLERS)
    widened = {r.line: r.reason for r in rejected if r.family == "broadened-handler"}
    kept = {m.line for m in mutants if m.family == "broadened-handler"}
    # an import; a container's iterator or its counts, read where the handler catches what they raise, directly
    # or through a private method handed only what the body holds; a module's own registry
    assert {4, 22, 28, 35, 63} <= set(widened), (widened, kept)
    assert "only imports" in widened[4]
    assert "`self.__order`" in widened[22] and "`StopIteration`" in widened[22]
    assert "`self.__counter`" in widened[28] and "`ValueError`" in widened[28]
    assert "`_REGISTRY`" in widened[63]
    # a caller's key (its `__hash__` can raise anything), what it raises left uncaught (an empty container's
    # `StopIteration` under `except KeyError`), a callable the caller gave, a class attribute of the same name
    # (user code answers `[...]`), and a caller's text
    assert {43, 48, 53, 58, 68} <= kept, (widened, kept)
    assert 77 in kept, (widened, kept)  # (a caller's key is the caller's, under any local name)


_IDLE = src('''
    from urllib.parse import parse_qs


    def optionals(path, query, strict):
        ok = True
        if path:
            ok &= bool(path.isascii())
        if query and parse_qs(query, strict_parsing=strict):
            ok &= True
        if strict is None:
            ok &= True
        if strict and path:
            ok &= True
        if path == "/":
            ok &= True
        return ok


    def unbound(items, given):
        if items:
            found = True
        found &= True
        return given


    def counted(items):
        total = 0
        for item in items:
            total += 0
        seen = items[0]
        seen &= True
        return total, seen


    def flags(names, given):
        flag = given
        flag &= True
        other, more = True, True
        other &= True
        return flag, other
''')


def test_mutate_rejects_an_update_that_changes_nothing_and_the_condition_of_a_branch_running_only_that():
    # As validators' `_validate_optionals`: `optional_segments &= True` on a name that only ever holds a bool
    mutants, rejected = generate("optionals.py", _IDLE)
    idle = {(r.line, r.family): r.reason for r in rejected if "changes nothing" in r.reason}
    kept = {(m.line, m.family) for m in mutants}
    lines = {text.strip(): number for number, text in enumerate(_IDLE.splitlines(), 1)}
    query, both = lines["if query and parse_qs(query, strict_parsing=strict):"], lines["if strict and path:"]
    root, unset = lines['if path == "/":'], lines["if strict is None:"]
    # the update dropped, where it follows a query's check and a comparison
    assert (query + 1, "lost-side-effect") in idle and (root + 1, "lost-side-effect") in idle, (idle, kept)
    assert "only ever holds True or False" in idle[query + 1, "lost-side-effect"]
    # the branch's condition negated (its calls run as before), or edited where it only compares names by identity
    assert (query, "negated-condition") in idle and (root, "negated-condition") in idle, (idle, kept)
    assert (unset, "none-check-inversion") in idle, (idle, kept)
    # kept: `and` made `or` skips `parse_qs`, which can raise on a bad query, or a truth value (a NumPy array's
    # raises); `True` made `False` is a real change; `==` made `!=` calls another method of the caller's object
    assert (query, "and-or-confusion") in kept and (query + 1, "constant-drift") in kept, (idle, kept)
    assert (both, "and-or-confusion") in kept and (root, "equality-inversion") in kept, (idle, kept)
    # kept: a number (`total += 0` gives 0.0 for -0.0), an item of the caller's, a caller's flag, a pair unpacked, a
    # flag bound only in a branch (the update raises UnboundLocalError where the branch was not taken)
    assert not [line for line, _ in idle if line > root + 1], idle
    assert (lines["seen &= True"], "lost-side-effect") in kept and (lines["flag &= True"], "lost-side-effect") in kept
    assert (lines["other &= True"], "lost-side-effect") in kept, kept
    assert (lines["found &= True"], "lost-side-effect") in kept, kept


def test_mutate_rejects_a_handler_widened_around_a_probe_of_what_the_interpreter_has():
    source = src('''
        import os
        try:
            unicode
        except NameError:
            unicode = str
        try:
            _affinity = os.sched_getaffinity
        except AttributeError:
            _affinity = None
        def cpus(os):
            try:
                return os.cpu_count
            except AttributeError:
                return None
        def count():
            try:
                return os.cpu_count()
            except AttributeError:
                return 1
    ''')
    mutants, rejected = generate("compat.py", source)
    widened = {r.line: r.reason for r in rejected if r.family == "broadened-handler"}
    kept = {m.line for m in mutants if m.family == "broadened-handler"}
    assert {4, 8} <= set(widened) and "looks up what this interpreter has" in widened[4], (widened, kept)
    # an attribute of what the caller passed (named like the module), and a call, which can raise anything
    assert {13, 18} <= kept, (widened, kept)
def test_mutate_rejects_the_script_block_as_unreachable_by_clients():
    source = src('''
        def main(argv):
            return len(argv)

        if __name__ == "__main__":
            main([0])
    ''')
    mutants, rejected = generate("script.py", source)
    assert all(m.line < 4 for m in mutants)
    assert reasons(rejected) and all(r.startswith("unreachable by clients") for r in reasons(rejected))


def test_mutate_rejects_a_mutant_the_compiler_makes_identical_to_the_original():
    source = src('''
        def f(x):
            if False:
                return x < 5
            return x
    ''')
    _, rejected = generate("dead.py", source)
    assert ("boundary-inclusivity", "equivalent: compiles to the same code as the original") in [
        (r.family, r.reason) for r in rejected]


def test_mutate_rejects_a_mutant_that_does_not_compile():
    source = src('''
        async def fetch_all(pages):
            for page in pages:
                if page is None:
                    raise ValueError("missing page")
                yield page
    ''')
    mutants, rejected = generate("agen.py", source)
    swallowed = [r for r in rejected if r.family == "swallowed-exception"]
    assert len(swallowed) == 1
    assert swallowed[0].reason.startswith("invalid: the mutated file does not compile")
    assert "return" in swallowed[0].reason
    assert not [m for m in mutants if m.family == "swallowed-exception"]


def test_mutate_reports_a_file_that_does_not_parse_as_one_rejection_and_no_mutant():
    mutants, rejected = generate("broken.py", "def f(:\n    pass\n")
    assert mutants == ()
    assert len(rejected) == 1 and rejected[0].reason.startswith("invalid: the file does not parse")


def test_mutate_rejects_a_repeated_code_change_as_a_duplicate_of_the_first_mutant():
    source = "def f(a):\n    return g(a, a)\n"
    mutants, rejected = generate_exhaustive("dup.py", source)
    sources = [m.mutated_source for m in mutants]
    assert len(sources) == len(set(sources))
    assert "def f(a):\n    return g(a)\n" in sources
    duplicates = [r for r in rejected if r.reason.startswith("duplicate")]
    assert duplicates
    ids = {m.id for m in mutants}
    assert all(r.reason.rsplit(" ", 1)[-1] in ids for r in duplicates)


# ------------------------------------------------------------------ spans and identity

TWO_FUNCTIONS = src('''
    def helper(a, b):
        return a < b


    def target(xs, n):
        total = 0
        for x in xs[:n]:
            if x > 0:
                total += x
        return total
''')


def test_mutate_span_restriction_only_mutates_inside_the_given_function():
    span = FunctionSpan("target", 5, 10, changed_lines=(8,))
    mutants, rejected = generate("two.py", TWO_FUNCTIONS, [span])
    assert mutants
    assert {m.symbol for m in mutants} == {"target"}
    assert all(5 <= m.line <= 10 for m in mutants)
    assert all(r.symbol == "target" for r in rejected)
    assert {m.line for m in mutants if m.in_changed_lines} == {8}


def test_mutate_ids_survive_an_unrelated_edit_above_the_function():
    edited = TWO_FUNCTIONS.replace(
        "def helper(a, b):\n    return a < b\n",
        "def helper(a, b):\n    # now documented\n    if a is None:\n        return False\n"
        "    return a < b\n")
    shift = 3
    before, _ = generate("two.py", TWO_FUNCTIONS, [FunctionSpan("target", 5, 10)])
    after, _ = generate("two.py", edited, [FunctionSpan("target", 5 + shift, 10 + shift)])
    assert [m.id for m in before] == [m.id for m in after]
    assert [m.line + shift for m in before] == [m.line for m in after]

    whole_before, _ = generate("two.py", TWO_FUNCTIONS)
    whole_after, _ = generate("two.py", edited)
    target_ids = lambda ms: [m.id for m in ms if m.symbol == "target"]  # noqa: E731
    assert target_ids(whole_before) == target_ids(whole_after)


def test_mutate_without_spans_names_methods_by_qualified_name_and_module_code_as_module():
    source = src('''
        LIMIT = 0

        class Stack:
            def push(self, item):
                self.items.append(item)
    ''')
    mutants, _ = generate("stack.py", source)
    assert {m.symbol for m in mutants} == {"<module>", "Stack.push"}
    pushed = [m for m in mutants if m.family == "lost-side-effect"]
    assert pushed[0].incident == (
        "`Stack.push` never adds to `self.items`: `self.items.append(item)` was dropped")


# ------------------------------------------------------------------- property checks

_FRAGMENTS = (
    "if {a} {cmp} {k}:\n    raise ValueError('bad {a}')",
    "total = {k}",
    "total += len({a}[{k}:{b}])",
    "for item in {a}:\n    total += item",
    "result.append({a} if {b} {cmp} {k} else {k})",
    "box.count = max({a}, {k})",
    "while {a} > {k}:\n    {a} -= 1",
    "for i in range({k}, {b}):\n    result.append(i)",
    "if {a} is None or not {b}:\n    return {k}",
    "flag = any(x {cmp} {k} for x in {a}) and {b}",
    "name = {a}.strip().lower()",
    "try:\n    total += {a}[{k}]\nexcept KeyError:\n    pass",
    "# a note about {a}\nresult.extend(sorted({a}))",
    "swap(result, {a}, {b})",
)

_fragment = st.builds(
    lambda template, a, b, k, cmp: template.format(a=a, b=b, k=k, cmp=cmp),
    st.sampled_from(_FRAGMENTS),
    st.sampled_from(["xs", "n", "box.items"]),
    st.sampled_from(["ys", "m"]),
    st.integers(0, 3),
    st.sampled_from(["<", "<=", ">", ">=", "==", "!=", "in", "not in"]),
)


def _program(fragments: list[str]) -> str:
    body = "".join(textwrap.indent(f, "    ") + "\n" for f in fragments)
    return ("def work(xs, ys, n, m, box, result, swap, flag=True):\n    total = 0\n"
            f"{body}    return total\n")


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_fragment, min_size=1, max_size=3))
def test_mutate_every_generated_mutant_parses_and_changes_one_region_inside_its_site(fragments):
    source = _program(fragments)
    mutants, rejected = generate("prop.py", source)
    assert mutants
    for mutant in mutants:
        assert mutant.mutated_source != source
        cst.parse_module(mutant.mutated_source)
        compile(mutant.mutated_source, "prop.py", "exec")
        assert edit_stays_within(source, mutant.mutated_source, mutant.line, mutant.end_line)
        assert not OPERATOR_VOCABULARY.search(mutant.incident)
    assert not [r for r in rejected if r.reason.startswith(("internal", "invalid"))]
    again = generate("prop.py", source)
    assert [m.id for m in again[0]] == [m.id for m in mutants]
    assert again[1] == rejected


# -------------------------------------------------------------------- exhaustive scope

def test_mutate_exhaustive_scope_labels_every_catalog_candidate_as_an_incident():
    source = src('''
        def pay(account, amount):
            if amount <= 0:
                raise ValueError("amount must be positive")
            account.balance += amount
            return account.balance * 2
    ''')
    mutants, rejected = generate_exhaustive("pay.py", source)
    assert mutants
    families = {m.family for m in mutants}
    assert "boundary-inclusivity" in families  # matched to the intent family's own label
    assert "arithmetic-slip" in families  # labelled by the kind of edit
    for mutant in mutants:
        assert mutant.incident and "`" in mutant.incident
        assert not OPERATOR_VOCABULARY.search(mutant.incident + mutant.changed_intent)
        compile(mutant.mutated_source, "pay.py", "exec")
    assert all(r.reason for r in rejected)


def test_mutate_off_by_one_on_a_zero_slice_bound_yields_valid_code_not_an_internal_error():
    # Found by the more-itertools benchmark: shifting `xs[:0]` once built an invalid `-1` literal.
    source = "def head(xs, n):\n    return xs[:0] + xs[1:n] + list(range(0, n))\n"
    made, rejected = generate("m.py", source)
    assert made and not [r for r in rejected if r.reason.startswith("internal:")]
    for mutant in made:
        compile(mutant.mutated_source, "m.py", "exec")


@pytest.mark.parametrize("source", [
    "def clamp(v, hi):\n    if v > hi:\n        return hi\n    return v\n",
    "def clamp(v, lo, hi):\n    if hi is not None and v > hi:\n        return hi\n    return v\n",
    "def smaller(a, b):\n    return a if a < b else b\n",
    "def cap(v, hi):\n    if v > hi:\n        v = hi\n    return v\n",
    "def floor(v, lo):\n    if v < lo:\n        return lo\n    else:\n        return v\n",
])
def test_a_bound_whose_two_branches_agree_at_equality_is_rejected_as_equivalent_before_running(source):
    mutants, rejected = generate("m.py", source)
    assert not [m for m in mutants if m.family == "boundary-inclusivity"]
    [reason] = [r.reason for r in rejected if r.family == "boundary-inclusivity"]
    assert reason.startswith("equivalent at the boundary: when `")


@pytest.mark.parametrize("source", [
    "def grade(score):\n    if score >= 90:\n        return 'A'\n    return 'B'\n",
    "def clamp(v, hi):\n    if v > hi:\n        return hi + 1\n    return v\n",
    "def pick(v, hi):\n    if v > hi and log(v):\n        return hi\n    return v\n",  # a call may have effects
])
def test_a_bound_that_changes_a_result_at_equality_stays_a_mutant(source):
    mutants, _ = generate("m.py", source)
    assert [m for m in mutants if m.family == "boundary-inclusivity"]


def test_a_dropped_statement_is_watched_at_the_nearest_lines_that_run_in_its_own_function():
    from elenchus.mutation.mutate import edited_lines

    before = ('def f(value):\n    """Doc."""\n    if value is None:\n        return None\n\n    return value + 1\n'
              '\n\ndef g():\n    return 2\n')
    after = 'def f(value):\n    """Doc."""\n\n    return value + 1\n\n\ndef g():\n    return 2\n'
    # Not the docstring (2) or the blank line (3): neither ever runs; not g's line either.
    assert edited_lines(before, after) == (4,)
    kept_first = "def f(x):\n    x += 1\n    return x\n"
    assert edited_lines(kept_first, "def f(x):\n    return x\n") == (2,)


def test_mutate_rejects_a_commands_help_text_and_a_log_only_branch_as_arid_and_keeps_its_option_names():
    # titlecase's `cmd()`: a blanked `help='String to titlecase'` and `if logger.isEnabledFor(logging.DEBUG):`
    # were reported as gaps no one would write a test for
    source = src('''
        import argparse
        import logging
        logger = logging.getLogger(__name__)

        def cmd(words):
            parser = argparse.ArgumentParser(prog='tc', usage='%(prog)s', description='Capitalize', epilog='See')
            parser.add_argument('-f', '--input-file', help='File to read from', metavar='FILE', dest='source')
            if logger.isEnabledFor(logging.DEBUG):
                for word in words:
                    logger.debug('word ' + word)
            return parser
    ''')
    mutants, rejected = generate("cli.py", source)
    assert "arid: help text a command shows its user (`help=`)" in reasons(rejected)
    assert "arid: help text a command shows its user (`description=`)" in reasons(rejected)
    assert "arid: help text a command shows its user (`epilog=`)" in reasons(rejected)
    # (sqlparse's `prog='sqlformat'`, `usage=...` and `metavar='FILE'` only show in the help and error texts)
    for keyword in ("prog", "usage", "metavar"):
        assert f"arid: help text a command shows its user (`{keyword}=`)" in reasons(rejected)
    assert any("'source'" in m.incident for m in mutants)  # `dest=` names what the code reads: a mutant
    assert "arid: debug-only branch `if logger.isEnabledFor(logging.DEBUG):`" in reasons(rejected)
    assert all("'File to read from'" in m.mutated_source and "'Capitalize'" in m.mutated_source for m in mutants)
    assert not [m for m in mutants if m.line in (8, 9, 10)]
    # the option's own name is what a user types: still a mutant
    assert [m for m in mutants if m.line == 7 and "'-f'" in m.diff]


def test_mutate_rejects_help_text_a_parser_computes_and_a_groups_title_and_keeps_the_choices():
    # sqlparse's `create_parser()`: `help='... one of {}'.format(', '.join(... for x in _CASE_CHOICES))` gave
    # `_CASE_CHOICES[1:]` and `[:-1]` mutants, and `add_argument_group('Formatting Options')` a blanked title:
    # gaps only the help text shows
    source = src('''
        import argparse

        def create_parser():
            choices = ['upper', 'lower']
            parser = argparse.ArgumentParser()
            group = parser.add_argument_group('Formatting Options')
            group.add_argument('-k', dest='case', choices=choices,
                               help='one of {}'.format(', '.join('"{}"'.format(x) for x in choices)))
            return parser

        def shown(items):
            return report(title=', '.join(x for x in items[1:]))
    ''')
    mutants, rejected = generate("cli.py", source)
    assert "arid: help text a command shows its user (an option group's title)" in reasons(rejected)
    assert "arid: help text a command shows its user (`help=`)" in reasons(rejected)
    assert not [m for m in mutants if m.line in (6, 8)], [m.incident for m in mutants]
    # the choices and the option's destination are what the command does: mutants
    assert [m for m in mutants if m.line == 4] and [m for m in mutants if m.line == 7 and "'case'" in m.diff]
    # a keyword of another call is not help text, computed or not
    assert [m for m in mutants if m.line == 12]


def test_mutate_rejects_the_name_a_type_variable_gives_itself_as_arid():
    source = src('''
        from typing import NewType, TypeVar
        import typing
        T = TypeVar("T")
        P = typing.ParamSpec("P")
        UserId = NewType("UserId", int)
        LABEL = "T"
        def label():
            return LABEL
    ''')
    mutants, rejected = generate("types.py", source)
    names = [r for r in rejected if "type variable or new type gives itself" in r.reason]
    assert {r.line for r in names} == {3, 4, 5}, [(r.line, r.reason) for r in rejected]
    assert 6 in {m.line for m in mutants}  # a text the code returns is a value
