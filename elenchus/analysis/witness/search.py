"""One survivor's search and its verdict: a verified witness, or why there is none.

``search_witness`` searches each target function in turn (``probes.search_input``) and
writes a test for the first call that tells the mutant apart (a ``Candidate``); ``settle``
keeps it as a ``Witness`` when its verification passed on the code and failed on the
mutant, else the search goes on from its ``_Progress``; ``find_witness`` does both in
turn. When nothing is found the ``NoWitness`` says whether a real search backs "likely
equivalent" or the survivor stays a gap, and why.
"""

from __future__ import annotations

import ast
import functools
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from elenchus.analysis import probes
from elenchus.analysis.probes.common import _function_node
from elenchus.execution.cohorts import Cohort
from elenchus.encoding import read_python
from elenchus.execution.executor import Executor
from elenchus.repo.layout import SourceLayout
from elenchus.mutation.mutate import Mutant
from elenchus.execution.run import RunResult
from elenchus.analysis.witness.targets import (
    SETUP_TARGETS,
    _setup_calls,
    changes_data,
    data_for,
    foreign_targets,
    public_attribute,
    public_home,
    setups_for,
    shown_name,
    in_search_order,
    targets_for,
)


_ORIGINS = {"recorded": "calls the tests made",
            "options": "calls the tests made, with keyword arguments other tests pass the same function",
            "defaults": "calls the tests made, without the argument whose default the mutant changes",
            "flags": "calls the tests made, with a flag the mutated code reads turned the other way",
            "command-options": "command lines the tests passed, with options the command's parser declares",
            "emptied-result": "calls made again after a caller emptied what the first returned",
            "boundary": "the mutated constants and their neighbours",
            "designed": "inputs designed for the mutant (what its patterns and the tables it reads match)",
            "test-literal": "the tests' literals", "edge-value": "empty, zero, negative and None values",
            "foreign": "values of kinds the tests never passed, for a broadened error handler",
            "search": "a derandomized search", "instance": "other instances built as the tests built theirs",
            "attribute": "reading the public data the mutant assigns",
            "another-instance": "calls made after another instance was set up as the tests set one up"}


