"""A handler widened to `Exception` that catches nothing more: what the guarded code can raise, from the builtins.

``except StopIteration`` made ``except Exception`` differs only when the ``try`` body raises something else.
When the body only imports modules, or only reads and updates containers the code built for itself
(``self.__order = collections.OrderedDict()``, a module's ``_REGISTRY = {}``) with keys it holds itself,
what it can raise is known from the builtins alone. When the handlers up to the widened one already catch
all of it, no caller can make the mutant differ; only a broken installation could.

Code that takes anything from its caller is never called so: an argument, a callable the caller gave, an
attribute a caller can set, a method a subclass can override. A caller's key can raise anything from its
``__hash__`` (cachetools tests exactly that), and ``int(text)`` raises ``TypeError`` for ``None``.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import libcst as cst

from elenchus.mutation.families import Site, SourceView

#: Builders of a container, by the kind of container they give, and the builtin errors each operation on
#: that kind raises (any key or value it holds itself, never one a caller passed).
_BUILDERS = {"dict": "mapping", "OrderedDict": "mapping", "Counter": "mapping", "defaultdict": "mapping",
             "list": "sequence", "deque": "sequence", "tuple": "sequence", "bytearray": "sequence",
             "set": "set", "frozenset": "set"}
_LOOKUP = {"mapping": {"KeyError"}, "sequence": {"IndexError"}, "set": None}
_METHODS = {
    "mapping": {"get": set(), "setdefault": set(), "keys": set(), "values": set(), "items": set(),
                "copy": set(), "clear": set(), "most_common": set(), "popitem": {"KeyError"},
                "move_to_end": {"KeyError"}, "pop": {"KeyError"}},
    "sequence": {"append": set(), "appendleft": set(), "insert": set(), "count": set(), "copy": set(),
                 "clear": set(), "pop": {"IndexError"}, "popleft": {"IndexError"}, "index": {"ValueError"},
                 "remove": {"ValueError"}},
    "set": {"add": set(), "discard": set(), "copy": set(), "clear": set(), "remove": {"KeyError"},
            "pop": {"KeyError"}},
}
#: Methods whose answer is a list of tuples, so unpacking it can only find too few or too many.
_TUPLES = frozenset({"most_common", "items", "popitem"})
#: Builtins that only read a container: what they raise on one the code built for itself.
_READERS = {"iter": set(), "len": set(), "reversed": set(), "bool": set(), "list": set(), "tuple": set()}
#: Factories ``defaultdict`` may be given without running a caller's code.
_FACTORIES = frozenset({"list", "set", "dict", "int", "float", "str", "tuple"})
_LITERALS = (cst.Integer, cst.Float, cst.SimpleString)


def _arid_handler(view: SourceView, site: Site) -> str | None:
    """Why widening this handler to `Exception` catches nothing more, or None (see the module's docstring)."""
    handler = site.anchor
    if site.family != "broadened-handler" or not isinstance(handler, cst.ExceptHandler):
        return None
    guarded = view.parent(handler)
    if not isinstance(guarded, cst.Try):
        return None
    caught: list[type[BaseException]] = []
    for each in guarded.handlers:
        named = _builtin_errors(each.type)
        if named is None:
            return None
        caught.extend(named)
        if each is handler:
            break
    reading = _Reading(view, view.function(handler))
    raised = reading.block(guarded.body.body)
    if raised is None:
        return None
    if not all(any(issubclass(getattr(builtins, name), kind) for kind in caught) for name in raised):
        return None
    what = view.code(handler.type) if handler.type is not None else "the error"
    if reading.imports and not reading.owned:
        return (f"arid: the `try` body only imports or looks up what this interpreter has, which raises nothing but "
                f"the `{what}` caught here unless the installation itself is broken; no test here is meant to "
                "arrange that")
    owned = ", ".join(f"`{name}`" for name in sorted(reading.owned))
    errors = ", ".join(f"`{name}`" for name in sorted(raised))
    can = f"it can raise only {errors}, which `except {what}` already catches" if raised else "it raises nothing"
    return (f"arid: the `try` body only reads and updates containers the code built for itself ({owned}), with "
            f"nothing its caller passed, so {can}; widening `except {what}` catches nothing more")


def _builtin_errors(node: cst.BaseExpression | None) -> list[type[BaseException]] | None:
    """The builtin exception classes ``except <node>`` names, or None when it names anything else."""
    if node is None:
        return None
    parts = [element.value for element in node.elements] if isinstance(node, cst.Tuple) else [node]
    found = []
    for part in parts:
        kind = getattr(builtins, part.value, None) if isinstance(part, cst.Name) else None
        if not (isinstance(kind, type) and issubclass(kind, BaseException)):
            return None
        found.append(kind)
    return found


class _Reading:
    """What a ``try`` body raises, when all it does is import or use containers the code built for itself.

    ``held``: local names bound, in the body, to what those containers gave or to literals, which no caller
    chose. Every method returns the builtin errors' names, or None for anything else."""

    def __init__(self, view: SourceView, function: cst.FunctionDef | None, depth: int = 0) -> None:
        self.view = view
        self.function = function
        self.cls = _enclosing_class(view, function) if function is not None else None
        self.self_name = _first_parameter(function) if self.cls is not None else None
        self.held: set[str] = set()
        self.owned: set[str] = set()
        self.imports = False
        self.depth = depth

    def block(self, body: Sequence[cst.BaseStatement]) -> set[str] | None:
        raised: set[str] = set()
        for line in body:
            if not isinstance(line, cst.SimpleStatementLine):
                return None
            for statement in line.body:
                found = self.statement(statement)
                if found is None:
                    return None
                raised |= found
        return raised

    def statement(self, node: cst.BaseSmallStatement) -> set[str] | None:
        if isinstance(node, cst.Pass):
            return set()
        if isinstance(node, (cst.Import, cst.ImportFrom)) and self.depth == 0:
            self.imports = True
            return {"ModuleNotFoundError"} if isinstance(node, cst.Import) else {"ImportError"}
        if isinstance(node, cst.Expr):
            return self.expression(node.value)
        if isinstance(node, cst.Return):
            return set() if node.value is None else self.expression(node.value)
        if isinstance(node, cst.Del):
            return self.stored(node.target)
        if isinstance(node, cst.Assign):
            # (a name read as it is, `k = key`, may be the caller's: what it is bound to is not held)
            held = not (isinstance(node.value, cst.Name) and not self.plain(node.value))
            raised = self.expression(node.value)
            for target in node.targets:
                found = self.bound(target.target, node.value, held)
                if raised is None or found is None:
                    return None
                raised |= found
            return raised
        return None

    def bound(self, target: cst.BaseExpression, value: cst.BaseExpression, held: bool = True) -> set[str] | None:
        """What binding ``target`` raises: a name is then ``held``; unpacking finds too many or too few."""
        if isinstance(target, cst.Name):
            if held:
                self.held.add(target.value)
            return set()
        if isinstance(target, (cst.Tuple, cst.List)):
            raised = {"ValueError"} if _listed_tuples(value) else {"ValueError", "TypeError"}
            for element in target.elements:
                found = self.bound(element.value, value, held)
                if found is None:
                    return None
                raised |= found
            return raised
        return self.stored(target)

    def stored(self, target: cst.BaseExpression) -> set[str] | None:
        """``C[k] = v`` or ``del C[k]`` on a container the code built, with a key it holds."""
        if not isinstance(target, cst.Subscript):
            return None
        kind, key = self.container(target.value), _only_index(target)
        if kind is None or kind == "set" or key is None or not self.plain(key):
            return None
        return set(_LOOKUP[kind]) if kind == "sequence" or isinstance(self.view.parent(target), cst.Del) else set()

    def expression(self, node: cst.BaseExpression) -> set[str] | None:
        if self.plain(node) or self.container(node) is not None:
            return set()
        if isinstance(node, cst.Name) or isinstance(node, cst.Attribute) and _module_attribute(self.view, node) \
                and not _local(self.function, _root(node)):  # `unicode`, `os.sched_getaffinity`
            self.imports = True  # (a probe of what this interpreter has, as an import is)
            return {"NameError"} if isinstance(node, cst.Name) else {"AttributeError"}
        if isinstance(node, cst.Subscript):
            kind, key = self.container(node.value), _only_index(node)
            if kind is None or _LOOKUP[kind] is None or key is None or not self.plain(key):
                return None
            return set(_LOOKUP[kind])
        if isinstance(node, cst.Comparison):  # `key in self.__data`
            if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, (cst.In, cst.NotIn)):
                return None
            ok = self.plain(node.left) and self.container(node.comparisons[0].comparator) is not None
            return set() if ok else None
        if isinstance(node, cst.Call):
            return self.call(node)
        return None

    def call(self, node: cst.Call) -> set[str] | None:
        args = [arg.value for arg in node.args]
        if any(arg.star or arg.keyword is not None for arg in node.args):
            return None
        func = node.func
        if isinstance(func, cst.Name) and func.value == "next" and len(args) in (1, 2) \
                and isinstance(args[0], cst.Call) and self.call(args[0]) == set() \
                and isinstance(args[0].func, cst.Name) and args[0].func.value in ("iter", "reversed") \
                and (len(args) == 1 or self.plain(args[1])):
            return {"StopIteration"} if len(args) == 1 else set()
        if isinstance(func, cst.Name) and func.value in _READERS and len(args) == 1 \
                and self.container(args[0]) is not None:
            return set(_READERS[func.value])
        if not isinstance(func, cst.Attribute) or not all(self.plain(arg) for arg in args):
            return None
        kind = self.container(func.value)
        if kind is None:
            return self.own_method(func, args)
        raised = _METHODS[kind].get(func.attr.value)
        if raised is not None and kind == "mapping" and func.attr.value == "pop" and len(args) == 2:
            return set()  # (a default given: a missing key raises nothing)
        return None if raised is None else set(raised)

    def own_method(self, func: cst.Attribute, args: list[cst.BaseExpression]) -> set[str] | None:
        """``self.__getlink(key)``: a private method of this class (no subclass can replace it), read the same
        way, once deep, with its parameters given only what this body holds."""
        name = func.attr.value
        if self.cls is None or self.depth or not _is_self(func.value, self.self_name) \
                or not name.startswith("__") or name.endswith("__"):
            return None
        method = next((node for node in _class_functions(self.cls) if node.name.value == name), None)
        if method is None or method.asynchronous is not None or method.decorators:
            return None
        params = method.params
        if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg or params.kwonly_params \
                or len(params.params) != len(args) + 1:
            return None
        inner = _Reading(self.view, method, self.depth + 1)
        inner.held = {param.name.value for param in params.params[1:]}
        raised = inner.block(method.body.body) if isinstance(method.body, cst.IndentedBlock) else None
        self.owned |= inner.owned
        return raised

    def plain(self, node: cst.BaseExpression) -> bool:
        """A value no caller chose: a literal, or a name this body bound to what the code holds."""
        if isinstance(node, _LITERALS) or isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
            return True
        if isinstance(node, cst.Name):
            return node.value in self.held
        if isinstance(node, cst.Tuple):
            return all(self.plain(element.value) for element in node.elements)
        return False

    def container(self, node: cst.BaseExpression) -> str | None:
        """The kind of container ``node`` is, when the code built it for itself: an attribute of ``self`` the
        class assigns only fresh containers of one kind, or a module-level name assigned only so."""
        if isinstance(node, cst.Attribute) and self.cls is not None and _is_self(node.value, self.self_name):
            kind = _attribute_kind(self.view, self.cls, node.attr.value)
            label = f"self.{node.attr.value}"
        elif isinstance(node, cst.Name) and node.value not in self.held and not _local(self.function, node.value):
            kind = _module_kind(self.view, node.value)
            label = node.value
        else:
            return None
        if kind is not None:
            self.owned.add(label)
        return kind


