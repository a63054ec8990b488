"""Comparing what the reference and the mutant did with one input.

A difference counts only where a probe's assertion can see it: two unequal values, or an
exception on one side where the other returns or raises another. ``_Comparer`` calls both
drivers, compares their answers (values the drivers rebuild, arguments and receivers
changed in place, the module data after the import), confirms a difference once more, and
counts what it tried and what it could not compare; the searches only choose inputs.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import json
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

from elenchus.execution import callrecord
from elenchus.analysis.probes.common import Distinction, _module_tree, common_ends
from elenchus.analysis.probes.drivers import _Driver


#: How many times a difference found is observed again before it is believed.
CONFIRMATIONS = 5


def _same(reference: Any, mutant: Any) -> bool:
    """Would the probe's assertion pass for the mutant's value? (approx for a bare float)"""
    if type(reference) is float and isinstance(mutant, (int, float)) and not isinstance(mutant, bool):
        return math.isclose(reference, mutant, rel_tol=1e-6, abs_tol=1e-12)
    try:
        return bool(reference == mutant)
    except Exception:  # noqa: BLE001
        return False


#: Builtin types a result is checked by when `==` takes another type for it: text, bytes and containers. (An
#: integer that became a float, equal under `==`, is seldom a difference anyone wants a test for.)
_TYPED = frozenset({"str", "bytes", "list", "tuple", "dict", "set", "frozenset"})


def _other_type(reference_answer: Mapping[str, Any], mutant_answer: Mapping[str, Any]) -> str | None:
    """The reference result's builtin type when the mutant's result, though equal to it under `==`, is of
    another type (``'2.2.3'`` and ``Version(2, 2, 3)``): every caller that uses it as text, and a test asserting
    ``type(f(x)) is str``, tells them apart."""
    kind, other = reference_answer.get("type"), mutant_answer.get("type")
    return kind if kind in _TYPED and isinstance(other, str) and other != kind else None


def _observed(answer: Mapping[str, Any]) -> tuple[str | None, str | None] | None:
    """(value repr, exception) for a usable observation, else None."""
    if answer.get("kind") == "value":
        return str(answer["repr"]), None
    if answer.get("kind") == "raise":
        return None, str(answer["exception"])
    return None


def _object(answer: Mapping[str, Any]) -> str | None:
    """How a result no text writes is told (``a function object``: plain words, quoted as a value in reports),
    when it is one (not merely too long)."""
    if answer.get("kind") == "unrepresentable" and not answer.get("too_long"):
        return f"a {answer.get('type') or 'object'} object"
    return None


def _seen(answer: Mapping[str, Any]) -> tuple[str | None, str | None] | None:
    """``_observed``, with a result no text writes told by its type: what a witness of None against an object
    compares when it is confirmed."""
    found = _observed(answer)
    described = _object(answer)
    return found if found is not None else None if described is None else (described, None)


def _after(answer: Mapping[str, Any]) -> tuple[str | None, ...]:
    """The positional arguments' states after a call that returned (None: not literal)."""
    return tuple(answer.get("args_after") or ()) if answer.get("kind") == "value" else ()


def _changed_arguments(reference: Sequence[str | None],
                       mutant: Sequence[str | None]) -> tuple[tuple[int, str, str], ...]:
    """Arguments a caller holding them would see in different states after the call."""
    return tuple((index, ref, mut) for index, (ref, mut) in enumerate(zip(reference, mutant))
                 if ref is not None and mut is not None and ref != mut
                 and not _same(callrecord.argument_value(ref), callrecord.argument_value(mut)))


def _changed(reference_answer: Mapping[str, Any],
             mutant_answer: Mapping[str, Any]) -> tuple[tuple[int | str, str, str], ...]:
    """``_changed_arguments``, then each keyword argument (by its name) a caller holding it would see in different
    states after the call (``collect(words, into=[])``)."""
    named = [answer.get("kwargs_after") or {} if answer.get("kind") == "value" else {}
             for answer in (reference_answer, mutant_answer)]
    keywords = tuple((name, named[0][name], named[1][name]) for name in sorted(named[0])
                     if name in named[1] and _changed_arguments([named[0][name]], [named[1][name]]))
    return _changed_arguments(_after(reference_answer), _after(mutant_answer)) + keywords


