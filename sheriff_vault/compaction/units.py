"""Turns to units: each informative sentence of a conversation becomes a self-contained fact.

A unit names its speaker, carries the question it answers when the answer alone would be cryptic,
and has its time written out against its own turn's timestamp: "yesterday (7 May 2023)",
"on 27 June 2026" for a date said without a year, "by Thursday (5 March 2026)" for a deadline.
Greetings, thanks, questions and sentences made of everyday words only are dropped; a sentence
that only makes sense with the one before ("It's special to me.") stays with it.
"""
from __future__ import annotations

import calendar
import contextlib
import datetime as dt
import re
from collections.abc import Container, Mapping, Sequence
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from sheriff_vault import nlp, timewin
from sheriff_vault.compaction.english.place import GENERAL, GREETING
from sheriff_vault.compaction.english.supersede import CHANGE_VERBS
from sheriff_vault.compaction.english.talk import ACKNOWLEDGING, STANCE, THANKING
from sheriff_vault.compaction.english.title import GENERIC
from sheriff_vault.compaction.english.units import (
    COMPLETING,
    CORRECTING,
    DECIDING,
    FINDING_OUT,
    LOOKING_AHEAD,
    SETTLED,
    TAKING_PLACE,
    TALK_ABOUT_THE_TALK,
)
from sheriff_vault.compaction.numbers import numbers_in
from sheriff_vault.compaction.parts import Unit, name_words, proper_names, said_words
from sheriff_vault.errors import TimePhraseError
from sheriff_vault.quantities import ORDINAL, RANGE
from sheriff_vault.store.buffer import Turn
from sheriff_vault.text import (
    BACK_REFERENCE,
    CONSTRAINT,
    rarity,
    sentences,
    stem,
    truncate,
)

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

RECENT_PAST_DAYS = 45  # a date without a year this close behind is the one just past, not next year's
_MONTH_NAMES = list(calendar.month_name)[1:]
_MONTH = "(?:" + "|".join(_MONTH_NAMES) + ")"
_RANGE = re.compile(r"\b(?P<a>\d{1,2})" + ORDINAL + r"?\s?" + RANGE + r"\s?(?P<b>\d{1,2})" + ORDINAL
                    + r"? (?:of )?(?P<mon>" + _MONTH + r")\b(?!,? \d{4})", re.IGNORECASE)
_FULL_DATE = re.compile(r"\b(?P<d>\d{1,2}) (?P<mon>" + _MONTH + r") (?P<y>\d{4})\b", re.IGNORECASE)
_NTH = re.compile(r"\bthe (?P<d>\d{1,2})" + ORDINAL + r"\b(?! (?:of )?" + _MONTH + r"\b)", re.IGNORECASE)
_MONTH_WORD = re.compile(r"\b" + _MONTH + r"\b", re.IGNORECASE)
MAX_FACT_CHARS = 320
FOLLOW_UP_CHARS = 260  # a sentence starting "It/That/They..." joins the one before, up to this size
FRAGMENT_CHARS = 80  # sentences this short in one message are one fact
HEADING_WORDS = 3  # a turn's first sentence this short ("Grant update.") is a heading for the next one
EVERYDAY = 1.0  # rarity under which an adjective is an everyday one ("good", "nice", "perfect")
_Piece = tuple[str, list["Token"]]  # a sentence's text and its tokens from the turn's parse


def make_units(turns: list[Turn], tz: str, known_names: set[str],
               subject_of: Mapping[str, int] | None = None) -> list[Unit]:
    """One unit per informative sentence of the user and assistant turns, in order. Each turn is
    parsed once; its sentences are read from that parse. `subject_of` (turn id -> the subject
    placement put it in): a question asked in one subject is no context of a reply placed in
    another ("Did the engineer check the valve?" about the boiler, answered by news of an interview)."""
    units: list[Unit] = []
    previous: list[_Piece] = []
    previous_turn: Turn | None = None
    humans = {t.speaker for t in turns if t.role == "user"}
    ignore = name_words(humans)
    chat = any(t.role == "assistant" for t in turns)
    said: dict[int, dt.date] = {}  # day of the month -> the last full date said with it ("the 19th")
    spoken = [t for t in turns if t.role in ("user", "assistant") and t.content.strip()]
    # each turn's text as written, parsed once: the parse other stages of the sleep share
    docs = {id(t): doc for t, doc in zip(spoken, nlp.parse(t.content for t in spoken), strict=True)}
    for turn in turns:
        if turn.role not in ("user", "assistant") or not turn.content.strip():
            if turn.role in ("user", "assistant"):
                previous, previous_turn = [], turn
            continue
        own = own_words(turn)
        pieces = _pieces(own, docs[id(turn)], turn.content.rfind(own))
        asked = _question_before(previous_turn, previous, turn)
        if asked and subject_of and previous_turn is not None \
                and subject_of.get(previous_turn.id, -1) != subject_of.get(turn.id, -1):
            asked = None
        asked_id = previous_turn.id if asked and previous_turn is not None else ""
        other = next(iter(humans - {turn.speaker}), "") if len(humans) == 2 and turn.role == "user" else ""
        chunks = _chunks(turn, pieces, ignore, chat)
        turn_units = [Unit(turn, k, " ".join(text for text, _ in chunk), at=turn.at or timewin.utcnow(), flags=flags)
                      for k, (chunk, flags) in enumerate(chunks)]
        for unit, (chunk, _) in zip(turn_units, chunks, strict=True):
            _alias(unit.text, [t for _, toks in chunk for t in toks])
        answer = _answering(asked[0] if asked else None, turn_units)
        for j, (unit, (chunk, _)) in enumerate(zip(turn_units, chunks, strict=True)):
            _finish(unit, chunk, tz, other, asked if j == answer else None, known_names, said)
            for m in _FULL_DATE.finditer(unit.body):
                with contextlib.suppress(ValueError):
                    said[int(m["d"])] = dt.date(int(m["y"]), _MONTH_NAMES.index(m["mon"].title()) + 1, int(m["d"]))
            if j == answer and asked and ", asked \"" in unit.fact:
                unit.asked_turn = asked_id
        units += turn_units
        previous, previous_turn = pieces, turn
    return units


