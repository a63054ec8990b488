"""What the change did across all its files, which several weakening classes judge a test against.

``_TestOwners`` says which Base test each Head test continues (the same name in the same file, the
same body anywhere, or a name moved into a class or out of one), so a renamed or moved test is not a
deleted one. ``_repaired_names`` says
which production names the repair changed (directly or through what they call or read), so a new
expected value in a test that calls repaired code is a correction, not a loosening.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from elenchus.analysis.weakening.source import _MODULE, _Pair, _Source
from elenchus.analysis.weakening.syntax import _names_read


# --------------------------------------------------------------------------- test identity across the change


@dataclass(frozen=True, slots=True)
class _TestOwners:
    """Which Base test each Head test continues: the same name in the same file, or the same body anywhere,
    or the same name alone in the same file (moved into a class or out of one)."""

    head_to_base: Mapping[tuple[str, str], tuple[str, str]]
    continued: frozenset[tuple[str, str]]  # Base tests that live on at Head (possibly renamed or moved)
    base_owners: frozenset[tuple[str, str | None]]  # (path, owner) of every Base test, class and file

    @classmethod
    def of(cls, pairs: Sequence[_Pair]) -> _TestOwners:
        base_by_body: dict[tuple, list[tuple[str, str]]] = {}  # (several Base tests may share one body)
        base_names: set[tuple[str, str]] = set()
        base_owners: set[tuple[str, str | None]] = set()
        for pair in pairs:
            if pair.file.kind != "test" or pair.base is None:
                continue
            base_owners.add((pair.path, None))
            base_owners.update((pair.path, name) for name in pair.base.classes)
            for name, node in pair.base.tests.items():
                base_names.add((pair.path, name))
                base_owners.add((pair.path, name))
                base_by_body.setdefault(pair.base.shape(node.body), []).append((pair.path, name))
        mapping: dict[tuple[str, str], tuple[str, str]] = {}
        moved: list[tuple[tuple[str, str], list[tuple[str, str]]]] = []
        for pair in pairs:
            if pair.file.kind != "test" or pair.head is None:
                continue
            for name, node in pair.head.tests.items():
                if (pair.path, name) in base_names:
                    mapping[(pair.path, name)] = (pair.path, name)
                elif (same := base_by_body.get(pair.head.shape(node.body))) is not None:
                    moved.append(((pair.path, name), same))
        taken = set(mapping.values())
        # A moved test continues the Base test of its name and body (a file split in two keeps both tests of
        # one body), else one of its body that nothing continues yet, else the first of its body.
        for head, same in sorted(moved, key=lambda entry: not any(b[1] == entry[0][1] for b in entry[1])):
            named = [base for base in same if base[1] == head[1] and base not in taken]
            free = [base for base in same if base not in taken]
            mapping[head] = (named or free or same)[0]
            taken.add(mapping[head])
        mapping.update(_moved_across_classes(pairs, base_names, mapping))
        return cls(mapping, frozenset(mapping.values()), frozenset(base_owners))


def _moved_across_classes(pairs: Sequence[_Pair], base_names: set[tuple[str, str]],
                          mapping: Mapping[tuple[str, str], tuple[str, str]]) -> dict[tuple[str, str], tuple[str, str]]:
    """Head tests that continue the one Base test of their name in their file, moved into a class or out
    of one and rewritten on the way (``assert`` made ``self.assertEqual``): compared, so a check lost in
    the rewrite is found, and never counted as removed. Only a name that left and arrived once counts.
    """
    taken = set(mapping.values())
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for pair in pairs:
        if pair.file.kind != "test" or pair.head is None or pair.base is None:
            continue
        left: dict[str, list[str]] = {}
        for name in pair.base.tests:
            if (pair.path, name) not in taken and name not in pair.head.tests:
                left.setdefault(_short(name), []).append(name)
        arrived: dict[str, list[str]] = {}
        for name in pair.head.tests:
            if (pair.path, name) not in mapping and (pair.path, name) not in base_names:
                arrived.setdefault(_short(name), []).append(name)
        for short, gone in left.items():
            if len(gone) == 1 and len(arrived.get(short, ())) == 1:
                found[(pair.path, arrived[short][0])] = (pair.path, gone[0])
    return found


def _short(qualname: str) -> str:
    return qualname.rsplit("::", 1)[-1]


# --------------------------------------------------------------------------- production code the repair changed


def _module_assignments(source: _Source) -> dict[str, tuple]:
    """Name -> shape of the module-level statement that last assigns it."""
    found: dict[str, tuple] = {}
    for site in source.of("assign"):
        node = site.node
        if site.owner != _MODULE or not isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            continue
        targets = node.targets if isinstance(node, cst.Assign) else [node]
        for target in targets:
            if isinstance(target.target, cst.Name):
                found[target.target.value] = source.shape(node)
    return found


def _repaired_names(pairs: Sequence[_Pair]) -> frozenset[str]:
    """Names of production code the change repaired (see ``find_weakening``).

    A function, method or class whose code differs by shape between Base and Head
    (or is new), a module-level name assigned differently, and, transitively,
    every Head production function that calls or reads one of those names.
    """
    changed: set[str] = set()
    reads: dict[str, set[str]] = {}
    for pair in pairs:
        base, head = pair.base, pair.head
        if pair.file.kind != "production" or head is None:
            continue
        for qualname, function in head.functions.items():
            name = qualname.rsplit(".", 1)[-1]
            reads.setdefault(name, set()).update(_names_read(function.body))
            old = base.functions.get(qualname) if base is not None else None
            if old is None or base is None or base.shape(old) != head.shape(function):
                changed.add(name)
        for qualname, cls in head.classes.items():
            old_class = base.classes.get(qualname) if base is not None else None
            if old_class is None or base is None or base.shape(old_class) != head.shape(cls):
                changed.add(qualname.rsplit(".", 1)[-1])
        before = _module_assignments(base) if base is not None else {}
        changed.update(name for name, shape in _module_assignments(head).items() if before.get(name) != shape)
    affected = set(changed)
    grew = True
    while grew:
        grew = False
        for name, read in reads.items():
            if name not in affected and read & affected:
                affected.add(name)
                grew = True
    return frozenset(affected)
