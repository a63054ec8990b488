"""Writing a probe: a readable test asserting the reference's behaviour on one input.

``write_probe`` turns a ``Distinction`` into a pytest (or unittest) file that imports only
public names, builds a method's instance as the tests built theirs, makes the set-up call
the tests made, and asserts the reference's value, exception, or the state it leaves; its
docstring says which mutant it guards against. ``host_probe`` wraps a test someone else
wrote; ``call_text`` is a call as a test writes it, for the witnesses' reports too.
"""

from __future__ import annotations

import ast
import hashlib
import re
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

from elenchus.execution import callrecord
from elenchus.mutation.mutate import Mutant
from elenchus.analysis.probes.common import Distinction, Probe


def call_text(function: str, args_repr: Sequence[str], kwargs_repr: Sequence[tuple[str, str]],
               receiver: callrecord.Receiver | None = None, instance: str | None = None, read: bool = False) -> str:
    """The call as a test writes it. A method ``Class.name`` with a ``receiver`` is called on the instance
    built as the tests built it (``Money(5, 'EUR').split(2)``; on ``instance``, a name holding it, when
    given): a special method by its operator or builtin (``(Money(5, 'EUR') + 1)``), a property (``read``) as
    an attribute."""
    arguments = [*map(_readable, args_repr), *(f"{name}={_readable(text)}" for name, text in kwargs_repr)]
    if receiver is None:  # (``read`` without an instance: the module's data, ``Version.NAMES``)
        return function if read else f"{function}({', '.join(arguments)})"
    owner, _, name = function.rpartition(".")
    built = instance or (_maker(receiver, owner) if receiver.on_class else
                         call_text(_maker(receiver, owner), receiver.args_repr, receiver.kwargs_repr))
    if name in callrecord.OPERATORS:
        template = callrecord.OPERATORS[name][1]
        text = template.format(built, *arguments)
        if name in callrecord.STATEMENTS:  # (`cache[1] = 'a'`: a statement, never inside another)
            return text
        return f"({text})" if (" " in template or template.startswith("-")) and not template.startswith(
            "operator.") else text
    if read:
        return f"{built}.{name}"
    return f"{built}.{name}({', '.join(arguments)})"


def _maker(receiver: callrecord.Receiver, owner: str) -> str:
    """What a test calls to build the instance: the class, the empty subclass it defines, or the factory."""
    return callrecord.subclass_name(owner) if receiver.subclass else receiver.factory or owner


def _subclass_definition(distinction: Distinction, function: str) -> str:
    """The empty subclass a test defines, when it builds its instance as one (else nothing)."""
    if not any(made is not None and made.subclass for made in (distinction.receiver, distinction.first)):
        return ""
    owner = function.rpartition(".")[0]
    return (f"\n\n\nclass {callrecord.subclass_name(owner)}({owner}):\n"
            f'    """An empty subclass, as a caller that extends `{owner}` writes one."""')


def _argument_texts(distinction: Distinction) -> list[str]:
    """Every argument a probe writes: the call's, its set-up call's, and its instance's construction."""
    calls = [(distinction.args_repr, distinction.kwargs_repr)]
    calls += [(made.args_repr, made.kwargs_repr) for made in (distinction.setup,) if made]
    texts = [text for args, kwargs in calls for text in (*args, *(value for _, value in kwargs))]
    return texts + [text for built in (distinction.receiver, distinction.first) if built for text in built.texts()]


