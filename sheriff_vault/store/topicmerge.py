"""The git merge driver for topic files: two machines that both slept into one topic merge cleanly.

`vault init` registers it for topics/*.md (.gitattributes plus `merge.sheriff-topic.driver` in
.git/config); git calls `vault merge-driver %O %A %B %P`. Frontmatter is merged key by key:
first_seen is the earlier, last_seen the later, touch_count and utility add up what each side
gained since the common ancestor, aliases, skills, artifacts and numbers are unions (a number keeps
every dated value, the newest last, so it is the current one), related links are merged with the
larger weight. Body lines are merged with git's own three-way merge; where both sides changed the
same place, item lines (facts, open loops, events) are merged as a set: the same text with the
same citation is one item, a citation or a ticked box added on either side is kept. A line that
was changed two ways (by hand) is a real conflict: the file keeps git's markers, the driver exits
1, and `vault doctor` points at it.
"""
from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sheriff_vault.errors import VaultError
from sheriff_vault.store import gitlog, mdfile
from sheriff_vault.store.fsutil import atomic_write
from sheriff_vault.store.items import Body, Item, clean_text, parse_item
from sheriff_vault.store.topics import Topic, edge_text, iso, number_text, parse_edge, parse_number, parse_time

DRIVER = "sheriff-topic"
ATTRIBUTES_LINE = f"topics/*.md merge={DRIVER}"
DEFAULT_DECAY = 0.98
_WIDE = 31  # marker size for the inner body merge, so a person's text never looks like a marker
_SETS = ("aliases", "skills", "artifacts")


@dataclass
class MergeResult:
    """The merged text and how many places are left for a person (0: merged cleanly)."""

    text: str
    conflicts: int

    @property
    def clean(self) -> bool:
        return self.conflicts == 0


class _Conflict:
    """A value both sides changed differently: the ours-variant of the file takes `ours`, the other `theirs`."""

    def __init__(self, ours: Any, theirs: Any) -> None:
        self.ours, self.theirs = ours, theirs


def merge_texts(base: str, ours: str, theirs: str, *, path: str = "topic.md", decay: float = DEFAULT_DECAY,
                marker_size: int = 7) -> MergeResult:
    """Merge three versions of a topic file. Files that are not readable topics get git's plain merge."""
    try:
        o, t = Topic.parse(ours, Path(path), path), Topic.parse(theirs, Path(path), path)
        b = Topic.parse(base, Path(path), path) if base.strip() else None
    except VaultError:
        return _plain(base, ours, theirs, path, marker_size)
    meta = _merge_meta(b, o, t, decay)
    body = _merge_body(b.body.text if b else "", o.body.text, t.body.text)
    variants = []
    for side in ("ours", "theirs"):
        topic = Topic.parse(ours, Path(path), path)
        for key, value in meta.items():
            chosen = getattr(value, side) if isinstance(value, _Conflict) else value
            if chosen is _MISSING:
                if key in topic.meta:
                    del topic.meta[key]
            else:
                topic.set(key, chosen)
        lines = [getattr(x, side) if isinstance(x, _Conflict) else [x] for x in body]
        topic.body = Body.parse("".join(line for group in lines for line in group), topic.body.first_line)
        variants.append(topic.render())
    if variants[0] == variants[1]:
        return MergeResult(variants[0], 0)
    return _mark(variants[0], variants[1], path, marker_size)


def merge_files(base: Path, ours: Path, theirs: Path, path: str | None = None, *, marker_size: int = 7,
                decay: float = DEFAULT_DECAY) -> MergeResult:
    """What `vault merge-driver` does: merge into `ours` in place (atomically), as git expects."""
    texts = [Path(p).read_text(encoding="utf-8", errors="surrogateescape") for p in (base, ours, theirs)]
    try:
        result = merge_texts(*texts, path=path or Path(ours).name, decay=decay, marker_size=marker_size)
    except Exception:  # never lose either side: fall back to git's own line merge, markers and all
        result = _plain(texts[0], texts[1], texts[2], path or Path(ours).name, marker_size)
    atomic_write(Path(ours), result.text.encode("utf-8", "surrogateescape"))
    return result


