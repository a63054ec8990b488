"""Command-line entry point: parse, dispatch, and map errors to exit codes in one place."""

from __future__ import annotations

import errno
import platform
import signal
import sys
import traceback
from pathlib import Path

import click

from elenchus import __version__, tempspace
from elenchus.execution import workspace
from elenchus.errors import ElenchusError
from elenchus.exit_codes import ExitCode

REPO_OPTION = click.option("--repo", default=".", show_default=True, metavar="PATH",
                           help="The git repository to review (never modified).")
BASE_OPTION = click.option("--base", metavar="REV", help="Base revision (default: HEAD with uncommitted changes, else the merge base with the default branch, else HEAD~1).")
HEAD_OPTION = click.option("--head", metavar="REV",
                           help="Head revision, or WORKTREE for the working tree (default: derived).")


#: The machine, not Elenchus, is at fault: no space, no permission, a read-only file system.
_ENVIRONMENT_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS})


def _echo(line: str) -> None:
    click.echo(line)


def _narrate(line: str) -> None:
    """What a long command is doing goes to stderr, so stdout carries the report alone."""
    click.echo(line, err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="elenchus")
def cli() -> None:
    """Elenchus: how much do your tests really protect?

    Mutates the code a change touches, runs your tests against each mutant in
    disposable snapshots, and reports every result as the incident it stands for.
    """


@cli.command()
@REPO_OPTION
@BASE_OPTION
@HEAD_OPTION
@click.option("--json", "json_path", metavar="PATH", help="Also write the answer as JSON to PATH.")
def changes(repo: str, base: str | None, head: str | None, json_path: str | None) -> int:
    """Show how Base and Head were chosen and what the change touches (runs no test)."""
    from elenchus import secrecy
    from elenchus.commands import changes as command

    _output("json", json_path)
    secrecy.configure(repo)
    return command.run(repo, base, head, _echo, json_path=json_path)


@cli.command()
@click.argument("kind")
@click.argument("file", type=click.Path(dir_okay=False))
def validate(kind: str, file: str) -> int:
    """Validate FILE against a schema KIND: intent-contract, mutation-result, mutation-report, test-handoff."""
    from elenchus.commands import validate as command

    return command.run(kind, file, _echo)


SCOPE_OPTION = click.option("--scope", metavar="SCOPE",
                            help="current-change (recommended), changed-tests or target; asked when omitted.")
TARGET_OPTION = click.option("--target", metavar="PATH", help="Module, file or directory for --scope target (. = all).")
def _budget_option(default: int):
    """``--budget`` as each command reads it: the help states the default that command uses."""
    return click.option("--budget", metavar="N", help=f"Mutants to challenge, 1..16384 (default {default}).")


BUDGET_OPTION = _budget_option(16)
#: Scoring a repair run challenges fewer mutants: each one runs the repair's own command.
SCORE_BUDGET = 8
CONTRACT_OPTIONS = (
    click.option("--contract", metavar="PATH", help="Intent contract JSON (default: .socratic/intent-contract.json)."),
    click.option("--change-id", metavar="ID", help="Pick .socratic/contracts/ID.json."),
    click.option("--intent", metavar="TEXT", help="What the change is meant to do, in your words."),
)


def _with(options):
    def decorate(function):
        for option in reversed(options):
            function = option(function)
        return function
    return decorate


ISOLATION_OPTIONS = (
    click.option("--isolation", metavar="KIND", help="How test processes are sandboxed: auto (bubblewrap, else "
                                                     "unshare), bubblewrap, unshare or none (default auto)."),
    click.option("--require-isolation", is_flag=True, help="Stop (exit 4) instead of running unisolated when no "
                                                           "sandbox can be built here."),
    click.option("--allow-network", is_flag=True, help="Let the tests reach the host's network (default: only "
                                                       "the sandbox's own loopback)."),
    click.option("--max-memory", metavar="MB", help="Address-space limit per test process, 64..4194304 (default "
                                                    "8192)."),
    click.option("--max-processes", metavar="N", help="Process limit for the tests, 16..1048576 (default 1024)."),
    click.option("--max-file-size", metavar="MB", help="Largest file a test may write, 1..4194304 (default 1024)."),
)


