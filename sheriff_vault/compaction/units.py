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
from collections.abc import Container
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

import numpy as np

from sheriff_vault import timewin
from sheriff_vault.compaction.numbers import NumberHit, numbers_in
from sheriff_vault.store.buffer import Turn
from sheriff_vault.text import (
    BACK_REFERENCE,
    CONSTRAINT,
    content_words,
    proper_names,
    rarity,
    sentences,
    stem,
    truncate,
)

_I = re.IGNORECASE
DECISION = re.compile(r"\b(?:decided|agreed|settled on|we chose|let'?s go with|going with|we'?ll use|let'?s use|"
                      r"the decision is|final answer|we will use|we are using)\b", _I)
CORRECTION = re.compile(r"^(?:no[,.!]|nope\b|that'?s (?:wrong|not right|incorrect|not what)|actually,|not quite|"
                        r"i meant\b|i said\b|wrong[,.!]|correction:)", _I)
LOOP = re.compile(r"\b(?:todo|to-do|still need to|need to (?:decide|figure out|check|find out)|open question|"
                  r"not sure (?:yet )?(?:whether|if|how)|haven'?t decided|undecided|remind me|follow up|tbd|"
                  r"to be decided|we should (?:decide|figure out))\b", _I)
DONE = re.compile(r"\b(?:all done|done now|"
                  r"(?:it|that|this)(?:'?s| is) (?:all |now )?(?:done|sorted|booked|taken care of)|"
                  r"(?:is|are|was|were) (?:now |all )?(?:done|booked|sorted)|finished|completed|"
                  r"all tests pass(?:ed)?|shipped|merged|resolved|fixed it|works now)\b", _I)
DEPENDS = re.compile(r"\b(?:depends on|dependent on|requires|blocked by|"
                     r"needs? (?:the |a )?([\w\- ]{3,40}?) first)\b", _I)
FUTURE = re.compile(r"\b(?:will|'ll|going to|gonna|plan(?:ning)? to|planning|next|tomorrow|soon|upcoming|"
                    r"can'?t wait|looking forward)\b", _I)
PAST = re.compile(r"\b(?:was|were|did|had|went|got|came|saw|made|took|been|ago|yesterday|last)\b", _I)
# A date said without a year is the nearest such day ("moved to 18 March" on 9 March is nine days
# ahead), unless the sentence tells of something that already happened then.
PAST_EVENT = re.compile(r"\b(?:went|happened|took place|visited|celebrated|attended|was born|were born|"
                        r"last year|years? ago)\b", _I)
RECENT_PAST_DAYS = 45  # a date without a year this close behind is the one just past, not next year's
DEADLINE = re.compile(r"^(?:by|before|until|till|due)\b", _I)
REQUEST = re.compile(r"^(?:please\b|can you\b|could you\b|let'?s\b|i want\b|i need\b|we need\b|implement\b|add\b|"
                     r"fix\b|write\b|build\b|make\b|create\b|refactor\b|update\b|change\b)", _I)
SECOND_PERSON = re.compile(r"\b(?:you|your|yours|you'?re|you'?ve)\b", _I)
LEAD_IN = re.compile(r"^(?:(?:hey|hi|hello|hiya|howdy|g'?day|kia ora|hola|bonjour|salut|ciao|hallo|moin|hej|"
                     r"namaste|aloha|wow|whoa|woah|yay|oof|ugh|yikes|phew|yeah|yes|yep|yup|oh|ah|aw+|omg|ok|okay|sure|lol|"
                     r"haha|cool|great|awesome|nice|so|well|totally|absolutely|exactly|"
                     # thanks and congratulations, but not what they are for: "Congrats on the store!"
                     # stripped of "Congrats" would read as a fact of its own ("On the store!")
                     r"(?:thanks|thank you|congrats|congratulations)(?: (?:so|very) much| a lot| a bunch)?"
                     r"(?![,!.]*\s+(?:(?:so|very) much |a lot |a bunch )?(?:for|on|to)\b))\b[,!.]*\s+)+", _I)
