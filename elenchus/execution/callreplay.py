"""Replaying literal calls: the driver, and the rule for what counts as a literal, which the recorder
(``callrecord.py``) and the driver share (it lives in ``callliterals.py``, loaded here and re-exported).

**The literal rule**: an argument is kept when it round-trips as a Python literal (``is_literal``) or is a
date, time, duration, Decimal or Fraction, written as a test writes it (``argument_repr``;
``datetime.date(2000, 1, 2)``), and read back by ``argument_value``, nothing else; ``Receiver`` is how a
test built the instance a method was called on.

**The driver** (``serve``) runs in its own process inside a workspace, imports one
module-level function (or a class's method) by its dotted module name, and answers one JSON line per
request on stdin: the call's arguments in (``argument_value`` reads them: literals, and
constructors of those standard library types with literal arguments, nothing else), the
observed result out (a
literal ``repr``, or a constructor ``repr`` with the imports it needs such as
``datetime.date(2000, 1, 2)`` after ``import datetime``; an exception type with its message
(``message_of``), "unrepresentable" or a per-call timeout). A method's request names its receiver
(``"receiver"``, as recorded); a value answered names its type too (``"type"``, ``type_name``: text
equal under ``==`` to another type is told apart by it) and whether it is true (``"truthy"``: a validator's
refusal is often a false value); the driver builds it, calls the method as a test would
(``OPERATORS`` for special methods) and answers the receiver's state after the call too
(``receiver_after``). A request may name a set-up call of another function of the module,
made first (``"setup": {"name": ..., "args_repr": [...], "kwargs_repr": {...}}``: activating a
locale). A method's request may also name another instance to build and set up first (``"first"``, a
receiver): made in a forked process of its own (``"isolated"``), so what it changes in the module dies with
the answer, which then holds the receiver's public attributes a test can write down (``"public"``:
``public_after``). A request with ``"again"`` makes the call twice (on the same instance), what the first
returned emptied in between, and answers the second (``"not-emptied"`` when nothing could be emptied). A
request ``{"equal": [A, B], "imports": [...]}`` asks whether two constructor reprs build equal values. The
Elenchus process never imports user code; ``elenchus.analysis.probes`` starts drivers.

Split from ``callrecord.py``, which loads it from its file under a private name (as
``elenchus.analysis.probes`` loads ``callrecord.py``, so a workspace that contains its own ``elenchus``
package cannot shadow either) and re-exports its names: keep it self-contained, standard library only,
never an import of Elenchus. Reach it through ``callrecord``, never as ``elenchus.execution.callreplay``:
a second copy would have a ``Receiver`` class of its own.
"""

from __future__ import annotations

import builtins
import dis
import functools
import importlib
import inspect
import io
import itertools
import json
import os
import re
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

