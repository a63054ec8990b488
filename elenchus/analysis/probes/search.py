"""The input search: an input on which a mutant observably differs from the reference.

``search_input`` starts the two drivers (a copy of the reference, a copy with the mutant),
then tries the recorded calls, the boundary and designed candidates, other instances the
tests built, and a Hypothesis search, all within one time budget, and says what it tried,
what it found, or why nothing can be known (``InputSearch``); ``find_distinguishing_input``
is its answer alone.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import json
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elenchus.execution import callrecord
from elenchus.encoding import read_python
from elenchus.mutation.mutate import Mutant
from elenchus.execution.workspace import fresh_copy, remove_tree, write_mutant
from elenchus.analysis.probes.common import (
    CallSample,
    Distinction,
    _function_node,
    _module_tree,
    method_kind,
    module_name_for,
    statements_at,
    unsupported_reason,
)
from elenchus.analysis.probes.drivers import PER_CALL_TIMEOUT, _Driver, _scratch
from elenchus.analysis.probes.compare import _Comparer, _acting_lines, _compared_state, _names
from elenchus.analysis.probes.shapes import _Signature, _search, type_aliases
from elenchus.analysis.probes.boundary import (
    _FIRST_BASES, _boundary_calls, _plainer, _smaller, mutated_constants, shorter_lists,
)
from elenchus.analysis.probes.designed import (
    _character_variants,
    _code_point_characters,
    _data_examples,
    _in_text,
    _joined_texts,
    _looks_at_case,
    _pattern_examples,
    _row_examples,
    _sized_texts,
    _tested_tables,
    parts_emptied,
    refused_inside,
)
from elenchus.analysis.probes.variants import (
    changed_defaults, flags_flipped, spaced_streams, swapped_calls, table_swaps, unconverted_calls, with_options,
    without_options,
)
from elenchus.analysis.probes.commands import command_lines, parser_options, with_command_options
from elenchus.analysis.probes.watched import Evaluated, Tied, Widened, evaluated, tie_calls, tied, widened
from elenchus.analysis.probes.writing import call_text


BOUNDARY_BUDGET = 200  # boundary, test-literal and edge-value calls per mutant
SEARCH_BUDGET = 200  # Hypothesis examples per mutant
SEARCH_SECONDS = 60.0  # wall-clock budget of one search
RECEIVERS_TRIED = 8  # distinct instances the tests built that a method's search calls it on
ANOTHER_INSTANCE_TRIED = 12  # instances set up first, and calls after them, for a copy the mutant drops
EMPTIED_TRIED = 8  # calls made again after their first result was emptied, for a copy the mutant drops
# compared inputs that ran the mutated code, at least, for their agreement to back a claim of equivalence: two or
# three inputs of hundreds that reached a branch say little of what the others would have shown there (where every
# input compared ran it, as the one call of a function without parameters, there was no other to try)
CLAIM_REACHED = 5
#: Values of kinds a test may never pass, for a handler the mutant broadens (``except TypeError`` made ``except
#: Exception``): each raises errors of its own where the code indexes, converts or adds what it was given, and
#: the last where it reads what it was given one item at a time (``except StopIteration`` around ``next(seq)``).
_FOREIGN = ({}, {0: 0}, "?", callrecord.Written("map(int, ['?'])"))


# ---------------------------------------------------------------------------
# 2. finding an input that tells reference and mutant apart


@dataclass(frozen=True, slots=True)
class InputSearch:
    """What looking for a distinguishing input found, and what it tried.

    ``searched`` is False when no input could be tried at all (the function cannot be
    probed or imported): then nothing is known, and ``reason`` says why. ``tried``
    counts the inputs called, by origin; ``seconds`` is the wall time spent.
    """

    distinction: Distinction | None
    searched: bool
    reason: str | None
    tried: tuple[tuple[str, int], ...]
    seconds: float
    reached: int | None = None  # compared inputs that ran the mutated code; None when that was not watched
    proof: str | None = None  # why no input can tell the two apart, when that is known rather than searched
    alike: int = 0  # compared inputs whose results are equal under `==` but print differently
    # the first of them: "`f(1.0)` gives `1.0` with the code and `1` with the mutant"
    first_alike: str | None = None
    # what it did not try or could not see backs no claim, whatever other searches found: the time ran out before
    # every kind of input was tried, the calls read the command line or standard input (the same in every call
    # here), or they printed something else with the mutant
    unsettled: bool = False
    # what reaching a boundary mutant took (`made `count` equal to `limit` at line 4, where the mutant differs`),
    # when ``reached`` counts the inputs that did it rather than those that ran the line
    tie: str | None = None
    # a broadened handler's, when that was watched: the calls that ran into it and caught only what the code's own
    # handler catches, and those that caught more (compared or not)
    caught: tuple[int, int] | None = None
    # ... and whether calls that caught only that can clear it: it catches Python's errors of values
    # (``Widened.of_values``), and values of kinds the tests never passed were among the inputs
    clears: bool = False

    @property
    def inputs(self) -> int:
        return sum(count for _, count in self.tried)


def _statement_lines(source: str, mutant: Mutant) -> tuple[int, ...]:
    """The lines of the statement the import runs that holds the mutated line (the innermost, inside an ``if`` or
    ``try`` at the top level): one of them runs when the import runs the mutated code."""
    tree = _module_tree(source)
    inner = statements_at(tree.body if tree else [], mutant.line)
    return tuple(range(inner[-1].lineno, (inner[-1].end_lineno or inner[-1].lineno) + 1)) if inner else (mutant.line,)


def find_distinguishing_input(reference_dir: Path, mutant: Mutant, samples: Sequence[CallSample],
                              **options: Any) -> Distinction | None:
    """The first input on which ``mutant`` fails a reference-output assertion, or None (``search_input``)."""
    return search_input(reference_dir, mutant, samples, **options).distinction


def search_input(
    reference_dir: Path,
    mutant: Mutant,
    samples: Sequence[CallSample],
    *,
    test_literals: Sequence[Any] = (),
    boundary_budget: int = BOUNDARY_BUDGET,
    search_budget: int = SEARCH_BUDGET,
    per_call_timeout: float = PER_CALL_TIMEOUT,
    time_budget: float = SEARCH_SECONDS,
    scratch: Path | None = None,
    symbol: str | None = None,
    module: str | None = None,
    roots: Sequence[str] = (),
    data: Sequence[str] = (),
    state: Sequence[str] = (),
    reads: Sequence[int] = (),
    setup: CallSample | None = None,
    attribute: str | None = None,
    defined_in: str | None = None,
    options: Sequence[tuple[tuple[str, str], ...]] = (),
) -> InputSearch:
    """Look for an input on which ``mutant`` fails a reference-output assertion.

    Recorded ``samples`` (those of this function) are tried first, in order; then up to
    ``boundary_budget`` boundary candidates (``_boundary_calls``: constants of the
    mutated lines and their neighbours, then ``test_literals``, the values the related
    tests write (``literals_in``), then edge values of each argument's type); then up to
    ``search_budget`` Hypothesis examples (derandomized, shrunk to a small input). All
    steps share ``time_budget``. ``symbol`` calls another public function of the module
    (one that reaches the mutated code) instead of the mutated one; ``module`` and
    ``roots`` say how the workspace imports it (default: ``module_name_for``, no roots).

    For code the module runs while it imports (``witness.data_for``): ``data`` names the module-level data it
    fills (whose strings become designed inputs), ``state`` every module-level data name (the same data in
    both modules proves the mutant equivalent), and ``reads`` the lines of the module's functions that read
    ``data``: such a mutant is reached by a call that runs one of them, not by the import every call shares.

    ``setup``: a call of another function of the module the tests made (``activate('fr_FR')``), made before
    every call, for code whose effect shows only in the state it selects.

    ``attribute``: the module's public data the mutant assigns (``Version.NAMES``). When no call told the two
    apart, reading it is tried last: a test can assert what it holds (``Version.NAMES == (...)``).

    ``defined_in``: the file defining ``symbol`` when it is not the mutated one (a function of the package that
    reaches a table of another module through the code it calls).

    ``options``: sets of keyword arguments the tests pass to a function of this name (``keywords_in``), each put
    into the plainest recorded calls the code answered (``with_options``): tried after the recorded calls, and as
    base calls of the boundary candidates.
    """
    started = time.monotonic()
    reference_dir = Path(reference_dir)
    symbol = symbol or mutant.symbol

    watched = False
    boundary: Tied | None = None
    handler: Widened | None = None
    guarded: Evaluated | None = None
    mutated: _Driver | None = None

    def outcome(distinction: Distinction | None, searched: bool, reason: str | None,
                comparer: _Comparer | None = None, proof: str | None = None, unsettled: bool = False) -> InputSearch:
        tried = tuple(sorted((comparer.tried if comparer else {}).items()))
        reached = comparer.reached if comparer is not None and watched else None
        alike = comparer.first_alike if comparer is not None else None
        shown = None if alike is None else (
            f"`{call_text(symbol, alike.args_repr, alike.kwargs_repr, alike.receiver, read=alike.read)}` gives "
            f"`{alike.reference_repr}` with the code and `{alike.mutant_repr}` with the mutant")
        told = boundary or handler or guarded
        return InputSearch(distinction, searched, reason, tried, round(time.monotonic() - started, 3), reached,
                           proof, comparer.alike if comparer is not None else 0, shown, unsettled,
                           None if told is None else told.told(mutant.line),
                           (mutated.caught["same"], mutated.caught["other"]) if handler and mutated else None,
                           bool(handler and handler.of_values and dict(tried).get("foreign")))

    why = unsupported_reason(reference_dir, mutant, symbol, module, defined_in)
    if why is not None:
        return outcome(None, False, why)
    module = module or module_name_for(mutant.path, reference_dir)
    target = f"{module}:{symbol}"
    mine = [s for s in samples if s.target in (target, "")]
    source = read_python(reference_dir / mutant.path)
    node = _function_node(source if defined_in is None else read_python(reference_dir / defined_in), symbol)
    assert isinstance(node, ast.FunctionDef)
    owner = symbol.rpartition(".")[0]
    kind = method_kind(node) if owner else "function"
    receivers: list[callrecord.Receiver | None] = [None]
    if kind == "class" and _asks_for_its_class(source, mutant):  # first on a caller's subclass, then as the tests
        receivers = [callrecord.Receiver(subclass=True, on_class=True), None]  # (`SubRipTimeSubclass.from_string`)
    if kind in ("instance", "property"):  # called on an instance, built as the tests built theirs
        mine = [s for s in mine if s.receiver is not None]
        built = [s.receiver for s in samples if s.target == f"{module}:{owner}" and s.receiver is not None]
        receivers = _varied(list(dict.fromkeys([*(s.receiver for s in mine), *built])))[:RECEIVERS_TRIED]
        receivers += [r for r in spaced_streams(receivers) if r not in receivers]  # (`'\n' + text`: a blank line)
        if _asks_for_its_class(source, mutant):  # first, one built as a caller's subclass builds it
            receivers = [*(dataclasses.replace(r, subclass=True) for r in receivers[:1] if r and r.factory is None),
                         *receivers]
        if not receivers:
            return outcome(None, False, f"no test built a `{owner}` the search can build again (with arguments "
                                        f"a test writes: literals, dates, durations, numbers), so `{symbol}` "
                                        "was never called")
    with _scratch(scratch) as root, ExitStack() as stack:
        reference_copy = fresh_copy(reference_dir, root)
        stack.callback(remove_tree, reference_copy)
        mutant_copy = fresh_copy(reference_dir, root)
        stack.callback(remove_tree, mutant_copy)
        # A dropped statement is reached when the code's own copy of it acts (a dropped guard's
        # body runs); other edits when the mutant runs its edited lines.
        removed = _acting_lines(source, mutant.mutated_source)
        if reads:  # code the import runs is reached by a call that reads what it filled
            removed, read_watch = [], (mutant.path, tuple(reads))
        else:
            read_watch = (mutant.path, removed) if removed else None
        watch = (mutant.path, mutant.mutated_lines) if mutant.mutated_lines and not removed and not reads else None
        # a boundary mutant is reached where its two sides tie, not where its line runs: its copy compares through
        # the function the watching driver installs (so only a watched copy is rewritten)
        boundary = tied(mutant) if watch is not None else None
        # ... and a broadened handler where it catches what the code lets through
        handler = widened(mutant, source) if watch is not None and boundary is None else None
        # ... and an edit in a part of its line that runs only sometimes (a branch of `x if c else y`) where that ran
        guarded = evaluated(mutant, source) if watch is not None and boundary is None and handler is None else None
        rewritten = boundary or handler or guarded
        if rewritten is not None:
            watch = (mutant.path, ())
        write_mutant(mutant_copy, mutant.path, mutant.mutated_source if rewritten is None else rewritten.source)
        watched = bool(watch or read_watch)
        reference, mutated = _Driver.pair(
            _Driver(reference_copy, module, symbol, per_call_timeout, roots, read_watch, setup,
                    _statement_lines(source, mutant) if reads else ()),
            _Driver(mutant_copy, module, symbol, per_call_timeout, roots, watch, setup), stack)
        if not reference.ready or not mutated.ready:
            return outcome(None, False, reference.error or mutated.error or f"cannot call {target}")
        if reads and reference.ran_at_import is False:  # (`if REGEX_AVAILABLE: ... else:` the import never took)
            return outcome(None, False, f"line {mutant.line} never runs when the module is imported here (the "
                                        "import takes another branch), so no call reads what the mutant changes")
        same, changed = _compared_state(reference, mutated, state)
        if same:  # the mutated code runs only while the module imports, and left the same data behind
            return outcome(None, True, None, proof=f"the module holds the same data after its import with and "
                                                   f"without the mutant ({_names(state)}), and the mutated code "
                                                   "runs only while it imports")
        comparer = _Comparer(reference, mutated, time.monotonic() + time_budget)
        comparer.read = kind == "property"
        if mutant.family == "dropped-copy" and kind == "instance":  # first, while the module is as imported
            found = _after_another(comparer, samples, mine, f"{module}:{owner}")
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        if mutant.family == "dropped-copy" and symbol == mutant.symbol:  # what it hands out, emptied by a caller
            found = _emptied_then_again(comparer, mine, receivers if kind == "property" else [])
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        for sample in mine:
            comparer.receiver = sample.receiver if kind in ("instance", "property") else None
            found = comparer.check(sample.args_repr, dict(sample.kwargs_repr), "recorded")
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        if defined_in is not None and mine and not comparer.compared and comparer.opaque:
            # (one of several functions of the package: when none of the tests' calls gave a result a test can
            # compare, its time goes to the next)
            return outcome(None, False, f"`{symbol}` gave results a test cannot write down or compare "
                                        f"({', '.join(sorted(comparer.opaque))}) for each of the tests' "
                                        f"{len(mine)} call(s), so no other input was tried", comparer, unsettled=True)
        # the tests' calls with an option other tests pass (`keyword_case='upper'`): a mode the calls recorded
        # never selected (on calls the code answered: one that raised, `identifier_case='foo'`, would again)
        on_instance = kind in ("instance", "property")
        answered = [s for s in mine if not comparer.raised(s.args_repr, dict(s.kwargs_repr),
                                                           s.receiver if on_instance else None)]
        optioned = with_options(answered, options, node,
                                bound=kind in ("instance", "class", "property") or node.name == "__init__")
        # first, the tests' calls that pass a parameter whose default the mutant changes, made without it
        defaulted = changed_defaults(node, _function_node(mutant.mutated_source, symbol)) \
            if defined_in is None else set()
        undone = without_options(mine, defaulted) if defaulted else []
        optioned = [*undone, *optioned]
        for sample in optioned:
            comparer.receiver = sample.receiver if on_instance else None
            found = comparer.check(sample.args_repr, dict(sample.kwargs_repr),
                                   "defaults" if sample in undone else "options")
            found = _plainer(found, comparer) if found is not None else None
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        # then with a flag the mutated code reads turned the other way (`url(text, skip_ipv6_addr=True)`), the calls
        # that ran the mutated code first
        if not on_instance:
            ran = [s for s in mine if comparer.reaches(s.args_repr, dict(s.kwargs_repr))]
            for sample in flags_flipped([*ran, *(s for s in mine if s not in ran)], node, source, mutant,
                                        bound=kind == "class" or node.name == "__init__"):
                found = comparer.check(sample.args_repr, dict(sample.kwargs_repr), "flags")
                found = _plainer(found, comparer) if found is not None else None
                if found is not None and comparer.confirm(found):
                    return outcome(found, True, None, comparer)
        # ... and with a value the conversion the mutant drops changes (`from_ordinal(1.5)` for `int(ordinal)`)
        for sample in unconverted_calls(mine, node, source, mutant,
                                        bound=kind in ("instance", "class", "property") or node.name == "__init__"):
            comparer.receiver = sample.receiver if on_instance else None
            found = comparer.check(sample.args_repr, dict(sample.kwargs_repr), "designed")
            found = _plainer(found, comparer) if found is not None else None
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        # the tests' calls with a word of the table the mutant edits in place of another they wrote (each on its
        # own instance: the format a text is parsed with comes with the text)
        swaps = table_swaps(source, mutant)
        for sample, args_repr, kwargs_repr in [*swapped_calls(mine, swaps), *swapped_calls(optioned, swaps)]:
            comparer.receiver = sample.receiver if kind in ("instance", "property") else None
            found = comparer.check(args_repr, kwargs_repr, "designed")
            found = _plainer(found, comparer) if found is not None else None
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        # a command's entry point, given command lines (the one every call shares shows none of its options), and
        # the tests' own command lines with each option its parser declares (`main([path, '-r', '--compact', 'True'])`)
        tree = _module_tree(read_python(reference_dir / defined_in) if defined_in else source)
        declared = parser_options(tree, node) if not owner else []
        commands = command_lines(node, module, [*test_literals, *(v for s in mine for v in s.args)], declared) \
            if not owner else []
        for sample in with_command_options(answered, declared):  # (first: a call as the tests wrote theirs)
            found = comparer.check(sample.args_repr, dict(sample.kwargs_repr), "command-options")
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        for argv, stdin in commands:
            comparer.argv, comparer.stdin = argv, stdin
            found = comparer.check([], {}, "designed")
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        comparer.argv = comparer.stdin = None
        constructed = not owner and node.name == "__init__"  # a class called: `self` is what it builds
        signature = _Signature.of(node, bound=kind in ("instance", "class") or constructed,
                                  aliases=type_aliases(tree))
        tables = _tested_tables(source, mutant)
        designed = (_pattern_examples(source, mutant) + _data_examples((reference, mutated), source, mutant, data)
                    + _in_text(_code_point_characters(source, mutant, node, reference)) + _sized_texts(source, mutant)
                    + _joined_texts(source, mutant, [*(v for s in mine for v in (*s.args, *s.kwargs.values())),
                                                     *test_literals], reference.strings(tables) if tables else ()))
        related = _row_examples(reference, source, mutant)
        foreign = _FOREIGN if mutant.family == "broadened-handler" else ()
        recase = _looks_at_case(source, mutant)
        # the tests' arguments, once each, the first few before those with the options other tests pass
        recorded = list({(s.args_repr, s.kwargs_repr): s for s in mine}.values())
        ordered = [*recorded[:_FIRST_BASES], *optioned, *recorded[_FIRST_BASES:]]
        calls = list({(s.args_repr, s.kwargs_repr): s for s in ordered}.values())
        # the mutated line's own constants first: few, where the tests' texts with a character of theirs put in
        # are up to sixty (`"quies"` is told apart by itself, before `"horsesq"`), and take turns with the
        # designed inputs
        constants = mutated_constants(source, mutant)
        # (built from the tests' texts that ran the mutated code first: a fragment's check is reached by the URLs
        # that have one)
        reaching = [s for s in calls if comparer.reaches(s.args_repr, dict(s.kwargs_repr))]
        by_reach = [*reaching, *(s for s in calls if s not in reaching)]
        variants = _character_variants(source, mutant, by_reach)
        # (in turn with, under a question whether a value is empty, the tests' texts with a part left out)
        # (what a pattern refuses goes into texts the code took, where a part refused for another reason hides it)
        taken = [s for s in by_reach if comparer.accepted(s.args_repr, dict(s.kwargs_repr))]
        inside = [text for pair in itertools.zip_longest(refused_inside(source, mutant, taken or by_reach),
                                                         parts_emptied(source, mutant, by_reach))
                  for text in pair if text is not None]
        for receiver in receivers:  # each instance the tests built gets its share of the inputs
            comparer.receiver = receiver
            for sample in calls if receiver is not None else ():  # the tests' arguments on this instance
                found = comparer.check(sample.args_repr, dict(sample.kwargs_repr),
                                       "options" if sample in optioned else "recorded")
                if found is not None and comparer.confirm(found):
                    return outcome(found, True, None, comparer)
            # (an instance set up in a mode gets a quarter: the plain ones share the inputs as if alone; the
            # deadline bounds them all)
            shares = len([r for r in receivers if r is None or not r.steps]) if receiver is None or not \
                receiver.steps else 4
            share = max(boundary_budget // shares, boundary_budget // 4)
            for args_repr, kwargs_repr, origin in _boundary_calls(signature, calls, constants, test_literals,
                                                                   share, designed, related, recase, foreign,
                                                                   variants, inside):
                if time.monotonic() > comparer.deadline:
                    comparer.expired = True
                    break
                found = comparer.check(args_repr, kwargs_repr, origin)
                if found is not None:
                    found = _plainer(_smaller(found, comparer), comparer)
                if found is not None and comparer.confirm(found):
                    return outcome(found, True, None, comparer)
            others = receivers if kind == "instance" else []  # `a - b`, `a == b`: b built as the tests built one
            for args_repr in _instance_arguments(signature, [r for r in others if r is not None], owner):
                if time.monotonic() > comparer.deadline:
                    comparer.expired = True
                    break
                found = comparer.check(args_repr, {}, "instance")
                if found is not None and comparer.confirm(found):
                    return outcome(found, True, None, comparer)
            if not signature.parameters:  # (a property: one call says all)
                found = comparer.check([], {}, "edge-value")
            elif search_budget > 0:
                found = _search(signature, calls, comparer, max(1, search_budget // shares))
            else:
                found = None
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        # a boundary mutant no input above made tie: the calls made, with one side of its comparison given the
        # other's value (`random_sample(0.5, ...)` compared a draw of 0.84 with `prob`)
        for args_repr, kwargs_repr, receiver in tie_calls(mutated.sides) if boundary is not None else ():
            comparer.receiver = receiver
            found = comparer.check(args_repr, kwargs_repr, "designed")
            found = shorter_lists(found, comparer) if found is not None else None
            if found is not None and comparer.confirm(found):
                return outcome(found, True, None, comparer)
        found = comparer.read_attribute(attribute) if attribute is not None else None
        if found is not None and comparer.confirm(found):
            return outcome(found, True, None, comparer)
        if comparer.unsteady is not None:  # (a difference that came and went: the calls answer by chance)
            shaky = comparer.unsteady
            made = call_text(symbol, shaky.args_repr, shaky.kwargs_repr, shaky.receiver, read=shaky.read)
            return outcome(None, False, f"`{made}` answered differently when it was made again, so the calls "
                                        f"of `{symbol}` answer partly by chance and their agreement proves "
                                        "nothing; the mutant is not called equivalent", comparer, unsettled=True)
        if handler is not None and handler.of_values and mutated.caught["same"] and not mutated.caught["other"] \
                and comparer.tried.get("foreign") and not mutated.lost and not comparer.expired \
                and not comparer.unsettled and not commands:
            # the calls ran into the handler, and it caught only what the code's catches too, values of kinds the
            # tests never passed among them (an argument typed `str` takes none: `domain(b'a.com')` may still
            # differ): the mutant ran as the code on every input, whatever their results (those no test can
            # compare included)
            return outcome(None, True, None, comparer)
        if comparer.opaque:  # those inputs were called, not compared: nothing says they agree
            kinds = ", ".join(sorted(comparer.opaque))
            count = comparer.opaque_inputs
            return outcome(None, False, f"`{symbol}` gave results a test cannot write down or compare ({kinds}) "
                                        f"for {count} of {sum(comparer.tried.values())} inputs; whatever those "
                                        "showed proves nothing, so the mutant is not called equivalent", comparer,
                           unsettled=comparer.unsettled)
        if not comparer.compared and comparer.setup_failed and setup is not None:
            made = call_text(setup.target.partition(":")[2], setup.args_repr, setup.kwargs_repr)
            return outcome(None, False, f"the set-up call `{made}` the tests made fails here "
                                        f"({comparer.setup_failed})", comparer)
        if not comparer.compared:
            return outcome(None, False, f"no call of `{symbol}` could be compared (each timed out, crashed or "
                                        "returned something too long to write down)", comparer)
        if comparer.expired:  # a search cut short backs no claim of equivalence
            return outcome(None, False, f"the search through `{symbol}` ran out of its {time_budget:g} s after "
                                        f"{sum(comparer.tried.values())} input(s), before every kind of input "
                                        "was tried", comparer, unsettled=True)
        if reads and not comparer.reached:  # agreement on calls that never read what the import filled
            differs = f"the module's data differs after its import with the mutant ({_names(changed)}), but" \
                if changed else "the mutated code runs while the module imports, and"
            return outcome(None, False, f"{differs} no call of `{symbol}` read {_names(data)} (line(s) "
                                        f"{', '.join(map(str, reads))})", comparer)
        # (every compared call reaching the change is all there is to try only for a function: a method's calls are
        # made on the few instances the tests built, and one built otherwise may differ; a mutant no agreement
        # clears is left to say why: ``witness.search``)
        few = comparer.reached < CLAIM_REACHED and (comparer.compared > comparer.reached or kind in (
            "instance", "property") and mutant.family not in ("dropped-copy", "base-class-instance"))
        if (watch or removed) and (not comparer.reached or few):
            # agreement on inputs that never ran the change, or on the few of many that did
            what = (f"ran the code the mutant drops (line(s) {', '.join(map(str, removed))})" if removed else
                    rewritten.told(mutant.line) if rewritten is not None else
                    f"ran the mutated line(s) {', '.join(map(str, mutant.mutated_lines))}")
            if not comparer.reached:
                return outcome(None, False, f"no call of `{symbol}` {what}", comparer)
            return outcome(None, False, f"only {comparer.reached} call(s) of `{symbol}` {what}, too few for their "
                                        "agreement to back a claim", comparer)
        if commands and symbol == mutant.symbol:  # (a few command lines of all its own code takes: `-f -` reads
            # standard input, `--pres` an abbreviation)
            return outcome(None, False, f"`{symbol}` reads the command line, and the {len(commands)} command line(s) "
                                        "tried are a few of all it takes, so agreeing on them claims nothing",
                           comparer, unsettled=True)
        return outcome(None, True, None, comparer)


def _after_another(comparer: _Comparer, samples: Sequence[CallSample], mine: Sequence[CallSample],
                   owner: str) -> Distinction | None:
    """For a copy the mutant drops (``self.modes = ALL.copy()`` made ``= ALL``): each call the tests made of the
    method, on an instance built after another was set up as the tests set one up (its set-up calls, then one
    more call the tests made on an instance of the class). Where the code copied, what the other instance
    changes stays its own; where the mutant shares, it shows in the next instance's public attributes.

    The tests seldom change a mode right after the call that copied it (the call that would show the mutant is
    the one they did not write), so the other instance is then set up the way no test did: one call of the
    method as a test made it (where the mutant shares), then one more call a test made on an instance of the
    class (the change through what is shared); the new instance makes the method's same call."""
    others, steps = [], []
    for sample in samples:
        method = sample.target.rpartition(".")[2]
        if sample.receiver is None or sample.target.rpartition(".")[0] != owner or method.startswith("_"):
            continue
        steps.append((method, sample.args_repr, sample.kwargs_repr))
        built = sample.receiver
        if len(built.steps) < callrecord.MAX_STEPS:
            others.append(dataclasses.replace(built, steps=(*built.steps,
                                                            (method, sample.args_repr, sample.kwargs_repr))))
    others = [other for other in dict.fromkeys(others) if other.steps][:ANOTHER_INSTANCE_TRIED]
    calls = list({(s.args_repr, s.kwargs_repr, s.receiver): s for s in mine if s.receiver is not None}.values())
    for sample in calls[:ANOTHER_INSTANCE_TRIED]:
        for other in others:
            if time.monotonic() > comparer.deadline:
                comparer.expired = True
                return None
            assert sample.receiver is not None
            found = comparer.check_after(other, sample.args_repr, dict(sample.kwargs_repr), sample.receiver)
            if found is not None:
                return found
    # (the changes tried: the method's own calls, then the set-up calls the tests made, then the rest)
    set_up = [step for s in samples if s.receiver is not None for step in s.receiver.steps]
    mine_made = [step for step in steps if step[0] == calls[0].target.rpartition(".")[2]] if calls else []
    changes = list(dict.fromkeys([*mine_made, *set_up, *steps]))[:2 * ANOTHER_INSTANCE_TRIED]
    tried = set(others)
    constructions = list(dict.fromkeys(dataclasses.replace(s.receiver, steps=()) for s in calls
                                       if s.receiver is not None))[:1]
    made = list({(s.args_repr, s.kwargs_repr): s for s in calls}.values())[:ANOTHER_INSTANCE_TRIED]
    for receiver in constructions:
        for sample in made:
            method = sample.target.rpartition(".")[2]
            for step in changes:
                other = dataclasses.replace(receiver, steps=((method, sample.args_repr, sample.kwargs_repr), step))
                if other in tried or step == other.steps[0]:
                    continue
                tried.add(other)
                if time.monotonic() > comparer.deadline:
                    comparer.expired = True
                    return None
                found = comparer.check_after(other, sample.args_repr, dict(sample.kwargs_repr), receiver)
                if found is not None:
                    return found
    return None


def _emptied_then_again(comparer: _Comparer, mine: Sequence[CallSample],
                        receivers: Sequence[callrecord.Receiver | None]) -> Distinction | None:
    """For a mutant that hands out the function's own data instead of a copy (``return self._fields`` for
    ``return self._fields.copy()``): the tests' calls of it (a property's read on each instance they built),
    each made again after a caller emptied what the first gave. The code's copy leaves its data whole; the
    mutant's caller empties the data itself."""
    calls = list(dict.fromkeys([*((s.args_repr, s.kwargs_repr, s.receiver) for s in mine),
                                *(((), (), receiver) for receiver in receivers if receiver is not None)]))
    for args_repr, kwargs_repr, receiver in calls[:EMPTIED_TRIED]:
        if time.monotonic() > comparer.deadline:
            comparer.expired = True
            return None
        found = comparer.check_emptied(args_repr, dict(kwargs_repr), receiver)
        if found is not None:
            return found
    return None


def _instance_arguments(signature: _Signature, built: Sequence[callrecord.Receiver],
                        owner: str) -> Iterator[list[str]]:
    """Calls passing another instance of ``owner`` (one the tests built) as a method's one required argument,
    when nothing types that argument as something else: what the tests combine an instance with
    (``Duration(years=1) - Duration(months=2)``) is often the only way into a branch."""
    required = [p for p in signature.parameters if not p.has_default]
    if len(required) != 1 or required[0].keyword_only or signature.parameters[0] is not required[0]:
        return
    annotation = required[0].annotation
    name = owner.rpartition(".")[2]
    if annotation is not None and not (isinstance(annotation, ast.Name) and annotation.id == name) \
            and not (isinstance(annotation, ast.Constant) and annotation.value == name):
        return
    for other in built:
        if not other.steps:  # (one set up by calls after its construction is no single expression)
            yield [call_text(name, other.args_repr, other.kwargs_repr)]


#: What code that builds, or checks, the instance's own class writes.
_OWN_CLASS = re.compile(r"\b(?:self|cls)\.__class__\b|\btype\(\s*self\s*\)|\bisinstance\(\s*self\s*,")


def _asks_for_its_class(source: str, mutant: Mutant) -> bool:
    """Does the mutant differ only for a subclass: it builds the base class where the code built the
    instance's own (``self.__class__(...)`` made ``OrderedSet(...)``), or its lines ask for that class
    (``if isinstance(self, OrderedSet): cls = self.__class__``)?"""
    if mutant.family == "base-class-instance":
        return True
    lines = source.splitlines()
    return any(_OWN_CLASS.search(lines[number - 1]) for number in range(mutant.line, mutant.end_line + 1)
               if 0 < number <= len(lines))


def _varied(receivers: list[callrecord.Receiver]) -> list[callrecord.Receiver]:
    """The receivers with the first of each kind of construction first (which arguments, of which types:
    ``Duration(years=0.5)`` beside ``Duration(years=4)``, ``compile('{}')`` beside ``Parser('{}')``), then the
    others in order; those the tests set up after building them (``p.classical(all=True)``) after those they only
    built, the first of each kind of set-up first: they show what only a mode shows, the others what every caller
    sees."""
    first: dict[str, callrecord.Receiver] = {}
    for receiver in receivers:
        shape = json.dumps([[type(callrecord.argument_value(t)).__name__ for t in receiver.args_repr],
                            [(name, type(callrecord.argument_value(t)).__name__) for name, t in receiver.kwargs_repr],
                            [(step, [name for name, _ in kwargs]) for step, _, kwargs in receiver.steps],
                            receiver.factory])
        first.setdefault(shape, receiver)
    ordered = list(dict.fromkeys([*first.values(), *receivers]))
    return [r for r in ordered if not r.steps] + [r for r in ordered if r.steps]
