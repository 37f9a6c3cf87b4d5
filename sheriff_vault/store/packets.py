"""Wake packets on disk: wake/YYYY/MM/DD/HHMMSS.json, the small record each sleep leaves behind
so the agent can resume (docs/vault-format.md). Reading only; sleep writes them."""
from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sheriff_vault.store.topics import iso, parse_time

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

PACKET_SCHEMA = 1
TAIL_TURN_CHARS = 4000  # a tail turn longer than this is cut in the packet (the archive keeps it whole)
STATUSES = ("idle", "running", "blocked")


@dataclass
class InProgress:
    """What the agent was doing when it slept: idle, running (resume it) or blocked (ask)."""

    status: str = "idle"
    resume_hint: str = ""
    topic_id: str | None = None

    @property
    def pending(self) -> bool:
        return self.status != "idle"

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "resume_hint": self.resume_hint, "topic_id": self.topic_id}

    @classmethod
    def from_json(cls, data: Any) -> InProgress:
        if not isinstance(data, dict):
            return cls()
        status = str(data.get("status") or "idle")
        return cls(status if status in STATUSES else "idle", str(data.get("resume_hint") or ""),
                   str(data["topic_id"]) if data.get("topic_id") else None)


@dataclass
class WakePacket:
    """One wake/YYYY/MM/DD/HHMMSS.json (docs/vault-format.md has every field)."""

    slept_at: dt.datetime
    conversation_tail: list[dict[str, Any]] = field(default_factory=list)
    active_subject_hints: list[str] = field(default_factory=list)
    top_topic_ids: list[str] = field(default_factory=list)
    recent_skill_refs: list[str] = field(default_factory=list)
    in_progress: InProgress = field(default_factory=InProgress)
    conversation: str = ""
    compacted_turns: list[str] = field(default_factory=list)
    schema_version: int = PACKET_SCHEMA

    @staticmethod
    def tail_turn(turn: dict[str, Any]) -> dict[str, Any]:
        """A turn as a packet keeps it: a huge one cut, so a packet stays small whatever was pasted."""
        content = str(turn.get("content", ""))
        if len(content) <= TAIL_TURN_CHARS:
            return turn
        cut = len(content) - TAIL_TURN_CHARS
        return turn | {"content": content[:TAIL_TURN_CHARS] + f" [... {cut} more characters not kept here]"}

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": self.schema_version, "slept_at": iso(self.slept_at),
                "conversation_tail": self.conversation_tail, "active_subject_hints": self.active_subject_hints,
                "top_topic_ids": self.top_topic_ids, "recent_skill_refs": self.recent_skill_refs,
                "in_progress": self.in_progress.to_json(), "conversation": self.conversation,
                "compacted_turns": self.compacted_turns}

    @classmethod
    def from_json(cls, data: Any) -> WakePacket | None:
        """A packet from its JSON; None when it has no readable slept_at. Other fields are taken
        leniently (a hand-edited packet still wakes the agent; `vault doctor` reports it)."""
        slept = parse_time(data.get("slept_at")) if isinstance(data, dict) else None
        if slept is None:
            return None

        def strings(key: str) -> list[str]:
            value = data.get(key)
            return [str(v) for v in value if v] if isinstance(value, list) else []

        tail = data.get("conversation_tail")
        return cls(slept, [t for t in tail if isinstance(t, dict)] if isinstance(tail, list) else [],
                   strings("active_subject_hints"), strings("top_topic_ids"), strings("recent_skill_refs"),
                   InProgress.from_json(data.get("in_progress")), str(data.get("conversation") or ""),
                   strings("compacted_turns"), int(data.get("schema_version") or PACKET_SCHEMA))


def packets_newest_first(vault: Vault) -> Iterator[Path]:
    """wake/YYYY/MM/DD/HHMMSS.json, newest first (the path sorts by time). Walks one folder level
    at a time, so finding the latest packet reads a few folders, not every packet ever written:
    recall asks on every call."""
    def entries(folder: Path, dirs: bool) -> list[Path]:
        try:
            found = [p for p in folder.iterdir() if p.is_dir() == dirs and not p.name.startswith(".")]
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted((p for p in found if dirs or p.suffix == ".json"), key=lambda p: p.name, reverse=True)

    for year in entries(vault.path("wake"), True):
        for month in entries(year, True):
            for day in entries(month, True):
                yield from entries(day, False)


def latest_packet(vault: Vault, before: dt.datetime | None = None) -> tuple[Path, WakePacket] | None:
    """The newest readable wake packet (slept at or before `before`, when given); a corrupt one is
    skipped (doctor reports it)."""
    last_day = before.astimezone(dt.UTC).date() + dt.timedelta(days=1) if before else None
    for path in packets_newest_first(vault):
        if last_day is not None and _day_of(path) > last_day:  # a day's slack for a --now with an offset
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        packet = WakePacket.from_json(data)
        if packet and (before is None or packet.slept_at <= before):
            return path, packet
    return None


def _day_of(path: Path) -> dt.date:
    """The day a packet's folders name (sleep files packets by their slept_at)."""
    try:
        return dt.date(int(path.parent.parent.parent.name), int(path.parent.parent.name), int(path.parent.name))
    except ValueError:
        return dt.date.min


def latest_slept_at(vault: Vault, before: dt.datetime | None = None) -> dt.datetime | None:
    found = latest_packet(vault, before)
    return found[1].slept_at if found else None


