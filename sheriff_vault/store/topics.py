"""Topics: one Markdown file each, frontmatter for the record, a body of dated, cited items.

Loading keeps the file's exact text; saving rewrites only what changed (see mdfile, items), so a
topic nobody changed is saved with no diff and a person's comments and notes survive updates.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import re
import unicodedata
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sheriff_vault.errors import AmbiguousTopic, TopicFormatError, TopicNotFound, VaultError
from sheriff_vault.store import links, mdfile
from sheriff_vault.store.fsutil import atomic_write, read_text_limited
from sheriff_vault.store.items import Body, Citation, Item, format_item_date

SCHEMA_VERSION = 1
MAX_TOPIC_BYTES = 2 * 1024 * 1024
EDGE_TYPES = ("RELATES_TO", "DEPENDS_ON", "PART_OF", "NEXT", "PREV")
FIELD_ORDER = (
    "schema_version", "id", "name", "one_liner", "aliases", "tags", "first_seen", "last_seen", "utility",
    "touch_count", "evergreen", "related", "skills", "artifacts", "numbers",
)
# Keys whose entries once were YAML mappings, which Obsidian's Properties panel shows as invalid:
# they are written as one-line strings now (see edge_text, number_text) and read in either shape.
NESTED_KEYS = ("related", "numbers")
# New topics get an id derived from their file path (uuid5 in this namespace): two machines that
# create the same topic file on their own give it the same id, so the merge joins them as one topic.
ID_NAMESPACE = uuid.UUID("6f1d7a52-3c8e-4b7a-9d0e-5a2b8c4e1f30")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@dataclass(frozen=True)
class Problem:
    """A non-fatal finding about a file, for `vault doctor`."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line or 1}: {self.message}"


