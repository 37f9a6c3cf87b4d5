"""One generation of the index in memory: documents, topics, events and the vector matrix that
recall reads, and how a small update patches it without loading everything again."""
from __future__ import annotations

import datetime as dt
import gc
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from sheriff_vault.index.docs import EVENT, SAID, SAID_ONLY, Doc, EventRow, TopicRow, speaker_of
from sheriff_vault.index.vectors import QuickRows, cosines
from sheriff_vault.text import norm


class StaleSnapshot(Exception):
    """The index no longer holds what a snapshot was loaded from (another process wrote it since):
    what the snapshot reads from the index on demand (Snapshot.cites) is gone, so the question is
    asked again of a fresh one."""


@dataclass
class Snapshot:
    """An immutable in-memory view of one index generation; recall reads only this.

    Document `vec_ids[i]` has the vector in row `cache_rows[i]` of the embedding cache (-1: not
    known; the ANN graph is keyed by cache rows) and, when the snapshot holds its vectors, in row i
    of `matrix`. An index loads it with no copy of them (`matrix` has no rows): `vectors_at` reads
    the few rows a question needs from the cache file through `source` (at 50k topics a copy is
    460 MB and a third of the load). Below the ANN threshold it also holds the cache's int8 copy
    open (`quick`, whose row r is cache row r; VectorCache.quantised): a question maps it, is
    scored against it (2 MB a vault of 1,000 topics, where the float32 rows are 9) and only the
    rows that could be among its best are read and scored exactly (`nearest`). A snapshot patched after a small
    update (Index._patched) may keep rows of documents that are gone: their `vec_ids` entry is
    None, their row is listed in `dead`, and `row_of` and `dense` skip them. Live rows keep the
    order a full load from the database gives, so both rank ties the same way. Documents loaded
    from the index hold no citations (Doc.cites is None): `cites` reads the few recall needs from
    the index through `cited`.
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
    # What readers work out once per generation (retrieval/current.py's replaced values per topic,
    # the ANN lookups of Index.dense): a patched snapshot is a new object, so nothing here outlives
    # the documents it was worked out from.
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    cache_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)
    source: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False, compare=False)
    quick: np.ndarray | QuickRows | None = field(default=None, repr=False, compare=False)
    # The stored citation JSON of documents of this generation, by doc id (Index.stored_cites);
    # raises StaleSnapshot when the index holds another generation.
    cited: Callable[[list[Doc], int], dict[str, str]] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.cache_rows) != len(self.vec_ids):
            self.cache_rows = np.full(len(self.vec_ids), -1, dtype=np.int64)
        if not self.row_of:
            self.row_of = {d: i for i, d in enumerate(self.vec_ids) if d is not None}
        if self.speaker_count is None:
            count: dict[str, int] = {}
            for d in self.docs.values():
                if s := speaker_of(d.text):
                    count[s.lower()] = count.get(s.lower(), 0) + 1
            self.speaker_count = count
        self.speakers = set(self.speaker_count)

    def prepare(self) -> None:
        """Build the lookups recall reads (below), so the first question after a load does not
        wait for them: at 50k topics they take a second."""
        with gc_paused():
            self.docs_of_topic, self.names, self.longest_name, self.events_of_topic, self.times  # noqa: B018

    @property
    def vectors(self) -> int:
        return len(self.vec_ids) - len(self.dead)

    @property
    def held(self) -> bool:
        """Whether `matrix` holds every row (else they are read from the cache on demand)."""
        return self.quick is None and (self.matrix.shape[0] == len(self.vec_ids) or self.source is None)

    def vectors_at(self, rows: np.ndarray | list[int]) -> np.ndarray:
        """The vectors of these rows, one per row, as float32."""
        rows = np.asarray(rows, dtype=np.int64)
        if self.held:
            return self.matrix[rows]
        assert self.source is not None
        return self.source(self.cache_rows[rows])

    def cosines_at(self, rows: np.ndarray, qvec: np.ndarray) -> np.ndarray:
        """`cosines` of these rows' vectors, read from the cache and scored a few rows at a time
        when the snapshot holds none (VectorCache.cosines): a question's few hundred candidates
        never sit in memory at once, so it leaves no large block freed behind for the heap to keep."""
        rows = np.asarray(rows, dtype=np.int64)
        score = getattr(self.source, "cosines", None)
        if self.held or score is None:
            return cosines(self.vectors_at(rows), qvec)
        return score(self.cache_rows[rows], qvec)

    def scores(self, qvec: np.ndarray, block: int = 16384) -> np.ndarray:
        """Cosine of `qvec` with every row (dead ones included), from the matrix or from the rows
        read a block at a time."""
        if self.held:
            return cosines(self.matrix, qvec)
        out = np.empty(len(self.vec_ids), dtype=np.float32)
        for i in range(0, len(out), block):
            out[i : i + block] = cosines(self.vectors_at(np.arange(i, min(i + block, len(out)))), qvec)
        return out

    def nearest(self, qvec: np.ndarray, k: int, block: int = 64) -> np.ndarray | None:
        """The live rows (sorted) whose exact cosine with `qvec` could be among the `k` best,
        found from the int8 copy; None without one (or one not covering every row).

        Exact, not a guess: each int8 score lies within `err` x |qvec| of the float32 score
        (VectorCache.quantise), so the k rows with the best lower bounds score at least the k-th
        of those bounds exactly, and no row whose upper bound falls short of it can be among the
        best, ties at the cut included."""
        if self.quick is None:
            return None
        rows = np.arange(len(self.vec_ids))
        if len(self.dead):
            rows = np.delete(rows, self.dead)
        keys = self.cache_rows[rows]
        k = min(k, len(rows))
        if k <= 0 or keys.min() < 0 or keys.max() >= len(self.quick):
            return None
        # Mapped for this question only (see QuickRows); unmapped when the views below go.
        quick = self.quick if isinstance(self.quick, np.ndarray) else self.quick.mapped()
        q32 = np.ascontiguousarray(qvec, dtype=np.float32)
        whole = len(quick) <= 2 * len(keys)  # the rows used are most of the copy: score it all, no gather
        count = len(quick) if whole else len(keys)
        q8, scale = np.asarray(quick["q"]), np.asarray(quick["scale"])  # plain views: cheap to slice
        approx = np.empty(count, dtype=np.float32)
        # A small buffer, converted into a block at a time: no large block freed per question.
        wide = np.empty((min(block, count), q8.shape[1]), dtype=np.float32)
        for i in range(0, count, block):
            part = q8[i : i + block] if whole else q8[keys[i : i + block]]
            np.copyto(wide[: len(part)], part)
            np.dot(wide[: len(part)], q32, out=approx[i : i + len(part)])
        approx = approx[keys] * scale[keys] if whole else approx * scale[keys]
        bound = quick["err"][keys].astype(np.float64) * float(np.linalg.norm(qvec.astype(np.float64)))
        score = approx.astype(np.float64)
        floor = np.partition(score - bound, len(rows) - k)[len(rows) - k]
        return rows[score + bound >= floor]

    def all_vectors(self) -> np.ndarray:
        """Every row's vector (a copy when the snapshot holds none): for work that reads them all."""
        return self.matrix if self.held else self.vectors_at(np.arange(len(self.vec_ids)))

    def cites(self, docs: Iterable[Doc]) -> dict[str, str]:
        """These documents' citations as the JSON text the index stores, by doc id: read from the
        index in one query for those that hold none. Raises StaleSnapshot when the index has
        moved on since this snapshot was loaded (the caller asks again of a fresh snapshot)."""
        out: dict[str, str] = {}
        stored: list[Doc] = []
        for doc in docs:
            if doc.cites is None:
                stored.append(doc)
            else:
                out[doc.doc_id] = doc.cites if isinstance(doc.cites, str) else json.dumps(doc.cites)
        if stored:
            if self.cited is None:
                raise LookupError(f"{stored[0].doc_id}: its citations are in an index this snapshot cannot read")
            out.update(self.cited(stored, self.generation))
        return out

    def citations(self, doc: Doc) -> list[dict]:
        """One document's citations, decoded (see `cites`)."""
        return doc.citations if doc.cites is not None else json.loads(self.cites([doc])[doc.doc_id])

    def topic_by_ref(self, ref: str) -> TopicRow | None:
        path = self.by_id.get(ref)
        return self.topics.get(path) if path else None

    def resolve_link(self, target: str) -> TopicRow | None:
        """The topic a `[[target]]` names: by file name as Obsidian does (`topics/Budget.md#h` ->
        budget, any case), then by name or alias when only one topic has it."""
        stem = target.strip().rsplit("/", 1)[-1]
        stem = stem[:-3] if stem.lower().endswith(".md") else stem
        stems: dict[str, str] | None = self.memo.get("stems")
        if stems is None:
            stems = self.memo["stems"] = {}
            for where, row in sorted(self.topics.items()):
                stems.setdefault(row.slug.lower(), where)
        path = stems.get(stem.lower())
        if path is None:
            named = self.names.get(norm(target)) or self.names.get(norm(stem)) or ()
            path = next(iter(named)) if len(named) == 1 else None
        return self.topics.get(path) if path else None

    def rows_of_keys(self, keys: np.ndarray) -> np.ndarray:
        """The live matrix rows (sorted) whose vectors are these cache rows (an ANN graph's keys);
        several documents may share one vector."""
        by_key = self.memo.get("by_key")
        if by_key is None:
            order = np.argsort(self.cache_rows, kind="stable")
            by_key = self.memo["by_key"] = {"order": order, "sorted": self.cache_rows[order]}
        lo = np.searchsorted(by_key["sorted"], keys, side="left")
        hi = np.searchsorted(by_key["sorted"], keys, side="right")
        counts = hi - lo
        if not counts.sum():
            return np.zeros(0, dtype=np.int64)
        starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
        rows = by_key["order"][starts + np.arange(counts.sum())]
        rows = np.unique(rows)
        return rows[~np.isin(rows, self.dead)] if len(self.dead) else rows

    # Lookups recall needs on every query, built once per snapshot (a patched one gets them patched,
    # see _carry_lookups), so a query's cost does not grow with every document and topic in the vault.
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
    def names(self) -> dict[str, tuple[str, ...]]:
        """Normalised topic name or alias (3+ characters) -> the paths of the topics it names, sorted
        (a tuple, not a set: most name one topic, and a set of one costs 216 bytes)."""
        out: dict[str, set[str]] = {}
        for path, names in self.names_of_topic.items():
            for n in names:
                if len(n) >= 3:
                    out.setdefault(n, set()).add(path)
        return {n: tuple(sorted(paths)) for n, paths in out.items()}

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


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a snapshot's millions of objects are made: each
    collection would walk all made so far (at 50k topics half a second of a two-second load),
    and none of them is garbage."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# A fact whose dates span more than this many times a question's window says too little about it