def _enclosing_class(view: SourceView, function: cst.FunctionDef) -> cst.ClassDef | None:
    """The class ``function`` is a method of, when its first parameter is the instance (no static or class
    method)."""
    parent = view.parent(view.parent(function))  # FunctionDef -> IndentedBlock -> ClassDef
    decorated = {decorator.decorator.value for decorator in function.decorators
                 if isinstance(decorator.decorator, cst.Name)}
    if not isinstance(parent, cst.ClassDef) or decorated & {"staticmethod", "classmethod"}:
        return None
    return parent


def _first_parameter(function: cst.FunctionDef | None) -> str | None:
    return function.params.params[0].name.value if function is not None and function.params.params else None


def _is_self(node: cst.BaseExpression, name: str | None) -> bool:
    return name is not None and isinstance(node, cst.Name) and node.value == name


def _class_functions(cls: cst.ClassDef) -> list[cst.FunctionDef]:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return [node for node in body if isinstance(node, cst.FunctionDef)]


def _local(function: cst.FunctionDef | None, name: str) -> bool:
    """Is ``name`` a parameter of ``function`` or bound anywhere in it (so not the module's)?"""
    if function is None:
        return False
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            every.append(star)
    if any(param.name.value == name for param in every):
        return True
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.WithItem)):
            target = node.asname.name if isinstance(node, cst.WithItem) and node.asname else \
                getattr(node, "target", None)
            if isinstance(target, cst.Name) and target.value == name:
                return True
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            return True  # (a module name the function rebinds is not one the module built once)
        stack.extend(node.children)
    return False


