"""The literal rule that the recorder (``callrecord.py``) and the driver (``callreplay.py``) share: what
counts as an argument a test writes (``is_literal``; a date, time, duration, Decimal, Fraction or in-memory stream
written by its constructor, ``argument_repr``), how it is read back (``argument_value``, nothing else), and
``Receiver``, how a test built the instance a method was called on.

Loaded by ``callreplay.py`` from its file under a private name, as that one is loaded: keep it self-contained,
standard library only, never an import of Elenchus. Reach its names through ``callrecord``, never as
``elenchus.execution.callliterals``: a second copy would have a ``Receiver`` class of its own.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import io
import math
import operator
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

#: A literal whose ``repr`` is longer than this is not kept (probes must stay readable).
MAX_REPR_CHARS = 2000
#: Containers with more elements than this (all levels together) are not kept.
MAX_ELEMENTS = 500

_SCALARS = (int, float, str, bytes, bool, type(None))
_CONTAINERS = (tuple, list, dict, set)


# ---------------------------------------------------------------------------
# the literal rule


def _plain(value: Any, budget: list[int]) -> bool:
    """Exact builtin literal types all the way down (no subclasses), finite floats, bounded size."""
    budget[0] -= 1
    if budget[0] < 0:
        return False
    kind = type(value)
    if kind in _SCALARS:
        return kind is not float or math.isfinite(value)
    if kind is list or kind is tuple or kind is set:
        return all(_plain(item, budget) for item in value)
    if kind is dict:
        return all(_plain(key, budget) and _plain(item, budget) for key, item in value.items())
    return False


def literal_repr(value: Any) -> str | None:
    """``repr(value)`` when it reads back as an equal Python literal, else None.

    Accepted: int, float (finite), str, bytes, bool, None, and tuples, lists, dicts and
    sets of those, of exactly these types, with a bounded size. The round trip
    ``ast.literal_eval(repr(value)) == value`` must hold.
    """
    if not _plain(value, [MAX_ELEMENTS]):
        return None
    try:
        text = repr(value)
        if len(text) > MAX_REPR_CHARS:
            return None
        return text if ast.literal_eval(text) == value else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def is_literal(value: Any) -> bool:
    """True when ``value`` round-trips as a Python literal (see ``literal_repr``)."""
    return literal_repr(value) is not None


def _types_in(value: Any, budget: list[int]) -> Iterator[type]:
    """The types of ``value`` and of what its builtin containers hold (bounded)."""
    budget[0] -= 1
    if budget[0] < 0:
        return
    yield type(value)
    if type(value) in (list, tuple, set, frozenset):
        for item in value:
            yield from _types_in(item, budget)
    elif type(value) is dict:
        for key, item in value.items():
            yield from _types_in(key, budget)
            yield from _types_in(item, budget)


def constructor_repr(value: Any) -> tuple[str, tuple[str, ...]] | None:
    """(``repr(value)``, the imports it needs) when that text, evaluated after those
    imports, rebuilds an equal value of the same type; else None.

    This is how a test writes a ``datetime``, a ``Decimal`` or a dataclass it expects:
    ``datetime.datetime(2000, 1, 1, 0, 0)`` after ``import datetime``. A name the text
    uses must be a module, a builtin, or a name of the module defining one of the
    value's types. Values whose class keeps the default identity equality never qualify.
    """
    try:
        text = repr(value)
        if len(text) > MAX_REPR_CHARS or text.startswith("<"):
            return None
        tree = ast.parse(text, mode="eval")
    except Exception:  # noqa: BLE001 - a repr that raises or is not an expression
        return None
    homes = [sys.modules.get(kind.__module__) for kind in _types_in(value, [MAX_ELEMENTS])]
    imports: list[str] = []
    namespace: dict[str, Any] = {}
    for name in sorted({node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}):
        if name in vars(builtins):
            continue
        found = sys.modules.get(name)
        if found is not None and name.isidentifier():
            imports.append(f"import {name}")
            namespace[name] = found
            continue
        home = next((module for module in homes if module is not None and hasattr(module, name)), None)
        if home is None or home.__name__ == "__main__":
            return None
        imports.append(f"from {home.__name__} import {name}")
        namespace[name] = getattr(home, name)
    try:
        rebuilt = eval(compile(tree, "<repr>", "eval"), namespace)  # noqa: S307 - the code under test's own repr
        same = type(rebuilt) is type(value) and bool(rebuilt == value)
    except Exception:  # noqa: BLE001
        return None
    return (text, tuple(imports)) if same else None


#: Values beyond literals an argument may hold: the standard library's dates, times, durations, decimals
#: and fractions, written as a test writes them (``datetime.date(2000, 1, 2)`` after ``import datetime``).
#: Each name such a text may use, with the import it needs.
_BUILT_NAMES = {"datetime": "import datetime", "decimal": "import decimal", "fractions": "import fractions",
                "Decimal": "from decimal import Decimal", "Fraction": "from fractions import Fraction",
                "io": "import io"}
#: The attributes it may read of them (``datetime.timezone.utc``): constructors and constants, nothing else.
_BUILT_ATTRIBUTES = frozenset({"date", "datetime", "time", "timedelta", "timezone", "utc", "min", "max",
                               "Decimal", "Fraction", "StringIO", "BytesIO"})
_BUILT_NODES = (ast.Expression, ast.Call, ast.Attribute, ast.Name, ast.Constant, ast.Tuple, ast.List, ast.Dict,
                ast.Set, ast.keyword, ast.UnaryOp, ast.USub, ast.UAdd, ast.Load)


#: Functions a test passes by name (``sorted(words, key=len)``, ``accumulate(operator.add, [1, 2])``): builtins
#: that only compute, the ``operator`` module's functions and the public methods of the builtin types
#: (``str.upper``). Of them only the lazy iterators are called in a text (``map(int, ['?'])``: cheap to build
#: whatever it is given); nothing a recorded text names can import anything or run code of its own.
_PURE_BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "dict", "divmod", "enumerate",
    "filter", "float", "format", "frozenset", "hash", "hex", "int", "iter", "len", "list", "map", "max", "min",
    "next", "oct", "ord", "pow", "range", "repr", "reversed", "round", "set", "sorted", "str", "sum", "tuple",
    "type", "zip"})
_LAZY_BUILTINS = frozenset({"enumerate", "filter", "iter", "map", "range", "reversed", "zip"})
_METHOD_TYPES = {kind.__name__: kind for kind in (str, bytes, int, float, list, dict, set, frozenset, tuple)}


def _named_function(value: Any) -> str | None:
    """How a test names ``value`` when it is one of the functions above (``len``, ``operator.add``,
    ``str.upper``), else None."""
    name = getattr(value, "__name__", None)
    if not isinstance(name, str) or name.startswith("_") or not callable(value):
        return None
    if name in _PURE_BUILTINS and getattr(builtins, name, None) is value:
        return name
    if not isinstance(value, type) and getattr(operator, name, None) is value:
        return f"operator.{name}"
    owner = getattr(value, "__objclass__", None)
    if isinstance(owner, type) and _METHOD_TYPES.get(owner.__name__) is owner and getattr(owner, name) is value:
        return f"{owner.__name__}.{name}"
    return None


def _named(node: ast.AST) -> bool:
    """Whether ``node`` names one of the functions ``_named_function`` writes."""
    if isinstance(node, ast.Name):
        return node.id in _PURE_BUILTINS
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and not node.attr.startswith("_"):
        if node.value.id == "operator":
            return callable(getattr(operator, node.attr, None))
        owner = _METHOD_TYPES.get(node.value.id)
        return owner is not None and getattr(getattr(owner, node.attr, None), "__objclass__", None) is owner
    return False


def _built_tree(text: str) -> ast.Expression | None:
    """The text's tree when it only calls constructors of ``_BUILT_NAMES`` with literal arguments, or a lazy
    iterator over those, and names the functions ``_named_function`` writes (so it can be evaluated anywhere,
    even where it came from a file the tests could write), else None."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    named = {id(node) for node in ast.walk(tree) if _named(node)}
    inside = {id(part) for node in ast.walk(tree) if id(node) in named for part in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in inside:
            continue
        if not isinstance(node, _BUILT_NODES) \
                or isinstance(node, ast.Name) and node.id not in _BUILT_NAMES \
                or isinstance(node, ast.Attribute) and node.attr not in _BUILT_ATTRIBUTES \
                or isinstance(node, ast.Call) and not isinstance(node.func, (ast.Name, ast.Attribute)):
            return None
    for node in ast.walk(tree):  # a function a text names is passed, never called, unless it is a lazy iterator
        if isinstance(node, ast.Call) and id(node.func) in named and not (
                isinstance(node.func, ast.Name) and node.func.id in _LAZY_BUILTINS):
            return None
    return tree


class Written:
    """A value given as the text a test writes for it where the value could not be written back: ``map(int,
    ['?'])``, an iterator that raises ValueError when it is read (``_built_tree`` must accept the text)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _stream_repr(value: Any) -> str | None:
    """An in-memory stream at its start, as a test makes one (``io.StringIO('')``, ``io.BytesIO(b'1,2')``), else
    None. A class that wraps a stream (a terminal's colour filter, a CSV writer) is built around one by its tests; one
    written to or read from already is not rebuilt by its text."""
    if type(value) not in (io.StringIO, io.BytesIO):
        return None
    try:
        text = None if value.closed or value.tell() != 0 else literal_repr(value.getvalue())
    except Exception:  # noqa: BLE001 - a stream that cannot say where it stands is not written
        return None
    return None if text is None else f"io.{type(value).__name__}({text})"


def built_bare(instance: Any) -> bool:
    """Does the class's call with no arguments build ``instance`` again (``Stripper()``)? Its class runs no
    construction of its own (no ``__init__``, ``__new__`` or slots of its own or of a base but ``object``, and a plain
    metaclass), so a recorder sees no construction, and it holds no attribute yet."""
    try:
        kind = type(instance)
        if type(kind).__call__ is not type.__call__ or any(
                "__init__" in vars(base) or "__new__" in vars(base) or vars(base).get("__slots__")
                for base in kind.__mro__[:-1]):
            return False
        return kind.__mro__[-1] is object and not vars(instance)
    except Exception:  # noqa: BLE001 - an instance that cannot say what it holds is not rebuilt
        return False


def is_empty_stream(value: Any) -> bool:
    """An in-memory stream holding nothing yet: what a test hands a writer (``dump(rows, io.StringIO())``)."""
    try:
        return type(value) in (io.StringIO, io.BytesIO) and not value.closed and value.getvalue() in ("", b"")
    except Exception:  # noqa: BLE001
        return False


def written_repr(value: Any) -> str | None:
    """An in-memory stream the call wrote to, standing at the end of what it holds, as the stream a test would find
    by ``getvalue()``: ``io.StringIO('a\\n')``; else None. Only a stream that held nothing before the call is read
    so: its text then says all that became of it (one wound back, or read part way, says less)."""
    try:
        text = value.getvalue()
        at_end = not value.closed and value.tell() == len(text)
    except Exception:  # noqa: BLE001 - a stream that cannot say where it stands is not written
        return None
    held = literal_repr(text) if at_end else None
    return None if held is None else f"io.{type(value).__name__}({held})"


def argument_repr(value: Any) -> str | None:
    """How a call's argument is written: its literal (``literal_repr``), else, for a date, time, duration,
    Decimal or Fraction (or a literal container of them), the constructor a test writes; an in-memory stream at its
    start (``io.StringIO('')``); a function a test names (``len``, ``operator.add``, ``str.upper``); else None."""
    text = literal_repr(value)
    if text is not None:
        return text
    stream = _stream_repr(value)
    if stream is not None:
        return stream
    if isinstance(value, Written):
        return value.text if _built_tree(value.text) is not None else None
    named = _named_function(value)
    if named is not None:
        return named
    if not all(kind.__module__ in ("builtins", *_BUILT_NAMES) for kind in _types_in(value, [MAX_ELEMENTS])):
        return None
    built = constructor_repr(value)
    return built[0] if built is not None and _built_tree(built[0]) is not None else None


def argument_value(text: str) -> Any:
    """The value an ``argument_repr`` text writes; ValueError for any other text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    tree = _built_tree(text)
    if tree is None:
        raise ValueError(f"not an argument a test could write: {text[:80]!r}")
    namespace = {name: importlib.import_module(line.split()[1]) if line.startswith("import ")
                 else getattr(importlib.import_module(line.split()[1]), name) for name, line in _BUILT_NAMES.items()}
    namespace.update({name: getattr(builtins, name) for name in _PURE_BUILTINS}, operator=operator)
    try:
        return eval(compile(tree, "<argument>", "eval"), {"__builtins__": {}}, namespace)  # noqa: S307 - checked
    except Exception as error:  # noqa: BLE001 - a constructor refusing its arguments
        raise ValueError(f"{type(error).__name__}: {error}") from None


def argument_imports(texts: Sequence[str]) -> tuple[str, ...]:
    """The imports the argument texts ``texts`` need (none for literals)."""
    names = set()
    for text in texts:
        tree = _built_tree(text)
        if tree is not None:
            names |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return tuple(_BUILT_NAMES.get(name, "import operator") for name in sorted(names)
                 if name in _BUILT_NAMES or name == "operator")


#: Set-up calls made on one instance that are replayed; an instance set up by more is not rebuilt.
MAX_STEPS = 4

#: A set-up call made on an instance: (method name, argument texts, keyword argument texts).
Step = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]


@dataclass(frozen=True, slots=True)
class Receiver:
    """How a test built the instance a method was called on: the call of its class, as argument texts
    (``argument_repr``): ``Money(5, 'EUR')`` is ``Receiver(("5", "'EUR'"))``; then the set-up calls made on
    it, in order (``p = engine(); p.classical(all=True)`` has ``steps=(("classical", (), (("all", "True"),)),)``).
    ``factory`` names the module's public function the tests built it with instead of the class
    (``parse.compile('{}x')``): what that function adds (a default of its own) then reaches every call made on it.
    ``subclass``: built as an instance of an empty subclass of the class (``subclass_name``), as a caller that
    extends the class builds one: what the code hands back for such an instance is then of its class, or not.
    ``on_class``: no instance at all: a class method called on the class (its subclass, with ``subclass``), as a
    caller calls ``SubRipTimeSubclass.from_string('...')``."""

    args_repr: tuple[str, ...] = ()
    kwargs_repr: tuple[tuple[str, str], ...] = ()
    steps: tuple[Step, ...] = ()
    factory: str | None = None
    subclass: bool = False
    on_class: bool = False

    def texts(self) -> tuple[str, ...]:
        """Every argument text it writes: its class's call's and its steps'."""
        calls = [(self.args_repr, self.kwargs_repr), *((args, kwargs) for _, args, kwargs in self.steps)]
        return tuple(text for args, kwargs in calls for text in (*args, *(value for _, value in kwargs)))

    def as_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"args_repr": list(self.args_repr), "kwargs_repr": dict(self.kwargs_repr)}
        if self.steps:
            found["steps"] = [[name, list(args), dict(kwargs)] for name, args, kwargs in self.steps]
        if self.factory is not None:
            found["factory"] = self.factory
        if self.subclass:
            found["subclass"] = True
        if self.on_class:
            found["on_class"] = True
        return found


