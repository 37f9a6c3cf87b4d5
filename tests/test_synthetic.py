"""The benchmarks' synthetic vault stays valid: doctor passes, the index reads every topic and fact,
and an index kept open across edits (as the daemon keeps it) answers like one loaded fresh.

No model: embeddings are off in the generated vault, and the patch test uses the hash embedder.
"""
from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.synthetic import NOW, generate  # noqa: E402
from sheriff_vault.index.embed import HashEmbedder  # noqa: E402
from sheriff_vault.index.engine import Index  # noqa: E402
from sheriff_vault.retrieval.ranking import recall  # noqa: E402
from sheriff_vault.store.doctor import check_vault  # noqa: E402
from sheriff_vault.store.topics import Topic  # noqa: E402
from sheriff_vault.store.vault import Vault  # noqa: E402


@pytest.fixture(scope="module")
def syn(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("syn") / "vault", 120, seed=3, embedding=False)


def test_generator_is_deterministic(tmp_path, syn):
    again = generate(tmp_path / "again", 120, seed=3, embedding=False, git=False)
    assert [(t.name, t.topic_id, [f.text for f in t.facts]) for t in again.topics] == \
        [(t.name, t.topic_id, [f.text for f in t.facts]) for t in syn.topics]
    assert again.queries(20) == syn.queries(20)
    one = (syn.root / "topics" / f"{syn.topics[0].slug}.md").read_text()
    assert one == (again.root / "topics" / f"{again.topics[0].slug}.md").read_text()


def test_vault_passes_doctor_and_has_the_promised_shape(syn, invoke):
    report = check_vault(Vault(syn.root))
    assert report.ok, [str(p) for p in report.problems[:5]]
    assert report.checked["topics"] == 120
    assert invoke("doctor", "--vault", syn.root).exit_code == 0
    counts = [len(t.facts) for t in syn.topics]
    assert min(counts) >= 3 and max(counts) <= 7
    assert any(t.evergreen for t in syn.topics) and any(t.related for t in syn.topics)
    assert any(t.aliases for t in syn.topics)
    days = sorted(f.at for t in syn.topics for f in t.facts)
    assert (NOW - days[0]).days > 300 and days[-1] <= NOW
    assert len({t.kind for t in syn.topics}) >= 8
    for t in syn.topics[:20]:  # the product's own parser reads every generated file back
        parsed = Topic.load(syn.root / "topics" / f"{t.slug}.md")
        assert parsed.name == t.name and parsed.id == t.topic_id and len(parsed.facts) == len(t.facts)
        assert all(item.citations for item in parsed.facts)


def test_index_reads_every_topic_and_fact_and_recall_finds_them(syn):
    vault = Vault(syn.root)
    index = Index(vault)
    try:
        stats = index.rebuild()
        assert not stats.warnings
        snap = index.snapshot()
        assert len(snap.topics) == 120
        assert sum(d.kind == "fact" for d in snap.docs.values()) == syn.facts
        target = syn.topics[7]
        result = recall(vault, f"what do we know about {target.name}?", index=index, now=NOW, refresh=False)
        assert target.slug in [Path(t.path).stem for t in result.topics]
        assert all(recall(vault, q, index=index, now=NOW, refresh=False) for q in syn.queries(30))
    finally:
        index.close()


