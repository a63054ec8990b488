"""Designed inputs: strings made for one mutant from what its lines match and read.

A pattern on the mutated lines is told apart by the words it matches (``_matching`` renders
one per alternative from Python's own regular-expression parser); a table by the strings
the running module holds in it, and a row of one by pairs of the words it relates; a size
bound by texts just past it; a code-point bound by the characters beside it; a character
check by the tests' own strings with a character that slips past it. No edge value or
recorded call holds these, so the boundary candidates take them in as "designed".
"""

from __future__ import annotations

import ast
import itertools
import re
import sys
import unicodedata
import warnings
from collections.abc import Sequence
from typing import Any

from elenchus.mutation.mutate import Mutant
from elenchus.analysis.probes.common import CallSample, _function_node, _module_nodes, _module_tree, import_statements
from elenchus.analysis.probes.drivers import _Driver
from elenchus.analysis.probes.boundary import _constants_on, _unique, mutated_constants


#: Regular-expression syntax: a character of these says nothing about what an input should hold.
_PATTERN_SYNTAX = frozenset("^$[]()+*?{}|\\.")

#: Characters tried where a pattern allows any character but some: letters first, as words hold them.
_FILLERS = "abcdefghijklmnopqrstuvwxyz0123456789-_ ."
#: What a pattern's character category stands for in an example, and in a repeat's second turn (`12` for
#: `\d+` taken twice).
_CATEGORY_EXAMPLES = {"CATEGORY_DIGIT": "12", "CATEGORY_NOT_DIGIT": "ab", "CATEGORY_WORD": "ab",
                      "CATEGORY_NOT_WORD": "-+", "CATEGORY_SPACE": "  ", "CATEGORY_NOT_SPACE": "ab"}
#: Examples made from each pattern on the mutated lines (one per alternative, up to this many).
_PATTERN_ALTERNATIVES = 4


def _pattern_examples(source: str, mutant: Mutant) -> list[str]:
    """Strings that the regular expressions on the mutant's lines match, the code's and the mutant's, each
    alone, with a `!` before and after (where an anchor the mutant dropped shows) and in capitals: a rule of a rule
    table, or a pattern the mutant edited, is told apart by the words it matches (``"quiz"`` for
    ``(?i)(quiz)$``), which no edge value or recorded call may hold."""
    shift = len(mutant.mutated_source.splitlines()) - len(source.splitlines())
    before = [v for v in _constants_on(source, mutant.line, mutant.end_line) if isinstance(v, str)]
    after = [v for v in _constants_on(mutant.mutated_source, mutant.line, mutant.end_line + shift)
             if isinstance(v, str)]
    changed = [v for v in (*before, *after) if (v in before) != (v in after)]
    examples: list[str] = []
    for pattern in _unique([*changed, *before, *after]):
        if not (set(pattern) & _PATTERN_SYNTAX):
            continue
        for found in _matching(pattern):
            examples += [found, found + "!", "!" + found, found.upper()]
    return _unique(examples)[:32]


def _data_examples(drivers: Sequence[_Driver], source: str, mutant: Mutant, data: Sequence[str]) -> list[str]:
    """The strings held by the module-level data the mutated lines read, or that ``data`` names (what the code
    the import runs fills), as each running module built it, and strings their patterns match, each also in
    capitals (where a case-insensitive rule or a table of lower-case words shows): a mutant that skips the
    first rule of a table is told apart by a word that rule matches (``"zombies"``), which only the running
    module knows. First, what the patterns the lines run under match (``_governing_data``), inside text."""
    names = list(dict.fromkeys([*_data_names(source, mutant.line, mutant.end_line), *data]))
    governing = [name for name in _governing_data(source, mutant.line, mutant.end_line) if name not in names]
    found: list[str] = []
    for driver in drivers:
        # (what a loop's or a condition's pattern matches, inside text: the lines under it run only for a match,
        # and an edit of what is cut around it shows only with something on either side)
        for text in driver.strings(governing) if governing else ():
            for match in _matching(text)[:1] if set(text) & _PATTERN_SYNTAX else ():
                found += ["!" + match + "!", match, match + "!", "!" + match]
        for text in driver.strings(names) if names else ():  # (a long text stands for itself in no call a test writes)
            examples = [*(_matching(text)[:1] if set(text) & _PATTERN_SYNTAX else []),
                        *([text] if len(text) <= _EXAMPLE_CHARS else [])]
            found += [*examples, *(example.upper() for example in examples)]
    return _unique(found)[:_DATA_EXAMPLES]


