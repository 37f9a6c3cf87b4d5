"""The one-line-per-item syntax of a topic's body: facts, open loops and events.

    - 2023-05-08 — Caroline went to a support group on 7 May 2023. [D1:3](../conversations/2023/05/08/135600-s1.md)
    - [ ] 2023-05-09 — Decide the venue for the party. [t12](../conversations/2023/05/09/101500-x1.md)
    - 2023-05-09T10:15Z — Agreed on Saturday for the party. [t3..t9](../conversations/2023/05/09/101500-x1.md)
    - 2023-05-02 — ~~The budget is 400 USD.~~ (superseded 2023-05-09 by t9) [t4](../conversations/2023/05/02/0900-a.md)

The date is when it was said or happened; the link names the archived conversation and its turn
ids, so any fact can be checked against its source. It renders as a clickable list in Obsidian
and any Markdown viewer, and each change is one line in a diff. A value that a later fact
corrected stays, struck through and dated, with the turn that corrected it (or who asked), so
history is readable and recall shows it as history next to the value that replaced it; a line a
person strikes through by hand (~~...~~) counts as superseded too.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

SECTIONS = {"fact": "Facts", "loop": "Open loops", "event": "Events"}
_KIND_OF = {"facts": "fact", "open loops": "loop", "open loop": "loop", "events": "event", "notable events": "event"}
_ORDER = ["fact", "loop", "event"]
SEP = " — "

_HEADING = re.compile(r"^##[ \t]+(?P<name>.+?)[ \t#]*$")
_ITEM = re.compile(
    r"^[-*] (?:\[(?P<check>[ xX])\] )?"
    r"(?:(?P<date>\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?)(?: — | – | - |: | ))?"
    r"(?P<rest>.*?)[ \t]*$"
)
_CITE = re.compile(r"\s*\[(?P<turns>[^\[\]\n]+)\]\((?P<target>[^()\s]*conversations/[^()\s]+)\)$")
_TURN_ID = re.compile(r"[^A-Za-z0-9:._\-]+")
_STRUCK = re.compile(r"^~~(?P<text>.+?)~~(?:\s*\(superseded(?: (?P<day>\d{4}-\d{2}-\d{2}))?"
                     r"(?: by (?P<by>[^()]+))?[^()]*\))?$")
STRUCK_BY_HAND = "yes"


@dataclass(frozen=True)
class Citation:
    """Turn ids inside one archived conversation file (a vault-relative path), optionally pinned to
    the file as git stored it in one commit (or one blob): `[t12, t14](../conversations/x.md#t12,t14@1a2b3c4)`.
    A pinned citation reads that version, so it never drifts when the file is edited later; the link
    text stays `[t12, t14]` and the link still opens the file."""

    file: str
    turns: tuple[str, ...]
    commit: str = ""

    def render(self) -> str:
        pin = f"#{','.join(self.turns)}@{self.commit}" if self.commit else ""
        return f"[{', '.join(self.turns)}](../{self.file}{pin})"

    @property
    def ref(self) -> str:
        """The citation as one string: `conversations/x.md#t12-t14@1a2b3c4` (what `vault cite` reads)."""
        frag = ",".join(self.turns)
        return f"{self.file}{'#' + frag if frag else ''}{'@' + self.commit if self.commit else ''}"

    def to_json(self) -> dict:
        out: dict = {"file": self.file, "turns": list(self.turns)}
        if self.commit:
            out["commit"] = self.commit
        return out


_PIN = re.compile(r"@(?P<sha>[0-9a-fA-F]{4,40})$")


def split_target(target: str) -> tuple[str, str, str]:
    """`../conversations/x.md#t12-t14@1a2b3c4` -> (conversations/x.md, "t12-t14", "1a2b3c4")."""
    path, _, frag = target.partition("#")
    sha = ""
    if (pin := _PIN.search(frag)) is not None:
        sha, frag = pin.group("sha").lower(), frag[: pin.start()]
    elif (pin := _PIN.search(path)) is not None:  # conversations/x.md@1a2b3c4, no turns
        sha, path = pin.group("sha").lower(), path[: pin.start()]
    if "conversations/" in path:
        path = path[path.index("conversations/"):]
    return path, frag, sha


@dataclass
class Item:
    """One fact, open loop or event line."""

    kind: str
    text: str
    date: str = ""
    citations: tuple[Citation, ...] = ()
    done: bool = False
    line: int = 0
    raw: str = ""
    superseded: str = ""  # the day a later fact replaced it (STRUCK_BY_HAND when a person struck it)
    superseded_by: str = ""  # who asked for it to be struck (a `topic_fact` call), or the turn that corrected it

    def render(self) -> str:
        check = f"[{'x' if self.done else ' '}] " if self.kind == "loop" else ""
        date = f"{self.date}{SEP}" if self.date else ""
        cites = "".join(" " + c.render() for c in self.citations)
        text = clean_text(self.text)
        if self.superseded:
            by = f" by {self.superseded_by}" if self.superseded_by else ""
            text = f"~~{text}~~" + (f" (superseded {self.superseded}{by})" if self.superseded != STRUCK_BY_HAND else "")
        return f"- {check}{date}{text}{cites}"

    @property
    def when(self) -> dt.datetime | None:
        """The item's date as an aware UTC datetime (midnight for a plain date)."""
        return parse_item_date(self.date)

    @property
    def turn_ids(self) -> list[str]:
        return [t for c in self.citations for t in c.turns]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "date": self.date, "text": self.text,
                               "citations": [c.to_json() for c in self.citations]}
        if self.kind == "loop":
            out["done"] = self.done
        if self.superseded:
            out["superseded"] = self.superseded
        if self.superseded_by:
            out["superseded_by"] = self.superseded_by
        if self.line:
            out["line"] = self.line
        return out


