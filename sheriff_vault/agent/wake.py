"""Waking up: the context bundle to resume with, built from the newest wake packet, the unslept
tail, recalled memory and the skills used recently."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sheriff_vault.errors import VaultError
from sheriff_vault.store.packets import InProgress, WakePacket, latest_packet
from sheriff_vault.store.sleeps import packet_commit, sleep_times
from sheriff_vault.store.topics import iso

if TYPE_CHECKING:
    from sheriff_vault.retrieval.reply import RecallReply
    from sheriff_vault.store.vault import Vault


@dataclass
class WakeResult:
    """What the model needs after sleep: whether to resume, the recent turns, memory and skills."""

    slept_at: dt.datetime | None
    minutes_asleep: float | None
    decision: str  # resume | confirm | blocked | idle | fresh-start
    in_progress: InProgress
    tail: list[dict]
    recall: dict | None
    skills: list[dict]
    bundle: str
    packet_path: str | None = None
    notes: list[str] = field(default_factory=list)
    commit: str | None = None  # the sleep commit that wrote the packet
    sleep_tag: str | None = None

    @property
    def empty(self) -> bool:
        """Nothing to resume: no sleep yet, no unslept turns, nothing recalled, no skills. A host's
        session-start hook then adds nothing, rather than a line saying so to every new session."""
        recalled = bool(self.recall and (self.recall.get("topics") or self.recall.get("recent")))
        return self.decision == "fresh-start" and not self.tail and not recalled and not self.skills

    def to_json(self) -> dict:
        return {"slept_at": iso(self.slept_at) if self.slept_at else None, "minutes_asleep": self.minutes_asleep,
                "decision": self.decision, "in_progress": self.in_progress.to_json(), "tail": self.tail,
                "recall": self.recall, "skills": self.skills, "bundle": self.bundle, "packet": self.packet_path,
                "commit": self.commit, "sleep_tag": self.sleep_tag, "notes": self.notes}


def wake(vault: Vault, message: str = "", *, now: dt.datetime | None = None, budget: int | None = None,
         use_daemon: bool = True) -> WakeResult:
    """Load the newest packet and the tail, decide whether to resume, recall with the
    message + resume hint + subject hints, add the recent skills' manifests; all within `budget`."""
    from sheriff_vault import timewin
    from sheriff_vault.daemon.client import recall
    from sheriff_vault.store.buffer import load_buffer

    now = now or timewin.utcnow()
    budget = budget or vault.config.wake.budget
    found = latest_packet(vault, now)
    packet = found[1] if found else None
    slept_at = packet.slept_at if packet else None
    minutes = round((now - slept_at).total_seconds() / 60, 1) if slept_at else None
    progress = packet.in_progress if packet else InProgress()
    decision = _decide(progress, minutes, vault.config.wake.fresh_minutes, packet is not None)
    buffered = [_shown(t) for t in load_buffer(vault) if t.at is None or t.at <= now]
    tail = buffered or (packet.conversation_tail if packet else [])
    hints = packet.active_subject_hints if packet else []
    query = " ".join(p for p in (message, progress.resume_hint, " ".join(hints[:3])) if p).strip()
    sleeps = sleep_times(vault, now) if message and timewin.mentions_sleep(message) else []
    window_in_message = (bool(message) and timewin.find(message, now, vault.config.timezone, slept_at=slept_at,
                                                        sleeps=sleeps) is not None)
    shares = _shares(budget)
    recalled = None
    if query:
        recalled = recall(vault, query, use_daemon=use_daemon, budget=shares["memory"], now=now,
                          deep=window_in_message, buffered=False)  # the bundle shows the buffer's turns itself
    skills = _skill_manifests(vault, packet.recent_skill_refs if packet else [])
    commit, tag = packet_commit(vault, vault.rel(found[0])) if found else (None, None)
    topic = _topic_name(vault, progress.topic_id) if decision in ("resume", "confirm", "blocked") else ""
    bundle = _render(decision, progress, slept_at, minutes, tail, recalled, skills, shares, budget,
                     commit=commit, tag=tag, topic=topic)
    return WakeResult(slept_at, minutes, decision, progress, tail, recalled.json if recalled else None, skills,
                      bundle, vault.rel(found[0]) if found else None, commit=commit, sleep_tag=tag)


