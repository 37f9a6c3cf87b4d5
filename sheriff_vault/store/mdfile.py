"""Markdown files with YAML frontmatter, read and written so a person's bytes survive.

python-frontmatter gives the handler shape; ruamel.yaml's round-trip mode keeps comments and key
order. On save, every top-level key whose value did not change is copied from the original text
byte for byte, so a program update touches only the lines it means to.
"""
from __future__ import annotations

import copy
import datetime as dt
import io
import re
from dataclasses import dataclass
from typing import Any

from frontmatter.default_handlers import YAMLHandler

from sheriff_vault.errors import TopicFormatError

_OPEN = re.compile(r"\A(\ufeff?---[ \t]*\r?\n)")
_CLOSE = re.compile(r"^(---|\.\.\.)[ \t]*(\r?\n|\Z)", re.MULTILINE)
_SEQ_OFFSET = re.compile(r"^(?P<indent>[ ]+)- ", re.MULTILINE)


@dataclass
class Parts:
    """A file cut into pieces that join back to the exact original text."""

    opener: str
    fm: str
    closer: str
    body: str

    def join(self) -> str:
        return self.opener + self.fm + self.closer + self.body

    @property
    def body_first_line(self) -> int:
        """1-based line number where the body starts, for error messages."""
        return (self.opener + self.fm + self.closer).count("\n") + 1


def split(text: str) -> Parts | None:
    """Cut frontmatter from body exactly (python-frontmatter's split strips whitespace)."""
    m = _OPEN.match(text)
    if not m:
        return None
    close = _CLOSE.search(text, m.end())
    if not close:
        return None
    return Parts(m.group(1), text[m.end() : close.start()], close.group(0), text[close.end() :])


class RoundTripHandler(YAMLHandler):
    """A python-frontmatter handler backed by ruamel.yaml's round-trip loader and dumper."""

    def __init__(self, sample: str = "") -> None:
        super().__init__()
        self.sample = sample

    def split(self, text: str) -> tuple[str, str]:
        parts = split(text)
        if parts is None:
            raise ValueError("no frontmatter")
        return parts.fm, parts.body

    def _yaml(self) -> Any:
        from ruamel.yaml import YAML

        yaml = YAML(typ="rt")
        yaml.preserve_quotes = True
        yaml.width = 4096
        m = _SEQ_OFFSET.search(self.sample)
        if m:
            off = len(m.group("indent"))
            yaml.indent(mapping=2, sequence=off + 2, offset=off)
        else:
            yaml.indent(mapping=2, sequence=2, offset=0)
        return yaml

    def load(self, fm: str, **kwargs: object) -> Any:
        return self._yaml().load(fm)

    def export(self, metadata: Any, **kwargs: object) -> str:
        buf = io.StringIO()
        self._yaml().dump(metadata, buf)
        return buf.getvalue()


def load_meta(fm: str, path: Any, first_line: int = 2) -> Any:
    """Parse frontmatter YAML; a syntax error names the file and the line in the whole file."""
    from ruamel.yaml.error import YAMLError

    try:
        data = RoundTripHandler(fm).load(fm)
    except YAMLError as exc:
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        lines = fm.splitlines()
        last = max((i for i, text in enumerate(lines) if text.strip()), default=0)
        line = first_line + min(mark.line, last) if mark else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise TopicFormatError(
            f"frontmatter is not valid YAML: {problem}",
            path=path,
            line=line,
            hint="fix the YAML between the --- lines",
        ) from None
    return data


def to_plain(obj: Any) -> Any:
    """ruamel's commented containers and scalar subclasses as plain Python, for comparing."""
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, bool) or obj is None:
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return float(obj)
    if isinstance(obj, (dt.datetime, dt.date)):
        return obj.isoformat()
    return str(obj)


def render_meta(original_fm: str, original_plain: dict[str, Any] | None, data: Any) -> str:
    """Dump `data`, reusing the original text of every top-level key whose value is unchanged."""
    handler = RoundTripHandler(original_fm)
    if original_plain is not None and to_plain(data) == original_plain:
        return original_fm
    fresh = handler.export(data)
    if original_plain is None:
        return fresh
    old = _key_spans(original_fm)
    new = _key_spans(fresh)
    if old is None or new is None:
        return fresh
    old_prefix, old_spans = old
    _, new_spans = new
    out = [old_prefix]
    for key in data:
        key = str(key)
        same = key in old_spans and key in original_plain and to_plain(data[key]) == original_plain[key]
        span = old_spans[key] if same else new_spans.get(key, "")
        out.append(span if span.endswith("\n") or not span else span + "\n")
    return "".join(out)


def _key_spans(fm: str) -> tuple[str, dict[str, str]] | None:
    """Text before the first key, and each top-level key's lines (with the comments after it)."""
    from ruamel.yaml.comments import CommentedMap

    try:
        data = RoundTripHandler(fm).load(fm)
        if not isinstance(data, CommentedMap) or not data:  # the round-trip loader's mapping knows its lines
            return None
        starts = [(data.lc.key(k)[0], str(k)) for k in data]
    except Exception:
        return None
    if any(col for col in (data.lc.key(k)[1] for k in data)):
        return None
    lines = fm.splitlines(keepends=True)
    starts.sort()
    prefix = "".join(lines[: starts[0][0]])
    spans: dict[str, str] = {}
    for i, (line_no, key) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(lines)
        spans[key] = "".join(lines[line_no:end])
    return prefix, spans


def seq_append(seq: Any, value: Any) -> None:
    """Append to a round-trip sequence, leaving a comment that followed the old last item after the new one."""
    last = len(seq) - 1
    seq.append(value)
    items = getattr(getattr(seq, "ca", None), "items", None)
    if last < 0 or items is None:
        return
    entry = items.get(last)
    if not entry or entry[0] is None:
        return
    token = entry[0]
    nl = token.value.find("\n")
    if nl < 0:
        return
    head, tail = token.value[: nl + 1], token.value[nl + 1 :]
    if not tail.strip():
        return
    if head.strip():
        token.value = head
    else:
        del items[last]
    moved = copy.copy(token)
    moved.value = "\n" + tail
    items[last + 1] = [moved, None, None, None]


def flow_map(**values: Any) -> Any:
    """A mapping that dumps on one line, so each list entry diffs as one line."""
    from ruamel.yaml.comments import CommentedMap

    m = CommentedMap(**values)
    m.fa.set_flow_style()
    return m


def seq(values: list[Any] | None = None, *, flow: bool = False) -> Any:
    from ruamel.yaml.comments import CommentedSeq

    s = CommentedSeq(values or [])
    if flow:
        s.fa.set_flow_style()
    return s


def new_map() -> Any:
    from ruamel.yaml.comments import CommentedMap

    return CommentedMap()
