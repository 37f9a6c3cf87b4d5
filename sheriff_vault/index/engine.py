"""The search index in .vault/index: Tantivy BM25 plus embeddings, a cache of the vault's files.

The only module that imports tantivy. Files are the truth: every update compares the files on
disk with the (size, mtime, sha1) recorded for them and re-reads only what changed; a missing or
corrupt index is rebuilt from the files. One writer at a time holds .vault/index.lock.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sheriff_vault import faults
from sheriff_vault.errors import VaultError
from sheriff_vault.index.docs import (
    DOC_COLUMNS,
    TOPIC_FIELDS,
    Doc,
    EventRow,
    FileDocs,
    TopicRow,
    doc_from_row,
    event_docs,
    kind_of,
    searchable,
    skill_docs,
    speaker_of,
    topic_docs,
    topic_from_row,
)
from sheriff_vault.index.embed import Embedder, EmbeddingUnavailable
from sheriff_vault.index.vectors import VectorCache
from sheriff_vault.store import gitlog
from sheriff_vault.store.locks import FileLock
from sheriff_vault.store.topics import Topic
from sheriff_vault.text import STOPWORDS, norm

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

SCHEMA_VERSION = 7
MAX_FILE_BYTES = 2 * 1024 * 1024
_WORD = re.compile(r"\w+", re.UNICODE)
Progress = Callable[[str, int, int], None]


@dataclass
class UpdateStats:
    scanned: int = 0
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    embedded: int = 0
    warnings: list[str] = field(default_factory=list)
    rebuilt: str = ""
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {"scanned": self.scanned, "changed": self.changed, "removed": self.removed, "embedded": self.embedded,
                "warnings": self.warnings, "rebuilt": self.rebuilt, "seconds": round(self.seconds, 3)}


@dataclass
class Snapshot:
    """An immutable in-memory view of one index generation; recall reads only this.

    Row i of `matrix` is the vector of document `vec_ids[i]`. A snapshot patched after a small
    update (Index._patched) may keep rows of documents that are gone: their `vec_ids` entry is
    None, their row is listed in `dead`, and `row_of` and `dense` skip them. Live rows keep the
    order a full load from the database gives, so both rank ties the same way.
    """

    generation: int
    docs: dict[str, Doc]
    topics: dict[str, TopicRow]
    events: list[EventRow]
    vec_ids: list[str | None]
    matrix: np.ndarray
    by_id: dict[str, str]
    head: str | None
    row_of: dict[str, int] = field(default_factory=dict)
    speakers: set[str] = field(default_factory=set)
    dead: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    speaker_count: dict[str, int] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.row_of:
            self.row_of = {d: i for i, d in enumerate(self.vec_ids) if d is not None}
        if self.speaker_count is None:
            count: dict[str, int] = {}
            for d in self.docs.values():
                if s := speaker_of(d.text):
                    count[s.lower()] = count.get(s.lower(), 0) + 1
            self.speaker_count = count
        self.speakers = set(self.speaker_count)

    @property
    def vectors(self) -> int:
        return len(self.vec_ids) - len(self.dead)

    def topic_by_ref(self, ref: str) -> TopicRow | None:
        path = self.by_id.get(ref)
        return self.topics.get(path) if path else None

    # Lookups recall needs on every query, built once per snapshot (a patched one builds its own),
    # so a query's cost does not grow with every document and topic in the vault.
    @cached_property
    def docs_of_topic(self) -> dict[str, list[Doc]]:
        out: dict[str, list[Doc]] = {}
        for doc in self.docs.values():
            out.setdefault(doc.topic_path, []).append(doc)
        return out

    @cached_property
    def names_of_topic(self) -> dict[str, list[str]]:
        """Topic path -> its name and aliases, normalised (text.norm)."""
        return {path: [norm(n) for n in (t.name, *t.aliases)] for path, t in self.topics.items()}

    @cached_property
    def names(self) -> dict[str, set[str]]:
        """Normalised topic name or alias (3+ characters) -> the paths of the topics it names."""
        out: dict[str, set[str]] = {}
        for path, names in self.names_of_topic.items():
            for n in names:
                if len(n) >= 3:
                    out.setdefault(n, set()).add(path)
        return out

    @cached_property
    def longest_name(self) -> int:
        return max((n.count(" ") + 1 for n in self.names), default=0)

    @cached_property
    def events_of_topic(self) -> dict[str, list[EventRow]]:
        out: dict[str, list[EventRow]] = {}
        for event in self.events:
            out.setdefault(event.topic_path, []).append(event)
        return out

    @cached_property
    def times(self) -> TimeTable:
        return TimeTable.of(self)


@dataclass
class TimeTable:
    """Every topic's times as arrays of epoch seconds (last seen, its dated items' windows, its
    events), so "which topics fall in this window" is a few vector comparisons per query."""

    paths: list[str]
    last_seen: np.ndarray
    item_topic: np.ndarray
    item_start: np.ndarray
    item_end: np.ndarray
    event_topic: np.ndarray
    event_at: np.ndarray

    @classmethod
    def of(cls, snap: Snapshot) -> TimeTable:
        from sheriff_vault.timewin import parse_instant

        def epoch(text: str) -> float:
            try:
                return parse_instant(text).timestamp()
            except Exception:
                return np.nan

        paths = sorted(snap.topics)
        index = {p: i for i, p in enumerate(paths)}
        last = [t.last_seen_at.timestamp() if t.last_seen_at else np.nan for t in (snap.topics[p] for p in paths)]
        items = [(i, epoch(a), epoch(b)) for i, p in enumerate(paths) for a, b in snap.topics[p].item_windows]
        events = [(index[e.topic_path], epoch(e.at)) for e in snap.events if e.topic_path in index]
        items_arr = np.array(items, dtype=np.float64).reshape(-1, 3)
        events_arr = np.array(events, dtype=np.float64).reshape(-1, 2)
        return cls(paths, np.array(last, dtype=np.float64), items_arr[:, 0].astype(np.int64), items_arr[:, 1],
                   items_arr[:, 2], events_arr[:, 0].astype(np.int64), events_arr[:, 1])

    def topics_in(self, start: dt.datetime | None, end: dt.datetime | None) -> set[str]:
        """Topics last seen in [start, end), with a dated item overlapping it, or an event in it."""
        s = start.timestamp() if start else -np.inf
        e = end.timestamp() if end else np.inf
        hit = np.zeros(len(self.paths), dtype=bool)
        with np.errstate(invalid="ignore"):
            hit |= (self.last_seen >= s) & (self.last_seen < e)
            hit[self.item_topic[(self.item_start < e) & (self.item_end > s)]] = True
            hit[self.event_topic[(self.event_at >= s) & (self.event_at < e)]] = True
        return {self.paths[i] for i in np.flatnonzero(hit)}


def _by_id(topics: dict[str, TopicRow]) -> dict[str, str]:
    by_id: dict[str, str] = {}
    for path, t in sorted(topics.items()):
        by_id.setdefault(t.topic_id, path)
        by_id.setdefault(t.slug, path)
    return by_id


def _shared(doc: Doc, strings: dict[str, str]) -> Doc:
    """The doc with its often-repeated strings (its file, kind, date, topic names) replaced by one
    shared copy: a topic's docs repeat them, and at 10k topics the copies cost tens of MB of a
    daemon's memory."""
    one = strings.setdefault
    doc.kind, doc.path, doc.date = one(doc.kind, doc.kind), one(doc.path, doc.path), one(doc.date, doc.date)
    doc.topic_path, doc.topic_text = one(doc.topic_path, doc.topic_path), one(doc.topic_text, doc.topic_text)
    # Kept as JSON text, as a load from the database gives (see Doc); mentions are mostly "[]".
    if not isinstance(doc.cites, str):
        doc.cites = json.dumps(doc.cites)
    mentions = doc.mentions if isinstance(doc.mentions, str) else json.dumps(doc.mentions)
    doc.mentions = one(mentions, mentions)
    return doc