def install(root: Path, python: str) -> bool:
    """Register the driver in the repository's config and .gitattributes; True if .gitattributes changed."""
    import shlex

    gitlog.set_config(root, f"merge.{DRIVER}.name", "Sheriff Vault topic merge (vault merge-driver)")
    gitlog.set_config(root, f"merge.{DRIVER}.driver",
                      f"{shlex.quote(python)} -m sheriff_vault merge-driver %O %A %B %P --marker-size %L")
    attrs = Path(root) / ".gitattributes"
    text = attrs.read_text(encoding="utf-8") if attrs.exists() else ""
    if ATTRIBUTES_LINE in text.splitlines():
        return False
    header = "" if text else "# topics merge with `vault merge-driver` (registered in .git/config by `vault init`)\n"
    atomic_write(attrs, text + ("\n" if text and not text.endswith("\n") else "") + header + ATTRIBUTES_LINE + "\n")
    return True


# -- frontmatter -------------------------------------------------------------------------------------
class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


def _merge_meta(b: Topic | None, o: Topic, t: Topic, decay: float) -> dict[str, Any]:
    """Every top-level key's merged value (or a _Conflict); _MISSING means delete the key."""
    bm = b.meta if b is not None else {}
    keys = list(o.meta) + [k for k in t.meta if k not in o.meta]
    out: dict[str, Any] = {}
    for key in keys:
        key = str(key)
        bv, ov, tv = bm.get(key, _MISSING), o.meta.get(key, _MISSING), t.meta.get(key, _MISSING)
        if _plain_eq(ov, tv) and (key not in ("touch_count", "utility") or _plain_eq(ov, bv)):
            continue  # ours already holds it (equal counters on both sides may still both have grown)
        if key == "first_seen" and o.first_seen and t.first_seen:
            out[key] = iso(min(o.first_seen, t.first_seen))
        elif key == "last_seen" and o.last_seen and t.last_seen:
            out[key] = iso(max(o.last_seen, t.last_seen))
        elif key == "touch_count" and _is_num(ov) and _is_num(tv):
            out[key] = _gained(bv, ov, tv)
        elif key == "utility" and _is_num(ov) and _is_num(tv):
            out[key] = _utility(b, o, t, decay)
        elif key in _SETS and _is_list(ov) and _is_list(tv):
            out[key] = _union(bv, ov, tv, lambda x: str(x).strip().lower())
        elif key == "numbers" and _is_list(ov) and _is_list(tv):
            out[key] = mdfile.seq(_numbers(bv, ov, tv))
        elif key == "related" and _is_list(ov) and _is_list(tv):
            out[key] = mdfile.seq(_related(bv, ov, tv))
        elif b is None and key in ("name", "one_liner") and ov is not _MISSING and tv is not _MISSING:
            out[key] = _earlier(o, t).meta.get(key)  # both made this topic: the first to know it names it
        else:
            out[key] = _three_way(bv, ov, tv)
    return out


def _earlier(o: Topic, t: Topic) -> Topic:
    never = dt.datetime.max.replace(tzinfo=dt.UTC)
    return t if (t.first_seen or never) < (o.first_seen or never) else o


def _plain_eq(a: Any, b: Any) -> bool:
    return (a is _MISSING and b is _MISSING) or (
        a is not _MISSING and b is not _MISSING and mdfile.to_plain(a) == mdfile.to_plain(b))


def _three_way(b: Any, o: Any, t: Any) -> Any:
    if _plain_eq(o, b):
        return t
    if _plain_eq(t, b):
        return o
    return _Conflict(o, t)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_list(v: Any) -> bool:
    return isinstance(v, list)


def _gained(b: Any, o: Any, t: Any) -> int:
    """Both sides counted from the ancestor: keep both gains (at least as many as either side)."""
    base = b if _is_num(b) else 0
    return int(max(o, t, o + t - base))


def _utility(b: Topic | None, o: Topic, t: Topic, decay: float) -> float:
    """Utility is stored as of last_seen and decays per day: add each side's gain over the decayed
    ancestor, everything carried to the merged last_seen."""
    stamps = [x for x in (o.last_seen, t.last_seen) if x]
    now = max(stamps) if stamps else None

    def carry(value: float, since: dt.datetime | None) -> float:
        if now is None or since is None:
            return value
        return value * decay ** max(0.0, (now - since).total_seconds() / 86400)

    def at(value: float, since: dt.datetime | None, until: dt.datetime | None) -> float:
        if since is None or until is None:
            return value
        return value * decay ** max(0.0, (until - since).total_seconds() / 86400)

    if b is None:
        total = carry(o.utility, o.last_seen) + carry(t.utility, t.last_seen)
    else:
        gain_o = o.utility - at(b.utility, b.last_seen, o.last_seen)
        gain_t = t.utility - at(b.utility, b.last_seen, t.last_seen)
        total = carry(b.utility, b.last_seen) + carry(gain_o, o.last_seen) + carry(gain_t, t.last_seen)
    return round(max(0.0, total), 3)


