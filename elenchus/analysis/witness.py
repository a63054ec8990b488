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
literals), stays a gap, with the reason.
"""

from __future__ import annotations

import ast
import functools
import re
import time
from collections.abc import Callable, Mapping, Sequence
import multiprocessing
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from elenchus.execution import callrecord
from elenchus.analysis import probes
from elenchus.execution.cohorts import Cohort
from elenchus.execution.coverage_map import CoverageMap
from elenchus.encoding import read_python
from elenchus.execution.executor import Executor
from elenchus.repo.layout import SourceLayout
from elenchus.mutation.mutate import Mutant
from elenchus.execution.run import RunResult
from elenchus.repo.snapshot import Snapshot

_ORIGINS = {"recorded": "calls the tests made", "boundary": "the mutated constants and their neighbours",
            "designed": "inputs designed for the mutant (what its patterns and the tables it reads match)",
            "test-literal": "the tests' literals", "edge-value": "empty, zero, negative and None values",
            "search": "a derandomized search", "instance": "other instances built as the tests built theirs"}


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


@functools.lru_cache(maxsize=4)
def _references(source: str) -> dict[str, set[str]]:
    """{module-level function, or method as ``Class.name``: the names and attribute names its body reads}
    (read-only: cached, since every survivor of a module asks, and a large module takes long to parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, set[str]] = {}
    for node in tree.body:
        functions = [("", node)] if isinstance(node, ast.FunctionDef) else [
            (f"{node.name}.", item) for item in node.body if isinstance(item, ast.FunctionDef)] \
            if isinstance(node, ast.ClassDef) else []
        for prefix, function in functions:  # methods as "Class.name"
            found[prefix + function.name] = {inner.id if isinstance(inner, ast.Name) else inner.attr for inner in
                                             ast.walk(function) if isinstance(inner, (ast.Name, ast.Attribute))}
    return found


@functools.lru_cache(maxsize=8)
def _module_statements(source: str) -> tuple[ast.stmt, ...]:
    """The module's top-level statements, parsed once (read-only: the nodes are shared)."""
    try:
        return tuple(ast.parse(source).body)
    except SyntaxError:
        return ()


def _assigned(node: ast.stmt) -> set[str]:
    """The names a module-level statement assigns (``LIMIT = 3``, ``MAP: dict = {...}``)."""
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return {inner.id for target in targets if isinstance(target, ast.AST)
            for inner in ast.walk(target) if isinstance(inner, ast.Name)}


def _assigned_at(source: str, line: int) -> set[str]:
    """The names the module-level statement spanning ``line`` assigns, and the module-level
    names built from them (``TRANS = str.maketrans(MAP)`` carries a change of ``MAP``)."""
    body = _module_statements(source)
    names = set().union(*(_assigned(n) for n in _statements_at(source, line)))
    for _ in range(3):
        names |= set().union(set(), *(_assigned(n) for n in body if not isinstance(n, (
            ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and names & {
            inner.id for inner in ast.walk(n) if isinstance(inner, ast.Name)}))
    return names


def _called_at(source: str, line: int | None = None) -> set[str]:
    """Module-level functions the module's own top-level statements call while it imports (those spanning
    ``line`` only, when given): ``_irregular('person', 'people')`` filling rule tables."""
    return {inner.func.id for node in (_module_statements(source) if line is None else _statements_at(source, line))
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            for inner in ast.walk(node) if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)}


def _module_data(source: str) -> set[str]:
    """The names the module assigns at its top level: its constants and tables."""
    return set().union(set(), *(_assigned(node) for node in _module_statements(source)
                                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))))


def _filled(source: str, calls: Mapping[str, set[str]], functions: set[str]) -> set[str]:
    """The module-level data that ``functions`` touch."""
    data = _module_data(source)
    return set().union(set(), *(calls.get(name, set()) & data for name in functions))


