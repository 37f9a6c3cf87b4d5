"""The embedding cache: vectors keyed by content hash, so unchanged text is never embedded twice.

Rows are appended to one raw float32 file (read through a numpy memmap) and a small SQLite table
maps hash -> row. It lives outside the index folder, so `vault index --rebuild` reuses it.
"""
from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np


class VectorCache:
    def __init__(self, folder: Path, model_id: str, dim: int) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.model_id, self.dim = model_id, dim
        self.data_path = self.folder / "vectors.f32"
        self.db = sqlite3.connect(self.folder / "vectors.db", timeout=30, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        self.db.execute("CREATE TABLE IF NOT EXISTS vec (hash TEXT PRIMARY KEY, row INTEGER NOT NULL)")
        meta = dict(self.db.execute("SELECT key, value FROM meta"))
        if meta and (meta.get("model_id") != model_id or int(meta.get("dim", 0)) != dim):
            self._reset()
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('model_id', ?), ('dim', ?)", (model_id, str(dim)))
        self.db.execute("INSERT OR IGNORE INTO meta VALUES ('instance', ?)", (uuid.uuid4().hex,))
        self.db.commit()
        # Names this cache's rows: a graph keyed by them (index/ann.py) is only valid for it.
        self.instance: str = self.db.execute("SELECT value FROM meta WHERE key = 'instance'").fetchone()[0]

    @staticmethod
    def known_dim(folder: Path, model_id: str) -> int | None:
        """The vector size this cache already holds for `model_id`, read without loading the
        model (which takes seconds): reading cached vectors must not need it."""
        path = Path(folder) / "vectors.db"
        if not path.exists():
            return None
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
                meta = dict(db.execute("SELECT key, value FROM meta"))
        except sqlite3.Error:
            return None
        return int(meta["dim"]) if meta.get("model_id") == model_id and meta.get("dim", "").isdigit() else None

    def _reset(self) -> None:
        self.db.execute("DELETE FROM vec")
        self.db.execute("DELETE FROM meta")
        self.db.commit()
        self.data_path.unlink(missing_ok=True)

    @property
    def row_bytes(self) -> int:
        return self.dim * 4

    def rows_on_disk(self) -> int:
        try:
            return self.data_path.stat().st_size // self.row_bytes
        except FileNotFoundError:
            return 0

    def lookup(self, hashes: Sequence[str]) -> dict[str, int]:
        """Rows of the hashes already cached (rows past the end of the file, from a crash, are ignored)."""
        out: dict[str, int] = {}
        limit = self.rows_on_disk()
        unique = list(dict.fromkeys(hashes))
        if len(unique) * 4 >= limit:  # most of the cache: one scan beats hundreds of IN queries
            wanted = set(unique)
            for h, row in self.db.execute("SELECT hash, row FROM vec"):
                if row < limit and h in wanted:
                    out[h] = row
            return out
        for i in range(0, len(unique), 900):
            chunk = unique[i : i + 900]
            marks = ",".join("?" * len(chunk))
            for h, row in self.db.execute(f"SELECT hash, row FROM vec WHERE hash IN ({marks})", chunk):
                if row < limit:
                    out[h] = row
        return out

    def ensure(self, items: Sequence[tuple[str, str]], encode: Callable[[list[str]], np.ndarray],
               batch: int = 256, progress: Callable[[int], None] | None = None) -> dict[str, int]:
        """Rows for (hash, text) pairs, embedding and appending only the texts not cached yet."""
        have = self.lookup([h for h, _ in items])
        missing: dict[str, str] = {}
        for h, text in items:
            if h not in have:
                missing.setdefault(h, text)
        todo = list(missing.items())
        for i in range(0, len(todo), batch):
            chunk = todo[i : i + batch]
            vecs = np.ascontiguousarray(encode([t for _, t in chunk]), dtype=np.float32)
            start = self._append(vecs)
            rows = [(h, start + j) for j, (h, _) in enumerate(chunk)]
            self.db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)", rows)
            self.db.commit()
            have.update(dict(rows))
            if progress:
                progress(len(chunk))
        return have

    def _append(self, vecs: np.ndarray) -> int:
        """Append whole rows; a torn row from an earlier crash is cut off first."""
        with open(self.data_path, "ab") as fh:
            size = fh.tell()
            if size % self.row_bytes:
                fh.truncate(size - size % self.row_bytes)
                fh.seek(0, os.SEEK_END)
            start = fh.tell() // self.row_bytes
            fh.write(vecs.tobytes())
            fh.flush()
            os.fsync(fh.fileno())
        return start

    def matrix(self, rows: np.ndarray, out: np.ndarray | None = None, gap: int = 16) -> np.ndarray:
        """A dense (len(rows), dim) copy of the given rows (written into `out` when given).

        Reads the file in order, one read per run of wanted rows less than `gap` rows apart (at
        most 1 MB), instead of mapping it: mapped pages count in the process's resident memory
        while they are touched, which at 10k topics put 90 MB more on a daemon's peak memory than
        the copy itself. A few hundred scattered rows (a question's candidates) are as many small
        reads; a whole snapshot's rows, which mostly follow each other, are 1 MB reads.
        """
        rows = np.asarray(rows, dtype=np.int64)
        if out is None:
            out = np.empty((len(rows), self.dim), dtype=np.float32)
        if len(rows) == 0:
            return out
        order = np.argsort(rows, kind="stable")
        wanted = rows[order]
        if wanted[0] < 0:
            raise ValueError(f"no cached vector for row {int(wanted[0])}")
        block = max(1, (1 << 20) // self.row_bytes)
        # A run ends where the next wanted row is `gap` or more rows on, or a block away from its first.
        breaks = np.flatnonzero(np.diff(wanted) >= gap) + 1
        starts = np.concatenate([[0], breaks])
        ends = np.concatenate([breaks, [len(wanted)]])
        with open(self.data_path, "rb") as fh:
            fd = fh.fileno()
            for lo, hi in zip(starts.tolist(), ends.tolist(), strict=True):
                i = lo
                while i < hi:
                    first = int(wanted[i])
                    j = min(hi, int(np.searchsorted(wanted[i:hi], first + block, side="left")) + i)
                    last = int(wanted[j - 1])
                    count = (last - first + 1) * self.row_bytes
                    data = os.pread(fd, count, first * self.row_bytes)
                    if len(data) != count:
                        raise ValueError(f"{self.data_path} is shorter than row {last}")
                    chunk = np.frombuffer(data, dtype=np.float32).reshape(-1, self.dim)
                    out[order[i:j]] = chunk[wanted[i:j] - first]
                    i = j
        return out

    def mapped(self, rows: int | None = None) -> np.ndarray:
        """The first `rows` vectors (every whole row on disk when None), mapped read-only rather
        than copied: a snapshot's vectors cost no heap, their pages are the file's (the kernel can
        drop them and read them again), and a daemon serving ten vaults holds no ten copies.

        Safe because nothing changes a row once written: `_append` only adds rows (and cuts a torn
        row after the last whole one, outside any mapping), and `_reset` unlinks the file, which
        leaves a live mapping its old pages."""
        rows = self.rows_on_disk() if rows is None else rows
        if rows <= 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.memmap(self.data_path, dtype=np.float32, mode="r", shape=(rows, self.dim))

    def close(self) -> None:
        self.db.close()