#: Strings taken from the module's data for one mutant, at most, and the longest tried as an input.
_DATA_EXAMPLES = 60
_EXAMPLE_CHARS = 200


def _row_examples(driver: _Driver, source: str, mutant: Mutant) -> list[list[str]]:
    """Words a row of a table on the mutated lines relates: for a row holding a pattern of stems and texts
    (``(pl_sb_C_en_ina, "ens", "ina")``, stems ``stam|foram|lum``), each stem alone and followed by each
    text of the row (``"stam"``, ``"stamens"``, ``"stamina"``), one group per stem. A mutant that blanks
    one text of such a row shows only on a *pair* of those words (``compare_nouns('stamens', 'stamina')``),
    which no single designed input and no edge value makes."""
    tree = _module_tree(source)
    if tree is None:
        return []
    module_names = set(_data_names(source, mutant.line, mutant.end_line))
    groups: list[list[str]] = []
    for node in _module_nodes(source):
        if not isinstance(node, (ast.Tuple, ast.List)) or not (
                mutant.line <= node.lineno and (node.end_lineno or node.lineno) <= mutant.end_line):
            continue
        texts = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                 and not set(e.value) & _PATTERN_SYNTAX]
        patterns = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    and set(e.value) & _PATTERN_SYNTAX]
        names = [e.id for e in node.elts if isinstance(e, ast.Name) and e.id in module_names]
        if not texts or not (patterns or names):
            continue
        held = [*patterns, *(driver.strings(names) if names else ())]
        stems = _unique(stem for pattern in held for stem in (
            _matching(pattern) if set(pattern) & _PATTERN_SYNTAX else [pattern]))
        groups += [_unique([stem, *(stem + text for text in texts)]) for stem in stems[:_ROW_STEMS]]
    return groups[:_ROW_GROUPS]


#: Stems taken from one row's pattern, and groups of related words for one mutant, at most.
_ROW_STEMS = 4
_ROW_GROUPS = 12


def _data_names(source: str, first: int, last: int) -> list[str]:
    """Names on lines ``first``..``last`` that the module assigns or imports at its top level (its tables and
    constants, ``from .table_zero import ZERO_WIDTH`` too), in order of appearance."""
    tree = _module_tree(source)
    if tree is None:
        return []
    # (names unpacked together count: `(singulars, plurals) = make_lists(...)`; and those assigned under `if` or
    # `try` at the top level)
    body = import_statements(tree.body)
    assigned = {name.id for node in body if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                for name in ast.walk(target) if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store)}
    assigned |= {alias.asname or alias.name for node in body if isinstance(node, ast.ImportFrom)
                 for alias in node.names if alias.name != "*"}
    used = [node for node in _module_nodes(source) if isinstance(node, ast.Name) and node.id in assigned
            and first <= node.lineno <= last]
    return list(dict.fromkeys(node.id for node in sorted(used, key=lambda n: (n.lineno, n.col_offset))))


def _governing_data(source: str, first: int, last: int) -> list[str]:
    """The data the lines ``first``..``last`` run under, beyond their own names: the module's names in the header of
    each loop or condition around them (``for match in PATTERN.finditer(text):``), and a class's own attributes read
    there or on the lines (``self.ANSI_OSC_RE``, as ``AnsiToWin32.ANSI_OSC_RE``). A line inside such a loop runs only
    for a text its pattern matches."""
    tree = _module_tree(source)
    if tree is None:
        return []
    spans = [(first, last)]
    for node in _module_nodes(source):
        header = node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else \
            node.test if isinstance(node, (ast.If, ast.While)) else None
        if header is not None and node.lineno < first and last <= (node.end_lineno or node.lineno):
            spans.append((header.lineno, header.end_lineno or header.lineno))
    names = [name for start, end in spans[1:] for name in _data_names(source, start, end)]
    for owner in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        own = {target.id for statement in owner.body if isinstance(statement, (ast.Assign, ast.AnnAssign))
               for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])
               if isinstance(target, ast.Name)}
        inside = owner.lineno <= first and last <= (owner.end_lineno or owner.lineno)
        for node in ast.walk(owner) if own else ():
            if isinstance(node, ast.Attribute) and node.attr in own and isinstance(node.value, ast.Name) \
                    and (node.value.id == owner.name or inside and node.value.id in ("self", "cls")) \
                    and any(start <= node.lineno <= end for start, end in spans):
                names.append(f"{owner.name}.{node.attr}")
    return list(dict.fromkeys(names))