#: Calls whose only effect is the value they return: a statement making nothing but these leaves the
#: module's data as its whole effect.
_PURE_CALLS = frozenset({"frozenset", "set", "dict", "tuple", "list", "int", "float", "str", "bytes", "bool",
                         "range", "len", "sorted", "min", "max", "abs", "round", "compile", "maketrans"})


def data_for(source: str, mutant: Mutant) -> tuple[list[str], list[str], list[int]]:
    """When the mutated code runs only while the module imports: (the module-level data it fills, every
    module-level data name when what it leaves there is all it does, the lines of functions run after the
    import that read what it fills); else nothing, since a function called later can act differently on the
    same data."""
    calls = _references(source)
    everything = sorted(_module_data(source))
    leaf = mutant.symbol.split(".")[0]
    at_import = _called_at(source)
    statement = _statements_at(source, mutant.line)
    if mutant.symbol == "<module>":
        filled = _assigned_at(source, mutant.line) | _filled(source, calls, _called_at(source, mutant.line))
    elif mutant.symbol in everything:
        filled = {mutant.symbol}
    elif leaf in calls and leaf in at_import and not _referenced_later(source, calls, leaf):
        filled, statement = _filled(source, calls, {leaf}), []
    else:
        return [], [], []
    reads = sorted({inner.lineno for node in _module_statements(source) for function in _functions(node)
                    if function.name not in at_import for inner in ast.walk(function)
                    if isinstance(inner, ast.Name) and inner.id in filled})
    provable = _only_data(statement) and _only_data(_statements_at(mutant.mutated_source, mutant.line))
    return sorted(filled), everything if provable else [], reads


def _statements_at(source: str, line: int) -> list[ast.stmt]:
    """The module's top-level statements spanning ``line``."""
    return [node for node in _module_statements(source) if node.lineno <= line <= (node.end_lineno or node.lineno)]


def _only_data(statements: Sequence[ast.stmt]) -> bool:
    """An assignment whose value calls nothing but ``_PURE_CALLS``: its whole effect is what it assigns."""
    return bool(statements) and all(
        isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and all(
            isinstance(call.func, (ast.Name, ast.Attribute))
            and (call.func.id if isinstance(call.func, ast.Name) else call.func.attr) in _PURE_CALLS
            for call in ast.walk(node) if isinstance(call, ast.Call))
        for node in statements)


def _referenced_later(source: str, calls: Mapping[str, set[str]], name: str) -> bool:
    """Whether ``name`` may run after the import: another function reads it, or the module's top level
    keeps it (``HANDLERS = [_irregular]``) rather than only calling it."""
    if any(name in read for other, read in calls.items() if other != name):
        return True
    called = {id(call.func) for node in _module_statements(source) for call in ast.walk(node)
              if isinstance(call, ast.Call)}
    return any(isinstance(inner, ast.Name) and inner.id == name and id(inner) not in called
               for node in _module_statements(source)
               if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               for inner in ast.walk(node))


