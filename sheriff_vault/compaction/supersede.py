"""Corrections supersede: when a value changes (a budget, a date, a venue, a count), the newer fact
is current and the older one is struck through in the topic file with the day it was replaced.

A fact supersedes an older fact of the same topic when it says so by construction ("4,500 EUR
instead of 4,000", "not sage green but dark blue", "moved it from 21 to 28 March", or an assistant
echo of it saying so), or when, with change language (a verb of changing, "now", "actually"), it
gives the same slot another value. Values and slots come from the parse: a value is a number with
the noun it counts or a date; its slot is that noun, or the subject of the clause whose predicate
holds it ("the guest count went up to 32": slot "guest count", value 32). A name is a value too,
of the noun it belongs to or the clause that holds it ("the choir is now with Dr Moreau" strikes
"the choir of Mr Halvorsen"), when no number or date changed. The old line stays, so history is
readable and a one-line diff shows the correction.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from sheriff_vault import nlp
from sheriff_vault.compaction.parts import said_words
from sheriff_vault.compaction.values import (
    LEAD,
    MONTHS,
    WEEKDAYS,
    Value,
    added,
    fact_body,
    mentions,
    names,
    numeric,
    read_ahead,
    said_changed,
    same_value,
    stand_ins,
    value_pairs,
    values,
)
from sheriff_vault.store.items import Item, parse_item
from sheriff_vault.text import correction_lead, rarity, stem, words

if TYPE_CHECKING:
    from spacy.tokens import Doc

    from sheriff_vault.compaction.parts import Unit
    from sheriff_vault.store.topics import Topic

_DEBUG = bool(__import__("os").environ.get("SV_DEBUG_SUPERSEDE"))


# -- what a sentence says changed ---------------------------------------------------------------

def note_stand_ins(units: list[Unit]) -> None:
    """Add to each unit the change of person its turn says (`stand_ins`: "Marek has flu, so Ilse is
    pacing me instead"), as (new, old) pairs, when its line names the new person: the line is
    written with the one who holds the part now first ("Ilse, not Marek: ..."), and strikes an
    older line that names only the other (`_corrected`). The turn, not the line, is read for whom
    the new person stands in for; a line that kept only the sentence naming the new person opens
    on both, so it reads whole."""
    said_by_turn: dict[str, list[tuple[str, list[str]]]] = {}  # a turn's units read its parse once
    for unit in units:
        if unit.turn.id not in said_by_turn:
            said_by_turn[unit.turn.id] = stand_ins(nlp.parse_one(unit.turn.content, entities=False))
        body = fact_body(unit.fact or unit.text)
        said = {w.lower() for w in words(body)}
        for new, others in said_by_turn[unit.turn.id]:
            if not {w.lower() for w in words(new)} <= said:
                continue
            pairs = [(_cased(new), _cased(old)) for old in others]
            unit.corrects += [p for p in pairs if p not in unit.corrects]
            if unit.fact and len(pairs) == 1 and not mentions(body, pairs[0][1]):
                lead = LEAD.match(unit.fact)
                cut = lead.end() if lead else 0
                unit.fact = f"{unit.fact[:cut]}{correction_lead(*pairs[0])}{unit.fact[cut:]}"


def _cased(name: str) -> str:
    """A name as a reader writes it: one typed in lower case is given its capitals."""
    return name.title() if name.islower() else name


# -- striking -----------------------------------------------------------------------------------

def supersede(topic: Topic, units: list[Unit], day: str | Callable[[Unit], str]) -> list[tuple[str, Unit]]:
    """Strike through the topic's older facts that `units` (this sleep's, already in the topic)
    correct; returns (text struck, the unit that corrected it). `day` is written as the day each
    was superseded: one for all, or the day of the unit that corrected it (when it was said, which
    "as of" questions read: a value moved in May was not current in June, whenever the sleep ran)."""
    struck: list[tuple[str, Unit]] = []
    # Read once, not per unit (a long sleep adds hundreds of lines to one topic); a strike below
    # rewrites one line in place, and the list takes that line as read again.
    items = [i for i in topic.items() if i.kind in ("fact", "event")]
    read_ahead(units)
    for unit in units:
        mine = [i for i in items if unit.turn.id in i.turn_ids]
        if not mine:
            continue
        # where the unit's own line stands: a line that only folds it in as an echo of an earlier
        # turn stands where that turn did, and what that turn said after it is still older
        first = min(i.line for i in ([i for i in mine if i.turn_ids[0] == unit.turn.id] or mine))
        older = [i for i in items if not i.superseded and unit.turn.id not in i.turn_ids
                 and (i.line < first or (i.date and mine[0].date and i.date < mine[0].date))]
        for old in sorted(_corrected(unit, older), key=lambda i: -i.line):  # bottom up: a split adds a line
            if _DEBUG:
                print(f"supersede: {unit.turn.id} {unit.text[:70]!r} strikes {old.text[:70]!r}")
            text, new = _strike(topic, old, unit, day(unit) if callable(day) else day)
            if new is None:  # split in two: the lines below moved down, so read them again
                items = [i for i in topic.items() if i.kind in ("fact", "event")]
            else:
                items[items.index(old)] = parse_item(new.raw, old.kind, old.line) or new
            struck.append((text, unit))
    return struck


def _strike(topic: Topic, old: Item, unit: Unit, day: str) -> tuple[str, Item | None]:
    """Strike `old`, or only its sentences `unit` corrects: "The party is on Saturday at Riverside
    Park. Budget is 400 USD." keeps the day and place as a current line and strikes the budget on
    a line of its own. The struck line names the turn that corrected it ("(superseded DAY by t34)"):
    a reader, and recall, find the current value from it. Returns the text struck and the struck
    line (None when the fact was split)."""
    by = unit.turn.id
    lead = LEAD.match(old.text)
    head = lead.group(0) if lead else ""
    sentences = [s.text for s in nlp.parse_one(old.text[len(head):], entities=False).sents]
    if len(sentences) > 1:
        hit = [s for s in sentences if _corrected(unit, [replace(old, text=head + s)])]
        if hit and len(hit) < len(sentences):
            hit = _saying_the_same(hit, sentences, unit)
        if hit and len(hit) < len(sentences):
            kept = head + " ".join(s for s in sentences if s not in hit)
            gone = head + " ".join(hit)
            topic.body.replace_item(old, replace(old, text=kept),
                                    replace(old, text=gone, superseded=day, superseded_by=by))
            return gone, None
    return old.text, topic.body.replace_item(old, replace(old, superseded=day, superseded_by=by))


def _saying_the_same(hit: list[str], sentences: list[str], unit: Unit) -> list[str]:
    """The sentences of a line that a correction strikes: those it corrects on their own, and those
    saying a value one of them loses ("I entered 860 as the cost." beside an echo of it that names
    the form): a value replaced is replaced wherever the line says it. A value the correction
    says itself is no value it replaces."""
    said = fact_body(unit.fact or unit.text)
    gone = [v for s in hit for v in values(nlp.parse_one(s, entities=False)) if not mentions(said, v.text)]
    return [s for s in sentences if s in hit or any(same_value(v, g) for v in values(nlp.parse_one(s, entities=False))
                                                    for g in gone)]


def _corrected(unit: Unit, older: list[Item]) -> list[Item]:
    """The older facts `unit` corrects: those holding a value it names as replaced, else those
    giving a slot it changes another value."""
    text = fact_body(unit.fact or unit.text)
    pairs = value_pairs(text)
    pairs += [p for p in unit.corrects if p not in pairs]
    found: list[Item] = []
    for new, old in pairs:
        for item in older:
            if item not in found and mentions(item.text, old) and not mentions(item.text, new) \
                    and _the_value_of(item.text, old, new, text, len(older)):
                found.append(item)
    if found:
        return found
    doc = nlp.parse_one(text, entities=False)
    olds = [o for _, o in pairs]

    # the whole fact's values: the old date a move leaves may be named a sentence before ("can't do
    # the 20th. Moved to ...")
    told = [v for v in values(doc) if not any(mentions(o, v.text) or mentions(v.text, o) for o in olds)]
    batched = False
    for sent in doc.sents:
        changed = [v for v in told if sent.start_char <= v.start < sent.end_char
                   and ("correction" in unit.flags or said_changed(doc, v))]
        if changed and not batched:  # every older fact is read below: parse them in one batch
            nlp.parse((fact_body(i.text) for i in older), entities=False)
            batched = True
        for item in older:
            if changed and item not in found and _replaces(changed, told, item, text, unit.at):
                found.append(item)
    return found or _renamed(unit, doc, older)


def _renamed(unit: Unit, doc: Doc, older: list[Item]) -> list[Item]:
    """The older facts a change of name corrects: the correction names someone or something with
    change language in the name's clause and no word that adds it ("the choir is now with Dr
    Moreau", "found a cottage in Portree instead"), and an older fact names another in the same
    slot ("the choir of Mr Halvorsen") and not the new one."""
    new = [n for n in names(doc) if ("correction" in unit.flags or said_changed(doc, n)) and not added(doc, n)]
    if not new:
        return []
    found: list[Item] = []
    bodies = [fact_body(item.text) for item in older]
    for item, body, parsed in zip(older, bodies, nlp.parse(bodies, entities=False), strict=True):
        said = {w.lower() for w in words(body)}
        held = names(parsed)
        if any(not n.words & said and any(h.slot & n.slot and not h.words & n.words for h in held) for n in new):
            found.append(item)
    return found


def _replaces(changed: list[Value], said: list[Value], item: Item, text: str = "",
              at: dt.datetime | None = None) -> bool:
    """A changed value gives another value to a slot `item` holds: the same kind, another value,
    and the same slot; or, for a date whose clause names no slot, the fact names the item's date
    too, the one it moves away from ("the hall is taken on the 19th, so we sing on the 26th now");
    or, for an amount whose clause names no slot of the item's ("it's 95 now", "so that's 1,400 then"),
    the item's one amount near it, on a line about the same thing (`_unnamed`); for a time or a date
    only when the fact names no other of its kind (that would be the one it leaves) but the day it
    was said, `at` ("rang this morning (9 April)")."""
    held = values(nlp.parse_one(fact_body(item.text), entities=False))
    for new in changed:
        for was in held:
            if was.kind != new.kind or same_value(was, new):
                continue
            if _same_slot(new, was) and not any(same_value(n, was) for n in changed):
                return True
            if new.kind == "date" and any(same_value(n, was) for n in said) \
                    and not any(same_value(new, h) for h in held):
                return True
            left = new.kind != "number" and any(v.kind == new.kind and not any(same_value(v, n) for n in changed)
                                                and not (at and v.norm == (at.day, at.month)) for v in said)
            if not left and _unnamed(new, was, held, item) and text and _shares_words(text, item.text):
                return True
    return False


def _unnamed(new: Value, was: Value, held: list[Value], item: Item) -> bool:
    """A new value whose clause names nothing it is the value of ("they pushed us back to 16:10",
    "they can fit me in on the 23rd instead"), said with change language, for the one value of its kind the
    older line holds: its one time of day, or its one date still ahead when it was said (a plan is
    what moves; a day already past is not). Amounts have their own test."""
    if new.kind == "number":
        return _unnamed_amount(new, was, held)
    if new.slot and was.slot:
        return False  # each names what it is the date of, and they differ
    same = [v for v in held if v.kind == new.kind]
    if new.kind == "date":
        said = item.when
        same = [v for v in same if v.norm[1] and (said is None or (v.norm[1], v.norm[0]) > (said.month, said.day))]
    return same == [was]


def _unnamed_amount(new: Value, was: Value, held: list[Value]) -> bool:
    """A new amount whose clause names no noun it is the value of, said with change language, for
    an old one that counts nothing either, the only such amount its line holds, within a factor of
    two of it: a corrected price, claim or sum moves by some part of itself, not by orders of
    magnitude."""
    if new.kind != "number" or new.named or new.counted or was.counted:
        return False
    if not new.slot <= was.slot:
        return False  # "the hall fits 250" and "we invite 300": what is done to each differs
    if len({v.norm for v in held if v.kind == "number" and not v.counted}) != 1:  # said twice is one amount
        return False
    low, high = sorted((abs(new.norm[0]), abs(was.norm[0])))
    return low > 0 and high <= 2 * low


def _same_slot(new: Value, was: Value) -> bool:
    """Two values of one slot: numbers that count different things, or a count and an amount ("60
    boxes", "2,400 EUR"), are not, whatever their clauses share; otherwise the slots the parse
    names overlap, or both count the same noun ("12 chairs", "14 chairs")."""
    if new.counted != was.counted and (new.counted or was.counted):
        return False
    return bool(new.slot & was.slot) or bool(new.counted and new.counted == was.counted)


def _shares_slot(text: str, item: str, old: str) -> bool:
    """The replaced number stands in `item` for the slot the correction's values fill."""
    slots = {w for v in values(nlp.parse_one(text, entities=False)) for w in v.slot}
    number = numeric(old)
    return any(v.slot & slots for v in values(nlp.parse_one(fact_body(item), entities=False)) if v.norm == (number,))


def _shares_words(text: str, item: str) -> bool:
    """A short number named as replaced ("33.20 instead of 31.50") corrects a line about the same
    thing: one that shares a content word with the correction besides the values."""
    def nouns(t: str) -> set[str]:
        return {stem(w) for w in said_words(t) if w.lower() not in MONTHS and w.lower() not in WEEKDAYS}
    return bool(nouns(text) & nouns(fact_body(item)))  # `text` is a body already: its heading ("Roof repair:") stays


def _the_value_of(item: str, old: str, new: str, text: str, older: int) -> bool:
    """Whether `old`, named by the correction `text` as replaced by `new`, is in `item` the value
    replaced, not a word or number that happens to stand there too: in words, a name, an uncommon
    word, or a line sharing another word with the correction; a date; a number that is specific,
    said with its unit, with the noun the new one counts, or with its slot, or on a line about the
    same thing (or one of few older lines)."""
    if _worded(old):
        return _named(old) or rarity(old) >= UNCOMMON or _shares_words(_without(text, new, old), item)
    return (numeric(old) is None or older <= 3 or _specific(old) or _with_unit(item, old)
            or _counted_alike(item, old, new) or _shares_slot(text, item, old) or _shares_words(text, item))


def _worded(value: str) -> bool:
    """A value said in words, not a number or a date ("sage green", "the hostel", "Pepa")."""
    return not any(c.isdigit() for c in value)


UNCOMMON = 2.0  # rarity (text.rarity) from which a word names one thing wherever it is said ("ibuprofen", not "book")


def _named(value: str) -> bool:
    """A name ("Station Inn", "Pepa"): mentioned anywhere, it is that thing."""
    return any(w[:1].isupper() for w in value.split())


def _without(text: str, *phrases: str) -> str:
    """`text` without the phrases of a contrast: what else it says the line must share."""
    for phrase in phrases:
        text = re.sub(re.escape(phrase), " ", text, flags=re.IGNORECASE)
    return text


def _with_unit(text: str, value: str) -> bool:
    """"18 km" said again with its unit: the same quantity, whatever words stand around it."""
    m = re.fullmatch(r"\s*(\d[\d,.]*)\s?([^\W\d_]{1,5}|%)\s*", value)
    return m is not None and re.search(rf"(?<![\d.,]){re.escape(m[1])}\s?{re.escape(m[2])}\b", text,
                                       re.IGNORECASE) is not None


def _counted_alike(item: str, old: str, new: str) -> bool:
    """"12 chairs, not 10" named as the change: the old number said before with the noun the new one
    counts ("we have 10 chairs") is that count, whatever else the two lines say."""
    m = re.fullmatch(r"\s*\d[\d,.]*\s+([^\W\d_]+)\s*", new)
    return m is not None and re.search(rf"(?<![\d.,]){re.escape(old.strip())}\s+{re.escape(m[1])}\b", item,
                                       re.IGNORECASE) is not None


def _specific(value: str) -> bool:
    """"17,800" named as the value replaced: a number that long, not a year, is no coincidence
    ("$24,600 now, not 25,100" corrects "we offered 25,100" though they share no other word)."""
    number = numeric(value)
    return number is not None and number >= 1000 and not (1900 <= number <= 2100 and number.is_integer())


# -- wording ------------------------------------------------------------------------------------


