"""The four document schemas, their shipped examples, and the validate command.

Every check reads the real files under schemas/ and fixtures/documents/.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from elenchus import schemas
from elenchus.commands import validate as validate_command
from elenchus.errors import ElenchusError, InputGuardError, SchemaViolation
from elenchus.exit_codes import ExitCode
from elenchus.resources import data_dir

DOCUMENTS = data_dir("fixtures") / "documents"


def example(kind: str) -> dict:
    return json.loads((DOCUMENTS / f"{kind}.example.json").read_text(encoding="utf-8"))


def violation(kind: str, document: object) -> str:
    with pytest.raises(SchemaViolation) as caught:
        schemas.validate(kind, document)
    return caught.value.message


def all_keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in all_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in all_keys(v)}
    return set()


# ---------------------------------------------------------------- schemas themselves


@pytest.mark.parametrize("kind", schemas.KINDS)
def test_each_schema_is_a_valid_draft_2020_12_schema_with_id_title_and_description(kind):
    schema = schemas.load_schema(kind)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(kind)
    assert schema["title"] and schema["description"]
    assert schema["additionalProperties"] is False


def test_load_schema_returns_a_fresh_copy_each_time():
    first = schemas.load_schema("mutation-report")
    first["properties"].clear()
    assert schemas.load_schema("mutation-report")["properties"]


def test_report_mutation_shape_is_the_mutation_result_shape():
    result = schemas.load_schema("mutation-result")
    report = schemas.load_schema("mutation-report")
    body = {k: result[k] for k in ("type", "additionalProperties", "required", "properties", "allOf")}
    assert report["$defs"]["mutation"] == body
    for name in ("location", "kill", "result"):
        assert report["$defs"][name] == result["$defs"][name]


def test_report_contract_items_share_the_intent_contract_item_shape():
    contract = schemas.load_schema("intent-contract")
    report = schemas.load_schema("mutation-report")
    assert report["$defs"]["contract_item"] == contract["$defs"]["item"]
    assert report["$defs"]["anchor"] == contract["$defs"]["anchor"]


def test_no_schema_names_a_score_percentage_or_merge_recommendation_field():
    for kind in schemas.KINDS:
        keys = {k.lower() for k in all_keys(schemas.load_schema(kind)["properties"])}
        assert not any("score" in k or "percent" in k or "merge" in k for k in keys), kind


# ---------------------------------------------------------------- examples


@pytest.mark.parametrize("kind", schemas.KINDS)
def test_fixture_documents_example_validates_against_its_schema(kind):
    assert schemas.validate_file(kind, DOCUMENTS / f"{kind}.example.json") == example(kind)


def test_report_example_incidents_read_as_user_incidents_not_operator_names():
    report = example("mutation-report")
    incidents = [m["incident"] for m in report["mutations"]] + [n["incident"] for n in report["not_challenged"]]
    for incident in incidents:
        assert len(incident.split()) >= 4, incident
        assert not any(op in incident.split() for op in ("ROR", "AOR", "LCR", "UOI", "SDL", "COR"))
    assert "a chunk silently drops its last element" in incidents


def test_report_example_covers_each_comparison_story_the_docs_describe():
    report = example("mutation-report")
    assessments = {c["assessment"] for c in report["comparisons"]}
    assert {"incremental-protection", "unprotected"} <= assessments
    killed = next(m for m in report["mutations"] if m["incident"] == "a chunk silently drops its last element")
    assert killed["kill"]["test"] == "tests/test_chunks.py::test_last_chunk_kept"
    assert report["rejected"] and report["not_challenged"]


# ---------------------------------------------------------------- broken documents name the JSON path


def test_report_example_with_string_line_fails_naming_json_path():
    report = example("mutation-report")
    report["mutations"][0]["location"]["line"] = "twelve"
    message = violation("mutation-report", report)
    assert "$.mutations[0].location.line" in message
    assert "'twelve' is not of type 'integer'" in message


def test_report_example_missing_incident_fails_naming_the_mutation_and_the_key():
    report = example("mutation-report")
    del report["mutations"][1]["incident"]
    message = violation("mutation-report", report)
    assert "$.mutations[1]" in message and "'incident' is a required property" in message


def test_report_schema_rejects_a_top_level_score_field():
    report = example("mutation-report")
    report["score"] = 0.75
    message = violation("mutation-report", report)
    assert "at $:" in message and "'score' was unexpected" in message


def test_report_schema_rejects_a_score_hidden_inside_extensions():
    report = example("mutation-report")
    report["extensions"] = {"dashboard": {"runs": [{"mutation_score": 80}]}}
    message = violation("mutation-report", report)
    assert "$.extensions.dashboard.runs[0]" in message and "mutation_score" in message


def test_report_schema_accepts_other_data_inside_extensions():
    report = example("mutation-report")
    report["extensions"] = {"replx": {"verdict": "solved", "attempts": 3}}
    schemas.validate("mutation-report", report)


def test_report_comparison_whose_assessment_contradicts_the_matrix_fails():
    report = example("mutation-report")
    incremental = next(c for c in report["comparisons"] if c["assessment"] == "incremental-protection")
    index = report["comparisons"].index(incremental)
    incremental["assessment"] = "unprotected"
    assert f"$.comparisons[{index}]" in violation("mutation-report", report)


def test_report_killed_mutation_without_kill_record_fails():
    report = example("mutation-report")
    report["mutations"][0]["kill"] = None
    assert "$.mutations[0].kill" in violation("mutation-report", report)


def test_report_incident_written_as_operator_name_fails():
    report = example("mutation-report")
    report["mutations"][0]["incident"] = "ROR"
    assert "$.mutations[0].incident" in violation("mutation-report", report)


def test_report_derived_contract_cannot_claim_confirmed_items():
    report = example("mutation-report")
    report["contract"]["items"][0]["status"] = "confirmed"
    assert "$.contract.items[0].status" in violation("mutation-report", report)


def test_report_post_flight_unchanged_with_listed_changes_fails():
    report = example("mutation-report")
    report["post_flight"]["changes"] = ["src/chunker/chunks.py modified"]
    assert "$.post_flight.changes" in violation("mutation-report", report)


def test_report_baseline_keyed_by_unknown_cohort_fails():
    report = example("mutation-report")
    report["baseline"]["nightly"] = report["baseline"]["existing"]
    assert "$.baseline" in violation("mutation-report", report)


def test_mutation_result_with_zero_risk_rank_fails_naming_json_path():
    result = example("mutation-result")
    result["risk_rank"] = 0
    assert "$.risk_rank" in violation("mutation-result", result)


def test_mutation_result_rejected_without_reason_fails():
    result = example("mutation-result")
    result.update(result="rejected", kill=None, reason=None)
    assert "$.reason" in violation("mutation-result", result)


def test_intent_contract_item_with_unknown_status_fails_naming_json_path():
    contract = example("intent-contract")
    contract["items"][2]["status"] = "done"
    assert "$.items[2].status" in violation("intent-contract", contract)


def test_intent_contract_anchor_lines_need_start_and_end():
    contract = example("intent-contract")
    contract["items"][0]["anchors"][0]["lines"] = [4]
    assert "$.items[0].anchors[0].lines" in violation("intent-contract", contract)


def test_test_handoff_probe_not_demonstrated_on_reference_fails():
    handoff = example("test-handoff")
    handoff["probes"][0]["demonstration"]["passes_on_reference"] = False
    assert "$.probes[0].demonstration.passes_on_reference" in violation("test-handoff", handoff)


def test_test_handoff_cannot_list_written_files_without_an_apply_request():
    handoff = example("test-handoff")
    handoff["apply"]["written"] = ["tests/test_chunks.py"]
    assert "$.apply.written" in violation("test-handoff", handoff)


def test_keys_that_are_not_identifiers_are_quoted_in_the_json_path():
    assert schemas.json_path(["baseline", "odd key", 0]) == '$.baseline["odd key"][0]'


def test_the_same_broken_document_always_reports_the_same_path():
    report = example("mutation-report")
    report["mutations"][2]["location"]["line"] = "x"
    report["mutations"][0]["location"]["line"] = "y"
    messages = {violation("mutation-report", copy.deepcopy(report)) for _ in range(3)}
    assert len(messages) == 1
    assert "$.mutations[0].location.line" in messages.pop()


# ---------------------------------------------------------------- kinds and files


def test_unknown_kind_names_the_kind_guard_and_lists_valid_kinds():
    with pytest.raises(InputGuardError) as caught:
        schemas.validate("mutation-score", {})
    assert caught.value.guard == "kind"
    assert "input guard 'kind' fired" in caught.value.message
    for kind in schemas.KINDS:
        assert kind in caught.value.message


def test_validate_file_on_missing_file_names_the_file(tmp_path):
    missing = tmp_path / "nowhere.json"
    with pytest.raises(ElenchusError) as caught:
        schemas.validate_file("mutation-report", missing)
    assert str(missing) in caught.value.message and "does not exist" in caught.value.message


def test_validate_file_on_invalid_json_names_the_file_and_position(tmp_path):
    broken = tmp_path / "report.json"
    broken.write_text('{"mode": "evaluate",\n  oops}\n', encoding="utf-8")
    with pytest.raises(SchemaViolation) as caught:
        schemas.validate_file("mutation-report", broken)
    assert str(broken) in caught.value.message and "line 2" in caught.value.message


def test_validate_file_on_schema_failure_names_the_file_and_json_path(tmp_path):
    report = example("mutation-report")
    report["mutations"][0]["location"]["line"] = "twelve"
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    with pytest.raises(SchemaViolation) as caught:
        schemas.validate_file("mutation-report", path)
    assert caught.value.message.startswith(f"{path} is not a valid mutation-report document")
    assert "$.mutations[0].location.line" in caught.value.message


def test_validate_file_names_the_schema_by_its_published_name_and_lists_every_problem(tmp_path):
    report = example("mutation-report")
    for index, mutation in enumerate(report["mutations"]):
        mutation["location"]["line"] = f"line {index}"
        del mutation["incident"]
    report["score"] = 1
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    with pytest.raises(SchemaViolation) as caught:
        schemas.validate_file("mutation-report", path)
    message = caught.value.message
    problems = schemas.problems("mutation-report", report)
    assert len(problems) > 5 and problems[0].startswith("at $: ")  # the shallowest first: the stray score
    assert message.startswith(f"{path} is not a valid mutation-report document, as the Elenchus mutation report "
                              f"schema (urn:elenchus:schema:mutation-report) defines it; {len(problems)} problems:")
    assert message.splitlines()[1:] == [f"  - {p}" for p in problems[:5]] + [
        f"  - and {len(problems) - 5} further problems"]
    assert "schemas/" not in message and str(data_dir("schemas")) not in message


def test_validate_command_prints_confirmation_for_the_report_example():
    printed: list[str] = []
    path = str(DOCUMENTS / "mutation-report.example.json")
    assert validate_command.run("mutation-report", path, printed.append) == ExitCode.OK
    assert printed == [f"valid: {path} is a mutation-report document"]


def test_validate_command_raises_schema_violation_and_prints_nothing_for_a_wrong_kind_document():
    printed: list[str] = []
    path = str(DOCUMENTS / "test-handoff.example.json")
    with pytest.raises(SchemaViolation):
        validate_command.run("mutation-report", path, printed.append)
    assert printed == []


def test_schema_violation_maps_to_input_error_exit_code():
    assert SchemaViolation("x").exit_code == ExitCode.INPUT_ERROR
    assert Path(schemas.schema_path("test-handoff")).is_file()
