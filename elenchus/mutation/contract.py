"""The intent contract: what the change is supposed to do (SPEC 3).

Loaded from an explicit path or the repository's ``.socratic`` directory and
validated against its schema. Without one, a provisional evaluation contract is
derived from the change itself: one item per changed public function, worded
from its docstring, its name, README mentions and the user's ``--intent``.
It is never derived from test assertions, and the implementation is never
treated as confirmed intent: every derived item is ``provisional``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from elenchus.repo.discover import ChangedFunction, ChangeSet
from elenchus.errors import ContractError, ElenchusError, IntentUnconfirmed
from elenchus.repo.snapshot import Snapshot

FLAT_CONTRACT = Path(".socratic/intent-contract.json")
CONTRACTS_DIR = Path(".socratic/contracts")
HIGH_RISK_WORDS = ("valid", "check", "auth", "permission", "verify", "save", "write", "store", "persist",
                   "delete", "remove", "pay", "charge", "price", "money", "lock", "commit", "parse", "limit",
                   "clamp", "bound")


@dataclass(frozen=True, slots=True)
class Anchor:
    path: str
    symbol: str
    lines: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ContractItem:
    id: str
    behaviour: str
    anchors: tuple[Anchor, ...]
    risk: str  # high | medium | low
    status: str  # provisional | needs-decision | confirmed | tested
    evidence: tuple[str, ...] = ()


#: Where a contract came from (``Contract.source``), in the words a report uses.
SOURCE_WORDS = {"socratic": "the repository's intent contract", "explicit": "the contract given with --contract",
                "provisional-derived": "derived from the change, not confirmed"}


@dataclass(frozen=True, slots=True)
class Contract:
    source: str  # explicit | socratic | provisional-derived
    path: str | None
    change_id: str | None
    items: tuple[ContractItem, ...]

    @property
    def provisional(self) -> bool:
        if self.source == "provisional-derived":
            return True
        return any(item.status in ("provisional", "needs-decision") for item in self.items)

    def item_for(self, path: str, symbol: str) -> ContractItem | None:
        """The item anchored at ``symbol`` in ``path`` (a method matches its class anchor too)."""
        for item in self.items:
            for anchor in item.anchors:
                if anchor.path == path and (anchor.symbol == symbol or symbol.startswith(anchor.symbol + ".")):
                    return item
        return None

    def to_json(self) -> dict:
        return {
            "change_id": self.change_id,
            "source": self.source,
            "items": [
                {"id": i.id, "behaviour": i.behaviour, "risk": i.risk, "status": i.status,
                 "anchors": [{"path": a.path, "symbol": a.symbol, "lines": list(a.lines)} for a in i.anchors],
                 "evidence": list(i.evidence)}
                for i in self.items
            ],
        }


def contract_from_json(document: dict, source: str, path: str | None) -> Contract:
    items = tuple(
        ContractItem(
            id=item["id"], behaviour=item["behaviour"], risk=item.get("risk", "medium"), status=item["status"],
            anchors=tuple(Anchor(a["path"], a["symbol"], (a["lines"][0], a["lines"][1]))
                          for a in item.get("anchors", ())),
            evidence=tuple(item.get("evidence", ())),
        )
        for item in document.get("items", ())
    )
    return Contract(source, path, document.get("change_id"), items)


def _read_validated(path: Path, source: str) -> Contract:
    from elenchus import schemas

    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ContractError(f"contract file not found: {path}; check the --contract path") from None
    except json.JSONDecodeError as error:
        raise ContractError(f"contract {path} is not valid JSON ({error}); fix the file") from None
    try:
        schemas.validate("intent-contract", document, source=str(path))
    except ElenchusError as error:
        raise ContractError(f"contract refused: {error.message}") from None
    return contract_from_json(document, source, str(path))


def load_contract(repo_root: Path, explicit: str | None = None, change_id: str | None = None) -> Contract | None:
    """The explicit contract, else the repository's .socratic one, else None."""
    if explicit:
        return _read_validated(Path(explicit), "explicit")
    flat = repo_root / FLAT_CONTRACT
    if flat.is_file():
        contract = _read_validated(flat, "socratic")
        if change_id is None or contract.change_id in (None, change_id):
            return contract
    if change_id:
        if not re.fullmatch(r"[A-Za-z0-9._-]+", change_id) or change_id.startswith("."):
            raise ContractError(f"--change-id {change_id!r} may only hold letters, digits, '.', '_' and '-'")
        specific = repo_root / CONTRACTS_DIR / f"{change_id}.json"
        if specific.is_file():
            return _read_validated(specific, "socratic")
    return None


def _readmes(head: Snapshot) -> list[tuple[str, list[str]]]:
    """The README files at Head, split into lines once (a large change asks about thousands of names)."""
    found = []
    for readme in ("README.md", "README.rst", "README.txt", "README"):
        text = head.read(readme)
        if text:
            found.append((readme, text.splitlines()))
    return found