def subclass_name(owner: str) -> str:
    """The name of the empty subclass of class ``owner`` a subclassed receiver is built as."""
    return f"{owner}Subclass"


#: Special methods a test reaches by an operator or a builtin, never by name: how a driver calls each
#: (``receiver`` first) and how a test writes it (``{0}`` the receiver, ``{1}`` the argument, ``{2}`` the next);
#: an item set or deleted is a statement (``STATEMENTS``), what it leaves in the instance its result.
OPERATORS: dict[str, tuple[Callable[..., Any], str]] = {
    "__add__": (operator.add, "{0} + {1}"), "__sub__": (operator.sub, "{0} - {1}"),
    "__mul__": (operator.mul, "{0} * {1}"), "__truediv__": (operator.truediv, "{0} / {1}"),
    "__floordiv__": (operator.floordiv, "{0} // {1}"), "__mod__": (operator.mod, "{0} % {1}"),
    "__pow__": (operator.pow, "{0} ** {1}"), "__radd__": (lambda a, b: b + a, "{1} + {0}"),
    "__rsub__": (lambda a, b: b - a, "{1} - {0}"), "__rmul__": (lambda a, b: b * a, "{1} * {0}"),
    "__eq__": (operator.eq, "{0} == {1}"), "__ne__": (operator.ne, "{0} != {1}"),
    "__lt__": (operator.lt, "{0} < {1}"), "__le__": (operator.le, "{0} <= {1}"),
    "__gt__": (operator.gt, "{0} > {1}"), "__ge__": (operator.ge, "{0} >= {1}"),
    "__getitem__": (operator.getitem, "{0}[{1}]"), "__contains__": (operator.contains, "{1} in {0}"),
    "__len__": (len, "len({0})"), "__str__": (str, "str({0})"), "__repr__": (repr, "repr({0})"),
    "__bool__": (bool, "bool({0})"), "__abs__": (abs, "abs({0})"), "__neg__": (operator.neg, "-{0}"),
    "__int__": (int, "int({0})"), "__float__": (float, "float({0})"), "__hash__": (hash, "hash({0})"),
    "__iter__": (list, "list({0})"), "__next__": (next, "next({0})"),
    "__and__": (operator.and_, "{0} & {1}"), "__or__": (operator.or_, "{0} | {1}"),
    "__xor__": (operator.xor, "{0} ^ {1}"),
    # (an augmented assignment rebinds the name to what the method returns: the operator module's call gives it)
    "__iadd__": (operator.iadd, "operator.iadd({0}, {1})"), "__isub__": (operator.isub, "operator.isub({0}, {1})"),
    "__imul__": (operator.imul, "operator.imul({0}, {1})"),
    "__itruediv__": (operator.itruediv, "operator.itruediv({0}, {1})"),
    "__ior__": (operator.ior, "operator.ior({0}, {1})"), "__iand__": (operator.iand, "operator.iand({0}, {1})"),
    "__setitem__": (operator.setitem, "{0}[{1}] = {2}"), "__delitem__": (operator.delitem, "del {0}[{1}]"),
}
#: Special methods a test writes as a statement of their own (``cache[1] = 'a'``, ``del cache[1]``): set-up steps
#: too, where they change the instance.
STATEMENTS = frozenset({"__setitem__", "__delitem__"})


