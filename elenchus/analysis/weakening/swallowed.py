"""swallowed-error: an error that used to reach the caller or the test and now does not.

A new except clause that discards what it catches, an except clause widened to a broad one, a new
``contextlib.suppress``, and a ``raise`` that became a return in the same function, in tests and in
production code alike.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from elenchus.analysis.weakening.evidence import Evidence, EvidenceKind
from elenchus.analysis.weakening.loosened import _BROAD_EXCEPTIONS
from elenchus.analysis.weakening.source import (_Pair, _Site, _Source, _added, _owned_shape, _owner_words, _removed,
                                                _sites, _statements)
from elenchus.analysis.weakening.syntax import _callee, _dotted, _is_literal, _last, _snippet


# --------------------------------------------------------------------------- swallowed-error


_LOGGING_ROOTS = frozenset({"log", "logger", "logging", "LOG", "LOGGER", "warnings", "print", "_log", "_logger"})
_SUPPRESS = frozenset({"suppress", "contextlib.suppress"})


def _discards(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    """The handler drops the error: only pass/.../continue/break, a plain return, or logging."""
    statements = _statements(handler.body)
    if not statements:
        return True
    for statement in statements:
        if isinstance(statement, (cst.Pass, cst.Continue, cst.Break)):
            continue
        if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Ellipsis):
            continue
        if isinstance(statement, cst.Return):
            value = statement.value
            if value is None or _is_literal(value) or isinstance(value, (cst.Name, cst.Attribute)) \
                    and not (handler.name is not None and _dotted(value) == _dotted(handler.name.name)):
                continue
            return False
        if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call) \
                and (_dotted(statement.value.func) or "").split(".")[0] in _LOGGING_ROOTS:
            continue
        return False
    return True


def _caught(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> frozenset[str]:
    kind = handler.type
    if kind is None:
        return frozenset({"BaseException"})
    elements = [e.value for e in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
    return frozenset(_last(e) or "?" for e in elements)


def _is_broad(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    return bool(_caught(handler) & _BROAD_EXCEPTIONS)


def _except_text(source: _Source, handler: cst.ExceptHandler | cst.ExceptStarHandler) -> str:
    if handler.type is None:
        return "except:"
    return f"except {source.code(handler.type)}:"


def _swallowed_errors(pair: _Pair) -> Iterator[Evidence]:
    base, head = pair.base, pair.head
    if head is None:
        return
    where = "in the test" if pair.file.kind == "test" else "in the code"
    base_handlers = _sites(base, "handler")
    widened_from = _removed(base_handlers, head.of("handler"),
                            lambda s: (s.owner, _caught(s.node)))  # type: ignore[arg-type]
    for site in _added(base_handlers, head.of("handler"), _owned_shape):
        handler = site.node
        assert isinstance(handler, (cst.ExceptHandler, cst.ExceptStarHandler))
        narrower = next((b for b in widened_from if b.owner == site.owner and not _is_broad(b.node)), None)  # type: ignore[arg-type]
        if _is_broad(handler) and narrower is not None and base is not None:
            widened_from.remove(narrower)
            yield Evidence(EvidenceKind.SWALLOWED_ERROR, pair.path, head.line(handler), site.test,
                           _except_text(base, narrower.node), _except_text(head, handler),  # type: ignore[arg-type]
                           f"an except clause {where} ({_owner_words(site)}) was widened from "
                           f"`{_except_text(base, narrower.node)}` to `{_except_text(head, handler)}`, "  # type: ignore[arg-type]
                           f"so errors it used to let through are now caught.")
        elif _discards(handler):
            caught = "every error" if handler.type is None else f"`{head.code(handler.type)}`"
            outcome = ("the failure it would have reported is dropped and the test passes anyway"
                       if pair.file.kind == "test" else
                       "the error never reaches the caller or the test that checks for it")
            yield Evidence(EvidenceKind.SWALLOWED_ERROR, pair.path, head.line(handler), site.test, None,
                           head.code(handler),
                           f"a new `{_except_text(head, handler)}` {where} ({_owner_words(site)}) "
                           f"catches {caught} and discards it, so {outcome}.")
    for site in _added(_sites(base, "withitem"), head.of("withitem"), _owned_shape):
        item = site.node
        assert isinstance(item, cst.WithItem)
        if (_dotted(_callee(item.item)) or "") in _SUPPRESS:
            yield Evidence(EvidenceKind.SWALLOWED_ERROR, pair.path, head.line(item), site.test, None,
                           head.code(item.item),
                           f"a new `{_snippet(head.code(item.item))}` {where} ({_owner_words(site)}) "
                           f"discards those errors, so the failure they signal is never reported.")
    if base is None:
        return
    yield from _raise_became_return(pair, base, head, where)


def _raise_became_return(pair: _Pair, base: _Source, head: _Source, where: str) -> Iterator[Evidence]:
    """In a function at both sides: fewer raises at Head, and new returns/passes in their place."""
    by_owner: dict[str, tuple[list[_Site], list[_Site]]] = {}
    for site in base.of("raise"):
        by_owner.setdefault(site.owner, ([], []))[0].append(site)
    for site in head.of("raise"):
        by_owner.setdefault(site.owner, ([], []))[1].append(site)
    for owner, (before, after) in by_owner.items():
        if owner not in head.functions or len(after) >= len(before):
            continue
        gone = _removed(before, after, lambda s: s.shape())
        exits_before = [s for s in base.of("exit") if s.owner == owner]
        exits_after = [s for s in head.of("exit") if s.owner == owner]
        new_exits = _added(exits_before, exits_after, lambda s: s.shape())
        for raised, exit_site in zip(gone[: len(before) - len(after)], new_exits):
            yield Evidence(EvidenceKind.SWALLOWED_ERROR, pair.path, head.line(exit_site.node), exit_site.test,
                           base.code(raised.node), head.code(exit_site.node),
                           f"in {owner}, `{_snippet(base.code(raised.node), 50)}` became "
                           f"`{_snippet(head.code(exit_site.node), 50)}`, so the error {where} now "
                           f"goes unreported and the caller carries on with a wrong result.")
