"""harness-tampering: changes to how the tests run rather than to what they check.

In test and infrastructure code: pytest hooks that decide outcomes or hide tests, plugins loaded
from test code, patched assertion machinery, clocks and process exits, fake-time libraries. In
pytest configuration files (``pyproject.toml``, ``pytest.ini``, ``tox.ini``, ``setup.cfg``):
``addopts`` that load, disable, deselect or ignore, and changed collection settings.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator

import libcst as cst

from elenchus.analysis.weakening.equality import _new_patches
from elenchus.analysis.weakening.evidence import ChangedFile, Evidence, EvidenceKind
from elenchus.analysis.weakening.source import (_MODULE, _Pair, _Source, _Unparseable, _added, _owned_shape, _sites,
                                                _unparseable, _where)
from elenchus.analysis.weakening.syntax import _dotted, _last, _literal, _snippet
from elenchus.config import pytest_ini_options


# --------------------------------------------------------------------------- harness-tampering


_OUTCOME_HOOKS = frozenset({
    "pytest_runtest_makereport", "pytest_runtest_call", "pytest_pyfunc_call", "pytest_runtest_protocol",
    "pytest_report_teststatus", "pytest_assertrepr_compare", "pytest_sessionfinish",
    "pytest_runtest_logreport", "pytest_runtestloop", "pytest_terminal_summary",
})
_DESELECTING = frozenset({"remove", "clear", "pop", "add_marker", "pytest_deselected", "skip", "xfail"})
_SKIPPING = frozenset({"skip", "xfail", "add_marker", "skipTest"})
_EXITS = frozenset({"sys.exit", "os._exit", "exit", "quit", "pytest.exit", "atexit.register", "os.abort"})
_TIME_NAMES = frozenset({"time", "monotonic", "perf_counter", "time_ns", "monotonic_ns", "perf_counter_ns",
                         "now", "utcnow", "today", "sleep"})
_FAKE_TIME_MODULES = frozenset({"freezegun", "time_machine", "libfaketime"})
_FAKE_TIME_CALLS = frozenset({"freeze_time", "travel"})


def _hook_calls(function: cst.FunctionDef) -> set[str]:
    class Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.found: set[str] = set()

        def visit_Call(self, node: cst.Call) -> None:
            self.found.add(_last(node.func))

        def visit_Del(self, node: cst.Del) -> None:
            self.found.add("remove")

        def visit_Assign(self, node: cst.Assign) -> None:
            if any(isinstance(t.target, cst.Subscript) for t in node.targets):
                self.found.add("remove")  # items[:] = kept

    finder = Finder()
    function.body.visit(finder)
    return finder.found


def _machinery(target: str) -> str | None:
    """What kind of test machinery a patched name belongs to, if any."""
    parts = target.split(".")
    last = parts[-1]
    if target in ("AssertionError", "builtins.AssertionError", "__builtins__.AssertionError") \
            or parts[0] == "_pytest" or (parts[0] == "pytest" and len(parts) == 2) \
            or (parts[0] == "unittest" and len(parts) > 1):
        return "the assertion machinery"
    if (last.startswith("assert") or last.startswith("fail")) and (
            "TestCase" in parts or parts[0] == "self"):
        return "the assertion machinery"
    if len(parts) >= 2 and last in _TIME_NAMES and parts[-2] in ("time", "datetime", "date"):
        return "the clock"
    if target in ("sys.exit", "os._exit", "builtins.exit"):
        return "process exit"
    return None


def _harness_tampering(pair: _Pair) -> Iterator[Evidence]:
    base, head = pair.base, pair.head
    if head is None:
        return
    base_functions = base.functions if base is not None else {}
    # Hooks that decide outcomes, new or changed at Head.
    for name, function in head.functions.items():
        hook = name.rsplit(".", 1)[-1]
        if not hook.startswith("pytest_"):
            continue
        old = base_functions.get(name)
        if old is not None and base is not None and base.shape(old) == head.shape(function):
            continue
        calls = _hook_calls(function)
        if hook in _OUTCOME_HOOKS:
            effect = "decides or rewrites test outcomes"
        elif hook == "pytest_collection_modifyitems" and calls & _DESELECTING:
            effect = "drops or skips collected tests"
        elif hook in ("pytest_runtest_setup", "pytest_collection", "pytest_collect_file",
                      "pytest_ignore_collect", "pytest_itemcollected") and (calls & _SKIPPING or
                                                                           hook == "pytest_ignore_collect"):
            effect = "skips or hides tests before they run"
        else:
            continue
        how = "added" if old is None else "changed"
        yield Evidence(EvidenceKind.HARNESS_TAMPERING, pair.path, head.line(function.name), None,
                       base.code(old) if old is not None and base is not None else None,
                       head.code(function),
                       f"the pytest hook {hook} was {how} in {pair.path}; it {effect}, so a green run "
                       f"no longer means the tests passed.")
    # Plugins loaded from test code.
    yield from _new_plugins(pair)
    # Patched assertion machinery, clocks and exits.
    for site, target in _new_patches(pair):
        what = _machinery(target)
        if what is None:
            continue
        yield Evidence(EvidenceKind.HARNESS_TAMPERING, pair.path, head.line(site.node), site.test, None,
                       head.code(site.node),
                       f"`{target}` is replaced {_where(site)}, which patches {what}, so checks that "
                       f"depend on it no longer observe the real behaviour.")
    base_calls = _sites(base, "call")
    new_calls = _added(base_calls, head.of("call"), _owned_shape)
    fake_time_imported_before = base is not None and bool(_imports(base) & _FAKE_TIME_MODULES)
    for site in new_calls:
        call = site.node
        assert isinstance(call, cst.Call)
        name = _dotted(call.func) or ""
        if name in _EXITS:
            yield Evidence(EvidenceKind.HARNESS_TAMPERING, pair.path, head.line(call), site.test, None,
                           head.code(call),
                           f"`{_snippet(head.code(call), 40)}` {_where(site)} ends or hooks the test process "
                           f"itself, so the command's exit status no longer reflects the test results.")
        elif name.rsplit(".", 1)[-1] in _FAKE_TIME_CALLS and fake_time_imported_before:
            yield Evidence(EvidenceKind.HARNESS_TAMPERING, pair.path, head.line(call), site.test, None,
                           head.code(call),
                           f"`{_snippet(head.code(call), 40)}` {_where(site)} fakes the clock, so behaviour "
                           f"that depends on time is no longer exercised for real.")
        elif name.endswith("pluginmanager.register") or name.endswith("pluginmanager.import_plugin"):
            yield Evidence(EvidenceKind.HARNESS_TAMPERING, pair.path, head.line(call), site.test, None,
                           head.code(call),
                           f"a pytest plugin is registered {_where(site)}, so code outside the tests can "
                           f"change their outcomes.")
    new_modules = _imports(head) - (_imports(base) if base is not None else set())
    for site in head.of("import"):
        for module in sorted(_imported(site.node) & new_modules & _FAKE_TIME_MODULES):
            new_modules.discard(module)
            yield Evidence(EvidenceKind.HARNESS_TAMPERING, pair.path, head.line(site.node), site.test, None,
                           head.code(site.node),
                           f"{module} was brought into the tests, so they can run against a faked clock "
                           f"instead of the real one.")


def _imported(node: cst.CSTNode) -> set[str]:
    if isinstance(node, cst.Import):
        return {(_dotted(a.name) or "").split(".")[0] for a in node.names}
    if isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
        return {(_dotted(node.module) or "").split(".")[0]}
    return set()


def _imports(source: _Source) -> set[str]:
    return set().union(*(_imported(s.node) for s in source.of("import")))


def _plugin_list(source: _Source | None) -> list[tuple[cst.CSTNode, str]]:
    if source is None:
        return []
    found = []
    for site in source.of("assign"):
        node = site.node
        if site.owner != _MODULE or not isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            continue
        targets = node.targets if isinstance(node, cst.Assign) else [node]
        if any(_dotted(t.target) == "pytest_plugins" for t in targets) and node.value is not None:
            value = _literal(node.value)
            names = [value] if isinstance(value, str) else list(value) if isinstance(value, tuple) else []
            found.extend((node, n) for n in names if isinstance(n, str))
    return found


def _new_plugins(pair: _Pair) -> Iterator[Evidence]:
    assert pair.head is not None
    before = {name for _, name in _plugin_list(pair.base)}
    for node, name in _plugin_list(pair.head):
        if name not in before:
            yield Evidence(EvidenceKind.HARNESS_TAMPERING, pair.path, pair.head.line(node), None, None,
                           pair.head.code(node),
                           f"the plugin {name} is now loaded through `pytest_plugins` in {pair.path}, so "
                           f"code outside the tests can change their outcomes.")


# --------------------------------------------------------------------------- pytest configuration files


_HIDING_OPTIONS = {"-p": "loads the plugin", "--deselect": "deselects", "--ignore": "ignores",
                   "--ignore-glob": "ignores", "-k": "selects only", "-m": "selects only the marks"}
_COLLECTION_KEYS = ("testpaths", "python_files", "python_classes", "python_functions", "norecursedirs")


def _options(addopts: object) -> list[tuple[str, str]]:
    """(option, value) pairs from ``addopts`` for the options that can hide failures."""
    if isinstance(addopts, list):
        words = [str(w) for w in addopts]
    elif isinstance(addopts, str):
        try:
            words = shlex.split(addopts)
        except ValueError:
            words = addopts.split()
    else:
        return []
    found = []
    for index, word in enumerate(words):
        option, _, inline = word.partition("=")
        if option in _HIDING_OPTIONS:
            value = inline or (words[index + 1] if index + 1 < len(words) else "")
            found.append((option, value))
        elif word.startswith("-p") and len(word) > 2:
            found.append(("-p", word[2:]))
    return found


def _config_line(text: str | None, key: str) -> int:
    """The line that sets ``key`` (first line whose text starts with it), or 1."""
    for number, line in enumerate((text or "").splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith(key) and stripped[len(key):].lstrip().startswith(("=", ":")):
            return number
    return 1


def _config_changes(file: ChangedFile) -> Iterator[Evidence]:
    base = pytest_ini_options(file.path, file.base_source)
    head = pytest_ini_options(file.path, file.head_source)
    for side, parsed in (("head", head), ("base", base)):
        if isinstance(parsed, str):
            yield _unparseable(file.path, side, _Unparseable(1, parsed))
            return
    assert isinstance(base, dict) and isinstance(head, dict)
    before = set(_options(base.get("addopts")))
    line = _config_line(file.head_source, "addopts")
    for option, value in _options(head.get("addopts")):
        if (option, value) in before:
            continue
        action = "disables the plugin" if option == "-p" and value.startswith("no:") else _HIDING_OPTIONS[option]
        yield Evidence(EvidenceKind.HARNESS_TAMPERING, file.path, line, None,
                       str(base.get("addopts")) if "addopts" in base else None, str(head.get("addopts")),
                       f"`addopts` in {file.path} now {action} `{value.removeprefix('no:')}` on every "
                       f"run, so the tests no longer run the way they did before the repair.")
    for key in _COLLECTION_KEYS:
        if key in base and base.get(key) != head.get(key):
            yield Evidence(EvidenceKind.HARNESS_TAMPERING, file.path, _config_line(file.head_source, key), None,
                           str(base.get(key)), str(head[key]) if key in head else None,
                           f"the pytest setting `{key}` in {file.path} changed, so tests collected before "
                           f"may no longer be collected.")
