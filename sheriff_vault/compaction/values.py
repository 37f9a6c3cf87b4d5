"""Values and their changes, read from the parse: a value is a number with the noun it counts, a
date, a time of day or a proper name (`names`); its slot is that noun, or the subject of the clause
whose predicate holds it ("the guest count went up to 32": slot "guest count", value 32). A change
is said by construction ("4,500 EUR instead of 4,000", "moved it from 21 to 28 March": a pair, new
and old) or with change language (a verb of changing, "now", "actually"). Echoes, corrections and
the plan read them alike; how a line is reworded to name the current value first is here too."""
from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from sheriff_vault import nlp
from sheriff_vault.compaction.english.supersede import (
    ADDITIVE,
    ARROW,
    CHANGE_VERBS,
    FROM_TO,
    NEW_THEN_OLD,
    NOW,
    OLD_THEN_NEW,
    RESTATING,
    STANDING_IN,
)
from sheriff_vault.compaction.english.title import HONORIFIC
from sheriff_vault.quantities import MULTIPLIERS
from sheriff_vault.text import STOPWORDS, correction_lead, names_money

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

    from sheriff_vault.compaction.parts import Unit


LEAD = re.compile(r"^[^:]{1,60}:\s")  # "Lena: ", 'User, asked "…?": ': who said a fact, before what they said
MONTHS = {name.lower(): i for names in (calendar.month_name, calendar.month_abbr)
          for i, name in enumerate(names) if name}
WEEKDAYS = {name.lower() for names in (calendar.day_name, calendar.day_abbr) for name in names}
_ORDINAL = re.compile(r"(\d{1,2})[a-z]{0,2}$")  # "27", "27th"
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
# a number and the magnitude it abbreviates, as one token ("88k"); "m" is left out, as metres
_ABBREVIATED = re.compile(rf"({NUMBER.pattern})({'|'.join(k for k in MULTIPLIERS if len(k) <= 2 and k != 'm')})",
                          re.IGNORECASE)
_CLOCK = re.compile(r"(?P<hour>\d{1,2})(?:(?P<sep>[:.])(?P<minute>\d{2}))?\s?(?P<half>[ap]\.?m\.?)?(?![a-z])")
_HALVES = ("am", "pm", "a.m.", "p.m.")
_SLOT_POS = ("NOUN", "PROPN")
_DIRECTIONS = ("up", "down")  # a value that goes up or down to another has changed
_ROLES = ("dobj", "attr", "oprd")  # what a verb says of its subject or does to its object


@dataclass(frozen=True)
class Value:
    """A value said in a sentence: a date (day, month) or a number (with what it counts)."""

    text: str
    kind: str  # "date" or "number"
    norm: tuple[float, ...]
    start: int  # character offsets in the parsed text
    end: int
    slot: frozenset[str]  # lemmas of what it is the value of ("guest", "count"); empty when the parse names none
    counted: str = ""  # the noun a number counts ("chair" in "12 chairs"); not a unit ("EUR", "km")
    named: bool = True  # the slot holds a noun, not only the verb of the clause ("they quoted 2,400": quote)


def values(doc: Doc | Span) -> list[Value]:
    """The dates and numbers a parsed text states, each with its slot. A whole parse's values are
    read once and kept with it (the corrections stage reads each older line once per new fact)."""
    if not hasattr(doc, "user_data"):  # a Span is read each time
        return _values(doc)
    whole = cast("Doc", doc)
    return list(nlp.kept(whole, _VALUES, lambda: tuple(_values(whole))))


_VALUES = ("sheriff_vault", "values")  # the key of a parse's values in its user_data


def _values(doc: Doc | Span) -> list[Value]:
    out: list[Value] = []
    toks = list(doc)
    i = 0
    while i < len(toks):
        found = _date_at(toks, i) or _time_at(toks, i) or _number_at(toks, i)
        if found is None:
            i += 1
            continue
        value, i = found
        out.append(value)
    return out


def _date_at(toks: list[Token], i: int) -> tuple[Value, int] | None:
    """"Friday 27 March 2026", "27th of March", "March 27", "the 27th": a day and a month (0: unknown)."""
    j = i + 1 if toks[i].lower_ in WEEKDAYS and i + 1 < len(toks) else i
    j += 1 if toks[j].text == "," and j + 1 < len(toks) else 0
    day = _day(toks[j].text)
    month, end = 0, j + 1
    if day:
        k = j + 1
        if k + 1 < len(toks) and toks[k].is_alpha and len(toks[k]) == 2 and toks[k].lower_ not in MONTHS:
            k += 1
        if k < len(toks) and toks[k].lower_ == "of":
            k += 1
        if k < len(toks) and toks[k].lower_.rstrip(".") in MONTHS:
            month, end = MONTHS[toks[k].lower_.rstrip(".")], k + 1
        elif not (toks[j].text[-2:].isalpha() and j > 0 and toks[j - 1].lower_ == "the"):
            return None  # a bare number, not "the 27th"
    elif toks[j].lower_ in MONTHS and len(toks[j].text) > 2 and j + 1 < len(toks) and _day(toks[j + 1].text):
        month, day, end = MONTHS[toks[j].lower_], _day(toks[j + 1].text), j + 2
    else:
        return None
    if end < len(toks) and _year(toks[end].text):
        end += 1
    span = toks[i].doc[toks[i].i:toks[end - 1].i + 1]
    return Value(span.text, "date", (float(day), float(month)), span.start_char, span.end_char, _slot(toks[j])), end