INTENSIFIERS = re.compile(r"\b(?:really|super|totally|actually|definitely|honestly|basically|literally|truly|"
                          r"pretty much|kind of|sort of|very|so(?= (?:\w+ful|\w+ive|\w+ous|happy|glad|proud|"
                          r"excited|grateful|thankful|lucky|great|good|cool|fun|nice|important|special|hard|tough|"
                          r"awesome|amazing)\b))\s+", _I)
# Words that only acknowledge or cheer: a sentence made of them and little else is no fact.
# Talk about the talk, not about the person's life: "this is going to be a brain dump", "I'll use you
# to keep track of a few things", "let's start with whichever is more urgent", a bare "Week update".
META = re.compile(r"\bbrain ?dump\b|\b(?:use|using) you (?:to|as|for)\b|\blos(?:e|ing) track\b|"
                  r"\bhelp (?:me )?(?:keep(?:ing)?|stay(?:ing)?|get(?:ting)?) "
                  r"(?:my \w+ |things |it all )?organi[sz]ed\b|"
                  r"\b(?:got|have) (?:a few|a couple of|two|three|four|several|some|lots of|a lot of|many) things "
                  r"(?:going on|on my (?:mind|plate)|to (?:sort|go through|tell you))\b|"
                  r"^\W*(?:(?:good )?(?:morning|afternoon|evening)\W+|(?:hi|hello|hey)\W+)?"
                  r"(?:let'?s|we can) (?:start|begin) with (?:whichever|what(?:ever)?|the (?:most|more))\b|"
                  r"^\W*(?:\w+ )?(?:update|news|recap|catch-?up)\W*$|"
                  # "Three things on my plate, let's go one by one", "thanks a lot for your help"
                  r"^\W*(?:a few|a couple of|two|three|four|five|several|some) things (?:going on|on my (?:mind|plate)|"
                  r"to (?:sort|go through|tell you))\b(?![^.!?:]{0,20}:)|\blet'?s (?:go|take them|do (?:them|it)) "
                  r"(?:through (?:them|these|it) )?one (?:by|at a) (?:one|time)\b|"
                  r"^\W*(?:thanks?(?: you)?\W+)?(?:(?:a lot|so much|very much) )?for (?:(?:your|the|all (?:the|your)) "
                  r"help|keeping (?:track|notes|tabs))\b|"
                  r"^\W*(?:and |you )?have a (?:good|great|nice|lovely) (?:weekend|day|evening|night|week)\b|"
                  # "My granddaughter set this up for me and says you can keep notes"
                  r"\b(?:set|setting|sets) (?:this|it|you) up for me\b|"
                  r"\byou (?:can|could|will|'ll) (?:keep|take|make) (?:notes|track|a note|lists?)\b|"
                  r"\bsomewhere to (?:put|keep|write down) (?:all )?(?:my|these|this|the)\b", _I)
ACKNOWLEDGE = frozenset("""kia ora hola bonjour salut ciao hallo moin hej namaste aloha howdy hiya
congratulations congrats alright fine noted understood updated got gotcha agreed perfect
excellent brilliant lovely fantastic fab sweet sounds plan deal busy speak soon care luck fingers crossed ready
time progress morning evening afternoon night hello hi hey bye goodbye cheers pic pics photo photos picture
pictures wow aww cool awesome asking tough rough sucks bummer hang""".split())
_MONTH_NAMES = "January February March April May June July August September October November December".split()
_RANGE = re.compile(r"\b(?P<a>\d{1,2})(?:st|nd|rd|th)?\s?(?:-|–|to|until|through)\s?(?P<b>\d{1,2})(?:st|nd|rd|th)?"
                    r" (?:of )?(?P<mon>" + "|".join(_MONTH_NAMES) + r")\b(?!,? \d{4})", _I)