def _differs(reference: tuple[str | None, str | None], mutant: tuple[str | None, str | None]) -> bool:
    """True when a probe asserting the reference's behaviour fails *at its assertion* on the mutant.

    The probe's call sits inside its check (``assert f(x) == v`` or a ``pytest.raises``
    block), so the mutant raising there, or raising another exception, fails the check too.
    """
    ref_value, ref_exc = reference
    mut_value, mut_exc = mutant
    if ref_value is not None and mut_value is not None:
        return not _same(ast.literal_eval(ref_value), ast.literal_eval(mut_value))
    if ref_value is not None:
        return mut_exc is not None  # raised inside `assert f(x) == v`
    return mut_value is not None or mut_exc != ref_exc  # DID NOT RAISE, or another exception in the block


def _messages(reference_answer: Mapping[str, Any], mutant_answer: Mapping[str, Any]) -> tuple[str, str] | None:
    """(what the code's exception says, what the mutant's says) when both raised the same type with messages
    that differ, each one every process says alike (``callrecord``'s ``message_of``), and at least one raised by
    a ``raise`` statement of the code (``raised_here``): the mutant's own error where the code let the caller's
    through, say. Two operations' messages (``n * 2`` made ``n + n``, given None) name only the operation, which
    no test asserts; else None."""
    if reference_answer.get("kind") != "raise" or mutant_answer.get("kind") != "raise" \
            or reference_answer.get("exception") != mutant_answer.get("exception") \
            or not (reference_answer.get("own") or mutant_answer.get("own")):
        return None
    said = reference_answer.get("message"), mutant_answer.get("message")
    return (said[0], said[1]) if isinstance(said[0], str) and isinstance(said[1], str) and said[0] != said[1] \
        else None


def _told_by_type(reference_answer: Mapping[str, Any], mutant_answer: Mapping[str, Any],
                  subclassed: bool) -> tuple[str, str, str] | None:
    """(the type a test asserts, the code's result and the mutant's as a report tells them) when only the type of
    what the two hand back tells them apart, else None:

    - called on an instance of an empty subclass (``subclassed``), the code hands back that subclass and the
      mutant the class it extends (``OrderedSet(self)`` where the code wrote ``self.__class__(self)``);
    - the code hands back text, bytes or a container, and the mutant an object of another type no text writes,
      or only its ``str`` does (``frequencies`` handing back the ``defaultdict`` it counted in), or an iterator
      (``map(f, seq)`` where the code wrote ``list(map(f, seq))``: equal once listed, but never equal to a list).

    Results are told in plain words (``a defaultdict object``), as ``_object`` tells them: reports quote them."""
    kinds = [str(answer.get("type") or "").rpartition(".")[2] if answer.get("kind") in ("value", "unrepresentable")
             else "" for answer in (reference_answer, mutant_answer)]
    if subclassed:
        if kinds[1] and kinds[0] == callrecord.subclass_name(kinds[1]):
            return kinds[0], f"an instance of {kinds[0]}", f"an instance of {kinds[1]}"
        return None
    reference, mutant = _observed(reference_answer), _observed(mutant_answer)
    unwritten = _object(mutant_answer) is not None if mutant is None else mutant[1] is None and (
        mutant_answer.get("view") is not None and reference_answer.get("view") is None
        or bool(mutant_answer.get("listed")) and not reference_answer.get("listed"))
    if reference is None or reference[0] is None or reference == ("None", None) or not unwritten:
        return None
    typed = _other_type(reference_answer, mutant_answer)
    return None if typed is None else (typed, reference[0], f"a {kinds[1]} object")


def _state_read(state: Any, how: str) -> str | None:
    """A receiver's text as ``how`` reads it: the view itself, or the attributes beneath a repr (``vars``)."""
    if not isinstance(state, list) or len(state) < 2:
        return None
    if state[0] != how and len(state) > 3 and isinstance(state[3], list) and state[3][0] == how:
        return state[3][1]
    return state[1]


def _written(how: str) -> bool:
    """Is a receiver's state read from the stream it writes into (``.wrapped.getvalue()``, or ``@0.getvalue()``:
    the stream its class's call was given first)?"""
    return how.startswith((".", "@")) and how.endswith(".getvalue()")


