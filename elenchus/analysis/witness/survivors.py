"""Witnessing every survivor of an evaluation: one recording run, then the searches side by side.

``witness_survivors`` records once the calls the tests make to every function a witness
will call (only the fastest tests that run them, by the baseline's coverage), then searches
``jobs`` survivors at a time in processes forked from a server that imported this package
once (``_search_processes``), verifying each written test here through the evaluation's
own runs when it has an executor. A search that breaks leaves its survivor a gap, saying
why. The functions sent to those processes are module-level functions of this module, so
the server preloads it by name.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Mapping, Sequence
import multiprocessing
import re
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, TypeVar

from elenchus.analysis import probes
from elenchus.execution import callrecord
from elenchus.execution.cohorts import Cohort
from elenchus.execution.coverage_map import CoverageMap
from elenchus.encoding import read_python
from elenchus.execution.executor import Executor
from elenchus.repo.layout import SourceLayout
from elenchus.mutation.mutate import Mutant
from elenchus.repo.snapshot import Snapshot
from elenchus.analysis.witness.targets import (
    _lines_of,
    changes_data,
    foreign_targets,
    instance_setups_for,
    setups_for,
    targets_for,
)
from elenchus.analysis.witness.search import (
    BROKEN_SEARCH,
    Candidate,
    NoWitness,
    Placement,
    Verify,
    Witness,
    _Progress,
    find_witness,
    placement_for,
    search_witness,
    settle,
    verifier,
)


def witness_survivors(survivors: Sequence[Mutant], cohort: Cohort, head: Snapshot, layout: SourceLayout,
                      time_budget: float, jobs: int, scratch: Path, placed: bool = False,
                      executor: Executor | None = None,
                      coverage: CoverageMap | None = None) -> dict[str, Witness | NoWitness]:
    """A witness (or why there is none) for each survivor, against the cohort's current tests.

    One run of the cohort's tests records the calls they make to the functions the
    witnesses will call (only the tests that run those functions, when the baseline's
    ``coverage`` says which); the searches then run ``jobs`` at a time. ``placed``
    (hardening): each test is written and verified where it would go, in the nearest test
    file's style. With ``executor`` (the evaluation's), each written test is verified through
    its runs, in this process, while the searches go on in theirs.
    """
    wanted = set()
    steps = set()  # (module, Class.method): set-up calls on an instance, replayed with its construction
    spans: dict[tuple[str, str], set[int]] = {}  # (file, function) -> body lines of a function a witness will call
    own: dict[tuple[str, str], set[int]] = {}  # ... of a mutated function no witness calls (a private helper)
    searchable: list[Mutant] = []  # (a survivor no public function reaches is answered here, at once)
    answered = {mutant.id: _too_large(mutant.path, size) for mutant in survivors
                if (size := len(head.read(mutant.path) or "")) > LARGEST_SEARCHED}
    answered |= {mutant.id: _untaken(how) for mutant in survivors if mutant.id not in answered
                 and coverage is not None and (how := coverage.untaken_branch(mutant, head.read(mutant.path) or ""))}
    survivors = [mutant for mutant in survivors if mutant.id not in answered]
    for mutant in survivors:
        module = layout.module_name(mutant.path)
        if module is not None:
            source = head.read(mutant.path) or ""
            names = targets_for(source, mutant)
            for name in names + (setups_for(source) if names else []):  # (and the set-up calls the tests make)
                wanted.add((module, name))
                spans.setdefault((mutant.path, name), _lines_of(source, [name]))
            for owner in {name.partition(".")[0] for name in names if "." in name}:
                steps.update((module, step) for step in instance_setups_for(source, owner))
            if names:
                searchable.append(mutant)
            elif (foreign := foreign_targets(cohort.template, mutant, module)) is not None:
                # a table only other modules read, or code only they call: the package's own functions, which
                # the tests call
                package, path, functions = foreign
                for name in functions:
                    wanted.add((package, name))
                    spans.setdefault((path, name), _lines_of(head.read(path) or "", [name]))
                if not changes_data(source, mutant):  # (the tests that ran it: their calls of those reach it)
                    spans.setdefault((mutant.path, mutant.symbol), _lines_of(source, [mutant.symbol]))
                searchable.append(mutant)
            if names and mutant.symbol not in names and "<" not in mutant.symbol:
                # a private function's own calls by the tests: the literals its public callers get first
                wanted.add((module, mutant.symbol))
                own.setdefault((mutant.path, mutant.symbol), _lines_of(source, [mutant.symbol]))
    unrecorded: dict[str, int] = {}
    callers = _callers(cohort, coverage, spans) if cohort.tests else ()
    if callers != cohort.tests:
        callers = tuple(sorted({*callers, *_naming_callers(cohort, coverage, own, CALLERS_PER_FUNCTION)}))
    samples = probes.record_calls(cohort.template, callers, sorted(wanted), roots=layout.roots, scratch=scratch,
                                  steps=sorted(steps), disabled_plugins=cohort.disabled_plugins, unrecorded=unrecorded,
                                  tests_only=callers != cohort.tests) if wanted and callers else {}
    # Then the tests of each function itself, every case: they call it with the options and texts it is checked
    # with (`domain('3.cn.', rfc_1034=True)`). Recorded after the fastest callers', whose calls the search tries first.
    named = sorted(set(_naming_callers(cohort, coverage, spans, NAMED_CASES, in_order=True)) - set(callers)) \
        if wanted and callers and callers != cohort.tests else []
    if named:
        more = probes.record_calls(cohort.template, named, sorted(wanted), roots=layout.roots, scratch=scratch,
                                   steps=sorted(steps), disabled_plugins=cohort.disabled_plugins, tests_only=True)
        for target, calls in more.items():
            bucket = samples.setdefault(target, [])
            bucket += _spread([call for call in calls if call not in bucket], callrecord.KEPT_SAMPLES - len(bucket))
    sources = [read_python(cohort.template / t) for t in cohort.tests]
    literals, options = probes.literals_in(sources), probes.keywords_in(sources)
    placements = {mutant.id: placement_for(mutant, layout.module_name(mutant.path) or "", cohort.tests, head.read)
                  if placed and layout.module_name(mutant.path) else None for mutant in survivors}
    verify = verifier(cohort, executor) if executor is not None else None
    arguments = (samples, literals, layout, time_budget, scratch, cohort.disabled_plugins, unrecorded)
    pooled = {m.id for m in searchable} if jobs > 1 and len(searchable) > 1 else set()
    alone = [mutant for mutant in survivors if mutant.id not in pooled]
    found: dict[str, Witness | NoWitness] = {**answered, **{
        mutant.id: _searched(cohort.template, mutant, *arguments, placements[mutant.id], verify, options=options)
        for mutant in alone}}
    if len(found) == len(survivors) + len(answered):  # (one search, or one job: no process pool to start)
        return found
    search = functools.partial(_hunted, cohort.template, samples=samples, literals=literals, layout=layout,
                               time_budget=time_budget, scratch=scratch, disabled_plugins=cohort.disabled_plugins,
                               unrecorded=unrecorded, verify_here=verify is None, options=options)
    # Processes, not threads: CPython 3.11 can fail building ASTs (ast.parse, literal_eval)
    # in two threads at once ("AST constructor recursion depth mismatch").
    with ProcessPoolExecutor(max_workers=min(jobs, len(searchable)),
                             mp_context=_search_processes()) as pool, \
            ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="elenchus-verify") as checks:
        pending: dict[Future, Mutant] = {pool.submit(search, mutant, placements[mutant.id]): mutant
                                         for mutant in searchable}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                mutant = pending.pop(future)
                outcome = _outcome(future)
                if isinstance(outcome, Candidate):  # its test is verified here, through the evaluation's runs
                    assert verify is not None
                    pending[checks.submit(_checked, outcome, mutant, verify, placements[mutant.id] is not None)] = \
                        mutant
                elif isinstance(outcome, _Progress):  # that test was not kept: the search goes on
                    pending[pool.submit(search, mutant, placements[mutant.id], outcome)] = mutant
                else:
                    found[mutant.id] = outcome
    return found


#: A search reads the whole module it calls into (which functions reach the mutated line, what the import
#: fills): a generated module of 5 MB took 14 s and 0.8 GB to parse, per search process, longer than a
#: search may last. Survivors of a larger source are left unsearched, saying so.
LARGEST_SEARCHED = 2_000_000


def _too_large(path: str, size: int) -> NoWitness:
    return NoWitness(False, f"no witness was searched: `{path}` is {size / 1e6:.1f} MB of source, more than the "
                            f"{LARGEST_SEARCHED / 1e6:.0f} MB a search reads (reading it would take longer and more "
                            "memory than a search may use); a test calling the function with the input that shows "
                            "the difference closes the gap", 0, 0.0)


#: Where a survivor's reason says its code lies in a branch the import did not take.
UNTAKEN = "only the import runs it"


def untaken_branch(reason: str) -> str | None:
    """How the branch reads ("runs only where ..."), when ``reason`` says a survivor's code lies in a branch
    the import here did not take; else None."""
    found = re.search(rf"this code (runs only where .+?): {UNTAKEN}", reason)
    return found.group(1) if found else None


def _untaken(how: str) -> NoWitness:
    return NoWitness(False, f"no witness was searched: this code {how}: {UNTAKEN}, so no call made in this "
                            "environment reaches it, and no test run here can catch it: only a run of the tests "
                            "where the branch is taken (another installation, Python or environment) runs it", 0, 0.0)


def _search_processes() -> multiprocessing.context.BaseContext:
    """Search processes forked from one server process that imported the search code once (a spawned
    process imports it itself: 0.4 s of CPU apiece, 11 % of a small evaluation); spawned ones where no
    such server can start. The server serves this process's later evaluations too, and ends with it."""
    from multiprocessing import forkserver

    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # (this module, whose functions the searches run, and the search code it imports; Hypothesis: imported
        # on first use)
        context.set_forkserver_preload(["elenchus.analysis.witness.survivors", "hypothesis"])
        try:
            forkserver.ensure_running()
            return context
        except OSError:
            pass
    return multiprocessing.get_context("spawn")