_FULL_DATE = re.compile(r"\b(?P<d>\d{1,2}) (?P<mon>" + "|".join(_MONTH_NAMES) + r") (?P<y>(?:19|20)\d\d)\b", _I)
_NTH = re.compile(r"\bthe (?P<d>\d{1,2})(?:st|nd|rd|th)\b(?! (?:of )?(?:" + "|".join(_MONTH_NAMES) + r")\b)", _I)
_NOT_HEADING = frozenset("i we you he she they it that this there thanks thank congrats congratulations".split())
MAX_FACT_CHARS = 320
FOLLOW_UP_CHARS = 260  # a sentence starting "It/That/They..." joins the one before, up to this size
FRAGMENT_CHARS = 80  # sentences this short in one message are one fact
HEADING_WORDS = 3  # a turn's first sentence this short ("Grant update.") is a heading for the next one


@dataclass
class Unit:
    """One informative sentence (or a sentence and its follow-up) from one turn."""

    turn: Turn
    index: int
    text: str
    fact: str = ""
    body: str = ""
    at: dt.datetime = field(default_factory=timewin.utcnow)
    flags: set[str] = field(default_factory=set)
    numbers: list[NumberHit] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    event_day: dt.datetime | None = None
    time_hint: dt.datetime | None = None
    depends: list[str] = field(default_factory=list)
    vec: np.ndarray | None = None
    asked_turn: str = ""
    echoes: list[str] = field(default_factory=list)  # assistant turns that only restated this unit
    corrects: list[tuple[str, str]] = field(default_factory=list)  # (new value, old value) it states

    @property
    def turn_ids(self) -> list[str]:
        """Every turn whose words this fact carries: its own, the question it answers, and the
        assistant turns that only echoed it."""
        return list(dict.fromkeys(t for t in (self.asked_turn, self.turn.id, *self.echoes) if t))


def make_units(turns: list[Turn], tz: str, known_names: set[str]) -> list[Unit]:
    """One unit per informative sentence of the user and assistant turns, in order."""
    units: list[Unit] = []
    previous: Turn | None = None
    humans = {t.speaker for t in turns if t.role == "user"}
    ignore = name_words(humans)
    chat = any(t.role == "assistant" for t in turns)
    said: dict[int, dt.date] = {}  # day of the month -> the last full date said with it ("the 19th")
    for turn in turns:
        if turn.role not in ("user", "assistant") or not turn.content.strip():
            previous = turn if turn.role in ("user", "assistant") else previous
            continue
        asked = _question_before(previous, turn)
        asked_id = previous.id if asked and previous is not None else ""
        other = next(iter(humans - {turn.speaker}), "") if len(humans) == 2 and turn.role == "user" else ""
        turn_units = [Unit(turn, i, " ".join(sents), at=turn.at or timewin.utcnow(), flags=flags)
                      for i, (sents, flags) in enumerate(_chunks(turn, ignore, chat))]
        answer = _answering(asked, turn_units)
        for j, unit in enumerate(turn_units):
            _finish(unit, tz, other, asked if j == answer else None, known_names, said)
            for m in _FULL_DATE.finditer(unit.body):
                with contextlib.suppress(ValueError):
                    said[int(m["d"])] = dt.date(int(m["y"]), _MONTH_NAMES.index(m["mon"].title()) + 1, int(m["d"]))
            if j == answer and asked and ", asked \"" in unit.fact:
                unit.asked_turn = asked_id
        units += turn_units
        previous = turn
    return units


def own_words(turn: Turn) -> str:
    """A turn's text without its speaker's name written before it: transcripts that print
    "Caroline: Hey Mel!" as the text of Caroline's turn would make every fact say the name twice."""
    name = turn.speaker.strip()
    head, sep, rest = turn.content.lstrip().partition(":")
    return rest.lstrip() if sep and name and head.strip().lower() == name.lower() and rest.strip() else turn.content


