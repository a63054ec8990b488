"""deleted-test: Base tests no Head test continues, and parametrized rows removed at Head.

A parametrized test is compared row by row, and each removed row is named by its pytest id, read
statically the way pytest makes it (literals, ``__name__``, ``argname`` + index, ``ids``,
``pytest.param(id=...)``, duplicates told apart). A row edited in exactly one value is judged here
too, as a ``loosened-assertion`` unless the test calls repaired code. The skipped-test detector
reads a test's parametrized rows through this module.
"""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import BuiltinFunctionType

import libcst as cst

from elenchus.analysis.weakening.change import _TestOwners
from elenchus.analysis.weakening.evidence import Evidence, EvidenceKind
from elenchus.analysis.weakening.source import _MODULE, _Pair, _Row, _Source
from elenchus.analysis.weakening.syntax import _NO_VALUE, _dotted, _last, _literal, _names_called, _one_line, _snippet


# --------------------------------------------------------------------------- deleted-test


def _deleted_tests(pairs: Sequence[_Pair], owners: _TestOwners) -> Iterator[Evidence]:
    for pair in pairs:
        if pair.file.kind != "test" or pair.base is None:
            continue
        for name, node in pair.base.tests.items():
            if (pair.path, name) in owners.continued:
                continue
            how = "deleted with its file" if pair.head is None else "removed"
            still = pair.head is not None and name.split("::")[-1] in {
                q.rsplit(".", 1)[-1] for q in pair.head.functions}
            why = (" (a function of that name remains, but pytest no longer collects it as a test)"
                   if still else "")
            yield Evidence(EvidenceKind.DELETED_TEST, pair.path, pair.base.line(node.name), name,
                           pair.base.code(node), None,
                           f"the test {name} was {how}{why}, so the behaviour it checked is no longer "
                           f"tested.")


# --------------------------------------------------------------------------- deleted-test: parametrized rows


@dataclass(frozen=True, slots=True)
class _Parametrize:
    """One ``@pytest.mark.parametrize`` decorator of a test."""

    argnames: tuple[str, ...]
    decorator: cst.Decorator
    argvalues: cst.CSTNode  # the list as written (the module constant's value when it names one)
    rows: tuple[_Row, ...] | None  # None when the argument values are not a list or tuple display


_PARAMETRIZE_ARGS = ("argnames", "argvalues", "indirect", "ids", "scope")
# pytest's translation of what ascii escaping leaves unprintable (``_pytest.compat``).
_NON_PRINTABLE = {i: f"\\x{i:02x}" for i in range(128) if i not in range(32, 127)} | {
    ord("\t"): "\\t", ord("\r"): "\\r", ord("\n"): "\\n"}


def _escaped(value: str | bytes) -> str:
    """A str or bytes id the way pytest writes it: ascii, with everything else escaped."""
    text = (value.decode("ascii", "backslashreplace") if isinstance(value, bytes)
            else value.encode("unicode_escape").decode("ascii"))
    return text.translate(_NON_PRINTABLE)


def _id_of_value(value: object) -> str | None:
    """pytest's id for a value (``_idval_from_value``), for the literal types; None for the rest."""
    if isinstance(value, (str, bytes)):
        return _escaped(value)
    if value is None or isinstance(value, (bool, int, float, complex)):
        return str(value)
    return None


_GENERATED = object()  # a value whose id is ``argname`` + row index: it is not a literal and has no __name__


