"""Judging probes: keeping only those that tell apart, and running them against a proposal.

``verify_probe`` and ``check_host_probe`` keep a probe only when it touches no private name
(``private_names_in``), passes on a fresh copy of the reference and fails at its assertion on
a copy with a mutant applied; ``passes_on`` checks the first half alone. ``run_probe`` runs a
probe against a proposed revision and classifies the outcome: passes, behavioural failure
(with the proposed output read by a driver), not comparable, or inconclusive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path, PurePosixPath

import libcst as cst

from elenchus.repo.layout import SourceLayout
from elenchus.mutation.mutate import Mutant
from elenchus.execution.run import Execution, FailureKind, RunResult, TestOutcome, TestRecord, run_pytest
from elenchus.execution.workspace import fresh_copy, place_test, remove_tree, write_mutant
from elenchus.analysis.probes.common import Probe, ProbeCheck, ProbeOutcome, ProbeOutcomeKind
from elenchus.analysis.probes.drivers import PER_CALL_TIMEOUT, _Driver, _scratch
from elenchus.analysis.probes.compare import _observed
from elenchus.analysis.probes.writing import _behaviour


PROBE_TIMEOUT = 60.0  # seconds for one pytest run of a probe

_KILL_KINDS = (FailureKind.ASSERTION, FailureKind.EXPECTED_EXCEPTION_NOT_RAISED)
#: An unexpected exception of these types means the call no longer fits the API.
_API_MISMATCH = frozenset({"TypeError", "AttributeError", "ImportError", "ModuleNotFoundError", "NameError"})


# ---------------------------------------------------------------------------
# 4. verifying probes


#: Dunder attributes a test may use without reaching into an object's internals.
_HARMLESS_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__", "__init__", "__enter__", "__exit__",
                               "__iter__", "__next__", "__len__", "__future__"})
_REFLECTIVE_CALLS = frozenset({"getattr", "setattr", "delattr", "hasattr", "patch", "object"})


def _private(name: str) -> bool:
    return name.startswith("_") and name not in _HARMLESS_DUNDERS


class _PrivateNames(cst.CSTVisitor):
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.found: list[str] = []

    def _add(self, name: str) -> None:
        if name not in self.found:
            self.found.append(name)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if _private(node.attr.value):
            self._add(self.module.code_for_node(node))

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = self.module.code_for_node(alias.name)
            if any(_private(part) for part in dotted.split(".")):
                self._add(dotted)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        dotted = self.module.code_for_node(node.module) if node.module is not None else ""
        if any(_private(part) for part in dotted.split(".") if part):
            self._add(dotted)
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = self.module.code_for_node(alias.name)
            if _private(name):
                self._add(f"{dotted}.{name}" if dotted else name)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
        if name not in _REFLECTIVE_CALLS:
            return
        for arg in node.args:
            if isinstance(arg.value, cst.SimpleString):
                text = arg.value.evaluated_value
                if isinstance(text, str) and any(_private(part) for part in text.split(".")):
                    self._add(text)


def private_names_in(source: str) -> list[str]:
    """Private names a probe reaches: ``obj._x`` attributes, reflective dunders, imports of
    ``_name`` (or from ``_private`` modules) and ``getattr``/``setattr``/``patch`` strings naming
    one. A source that does not parse yields ``["<unparseable>"]``."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return ["<unparseable>"]
    visitor = _PrivateNames(module)
    module.visit(visitor)
    return visitor.found


def _run_in_copy(template: Path, probe_path: str, probe_source: str, selector: str, root: Path,
                 timeout: float, mutant: Mutant | None = None, layout: SourceLayout | None = None,
                 disabled_plugins: Sequence[str] = ()) -> RunResult:
    workspace = fresh_copy(Path(template), root)
    try:
        if mutant is not None:
            write_mutant(workspace, mutant.path, mutant.mutated_source)
        place_test(workspace, probe_path, probe_source)
        return run_pytest(workspace, [selector], timeout, mutated_file=mutant.path if mutant else None,
                          layout=layout, disabled_plugins=disabled_plugins)
    finally:
        remove_tree(workspace)


def _describe(record: TestRecord) -> str:
    kind = record.failure_kind.value if record.failure_kind else record.outcome.value
    detail = f" ({record.exception_type}: {record.message})" if record.message else ""
    return f"{record.nodeid}: {kind}{detail}"


