"""The vault's git history: the only module that imports GitPython.

Every call runs a `git` command through GitPython's command wrapper and closes the repository
afterwards, so a long-lived daemon never accumulates `git cat-file` processes.
"""
from __future__ import annotations

import datetime as dt
import os
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sheriff_vault.errors import GitError

if TYPE_CHECKING:
    import git

FALLBACK_NAME = "Sheriff Vault"
FALLBACK_EMAIL = "vault@localhost"
_SEP = "\x1f"
_REC = "\x1e"


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    at: dt.datetime
    subject: str
    body: str = ""

    def to_json(self) -> dict:
        return {"sha": self.sha, "at": self.at.strftime("%Y-%m-%dT%H:%M:%SZ"), "subject": self.subject,
                "body": self.body}


@contextmanager
def _repo(root: Path) -> Iterator[git.Repo]:
    import git

    try:
        repo = git.Repo(root)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise GitError("not a git repository", path=root, hint="run `vault init` there") from None
    try:
        yield repo
    finally:
        repo.close()


def _run(root: Path, *args: str, retries: int = 8, env: dict | None = None) -> str:
    """Run one git command, waiting with backoff while another process holds index.lock."""
    import git

    delay = 0.05
    for attempt in range(retries + 1):
        with _repo(root) as repo:
            try:
                return repo.git.execute(["git", *args], env=env, strip_newline_in_stdout=False)
            except git.GitCommandError as exc:
                err = (exc.stderr or "").strip()
                if "index.lock" in err and attempt < retries:
                    time.sleep(delay + random.random() * delay)
                    delay = min(delay * 2, 1.0)
                    continue
                if "index.lock" in err:
                    raise GitError(
                        "git's index is locked by another git process",
                        path=Path(root) / ".git" / "index.lock",
                        hint="wait for it to finish; if no git process runs, delete that file",
                    ) from None
                raise GitError(f"`git {args[0]}` failed: {err.splitlines()[-1] if err else exc}", path=root) from None
    raise AssertionError("unreachable")


def is_repo(root: Path) -> bool:
    return (Path(root) / ".git").exists()


def init(root: Path) -> None:
    import git

    try:
        git.Repo.init(root, mkdir=True, initial_branch="main").close()
    except git.GitCommandError as exc:
        raise GitError(f"`git init` failed: {exc.stderr.strip()}", path=root) from None


def hooks_dir(root: Path) -> Path:
    out = _run(root, "rev-parse", "--git-path", "hooks").strip()
    path = Path(out)
    return path if path.is_absolute() else Path(root) / path


def _identity_env(root: Path) -> dict[str, str]:
    """Commit as the person when git knows them, else as Sheriff Vault (fresh CI machines know nobody)."""
    env = dict(os.environ)
    with _repo(root) as repo:
        reader = repo.config_reader()
        name = reader.get_value("user", "name", "") if reader.has_section("user") else ""
        email = reader.get_value("user", "email", "") if reader.has_section("user") else ""
    if not (name or env.get("GIT_AUTHOR_NAME")):
        env.setdefault("GIT_AUTHOR_NAME", FALLBACK_NAME)
        env.setdefault("GIT_COMMITTER_NAME", FALLBACK_NAME)
    if not (email or env.get("GIT_AUTHOR_EMAIL")):
        env.setdefault("GIT_AUTHOR_EMAIL", FALLBACK_EMAIL)
        env.setdefault("GIT_COMMITTER_EMAIL", FALLBACK_EMAIL)
    return env


def commit_identity(root: Path) -> str:
    """Who this process's commits name as author and committer ("Name <email>" twice, no time):
    a sleep run by the watch daemon must commit as the process that asked would have."""
    idents = []
    for var in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
        ident = _run(root, "var", var, env=_identity_env(root)).strip()
        idents.append(ident.rsplit(">", 1)[0] + ">")
    return "\n".join(idents)


