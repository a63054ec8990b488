import pytest

from elenchus.mutation.contract import derive_provisional
from elenchus.mutation.select import plan
from elenchus.repo.session import open_session

from tests.conftest import run_cli


def planned(repo, scope="current-change", budget=16, target=None):
    with open_session(repo, None, None, allow_empty=scope == "target") as session:
        contract = derive_provisional(session.change, session.head)
        return plan(scope, session.change, session.base, session.head, contract, budget, target), session.change


@pytest.mark.parametrize("name", ["demo", "api-rename", "baseline-red", "flaky-test", "endless-loop"])
def test_select_challenges_each_changed_function_and_a_retention_risk(name, build_scenario):
    result, change = planned(build_scenario(name))
    mutated = {(p.mutant.path, p.mutant.symbol) for p in result.challenged}
    for fn in change.functions:
        if fn.status != "deleted":
            assert (fn.path, fn.qualname) in mutated
    if name != "endless-loop":  # a brand-new function has no pre-existing behaviour to retain
        assert any(p.retention for p in result.challenged)
    assert len(result.challenged) <= 16


def test_select_records_not_challenged_with_rank_and_rejected_with_reason(build_scenario):
    result, _ = planned(build_scenario("demo"), budget=4)
    assert len(result.challenged) == 4
    assert result.not_challenged and all(p.rank > 0 for p in result.not_challenged)
    ranks = sorted(p.rank for p in result.challenged + result.not_challenged)
    assert ranks == list(range(1, len(ranks) + 1))
    assert result.rejected and all(r.reason for r in result.rejected)


def test_select_is_identical_across_two_runs(build_scenario):
    repo = build_scenario("demo")
    first, _ = planned(repo)
    second, _ = planned(repo)
    assert [p.mutant.id for p in first.challenged] == [p.mutant.id for p in second.challenged]
    assert [p.mutant.id for p in first.not_challenged] == [p.mutant.id for p in second.not_challenged]


def test_select_changed_tests_scope_mutates_only_code_the_changed_tests_call(build_scenario):
    result, _ = planned(build_scenario("weakened-test"), scope="changed-tests")
    assert {p.mutant.symbol for p in result.challenged + result.not_challenged} == {"chunks"}


def test_select_target_scope_mutates_the_named_module(build_scenario):
    result, _ = planned(build_scenario("endless-loop"), scope="target", target="src/batching/core.py")
    assert {p.mutant.path for p in result.challenged} == {"src/batching/core.py"}


def test_mutants_command_prints_incidents_and_diffs_without_running_tests(build_scenario):
    repo = build_scenario("demo")
    done = run_cli("mutants", "--repo", str(repo), "--budget", "3")
    assert done.returncode == 0, done.stderr
    assert "Planned mutants (3 of budget 3):" in done.stdout
    assert "Incident: `clamp`" in done.stdout and "--- a/src/batching/core.py" in done.stdout
    assert "Not challenged (" in done.stdout and "Rejected before running (" in done.stdout
    assert done.stdout.rstrip().endswith("The working tree was not modified during this Review-only run.")
    for word in ("ROR", "AOR", "COR", "operator"):
        assert word not in done.stdout


def test_select_exhaustive_target_scope_adds_mutmut_candidates_labelled_as_incidents(build_scenario):
    repo = build_scenario("demo")
    intent, _ = planned(repo, scope="target", budget=256, target="src/batching/core.py")
    with open_session(repo, None, None, allow_empty=True) as session:
        exhaustive = plan("target", session.change, session.base, session.head, None, 256,
                          "src/batching/core.py", exhaustive=True)
    assert len(exhaustive.challenged) > len(intent.challenged)
    for p in exhaustive.challenged:
        assert p.mutant.incident and not any(w in p.mutant.incident for w in ("ROR", "AOR", "operator"))


