"""What was said since the last sleep: the turns still in the vault's buffer (the kept tail too),
searched like facts, so recall sees a value said in the last turns before a sleep compacts it.

A turn's relevance is a fact's (`weights.bm25` x BM25 + `weights.embedding` x cosine), with BM25
read as the share of the question's words the turn says, each weighed by how rare it is in the
buffer (a turn saying every word of the question scores 1, as the best fact does); its priority is
that relevance times the recency a topic gets for its age. Nothing in the buffer has a topic, so
none lifts or lowers it: it stands as the best topic's facts do, and ranks with them.

Where a shown turn gives another value of a quantity a shown fact states (the keys of
quantities.py, as retrieval/current.py reads them), the fact is history: it moves under
"Earlier values" and the turn ranks before it.
"""
from __future__ import annotations

import datetime as dt
import math
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from zoneinfo import ZoneInfo

import numpy as np

from sheriff_vault import timewin
from sheriff_vault.errors import VaultError
from sheriff_vault.retrieval.current import keyed_values
from sheriff_vault.retrieval.excerpt import excerpt
from sheriff_vault.retrieval.when import soft_window
from sheriff_vault.search_words import key_words
from sheriff_vault.text import stem

if TYPE_CHECKING:
    from sheriff_vault.store.buffer import Turn
    from sheriff_vault.store.vault import Vault

HEADING = "## Said recently, not yet slept (the conversation since the last sleep; not in topics yet)"
SHOWN = 6  # turns shown at most: the section is context next to the topics, not a transcript
SEARCHED = 500  # the newest buffered turns searched (an agent sleeps long before its buffer gets there)
EMBEDDED = 200  # of those, the newest compared by meaning too: each is embedded once (~9 ms a turn on a CPU)
ROLES = ("user", "assistant")
K1, B = 1.2, 0.75  # BM25's usual constants
WINDOW_LIFT = 0.3  # what a fact said inside the question's time window gains (ranking's pick_facts)
MATCH = 0.2  # the cosine under which a turn sharing no word with the question is about something else
EMBED_CHARS = 2000
_CACHE_SIZE = 4096


@dataclass
class RecentHit:
    """A buffered turn worth showing, with its score and the facts it gives a newer value of."""

    turn_id: str
    speaker: str
    at: dt.datetime | None
    text: str
    excerpt: str
    score: float
    signals: dict[str, float]
    supersedes: list[str] = field(default_factory=list)  # doc ids of the facts it replaces

    @property
    def key(self) -> str:
        return f"buffer#{self.turn_id}"

    def render(self, tz: str = "UTC") -> str:
        when = self.at.astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M") if self.at else "undated"
        return f"- {when} {self.speaker}: {self.excerpt}" + (f" [{self.turn_id}]" if self.turn_id else "")

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn_id, "speaker": self.speaker, "at": timewin.to_iso(self.at) if self.at else None,
                "text": self.text, "excerpt": self.excerpt, "score": round(self.score, 4),
                "signals": {k: round(v, 4) for k, v in self.signals.items()}, "supersedes": self.supersedes}


class _VectorCache:
    """Turn vectors by the embedder's content key: the daemon embeds each buffered turn once, not
    once per recall."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._vecs: OrderedDict[str, np.ndarray] = OrderedDict()

    def get(self, keys: list[str], texts: list[str], encode: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        with self._lock:
            missing = [i for i, k in enumerate(keys) if k not in self._vecs]
        if missing:
            fresh = encode([texts[i] for i in missing])
            with self._lock:
                for i, vec in zip(missing, fresh, strict=True):
                    self._vecs[keys[i]] = vec
                while len(self._vecs) > _CACHE_SIZE:
                    self._vecs.popitem(last=False)
        with self._lock:
            return np.stack([self._vecs[k] for k in keys])


_vectors = _VectorCache()


def buffered_turns(vault: Vault, now: dt.datetime, warnings: list[str]) -> list[Turn]:
    """The buffer's user and assistant turns said by `now`, newest SEARCHED of them; a buffer that
    cannot be read is a warning, never a failed recall."""
    from sheriff_vault.store.buffer import load_buffer

    try:
        turns = load_buffer(vault)
    except (VaultError, OSError) as exc:
        warnings.append(f"the buffer was not searched: {exc}")
        return []
    said = [t for t in turns if t.role in ROLES and t.content.strip() and (t.at is None or t.at <= now)]
    return said[-SEARCHED:]


def word_share(query: str, texts: Sequence[str]) -> list[float]:
    """BM25 of each text for the query's content words, over the BM25 a text of average length
    saying each word once would get: 1 for a turn that says the whole question, rare words weighing
    more. Words are stemmed as recall's excerpts are."""
    wanted = list(dict.fromkeys(stem(w) for w in key_words(query)))
    if not wanted or not texts:
        return [0.0] * len(texts)
    bags = [Counter(stem(w) for w in key_words(t)) for t in texts]
    n = len(bags)
    avg = sum(sum(b.values()) for b in bags) / n or 1.0
    idf = {w: math.log(1 + (n - df + 0.5) / (df + 0.5)) for w in wanted for df in [sum(1 for b in bags if w in b)]}
    full = sum(idf.values()) or 1.0
    out = []
    for bag in bags:
        size = sum(bag.values())
        norm = K1 * (1 - B + B * size / avg)
        score = sum(idf[w] * bag[w] * (K1 + 1) / (bag[w] + norm) for w in wanted if bag[w])
        out.append(min(1.0, score / full))
    return out