def _time_at(toks: list[Token], i: int) -> tuple[Value, int] | None:
    """A time of day: "16:10", "9:15am", "7 pm", "7.30pm" (hours and minutes, on a 24-hour clock)."""
    m = _CLOCK.fullmatch(toks[i].lower_)
    end = i + 1
    half = m["half"] if m else None
    if m and not half and end < len(toks) and toks[end].lower_ in _HALVES:
        half, end = toks[end].lower_, end + 1
    if m is None or not (m["minute"] or half):
        return None  # a bare number is no time; "12.40" alone is an amount
    hour, minute = int(m["hour"]), int(m["minute"] or 0)
    if half and not 1 <= hour <= 12 or hour > 23 or minute > 59 or (m["sep"] == "." and not half):
        return None
    hour += 12 if half and half.startswith("p") and hour < 12 else 0
    hour -= 12 if half and half.startswith("a") and hour == 12 else 0
    span = toks[i].doc[toks[i].i:toks[end - 1].i + 1]
    return Value(span.text, "time", (float(hour), float(minute)), span.start_char, span.end_char,
                 _slot(toks[i])), end


def _year(text: str) -> bool:
    return text.isdigit() and 1900 <= int(text) <= 2100


def _day(text: str) -> int:
    m = _ORDINAL.fullmatch(text)
    return int(m.group(1)) if m and 1 <= int(m.group(1)) <= 31 else 0


def _number_at(toks: list[Token], i: int) -> tuple[Value, int] | None:
    """A number ("4,500", "33.20") with its currency, unit or counted noun ("24 workers", "50 mg",
    "12.40 per bag"); times ("8:15"), years and versions ("Postgres 16") are not values here."""
    tok = toks[i]
    said, scale = tok.text, 1.0
    if short := _ABBREVIATED.fullmatch(said):  # "88k", "1.2bn": the tokenizer keeps the suffix on the number
        said, scale = short.group(1), MULTIPLIERS[short.group(2).lower()]
    if not NUMBER.fullmatch(said) or _year(said):
        return None
    if i > 0 and toks[i - 1].pos_ == "PROPN" and toks[i - 1].text[:1].isupper() and tok.dep_ != "pobj":
        return None
    first, end = i - 1 if i > 0 and toks[i - 1].is_currency else i, i + 1
    # an abbreviated number is tagged a noun, and hangs on what it counts as a compound ("the £82k top")
    counts = ("nummod", "compound", "amod") if scale != 1.0 else ("nummod",)
    # a noun the sentence denies ("now 900 and not the earlier sum") is what the value replaces,
    # never what it counts or is the value of, however the parser hangs the number on it
    counted = tok.head if tok.dep_ in counts and 0 < tok.head.i - tok.i <= 3 and not nlp.negated(tok.head) else None
    if counted is not None:
        end = counted.i - toks[0].i + 1
    elif end < len(toks) and (toks[end].is_currency or toks[end].text == "%" or
                              (toks[end].pos_ == "NOUN" and toks[end].dep_ != "npadvmod")):
        end += 1
    if end + 1 < len(toks) and toks[end].lower_ == "per" and toks[end + 1].pos_ == "NOUN":
        end += 2
    span = tok.doc[toks[first].i:toks[end - 1].i + 1]
    number = float(said.replace(",", "")) * scale
    after = toks[i + 1] if i + 1 < len(toks) and toks[i + 1].i < span.end else None
    noun = counted or after
    # an amount of money is the value of the noun it stands before ("the £500 deposit"), not a count of it
    money = first < i or (after is not None and (after.is_currency or names_money(after.text)))
    kind = noun.lemma_.lower() if noun is not None and noun.pos_ in _SLOT_POS and not _unit(noun) and not money else ""
    slot = _slot(counted or tok)
    verbs = {a.lemma_.lower() for a in tok.ancestors if a.pos_ in ("VERB", "AUX")}
    return Value(span.text, "number", (number,), span.start_char, span.end_char, slot, kind, bool(slot - verbs)), end


