"""Reviewable sleep: `vault sleep --review` puts the sleep commit on a branch `sleep/<UTC time>`
instead of the current branch; `vault review` shows what was learned while asleep, topic by topic,
and `--accept [TOPIC...]` / `--reject [TOPIC...]` takes all or part of it as one commit (topics
merged with the topic merge driver, so work done since the sleep is kept), then drops the branch.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sheriff_vault.daemon.client import reconcile
from sheriff_vault.errors import VaultError
from sheriff_vault.store import gitlog, journal, topicmerge
from sheriff_vault.store.sleeps import PREFIX, tag_name, tag_sleep
from sheriff_vault.store.topics import Topic, iso, parse_time

if TYPE_CHECKING:
    from sheriff_vault.compaction.result import SleepResult
    from sheriff_vault.store.buffer import Turn
    from sheriff_vault.store.vault import Vault


def sleep_for_review(vault: Vault, turns: list[Turn] | None = None, *, now: dt.datetime | None = None,
                     extractor: str | None = None, final: bool = False) -> tuple[SleepResult, str | None]:
    """Sleep as usual, then move the sleep commit onto a new branch `sleep/<UTC time>` and put the
    current branch (and its files) back where they were. Returns the sleep and the branch."""
    from sheriff_vault.compaction.compact import sleep

    root = vault.root
    with vault.lock(timeout=120):
        if gitlog.current_branch(root) is None:
            raise VaultError("HEAD is detached; a sleep for review branches off the current branch",
                             hint="`git switch main` first")
        dirty = [p for p in gitlog.dirty_paths(root) if p.startswith("topics/")]
        if dirty:
            raise VaultError(f"uncommitted topic edits ({', '.join(dirty[:5])}): a sleep for review starts from "
                             "committed topics", hint="commit them (or run `vault sync`), or sleep without --review")
        base = gitlog.head(root)
        result = sleep(vault, turns, now=now, extractor=extractor, final=final)
        if not result.commit or not base:
            return result, None
        name, n = tag_name(result.slept_at), 2
        while gitlog.resolve(root, f"refs/heads/{name}"):
            name, n = f"{tag_name(result.slept_at)}-{n}", n + 1
        gitlog.create_branch(root, name, result.commit)
        if result.tag:  # tagged when accepted; a tag and a branch of one name would be ambiguous
            gitlog.delete_tag(root, result.tag)
            result.tag = None
        gitlog.reset_keep(root, base)
    reconcile(vault, result.commit)
    return result, name


@dataclass
class ReviewTopic:
    path: str
    name: str
    change: str  # new | updated
    learned: list[str] = field(default_factory=list)  # the item lines the sleep added
    id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "id": self.id, "name": self.name, "change": self.change, "learned": self.learned}


@dataclass
class Review:
    branch: str
    commit: str
    base: str
    slept_at: dt.datetime | None
    topics: list[ReviewTopic]
    files: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"branch": self.branch, "commit": self.commit, "base": self.base,
                "slept_at": iso(self.slept_at) if self.slept_at else None,
                "topics": [t.to_json() for t in self.topics], "files": self.files}

    def describe(self) -> str:
        when = f"{self.slept_at:%Y-%m-%d %H:%M} UTC" if self.slept_at else "?"
        lines = [f"{self.branch} (commit {self.commit[:8]}, slept {when}): what I learned while asleep, "
                 f"{len(self.topics)} topic(s)"]
        for t in self.topics:
            lines.append(f"  {t.change:<8} {t.path} ({t.name})")
            lines += [f"    + {line}" for line in t.learned[:20]]
            if len(t.learned) > 20:
                lines.append(f"    ... and {len(t.learned) - 20} more")
        lines.append("accept all: `vault review --accept`; part: `vault review --accept TOPIC...` "
                     "(or `--reject TOPIC...`); none: `vault review --reject`")
        return "\n".join(lines)


def _learned_line(raw: str) -> str:
    """An item line as a sleep commit lists it (`+ fact: ...`), so `vault sleeps` reads both alike."""
    from sheriff_vault.store.items import parse_item

    item = parse_item(raw, "fact")
    if item is None:
        return f"+ fact: {raw.strip()}"
    kind = "open loop" if raw.lstrip("-* ").startswith("[") else "event" if "T" in item.date else "fact"
    return f"+ {kind}: {item.text}"


def pending(vault: Vault) -> list[str]:
    """Sleep branches waiting for review, newest first."""
    return [name for name, _ in gitlog.branches(vault.root, PREFIX + "*")]


def show_review(vault: Vault, branch: str | None = None) -> Review:
    root = vault.root
    waiting = pending(vault)
    if not waiting:
        raise VaultError("no sleep is waiting for review", hint="`vault sleep --review` makes one")
    name = branch or waiting[0]
    sha = gitlog.resolve(root, f"refs/heads/{name}")
    if sha is None or name not in waiting:
        raise VaultError(f"no sleep branch {name!r}", hint="waiting: " + ", ".join(waiting))
    base = gitlog.merge_base(root, "HEAD", sha) or sha
    files = gitlog.diff_names(root, base, sha)
    topics = []
    for rel in files:
        if not (rel.startswith("topics/") and rel.endswith(".md")):
            continue
        after = gitlog.show_file(root, sha, rel)
        if after is None:
            continue
        before = gitlog.show_file(root, base, rel)
        try:
            topic = Topic.parse(after, vault.root / rel, rel)
        except VaultError:
            continue
        old = {i.raw for i in _items(before, rel)}
        learned = [i.raw for i in topic.items() if i.raw not in old]
        topics.append(ReviewTopic(rel, topic.name, "updated" if before is not None else "new", learned, topic.id))
    stamp = name.removeprefix(PREFIX).split("-")[0]
    slept = parse_time(f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}T{stamp[9:11]}:{stamp[11:13]}:{stamp[13:15]}Z")
    return Review(name, sha, base, slept, topics, files)


@dataclass
class Decision:
    branch: str
    accepted: list[str]
    rejected: list[str]
    commit: str | None
    tag: str | None

    def to_json(self) -> dict[str, Any]:
        return {"branch": self.branch, "accepted": self.accepted, "rejected": self.rejected, "commit": self.commit,
                "tag": self.tag}

    def describe(self) -> str:
        head = f"accepted {len(self.accepted)} topic(s)" + (f" (commit {self.commit[:8]})" if self.commit else "")
        lines = [f"{head}, rejected {len(self.rejected)} from {self.branch}; the branch is gone"]
        lines += [f"  accepted {p}" for p in self.accepted] + [f"  rejected {p}" for p in self.rejected]
        return "\n".join(lines)


def decide(vault: Vault, *, accept: bool, refs: tuple[str, ...] = (), branch: str | None = None) -> Decision:
    """Accept (or reject) the named topics of a sleep under review; with no names, all of it.
    Accepting part rejects the rest. One commit on the current branch, then the branch is deleted."""
    root = vault.root
    with vault.lock(timeout=120):
        review = show_review(vault, branch)
        chosen = {_find(review, ref) for ref in refs}
        every = [t.path for t in review.topics]
        if accept:
            taken = [p for p in every if not chosen or p in chosen]
        else:
            taken = [p for p in every if chosen and p not in chosen]
        files = _files(vault, review, taken)
        commit = None
        if files:
            message = (f"review: accept {len(taken)} of {len(every)} topic(s) from {review.branch}\n\n"
                       + "\n".join(f"{t.change} {t.path} ({t.name}): accepted, {len(t.learned)} line(s)"
                                   + "".join(f"\n    {_learned_line(raw)}" for raw in t.learned[:12])
                                   if t.path in taken else f"rejected {t.path} ({t.name})" for t in review.topics))
            with journal.transaction(vault, "edit", files) as tx:
                from sheriff_vault.store.fsutil import atomic_write

                for rel, data in files.items():
                    if data is not None:
                        atomic_write(root / rel, data)
                commit = tx.commit(message, list(files))
        tag = tag_sleep(vault, commit, review.slept_at, f"reviewed sleep {review.branch}") \
            if commit and review.slept_at else None
        gitlog.delete_branch(root, review.branch)
    if commit:
        reconcile(vault, review.base)
    return Decision(review.branch, taken, [p for p in every if p not in taken], commit, tag)


def _items(text: str | None, rel: str) -> list[Any]:
    if not text:
        return []
    try:
        return Topic.parse(text, Path(rel), rel).items()
    except VaultError:
        return []


def _unlink(text: str, rel: str, drop: dict[str, str]) -> str:
    """Remove `related` edges (and their `## Related` links) to topics that were rejected (they
    never reach this branch); `drop` maps their ids to their slugs."""
    topic = Topic.parse(text, Path(rel), rel)
    return topic.render() if drop and topic.unlink(drop) else text


def _find(review: Review, ref: str) -> str:
    low = ref.strip().lower()
    for t in review.topics:
        slug = t.path.removeprefix("topics/").removesuffix(".md")
        if low in (t.path.lower(), slug.lower(), t.name.lower()):
            return t.path
    listing = ", ".join(f"{t.path.removeprefix('topics/').removesuffix('.md')} ({t.name})" for t in review.topics)
    raise VaultError(f"{ref!r} is not a topic of {review.branch}", hint=f"its topics: {listing}")


def _files(vault: Vault, review: Review, taken: list[str]) -> dict[str, bytes | None]:
    """What accepting `taken` writes: each topic merged three ways with what the current branch did
    since the sleep, the events of those topics, and the archived conversation and wake packet."""
    root = vault.root
    if not taken:
        return {}
    slugs = {p.removeprefix("topics/").removesuffix(".md") for p in taken}
    drop = {t.id: Path(t.path).stem for t in review.topics if t.change == "new" and t.path not in taken}
    out: dict[str, bytes | None] = {}
    clashes = []
    dirty = set(gitlog.dirty_paths(root))
    for rel in review.files:
        theirs = gitlog.show_file(root, review.commit, rel)
        if theirs is None:
            continue
        if rel.startswith("topics/"):
            if rel not in taken:
                continue
            if rel in dirty:
                raise VaultError(f"{rel} has uncommitted edits", hint="commit them first, then review again")
            ours = gitlog.show_file(root, "HEAD", rel)
            if ours is None:
                out[rel] = _unlink(theirs, rel, drop).encode()
                continue
            merged = topicmerge.merge_texts(gitlog.show_file(root, review.base, rel) or "", ours, theirs, path=rel)
            if not merged.clean:
                clashes.append(rel)
            out[rel] = (_unlink(merged.text, rel, drop) if merged.clean else merged.text).encode()
        elif rel.startswith("events/"):
            if rel.rsplit("/", 1)[-1].split("-", 1)[-1].removesuffix(".md") in slugs:
                out[rel] = theirs.encode()
        else:
            out[rel] = theirs.encode()
    if clashes:
        raise VaultError(f"accepting {', '.join(clashes)} clashes with hand edits made since that sleep",
                         hint="accept the other topics, or edit the topic by hand and reject this one")
    return out
