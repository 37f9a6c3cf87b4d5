"""Recall end to end on real vaults: real Tantivy index, the real embedding model, real git."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from memory_fixtures import build, day, write_wake_packet

from sheriff_vault.errors import TimePhraseError, VaultError
from sheriff_vault.index.engine import Index
from sheriff_vault.retrieval.ranking import recall
from sheriff_vault.retrieval.reply import PREAMBLE

pytestmark = pytest.mark.slow
NOW = day("2026-02-24T10:00:00")


@pytest.fixture
def filled(vault):
    build(vault)
    return vault


def names(result) -> list[str]:
    return [t.name for t in result.topics]


def test_alias_recalls_the_right_topic_without_being_asked(filled):
    result = recall(filled, "is the party still on saturday?", now=NOW)
    assert names(result)[0] == "Caroline's birthday party"
    assert result.topics[0].signals["alias"] == 1.0
    text = result.render(2000)
    assert text.startswith(PREAMBLE)
    assert "Riverside Park" in text and "[t1]" in text


def test_semantic_match_without_shared_words(filled):
    result = recall(filled, "when do we fly to Portugal for the company trip", now=NOW)
    assert names(result)[0] == "Team offsite in Lisbon"


def test_facts_carry_dates_and_citations_in_json(filled):
    data = recall(filled, "postgres upgrade failure", now=NOW).to_json()
    top = data["topics"][0]
    assert top["name"] == "Database migration"
    assert top["path"] == "topics/database-migration.md"
    fact = next(f for f in top["facts"] if "invoices" in f["text"])
    assert fact["date"] == "2026-02-17T00:00:00Z"
    assert fact["citations"] == [{"file": "conversations/x.md", "turns": ["t2"]}]
    assert {"bm25", "embedding"} <= set(fact["signals"])
    assert "verify" in data["notice"]


def test_a_snapshot_reads_citations_from_the_index_and_knows_when_the_index_moved_on(hash_vault):
    """An open vault holds no document's citations: its snapshot reads them from the index for
    the facts recall shows, the lines a small update patched in included. A snapshot of a
    generation the index has moved past says so (StaleSnapshot) rather than read the lines that
    replaced its own under the same ids."""
    from sheriff_vault.index.snapshot import StaleSnapshot

    build(hash_vault)
    index = Index(hash_vault)
    try:
        index.refresh()
        snap = index.snapshot()
        assert snap.docs and all(d.cites is None for d in snap.docs.values())
        fact = next(d for d in snap.docs.values() if "invoices" in d.text)
        assert snap.citations(fact) == [{"file": "conversations/x.md", "turns": ["t2"]}]
        path = hash_vault.root / fact.path
        path.write_text(path.read_text().replace("invoices table", "payments table"))
        index.refresh([str(path)])
        patched = index.snapshot()
        assert patched is not snap and patched.generation == snap.generation + 1
        line = patched.docs[fact.doc_id]
        assert "payments" in line.text and line.cites is None
        assert patched.cites([line]) == {fact.doc_id: '[{"file": "conversations/x.md", "turns": ["t2"]}]'}
        with pytest.raises(StaleSnapshot):
            snap.cites([fact])
        index.close()
        with pytest.raises(StaleSnapshot):
            patched.cites([line])
    finally:
        index.close()


def test_recall_asks_a_fresh_snapshot_when_another_writer_changes_the_index_under_a_question(hash_vault):
    """Another process may index the vault while a question is ranked on the snapshot taken at its
    start: when a citation it then reads is not of that snapshot's generation, the question is
    asked again of a fresh one, and shows the new line with its own citations."""
    from sheriff_vault.index.embed import HashEmbedder

    build(hash_vault)
    other = Index(hash_vault)  # another writer, with a connection and lock of its own
    path = hash_vault.root / "topics/database-migration.md"

    class WritesOnce(HashEmbedder):
        """Embeds as the vault's hash embedder does; the first question it embeds once armed (after
        the question's snapshot is taken, before its facts are ranked), the other writer edits a line."""

        armed, asked = False, 0

        def encode(self, texts, workers=1):
            if self.armed:
                self.asked += 1
                if self.asked == 1:
                    path.write_text(path.read_text().replace("invoices table", "payments table"))
                    other.refresh([str(path)])
            return super().encode(texts, workers)

    embedder = WritesOnce(other.embedder.dim)
    assert embedder.model_id == other.embedder.model_id  # one embedding cache for both
    index = Index(hash_vault, embedder)
    try:
        index.refresh()
        before = index.snapshot().generation
        embedder.armed = True
        result = recall(hash_vault, "the migration dry run", index=index, now=NOW, refresh=False)
        assert embedder.asked == 2 and index.snapshot().generation == before + 1  # asked again, once
        facts = [f for t in result.topics for f in t.facts if "dry run" in f.text]
        assert [f.text for f in facts] == ["The migration dry run failed on the payments table because of a "
                                           "missing index."]
        assert facts[0].citations == [{"file": "conversations/x.md", "turns": ["t2"]}]
    finally:
        index.close()
        other.close()


