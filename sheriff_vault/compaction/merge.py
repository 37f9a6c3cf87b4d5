"""The plan: match each candidate to a topic (docs/sleep.md), write its lines in (`apply`), then,
once supersede.py has struck what they correct, settle the topic's one-liner and utility
(`settle`); link the topics.

match score = alias match 3.0 + one-liner/fact similarity 0..3.0 + entity overlap 0..1.5
              + time proximity 0..2.0 (only when the candidate names a time); >= threshold merges.
"""
from __future__ import annotations

import datetime as dt
import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sheriff_vault import nlp
from sheriff_vault.compaction.parts import (
    Candidate,
    Change,
    Unit,
    effective_utility,
    owner_of,
    said_words,
    without_owner,
)
from sheriff_vault.compaction.values import LEAD, NUMBER, current_first, stated_pairs
from sheriff_vault.index.engine import Snapshot
from sheriff_vault.quantities import GENERIC_KEYS
from sheriff_vault.store.items import Citation, Item, format_item_date
from sheriff_vault.store.topics import Topic
from sheriff_vault.text import STOPWORDS, norm, rarity, stem, truncate

if TYPE_CHECKING:
    from spacy.tokens import Token

BIG_TOPIC = 16  # past this many items a topic must be a clearer match to grow (no catch-all topics)
SCRAP_WORDS = 4  # a one-liner left with this many words or fewer once its struck part goes says too little


@dataclass
class Target:
    """A topic a candidate can merge into: an existing one (from the index) or one made this sleep."""

    path: str
    topic_id: str
    names: set[str]
    entities: set[str]
    dates: list[dt.datetime]
    vectors: np.ndarray
    new: bool = False
    owner: str = ""
    one_liner: int = -1
    size: int = 0


@dataclass
class Match:
    target: Target | None
    score: float
    signals: dict[str, float]


def targets_from(snap: Snapshot) -> list[Target]:
    rows: dict[str, list[int]] = {}
    heads: dict[str, int] = {}
    for i, doc_id in enumerate(snap.vec_ids):
        doc = snap.docs.get(doc_id) if doc_id is not None else None
        if doc is None:
            continue
        if doc.kind == "topic":
            heads[doc.topic_path] = len(rows.setdefault(doc.topic_path, []))
            rows[doc.topic_path].append(i)
        elif doc.kind in ("fact", "loop", "event"):
            rows.setdefault(doc.topic_path, []).append(i)
    out = []
    matrix = snap.all_vectors() if rows else np.zeros((0, 1), np.float32)
    for path, topic in snap.topics.items():
        names, owner, entities = _naming(topic.name, tuple(topic.aliases))
        said = (dt.datetime.fromtimestamp(w[0], dt.UTC) for w in topic.windows[-20:])
        dates = [d for d in (topic.last_seen_at, *said) if d]
        vecs = matrix[rows[path]] if path in rows and len(matrix) else np.zeros((0, 1), np.float32)
        out.append(Target(path, topic.topic_id, set(names), set(entities), dates, vecs, owner=owner,
                          one_liner=heads.get(path, -1), size=len(rows.get(path, []))))
    return out


@functools.lru_cache(maxsize=1 << 16)
def _naming(name: str, aliases: tuple[str, ...]) -> tuple[frozenset[str], str, frozenset[str]]:
    """A topic's match names (specific ones, and its name without the owner's), owner and entity
    words: kept between sleeps, since a daemon that sleeps again sees mostly the same topics."""
    names = {norm(n) for n in (name, *aliases) if norm(n) and specific(norm(n))}
    owner = owner_of(name)
    bare = without_owner(name) if owner else ""
    core = {c for c in [norm(bare)] if bare and specific(c)}
    return frozenset(names | core), owner, frozenset(said_words(" ".join([name, *aliases])))


def specific(name: str) -> bool:
    """Only names that say something count as alias matches: "the party" or "pottery", not "support"."""
    return " " in name or rarity(name) >= 1.0


