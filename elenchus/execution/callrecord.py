"""Literal calls: record them during a test run (this module), replay them in a driver process
(``callreplay.py``).

Both halves share one rule for what counts as a literal (``is_literal``). The rule and the driver
live in ``callreplay.py`` beside this file: this module loads it from its file under a private name and
re-exports its names (``argument_repr``, ``argument_value``, ``Receiver``, ``serve``...), so whoever loads
this module (with ``-p``, by its file, or as ``elenchus.execution.callrecord``) reaches both halves here.

**The recorder** is a pytest plugin, loaded with ``-p elenchus.execution.callrecord`` and active
only when ``--elenchus-calls PATH`` is given with at least one
``--elenchus-calls-target MODULE:QUALNAME`` (repeatable). While the session runs it
notes the arguments each call of a target function actually received, keeps only
calls whose every argument is a Python literal (``is_literal``) or a date, time,
duration, Decimal, Fraction or in-memory stream at its start (written as a test writes it, ``argument_repr``;
``datetime.date(2000, 1, 2)``, ``io.StringIO('')``), de-duplicates them,
keeps the first ``MAX_SAMPLES`` per target and as many again that hold a word none of those held
(a later case of another kind), and writes them at session finish as JSON
lines::

    {"target": "pkg.mod:func", "args_repr": ["[1, 2]", "2"], "kwargs_repr": {"flag": "True"}}

and, for a target called with arguments that are not all literals, how many such
distinct calls it saw (at most ``MAX_SAMPLES``)::

    {"target": "pkg.mod:func", "unrecorded": 3}

It observes only and never changes a result: it installs a profile hook
(``sys.setprofile`` / ``threading.setprofile``) that reads the arguments of a
matching frame the moment it starts, and patches no module, class or function. So a
function bound early (``from pkg.mod import func`` in a conftest or a package
``__init__``) is recorded as well. The hook slows Python calls down while the session
runs; a test that measures time or installs its own profiler may notice that, nothing
else can. A call matches when its code's qualified name and its module's
``__name__`` equal the target's. Positional parameters (and ``*args``) become
``args_repr``, keyword-only ones (and ``**kwargs``) ``kwargs_repr``; defaults are
recorded as passed. A generator's call is its frame's first start (it starts again at every resume);
coroutines are skipped. A method's target is ``pkg.mod:Class.method``: a class method's ``cls`` is
left out (the call names the class), and an instance method's call is kept with how its
``self`` was built (``"receiver": {"args_repr": [...], "kwargs_repr": {...}}``): the literal
arguments its class's ``__init__`` received when the recorder saw it constructed (or, when the
module's public function that returns a call of the class constructed it, that function's literal
arguments and its name: ``"factory": "compile"``), else the call its ``repr`` writes (a dataclass);
a ``self`` built any other way makes the call unrecorded. The calls the tests then made on that
instance of its class's set-up methods (given as
``STEP_OPTION``: ``engine.classical``, that selects a mode) are part of how it was built
(``"steps": [[name, args_repr, kwargs_repr], ...]``, in order; a step whose arguments are not
literals, or more than ``MAX_STEPS`` of them, makes the instance unrecorded). Each distinct
construction of such a class (or of a class given as a target, ``pkg.mod:Class``) is kept too,
under the target ``pkg.mod:Class``, as the call of the class and as its receiver: the instances a
search may call any method on. On an xdist worker the file is ``PATH.<worker id>``.

This module is loaded from its file under a private name by ``elenchus.analysis.probes`` (so a
workspace that contains its own ``elenchus`` package cannot shadow it): keep it
self-contained, standard library only at import time (pytest is only needed by the
hooks, which receive its objects).
"""

from __future__ import annotations

import ast
import dis
import inspect
import json
import os
import re
import sys
import textwrap
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any


