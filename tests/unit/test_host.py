"""Hosted mode: reading a Runner scaffold, the four canonical blocks, and filling only editable fields."""

from __future__ import annotations

import copy
import json
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from elenchus.modes import host
from elenchus import schemas
from elenchus.modes.host import EvidenceError, ScaffoldError

ROOT = Path(__file__).resolve().parents[2]
SCAFFOLD = ROOT / "fixtures" / "host" / "scaffold.example.json"
ANSWER = ROOT / "fixtures" / "host" / "answer.example.json"
REPORT = ROOT / "fixtures" / "documents" / "mutation-report.example.json"


def scaffold_data() -> dict:
    return json.loads(SCAFFOLD.read_text())


def report_data() -> dict:
    return json.loads(REPORT.read_text())


def hosted_report(scaffold: host.Scaffold) -> dict:
    """The example report as a hosted run would produce it: the host's scope inherited, not asked."""
    report = report_data()
    option, target, reason = host.host_scope(scaffold)
    report["scope"].update(option=option, target=target, reason=reason, inherited=True)
    return report


def every_pointer(value, prefix: str = ""):
    """Every JSON Pointer in ``value`` (containers and leaves) with the value's exact JSON text."""
    yield prefix, json.dumps(value, sort_keys=False)
    if isinstance(value, dict):
        for key, child in value.items():
            yield from every_pointer(child, prefix + host.pointer_to(key))
    elif isinstance(value, list):
        for position, child in enumerate(value):
            yield from every_pointer(child, f"{prefix}/{position}")


def outside(editable: tuple[str, ...], pointer: str) -> bool:
    return not any(pointer == e or pointer.startswith(e + "/") or e.startswith(pointer + "/") or pointer == ""
                   for e in editable)


def write(tmp_path: Path, data) -> Path:
    path = tmp_path / "scaffold.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


@pytest.fixture
def no_schemas(monkeypatch):
    """Make every entry point of elenchus.schemas raise, so a hosted run that touches one fails."""

    def refuse(*args, **kwargs):
        raise AssertionError("hosted mode called elenchus.schemas")

    for name in ("load_schema", "schema_path", "validate", "validate_file", "_schema_text", "_validator"):
        monkeypatch.setattr(schemas, name, refuse)


# --- The round trip on the example scaffold ---------------------------------------------------


def test_scaffold_example_round_trip_changes_only_the_editable_fields(no_schemas):
    scaffold = host.read_scaffold(SCAFFOLD)
    before = scaffold_data()["document"]
    after = host.fill(scaffold, host.canonical_blocks(hosted_report(scaffold)))

    kept_before = {p: text for p, text in every_pointer(before) if outside(scaffold.editable_fields, p)}
    kept_after = {p: text for p, text in every_pointer(after) if outside(scaffold.editable_fields, p)}
    assert kept_after == kept_before
    assert list(after) == list(before)  # key order too: byte-for-byte the same document outside the blocks
    for pointer in ("/evidence", "/protection", "/risks", "/decisions"):
        assert after[pointer[1:]] != before[pointer[1:]]
    assert after["notes"] == before["notes"] == []  # editable, but no value given: left as received


def test_scaffold_example_answer_fixture_is_exactly_what_fill_writes(no_schemas):
    scaffold = host.read_scaffold(SCAFFOLD)
    document = host.fill(scaffold, host.canonical_blocks(hosted_report(scaffold)))
    assert host.render_answer(document) == ANSWER.read_text()


def test_host_scope_is_returned_exactly_as_the_scaffold_gives_it():
    scaffold = host.read_scaffold(SCAFFOLD)
    option, target, reason = host.host_scope(scaffold)
    given = scaffold_data()["host"]["scope"]
    assert (option, target, reason) == (given["option"], given["target"], given["reason"])
    assert scaffold.host.mode == "evaluate" and scaffold.host.base == "HEAD" and scaffold.host.head is None


def test_host_scope_of_a_target_scaffold_carries_the_target():
    data = scaffold_data()
    data["host"]["scope"] = {"option": "target", "target": "src/chunker", "reason": "the user named the package"}
    assert host.host_scope(host.parse_scaffold(data)) == ("target", "src/chunker", "the user named the package")


def test_hosted_evidence_records_the_scope_as_inherited():
    scaffold = host.read_scaffold(SCAFFOLD)
    evidence = host.canonical_blocks(hosted_report(scaffold))["evidence"]
    assert evidence["scope"]["inherited"] is True
    assert evidence["scope"]["reason"] == host.host_scope(scaffold).reason


