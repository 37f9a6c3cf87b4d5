"""Dense search above retrieval.ann_threshold asks an HNSW graph (index/ann.py): its answers agree
with exact cosine search, on random vectors and on a real vault with the threshold lowered."""
from __future__ import annotations

import numpy as np
from memory_fixtures import build

from sheriff_vault.index.ann import AnnIndex
from sheriff_vault.index.engine import Index
from sheriff_vault.store.vault import Vault


def unit_rows(rng: np.random.Generator, n: int, dim: int = 384) -> np.ndarray:
    # Clustered like sentence embeddings (documents of one topic lie close together).
    centres = rng.standard_normal((n // 20, dim)).astype(np.float32)
    rows = centres[rng.integers(0, len(centres), n)] + 0.6 * rng.standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_the_graph_finds_the_exact_nearest_rows_of_a_random_set():
    rng = np.random.default_rng(7)
    matrix = unit_rows(rng, 3000)
    keys = np.arange(3000)
    ann = AnnIndex(matrix.shape[1])
    assert ann.add(keys[:2000], matrix[:2000]) == 2000
    assert ann.add(keys, matrix) == 1000  # keys it holds are not added again
    assert ann.add(np.array([5, 5, -1]), matrix[:3]) == 0 and ann.size == 3000
    assert not ann.lacks(keys).any() and ann.lacks(np.array([-1, 3000, 2999])).tolist() == [False, True, False]
    queries = matrix[rng.integers(0, len(matrix), 60)] + 0.02 * rng.standard_normal((60, 384)).astype(np.float32)
    hits = 0
    for q in queries:
        # As Index.dense asks it: 200 candidates from the int8 graph, re-scored exactly.
        exact = set(np.argsort(-(matrix @ q))[:10].tolist())
        found = ann.search(q, 200)
        hits += len(exact & set(found[np.argsort(-(matrix[found] @ q))[:10]].tolist()))
    assert hits / (10 * len(queries)) >= 0.98


def test_dense_search_with_the_graph_agrees_with_exact_search(vault: Vault):
    """The real model: the hash embedder's many tied scores would make "the same top 10" ambiguous."""
    build(vault)
    path = vault.root / "vault.yaml"
    path.write_text(path.read_text().replace("ann_threshold: 100000", "ann_threshold: 1"))
    vault = Vault(vault.root)
    assert vault.config.retrieval.ann_threshold == 1
    index = Index(vault)
    index.ann_background = False  # build the graph before answering
    try:
        index.refresh()
        snap = index.snapshot()
        assert snap.vectors >= 10
        for query in ("the party budget", "database migration dry run", "who is Caroline", "postgres"):
            qvec = index.embed_query(query)
            fast, exact = index.dense(qvec, limit=10), index.dense(qvec, limit=10, exact=True)
            assert [d for d, _ in fast] == [d for d, _ in exact]
            np.testing.assert_allclose([s for _, s in fast], [s for _, s in exact], atol=1e-5)
        assert index._ann is not None and index._ann.size == len(set(snap.cache_rows.tolist()))
        # Above the threshold the snapshot holds no vectors: it reads them from the cache, and
        # exact search there answers as a snapshot holding them all does.
        assert not snap.held and snap.matrix.shape[0] == 0
        # Below it the snapshot maps the cache's int8 copy (or, with map_vectors off, holds a
        # copy): all three answer alike.
        holding, mapping = Index(Vault(vault.root)), Index(Vault(vault.root))
        holding.map_vectors = False
        for other in (holding, mapping):
            other.cfg.retrieval.ann_threshold = 0
        try:
            assert holding.snapshot().held and holding.snapshot().matrix.shape[0] == len(snap.vec_ids)
            assert not mapping.snapshot().held and mapping.snapshot().quick is not None
            qvec = index.embed_query("the party budget")
            read = index.dense(qvec, limit=20, exact=True)
            for other in (holding, mapping):
                held = other.dense(qvec, limit=20)
                assert [d for d, _ in held] == [d for d, _ in read]
                np.testing.assert_allclose([s for _, s in held], [s for _, s in read], atol=1e-6)
        finally:
            holding.close()
            mapping.close()
    finally:
        index.close()


def test_the_daemon_way_answers_exactly_until_the_graph_is_built_in_the_background(vault: Vault):
    """ann_background (the default): the first search above the threshold starts the build in a
    thread and answers exactly; once built, searches use the graph and a saved file's new vectors
    are added to it, not rebuilt."""
    from conftest import wait_for

    build(vault)
    path = vault.root / "vault.yaml"
    path.write_text(path.read_text().replace("ann_threshold: 100000", "ann_threshold: 1"))
    vault = Vault(vault.root)
    index = Index(vault)
    try:
        index.refresh()
        qvec = index.embed_query("the party budget")
        exact = index.dense(qvec, limit=10, exact=True)
        assert index.dense(qvec, limit=10) == exact  # exact while the graph is built
        wait_for(lambda: index._ann is not None, timeout=60, what="the graph is built")
        graph = index._ann
        topic = next(p for p in (vault.root / "topics").glob("*.md") if "party" in p.name)
        topic.write_text(topic.read_text().rstrip("\n") + "\n- 2026-02-19 — The party budget grew to 450 USD. "
                         "[t1](../conversations/x.md)\n")
        index.refresh([topic.relative_to(vault.root).as_posix()])
        found = index.dense(qvec, limit=10)
        assert index._ann is graph and graph.size == len(set(index.snapshot().cache_rows.tolist()))  # extended
        assert [d for d, _ in found] == [d for d, _ in index.dense(qvec, limit=10, exact=True)]
    finally:
        index.close()


def test_the_next_process_reads_the_saved_graph_and_adds_only_what_it_lacks(vault: Vault):
    """The graph is keyed by embedding-cache rows, so it outlives the process and the index
    generation: the next Index reads it and adds only the new vectors; a graph saved for another
    cache (a reset one, another model) is never read."""
    from sheriff_vault.index.ann import ABOUT, AnnIndex

    build(vault)
    path = vault.root / "vault.yaml"
    path.write_text(path.read_text().replace("ann_threshold: 100000", "ann_threshold: 1"))
    vault = Vault(vault.root)
    first = Index(vault)
    first.ann_background = False
    try:
        first.refresh()
        qvec = first.embed_query("the party budget")
        first.dense(qvec, limit=10)
        built, cache = first._ann, first.vectors()
        assert built.saved_size == built.size > 10 and (cache.folder / ABOUT).exists()
        # A mark only the saved graph has: a vector under a cache row no document uses.
        marked = AnnIndex.restore(cache.folder, cache.instance, 384)
        assert marked is not None and marked.add(np.array([10_000]), np.ones((1, 384), dtype=np.float32)) == 1
        marked.save(cache.folder, cache.instance)
    finally:
        first.close()
    topic = next(p for p in (vault.root / "topics").glob("*.md") if "party" in p.name)
    topic.write_text(topic.read_text().rstrip("\n") + "\n- 2026-02-19 — The party budget grew to 450 USD. "
                     "[t1](../conversations/x.md)\n")
    second = Index(vault)
    second.ann_background = False
    try:
        second.refresh()
        found = second.dense(qvec, limit=10)
        graph = second._ann
        assert graph.size == built.size + 2 and not graph.lacks(np.array([10_000]))[0]  # read, then added to
        assert [d for d, _ in found] == [d for d, _ in second.dense(qvec, limit=10, exact=True)]
        cache = second.vectors()
        assert AnnIndex.restore(cache.folder, cache.instance, 384) is not None
        assert AnnIndex.restore(cache.folder, "another cache", 384) is None
        assert AnnIndex.restore(cache.folder, cache.instance, 128) is None
    finally:
        second.close()


def test_a_bigger_graph_searches_wider(monkeypatch):
    """Recall falls as the graph grows at a fixed width: above WIDEN_UP_TO vectors the width grows
    with the square root of the size (4x the vectors, 2x the width)."""
    from sheriff_vault.index import ann as ann_module

    rows = unit_rows(np.random.default_rng(3), 400, dim=16)
    graph = AnnIndex(16)
    graph.add(np.arange(400), rows)
    monkeypatch.setattr(ann_module, "WIDEN_UP_TO", 400)
    graph.search(rows[0], 50)
    assert graph.graph.expansion_search == 8 * 50
    monkeypatch.setattr(ann_module, "WIDEN_UP_TO", 100)
    graph.search(rows[0], 50)
    assert graph.graph.expansion_search == 2 * 8 * 50


def test_a_graph_saved_with_other_settings_is_built_again(tmp_path):
    """A graph stored as float16 (before int8) is not read as if it were int8: restore declines it
    and the daemon builds a new one."""
    from sheriff_vault.index.ann import DTYPE

    rows = unit_rows(np.random.default_rng(5), 200, dim=16)
    for dtype, restored in (("f16", False), (DTYPE, True)):
        graph = AnnIndex(16, dtype=dtype)
        graph.add(np.arange(200), rows)
        graph.save(tmp_path, "cache-1")
        again = AnnIndex.restore(tmp_path, "cache-1", 16)
        assert (again is not None) == restored
        if again is not None:
            assert again.size == 200 and again.search(rows[7], 1).tolist() == [7]