def candidate_names(cand: Candidate) -> set[str]:
    names = {norm(a) for a in cand.aliases}
    names.add(norm(cand.name.split(":", 1)[-1]))
    owner = owner_of(cand.name)
    if owner:
        names.add(norm(without_owner(cand.name)))
    return {n for n in names if n and specific(n)}


def names_another(alias: str, taken: Iterable[frozenset[str]]) -> bool:
    """An alias all of whose words another topic's name says ("Caroline", "Caroline's party" beside
    "Caroline's birthday party"; `taken`: each other name's words, `name_words_of`): a subject that
    stays a topic of its own said it to tell itself from that one, and as its alias it would bring a
    question about that topic here. (Before placement is settled the same alias is what joins a
    candidate to the topic it names: `match`.)"""
    said = {w for w in norm(alias).split() if w not in STOPWORDS and len(w) > 1}
    return bool(said) and any(said <= words for words in taken)


def name_words_of(names: Iterable[str]) -> list[frozenset[str]]:
    """Each name's words, read once for every alias a sleep checks against them."""
    return [frozenset(norm(n).split()) for n in names]


def match(cand: Candidate, targets: list[Target], cfg: Any) -> Match:
    """The best-scoring target, or none when nothing reaches the merge threshold."""
    best = Match(None, 0.0, {})
    names = candidate_names(cand)
    if cand.distinct:  # "that's a totally different thing": never the topic it was said to differ from
        targets = [t for t in targets if t.new]
    if cand.subject:  # placement weighed this slice's subjects against each other; the plan does not again
        targets = [t for t in targets if not t.new]
    words = set(said_words(" ".join([cand.name, *cand.aliases, *sorted(cand.entities)])))
    for target in targets:
        alias = 3.0 if names & target.names else 0.0
        sim = 0.0
        if cand.vector is not None and len(target.vectors) and target.vectors.shape[1] == cand.vector.shape[0]:
            sims = target.vectors @ cand.vector
            head = float(sims[target.one_liner]) if target.one_liner >= 0 else -1.0
            best3 = float(np.mean(np.sort(sims)[-3:]))
            sim = max(head, best3)
        emb = 3.0 * min(1.0, max(0.0, (sim - 0.35) / 0.5))
        overlap = len(words & target.entities)
        entity = min(1.5, 0.5 * overlap)
        time = 0.0
        if cand.time_hint is not None and target.dates:
            days = min(abs((cand.time_hint - d).total_seconds()) / 86400 for d in target.dates)
            time = 2.0 * math.exp(-days / 14)
        owner = -2.0 if cand.owner and target.owner and cand.owner != target.owner else 0.0
        crowded = -1.5 * math.log2(target.size / BIG_TOPIC) if target.size > BIG_TOPIC else 0.0
        score = alias + emb + entity + time + owner + crowded
        if score > best.score:
            best = Match(target, score, {"alias": alias, "embedding": round(emb, 3), "entity": entity,
                                         "time": round(time, 3), "owner": owner, "crowded": round(crowded, 3),
                                         "similarity": round(sim, 3)})
    if best.score < cfg.merge_threshold:
        return Match(None, best.score, best.signals)
    return best