def _functions(node: ast.stmt) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """A module-level function, or the methods of a module-level class."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node]
    if isinstance(node, ast.ClassDef):
        return [item for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return []


#: Methods that build an instance: every public method of the class runs on what they built.
_BUILDERS = frozenset({"__init__", "__new__", "__post_init__"})


def targets_for(source: str, mutant: Mutant) -> list[str]:
    """Public functions and methods (``Class.name``) to call: the mutated one, else those reaching it
    (nearest first); a public method is followed by the functions calling it, since it needs an instance
    built as the tests built theirs."""
    calls = _references(source)
    leaf = mutant.symbol.split(".")[0] if "." in mutant.symbol else mutant.symbol
    owner, _, name = mutant.symbol.rpartition(".")
    own = [mutant.symbol] if mutant.symbol in calls and probes.public_symbol(mutant.symbol) else []
    if own and not owner:
        return own
    wanted = {leaf, name}
    if owner and name in _BUILDERS:  # the class itself builds it, and its methods read what it built
        own = [owner] * probes.public_symbol(owner) + [
            method for method in calls if method.startswith(f"{owner}.") and probes.public_symbol(method)]
    elif mutant.symbol in calls:  # a method: reached by calls of its name, not by building its class
        wanted = {name}
    if mutant.symbol == "<module>":  # module-level code: the functions reading what it assigns or fills
        wanted = _assigned_at(source, mutant.line) | _filled(source, calls, _called_at(source, mutant.line))
    elif leaf in _called_at(source):  # a function the import runs: its effect is the data it fills
        wanted |= _filled(source, calls, {leaf})
    found: list[str] = list(own)
    for _ in range(3):  # callers, their callers, once more
        callers = [caller for caller, called in calls.items() if called & wanted and caller not in found]
        found += [caller for caller in callers if probes.public_symbol(caller)]
        wanted |= {part for caller in callers for part in (caller, caller.rpartition(".")[2])}
        for builder in [caller for caller in callers if caller.rpartition(".")[2] in _BUILDERS]:
            # what a constructor calls runs for every instance: the class and its public methods reach it
            cls = builder.rpartition(".")[0]
            found += [method for method in [cls, *calls] if (method == cls or method.startswith(cls + "."))
                      and probes.public_symbol(method) and method not in found]
    return found


#: Set-up calls of the module the tests made that a search tries before its calls, and the targets tried after each.
SETUPS_TRIED = 6
SETUP_TARGETS = 2


def setups_for(source: str) -> list[str]:
    """The module's public functions that change what it does later: each assigns a module-level name
    (``global``) or an attribute or item of one (``_CURRENT.locale = locale``), as activating a locale
    or a mode does."""
    data = _module_data(source)
    found = []
    for node in _module_statements(source):
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
            continue
        for inner in ast.walk(node):
            targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target] if isinstance(
                inner, ast.AugAssign) else []
            if isinstance(inner, ast.Global) or any(_rooted_in(target, data) for target in targets):
                found.append(node.name)
                break
    return found


#: Methods that change what a container holds in place (``self.rules.append(...)``).
_MUTATORS = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "pop", "popitem", "remove",
                       "discard", "clear"})


def instance_setups_for(source: str, owner: str) -> list[str]:
    """The public methods of class ``owner`` that change what its instances do later: each assigns an
    attribute of ``self`` or an item of one (``self.classical_dict['all'] = True``), fills one in place
    (``self.user_nouns.append(...)``), or calls a method of its own that does, as switching a mode on
    (``engine.classical(all=True)``) does."""
    methods = [method for node in _module_statements(source) if isinstance(node, ast.ClassDef) and node.name == owner
               for method in node.body if isinstance(method, ast.FunctionDef)]
    changing = set()
    for method in methods:
        for inner in ast.walk(method):
            targets = inner.targets if isinstance(inner, (ast.Assign, ast.Delete)) else [inner.target] \
                if isinstance(inner, (ast.AugAssign, ast.AnnAssign)) else []
            filled = isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) \
                and inner.func.attr in _MUTATORS and _rooted_in(inner.func.value, {"self"})
            if filled or any(_rooted_in(target, {"self"}) for target in targets):
                changing.add(method.name)
                break
    calls = {method.name: {inner.func.attr for inner in ast.walk(method) if isinstance(inner, ast.Call)
                           and isinstance(inner.func, ast.Attribute) and isinstance(inner.func.value, ast.Name)
                           and inner.func.value.id == "self"} for method in methods}
    grown = True
    while grown:  # (a method calling one that changes the instance changes it too)
        more = {name for name, called in calls.items() if called & changing} - changing
        changing |= more
        grown = bool(more)
    return [f"{owner}.{method.name}" for method in methods
            if method.name in changing and not method.name.startswith("_")]


def _rooted_in(target: ast.expr, names: set[str]) -> bool:
    """Is ``target`` an attribute or item of one of ``names`` (``_CURRENT.locale``, ``CACHE[key]``)?"""
    if not isinstance(target, (ast.Attribute, ast.Subscript)):
        return False
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return isinstance(target, ast.Name) and target.id in names


def _setup_calls(source: str, mutant: Mutant, samples: Mapping[str, Sequence[probes.CallSample]],
                 module: str) -> list[probes.CallSample]:
    """The set-up calls a search tries: those the tests made, each first with its first text argument
    replaced by each string of the mutated lines (``activate('de_DE')`` for a dropped ``'de_DE'`` entry)."""
    recorded = [sample for name in setups_for(source) for sample in samples.get(f"{module}:{name}", ())]
    words = [value for value in probes.mutated_constants(source, mutant) if type(value) is str]
    designed: list[probes.CallSample] = []
    for sample in recorded:
        slot = next((i for i, text in enumerate(sample.args_repr) if text[:1] in "'\""), None)
        if slot is not None:  # (words shaped like the tests' own: `'de_DE'` where they wrote `'fr_FR'`, never `'.'`)
            shape = callrecord.argument_value(sample.args_repr[slot]).isidentifier()
            designed += [replace(sample, args_repr=(*sample.args_repr[:slot], repr(word), *sample.args_repr[slot + 1:]))
                         for word in words if word and word.isidentifier() == shape]
    return list(dict.fromkeys([*designed, *recorded]))[:SETUPS_TRIED]


def public_home(reference_dir: Path, path: str, module: str, name: str) -> str | None:
    """The public package a user imports ``name`` from when its own module is private: the nearest package
    above ``path`` (the file of ``module``) whose ``__init__.py`` imports it from there (``from ._deprecated
    import replace``, or ``import *`` of a name the module does not leave out of its ``__all__``)."""
    parts = module.split(".")
    if not any(part.startswith("_") for part in parts):
        return None
    folder = PurePosixPath(path).parent
    for depth in range(len(parts) - 1, 0, -1):  # (the package holding the module, then the one above it...)
        package = parts[:depth]
        if any(part.startswith("_") for part in package):
            folder = folder.parent
            continue
        try:
            source = read_python(Path(reference_dir) / folder / "__init__.py")
            tree = ast.parse(source)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            return None
        for node in tree.body:
            if not isinstance(node, ast.ImportFrom):
                continue
            origin = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else node.module
            if origin != module:
                continue
            if any(alias.name == name and alias.asname in (None, name) for alias in node.names):
                return ".".join(package)
            if any(alias.name == "*" for alias in node.names) and not name.startswith("_") \
                    and name in _star_exports(reference_dir, path, name):
                return ".".join(package)
        folder = folder.parent
    return None


def _star_exports(reference_dir: Path, path: str, name: str) -> set[str]:
    """The names ``from module import *`` takes: its ``__all__`` when it writes one as a literal, else ``name``
    (a public name it defines is taken)."""
    try:
        tree = ast.parse(read_python(Path(reference_dir) / path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return {str(item) for item in ast.literal_eval(node.value)}
            except ValueError:
                return set()
    return {name}


def _setup_text(setup: probes.CallSample) -> str:
    return probes.call_text(setup.target.partition(":")[2], setup.args_repr, setup.kwargs_repr)


def _describe(search: probes.InputSearch) -> str:
    tried = ", ".join(f"{count} from {_ORIGINS.get(origin, origin)}" for origin, count in search.tried)
    if search.reached is not None:
        tried += f"; {search.reached} of them ran the mutated code"
    return f"{search.inputs} input(s) ({tried})" if tried else "no input"


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
                   placement: Placement | None = None, progress: _Progress | None = None) -> Candidate | NoWitness:
    """The next call that tells ``mutant`` apart, its test written (``settle`` verifies it), or why
    there is none; ``progress`` resumes a search whose last candidate was not kept.

    ``samples`` are the recorded calls by ``"module:function"``; ``unrecorded`` counts the
    distinct calls whose arguments were not literals: when they outnumber the recorded
    ones, a search that found nothing has not tried the tests' own kind of input. The
    search of every target function shares ``time_budget`` seconds, verifying included.
    """
    started = time.monotonic()
    progress = progress or _Progress()
    source = read_python(Path(reference_dir) / mutant.path)
    module = layout.module_name(mutant.path)
    targets = targets_for(source, mutant)
    if module is None or not targets:
        where = "no source root makes its file importable" if module is None else (
            f"`{mutant.symbol}` is not a public function or method and no public function or method of "
            f"{mutant.path} calls it")
        return NoWitness(False, f"no witness was searched: {where}", 0, round(time.monotonic() - started, 3))
    data, state, reads = data_for(source, mutant)
    # Each target as it is, then the first ones again after each set-up call the tests made (activating a
    # locale): what shows only in the state such a call selects.
    setups = _setup_calls(source, mutant, samples, module)
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
        built = samples.get(f"{module}:{symbol.rpartition('.')[0]}", ()) if "." in symbol else ()
        called = [*samples.get(f"{module}:{symbol}", ()), *built]
        # A private module's function is called, and its test imports it, from the package that re-exports it
        # (`semver.replace`, defined in `semver/_deprecated.py`): where the module's own data is not needed.
        home = None if data or state or reads or setup else public_home(reference_dir, mutant.path, module,
                                                                        symbol.split(".")[0])
        if home is not None:
            called = [replace(sample, target=home + sample.target[len(module):]) for sample in called]
        search = probes.search_input(reference_dir, mutant, called,
                                     test_literals=test_literals, time_budget=remaining, scratch=scratch,
                                     symbol=symbol, module=home or module, roots=layout.roots, data=data,
                                     state=state, reads=reads, setup=setup)
        progress.inputs += search.inputs
        if search.proof is not None:
            progress.seconds += time.monotonic() - started
            return NoWitness(True, f"equivalent (proven): {search.proof}", progress.inputs,
                             round(progress.seconds, 3))
        if not search.searched:
            if setup is None:
                progress.notes.append(f"`{symbol}`: {search.reason}")
            elif search.reason and search.reason.startswith("the set-up call"):  # a state the tests select that
                progress.unreplayed = True  # could not be reproduced: what it would show is unknown
                progress.notes.append(f"`{symbol}`: {search.reason}")
            continue
        skipped = (unrecorded or {}).get(f"{module}:{symbol}", 0)
        recorded = len(samples.get(f"{module}:{symbol}", ()))
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
        probe = probes.write_probe(mutant, found, home or module, function=symbol, witness=True, **placed)
        original = probe.reference_repr + probes.arguments_narrated(found, 1, short=True)
        changed = (probe.mutant_repr or "") + probes.arguments_narrated(found, 2, short=True)
        wrong = misfit(mutant, found)
        if wrong is not None:  # the test's docstring tells what the call shows, not the misfitting sentence
            probe = probes.write_probe(mutant, found, home or module, function=symbol, witness=True,
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
        return NoWitness(False, f"{lead}: " + "; ".join(progress.notes), progress.inputs, seconds)
    tried = "; ".join(progress.described + progress.notes)
    if mutant.family in _SEARCH_CANNOT_CLEAR:
        return NoWitness(False, f"no witness was found, so it stays a gap: {_SEARCH_CANNOT_CLEAR[mutant.family]} "
                                f"(tried {tried}; {seconds:.1f} s)", progress.inputs, seconds)
    return NoWitness(True, f"likely equivalent: no input told it apart (tried {tried}; {seconds:.1f} s)",
                     progress.inputs, seconds)


#: Mutants an input search that found nothing cannot call equivalent, with why: a handler widened to
#: `Exception` differs exactly when the guarded code raises something else, which inputs drawn from the
#: tests rarely make it do (an overflow, a failing file), and no search can rule out; a dropped copy
#: differs only once the original or its alias is changed afterwards, which results compared by value
#: (as every search compares them) never show.
_SEARCH_CANNOT_CLEAR = {
    "broadened-handler": "the mutant differs only when the guarded code raises an error the handler did not "
                         "catch before, and no input tried made it raise one; a search cannot show none exists",
    "dropped-copy": "the mutant shares the original where the code made a copy, which differs only once one of "
                    "the two is changed afterwards; results compared by value cannot show that",
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
                 verify: Verify | None = None) -> Witness | NoWitness:
    """A verified witness for ``mutant`` in the code at ``reference_dir``, or why there is none
    (``search_witness`` and ``settle`` in turn). ``verify`` checks each written test; by default in
    fresh interpreters."""
    if verify is None:
        verify = functools.partial(_verify_fresh, reference_dir, scratch, layout, tuple(disabled_plugins))
    progress = None
    while True:
        found = search_witness(reference_dir, mutant, samples, test_literals, layout, time_budget, scratch,
                               unrecorded, placement, progress)
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
    searchable: list[Mutant] = []  # (a survivor no public function reaches is answered here, at once)
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
    unrecorded: dict[str, int] = {}
    callers = _callers(cohort, coverage, spans) if cohort.tests else ()
    samples = probes.record_calls(cohort.template, callers, sorted(wanted), roots=layout.roots, scratch=scratch,
                                  steps=sorted(steps), disabled_plugins=cohort.disabled_plugins, unrecorded=unrecorded,
                                  tests_only=callers != cohort.tests) if wanted and callers else {}
    literals = probes.literals_in([read_python(cohort.template / t) for t in cohort.tests])
    placements = {mutant.id: placement_for(mutant, layout.module_name(mutant.path) or "", cohort.tests, head.read)
                  if placed and layout.module_name(mutant.path) else None for mutant in survivors}
    verify = verifier(cohort, executor) if executor is not None else None
    arguments = (samples, literals, layout, time_budget, scratch, cohort.disabled_plugins, unrecorded)
    pooled = {m.id for m in searchable} if jobs > 1 and len(searchable) > 1 else set()
    alone = [mutant for mutant in survivors if mutant.id not in pooled]
    found: dict[str, Witness | NoWitness] = {
        mutant.id: _searched(cohort.template, mutant, *arguments, placements[mutant.id], verify) for mutant in alone}
    if len(found) == len(survivors):  # (one search, or one job: no process pool to start)
        return found
    search = functools.partial(_hunted, cohort.template, samples=samples, literals=literals, layout=layout,
                               time_budget=time_budget, scratch=scratch, disabled_plugins=cohort.disabled_plugins,
                               unrecorded=unrecorded, verify_here=verify is None)
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


def _search_processes() -> multiprocessing.context.BaseContext:
    """Search processes forked from one server process that imported the search code once (a spawned
    process imports it itself: 0.4 s of CPU apiece, 11 % of a small evaluation); spawned ones where no
    such server can start. The server serves this process's later evaluations too, and ends with it."""
    from multiprocessing import forkserver

    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["elenchus.analysis.witness", "hypothesis"])  # (Hypothesis: imported on first use)
        try:
            forkserver.ensure_running()
            return context
        except OSError:
            pass
    return multiprocessing.get_context("spawn")