def _in_text(characters: list[str]) -> list[str]:
    """Each character alone, then inside text: a character a parser widens or drops (``"\\uffff"`` made
    ``"00"``) shows only where its neighbours move with it (``"\\uffff" + "fff"``)."""
    return _unique([*characters, *(c + "fff" for c in characters), *("f" + c + "ff" for c in characters)])


def _sized_texts(source: str, mutant: Mutant) -> list[str]:
    """For a size bound on the mutated lines (``len(text) > 128``, ``text[:128]``): texts just past it with one
    marked character at, before and after the bound (``"0" * 127 + "f" + "00"``), since a cut one place early
    or late shows only on the character at the cut, which no short input or edge value reaches."""
    lines = "\n".join(source.splitlines()[mutant.line - 1:mutant.end_line])
    if "len(" not in lines and "[" not in lines:
        return []
    bounds = [v for v in mutated_constants(source, mutant) if type(v) is int and 2 <= v <= _SIZED_MAX]
    return _unique("0" * at + "f" + "00" for bound in bounds for at in (bound - 1, bound, bound + 1))


def _joined_texts(source: str, mutant: Mutant, texts: Sequence[Any], members: Sequence[str] = ()) -> list[str]:
    """For a slice or a ``range`` on the mutated lines (``words[len(first):]`` made ``[len(first) + 1:]``): texts
    of two words, each one the tests wrote followed by a space and the next (``"wasn't am"``); and for a loop
    that looks each word up in a module table (``members``, the strings it holds: ``if split[i] in
    prepositions``), texts of three words with a member at each place (``"a cup of"``). A slice or a loop bound
    one place off shows only on what lies past the first word, or on the one word its last step reaches, and
    the tests' own texts are often single words, for which both are the same either way."""
    shift = len(mutant.mutated_source.splitlines()) - len(source.splitlines())
    walked = False
    for text, first, last in ((source, mutant.line, mutant.end_line),
                              (mutant.mutated_source, mutant.line, mutant.end_line + shift)):
        walked = walked or any(
            (isinstance(node, ast.Slice) or isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
             and node.func.id == "range") and first <= node.lineno <= last for node in _module_nodes(text))
    if not walked:
        return []
    # the words that pass the guard of the mutated line first: they hold what its test looks for (`"n't"`)
    looked_for = [c.value for guard in _guards(source, mutant)[-1:] for c in ast.walk(guard)
                  if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value]
    words = _unique(t for t in texts if isinstance(t, str) and 0 < len(t) <= _WORD_CHARS
                    and not any(c.isspace() for c in t))
    words = sorted(words, key=lambda word: not any(part in word for part in looked_for))[:_JOINED]
    joined = [f"{word} {after}" for word, after in zip(words, [*words[1:], *words[:1]]) if len(words) > 1]
    one, two = [*words, "a", "b"][:2]
    members = [m for m in _unique(members) if 0 < len(m) <= _WORD_CHARS and not any(c.isspace() for c in m)]
    placed = [text for member in members[:_MEMBERS]
              for text in (f"{one} {two} {member}", f"{member} {one} {two}", f"{one} {member} {two}")]
    return joined + placed


def _guards(source: str, mutant: Mutant) -> list[ast.expr]:
    """The tests of the ``if`` and ``while`` statements whose body holds the mutated line (outermost first), then
    those of the ``if`` statements inside a loop whose header is on it (what each step of the loop checks)."""
    nodes = _module_nodes(source)
    around = [node.test for node in nodes if isinstance(node, (ast.If, ast.While)) and node.body
              and node.body[0].lineno <= mutant.line <= (node.body[-1].end_lineno or node.body[-1].lineno)]
    inside = [inner.test for node in nodes if isinstance(node, (ast.For, ast.While))
              and node.lineno == mutant.line for statement in node.body for inner in ast.walk(statement)
              if isinstance(inner, ast.If)]
    return around + inside