def _slot(tok: Token) -> frozenset[str]:
    """What a value is the value of: the noun it counts, with its compounds, and the subject of the
    clause whose predicate holds it ("the deposit is 660 EUR": deposit; "12 chairs": chair), or its
    object when the subject is a pronoun ("she gives a talk on Tuesday": talk)."""
    words = _noun(tok) if tok.pos_ in _SLOT_POS and not _unit(tok) and not _ABBREVIATED.fullmatch(tok.text) else set()
    head = tok
    while head.head.i != head.i and head.pos_ not in ("VERB", "AUX"):  # a root heads itself
        head = head.head
        if head.pos_ in _SLOT_POS and head.dep_ in ("nsubj", "nsubjpass", "ROOT"):
            return frozenset(words | _noun(head))
    if head.pos_ == "VERB" and head.lemma_.lower() not in CHANGE_VERBS and tok.dep_ == "dobj" \
            and not _restates(head, tok):
        words.add(head.lemma_.lower())  # "they quoted 2,400": what was quoted
    for deps in (("nsubj", "nsubjpass"), ("dobj",)):
        nouns = [c for c in head.children if c.dep_ in deps and c.pos_ in _SLOT_POS and c.i != tok.i
                 and not nlp.negated(c)]
        if nouns:
            return frozenset(words.union(*(_noun(c) for c in nouns)))
    return frozenset(words)


@dataclass(frozen=True)
class Name:
    """A proper name said as the value of a slot ("the choir is now with Dr Moreau": slot
    "choir"). `words`: its words in lower case, without a title of address ("dr")."""

    text: str
    words: frozenset[str]
    start: int
    end: int
    slot: frozenset[str]


def names(doc: Doc | Span) -> list[Name]:
    """The proper names a parsed text states in a slot (`_name_slot`): runs of capitalised words the
    tagger reads as proper nouns (`_name_runs`). A name whose slot the parse does not give is left
    out: nothing says what it is the value of."""
    out: list[Name] = []
    for words, span in _name_runs(doc):
        inside = {t.i for t in span}
        root = next((t for t in span if t.head.i not in inside or t.head.i == t.i), span[-1])
        slot = _name_slot(root) - {t.lemma_.lower() for t in span}
        if slot:
            out.append(Name(span.text, words, span.start_char, span.end_char, slot))
    return out


def _name_runs(doc: Doc | Span, cased: bool = True) -> list[tuple[frozenset[str], Span]]:
    """Runs of words the tagger reads as proper nouns, not a month, a weekday or an acronym ("USD",
    "BBC"): (their words in lower case but a title of address, the run). Capitalised unless not
    `cased`: a name typed in lower case is still one, though the tagger reads a lower-case noun as
    a name at times."""
    out: list[tuple[frozenset[str], Span]] = []
    run: list[Token] = []
    for tok in (*doc, None):
        if tok is not None and _name_word(tok, cased):
            run.append(tok)
            continue
        words = frozenset(t.lower_ for t in run if t.lower_.rstrip(".") not in HONORIFIC)
        if words:
            out.append((words, run[0].doc[run[0].i:run[-1].i + 1]))
        run = []
    return out


def _name_word(tok: Token, cased: bool = True) -> bool:
    return tok.pos_ == "PROPN" and tok.is_alpha and (tok.text[:1].isupper() or not cased) \
        and not tok.text.isupper() and tok.lower_ not in MONTHS and tok.lower_ not in WEEKDAYS


def _name_slot(tok: Token, depth: int = 0) -> frozenset[str]:
    """What a name is the value of, from where it hangs: a noun beside it or that it belongs to
    ("our plumber Ruth", "Tomasz, the new mechanic", "Ms Okonjo's choir", "the choir of Mr
    Halvorsen", "a cottage at Staffin"); the subject (else the object) of the clause whose copula or
    preposition holds it ("the choir is now with Dr Moreau", "found a cottage in Portree"); the verb
    that takes it as its object ("she sings Schubert": "~sing"). A name that is its clause's subject
    fills no slot: what someone does is no value they hold."""
    beside = [c for c in tok.children if c.dep_ in ("appos", "compound") and c.pos_ == "NOUN"]
    return frozenset().union(*(_noun(c) for c in beside)) | _held_by(tok, depth)


