"""The embedding cache: vectors keyed by content hash, so unchanged text is never embedded twice.

Rows are appended to one raw float32 file and a small SQLite table maps hash -> row. Next to the
float32 file an int8 copy of every row (`vectors.q8`, see `quantised`) lets a question be scored
against 2 MB a vault rather than 9, and only its best rows read in float32. It all lives outside
the index folder, so `vault index --rebuild` reuses it.
"""
from __future__ import annotations

import contextlib
import mmap
import os
import sqlite3
import uuid
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np

from sheriff_vault.errors import LockTimeout
from sheriff_vault.store.fsutil import fsync_dir
from sheriff_vault.store.locks import FileLock

QUICK_HEADER = 64  # bytes before the first int8 row: "SVQ8 1 <dim> <cache instance>\n", padded
QUICK_BLOCK = 4096  # rows quantised at a time when the int8 copy is made again from the float32 file
# Bound on the float32 rounding of a product of `dim` terms, per term and unit of norm (n * 2**-24,
# doubled: one for the int8 product, one for the float32 one it stands in for).
ROUNDING = 2.0 * 2.0 ** -24


def quick_dtype(dim: int) -> np.dtype:
    """One row of the int8 copy: the rounded vector, its scale, and how far (per unit of a
    question vector's norm) a score from it can be from the float32 score."""
    return np.dtype([("q", np.int8, (dim,)), ("scale", "<f4"), ("err", "<f4")])


def quantise(vecs: np.ndarray) -> np.ndarray:
    """Rows of `quick_dtype`: each vector over its own largest magnitude, rounded to 127 steps.

    `err` bounds |score(int8 row) - score(float32 row)| / |question| by Cauchy-Schwarz: the norm
    of the rounding residual, plus float32's own rounding of both products, rounded up to a
    float32 so it stays a bound."""
    vecs = np.asarray(vecs, dtype=np.float32).reshape(len(vecs), -1)
    dim = vecs.shape[1]
    out = np.empty(len(vecs), dtype=quick_dtype(dim))
    wide = vecs.astype(np.float64)
    scale = np.abs(wide).max(axis=1, initial=0.0) / 127.0
    safe = np.where(scale > 0, scale, 1.0)
    q = np.clip(np.rint(wide / safe[:, None]), -127, 127)
    scale32 = scale.astype(np.float32)
    residual = np.linalg.norm(wide - q * scale32.astype(np.float64)[:, None], axis=1)
    norm = np.linalg.norm(wide, axis=1)
    err = residual + ROUNDING * dim * (2 * norm + residual) + 1e-12
    out["q"] = q.astype(np.int8)
    out["scale"] = scale32
    out["err"] = np.nextafter(err.astype(np.float32), np.float32(np.inf))
    return out


def cosines(vecs: np.ndarray, qvec: np.ndarray, block: int = 64) -> np.ndarray:
    """`vecs @ qvec` in float32, each row summed on its own in one fixed order (numpy's pairwise
    sum), so a vector scores the same bits whatever rows it is scored with. A BLAS product sums a
    matrix's last few rows, or a row alone, in another order than the rest: the same vector (two
    documents sharing it; a question's few candidates against every row) would then score a bit
    apart and break a tie the other way."""
    out = np.empty(len(vecs), dtype=np.float32)
    q32 = np.asarray(qvec, dtype=np.float32)
    for i in range(0, len(vecs), block):
        np.multiply(vecs[i : i + block], q32).sum(axis=1, dtype=np.float32, out=out[i : i + block])
    return out


