"""Hosted mode (SPEC 9, references/socratic-host.md): fill a Runner scaffold, nothing more.

A host such as Socratic hands Elenchus a scaffold: the document it wants back,
the JSON Pointers (RFC 6901) of the only fields Elenchus may write, a guide to
those fields, and the host's own settings (scope, mode, revisions). Elenchus
maps its evidence into four canonical blocks (evidence, protection, risks,
decisions), writes them into the editable fields, and returns every other
field exactly as received.

The host's Runner validates documents, so this module never opens a schema
file: it does not import ``elenchus.schemas``, and it checks only the
scaffold's own shape, naming the JSON Pointer of whatever is wrong. The host's
scope is inherited as given; the scope question is never asked.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from elenchus.errors import ElenchusError
from elenchus.repo.fingerprint import POST_FLIGHT_SENTENCE
from elenchus.guards import BUDGET_RANGE

BLOCKS: tuple[str, ...] = ("evidence", "protection", "risks", "decisions")
SCOPE_OPTIONS: tuple[str, ...] = ("current-change", "changed-tests", "target")
MODES: tuple[str, ...] = ("evaluate", "capture", "harden")
SCAFFOLD_KEYS: tuple[str, ...] = ("document", "editable_fields", "field_guide", "host")
HOST_KEYS: tuple[str, ...] = ("scope", "mode", "reference", "proposed", "repo", "base", "head", "contract", "budget")
SCOPE_KEYS: tuple[str, ...] = ("option", "target", "reason")
_CAPTURE_REVISIONS = ("reference", "proposed")  # capture and harden name these
_EVALUATE_REVISIONS = ("base", "head")  # evaluate names these

# Risk categories, most urgent first: the order of the risks block.
RISK_ORDER: tuple[str, ...] = ("protection-regression", "unprotected", "blocked", "not-comparable",
                               "inconclusive", "timeout", "not-run", "not_challenged", "test-quality")
_PROTECTING = ("existing-protection", "incremental-protection")
_OPEN_INTENT = ("provisional", "needs-decision")
_DEFAULT_WHY = {
    "protection-regression": "detected before the test change and not after it",
    "unprotected": "no selected test fails on this behaviour",
    "blocked": "the comparison could not be made safely",
    "not-comparable": "the cohorts could not run this mutant comparably",
    "inconclusive": "a flaky or infrastructure failure left the outcome unknown",
    "timeout": "the run exceeded its time budget, which is never a behavioural kill",
    "not-run": "the mutant was not executed",
}
_WEAK_CATCH_TEXT = ("file", "input", "reference", "proposed", "question")


class ScaffoldError(ElenchusError):
    """A scaffold (or a fill request) is malformed; ``pointer`` names the offending place."""

    def __init__(self, message: str, pointer: str | None = None) -> None:
        super().__init__(message)
        self.pointer = pointer

    def __reduce__(self):
        return (type(self), (self.message, self.pointer))


class EvidenceError(ElenchusError):
    """The report or capture evidence handed to the block mapping lacks something it needs."""

    def __init__(self, message: str, pointer: str | None = None) -> None:
        super().__init__(message)
        self.pointer = pointer

    def __reduce__(self):
        return (type(self), (self.message, self.pointer))


class HostScope(NamedTuple):
    """The scope the host chose; inherited as is, never asked again."""

    option: str  # current-change | changed-tests | target
    target: str | None  # the module or path for a "target" scope; None otherwise
    reason: str


@dataclass(frozen=True, slots=True)
class HostSettings:
    scope: HostScope
    mode: str  # evaluate | capture | harden
    reference: str | None = None
    proposed: str | None = None
    repo: str | None = None
    base: str | None = None
    head: str | None = None
    contract_json: str | None = None  # the host's contract object, serialized (frozen)
    budget: int | None = None  # mutants to challenge; None: the command's own default

    @property
    def contract(self) -> dict | None:
        """A fresh copy of the contract the host supplied, or None."""
        return None if self.contract_json is None else json.loads(self.contract_json)


@dataclass(frozen=True, slots=True)
class Scaffold:
    """A validated Runner scaffold. The document is held serialized so the record is truly frozen."""

    source: str
    document_json: str
    editable_fields: tuple[str, ...]
    field_guide: tuple[tuple[str, str], ...]
    host: HostSettings

    @property
    def document(self) -> dict:
        """A fresh deep copy of the document as received."""
        return json.loads(self.document_json)

    def guide(self, pointer: str) -> str | None:
        return dict(self.field_guide).get(pointer)


# --- JSON Pointer (RFC 6901) ------------------------------------------------------------------


def parse_pointer(pointer: str) -> tuple[str, ...]:
    """The reference tokens of ``pointer`` (``"/a~1b/0"`` -> ``("a/b", "0")``); ValueError if malformed."""
    if pointer == "":
        return ()
    if not pointer.startswith("/"):
        raise ValueError("a JSON Pointer is empty or starts with '/'")
    tokens = []
    for raw in pointer[1:].split("/"):
        if re.search(r"~(?![01])", raw):
            raise ValueError("'~' must be followed by 0 or 1 ('~0' is '~', '~1' is '/')")
        tokens.append(raw.replace("~1", "/").replace("~0", "~"))
    return tuple(tokens)


def pointer_to(*tokens: str | int) -> str:
    """The JSON Pointer of ``tokens`` (escaping '~' and '/')."""
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def _index(token: str, length: int) -> int | None:
    if re.fullmatch(r"0|[1-9][0-9]*", token) and int(token) < length:
        return int(token)
    return None


def _parent_problem(document: Any, tokens: tuple[str, ...]) -> str | None:
    """Why the location ``tokens`` has no existing parent in ``document``, or None when it has one."""
    node = document
    for depth, token in enumerate(tokens):
        last = depth == len(tokens) - 1
        here = pointer_to(*tokens[:depth]) or "the document root"
        if isinstance(node, dict):
            if last:
                return None
            if token not in node:
                return f"{pointer_to(*tokens[:depth + 1])} does not exist in the document"
            node = node[token]
        elif isinstance(node, list):
            position = _index(token, len(node))
            if position is None:
                return (f"{here} is an array of {len(node)} items and {token!r} is not one of its indices "
                        "(an editable array element must already exist; '-' appends are not supported)")
            if last:
                return None
            node = node[position]
        else:
            return f"{here} is a {_json_type(node)}, not an object or array"
    return None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _set(document: Any, tokens: tuple[str, ...], value: Any) -> None:
    node = document
    for token in tokens[:-1]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    if isinstance(node, list):
        node[int(tokens[-1])] = value
    else:
        node[tokens[-1]] = value


# --- Reading a scaffold -----------------------------------------------------------------------


def read_scaffold(path: str | Path) -> Scaffold:
    """Read and check the scaffold at ``path``. Never opens a schema file."""
    where = str(path)
    file = Path(path)
    if not file.exists():
        raise ScaffoldError(f"scaffold {where} does not exist; pass the file the host's Runner wrote")
    if not file.is_file():
        raise ScaffoldError(f"scaffold {where} is not a file; pass the scaffold JSON file itself")
    size = file.stat().st_size
    if size > MAX_SCAFFOLD_BYTES:
        raise ScaffoldError(f"scaffold {where} is {size:,} bytes, over the limit of {MAX_SCAFFOLD_BYTES:,}; a Runner "
                            "scaffold holds one document to fill, so this is not one")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ScaffoldError(f"scaffold {where} is not UTF-8 text (byte {error.start}); "
                            "the Runner writes scaffolds as UTF-8 JSON") from None
    return parse_scaffold(_loads(text, where), source=where)


def _loads(text: str, where: str) -> Any:
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
        keys = [k for k, _ in pairs]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise ScaffoldError(f"scaffold {where} repeats the key {repeated[0]!r} in one object; JSON readers "
                                "disagree on which value wins, so each key must appear once")
        return dict(pairs)

    def no_constant(name: str) -> Any:
        raise ScaffoldError(f"scaffold {where} contains {name}, which is not JSON; write a number or null")

    try:
        data = json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constant)
    except json.JSONDecodeError as error:
        raise ScaffoldError(f"scaffold {where} is not valid JSON: {error.msg} at line {error.lineno} "
                            f"column {error.colno}") from None
    except RecursionError:
        raise ScaffoldError(f"scaffold {where} nests arrays or objects deeper than {MAX_SCAFFOLD_DEPTH} levels, "
                            "the limit") from None
    deep = _too_deep(data)
    if deep is not None:
        raise ScaffoldError(f"scaffold {where}: {deep}: nests arrays or objects deeper than {MAX_SCAFFOLD_DEPTH} "
                            "levels, the limit", deep)
    return data


#: What a scaffold may hold: one document to fill is far smaller, and deeper nesting is refused before any
#: reader recurses through it.
MAX_SCAFFOLD_BYTES = 16 * 1024 * 1024
MAX_SCAFFOLD_DEPTH = 64


def _too_deep(data: Any) -> str | None:
    """The JSON Pointer of the first value nested deeper than ``MAX_SCAFFOLD_DEPTH``, or None (walked without
    recursion, so no depth can overflow it)."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if len(path) > MAX_SCAFFOLD_DEPTH:
            return pointer_to(*path)
        if isinstance(value, dict):
            stack += [(child, (*path, key)) for key, child in value.items()]
        elif isinstance(value, list):
            stack += [(child, (*path, index)) for index, child in enumerate(value)]
    return None