def clean_text(text: str) -> str:
    """Items are one line: fold newlines and runs of spaces."""
    return re.sub(r"\s+", " ", text).strip()


def clean_turn_id(turn_id: str) -> str:
    """Turn ids appear inside link text; keep them to characters that cannot break the syntax."""
    return _TURN_ID.sub("-", str(turn_id)).strip("-") or "t"


def parse_item_date(value: str) -> dt.datetime | None:
    if not value:
        return None
    v = value.strip().replace(" ", "T").rstrip("Z")
    try:
        if "T" in v:
            return dt.datetime.fromisoformat(v).replace(tzinfo=dt.UTC)
        return dt.datetime.combine(dt.date.fromisoformat(v), dt.time(), tzinfo=dt.UTC)
    except ValueError:
        return None


def format_item_date(t: dt.datetime, *, with_time: bool = False) -> str:
    t = t.astimezone(dt.UTC)
    return t.strftime("%Y-%m-%dT%H:%MZ") if with_time else t.strftime("%Y-%m-%d")


def parse_item(line: str, kind: str, line_no: int = 0) -> Item | None:
    """Read one body line as an item of `kind`; None when the line is not a list item."""
    stripped = line.rstrip("\r\n")
    m = _ITEM.match(stripped)
    if not m:
        return None
    rest = m.group("rest")
    cites: list[Citation] = []
    while True:
        c = _CITE.search(rest)
        if not c:
            break
        target, _, sha = split_target(c.group("target"))
        turns = tuple(t.strip() for t in c.group("turns").split(",") if t.strip())
        cites.insert(0, Citation(target, turns, sha))
        rest = rest[: c.start()]
    check = m.group("check")
    text, superseded, by = rest.strip(), "", ""
    if struck := _STRUCK.match(text):
        text, superseded = struck.group("text").strip(), struck.group("day") or STRUCK_BY_HAND
        by = (struck.group("by") or "").strip() if struck.group("day") else ""
    return Item(
        kind=kind,
        text=text,
        superseded=superseded,
        superseded_by=by,
        date=(m.group("date") or "").replace(" ", "T"),
        citations=tuple(cites),
        done=bool(check and check.lower() == "x"),
        line=line_no,
        raw=stripped,
    )


@dataclass
class Section:
    kind: str | None
    name: str
    heading: int
    end: int