def apply(topic: Topic, cands: list[Candidate], change: Change, conversation: str, tz: str) -> list[Unit]:
    """Write the candidates' facts, loops, events, numbers and aliases into `topic` (deterministic,
    so it can be re-run on a newer copy of the file if a person edited it meanwhile); returns the
    units written, which the sleep then lets supersede older lines (supersede.py) before `settle`."""
    existing = {_key(i.text) for i in topic.items()}
    applied: list[Unit] = []
    change.utility_before = topic.utility
    for cand in cands:
        for unit in cand.units:
            if "loop" in unit.flags:
                kind = "loop"
            else:
                kind = "event" if (unit.event_day or "decision" in unit.flags) else "fact"
            when = unit.event_day if (kind == "event" and unit.event_day) else unit.at
            key = _key(unit.fact)
            if key in existing:
                continue
            existing.add(key)
            cite = (Citation(conversation, tuple(unit.turn_ids)),) if unit.turn_ids else ()
            date = format_item_date(local_day(when, tz)) if kind != "event" or unit.event_day else \
                format_item_date(when, with_time=True)
            topic.add_item(Item(kind=kind, text=current_first(unit.fact, unit.corrects), date=date, citations=cite))
            applied.append(unit)
            {"fact": change.facts, "loop": change.loops, "event": change.events}[kind].append(truncate(unit.fact, 120))
            if "done" in unit.flags:
                _close_loops(topic, unit, change)
            for num in unit.numbers:  # amounts keyed only by what they measure may be of different things
                if topic.add_number(num.key, num.value, num.unit, num.at, num.source, num.confidence,
                                    replaces=num.key not in GENERIC_KEYS):
                    change.numbers.append(f"{num.key} = {num.value} {num.unit}".strip())
        for alias in cand.aliases[:3]:
            if len(topic.aliases) < 12 and topic.add_alias(alias):
                change.aliases.append(alias)
    return applied


def settle(topic: Topic, cands: list[Candidate], change: Change, struck: list[tuple[str, Unit]], now: dt.datetime,
           cfg: Any, skill_success: bool = False) -> None:
    """After the candidates are written and older values struck: the one-liner (a new topic's, or one
    that states a value struck now), utility, touch count and last seen."""
    change.superseded += [truncate(text, 120) for text, _ in struck]
    if change.created or topic.one_liner in ("", topic.name):
        best = max(cands, key=lambda c: c.salience)
        topic.set("one_liner", best.one_liner)
    for text, unit in struck:  # a one-liner that states an old value states the new one instead
        gone = LEAD.sub("", text, count=1)
        if _body(topic.one_liner) and _body(topic.one_liner)[:60] in _body(text):
            topic.set("one_liner", truncate(unit.body, 120))
        elif len(gone) > 12 and gone in topic.one_liner and topic.one_liner.replace(gone, "").strip():
            rest = " ".join(topic.one_liner.replace(gone, " ").split())  # only a part was old
            # what is left sums the topic up when it says more than a scrap ("46 EUR a year…")
            topic.set("one_liner", rest if len(rest.split()) > SCRAP_WORDS else truncate(unit.body, 120))
        elif (at := _cut_short_at(topic.one_liner, gone)) is not None:  # the old part ends the one-liner
            kept = topic.one_liner[:at].strip()
            topic.set("one_liner", kept if len(kept) > 12 else truncate(unit.body, 120))
    if struck:  # a one-liner that names the old value first names the current one first, as its line does
        reworded = current_first(topic.one_liner, stated_pairs([unit for _, unit in struck]))
        if reworded != topic.one_liner:
            topic.set("one_liner", truncate(reworded, 120))
    units = [u for c in cands for u in c.units]
    utility = effective_utility(topic, now, cfg.utility_decay) + len(units)
    utility += 5 if any(c.corrected for c in cands) else 0
    utility += 3 if any(c.constrained for c in cands) else 0
    utility += 2 if skill_success else 0
    topic.set("utility", round(utility, 3))
    topic.set("touch_count", topic.touch_count + 1)
    if units:
        topic.touch(max(u.at for u in units))


def _cut_short_at(one_liner: str, gone: str) -> int | None:
    """Where a one-liner starts saying the struck text `gone` and goes on to its own end, cut short
    ("… the Mill Studio, near Hexham 10am…" for "the Mill Studio, near Hexham 10am to noon"); None
    when it does not end on it."""
    if len(gone) > 40 and gone[:40] in one_liner:
        return one_liner.index(gone[:40])
    text = one_liner.rstrip("…").rstrip()
    at = text.find(gone[:12]) if len(gone) > 12 else -1
    return at if at >= 0 and one_liner.endswith("…") and gone.startswith(text[at:]) else None


