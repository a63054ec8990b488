"""`elenchus replx score`: score one repair run, or a directory of them into a leaderboard."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path

from elenchus.errors import ElenchusError, InputGuardError
from elenchus.exit_codes import ExitCode
from elenchus.modes.repairlog import RepairInputError, read_attempts, read_replx_report
from elenchus.modes.scoring import CaseInput, Score, leaderboard, render, score

CASE_FILES = ("case.toml", "case.json")
CASE_FIELDS = ("repo", "base", "head", "command")


def case_input(name: str, repo: str, base: str | None, head: str | None, command: str | None,
               success_line: str | None, attempts: str | None, replx_report: str | None, budget: int,
               allow_commands: tuple[str, ...], heldout: tuple[str, ...] = ()) -> CaseInput:
    missing = [flag for flag, value in (("--base", base), ("--head", head), ("--command", command)) if not value]
    if missing:
        raise ElenchusError(f"missing {', '.join(missing)}: scoring needs the repair's Base and Head revisions "
                            "and the command whose success it claims")
    if command is not None and not command.strip():
        raise InputGuardError("command", "the command is empty; pass the command the repair loop ran")
    if success_line is not None and not success_line.strip():
        raise InputGuardError("success-line", "the success line is empty; pass the exact line that means success")
    for path in heldout:
        if not Path(path).exists():
            raise InputGuardError("heldout", f"{path} does not exist; pass held-out test files, a directory of "
                                             "them, or a patch that adds them")
    return CaseInput(name, Path(repo), base, head, command, success_line,  # type: ignore[arg-type]
                     read_attempts(attempts) if attempts else None,
                     read_replx_report(replx_report) if replx_report else None, budget, allow_commands,
                     tuple(Path(path).resolve() for path in heldout))


def _load_case(directory: Path, budget: int, allow_commands: tuple[str, ...]) -> CaseInput:
    for name in CASE_FILES:
        path = directory / name
        if path.is_file():
            try:
                data = tomllib.loads(path.read_text()) if name.endswith(".toml") else json.loads(path.read_text())
            except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
                raise RepairInputError(f"{path}: not valid {name.rsplit('.', 1)[1].upper()} ({error})") from None
            missing = [f for f in CASE_FIELDS if not data.get(f)]
            if missing:
                raise RepairInputError(f"{path}: missing field(s) {', '.join(missing)}")

            def local(key: str) -> str | None:
                return str((directory / data[key]).resolve()) if data.get(key) else None

            heldout = data.get("heldout", [])
            if not isinstance(heldout, list) or not all(isinstance(h, str) and h for h in heldout):
                raise RepairInputError(f"{path}: heldout must be a list of paths (held-out test files, directories "
                                       "of them, or patches), relative to the case's directory")
            return case_input(data.get("name", directory.name), local("repo") or "", data["base"], data["head"],
                              data["command"], data.get("success_line"), local("attempts"),
                              local("replx_report"), budget, allow_commands,
                              tuple(str((directory / h).resolve()) for h in heldout))
    raise RepairInputError(f"{directory}: no case.toml or case.json (fields: {', '.join(CASE_FIELDS)}, "
                           "optional success_line, attempts, replx_report, heldout)")


def run_one(case: CaseInput, echo: Callable[[str], None], json_path: str | None,
            fail_on: tuple[str, ...]) -> ExitCode:
    result = score(case, echo)
    echo(render(result))
    if json_path:
        Path(json_path).write_text(json.dumps(result.to_json(), indent=2) + "\n")
        echo(f"JSON written to {json_path}")
    return ExitCode.FINDINGS if result.status in fail_on else ExitCode.OK


def run_batch(cases_dir: str, budget: int, allow_commands: tuple[str, ...], out_dir: str | None,
              echo: Callable[[str], None], fail_on: tuple[str, ...]) -> ExitCode:
    root = Path(cases_dir)
    if not root.is_dir():
        raise RepairInputError(f"--cases {cases_dir}: not a directory")
    directories = sorted(p for p in root.iterdir() if p.is_dir() and any((p / f).is_file() for f in CASE_FILES))
    if not directories:
        raise RepairInputError(f"--cases {cases_dir}: no sub-directory holds a case.toml or case.json")
    scores: list[Score] = []
    for directory in directories:
        case = _load_case(directory, budget, allow_commands)
        scores.append(score(case, echo))
        echo(render(scores[-1]))
    document, markdown = leaderboard(scores)
    destination = Path(out_dir) if out_dir else root
    destination.mkdir(parents=True, exist_ok=True)
    (destination / "leaderboard.json").write_text(json.dumps(
        {**document, "scores": [s.to_json() for s in scores]}, indent=2) + "\n")
    (destination / "leaderboard.md").write_text(markdown)
    echo(markdown)
    echo(f"Leaderboard written to {destination / 'leaderboard.md'} and {destination / 'leaderboard.json'}")
    return ExitCode.FINDINGS if any(s.status in fail_on for s in scores) else ExitCode.OK