@pytest.mark.parametrize("holding", ["matrix", "quick", "cache"])
def test_an_index_kept_open_across_edits_matches_a_fresh_load(tmp_path, holding):
    """Index._patched: the snapshot updated in memory after each save equals a full reload, for a
    snapshot holding a copy of its vectors, for one mapping the embedding cache's int8 copy (the default below
    the ANN threshold), and for one above the threshold, which reads them from the cache (searched
    exactly here: the graph has its own tests)."""
    syn = generate(tmp_path / "v", 40, seed=5, embedding=False, git=False)
    vault, emb = Vault(syn.root), HashEmbedder(dim=32)
    vault.config.retrieval.ann_threshold = 1 if holding == "cache" else 0
    live = Index(vault, emb)
    live.map_vectors = holding == "quick"
    live.rebuild()
    live.snapshot()
    rng = random.Random(2)
    cite = f"[t1](../{syn.sessions[0].rel})"
    paths = sorted((syn.root / "topics").glob("*.md"))
    try:
        for step in range(120):
            op = rng.choice(["edit", "edit", "new", "delete", "same"])
            path = rng.choice(paths)
            if op == "edit" and path.exists():
                path.write_text(path.read_text()
                                + f"- 2026-02-1{step % 10} — Extra fact {step} about the cake. {cite}\n")
            elif op == "new":
                path = syn.root / "topics" / f"new-{step}.md"
                path.write_text(f"---\nid: 00000000-0000-4000-8000-{step:012d}\nname: New {step}\n---\n\n## Facts\n\n"
                                f"- 2026-01-01 — Caroline (to Mel): cake for party {step}. {cite}\n")
                paths.append(path)
            elif op == "delete" and path.exists():
                path.unlink()
            elif op == "same" and path.exists():
                path.write_text(path.read_text())
            before = live.snapshot()
            if step % 3:  # the lookups recall builds: a patched snapshot carries them over
                before.docs_of_topic, before.names, before.longest_name, before.events_of_topic  # noqa: B018
            if live.refresh([str(path)]).changed:
                assert live._snapshot is not None and live._snapshot.generation == live.generation, "not patched"
            a = live.snapshot()
            fresh = Index(vault, emb)
            fresh.map_vectors = live.map_vectors
            try:
                b = fresh.snapshot()
                assert (a.generation, list(a.docs), list(a.topics), a.events, a.by_id, a.speakers) == \
                    (b.generation, list(b.docs), list(b.topics), b.events, b.by_id, b.speakers)
                assert all(a.docs[k] == b.docs[k] for k in a.docs) and a.topics == b.topics
                assert a.docs_of_topic == b.docs_of_topic and a.speaker_count == b.speaker_count
                assert (a.names_of_topic, a.names, a.longest_name, a.events_of_topic) == \
                    (b.names_of_topic, b.names, b.longest_name, b.events_of_topic)
                assert [d for d in a.vec_ids if d is not None] == b.vec_ids and a.vectors == len(b.vec_ids)
                assert np.array_equal(np.delete(a.cache_rows, a.dead), b.cache_rows) and (b.cache_rows >= 0).all()
                assert a.held == b.held == (holding == "matrix")
                assert (a.quick is not None) == (b.quick is not None) == (holding == "quick")
                assert all(np.array_equal(a.vectors_at([a.row_of[d]]), b.vectors_at([b.row_of[d]])) for d in b.vec_ids)
                for q in ("cake party", "the kitchen", "flights booked"):
                    qv = emb.encode([q])[0]
                    assert live.dense(qv, 25, exact=True) == fresh.dense(qv, 25, exact=True)
            finally:
                fresh.close()
    finally:
        live.close()


def test_an_index_whose_first_snapshot_had_no_vectors_reads_them_once_they_come(tmp_path):
    """A vault with no vector yet (no topic, say) gets its first: the patched snapshot reads the
    cache rather than start a copy, opens it again as rows are appended, and answers as a fresh
    load does."""
    syn = generate(tmp_path / "v", 20, seed=3, embedding=False, git=False)
    vault, emb = Vault(syn.root), HashEmbedder(dim=32)
    aside = tmp_path / "aside"
    (syn.root / "topics").rename(aside)
    (syn.root / "topics").mkdir()
    live = Index(vault, emb)
    try:
        live.refresh()
        assert not live.snapshot().vec_ids and live.snapshot().quick is None
        mapped_rows = 0
        for path in sorted(aside.glob("*.md"))[:3]:
            path = path.rename(syn.root / "topics" / path.name)
            live.refresh([str(path)])
            assert live._snapshot is not None and live._snapshot.generation == live.generation, "not patched"
            snap = live.snapshot()
            assert snap.vec_ids and snap.quick is not None and not snap.held and snap.matrix.shape[0] == 0
            assert len(snap.quick) > mapped_rows
            mapped_rows = len(snap.quick)
            del snap
        # The snapshots replaced let go of their open files (no collection needed): one of each is
        # left, and nothing of either is mapped between questions.
        maps, fds = Path("/proc/self/maps"), Path("/proc/self/fd")
        if maps.exists():
            cache = live.vectors()
            assert cache is not None
            live.dense(emb.encode(["cake party"])[0], 25)
            assert not any(line.endswith((str(cache.quick_path), str(cache.data_path)))
                           for line in maps.read_text().splitlines())
            for path in (cache.quick_path, cache.data_path):
                assert sum(os.readlink(fd) == str(path) for fd in fds.iterdir() if fd.is_symlink()) == 1
        fresh = Index(vault, emb)
        try:
            for q in ("cake party", "flights booked", "the kitchen"):
                qv = emb.encode([q])[0]
                assert live.dense(qv, 25) == fresh.dense(qv, 25)
        finally:
            fresh.close()
    finally:
        live.close()


def test_a_snapshot_reads_any_number_of_citations_from_the_index_as_stored(tmp_path):
    """Snapshot.cites reads a question's citations in few statements (the id list padded to a
    power of two, 512 ids at most a statement): for one document, a few, or every document of a
    vault (several statements), it gives exactly what the index stores, under each document's id."""
    import sqlite3

    syn = generate(tmp_path / "v", 120, seed=5, embedding=False, git=False)
    index = Index(Vault(syn.root), HashEmbedder(dim=32))
    try:
        index.refresh()
        snap = index.snapshot()
        with sqlite3.connect(index.folder / "state.db") as db:
            stored = dict(db.execute("SELECT doc_id, cites FROM docs"))
        docs = sorted(snap.docs.values(), key=lambda d: d.doc_id)
        assert len(docs) > 600 and all(d.cites is None for d in docs)
        for picked in (docs[:1], docs[:3], docs[5:6] + docs[:5], docs[:513], docs):
            assert snap.cites(picked) == {d.doc_id: stored[d.doc_id] for d in picked}
    finally:
        index.close()