def _bare(text: str) -> str:
    """``text`` without the parentheses around all of it (an operator's call passed to ``vars``)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    try:
        whole, inner = ast.parse(text, mode="eval"), ast.parse(text[1:-1], mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return text
    same = ast.dump(whole) == ast.dump(inner) and not isinstance(inner.body, ast.Tuple)
    return text[1:-1] if same else text


def _snake(function: str) -> str:
    """A test name's part for ``function`` (``Money.__add__`` -> ``money_add``)."""
    return re.sub(r"_+", "_", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", function.replace(".", "_"))).strip("_").lower()


def _instance_name(function: str) -> str:
    """The local name a test gives the instance whose method it calls (``Money.split`` -> ``money``)."""
    owner = function.rpartition(".")[0]
    name = _snake(owner) or "instance"
    return name if name not in ("pytest", "unittest", "self", owner) else f"{name}_instance"


def _stream_name(instance: str | None) -> str:
    """The name a test holds the stream it builds an instance around in, to read what the instance wrote there."""
    return "stream" if instance != "stream" else "given_stream"


def _building(function: str, receiver: callrecord.Receiver, instance: str, stream_at: int | None = None) -> list[str]:
    """The lines that build a method's instance as the tests built theirs: its class's call, then the set-up
    calls they made on it (``engine = Engine()``, ``engine.classical(all=True)``); the argument at ``stream_at``
    held in a name first (``stream = io.StringIO('')``, ``writer = Writer(stream)``)."""
    owner = function.rpartition(".")[0]
    passed = [_stream_name(instance) if index == stream_at else text for index, text in enumerate(receiver.args_repr)]
    built = call_text(_maker(receiver, owner), passed, receiver.kwargs_repr)
    held = [f"{_stream_name(instance)} = {receiver.args_repr[stream_at]}"] if stream_at is not None else []
    # (each step made on the instance as a test makes a call of that method: `cache[1] = 'a'` for an item set)
    return [*held, f"{instance} = {built}", *(call_text(f"{owner}.{name}", args, kwargs, receiver, instance)
                                              for name, args, kwargs in receiver.steps)]


def _stream_at(how: str) -> int | None:
    """The position of the stream a receiver's state is read from, when it is the one its class's call was given
    (``@0.getvalue()``), else None."""
    found = re.fullmatch(r"@(\d+)\.getvalue\(\)", how)
    return int(found.group(1)) if found else None


def _readable(text: str) -> str:
    """A power of ten too long to read (``10**400``) as a person writes it."""
    found = re.fullmatch(r"(-?)10{20,}", text)
    return f"{found.group(1)}10**{len(text) - len(found.group(1)) - 1}" if found else text


def _kept_buffer(name: str) -> str:
    """A test's lines making ``name`` a buffer that keeps what was printed to it when the call closes it."""
    return f"    {name} = io.StringIO()\n    {name}.close = lambda: None  # the call closes its output\n"


def _behaviour(value: str | None, exception: str | None, message: str | None = None) -> str:
    return value if value is not None else f"raise {exception}" + ("" if message is None else f"({message!r})")


_KEEP = "\x00"  # stands for a space inside `code`, where a docstring line must not break


def _docstring(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    pieces = escaped.split("`")
    escaped = "`".join(piece.replace(" ", _KEEP) if i % 2 else piece for i, piece in enumerate(pieces))
    lines: list[str] = []
    for paragraph in escaped.split("\n\n"):
        lines += textwrap.wrap(paragraph, width=92, break_long_words=False, break_on_hyphens=False) or [""]
        lines.append("")
    body = "\n".join(f"    {line}" if line else "" for line in lines[:-1]).replace(_KEEP, " ")
    return f'    """{body.lstrip()}\n    """\n'


def _narrate(value: str | None, exception: str | None, message: str | None = None) -> str:
    return f"returns {value}" if value is not None else "raises " + _behaviour(None, exception, message)[6:]


def _said(distinction: Distinction, side: int) -> str | None:
    """What the exception of one side (0: the code, 1: the mutant) says, when only that tells the two apart."""
    return None if distinction.messages is None else distinction.messages[side]


def _is_float(text: str) -> bool:
    """Is ``text`` a float literal (asserted with ``pytest.approx``)? Constructor texts are not."""
    try:
        return type(ast.literal_eval(text)) is float
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _held_arguments(distinction: Distinction, taken: str) -> dict[int | str, str]:
    """Local names for the arguments a probe must hold to look at them after the call (not ``taken``), by
    position, or by name for a keyword argument."""
    indexes = [index for index, _, _ in distinction.changed_arguments]
    stem = "argument" if "argument" not in taken else "held"
    return {index: stem if len(indexes) == 1 else f"{stem}_{index + 1 if isinstance(index, int) else index}"
            for index in indexes}


def _argument_text(distinction: Distinction, index: int | str) -> str:
    """The text of the argument at ``index``: a position, or a keyword argument's name."""
    return distinction.args_repr[index] if isinstance(index, int) else dict(distinction.kwargs_repr)[index]


def _argument_named(index: int | str) -> str:
    """How a report names the argument at ``index`` (``argument 2``, ``argument `into```)."""
    return f"argument {index + 1}" if isinstance(index, int) else f"argument `{index}`"


#: How the state of a method's instance after the call is named, by how it is read.
_INSTANCE_STATE = {"vars": "the instance's attributes", "str": "the instance's text", "repr": "the instance"}


def _written_text(after: str) -> str | None:
    """What an in-memory stream holds, as ``getvalue()`` gives it, when an argument's state after the call is one
    (``io.StringIO('a\\n')`` gives ``'a\\n'``); else None."""
    if not after.startswith(("io.StringIO(", "io.BytesIO(")):
        return None
    try:
        return repr(callrecord.argument_value(after).getvalue())
    except ValueError:
        return None


def arguments_narrated(distinction: Distinction, side: int, short: bool = False) -> str:
    """How one side leaves the arguments (or the method's instance) it changed in place (side 1: reference,
    2: mutant)."""
    changes = [(f"what was written into {_argument_named(change[0])}", _written_text(change[side]))
               if _written_text(change[side]) is not None else (_argument_named(change[0]), change[side])
               for change in distinction.changed_arguments]
    if distinction.receiver_after is not None:
        how = distinction.receiver_after[0]
        what = "what the instance wrote into the stream it was built with" if _stream_at(how) is not None \
            else f"what the instance wrote into its `{how[1:-len('.getvalue()')]}`" if how.endswith(".getvalue()") \
            else f"the instance's `{how[1:]}`" if how.startswith(".") else _INSTANCE_STATE[how]
        changes.append((what, distinction.receiver_after[side]))
    if not changes:
        return ""
    if short:
        return " (" + "; ".join(f"{what} {'become' if what.endswith('s') else 'becomes'} {after}"
                                for what, after in changes) + ")"
    return " and leaves " + ", ".join(f"{what} as {after}" for what, after in changes)


def _import_lines(names: Mapping[str, list[str]]) -> list[str]:
    lines = []
    for module, imported in names.items():
        if module:
            lines.append(f"from {module} import {', '.join(sorted(set(imported), key=str.lower))}")
        else:
            lines += [f"import {name}" for name in imported]
    return lines


def write_probe(mutant: Mutant, distinction: Distinction, module: str, *, contract_id: str | None = None,
                function: str | None = None, witness: bool = False, incident: str | None = None,
                style: str = "pytest", path: str | None = None) -> Probe:
    """A readable pytest file asserting the reference's behaviour on the distinguishing input.

    ``function`` is the public function the input calls (default: the mutated one);
    ``witness`` words it for Test Evaluation (the code as it is) rather than Capture;
    ``incident`` replaces the mutant's sentence when that does not describe this input;
    ``style`` "unittest" writes a ``unittest.TestCase`` method instead of a test function (the
    style of the project's nearest test file); ``path`` is where the file will go."""
    function = distinction.attribute or function or mutant.symbol
    code = "the code" if witness else "the reference"
    names: dict[str, list[str]] = {}
    first = function.split(".")[0]
    if first.startswith("test"):  # imported under its own name pytest would collect it as a test
        parent, _, leaf = module.rpartition(".")
        names.setdefault(parent, []).append(leaf)
        callee = f"{leaf}.{function}"
    else:  # (the module's function the tests built each instance with, its class where they called that)
        built = [made for made in (distinction.receiver, distinction.first) if made is not None]
        names.setdefault(module, []).extend(
            [*([first] if not built or any(made.factory is None for made in built) else []),
             *(made.factory for made in built if made.factory)])
        callee = function
    held = _held_arguments(distinction, " ".join([callee, *distinction.imports]))
    passed = tuple(held.get(index, text) for index, text in enumerate(distinction.args_repr))
    named = tuple((name, held.get(name, text)) for name, text in distinction.kwargs_repr)
    receiver = distinction.receiver
    # (held in a name: set up after its construction, or called twice)
    stepped = receiver is not None and (bool(receiver.steps) or distinction.emptied)
    instance = _instance_name(function) if distinction.receiver_after or stepped else None
    read = distinction.read or distinction.attribute is not None
    call = call_text(callee, passed, named, receiver, instance, read)
    shown = call_text(function, distinction.args_repr, distinction.kwargs_repr, receiver, instance if stepped else None,
                      read=read)
    if distinction.emptied:  # a caller empties what the call handed out, then asks again
        shown = f"{shown}.clear(); {shown}"
    if receiver is not None and receiver.subclass:  # (the class the instance is built as, named)
        owner = function.rpartition(".")[0]
        shown = f"class {callrecord.subclass_name(owner)}({owner}): pass; {shown}"
    stream_at = _stream_at(distinction.receiver_after[0]) if distinction.receiver_after else None
    building = _building(function, receiver, instance, stream_at) if receiver is not None and instance is not None \
        else []
    each = distinction.view == callrecord.EACH_STR and distinction.reference_exception is None
    if distinction.listed == "each":  # a tuple of iterators: what each yields
        call, shown = f"tuple(map(list, {call}))", f"tuple(map(list, {shown}))"
    elif distinction.listed and not each:  # a generator: what it yields is what a test reads
        call, shown = f"list({call})", f"list({shown})"
    matched = distinction.view == "match" and distinction.reference_exception is None
    if each:  # items no text rebuilds, each written by its own text
        call, shown = f"[str(item) for item in {call}]", f"[str(item) for item in {shown}]"
    elif distinction.view is not None and distinction.reference_exception is None and not matched:
        # what a test can assert of it
        call, shown = f"{distinction.view}({_bare(call)})", f"{distinction.view}({_bare(shown)})"
    if stepped:
        shown = "; ".join([*building, shown])
    # another instance, set up first as the tests set one up: what it changes must not reach this one
    earlier = _building(function, distinction.first, f"other_{instance or _instance_name(function)}") \
        if distinction.first is not None else []
    if earlier:
        shown = "; ".join([*earlier, shown])
    test_name = f"test_{_snake(function)}_{mutant.id[:8]}"
    path = path or f"tests/test_elenchus_probe_{mutant.id}.py"

    needs_pytest = printing = False
    if distinction.reference_exception is not None:
        needs_pytest = True
        exc_module, _, exc_name = distinction.reference_exception.rpartition(".")
        if exc_module:
            names.setdefault(exc_module, []).append(exc_name)
        body = f"    with pytest.raises({exc_name}):\n        {call}\n"
        if distinction.messages is not None:  # the same exception, saying something else: what a test reads
            body = (f"    with pytest.raises({exc_name}) as raised:\n        {call}\n"
                    f"    assert str(raised.value) == {distinction.messages[0]!r}\n")
    else:
        assert distinction.reference_repr is not None
        expected = distinction.reference_repr
        if _is_float(expected):
            needs_pytest = True
            expected = f"pytest.approx({expected})"
        line = f"    assert {call} is None\n" if expected == "None" else f"    assert {call} == {expected}\n"
        body = line if len(line) <= 100 else f"    expected = {expected}\n    assert {call} == expected\n"
        if receiver is not None and function.rpartition(".")[2] in callrecord.STATEMENTS:
            # (an item set or deleted is a statement: asserted as the call the operator module makes of it)
            owner, _, name = function.rpartition(".")
            made = instance or call_text(_maker(receiver, owner), receiver.args_repr, receiver.kwargs_repr)
            as_call = call_text(f"operator.{name[2:-2]}", (made, *passed), distinction.kwargs_repr)
            body = f"    assert {as_call} is None\n"
        if distinction.nonnull:  # an object no text writes, where the mutant gives None or raises
            needs_pytest = False
            body = f"    assert {call} is not None\n"
        if distinction.typed is not None:  # equal under `==` to the mutant's, which is of another type
            needs_pytest = False
            body = f"    assert type({call}) is {distinction.typed}\n"
        if distinction.printed is not None:  # the same result, but it prints something else: what a test reads
            stream, text, _ = distinction.printed
            needs_pytest, printing = False, True
            body = (f"    with contextlib.redirect_{stream}(io.StringIO()) as printed:\n        {call}\n"
                    f"    assert printed.getvalue() == {text!r}\n")
            if distinction.closes:  # (the call closes what it prints to: the buffer keeps what it held)
                body = (f"{_kept_buffer('printed')}    with contextlib.redirect_{stream}(printed):\n        {call}\n"
                        f"    assert printed.getvalue() == {text!r}\n")
        if matched:  # a regex match: what it matched, where, and each group
            body = f"    found = {call}\n    expected = {expected}\n    assert {callrecord.MATCH_FACTS} == expected\n"
        if distinction.closes and distinction.printed is None:  # it closes its output: give it one to close
            printing = True
            inner = textwrap.indent(body, "    ")
            body = f"{_kept_buffer('output')}    with contextlib.redirect_stdout(output):\n{inner}"
        if held:  # the call changes arguments in place: hold them, then check their states
            body = "".join(f"    {held[index]} = {_argument_text(distinction, index)}\n"
                           for index in sorted(held, key=str)) + body
            for index, after, _ in distinction.changed_arguments:
                written = _written_text(after)  # (a stream given empty: what the call wrote into it)
                if written is not None:
                    body += f"    assert {held[index]}.getvalue() == {written}\n"
                    continue
                if _is_float(after):
                    needs_pytest, after = True, f"pytest.approx({after})"
                body += f"    assert {held[index]} == {after}\n"
        if instance is not None and receiver is not None and distinction.receiver_after is not None:
            # the call leaves its instance in another state: build it, call, then check the state
            how, after, _ = distinction.receiver_after
            state = f"{_stream_name(instance)}.getvalue()" if _stream_at(how) is not None else f"{instance}{how}" \
                if how.startswith(".") else {
                "repr": instance, "vars": f"vars({instance})", "str": f"str({instance})"}[how]
            body = f"    {call}\n    assert {state} == {after}\n"
        if distinction.emptied:
            body = f"    {call}.clear()\n" + body
    if building:  # the instance, built (and set up) as the tests built theirs, before the call
        body = "".join(f"    {line}\n" for line in building) + body
    body = "".join(f"    {line}\n" for line in earlier) + body
    if distinction.setup is not None:  # the call the tests made first, that selects the state shown
        setup_name = distinction.setup.target.partition(":")[2]
        names.setdefault(module, []).append(setup_name)
        before = call_text(setup_name, distinction.setup.args_repr, distinction.setup.kwargs_repr)
        if distinction.undo is not None:  # the state it selects must not outlive the test
            undo_name = distinction.undo.target.partition(":")[2]
            names[module].append(undo_name)
            undone = call_text(undo_name, distinction.undo.args_repr, distinction.undo.kwargs_repr)
            body = f"    try:\n{textwrap.indent(body, '    ')}    finally:\n        {undone}\n"
        body = f"    {before}\n" + body
        shown = f"{before}; {shown}"
    if distinction.stdin is not None:  # ... and what it reads from standard input, set for the call too
        body = (f"    with unittest.mock.patch.object(sys, 'stdin', io.StringIO({distinction.stdin!r})):\n"
                f"{textwrap.indent(body, '    ')}")
    if distinction.argv is not None:  # a command's entry point: the command line it reads, set for the call
        command = list(distinction.argv)
        body = f"    with unittest.mock.patch.object(sys, 'argv', {command!r}):\n{textwrap.indent(body, '    ')}"
        shown = f"{shown} with sys.argv = {command!r}"
    if distinction.stdin is not None:
        shown = f"{shown} and standard input {distinction.stdin!r}"
    if style == "unittest":  # the TestCase's own assertions where they say the same
        body = body.replace("with pytest.raises(", "with self.assertRaises(").replace(
            "str(raised.value)", "str(raised.exception)")
        lines = []
        for line in body.splitlines(keepends=True):
            left, approx, right = line.rpartition(" == pytest.approx(")
            if approx and left.lstrip().startswith("assert ") and right.endswith(")\n"):
                indent = left[:len(left) - len(left.lstrip())]
                line = f"{indent}self.assertAlmostEqual({left.lstrip()[len('assert '):]}, {right[:-2]})\n"
            lines.append(line)
        body = "".join(lines)
        needs_pytest = "pytest." in body
    commanded = distinction.argv is not None or distinction.stdin is not None
    operated = re.search(r"\boperator\.\w+\(", body) is not None  # (an item set, `operator.imul(...)`)
    imports = ("import contextlib\n" if printing else "") \
        + ("import io\n" if printing or distinction.stdin is not None else "") \
        + ("import operator\n" if operated else "") \
        + ("import sys\nimport unittest.mock\n" if commanded else "") \
        + ("import unittest\n\n" if style == "unittest" else "\n" if printing or commanded or operated else "") \
        + ("import pytest\n\n" if needs_pytest else "") \
        + "\n".join(dict.fromkeys([*callrecord.argument_imports(_argument_texts(distinction)),
                                    *distinction.imports, *distinction.receiver_imports, *_import_lines(names)]))

    if distinction.attribute is not None:  # data read, not a call
        told = (f"{shown} holds {distinction.reference_repr} with {code}; with the mutant it holds "
                f"{distinction.mutant_repr}.")
    else:
        told = (f"For {shown} {code} "
                f"{_narrate(distinction.reference_repr, distinction.reference_exception, _said(distinction, 0))}"
                f"{arguments_narrated(distinction, 1)}; the mutant "
                f"{_narrate(distinction.mutant_repr, distinction.mutant_exception, _said(distinction, 1))}"
                f"{arguments_narrated(distinction, 2)}")
        subclassed = receiver is not None and receiver.subclass
        told += (f", not the caller's `{distinction.typed}`." if distinction.typed is not None and subclassed
                 else f", not a `{distinction.typed}`." if distinction.typed is not None and distinction.typed_only
                 else f", equal to it under `==` but not a `{distinction.typed}`." if distinction.typed is not None
                 else ".")
        if distinction.printed is not None:
            stream, text, other = distinction.printed
            where = "standard output" if stream == "stdout" else "standard error"
            told = f"For {shown} {code} prints {text!r} to its {where}; the mutant prints {other!r}."
    summary = (f"Guards against: {incident or mutant.incident}\n\n"
               f"Mutant {mutant.id} at {mutant.path}:{mutant.line} {mutant.changed_intent}. {told}")
    if contract_id:
        summary += f"\n\nContract: {contract_id}."
    heading = ("Elenchus witness: asserts the current behaviour of" if witness else
               "Elenchus probe (Capture mode): asserts the reference behaviour of")
    if style == "unittest":
        case = "Test" + "".join(part[:1].upper() + part[1:] for part in re.split(r"[_.]", function) if part) \
            + "Witness"
        method = textwrap.indent(f"def {test_name}(self):\n" + _docstring(summary) + body, "    ")
        definition, nodeid = f"class {case}(unittest.TestCase):\n{method}", f"{path}::{case}::{test_name}"
    else:
        definition, nodeid = f"def {test_name}():\n" + _docstring(summary) + body, f"{path}::{test_name}"
    first = f"{heading.rpartition(':')[0]}: asserts what `{function}` holds." if distinction.attribute is not None \
        else f"{heading} `{function}` on one input."
    source = f'"""{first}"""\n\n' + imports + _subclass_definition(distinction, function) + "\n\n\n" + definition
    return Probe(
        id=mutant.id,
        path=path,
        source=source,
        test_nodeid=nodeid,
        contract_id=contract_id,
        mutant_ids=(mutant.id,),
        input_repr=shown,
        reference_repr=f"print {distinction.printed[1]!r}" if distinction.printed else _behaviour(
            distinction.reference_repr, distinction.reference_exception, _said(distinction, 0)),
        mutant_repr=f"print {distinction.printed[2]!r}" if distinction.printed else _behaviour(
            distinction.mutant_repr, distinction.mutant_exception, _said(distinction, 1)),
        module=module,
        function=function,
        args_repr=distinction.args_repr,
        kwargs_repr=distinction.kwargs_repr,
        receiver=receiver,
    )


def host_probe(path: str, source: str, *, mutant_ids: Sequence[str] = (), contract_id: str | None = None) -> Probe:
    """A ``Probe`` for a test file written by a host (an agent or a person); runs as a whole file."""
    digest = hashlib.sha256(f"{path}\0{source}".encode()).hexdigest()[:12]
    return Probe(id=f"host-{digest}", path=PurePosixPath(Path(path).as_posix()).as_posix(), source=source,
                 test_nodeid=PurePosixPath(Path(path).as_posix()).as_posix(), contract_id=contract_id,
                 mutant_ids=tuple(mutant_ids), input_repr="", reference_repr="", mutant_repr=None)