def _spare(rows: int) -> int:
    """Room for rows appended by later small updates (untouched pages of np.empty cost no memory)."""
    return rows + max(1024, rows // 8)


def _schema() -> Any:
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("doc_id", stored=True, tokenizer_name="raw")
    sb.add_text_field("path", tokenizer_name="raw")
    sb.add_text_field("kind", tokenizer_name="raw")
    sb.add_text_field("text", tokenizer_name="en_stem")
    sb.add_text_field("topic", tokenizer_name="en_stem")
    sb.add_date_field("day", fast=True, indexed=True)
    return sb.build()


def embed_text(doc: Doc, topic: TopicRow | None) -> str:
    """What gets a vector: a topic's one-liner (its canonical key), an item's own words."""
    if doc.kind == "topic" and topic is not None:
        return searchable(topic.one_liner or topic.name)
    return searchable(doc.text)


def query_terms(text: str) -> str:
    """User text as plain lowercase content words, so Tantivy's query syntax never trips on it and
    words like "the" or "we" never outweigh the words that carry the question."""
    words = [w.lower() for w in _WORD.findall(text)[:256]]
    content = [w for w in words if w not in STOPWORDS]
    return " ".join(content or words)


class Index:
    def __init__(self, vault: Vault, embedder: Embedder | None = None, *, log: Callable[[str], None] | None = None,
                 embeddings: Path | None = None) -> None:
        self.vault = vault
        self.folder = vault.cache / "index"
        self.embeddings_dir = embeddings or vault.cache / "embeddings"
        self.cfg = vault.config
        self.embedder = embedder if embedder is not None else (
            Embedder.from_settings(self.cfg.embedding) if self.cfg.embedding.enabled else None)
        self.log = log or (lambda msg: None)
        self._tindex: Any = None
        self._db: sqlite3.Connection | None = None
        self._vectors: VectorCache | None = None
        self._snapshot: Snapshot | None = None
        self._tail: tuple[np.ndarray, int] | None = None  # (matrix buffer, rows written into it)
        self._strings: dict[str, str] = {}  # one copy of each path, kind, date and name string in memory
        self.embedding_warning: str | None = None

    # -- opening --------------------------------------------------------------------------------
    def lock(self, timeout: float = 120.0) -> FileLock:
        return FileLock(self.vault.cache / "index.lock", what="search index", timeout=timeout)

    def _open_parts(self) -> None:
        import tantivy

        self.folder.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.folder / "state.db", timeout=30, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(f"""
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, sha1 TEXT, error TEXT);
            CREATE TABLE IF NOT EXISTS docs (doc_id TEXT PRIMARY KEY, kind TEXT, path TEXT, topic_path TEXT, text TEXT,
                topic_text TEXT, date TEXT, line INTEGER, cites TEXT, done INTEGER, mentions TEXT, vec TEXT);
            CREATE INDEX IF NOT EXISTS docs_path ON docs(path);
            CREATE TABLE IF NOT EXISTS topics ({", ".join(TOPIC_FIELDS)}, PRIMARY KEY (path));
            CREATE TABLE IF NOT EXISTS events (path TEXT PRIMARY KEY, topic_id TEXT, topic_path TEXT, at TEXT,
                summary TEXT, turns TEXT, conversation TEXT);
        """)
        version = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if version is None:
            db.execute("INSERT INTO meta VALUES ('schema_version', ?), ('generation', '0')", (str(SCHEMA_VERSION),))
            db.commit()
        elif int(version[0]) != SCHEMA_VERSION:
            db.close()
            raise _Corrupt(f"index schema {version[0]} is not {SCHEMA_VERSION}")
        self._db = db
        (self.folder / "tantivy").mkdir(exist_ok=True)
        self._tindex = tantivy.Index(_schema(), path=str(self.folder / "tantivy"), reuse=True)

    def open(self) -> Index:
        """Open the index, rebuilding it (with a one-line warning) if it is missing or unreadable."""
        if self._db is not None:
            return self
        has_db = (self.folder / "state.db").exists()
        has_tantivy = (self.folder / "tantivy" / "meta.json").exists()
        try:
            if has_db != has_tantivy:
                raise _Corrupt("half of it is missing")
            self._open_parts()
            if has_db:
                self._db.execute("SELECT count(*) FROM docs").fetchone()
        except (_Corrupt, sqlite3.DatabaseError, ValueError, OSError) as exc:
            self.close()
            self.log(f"warning: the search index was unreadable ({exc}); rebuilding it from the files")
            with self.lock():
                shutil.rmtree(self.folder, ignore_errors=True)
            self._open_parts()
        return self

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
        if self._vectors is not None:
            self._vectors.close()
        self._db, self._tindex, self._vectors, self._snapshot, self._tail = None, None, None, None, None

    @property
    def db(self) -> sqlite3.Connection:
        self.open()
        assert self._db is not None
        return self._db

    def meta(self, key: str, default: str = "") -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    @property
    def generation(self) -> int:
        return int(self.meta("generation", "0"))

    def vectors(self) -> VectorCache | None:
        """The embedding cache, or None when embeddings are off or the model will not load."""
        if self.embedder is None:
            return None
        if self._vectors is None:
            try:
                dim = VectorCache.known_dim(self.embeddings_dir, self.embedder.model_id) or self.embedder.dim
            except EmbeddingUnavailable as exc:
                if self.embedding_warning is None:
                    self.embedding_warning = str(exc)
                    self.log(f"warning: {exc}")
                return None
            self._vectors = VectorCache(self.embeddings_dir, self.embedder.model_id, dim)
        return self._vectors

    # -- updating -------------------------------------------------------------------------------
    def _scan(self) -> dict[str, os.stat_result]:
        found: dict[str, os.stat_result] = {}
        root = self.vault.root
        for folder, pattern in (("topics", "*.md"), ("events", "*/*/*/*.md"), ("skills", "*/manifest.json")):
            base = root / folder
            if base.is_dir():
                for path in base.glob(pattern):
                    rel = path.relative_to(root).as_posix()
                    if kind_of(rel):
                        try:
                            found[rel] = path.stat()
                        except FileNotFoundError:
                            continue
        return found

    def stale_paths(self) -> tuple[dict[str, os.stat_result], list[str], list[str]]:
        """Files whose size or mtime differ from what the index recorded, and files it has that are gone."""
        on_disk = self._scan()
        known = {p: (s, m) for p, s, m in self.db.execute("SELECT path, size, mtime_ns FROM files")}
        changed = [p for p, st in on_disk.items() if known.get(p) != (st.st_size, st.st_mtime_ns)]
        removed = [p for p in known if p not in on_disk]
        return on_disk, changed, removed

    def _stale_among(self, wanted: Iterable[str]) -> tuple[dict[str, os.stat_result], list[str], list[str]]:
        """stale_paths() for just these vault-relative paths: no walk over every file, which costs
        more than indexing one saved file once the vault holds thousands of topics."""
        on_disk: dict[str, os.stat_result] = {}
        known: dict[str, tuple[int, int]] = {}
        for rel in wanted:
            if kind_of(rel):
                try:
                    on_disk[rel] = (self.vault.root / rel).stat()
                except (FileNotFoundError, NotADirectoryError):
                    pass
            row = self.db.execute("SELECT size, mtime_ns FROM files WHERE path=?", (rel,)).fetchone()
            if row is not None:
                known[rel] = (row[0], row[1])
        changed = sorted(p for p, st in on_disk.items() if known.get(p) != (st.st_size, st.st_mtime_ns))
        removed = sorted(p for p in known if p not in on_disk)
        return on_disk, changed, removed

    def is_fresh(self) -> bool:
        _, changed, removed = self.stale_paths()
        return not changed and not removed and not self.meta("pending") and not self._missing_vectors()

    def _missing_vectors(self) -> bool:
        return self.meta("vectors_missing") == "1" and self.embedder is not None and self.embedding_warning is None

    def refresh(self, paths: Iterable[str] | None = None, *, progress: Progress | None = None,
                lock_timeout: float = 120.0) -> UpdateStats:
        """Bring the index up to date with the files (all of them, or just `paths`)."""
        start = time.monotonic()
        stats = UpdateStats()
        with self.lock(lock_timeout):
            pending = json.loads(self.meta("pending") or "[]")
            if paths is not None:
                wanted = {self._norm(p) for p in paths} | set(pending)
                on_disk, changed, removed = self._stale_among(wanted)
            else:
                on_disk, changed, removed = self.stale_paths()
            stats.scanned = len(on_disk)
            if paths is None:
                changed = sorted(set(changed) | {p for p in pending if p in on_disk})
                removed = sorted(set(removed) | {p for p in pending if p not in on_disk})
            if changed or removed or self._missing_vectors():
                self._apply(changed, removed, on_disk, stats, progress)
        stats.seconds = time.monotonic() - start
        return stats

    def rebuild(self, *, progress: Progress | None = None) -> UpdateStats:
        with self.lock():
            self.close()
            shutil.rmtree(self.folder, ignore_errors=True)
            self.open()
        stats = self.refresh(progress=progress)
        stats.rebuilt = "requested"
        return stats

    def _norm(self, path: str) -> str:
        p = Path(path)
        if p.is_absolute():
            try:
                return p.resolve().relative_to(self.vault.root).as_posix()
            except ValueError:
                return p.as_posix()
        return p.as_posix()

    def _read(self, rel: str, st: os.stat_result) -> tuple[str | None, str | None, FileDocs | None]:
        """(sha1, error, docs) for one file; a bad file yields an error and no docs, never an exception."""
        path = self.vault.root / rel
        if st.st_size > MAX_FILE_BYTES:
            return f"size:{st.st_size}", f"{rel}: skipped, {st.st_size // 1024} KB is over the 2 MB limit", None
        try:
            raw = path.read_bytes()
        except OSError as exc:
            return None, f"{rel}: skipped, cannot read ({exc.strerror})", None
        sha = hashlib.sha1(raw).hexdigest()
        kind = kind_of(rel)
        try:
            text = raw.decode("utf-8")
            if kind == "topic":
                return sha, None, topic_docs(Topic.parse(text, path, rel))
            if kind == "event":
                return sha, None, event_docs(rel, text)
            return sha, None, skill_docs(rel, text)
        except UnicodeDecodeError:
            return sha, f"{rel}: skipped, not valid UTF-8", None
        except VaultError as exc:
            return sha, f"skipped {exc}", None
        except Exception as exc:  # a malformed event or manifest must not stop the others
            return sha, f"{rel}: skipped, {type(exc).__name__}: {exc}", None

    def _apply(self, changed: list[str], removed: list[str], on_disk: dict[str, os.stat_result], stats: UpdateStats,
               progress: Progress | None) -> None:
        import tantivy

        db = self.db
        base = self._snapshot
        if base is not None and (base.generation != self.generation or self.meta("vectors_missing") == "1"):
            base = None  # another writer got here first, or old documents are about to get vectors
        db.execute("INSERT OR REPLACE INTO meta VALUES ('pending', ?)", (json.dumps(sorted(set(changed) | set(removed))),))
        db.commit()
        read: dict[str, tuple[str | None, str | None, FileDocs | None]] = {}
        known_sha = dict(db.execute("SELECT path, sha1 FROM files"))
        total = len(changed)
        for i, rel in enumerate(changed):
            read[rel] = self._read(rel, on_disk[rel])
            if progress and (i % 200 == 0 or i == total - 1):
                progress("read", i + 1, total)
        content_changed = [p for p in changed if read[p][0] is None or read[p][0] != known_sha.get(p)]
        for rel in changed:
            if read[rel][1]:
                stats.warnings.append(read[rel][1])
        stats.changed = content_changed
        stats.removed = removed
        new_docs = [d for p in content_changed for d in (read[p][2].docs if read[p][2] else [])]
        topics_by_path = {p: read[p][2].topic for p in content_changed if read[p][2] and read[p][2].topic}
        vec_hash = self._embed(new_docs, topics_by_path, stats, progress)
        touched = content_changed + removed
        if touched:
            writer = self._tindex.writer(heap_size=64_000_000, num_threads=1)
            for rel in touched:
                writer.delete_documents_by_term("path", rel)
            for doc in new_docs:
                fields: dict[str, Any] = {"doc_id": doc.doc_id, "path": doc.path, "kind": doc.kind,
                                          "text": searchable(doc.text), "topic": doc.topic_text}
                when = doc.when
                if when:
                    fields["day"] = when
                writer.add_document(tantivy.Document(**fields))
            writer.commit()
            writer.wait_merging_threads()
            faults.point("index:tantivy-committed")
            self._tindex.reload()
        gone = [d for rel in touched for (d,) in db.execute("SELECT doc_id FROM docs WHERE path=?", (rel,))] \
            if base is not None else []
        events_changed = base is not None and (
            any(read[p][2] and read[p][2].event for p in content_changed)
            or any(db.execute("SELECT 1 FROM events WHERE path=?", (rel,)).fetchone() for rel in touched))
        with db:
            for rel in touched:
                db.execute("DELETE FROM docs WHERE path=?", (rel,))
                db.execute("DELETE FROM topics WHERE path=?", (rel,))
                db.execute("DELETE FROM events WHERE path=?", (rel,))
            for rel in removed:
                db.execute("DELETE FROM files WHERE path=?", (rel,))
            db.executemany(f"INSERT OR REPLACE INTO docs ({DOC_COLUMNS}, vec) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                           [(*d.row(), vec_hash.get(d.doc_id)) for d in new_docs])
            db.executemany(f"INSERT OR REPLACE INTO topics VALUES ({','.join('?' * len(TOPIC_FIELDS))})",
                           [t.row() for t in topics_by_path.values()])
            db.executemany("INSERT OR REPLACE INTO events VALUES (?,?,?,?,?,?,?)",
                           [tuple(r.__dict__.values()) for p in content_changed if read[p][2] and (r := read[p][2].event)])
            db.executemany("INSERT OR REPLACE INTO files VALUES (?,?,?,?,?)",
                           [(p, on_disk[p].st_size, on_disk[p].st_mtime_ns, read[p][0], read[p][1]) for p in changed])
            db.execute("INSERT OR REPLACE INTO meta VALUES ('pending', '')")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (gitlog.head(self.vault.root) or "",))
            db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")
        if base is not None:
            # Patch the snapshot in memory rather than let the next read load every document again.
            self._snapshot = None
            try:
                self._snapshot = self._patched(base, base.generation + 1, gone, new_docs, topics_by_path, touched,
                                               events_changed, vec_hash)
            except Exception as exc:  # a cache: the next snapshot() loads it all from the database
                self.log(f"warning: could not update the index snapshot in memory ({type(exc).__name__}: {exc})")
        faults.point("index:applied")

    def _embed(self, new_docs: list[Doc], topics: dict[str, TopicRow], stats: UpdateStats,
               progress: Progress | None) -> dict[str, str]:
        """Content hashes of each doc's vector, embedding only texts the cache has not seen."""
        cache = self.vectors()
        db = self.db
        if cache is None or self.embedder is None:
            if self.embedder is not None:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('vectors_missing', '1')")
            return {}
        backlog: list[tuple[str, str]] = []
        if self.meta("vectors_missing") == "1":
            rows = db.execute("SELECT d.doc_id, d.kind, d.text, t.one_liner, t.name FROM docs d "
                              "LEFT JOIN topics t ON t.path = d.topic_path WHERE d.vec IS NULL").fetchall()
            for doc_id, kind, text, one_liner, name in rows:
                body = (one_liner or name or text) if kind == "topic" else text
                backlog.append((doc_id, searchable(body)))
        texts = {d.doc_id: embed_text(d, topics.get(d.topic_path)) for d in new_docs}
        texts.update(dict(backlog))
        keys = {doc_id: self.embedder.key(t) for doc_id, t in texts.items()}
        todo = [(keys[i], texts[i]) for i in texts]
        total = len(todo)
        done = [0]

        def tick(n: int) -> None:
            done[0] += n
            if progress:
                progress("embed", done[0], total)

        before = len(cache.lookup([k for k, _ in todo]))
        cache.ensure(todo, self.embedder.encode, progress=tick)
        stats.embedded = len(set(k for k, _ in todo)) - before
        if backlog:
            db.executemany("UPDATE docs SET vec=? WHERE doc_id=?", [(keys[i], i) for i, _ in backlog])
        db.execute("INSERT OR REPLACE INTO meta VALUES ('vectors_missing', '0')")
        return keys

    # -- reading --------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """The current generation in memory; reloaded only when a writer has committed since."""
        gen = self.generation
        if self._snapshot is not None and self._snapshot.generation == gen:
            return self._snapshot
        db = self.db
        docs, hashes = {}, {}
        self._strings = {}
        for row in db.execute(f"SELECT {DOC_COLUMNS}, vec FROM docs"):
            doc = _shared(doc_from_row(row[:-1]), self._strings)
            docs[doc.doc_id] = doc
            if row[-1]:
                hashes[doc.doc_id] = row[-1]
        topics = {r[0]: topic_from_row(r) for r in db.execute(f"SELECT {', '.join(TOPIC_FIELDS)} FROM topics")}
        events = [EventRow(*r) for r in db.execute("SELECT * FROM events ORDER BY at")]
        vec_ids: list[str | None] = []
        matrix = np.zeros((0, 1), dtype=np.float32)
        cache = self.vectors() if hashes else None
        if cache is not None:
            rows = cache.lookup(list(hashes.values()))
            vec_ids = [d for d, h in hashes.items() if h in rows]
            if vec_ids:
                buffer = np.empty((_spare(len(vec_ids)), cache.dim), dtype=np.float32)
                matrix = cache.matrix(np.array([rows[hashes[d]] for d in vec_ids], dtype=np.int64),
                                      out=buffer[: len(vec_ids)])
                self._tail = (buffer, len(vec_ids))
        self._tindex.reload()
        self._snapshot = Snapshot(gen, docs, topics, events, vec_ids, matrix, _by_id(topics), self.meta("head") or None)
        return self._snapshot

    def _patched(self, base: Snapshot, generation: int, gone: list[str], new_docs: list[Doc],
                 topics: dict[str, TopicRow], touched: list[str], events_changed: bool,
                 vec_hash: dict[str, str]) -> Snapshot:
        """`base` with one update applied (what a full load would give, without re-reading every
        document): `gone` are the ids of the touched files' old documents, `new_docs` their new ones.

        Vectors of new documents go into the spare rows after the base's matrix (the base only ever
        sees its own rows); rows of gone documents are marked dead. When there is no spare room or
        a quarter of the rows are dead, the live rows are copied into a new buffer.
        """
        docs = dict(base.docs)
        speaker_count = dict(base.speaker_count or {})
        dead_rows = []
        for doc_id in gone:
            doc = docs.pop(doc_id, None)
            if doc is not None and (who := speaker_of(doc.text)):
                who = who.lower()
                speaker_count[who] -= 1
                if not speaker_count[who]:
                    del speaker_count[who]
            if (row := base.row_of.get(doc_id)) is not None:
                dead_rows.append(row)
        for doc in new_docs:
            docs[doc.doc_id] = _shared(doc, self._strings)
            if who := speaker_of(doc.text):
                speaker_count[who.lower()] = speaker_count.get(who.lower(), 0) + 1
        gone_paths = set(touched)
        new_topics = {p: t for p, t in base.topics.items() if p not in gone_paths}
        new_topics.update(topics)
        events = base.events
        if events_changed:
            events = [EventRow(*r) for r in self.db.execute("SELECT * FROM events ORDER BY at")]
        cache = self.vectors()
        wanted = [(d.doc_id, vec_hash[d.doc_id]) for d in new_docs if d.doc_id in vec_hash]
        found = cache.lookup([h for _, h in wanted]) if cache is not None and wanted else {}
        added = [(doc_id, found[h]) for doc_id, h in wanted if h in found]
        vec_ids: list[str | None] = list(base.vec_ids)
        for row in dead_rows:
            vec_ids[row] = None
        dead = np.union1d(base.dead, np.array(dead_rows, dtype=np.int64)).astype(np.int64)
        matrix = base.matrix
        compacted = False
        if added:
            fresh = cache.matrix(np.array([r for _, r in added], dtype=np.int64))
            used = matrix.shape[0]
            buffer = matrix.base if isinstance(matrix.base, np.ndarray) else None
            roomy = (buffer is not None and self._tail is not None and self._tail[0] is buffer
                     and self._tail[1] == used and matrix.ctypes.data == buffer.ctypes.data
                     and buffer.shape[1] == fresh.shape[1] == matrix.shape[1] and buffer.shape[0] >= used + len(added))
            if roomy and len(dead) * 4 <= used + len(added):
                buffer[used : used + len(added)] = fresh
                matrix = buffer[: used + len(added)]
                self._tail = (buffer, used + len(added))
            else:
                live = np.ones(used, dtype=bool)
                live[dead] = False
                keep = int(live.sum())
                buffer = np.empty((_spare(keep + len(added)), fresh.shape[1]), dtype=np.float32)
                if keep:
                    np.compress(live, matrix, axis=0, out=buffer[:keep])
                buffer[keep : keep + len(added)] = fresh
                matrix = buffer[: keep + len(added)]
                self._tail = (buffer, keep + len(added))
                vec_ids = [d for d in vec_ids if d is not None]
                dead = np.zeros(0, dtype=np.int64)
                compacted = True
            vec_ids += [doc_id for doc_id, _ in added]
        if compacted:
            row_of = {d: i for i, d in enumerate(vec_ids) if d is not None}
        else:
            row_of = dict(base.row_of)
            for doc_id in gone:
                row_of.pop(doc_id, None)
            for i in range(len(base.vec_ids), len(vec_ids)):
                row_of[vec_ids[i]] = i  # type: ignore[index]
        return Snapshot(generation, docs, new_topics, events, vec_ids, matrix, _by_id(new_topics), self.meta("head") or None,
                        row_of=row_of, dead=dead, speaker_count=speaker_count)

    def bm25(self, text: str, limit: int = 200, since: dt.datetime | None = None,
             until: dt.datetime | None = None) -> list[tuple[str, float]]:
        """Top documents by BM25 over item text (and, at lower weight, topic names and aliases)."""
        import tantivy

        terms = query_terms(text)
        if not terms:
            return []
        self.open()
        query = self._tindex.parse_query(terms, ["text"])
        if since or until:
            window = tantivy.Query.range_query(self._tindex.schema, "day", tantivy.FieldType.Date, since, until,
                                               include_upper=until is None)
            query = tantivy.Query.boolean_query([(tantivy.Occur.Must, query), (tantivy.Occur.Must, window)])
        searcher = self._tindex.searcher()
        hits = searcher.search(query, limit).hits
        return [(searcher.doc(addr)["doc_id"][0], float(score)) for score, addr in hits]

    def embed_query(self, text: str) -> np.ndarray | None:
        if self.embedder is None or not text.strip():
            return None
        try:
            return self.embedder.encode([text[:2000]])[0]
        except EmbeddingUnavailable as exc:
            if self.embedding_warning is None:
                self.embedding_warning = str(exc)
                self.log(f"warning: {exc}")
            return None

    def dense(self, qvec: np.ndarray | None, limit: int = 200) -> list[tuple[str, float]]:
        """Top documents by cosine similarity (brute force over the normalised matrix)."""
        snap = self.snapshot()
        if qvec is None or not snap.vec_ids:
            return []
        scores = snap.matrix @ qvec
        if len(snap.dead):
            scores[snap.dead] = -np.inf
        k = min(limit, snap.vectors)
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        # Ties at the cut and in the order go to the lower row, so the answer does not depend on
        # how the matrix is laid out (a patched snapshot and a fresh load give the same list).
        kth = scores[top].min()
        above = np.flatnonzero(scores > kth)
        top = np.concatenate([above, np.flatnonzero(scores == kth)[: k - len(above)]])
        top = top[np.lexsort((top, -scores[top]))]
        return [(snap.vec_ids[i], float(scores[i])) for i in top]  # type: ignore[misc]

    def status(self) -> dict:
        snap = self.snapshot()
        return {"generation": snap.generation, "head": snap.head, "topics": len(snap.topics),
                "documents": len(snap.docs), "vectors": snap.vectors, "events": len(snap.events),
                "model": self.embedder.model_id if self.embedder else None, "fresh": self.is_fresh()}


class _Corrupt(Exception):
    pass
