"""Time travel through git: a topic's history, what memory learned in a window, recall as of then.

Every sleep and edit is a commit dated by its --now, so git history is the memory's timeline. Old
versions are read from git objects (a throwaway index file, never the working tree or .git/index).
"""
from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import time
import warnings
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from sheriff_vault import timewin
from sheriff_vault.config import CONFIG_NAME, Config, ConfigWarning, load_config
from sheriff_vault.errors import ConfigError, TimePhraseError, TopicNotFound, VaultError
from sheriff_vault.retrieval.changes import changes_between, item_json, line_diff
from sheriff_vault.retrieval.reply import RecallReply, check_budget
from sheriff_vault.store import gitlog, mdfile
from sheriff_vault.store.items import Item
from sheriff_vault.store.locks import FileLock
from sheriff_vault.store.packets import latest_slept_at
from sheriff_vault.store.sleeps import commit_range, sleep_times
from sheriff_vault.store.topics import Topic, slugify
from sheriff_vault.store.vault import Vault

ASOF_KEEP = 5
USED_STAMP = ".last-used"
ASOF_PATHS = ("vault.yaml", "topics", "events", "skills", "wake", "conversations")
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_SEP, _REC = "\x1f", "\x1e"
_FMT = f"--format={_REC}%H{_SEP}%ct{_SEP}%s"


# -- comparing two versions of one topic file ---------------------------------------------------
@dataclass
class _State:
    """A topic file's items and plain frontmatter at one commit; empty when absent or unreadable."""

    items: list[Item] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    error: str = ""


def _state(text: str | None, path: str) -> _State:
    if text is None:
        return _State()
    try:
        topic = Topic.parse(text, Path(path), path)
    except VaultError as exc:
        return _State(error=str(exc))
    return _State(topic.items(), mdfile.to_plain(topic.meta))


def diff_items(old: list[Item], new: list[Item]) -> dict[str, list[dict]]:
    """Items added, removed and changed in place (the lines), and `changes`: what they mean
    (retrieval/changes.py: a supersession as one change, with both values)."""
    added, removed, changed = line_diff(old, new)
    return {"added": [item_json(i) for i in added], "removed": [item_json(i) for i in removed],
            "changed": [{"kind": b.kind, "before": item_json(b), "after": item_json(a)} for b, a in changed],
            "changes": changes_between(old, new)}


def _compare(before: _State, after: _State) -> dict[str, Any]:
    keys = set(before.meta) | set(after.meta)
    meta = sorted(k for k in keys if before.meta.get(k) != after.meta.get(k)) if before.meta and after.meta else []
    return diff_items(before.items, after.items) | {"frontmatter": meta, "error": after.error or before.error}


def _status(before: str | None, after: str | None, old: str, new: str) -> str:
    if before is None:
        return "created"
    if after is None:
        return "deleted"
    return "renamed" if old != new else "modified"


# -- history of one topic -----------------------------------------------------------------------
@dataclass
class HistoryEntry:
    """One commit that touched a topic file, and what it did to the file's items and frontmatter."""

    sha: str
    date: str
    subject: str
    path: str
    status: str
    added: list[dict]
    removed: list[dict]
    changed: list[dict]
    frontmatter: list[str]
    changes: list[dict] = field(default_factory=list)  # in meaning: retrieval/changes.py
    previous_path: str | None = None
    error: str = ""

    def to_json(self) -> dict:
        return asdict(self)


def history(vault: Vault, ref: str, *, limit: int | None = None,
            now: dt.datetime | None = None) -> list[HistoryEntry]:
    """Every commit that changed the topic's file (following renames), newest first; with `now`,
    only those dated by then (the history as it was at that time)."""
    root = vault.root
    path = topic_path(vault, ref)
    entries = []
    for info, status, old, new in _follow(root, path, limit, now):
        old_text = gitlog.show_file(root, f"{info.sha}~1", old)
        new_text = None if status == "D" else gitlog.show_file(root, info.sha, new)
        entries.append(HistoryEntry(info.sha, timewin.to_iso(info.at), info.subject, new,
                                    _status(old_text, new_text, old, new), previous_path=old if old != new else None,
                                    **_compare(_state(old_text, old), _state(new_text, new))))
    return entries


