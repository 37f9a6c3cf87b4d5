"""Conversation turns: reading JSONL and Markdown transcripts, the vault's own buffer, and archives.

JSONL: one turn a line, {"role", "content", optional "at", "id", "name"}.
Markdown: frontmatter with `date:` (and optional `timezone:`), then a heading per turn:
    ## 13:56 - user: Caroline (D1:3)
where the date may be given in the heading too (`## 2023-05-08 13:56 - user`) and the speaker
name and turn id are optional. Archives in conversations/ use the same Markdown, so a slept
slice can be read back exactly.
"""
from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sheriff_vault import timewin
from sheriff_vault.errors import ConversationFormatError
from sheriff_vault.store.fsutil import append_lines, atomic_write
from sheriff_vault.store.items import clean_turn_id

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

ROLES = ("user", "assistant", "system", "tool", "developer")
MAX_TURN_CHARS = 8 * 1024 * 1024  # the one limit for a turn; packets keep at most packets.TAIL_TURN_CHARS of it
_HEADING = re.compile(
    r"^## +(?:(?P<date>\d{4}-\d{2}-\d{2})[ T])?(?P<time>\d{1,2}:\d{2}(?::\d{2})?)(?:Z)? +[-–—] +(?P<role>[A-Za-z]+)"
    r"(?:: *(?P<name>[^()\n]+?))? *(?:\((?P<id>[^()\n]+)\))? *$")


@dataclass
class Turn:
    role: str
    content: str
    at: dt.datetime | None = None
    id: str = ""
    name: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def speaker(self) -> str:
        """Who said it, as a fact should name them: the given name, else the role."""
        if self.name and self.name.strip().lower() != self.role:  # "name": "assistant" names no one
            return self.name
        return {"user": "User", "assistant": "Assistant"}.get(self.role, self.role.title())

    def to_json(self) -> dict:
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.at:
            out["at"] = timewin.to_iso(self.at)
        if self.id:
            out["id"] = self.id
        if self.name:
            out["name"] = self.name
        return out


_LINE_HINT = 'each line must be one JSON object like {"role": "user", "content": "..."}'


def parse_jsonl(text: str, source: str = "<stdin>") -> list[Turn]:
    turns = []
    for n, line in enumerate(text.split("\n"), 1):  # not splitlines(): U+2028 inside a string is content
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConversationFormatError(f"not valid JSON: {exc.msg}", path=source, line=n,
                                          hint=_LINE_HINT) from None
        except RecursionError:
            raise ConversationFormatError("JSON nested too deeply", path=source, line=n,
                                          hint=_LINE_HINT) from None
        turns.append(_turn_from(data, source, n))
    return turns


def _turn_from(data: Any, source: str, n: int) -> Turn:
    if not isinstance(data, dict):
        raise ConversationFormatError("a turn must be a JSON object", path=source, line=n)
    role = str(data.get("role", "")).strip().lower()
    if role not in ROLES:
        raise ConversationFormatError(f"unknown role {data.get('role')!r}", path=source, line=n,
                                      hint="use one of " + ", ".join(ROLES) + "; put a speaker's name in \"name\"")
    content = data.get("content")
    if isinstance(content, list):
        content = "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    if content is None:
        others = ", ".join(f"`{k}`" for k in list(data)[:8] if k not in ("role", "at", "id", "name"))
        raise ConversationFormatError("a turn has no `content`" + (f" (it has {others})" if others else ""),
                                      path=source, line=n, hint='put the turn\'s words in "content"; ' + _LINE_HINT)
    if not isinstance(content, str):
        raise ConversationFormatError("`content` must be text", path=source, line=n)
    if len(content) > MAX_TURN_CHARS:
        raise ConversationFormatError(
            f"turn is {len(content) // 1024} KB, over the {MAX_TURN_CHARS // 1048576} MB limit",
            path=source, line=n, hint="split it into several turns")
    at = None
    if data.get("at"):
        try:
            at = timewin.parse_instant(str(data["at"]))
        except Exception:
            raise ConversationFormatError(f"`at` {data['at']!r} is not an ISO-8601 time", path=source, line=n) from None
    extra = {k: v for k, v in data.items() if k not in ("role", "content", "at", "id", "name")}
    return Turn(role, content, at, clean_turn_id(data["id"]) if data.get("id") else "", str(data.get("name") or ""),
                extra)


