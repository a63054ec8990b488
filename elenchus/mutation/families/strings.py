"""Families that slip inside a string literal: a regular expression losing a class member, a
`+` or an anchor, and a separator string confused with its neighbour (`','` for `';'`). They live
together because both edit a literal's text; regex-slip keeps its own small pattern scanner
(``_regex_edits``) beside it.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper

from elenchus.mutation.families.base import (
    Example, Site, SourceView, _change, _cues, _separator_neighbour, _site, _with_text,
)


class RegexSlip:
    key = "regex-slip"
    title = "regular expression slip"
    risk_weight = 3
    cues = _cues("'", '"')
    examples = (
        Example(
            before="import re\n\n\ndef slugify(text):\n    return re.sub(r'[-_.]+', '-', text)\n",
            after="import re\n\n\ndef slugify(text):\n    return re.sub(r'[-_]+', '-', text)\n",
            changed_intent="believes the text never has `.` where `[-_.]` matches",
            incident="`slugify` no longer matches `.` with the pattern `r'[-_.]+'`: the class "
                     "`[-_.]` became `[-_]`",
        ),
        Example(
            before="import re\n\nVERSION_RE = re.compile(r'^v\\d+$')\n",
            after="import re\n\nVERSION_RE = re.compile(r'^v\\d*$')\n",
            changed_intent="believes `\\d` may be missing where `r'^v\\d+$'` matches",
            incident="`VERSION_RE` also matches where there is no `\\d`, though the pattern "
                     "`r'^v\\d+$'` requires at least one: `\\d+` became `\\d*`",
        ),
        Example(
            before="import re\n\nVERSION_RE = re.compile(r'^v\\d+$')\n",
            after="import re\n\nVERSION_RE = re.compile(r'^v\\d$')\n",
            changed_intent="believes `\\d` appears once where `r'^v\\d+$'` matches",
            incident="`VERSION_RE` matches a single `\\d` where the pattern `r'^v\\d+$'` takes one or more: "
                     "`\\d+` became `\\d`",
        ),
        Example(
            before="class Account:\n    NAME_PATTERN = r'^[a-z]+$'\n",
            after="class Account:\n    NAME_PATTERN = r'^[a-z]+'\n",
            changed_intent="believes a match of `r'^[a-z]+$'` that does not reach the end of the "
                           "text is as good as one that does",
            incident="`Account.NAME_PATTERN` no longer requires a match of `r'^[a-z]+$'` to reach "
                     "the end of the text: `r'^[a-z]+$'` became `r'^[a-z]+'`",
        ),
    )

    _FUNCTIONS = frozenset({"compile", "match", "search", "fullmatch", "sub", "subn", "split",
                            "findall", "finditer"})
    _NAMED = re.compile(r"(^|_)(RE|REGEX|PATTERN)$")

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        # A window of a large file (see elenchus.mutation.mutate) carries the uses found in the whole file.
        named_uses: dict[str, set[str]] | None = getattr(wrapper, "regex_uses", None)
        if named_uses is None:
            named_uses = {}
            for call in view.nodes(cst.Call):
                used = self._regex_function(call)
                if used and call.args and isinstance(call.args[0].value, (cst.Name, cst.Attribute)):
                    value = call.args[0].value
                    name = value.value if isinstance(value, cst.Name) else value.attr.value
                    named_uses.setdefault(name, set()).add(used)
            try:
                self.compiled_uses_in(ast.parse(view.module.code), named_uses)
            except (SyntaxError, ValueError):
                pass  # (a pattern compiled once then counts as used by `compile` alone, as before)
        for node in view.nodes(cst.SimpleString):
            uses = self._uses(view, node, named_uses)
            if uses is None or not self._editable(node):
                continue
            for edit in _regex_edits(node.raw_value):
                if (edit.kind == "start" and uses and uses <= {"match", "fullmatch"}
                        or edit.kind == "end" and uses == {"fullmatch"}):
                    continue  # the call anchors the match already: the edit changes nothing
                if edit.kind == "single" and self._found_or_not(view, node) and (
                        edit.edge == "last" and uses <= {"search", "match"}
                        or edit.edge == "first" and uses == {"search"}):
                    continue  # only asked whether it matches: `x+` at an end of the pattern matches where `x` does
                new = _with_text(node, edit.pattern)
                if not _compiles_as_regex(new):
                    continue
                yield self._site(view, node, new, edit)

    def _site(self, view: SourceView, node: cst.SimpleString, new: cst.SimpleString,
              edit: _RegexEdit) -> Site:
        who, literal, new_literal = view.who(node), view.code(node), view.code(new)
        part, new_part, piece = edit.part, edit.new_part, edit.piece
        intent, incident, detection = {
            "class": (f"believes the text never has `{piece}` where `{part}` matches",
                      f"{who} no longer matches `{piece}` with the pattern `{literal}`: the class "
                      f"`{part}` became `{new_part}`",
                      f"with text that has `{piece}` where `{part}` should match it"),
            "excluded": (f"believes the text never has `{piece}` where `{part}` matches",
                         f"{who} now matches `{piece}` where the pattern `{literal}` excluded it: the "
                         f"class `{part}` became `{new_part}`",
                         f"with text that has `{piece}` where `{part}` must refuse it"),
            "plus": (f"believes `{piece}` may be missing where `{literal}` matches",
                     f"{who} also matches where there is no `{piece}`, though the pattern "
                     f"`{literal}` requires at least one: `{part}` became `{new_part}`",
                     f"with text that lacks `{piece}` where `{literal}` requires it, expecting no match"),
            "single": (f"believes `{piece}` appears once where `{literal}` matches",
                       f"{who} matches a single `{piece}` where the pattern `{literal}` takes one or more: "
                       f"`{part}` became `{new_part}`",
                       f"with text that has `{piece}` twice in a row where `{literal}` matches"),
            "start": (f"believes a match of `{literal}` that does not start the text is as good as "
                      f"one that does",
                      f"{who} no longer requires a match of `{literal}` to start the text: "
                      f"`{literal}` became `{new_literal}`",
                      f"with extra text before a match of `{literal}`, expecting no match"),
            "end": (f"believes a match of `{literal}` that does not reach the end of the text is "
                    f"as good as one that does",
                    f"{who} no longer requires a match of `{literal}` to reach the end of the text: "
                    f"`{literal}` became `{new_literal}`",
                    f"with extra text after a match of `{literal}`, expecting no match"),
        }[edit.kind]
        return _site(self.key, node, new, node, intent, incident,
                     f"a test that {view.exercise(node)} {detection}")

    @classmethod
    def uses_in(cls, tree: ast.AST, into: dict[str, set[str]]) -> None:
        """``find_sites``' names used as patterns (`re.match(NAME_RE, ...)`), read from an ``ast`` tree."""
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and isinstance(call.func.value, ast.Name) and call.func.value.id in ("re", "regex")
                    and call.func.attr in cls._FUNCTIONS):
                continue
            arguments = [(a.lineno, a.col_offset, a.value if isinstance(a, ast.Starred) else a) for a in call.args]
            arguments += [(k.lineno, k.col_offset, k.value) for k in call.keywords]
            if not arguments:
                continue
            first = min(arguments, key=lambda a: (a[0], a[1]))[2]  # libcst keeps source order
            if isinstance(first, (ast.Name, ast.Attribute)):
                name = first.id if isinstance(first, ast.Name) else first.attr
                into.setdefault(name, set()).add(call.func.attr)
        cls.compiled_uses_in(tree, into)

    @classmethod
    def compiled_uses_in(cls, tree: ast.AST, into: dict[str, set[str]]) -> None:
        """How each name a compiled pattern is assigned to (``MAC_MC = re.compile(...)``) is used in the file:
        ``match`` or ``fullmatch`` when called with the text alone, ``other`` for anything else (another method,
        a start position, the name passed on). A pattern only ever matched from the start of the text loses
        nothing with its leading ``^`` dropped (``_COMPILED`` + name: the uses)."""
        compiled: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call) \
                    and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "compile" \
                    and isinstance(node.value.func.value, ast.Name) and node.value.func.value.id in ("re", "regex"):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                compiled.update(t.id if isinstance(t, ast.Name) else t.attr for t in targets
                                if isinstance(t, (ast.Name, ast.Attribute)))
        if not compiled:
            return
        anchored: set[int] = set()  # ids of the name nodes read as `NAME.match(text)`
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("match", "fullmatch") and len(node.args) == 1 and not node.keywords \
                    and not isinstance(node.args[0], ast.Starred):
                held = node.func.value
                name = held.id if isinstance(held, ast.Name) else held.attr if isinstance(held, ast.Attribute) else None
                if name in compiled:
                    into.setdefault(_COMPILED + name, set()).add(node.func.attr)
                    anchored.add(id(held))
        for node in ast.walk(tree):
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if name in compiled and id(node) not in anchored and isinstance(node.ctx, ast.Load):
                into.setdefault(_COMPILED + name, set()).add("other")

    def _regex_function(self, call: cst.Call) -> str | None:
        func = call.func
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value in ("re", "regex") and func.attr.value in self._FUNCTIONS):
            return func.attr.value
        return None

    def _uses(self, view: SourceView, node: cst.SimpleString,
              named_uses: dict[str, set[str]]) -> set[str] | None:
        """The `re` functions ``node`` is a pattern for (empty: unknown), or None if it is not one."""
        arg = view.parent(node)
        call = view.parent(arg) if isinstance(arg, cst.Arg) else None
        if isinstance(call, cst.Call) and isinstance(arg, cst.Arg) and call.args[0] is arg:
            used = self._regex_function(call)
            if used == "compile" and (name := view.assigned_name(call)) is not None \
                    and isinstance(view.parent(call), (cst.Assign, cst.AnnAssign)):
                return named_uses.get(_COMPILED + name.rsplit(".", 1)[-1], {used})
            return {used} if used else None
        holder, name = view.parent(node), view.assigned_name(node)
        if name is None or not isinstance(holder, (cst.Assign, cst.AnnAssign)):
            return None
        last = name.rsplit(".", 1)[-1]
        if last in named_uses:
            return named_uses[last]
        return set() if self._NAMED.search(last.upper()) else None

    def _found_or_not(self, view: SourceView, node: cst.SimpleString) -> bool:
        """Whether ``node`` is the pattern of a `re.search`/`re.match` call whose result is only asked whether
        there is one: the operand of `not` or of `bool`, or the test of an `if`, `while`, conditional expression
        or `assert`, through `and`/`or` (`not re.search(r"\\s|__+", value)`). Where the match object goes on
        (`return re.search(...)`, `.group()`), what it matched still counts."""
        arg = view.parent(node)
        child = view.parent(arg) if isinstance(arg, cst.Arg) else None
        if not (isinstance(child, cst.Call) and self._regex_function(child) in ("search", "match")
                and child.args[0] is arg):
            return False
        holder = view.parent(child)
        while isinstance(holder, cst.BooleanOperation):
            child, holder = holder, view.parent(holder)
        if isinstance(holder, cst.Arg):  # `bool(re.search(...))`
            call = view.parent(holder)
            return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "bool" \
                and len(call.args) == 1
        return isinstance(holder, cst.UnaryOperation) and isinstance(holder.operator, cst.Not) \
            or isinstance(holder, (cst.If, cst.While, cst.IfExp, cst.Assert)) and holder.test is child

    @staticmethod
    def _editable(node: cst.SimpleString) -> bool:
        """Source text that is the pattern itself: raw, or free of escapes; no verbose comments."""
        text = node.raw_value
        if "\\" in text and "r" not in node.prefix.lower():
            return False
        return not (len(node.quote) == 3 and "#" in text)