def _value_id(source: _Source, node: cst.CSTNode, depth: int = 0) -> object:
    """What pytest's id for a value written as ``node`` is, read statically.

    A str (the id), ``_GENERATED`` (pytest falls back to ``argname`` + row index: a container, an
    instance) or None (only a run could tell: an f-string, arithmetic, a function's result, an import).
    pytest names a value by its text when it is a literal, by ``__name__`` when it has one (a class, a
    function, a lambda), by ``str()`` for an enum member.
    """
    value = _folded(node)
    if isinstance(value, (str, bytes)) and len(value) > 100:  # pytest's default "short" strategy
        return _GENERATED
    if value is not _NO_VALUE:
        text = _id_of_value(value)
        return text if text is not None else _GENERATED
    if isinstance(node, cst.Lambda):
        return "<lambda>"
    if isinstance(node, cst.GeneratorExp):
        return "<genexpr>"
    if isinstance(node, (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp)):
        return _GENERATED
    if isinstance(node, cst.Name):
        name = node.value
        if name in source.functions or name in source.classes:
            return name
        assigned = _module_value(source, name)
        if assigned is not None:
            return _value_id(source, assigned, depth + 1) if depth < 5 else None
        builtin = getattr(builtins, name, None)
        if name not in _bound_by_imports(source) and isinstance(builtin, type | BuiltinFunctionType):
            return name  # int, str, ValueError, len
        return None
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value in source.classes \
            and _is_plain_enum(source.classes[node.value.value]):
        return f"{node.value.value}.{node.attr.value}"  # str() of a plain Enum member
    if isinstance(node, cst.Call):
        callee = _last(node.func)
        if callee in source.classes and not _is_plain_enum(source.classes[callee]) \
                or callee[:1].isupper() and callee not in source.classes:
            return _GENERATED  # an instance (a class is named in CapWords): it has no __name__
    return None


_FOLDED_OPERATORS = {cst.Add: lambda a, b: a + b, cst.Subtract: lambda a, b: a - b,
                     cst.Multiply: lambda a, b: a * b}


def _folded(node: cst.CSTNode) -> object:
    """The value of a literal or of ``+``, ``-``, ``*`` on literals (``'a' * 2``), which pytest names by that
    value; _NO_VALUE otherwise. A result that would be large is not built."""
    if not isinstance(node, cst.BinaryOperation):
        return _literal(node)
    operation = _FOLDED_OPERATORS.get(type(node.operator))
    left, right = _folded(node.left), _folded(node.right)
    scalar = (str, bytes, int, float)
    if operation is None or not isinstance(left, scalar) or not isinstance(right, scalar):
        return _NO_VALUE
    if isinstance(node.operator, cst.Multiply) and any(isinstance(side, (str, bytes)) for side in (left, right)) \
            and any(isinstance(side, int) and side > 10_000 for side in (left, right)):
        return _NO_VALUE
    try:
        return operation(left, right)
    except TypeError:
        return _NO_VALUE


def _is_plain_enum(cls: cst.ClassDef) -> bool:
    return any(_dotted(base.value) in ("Enum", "enum.Enum") for base in cls.bases)


def _bound_by_imports(source: _Source) -> set[str]:
    """The names a file's imports bind (``from x import len`` hides the builtin)."""
    names: set[str] = set()
    for site in source.of("import"):
        node = site.node
        if not isinstance(node, (cst.Import, cst.ImportFrom)) or isinstance(node.names, cst.ImportStar):
            continue
        for alias in node.names:
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                names.add(alias.asname.name.value)
            else:
                names.add((_dotted(alias.name) or "").split(".")[0])
    return names


def _default_id(source: _Source, node: cst.CSTNode, argname: str, index: int | None) -> str | None:
    """pytest's generated id for one value: its text, its name, or ``argname`` + row index; None if unknown."""
    found = _value_id(source, node)
    if found is _GENERATED:
        return f"{argname}{index}" if index is not None else None
    return found  # type: ignore[return-value]


def _unique_ids(ids: list[str | None]) -> list[str | None]:
    """Duplicates made unique the way pytest does it (``a``, ``a`` -> ``a0``, ``a1``; ``3`` -> ``3_0``).

    Ids not known statically (None) take part in no comparison and stay None.
    """
    counts = Counter(i for i in ids if i is not None)
    if all(count < 2 for count in counts.values()):
        return ids
    suffixes: Counter[str] = Counter()
    unique = list(ids)
    for index, text in enumerate(ids):
        if text is None or counts[text] < 2:
            continue
        separator = "_" if text and text[-1].isdigit() else ""
        candidate = f"{text}{separator}{suffixes[text]}"
        while candidate in set(unique):  # pytest checks against the ids as renamed so far
            suffixes[text] += 1
            candidate = f"{text}{separator}{suffixes[text]}"
        unique[index] = candidate
        suffixes[text] += 1
    return unique


