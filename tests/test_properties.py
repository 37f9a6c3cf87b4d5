"""Property-based tests (hypothesis) for the three parsers that read what people and models write.

- Topic frontmatter: an unchanged topic renders byte for byte; setting one key leaves every other
  top-level key's lines byte-identical (comments, key order, quoting, list styles, unicode).
- Time phrases: any text either resolves to a well-formed window or raises TimePhraseError.
- Conversation buffers: any text is either turns or ConversationFormatError; turns round-trip
  through render_markdown/parse_markdown.

Runs are derandomized so CI sees the same examples every time; to dig, set HYPOTHESIS_EXAMPLES=5000
and HYPOTHESIS_EXPLORE=1 (random seeds).
"""
from __future__ import annotations

import datetime as dt
import json
import os
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from sheriff_vault import timewin
from sheriff_vault.errors import ConversationFormatError, TimePhraseError, TopicFormatError
from sheriff_vault.store import mdfile
from sheriff_vault.store.buffer import ROLES, Turn, parse, parse_jsonl, parse_markdown, render_markdown
from sheriff_vault.store.topics import Topic

N = int(os.environ.get("HYPOTHESIS_EXAMPLES", "150"))
PROPS = settings(max_examples=N, deadline=None, derandomize=not os.environ.get("HYPOTHESIS_EXPLORE"), database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
UTC = dt.UTC

# -- topic frontmatter ---------------------------------------------------------------------------
WORD = st.text(alphabet=st.sampled_from(list(string.ascii_letters + string.digits + "äéß日本語ßøΩ🎉 -_.,!?'")),
               min_size=1, max_size=24).map(str.strip).filter(lambda s: s and s[0] not in "-?!'.,")
KEYS = ["one_liner", "aliases", "first_seen", "last_seen", "utility", "touch_count", "evergreen", "related",
        "skills", "artifacts", "numbers", "colour", "my_notes", "priority", "schema_version"]


@st.composite
def scalar(draw) -> tuple[str, object]:
    """A YAML scalar as text, and the value it must read back as."""
    kind = draw(st.sampled_from(["plain", "single", "double", "int", "float", "bool", "date"]))
    if kind == "int":
        v = draw(st.integers(-10**6, 10**6))
        return str(v), v
    if kind == "float":
        v = draw(st.sampled_from([0.0, 0.5, 4.5, 12.25, -3.75, 1e-3]))
        return repr(v), v
    if kind == "bool":
        v = draw(st.booleans())
        return ("true" if v else "false"), v
    if kind == "date":
        d = draw(st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2030, 12, 31)))
        s = d.strftime("%Y-%m-%dT%H:%M:%SZ")
        return draw(st.sampled_from([s, f"'{s}'", f'"{s}"'])), s
    text = draw(WORD)
    if kind == "single":
        return "'" + text.replace("'", "''") + "'", text
    if kind == "double":
        return json.dumps(text, ensure_ascii=draw(st.booleans())), text
    safe = "".join(c for c in text if c not in ":#'\"").strip() or "word"
    if safe[0].isdigit() or safe.lower() in ("true", "false", "yes", "no", "null", "on", "off", "y", "n"):
        safe = "x" + safe
    return safe, safe


@st.composite
def value(draw, indent: int) -> str:
    """The text after `key:` (a scalar on the line, or a block list on the next lines)."""
    style = draw(st.sampled_from(["scalar", "scalar", "flow", "block", "empty", "map", "literal", "flowmaps"]))
    if style == "scalar":
        return " " + draw(scalar())[0]
    if style == "empty":
        return " " + draw(st.sampled_from(["[]", "[ ]", "''", "{}"]))
    if style == "map":
        subkeys = draw(st.lists(st.sampled_from(["a", "b", "unit", "when", "note"]), unique=True,
                                min_size=1, max_size=3))
        return "".join(f"\n  {k}: {draw(scalar())[0]}" for k in subkeys)
    if style == "literal":
        lines = [draw(WORD) for _ in range(draw(st.integers(1, 3)))]
        return " " + draw(st.sampled_from(["|", ">", "|-"])) + "".join(f"\n  {line}" for line in lines)
    if style == "flowmaps":
        pad = " " * indent
        return "".join(f"\n{pad}- {{key: {draw(scalar())[0]}, value: {draw(st.integers(0, 999))}, unit: USD}}"
                       for _ in range(draw(st.integers(1, 3))))
    items = [draw(scalar())[0] for _ in range(draw(st.integers(1, 4)))]
    if style == "flow":
        return " [" + ", ".join(items) + "]"
    pad = " " * indent
    out = ""
    for item in items:
        out += f"\n{pad}- {item}"
        if draw(st.integers(0, 5)) == 0:
            out += "   # " + draw(WORD)
    return out


