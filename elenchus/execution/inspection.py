"""Inspect what a test run would execute before running it (SPEC 2).

Running a repository's tests runs the repository's code. Before the first run,
the conftest files and the selected test files are
read (never executed) for destructive file operations, network use and
credential access. A finding blocks the run unless the user authorized
that exact command with ``--allow-command``. Repository content is evidence:
a comment saying "this is safe" authorizes nothing.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from elenchus.records import ResultCache

NETWORK_MODULES = frozenset({"socket", "requests", "httpx", "urllib.request", "http.client", "smtplib",
                             "ftplib", "paramiko", "boto3", "botocore", "aiohttp", "websocket", "websockets"})
CREDENTIAL_MODULES = frozenset({"keyring", "netrc"})
DESTRUCTIVE_CALLS = frozenset({"shutil.rmtree", "os.remove", "os.unlink", "os.rmdir", "os.removedirs"})
SHELL_CALLS = frozenset({"os.system", "os.popen", "subprocess.run", "subprocess.call", "subprocess.check_call",
                         "subprocess.check_output", "subprocess.Popen"})
DANGEROUS_SHELL = re.compile(r"\b(rm\s+-[a-zA-Z]*[rf]|sudo|curl|wget|ssh|scp|git\s+(push|fetch|pull|clone)"
                              r"|pip\s+install|npm\s+(install|publish)|twine|aws\s|gcloud|kubectl|docker)\b")
_CREDENTIAL_PATHS = re.compile(r"(\.ssh|\.aws|\.netrc|\.pypirc|\.gnupg|id_rsa|id_ed25519|\.git-credentials"
                               r"|\.docker/config|\.kube/config)")
_REMOTE_URL = re.compile(r"^(https?|ftp|wss?)://(?!(localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0|example\.)).+")
_HOME_OR_ROOT = re.compile(r"^(/|~)")


@dataclass(frozen=True, slots=True)
class Finding:
    path: str
    line: int
    concern: str  # destructive | network | credentials
    detail: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.concern}: {self.detail}"


class _Scanner(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, path: str, is_conftest: bool) -> None:
        self.path = path
        self.is_conftest = is_conftest
        self.findings: list[Finding] = []
        self.network_import: int | None = None
        self.remote_urls: list[int] = []

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _add(self, node: cst.CSTNode, concern: str, detail: str) -> None:
        self.findings.append(Finding(self.path, self._line(node), concern, detail))

    def _imported(self, node: cst.CSTNode, name: str) -> None:
        top = name.split(".")[0]
        if name in NETWORK_MODULES or top in {"requests", "httpx", "paramiko", "boto3", "aiohttp"}:
            if self.network_import is None:
                self.network_import = self._line(node)
            if self.is_conftest:
                self._add(node, "network", f"the shared test setup imports `{name}`")
        if name in CREDENTIAL_MODULES:
            self._add(node, "credentials", f"imports `{name}`, which reads stored credentials")

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self._imported(node, cst.helpers.get_full_name_for_node(alias.name) or "")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None and not node.relative:
            self._imported(node, cst.helpers.get_full_name_for_node(node.module) or "")

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        try:
            value = node.evaluated_value
        except Exception:  # bytes with odd escapes: not a path or URL we can judge
            return
        if not isinstance(value, str):
            return
        if _CREDENTIAL_PATHS.search(value):
            self._add(node, "credentials", f"refers to a credential location {value!r}")
        if _REMOTE_URL.match(value):
            self.remote_urls.append(self._line(node))

    def visit_Call(self, node: cst.Call) -> None:
        name = cst.helpers.get_full_name_for_node(node.func) or ""
        literals = [a.value for a in node.args if isinstance(a.value, cst.SimpleString)]
        texts = []
        for literal in literals:
            try:
                value = literal.evaluated_value
            except Exception:
                continue
            if isinstance(value, str):
                texts.append(value)
        if name in DESTRUCTIVE_CALLS and any(_HOME_OR_ROOT.match(t) for t in texts):
            self._add(node, "destructive", f"`{name}` on an absolute or home path {texts[0]!r}")
        if name in SHELL_CALLS:
            joined = " ".join(texts)
            for element in node.args:
                if isinstance(element.value, cst.List):
                    joined += " " + " ".join(
                        e.value.evaluated_value for e in element.value.elements
                        if isinstance(e.value, cst.SimpleString) and isinstance(e.value.evaluated_value, str))
            if DANGEROUS_SHELL.search(joined):
                self._add(node, "destructive", f"`{name}` runs {joined.strip()!r}")


@functools.lru_cache(maxsize=256)
def scan_source(path: str, source: str) -> tuple[Finding, ...]:
    """Findings in one file (kept: the two cohorts share most of their test files)."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    except cst.ParserSyntaxError:
        return ()
    scanner = _Scanner(path, Path(path).name == "conftest.py")
    wrapper.visit(scanner)
    findings = list(scanner.findings)
    if scanner.network_import is not None and scanner.remote_urls and not scanner.is_conftest:
        findings.append(Finding(path, scanner.remote_urls[0], "network",
                                "imports a network client and names a remote address"))
    return tuple(findings)