# to be in it: "moving the database this month" did not happen "on Saturday".
COARSER = 7


@dataclass
class TimeTable:
    """Every topic's times as arrays of epoch seconds (last seen, its dated items' windows, its
    events), so "which topics fall in this window" is a few vector comparisons per query."""

    paths: list[str]
    last_seen: np.ndarray
    item_topic: np.ndarray
    item_start: np.ndarray
    item_end: np.ndarray
    item_kind: np.ndarray  # docs.EVENT, SAID or SAID_ONLY
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
        decoded = json.loads("[" + ",".join(snap.topics[p].item_windows for p in paths) + "]")
        items = [(i, *w) for i, windows in enumerate(decoded) for w in windows]
        events = [(index[e.topic_path], epoch(e.at)) for e in snap.events if e.topic_path in index]
        items_arr = np.array(items, dtype=np.float64).reshape(-1, 4)
        events_arr = np.array(events, dtype=np.float64).reshape(-1, 2)
        return cls(paths, np.array(last, dtype=np.float64), items_arr[:, 0].astype(np.int64), items_arr[:, 1],
                   items_arr[:, 2], items_arr[:, 3].astype(np.int8), events_arr[:, 0].astype(np.int64),
                   events_arr[:, 1])

    def topics_in(self, start: dt.datetime | None, end: dt.datetime | None, said: bool = False) -> set[str]:
        """Topics last seen in [start, end), with an item overlapping it (by the event's dates when
        it names them, else the day said; with `said`, by the day said) and not far coarser than
        it (see COARSER), or a sleep event in it."""
        s = start.timestamp() if start else -np.inf
        e = end.timestamp() if end else np.inf
        hit = np.zeros(len(self.paths), dtype=bool)
        kinds = (SAID, SAID_ONLY) if said else (EVENT, SAID)
        with np.errstate(invalid="ignore"):
            hit |= (self.last_seen >= s) & (self.last_seen < e)
            overlap = (self.item_start < e) & (self.item_end > s) & np.isin(self.item_kind, kinds) \
                & (self.item_end - self.item_start <= COARSER * (e - s))
            hit[self.item_topic[overlap]] = True
            hit[self.event_topic[(self.event_at >= s) & (self.event_at < e)]] = True
        return {self.paths[i] for i in np.flatnonzero(hit)}