@st.composite
def topic_file(draw) -> tuple[str, list[str], dict[str, str]]:
    """A hand-written topic: returns the text, its keys in order, and each key's exact block."""
    keys = ["id", "name"] + draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=8))
    order = draw(st.permutations(keys))
    indent = draw(st.sampled_from([0, 2, 4]))  # one list style per file, as a person would write it
    blocks: dict[str, str] = {}
    for key in order:
        if key == "id":
            line = "id: " + draw(st.sampled_from(["3f6c2a8e-9b1d-4c1e-8f7a-2d5e6b7c8d90",
                                                   "'3f6c2a8e-9b1d-4c1e-8f7a-2d5e6b7c8d90'"]))
        elif key == "name":
            line = "name: " + draw(scalar().filter(lambda s: isinstance(s[1], str) and s[1].strip()))[0]
        else:
            line = f"{key}:" + draw(value(indent))
        if draw(st.integers(0, 4)) == 0 and "\n" not in line:
            line += "  # " + draw(WORD)
        block = line + "\n"
        for _ in range(draw(st.integers(0, 2))):
            block += draw(st.sampled_from(["# " + draw(WORD) + "\n", "\n"]))
        blocks[key] = block
    head = "# " + draw(WORD) + "\n" if draw(st.booleans()) else ""
    body = "\n# " + draw(WORD) + "\n\nSome notes: " + draw(WORD) + "\n"
    return "---\n" + head + "".join(blocks[k] for k in order) + "---\n" + body, list(order), blocks


def _load(text: str) -> Topic:
    try:
        return Topic.parse(text, Path("topics/x.md"), "topics/x.md")
    except TopicFormatError:
        assume(False)
        raise


@PROPS
@given(topic_file())
def test_an_unchanged_topic_renders_byte_identical(spec):
    text, _, _ = spec
    topic = _load(text)
    assert topic.render() == text
    assert not topic.dirty


NEW_VALUES = st.one_of(WORD, st.integers(-1000, 1000), st.booleans(), st.lists(WORD, min_size=1, max_size=3))


@PROPS
@given(topic_file(), st.data())
def test_setting_a_key_keeps_every_other_key_byte_identical(spec, data):
    text, order, blocks = spec
    topic = _load(text)
    key = data.draw(st.sampled_from(order + ["brand_new_key"]), label="key")
    new = data.draw(WORD if key in ("id", "name") else NEW_VALUES, label="value")
    topic.set(key, new)
    out = topic.render()
    again = Topic.parse(out, Path("topics/x.md"), "topics/x.md")
    assert mdfile.to_plain(again.meta.get(key)) == mdfile.to_plain(new)
    fm, body = out.split("\n---\n", 1)
    assert body == text.split("\n---\n", 1)[1], "the body changed"
    positions = []
    for other in order:
        if other == key:
            continue
        assert blocks[other] in fm + "\n", f"{other!r} lines changed:\n{blocks[other]!r}\nnot in\n{fm!r}"
        positions.append(fm.index(blocks[other].split("\n", 1)[0]))
    assert positions == sorted(positions), "key order changed"


# -- time phrases -------------------------------------------------------------------------------
VOCAB = ["last", "next", "this", "week", "weekend", "month", "year", "yesterday", "today", "tomorrow", "ago", "in",
         "on", "before", "after", "since", "until", "between", "and", "the", "of", "May", "June", "Friday",
         "Monday", "morning", "evening", "night", "2", "3", "14", "31", "2023", "2026", "days", "weeks", "hours",
         "an", "a", "couple", "few", "past", "slept", "you", "we", "early", "late", "mid", "around", "noon",
         "2023-05-08", "13:56", "14 February", "Feb", "1st", "-", ",", "?", "Q3", "spring", "christmas"]
PHRASE = st.one_of(st.lists(st.sampled_from(VOCAB), max_size=7).map(" ".join), st.text(max_size=40),
                   st.lists(st.one_of(st.sampled_from(VOCAB), st.text(max_size=4)), max_size=6).map(" ".join))
