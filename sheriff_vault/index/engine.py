"""The search index in .vault/index: Tantivy BM25 plus embeddings, a cache of the vault's files.

The only module that imports tantivy. Files are the truth: every update compares the files on
disk with the (size, mtime, sha1) recorded for them and re-reads only what changed; a missing or
corrupt index is rebuilt from the files. One writer at a time holds .vault/index.lock.
"""
from __future__ import annotations

import datetime as dt
import fnmatch
import hashlib
import json
import math
import os
import re
import shutil
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sheriff_vault import faults
from sheriff_vault.errors import VaultError
from sheriff_vault.index.docs import (
    DOC_COLUMNS,
    LOADED_COLUMNS,
    TOPIC_FIELDS,
    Doc,
    EventRow,
    FileDocs,
    TopicRow,
    event_docs,
    kind_of,
    searchable,
    skill_docs,
    speaker_of,
    topic_docs,
    topics_from_rows,
)
from sheriff_vault.index.embed import Embedder, EmbeddingUnavailable
from sheriff_vault.index.snapshot import (
    Snapshot,
    StaleSnapshot,
    Tail,
    Update,
    by_id,
    docs_from_rows,
    gc_paused,
    patched,
    spare_rows,
)
from sheriff_vault.index.vectors import VectorCache
from sheriff_vault.store import gitlog
from sheriff_vault.store.locks import FileLock, held_here
from sheriff_vault.store.topics import Topic
from sheriff_vault.text import CHAT, STOPWORDS

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

