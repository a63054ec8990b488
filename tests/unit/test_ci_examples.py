"""The CI examples shipped in the repository call options that exist."""

import re
import shlex
from pathlib import Path

from elenchus.cli import cli

ROOT = Path(__file__).resolve().parents[2]


def _options_in(text: str) -> set[str]:
    commands = re.findall(r"elenchus evaluate([^\n]*(?:\n {10}[^\n]*)*)", text)
    assert commands, "no elenchus evaluate command found"
    return {word.split("=")[0] for command in commands for word in shlex.split(command) if word.startswith("--")}


def test_the_pre_commit_hook_and_the_github_workflow_use_real_evaluate_options():
    known = {opt for param in cli.commands["evaluate"].params for opt in param.opts}
    for name in (".pre-commit-hooks.yaml", "examples/github-actions.yml"):
        used = _options_in((ROOT / name).read_text())
        assert used and used <= known, (name, used - known)
    hook = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "entry: elenchus evaluate --scope current-change --fail-on protection-regression" in hook


def test_the_gitlab_job_runs_real_evaluate_options_and_hands_its_junit_file_to_the_merge_request():
    known = {opt for param in cli.commands["evaluate"].params for opt in param.opts}
    text = (ROOT / "examples/gitlab-ci.yml").read_text()
    used = _options_in(text)
    assert "--junit" in used and used <= known, used - known
    written = re.search(r"--junit (\S+)", text).group(1)
    assert re.search(rf"reports:\n\s+junit: {re.escape(written)}\n", text), "artifacts:reports:junit names the file"


def test_the_github_workflow_caches_the_result_store_it_names_keyed_by_the_base_commit():
    text = (ROOT / "examples/github-actions.yml").read_text()
    cached = re.search(r"uses: actions/cache@v\d+\n\s+with:\n\s+path: (\S+)\n\s+key: ([^\n]+)", text)
    assert cached, "no actions/cache step"
    assert "github.event.pull_request.base.sha" in cached.group(2)
    assert f"ELENCHUS_CACHE_DIR: {cached.group(1)}" in text  # the evaluate step stores where the cache restores