# --- The four canonical blocks ----------------------------------------------------------------


def test_canonical_blocks_are_exactly_evidence_protection_risks_and_decisions():
    assert list(host.canonical_blocks(report_data())) == ["evidence", "protection", "risks", "decisions"]


def test_canonical_evidence_block_names_snapshots_scope_baselines_counts_command_and_post_flight():
    evidence = host.canonical_blocks(report_data())["evidence"]
    assert evidence["mode"] == "evaluate"
    assert evidence["snapshots"]["base"]["sha"] == "4b1f0c9e2d7a3b5c6e8f9a0b1c2d3e4f5a6b7c8d"
    assert evidence["snapshots"]["head"] == {"rev": "working tree", "sha": None, "worktree": True}
    assert evidence["snapshots"]["worktree_fingerprint"].startswith("sha256:")
    assert evidence["scope"]["option"] == "current-change" and evidence["scope"]["inherited"] is False
    assert set(evidence["baseline"]) == {"existing", "modified"}
    assert evidence["baseline"]["existing"]["status"] == "green"
    assert evidence["mutants"] == {"run": 3, "not_run": 0, "not_challenged": 1, "rejected": 1, "budget": 3}
    assert evidence["test_command"].startswith("python -m pytest")
    assert evidence["post_flight"]["worktree_unchanged"] is True
    assert evidence["post_flight"]["statement"] == "The working tree was not modified during this Review-only run."
    assert evidence["contract"]["provisional"] is True


def test_canonical_evidence_block_makes_no_post_flight_claim_when_the_worktree_changed():
    report = report_data()
    report["post_flight"] = {"worktree_unchanged": False, "changes": ["modified: src/chunker/chunks.py"]}
    assert host.canonical_blocks(report)["evidence"]["post_flight"]["statement"] is None


def test_canonical_protection_block_holds_the_killed_mutants_with_their_killing_tests():
    protection = host.canonical_blocks(report_data())["protection"]
    assert [(p["mutation_id"], p["assessment"], p["killing_test"]) for p in protection] == [
        ("M1", "incremental-protection", "tests/test_chunks.py::test_last_chunk_kept"),
        ("M3", "existing-protection", "tests/test_chunks.py::test_empty_input_gives_no_chunks"),
    ]
    assert protection[0]["incident"] == "a chunk silently drops its last element"
    assert protection[0]["location"] == {"path": "src/chunker/chunks.py", "line": 8, "end_line": 8,
                                         "symbol": "chunks"}
    assert protection[0]["contract_status"] == "provisional"  # detection of a provisional item, not confirmed


def test_canonical_risks_block_holds_unprotected_not_challenged_and_quality_in_that_order():
    risks = host.canonical_blocks(report_data())["risks"]
    assert [(r["category"], r["mutation_id"]) for r in risks] == [
        ("unprotected", "M2"), ("not_challenged", "M4"), ("test-quality", None)]
    unprotected = risks[0]
    assert unprotected["incident"] == "a negative chunk size silently yields no chunks instead of being rejected"
    assert unprotected["location"]["line"] == 6
    assert "no test tries a negative size" in unprotected["why"]
    assert "beyond the mutation budget" in risks[1]["why"]
    assert risks[2]["concern"] == "weak-assertion" and risks[2]["test"].endswith("test_splits_evenly")


def test_canonical_blocks_carry_no_score_percentage_or_merge_recommendation():
    text = json.dumps(host.canonical_blocks(report_data())).lower()
    for word in ("score", "percent", "kill_rate", "merge"):
        assert word not in text


def test_canonical_decisions_ask_about_the_unprotected_provisional_incident_and_each_provisional_item():
    decisions = host.canonical_blocks(report_data())["decisions"]
    assert [(d["id"], d["kind"], d["contract_id"]) for d in decisions] == [
        ("D1", "unprotected-intent", "C2"),
        ("D2", "contract-intent", "C1"), ("D3", "contract-intent", "C2"),
        ("D4", "contract-intent", "C3"), ("D5", "contract-intent", "C4"),
    ]
    assert "Is this behaviour intended?" in decisions[0]["question"]
    assert decisions[0]["about"]["mutation_id"] == "M2"
    assert "provisional" in decisions[1]["question"] and decisions[1]["about"]["mutation_ids"] == ["M1"]
    assert decisions[4]["about"]["mutation_ids"] == ["M4"]  # not challenged still depends on the intent


