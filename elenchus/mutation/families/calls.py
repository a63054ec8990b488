"""Families that misuse one call: arguments swapped, a normalization (strip, case, sort, abs)
left out, a conversion or normalizing call bypassed in favour of its argument, a step dropped
from a method chain, a defensive copy dropped, and a subclass built as its base class. They live
together because each edits a single call expression and tells its story in terms of the callee
and its argument.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from libcst.metadata import MetadataWrapper

from elenchus.mutation.families.base import (
    Example, Site, SourceView, _as_atom, _call_name, _change, _cues, _fit, _is_literal, _keep_parens,
    _positional, _site, _used_as_value, _verb,
)


class SwappedArguments:
    key = "swapped-arguments"
    title = "swapped arguments"
    risk_weight = 3
    cues = _cues('( ,')
    examples = (
        Example(
            before="def transfer(bank, alice, bob, amount):\n    bank.move(alice, bob, amount)\n",
            after="def transfer(bank, alice, bob, amount):\n    bank.move(bob, alice, amount)\n",
            changed_intent="believes `bank.move` takes `bob` before `alice`",
            incident="`transfer` calls `bank.move` with `alice` and `bob` in the wrong order: "
                     "`bank.move(alice, bob, amount)` became `bank.move(bob, alice, amount)`",
        ),
    )

    # Builtins whose arguments are symmetric or of different kinds: a swap is not a
    # plausible misunderstanding there.
    _SKIP = frozenset({"min", "max", "print", "isinstance", "issubclass", "getattr", "setattr",
                       "hasattr", "delattr", "super", "set", "frozenset", "dict", "hash", "id",
                       "type", "zip", "map", "filter", "cast", "range"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            if isinstance(call.func, cst.Name) and call.func.value in self._SKIP:
                continue
            args = _positional(call)
            callee = view.code(call.func)
            for i in range(min(len(args) - 1, 3)):
                first, second = args[i], args[i + 1]
                a, b = view.code(first.value), view.code(second.value)
                if a == b or _option_names(callee, first.value, second.value):
                    continue
                new_args = list(call.args)
                new_args[i] = first.with_changes(value=second.value)
                new_args[i + 1] = second.with_changes(value=first.value)
                new = call.with_changes(args=new_args)
                yield _site(
                    self.key, call, new, first,
                    f"believes `{callee}` takes `{b}` before `{a}`",
                    f"{view.who(call)} calls `{callee}` with `{a}` and `{b}` in the wrong order: "
                    f"`{view.code(call)}` became `{view.code(new)}`",
                    f"a test that {view.exercise(call)} with clearly different values for `{a}` "
                    f"and `{b}` and checks the outcome",
                )


def _option_names(callee: str, first: cst.BaseExpression, second: cst.BaseExpression) -> bool:
    """A short and a long name of one command-line option (``add_argument('-f', '--input-file')``): argparse
    names the option after its long name wherever it stands, so their order shows only in the help text."""
    if callee.rpartition(".")[2] not in ("add_argument", "add_option"):
        return False
    names = [e.evaluated_value for e in (first, second) if isinstance(e, cst.SimpleString)]
    return len(names) == 2 and all(isinstance(n, str) and n.startswith("-") for n in names) \
        and sorted(n.startswith("--") for n in names) == [False, True]


class MissingNormalization:
    key = "missing-normalization"
    title = "missing normalization (strip / case / sort / abs)"
    risk_weight = 2
    cues = _cues('strip', 'lstrip', 'rstrip', 'lower', 'upper', 'casefold', 'sorted', 'abs')
    examples = (
        Example(
            before="def same_email(a, b):\n    return a.strip().lower() == b.strip().lower()\n",
            after="def same_email(a, b):\n    return a.strip() == b.strip().lower()\n",
            changed_intent="believes `a.strip()` already arrives in a single letter case",
            incident="`same_email` becomes case-sensitive about `a.strip()`: "
                     "`a.strip().lower()` became `a.strip()`",
        ),
    )

    _STRIPS = frozenset({"strip", "lstrip", "rstrip"})
    _CASES = frozenset({"lower", "upper", "casefold"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value in self._STRIPS | self._CASES:
                if func.attr.value in self._CASES and call.args:
                    continue
                value = func.value
                kind = "strip" if func.attr.value in self._STRIPS else "case"
            elif (isinstance(func, cst.Name) and func.value in ("sorted", "abs")
                  and len(_positional(call)) == 1):
                value = call.args[0].value
                kind = func.value
            else:
                continue
            new = _keep_parens(call, _as_atom(value))
            subject, who = view.code(value), view.who(call)
            change = f"`{view.code(call)}` became `{view.code(new)}`"
            intent, incident, detection = {
                "strip": (f"believes `{subject}` never carries surrounding whitespace",
                          f"{who} keeps surrounding whitespace in `{subject}`: {change}",
                          f"with `{subject}` padded by whitespace"),
                "case": (f"believes `{subject}` already arrives in a single letter case",
                         f"{who} becomes case-sensitive about `{subject}`: {change}",
                         f"with `{subject}` in mixed case"),
                "sorted": (f"believes `{subject}` is already in order",
                           f"{who} uses `{subject}` in its original order instead of sorted: {change}",
                           f"with `{subject}` out of order"),
                "abs": (f"believes `{subject}` is never negative",
                        f"{who} lets a negative `{subject}` through unchanged: {change}",
                        f"with a negative `{subject}`"),
            }[kind]
            yield _site(self.key, call, new, call, intent, incident,
                        f"a test that {view.exercise(call)} {detection} and checks the result")


class BypassedCall:
    key = "bypassed-call"
    title = "call bypassed: its argument used as it is"
    risk_weight = 3
    examples = (
        Example(
            before="def parse_port(text):\n    return int(text)\n",
            after="def parse_port(text):\n    return text\n",
            changed_intent="believes `text` is already what `int(text)` makes of it",
            incident="`parse_port` returns `text` itself instead of converting it with `int(text)`: "
                     "`int(text)` became `text`",
        ),
        Example(
            before="def clamp(value, lo, hi):\n    return max(lo, min(value, hi))\n",
            after="def clamp(value, lo, hi):\n    return max(lo, value)\n",
            changed_intent="believes `value` is already what `min(value, hi)` makes of it",
            incident="`clamp` uses `value` itself instead of limiting it with `min(value, hi)`: "
                     "`max(lo, min(value, hi))` became `max(lo, value)`",
        ),
        Example(
            before="import os\n\nDATA_DIR = os.path.normpath(BASE_DIR + '/data')\n",
            after="import os\n\nDATA_DIR = BASE_DIR + '/data'\n",
            changed_intent="believes `BASE_DIR + '/data'` is already what "
                           "`os.path.normpath(BASE_DIR + '/data')` makes of it",
            incident="`DATA_DIR` holds `BASE_DIR + '/data'` itself instead of normalizing it with "
                     "`os.path.normpath(BASE_DIR + '/data')`: `DATA_DIR = os.path.normpath(BASE_DIR "
                     "+ '/data')` became `DATA_DIR = BASE_DIR + '/data'`",
        ),
    )

    _CONVERSIONS = ("int", "float", "str", "bytes", "bool", "complex", "tuple", "frozenset", "list",
                    "set", "dict", "Decimal", "Fraction", "Path", "PurePath")
    _NORMALIZERS = ("normpath", "abspath", "realpath", "normcase", "expanduser", "expandvars")
    _DOING = {
        **dict.fromkeys(_CONVERSIONS, "converting it with"),
        **dict.fromkeys(_NORMALIZERS, "normalizing it with"),
        "round": "rounding it with", "min": "limiting it with", "max": "limiting it with",
        "reversed": "reversing it with",
    }
    #: Reached through a module (`os.path.normpath`, `decimal.Decimal`); the rest are builtins.
    _QUALIFIED = frozenset({*_NORMALIZERS, "Decimal", "Fraction", "Path", "PurePath"})
    cues = tuple(frozenset({name}) for name in _DOING)

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            name = _call_name(call)
            if name not in self._DOING or not _used_as_value(view, call):
                continue
            if isinstance(call.func, cst.Attribute) and name not in self._QUALIFIED:
                continue
            for arg in self._bypassing_arguments(call, name):
                new = _fit(view, call, arg.value)
                subject, whole = view.code(arg.value), view.code(call)
                yield _site(
                    self.key, call, new, call,
                    f"believes `{subject}` is already what `{whole}` makes of it",
                    f"{view.who(call)} {_verb(view, call)} `{subject}` itself instead of "
                    f"{self._DOING[name]} `{whole}`: {_change(view, call, new)}",
                    f"a test that {view.exercise(call)} where `{subject}` and `{whole}` differ, and "
                    f"checks the result",
                )

    @staticmethod
    def _bypassing_arguments(call: cst.Call, name: str) -> list[cst.Arg]:
        """The arguments that could stand for the call: the subject, or any of min/max's."""
        if any(arg.star for arg in call.args):
            return []
        args = _positional(call)
        if name in ("min", "max"):
            args = args[:3] if len(args) >= 2 else []
        else:
            args = args[:1]
            if name in ("list", "dict", "set") and args and isinstance(
                    args[0].value, (cst.Name, cst.Attribute)):
                return []  # a copy of a named collection: dropped-copy tells that story
        return [a for a in args
                if not _is_literal(a.value) and not isinstance(a.value, (
                    cst.FormattedString, cst.ConcatenatedString, cst.GeneratorExp, cst.Lambda))]


