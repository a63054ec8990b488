"""A change that adds a large generated module: discovery reads it in pieces, planning expands few functions.

No timing asserts: the tests count what the pipeline does (windows generated, spans left
unexpanded) and compare the lazy results with the eager ones where both are affordable.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from elenchus.repo import discover
from elenchus.mutation import mutate, select
from elenchus.mutation.contract import Anchor, Contract, ContractItem
from elenchus.mutation.families import FAMILIES, code_features, may_apply
from elenchus.mutation.mutate import FileMutator, FunctionSpan
from elenchus.repo.snapshot import Snapshot


def generated_function(n: int) -> str:
    k = n % 97 + 1
    kind = n % 5
    name = f"f_{n:05d}"
    if kind == 0:
        return f"def {name}(first, second):\n    return first + second * {n % 3 + 2}\n"
    if kind == 1:
        return f"def {name}(left, right):\n    return left >= right and left != {k}\n"
    if kind == 2:
        return f"def {name}(x, y):\n    if x > y:\n        return x - {k}\n    return y\n"
    if kind == 3:
        return f"def {name}(items, limit={k}):\n    return [i for i in items if i < limit]\n"
    return f"def {name}(x):\n    total = 0\n    for i in range(x):\n        total += i % {k}\n    return total\n"


def generated_module(count: int) -> str:
    body = "\n\n".join(generated_function(n) for n in range(count))
    return f'"""Generated."""\nfrom __future__ import annotations\n\nimport re\n\nNAME_RE = r"^[a-z]+$"\n\n\n{body}\n' \
           'class Holder:\n    """A class among the functions."""\n\n    def check(self, text):\n' \
           '        return re.match(NAME_RE, text) is not None\n'


def snapshot(root: Path, label: str, files: dict[str, str]) -> Snapshot:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return Snapshot(root, label, label, None, tuple(sorted(files)), ())


@pytest.fixture
def large_change(tmp_path):
    base_files = {"pkg/__init__.py": "", "pkg/core.py": "def one():\n    return 1\n",
                  "tests/test_core.py": "from pkg.core import one\n\n\ndef test_one():\n    assert one() == 1\n"}
    head_files = {**base_files, "pkg/generated.py": generated_module(5_000)}
    base = snapshot(tmp_path / "base", "base", base_files)
    head = snapshot(tmp_path / "head", "head", head_files)
    return base, head


def test_discover_reads_a_large_added_module_in_pieces_with_the_spans_of_a_whole_parse(large_change, monkeypatch):
    base, head = large_change
    source = head.read("pkg/generated.py")
    assert len(source) > discover._CHUNK_CHARS  # read in pieces
    notes: list[str] = []
    change = discover.discover(base, head, progress=notes.append)
    assert len([f for f in change.functions if f.status == "added"]) == 5_001
    assert notes == []  # under the size that reports progress
    monkeypatch.setattr(discover, "_CHUNK_CHARS", 10**9)
    whole = discover.outline.__wrapped__(source)
    assert discover.outline(source) == whole


def test_pieces_grow_past_a_false_statement_start_inside_a_string(monkeypatch):
    monkeypatch.setattr(discover, "_CHUNK_CHARS", 10)
    source = 'X = """\ndef looks_like_code():\n    pass\n"""\n\n\ndef real(a):\n    return a\n'
    assert [s.qualname for s in discover.outline.__wrapped__(source).spans] == ["real"]
    assert discover.outline.__wrapped__("def broken(:\n    pass\n\n\nx = 1\n") is None


def test_plan_with_a_budget_of_three_generates_candidates_for_few_of_five_thousand_functions(large_change,
                                                                                           monkeypatch):
    base, head = large_change
    change = discover.discover(base, head)
    windows: list[int] = []
    real = FileMutator._window_drafts

    def counted(self, spans):
        windows.append(len(spans))
        return real(self, spans)

    monkeypatch.setattr(FileMutator, "_window_drafts", counted)
    notes: list[str] = []
    plan = select.plan("current-change", change, base, head, None, 3, progress=notes.append)
    assert len(plan.challenged) == 3
    assert len(windows) <= 16  # functions expanded, of 5,001
    assert plan.unexpanded >= 5_001 - 16
    assert [p.rank for p in plan.challenged] == [1, 2, 3]
    assert len(plan.not_challenged) <= select.LISTED_BEYOND_BUDGET
    # listed, never run: none holds a copy of the whole mutated module (25 of a 5 MB module held 134 MB)
    assert plan.not_challenged and all(not hasattr(p.mutant, "mutated_source") for p in plan.not_challenged)
    # the riskiest first: a check (a risky name) at the end of the module, then the first guard clauses
    assert [(p.mutant.symbol, p.mutant.family) for p in plan.challenged] == [
        ("Holder.check", "none-check-inversion"), ("f_00002", "dropped-guard"), ("f_00007", "dropped-guard")]
    source = head.read("pkg/generated.py")
    for p in plan.challenged:  # the whole file with one edit, not the window it was made in
        mutated, line = p.mutant.mutated_source.splitlines(), p.mutant.line
        assert mutated[:line - 1] == source.splitlines()[:line - 1] and abs(len(mutated) - source.count("\n")) < 5
        assert f"@@ -{line - 2}," in p.mutant.diff or f"@@ -{line - 1}," in p.mutant.diff
    assert notes and notes[0].startswith("Ranking 5,005 changed functions and statements")
    told = plan.how_chosen()  # stderr and the report say why these three of 5,005
    assert told.startswith(f"{3 + len(plan.not_challenged) + plan.unlisted:,} candidate(s) over 5,005 changed "
                           "function(s) and statement(s), ranked by risk")
    assert "the 3 riskiest within the budget of 3 are challenged" in told
    assert f"{plan.unexpanded:,} of the functions and statements were never expanded into candidates" in told


def test_a_small_plan_says_how_it_ranked_and_never_mentions_unexpanded_code(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/core.py": "def one(x):\n    if x > 1:\n        return x\n    return 0\n"}
    base = snapshot(tmp_path / "base", "base", {"pkg/__init__.py": ""})
    head = snapshot(tmp_path / "head", "head", files)
    plan = select.plan("current-change", discover.discover(base, head), base, head, None, 1)
    told = plan.how_chosen()
    assert told.startswith(f"{1 + len(plan.not_challenged):,} candidate(s) over 1 changed function(s)")
    assert "the 1 riskiest within the budget of 1" in told and "never expanded" not in told


def test_lazy_plan_challenges_what_the_eager_plan_challenges_with_the_same_ranks(tmp_path, monkeypatch):
    base_files = {"pkg/__init__.py": ""}
    head_files = {"pkg/__init__.py": "", "pkg/generated.py": generated_module(80)}
    base = snapshot(tmp_path / "base", "base", base_files)
    head = snapshot(tmp_path / "head", "head", head_files)
    change = discover.discover(base, head)
    contract = Contract("explicit", None, None, (
        ContractItem("C1", "f_00041 validates", (Anchor("pkg/generated.py", "f_00041", (1, 2)),), "high", "confirmed"),
    ))
    monkeypatch.setattr(select, "LAZY_WINDOW_LINES", 100)  # regions of the 500-line module, as for a large one
    monkeypatch.setattr(mutate.generation, "WINDOW_LINES", 100)
    for budget in (1, 3, 8):
        monkeypatch.setattr(select, "EAGER_SPANS", 40)
        lazy = select.plan("current-change", change, base, head, contract, budget)
        monkeypatch.setattr(select, "EAGER_SPANS", 10**6)
        eager = select.plan("current-change", change, base, head, contract, budget)
        assert [(p.mutant.id, p.rank, p.score, p.contract_id) for p in lazy.challenged] == \
               [(p.mutant.id, p.rank, p.score, p.contract_id) for p in eager.challenged]
        assert lazy.unexpanded > 60 and eager.unexpanded == 0
        assert {p.mutant.id for p in lazy.not_challenged} < {p.mutant.id for p in eager.not_challenged}


def test_windowed_generation_gives_the_mutants_of_whole_file_generation():
    source = generated_module(25)
    view = discover.code_view(source)
    spans = [FunctionSpan(s.qualname, s.start, s.end, tuple(n for n in range(s.start, s.end + 1) if view[n - 1]))
             for s in discover.function_spans(source)]
    spans += [FunctionSpan(symbol, a, b, (a,)) for symbol, a, b in discover.outer_statements(source)]
    whole = FileMutator("m.py", source, window_lines=10**9)
    windowed = FileMutator("m.py", source, window_lines=0)
    assert windowed.windowed and not whole.windowed
    assert windowed.regex_uses() == {"NAME_RE": {"match"}}
    assert windowed.generate(spans) == whole.generate(spans)


def test_every_generated_mutant_sits_in_code_that_has_its_familys_cues():
    source = generated_module(25)
    lines = source.splitlines(keepends=True)
    spans = [FunctionSpan(s.qualname, s.start, s.end) for s in discover.function_spans(source)]
    by_name = {s.qualname: s for s in spans}
    mutants, _ = FileMutator("m.py", source).generate(spans)
    assert mutants
    for mutant in mutants:
        span = by_name[mutant.symbol]
        assert may_apply(FAMILIES[mutant.family], code_features("".join(lines[span.start - 1:span.end])))


def test_a_lazy_plan_windows_a_module_too_short_to_be_windowed_for_a_small_change(tmp_path, monkeypatch):
    base = snapshot(tmp_path / "base", "base", {"pkg/__init__.py": ""})
    head = snapshot(tmp_path / "head", "head", {"pkg/__init__.py": "", "pkg/generated.py": generated_module(300)})
    assert head.read("pkg/generated.py").count("\n") < mutate.WINDOW_LINES
    change = discover.discover(base, head)
    windows: list[int] = []
    real = FileMutator._window_drafts
    monkeypatch.setattr(FileMutator, "_window_drafts", lambda self, spans: windows.append(1) or real(self, spans))
    plan = select.plan("current-change", change, base, head, None, 3)
    assert len(plan.challenged) == 3 and 0 < len(windows) <= 16


def test_the_coverage_map_reads_function_bodies_of_a_large_module_in_pieces_as_a_whole_parse_would(monkeypatch):
    import ast

    from elenchus.execution import coverage_map

    source = generated_module(6_000) + "\n\ndef outer(x):\n    def inner(y):\n        return y\n    return inner(x)\n"
    pieces = []
    real = coverage_map.parsed_pieces

    def counted(text):
        for piece in real(text):
            pieces.append(piece[0])
            yield piece

    monkeypatch.setattr(coverage_map, "parsed_pieces", counted)
    whole = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)]
    bodies = {n for node in whole for n in range(node.body[0].lineno, node.end_lineno + 1)}
    headers = {(min([node.lineno, *(d.lineno for d in node.decorator_list)]), node.body[0].lineno - 1,
                range(node.body[0].lineno, node.end_lineno + 1)) for node in whole}
    assert coverage_map._function_body_lines(source) == bodies
    assert set(coverage_map._headers(source)) == headers
    assert len(pieces) > 1 and pieces[0] == 0  # (never the whole tree at once: a 5 MB module took 0.6 GB)


def test_whether_a_large_module_parses_is_read_in_pieces_and_a_failure_names_its_own_line(monkeypatch):
    import ast

    source = generated_module(12_000)
    longest = []
    real = ast.parse
    monkeypatch.setattr(ast, "parse", lambda text, *a, **k: longest.append(len(text)) or real(text, *a, **k))
    assert discover.parse_failure(source) is None
    assert 0 < max(longest) < len(source) // 2  # (never the whole 0.9 MB tree at once)
    broken = source + "\n\ndef broken(:\n    return 1\n"
    line = broken.count("\n") - 1
    assert discover.parse_failure(broken) == f"line {line}: invalid syntax"