def _held_by(tok: Token, depth: int) -> frozenset[str]:
    """The slot a name fills by where it hangs (`_name_slot`), without the nouns beside it."""
    head = tok.head
    if tok.dep_ in ("poss", "compound", "appos") and head.pos_ == "NOUN":
        return frozenset(_noun(head))
    if tok.dep_ in ("appos", "conj") and head.pos_ == "PROPN" and depth < 3:
        return _name_slot(head, depth + 1)  # "Brahms, Fauré and Ravel": each fills the first one's slot
    # a copula's complement, whatever role the tagger gives it ("the coach is now Ms Haddad")
    clause = head.head if tok.dep_ == "pobj" else head if head.pos_ == "AUX" and "subj" not in tok.dep_ else None
    if clause is not None and clause.pos_ == "NOUN":
        return frozenset(_noun(clause))
    if clause is not None and clause.pos_ in ("VERB", "AUX"):
        for deps in (("nsubj", "nsubjpass"), ("dobj",)):
            nouns = [c for c in clause.children if c.dep_ in deps and c.pos_ == "NOUN" and not nlp.negated(c)]
            if nouns:
                return frozenset(set().union(*(_noun(c) for c in nouns)))
    if tok.dep_ == "dobj" and head.pos_ == "VERB" and head.lemma_.lower() not in CHANGE_VERBS \
            and not _restates(head, tok):
        return frozenset({f"~{head.lemma_.lower()}"})  # a verb's object: matches only another of that verb
    return frozenset()


def added(doc: Doc, name: Name) -> bool:
    """The name's clause adds it to what holds ("Tom is coming too", "also booked the Crown")."""
    anchor = doc.char_span(name.start, name.end, alignment_mode="expand")
    if anchor is None:
        return False
    verb = _clause(anchor.root)
    return any(t.lower_ in ADDITIVE and _clause(t) == verb for t in anchor.sent)


def stand_ins(doc: Doc) -> list[tuple[str, list[str]]]:
    """Who a text says now takes another person's part, and whose part it may be: a person named as
    a clause's subject with the adverb of substitution in that clause ("Marek has flu, so Ilse is
    pacing me instead"; not "she wants Ilse instead", whose object is what substitutes) or a verb
    of standing in ("Priya is taking over", "Ana will cover for Sam"), and the other people the text
    names as a clause's subject or as the one stood in for. (A name held in a slot, "the choir is
    now with Dr Moreau", is `names`'s.) Each: (the new person's name, [each other person's name]),
    as the text writes them; none when the text names no other."""
    runs = _name_runs(doc, cased=False)
    out: list[tuple[str, list[str]]] = []
    for words, span in runs:
        root = span.root
        verb = root.head
        if root.dep_ not in ("nsubj", "nsubjpass") or verb.pos_ not in ("VERB", "AUX") or root != _subject(verb):
            continue
        standing = _standing_in(verb)
        if not standing and (not any(_instead(t) and _clause(t) == verb for t in root.sent)
                             or any(c.dep_ == "dobj" and c.pos_ == "PROPN" for c in verb.children)):
            continue
        if any(t.lower_ in ADDITIVE and _clause(t) == verb for t in root.sent):
            continue
        stood_for = {t.i for p in verb.children if p.dep_ in ("dobj", "prep", "prt")
                     for t in (p, *p.subtree) if t.dep_ in ("dobj", "pobj")} if standing else set()
        others = [s.text for w, s in runs if not w & words and ("subj" in s.root.dep_ or s.root.i in stood_for)]
        if others:
            out.append((span.text, others))
    return out


def _subject(verb: Token) -> Token | None:
    """A verb's subject; of two the parser gives it (in "ana's away, sam is covering" both may hang
    on "covering"), the one nearest before it: the other is another clause's, run on."""
    subjects = [c for c in verb.children if "subj" in c.dep_]
    before = [c for c in subjects if c.i < verb.i]
    return max(before, key=lambda c: c.i) if before else (subjects[0] if subjects else None)


def _instead(tok: Token) -> bool:
    """The adverb of substitution said alone: "instead of X" contrasts two values (`value_pairs`)."""
    return tok.lower_ in STANDING_IN and not (tok.i + 1 < len(tok.doc) and tok.doc[tok.i + 1].lower_ == "of")


def _standing_in(verb: Token) -> bool:
    """A verb of taking another's part, with its particle ("take over", not "take") and "for" where it
    needs one ("cover for", "stand in for": "stood in the rain" and "filled the form in" stand in for
    nobody)."""
    lemma = verb.lemma_.lower()
    parts = [c.lower_ for c in verb.children if c.dep_ == "prt"]
    ways = [lemma, *(f"{lemma} {p}" for p in parts)]
    if any(c.dep_ == "prep" and c.lower_ == "for" for c in verb.children):
        ways += [f"{w} for" for w in ways]
    return any(w in STANDING_IN for w in ways)


def _restates(verb: Token, value: Token) -> bool:
    """A verb with a pronoun object besides the value ("make that 2,450", "call it 40") sets what
    the pronoun stands for, a value said before: the verb is no slot of its own. The tagger reads a
    demonstrative before a number as a conjunction at times, so "that" and "this" count by form."""
    return any(c.i != value.i and c.dep_ in ("dobj", "dative") and (c.pos_ == "PRON" or c.lower_ in ("that", "this"))
               for c in verb.children)


