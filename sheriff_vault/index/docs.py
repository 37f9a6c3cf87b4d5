"""What the index holds: vault files turned into searchable documents (no search code here).

A topic gives one topic document (name, aliases, one-liner) and one document per fact, open loop
and event line, each with its date and citations, so recall can return a topic with only its
relevant facts. Topic event files give dated records of what each sleep changed.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sheriff_vault.store.links import related_lines
from sheriff_vault.store.topics import Topic, iso, parse_time
from sheriff_vault.text import CONSTRAINT, SPEAKER


def speaker_of(text: str) -> str:
    m = SPEAKER.match(text)
    return m.group("who") if m else ""


def searchable(text: str) -> str:
    """What search sees of an item: its words without the "Speaker (to X):" lead, which would make
    every line a person said match any question naming them (the speaker is ranked separately)."""
    m = SPEAKER.match(text)
    if not m:
        return text
    asked = m.group("asked")
    return (f"{asked} " if asked else "") + text[m.end():]



@dataclass(slots=True)
class Doc:
    """One searchable line. A doc read back from the index keeps `mentions` as the JSON text
    stored there until asked for (most never are): at 10k topics the decoded lists cost a daemon
    about 45 MB. It holds no `cites` at all (None): its snapshot reads them from the index for
    the few documents recall shows or weighs by them (Snapshot.cites), where holding them cost
    0.7 MB a vault of 1,000 topics, for every vault a daemon serves."""

    doc_id: str
    kind: str  # topic | fact | loop | event | note (a person's prose in a topic) | skill
    path: str
    topic_path: str
    text: str
    topic_text: str
    date: str  # ISO-8601 UTC or ""
    line: int = 0
    cites: list[dict] | str | None = field(default_factory=list)  # None: only in the index
    done: bool = False
    mentions: list[list[str]] | str = field(default_factory=list)
    superseded: str = ""  # the day a later fact replaced this one (items.Item.superseded)
    superseded_by: str = ""  # the turn that corrected it, or who asked (items.Item.superseded_by)

    @property
    def citations(self) -> list[dict]:
        if self.cites is None:
            raise LookupError(f"{self.doc_id}: its citations are in the index (Snapshot.citations reads them)")
        return json.loads(self.cites) if isinstance(self.cites, str) else self.cites

    @property
    def mentioned(self) -> list[list[str]]:
        return json.loads(self.mentions or "[]") if isinstance(self.mentions, str) else self.mentions

    @property
    def when(self) -> dt.datetime | None:
        return parse_time(self.date) if self.date else None

    def event_windows(self) -> list[tuple[dt.datetime, dt.datetime]]:
        """The dates of the event it reports, when it names them ("yesterday (7 May 2023)")."""
        out = [(parse_time(a), parse_time(b)) for a, b in self.mentioned]
        return [(a, b) for a, b in out if a and b]

    def windows(self, said: bool = False) -> list[tuple[dt.datetime, dt.datetime]]:
        """What a time window matches: the event's dates when it names them, else the day it was
        said; with `said`, always the day it was said ("before you slept" is about talk)."""
        out = [] if said else self.event_windows()
        when = self.when
        if when and not out:
            out.append((when, when + dt.timedelta(days=1)))
        return out

    def row(self) -> tuple:
        return (self.doc_id, self.kind, self.path, self.topic_path, self.text, self.topic_text, self.date, self.line,
                json.dumps(self.citations), int(self.done), json.dumps(self.mentioned), self.superseded,
                self.superseded_by)


DOC_COLUMNS = "doc_id, kind, path, topic_path, text, topic_text, date, line, cites, done, mentions, superseded, " \
    "superseded_by"
# What a snapshot loads of each document: the same, without its citations (see Doc).
LOADED_COLUMNS = DOC_COLUMNS.replace(" cites,", " NULL,")


_MONTHS = "January February March April May June July August September October November December".split()
_LABEL = re.compile(r"\((?:(?P<wk>week|weekend) of )?(?:(?P<d>\d{1,2}) )?(?:(?P<m>" + "|".join(_MONTHS) +
                    r") )?(?P<y>(?:19|20)\d\d)\)|\b(?:(?P<d2>\d{1,2}) )?(?P<m2>" + "|".join(_MONTHS) +
                    r") (?P<y2>(?:19|20)\d\d)\b")


def mentioned_windows(text: str) -> list[list[str]]:
    """Dates written into a fact as "(7 May 2023)", "(June 2023)", "(2022)", "(week of 1 May 2023)", and
    written-out dates with a year ("on 4 July 2026", "in June 2023")."""
    out = []
    for m in _LABEL.finditer(text):
        y, mon, d = int(m.group("y") or m.group("y2")), m.group("m") or m.group("m2"), m.group("d") or m.group("d2")
        try:
            if mon and d:
                start = dt.datetime(y, _MONTHS.index(mon) + 1, int(d), tzinfo=dt.UTC)
                days = {"week": 7, "weekend": 2}.get(m.group("wk") or "", 1)
                end = start + dt.timedelta(days=days)
            elif mon:
                start = dt.datetime(y, _MONTHS.index(mon) + 1, 1, tzinfo=dt.UTC)
                end = dt.datetime(y + (start.month == 12), start.month % 12 + 1, 1, tzinfo=dt.UTC)
            else:
                start = dt.datetime(y, 1, 1, tzinfo=dt.UTC)
                end = dt.datetime(y + 1, 1, 1, tzinfo=dt.UTC)
        except ValueError:
            continue
        out.append([iso(start), iso(end)])
    return out


@dataclass(slots=True)
class TopicRow:
    """The topic fields ranking needs, so recall never re-reads topic files. Slotted, its lists held
    as tuples (most are empty: one shared `()`): a daemon holds one per topic of every vault it serves."""

    path: str
    topic_id: str
    name: str
    slug: str
    one_liner: str
    aliases: tuple[str, ...]
    first_seen: str
    last_seen: str
    utility: float
    touch_count: int
    evergreen: bool
    related: tuple[dict, ...]  # the frontmatter's edges, then one per [[wikilink]] of the body ("link": its target)
    skills: tuple[str, ...]
    constraints: int
    # The JSON text of [[start, end, EVENT | SAID | SAID_ONLY], ...] in epoch seconds, as the index
    # stores it: only time questions read them (snapshot.TimeTable decodes every topic's in one
    # go; `windows` one topic's), and at 50k topics decoding them on load took 0.5 s and 30 MB.
    item_windows: str
    tags: tuple[str, ...] = ()

    def row(self) -> tuple:
        d = asdict(self)
        for key in ("aliases", "related", "skills", "tags"):
            d[key] = json.dumps(d[key])
        d["evergreen"] = int(d["evergreen"])
        return tuple(d[k] for k in TOPIC_FIELDS)

    @property
    def last_seen_at(self) -> dt.datetime | None:
        return parse_time(self.last_seen)

    @property
    def windows(self) -> list[list]:
        return json.loads(self.item_windows)


EVENT, SAID, SAID_ONLY = 0, 1, 2  # an item's event dates; the day an item was said that names none; ... that names some


TOPIC_FIELDS = ("path", "topic_id", "name", "slug", "one_liner", "aliases", "first_seen", "last_seen", "utility",
                "touch_count", "evergreen", "related", "skills", "constraints", "item_windows", "tags")


_JSON_FIELDS = tuple(TOPIC_FIELDS.index(k) for k in ("aliases", "related", "skills", "tags"))


def topics_from_rows(rows: Iterable[tuple], strings: dict[str, str] | None = None) -> list[TopicRow]:
    """Topic rows as read from the index (TOPIC_FIELDS order): their JSON columns are decoded in
    one json.loads, which at 50k topics is a second faster than 150k small ones; item windows
    stay text (see TopicRow). A path or date also in `strings` (the documents' shared strings:
    the topic document has the topic's path and last-seen date) is that copy, not one more."""
    rows = list(rows)
    a, b, c, d = _JSON_FIELDS
    decoded = json.loads("[" + ",".join(f"[{r[a]},{r[b]},{r[c]},{r[d]}]" for r in rows) + "]")
    one = (strings or {}).get
    return [TopicRow(one(path, path), topic_id, name, slug, one_liner, tuple(aliases) if aliases else (),
                     one(first, first), one(last, last), utility, touches, bool(evergreen),
                     tuple(related) if related else (), tuple(skills) if skills else (), constraints, windows,
                     tuple(tags) if tags else ())
            for (path, topic_id, name, slug, one_liner, _, first, last, utility, touches, evergreen, _, _, constraints,
                 windows, _), (aliases, related, skills, tags) in zip(rows, decoded, strict=True)]


@dataclass
class EventRow:
    path: str
    topic_id: str
    topic_path: str
    at: str
    summary: str
    turns: str
    conversation: str


@dataclass
class FileDocs:
    """Everything one file contributes to the index."""

    path: str
    docs: list[Doc] = field(default_factory=list)
    topic: TopicRow | None = None
    event: EventRow | None = None


def epoch(t: dt.datetime) -> int:
    """Whole seconds, as iso() keeps them."""
    return math.floor(t.timestamp())


def topic_docs(topic: Topic) -> FileDocs:
    rel = topic.rel
    names = " ".join([topic.name, *topic.aliases])
    last = iso(topic.last_seen) if topic.last_seen else ""
    out = FileDocs(rel)
    head = " — ".join(p for p in (topic.name, topic.one_liner) if p)
    out.docs.append(Doc(f"{rel}#topic", "topic", rel, rel, head, names, last, 0))
    constraints = 0
    windows: set[tuple[int, int, int]] = set()
    for item in topic.items():
        when = item.when
        date = iso(when) if when else ""
        if CONSTRAINT.search(item.text):
            constraints += 1
        doc = Doc(f"{rel}#L{item.line}", item.kind, rel, rel, item.text, names, date, item.line,
                  [c.to_json() for c in item.citations], item.done, mentioned_windows(item.text), item.superseded,
                  item.superseded_by)
        windows |= {(epoch(a), epoch(b), EVENT) for a, b in doc.event_windows()}
        if when:
            windows.add((epoch(when), epoch(when + dt.timedelta(days=1)), SAID_ONLY if doc.mentioned else SAID))
        out.docs.append(doc)
    listed = related_lines(topic.body)  # other topics' names, not this topic's notes
    for line, text in topic.body.prose():
        if line in listed:
            continue
        out.docs.append(Doc(f"{rel}#L{line}", "note", rel, rel, text, names, last, line, [], False,
                            mentioned_windows(text)))
    out.topic = TopicRow(
        path=rel, topic_id=topic.id, name=topic.name, slug=topic.slug, one_liner=topic.one_liner,
        aliases=tuple(topic.aliases), first_seen=iso(topic.first_seen) if topic.first_seen else "", last_seen=last,
        utility=topic.utility, touch_count=topic.touch_count, evergreen=topic.evergreen,
        related=tuple(topic.related + _link_edges(topic)), skills=tuple(topic.skills), constraints=constraints,
        item_windows=json.dumps([list(w) for w in sorted(windows)]), tags=tuple(topic.tags),
    )
    return out


def embedded_texts(topic: Topic) -> list[str]:
    """What the index embeds for `topic` (embed_text over topic_docs' documents, in their order),
    read without making the documents: what a sleep embeds ahead of the refresh (Index.prefetch)."""
    listed = related_lines(topic.body)
    return [searchable(topic.one_liner or topic.name), *(searchable(item.text) for item in topic.items()),
            *(searchable(text) for line, text in topic.body.prose() if line not in listed)]


def _link_edges(topic: Topic) -> list[dict]:
    """The topic's hand-written `[[wikilinks]]` as RELATES_TO edges to their targets as written;
    the snapshot resolves them (Snapshot.resolve_link: file name, name or alias) when they are followed."""
    out: list[dict] = []
    for link in topic.wikilinks():
        if link.to_note and link.target not in {e["id"] for e in out}:
            out.append({"id": link.target, "type": "RELATES_TO", "weight": 1.0, "link": True})
    return out


def event_docs(rel: str, text: str) -> FileDocs:
    """An events/ file: frontmatter (topic_id, topic, at, turns, conversation) and a summary body."""
    import frontmatter

    post = frontmatter.loads(text)
    at = parse_time(post.get("at"))
    if not at or not post.get("topic_id"):
        raise ValueError("event file needs `topic_id` and `at` in its frontmatter")
    summary = " ".join(line.strip().lstrip("-* ").strip() for line in post.content.splitlines() if line.strip())
    row = EventRow(rel, str(post.get("topic_id")), str(post.get("topic") or ""), iso(at), summary[:2000],
                   str(post.get("turns") or ""), str(post.get("conversation") or ""))
    return FileDocs(rel, event=row)


def skill_docs(rel: str, text: str) -> FileDocs:
    """A skill manifest: searchable by name, description and tags."""
    data: Any = json.loads(text)
    if not isinstance(data, dict) or not data.get("skill_id"):
        raise ValueError("skill manifest needs a `skill_id`")
    body = " — ".join(str(data.get(k) or "") for k in ("name", "description") if data.get(k))
    tags = " ".join(str(t) for t in data.get("tags") or [])
    return FileDocs(rel, docs=[Doc(f"{rel}#skill", "skill", rel, rel, body, f"{data['skill_id']} {tags}", "", 0,
                                   [{"skill_id": data["skill_id"]}])])


def kind_of(rel: str) -> str | None:
    """Which vault paths the index reads, and as what."""
    parts = Path(rel).parts
    if len(parts) == 2 and parts[0] == "topics" and rel.endswith(".md") and not parts[1].startswith("."):
        return "topic"
    if len(parts) == 5 and parts[0] == "events" and rel.endswith(".md"):
        return "event"
    if len(parts) == 3 and parts[0] == "skills" and parts[2] == "manifest.json":
        return "skill"
    return None
