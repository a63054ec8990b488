"""How the recorder plugin classifies a failed test: the failure kind of its exception, the files its
traceback crossed, and the check (``assert``, an ``assert*`` call, a ``pytest.raises`` block) it
surfaced in, read from the test file's statements; and the line a failed collection gives.

Split from ``plugin.py``, which loads it from its file under a private name (as it loads
``record_protocol.py``) inside the pytest subprocess: keep it self-contained, standard library and
pytest only, never an import of Elenchus.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from pathlib import Path
from typing import Any

import pytest

_MESSAGE_LIMIT = 300
# unittest: "ValueError not raised", "ValueError not raised by f", "... : custom msg".
_UNITTEST_NOT_RAISED = re.compile(r"^\S+ not raised( by \S+)?( : .*)?$", re.DOTALL)
_PYTEST_NOT_RAISED = "DID NOT RAISE"
# pytest-timeout fails a test through pytest.fail("Timeout (>1.0s) from pytest-timeout.")
_PLUGIN_TIMEOUT = re.compile(r"^Timeout\b.*pytest-timeout", re.DOTALL)
# unittest runs setUp/tearDown/cleanups inside pytest's "call" phase; these frames of
# unittest/case.py (and async_case.py) show that the failure came from one of them.
_UNITTEST_FIXTURE_FRAMES = frozenset({"_callSetUp", "_callTearDown", "_callCleanup", "doCleanups"})
_UNITTEST_DIR = os.path.dirname(os.path.abspath(__import__("unittest").__file__)) + os.sep
_INTERNAL_DIRS = tuple(
    os.path.dirname(os.path.abspath(mod.__file__)) + os.sep
    for mod in (pytest, __import__("_pytest"), __import__("pluggy"))
    if getattr(mod, "__file__", None)
)


def classify_exception(exc: BaseException) -> str:
    """The failure kind of an exception raised while a test body ran."""
    message = str(exc)
    if isinstance(exc, pytest.fail.Exception):
        if message.startswith(_PYTEST_NOT_RAISED):
            return "expected-exception-not-raised"
        if _PLUGIN_TIMEOUT.match(message):
            return "timeout"
        return "assertion"  # an explicit pytest.fail() (or "DID NOT WARN") is the test's own check
    if isinstance(exc, AssertionError):
        # pytest's rewritten asserts and unittest's assert* methods both raise it.
        if _UNITTEST_NOT_RAISED.match(message):
            return "expected-exception-not-raised"
        return "assertion"
    return "unexpected-exception"


def _exception_type(exc: BaseException) -> str:
    cls = type(exc)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _short_message(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            text = line.strip()
            break
    else:
        text = text.strip()
    if len(text) > _MESSAGE_LIMIT:
        text = text[: _MESSAGE_LIMIT - 1] + "\u2026"
    return text


def _crossed_files(excinfo: pytest.ExceptionInfo[BaseException], item_path: Path | None) -> list[str]:
    """Absolute source files of the failure's frames, outermost first, deduplicated.

    Frames above the test's own file (pytest's runner) and frames inside pytest or
    pluggy are left out; frames in the standard library stay (they were crossed).
    """
    traceback = excinfo.traceback
    if item_path is not None:
        cut = traceback.cut(path=item_path)
        if len(cut):
            traceback = cut
    files: list[str] = []
    for entry in traceback:
        raw = str(entry.path)
        if raw.startswith("<"):  # <string>, <frozen ...>
            continue
        path = os.path.abspath(raw)
        if path.startswith(_INTERNAL_DIRS):
            continue
        if path not in files:
            files.append(path)
    return files


def _in_unittest_fixture(excinfo: pytest.ExceptionInfo[BaseException]) -> bool:
    return any(
        entry.name in _UNITTEST_FIXTURE_FRAMES and os.path.abspath(str(entry.path)).startswith(_UNITTEST_DIR)
        for entry in excinfo.traceback
    )


# Calls whose block (or callable form) expects an exception or warning.
_RAISES_CALLS = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "warns",
                           "assertWarns", "assertWarnsRegex", "deprecated_call", "assertLogs"})


def _callee(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute):
            return func.attr
    return None


def _statement_check(chain: list[ast.stmt], line: int) -> str | None:
    """The check made at ``line``, given the statements that contain it (outermost first)."""
    innermost = chain[-1]
    if isinstance(innermost, ast.Assert):
        return "assert"
    if isinstance(innermost, ast.Expr):
        name = _callee(innermost.value) or ""
        if name in _RAISES_CALLS:
            return "raises-block"  # pytest.raises(E, f, x) / self.assertRaises(E, f, x)
        if name.lower().startswith("assert") or name == "fail":
            return "assert-call"  # self.assertEqual(...), np.testing.assert_allclose(...), self.fail()
    for statement in chain:
        inside_body = bool(statement.body) and line >= statement.body[0].lineno \
            if isinstance(statement, (ast.With, ast.AsyncWith)) else False
        if inside_body and any(_callee(item.context_expr) in _RAISES_CALLS
                               for item in statement.items):  # type: ignore[attr-defined]
            return "raises-block"
    return None


@functools.lru_cache(maxsize=256)
def _statements_of(path: str) -> tuple[ast.stmt, ...] | None:
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return None
    return tuple(node for node in ast.walk(tree) if isinstance(node, ast.stmt))


def check_at(path: str, line: int) -> str | None:
    """The check made by the statement at ``line`` (1-based) of the file ``path``, or None."""
    statements = _statements_of(path) or ()
    chain = [s for s in statements if s.lineno <= line <= (s.end_lineno or s.lineno)]
    if not chain:
        return None
    chain.sort(key=lambda s: (s.lineno, -(s.end_lineno or s.lineno)))  # outermost first
    return _statement_check(chain, line)


def _reached_check(excinfo: pytest.ExceptionInfo[BaseException], item_path: Path | None) -> str | None:
    """Whether the exception surfaced while a test-file frame was checking, and how."""
    if item_path is None:
        return None
    test_file = os.path.abspath(str(item_path))
    for entry in excinfo.traceback:
        if os.path.abspath(str(entry.path)) != test_file:
            continue
        found = check_at(test_file, entry.lineno + 1)  # TracebackEntry.lineno is 0-based
        if found is not None:
            return found
    return None


def _failure_from_excinfo(
    excinfo: pytest.ExceptionInfo[BaseException], when: str, item_path: Path | None
) -> dict[str, Any]:
    exc = excinfo.value
    if when != "call" or _in_unittest_fixture(excinfo):
        kind = "setup-error"
    else:
        kind = classify_exception(exc)
    return {
        "failure_kind": kind,
        "exception_type": _exception_type(exc),
        "message": _short_message(str(exc)) or _exception_type(exc),
        "crossed_files": _crossed_files(excinfo, item_path),
        "check": _reached_check(excinfo, item_path) if kind != "setup-error" else None,
    }


def _frames_files(traceback: Any) -> list[str]:
    """Absolute source files of a raw traceback's frames, outermost first, without pytest's own."""
    files: list[str] = []
    while traceback is not None:
        raw = traceback.tb_frame.f_code.co_filename
        traceback = traceback.tb_next
        if raw.startswith("<"):  # <frozen importlib._bootstrap>, <string>
            continue
        path = os.path.abspath(raw)
        if not path.startswith(_INTERNAL_DIRS) and path not in files:
            files.append(path)
    return files


def _collection_failure(report: pytest.CollectReport, excinfo: Any) -> dict[str, Any]:
    exception_type = None
    message = ""
    crossed: list[str] = []
    if excinfo is not None:
        exc = excinfo.value
        cause = exc.__cause__ if isinstance(exc, pytest.Collector.CollectError) else None
        shown = cause if cause is not None else exc
        exception_type = _exception_type(shown)
        message = _short_message(str(shown))
        crossed = _frames_files(shown.__traceback__)  # a module that crashed while importing shows here
    if not message:
        # The longrepr ends with "E   ModuleNotFoundError: No module named 'x'" lines.
        text = str(report.longrepr or "")
        for line in reversed(text.splitlines()):
            found = re.match(r"^E\s+([A-Za-z_][\w.]*(?:Error|Exception)):\s*(.*)$", line)
            if found:
                exception_type = exception_type or found.group(1)
                message = _short_message(found.group(2))
                break
        else:
            message = _short_message(text.splitlines()[-1] if text.strip() else "collection failed")
    return {
        "nodeid": report.nodeid or ".",
        "outcome": "error",
        "duration": 0.0,
        "failure_kind": "collection-error",
        "crossed_files": crossed,
        "exception_type": exception_type,
        "message": message,
        "check": None,
    }