def _union(b: Any, o: list, t: list, key: Callable[[Any], Hashable]) -> list:
    """Ours, then what theirs added; an entry one side deleted from the ancestor stays deleted."""
    base = {key(x) for x in b} if _is_list(b) else set()
    ours, theirs = {key(x) for x in o}, {key(x) for x in t}
    out, seen = [], set()
    for x in o:
        k = key(x)
        if k not in seen and not (k in base and k not in theirs):
            out.append(x)
            seen.add(k)
    for x in t:
        k = key(x)
        if k not in seen and not (k in base and k not in ours):
            out.append(x)
            seen.add(k)
    return out


def _number_key(n: Any) -> tuple[str, ...]:
    p = parse_number(n)
    if p is None:
        return ("raw", str(mdfile.to_plain(n)), "", "")
    at = parse_time(p.get("at"))
    return (str(p.get("key")), str(p.get("value")), str(p.get("unit") or ""), iso(at) if at else str(p.get("at") or ""))


def _numbers(b: Any, o: list, t: list) -> list:
    """Every dated value of both sides, oldest first, in the flat shape (topics.number_text)."""
    merged = [parse_number(n) or n for n in _union(b, o, t, _number_key)]
    merged.sort(key=lambda n: _number_key(n)[3] if isinstance(n, dict) else "")
    return [number_text(n) if isinstance(n, dict) else n for n in merged]


def _edge_key(e: Any) -> Hashable:
    edge = parse_edge(e)
    return (edge["id"], edge["type"]) if edge else ("raw", str(e))


def _weight(e: Any) -> float:
    edge = parse_edge(e)
    return float(edge["weight"]) if edge else 1.0


def _related(b: Any, o: list, t: list) -> list:
    """Both sides' edges, each with the larger weight, in the flat shape (topics.edge_text)."""
    weights: dict[Hashable, float] = {}
    for e in [*o, *t]:
        weights[_edge_key(e)] = max(weights.get(_edge_key(e), 0.0), _weight(e))
    out = []
    for e in _union(b, o, t, _edge_key):
        edge = parse_edge(e)
        out.append(edge_text(edge["id"], edge["type"], weights[_edge_key(e)]) if edge else e)
    return out


# -- body ------------------------------------------------------------------------------------------------
def _merge_body(base: str, ours: str, theirs: str) -> list[Any]:
    """Body lines after git's three-way merge; a place both sides changed is resolved item by item,
    or left as a _Conflict of two line lists."""
    text, _ = gitlog.merge_file(ours, base, theirs, diff3=True, marker_size=_WIDE)
    out: list[Any] = []
    hunk: list[list[str]] | None = None
    part = 0
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if bare.startswith("<" * _WIDE) and hunk is None:
            hunk, part = [[], [], []], 0
        elif hunk is not None and bare.startswith("|" * _WIDE):
            part = 1
        elif hunk is not None and bare.startswith("=" * _WIDE):
            part = 2
        elif hunk is not None and bare.startswith(">" * _WIDE):
            resolved = _resolve(hunk[0], hunk[1], hunk[2])
            out.extend(resolved if isinstance(resolved, list) else [resolved])
            hunk = None
        elif hunk is not None:
            hunk[part].append(line)
        else:
            out.append(line)
    return _dedupe(out, ours, theirs)


def _dedupe(lines: list[Any], ours: str, theirs: str) -> list[Any]:
    """Both sides added the same item in different places: keep it once (an item a side already
    held twice is left alone)."""
    def counts(text: str) -> dict[str, int]:
        found: dict[str, int] = {}
        for line in text.splitlines():
            if (k := _item_key(line)) is not None:
                found[k] = found.get(k, 0) + 1
        return found

    most = counts(ours)
    for k, n in counts(theirs).items():
        most[k] = max(most.get(k, 0), n)
    seen: dict[str, int] = {}
    out = []
    for line in lines:
        key = _item_key(line) if isinstance(line, str) else None
        if key is not None:
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > most.get(key, 1):
                continue
        out.append(line)
    return out


def _item_key(line: str) -> str | None:
    """An item line's text and citations (the same fact cited the same way is one fact)."""
    if not line.startswith(("- ", "* ")):
        return None
    item = parse_item(line, "fact")
    if item is None:
        return None
    return clean_text(item.text).lower() + "|" + "|".join(c.render() for c in item.citations)


