"""Command-line entry point: parse, dispatch, and map errors to exit codes in one place."""

from __future__ import annotations

import platform
import sys
import traceback

import click

from elenchus import __version__
from elenchus.errors import ElenchusError, NotImplementedYet
from elenchus.exit_codes import ExitCode

REPO_OPTION = click.option("--repo", default=".", show_default=True, metavar="PATH",
                           help="The git repository to review (never modified).")
BASE_OPTION = click.option("--base", metavar="REV", help="Base revision (default: derived, see SPEC 4).")
HEAD_OPTION = click.option("--head", metavar="REV",
                           help="Head revision, or WORKTREE for the working tree (default: derived).")


def _echo(line: str) -> None:
    click.echo(line)


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
def changes(repo: str, base: str | None, head: str | None) -> int:
    """Show how Base and Head were chosen and what the change touches (runs no test)."""
    from elenchus.commands import changes as command

    return command.run(repo, base, head, _echo)


@cli.command()
@click.argument("kind")
@click.argument("file", type=click.Path(dir_okay=False))
def validate(kind: str, file: str) -> int:
    """Validate FILE against a schema KIND: intent-contract, mutation-result, mutation-report, test-handoff."""
    from elenchus.commands import validate as command

    return command.run(kind, file, _echo)


@cli.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.option("--demo", is_flag=True, help="Build the bundled demo project into a temp git repo and evaluate it.")
def evaluate(demo: bool) -> int:
    """Evaluate how well the tests protect the current change (Test Evaluation mode)."""
    raise NotImplementedYet("`elenchus evaluate` is not implemented yet (issue 4); "
                            "`elenchus changes` shows what it would evaluate")


def _not_built(name: str, issue: int) -> click.Command:
    @click.command(name=name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
                   help=f"Not implemented yet (issue {issue}).")
    def command() -> int:
        raise NotImplementedYet(f"`elenchus {name}` is not implemented yet (issue {issue})")

    return command


@cli.group()
def replx() -> None:
    """Score repair runs (replx or any repair loop) for weakened tests."""


replx.add_command(_not_built("score", 5))
cli.add_command(_not_built("capture", 6))
cli.add_command(_not_built("host", 6))
cli.add_command(_not_built("harden", 6))


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; expected errors print one clean message, anything else is an internal error."""
    try:
        result = cli.main(args=argv, prog_name="elenchus", standalone_mode=False)
    except ElenchusError as error:
        click.echo(f"elenchus: {error.message}", err=True)
        sys.exit(int(error.exit_code))
    except click.exceptions.Abort:
        click.echo("elenchus: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as error:
        error.show()
        sys.exit(int(ExitCode.INPUT_ERROR))
    except KeyboardInterrupt:
        click.echo("elenchus: interrupted", err=True)
        sys.exit(130)
    except Exception:  # the top-level handler: anything unexpected is our bug
        click.echo("elenchus: internal error (please report it with the text below)", err=True)
        click.echo(f"elenchus {__version__}, Python {platform.python_version()}, {platform.platform()}", err=True)
        click.echo(traceback.format_exc(), err=True)
        sys.exit(int(ExitCode.INTERNAL_ERROR))
    sys.exit(int(result) if isinstance(result, int) else 0)
