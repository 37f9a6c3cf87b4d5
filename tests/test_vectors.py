"""The embedding cache's int8 copy (index/vectors.py, `vectors.q8`): it follows the float32 file
row for row, is made again when missing, short, torn or another cache's, and a question scored
through it (Snapshot.nearest, then the float32 rows it could not rule out) gets exactly the
documents and scores the float32 product gives, on a real vault with the real model."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.synthetic import generate  # noqa: E402
from sheriff_vault.index.engine import Index  # noqa: E402
from sheriff_vault.index.snapshot import cosines  # noqa: E402
from sheriff_vault.index.vectors import QUICK_HEADER, VectorCache, quantise  # noqa: E402
from sheriff_vault.store.vault import Vault  # noqa: E402

DIM = 16


def rows_of(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, DIM)) * rng.uniform(0.05, 4, (n, 1))).astype(np.float32)


def filled(folder: Path, data: np.ndarray, start: int = 0) -> VectorCache:
    cache = VectorCache(folder, "model", DIM)
    cache.ensure([(f"h{i}", str(i)) for i in range(start, len(data))], lambda batch: data[[int(t) for t in batch]],
                 batch=7)
    return cache


def same_as_float32(cache: VectorCache) -> bool:
    """Whether the int8 copy on disk holds exactly the quantised float32 rows, no more."""
    rows = cache.rows_on_disk()
    body = cache.quick_path.read_bytes()[QUICK_HEADER:]
    return body == quantise(cache.matrix(np.arange(rows))).tobytes()


def test_a_score_from_the_int8_copy_is_within_its_bound_of_the_float32_score():
    rng = np.random.default_rng(3)
    data = rows_of(500)
    data[7] = 0.0
    data[8] = 1e-30
    quick = quantise(data)
    for _ in range(50):
        q = rng.standard_normal(DIM).astype(np.float32) * rng.uniform(0.1, 10)
        approx = (quick["q"].astype(np.float32) @ q) * quick["scale"]
        gap = np.abs(approx.astype(np.float64) - cosines(data, q))
        assert (gap <= quick["err"] * np.linalg.norm(q)).all()
    assert np.abs(quick["q"]).max() == 127 and quick["err"].max() < 0.01 * np.linalg.norm(data, axis=1).max()


def test_the_int8_copy_follows_the_float32_file_row_for_row(tmp_path):
    data = rows_of(60)
    cache = filled(tmp_path, data[:25])
    assert cache.quick_rows() == 25 and same_as_float32(cache)
    cache.ensure([(f"h{i}", str(i)) for i in range(25, 60)], lambda batch: data[[int(t) for t in batch]])
    assert cache.quick_rows() == 60 and same_as_float32(cache)
    opened = cache.quantised()
    assert opened is not None and len(opened) == 60 and opened.mapped().tobytes() == quantise(data).tobytes()
    assert cache.quantised(10) is not None and len(cache.quantised(10)) == 10  # type: ignore[arg-type]
    assert cache.quantised(10).mapped().tobytes() == quantise(data[:10]).tobytes()  # type: ignore[union-attr]
    VectorCache(tmp_path, "another model", DIM).close()  # a model change removes both files
    assert not cache.data_path.exists() and not cache.quick_path.exists()
    assert opened.mapped().tobytes() == quantise(data).tobytes()  # an open copy keeps reading its file
    cache.close()


def test_the_int8_copy_is_mapped_only_while_a_question_reads_it(tmp_path):
    """A daemon serves many vaults: what a question maps of a vault's int8 copy is let go when
    it is answered, so between questions none of the copy's pages count in the process's memory."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        pytest.skip("no /proc/self/maps here")
    data = rows_of(60)
    cache = filled(tmp_path, data)
    opened = cache.quantised()
    assert opened is not None

    def mappings() -> int:
        return sum(line.endswith(str(cache.quick_path)) for line in maps.read_text().splitlines())

    assert mappings() == 0
    rows = opened.mapped()
    assert mappings() == 1 and rows["q"][5].tolist() == quantise(data[5:6])["q"][0].tolist()
    view = rows["scale"][10:20]
    del rows
    assert mappings() == 1  # a view of it still reads it
    del view
    assert mappings() == 0
    cache.close()