def iso(t: dt.datetime) -> str:
    return t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(value: Any) -> dt.datetime | None:
    """A frontmatter timestamp (string or YAML timestamp) as aware UTC; None when absent or bad."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=value.tzinfo or dt.UTC).astimezone(dt.UTC)
    if isinstance(value, dt.date):
        return dt.datetime.combine(value, dt.time(), tzinfo=dt.UTC)
    try:
        t = dt.datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return t.replace(tzinfo=t.tzinfo or dt.UTC).astimezone(dt.UTC)


def edge_text(edge_id: str, edge_type: str = "RELATES_TO", weight: float = 1.0) -> str:
    """One `related` entry as Obsidian's Properties panel accepts it (a string, not a mapping):
    `<topic id> <TYPE> <weight>`, e.g. `6f1d7a52-... DEPENDS_ON 1.0`."""
    return f"{edge_id} {edge_type} {float(round(weight, 3))!r}"


def parse_edge(entry: Any) -> dict | None:
    """A `related` entry in either shape (`{id, type, weight}` as older vaults wrote it, or
    edge_text's string; a bare id means RELATES_TO 1.0) as {id, type, weight}; None when unusable."""
    if isinstance(entry, dict):
        if not entry.get("id"):
            return None
        return {"id": str(entry["id"]).strip(), "type": str(entry.get("type", "RELATES_TO")),
                "weight": _number(entry.get("weight"), 1.0)}
    if not isinstance(entry, str) or not entry.strip():
        return None
    parts = entry.split()
    weight = 1.0
    if len(parts) > 2:
        try:
            weight = float(parts[2])
        except ValueError:
            weight = 1.0
    return {"id": parts[0], "type": parts[1] if len(parts) > 1 else "RELATES_TO", "weight": weight}


_NUMBER_FIELDS = ("key", "value", "unit", "at", "confidence", "superseded", "source")


def number_text(number: dict) -> str:
    """One `numbers` entry as a string Obsidian's Properties panel accepts, keeping every value:
    `budget = 400 USD; at 2026-02-10T09:00:00Z; confidence 0.8; superseded 2026-02-12; source User`.
    The value is JSON (400, 2.5, "Tuesday"); keys beyond the usual ones come before `source`,
    which is last because a speaker's name may hold anything."""
    head = f"{number.get('key', '')} = {json.dumps(number.get('value'), ensure_ascii=False)}"
    if number.get("unit"):
        head += f" {number['unit']}"
    parts = [head]
    if number.get("at") not in (None, ""):
        at, when = number["at"], parse_time(number["at"])
        parts.append(f"at {iso(when) if when and isinstance(at, (dt.date, dt.datetime)) else at}")
    if number.get("confidence") is not None:
        parts.append(f"confidence {json.dumps(number['confidence'])}")
    if number.get("superseded"):
        parts.append(f"superseded {number['superseded']}")
    for key, value in number.items():
        if key not in _NUMBER_FIELDS and re.fullmatch(r"\w+", str(key)):
            parts.append(f"{key} {json.dumps(mdfile.to_plain(value), ensure_ascii=False)}")
    if number.get("source") not in (None, ""):
        parts.append(f"source {number['source']}")
    return "; ".join(parts)


def parse_number(entry: Any) -> dict | None:
    """A `numbers` entry in either shape (a mapping, as older vaults wrote it, or number_text's
    string) as {key, value, unit, at, source, confidence[, superseded, ...]}; None when unusable."""
    if isinstance(entry, dict):
        out = mdfile.to_plain(entry)
        when = parse_time(entry.get("at")) if isinstance(entry.get("at"), (dt.date, dt.datetime)) else None
        if when is not None:  # an unquoted YAML timestamp: the text number_text writes
            out["at"] = iso(when)
        return out
    if not isinstance(entry, str) or " = " not in entry:
        return None
    key, _, rest = entry.partition(" = ")
    try:
        value, end = json.JSONDecoder().raw_decode(rest)
    except ValueError:
        return None
    unit, _, fields = rest[end:].partition("; ")
    out = {"key": key, "value": value, "unit": unit.strip()}
    parts = fields.split("; ") if fields else []
    for n, part in enumerate(parts):
        label, _, text = part.partition(" ")
        if label == "source":  # last: it takes the rest of the line, "; " and all
            out["source"] = "; ".join([text, *parts[n + 1:]])
            break
        if label in ("at", "superseded"):
            out[label] = text
            continue
        try:  # confidence, and keys of a person's own: JSON values
            out[label] = json.loads(text)
        except ValueError:
            out[label] = text
    return out


def clean_tag(tag: str) -> str:
    """A tag as Obsidian writes it: no leading `#`, no spaces (they become `-`)."""
    return re.sub(r"\s+", "-", str(tag).strip().lstrip("#").strip())


def has_tag(tags: Iterable[str], wanted: str) -> bool:
    """Whether `wanted` is among `tags`, case-insensitively; `project` also matches the nested
    tag `project/alpha`, as Obsidian's tag search does."""
    w = clean_tag(wanted).lower()
    return bool(w) and any(t.lower() == w or t.lower().startswith(w + "/") for t in tags)


def slugify(name: str, max_len: int = 60) -> str:
    """A file name for a topic: "Caroline's birthday party" -> caroline-birthday-party (a
    possessive's "s" is no word of its own)."""
    text = unicodedata.normalize("NFKD", re.sub(r"['’]s\b", "", name)).encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-zA-Z0-9]+", "-", text.lower()).strip("-")
    return text[:max_len].rstrip("-") or "topic"


