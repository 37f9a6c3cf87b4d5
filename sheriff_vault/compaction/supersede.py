"""Corrections supersede: when a value changes (a budget, a date, a venue, a count), the newer fact
is current and the older one is struck through in the topic file with the day it was replaced.

A fact supersedes an older fact of the same topic when it says so ("4,500 EUR instead of 4,000",
"not sage green but dark blue", "moved it from 21 to 28 March", or an assistant echo of it saying
so), or when it gives the same quantity a different value (the same `numbers` key) with change
language ("now", "actually", "changed", "updated"). The old line stays, so history is readable
and a one-line diff shows the correction.
"""
from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from sheriff_vault.compaction.numbers import numbers_in
from sheriff_vault.quantities import GENERIC_KEYS
from sheriff_vault.store.items import Item, parse_item
from sheriff_vault.text import STOPWORDS, content_words, stem

if TYPE_CHECKING:
    from sheriff_vault.compaction.units import Unit
    from sheriff_vault.store.topics import Topic

_I = re.IGNORECASE
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_WEEKDAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
# A value: an amount or count ("4,500 EUR", "236 laptops"), a date ("4 July", "the 23rd"), a weekday.
_VALUE = (rf"(?:(?:{_WEEKDAYS}),? )?\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{_MONTHS})(?: \d{{4}})?"
          rf"|(?:{_MONTHS}) \d{{1,2}}(?:st|nd|rd|th)?"
          r"|[$€£]?\d(?:[\d,.]*\d)?(?:\s?(?:%|[A-Za-z]{1,3}\b|[A-Za-z]{3,20}s\b))?(?:\s+per\s+[A-Za-z]{2,20}\b)?"
          rf"|(?:{_WEEKDAYS})")
_MOVED = (r"moved|moves|moving|changed|changes|goes|went|going|rose|rises|raised|increased|decreased|dropped|fell|"
          r"cut|updated|rescheduled|postponed|pushed|bumped|shifted|switched|jumped|grew|corrected|revised")
_PHRASE = r"[\w'’-]+(?: [\w'’-]+){0,2}?"  # a short name ("dark blue", "Casa Lupa")
_TO_COMMA = r"[\w'’-]+(?: [\w'’-]+){0,2}(?=\s*[,.;!?]|\s*$)"  # the same, running to the end of its clause
_EXPLICIT = [
    re.compile(rf"(?P<new>{_VALUE}),?\s+(?:not|no longer|rather than|instead of)\s+(?P<old>{_VALUE})", _I),
    # "the commute is 23 km each way, not 18 km": a few words may stand between a value and its "not"
    re.compile(r"(?P<new>\d[\d,.]*\s?(?P<unit>[A-Za-z%€$£]{1,5}))(?:\s+[a-z]+){1,3},?\s+"
               r"(?:not|rather than|instead of)\s+(?P<old>\d[\d,.]*\s?(?P=unit))\b", _I),
    re.compile(rf"\bnot\s+(?P<old>{_VALUE}|{_PHRASE}),?\s+but\s+(?P<new>{_VALUE}|{_TO_COMMA}|{_PHRASE})\b", _I),
    re.compile(rf"\b(?:{_MOVED})\b(?:\s+\w+){{0,3}}?\s+from\s+(?P<old>{_VALUE})\s+(?:to|->|→)\s+(?P<new>{_VALUE})", _I),
    re.compile(rf"(?P<old>{_VALUE})\s*(?:->|→)\s*(?P<new>{_VALUE})", _I),
    re.compile(rf"(?P<new>\b{_PHRASE})\s+instead of\s+(?:the\s+|an?\s+)?(?P<old>{_PHRASE})\b", _I),
    re.compile(r"(?P<new>\b[\w'’-]+(?: [\w'’-]+)?)(?:\s+now)?,\s+not\s+"
               r"(?P<old>[\w'’-]+(?: [\w'’-]+)?)\s*(?:[.;!]|$)", _I),
    re.compile(r"\b(?:renamed|rename)\s+(?:\w+\s+)?(?:from\s+)?(?P<old>[A-Z][\w'-]+)\s+to\s+(?P<new>[A-Z][\w'-]+)"),
]
CHANGE = re.compile(r"\b(?:now|actually|changed?|moved|updated|corrected|correction|instead|revised|recounted|"
                    r"redid|redone|turns out|no longer|anymore|new|raised|increased|decreased|reduced|cut|bumped|"
                    r"pushed|postponed|brought forward|rescheduled|switched|swapped|not|"
                    r"(?:moves?|moving) (?:to|forward|back)|"
                    r"(?:went|gone|goes|go) (?:up|down)|rose|dropped|fell|grew)\b", _I)
_DEBUG = bool(__import__("os").environ.get("SV_DEBUG_SUPERSEDE"))
LEAD = re.compile(r"^[^:]{1,60}:\s")  # "Lena: ", 'User, asked "…?": ': who said a fact, before what they said
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")
_LEADING = re.compile(r"^(?:the|a|an|my|our|is|it'?s|to|now|it|be|was|will be)\s+", _I)


