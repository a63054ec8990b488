"""Families that change which path the code takes or what a path does: a negated condition, a
dropped guard or early return, a swallowed exception, an over-broad `except`, a default value
returned in place of the real one, and a lost state update or side effect. They live together
because each misreads the control flow of a function: when it branches, fails, returns or acts.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from libcst.metadata import MetadataWrapper

from elenchus.mutation.families.base import (
    Example, Site, SourceView, _SPACE, _call_name, _cues, _drop_statement, _header_keyword, _is_literal,
    _keep_parens, _parenthesized, _site,
)


class NegatedCondition:
    key = "negated-condition"
    title = "negated condition"
    risk_weight = 3
    cues = _cues('if', 'elif', 'while')
    examples = (
        Example(
            before="def label(n):\n    if n % 2 == 0:\n        return 'even'\n    return 'odd'\n",
            after="def label(n):\n    if not (n % 2 == 0):\n        return 'even'\n    return 'odd'\n",
            changed_intent="reads the condition `n % 2 == 0` the wrong way round",
            incident="`label` takes the `if` branch when `n % 2 == 0` is false and skips it when it "
                     "is true: `if n % 2 == 0:` became `if not (n % 2 == 0):`",
        ),
        Example(
            before="def sign(x):\n    return 1 if x >= 0 else -1\n",
            after="def sign(x):\n    return 1 if not (x >= 0) else -1\n",
            changed_intent="reads the condition `x >= 0` the wrong way round",
            incident="`sign` picks `-1` when `x >= 0` holds and `1` when it does not: "
                     "`1 if x >= 0 else -1` became `1 if not (x >= 0) else -1`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in (n for n in view.all_nodes() if isinstance(n, (cst.If, cst.While, cst.IfExp))):
            test = node.test
            if not _room_before_test(node):
                continue  # `if(x):` has no room for `not`
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                new: cst.BaseExpression = _keep_parens(test, test.expression)
                if not new.lpar and isinstance(new, (cst.BooleanOperation, cst.IfExp,
                                                     cst.Lambda, cst.NamedExpr)):
                    new = _parenthesized(new)
            else:
                inner = test if isinstance(test, (cst.Name, cst.Attribute, cst.Call,
                                                  cst.Subscript)) else _parenthesized(test)
                new = cst.UnaryOperation(operator=cst.Not(whitespace_after=_SPACE), expression=inner)
            cond, new_cond, who = view.code(test), view.code(new), view.who(node)
            intent = f"reads the condition `{cond}` the wrong way round"
            if isinstance(node, cst.If):
                kw = _header_keyword(view, node)
                incident = (f"{who} takes the `{kw}` branch when `{cond}` is false and skips it when "
                            f"it is true: `{kw} {cond}:` became `{kw} {new_cond}:`")
            elif isinstance(node, cst.While):
                incident = (f"{who} loops while `{cond}` is false instead of while it is true: "
                            f"`while {cond}:` became `while {new_cond}:`")
            else:
                incident = (f"{who} picks `{view.code(node.orelse)}` when `{cond}` holds and "
                            f"`{view.code(node.body)}` when it does not: `{view.code(node)}` became "
                            f"`{view.swapped_code(node, test, new)}`")
            yield _site(
                self.key, test, new, test, intent, incident,
                f"a test that {view.exercise(node)} once with `{cond}` true and once with it false "
                f"and checks both results",
            )


def _room_before_test(node: cst.If | cst.While | cst.IfExp) -> bool:
    space: cst.BaseParenthesizableWhitespace
    if isinstance(node, cst.If):
        space = node.whitespace_before_test
    elif isinstance(node, cst.While):
        space = node.whitespace_after_while
    else:
        space = node.whitespace_after_if
    return not isinstance(space, cst.SimpleWhitespace) or bool(space.value)


class DroppedGuard:
    key = "dropped-guard"
    title = "dropped guard or validation"
    risk_weight = 5
    cues = _cues('if raise', 'if return')
    examples = (
        Example(
            before=("def withdraw(balance, amount):\n"
                    "    # never overdraw\n"
                    "    if amount > balance:\n"
                    "        raise ValueError('insufficient funds')\n"
                    "    return balance - amount\n"),
            after=("def withdraw(balance, amount):\n"
                   "    # never overdraw\n"
                   "    return balance - amount\n"),
            changed_intent="assumes `amount > balance` can never happen, so its check is unnecessary",
            incident="`withdraw` no longer rejects the case `amount > balance`: the guard "
                     "`if amount > balance: raise ValueError` was removed",
        ),
        Example(
            before=("def ratio(part, whole):\n"
                    "    if whole == 0:\n"
                    "        return 0.0\n"
                    "    return part / whole\n"),
            after=("def ratio(part, whole):\n"
                   "    return part / whole\n"),
            changed_intent="assumes `whole == 0` needs no special handling",
            incident="`ratio` no longer handles the case `whole == 0` on its own: the early return "
                     "`if whole == 0: return 0.0` was removed",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.If):
            if node.orelse is not None or isinstance(view.parent(node), cst.If):
                continue  # an if/else or elif chain is a decision, not a guard
            raised = _raise_in(node.body)
            if raised is None:
                early = self._early_return(view, node)
                if early is not None:
                    yield early
                continue
            target, replacement = _drop_statement(view, node)
            cond, exc = view.code(node.test), _exception_name(view, raised)
            yield _site(
                self.key, target, replacement, node,
                f"assumes `{cond}` can never happen, so its check is unnecessary",
                f"{view.who(node)} no longer rejects the case `{cond}`: the guard "
                f"`if {cond}: raise {exc}` was removed",
                f"a test that {view.exercise(node)} with input where `{cond}` holds and expects "
                f"`{exc}` (`pytest.raises`)",
            )


    def _early_return(self, view: SourceView, node: cst.If) -> Site | None:
        """A guard clause that returns a special value before the general case: `if whole == 0: return 0.0`."""
        statements = node.body.body
        if len(statements) != 1 or not isinstance(statements[0], (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return None
        smalls = statements[0].body
        if len(smalls) != 1 or not isinstance(smalls[0], cst.Return) or smalls[0].value is None:
            return None
        block = view.parent(node)
        siblings = list(block.body) if isinstance(block, (cst.IndentedBlock, cst.Module)) else []
        if not siblings or siblings[-1] is node or view.function(node) is None:
            return None  # the general case must follow the guard, inside a function
        cond, value = view.code(node.test), view.code(smalls[0].value)
        target, replacement = _drop_statement(view, node)
        return _site(
            self.key, target, replacement, node,
            f"assumes `{cond}` needs no special handling",
            f"{view.who(node)} no longer handles the case `{cond}` on its own: the early return "
            f"`if {cond}: return {value}` was removed",
            f"a test that {view.exercise(node)} with input where `{cond}` holds and checks that it gives "
            f"`{value}`",
        )


def _raise_in(body: cst.BaseSuite) -> cst.Raise | None:
    statements = body.body
    for stmt in statements:
        smalls = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else (stmt,)
        for small in smalls:
            if isinstance(small, cst.Raise) and small.exc is not None:
                return small
    return None


def _exception_name(view: SourceView, raised: cst.Raise) -> str:
    exc = raised.exc
    if exc is None:
        return "the caught error"
    if isinstance(exc, cst.Call):
        return view.code(exc.func)
    return view.code(exc)


class SwallowedException:
    key = "swallowed-exception"
    title = "swallowed exception"
    risk_weight = 5
    cues = _cues('raise')
    examples = (
        Example(
            before=("def parse_port(text):\n"
                    "    port = int(text)\n"
                    "    if not 0 < port < 65536:\n"
                    "        raise ValueError(f'bad port {port}')\n"
                    "    return port\n"),
            after=("def parse_port(text):\n"
                   "    port = int(text)\n"
                   "    if not 0 < port < 65536:\n"
                   "        return None\n"
                   "    return port\n"),
            changed_intent="believes the failure `ValueError` is harmless and can be ignored",
            incident="`parse_port` hides the failure and returns `None` instead of raising "
                     "`ValueError`: `raise ValueError(...)` became `return None`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.Raise):
            who = view.who(node)
            if node.exc is None:
                new: cst.BaseSmallStatement = cst.Pass(semicolon=node.semicolon)
                yield _site(
                    self.key, node, new, node,
                    "believes the caught error is harmless and can be ignored",
                    f"{who} swallows the caught error instead of re-raising it: `raise` became `pass`",
                    f"a test that {view.exercise(node)} so that the handled error occurs and "
                    f"expects it to propagate (`pytest.raises`)",
                )
                continue
            exc = _exception_name(view, node)
            shown = f"raise {exc}(...)" if isinstance(node.exc, cst.Call) and node.exc.args else view.code(node)
            if view.function(node) is not None:
                new = cst.Return(value=cst.Name("None"), semicolon=node.semicolon)
                incident = (f"{who} hides the failure and returns `None` instead of raising `{exc}`: "
                            f"`{shown}` became `return None`")
            else:
                new = cst.Pass(semicolon=node.semicolon)
                incident = (f"{who} carries on as if nothing went wrong instead of raising `{exc}`: "
                            f"`{shown}` became `pass`")
            yield _site(
                self.key, node, new, node,
                f"believes the failure `{exc}` is harmless and can be ignored",
                incident,
                f"a test that {view.exercise(node)} with input that must fail and expects `{exc}` "
                f"(`pytest.raises`)",
            )


class BroadenedHandler:
    key = "broadened-handler"
    title = "over-broad exception handler"
    risk_weight = 4
    cues = _cues('except')
    examples = (
        Example(
            before=("def load(path):\n"
                    "    try:\n"
                    "        return open(path).read()\n"
                    "    except FileNotFoundError:\n"
                    "        return ''\n"),
            after=("def load(path):\n"
                   "    try:\n"
                   "        return open(path).read()\n"
                   "    except Exception:\n"
                   "        return ''\n"),
            changed_intent="believes any error raised here means `FileNotFoundError`",
            incident="`load` now also swallows unrelated errors as if they were `FileNotFoundError`, "
                     "hiding real failures: `except FileNotFoundError` became `except Exception`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.ExceptHandler):
            if node.type is None:
                continue
            if isinstance(node.type, cst.Name) and node.type.value in ("Exception", "BaseException"):
                continue
            new: cst.BaseExpression = cst.Name("Exception")
            if not node.whitespace_after_except.value:
                new = _keep_parens(node.type, new)
            caught = view.code(node.type)
            yield _site(
                self.key, node.type, new, node,
                f"believes any error raised here means `{caught}`",
                f"{view.who(node)} now also swallows unrelated errors as if they were `{caught}`, "
                f"hiding real failures: `except {caught}` became `except Exception`",
                f"a test where the `try` body in {view.who(node)} fails with an error other than "
                f"`{caught}` and expects it to propagate",
            )


class DefaultReturn:
    key = "default-return"
    title = "early or default return"
    risk_weight = 3
    cues = _cues('return')
    examples = (
        Example(
            before="def evens(xs):\n    return [x for x in xs if x % 2 == 0]\n",
            after="def evens(xs):\n    return []\n",
            changed_intent="treats `[]` as an acceptable answer in place of "
                           "`[x for x in xs if x % 2 == 0]`",
            incident="`evens` returns `[]` where callers expect `[x for x in xs if x % 2 == 0]`: "
                     "`return [x for x in xs if x % 2 == 0]` became `return []`",
        ),
        Example(
            before="def is_admin(user) -> bool:\n    return user.role == 'admin'\n",
            after="def is_admin(user) -> bool:\n    return False\n",
            changed_intent="treats `False` as an acceptable answer in place of `user.role == 'admin'`",
            incident="`is_admin` returns `False` where callers expect `user.role == 'admin'`: "
                     "`return user.role == 'admin'` became `return False`",
        ),
    )

    _BY_ANNOTATION = {
        "bool": "False", "int": "0", "float": "0.0", "str": '""', "bytes": 'b""',
        "list": "[]", "List": "[]", "Sequence": "[]", "Iterable": "[]",
        "dict": "{}", "Dict": "{}", "Mapping": "{}",
        "set": "set()", "Set": "set()", "frozenset": "frozenset()",
        "tuple": "()", "Tuple": "()",
    }
    _BY_CALL = {
        "len": "0", "sum": "0", "int": "0", "round": "0", "abs": "0", "count": "0",
        "float": "0.0", "str": '""', "join": '""', "format": '""', "strip": '""',
        "lower": '""', "upper": '""', "list": "[]", "sorted": "[]", "dict": "{}",
        "set": "set()", "tuple": "()", "isinstance": "False", "any": "False", "all": "False",
        "bool": "False", "hasattr": "False", "callable": "False", "startswith": "False",
        "endswith": "False",
    }

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.Return):
            value = node.value
            if value is None or _is_literal(value):
                continue
            default = self._default(view, node, value)
            if default == view.code(value):
                continue
            new = _keep_parens(value, cst.parse_expression(default))
            expr, who = view.code(value), view.who(node)
            yield _site(
                self.key, value, new, node,
                f"treats `{default}` as an acceptable answer in place of `{expr}`",
                f"{who} returns `{default}` where callers expect `{expr}`: "
                f"`return {expr}` became `return {default}`",
                f"a test that {view.exercise(node)} along this path and asserts on the returned value",
            )

    def _default(self, view: SourceView, node: cst.Return, value: cst.BaseExpression) -> str:
        function = view.function(node)
        if function is not None and function.returns is not None:
            annotation = function.returns.annotation
            if isinstance(annotation, cst.BinaryOperation) or view.code(annotation).startswith("Optional"):
                return "None"
            head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
            name = head.attr.value if isinstance(head, cst.Attribute) else getattr(head, "value", None)
            if isinstance(name, str) and name in self._BY_ANNOTATION:
                return self._BY_ANNOTATION[name]
        if isinstance(value, (cst.Comparison, cst.BooleanOperation)) or (
                isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not)):
            return "False"
        if isinstance(value, (cst.List, cst.ListComp)):
            return "[]"
        if isinstance(value, (cst.Dict, cst.DictComp)):
            return "{}"
        if isinstance(value, (cst.Set, cst.SetComp)):
            return "set()"
        if isinstance(value, cst.Tuple):
            return "()"
        if isinstance(value, (cst.FormattedString, cst.ConcatenatedString)):
            return '""'
        if isinstance(value, cst.Call):
            name = _call_name(value)
            if name in self._BY_CALL:
                return self._BY_CALL[name]
        return "None"


class LostSideEffect:
    key = "lost-side-effect"
    title = "lost state update or side effect"
    risk_weight = 4
    cues = _cues('.', '[', '<augmented>')
    examples = (
        Example(
            before=("class Stack:\n"
                    "    def push(self, item):\n"
                    "        self.items.append(item)\n"
                    "        self.size += 1\n"),
            after=("class Stack:\n"
                   "    def push(self, item):\n"
                   "        self.items.append(item)\n"),
            changed_intent="believes `self.size += 1` is already taken care of elsewhere",
            incident="`Stack.push` never updates `self.size`: `self.size += 1` was dropped",
        ),
        Example(
            before="def register(registry, name):\n    registry.add(name)\n",
            after="def register(registry, name):\n    pass\n",
            changed_intent="believes `registry.add(name)` is already taken care of elsewhere",
            incident="`register` never adds to `registry`: `registry.add(name)` was dropped",
        ),
    )

    _ADDS = frozenset({"append", "extend", "add", "insert", "appendleft", "update", "setdefault",
                       "push", "put", "put_nowait"})
    _REMOVES = frozenset({"remove", "discard", "pop", "popleft", "clear", "delete", "unlink"})
    _PERSISTS = frozenset({"save", "commit", "write", "writelines", "flush", "send", "sendall",
                           "emit", "publish", "notify", "store", "persist", "set", "register",
                           "release", "acquire", "close", "bulk_create", "create", "execute"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in (n for n in view.all_nodes()
                     if isinstance(n, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Del))):
            found = self._describe(view, node)
            if found is None:
                continue
            incident_head, subject_text = found
            stmt = view.code(node)
            target, replacement = _drop_statement(view, node)
            yield _site(
                self.key, target, replacement, node,
                f"believes `{stmt}` is already taken care of elsewhere",
                f"{view.who(node)} {incident_head}: `{stmt}` was dropped",
                f"a test that {view.exercise(node)} and then checks the observable state of "
                f"`{subject_text}`",
            )

    def _describe(self, view: SourceView, node: cst.CSTNode) -> tuple[str, str] | None:
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets if isinstance(t.target, (cst.Attribute, cst.Subscript))]
            if not targets:
                return None
            text = view.code(targets[0])
            return f"never updates `{text}`", text
        if isinstance(node, cst.AnnAssign):
            if node.value is None or not isinstance(node.target, (cst.Attribute, cst.Subscript)):
                return None
            text = view.code(node.target)
            return f"never updates `{text}`", text
        if isinstance(node, cst.AugAssign):
            text = view.code(node.target)
            return f"never updates `{text}`", text
        if isinstance(node, cst.Del):
            if not isinstance(node.target, (cst.Attribute, cst.Subscript)):
                return None
            text = view.code(node.target)
            base = view.code(node.target.value)
            return f"never removes `{text}` from `{base}`", base
        if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            func = node.value.func
            if not isinstance(func, cst.Attribute):
                return None
            receiver, method = view.code(func.value), func.attr.value
            if method in self._ADDS:
                return f"never adds to `{receiver}`", receiver
            if method in self._REMOVES:
                return f"never removes from `{receiver}`", receiver
            if method in self._PERSISTS:
                return (f"never calls `{receiver}.{method}(...)`, so the change it makes is lost",
                        receiver)
        return None