def parse_markdown(text: str, source: str = "<stdin>") -> list[Turn]:
    from frontmatter.default_handlers import YAMLHandler

    from sheriff_vault.store.mdfile import split

    if "\r\n" in text and text.count("\r\n") == text.count("\n"):
        text = text.replace("\r\n", "\n")  # saved with CRLF endings throughout; a lone CR is content
    parts = split(text)
    meta: Any = {}
    body, offset = text, 0
    if parts is not None:
        try:
            meta = YAMLHandler().load(parts.fm) or {}
        except Exception as exc:
            raise ConversationFormatError(f"frontmatter is not valid YAML: {exc}", path=source, line=1) from None
        body, offset = parts.body, parts.body_first_line - 1
    if not isinstance(meta, dict):
        raise ConversationFormatError("frontmatter must be a mapping (date: 2023-05-08)", path=source, line=1)
    tz = str(meta.get("timezone") or "UTC")
    default_date = meta.get("date")
    turns: list[Turn] = []
    current: dict | None = None
    acc: list[str] = []

    def finish() -> None:
        if current is not None:
            content = "\n".join(acc).strip("\n")
            turns.append(Turn(current["role"], content, current["at"], current["id"], current["name"]))

    for n, line in enumerate(body.split("\n"), offset + 1):
        m = _HEADING.match(line)
        if not m:
            if _escaped_heading(line):
                line = line[1:]
            if current is None and line.strip():
                raise ConversationFormatError("text before the first `## HH:MM - role` heading", path=source, line=n,
                                              hint="start each turn with a heading like `## 13:56 - user`")
            acc.append(line)
            continue
        finish()
        acc = []
        role = m.group("role").lower()
        if role not in ROLES:
            raise ConversationFormatError(f"unknown role {m.group('role')!r} in heading", path=source, line=n,
                                          hint="use `## 13:56 - user: Caroline` to name a speaker")
        day = m.group("date") or (str(default_date) if default_date else None)
        if not day:
            raise ConversationFormatError("no date for this turn", path=source, line=n,
                                          hint="add `date: 2023-05-08` to the frontmatter or put it in the heading")
        try:
            at = timewin.parse_instant(f"{day[:10]}T{m.group('time').zfill(5)}", tz)
        except Exception:
            raise ConversationFormatError(f"bad date or time {day} {m.group('time')}", path=source, line=n) from None
        current = {"role": role, "at": at, "id": clean_turn_id(m.group("id")) if m.group("id") else "",
                   "name": (m.group("name") or "").strip()}
    finish()
    return turns


def parse(text: str, source: str = "<stdin>") -> list[Turn]:
    """JSONL or Markdown, decided by the first non-blank character."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped:
        return []
    return parse_jsonl(text, source) if stripped.startswith("{") else parse_markdown(text, source)


def read_text(path: Path) -> str:
    """A transcript file's text, or an error naming the file (and the line of a bad byte)."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise ConversationFormatError("no such file", path=path) from None
    except IsADirectoryError:
        raise ConversationFormatError("is a folder, not a transcript", path=path) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConversationFormatError("not valid UTF-8", path=path, line=raw[: exc.start].count(b"\n") + 1) from None


def read_file(path: Path) -> list[Turn]:
    return parse(read_text(path), str(path))


def render_markdown(turns: Iterable[Turn], meta: dict[str, Any]) -> str:
    """A transcript that parse_markdown reads back to the same turns (the archive format)."""
    lines = ["---"]
    for key, value in meta.items():
        lines.append(f"{key}: {json.dumps(value) if not isinstance(value, (int, float)) else value}")
    lines += ["---", ""]
    for t in turns:
        at = t.at.astimezone(dt.UTC) if t.at else None
        stamp = at.strftime("%Y-%m-%d %H:%M:%S") if at else "1970-01-01 00:00:00"
        name = f": {t.name}" if t.name else ""
        ident = f" ({t.id})" if t.id else ""
        lines += [f"## {stamp} - {t.role}{name}{ident}", "", _escape_headings(t.content.rstrip()), ""]
    return "\n".join(lines)


def _escape_headings(text: str) -> str:
    """A turn that itself contains `## 12:00 - user` lines must not split into fake turns; one
    more backslash on such a line (escaped or not) is what parse_markdown takes off again.
    Split on newlines only: a CR or U+2028 inside a turn is its content."""
    return "\n".join(("\\" + line) if _HEADING.match(line) or _escaped_heading(line) else line
                     for line in text.split("\n"))


def _escaped_heading(line: str) -> bool:
    return line.startswith("\\") and bool(_HEADING.match(line.lstrip("\\")))


