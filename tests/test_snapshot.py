"""index/snapshot.py on its own: a small update patches the snapshot in memory exactly as a full
load would give it, reusing spare rows and compacting when too many rows are dead. (The end-to-end
version, against a real index over hundreds of random edits, is in test_synthetic.py.)"""
from __future__ import annotations

import numpy as np
import pytest

from sheriff_vault.index.docs import Doc
from sheriff_vault.index.snapshot import Snapshot, Tail, Update, patched, spare_rows

DIM = 4


def doc(doc_id: str, text: str = "", path: str = "topics/a.md") -> Doc:
    return Doc(doc_id, "fact", path, path, text or f"Ann: fact {doc_id}", "a", "")


def vec(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM] = 1.0 + i
    return v


def base_snapshot(n: int, spare: bool = True) -> tuple[Snapshot, Tail | None]:
    ids = [f"d{i}" for i in range(n)]
    rows = spare_rows(n) if spare else n
    buffer = np.zeros((rows, DIM), dtype=np.float32)
    for i in range(n):
        buffer[i] = vec(i)
    matrix = buffer[:n]
    snap = Snapshot(1, {d: doc(d) for d in ids}, {}, [], list(ids), matrix, {}, None)
    return snap, (Tail(buffer, n) if spare else None)


def update(gone: list[str], new: list[str], start: int) -> Update:
    vectors = np.stack([vec(start + i) for i in range(len(new))]) if new else None
    return Update(2, gone, [doc(d) for d in new], {}, set(), None, list(new), vectors)


def live_rows(snap: Snapshot) -> dict[str, np.ndarray]:
    return {d: snap.matrix[i] for i, d in enumerate(snap.vec_ids) if d is not None and i not in set(snap.dead)}


def test_new_vectors_go_into_spare_rows_and_the_base_never_sees_them():
    base, tail = base_snapshot(10)
    snap, new_tail = patched(base, update([], ["n1", "n2"], 10), tail, {}, None)
    assert base.matrix.shape == (10, DIM) and len(base.vec_ids) == 10  # the old generation is untouched
    assert snap.matrix.shape == (12, DIM) and new_tail is not None and new_tail.buffer is tail.buffer
    assert snap.row_of["n2"] == 11 and np.array_equal(snap.matrix[11], vec(11))
    assert set(snap.docs) == {f"d{i}" for i in range(10)} | {"n1", "n2"}


def test_gone_documents_leave_dead_rows_that_no_lookup_finds():
    base, tail = base_snapshot(10)
    snap, _ = patched(base, update(["d3"], ["n1"], 10), tail, {}, None)
    assert list(snap.dead) == [3] and snap.vec_ids[3] is None and "d3" not in snap.row_of
    assert snap.vectors == 10 and "d3" not in snap.docs
    assert all(np.array_equal(v, snap.matrix[snap.row_of[d]]) for d, v in live_rows(snap).items())


def test_a_quarter_dead_compacts_into_a_fresh_buffer_with_the_same_vectors():
    base, tail = base_snapshot(8)
    snap, new_tail = patched(base, update(["d0", "d1", "d2"], ["n1"], 8), tail, {}, None)
    assert len(snap.dead) == 0 and None not in snap.vec_ids
    assert new_tail is not None and new_tail.buffer is not tail.buffer
    assert snap.vec_ids == ["d3", "d4", "d5", "d6", "d7", "n1"]
    assert all(np.array_equal(snap.matrix[snap.row_of[d]], base.matrix[base.row_of[d]]) for d in snap.vec_ids[:-1])
    assert np.array_equal(snap.matrix[snap.row_of["n1"]], vec(8))


def test_no_spare_room_copies_the_live_rows_out():
    base, _ = base_snapshot(5, spare=False)
    snap, new_tail = patched(base, update([], ["n1"], 5), None, {}, None)
    assert new_tail is not None and new_tail.used == 6 and new_tail.buffer.shape[0] >= 6
    assert snap.vec_ids == [f"d{i}" for i in range(5)] + ["n1"]


