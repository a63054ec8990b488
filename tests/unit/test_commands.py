"""A command's options, read from its parser, put on the command lines a witness search tries."""

from __future__ import annotations

import ast
import textwrap

from elenchus.analysis.probes import CallSample
from elenchus.analysis.probes.commands import parser_options, with_command_options
from elenchus.analysis.witness import Witness, find_witness, targets_for
from elenchus.mutation.mutate import Mutant, generate
from elenchus.repo.layout import SourceLayout

# sqlparse's `cli.py` in small: `main(args)` parses what `create_parser()` declares, and its tests pass a file
# name and `-r` at most, so no command line they made names `--case` or `--width`
COMMAND = textwrap.dedent("""\
    import argparse


    def create_parser():
        _CHOICES = ['upper', 'lower']
        parser = argparse.ArgumentParser(prog='shout')
        parser.add_argument('text')
        parser.add_argument('--version', action='version', version='1.0')
        parser.add_argument('-c', '--case', dest='case', choices=_CHOICES)
        parser.add_argument('--width', dest='width', type=int, default=2)
        parser.add_argument('-r', '--reverse', dest='reverse', action='store_true', default=False)
        parser.add_argument('-o', '--outfile', dest='outfile')
        return parser


    def main(args=None):
        options = vars(create_parser().parse_args(args))  # (as sqlparse hands them on: `format(data, **options)`)
        text = options['text'][::-1] if options.get('reverse') else options['text']
        if options.get('case') == 'upper':
            text = text.upper()
        elif options.get('case') == 'lower':
            text = text.lower()
        print(text.ljust(options.get('width', 0), '.'))
        return 0
""")


def _main(tree: ast.Module) -> ast.FunctionDef:
    return next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "main")


def test_the_options_a_parser_declares_are_read_with_a_value_each_takes():
    tree = ast.parse(COMMAND)
    assert parser_options(tree, _main(tree)) == [
        ("--case", "upper"), ("--case", "lower"), ("--width", "3"), ("--reverse",)]
    # (`--version` ends the command, `--outfile` takes a file name no search invents; `create_parser` itself
    # parses no command line)
    assert parser_options(tree, next(node for node in tree.body if isinstance(node, ast.FunctionDef))) == []


def test_each_option_goes_on_the_shortest_command_lines_the_tests_passed_that_do_not_name_it():
    samples = [CallSample("shop.command:main", ("['Ab', '-r']",)), CallSample("shop.command:main", ("['Ab']",)),
               CallSample("shop.command:main", ("('Ab', '-r', '--width', '5')",))]
    made = with_command_options(samples, [("--case", "upper"), ("--reverse",)])
    assert [sample.args_repr for sample in made] == [
        ("['Ab', '--case', 'upper']",), ("['Ab', '--reverse']",), ("['Ab', '-r', '--case', 'upper']",),
        ("['Ab', '-r', '--reverse']",), ("('Ab', '-r', '--width', '5', '--case', 'upper')",),
        ("('Ab', '-r', '--width', '5', '--reverse')",)]
    assert with_command_options([CallSample("shop.command:main", ("'Ab'",))], [("--reverse",)]) == []


def _project(tmp_path):
    project, scratch = tmp_path / "project", tmp_path / "scratch"
    (project / "shop").mkdir(parents=True)
    scratch.mkdir()
    (project / "shop" / "__init__.py").write_text("")
    (project / "shop" / "command.py").write_text(COMMAND)
    return project, scratch


def test_a_mutant_of_how_an_option_is_declared_is_witnessed_through_the_command_with_that_option(tmp_path):
    # sqlparse's `dest='keyword_case'` -> `dest=''` and `_CASE_CHOICES = ['', ...]`: `create_parser()` gives a
    # parser no test compares, and no command line the tests passed `main` names `--keywords`
    project, scratch = _project(tmp_path)
    mutants, _ = generate("shop/command.py", COMMAND)
    destination = next(m for m in mutants if m.line == 9 and "dest=''" in m.mutated_source.splitlines()[8])
    choice = next(m for m in mutants if m.line == 5 and "['', 'lower']" in m.mutated_source)
    assert targets_for(COMMAND, destination) == ["create_parser", "main"]  # (itself, then the command calling it)
    samples = {"shop.command:create_parser": [CallSample("shop.command:create_parser", ())],
               "shop.command:main": [CallSample("shop.command:main", ("['Ab']",))]}
    layout = SourceLayout((".",), ("shop",))
    found = find_witness(project, destination, samples, (), layout, 30.0, scratch)
    assert isinstance(found, Witness), found.reason
    assert found.call == "main(['Ab', '--case', 'upper'])", found.call
    assert found.origin == "command-options"
    assert "printed.getvalue() == 'AB\\n'" in found.test, found.test
    shown = find_witness(project, choice, samples, (), layout, 30.0, scratch)
    assert isinstance(shown, Witness), shown.reason
    assert shown.call == "main(['Ab', '--case', 'upper'])" and "SystemExit" in shown.mutant, shown
    # no command line of the tests' to put options on: the command reads `sys.argv`, set with the option
    argv = find_witness(project, destination, {**samples, "shop.command:main": []}, (), layout, 30.0, scratch)
    assert isinstance(argv, Witness), argv.reason
    assert argv.call == "main() with sys.argv = ['command', '--case', 'upper', 'hello world']", argv.call
    # a mutant the tests' own command line shows is witnessed by it, before any option is added
    flagged = next(m for m in mutants if m.line == 11 and "default=True" in m.mutated_source.splitlines()[10])
    kept = find_witness(project, flagged, samples, (), layout, 30.0, scratch)
    assert isinstance(kept, Witness), kept.reason
    assert kept.call == "main(['Ab'])" and kept.origin == "recorded", kept
