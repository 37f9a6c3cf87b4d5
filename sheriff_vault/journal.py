"""A sleep's intent, written before its first file: after a crash the next command either
finishes it (the commit landed) or rolls it back (it did not), so the vault is never half-slept.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from . import gitlog
from .buffer import load_buffer, write_buffer
from .fsutil import atomic_write, remove

NAME = "sleep-journal.json"


def sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def path(vault: Any) -> Path:
    return vault.cache / NAME


def begin(vault: Any, sleep_id: str, files: dict[str, bytes | None], compacted: list[str]) -> None:
    """Record every file this sleep will write (with the hash of what it will write) before writing."""
    record = {"sleep_id": sleep_id, "pid": os.getpid(), "started": time.time(), "head": gitlog.head(vault.root),
              "files": {rel: sha1(data) if data is not None else None for rel, data in files.items()},
              "compacted": compacted, "phase": "writing"}
    atomic_write(path(vault), json.dumps(record, indent=1))


def mark(vault: Any, phase: str, **extra: Any) -> None:
    record = json.loads(path(vault).read_text())
    record.update(phase=phase, **extra)
    atomic_write(path(vault), json.dumps(record, indent=1))


def end(vault: Any) -> None:
    remove(path(vault))


def trim_buffer(vault: Any, compacted: list[str]) -> None:
    """Drop the compacted turns from the buffer, keeping any turn noted while the sleep ran."""
    gone = set(compacted)
    write_buffer(vault, [t for t in load_buffer(vault) if t.id not in gone])


def recover(vault: Any) -> str | None:
    """Finish or roll back a sleep that died; returns a one-line notice, or None if there was none.

    Call it holding the vault lock: then the journal's writer cannot still be running."""
    p = path(vault)
    if not p.exists():
        return None
    try:
        record = json.loads(p.read_text())
    except (OSError, ValueError):
        remove(p)
        return "removed an unreadable sleep journal"
    sleep_id = record["sleep_id"]
    _clear_stale_git_lock(vault, p)
    landed = [c for c in gitlog.log(vault.root, limit=20) if f"Sleep-Id: {sleep_id}" in c.body]
    if landed:
        trim_buffer(vault, record.get("compacted", []))
        end(vault)
        return f"finished a sleep that was interrupted after its commit ({landed[0].sha[:8]})"
    restored = _roll_back(vault, record["files"])
    end(vault)
    return (f"rolled back a sleep that was interrupted before its commit ({restored} file(s) restored); "
            f"its turns are still in the buffer")


def _roll_back(vault: Any, files: dict[str, str | None]) -> int:
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
    tracked = [r for r in ours if gitlog.show_file(root, "HEAD", r) is not None]
    if tracked:
        gitlog.restore(root, tracked)
    for rel in ours:
        if rel not in tracked:
            remove(root / rel)
    return len(ours)


def _clear_stale_git_lock(vault: Any, journal_path: Path) -> None:
    """A sleep killed inside `git commit` leaves .git/index.lock behind; it is ours if newer than the journal."""
    lock = vault.root / ".git" / "index.lock"
    try:
        if lock.stat().st_mtime >= journal_path.stat().st_mtime - 1:
            lock.unlink()
    except FileNotFoundError:
        pass
