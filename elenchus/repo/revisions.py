"""Resolve Base and Head, and narrate how each was chosen (SPEC 4).

Uncommitted changes make the working tree the Head and ``HEAD`` the Base;
otherwise Head is ``HEAD`` and Base the merge-base with the default branch, or
``HEAD~1``. ``--base``/``--head`` override either.
"""

from __future__ import annotations

from dataclasses import dataclass

from elenchus.errors import EmptyDiff, SnapshotUnavailable
from elenchus.repo.git import Repository, zsplit
from elenchus.repo.snapshot import WORKTREE


@dataclass(frozen=True, slots=True)
class Revisions:
    base_rev: str
    base_sha: str | None  # None: the Base is not in the local object store (a shallow clone)
    head_rev: str  # WORKTREE for the working tree
    head_sha: str | None  # None for the working tree
    narration: tuple[str, str]

    @property
    def head_is_worktree(self) -> bool:
        return self.head_sha is None


def uncommitted_summary(repo: Repository) -> tuple[int, int]:
    """(changed tracked files, untracked files that git does not ignore)."""
    tracked = zsplit(repo.run("diff", "-z", "--name-only", "HEAD").stdout) if repo.try_resolve("HEAD") else []
    untracked = zsplit(repo.run("ls-files", "-z", "--others", "--exclude-standard").stdout)
    return len(tracked), len(untracked)


def _default_branch(repo: Repository) -> str | None:
    remote_head = repo.run("rev-parse", "--abbrev-ref", "--verify", "--quiet", "origin/HEAD", check=False)
    if remote_head.returncode == 0 and remote_head.stdout.strip():
        return remote_head.stdout.decode().strip()
    for name in ("main", "master", "trunk", "develop"):
        if repo.try_resolve(f"refs/heads/{name}"):
            return name
    return None


def _short(sha: str) -> str:
    return sha[:10]


def resolve_revisions(repo: Repository, base: str | None = None, head: str | None = None,
                      missing_base_ok: bool = False) -> Revisions:
    """``missing_base_ok``: a Base outside the local object store yields ``base_sha`` None
    instead of stopping, so the current suite can still be evaluated."""
    if repo.try_resolve("HEAD") is None:
        raise EmptyDiff(
            f"nothing to compare: {repo.root} has no commits yet; commit a Base first, "
            "or use `--scope target` to evaluate the tests you have"
        )
    if head is not None and head.upper() != WORKTREE:
        head_sha = repo.resolve(head)
        head_line = f"Head: {head} ({_short(head_sha)}), as given by --head."
        head_rev: str = head
        worktree = False
    else:
        changed, untracked = (0, 0) if head is not None else uncommitted_summary(repo)
        worktree = head is not None or changed + untracked > 0
        if worktree:
            head_sha, head_rev = None, WORKTREE
            head_line = ("Head: the working tree, as given by --head." if head is not None else
                         f"Head: the working tree ({changed} changed tracked file(s), "
                         f"{untracked} untracked file(s) not ignored by git).")
        else:
            head_sha = repo.resolve("HEAD")
            head_rev = "HEAD"
            head_line = f"Head: HEAD ({_short(head_sha)}), since the working tree has no uncommitted changes."
    try:
        if base is not None:
            base_sha: str | None = repo.resolve(base)
            base_line = f"Base: {base} ({_short(base_sha)}), as given by --base."
        elif worktree:
            base_sha = repo.resolve("HEAD")
            base = "HEAD"
            base_line = f"Base: HEAD ({_short(base_sha)}), the last commit under the uncommitted changes."
        else:
            base, base_sha, base_line = _committed_base(repo, head_sha, head_rev)
    except SnapshotUnavailable as error:
        if not missing_base_ok:
            raise
        base = base or "HEAD~1"
        base_sha = None
        base_line = (f"Base: {base} is unavailable ({error.message.rstrip('.')}); every file counts as changed and "
                     "the incremental comparison is blocked.")
    return Revisions(base, base_sha, head_rev, head_sha, (base_line, head_line))


def _committed_base(repo: Repository, head_sha: str, head_rev: str) -> tuple[str, str, str]:
    branch = _default_branch(repo)
    if branch is not None:
        done = repo.run("merge-base", head_sha, branch, check=False)
        merge_base = done.stdout.decode().strip()
        if done.returncode == 0 and merge_base and merge_base != head_sha:
            return merge_base, merge_base, (
                f"Base: {_short(merge_base)}, the merge-base of HEAD with the default branch '{branch}'.")
    parent = repo.try_resolve(f"{head_sha}~1")
    if parent is None:
        if repo.shallow:  # the parent was not fetched: the cause and the fix, not "first commit"
            raise repo.unavailable(f"{head_rev}~1")
        raise EmptyDiff(
            "nothing to compare: HEAD is the repository's first commit and the working tree is clean; "
            "pass --base REV, or use `--scope target`"
        )
    why = (f"HEAD is on the default branch '{branch}'" if branch else "no default branch was found")
    return "HEAD~1", parent, f"Base: HEAD~1 ({_short(parent)}), since {why}."
