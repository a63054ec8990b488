"""Which tests execute which lines, from a cohort's baseline, and the tests a mutant needs.

A mutant can only be caught by a test that executes the mutated lines, so each mutant
run executes those tests alone, likeliest killers first (tests that caught other mutants,
then the fastest), and a mutant no test executes is "not covered" without any run.
Line coverage cannot follow everything a mutant changes, so the whole relevant set runs
instead whenever the mutated lines are not plainly inside a function body (module and
class code, signatures, decorators, default values: they run at import, and a lazily
imported module runs them inside whichever test imported it first), or ran at import or
in a fixture's setup or teardown (a shared fixture hands its result to tests that never
execute those lines themselves), or sit in a function that keeps what it does for later calls (results
cached by `@lru_cache` and the like, a module global it sets: its body runs in the first test that calls it
only), or when the baseline could not be measured per test (tests run by xdist workers). The same map says
where the import took one branch of module-level code and not the other (``untaken_branch``): no test run
here executes the other.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from elenchus.mutation.mutate import Mutant
from elenchus.repo.discover import parsed_pieces
from elenchus.execution.run import RunResult, TestOutcome

IMPORT = "<import>"
FIXTURE = "<fixture>"


@dataclass(frozen=True, slots=True)
class Selection:
    """The tests one mutant x cohort run executes."""

    tests: tuple[str, ...] | None  # test keys, likeliest killers first; None: the whole relevant set
    files: tuple[str, ...]  # the test files holding them
    reason: str
    ran: bool = False  # the baseline run executed the mutated lines (so a run need not trace them again)
    first: tuple[str, ...] = ()  # with the whole set: the tests seen executing the lines, to run before the rest

    @property
    def covered(self) -> bool:
        return self.tests is None or bool(self.tests)


@dataclass(frozen=True, slots=True)
class CoverageMap:
    """Per production file and line, the keys (``path::name``) of the tests that executed it."""

    lines: Mapping[str, Mapping[int, tuple[str, ...]]]
    shared: Mapping[str, frozenset[int]]  # lines run at import or by a fixture
    durations: Mapping[str, float]  # seconds per test key, of the tests that passed
    files: Mapping[str, str]  # test key -> test file
    keys: Mapping[str, str]  # the baseline's nodeid -> test key

    def key_of(self, nodeid: str) -> str | None:
        return self.keys.get(nodeid)

    @classmethod
    def from_run(cls, result: RunResult) -> CoverageMap | None:
        """The map of a baseline run that recorded coverage, or None when it could not."""
        if result.coverage is None or result.test_keys is None:
            return None
        keys = dict(result.test_keys)
        lines: dict[str, dict[int, set[str]]] = {}
        shared: dict[str, set[int]] = {}
        for path, test, numbers in result.coverage:
            if test in (IMPORT, FIXTURE):
                shared.setdefault(path, set()).update(numbers)
                continue
            key = keys.get(test)
            if key is None:  # executed lines of a test the run did not name: cannot select around it
                shared.setdefault(path, set()).update(numbers)
                continue
            per_line = lines.setdefault(path, {})
            for number in numbers:
                per_line.setdefault(number, set()).add(key)
        durations = {keys[r.nodeid]: r.duration for r in result.records
                     if r.nodeid in keys and r.outcome is TestOutcome.PASSED}
        return cls({p: {n: tuple(sorted(t)) for n, t in per.items()} for p, per in lines.items()},
                   {p: frozenset(n) for p, n in shared.items()}, durations,
                   {key: key.partition("::")[0] for key in keys.values()}, keys)

    def select(self, mutant: Mutant, source: str, kills: Mapping[str, int] | None = None) -> Selection:
        """The tests that execute ``mutant``'s lines in ``source`` (its file at Head)."""
        lines = set(range(mutant.line, mutant.end_line + 1)) | set(mutant.mutated_lines)
        executed = self.lines.get(mutant.path, {})
        tests = {key for number in lines for key in executed.get(number, ())}
        kills = kills or {}

        def likeliest(keys: set[str]) -> tuple[str, ...]:
            return tuple(sorted(keys, key=lambda k: (-kills.get(k, 0), self.durations.get(k, 0.0), k)))

        ordered = likeliest(tests)
        # With the whole set, the tests seen executing the lines go first (for a signature, default or
        # decorator: those that run the function's body): a run that stops at its first kill ends
        # sooner, and no test is left out (a change at import can rename or add tests).
        if not lines <= _function_body_lines(source):
            body = _bodies_behind(source, frozenset(lines))
            callers = {key for number in body for key in executed.get(number, ())}
            return Selection(None, (), "the mutated code is not inside a function body",
                             first=ordered or likeliest(callers))
        if lines & self.shared.get(mutant.path, frozenset()):
            return Selection(None, (), "the mutated lines run at import or in a fixture shared by tests", True,
                             first=ordered)
        remembered = _remembered(source, frozenset(lines)) if tests else None  # (never called: not covered)
        if remembered is not None:
            return Selection(None, (), f"the mutated lines are in a function {remembered}: they run inside "
                             "whichever test called it first, and later tests get what that run left", True,
                             first=ordered)
        if not tests:
            return Selection((), (), "no test executes the mutated lines")
        if not any(key in self.durations for key in tests):  # (the tests that passed in the baseline)
            # A run of tests that are all skipped or expected to fail shows nothing; every relevant test does.
            return Selection(None, (), "only tests that were skipped or expected to fail execute the mutated lines",
                             True, first=ordered)
        files = tuple(sorted({self.files[k] for k in ordered}))
        return Selection(ordered, files, f"the {len(ordered)} test(s) that execute the mutated lines", True)

    def untaken_branch(self, mutant: Mutant, source: str) -> str | None:
        """How the module-level branch holding ``mutant`` reads, when the import ran its header and took the
        other way (a fallback for a missing optional package, for another Python): ``"runs only where ...,
        and here ..."``; else None. Only the import runs module-level code, so no test run in this
        environment executes those lines, however it calls the code (a function the branch defines is
        never defined here). Only the mutant's own span is read: the lines it watches to see whether it
        ran may include one the import ran (a handler's `try:`)."""
        lines = set(range(mutant.line, mutant.end_line + 1))
        ran = set(self.shared.get(mutant.path, ())) | set(self.lines.get(mutant.path, {}))
        if not ran or lines & ran:
            return None
        return next((how for header, block, how in _branches(source)
                     if lines <= block and header in ran and not block & ran), None)

    def to_json(self) -> dict:
        return {"lines": {p: {str(n): list(t) for n, t in per.items()} for p, per in self.lines.items()},
                "shared": {p: sorted(n) for p, n in self.shared.items()},
                "durations": dict(self.durations), "files": dict(self.files), "keys": dict(self.keys)}

    @classmethod
    def from_json(cls, data: Mapping) -> CoverageMap:
        return cls({p: {int(n): tuple(t) for n, t in per.items()} for p, per in data["lines"].items()},
                   {p: frozenset(n) for p, n in data["shared"].items()}, dict(data["durations"]),
                   dict(data["files"]), dict(data["keys"]))