def value_pairs(text: str) -> list[tuple[str, str]]:
    """(new, old) values a sentence states explicitly: "X instead of Y", "X, not Y", "not Y but X",
    "from Y to X", "renamed Y to X"."""
    pairs: list[tuple[str, str]] = []
    for rx in _EXPLICIT:
        for m in rx.finditer(text):
            new, old = _clean(m["new"]), _clean(m["old"])
            if _value_like(new) and _value_like(old) and new.lower() != old.lower() and (new, old) not in pairs \
                    and not _half_number(new, old) and not _half_number(old, new):
                pairs.append((new, old))
    # "4 July instead of 27 June" is also read as "... instead of 27": keep the fullest reading
    return [(n, o) for n, o in pairs if not any((n, o) != (n2, o2) and o.lower() in o2.lower()
                                                 and (n.lower() in n2.lower() or n2.lower() in n.lower())
                                                 for n2, o2 in pairs)]


def _value_like(value: str) -> bool:
    """A value names something: a digit or a content word ("the" or "it" alone is no value, and
    every line would "mention" it)."""
    return bool(re.search(r"\d", value)) or any(w.lower() not in STOPWORDS for w in re.findall(r"[^\W\d_]+", value))


def _half_number(one: str, other: str) -> bool:
    """"per sack, not 31" read out of "33.20 per sack, not 31.50": a number against words is a
    misreading, unless it is a date."""
    return _numeric(one) is not None and not re.search(r"\d", other)


def _clean(value: str) -> str:
    value = re.sub(r"\s+now$", "", value.strip(" ,.;:!?\"'"), flags=_I)
    while _LEADING.match(value):
        value = _LEADING.sub("", value, count=1)
    return value


def supersede(topic: Topic, units: list[Unit], day: str) -> list[tuple[str, Unit]]:
    """Strike through the topic's older facts that `units` (this sleep's, already in the topic)
    correct; returns (text struck, the unit that corrected it). `day` is written as the day each
    was superseded."""
    struck: list[tuple[str, Unit]] = []
    # Read once, not per unit (a long sleep adds hundreds of lines to one topic); a strike below
    # rewrites one line in place, and the list takes that line as read again.
    items = [i for i in topic.items() if i.kind in ("fact", "event")]
    for unit in units:
        mine = [i for i in items if unit.turn.id in i.turn_ids]
        if not mine:
            continue
        first = min(i.line for i in mine)
        older = [i for i in items if not i.superseded and unit.turn.id not in i.turn_ids
                 and (i.line < first or (i.date and mine[0].date and i.date < mine[0].date))]
        for old in sorted(_corrected(unit, older), key=lambda i: -i.line):  # bottom up: a split adds a line
            if _DEBUG:
                print(f"supersede: {unit.turn.id} {unit.text[:70]!r} strikes {old.text[:70]!r}")
            text, new = _strike(topic, old, unit, day)
            if new is None:  # split in two: the lines below moved down, so read them again
                items = [i for i in topic.items() if i.kind in ("fact", "event")]
            else:
                items[items.index(old)] = parse_item(new.raw, old.kind, old.line) or new
            struck.append((text, unit))
    return struck


def _strike(topic: Topic, old: Item, unit: Unit, day: str) -> tuple[str, Item | None]:
    """Strike `old`, or only its sentences `unit` corrects: "The party is on Saturday at Riverside
    Park. Budget is 400 USD." keeps the day and place as a current line and strikes the budget on
    a line of its own. Returns the text struck and the struck line (None when the fact was split)."""
    lead = LEAD.match(old.text)
    head = lead.group(0) if lead else ""
    sentences = _SENTENCE.split(old.text[len(head):])
    if len(sentences) > 1:
        hit = [s for s in sentences if _corrected(unit, [replace(old, text=head + s)])]
        if hit and len(hit) < len(sentences):
            kept = head + " ".join(s for s in sentences if s not in hit)
            gone = head + " ".join(hit)
            topic.body.replace_item(old, replace(old, text=kept), replace(old, text=gone, superseded=day))
            return gone, None
    return old.text, topic.body.replace_item(old, replace(old, superseded=day))