def test_a_second_patch_of_the_same_base_does_not_write_over_the_first():
    """Only the newest snapshot owns the spare rows: patching an older one again must copy."""
    base, tail = base_snapshot(10)
    first, tail1 = patched(base, update([], ["n1"], 10), tail, {}, None)
    again, _ = patched(base, update([], ["x1"], 20), tail1, {}, None)
    assert np.array_equal(first.matrix[first.row_of["n1"]], vec(10))
    assert np.array_equal(again.matrix[again.row_of["x1"]], vec(20))


def test_speaker_counts_follow_the_documents():
    base, tail = base_snapshot(3)
    assert base.speakers == {"ann"}
    upd = Update(2, ["d0", "d1", "d2"], [doc("b1", "Bob: hello there")], {}, set(), None, [], None)
    snap, _ = patched(base, upd, tail, {}, None)
    assert snap.speakers == {"bob"} and snap.speaker_count == {"bob": 1}


def test_the_vector_cache_finds_the_same_rows_by_query_and_by_scan(tmp_path):
    """lookup asks SQLite for a few hashes and scans the table when most of it is wanted; both
    give every cached hash its row and skip rows past the end of the file (a torn append)."""
    from sheriff_vault.index.vectors import VectorCache

    cache = VectorCache(tmp_path, "model", DIM)
    texts = [(f"h{i}", f"text {i}") for i in range(40)]
    rows = cache.ensure(texts, lambda batch: np.stack([vec(int(t.split()[1])) for t in batch]))
    cache.db.execute("INSERT INTO vec VALUES ('beyond', 9999)")
    few = ["h3", "h17", "missing", "beyond"]
    many = [h for h, _ in texts] + ["missing", "beyond"]
    assert len(few) * 4 < 40 <= len(many) * 4  # one call takes each path
    assert cache.lookup(few) == {"h3": rows["h3"], "h17": rows["h17"]}
    assert cache.lookup(many) == rows
    assert np.array_equal(cache.matrix(np.array([rows["h17"], rows["h3"]])), np.stack([vec(17), vec(3)]))


def test_topic_rows_read_back_as_written():
    from sheriff_vault.index.docs import TopicRow, topics_from_rows

    written = [TopicRow("topics/a.md", "id-a", "Party", "party", "the party", ("fest", 'say "hi"'),
                        "2026-01-01", "2026-02-01", 1.5, 3, True, ({"to": "b", "type": "RELATED"},), ("plan",),
                        2, "[[1767225600, 1767312000, 1]]", ("work/alpha",)),
               TopicRow("topics/b.md", "id-b", "B", "b", "", (), "", "", 0.0, 0, False, (), (), 0, "[]")]
    assert topics_from_rows(t.row() for t in written) == written
    # Read back, a path or date the documents hold is their copy, and an empty list is the one ().
    shared = {"topics/a.md": "topics/a.md", "2026-02-01": "2026-02-01"}
    a, b = topics_from_rows((t.row() for t in written), shared)
    assert a.path is shared["topics/a.md"] and a.last_seen is shared["2026-02-01"] and a.first_seen == "2026-01-01"
    assert b.aliases is b.related is b.skills is b.tags and b.tags == ()
    assert [t.windows for t in written] == [[[1767225600, 1767312000, 1]], []]
    assert topics_from_rows([]) == []


def test_cache_rows_lead_back_to_every_live_row_that_shares_the_vector():
    """The ANN graph holds each cached vector once; its keys map back to all documents using it."""
    snap, tail = base_snapshot(4)
    snap = Snapshot(1, snap.docs, {}, [], snap.vec_ids, snap.matrix, {}, None, cache_rows=np.array([7, 3, 7, 5]))
    assert snap.rows_of_keys(np.array([7, 9, 5])).tolist() == [0, 2, 3]
    assert snap.rows_of_keys(np.array([9])).tolist() == []
    new = Update(2, ["d2"], [doc("d9")], {}, set(), None, ["d9"], np.stack([vec(9)]), [3])
    after, _ = patched(snap, new, tail, {}, None)
    assert after.cache_rows.tolist() == [7, 3, 7, 5, 3]
    assert after.rows_of_keys(np.array([7])).tolist() == [0]  # row 2 is dead
    assert after.rows_of_keys(np.array([3])).tolist() == [1, 4]
    assert snap.rows_of_keys(np.array([7])).tolist() == [0, 2]  # the base is untouched