#: The key of a compiled pattern's uses in ``RegexSlip``'s table (beside the names passed to `re` functions).
_COMPILED = "compiled pattern "


def _compiles_as_regex(string: cst.SimpleString) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "possible nested set" and the like: still a pattern
        try:
            re.compile(string.evaluated_value)
        except (re.error, ValueError):
            return False
    return True


@dataclass(frozen=True, slots=True)
class _RegexEdit:
    """One slip in a pattern: ``part`` of it became ``new_part``; ``piece`` is what it concerns."""

    pattern: str
    kind: str  # "class", "excluded" (negated class), "plus", "single", "start" or "end"
    part: str
    new_part: str
    piece: str
    # Where a quantified atom stands in its alternative of the whole pattern, with nothing else before it
    # ("first") or after it ("last"); None inside a group, or with more on both sides.
    edge: str | None = None


def _regex_edits(pattern: str) -> Iterator[_RegexEdit]:
    """A class member dropped, `x+` loosened to `x*` or made single `x`, a `^` or `$` anchor dropped."""
    if pattern.startswith("^"):
        yield _RegexEdit(pattern[1:], "start", "^", "", "^")
    groups: list[int] = []
    atom: int | None = None  # where the atom before the current character starts
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            atom, i = i, i + 2
            continue
        if char == "[":
            end, members = _class_members(pattern, i)
            if end is None:
                return
            part = pattern[i:end + 1]
            kind = "excluded" if part.startswith("[^") else "class"
            for start, stop in members if len(members) > 1 else ():
                yield _RegexEdit(pattern[:start] + pattern[stop:], kind, part,
                                 pattern[i:start] + pattern[stop:end + 1], pattern[start:stop])
            atom, i = i, end + 1
            continue
        if char == "+" and atom is not None:
            piece = pattern[atom:i]
            yield _RegexEdit(pattern[:i] + "*" + pattern[i + 1:], "plus", f"{piece}+", f"{piece}*",
                             piece)
            if pattern[i + 1:i + 2] not in ("?", "+"):  # (`x+?` made `x?` would be another slip)
                before = pattern[:atom]
                escapes = len(before[:-1]) - len(before[:-1].rstrip("\\"))  # (`\|` is a bar, not a choice)
                alone = before == "" or before.endswith("|") and escapes % 2 == 0
                edge = None if groups else "last" if pattern[i + 1:i + 2] in ("", "|") else "first" if alone else None
                yield _RegexEdit(pattern[:i] + pattern[i + 1:], "single", f"{piece}+", piece, piece, edge)
        if char == "(":
            groups.append(i)
        if char == ")":
            atom = groups.pop() if groups else None  # a group is one atom: `(ab)+`
        else:
            atom = None if char in "(|^$*+?{" else i
        if char == "{":  # a `{m,n}` quantifier: skip to its end
            close = pattern.find("}", i)
            i = close if close >= 0 else len(pattern)
        i += 1
    backslashes = len(pattern[:-1]) - len(pattern[:-1].rstrip("\\"))
    if pattern.endswith("$") and backslashes % 2 == 0 and len(pattern) > 1:
        yield _RegexEdit(pattern[:-1], "end", "$", "", "$")


