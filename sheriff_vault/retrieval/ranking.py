"""Recall: the few topics and facts that matter for a message, ranked with a sense of time.

score(topic) = relevance x (1 + utility_boost) x recency_boost x time_window_boost  (docs/recall.md)
relevance    = best item match (normalised BM25 + cosine) + a little for a second match + alias hit
Facts are then picked across the chosen topics by MMR, so what fits the budget is the most useful
and least repetitive; the Markdown render spends the character budget exactly.
"""
from __future__ import annotations

import datetime as dt
import heapq
import itertools
import json
import math
import re
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from sheriff_vault import timewin
from sheriff_vault.errors import VaultError
from sheriff_vault.index.docs import Doc, TopicRow, speaker_of
from sheriff_vault.index.engine import Index, Snapshot
from sheriff_vault.index.snapshot import COARSER, StaleSnapshot
from sheriff_vault.retrieval import recent
from sheriff_vault.retrieval.current import replaced_day, restated
from sheriff_vault.retrieval.excerpt import excerpt, new_values, said_values
from sheriff_vault.retrieval.recent import RecentHit
from sheriff_vault.retrieval.reply import MAX_QUERY_CHARS
from sheriff_vault.retrieval.result import Cut, FactHit, RecallResult, TopicHit
from sheriff_vault.retrieval.triggers import Trigger, text_triggers
from sheriff_vault.retrieval.when import as_of, resolve_window, said_time, soft_window
from sheriff_vault.search_words import FILLER
from sheriff_vault.store.topics import has_tag
from sheriff_vault.text import CALENDAR, SPEAKER, STOPWORDS, everyday, names_money, norm

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

ITEM_KINDS = ("fact", "loop", "event", "note")
WINDOW_ONLY = 300  # window topics nothing in the question matched, weighed at most (see _window_only)
SUPERSEDED = 0.4  # a value a later fact replaced ranks this much lower (it is history)
BESIDE = 0.9  # the correction of a line said beside a matching fact ranks just under that fact
MIN_RELATIVE = 0.15  # a topic scoring under this share of the best one is noise, not context
PEOPLE_MATCH, PEOPLE_MISS = 1.4, 0.65  # what the named person said, against what someone else said
ASSISTANT = "assistant"  # the speaker a fact names for the assistant's words (store/buffer.Turn.speaker)
TOPIC_LIFT = 0.4  # how much a fact's rank leans on its topic's score (0 = facts stand alone)
AS_OF_NEWEST = 0.5  # "as of X": how much a fact said just before the end of X outranks an old one
PER_PERSON = 3  # a question naming two people first shows this many of each one's best facts
ON_SUBJECT = 0.5  # a topic this close to the best one's relevance is about what the question asks
ORDER_EDGES = frozenset({"NEXT", "PREV"})  # sleep's "came up next": an order, not a relation
HOP_FACTS = 2  # facts a topic one related hop away shows even under the relevance floor
MAX_CANDIDATES = 400  # facts ordered by MMR; the rest could never fit a budget
ANSWER_KIND = 1.15  # a "when" question's dated fact, a "how much" one's amount of money, a "who" one's name
FOCUSED_TURNS = 20  # unslept turns weighed for the answer asked: the best of them by relevance
STALE_TRIES = 3  # a question asked again of a fresh snapshot when another process wrote the index under it
# all-MiniLM cosines: under MIN_MATCH a fact sharing no word with the query is about something else;
# when no fact at all reaches NOTHING_MATCHES, memory holds nothing on it and recall says so.
MIN_MATCH, NOTHING_MATCHES = 0.15, 0.2
_DATED = re.compile(r"\((?:[^()]*\b(?:19|20)\d\d)\)")
# Words that ask about the talk itself, not a subject: "what did we talk about last week?" wants
# everything in the window; "what did we decide about the database last week?" only the database.
_ABOUT_TALK = frozenset("happen happened happening discuss discussed discussing talked mention mentioned "
                        "remember decide decided decision decisions plan plans planned agree agreed work worked "
                        "news update updates up do did done doing".split())
# English fronts a preposition with the wh-phrase it governs ("on what date", "in which city", "by
# when"): the question asks the same value as without it.
_PIED = r"(?:(?:on|in|at|by|from|for|to|with|since|until|till|during|after|before|of|about|into)\s+)?"
# "What is the budget now?", "how many guests?", "who is the coach?": a question after one value
# wants the facts that give it, not everything near it; its floor is this share of the best fact.
_ONE_ANSWER = re.compile(rf"^\s*{_PIED}(?:what|which|who|where|when|how much|how many|how old)"
                         rf"(?:\s+(?:is|was)\b|['’]s\b)|^\s*{_PIED}how (?:much|many)\b", re.I)
ONE_ANSWER_FLOOR = 0.45
# "How much does the roof repair cost?": the answer is an amount of money.
_HOW_MUCH = re.compile(rf"\bhow much\b|^\W*{_PIED}(?:what|which)\b[^?]*\b(?:price|cost|costs|fee|fees|quote|budget|"
                       r"paid|pay|charged?)\b", re.I)
_AMOUNT = re.compile(r"[$€£¥]\s?\d|\b\d[\d,.]*\s?([^\W\d_]+)\b")  # "$40", or a number and the word after
# A question after one value ("which car did we pick?", "when is the dentist?", "how much was the deposit?",
# "how wide is the gap?": "how" before an adjective of measure or an adverb of frequency), not after a
# reason or a manner ("why ...?", "how do I ...?"): the latest statement of it is the answer.
_ASKS_VALUE = re.compile(rf"^\W*{_PIED}(?:what|which|who|whose|where|when|how (?:much|many|long|old|far|wide|tall|"
                         r"high|deep|big|large|heavy|thick|often))\b", re.I)