def _body(text: str) -> str:
    """A fact's words without its "Speaker:" lead, for comparing."""
    return norm(LEAD.sub("", text, count=1))


def local_day(t: dt.datetime, tz: str) -> dt.datetime:
    from zoneinfo import ZoneInfo

    local = t.astimezone(ZoneInfo(tz))
    return dt.datetime(local.year, local.month, local.day, tzinfo=dt.UTC)


def _key(text: str) -> str:
    """What a line says, to know it said again: its words of substance and its numbers (a line that
    gives another number says another thing: "3 done" is not "5 done")."""
    return " ".join(said_words(text) + NUMBER.findall(text))[:200] or norm(text)


def _open_part(loop_text: str) -> set[str]:
    """The stems of what a loop still waits for: "Melanie offered the cake, and I still need to book
    the shelter" waits for booking the shelter, so "Booked the shelter" closes it. What waits is a
    verb under "need to" / "have to", after a modal, or negated ("haven't booked", "not yet")."""
    body = loop_text.split(":", 1)[-1]
    waiting = [t for t in nlp.parse_one(body, entities=False) if t.pos_ == "VERB" and _waits(t)]
    kept = (w.text for t in waiting for w in t.subtree if not (w.is_stop or w.dep_ == "neg"))
    words = " ".join(kept) if waiting else body
    return {stem(w) for w in said_words(words)} - {"still"}


def _waits(verb: Token) -> bool:
    if verb.dep_ == "xcomp" and verb.head.lemma_ in ("need", "have", "get"):
        return True
    return any(c.tag_ == "MD" or c.dep_ == "neg" for c in verb.children)


def _close_loops(topic: Topic, unit: Unit, change: Change) -> None:
    done_words = {stem(w) for w in said_words(unit.text)}
    for loop in topic.loops:
        if loop.done:
            continue
        words = _open_part(loop.text)
        if words and len(words & done_words) / len(words) >= 0.5:
            closed = Item(**{**loop.__dict__, "done": True})
            topic.body.replace_item(loop, closed)
            change.closed.append(truncate(loop.text, 120))


def link(changes: dict[str, Change], order: list[str], depends: dict[str, list[tuple[str, str]]],
         max_edges: int = 20) -> None:
    """Graph step: NEXT/PREV between subjects in the order they came up, RELATES_TO for topics that
    share an entity in this slice, DEPENDS_ON where dependency language names another topic.
    `depends` maps a changed topic's path to (topic id, name) pairs it depends on."""
    def add(a: str, dst_id: str, dst_name: str, kind: str, weight: float) -> None:
        src = changes[a]
        if dst_id == src.topic.id:
            return
        if len(src.topic.related) >= max_edges and not any(e["id"] == dst_id for e in src.topic.related):
            return
        src.topic.link(dst_id, kind, weight)
        src.edge_ops.append((dst_id, kind, weight))
        src.edges.append(f"{kind} {dst_name}")

    for a, b in zip(order, order[1:], strict=False):
        add(a, changes[b].topic.id, changes[b].topic.name, "NEXT", 1.0)
        add(b, changes[a].topic.id, changes[a].topic.name, "PREV", 1.0)
    ents = {p: {e for c in ch.candidates for e in c.entities} for p, ch in changes.items()}
    paths = list(changes)
    for i, a in enumerate(paths):
        for b in paths[i + 1 :]:
            if ents[a] & ents[b]:
                add(a, changes[b].topic.id, changes[b].topic.name, "RELATES_TO", 0.5)
                add(b, changes[a].topic.id, changes[a].topic.name, "RELATES_TO", 0.5)
    for a, targets in depends.items():
        for dst_id, dst_name in targets:
            add(a, dst_id, dst_name, "DEPENDS_ON", 1.0)