def _noun(tok: Token) -> set[str]:
    return {t.lemma_.lower() for t in (tok, *tok.children) if t.pos_ in _SLOT_POS and t.dep_ in ("compound", tok.dep_)
            and not _unit(t) and not _ABBREVIATED.fullmatch(t.text)}


def _unit(tok: Token) -> bool:
    """A currency or a unit abbreviation ("EUR", "eur", "euros", "km") says what a value measures,
    not what it is of."""
    return tok.is_currency or tok.text.isupper() or len(tok.text) <= 2 or names_money(tok.text)


def fact_body(text: str) -> str:
    return LEAD.sub("", text, count=1)


def value_pairs(text: str) -> list[tuple[str, str]]:
    """(new, old) values a sentence states by construction: "X instead of Y", "instead of Y, X",
    "X, not Y", "X, no longer Y", "not Y but X", "from Y to X" after a verb of change, "Y -> X".
    Two values of one kind only: a number against words is a misreading ("12.40 per bag, not
    11.90", not "per bag")."""
    doc = nlp.parse_one(text, entities=False)
    said = values(doc)
    pairs: list[tuple[str, str]] = []
    for m in NEW_THEN_OLD.finditer(text):
        old = _value_from(said, m.end(), doc) or _phrase_after(doc, m.end())
        new = _value_before(said, m.start(), old) if isinstance(old, Value) else _contrasted(doc, m.start(), m.end())
        if new is None and isinstance(old, Value) and _fronted(doc, m.start()):
            new = _value_after(said, old, doc)
        _add(pairs, new, old)
    for m in OLD_THEN_NEW.finditer(text):
        _add(pairs, _value_from(said, m.end(), doc) or _phrase_after(doc, m.end()),
             _value_from(said, m.start("old"), doc) or m["old"])
    for m in FROM_TO.finditer(text):
        if _changes(doc.char_span(0, m.start(), alignment_mode="expand") or doc[:0], verbs_only=True) \
                or any(w.lower() in _DIRECTIONS for w in text[: m.start()].split()[-1:]):
            _add(pairs, _value_from(said, m.end(), doc), _value_from(said, m.start("old"), doc))
    for m in ARROW.finditer(text):
        _add(pairs, _value_from(said, m.end()), _value_before(said, m.start(), None))
    return pairs


def _add(pairs: list[tuple[str, str]], new: Value | str | None, old: Value | str | None) -> None:
    if new is None or old is None:
        return
    if isinstance(new, Value) != isinstance(old, Value) or (isinstance(new, Value) and isinstance(old, Value)
                                                            and (new.kind != old.kind or new.norm == old.norm)):
        return
    pair = (_text(new), _text(old))
    if pair[0] and pair[1] and pair[0].lower() != pair[1].lower() and pair not in pairs:
        pairs.append(pair)


def _text(value: Value | str) -> str:
    words = (value.text if isinstance(value, Value) else value).strip(" ,.;:!?\"'").split()
    while words and words[0].lower() in STOPWORDS:
        words.pop(0)
    while words and words[-1].lower() in NOW:
        words.pop()
    return " ".join(words)


def _value_from(said: list[Value], at: int, doc: Doc | None = None) -> Value | None:
    """The value said right at `at`: after "the" at most, or, with the parse, after an article and
    words that only describe it ("from the estimated 612 EUR", "not the original 40 EUR")."""
    first = next((v for v in said if v.start >= at), None)
    if first is None or first.start > at + 4 and (doc is None or not _describes_only(doc, at, first.start)):
        return None
    return first


def _describes_only(doc: Doc, start: int, end: int) -> bool:
    """Whether the words from `start` to `end` are an article and modifiers, nothing a value could
    belong to instead (no noun, no clause's verb, no punctuation): at most three of them."""
    between = [t for t in doc if start <= t.idx < end]
    return 0 < len(between) <= 3 and all(
        t.pos_ in ("DET", "ADJ", "ADV") or (t.dep_ == "amod" and t.pos_ == "VERB") for t in between)


def _fronted(doc: Doc, at: int) -> bool:
    """Whether the contrast found at `at` ("instead of", "rather than") opens its clause, with at
    most a conjunction or an adverb before it ("So instead of 40 EUR it came to 35 EUR"): the value
    it displaces comes first, and the one that holds follows in the clause."""
    cue = next((t for t in doc if t.idx >= at and t.is_alpha), None)
    return cue is not None and all(t.pos_ in ("CCONJ", "ADV", "INTJ", "PUNCT") for t in cue.sent if t.i < cue.i)


def _value_after(said: list[Value], old: Value, doc: Doc) -> Value | None:
    """The first value of the kind of `old` said after it in its sentence."""
    span = doc.char_span(old.start, old.end, alignment_mode="expand")
    end = span.sent.end_char if span is not None else len(doc.text)
    return next((v for v in said if old.end <= v.start < end and v.kind == old.kind), None)