# "Who is coaching the team now?", "with whom ...?": the answer is a person, named in the fact.
_WHO = re.compile(rf"^\W*{_PIED}(?:who|whom)\b", re.I)
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][a-z]+(?:-[A-Z][a-z]+)?\b")
_WHEN = re.compile(rf"^\s*{_PIED}(?:when|what (?:date|day|year|month|time)|how long ago|which (?:year|month|day))\b",
                   re.I)


def _names_money(text: str) -> bool:
    """`text` gives an amount of money: a currency sign before a number, or a currency after it."""
    return any(m.group(1) is None or names_money(m.group(1)) for m in _AMOUNT.finditer(text))


def _names_someone(text: str, asked: set[str]) -> bool:
    """`text`, past its speaker, names someone the question does not: a capitalised word that is no
    everyday English word (not a sentence's first "Sounds" or "Thanks") and no day or month."""
    body = text[len(m.group(0)):] if (m := SPEAKER.match(text)) else text
    return any(w.lower() not in asked and not {w.lower(), w.lower()[:-1]} & CALENDAR  # "Mondays" too
               and not everyday(w) for w in _CAPITALISED.findall(body))


def people_in(query: str, snap: Snapshot) -> set[str]:
    """Speakers of remembered conversations that the query names (lowercase)."""
    names = {w.lower() for w in re.findall(r"\b[A-Z][a-z]+\b", query)}
    if not names:
        return set()
    speakers = snap.speakers
    return {n for n in names if n in speakers}


def has_subject(search_text: str) -> bool:
    """Whether the question names a subject beyond time and talk ("what happened last week?" does
    not): a time window then narrows that subject instead of standing in for it."""
    return any(w not in STOPWORDS and w not in FILLER and w not in _ABOUT_TALK and len(w) > 1
               for w in re.findall(r"[a-z0-9]+", search_text.lower()))


def without_people(text: str, people: set[str]) -> str:
    """The query minus the speakers' names, which every line they said would otherwise match."""
    if not people:
        return text
    out = re.sub(r"\b(" + "|".join(map(re.escape, people)) + r")(?:'s)?\b", " ", text, flags=re.I)
    return " ".join(out.split()) or text


def recall(vault: Vault, query: str, *, index: Index | None = None, tail: str = "", k: int | None = None,
           deep: bool = False, since: str | None = None, until: str | None = None, now: dt.datetime | None = None,
           explain: bool = False, refresh: bool = True, dense: bool = True, buffered: bool = True,
           tag: str | None = None) -> RecallResult:
    """Rank topics and facts for `query` (see module docstring). Catches the index up first.
    `tag` keeps only topics with that tag (or a tag nested under it, `work` for `work/alpha`), and
    leaves out the turns not slept yet, which have no tags.
    `dense=False` skips the query's embedding (BM25 and aliases only: a daemon whose model is
    still loading answers so); `buffered=False` leaves out what was said since the last sleep (for
    a caller that shows those turns itself, as wake does)."""
    from sheriff_vault.store.packets import latest_slept_at
    from sheriff_vault.store.sleeps import commit_range, sleep_times

    if not query or not query.strip():
        raise VaultError("the query is empty", hint='say what to recall, e.g. vault recall "the party"')
    query = query[:MAX_QUERY_CHARS]
    cfg = vault.config.retrieval
    tz = vault.config.timezone
    now = now or timewin.utcnow()
    started = time.monotonic()
    own_index = index is None
    index = index or Index(vault)
    warnings: list[str] = []
    if own_index:  # the CLI prints these once each, with its own "warning: "
        index.log = lambda msg: warnings.append(msg.removeprefix("warning: "))
    try:
        index.open()
        caught = index.refresh() if refresh else None
        warnings += caught.warnings if caught else []
        warnings += index.file_errors()
        for tries in range(STALE_TRIES, 0, -1):
            try:
                snap = index.snapshot()
                asked = " ".join(p for p in (query, since, until) if p)
                sleeps = sleep_times(vault, now) if timewin.mentions_sleep(asked) else []
                window = resolve_window(query, now, tz, latest_slept_at(vault, now), since, until, sleeps)
                search_text = _search_text(query, window, snap)
                qvec = _query_vector(index, search_text, tail) if dense else None
                ranker = _Ranker(snap, cfg, now, window, qvec, query, search_text)
                ranker.explain = explain
                ranker.tag = tag
                ranker.add_hits(*_search(index, search_text, qvec, window))
                if index.embedding_warning and index.embedding_warning not in warnings:
                    warnings.append(index.embedding_warning)
                ranker.add_aliases(query)
                if window:
                    ranker.add_window_topics()
                scored = ranker.score_topics()
                if tag:
                    scored = [t for t in scored if ranker.tagged(t.path)]
                    if not any(has_tag(row.tags, tag) for row in snap.topics.values()):
                        warnings.append(f"no topic has the tag {tag!r}; `vault topic tag TOPIC {tag}` adds it")
                triggers = _triggers(query, tail, window, scored, snap, cfg)
                mode = "deep" if deep or triggers else "light"
                limit = k or (cfg.deep_k if mode == "deep" else cfg.light_k)
                if mode == "deep" and window and not soft_window(window):
                    scored = _inside_window(scored, window, warnings, ranker.topical)
                chosen, order, cuts = _select(ranker, scored, mode, limit)
                said = _recent(vault, index, ranker, chosen, search_text, warnings) if buffered and not tag else []
                _attach_events(snap, chosen, window)
                skills = _skills(snap, ranker, 4 if mode == "deep" else 2)
                break
            except StaleSnapshot:  # another process wrote the index mid-question: ask a fresh snapshot
                if tries == 1:
                    raise VaultError("the search index kept changing while recall read it",
                                     hint="ask again") from None
        _log(vault, query, mode, triggers, window, scored, chosen, skills, started)
        span = commit_range(vault, window, now) if window is not None and sleeps else None
        return RecallResult(query, mode, triggers, window, now, chosen, order, skills, list(dict.fromkeys(warnings)),
                            scored[: max(limit * 3, 30)] if explain else [], tz, cuts if explain else [],
                            index.meta("head") or None, caught.changed + caught.removed if caught else [],
                            span.to_json() if span else None, said, bool(_ASKS_VALUE.search(query)))
    finally:
        if own_index:
            index.close()