def _chunks(turn: Turn, ignore: set[str], chat: bool) -> list[tuple[list[str], set[str]]]:
    """A turn's informative sentences, follow-ups joined to the sentence they follow and a short
    opening heading ("Grant update.") joined to the sentence it announces. In a `chat` with an
    assistant, a message's short fragments ("Sunday is 20 km now, same pace") are one statement."""
    chunks: list[tuple[list[str], set[str]]] = []
    heading = ""
    raw_sents = sentences(own_words(turn))
    for i, raw in enumerate(raw_sents):
        sent = _trim(raw, ignore)
        if i == 0 and len(raw_sents) > 1 and _is_heading(sent):
            heading = sent.rstrip(".!:")
            continue
        if heading and sent:
            sent = f"{heading}: {sent}"
            heading = ""
        flags = flags_of(sent, turn, i, ignore) if sent else {"skip"}
        if "skip" in flags:
            continue
        last = chunks[-1] if chunks else None
        size = sum(map(len, last[0])) + len(sent) if last else 0
        follow_up = bool(BACK_REFERENCE.match(sent)) and size < FOLLOW_UP_CHARS
        # Short chat fragments of one message ("Sunday is 20 km now, same pace") are one statement.
        fragments = chat and last is not None and len(sent) <= FRAGMENT_CHARS and len(last[0][-1]) <= FRAGMENT_CHARS \
            and size <= 2 * FRAGMENT_CHARS
        if last is not None and (follow_up or fragments) and "loop" not in flags and "loop" not in last[1]:
            last[0].append(sent)
            last[1].update(flags)
        else:
            chunks.append(([sent], set(flags)))
    return chunks


def _is_heading(sent: str) -> bool:
    """"Grant update.", "Emma's party.", not "That's tough." nor "Thanks for asking.": a heading
    names a subject and says nothing of it: no pronoun to start with, no verb's contraction, no
    comma, and a word beyond cheering and sympathy."""
    words = sent.split()
    return 0 < len(words) <= HEADING_WORDS and not re.search(r"\d|,|['’](?:re|ve|m|ll|d)\b", sent) \
        and re.split(r"['’]", words[0].lower())[0] not in _NOT_HEADING and sent.rstrip().endswith((".", ":")) \
        and not sent.rstrip().endswith("?") and any(w not in ACKNOWLEDGE for w in content_words(sent))


def _trim(sent: str, ignore: set[str]) -> str:
    """Drop lead-ins, the listener's name ("Wow, Mel! ", "Thanks, Caroline, ") and intensifiers
    ("really", "so" before an adjective) from a sentence: they carry feeling, not facts."""
    out = INTENSIFIERS.sub("", LEAD_IN.sub("", sent))
    for _ in range(2):
        m = re.match(r"^([A-Z][a-z]+)[,!]\s+", out)
        if m and m.group(1).lower() in ignore:
            out = LEAD_IN.sub("", out[m.end():])
    out = re.sub(r",\s+([A-Z][a-z]+)(?=[.!?]$)", lambda m: "" if m.group(1).lower() in ignore else m.group(0), out)
    if re.fullmatch(r"[A-Z][a-z]+[.!?]*", out) and out.strip(".!?").lower() in ignore:
        return ""
    return out[:1].upper() + out[1:] if out else out


