import json

import pytest

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


def test_config_problems_name_every_bad_key_with_its_value_and_what_is_accepted():
    table = {"witness": True, "budget": 0, "timeout-factor": "3", "scope": "current", "exclude": ["docs/*", ""]}
    problems = dict(schemas.config_problems(table))
    assert list(problems) == ["witness", "budget", "timeout-factor", "scope", "exclude"]  # the file's order
    assert problems["witness"].startswith("unknown key 'witness' (set to true); did you mean 'witnesses'")
    assert problems["budget"] == "budget = 0: must be at least 1; accepted: Mutants to challenge, 1..16384 (default 16)"
    assert problems["timeout-factor"].startswith('timeout-factor = "3": must be a number; accepted: ')
    assert problems["scope"].startswith('scope = "current": must be one of "current-change", "changed-tests", '
                                        '"target" (did you mean \'current-change\'?)')
    assert problems["exclude"].startswith('exclude[1] = "": must not be empty')
    assert schemas.config_problems({"budget": 8}) == []


def test_the_project_settings_read_from_head_report_every_bad_list_at_once():
    from elenchus.config import load_settings
    from elenchus.errors import ElenchusError

    with pytest.raises(ElenchusError) as stopped:
        load_settings('[tool.elenchus]\ntest-dirs = "tests"\nexclude = [1]\nsource-roots = ["src"]\n')
    assert "has 2 setting(s) to fix" in stopped.value.message
    assert 'test-dirs = "tests": must be a list of strings' in stopped.value.message
    assert "exclude = [1]: must be a list of strings" in stopped.value.message


def test_a_scope_given_on_the_command_line_leaves_the_files_target_and_exhaustive_out():
    params = {name: None for name in project_config.OPTIONS.values()} | {"scope": "changed-tests", "exhaustive": False}
    table = {"scope": "target", "target": "src", "exhaustive": True, "budget": 4}
    merged, settings = project_config.merge(params, lambda name: name == "scope", table)
    assert merged["scope"] == "changed-tests" and merged["target"] is None and merged["exhaustive"] is False
    assert merged["budget"] == "4"
    origins = {s.key: s.origin for s in settings}
    assert origins["target"].startswith("default (the file's target applies to scope \"target\" only")
    merged, _ = project_config.merge({**params, "scope": "target"}, lambda name: name == "scope", table)
    assert merged["target"] == "src" and merged["exhaustive"] is True  # the same scope: the file's target applies


def test_the_secret_settings_report_both_bad_values_at_once(tmp_path):
    from elenchus import secrecy
    from elenchus.errors import ElenchusError

    (tmp_path / "pyproject.toml").write_text('[tool.elenchus]\nsecret-files = ".env"\nsecret-variables = [""]\n')
    with pytest.raises(ElenchusError) as stopped:
        secrecy.configure(tmp_path)
    assert "secret-files must be a list of glob patterns (strings), got '.env'" in stopped.value.message
    assert "secret-variables must be a list of glob patterns (strings), got ['']" in stopped.value.message
