"""The offline extractor: a conversation slice becomes candidate topic updates, with no network.

units.py turns informative sentences into self-contained facts; echo.py folds the assistant's
echoes into the facts they restate; subjects.py finds what the conversation is about, a subject
that pauses and comes back staying one; naming.py titles each; progress.py reads whether work
was left unfinished. Each subject is a Candidate: what one topic would learn from this slice.
"""
from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from sheriff_vault import nlp
from sheriff_vault.compaction.echo import fold_echoes
from sheriff_vault.compaction.naming import name_subject, outgrown, possessive
from sheriff_vault.compaction.numbers import NumberHit
from sheriff_vault.compaction.prior import PriorTopic
from sheriff_vault.compaction.progress import in_progress
from sheriff_vault.compaction.subjects import DIFFERENT, SWITCH, Subject, find_subjects
from sheriff_vault.compaction.supersede import read_ahead, replaced_values
from sheriff_vault.compaction.units import Unit, make_units, name_words
from sheriff_vault.index.embed import ahead
from sheriff_vault.store.buffer import Turn
from sheriff_vault.store.packets import InProgress
from sheriff_vault.text import content_words, proper_names, truncate

__all__ = ["Candidate", "Extraction", "NumberHit", "Unit", "extract", "skill_refs"]
_I = re.IGNORECASE
OWNER_SHARE = 0.7  # where two people talk, a subject is one person's when they said this much of it


@dataclass
class Candidate:
    """A subject of the slice: what one topic would learn from it."""

    units: list[Unit]
    name: str = ""
    one_liner: str = ""
    aliases: list[str] = field(default_factory=list)
    entities: set[str] = field(default_factory=set)
    salience: float = 0.0
    vector: np.ndarray | None = None
    time_hint: dt.datetime | None = None
    owner: str = ""
    subject: bool = False  # placement found it a subject of its own (not a stray line)
    distinct: bool = False  # the person said it is a different thing from one talked about before
    existing: str = ""  # the vault topic (path) this subject continues (prior.py)
    rename: str = ""  # a better name for `existing`, whose subject this slice has outgrown its name

    @property
    def corrected(self) -> bool:
        return any("correction" in u.flags or u.corrects for u in self.units)

    @property
    def constrained(self) -> bool:
        return any("constraint" in u.flags for u in self.units)

    @property
    def turn_ids(self) -> list[str]:
        return list(dict.fromkeys(u.turn.id for u in self.units))


@dataclass
class Extraction:
    candidates: list[Candidate]
    in_progress: InProgress
    skill_refs: list[str]
    subjects: list[dict] = field(default_factory=list)
    placement: list[dict] = field(default_factory=list)  # per exchange, why it went where (subjects._why)


# How a person opens a subject ("Separate thing,", "Second thing, completely unrelated:", "Also,"):
# not part of the line that sums the subject up. Read from the parse, as SWITCH reads a new subject.
OPENER = SWITCH.opener
ONE_LINER_WORDS = 4  # a one-liner says at least this many things (content words) about its subject
STRAY = 0.25  # how close a one-line subject must be to another subject to join it
SAYS_WORDS = 2  # content words a line alone needs to be a topic of its own
SHARED_PENALTY = 0.5  # a one-liner loses this much of its closeness to another subject (it opens both)


def extract(turns: list[Turn], tail: list[Turn], encode: Callable[[list[str]], np.ndarray], tz: str = "UTC",
            known_skills: Sequence[str] = (), prior: Sequence[PriorTopic] = ()) -> Extraction:
    """Candidates for the compacted slice `turns`; `tail` only informs mid-task state and skill refs;
    `prior`: the vault's topics, which a subject of the slice may continue."""
    humans = {t.speaker for t in turns if t.role == "user"}
    mentioned = {n for t in turns for n in proper_names(t.content)}
    trace: list[dict] = []
    found = find_subjects(turns, encode, prior, trace)
    continued = {s.existing for s in found if s.existing}
    known = [text for p in prior if p.path in continued for text in p.texts]
    units = fold_echoes(make_units(turns, tz, humans | mentioned), turns, known)
    if units:  # the model embeds the facts while what their corrections say is parsed
        encode = ahead(encode, [u.text for u in units])
        read_ahead(units)
    candidates = _candidates(units, found, encode) if units else []
    by_id = {t.id: t for t in turns}
    # What a subject says, for naming it: its facts, and the assistant's echoes of them, which often
    # name the subject crisply ("Noted: the boiler replacement, booked for Monday").
    texts = [_turn_texts(c, by_id) for c in candidates]
    nlp.parse(text for group in texts for text in group)  # naming reads every subject's texts: one batch
    names = {p.path: p for p in prior}
    for i, cand in enumerate(candidates):
        _describe(cand, texts[i], texts[:i] + texts[i + 1 :], humans, encode,
                  [c.vector for c in candidates if c is not cand and c.vector is not None], _opening(cand, by_id))
        if cand.existing in names:  # a topic keeps its name; what this slice calls it is no alias of it
            cand.rename = _renamed(cand, names[cand.existing], texts, i, humans, encode)
            cand.name, cand.aliases = names[cand.existing].name, []
    total = sum(c.salience for c in candidates) or 1.0
    subjects = [{"hint": c.name, "salience": round(c.salience / total, 4), "units": len(c.units),
                 "turns": c.turn_ids[:12]} for c in sorted(candidates, key=lambda c: -c.salience)]
    return Extraction(candidates, in_progress(turns + tail), skill_refs(turns + tail, known_skills), subjects, trace)