class VectorCache:
    def __init__(self, folder: Path, model_id: str, dim: int) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.model_id, self.dim = model_id, dim
        self.data_path = self.folder / "vectors.f32"
        self.quick_path = self.folder / "vectors.q8"
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
        self.quick_path.unlink(missing_ok=True)

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
        try:
            self._sync_quick()
        except (OSError, LockTimeout):
            pass  # the int8 copy is only a cache of this file: the next reader makes it again
        return start

    def matrix(self, rows: np.ndarray, out: np.ndarray | None = None, gap: int = 4, fd: int | None = None
               ) -> np.ndarray:
        """A dense (len(rows), dim) copy of the given rows (written into `out` when given).

        Reads the file in order, one read per run of wanted rows less than `gap` rows apart (at
        most 1 MB), instead of mapping it: mapped pages count in the process's resident memory
        while they are touched, which at 10k topics put 90 MB more on a daemon's peak memory than
        the copy itself. A few hundred scattered rows (a question's candidates) are as many small
        reads, made a megabyte's worth at a time in one list; a whole snapshot's rows, which mostly
        follow each other, are 1 MB reads. `fd`: read this open file (see `reader`) rather than
        the file now at `data_path`.
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
        # A run ends where the next wanted row is `gap` or more rows on, or in another 1 MB block.
        run_of = np.concatenate([[0], np.cumsum((np.diff(wanted) >= gap) | (np.diff(wanted // block) != 0))])
        starts = np.flatnonzero(np.diff(run_of, prepend=-1))
        first = wanted[starts]
        last = wanted[np.concatenate([starts[1:], [len(wanted)]]) - 1]
        size = (last - first + 1) * self.row_bytes
        before = np.cumsum(size) - size  # bytes of the runs before each, all read in one list
        batch_of = before // (1 << 20)
        batches = np.flatnonzero(np.diff(batch_of, prepend=-1)).tolist() + [len(first)]
        pread = os.pread
        with open(self.data_path, "rb") if fd is None else contextlib.nullcontext() as fh:
            source = fh.fileno() if fh is not None else fd
            assert source is not None
            for lo, hi in zip(batches[:-1], batches[1:], strict=True):
                offsets = (first[lo:hi] * self.row_bytes).tolist()
                data = b"".join([pread(source, n, at) for n, at in zip(size[lo:hi].tolist(), offsets, strict=True)])
                if len(data) != int(size[lo:hi].sum()):
                    raise ValueError(f"{self.data_path} is shorter than row {int(last[hi - 1])}")
                chunk = np.frombuffer(data, dtype=np.float32).reshape(-1, self.dim)
                i, j = int(starts[lo]), (int(starts[hi]) if hi < len(starts) else len(wanted))
                run = run_of[i:j]
                at = (before[run] - before[lo]) // self.row_bytes + wanted[i:j] - first[run]
                out[order[i:j]] = chunk[at]
        return out

    def cosines(self, rows: np.ndarray, qvec: np.ndarray, fd: int | None = None, batch: int = 64) -> np.ndarray:
        """`cosines(self.matrix(rows), qvec)`, read and scored `batch` rows at a time into one
        small buffer rather than a copy of every row at once."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.empty(len(rows), dtype=np.float32)
        buffer = np.empty((min(batch, len(rows)), self.dim), dtype=np.float32)
        for i in range(0, len(rows), batch):
            part = rows[i : i + batch]
            out[i : i + len(part)] = cosines(self.matrix(part, out=buffer[: len(part)], fd=fd), qvec)
        return out

    def reader(self) -> _Rows:
        """`matrix` (and `cosines`) on the file as it is now, held open while the reader lives: a
        snapshot keeps reading its rows after a model change unlinks the file (as a mapping of it
        would), and reads rows appended since as well."""
        try:
            return _Rows(self, os.open(self.data_path, os.O_RDONLY))
        except FileNotFoundError:
            return _Rows(self, None)

    # -- the int8 copy ----------------------------------------------------------------------------
    @property
    def quick_row_bytes(self) -> int:
        return quick_dtype(self.dim).itemsize

    def _quick_header(self) -> bytes:
        return f"SVQ8 1 {self.dim} {self.instance}\n".encode().ljust(QUICK_HEADER, b" ")

    def _quick_lock(self) -> FileLock:
        return FileLock(self.folder / "vectors.q8.lock", what="embedding cache's int8 copy", timeout=30)

    def quick_rows(self) -> int:
        """Whole rows in the int8 copy, or -1 when there is none for this cache (missing, or made
        for another model or an earlier cache: its header names the cache instance)."""
        try:
            with open(self.quick_path, "rb") as fh:
                header = fh.read(QUICK_HEADER)
                size = os.fstat(fh.fileno()).st_size
        except FileNotFoundError:
            return -1
        if header != self._quick_header():
            return -1
        return (size - QUICK_HEADER) // self.quick_row_bytes

    def _sync_quick(self) -> None:
        """Bring the int8 copy up to the float32 file, under its own lock (two writers must not
        both append the same rows): rows missing at its end are quantised from the float32 file
        and appended, a torn last row cut first; a copy that does not fit (another model's, or
        longer than the float32 file) is made again whole."""
        with self._quick_lock():
            rows, have = self.rows_on_disk(), self.quick_rows()
            if have < 0 or have > rows:
                self._write_quick(rows)
                return
            if have == rows:
                return
            with open(self.quick_path, "r+b") as fh:
                end = QUICK_HEADER + have * self.quick_row_bytes
                if os.fstat(fh.fileno()).st_size != end:
                    fh.truncate(end)  # a torn row, after every whole row any reader covers
                fh.seek(end)
                self._quantise_into(fh, have, rows)

    def _write_quick(self, rows: int) -> None:
        """The int8 copy of the first `rows` rows, written aside and renamed over the old one: a
        reader of the old file keeps reading it."""
        tmp = self.quick_path.with_name(f".{self.quick_path.name}.{uuid.uuid4().hex}.tmp")
        try:
            with open(tmp, "wb") as fh:
                fh.write(self._quick_header())
                self._quantise_into(fh, 0, rows)
            os.replace(tmp, self.quick_path)
        finally:
            tmp.unlink(missing_ok=True)
        fsync_dir(self.folder)

    def _quantise_into(self, fh: BinaryIO, start: int, stop: int) -> None:
        """Rows `start` to `stop` of the float32 file, quantised a block at a time, written and synced."""
        for first in range(start, stop, QUICK_BLOCK):
            fh.write(quantise(self.matrix(np.arange(first, min(stop, first + QUICK_BLOCK)))).tobytes())
        fh.flush()
        os.fsync(fh.fileno())

    def quantised(self, rows: int | None = None) -> QuickRows | None:
        """The int8 copy of the first `rows` rows (every whole row on disk when None), open for
        reading: row r is cache row r. Made or completed first when it does not hold as many
        rows as the float32 file (a cache from before it existed, a crash between the two
        appends); None when that fails, and the caller scores from the float32 file instead.

        Held open and mapped only while a question reads it (see QuickRows); safe because nothing
        changes a row once written: rows are only appended, a torn row is cut after the last
        whole one, and a copy made again (or a model change, `_reset`) replaces or unlinks the
        file, which leaves an open descriptor the old one."""
        rows = self.rows_on_disk() if rows is None else rows
        try:
            if rows > 0 and self.quick_rows() != self.rows_on_disk():
                self._sync_quick()
            if rows > 0 and self.quick_rows() < rows:
                return None
            return QuickRows(os.open(self.quick_path, os.O_RDONLY) if rows > 0 else None, self.dim, max(rows, 0))
        except (OSError, ValueError, LockTimeout):
            return None

    def close(self) -> None:
        self.db.close()


