"""The Hypothesis search space: inputs built from a function's signature.

Parameters read from the source (``_Signature``; annotations resolved from literal-friendly
names, never evaluated) and the values the samples hold become strategies shaped like
them; ``_search`` runs a bounded, derandomized Hypothesis search through a ``_Comparer``.
Hypothesis is imported here only, at first use (``_hypothesis``), with its cache
directory in Elenchus's own.
"""

from __future__ import annotations

import ast
import datetime
import decimal
import fractions
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from elenchus.execution import callrecord
from elenchus import records
from elenchus.analysis.probes.common import CallSample, Distinction
from elenchus.analysis.probes.compare import _Comparer


@functools.cache
def _hypothesis() -> ModuleType:
    """Hypothesis, imported where a search first needs it: most commands that load this module (the
    evaluation's own process, a witness search that ends before generating inputs) never do, and its
    import costs 0.3 s of CPU. Hypothesis keeps caches under its home directory, by default
    `.hypothesis/` in the current directory: the user's repository. Elenchus's cache directory takes
    them instead, across runs: built again in each search process (in a run's private temporary
    directory), they took 3 s of its 5."""
    import hypothesis
    import hypothesis.strategies
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(records.hypothesis_home())
    return hypothesis


class _Strategies:
    """``hypothesis.strategies``, imported at first use (``_hypothesis``)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_hypothesis().strategies, name)


st = _Strategies()


class _Found(Exception):
    def __init__(self, distinction: Distinction) -> None:
        super().__init__("distinguished")
        self.distinction = distinction


@dataclass(frozen=True, slots=True)
class _Parameter:
    name: str
    keyword_only: bool
    has_default: bool
    default: tuple[Any, ...]  # (value,) when the default is a literal
    annotation: ast.expr | None


@dataclass(frozen=True, slots=True)
class _Signature:
    parameters: tuple[_Parameter, ...]

    @classmethod
    def of(cls, node: ast.FunctionDef, bound: bool = False, aliases: dict[str, ast.expr] | None = None) -> _Signature:
        """``bound``: a method called on its instance or class, which gives its first parameter. A ``*rest``
        parameter stands for two optional positional ones. An annotation naming one of the module's type
        ``aliases`` (``type_aliases``) reads as what it stands for."""
        arguments = node.args
        if aliases:
            node = _unaliased(node, aliases)
            arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        if bound and positional:
            positional.pop(0)
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
        defaults += list(arguments.defaults)
        parameters = [cls._parameter(arg, default, False) for arg, default in zip(positional, defaults)]
        rest = arguments.vararg
        if rest is not None:  # `*sets`: callers pass one value there, or two (an empty call never runs its loop)
            parameters += [_Parameter(f"*{rest.arg}{index}", False, True, (), rest.annotation) for index in (1, 2)]
        parameters += [cls._parameter(arg, default, True)
                       for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults)]
        return cls(tuple(parameters))

    @staticmethod
    def _parameter(arg: ast.arg, default: ast.expr | None, keyword_only: bool) -> _Parameter:
        value: tuple[Any, ...] = ()
        if default is not None:
            try:
                literal = ast.literal_eval(default)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
            else:
                if callrecord.is_literal(literal):
                    value = (literal,)
        return _Parameter(arg.arg, keyword_only, default is not None, value, arg.annotation)


def type_aliases(tree: ast.Module) -> dict[str, ast.expr]:
    """The module's type aliases by name (``SetLike = Union[AbstractSet[T], Sequence[T]]``): a parameter annotated
    ``SetLike[T]`` takes what the alias names, which no parser of annotations knows by that name."""
    aliases: dict[str, ast.expr] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name):
            name, value = statement.targets[0].id, statement.value
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                and statement.value is not None and ast.unparse(statement.annotation).endswith("TypeAlias"):
            name, value = statement.target.id, statement.value
        else:
            continue
        if isinstance(value, ast.Subscript) and isinstance(value.value, (ast.Name, ast.Attribute)) \
                or isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
            aliases[name] = value
    return aliases


def _unaliased(node: ast.FunctionDef, aliases: dict[str, ast.expr]) -> ast.FunctionDef:
    """A copy of ``node`` whose parameters' annotations name what the aliases stand for (``SetLike[T]`` is read as
    ``Union[AbstractSet[T], Sequence[T]]``; an alias of an alias too, a few deep)."""
    def resolved(annotation: ast.expr | None) -> ast.expr | None:
        for _ in range(4):
            base = annotation.value if isinstance(annotation, ast.Subscript) else annotation
            if not isinstance(base, ast.Name) or base.id not in aliases:
                break
            annotation = aliases[base.id]
        return annotation

    copy = ast.FunctionDef(**{field: getattr(node, field) for field in node._fields})
    arguments = ast.arguments(**{field: getattr(node.args, field) for field in node.args._fields})
    for field in ("posonlyargs", "args", "kwonlyargs"):
        setattr(arguments, field, [ast.arg(arg.arg, resolved(arg.annotation)) for arg in getattr(node.args, field)])
    if node.args.vararg is not None:
        arguments.vararg = ast.arg(node.args.vararg.arg, resolved(node.args.vararg.annotation))
    copy.args = arguments
    return copy


_TYPE_NAMES: dict[str, Any] = {
    "int": int, "float": float, "str": str, "bytes": bytes, "bool": bool, "None": type(None),
    "NoneType": type(None), "list": list, "dict": dict, "tuple": tuple, "set": set,
    "List": list, "Dict": dict, "Tuple": tuple, "Set": set, "Sequence": list, "MutableSequence": list,
    "Iterable": list, "Collection": list, "Mapping": dict, "MutableMapping": dict, "AbstractSet": set,
    "date": datetime.date, "time": datetime.time, "timedelta": datetime.timedelta, "Decimal": decimal.Decimal,
    "Fraction": fractions.Fraction,
}


def _resolve(node: ast.expr | None) -> Any:
    """A builtin/typing type for an annotation made only of literal-friendly names, else None.

    Annotations are read from the source, never evaluated: only the names above count.
    """
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        if node.value is None:
            return type(None)
        if isinstance(node.value, str):
            try:
                return _resolve(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                return None
        return None
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = node.id if isinstance(node, ast.Name) else node.attr
        return _TYPE_NAMES.get(name)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _resolve(node.left), _resolve(node.right)
        return None if left is None or right is None else _union((left, right))
    if isinstance(node, ast.Subscript):
        base = node.value.id if isinstance(node.value, ast.Name) else (
            node.value.attr if isinstance(node.value, ast.Attribute) else None)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base in ("Optional", "Union"):
            members = [_resolve(item) for item in items]
            if any(member is None for member in members):
                return None
            if base == "Optional":
                members.append(type(None))
            return _union(tuple(members))
        origin = _TYPE_NAMES.get(base or "")
        if origin not in (list, dict, tuple, set):
            return None
        if origin is tuple and len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is ...:
            element = _resolve(items[0])
            return None if element is None else tuple[element, ...]
        members = [_resolve(item) for item in items]
        if any(member is None for member in members):
            return None
        return origin[tuple(members)] if len(members) > 1 else origin[members[0]]
    return None


def _union(members: tuple[Any, ...]) -> Any:
    import typing

    return typing.Union[members]  # noqa: UP007


class _Pools:
    """Scalars seen in samples and defaults, by exact type; ints with their neighbours."""

    LIMIT = 40

    def __init__(self, values: Sequence[Any]) -> None:
        self.by_type: dict[type, list[Any]] = {}
        for value in values:
            self._walk(value)
        ints = self.by_type.get(int, [])
        widened = list(dict.fromkeys(v + d for v in ints for d in (0, -1, 1)))
        if ints:
            self.by_type[int] = sorted(widened, key=lambda v: (abs(v), v))[: self.LIMIT]

    def _walk(self, value: Any) -> None:
        kind = type(value)
        if kind in (list, tuple, set):
            for item in value:
                self._walk(item)
        elif kind is dict:
            for key, item in value.items():
                self._walk(key)
                self._walk(item)
        elif kind is not bool and kind is not type(None):
            pool = self.by_type.setdefault(kind, [])
            if value not in pool and len(pool) < self.LIMIT:
                pool.append(value)

    def scalar(self, kind: type, base: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        seen = self.by_type.get(kind)
        return st.one_of(st.sampled_from(seen), base) if seen else base


#: Argument kinds beyond literals (``callrecord.argument_repr``): inputs of the same kind as the tests gave.
_BUILT_KINDS = (datetime.date, datetime.datetime, datetime.time, datetime.timedelta, decimal.Decimal,
                fractions.Fraction)


def _built_strategy(value: Any) -> st.SearchStrategy[Any]:
    """Dates, datetimes (in the seen value's time zone), times, durations, Decimals (with its places) and
    fractions."""
    if type(value) is datetime.datetime:
        return st.datetimes(timezones=st.just(value.tzinfo)) if value.tzinfo is not None else st.datetimes()
    if type(value) is decimal.Decimal:
        exponent = value.as_tuple().exponent
        places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        return st.decimals(allow_nan=False, allow_infinity=False, places=places)
    return {datetime.date: st.dates, datetime.time: st.times, datetime.timedelta: st.timedeltas,
            fractions.Fraction: st.fractions}[type(value)]()


def _shape(value: Any, pools: _Pools, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values shaped like ``value`` (same types, nearby sizes), seeded with the seen scalars."""
    kind = type(value)
    if kind is bool:
        return st.booleans()
    if kind is int:
        return pools.scalar(int, st.integers())
    if kind is float:
        return pools.scalar(float, st.floats(allow_nan=False, allow_infinity=False))
    if kind is str:
        return pools.scalar(str, st.text(max_size=10))
    if kind is bytes:
        return pools.scalar(bytes, st.binary(max_size=10))
    if kind in _BUILT_KINDS:
        return pools.scalar(kind, _built_strategy(value))
    if value is None:
        return st.none()
    if depth > 3:
        return st.none()
    if kind in (list, set):
        elements = _elements(list(value), pools, depth, hashable=kind is set)
        size = max(8, len(value) + 2)
        if kind is set:
            return st.sets(elements, max_size=size)
        return st.lists(elements, max_size=size)
    if kind is tuple:
        if 0 < len(value) <= 6:
            return st.tuples(*(_shape(item, pools, depth + 1) for item in value))
        return st.lists(_elements(list(value), pools, depth), max_size=len(value) + 2).map(tuple)
    if kind is dict:
        keys = _elements(list(value), pools, depth, hashable=True)
        values = _elements(list(value.values()), pools, depth)
        return st.dictionaries(keys, values, max_size=max(6, len(value) + 1))
    return st.none()


def _signature_of_type(value: Any) -> str:
    kind = type(value)
    if kind in (list, tuple, set):
        return f"{kind.__name__}[{','.join(sorted({_signature_of_type(v) for v in value}))}]"
    if kind is dict:
        pairs = {f"{_signature_of_type(k)}:{_signature_of_type(v)}" for k, v in value.items()}
        return f"dict[{','.join(sorted(pairs))}]"
    return kind.__name__


def _elements(values: Sequence[Any], pools: _Pools, depth: int, hashable: bool = False) -> st.SearchStrategy[Any]:
    shapes: dict[str, Any] = {}
    for value in values:
        if hashable and type(value) in (list, dict, set):
            continue
        shapes.setdefault(_signature_of_type(value), value)
    if not shapes:
        return pools.scalar(int, st.integers(-10, 10))
    return st.one_of([_shape(value, pools, depth + 1) for value in list(shapes.values())[:4]])


def _generic(pools: _Pools) -> st.SearchStrategy[Any]:
    small_int = pools.scalar(int, st.integers(-10, 100))
    return st.one_of(small_int, st.text(max_size=5), st.lists(small_int, max_size=6), st.none(), st.booleans())


def _parameter_strategy(parameter: _Parameter, seen: Sequence[Any], pools: _Pools) -> st.SearchStrategy[Any]:
    literals = list(seen) + list(parameter.default)
    options: list[st.SearchStrategy[Any]] = []
    unique: list[Any] = []
    for value in literals:
        if not any(type(value) is type(u) and value == u for u in unique):
            unique.append(value)
    if unique:
        options.append(st.sampled_from(unique))
    annotated = _resolve(parameter.annotation)
    if annotated is not None:
        try:
            options.append(st.from_type(annotated).filter(lambda v: callrecord.argument_repr(v) is not None))
        except Exception:  # noqa: BLE001 - an annotation Hypothesis cannot build: use the samples
            pass
    shapes: dict[str, Any] = {}
    for value in unique:
        shapes.setdefault(_signature_of_type(value), value)
    options += [_shape(value, pools) for value in shapes.values()]
    if not options:
        options.append(_generic(pools))
    return st.one_of(options)


def _search(signature: _Signature, samples: Sequence[CallSample], comparer: _Comparer,
            budget: int) -> Distinction | None:
    """Hypothesis over the signature; the first difference found is shrunk, then returned."""
    positional = [p for p in signature.parameters if not p.keyword_only]
    keyword = [p for p in signature.parameters if p.keyword_only]
    seen_at: dict[str, list[Any]] = {p.name: [] for p in signature.parameters}
    everything: list[Any] = []
    for sample in samples:
        args, kwargs = sample.args, sample.kwargs
        everything += [*args, *kwargs.values()]
        for parameter, value in zip(positional, args):
            seen_at[parameter.name].append(value)
        for name, value in kwargs.items():
            if name in seen_at:
                seen_at[name].append(value)
    for parameter in signature.parameters:
        everything += list(parameter.default)
    pools = _Pools(everything)
    strategies = {p.name: _parameter_strategy(p, seen_at[p.name], pools) for p in signature.parameters}
    required = sum(1 for p in positional if not p.has_default)
    optional = len(positional) - required

    def positional_args(count: int) -> st.SearchStrategy[tuple[Any, ...]]:
        return st.tuples(*(strategies[p.name] for p in positional[:count]))

    args_strategy = st.integers(0, optional).flatmap(lambda extra: positional_args(required + extra))
    kwargs_strategy = st.fixed_dictionaries(
        {p.name: strategies[p.name] for p in keyword if not p.has_default},
        optional={p.name: strategies[p.name] for p in keyword if p.has_default},
    )

    hypothesis = _hypothesis()

    @hypothesis.settings(max_examples=budget, derandomize=True, database=None, deadline=None,
                         suppress_health_check=list(hypothesis.HealthCheck),
                         phases=(hypothesis.Phase.generate, hypothesis.Phase.shrink),
                         verbosity=hypothesis.Verbosity.quiet, report_multiple_bugs=False)
    @hypothesis.given(args_strategy, kwargs_strategy)
    def search(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        args_repr = [callrecord.argument_repr(value) for value in args]
        kwargs_repr = {name: callrecord.argument_repr(value) for name, value in kwargs.items()}
        if None in args_repr or None in kwargs_repr.values():
            return
        found = comparer.check(args_repr, kwargs_repr, "search")  # type: ignore[arg-type]
        if found is not None:
            raise _Found(found)

    try:
        search()
    except _Found as found:
        return found.distinction
    except Exception:  # noqa: BLE001 - Hypothesis' own failures (flaky driver) mean no input
        return None
    return None