# 9: an item names its event dates when it has them, else the day said; 10: in epoch seconds;
# 11: each document's speaker (a snapshot load counts them in SQL); 12: a topic's tags, and its
# body's [[wikilinks]] among its related edges; 13: the turn (or person) that superseded a fact
SCHEMA_VERSION = 13
MAX_FILE_BYTES = 2 * 1024 * 1024
_WORD = re.compile(r"\w+", re.UNICODE)
# "Caroline's", "what's": the lone "s" would match every possessive in the vault
_CLITIC = re.compile(r"['’](?:s|t|re|ve|ll|d|m)\b", re.I)
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
    head: str | None = None  # the commit the index reflects after this update

    def to_json(self) -> dict:
        return {"scanned": self.scanned, "changed": self.changed, "removed": self.removed, "embedded": self.embedded,
                "warnings": self.warnings, "rebuilt": self.rebuilt, "seconds": round(self.seconds, 3),
                "head": self.head}


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
    words = [w.lower() for w in _WORD.findall(_CLITIC.sub("", text))[:256]]
    content = [w for w in words if w not in STOPWORDS and w not in CHAT and (len(w) > 1 or w.isdigit())]
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
        self._tail: Tail | None = None  # the matrix buffer and how many rows are written into it
        self._strings: dict[str, str] = {}  # one copy of each path, kind, date and name string in memory
        self.embedding_warning: str | None = None
        # True while a daemon loads the model in the background: new documents are indexed for
        # BM25 at once and marked `vectors_missing`; the refresh after the model is up embeds them.
        self.defer_embedding = False
        # Above retrieval.ann_threshold vectors, dense search asks an HNSW graph (index/ann.py).
        # `ann_background`: build the graph in a thread and answer exactly meanwhile (the daemon);
        # False: build it before answering (tests, the benchmark).
        self.ann_background = True
        self._ann: Any = None
        self._ann_lock = threading.Lock()
        self._loading = threading.Lock()
        self._ann_building = False
        self._prefetch: threading.Thread | None = None  # embedding texts into the cache (`prefetch`)
        # Below the ANN threshold a snapshot reads the cache's int8 copy rather than copy its vectors
        # (VectorCache.quantised, Snapshot.nearest). Not on Windows, where an open file cannot be
        # removed (a model change resets the cache).
        self.map_vectors = os.name == "posix"

    # -- opening --------------------------------------------------------------------------------
    def lock(self, timeout: float = 120.0) -> FileLock:
        return FileLock(self.vault.cache / "index.lock", what="search index", timeout=timeout)

    def _open_parts(self) -> sqlite3.Connection:
        import tantivy

        self.folder.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.folder / "state.db", timeout=30, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(f"""
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, sha1 TEXT,
                error TEXT);
            CREATE TABLE IF NOT EXISTS docs (doc_id TEXT PRIMARY KEY, kind TEXT, path TEXT, topic_path TEXT, text TEXT,
                topic_text TEXT, date TEXT, line INTEGER, cites TEXT, done INTEGER, mentions TEXT, superseded TEXT,
                superseded_by TEXT, vec TEXT, speaker TEXT);
            CREATE INDEX IF NOT EXISTS docs_path ON docs(path);
            CREATE INDEX IF NOT EXISTS files_error ON files(path) WHERE error IS NOT NULL AND error != '';
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
            raise _OtherVersion(f"index schema {version[0]}; this version reads {SCHEMA_VERSION}")
        self._db = db
        (self.folder / "tantivy").mkdir(exist_ok=True)
        self._tindex = tantivy.Index(_schema(), path=str(self.folder / "tantivy"), reuse=True)
        return db

    def open(self) -> Index:
        """Open the index, rebuilding it (with a one-line warning) if it is missing or unreadable."""
        if self._db is not None:
            return self
        try:
            if self._parts() == (True, True):
                self._open_parts().execute("SELECT count(*) FROM docs").fetchone()
            else:
                # Another process may be making it this moment (a hook's reindex, a skill's recall):
                # a half-made index is only corrupt when nobody is making it, so look again under its lock.
                with self.lock():
                    has_db, has_tantivy = self._parts()
                    if has_db != has_tantivy:
                        raise _Corrupt("half of it is missing")
                    self._open_parts()
        except (_Corrupt, sqlite3.DatabaseError, ValueError, OSError) as exc:
            self.close()
            if isinstance(exc, _OtherVersion):  # an upgrade, not damage: say so
                self.log(f"note: the search index was made by another version of Sheriff Vault ({exc}); "
                         "rebuilding it from the files")
            else:
                self.log(f"warning: the search index was unreadable ({exc}); rebuilding it from the files")
            with self.lock():
                shutil.rmtree(self.folder, ignore_errors=True)
                self._open_parts()
        return self

    def _parts(self) -> tuple[bool, bool]:
        return (self.folder / "state.db").exists(), (self.folder / "tantivy" / "meta.json").exists()

    def close(self) -> None:
        self.settle_prefetch()
        if self._db is not None:
            self._db.close()
        if self._vectors is not None:
            self._vectors.close()
        self._db, self._tindex, self._vectors, self._snapshot, self._tail = None, None, None, None, None
        self._ann = None

    def trim(self) -> None:
        """Give back the pages SQLite keeps cached for this index's connections (a few hundred KB):
        a daemon keeps many vaults open, most of them unread for minutes. Call it holding whatever
        keeps other threads off the index (the daemon's `work` lock)."""
        for db in (self._db, self._vectors.db if self._vectors is not None else None):
            if db is not None:
                db.execute("PRAGMA shrink_memory")

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
                dim = VectorCache.known_dim(self.embeddings_dir, self.embedder.model_id)
                if dim is None:
                    if self._deferring():  # the size would load the model; no vectors yet anyway
                        return None
                    dim = self.embedder.dim
            except EmbeddingUnavailable as exc:
                if self.embedding_warning is None:
                    self.embedding_warning = str(exc)
                    self.log(f"warning: {exc}")
                return None
            self._vectors = VectorCache(self.embeddings_dir, self.embedder.model_id, dim)
        return self._vectors

    def prefetch(self, texts: Iterable[str], encode: Callable[[list[str]], np.ndarray] | None = None,
                 known: Mapping[str, np.ndarray] | None = None) -> None:
        """Embed `texts` into the embedding cache in a background thread, with `encode` (the
        embedder's own by default; never a stand-in like hash vectors, which the cache would keep as
        the model's): the lines a sleep is about to write, so the refresh that indexes them (the
        daemon's, after the sleep has answered) finds their vectors instead of waiting for the
        model. `known`: vectors the same model already gave some of the texts (a fact whose line
        is its sentence as said), kept as they are. The vectors are written under the index's lock,
        as a refresh writes them; prefetches run one after another, and a refresh first waits for
        those under way."""
        wanted = list(dict.fromkeys(texts))
        known = dict(known or {})
        cache = self.vectors() if wanted and self.embedder is not None and not self._deferring() else None
        if cache is None or self.embedder is None:
            return
        items = [(self.embedder.key(t), t) for t in wanted]
        run, before = encode or self.embedder.encode, self._prefetch

        def work() -> None:
            if before is not None:
                before.join()
            try:
                have = cache.lookup([h for h, _ in items])
                todo = [(h, t) for h, t in items if h not in have]
                if not todo:
                    return
                got = {t: np.asarray(known[t], dtype=np.float32) for _, t in todo if t in known}
                rest = [t for _, t in todo if t not in got]
                if rest:
                    got |= dict(zip(rest, np.asarray(run(rest), dtype=np.float32), strict=True))
                with self.lock():
                    if self._vectors is cache:  # not closed meanwhile
                        cache.ensure(todo, lambda batch: np.stack([got[t] for t in batch]))
            except Exception as exc:  # only a head start: the refresh embeds whatever is missing
                self.log(f"note: embedding ahead of the refresh failed: {exc}")

        self._prefetch = threading.Thread(target=work, name="embed-prefetch", daemon=True)
        self._prefetch.start()

    def settle_prefetch(self) -> None:
        """Wait for the texts `prefetch` is embedding to be in the cache; not while this thread holds
        the index's lock, which a prefetch takes to write them (it writes what is still missing once
        the holder is done, and nothing if the index was closed meanwhile)."""
        if self._prefetch is None or held_here(self.lock().path):
            return
        thread, self._prefetch = self._prefetch, None
        thread.join()

    # -- updating -------------------------------------------------------------------------------
    def scan(self) -> dict[str, os.stat_result]:
        """Every file the index reads, with its stat (os.scandir: a third of what Path.glob costs,
        which at 10k topics is most of a no-op refresh)."""
        found: dict[str, os.stat_result] = {}
        for folder, depth, name in (("topics", 0, "*.md"), ("events", 3, "*.md"), ("skills", 1, "manifest.json")):
            self._scan_folder(folder, depth, name, found)
        return found

    def _scan_folder(self, rel: str, depth: int, name: str, found: dict[str, os.stat_result]) -> None:
        """Files matching `name` `depth` folders below `rel` (as Path.glob("*/" * depth + name))."""
        try:
            entries = os.scandir(self.vault.root / rel)
        except (FileNotFoundError, NotADirectoryError):
            return
        with entries:
            for entry in entries:
                path = f"{rel}/{entry.name}"
                if depth:
                    if entry.is_dir():
                        self._scan_folder(path, depth - 1, name, found)
                elif fnmatch.fnmatchcase(entry.name, name) and kind_of(path):
                    try:
                        found[path] = entry.stat()
                    except FileNotFoundError:
                        continue

    def stale_paths(self, scanned: dict[str, os.stat_result] | None = None, also: Iterable[str] = ()
                    ) -> tuple[dict[str, os.stat_result], list[str], list[str]]:
        """Files whose size or mtime differ from what the index recorded, and files it has that are gone.
        `scanned`: a `scan` made earlier, outside the index lock; a file it missed that exists now
        (one the index has, or in `also`) was created since: stat now, not taken for gone."""
        on_disk = self.scan() if scanned is None else dict(scanned)
        known = {p: (s, m) for p, s, m in self.db.execute("SELECT path, size, mtime_ns FROM files")}
        if scanned is not None:
            for rel in [p for p in (*known, *also) if p not in on_disk and kind_of(p)]:
                try:
                    on_disk[rel] = (self.vault.root / rel).stat()
                except (FileNotFoundError, NotADirectoryError):
                    pass
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
        return (self.meta("vectors_missing") == "1" and self.embedder is not None and self.embedding_warning is None
                and not self._deferring())

    def _deferring(self) -> bool:
        return self.defer_embedding and self.embedder is not None and not self.embedder.loaded

    def refresh(self, paths: Iterable[str] | None = None, *, progress: Progress | None = None,
                lock_timeout: float = 120.0, head: str | None = None,
                scanned: dict[str, os.stat_result] | None = None) -> UpdateStats:
        """Bring the index up to date with the files (all of them, or just `paths`); `head` is the
        commit that leaves the index at (the git hooks pass it after reindexing that commit's diff);
        `scanned`: for all files, a `scan` the caller made (see stale_paths)."""
        start = time.monotonic()
        stats = UpdateStats()
        self.settle_prefetch()  # the texts embedded ahead are in the cache then, not embedded twice
        with self.lock(lock_timeout):
            pending = json.loads(self.meta("pending") or "[]")
            if paths is not None:
                wanted = {self._norm(p) for p in paths} | set(pending)
                on_disk, changed, removed = self._stale_among(wanted)
            else:
                on_disk, changed, removed = self.stale_paths(scanned, pending)
            stats.scanned = len(on_disk)
            if paths is None:
                changed = sorted(set(changed) | {p for p in pending if p in on_disk})
                removed = sorted(set(removed) | {p for p in pending if p not in on_disk})
            if changed or removed or self._missing_vectors():
                self._apply(changed, removed, on_disk, stats, progress)
            if head and head != self.meta("head"):
                with self.db:
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (head,))
            stats.head = self.meta("head") or None
        stats.seconds = time.monotonic() - start
        return stats

    def reconcile(self, before: str | None = None, *, lock_timeout: float = 300.0) -> UpdateStats:
        """Catch up with git after a merge, checkout or rebase: reindex `git diff <indexed>..HEAD`
        (and `before..HEAD`, the move git just made) plus the uncommitted files, then record HEAD.
        HEAD and the diff are read under the index lock, so hooks racing each other (or a commit)
        settle on the newest HEAD. With no commit recorded, every file is checked."""
        root = self.vault.root
        with self.lock(lock_timeout):
            head = gitlog.head(root)
            indexed = self.meta("head")
            paths: set[str] | None = None
            if head and indexed and gitlog.resolve(root, indexed):
                paths = set(gitlog.diff_names(root, indexed, head))
                moved = gitlog.resolve(root, before) if before else None
                if moved:
                    paths |= set(gitlog.diff_names(root, moved, head))
                paths |= set(gitlog.dirty_paths(root))
            stats = self.refresh(None if paths is None else sorted(p for p in paths if kind_of(p)),
                                 lock_timeout=lock_timeout, head=head)
        return stats

    def rebuild(self, *, progress: Progress | None = None) -> UpdateStats:
        self.settle_prefetch()
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
        """Re-read `changed`, drop `removed`: Tantivy first, then the database in one transaction,
        then the snapshot in memory. `pending` in meta names the paths until it is all done, so a
        crash in between is redone by the next refresh."""
        db = self.db
        base = self._snapshot
        if base is not None and (base.generation != self.generation or self.meta("vectors_missing") == "1"):
            base = None  # another writer got here first, or old documents are about to get vectors
        pending = json.dumps(sorted(set(changed) | set(removed)))
        db.execute("INSERT OR REPLACE INTO meta VALUES ('pending', ?)", (pending,))
        db.commit()
        read = self._read_all(changed, on_disk, progress)
        known_sha = dict(db.execute("SELECT path, sha1 FROM files"))
        content_changed = [p for p in changed if read[p][0] is None or read[p][0] != known_sha.get(p)]
        stats.warnings += [problem for rel in changed if (problem := read[rel][1])]
        stats.changed, stats.removed = content_changed, removed
        parsed = [file_docs for p in content_changed if (file_docs := read[p][2]) is not None]
        new_docs = [d for f in parsed for d in f.docs]
        topics_by_path = {f.path: f.topic for f in parsed if f.topic}
        events = [f.event for f in parsed if f.event]
        vec_hash = self._embed(new_docs, topics_by_path, stats, progress)
        touched = content_changed + removed
        faults.point("index:writing")
        if touched:
            self._write_tantivy(touched, new_docs)
        gone = [d for rel in touched for (d,) in db.execute("SELECT doc_id FROM docs WHERE path=?", (rel,))] \
            if base is not None else []
        events_changed = base is not None and (
            bool(events) or any(db.execute("SELECT 1 FROM events WHERE path=?", (rel,)).fetchone() for rel in touched))
        # Readers that see the new generation wait for the patched snapshot rather than load all.
        with self._loading:
            self._write_db(touched, removed, new_docs, vec_hash, topics_by_path, events,
                           [(p, on_disk[p].st_size, on_disk[p].st_mtime_ns, read[p][0], read[p][1]) for p in changed])
            if base is not None:
                # Patch the snapshot in memory rather than let the next read load every document again.
                self._snapshot = None
                try:
                    self._snapshot = self._patched(base, base.generation + 1, gone, new_docs, topics_by_path,
                                                   touched, events_changed, vec_hash)
                except Exception as exc:  # a cache: the next snapshot() loads it all from the database
                    self.log(f"warning: could not update the index snapshot in memory ({type(exc).__name__}: {exc})")
        faults.point("index:applied")

    def _read_all(self, changed: list[str], on_disk: dict[str, os.stat_result],
                  progress: Progress | None) -> dict[str, tuple[str | None, str | None, FileDocs | None]]:
        read = {}
        total = len(changed)
        for i, rel in enumerate(changed):
            read[rel] = self._read(rel, on_disk[rel])
            if progress and (i % 200 == 0 or i == total - 1):
                progress("read", i + 1, total)
        return read

    def _write_tantivy(self, touched: list[str], new_docs: list[Doc]) -> None:
        """Delete every document of the touched files and add their new ones, in one commit."""
        import tantivy

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

    def _write_db(self, touched: list[str], removed: list[str], new_docs: list[Doc], vec_hash: dict[str, str],
                  topics: dict[str, TopicRow], events: list[EventRow], files: list[tuple]) -> None:
        """The database side of one update, in one transaction that also clears `pending` and moves
        the generation on (readers reload their snapshot when it moves)."""
        db = self.db
        with db:
            for rel in touched:
                db.execute("DELETE FROM docs WHERE path=?", (rel,))
                db.execute("DELETE FROM topics WHERE path=?", (rel,))
                db.execute("DELETE FROM events WHERE path=?", (rel,))
            for rel in removed:
                db.execute("DELETE FROM files WHERE path=?", (rel,))
            db.executemany(f"INSERT OR REPLACE INTO docs ({DOC_COLUMNS}, vec, speaker) "
                           "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           [(*d.row(), vec_hash.get(d.doc_id), speaker_of(d.text).lower()) for d in new_docs])
            db.executemany(f"INSERT OR REPLACE INTO topics VALUES ({','.join('?' * len(TOPIC_FIELDS))})",
                           [t.row() for t in topics.values()])
            db.executemany("INSERT OR REPLACE INTO events VALUES (?,?,?,?,?,?,?)",
                           [tuple(r.__dict__.values()) for r in events])
            db.executemany("INSERT OR REPLACE INTO files VALUES (?,?,?,?,?)", files)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('pending', '')")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (gitlog.head(self.vault.root) or "",))
            db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")

    def _embed(self, new_docs: list[Doc], topics: dict[str, TopicRow], stats: UpdateStats,
               progress: Progress | None) -> dict[str, str]:
        """Content hashes of each doc's vector, embedding only texts the cache has not seen."""
        db = self.db
        if self._deferring():
            db.execute("INSERT OR REPLACE INTO meta VALUES ('vectors_missing', '1')")
            return {}
        cache = self.vectors()
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
        """The current generation in memory; reloaded only when a writer has committed since.
        One thread loads it while the others wait (a daemon's warm-up and its first questions
        would otherwise each load 50k topics at once, and hold two copies)."""
        gen = self.generation
        if self._snapshot is not None and self._snapshot.generation == gen:
            return self._snapshot
        with self._loading:
            gen = self.generation
            if self._snapshot is not None and self._snapshot.generation == gen:
                return self._snapshot
            with gc_paused():
                return self._load()

    def _load(self) -> Snapshot:
        """Every document, topic and event of the current generation, read in one transaction on a
        connection of its own (so the generation named is the one read), each document with the
        cache row of its vector joined in by SQLite rather than looked up in Python."""
        con = sqlite3.connect(self.folder / "state.db", timeout=30)
        try:
            has_vectors = con.execute("SELECT 1 FROM docs WHERE vec IS NOT NULL LIMIT 1").fetchone()
            cache = self.vectors() if has_vectors else None
            if cache is not None:
                con.execute("ATTACH DATABASE ? AS vc", (str(cache.folder / "vectors.db"),))
            # Read through a memory map, not a read call per page (the join's lookups, 300k at 50k
            # topics, were a fifth slower); nothing truncates these files in place (a rebuild
            # removes them), so a mapping cannot lose its pages. It ends with the connection.
            for schema in ("main", "vc") if cache is not None else ("main",):
                con.execute(f"PRAGMA {schema}.mmap_size = {1 << 30}")
            con.execute("BEGIN")
            gen = int(con.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])
            head = (con.execute("SELECT value FROM meta WHERE key='head'").fetchone() or [""])[0] or None
            self._strings = {}
            query = (f"SELECT {LOADED_COLUMNS}, coalesce(v.row, -1) FROM docs d LEFT JOIN vc.vec v ON v.hash = d.vec"
                     if cache is not None else f"SELECT {LOADED_COLUMNS}, -1 FROM docs")
            on_disk = cache.rows_on_disk() if cache is not None else 0
            docs, vec_ids, rows = docs_from_rows(con.execute(query), self._strings, on_disk)
            topics = {t.path: t for t in topics_from_rows(con.execute(f"SELECT {', '.join(TOPIC_FIELDS)} FROM topics"),
                                                          self._strings)}
            events = [EventRow(*r) for r in con.execute("SELECT * FROM events ORDER BY at")]
            speakers = dict(con.execute("SELECT speaker, count(*) FROM docs WHERE speaker != '' GROUP BY speaker"))
        finally:
            con.close()
        matrix = np.zeros((0, 1), dtype=np.float32)
        cache_rows = np.array(rows, dtype=np.int64)
        source: Callable[[np.ndarray], np.ndarray] | None = None
        quick = None
        self._tail = None
        if cache is not None:
            threshold = self.cfg.retrieval.ann_threshold
            if threshold and len(vec_ids) >= threshold:  # the graph answers; see Snapshot
                matrix = np.zeros((0, cache.dim), dtype=np.float32)
                source = cache.reader()
            elif self.map_vectors:
                matrix = np.zeros((0, cache.dim), dtype=np.float32)
                source, quick = cache.reader(), cache.quantised(on_disk)
            elif vec_ids:
                buffer = np.empty((spare_rows(len(vec_ids)), cache.dim), dtype=np.float32)
                matrix = cache.matrix(cache_rows, out=buffer[: len(vec_ids)])
                self._tail = Tail(buffer, len(vec_ids))
        self._tindex.reload()
        self._snapshot = Snapshot(gen, docs, topics, events, vec_ids, matrix, by_id(topics), head,
                                  cache_rows=cache_rows, speaker_count=speakers, source=source, quick=quick,
                                  cited=self._cites_reader())
        return self._snapshot

    def _cites_reader(self) -> Callable[[list[Doc], int], dict[str, str]]:
        """`stored_cites` for a snapshot, holding the index weakly (a snapshot outlives nothing)."""
        ref = weakref.ref(self)

        def read(docs: list[Doc], generation: int) -> dict[str, str]:
            index = ref()
            if index is None or index._db is None:
                raise StaleSnapshot("the index this snapshot was loaded from is closed")
            return index.stored_cites(docs, generation)

        return read

    def stored_cites(self, docs: list[Doc], generation: int) -> dict[str, str]:
        """The citation JSON the index holds for these documents of a `generation` snapshot, by doc
        id. StaleSnapshot when the index is at another generation or holds another line under one
        of their ids (another process wrote it, or rebuilt it, since the snapshot was loaded):
        each statement reads one state of the database, and is checked against the snapshot."""
        wanted = {d.doc_id: d for d in docs}
        ids = list(wanted)
        out: dict[str, str] = {}
        for i in range(0, len(ids), 512):
            chunk = ids[i : i + 512]
            # As many marks as the next power of two, the last id repeated: a handful of statement
            # texts in all, where one per count kept up to 128 compiled statements a vault (0.26 MB).
            marks = 1 << (len(chunk) - 1).bit_length()
            rows = self.db.execute("SELECT (SELECT value FROM meta WHERE key='generation'), doc_id, text, cites "
                                   f"FROM docs WHERE doc_id IN ({','.join('?' * marks)})",
                                   chunk + chunk[-1:] * (marks - len(chunk))).fetchall()
            if len(rows) != len(chunk) or any(int(gen) != generation or text != wanted[doc_id].text
                                              for gen, doc_id, text, _ in rows):
                raise StaleSnapshot(f"the index is past generation {generation}")
            out.update((doc_id, cites) for _, doc_id, _, cites in rows)
        # Keep none of the pages read: a few dozen documents a question, they would add up to every
        # page of the table (2 MB at 1,000 topics) for each vault a daemon serves. Read again, they
        # come from the kernel's page cache (~0.02 ms a question).
        self.db.execute("PRAGMA shrink_memory")
        return out

    def _patched(self, base: Snapshot, generation: int, gone: list[str], new_docs: list[Doc],
                 topics: dict[str, TopicRow], touched: list[str], events_changed: bool,
                 vec_hash: dict[str, str]) -> Snapshot:
        """`base` with one update applied, without re-reading every document (see snapshot.patched)."""
        events = [EventRow(*r) for r in self.db.execute("SELECT * FROM events ORDER BY at")] if events_changed else None
        cache = self.vectors()
        wanted = [(d.doc_id, vec_hash[d.doc_id]) for d in new_docs if d.doc_id in vec_hash]
        found = cache.lookup([h for _, h in wanted]) if cache is not None and wanted else {}
        added = [(doc_id, found[h]) for doc_id, h in wanted if h in found]
        if cache is not None and added and self.map_vectors and not base.vec_ids and base.quick is None \
                and base.source is None:  # the first vectors (say, once the model is up): read from the cache
            base = replace(base, matrix=np.zeros((0, cache.dim), dtype=np.float32), source=cache.reader(),
                           quick=cache.quantised(0))
        fresh = (cache.matrix(np.array([r for _, r in added], dtype=np.int64))
                 if cache is not None and added and base.held else None)
        snap, self._tail = patched(base, Update(generation, gone, new_docs, topics, set(touched), events,
                                                [doc_id for doc_id, _ in added], fresh, [r for _, r in added]),
                                   self._tail, self._strings, self.meta("head") or None)
        if snap.quick is not None and added and max(r for _, r in added) >= len(snap.quick):
            assert cache is not None
            # Rows appended since: the two files opened again (they may be others since a model
            # change); the base keeps its own.
            snap.quick, snap.source = cache.quantised(), cache.reader()
        return snap

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

    def dense(self, qvec: np.ndarray | None, limit: int = 200, *, exact: bool = False) -> list[tuple[str, float]]:
        """Top documents by cosine similarity: the rows the int8 copy cannot rule out (below
        `retrieval.ann_threshold`; Snapshot.nearest) or every row, scored exactly; or, above the
        threshold (and unless `exact`), the HNSW graph's candidates re-scored against their exact
        vectors (index/ann.py)."""
        snap = self.snapshot()
        if qvec is None or not snap.vec_ids:
            return []
        k = min(limit, snap.vectors)
        if k <= 0:
            return []
        rows = None if exact else self._ann_candidates(snap, qvec, k)
        if rows is None:
            rows = snap.nearest(qvec, k)  # exact too: every row that could be among the k best
        if rows is None:
            rows = np.arange(len(snap.vec_ids))
            scores = snap.scores(qvec)
            if len(snap.dead):
                scores[snap.dead] = -np.inf
        else:
            scores = snap.cosines_at(rows, qvec)
            k = min(k, len(rows))
        # Ties at the cut and in the order go to the lower row, so the answer does not depend on
        # how the matrix is laid out (a patched snapshot and a fresh load give the same list).
        if len(rows) > k:
            top = np.argpartition(-scores, k - 1)[:k]
            kth = scores[top].min()
            above = np.flatnonzero(scores > kth)
            ties = np.flatnonzero(scores == kth)
            top = np.concatenate([above, ties[np.argsort(rows[ties], kind="stable")][: k - len(above)]])
        else:
            top = np.arange(len(rows))
        top = top[np.lexsort((rows[top], -scores[top]))]
        return [(snap.vec_ids[rows[i]], float(scores[i])) for i in top]

    def _ann_candidates(self, snap: Snapshot, qvec: np.ndarray, k: int) -> np.ndarray | None:
        """Live rows the graph finds nearest `qvec` (sorted, unique), or None: answer exactly
        (below the threshold, or while the graph is being read or built)."""
        threshold = self.cfg.retrieval.ann_threshold
        if not threshold or snap.vectors < threshold:
            return None
        with self._ann_lock:
            ann = self._ann
            if ann is None or self._too_stale(ann, snap):
                if self.ann_background:
                    self._start_ann_build(snap)
                    return None
                ann = self._ann = self._graph_for(snap)
            if snap.memo.get("ann") is not ann:  # vectors a patched snapshot added since (a few, when any)
                self._add_rows(ann, snap)
                snap.memo["ann"] = ann
            # The graph may hold vectors no document uses now: ask for as many more as it likely finds.
            live = max(1, self._live_keys(snap))
            keys = ann.search(qvec, math.ceil(max(k, 200) * max(1.0, ann.size / live)))
        found = snap.rows_of_keys(keys)
        return found if len(found) else None

    def warm_ann(self) -> None:
        """Start reading or building the graph now if the vault is above the threshold, rather
        than at the first question (a daemon's warm-up)."""
        snap = self.snapshot()
        threshold = self.cfg.retrieval.ann_threshold
        if threshold and snap.vectors >= threshold and self._ann is None:
            with self._ann_lock:
                self._start_ann_build(snap)

    @staticmethod
    def _live_keys(snap: Snapshot) -> int:
        """How many distinct vectors the snapshot's live documents use."""
        live = snap.memo.get("live_keys")
        if live is None:
            rows = np.delete(snap.cache_rows, snap.dead) if len(snap.dead) else snap.cache_rows
            live = snap.memo["live_keys"] = int(np.count_nonzero(np.bincount(rows[rows >= 0])))
        return live

    def _too_stale(self, ann: Any, snap: Snapshot) -> bool:
        from sheriff_vault.index.ann import STALE

        return ann.size > 1000 and ann.size - self._live_keys(snap) > STALE * ann.size

    @staticmethod
    def _add_rows(ann: Any, snap: Snapshot, chunk: int = 4096) -> int:
        """Add the snapshot's live vectors the graph lacks, a few thousand at a time (a copy of
        them all would cost a 50k vault's daemon 400 MB at its peak)."""
        rows = np.arange(len(snap.vec_ids))
        if len(snap.dead):
            rows = np.delete(rows, snap.dead)
        rows = rows[ann.lacks(snap.cache_rows[rows])]
        added = 0
        for i in range(0, len(rows), chunk):
            part = rows[i : i + chunk]
            added += ann.add(snap.cache_rows[part], snap.vectors_at(part))
        return added

    def _start_ann_build(self, snap: Snapshot) -> None:
        """Read or build the graph for `snap` in a thread (call holding _ann_lock); one at a time."""
        if self._ann_building:
            return
        self._ann_building = True

        def build() -> None:
            try:
                ann = self._graph_for(snap, threads=1)
                with self._ann_lock:
                    self._ann = ann
            except Exception as exc:  # dense search stays exact
                self.log(f"warning: building the ANN index failed: {type(exc).__name__}: {exc}")
            finally:
                self._ann_building = False

        threading.Thread(target=build, name="ann-build", daemon=True).start()

    def _graph_for(self, snap: Snapshot, threads: int = 0) -> Any:
        """The graph with every live vector of `snap`: the saved one plus what it lacks, or one
        built from them when there is none (or too much of it is stale); saved again when it grew."""
        from sheriff_vault.index.ann import AnnIndex

        cache = self.vectors()
        if cache is None:
            raise VaultError("no embedding cache to build the ANN graph from")
        folder = cache.folder
        ann = AnnIndex.restore(folder, cache.instance, snap.matrix.shape[1], threads=threads)
        if ann is None or self._too_stale(ann, snap):
            ann = AnnIndex(snap.matrix.shape[1], threads=threads)
        added = self._add_rows(ann, snap)
        snap.memo["ann"] = ann
        if added and added >= 0.02 * ann.size:
            try:
                ann.save(folder, cache.instance)
            except OSError as exc:  # a cache: the next process adds what it lacks
                self.log(f"warning: could not save the ANN graph ({exc})")
        return ann

    def file_errors(self) -> list[str]:
        """Why each file the index skipped was skipped (a topic with broken YAML, say): every
        reader of the index reports them, not only the one that happened to re-read the file."""
        return [e for (e,) in self.db.execute("SELECT error FROM files WHERE error IS NOT NULL AND error != '' "
                                              "ORDER BY path")]

    def status(self) -> dict:
        snap = self.snapshot()
        threshold = self.cfg.retrieval.ann_threshold
        ann = ("off" if not threshold or snap.vectors < threshold else "building" if self._ann is None
               else f"{self._ann.size} vectors")
        return {"generation": snap.generation, "head": snap.head, "topics": len(snap.topics),
                "documents": len(snap.docs), "vectors": snap.vectors, "events": len(snap.events),
                "model": self.embedder.model_id if self.embedder else None, "fresh": self.is_fresh(), "ann": ann}


class _Corrupt(Exception):
    pass


class _OtherVersion(_Corrupt):
    """An index another version made: rebuilt like a damaged one, and said to be what it is."""