def topic_path(vault: Vault, ref: str) -> str:
    """The topic's file, now or (for a deleted topic) in history: by id, slug, name, alias or path."""
    ref = ref.strip()
    try:
        return vault.topics.get(ref).rel
    except TopicNotFound:
        if not ref or not gitlog.head(vault.root):
            raise
    given = [ref] if ref.startswith("topics/") and ref.endswith(".md") else []
    for path in [*given, f"topics/{ref}.md", f"topics/{slugify(ref)}.md"]:
        if gitlog.log(vault.root, path, limit=1):
            return path
    found = _deleted_topic(vault.root, ref)
    if found:
        return found
    raise TopicNotFound(f"no topic matches {ref!r}, now or in the vault's history",
                        hint="`vault topic list` shows current topics; a deleted one is found by its slug or name")


def _deleted_topic(root: Path, ref: str) -> str | None:
    out = gitlog._run(root, "log", "--diff-filter=D", "--name-only", f"--format={_REC}%H", "HEAD", "--", "topics/")
    low = ref.lower()
    for rec in out.split(_REC):
        sha, *paths = [line for line in rec.splitlines() if line.strip()] or [""]
        for path in paths:
            meta = _state(gitlog.show_file(root, f"{sha}~1", path), path).meta
            aliases = [str(a).lower() for a in meta.get("aliases") or []]
            if ref == meta.get("id") or str(meta.get("name", "")).lower() == low or low in aliases:
                return path
    return None


def _follow(root: Path, path: str, limit: int | None, now: dt.datetime | None = None,
            start: str = "HEAD") -> list[tuple[gitlog.CommitInfo, str, str, str]]:
    """(commit, status letter, path before, path after) for each commit touching path, across renames:
    the ones git finds, and a sleep's, which says in its commit what it renamed (git pairs two files
    only when they are alike enough, and a sleep that renames a topic has often doubled it)."""
    if not gitlog.head(root):
        return []
    args = ["log", "--follow", "-M", "--name-status", _FMT, *_until(now), *([f"-n{limit}"] if limit else []),
            start, "--", path]
    rows, current = [], path
    for rec in gitlog._run(root, *args).split(_REC):
        lines = [line for line in rec.splitlines() if line.strip()]
        if not lines:
            continue
        info, status, old, new = _info(lines[0]), "M", current, current
        if len(lines) > 1:
            parts = lines[1].split("\t")
            status, new = parts[0][0], parts[-1]
            old = parts[1] if status in "RC" else new
        rows.append((info, status, old, new))
        current = old
    made_by_sleep = bool(rows) and rows[-1][1] == "A" and rows[-1][0].subject.startswith("sleep:")
    if made_by_sleep and (limit is None or len(rows) < limit):
        info, _, _, added = rows[-1]
        before = _renamed_by_sleep(root, info.sha, added)
        if before:
            rows[-1] = (info, "R", before, added)
            rows += _follow(root, before, limit - len(rows) if limit else None, now, f"{info.sha}~1")
    return rows


def _renamed_by_sleep(root: Path, sha: str, path: str) -> str | None:
    """The path a sleep's commit `sha` moved the topic now at `path` from, as its message says
    (compaction/merge.py Change.summary: "renamed from: Old name (topics/old.md)")."""
    body = gitlog._run(root, "log", "-1", "--format=%b", sha)
    m = re.search(rf"^\S+ {re.escape(path)} \(.*\n\s+renamed from: .* \((topics/[^()\n]+\.md)\)$", body, re.M)
    return m.group(1) if m else None


def _until(now: dt.datetime | None) -> list[str]:
    """git log's filter for commits dated at or before `now` (a commit is dated by its sleep's --now)."""
    return [f"--until={now.astimezone(dt.UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}"] if now else []


# -- the whole vault's timeline --------------------------------------------------------------------
@dataclass
class TimelineEntry:
    """One commit that changed topics: when, what kind, and per topic what it learned or dropped."""

    sha: str
    date: str
    subject: str
    kind: str  # sleep | edit (a topic tool or `vault sync`) | merge | person
    topics: list[dict]

    def to_json(self) -> dict:
        return asdict(self)


