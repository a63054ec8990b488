"""Hardening mode: mutate the confirmed intent, and hand over tests that kill the survivors.

``elenchus harden`` runs the evaluation engine on the functions and methods that the
confirmed (or tested) contract items anchor, and nothing else: it stops before the first
mutant when any item is not confirmed. Each survivor's witness is written where the test
would go (beside the nearest test file, in its style) and verified there: it passes on
Head and fails at its assertion on the mutant. Those tests are the proposals of
``test-handoff.json``; a survivor without one is listed as not provable, with the reason.

Nothing is written to the repository. ``elenchus harden --apply HANDOFF``, a separate
request, writes exactly the listed tests after checking that the working tree is the one
the tests were proposed for and that each still passes on it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from elenchus.repo import fingerprint
from elenchus.mutation.contract import SOURCE_WORDS
from elenchus.errors import Blocked, ElenchusError
from elenchus.exit_codes import ExitCode
from elenchus.repo.git import Repository
from elenchus.modes.evaluate import Evaluation, Options
from elenchus.records import RunDirectory

HANDOFF = "test-handoff.json"
SUMMARY = "harden.md"
_OPEN = ("survived", "not-covered")


def files_digest(repo: Repository) -> str:
    """The working tree's files (paths and contents): what a proposed test was verified against."""
    digest = hashlib.sha256()
    for path, content in fingerprint.take(repo).files:
        digest.update(f"{path}\0{content}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def run(options: Options, echo: Callable[[str], None], emit: Callable[[str], None]) -> ExitCode:
    """Harden; the full evaluation report stays in the run directory, the hardening summary is printed."""
    return execute(options, echo, emit)[0]


def execute(options: Options, echo: Callable[[str], None],
            emit: Callable[[str], None]) -> tuple[ExitCode, dict | None, dict | None]:
    """The exit status, the evaluation report (mode "harden") and the test handoff (None when stopped)."""
    evaluation = Evaluation(options, echo, lambda prompt, default: default, emit=lambda text: None)
    code = evaluation.run()
    report = evaluation.report
    if report is None:
        return code, None, None
    repo = Repository(options.repo)
    # (the revision hardened: `--head` may name another one than the checkout's HEAD)
    hardened = report["snapshots"]["head"].get("sha") or repo.resolve("HEAD")
    handoff = build_handoff(report, hardened, files_digest(repo))
    if options.hosted_scope_reason is None:  # in hosted mode the Runner validates
        from elenchus.schemas import validate

        validate("test-handoff", handoff)
    run_dir = RunDirectory(Path(report["run"]["directory"]))
    directory = run_dir.path
    run_dir.write_json(HANDOFF, handoff)
    summary = render(report, handoff, directory / HANDOFF)
    run_dir.write_text(SUMMARY, summary)
    emit(summary)
    echo(f"Hardening summary: {directory / SUMMARY} (test handoff: {directory / HANDOFF}; full report: "
         f"{directory / 'report.md'})")
    return code, report, handoff


def build_handoff(report: dict, commit: str, digest: str) -> dict:
    """Each survivor's verified test as a proposal; the survivors without one, with the reason.

    ``commit`` (the revision hardened) and ``digest`` (the working tree's files) are what ``--apply`` checks
    again."""
    head = report["snapshots"]["head"]
    proposals, unproven = [], []
    for mutation, comparison in _open(report):
        witness = mutation.get("witness")
        if witness and witness.get("path"):
            proposals.append({
                "id": mutation["id"], "path": witness["path"], "contract_id": mutation.get("contract_id") or
                "unassigned", "test_source": witness["test"], "kills": [mutation["id"]],
                "demonstration": {"passes_on_reference": True, "fails_on_mutant": True,
                                  "failing_assertion": f"{witness['call']} gives {witness['original']} (the mutant "
                                                       f"gives {witness['mutant']})"},
                "kept_because": f"it guards {_behaviour(report, mutation)}: without it, {mutation['incident']}",
                "test": witness.get("test_id") or witness["path"], "observes": "output",
                "incident": mutation["incident"],
                "verification_runs": [
                    {"on": "reference", "result": "passed", "detail": f"{witness['path']} passed on Head"},
                    {"on": "mutant", "result": "failed at its assertion",
                     "detail": (witness.get("verification") or f"{witness['call']} gave {witness['mutant']}")
                     .replace("passes on the reference", "passes on Head", 1)}],
            })
        else:
            unproven.append({"mutant_id": mutation["id"], "incident": mutation["incident"],
                             "contract_id": mutation.get("contract_id"),
                             "reason": mutation.get("reason") or comparison.get("reason")
                             or "no test could be verified for it"})
    rev = "the working tree" if head.get("worktree") else head["rev"]
    return {"reference": {"rev": rev, "sha": commit, "files_digest": digest}, "probes": proposals,
            "apply": {"requested": False, "written": []}, "unproven": unproven}


def _open(report: dict) -> list[tuple[dict, dict]]:
    """The mutants the current tests do not catch (survivors, and code no test runs)."""
    comparisons = {c["mutation_id"]: c for c in report["comparisons"]}
    found = []
    for mutation in report["mutations"]:
        comparison = comparisons.get(mutation["id"])
        if comparison is not None and comparison["modified"]["result"] in _OPEN:
            found.append((mutation, comparison))
    return found


def _behaviour(report: dict, mutation: dict) -> str:
    items = {item["id"]: item for item in report["contract"]["items"]}
    item = items.get(mutation.get("contract_id") or "")
    return f"{item['id']} ({item['behaviour']})" if item else "the confirmed behaviour of this code"


def render(report: dict, handoff: dict, handoff_path: Path) -> str:
    """What was challenged, what the tests already catch, and the proposals: in words."""
    contract = report["contract"]
    comparisons = {c["mutation_id"]: c for c in report["comparisons"]}
    killed = [m for m in report["mutations"] if comparisons.get(m["id"], {}).get("modified", {}).get("result")
              == "killed"]
    lines = ["# Elenchus hardening", ""]
    lines.append(f"- Contract: {SOURCE_WORDS.get(contract['source'], contract['source'])} "
                 f"({contract['path'] or 'from the host'})")
    for item in contract["items"]:
        lines.append(f"  - {item['id']} ({item['status']}): {item['behaviour']}")
    lines.append(f"- Head: {handoff['reference']['rev']} (on commit {handoff['reference']['sha'][:10]})")
    lines.append(f"- Mutants of the confirmed code: {len(report['mutations'])}; caught by the current tests: "
                 f"{len(killed)}; not caught: {len(handoff['probes']) + len(handoff['unproven'])}")
    lines += ["", f"## Caught by the current tests ({len(killed)})", ""]
    for mutation in killed:
        kill = comparisons[mutation["id"]]["modified"].get("kill") or {}
        lines.append(f"- {mutation['incident']}: caught by `{kill.get('test', 'a test')}`")
    if not killed:
        lines.append("- none")
    lines += ["", f"## Not caught, with a proposed test ({len(handoff['probes'])})", ""]
    for proposal in handoff["probes"]:
        lines += [f"### {proposal['incident']}", "",
                  f"- Contract item: {proposal['contract_id']}",
                  f"- Proposed test: `{proposal['test']}`",
                  f"- Verified: {proposal['verification_runs'][1]['detail']}", "", "```python",
                  proposal["test_source"].rstrip(),
                  "```", ""]
    if not handoff["probes"]:
        lines += ["- none", ""]
    lines += [f"## Not caught, no test could be proven ({len(handoff['unproven'])})", ""]
    for entry in handoff["unproven"]:
        lines.append(f"- {entry['incident']}: {entry['reason']}")
    if not handoff["unproven"]:
        lines.append("- none")
    lines += ["", f"Test handoff: {handoff_path}."]
    if handoff["probes"]:
        lines.append(f"Nothing was written to the repository. To add these tests, run "
                     f"`elenchus harden --apply {handoff_path}`: it checks that the working tree has not changed "
                     "and that each test still passes, then writes them.")
    if report["post_flight"]["worktree_unchanged"]:
        lines.append(fingerprint.POST_FLIGHT_SENTENCE)
    return "\n".join(lines) + "\n"


# -- --apply ----------------------------------------------------------------------------


def apply(repo_path: str, handoff_path: str, echo: Callable[[str], None]) -> ExitCode:
    """Write exactly the handoff's tests, once Head is shown unmoved and each test passes on it."""
    from elenchus.repo.layout import detect_layout
    from elenchus.analysis.probes import passes_on
    from elenchus.schemas import validate
    from elenchus.repo.session import open_session

    path = Path(handoff_path)
    try:
        handoff = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ElenchusError(f"--apply {handoff_path}: cannot read the test handoff ({error}); pass the "
                            f"{HANDOFF} of a harden run") from None
    validate("test-handoff", handoff)
    repo = Repository(repo_path)
    reference = handoff["reference"]
    if "files_digest" not in reference:
        raise ElenchusError(f"--apply {handoff_path}: this handoff was not made by `elenchus harden` (it has no "
                            "record of the working tree it was verified on); run `elenchus harden` first")
    proposals = handoff["probes"]
    targets = [_inside(repo.root, p["path"]) for p in proposals]
    taken = [p["path"] for p, target in zip(proposals, targets) if target.exists()]
    if taken:
        raise Blocked(f"--apply: {', '.join(taken)} already exist; nothing was written (a test file of yours is "
                      "never overwritten). Move them, or run `elenchus harden` again")
    session = open_session(repo.root, None, None, missing_base_ok=True)
    try:
        if repo.resolve("HEAD") != reference["sha"] or files_digest(repo) != reference["files_digest"]:
            raise Blocked(f"--apply: Head moved since the tests were proposed (they were verified on "
                          f"{reference['rev']} {reference['sha'][:10]} and the working tree as it was then); "
                          "nothing was written. Run `elenchus harden` again for tests verified on the current code")
        layout = detect_layout(session.head, session.change.settings)
        for proposal in proposals:
            echo(f"Checking {proposal['path']} on the current Head...")
            problem = passes_on(session.head.root, proposal["path"], proposal["test_source"], layout=layout)
            if problem is not None:
                raise Blocked(f"--apply: {proposal['path']} no longer passes on the current Head ({problem}); "
                              "nothing was written")
    finally:
        session.close()
    for proposal, target in zip(proposals, targets):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(proposal["test_source"], encoding="utf-8")
        echo(f"Wrote {proposal['path']} ({proposal['test']}): guards against {proposal.get('incident') or proposal['kept_because']}")
    if not proposals:
        echo("The handoff lists no test; nothing was written.")
    return ExitCode.OK


def _inside(root: Path, relative: str) -> Path:
    pure = PurePosixPath(relative)
    if pure.is_absolute() or ".." in pure.parts or pure.suffix != ".py":
        raise ElenchusError(f"--apply: {relative!r} is not a relative .py path inside the repository; the handoff "
                            "cannot be applied")
    return root / Path(*pure.parts)