def held_and_unheld(tmp_path, n: int) -> tuple[Snapshot, Tail | None, Snapshot]:
    """The same snapshot twice: holding its vectors, and reading them from a real vector cache."""
    from sheriff_vault.index.vectors import VectorCache

    cache = VectorCache(tmp_path, "model", DIM)
    rows = cache.ensure([(f"h{i}", f"text {i}") for i in range(n + 40)],
                        lambda batch: np.stack([vec(int(t.split()[1])) for t in batch]))
    held, tail = base_snapshot(n)
    keys = np.array([rows[f"h{i}"] for i in range(n)], dtype=np.int64)
    held = Snapshot(1, held.docs, {}, [], held.vec_ids, held.matrix, {}, None, cache_rows=keys)
    unheld = Snapshot(1, held.docs, {}, [], held.vec_ids, np.zeros((0, DIM), np.float32), {}, None,
                      cache_rows=keys, source=cache.matrix)
    return held, tail, unheld


def test_a_snapshot_without_a_matrix_reads_the_same_vectors_from_the_cache(tmp_path):
    held, _, unheld = held_and_unheld(tmp_path, 30)
    assert held.held and not unheld.held
    for rows in ([5, 0, 29, 5], [], list(range(30)), [28, 3]):
        assert np.array_equal(unheld.vectors_at(rows), held.vectors_at(rows))
    q = np.array([0.5, -1.0, 2.0, 0.25], dtype=np.float32)
    assert np.array_equal(unheld.scores(q, block=7), held.matrix @ q)
    assert np.array_equal(unheld.all_vectors(), held.matrix)


def test_patching_a_snapshot_without_a_matrix_keeps_ids_and_cache_rows_only(tmp_path):
    held, tail, unheld = held_and_unheld(tmp_path, 8)
    new = Update(2, ["d1"], [doc("n1")], {}, set(), None, ["n1"], None, [int(unheld.cache_rows[0]) + 35])
    after, new_tail = patched(unheld, new, None, {}, None)
    assert new_tail is None and not after.held and after.matrix.shape == (0, DIM)
    assert after.vec_ids[-1] == "n1" and list(after.dead) == [1] and after.vectors == 8
    assert np.array_equal(after.vectors_at([after.row_of["n1"]]), np.stack([vec(35)]))
    # A quarter dead: the ids and cache rows are compacted, the vectors still found.
    more = Update(3, ["d2", "d3"], [doc("n2")], {}, set(), None, ["n2"], None, [int(unheld.cache_rows[0]) + 36])
    last, _ = patched(after, more, None, {}, None)
    assert len(last.dead) == 0 and last.vec_ids == ["d0", "d4", "d5", "d6", "d7", "n1", "n2"]
    assert np.array_equal(last.all_vectors(), np.stack([vec(i) for i in (0, 4, 5, 6, 7, 35, 36)]))


def test_the_cache_reads_scattered_and_neighbouring_rows_alike(tmp_path):
    """One read per run of near rows, one per far row: both give the rows asked for, in order."""
    from sheriff_vault.index.vectors import VectorCache

    cache = VectorCache(tmp_path, "model", DIM)
    cache.ensure([(f"h{i}", f"text {i}") for i in range(200)],
                 lambda batch: np.stack([vec(int(t.split()[1])) for t in batch]))
    for rows in ([199, 0, 100, 3, 3], list(range(0, 200, 17)), list(range(50, 90)), [7]):
        assert np.array_equal(cache.matrix(np.array(rows), gap=4), np.stack([vec(r) for r in rows]))
    with pytest.raises(ValueError, match="no cached vector"):
        cache.matrix(np.array([3, -1]))


def test_collection_pauses_while_a_snapshot_is_made_and_resumes_after_even_on_error():
    import gc

    from sheriff_vault.index.snapshot import gc_paused

    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with gc_paused():
            assert not gc.isenabled()
            with gc_paused():
                pass
            assert not gc.isenabled()  # an inner pause does not end the outer one
            raise RuntimeError("load failed")
    assert gc.isenabled()