def by_id(topics: dict[str, TopicRow]) -> dict[str, str]:
    by_id: dict[str, str] = {}
    for path, t in sorted(topics.items()):
        by_id.setdefault(t.topic_id, path)
        by_id.setdefault(t.slug, path)
    return by_id


def _patch_by_id(base: Snapshot, topics: dict[str, TopicRow], update: Update) -> dict[str, str]:
    """by_id(topics) from the base's: an id or slug goes to the first path holding it, so a
    touched topic's new keys are a comparison each; only a key its winner gave up needs them all."""
    out = dict(base.by_id)
    for path in sorted(update.touched):
        old, new = base.topics.get(path), update.topics.get(path)
        old_keys = {old.topic_id, old.slug} if old else set()
        new_keys = {new.topic_id, new.slug} if new else set()
        if any(out.get(k) == path for k in old_keys - new_keys):
            return by_id(topics)
        for k in new_keys - old_keys:
            if k not in out or path < out[k]:
                out[k] = path
    return out


def docs_from_rows(rows: Iterable[tuple], strings: dict[str, str],
                   cached: int) -> tuple[dict[str, Doc], list[str | None], list[int]]:
    """Documents from index rows (docs.LOADED_COLUMNS: no citations; then the embedding-cache row
    of the vector or -1), sharing strings as share_strings does; and the ids and cache rows of those whose vector
    is among the `cached` rows the cache file holds. Built in one loop, as a snapshot load at 50k
    topics makes 300k of them."""
    one = strings.setdefault
    docs: dict[str, Doc] = {}
    vec_ids: list[str | None] = []
    cache_rows: list[int] = []
    for doc_id, kind, path, topic_path, text, topic_text, date, line, cites, done, mentions, struck, by, row in rows:
        mentions = mentions or "[]"
        docs[doc_id] = Doc(doc_id, one(kind, kind), one(path, path), one(topic_path, topic_path), text,
                           one(topic_text, topic_text), one(date, date), line, cites, bool(done),
                           one(mentions, mentions), struck or "", by or "")
        if 0 <= row < cached:
            vec_ids.append(doc_id)
            cache_rows.append(row)
    return docs, vec_ids, cache_rows