def parse_scaffold(data: Any, source: str = "<scaffold>") -> Scaffold:
    """Check an already-parsed scaffold and freeze it. Every error names the JSON Pointer at fault."""

    def fail(pointer: str, problem: str) -> ScaffoldError:
        return ScaffoldError(f"scaffold {source}: {pointer or '(root)'}: {problem}", pointer)

    if not isinstance(data, dict):
        raise fail("", f"expected an object with {', '.join(SCAFFOLD_KEYS)}, got a {_json_type(data)}")
    for key in SCAFFOLD_KEYS:
        if key not in data:
            raise fail(f"/{key}", "is missing; a Runner scaffold has document, editable_fields, field_guide "
                                  "and host")
    for key in data:
        if key not in SCAFFOLD_KEYS:
            raise fail(pointer_to(key), f"is not a scaffold field; expected only {', '.join(SCAFFOLD_KEYS)}")

    document = data["document"]
    if not isinstance(document, dict):
        raise fail("/document", f"expected an object (the document to fill), got a {_json_type(document)}")

    editable = _editable_fields(data["editable_fields"], document, fail)
    guide = _field_guide(data["field_guide"], editable, fail)
    host = _host(data["host"], fail)
    return Scaffold(source=source, document_json=json.dumps(document, ensure_ascii=False),
                    editable_fields=editable, field_guide=guide, host=host)