class Topic:
    """A topic file in memory: live round-trip frontmatter plus a line-preserving body."""

    def __init__(self, path: Path, meta: Any, body: Body, parts: mdfile.Parts | None, rel: str | None = None) -> None:
        self.path = Path(path)
        self.rel = rel or self.path.name
        self.meta = meta
        self.body = body
        self._parts = parts
        self._orig_plain = mdfile.to_plain(meta) if parts else None
        self._orig_text = parts.join() if parts else None

    # -- reading ---------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, path: Path, rel: str | None = None) -> Topic:
        where = rel or str(path)
        parts = mdfile.split(text)
        if parts is None:
            raise TopicFormatError(
                "no YAML frontmatter (the file must start with a `---` line and close it with another)",
                path=where,
                line=1,
                hint="add frontmatter with at least id and name, or move the file out of topics/",
            )
        meta = mdfile.load_meta(parts.fm, where, first_line=parts.opener.count("\n") + 1)
        if not isinstance(meta, dict):
            raise TopicFormatError("frontmatter must be a mapping of keys to values", path=where, line=2)
        topic = cls(path, meta, Body.parse(parts.body, parts.body_first_line), parts, rel)
        for key in ("id", "name"):
            if not str(meta.get(key) or "").strip():
                raise TopicFormatError(
                    f"frontmatter has no `{key}`", path=where, line=2,
                    hint="add it (`vault doctor` shows every problem; `vault topic new` makes a valid file)",
                )
        return topic

    @classmethod
    def load(cls, path: Path, rel: str | None = None) -> Topic:
        text = read_text_limited(path, MAX_TOPIC_BYTES, TopicFormatError, display=rel)
        return cls.parse(text, path, rel)

    # -- fields ----------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return str(self.meta.get("id", "")).strip()

    @property
    def name(self) -> str:
        return str(self.meta.get("name", "")).strip()

    @property
    def slug(self) -> str:
        return self.path.stem

    @property
    def one_liner(self) -> str:
        return str(self.meta.get("one_liner") or "").strip()

    @property
    def aliases(self) -> list[str]:
        raw = self.meta.get("aliases") or []
        return [str(a).strip() for a in raw if str(a).strip()] if isinstance(raw, list) else []

    @property
    def first_seen(self) -> dt.datetime | None:
        return parse_time(self.meta.get("first_seen"))

    @property
    def last_seen(self) -> dt.datetime | None:
        return parse_time(self.meta.get("last_seen"))

    @property
    def utility(self) -> float:
        return _number(self.meta.get("utility"), 0.0)

    @property
    def touch_count(self) -> int:
        return int(_number(self.meta.get("touch_count"), 0))

    @property
    def evergreen(self) -> bool:
        return self.meta.get("evergreen") is True

    @property
    def tags(self) -> list[str]:
        raw = self.meta.get("tags") or []
        if isinstance(raw, str):  # Obsidian accepts `tags: a, b` too
            raw = raw.split(",")
        return [clean_tag(t) for t in raw if clean_tag(str(t))] if isinstance(raw, list) else []

    @property
    def related(self) -> list[dict]:
        """The `related` edges as {id, type, weight}, whichever shape the file holds them in."""
        raw = self.meta.get("related") or []
        return [e for e in (parse_edge(x) for x in raw) if e] if isinstance(raw, list) else []

    @property
    def skills(self) -> list[str]:
        return [str(s) for s in self.meta.get("skills") or []]

    @property
    def artifacts(self) -> list[str]:
        return [str(s) for s in self.meta.get("artifacts") or []]

    @property
    def numbers(self) -> list[dict]:
        raw = self.meta.get("numbers") or []
        return [n for n in (parse_number(x) for x in raw) if n] if isinstance(raw, list) else []

    @property
    def nested_keys(self) -> list[str]:
        """The frontmatter keys that still hold mappings (written before the flat shape): Obsidian's
        Properties panel shows them as invalid; `vault migrate` rewrites them."""
        return [k for k in NESTED_KEYS
                if isinstance(self.meta.get(k), list) and any(isinstance(x, dict) for x in self.meta[k])]

    @property
    def facts(self) -> list[Item]:
        return list(self.body.items("fact"))

    @property
    def loops(self) -> list[Item]:
        return list(self.body.items("loop"))

    @property
    def events(self) -> list[Item]:
        return list(self.body.items("event"))

    def items(self) -> list[Item]:
        return list(self.body.items())

    # -- writing ---------------------------------------------------------------------------
    def set(self, key: str, value: Any) -> None:
        """Set a frontmatter key, skipping no-op writes so unchanged values keep their bytes."""
        if key in self.meta and mdfile.to_plain(self.meta[key]) == mdfile.to_plain(value):
            return
        self.meta[key] = value

    def add_alias(self, alias: str) -> bool:
        alias = alias.strip()
        if not alias or alias.lower() in {a.lower() for a in self.aliases} or alias.lower() == self.name.lower():
            return False
        if not isinstance(self.meta.get("aliases"), list):
            self.meta["aliases"] = mdfile.seq()
        mdfile.seq_append(self.meta["aliases"], alias)
        return True

    def rename(self, name: str, rel: str) -> None:
        """Call the topic `name` and move it to `rel` (vault-relative; written there on save): the old
        name stays an alias, so a search or a link by it still finds the topic, and the note's own
        `# heading` follows."""
        old = self.name
        self.set("name", name.strip())
        self.add_alias(old)
        self.body.retitle(old, name.strip())
        self.path = self.path.parents[len(Path(self.rel).parts) - 1] / rel
        self.rel = rel

    def add_item(self, item: Item) -> Item:
        return self.body.add(item)

    def touch(self, at: dt.datetime) -> None:
        first, last = self.first_seen, self.last_seen
        if first is None or at < first:
            self.set("first_seen", iso(at))
        if last is None or at > last:
            self.set("last_seen", iso(at))

    def add_tag(self, tag: str) -> bool:
        tag = clean_tag(tag)
        if not tag or tag.lower() in {t.lower() for t in self.tags}:
            return False
        if not isinstance(self.meta.get("tags"), list):
            value = mdfile.seq(self.tags)
            if "tags" in self.meta or "aliases" not in self.meta:
                self.meta["tags"] = value
            else:  # a topic written before tags were: put the key in its documented place
                self.meta.insert(list(self.meta).index("aliases") + 1, "tags", value)
        mdfile.seq_append(self.meta["tags"], tag)
        return True

    def remove_tag(self, tag: str) -> bool:
        low = clean_tag(tag).lower()
        kept = [t for t in self.tags if t.lower() != low]
        if len(kept) == len(self.tags):
            return False
        self.meta["tags"] = mdfile.seq(kept)
        return True

    def flatten(self) -> list[str]:
        """Rewrite `related` and `numbers` entries that are mappings as the flat strings Obsidian's
        Properties panel accepts, keeping every value; returns the keys it rewrote."""
        done = self.nested_keys
        if "related" in done:
            self.meta["related"] = mdfile.seq([edge_text(e["id"], e["type"], e["weight"]) for e in self.related])
        if "numbers" in done:
            self.meta["numbers"] = mdfile.seq([number_text(n) for n in self.numbers])
        return done

    def add_number(self, key: str, value: Any, unit: str, at: dt.datetime, source: str, confidence: float,
                   *, replaces: bool = True) -> bool:
        """Record a typed number; a newer value is appended after the older one, both dated, and the
        older one of the same key and unit is marked `superseded` with the day (the newest is current).
        `replaces=False`: the key names no one thing (only what its unit measures: "amount"), so the
        value is recorded beside the others of that key, superseding none."""
        entry = {"key": key, "value": value, "unit": unit, "at": iso(at), "source": source,
                 "confidence": round(confidence, 2)}
        numbers = self.numbers
        current = [n for n in numbers if n.get("key") == key and not n.get("superseded")]
        said = current[-1:] if replaces else current
        if any(n.get("value") == value and n.get("unit") == unit for n in said):
            return False
        if replaces:
            for old in numbers:
                if old.get("key") == key and old.get("unit", "") == unit \
                        and not old.get("superseded") and (parse_time(old.get("at")) or at) <= at:
                    old["superseded"] = at.astimezone(dt.UTC).strftime("%Y-%m-%d")
        self._write_list("numbers", [number_text(n) for n in [*numbers, entry]])
        return True

    def link(self, other_id: str, edge_type: str, weight_delta: float) -> None:
        if edge_type not in EDGE_TYPES:
            raise VaultError(f"unknown edge type {edge_type!r}", hint="use one of " + ", ".join(EDGE_TYPES))
        edges = self.related
        for edge in edges:
            if edge["id"] == other_id and edge["type"] == edge_type:
                edge["weight"] = round(edge["weight"] + weight_delta, 3)
                break
        else:
            edges.append({"id": other_id, "type": edge_type, "weight": round(weight_delta, 3)})
        self._write_list("related", [edge_text(e["id"], e["type"], e["weight"]) for e in edges])

    def unlink(self, gone: Mapping[str, str]) -> bool:
        """Drop every edge to these topics (id -> slug: topics that are gone) and their `## Related`
        lines; returns whether anything changed."""
        edges = self.related
        kept = [e for e in edges if e["id"] not in gone]
        if len(kept) < len(edges):
            self._write_list("related", [edge_text(e["id"], e["type"], e["weight"]) for e in kept])
        dropped = links.drop_related(self.body, set(gone.values()))
        return len(kept) < len(edges) or dropped

    def _write_list(self, key: str, values: list[str]) -> None:
        """Set a list of strings, changing only entries that differ, so an unchanged entry keeps
        its bytes (and a comment after it) in the file."""
        seq = self.meta.get(key)
        if not isinstance(seq, list):
            self.meta[key] = mdfile.seq(values)
            return
        for i, value in enumerate(values):
            if i < len(seq):
                if mdfile.to_plain(seq[i]) != value:
                    seq[i] = value
            else:
                mdfile.seq_append(seq, value)
        del seq[len(values):]

    # -- Obsidian links ----------------------------------------------------------------------
    def wikilinks(self) -> list[links.WikiLink]:
        """Every `[[target]]`, `[[target|alias]]`, `[[target#heading]]` in the body (not in code)."""
        return links.find(self.body)

    def sync_related(self, names: Callable[[str], tuple[str, str] | None], moved: Iterable[str] = ()) -> bool:
        """Rewrite the body's `## Related` section from the `related` edges, as `[[slug|Name]]` lines
        (`names` maps a topic id to its slug and name; an id it does not know gets no line; `moved`:
        slugs of topics renamed since, whose old lines are ours to replace). Only the section's link
        lines change; returns whether the body changed."""
        wanted: list[tuple[str, str]] = []
        for edge in self.related:
            found = names(edge["id"])
            if found is not None and found not in wanted and found[0] != self.slug:
                wanted.append(found)
        ours = {slug for slug, _ in wanted}
        for edge in self._orig_edges():
            if (had := names(edge["id"])) is not None:
                ours.add(had[0])
        ours |= set(moved)
        return links.set_related(self.body, wanted, ours)

    def _orig_edges(self) -> list[dict]:
        raw = (self._orig_plain or {}).get("related") or []
        return [e for e in (parse_edge(x) for x in raw) if e] if isinstance(raw, list) else []

    def render(self) -> str:
        if self._parts is None:
            fm = mdfile.RoundTripHandler().export(self.meta)
            return "---\n" + fm + "---\n" + self.body.text
        fm = mdfile.render_meta(self._parts.fm, self._orig_plain, self.meta)
        return self._parts.opener + fm + self._parts.closer + self.body.text

    @property
    def dirty(self) -> bool:
        return self.render() != self._orig_text

    def save(self) -> bool:
        """Write atomically if anything changed; returns whether the file changed."""
        text = self.render()
        if text == self._orig_text:
            return False
        atomic_write(self.path, text)
        self._orig_text = text
        self._parts = mdfile.split(text)
        self._orig_plain = mdfile.to_plain(self.meta)
        return True

    def to_json(self, *, with_items: bool = True) -> dict:
        out: dict[str, Any] = {
            "id": self.id, "slug": self.slug, "path": self.rel, "name": self.name, "one_liner": self.one_liner,
            "aliases": self.aliases, "tags": self.tags, "first_seen": _iso_or_none(self.first_seen),
            "last_seen": _iso_or_none(self.last_seen),
            "utility": self.utility, "touch_count": self.touch_count, "evergreen": self.evergreen,
            "related": self.related, "skills": self.skills, "artifacts": self.artifacts, "numbers": self.numbers,
        }
        if with_items:
            out["facts"] = [i.to_json() for i in self.facts]
            out["open_loops"] = [i.to_json() for i in self.loops]
            out["events"] = [i.to_json() for i in self.events]
        return out

    def problems(self) -> list[Problem]:
        """What `vault doctor` should tell a person about this file beyond parse errors."""
        where, found = self.rel, []
        fm_line = {str(k): self.meta.lc.key(k)[0] + 2 for k in self.meta} if hasattr(self.meta, "lc") else {}

        def add(key: str | None, msg: str) -> None:
            found.append(Problem(where, fm_line.get(key or "", 2), msg))

        if not _UUID.match(self.id):
            add("id", f"`id` {self.id!r} is not a UUID; "
                      "set it to a new one (python -c 'import uuid; print(uuid.uuid4())')")
        if self.meta.get("schema_version") not in (None, SCHEMA_VERSION):
            add("schema_version",
                f"`schema_version` is {self.meta.get('schema_version')!r}; this version reads {SCHEMA_VERSION}")
        for key in ("first_seen", "last_seen"):
            if self.meta.get(key) not in (None, "") and parse_time(self.meta.get(key)) is None:
                add(key, f"`{key}` is not an ISO-8601 time; write it like 2026-02-20T03:21:00Z, "
                         "or run `vault doctor --fix-times` to recompute it from history")
        if self.first_seen and self.last_seen and self.first_seen > self.last_seen:
            add("last_seen", "`last_seen` is before `first_seen`; run `vault doctor --fix-times` to recompute "
                             "both from history")
        for key in ("utility", "touch_count"):
            v = self.meta.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                add(key, f"`{key}` must be a number, not {v!r}")
        if self.meta.get("evergreen") not in (None, True, False):
            add("evergreen", "`evergreen` must be true or false")
        for key in ("aliases", "related", "skills", "artifacts", "numbers"):
            if self.meta.get(key) is not None and not isinstance(self.meta.get(key), list):
                add(key, f"`{key}` must be a list (write [] for none)")
        if self.meta.get("tags") is not None and not isinstance(self.meta.get("tags"), (list, str)):
            add("tags", "`tags` must be a list of words (write [] for none)")
        for key in self.nested_keys:
            add(key, f"`{key}` holds mappings, which Obsidian's Properties panel shows as invalid; run "
                     "`vault migrate` to rewrite them as one-line strings (every value is kept)")
        for edge in self.related:
            if edge["type"] not in EDGE_TYPES:
                add("related", f"related edge type {edge['type']!r} is not one of {', '.join(EDGE_TYPES)}")
        for item in self.items():
            if item.date and item.when is None:
                found.append(Problem(where, item.line, f"date {item.date!r} is not a real date; use YYYY-MM-DD"))
        return found