def receiver_from_json(data: Any) -> Receiver:
    """The receiver a calls file or a request writes (``Receiver.as_json``): a file the tests could write, so
    every text must be one ``argument_value`` reads and every step a public method's name (or an item set or
    deleted); ValueError else."""
    steps = []
    if len(data.get("steps") or ()) > MAX_STEPS:  # (the recorder never writes more: not one of its files)
        raise ValueError(f"more than {MAX_STEPS} set-up calls")
    for step in data.get("steps") or ():
        name, args, kwargs = step
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_") and name not in STATEMENTS:
            raise ValueError(f"not a public method's name: {name!r}")
        steps.append((name, tuple(str(text) for text in args),
                      tuple(sorted((str(k), str(v)) for k, v in dict(kwargs).items()))))
    factory = data.get("factory")
    if factory is not None and (not isinstance(factory, str) or not factory.isidentifier() or factory.startswith("_")):
        raise ValueError(f"not a public function's name: {factory!r}")
    receiver = Receiver(tuple(str(text) for text in data["args_repr"]),
                        tuple(sorted((str(k), str(v)) for k, v in dict(data["kwargs_repr"]).items())),
                        tuple(steps), factory, factory is None and data.get("subclass") is True,
                        data.get("on_class") is True)
    for text in receiver.texts():
        argument_value(text)
    return receiver


def receiver_in(owner: str, text: str | None) -> Receiver | None:
    """The call of class ``owner`` that ``text`` writes (``Point(x=1, y=2)``), when each of its arguments is
    one a test could write (``argument_value`` reads it); else None."""
    try:
        tree = ast.parse(text or "", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(tree, ast.Call) or not isinstance(tree.func, ast.Name) or tree.func.id != owner \
            or any(isinstance(arg, ast.Starred) for arg in tree.args) or any(k.arg is None for k in tree.keywords):
        return None
    args = tuple(ast.unparse(arg) for arg in tree.args)
    kwargs = tuple(sorted((k.arg, ast.unparse(k.value)) for k in tree.keywords if k.arg is not None))
    try:
        for part in (*args, *(value for _, value in kwargs)):
            argument_value(part)
    except ValueError:
        return None
    return Receiver(args, kwargs)