def _sibling(name: str) -> Any:
    """A self-contained module beside this file (standard library only), loaded from its file under a
    private name as this one is (a workspace's own ``elenchus`` package cannot shadow it either)."""
    import importlib.util

    private = f"_elenchus_{name}"
    if private not in sys.modules:
        spec = importlib.util.spec_from_file_location(private, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[private] = module
        spec.loader.exec_module(module)
    return sys.modules[private]


_replay = _sibling("callreplay")
# the literal rule
MAX_REPR_CHARS: int = _replay.MAX_REPR_CHARS
MAX_ELEMENTS: int = _replay.MAX_ELEMENTS
MAX_STEPS: int = _replay.MAX_STEPS
Step = _replay.Step
Receiver = _replay.Receiver
subclass_name = _replay.subclass_name
OPERATORS = _replay.OPERATORS
STATEMENTS = _replay.STATEMENTS
literal_repr = _replay.literal_repr
is_literal = _replay.is_literal
constructor_repr = _replay.constructor_repr
argument_repr = _replay.argument_repr
written_repr = _replay.written_repr
built_bare = _replay.built_bare
is_empty_stream = _replay.is_empty_stream
argument_value = _replay.argument_value
argument_imports = _replay.argument_imports
Written = _replay._literals.Written
receiver_from_json = _replay.receiver_from_json
receiver_in = _replay.receiver_in
# the driver
MATCH_FACTS: str = _replay.MATCH_FACTS
EACH_STR: str = _replay.EACH_STR
#: The builtin name a search's copy of a boundary mutant compares through, so that it says where its sides tie.
TIED: str = _sibling("callwatch").TIED
#: ... and a broadened handler's catches, so that it says where it caught what the code let through.
WIDENED: str = _sibling("callwatch").WIDENED
#: ... and an edit in a part of its line that runs only sometimes, so that it says where that part ran.
EVALUATED: str = _sibling("callwatch").EVALUATED
exception_name = _replay.exception_name
message_of = _replay.message_of
raised_here = _replay.raised_here
observe = _replay.observe
view_of = _replay.view_of
equal = _replay.equal
strings_in = _replay.strings_in
range_ends = _replay.range_ends
state_of = _replay.state_of
serve = _replay.serve

CALLS_OPTION = "--elenchus-calls"
TARGET_OPTION = "--elenchus-calls-target"
TESTS_ONLY_OPTION = "--elenchus-calls-tests-only"
STEP_OPTION = "--elenchus-calls-step"

#: Calls kept per target, after de-duplication; and at most, with the later ones holding a word none of those held.
MAX_SAMPLES = 50
KEPT_SAMPLES = 2 * MAX_SAMPLES
#: Calls of a target looked at for a new word once its first MAX_SAMPLES are kept, at most.
_LATER_CALLS = 5000
#: What counts as a word of a call: three letters or more.
_WORDS = re.compile(r"[^\W\d_]{3,}")

_SKIPPED_CODE_FLAGS = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
#: Where each generator's code starts running (its first ``RESUME``; -1 before Python 3.11), by code object.
_STARTS: dict[Any, int] = {}

#: Instances whose construction one recording run remembers at most.
MAX_RECEIVERS = 10_000


def _safe_repr(value: Any) -> str | None:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a repr that raises writes nothing
        return None
    return text if len(text) <= MAX_REPR_CHARS else None


# ---------------------------------------------------------------------------
# the recorder (pytest plugin)


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("elenchus-calls", "Elenchus call recorder (observes only)")
    group.addoption(
        CALLS_OPTION,
        dest="elenchus_calls",
        metavar="PATH",
        default=None,
        help="write the literal arguments each target function received, one JSON line per call, to PATH",
    )
    group.addoption(
        TARGET_OPTION,
        dest="elenchus_calls_targets",
        metavar="MODULE:QUALNAME",
        action="append",
        default=[],
        help="a function whose calls are recorded (repeatable)",
    )
    group.addoption(
        STEP_OPTION,
        dest="elenchus_calls_steps",
        metavar="MODULE:CLASS.METHOD",
        action="append",
        default=[],
        help="a set-up method whose calls on an instance are recorded as part of how it was built (repeatable)",
    )
    group.addoption(
        TESTS_ONLY_OPTION,
        dest="elenchus_calls_tests_only",
        action="store_true",
        default=False,
        help="record from the first test on, not while the tests are collected (faster; misses calls made at import)",
    )


def parse_target(text: str) -> tuple[str, str]:
    """``"pkg.mod:func"`` -> ``("pkg.mod", "func")``; raises ValueError when malformed."""
    module, sep, qualname = text.partition(":")
    names = module.split(".") + qualname.split(".")
    if not sep or not all(name.isidentifier() for name in names):
        raise ValueError(f"expected a target as MODULE:QUALNAME such as pkg.mod:func, got {text!r}")
    return module, qualname


def pytest_configure(config: Any) -> None:
    path = config.getoption("elenchus_calls", None)
    if not path:
        return
    targets = [parse_target(text) for text in config.getoption("elenchus_calls_targets", None) or ()]
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        path = f"{path}.{worker.get('workerid', 'worker')}"
    steps = [parse_target(text) for text in config.getoption("elenchus_calls_steps", None) or ()]
    recorder = CallRecorder(Path(path), targets, config.getoption("elenchus_calls_tests_only", False), steps)
    config.pluginmanager.register(recorder, "elenchus-call-recorder")


class CallRecorder:
    """Notes the literal arguments of target calls from session start (or, ``tests_only``, from the end
    of collection: a module the size of a whole suite is then not imported under the hook) to session
    finish."""

    def __init__(self, path: Path, targets: Sequence[tuple[str, str]], tests_only: bool = False,
                 steps: Sequence[tuple[str, str]] = ()) -> None:
        self.path = path
        self.tests_only = tests_only
        # qualname -> module name -> "module:qualname"
        self._wanted: dict[str, dict[str, str]] = {}
        for module, qualname in targets:
            self._wanted.setdefault(qualname, {})[module] = f"{module}:{qualname}"
        self._samples: dict[str, dict[str, dict[str, Any]]] = {
            key: {} for names in self._wanted.values() for key in names.values()
        }
        self._unrecorded: dict[str, set[int]] = {}  # distinct calls whose arguments are not all literals
        self._words: dict[str, set[str]] = {}  # the words the calls kept of each target hold
        self._later: dict[str, int] = {}  # calls of each target looked at after its first MAX_SAMPLES were kept
        # The constructors of the classes whose methods are targets: "Cls.__init__" -> module -> "Cls"
        self._builders: dict[str, dict[str, str]] = {}
        for module, qualname in targets:
            owner, _, name = qualname.rpartition(".")
            if owner and "." not in owner:
                self._builders.setdefault(f"{owner}.__init__", {})[module] = owner
            elif not owner:  # (a class called as a target: its constructions are its calls)
                self._builders.setdefault(f"{qualname}.__init__", {})[module] = qualname
        self._receivers: dict[int, tuple[type, Receiver]] = {}  # id(instance) -> how its class was called
        # The set-up methods whose calls on an instance are part of how it was built: qualname -> modules
        self._steps: dict[str, set[str]] = {}
        for module, qualname in steps:
            self._steps.setdefault(qualname, set()).add(module)
        self._lock = threading.Lock()
        self._previous: tuple[Any, Any] | None = None

    # hooks

    def pytest_sessionstart(self, session: Any) -> None:
        if not self.tests_only:
            self.start()

    def pytest_collection_finish(self, session: Any) -> None:
        if self.tests_only:
            self.start()

    def pytest_sessionfinish(self, session: Any, exitstatus: Any) -> None:
        self.stop()
        self.write()

    # recording

    def start(self) -> None:
        self._previous = (sys.getprofile(), getattr(threading, "getprofile", lambda: None)())
        threading.setprofile(self._profile)
        sys.setprofile(self._profile)

    def stop(self) -> None:
        if self._previous is None:
            return
        previous_sys, previous_threads = self._previous
        self._previous = None
        sys.setprofile(previous_sys)
        threading.setprofile(previous_threads)

    def _profile(self, frame: Any, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        modules = self._wanted.get(code.co_qualname)
        if modules is not None:
            key = modules.get(frame.f_globals.get("__name__"))
            # (a code object without new locals is a class body running, not a call; a generator's frame starts
            # again at every resume, and only its first start is the call)
            if key is not None and not code.co_flags & _SKIPPED_CODE_FLAGS and code.co_flags & inspect.CO_NEWLOCALS \
                    and (not code.co_flags & inspect.CO_GENERATOR or _first_start(frame)):
                try:
                    self._record(key, code, frame.f_locals)
                except Exception:  # observation must never disturb the run  # noqa: BLE001
                    pass
        # (after its own record: an `__init__` searched itself still notes how its instance was built, for the calls
        # made on it and among its class's instances)
        builds = self._builders.get(code.co_qualname)
        if builds is not None:
            module = frame.f_globals.get("__name__")
            if module in builds:
                try:
                    self._built(f"{module}:{builds[module]}", code, frame.f_locals, frame.f_back)
                except Exception:  # noqa: BLE001 - observation must never disturb the run
                    pass
        stepping = self._steps.get(code.co_qualname)
        if stepping is not None and frame.f_globals.get("__name__") in stepping:
            try:  # (after its own record: the call is made on the instance as it was before it)
                self._step(frame)
            except Exception:  # noqa: BLE001 - observation must never disturb the run
                pass

    def _step(self, frame: Any) -> None:
        """A set-up method was called on an instance: replaying its construction must now replay this call
        too. A set-up call another set-up method makes on the same instance is not a step: the outer call,
        replayed, makes it again."""
        code = frame.f_code
        args, kwargs = split_arguments(code, frame.f_locals)
        if not args:
            return
        instance = args[0]
        caller = frame.f_back
        if caller is not None and caller.f_code.co_qualname in self._steps and caller.f_locals.get("self") is instance:
            return
        with self._lock:
            seen = self._receivers.get(id(instance))
        if seen is None or seen[0] is not type(instance):
            return
        args, kwargs = _without_defaults(getattr(type(instance), code.co_name, None), code, args, kwargs)
        texts = tuple(argument_repr(value) for value in args[1:])
        named = {name: argument_repr(value) for name, value in kwargs.items()}
        with self._lock:
            if None in texts or None in named.values() or len(seen[1].steps) >= MAX_STEPS:
                self._receivers.pop(id(instance), None)  # set up in a way no test text rebuilds
                return
            step = (code.co_name, texts, tuple(sorted(named.items())))  # type: ignore[arg-type]
            self._receivers[id(instance)] = (seen[0], replace(seen[1], steps=(*seen[1].steps, step)))

    def _built(self, key: str, code: Any, values: dict[str, Any], caller: Any = None) -> None:
        """Note how an instance of a target's class (``key``: ``"module:Class"``) was constructed (its
        ``__init__`` just started): for the method calls made on it (through the module's function that
        built it, when one did: ``_factory``), and among the class's instances."""
        args, kwargs = split_arguments(code, values)
        if not args:
            return
        instance = args[0]
        made = _factory(caller, type(instance))
        args, kwargs = _without_defaults(getattr(type(instance), "__init__", None), code, args, kwargs)
        texts = [argument_repr(value) for value in args[1:]]
        named = {name: argument_repr(value) for name, value in kwargs.items()}
        unwritten = None in texts or None in named.values()
        receiver = None if unwritten else Receiver(tuple(texts), tuple(sorted(named.items())))
        with self._lock:
            self._receivers.pop(id(instance), None)  # (an earlier object's, whose id this one now has)
            chosen = made if made is not None else receiver  # (how the test built it: its function, else its class)
            if chosen is not None and len(self._receivers) < MAX_RECEIVERS:
                self._receivers[id(instance)] = (type(instance), chosen)
            if receiver is None:
                return
            built = self._samples.setdefault(key, {})
            identity = json.dumps([texts, sorted(named.items())])
            if type(instance).__name__ == key.rpartition(":")[2] and identity not in built \
                    and len(built) < MAX_SAMPLES:
                built[identity] = {"target": key, "args_repr": texts, "kwargs_repr": named,
                                   "receiver": {"args_repr": texts, "kwargs_repr": named}}

    def _receiver(self, instance: Any) -> Receiver | None:
        """How a test could build ``instance`` again: the literal call of its class seen constructing it,
        else the call its ``repr`` writes (a dataclass, a named tuple), when that holds only arguments."""
        with self._lock:
            seen = self._receivers.get(id(instance))
        if seen is not None and seen[0] is type(instance):
            return seen[1]
        if built_bare(instance):
            return Receiver((), ())
        return receiver_in(type(instance).__name__, _safe_repr(instance))

    def _record(self, key: str, code: Any, values: dict[str, Any]) -> None:
        samples = self._samples[key]
        if len(samples) >= KEPT_SAMPLES or len(samples) >= MAX_SAMPLES and self._later.get(key, 0) >= _LATER_CALLS:
            return  # (past the first ones, a bounded look at later calls: the hook runs on every call)
        if len(samples) >= MAX_SAMPLES:
            self._later[key] = self._later.get(key, 0) + 1
        args, kwargs = split_arguments(code, values)
        receiver: Receiver | None = None
        owner = key.partition(":")[2].rpartition(".")[0]
        if owner and args and type(args[0]).__name__ == owner and type(args[0]).__module__ == key.partition(":")[0]:
            receiver = self._receiver(args[0])  # an instance method's `self`
            args = args[1:] if receiver is not None else args
        elif owner and args and isinstance(args[0], type) and args[0].__name__ == owner:
            args = args[1:]  # a class method's `cls`: the call names the class
        args_repr = [argument_repr(value) for value in args]
        kwargs_repr = {name: argument_repr(value) for name, value in kwargs.items()}
        if receiver is not None and (None in args_repr or None in kwargs_repr.values()):
            # a method given only its defaults past what a test writes (`cache_setitem=Cache.__setitem__`, a
            # function no literal writes): the call as the test wrote it
            method = getattr(type(values.get(code.co_varnames[0])), code.co_name, None)
            kept, named = _without_defaults(method, code, [None, *args], kwargs)
            args_repr = [argument_repr(value) for value in kept[1:]]
            kwargs_repr = {name: argument_repr(value) for name, value in named.items()}
        if None in args_repr or None in kwargs_repr.values():
            try:
                identity = hash(repr((args, sorted(kwargs.items())))[:MAX_REPR_CHARS])
            except Exception:  # noqa: BLE001 - a repr that fails still is a call
                identity = id(values)
            with self._lock:
                seen = self._unrecorded.setdefault(key, set())
                if len(seen) < MAX_SAMPLES:
                    seen.add(identity)
            return
        identity = json.dumps([args_repr, sorted(kwargs_repr.items()), receiver and receiver.as_json()])
        words = set(_WORDS.findall(identity))
        with self._lock:
            known = self._words.setdefault(key, set())
            # past the first MAX_SAMPLES, as many again that hold a word none kept before held: the tests' later,
            # other cases (`'21 Nov 2011'` after fifty numeric dates), where what a table holds shows
            if identity not in samples and (len(samples) < MAX_SAMPLES or words - known):
                samples[identity] = {"target": key, "args_repr": args_repr, "kwargs_repr": kwargs_repr}
                if receiver is not None:
                    samples[identity]["receiver"] = receiver.as_json()
                known |= words

    def write(self) -> None:
        lines = [json.dumps(sample) for samples in self._samples.values() for sample in samples.values()]
        lines += [json.dumps({"target": key, "unrecorded": len(seen)}) for key, seen in self._unrecorded.items()]
        temporary = self.path.with_name(self.path.name + ".part")
        temporary.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        os.replace(temporary, self.path)


#: Per function's code: whether every ``return`` of it returns a call of the class named (``_returns_call_of``).
_RETURNS: dict[tuple[Any, str], bool] = {}


def _factory(caller: Any, owner: type) -> Receiver | None:
    """How a test built an instance through the module's public function that returns a call of its class
    (``compile('{}x')`` returning ``Parser(format, ...)``), when the frame constructing it is that function's and
    its arguments are literals: a receiver built by that call takes in what the function adds (a default of its
    own). None for a class called any other way."""
    if caller is None:
        return None
    code = caller.f_code
    name = code.co_name
    function = caller.f_globals.get(name)
    if name.startswith("_") or code.co_qualname != name or getattr(function, "__code__", None) is not code \
            or caller.f_globals.get("__name__") != owner.__module__ or not _returns_call_of(code, owner.__name__):
        return None
    args, kwargs = _without_defaults(function, code, *split_arguments(code, caller.f_locals))
    texts = tuple(argument_repr(value) for value in args)
    named = {key: argument_repr(value) for key, value in kwargs.items()}
    if None in texts or None in named.values():
        return None
    return Receiver(texts, tuple(sorted(named.items())), (), name)  # type: ignore[arg-type]


def _returns_call_of(code: Any, owner: str) -> bool:
    """Does every ``return`` of the function return a call of ``owner`` (``return Parser(...)``)?"""
    found = _RETURNS.get((code, owner))
    if found is None:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(code)))
        except (OSError, TypeError, SyntaxError, ValueError):
            tree = None
        function = tree.body[0] if tree is not None and tree.body else None
        found = isinstance(function, ast.FunctionDef) and returned_class(function) == owner
        if len(_RETURNS) < MAX_RECEIVERS:
            _RETURNS[(code, owner)] = found
    return found