def _alias(text: str, tokens: list[Token]) -> None:
    """A unit of several sentences of one parse reads as that stretch of it (nlp.alias)."""
    if len(tokens) > 1 and tokens[0].doc is tokens[-1].doc:
        span = tokens[0].doc[tokens[0].i : tokens[-1].i + 1]
        if span.text == text:
            nlp.alias(span)


def own_words(turn: Turn) -> str:
    """A turn's text without its speaker's name written before it: transcripts that print
    "Caroline: Hey Mel!" as the text of Caroline's turn would make every fact say the name twice."""
    name = turn.speaker.strip()
    head, sep, rest = turn.content.lstrip().partition(":")
    return rest.lstrip() if sep and name and head.strip().lower() == name.lower() and rest.strip() else turn.content


def _pieces(text: str, doc: Doc, offset: int = 0) -> list[_Piece]:
    """The turn's sentences (text.sentences, which knows lower-case chat and abbreviations) with their
    tokens from the turn's one parse (`text` starts at `offset` in the parsed text); a sentence that
    is not in the text as written (code stripped) is parsed on its own."""
    flat: list[str] = []
    where: list[int] = []
    for k, ch in enumerate(text):
        if not ch.isspace() or (flat and flat[-1] != " "):
            flat.append(" " if ch.isspace() else ch)
            where.append(k)
    joined = "".join(flat)
    out: list[_Piece] = []
    pos = 0
    for sent in sentences(text):
        k = joined.find(sent, pos)
        span = doc.char_span(offset + where[k], offset + where[k + len(sent) - 1] + 1, alignment_mode="expand") \
            if k >= 0 else None
        if span is None:
            out.append((sent, list(nlp.parse_one(sent))))
            continue
        pos = k + len(sent)
        if span.text == sent:
            nlp.alias(span)
        out.append((sent, list(span)))
    return out


def _chunks(turn: Turn, pieces: list[_Piece], ignore: set[str], chat: bool
            ) -> list[tuple[list[_Piece], set[str]]]:
    """A turn's informative sentences, follow-ups joined to the sentence they follow and a short
    opening heading ("Grant update.") joined to the sentence it announces. In a `chat` with an
    assistant, a message's short fragments ("the swim is 2 km now, same pool") are one statement."""
    chunks: list[tuple[list[_Piece], set[str]]] = []
    heading: _Piece | None = None
    for i, (raw, toks) in enumerate(pieces):
        piece = _trim(toks, ignore)
        if i == 0 and len(pieces) > 1 and _is_heading(toks, piece):
            heading = (piece[0].rstrip(".!:"), piece[1])
            continue
        if heading and piece[0]:
            piece = (f"{heading[0]}: {piece[0]}", heading[1] + piece[1])
            heading = None
        if not piece[0] and i == 0 and turn.role == "user" and _correcting(toks):
            piece = (raw, toks)  # "No." alone says the last thing was wrong
        sent = piece[0]
        flags = flags_of(sent, turn, i, ignore, piece[1], toks) if sent else {"skip"}
        if "skip" in flags:
            continue
        last = chunks[-1] if chunks else None
        size = sum(len(t) for t, _ in last[0]) + len(sent) if last else 0
        follow_up = bool(BACK_REFERENCE.match(sent)) and size < FOLLOW_UP_CHARS
        # Short chat fragments of one message ("the swim is 2 km now, same pool") are one statement.
        fragments = chat and last is not None and len(sent) <= FRAGMENT_CHARS \
            and len(last[0][-1][0]) <= FRAGMENT_CHARS and size <= 2 * FRAGMENT_CHARS
        if last is not None and (follow_up or fragments) and "loop" not in flags and "loop" not in last[1]:
            last[0].append(piece)
            last[1].update(flags)
        else:
            chunks.append(([piece], set(flags)))
    return chunks


def _is_heading(raw: list[Token], piece: _Piece) -> bool:
    """"Grant update.", "Emma's party.", not "That's tough." nor "Thanks for asking." nor "Good
    progress.": a heading names a subject and says nothing of it: a few words with a noun (or a
    name), no verb, no number, no comma, no evaluation."""
    sent, toks = piece
    words = sent.split()
    return 0 < len(words) <= HEADING_WORDS and sent.rstrip().endswith((".", ":")) \
        and not any(t.pos_ in ("VERB", "AUX", "NUM", "PRON") or t.text == "," or t.like_num for t in raw) \
        and any(t.pos_ == "NOUN" or (t.pos_ == "PROPN" and t.ent_type_) for t in toks if t.lower_ not in THANKING) \
        and not _evaluation(toks) and bool(said_words(sent))


def _evaluation(toks: list[Token]) -> bool:
    """"Good progress.", "Nice work!", "Great catch": verbless, and every noun has an everyday
    adjective (the words people judge with are the commonest ones), unlike "Celtic fan"."""
    things = [t for t in toks if t.pos_ in ("NOUN", "PROPN")]
    return bool(things) and not any(t.pos_ in ("VERB", "AUX") for t in toks) and all(
        any(c.dep_ == "amod" and rarity(c.lower_) < EVERYDAY for c in t.children) for t in things)


_CLAUSE_ROLES = ("nsubj", "nsubjpass", "compound", "poss")  # a name that does something in the sentence