def _tested_tables(source: str, mutant: Mutant) -> list[str]:
    """The module-level names the guards of the mutated line look a value up in (``word in prepositions``)."""
    data = set(_data_names(source, 1, len(source.splitlines())))
    return _unique(name.id for guard in _guards(source, mutant) for compare in ast.walk(guard)
                   if isinstance(compare, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in compare.ops)
                   for name in compare.comparators if isinstance(name, ast.Name) and name.id in data)


#: Words of the tests' texts joined two by two for a slice, at most, and the longest taken as a word.
_JOINED = 8
#: Members of a table a loop looks words up in, each put at every place of a three-word text, at most.
_MEMBERS = 4
_WORD_CHARS = 40


#: The largest size bound texts are made for (longer texts cost every call of the search).
_SIZED_MAX = 4096


def _looks_at_case(source: str, mutant: Mutant) -> bool:
    """Does the mutated function look at the case of a text (``line.upper() == line``, ``word.istitle()``,
    ``re.IGNORECASE``), or take a switch for it (``case_sensitive=False``)? Then a text the tests wrote in capitals
    or in lower case takes a branch their own spelling never took."""
    function = _function_node(source, mutant.symbol)
    return function is not None and any(
        isinstance(node, ast.Attribute) and node.attr in _CASE_METHODS
        or isinstance(node, (ast.arg, ast.keyword)) and "case" in (node.arg or "").lower()
        for node in ast.walk(function))


#: What reads or changes the case of a text.
_CASE_METHODS = frozenset({"upper", "lower", "isupper", "islower", "istitle", "title", "capitalize", "casefold",
                           "swapcase", "IGNORECASE"})


def _code_point_characters(source: str, mutant: Mutant, target: ast.FunctionDef,
                           reference: _Driver | None = None) -> list[str]:
    """For code that reads characters as code points (``ord``), the characters at and beside each integer
    constant the mutation changed (a bound ``0x7f`` of a character-width function shows on ``'\\x7f'`` and
    ``'\\x7e'``), and at and beside the ends of the range tables the called function reads (the first
    range's start, the last range's end: a bisection's guard shows there), which no edge value or recorded
    word holds."""
    mutated = _function_node(source, mutant.symbol)
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "ord"
               for function in (target, mutated) if function is not None for n in ast.walk(function)):
        return []
    bounds = [v for v in mutated_constants(source, mutant) if type(v) is int]
    if reference is not None:
        bounds += reference.bounds(_data_read(source, target))
    return _unique(chr(code) for value in bounds if 0 <= value <= sys.maxunicode
                   for code in (value, value - 1, value + 1) if 0 <= code <= sys.maxunicode)


def _data_read(source: str, function: ast.FunctionDef) -> list[str]:
    """The module-level data ``function`` reads, in order of appearance."""
    return _data_names(source, function.lineno, function.end_lineno or function.lineno)


def _matching(pattern: str) -> list[str]:
    """Up to ``_PATTERN_ALTERNATIVES`` short strings ``pattern`` matches (the n-th takes the n-th alternative
    of each choice), then the shortest and one with each repeat taken twice; none when it is not a regular
    expression Python compiles."""
    try:
        compiled = re.compile(pattern)
        parsed = _regex_parser().parse(pattern)
    except (re.error, TypeError, ValueError, OverflowError, RecursionError):
        return []
    found: list[str] = []
    # (the shortest: each repeat as few times as it may, none for `*`, where a `+` made `*` shows; then each
    # repeat that may take more twice, the second time another member of its class, where a `+` made single
    # shows: `12` for `\d+`, which takes both digits where `\d` takes one)
    for choice, repeats in [*((choice, "once") for choice in range(_PATTERN_ALTERNATIVES)), (0, "fewest"),
                            (0, "twice")]:
        try:
            text = _render(parsed, choice, repeats)
        except (RecursionError, ValueError, KeyError):
            continue
        if text not in found and compiled.search(text) is not None:
            found.append(text)
    return found


