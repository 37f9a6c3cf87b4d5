"""`vault doctor`: read every file the way the program will, and say what to fix, file by file."""
from __future__ import annotations

import json
import re
import warnings
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from sheriff_vault.config import ConfigWarning, load_config
from sheriff_vault.errors import VaultError
from sheriff_vault.store.fsutil import read_text_limited
from sheriff_vault.store.items import Citation
from sheriff_vault.store.topics import Problem, Topic
from sheriff_vault.store.vault import CONTENT_DIRS, Vault

MAX_JSON_BYTES = 5 * 1024 * 1024
WAKE_KEYS = ("schema_version", "slept_at", "conversation_tail", "active_subject_hints", "top_topic_ids",
             "recent_skill_refs", "in_progress")


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, path: str, line: int | None, message: str) -> None:
        self.problems.append(Problem(path, line, message))

    def add_error(self, exc: VaultError, fallback_path: str) -> None:
        msg = exc.message + (f"; {exc.hint}" if exc.hint else "")
        self.add(exc.path or fallback_path, exc.line, msg)

    def to_json(self) -> dict:
        return {"ok": self.ok, "checked": dict(self.checked),
                "problems": [{"path": p.path, "line": p.line, "message": p.message} for p in self.problems]}


def check_vault(vault: Vault, extra: list[Callable[[Vault, Report], None]] | None = None) -> Report:
    """Check config, topics (and the links between them), wake packets, events, conversations, skills."""
    report = Report()
    _check_conflicts(vault, report)
    _check_config(vault, report)
    topics, unreadable = _check_topics(vault, report)
    _check_links(vault, topics, unreadable, report)
    _check_wikilinks(vault, topics, unreadable, report)
    _check_wake(vault, report)
    _check_unsafe(vault, topics, report)
    for name in CONTENT_DIRS:
        if not vault.path(name).is_dir():
            report.add(name, None, f"folder {name}/ is missing; run `vault init` to restore it")
    for check in extra or ():
        check(vault, report)
    report.problems.sort(key=lambda p: (p.path, p.line or 0))
    return report


def _check_conflicts(vault: Vault, report: Report) -> None:
    """A merge (`vault sync`, `git pull`) that left a real conflict: point at each marked line."""
    from sheriff_vault.store import gitlog

    try:
        unmerged = set(gitlog.unmerged_paths(vault.root))
    except VaultError:
        unmerged = set()
    marked = set()
    for path in sorted(vault.path("topics").glob("*.md")) if vault.path("topics").is_dir() else []:
        rel = vault.rel(path)
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for n, line in enumerate(lines, 1):
            if line.startswith("<<<<<<< "):
                marked.add(rel)
                report.add(rel, n, "unresolved merge conflict: keep the right lines between <<<<<<< and >>>>>>>, "
                                   f"delete the markers, then `git add {rel}` and `git commit`")
    for rel in sorted(unmerged - marked):
        report.add(rel, None, f"unresolved merge conflict (git lists it as unmerged); fix it, then `git add {rel}` "
                              "and `git commit`")


def _check_config(vault: Vault, report: Report) -> None:
    report.checked["config"] += 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConfigWarning)
        try:
            load_config(vault.root)
        except VaultError as exc:
            report.add_error(exc, "vault.yaml")
    for w in caught:
        text = str(w.message)
        where, _, msg = text.partition(": ")
        path, _, line = where.rpartition(":")
        report.add("vault.yaml", int(line) if line.isdigit() else None, msg + "; fix the spelling or delete it")


def _check_topics(vault: Vault, report: Report) -> tuple[list[Topic], set[str]]:
    """The topics that parse, and the ids and slugs of those that do not (they exist, broken: a
    link to one is not a missing link, and the file's own problem is reported already)."""
    topics: list[Topic] = []
    unreadable: set[str] = set()
    store = vault.topics
    for path in store.paths():
        report.checked["topics"] += 1
        try:
            topic = store.load(path)
        except VaultError as exc:
            report.add_error(exc, store.rel(path))
            unreadable.add(path.stem)
            try:
                unreadable |= set(re.findall(r"(?m)^id:\s*['\"]?([\w-]+)", path.read_text(errors="replace")))
            except OSError:
                pass
            continue
        topics.append(topic)
        report.problems.extend(topic.problems())
    by_id: dict[str, list[Topic]] = defaultdict(list)
    for topic in topics:
        by_id[topic.id].append(topic)
    for topic_id, same in by_id.items():
        if len(same) > 1:
            others = ", ".join(t.rel for t in same)
            for topic in same:
                report.add(topic.rel, _key_line(topic, "id"),
                           f"id {topic_id} is used by {len(same)} files ({others}); give all but one a new uuid")
    return topics, unreadable


