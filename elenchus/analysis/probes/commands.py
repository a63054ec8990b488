"""Command lines for a command's entry point, from the options its parser declares.

A command's options are read from its own code: the ``add_argument`` calls of the entry point and of
the module's functions it calls (``main`` calling ``create_parser``), each option with the values
it takes (each of its ``choices``, a number for ``type=int``, nothing for a flag). Those options are
put on the command lines a search gives an entry point reading ``sys.argv`` (``command_lines``), and
on the argument lists the tests passed one taking its command line as an argument
(``with_command_options``: ``main([path, '-r'])`` becomes ``main([path, '-r', '--keywords', 'upper'])``).
A mutant of how an option is declared (its destination, a choice) shows only when a command line
names that option, and the tests' own command lines name a few.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

from elenchus.analysis.probes.boundary import _unique
from elenchus.analysis.probes.common import CallSample
from elenchus.analysis.probes.designed import _WORD_CHARS
from elenchus.execution import callrecord


def command_lines(function: ast.FunctionDef, module: str, texts: Sequence[Any],
                  declared: Sequence[tuple[str, ...]] = ()) -> list[tuple[tuple[str, ...], str | None]]:
    """For a command's entry point (a function taking no argument that parses the command line: ``parse_args()``,
    ``sys.argv``): command lines to give it, each with the text its standard input holds (None: an empty one).
    The program's name then the tests' short texts, alone, word by word, and after each option the function names
    (``['titlecase', '--preserve-blank-lines', 'a cup of tea']``), then after each option its parser declares
    with a value it takes (``declared``, from ``parser_options``). What such a function does depends on nothing a
    call passes, and the one command line every call shares shows none of its options. A function that reads
    standard input is also given a text there, with its name alone and with each option followed by ``-``
    (``['titlecase', '-f', '-']``): a test sets ``sys.stdin`` as it sets ``sys.argv``."""
    arguments = function.args
    if arguments.posonlyargs or len(arguments.args) > len(arguments.defaults) or None in arguments.kw_defaults:
        return []
    if not reads_command_line(function):
        return []
    words = _unique(t for t in texts if isinstance(t, str) and t.strip() and len(t) <= _WORD_CHARS
                    and "\n" not in t and not t.startswith("-"))
    # (words first: a command's argument is text to work on, and `'../'` tells only how it fails)
    words = sorted(words, key=lambda t: not any(c.isalpha() for c in t))[:_COMMAND_WORDS] or ["hello world"]
    options = _unique(node.value for node in ast.walk(function) if isinstance(node, ast.Constant)
                      and isinstance(node.value, str) and _OPTION.fullmatch(node.value))
    program = module.rpartition(".")[2]
    made: list[tuple[tuple[str, ...], str | None]] = [((program, word), None) for word in words]
    made += [((program, *word.split()), None) for word in words if len(word.split()) > 1][:_COMMAND_WORDS // 2]
    made += [((program, option, words[0]), None) for option in options]
    if any(isinstance(node, ast.Attribute) and node.attr == "stdin" for node in ast.walk(function)):
        made += [((program,), words[0])] + [((program, option, "-"), words[0]) for option in options]
    made += [((program, *group, words[0]), None) for group in declared if len(group) > 1 or group[0] not in options]
    return list(dict.fromkeys(made))[:_COMMAND_LINES]  # (the program's name alone, with an empty input, is what
    # every call shares)


def reads_command_line(function: ast.FunctionDef) -> bool:
    """Does ``function`` parse a command line (``parser.parse_args(...)``, ``sys.argv``)?"""
    return any(isinstance(node, ast.Attribute) and (node.attr == "parse_args" or node.attr == "argv" and isinstance(
        node.value, ast.Name) and node.value.id == "sys") for node in ast.walk(function))


def parser_options(tree: ast.Module | None, function: ast.FunctionDef) -> list[tuple[str, ...]]:
    """The options the parser of a command's entry point declares, each with a value it takes: ``('--keywords',
    'upper')`` for each of its ``choices``, ``('--indent_width', '3')`` for a number one more than its default,
    ``('--compact', 'True')`` for ``type=bool``, ``('--reindent',)`` for a flag. Read from the ``add_argument``
    calls of ``function`` and of the module's functions it calls (``create_parser()``); an option whose value
    is free text (a file name, an encoding) is left out, and so are ``--help`` and ``--version``, which end the
    command before it does its work. Empty for a function that parses no command line."""
    if tree is None or not reads_command_line(function):
        return []
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    bodies = list(dict.fromkeys([function, *(functions[call.func.id] for call in ast.walk(function) if isinstance(
        call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in functions)]))
    found: list[tuple[str, ...]] = []
    for body in bodies:
        lists = _literal_lists([*tree.body, *ast.walk(body)])
        for call in ast.walk(body):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                    and call.func.attr in _DECLARING:
                found += _option_values(call, lists)
    return _unique(found)[:_DECLARED]


def _literal_lists(statements: Sequence[ast.AST]) -> dict[str, list[Any]]:
    """{name: its values} for each name assigned a list or tuple of literals (``_CASE_CHOICES = ['upper', ...]``)."""
    found = {}
    for node in statements:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, (ast.List, ast.Tuple)):
            values = _literal(node.value)
            if isinstance(values, (list, tuple)):
                found[node.targets[0].id] = list(values)
    return found


def _option_values(call: ast.Call, lists: dict[str, list[Any]]) -> list[tuple[str, ...]]:
    """The command-line pieces that give one declared option a value it takes (``_OPTION_VALUES`` at most)."""
    flags = [arg.value for arg in call.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
             and _OPTION.fullmatch(arg.value)]
    if not flags:  # (a positional argument: the tests' own command lines give it)
        return []
    flag = max(flags, key=len)  # (the long form reads as what it does: `--keywords upper`, not `-k upper`)
    given = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
    action = _literal(given.get("action"))
    if action in _FLAG_ACTIONS:
        return [(flag,)]
    if action not in (None, "store", "append", "extend"):  # (`help`, `version`, a class of the code's own)
        return []
    choices = given.get("choices")
    values = lists.get(choices.id) if isinstance(choices, ast.Name) else _literal(choices)
    if isinstance(values, (list, tuple)):
        return [(flag, str(value)) for value in values if isinstance(value, (str, int, float))][:_OPTION_VALUES]
    kind = given.get("type")
    kind = kind.id if isinstance(kind, ast.Name) else None
    default = _literal(given.get("default"))
    if kind in ("int", "float"):
        number = default + 1 if isinstance(default, (int, float)) and not isinstance(default, bool) else 1
        return [(flag, str(number))]
    if kind == "bool":  # (`type=bool` takes any text but an empty one as true)
        return [(flag, "True")]
    return []


def _literal(node: ast.expr | None) -> Any:
    try:
        return ast.literal_eval(node) if node is not None else None
    except _UNREADABLE:
        return None


def with_command_options(samples: Sequence[CallSample], declared: Sequence[tuple[str, ...]]) -> list[CallSample]:
    """The tests' calls of an entry point taking its command line as an argument (``main([path, '-r'])``), with
    each option its parser declares added to that list (``declared``, from ``parser_options``), when the list
    does not name it yet: each option on the ``_COMMAND_BASES`` shortest command lines, every option on one
    before any on the next."""
    bases = []
    for sample in samples:
        values = sample.args
        slot = next((i for i, value in enumerate(values) if isinstance(value, (list, tuple)) and value
                     and all(isinstance(item, str) for item in value)), None)
        if slot is not None:
            bases.append((sample, slot, values[slot]))
    bases = sorted({(s.args_repr, s.kwargs_repr): (s, slot, line) for s, slot, line in bases}.values(),
                   key=lambda base: len(base[2]))[:_COMMAND_BASES]
    made: dict[tuple[Any, ...], CallSample] = {}
    for sample, slot, line in bases:
        for group in declared:
            if group[0] in line:
                continue
            extended = type(line)([*line, *group])
            args_repr = (*sample.args_repr[:slot], callrecord.argument_repr(extended), *sample.args_repr[slot + 1:])
            call = CallSample(sample.target, args_repr, sample.kwargs_repr, sample.receiver)
            made.setdefault((call.args_repr, call.kwargs_repr), call)
    return list(made.values())


#: What reading a literal off the syntax tree raises for one it cannot read (a name, a call, one nested too deep).
_UNREADABLE = (ValueError, TypeError, SyntaxError, RecursionError, MemoryError)
#: What an option of a command line looks like (`-f`, `--input-file`).
_OPTION = re.compile(r"--?[A-Za-z][\w-]*")
#: Calls declaring an option (argparse's, and optparse's).
_DECLARING = frozenset({"add_argument", "add_option"})
#: Actions whose option takes no value.
_FLAG_ACTIONS = frozenset({"store_true", "store_false", "store_const", "append_const", "count"})
#: The tests' texts put on a command line, and command lines given to one entry point, at most.
_COMMAND_WORDS = 4
_COMMAND_LINES = 24
#: Declared options read per entry point, values tried per option, and the tests' command lines given them.
_DECLARED = 48
_OPTION_VALUES = 6
_COMMAND_BASES = 3
