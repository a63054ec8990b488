"""Families that misread a bound or a comparison: an inclusive bound made exclusive or the
reverse, a slice, `range` or loop off by one or skipping its first or last element, an `in`,
`is None` or `==` test read the wrong way round, and `and`/`or`, `any`/`all`, `min`/`max`
confused. They live together because they share the operator-swapping helpers
(``_rebuild_operator``, ``_SwapCompareFamily``, ``_RenameCallFamily``).
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from libcst.metadata import MetadataWrapper

from elenchus.mutation.families.base import (
    Example, Site, SourceView, _SPACE, _as_atom, _call_name, _comparison_parts, _cues, _positional,
    _shift, _site, _swap_comparison,
)


class BoundaryInclusivity:
    key = "boundary-inclusivity"
    title = "boundary inclusivity"
    risk_weight = 4
    cues = _cues('<', '>')
    examples = (
        Example(
            before="def admit(count, limit):\n    if count <= limit:\n        return 'in'\n    return 'full'\n",
            after="def admit(count, limit):\n    if count < limit:\n        return 'in'\n    return 'full'\n",
            changed_intent="treats `limit` as an exclusive bound for `count`",
            incident="`admit` now treats `count` equal to `limit` as if it were above `limit`: "
                     "`count <= limit` became `count < limit`",
        ),
        Example(
            before="def is_adult(age):\n    return age >= 18\n",
            after="def is_adult(age):\n    return age > 18\n",
            changed_intent="treats `18` as an exclusive bound for `age`",
            incident="`is_adult` now treats `age` equal to `18` as if it were below `18`: "
                     "`age >= 18` became `age > 18`",
        ),
    )

    # original operator -> (new operator, inclusive?, how equality is now treated)
    _SWAPS = {
        cst.LessThan: (cst.LessThanEqual, "inclusive", "below"),
        cst.LessThanEqual: (cst.LessThan, "exclusive", "above"),
        cst.GreaterThan: (cst.GreaterThanEqual, "inclusive", "above"),
        cst.GreaterThanEqual: (cst.GreaterThan, "exclusive", "below"),
    }

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for target in view.nodes(cst.ComparisonTarget):
            swap = self._SWAPS.get(type(target.operator))
            if swap is None:
                continue
            new_type, kind, side = swap
            op = target.operator
            new_op = _rebuild_operator(op, new_type)
            _, left, right = _comparison_parts(view, target)
            replacement, before, after = _swap_comparison(view, target, new_op)
            yield _site(
                self.key, op, replacement, target,
                f"treats `{right}` as an {kind} bound for `{left}`",
                f"{view.who(target)} now treats `{left}` equal to `{right}` as if it were {side} "
                f"`{right}`: `{before}` became `{after}`",
                f"a test that {view.exercise(target)} with `{left}` exactly equal to `{right}` "
                f"and checks the result",
            )


class OffByOne:
    key = "off-by-one"
    title = "off-by-one in ranges and slices"
    risk_weight = 4
    cues = _cues(': [', 'range')
    examples = (
        Example(
            before="def chunks(xs, size):\n    return [xs[i:i + size] for i in range(0, len(xs), size)]\n",
            after="def chunks(xs, size):\n    return [xs[i:i + size - 1] for i in range(0, len(xs), size)]\n",
            changed_intent="treats the end index `i + size` of `xs[i:i + size]` as inclusive",
            incident="`chunks` silently drops the last element of `xs[i:i + size]`: "
                     "`xs[i:i + size]` became `xs[i:i + size - 1]`",
        ),
        Example(
            before="def total(n):\n    s = 0\n    for i in range(1, n):\n        s += i\n    return s\n",
            after="def total(n):\n    s = 0\n    for i in range(1, n + 1):\n        s += i\n    return s\n",
            changed_intent="believes `range(1, n)` stops one step before `n`, so reaches for `n` itself",
            incident="`total` runs one extra iteration with the value `n`: "
                     "`range(1, n)` became `range(1, n + 1)`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.Slice):
            yield from self._slice_sites(view, node)
        for call in view.nodes(cst.Call):
            if isinstance(call.func, cst.Name) and call.func.value == "range":
                yield from self._range_sites(view, call)

    def _slice_sites(self, view: SourceView, node: cst.Slice) -> Iterator[Site]:
        element = view.parent(node)
        subscript = view.parent(element) if element is not None else None
        if not isinstance(subscript, cst.Subscript):
            return
        who, text = view.who(node), view.code(subscript)
        if node.upper is not None:
            upper = view.code(node.upper)
            for delta in (-1, 1):
                new = _shift(node.upper, delta)
                if new is None:
                    continue
                after = view.swapped_code(subscript, node.upper, new)
                if delta < 0:
                    yield _site(
                        self.key, node.upper, new, node.upper,
                        f"treats the end index `{upper}` of `{text}` as inclusive",
                        f"{who} silently drops the last element of `{text}`: `{text}` became `{after}`",
                        f"a test that {view.exercise(node)} and checks that the last element "
                        f"of `{text}` is kept",
                    )
                else:
                    yield _site(
                        self.key, node.upper, new, node.upper,
                        f"believes the end index `{upper}` of `{text}` stops one element short",
                        f"{who} takes one element too many in `{text}`: `{text}` became `{after}`",
                        f"a test that {view.exercise(node)} with more elements than `{text}` "
                        f"should keep and checks exactly which ones come out",
                    )
        if node.lower is not None:
            lower = view.code(node.lower)
            new = _shift(node.lower, 1)
            if new is not None:
                after = view.swapped_code(subscript, node.lower, new)
                yield _site(
                    self.key, node.lower, new, node.lower,
                    f"treats the start index `{lower}` of `{text}` as exclusive",
                    f"{who} silently skips the first element of `{text}`: `{text}` became `{after}`",
                    f"a test that {view.exercise(node)} and checks that the first element "
                    f"of `{text}` is kept",
                )

    @staticmethod
    def _forward_step(step: cst.BaseExpression) -> bool:
        if isinstance(step, cst.Integer):
            return int(step.evaluated_value) > 0
        return isinstance(step, (cst.Name, cst.Attribute))

    def _range_sites(self, view: SourceView, call: cst.Call) -> Iterator[Site]:
        args = _positional(call)
        if len(args) != len(call.args) or not 1 <= len(args) <= 3:
            return
        if len(args) == 3 and not self._forward_step(args[2].value):
            return  # a negative step reverses what "one more" means
        who, text = view.who(call), view.code(call)
        start = args[0].value if len(args) > 1 else None
        stop = args[1].value if len(args) > 1 else args[0].value
        stop_text = view.code(stop)
        minus = _shift(stop, -1)
        if minus is not None:
            yield _site(
                self.key, stop, minus, stop,
                f"believes `{text}` includes its stop `{stop_text}`",
                f"{who} stops one iteration early and never reaches the last value before "
                f"`{stop_text}`: `{text}` became `{view.swapped_code(call, stop, minus)}`",
                f"a test that {view.exercise(call)} and depends on the last value of `{text}`",
            )
        plus = _shift(stop, 1)
        if plus is not None:
            yield _site(
                self.key, stop, plus, stop,
                f"believes `{text}` stops one step before `{stop_text}`, so reaches for "
                f"`{stop_text}` itself",
                f"{who} runs one extra iteration with the value `{stop_text}`: "
                f"`{text}` became `{view.swapped_code(call, stop, plus)}`",
                f"a test that {view.exercise(call)} and checks that `{stop_text}` itself "
                f"is never processed",
            )
        if start is not None:
            start_text = view.code(start)
            later = _shift(start, 1)
            if later is not None:
                yield _site(
                    self.key, start, later, start,
                    f"believes `{text}` starts after `{start_text}`",
                    f"{who} skips the first iteration, the value `{start_text}`: "
                    f"`{text}` became `{view.swapped_code(call, start, later)}`",
                    f"a test that {view.exercise(call)} and depends on the value "
                    f"`{start_text}` being processed",
                )


class _SwapCompareFamily:
    """Shared shape of the families that flip one comparison operator."""

    key = ""
    _SWAPS: dict[type, type] = {}

    def _accept(self, target: cst.ComparisonTarget) -> bool:
        return True

    def _texts(self, who: str, left: str, right: str, before: str, after: str,
               original: cst.BaseCompOp) -> tuple[str, str]:
        raise NotImplementedError

    def _detection(self, exercise: str, left: str, right: str) -> str:
        raise NotImplementedError

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for target in view.nodes(cst.ComparisonTarget):
            new_type = self._SWAPS.get(type(target.operator))
            if new_type is None or not self._accept(target):
                continue
            new_op = _rebuild_operator(target.operator, new_type)
            _, left, right = _comparison_parts(view, target)
            replacement, before, after = _swap_comparison(view, target, new_op)
            intent, incident = self._texts(view.who(target), left, right, before, after, target.operator)
            yield _site(self.key, target.operator, replacement, target, intent, incident,
                        self._detection(view.exercise(target), left, right))


def _rebuild_operator(op: cst.BaseCompOp, new_type: type) -> cst.BaseCompOp:
    """``new_type`` with the spacing of ``op`` (two-word operators get a single space)."""
    before, after = op.whitespace_before, op.whitespace_after  # type: ignore[attr-defined]
    if new_type in (cst.NotIn, cst.IsNot):
        built = new_type(whitespace_before=before, whitespace_between=_SPACE, whitespace_after=after)
    else:
        built = new_type(whitespace_before=before, whitespace_after=after)
    assert isinstance(built, cst.BaseCompOp)
    return built


class MembershipInversion(_SwapCompareFamily):
    key = "membership-inversion"
    title = "membership confusion (in / not in)"
    risk_weight = 3
    cues = _cues('in')
    examples = (
        Example(
            before="def allowed(user, banned):\n    return user not in banned\n",
            after="def allowed(user, banned):\n    return user in banned\n",
            changed_intent="reads the membership test of `user` in `banned` the wrong way round",
            incident="`allowed` treats `user` as present in `banned` exactly when it is absent: "
                     "`user not in banned` became `user in banned`",
        ),
    )
    _SWAPS = {cst.In: cst.NotIn, cst.NotIn: cst.In}

    def _texts(self, who: str, left: str, right: str, before: str, after: str,
               original: cst.BaseCompOp) -> tuple[str, str]:
        if isinstance(original, cst.In):
            incident = f"{who} treats `{left}` as absent from `{right}` exactly when it is present"
        else:
            incident = f"{who} treats `{left}` as present in `{right}` exactly when it is absent"
        return (f"reads the membership test of `{left}` in `{right}` the wrong way round",
                f"{incident}: `{before}` became `{after}`")

    def _detection(self, exercise: str, left: str, right: str) -> str:
        return (f"a test that {exercise} once with `{left}` in `{right}` and once without, "
                f"and checks both results")


class NoneCheckInversion(_SwapCompareFamily):
    key = "none-check-inversion"
    title = "missing-value check confusion (is None / is not None)"
    risk_weight = 4
    cues = _cues('is')
    examples = (
        Example(
            before="def greet(name=None):\n    if name is None:\n        return 'hello'\n"
                   "    return 'hello ' + name\n",
            after="def greet(name=None):\n    if name is not None:\n        return 'hello'\n"
                  "    return 'hello ' + name\n",
            changed_intent="confuses the case where `name` is missing with the case where it is given",
            incident="`greet` handles a missing `name` as if it were given, and a given one as "
                     "missing: `name is None` became `name is not None`",
        ),
    )
    _SWAPS = {cst.Is: cst.IsNot, cst.IsNot: cst.Is}

    def _accept(self, target: cst.ComparisonTarget) -> bool:
        return isinstance(target.comparator, cst.Name) and target.comparator.value == "None"

    def _texts(self, who: str, left: str, right: str, before: str, after: str,
               original: cst.BaseCompOp) -> tuple[str, str]:
        return (f"confuses the case where `{left}` is missing with the case where it is given",
                f"{who} handles a missing `{left}` as if it were given, and a given one as missing: "
                f"`{before}` became `{after}`")

    def _detection(self, exercise: str, left: str, right: str) -> str:
        return f"a test that {exercise} once with `{left}` set to None and once with a real value"


class EqualityInversion(_SwapCompareFamily):
    key = "equality-inversion"
    title = "equality confusion (== / !=)"
    risk_weight = 3
    cues = _cues('=', '!')
    examples = (
        Example(
            before="def same_owner(a, b):\n    return a.owner == b.owner\n",
            after="def same_owner(a, b):\n    return a.owner != b.owner\n",
            changed_intent="reads the equality check between `a.owner` and `b.owner` the wrong way round",
            incident="`same_owner` takes the opposite decision on whether `a.owner` equals `b.owner`: "
                     "`a.owner == b.owner` became `a.owner != b.owner`",
        ),
    )
    _SWAPS = {cst.Equal: cst.NotEqual, cst.NotEqual: cst.Equal}

    def _texts(self, who: str, left: str, right: str, before: str, after: str,
               original: cst.BaseCompOp) -> tuple[str, str]:
        return (f"reads the equality check between `{left}` and `{right}` the wrong way round",
                f"{who} takes the opposite decision on whether `{left}` equals `{right}`: "
                f"`{before}` became `{after}`")

    def _detection(self, exercise: str, left: str, right: str) -> str:
        return (f"a test that {exercise} once with `{left}` equal to `{right}` and once with them "
                f"different, and checks both results")


class AndOrConfusion:
    key = "and-or-confusion"
    title = "and / or confusion"
    risk_weight = 3
    cues = _cues('and', 'or')
    examples = (
        Example(
            before="def can_edit(user, doc):\n    return user.active and doc.owner == user.id\n",
            after="def can_edit(user, doc):\n    return user.active or doc.owner == user.id\n",
            changed_intent="believes either `user.active` or `doc.owner == user.id` is enough",
            incident="`can_edit` accepts the case where only one of `user.active` and "
                     "`doc.owner == user.id` holds: `user.active and doc.owner == user.id` became "
                     "`user.active or doc.owner == user.id`",
        ),
    )

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.BooleanOperation):
            op = node.operator
            new_op = (cst.Or if isinstance(op, cst.And) else cst.And)(
                whitespace_before=op.whitespace_before, whitespace_after=op.whitespace_after)
            a, b, who = view.code(node.left), view.code(node.right), view.who(node)
            change = f"`{view.code(node)}` became `{view.swapped_code(node, op, new_op)}`"
            if isinstance(op, cst.And):
                intent = f"believes either `{a}` or `{b}` is enough"
                incident = f"{who} accepts the case where only one of `{a}` and `{b}` holds: {change}"
            else:
                intent = f"believes `{a}` and `{b}` must both hold"
                incident = f"{who} now requires both `{a}` and `{b}` where either was enough: {change}"
            yield _site(
                self.key, op, new_op, node, intent, incident,
                f"a test that {view.exercise(node)} with exactly one of `{a}` and `{b}` true "
                f"and checks the result",
            )


class _RenameCallFamily:
    """Shared shape of the families that swap a builtin for its opposite."""

    key = ""
    _SWAPS: dict[str, str] = {}

    def _texts(self, who: str, old: str, new: str, arg: str, change: str) -> tuple[str, str, str]:
        raise NotImplementedError

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for call in view.nodes(cst.Call):
            func = call.func
            if not isinstance(func, cst.Name) or func.value not in self._SWAPS or not call.args:
                continue
            new_func = func.with_changes(value=self._SWAPS[func.value])
            new_call = call.with_changes(func=new_func)
            arg = view.code(_as_atom(call.args[0].value)) if len(call.args) == 1 else ", ".join(
                view.code(a.value) for a in call.args)
            change = f"`{view.code(call)}` became `{view.code(new_call)}`"
            intent, incident, detection = self._texts(view.who(call), func.value, new_func.value,
                                                      arg, change)
            yield _site(self.key, func, new_func, call, intent, incident,
                        f"a test that {view.exercise(call)} {detection}")


class AnyAllConfusion(_RenameCallFamily):
    key = "any-all-confusion"
    title = "any / all confusion"
    risk_weight = 3
    cues = _cues('any', 'all')
    examples = (
        Example(
            before="def has_error(results):\n    return any(r.failed for r in results)\n",
            after="def has_error(results):\n    return all(r.failed for r in results)\n",
            changed_intent="believes every item of `(r.failed for r in results)` must qualify",
            incident="`has_error` now requires every item of `(r.failed for r in results)` to "
                     "qualify where a single one was enough: `any(r.failed for r in results)` "
                     "became `all(r.failed for r in results)`",
        ),
    )
    _SWAPS = {"any": "all", "all": "any"}

    def _texts(self, who: str, old: str, new: str, arg: str, change: str) -> tuple[str, str, str]:
        if old == "any":
            return (f"believes every item of `{arg}` must qualify",
                    f"{who} now requires every item of `{arg}` to qualify where a single one was "
                    f"enough: {change}",
                    f"with only some items of `{arg}` qualifying and checks the result")
        return (f"believes a single item of `{arg}` qualifying is enough",
                f"{who} is satisfied by a single qualifying item of `{arg}` where every item had "
                f"to qualify: {change}",
                f"with only some items of `{arg}` qualifying and checks the result")


class MinMaxConfusion(_RenameCallFamily):
    key = "min-max-confusion"
    title = "min / max confusion"
    risk_weight = 3
    cues = _cues('min', 'max')
    examples = (
        Example(
            before="def clamp(value, lo, hi):\n    return max(lo, min(value, hi))\n",
            after="def clamp(value, lo, hi):\n    return max(lo, max(value, hi))\n",
            changed_intent="believes the largest of `value, hi` is wanted",
            incident="`clamp` picks the largest of `value, hi` where the smallest was meant: "
                     "`min(value, hi)` became `max(value, hi)`",
        ),
    )
    _SWAPS = {"min": "max", "max": "min"}

    def _texts(self, who: str, old: str, new: str, arg: str, change: str) -> tuple[str, str, str]:
        wanted, got = ("smallest", "largest") if old == "min" else ("largest", "smallest")
        return (f"believes the {got} of `{arg}` is wanted",
                f"{who} picks the {got} of `{arg}` where the {wanted} was meant: {change}",
                f"with clearly different values among `{arg}` and checks which one comes out")


class LoopSkipsEdge:
    key = "loop-skips-edge"
    title = "loop skips its first or last element"
    risk_weight = 3
    cues = _cues('for')
    examples = (
        Example(
            before="def total(prices):\n    s = 0\n    for p in prices:\n        s += p\n    return s\n",
            after="def total(prices):\n    s = 0\n    for p in prices[1:]:\n        s += p\n    return s\n",
            changed_intent="assumes the first item of `prices` needs no processing, like a header",
            incident="`total` never processes the first item of `prices`: `for p in prices` became "
                     "`for p in prices[1:]`",
        ),
    )

    _SLICEABLE_CALLS = frozenset({"sorted", "list", "tuple", "split", "splitlines", "readlines",
                                  "rsplit"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in (n for n in view.all_nodes() if isinstance(n, (cst.For, cst.CompFor))):
            iterable = node.iter
            if not self._sliceable(iterable):
                continue
            base = _as_atom(iterable)
            items, loop_var, who = view.code(iterable), view.code(node.target), view.who(node)
            for edge, piece in (("first", cst.Slice(lower=cst.Integer("1"), upper=None)),
                                ("last", cst.Slice(lower=None, upper=cst.UnaryOperation(
                                    cst.Minus(), cst.Integer("1"))))):
                new = cst.Subscript(value=base, slice=[cst.SubscriptElement(slice=piece)])
                kind = "a header" if edge == "first" else "a terminator"
                yield _site(
                    self.key, iterable, new, iterable,
                    f"assumes the {edge} item of `{items}` needs no processing, like {kind}",
                    f"{who} never processes the {edge} item of `{items}`: `for {loop_var} in "
                    f"{items}` became `for {loop_var} in {view.code(new)}`",
                    f"a test that {view.exercise(node)} where the {edge} item of `{items}` changes "
                    f"the result",
                )

    def _sliceable(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, (cst.Name, cst.Attribute, cst.List)):
            return True
        if isinstance(expr, cst.Tuple) and expr.lpar:
            return True
        if isinstance(expr, cst.Subscript):
            return not any(isinstance(e.slice, cst.Slice) for e in expr.slice)
        if isinstance(expr, cst.Call):
            return _call_name(expr) in self._SLICEABLE_CALLS
        return False
