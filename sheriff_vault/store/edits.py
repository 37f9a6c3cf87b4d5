"""Changes to topics made by a person or a tool call (not by sleep): each one is a single commit."""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from sheriff_vault import faults
from sheriff_vault.errors import EditConflict, TopicExists, TopicNotFound, VaultError
from sheriff_vault.store import gitlog, journal
from sheriff_vault.store.items import Item, clean_text
from sheriff_vault.store.topics import EDGE_TYPES, Topic, clean_tag, fact, slugify
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
                 commit: bool = True, force: bool = False, tags: Iterable[str] = ()) -> EditResult:
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
        topic = vault.topics.create(name, one_liner=one_liner, aliases=aliases, now=now, evergreen=evergreen,
                                    tags=tags)
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
        for tag in update.get("tags") or []:
            topic.add_tag(str(tag))
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
        a.sync_related(topic_names(vault))
        sha = _save(vault, a, f"link: {a.name} {edge_type} {b.name}", commit)
    return EditResult(a, False, sha)


def topic_names(vault: Vault) -> Callable[[str], tuple[str, str] | None]:
    """Topic id -> (slug, name), for the `## Related` links (read from the topic files' frontmatter)."""
    from sheriff_vault.store.catalog import TopicCatalog

    names = {s.id: (s.slug, s.name) for s in TopicCatalog(vault).summaries() if s.id and not s.error}
    return names.get


def tag_topic(vault: Vault, ref: str, add: Iterable[str] = (), remove: Iterable[str] = (), *,
              commit: bool = True) -> EditResult:
    """Add and remove a topic's tags (Obsidian's `tags` property; `vault recall --tag` filters on
    them), as one commit; nothing is written when they are already so."""
    add, remove = [clean_tag(t) for t in add if clean_tag(t)], [clean_tag(t) for t in remove if clean_tag(t)]
    if not add and not remove:
        raise VaultError("no tags given", hint="vault topic tag TOPIC work/alpha [--remove old]")
    _scan(vault, add)
    with vault.lock():
        topic = vault.topics.get(ref)
        changed = [t for t in add if topic.add_tag(t)] + [t for t in remove if topic.remove_tag(t)]
        sha = None
        if changed and topic.dirty:
            sha = _save(vault, topic, f"tags: {topic.name}: " + ", ".join(
                [f"+{t}" for t in add if t in changed] + [f"-{t}" for t in remove if t in changed]), commit)
    return EditResult(topic, False, sha)


@dataclass
class FactEdit:
    topic: Topic
    action: str
    old: Item
    replacement: Item | None
    asked_by: str
    at: dt.datetime
    commit: str | None

    def to_json(self) -> dict:
        return {"id": self.topic.id, "path": self.topic.rel, "action": self.action, "fact": self.old.text,
                "replacement": self.replacement.text if self.replacement else None, "asked_by": self.asked_by,
                "at": self.at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"), "commit": self.commit}


def correct_fact(vault: Vault, ref: str, fact_text: str, action: str, *, now: dt.datetime, replacement: str = "",
                 asked_by: str = "", reason: str = "") -> FactEdit:
    """Supersede or remove one fact of a topic at a person's request, as one commit naming who asked
    and when. `supersede` strikes the line through the way sleep marks a corrected fact (kept as
    history, `(superseded DAY by WHO)`) and adds `replacement` dated now; `remove` deletes the line."""
    if action not in ("supersede", "remove"):
        raise VaultError(f"unknown action {action!r}", hint="use supersede (keep it struck through) or remove")
    replacement, reason = clean_text(replacement), clean_text(reason)
    if action == "remove" and replacement:
        raise VaultError("remove takes no replacement", hint="use action supersede to replace the fact")
    who = re.sub(r"[()\[\]~]", "", clean_text(asked_by)) or "a tool call"
    _scan(vault, [replacement, who, reason])
    with vault.lock():
        topic = vault.topics.get(ref)
        old = _one_fact(topic, fact_text)
        added = None
        if action == "supersede":
            topic.body.replace_item(old, replace(old, superseded=now.astimezone(dt.UTC).strftime("%Y-%m-%d"),
                                                 superseded_by=who))
            if replacement and replacement.lower() not in {i.text.lower() for i in topic.items() if not i.superseded}:
                added = topic.add_item(fact(replacement, now, kind=old.kind))
        else:
            topic.body.remove_item(old)
        topic.touch(now)
        at = now.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        body = [f"{'Superseded' if action == 'supersede' else 'Removed'}: {old.text}",
                *([f"Replaced by: {added.text}"] if added else []), f"Asked by {who} at {at}.",
                *([f"Reason: {reason}"] if reason else [])]
        subject = f"fact: {'supersede' if action == 'supersede' else 'remove'} in {topic.name}, asked by {who}"
        sha = _save(vault, topic, subject + "\n\n" + "\n".join(body), True)
    return FactEdit(topic, action, old, added, who, now, sha)


def _one_fact(topic: Topic, wanted: str) -> Item:
    """The one current item whose text is `wanted`, or the only one containing it."""
    key = clean_text(wanted).lower()
    current = [i for i in topic.items() if not i.superseded]
    found = [i for i in current if i.text.lower() == key] or [i for i in current if key and key in i.text.lower()]
    if not found:
        raise VaultError(f"no current fact in {topic.name!r} matches {wanted!r}",
                         hint=f"read the topic (topic_get {topic.slug!r}) and copy the fact's text")
    if len(found) > 1:
        shown = "; ".join(repr(i.text[:80]) for i in found[:5])
        raise VaultError(f"{len(found)} facts in {topic.name!r} match {wanted!r}: {shown}",
                         hint="give more of the fact's text, so only one matches")
    return found[0]


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