ZONES = st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Pacific/Chatham",
                         "Australia/Lord_Howe", "America/St_Johns", "Pacific/Kiritimati"])
MOMENT = st.datetimes(min_value=dt.datetime(1971, 1, 1), max_value=dt.datetime(2098, 12, 31),
                      timezones=st.just(UTC))


def _well_formed(w: timewin.Window, text: str) -> None:
    for t in (w.start, w.end):
        assert t is None or (t.tzinfo is not None and t.utcoffset() == dt.timedelta(0))
    assert w.start is not None or w.end is not None
    assert w.start is None or w.end is None or w.start < w.end
    assert 0 <= w.span[0] <= w.span[1] <= len(text)
    assert w.granularity in ("instant", "part_of_day", "day", "week", "weekend", "month", "year", "range")
    assert isinstance(w.label(), str) and w.label()
    json.dumps(w.to_json())


@PROPS
@given(PHRASE, MOMENT, ZONES, st.one_of(st.none(), MOMENT), st.sampled_from(["nearest", "past", "future"]))
@example("last week", dt.datetime(2026, 3, 29, 1, 30, tzinfo=UTC), "Europe/Berlin", None, "nearest")
@example("between May and June", dt.datetime(2026, 2, 20, tzinfo=UTC), "UTC", None, "past")
@example("before you slept", dt.datetime(2026, 2, 20, tzinfo=UTC), "Pacific/Chatham", None, "nearest")
def test_time_phrases_resolve_to_a_window_or_say_why(phrase, now, tz, slept, prefer):
    try:
        w = timewin.resolve(phrase, now, tz, slept_at=slept, prefer=prefer)
    except TimePhraseError as exc:
        assert str(exc)
    else:
        assert w.phrase == phrase or w.phrase in phrase
        _well_formed(w, phrase)
    found = timewin.find_all(phrase, now, tz, slept_at=slept, prefer=prefer)
    end = 0
    for w in found:
        _well_formed(w, phrase)
        assert w.span[0] >= end, "windows overlap or are out of order"
        end = w.span[1]


@PROPS
@given(st.one_of(st.text(max_size=30), st.sampled_from(["2023-05-08", "2023-02-30", "9999-12-31T23:59:59+14:00",
                                                         "0001-01-01", "2023-05-08T25:00", "nan", "1e400"])), ZONES)
def test_parse_instant_raises_only_time_phrase_error(text, tz):
    try:
        t = timewin.parse_instant(text, tz)
    except TimePhraseError:
        return
    assert t.tzinfo is not None


# -- conversation buffers -----------------------------------------------------------------------
JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)
TURN_DICT = st.fixed_dictionaries({}, optional={
    "role": st.one_of(st.sampled_from(list(ROLES) + ["User", "wizard", ""]), JSON_VALUE),
    "content": st.one_of(st.text(max_size=30), JSON_VALUE,
                         st.lists(st.fixed_dictionaries({"text": st.text(max_size=5)}))),
    "at": st.one_of(st.sampled_from(["2023-05-08T13:56:00Z", "2023-05-08", "soon", "2023-13-01"]), JSON_VALUE),
    "id": st.one_of(st.sampled_from(["t1", "D1:3", "a b", ")("]), JSON_VALUE),
    "name": JSON_VALUE})


def _only_format_errors(fn, text: str) -> list[Turn]:
    try:
        return fn(text, "in.txt")
    except ConversationFormatError as exc:
        assert exc.path == "in.txt"
        return []


@PROPS
@given(st.one_of(st.text(max_size=200),
                 st.lists(TURN_DICT, max_size=4).map(lambda ds: "\n".join(json.dumps(d) for d in ds)),
                 st.lists(st.one_of(TURN_DICT.map(json.dumps), st.text(max_size=20)), max_size=4).map("\n".join)))
def test_jsonl_input_is_turns_or_a_format_error(text):
    for t in _only_format_errors(parse_jsonl, text):
        assert t.role in ROLES and isinstance(t.content, str)
        assert t.at is None or t.at.tzinfo is not None


