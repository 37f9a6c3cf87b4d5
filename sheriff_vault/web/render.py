"""Topic Markdown and git diffs as HTML for the memory browser.

Everything a file holds is escaped: raw HTML in a topic is shown as text, never run (markdown-it
with html off), and links may only be http(s), mailto or a path inside the app. A topic's items
are drawn from the same parser sleep and recall use, so the page shows a fact's date, its struck
earlier value and its citations the way the program reads them, not the way a Markdown viewer
happens to.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from markupsafe import Markup, escape

from sheriff_vault.store.items import Body, Citation, Item, parse_item
from sheriff_vault.store.links import LINK, Resolver, WikiLink, parse

_SAFE_SCHEMES = ("http://", "https://", "mailto:")


def _md() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
        ["strikethrough", "table"])


_MD: Any = None


def md() -> Any:
    global _MD
    if _MD is None:
        _MD = _md()
    return _MD


def cite_url(citation: Citation) -> str:
    """The app's page for a citation's turns."""
    return "/cite?" + urlencode({"ref": citation.ref})


def topic_url(slug: str) -> str:
    return "/topics/" + quote(slug)


def _href(target: str) -> str | None:
    """Where a link in a topic may go inside the app; None drops the link (text stays)."""
    target = target.strip()
    if target.lower().startswith(_SAFE_SCHEMES):
        return target
    if "conversations/" in target:
        from sheriff_vault.errors import VaultError
        from sheriff_vault.store.citations import parse_ref

        try:
            return cite_url(parse_ref(target))
        except VaultError:
            return None
    path = target.split("#", 1)[0]
    if path.endswith(".md") and "/" not in posixpath.normpath(path).removeprefix("../topics/").removeprefix(
            "topics/"):
        slug = posixpath.basename(path)[:-3]
        if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", slug):
            return topic_url(slug)
    return None


def _wikilinks(token: Any, links: Resolver) -> list[Any]:
    """A text token with `[[wikilinks]]` as tokens: each link to the topic it resolves to (the
    resolution Obsidian relations and `vault doctor` use: file name, then name, then alias), a link
    that names no topic as plain text marked missing, anything not naming a note (`[[#heading]]`,
    `![[photo.png]]`) left as it was written."""
    from markdown_it.token import Token

    out: list[Any] = []
    text, at = token.content, 0

    def plain(content: str) -> None:
        if content:
            out.append(Token("text", "", 0, content=content))

    for m in LINK.finditer(text):  # code spans are tokens of their own: a link shown as code stays code
        link = parse(m["inner"])
        if not link.to_note:
            continue
        plain(text[at:m.start()])
        at = m.end()
        shown = _shown(link)
        topic = links.resolve(link)
        if topic is None:
            out.append(Token("html_inline", "", 0, content=str(Markup(
                '<span class="wikilink missing" title="{}">{}</span>').format(
                f"no topic is called {link.target} (no topics/{link.stem}.md, no name or alias)", shown))))
            continue
        opening = Token("link_open", "a", 1)
        opening.attrSet("href", topic_url(topic.slug))
        opening.attrSet("class", "wikilink")
        opening.attrSet("title", topic.name or topic.slug)
        opening.meta["resolved"] = True  # its href is the app's already
        out += [opening, Token("text", "", 0, content=shown), Token("link_close", "a", -1)]
    plain(text[at:])
    return out if at else [token]


def _shown(link: WikiLink) -> str:
    """What Obsidian shows for a link: its alias, else the target (and `> heading`)."""
    if link.alias:
        return link.alias
    return f"{link.target} > {link.heading}" if link.heading else link.target


def _rewrite(tokens: list[Any], links: Resolver | None = None) -> None:
    for token in tokens:
        if links is not None and token.children and any(c.type == "text" and "[[" in c.content
                                                         for c in token.children):
            token.children = [t for child in token.children
                              for t in (_wikilinks(child, links) if child.type == "text" and "[[" in child.content
                                        else [child])]
        if token.type == "link_open" and not token.meta.get("resolved"):
            href = _href(str(token.attrGet("href") or ""))
            if href is None:
                token.attrSet("href", "#")
                token.attrSet("class", "dead-link")
            else:
                token.attrSet("href", href)
                if href.startswith(("http://", "https://")):
                    token.attrSet("rel", "noopener noreferrer")
        elif token.type == "image":
            token.type, token.tag = "text", ""
            token.content = f"[image: {token.content}]"
        if token.children:
            _rewrite(token.children)


def markdown(text: str, links: Resolver | None = None) -> Markup:
    """A block of Markdown as safe HTML; with `links`, its `[[wikilinks]]` lead to their topics."""
    engine = md()
    tokens = engine.parse(text)
    _rewrite(tokens, links)
    return Markup(engine.renderer.render(tokens, engine.options, {}))


def inline(text: str, links: Resolver | None = None) -> Markup:
    engine = md()
    tokens = engine.parseInline(text)
    _rewrite(tokens, links)
    return Markup(engine.renderer.render(tokens, engine.options, {}))


def item_html(item: Item, links: Resolver | None = None) -> Markup:
    """One fact, open loop or event: its date, its text (struck when superseded) and its citations."""
    classes = ["item", item.kind] + (["superseded"] if item.superseded else []) + (["done"] if item.done else [])
    anchor = f' id="L{item.line}"' if item.line else ""
    parts = [f'<li class="{" ".join(classes)}"{anchor}>']
    if item.kind == "loop":
        parts.append(f'<span class="check">{"&#9745;" if item.done else "&#9744;"}</span> ')
    parts.append(f'<time>{escape(item.date) if item.date else "undated"}</time> ')
    text = inline(item.text, links)
    if item.superseded:
        by = f" by {escape(item.superseded_by)}" if item.superseded_by else ""
        when = f" (superseded {escape(item.superseded)}{by})" if item.superseded[:1].isdigit() else " (struck by hand)"
        parts.append(f'<span class="text"><s>{text}</s><span class="note">{when}</span></span>')
    else:
        parts.append(f'<span class="text">{text}</span>')
    for cite in item.citations:
        label = ", ".join(cite.turns) or "source"
        pin = f" @{escape(cite.commit[:7])}" if cite.commit else ""
        parts.append(f' <a class="cite" href="{escape(cite_url(cite))}" title="{escape(cite.ref)}">'
                     f'[{escape(label)}{pin}]</a>')
    parts.append("</li>")
    return Markup("".join(parts))


def item_line(raw: str) -> Markup:
    """A raw item line (what a sleep under review added) drawn as an item; plain text if it is none."""
    item = parse_item(raw, "fact")
    if item is None:
        return Markup(f'<li class="item">{escape(raw)}</li>')
    if raw.lstrip("-* ").startswith("["):
        item.kind = "loop"
    return item_html(item)


def body_html(body: Body, links: Resolver | None = None) -> Markup:
    """A topic body: item lines drawn from their parsed items, everything else as Markdown; with
    `links` (the vault's topics), a `[[wikilink]]` leads to the topic it names."""
    items = {item.line - body.first_line: item for item in body.items()}
    out: list[str] = []
    chunk: list[str] = []
    in_list = False
    for i, line in enumerate(body.lines):
        item = items.get(i)
        if item is not None:
            if chunk:
                out.append(markdown("".join(chunk), links))
                chunk = []
            if not in_list:
                out.append('<ul class="items">')
                in_list = True
            out.append(item_html(item, links))
            continue
        if in_list and line.strip():
            out.append("</ul>")
            in_list = False
        chunk.append(line)
    if in_list:
        out.append("</ul>")
    if chunk:
        out.append(markdown("".join(chunk), links))
    return Markup("".join(out))


@dataclass
class DiffFile:
    """One file of a diff, its lines classified for display."""

    path: str
    lines: list[tuple[str, str]] = field(default_factory=list)  # (css class, text)
    added: int = 0
    removed: int = 0
    superseded: int = 0


_ITEM_LINE = re.compile(r"^[-*] (\[[ xX]\] )?\d{4}-\d{2}-\d{2}")


def parse_diff(text: str) -> list[DiffFile]:
    """`git diff` output as files of classified lines: Markdown-aware, so an added fact, a fact
    struck as superseded and a removed fact are told apart from other changed lines."""
    files: list[DiffFile] = []
    current: DiffFile | None = None
    for line in text.splitlines():
        if line.startswith("diff --git "):
            m = re.match(r"diff --git a/(.*) b/(.*)$", line)
            current = DiffFile(m.group(2) if m else line)
            files.append(current)
            continue
        if current is None:
            continue
        if line.startswith(("index ", "--- ", "+++ ", "new file", "deleted file", "similarity", "rename ",
                            "old mode", "new mode", "\\ No newline")):
            current.lines.append(("meta", line))
        elif line.startswith("@@"):
            current.lines.append(("hunk", line))
        elif line.startswith("+"):
            content = line[1:]
            kind = "add"
            if _ITEM_LINE.match(content):
                kind = "add struck" if "~~" in content else "add fact"
                current.superseded += "~~" in content
            current.added += 1
            current.lines.append((kind, line))
        elif line.startswith("-"):
            current.removed += 1
            current.lines.append(("del fact" if _ITEM_LINE.match(line[1:]) else "del", line))
        else:
            current.lines.append(("ctx", line))
    rank = ("topics/", "events/", "wake/")
    return sorted(files, key=lambda f: next((i for i, p in enumerate(rank) if f.path.startswith(p)), len(rank)))