#: Above this share of the cohort's tests, recording runs the test files as they are.
_NARROWED_SHARE = 0.5
#: Tests recorded per function a witness will call: the fastest that run it (a few tests give the calls
#: worth trying; recording slows every call, and one slow test took most of a recording run).
CALLERS_PER_FUNCTION = 8
#: Cases (parametrized ones counted one by one) of the tests naming a function that a recording run adds for it.
NAMED_CASES = 60


def _callers(cohort: Cohort, coverage: CoverageMap | None,
             spans: Mapping[tuple[str, str], set[int]]) -> tuple[str, ...]:
    """What the recording run runs: for each function the witnesses will call, the fastest tests that
    executed its body (by the baseline's coverage, as node ids; none when no test did), else the cohort's
    test files. A test that calls a function runs its body; running the others would only record nothing,
    slowly. (Node ids are chosen only when none of those lines ran at import: the recording then starts
    with the tests; and only when the coverage measured each function's file: a target's evaluation measures
    the target's files, and a table there is reached through the package's functions in others.)"""
    if coverage is None or any(lines & coverage.shared.get(path, frozenset()) for (path, _), lines in spans.items()):
        return cohort.tests  # calls made at import or by a shared fixture: only a whole run records them
    if any(path not in coverage.lines and path not in coverage.shared for path, _ in spans):
        return cohort.tests  # (a file the coverage did not measure: which tests call into it is unknown)
    keys: set[str] = set()
    for (path, _), lines in spans.items():
        keys.update(_running(coverage, path, lines)[:CALLERS_PER_FUNCTION])
    nodeids = tuple(sorted(nodeid for nodeid, key in coverage.keys.items() if key in keys))
    return cohort.tests if len(nodeids) > _NARROWED_SHARE * len(coverage.keys) else nodeids


