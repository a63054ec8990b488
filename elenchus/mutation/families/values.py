"""Families that get a value or a table wrong: a parameter default, a constant or a mapping
value drifting to its nearest plausible neighbour, and an entry dropped from a mapping, a
settings list or a rule table. They live together because they share the literal-drift helpers
(``_drifted_constant`` and the ones it uses).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import libcst as cst
from libcst.metadata import MetadataWrapper

from elenchus.mutation.families.base import (
    Example, Site, SourceView, _change, _cues, _in_dunder_assignment, _is_literal, _keep_parens,
    _separator_neighbour, _site, _with_text, _without_element,
)


class ChangedDefault:
    key = "changed-default"
    title = "wrong default"
    risk_weight = 2
    cues = _cues('=')
    examples = (
        Example(
            before="def page(items, size=10):\n    return items[:size]\n",
            after="def page(items, size=11):\n    return items[:size]\n",
            changed_intent="believes the default for `size` is `11`",
            incident="callers of `page` that omit `size` now get `11` instead of `10`: "
                     "`size=10` became `size=11`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for param in view.nodes(cst.Param):
            if param.default is None:
                continue
            parameters = view.parent(param)
            owner = view.parent(parameters) if parameters is not None else None
            if not isinstance(owner, cst.FunctionDef):
                continue
            new = _drifted_constant(param.default)
            if new is None:
                continue
            name, old_text, new_text = param.name.value, view.code(param.default), view.code(new)
            yield _site(
                self.key, param.default, new, param,
                f"believes the default for `{name}` is `{new_text}`",
                f"callers of `{view.qualname(owner)}` that omit `{name}` now get `{new_text}` instead "
                f"of `{old_text}`: `{name}={old_text}` became `{name}={new_text}`",
                f"a test that calls `{view.qualname(owner)}` without passing `{name}` and checks "
                f"the result",
            )


def _drifted_constant(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """The nearest plausibly-confused literal: 0<->1, n->n+1, x->x+1.0, -n->-(n+1),
    True<->False, ''<->'x'."""
    if isinstance(expr, cst.Integer) and int(expr.evaluated_value) in (0, 1):
        new: cst.BaseExpression | None = cst.Integer("1" if int(expr.evaluated_value) == 0 else "0")
    elif isinstance(expr, (cst.Integer, cst.Float)):
        new = _bumped(expr)
    elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        magnitude = _bumped(expr.expression)
        new = expr.with_changes(expression=magnitude) if magnitude is not None else None
    elif isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        new = cst.Name("False" if expr.value == "True" else "True")
    elif isinstance(expr, cst.SimpleString):
        new = _with_text(expr, "" if expr.raw_value else "x")
    else:
        new = None
    return _keep_parens(expr, new) if new is not None else None


def _bumped(number: cst.BaseExpression) -> cst.BaseExpression | None:
    """``number`` plus one, as a literal of its kind (`0xff` -> `0x100`, `2.5` -> `3.5`)."""
    if isinstance(number, cst.Integer):
        return number.with_changes(value=_integer_text(int(number.evaluated_value) + 1, number.value))
    if isinstance(number, cst.Float):
        bumped = float(number.evaluated_value) + 1.0
        if math.isinf(bumped):
            return None  # 1e999 spells infinity, which has no literal to drift to
        return number.with_changes(value=repr(bumped))
    return None


def _drifted_value(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """A drifted value in a mapping: a separator becomes its neighbour, other literals drift."""
    if isinstance(expr, cst.SimpleString):
        neighbour = _separator_neighbour(expr)
        if neighbour is not None:
            return neighbour
    return _drifted_constant(expr)


def _integer_text(value: int, like: str) -> str:
    """``value`` written in the base of the literal ``like`` (`0xff` drifts to `0x100`)."""
    base = like[:2].lower()
    if value >= 0 and base in ("0x", "0o", "0b"):
        return {"0x": hex, "0o": oct, "0b": bin}[base](value)
    return str(value)


def _is_negative(node: cst.CSTNode | None) -> bool:
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus)


class DroppedEntry:
    key = "dropped-entry"
    title = "entry missing from a mapping or list"
    risk_weight = 3
    cues = _cues(',')
    examples = (
        Example(
            before="MIME_TYPES = {'.svg': 'image/svg+xml', '.png': 'image/png'}\n",
            after="MIME_TYPES = {'.png': 'image/png'}\n",
            changed_intent="believes nothing needs the key `'.svg'`",
            incident="`MIME_TYPES` no longer maps `'.svg'`: the entry `'.svg': 'image/svg+xml'` "
                     "was removed",
        ),
        Example(
            before="class Upload:\n    ALLOWED = ('jpg', 'png', 'gif')\n",
            after="class Upload:\n    ALLOWED = ('jpg', 'gif')\n",
            changed_intent="believes `'png'` does not belong in `('jpg', 'png', 'gif')`",
            incident="`Upload.ALLOWED` no longer includes `'png'`: it was removed from "
                     "`('jpg', 'png', 'gif')`",
        ),
        Example(
            before="PLURALS = [\n    (r'(?i)(quiz)$', r'\\1zes'),\n    (r'$', 's'),\n]\n",
            after="PLURALS = [\n    (r'$', 's'),\n]\n",
            changed_intent="believes the row `(r'(?i)(quiz)$', r'\\1zes')` does not belong in `PLURALS`",
            incident="`PLURALS` no longer holds the row `(r'(?i)(quiz)$', r'\\1zes')`: it was removed from "
                     "`PLURALS`",
        ),
        Example(
            before="def to_json(user):\n    return {'id': user.id, 'name': user.name}\n",
            after="def to_json(user):\n    return {'id': user.id}\n",
            changed_intent="believes nothing needs the key `'name'`",
            incident="`to_json` no longer maps `'name'`: the entry `'name': user.name` was removed",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.all_nodes():
            if isinstance(node, cst.Dict) and len(node.elements) > 1:
                if _in_dunder_assignment(view, node):
                    continue
                for index in self._distinct(view, node):
                    entry = node.elements[index]
                    if isinstance(entry, cst.DictElement):
                        yield self._dict_site(view, node, index, entry)
            elif isinstance(node, (cst.List, cst.Tuple, cst.Set)) and self._is_setting(view, node):
                for index in self._distinct(view, node):
                    yield self._element_site(view, node, index, node.elements[index])

    @staticmethod
    def _distinct(view: SourceView, node: cst.Dict | cst.List | cst.Tuple | cst.Set) -> list[int]:
        """Elements to drop, skipping a repeat of the one before (dropping either is one program)."""
        texts = [view.code(e) for e in node.elements]
        return [i for i, text in enumerate(texts) if i == 0 or text != texts[i - 1]]

    def _dict_site(self, view: SourceView, node: cst.Dict, index: int, entry: cst.DictElement) -> Site:
        target, replacement = _without_element(node, index)
        key = view.code(entry.key)
        return _site(
            self.key, target, replacement, entry,
            f"believes nothing needs the key `{key}`",
            f"{view.who(node)} no longer maps `{key}`: the entry `{view.code(entry)}` was removed",
            f"a test that {view.exercise(node)} and needs the entry for `{key}`",
        )

    def _element_site(self, view: SourceView, node: cst.List | cst.Tuple | cst.Set, index: int,
                      element: cst.BaseElement) -> Site:
        target, replacement = _without_element(node, index)
        item, display = view.code(element.value), view.code(node)
        if isinstance(element.value, cst.Tuple):  # a row of a rule table: the table is named, not shown
            table = f"`{view.assigned_name(node)}`"
            return _site(
                self.key, target, replacement, element,
                f"believes the row `{item}` does not belong in {table}",
                f"{view.who(node)} no longer holds the row `{item}`: it was removed from {table}",
                f"a test that {view.exercise(node)} with a case only the row `{item}` handles",
            )
        return _site(
            self.key, target, replacement, element,
            f"believes `{item}` does not belong in `{display}`",
            f"{view.who(node)} no longer includes `{item}`: it was removed from `{display}`",
            f"a test that {view.exercise(node)} and relies on `{item}` being included",
        )

    @staticmethod
    def _is_setting(view: SourceView, node: cst.List | cst.Tuple | cst.Set) -> bool:
        """A module- or class-level list of plain values, like an allow-list or defaults: the
        value assigned (perhaps through `frozenset(...)`), or a value in such a mapping."""
        holder = view.parent(node)
        if isinstance(holder, cst.Arg):
            holder = view.parent(view.parent(holder))
        if not (isinstance(holder, (cst.Assign, cst.AnnAssign)) or (
                isinstance(holder, cst.DictElement) and holder.value is node)):
            return False
        if len(node.elements) < 2 or view.assigned_name(node) is None:
            return False
        plain = all(isinstance(e, cst.Element) and (
            _is_literal(e.value) or isinstance(e.value, (cst.Name, cst.Attribute)) or _is_row(e.value))
            for e in node.elements)
        return plain and not _in_dunder_assignment(view, node)


def _is_row(value: cst.BaseExpression) -> bool:
    """A row of a rule table: a tuple of literals, such as `(r"(?i)(quiz)$", r"\\1zes")`."""
    return isinstance(value, cst.Tuple) and len(value.elements) > 1 and all(
        isinstance(e, cst.Element) and _is_literal(e.value) for e in value.elements)


class ChangedEntryValue:
    key = "changed-entry-value"
    title = "wrong value in a mapping"
    risk_weight = 2
    cues = _cues('{')
    examples = (
        Example(
            before="TIMEOUTS = {'connect': 5, 'read': 30}\n",
            after="TIMEOUTS = {'connect': 6, 'read': 30}\n",
            changed_intent="believes `'connect'` should map to `6`, not `5`",
            incident="`TIMEOUTS` maps `'connect'` to `6` instead of `5`: `'connect': 5` became "
                     "`'connect': 6`",
        ),
        Example(
            before="def request_options(token):\n"
                   "    return {'headers': {'Authorization': token}, 'verify': True}\n",
            after="def request_options(token):\n"
                  "    return {'headers': {'Authorization': token}, 'verify': False}\n",
            changed_intent="believes `'verify'` should map to `False`, not `True`",
            incident="`request_options` maps `'verify'` to `False` instead of `True`: "
                     "`'verify': True` became `'verify': False`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for entry in view.nodes(cst.DictElement):
            new = _drifted_value(entry.value)
            if new is None or _in_dunder_assignment(view, entry):
                continue
            key, old_text, new_text = view.code(entry.key), view.code(entry.value), view.code(new)
            yield _site(
                self.key, entry.value, new, entry,
                f"believes `{key}` should map to `{new_text}`, not `{old_text}`",
                f"{view.who(entry)} maps `{key}` to `{new_text}` instead of `{old_text}`: "
                f"`{key}: {old_text}` became `{key}: {new_text}`",
                f"a test that {view.exercise(entry)} and depends on the value for `{key}`",
            )


class ConstantDrift:
    key = "constant-drift"
    title = "constant drift"
    risk_weight = 1
    cues = _cues('<digit>', "'", '"', 'True', 'False')
    examples = (
        Example(
            before="def count_words(text):\n    total = 0\n    for w in text.split():\n"
                   "        total += 1\n    return total\n",
            after="def count_words(text):\n    total = 1\n    for w in text.split():\n"
                  "        total += 1\n    return total\n",
            changed_intent="believes the value in `total = 0` is `1`, not `0`",
            incident="`count_words` works with `1` where `0` was meant: `total = 0` became `total = 1`",
        ),
        Example(
            before="def join(parts, sep=','):\n    return ''.join(parts)\n",
            after="def join(parts, sep=','):\n    return 'x'.join(parts)\n",
            changed_intent="believes the value in `''.join(parts)` is `'x'`, not `''`",
            incident="`join` works with `'x'` where `''` was meant: `''.join(parts)` became "
                     "`'x'.join(parts)`",
        ),
        Example(
            before="MAX_RETRIES = 5\nTIMEOUT = 2.5\n",
            after="MAX_RETRIES = 6\nTIMEOUT = 2.5\n",
            changed_intent="believes `MAX_RETRIES` should be `6`, not `5`",
            incident="`MAX_RETRIES` is now `6` instead of `5`: `MAX_RETRIES = 5` became "
                     "`MAX_RETRIES = 6`",
        ),
        Example(
            before="class Config:\n    retries: int = 3\n    timeout: float = 2.5\n",
            after="class Config:\n    retries: int = 3\n    timeout: float = 3.5\n",
            changed_intent="believes `Config.timeout` should be `3.5`, not `2.5`",
            incident="`Config.timeout` is now `3.5` instead of `2.5`: `timeout: float = 2.5` became "
                     "`timeout: float = 3.5`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.all_nodes():
            if not self._drifts(view, node):
                continue
            new = _drifted_constant(node)
            if new is None:
                continue
            old_text, new_text, change = view.code(node), view.code(new), _change(view, node, new)
            name = view.assigned_name(node)
            holder = view.parent(node)
            if name is not None and isinstance(holder, (cst.Assign, cst.AnnAssign)):
                yield _site(
                    self.key, node, new, node,
                    f"believes `{name}` should be `{new_text}`, not `{old_text}`",
                    f"`{name}` is now `{new_text}` instead of `{old_text}`: {change}",
                    f"a test whose expected result depends on `{name}` being `{old_text}`",
                )
                continue
            context = view.code(view.context(node))
            yield _site(
                self.key, node, new, node,
                f"believes the value in `{context}` is `{new_text}`, not `{old_text}`",
                f"{view.who(node)} works with `{new_text}` where `{old_text}` was meant: {change}",
                f"a test that {view.exercise(node)} and whose expected result depends on the "
                f"`{old_text}` in `{context}`",
            )

    def _drifts(self, view: SourceView, node: cst.CSTNode) -> bool:
        """Whether ``node`` is a literal this family drifts: numbers (`-5` as a whole, never
        its `5`), True/False and strings. Floats only outside functions, where they are
        settings rather than the terms of a formula."""
        if isinstance(node, (cst.Integer, cst.Float)) and _is_negative(view.parent(node)):
            return False
        number = node.expression if _is_negative(node) else node
        if isinstance(number, cst.Float) and view.in_function(node):
            return False
        literal = isinstance(number, (cst.Integer, cst.Float, cst.SimpleString)) or (
            isinstance(node, cst.Name) and node.value in ("True", "False"))
        if isinstance(number, cst.Integer) and self._same_as_boundary(view, node):
            return False
        return literal and not self._covered_elsewhere(view, node)

    #: Comparisons (whole number on the right) where moving it up or down by one is, on whole
    #: numbers, the same as boundary-inclusivity's mutant: `age >= 19` is `age > 18`.
    _BOUNDARY_SHIFTS = {1: (cst.GreaterThanEqual, cst.LessThan), -1: (cst.GreaterThan, cst.LessThanEqual)}
    _MIRRORED = {cst.GreaterThanEqual: cst.LessThanEqual, cst.LessThanEqual: cst.GreaterThanEqual,
                 cst.GreaterThan: cst.LessThan, cst.LessThan: cst.GreaterThan}

    def _same_as_boundary(self, view: SourceView, node: cst.CSTNode) -> bool:
        parent = view.parent(node)
        if isinstance(parent, cst.ComparisonTarget) and parent.comparator is node:
            operator = type(parent.operator)
        elif isinstance(parent, cst.Comparison) and parent.left is node:
            operator = self._MIRRORED.get(type(parent.comparisons[0].operator))
        else:
            return False
        # 1 drifts down to 0 and `-5` to `-6`; every other whole number drifts up.
        down = _is_negative(node) or (isinstance(node, cst.Integer) and node.evaluated_value == 1)
        return operator in self._BOUNDARY_SHIFTS[-1 if down else 1]

    @staticmethod
    def _covered_elsewhere(view: SourceView, node: cst.CSTNode) -> bool:
        """Skip spots another family owns (defaults, slice and range bounds, mapping values),
        keys, and dunder assignments like `__version__`."""
        parent = view.parent(node)
        if isinstance(parent, (cst.Param, cst.Slice, cst.ConcatenatedString)):
            return True
        if isinstance(parent, cst.DictElement):
            return parent.value is node or isinstance(node, cst.SimpleString)
        if isinstance(parent, cst.Arg):
            call = view.parent(parent)
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "range":
                return True
        if isinstance(node, cst.SimpleString) and isinstance(parent, cst.Index):
            return True
        return _in_dunder_assignment(view, node)
