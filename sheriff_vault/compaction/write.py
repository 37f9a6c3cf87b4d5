"""The last stage of a sleep: every file it writes (the archived slice, the wake packet, one event
file per touched topic, the topics), written under the sleep's journal, and the one commit's message.
A topic a person edited while the sleep planned is read again and the sleep's part redone on it."""
from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from sheriff_vault import faults
from sheriff_vault.compaction.parts import Change, Extraction, Guarded, effective_utility
from sheriff_vault.compaction.result import SleepResult
from sheriff_vault.index.engine import Snapshot
from sheriff_vault.store import journal
from sheriff_vault.store.buffer import Turn, render_markdown
from sheriff_vault.store.fsutil import atomic_write
from sheriff_vault.store.packets import WakePacket
from sheriff_vault.store.topics import Topic, iso
from sheriff_vault.text import truncate

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


def files_of(vault: Vault, result: SleepResult, extraction: Extraction, changes: dict[str, Change], guarded: Guarded,
             snap: Snapshot, conv_rel: str, now: dt.datetime) -> dict[str, bytes | None]:
    """Every file this sleep writes, by vault-relative path: the archived slice, the wake packet,
    one event file per touched topic, and the topics themselves."""
    part = guarded.archive
    first = part[0].at or now
    files: dict[str, bytes | None] = {}
    files[conv_rel] = render_markdown(part, {"id": result.sleep_id, "slept_at": iso(now),
                                             "first_turn": iso(first), "turns": len(part)}).encode()
    if vault.config.sleep.pin_citations:
        _pin_citations(changes, conv_rel, files[conv_rel] or b"")
    wake_rel = f"wake/{now:%Y/%m/%d}/{now:%H%M%S}.json"
    packet = _wake_packet(vault, extraction, changes, guarded.tail, now, snap, conv_rel, part)
    files[wake_rel] = json.dumps(packet.to_json(), indent=2, ensure_ascii=False).encode() + b"\n"
    for change in changes.values():
        ev_rel = f"events/{now:%Y/%m/%d}/{now:%H%M%S}-{change.topic.slug}.md"
        files[ev_rel] = _event_file(change, now, conv_rel).encode()
        result.events.append(ev_rel)
        files[change.topic.rel] = change.topic.render().encode()
        if change.renamed_from and change.renamed_from != change.topic.rel:
            files[change.renamed_from] = None
        entry = {"id": change.topic.id, "name": change.topic.name, "path": change.topic.rel, "summary": change.short()}
        (result.created if change.created else result.updated).append(entry)
    result.conversation, result.wake = conv_rel, wake_rel
    return files


def _pin_citations(changes: dict[str, Change], conv_rel: str, archived: bytes) -> None:
    """Pin this sleep's citations to the archive as git will store it (its blob id: the commit that
    holds it does not exist yet), so they show the same turns after any later edit of the file."""
    from sheriff_vault.store.citations import blob_id
    from sheriff_vault.store.items import Citation

    pin = blob_id(archived)[:12]
    for change in changes.values():
        for item in change.topic.items():
            cites = tuple(Citation(c.file, c.turns, pin) if c.file == conv_rel and not c.commit else c
                          for c in item.citations)
            if cites != item.citations:
                change.topic.body.replace_item(item, replace(item, citations=cites))


def _wake_packet(vault: Vault, extraction: Extraction, changes: dict[str, Change], tail: list[Turn],
                 now: dt.datetime, snap: Snapshot, conv_rel: str, part: list[Turn]) -> WakePacket:
    """What the agent needs to resume. Top topics by utility x recency x salience."""
    salience: dict[str, float] = {}
    total = sum(c.salience for ch in changes.values() for c in ch.candidates) or 1.0
    for change in changes.values():
        salience[change.topic.id] = sum(c.salience for c in change.candidates) / total
    tau = vault.config.retrieval.tau_days
    decay = vault.config.sleep.utility_decay
    scored: list[tuple[float, str, dt.datetime | None]] = []
    for change in changes.values():
        t = change.topic
        scored.append((max(effective_utility(t, now, decay), 0) + 1, t.id, t.last_seen))
    for row in snap.topics.values():
        if row.topic_id not in salience:
            last = row.last_seen_at or now
            util = row.utility * decay ** max(0.0, (now - last).total_seconds() / 86400)
            scored.append((util + 1, row.topic_id, last))
    ranked = []
    for util, topic_id, seen in scored:
        age = max(0.0, (now - (seen or now)).total_seconds() / 86400)
        ranked.append((util * np.exp(-age / tau) * (0.1 + salience.get(topic_id, 0.0)), topic_id))
    ranked.sort(key=lambda x: -x[0])
    hints = [s["hint"] for s in extraction.subjects[:5]]
    return WakePacket(now, [WakePacket.tail_turn(t.to_json()) for t in tail], hints,
                      [tid for _, tid in ranked[:8]], extraction.skill_refs[:5], extraction.in_progress, conv_rel,
                      [part[0].id, part[-1].id] if part else [])


