"""Changes to topics made by a person or a tool call (not by sleep): each one is a single commit."""
from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sheriff_vault import faults
from sheriff_vault.errors import EditConflict, TopicExists, TopicNotFound, VaultError
from sheriff_vault.store import gitlog, journal
from sheriff_vault.store.topics import EDGE_TYPES, Topic, fact, slugify
from sheriff_vault.store.vault import Vault


@dataclass
class EditResult:
    topic: Topic
    created: bool
    commit: str | None

    def to_json(self) -> dict:
        return {"id": self.topic.id, "path": self.topic.rel, "created": self.created, "commit": self.commit}


def create_topic(vault: Vault, name: str, *, now: dt.datetime, aliases: Iterable[str] = (),
                 facts: Iterable[str] = (), one_liner: str = "", evergreen: bool = False,
                 commit: bool = True, force: bool = False) -> EditResult:
    """A new topic file from a name and optional aliases and facts, committed as `topic: new ...`.
    A name an existing topic already has is refused (it would silently make `name-2`) unless `force`."""
    name = name.strip()
    if not name:
        raise VaultError("a topic needs a name", hint='vault topic new "Party planning"')
    facts = [f.strip() for f in facts if f.strip()]
    _scan(vault, [name, one_liner, *aliases, *facts])
    with vault.lock():
        if not force:
            _refuse_existing(vault, name)
        topic = vault.topics.create(name, one_liner=one_liner, aliases=aliases, now=now, evergreen=evergreen)
        for text in facts:
            topic.add_item(fact(text, now))
        sha = _save(vault, topic, f"topic: new {name}", commit)
    return EditResult(topic, True, sha)


def _refuse_existing(vault: Vault, name: str) -> None:
    low, slug = name.lower(), slugify(name)
    for topic in vault.topics.iter():
        if topic.name.lower() == low or topic.slug == slug:
            raise TopicExists(f"a topic called {topic.name!r} already exists: {topic.rel}",
                              hint=f"add to it with `vault topic edit {topic.slug}`, "
                                   "or pass --force to make a second one")


def commit_edit(vault: Vault, topic: Topic) -> str | None:
    """Commit a person's edit of one topic file (after `vault topic edit`)."""
    return gitlog.commit_paths(vault.root, f"edit: {topic.name}", [topic.rel])


def save_topic_text(vault: Vault, slug: str, text: str, *, base: str | None = None, message: str = "",
                    lock_timeout: float = 60.0) -> EditResult:
    """Replace a topic file with the text a person edited (the `vault serve` edit form), as one commit.

    The text is checked first (a bad frontmatter is refused with its line; nothing is written) and
    written as given, so the person's YAML keeps its layout. `base` is the text they started from:
    when the file changed meanwhile (a sleep ran), their edit and that change are merged three ways
    with the topic merge driver, so neither is lost; a clash is refused. Holds the vault lock, as
    sleep does, so the two never interleave."""
    rel = f"topics/{slug}.md"
    text = text.replace("\r\n", "\n")
    Topic.parse(text, vault.root / rel, rel)
    with vault.lock(timeout=lock_timeout):
        path = vault.root / rel
        if not path.is_file():
            raise TopicNotFound(f"{rel} does not exist (it was renamed or deleted)", hint="open the topic again")
        current = path.read_text(encoding="utf-8")
        if base is not None and current != base.replace("\r\n", "\n") and text != current:
            from sheriff_vault.store.topicmerge import merge_texts

            merged = merge_texts(base.replace("\r\n", "\n"), current, text, path=rel)
            if not merged.clean:
                raise EditConflict(f"{rel} changed since you opened it and your edit clashes with that change",
                                   path=rel, hint="nothing was written; open the topic again and redo the edit")
            text = merged.text
        topic = Topic.parse(text, path, rel)
        if text == current:
            return EditResult(topic, False, None)
        message = message.replace("\r\n", "\n").strip() or f"edit: {topic.name}"
        with journal.transaction(vault, "edit", {rel: text.encode()}) as tx:
            from sheriff_vault.store.fsutil import atomic_write

            atomic_write(path, text)
            faults.point("edit:saved")
            sha = tx.commit(message, [rel])
    return EditResult(topic, False, sha)