def inspect_tree(root: Path, tests: tuple[str, ...], store: ResultCache | None = None) -> tuple[Finding, ...]:
    """Findings in the conftest files and the selected test files of ``root``. ``store``: where the findings
    of the same texts are remembered (reading them is pure; a push that leaves them alone reads nothing)."""
    paths = sorted({p.relative_to(root).as_posix() for p in root.rglob("conftest.py")} | set(tests))
    texts = [(relative, (root / relative).read_text(errors="replace")) for relative in paths
             if (root / relative).is_file()]

    def scanned() -> tuple[Finding, ...]:
        findings = [finding for relative, text in texts for finding in scan_source(relative, text)]
        return tuple(sorted(set(findings), key=lambda f: (f.path, f.line, f.concern, f.detail)))

    if store is None:
        return scanned()
    return store.memo("inspection", texts, scanned, lambda found: [asdict(f) for f in found],
                      lambda stored: tuple(Finding(**f) for f in stored))


# --------------------------------------------------------------------------- clearance without a sandbox

#: Modules that give code the machine (files, processes, the network, the interpreter itself): a test file or
#: conftest that imports one, or calls a builtin that reaches as far, cannot be cleared by reading it.
CAPABLE_MODULES = frozenset({"os", "shutil", "subprocess", "pathlib", "socket", "ctypes", "importlib", "glob",
                             "tempfile", "multiprocessing", "pty", "signal", "sys", "builtins", "io", "fcntl",
                             "mmap", "asyncio", "ftplib", "http", "urllib", "smtplib", "requests", "httpx",
                             "paramiko", "boto3", "botocore", "aiohttp", "keyring", "netrc", "zipfile",
                             "tarfile", "sqlite3", "dbm", "shelve", "pickle", "marshal", "runpy", "code",
                             "webbrowser", "platform", "resource", "threading", "concurrent", "sched",
                             "atexit", "posix", "nt", "gc", "inspect"})
CAPABLE_BUILTINS = frozenset({"open", "exec", "eval", "compile", "__import__", "getattr", "setattr", "delattr",
                              "globals", "locals", "vars", "breakpoint", "input", "memoryview"})


def uncleared(root: Path, tests: tuple[str, ...]) -> tuple[str, ...]:
    """Why the conftest files and selected tests of ``root`` cannot be cleared by reading them: each place that
    imports a module or calls a builtin that reaches files, processes or the network ("path:line: what").
    Static inspection recognises only some spellings of what such code does (``os.remove`` is seen, a name
    built at run time is not), so without a sandbox only code that reaches none of them runs unasked."""
    paths = sorted({p.relative_to(root).as_posix() for p in root.rglob("conftest.py")} | set(tests))
    found: list[str] = []
    for relative in paths:
        target = root / relative
        if not target.is_file():
            continue
        try:
            tree = ast.parse(target.read_bytes())
        except (SyntaxError, ValueError):
            found.append(f"{relative}: it does not parse, so it cannot be read")
            continue
        here: list[tuple[int, str]] = []
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            capable = [n for n in names if n.split(".")[0] in CAPABLE_MODULES]
            if capable:
                here.append((node.lineno, f"imports {capable[0]}"))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CAPABLE_BUILTINS:
                here.append((node.lineno, f"calls {node.func.id}()"))
        found += [f"{relative}:{line}: {what}" for line, what in sorted(here)]
    return tuple(found)
