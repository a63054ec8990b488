"""What a witness calls: the public functions that reach a mutant, read from the source.

A survivor is shown to differ through a call a test could make: the mutated function when
it is public, then the public functions and methods that reach it (``targets_for``); for
code the module runs while it imports, the data it fills and the functions that read it
(``data_for``); the set-up calls that select a state first (``setups_for``,
``instance_setups_for``); the public package a private module's function is imported
from (``public_home``); and, for a table no function of its own module reads, or code no public
function of its own module calls, the package's own functions, whose code in other modules does
(``foreign_targets``). Everything here reads the code, never runs it.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from elenchus.execution import callrecord
from elenchus.analysis import probes
from elenchus.analysis.probes.common import IMPORT_BLOCKS, import_statements, statements_at
from elenchus.encoding import read_python
from elenchus.mutation.mutate import Mutant


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
    """The names a module-level statement assigns (``LIMIT = 3``, ``MAP: dict = {...}``), or the statements of a
    block do (``if REGEX_AVAILABLE: PERIOD = ... else: PERIOD = ...``)."""
    if isinstance(node, IMPORT_BLOCKS):
        return set().union(set(), *(_assigned(inner) for inner in import_statements([node])[1:]
                                    if not isinstance(inner, IMPORT_BLOCKS)))
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return {inner.id for target in targets if isinstance(target, ast.AST)
            for inner in ast.walk(target) if isinstance(inner, ast.Name)}


def _assigned_at(source: str, line: int) -> set[str]:
    """The names the module-level statement spanning ``line`` assigns, and the module-level
    names built from them (``TRANS = str.maketrans(MAP)`` carries a change of ``MAP``)."""
    body = [node for node in import_statements(_module_statements(source))
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, *IMPORT_BLOCKS))]
    names = set().union(*(_assigned(n) for n in _statements_at(source, line)))
    for _ in range(3):
        names |= set().union(set(), *(_assigned(n) for n in body if names & {
            inner.id for inner in ast.walk(n) if isinstance(inner, ast.Name)}))
    return names


def shown_name(source: str, mutant: Mutant) -> str:
    """How a reason names what ``mutant`` changes: `` `clamp` ``, or for module-level code, whose symbol is
    ``<module>``, the names its statement assigns (`` `KEYWORDS` ``)."""
    names = sorted(set().union(*(_assigned(n) for n in _statements_at(source, mutant.line)))) \
        if mutant.symbol == "<module>" else []
    return " and ".join(f"`{name}`" for name in names) or f"`{mutant.symbol}`"


def _called_at(source: str, line: int | None = None) -> set[str]:
    """Module-level functions the module's own top-level statements call while it imports (those spanning
    ``line`` only, when given): ``_irregular('person', 'people')`` filling rule tables."""
    return {inner.func.id for node in (_module_statements(source) if line is None else _statements_at(source, line))
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            for inner in ast.walk(node) if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)}


def _module_data(source: str) -> set[str]:
    """The names the module assigns at its top level: its constants and tables."""
    return set().union(set(), *(_assigned(node) for node in import_statements(_module_statements(source))
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


def public_attribute(source: str, mutant: Mutant) -> str | None:
    """The public data the mutated statement assigns, at module level or in a top-level class's body
    (``NAMES``, ``Version.NAMES``), when every part of its name is public: what a test can read and assert
    (``Version.NAMES == (...)``) however the functions that use it behave. None otherwise."""
    parts = mutant.symbol.split(".")
    if len(parts) > 2 or any(not part.isidentifier() or part.startswith("_") for part in parts):
        return None
    body: Sequence[ast.stmt] = _module_statements(source)
    if len(parts) == 2:
        body = next((node.body for node in body if isinstance(node, ast.ClassDef) and node.name == parts[0]), ())
    for node in body:
        if node.lineno <= mutant.line <= (node.end_lineno or node.lineno) and isinstance(
                node, (ast.Assign, ast.AnnAssign)) and parts[-1] in _assigned(node):
            return mutant.symbol
    return None


def _statements_at(source: str, line: int) -> list[ast.stmt]:
    """The module's statements spanning ``line``: its top-level ones, or inside a block the import runs (``if``,
    ``try``) the statement there, or the innermost block when ``line`` is the block's own (``if REGEX_AVAILABLE:``)."""
    return statements_at(_module_statements(source), line)


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
    """Public functions and methods (``Class.name``) to call: the mutated one, then those reaching it
    (nearest first). A public method needs an instance built as the tests built theirs; a public function may
    give what no test can compare (``create_parser()`` a parser), where the function calling it shows the
    difference (``main([path, '-r'])`` prints the statement unindented)."""
    calls = _references(source)
    leaf = mutant.symbol.split(".")[0] if "." in mutant.symbol else mutant.symbol
    owner, _, name = mutant.symbol.rpartition(".")
    own = [mutant.symbol] if mutant.symbol in calls and probes.public_symbol(mutant.symbol) else []
    wanted = {leaf, name}
    if owner and name in _BUILDERS:  # the class itself builds it, and its methods read what it built
        own = [owner] * probes.public_symbol(owner) + [
            method for method in calls if method.startswith(f"{owner}.") and probes.public_symbol(method)]
    elif mutant.symbol in calls and not own and name.startswith("__") and name.endswith("__") and owner:
        # a special method no operator of a test reaches runs where Python calls it on an instance (`__call__`
        # of `converter(text, match)`): reached through the code that builds or holds instances of its class
        wanted = {name, owner.split(".")[-1]}
    elif mutant.symbol in calls:  # a method: reached by calls of its name, not by building its class
        wanted = {name}
    if mutant.symbol == "<module>":  # module-level code: the functions reading what it assigns or fills
        wanted = _assigned_at(source, mutant.line) | _filled(source, calls, _called_at(source, mutant.line))
    elif leaf in _called_at(source):  # a function the import runs: its effect is the data it fills
        wanted |= _filled(source, calls, {leaf})
    # a class body's own statement (`ZERO = timedelta(0)`): the methods reading what it assigns
    wanted |= {assigned for node in _module_statements(source) if isinstance(node, ast.ClassDef)
               and node.name == mutant.symbol for statement in node.body
               if statement.lineno <= mutant.line <= (statement.end_lineno or statement.lineno)
               and not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               for assigned in _assigned(statement)}
    found: list[str] = list(own)
    built = _builds(source, mutant.symbol)
    if built is not None:  # a function building an instance (`compile(fmt)` a `Parser`): used through its methods
        found += [method for method in calls if method.startswith(f"{built}.") and probes.public_symbol(method)
                  and method not in found]
    walked: set[str] = set()
    for _ in range(_CALLER_DEPTH):  # callers, their callers, and so on
        callers = [caller for caller, called in calls.items() if called & wanted and caller not in walked]
        if not callers:
            break
        walked.update(callers)
        found += [caller for caller in callers if probes.public_symbol(caller) and caller not in found]
        wanted |= {part for caller in callers for part in (caller, caller.rpartition(".")[2])}
        for builder in [caller for caller in callers if caller.rpartition(".")[2] in _BUILDERS]:
            # what a constructor calls runs for every instance: the class and its public methods reach it, and
            # so do the functions building one (`parse(format, text)` builds a `Parser`)
            cls = builder.rpartition(".")[0]
            found += [method for method in [cls, *calls] if (method == cls or method.startswith(cls + "."))
                      and probes.public_symbol(method) and method not in found]
            wanted.add(cls)
    return found