def _renamed(cand: Candidate, prior: PriorTopic, texts: list[list[str]], i: int, humans: set[str],
             encode: Callable[[list[str]], np.ndarray]) -> str:
    """A better name for the topic `cand` continues, named over all it says, when this slice at least
    doubles what the topic holds and its name has been outgrown (naming.outgrown); '' otherwise.
    Whether a person chose the name is the sleep's to check (compact.py), not the slice's."""
    if len(cand.units) < len(prior.texts):
        return ""
    whole = name_subject(list(prior.texts) + texts[i], texts[:i] + texts[i + 1:],
                         name_words(humans | {"Assistant"}), encode, cand.vector)
    return outgrown(prior.name, whole)


def _turn_texts(cand: Candidate, by_id: dict[str, Turn]) -> list[str]:
    """One text per turn of the candidate: its facts and the echoes folded into them."""
    per_turn: dict[str, list[str]] = {}
    for unit in cand.units:
        per_turn.setdefault(unit.turn.id, []).append(unit.text)
        per_turn[unit.turn.id] += [by_id[e].content for e in unit.echoes if e in by_id]
    return [" ".join(parts) for parts in per_turn.values()]


def _candidates(units: list[Unit], subjects: list[Subject], encode: Callable[[list[str]], np.ndarray]
                ) -> list[Candidate]:
    """One candidate per subject that has facts, with unit vectors and their normalised mean."""
    vectors = np.asarray(encode([u.text for u in units]), dtype=np.float32)
    for unit, vec in zip(units, vectors, strict=True):
        unit.vec = vec
    subject_of = {id(t): k for k, s in enumerate(subjects) for t in s.turns}
    grouped: dict[int, list[Unit]] = {}
    for unit in units:
        grouped.setdefault(subject_of.get(id(unit.turn), -1), []).append(unit)
    out = []
    for k, group in sorted(grouped.items()):
        cand = Candidate(group, vector=_mean(group), existing=subjects[k].existing if k >= 0 else "")
        cand.subject = k >= 0
        cand.distinct = k >= 0 and any(DIFFERENT.search(t.content) for t in subjects[k].turns[:2])
        out.append(cand)
    return _fold_strays(out, {id(u): i for i, u in enumerate(units)})


def _fold_strays(cands: list[Candidate], position: dict[int, int]) -> list[Candidate]:
    """A one-line subject is rarely a subject: a remark like "will check the disposal thing with both
    of them" joins the subject it is closest to, when it is close enough (STRAY); one like nothing
    else said ("I'm allergic to penicillin") stays a topic of its own, unless it says next to
    nothing ("Righto.", "Have a lovely Sunday!"): no topic is made of that, the archived conversation
    keeps it."""
    keep = [c for c in cands if len(c.units) > 1 or c.distinct or c.existing]
    if not keep:
        return cands
    for cand in cands:
        if cand in keep:
            continue
        unit = cand.units[0]
        sims = [float(unit.vec @ k.vector) if unit.vec is not None and k.vector is not None else 0.0 for k in keep]
        best = max(range(len(keep)), key=lambda i: sims[i])
        if sims[best] >= STRAY:
            keep[best].units.append(unit)
            keep[best].units.sort(key=lambda u: position[id(u)])
        elif _says_something(unit):
            keep.append(cand)
    order = {id(c): i for i, c in enumerate(cands)}
    return sorted(keep, key=lambda c: order[id(c)])


def _says_something(unit: Unit) -> bool:
    """Whether a line alone tells anything: two content words, a number, a date, an answer to a
    question or a mark (a decision, a correction, an open loop; an imperative is no mark: "have a
    lovely Sunday")."""
    return len(content_words(unit.body or unit.text)) >= SAYS_WORDS or bool(
        unit.numbers or unit.event_day or unit.asked_turn or unit.flags - {"request", "skip"})


def _mean(units: list[Unit]) -> np.ndarray:
    total = np.sum([u.vec for u in units if u.vec is not None], axis=0)
    return (total / (np.linalg.norm(total) or 1.0)).astype(np.float32)


