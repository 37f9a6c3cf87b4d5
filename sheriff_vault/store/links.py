"""Obsidian's links in topic bodies: reading `[[wikilinks]]` a person wrote, and keeping the
`## Related` section that lists a topic's `related` edges as links Obsidian's graph and backlinks
show.

Obsidian resolves `[[target]]` by file name: `target` (without `.md`, any folder) names the note
whose file is `<target>.md`, case-insensitively. A topic's file is `topics/<slug>.md`, so the
section writes `[[slug|Name]]`: it opens the topic file whatever the topic is called, and shows its
name. A link a person writes may also name a topic by its name or an alias (`[[Party Planning]]`);
the vault reads that too, though Obsidian itself would only follow it to a file of that name.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sheriff_vault.store.items import Body

SECTION = "Related"
LINK = re.compile(r"(?P<embed>!?)\[\[(?P<inner>[^\[\]\n]+?)\]\]")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_OURS = re.compile(r"^[-*] \[\[(?P<target>[^\[\]|#^\n]+)(?:\|[^\[\]\n]*)?\]\][ \t]*$")
_FILE_EXT = re.compile(r"\.(?P<ext>[A-Za-z0-9]{1,8})$")


@dataclass(frozen=True)
class WikiLink:
    """One `[[...]]` in a body: the file part (`target`), `#heading` or `#^block`, the alias."""

    line: int
    target: str
    heading: str = ""
    alias: str = ""

    @property
    def to_note(self) -> bool:
        """Whether it can name a topic: not `[[#heading]]` in this file, not `[[photo.png]]`."""
        m = _FILE_EXT.search(self.target)
        return bool(self.target.strip()) and (m is None or m.group("ext").lower() == "md")

    @property
    def stem(self) -> str:
        """The file name Obsidian looks for, lower-cased: `notes/Budget.md` -> `budget`."""
        name = self.target.strip().rsplit("/", 1)[-1]
        return (name[:-3] if name.lower().endswith(".md") else name).strip().lower()


def parse(inner: str, line: int = 0) -> WikiLink:
    """`target#heading|alias` (the text between `[[` and `]]`) as a WikiLink."""
    target, _, alias = inner.partition("|")
    target, _, heading = target.partition("#")
    return WikiLink(line, target.strip(), heading.strip(), alias.strip())


def find(body: Body) -> list[WikiLink]:
    """Every wikilink of the body, outside fenced code and inline code, with its line number."""
    return list(_find_lines(body.lines, body.first_line))


def _find_lines(lines: Iterable[str], first_line: int) -> Iterator[WikiLink]:
    in_code = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code or "[[" not in line:
            continue
        for m in LINK.finditer(_CODE_SPAN.sub(lambda c: " " * len(c.group(0)), line)):
            yield parse(m.group("inner"), first_line + i)


def related_line(slug: str, name: str) -> str:
    """`- [[slug|Name]]`, or `- [[slug]]` when the name is the slug."""
    shown = re.sub(r"\s+", " ", name.replace("|", "/").replace("[", "(").replace("]", ")")).strip()
    return f"- [[{slug}]]" if not shown or shown == slug else f"- [[{slug}|{shown}]]"


def set_related(body: Body, wanted: list[tuple[str, str]], ours: set[str]) -> bool:
    """Make the `## Related` section list `wanted` (slug, name) as link lines, in that order.

    A line of the section is the program's when it is one bare link to a slug in `ours` (the
    topics the edges name now or named when the file was read); those are replaced, every other
    line (a person's notes, a link they wrote to another topic) stays where it is. The section is
    added at the end of the body when needed, and removed when nothing is left in it."""
    nl = body.newline
    desired = [related_line(slug, name) for slug, name in wanted]
    low = {s.lower() for s in ours}
    sec = next((s for s in body.sections() if s.name.strip().lower() == SECTION.lower()), None)
    if sec is None:
        if not desired:
            return False
        if body.lines and not body.lines[-1].endswith("\n"):
            body.lines[-1] += nl
        block = [f"## {SECTION}{nl}", nl, *(d + nl for d in desired)]
        if body.lines and body.lines[-1].strip():
            block.insert(0, nl)
        body.lines.extend(block)
        return True
    mine = [i for i in range(sec.heading + 1, sec.end)
            if (m := _OURS.match(body.lines[i].rstrip("\r\n"))) and m.group("target").strip().lower() in low]
    if [body.lines[i].rstrip("\r\n") for i in mine] == desired:
        return False
    if mine:
        at = mine[0]
    else:
        at = max((i + 1 for i in range(sec.heading + 1, sec.end) if body.lines[i].strip()), default=sec.heading + 1)
    for i in reversed(mine):
        del body.lines[i]
    if not desired:
        _drop_if_empty(body, sec.heading)
        return True
    if at == sec.heading + 1:  # an empty section: a blank line under the heading, as sleep writes them
        body.lines.insert(at, nl)
        at += 1
    if at > 0 and not body.lines[at - 1].endswith("\n"):
        body.lines[at - 1] += nl
    body.lines[at:at] = [d + nl for d in desired]
    return True


def related_lines(body: Body) -> set[int]:
    """The line numbers of the `## Related` section's link lines (the shape related_line writes):
    names of other topics, which the index must not read as this topic's notes."""
    sec = next((s for s in body.sections() if s.name.strip().lower() == SECTION.lower()), None)
    if sec is None:
        return set()
    return {body.first_line + i for i in range(sec.heading + 1, sec.end) if _OURS.match(body.lines[i].rstrip("\r\n"))}


def drop_related(body: Body, slugs: set[str]) -> bool:
    """Remove the `## Related` link lines to these slugs (topics that are gone); returns whether any went."""
    low = {s.lower() for s in slugs}
    sec = next((s for s in body.sections() if s.name.strip().lower() == SECTION.lower()), None)
    if sec is None:
        return False
    gone = [i for i in range(sec.heading + 1, sec.end)
            if (m := _OURS.match(body.lines[i].rstrip("\r\n"))) and m.group("target").strip().lower() in low]
    for i in reversed(gone):
        del body.lines[i]
    if gone:
        _drop_if_empty(body, sec.heading)
    return bool(gone)


def _drop_if_empty(body: Body, heading: int) -> None:
    """Remove a `## Related` heading with nothing left under it (and the blank lines around it)."""
    end = next((i for i in range(heading + 1, len(body.lines)) if body.lines[i].startswith("#")), len(body.lines))
    if any(body.lines[i].strip() for i in range(heading + 1, end)):
        return
    start = heading
    while start > 0 and not body.lines[start - 1].strip() and end == len(body.lines):
        start -= 1
    del body.lines[start:end]


class Named(Protocol):
    """What resolving a link needs of a topic (a Topic, a catalog summary)."""

    @property
    def slug(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def aliases(self) -> list[str]: ...


class Resolver:
    """Link targets to topics: by file name first (what Obsidian does), then by name, then alias,
    all case-insensitive; a name two topics share resolves to neither."""

    def __init__(self, topics: Iterable[Named]) -> None:
        self.by_stem: dict[str, Named] = {}
        self.by_name: dict[str, Named | None] = {}
        self.by_alias: dict[str, Named | None] = {}
        for t in topics:
            self.by_stem.setdefault(t.slug.lower(), t)
            key = t.name.strip().lower()
            self.by_name[key] = None if key in self.by_name and self.by_name[key] is not t else t
            for a in t.aliases:
                key = a.strip().lower()
                self.by_alias[key] = None if key in self.by_alias and self.by_alias[key] is not t else t

    def resolve(self, link: WikiLink) -> Named | None:
        if not link.to_note:
            return None
        whole = link.target.strip().lower()
        whole = whole[:-3] if whole.endswith(".md") else whole
        return (self.by_stem.get(link.stem) or self.by_name.get(whole) or self.by_alias.get(whole)
                or self.by_name.get(link.stem) or self.by_alias.get(link.stem))