def _regex_parser() -> Any:
    """Python's own parser of regular expressions (``re._parser`` since 3.11, ``sre_parse`` before)."""
    try:
        import re._parser as parser  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_parse as parser  # type: ignore[import-not-found,no-redef]
    return parser


def _render(parsed: Any, choice: int, repeats: str = "once", second: bool = False) -> str:
    """One string the parsed pattern matches: the ``choice``-th alternative of each branch (the last when
    there are fewer), a class's first member (``second``: its next), each repeat taken once or as often as its
    minimum (``repeats`` "fewest": its minimum, none when it may be absent; "twice": twice where it may)."""
    text: list[str] = []
    for op, value in parsed:
        name = str(op)
        if name == "LITERAL":
            text.append(chr(value))
        elif name == "NOT_LITERAL":
            text.append(next(c for c in _FILLERS if ord(c) != value))
        elif name == "ANY":
            text.append("b" if second else "a")
        elif name == "IN":
            text.append(_member(value, second))
        elif name == "BRANCH":
            branches = value[1]
            text.append(_render(branches[min(choice, len(branches) - 1)], choice, repeats, second))
        elif name == "SUBPATTERN":
            text.append(_render(value[-1], choice, repeats, second))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, inner = value
            times = low if repeats == "fewest" else max(low, 2 if repeats == "twice" and high > 1 else 1)
            text.append("".join(_render(inner, choice, repeats, second or index > 0) for index in range(times)))
        elif name in ("ATOMIC_GROUP",):
            text.append(_render(value, choice, repeats, second))
        # anchors (AT), lookarounds (ASSERT, ASSERT_NOT), back references and conditionals add nothing
    return "".join(text)


def _member(items: Any, second: bool = False) -> str:
    """A character of a class ``[...]``: its first member (``second``: its next, where it has one), or for
    ``[^...]`` the first filler it allows."""
    negated = any(str(op) == "NEGATE" for op, _ in items)
    if not negated:
        members = []
        for op, value in items:
            name = str(op)
            if name == "LITERAL":
                members.append(chr(value))
            elif name == "RANGE":
                members += [chr(value[0]), chr(min(value[0] + 1, value[1]))]
            elif name == "CATEGORY":
                members += list(_CATEGORY_EXAMPLES.get(str(value), "ab"))
        members = members or ["a"]
        return members[1] if second and len(members) > 1 else members[0]
    pattern = re.compile("[" + "".join(_class_text(op, value) for op, value in items) + "]")
    allowed = [c for c in _FILLERS if pattern.fullmatch(c)]
    return (allowed[1] if second and len(allowed) > 1 else allowed[0]) if allowed else "a"


def _class_text(op: Any, value: Any) -> str:
    """The parsed member of a class written back as class syntax (``NEGATE`` as ``^``)."""
    name = str(op)
    if name == "NEGATE":
        return "^"
    if name == "LITERAL":
        return re.escape(chr(value))
    if name == "RANGE":
        return f"{re.escape(chr(value[0]))}-{re.escape(chr(value[1]))}"
    if name == "CATEGORY":
        return {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_WORD": r"\w",
                "CATEGORY_NOT_WORD": r"\W", "CATEGORY_SPACE": r"\s", "CATEGORY_NOT_SPACE": r"\S"}.get(str(value), "")
    return ""


def _spelled(text: str) -> str:
    """A pattern's classes of characters as one character each: ``\\s`` a space, ``\\d`` a digit, ``\\w`` a
    letter. A leading ``\\s*`` dropped from a pattern is told apart by a text that begins with a space, never one
    with an ``s`` put in."""
    return re.sub(r"\\([sdw])", lambda found: {"s": " ", "d": "0", "w": "a"}[found.group(1)], text)