def _builds(source: str, function: str) -> str | None:
    """The module's class that the module-level function returns a call of at every ``return``
    (``return Parser(format, ...)``): the instances the tests built with it are the ones its methods run on."""
    node = next((node for node in _module_statements(source) if isinstance(node, ast.FunctionDef)
                 and node.name == function), None)
    built = callrecord.returned_class(node) if node is not None else None
    return built if any(isinstance(node, ast.ClassDef) and node.name == built
                        for node in _module_statements(source)) else None


#: How many steps of callers a mutant is followed up through, at most.
_CALLER_DEPTH = 6


def in_search_order(source: str, mutant: Mutant, targets: Sequence[str], module: str,
                    samples: Mapping[str, Sequence[probes.CallSample]]) -> list[str]:
    """``targets`` in the order a search tries them, nearest first within each rank: the mutated function; then, for
    a table entry the mutant drops or changes, those the tests called with another word of that table in their
    texts; then the methods the tests called on instances the mutated function built (``compile(fmt).parse(text)``);
    then those the tests called, or whose class they built, with arguments a search repeats (``samples``, by
    ``"module:name"``); then the rest. Every designed input is put into the tests' own calls, and a target never
    called so gets none of them, while it spends the time the ones after it no longer have."""
    swaps = probes.table_swaps(source, mutant)

    def rank(target: str) -> tuple[int, int, int]:
        made = samples.get(f"{module}:{target}", ())
        if target == mutant.symbol:
            return 0, 0, 0
        built = "." in target and samples.get(f"{module}:{target.rpartition('.')[0]}")
        on_its_own = any(sample.receiver is not None and sample.receiver.factory == mutant.symbol for sample in made)
        return (0 if swaps and probes.swapped_calls(made, swaps) else 1, 0 if on_its_own else 1,
                0 if made or built else 1)

    return sorted(targets, key=rank)


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
    (``engine.classical(all=True)``) does; an item set or deleted (``cache[1] = 'a'``) too."""
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
    return [f"{owner}.{method.name}" for method in methods if method.name in changing
            and (not method.name.startswith("_") or method.name in callrecord.STATEMENTS)]  # (`cache[1] = 'a'`)


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


def changes_data(source: str, mutant: Mutant) -> bool:
    """Whether ``mutant`` changes module-level data (a constant, a table) rather than a function's code."""
    return mutant.symbol == "<module>" or mutant.symbol in _module_data(source)