def upsert_topic(vault: Vault, update: dict[str, Any], *, now: dt.datetime, commit: bool = True) -> EditResult:
    """Create or update a topic from a tool call's structured update (the `topics.upsert` tool)."""
    ref = str(update.get("topic_id") or update.get("id") or "").strip()
    name = str(update.get("name") or "").strip()
    facts = [str(f).strip() for f in update.get("facts") or [] if str(f).strip()]
    loops = [str(f).strip() for f in update.get("open_loops") or [] if str(f).strip()]
    aliases = [str(a).strip() for a in update.get("aliases") or [] if str(a).strip()]
    _scan(vault, [name, str(update.get("one_liner") or ""), *facts, *loops, *aliases])
    with vault.lock():
        topic = None
        if ref or name:
            try:
                topic = vault.topics.get(ref or name)
            except VaultError:
                if ref and not name:
                    raise
        created = topic is None
        if topic is None:
            if not name:
                raise VaultError("a new topic needs a name", hint="pass name, or topic_id of an existing topic")
            topic = vault.topics.create(name, one_liner=str(update.get("one_liner") or ""), now=now)
        elif update.get("one_liner"):
            topic.set("one_liner", str(update["one_liner"]).strip())
        for alias in aliases:
            topic.add_alias(alias)
        known = {i.text.lower() for i in topic.items()}
        for text in facts:
            if text.lower() not in known:
                topic.add_item(fact(text, now))
        for text in loops:
            if text.lower() not in known:
                topic.add_item(fact(text, now, kind="loop"))
        for num in update.get("numbers") or []:
            if isinstance(num, dict) and num.get("key") and "value" in num:
                topic.add_number(str(num["key"]), num["value"], str(num.get("unit") or ""), now,
                                 str(num.get("source") or "tool"), float(num.get("confidence") or 0.8))
        topic.touch(now)
        topic.set("touch_count", topic.touch_count + 1)
        sha = _save(vault, topic, f"topic: {'new' if created else 'update'} {topic.name}", commit)
    return EditResult(topic, created, sha)


def link_topics(vault: Vault, src: str, dst: str, edge_type: str = "RELATES_TO", weight_delta: float = 1.0,
                *, commit: bool = True) -> EditResult:
    """Add or strengthen an edge from one topic to another (the `topics.link` tool)."""
    if edge_type not in EDGE_TYPES:
        raise VaultError(f"unknown edge type {edge_type!r}", hint="use one of " + ", ".join(EDGE_TYPES))
    with vault.lock():
        a, b = vault.topics.get(src), vault.topics.get(dst)
        if a.id == b.id:
            raise VaultError("a topic cannot link to itself", hint="pick two different topics")
        a.link(b.id, edge_type, weight_delta)
        sha = _save(vault, a, f"link: {a.name} {edge_type} {b.name}", commit)
    return EditResult(a, False, sha)


def _save(vault: Vault, topic: Topic, message: str, commit: bool) -> str | None:
    """Save the topic and commit it as one change: a failed commit puts the file back as it was,
    and so does the next command after a crash. Call it holding the vault lock."""
    if not commit:
        topic.save()
        return None
    with journal.transaction(vault, "edit", {topic.rel: topic.render().encode()}) as tx:
        topic.save()
        faults.point("edit:saved")
        return tx.commit(message, [topic.rel])


def _scan(vault: Vault, texts: list[str]) -> None:
    """Refuse memory writes carrying injection phrasing, hidden Unicode or secrets."""
    from sheriff_vault.store.guard import check_texts

    check_texts(texts)