def _class_members(pattern: str, start: int) -> tuple[int | None, list[tuple[int, int]]]:
    """Where the class opening at ``start`` closes, and its members (`a`, `a-z`, `\\d`)."""
    i = start + 1
    if pattern[i:i + 1] == "^":
        i += 1
    members = []
    first = True
    while i < len(pattern) and (pattern[i] != "]" or first):  # `[]a]`: a leading `]` is literal
        first, begin = False, i
        i += 2 if pattern[i] == "\\" else 1
        if pattern[i:i + 1] == "-" and pattern[i + 1:i + 2] not in ("", "]"):
            i += 3 if pattern[i + 1] == "\\" else 2
        members.append((begin, i))
    return (i, members) if i < len(pattern) else (None, [])


class WrongSeparator:
    key = "wrong-separator"
    title = "wrong separator string"
    risk_weight = 2
    cues = _cues("'", '"')
    examples = (
        Example(
            before="def parse_row(line):\n    return line.split(',')\n",
            after="def parse_row(line):\n    return line.split(';')\n",
            changed_intent="believes the separator in `line.split(',')` is `';'`, not `','`",
            incident="`parse_row` works with the separator `';'` instead of `','`: "
                     "`line.split(',')` became `line.split(';')`",
        ),
        Example(
            before="HEADER = ', '.join(COLUMNS)\n",
            after="HEADER = ','.join(COLUMNS)\n",
            changed_intent="believes the separator in `HEADER = ', '.join(COLUMNS)` is `','`, "
                           "not `', '`",
            incident="`HEADER` works with the separator `','` instead of `', '`: "
                     "`HEADER = ', '.join(COLUMNS)` became `HEADER = ','.join(COLUMNS)`",
        ),
    )

    _METHODS = frozenset({"split", "rsplit", "join", "replace", "partition", "rpartition",
                          "startswith", "endswith", "strip", "lstrip", "rstrip"})
    _KEYWORDS = frozenset({"sep", "delimiter", "separator"})

    def find_sites(self, wrapper: MetadataWrapper) -> Iterator[Site]:
        view = SourceView(wrapper)
        for node in view.nodes(cst.SimpleString):
            if not self._separates(view, node):
                continue
            new = _separator_neighbour(node)
            if new is None:
                continue
            old_text, new_text = view.code(node), view.code(new)
            context = view.code(view.context(node))
            yield _site(
                self.key, node, new, node,
                f"believes the separator in `{context}` is `{new_text}`, not `{old_text}`",
                f"{view.who(node)} works with the separator `{new_text}` instead of `{old_text}`: "
                f"{_change(view, node, new)}",
                f"a test that {view.exercise(node)} and checks a result that depends on the "
                f"separator `{old_text}`",
            )

    def _separates(self, view: SourceView, node: cst.SimpleString) -> bool:
        """Whether ``node`` is a separator argument, a `sep=`, or the receiver of `.join`."""
        parent = view.parent(node)
        if isinstance(parent, cst.Attribute):
            call = view.parent(parent)
            return parent.attr.value == "join" and isinstance(call, cst.Call) and call.func is parent
        if not isinstance(parent, cst.Arg):
            return False
        if parent.keyword is not None:
            return parent.keyword.value in self._KEYWORDS
        call = view.parent(parent)
        return (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and call.func.attr.value in self._METHODS and call.func.attr.value != "join")