def _load_sibling(name: str) -> Any:
    """A self-contained module beside this file, loaded from its file under a private name as this one is."""
    import importlib.util

    private = f"_elenchus_{name}"
    if private not in sys.modules:
        spec = importlib.util.spec_from_file_location(private, os.path.join(os.path.dirname(__file__), f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[private] = module
        spec.loader.exec_module(module)
    return sys.modules[private]


_watch = _load_sibling("callwatch")
_literals = _load_sibling("callliterals")
_state = _load_sibling("callstate")
state_of = _state.state_of
whole_state = _state.whole_state
# the literal rule, shared with the recorder (``callliterals.py``)
MAX_REPR_CHARS: int = _literals.MAX_REPR_CHARS
MAX_ELEMENTS: int = _literals.MAX_ELEMENTS
MAX_STEPS: int = _literals.MAX_STEPS
Step = _literals.Step
Receiver = _literals.Receiver
_SCALARS, _CONTAINERS, _types_in = _literals._SCALARS, _literals._CONTAINERS, _literals._types_in
literal_repr = _literals.literal_repr
is_literal = _literals.is_literal
constructor_repr = _literals.constructor_repr
argument_repr = _literals.argument_repr
written_repr = _literals.written_repr
built_bare = _literals.built_bare
is_empty_stream = _literals.is_empty_stream
argument_value = _literals.argument_value
argument_imports = _literals.argument_imports
receiver_from_json = _literals.receiver_from_json
receiver_in = _literals.receiver_in
subclass_name = _literals.subclass_name


#: Special methods a test reaches by an operator or a builtin (how a driver calls each, how a test writes it).
OPERATORS = _literals.OPERATORS
#: ... those a test writes as a statement of its own, never inside an expression.
STATEMENTS = _literals.STATEMENTS


# ---------------------------------------------------------------------------
# the driver (run in its own process by elenchus.analysis.probes)


class _CallTimeout(BaseException):
    """Raised inside the driver when one call overruns its time."""


class _Unbuilt(Exception):
    """Raised inside the driver when an instance could not be built as the tests built it (its class's call, or a
    set-up call, raised): what the call would do is unknown, and a test building it so would fail first."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise _CallTimeout()


def exception_name(exc: BaseException) -> str:
    """A name a probe can write in ``pytest.raises(...)``.

    Builtin exceptions by their name (``ValueError``); a public module-level exception
    class as ``pkg.mod.Name``; anything else (private, nested, not importable by that
    name) as its nearest builtin base class.
    """
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins":
            return cls.__qualname__
        module = sys.modules.get(cls.__module__)
        parts = cls.__module__.split(".") + [cls.__qualname__]
        if (module is not None and "." not in cls.__qualname__ and getattr(module, cls.__qualname__, None) is cls
                and not any(part.startswith("_") for part in parts)):
            return f"{cls.__module__}.{cls.__qualname__}"
    return "BaseException"


#: The longest error message compared. A longer one more likely quotes the data than says what went wrong.
MAX_MESSAGE = 200
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


def message_of(exc: BaseException) -> str | None:
    """What ``str(exc)`` says, as a test reads it (``str(raised.value) == ...``), when every process
    says the same: None when it quotes a memory address or a path under this process's directories, runs long,
    or cannot be had."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001
        return None
    if len(text) > MAX_MESSAGE or _ADDRESS.search(text) or os.getcwd() in text or tempfile.gettempdir() in text:
        return None
    return text


def raised_here(exc: BaseException) -> bool:
    """Whether a ``raise`` statement of the code under this process's directory raised ``exc`` (``raise
    ValueError('...')``), not an operation or a builtin it called (``n * None``, ``int('?')``): what such a
    statement says is the code's own word, where an operation's message only names the operation."""
    last = exc.__traceback__
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    if last is None:
        return False
    code = last.tb_frame.f_code
    inside = os.path.abspath(code.co_filename).startswith(os.path.join(os.getcwd(), ""))
    return inside and 0 <= last.tb_lasti < len(code.co_code) and code.co_code[last.tb_lasti] == _RAISE


_RAISE = dis.opmap["RAISE_VARARGS"]


def observe(function: Callable[..., Any], args: list[Any], kwargs: dict[str, Any],
            per_call: float) -> dict[str, Any]:
    """Call ``function`` once and describe what a caller could observe; of a generator or any other lazy iterator
    (``map``, ``zip``, ``iter(seq)``), what it yields (``listed``: a test reads ``list(f(x))``, and an error raised
    while it runs is raised there), its ``type`` still the iterator's (a list where the code returned one is
    told apart by that); of a tuple of iterators, what each yields (``listed`` is ``"each"``)."""
    listed: dict[str, Any] = {}
    fresh = [index for index, arg in enumerate(args) if is_empty_stream(arg)]  # (a writer's: read back after)
    # (keyword arguments a call can change in place: a stream given empty, a container)
    named = {name: written_repr if is_empty_stream(value) else argument_repr for name, value in kwargs.items()
             if isinstance(value, (*_CLEARABLE, io.StringIO, io.BytesIO))}
    signal.setitimer(signal.ITIMER_REAL, per_call)
    try:
        try:
            value = function(*args, **kwargs)
            if _lazy(value):
                listed.update(listed=True, type=type_name(value))
                value = [*itertools.islice(value, MAX_ELEMENTS + 1)]
                if len(value) > MAX_ELEMENTS:
                    return {"kind": "unrepresentable", "too_long": True, **listed}
            elif isinstance(value, tuple) and 0 < len(value) <= _LISTED_PARTS and all(map(_lazy, value)):
                listed["listed"] = "each"  # (funcy's `split`: what passes and what does not, each an iterator)
                value = tuple([*itertools.islice(part, MAX_ELEMENTS + 1)] for part in value)
                if any(len(part) > MAX_ELEMENTS for part in value):
                    return {"kind": "unrepresentable", "type": "tuple", "too_long": True, **listed}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _CallTimeout:
        return {"kind": "timeout"}
    except _Unbuilt as exc:
        return {"kind": "unbuilt", "exception": str(exc)}
    except BaseException as exc:  # SystemExit too: the caller observes it  # noqa: BLE001
        return {"kind": "raise", "exception": exception_name(exc), "message": _limited(message_of, per_call, exc),
                "own": raised_here(exc), **listed}
    after = [argument_repr(arg) for arg in args]  # (dates and numbers are written by their constructors)
    for index in fresh:  # what was written into a stream given empty, as ``getvalue()`` reads it
        after[index] = written_repr(args[index])
    if named:
        listed["kwargs_after"] = {name: read(kwargs[name]) for name, read in named.items()}
    truthy = _limited(_truthy, per_call, value)  # (a false result: often the code refusing its input)
    text = literal_repr(value)
    if text is not None:
        return {"kind": "value", "repr": text, "args_after": after, "type": type_name(value), "truthy": truthy,
                **listed}
    built = _limited(constructor_repr, per_call, value)  # the value's own __repr__ and __eq__ run here
    if built is None:
        # Builtin literal types all the way down: only too long (or not finite) to write down.
        too_long = all(kind in (*_SCALARS, *_CONTAINERS) for kind in _types_in(value, [MAX_ELEMENTS]))
        seen = None if too_long else _limited(view_of, per_call, value)
        if seen is not None:
            return {"kind": "value", "repr": seen[1], "imports": list(seen[2]), "view": seen[0],
                    "whole": _limited(whole_state, per_call, value, argument_repr),  # (all it holds, beneath)
                    "args_after": after, "type": type_name(value), "truthy": truthy, **listed}
        return {"kind": "unrepresentable", "type": type(value).__qualname__, "too_long": too_long}
    return {"kind": "value", "repr": built[0], "imports": list(built[1]), "args_after": after,
            "type": type_name(value), "truthy": truthy, **listed}


#: Iterators a returned tuple may hold, each listed as a test lists it (``tuple(map(list, split(f, seq)))``).
_LISTED_PARTS = 8


def _lazy(value: Any) -> bool:
    """Whether a test reads ``value`` by listing what it yields: an iterator, but not a file (it is read, not
    listed, and reading it here would leave nothing for the test)."""
    return isinstance(value, Iterator) and not isinstance(value, io.IOBase)


def type_name(value: Any) -> str:
    """The type of a result as a test names it: ``str``, ``semver.version.Version``."""
    kind = type(value)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def view_of(value: Any) -> tuple[str, str, tuple[str, ...]] | None:
    """What a test could still assert about a value no text rebuilds, as (view, text, imports): of a regex
    match, what it matched, where, and each group (``MATCH_FACTS``); of a list or tuple, each item's own text
    (``EACH_STR``), when each has one; else its public attributes,
    ``vars(x) == {...}``, when it has no others and each can be written down; else its own text,
    ``str(x) == '...'``, when its class writes one (not the default ``<... at 0x...>``); else None."""
    if isinstance(value, re.Match):  # (its text names the span and the whole match, never a group)
        text = literal_repr((value.group(0), value.span(), value.groups(), value.groupdict()))
        return ("match", text, ()) if text is not None and len(text) <= MAX_REPR_CHARS else None
    if type(value) in (list, tuple) and value:  # (sqlparse's statements: each item's own text)
        texts = [_own_text(item) for item in value]
        text = None if None in texts else literal_repr(texts)
        return (EACH_STR, text, ()) if text is not None and len(text) <= MAX_REPR_CHARS else None
    attributes = getattr(value, "__dict__", None)
    if (isinstance(attributes, dict) and attributes and not isinstance(value, type) and not callable(value)
            and all(isinstance(name, str) and not name.startswith("_") for name in attributes)):
        parts: list[str] | None = []
        imports: list[str] = []
        for name, item in attributes.items():
            text = literal_repr(item)
            if text is None:
                built = constructor_repr(item)
                if built is None:
                    parts = None
                    break
                text, needed = built[0], built[1]
                imports += needed
            parts.append(f"{name!r}: {text}")
        if parts is not None and len(text := "{" + ", ".join(parts) + "}") <= MAX_REPR_CHARS:
            return "vars", text, tuple(dict.fromkeys(imports))
    text = _own_text(value)
    return None if text is None else ("str", repr(text), ())


def _own_text(value: Any) -> str | None:
    """``str(value)`` when its class writes one of its own (not the default ``<... at 0x...>``), else None."""
    kind = type(value)
    if kind.__str__ is object.__str__ and kind.__repr__ is object.__repr__:
        return None
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - a __str__ that raises says nothing a test could assert
        return None
    return None if len(text) > MAX_REPR_CHARS or re.search(r" at 0x[0-9a-fA-F]+", text) else text


#: The view of a list or tuple of values no text rebuilds, each written by its own text: a test asserts
#: ``[str(item) for item in f(x)] == [...]``.
EACH_STR = "each-str"

#: How a test asserts the facts ``view_of`` gives of a match held in ``found``.
MATCH_FACTS = "(found.group(0), found.span(), found.groups(), found.groupdict())"


def _truthy(value: Any) -> bool | None:
    """``bool(value)``; None where asking raises (a NumPy array of several items)."""
    try:
        return bool(value)
    except Exception:  # noqa: BLE001
        return None


def _limited(work: Callable[..., Any], seconds: float, *args: Any) -> Any:
    """``work(*args)`` under the per-call alarm; None when it runs out of time."""
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        try:
            return work(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _CallTimeout:
        return None


def equal(texts: Sequence[str], imports: Sequence[str]) -> dict[str, Any]:
    """Whether two constructor reprs (``constructor_repr``) build equal values here."""
    namespace: dict[str, Any] = {}
    try:
        for line in imports:
            exec(line, namespace)  # noqa: S102 - import lines built by constructor_repr
        first, second = (eval(text, namespace) for text in texts)  # noqa: S307
        return {"kind": "value", "repr": repr(bool(first == second))}
    except Exception as exc:  # noqa: BLE001
        return {"kind": "raise", "exception": exception_name(exc)}


#: Strings one ``strings`` request returns at most, and the longest kept (a table's pattern of stems,
#: ``(?:maxim|minim|...)``, runs to hundreds of characters).
MAX_STRINGS = 200
MAX_STRING_CHARS = 2000


def _walked(values: Sequence[Any], whole: Callable[[Any], bool]) -> Iterator[Any]:
    """Every value ``values`` hold, in order, walking builtin containers (sets in a stable order, a dict's
    keys and values) and compiled patterns, but not into a value ``whole`` keeps as one; bounded."""
    stack = list(reversed(values))
    budget = MAX_ELEMENTS * 4
    while stack and budget > 0:
        budget -= 1
        value = stack.pop()
        yield value
        if whole(value):
            continue
        if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
            stack.append(value.pattern)
        elif type(value) in (list, tuple, set, frozenset):
            stack.extend(reversed(sorted(value, key=repr) if type(value) in (set, frozenset) else list(value)))
        elif type(value) is dict:
            stack.extend(reversed([item for pair in value.items() for item in pair]))


_ABSENT = object()


def _dotted(home: Any, name: str) -> Any:
    """What ``home`` holds under a dotted name (a class's own table: ``AnsiToWin32.ANSI_OSC_RE``), else
    ``_ABSENT``."""
    value = home
    for part in name.split("."):
        value = inspect.getattr_static(value, part, _ABSENT)
        if value is _ABSENT:
            return _ABSENT
    return value


def strings_in(values: Sequence[Any]) -> list[str]:
    """The strings ``values`` hold (patterns' texts too), in order, bounded."""
    found: list[str] = []
    for value in _walked(values, lambda value: False):
        if type(value) is str and len(value) <= MAX_STRING_CHARS and value not in found:
            found.append(value)
            if len(found) >= MAX_STRINGS:
                break
    return found


def _range_table(value: Any) -> bool:
    """A list or tuple of ``(start, end)`` integer pairs, as a bisection searches."""
    return type(value) in (list, tuple) and bool(value) and all(
        type(pair) in (list, tuple) and len(pair) == 2 and all(type(end) is int for end in pair) for pair in value)


def range_ends(values: Sequence[Any]) -> list[int]:
    """The first start and the last end of each range table ``values`` hold, bounded."""
    found: list[int] = []
    for value in _walked(values, _range_table):
        if _range_table(value):
            found += [end for end in (value[0][0], value[-1][1]) if end not in found]
            if len(found) >= MAX_STRINGS:
                break
    return found


@dataclass(frozen=True, slots=True)
class _Instance:
    """An argument that is another instance of the method's class, built as the tests built one
    (``Duration(years=1) - Duration(months=2)``): built inside the observed call, under its alarm."""

    built: Receiver

    def make(self, owner: type, given: list[tuple[int, Any]] | None = None) -> Any:
        """The class's call (or the module's function the tests built it with), then each set-up call made on
        the instance (``p.classical(all=True)``); each empty stream it was given is kept in ``given``, by
        position (``Writer(io.StringIO())``: a test reads what the instance wrote there)."""
        maker = owner if self.built.factory is None else getattr(sys.modules[owner.__module__], self.built.factory)
        if self.built.subclass:
            maker = _subclass_of(owner)
        arguments = [argument_value(text) for text in self.built.args_repr]
        if given is not None:
            given.extend((index, value) for index, value in enumerate(arguments) if is_empty_stream(value))
        instance = maker(*arguments, **{name: argument_value(text) for name, text in self.built.kwargs_repr})
        if not isinstance(instance, owner):
            raise TypeError(f"{self.built.factory}() did not build a {owner.__name__}")
        for step, args, kwargs in self.built.steps:
            getattr(instance, step)(*map(argument_value, args), **{name: argument_value(text) for name, text in kwargs})
        return instance


#: The empty subclass made of each class, once per process.
_SUBCLASSES: dict[type, type] = {}


def _subclass_of(owner: type) -> type:
    """An empty subclass of ``owner``, named as a witness test names the one it defines (``subclass_name``)."""
    made = _SUBCLASSES.get(owner)
    if made is None:
        made = _SUBCLASSES[owner] = type(subclass_name(owner.__name__), (owner,),
                                         {"__module__": owner.__module__, "__qualname__": subclass_name(owner.__name__)})
    return made


def _argument(text: str, owner: Any) -> Any:
    """``argument_value``; for a method, also a call of its own class with arguments a test writes."""
    try:
        return argument_value(text)
    except ValueError:
        built = receiver_in(owner.__name__, text) if isinstance(owner, type) else None
        if built is None:
            raise
        return _Instance(built)


def _on_receiver(owner: type, name: str, receiver: Receiver, held: list[Any], made: list[tuple[int, Any, Any]],
                 cleared: list[bool] | None, given: list[tuple[int, Any]], *args: Any, **kwargs: Any) -> Any:
    """Build the receiver as the tests built it (its class's call, then its set-up calls), keep it in ``held``
    (and the empty streams it was built with in ``given``), then call its method ``name`` the way a test does: an
    operator or builtin for a special method (``OPERATORS``), an attribute read for a property. Each instance
    argument is built here too, and kept in ``made`` with its position and its state then. With ``cleared``, the
    call is made twice on the instance, what the first returned emptied in between (``_emptied``). With
    ``receiver.on_class``, no instance: a class method called on the class, or on its empty subclass."""
    if receiver.on_class:
        built = [arg.make(owner) if isinstance(arg, _Instance) else arg for arg in args]
        named = {key: arg.make(owner) if isinstance(arg, _Instance) else arg for key, arg in kwargs.items()}
        return getattr(_subclass_of(owner) if receiver.subclass else owner, name)(*built, **named)
    try:
        instance = _Instance(receiver).make(owner, given)
        arguments = list(args)
        for index, arg in enumerate(arguments):
            if isinstance(arg, _Instance):
                arguments[index] = arg.make(owner)
                made.append((index, arguments[index], _state_text(arguments[index])))
    except Exception as exc:  # (not the call's doing: the instance it is made on never came to be)
        raise _Unbuilt(exception_name(exc)) from exc
    kwargs = {key: arg.make(owner) if isinstance(arg, _Instance) else arg for key, arg in kwargs.items()}
    held.append(instance)

    def call() -> Any:
        if name in OPERATORS:
            return OPERATORS[name][0](instance, *arguments, **kwargs)
        if isinstance(inspect.getattr_static(owner, name, None), property):
            return getattr(instance, name)
        return getattr(instance, name)(*arguments, **kwargs)

    return call() if cleared is None else _emptied(call, cleared)


#: Results a caller can empty in place (``.clear()``).
_CLEARABLE = (list, dict, set, bytearray)


def _emptied(call: Callable[[], Any], cleared: list[bool]) -> Any:
    """The call, what it returned emptied in place (a caller clearing the list it was handed), then the call
    again: code that hands out its own data instead of a copy gives the emptied data the second time. ``cleared``
    notes that the first result could be emptied (a non-empty list, dict, set or bytearray)."""
    first = call()
    if isinstance(first, _CLEARABLE) and first:
        first.clear()
        cleared.append(True)
    return call()


def _public_state(value: Any) -> dict[str, str]:
    """Each public attribute of ``value`` a test can write down (``engine.classical_dict == {...}``), by name:
    what a test can still assert of an instance whose whole state it cannot write."""
    attributes = getattr(value, "__dict__", None)
    if not isinstance(attributes, dict):
        return {}
    texts = {name: literal_repr(held) for name, held in attributes.items() if not name.startswith("_")}
    return {name: text for name, text in texts.items() if text is not None}


def _state_text(value: Any) -> list[Any] | None:
    """What a test could assert about a receiver after the call: [how ("repr", "vars" or "str"), the text,
    the imports it needs]; else, when its attributes are plain data a test cannot write without naming
    private ones (``_number_args``), ["state", their canonical text, []]: enough to say two receivers were
    left alike, never a witness; else None. A repr comes with the attributes beneath it
    (``_attributes_text``): ``OrderedSet([1])`` prints alike whether or not its index still holds a key."""
    built = constructor_repr(value)
    if built is not None:  # (with what it holds beneath: a repr may leave out what a later call reads)
        return ["repr", built[0], list(built[1]), _attributes_text(value, view_of(value))]
    seen = view_of(value)
    if seen is not None and seen[0] not in ("match", EACH_STR):
        return [seen[0], seen[1], list(seen[2])]
    return _attributes_text(value, None) or _written_state(value)


def _written_state(value: Any) -> list[Any] | None:
    """A receiver that writes into an in-memory stream it holds (``AnsiToWin32(io.StringIO())``), read as a test
    reads it: ``_stream_read`` of its first public attribute holding one (``.wrapped.getvalue()``)."""
    attributes = getattr(value, "__dict__", None)
    if not isinstance(attributes, dict):
        return None
    held = next((name for name in sorted(attributes)
                 if not name.startswith("_") and type(attributes[name]) in (io.StringIO, io.BytesIO)), None)
    return None if held is None else _stream_read(f".{held}.getvalue()", attributes[held], value)


def _stream_read(how: str, stream: Any, value: Any) -> list[Any] | None:
    """[``how``, the text ``stream`` holds, [], the rest of what ``value`` holds as plain data (``state_of``) or
    None], when the stream stands at the end of its text; else None (a stream wound back, or read part way, is more
    than its text). Two receivers that wrote alike agree only where the rest of what they hold does."""
    if written_repr(stream) is None:
        return None
    attributes = getattr(value, "__dict__", None)
    data = state_of({key: item for key, item in attributes.items() if item is not stream}) \
        if isinstance(attributes, dict) else None
    return [how, literal_repr(stream.getvalue()), [], None if data is None else ["state", data, []]]


def _attributes_text(value: Any, seen: tuple[str, str, tuple[str, ...]] | None) -> list[Any] | None:
    """A receiver's attributes: as ``vars`` writes them, when ``seen`` is that view; else, as plain data a test
    cannot write down, ["state", their canonical text, []]; else None."""
    if seen is not None and seen[0] == "vars":
        return [seen[0], seen[1], list(seen[2])]
    attributes = getattr(value, "__dict__", None)
    # (one holding nothing is in a state only where its class keeps none elsewhere: ``built_bare``)
    data = state_of(attributes) if isinstance(attributes, dict) and (attributes or built_bare(value)) \
        and not callable(value) else None
    return None if data is None else ["state", data, []]


def _given_state(value: Any, given: Sequence[tuple[int, Any]]) -> list[Any] | None:
    """A receiver built around the one empty stream it was given, whose state no other reading writes down
    (``Writer(io.StringIO())`` keeping it as ``self._fp``), read as a test holding that stream reads it:
    ``_stream_read`` as ``@0.getvalue()`` (the stream's position in the class's call)."""
    return _stream_read(f"@{given[0][0]}.getvalue()", given[0][1], value) if len(given) == 1 else None


def serve(argv: Sequence[str]) -> int:
    """The driver loop: ``MODULE QUALNAME PER_CALL_SECONDS [PATH:LINE,LINE [RAN,RAN]]``; requests on
    stdin, answers on stdout.

    The workspace (the current directory) and its ``src/`` come first on ``sys.path``.
    What a call prints is digested, never passed on (``callwatch.watched``); the code under test cannot read the
    requests: its standard input is empty and its command line the module's name alone. With
    ``PATH:LINES`` every answer to a call says whether those lines ran (``reached``); with ``RAN`` after it
    (lines of the same file), only when one of those ran while the module imported, and the first answer
    says whether one did (``ran_at_import``). With ``PATH:`` and no lines, a call reaches the code only where a
    boundary mutant's comparison, rewritten to go through ``callwatch.TIED``, ties (or a handler rewritten to go
    through ``WIDENED`` catches what the code let through, or a part rewritten to go through ``EVALUATED`` runs).
    """
    module_name, qualname, per_call = argv[0], argv[1], float(argv[2])
    reach = None
    if len(argv) > 3:
        path, _, numbers = argv[3].rpartition(":")
        ran = {int(n) for n in argv[4].split(",") if n} if len(argv) > 4 else set()
        reach = _watch.Reach(path, {int(n) for n in numbers.split(",") if n}, ran)
        # (a boundary mutant's copy compares through it: it is reached where its two sides tie)
        setattr(builtins, _watch.TIED, functools.partial(_watch.tied, reach))
        # (a broadened handler's copy catches through it: it is reached where it catches what the code let through)
        setattr(builtins, _watch.WIDENED, functools.partial(_watch.widened, reach))
        # (an edit in a part of a line that runs only sometimes: it is reached where that part ran)
        setattr(builtins, _watch.EVALUATED, functools.partial(_watch.evaluated, reach))
        if reach.lines or reach.ran_lines:
            reach.start()
    answers = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    sys.stdin = _watch.Stdin()
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    sys.argv = _watch.Argv([module_name])
    root = os.getcwd()
    roots = [root] + ([os.path.join(root, "src")] if os.path.isdir(os.path.join(root, "src")) else [])
    sys.path[:0] = roots
    signal.signal(signal.SIGALRM, _on_alarm)

    def answer(data: dict[str, Any]) -> None:
        answers.write(json.dumps(data) + "\n")
        answers.flush()

    try:
        signal.setitimer(signal.ITIMER_REAL, max(per_call, 1.0) * 10)
        try:
            owner: Any = importlib.import_module(module_name)
            *outer, name = qualname.split(".")
            for part in outer:
                owner = getattr(owner, part)
            function: Any = getattr(owner, name)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if reach is not None:
                reach.at_import, reach.reached, reach.caught = reach.reached, False, None
        if not callable(function) and not isinstance(inspect.getattr_static(owner, name, None), property):
            raise TypeError(f"{module_name}:{qualname} is not callable")
    except BaseException as exc:  # noqa: BLE001
        answer({"ready": False, "error": f"{type(exc).__name__}: {exc}"[:500]})
        return 1
    answer({"ready": True, **({"ran_at_import": reach.ran} if reach is not None and reach.ran_lines else {})})
    for line in requests:
        try:
            request = json.loads(line)
            if "equal" in request:
                answer(_limited(equal, per_call, request["equal"], request.get("imports", []))
                       or {"kind": "timeout"})
                continue
            if "state" in request:
                home = sys.modules.get(module_name)
                answer({"state": {name: _limited(state_of, per_call, getattr(home, name)) if hasattr(home, name)
                                  else None for name in request["state"]}})
                continue
            if "attribute" in request:  # a public attribute of the module read as a test reads it
                value: Any = sys.modules[module_name]
                for part in str(request["attribute"]).split("."):
                    value = getattr(value, part)
                answer(observe(lambda held=value: held, [], {}, per_call))
                continue
            if "bounds" in request:
                home = sys.modules.get(module_name)
                values = [getattr(home, name) for name in request["bounds"] if hasattr(home, name)]
                answer({"bounds": _limited(range_ends, per_call, values) or []})
                continue
            if "strings" in request:
                home = sys.modules.get(module_name)
                values = [value for value in (_dotted(home, name) for name in request["strings"])
                          if value is not _ABSENT]
                answer({"strings": _limited(strings_in, per_call, values) or []})
                continue
            built = request.get("receiver")
            args = [_argument(text, owner if built else None) for text in request["args_repr"]]
            kwargs = {key: _argument(text, owner if built else None) for key, text in request["kwargs_repr"].items()}
            receiver = None if built is None else receiver_from_json(built)
            earlier = request.get("first")  # an instance built and set up before this call's own
            first = None if earlier is None or receiver is None else _Instance(receiver_from_json(earlier))
            before = request.get("setup")
            setup = None if before is None else (
                getattr(sys.modules[module_name], str(before["name"])),
                [argument_value(text) for text in before["args_repr"]],
                {key: argument_value(text) for key, text in before["kwargs_repr"].items()})
        except (ValueError, KeyError, TypeError, SyntaxError, AttributeError) as exc:
            answer({"kind": "bad-request", "error": str(exc)[:200]})
            continue
        child = os.fork() if request.get("isolated") else None
        if child:  # what this call changes in the module dies with its own process
            _, status = os.waitpid(child, 0)
            if status != 0:
                answer({"kind": "crashed"})
            continue
        try:
            answer(_answer_call(function, owner, name, args, kwargs, receiver, first, setup, per_call,
                                request, reach))
        except BaseException:
            if child is None:
                raise
            os._exit(1)  # (the parent answers for it)
        if child == 0:
            os._exit(0)
    return 0


def _command_line(request: dict[str, Any]) -> list[str] | None:
    """The command line a call is given (``"argv"``: texts), else None: the module's name alone, shared."""
    argv = request.get("argv")
    return [str(part) for part in argv] if isinstance(argv, list) else None


def _standard_input(request: dict[str, Any]) -> str | None:
    """The text a call's standard input holds (``"stdin"``), else None: an empty one, shared."""
    text = request.get("stdin")
    return text if isinstance(text, str) else None


def _answer_call(function: Any, owner: Any, name: str, args: list[Any], kwargs: dict[str, Any],
                 receiver: Receiver | None, first: _Instance | None, setup: tuple[Any, list[Any], dict[str, Any]] | None,
                 per_call: float, request: dict[str, Any], reach: Any) -> dict[str, Any]:
    """One call's answer: the set-up call and the instance built first, when asked, then the call itself."""
    # The call the tests made first, that changes what the module does; then another instance, set up first.
    for earlier in ([setup] if setup is not None else []) + ([(first.make, [owner], {})] if first is not None else []):
        done = observe(*earlier, per_call)
        if done.get("kind") in ("raise", "timeout"):  # (what it returns does not matter: a catalog, say)
            return {"kind": "setup-failed", "setup": done}
    held: list[Any] = []
    made: list[tuple[int, Any, Any]] = []
    cleared: list[bool] | None = [] if request.get("again") else None
    if receiver is None:
        called = function if cleared is None else (
            lambda *a, **k: _emptied(functools.partial(function, *a, **k), cleared))  # type: ignore[arg-type]
        observed = _watch.watched(lambda: observe(called, args, kwargs, per_call), _command_line(request),
                                  _standard_input(request))
    else:
        given: list[tuple[int, Any]] = []
        observed = _watch.watched(lambda: observe(functools.partial(_on_receiver, owner, name, receiver, held, made,
                                                                    cleared, given),
                                            args, kwargs, per_call), _command_line(request), _standard_input(request))
        if held:
            observed["receiver_after"] = _limited(_state_text, per_call, held[0]) or _limited(
                _given_state, per_call, held[0], given)
        after = observed.get("args_after")
        for index, argument, before in made if after is not None else ():  # as built, or changed: unwritable
            unchanged = before is not None and _limited(_state_text, per_call, argument) == before
            after[index] = request["args_repr"][index] if unchanged else None
        if held and request.get("public"):  # each public attribute a test can write down, by name
            observed["public_after"] = _limited(_public_state, per_call, held[0])
    if cleared is not None and not cleared:  # (nothing the first call gave could be emptied: nothing to compare)
        return {"kind": "not-emptied"}
    after = observed.get("args_after")
    for index, argument in enumerate(args if after is not None else ()):
        if _lazy(argument):  # (how far the call read an iterator it was given is no state a test writes down)
            after[index] = request["args_repr"][index]
    if reach is not None:
        observed["reached"] = (reach.reached or reach.at_import) and (reach.ran or not reach.ran_lines)
        reach.reached = False
        sides = [[argument_repr(left), argument_repr(right)] for left, right in reach.sides]
        reach.sides = []
        if sides:  # (a boundary mutant's two sides, each as a test writes it, or None)
            observed["sides"] = sides
        if reach.caught is not None:  # (what a broadened handler caught: only what the code catches, or more)
            observed["caught"] = reach.caught
            reach.caught = None
    return observed
