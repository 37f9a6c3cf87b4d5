"""The typed values the stages of a sleep pass along (compact.py calls them in order): the slice
after the guard (Guarded), a Unit (one fact read from a turn, units.py), a Candidate (what one topic
would learn from the slice: a subject placed by subjects.py and titled by naming.py, or one the LLM
extractor gave), an Extraction (everything a slice gave) and a Change (what one topic learned, for
the commit and its event file). And what several stages read alike: how a title names its owner,
the words of people's names, how a topic's utility decays, the words a sentence says something
with and the names it holds."""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from sheriff_vault import timewin
from sheriff_vault.compaction.english.talk import is_talk
from sheriff_vault.compaction.numbers import NumberHit
from sheriff_vault.store.buffer import Turn
from sheriff_vault.store.packets import InProgress
from sheriff_vault.store.topics import Topic
from sheriff_vault.text import CALENDAR, LOWER, STOPWORDS, UPPER, content_words, sentences, truncate


@dataclass
class Unit:
    """One informative sentence (or a sentence and its follow-up) from one turn."""

    turn: Turn
    index: int
    text: str
    fact: str = ""
    body: str = ""
    at: dt.datetime = field(default_factory=timewin.utcnow)
    flags: set[str] = field(default_factory=set)
    numbers: list[NumberHit] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    event_day: dt.datetime | None = None
    time_hint: dt.datetime | None = None
    depends: list[str] = field(default_factory=list)
    vec: np.ndarray | None = None
    asked_turn: str = ""
    echoes: list[str] = field(default_factory=list)  # assistant turns that only restated this unit
    corrects: list[tuple[str, str]] = field(default_factory=list)  # (new value, old value) it states

    @property
    def turn_ids(self) -> list[str]:
        """Every turn whose words this fact carries: its own, the question it answers, and the
        assistant turns that only echoed it."""
        return list(dict.fromkeys(t for t in (self.asked_turn, self.turn.id, *self.echoes) if t))


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
    phrases: list[str] = field(default_factory=list)  # its title phrases, best first (naming.Title)

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


def owner_of(name: str) -> str:
    """"Caroline's pottery class" (or "Caroline: pottery class") belongs to Caroline."""
    m = _OWNED.match(name)
    return m.group(1) if m and len(m.group(1)) <= 40 else ""


def without_owner(name: str) -> str:
    """"Caroline's pottery class" -> "pottery class"."""
    return _OWNED.sub("", name, count=1).strip()


_OWNED = re.compile(r"^([A-Z][\w'\-]*(?: [A-Z][\w'\-]*)?)(?:['’]s|:)\s+")


def possessive(owner: str, title: str) -> str:
    """"Melanie" + "Pottery class" -> "Melanie's pottery class" (names inside keep their capitals)."""
    words = title.split()
    if words and words[0][1:].islower():
        words[0] = words[0].lower()
    return truncate(f"{owner}'s {' '.join(words)}", 80)


def name_words(names: set[str]) -> set[str]:
    """Speakers' names and the nicknames people type for them (Mel, Mell for Melanie)."""
    found: set[str] = set()
    for name in names:
        for part in name.lower().split():
            found |= {part[:k] for k in range(max(3, len(part) // 2), len(part) + 1)} | {part}
            if len(part) >= 3:  # "Al", "Jo": a short name has no nickname
                found.add(part[:3] + part[2])
    return found


@dataclass
class Change:
    """What one topic learned in this sleep, for the commit body and the events file."""

    topic: Topic
    created: bool
    candidates: list[Candidate] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    loops: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)
    edge_ops: list[tuple[str, str, float]] = field(default_factory=list)
    utility_before: float = 0.0
    renamed_from: str = ""  # the topic's path before this sleep renamed it (its old name is an alias)
    old_name: str = ""

    @property
    def turn_ids(self) -> list[str]:
        return list(dict.fromkeys(t for c in self.candidates for t in c.turn_ids))

    def summary(self) -> list[str]:
        lines = [f"renamed from: {self.old_name} ({self.renamed_from})"] if self.renamed_from else []
        lines += [f"+ fact: {f}" for f in self.facts] + [f"+ open loop: {loop}" for loop in self.loops]
        lines += [f"+ event: {e}" for e in self.events] + [f"closed loop: {c}" for c in self.closed]
        lines += [f"superseded: {s}" for s in self.superseded]
        lines += [f"+ alias: {a}" for a in self.aliases] + [f"number: {n}" for n in self.numbers]
        lines += [f"link: {e}" for e in self.edges]
        return lines

    def short(self) -> str:
        parts = [f"renamed from {self.old_name}"] if self.renamed_from else []
        for label, items in (("facts", self.facts), ("loops", self.loops), ("events", self.events),
                             ("aliases", self.aliases), ("numbers", self.numbers), ("links", self.edges)):
            if items:
                parts.append(f"+{len(items)} {label}")
        if self.closed:
            parts.append(f"{len(self.closed)} loops closed")
        if self.superseded:
            parts.append(f"{len(self.superseded)} superseded")
        return ", ".join(parts) or "touched"


def effective_utility(topic: Topic, now: dt.datetime, decay: float) -> float:
    """`utility` is stored as of last_seen; it decays by `decay` per day since then."""
    last = topic.last_seen or now
    days = max(0.0, (now - last).total_seconds() / 86400)
    return topic.utility * (decay ** days)


@dataclass
class Guarded:
    """The slice after the write-time scan: what the extractor may read, what the archive keeps,
    and the quarantine/ files for the turns held back."""

    part: list[Turn]
    tail: list[Turn]
    archive: list[Turn]
    quarantine: dict[str, str]


def said_words(text: str) -> list[str]:
    """The words a sentence says something with: its content words less the words of talk itself
    (english/talk.py), so "thanks, have a great weekend" says nothing a topic keeps."""
    return [w for w in content_words(text) if not is_talk(w)]


_PROPER = re.compile(rf"\b(?:[{UPPER}][{LOWER}]+(?:[{UPPER}][{LOWER}]+)*|[{UPPER}]{{2,}}[{LOWER}]?)"
                     rf"(?:\s+(?:[{UPPER}][{LOWER}]+|[{UPPER}]{{2,}}))*\b")
_QUOTED = re.compile(r"[\"“]([^\"”]{3,60})[\"”]")


def proper_names(text: str, skip: Iterable[str] = (), known: Iterable[str] = ()) -> list[str]:
    """Capitalised names and acronyms (at a sentence start only when `known`), plus quoted titles; a
    capitalised word of talk ("Thanks Maria", "Great") is none."""
    skip_low = {s.lower() for s in skip}
    known_set = set(known)
    found: list[str] = []
    for sent in sentences(text) or [text]:
        first = re.match(r"\W*(\w+)", sent)
        first_word = first.group(1) if first else ""
        for m in _PROPER.finditer(sent):
            parts = m.group(0).split()
            while parts and (parts[0].lower() in STOPWORDS or is_talk(parts[0].lower())):
                parts.pop(0)
            if not parts:
                continue
            value = " ".join(parts)
            if m.start() == sent.find(first_word) and value == first_word and not value.isupper() \
                    and value not in known_set:
                continue
            if value.lower() in STOPWORDS or is_talk(value.lower()) or value.lower() in skip_low or len(value) < 2 \
                    or value.lower() in CALENDAR:
                continue
            if value in ("I", "I'm", "OK"):
                continue
            found.append(value)
        found += [q.strip() for q in _QUOTED.findall(sent)]
    return list(dict.fromkeys(found))
