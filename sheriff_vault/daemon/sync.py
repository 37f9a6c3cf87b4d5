"""`vault sync`: share a vault through a git remote. Commit a person's pending topic edits, fetch,
merge (topic files through the topic merge driver), push, and bring this machine's index up to date.

Never a force push: when the remote moved on meanwhile, the push is refused and a second sync
merges it. A real conflict is left as a normal git merge for the person (`vault doctor` points at
it); nothing is pushed until it is resolved. Uncommitted edits to other files are stashed around
the merge by git (`--autostash`) and put back, so they are never lost.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sheriff_vault.daemon.client import reconcile
from sheriff_vault.errors import SyncError, VaultError
from sheriff_vault.store import gitlog, topicmerge

if TYPE_CHECKING:
    from pathlib import Path

    from sheriff_vault.store.vault import Vault

# An HTTP status is read only as git reports it ("The requested URL returned error: 403"): a bare
# "401" also turns up in a path or a host name, which says nothing about credentials.
_AUTH = ("authentication failed", "permission denied", "could not read username", "could not read password",
         "returned error: 403", "returned error: 401", "terminal prompts disabled", "host key verification failed")
_UNREACHABLE = ("does not appear to be a git repository", "could not read from remote repository",
                "repository not found", "unable to access", "could not resolve host", "no such file or directory",
                "connection refused", "connection timed out")


@dataclass
class SyncResult:
    remote: str
    branch: str
    edit_commit: str | None = None
    edited: list[str] = field(default_factory=list)
    merge: str = "up to date"  # up to date | fast-forward | merged | nothing on the remote yet
    head_before: str | None = None
    head: str | None = None
    pushed: bool = False
    changed: list[str] = field(default_factory=list)
    index: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"remote": self.remote, "branch": self.branch, "edit_commit": self.edit_commit, "edited": self.edited,
                "merge": self.merge, "head_before": self.head_before, "head": self.head, "pushed": self.pushed,
                "changed": self.changed, "index": self.index, "notes": self.notes}

    def describe(self) -> str:
        lines = []
        if self.edit_commit:
            lines.append(f"committed your edits to {len(self.edited)} topic(s) ({self.edit_commit[:8]}): "
                         + ", ".join(self.edited))
        got = [p for p in self.changed if p.startswith("topics/")]
        if self.merge == "nothing on the remote yet":
            lines.append(f"{self.remote}/{self.branch} did not exist yet")
        else:
            lines.append(f"{self.merge} with {self.remote}/{self.branch}"
                         + (f": {len(got)} topic file(s) changed" if got else ""))
        lines.append(f"pushed to {self.remote}/{self.branch} (now {(self.head or '')[:8]})" if self.pushed
                     else f"{self.remote}/{self.branch} already had everything")
        return "\n".join(lines)


def sync(vault: Vault, remote: str | None = None, *, log: Callable[[str], None] | None = None) -> SyncResult:
    """Commit pending edits, fetch, merge, push, reindex. Raises SyncError with what to do next."""
    root = vault.root
    with vault.lock(timeout=120):
        remote, branch = _where(vault, remote)
        result = SyncResult(remote, branch, head_before=gitlog.head(root))
        _commit_edits(vault, result)
        _fetch(vault, remote)
        _merge(vault, remote, branch, result)
        _push(vault, remote, branch, result)
        result.head = gitlog.head(root)
        if result.head_before and result.head and result.head_before != result.head:
            result.changed = gitlog.diff_names(root, result.head_before, result.head)
    result.index = reconcile(vault, result.head_before, log=log)
    return result


def _where(vault: Vault, remote: str | None) -> tuple[str, str]:
    root = vault.root
    if gitlog.merge_in_progress(root):
        raise SyncError("a merge is still in progress (it left conflicts)",
                        hint="fix the files `vault doctor` lists, `git add` them and `git commit` "
                             "(or `git merge --abort`), then run `vault sync` again")
    branch = gitlog.current_branch(root)
    if branch is None:
        raise SyncError("HEAD is detached (no branch is checked out), so there is nothing to sync",
                        hint="`git switch main` (or the branch you share), then run `vault sync` again")
    if gitlog.head(root) is None:
        raise SyncError("the vault has no commits yet", hint="run `vault init` first")
    known = gitlog.remotes(root)
    tracked = gitlog.upstream(root)
    name = remote or (tracked[0] if tracked else ("origin" if "origin" in known else None))
    if name is None:
        raise SyncError("this vault has no git remote to sync with",
                        hint="add one with `git remote add origin URL` (a bare repository anyone can reach), "
                             "or pass the remote: `vault sync NAME`")
    if name not in known:
        listing = ", ".join(known) if known else "none"
        raise SyncError(f"no remote named {name!r} (remotes: {listing})",
                        hint=f"add it with `git remote add {name} URL`, or name one of the others")
    return name, (tracked[1] if tracked and tracked[0] == name else branch)


def _commit_edits(vault: Vault, result: SyncResult) -> None:
    """A person's uncommitted changes to topics become one `edit:` commit naming them; the merge
    driver's registration is refreshed too (a fresh clone has .gitattributes but not the config)."""
    root = vault.root
    paths = []
    if topicmerge.install(root, sys.executable):
        paths.append(".gitattributes")
    for rel in gitlog.dirty_paths(root):
        if rel.startswith("topics/") and rel.endswith(".md") and rel not in paths:
            paths.append(rel)
    topics = [p for p in paths if p.startswith("topics/")]
    if not paths:
        return
    names = []
    for rel in topics:
        try:
            names.append(vault.topics.load(root / rel).name)
        except (VaultError, OSError):
            names.append(rel.removeprefix("topics/").removesuffix(".md"))
    subject = "edit: " + (", ".join(names) if names else "register the topic merge driver")
    result.edit_commit = gitlog.commit_paths(root, subject[:200], paths)
    result.edited = names