def test_last_week_restricts_to_that_window(filled):
    result = recall(filled, "what did we work on last week?", now=NOW)
    assert result.mode == "deep"
    assert result.window.start == day("2026-02-16T00:00:00") and result.window.end == day("2026-02-23T00:00:00")
    assert set(names(result)) == {"Database migration", "Team offsite in Lisbon"}


def test_before_you_slept_uses_the_wake_packet(filled):
    write_wake_packet(filled, day("2026-02-12T00:00:00"))
    result = recall(filled, "what were we doing before you slept?", now=NOW)
    assert result.window.end == day("2026-02-12T00:00:00") and result.window.start is None
    assert set(names(result)) == {"Caroline's birthday party", "Vegetable garden"}
    after = recall(filled, "what happened since you woke up", now=NOW)
    assert set(names(after)) == {"Database migration", "Team offsite in Lisbon"}


def test_since_and_until_flags(filled):
    result = recall(filled, "anything", since="2026-02-01", until="2026-02-15", now=NOW, deep=True)
    assert names(result) == ["Caroline's birthday party"]
    with pytest.raises(TimePhraseError):
        recall(filled, "anything", since="banana", now=NOW)
    with pytest.raises(VaultError):
        recall(filled, "anything", since="2026-02-15", until="2026-02-01", now=NOW)


def test_budget_is_respected_and_spent_on_the_best_facts(filled):
    result = recall(filled, "party budget", now=NOW)
    small = result.render(200)
    assert len(small) <= 200
    assert "400 USD" in small
    big = result.render(5000)
    assert len(big) > len(small)


def test_light_and_deep_modes(filled):
    light = recall(filled, "tomatoes in the raised beds", now=NOW)
    assert light.mode == "light" and light.triggers == []
    remember = recall(filled, "do you remember what we said about tomatoes", now=NOW)
    assert remember.mode == "deep" and remember.triggers[0].name == "memory_reference"
    switch = recall(filled, "anyway, tomatoes in the raised beds", now=NOW)
    assert "context_switch" in [t.name for t in switch.triggers]
    trace = recall(filled, "Traceback (most recent call last):\n  File \"m.py\", line 3\nKeyError: 'invoices'", now=NOW)
    assert "debug_recurrence" in [t.name for t in trace.triggers]
    vague = recall(filled, "hmm", now=NOW)
    assert "low_confidence" in [t.name for t in vague.triggers]
    forced = recall(filled, "tomatoes in the raised beds", now=NOW, deep=True)
    assert forced.mode == "deep"


def test_reintroduced_entity_triggers_deep_unless_in_tail(filled):
    fired = recall(filled, "how is the Lisbon trip going", now=NOW)
    assert "reintroduced_entity" in [t.name for t in fired.triggers]
    quiet = recall(filled, "how is the Lisbon trip going", tail="user: we booked Lisbon flights", now=NOW)
    assert "reintroduced_entity" not in [t.name for t in quiet.triggers]