def _value_before(said: list[Value], at: int, like: Value | str | None) -> Value | None:
    """The nearest value ending before `at`, of the kind of `like`: "31 km there, not 26 km"."""
    kind = like.kind if isinstance(like, Value) else None
    before = [v for v in said if v.end <= at and (kind is None or v.kind == kind) and at - v.end <= 24]
    return before[-1] if before else None


def _phrase_after(doc: Doc, at: int) -> str | None:
    """The name a contrast negates ("instead of the old ruler" -> "old ruler"): up to three words
    of a noun phrase, from `at` to the clause's end."""
    words = [t for t in doc if t.idx >= at][:4]
    out = []
    for t in words:
        if t.is_punct or not (t.pos_ in (*_SLOT_POS, "ADJ", "DET") or _code(t)) or t.like_num:
            break
        out.append(t)
    out = [t for t in out if t.pos_ != "DET"]
    return " ".join(t.text for t in out) if out and any(t.pos_ in ("NOUN", "PROPN", "ADJ") or _code(t)
                                                        for t in out) else None


def _code(tok: Token) -> bool:
    """A code written with digits and letters ("73B", "4A", "BA117"): it names a thing (a plot, a
    room, a flight), whatever part of speech the tagger gives it. A number the value reader takes
    with its unit ("5pm", "88k") is read as that value first."""
    text = tok.text.rstrip(".")
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text) and text.isalnum() and not tok.like_num


def _named(tok: Token) -> bool:
    """A word a contrast can set against another: a noun, a name or a code."""
    return tok.pos_ in _SLOT_POS or _code(tok)


def _proper(tok: Token) -> bool:
    """A name or a code: what a term said alone can be ("Tuesday!"), unlike a word of talk ("Thanks!")."""
    return tok.pos_ == "PROPN" or _code(tok)


def _contrasted(doc: Doc, cue: int, at: int) -> str | None:
    """The name a contrast asserts, from the parse: the noun the negated term hangs on ("naproxen
    ... instead of ibuprofen", "the Crown, not the Swan"), or the term before the cue in the
    negated one's role ("called Luna now, not Pepa", "booked the Lux rather than the hostel")."""
    old = next((t for t in doc if t.idx >= at and _named(t)), None)
    if old is None:
        return None
    while old.dep_ == "compound" and old.head.i != old.i:  # "the Station Inn Hotel": the phrase's head
        old = old.head
    head = old.head
    while head.pos_ in ("ADP", "ADV", "CCONJ", "PART") and head.head.i != head.i:
        head = head.head
    if not (_named(head) and head.idx < cue):
        before = [c for c in head.children if c.idx < cue and _named(c)
                  and (c.dep_ == old.dep_ or c.dep_ in _ROLES or c.dep_.startswith("nsubj"))]
        if old.dep_ == "pobj":  # "now at X instead of Y": Y's place is a preposition's object, as X's is
            before = [o for c in head.children if c.pos_ == "ADP" and c.idx < cue for o in c.children
                      if o.dep_ == "pobj" and _named(o) and o.idx < cue][:1] or before
        opens = old.sent.start > 0 and old.sent[0].idx >= cue  # the contrast opens its sentence
        if not before and _proper(old) and opens and _fragment(said := doc[old.sent.start - 1].sent):
            before = [t for t in said if _proper(t)][-1:]  # "Lagos! Not Abuja.": a name, then the one it displaces
        if not before:
            return None
        head = before[-1]
    return " ".join(t.text for t in head.subtree if t.i <= head.i and (t.dep_ == "compound" or t is head))


def _fragment(sent: Span) -> bool:
    """A sentence of a few words and no verb: a term said on its own ("73B!", "Tuesday.")."""
    said = [t for t in sent if not t.is_punct and not t.is_space]
    return 0 < len(said) <= 3 and not any(t.pos_ in ("VERB", "AUX") for t in said)


def _changes(sent: Span | Doc, verbs_only: bool = False) -> bool:
    """Change language: a verb of changing, a verb that goes up or down, or a word that sets now
    against before. `verbs_only`: the verbs alone, in any part of speech the tagger gives them
    (a sentence without another verb has "moves" read as a noun), for "from Y to X"."""
    for t in sent:
        if t.lemma_.lower() in CHANGE_VERBS and (verbs_only or t.pos_ == "VERB" or t.lower_ == "change"):
            return True
        if t.pos_ == "VERB" and any(c.lower_ in _DIRECTIONS for c in t.children):
            return True
        if not verbs_only and _sets_now(t):
            return True
    return False


def read_ahead(units: Sequence[Unit]) -> None:
    """Parse the sentences the units' corrections are read from in one batch (one by one costs
    twice as much); the readers below find them parsed."""
    nlp.parse((fact_body(u.fact or u.text) for u in units), entities=False)