def test_canonical_decisions_skip_a_confirmed_item_and_always_ask_about_an_open_one():
    report = report_data()
    report["contract"]["source"] = "socratic"
    report["contract"]["items"][0]["status"] = "confirmed"
    report["contract"]["items"][1]["status"] = "confirmed"
    report["contract"]["items"].append({"id": "C5", "behaviour": "Chunks are lists, never tuples.", "anchors": [],
                                        "risk": "low", "status": "needs-decision"})
    decisions = host.canonical_blocks(report)["decisions"]
    assert [(d["kind"], d["contract_id"]) for d in decisions] == [
        ("contract-intent", "C3"), ("contract-intent", "C4"), ("contract-intent", "C5")]
    assert "No mutant challenged it yet." in decisions[2]["question"]


def test_protection_regression_is_a_risk_and_a_keep_the_removed_check_decision():
    report = report_data()
    comparison = report["comparisons"][2]  # M3: killed by both cohorts in the example
    comparison["modified"] = {"result": "survived", "kill": None}
    comparison["assessment"] = "protection-regression"
    comparison["reason"] = "the modified tests no longer call chunks([], 3)"
    blocks = host.canonical_blocks(report)
    regression = blocks["risks"][0]
    assert (regression["category"], regression["mutation_id"]) == ("protection-regression", "M3")
    assert regression["test"] == "tests/test_chunks.py::test_empty_input_gives_no_chunks"
    assert [p["mutation_id"] for p in blocks["protection"]] == ["M1"]
    first = blocks["decisions"][0]
    assert first["kind"] == "protection-regression" and first["question"].endswith("Keep the removed check?")
    assert first["about"]["removed_test"] == "tests/test_chunks.py::test_empty_input_gives_no_chunks"


def test_blocked_inconclusive_and_not_comparable_comparisons_are_risks_with_their_reason():
    report = report_data()
    for comparison, assessment in zip(report["comparisons"], ("blocked", "inconclusive", "not-comparable")):
        comparison["assessment"] = assessment
        comparison["reason"] = f"reason for {assessment}"
    risks = host.canonical_blocks(report)["risks"]
    assert [(r["category"], r["why"]) for r in risks[:3]] == [
        ("blocked", "reason for blocked"), ("not-comparable", "reason for not-comparable"),
        ("inconclusive", "reason for inconclusive")]


def test_single_cohort_report_maps_killed_and_survived_from_the_mutation_results():
    report = report_data()
    report["mode"] = "harden"
    report["comparisons"] = []
    report["mutations"][2]["result"] = "timeout"
    report["mutations"][2]["kill"] = None
    blocks = host.canonical_blocks(report)
    assert [(p["mutation_id"], p["assessment"]) for p in blocks["protection"]] == [("M1", "killed")]
    assert [(r["category"], r["mutation_id"]) for r in blocks["risks"][:2]] == [("unprotected", "M2"),
                                                                                 ("timeout", "M3")]
    assert blocks["evidence"]["mutants"]["run"] == 3


def test_capture_weak_catch_becomes_a_behaviour_difference_decision_with_a_ready_to_copy_comment():
    report = report_data()
    report["mode"] = "capture"
    catch = {"file": "src/chunker/chunks.py", "line": 8, "input": "chunks([1, 2, 3], 2)",
             "reference": "[[1, 2], [3]]", "proposed": "[[1], [3]]", "contract_id": "C1",
             "question": "Is it intended that chunks([1, 2, 3], 2) now drops the 2?"}
    decisions = host.canonical_blocks(report, {"weak_catches": [catch]})["decisions"]
    first = decisions[0]
    assert (first["id"], first["kind"], first["contract_id"]) == ("D1", "behaviour-difference", "C1")
    assert first["question"] == catch["question"]
    comment = first["about"]["comment"]
    assert comment.startswith("**Behavior difference** (src/chunker/chunks.py:8, C1)")
    for text in ("`chunks([1, 2, 3], 2)`", "`[[1, 2], [3]]`", "`[[1], [3]]`", catch["question"]):
        assert text in comment


def test_capture_evidence_is_refused_for_an_evaluate_report():
    with pytest.raises(EvidenceError, match="only in capture mode"):
        host.canonical_blocks(report_data(), {"weak_catches": []})


