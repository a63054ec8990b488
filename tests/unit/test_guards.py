import pytest

from elenchus import guards
from elenchus.errors import InputGuardError

from tests.conftest import run_cli


@pytest.mark.parametrize("raw", ["0", "-1", "abc", "1.5", "16385", ""])
def test_budget_guard_rejects_values_outside_1_to_16384(raw):
    with pytest.raises(InputGuardError, match="input guard 'budget' fired"):
        guards.budget(raw)


def test_guards_accept_defaults_and_bounds():
    assert guards.budget(None) == 16 and guards.budget("1") == 1 and guards.budget("16384") == 16384
    assert guards.jobs(None, 2) == 2 and guards.jobs("64", 2) == 64
    assert guards.timeout_factor(None) == 3.0 and guards.timeout_factor("0.5") == 0.5
    assert guards.timeout_constant(None) == 5.0 and guards.timeout_constant("0.5") == 0.5
    assert guards.timeout_constant("600") == 600.0


@pytest.mark.parametrize("option, value, guard", [
    ("--budget", "0", "budget"), ("--budget", "-3", "budget"), ("--budget", "x", "budget"),
    ("--budget", "20000", "budget"), ("--jobs", "0", "jobs"), ("--jobs", "2.5", "jobs"), ("--jobs", "65", "jobs"),
    ("--timeout-factor", "0", "timeout-factor"), ("--timeout-factor", "-1", "timeout-factor"),
    ("--timeout-factor", "nan", "timeout-factor"), ("--timeout-factor", "1000", "timeout-factor"),
    ("--timeout-constant", "0", "timeout-constant"), ("--timeout-constant", "inf", "timeout-constant"),
    ("--timeout-constant", "601", "timeout-constant"), ("--timeout-constant", "soon", "timeout-constant"),
    ("--fail-on", "everything", "fail-on"), ("--target", "src", "target"),
])
def test_each_input_guard_fires_with_its_name_and_exit_2(option, value, guard, build_scenario):
    repo = build_scenario("demo")
    done = run_cli("evaluate", "--repo", str(repo), "--scope", "current-change", option, value)
    assert done.returncode == 2
    assert f"input guard '{guard}' fired" in done.stderr
    assert "Baseline" not in done.stdout


def test_not_a_git_repository_unknown_revision_and_empty_diff_are_one_line_errors(tmp_path, build_scenario):
    done = run_cli("changes", "--repo", str(tmp_path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "not a git repository" in done.stderr
    repo = build_scenario("demo")
    done = run_cli("changes", "--repo", str(repo), "--base", "no-such-rev")
    assert done.returncode == 2 and "unknown revision 'no-such-rev'" in done.stderr
    done = run_cli("changes", "--repo", str(repo), "--base", "HEAD", "--head", "HEAD")
    assert done.returncode == 2 and "empty diff" in done.stderr and "--scope target" in done.stderr


def test_harden_outside_a_repository_or_without_a_confirmed_contract_is_a_one_line_error(tmp_path, build_scenario):
    done = run_cli("harden", "--repo", str(tmp_path))
    assert done.returncode == 2 and "not a git repository" in done.stderr
    done = run_cli("harden", "--repo", str(build_scenario("demo")), env={"ELENCHUS_RUNS_DIR": str(tmp_path / "runs")})
    assert done.returncode == 3 and "Hardening needs an intent contract with confirmed items" in done.stderr
    assert "internal error" not in done.stderr and not (tmp_path / "runs").exists()
    done = run_cli("harden", "--repo", str(tmp_path), "--apply", str(tmp_path / "missing.json"))
    assert done.returncode == 2 and "cannot read the test handoff" in done.stderr


def test_help_lists_the_subcommands_the_spec_names():
    done = run_cli("--help")
    assert done.returncode == 0
    for name in ("evaluate", "replx", "capture", "harden", "host", "validate", "mutants", "config"):
        assert name in done.stdout
