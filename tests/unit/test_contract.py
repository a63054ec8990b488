import json
from dataclasses import replace

import pytest

from elenchus.mutation.contract import (Contract, derive_provisional, load_contract, require_for_capture,
                               require_for_hardening)
from elenchus.errors import ContractError, IntentUnconfirmed
from elenchus.repo.session import open_session

from tests.conftest import run_cli

VALID_ITEM = {"id": "C1", "behaviour": "chunks never drops an element", "risk": "high", "status": "confirmed",
              "anchors": [{"path": "src/batching/core.py", "symbol": "chunks", "lines": [4, 8]}]}


def test_provisional_contract_lists_every_changed_public_function_with_anchors(build_scenario):
    with open_session(build_scenario("demo"), None, None) as session:
        contract = derive_provisional(session.change, session.head, intent="clamp may go without an upper bound")
    assert contract.source == "provisional-derived" and contract.provisional
    assert [(i.anchors[0].symbol, i.status) for i in contract.items] == [
        ("clamp", "provisional"), ("dedupe_tags", "provisional")]
    clamp = contract.items[0]
    assert clamp.anchors[0].path == "src/batching/core.py" and clamp.anchors[0].lines == (11, 19)
    assert clamp.behaviour.startswith("`clamp`: Limit value to the closed range")
    assert any(e.startswith("README.md:") for e in clamp.evidence)
    assert "request (--intent): clamp may go without an upper bound" in clamp.evidence
    from elenchus.schemas import validate

    validate("intent-contract", contract.to_json())


def test_provisional_contract_is_never_derived_from_test_assertions(build_scenario):
    with open_session(build_scenario("weakened-test"), None, None) as session:
        contract = derive_provisional(session.change, session.head)
    assert contract.items == ()


def test_explicit_contract_failing_the_schema_is_refused_with_the_json_path(build_scenario, tmp_path):
    repo = build_scenario("demo")
    bad = tmp_path / "contract.json"
    bad.write_text(json.dumps({"change_id": None, "source": "explicit",
                               "items": [{**VALID_ITEM, "status": "maybe"}]}))
    done = run_cli("mutants", "--repo", str(repo), "--contract", str(bad))
    assert done.returncode == 2
    assert "$.items[0].status" in done.stderr and "refused" in done.stderr


def test_a_contract_failing_the_schema_names_the_users_file_and_the_published_schema_with_every_problem(
        build_scenario, tmp_path):
    from elenchus.resources import data_dir

    repo = build_scenario("demo")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "contract.json").write_text(json.dumps(
        {"change_id": None, "source": "explicit",
         "items": [{**VALID_ITEM, "status": "maybe", "risk": "huge"}]}))
    done = run_cli("mutants", "--repo", str(repo), "--contract", "contract.json", cwd=tmp_path / "work")
    assert done.returncode == 2, done.stderr
    assert ("elenchus: contract refused: contract.json is not a valid intent-contract document, as the Elenchus "
            "intent contract schema (urn:elenchus:schema:intent-contract) defines it; 2 problems:") in done.stderr
    assert "  - at $.items[0].risk: 'huge' is not one of" in done.stderr
    assert "  - at $.items[0].status: 'maybe' is not one of" in done.stderr
    # nothing of where Elenchus is installed: the user cannot open, and need not know, our files
    schemas_dir = data_dir("schemas")
    for inside in (str(schemas_dir), str(schemas_dir.parent), "schemas/", ".schema.json", "site-packages"):
        assert inside not in done.stderr


def test_contract_for_another_change_falls_back_to_the_change_id_file(tmp_path):
    socratic = tmp_path / ".socratic"
    (socratic / "contracts").mkdir(parents=True)
    (socratic / "intent-contract.json").write_text(json.dumps(
        {"change_id": "other", "source": "socratic", "items": [VALID_ITEM]}))
    (socratic / "contracts" / "mine.json").write_text(json.dumps(
        {"change_id": "mine", "source": "socratic", "items": [{**VALID_ITEM, "id": "C7"}]}))
    assert load_contract(tmp_path, None, "mine").items[0].id == "C7"
    assert load_contract(tmp_path, None, "other").items[0].id == "C1"
    assert load_contract(tmp_path, None, None).items[0].id == "C1"
    with pytest.raises(ContractError, match="--change-id"):
        load_contract(tmp_path, None, "../escape")


def test_hardening_requires_confirmed_items_and_capture_requires_both_revisions(build_scenario):
    with open_session(build_scenario("demo"), None, None) as session:
        provisional = derive_provisional(session.change, session.head)
    with pytest.raises(IntentUnconfirmed, match="pass --contract") as stopped:  # derived: nothing confirmed
        require_for_hardening(provisional)
    assert stopped.value.exit_code == 3
    written = Contract("explicit", "c.json", None, tuple(replace(i, status=s) for i, s in zip(
        provisional.items, ("confirmed", "needs-decision"))))
    with pytest.raises(IntentUnconfirmed, match=r"C2 is not: C2 \(needs-decision: ") as stopped:
        require_for_hardening(written)
    assert "status" in str(stopped.value) and "confirmed" in str(stopped.value)
    assert "To harden it, " in str(stopped.value)  # one item: said of one
    both = replace(written, items=tuple(replace(i, status="provisional") for i in written.items))
    with pytest.raises(IntentUnconfirmed, match=r"C1, C2 are not: C1 \(provisional: .*To harden them, "):
        require_for_hardening(both)
    require_for_hardening(replace(written, items=written.items[:1]))
    with pytest.raises(ContractError, match="pass --contract"):
        require_for_hardening(None)
    require_for_capture(provisional, "HEAD~1", "HEAD")
    with pytest.raises(ContractError, match="--reference and --proposed"):
        require_for_capture(provisional, "HEAD~1", None)


def test_a_contract_item_quotes_the_docstrings_first_sentence_whole_even_when_it_wraps():
    from elenchus.mutation.contract import _behaviour
    from elenchus.repo.discover import ChangedFunction

    wrapped = ChangedFunction("src/shop/core.py", "discount", 4, 8, (6,), "modified", True,
                              "Return ``total`` with ``percent`` per cent taken off,\n    rounded to cents. Raises "
                              "ValueError\n    outside 0..100.\n\n    More detail.")
    assert _behaviour(wrapped) == ("`discount`: Return ``total`` with ``percent`` per cent taken off, rounded to "
                                   "cents.", "docstring")
    one_line = ChangedFunction("src/shop/core.py", "ordinal", 1, 3, (2,), "modified", True, "Return the ordinal")
    assert _behaviour(one_line) == ("`ordinal`: Return the ordinal", "docstring")