def test_capture_weak_catch_without_an_input_is_refused_naming_the_pointer():
    report = report_data()
    report["mode"] = "capture"
    catch = {"file": "a.py", "line": 3, "reference": "1", "proposed": "2", "question": "Intended?"}
    with pytest.raises(EvidenceError) as caught:
        host.canonical_blocks(report, {"weak_catches": [catch]})
    assert caught.value.pointer == "/weak_catches/0/input"


def test_canonical_blocks_refuse_a_report_without_mutations():
    report = report_data()
    del report["mutations"]
    with pytest.raises(EvidenceError, match="/mutations"):
        host.canonical_blocks(report)


# --- Malformed scaffolds ----------------------------------------------------------------------


def _drop(*path):
    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return change


def _put(value, *path):
    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


def _add_editable(pointer):
    def change(data):
        data["editable_fields"].append(pointer)
    return change


MALFORMED = [
    ("document missing", _drop("document"), "/document"),
    ("editable_fields missing", _drop("editable_fields"), "/editable_fields"),
    ("field_guide missing", _drop("field_guide"), "/field_guide"),
    ("host missing", _drop("host"), "/host"),
    ("host scope missing", _drop("host", "scope"), "/host/scope"),
    ("host mode missing", _drop("host", "mode"), "/host/mode"),
    ("document not an object", _put([], "document"), "/document"),
    ("editable_fields empty", _put([], "editable_fields"), "/editable_fields"),
    ("editable pointer parent missing", _add_editable("/summary/text"), "/editable_fields/5"),
    ("editable pointer into a string", _add_editable("/status/text"), "/editable_fields/5"),
    ("editable pointer without a slash", _add_editable("summary"), "/editable_fields/5"),
    ("editable pointer with a bad escape", _add_editable("/a~2b"), "/editable_fields/5"),
    ("editable array index that does not exist", _add_editable("/risks/0"), "/editable_fields/5"),
    ("editable array append", _add_editable("/decisions/-"), "/editable_fields/5"),
    ("editable root", _add_editable(""), "/editable_fields/5"),
    ("editable pointer listed twice", _add_editable("/notes"), "/editable_fields/5"),
    ("editable pointers overlap", lambda data: data["editable_fields"].extend(["/change", "/change/id"]),
     "/editable_fields/6"),
    ("editable pointer not a string", _add_editable(3), "/editable_fields/5"),
    ("field guide for a non-editable field", _put("the state", "field_guide", "/status"), "/field_guide/~1status"),
    ("field guide text empty", _put(" ", "field_guide", "/notes"), "/field_guide/~1notes"),
    ("unknown scaffold field", _put(1, "schema"), "/schema"),
    ("unknown host setting", _put("x", "host", "question"), "/host/question"),
    ("scope option invalid", _put("everything", "host", "scope", "option"), "/host/scope/option"),
    ("scope reason missing", _drop("host", "scope", "reason"), "/host/scope/reason"),
    ("scope reason empty", _put("", "host", "scope", "reason"), "/host/scope/reason"),
    ("target scope without target", _put("target", "host", "scope", "option"), "/host/scope/target"),
    ("target given for current-change", _put("src", "host", "scope", "target"), "/host/scope/target"),
    ("unknown scope field", _put(True, "host", "scope", "inherited"), "/host/scope/inherited"),
    ("mode invalid", _put("review", "host", "mode"), "/host/mode"),
    ("evaluate names a reference", _put("HEAD~1", "host", "reference"), "/host/reference"),
    ("revision not a string", _put(7, "host", "base"), "/host/base"),
    ("contract not an object", _put("contract.json", "host", "contract"), "/host/contract"),
    ("contract items not an array", _put({"items": "nope"}, "host", "contract"), "/host/contract/items"),
    ("contract item without an id", _put({"items": [{"behaviour": "b", "status": "confirmed"}]}, "host", "contract"),
     "/host/contract/items/0/id"),
    ("contract anchor lines not a pair", _put({"items": [{"id": "C1", "behaviour": "b", "status": "confirmed",
                                                          "anchors": [{"path": "a.py", "symbol": "f", "lines": 3}]}]},
                                              "host", "contract"), "/host/contract/items/0/anchors/0/lines"),
    ("contract change id not a string", _put({"change_id": 7, "items": []}, "host", "contract"),
     "/host/contract/change_id"),
    ("budget zero", _put(0, "host", "budget"), "/host/budget"),
    ("budget above the range", _put(16385, "host", "budget"), "/host/budget"),
    ("budget as text", _put("16", "host", "budget"), "/host/budget"),
    ("budget as a boolean", _put(True, "host", "budget"), "/host/budget"),
    ("budget as a fraction", _put(2.5, "host", "budget"), "/host/budget"),
    ("document nested too deep", _put(json.loads("[" * 80 + "]" * 80), "document", "deep"),
     "/document/deep" + "/0" * 63),
]


