"""The records every step of the probe engine hands on, and what can be probed.

``CallSample`` (a call the tests made), ``Distinction`` (an input that tells reference and
mutant apart), ``Probe``, ``ProbeCheck`` and ``ProbeOutcome`` cross from one step to the next
and out of the package; the questions every step asks first of a mutated file (its module
name, the function node a symbol names, whether the symbol is public, why it cannot be
probed) are answered here, at the bottom of the package, where every other module of it
can import them.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import Any

from elenchus.execution import callrecord
from elenchus.encoding import read_python
from elenchus.mutation.mutate import Mutant


# ---------------------------------------------------------------------------
# records


@dataclass(frozen=True, slots=True)
class CallSample:
    """One recorded call of ``target`` (``"pkg.mod:func"``), its arguments as a test writes them
    (``callrecord.argument_repr``: literals, and standard dates, durations and numbers)."""

    target: str
    args_repr: tuple[str, ...]
    kwargs_repr: tuple[tuple[str, str], ...] = ()
    receiver: callrecord.Receiver | None = None  # how the tests built the instance a method was called on

    @property
    def args(self) -> tuple[Any, ...]:
        return tuple(callrecord.argument_value(text) for text in self.args_repr)

    @property
    def kwargs(self) -> dict[str, Any]:
        return {name: callrecord.argument_value(text) for name, text in self.kwargs_repr}


@dataclass(frozen=True, slots=True)
class Distinction:
    """An input on which reference and mutant differ where a probe's assertion can see it.

    Exactly one of ``reference_repr`` / ``reference_exception`` is set, and the same for
    the mutant side. Exceptions are named as a probe writes them (``ValueError``,
    ``pkg.mod.CartError``). ``origin`` tells where the input came from: "recorded" (a
    call the tests made), "defaults" (one of them without the keyword argument whose default the mutant
    changes), "flags" (one of them with a flag the mutated code reads turned the other way), "options" (one of
    them with keyword arguments other tests pass the same
    function), "command-options" (a command line the tests passed, with an option its parser declares),
    "emptied-result" (a call made again after a caller emptied what it returned),
    "boundary" (a constant of the mutated lines, or a neighbour),
    "designed" (what the mutated patterns and tables match), "test-literal" (a literal the
    related tests write), "edge-value" (an empty, zero, negative or None argument),
    "search" (the Hypothesis search) or "attribute" (no call: the public data the mutant assigns,
    read as it is, ``attribute``). A result no text rebuilds is compared by what a test
    could still assert (``view``): its public attributes, ``vars(f(x)) == {...}``, else its
    text, ``str(f(x)) == '...'``.
    A value that is not a literal is written as its constructor (``datetime.date(2000, 1,
    2)``), with ``imports`` for the reference's. ``changed_arguments`` holds, for a
    function that changes its arguments in place,
    each argument the two leave in different states: (its index, or a keyword argument's name, the reference's
    state after the call, the mutant's).
    """

    args_repr: tuple[str, ...]
    kwargs_repr: tuple[tuple[str, str], ...]
    reference_repr: str | None
    reference_exception: str | None
    mutant_repr: str | None
    mutant_exception: str | None
    origin: str = "search"
    changed_arguments: tuple[tuple[int | str, str, str], ...] = ()
    imports: tuple[str, ...] = ()  # what the reference value's text needs (``import datetime``)
    view: str | None = None  # "vars", "str" or "match": the values are the result's attributes, text, match
    receiver: callrecord.Receiver | None = None  # a method's: the instance it is called on, built as the tests did
    # When only the receiver's state after the call differs: (how it is read: "repr", "vars" or "str", the
    # reference's text, the mutant's text) and the imports the reference's text needs.
    receiver_after: tuple[str, str, str] | None = None
    receiver_imports: tuple[str, ...] = ()
    read: bool = False  # a property's: read as an attribute, not called
    setup: CallSample | None = None  # a call of another function of the module, made first (``activate('fr')``)
    undo: CallSample | None = None  # the call the tests made that puts back what ``setup`` changed (``deactivate()``)
    attribute: str | None = None  # no call: the module's public data read as it is (``Version.NAMES``)
    # Another instance built and set up first, as the tests set one up: what it changes shows in the receiver
    # when the mutant shares what the code copied (``receiver_after`` then reads a public attribute, ``.name``).
    first: callrecord.Receiver | None = None
    # The builtin type of the reference's result (text, bytes or a container) when the mutant's is another one
    # that `==` still takes for it (``'2.2.3'`` and ``Version(2, 2, 3)``): asserted as ``type(f(x)) is str``.
    # ``typed_only``: only the type was compared, so `==` was never asked (the mutant's is an object no text writes,
    # a ``defaultdict``; or the code keeps a caller's subclass where the mutant hands back its base class).
    typed: str | None = None
    typed_only: bool = False
    # What the call printed where the two agree otherwise: (the stream, "stdout" or "stderr", the reference's
    # text, the mutant's), asserted as what a `contextlib.redirect_stdout` around the call holds.
    printed: tuple[str, str, str] | None = None
    # The code's call returns a lazy iterator: what it yields is the result (``list(f(x))``), and an error raised
    # while it runs is raised there; ``"each"`` for a tuple of them, each listed (``tuple(map(list, f(x)))``).
    listed: bool | str = False
    # The code returns an object no text writes (a function, say: ``reference_repr`` names its type) where the mutant
    # returns None or raises: asserted as ``f(x) is not None``.
    nonnull: bool = False
    # The command line the call is given (a command's entry point reads ``sys.argv``): the test sets it first.
    argv: tuple[str, ...] | None = None
    # The text its standard input holds (a command reading ``-`` or no argument reads it): the test sets it too.
    stdin: str | None = None
    # The code's call closes its standard output (a command's `with ofile:` on it): the test gives it a buffer
    # that outlives that, and reads what it printed there.
    closes: bool = False
    # Both raise the same exception, saying different things (the caller's own error where the mutant raises its
    # own): (what the code's says, what the mutant's says), asserted as ``str(raised.value) == ...``.
    messages: tuple[str, str] | None = None

    @property
    def emptied(self) -> bool:
        """The call made twice, what the first returned emptied in between (``.clear()``): the results are the
        second call's. A mutant handing out its own data instead of a copy then gives the emptied data."""
        return self.origin == "emptied-result"


@dataclass(frozen=True, slots=True)
class Probe:
    """A probe test file. ``module``/``function``/``args_repr``/``kwargs_repr`` are empty
    for a host-written probe (then ``run_probe`` cannot read the proposed output)."""

    id: str
    path: str  # workspace-relative, POSIX
    source: str
    test_nodeid: str
    contract_id: str | None
    mutant_ids: tuple[str, ...]
    input_repr: str  # the call as written in the probe, e.g. "chunks([1, 2, 3], 2)"
    reference_repr: str  # the reference's value, or "raise ValueError"
    mutant_repr: str | None
    module: str = ""
    function: str = ""
    args_repr: tuple[str, ...] = ()
    kwargs_repr: tuple[tuple[str, str], ...] = ()
    receiver: callrecord.Receiver | None = None


@dataclass(frozen=True, slots=True)
class ProbeCheck:
    accepted: bool
    reason: str
    killed: tuple[str, ...] = ()  # ids of the mutants the probe fails on at its assertion


class ProbeOutcomeKind(StrEnum):
    PASSES = "passes"
    BEHAVIOURAL_FAILURE = "behavioural-failure"  # assertion, expected exception not raised, new exception
    NOT_COMPARABLE = "not-comparable"  # import/collection error, or the call no longer fits the API
    INCONCLUSIVE = "inconclusive"  # timeout, infrastructure, setup error, no test ran


@dataclass(frozen=True, slots=True)
class ProbeOutcome:
    kind: ProbeOutcomeKind
    message: str
    proposed_repr: str | None  # the proposed revision's value or "raise X" for the probe's input


# ---------------------------------------------------------------------------
# module names and what can be probed


def module_name_for(path: str, root: Path | None = None) -> str:
    """The dotted module name tests use for ``path``: ``src/pkg/mod.py`` -> ``pkg.mod``.

    The import roots are the repository root and ``src/`` (src layout). A leading
    ``src/`` is kept only when ``root/src/__init__.py`` exists (then ``src`` is itself a
    package). ``pkg/__init__.py`` -> ``pkg``.
    """
    parts = list(PurePosixPath(Path(path).as_posix()).parts)
    if not parts or not parts[-1].endswith(".py"):
        raise ValueError(f"expected a path to a .py file, got {path!r}")
    src_is_a_package = root is not None and (Path(root) / "src" / "__init__.py").is_file()
    if len(parts) > 1 and parts[0] == "src" and not src_is_a_package:
        parts = parts[1:]
    parts[-1] = parts[-1][: -len(".py")]
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    if not all(part.isidentifier() for part in parts):
        raise ValueError(f"{path!r} is not importable as a module (parts {parts})")
    return ".".join(parts)


def common_ends(old: Sequence[Any], new: Sequence[Any]) -> tuple[int, int]:
    """How many items (lines, characters) ``old`` and ``new`` share at their start, and then at their end: a mutant
    changes one place, and only what lies between needs comparing (a whole large module matched item by item took
    minutes)."""
    start, shortest = 0, min(len(old), len(new))
    while start < shortest and old[start] == new[start]:
        start += 1
    end = 0
    while end < shortest - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    return start, end


@functools.lru_cache(maxsize=2)
def _module_tree(source: str) -> ast.Module | None:
    """The code's parsed module, or None when it does not parse. Read-only and cached: one search
    asks several questions of the same source, and a large module takes seconds to parse (two places: the code's
    and the mutant's, asked in turn; not more: a 5 MB module's tree took 0.8 GB)."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


@functools.lru_cache(maxsize=2)
def _module_nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of ``_module_tree(source)``, in ``ast.walk``'s order, walked once (read-only): each function a
    search goes through asks a dozen questions of the whole module, and one walk of parse's 1,100 lines took
    20 ms."""
    tree = _module_tree(source)
    return tuple(ast.walk(tree)) if tree is not None else ()


#: Blocks whose statements a module runs while it imports, as if at its top level (``try: import regex``
#: ``except ImportError: ...``, ``if sys.version_info >= ...:``).
IMPORT_BLOCKS: tuple[type[ast.stmt], ...] = (ast.If, ast.Try, ast.With, ast.For, ast.While,
                                             *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


def import_statements(statements: Sequence[ast.stmt]) -> list[ast.stmt]:
    """``statements`` (a module's body) and, inside its blocks, the statements they hold, outer first: what the
    import runs, a function's or class's body left out. The constants a module defines under ``if`` or ``try``
    are its data as much as those at its top level."""
    found: list[ast.stmt] = []
    for node in statements:
        found.append(node)
        if isinstance(node, IMPORT_BLOCKS):
            handled = (inner for handler in getattr(node, "handlers", ()) for inner in handler.body)
            found += import_statements([*node.body, *getattr(node, "orelse", ()), *getattr(node, "finalbody", ()),
                                        *handled])
    return found


def statements_at(statements: Sequence[ast.stmt], line: int) -> list[ast.stmt]:
    """The statements the import runs that span ``line`` (of ``statements``, a module's body): the statement inside
    a block there (``if``, ``try``), or the innermost block when ``line`` is the block's own (``if FAST:``)."""
    spanning = [node for node in import_statements(statements)
                if node.lineno <= line <= (node.end_lineno or node.lineno)]
    return [node for node in spanning if not isinstance(node, IMPORT_BLOCKS)] or spanning[-1:]


def _function_node(source: str, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The module-level function ``name``, or the method ``Class.name`` of a module-level class; for a
    module-level class ``name``, its ``__init__`` (the class is called as its constructor)."""
    tree = _module_tree(source)
    if tree is None:
        return None
    owner, _, name = name.rpartition(".")
    body: list[ast.stmt] = tree.body
    if owner:
        classes = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == owner]
        body = classes[-1].body if classes and "." not in owner else []
    found = None
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            found = node  # the last definition wins, as at import
    classes = [node for node in body if isinstance(node, ast.ClassDef) and node.name == name] if not owner else []
    if found is None and classes:  # a class, called as its constructor
        found = _function_node(source, f"{name}.__init__")
    return found


def method_kind(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """How a method is called, by its decorators: "static", "class", "property" or "instance"."""
    names = {d.id if isinstance(d, ast.Name) else d.attr for d in node.decorator_list
             if isinstance(d, (ast.Name, ast.Attribute))}
    for decorator, kind in (("staticmethod", "static"), ("classmethod", "class"), ("property", "property"),
                            ("cached_property", "property")):
        if decorator in names:
            return kind
    return "instance"


def public_symbol(symbol: str) -> bool:
    """A function or method a test calls by name, or a special method it reaches by an operator."""
    *owner, name = symbol.split(".")
    return not any(part.startswith("_") for part in owner) and (
        not name.startswith("_") or bool(owner) and name in callrecord.OPERATORS)


def unsupported_reason(reference_dir: Path, mutant: Mutant, symbol: str | None = None,
                       module: str | None = None, defined_in: str | None = None) -> str | None:
    """Why no probe can be generated for ``mutant`` through ``symbol`` (default: its own function), imported
    from ``module`` (default: the mutated file's own; a public package re-exporting it, when that is private),
    and defined in the file ``defined_in`` (default: the mutated one)."""
    symbol = symbol or mutant.symbol
    parts = symbol.split(".")
    if len(parts) > 2 or not all(part.isidentifier() for part in parts):
        return (f"`{symbol}` is not a module-level function or a method of a module-level class (nested "
                "functions are not probed)")
    if not public_symbol(symbol):
        return f"`{symbol}` is private; a probe calls only public API"
    try:
        module = module or module_name_for(mutant.path, reference_dir)
    except ValueError as error:
        return str(error)
    private = [part for part in module.split(".") if part.startswith("_")]
    if private:
        return f"module {module} is private ({'.'.join(private)}); a probe imports only public modules"
    path = defined_in or mutant.path
    try:
        source = read_python(Path(reference_dir) / path)
    except (OSError, UnicodeDecodeError) as error:
        return f"cannot read {path} in the reference: {error}"
    node = _function_node(source, symbol)
    if node is None:
        return f"`{symbol}` is not defined at module level in {path}"
    if isinstance(node, ast.AsyncFunctionDef):
        return f"`{symbol}` is a coroutine function; probes call synchronous functions only"
    return None