def _running(coverage: CoverageMap, path: str, lines: set[int]) -> list[str]:
    """The tests (coverage keys) that ran any of ``lines`` of ``path``, fastest first: those within about a
    factor of two of each other count as equally fast (``_speed``), and among them the cases of each test function
    take turns, in the order of their keys (the first case of each function, then the second of each, ...): the
    valid texts of one test beside the invalid ones of the next, in every run."""
    running = {key for line in lines for key in coverage.lines.get(path, {}).get(line, ())}
    ordered = sorted(running, key=lambda k: (_speed(coverage.durations.get(k, 0.0)), k))
    turn: dict[str, int] = {}
    cases: dict[tuple[int, str], int] = {}
    for key in ordered:
        function = (_speed(coverage.durations.get(key, 0.0)), key.partition("[")[0])
        turn[key] = cases.get(function, 0)
        cases[function] = turn[key] + 1
    return sorted(ordered, key=lambda k: (_speed(coverage.durations.get(k, 0.0)), turn[k], k))


#: Tests faster than this are all equally fast.
_QUICK_SECONDS = 0.005


def _speed(seconds: float) -> int:
    """How fast a test is, coarsely (0 under ``_QUICK_SECONDS``, then one more for each doubling): a test
    taking a millisecond more in one run must not change which tests record the calls, and with them the
    witnesses found (validators' `url` gave 9 to 13 from one run to the next when the exact times decided)."""
    return 0 if seconds < _QUICK_SECONDS else 1 + int(math.log2(seconds / _QUICK_SECONDS))