def _corrected(unit: Unit, older: list[Item]) -> list[Item]:
    """The older facts `unit` corrects."""
    text = unit.text
    pairs = value_pairs(text) + [p for p in unit.corrects if p not in value_pairs(text)]
    found: list[Item] = []
    slot = _slot_words(text)
    for new, old in pairs:
        for item in older:
            if item in found:
                continue
            if _mentions(item.text, old) and not _mentions(item.text, new) and (
                    _numeric(old) is None or slot & _slot_words(item.text) or len(older) <= 3
                    or _with_unit(item.text, old) or _specific(old)):
                found.append(item)
    if found:
        return found
    # Without "X instead of Y": a value said with change language in its own sentence ("the run is
    # 20 km now") replaces the same quantity's other value; a "now" in the next sentence says nothing.
    changed = [sent for sent in _SENTENCE.split(LEAD.sub("", text, count=1)) if CHANGE.search(sent)]
    if "correction" in unit.flags and not changed:
        changed = [text]
    # a value the sentence names as the old one ("no longer 18 December") is never a new value
    olds = [o for _, o in pairs]
    for sent in changed:
        for number in numbers_in(sent, unit.turn, unit.at):
            if any(_mentions(o, str(number.value)) for o in olds):
                continue
            for item in older:
                if item in found:
                    continue
                for was in numbers_in(item.text, unit.turn, unit.at):
                    same_slot = number.key == was.key and (number.key not in GENERIC_KEYS or
                                                            slot & _slot_words(item.text))
                    if same_slot and was.unit == number.unit and was.value != number.value:
                        found.append(item)
                        break
        for new_date in _dates(sent):
            if any(_mentions(o, new_date) or _mentions(new_date, o) for o in olds):
                continue
            for item in older:
                if item in found:
                    continue
                old_dates = [d for d in _dates(item.text) if d.lower() != new_date.lower()]
                if old_dates and not _mentions(item.text, new_date) and _same_thing(slot, _slot_words(item.text)):
                    found.append(item)
    return found


def _same_thing(new: set[str], old: set[str]) -> bool:
    """Two facts about one thing share two of its words, or half of the older one's: "the
    colloquium talk is on Thursday" and "a talk in our colloquium on Tuesday" do; "same room" and
    "the guesthouse has a room for her" do not."""
    shared = len(new & old)
    return shared >= 2 or (shared >= 1 and shared >= 0.5 * len(old))


def _slot_words(text: str) -> set[str]:
    """What a fact is about, minus speakers, values (months and weekdays among them) and change words."""
    body = LEAD.sub("", text, count=1)
    return {stem(w) for w in content_words(body) if not CHANGE.fullmatch(w) and w.lower() not in _MONTHS.lower()
            and w.lower() not in _WEEKDAYS.lower()}


def _mentions(text: str, value: str) -> bool:
    number = _numeric(value)
    if number is not None:
        return any(_numeric(n) == number for n in re.findall(r"\d[\d,.]*\d|\d", text))
    return re.search(r"(?<![\w])" + re.escape(value) + r"(?![\w])", text, _I) is not None


def _with_unit(text: str, value: str) -> bool:
    """"18 km" said again with its unit: the same quantity, whatever words stand around it."""
    m = re.fullmatch(r"\s*(\d[\d,.]*)\s?([A-Za-z%€$£]{1,5})\s*", value)
    if m is None:
        return False
    return re.search(rf"(?<![\d.,]){re.escape(m[1])}\s?{re.escape(m[2])}\b", text, _I) is not None


def _specific(value: str) -> bool:
    """"17,800" named as the value replaced: a number that long, not a year, is no coincidence
    ("$17,300 now, not 17,800" corrects "we offered 17,800" though they share no other word)."""
    number = _numeric(value)
    return number is not None and number >= 1000 and not (1900 <= number <= 2100 and number.is_integer())


def _numeric(value: str) -> float | None:
    m = re.search(r"\d[\d,]*(?:\.\d+)?", value)
    if not m or re.search(_MONTHS, value, _I):
        return None
    try:
        return float(m.group(0).replace(",", ""))
    except ValueError:
        return None


def _dates(text: str) -> list[str]:
    return re.findall(rf"\b\d{{1,2}} (?:{_MONTHS})\b|\b(?:{_MONTHS}) \d{{1,2}}\b", text, _I)


_OLD_FIRST = [
    (re.compile(rf"\bnot\s+(?P<old>{_VALUE}|{_PHRASE}),?\s+but\s+(?P<new>{_VALUE}|{_TO_COMMA}|{_PHRASE})\b", _I),
     "{new}, not {old}"),
    (re.compile(rf"\bfrom\s+(?P<old>{_VALUE})\s+(?:to|->|→)\s+(?P<new>{_VALUE})", _I), "to {new} (from {old})"),
    (re.compile(rf"(?P<old>{_VALUE})\s*(?:->|→)\s*(?P<new>{_VALUE})", _I), "{new} (was {old})"),
]


def current_first(text: str) -> str:
    """A correction worded old value first ("not sage green but dark blue", "from 21 to 28 March")
    reworded to put the current value first ("dark blue, not sage green"): a reader, and recall,
    meet the value that holds before the one it replaced."""
    def reword(m: re.Match, form: str) -> str:
        out = form.format(new=m["new"].strip(), old=m["old"].strip())
        starts = m.start() == 0 or text[: m.start()].rstrip().endswith((".", "!", "?", ":"))
        return out[:1].upper() + out[1:] if starts and m.group(0)[:1].isupper() else out

    for rx, form in _OLD_FIRST:
        text = rx.sub(functools.partial(lambda f, m: reword(m, f), form), text)
    return text