def foreign_targets(root: Path, mutant: Mutant, module: str) -> tuple[str, str, list[str]] | None:
    """For module-level data no function of its own module reads (sqlparse's ``KEYWORDS`` table, read by the
    lexer in another module), or code no public function of its own module calls (a filter's
    ``_process_case``, which its class finds by name, the class built by the formatter in another module): the
    package above it, its ``__init__.py`` and the public functions defined there (``sqlparse.format``), when
    another module of the package names the data, or the function or its class; else None. Those functions are
    what a user calls, and what a test calls, to reach it."""
    source = read_python(root / mutant.path) if (root / mutant.path).is_file() else ""
    names = {mutant.symbol.partition(".")[0]} if not changes_data(source, mutant) else (
        {mutant.symbol} if mutant.symbol != "<module>" else _assigned_at(source, mutant.line))
    parts = module.split(".")
    if not names or len(parts) < 2:
        return None
    folder = (root / mutant.path).parent
    for _ in parts[1:-1]:  # (up to the top package: `a/b/c.py` of module `a.b.c` is in `a/`)
        folder = folder.parent
    init = folder / "__init__.py"
    try:
        tree = ast.parse(read_python(init))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    functions = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and probes.public_symbol(node.name)][:_FOREIGN_TARGETS]
    mutated = (root / mutant.path).resolve()
    readers = [path for path in sorted(folder.rglob("*.py"))[:_PACKAGE_FILES] if path.resolve() != mutated
               and names & _names_in(path)]
    if not functions or not readers:
        return None
    return parts[0], init.relative_to(root).as_posix(), functions


@functools.lru_cache(maxsize=512)
def _names_in(path: Path) -> frozenset[str]:
    """The names the file at ``path`` uses (``keywords.KEYWORDS``, ``from .keywords import KEYWORDS``): read
    once, however many survivors of one table ask."""
    try:
        tree = ast.parse(read_python(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return frozenset()
    return frozenset(node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute)
                     else node.name for node in ast.walk(tree)
                     if isinstance(node, (ast.Name, ast.Attribute, ast.alias)))


#: The package's own functions a table read elsewhere is searched through, and the files scanned for a reader.
_FOREIGN_TARGETS = 4
_PACKAGE_FILES = 200
