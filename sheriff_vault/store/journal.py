"""A change's intent (a sleep, or a topic edit), written before its first file: after a crash or
an error the vault is either given the whole change (its commit landed) or none of it (rolled
back), so it is never half-slept or left with an uncommitted edit.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sheriff_vault import faults
from sheriff_vault.store import gitlog
from sheriff_vault.store.buffer import load_buffer, write_buffer
from sheriff_vault.store.fsutil import atomic_write, remove

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


def sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def path(vault: Vault) -> Path:
    return vault.journal_path


KINDS = {"sleep": ("Sleep-Id", "a sleep"), "edit": ("Edit-Id", "a topic edit")}


class Transaction:
    """One change in progress: commit it with `commit`; a person's edit merged into a file it
    writes is recorded with `merged`. Made by `transaction()`."""

    def __init__(self, vault: Vault, kind: str, change_id: str, compacted: list[str]) -> None:
        self.vault, self.kind, self.id, self.compacted = vault, kind, change_id, compacted
        self.commit_sha: str | None = None

    def commit(self, message: str, paths: list[str], *, when: dt.datetime | None = None) -> str | None:
        """Commit exactly `paths` with the change's trailer, so a crash after this line is finished,
        not rolled back, by the next command."""
        self.commit_sha = gitlog.commit_paths(self.vault.root, f"{message.rstrip()}\n\n{trailer(self.kind, self.id)}",
                                              paths, when=when)
        faults.point(f"{self.kind}:committed")
        mark(self.vault, "committed", commit=self.commit_sha)
        return self.commit_sha

    def merged(self, rel: str, before: bytes, after: bytes | None) -> None:
        merged(self.vault, rel, before, after)


@contextmanager
def transaction(vault: Vault, kind: str, files: dict[str, bytes | None], *, change_id: str | None = None,
                compacted: list[str] | None = None) -> Iterator[Transaction]:
    """All or nothing for a change that writes `files` (vault-relative path -> the bytes it will
    write, None for a deletion) and commits them. The journal is written before the first file;
    an exception inside the block rolls every file back at once (and says so on the exception);
    a crash is finished or rolled back by the next command. After the commit, the buffer loses
    the `compacted` turn ids. Call it holding the vault lock."""
    tx = Transaction(vault, kind, change_id or uuid.uuid4().hex[:12], list(compacted or []))
    begin(vault, tx.id, files, tx.compacted, kind=kind)
    faults.point(f"{kind}:journaled")
    try:
        yield tx
    except BaseException as exc:
        undo_after_error(vault, exc)
        raise
    if tx.compacted:
        trim_buffer(vault, tx.compacted)
        faults.point(f"{kind}:trimmed")
    end(vault)


def trailer(kind: str, change_id: str) -> str:
    """The commit-message line that says this change's commit landed."""
    return f"{KINDS[kind][0]}: {change_id}"


def begin(vault: Vault, change_id: str, files: dict[str, bytes | None], compacted: list[str],
          kind: str = "sleep") -> None:
    """Record every file this change will write (with the hash of what it will write) before writing.
    Its commit message must carry trailer(kind, change_id)."""
    shutil.rmtree(backup_dir(vault), ignore_errors=True)
    backups = []
    for rel in files:
        if (vault.root / rel).is_file():
            _keep(vault, rel, (vault.root / rel).read_bytes())
            backups.append(rel)
    record = {"id": change_id, "kind": kind, "pid": os.getpid(), "started": time.time(),
              "files": {rel: sha1(data) if data is not None else None for rel, data in files.items()},
              "backups": backups, "compacted": compacted, "phase": "writing"}
    atomic_write(path(vault), json.dumps(record, indent=1))


def backup_dir(vault: Vault) -> Path:
    return vault.cache / "journal-backup"


def _keep(vault: Vault, rel: str, data: bytes) -> None:
    """Save what a file held before this change, so a rollback gives back exactly that, including
    a person's edits not yet committed (restoring from git would lose them)."""
    atomic_write(backup_dir(vault) / rel, data)


def mark(vault: Vault, phase: str, **extra: Any) -> None:
    record = json.loads(path(vault).read_text())
    record.update(phase=phase, **extra)
    atomic_write(path(vault), json.dumps(record, indent=1))


def merged(vault: Vault, rel: str, before: bytes, after: bytes | None) -> None:
    """A person edited `rel` while the change ran and the change merged their edit: a rollback now
    gives back their edit (`before`), and the file is the change's once it holds `after` (None: once
    it is gone, their edit merged into the file it was renamed to)."""
    _keep(vault, rel, before)
    record = json.loads(path(vault).read_text())
    record["files"][rel] = sha1(after) if after is not None else None
    record["merged"] = sorted({*record.get("merged", []), rel})
    record["backups"] = sorted({*record.get("backups", []), rel})
    atomic_write(path(vault), json.dumps(record, indent=1))