@dataclass
class Body:
    """A topic body as lines; edits insert or replace single lines so untouched bytes never move."""

    lines: list[str] = field(default_factory=list)
    first_line: int = 1

    @classmethod
    def parse(cls, text: str, first_line: int = 1) -> Body:
        return cls(text.splitlines(keepends=True), first_line)

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @property
    def newline(self) -> str:
        return "\r\n" if any(line.endswith("\r\n") for line in self.lines) else "\n"

    def sections(self) -> list[Section]:
        found: list[Section] = []
        in_code = False
        for i, line in enumerate(self.lines):
            if line.lstrip().startswith("```"):
                in_code = not in_code
            m = None if in_code else _HEADING.match(line.rstrip("\r\n"))
            if m:
                if found:
                    found[-1].end = i
                name = m.group("name").strip()
                found.append(Section(_KIND_OF.get(name.lower()), name, i, len(self.lines)))
        return found

    def prose(self) -> Iterator[tuple[int, str]]:
        """What a person wrote in the body that is not an item line, a heading or code, as paragraphs
        (a run of lines, or one bullet of a list): (first line number, text)."""
        items = {item.line - self.first_line for item in self.items()}
        in_code, start, para = False, 0, list[str]()
        for i, line in enumerate([*self.lines, "\n"]):
            stripped = line.strip()
            fence = stripped.startswith("```")
            in_code = in_code != fence
            plain = bool(stripped) and not (in_code or fence or i in items or stripped.startswith(("#", "<!--")))
            if para and (not plain or stripped[:2] in ("- ", "* ")):
                yield start, " ".join(para)
                para = []
            if plain:
                start = start if para else self.first_line + i
                para.append(stripped.lstrip("-* ").strip() if stripped[:2] in ("- ", "* ") else stripped)

    def items(self, kind: str | None = None) -> Iterator[Item]:
        for sec in self.sections():
            if sec.kind is None or (kind and sec.kind != kind):
                continue
            for i in range(sec.heading + 1, sec.end):
                item = parse_item(self.lines[i], sec.kind, self.first_line + i)
                if item:
                    yield item

    def add(self, item: Item) -> Item:
        """Insert after the last item of its section, creating the section if needed."""
        nl = self.newline
        sec = next((s for s in self.sections() if s.kind == item.kind), None)
        rendered = item.render()
        if sec is None:
            at = self._new_section_at(item.kind)
            if self.lines and not self.lines[-1].endswith("\n") and at == len(self.lines):
                self.lines[-1] += nl
            block = [f"## {SECTIONS[item.kind]}{nl}", nl, rendered + nl]
            if at > 0 and self.lines[at - 1].strip():
                block.insert(0, nl)
            if at < len(self.lines):
                block.append(nl)
            self.lines[at:at] = block
            index = at + block.index(rendered + nl)
        else:
            index = sec.heading + 1
            for i in range(sec.end - 1, sec.heading, -1):  # the last item line (parse_item would read it)
                if _ITEM.match(self.lines[i].rstrip("\r\n")):
                    index = i + 1
                    break
            if index == sec.heading + 1 and index < len(self.lines) and not self.lines[index].strip():
                index += 1
            if index > 0 and not self.lines[index - 1].endswith("\n"):
                self.lines[index - 1] += nl
            self.lines.insert(index, rendered + nl)
        return replace(item, line=self.first_line + index, raw=rendered)

    def replace_item(self, old: Item, new: Item, *after: Item) -> Item:
        """Swap one item line in place (closing an open loop, adding a citation); `after` become
        lines right below it (the struck half of a fact split by a correction). Lines below move
        down, so replace from the bottom up when several are replaced at once."""
        index = old.line - self.first_line
        if not (0 <= index < len(self.lines)) or self.lines[index].rstrip("\r\n") != old.raw:
            raise ValueError(f"line {old.line} no longer holds {old.raw!r}")
        ending = self.lines[index][len(self.lines[index].rstrip("\r\n")) :]
        rendered = new.render()
        block = [rendered, *(item.render() for item in after)]
        self.lines[index : index + 1] = [r + (self.newline if i < len(block) - 1 else ending)
                                         for i, r in enumerate(block)]
        return replace(new, line=old.line, raw=rendered)

    def retitle(self, old: str, new: str) -> bool:
        """The `# old` heading that titles the note, as `# new`; False when no line is exactly that
        (a person retitled or removed it: theirs stays)."""
        for i, line in enumerate(self.lines):
            if line.rstrip("\r\n") == f"# {old}":
                self.lines[i] = f"# {new}" + line[len(line.rstrip("\r\n")):]
                return True
        return False

    def remove_item(self, old: Item) -> None:
        """Delete one item line (a fact a person asked to remove; git keeps it)."""
        index = old.line - self.first_line
        if not (0 <= index < len(self.lines)) or self.lines[index].rstrip("\r\n") != old.raw:
            raise ValueError(f"line {old.line} no longer holds {old.raw!r}")
        del self.lines[index]

    def _new_section_at(self, kind: str) -> int:
        secs = self.sections()
        rank = _ORDER.index(kind)
        later = [s for s in secs if s.kind in _ORDER and _ORDER.index(s.kind) > rank]
        if later:
            return later[0].heading
        known = [s for s in secs if s.kind is not None]
        return known[-1].end if known else len(self.lines)