def _number(value: Any, default: float) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def _iso_or_none(t: dt.datetime | None) -> str | None:
    return iso(t) if t else None


def path_id(rel: str) -> str:
    """The id a new topic file gets: the same on every machine for the same path (see ID_NAMESPACE)."""
    return str(uuid.uuid5(ID_NAMESPACE, rel))


def new_topic(path: Path, name: str, *, one_liner: str = "", aliases: Iterable[str] = (), now: dt.datetime,
              topic_id: str | None = None, evergreen: bool = False, rel: str | None = None,
              tags: Iterable[str] = ()) -> Topic:
    """A fresh topic with every frontmatter field in the documented order."""
    meta = mdfile.new_map()
    values: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION, "id": topic_id or str(uuid.uuid4()), "name": name.strip(),
        "one_liner": one_liner.strip() or name.strip(), "aliases": mdfile.seq(), "tags": mdfile.seq(),
        "first_seen": iso(now),
        "last_seen": iso(now), "utility": 0.0, "touch_count": 0, "evergreen": evergreen,
        "related": mdfile.seq(), "skills": mdfile.seq(), "artifacts": mdfile.seq(), "numbers": mdfile.seq(),
    }
    for key in FIELD_ORDER:
        meta[key] = values[key]
    body = Body.parse(f"\n# {name.strip()}\n")
    topic = Topic(path, meta, body, None, rel)
    for alias in aliases:
        topic.add_alias(alias)
    for tag in tags:
        topic.add_tag(tag)
    return topic