def _explain(action: str, remote: str, err: str) -> SyncError:
    low = err.lower()
    last = err.strip().splitlines()[-1] if err.strip() else "no output"
    if any(k in low for k in _AUTH):
        return SyncError(f"{remote} refused to authenticate this machine while trying to {action}: {last}",
                         hint="check your SSH key or credential helper (`git ls-remote " + remote + "` shows the "
                              "same error), then run `vault sync` again")
    if any(k in low for k in _UNREACHABLE):
        return SyncError(f"cannot reach remote {remote!r} to {action}: {last}",
                         hint=f"check its URL (`git remote get-url {remote}`) and the network; "
                              "your commits are safe here, run `vault sync` again later")
    return SyncError(f"`git {action}` with {remote} failed: {last}", hint="nothing was lost; run `vault sync` again")


def _fetch(vault: Vault, remote: str) -> None:
    args = ["fetch", "--quiet", "--tags", remote]
    if gitlog.is_shallow(vault.root):
        args.insert(2, "--unshallow")  # a merge needs the common ancestor
    code, _, err = gitlog.try_run(vault.root, *args, env=_no_prompt())
    if code != 0:
        raise _explain("fetch", remote, err)


def _merge(vault: Vault, remote: str, branch: str, result: SyncResult) -> None:
    root = vault.root
    theirs = gitlog.resolve(root, f"refs/remotes/{remote}/{branch}")
    if theirs is None:
        result.merge = "nothing on the remote yet"
        return
    env = gitlog.identity_env(root)
    code, out, err = gitlog.try_run(root, "merge", "--no-edit", "--autostash", "-m",
                                    f"sync: merge {remote}/{branch}", theirs, env=env)
    text = out + err
    if code == 0:
        result.merge = ("up to date" if "Already up to date" in text
                        else "fast-forward" if "Fast-forward" in text else "merged")
        if "Applied autostash" in text:
            result.notes.append("your uncommitted changes to other files were kept")
        if "safe in the stash" in text:
            _unapply_stash(root)
            result.notes.append("your uncommitted changes clashed with the merge; they are safe in `git stash list` "
                                "(take them back with `git stash pop`)")
        return
    conflicted = gitlog.unmerged_paths(root)
    if conflicted:
        raise SyncError(f"merging {remote}/{branch} left {len(conflicted)} conflict(s) for you: "
                        + ", ".join(conflicted),
                        hint="`vault doctor` shows each marked line; keep the right text, delete the markers, "
                             "`git add` the files and `git commit`, then run `vault sync` again to push")
    last = err.strip().splitlines()[-1] if err.strip() else out.strip().splitlines()[-1] if out.strip() else ""
    raise SyncError(f"could not merge {remote}/{branch}: {last}",
                    hint="nothing was lost: your commits and files are as they were; fix that, then `vault sync`")


def _unapply_stash(root: Path) -> None:
    """git applied the autostash with conflict markers and kept it in the stash: put the files it
    touched back as the merge left them, so the vault reads cleanly and `git stash pop` brings the
    person's edits back whole (nothing is lost: the stash holds them)."""
    code, out, _ = gitlog.try_run(root, "stash", "show", "--name-only", "--no-renames", "stash@{0}")
    paths = [p for p in out.splitlines() if p.strip()] if code == 0 else []
    if paths:
        gitlog.try_run(root, "reset", "--quiet", "--", *paths)
        gitlog.try_run(root, "checkout", "HEAD", "--", *paths)


def _push(vault: Vault, remote: str, branch: str, result: SyncResult) -> None:
    root = vault.root
    theirs = gitlog.resolve(root, f"refs/remotes/{remote}/{branch}")
    if theirs is not None and theirs == gitlog.head(root):
        return
    args = ["push", "--porcelain", "--follow-tags"]
    if gitlog.upstream(root) is None:
        args.append("--set-upstream")
    code, out, err = gitlog.try_run(root, *args, remote, f"HEAD:refs/heads/{branch}", env=_no_prompt())
    if code != 0:
        said = out + err
        if "[remote rejected]" in said:
            reason = next((line.split("[remote rejected]", 1)[1].strip() for line in said.splitlines()
                           if "[remote rejected]" in line), "")
            raise SyncError(f"{remote} refused the push: {reason.strip('()') or 'no reason given'}",
                            hint=f"your commits are safe here; check the remote (`git remote get-url {remote}`) "
                                 "or ask whoever runs it, then run `vault sync` again")
        if "[rejected]" in said or "non-fast-forward" in said or "fetch first" in said:
            raise SyncError(f"{remote} refused the push: it has commits this machine has not merged yet "
                            "(another machine pushed while this one synced)",
                            hint="run `vault sync` again; it merges them first (a force push is never used)")
        raise _explain("push", remote, err)
    result.pushed = True


def _no_prompt() -> dict[str, str]:
    """Never hang on a password prompt: fail and say so instead."""
    import os

    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_SSH_COMMAND": os.environ.get(
        "GIT_SSH_COMMAND", "ssh -o BatchMode=yes")}