def _character_variants(source: str, mutant: Mutant, samples: Sequence[CallSample]) -> list[str]:
    """Recorded string arguments with a character the mutation added or removed put in, or with one
    character the mutated lines name put in place of another.

    When a mutant drops `_` from the class `[a-z0-9_-]`, the inputs that tell it apart
    contain `_`: "alpha-2" becomes "alpha-2_", "_alpha-2" and "a_lpha-2".
    """
    shift = len(mutant.mutated_source.splitlines()) - len(source.splitlines())
    before = [v for v in _constants_on(source, mutant.line, mutant.end_line) if isinstance(v, str)]
    after = [v for v in _constants_on(mutant.mutated_source, mutant.line, mutant.end_line + shift)
             if isinstance(v, str)]
    changed = (set(_spelled("".join(v for v in before if v not in after)))
               ^ set(_spelled("".join(v for v in after if v not in before))))
    characters = sorted(changed - _PATTERN_SYNTAX)
    strings = _texts_of(samples)
    # One character the line names put in place of another it names: `.replace(',', '.')` dropped is told
    # apart by "P1,5Y" where the tests wrote "P1.5Y".
    singles = sorted({v for v in (*before, *after) if len(v) == 1})
    swapped = [text.replace(old, new) for text in strings for old in singles for new in singles
               if old != new and old in text]
    variants = [variant for text in strings for character in characters
                for variant in (text + character, character + text, text[:1] + character + text[1:])]
    # A check of each character against a set (`all(c in string.hexdigits for c in text[1:])`) weakened or
    # dropped shows on a text that a later parse still takes: `int(' f', 16)`, `int('+f', 16)` and
    # `int('\u0661', 16)` all succeed. So the tests' strings with their second or last character one of those.
    checked = _CHARACTER_CHECKS.search("\n".join(source.splitlines()[mutant.line - 1:mutant.end_line]))
    slipped = [text[:index] + character + text[index + 1:] for text in _shapes(strings) if len(text) > 1
               for index in (1, len(text) - 1) for character in _SLIPPING] if checked else []
    # A pattern of a class of characters on the lines (`[0-9a-z?/:@...]*`, checking a fragment): the tests' texts
    # with a character it refuses put in (`'http://a.com/#top<'`), where a check dropped or skipped lets it through.
    refused = _refused(before)
    kept = [*(text + character for character in refused for text in _shapes(strings, 16)),
            *(text[:1] + character + text[1:] for character in refused for text in _shapes(strings))]
    # (a character or two the mutant edited come first: `'o‘r'` where `‘` left a class; a whole pattern dropped
    # names every character of it, and the refused ones tell)
    edited = variants if len(characters) <= _EDITED else []
    # (and in turn with them, a separator the line names once more: a dropped `if ...count("@") > 1: return`
    # names `@` as removed, and `'@http://a@b.com'` tells nothing that `'http://@a@b.com'` does)
    more = _one_more(singles, strings)
    taken = [text for pair in itertools.zip_longest(edited, more) for text in pair if text is not None]
    return _unique(swapped + slipped + taken + kept + variants + characters)[:60]


#: Texts of the tests that take one more of a separator the mutated lines name, at most.
_SEPARATED = 4


