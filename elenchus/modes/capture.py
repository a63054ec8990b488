"""Capture mode: probe a proposed diff with tests built from reference mutants (behind `elenchus capture`)."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from elenchus import __version__
from elenchus.analysis import reference_probes
from elenchus.repo import fingerprint
from elenchus.analysis import probes as probe_engine
from elenchus.mutation.contract import contract_from_json, load_contract, require_for_capture
from elenchus.repo.discover import discover
from elenchus.errors import ElenchusError
from elenchus.exit_codes import ExitCode
from elenchus.repo.git import Repository
from elenchus.repo.patching import apply as apply_patch
from elenchus.records import RunDirectory
from elenchus.repo.snapshot import Snapshot, materialize_commit, new_snapshot_dir


@dataclass(frozen=True, slots=True)
class Options:
    repo: str
    reference: str | None
    proposed: str | None
    proposed_patch: str | None
    budget: int
    probe_dir: str | None = None
    contract: str | None = None
    change_id: str | None = None
    intent: str | None = None
    apply: bool = False
    json_path: str | None = None
    hosted_contract: dict | None = None  # hosted mode: the host's contract (its shape checked with the scaffold)


def _proposed_snapshot(repo: Repository, options: Options, reference: Snapshot) -> tuple[Snapshot, str, str | None]:
    if options.proposed_patch:
        patch_path = Path(options.proposed_patch)
        if not patch_path.is_file():
            raise ElenchusError(f"--proposed-patch {patch_path}: file not found")
        root = new_snapshot_dir(repo, "proposed")
        shutil.rmtree(root)
        shutil.copytree(reference.root, root, symlinks=True)
        try:
            apply_patch(root, patch_path.read_text())
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        files = tuple(sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()))
        return Snapshot(root, "proposed", f"{reference.rev} + {patch_path.name}", None, files, ()), \
            f"{reference.rev} + {patch_path}", None
    sha = repo.resolve(options.proposed)  # type: ignore[arg-type]
    return materialize_commit(repo, options.proposed, sha, "proposed"), options.proposed, sha  # type: ignore[arg-type]


def _host_probes(directory: str, reference: Snapshot, mutants: list) -> tuple[list[tuple[probe_engine.Probe, str]],
                                                                                list[dict]]:
    folder = Path(directory)
    if not folder.is_dir():
        raise ElenchusError(f"--probe-dir {directory}: not a directory")
    accepted, verdicts = [], []
    for path in sorted(folder.rglob("test_*.py")):
        source = path.read_text(errors="replace")
        relative = f"tests/{path.name}"
        check = probe_engine.check_host_probe(reference.root, relative, source, mutants)
        verdicts.append({"path": str(path), "accepted": check.accepted, "reason": check.reason,
                         "kills": list(check.killed)})
        if check.accepted:
            accepted.append((probe_engine.host_probe(relative, source, mutant_ids=check.killed), "host"))
    return accepted, verdicts


def run(options: Options, echo: Callable[[str], None]) -> ExitCode:
    execute(options, echo)
    return ExitCode.OK


def execute(options: Options, echo: Callable[[str], None], hosted: bool = False) -> dict:
    """Run Capture and write its run records; returns the capture document.

    ``hosted``: a Runner validates documents, so no schema file is opened here.
    """
    repo = Repository(options.repo)
    require_for_capture(None, options.reference, options.proposed or options.proposed_patch)
    before = fingerprint.take(repo)
    started = time.time()
    reference_sha = repo.resolve(options.reference)  # type: ignore[arg-type]
    reference = materialize_commit(repo, options.reference, reference_sha, "reference")  # type: ignore[arg-type]
    narration = [f"Reference: {options.reference} ({reference_sha[:10]}), as given by --reference."]
    echo(f"Reference: {options.reference} ({reference_sha[:10]})")
    proposed = None
    try:
        proposed, proposed_label, proposed_sha = _proposed_snapshot(repo, options, reference)
        echo(f"Proposed: {proposed_label}" + (f" ({proposed_sha[:10]})" if proposed_sha else ""))
        narration.append(f"Proposed: {proposed_label}" + (f" ({proposed_sha[:10]})" if proposed_sha else "")
                         + (", a patch applied to the reference in a snapshot." if options.proposed_patch
                            else ", as given by --proposed."))
        change = discover(reference, proposed)
        contract = (contract_from_json(options.hosted_contract, "socratic", None)
                    if options.hosted_contract is not None else load_contract(repo.root, options.contract,
                                                                               options.change_id)) \
            or reference_probes.derive_capture_contract(change, proposed, options.intent)
        require_for_capture(contract, options.reference, proposed_label)
        chosen, beyond, rejected = reference_probes.plan_reference_mutants(change, reference, contract, options.budget,
                                                                           proposed)
        echo(f"Reference mutants: {len(chosen)} challenged, {len(beyond)} beyond the budget, "
             f"{len(rejected)} rejected before running.")
        challenges = reference_probes.build_challenges(reference, change, contract, chosen, echo)
        accepted = [(c.probe, "generated") for c in challenges if c.probe is not None]
        host_verdicts: list[dict] = []
        if options.probe_dir:
            host, host_verdicts = _host_probes(options.probe_dir, reference, [m for _, m in chosen])
            accepted += host
        results = reference_probes.run_against_proposed(proposed, accepted)
        measured = reference_probes.baselines(reference, proposed, change.related_tests)
        differences = reference_probes.behaviour_differences(
            results, challenges, change, options.reference)  # type: ignore[arg-type]
    finally:
        reference.remove()
        if proposed is not None:
            proposed.remove()
    written: list[str] = []
    changes = fingerprint.compare(before, fingerprint.take(repo))
    if options.apply:
        keep = [r.probe for r in results if r.outcome in ("weak-catch", "no-catch") and r.source == "generated"]
        written = reference_probes.apply_probes(repo.root, keep)
    document = _document(options, reference_sha, proposed_label, proposed_sha, contract, challenges, beyond,
                         rejected, host_verdicts, results, differences, changes, written, started)
    document["baseline"] = measured
    document["worktree_fingerprint"] = before.digest()
    document["derivation"] = "\n".join(narration)
    document["detected"] = {"production_files": list(change.production_files),
                            "test_files_added": list(change.tests_added),
                            "test_files_modified": list(change.tests_modified),
                            "test_files_deleted": list(change.tests_deleted),
                            "related_tests": list(change.related_tests)}
    handoff = _handoff(options, reference_sha, challenges, results, written)
    if not hosted:
        from elenchus.schemas import validate

        validate("test-handoff", handoff)
    run_dir = RunDirectory.create(repo.root)
    run_dir.write_json("capture.json", document)
    run_dir.write_json("test-handoff.json", handoff)
    markdown = render(document)
    run_dir.write_text("capture.md", markdown)
    echo("")
    echo(markdown)
    echo(f"Report: {run_dir.path / 'capture.md'} (JSON: capture.json, test handoff: test-handoff.json)")
    if options.json_path:
        Path(options.json_path).write_text(json.dumps(document, indent=2) + "\n")
    document["run"].update(id=run_dir.id, directory=str(run_dir.path))
    return document


def as_report(document: dict, scope: dict) -> tuple[dict, dict]:
    """The capture document in the evaluation report's shape, plus its weak catches, for hosted mode."""
    mutations, notes = [], []
    for mutant in document["mutants"]:
        probe = mutant["probe"]
        if probe is None:  # no input told it apart: likely equivalent as far as the search went, no test asked for
            notes.append(f"{mutant['location']['path']}:{mutant['location']['line']}: {mutant['incident']}: "
                         f"no probe was made ({mutant['evidence']}), so the proposal was not checked against it")
            continue
        mutations.append({
            "id": mutant["id"], "contract_id": mutant["contract_id"],
            "location": {**mutant["location"], "end_line": mutant["location"]["line"]},
            "changed_intent": mutant["changed_intent"], "incident": mutant["incident"], "diff": mutant["diff"],
            "expected_detection": mutant["expected_detection"], "evidence": mutant["evidence"],
            "risk_rank": mutant["rank"], "retention_risk": False,
            # (the probe is a generated test, proposed in the test handoff: no test of the repository killed it)
            "result": "killed", "kill": {"test": None, "kind": "proposed-probe", "attributed": True},
            "reason": f"the probe proposed for it ({probe}) fails on it at its assertion"})
    report = {
        "mode": "capture", "scope": scope,
        "snapshots": {"base": document["reference"], "head": {"rev": document["proposed"]["rev"],
                                                              "sha": document["proposed"]["sha"], "worktree": False},
                      "worktree_fingerprint": document.get("worktree_fingerprint"),
                      "derivation": document.get("derivation")},
        "contract": {**document["contract"], "path": None}, "budget": document["budget"],
        "baseline": document.get("baseline") or {}, "mutations": mutations, "not_challenged": [
            {**item, "location": {**item["location"], "end_line": item["location"]["line"]}}
            for item in document["not_challenged"]],
        "rejected": document["rejected"], "comparisons": [], "test_quality": [], "notes": notes,
        "post_flight": document["post_flight"], "tool": document["tool"],
        "run": {"id": document["run"]["id"], "directory": document["run"]["directory"],
                "started": document["run"]["started"], "finished": document["run"]["finished"]},
        "execution": {"test_command": "pytest <generated probe files>",
                      "isolation": "fresh copies of the reference, mutant and proposed snapshots per run"},
    }
    catches = {"weak_catches": [{"file": d["path"], "line": d["line"], "input": d["input"],
                                 "reference": d["reference"], "proposed": d["proposed"],
                                 "contract_id": d["contract_id"], "question": d["question"],
                                 "comment": d["comment"]} for d in document["behavior_differences"]]}
    return report, catches