def _acting_lines(source: str, mutated_source: str) -> tuple[int, ...]:
    """Lines of ``source`` that run only when the statements the mutant dropped act.

    A dropped ``if`` acts when its body runs (its test runs on every pass); any other
    dropped statement when it runs. Empty when the mutant drops nothing.
    """
    old, new = source.splitlines(), mutated_source.splitlines()
    start, end = common_ends(old, new)
    matcher = difflib.SequenceMatcher(None, old[start:len(old) - end], new[start:len(new) - end], autojunk=False)
    gone = {start + line for tag, i1, i2, _, _ in matcher.get_opcodes() if tag == "delete"
            for line in range(i1 + 1, i2 + 1)}
    if not gone:
        return ()
    tree = _module_tree(source)
    if tree is None:
        return ()
    acting: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno in gone and (node.end_lineno or node.lineno) in gone:
            for inner in (node.body + node.orelse) if isinstance(node, ast.If) else [node]:
                acting.add(inner.lineno)
    return tuple(sorted(acting))


def _printed(reference_answer: Mapping[str, Any], mutant_answer: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """(the stream, the reference's text, the mutant's) of the first stream the two calls printed differently,
    when neither read the command line or standard input and both texts came back whole."""
    if reference_answer.get("ambient") or mutant_answer.get("ambient"):
        return None
    texts = [answer.get("printed_text") or ["", ""] if answer.get("printed") else ["", ""]
             for answer in (reference_answer, mutant_answer)]
    if any(answer.get("printed") and not answer.get("printed_text") for answer in (reference_answer, mutant_answer)):
        return None  # (too long to write into a test)
    for stream, code, mutant in zip(("stdout", "stderr"), texts[0], texts[1]):
        if code != mutant:
            return stream, code, mutant
    return None


def _read_input(reference_answer: Mapping[str, Any], mutant_answer: Mapping[str, Any]) -> bool:
    """Did either call read standard input? A test under pytest cannot (its standard input is closed), so what the
    two did then is no witness; that they read it backs no claim either (``_unseen``)."""
    return any("standard input" in (answer.get("ambient") or ()) for answer in (reference_answer, mutant_answer))


def _unseen(reference_answer: Mapping[str, Any], mutant_answer: Mapping[str, Any]) -> str | None:
    """Why two agreeing answers still back no claim: the call printed something else with the mutant (a witness
    when ``_printed`` can write both texts down), or it read the command line every call shares, or standard
    input (``argparse``'s ``parse_args()`` of a command's entry point). One wording for either, so that a gap's
    reason counts them together."""
    if reference_answer.get("printed") != mutant_answer.get("printed"):
        return "output printed differently with the mutant"
    if reference_answer.get("ambient") or mutant_answer.get("ambient"):
        return "calls that read the command line or standard input, the same in every call here"
    return None


def _key(args_repr: Sequence[str], kwargs_repr: Mapping[str, str], receiver: callrecord.Receiver | None,
         argv: Sequence[str] | None, stdin: str | None) -> str:
    return json.dumps([list(args_repr), sorted(kwargs_repr.items()), receiver and receiver.as_json(),
                       None if argv is None else list(argv), stdin])


class _Comparer:
    def __init__(self, reference: _Driver, mutant: _Driver, deadline: float) -> None:
        self.reference = reference
        self.mutant = mutant
        self.deadline = deadline
        self._seen: dict[str, Distinction | None] = {}
        self.tried: dict[str, int] = {}  # inputs actually called, by origin
        self.opaque: dict[str, int] = {}  # results no probe can write down or compare, by what they were
        self.opaque_inputs = 0  # ... the inputs that gave any of them (one input may give two kinds)
        self._made = 0  # inputs tried so far (the one being tried, when it gives something opaque)
        self._opaque_at = -1  # ... when the last opaque result was counted
        self.compared = 0  # inputs whose two results were compared
        self.reached = 0  # ... of which the mutant ran the mutated lines
        self.expired = False  # the deadline came before every input meant was tried
        self.receiver: callrecord.Receiver | None = None  # a method's: the instance each call is made on
        self.argv: tuple[str, ...] | None = None  # a command's: the command line each call is given
        self.stdin: str | None = None  # ... and the text its standard input holds
        self.read = False  # a property's calls are attribute reads
        self.setup_failed: str | None = None  # how the set-up call failed here, when it did
        # Inputs whose two results are equal under `==` but print differently (`1.0` and `1`): no test comparing
        # values sees them, one checking the type or text does; the first is kept to be shown.
        self.alike = 0
        self.first_alike: Distinction | None = None
        # Agreeing calls that printed something else with the mutant, or read what every call here shares (the
        # command line, standard input): the two may differ where no result shows it, so nothing backs a claim.
        self.unsettled = False
        # The first difference that did not come again when its call was made again (a draw from an unseeded
        # `random.Random()`): the calls answer by chance, so their agreement backs no claim either.
        self.unsteady: Distinction | None = None
        self._raised: set[str] = set()  # calls where the code raised (a mode no test's call passes, a bad value)
        self._reaching: set[str] = set()  # calls that ran the mutated code (on any instance)
        self._accepted: set[str] = set()  # calls (of a function) the code answered with a true value

    def _try(self, origin: str) -> None:
        self.tried[origin] = self.tried.get(origin, 0) + 1
        self._made += 1

    def _opaque_seen(self, kind: str) -> None:
        self.opaque[kind] = self.opaque.get(kind, 0) + 1
        if self._opaque_at != self._made:  # (an input counted once, whatever kinds it gave)
            self.opaque_inputs += 1
            self._opaque_at = self._made

    def raised(self, args_repr: Sequence[str], kwargs_repr: Mapping[str, str],
               receiver: callrecord.Receiver | None = None) -> bool:
        """Whether the code raised on this call (made here, with no command line or standard input)."""
        return _key(args_repr, kwargs_repr, receiver, None, None) in self._raised

    def accepted(self, args_repr: Sequence[str], kwargs_repr: Mapping[str, str]) -> bool:
        """Whether the code answered this call of a function (made here) with a true value: a validator's
        ``True``, a parse's result, where a false one is often a refusal."""
        return _key(args_repr, kwargs_repr, None, None, None) in self._accepted

    def reaches(self, args_repr: Sequence[str], kwargs_repr: Mapping[str, str]) -> bool:
        """Whether a call with these arguments, made here, ran the mutated code (where that is watched)."""
        return _key(args_repr, kwargs_repr, None, None, None) in self._reaching

    def check(self, args_repr: Sequence[str], kwargs_repr: Mapping[str, str], origin: str) -> Distinction | None:
        receiver, argv, stdin = self.receiver, self.argv, self.stdin
        mutant_answer: Mapping[str, Any] = {}
        key = _key(args_repr, kwargs_repr, receiver, argv, stdin)
        if key in self._seen:
            return self._seen[key]
        if time.monotonic() > self.deadline:
            self.expired = True
            return None
        self._try(origin)
        result = None
        reference_answer = self.reference.call(args_repr, kwargs_repr, receiver, argv=argv, stdin=stdin)
        if reference_answer.get("kind") == "unbuilt":  # (the code cannot build the instance so: nothing to compare)
            self._seen[key] = None
            return None
        if reference_answer.get("kind") == "setup-failed":
            failed = (reference_answer.get("setup") or {})
            self.setup_failed = str(failed.get("exception") or failed.get("kind") or "it failed")
        reference = _observed(reference_answer)
        if reference is not None and reference[1] is not None:
            self._raised.add(key)
        if reference_answer.get("truthy") and receiver is None and argv is None:
            self._accepted.add(key)
        opaque = {self._opaque(reference_answer)}
        made = tuple(args_repr), tuple(sorted(kwargs_repr.items()))
        if receiver is not None and receiver.subclass:  # a subclass's instance: does it get its own class back?
            mutant_answer = self.mutant.call(args_repr, kwargs_repr, receiver, argv=argv, stdin=stdin)
            result = self._typed(made, origin, reference_answer, mutant_answer, True)
            if result is not None:
                self._seen[key] = result
                return result
        if reference is None and _object(reference_answer) is not None:  # an object no text writes, or None?
            mutant_answer = self.mutant.call(args_repr, kwargs_repr, receiver, argv=argv, stdin=stdin)
            mutant = _observed(mutant_answer)
            if mutant is not None and (mutant[0] == "None" or mutant[1] is not None):
                self.compared += 1
                self.reached += bool(mutant_answer.get("reached") or reference_answer.get("reached"))
                result = Distinction(*made, _object(reference_answer), None, mutant[0], mutant[1], origin,
                                     receiver=receiver, read=self.read, setup=self.reference.setup, nonnull=True)
        if reference is not None:
            mutant_answer = self.mutant.call(args_repr, kwargs_repr, receiver, argv=argv, stdin=stdin)
            mutant = _observed(mutant_answer)
            opaque.add(self._opaque(mutant_answer))
            result = self._typed(made, origin, reference_answer, mutant_answer, False)
            if result is not None:  # (told apart by its type: nothing more to compare)
                mutant = None
            if mutant is None and reference == ("None", None) and _object(mutant_answer) is not None:
                self.compared += 1  # None where the mutant returns an object: `assert f(x) is None`
                self.reached += bool(mutant_answer.get("reached") or reference_answer.get("reached"))
                result = Distinction(*made, "None", None, _object(mutant_answer), None, origin, receiver=receiver,
                                     read=self.read, setup=self.reference.setup)
            if mutant is not None:
                self.compared += 1
                self.reached += bool(mutant_answer.get("reached") or reference_answer.get("reached"))
                # The result is what a test checks first; in-place changes count when it agrees.
                view = reference_answer.get("view")
                differs = view != mutant_answer.get("view") and reference[0] is not None \
                    or self._differs(reference, mutant, reference_answer, mutant_answer)
                read_input = _read_input(reference_answer, mutant_answer)
                differs = differs and not read_input  # (no test hands a call its standard input)
                changed = () if differs else _changed(reference_answer, mutant_answer)
                held = None if differs or changed or receiver is None or receiver.on_class else self._receiver_changed(
                    reference[0] is not None, reference_answer, mutant_answer)
                whole = reference_answer.get("whole")
                if view and not (differs or changed or held) and (whole is None or whole != mutant_answer.get(
                        "whole")):  # agreeing attributes or text, where what lies beneath them may still differ
                    kind = "results that agree only in their attributes or text"
                    self._opaque_seen(kind)
                elif not (differs or changed or held or read_input) and reference[0] is not None \
                        and mutant[0] is not None and reference[0] != mutant[0]:
                    typed = _other_type(reference_answer, mutant_answer)
                    if typed is not None:  # equal under `==`, but not the type the code returns
                        result = Distinction(tuple(args_repr), tuple(sorted(kwargs_repr.items())), reference[0],
                                             None, mutant[0], None, origin,
                                             imports=tuple(reference_answer.get("imports") or ()), receiver=receiver,
                                             read=self.read, setup=self.reference.setup, typed=typed)
                    else:
                        self.alike += 1
                        self.first_alike = self.first_alike or Distinction(
                            tuple(args_repr), tuple(sorted(kwargs_repr.items())), reference[0], None, mutant[0],
                            None, origin, receiver=receiver, read=self.read)
                unseen = None if differs or changed or held or result else _unseen(reference_answer, mutant_answer)
                printed = _printed(reference_answer, mutant_answer) if unseen and reference[1] is None else None
                if printed is not None:  # the same result, but what it prints differs: a test reads that
                    result = Distinction(tuple(args_repr), tuple(sorted(kwargs_repr.items())), reference[0], None,
                                         mutant[0], mutant[1], origin, imports=tuple(reference_answer.get("imports")
                                                                                    or ()), receiver=receiver,
                                         read=self.read, setup=self.reference.setup, printed=printed)
                elif unseen is not None:
                    self.unsettled = True
                    self._opaque_seen(unseen)
                if differs or changed or held:
                    result = Distinction(tuple(args_repr), tuple(sorted(kwargs_repr.items())), reference[0],
                                         reference[1], mutant[0], mutant[1], origin, changed,
                                         tuple(reference_answer.get("imports") or ()), view, receiver,
                                         held and held[0], tuple(held[1]) if held else (), self.read,
                                         self.reference.setup)
        for kind in opaque - {None}:  # (once per input, whichever side gave it)
            self._opaque_seen(kind)
        if mutant_answer.get("reached") or reference_answer.get("reached"):
            self._reaching.add(_key(args_repr, kwargs_repr, None, None, None))
        if result is not None:  # how a test makes the call: lists what it yields, sets its command line, keeps the
            # buffer it closes
            result = dataclasses.replace(result, listed=reference_answer.get("listed") or False, argv=argv,
                                         stdin=stdin, closes=bool(reference_answer.get("closed_output")),
                                         messages=_messages(reference_answer, mutant_answer))
        self._seen[key] = result
        return result

    def check_after(self, first: callrecord.Receiver, args_repr: Sequence[str], kwargs_repr: Mapping[str, str],
                    receiver: callrecord.Receiver, origin: str = "another-instance",
                    counted: bool = True) -> Distinction | None:
        """The call on ``receiver`` made after ``first`` was built and set up (each in a process of its own, so
        nothing it changes outlives it): a result, or a public attribute of the receiver, a test tells apart."""
        if counted:
            self._try(origin)
        reference_answer = self.reference.call(args_repr, kwargs_repr, receiver, first)
        mutant_answer = self.mutant.call(args_repr, kwargs_repr, receiver, first)
        reference, mutant = _observed(reference_answer), _observed(mutant_answer)
        if reference is None or mutant is None:
            return None
        self.compared += counted
        self.reached += counted and bool(mutant_answer.get("reached") or reference_answer.get("reached"))
        made = tuple(args_repr), tuple(sorted(kwargs_repr.items()))
        if not (reference_answer.get("view") or mutant_answer.get("view")) \
                and self._differs(reference, mutant, reference_answer, mutant_answer):
            return Distinction(*made, reference[0], reference[1], mutant[0], mutant[1], origin, receiver=receiver,
                               first=first, messages=_messages(reference_answer, mutant_answer))
        if reference[0] is None or mutant[0] is None:  # (a state seen after a call that raised: no test holds it)
            return None
        before, after = reference_answer.get("public_after"), mutant_answer.get("public_after")
        for name in sorted(before if isinstance(before, dict) and isinstance(after, dict) else ()):
            if isinstance(after.get(name), str) and not _same(callrecord.argument_value(before[name]),
                                                             callrecord.argument_value(after[name])):
                return Distinction(*made, reference[0], None, mutant[0], None, origin, receiver=receiver,
                                   receiver_after=(f".{name}", before[name], after[name]), first=first)
        return None

    def check_emptied(self, args_repr: Sequence[str], kwargs_repr: Mapping[str, str],
                      receiver: callrecord.Receiver | None) -> Distinction | None:
        """The call made again after a caller emptied what the first returned (each side in a process of its
        own): code that hands out a copy gives the same again, code that hands out its own data the emptied
        data."""
        self._try("emptied-result")
        reference_answer = self.reference.call(args_repr, kwargs_repr, receiver, again=True)
        mutant_answer = self.mutant.call(args_repr, kwargs_repr, receiver, again=True)
        reference, mutant = _observed(reference_answer), _observed(mutant_answer)
        if reference is None or mutant is None or reference[0] is None \
                or reference_answer.get("view") or mutant_answer.get("view"):
            return None
        self.compared += 1
        self.reached += bool(mutant_answer.get("reached") or reference_answer.get("reached"))
        if not self._differs(reference, mutant, reference_answer, mutant_answer):
            return None
        return Distinction(tuple(args_repr), tuple(sorted(kwargs_repr.items())), reference[0], None, mutant[0],
                           mutant[1], "emptied-result", imports=tuple(reference_answer.get("imports") or ()),
                           receiver=receiver, read=self.read)

    def read_attribute(self, dotted: str) -> Distinction | None:
        """Whether the module's public data ``dotted`` holds values a test tells apart with ``==`` (written as
        literals or constructors, never a view): then reading it is the witness."""
        self._try("attribute")
        reference_answer, mutant_answer = self.reference.attribute(dotted), self.mutant.attribute(dotted)
        reference, mutant = _observed(reference_answer), _observed(mutant_answer)
        if reference is None or mutant is None or reference[0] is None or mutant[0] is None \
                or reference_answer.get("view") or mutant_answer.get("view"):
            return None
        self.compared += 1
        if not self._differs(reference, mutant, reference_answer, mutant_answer):
            return None
        return Distinction((), (), reference[0], None, mutant[0], None, "attribute",
                           imports=tuple(reference_answer.get("imports") or ()), attribute=dotted)

    def _differs(self, reference: tuple[str | None, str | None], mutant: tuple[str | None, str | None],
                 reference_answer: Mapping[str, Any], mutant_answer: Mapping[str, Any]) -> bool:
        """``_differs``; two values that are not both literals are compared by the reference driver, and one
        exception raised on both sides by what each says (``_messages``)."""
        if reference[1] is not None and reference[1] == mutant[1]:
            return _messages(reference_answer, mutant_answer) is not None
        built = reference_answer.get("imports") is not None or mutant_answer.get("imports") is not None
        if not built or reference[0] is None or mutant[0] is None:
            return _differs(reference, mutant)
        if reference[0] == mutant[0]:
            return False
        imports = [*(reference_answer.get("imports") or ()), *(mutant_answer.get("imports") or ())]
        same = self.reference.equal([reference[0], mutant[0]], imports)
        if same is not False:  # `==` could not tell, or holds while the values print differently
            kind = "values `==` could not compare" if same is None else "values equal under `==` that print differently"
            self._opaque_seen(kind)
        return same is False

    def _receiver_changed(self, returned: bool, reference_answer: Mapping[str, Any],
                          mutant_answer: Mapping[str, Any]) -> tuple[tuple[str, str, str], list[str]] | None:
        """When the two calls agree, whether they leave the receiver in states a test tells apart: ((how it
        is read, the reference's text, the mutant's), the imports the reference's needs). A state no test can
        write down, or one seen only after a call that raised, is counted as not compared: an in-place
        method's agreeing results back no equivalence. Two receivers holding the same plain data agree, even
        where a test could not write that data without naming private attributes."""
        reference, mutant = reference_answer.get("receiver_after"), mutant_answer.get("receiver_after")
        kind = None
        if not (isinstance(reference, list) and isinstance(mutant, list)):
            kind = "a receiver left in a state a test cannot write down"
        elif reference[:2] != mutant[:2] and "state" in (reference[0], mutant[0]):
            kind = "receivers left in different states a test cannot write down"
        elif reference[:2] == mutant[:2]:  # (alike: "state", plain data alike, says so too)
            beneath = [side[3] if len(side) > 3 and isinstance(side[3], list) else None for side in (reference, mutant)]
            if None not in beneath and beneath[0][:2] != beneath[1][:2]:  # printed alike, holding something else
                return self._attributes_changed(returned, beneath[0], beneath[1])
            kind = "receivers that agree only in their text" if reference[0] == "str" else \
                "receivers that agree only in what they wrote into a stream" if _written(reference[0]) \
                and None in beneath else None
        elif reference[0] == mutant[0] == "repr":
            same = self.reference.equal([reference[1], mutant[1]], [*reference[2], *mutant[2]])
            if same is False and returned:
                return (reference[0], reference[1], mutant[1]), list(reference[2])
            kind = ("a receiver left in different states by calls that raised" if same is False else
                    "receivers `==` could not compare")
        elif not returned:
            kind = "a receiver left in different states by calls that raised"
        else:
            return (reference[0], reference[1], mutant[1]), list(reference[2])
        if kind is not None:
            self._opaque_seen(kind)
        return None

    def _typed(self, made: tuple[tuple[str, ...], tuple[tuple[str, str], ...]], origin: str,
               reference_answer: Mapping[str, Any], mutant_answer: Mapping[str, Any],
               subclassed: bool) -> Distinction | None:
        """The difference a test asserts as ``type(f(x)) is T`` (``_told_by_type``), counted as compared."""
        told = _told_by_type(reference_answer, mutant_answer, subclassed)
        if told is None:
            return None
        self.compared += 1
        self.reached += bool(mutant_answer.get("reached") or reference_answer.get("reached"))
        return Distinction(*made, told[1], None, told[2], None, origin,
                           imports=tuple(reference_answer.get("imports") or ()), receiver=self.receiver,
                           read=self.read, setup=self.reference.setup, typed=told[0], typed_only=True)

    def _attributes_changed(self, returned: bool, reference: list[Any],
                            mutant: list[Any]) -> tuple[tuple[str, str, str], list[str]] | None:
        """Two receivers that print alike but whose attributes differ (a repr that leaves out an index): a
        test that reads ``vars(instance)`` tells them apart, when it can write them down; else they are not
        compared (a later call may read what differs)."""
        kind = "receivers that print alike but hold different attributes a test cannot write down"
        if reference[0] == mutant[0] == "vars":
            same = self.reference.equal([reference[1], mutant[1]], [*reference[2], *mutant[2]])
            if same is False and returned:
                return ("vars", reference[1], mutant[1]), list(reference[2])
            kind = "a receiver left in different states by calls that raised" if same is False else \
                "receivers `==` could not compare" if same is None else None
        if kind is not None:
            self._opaque_seen(kind)
        return None

    @staticmethod
    def _opaque(answer: Mapping[str, Any]) -> str | None:
        """What made a result one no probe could write down (too long is only skipped: a literal type)."""
        if answer.get("kind") == "unrepresentable" and not answer.get("too_long"):
            return f"`{answer.get('type') or 'object'}`"
        if None in _after(answer) or None in (answer.get("kwargs_after") or {}).values():
            return "an argument changed in place into a non-literal"
        if answer.get("kind") == "unbuilt":  # (the code built it: the mutant differs before the call is made)
            return "instances the mutant cannot build as the tests built them"
        return None

    def confirm(self, found: Distinction) -> bool:
        """The same observations again, fresh: a nondeterministic function makes no probe (a draw from two
        outcomes repeats itself on both sides this often about once in a thousand)."""
        if self._repeated(found):
            return True
        if self.unsteady is None:
            self.unsteady = found
        return False

    def _repeated(self, found: Distinction) -> bool:
        kwargs = dict(found.kwargs_repr)
        for _ in range(CONFIRMATIONS):
            if found.attribute is not None:  # (data read again, as a test would)
                reference_answer = self.reference.attribute(found.attribute)
                mutant_answer = self.mutant.attribute(found.attribute)
            elif found.emptied:  # (made twice again, what the first returned emptied in between)
                reference_answer = self.reference.call(found.args_repr, kwargs, found.receiver, again=True)
                mutant_answer = self.mutant.call(found.args_repr, kwargs, found.receiver, again=True)
            elif found.typed_only:  # (the type alone again)
                reference_answer = self.reference.call(found.args_repr, kwargs, found.receiver, argv=found.argv,
                                                       stdin=found.stdin)
                mutant_answer = self.mutant.call(found.args_repr, kwargs, found.receiver, argv=found.argv,
                                                 stdin=found.stdin)
                subclassed = found.receiver is not None and found.receiver.subclass
                if _told_by_type(reference_answer, mutant_answer, subclassed) != (
                        found.typed, found.reference_repr, found.mutant_repr):
                    return False
                continue
            elif found.first is not None:  # (after the other instance again: a public attribute, or the result)
                assert found.receiver is not None
                again = self.check_after(found.first, found.args_repr, kwargs, found.receiver, found.origin, False)
                if again != found:
                    return False
                continue
            else:
                reference_answer = self.reference.call(found.args_repr, kwargs, found.receiver, argv=found.argv,
                                                       stdin=found.stdin)
                mutant_answer = self.mutant.call(found.args_repr, kwargs, found.receiver, argv=found.argv,
                                                 stdin=found.stdin)
            if _seen(reference_answer) != (found.reference_repr, found.reference_exception) or _seen(
                    mutant_answer) != (found.mutant_repr, found.mutant_exception):
                return False
            if found.receiver_after and [_state_read(answer.get("receiver_after"), found.receiver_after[0]) for answer
                                         in (reference_answer, mutant_answer)] != list(found.receiver_after[1:]):
                return False
            if found.changed_arguments and _changed(reference_answer, mutant_answer) != found.changed_arguments:
                return False
            if found.printed and _printed(reference_answer, mutant_answer) != found.printed:
                return False
            if found.messages and _messages(reference_answer, mutant_answer) != found.messages:
                return False
        return True


def _compared_state(reference: _Driver, mutated: _Driver, names: Sequence[str]) -> tuple[bool, list[str]]:
    """(whether every one of ``names`` holds the same data in both modules, the names that differ)."""
    if not names:
        return False, []
    mine, theirs = reference.state(names), mutated.state(names)
    changed = [name for name in names if mine[name] is not None and theirs[name] is not None
               and mine[name] != theirs[name]]
    return all(mine[name] is not None and mine[name] == theirs[name] for name in names), changed


def _names(names: Sequence[str], shown: int = 4) -> str:
    listed = ", ".join(f"`{name}`" for name in list(names)[:shown])
    return listed + (f" and {len(names) - shown} more" if len(names) > shown else "")