@functools.lru_cache(maxsize=64)
def _headers(source: str) -> tuple[tuple[int, int, range], ...]:
    """Per function: the first and last lines of its header (decorators, signature, defaults), its body's lines."""
    found = []
    for node in _function_nodes(source):
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        body = node.body[0].lineno
        found.append((start, body - 1, range(body, (node.end_lineno or body) + 1)))
    return tuple(found)


def _function_nodes(source: str) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function of ``source`` (nested ones too) at the file's own line numbers, read one piece of
    whole top-level statements at a time: a generated module of 5 MB parsed whole took 0.6 GB. Nothing
    when the source does not parse."""
    try:
        for offset, tree in parsed_pieces(source):
            if offset:
                ast.increment_lineno(tree, offset)
            yield from (node for node in ast.walk(tree)
                        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body)
    except (SyntaxError, ValueError):
        return


def _bodies_behind(source: str, lines: frozenset[int]) -> range:
    """The body lines of the function whose header holds one of ``lines`` (headers never overlap); empty: none."""
    return next((body for start, end, body in _headers(source) if any(start <= n <= end for n in lines)), range(0))


#: Decorators that keep a function's results, by their last name: `@lru_cache`, `@functools.cache(...)`,
#: `@cachedmethod`, `@memoize` (a name that only looks like one costs time: every relevant test runs).
_KEEPING = re.compile(r"cache|memo", re.IGNORECASE)


def _remembered(source: str, lines: frozenset[int]) -> str | None:
    """How the function holding ``lines`` in its body keeps what it does for later calls (its results cached by a
    decorator, or a module global it sets), or None. Such a body runs in the first test that calls it only: the
    baseline's coverage names that one test, and validators' `_path_regex` (`@lru_cache`) mutated was run against
    it alone, while another test's call, served the mutant's pattern, fails on it."""
    return next((how for body, how in _keeping(source) if any(line in body for line in lines)), None)


@functools.lru_cache(maxsize=64)
def _keeping(source: str) -> tuple[tuple[range, str], ...]:
    """The body of each function of ``source`` that keeps what it does, and how (parsed once per source: every
    mutant of the file asks, and inflect's 4,000 lines took 0.1 s a time)."""
    found = []
    for node in _function_nodes(source):
        body = range(node.body[0].lineno, (node.end_lineno or node.body[0].lineno) + 1)
        names = [called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
                 for decorator in node.decorator_list
                 for called in [decorator.func if isinstance(decorator, ast.Call) else decorator]]
        kept = next((name for name in names if _KEEPING.search(name)), None)
        if kept is not None:
            found.append((body, f"whose results `@{kept}` keeps"))
        elif any(isinstance(inner, ast.Global) for inner in ast.walk(node)):
            found.append((body, "that sets a module global"))
    return tuple(found)


@functools.lru_cache(maxsize=64)
def _function_body_lines(source: str) -> frozenset[int]:
    """Lines of statements inside function bodies (not signatures, decorators or defaults)."""
    found: set[int] = set()
    for node in _function_nodes(source):
        start = node.body[0].lineno
        found.update(range(start, (node.end_lineno or start) + 1))
    return frozenset(found)


@functools.lru_cache(maxsize=64)
def _branches(source: str) -> tuple[tuple[int, frozenset[int], str], ...]:
    """Each branch of module-level (and class-level) code that runs on a condition: the line the import
    runs to choose it, the branch's lines, and how it reads (read once per source: every survivor of the
    file asks)."""
    try:
        pieces = list(parsed_pieces(source))
    except (SyntaxError, ValueError):
        return ()
    lines = re.split(r"\r\n|\r|\n", source)  # (as the parser numbers them: not str.splitlines)
    found = []
    for offset, tree in pieces:
        if offset:
            ast.increment_lineno(tree, offset)
        found += _branches_in(tree.body, source, lines)
    return tuple(found)


def _branches_in(body: list[ast.stmt], source: str, lines: list[str]) -> Iterator[tuple[int, frozenset[int], str]]:
    for node in body:
        blocks: list[tuple[list[ast.stmt | ast.excepthandler], str]] = []
        if isinstance(node, ast.If) and _runs_as_script(node.test):
            continue  # (a test can run the module as a script here: a gap, not another environment's code)
        if isinstance(node, ast.If):
            lead = lines[node.lineno - 1].lstrip()
            test = f"{'elif' if lead.startswith('elif') else 'if'} {_text(source, node.test)}:"
            blocks = [(node.body, f"runs only where `{test}` (line {node.lineno}) is true, and here it is false"),
                      (node.orelse, f"runs only where `{test}` (line {node.lineno}) is false, and here it is true")]
        elif isinstance(node, ast.Try):
            blocks = [([handler, *handler.body], f"runs only where the `try:` at line {node.lineno} raises "
                                                 f"{_text(source, handler.type) if handler.type else 'an exception'}, "
                                                 "and here it does not") for handler in node.handlers]
            blocks.append((node.orelse, f"runs only where the `try:` at line {node.lineno} raises nothing, and here "
                                        "it raises"))
            yield from _branches_in(node.body, source, lines)
            yield from _branches_in(node.finalbody, source, lines)
        elif isinstance(node, ast.ClassDef):
            yield from _branches_in(node.body, source, lines)
        for statements, how in blocks:  # (a handler's block starts at its `except` line: it runs only then)
            if statements:
                yield node.lineno, frozenset(range(statements[0].lineno, (statements[-1].end_lineno or 0) + 1)), how
                yield from _branches_in([s for s in statements if isinstance(s, ast.stmt)], source, lines)


def _runs_as_script(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    return sides == {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}


def _text(source: str, node: ast.expr) -> str:
    text = " ".join((ast.get_source_segment(source, node) or ast.unparse(node)).split())
    return text if len(text) <= 60 else text[:57] + "..."