def _arguments(call: cst.Call, names: Sequence[str]) -> dict[str, cst.BaseExpression]:
    """A call's arguments by parameter name (positional ones in ``names`` order); {} for ``*args``."""
    found: dict[str, cst.BaseExpression] = {}
    positional = 0
    for arg in call.args:
        if arg.star:
            return {}
        if arg.keyword is not None:
            found[arg.keyword.value] = arg.value
        elif positional < len(names):
            found[names[positional]] = arg.value
            positional += 1
    return found


def _argnames(node: cst.CSTNode | None) -> tuple[str, ...] | None:
    value = _literal(node)
    if isinstance(value, str):
        names = tuple(n.strip() for n in value.split(",") if n.strip())
    elif isinstance(value, tuple) and all(isinstance(n, str) for n in value):
        names = tuple(n.strip() for n in value)  # type: ignore[union-attr]
    else:
        return None
    return names or None


def _module_value(source: _Source, name: str) -> cst.CSTNode | None:
    """The value last assigned to a module-level name, or None."""
    value = None
    for site in source.of("assign"):
        node = site.node
        if site.owner == _MODULE and isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, cst.Assign) else [node]
            if any(isinstance(t.target, cst.Name) and t.target.value == name for t in targets):
                value = node.value
    return value


def _is_param(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and _dotted(node.func) in ("pytest.param", "param")


def _elements(source: _Source, node: cst.CSTNode, depth: int = 0) -> list[cst.BaseElement | None] | None:
    """The elements of an argument-values list as pytest sees them, or None when it is not a display.

    A starred part (``*BASE_CASES``) and a concatenation (``BASE + EXTRA``) of module-level displays are
    spelled out, so each row is counted where pytest counts it; a part of unknown length is one None.
    """
    if depth > 5:
        return None
    if isinstance(node, cst.Name):
        value = _module_value(source, node.value)
        return _elements(source, value, depth + 1) if value is not None else None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        left, right = _elements(source, node.left, depth + 1), _elements(source, node.right, depth + 1)
        return left + right if left is not None and right is not None else None
    if not isinstance(node, (cst.List, cst.Tuple)):
        return None
    found: list[cst.BaseElement | None] = []
    for element in node.elements:
        if isinstance(element, cst.StarredElement):
            inner = _elements(source, element.value, depth + 1)
            found += inner if inner is not None else [None]
        else:
            found.append(element)
    return found


def _rows(source: _Source, argnames: tuple[str, ...], elements: Sequence[cst.BaseElement | None],
          ids: cst.CSTNode | None) -> tuple[_Row, ...]:
    """The rows of an argument-values list, each with its pytest id (see ``_Row.id``).

    pytest's order: ``pytest.param(id=...)``, then the ``ids`` list entry that is not None, then the
    values' own ids joined by ``-``; auto ids count rows from 0 over the whole list.
    """
    id_list: list[object] | None = []  # None: ``ids`` is a function (or unreadable), called by pytest
    if ids is not None and not (isinstance(ids, cst.Name) and ids.value == "None"):
        listed = _elements(source, ids)
        id_list = None if listed is None or None in listed else [
            e.value if isinstance(e, cst.Element) else None for e in listed]
    found: list[tuple[cst.CSTNode, tuple, tuple[cst.CSTNode, ...] | None]] = []
    texts: list[str | None] = []
    index: int | None = 0
    for element in elements:
        if element is None:  # a starred part of unknown length: the rows after it have unknown indices
            index = None
            continue
        explicit: cst.CSTNode | None = None
        nodes: tuple[cst.CSTNode, ...] | None = None
        value = element.value
        if _is_param(value):
            assert isinstance(value, cst.Call)
            if not any(a.star for a in value.args):
                nodes = tuple(a.value for a in value.args if a.keyword is None)
            explicit = next((a.value for a in value.args if a.keyword is not None and a.keyword.value == "id"), None)
        elif len(argnames) == 1:
            nodes = (value,)
        elif isinstance(value, (cst.Tuple, cst.List)) and all(isinstance(e, cst.Element) for e in value.elements):
            nodes = tuple(e.value for e in value.elements)
        if nodes is not None and len(nodes) == len(argnames):
            shape = ("row", *(source.shape(n) for n in nodes))
        else:
            nodes, shape = None, ("row", "?", source.shape(element))
        texts.append(_row_id(source, argnames, nodes, explicit, id_list, index))
        found.append((element, shape, nodes))
        index = index + 1 if index is not None else None
    return tuple(_Row(node, shape, nodes, text, _one_line(source.code(node.value if isinstance(node, cst.Element)
                                                                        else node)))
                 for (node, shape, nodes), text in zip(found, _unique_ids(texts)))


def _row_id(source: _Source, argnames: tuple[str, ...], nodes: tuple[cst.CSTNode, ...] | None,
            explicit: cst.CSTNode | None, id_list: list[object] | None, index: int | None) -> str | None:
    """One row's id before duplicates are told apart; None when only a run could tell it."""
    if explicit is not None and not (isinstance(explicit, cst.Name) and explicit.value == "None"):
        value = _literal(explicit)
        return _escaped(value) if isinstance(value, str) else None
    if id_list is None or index is None and id_list:
        return None  # an ids function, or an ids list whose entry cannot be found
    entry = id_list[index] if index is not None and index < len(id_list) else None
    if entry is not None and not (isinstance(entry, cst.Name) and entry.value == "None"):
        value = _literal(entry)  # type: ignore[arg-type]
        return _id_of_value(value) if value is not _NO_VALUE else None
    if nodes is None:
        return None
    parts = [_default_id(source, n, a, index) for n, a in zip(nodes, argnames)]
    return None if None in parts else "-".join(parts)  # type: ignore[arg-type]


def _parametrizations(source: _Source, test: cst.FunctionDef) -> list[_Parametrize]:
    """The ``parametrize`` decorators of a test whose argument names can be read."""
    found = []
    for decorator in test.decorators:
        call = decorator.decorator
        if not isinstance(call, cst.Call):
            continue
        parts = (_dotted(call.func) or "").split(".")
        if parts[-1] != "parametrize" or (len(parts) > 1 and parts[-2] != "mark"):
            continue
        args = _arguments(call, _PARAMETRIZE_ARGS)
        argnames, values = _argnames(args.get("argnames")), args.get("argvalues")
        if argnames is None or values is None:
            continue
        elements = _elements(source, values)  # @parametrize("x", CASES) with CASES a module constant too
        if isinstance(values, cst.Name):
            values = _module_value(source, values.value) or values
        rows = _rows(source, argnames, elements, args.get("ids")) if elements is not None else None
        found.append(_Parametrize(argnames, decorator, values, rows))
    return found


def _row_shapes_in(source: _Source, node: cst.CSTNode) -> set[tuple]:
    """Row shapes of every list, tuple or set display in a node and of each of their elements."""
    found: set[tuple] = set()

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
                elements = [e.value for e in node.elements if isinstance(e, cst.Element)]
                found.add(("row", *(source.shape(e) for e in elements)))
                found.update(("row", source.shape(e)) for e in elements)
            return True

    node.visit(Finder())
    return found


def _listed(rows: Sequence[_Row]) -> str:
    named = [row.name for row in rows]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def _known_ids(rows: Iterable[_Row]) -> tuple[str, ...]:
    return tuple(row.id for row in rows if row.id is not None)


def _deleted_rows(pairs: Sequence[_Pair], owners: _TestOwners, repaired: frozenset[str]) -> Iterator[Evidence]:
    """Rows of a parametrized test that exist at Base and not at Head (``deleted-test``).

    Decorators are matched by their argument names. A row whose values changed
    in exactly one place (of two or more) is an *edited* row, judged like a
    changed expected value: a ``loosened-assertion`` unless the test calls
    repaired code. A decorator removed while the test stays removes its rows,
    except rows the Head test still spells out (a loop over the same list); a
    decorator whose argument names changed is a reshaped test and is left alone.
    """
    for pair in pairs:
        base, head = pair.base, pair.head
        if pair.file.kind != "test" or base is None or head is None:
            continue
        for name, head_test in head.tests.items():
            base_key = owners.head_to_base.get((pair.path, name))
            if base_key is None or base_key[0] != pair.path:
                continue
            base_test = base.tests[base_key[1]]
            before_all, after_all = _parametrizations(base, base_test), _parametrizations(head, head_test)
            after_by_names = {p.argnames: p for p in reversed(after_all)}
            reshaped = any(p.argnames not in {b.argnames for b in before_all} for p in after_all)
            honest = bool(_names_called(head_test.body) & repaired)
            for before in before_all:
                after = after_by_names.get(before.argnames)
                if before.rows is None or (after is None and reshaped):
                    continue
                if after is None:
                    kept = _row_shapes_in(head, head_test)
                    gone = [row for row in before.rows if row.shape not in kept]
                    if gone:
                        one = len(gone) == 1
                        yield Evidence(EvidenceKind.DELETED_TEST, pair.path, base.line(before.decorator), name,
                                       base.code(before.decorator), None,
                                       f"the parametrize decorator of {name} was removed, so its "
                                       f"{'row' if one else 'rows'} {_listed(gone)} no longer "
                                       f"{'runs' if one else 'run'} and the "
                                       f"{'case it' if one else 'cases they'} checked "
                                       f"{'is' if one else 'are'} no longer tested.",
                                       row_ids=_known_ids(gone))
                    continue
                if after.rows is None:
                    continue
                yield from _row_changes(pair, name, before, after, honest)


def _row_changes(pair: _Pair, test: str, before: _Parametrize, after: _Parametrize,
                 honest: bool) -> Iterator[Evidence]:
    base, head = pair.base, pair.head
    assert base is not None and head is not None and before.rows is not None and after.rows is not None
    gone = _removed_rows(before.rows, after.rows)
    new = _removed_rows(after.rows, before.rows)
    edits: list[tuple[_Row, _Row, int]] = []
    for row in list(gone):
        match = next(((other, place) for other in new if (place := _one_change(row, other)) is not None), None)
        if match is not None:
            gone.remove(row)
            new.remove(match[0])
            edits.append((row, *match))
    if gone:
        one = len(gone) == 1
        # (the rows removed, not the whole list before and after: a reader looks for what went)
        yield Evidence(EvidenceKind.DELETED_TEST, pair.path, base.line(gone[0].node), test,
                       "\n".join(base.code(row.node).strip().rstrip(",") for row in gone), None,
                       f"the parametrized {'row' if one else 'rows'} {_listed(gone)} of {test} "
                       f"{'was' if one else 'were'} removed, so the {'case it' if one else 'cases they'} "
                       f"checked {'is' if one else 'are'} no longer tested.", row_ids=_known_ids(gone))
    if honest:
        return
    for old, edited, place in edits:
        assert old.values is not None and edited.values is not None
        yield Evidence(EvidenceKind.LOOSENED_ASSERTION, pair.path, head.line(edited.node), test,
                       base.code(old.node), head.code(edited.node),
                       f"the parametrized row {old.name} of {test} was edited: "
                       f"`{_snippet(base.code(old.values[place]), 40)}` became "
                       f"`{_snippet(head.code(edited.values[place]), 40)}` while no code the test calls "
                       f"changed, so the row now agrees with the code instead of checking it.",
                       row_ids=_known_ids([old]))


def _removed_rows(base: Sequence[_Row], head: Sequence[_Row]) -> list[_Row]:
    """Base rows beyond the number of Head rows of the same shape, in Base order."""
    left = Counter(row.shape for row in head)
    removed = []
    for row in base:
        if left[row.shape] > 0:
            left[row.shape] -= 1
        else:
            removed.append(row)
    return removed


def _one_change(old: _Row, new: _Row) -> int | None:
    """The one value position in which two rows of two or more values differ, or None."""
    if old.values is None or new.values is None or len(old.values) != len(new.values) or len(old.values) < 2:
        return None
    different = [i for i, (a, b) in enumerate(zip(old.shape[1:], new.shape[1:])) if a != b]
    return different[0] if len(different) == 1 else None