class TopicStore:
    """All topic files of a vault: listing that survives bad files, lookup by id, slug or name."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.dir = self.root / "topics"

    def paths(self) -> list[Path]:
        if not self.dir.is_dir():
            return []
        return sorted(p for p in self.dir.iterdir() if p.is_file() and not p.name.startswith("."))

    def names(self) -> set[str]:
        """The file names `paths` lists, without building a Path for each (a sleep asks at 10k+ topics)."""
        try:
            with os.scandir(self.dir) as entries:
                return {e.name for e in entries if not e.name.startswith(".") and e.is_file()}
        except (FileNotFoundError, NotADirectoryError):
            return set()

    def rel(self, path: Path) -> str:
        return Path(path).resolve().relative_to(self.root.resolve()).as_posix()

    def load(self, path: Path) -> Topic:
        if path.suffix != ".md":
            raise TopicFormatError("not a topic file (topics/ holds .md files only)", path=self.rel(path),
                                   hint="move it out of topics/")
        return Topic.load(path, self.rel(path))

    def iter(self, on_error: Callable[[VaultError], None] | None = None) -> Iterator[Topic]:
        """Every readable topic; a bad file goes to on_error and never stops the rest."""
        for path in self.paths():
            try:
                yield self.load(path)
            except VaultError as exc:
                if on_error:
                    on_error(exc)
            except OSError as exc:
                if on_error:
                    on_error(TopicFormatError(f"cannot read: {exc.strerror}", path=self.rel(path)))

    def all(self, on_error: Callable[[VaultError], None] | None = None) -> list[Topic]:
        return list(self.iter(on_error))

    def get(self, ref: str, topics: list[Topic] | None = None) -> Topic:
        """Find by id, id prefix (8+ chars), slug, name or alias, in that order of strength."""
        ref = ref.strip()
        if not ref:
            raise TopicNotFound("empty topic reference", hint="give an id, slug or name")
        direct = self.dir / f"{ref}.md"
        if topics is None and direct.is_file():
            return self.load(direct)
        pool = topics if topics is not None else self.all()
        low = ref.lower()
        tests: list[Callable[[Topic], bool]] = [
            lambda t: t.id == ref,
            lambda t: len(ref) >= 8 and t.id.startswith(ref),
            lambda t: t.slug == ref,
            lambda t: t.name.lower() == low,
            lambda t: t.slug == slugify(ref),
            lambda t: low in (a.lower() for a in t.aliases),
        ]
        for test in tests:
            hits = [t for t in pool if test(t)]
            if len(hits) == 1:
                return hits[0]
            if len(hits) > 1:
                listing = ", ".join(f"{t.slug} ({t.id[:8]})" for t in hits[:10])
                raise AmbiguousTopic(f"{ref!r} matches {len(hits)} topics: {listing}", hint="use the id or slug")
        raise TopicNotFound(f"no topic matches {ref!r}", hint="`vault topic list` shows them all")

    def free_path(self, name: str) -> Path:
        base = slugify(name)
        path, n = self.dir / f"{base}.md", 2
        while path.exists():
            path, n = self.dir / f"{base}-{n}.md", n + 1
        return path

    def create(self, name: str, *, one_liner: str = "", aliases: Iterable[str] = (), now: dt.datetime,
               evergreen: bool = False, tags: Iterable[str] = ()) -> Topic:
        path = self.free_path(name)
        return new_topic(path, name, one_liner=one_liner, aliases=aliases, now=now, evergreen=evergreen, tags=tags,
                         topic_id=path_id(f"topics/{path.name}"),
                         rel=f"topics/{path.name}")


def fact(text: str, at: dt.datetime, citations: Iterable[Citation] = (), *, kind: str = "fact",
         with_time: bool = False) -> Item:
    return Item(kind=kind, text=text, date=format_item_date(at, with_time=with_time), citations=tuple(citations))