def test_a_snapshot_on_the_int8_copy_reads_what_a_copy_holds_and_keeps_it_when_the_cache_changes(tmp_path):
    """Below the ANN threshold an index maps the cache's int8 copy and reads exact rows from the
    cache file: the same vectors and scores as a copy, and rows appended or the cache reset (a
    model change) later never change what a live snapshot reads."""
    from sheriff_vault.index.vectors import VectorCache

    held, _, _ = held_and_unheld(tmp_path, 30)
    cache = VectorCache(tmp_path, "model", DIM)
    quick = Snapshot(1, held.docs, {}, [], held.vec_ids, np.zeros((0, DIM), np.float32), {}, None,
                     cache_rows=held.cache_rows, source=cache.reader(), quick=cache.quantised())
    assert not quick.held and not quick.memo and quick.quick is not None and len(quick.quick) == 70
    q = np.array([0.5, -1.0, 2.0, 0.25], dtype=np.float32)
    assert np.array_equal(quick.vectors_at([5, 0, 29]), held.vectors_at([5, 0, 29]))
    assert np.array_equal(quick.scores(q), held.scores(q)) and np.array_equal(quick.all_vectors(), held.matrix)
    before = [quick.nearest(q, k).tolist() for k in (1, 3, 30)]  # type: ignore[union-attr]
    cache.ensure([("more", "text 99")], lambda batch: np.stack([vec(99)]))
    VectorCache(tmp_path, "another model", DIM).close()  # resets the cache: both files are removed
    assert not cache.data_path.exists() and not cache.quick_path.exists()
    assert np.array_equal(quick.all_vectors(), held.matrix) and np.array_equal(quick.scores(q), held.scores(q))
    assert [quick.nearest(q, k).tolist() for k in (1, 3, 30)] == before  # type: ignore[union-attr]
    # A patched snapshot carries the mapping and the reader (the index maps again when a new row
    # lies past them: test_synthetic.py).
    after, tail = patched(quick, Update(2, ["d1"], [doc("n1")], {}, set(), None, ["n1"], None, [3]), None, {}, None)
    assert tail is None and after.quick is quick.quick and after.source is quick.source and list(after.dead) == [1]
    assert np.array_equal(after.vectors_at([after.row_of["n1"]]), np.stack([vec(3)]))
    assert 1 not in after.nearest(q, 31).tolist()  # type: ignore[union-attr]
    cache.close()


def test_the_int8_copy_rules_out_only_rows_that_cannot_be_among_the_best(tmp_path):
    """Snapshot.nearest against the exact product, over vectors of any length, some shared by
    several documents, some the same vector twice (exact ties), some dead: every row among the k
    best by exact score (ties at the cut included) is a candidate, and most others are not."""
    from sheriff_vault.index.snapshot import cosines
    from sheriff_vault.index.vectors import VectorCache

    rng = np.random.default_rng(5)
    dim = 24
    centres = rng.standard_normal((12, dim))
    data = (centres[rng.integers(0, 12, 400)] + 0.5 * rng.standard_normal((400, dim))) * rng.uniform(0.1, 3, (400, 1))
    data[10:20] = data[0]  # the same vector under ten more hashes
    data[20] = 0.0
    cache = VectorCache(tmp_path, "model", dim)
    found = cache.ensure([(f"h{i}", str(i)) for i in range(400)], lambda batch: data[[int(t) for t in batch]])
    keys = np.array([found[f"h{i}"] for i in range(400)] + [found["h0"], found["h5"]] * 5, dtype=np.int64)
    ids = [f"d{i}" for i in range(len(keys))]
    snap = Snapshot(1, {d: doc(d) for d in ids}, {}, [], ids, np.zeros((0, dim), np.float32), {}, None,
                    cache_rows=keys, source=cache.reader(), quick=cache.quantised())
    snap, _ = patched(snap, Update(2, ["d3", "d404"], [], {}, set(), None, [], None, []), None, {}, None)
    live = np.setdiff1d(np.arange(len(keys)), snap.dead)
    for n in range(40):
        q = (data[rng.integers(0, 400)] + rng.standard_normal(dim) * (n % 3)).astype(np.float32)
        exact = cosines(snap.vectors_at(live), q)
        for k in (1, 7, 60, len(live), len(live) + 5):
            rows = snap.nearest(q, k)
            assert rows is not None and np.all(np.diff(rows) > 0) and not np.isin(rows, snap.dead).any()
            kth = np.sort(exact)[::-1][min(k, len(live)) - 1]
            assert set(live[exact >= kth].tolist()) <= set(rows.tolist())
            if k == 7:
                assert len(rows) < len(live) // 4
    cache.close()