class DroppedChainStep:
    key = "dropped-chain-step"
    title = "step dropped from a method chain"
    risk_weight = 3
    cues = _cues('( .')
    examples = (
        Example(
            before="def slug(title):\n    return title.replace(' ', '-').replace('/', '-')\n",
            after="def slug(title):\n    return title.replace('/', '-')\n",
            changed_intent="believes `.replace(' ', '-')` makes no difference to `title`",
            incident="`slug` no longer applies `.replace(' ', '-')` to `title`: "
                     "`title.replace(' ', '-').replace('/', '-')` became `title.replace('/', '-')`",
        ),
        Example(
            before="def recent(session, since):\n"
                   "    return session.query(Event).filter(Event.at > since).all()\n",
            after="def recent(session, since):\n    return session.query(Event).all()\n",
            changed_intent="believes `.filter(Event.at > since)` makes no difference to "
                           "`session.query(Event)`",
            incident="`recent` no longer applies `.filter(Event.at > since)` to "
                     "`session.query(Event)`: `session.query(Event).filter(Event.at > since).all()` "
                     "became `session.query(Event).all()`",
        ),
        Example(
            before="from datetime import datetime\n\n"
                   "STARTED = datetime.now().replace(microsecond=0)\n",
            after="from datetime import datetime\n\nSTARTED = datetime.now()\n",
            changed_intent="believes `.replace(microsecond=0)` makes no difference to "
                           "`datetime.now()`",
            incident="`STARTED` no longer applies `.replace(microsecond=0)` to `datetime.now()`: "
                     "`datetime.now().replace(microsecond=0)` became `datetime.now()`",
        ),
    )

    #: Methods that return a transformed copy of their receiver, so dropping one anywhere in a
    #: chain is plausible; other methods are dropped only from the middle of a chain.
    _TRANSFORMS = frozenset({"replace", "removeprefix", "removesuffix", "title", "capitalize",
                             "swapcase", "zfill", "expandtabs", "resolve", "absolute", "expanduser",
                             "astimezone", "normalize"})
    #: Steps whose loss another family describes: missing-normalization and dropped-copy.
    _OWNED = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "copy"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            func = call.func
            if not isinstance(func, cst.Attribute) or func.attr.value in self._OWNED:
                continue
            receiver, top = func.value, _chain_top(view, call)
            inner = _is_method_call(receiver) and top is not call  # `.filter()` in `q.filter().all()`
            if not (inner or (func.attr.value in self._TRANSFORMS and _used_as_value(view, top))):
                continue  # a last step like `.split()` changes what comes out, not how it is made
            new = _fit(view, call, receiver)
            step, subject = "." + view.code(call.with_changes(func=func.attr)), view.code(receiver)
            yield _site(
                self.key, call, new, func.attr,
                f"believes `{step}` makes no difference to `{subject}`",
                f"{view.who(call)} no longer applies `{step}` to `{subject}`: `{view.code(top)}` "
                f"became `{view.swapped_code(top, call, new)}`",
                f"a test that {view.exercise(call)} where `{step}` changes `{subject}`, and checks "
                f"the result",
            )


