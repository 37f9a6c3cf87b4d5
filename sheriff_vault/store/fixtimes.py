"""`vault doctor --fix-times`: put back a topic's `first_seen` / `last_seen` from history when a
person's edit broke them.

The two keys say when the topic was talked about (sleep sets them from the conversation's turn
times; a topic tool sets them when it runs). History keeps that in two places: every sleep leaves
an event file per topic (`events/.../*.md`, its `at` is when the topic was talked about), and every
commit the vault made itself (a sleep, a topic tool; they carry a `Sleep-Id:`/`Edit-Id:` trailer)
holds the values it wrote. first_seen is the earliest of those, last_seen the latest. A person's
own commits are not evidence: they are what broke the times. A topic the vault never wrote (made
by hand) keeps its valid dates; a missing, unreadable or swapped one takes the file's first and
last commit. Only the two keys change (round-trip YAML: the rest of the file keeps its
bytes), and all the fixed topics land as one commit.
"""
from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sheriff_vault.errors import VaultError
from sheriff_vault.store import gitlog, journal
from sheriff_vault.store.topics import Topic, iso, parse_time

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

_VAULT_MADE = re.compile(r"^(?:Sleep|Edit)-Id: ", re.MULTILINE)  # trailers of commits the vault made
_SEEN = re.compile(r"^(first_seen|last_seen):\s*['\"]?([^'\"\n]*?)['\"]?\s*$", re.MULTILINE)
_KEY = re.compile(r"^(topic_id|topic|at):\s*['\"]?([^'\"\n]*?)['\"]?\s*$", re.MULTILINE)


@dataclass
class TimeFix:
    """One topic whose times were recomputed: the old raw values, the new ones, and the evidence."""

    path: str
    name: str
    before: dict[str, str | None]
    after: dict[str, str]
    evidence: str

    def to_json(self) -> dict:
        return {"path": self.path, "name": self.name, "before": self.before, "after": self.after,
                "evidence": self.evidence}

    def describe(self) -> str:
        changed = [f"{k} {self.before[k]!r} -> {v}" for k, v in self.after.items() if self.before.get(k) != v]
        return f"{self.path}: {'; '.join(changed)}  (from {self.evidence})"


@dataclass
class FixTimesResult:
    fixed: list[TimeFix] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "path: why"
    commit: str | None = None
    checked: int = 0

    def to_json(self) -> dict:
        return {"fixed": [f.to_json() for f in self.fixed], "skipped": self.skipped, "commit": self.commit,
                "checked": self.checked}

    def describe(self) -> str:
        lines = [f.describe() for f in self.fixed] + [f"skipped {s}" for s in self.skipped]
        if self.fixed:
            lines.append(f"fixed the times of {len(self.fixed)} topic(s) in commit {(self.commit or '')[:8]}")
        else:
            lines.append(f"the times of all {self.checked} topic(s) agree with history; nothing to fix")
        return "\n".join(lines)


def event_times(vault: Vault) -> dict[str, list[dt.datetime]]:
    """When each topic was talked about, from the sleeps' event files, by topic id and by path."""
    found: dict[str, list[dt.datetime]] = defaultdict(list)
    folder = vault.path("events")
    for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
        try:
            head = path.read_text(encoding="utf-8", errors="replace")[:2000]
        except OSError:
            continue
        keys = {k: v.strip() for k, v in _KEY.findall(head.split("\n---", 2)[0] if head.startswith("---") else "")}
        at = parse_time(keys.get("at"))
        if at is None:
            continue
        for ref in {keys.get("topic_id"), keys.get("topic")} - {None, ""}:
            found[str(ref)].append(at)
    return found


def recompute(vault: Vault, topic: Topic,
              events: dict[str, list[dt.datetime]]) -> tuple[dict[str, str], str, bool] | None:
    """The first_seen/last_seen history gives a topic, what they came from, and whether the vault
    itself wrote them (else they are only the file's first and last commit); None without history."""
    talked = sorted(set(events.get(topic.id, []) + events.get(topic.rel, [])))
    commits = gitlog.log(vault.root, topic.rel, follow=True)
    firsts, lasts = list(talked), list(talked)
    written = 0
    for commit in commits:
        if not _VAULT_MADE.search(commit.body):
            continue  # a person's commit: the very edits this repairs
        text = gitlog.show_file(vault.root, commit.sha, topic.rel)
        keys = dict(_SEEN.findall(text.split("\n---", 2)[0])) if text and text.startswith("---") else {}
        first, last = parse_time(keys.get("first_seen")), parse_time(keys.get("last_seen"))
        firsts += [first] if first else []
        lasts += [last] if last else []
        written += bool(first or last)
    if commits and not firsts:  # never written by the vault: the file's own history
        firsts, lasts = [commits[-1].at], [commits[0].at]
    if not firsts or not lasts:
        return None
    first, last = min(firsts), max(lasts)
    parts = [f"{len(talked)} event file(s)"] if talked else []
    parts += [f"{written} commit(s) by sleep or topic tools"] if written else []
    parts += [f"{len(commits)} commit(s) of the file"] if not parts else []
    return {"first_seen": iso(first), "last_seen": iso(max(last, first))}, ", ".join(parts), bool(talked or written)


def fix_times(vault: Vault, refs: list[str] | None = None) -> FixTimesResult:
    """Recompute first_seen/last_seen of every topic (or those named) and commit the ones that changed."""
    result = FixTimesResult()
    if gitlog.head(vault.root) is None:
        raise VaultError("the vault has no commits yet, so there is no history to read times from",
                         hint="run `vault sleep` or commit your topics first")
    if gitlog.is_shallow(vault.root):
        raise VaultError("this clone is shallow: its history is cut off, so times read from it would be too late",
                         hint="fetch the whole history first (`git fetch --unshallow`, or `vault sync`, which does it)")
    with vault.lock(timeout=120):
        topics = [vault.topics.get(r) for r in refs] if refs else vault.topics.all(on_error=lambda e: None)
        events = event_times(vault)
        changed: list[Topic] = []
        for topic in topics:
            result.checked += 1
            found = recompute(vault, topic, events)
            if found is None:
                result.skipped.append(f"{topic.rel}: not in git history yet (commit it first)")
                continue
            after, evidence, written = found
            before = {k: _raw(topic.meta.get(k)) for k in after}
            now = {k: parse_time(topic.meta.get(k)) for k in after}
            swapped = bool(now["first_seen"] and now["last_seen"] and now["first_seen"] > now["last_seen"])
            for key, value in after.items():
                # A file only a person ever wrote keeps their valid dates: only what is broken changes.
                if parse_time(value) != now[key] and (written or now[key] is None or swapped):
                    topic.set(key, value)
            if topic.dirty:
                changed.append(topic)
                result.fixed.append(TimeFix(topic.rel, topic.name, before, after, evidence))
        if not changed:
            return result
        files: dict[str, bytes | None] = {t.rel: t.render().encode() for t in changed}
        message = (f"doctor: first_seen/last_seen of {len(changed)} topic(s) recomputed from history\n\n"
                   + "\n".join(f"- {f.describe()}" for f in result.fixed))
        with journal.transaction(vault, "edit", files) as tx:
            for topic in changed:
                topic.save()
            result.commit = tx.commit(message, list(files))
    return result


def _raw(value: object) -> str | None:
    if value is None:
        return None
    t = parse_time(value)
    return iso(t) if t is not None and not isinstance(value, str) else str(value)

