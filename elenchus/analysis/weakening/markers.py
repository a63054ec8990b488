"""skipped-test and xfail-marker: skip and xfail marks present at Head and not at Base.

Marks declared on a test, a class or a module, marks on one parametrized row, and runtime
``pytest.skip``/``pytest.xfail``/``self.skipTest`` calls (outside pytest hooks, which are
harness-tampering), counted per owner so an unchanged mark never counts as new. The two classes
are found by the same code and share this module; a new test that starts out skipped is left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

import libcst as cst

from elenchus.analysis.weakening.change import _TestOwners
from elenchus.analysis.weakening.deleted import _is_param, _known_ids, _parametrizations
from elenchus.analysis.weakening.evidence import Evidence, EvidenceKind
from elenchus.analysis.weakening.source import _MODULE, _RUNTIME_MARKERS, _Marker, _Pair, _Source, _marks_in
from elenchus.analysis.weakening.syntax import _dotted


# --------------------------------------------------------------------------- skipped-test and xfail-marker


def _runtime_markers(source: _Source) -> Iterator[_Marker]:
    """``pytest.skip``/``pytest.xfail``/``self.skipTest`` calls, outside pytest hooks (those are tampering)."""
    for site in source.of("call"):
        kind = _RUNTIME_MARKERS.get(_dotted(site.node.func) or "")  # type: ignore[attr-defined]
        if kind is None or any(part.startswith("pytest_") for part in site.owner.split(".")):
            continue
        name = _dotted(site.node.func) or ""  # type: ignore[attr-defined]
        if site.test is not None:
            yield _Marker(site.test, kind, name, site.node, "test")
        elif site.owner == _MODULE:
            yield _Marker(None, kind, name, site.node, "module")
        else:
            yield _Marker(site.owner, kind, name, site.node, "helper")


def _row_markers(source: _Source) -> Iterator[_Marker]:
    """Skip and xfail marks on one parametrized row (``pytest.param(..., marks=pytest.mark.xfail)``), with the
    row they are on, in the decorator or in the module-level list it names."""
    for name, test in source.tests.items():
        for parametrize in _parametrizations(source, test):
            for row in parametrize.rows or ():
                value = row.node.value if isinstance(row.node, cst.Element) else row.node
                if not _is_param(value):
                    continue
                for arg in value.args:  # type: ignore[attr-defined]
                    if arg.keyword is not None and arg.keyword.value == "marks":
                        for node, mark, kind in _marks_in(arg.value):
                            yield _Marker(name, kind, mark, node, "row", row)


def _added_markers(pairs: Sequence[_Pair], owners: _TestOwners) -> Iterator[Evidence]:
    def markers(source: _Source | None) -> list[_Marker]:
        if source is None:
            return []
        rows = list(_row_markers(source))
        on_rows = {id(m.node) for m in rows}
        return [*(m for m in source.declared_markers if id(m.node) not in on_rows), *rows,
                *_runtime_markers(source)]

    def key(path: str, owner: str | None, marker: _Marker) -> tuple:
        # a row's mark is told apart by the row's values: moved to another row, it skips another case
        return path, owner, marker.name, marker.row.shape if marker.row is not None else None

    base_counts: Counter[tuple] = Counter()
    for pair in pairs:
        if pair.file.kind != "production":
            base_counts.update(key(pair.path, m.owner, m) for m in markers(pair.base))
    for pair in pairs:
        if pair.file.kind == "production" or pair.head is None:
            continue
        if pair.base is None and pair.file.kind == "test":
            continue  # a new test file that starts out skipped weakens nothing that existed
        seen: Counter[tuple] = Counter()
        for marker in sorted(markers(pair.head), key=lambda m: pair.head.line(m.node)):  # type: ignore[union-attr]
            path, owner = pair.path, marker.owner
            if marker.scope in ("test", "row") and owner is not None:
                path, owner = owners.head_to_base.get((pair.path, owner), (pair.path, owner))
            if marker.scope in ("test", "row", "class", "module") and pair.file.kind == "test" \
                    and (path, owner) not in owners.base_owners:
                continue  # a new test (or file) that starts out skipped weakens nothing that existed
            found = key(path, owner, marker)
            seen[found] += 1
            if seen[found] <= base_counts[found]:
                continue
            yield _marker_evidence(pair, marker)


def _marker_evidence(pair: _Pair, marker: _Marker) -> Evidence:
    assert pair.head is not None
    row = marker.row
    target = {"test": f"the test {marker.owner}", "class": f"every test in {marker.owner}",
              "module": "every test in this file",
              "helper": f"every test that uses {marker.owner}",
              "row": f"the parametrized row {row.name if row is not None else ''} of {marker.owner}"}[marker.scope]
    it, its = ("that case", "the failure of that case") if row is not None else ("it", "its failure")
    if marker.kind is EvidenceKind.XFAIL_MARKER:
        detail = (f"`{marker.name}` was added to {target}, so {its} is now expected and the "
                  f"run passes while the behaviour it checks is still broken.")
    else:
        detail = (f"`{marker.name}` was added to {target}, so {it} no longer runs and the behaviour "
                  f"it checks goes unchecked.")
    test = marker.owner if marker.scope in ("test", "row", "class") else None
    return Evidence(marker.kind, pair.path, pair.head.line(marker.node), test, None,
                    pair.head.code(marker.node), detail, row_ids=_known_ids([row]) if row is not None else ())
