"""The one gateway to git. Read-only by construction.

Every git process Elenchus starts is built here: only the allowlisted
subcommands, always ``git --no-pager``, ``--no-ext-diff --no-textconv`` on the
commands that could run a repository-configured program, ``GIT_OPTIONAL_LOCKS=0``
so nothing refreshes the index, and no inherited ``GIT_*`` variable that could
point the call at another repository. A refused subcommand raises before any
process starts.

Objects (trees, blobs, commits) are read through gitdb, GitPython's pure-Python
object database: it opens files under ``.git/objects`` and writes nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from elenchus.errors import (
    GitCallRefused,
    GitFailed,
    NotAGitRepository,
    SnapshotUnavailable,
    UnknownRevision,
)

ALLOWED_SUBCOMMANDS = frozenset({"diff", "show", "log", "rev-parse", "merge-base", "ls-files"})
_NO_EXTERNAL_PROGRAMS = frozenset({"diff", "show", "log"})
_READS_THE_WORKTREE = frozenset({"diff"})
# Global options that keep a read from starting repository-configured programs.
_GLOBAL_OPTIONS = ("--no-pager", "-c", "core.fsmonitor=false", "-c", "core.quotePath=false")


def git_argv(subcommand: str, *args: str) -> list[str]:
    """Build the argv for an allowlisted call, or refuse before anything runs."""
    if subcommand not in ALLOWED_SUBCOMMANDS:
        raise GitCallRefused(
            f"refused git subcommand '{subcommand}': Elenchus only runs the read-only "
            f"subcommands {', '.join(sorted(ALLOWED_SUBCOMMANDS))}"
        )
    argv = ["git", *_GLOBAL_OPTIONS, subcommand]
    if subcommand in _NO_EXTERNAL_PROGRAMS:
        argv += ["--no-ext-diff", "--no-textconv"]
    return argv + list(args)


def scrubbed_env() -> dict[str, str]:
    """The caller's environment without GIT_* redirections, with optional locks off."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C", LANG="C")
    return env


def zsplit(data: bytes) -> list[str]:
    """Split NUL-terminated git output into paths."""
    return [part.decode("utf-8", "surrogateescape") for part in data.split(b"\0") if part]


@dataclass(frozen=True, slots=True)
class TreeEntry:
    path: str  # relative, '/'-separated
    mode: int  # git mode: 0o100644, 0o100755, 0o120000 (symlink), 0o160000 (submodule)
    sha: str