def returned_class(function: ast.FunctionDef) -> str | None:
    """The name every ``return`` of ``function`` (none nested) calls (``return Parser(format, ...)`` gives
    ``"Parser"``), when they all call the same plain name; else None."""
    returns: list[ast.expr | None] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return):
            returns.append(node.value)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))
    names = {value.func.id if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) else None
             for value in returns}
    return next(iter(names)) if len(names) == 1 else None


def _first_start(frame: Any) -> bool:
    """Is this a generator frame's first start (its call), not a resume after a ``yield``? A first start stands at
    the code's own start; a resume, past the ``yield`` it left at."""
    code = frame.f_code
    start = _STARTS.get(code)
    if start is None:
        start = next((i.offset for i in dis.get_instructions(code) if i.opname == "RESUME"), -1)
        if len(_STARTS) < MAX_RECEIVERS:
            _STARTS[code] = start
    return frame.f_lasti <= start


def _without_defaults(function: Any, code: Any, args: list[Any],
                      kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The arguments as a test writes the call: those equal to their defaults are left out (``Money(250)``,
    not ``Money(250, 'EUR')``), and those after one left out are named (``Duration(years=1)``)."""
    if getattr(function, "__code__", None) is not code or code.co_flags & inspect.CO_VARARGS:
        return args, kwargs
    defaults = function.__defaults__ or ()
    first_default = max(code.co_argcount - len(defaults), 1)
    kept, named, skipped = list(args[:first_default]), {}, False
    for index in range(first_default, min(len(args), code.co_argcount)):
        value, default = args[index], defaults[index - (code.co_argcount - len(defaults))]
        if type(value) is type(default) and _equal(value, default):
            skipped = True  # left out: what follows is named (``Duration(years=1)``)
        elif skipped:
            named[code.co_varnames[index]] = value
        else:
            kept.append(value)
    given = function.__kwdefaults__ or {}
    named.update({name: value for name, value in kwargs.items()
                  if not (name in given and type(value) is type(given[name]) and _equal(value, given[name]))})
    return kept, named


def _equal(first: Any, second: Any) -> bool:
    try:
        return bool(first == second)
    except Exception:  # noqa: BLE001 - a value whose == raises is kept as passed
        return False


def split_arguments(code: Any, values: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The arguments of a frame that just started, as positional values and keywords."""
    names = code.co_varnames
    positional = code.co_argcount
    keyword_only = code.co_kwonlyargcount
    args = [values[name] for name in names[:positional]]
    kwargs = {name: values[name] for name in names[positional:positional + keyword_only] if name in values}
    rest = positional + keyword_only
    if code.co_flags & inspect.CO_VARARGS:
        args.extend(values.get(names[rest], ()))
        rest += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        kwargs.update(values.get(names[rest], {}))
    return args, kwargs


__all__ = [
    "CALLS_OPTION",
    "argument_imports",
    "argument_repr",
    "is_empty_stream",
    "written_repr",
    "built_bare",
    "argument_value",
    "KEPT_SAMPLES",
    "MAX_SAMPLES",
    "OPERATORS",
    "STATEMENTS",
    "STEP_OPTION",
    "TARGET_OPTION",
    "CallRecorder",
    "Receiver",
    "constructor_repr",
    "equal",
    "is_literal",
    "literal_repr",
    "parse_target",
    "receiver_from_json",
    "receiver_in",
    "returned_class",
    "serve",
    "split_arguments",
]