def _lead_in(toks: list[Token], ignore: Container[str]) -> int:
    """How many tokens open the sentence without being part of what it says: interjections ("Wow,",
    "Yeah"), a greeting, a thanks or congratulations that is not for something ("Thanks, " but not
    "Congrats on the store!"), the listener's name, an opening intensifier ("So ...", "Totally, ..."),
    and a lone word set off by a comma that is not a name nor a part of the clause ("Great, ...",
    "Awesome, ..."), with the punctuation after them. A word before a colon is a heading ("So: ...")."""
    i = 0
    while i < len(toks):
        t = toks[i]
        then = toks[i + 1] if i + 1 < len(toks) else None
        set_off = then is not None and then.text in (",", "!", ".", "…")
        comma = then is not None and then.text == ","
        end = i + 1
        if t.lower_ in THANKING and not any(g.dep_ == "pobj" for c in t.children if c.dep_ == "prep"
                                            for g in c.children):
            act = any(c.dep_ == "prep" for c in t.children)  # "thanks for asking": for an act of the talk
            while end < len(toks) and (act or end < i + 4) and not toks[end].is_punct and t in toks[end].ancestors:
                end += 1  # "thanks so much", "thank you"
        elif t.lower_ in GREETING and t.pos_ != "INTJ" and (set_off or _set_off_pair(toks, i)):
            if not set_off:  # "Kia ora,", read as a name: one compound; "Morning," is one word
                end = i + 2
        elif t.dep_ == "amod" and _set_off_pair(toks, i) and toks[i + 1].lower_ in GREETING:
            end = i + 2  # "Good morning,": the adjective that wishes the greeting goes with it
        elif not (t.pos_ == "INTJ" or t.dep_ == "intj" or t.lower_ in ACKNOWLEDGING
                  or (t.pos_ == "PROPN" and t.lower_ in ignore and (set_off or t.dep_ not in _CLAUSE_ROLES))
                  or (comma and _aside(t))
                  or (i == 0 and t.lower_ in STANCE and t.head.i > t.i and t.head.pos_ not in ("ADJ", "ADV"))):
            break
        if end >= len(toks) or toks[end].text == ":":
            break
        i = end
        while i < len(toks) and toks[i].text in (",", "!", ".", "…"):
            i += 1
    return i


def _set_off_pair(toks: list[Token], i: int) -> bool:
    """Token i and the next, its head, stand apart, set off by punctuation (or the end) from what
    follows: "Kia ora," and "Good morning!" greet; "Morning shifts are booked" does not."""
    k = i + 1
    return k < len(toks) and toks[i].head.i == toks[k].i \
        and (k + 1 == len(toks) or toks[k + 1].text in (",", "!", ".", "…"))


def _aside(t: Token) -> bool:
    """A lone adjective or capitalised word before a comma that takes no part in the clause after it:
    not a named entity, no words of its own, and not the clause's only subject ("Awesome, that's
    it" but not "Sanjay, our VP, wants it")."""
    if t.pos_ not in ("ADJ", "PROPN") or t.ent_type_ or (t.dep_ != "ROOT" and any(not c.is_punct for c in t.children)):
        return False
    rest = [u for u in t.doc[t.i + 2 : t.sent.end]]
    if not rest or rest[0].pos_ == t.pos_ or not any(u.dep_ in ("nsubj", "nsubjpass") for u in rest):
        return False  # "Fast, clean, ...": a list; "Hyperoptic, 500 mbps": no clause after it
    return t.dep_ not in ("nsubj", "nsubjpass", "dobj") or any(
        c.dep_ in ("nsubj", "nsubjpass") and c.i != t.i for c in t.head.children)


def _trim(toks: list[Token], ignore: Container[str]) -> _Piece:
    """Drop lead-ins, the listener's name ("Wow, Mel! ", "Thanks, Caroline, ") and intensifiers
    ("really", "so" before an adjective) from a sentence: they carry feeling, not facts."""
    start = _lead_in(toks, ignore)
    kept = toks[start:]
    drop = {t.i for t in kept if t.lower_ in STANCE and t.dep_ == "advmod" and t.head.pos_ in ("ADJ", "VERB")
            and t.head.i == t.i + 1}
    for k, t in enumerate(kept):  # ", Mel!" closing the sentence
        if t.pos_ == "PROPN" and t.lower_ in ignore and k > 0 and kept[k - 1].text == "," \
                and all(u.is_punct for u in kept[k + 1:]):
            drop |= {kept[k - 1].i, t.i}
    kept = [t for t in kept if t.i not in drop]
    if kept and all(t.is_punct or (t.pos_ == "PROPN" and t.lower_ in ignore) for t in kept):
        kept = []
    out = " ".join("".join(t.text_with_ws for t in kept).split())
    return (out[:1].upper() + out[1:] if out and not _command(out) else out), kept


def _command(text: str) -> bool:
    """A sentence that opens on a command line ("pytest tests/test_io.py --count 5 passed", "make
    release V=2 failed"): its first word is a program's name, typed in lower case, and it stays so."""
    words = text.split()[:3]
    return bool(words) and words[0].islower() and words[0].isalpha() and any(
        w.startswith("-") or any(c in w for c in "/=_") or "." in w.strip(".") for w in words[1:])


def _answering(asked: str | None, units: list[Unit]) -> int:
    """Which of a reply's facts answers the question before it: the first, unless it shares no
    word or number with the question and a later one does ("How's the dance studio?" is answered
    by "The studio is on shaky ground", not by the "Congrats on the store!" said first)."""
    if not asked or len(units) < 2:
        return 0
    wanted = _terms(asked)
    shared = [len(wanted & _terms(u.text)) for u in units]
    return 0 if shared[0] else shared.index(max(shared))


def _terms(text: str) -> set[str]:
    return {stem(w) for w in said_words(text)} | set(re.findall(r"\d+(?:[.,:]\d+)?", text))


def _question_before(previous: Turn | None, pieces: list[_Piece], turn: Turn) -> tuple[str, list[Token]] | None:
    if previous is None or previous.speaker == turn.speaker or not pieces:
        return None
    return pieces[-1] if pieces[-1][0].endswith("?") else None


