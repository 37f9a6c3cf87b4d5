"""Approximate nearest neighbours for large vaults: an HNSW graph (usearch) over the snapshot's vectors.

Below `retrieval.ann_threshold` vectors (default 20,000) dense search stays the exact, vectorised
cosine over the matrix (Index.dense): ~7 ms at 60k vectors, and no graph to build or hold. Above it
the graph answers in well under a millisecond whatever the size, and Index.dense re-scores its
candidates against the exact matrix, so the scores and their order are the exact ones for every
document it returns; only a near neighbour the graph misses can be lost (recall@10 against exact
search is printed by benchmarks/recall_speed.py).

Why usearch: one small wheel (a few MB, numpy only), a single-header C++ HNSW that adds vectors
incrementally (a saved file reaches the graph without a rebuild) and stores them as float16 (half
the memory of a float32 copy; the exact re-score keeps full precision). hnswlib needs a compiler
on many platforms and stores float32 only; faiss-cpu is ~30 MB and its HNSW cannot add to an
index built with other settings as cheaply.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from sheriff_vault.index.onnxmodel import load_runtime

CONNECTIVITY = 16
EXPANSION_ADD = 200
EXPANSION_SEARCH = 128  # at least; a search of `count` rows uses WIDEN x count
# 8 x: recall@10 against exact search at 120k vectors (the synthetic 20k vault, 18% duplicate
# vectors, which HNSW finds poorly) was 0.979 at 4 x, 0.989 at 6 x and 1.0 at 8 x, for about half
# the time of the exact search measured alongside (benchmarks/RESULTS.md, issue 14 part 4). Recall
# falls as the graph grows at a fixed width, so 8 x leaves room for 50k topics (300k vectors).
# More connectivity (24, 32) cost 32 MB and a third more build time and was no better at 4-6 x.
WIDEN = 8


class AnnIndex:
    """An HNSW graph whose key i is row i of one matrix buffer (`owner`). Rows appended to that
    buffer later (a patched snapshot) are added with `extend`; a different buffer needs a new graph."""

    def __init__(self, owner: np.ndarray, dim: int, dtype: str = "f16", threads: int = 0, *,
                 connectivity: int = CONNECTIVITY, widen: int = WIDEN) -> None:
        load_runtime()  # before usearch: see its doc
        from usearch.index import Index as Usearch

        self.owner = owner
        self.threads = threads
        self.widen = widen
        self.graph: Any = Usearch(ndim=dim, metric="cos", dtype=dtype, connectivity=connectivity,
                                  expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)
        self.rows = 0

    @staticmethod
    def root(matrix: np.ndarray) -> np.ndarray:
        """The buffer a snapshot's matrix is a view of (itself if it owns its memory)."""
        return matrix.base if isinstance(matrix.base, np.ndarray) else matrix

    def serves(self, matrix: np.ndarray) -> bool:
        return self.root(matrix) is self.owner

    def extend(self, matrix: np.ndarray) -> None:
        """Add the matrix's rows past those already in the graph."""
        n = matrix.shape[0]
        if n > self.rows:
            keys = np.arange(self.rows, n, dtype=np.uint64)
            self.graph.add(keys, np.ascontiguousarray(matrix[self.rows : n]), threads=self.threads)
            self.rows = n

    def search(self, qvec: np.ndarray, count: int) -> np.ndarray:
        """Row numbers of about the `count` nearest rows (some may be rows a caller must skip)."""
        count = min(count, self.rows)
        if count <= 0:
            return np.zeros(0, dtype=np.int64)
        self.graph.expansion_search = max(EXPANSION_SEARCH, self.widen * count)
        found = self.graph.search(np.ascontiguousarray(qvec, dtype=np.float32), count, threads=1)
        return np.asarray(found.keys, dtype=np.int64)

    @property
    def memory_bytes(self) -> int:
        return int(self.graph.memory_usage)