def _lines_of(source: str, names: Sequence[str]) -> set[int]:
    """The body lines of the module-level functions and methods ``names`` in ``source`` (not the ``def`` line and its
    decorators, which run at import: only a call runs the body)."""
    wanted, found = set(names), set()
    for node in _module_statements(source):
        prefix = f"{node.name}." if isinstance(node, ast.ClassDef) else ""
        for function in _functions(node):
            called = prefix + function.name in wanted or function.name == "__init__" and node.name in wanted
            if called and function.body:
                found.update(range(function.body[0].lineno, (function.end_lineno or function.lineno) + 1))
    return found


#: Above this share of the cohort's tests, recording runs the test files as they are.
_NARROWED_SHARE = 0.5
#: Tests recorded per function a witness will call: the fastest that run it (a few tests give the calls
#: worth trying; recording slows every call, and one slow test took most of a recording run).
CALLERS_PER_FUNCTION = 8


def _callers(cohort: Cohort, coverage: CoverageMap | None,
             spans: Mapping[tuple[str, str], set[int]]) -> tuple[str, ...]:
    """What the recording run runs: for each function the witnesses will call, the fastest tests that
    executed its body (by the baseline's coverage, as node ids; none when no test did), else the cohort's
    test files. A test that calls a function runs its body; running the others would only record nothing,
    slowly. (Node ids are chosen only when none of those lines ran at import: the recording then starts
    with the tests.)"""
    if coverage is None or any(lines & coverage.shared.get(path, frozenset()) for (path, _), lines in spans.items()):
        return cohort.tests  # calls made at import or by a shared fixture: only a whole run records them
    keys: set[str] = set()
    for (path, _), lines in spans.items():
        running = {key for line in lines for key in coverage.lines.get(path, {}).get(line, ())}
        keys.update(sorted(running, key=lambda k: (coverage.durations.get(k, 0.0), k))[:CALLERS_PER_FUNCTION])
    nodeids = tuple(sorted(nodeid for nodeid, key in coverage.keys.items() if key in keys))
    return cohort.tests if len(nodeids) > _NARROWED_SHARE * len(coverage.keys) else nodeids


