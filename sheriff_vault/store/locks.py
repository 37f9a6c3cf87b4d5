"""Advisory file locks (fcntl) so one process at a time writes the vault or the index.

The kernel drops a flock when its holder dies, so a lock can never be left stuck; the pid we
write into the lock file only tells the next process whose work it found half done.
"""
from __future__ import annotations

import fcntl
import json
import os
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from sheriff_vault.errors import LockTimeout

# (lock file, thread) -> the FileLock holding it. A flock is per open file, so a second FileLock on
# the same path in the same thread (Index.open rebuilding a half-written index inside refresh)
# would wait for itself until the timeout; it re-enters instead. Other threads still wait.
_OWNERS: dict[tuple[str, int], FileLock] = {}


class FileLock:
    """An exclusive flock on `path`, taken with backoff up to `timeout` seconds."""

    def __init__(self, path: Path, *, what: str, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.what = what
        self.timeout = timeout
        self._fh: IO[str] | None = None
        self._outer: FileLock | None = None
        self.previous: dict | None = None

    def _key(self) -> tuple[str, int]:
        return os.path.abspath(self.path), threading.get_ident()

    def acquire(self, on_wait: Callable[[dict | None], None] | None = None) -> FileLock:
        outer = _OWNERS.get(self._key())
        if outer is not None and outer._fh is not None:
            self._outer = outer
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")
        deadline = time.monotonic() + self.timeout
        delay = 0.01
        told = False
        while True:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = _read_holder(fh)
                if on_wait and not told:
                    on_wait(holder)
                    told = True
                if time.monotonic() >= deadline:
                    fh.close()
                    who = f" by pid {holder.get('pid')} ({holder.get('cmd', '?')})" if holder else ""
                    raise LockTimeout(
                        f"the {self.what} is locked{who} for more than {self.timeout:.0f}s",
                        path=self.path,
                        hint="wait for that process to finish, or stop it and try again",
                    ) from None
                time.sleep(delay + random.random() * delay)
                delay = min(delay * 2, 0.5)
        self.previous = _read_holder(fh)
        fh.seek(0)
        fh.truncate()
        fh.write(json.dumps({"pid": os.getpid(), "cmd": _cmdline(), "since": time.time()}))
        fh.flush()
        self._fh = fh
        _OWNERS[self._key()] = self
        return self

    def release(self) -> None:
        if self._outer is not None:
            self._outer = None
            return
        if self._fh is None:
            return
        if _OWNERS.get(self._key()) is self:
            del _OWNERS[self._key()]
        try:
            self._fh.seek(0)
            self._fh.truncate()
            self._fh.flush()
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
        finally:
            self._fh.close()
            self._fh = None

    @property
    def held(self) -> bool:
        return self._fh is not None or self._outer is not None

    def __enter__(self) -> FileLock:
        return self.acquire() if not self.held else self

    def __exit__(self, *exc: object) -> None:
        self.release()


def held_here(path: Path) -> bool:
    """Whether this thread holds the lock on `path` (a FileLock it took and has not released)."""
    return (os.path.abspath(path), threading.get_ident()) in _OWNERS


def stale_holder(lock: FileLock) -> dict | None:
    """After acquiring: the record of a previous holder that died without releasing, if any."""
    prev = lock.previous
    if not prev or prev.get("pid") == os.getpid():
        return None
    return prev


def _read_holder(fh: IO[str]) -> dict | None:
    try:
        fh.seek(0)
        text = fh.read().strip()
        return json.loads(text) if text else None
    except (OSError, ValueError):
        return None


def _cmdline() -> str:
    try:
        raw = Path(f"/proc/{os.getpid()}/cmdline").read_bytes()
        return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)[:200]
    except OSError:
        return "?"