def _built(node: cst.BaseExpression | None) -> str | None:
    """The kind of a fresh container ``node`` builds with nothing a caller gave: ``{}``, ``[]``, ``dict()``,
    ``collections.OrderedDict()``, ``defaultdict(list)``; else None."""
    if isinstance(node, (cst.Dict, cst.DictComp)):
        return "mapping"
    if isinstance(node, (cst.List, cst.ListComp, cst.Tuple)):
        return "sequence"
    if isinstance(node, (cst.Set, cst.SetComp)):
        return "set"
    if not isinstance(node, cst.Call) or node.args and not _plain_arguments(node):
        return None
    name = node.func.attr.value if isinstance(node.func, cst.Attribute) else \
        node.func.value if isinstance(node.func, cst.Name) else None
    return _BUILDERS.get(name or "")


def _plain_arguments(call: cst.Call) -> bool:
    """Arguments no caller gave: literals, displays of them, or a builtin factory (``defaultdict(list)``)."""
    for arg in call.args:
        value = arg.value
        if arg.star or not (isinstance(value, _LITERALS) or isinstance(value, cst.Name) and value.value in _FACTORIES
                            or isinstance(value, (cst.Dict, cst.List, cst.Tuple, cst.Set))):
            return False
    return True


def _attribute_kind(view: SourceView, cls: cst.ClassDef, attribute: str) -> str | None:
    """The kind of container every assignment of ``<anything>.attribute`` in the module gives, when each is a
    fresh one in ``cls`` and nothing else stores it (no ``+=``, no ``del``, no assignment from elsewhere)."""
    mangled = attribute.startswith("__") and not attribute.endswith("__")  # (another class's is another name)
    kinds = set()
    for node in view.nodes(cst.Attribute):
        if node.attr.value != attribute or mangled and cls not in view.ancestors(node):
            continue
        holder = view.parent(node)
        if isinstance(holder, cst.AssignTarget) and holder.target is node:
            assign = view.parent(holder)
            if not isinstance(assign, cst.Assign) or cls not in view.ancestors(assign):
                return None
            kinds.add(_built(assign.value))
        elif isinstance(holder, (cst.AugAssign, cst.AnnAssign, cst.Del)) and getattr(holder, "target", None) is node:
            return None
    for holder in view.nodes(cst.ClassDef):  # a class attribute of that name answers when the instance has none
        if (holder is cls or not mangled) and any(
                isinstance(target.target, cst.Name) and target.target.value == attribute
                for line in (holder.body.body if isinstance(holder.body, cst.IndentedBlock) else ())
                for statement in (line.body if isinstance(line, cst.SimpleStatementLine) else ())
                if isinstance(statement, cst.Assign) for target in statement.targets):
            return None
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