def _outcome(future: Future) -> Witness | NoWitness | Candidate | _Progress:
    """A search's or a verification's result; one that broke leaves its survivor a gap, saying why."""
    try:
        return future.result()
    except Exception as error:  # noqa: BLE001 - a worker that died: that survivor stays a gap
        return NoWitness(False, "no witness was searched: the search stopped on an internal error "
                                f"({type(error).__name__}: {error})", 0, 0.0)


def _hunted(reference_dir: Path, mutant: Mutant, placement: Placement | None, progress: _Progress | None = None, *,
            samples: Mapping[str, Sequence[probes.CallSample]], literals: Sequence[Any], layout: SourceLayout,
            time_budget: float, scratch: Path, disabled_plugins: Sequence[str], unrecorded: Mapping[str, int],
            verify_here: bool) -> Witness | NoWitness | Candidate:
    """One search process's part: the whole search with fresh verification (``verify_here``), else the
    search up to its next candidate."""
    if verify_here:
        return _searched(reference_dir, mutant, samples, literals, layout, time_budget, scratch, disabled_plugins,
                         unrecorded, placement)
    started = time.monotonic()
    try:
        return search_witness(reference_dir, mutant, samples, literals, layout, time_budget, scratch, unrecorded,
                              placement, progress)
    except Exception as error:  # noqa: BLE001 - one survivor's search must not lose the evaluation
        return _broken(error, started)


def _checked(candidate: Candidate, mutant: Mutant, verify: Verify, placed: bool) -> Witness | _Progress | NoWitness:
    started = time.monotonic()
    try:
        return settle(candidate, verify(candidate.probe, mutant), time.monotonic() - started, placed)
    except Exception as error:  # noqa: BLE001 - a verification that broke leaves the survivor a gap
        return _broken(error, started)


def _searched(reference_dir: Path, mutant: Mutant, *arguments: Any) -> Witness | NoWitness:
    """``find_witness``; a search that breaks leaves the survivor a gap, saying why, instead of ending the run."""
    started = time.monotonic()
    try:
        return find_witness(reference_dir, mutant, *arguments)
    except Exception as error:  # noqa: BLE001 - one survivor's search must not lose the evaluation
        return _broken(error, started)


def _broken(error: Exception, started: float) -> NoWitness:
    return NoWitness(False, f"no witness was searched: the search stopped on an internal error "
                            f"({type(error).__name__}: {error})", 0, round(time.monotonic() - started, 3))