def _document(options, reference_sha, proposed_label, proposed_sha, contract, challenges, beyond, rejected,
              host_verdicts, results, differences, changes, written, started) -> dict:
    return {
        "mode": "capture", "tool": {"name": "elenchus", "version": __version__},
        "reference": {"rev": options.reference, "sha": reference_sha},
        "proposed": {"rev": proposed_label, "sha": proposed_sha, "patch": options.proposed_patch},
        "contract": {"source": contract.source, "provisional": contract.provisional,
                     "change_id": contract.change_id, "items": contract.to_json()["items"]},
        "budget": {"limit": options.budget},
        "mutants": [{
            "id": c.mutant.id, "rank": c.rank, "contract_id": c.contract_id,
            "location": {"path": c.mutant.path, "line": c.mutant.line, "symbol": c.mutant.symbol},
            "changed_intent": c.mutant.changed_intent, "incident": c.mutant.incident, "diff": c.mutant.diff,
            "expected_detection": c.mutant.expected_detection, "evidence": c.evidence,
            "probe": c.probe.path if c.probe else None} for c in challenges],
        "not_challenged": [{"id": m.id, "rank": rank, "incident": m.incident,
                            "location": {"path": m.path, "line": m.line, "symbol": m.symbol},
                            "reason": f"beyond the budget of {options.budget}"} for rank, m in beyond],
        "rejected": [{"location": {"path": r.path, "line": r.line, "symbol": r.symbol},
                      "changed_intent": r.changed_intent, "reason": r.reason} for r in rejected],
        "host_probes": host_verdicts,
        "outcomes": [{"probe": r.probe.test_nodeid, "source": r.source, "mutants": list(r.probe.mutant_ids),
                      "result": r.outcome, "detail": r.message} for r in results],
        "behavior_differences": [{"path": d.path, "line": d.line, "contract_id": d.contract_id, "input": d.call,
                                  "reference": d.reference, "proposed": d.proposed, "question": d.question,
                                  "comment": d.comment()} for d in differences],
        "applied": written,
        "post_flight": {"worktree_unchanged": not changes, "changes": list(changes)},
        "run": {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
                "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
    }


def _handoff(options, reference_sha, challenges, results, written) -> dict:
    kept = {r.probe.id: r for r in results if r.source == "generated"}
    probes = []
    for challenge in challenges:
        probe = challenge.probe
        if probe is None or probe.id not in kept:
            continue
        probes.append({
            "id": probe.id, "path": probe.path, "contract_id": challenge.contract_id or "unassigned",
            "test_source": probe.source, "kills": list(probe.mutant_ids),
            "demonstration": {"passes_on_reference": True, "fails_on_mutant": True,
                              "failing_assertion": f"{probe.input_repr} {reference_probes.gives(probe.reference_repr)} "
                                                   f"(the mutant {reference_probes.gives(probe.mutant_repr)})"},
            "kept_because": f"it detects: {challenge.mutant.incident}",
        })
    return {"reference": {"rev": options.reference, "sha": reference_sha}, "probes": probes,
            "apply": {"requested": options.apply, "written": written}}


def render(document: dict) -> str:
    lines = ["# Elenchus capture", "",
             f"- Reference: {document['reference']['rev']} ({document['reference']['sha'][:10]})",
             f"- Proposed: {document['proposed']['rev']}",
             f"- Contract: {document['contract']['source']}" + (" (provisional)" if document['contract']['provisional'] else ""),
             f"- Reference mutants: {len(document['mutants'])} challenged, {len(document['not_challenged'])} "
             f"not challenged, {len(document['rejected'])} rejected",
             *(["- The project's related tests, no mutant: " + "; ".join(
                 f"{name} {b['status']} ({b['tests']} test(s)"
                 + (f", failing: {', '.join(b['failing_tests'][:3])}" if b["failing_tests"] else "") + ")"
                 for name, b in document["baseline"].items())] if document.get("baseline") else []), ""]
    lines += ["## Behavior differences", ""]
    outcomes = document["outcomes"]
    blocked = [o for o in outcomes if o["result"] in ("not-comparable", "inconclusive")]
    if not document["behavior_differences"] and blocked:
        why = blocked[0]["detail"] or blocked[0]["result"]
        lines += [f"None found, but {len(blocked)} of {len(outcomes)} probe(s) could not run against the proposal "
                  f"(first: {why}): what they would have shown is unknown.", ""]
    elif not document["behavior_differences"]:
        lines += ["None: no probe found a behaviour of the proposed diff that matches an imagined mistake.", ""]
    for difference in document["behavior_differences"]:
        lines += [difference["comment"]]
    lines += ["## Probes", ""]
    for outcome in document["outcomes"]:
        lines.append(f"- `{outcome['probe']}` ({outcome['source']}): {outcome['result']}"
                     + (f": {outcome['detail']}" if outcome["result"] != "no-catch" and outcome["detail"] else ""))
    for mutant in document["mutants"]:
        if mutant["probe"] is None:
            lines.append(f"- no probe for: {mutant['incident']} ({mutant['evidence']})")
    for verdict in document["host_probes"]:
        state = "accepted" if verdict["accepted"] else f"rejected: {verdict['reason']}"
        lines.append(f"- host probe {verdict['path']}: {state}")
    lines.append("")
    if document["applied"]:
        lines += [f"Written into the repository (--apply): {', '.join(document['applied'])}", ""]
    post = document["post_flight"]
    if document["applied"]:
        lines.append("This run wrote into the repository because --apply was given; it was not review-only.")
    elif post["worktree_unchanged"]:
        lines.append(fingerprint.POST_FLIGHT_SENTENCE)
    else:
        lines.append("Post-flight found changes: " + "; ".join(post["changes"]))
    return "\n".join(lines) + "\n"