def _module_kind(view: SourceView, name: str) -> str | None:
    """The kind of container a module-level ``name`` holds, when the module assigns it only fresh containers
    of one kind at its top level, and nothing rebinds it (``global``)."""
    kinds = set()
    for line in view.module.body:
        statements = line.body if isinstance(line, cst.SimpleStatementLine) else ()
        for statement in statements:
            if isinstance(statement, cst.Assign) and any(isinstance(target.target, cst.Name) and
                                                         target.target.value == name for target in statement.targets):
                kinds.add(_built(statement.value))
            elif isinstance(statement, (cst.AugAssign, cst.AnnAssign)) and isinstance(statement.target, cst.Name) \
                    and statement.target.value == name:
                return None
    for node in view.nodes(cst.Global):
        if any(item.name.value == name for item in node.names):
            return None
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


def _root(node: cst.BaseExpression) -> str:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""


def _module_attribute(view: SourceView, node: cst.Attribute) -> bool:
    """Is ``node`` an attribute read from a module the file imports whole (``os.sched_getaffinity``,
    ``itertools.chain.from_iterable``), which raises nothing but ``AttributeError``?"""
    name = _root(node)
    for line in view.module.body:
        for statement in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if isinstance(statement, cst.Import) and any(
                    (alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name)
                     else view.module.code_for_node(alias.name).split(".")[0]) == name
                    for alias in statement.names):
                return True
    return False


def _only_index(node: cst.Subscript) -> cst.BaseExpression | None:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    return node.slice[0].slice.value


def _listed_tuples(value: cst.BaseExpression) -> bool:
    """Is ``value`` a container method's list of pairs (``most_common(1)``), whose items always unpack in two?"""
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _TUPLES