def end(vault: Vault) -> None:
    remove(path(vault))
    shutil.rmtree(backup_dir(vault), ignore_errors=True)


def trim_buffer(vault: Vault, compacted: list[str]) -> None:
    """Drop the compacted turns from the buffer, keeping any turn noted while the sleep ran."""
    gone = set(compacted)
    write_buffer(vault, [t for t in load_buffer(vault) if t.id not in gone])


def recover(vault: Vault, *, after_error: bool = False) -> str | None:
    """Finish or roll back a change that died; returns a one-line notice, or None if there was none.

    Call it holding the vault lock: then the journal's writer cannot still be running. With
    `after_error`, this process is the writer and its change just failed: its git children have
    exited, so git's lock files are someone else's and stay."""
    p = path(vault)
    if not p.exists():
        return None
    try:
        record = json.loads(p.read_text())
    except (OSError, ValueError):
        remove(p)
        return "removed an unreadable change journal"
    kind = record.get("kind", "sleep") if record.get("kind") in KINDS else "sleep"
    change_id = record.get("id") or record.get("sleep_id", "")
    what = KINDS[kind][1]
    if not after_error:
        _clear_stale_git_lock(vault, p)
    interrupted = "stopped by an error" if after_error else "interrupted"
    landed = [c for c in gitlog.log(vault.root, limit=20) if trailer(kind, change_id) in c.body]
    if landed:
        if record.get("compacted"):
            trim_buffer(vault, record["compacted"])
        end(vault)
        return f"finished {what} that was {interrupted} after its commit ({landed[0].sha[:8]})"
    restored = _roll_back(vault, record["files"], set(record.get("backups", [])))
    end(vault)
    still = "; its turns are still in the buffer" if kind == "sleep" else ""
    return f"rolled back {what} that was {interrupted} before its commit ({restored} file(s) restored){still}"


def undo_after_error(vault: Vault, exc: BaseException) -> None:
    """This process's change failed: roll it back now and say so on the exception; if even that
    fails, the journal stays and the next command tries again."""
    if not path(vault).exists():
        return
    try:
        notice = recover(vault, after_error=True)
    except Exception as again:
        notice = f"could not roll back the unfinished change yet ({again}); the next vault command will"
    if notice:
        exc.add_note(notice)


def _roll_back(vault: Vault, files: dict[str, str | None], backups: set[str]) -> int:
    """Put back what each file held before the change, for the files that still hold what the
    change wrote (a file a person has changed since is theirs and stays)."""
    root = vault.root
    ours = []
    for rel, written in files.items():
        target = root / rel
        for tmp in target.parent.glob(f".{target.name}.*.tmp") if target.parent.is_dir() else []:
            tmp.unlink(missing_ok=True)
        current = sha1(target.read_bytes()) if target.exists() else None
        if current == written:
            ours.append(rel)
    if not ours:
        return 0
    staged = set(gitlog.staged_paths(root))
    unstage = [r for r in ours if r in staged]
    if unstage:
        gitlog.unstage(root, unstage)
    saved = {r for r in ours if r in backups and (backup_dir(vault) / r).is_file()}
    tracked = [r for r in ours if r not in saved and gitlog.show_file(root, "HEAD", r) is not None]
    if tracked:
        gitlog.restore(root, tracked)
    for rel in ours:
        if rel in saved:
            atomic_write(root / rel, (backup_dir(vault) / rel).read_bytes())
        elif rel not in tracked:
            remove(root / rel)
    return len(ours)


def _clear_stale_git_lock(vault: Vault, journal_path: Path) -> None:
    """A sleep killed inside `git commit` leaves git's lock files behind (index.lock, and the branch's
    ref lock, which otherwise fails every later commit); one newer than the journal is ours. A git
    child that outlived the killed sleep gets two seconds to finish before its lock is taken."""
    git_dir = vault.root / ".git"
    since = journal_path.stat().st_mtime - 1
    deadline = time.monotonic() + 2.0
    for lock in [git_dir / "index.lock", git_dir / "HEAD.lock", *sorted((git_dir / "refs" / "heads").rglob("*.lock"))]:
        try:
            if lock.stat().st_mtime < since:
                continue
        except FileNotFoundError:
            continue
        while lock.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        lock.unlink(missing_ok=True)
