"""Applying one site: exactly one node replaced (or dropped), everything around it byte-identical.

``_Splicer`` regenerates only the statement (or, for a removal, the function) holding the edit and
splices its text into the source, verified against the original; ``_apply`` prints the whole module
when the splice cannot be trusted. Candidate generation and the mutmut catalog both go through here.
"""

from __future__ import annotations

import libcst as cst

from elenchus.mutation.families import REMOVE, Site, SourceView
from elenchus.mutation.mutate.records import Positions


class _OneEdit(cst.CSTTransformer):
    """Replace (or drop) exactly one node, matched by identity.

    A dropped statement hands its leading comment lines to the next statement (or
    the block footer), so comments outside the edited node stay byte-identical.
    """

    def __init__(self, target: cst.CSTNode, replacement: cst.CSTNode | cst.RemovalSentinel,
                 path: frozenset[int] | None = None) -> None:
        super().__init__()
        self.target = target
        self.replacement = replacement
        self.path = path  # ids of the target's ancestors: only they can hold it (None: visit everything)

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Nothing below the target needs visiting, nor any subtree off the path to it: such a
        # subtree is left as it is, the same object, so it prints as before.
        return node is not self.target and (self.path is None or id(node) in self.path)

    def on_leave(  # type: ignore[override]  # one replacement may change the node's type
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.RemovalSentinel:
        if original_node is self.target:
            return self.replacement
        if self.replacement is REMOVE and isinstance(original_node, (cst.IndentedBlock, cst.Module)):
            return self._keep_leading_lines(original_node, updated_node)
        return updated_node

    def _keep_leading_lines(self, original: cst.IndentedBlock | cst.Module,
                            updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, (cst.IndentedBlock, cst.Module))
        index = next((i for i, s in enumerate(original.body) if s is self.target), None)
        lines = tuple(getattr(self.target, "leading_lines", ()))
        if index is None or not lines:
            return updated
        body = list(updated.body)
        if index < len(body):
            follower = body[index]
            already = tuple(getattr(follower, "leading_lines", ()))
            body[index] = follower.with_changes(leading_lines=[*lines, *already])
            return updated.with_changes(body=body)
        return updated.with_changes(footer=[*lines, *updated.footer])


def _apply(module: cst.Module, site: Site, path: frozenset[int] | None = None) -> str:
    """The whole file with ``site`` applied (slow path: prints every node)."""
    return module.visit(_OneEdit(site.target, site.replacement, path)).code


class _Splicer:
    """Applies sites by regenerating only the enclosing statement and splicing its text.

    Regenerating a whole module per mutant costs O(file) libcst work; the statement
    holding the edit (for a removal, the enclosing function, whose block loses a
    statement) is usually a small fraction. The splice is verified: the unit's
    original text, generated with the indentation of its enclosing blocks, must sit
    exactly at its position in the source, or the slow path is used instead.
    """

    def __init__(self, source: str, view: SourceView, positions: Positions) -> None:
        self.source = source
        self.view = view
        self.positions = positions
        self.module = view.module
        self.line_offsets = [0]
        for text in source.splitlines(keepends=True):
            self.line_offsets.append(self.line_offsets[-1] + len(text))
        self._units: dict[int, tuple[int, str, tuple[str, ...]] | None] = {}
        self._applied: dict[tuple[int, int], tuple[cst.CSTNode, object, str]] = {}

    def apply(self, site: Site) -> str:
        key = (id(site.target), id(site.replacement))  # the text depends on these two alone
        if key not in self._applied:  # (the entry holds both nodes, so their ids stay theirs)
            self._applied[key] = (site.target, site.replacement, self._apply(site))
        return self._applied[key][2]

    def _apply(self, site: Site) -> str:
        path = frozenset(id(node) for node in self.view.ancestors(site.target))
        unit = self._unit(site.target) if site.replacement is REMOVE else self._statement(site.target)
        found = self._locate_unit(unit) if unit is not None else None
        if unit is None or found is None:
            return _apply(self.module, site, path)
        offset, original_text, indents = found
        edited = unit.visit(_OneEdit(site.target, site.replacement, path))
        if not isinstance(edited, cst.CSTNode):
            return _apply(self.module, site, path)
        new_text = self._codegen(edited, indents)
        return self.source[:offset] + new_text + self.source[offset + len(original_text):]

    def _statement(self, target: cst.CSTNode) -> cst.CSTNode | None:
        """The innermost statement of a block (or of the module) holding ``target``."""
        parent = self.view.parent(target)
        if parent is None or isinstance(parent, cst.Module):
            return None
        for node in self.view.ancestors(target):
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) \
                    and isinstance(self.view.parent(node), (cst.IndentedBlock, cst.Module)):
                return node
        return None

    def _unit(self, target: cst.CSTNode) -> cst.CSTNode | None:
        """The innermost function around ``target``, else its top-level statement."""
        parent = self.view.parent(target)
        if parent is None or isinstance(parent, cst.Module):
            return None
        top = None
        for node in self.view.ancestors(target):
            if isinstance(node, cst.FunctionDef):
                return node
            if isinstance(self.view.parent(node), cst.Module):
                top = node
        return top

    def _locate_unit(self, unit: cst.CSTNode) -> tuple[int, str, tuple[str, ...]] | None:
        key = id(unit)
        if key not in self._units:
            self._units[key] = self._find(unit)
        return self._units[key]

    def _find(self, unit: cst.CSTNode) -> tuple[int, str, tuple[str, ...]] | None:
        indents = tuple(
            block.indent if block.indent is not None else self.module.default_indent
            for block in reversed(list(self.view.ancestors(unit)))
            if isinstance(block, cst.IndentedBlock)
        )
        try:
            text = self._codegen(unit, indents)
        except Exception:  # private codegen entry point changed: take the slow path
            return None
        position = self.positions.get(unit)
        if position is None or not text:
            return None
        anchor = self.line_offsets[position.start.line - 1] + position.start.column
        offset = self.source.rfind(text, 0, anchor + len(text))  # starts at or before anchor
        if offset < 0 or offset + len(text) <= anchor:
            return None
        return offset, text, indents

    def _codegen(self, node: cst.CSTNode, indents: tuple[str, ...]) -> str:
        from libcst._nodes.internal import CodegenState

        state = CodegenState(default_indent=self.module.default_indent,
                             default_newline=self.module.default_newline,
                             indent_tokens=list(indents))
        node._codegen(state)
        return "".join(state.tokens)