def _check_links(vault: Vault, topics: list[Topic], unreadable: set[str], report: Report) -> None:
    ids = {t.id for t in topics} | {t.slug for t in topics} | unreadable
    for topic in topics:
        for edge in topic.related:
            if edge["id"] not in ids:
                report.add(topic.rel, _key_line(topic, "related"),
                           f"related topic {edge['id']} does not exist; remove the edge or restore that topic")
        for item in topic.items():
            for cite in item.citations:
                if cite.commit:
                    _check_pinned(vault, topic, item.line, cite, report)
                elif not vault.path(cite.file).is_file():
                    report.add(topic.rel, item.line, f"cites {cite.file}, which does not exist; fix the link")


def _check_wikilinks(vault: Vault, topics: list[Topic], unreadable: set[str], report: Report) -> None:
    """A `[[link]]` in a topic body should name a topic (by file name, name or alias), or at least
    a note Obsidian would open (any `<target>.md` in the vault); otherwise it leads nowhere."""
    from sheriff_vault.store.links import Resolver

    resolver = Resolver(topics)
    broken = {stem.lower() for stem in unreadable}
    notes: set[str] | None = None
    for topic in topics:
        for link in topic.wikilinks():
            if not link.to_note or resolver.resolve(link) is not None or link.stem in broken:
                continue
            if notes is None:
                notes = {p.stem.lower() for p in vault.root.rglob("*.md")
                         if not {".git", ".vault"} & set(p.relative_to(vault.root).parts)}
            if link.stem in notes:
                continue
            report.add(topic.rel, link.line,
                       f"[[{link.target}]] names no topic (no topics/{link.target}.md, and no topic has that name "
                       f"or alias); fix the link, or make the topic with `vault topic new \"{link.target}\"`")


def _check_pinned(vault: Vault, topic: Topic, line: int, cite: Citation, report: Report) -> None:
    """A pinned citation must name a version git has (a shallow clone may lack it)."""
    from sheriff_vault.store.citations import read_text

    try:
        read_text(vault, cite)
    except VaultError as exc:
        report.add(topic.rel, line, f"cites {cite.ref}: {exc.message}; {exc.hint or 'fix the link'}")


def _check_wake(vault: Vault, report: Report) -> None:
    for path in sorted(vault.path("wake").rglob("*.json")):
        rel = vault.rel(path)
        report.checked["wake"] += 1
        try:
            data = json.loads(read_text_limited(path, MAX_JSON_BYTES))
        except VaultError as exc:
            report.add_error(exc, rel)
            continue
        except json.JSONDecodeError as exc:
            report.add(rel, exc.lineno, f"not valid JSON: {exc.msg}; restore it with `git checkout -- {rel}`")
            continue
        if not isinstance(data, dict):
            report.add(rel, 1, "a wake packet must be a JSON object")
            continue
        missing = [k for k in WAKE_KEYS if k not in data]
        if missing:
            report.add(rel, 1, f"wake packet lacks {', '.join(missing)}; restore it from git")


def _check_unsafe(vault: Vault, topics: list[Topic], report: Report) -> None:
    """Hand-edited topics can carry planted instructions or secrets too; recall would paste them."""
    from sheriff_vault.store.guard import scan

    for topic in topics:
        text = topic.render()
        for hit in scan(text):
            line = text.count("\n", 0, hit.start) + 1
            report.add(topic.rel, line, f"contains {hit.kind} ({hit.description}): {hit.excerpt!r}; remove it")


def _key_line(topic: Topic, key: str) -> int | None:
    try:
        return topic.meta.lc.key(key)[0] + 2
    except (AttributeError, KeyError):
        return None


def describe(report: Report) -> str:
    counts = ", ".join(f"{n} {kind}" for kind, n in sorted(report.checked.items()))
    if report.ok:
        return f"ok: checked {counts}"
    files = len({p.path for p in report.problems})
    return f"{len(report.problems)} problem(s) in {files} file(s); checked {counts}"