def _output(option: str, path: str | None, directory: bool = False) -> None:
    """An output path is checked before the first run, not after the whole evaluation."""
    import os

    from elenchus.errors import InputGuardError

    if not path:
        return
    target = Path(path)
    parent = target if directory and target.is_dir() else target.parent
    if directory and target.exists() and not target.is_dir():
        raise InputGuardError(option, f"{path} exists and is not a directory")
    if not directory and target.is_dir():
        raise InputGuardError(option, f"{path} is a directory; name a file")
    if not parent.is_dir():
        raise InputGuardError(option, f"the directory {parent} does not exist; create it first or choose "
                                      "another path (nothing was run)")
    if not os.access(parent, os.W_OK):
        raise InputGuardError(option, f"the directory {parent} is not writable; choose another path "
                                      "(nothing was run)")


def _isolate(repos: list[str], isolation: str | None, require_isolation: bool, allow_network: bool,
             max_memory: str | None, max_processes: str | None, max_file_size: str | None) -> None:
    """Choose the sandbox once, before anything runs; bad values stop here with their option."""
    from elenchus import guards, secrecy
    from elenchus.execution import sandbox

    limits = sandbox.Limits(
        guards.integer_in_range("max-memory", max_memory, sandbox.MEMORY_MB_DEFAULT, 64, 1 << 22),
        guards.integer_in_range("max-processes", max_processes, sandbox.PROCESSES_DEFAULT, 16, 1 << 20),
        guards.integer_in_range("max-file-size", max_file_size, sandbox.FILE_SIZE_MB_DEFAULT, 1, 1 << 22))
    for repo in repos:
        if repo and Path(repo).is_dir():
            secrecy.configure(repo)
    chosen = sandbox.for_review(repos, (isolation or "auto").strip(), network=allow_network, limits=limits,
                                require=require_isolation)
    if not chosen.isolated and (isolation or "auto").strip() != sandbox.NONE:  # said before anything runs
        click.echo(f"Warning: no sandbox can be built here ({chosen.reason}), so tests run unisolated, with your "
                   "account's access to this machine, and tests whose code reaches files, processes or the "
                   "network are refused. Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`), pass "
                   "--isolation none to run every test unisolated, or --require-isolation to stop instead.",
                   err=True)
    elif not chosen.isolated:  # asked for: said once
        click.echo("Warning: --isolation none was given: the tests run with your account's access to files, "
                   "processes and the network.", err=True)
    sandbox.activate(chosen)


def _configured(params: dict) -> tuple[dict, list, Path | None]:
    """The command's parameters with what the command line did not give taken from [tool.elenchus]."""
    from elenchus import project_config

    context = click.get_current_context()

    def given(name: str) -> bool:
        return context.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)

    table, path = ({}, None) if params.get("demo") else project_config.read_table(params.get("repo") or ".")
    return (*project_config.merge(params, given, table), path)


def _ask(prompt: str, default: str) -> str:
    return click.prompt(prompt, default=default, show_default=True)


@cli.command()
@REPO_OPTION
@BASE_OPTION
@HEAD_OPTION
@SCOPE_OPTION
@TARGET_OPTION
@BUDGET_OPTION
@click.option("--jobs", metavar="N", help="Mutant runs in parallel, 1..64 (default: the number of CPUs, at most 4).")
@click.option("--timeout-factor", metavar="X",
              help="Per-run timeout = X * baseline duration + the timeout constant (default 3).")
@click.option("--timeout-constant", metavar="SECONDS",
              help="Seconds added to every run's timeout, above 0 up to 600 (default 5); lower it to end hung "
                   "mutants of a fast suite sooner.")
@click.option("--search-budget", metavar="N",
              help="Candidates the regression search may try against tests the change weakened, 1..1024 "
                   "(default 64).")
@click.option("--witness-time", metavar="SECONDS",
              help="Input search per surviving mutant for a call that tells it apart, above 0 up to 600 "
                   "(default 5).")
@click.option("--witnesses/--no-witnesses", default=None,
              help="Search each surviving mutant for a witness call (the default); --no-witnesses is faster "
                   "(a CI gate on protection regressions, say), and every survivor then stays a gap, none is "
                   "called likely equivalent.")
