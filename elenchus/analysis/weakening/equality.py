"""always-equal, and the patches it is read from.

An ``__eq__`` that returns True (an ``__ne__`` that returns False) whatever it is given, defined in
a class or patched in. What an assignment, ``setattr``, ``delattr`` or ``mock.patch`` replaces is
read here (``_new_patches``); harness-tampering and hardcoded-special-case read patches through
this module too, so it sits below them.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from elenchus.analysis.weakening.evidence import Evidence, EvidenceKind
from elenchus.analysis.weakening.source import _Pair, _Site, _Source, _added, _block, _statements, _where
from elenchus.analysis.weakening.syntax import _dotted, _literal


# --------------------------------------------------------------------------- always-equal


def _always_returns(function: cst.FunctionDef | cst.Lambda, value: bool) -> bool:
    """The function returns ``value`` whatever it is given (its first top-level return, unconditional)."""
    if isinstance(function, cst.Lambda):
        return _literal(function.body) is value
    for statement in _statements(function.body):
        if isinstance(statement, cst.Return):
            return _literal(statement.value) is value
        if _has_return(statement):
            return False
    return False


def _has_return(node: cst.CSTNode) -> bool:
    class Finder(cst.CSTVisitor):
        found = False

        def visit_Return(self, node: cst.Return) -> None:
            self.found = True

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

    finder = Finder()
    node.visit(finder)
    return finder.found


_EQUALITY = {"__eq__": True, "__ne__": False}


def _lenient_methods(source: _Source) -> dict[tuple[str, str], cst.CSTNode]:
    """(class, method) -> node for every ``__eq__`` returning True (``__ne__`` False) unconditionally."""
    found: dict[tuple[str, str], cst.CSTNode] = {}
    for name, cls in source.classes.items():
        for statement in _block(cls.body):
            if isinstance(statement, cst.FunctionDef) and statement.name.value in _EQUALITY:
                if _always_returns(statement, _EQUALITY[statement.name.value]):
                    found[(name, statement.name.value)] = statement
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign) and isinstance(small.value, cst.Lambda):
                        for target in small.targets:
                            method = _dotted(target.target)
                            if method in _EQUALITY and _always_returns(small.value, _EQUALITY[method]):
                                found[(name, method)] = small
    return found


def _always_equal(pair: _Pair) -> Iterator[Evidence]:
    base, head = pair.base, pair.head
    if head is None:
        return
    before = _lenient_methods(base) if base is not None else {}
    for (cls, method), node in _lenient_methods(head).items():
        if (cls, method) in before:
            continue
        answer = "True" if method == "__eq__" else "False"
        position = node.name if isinstance(node, cst.FunctionDef) else node
        yield Evidence(EvidenceKind.ALWAYS_EQUAL, pair.path, head.line(position), None, None,
                       head.code(node),
                       f"{cls}.{method} now returns {answer} for any value, so every equality "
                       f"check on a {cls} passes whatever it holds.")
    for site, target in _new_patches(pair):
        if target.rsplit(".", 1)[-1] in _EQUALITY:
            yield Evidence(EvidenceKind.ALWAYS_EQUAL, pair.path, head.line(site.node), site.test, None,
                           head.code(site.node),
                           f"`{target}` is replaced {_where(site)}, so equality checks on those objects "
                           f"no longer compare their values.")


# --------------------------------------------------------------------------- patches (assignments, setattr, mock.patch)


def _patch_target(node: cst.CSTNode) -> str | None:
    """What an assignment or a patching call replaces, as a dotted name (``time.time``)."""
    if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
        targets = node.targets if isinstance(node, cst.Assign) else [node]
        for target in targets:
            name = _dotted(target.target)
            if name is not None and "." in name:
                return name
        return None
    if not isinstance(node, cst.Call):
        return None
    name = _dotted(node.func) or ""
    last = name.rsplit(".", 1)[-1]
    args = [a.value for a in node.args if a.keyword is None]
    if last in ("setattr", "delattr") or name in ("patch.object", "mock.patch.object", "unittest.mock.patch.object"):
        if args and isinstance(args[0], (cst.SimpleString, cst.ConcatenatedString)) and last == "setattr" \
                and len(args) == 2:
            value = _literal(args[0])  # monkeypatch.setattr("time.time", fake)
            return value if isinstance(value, str) else None
        if len(args) >= 2:
            owner = _dotted(args[0])
            attr = _literal(args[1])
            if owner is not None and isinstance(attr, str):
                return f"{owner}.{attr}"
        return None
    if name in ("patch", "mock.patch", "unittest.mock.patch") and args:
        value = _literal(args[0])
        return value if isinstance(value, str) else None
    return None


def _patches(source: _Source | None) -> list[tuple[_Site, str]]:
    if source is None:
        return []
    found = []
    for category in ("assign", "call"):
        for site in source.of(category):
            target = _patch_target(site.node)
            if target is not None:
                found.append((site, target))
    return found


def _new_patches(pair: _Pair) -> list[tuple[_Site, str]]:
    base, head = _patches(pair.base), _patches(pair.head)
    targets = {id(site): target for site, target in (*base, *head)}
    new = _added([s for s, _ in base], [s for s, _ in head], lambda s: (s.owner, targets[id(s)]))
    return [(site, targets[id(site)]) for site in new]