def _log(vault: Vault, query: str, mode: str, triggers: list[Trigger], window: timewin.Window | None,
         scored: list[TopicHit], chosen: list[TopicHit], skills: list[dict], started: float) -> None:
    """One line in .vault/logs/recall.jsonl: the top candidates and their scores (for tuning)."""
    from sheriff_vault.store.logs import write_log

    write_log(vault, "recall", {
        "query": query[:200], "mode": mode, "triggers": [t.name for t in triggers],
        "window": window.phrase if window else "", "duration_ms": round((time.monotonic() - started) * 1000, 1),
        "candidates": [{"id": t.topic_id, "name": t.name[:80], "score": round(t.score, 4)} for t in scored[:8]],
        "chosen": [t.topic_id for t in chosen], "skills": [s["skill_id"] for s in skills]})


def _recent(vault: Vault, index: Index, ranker: _Ranker, chosen: list[TopicHit], search_text: str,
            warnings: list[str]) -> list[RecentHit]:
    """The buffered turns (said since the last sleep) that answer the question, over the floor the
    shown facts are held to; the facts they give a newer value of become history."""
    turns = recent.buffered_turns(vault, ranker.now, warnings)
    if not turns:
        return []
    embedder = index.embedder if ranker.qvec is not None else None
    hits = recent.search(turns, ranker.query, search_text, cfg=ranker.cfg, now=ranker.now, window=ranker.window,
                         qvec=ranker.qvec, embedder=embedder.encode if embedder else None,
                         key=embedder.key if embedder else None)
    for hit in hits[:FOCUSED_TURNS]:  # what a shown fact gains for the kind of answer asked, a turn gains too
        factor = ranker.turn_focus(hit.text)
        hit.score *= factor
        if factor != 1.0:
            hit.signals["focus"] = factor
    hits[:FOCUSED_TURNS] = sorted(hits[:FOCUSED_TURNS], key=lambda h: (-h.score, -(h.at.timestamp() if h.at else 0.0)))
    best = max((f.score for t in chosen for f in t.facts if not f.superseded), default=0.0)
    share = max(ranker.cfg.fact_floor, ONE_ANSWER_FLOOR) if _ONE_ANSWER.search(ranker.query) else ranker.cfg.fact_floor
    shown = recent.keep(hits, best, share)
    recent.supersede(shown, [f for t in chosen for f in t.facts], SUPERSEDED)
    return shown


def _search_text(query: str, window: timewin.Window | None, snap: Snapshot) -> str:
    """What to search for: the query without its time phrase (the window handles it) and without
    the names of people who spoke (every line they said would match)."""
    text = query
    if window and window.span != (0, 0) and window.span[1] <= len(query):
        text = (query[: window.span[0]] + " " + query[window.span[1]:]).strip() or query
    return without_people(text, people_in(text, snap))


def _query_vector(index: Index, search_text: str, tail: str) -> np.ndarray | None:
    """The query's embedding, leaning a little toward the recent conversation when given."""
    qvec = index.embed_query(search_text)
    if qvec is not None and tail.strip():
        tvec = index.embed_query(tail[-600:])
        if tvec is not None:
            qvec = 0.85 * qvec + 0.15 * tvec
            qvec = qvec / (np.linalg.norm(qvec) or 1.0)
    return qvec


def _search(index: Index, search_text: str, qvec: np.ndarray | None,
            window: timewin.Window | None) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """BM25 hits (plus the best inside the window, which a vault-wide search can crowd out) and
    nearest vectors."""
    bm = index.bm25(search_text, 200)
    if window:
        bm += index.bm25(search_text, 100, window.start, window.end)
    return bm, index.dense(qvec, 200)


def _triggers(query: str, tail: str, window: timewin.Window | None, scored: list[TopicHit], snap: Snapshot,
              cfg: Any) -> list[Trigger]:
    """What calls for a deep search: the text's own triggers, and a light search unsure of itself."""
    triggers = text_triggers(query, tail, window.phrase if window else None,
                             [n for t in scored[:50] for n in (t.name, *snap.topics[t.path].aliases)])
    rels = sorted((t.signals["relevance"] for t in scored), reverse=True)
    if not rels or rels[0] < cfg.low_confidence or (len(rels) > 1 and rels[0] - rels[1] < cfg.close_margin):
        top = f"top relevance {rels[0]:.2f}" if rels else "no candidates"
        if len(rels) > 1:
            top += f", next {rels[1]:.2f}"
        triggers.append(Trigger("low_confidence", top))
    return triggers


def _inside_window(scored: list[TopicHit], window: timewin.Window, warnings: list[str],
                   topical: bool) -> list[TopicHit]:
    """An exact window filters, but never drops what a question with a subject is about ("is the
    party still on Saturday?" asks about the party, whenever its lines were said: its topics stay,
    weighed down as outside the window); when nothing falls in it, say so and keep the closest
    matches."""
    inside = [t for t in scored if t.signals["in_window"]]
    if inside:
        best = max(t.signals["relevance"] for t in scored) if topical else float("inf")
        return [t for t in scored if t.signals["in_window"] or t.signals["relevance"] >= ON_SUBJECT * best]
    if scored:
        warnings.append(f"nothing in memory falls in {window.label(window.tz)}; showing the closest matches")
    return scored


