"""What a repair loop says about itself: its attempt log and its replx report.

Both are claims, read only to be compared with what Elenchus verifies. Every
field may be missing or null; a missing number stays ``None`` and is never
invented. The attempt log is JSON lines, one attempt a line, with English keys or
the Spanish keys some loops write (``intento``, ``salida_codigo``, ...).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from elenchus.errors import ElenchusError

# field -> accepted keys, first match wins
_ATTEMPT_KEYS = {
    "number": ("attempt", "number", "intento"),
    "start": ("start", "started", "inicio"),
    "end": ("end", "finished", "fin"),
    "exit_code": ("exit_code", "exit", "salida_codigo"),
    "tests_passed": ("tests_passed", "passed", "tests_pasaron"),
    "tests_failed": ("tests_failed", "failed", "tests_fallaron"),
    "files_touched": ("files_touched", "files", "archivos_tocados"),
    "lines_added": ("lines_added", "lineas_mas"),
    "lines_removed": ("lines_removed", "lineas_menos"),
}
_INTEGER_FIELDS = ("number", "exit_code", "tests_passed", "tests_failed", "lines_added", "lines_removed")


class RepairInputError(ElenchusError):
    """A repair-run input (attempt log, replx report) is missing or malformed."""


@dataclass(frozen=True, slots=True)
class Attempt:
    number: int | None
    start: str | None
    end: str | None
    exit_code: int | None
    tests_passed: int | None
    tests_failed: int | None
    files_touched: tuple[str, ...] | None
    lines_added: int | None
    lines_removed: int | None


@dataclass(frozen=True, slots=True)
class Iteration:
    number: int
    command: str | None
    result: str | None
    diagnosis: str | None
    fix: str | None


@dataclass(frozen=True, slots=True)
class ReplxReport:
    target: str | None
    success_condition: str | None
    budget: int | None
    iterations: tuple[Iteration, ...]
    status: str | None  # solved | unsolved | input-error, as the report claims
    iterations_used: int | None


def _field(record: dict, name: str) -> object:
    for key in _ATTEMPT_KEYS[name]:
        if key in record:
            return record[key]
    return None


def read_attempts(path: str | Path) -> tuple[Attempt, ...]:
    source = Path(path)
    if not source.is_file():
        raise RepairInputError(f"--attempts {path}: file not found; pass the run's attempts.jsonl")
    attempts = []
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise RepairInputError(f"--attempts {path}: line {number} is not JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise RepairInputError(f"--attempts {path}: line {number} is not a JSON object")
        values: dict[str, object] = {}
        for name in _ATTEMPT_KEYS:
            value = _field(record, name)
            if name in _INTEGER_FIELDS and value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise RepairInputError(
                    f"--attempts {path}: line {number}, field '{name}' must be a whole number or null, got {value!r}")
            if name in ("start", "end") and value is not None and not isinstance(value, str):
                raise RepairInputError(f"--attempts {path}: line {number}, field '{name}' must be a timestamp "
                                       f"string or null, got {value!r}")
            if name == "files_touched" and value is not None:
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise RepairInputError(f"--attempts {path}: line {number}, field 'files_touched' must be a "
                                           f"list of paths or null, got {value!r}")
                value = tuple(value)
            values[name] = value
        attempts.append(Attempt(**values))  # type: ignore[arg-type]
    return tuple(attempts)


def _bullet(block: str, label: str) -> str | None:
    match = re.search(rf"^-\s*{re.escape(label)}:\s*(.*?)\s*$", block, flags=re.M | re.I)
    if not match:
        return None
    return match.group(1).strip().strip("`").strip() or None


def _integer(text: str | None) -> int | None:
    match = re.match(r"\s*(\d+)", text or "")
    return int(match.group(1)) if match else None


def read_replx_report(path: str | Path) -> ReplxReport:
    source = Path(path)
    if not source.is_file():
        raise RepairInputError(f"--replx-report {path}: file not found; pass the replx Markdown report")
    text = source.read_text(encoding="utf-8")
    if not re.search(r"^#\s*replx\b", text, flags=re.M | re.I):
        raise RepairInputError(f"--replx-report {path}: no '# replx: <target>' heading; is this a replx report?")
    sections = re.split(r"^##\s+", text, flags=re.M)
    header = sections[0]
    iterations: list[Iteration] = []
    outcome = ""
    for section in sections[1:]:
        title, _, body = section.partition("\n")
        iteration = re.match(r"Iteration\s+(\d+)", title.strip(), flags=re.I)
        if iteration:
            iterations.append(Iteration(int(iteration.group(1)), _bullet(body, "Command"), _bullet(body, "Result"),
                                        _bullet(body, "Diagnosis"), _bullet(body, "Fix")))
        elif title.strip().lower().startswith("outcome"):
            outcome = body
    status = _bullet(outcome, "Status")
    if status is not None:
        status = status.split()[0].lower()
        if status not in ("solved", "unsolved", "input-error"):
            raise RepairInputError(f"--replx-report {path}: Outcome Status must be solved, unsolved or "
                                   f"input-error, got {status!r}")
    used = _bullet(outcome, "Iterations used")
    return ReplxReport(_bullet(header, "Target"), _bullet(header, "Success condition"),
                       _integer(_bullet(header, "Budget")), tuple(iterations), status, _integer(used))


@dataclass(frozen=True, slots=True)
class LoopFacts:
    """What the attempt log shows; None wherever the log does not say."""

    loops: int | None
    first_pass: int | None  # number of the first attempt whose command exited 0
    last_attempt: int | None
    gap: int | None  # attempts between the first pass and the last attempt


def loop_facts(attempts: tuple[Attempt, ...] | None, report: ReplxReport | None = None) -> LoopFacts:
    if not attempts:
        used = report.iterations_used if report else None
        return LoopFacts(used, None, used, None)
    numbers = [a.number for a in attempts]
    known = all(n is not None for n in numbers)
    loops = len(attempts)
    first_pass = None
    for index, attempt in enumerate(attempts, start=1):
        if attempt.exit_code is None:
            break  # an unknown exit code could have been the first pass: stay unknown
        if attempt.exit_code == 0:
            first_pass = attempt.number if known else index
            break
    last = numbers[-1] if known else loops
    gap = (last - first_pass) if first_pass is not None and last is not None else None
    return LoopFacts(loops, first_pass, last, gap)