def flags_of(sent: str, turn: Turn, position: int, ignore: Container[str] = frozenset(),
             toks: list[Token] | None = None, raw: list[Token] | None = None) -> set[str]:
    """What a sentence is (decision, constraint, correction, loop, done, request, number) and whether
    to skip it: a question, or nothing a person would want remembered. `toks`: the sentence as the
    turn's parse read it (parsed here when not given); `raw`: the same before its lead-in was trimmed."""
    toks = list(nlp.parse_one(sent)) if toks is None else toks
    raw = toks if raw is None else raw
    said = "".join(t.text_with_ws for t in raw)
    flags: set[str] = set()
    for t in toks:
        done = t.tag_ in ("VBD", "VBN") and t.dep_ != "amod" and not nlp.negated(t) and not any(
            c.tag_ == "MD" for c in t.children)  # not "a fixed price", not "it'll be done"
        if (t.lemma_ in DECIDING and done) or (t.lemma_ == "go" and any(  # "going with the blue one"
                c.dep_ == "prep" and c.lower_ == "with" and any(g.ent_type_ != "PERSON" and g.pos_ != "PROPN"
                                                             for g in c.children if g.dep_ == "pobj")
                for c in t.children) and not any(c.dep_ in ("nsubj",) and c.pos_ == "PROPN" for c in t.children)):
            flags.add("decision")
        if done and (t.lemma_ in COMPLETING or t.lemma_ in SETTLED and t.tag_ == "VBN" and any(
                c.dep_ in ("aux", "auxpass") and c.lemma_ == "be" for c in t.children)):
            flags.add("done")
        if (t.lemma_ in DECIDING or t.lemma_ in FINDING_OUT) and (
                nlp.negated(t) and t.tag_ == "VBN" or t.dep_ == "xcomp" and t.head.lemma_ == "need"):
            flags.add("loop")
        if t.dep_ == "xcomp" and t.head.lemma_ in ("need", "have") and any(
                c.lower_ in ("still", "yet") for c in (*t.head.children, *t.children)):
            flags.add("loop")  # "I still need to book the shelter": work not done yet
    if CONSTRAINT.search(sent) and turn.role == "user":
        flags.add("constraint")
    if position == 0 and turn.role == "user" and _correcting(raw):
        flags.add("correction")
    if re.search(r"\d", sent):
        flags.add("number")
    if turn.role == "user" and _request(toks):
        flags.add("request")
    marked = flags - {"request", "number"}
    if sent.rstrip().endswith("?") and "loop" not in flags:
        flags.add("skip")
    elif turn.role == "assistant" and narrates(toks):
        flags.add("skip")
    elif TALK_ABOUT_THE_TALK.search(said) and not marked and "number" not in flags:
        flags.add("skip")
    elif not (marked or informative(sent, toks, ignore)):
        flags.add("skip")
    return flags