def timeline(vault: Vault, *, limit: int | None = 20, now: dt.datetime | None = None) -> list[TimelineEntry]:
    """The commits that changed topics/, newest first (with `now`, those dated by then), each with
    the topics it touched and what it added, removed or changed in each (read from the files
    before and after)."""
    root = vault.root
    if not gitlog.head(root):
        return []
    args = ["log", "-M", "-m", "--first-parent", "--name-status", _FMT + f"{_SEP}%b{_SEP}%P", *_until(now),
            *([f"-n{limit}"] if limit else []), "HEAD", "--", "topics/"]
    out = []
    for rec in gitlog._run(root, *args).split(_REC):
        if not rec.strip():
            continue
        head, _, files = rec.rpartition(_SEP)
        parents, _, names = files.partition("\n")
        sha, ts, subject, body = (head.split(_SEP) + ["", "", "", ""])[:4]
        topics = []
        for line in names.splitlines():
            parts = line.split("\t")
            if len(parts) < 2 or not parts[-1].endswith(".md"):
                continue
            status, new = parts[0][:1], parts[-1]
            old = parts[1] if status in "RC" else new
            before = None if status == "A" else gitlog.show_file(root, f"{sha}~1", old)
            after = None if status == "D" else gitlog.show_file(root, sha, new)
            b, a = _state(before, old), _state(after, new)
            change = _compare(b, a)
            meta = a.meta or b.meta
            topics.append({"path": new, "name": str(meta.get("name") or ""),
                           "status": _status(before, after, old, new),
                           "added": [i["text"] for i in change["added"]],
                           "removed": [i["text"] for i in change["removed"]],
                           "changed": [c["after"]["text"] for c in change["changed"]],
                           "changes": change["changes"]})
        at = dt.datetime.fromtimestamp(int(ts), dt.UTC) if ts.strip().isdigit() else None
        kind = ("merge" if len(parents.split()) > 1 else "sleep" if "Sleep-Id: " in body
                else "edit" if "Edit-Id: " in body or subject.startswith(("topic: ", "edit: ")) else "person")
        if topics:
            out.append(TimelineEntry(sha.strip(_REC + "\n"), timewin.to_iso(at) if at else "", subject, kind, topics))
    return out


# -- what memory learned in a window --------------------------------------------------------------
def time_window(vault: Vault, phrase: str, now: dt.datetime | None = None, until: str | None = None) -> timewin.Window:
    """The UTC window of a phrase (vault timezone, last sleep); `until` moves its end to that phrase's end."""
    tz, now = vault.config.timezone, now or timewin.utcnow()
    slept = latest_slept_at(vault)
    sleeps = sleep_times(vault, now) if timewin.mentions_sleep(f"{phrase} {until or ''}") else []
    win = timewin.resolve(phrase, now, tz, slept_at=slept, sleeps=sleeps)
    if until is None:
        return win
    end = timewin.resolve(until, now, tz, slept_at=slept, sleeps=sleeps).end or now
    if win.start and end <= win.start:
        raise TimePhraseError(f"--until {until!r} ends before --since {phrase!r} starts",
                              hint="give an --until that is later than --since")
    text = f"{phrase} until {until}"
    return timewin.Window(win.start, end, text, (0, len(text)), "range", win.relative, tz)