class _Rows:
    """Rows of one open float32 file (VectorCache.reader; None: the file at its path); the file
    is closed with the last snapshot reading it."""

    def __init__(self, cache: VectorCache, fd: int | None) -> None:
        self.cache, self.fd = cache, fd
        if fd is not None:
            weakref.finalize(self, os.close, fd)

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        return self.cache.matrix(rows, fd=self.fd)

    def cosines(self, rows: np.ndarray, qvec: np.ndarray) -> np.ndarray:
        return self.cache.cosines(rows, qvec, fd=self.fd)


class QuickRows:
    """The first `rows` rows of an int8 copy (VectorCache.quantised) through a descriptor held
    open until the last snapshot reading it goes: each question maps them for as long as it
    reads them (`mapped`).

    Not mapped for good: a question reads every row, so a lasting mapping kept all of the copy's
    pages in the daemon's resident memory, for each vault it serves (2.3 MB a vault of 1,000
    topics, a quarter of what it holds for one). Between questions they are only in the kernel's
    page cache, as the float32 rows a question reads are: shared, and dropped first under memory
    pressure. Mapping them again costs a few dozen page faults a question (~0.01 ms at 6,000
    rows); reading them into a buffer instead cost a copy (~0.15 ms)."""

    def __init__(self, fd: int | None, dim: int, rows: int) -> None:
        self.fd, self.rows, self.dtype = fd, rows, quick_dtype(dim)
        if fd is not None:
            weakref.finalize(self, os.close, fd)

    def __len__(self) -> int:
        return self.rows

    def mapped(self) -> np.ndarray:
        """The rows, mapped read-only until the array (and every view of it) is dropped."""
        if self.fd is None or not self.rows:
            return np.zeros(0, dtype=self.dtype)
        whole = mmap.mmap(self.fd, QUICK_HEADER + self.rows * self.dtype.itemsize, access=mmap.ACCESS_READ)
        return np.frombuffer(whole, dtype=self.dtype, count=self.rows, offset=QUICK_HEADER)