def _select(ranker: _Ranker, scored: list[TopicHit], mode: str,
            limit: int) -> tuple[list[TopicHit], list[str], list[Cut]]:
    """The topics to show and the order of their facts: topics above the relevance floor, one
    `related` hop in deep mode, facts ranked across them. A topic whose facts were all cut is
    not shown; one with no facts at all (a bare name) is, while fewer than `limit` topics are."""
    floor = scored[0].score * MIN_RELATIVE if scored else 0.0
    pool = [t for t in scored if t.score >= floor]
    top = pool[:limit]
    if mode == "deep":
        top = ranker.expand(top, pool, limit)
        have = {t.path for t in top}
        pool = top + [t for t in pool if t.path not in have]
    order, cuts = ranker.pick_facts(pool, len(top))
    picked = {t.path for t in pool if t.facts}
    chosen = [t for t in pool if t.path in picked]
    bare = [t for t in top if t.path not in picked and not ranker.has_items(t.path)]
    chosen += bare[: max(0, len(top) - len(chosen))]
    chosen.sort(key=lambda t: -t.score)
    for t in chosen:
        t.signals["selected"] = True
    return chosen, order, cuts


class _Ranker:
    def __init__(self, snap: Snapshot, cfg: Any, now: dt.datetime, window: timewin.Window | None,
                 qvec: np.ndarray | None, query: str = "", search_text: str | None = None) -> None:
        self.snap, self.cfg, self.now, self.window, self.qvec = snap, cfg, now, window, qvec
        self.query = query
        self.topical = has_subject(query if search_text is None else search_text)
        self.explain = False  # build the list of cut facts (only --explain reads it)
        self.people = people_in(query, snap)
        self.asks_when = bool(_WHEN.search(query))
        self.asks_amount = bool(_HOW_MUCH.search(query))
        self.asks_who = bool(_WHO.search(query))
        self.named = {w.lower() for w in _CAPITALISED.findall(query)}
        self.bm25: dict[str, float] = {}
        self.cos: dict[str, float] = {}
        self.alias: dict[str, float] = {}
        self.window_topics: set[str] = set()
        self.on_subject: set[str] = set()  # topics whose own relevance makes them about the question
        self.tag: str | None = None  # recall --tag: only topics with this tag
        self._cited: dict[str, str] = {}  # the citation JSON of documents read so far (`cites`)
        self._decoded: dict[str, list[dict]] = {}
        self._struck: dict[str, list[Doc]] = {}  # topic -> its struck lines (`_struck_lines`)
        self._replacements: dict[str, Doc | None] = {}  # struck line -> the fact that corrected it

    def cites(self, docs: Iterable[Doc]) -> dict[str, str]:
        """The stored citation JSON of these documents (and of those read before), by doc id: the
        snapshot reads what it does not hold from the index, once a question (Snapshot.cites)."""
        missing = [d for d in docs if d.doc_id not in self._cited]
        if missing:
            self._cited.update(self.snap.cites(missing))
        return self._cited

    def citations(self, doc: Doc) -> list[dict]:
        """One document's citations, decoded once a question."""
        found = self._decoded.get(doc.doc_id)
        if found is None:
            found = self._decoded[doc.doc_id] = json.loads(self.cites([doc])[doc.doc_id])
        return found

    def tagged(self, path: str) -> bool:
        return not self.tag or (path in self.snap.topics and has_tag(self.snap.topics[path].tags, self.tag))

    def add_hits(self, bm: list[tuple[str, float]], dense: list[tuple[str, float]]) -> None:
        top = max((s for _, s in bm), default=0.0) or 1.0
        for doc_id, score in bm:
            self.bm25[doc_id] = max(self.bm25.get(doc_id, 0.0), score / top)
        for doc_id, score in dense:
            self.cos[doc_id] = max(0.0, score)

    def add_aliases(self, query: str) -> None:
        """Exact name/alias phrases in the query are strong; close spellings count a little less."""
        from rapidfuzz import fuzz

        q = f" {norm(query)} "
        candidates = {self.snap.docs[d].topic_path for d in (*self.bm25, *self.cos) if d in self.snap.docs}
        words = q.split()
        for size in range(1, min(self.snap.longest_name, len(words)) + 1):
            for i in range(len(words) - size + 1):
                for path in self.snap.names.get(" ".join(words[i : i + size]), ()):
                    self.alias[path] = 1.0
        for path in candidates - set(self.alias):
            names = self.snap.names_of_topic.get(path)
            if names is None:
                continue
            best = max((fuzz.partial_ratio(n, q) for n in names if len(n) >= 5), default=0.0)
            if best >= 88:
                self.alias[path] = 0.7 * best / 100

    def add_window_topics(self) -> None:
        if self.window is not None:
            self.window_topics |= self.snap.times.topics_in(self.window.start, self.window.end,
                                                            said=said_time(self.window))

    def has_items(self, path: str) -> bool:
        return any(d.kind in ITEM_KINDS for d in self.snap.docs_of_topic.get(path, ()))

    def doc_in_window(self, doc: Doc) -> bool:
        w = self.window
        if w is None:
            return False
        span = (w.end - w.start) if w.start and w.end else None
        return any(w.overlaps(a, b) and (span is None or b - a <= COARSER * span)
                   for a, b in doc.windows(said=said_time(w)))

    def doc_rel(self, doc_id: str) -> tuple[float, float, float]:
        w = self.cfg.weights
        b, c = self.bm25.get(doc_id, 0.0), self.cos.get(doc_id, 0.0)
        return w.bm25 * b + w.embedding * c, b, c

    def score_topics(self) -> list[TopicHit]:
        per_topic: dict[str, list[tuple[float, float, float]]] = {}
        for doc_id in set(self.bm25) | set(self.cos):
            doc = self.snap.docs.get(doc_id)
            if doc is None or doc.kind == "skill":
                continue
            per_topic.setdefault(doc.topic_path, []).append(self.doc_rel(doc_id))
        for path in set(self.alias) | self._window_only(set(per_topic)):
            per_topic.setdefault(path, [(0.0, 0.0, 0.0)])
        hits = []
        for path, rels in per_topic.items():
            topic = self.snap.topics.get(path)
            if topic is None:
                continue
            rels.sort(reverse=True)
            base = rels[0][0] + (0.15 * rels[1][0] if len(rels) > 1 else 0.0)
            if path in self.window_topics and base < 0.2:
                base = 0.2
            alias = self.alias.get(path, 0.0)
            relevance = base + self.cfg.weights.alias * alias
            utility = self._utility(topic)
            recency = self._recency(topic)
            in_window = path in self.window_topics if self.window else False
            win = 1.0
            if self.window and soft_window(self.window):
                win = 1.0 + (self.cfg.window_boost - 1.0) / 3 if in_window else 1.0
            elif self.window:
                win = self.cfg.window_boost if in_window else self.cfg.outside_window
            score = relevance * (1 + utility) * recency * win
            signals = {"relevance": relevance, "bm25": max(r[1] for r in rels), "embedding": max(r[2] for r in rels),
                       "alias": alias, "utility_boost": utility, "recency": recency, "window": win,
                       "in_window": in_window}
            hits.append(TopicHit(path, topic.topic_id, topic.name, topic.one_liner, topic.last_seen, score, signals))
        hits.sort(key=lambda h: (-h.score, h.path))
        return hits

    def _utility(self, topic: TopicRow) -> float:
        return self.cfg.utility_weight * math.log1p(max(topic.utility, 0.0) + topic.touch_count) \
            + 0.03 * min(topic.constraints, 3)

    def _window_only(self, matched: set[str]) -> set[str]:
        """Window topics nothing in the question matched. They all score the window's floor times
        their use, so of thousands ("what was going on in May?" in a big vault) only the
        WINDOW_ONLY most used can rank high enough to be shown: the rest are not weighed."""
        only = self.window_topics - matched - set(self.alias)
        if len(only) <= WINDOW_ONLY:
            return only
        topics = self.snap.topics
        return set(heapq.nsmallest(WINDOW_ONLY, (p for p in only if p in topics),
                                   key=lambda p: (-self._utility(topics[p]), p)))

    def _recency(self, topic: TopicRow) -> float:
        if topic.evergreen or self.window is not None:
            return 1.0
        last = topic.last_seen_at
        if last is None:
            return self.cfg.recency_floor
        age = max(0.0, (self.now - last).total_seconds() / 86400)
        floor = self.cfg.recency_floor
        return floor + (1 - floor) * math.exp(-age / self.cfg.tau_days)

    def expand(self, chosen: list[TopicHit], scored: list[TopicHit], limit: int) -> list[TopicHit]:
        """Deep mode: pull in topics one `related` hop from the best ones (by the strongest of the
        parent's edges to each; `edges` keeps every type, for _context_hop)."""
        have = {t.path for t in chosen}
        by_path = {t.path: t for t in scored}
        extra: list[TopicHit] = []
        for parent in chosen[: max(3, limit // 2)]:
            edges: dict[str, list[dict]] = {}
            for edge in self.snap.topics[parent.path].related:
                target = self.snap.resolve_link(edge["id"]) if edge.get("link") else self.snap.topic_by_ref(edge["id"])
                if target is not None and target.path not in have and self.tagged(target.path) and \
                        (self.window is None or target.path in self.window_topics):
                    edges.setdefault(target.path, []).append(edge)
            for path, found in edges.items():
                if any(not e.get("link") for e in found):  # a `related` edge (its `## Related` line
                    found = [e for e in found if not e.get("link")]  # is a link too) says what it is
                target = self.snap.topics[path]
                weight = max(float(e.get("weight", 1.0)) for e in found)
                score = parent.score * 0.5 * min(1.0, max(0.1, weight) / 2 + 0.5)
                hit = by_path.get(path) or TopicHit(path, target.topic_id, target.name, target.one_liner,
                                                    target.last_seen, 0.0, {})
                hit.score = max(hit.score, score)
                hit.signals = {**hit.signals, "expanded_from": parent.name, "edge": found[0]["type"],
                               "edges": tuple(e["type"] for e in found), "parent": parent.path}
                have.add(path)
                extra.append(hit)
        out = chosen + extra
        out.sort(key=lambda h: -h.score)
        return out[: limit + len(extra)]

    def pick_facts(self, pool: list[TopicHit], limit: int) -> tuple[list[str], list[Cut]]:
        """Rank items across all candidate topics (fact relevance, lifted by its topic's score) and
        order them by MMR, so one topic cannot crowd out a second subject; no cap per topic. Items
        under the relevance floor (a share of the best one) are cut, so a narrow question gets a
        short answer; so are items of topics beyond the first `limit` they bring in."""
        if not pool:
            return [], []
        top_score = pool[0].score or 1.0
        hits = {t.path: t for t in pool}
        best_rel = max((t.signals.get("relevance", 0.0) for t in pool), default=0.0)
        self.on_subject = {t.path for t in pool if t.signals.get("relevance", 0.0) >= ON_SUBJECT * best_rel > 0}
        seen: set[str] = set()
        cands: list[tuple[float, Doc, TopicHit, dict]] = []

        def consider(doc: Doc, filler: float = 0.0) -> None:
            if doc.doc_id in seen or doc.kind not in ITEM_KINDS or doc.topic_path not in hits:
                return
            seen.add(doc.doc_id)
            hit = hits[doc.topic_path]
            rel, b, c = self.doc_rel(doc.doc_id)
            in_win = self.doc_in_window(doc)
            if self.window is not None and not in_win and doc.when and not soft_window(self.window):
                rel *= self.cfg.outside_window
            lift = 1 - TOPIC_LIFT + TOPIC_LIFT * min(1.0, hit.score / top_score)
            prio = (rel + (0.3 if in_win and self._on_subject(hit) else 0.0) + filler) * lift
            focus = self._focus(doc)
            prio *= focus
            if as_of(self.window) and in_win and doc.when and self.window and self.window.end:
                prio *= 1 + AS_OF_NEWEST * math.exp(-(self.window.end - doc.when).days / 90)
            if self._superseded(doc) and not self._current_at_window_end(doc):
                prio *= SUPERSEDED
            cands.append((prio, doc, hit, {"relevance": rel, "bm25": b, "embedding": c, "in_window": float(in_win),
                                           "topic_lift": lift} | ({"focus": focus} if focus != 1.0 else {})))

        for doc_id in set(self.bm25) | set(self.cos):
            doc = self.snap.docs.get(doc_id)
            if doc is not None:
                consider(doc)
        for t in pool[:limit]:
            docs = [d for d in self.snap.docs_of_topic.get(t.path, ()) if d.kind in ITEM_KINDS]
            for rank, doc in enumerate(sorted(docs, key=lambda d: d.date, reverse=True)[:2]):
                consider(doc, 0.02 * (2 - rank))
        cands = self._carry_current(cands, consider)
        cands = self._carry_latest(cands, consider)
        cands.sort(key=lambda x: (-x[0], x[1].doc_id))
        share = max(self.cfg.fact_floor, ONE_ANSWER_FLOOR) if _ONE_ANSWER.search(self.query) else self.cfg.fact_floor
        floor = share * cands[0][0] if cands else 0.0

        hop_best: dict[str, list[str]] = {}  # a related hop is context: its best facts stay
        for c in cands:
            if self._context_hop(c[2]) and len(hop_best.setdefault(c[2].path, [])) < HOP_FACTS:
                hop_best[c[2].path].append(c[1].doc_id)

        def kept(c: tuple[float, Doc, TopicHit, dict]) -> bool:
            """Above the floor; an earlier value is weighed before its history discount (it is shown
            last, under "Earlier values", when there is room)."""
            history = bool(self._superseded(c[1])) and not self._current_at_window_end(c[1])
            return c[0] >= floor or (history and c[0] / SUPERSEDED >= floor) \
                or c[1].doc_id in hop_best.get(c[2].path, ())

        cuts: list[Cut] = []
        record = self._cut if self.explain else lambda *_: None  # cuts are only built for --explain
        anything = any(self._matches(c, NOTHING_MATCHES) for c in cands)

        def related(c: tuple[float, Doc, TopicHit, dict]) -> bool:
            return anything and (self._matches(c, MIN_MATCH) or c[1].doc_id in hop_best.get(c[2].path, ()))

        for c in cands:
            if not related(c):
                record(cuts, c, "no match" if anything else "nothing in memory matches")
            elif not kept(c):
                record(cuts, c, "floor")
        cands = [c for c in cands if related(c) and kept(c)]
        for c in cands[MAX_CANDIDATES:]:
            record(cuts, c, f"beyond the {MAX_CANDIDATES} best")
        cands = cands[:MAX_CANDIDATES]
        cap = self.cfg.facts_per_topic or len(cands)
        per_topic: dict[str, int] = {}
        picked: list[str] = []
        shown: list[tuple[float, Doc, TopicHit, dict]] = []
        for i in self._each_person_first(self._mmr(cands), cands):
            cand = cands[i]
            hit = cand[2]
            if hit.path not in per_topic and len(per_topic) >= limit:
                record(cuts, cand, f"topic limit ({limit} topics)")
                continue
            if per_topic.get(hit.path, 0) >= cap:
                record(cuts, cand, f"facts_per_topic ({cap})")
                continue
            per_topic[hit.path] = per_topic.get(hit.path, 0) + 1
            shown.append(cand)
            picked.append(cand[1].doc_id)
        self.cites(c[1] for c in shown)  # the citations of every fact shown, in one read
        for cand in shown:
            cand[2].facts.append(self._fact(cand))
        return picked, cuts

    def _carry_current(self, cands: list[tuple[float, Doc, TopicHit, dict]],
                       consider: Callable[[Doc], None]) -> list[tuple[float, Doc, TopicHit, dict]]:
        """A struck value the question matches brings the fact that replaced it, ranked as the old
        one would have been: "what is the total?" matches "The total is 4,000" (struck), while the
        line that corrected it ("that comes to 3,650 with the discount") shares no word with it."""
        carried: dict[str, tuple[float, str]] = {}
        struck: dict[str, list[Doc]] = {}  # topic -> its struck lines, read once per topic
        # Every citation read below is of a topic with struck lines: all of theirs, in one read.
        marked = [p for p in sorted({doc.topic_path for _, doc, _, _ in cands}) if self._struck_lines(p, struck)]
        if marked:
            self.cites(d for path in marked for d in self.snap.docs_of_topic.get(path, ()) if d.kind in ITEM_KINDS)
        for prio, doc, _, _ in cands:
            if doc.superseded and doc.superseded_by:
                olds, weight = [doc], prio / SUPERSEDED
            else:  # what the same turn said beside a matching fact was about the same thing
                olds, weight = self._struck_beside(doc, struck), prio * BESIDE
            for old in olds:
                if self._current_at_window_end(old):
                    continue
                current = self._replacement(old)
                if current is not None and current is not doc and weight > carried.get(current.doc_id, (0.0, ""))[0]:
                    carried[current.doc_id] = (weight, old.doc_id)
        if not carried:
            return cands
        for doc_id in carried:
            consider(self.snap.docs[doc_id])
        out = []
        for prio, doc, hit, sig in cands:
            if doc.doc_id in carried and carried[doc.doc_id][0] > prio:
                prio, sig = carried[doc.doc_id][0], {**sig, "replaces": carried[doc.doc_id][1]}
            out.append((prio, doc, hit, sig))
        return out

    def _carry_latest(self, cands: list[tuple[float, Doc, TopicHit, dict]],
                      consider: Callable[[Doc], None]) -> list[tuple[float, Doc, TopicHit, dict]]:
        """A question after a date or an amount ("when does she start?", "how much is the fee?") is
        answered by its topic's latest line of that kind as much as by the line that matches it best:
        a change is often said in words of its own ("the 12th suits them better", "they charge 60
        now"). The latest such line of the best match's topic is weighed as that match, just under
        it. A question with a time of its own ("as of March") asks about then, not the latest."""
        if not (self.asks_when or self.asks_amount) or not cands or self.window is not None:
            return cands

        def of_kind(doc: Doc) -> bool:
            return self._answer_kind(doc.text, lambda: doc.kind == "event" or bool(_DATED.search(doc.text))) > 1.0

        best = max((c for c in cands if of_kind(c[1]) and not c[1].superseded), key=lambda c: c[0], default=None)
        if best is None:
            return cands
        latest = max((d for d in self.snap.docs_of_topic.get(best[1].topic_path, ())
                      if d.kind in ITEM_KINDS and not d.superseded and of_kind(d)),
                     key=lambda d: (d.date, d.line), default=None)
        if latest is None or (latest.date, latest.line) <= (best[1].date, best[1].line):  # the match is the latest
            return cands
        weight = best[0] * BESIDE
        consider(latest)
        out = []
        for prio, doc, hit, sig in cands:
            if doc.doc_id == latest.doc_id and weight > prio:
                prio, sig = weight, {**sig, "latest_of_kind": best[1].doc_id}
            out.append((prio, doc, hit, sig))
        return out

    def _struck_beside(self, doc: Doc, struck: dict[str, list[Doc]]) -> list[Doc]:
        """The struck lines of a fact's topic cut from a turn the fact cites: "the dinner is in June"
        and "thinking Saturday 20 June" said together, the second corrected later in words that
        share none with a question about the dinner. `struck` caches each topic's struck lines."""
        lines = self._struck_lines(doc.topic_path, struck)
        if not lines:
            return []
        turns = {t for c in self.citations(doc) for t in c.get("turns", ())}
        return [d for d in lines if d is not doc
                and any(t in turns for c in self.citations(d) for t in c.get("turns", ()))]

    def _struck_lines(self, path: str, struck: dict[str, list[Doc]]) -> list[Doc]:
        """A topic's lines struck by a later turn, cached in `struck`."""
        lines = struck.get(path)
        if lines is None:
            lines = struck[path] = [d for d in self.snap.docs_of_topic.get(path, ())
                                    if d.superseded and d.superseded_by and d.kind in ITEM_KINDS]
        return lines

    def _replaced(self, doc: Doc) -> Doc | None:
        """The struck line of its topic that a current fact corrected: one whose mark names a turn
        the fact cites ("(superseded DAY by t25)") and whose replacement it is (`_replacement`: a
        line merely citing that turn as well is not)."""
        if doc.superseded:
            return None
        lines = self._struck_lines(doc.topic_path, self._struck)
        if not lines:
            return None
        turns = {t for c in self.citations(doc) for t in c.get("turns", ())}
        return next((d for d in lines if d.superseded_by in turns and self._replacement(d) is doc), None)

    def _replacement(self, doc: Doc) -> Doc | None:
        """The current fact that corrected a struck one: of its topic's lines citing the turn its
        mark names ("(superseded DAY by t34)"), the one whose own words share most with it (a turn
        may make several lines, and a line may cite it as the question it answers; the correction
        restates what it corrects), then the newest. Read once a question: the carry above and
        each shown fact (`_replaced`) ask it of the same struck lines."""
        if doc.doc_id in self._replacements:
            return self._replacements[doc.doc_id]
        by = doc.superseded_by
        near = [d for d in self.snap.docs_of_topic.get(doc.topic_path, ()) if d.kind in ITEM_KINDS
                and not d.superseded and d.date >= doc.date]
        cites = self.cites(near)
        found = [d for d in near if f'"{by}"' in cites[d.doc_id]  # the stored JSON, before decoding it
                 and any(by in c.get("turns", ()) for c in self.citations(d))]
        current = self._replacements[doc.doc_id] = max(
            found, key=lambda d: (restated(doc.text, d.text), d.date, d.line), default=None)
        return current

    def _matches(self, cand: tuple[float, Doc, TopicHit, dict], min_cosine: float) -> bool:
        """Shares a word with the query, means something close, belongs to a topic the query names,
        or falls in its time window, when the question names no subject beyond the time or the fact's
        topic is about that subject: anything else is unrelated, however it ranks."""
        sig = cand[3]
        in_window = sig["in_window"] > 0 and self._on_subject(cand[2])
        return sig["bm25"] > 0 or sig["embedding"] >= min_cosine or in_window \
            or self.alias.get(cand[2].path, 0.0) > 0 or "replaces" in sig

    def _context_hop(self, hit: TopicHit) -> bool:
        """A topic one related hop from a topic the question is about is context worth its best facts
        even when they match nothing; not one that only came up next in the conversation (NEXT,
        PREV), nor one hanging off a topic that itself only half matches."""
        sig = hit.signals
        return "expanded_from" in sig and sig.get("parent") in self.on_subject \
            and any(t not in ORDER_EDGES for t in sig.get("edges", ()))

    def _on_subject(self, hit: TopicHit) -> bool:
        """Whether a fact of this topic answers the question for being in its window: always when
        the question is only a time ("what happened last week?"), else when its topic is about
        what the question names."""
        return not self.topical or hit.path in self.on_subject

    def _cut(self, cuts: list[Cut], cand: tuple[float, Doc, TopicHit, dict], reason: str) -> None:
        cuts.append(Cut(self._fact(cand), cand[2].name, reason))

    def _fact(self, cand: tuple[float, Doc, TopicHit, dict]) -> FactHit:
        prio, doc, _, sig = cand
        superseded = "" if self._current_at_window_end(doc) else self._superseded(doc)
        old = self.snap.docs.get(sig.get("replaces", "")) or self._replaced(doc)
        new = new_values(doc.text, old.text, self.query) if old is not None else frozenset()
        stale = said_values(old.text) - said_values(self.query) if old is not None else frozenset()
        cited = json.loads(self.cites([doc])[doc.doc_id])  # its own list: the hit is handed out
        return FactHit(doc.doc_id, doc.kind, doc.text, doc.date, cited, prio, sig, doc.line,
                       doc.topic_path, doc.done, excerpt(doc.text, self.query, new=new, old=stale), superseded)

    def _current_at_window_end(self, doc: Doc) -> bool:
        """As of a date before it was replaced, a superseded value was the current one."""
        if not as_of(self.window) or self.window is None or self.window.end is None:
            return False
        day = self._superseded(doc)
        replaced = timewin.parse_instant(day[:10]) if day[:1].isdigit() else None
        return replaced is not None and replaced >= self.window.end

    def _superseded(self, doc: Doc) -> str:
        """The day a later fact replaced this one: struck by sleep, or implied by date order."""
        return doc.superseded or replaced_day(self.snap, doc, ITEM_KINDS)

    def _focus(self, doc: Doc) -> float:
        """Questions about a person prefer what that person said; "when" questions prefer dated facts,
        "how much" ones facts that state an amount of money, "who" ones facts that name someone."""
        factor = 1.0
        if self.people:
            who = speaker_of(doc.text).lower()
            if who in self.people:
                factor *= PEOPLE_MATCH
            elif who and who != ASSISTANT and not any(p in doc.text.lower() for p in self.people):
                factor *= PEOPLE_MISS  # another person's words; the assistant's are the person's matters said back
        return factor * self._answer_kind(doc.text, lambda: doc.kind == "event" or bool(_DATED.search(doc.text)))

    def turn_focus(self, text: str) -> float:
        """What a turn said since the last sleep gains for the kind of answer asked, as a fact does;
        its date is a time phrase it says, not yet written out as a fact's is. (Who said it is left
        alone: the assistant's turns there are mostly the person's own matters said back.)"""
        return self._answer_kind(text, lambda: bool(timewin.find_all(text, self.now)))

    def _answer_kind(self, text: str, dated: Callable[[], bool]) -> float:
        factor = 1.0
        if self.asks_when and dated():
            factor *= ANSWER_KIND
        if self.asks_amount and _names_money(text):
            factor *= ANSWER_KIND
        if self.asks_who and _names_someone(text, self.named):
            factor *= ANSWER_KIND
        return factor

    def _each_person_first(self, order: list[int], cands: list[tuple[float, Doc, TopicHit, dict]]) -> list[int]:
        """A question that names two things, two people ("what do Jon and Gina both like?") or two
        remembered subjects by name ("the party and the database move"), needs each one's best
        facts: the first PER_PERSON of each, taken in turn, lead; the rest keep MMR's order."""
        groups = [[i for i in order if speaker_of(cands[i][1].text).lower() == p][:PER_PERSON]
                  for p in sorted(self.people)]
        named = sorted(path for path, hit in self.alias.items() if hit >= 1.0)
        groups += [[i for i in order if cands[i][2].path == path][:PER_PERSON] for path in named]
        groups = [g for g in groups if g]
        if len(groups) < 2:
            return order
        front = list(dict.fromkeys(i for group in itertools.zip_longest(*groups) for i in group if i is not None))
        taken = set(front)
        return front + [i for i in order if i not in taken]

    def _mmr(self, cands: list[tuple[float, Doc, TopicHit, dict]]) -> list[int]:
        lam = self.cfg.mmr_lambda
        n = len(cands)
        if n == 0:
            return []
        vecs = self._vectors([c[1].doc_id for c in cands])
        prio = np.array([c[0] for c in cands], dtype=np.float32)
        if vecs is None:
            return list(range(n))
        sims = vecs @ vecs.T
        chosen: list[int] = []
        max_sim = np.zeros(n, dtype=np.float32)
        free = np.ones(n, dtype=bool)
        for _ in range(n):
            gain = lam * prio - (1 - lam) * max_sim
            gain[~free] = -np.inf
            i = int(np.argmax(gain))
            chosen.append(i)
            free[i] = False
            max_sim = np.maximum(max_sim, sims[i])
        return chosen

    def _vectors(self, doc_ids: list[str]) -> np.ndarray | None:
        rows = self.snap.row_of
        if not rows or any(d not in rows for d in doc_ids):
            return None
        return self.snap.vectors_at([rows[d] for d in doc_ids])


def _attach_events(snap: Snapshot, chosen: list[TopicHit], window: timewin.Window | None) -> None:
    if window is None:
        return
    for hit in chosen:
        for e in snap.events_of_topic.get(hit.path, ()):
            if window.contains(timewin.parse_instant(e.at)):
                hit.events.append({"at": e.at, "summary": e.summary, "turns": e.turns, "path": e.path,
                                   "conversation": e.conversation})


def _skills(snap: Snapshot, ranker: _Ranker, k: int) -> list[dict]:
    found: list[dict[str, Any]] = []
    for doc_id in set(ranker.bm25) | set(ranker.cos):
        doc = snap.docs.get(doc_id)
        if doc is not None and doc.kind == "skill":
            rel, _, _ = ranker.doc_rel(doc_id)
            if rel >= 0.45:
                cited = ranker.citations(doc)
                sid = cited[0]["skill_id"] if cited else doc.path
                found.append({"skill_id": sid, "description": doc.text, "path": doc.path, "score": round(rel, 4)})
    found.sort(key=lambda s: -s["score"])
    return found[:k]

