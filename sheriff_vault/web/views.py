"""What each page of the memory browser shows, as plain data: every value comes from the library
functions the CLI uses (topic store, timetravel, sleeps, review, recall, doctor), never from
reading vault files on the side. The web layer (app.py) only turns these into HTML."""
from __future__ import annotations

import datetime as dt
import json
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sheriff_vault.errors import CitationError, TopicFormatError, TopicNotFound, VaultError
from sheriff_vault.store.catalog import TopicCatalog, TopicSummary

if TYPE_CHECKING:
    from sheriff_vault.store.topics import Topic
    from sheriff_vault.store.vault import Vault

SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$")
SHA = re.compile(r"^[0-9a-f]{4,40}$")
STAMP = re.compile(r"^\d{8}T\d{6}Z(?:-\d{1,4})?$")
SORTS = ("recent", "size", "stale", "name")
PAGE_SIZE = 100


def check_slug(slug: str) -> str:
    """A topic id from a URL: a file name in topics/, nothing that could leave it."""
    if not SLUG.match(slug) or ".." in slug:
        raise TopicNotFound(f"{slug!r} is not a topic name", hint="topic pages are /topics/<slug>")
    return slug


def load_topic(vault: Vault, slug: str) -> Topic:
    path = vault.topics.dir / f"{check_slug(slug)}.md"
    if not path.is_file():
        raise TopicNotFound(f"no topic topics/{slug}.md", hint="the topics page lists them all")
    return vault.topics.load(path)


def topic_text(vault: Vault, slug: str) -> str:
    """A topic file's text even when it does not parse, so the edit form can fix it."""
    path = vault.topics.dir / f"{check_slug(slug)}.md"
    if not path.is_file():
        raise TopicNotFound(f"no topic topics/{slug}.md", hint="the topics page lists them all")
    from sheriff_vault.store.fsutil import read_text_limited
    from sheriff_vault.store.topics import MAX_TOPIC_BYTES

    return read_text_limited(path, MAX_TOPIC_BYTES, TopicFormatError, display=f"topics/{slug}.md")


# -- topics ------------------------------------------------------------------------------------
@dataclass
class TopicsPage:
    rows: list[TopicSummary]
    total: int
    matched: int
    page: int
    pages: int
    query: str
    sort: str
    stale_days: int
    errors: int