def _topic_name(vault: Vault, topic_id: str | None) -> str:
    """The name the topic of the unfinished task has now (a person may have renamed it since the
    sleep); '' when the sleep placed the task in no topic or the topic is gone."""
    if not topic_id:
        return ""
    for path in vault.topics.paths():  # an id is a UUID: only the file that says it is parsed
        try:
            if topic_id in path.read_text(encoding="utf-8", errors="replace"):
                topic = vault.topics.load(path)
                if topic.id == topic_id:
                    return topic.name
        except (OSError, VaultError):
            continue
    return ""


def _shown(turn: Any) -> dict:
    """A buffered turn as wake shows it: one that sleep would quarantine is held back here too,
    or the unslept tail would carry injected text straight into the next prompt."""
    from sheriff_vault.store.guard import scan

    data = turn.to_json()
    if hits := scan(turn.content):
        data["content"] = f"[held back: {hits[0].kind}; `vault sleep` moves it to quarantine/ for review]"
    return WakePacket.tail_turn(data)


def _decide(progress: InProgress, minutes: float | None, fresh: float, has_packet: bool) -> str:
    if not has_packet:
        return "fresh-start"
    status = progress.status
    if status == "running":
        return "resume" if minutes is not None and minutes <= fresh else "confirm"
    if status == "blocked":
        return "blocked"
    return "idle"


def _shares(budget: int) -> dict[str, int]:
    status = min(max(500, int(budget * 0.15)), budget // 3)
    return {"status": status, "tail": int(budget * 0.3), "memory": max(200, int(budget * 0.4)),
            "skills": int(budget * 0.12)}


def _skill_manifests(vault: Vault, refs: list[str]) -> list[dict]:
    from sheriff_vault.store.skills import registry

    wanted = [r.split(":", 1)[-1] for r in refs][:5]
    known = {s.skill_id: s for s in registry(vault)}
    return [known[w].summary() for w in wanted if w in known]


def _render(decision: str, progress: InProgress, slept_at: dt.datetime | None, minutes: float | None, tail: list[dict],
            recalled: RecallReply | None, skills: list[dict], shares: dict[str, int], budget: int, *,
            commit: str | None = None, tag: str | None = None, topic: str = "") -> str:
    """`topic`: the name of the topic the unfinished task belongs to: "in the middle of a task on
    Guitar Restring" tells what the work is about when the last turn says only "doing the strings now"."""
    hint = progress.resume_hint
    on = f" on {topic}" if topic else ""
    if decision == "fresh-start":
        status = "No wake packet: this is a fresh start."
    else:
        ago = _ago(minutes)
        status = {
            "resume": f"You slept {ago} in the middle of a task{on}; resume it now. {hint}",
            "confirm": f"You slept {ago} in the middle of a task{on}; that was a while ago, so ask the person whether "
                       f"to continue or re-plan before acting. {hint}",
            "blocked": f"Before sleeping ({ago}) you were blocked{on}: {hint} Ask the person for what is missing.",
            "idle": f"You slept {ago}; nothing was in progress. {hint}".strip(),
        }[decision]
    if commit:
        status += f" (that sleep is commit {commit[:8]}" + (f", tag {tag})" if tag else ")")
    parts = [f"# Wake context\n\n{_cut(status, shares['status'])}"]
    if tail:
        lines: list[str] = []
        for turn in reversed(tail):
            who = turn.get("name") or turn.get("role", "?")
            line = f"- {turn.get('role', '?')}{'' if who == turn.get('role') else ' (' + who + ')'}: " \
                   f"{' '.join(str(turn.get('content', '')).split())[:300]}"
            if sum(len(kept) + 1 for kept in lines) + len(line) > shares["tail"]:
                break
            lines.insert(0, line)
        parts.append("## Recent conversation (oldest first)\n" + "\n".join(lines))
    if recalled:
        parts.append(recalled.markdown.rstrip())
    if skills:
        text = "\n".join(f"- {s['skill_id']}: {s['description']} (tools: {', '.join(s['requires_tools'])})"
                         for s in skills)
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
