"""Sleep boundaries as a time axis: every sleep commit carries an annotated tag `sleep/<UTC time>`
(pushed along by `vault sync`), `vault sleeps` lists them as a timeline, a wake packet is traced
back to the commit that wrote it, and time phrases ("two sleeps ago", "since you woke up") resolve
against the tags to a window and a commit range (`vault time`)."""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sheriff_vault import timewin
from sheriff_vault.store import gitlog
from sheriff_vault.store.topics import iso

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

PREFIX = "sleep/"
_CHANGE = re.compile(r"^(new|updated) (topics/\S+\.md) \((.*)\): ")


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

    @property
    def learned(self) -> list[str]:
        """What the sleep added or changed, topic by topic, as its commit message lists it."""
        return [line for t in self.topics for line in t.get("learned", [])]

    def to_json(self) -> dict:
        return {"tag": self.tag, "commit": self.sha, "at": iso(self.at), "subject": self.subject,
                "learned": self.learned, "topics": self.topics}

    def line(self, tz: str = "UTC") -> str:
        """Two lines to scan: when, the commit, what was learned; then the topics it touched."""
        from zoneinfo import ZoneInfo

        learned = [_LEAD.sub("", t) for t in self.learned]
        more = f" (+{len(learned) - 2} more)" if len(learned) > 2 else ""
        first = " · ".join(_cut(t, 70) for t in learned[:2]) + more
        fallback = self.subject.split(" - ", 1)[-1] if " - " in self.subject else self.subject
        names = ", ".join(f"{t['name']} ({t['change']})" for t in self.topics[:6])
        names += " ..." if len(self.topics) > 6 else ""
        return (f"{self.at.astimezone(ZoneInfo(tz)):%Y-%m-%d %H:%M}  {self.sha[:8]}  {first or fallback}\n"
                f"    {len(self.topics)} topic(s): {names or '-'}   ({self.tag})")


_LEARNED = re.compile(r"^    (\+ fact|\+ open loop|\+ event|closed loop|superseded|number): (.*)$")
_LEAD = re.compile(r"^\+ fact: (?:User: )?")  # a fact is the common case; "User:" says nothing


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3].rstrip() + "..."


def _topics_of(body: str) -> list[dict]:
    """The topics a sleep commit's message lists, each with its summary and the items it learned."""
    found: list[dict] = []
    for line in body.splitlines():
        if m := _CHANGE.match(line):
            found.append({"change": m.group(1), "path": m.group(2), "name": m.group(3),
                          "summary": line[m.end():].strip(), "learned": []})
        elif found and (item := _LEARNED.match(line)):
            found[-1]["learned"].append(f"{item.group(1)}: {item.group(2)}")
    return found


def list_sleeps(vault: Vault, limit: int | None = None) -> list[SleepEntry]:
    """Tagged sleeps reachable from HEAD, newest first, each with the topics it created or updated."""
    root = vault.root
    if gitlog.head(root) is None:
        return []
    found = []
    for name, info in gitlog.tagged_commits(root, PREFIX + "*"):
        found.append(SleepEntry(name, info.sha, info.at, info.subject, _topics_of(info.body)))
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


def sleep_times(vault: Vault, before: dt.datetime | None = None) -> list[dt.datetime]:
    """When the vault slept (at or before `before`), newest first: its sleep tags reachable from HEAD,
    and the newest wake packet's time when no tag names it (a clone fetched without tags)."""
    from sheriff_vault.store.packets import latest_slept_at

    times = set()
    if gitlog.head(vault.root) is not None:
        times = {info.at for _, info in gitlog.tagged_commits(vault.root, PREFIX + "*")}
    latest = latest_slept_at(vault, before)
    if latest is not None:
        times.add(latest)
    return sorted((t for t in times if before is None or t <= before), reverse=True)


@dataclass
class CommitRange:
    """The commits of a time window, as git names them: `base..tip` (all of tip's history when base
    is None). A sleep closes the awake time before it, so a window that ends at a sleep includes that
    sleep's commit and one that starts at a sleep leaves it out: "two sleeps ago" is the edits made
    that day plus the sleep that wrote the day's conversation into memory."""

    base: str | None
    tip: str | None
    base_tag: str | None = None
    tip_tag: str | None = None
    count: int = 0

    @property
    def spec(self) -> str:
        """`git log` notation, e.g. `1a2b3c4..5d6e7f8`; empty when no commit falls in the window."""
        if self.tip is None or self.count == 0:
            return ""
        return f"{self.base}..{self.tip}" if self.base else self.tip

    def to_json(self) -> dict:
        return {"from": self.base, "to": self.tip, "from_tag": self.base_tag, "to_tag": self.tip_tag,
                "range": self.spec, "count": self.count}

    def describe(self) -> str:
        if not self.spec or self.tip is None:
            return "commits: none in this window"
        ends = [f"after {self.base_tag or (self.base or '')[:8]}" if self.base else "from the first commit",
                f"up to {self.tip_tag or self.tip[:8]}"]
        short = f"{self.base[:8]}..{self.tip[:8]}" if self.base else self.tip[:8]
        return f"commits: {short}  ({self.count} commit(s), {' '.join(ends)})"


def commit_range(vault: Vault, window: timewin.Window, now: dt.datetime) -> CommitRange | None:
    """The commits a window covers (see CommitRange); None before the vault's first commit."""
    root = vault.root
    if gitlog.head(root) is None:
        return None
    by_time: dict[dt.datetime, tuple[str, str]] = {}
    for name, info in sorted(gitlog.tagged_commits(root, PREFIX + "*"), key=lambda f: (f[1].at, f[0])):
        by_time[info.at] = (info.sha, name)  # two sleeps in one second: the later one

    def point(t: dt.datetime | None) -> tuple[str | None, str | None]:
        """The last commit of the time before t: a sleep's own commit when t is its time."""
        if t is None:
            return None, None
        if t in by_time:
            return by_time[t]
        return gitlog.commit_at_or_before(root, t - dt.timedelta(seconds=1)), None

    base, base_tag = point(window.start)
    end = window.end if window.end is not None and window.end <= now else None
    tip, tip_tag = point(end) if end is not None else (gitlog.commit_at_or_before(root, now), None)
    count = gitlog.count_commits(root, base, tip) if tip else 0
    return CommitRange(base, tip, base_tag, tip_tag, count)


@dataclass
class TimeAnswer:
    """What `vault time` prints: the UTC window of a phrase and, inside a vault, its commits."""

    window: timewin.Window
    commits: CommitRange | None = None

    def to_json(self) -> dict:
        return self.window.to_json() | {"commits": self.commits.to_json() if self.commits else None}


def resolve_time(vault: Vault | None, phrase: str, now: dt.datetime, tz: str, *,
                 prefer: str = "nearest") -> TimeAnswer:
    """A time phrase as a window, read against the vault's sleeps ("two sleeps ago", "since you woke
    up"), with the commits it covers."""
    sleeps = sleep_times(vault, now) if vault is not None and timewin.mentions_sleep(phrase) else []
    window = timewin.resolve(phrase, now, tz, sleeps=sleeps, prefer=prefer)
    return TimeAnswer(window, commit_range(vault, window, now) if vault is not None else None)