def test_deep_mode_expands_along_related_links(filled):
    from sheriff_vault.store.edits import link_topics

    link_topics(filled, "Team offsite in Lisbon", "Vegetable garden", "RELATES_TO", 1.0)
    result = recall(filled, "remember the offsite flights?", now=NOW, k=1)
    assert result.mode == "deep"
    assert result.topics[0].name == "Team offsite in Lisbon"
    expanded = [t for t in result.topics if t.signals.get("expanded_from")]
    assert [t.name for t in expanded] == ["Vegetable garden"]


def test_a_topic_that_only_came_up_next_brings_no_unrelated_lines(filled):
    """Sleep links subjects in the order they came up (NEXT/PREV). That order is no relation: the
    garden that came up after the offsite is not context for the offsite's flights, so its lines,
    which match nothing asked, stay out; a link that states a relation brings its best lines."""
    from sheriff_vault.store.edits import link_topics

    link_topics(filled, "Team offsite in Lisbon", "Vegetable garden", "NEXT", 1.0)
    result = recall(filled, "remember the offsite flights?", now=NOW, k=1)
    assert result.mode == "deep" and result.topics[0].name == "Team offsite in Lisbon"
    assert "Vegetable garden" not in names(result)
    link_topics(filled, "Team offsite in Lisbon", "Vegetable garden", "RELATES_TO", 1.0)
    related = recall(filled, "remember the offsite flights?", now=NOW, k=1)
    assert "Vegetable garden" in names(related)


def test_evergreen_topics_do_not_decay(vault):
    from sheriff_vault.store.edits import create_topic

    create_topic(vault, "Coding style", now=day("2024-01-01T00:00:00"), facts=["Always use type hints."],
                 evergreen=True)
    create_topic(vault, "Coding chores", now=day("2024-01-01T00:00:00"), facts=["Always run the linter."])
    result = recall(vault, "coding rules", now=NOW, explain=True)
    by_name = {c.name: c.signals for c in result.candidates}
    assert by_name["Coding style"]["recency"] == 1.0
    assert by_name["Coding chores"]["recency"] < 0.51


def test_explain_lists_every_signal(filled, invoke):
    out = invoke("recall", "the party", "--explain", "--no-daemon", "--now", "2026-02-24T10:00:00Z",
                 "--vault", filled.root)
    assert out.exit_code == 0
    for word in ("mode: light", "triggers:", "window: none",
                 "rel=", "bm25=", "emb=", "alias=", "util=", "rec=", "win="):
        assert word in out.stdout


def test_bad_queries_get_clear_messages(filled, invoke):
    empty = invoke("recall", "", "--vault", filled.root)
    assert empty.exit_code == 1 and "query is empty" in empty.output
    huge = invoke("recall", "party " * 20000, "--no-daemon", "--json", "--vault", filled.root)
    assert huge.exit_code == 0
    assert "used the first 4000" in huge.stderr
    assert json.loads(huge.stdout)["topics"]
    unknown = invoke("recall", "x", "--frobnicate", "--vault", filled.root)
    assert unknown.exit_code == 2 and "No such option" in unknown.output
    not_time = invoke("recall", "x", "--since", "the party", "--vault", filled.root)
    assert not_time.exit_code == 1 and "not a time phrase" in not_time.output


def test_broken_topic_is_skipped_with_a_warning_and_others_indexed(filled):
    (filled.root / "topics" / "broken.md").write_text("---\nid: [oops\n---\n")
    result = recall(filled, "the party", now=NOW)
    assert names(result)[0] == "Caroline's birthday party"
    assert any("topics/broken.md" in w for w in result.warnings)