def _readme_mentions(readmes: list[tuple[str, list[str]]], name: str) -> list[str]:
    mentions = []
    pattern = re.compile(rf"\b{re.escape(name)}\b")
    for readme, lines in readmes:
        for line in lines:
            if name in line and pattern.search(line):
                mentions.append(f"{readme}: {line.strip()[:160]}")
    return mentions[:3]


def _behaviour(fn: ChangedFunction) -> tuple[str, str]:
    """(statement, where it came from): docstring first, then the name."""
    if fn.docstring:
        return f"`{fn.qualname}`: {_first_sentence(fn.docstring)}", "docstring"
    words = fn.qualname.split(".")[-1].strip("_").replace("_", " ")
    return f"`{fn.qualname}` does what its name says: {words}", "name"


def _first_sentence(docstring: str) -> str:
    """The docstring's first sentence, whole even when it wraps onto more lines (a summary cut at the first line
    break reads as a claim the author never made)."""
    paragraph = []
    for line in docstring.strip().splitlines():
        if not line.strip():
            break
        paragraph.append(line.strip())
    text = " ".join(paragraph)
    end = re.search(r"[.!?](\s|$)", text)
    sentence = text[:end.end()].strip() if end else text
    if len(sentence) > _SENTENCE_CHARS:
        sentence = sentence[:_SENTENCE_CHARS].rsplit(" ", 1)[0] + " ..."
    return sentence


#: The longest docstring sentence a contract item quotes whole.
_SENTENCE_CHARS = 400


def _risk(fn: ChangedFunction, lines: list[str]) -> str:
    body = "\n".join(lines[fn.start - 1:fn.end])
    lowered = fn.qualname.lower()
    if "raise " in body or any(word in lowered for word in HIGH_RISK_WORDS):
        return "high"
    return "medium"


def derive_provisional(change: ChangeSet, head: Snapshot, intent: str | None = None) -> Contract:
    """One provisional item per changed public function or method still present at Head."""
    items = []
    readmes = _readmes(head)
    lines: dict[str, list[str]] = {}  # each file split once: a 5 MB module holds tens of thousands of functions
    for fn in change.functions:
        if fn.status == "deleted" or not fn.public:
            continue
        statement, origin = _behaviour(fn)
        if fn.path not in lines:
            lines[fn.path] = (head.read(fn.path) or "").splitlines()
        evidence = [f"{origin} of {fn.path}:{fn.start}"] + _readme_mentions(readmes, fn.qualname.split(".")[-1])
        if intent:
            evidence.append(f"request (--intent): {intent}")
        items.append(ContractItem(
            id=f"C{len(items) + 1}", behaviour=statement,
            anchors=(Anchor(fn.path, fn.qualname, (fn.start, fn.end)),),
            risk=_risk(fn, lines[fn.path]), status="provisional", evidence=tuple(evidence),
        ))
    return Contract("provisional-derived", None, None, tuple(items))


def require_for_hardening(contract: Contract | None) -> None:
    """Hardening challenges only confirmed intent (SPEC 3): anything else is a decision the user owes first."""
    how = ("set each item's \"status\" to \"confirmed\" in the contract once you have checked that its behaviour "
           "is what you intend (by hand, or with Maieutic, the intent interviewer), then run harden again")
    if contract is None or contract.source == "provisional-derived":
        raise IntentUnconfirmed("Hardening needs an intent contract with confirmed items, and none was found: pass "
                                "--contract PATH or --change-id ID, or write .socratic/intent-contract.json; "
                                f"{how}. Nothing was mutated.")
    weak = [i for i in contract.items if i.status not in ("confirmed", "tested")]
    if weak:
        named = ", ".join(f"{i.id} ({i.status}: {i.behaviour})" for i in weak)
        verb, them = ("is", "it") if len(weak) == 1 else ("are", "them")
        raise IntentUnconfirmed(f"Hardening needs confirmed or tested items; {', '.join(i.id for i in weak)} {verb} "
                                f"not: {named}. To harden {them}, {how}. Nothing was mutated.")
    if not contract.items:
        raise IntentUnconfirmed(f"Hardening needs confirmed items, and the contract has none; {how}.")


def require_for_capture(contract: Contract | None, reference: str | None, proposed: str | None) -> None:
    """Capture accepts provisional intent only when both revisions are identified (SPEC 3)."""
    if not reference or not proposed:
        raise ContractError(
            "Capture needs both the reference revision and the proposed diff; pass --reference and --proposed")
    if contract is None:
        return  # a provisional contract will be derived from the proposed diff
    allowed = ("provisional", "needs-decision", "confirmed", "tested")
    bad = [i.id for i in contract.items if i.status not in allowed]
    if bad:
        raise ContractError(f"contract item{'s' if len(bad) > 1 else ''} {', '.join(bad)} "
                            f"ha{'ve' if len(bad) > 1 else 's'} an unknown status; use one of {', '.join(allowed)}")