@pytest.mark.parametrize("change, pointer", [(c, p) for _, c, p in MALFORMED], ids=[n for n, _, _ in MALFORMED])
def test_malformed_scaffold_is_refused_with_an_error_naming_the_json_pointer(tmp_path, change, pointer):
    data = scaffold_data()
    change(data)
    with pytest.raises(ScaffoldError) as caught:
        host.read_scaffold(write(tmp_path, data))
    assert caught.value.pointer == pointer
    assert f": {pointer}: " in caught.value.message
    assert str(tmp_path / "scaffold.json") in caught.value.message


def test_capture_scaffold_without_a_proposed_revision_is_refused_naming_the_pointer():
    data = scaffold_data()
    data["host"] = {"scope": data["host"]["scope"], "mode": "capture", "reference": "main"}
    with pytest.raises(ScaffoldError) as caught:
        host.parse_scaffold(data)
    assert caught.value.pointer == "/host/proposed"


def test_capture_scaffold_with_reference_proposed_and_contract_is_read():
    data = scaffold_data()
    contract = {"change_id": "x", "items": []}
    data["host"] = {"scope": data["host"]["scope"], "mode": "capture", "reference": "main",
                    "proposed": "feature", "contract": contract}
    settings = host.parse_scaffold(data).host
    assert (settings.mode, settings.reference, settings.proposed, settings.contract) == (
        "capture", "main", "feature", contract)


def test_scaffold_that_is_not_an_object_is_refused_at_the_root(tmp_path):
    with pytest.raises(ScaffoldError) as caught:
        host.read_scaffold(write(tmp_path, "[]"))
    assert caught.value.pointer == "" and "(root)" in caught.value.message


def test_missing_scaffold_file_is_refused_with_its_path(tmp_path):
    with pytest.raises(ScaffoldError, match="does not exist"):
        host.read_scaffold(tmp_path / "nowhere.json")


def test_scaffold_that_is_not_json_is_refused_with_line_and_column(tmp_path):
    with pytest.raises(ScaffoldError, match="not valid JSON: .* at line 1 column"):
        host.read_scaffold(write(tmp_path, "{\"document\": }"))


def test_scaffold_with_a_repeated_key_or_nan_is_refused(tmp_path):
    with pytest.raises(ScaffoldError, match="repeats the key 'document'"):
        host.read_scaffold(write(tmp_path, '{"document": {}, "document": {}}'))
    with pytest.raises(ScaffoldError, match="NaN"):
        host.read_scaffold(write(tmp_path, '{"document": {"x": NaN}}'))


def test_host_budget_is_read_within_the_range():
    data = scaffold_data()
    data["host"]["budget"] = 32
    assert host.parse_scaffold(data).host.budget == 32
    del data["host"]["budget"]
    assert host.parse_scaffold(data).host.budget is None


def test_a_scaffold_nested_past_what_a_json_reader_can_recurse_is_a_clean_refusal(tmp_path):
    with pytest.raises(ScaffoldError, match="nests arrays or objects deeper than 64 levels"):
        host.read_scaffold(write(tmp_path, '{"document": ' + "[" * 200_000 + "]" * 200_000 + "}"))


def test_a_scaffold_larger_than_the_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "scaffold.json"
    with path.open("w") as out:
        out.write('{"document": {"pad": "')
        out.write("x" * (host.MAX_SCAFFOLD_BYTES + 1))
        out.write('"}}')
    with pytest.raises(ScaffoldError, match=r"bytes, over the limit of 16,777,216"):
        host.read_scaffold(path)


def test_scaffold_error_survives_pickling_with_its_pointer():
    error = pickle.loads(pickle.dumps(ScaffoldError("bad", "/host/mode")))
    assert (error.message, error.pointer) == ("bad", "/host/mode")


# --- Filling ----------------------------------------------------------------------------------