def replaced_values(units: Sequence[Unit]) -> set[str]:
    """The old values these units' corrections name as replaced, by construction or by an echo
    ("naproxen, not ibuprofen": ibuprofen)."""
    return {old for _, old in stated_pairs(units)}


def stated_pairs(units: Sequence[Unit]) -> list[tuple[str, str]]:
    """(new, old) values these units' corrections state, by construction or by an echo."""
    return list(dict.fromkeys(p for u in units for p in [*u.corrects, *value_pairs(fact_body(u.fact or u.text))]))


def changes_a_value(text: str) -> bool:
    """The text gives some value with change language in its own clause ("the test is now on 9 June")."""
    doc = nlp.parse_one(text, entities=False)
    return any(said_changed(doc, v) for v in values(doc))


def said_changed(doc: Doc, value: Value | Name) -> bool:
    """Change language stands in the value's own clause: a verb of changing (or one that goes up
    or down) above it, or a word that sets now against before in the clause of the same verb."""
    anchor = doc.char_span(value.start, value.end, alignment_mode="expand")
    if anchor is None:
        return False
    root = _hook(anchor)
    came = root  # the word below `word` on the way up: how the value hangs on it
    for word in (root, *root.ancestors):
        if word.lower_ in _DIRECTIONS or word.pos_ in ("VERB", "AUX") and (
                word.lemma_.lower() in CHANGE_VERBS or _made_it(word, anchor)
                or _goes_up_or_down(word) and not came.dep_.startswith("nsubj")):
            return True  # "moved to", "went up to", "is down to", "down to 38"; not "lifts of 12% show up"
        came = word
    verb = _clause(root)
    return any(_sets_now(t) and _clause(t) == verb for t in root.sent)


def _hook(span: Span) -> Token:
    """The word by which a value hangs on the sentence: the one attached to a word outside it. The
    parser may read a month as a verb and start a new clause at it ("on Sunday 24 May 2026": "May"
    becomes a root); the value still hangs where its first word does, here on "on"."""
    outside = [t for t in span if not span.start <= t.head.i < span.end and t.dep_ != "ROOT"]
    return outside[0] if outside else span.root


def _made_it(verb: Token, value: Span) -> bool:
    """"Make that 19", "make it Friday": the verb of restating, said as an instruction (no subject:
    "I can make it Friday" says who can come), the pronoun that stands for the value said before
    right after it, and the new value straight after that, with no preposition between (unlike "make
    it to the station by 9")."""
    doc = verb.doc
    said = verb.i + 1
    return verb.lemma_.lower() in RESTATING and said < len(doc) and doc[said].lower_ in ("it", "that") \
        and said < value.start and not any(t.pos_ == "ADP" for t in doc[said + 1:value.start]) \
        and not any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children)


def _sets_now(tok: Token) -> bool:
    """A word that sets now against before: "now", "instead", "no longer", "from now on"; not "now"
    after a preposition that spans up to it ("for now", "by now", "until now": so far, until further
    notice) nor "longer" that compares ("longer games")."""
    if tok.lower_ == "longer":
        return tok.i > 0 and tok.doc[tok.i - 1].lower_ in ("no", "any")
    prep = tok.head if tok.head.pos_ == "ADP" else tok.doc[tok.i - 1] if tok.i > 0 else None
    spans_to_now = prep is not None and prep.dep_ == "prep" and prep.lower_ != "from"
    return tok.lower_ in NOW and not spans_to_now


def _goes_up_or_down(verb: Token) -> bool:
    """A verb with "up" or "down" says a value moved ("went up to 32", "dropped down 20 percent"),
    unless where it goes is a place: "cycle up to Bergen" is a journey, whatever numbers its clause holds."""
    ways = [c for c in verb.children if c.lower_ in _DIRECTIONS]
    if not ways:
        return False
    goals = [g for w in (verb, *ways) for c in w.children if c.dep_ == "prep" and c.lower_ == "to"
             for g in c.children if g.dep_ == "pobj"]
    return not goals or any(t.like_num for g in goals for t in g.subtree)


def _clause(tok: Token) -> Token:
    """The verb whose clause a word stands in (the sentence's root for a verbless fragment)."""
    return next((a for a in (tok, *tok.ancestors) if a.pos_ in ("VERB", "AUX")), tok.sent.root)