def diff_since(vault: Vault, phrase: str, now: dt.datetime | None = None, *, until: str | None = None,
               open_end: bool = False) -> dict:
    """Facts added and removed per topic by the commits dated inside the phrase's window; a phrase
    about sleeps ("since two sleeps ago") takes the commits between those sleeps, as `vault time`
    names them, so a sleep's own commit is in or out by the same rule there and here. With
    `open_end` and no `until`, the window runs from the phrase's start on: "2025-11-01" is then
    everything since that day, not that one day (the MCP `diff` tool's `since`)."""
    root, win = vault.root, time_window(vault, phrase, now, until)
    if open_end and until is None and win.start and win.end and not timewin.mentions_sleep(phrase):
        text = f"since {phrase}" if not phrase.lower().startswith("since") else phrase
        win = timewin.Window(win.start, None, text, (0, len(text)), "range", win.relative, win.tz)
    span = commit_range(vault, win, now or timewin.utcnow()) \
        if timewin.mentions_sleep(f"{phrase} {until or ''}") else None
    if span is not None:
        commits = gitlog.log_range(root, span.base, span.tip) if span.tip and span.count else []
    else:
        commits = [c for c in gitlog.log(root, since=win.start, until=win.end) if win.contains(c.at)]
    out: dict[str, Any] = {"window": win.to_json(), "commits": [], "topics": [], "created": [], "deleted": []}
    if not commits:
        return out
    last = commits[0].sha
    base = (span.base if span is not None else gitlog.resolve(root, f"{commits[-1].sha}~1")) or EMPTY_TREE
    for c in commits:
        touched = [p for p in gitlog.changed_paths(root, c.sha) if p.startswith("topics/") and p.endswith(".md")]
        out["commits"].append(c.to_json() | {"topics": touched})
    for line in gitlog._run(root, "diff", "--name-status", "-M", base, last, "--", "topics/").splitlines():
        parts = line.split("\t")
        status, new = parts[0][:1], parts[-1]
        old = parts[1] if status in "RC" else new
        if not new.endswith(".md"):
            continue
        old_text = None if status == "A" else gitlog.show_file(root, base, old)
        new_text = None if status == "D" else gitlog.show_file(root, last, new)
        before, after = _state(old_text, old), _state(new_text, new)
        meta = after.meta or before.meta
        entry = {"path": new, "id": str(meta.get("id") or ""), "name": str(meta.get("name") or ""),
                 "status": _status(old_text, new_text, old, new),
                 "previous_path": old if old != new else None, **_compare(before, after)}
        out["topics"].append(entry)
        if entry["status"] in ("created", "deleted"):
            out[entry["status"]].append({k: entry[k] for k in ("path", "id", "name")})
    out["topics"].sort(key=lambda t: (t["name"].lower(), t["path"]))
    return out


# -- recall as of a past commit -------------------------------------------------------------------
def as_of_commit(vault: Vault, when: str, now: dt.datetime | None = None) -> gitlog.CommitInfo:
    """A commit ref as given, else the last commit at or before the moment a date or phrase names."""
    root, text = vault.root, when.strip()
    if not gitlog.head(root):
        raise VaultError("the vault has no commits yet, so it has no past", hint="run `vault sleep` first")
    if not text:
        raise VaultError("--as-of is empty", hint="give a commit (abc1234, HEAD~3), a date or a phrase (last week)")
    sha = None if text.startswith("-") else gitlog.resolve(root, text)
    if sha is None:
        moment = _moment(vault, text, now)
        sha = gitlog.commit_at_or_before(root, moment)
        if sha is None:
            first = min(int(t) for t in gitlog._run(root, "log", "--format=%ct", "HEAD").split())
            start = timewin.to_iso(dt.datetime.fromtimestamp(first, dt.UTC))
            raise VaultError(f"the vault has no commit at or before {timewin.to_iso(moment)} ({text!r})",
                             hint=f"its history starts at {start}; pick a later time")
    return _info(gitlog._run(root, "log", "-1", _FMT, sha, "--"))


def _moment(vault: Vault, text: str, now: dt.datetime | None) -> dt.datetime:
    """The END of the phrase's window ("2023-05-10" is the vault as it was when that day ended)."""
    now = now or timewin.utcnow()
    try:
        sleeps = sleep_times(vault, now) if timewin.mentions_sleep(text) else []
        win = timewin.resolve(text, now, vault.config.timezone, slept_at=latest_slept_at(vault), sleeps=sleeps)
    except TimePhraseError as exc:
        raise TimePhraseError(f"{text!r} is neither a commit of this vault nor a time: {exc.message}",
                              hint=f"give a commit (abc1234, HEAD~3, a branch or tag) or a time; {exc.hint}") from None
    if win.end is None:
        return now
    if win.granularity == "instant" and win.start is not None:
        return win.start
    return win.end - dt.timedelta(seconds=1)


def _info(line: str) -> gitlog.CommitInfo:
    sha, ts, subject = line.strip(_REC + "\n").split(_SEP, 2)
    return gitlog.CommitInfo(sha, dt.datetime.fromtimestamp(int(ts), dt.UTC), subject)