def test_a_missing_short_torn_or_foreign_int8_copy_is_made_again(tmp_path):
    data = rows_of(40)
    cache = filled(tmp_path, data)
    row = cache.quick_row_bytes
    whole = cache.quick_path.read_bytes()

    cache.quick_path.unlink()  # missing (a cache from before the copy existed)
    assert cache.quick_rows() == -1
    assert cache.quantised() is not None and same_as_float32(cache)

    cache.quick_path.write_bytes(whole[: QUICK_HEADER + 30 * row + row // 2])  # short, a torn last row
    assert cache.quick_rows() == 30
    found = cache.quantised()
    assert found is not None and len(found) == 40 and same_as_float32(cache)

    cache.quick_path.write_bytes(whole[: QUICK_HEADER + 12 * row + 3])  # torn, then rows appended
    more = rows_of(45, seed=1)
    cache.ensure([(f"m{i}", str(i)) for i in range(40, 45)], lambda batch: more[[int(t) for t in batch]])
    assert cache.quick_rows() == 45 and same_as_float32(cache)

    cache.quick_path.write_bytes(whole + whole[QUICK_HEADER:])  # longer than the float32 file
    assert cache.quantised() is not None and cache.quick_rows() == 45 and same_as_float32(cache)

    other = whole.replace(cache.instance.encode(), b"0" * len(cache.instance))  # another cache's copy
    cache.quick_path.write_bytes(other + whole[QUICK_HEADER:] * 2)
    assert cache.quick_rows() == -1
    assert cache.quantised() is not None and cache.quick_rows() == 45 and same_as_float32(cache)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    cache.close()


def test_a_cache_whose_int8_copy_cannot_be_made_is_scored_from_the_float32_file(tmp_path):
    """No copy (here: a folder where the copy should be): recall still answers, exactly."""
    syn = generate(tmp_path / "v", 12, seed=2, embedding=False, git=False)
    from sheriff_vault.index.embed import HashEmbedder

    vault, emb = Vault(syn.root), HashEmbedder(dim=32)
    vault.config.retrieval.ann_threshold = 0
    first = Index(vault, emb)
    try:
        first.refresh()
        cache = first.vectors()
        assert cache is not None and cache.quick_path.exists()
        qv = emb.encode(["cake party"])[0]
        want = first.dense(qv, 20)
        cache.quick_path.unlink()
        cache.quick_path.mkdir()
        second = Index(vault, emb)
        try:
            snap = second.snapshot()
            assert snap.quick is None and not snap.held
            assert second.dense(qv, 20) == want
        finally:
            second.close()
    finally:
        first.close()


def test_two_pass_dense_search_equals_the_exact_product_on_a_real_vault(tmp_path):
    """The real model's vectors of a synthetic vault: Index.dense (int8 first, float32 for the
    rows it cannot rule out) returns the documents, order and scores of the float32 product over
    every row, ties going to the lower row."""
    syn = generate(tmp_path / "v", 60, seed=11, git=False)
    vault = Vault(syn.root)
    vault.config.retrieval.ann_threshold = 0
    index = Index(vault)
    try:
        index.refresh()
        snap = index.snapshot()
        assert snap.quick is not None and not snap.held and snap.vectors > 300
        matrix = snap.all_vectors()
        pruned = 0
        for query in syn.queries(25):
            qvec = index.embed_query(query)
            assert qvec is not None
            exact = cosines(matrix, qvec)
            for k in (1, 10, 50, 200):
                order = np.lexsort((np.arange(len(exact)), -exact))[:k]
                assert index.dense(qvec, k) == [(snap.vec_ids[i], float(exact[i])) for i in order]
            pruned += len(snap.nearest(qvec, 10)) < snap.vectors // 4  # type: ignore[arg-type]
        assert pruned == 25
    finally:
        index.close()



def _roof(vault: Vault, lines: list[str]) -> None:
    """topics/roof-repair.md as a sleep would write it, saying `lines`."""
    import datetime as dt

    from sheriff_vault.store.items import Item
    from sheriff_vault.store.topics import new_topic

    topic = new_topic(vault.root / "topics" / "roof-repair.md", "Roof repair", one_liner="The shed roof leaks",
                      now=dt.datetime(2026, 3, 2, tzinfo=dt.UTC), rel="topics/roof-repair.md")
    for line in lines:
        topic.add_item(Item(kind="fact", text=line, date="2026-03-02"))
    (vault.root / "topics" / "roof-repair.md").write_text(topic.render())


def test_a_prefetch_puts_a_files_texts_in_the_cache_before_the_refresh_that_indexes_it(tmp_path):
    """Index.prefetch embeds texts in the background (one prefetch after another); the refresh
    that then indexes a file saying them embeds nothing of its own. A prefetch that fails leaves
    the refresh to embed what is missing, as if it had not run."""
    import threading

    from conftest import use_hash_embedder

    from sheriff_vault.store.vault import init_vault

    vault = use_hash_embedder(init_vault(tmp_path / "vault").vault)
    said = ["The roofer quoted 2,400 EUR for the shed roof."]
    _roof(vault, said)
    index = Index(vault)
    try:
        assert index.refresh().embedded == 2  # the topic's own text and its line
        lines = ["Moved the repair to Friday (6 March 2026), the roofer is ill.", "The tiles come from the yard."]
        started = threading.Event()

        def slow(texts: list[str]) -> np.ndarray:
            started.set()
            return index.embedder.encode(texts)

        index.prefetch(lines[:1], slow)
        index.prefetch(lines[1:])  # after the first, never alongside it
        index.settle_prefetch()
        assert started.is_set()
        assert len(index.vectors().lookup([index.embedder.key(t) for t in lines])) == 2
        _roof(vault, said + lines)
        stats = index.refresh(["topics/roof-repair.md"])
        assert stats.changed == ["topics/roof-repair.md"] and stats.embedded == 0 and not stats.warnings

        notes: list[str] = []
        index.log = notes.append
        failing = "Said only in a prefetch that fails."
        index.prefetch([failing], lambda texts: np.asarray(1 / 0))
        _roof(vault, said + lines + [failing])
        stats = index.refresh(["topics/roof-repair.md"])
        assert stats.embedded == 1 and any("embedding ahead" in n for n in notes)
        assert index.vectors().lookup([index.embedder.key(failing)])
    finally:
        index.close()


def test_a_refresh_or_close_under_the_index_lock_does_not_wait_for_a_prefetch(tmp_path):
    """A prefetch writes under the index's lock, so a refresh inside that lock (`reconcile`) or a
    close inside it (`rebuild`) goes on without it; the prefetch writes what is still missing
    once the lock is free, and nothing into a closed index."""
    import threading

    from conftest import use_hash_embedder

    from sheriff_vault.store.vault import init_vault

    vault = use_hash_embedder(init_vault(tmp_path / "vault").vault)
    _roof(vault, ["The roofer quoted 2,400 EUR for the shed roof."])
    index = Index(vault)
    try:
        index.refresh()
        go = threading.Event()

        def held_back(texts: list[str]) -> np.ndarray:
            go.wait(30)
            return index.embedder.encode(texts)

        ahead = ["The gutter goes in on Monday.", "The tiles come from the yard."]
        index.prefetch(ahead, held_back)
        _roof(vault, ["The roofer quoted 2,400 EUR for the shed roof.", ahead[0]])
        done = threading.Event()

        def inside() -> None:
            with index.lock():
                index.refresh(["topics/roof-repair.md"])
            done.set()

        threading.Thread(target=inside, daemon=True).start()
        assert done.wait(30)  # it did not wait for the prefetch held back
        go.set()
        index.settle_prefetch()
        assert len(index.vectors().lookup([index.embedder.key(t) for t in ahead])) == 2

        go.clear()
        index.prefetch(["Said while the index closes."], held_back)
        with index.lock():
            index.close()
        go.set()
        index.settle_prefetch()
        assert not index.vectors().lookup([index.embedder.key("Said while the index closes.")])
    finally:
        go.set()
        index.close()


def test_the_texts_a_sleep_embeds_ahead_are_those_the_index_embeds_for_a_topic(tmp_path):
    """docs.embedded_texts, which a sleep embeds ahead, reads a topic as the index does: each of
    topic_docs' documents as embed_text gives it, in order (the topic's one-liner, its lines, its
    notes), on every topic of a synthetic vault (related links, aliases, notes, struck lines)."""
    import datetime as dt

    from sheriff_vault.index.docs import embedded_texts, topic_docs
    from sheriff_vault.index.engine import embed_text
    from sheriff_vault.store.items import Item
    from sheriff_vault.store.topics import Topic, new_topic

    syn = generate(tmp_path / "v", 40, seed=5, git=False)
    topics = [Topic.load(p, f"topics/{p.name}") for p in sorted((syn.root / "topics").glob("*.md"))]
    made = new_topic(tmp_path / "roof.md", "Roof repair", aliases=["the roof"],
                     now=dt.datetime(2026, 3, 2, tzinfo=dt.UTC), rel="topics/roof.md")
    made.add_item(Item(kind="fact", text="User: The quote is 2,400 EUR.", date="2026-03-02", superseded="2026-03-03",
                       superseded_by="t5"))
    made.add_item(Item(kind="event", text="User: Roofer came on Friday (6 March 2026).", date="2026-03-06"))
    made.add_item(Item(kind="loop", text="Still need to order the tiles.", date="2026-03-02"))
    text = made.render() + "\nThe shed is behind the garage; the key is with Ana.\n\n## Related\n\n" \
        "- [[garden|Garden]]\n"
    (tmp_path / "roof.md").write_text(text)
    topics.append(Topic.load(tmp_path / "roof.md", "topics/roof.md"))
    assert {d.kind for d in topic_docs(topics[-1]).docs} == {"topic", "fact", "event", "loop", "note"}
    for topic in topics:
        docs = topic_docs(topic)
        assert embedded_texts(topic) == [embed_text(doc, docs.topic) for doc in docs.docs]


def test_a_prefetch_keeps_the_vectors_it_is_handed_and_embeds_only_the_rest(tmp_path):
    """Index.prefetch(known=...): a sleep hands over the vectors it already has for some lines (a
    fact whose line is its sentence as said); those go into the cache as they are, and the model
    runs only for the others."""
    from conftest import use_hash_embedder

    from sheriff_vault.store.vault import init_vault

    vault = use_hash_embedder(init_vault(tmp_path / "vault").vault)
    _roof(vault, ["The roofer quoted 2,400 EUR for the shed roof."])
    index = Index(vault)
    try:
        index.refresh()
        handed, other = "The gutter goes in on Monday.", "The tiles come from the yard."
        given = index.embedder.encode(["a vector no model would give this line"])[0]
        ran: list[str] = []

        def model(texts: list[str]) -> np.ndarray:
            ran.extend(texts)
            return index.embedder.encode(texts)

        index.prefetch([handed, other], model, known={handed: given})
        index.settle_prefetch()
        assert ran == [other]
        cache = index.vectors()
        rows = cache.lookup([index.embedder.key(handed)])
        assert np.array_equal(cache.matrix(np.array([rows[index.embedder.key(handed)]]))[0], given)
    finally:
        index.close()


def test_a_sleep_knows_when_its_vectors_stood_in_for_the_model():
    """SafeEncoder falls back to hash vectors when the model fails, and says so: a sleep then hands
    none of its vectors to the index's cache, which keeps only the model's."""
    from sheriff_vault.errors import VaultError
    from sheriff_vault.index.embed import HashEmbedder, safe_encoder

    class Failing(HashEmbedder):
        def encode(self, texts, workers=1):
            raise VaultError("the model will not load")

    working = safe_encoder(HashEmbedder())
    assert working(["The boiler is serviced in May."]).shape[0] == 1 and not working.stood_in
    failing = safe_encoder(Failing())
    assert failing(["The boiler is serviced in May."]).shape[0] == 1 and failing.stood_in
    assert safe_encoder(None).stood_in


def test_only_a_model_of_meaning_says_its_vectors_are_near_in_meaning():
    """Hash vectors share words, not meaning; a choice that trusts likeness (a title) asks `of_meaning`
    through every wrapper a sleep puts around its encoder."""
    from sheriff_vault.config import EmbeddingSettings
    from sheriff_vault.index.embed import Ahead, Embedder, HashEmbedder, of_meaning, safe_encoder

    model = Embedder.from_settings(EmbeddingSettings())  # not loaded: the answer needs no vectors
    assert of_meaning(safe_encoder(model)) and of_meaning(Ahead(lambda texts: np.zeros((len(texts), 4)), []))
    assert not of_meaning(safe_encoder(HashEmbedder()))
    assert not of_meaning(Ahead(safe_encoder(HashEmbedder()), ["The boiler is serviced in May."]))
    assert not of_meaning(safe_encoder(None))