def test_hardening_mutates_what_the_confirmed_items_anchor_changed_or_not(build_scenario):
    from dataclasses import replace

    from elenchus.mutation.contract import Anchor, Contract, ContractItem
    from elenchus.errors import ElenchusError
    from elenchus.mutation.scope import CONFIRMED_INTENT

    item = ContractItem("C1", "clamp keeps values in range", (Anchor("src/batching/core.py", "clamp", (1, 1)),),
                        "high", "confirmed")
    open_item = replace(item, id="C2", status="provisional", anchors=(Anchor("src/batching/ratio.py", "ratio", (1, 1)),))
    with open_session(build_scenario("harden"), None, None) as session:  # the change adds ratio; clamp is old
        chosen = plan(CONFIRMED_INTENT, session.change, session.base, session.head,
                      Contract("explicit", "c.json", None, (item, open_item)), 64)
        assert chosen.challenged and {p.mutant.symbol for p in chosen.challenged} == {"clamp"}
        assert {p.contract_id for p in chosen.challenged} == {"C1"}
        gone = replace(item, anchors=(Anchor("src/batching/core.py", "no_such_function", (1, 1)),))
        with pytest.raises(ElenchusError, match=r"C1 \(src/batching/core.py::no_such_function\) name no function"):
            plan(CONFIRMED_INTENT, session.change, session.base, session.head,
                 Contract("explicit", "c.json", None, (gone,)), 64)


def test_a_files_candidates_are_kept_by_its_source_and_read_back_by_the_next_plan(build_scenario, tmp_path):
    from elenchus.records import ResultCache

    repo = build_scenario("demo")
    store = ResultCache(tmp_path / "store")
    with open_session(repo, None, None) as session:
        contract = derive_provisional(session.change, session.head)
        alone = plan("current-change", session.change, session.base, session.head, contract, 16)
        first = plan("current-change", session.change, session.base, session.head, contract, 16, store=store)
        assert [p.mutant for p in first.challenged] == [p.mutant for p in alone.challenged]
        stored = [path for path in (tmp_path / "store").rglob("*.json")]
        assert stored, "the candidates were kept"
        # what is kept is what the next plan reads: an incident changed in the store shows in the next plan
        marked = 0
        for path in stored:
            key = path.stem
            record = store.peek(key)
            if record and "drafts" in record:
                record.pop("seal", None)
                record["drafts"] = [{**d, "incident": "READ FROM THE STORE"} for d in record["drafts"]]
                store.put(key, record)
                marked += 1
        assert marked
        again = plan("current-change", session.change, session.base, session.head, contract, 16, store=store)
        assert again.challenged and all(p.mutant.incident == "READ FROM THE STORE" for p in again.challenged)
        assert [p.mutant.mutated_source for p in again.challenged] == [p.mutant.mutated_source
                                                                       for p in first.challenged]


def test_a_plan_mutates_a_platform_check_only_where_the_tests_set_the_platform_themselves(tmp_path):
    from tests.conftest import committed, git

    code = ('import sys\n\n\ndef separator():\n    if sys.platform == "win32":\n        return ";"\n'
            '    return ":"\n')
    reads = "import sys\n\nfrom app import separator\n\n\ndef test_separator():\n    assert separator() in ';:'\n"
    sets = ("from app import separator\n\n\ndef test_separator_on_windows(monkeypatch):\n"
            "    monkeypatch.setattr('sys.platform', 'win32')\n    assert separator() == ';'\n")
    found = {}
    for name, test in (("reads", reads), ("sets", sets)):
        repo = committed(tmp_path / name, {"app.py": code, "tests/test_app.py": test})
        (repo / "README").write_text("separator\n")
        git(repo, "add", "README")
        git(repo, "commit", "-q", "-m", "readme")
        with open_session(repo, None, None, allow_empty=True) as session:
            result = plan("target", session.change, session.base, session.head, None, 50, "app.py")
        found[name] = ({(p.mutant.line, p.mutant.family) for p in result.challenged + result.not_challenged},
                       {(r.line, r.family) for r in result.rejected if "interpreter or platform" in r.reason})
    made, arid = found["reads"]
    assert (5, "negated-condition") in arid and not {line for line, _ in made} & {5}
    assert {(6, "constant-drift"), (7, "constant-drift")} <= made  # what each platform gets is still mutated
    made, arid = found["sets"]
    assert (5, "negated-condition") in made and not arid