def test_recall_catches_up_with_edits_and_deletions_without_a_daemon(filled):
    index = Index(filled)
    assert recall(filled, "the party", index=index, now=NOW).topics
    path = filled.root / "topics" / "vegetable-garden.md"
    path.write_text(path.read_text().replace("raised beds", "zanzibar planters"))
    hit = recall(filled, "zanzibar planters", index=index, now=NOW)
    assert names(hit)[0] == "Vegetable garden" and "zanzibar" in hit.render(2000)
    path.unlink()
    gone = recall(filled, "zanzibar planters tomatoes garden", index=index, now=NOW)
    assert "Vegetable garden" not in names(gone)
    index.close()


def test_processes_that_open_a_new_index_at_once_all_read_it(vault):
    """A hook's reindex and a skill's recall can open a vault's first index at the same moment; one
    must not take the other's half-made index for a corrupt one and delete it under it ("no such
    table: meta")."""
    from conftest import use_hash_embedder

    use_hash_embedder(vault)
    code = ("import sys; from sheriff_vault.store.vault import Vault; from sheriff_vault.index.engine import Index;"
            "ix = Index(Vault(sys.argv[1])); ix.open(); print(ix.meta('schema_version'))")
    for _ in range(3):
        shutil.rmtree(vault.cache / "index", ignore_errors=True)
        procs = [subprocess.Popen([sys.executable, "-c", code, str(vault.root)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(6)]
        outs = [p.communicate(timeout=120) for p in procs]
        assert all(p.returncode == 0 and out.strip() for p, (out, _) in zip(procs, outs, strict=True)), \
            [err[-300:] for _, err in outs]
        assert not any("unreadable" in err for _, err in outs), [err[-300:] for _, err in outs]


def test_a_window_of_many_topics_weighs_only_the_most_used_that_nothing_matched(filled, monkeypatch):
    """A big vault's "what was going on in May?" holds thousands of topics that all score the
    window's floor times their use: only the WINDOW_ONLY most used are weighed, and what is shown
    stays the same."""
    from sheriff_vault.retrieval import ranking

    question = "what was going on in February 2026?"  # BM25 alone: only the offsite matches nothing
    whole = recall(filled, question, now=NOW, k=2, explain=True, dense=False)
    assert len(whole.candidates) == 3 and len(names(whole)) == 2
    assert whole.candidates[-1].name == "Team offsite in Lisbon" and whole.candidates[-1].signals["bm25"] == 0
    monkeypatch.setattr(ranking, "WINDOW_ONLY", 0)
    capped = recall(filled, question, now=NOW, k=2, explain=True, dense=False)
    assert [t.path for t in capped.candidates] == [t.path for t in whole.candidates][:2]
    assert names(capped) == names(whole) and capped.order == whole.order


def test_an_index_another_version_made_is_rebuilt_and_said_to_be_that(vault):
    """After an upgrade the index's schema is older: it is rebuilt from the files, with a note that
    names the versions, not a warning that it was damaged; a damaged one still gets the warning."""
    import sqlite3

    from conftest import hook_finished, use_hash_embedder

    from sheriff_vault.index.engine import SCHEMA_VERSION

    use_hash_embedder(vault)
    build(vault)
    hook_finished(vault.root)  # its reindex would otherwise race the damage done below
    first = Index(vault).open()
    first.refresh()
    first.close()
    db = sqlite3.connect(vault.cache / "index" / "state.db")
    with db:
        db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION - 1),))
    db.close()
    said: list[str] = []
    index = Index(vault, log=said.append).open()
    assert index.meta("schema_version") == str(SCHEMA_VERSION)
    index.close()
    assert len(said) == 1 and said[0].startswith("note: the search index was made by another version"), said
    assert f"index schema {SCHEMA_VERSION - 1}; this version reads {SCHEMA_VERSION}" in said[0]
    (vault.cache / "index" / "state.db").write_bytes(b"not a database")
    said.clear()
    Index(vault, log=said.append).open().close()
    assert len(said) == 1 and said[0].startswith("warning: the search index was unreadable"), said