def _scaffold(document: dict, editable: list[str], guide: dict | None = None) -> host.Scaffold:
    return host.parse_scaffold({
        "document": document, "editable_fields": editable, "field_guide": guide or {},
        "host": {"scope": {"option": "changed-tests", "target": None, "reason": "host"}, "mode": "evaluate"}})


BLOCKS = {"evidence": {"mode": "evaluate"}, "protection": ["P"], "risks": ["R"], "decisions": ["D"]}


def test_fill_sends_a_block_to_the_editable_pointer_that_ends_in_its_name():
    scaffold = _scaffold({"elenchus": {"evidence": None, "protection": None, "risks": None, "decisions": None}},
                         ["/elenchus/evidence", "/elenchus/protection", "/elenchus/risks", "/elenchus/decisions"])
    assert host.fill(scaffold, BLOCKS) == {"elenchus": BLOCKS}


def test_fill_sends_a_block_to_the_first_free_editable_field_whose_guide_mentions_it():
    scaffold = _scaffold({"evidence": None, "found": [], "questions": [], "at_risk": []},
                         ["/evidence", "/found", "/at_risk", "/questions"],
                         {"/evidence": "the evidence block; not the risks", "/found": "the protection block",
                          "/at_risk": "the Risks block", "/questions": "Decisions the host asks the user about"})
    filled = host.fill(scaffold, BLOCKS)
    assert filled == {"evidence": BLOCKS["evidence"], "found": ["P"], "questions": ["D"], "at_risk": ["R"]}
    assert host.block_targets(scaffold)["risks"] == "/at_risk"  # /evidence is taken by its own block


def test_fill_refuses_a_block_with_no_editable_field_to_go_to():
    scaffold = _scaffold({"evidence": None, "protection": [], "risks": []}, ["/evidence", "/protection"])
    with pytest.raises(ScaffoldError, match="the risks block has no editable field to go to") as caught:
        host.fill(scaffold, BLOCKS)
    assert caught.value.pointer == "/editable_fields"


def test_fill_leaves_an_editable_field_without_a_value_as_received_and_sets_extra_values():
    scaffold = _scaffold({"evidence": 0, "notes": ["host note"], "summary": "", "fixed": {"a": 1.0}},
                         ["/evidence", "/notes", "/summary"], {"/evidence": "evidence", "/summary": "one line"})
    filled = host.fill(scaffold, {"evidence": {"mode": "evaluate"}}, {"/summary": "two risks, one decision"})
    assert filled == {"evidence": {"mode": "evaluate"}, "notes": ["host note"], "summary": "two risks, one decision",
                      "fixed": {"a": 1.0}}
    assert json.dumps(filled["fixed"]) == '{"a": 1.0}'


def test_fill_refuses_an_extra_value_for_a_pointer_that_is_not_editable():
    scaffold = _scaffold({"evidence": 0, "status": "new"}, ["/evidence"])
    with pytest.raises(ScaffoldError, match="/status is not editable") as caught:
        host.fill(scaffold, {}, {"/status": "done"})
    assert caught.value.pointer == "/status"


def test_fill_refuses_an_extra_value_for_a_field_a_block_already_fills():
    scaffold = _scaffold({"evidence": 0}, ["/evidence"])
    with pytest.raises(ScaffoldError, match="already receives the evidence block"):
        host.fill(scaffold, {"evidence": {}}, {"/evidence": 1})


def test_fill_refuses_a_block_name_that_is_not_canonical():
    with pytest.raises(ScaffoldError, match="'score' is not a canonical block"):
        host.fill(_scaffold({"evidence": 0}, ["/evidence"]), {"score": 1})


def test_fill_replaces_an_existing_array_element_and_a_key_with_escaped_characters():
    scaffold = _scaffold({"rows": [{"v": 1}, {"v": 2}], "a/b": {"~x": 0}}, ["/rows/1", "/a~1b/~0x"])
    filled = host.fill(scaffold, {}, {"/rows/1": {"v": 9}, "/a~1b/~0x": 5})
    assert filled == {"rows": [{"v": 1}, {"v": 9}], "a/b": {"~x": 5}}


def test_fill_creates_a_missing_key_whose_parent_object_exists():
    scaffold = _scaffold({"result": {}}, ["/result/evidence"])
    assert host.fill(scaffold, {"evidence": {"mode": "evaluate"}}) == {"result": {"evidence": {"mode": "evaluate"}}}