def topics_page(catalog: TopicCatalog, *, query: str = "", sort: str = "recent", stale_days: int = 30,
                page: int = 1, now: dt.datetime | None = None) -> TopicsPage:
    """Topics filtered by words in their name, slug, one-liner or aliases, then sorted: recent (newest
    update first), size (most facts), stale (no update in `stale_days`, oldest first), name."""
    sort = sort if sort in SORTS else "recent"
    every = catalog.summaries()
    words = query.lower().split()
    rows = [s for s in every if all(w in s.search_text for w in words)] if words else list(every)
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    if sort == "recent":
        rows.sort(key=lambda s: (s.last_seen or epoch, s.slug), reverse=True)
    elif sort == "size":
        rows.sort(key=lambda s: (-s.facts, -s.size, s.slug))
    elif sort == "stale":
        cutoff = (now or dt.datetime.now(dt.UTC)) - dt.timedelta(days=stale_days)
        rows = [s for s in rows if not s.evergreen and (s.last_seen is None or s.last_seen < cutoff)]
        rows.sort(key=lambda s: (s.last_seen or epoch, s.slug))
    else:
        rows.sort(key=lambda s: (s.name.lower(), s.slug))
    pages = max(1, math.ceil(len(rows) / PAGE_SIZE))
    page = min(max(1, page), pages)
    shown = rows[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
    return TopicsPage(shown, len(every), len(rows), page, pages, query, sort, stale_days,
                      sum(1 for s in every if s.error))


# -- one topic ---------------------------------------------------------------------------------
@dataclass
class Neighbour:
    slug: str
    name: str
    edge: str  # the edge type, or "links here" for an incoming edge
    weight: float
    outgoing: bool


def neighbours(topic: Topic, catalog: TopicCatalog) -> list[Neighbour]:
    """The topics one `related` edge away, either way."""
    every = catalog.summaries()
    by_id = {s.id: s for s in every if s.id}
    found: dict[str, Neighbour] = {}
    for edge in topic.related:
        other = by_id.get(edge["id"])
        if other is not None and other.slug != topic.slug:
            found[other.slug] = Neighbour(other.slug, other.name, edge["type"], edge["weight"], True)
    for s in every:
        if topic.id in s.related and s.slug != topic.slug and s.slug not in found:
            found[s.slug] = Neighbour(s.slug, s.name, "links here", 1.0, False)
    return sorted(found.values(), key=lambda n: (-n.weight, n.name.lower()))[:24]


def graph(name: str, around: list[Neighbour]) -> dict[str, Any]:
    """Positions for a small SVG: the topic in the middle, its neighbours on a circle."""
    width, height, radius = 520, 300, 115
    nodes = []
    for i, n in enumerate(around):
        angle = 2 * math.pi * i / max(1, len(around)) - math.pi / 2
        nodes.append({"x": round(width / 2 + radius * 1.6 * math.cos(angle), 1),
                      "y": round(height / 2 + radius * math.sin(angle), 1), "n": n})
    return {"width": width, "height": height, "cx": width / 2, "cy": height / 2, "name": name, "nodes": nodes}


def topic_history(vault: Vault, topic: Topic, limit: int = 50) -> list[dict[str, Any]]:
    from sheriff_vault.retrieval.timetravel import history

    try:
        return [e.to_json() for e in history(vault, topic.slug, limit=limit)]  # by slug: found without a scan
    except VaultError:
        return []


def commit_diff(vault: Vault, sha: str, path: str | None = None) -> tuple[dict[str, Any], str]:
    """One commit (subject, date, body) and its diff, of one file or all of it."""
    from sheriff_vault.store import gitlog

    if not SHA.match(sha.lower()):
        raise VaultError(f"{sha!r} is not a commit id", hint="commit ids are hexadecimal")
    if path is not None:
        path = check_path(path)
    code, out, err = gitlog.try_run(vault.root, "show", "-M", "--no-color", "--format=%H%x1f%ct%x1f%s%x1f%b%x1e",
                                    sha, *(["--", path] if path else []))
    if code != 0:
        raise VaultError(f"no commit {sha} in this vault", hint="the history lists the commits that exist")
    head, _, diff = out.partition("\x1e")
    full, ts, subject, body = (head.strip("\n").split("\x1f") + ["", "", "", ""])[:4]
    at = dt.datetime.fromtimestamp(int(ts), dt.UTC).strftime("%Y-%m-%d %H:%M UTC") if ts.isdigit() else ""
    return {"sha": full, "at": at, "subject": subject, "body": body.strip()}, diff.lstrip("\n")


def check_path(path: str) -> str:
    """A vault-relative file path from a URL: inside the vault, no `..`, no absolute path."""
    import posixpath

    norm = posixpath.normpath(path)
    if path.startswith("/") or norm.startswith("..") or "/../" in f"/{path}/" or "\\" in path or "\0" in path:
        raise VaultError(f"{path!r} is not a file of this vault")
    return norm


def citation(vault: Vault, ref: str) -> dict[str, Any]:
    """The turns a citation names (`vault cite`), refusing anything outside conversations/."""
    from sheriff_vault.store.citations import parse_ref, read_cited

    cite = parse_ref(ref)
    norm = check_path(cite.file)
    if not norm.startswith("conversations/") or norm != cite.file:
        raise CitationError(f"{ref!r} does not name an archived conversation")
    cited = read_cited(vault, cite)
    return {"ref": cited.citation.ref, "file": cited.citation.file, "version": cited.version,
            "turns": [{"id": t.id, "role": t.role, "name": t.name, "content": t.content,
                       "at": t.at.strftime("%Y-%m-%d %H:%M") if t.at else ""} for t in cited.turns],
            "missing": cited.missing}


# -- sleeps ------------------------------------------------------------------------------------
def stamp_of(tag: str) -> str:
    return tag.removeprefix("sleep/")


def sleeps(vault: Vault, limit: int = 200) -> list[dict[str, Any]]:
    """The sleep tags, newest first, each with counts of what it learned."""
    from sheriff_vault.store.sleeps import list_sleeps

    out = []
    for entry in list_sleeps(vault, limit):
        data = entry.to_json()
        data["stamp"] = stamp_of(entry.tag)
        data["counts"] = summary_counts(entry.topics)
        out.append(data)
    return out


def summary_counts(topics: list[dict]) -> dict[str, int]:
    learned = [line for t in topics for line in t.get("learned", [])]
    return {"created": sum(1 for t in topics if t.get("change") == "new"),
            "updated": sum(1 for t in topics if t.get("change") == "updated"),
            "facts": sum(1 for x in learned if x.startswith("+ fact")),
            "superseded": sum(1 for x in learned if x.startswith("superseded")),
            "loops": sum(1 for x in learned if x.startswith(("+ open loop", "closed loop"))),
            "events": sum(1 for x in learned if x.startswith("+ event"))}


def sleep_detail(vault: Vault, stamp: str) -> dict[str, Any]:
    """One sleep: its summary, its full diff and the wake packet it wrote."""
    from sheriff_vault.store import gitlog

    if not STAMP.match(stamp):
        raise VaultError(f"{stamp!r} is not a sleep", hint="the sleeps page lists them")
    entry = next((s for s in sleeps(vault, limit=100_000) if s["stamp"] == stamp), None)
    if entry is None:
        raise VaultError(f"no sleep sleep/{stamp} on this branch", hint="the sleeps page lists them")
    info, diff = commit_diff(vault, entry["commit"])
    packet = None
    for rel in gitlog.changed_paths(vault.root, entry["commit"]):
        if rel.startswith("wake/") and rel.endswith(".json"):
            text = gitlog.show_file(vault.root, entry["commit"], rel)
            try:
                packet = {"path": rel, "json": json.dumps(json.loads(text or "{}"), indent=2, ensure_ascii=False)}
            except ValueError:
                packet = {"path": rel, "json": text or ""}
    return entry | {"info": info, "diff": diff, "packet": packet}


def reviews(vault: Vault) -> list[dict[str, Any]]:
    """Sleeps made with `--review` that wait for a decision, each with its topics."""
    from sheriff_vault.daemon.review import pending, show_review

    out = []
    for branch in pending(vault):
        try:
            out.append(show_review(vault, branch).to_json() | {"stamp": stamp_of(branch)})
        except VaultError as exc:
            out.append({"branch": branch, "stamp": stamp_of(branch), "error": str(exc), "topics": []})
    return out


def review_detail(vault: Vault, stamp: str) -> dict[str, Any]:
    from sheriff_vault.daemon.review import show_review
    from sheriff_vault.store import gitlog

    if not STAMP.match(stamp):
        raise VaultError(f"{stamp!r} is not a sleep", hint="the sleeps page lists those waiting for review")
    shown = show_review(vault, f"sleep/{stamp}")
    data = shown.to_json() | {"stamp": stamp}
    for t in data["topics"]:
        code, out, _ = gitlog.try_run(vault.root, "diff", "--no-color", shown.base, shown.commit, "--", t["path"])
        t["diff"] = out if code == 0 else ""
        t["slug"] = t["path"].removeprefix("topics/").removesuffix(".md")
    return data


def decide_review(vault: Vault, stamp: str, choices: dict[str, str]) -> Any:
    """Accept some topics of a sleep under review and reject the rest, with `vault review`'s own
    function: all accepted is `--accept`, none is `--reject`, a part is `--accept THOSE`."""
    from sheriff_vault.daemon.review import decide, show_review

    if not STAMP.match(stamp):
        raise VaultError(f"{stamp!r} is not a sleep")
    branch = f"sleep/{stamp}"
    topics = [t.path for t in show_review(vault, branch).topics]
    unknown = set(choices) - set(topics)
    if unknown:
        raise VaultError(f"{sorted(unknown)[0]} is not a topic of {branch}")
    undecided = [p for p in topics if choices.get(p) not in ("accept", "reject")]
    if undecided:
        raise VaultError(f"choose accept or reject for {', '.join(undecided)}", hint="nothing was changed")
    accepted = tuple(p for p in topics if choices[p] == "accept")
    if len(accepted) == len(topics):
        return decide(vault, accept=True, branch=branch)
    if not accepted:
        return decide(vault, accept=False, branch=branch)
    return decide(vault, accept=True, refs=accepted, branch=branch)


# -- recall ------------------------------------------------------------------------------------
def recall(vault: Vault, query: str, *, now_text: str = "", budget: int | None = None) -> dict[str, Any]:
    """What an agent would receive for `query` (the daemon's answer when one runs), with --explain."""
    from sheriff_vault.daemon.client import recall as recall_reply
    from sheriff_vault.timewin import parse_instant

    now = parse_instant(now_text, vault.config.timezone) if now_text.strip() else None
    reply = recall_reply(vault, query, use_daemon=True, autostart=False, budget=budget, now=now, explain=True)
    data = reply.json
    facts = []
    for t in data.get("topics", []):
        for f in t.get("facts", []):
            facts.append({"topic": t["name"], "path": t["path"], **f})
    facts.sort(key=lambda f: -float(f.get("score") or 0))
    return {"markdown": reply.markdown, "explain": reply.explain, "via": reply.via, "json": data, "facts": facts,
            "budget": budget or vault.config.retrieval.budget}


# -- health ------------------------------------------------------------------------------------
def health(vault: Vault) -> dict[str, Any]:
    """`vault doctor`'s findings, how fresh the index is (its commit against HEAD) and the quarantine."""
    from sheriff_vault.daemon.client import status
    from sheriff_vault.store import gitlog
    from sheriff_vault.store.doctor import check_vault, describe
    from sheriff_vault.store.quarantine import list_quarantined

    report = check_vault(vault)
    problems = []
    for p in report.problems:
        slug = p.path.removeprefix("topics/").removesuffix(".md") if p.path.startswith("topics/") else None
        problems.append({"path": p.path, "line": p.line, "message": p.message, "slug": slug})
    try:
        index: dict[str, Any] = status(vault)
        index_error = ""
    except VaultError as exc:
        index, index_error = {}, str(exc)
    head = gitlog.head(vault.root)
    return {"problems": problems, "summary": describe(report), "ok": report.ok, "index": index,
            "index_error": index_error, "head": head,
            "at_head": bool(head and index.get("head") == head), "quarantined": list_quarantined(vault)}