def _reference_problem(result: RunResult) -> str | None:
    """Why the probe run on the reference does not count as a pass (None: it passed)."""
    if result.execution is not Execution.COMPLETED:
        return f"did not complete on the reference ({result.execution.value}: {result.detail})"
    failures = [r for r in result.records if r.is_failure]
    structural = [r for r in failures if r.failure_kind in (FailureKind.COLLECTION_ERROR, FailureKind.SETUP_ERROR)]
    if structural and len(structural) == len(failures):
        return f"fails on the reference only by an import, collection or setup error: {_describe(structural[0])}"
    if failures:
        return f"fails on the reference: {_describe(failures[0])}"
    if not any(r.outcome is TestOutcome.PASSED for r in result.records):
        return "no test of the probe passed on the reference (none collected, or all skipped)"
    return None


def _kill(result: RunResult) -> tuple[TestRecord | None, str]:
    """The record failing at an assertion on the mutant, or None and why not."""
    if result.execution is Execution.TIMED_OUT:
        return None, "timed out on the mutant, which is not a failure at an assertion"
    if result.execution is not Execution.COMPLETED:
        return None, f"did not complete on the mutant ({result.execution.value}: {result.detail})"
    failures = [r for r in result.records if r.is_failure]
    for record in failures:
        if record.failure_kind in _KILL_KINDS or (
                record.failure_kind is FailureKind.UNEXPECTED_EXCEPTION and record.check is not None):
            return record, f"fails at its assertion: {_describe(record)}"
    if failures:
        first = failures[0]
        if first.failure_kind in (FailureKind.COLLECTION_ERROR, FailureKind.SETUP_ERROR):
            return None, f"fails on the mutant only by an import, collection or setup error: {_describe(first)}"
        return None, f"fails on the mutant but not at its assertion: {_describe(first)}"
    return None, "passes on the mutant, so it does not detect it"


#: How a probe is run for its verification: (its path, its source, the mutant or None for the code,
#: the time limit) -> the result of pytest running it in a fresh copy of the code.
ProbeRun = Callable[[str, str, "Mutant | None", float], RunResult]


def verify_probe(reference_dir: Path, probe: Probe, mutant: Mutant, *, timeout: float = PROBE_TIMEOUT,
                 scratch: Path | None = None, layout: SourceLayout | None = None,
                 disabled_plugins: Sequence[str] = (), run: ProbeRun | None = None) -> ProbeCheck:
    """Accept ``probe`` only if it touches no private name, passes on a fresh copy of the
    reference, and fails at its assertion on a fresh copy with ``mutant`` applied.

    ``run`` runs it (an evaluation's warm workers, say); by default a fresh interpreter in a copy
    under ``scratch``."""
    private = private_names_in(probe.source)
    if private:
        return ProbeCheck(False, f"touches private names: {', '.join(private)}; a probe may use only public API")
    with ExitStack() as stack:
        if run is None:
            root = stack.enter_context(_scratch(scratch))

            def run(path: str, source: str, changed: Mutant | None, limit: float) -> RunResult:
                return _run_in_copy(reference_dir, path, source, path, root, limit, changed, layout, disabled_plugins)
        problem = _reference_problem(run(probe.path, probe.source, None, timeout))
        if problem is not None:
            return ProbeCheck(False, problem)
        record, why = _kill(run(probe.path, probe.source, mutant, timeout))
    if record is None:
        return ProbeCheck(False, f"passes on the reference but {why} (mutant {mutant.id})")
    return ProbeCheck(True, f"passes on the reference and, on mutant {mutant.id}, {why}", (mutant.id,))


def passes_on(reference_dir: Path, path: str, source: str, *, timeout: float = PROBE_TIMEOUT,
              layout: SourceLayout | None = None, scratch: Path | None = None) -> str | None:
    """Why the test file ``source`` at ``path`` does not pass on a fresh copy of ``reference_dir`` (None: it passes)."""
    with _scratch(scratch) as root:
        return _reference_problem(_run_in_copy(reference_dir, path, source, path, root, timeout, layout=layout))


