"""Structured logs: JSON lines in .vault/logs/<name>.jsonl, read back merged by time (`vault log`).

One file per kind of run: `model` (each Responses API call of the agent), `tools` (each host tool
call), `sleep`, `recall`, `hooks`. Writing is cheap and can never fail the operation it records:
one O_APPEND write of one line, no fsync (a log is not memory; a torn last line is skipped when
read), and any error is swallowed. A file past MAX_BYTES is moved to `<name>.jsonl.1` first.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

MAX_BYTES = 4_000_000
KINDS = ("model", "tools", "sleep", "recall", "hooks")
_TAIL_BLOCK = 64 * 1024


def write_log(vault: Vault, name: str, entry: dict[str, Any]) -> None:
    """Append `entry` (stamped with `at`, UTC to the millisecond, so entries of different logs
    merge in order) to .vault/logs/<name>.jsonl; never raises."""
    append_log(vault.logs, name, entry)


def append_log(logs: str | Path, name: str, entry: dict[str, Any]) -> None:
    """write_log given the logs folder itself (the fast client has no Vault); never raises."""
    try:
        folder = Path(logs)
        at = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        line = json.dumps({"at": at, **entry}, default=str, ensure_ascii=False)
        path = folder / f"{name}.jsonl"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except FileNotFoundError:
            folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if os.fstat(fd).st_size > MAX_BYTES:
                os.replace(path, path.with_name(path.name + ".1"))
                os.close(fd)
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
    except Exception:  # noqa: BLE001  (a log that cannot be written must not fail what it records)
        pass


def args_hash(args: Any) -> str:
    """A short, stable hash of a tool call's arguments (the log keeps the hash, not the content)."""
    try:
        raw = json.dumps(args, sort_keys=True, default=str, ensure_ascii=False)
    except (TypeError, ValueError):
        raw = repr(args)
    return hashlib.blake2b(raw.encode(), digest_size=6).hexdigest()


def read_logs(vault: Vault, tail: int = 20, kinds: list[str] | None = None) -> list[dict[str, Any]]:
    """The newest `tail` entries of every .jsonl log (or only `kinds`), oldest first, each with `log`
    (the file's name). A line that is not a JSON object (a torn write) is skipped. Reads each file
    from its end, so a long log costs no more than its last entries."""
    entries: list[dict[str, Any]] = []
    for path in sorted(vault.logs.glob("*.jsonl")) if vault.logs.is_dir() else []:
        if kinds and path.stem not in kinds:
            continue
        found: list[dict[str, Any]] = []
        for line in reversed(_last_lines(path, tail)):
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict):
                found.append({"log": path.stem, **data})
                if len(found) == tail:
                    break
        entries += reversed(found)
    entries.sort(key=lambda e: str(e.get("at", "")))
    return entries[-tail:]


def _last_lines(path: Path, n: int) -> list[str]:
    """At least the last `n` complete lines of a file (more when some may be torn), oldest first."""
    try:
        with open(path, "rb") as fh:
            end = fh.seek(0, os.SEEK_END)
            pos, data = end, b""
            while pos > 0 and data.count(b"\n") <= n + 1:
                step = min(_TAIL_BLOCK, pos)
                pos -= step
                fh.seek(pos)
                data = fh.read(step) + data
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    return lines[1:] if pos > 0 else lines  # the first line of a block read mid-file may be partial