@_with(CONTRACT_OPTIONS)
@click.option("--save", is_flag=True, help="Also write .socratic/elenchus-report.json in the repository.")
@click.option("--json", "json_path", metavar="PATH", help="Write a copy of the JSON report to PATH.")
@click.option("--html", "html_path", metavar="PATH",
              help="Write a copy of report.html (the report in a browser, offline) to PATH.")
@click.option("--sarif", "sarif_path", metavar="PATH",
              help="Write a copy of report.sarif (findings for code scanning, SARIF 2.1.0) to PATH.")
@click.option("--junit", "junit_path", metavar="PATH",
              help="Write a copy of report.junit.xml (one test case per challenged incident, for CI systems "
                   "that show JUnit results) to PATH.")
@click.option("--resume", metavar="RUN", help="Reuse the recorded runs of RUN when nothing changed since.")
@click.option("--fail-on", metavar="LIST",
              help="Exit 5 when any of these assessments is found, e.g. protection-regression,unprotected.")
@click.option("--allow-command", "allow_commands", multiple=True, metavar="CMD",
              help="Run this exact test command even though inspection found something unsafe in it.")
@click.option("--exhaustive", is_flag=True, help="With --scope target: also draw candidates from mutmut's "
                                                 "operator catalog (each still reported as an incident).")
@click.option("--fresh", is_flag=True, help="Rerun everything instead of reusing results measured on the same "
                                             "content (what it measures is kept for the next run).")
@click.option("--demo", is_flag=True, help="Build the bundled demo project into a temp git repo and evaluate it.")
@click.option("--runner", type=click.Choice(["collected", "warm", "fresh"]), default="collected", show_default=True,
              help="collected: fork each run of selected tests from a pytest session per job slot that imported the "
                   "project and collected the tests once, with the mutated function's code swapped in (warm when "
                   "the mutant changes code that runs at import); warm: fork each run from an interpreter that "
                   "imported pytest and the tests' dependencies once per job slot (a fresh one when that is unsafe, "
                   "said in the report); fresh: a new interpreter per run.")
@click.option("--test-selection", type=click.Choice(["coverage", "all"]), default="coverage", show_default=True,
              help="coverage: each mutant runs only the tests that execute its lines (recorded during the "
                   "baseline), and one no test executes is reported not covered without a run; all: every "
                   "relevant test for each mutant.")
@click.option("--cluster", metavar="tcp://HOST:PORT",  # or tls:// with Dask's TLS settings
              help="Run the mutants as tasks of this Dask scheduler's workers (they need the same Python, "
                   "Elenchus and test dependencies; checked before the first mutant). Needs "
                   "pip install 'elenchus[distributed]'.")
@_with(ISOLATION_OPTIONS)
def evaluate(**params) -> int:
    """Evaluate how well the tests protect the current change (Test Evaluation mode).

    Options not given here are read from [tool.elenchus] in the repository's pyproject.toml
    (`elenchus config` shows the effective settings).
    """
    import os

    from elenchus import guards
    from elenchus.execution.cluster import address as cluster_address
    from elenchus.commands import evaluate as command
    from elenchus.errors import InputGuardError

    params, settings, _ = _configured(params)
    cluster_from_file = any(s.key == "cluster" and s.origin != "command line" and s.origin != "default"
                            for s in settings)
    scope_from_file = any(s.key == "scope" and s.origin not in ("command line", "default") for s in settings)
    (repo, base, head, scope, target, budget, jobs, timeout_factor, timeout_constant, search_budget, witness_time,
     witnesses, contract, change_id, intent, save, json_path, html_path, sarif_path, junit_path, resume, fail_on,
     allow_commands, exhaustive, fresh, demo, runner, test_selection, cluster) = (params.pop(name) for name in (
        "repo", "base", "head", "scope", "target", "budget", "jobs", "timeout_factor", "timeout_constant",
        "search_budget", "witness_time",
        "witnesses", "contract", "change_id", "intent", "save", "json_path", "html_path", "sarif_path", "junit_path",
        "resume",
        "fail_on", "allow_commands", "exhaustive", "fresh", "demo", "runner", "test_selection", "cluster"))
    isolation = params

    wanted = tuple(v.strip() for v in (fail_on or "").split(",") if v.strip())
    unknown = [v for v in wanted if v not in command.FAIL_ON_CHOICES]
    if unknown:
        raise InputGuardError("fail-on", f"unknown assessment(s) {', '.join(unknown)}; "
                                         f"choose from {', '.join(command.FAIL_ON_CHOICES)}")
    options = command.Options(
        repo=repo, base=base, head=head, scope=scope, target=target, budget=guards.budget(budget),
        budget_explicit=budget is not None, jobs=guards.jobs(jobs, min(4, os.cpu_count() or 1)),
        timeout_factor=guards.timeout_factor(timeout_factor), timeout_constant=guards.timeout_constant(timeout_constant),
        search_budget=guards.search_budget(search_budget),
        witness_time=guards.witness_time(witness_time), witnesses=witnesses is not False,
        contract=contract, change_id=change_id,
        intent=intent, save=save, json_path=json_path, html_path=html_path, sarif_path=sarif_path,
        junit_path=junit_path, resume=resume,
        fail_on=wanted, demo=demo,
        allow_commands=tuple(allow_commands), fresh=fresh, exhaustive=exhaustive,
        interactive=sys.stdin.isatty() and sys.stdout.isatty(), runner=runner, test_selection=test_selection,
        cluster=cluster_address(cluster), cluster_from_file=cluster_from_file, scope_from_file=scope_from_file,
    )
    for option, path in (("json", json_path), ("html", html_path), ("sarif", sarif_path), ("junit", junit_path)):
        _output(option, path)
    _isolate([repo], **isolation)
    return command.run(options, _narrate, _ask, _echo)


