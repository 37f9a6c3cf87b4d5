"""Approximate nearest neighbours for large vaults: an HNSW graph (usearch) over the cached vectors.

Below `retrieval.ann_threshold` vectors (default 100,000) dense search stays the exact, vectorised
cosine over the snapshot's matrix (Index.dense). Above it the graph answers in a few milliseconds
whatever the size, and Index.dense re-scores its candidates against their exact vectors (read
from the cache: a snapshot that big holds no matrix, see index/snapshot.py), so the
scores and their order are the exact ones for every document it returns; only a near neighbour
the graph misses can be lost (recall@10 against exact search is printed by
benchmarks/recall_speed.py).

The graph's keys are rows of the embedding cache (index/vectors.py), not of one snapshot's matrix:
a cache row never changes its vector, so the graph outlives snapshots, compactions, index
generations and the daemon itself. It is saved beside the cache, and the next daemon reads it in
a fraction of a second and adds only the vectors it lacks, where building it again takes a
minute at 50k topics. Each vector is in it once, however many documents share it (HNSW finds
exact duplicates poorly).

Why usearch: one small wheel (a few MB, numpy only), a single-header C++ HNSW that adds vectors
incrementally and stores them as int8 (a quarter of a float32 copy; the exact re-score keeps full
precision). At 50k topics (206k distinct vectors) int8 took 178 MB against float16's 306 MB,
built in 24 s against 39 s and searched in 4.2 ms against 5.4, with recall@10 against exact 0.988
against 0.99 (benchmarks/RESULTS.md, issue 14 part 6). hnswlib needs a compiler on many platforms
and stores float32 only; faiss-cpu is ~30 MB and its HNSW cannot add to an index built with other
settings as cheaply.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from sheriff_vault.index.onnxmodel import load_runtime
from sheriff_vault.store.fsutil import atomic_write, fsync_dir

CONNECTIVITY = 16
EXPANSION_ADD = 200
EXPANSION_SEARCH = 128  # at least; a search of `count` rows uses WIDEN x count
# 8 x: recall@10 against exact search at 120k vectors (the synthetic 20k vault, 18% duplicate
# vectors, which HNSW finds poorly) was 0.979 at 4 x, 0.989 at 6 x and 1.0 at 8 x, for about half
# the time of the exact search measured alongside (benchmarks/RESULTS.md, issue 14 part 4).
# More connectivity (24, 32) cost 32 MB and a third more build time and was no better at 4-6 x.
WIDEN = 8
# ... up to this many vectors in the graph; above it the width grows with the square root of the
# size: recall@10 at 372k vectors (100k topics) was 0.96 at 8 x, 0.98 at 10 x, 0.986 at 12 x.
WIDEN_UP_TO = 200_000
# A graph holding this share of vectors no document uses any more is built again from the live ones.
STALE = 0.25
GRAPH, ABOUT = "graph.usearch", "graph.json"
DTYPE = "i8"  # how the graph stores its vectors (see the module docstring)


class AnnIndex:
    """An HNSW graph whose keys are embedding-cache rows (see the module docstring)."""

    def __init__(self, dim: int, dtype: str = DTYPE, threads: int = 0, *,
                 connectivity: int = CONNECTIVITY, widen: int = WIDEN) -> None:
        load_runtime()  # before usearch: see its doc
        from usearch.index import Index as Usearch

        self.dim = dim
        self.threads = threads
        self.widen = widen
        self.connectivity = connectivity
        self.dtype = dtype
        self.graph: Any = Usearch(ndim=dim, metric="cos", dtype=dtype, connectivity=connectivity,
                                  expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)
        self.held = np.zeros(0, dtype=bool)  # held[r]: cache row r is in the graph
        self.saved_size = 0  # its size when last saved or read

    @property
    def size(self) -> int:
        return len(self.graph)

    def lacks(self, keys: np.ndarray) -> np.ndarray:
        """Which of `keys` (cache rows; -1: unknown, never added) the graph does not hold yet."""
        lacking = keys >= 0
        inside = lacking & (keys < len(self.held))
        lacking[inside] = ~self.held[keys[inside]]
        return lacking

    def add(self, keys: np.ndarray, vectors: np.ndarray) -> int:
        """Add the rows of `vectors` whose key (cache row) the graph lacks, each key once; returns
        how many were added."""
        keys = np.asarray(keys, dtype=np.int64)
        lacking = self.lacks(keys)
        new, first = np.unique(keys[lacking], return_index=True)
        if not len(new):
            return 0
        picked = np.flatnonzero(lacking)[first]
        self.graph.add(new.astype(np.uint64), np.ascontiguousarray(vectors[picked], dtype=np.float32),
                       threads=self.threads)
        if new[-1] >= len(self.held):
            grown = np.zeros(max(int(new[-1]) + 1, 2 * len(self.held)), dtype=bool)
            grown[: len(self.held)] = self.held
            self.held = grown
        self.held[new] = True
        return len(new)

    def search(self, qvec: np.ndarray, count: int) -> np.ndarray:
        """Keys (cache rows) of about the `count` nearest vectors."""
        count = min(count, self.size)
        if count <= 0:
            return np.zeros(0, dtype=np.int64)
        widen = self.widen * max(1.0, math.sqrt(self.size / WIDEN_UP_TO))
        self.graph.expansion_search = max(EXPANSION_SEARCH, int(widen * count))
        found = self.graph.search(np.ascontiguousarray(qvec, dtype=np.float32), count, threads=1)
        return np.asarray(found.keys, dtype=np.int64)

    @property
    def memory_bytes(self) -> int:
        return int(self.graph.memory_usage)

    def save(self, folder: Path, cache_id: str) -> None:
        """Keep the graph beside the cache it indexes (`cache_id`: VectorCache.instance). The graph
        file goes first and the file naming its cache last, so a torn save is never read."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ABOUT).unlink(missing_ok=True)
        for left in folder.glob(f".{GRAPH}.*.tmp"):  # a process that stopped mid-save
            left.unlink(missing_ok=True)
        tmp = folder / f".{GRAPH}.{os.getpid()}.tmp"
        try:
            self.graph.save(str(tmp))
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, folder / GRAPH)
            fsync_dir(folder)
        finally:
            tmp.unlink(missing_ok=True)
        atomic_write(folder / ABOUT, json.dumps({"cache": cache_id, "dim": self.dim, "size": self.size,
                                                 "connectivity": self.connectivity, "dtype": self.dtype}))
        self.saved_size = self.size

    @classmethod
    def restore(cls, folder: Path, cache_id: str, dim: int, threads: int = 0) -> AnnIndex | None:
        """The graph saved for this cache with these settings, or None."""
        try:
            about = json.loads((folder / ABOUT).read_text(encoding="utf-8"))
            if ((about.get("cache"), about.get("dim"), about.get("connectivity"), about.get("dtype", "f16"))
                    != (cache_id, dim, CONNECTIVITY, DTYPE)):
                return None
            ann = cls(dim, threads=threads)
            ann.graph.load(str(folder / GRAPH))
        except (OSError, ValueError, RuntimeError):
            return None
        if ann.size != about.get("size") or ann.graph.ndim != dim:
            return None
        keys = np.asarray(ann.graph.keys, dtype=np.int64)
        ann.held = np.zeros(int(keys.max()) + 1 if len(keys) else 0, dtype=bool)
        ann.held[keys] = True
        ann.saved_size = ann.size
        return ann