def _editable_fields(value: Any, document: dict, fail) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise fail("/editable_fields", f"expected an array of JSON Pointers, got a {_json_type(value)}")
    if not value:
        raise fail("/editable_fields", "is empty, so nothing could be filled; list at least one JSON Pointer "
                                       "such as \"/evidence\"")
    seen: list[tuple[str, tuple[str, ...]]] = []
    for position, pointer in enumerate(value):
        here = f"/editable_fields/{position}"
        if not isinstance(pointer, str):
            raise fail(here, f"expected a JSON Pointer string, got a {_json_type(pointer)}")
        try:
            tokens = parse_pointer(pointer)
        except ValueError as error:
            raise fail(here, f"{pointer!r} is not a JSON Pointer (RFC 6901): {error}") from None
        if not tokens:
            raise fail(here, "\"\" points at the whole document; name the fields Elenchus may write instead")
        problem = _parent_problem(document, tokens)
        if problem:
            raise fail(here, f"{pointer!r} does not resolve: {problem}")
        for other, other_tokens in seen:
            if other_tokens == tokens:
                raise fail(here, f"{pointer!r} is listed twice")
            shorter, longer = sorted((tokens, other_tokens), key=len)
            if longer[:len(shorter)] == shorter:
                raise fail(here, f"{pointer!r} and {other!r} overlap (one lies inside the other); "
                                 "list only the outer field")
        seen.append((pointer, tokens))
    return tuple(p for p, _ in seen)


