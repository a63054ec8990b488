"""Putting a mutant into an interpreter that imported the original: every reference to a mutated
function runs the mutant's code, and a mutant that changes what runs at import is declined."""

import importlib.util
import sys

import pytest

from elenchus.execution import recode

ORIGINAL = '''import functools

LIMIT = 10


def clamp(value):
    return min(value, LIMIT)


def traced(function):
    @functools.wraps(function)
    def wrapper(*args):
        return function(*args)
    return wrapper


@traced
def double(value):
    return value * 2


def make_adder(step):
    def add(value):
        return value + step
    return add


add_one = make_adder(1)


class Box:
    def __init__(self, items):
        self.items = items

    def last(self):
        return self.items[-1]


def default(value=LIMIT):
    return value
'''


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "recoded_sample.py"
    path.write_text(ORIGINAL)
    spec = importlib.util.spec_from_file_location("recoded_sample", path)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["recoded_sample"] = loaded
    spec.loader.exec_module(loaded)
    recode._LIVE.clear()
    yield loaded
    sys.modules.pop("recoded_sample", None)
    recode._LIVE.clear()


def _swap(module, old: str, new: str) -> None:
    assert old in ORIGINAL
    recode.apply(recode.plan(module.__file__, ORIGINAL, ORIGINAL.replace(old, new)))


def test_a_function_imported_by_name_runs_the_mutant(module):
    clamp = module.clamp  # as `from recoded_sample import clamp` would hold it
    _swap(module, "return min(value, LIMIT)", "return max(value, LIMIT)")
    assert clamp(3) == 10 and module.clamp(30) == 30


def test_a_method_and_a_decorated_function_run_the_mutant(module):
    box = module.Box([1, 2, 3])
    _swap(module, "return self.items[-1]", "return self.items[-2]")
    assert box.last() == 2
    _swap(module, "return value * 2", "return value * 3")
    assert module.double(2) == 6


def test_a_closure_made_at_import_runs_the_mutant_too(module):
    _swap(module, "return value + step", "return value - step")
    assert module.add_one(5) == 4 and module.make_adder(2)(5) == 3


def test_a_shifted_line_below_the_mutant_is_no_obstacle(module):
    _swap(module, "    return min(value, LIMIT)\n", "    if value is None:\n        return None\n"
                                                   "    return min(value, LIMIT)\n")
    assert module.clamp(None) is None and module.Box([4]).last() == 4


@pytest.mark.parametrize(("old", "new", "says"), [
    ("LIMIT = 10", "LIMIT = 11", "runs at import (the module)"),
    ("def default(value=LIMIT):", "def default(value=None):", "runs at import (the module)"),
    ("add_one = make_adder(1)", "add_one = make_adder(2)", "runs at import"),
    ("def last(self):\n        return self.items[-1]\n", "", "runs at import (class Box)"),
])
def test_a_mutant_of_code_that_runs_at_import_is_declined(module, old, new, says):
    with pytest.raises(recode.Declined) as declined:
        recode.plan(module.__file__, ORIGINAL, ORIGINAL.replace(old, new))
    assert says in str(declined.value)
    assert module.clamp(30) == 10  # nothing changed


def test_a_file_never_imported_needs_no_swap(tmp_path):
    path = tmp_path / "never_imported.py"
    path.write_text(ORIGINAL)
    assert recode.plan(str(path), ORIGINAL, ORIGINAL.replace("min(", "max(")) == []