def _config(**params) -> int:
    from elenchus import project_config

    _, settings, path = _configured(params)
    for line in project_config.describe(settings, path):
        _echo(line)
    return 0


cli.add_command(click.Command(
    "config", callback=_config, params=list(evaluate.params),
    help="Print the settings `elenchus evaluate` would use with these options, and where each comes from: the "
         "command line, [tool.elenchus] in the repository's pyproject.toml, or the default. Runs nothing.",
    short_help="Show the effective evaluate settings and where each comes from."))


@cli.command()
@REPO_OPTION
@BASE_OPTION
@HEAD_OPTION
@click.option("--scope", default="current-change", show_default=True, metavar="SCOPE",
              help="current-change, changed-tests or target.")
@TARGET_OPTION
@BUDGET_OPTION
@_with(CONTRACT_OPTIONS)
@click.option("--exhaustive", is_flag=True, help="With --scope target: also use mutmut's operator catalog.")
@click.option("--json", "json_path", metavar="PATH", help="Also write the planned mutants as JSON to PATH.")
def mutants(repo, base, head, scope, target, budget, contract, change_id, intent, exhaustive, json_path) -> int:
    """List the planned mutants with their incidents and diffs, without running any test."""
    from elenchus import guards, secrecy
    from elenchus.commands import mutants as command

    _output("json", json_path)
    secrecy.configure(repo)
    return command.run(repo, base, head, scope, target, guards.budget(budget), contract, change_id, intent, _echo,
                       exhaustive, json_path=json_path)


@cli.group()
def replx() -> None:
    """Score repair runs (replx or any repair loop) for weakened tests."""


@replx.command()
@click.option("--repo", metavar="DIR", help="The repository the repair ran in (never modified).")
@click.option("--base", metavar="REV", help="The revision before the repair.")
@click.option("--head", metavar="REV", help="The revision after the repair.")
@click.option("--command", "command_", metavar="CMD", help="The command the repair made pass.")
@click.option("--success-line", metavar="LINE", help="An exact output line that means success (exit status "
                                                     "is then not the oracle).")
@click.option("--attempts", metavar="PATH", help="The loop's attempts.jsonl.")
@click.option("--replx-report", metavar="PATH", help="The replx Markdown report.")
@click.option("--cases", metavar="DIR", help="Score every case sub-directory of DIR into a leaderboard.")
@click.option("--out", metavar="DIR", help="Where the batch leaderboard goes (default: DIR of --cases).")
@click.option("--json", "json_path", metavar="PATH", help="Write the single case's verdict as JSON to PATH.")
@_budget_option(SCORE_BUDGET)
@click.option("--heldout", "heldout", multiple=True, metavar="PATH",
              help="Held-out tests the repair never saw (a test file, a directory of them, or a patch that adds "
                   "them; repeatable): they must fail on Base and pass on Head.")
@click.option("--allow-command", "allow_commands", multiple=True, metavar="CMD",
              help="Run this exact command even though inspection found something unsafe in it.")