def _opening(cand: Candidate, by_id: dict[str, Turn]) -> list[str] | None:
    """Where a subject opens mid-turn on a list cue ("Good idea, she could stay over. Second thing:
    the car."), the turn from the cue on: its facts alone have lost the item ("the car"), which
    names the subject. None when it opens no such way."""
    first = by_id.get(cand.units[0].turn.id) if cand.units else None
    m = SWITCH.search(first.content) if first is not None else None
    return [first.content[m.start():].lstrip(" .!?")] if first is not None and m and m.start() > 0 else None


def _describe(cand: Candidate, texts: list[str], others: list[list[str]], humans: set[str],
              encode: Callable[[list[str]], np.ndarray], other_vectors: Sequence[np.ndarray] = (),
              opening: list[str] | None = None) -> None:
    """Name, one-liner, aliases, owner, entities, salience and time hint of a candidate."""
    first = cand.units[0].turn if cand.units else None
    said = first.content if first is not None and first.role == "user" else None
    title = name_subject(texts, others, name_words(humans | {"Assistant"}), encode, cand.vector, opening, said,
                         replaced_values(cand.units))
    # whose subject it is: a person named in the transcript, never a role ("User")
    named = Counter(u.turn.speaker for u in cand.units if u.turn.role == "user" and u.turn.speaker != "User")
    top = named.most_common(1)
    cand.owner = top[0][0] if len(humans) >= 2 and top and top[0][1] >= OWNER_SHARE * sum(named.values()) else ""
    name = title.name or truncate(texts[0], 60)
    cand.name = possessive(cand.owner, title.phrases[0]) if cand.owner and title.phrases else name
    central = _central(cand, title.phrases[:1], other_vectors)
    body = OPENER.sub("", central.body, count=1) or central.body
    body = body[:1].upper() + body[1:]
    cand.one_liner = truncate(f"{central.turn.speaker}: {body}" if len(humans) >= 2 else body, 120)
    cand.aliases = [a for a in ([name] if cand.owner else []) + title.aliases if a.lower() != cand.name.lower()][:4]
    cand.entities = {n.lower() for u in cand.units for n in u.names} | {p.lower() for p in title.phrases[:3]}
    flags = sum(len(u.flags - {"number"}) for u in cand.units)
    cand.salience = len(cand.units) * (1 + 0.25 * flags / max(len(cand.units), 1))
    hints = [u.time_hint for u in cand.units if u.time_hint]
    cand.time_hint = hints[0] if hints else None


def _central(cand: Candidate, words: list[str], others: Sequence[np.ndarray] = ()) -> Unit:
    """The fact that best sums the subject up: a person's, naming the title if one does, nearest
    the centroid and far from the other subjects' ("Two things on my plate: the party and the
    refactor" is close to both, so it sums up neither)."""
    pool = [u for u in cand.units if u.turn.role == "user"] or cand.units
    pool = [u for u in pool if "loop" not in u.flags] or pool  # what is still to do changes; it sums up nothing
    # "First, the deck oven." names the subject and says nothing about it
    pool = [u for u in pool if len(content_words(_unopened(u))) >= ONE_LINER_WORDS] or pool
    key = words[0].lower().split()[-1] if words else ""
    named = [u for u in pool if key and key in u.text.lower()] or pool
    if cand.vector is None:
        return named[0]

    def fit(u: Unit) -> float:
        if u.vec is None:
            return -1.0
        shared = max((float(u.vec @ o) for o in others), default=0.0)
        return float(u.vec @ cand.vector) - SHARED_PENALTY * max(0.0, shared)

    return max(named, key=fit)


def _unopened(unit: Unit) -> str:
    """The unit's body without the words that open its subject ("Second thing:"), found in its
    sentences as said (read from their turn's parse) and cut from the body, which differs from them
    only after a time phrase (its date written out)."""
    kept = OPENER.sub("", unit.text, count=1)
    cut = len(unit.text) - len(kept)
    if not cut:
        return unit.body
    return unit.body[cut:] if unit.body.startswith(unit.text[:cut]) else OPENER.sub("", unit.body, count=1)


# -- skills ------------------------------------------------------------------------------------
_SKILL_REF = re.compile(r"\bskill[:/]([a-z][\w\-]*)", _I)


def skill_refs(turns: list[Turn], known: Sequence[str] = ()) -> list[str]:
    """skill:<id> mentions, skills named in tool calls, and known skill ids that come up, newest first."""
    found: list[str] = []
    known_set = {k.lower() for k in known}
    for t in reversed(turns):
        refs = [m.group(1) for m in _SKILL_REF.finditer(t.content)]
        if t.role == "tool" and t.meta.get("skill_id"):
            refs.append(str(t.meta["skill_id"]))
        low = t.content.lower()
        refs += [k for k in known_set if re.search(rf"\b{re.escape(k)}\b", low)]
        for r in refs:
            ref = f"skill:{r.lower()}"
            if ref not in found:
                found.append(ref)
    return found[:5]