class Repository:
    """A git repository opened for reading."""

    def __init__(self, path: Path | str) -> None:
        start = Path(path).resolve()
        if not start.is_dir():
            raise NotAGitRepository(
                f"not a git repository: '{start}' is not a directory; pass --repo with the path "
                "of a git checkout"
            )
        probe = subprocess.run(
            git_argv("rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir",
                     "--is-shallow-repository"),
            cwd=start, env=scrubbed_env(), capture_output=True,
        )
        if probe.returncode != 0:
            raise NotAGitRepository(
                f"not a git repository: '{start}' (git said: "
                f"{probe.stderr.decode(errors='replace').strip()}); run Elenchus inside a git "
                "checkout or pass --repo PATH"
            )
        lines = probe.stdout.decode().splitlines()
        self.root = Path(lines[0])
        self.git_dir = (start / lines[1]).resolve()
        self.common_dir = (start / lines[2]).resolve()
        self.shallow = lines[3].strip() == "true"
        self._odb = None

    # -- processes -----------------------------------------------------------

    def run(self, subcommand: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        argv = git_argv(subcommand, *args)
        env = scrubbed_env()
        with tempfile.TemporaryDirectory(prefix="elenchus-index-") as private:
            if subcommand in _READS_THE_WORKTREE and (self.git_dir / "index").is_file():
                # `git diff` against the working tree rewrites the index whenever its cached file
                # times are stale (a fresh copy, a restored backup), GIT_OPTIONAL_LOCKS or not.
                # It gets a private copy to refresh; the user's index is only read.
                shutil.copyfile(self.git_dir / "index", Path(private) / "index")
                env["GIT_INDEX_FILE"] = str(Path(private) / "index")
            done = subprocess.run(argv, cwd=self.root, env=env, capture_output=True)
        if check and done.returncode != 0:
            raise GitFailed(
                f"git {subcommand} failed with exit {done.returncode}: "
                f"{done.stderr.decode(errors='replace').strip()}",
                tuple(argv), done.returncode, done.stderr.decode(errors="replace"),
            )
        return done

    def text(self, subcommand: str, *args: str) -> str:
        return self.run(subcommand, *args).stdout.decode("utf-8", "surrogateescape")

    # -- revisions -----------------------------------------------------------

    def resolve(self, rev: str) -> str:
        """The full commit SHA of ``rev``, or a one-line error with the fix."""
        if rev.startswith("-"):
            raise UnknownRevision(f"unknown revision '{rev}': a revision cannot start with '-'")
        done = self.run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}",
                        check=False)
        if done.returncode != 0:
            if self.shallow:
                ancestor = re.match(r"(.+?)[~^]", rev)  # HEAD~3, main^: an ancestor of a commit that is here
                raise self.unavailable(rev, certain=bool(ancestor and self.try_resolve(ancestor.group(1))))
            raise UnknownRevision(
                f"unknown revision '{rev}': git cannot resolve it to a commit in {self.root}; "
                "check the name with `git log --oneline` or pass a full SHA"
            )
        return done.stdout.decode().strip()

    def unavailable(self, rev: str, certain: bool = True) -> SnapshotUnavailable:
        """The error for a revision whose objects are not here, with the cause and the fix when it is
        that this is a shallow clone (common in CI, where a checkout fetches one commit by default).
        ``certain``: ``rev`` surely exists upstream (an ancestor of a commit that is here), rather than a
        name that may be misspelled."""
        message = f"snapshot unavailable: {rev} is not in the local object store; fetching it would need a network call"
        if not self.shallow:
            return SnapshotUnavailable(message)
        missing = f"{rev} is not among them" if certain else (
            f"{rev} is not among them (or is not a name git knows: check it with `git log --oneline --all`)")
        return SnapshotUnavailable(
            f"{message}, and Elenchus never fetches. The cause: {self.root} is a shallow clone, which holds only "
            f"the most recent commits of its history (`git rev-parse --is-shallow-repository` says true), and "
            f"{missing}. The fix: fetch more history, then rerun: `git fetch --deepen N` (N more commits, enough "
            "to reach it) or `git fetch --unshallow` (all of it); in GitHub Actions, give actions/checkout "
            "`fetch-depth: 0`."
        )

    def try_resolve(self, rev: str) -> str | None:
        done = self.run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}",
                        check=False)
        return done.stdout.decode().strip() if done.returncode == 0 else None

    # -- objects -------------------------------------------------------------

    def _objects(self):
        if self._odb is None:
            from gitdb import GitDB  # pure Python; never starts a process

            self._odb = GitDB(str(self.common_dir / "objects"))
        return self._odb

    def read_object(self, sha: str, rev_for_errors: str | None = None) -> tuple[str, bytes]:
        from gitdb.exc import BadObject, BadName

        try:
            stream = self._objects().stream(bytes.fromhex(sha))
        except (BadObject, BadName, ValueError, OSError):
            raise self.unavailable(rev_for_errors or sha) from None
        kind = stream.type.decode() if isinstance(stream.type, bytes) else stream.type
        return kind, stream.read()

    def tree_of(self, commit_sha: str, rev_for_errors: str | None = None) -> str:
        kind, data = self.read_object(commit_sha, rev_for_errors)
        if kind != "commit":
            raise UnknownRevision(f"'{commit_sha}' is a {kind}, not a commit")
        first = data.split(b"\n", 1)[0]
        return first.split(b" ", 1)[1].decode()

    def walk_tree(self, tree_sha: str, rev_for_errors: str, prefix: str = "") -> Iterator[TreeEntry]:
        """Every non-tree entry below ``tree_sha``, depth first, sorted as git stores them."""
        _, data = self.read_object(tree_sha, rev_for_errors)
        pos = 0
        while pos < len(data):
            space = data.index(b" ", pos)
            nul = data.index(b"\0", space)
            mode = int(data[pos:space], 8)
            name = data[space + 1:nul].decode("utf-8", "surrogateescape")
            sha = data[nul + 1:nul + 21].hex()
            pos = nul + 21
            path = f"{prefix}{name}"
            if mode == 0o040000:
                yield from self.walk_tree(sha, rev_for_errors, path + "/")
            else:
                yield TreeEntry(path, mode, sha)
