"""What one sleep did (`vault sleep --json` prints it): kept apart from the sleep itself, so a
command that only prints a sleep the watch daemon ran imports nothing of compaction's work."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sheriff_vault.store.packets import InProgress
from sheriff_vault.store.topics import iso


@dataclass
class SleepResult:
    slept_at: dt.datetime
    sleep_id: str
    compacted: int = 0
    kept: int = 0
    created: list[dict] = field(default_factory=list)
    updated: list[dict] = field(default_factory=list)
    commit: str | None = None
    tag: str | None = None
    conversation: str | None = None
    wake: str | None = None
    events: list[str] = field(default_factory=list)
    quarantined: list[dict] = field(default_factory=list)
    subjects: list[dict] = field(default_factory=list)
    in_progress: InProgress = field(default_factory=InProgress)
    notes: list[str] = field(default_factory=list)
    dry_run: bool = False
    message: str = ""

    def to_json(self) -> dict:
        return {"slept_at": iso(self.slept_at), "sleep_id": self.sleep_id, "compacted_turns": self.compacted,
                "kept_turns": self.kept, "created": self.created, "updated": self.updated, "commit": self.commit,
                "tag": self.tag,
                "conversation": self.conversation, "wake": self.wake, "events": self.events,
                "quarantined": self.quarantined, "subjects": self.subjects, "in_progress": self.in_progress.to_json(),
                "notes": self.notes, "dry_run": self.dry_run, "message": self.message}

    @classmethod
    def from_json(cls, data: dict[str, Any], slept_at: dt.datetime) -> SleepResult:
        """The result `to_json` wrote (a sleep the watch daemon ran); `slept_at` to the microsecond."""
        return cls(slept_at, data["sleep_id"], data["compacted_turns"], data["kept_turns"], data["created"],
                   data["updated"], data["commit"], data["tag"], data["conversation"], data["wake"], data["events"],
                   data["quarantined"], data["subjects"], InProgress.from_json(data["in_progress"]), data["notes"],
                   data["dry_run"], data["message"])

    def describe(self) -> str:
        if not self.compacted:
            return self.message
        head = "would " if self.dry_run else ""
        lines = [f"{head}compact {self.compacted} turn(s), keep {self.kept}: "
                 f"{len(self.updated)} topic(s) updated, {len(self.created)} created"
                 + (f" (commit {self.commit[:8]})" if self.commit else "")]
        for t in self.created:
            lines.append(f"  new      {t['path']}: {t['summary']}")
        for t in self.updated:
            lines.append(f"  updated  {t['path']}: {t['summary']}")
        for q in self.quarantined:
            lines.append(f"  quarantined turn {q['turn']}: {q['reason']} -> {q['path']}")
        return "\n".join(lines)