def _field_guide(value: Any, editable: tuple[str, ...], fail) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise fail("/field_guide", f"expected an object from editable pointer to its meaning, got a "
                                   f"{_json_type(value)}")
    for pointer, text in value.items():
        here = "/field_guide" + pointer_to(pointer)
        if pointer not in editable:
            raise fail(here, f"guides {pointer!r}, which is not in /editable_fields; the guide describes "
                             "editable fields only")
        if not isinstance(text, str) or not text.strip():
            raise fail(here, "expected a non-empty string saying what goes in the field")
    return tuple(value.items())


def _host(value: Any, fail) -> HostSettings:
    if not isinstance(value, dict):
        raise fail("/host", f"expected an object with scope and mode, got a {_json_type(value)}")
    for key in value:
        if key not in HOST_KEYS:
            raise fail("/host" + pointer_to(key), f"is not a host setting; expected only {', '.join(HOST_KEYS)}")
    if "scope" not in value:
        raise fail("/host/scope", "is missing; the host's scope is inherited, and Elenchus never asks for it "
                                  "in hosted mode")
    scope = _scope(value["scope"], fail)
    if "mode" not in value:
        raise fail("/host/mode", f"is missing; expected one of {', '.join(MODES)}")
    mode = value["mode"]
    if mode not in MODES:
        raise fail("/host/mode", f"{mode!r} is not a mode; expected one of {', '.join(MODES)}")
    for key in ("reference", "proposed", "repo", "base", "head"):
        if key in value and (not isinstance(value[key], str) or not value[key]):
            raise fail(f"/host/{key}", f"expected a non-empty string, got {json.dumps(value[key])}")
    if mode == "evaluate":
        for key in _CAPTURE_REVISIONS:
            if key in value:
                raise fail(f"/host/{key}", "is a capture/harden revision; an evaluate scaffold names base and "
                                           "head instead")
    else:
        for key in _EVALUATE_REVISIONS:
            if key in value:
                raise fail(f"/host/{key}", f"is an evaluate revision; a {mode} scaffold names reference and "
                                           "proposed instead")
    if mode == "capture":
        for key in _CAPTURE_REVISIONS:
            if key not in value:
                raise fail(f"/host/{key}", "is missing; capture needs both the reference revision and the "
                                           "proposed diff identified")
    contract = value.get("contract")
    if "contract" in value:
        _contract(contract, fail)
    budget = value.get("budget")
    low, high = BUDGET_RANGE
    if "budget" in value and (type(budget) is not int or not low <= budget <= high):
        raise fail("/host/budget", f"expected a whole number of mutants from {low} to {high}, got {json.dumps(budget)}")
    return HostSettings(scope=scope, mode=mode, reference=value.get("reference"), proposed=value.get("proposed"),
                        repo=value.get("repo"), base=value.get("base"), head=value.get("head"),
                        contract_json=None if contract is None else json.dumps(contract, ensure_ascii=False),
                        budget=budget)


def _objects(value: Any, where: str, what: str, fail) -> list[tuple[str, dict]]:
    """(pointer, object) of each element of an array of ``what`` objects at ``where``; anything else refused."""
    if not isinstance(value, list):
        raise fail(where, f"expected an array of {what}s, got a {_json_type(value)}")
    for index, element in enumerate(value):
        if not isinstance(element, dict):
            raise fail(f"{where}/{index}", f"expected a {what} object, got a {_json_type(element)}")
    return [(f"{where}/{index}", element) for index, element in enumerate(value)]