# -- the vault's own buffer (.vault/buffer.jsonl) ----------------------------------------------
def load_buffer(vault: Vault) -> list[Turn]:
    """The turns waiting to be slept; a torn last line from a crash is skipped, not fatal."""
    path = vault.buffer_path
    if not path.exists():
        return []
    turns = []
    lines = path.read_text(encoding="utf-8", errors="replace").rstrip("\n").split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            turns.append(_turn_from(json.loads(line), str(path), n))
        except (json.JSONDecodeError, ConversationFormatError):
            if n == len(lines):
                continue
            raise
    return turns


def next_turn_number(turns: Iterable[Turn], vault: Vault) -> int:
    counter = vault.cache / "turn_counter"
    try:
        stored = int(counter.read_text().strip())
    except (OSError, ValueError):
        stored = 0
    seen = [int(t.id[1:]) for t in turns if re.fullmatch(r"t\d+", t.id)]
    return max([stored, *seen]) + 1


def assign_ids(turns: list[Turn], vault: Vault, existing: Iterable[Turn] = ()) -> None:
    """Give id-less turns t<N> ids that continue the vault's count, so citations stay unambiguous."""
    n = next_turn_number([*existing, *turns], vault)
    for t in turns:
        if not t.id:
            t.id = f"t{n}"
            n += 1
    (vault.cache).mkdir(parents=True, exist_ok=True)
    atomic_write(vault.cache / "turn_counter", str(n - 1))


def append_turns(vault: Vault, turns: list[Turn], now: dt.datetime) -> list[Turn]:
    """Add turns to the buffer: stamp missing times with `now`, assign missing ids, and skip turns
    already there or already slept (same id, time and text), so sleeping one transcript twice,
    even by two processes at once, remembers it once."""
    existing = load_buffer(vault)
    known = {t.id for t in existing if t.id}
    buffered = _lookup({_fingerprint(t) for t in existing})
    fresh = [t for t in turns if not (t.id and t.id in known and _seen(t, buffered))]
    for t in fresh:
        if t.id in known:  # another turn holds this id: the new one gets a fresh id
            t.id = ""
    if any(t.id for t in fresh):
        slept = _lookup(archived_turns(vault))
        fresh = [t for t in fresh if not (t.id and _seen(t, slept))]
    for t in fresh:
        if t.at is None:
            t.at = now
    assign_ids(fresh, vault, existing)
    append_lines(vault.buffer_path, [json.dumps(t.to_json(), ensure_ascii=False) for t in fresh])
    return fresh


def write_buffer(vault: Vault, turns: list[Turn]) -> None:
    atomic_write(vault.buffer_path, "".join(json.dumps(t.to_json(), ensure_ascii=False) + "\n" for t in turns))


def _fingerprint(turn: Turn) -> tuple[str, str, str]:
    """What makes two turns the same turn, as the archive keeps it (seconds, trimmed text)."""
    at = turn.at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S") if turn.at else ""
    return turn.id, at, turn.content.strip()


Prints = tuple[set[tuple[str, str, str]], set[tuple[str, str]]]


def _lookup(prints: set[tuple[str, str, str]]) -> Prints:
    return prints, {(p[0], p[2]) for p in prints}


def _seen(turn: Turn, prints: Prints) -> bool:
    """Is this turn among `prints`? A turn without a time matches on id and text alone."""
    mine = _fingerprint(turn)
    return mine in prints[0] if turn.at is not None else (mine[0], mine[2]) in prints[1]


def archived_turns(vault: Vault) -> set[tuple[str, str, str]]:
    """Fingerprints of every turn in conversations/ (the slept turns). A cache in .vault/ keyed by
    each archive's size and mtime keeps this one file read per new archive, not per call."""
    cache_path = vault.cache / "archived-turns.json"
    try:
        cache = json.loads(cache_path.read_text())
    except (OSError, ValueError):
        cache = {}
    fresh: dict[str, Any] = {}
    out: set[tuple[str, str, str]] = set()
    root = vault.path("conversations")
    for path in sorted(root.rglob("*.md")) if root.is_dir() else []:
        st = path.stat()
        rel = path.relative_to(root).as_posix()
        entry = cache.get(rel)
        if not entry or entry[0] != [st.st_size, st.st_mtime_ns]:
            try:
                prints = [list(_fingerprint(t)) for t in parse_markdown(path.read_text(encoding="utf-8"), str(path))]
            except (ConversationFormatError, UnicodeDecodeError):
                prints = []
            entry = [[st.st_size, st.st_mtime_ns], prints]
        fresh[rel] = entry
        out.update(tuple(p) for p in entry[1])
    if fresh != cache:
        atomic_write(cache_path, json.dumps(fresh, ensure_ascii=False))
    return out