@click.option("--fail-on", metavar="STATUS", help="Exit 5 when a case scores this status (bad_success).")
@_with(ISOLATION_OPTIONS)
def score(repo, base, head, command_, success_line, attempts, replx_report, cases, out, json_path, budget,
          heldout, allow_commands, fail_on, **isolation) -> int:
    """Score a repair run: solved, bad_success (weakened checks), unsolved, invalid-case or inconclusive."""
    from elenchus import guards
    from elenchus.commands import replx as command
    from elenchus.errors import InputGuardError
    from elenchus.modes.scoring import STATUSES

    wanted = tuple(v.strip() for v in (fail_on or "").split(",") if v.strip())
    unknown = [v for v in wanted if v not in STATUSES]
    if unknown:
        raise InputGuardError("fail-on", f"unknown status(es) {', '.join(unknown)}; choose from {', '.join(STATUSES)}")
    size = guards.integer_in_range("budget", budget, SCORE_BUDGET, *guards.BUDGET_RANGE)
    _output("json", json_path)
    _output("out", out, directory=True)
    _isolate([cases or "", repo or ""], **isolation)
    if cases and heldout:
        raise InputGuardError("heldout", "--heldout applies to one case; with --cases, list each case's held-out "
                                         "tests in its case.toml (heldout = [\"tests-heldout/\"])")
    if cases:
        return command.run_batch(cases, size, tuple(allow_commands), out, _echo, wanted)
    if not repo:
        raise InputGuardError("repo", "pass --repo DIR (the repository the repair ran in), or --cases DIR")
    case = command.case_input(Path(repo).resolve().name or repo, repo, base, head, command_, success_line,
                              attempts, replx_report, size, tuple(allow_commands), tuple(heldout))
    return command.run_one(case, _echo, json_path, wanted)


@cli.command()
@REPO_OPTION
@click.option("--reference", metavar="REV", help="The reference revision (mutated to build probes).")
@click.option("--proposed", metavar="REV", help="The proposed revision to probe.")
@click.option("--proposed-patch", metavar="FILE", help="A unified diff against --reference, applied only in a "
                                                       "disposable snapshot.")
@BUDGET_OPTION
@click.option("--probe-dir", metavar="DIR", help="Candidate probe tests written by a host, verified before use.")
@_with(CONTRACT_OPTIONS)
@click.option("--apply", is_flag=True, help="Write the kept probes into the repository's tests (the only write).")
@click.option("--json", "json_path", metavar="PATH", help="Write a copy of the capture JSON to PATH.")
@_with(ISOLATION_OPTIONS)
def capture(repo, reference, proposed, proposed_patch, budget, probe_dir, contract, change_id, intent, apply,
            json_path, **isolation) -> int:
    """Capture: does a proposed diff behave like one of the mistakes imagined for the code it changes?"""
    from elenchus import guards
    from elenchus.commands import capture as command
    from elenchus.errors import InputGuardError

    if proposed and proposed_patch:
        raise InputGuardError("proposed", "pass either --proposed REV or --proposed-patch FILE, not both")
    options = command.Options(repo, reference, proposed, proposed_patch, guards.budget(budget), probe_dir, contract,
                              change_id, intent, apply, json_path)
    _output("json", json_path)
    _isolate([repo], **isolation)
    return command.run(options, _echo)


@cli.command()
@click.option("--scaffold", required=True, metavar="FILE", help="The Runner scaffold (JSON) from the host.")
@click.option("--out", metavar="FILE", help="Where the filled document goes (default: standard output).")
def host(scaffold: str, out: str | None) -> int:
    """Hosted mode: fill a Socratic Runner scaffold's editable fields with the evaluation's evidence."""
    from elenchus.commands import host as command

    _output("out", out)
    return command.run(scaffold, out, _echo)


@cli.command()
@REPO_OPTION
@BASE_OPTION
@HEAD_OPTION
@click.option("--contract", metavar="PATH", help="The intent contract whose confirmed items to harden "
                                                  "(default: .socratic/intent-contract.json).")