def name_words(names: set[str]) -> set[str]:
    """Speakers' names and the nicknames people type for them (Mel, Mell for Melanie)."""
    found: set[str] = set()
    for name in names:
        for part in name.lower().split():
            found |= {part[:k] for k in range(max(3, len(part) // 2), len(part) + 1)} | {part}
            if len(part) >= 3:  # "Al", "Jo": a short name has no nickname
                found.add(part[:3] + part[2])
    return found


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
    return {stem(w) for w in content_words(text)} | set(re.findall(r"\d+(?:[.,:]\d+)?", text))


def _question_before(previous: Turn | None, turn: Turn) -> str | None:
    if previous is None or previous.speaker == turn.speaker:
        return None
    sents = sentences(previous.content)
    return sents[-1] if sents and sents[-1].endswith("?") else None


def flags_of(sent: str, turn: Turn, position: int, ignore: Container[str] = frozenset()) -> set[str]:
    """What a sentence is (decision, constraint, correction, loop, done, request, number) and whether
    to skip it: a question, or nothing a person would want remembered."""
    flags: set[str] = set()
    words = [w for w in content_words(sent) if w not in ignore]
    if DECISION.search(sent):
        flags.add("decision")
    if CONSTRAINT.search(sent) and turn.role == "user":
        flags.add("constraint")
    if position == 0 and turn.role == "user" and CORRECTION.search(sent):
        flags.add("correction")
    if LOOP.search(sent):
        flags.add("loop")
    if DONE.search(sent):
        flags.add("done")
    if re.search(r"\d", sent):
        flags.add("number")
    if turn.role == "user" and REQUEST.search(sent):
        flags.add("request")
    marked = flags - {"request", "number"}
    if sent.rstrip().endswith("?") and "loop" not in flags:
        flags.add("skip")
    elif META.search(sent) and not marked and "number" not in flags:
        flags.add("skip")
    elif not (marked or informative(sent, words, ignore)):
        flags.add("skip")
    return flags


def informative(sent: str, words: list[str], ignore: Container[str] = frozenset()) -> bool:
    """A sentence made only of everyday words ("It's all worth it in the end") or of cheering
    ("Congratulations!", "Good progress.") tells memory nothing; one with an uncommon word, a
    name, a number or a time does."""
    if re.search(r"\d", sent):
        return True
    telling = [w for w in words if w not in ACKNOWLEDGE]
    if not telling:
        return False
    names = [n for n in proper_names(sent) if n.lower() not in ignore and n.lower() not in ACKNOWLEDGE]
    if re.search(r"\d", sent) or names or len(set(telling)) >= 3:
        return True
    return any(rarity(w) >= 1.0 for w in telling)


def _finish(unit: Unit, tz: str, other: str, asked: str | None, known_names: set[str],
            said: dict[int, dt.date] | None = None) -> None:
    turn = unit.turn
    parts = []
    for sent in sentences(unit.text) or [unit.text]:
        text, hint, event_day = annotate_times(sent, unit.at, tz, said)
        unit.time_hint = unit.time_hint or hint
        unit.event_day = unit.event_day or event_day
        parts.append(text)
    sent = unit.text
    speaker = turn.speaker
    if other and SECOND_PERSON.search(sent):
        speaker = f"{speaker} (to {other})"
    unit.body = " ".join(parts)
    if asked:
        with_question = f'{speaker}, asked "{truncate(LEAD_IN.sub("", asked), 70)}"'
        if len(with_question) + 2 + len(unit.body) <= MAX_FACT_CHARS:
            speaker = with_question
    unit.fact = truncate(f"{speaker}: {unit.body}", MAX_FACT_CHARS)
    unit.names = proper_names(sent, skip=[turn.speaker], known=known_names)
    for m in DEPENDS.finditer(sent):
        target = m.group(1) or sent[m.end() : m.end() + 40]
        dep = content_words(target)[:3]
        if dep:
            unit.depends.append(" ".join(dep))
    unit.numbers = numbers_in(sent, unit.turn, unit.at)


def annotate_times(sent: str, at: dt.datetime, tz: str, said: dict[int, dt.date] | None = None
                   ) -> tuple[str, dt.datetime | None, dt.datetime | None]:
    """`sent` with its times written out against `at`: a relative phrase gets its day in brackets,
    a date without a year gets the year, a deadline ("by Thursday") and "the 23rd" get their day,
    a range ("10-12 July") its year. "The 19th" is the 19 September said earlier in the talk
    (`said`) while that day is still ahead, else the next 19th. Returns the text, the first time
    named, and the day of a past event it reports ("yesterday")."""
    prefer = "future" if FUTURE.search(sent) else "past" if PAST.search(sent) else "nearest"
    date_prefer = "past" if PAST_EVENT.search(sent) else "nearest"
    edits: list[tuple[int, str]] = []  # (position, text to insert there)
    hint: dt.datetime | None = None
    event_day: dt.datetime | None = None
    taken: list[tuple[int, int]] = []
    for m in _RANGE.finditer(sent):
        year = _year_of(int(m["b"]), _MONTH_NAMES.index(m["mon"].title()) + 1, at, tz, date_prefer)
        if year:
            edits.append((m.end(), f" {year}"))
            taken.append(m.span())
    for w in timewin.find_all(sent, at, tz, prefer=prefer):
        if any(a <= w.span[0] < b for a, b in taken):
            continue
        phrase = w.phrase
        if _dated(phrase):
            if re.search(r"\b(?:19|20)\d\d\b", phrase):
                continue
            w = timewin.resolve(phrase, at, tz, prefer="past") if date_prefer == "past" else _ahead(phrase, at, tz)
            if w.start is not None:
                edits.append((_end_of(sent, phrase), f" {w.start.astimezone(ZoneInfo(tz)).year}"))
        elif DEADLINE.match(phrase) and w.end is not None:
            deadline = timewin.resolve(re.sub(r"^\S+\s+", "on ", phrase), at, tz, prefer="future")
            if deadline.granularity != "day":
                continue
            w = deadline
            edits.append((_end_of(sent, phrase), f" ({deadline.label(tz)})"))
        elif w.granularity in ("range", "instant"):
            continue
        else:
            label = w.label(tz)
            if label.replace(",", "").lower() in phrase.replace(",", "").lower():
                continue
            edits.append((_end_of(sent, phrase), f" ({label})"))
            if (w.granularity == "day" and w.start and w.end and w.end <= at + dt.timedelta(days=1)
                    and prefer == "past"):
                event_day = event_day or w.start
        if w.start is not None and hint is None:
            hint = w.start
    today = at.astimezone(ZoneInfo(tz)).date()
    for m in _NTH.finditer(sent):
        earlier = (said or {}).get(int(m["d"]))
        day = earlier if earlier is not None and earlier >= today else _next_day_of_month(int(m["d"]), at, tz)
        if day:
            edits.append((m.end(), f" ({day.day} {_MONTH_NAMES[day.month - 1]} {day.year})"))
            hint = hint or dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
    out = sent
    for pos, text in sorted(edits, key=lambda e: -e[0]):
        if text and pos > 0 and not out[pos:].lstrip().startswith(text.strip()):
            out = out[:pos] + text + out[pos:]
    return out, hint, event_day


def _dated(phrase: str) -> bool:
    """A calendar date or month said by name ("27 June", "Saturday 14 February", "in November")."""
    return bool(re.search(r"\b(?:" + "|".join(_MONTH_NAMES) + r")\b", phrase, _I)) and not re.match(
        r"^(?:last|this|next|previous|coming|since|before|after|until|till|by|between|from)\b", phrase, _I)


def _end_of(sent: str, phrase: str) -> int:
    i = sent.find(phrase)
    return i + len(phrase) if i >= 0 else 0


def _year_of(day: int, month: int, at: dt.datetime, tz: str, prefer: str) -> int | None:
    try:
        w = timewin.resolve(f"{day} {_MONTH_NAMES[month - 1]}", at, tz, prefer=prefer)
    except Exception:
        return None
    return w.start.astimezone(ZoneInfo(tz)).year if w.start else None


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


def _next_day_of_month(day: int, at: dt.datetime, tz: str) -> dt.date | None:
    """"the 23rd": this month's if it is still ahead (or today), else next month's."""
    today = at.astimezone(ZoneInfo(tz)).date()
    for k in range(0, 3):
        y, m = divmod(today.month - 1 + k, 12)
        year, month = today.year + y, m + 1
        if day <= calendar.monthrange(year, month)[1]:
            candidate = dt.date(year, month, day)
            if candidate >= today:
                return candidate
    return None
