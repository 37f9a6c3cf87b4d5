"""Crash-safe file writes: a reader sees the old file or the new one, never half of either."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from sheriff_vault.errors import VaultError


def fsync_dir(folder: Path) -> None:
    """Make a rename or unlink durable; the rename itself lives in the folder's entry."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: str | bytes, *, mode: int | None = None) -> None:
    """Write via a temp file in the same folder, fsync, rename over, fsync the folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(path.parent)


def append_lines(path: Path, lines: list[str]) -> None:
    """Append lines with one write and one fsync (a sleep of a long transcript appends hundreds of
    turns); a crash can at worst leave a partial last line, which readers skip."""
    if not lines:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("".join(line if line.endswith("\n") else line + "\n" for line in lines))
        fh.flush()
        os.fsync(fh.fileno())


def remove(path: Path) -> None:
    """Unlink if present, durably."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    fsync_dir(Path(path).parent)


def read_text_limited(path: Path, limit: int, error: type[VaultError] = VaultError, display: str | None = None) -> str:
    """Read a UTF-8 text file, refusing files over `limit` bytes before reading them."""
    shown = display or str(path)
    size = Path(path).stat().st_size
    if size > limit:
        raise error(
            f"file is {size // 1024} KB, over the {limit // 1024} KB limit for this kind of file",
            path=shown,
            hint="split it or move it out of the vault",
        )
    raw = Path(path).read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise error(
            f"not valid UTF-8 (byte {exc.start})", path=shown, line=line, hint="re-save the file as UTF-8"
        ) from None