def share_strings(doc: Doc, strings: dict[str, str]) -> Doc:
    """The doc with its often-repeated strings (its file, kind, date, topic names) replaced by one
    shared copy: a topic's docs repeat them, and at 10k topics the copies cost tens of MB of a
    daemon's memory."""
    one = strings.setdefault
    doc.kind, doc.path, doc.date = one(doc.kind, doc.kind), one(doc.path, doc.path), one(doc.date, doc.date)
    doc.topic_path, doc.topic_text = one(doc.topic_path, doc.topic_path), one(doc.topic_text, doc.topic_text)
    # Kept as JSON text, as the database stores them (see Doc); mentions are mostly "[]".
    if doc.cites is not None and not isinstance(doc.cites, str):
        doc.cites = json.dumps(doc.cites)
    mentions = doc.mentions if isinstance(doc.mentions, str) else json.dumps(doc.mentions)
    doc.mentions = one(mentions, mentions)
    return doc


def spare_rows(rows: int) -> int:
    """Room for rows appended by later small updates (untouched pages of np.empty cost no memory)."""
    return rows + max(1024, rows // 8)


@dataclass
class Tail:
    """The buffer a snapshot's matrix is a view of, and how many of its rows are written: the rows
    after them are spare room for later small updates."""

    buffer: np.ndarray
    used: int


@dataclass
class Update:
    """One applied index update: the ids of the touched files' old documents (`gone`), their new
    documents, the topics they define, the touched paths, the new events list (None: unchanged),
    and vectors for new documents (`vector_ids[i]` is row i of `vectors`)."""

    generation: int
    gone: list[str]
    new_docs: list[Doc]
    topics: dict[str, TopicRow]
    touched: set[str]
    events: list[EventRow] | None
    vector_ids: list[str]
    vectors: np.ndarray | None
    cache_rows: list[int] | None = None  # the embedding-cache row of each of `vectors`


def patched(base: Snapshot, update: Update, tail: Tail | None, strings: dict[str, str],
            head: str | None) -> tuple[Snapshot, Tail | None]:
    """`base` with `update` applied: what a full load would give, without re-reading every
    document. Returns the new snapshot and the buffer its matrix lives in."""
    docs, speaker_count, dead_rows = _patch_docs(base, update, strings)
    topics = {p: t for p, t in base.topics.items() if p not in update.touched}
    topics.update(update.topics)
    events = base.events if update.events is None else update.events
    vec_ids, matrix, dead, row_of, tail, cache_rows = _patch_rows(base, update, dead_rows, tail)
    snap = Snapshot(update.generation, docs, topics, events, vec_ids, matrix, _patch_by_id(base, topics, update), head,
                    row_of=row_of, dead=dead, speaker_count=speaker_count, cache_rows=cache_rows, source=base.source,
                    quick=base.quick, cited=base.cited)
    _carry_lookups(base, snap, update)
    return snap, tail


def _carry_lookups(base: Snapshot, snap: Snapshot, update: Update) -> None:
    """The per-topic lookups `base` has built, patched for the touched topics rather than built
    again from every document (at 50k topics 0.5 s on the first question after each save). Each
    equals what `snap` would build itself (a topic's documents in the same order; the order of the
    keys, which nothing reads, may differ)."""
    built = base.__dict__
    if "docs_of_topic" in built:
        gone = set(update.gone)
        new: dict[str, list[Doc]] = {}
        for doc in update.new_docs:
            new.setdefault(doc.topic_path, []).append(doc)
        topics_now = {base.docs[d].topic_path for d in update.gone if d in base.docs} | set(new)
        by_topic = dict(base.docs_of_topic)
        for path in topics_now:
            kept = [d for d in by_topic.get(path, ()) if d.doc_id not in gone] + new.get(path, [])
            if kept:
                by_topic[path] = kept
            else:
                by_topic.pop(path, None)
        snap.__dict__["docs_of_topic"] = by_topic
    if "names_of_topic" in built:
        names_of = dict(base.names_of_topic)
        for path in update.touched:
            names_of.pop(path, None)
        for path, topic in update.topics.items():
            names_of[path] = [norm(n) for n in (topic.name, *topic.aliases)]
        snap.__dict__["names_of_topic"] = names_of
        if "names" in built:
            names = dict(base.names)
            for path in update.touched:
                for n in base.names_of_topic.get(path, ()):
                    if len(n) >= 3 and n in names:
                        if rest := tuple(p for p in names[n] if p != path):
                            names[n] = rest
                        else:
                            del names[n]
            for path in update.topics:
                for n in names_of[path]:
                    if len(n) >= 3 and path not in names.get(n, ()):
                        names[n] = tuple(sorted((*names.get(n, ()), path)))
            snap.__dict__["names"] = names
            if "longest_name" in built:  # unless a name that long is gone: then snap counts again
                words = [n.count(" ") + 1 for p in update.touched for n in base.names_of_topic.get(p, ())
                         if len(n) >= 3]
                if max(words, default=0) < base.longest_name:
                    snap.__dict__["longest_name"] = max([base.longest_name, *(
                        n.count(" ") + 1 for p in update.topics for n in names_of[p] if len(n) >= 3)])
    if "events_of_topic" in built and update.events is None:
        snap.__dict__["events_of_topic"] = base.events_of_topic


def _patch_docs(base: Snapshot, update: Update,
                strings: dict[str, str]) -> tuple[dict[str, Doc], dict[str, int], list[int]]:
    """Documents and speaker counts after the update, and the matrix rows of documents now gone."""
    docs = dict(base.docs)
    speaker_count = dict(base.speaker_count or {})
    dead_rows = []
    for doc_id in update.gone:
        doc = docs.pop(doc_id, None)
        if doc is not None and (who := speaker_of(doc.text)):
            who = who.lower()
            speaker_count[who] -= 1
            if not speaker_count[who]:
                del speaker_count[who]
        if (row := base.row_of.get(doc_id)) is not None:
            dead_rows.append(row)
    for doc in update.new_docs:
        docs[doc.doc_id] = share_strings(doc, strings)
        if base.cited is not None:  # the update wrote them to the index, where the base reads its own
            doc.cites = None
        if who := speaker_of(doc.text):
            speaker_count[who.lower()] = speaker_count.get(who.lower(), 0) + 1
    return docs, speaker_count, dead_rows


def _patch_rows(base: Snapshot, update: Update, dead_rows: list[int], tail: Tail | None
                ) -> tuple[list[str | None], np.ndarray, np.ndarray, dict[str, int], Tail | None, np.ndarray]:
    """Vectors of new documents go into the spare rows after the base's matrix (the base only ever
    sees its own rows); rows of gone documents are marked dead. When there is no spare room or a
    quarter of the rows are dead, the live rows are copied into a new buffer. A snapshot that holds
    no vectors (see Snapshot) gets only the new rows' ids and cache rows."""
    vec_ids: list[str | None] = list(base.vec_ids)
    for row in dead_rows:
        vec_ids[row] = None
    dead = np.union1d(base.dead, np.array(dead_rows, dtype=np.int64)).astype(np.int64)
    matrix = base.matrix
    cache_rows = base.cache_rows
    compacted = False
    added = update.vector_ids
    if added and (update.vectors is not None or not base.held):
        live = np.ones(len(vec_ids), dtype=bool)
        live[dead] = False
        if base.held:
            assert update.vectors is not None
            matrix, tail, compacted = _add_vectors(matrix, update.vectors, live, tail)
        else:
            compacted = len(dead) * 4 > len(vec_ids) + len(added)
        if compacted:
            vec_ids = [d for d in vec_ids if d is not None]
            cache_rows = cache_rows[live]
            dead = np.zeros(0, dtype=np.int64)
        vec_ids += added
        keys = update.cache_rows if update.cache_rows is not None else [-1] * len(added)
        cache_rows = np.concatenate([cache_rows, np.asarray(keys, dtype=np.int64)])
    if compacted:
        row_of = {d: i for i, d in enumerate(vec_ids) if d is not None}
    else:
        row_of = dict(base.row_of)
        for doc_id in update.gone:
            row_of.pop(doc_id, None)
        for i in range(len(base.vec_ids), len(vec_ids)):
            added_id = vec_ids[i]
            if added_id is not None:
                row_of[added_id] = i
    return vec_ids, matrix, dead, row_of, tail, cache_rows


def _add_vectors(matrix: np.ndarray, fresh: np.ndarray, live: np.ndarray,
                 tail: Tail | None) -> tuple[np.ndarray, Tail, bool]:
    """`matrix` with `fresh` rows after it: in its buffer's spare rows when this matrix owns them
    and at most a quarter of its rows are dead, else the `live` rows and `fresh` copied into a new
    buffer (the third value says so)."""
    used, count = matrix.shape[0], len(fresh)
    buffer = matrix.base if isinstance(matrix.base, np.ndarray) else None
    if (buffer is not None and tail is not None and tail.buffer is buffer and tail.used == used
            and matrix.ctypes.data == buffer.ctypes.data and buffer.shape[1] == fresh.shape[1] == matrix.shape[1]
            and buffer.shape[0] >= used + count and (used - int(live.sum())) * 4 <= used + count):
        buffer[used : used + count] = fresh
        return buffer[: used + count], Tail(buffer, used + count), False
    keep = int(live.sum())
    buffer = np.empty((spare_rows(keep + count), fresh.shape[1]), dtype=np.float32)
    if keep:
        np.compress(live, matrix, axis=0, out=buffer[:keep])
    buffer[keep : keep + count] = fresh
    return buffer[: keep + count], Tail(buffer, keep + count), True