MD_LINE = st.one_of(st.text(max_size=30), st.sampled_from([
    "## 13:56 - user", "## 13:56 - user: Caroline (D1:3)", "## 2023-05-08 09:00:00 - assistant (t2)",
    "## 25:99 - user", "## 13:56 - wizard", "\\## 13:56 - user", "---", "date: 2023-05-08", "timezone: Mars/Base",
    "date: [1, 2]", "date: 2023-02-30", "", "text"]))


@PROPS
@given(st.one_of(st.text(max_size=200), st.lists(MD_LINE, max_size=10).map("\n".join),
                 st.lists(MD_LINE, max_size=10).map(lambda ls: "---\ndate: 2023-05-08\n---\n" + "\n".join(ls))))
def test_markdown_input_is_turns_or_a_format_error(text):
    for t in _only_format_errors(parse_markdown, text):
        assert t.role in ROLES and t.at is not None and t.at.tzinfo is not None
    _only_format_errors(parse, text)


# Characters str.splitlines() treats as line breaks (CR, form feed, U+2028...) are content.
LINE_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
CONTENT_LINE = st.one_of(
    st.text(alphabet=st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=30),
    st.text(alphabet=LINE_BREAKS + "ab ", max_size=8),
    st.sampled_from(["## 12:00 - user", "## 2023-05-08 09:00 - assistant: Bob (t9)", "\\## 12:00 - user",
                     "\\\\## 9:05 - tool", "---", "- [ ] a loop", "# title"]))
CONTENT = st.lists(CONTENT_LINE, min_size=1, max_size=5).map("\n".join).map(str.strip).filter(bool)
NAME = st.text(alphabet=st.characters(whitelist_categories=("L", "N"), whitelist_characters=" .'-:"),
               max_size=12).map(str.strip)
TURN_ID = st.text(alphabet=string.ascii_letters + string.digits + ":-_.", min_size=1, max_size=8).filter(
    lambda s: s.strip("-") == s and s)


@st.composite
def turns(draw) -> list[Turn]:
    out = []
    for _ in range(draw(st.integers(1, 5))):
        at = draw(st.datetimes(min_value=dt.datetime(1971, 1, 1), max_value=dt.datetime(2090, 1, 1),
                               timezones=st.just(UTC))).replace(microsecond=0)
        out.append(Turn(draw(st.sampled_from(ROLES)), draw(CONTENT), at, draw(TURN_ID), draw(NAME)))
    return out


@PROPS
@given(turns())
@example([Turn("user", "see:\n## 12:00 - user\nnot a turn", dt.datetime(2023, 1, 1, tzinfo=UTC), "t1", "")])
def test_turns_round_trip_through_the_archive_format(ts):
    text = render_markdown(ts, {"id": "abc", "slept_at": "2026-02-20T03:21:00Z", "turns": len(ts)})
    back = parse_markdown(text, "archive.md")
    assert back == ts
    assert parse(text) == ts


def test_deeply_nested_json_is_a_format_error():
    with pytest.raises(ConversationFormatError):
        parse('{"role": "user", "content": ' + "[" * 100_000 + "]" * 100_000 + "}", "in.jsonl")


def test_line_separators_inside_a_turn_survive_the_archive():
    ts = [Turn("user", "windows line\r\nand a form\x0cfeed", dt.datetime(2023, 1, 1, tzinfo=UTC), "t1", "")]
    assert parse_markdown(render_markdown(ts, {}), "a.md") == ts


def test_a_literal_escaped_heading_survives_the_archive():
    ts = [Turn("user", "write it as:\n\\## 12:00 - user", dt.datetime(2023, 1, 1, tzinfo=UTC), "t1", "")]
    assert parse_markdown(render_markdown(ts, {}), "a.md") == ts


def test_a_line_separator_inside_a_buffered_turn_survives(vault):
    from sheriff_vault.store.buffer import append_turns, load_buffer

    ts = [Turn("user", "one\u2028two\x85three", dt.datetime(2023, 1, 1, tzinfo=UTC), "t1", ""),
          Turn("assistant", "ok", dt.datetime(2023, 1, 1, 0, 1, tzinfo=UTC), "t2", "")]
    append_turns(vault, ts, dt.datetime(2023, 1, 2, tzinfo=UTC))
    assert [t.content for t in load_buffer(vault)] == ["one\u2028two\x85three", "ok"]
    assert parse('{"role": "user", "content": "a\u2028b"}\n') == [Turn("user", "a\u2028b", None, "", "")]
