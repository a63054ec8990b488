import json

from elenchus import project_config, schemas
from elenchus.cli import cli
from elenchus.resources import data_dir


def _schema() -> dict:
    return json.loads((data_dir("schemas") / "tool-elenchus.schema.json").read_text())


def test_every_file_key_sets_an_evaluate_option_and_the_schema_knows_exactly_those_keys():
    evaluate = {p.name for p in cli.commands["evaluate"].params}
    assert set(project_config.OPTIONS.values()) <= evaluate
    properties = _schema()["properties"]
    refused = {key for key, rule in properties.items() if "not" in rule}
    assert refused == {"allow-command", "allow-network"}
    assert set(properties) - refused == set(project_config.OPTIONS) | set(project_config.CLASSIFICATION)
    assert {p.name for p in cli.commands["config"].params} == evaluate  # config accepts what evaluate does


def test_merge_takes_from_the_file_only_what_the_command_line_did_not_give():
    params = {name: None for name in project_config.OPTIONS.values()} | {"budget": "5", "exhaustive": False}
    table = {"budget": 9, "jobs": 2, "fail-on": ["unprotected", "inconclusive"], "exhaustive": True,
             "source-roots": ["src"]}
    merged, settings = project_config.merge(params, lambda name: name == "budget", table)
    assert merged["budget"] == "5" and merged["jobs"] == "2" and merged["exhaustive"] is True
    assert merged["fail_on"] == "unprotected,inconclusive"
    origins = {s.key: s.origin for s in settings}
    assert origins["budget"] == "command line" and origins["jobs"].startswith("pyproject.toml")
    assert origins["timeout-factor"] == "default" and origins["source-roots"].startswith("pyproject.toml")


def test_config_problems_name_the_key():
    assert schemas.config_problem({"budget": 8, "runner": "fresh"}) is None
    assert schemas.config_problem({"jobs": 0})[0] == "jobs"
    assert schemas.config_problem({"timeout-constant": 1.5}) is None
    assert schemas.config_problem({"timeout-constant": 0})[0] == "timeout-constant"
    key, detail = schemas.config_problem({"colour": "red"})
    assert key == "colour" and "unknown key 'colour'" in detail and "allow-command" not in detail
    key, detail = schemas.config_problem({"allow-network": True})
    assert key == "allow-network" and "--allow-network on the command line" in detail
    assert schemas.config_problem({"cluster": "tcp://scheduler.internal:8786"}) is None
    assert schemas.config_problem({"cluster": "scheduler.internal:8786"})[0] == "cluster"