def materialise(vault: Vault, sha: str) -> tuple[Path, bool]:
    """The vault's files at `sha` in .vault/asof/<sha>/ (built once, then reused) and whether it was reused.

    Built in a temp folder and renamed into place, so a crash never leaves a half folder; only the
    ASOF_KEEP most recently used folders are kept.
    """
    base = vault.cache / "asof"
    target = base / sha
    with FileLock(base / ".lock", what="as-of cache", timeout=120):
        reused = target.is_dir()
        if not reused:
            _export(vault.root, sha, target)
        stamp = target / USED_STAMP
        stamp.touch()
        now = time.time_ns()
        os.utime(stamp, ns=(now, now))
        _prune(base, target)
    return target, reused


def _export(root: Path, sha: str, target: Path) -> None:
    tmp = target.parent / f".tmp-{sha}-{os.getpid()}"
    index_file = tmp / ".git-index"
    env = dict(os.environ, GIT_INDEX_FILE=str(index_file))
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        gitlog._run(root, "read-tree", sha, env=env)
        files = [p for p in gitlog._run(root, "ls-files", "-z", "--", *ASOF_PATHS, env=env).split("\0") if p]
        for i in range(0, len(files), 200):
            gitlog._run(root, "checkout-index", "-f", f"--prefix={tmp}/", "--", *files[i:i + 200], env=env)
        index_file.unlink()
        os.rename(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _prune(base: Path, keep: Path) -> None:
    """Drop crash leftovers and all but the most recently used folders (we hold the cache lock)."""
    for leftover in base.glob(".tmp-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    folders = sorted((p for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")),
                     key=lambda p: (p / USED_STAMP).stat().st_mtime_ns if (p / USED_STAMP).exists() else 0,
                     reverse=True)
    for old in folders[ASOF_KEEP:]:
        if old != keep:
            shutil.rmtree(old, ignore_errors=True)


def recall_as_of(vault: Vault, when: str, query: str, *, budget: int | None = None,
                 **recall_kwargs: Any) -> RecallReply:
    """Recall from the vault as it was at `when`; the same reply as daemon.client.recall().

    The old files get their own index but share the live vault's embedding cache, so text that has
    not changed since is never embedded again.
    """
    from sheriff_vault.index.engine import Index
    from sheriff_vault.retrieval.ranking import recall

    budget = check_budget(budget or vault.config.retrieval.budget)
    commit = as_of_commit(vault, when, recall_kwargs.get("now"))
    folder, reused = materialise(vault, commit.sha)
    warnings: list[str] = []
    config, config_from = config_at(vault, folder, commit.sha, warnings)
    past = Vault(folder, _config=config)
    index = Index(past, log=warnings.append, embeddings=vault.cache / "embeddings")
    try:
        result = recall(past, query, index=index, refresh=True, **recall_kwargs)
    finally:
        index.close()
    result.warnings = warnings + result.warnings
    as_of = {"commit": commit.sha, "date": timewin.to_iso(commit.at), "subject": commit.subject, "when": when,
             "reused": reused, "config": config_from}
    reply = result.reply(budget, explain=bool(recall_kwargs.get("explain")), via=f"as-of {commit.sha[:7]}")
    reply.json["as_of"] = as_of
    return reply


def config_at(vault: Vault, folder: Path, sha: str, notes: list[str]) -> tuple[Config, str]:
    """The settings recall as of `sha` ranks with: that commit's vault.yaml (its weights, k, windows,
    time zone), so the past is ranked as it was then. The embedder stays today's: the old files share
    the live vault's embedding cache, and vectors of two models cannot be compared."""
    if not (folder / CONFIG_NAME).is_file():
        return vault.config, "today's vault.yaml (that commit has none)"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConfigWarning)  # a key that was renamed since is no news here
            config = load_config(folder)
    except ConfigError as exc:
        notes.append(f"vault.yaml at {sha[:7]} is unreadable ({exc}); ranked with today's settings")
        return vault.config, "today's vault.yaml (that commit's is unreadable)"
    return replace(config, embedding=vault.config.embedding), f"vault.yaml at {sha[:7]}"