def search(turns: list[Turn], query: str, search_text: str, *, cfg: Any, now: dt.datetime,
           window: timewin.Window | None, qvec: np.ndarray | None, embedder: Any = None,
           key: Callable[[str], str] | None = None) -> list[RecentHit]:
    """Every turn that matches the question, best first, scored as the module docstring says.
    The question itself, when it was noted before recall ran, is not an answer to itself."""
    asked = " ".join(query.split()).lower()
    turns = [t for t in turns if " ".join(t.content.split()).lower() != asked]
    if not turns:
        return []
    texts = [t.content for t in turns]
    shares = word_share(search_text, texts)
    cosines = [0.0] * len(turns)
    if qvec is not None and embedder is not None and key is not None:
        clipped = [t[:EMBED_CHARS] for t in texts[-EMBEDDED:]]
        try:
            near = _vectors.get([key(t) for t in clipped], clipped, embedder) @ qvec
            cosines[len(texts) - len(clipped):] = [float(c) for c in near]
        except VaultError:
            pass  # no model: words alone, as recall does while the daemon warms up
    w = cfg.weights
    hits = []
    for turn, share, cos in zip(turns, shares, cosines, strict=True):
        if share <= 0 and cos < MATCH:
            continue
        rel = w.bm25 * share + w.embedding * max(cos, 0.0)
        signals = {"relevance": rel, "bm25": share, "embedding": cos, "recency": _recency(turn.at, now, cfg)}
        prio = rel * signals["recency"]
        if window is not None and turn.at is not None:
            inside = window.contains(turn.at)
            signals["in_window"] = float(inside)
            if inside:
                prio += WINDOW_LIFT
            elif not soft_window(window):
                prio *= cfg.outside_window
        hits.append(RecentHit(turn.id, turn.speaker, turn.at, turn.content, excerpt(turn.content, query, limit=240),
                              prio, signals))
    hits.sort(key=lambda h: (-h.score, -(h.at.timestamp() if h.at else 0.0)))
    return hits


def _recency(at: dt.datetime | None, now: dt.datetime, cfg: Any) -> float:
    """A topic's recency for its age (ranking._Ranker._recency), here the turn's."""
    if at is None:
        return 1.0
    age = max(0.0, (now - at).total_seconds() / 86400)
    return cfg.recency_floor + (1 - cfg.recency_floor) * math.exp(-age / cfg.tau_days)


def keep(hits: list[RecentHit], best_fact: float, floor_share: float) -> list[RecentHit]:
    """The turns over the floor recall puts under facts (a share of the best fact or turn), at
    most SHOWN."""
    best = max([best_fact, *(h.score for h in hits)], default=0.0)
    return [h for h in hits if h.score >= floor_share * best][:SHOWN]


class ShownFact(Protocol):
    """What supersede reads and marks of a fact recall shows (result.FactHit)."""

    doc_id: str
    text: str
    date: str
    superseded: str
    score: float


def supersede(hits: list[RecentHit], facts: Sequence[ShownFact], discount: float) -> None:
    """Mark as history each shown fact whose every quantity a newer shown turn gives another value
    (the rule of current.replaced_by_date, with the turn's time as its date); its score takes
    recall's `discount` for history."""
    latest: dict[str, tuple[dt.datetime, str, RecentHit]] = {}
    for hit in sorted(hits, key=lambda h: h.at.timestamp() if h.at else 0.0):
        if hit.at is None:
            continue
        for name, value in keyed_values(hit.text):
            latest[name] = (hit.at, value, hit)
    if not latest:
        return
    for fact in facts:
        pairs = keyed_values(fact.text)
        if fact.superseded or not pairs or not fact.date:
            continue
        newer = [latest[name] for name, value in pairs if name in latest and latest[name][1] != value
                 and latest[name][0].date().isoformat() >= fact.date[:10]]
        if len(newer) == len(pairs):
            fact.superseded = max(at for at, _, _ in newer).date().isoformat()
            fact.score *= discount
            for _, _, hit in newer:
                if fact.doc_id not in hit.supersedes:
                    hit.supersedes.append(fact.doc_id)