def test_fill_never_changes_the_scaffold_record_or_the_blocks_it_was_given():
    scaffold = host.read_scaffold(SCAFFOLD)
    blocks = host.canonical_blocks(report_data())
    kept = copy.deepcopy(blocks)
    first = host.fill(scaffold, blocks)
    first["status"] = "changed"
    first["risks"].clear()
    assert host.fill(scaffold, blocks)["status"] == "awaiting-elenchus"
    assert blocks == kept
    scaffold.document["status"] = "changed"  # a fresh copy each time
    assert scaffold.document["status"] == "awaiting-elenchus"
    with pytest.raises(AttributeError):
        scaffold.document_json = "{}"  # type: ignore[misc]


# --- Writing the answer -----------------------------------------------------------------------


def test_write_answer_goes_to_standard_output_when_no_path_is_given(capsys):
    host.write_answer({"evidence": {"mode": "evaluate"}, "é": 1}, None)
    out = capsys.readouterr().out
    assert json.loads(out) == {"evidence": {"mode": "evaluate"}, "é": 1} and out.endswith("}\n")


def test_write_answer_writes_the_named_file_and_refuses_a_missing_directory(tmp_path):
    target = tmp_path / "answer.json"
    host.write_answer({"a": [1, 2]}, target)
    assert json.loads(target.read_text()) == {"a": [1, 2]}
    with pytest.raises(ScaffoldError, match="does not exist"):
        host.write_answer({}, tmp_path / "missing" / "answer.json")


# --- Schema files are never opened ------------------------------------------------------------


def test_hosted_mode_never_calls_the_schema_module(no_schemas, tmp_path):
    scaffold = host.read_scaffold(SCAFFOLD)
    report = hosted_report(scaffold)
    report["mode"] = "capture"
    blocks = host.canonical_blocks(report, {"weak_catches": []})
    host.write_answer(host.fill(scaffold, blocks), tmp_path / "answer.json")
    assert schemas not in vars(host).values()


def test_hosted_mode_opens_no_schema_file_and_imports_no_schema_module(tmp_path):
    script = f"""
import sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
from elenchus.modes import host
import json
scaffold = host.read_scaffold({str(SCAFFOLD)!r})
report = json.load(open({str(REPORT)!r}))
host.write_answer(host.fill(scaffold, host.canonical_blocks(report)), {str(tmp_path / "answer.json")!r})
assert "elenchus.schemas" not in sys.modules, "elenchus.schemas was imported"
assert "jsonschema" not in sys.modules, "jsonschema was imported"
bad = [p for p in opened if p.endswith(".schema.json") or "/schemas/" in p]
assert not bad, bad
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


# --- JSON Pointer -----------------------------------------------------------------------------


def test_json_pointer_tokens_are_unescaped_and_escaped_per_rfc_6901():
    assert host.parse_pointer("") == ()
    assert host.parse_pointer("/a~1b/~0c/0/") == ("a/b", "~c", "0", "")
    assert host.pointer_to("a/b", "~c", 0) == "/a~1b/~0c/0"
    for bad in ("a", "/x~", "/x~2"):
        with pytest.raises(ValueError):
            host.parse_pointer(bad)


# --- The reference page stays true ------------------------------------------------------------

DOC = ROOT / "references" / "socratic-host.md"


def _fenced(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", DOC.read_text(), flags=re.M | re.S)


def test_socratic_host_page_shows_the_example_scaffold_and_answer_fixtures_in_full():
    documents = []
    for block in _fenced("json"):
        try:
            documents.append(json.loads(block))
        except json.JSONDecodeError:
            continue  # item sketches with "..." are not complete documents
    assert json.loads(SCAFFOLD.read_text()) in documents
    assert json.loads(ANSWER.read_text()) in documents


def test_socratic_host_page_shows_the_comment_exactly_as_host_writes_it():
    catch = {"file": "src/chunker/chunks.py", "line": 8, "input": "chunks([1, 2, 3], 2)",
             "reference": "[[1, 2], [3]]", "proposed": "[[1], [3]]", "contract_id": "C1",
             "question": "Is it intended that chunks([1, 2, 3], 2) now drops the 2?"}
    assert host.behaviour_difference_comment(catch) in _fenced("markdown")


def test_socratic_host_page_quotes_real_scaffold_error_messages():
    data = scaffold_data()
    data["host"]["scope"]["option"] = "everything"
    with pytest.raises(ScaffoldError) as caught:
        host.parse_scaffold(data, "run/scaffold.json")
    assert caught.value.message in _fenced("text")[0]
