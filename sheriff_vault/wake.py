"""Wake packets: the small record sleep leaves behind so the agent can resume (spec sec. 2.3)."""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .topics import iso, parse_time

PACKET_SCHEMA = 1


def packets_newest_first(vault: Any) -> Iterator[Path]:
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


def latest_packet(vault: Any, before: dt.datetime | None = None) -> tuple[Path, dict] | None:
    """The newest readable wake packet (slept at or before `before`, when given); a corrupt one is
    skipped (doctor reports it)."""
    last_day = before.astimezone(dt.timezone.utc).date() + dt.timedelta(days=1) if before else None
    for path in packets_newest_first(vault):
        if last_day is not None and _day_of(path) > last_day:  # a day's slack for a --now with an offset
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        slept = parse_time(data.get("slept_at")) if isinstance(data, dict) else None
        if slept and (before is None or slept <= before):
            return path, data
    return None


def _day_of(path: Path) -> dt.date:
    """The day a packet's folders name (sleep files packets by their slept_at)."""
    try:
        return dt.date(int(path.parent.parent.parent.name), int(path.parent.parent.name), int(path.parent.name))
    except ValueError:
        return dt.date.min


def latest_slept_at(vault: Any, before: dt.datetime | None = None) -> dt.datetime | None:
    found = latest_packet(vault, before)
    return parse_time(found[1].get("slept_at")) if found else None


@dataclass
class WakeResult:
    """What the model needs after sleep: whether to resume, the recent turns, memory and skills."""

    slept_at: dt.datetime | None
    minutes_asleep: float | None
    decision: str  # resume | confirm | blocked | idle | fresh-start
    in_progress: dict
    tail: list[dict]
    recall: dict | None
    skills: list[dict]
    bundle: str
    packet_path: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"slept_at": iso(self.slept_at) if self.slept_at else None, "minutes_asleep": self.minutes_asleep,
                "decision": self.decision, "in_progress": self.in_progress, "tail": self.tail,
                "recall": self.recall, "skills": self.skills, "bundle": self.bundle, "packet": self.packet_path,
                "notes": self.notes}


def wake(vault: Any, message: str = "", *, now: dt.datetime | None = None, budget: int | None = None,
         use_daemon: bool = True) -> WakeResult:
    """Spec sec. 4.3: load the newest packet and the tail, decide whether to resume, recall with the
    message + resume hint + subject hints, add the recent skills' manifests; all within `budget`."""
    from . import timewin
    from .buffer import load_buffer
    from .client import answer

    now = now or timewin.utcnow()
    budget = budget or vault.config.wake.budget
    found = latest_packet(vault, now)
    packet = found[1] if found else {}
    slept_at = parse_time(packet.get("slept_at")) if packet else None
    minutes = round((now - slept_at).total_seconds() / 60, 1) if slept_at else None
    progress = packet.get("in_progress") or {"status": "idle", "resume_hint": "", "topic_id": None}
    decision = _decide(progress, minutes, vault.config.wake.fresh_minutes, bool(packet))
    buffered = [_shown(t) for t in load_buffer(vault) if t.at is None or t.at <= now]
    tail = buffered or list(packet.get("conversation_tail") or [])
    hints = [h for h in packet.get("active_subject_hints") or [] if h]
    query = " ".join(p for p in (message, progress.get("resume_hint", ""), " ".join(hints[:3])) if p).strip()
    window_in_message = bool(message) and timewin.find(message, now, vault.config.timezone, slept_at=slept_at) is not None
    shares = _shares(budget)
    recalled = None
    if query:
        recalled = answer(vault, query, use_daemon=use_daemon, budget=shares["memory"], now=now,
                          deep=window_in_message)
    skills = _skill_manifests(vault, packet.get("recent_skill_refs") or [])
    bundle = _render(decision, progress, slept_at, minutes, tail, recalled, skills, shares, budget)
    return WakeResult(slept_at, minutes, decision, progress, tail, recalled["json"] if recalled else None, skills,
                      bundle, vault.rel(found[0]) if found else None)


def _shown(turn: Any) -> dict:
    """A buffered turn as wake shows it: one that sleep would quarantine is held back here too,
    or the unslept tail would carry injected text straight into the next prompt."""
    from .guard import scan

    data = turn.to_json()
    if hits := scan(turn.content):
        data["content"] = f"[held back: {hits[0].kind}; `vault sleep` moves it to quarantine/ for review]"
    return data


def _decide(progress: dict, minutes: float | None, fresh: float, has_packet: bool) -> str:
    if not has_packet:
        return "fresh-start"
    status = progress.get("status", "idle")
    if status == "running":
        return "resume" if minutes is not None and minutes <= fresh else "confirm"
    if status == "blocked":
        return "blocked"
    return "idle"


def _shares(budget: int) -> dict[str, int]:
    status = min(max(500, int(budget * 0.15)), budget // 3)
    return {"status": status, "tail": int(budget * 0.3), "memory": max(200, int(budget * 0.4)),
            "skills": int(budget * 0.12)}


def _skill_manifests(vault: Any, refs: list[str]) -> list[dict]:
    from .skills import registry

    wanted = [r.split(":", 1)[-1] for r in refs][:5]
    known = {s.skill_id: s for s in registry(vault)}
    return [known[w].summary() for w in wanted if w in known]


def _render(decision: str, progress: dict, slept_at: dt.datetime | None, minutes: float | None, tail: list[dict],
            recalled: dict | None, skills: list[dict], shares: dict[str, int], budget: int) -> str:
    hint = progress.get("resume_hint", "")
    if decision == "fresh-start":
        status = "No wake packet: this is a fresh start."
    else:
        ago = _ago(minutes)
        status = {
            "resume": f"You slept {ago} in the middle of a task; resume it now. {hint}",
            "confirm": f"You slept {ago} in the middle of a task; that was a while ago, so ask the person whether "
                       f"to continue or re-plan before acting. {hint}",
            "blocked": f"Before sleeping ({ago}) you were blocked: {hint} Ask the person for what is missing.",
            "idle": f"You slept {ago}; nothing was in progress. {hint}".strip(),
        }[decision]
    parts = [f"# Wake context\n\n{_cut(status, shares['status'])}"]
    if tail:
        lines = []
        for turn in reversed(tail):
            who = turn.get("name") or turn.get("role", "?")
            line = f"- {turn.get('role', '?')}{'' if who == turn.get('role') else ' (' + who + ')'}: " \
                   f"{' '.join(str(turn.get('content', '')).split())[:300]}"
            if sum(len(l) + 1 for l in lines) + len(line) > shares["tail"]:
                break
            lines.insert(0, line)
        parts.append("## Recent conversation (oldest first)\n" + "\n".join(lines))
    if recalled:
        parts.append(recalled["markdown"].rstrip())
    if skills:
        text = "\n".join(f"- {s['skill_id']}: {s['description']} (tools: {', '.join(s['requires_tools'])})" for s in skills)
        parts.append("## Skills you used recently\n" + _cut(text, shares["skills"]))
    return _cut("\n\n".join(parts), budget) + "\n"


def _ago(minutes: float | None) -> str:
    if minutes is None:
        return "some time ago"
    if minutes < 90:
        return f"{minutes:.0f} minutes ago"
    if minutes < 48 * 60:
        return f"{minutes / 60:.1f} hours ago"
    return f"{minutes / 1440:.1f} days ago"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)].rsplit("\n", 1)[0] + "\n…"
