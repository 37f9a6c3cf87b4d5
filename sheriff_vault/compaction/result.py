"""What one sleep did (`vault sleep --json` prints it): kept apart from the sleep itself, so a
command that only prints a sleep the watch daemon ran imports nothing of compaction's work."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sheriff_vault.store.packets import InProgress
from sheriff_vault.store.topics import iso

if TYPE_CHECKING:
    from sheriff_vault.store.transcripts import Transcript


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
    placement: list[dict] = field(default_factory=list)  # per exchange: the topic it went to, and why
    # What the transcript reader passed over (store/transcripts.py), so the summary says what was not read
    skipped_records: dict[str, int] = field(default_factory=dict)  # record type it does not know -> how many
    malformed_lines: list[int] = field(default_factory=list)      # line numbers that were not JSON

    def to_json(self) -> dict:
        return {"slept_at": iso(self.slept_at), "sleep_id": self.sleep_id, "compacted_turns": self.compacted,
                "kept_turns": self.kept, "created": self.created, "updated": self.updated, "commit": self.commit,
                "tag": self.tag,
                "conversation": self.conversation, "wake": self.wake, "events": self.events,
                "quarantined": self.quarantined, "subjects": self.subjects, "in_progress": self.in_progress.to_json(),
                "notes": self.notes, "dry_run": self.dry_run, "message": self.message, "placement": self.placement,
                "skipped_records": self.skipped_records, "malformed_lines": self.malformed_lines}

    @classmethod
    def from_json(cls, data: dict[str, Any], slept_at: dt.datetime) -> SleepResult:
        """The result `to_json` wrote (a sleep the watch daemon ran); `slept_at` to the microsecond."""
        return cls(slept_at, data["sleep_id"], data["compacted_turns"], data["kept_turns"], data["created"],
                   data["updated"], data["commit"], data["tag"], data["conversation"], data["wake"], data["events"],
                   data["quarantined"], data["subjects"], InProgress.from_json(data["in_progress"]), data["notes"],
                   data["dry_run"], data["message"], data.get("placement", []), data.get("skipped_records", {}),
                   data.get("malformed_lines", []))

    def describe(self) -> str:
        skipped = self.describe_skipped()
        if not self.compacted:
            return "\n".join(line for line in (self.message, skipped) if line)
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
        if skipped:
            lines.append(skipped)
        return "\n".join(lines)

    def add_reading(self, read: Transcript) -> None:
        """What the reader skipped in the transcript this sleep took (the sleep saw only its turns)."""
        self.skipped_records, self.malformed_lines = dict(read.skipped), list(read.malformed)

    def describe_skipped(self) -> str:
        """`skipped 3 transcript record(s) ...`: a host's new record types are passed over, and the
        person should know that part of the file was not read."""
        parts = []
        if self.skipped_records:
            kinds = ", ".join(f"{k} x{v}" if v > 1 else k for k, v in sorted(self.skipped_records.items()))
            parts.append(f"{sum(self.skipped_records.values())} transcript record(s) of a type the reader "
                         f"does not know ({kinds})")
        if self.malformed_lines:
            parts.append(f"{len(self.malformed_lines)} line(s) that are not JSON "
                         f"(line {', '.join(map(str, self.malformed_lines[:10]))})")
        return f"skipped {' and '.join(parts)}" if parts else ""

    def explain(self) -> str:
        """Where each exchange went and the signals that sent it there (`vault sleep --explain`)."""
        lines = ["placement: turn -> topic (what the turn did; its likeness to the closest subjects; cues)"]
        for p in self.placement:
            joined = str(p.get("joined", ""))
            if p.get("continued"):
                how = "stays on the subject before"
            elif joined.startswith("topic "):
                how = "continues a topic of the vault"
            elif joined.endswith(f" {p['turn']}"):
                how = "opens a subject"
            else:
                how = f"returns to the {joined}"
            likes = ", ".join(f"{k} {v:.2f}" for k, v in (p.get("likeness") or {}).items())
            # likeness already lowered this much: the turn is more like all of its slice than usual
            lowered = f"lowered {p['lowered']:.2f} by its background" if p.get("lowered", 0) >= 0.005 else ""
            extra = "; ".join(x for x in (likes, lowered, ", ".join(p.get("cues") or [])) if x)
            where = f"{p['topic']}{' (new)' if p.get('created') else ''}" if p.get("topic") else "(no fact kept)"
            lines.append(f"  {p['turn']:>6} -> {where}: {how}{'; ' + extra if extra else ''}")
        return "\n".join(lines)