def check_host_probe(reference_dir: Path, path: str, source: str, mutants: Sequence[Mutant], *,
                     timeout: float = PROBE_TIMEOUT, scratch: Path | None = None) -> ProbeCheck:
    """Verify a probe written by someone else by the same rules; it must kill at least one
    of ``mutants`` at its assertion (all are tried; ``killed`` lists those it kills)."""
    private = private_names_in(source)
    if private:
        return ProbeCheck(False, f"touches private names: {', '.join(private)}; a probe may use only public API")
    rel = PurePosixPath(Path(path).as_posix())
    if rel.is_absolute() or ".." in rel.parts or rel.suffix != ".py":
        return ProbeCheck(False, f"a probe path must be a relative .py path inside the project, got {path!r}")
    selector = rel.as_posix()
    with _scratch(scratch) as root:
        problem = _reference_problem(_run_in_copy(reference_dir, selector, source, selector, root, timeout))
        if problem is not None:
            return ProbeCheck(False, problem)
        killed: list[str] = []
        misses: list[str] = []
        for mutant in mutants:
            record, why = _kill(_run_in_copy(reference_dir, selector, source, selector, root, timeout, mutant))
            (killed if record is not None else misses).append(mutant.id if record is not None else
                                                              f"{mutant.id}: {why}")
    if not killed:
        detail = "; ".join(misses) if misses else "no mutant was given"
        return ProbeCheck(False, f"passes on the reference but kills no given mutant at an assertion ({detail})")
    return ProbeCheck(True, f"passes on the reference and fails at its assertion on {', '.join(killed)}",
                      tuple(killed))


# ---------------------------------------------------------------------------
# 5. running a probe against a proposed revision


def run_probe(workspace_dir: Path, probe: Probe, *, timeout: float = PROBE_TIMEOUT,
              per_call_timeout: float = PER_CALL_TIMEOUT, scratch: Path | None = None,
              disabled_plugins: Sequence[str] = ()) -> ProbeOutcome:
    """Run ``probe`` in a fresh copy of ``workspace_dir`` (the proposed revision), without the pytest
    plugins ``disabled_plugins``."""
    with _scratch(scratch) as root:
        workspace = fresh_copy(Path(workspace_dir), root)
        try:
            place_test(workspace, probe.path, probe.source)
            # The whole file, not the node id: a module that no longer imports must come back
            # as a collection error, not as pytest's "not found" usage error.
            result = run_pytest(workspace, [probe.path], timeout, disabled_plugins=disabled_plugins)
            kind, message = _classify(result)
            proposed = None
            if kind is ProbeOutcomeKind.BEHAVIOURAL_FAILURE and probe.module and probe.function:
                with _Driver(workspace, probe.module, probe.function, per_call_timeout) as driver:
                    if driver.ready:
                        observed = _observed(driver.call(probe.args_repr, dict(probe.kwargs_repr), probe.receiver))
                        if observed is not None:
                            proposed = _behaviour(*observed)
        finally:
            remove_tree(workspace)
    return ProbeOutcome(kind, message, proposed)


def _classify(result: RunResult) -> tuple[ProbeOutcomeKind, str]:
    if result.execution is Execution.TIMED_OUT:
        return ProbeOutcomeKind.INCONCLUSIVE, f"timed out: {result.detail}"
    if result.execution is not Execution.COMPLETED:
        return ProbeOutcomeKind.INCONCLUSIVE, f"{result.execution.value}: {result.detail}"
    failures = [r for r in result.records if r.is_failure]
    for record in failures:
        if record.failure_kind in _KILL_KINDS:
            return ProbeOutcomeKind.BEHAVIOURAL_FAILURE, record.message or _describe(record)
    for record in failures:
        if record.failure_kind is FailureKind.COLLECTION_ERROR:
            return ProbeOutcomeKind.NOT_COMPARABLE, f"the probe cannot be imported or collected: {_describe(record)}"
        if record.failure_kind is FailureKind.UNEXPECTED_EXCEPTION:
            name = (record.exception_type or "").rpartition(".")[2]
            if name in _API_MISMATCH:
                return ProbeOutcomeKind.NOT_COMPARABLE, f"the call no longer fits the API: {_describe(record)}"
            return ProbeOutcomeKind.BEHAVIOURAL_FAILURE, f"raised where the reference did not: {_describe(record)}"
    if failures:
        return ProbeOutcomeKind.INCONCLUSIVE, f"failed outside the probe's body: {_describe(failures[0])}"
    if any(r.outcome is TestOutcome.PASSED for r in result.records):
        return ProbeOutcomeKind.PASSES, "passes on the proposed revision"
    return ProbeOutcomeKind.INCONCLUSIVE, "no test of the probe ran to completion"
