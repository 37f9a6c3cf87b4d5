"""Topics: one Markdown file each, frontmatter for the record, a body of dated, cited items.

Loading keeps the file's exact text; saving rewrites only what changed (see mdfile, items), so a
topic nobody changed is saved with no diff and a person's comments and notes survive updates.
"""
from __future__ import annotations

import datetime as dt
import os
import re
import unicodedata
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sheriff_vault.errors import AmbiguousTopic, TopicFormatError, TopicNotFound, VaultError
from sheriff_vault.store import mdfile
from sheriff_vault.store.fsutil import atomic_write, read_text_limited
from sheriff_vault.store.items import Body, Citation, Item, format_item_date

SCHEMA_VERSION = 1
MAX_TOPIC_BYTES = 2 * 1024 * 1024
EDGE_TYPES = ("RELATES_TO", "DEPENDS_ON", "PART_OF", "NEXT", "PREV")
FIELD_ORDER = (
    "schema_version", "id", "name", "one_liner", "aliases", "first_seen", "last_seen", "utility",
    "touch_count", "evergreen", "related", "skills", "artifacts", "numbers",
)
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


def slugify(name: str, max_len: int = 60) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
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
    def related(self) -> list[dict]:
        out = []
        for edge in self.meta.get("related") or []:
            if isinstance(edge, dict) and edge.get("id"):
                out.append({"id": str(edge["id"]), "type": str(edge.get("type", "RELATES_TO")),
                            "weight": _number(edge.get("weight"), 1.0)})
            elif isinstance(edge, str):
                out.append({"id": edge, "type": "RELATES_TO", "weight": 1.0})
        return out

    @property
    def skills(self) -> list[str]:
        return [str(s) for s in self.meta.get("skills") or []]

    @property
    def artifacts(self) -> list[str]:
        return [str(s) for s in self.meta.get("artifacts") or []]

    @property
    def numbers(self) -> list[dict]:
        return [mdfile.to_plain(n) for n in self.meta.get("numbers") or [] if isinstance(n, dict)]

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

    def add_item(self, item: Item) -> Item:
        return self.body.add(item)

    def touch(self, at: dt.datetime) -> None:
        first, last = self.first_seen, self.last_seen
        if first is None or at < first:
            self.set("first_seen", iso(at))
        if last is None or at > last:
            self.set("last_seen", iso(at))

    def add_number(self, key: str, value: Any, unit: str, at: dt.datetime, source: str, confidence: float) -> bool:
        """Record a typed number; a newer value is appended after the older one, both dated, and the
        older one of the same key and unit is marked `superseded` with the day (the newest is current)."""
        entry = mdfile.flow_map(key=key, value=value, unit=unit, at=iso(at), source=source,
                                confidence=round(confidence, 2))
        current = [n for n in self.numbers if n.get("key") == key and not n.get("superseded")]
        if current and current[-1].get("value") == value and current[-1].get("unit") == unit:
            return False
        if not isinstance(self.meta.get("numbers"), list):
            self.meta["numbers"] = mdfile.seq()
        for old in self.meta["numbers"]:
            if isinstance(old, dict) and old.get("key") == key and old.get("unit", "") == unit \
                    and not old.get("superseded") and (parse_time(old.get("at")) or at) <= at:
                old["superseded"] = at.astimezone(dt.UTC).strftime("%Y-%m-%d")
        mdfile.seq_append(self.meta["numbers"], entry)
        return True

    def link(self, other_id: str, edge_type: str, weight_delta: float) -> None:
        if edge_type not in EDGE_TYPES:
            raise VaultError(f"unknown edge type {edge_type!r}", hint="use one of " + ", ".join(EDGE_TYPES))
        if not isinstance(self.meta.get("related"), list):
            self.meta["related"] = mdfile.seq()
        for edge in self.meta["related"]:
            if (isinstance(edge, dict) and str(edge.get("id")) == other_id
                    and str(edge.get("type", "RELATES_TO")) == edge_type):
                edge["weight"] = round(_number(edge.get("weight"), 0.0) + weight_delta, 3)
                return
        new_edge = mdfile.flow_map(id=other_id, type=edge_type, weight=round(weight_delta, 3))
        mdfile.seq_append(self.meta["related"], new_edge)

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
            "aliases": self.aliases, "first_seen": _iso_or_none(self.first_seen),
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
              topic_id: str | None = None, evergreen: bool = False, rel: str | None = None) -> Topic:
    """A fresh topic with every frontmatter field in the documented order."""
    meta = mdfile.new_map()
    values: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION, "id": topic_id or str(uuid.uuid4()), "name": name.strip(),
        "one_liner": one_liner.strip() or name.strip(), "aliases": mdfile.seq(), "first_seen": iso(now),
        "last_seen": iso(now), "utility": 0.0, "touch_count": 0, "evergreen": evergreen,
        "related": mdfile.seq(), "skills": mdfile.seq(), "artifacts": mdfile.seq(), "numbers": mdfile.seq(),
    }
    for key in FIELD_ORDER:
        meta[key] = values[key]
    body = Body.parse(f"\n# {name.strip()}\n")
    topic = Topic(path, meta, body, None, rel)
    for alias in aliases:
        topic.add_alias(alias)
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
               evergreen: bool = False) -> Topic:
        path = self.free_path(name)
        return new_topic(path, name, one_liner=one_liner, aliases=aliases, now=now, evergreen=evergreen,
                         topic_id=path_id(f"topics/{path.name}"),
                         rel=f"topics/{path.name}")


def fact(text: str, at: dt.datetime, citations: Iterable[Citation] = (), *, kind: str = "fact",
         with_time: bool = False) -> Item:
    return Item(kind=kind, text=text, date=format_item_date(at, with_time=with_time), citations=tuple(citations))