@dataclass(frozen=True, slots=True)
class Witness:
    call: str  # e.g. "ratio(1, 0)"
    original: str  # what the code gives: a value, or "raise ZeroDivisionError"
    mutant: str  # what the mutant gives
    test: str  # a ready-to-paste pytest file, verified to pass on the code and fail on the mutant
    origin: str  # where the input came from (probes.Distinction.origin)
    seconds: float
    misfit: str | None = None  # why the mutant's incident sentence does not describe this call, if it does not
    path: str | None = None  # where the test goes (hardening places it beside the nearest test file)
    test_id: str | None = None  # its pytest node id there
    verification: str | None = None  # what the two verification runs showed

    @property
    def incident(self) -> str:
        """The incident as this call shows it, for when the usual sentence does not fit."""
        return _account(self.call, self.original, self.mutant)

    def to_json(self) -> dict:
        placed = {key: value for key, value in (("path", self.path), ("test_id", self.test_id),
                                                 ("verification", self.verification)) if value}
        return {"call": self.call, "original": self.original, "mutant": self.mutant, "test": self.test,
                "origin": self.origin, "seconds": self.seconds,
                "incident_check": "fits" if self.misfit is None else f"does not fit: {self.misfit}", **placed}


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a proposed test goes and how it is written: beside the nearest test file, in its style."""

    path: str
    style: str  # pytest | unittest


def placement_for(mutant: Mutant, module: str, tests: Sequence[str], read: Callable[[str], str | None]) -> Placement:
    """Beside the test file that most plainly tests ``module`` (named after it, else importing it,
    else the first), as a unittest method when that file holds only ``TestCase`` classes."""
    leaf = module.rpartition(".")[2]
    best: tuple[tuple[bool, bool, bool], str, str] | None = None
    for test in tests:
        text = read(test) or ""
        stem = PurePosixPath(test).stem
        score = (stem in (f"test_{leaf}", f"{leaf}_test"), leaf in stem,
                 re.search(rf"\b{re.escape(module)}\b|\bimport {re.escape(leaf)}\b", text) is not None)
        if best is None or score > best[0]:
            best = (score, test, text)
    directory = PurePosixPath(best[1]).parent if best else PurePosixPath("tests")
    unittest = best is not None and re.search(r"^class \w+\((?:[\w.]*\.)?TestCase\)", best[2], re.M) is not None \
        and re.search(r"^(?:async )?def test", best[2], re.M) is None
    return Placement((directory / f"test_elenchus_{leaf}_{mutant.id[:8]}.py").as_posix(),
                     "unittest" if unittest else "pytest")


def _account(call: str, original: str, mutant: str) -> str:
    return f"`{call}` {_gives(mutant)} where the code {_gives(original)}"


def _gives(observed: str) -> str:
    if observed.startswith("print "):  # (a call that returns the same, and prints something else)
        return f"prints `{observed[len('print '):]}`"
    return f"raises `{observed[len('raise '):]}`" if observed.startswith("raise ") else f"gives `{observed}`"


#: Words of an incident sentence that claim the changed code fails without an error.
_SILENT = ("silently", "hides the failure", "as if nothing went wrong", "swallows")


def _prose(sentence: str) -> str:
    """The words of a sentence outside its `code` spans (names and code say nothing of the claim)."""
    return "".join(piece for index, piece in enumerate(sentence.split("`")) if index % 2 == 0)


def misfit(mutant: Mutant, distinction: probes.Distinction) -> str | None:
    """Why ``mutant``'s incident sentence does not describe what ``distinction`` shows, or None.

    An incident is written from the change alone; the witness is what a call really
    does. The claims that can be read off the sentence are checked: an error the code
    raises and the mutant no longer does (a removed guard or raise), and a silent failure
    (the mutant returns where an error was due, or drops data without one).
    """
    detection, incident = _prose(mutant.expected_detection), _prose(mutant.incident)
    claims_error = "pytest.raises" in mutant.expected_detection or "propagate" in detection
    if claims_error and distinction.reference_exception is None:
        return "it speaks of an error the code raises, but on this call the code returns a value"
    if any(word in incident for word in _SILENT) and distinction.mutant_exception is not None:
        return "it speaks of a silent failure, but on this call the mutant raises " \
               f"`{distinction.mutant_exception}`"
    return None


@dataclass(frozen=True, slots=True)
class NoWitness:
    searched: bool  # False: no input could be tried (then nothing is known)
    reason: str
    inputs: int
    seconds: float


def _setup_text(setup: probes.CallSample) -> str:
    return probes.call_text(setup.target.partition(":")[2], setup.args_repr, setup.kwargs_repr)


def _describe(search: probes.InputSearch) -> str:
    tried = ", ".join(f"{count} from {_ORIGINS.get(origin, origin)}" for origin, count in search.tried)
    if search.reached is not None:
        tried += f"; {search.reached} of them {search.tie or 'ran the mutated code'}"
    if search.caught is not None and search.caught[0]:
        tried += f"; {search.caught[0]} ran into the handler with an error it catches with or without the mutant"
    if search.alike:  # equal in value, yet a test checking the type or the text would tell them apart
        tried += (f"; {search.alike} of them gave results equal under `==` that print differently "
                  f"({search.first_alike}): only a test checking the type or text sees that")
    return f"{search.inputs} input(s) ({tried})" if tried else "no input"


#: A search that broke says so in its reason; it is never reused (the next run searches again).
BROKEN_SEARCH = "the search stopped on an internal error"


@dataclass(slots=True)
class _Progress:
    """How far one survivor's search got; it crosses between the search processes and the verifying one."""

    next_target: int = 0  # the next (target function, set-up call) pair to search
    inputs: int = 0
    seconds: float = 0.0  # spent searching and verifying so far
    searched: bool = False  # some input was compared
    unkept: bool = False  # some input differed, but its test was not kept
    unfinished: bool = False  # the time ran out before every target was searched
    unreplayed: bool = False  # a set-up call the tests made could not be made here
    # a broadened handler's: calls that ran into it catching only what the code's own handler catches, and whether
    # any call made it catch more
    caught: int = 0
    caught_more: bool = False
    notes: list[str] = field(default_factory=list)
    described: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A call that tells the mutant apart, with its test written but not yet verified."""

    probe: probes.Probe
    origin: str
    original: str  # what the code gives, narrated
    changed: str  # what the mutant gives, narrated
    misfit: str | None
    progress: _Progress


#: Verifies a written test against one mutant (``probes.verify_probe`` with a way to run it).
Verify = Callable[[probes.Probe, Mutant], probes.ProbeCheck]


def search_witness(reference_dir: Path, mutant: Mutant, samples: Mapping[str, Sequence[probes.CallSample]],
                   test_literals: Sequence[Any], layout: SourceLayout, time_budget: float,
                   scratch: Path | None = None, unrecorded: Mapping[str, int] | None = None,
                   placement: Placement | None = None, progress: _Progress | None = None,
                   options: Mapping[str, Sequence[tuple[tuple[str, str], ...]]] | None = None) -> Candidate | NoWitness:
    """The next call that tells ``mutant`` apart, its test written (``settle`` verifies it), or why
    there is none; ``progress`` resumes a search whose last candidate was not kept.

    ``samples`` are the recorded calls by ``"module:function"``; ``unrecorded`` counts the
    distinct calls whose arguments were not literals: when they outnumber the recorded
    ones, a search that found nothing has not tried the tests' own kind of input. ``options``:
    by called name, the keyword arguments the tests pass (``probes.keywords_in``). The
    search of every target function shares ``time_budget`` seconds, verifying included.
    """
    started = time.monotonic()
    progress = progress or _Progress()
    source = read_python(Path(reference_dir) / mutant.path)
    module = layout.module_name(mutant.path)
    targets = in_search_order(source, mutant, targets_for(source, mutant), module or "", samples)
    # data only other modules of the package read: reached through the package's own functions
    foreign = foreign_targets(Path(reference_dir), mutant, module) if module is not None and not targets else None
    if module is None or not (targets or foreign):
        where = "no source root makes its file importable" if module is None else (
            f"`{mutant.symbol}` is not a public function or method and no public function or method of "
            f"{mutant.path} calls it")
        return NoWitness(False, f"no witness was searched: {where}", 0, round(time.monotonic() - started, 3))
    data, state, reads = data_for(source, mutant) if foreign is None else ([], [], [])
    attribute = public_attribute(source, mutant) if foreign is None else None  # (data a test reads as it is)
    # Each target as it is, then the first ones again after each set-up call the tests made (activating a
    # locale): what shows only in the state such a call selects.
    setups = _setup_calls(source, mutant, samples, module) if foreign is None else []
    target_module = module if foreign is None else foreign[0]
    if foreign is not None:  # (what calls into other modules agree on is no proof: the reach is not watched)
        targets = foreign[2]
        progress.unfinished = True
        if progress.next_target == 0:
            shown = shown_name(source, mutant)
            reached = f"read only by other modules of `{foreign[0]}`" if changes_data(source, mutant) else \
                "called by no public function of its own module"
            progress.notes.append(f"{shown} {'are' if ' and ' in shown else 'is'} {reached}, so the search went "
                                  f"through `{foreign[0]}`'s own functions, whose agreement claims nothing")
    # What the tests passed to the mutated function itself, when it is not called directly (a private helper
    # its test calls: `_pl_special_verb("wasn't")`): the first literals a public caller gets, since the caller
    # often hands its argument down.
    own = samples.get(f"{module}:{mutant.symbol}", ()) if mutant.symbol not in targets else ()
    passed = {f"{type(v).__name__}:{v!r}": v for s in own for v in (*s.args, *s.kwargs.values())}
    seeds = [*passed.values(), *test_literals]
    phases = [(symbol, None) for symbol in targets] + [
        (symbol, setup) for setup in setups for symbol in targets[:SETUP_TARGETS]
        if setup.target != f"{module}:{symbol}"]
    for index in range(progress.next_target, len(phases)):
        symbol, setup = phases[index]
        remaining = time_budget - progress.seconds - (time.monotonic() - started)
        if remaining <= 0:  # what was not searched backs no claim of equivalence
            progress.unfinished = True
            progress.notes.append(f"the time ran out before `{symbol}` was searched"
                                  + (f" after `{_setup_text(setup)}`" if setup else ""))
            break
        built = samples.get(f"{target_module}:{symbol.rpartition('.')[0]}", ()) if "." in symbol else ()
        called = [*samples.get(f"{target_module}:{symbol}", ()), *built]
        if mutant.family == "dropped-copy" and "." in symbol:  # the calls that set another instance up first
            owner = f"{module}:{symbol.rpartition('.')[0]}."
            called += [sample for key, made in samples.items() if key.startswith(owner) and key != f"{module}:{symbol}"
                       for sample in made]
        # A private module's function is called, and its test imports it, from the package that re-exports it
        # (`semver.replace`, defined in `semver/_deprecated.py`): where the module's own data is not needed.
        home = None if data or state or reads or setup or foreign else public_home(
            reference_dir, mutant.path, module, symbol.split(".")[0])
        if home is not None:
            called = [replace(sample, target=home + sample.target[len(module):]) for sample in called]
        if foreign is not None:  # (each of the package's functions its share: one whose results no test can
            # compare, `parse` giving statement objects, must not spend the time of the next, `format`)
            remaining /= len(phases) - index
        search = probes.search_input(reference_dir, mutant, called,
                                     test_literals=seeds, time_budget=remaining, scratch=scratch,
                                     symbol=symbol, module=home or target_module, roots=layout.roots, data=data,
                                     state=state, reads=reads, setup=setup,
                                     attribute=attribute if home is None and setup is None else None,
                                     defined_in=foreign[1] if foreign is not None else None,
                                     options=(options or {}).get(symbol.rpartition(".")[2], ()))
        progress.inputs += search.inputs
        if search.caught is not None:  # (what caught more through any target keeps it a gap)
            progress.caught += search.caught[0] if search.clears else 0
            progress.caught_more = progress.caught_more or bool(search.caught[1])
        if search.proof is not None:
            progress.seconds += time.monotonic() - started
            return NoWitness(True, f"equivalent (proven): {search.proof}", progress.inputs,
                             round(progress.seconds, 3))
        if not search.searched:
            if search.unsettled:  # what a search did not try or see backs no claim, whatever the others found
                progress.unfinished = True
                progress.notes.append(f"`{symbol}`" + (f" after `{_setup_text(setup)}`" if setup else "")
                                      + f": {search.reason}")
            elif setup is None:
                progress.notes.append(f"`{symbol}`: {search.reason}")
            elif search.reason and search.reason.startswith("the set-up call"):  # a state the tests select that
                progress.unreplayed = True  # could not be reproduced: what it would show is unknown
                progress.notes.append(f"`{symbol}`: {search.reason}")
            continue
        skipped = (unrecorded or {}).get(f"{target_module}:{symbol}", 0)
        recorded = len(samples.get(f"{target_module}:{symbol}", ()))
        if search.distinction is None and skipped > recorded:  # the tests' own kind of input was never tried
            if setup is None:
                progress.notes.append(
                    f"`{symbol}`: the tests made {skipped} distinct call(s) of it that the search cannot repeat (an "
                    "argument, or the instance it was called on, built in a way no call of literals rebuilds), and "
                    f"only {recorded} it could")
            continue
        progress.searched = True
        after = f" after `{_setup_text(setup)}`" if setup else ""
        progress.described.append(f"`{symbol}`{after}: {_describe(search)}")
        if search.distinction is None:
            continue
        found = search.distinction
        if setup is not None:  # a set-up call's effect is put back after the test, by a call the tests made
            found = replace(found, undo=next((sample for name in setups_for(source) for sample in samples.get(
                f"{module}:{name}", ()) if not sample.args_repr and not sample.kwargs_repr and sample.target
                != setup.target), None))
        placed = {"style": placement.style, "path": placement.path} if placement is not None else {}
        probe = probes.write_probe(mutant, found, home or target_module, function=symbol, witness=True, **placed)
        original = probe.reference_repr + probes.arguments_narrated(found, 1, short=True)
        changed = (probe.mutant_repr or "") + probes.arguments_narrated(found, 2, short=True)
        wrong = misfit(mutant, found)
        if wrong is not None:  # the test's docstring tells what the call shows, not the misfitting sentence
            probe = probes.write_probe(mutant, found, home or target_module, function=symbol, witness=True,
                                       incident=_account(probe.input_repr, original, changed), **placed)
        progress.next_target = index + 1
        progress.seconds += time.monotonic() - started
        return Candidate(probe, found.origin, original, changed, wrong, progress)
    progress.next_target = len(phases)
    progress.seconds += time.monotonic() - started
    seconds = round(progress.seconds, 3)
    # Nothing compared, a target left unsearched, or a difference no kept test shows: a gap.
    if not progress.searched or progress.unkept or progress.unfinished or progress.unreplayed:
        lead = "no witness was found, so it stays a gap" if progress.inputs else "no witness was searched"
        return NoWitness(False, f"{lead}: " + "; ".join(progress.notes + progress.described), progress.inputs,
                         seconds)
    tried = "; ".join(progress.described + progress.notes)
    if mutant.family == "broadened-handler" and progress.caught and not progress.caught_more:
        return NoWitness(True, "likely equivalent: the code the handler guards raised only errors the code's own "
                               f"handler catches too, in {progress.caught} call(s), so the mutant ran as the code did "
                               f"on every input tried (tried {tried}; {seconds:.1f} s)", progress.inputs, seconds)
    if mutant.family == "broadened-handler" and progress.caught_more:
        return NoWitness(False, "no witness was found, so it stays a gap: a call made the guarded code raise an "
                                "error the handler did not catch before, and its result agreed with the code's all "
                                "the same; the mutant ran otherwise there, which backs no claim "
                                f"(tried {tried}; {seconds:.1f} s)", progress.inputs, seconds)
    handed = _handed_back(source, mutant)
    if handed is not None:
        return NoWitness(False, f"no witness was found, so it stays a gap: the code hands back `{handed}`, the very "
                                "object it was given, where the mutant goes on and may hand back an equal one it "
                                "builds; results compared by value cannot tell the two apart, yet a caller who "
                                f"changes what it got changes `{handed}` too only with the code (tried {tried}; "
                                f"{seconds:.1f} s)", progress.inputs, seconds)
    if mutant.family in _SEARCH_CANNOT_CLEAR:
        return NoWitness(False, f"no witness was found, so it stays a gap: {_SEARCH_CANNOT_CLEAR[mutant.family]} "
                                f"(tried {tried}; {seconds:.1f} s)", progress.inputs, seconds)
    return NoWitness(True, f"likely equivalent: no input told it apart (tried {tried}; {seconds:.1f} s)",
                     progress.inputs, seconds)


def _handed_back(source: str, mutant: Mutant) -> str | None:
    """The parameter the mutated function hands back as it was given (``return other``) in a ``return`` the mutant
    loses (pysrt's ``coerce`` without its ``if isinstance(other, SubRipTime): return other``, which then builds an
    equal ``SubRipTime`` of its own); else None."""
    def handed(text: str) -> Counter[str]:
        node = _function_node(text, mutant.symbol or "")
        if node is None:
            return Counter()
        given = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
        return Counter(n.value.id for n in ast.walk(node) if isinstance(n, ast.Return)
                       and isinstance(n.value, ast.Name) and n.value.id in given and n.value.id not in ("self", "cls"))

    before, after = handed(source), handed(mutant.mutated_source)
    return next((name for name, count in before.items() if after[name] < count), None)


#: Mutants an input search that found nothing cannot call equivalent, with why: a handler widened to
#: `Exception` differs exactly when the guarded code raises something else, which inputs drawn from the
#: tests rarely make it do (an overflow, a failing file), and no search can rule out (unless the search
#: watched it run into the handler, each time with an error of values the code catches too: then the
#: mutant ran as the code did on every input tried, ``probes.InputSearch.caught``); a dropped copy
#: differs only once the original or its alias is changed afterwards, which results compared by value
#: (as every search compares them) never show; a base class built where the instance's own class was
#: differs only for a subclass, and the empty one the search builds shows it only in what the calls return.
_SEARCH_CANNOT_CLEAR = {
    "broadened-handler": "the mutant differs only when the guarded code raises an error the handler did not "
                         "catch before, and no input tried made it raise one; a search cannot show none exists",
    "dropped-copy": "the mutant shares the original where the code made a copy, which differs only once one of "
                    "the two is changed afterwards; results compared by value cannot show that",
    "base-class-instance": "the mutant builds the base class where the code builds the instance's own class, which "
                           "differs only for a subclass; where no subclass's instance got its own class back from "
                           "the calls searched, one the code keeps inside may still differ",
}


def settle(candidate: Candidate, check: probes.ProbeCheck, seconds: float, placed: bool) -> Witness | _Progress:
    """The witness, when ``check`` (its verification, which took ``seconds``) kept the candidate's test;
    else the search's progress, to go on with the next target function."""
    progress, probe = candidate.progress, candidate.probe
    progress.seconds += seconds
    if check.accepted:
        return Witness(probe.input_repr, candidate.original, candidate.changed, probe.source, candidate.origin,
                       round(progress.seconds, 3), candidate.misfit, probe.path if placed else None,
                       probe.test_nodeid if placed else None, check.reason)
    progress.unkept = True  # it differs: not equivalent, whatever the other targets show
    progress.notes.append(f"`{probe.input_repr}` differs, but its test was not kept: {check.reason}")
    return progress