def _contract(value: Any, fail) -> None:
    """The shape every reader of a host's contract relies on (the Runner validates the rest): a wrong type here
    would otherwise surface as an internal error deep in a run."""
    where = "/host/contract"
    if not isinstance(value, dict):
        raise fail(where, f"expected an intent contract object, got a {_json_type(value)}")
    if value.get("change_id") is not None and not isinstance(value["change_id"], str):
        raise fail(f"{where}/change_id", f"expected a string or null, got a {_json_type(value['change_id'])}")
    for here, item in _objects(value.get("items", []), f"{where}/items", "contract item", fail):
        for key in ("id", "behaviour", "status"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise fail(f"{here}/{key}", f"expected a non-empty string, got {json.dumps(item.get(key))}")
        if "risk" in item and not isinstance(item["risk"], str):
            raise fail(f"{here}/risk", f"expected a string, got a {_json_type(item['risk'])}")
        evidence = item.get("evidence", [])
        if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
            raise fail(f"{here}/evidence", "expected an array of strings")
        for spot, anchor in _objects(item.get("anchors", []), f"{here}/anchors", "anchor", fail):
            for key in ("path", "symbol"):
                if not isinstance(anchor.get(key), str):
                    raise fail(f"{spot}/{key}", f"expected a string, got {json.dumps(anchor.get(key))}")
            lines = anchor.get("lines")
            if not (isinstance(lines, list) and len(lines) == 2 and all(type(n) is int for n in lines)):
                raise fail(f"{spot}/lines", f"expected [first, last] line numbers, got {json.dumps(lines)}")


def _scope(value: Any, fail) -> HostScope:
    if not isinstance(value, dict):
        raise fail("/host/scope", f"expected an object with option, target and reason, got a {_json_type(value)}")
    for key in value:
        if key not in SCOPE_KEYS:
            raise fail("/host/scope" + pointer_to(key), f"is not a scope field; expected only "
                                                        f"{', '.join(SCOPE_KEYS)}")
    for key in SCOPE_KEYS:
        if key not in value:
            raise fail(f"/host/scope/{key}", "is missing; a host scope has option, target and reason")
    option, target, reason = value["option"], value["target"], value["reason"]
    if option not in SCOPE_OPTIONS:
        raise fail("/host/scope/option", f"{json.dumps(option)} is not a scope option; expected one of "
                                         f"{', '.join(SCOPE_OPTIONS)}")
    if option == "target":
        if not isinstance(target, str) or not target.strip():
            raise fail("/host/scope/target", "a \"target\" scope must name the module or path to evaluate, "
                                             f"got {json.dumps(target)}")
    elif target is not None:
        raise fail("/host/scope/target", f"must be null for the {option!r} scope (only \"target\" names one), "
                                         f"got {json.dumps(target)}")
    if not isinstance(reason, str) or not reason.strip():
        raise fail("/host/scope/reason", "expected a non-empty string saying why the host chose this scope")
    return HostScope(option, target, reason)


def host_scope(scaffold: Scaffold) -> HostScope:
    """The host's scope ``(option, target, reason)``: used instead of asking the scope question."""
    return scaffold.host.scope


# --- The four canonical blocks ----------------------------------------------------------------


def canonical_blocks(report: Mapping[str, Any], capture: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Map an Elenchus report (mutation-report shape) into evidence, protection, risks and decisions.

    ``capture`` (capture reports only) carries ``weak_catches``, each becoming a behaviour-difference decision.
    The report is trusted to be Elenchus's own; nothing here validates it against a schema.
    """
    for key in ("mode", "scope", "snapshots", "contract", "baseline", "mutations", "not_challenged", "rejected",
                "comparisons", "post_flight"):
        if key not in report:
            raise EvidenceError(f"the report has no /{key}; canonical blocks are mapped from a complete Elenchus "
                                "report", f"/{key}")
    weak_catches = _weak_catches(report, capture)
    items = {item["id"]: item for item in report["contract"].get("items", [])}
    mutations = {m["id"]: m for m in report["mutations"]}
    comparisons: dict[str, dict] = {}
    for position, comparison in enumerate(report["comparisons"]):
        if comparison["mutation_id"] not in mutations:
            raise EvidenceError(f"/comparisons/{position}/mutation_id names {comparison['mutation_id']!r}, which "
                                "is not in /mutations", f"/comparisons/{position}/mutation_id")
        comparisons[comparison["mutation_id"]] = comparison

    protection: list[dict] = []
    risks: list[dict] = []
    for mutation in report["mutations"]:
        comparison = comparisons.get(mutation["id"])
        status = _status(items, mutation.get("contract_id"))
        if comparison is not None:
            assessment = comparison["assessment"]
            if assessment == "caught-at-import":  # no check caught it, and it is no risk either
                continue
            if assessment in _PROTECTING:
                protection.append(_protected(mutation, status, assessment, _killer(comparison)))
            else:
                lost = comparison.get("existing", {}).get("kill") if assessment == "protection-regression" else None
                risks.append(_risk(assessment, mutation, status, comparison.get("reason") or mutation.get("reason"),
                                   test=lost["test"] if lost else None))
        elif mutation["result"] == "killed":
            protection.append(_protected(mutation, status, "killed", mutation.get("kill")))
        elif mutation["result"] in ("survived", "not-covered"):
            risks.append(_risk("unprotected", mutation, status, mutation.get("reason")))
        elif mutation["result"] not in ("rejected", "not_challenged", "caught-at-import"):
            risks.append(_risk(mutation["result"], mutation, status, mutation.get("reason")))
    for record in report["not_challenged"]:
        risks.append(_risk("not_challenged", record, _status(items, record.get("contract_id")), record["reason"]))
    for concern in report.get("test_quality", []):
        risks.append({"category": "test-quality", "mutation_id": None, "contract_id": None,
                      "contract_status": None, "incident": None,
                      "location": {"path": concern["path"], "line": concern.get("line")},
                      "why": concern["why"], "test": concern.get("test"), "concern": concern["concern"]})
    risks.sort(key=lambda risk: RISK_ORDER.index(risk["category"]) if risk["category"] in RISK_ORDER
               else len(RISK_ORDER))
    return {"evidence": _evidence(report), "protection": protection, "risks": risks,
            "decisions": _decisions(report, items, risks, weak_catches)}


def _status(items: Mapping[str, dict], contract_id: str | None) -> str | None:
    item = items.get(contract_id) if contract_id else None
    return item.get("status") if item else None


def _killer(comparison: Mapping[str, Any]) -> dict | None:
    for cohort in ("modified", "existing"):
        outcome = comparison.get(cohort) or {}
        if outcome.get("result") == "killed" and outcome.get("kill"):
            return outcome["kill"]
    return None


def _protected(mutation: Mapping[str, Any], status: str | None, assessment: str, kill: Mapping | None) -> dict:
    return {"mutation_id": mutation["id"], "contract_id": mutation.get("contract_id"), "contract_status": status,
            "incident": mutation["incident"], "location": copy.deepcopy(mutation["location"]),
            "assessment": assessment, "killing_test": kill["test"] if kill else None,
            "kill_kind": kill["kind"] if kill else None, "attributed": kill.get("attributed") if kill else None}


def _risk(category: str, record: Mapping[str, Any], status: str | None, why: str | None, *,
          test: str | None = None) -> dict:
    return {"category": category, "mutation_id": record["id"], "contract_id": record.get("contract_id"),
            "contract_status": status, "incident": record["incident"], "location": copy.deepcopy(record["location"]),
            "why": why or _DEFAULT_WHY.get(category, category), "test": test, "concern": None}


def _evidence(report: Mapping[str, Any]) -> dict:
    mutations = report["mutations"]
    not_run = ("not-run", "not_challenged", "rejected")
    scope = copy.deepcopy(report["scope"])
    scope.setdefault("inherited", False)
    post_flight = copy.deepcopy(report["post_flight"])
    post_flight["statement"] = POST_FLIGHT_SENTENCE if post_flight.get("worktree_unchanged") is True else None
    execution = report.get("execution") or {}
    contract = report["contract"]
    run = report.get("run") or {}
    notes = {"notes": list(report.get("notes") or [])} if report["mode"] == "capture" else {}
    return {
        **notes,
        "mode": report["mode"],
        "tool": copy.deepcopy(report.get("tool")),
        "run": {key: run.get(key) for key in ("id", "started", "finished")},
        "snapshots": copy.deepcopy(report["snapshots"]),
        "scope": scope,
        "contract": {key: contract.get(key) for key in ("source", "provisional", "path", "change_id")},
        "baseline": copy.deepcopy(report["baseline"]),
        "mutants": {"run": sum(1 for m in mutations if m["result"] not in not_run),
                    "not_run": sum(1 for m in mutations if m["result"] == "not-run"),
                    "not_challenged": len(report["not_challenged"]),
                    "rejected": len(report["rejected"]),
                    "budget": (report.get("budget") or {}).get("limit")},
        "test_command": execution.get("test_command"),
        "isolation": execution.get("isolation"),
        "post_flight": post_flight,
    }


def _weak_catches(report: Mapping[str, Any], capture: Mapping[str, Any] | None) -> list[dict]:
    if capture is None:
        return []
    if report["mode"] != "capture":
        raise EvidenceError(f"capture evidence was given for a {report['mode']} report; weak catches exist only "
                            "in capture mode", "/weak_catches")
    catches = capture.get("weak_catches")
    if not isinstance(catches, list):
        raise EvidenceError("the capture evidence has no /weak_catches array", "/weak_catches")
    for position, catch in enumerate(catches):
        here = f"/weak_catches/{position}"
        if not isinstance(catch, Mapping):
            raise EvidenceError(f"capture evidence {here} must be an object", here)
        for key in _WEAK_CATCH_TEXT:
            if not isinstance(catch.get(key), str) or not catch[key]:
                raise EvidenceError(f"capture evidence {here}/{key} must be a non-empty string", f"{here}/{key}")
        line = catch.get("line")
        if not isinstance(line, int) or isinstance(line, bool) or line < 1:
            raise EvidenceError(f"capture evidence {here}/line must be a line number (1 or more), got {line!r}",
                                f"{here}/line")
    return list(catches)


def behaviour_difference_comment(catch: Mapping[str, Any]) -> str:
    """The ready-to-copy "Behavior difference" comment for one weak catch."""
    contract = f", {catch['contract_id']}" if catch.get("contract_id") else ""
    lines = [f"**Behavior difference** ({catch['file']}:{catch['line']}{contract})", "",
             f"- Input: `{catch['input']}`", f"- Reference behaviour: `{catch['reference']}`",
             f"- Proposed behaviour: `{catch['proposed']}`"]
    if catch.get("incident"):
        lines.append(f"- This matches an imagined mistake: {catch['incident']}")
    lines.append(f"- Question: {catch['question']}")
    return "\n".join(lines) + "\n"


def _decisions(report: Mapping[str, Any], items: Mapping[str, dict], risks: list[dict],
               weak_catches: list[dict]) -> list[dict]:
    decisions: list[dict] = []

    def add(kind: str, contract_id: str | None, question: str, about: dict) -> None:
        decisions.append({"id": f"D{len(decisions) + 1}", "kind": kind, "contract_id": contract_id,
                          "question": question, "about": about})

    for catch in weak_catches:
        add("behaviour-difference", catch.get("contract_id"), catch["question"],
            {"file": catch["file"], "line": catch["line"], "input": catch["input"],
             "reference": catch["reference"], "proposed": catch["proposed"],
             "comment": catch.get("comment") or behaviour_difference_comment(catch)})
    for risk in risks:
        if risk["category"] == "protection-regression":
            lost = f" by {risk['test']}" if risk["test"] else ""
            add("protection-regression", risk["contract_id"],
                f"The test change removed a check: \"{risk['incident']}\" was detected{lost} before the change "
                "and is not detected after it. Keep the removed check?",
                {"mutation_id": risk["mutation_id"], "incident": risk["incident"], "location": risk["location"],
                 "removed_test": risk["test"]})
    for risk in risks:
        if risk["category"] == "unprotected" and risk["contract_status"] in _OPEN_INTENT:
            item = items[risk["contract_id"]]
            add("unprotected-intent", risk["contract_id"],
                f"No test detects \"{risk['incident']}\". {item['id']} is {item['status']}: \"{item['behaviour']}\" "
                "Is this behaviour intended? If so it needs a test; if not, the contract item should change.",
                {"mutation_id": risk["mutation_id"], "incident": risk["incident"], "location": risk["location"],
                 "behaviour": item["behaviour"]})
    challenged: dict[str, list[str]] = {}
    for record in [*report["mutations"], *report["not_challenged"]]:
        if record.get("contract_id"):
            challenged.setdefault(record["contract_id"], []).append(record["id"])
    for item in report["contract"].get("items", []):
        outcomes = challenged.get(item["id"], [])
        if item["status"] == "needs-decision" or (item["status"] == "provisional" and outcomes):
            state = ("open (needs a decision)" if item["status"] == "needs-decision"
                     else "provisional (derived, not confirmed by a person)")
            add("contract-intent", item["id"],
                f"{item['id']} is {state}: \"{item['behaviour']}\" Is this the intended behaviour? "
                + (f"The outcomes for {', '.join(outcomes)} depend on the answer." if outcomes
                   else "No mutant challenged it yet."),
                {"behaviour": item["behaviour"], "status": item["status"], "evidence": list(item.get("evidence", [])),
                 "mutation_ids": outcomes})
    return decisions


# --- Filling and writing ----------------------------------------------------------------------


def block_targets(scaffold: Scaffold, names: Iterable[str] = BLOCKS) -> dict[str, str]:
    """Which editable pointer each block goes to (see references/socratic-host.md, "Where blocks go").

    1. the editable pointer ``/<block>``; 2. else the first editable pointer whose last token is ``<block>``;
    3. else the first editable pointer whose field_guide mentions ``<block>`` as a whole word. A pointer
    already taken by an earlier rule or block is skipped. No match is a ScaffoldError.
    """
    wanted = [name for name in BLOCKS if name in set(names)]
    targets: dict[str, str] = {}
    taken: set[str] = set()

    def claim(rule) -> None:
        for name in wanted:
            if name in targets:
                continue
            for pointer in scaffold.editable_fields:
                if pointer not in taken and rule(name, pointer):
                    targets[name] = pointer
                    taken.add(pointer)
                    break

    claim(lambda name, pointer: pointer == "/" + name)
    claim(lambda name, pointer: parse_pointer(pointer)[-1] == name)
    claim(lambda name, pointer: re.search(rf"\b{name}\b", scaffold.guide(pointer) or "", re.I) is not None)
    for name in wanted:
        if name not in targets:
            raise ScaffoldError(
                f"scaffold {scaffold.source}: the {name} block has no editable field to go to: /{name} is not in "
                f"/editable_fields, no editable pointer ends in {name!r}, and no free editable field's field_guide "
                f"mentions {name!r}; add \"/{name}\" to /editable_fields", "/editable_fields")
    return targets


def fill(scaffold: Scaffold, blocks: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> dict:
    """The scaffold's document with only its editable fields written; every other value is unchanged.

    ``blocks`` maps block names (evidence, protection, risks, decisions) to values; ``extra`` maps other
    editable pointers to values. An editable field given no value is left as received.
    """
    unknown = sorted(set(blocks) - set(BLOCKS))
    if unknown:
        raise ScaffoldError(f"{unknown[0]!r} is not a canonical block; expected {', '.join(BLOCKS)}")
    targets = block_targets(scaffold, blocks)
    values = {pointer: blocks[name] for name, pointer in targets.items()}
    for pointer, value in (extra or {}).items():
        if pointer not in scaffold.editable_fields:
            raise ScaffoldError(f"scaffold {scaffold.source}: {pointer} is not editable; Elenchus writes only "
                                f"the fields in /editable_fields ({', '.join(scaffold.editable_fields)})", pointer)
        if pointer in values:
            name = next(n for n, p in targets.items() if p == pointer)
            raise ScaffoldError(f"scaffold {scaffold.source}: {pointer} already receives the {name} block; give "
                                "an extra value only for an editable field no block fills", pointer)
        values[pointer] = value
    document = scaffold.document
    for pointer, value in values.items():
        _set(document, parse_pointer(pointer), copy.deepcopy(value))
    return document


def render_answer(document: Mapping[str, Any]) -> str:
    """The answer as written: two-space indented JSON, keys in document order, ending in a newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_answer(document: Mapping[str, Any], out_path: str | Path | None = None) -> None:
    """Write the filled document to ``out_path``, or to standard output when it is None."""
    text = render_answer(document)
    if out_path is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = Path(out_path)
    if not target.parent.is_dir():
        raise ScaffoldError(f"cannot write the answer to {target}: the directory {target.parent} does not exist")
    if target.is_dir():
        raise ScaffoldError(f"cannot write the answer to {target}: it is a directory; name a file")
    target.write_text(text, encoding="utf-8")