def _naming_callers(cohort: Cohort, coverage: CoverageMap | None, spans: Mapping[tuple[str, str], set[int]],
                    cases: int, in_order: bool = False) -> tuple[str, ...]:
    """For each function of ``spans``, the tests that ran its body and name it (the test's name holds the
    function's, else its file calls it by name), up to ``cases`` of the cases of the fastest few such test
    functions, fastest first (``in_order``: in the order the tests were collected, the same cases in every run
    whatever each took): those call it themselves, with the texts and options a test of that function checks
    (``domain('3.cn.', rfc_1034=True)``), and, for a private function, the arguments its public callers are then
    given first; the fastest tests running it often only go through its callers (an email validator calling the
    domain one)."""
    if coverage is None:
        return ()
    nodeids = {key: nodeid for nodeid, key in coverage.keys.items()}
    texts: dict[str, str] = {}
    chosen: set[str] = set()
    for (path, symbol), lines in spans.items():
        name = symbol.rpartition(".")[2]
        running = [key for key in _running(coverage, path, lines) if key in nodeids]
        named = [key for key in running if name.strip("_") in nodeids[key].rpartition("::")[2]]
        for key in running if not named else ():
            file = nodeids[key].partition("::")[0]
            if file not in texts:
                texts[file] = read_python(cohort.template / file) if (cohort.template / file).is_file() else ""
            if f"{name}(" in texts[file]:
                named.append(key)
        functions = list(dict.fromkeys(nodeids[key].partition("[")[0] for key in named))[:CALLERS_PER_FUNCTION]
        named_cases = [nodeids[key] for key in named if nodeids[key].partition("[")[0] in functions]
        if in_order:
            collected = {nodeid: place for place, nodeid in enumerate(coverage.keys)}
            named_cases.sort(key=collected.__getitem__)
            chosen.update(_spread(named_cases, cases))
        else:
            chosen.update(named_cases[:cases])
    return tuple(sorted(chosen))


_T = TypeVar("_T")


def _spread(items: Sequence[_T], count: int) -> list[_T]:
    """``count`` of ``items`` taken evenly from first to last, in their order: a parametrized test lists its cases
    by kind (plain addresses, then those with a password, then with a fragment), and its first cases alone would
    all be of the first kinds."""
    if count >= len(items):
        return list(items)
    if count < 2:
        return list(items[:max(0, count)])
    return [items[round(place * (len(items) - 1) / (count - 1))] for place in range(count)]


def _outcome(future: Future) -> Witness | NoWitness | Candidate | _Progress:
    """A search's or a verification's result; one that broke leaves its survivor a gap, saying why."""
    try:
        return future.result()
    except Exception as error:  # noqa: BLE001 - a worker that died: that survivor stays a gap
        return NoWitness(False, f"no witness was searched: {BROKEN_SEARCH} "
                                f"({type(error).__name__}: {error})", 0, 0.0)


def _hunted(reference_dir: Path, mutant: Mutant, placement: Placement | None, progress: _Progress | None = None, *,
            samples: Mapping[str, Sequence[probes.CallSample]], literals: Sequence[Any], layout: SourceLayout,
            time_budget: float, scratch: Path, disabled_plugins: Sequence[str], unrecorded: Mapping[str, int],
            verify_here: bool, options: Mapping[str, Sequence[tuple[tuple[str, str], ...]]]
            ) -> Witness | NoWitness | Candidate:
    """One search process's part: the whole search with fresh verification (``verify_here``), else the
    search up to its next candidate."""
    if verify_here:
        return _searched(reference_dir, mutant, samples, literals, layout, time_budget, scratch, disabled_plugins,
                         unrecorded, placement, options=options)
    started = time.monotonic()
    try:
        return search_witness(reference_dir, mutant, samples, literals, layout, time_budget, scratch, unrecorded,
                              placement, progress, options)
    except Exception as error:  # noqa: BLE001 - one survivor's search must not lose the evaluation
        return _broken(error, started)


def _checked(candidate: Candidate, mutant: Mutant, verify: Verify, placed: bool) -> Witness | _Progress | NoWitness:
    started = time.monotonic()
    try:
        return settle(candidate, verify(candidate.probe, mutant), time.monotonic() - started, placed)
    except Exception as error:  # noqa: BLE001 - a verification that broke leaves the survivor a gap
        return _broken(error, started)


def _searched(reference_dir: Path, mutant: Mutant, *arguments: Any, **keywords: Any) -> Witness | NoWitness:
    """``find_witness``; a search that breaks leaves the survivor a gap, saying why, instead of ending the run."""
    started = time.monotonic()
    try:
        return find_witness(reference_dir, mutant, *arguments, **keywords)
    except Exception as error:  # noqa: BLE001 - one survivor's search must not lose the evaluation
        return _broken(error, started)


def _broken(error: Exception, started: float) -> NoWitness:
    return NoWitness(False, f"no witness was searched: {BROKEN_SEARCH} "
                            f"({type(error).__name__}: {error})", 0, round(time.monotonic() - started, 3))