def _is_method_call(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)


def _chain_top(view: SourceView, call: cst.Call) -> cst.Call:
    """The last call of the method chain ``call`` belongs to (`a.b().c()` for `a.b()`)."""
    top = call
    while True:
        attribute = view.parent(top)
        outer = view.parent(attribute) if isinstance(attribute, cst.Attribute) else None
        if not (isinstance(outer, cst.Call) and outer.func is attribute):
            return top
        top = outer


class DroppedCopy:
    key = "dropped-copy"
    title = "defensive copy dropped"
    risk_weight = 4
    cues = _cues(': [', 'copy', 'deepcopy', 'list', 'dict', 'set')
    examples = (
        Example(
            before="class Cart:\n    def items(self):\n        return self._items[:]\n",
            after="class Cart:\n    def items(self):\n        return self._items\n",
            changed_intent="believes nobody changes `self._items` or its copy `self._items[:]` "
                           "afterwards",
            incident="`Cart.items` returns `self._items` itself instead of a copy, so a change to "
                     "one shows up in the other: `self._items[:]` became `self._items`",
        ),
        Example(
            before="def settings(overrides):\n    merged = dict(DEFAULTS)\n"
                   "    merged.update(overrides)\n    return merged\n",
            after="def settings(overrides):\n    merged = DEFAULTS\n"
                  "    merged.update(overrides)\n    return merged\n",
            changed_intent="believes nobody changes `DEFAULTS` or its copy `dict(DEFAULTS)` afterwards",
            incident="`settings` uses `DEFAULTS` itself instead of a copy, so a change to one shows "
                     "up in the other: `merged = dict(DEFAULTS)` became `merged = DEFAULTS`",
        ),
        Example(
            before="import copy\n\nSTATE = copy.deepcopy(INITIAL_STATE)\n",
            after="import copy\n\nSTATE = INITIAL_STATE\n",
            changed_intent="believes nobody changes `INITIAL_STATE` or its copy "
                           "`copy.deepcopy(INITIAL_STATE)` afterwards",
            incident="`STATE` holds `INITIAL_STATE` itself instead of a copy, so a change to one "
                     "shows up in the other: `STATE = copy.deepcopy(INITIAL_STATE)` became "
                     "`STATE = INITIAL_STATE`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.all_nodes():
            if not isinstance(node, (cst.Subscript, cst.Call)) or not self._kept(view, node):
                continue
            original = self._copied(node)
            if original is None:
                continue
            new = _fit(view, node, original)
            subject, copied, name = view.code(original), view.code(node), view.assigned_name(node)
            yield _site(
                self.key, node, new, node,
                f"believes nobody changes `{subject}` or its copy `{copied}` afterwards",
                f"{view.who(node)} {_verb(view, node)} `{subject}` itself instead of a copy, so a "
                f"change to one shows up in the other: {_change(view, node, new)}",
                f"a test that {view.exercise(node)}, then changes `{subject}` or "
                f"{f'`{name}`' if name else 'the result'}, and checks that the other is unaffected",
            )

    @staticmethod
    def _kept(view: SourceView, node: cst.BaseExpression) -> bool:
        """Whether the copy is stored, returned or looped over (not an operand like `set(a) & b`)."""
        holder = view.parent(node)
        if isinstance(holder, (cst.Assign, cst.AnnAssign, cst.Return, cst.Yield)):
            return holder.value is node
        return isinstance(holder, cst.For) and holder.iter is node

    @staticmethod
    def _copied(node: cst.Subscript | cst.Call) -> cst.BaseExpression | None:
        """What ``node`` copies: `xs` in `xs[:]`, `xs.copy()`, `list(xs)`, `copy.copy(xs)`."""
        if isinstance(node, cst.Subscript):
            piece = node.slice[0].slice if len(node.slice) == 1 else None
            whole = isinstance(piece, cst.Slice) and piece.lower is piece.upper is piece.step is None
            return node.value if whole else None
        func, args = node.func, node.args
        if isinstance(func, cst.Attribute) and func.attr.value == "copy" and not args:
            return func.value
        if len(args) != 1 or args[0].keyword is not None or args[0].star:
            return None
        value = args[0].value
        if isinstance(func, cst.Name) and func.value in ("list", "dict", "set"):
            return value if isinstance(value, (cst.Name, cst.Attribute)) else None
        module_copy = (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                       and func.value.value == "copy")
        if _call_name(node) in ("copy", "deepcopy") and (module_copy or isinstance(func, cst.Name)):
            return value
        return None


class BaseClassInstance:
    key = "base-class-instance"
    title = "subclass gets a base-class instance"
    risk_weight = 3
    cues = _cues('(')
    examples = (
        Example(
            before="class Money:\n    def __add__(self, other):\n"
                   "        return type(self)(self.cents + other.cents)\n",
            after="class Money:\n    def __add__(self, other):\n"
                  "        return Money(self.cents + other.cents)\n",
            changed_intent="believes `Money.__add__` only ever runs on `Money` itself, never on a "
                           "subclass",
            incident="subclasses of `Money` get a plain `Money` back from `Money.__add__`: "
                     "`type(self)(self.cents + other.cents)` became `Money(self.cents + other.cents)`",
        ),
        Example(
            before="class Config:\n    @classmethod\n    def from_dict(cls, data):\n"
                   "        return cls(**data)\n",
            after="class Config:\n    @classmethod\n    def from_dict(cls, data):\n"
                  "        return Config(**data)\n",
            changed_intent="believes `Config.from_dict` only ever runs on `Config` itself, never on "
                           "a subclass",
            incident="subclasses of `Config` get a plain `Config` back from `Config.from_dict`: "
                     "`cls(**data)` became `Config(**data)`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            method = view.function(call)
            if method is None or not self._own_class(call.func, method):
                continue
            owner = view.parent(view.parent(method))  # the class around the method's block
            if not isinstance(owner, cst.ClassDef):
                continue
            cls, qual = _class_path(view, owner), view.qualname(method)
            new = _keep_parens(call.func, cst.parse_expression(cls))
            yield _site(
                self.key, call.func, new, call,
                f"believes `{qual}` only ever runs on `{cls}` itself, never on a subclass",
                f"subclasses of `{cls}` get a plain `{cls}` back from `{qual}`: `{view.code(call)}` "
                f"became `{view.swapped_code(call, call.func, new)}`",
                f"a test that calls `{qual}` on a subclass of `{cls}` and checks that the result is "
                f"an instance of that subclass",
            )

    @staticmethod
    def _own_class(func: cst.BaseExpression, method: cst.FunctionDef) -> bool:
        """Whether ``func`` is `type(self)`, `self.__class__`, or `cls` in a classmethod."""
        params = [*method.params.posonly_params, *method.params.params]
        decorators = {d.decorator.value for d in method.decorators if isinstance(d.decorator, cst.Name)}
        if not params or "staticmethod" in decorators:
            return False
        first = params[0].name.value
        if "classmethod" in decorators:
            return isinstance(func, cst.Name) and func.value == first
        if isinstance(func, cst.Attribute):
            return (func.attr.value == "__class__" and isinstance(func.value, cst.Name)
                    and func.value.value == first)
        return (isinstance(func, cst.Call) and isinstance(func.func, cst.Name)
                and func.func.value == "type" and len(func.args) == 1
                and isinstance(func.args[0].value, cst.Name) and func.args[0].value.value == first)


def _class_path(view: SourceView, cls: cst.ClassDef) -> str:
    """How code inside ``cls`` names it: `Outer.Inner` up to the nearest function."""
    names = [cls.name.value]
    for a in view.ancestors(cls):
        if isinstance(a, cst.FunctionDef):
            break
        if isinstance(a, cst.ClassDef):
            names.insert(0, a.name.value)
    return ".".join(names)
