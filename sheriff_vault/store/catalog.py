"""A listing of every topic that stays cheap at 10k+ topics: one summary per file, re-read only when
the file's size or modification time changes.

`Topic.load` keeps a round-trip YAML tree so a save changes only what changed; a listing needs a
handful of values, and reading 10k files the round-trip way takes ~40 s. Here the frontmatter is
read with libyaml's safe loader and the body with the same `Body` parser topics use (~0.3 ms a
file), so the first listing of 10k topics takes a few seconds and each later one only a directory
scan. A file the quick path cannot read is loaded with `Topic.load`, so its error is the one
`vault doctor` and `vault topic list` give.
"""
from __future__ import annotations

import datetime as dt
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sheriff_vault.errors import TopicFormatError, VaultError
from sheriff_vault.store import mdfile
from sheriff_vault.store.items import Body
from sheriff_vault.store.topics import MAX_TOPIC_BYTES, Topic, parse_edge, parse_time

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


@dataclass
class TopicSummary:
    """What a list of topics shows about one file (or why it cannot be read)."""

    slug: str
    rel: str
    size: int
    mtime: float
    id: str = ""
    name: str = ""
    one_liner: str = ""
    aliases: list[str] = field(default_factory=list)
    first_seen: dt.datetime | None = None
    last_seen: dt.datetime | None = None
    facts: int = 0
    current_facts: int = 0
    loops: int = 0
    evergreen: bool = False
    related: list[str] = field(default_factory=list)
    error: str = ""
    search_text: str = ""  # lower-cased name, slug, one-liner and aliases, for the filter box

    def to_json(self) -> dict[str, Any]:
        return {"slug": self.slug, "path": self.rel, "id": self.id, "name": self.name, "one_liner": self.one_liner,
                "aliases": self.aliases, "last_seen": self.last_seen.isoformat() if self.last_seen else None,
                "facts": self.facts, "evergreen": self.evergreen, "error": self.error or None}


def _quick(path: Path, rel: str, st: os.stat_result) -> TopicSummary:
    import yaml

    summary = TopicSummary(path.stem, rel, st.st_size, st.st_mtime)
    if st.st_size > MAX_TOPIC_BYTES:
        raise TopicFormatError("file is too large to be a topic", path=rel)
    text = path.read_text(encoding="utf-8")
    parts = mdfile.split(text)
    if parts is None:
        raise ValueError("no frontmatter")
    meta = yaml.load(parts.fm, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if not isinstance(meta, dict) or not str(meta.get("id") or "").strip() or not str(meta.get("name") or "").strip():
        raise ValueError("not a topic")
    summary.id, summary.name = str(meta["id"]).strip(), str(meta["name"]).strip()
    summary.one_liner = str(meta.get("one_liner") or "").strip()
    raw_aliases = meta.get("aliases") or []
    summary.aliases = [str(a).strip() for a in raw_aliases if str(a).strip()] if isinstance(raw_aliases, list) else []
    summary.first_seen, summary.last_seen = parse_time(meta.get("first_seen")), parse_time(meta.get("last_seen"))
    summary.evergreen = meta.get("evergreen") is True
    edges = meta.get("related") or []
    if isinstance(edges, list):
        summary.related = [edge["id"] for edge in (parse_edge(e) for e in edges) if edge]
    body = Body.parse(parts.body, parts.body_first_line)
    for item in body.items():
        if item.kind == "fact":
            summary.facts += 1
            summary.current_facts += not item.superseded
        elif item.kind == "loop":
            summary.loops += not item.done
    return summary


def _slow(path: Path, rel: str, st: os.stat_result) -> TopicSummary:
    """The library's own reading, for files the quick path refused: a real topic, or its real error."""
    summary = TopicSummary(path.stem, rel, st.st_size, st.st_mtime)
    try:
        topic = Topic.load(path, rel)
    except VaultError as exc:
        summary.name, summary.error = path.stem, str(exc)
        return summary
    except (OSError, UnicodeDecodeError) as exc:
        summary.name, summary.error = path.stem, f"{rel}: cannot read: {exc}"
        return summary
    summary.id, summary.name, summary.one_liner = topic.id, topic.name, topic.one_liner
    summary.aliases, summary.first_seen, summary.last_seen = topic.aliases, topic.first_seen, topic.last_seen
    summary.evergreen, summary.related = topic.evergreen, [e["id"] for e in topic.related]
    facts = topic.facts
    summary.facts, summary.current_facts = len(facts), sum(1 for f in facts if not f.superseded)
    summary.loops = sum(1 for loop in topic.loops if not loop.done)
    return summary


def summarise(path: Path, rel: str, st: os.stat_result | None = None) -> TopicSummary:
    """One topic file as a list shows it."""
    st = st or path.stat()
    try:
        summary = _quick(path, rel, st)
    except Exception:  # anything odd: read it the library's way, which names the problem
        summary = _slow(path, rel, st)
    summary.search_text = " ".join([summary.name, summary.slug, summary.one_liner, *summary.aliases]).lower()
    return summary


RESCAN_SECONDS = 2.0


class TopicCatalog:
    """Every topic's summary, kept across calls (a long-lived process such as `vault serve`).

    Checking 10k files' stat takes ~100 ms, so a call within RESCAN_SECONDS of the last full check
    trusts the folder's own modification time: every write the program makes (sleep, an edit, a
    merge, git checkout) replaces or adds a file, which changes it. Only a file an editor rewrites
    in place can show its old summary, for at most RESCAN_SECONDS."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._known: dict[str, tuple[tuple[int, int, int], TopicSummary]] = {}
        self._lock = threading.Lock()
        self._folder_key: tuple[int, int] | None = None
        self._checked = 0.0
        self._list: list[TopicSummary] = []

    def summaries(self) -> list[TopicSummary]:
        """Every topic file now, re-reading only the files that changed since the last call."""
        folder = self.vault.topics.dir
        with self._lock:
            try:
                st_folder = os.stat(folder)
                folder_key: tuple[int, int] | None = (st_folder.st_mtime_ns, st_folder.st_ino)
            except OSError:
                folder_key = None
            if folder_key is not None and folder_key == self._folder_key \
                    and time.monotonic() - self._checked < RESCAN_SECONDS:
                return list(self._list)
            checked = time.monotonic()
            seen: dict[str, tuple[tuple[int, int, int], TopicSummary]] = {}
            try:
                entries = list(os.scandir(folder))
            except (FileNotFoundError, NotADirectoryError):
                entries = []
            for entry in entries:
                if entry.name.startswith(".") or not entry.name.endswith(".md"):
                    continue
                try:
                    st = entry.stat()
                except OSError:
                    continue
                if not (st.st_mode & 0o170000) == 0o100000:
                    continue
                key = (st.st_mtime_ns, st.st_size, st.st_ino)
                old = self._known.get(entry.name)
                if old is not None and old[0] == key:
                    seen[entry.name] = old
                    continue
                summary = summarise(Path(entry.path), f"topics/{entry.name}", st)
                seen[entry.name] = (key, summary)
            self._known = seen
            self._list = [s for _, s in seen.values()]
            self._folder_key, self._checked = folder_key, checked
            return list(self._list)

    def by_id(self) -> dict[str, TopicSummary]:
        return {s.id: s for s in self.summaries() if s.id}