def _event_file(change: Change, now: dt.datetime, conv_rel: str) -> str:
    """A topic event (docs/vault-format.md): `at` is when the topic was talked about, so "what did we decide
    last week" finds it by the conversation's time; `slept_at` is when memory recorded it."""
    turns = change.turn_ids
    span = f"{turns[0]}..{turns[-1]}" if len(turns) > 1 else (turns[0] if turns else "")
    body = "\n".join(f"- {line}" for line in change.summary()) or "- touched"
    talked = max((u.at for c in change.candidates for u in c.units), default=now)
    return (f"---\ntopic_id: {change.topic.id}\ntopic: {change.topic.rel}\nat: '{iso(talked)}'\n"
            f"slept_at: '{iso(now)}'\nchange: {'created' if change.created else 'updated'}\n"
            f"turns: {json.dumps(span)}\nconversation: {conv_rel}\n---\n\n# {change.topic.name}\n\n{body}\n")


def write_files(vault: Vault, files: dict[str, bytes | None], changes: dict[str, Change], tx: journal.Transaction,
                redo: Callable[[Topic, Change], None], names: Callable[[str], tuple[str, str] | None] = lambda _: None,
                read: dict[str, bytes] | None = None) -> list[str]:
    """Write every planned file; a topic a person edited since we read it is re-read and the sleep's
    part of it done again on their version (`redo`: what the plan did to the topic). `read`: what
    other files held when planned; one a person changed since keeps their version."""
    merged = []
    half = len(files) // 2
    for n, (rel, data) in enumerate(files.items()):
        if n == half:
            faults.point("sleep:half-written")
        change = next((c for c in changes.values() if c.topic.rel == rel), None)
        read_from = change.renamed_from or rel if change is not None else rel
        if change is not None and not change.created and (vault.root / read_from).exists():
            on_disk = (vault.root / read_from).read_bytes()
            if on_disk.decode("utf-8", "replace") != change.topic._orig_text:
                fresh = vault.topics.load(vault.root / read_from)
                redo(fresh, Change(fresh, False, change.candidates))
                for dst_id, kind, weight in change.edge_ops:
                    fresh.link(dst_id, kind, weight)
                if change.renamed_from and fresh.name == change.old_name:
                    fresh.rename(change.topic.name, rel)
                fresh.sync_related(names)
                data = fresh.render().encode()
                if read_from == rel:
                    tx.merged(rel, on_disk, data)
                else:  # a rollback gives back their edit under the old name, and the new file goes
                    tx.merged(read_from, on_disk, None)
                merged.append(read_from)
        if read and rel in read and (not (vault.root / rel).is_file() or (vault.root / rel).read_bytes() != read[rel]):
            continue
        if data is not None:
            atomic_write(vault.root / rel, data)
        elif (vault.root / rel).exists():
            (vault.root / rel).unlink()
    return merged


def commit_message(result: SleepResult, changes: dict[str, Change], extraction: Extraction) -> str:
    # the topics a person will find touched, not the raw subject hints they were matched from
    touched = ", ".join(c.topic.name for c in list(changes.values())[:3])
    hints = touched or ", ".join(s["hint"] for s in extraction.subjects[:3]) or "conversation"
    subject = f"sleep: {len(result.updated)} updated, {len(result.created)} created - {truncate(hints, 60)}"
    body = []
    for change in changes.values():
        body.append(f"{'new' if change.created else 'updated'} {change.topic.rel} ({change.topic.name}): "
                    f"{change.short()}")
        body += [f"    {line}" for line in change.summary()[:12]]
        if len(change.summary()) > 12:
            body.append(f"    ... and {len(change.summary()) - 12} more")
    if result.quarantined:
        body.append(f"held back {len(result.quarantined)} turn(s) in quarantine/ (not committed)")
    body.append(f"\nConversation: {result.conversation}")
    return subject + "\n\n" + "\n".join(body)