def _line_key(line: str) -> tuple[str, str] | None:
    """What makes two body lines the same: an item's text (citations and tick aside), else the line."""
    if not line.strip():
        return None
    item = parse_item(line, "fact")
    if item is not None and line.lstrip()[:2] in ("- ", "* "):
        return ("item", clean_text(item.text).lower())
    return ("line", line.strip())


def _resolve(o: list[str], b: list[str], t: list[str]) -> list[str] | _Conflict:
    if o == t:
        return o
    bk = {k: line for line in b if (k := _line_key(line))}
    ok = {k: line for line in o if (k := _line_key(line))}
    tk = {k: line for line in t if (k := _line_key(line))}
    rewritten = [k for k in bk if k not in ok and k not in tk]
    if rewritten and any(k not in bk for k in ok) and any(k not in bk for k in tk):
        return _Conflict(o, t)  # the same line changed two ways
    out: list[str] = []
    for line in o:
        k = _line_key(line)
        if k is None:
            out.append(line)
            continue
        if k in bk and k not in tk:
            if line != bk[k]:
                return _Conflict(o, t)  # changed on one side, deleted on the other
            continue
        if k in tk and tk[k] != line:
            merged = _merge_line(bk.get(k), line, tk[k])
            if merged is None:
                return _Conflict(o, t)
            line = merged
        out.append(line)
    anchor: int | None = None
    for line in t:
        k = _line_key(line)
        if k is None:
            continue
        if k in ok:
            anchor = next((i for i, x in enumerate(out) if _line_key(x) == k), anchor)
            continue
        if k in bk:
            if line != bk[k]:
                return _Conflict(o, t)
            continue
        at = _after_ours(out, anchor, set(tk) | set(bk)) if anchor is not None else _after_content(out)
        out.insert(at, line)
        anchor = at
    return out


def _after_ours(lines: list[str], anchor: int, shared: set) -> int:
    """Where a line of theirs that followed `anchor` goes: after the lines only ours added there
    (ours first), across the blank lines between them, never past the last of them."""
    at = j = anchor + 1
    while j < len(lines) and (not lines[j].strip() or _line_key(lines[j]) not in shared):
        j += 1
        if lines[j - 1].strip():
            at = j
    return at


def _after_content(lines: list[str]) -> int:
    at = len(lines)
    while at > 0 and not lines[at - 1].strip():
        at -= 1
    return at


def _merge_line(base: str | None, ours: str, theirs: str) -> str | None:
    """One item changed on both sides: keep every citation and a tick from either side."""
    if base is not None and ours.rstrip("\r\n") == base.rstrip("\r\n"):
        return theirs
    if base is not None and theirs.rstrip("\r\n") == base.rstrip("\r\n"):
        return ours
    oi, ti = parse_item(ours, "fact"), parse_item(theirs, "fact")
    if oi is None or ti is None or clean_text(oi.text) != clean_text(ti.text):
        return None
    kind = "loop" if ours.lstrip().startswith(("- [", "* [")) else "fact"
    cites = list(oi.citations) + [c for c in ti.citations if c not in oi.citations]
    dates = sorted(d for d in (oi.date, ti.date) if d)
    merged: Item = replace(oi, kind=kind, citations=tuple(cites), done=oi.done or ti.done,
                           date=dates[0] if dates else "")
    ending = ours[len(ours.rstrip("\r\n")):]
    return merged.render() + ending


# -- conflicts ---------------------------------------------------------------------------------------------
def _mark(ours: str, theirs: str, path: str, marker_size: int) -> MergeResult:
    """Git-style markers around every place the two resolutions of the file still differ."""
    a, b = ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    out: list[str] = []
    conflicts = 0
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.extend(a[i1:i2])
            continue
        conflicts += 1
        out.append("<" * marker_size + f" ours ({path})\n")
        out.extend(_ended(a[i1:i2]))
        out.append("=" * marker_size + "\n")
        out.extend(_ended(b[j1:j2]))
        out.append(">" * marker_size + f" theirs ({path})\n")
    return MergeResult("".join(out), conflicts)


def _ended(lines: list[str]) -> list[str]:
    return [line if line.endswith("\n") else line + "\n" for line in lines]


def _plain(base: str, ours: str, theirs: str, path: str, marker_size: int) -> MergeResult:
    text, conflicts = gitlog.merge_file(ours, base, theirs, labels=(f"ours ({path})", "base", f"theirs ({path})"),
                                        marker_size=marker_size)
    return MergeResult(text, conflicts)