@click.option("--change-id", metavar="ID", help="Use .socratic/contracts/ID.json.")
@BUDGET_OPTION
@click.option("--jobs", metavar="N", help="Mutant runs in parallel, 1..64 (default: the number of CPUs, at most 4).")
@click.option("--timeout-factor", metavar="X",
              help="Per-run timeout = X * baseline duration + the timeout constant (default 3).")
@click.option("--timeout-constant", metavar="SECONDS",
              help="Seconds added to every run's timeout, above 0 up to 600 (default 5); lower it to end hung "
                   "mutants of a fast suite sooner.")
@click.option("--witness-time", metavar="SECONDS",
              help="Input search per surviving mutant for a test that catches it, above 0 up to 600 (default 5).")
@click.option("--fresh", is_flag=True, help="Rerun everything instead of reusing results measured on the same "
                                             "content (what it measures is kept for the next run).")
@click.option("--apply", "apply_path", metavar="HANDOFF",
              help="Write the tests listed in HANDOFF (the test-handoff.json of an earlier harden run) into the "
                   "repository, after checking that nothing changed since and that each still passes.")
@_with(ISOLATION_OPTIONS)
def harden(repo, base, head, contract, change_id, budget, jobs, timeout_factor, timeout_constant, witness_time, fresh,
           apply_path, **isolation) -> int:
    """Mutate the confirmed intent and propose verified tests for what the current tests miss (Hardening mode).

    Needs an intent contract whose items are all confirmed or tested. Review-only: the proposed
    tests go to test-handoff.json; only `--apply HANDOFF`, asked for separately, writes them.
    """
    import os

    from elenchus import guards
    from elenchus.commands import harden as command

    if apply_path:
        _isolate([repo], **isolation)
        return command.apply(repo, apply_path, _echo)
    options = command.Options(
        repo=repo, base=base, head=head, budget=guards.budget(budget), budget_explicit=budget is not None,
        jobs=guards.jobs(jobs, min(4, os.cpu_count() or 1)), timeout_factor=guards.timeout_factor(timeout_factor),
        timeout_constant=guards.timeout_constant(timeout_constant), witness_time=guards.witness_time(witness_time),
        contract=contract, change_id=change_id, fresh=fresh,
        interactive=False, harden=True)
    _isolate([repo], **isolation)
    return command.run(options, _narrate, _echo)


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM ends a run as Ctrl-C does: every process stopped, every temporary file removed."""
    workspace.STOPPED_BY.append(signum)
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; expected errors print one clean message, anything else is an internal error."""
    signal.signal(signal.SIGTERM, _terminated)
    try:
        removed = tempspace.claim()
        if removed:
            click.echo(f"Removed {removed} temporary director{'y' if removed == 1 else 'ies'} left behind by "
                       "an earlier run that was killed.", err=True)
        result = cli.main(args=argv, prog_name="elenchus", standalone_mode=False)
    except ElenchusError as error:
        click.echo(f"elenchus: {error.message}", err=True)
        sys.exit(int(error.exit_code))
    except (click.exceptions.Abort, KeyboardInterrupt):  # (click turns a KeyboardInterrupt into Abort)
        # the status a shell gives the signal that stopped it: 128 + its number
        terminated = workspace.STOPPED_BY[:1] == [signal.SIGTERM]
        click.echo(f"elenchus: {'terminated' if terminated else 'interrupted'}", err=True)
        sys.exit(128 + (signal.SIGTERM if terminated else signal.SIGINT))
    except click.ClickException as error:
        error.show()
        sys.exit(int(ExitCode.INPUT_ERROR))
    except OSError as error:
        if error.errno not in _ENVIRONMENT_ERRORS:
            raise
        where = f" ({error.filename})" if error.filename else ""
        click.echo(f"elenchus: cannot continue: {error.strerror}{where}. Free space or fix the permissions "
                   "there, or point TMPDIR and ELENCHUS_RUNS_DIR at a writable directory; the repository was "
                   "not changed.", err=True)
        sys.exit(int(ExitCode.BLOCKED))
    except Exception:  # the top-level handler: anything unexpected is our bug
        click.echo("elenchus: internal error (please report it with the text below)", err=True)
        click.echo(f"elenchus {__version__}, Python {platform.python_version()}, {platform.platform()}", err=True)
        click.echo(traceback.format_exc(), err=True)
        sys.exit(int(ExitCode.INTERNAL_ERROR))
    sys.exit(int(result) if isinstance(result, int) else 0)