def commit_paths(root: Path, message: str, paths: list[str], *, when: dt.datetime | None = None) -> str | None:
    """Stage exactly `paths` (additions, edits, deletions) and commit only them; None if nothing changed.

    A person's other staged work is left alone: `git commit -- paths` commits just these paths.
    """
    if not paths:
        return None
    _run(root, "add", "-A", "--", *paths)
    staged = _run(root, "diff", "--cached", "--name-only", "--", *paths).split()
    if not staged:
        return None
    env = _identity_env(root)
    if when is not None:
        stamp = when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")
        env["GIT_AUTHOR_DATE"] = stamp
        env["GIT_COMMITTER_DATE"] = stamp
    _run(root, "commit", "--quiet", "--no-verify", "-m", message, "--", *staged, env=env)
    return head(root)


def head(root: Path) -> str | None:
    try:
        return _run(root, "rev-parse", "--verify", "--quiet", "HEAD", retries=0).strip() or None
    except GitError:
        return None


def resolve(root: Path, ref: str) -> str | None:
    try:
        return _run(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", retries=0).strip() or None
    except GitError:
        return None


def commit_at_or_before(root: Path, when: dt.datetime) -> str | None:
    stamp = when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = _run(root, "rev-list", "-1", f"--before={stamp}", "HEAD").strip()
    return out or None


def count_commits(root: Path, base: str | None, tip: str) -> int:
    """How many commits `base..tip` holds (all of tip's history when base is None)."""
    return int(_run(root, "rev-list", "--count", f"{base}..{tip}" if base else tip, "--").strip() or 0)


def changed_paths(root: Path, sha: str) -> list[str]:
    out = _run(root, "diff-tree", "--no-commit-id", "--name-only", "-r", "--root", "-m", sha)
    return sorted(set(p for p in out.splitlines() if p))


def _parse_log(out: str) -> list[CommitInfo]:
    commits = []
    for rec in out.split(_REC):
        rec = rec.strip("\n")
        if not rec:
            continue
        sha, ts, subject, body = (rec.split(_SEP) + ["", "", "", ""])[:4]
        at = dt.datetime.fromtimestamp(int(ts), dt.UTC)
        commits.append(CommitInfo(sha, at, subject, body.strip()))
    return commits


_FMT = f"--format={_REC}%H{_SEP}%ct{_SEP}%s{_SEP}%b"


def log(root: Path, *paths: str, since: dt.datetime | None = None, until: dt.datetime | None = None,
        limit: int | None = None, follow: bool = False) -> list[CommitInfo]:
    """Commits newest first, optionally only those touching `paths` (`follow`: one path across its
    renames) or inside a time window."""
    if head(root) is None:
        return []
    args = ["log", _FMT, *(["--follow"] if follow else [])]
    if since:
        args.append(f"--since={since.astimezone(dt.UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}")
    if until:
        args.append(f"--until={until.astimezone(dt.UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}")
    if limit:
        args.append(f"-n{limit}")
    args.append("HEAD")
    if paths:
        args += ["--", *paths]
    return _parse_log(_run(root, *args))


def log_range(root: Path, base: str | None, tip: str) -> list[CommitInfo]:
    """Commits of `base..tip`, newest first (all of tip's history when base is None)."""
    return _parse_log(_run(root, "log", _FMT, f"{base}..{tip}" if base else tip))


def show_file(root: Path, sha: str, path: str) -> str | None:
    """A file's text as of a commit; None when it did not exist then."""
    try:
        return _run(root, "show", f"{sha}:{path}", retries=0)
    except GitError:
        return None


def object_type(root: Path, sha: str) -> str | None:
    """"commit", "blob", "tree" or "tag" for an object id (short ones too); None when unknown or ambiguous."""
    code, out, _ = try_run(root, "cat-file", "-t", sha)
    return out.strip() or None if code == 0 else None


def show_blob(root: Path, sha: str) -> str | None:
    """A stored file's text by its blob id (what `git hash-object` prints)."""
    code, out, _ = try_run(root, "cat-file", "blob", sha)
    return out if code == 0 else None


def short_sha(root: Path, sha: str) -> str:
    return _run(root, "rev-parse", "--short", sha).strip()


def list_files(root: Path, sha: str, prefix: str) -> list[str]:
    out = _run(root, "ls-tree", "-r", "--name-only", sha, "--", prefix)
    return [p for p in out.splitlines() if p]


def parent(root: Path, sha: str) -> str | None:
    return resolve(root, f"{sha}~1")


# A status only reads: without this git takes index.lock to refresh the index as it goes, and a
# background reindex after a merge would make the person's own git command fail on that lock.
_READ_ONLY = "--no-optional-locks"


def status_porcelain(root: Path) -> list[str]:
    return [line for line in _run(root, _READ_ONLY, "status", "--porcelain").splitlines() if line.strip()]


def log_stat(root: Path, limit: int = 20) -> str:
    return _run(root, "log", "--stat", f"-n{limit}", "--format=commit %h  %ad%n    %s%n", "--date=iso")


def staged_paths(root: Path) -> list[str]:
    return [p for p in _run(root, "diff", "--cached", "--name-only").splitlines() if p]


def unstage(root: Path, paths: list[str]) -> None:
    if head(root) is None:
        _run(root, "rm", "--cached", "--quiet", "-r", "--", *paths)
    else:
        _run(root, "reset", "--quiet", "HEAD", "--", *paths)


def restore(root: Path, paths: list[str]) -> None:
    """Put tracked files back to their content at HEAD (rolling back a half-done sleep)."""
    _run(root, "checkout", "HEAD", "--", *paths)


def merge_file(ours: str, base: str, theirs: str, *, labels: tuple[str, str, str] = ("ours", "base", "theirs"),
               diff3: bool = False, marker_size: int = 7) -> tuple[str, int]:
    """`git merge-file` on three texts (no repository needed): the merged text and how many
    conflicts it marked."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="vault-merge-") as tmp:
        names = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(tmp) / name
            path.write_text(text, encoding="utf-8")
            names.append(str(path))
        args = ["git", "merge-file", "-p", f"--marker-size={marker_size}"]
        args += ["--diff3"] if diff3 else []
        for label in labels:
            args += ["-L", label]
        out = subprocess.run([*args, *names], capture_output=True)
    if out.returncode < 0 or out.returncode > 127:
        raise GitError(f"`git merge-file` failed: {out.stderr.decode('utf-8', 'replace').strip()}")
    return out.stdout.decode("utf-8", "replace"), out.returncode


def set_config(root: Path, key: str, value: str) -> None:
    """Set one key in the repository's own config (.git/config), not the person's global one."""
    current = get_config(root, key)
    if current != value:
        _run(root, "config", "--local", key, value)


def get_config(root: Path, key: str) -> str | None:
    try:
        return _run(root, "config", "--local", "--get", key, retries=0).strip() or None
    except GitError:
        return None


def unmerged_paths(root: Path) -> list[str]:
    """Files a merge left in conflict (git's index holds more than one stage of them)."""
    if not is_repo(root):
        return []
    out = _run(root, "diff", "--name-only", "--diff-filter=U", retries=0)
    return sorted(set(p for p in out.splitlines() if p))


def try_run(root: Path, *args: str, env: dict | None = None) -> tuple[int, str, str]:
    """Run one git command and return (exit code, stdout, stderr) instead of raising: for commands
    whose failures the caller explains (fetch, merge, push)."""
    with _repo(root) as repo:
        status, out, err = repo.git.execute(["git", *args], env=env, with_extended_output=True,
                                            with_exceptions=False, strip_newline_in_stdout=False)
    return int(status or 0), str(out), str(err)


def current_branch(root: Path) -> str | None:
    """The checked-out branch; None on a detached HEAD."""
    code, out, _ = try_run(root, "symbolic-ref", "--quiet", "--short", "HEAD")
    return out.strip() or None if code == 0 else None


def remotes(root: Path) -> list[str]:
    return [r for r in _run(root, "remote").split() if r]


def upstream(root: Path) -> tuple[str, str] | None:
    """(remote, branch) the current branch tracks, if any."""
    code, out, _ = try_run(root, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}")
    if code != 0 or "/" not in out.strip():
        return None
    branch = current_branch(root)
    remote = _run(root, "config", "--get", f"branch.{branch}.remote").strip() if branch else ""
    merge = _run(root, "config", "--get", f"branch.{branch}.merge").strip() if branch else ""
    if not remote or not merge:
        return None
    return remote, merge.removeprefix("refs/heads/")


def is_shallow(root: Path) -> bool:
    return _run(root, "rev-parse", "--is-shallow-repository").strip() == "true"


def merge_in_progress(root: Path) -> bool:
    out = _run(root, "rev-parse", "--git-path", "MERGE_HEAD").strip()
    path = Path(out)
    return (path if path.is_absolute() else Path(root) / path).exists()


def identity_env(root: Path) -> dict[str, str]:
    """The environment for a command that makes commits (merge): the person, else Sheriff Vault."""
    return _identity_env(root)


def diff_names(root: Path, old: str, new: str) -> list[str]:
    out = _run(root, "diff", "--name-only", "--no-renames", f"{old}..{new}")  # a rename is a deletion too
    return sorted(set(p for p in out.splitlines() if p))


def tag(root: Path, name: str, sha: str, message: str, *, when: dt.datetime | None = None) -> None:
    """An annotated tag (so `git push --follow-tags` carries it to other machines)."""
    env = _identity_env(root)
    if when is not None:
        env["GIT_COMMITTER_DATE"] = when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")
    _run(root, "tag", "-a", name, sha, "-m", message, env=env)


def tags(root: Path, pattern: str) -> list[tuple[str, str]]:
    """(tag name, commit sha) for tags matching `pattern`, newest tag name first."""
    out = _run(root, "for-each-ref", "--sort=-refname", "--format=%(refname:short)\x1f%(*objectname)%(objectname)",
               f"refs/tags/{pattern}")
    found = []
    for line in out.splitlines():
        if "\x1f" in line:
            name, sha = line.split("\x1f", 1)
            found.append((name, sha[:40]))
    return found


def dirty_paths(root: Path) -> list[str]:
    """Files that differ from HEAD in the working tree (modified, added, deleted, untracked; both
    names of a rename)."""
    out = _run(root, _READ_ONLY, "status", "--porcelain", "--untracked-files=all", "-z")
    paths, source_next = [], False
    for entry in out.split("\0"):
        if source_next:
            paths.append(entry)
            source_next = False
        elif len(entry) > 3:
            paths.append(entry[3:])
            source_next = entry[0] in "RC"  # a rename names its source next
    return sorted(set(p for p in paths if p))


def branches(root: Path, pattern: str) -> list[tuple[str, str]]:
    """(branch name, commit sha) for local branches matching `pattern`, newest name first."""
    out = _run(root, "for-each-ref", "--sort=-refname", "--format=%(refname:short)\x1f%(objectname)",
               f"refs/heads/{pattern}")
    return [(n, s) for n, _, s in (line.partition("\x1f") for line in out.splitlines()) if s]


def create_branch(root: Path, name: str, sha: str) -> None:
    _run(root, "branch", "--no-track", name, sha)


def delete_branch(root: Path, name: str) -> None:
    _run(root, "branch", "-D", name)


def delete_tag(root: Path, name: str) -> None:
    _run(root, "tag", "-d", name)


def reset_keep(root: Path, sha: str) -> None:
    """Move the current branch back to `sha`, updating the files it changed and keeping a person's
    other uncommitted edits (git refuses, and says so, rather than lose one)."""
    _run(root, "reset", "--quiet", "--keep", sha)


def merge_base(root: Path, a: str, b: str) -> str | None:
    code, out, _ = try_run(root, "merge-base", a, b)
    return out.strip() or None if code == 0 else None


def tagged_commits(root: Path, pattern: str, *, merged: str = "HEAD") -> list[tuple[str, CommitInfo]]:
    """(tag name, the commit it names) for annotated tags matching `pattern` whose commit is reachable
    from `merged`, in one git call (a vault may hold thousands of sleeps)."""
    fmt = "%1e%(refname:short)%1f%(*objectname)%1f%(*committerdate:unix)%1f%(*subject)%1f%(*body)"
    out = _run(root, "for-each-ref", f"--merged={merged}", f"--format={fmt}", f"refs/tags/{pattern}")
    found = []
    for rec in out.split(_REC):
        parts = rec.strip("\n").split(_SEP)
        if len(parts) < 5 or not parts[1] or not parts[2].isdigit():
            continue  # a lightweight tag (no commit to dereference) is not ours
        at = dt.datetime.fromtimestamp(int(parts[2]), dt.UTC)
        found.append((parts[0], CommitInfo(parts[1], at, parts[3], parts[4].strip())))
    return found