def find_witness(reference_dir: Path, mutant: Mutant, samples: Mapping[str, Sequence[probes.CallSample]],
                 test_literals: Sequence[Any], layout: SourceLayout, time_budget: float,
                 scratch: Path | None = None, disabled_plugins: Sequence[str] = (),
                 unrecorded: Mapping[str, int] | None = None, placement: Placement | None = None,
                 verify: Verify | None = None,
                 options: Mapping[str, Sequence[tuple[tuple[str, str], ...]]] | None = None) -> Witness | NoWitness:
    """A verified witness for ``mutant`` in the code at ``reference_dir``, or why there is none
    (``search_witness`` and ``settle`` in turn). ``verify`` checks each written test; by default in
    fresh interpreters."""
    if verify is None:
        verify = functools.partial(_verify_fresh, reference_dir, scratch, layout, tuple(disabled_plugins))
    progress = None
    while True:
        found = search_witness(reference_dir, mutant, samples, test_literals, layout, time_budget, scratch,
                               unrecorded, placement, progress, options)
        if isinstance(found, NoWitness):
            return found
        started = time.monotonic()
        settled = settle(found, verify(found.probe, mutant), time.monotonic() - started, placement is not None)
        if isinstance(settled, Witness):
            return settled
        progress = settled


def _verify_fresh(reference_dir: Path, scratch: Path | None, layout: SourceLayout, disabled_plugins: tuple[str, ...],
                  probe: probes.Probe, mutant: Mutant) -> probes.ProbeCheck:
    return probes.verify_probe(reference_dir, probe, mutant, scratch=scratch, layout=layout,
                               disabled_plugins=disabled_plugins)


def verifier(cohort: Cohort, executor: Executor) -> Verify:
    """Verification through an evaluation's own runs: each test runs in a fresh copy of ``cohort``
    (with the mutant, or without), the way that evaluation runs its mutants (a warm worker's fork,
    a fresh interpreter, a cluster's worker)."""
    from elenchus.execution.executor import RunRequest

    def run(path: str, source: str, changed: Mutant | None, limit: float) -> RunResult:
        return executor.run(RunRequest(cohort, (path,), limit, changed, extra=((path, source),)))

    def verify(probe: probes.Probe, mutant: Mutant) -> probes.ProbeCheck:
        return probes.verify_probe(cohort.template, probe, mutant, run=run)

    return verify