def current_first(text: str, pairs: Sequence[tuple[str, str]] = ()) -> str:
    """A correction worded old value first ("not sage green but dark blue", "from 21 to 28 March")
    reworded to put the current value first ("dark blue, not sage green"): a reader, and recall,
    meet the value that holds before the one it replaced. `pairs`: (new, old) values an echo or an
    extractor stated for the line; where the person's words name the old one first ("they took me
    off X and put me on Y"), the line opens with "Y, not X:", as it does where the contrast is
    fronted ("instead of X, it came to Y")."""
    text = _reworded(text)
    if NEW_THEN_OLD.search(text):
        pairs = [*pairs, *value_pairs(fact_body(text))]
    for new, old in pairs:
        at_old, at_new = _position(text, old), _position(text, new)
        if at_old is not None and (at_new is None or at_old < at_new):
            lead = LEAD.match(text)
            cut = lead.end() if lead else 0
            return f"{text[:cut]}{correction_lead(new, old)}{text[cut:]}"
    return text


def _position(text: str, value: str) -> int | None:
    number = numeric(value)
    if number is not None:
        return next((m.start() for m in NUMBER.finditer(text) if numeric(m.group(0)) == number), None)
    said = values(nlp.parse_one(value, entities=False))
    if said and said[0].kind == "date":  # "Friday 27 March" said as "the 27th (27 March 2026)" or "27 march"
        held = values(nlp.parse_one(text, entities=False))
        return next((v.start for v in held if same_value(v, said[0]) and v.norm[1]), None)
    m = re.search(r"(?<![\w])" + re.escape(value) + r"(?![\w])", text, re.IGNORECASE)
    return m.start() if m else None


def _reworded(text: str) -> str:
    if not (OLD_THEN_NEW.search(text) or FROM_TO.search(text) or ARROW.search(text)):
        return text
    doc = nlp.parse_one(text, entities=False)
    said = values(doc)
    m = OLD_THEN_NEW.search(text)
    if m:
        new = _value_from(said, m.end(), doc) or _phrase_after(doc, m.end())
        if new is not None:
            end = new.end if isinstance(new, Value) else text.index(new, m.end()) + len(new)
            return _put(text, m.start(), end, f"{_text(new)}, not {m['old'].strip()}")
    m = FROM_TO.search(text)
    if m and _changes(doc, verbs_only=True):
        new, old = _value_from(said, m.end(), doc), _value_from(said, m.start("old"), doc)
        if isinstance(new, Value) and isinstance(old, Value):
            return _put(text, m.start(), new.end, f"to {new.text} (from {text[m.start('old'):old.end]})")
    m = ARROW.search(text)
    if m:
        new, old = _value_from(said, m.end()), _value_before(said, m.start(), None)
        if isinstance(new, Value) and isinstance(old, Value):
            return _put(text, old.start, new.end, f"{new.text} (was {old.text})")
    return text


def _put(text: str, start: int, end: int, words: str) -> str:
    starts = start == 0 or text[:start].rstrip().endswith((".", "!", "?", ":"))
    if starts and text[start:start + 1].isupper():
        words = words[:1].upper() + words[1:]
    return text[:start] + words + text[end:]


def same_value(a: Value, b: Value) -> bool:
    if a.kind != b.kind:
        return False
    if a.kind == "date":
        return a.norm[0] == b.norm[0] and (a.norm[1] == b.norm[1] or 0 in (a.norm[1], b.norm[1]))
    return a.norm == b.norm


def numeric(value: str) -> float | None:
    m = NUMBER.search(value)
    if not m or _clock(value) or any(w.lower() in MONTHS for w in re.findall(r"[^\W\d_]+", value)):
        return None
    return float(m.group(0).replace(",", ""))


def _clock(value: str) -> bool:
    """A value that is a time of day ("16:10", "7 pm"), never an amount to compare as a number."""
    return any((c["sep"] == ":" and c["minute"]) or c["half"] for c in _CLOCK.finditer(value.lower()))


def mentions(text: str, value: str) -> bool:
    """Whether `text` states `value`: a number as any spelling of it, a date with its month however
    it is written ("Tuesday 6 October" is "Tue 6 October 2026"), anything else as said."""
    number = numeric(value)
    if number is not None:
        return any(numeric(n) == number for n in NUMBER.findall(text))
    if re.search(r"(?<![\w])" + re.escape(value) + r"(?![\w])", text, re.IGNORECASE) is not None:
        return True
    said = values(nlp.parse_one(value, entities=False))
    if len(said) != 1 or said[0].kind != "date" or not said[0].norm[1]:
        return False
    if not re.search(rf"(?<!\d)0?{int(said[0].norm[0])}(?!\d)", text):  # a date is said with its day's digits
        return False
    return any(v.norm == said[0].norm for v in values(nlp.parse_one(text, entities=False)) if v.kind == "date")


def replaced_in(text: str) -> list[str]:
    """The old values `text` says were replaced, by construction (`value_pairs`); nothing is parsed
    when it has none of the constructions."""
    if not any(p.search(text) for p in (NEW_THEN_OLD, OLD_THEN_NEW, FROM_TO, ARROW)):
        return []
    return [old for _, old in value_pairs(text)]