def narrates(toks: Sequence[Token]) -> bool:
    """An assistant announcing its own next step ("Let me look at the loader.", "Now I'll run the
    build.", "I'm going to rerun the test."): what it is about to do, not something to remember.
    A promise to the person ("I'll remind you on Friday") and what it did ("I updated the loader")
    stay facts."""
    root = next((t for t in toks if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "AUX"):
        return False
    kids = list(root.children)
    doc = root.doc
    if root.lemma_ == "let" and root.i + 2 < len(doc) and doc[root.i + 1].lower_ == "me":
        return doc[root.i + 2].lemma_ != "know"  # "let me check ...", not "let me know"
    speaker = any(c.dep_ == "nsubj" and c.lower_ == "i" for c in kids)
    # the person as the one the verb is done to or for ("remind you", "send you", "write to you") is a
    # promise; as the subject of a clause the verb takes ("help you create ...") it is the work announced
    to_you = any(t.lower_ == "you" and (t.head.i == root.i or t.head.head.i == root.i and t.head.pos_ == "ADP")
                 for t in root.subtree)
    if not speaker or to_you or any(t.ent_type_ in nlp.WHEN for t in toks):
        return False
    ahead = any(c.tag_ == "MD" and c.lower_ in ("will", "'ll", "shall") for c in kids)
    going = root.lower_ == "going" and any(c.dep_ == "xcomp" for c in kids)
    doing_now = root.tag_ == "VBG" and any(c.lower_ == "now" for c in root.subtree)
    return ahead or going or doing_now


def _correcting(toks: list[Token]) -> bool:
    """"No, ...", "Nope.", "Correction: ...", "Actually, ...", "I meant ...": a reply that opens by
    setting the last thing said right."""
    words = [t for t in toks if not t.is_space]
    if len(words) >= 2 and words[0].lower_ in CORRECTING and words[1].is_punct:
        return True
    return len(words) >= 2 and words[0].lower_ == "i" and words[1].tag_ == "VBD" and words[1].lemma_ in ("say", "mean")


def _request(toks: list[Token]) -> bool:
    """An imperative (a sentence opening on a verb in its base form, with no subject: "Send it over",
    "Let's ...") or a modal question to the listener ("Can you check ...?")."""
    words = [t for t in toks if not (t.is_punct or t.pos_ == "INTJ")]
    if words and words[0].dep_ == "ROOT" and words[0].tag_ == "VB":
        return True
    return bool(toks) and toks[-1].text == "?" and any(
        t.tag_ == "MD" and any(_second_person(c) and c.dep_ == "nsubj" for c in t.head.children) for t in toks)


def _second_person(t: Token) -> bool:
    return t.pos_ == "PRON" and "2" in t.morph.get("Person", [])


def informative(sent: str, toks: list[Token] | None = None, ignore: Container[str] = frozenset()) -> bool:
    """A sentence made only of everyday words ("That is how it goes sometimes"), of cheering or
    sympathy ("Congratulations!", "Sounds tough.": nothing beyond interjections and evaluative
    adjectives) or of an evaluation ("Good progress.") tells memory nothing; one with a number, a
    name, an uncommon word, three content words or a verb of change with words of its own does. A
    greeting word is no content of its own ("Have a good evening"); a bare participle acknowledges
    ("Noted.", "Updated.")."""
    toks = list(nlp.parse_one(sent)) if toks is None else toks
    if re.search(r"\d", sent):
        return True
    if any(t.pos_ == "VERB" and t.lemma_.lower() in CHANGE_VERBS and any(not c.is_punct for c in t.children)
           for t in toks):
        return True  # "they shifted it two days later"; a bare "Updated." acknowledges
    words_said = [t for t in toks if t.is_alpha]
    if len(words_said) == 1 and sent.rstrip().endswith("!"):
        return False  # a one-word exclamation ("Pic!", "Wow!") reacts; it states nothing
    content = [t for t in toks if t.is_alpha and (not t.is_stop or t.like_num) and t.lower_ not in ignore
               and t.lower_ not in THANKING and t.lower_ not in GREETING]
    if len(content) <= 2 and all(t.pos_ in ("INTJ", "ADJ", "ADV") or any(c.dep_ == "acomp" for c in t.children)
                                 for t in content):
        return False
    if len(content) <= 2 and _evaluation(toks):
        return False
    if not any(t.pos_ in ("NOUN", "PROPN", "NUM") for t in content) and (
            _request(toks) or (len(content) == 1 and content[0].tag_ in ("VBN", "VBD") and content[0].lemma_
                               not in COMPLETING and content[0].lemma_ not in SETTLED
                               and all(c.is_punct for c in content[0].children))):
        return False  # "Let's start with whichever is first.", "Updated.": about the talk, or an acknowledgement
    if _announces(toks):
        return False
    words = [w for w in said_words(sent) if w not in ignore and w not in THANKING and w not in GREETING]
    names = [t for t in content if t.pos_ == "PROPN" and t.ent_type_ and t.ent_type_ not in nlp.WHEN
             and t.i > toks[0].i]
    if names or len(set(words)) >= 3:
        return True
    return any(rarity(w) >= 1.0 for w in words)


def _announces(toks: list[Token]) -> bool:
    """A sentence that counts matters it has not named yet ("I have a few questions for you", "a
    hand with two matters, please"): its nouns are general, one of them a counted general noun, and
    none is definite (the plan, my questions), which would point back at a subject already named.
    It announces talk to come; the matters come after it."""
    nouns = [t for t in toks if t.pos_ in ("NOUN", "PROPN") and t.ent_type_ not in nlp.WHEN]
    return bool(nouns) and all(
        t.pos_ == "NOUN" and (t.lower_ in GENERIC or _counts_matters(t)) and not any(_definite(c) for c in t.children)
        for t in nouns
    ) and any(t.lemma_.lower() in GENERAL and _counted(t) for t in nouns)


def _counted(noun: Token) -> bool:
    """A noun said with how many: a number or a quantifier ("two things", "a few things", "some
    questions", "a couple of things"; the quantifiers are stop words, the adjectives that describe
    are not: "new things", "loved ones"; "no one" counts none). A bare plural speaks of things in
    general ("things have been quiet")."""
    if noun.head.dep_ == "prep" and noun.head.head.pos_ == "NOUN" and _counts_matters(noun.head.head):
        return True
    return any(c.dep_ == "nummod" or (c.dep_ in ("amod", "det") and c.is_stop and c.lower_ not in ("a", "an", "no")
                                      and not _definite(c)) for c in noun.children)


def _counts_matters(t: Token) -> bool:
    """A noun of quantity before "of" and a general noun ("a couple of things", "a bunch of questions")."""
    return any(c.dep_ == "prep" and c.lower_ == "of" and any(g.dep_ == "pobj" and g.lemma_.lower() in GENERAL
                                                            for g in c.children) for c in t.children)


def _definite(t: Token) -> bool:
    """A possessive or a definite or demonstrative determiner: what it marks was named before."""
    return t.dep_ == "poss" or (t.dep_ == "det" and ("Def" in t.morph.get("Definite", [])
                                                   or "Dem" in t.morph.get("PronType", [])))


def _finish(unit: Unit, chunk: list[_Piece], tz: str, other: str, asked: _Piece | None, known_names: set[str],
            said: dict[int, dt.date] | None = None) -> None:
    turn = unit.turn
    parts = []
    for text, toks in chunk:
        written, hint, event_day = annotate_times(text, unit.at, tz, said, toks)
        unit.time_hint = unit.time_hint or hint
        unit.event_day = unit.event_day or event_day
        parts.append(written)
    sent = unit.text
    tokens = [t for _, toks in chunk for t in toks]
    speaker = turn.speaker
    if other and any(_second_person(t) for t in tokens):
        speaker = f"{speaker} (to {other})"
    unit.body = " ".join(parts)
    if asked:
        question = " ".join("".join(t.text_with_ws for t in asked[1][_lead_in(asked[1], ()):]).split()) or asked[0]
        with_question = f'{speaker}, asked "{truncate(question, 70)}"'
        if len(with_question) + 2 + len(unit.body) <= MAX_FACT_CHARS:
            speaker = with_question
    unit.fact = truncate(f"{speaker}: {unit.body}", MAX_FACT_CHARS)
    unit.names = proper_names(sent, skip=[turn.speaker], known=known_names)
    unit.depends += _depends(tokens)
    unit.numbers = numbers_in(sent, unit.turn, unit.at)


def _depends(toks: list[Token]) -> list[str]:
    """What a sentence says must come first: the object of "depends on", "requires", "is blocked
    by", or the task in "needs X first" (up to three of its content words)."""
    out = []
    for t in toks:
        target: list[Token] = []
        if t.lemma_ in ("depend", "require", "block"):
            for c in t.children:
                if c.dep_ in ("prep", "agent"):
                    target += [g for p in c.children if p.dep_ in ("pobj", "pcomp") for g in p.subtree]
                elif c.dep_ == "dobj":
                    target += list(c.subtree)
        elif t.lemma_ == "need" and any(d.lower_ == "first" for d in t.subtree):
            target = [g for c in t.children if c.dep_ in ("dobj", "xcomp") for g in c.subtree]
        words = said_words(" ".join(g.text for g in sorted(target, key=lambda g: g.i)))[:3]
        if words:
            out.append(" ".join(words))
    return out


_OWN_TENSE = ("aux", "auxpass", "nsubj", "nsubjpass")  # what a joined verb has when its tense is its own
_TENSED = ("VBD", "VBZ", "VBP", "MD")  # the tags of a verb or an auxiliary that carries a tense


def _tense(tok: Token | None) -> str:
    """Which side of now a bare weekday or month is on, from the clause the time phrase belongs to:
    "future" under a modal will/shall, "going to" ("gonna"), the present progressive ("he's flying
    to Oslo on Friday") or a present tense of an event ("the party is on Saturday"), "past" in the
    past tense or the perfect, else "nearest". A time phrase that modifies a noun ("the dentist on
    Monday, got it") has no tense of its own; a verb with no tense of its own ("had to stop on
    Sunday") has its governing verb's, unless that verb looks ahead ("agreed to meet on Thursday");
    a verb joined to another with no subject or auxiliary of its own shares its form ("add the index
    and rerun it": the tagger may read "rerun" as a past)."""
    if tok is None:
        return "nearest"
    tok, described = _clause_verb(tok)  # described: the phrase dates a state ("tired from Saturday")
    if tok is None:
        return "nearest"
    while tok.head.i != tok.i and (
            (tok.dep_ == "xcomp" and tok.tag_ == "VB") or (tok.dep_ == "conj" and tok.head.pos_ in ("VERB", "AUX")
                                                           and not any(c.dep_ in _OWN_TENSE for c in tok.children))):
        if tok.dep_ == "xcomp" and tok.head.lemma_ in LOOKING_AHEAD:
            return "nearest"
        tok = tok.head
    aux = [c for c in tok.children if c.dep_ in ("aux", "auxpass")]
    if any(a.tag_ == "MD" and a.lemma_ in ("will", "shall") for a in aux) \
            or (tok.lemma_ == "go" and tok.tag_ == "VBG" and any(c.dep_ == "xcomp" for c in tok.children)) \
            or (tok.tag_ == "VBG" and (any(a.tag_ in ("VBZ", "VBP") for a in aux) or _contracted_is(tok))):
        return "future"
    if tok.tag_ == "VBD" or any(a.tag_ == "VBD" for a in aux) or (
            tok.tag_ == "VBN" and any(a.lemma_ == "have" for a in aux)):
        return "past"
    described = described or any(c.dep_ == "acomp" for c in tok.children)  # "I'm still sore ... on Saturday"
    if not described and _present(tok if not aux else aux[-1]) and (not aux or tok.tag_ == "VBN"):
        return "future"
    return "nearest"


def _clause_verb(tok: Token) -> tuple[Token | None, bool]:
    """The verb whose clause the time phrase starting at `tok` belongs to: None when the phrase dates
    a noun ("the dentist on Monday, got it") or no verb governs it; and whether an adjective came on
    the way, the phrase dating a state."""
    described = False
    while tok.pos_ not in ("VERB", "AUX"):
        head = tok.head
        if head.i == tok.i or (head.pos_ in ("NOUN", "PROPN", "PRON") and head.ent_type_ not in nlp.WHEN):
            return None, described
        described = described or head.pos_ == "ADJ"
        tok = head
    return tok, described


def _present(verb: Token) -> bool:
    """A present tense no past shares: the -s form ("starts", "is") or a present form of "be"
    ("are", "'m"). A plain form like "burst" or "put" is a past too ("the pipes burst on Sunday"). A
    weekday said in the present names an event to come ("the party is on Saturday", "the course
    starts Monday", "the van is booked for Friday")."""
    return verb.tag_ == "VBZ" or (verb.tag_ == "VBP" and verb.lemma_ == "be")


def _contracted_is(verb: Token) -> bool:
    """A subject's "'s" right before its -ing verb is "is", whatever the tagger read ("Tom's driving
    us on Saturday"): a possessive stands before a noun, and here the next word heads the clause."""
    return any(c.tag_ == "POS" and c.i == verb.i - 1 for s in verb.children if s.dep_ == "nsubj" for c in s.children)


def _at_char(sent: str, toks: list[Token]) -> dict[int, Token]:
    """Each token by where it starts in `sent` (the sentence as trimmed and joined from them)."""
    out: dict[int, Token] = {}
    pos = 0
    for t in toks:
        k = sent.find(t.text, pos)
        if k >= 0:
            out[k] = t
            pos = k + len(t.text)
    return out


def annotate_times(sent: str, at: dt.datetime, tz: str, said: dict[int, dt.date] | None = None,
                   toks: list[Token] | None = None) -> tuple[str, dt.datetime | None, dt.datetime | None]:
    """`sent` with its times written out against `at`: a relative phrase gets its day in brackets,
    a date without a year gets the year, a deadline ("by Thursday") and "the 23rd" get their day,
    a range ("10-12 July") its year. "The 19th" is the 19 September said earlier in the talk
    (`said`) while that day is still ahead, else the next 19th. Returns the text, the first time
    named, and the day of a past event it reports ("yesterday"). `toks`: the sentence's parse."""
    toks = list(nlp.parse_one(sent)) if toks is None else toks
    starts = _at_char(sent, toks)
    found = []
    tensed: set[tuple[int, int]] = set()  # the time phrases whose clause has a tensed verb of its own
    for w in timewin.find_all(sent, at, tz):
        first = next((t for k, t in sorted(starts.items()) if w.span[0] <= k < w.span[1]), None)
        prefer = _tense(first)
        if prefer == "nearest" and w.granularity == "day" and w.phrase.lower().startswith("this "):
            prefer = "future"  # "it's now this Wednesday": a day named ahead unless the verb says it was
        if prefer != "nearest":
            with contextlib.suppress(TimePhraseError):
                again = timewin.resolve(w.phrase, at, tz, prefer=prefer)
                w = timewin.Window(again.start, again.end, w.phrase, w.span, again.granularity, again.relative, w.tz)
        if first is not None and (_an_example(first) or _ordinal_of_theirs(first)):
            continue  # "a date like 2024-05-01", "her last Saturday": a kind or one of a series, not a day
        if prefer == "past" and w.phrase.lower().startswith("in ") and w.relative:
            continue  # "sold 40 bags in 3 weeks": how long it took, not when
        found.append((w, prefer))
        if first is not None and _has_tense(first):
            tensed.add(w.span)
    behind = any(w.granularity in ("year", "range") and w.relative and w.end is not None and w.end <= at
                 and "year" in w.phrase.lower() for w, _ in found)
    date_prefer = "past" if behind or any(t.lemma_ in TAKING_PLACE and t.tag_ in ("VBD", "VBN") for t in toks) \
        else "nearest"
    edits: list[tuple[int, str]] = []  # (position, text to insert there)
    hint: dt.datetime | None = None
    event_day: dt.datetime | None = None
    taken: list[tuple[int, int]] = []
    for m in _RANGE.finditer(sent):
        year = _year_of(int(m["b"]), _MONTH_NAMES.index(m["mon"].title()) + 1, at, tz, date_prefer)
        if year:
            edits.append((m.end(), f" {year}"))
            taken.append(m.span())
    named: dict[int, dt.datetime] = {}  # where a date said with its month ends -> its start, as written out
    with_year = [(w.span[1], w.start, tense) for w, tense in found
                 if w.start is not None and not w.relative and _dated(w, at, tz)]
    for w, prefer in found:
        if any(a <= w.span[0] < b for a, b in taken):
            continue
        phrase, span, end = w.phrase, w.span, w.span[1]
        if _dated(w, at, tz):
            if not w.relative:
                named |= _month_named(w, end)
                continue
            w = _year_left_open(phrase, at, tz, date_prefer)
            if w.start is not None:
                year = _year_said_beside(w.start, end, with_year, prefer if span in tensed else "")
                edits.append((end, f" {year}"))
        elif w.start is None and w.end is not None:  # a deadline: by, before, until
            # "it dragged on till 30 March": a deadline in a clause about the past was a past day
            deadline = timewin.resolve(re.sub(r"^\S+\s+", "on ", phrase), at, tz,
                                       prefer="past" if prefer == "past" else "future")
            if deadline.granularity != "day":
                continue
            w = deadline
            if deadline.label(tz).replace(",", "").lower() not in phrase.replace(",", "").lower():
                edits.append((end, f" ({deadline.label(tz)})"))
        elif w.granularity in ("range", "instant"):
            continue
        else:
            if prefer == "nearest" and w.relative and timewin.counts_weekday(phrase) and _MONTH_WORD.search(phrase):
                w = _year_left_open(phrase, at, tz, date_prefer)  # its month named without a year
            label = w.label(tz)
            if label.replace(",", "").lower() in phrase.replace(",", "").lower() \
                    or _said_beside(sent, end, phrase, at, tz):
                continue
            edits.append((end, f" ({label})"))
            if (w.granularity == "day" and w.start and w.end and w.end <= at + dt.timedelta(days=1)
                    and (prefer == "past" or w.end <= at)):  # "we met on Friday", "yesterday at the pool"
                event_day = event_day or w.start
        if w.start is not None and hint is None:
            hint = w.start
        named |= _month_named(w, end)
    today = at.astimezone(ZoneInfo(tz)).date()
    run: dt.date | None = None  # the day the sentence's last "the Nth" was read as
    for m in _NTH.finditer(sent):
        earlier = (said or {}).get(int(m["d"]))
        tok = next((t for k, t in sorted(starts.items()) if m.start() <= k < m.end()), None)
        before = [k for k in named if k <= m.start()]
        tense = _tense(tok)
        if before:  # "the second Saturday in October, the 10th": a day of the month just named
            just = named[max(before)].astimezone(ZoneInfo(tz)).date()
            day = _in_month(int(m["d"]), just)
            if day == just and not _MONTH_WORD.search(sent[max(before) : m.start()]):
                continue  # that day, written out just before it
        elif run is not None and tense == "nearest" and int(m["d"]) >= run.day:
            # "the tiler left on the 2nd, the grout on the 9th": a later day of the same month
            day = _in_month(int(m["d"]), run)
        elif tense == "past":  # "the parcel came on the 3rd": the last 3rd, not the next
            day = earlier if earlier is not None and earlier <= today else _day_of_month(int(m["d"]), at, tz, -1)
        else:
            day = earlier if earlier is not None and earlier >= today else _day_of_month(int(m["d"]), at, tz, 1)
        run = day or run
        if day:
            edits.append((m.end(), f" ({day.day} {_MONTH_NAMES[day.month - 1]} {day.year})"))
            hint = hint or dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
    out = sent
    for pos, text in sorted(edits, key=lambda e: -e[0]):
        if text and pos > 0 and not out[pos:].lstrip().startswith(text.strip()):
            out = out[:pos] + text + out[pos:]
    return out, hint, event_day


def _said_beside(sent: str, end: int, phrase: str, at: dt.datetime, tz: str) -> bool:
    """The sentence names a calendar day right after `phrase`, which ends at `end` ("this Wednesday,
    6 May"): the person said which day, so nothing is added, even where the phrase alone would be
    read as another. A weekday said with the day of its month ("Monday the 27th") is that day too
    (`_NTH` writes its date out), unless the phrase names its month ("the second Saturday in
    October, the 10th")."""
    after = sent[end:][:24]
    lead = len(after) - len(after.lstrip(" ,(-–"))
    if _NTH.match(after, lead) and not _MONTH_WORD.search(phrase):
        return True
    return any(w.span[0] == lead and w.granularity == "day" and _dated(w, at, tz)
               for w in timewin.find_all(after, at, tz))


def _ordinal_of_theirs(tok: Token) -> bool:
    """"last" or "next" after a possessive orders a series of the owner's ("her last Saturday at the
    shop", "Tom's next Friday off"), counted from no day; after an object pronoun it counts from now
    ("I saw her last Friday")."""
    return tok.lower_ in ("last", "next") and tok.i > 0 and tok.doc[tok.i - 1].tag_ in ("PRP$", "POS")


def _an_example(tok: Token) -> bool:
    """A time said as an instance of a kind: the object of "like" after a common noun ("a date like
    2024-05-01", "a weekday like Friday"); it names no day anything happens ("something like 3
    March" does)."""
    head = tok
    for _ in range(4):
        if head.dep_ == "pobj" or head.head.i == head.i:
            break
        head = head.head
    prep = head.head
    return head.dep_ == "pobj" and prep.lower_ == "like" and prep.pos_ == "ADP" and prep.head.pos_ == "NOUN"


def _dated(w: timewin.Window, at: dt.datetime, tz: str) -> bool:
    """A calendar date or month said by name ("27 June", "Saturday 14 February", "in November"),
    not one placed by "next", "last" or a range word: its year is the part said or left open,
    which the two readings of a year left open ("past" and "future") tell apart."""
    if w.granularity not in ("day", "month") or not _MONTH_WORD.search(w.phrase) \
            or timewin.counts_weekday(w.phrase):  # "the first Monday in May": no date said
        return False
    if not w.relative:
        return True
    bare = timewin.without_weekday(w.phrase)  # "Saturday 11 July": the weekday picks the year, none was said
    try:
        back = timewin.resolve(bare, at, tz, prefer="past").start
        ahead = timewin.resolve(bare, at, tz, prefer="future").start
    except TimePhraseError:
        return False
    return back != ahead


def _year_said_beside(day: dt.datetime, end: int, with_year: list[tuple[int, dt.datetime, str]], tense: str) -> int:
    """The year to write after a date said without one (`day`, read against now; the phrase ends at
    `end`): the year of the nearest date the sentence says with its year ("the mill opened on 14 May
    1902, its first shipment out on 2 June"; "out on 3 March 2027, back on 10 March": one year said
    for the dates listed with it), unless the date's clause has a tense of its own (`tense`, "" for
    none) that differs from that date's ("started on 1 May 2020, and it renews on 1 May": the next
    1 May)."""
    if not with_year:
        return day.year
    _, said, said_tense = min(with_year, key=lambda s: abs(s[0] - end))
    if tense and tense != said_tense:
        return day.year
    with contextlib.suppress(ValueError):  # 29 February, in a year without one
        return day.replace(year=said.year).year
    return day.year


def _has_tense(tok: Token) -> bool:
    """The clause a time phrase belongs to has a tensed verb of its own ("renews on 1 May", "had the
    party on 20 June"), not a participle or none ("the forms signed on 2 June", "back on 10 March");
    one that dates a noun has none either ("its first shipment out on 2 June")."""
    verb, _ = _clause_verb(tok)
    return verb is not None and (verb.tag_ in _TENSED or any(
        c.dep_ in ("aux", "auxpass") and c.tag_ in _TENSED for c in verb.children))


def _year_of(day: int, month: int, at: dt.datetime, tz: str, prefer: str) -> int | None:
    try:
        w = timewin.resolve(f"{day} {_MONTH_NAMES[month - 1]}", at, tz, prefer=prefer)
    except Exception:
        return None
    return w.start.astimezone(ZoneInfo(tz)).year if w.start else None


def _year_left_open(phrase: str, at: dt.datetime, tz: str, prefer: str) -> timewin.Window:
    """A date or month named without its year ("3 October", "the first Monday in May"): the last
    such when the sentence says it happened (`prefer` "past"), else the next (`_ahead`)."""
    return timewin.resolve(phrase, at, tz, prefer="past") if prefer == "past" else _ahead(phrase, at, tz)


def _ahead(phrase: str, at: dt.datetime, tz: str) -> timewin.Window:
    """A date said with no year and no past tense is the next such day ("flights on 3 October",
    said in April, are this October), unless it was only days ago: nobody names a date half a
    year back without saying it happened ("we went on 20 October")."""
    w = timewin.resolve(phrase, at, tz, prefer="future")
    if w.start is not None and (w.start - at).days > 300:
        recent = timewin.resolve(phrase, at, tz, prefer="past")
        if recent.start is not None and (at - recent.start).days <= RECENT_PAST_DAYS:
            return recent
    return w


def _month_named(w: timewin.Window, end: int) -> dict[int, dt.datetime]:
    """{end: start} for a date said with its month name ("28 August", "the second Saturday in
    October"), else nothing."""
    return {end: w.start} if w.start is not None and _MONTH_WORD.search(w.phrase) else {}


def _in_month(day: int, of: dt.date) -> dt.date | None:
    return dt.date(of.year, of.month, day) if day <= calendar.monthrange(of.year, of.month)[1] else None


def _day_of_month(day: int, at: dt.datetime, tz: str, step: int) -> dt.date | None:
    """"the 23rd": going forward (`step` 1), this month's if it is still ahead (or today), else next
    month's; going back (-1), this month's if it is past (or today), else last month's."""
    today = at.astimezone(ZoneInfo(tz)).date()
    for k in range(0, 3):
        y, m = divmod(today.month - 1 + step * k, 12)
        year, month = today.year + y, m + 1
        if day <= calendar.monthrange(year, month)[1]:
            candidate = dt.date(year, month, day)
            if (candidate - today).days * step >= 0:
                return candidate
    return None