def _one_more(singles: Sequence[str], strings: Sequence[str]) -> list[str]:
    """The tests' texts that hold a character the mutated lines name (a separator the code counts, splits at or
    looks for: `"@"` of `value.count("@") > 1`), with one more of it put in: beside the one there, and a quarter,
    half and three quarters of the way in. How many there may be, and what may stand around one, shows only on
    a text with one too many (`'http://@user:pw@example.com'`), which no test wrote and no edit of the line
    names."""
    found: list[str] = []
    for separator in singles:
        holding = _shapes([text for text in strings if separator in text], _SEPARATED)
        for text in holding:
            places = (text.index(separator), len(text) // 4, len(text) // 2, 3 * len(text) // 4)
            found += [text[:place] + separator + text[place:] for place in places]
    return found


#: At most this many characters changed by the mutation: an edit of the pattern, whose own characters tell first.
_EDITED = 3


def refused_inside(source: str, mutant: Mutant, samples: Sequence[CallSample]) -> list[str]:
    """For lines that hold no pattern of a class of characters, in code that checks its text with one
    (``_username_regex().match(user)``): the tests' texts with what that pattern refuses put a quarter, half and
    three quarters of the way in, where a part of them the mutant now checks another way may begin or end
    (``'http://user:pa"ss@example.com'``, a password the code takes and a whole ``user:pass`` checked by the
    username's pattern refuses), and after them (``'http://a.com/#top<'``, where the mutant skips the check of a
    fragment). A guess from code beyond the mutated lines: tried after what those lines and the tests name."""
    if _refused([v for v in _constants_on(source, mutant.line, mutant.end_line) if isinstance(v, str)]):
        return []  # (the lines' own pattern: ``_character_variants`` puts in what it refuses)
    strings = _texts_of(samples)
    texts, refused = _read_texts(strings), _refused(_patterns_read(source, mutant.line))
    return _unique(text[:place] + character + text[place:] for character in refused for text in texts
                   for place in (len(text) // 4, len(text) // 2, 3 * len(text) // 4, len(text)))


def _texts_of(samples: Sequence[CallSample]) -> list[str]:
    """The text arguments of the tests' calls, in the order recorded."""
    return [value for sample in samples for value in (*sample.args, *sample.kwargs.values()) if isinstance(value, str)]


#: The tests' texts that take what a pattern beyond the mutated lines refuses, at most (with four, validators'
#: one text with a fragment came after those bringing more separators, and `if fragment:` negated was claimed
#: likely equivalent once its results were compared whole).
_READ_TEXTS = 8


def _read_texts(strings: Sequence[str]) -> list[str]:
    """The tests' texts of each first character and length in turn with those split into the most kinds of part,
    ``_READ_TEXTS`` in all (a text with every part is often one the code refuses for another reason, and more
    texts would take the budget of the calls that follow)."""
    turns = itertools.zip_longest(_shapes(strings, _READ_TEXTS), _most_parts(strings, _READ_TEXTS))
    return _unique(text for pair in turns for text in pair if text is not None)[:_READ_TEXTS]


def parts_emptied(source: str, mutant: Mutant, samples: Sequence[CallSample]) -> list[str]:
    """For mutated lines under a question whether a value is empty (``scheme in SCHEMES if scheme else False``,
    ``if not user: return True``): the tests' texts with one part left out, alone and with the separator after it
    (``'//example.com'`` for ``'http://example.com'``: an address without a scheme). The tests rarely leave a part
    of their texts empty, and a value taken from a part of the caller's text is empty only then."""
    if not _asks_if_empty(source, mutant):
        return []
    strings = _texts_of(samples)
    found: list[str] = []
    for text in _read_texts(strings):
        for part in re.finditer(r"[^\W_]+", text):
            start, end = part.span()
            after = end + 1 if end < len(text) and _separators(text[end]) else end
            found += [text[:start] + text[after:], text[:start] + text[end:]]
    return [text for text in _unique(found) if text]


def _asks_if_empty(source: str, mutant: Mutant) -> bool:
    """Is a mutated line in a conditional expression, or in the test or first statement of either branch of an
    ``if`` or ``while``, whose test asks only whether a name is empty (``value``, ``not value``)?"""
    lines = set(range(mutant.line, mutant.end_line + 1))

    def span(*nodes: ast.AST) -> set[int]:
        return {line for node in nodes for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}

    for node in _module_nodes(source):
        if isinstance(node, ast.IfExp) and lines & span(node) or isinstance(node, (ast.If, ast.While)) \
                and lines & span(node.test, *node.body[:1], *node.orelse[:1]):
            test = node.test.operand if isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not) \
                else node.test
            if isinstance(test, ast.Name):
                return True
    return False


def _patterns_read(source: str, line: int) -> list[str]:
    """The texts written in the function holding ``line`` and in the module's functions it calls by name, each
    concatenation of them joined (``r"(^[a-z]" + r"|[0-9])"``, a pattern no part of which compiles alone): the
    patterns the mutated code checks its text with, beyond its own lines."""
    tree = _module_tree(source)
    if tree is None:
        return []
    defined = (ast.FunctionDef, ast.AsyncFunctionDef)
    holding = [node for node in _module_nodes(source) if isinstance(node, defined)
               and node.lineno <= line <= (node.end_lineno or node.lineno)]
    if not holding:
        return []
    inner = min(holding, key=lambda node: (node.end_lineno or node.lineno) - node.lineno)
    top = {node.name: node for node in tree.body if isinstance(node, defined)}
    called = [top[node.func.id] for node in ast.walk(inner) if isinstance(node, ast.Call)
              and isinstance(node.func, ast.Name) and node.func.id in top and top[node.func.id] is not inner]
    texts: list[str] = []
    for function in dict.fromkeys([inner, *called]):
        inside: set[int] = set()  # (the parts of a concatenation already joined)
        for node in ast.walk(function):
            if id(node) in inside:
                continue
            joined = _joined(node) if isinstance(node, ast.BinOp) else None
            if joined is not None:
                texts.append(joined)
                inside.update(id(part) for part in ast.walk(node))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                texts.append(node.value)
    return _unique(texts)


def _joined(node: ast.expr) -> str | None:
    """The text a concatenation of string literals makes (``"a" + "b"``), or None."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _joined(node.left), _joined(node.right)
        return None if left is None or right is None else left + right
    return None


#: Characters a class of a pattern may refuse, tried in this order: those seldom allowed in any text checked.
_REFUSABLE = ("<", '"', "^", "`", "{", "|", "\\", " ")


def _refused(constants: Sequence[str]) -> list[str]:
    """Up to two ``_REFUSABLE`` characters that a pattern among ``constants`` holding a class (``[...]``) does not
    match alone: what its check is there to refuse."""
    refused: list[str] = []
    for text in constants:
        if "[" not in text:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compiled = re.compile(text)
        except (re.error, TypeError, ValueError, OverflowError, RecursionError):
            continue
        refused += [character for character in _REFUSABLE if not compiled.fullmatch(character)]
    return _unique(refused)[:2]


def _most_parts(strings: Sequence[str], kept: int) -> list[str]:
    """The tests' texts that hold the most separators no text taken before held.

    A character put a quarter, half and three quarters of the way into a text lands in one of its parts, and
    what the mutant checks another way is one part (a URL's fragment, after `#`): the texts split into the most
    kinds of part first (`'https://a.com/x?q#!b'` before `'http://foobar.dk'`), each bringing a separator the
    ones before it lacked."""
    taken: list[str] = []
    seen: set[str] = set()
    for _ in range(kept):
        gains = [(len(_separators(text) - seen), -index) for index, text in enumerate(strings) if text not in taken]
        if not gains or max(gains)[0] == 0:
            break
        text = strings[-max(gains)[1]]
        taken.append(text)
        seen |= _separators(text)
    return taken


def _separators(text: str) -> set[str]:
    """The punctuation and symbols of a text (not its letters, marks, digits or spaces)."""
    return {character for character in text if unicodedata.category(character)[0] in "PS"}


def _shapes(strings: Sequence[str], kept: int = 6) -> list[str]:
    """Texts of different shapes, taken in turn from each kind of first character, in the order recorded.

    A check guarded by others (`len(text) == 4 and text.startswith("#") and all(...)`) is reached only by
    the tests' texts of that shape, and the first texts recorded are often a hundred words that never get
    there: so one word, one `#...` text, one `+...` text, then a word of another length, and so on.
    """
    kinds: dict[str, dict[int, str]] = {}
    for text in strings:
        first = text[:1]
        kind = "letter" if first.isalpha() else "digit" if first.isdigit() else first
        kinds.setdefault(kind, {}).setdefault(len(text), text)
    turns = [list(by_length.values()) for by_length in kinds.values()]
    taken = [text for row in itertools.zip_longest(*turns) for text in row if text is not None]
    return taken[:kept]


#: What a line that checks characters against a set names.
_CHARACTER_CHECKS = re.compile(r"\b(?:hexdigits|octdigits|digits|ascii_letters|ascii_lowercase|ascii_uppercase|"
                               r"printable|whitespace|punctuation|isdigit|isdecimal|isnumeric|isalnum|isalpha|"
                               r"isspace|isidentifier|isprintable|isascii)\b")
#: Characters that slip past such a check into what parses the text next: a space, signs, an underscore,
#: a digit of another script (ARABIC-INDIC DIGIT ONE), a letter beyond ASCII.
_SLIPPING = (" ", "+", "-", "_", "\u0661", "\u00ff")
