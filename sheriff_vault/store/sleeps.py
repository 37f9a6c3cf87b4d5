"""Sleep boundaries as a time axis: every sleep commit carries an annotated tag `sleep/<UTC time>`
(pushed along by `vault sync`), `vault sleeps` lists them as a timeline, and a wake packet is
traced back to the commit that wrote it."""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sheriff_vault.store import gitlog
from sheriff_vault.store.topics import iso

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

PREFIX = "sleep/"
_CHANGE = re.compile(r"^(new|updated) (topics/\S+\.md) \((.*)\): ", re.MULTILINE)


def tag_name(slept_at: dt.datetime) -> str:
    return PREFIX + slept_at.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def tag_sleep(vault: Vault, sha: str, slept_at: dt.datetime, subject: str) -> str:
    """Tag a sleep commit; a second sleep in the same second gets `-2`, `-3`..."""
    base = name = tag_name(slept_at)
    n = 2
    while gitlog.resolve(vault.root, f"refs/tags/{name}") is not None:
        name, n = f"{base}-{n}", n + 1
    gitlog.tag(vault.root, name, sha, subject, when=slept_at)
    return name


@dataclass
class SleepEntry:
    tag: str
    sha: str
    at: dt.datetime
    subject: str
    topics: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"tag": self.tag, "commit": self.sha, "at": iso(self.at), "subject": self.subject,
                "topics": self.topics}

    def line(self) -> str:
        names = ", ".join(t["name"] for t in self.topics[:6]) + (" ..." if len(self.topics) > 6 else "")
        learned = self.subject.split(" - ", 1)[-1] if " - " in self.subject else self.subject
        return (f"{self.at:%Y-%m-%d %H:%M}  {self.sha[:8]}  {learned}\n"
                f"    {len(self.topics)} topic(s): {names or '-'}   ({self.tag})")


def list_sleeps(vault: Vault, limit: int | None = None) -> list[SleepEntry]:
    """Tagged sleeps reachable from HEAD, newest first, each with the topics it created or updated."""
    root = vault.root
    if gitlog.head(root) is None:
        return []
    found = []
    for name, info in gitlog.tagged_commits(root, PREFIX + "*"):
        topics = [{"change": m.group(1), "path": m.group(2), "name": m.group(3)} for m in _CHANGE.finditer(info.body)]
        found.append(SleepEntry(name, info.sha, info.at, info.subject, topics))
    found.sort(key=lambda e: (e.at, e.tag), reverse=True)
    return found[:limit] if limit else found


def packet_commit(vault: Vault, rel: str) -> tuple[str | None, str | None]:
    """(commit, sleep tag) that wrote a wake packet; (None, None) when it is not committed."""
    commits = gitlog.log(vault.root, rel)
    if not commits:
        return None, None
    sha = commits[-1].sha  # the oldest commit touching the file is the one that added it
    tag = next((name for name, tagged in gitlog.tags(vault.root, PREFIX + "*") if tagged == sha), None)
    return sha, tag
