"""Assistant echoes: "Noted: the dentist on 3 May." after the user said just that.

An echo carries no information of its own, so it is no fact: it is folded into the user's fact it
restates, whose line then cites both turns ([t3, t4]). A correction the echo spells out ("Updated:
9 August instead of 2 August") is kept on that fact, so the old value can be marked superseded. An
assistant sentence that adds advice, arithmetic, a number or a name the user did not say is not an
echo and stays a fact of its own.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from sheriff_vault import nlp
from sheriff_vault.compaction.english.echo import ASSENT, HEDGES
from sheriff_vault.compaction.parts import Unit, proper_names, said_words
from sheriff_vault.compaction.units import MAX_FACT_CHARS, make_units
from sheriff_vault.compaction.values import changes_a_value, value_pairs
from sheriff_vault.store.buffer import Turn
from sheriff_vault.text import CALENDAR, currencies, sentences, spoken_numbers, stem

if TYPE_CHECKING:
    from spacy.tokens import Token

_NUMBER = re.compile(r"\d[\d,.]*")
# Words an echo may say in its own way without adding anything: "NOK" for "kroner", "January" for
# "jan", "Tuesday" for "tue".
_NOT_INFO = frozenset({"noted", "updated", "understood", "instead"}) | CALENDAR  # and currencies, numbers: _not_info
_ON_THE_HOUR = re.compile(r"\b(\d{1,2}):00\b")  # "8:00" is the "8am" the user said
# An echo that names what the person's words leave unsaid ("Sunday 29 March now." restated as
# "The court hearing moves to Sunday 29 March") keeps its words on the fact it folds into, so
# the fact can be found by them: at least this many words said before (in the talk or in memory)
# that the person's sentence lacks.
NAMES_MORE = 2
STRICT, LOOSE = 0.5, 0.6  # share of an echo's words the user said just before / at any point before


@functools.cache
def _not_info() -> frozenset[str]:
    return _NOT_INFO | currencies()[0] | frozenset(nlp.number_words())  # a number word is its number


def fold_echoes(units: list[Unit], turns: list[Turn], known: Sequence[str] = ()) -> list[Unit]:
    """`units` without the assistant's echoes; each echo's turn id is added to the user unit it
    restates, with the (new, old) value pairs it states. `known`: what memory already holds of the
    topics this talk continues (an echo may name what an earlier session said: "So: a torn
    meniscus" when only today's turn says "meniscus")."""
    by_turn: dict[str, list[Unit]] = {}
    for unit in units:
        by_turn.setdefault(unit.turn.id, []).append(unit)
    said: tuple[set[str], set[str], set[str]] = (set(), set(), set())  # numbers, words, names of this talk
    held: tuple[set[str], set[str], set[str]] = (set(), set(), set())  # ... and of the memory it continues
    for text in known:
        _hear(text, *held)
    last_user: Turn | None = None
    echoes: set[int] = set()
    for turn in turns:
        if turn.role == "user":
            last_user = turn
        if turn.role == "assistant" and last_user is not None:
            _fold(turn, last_user, by_turn, said, held, echoes)
        if turn.role in ("user", "assistant"):  # a tool's output is no fact: the report of it is news
            _hear(turn.content, *said)  # an echo may repeat the question it was asked too
    kept = [u for u in units if id(u) not in echoes]
    kept += confirmed_changes(turns, kept)
    order = {t.id: i for i, t in enumerate(turns)}
    return sorted(kept, key=lambda u: order.get(u.turn.id, -1))  # stable: a turn's units keep their order


def confirmed_changes(turns: list[Turn], kept: Sequence[Unit] = ()) -> list[Unit]:
    """A change the assistant puts to the person, as its last question ("So the swap moves from 7
    to 14 March?") or as the statement before it ("So it starts on the 20th instead of the 6th. Is
    that alright?"), that the person confirms; an aside after the question does not hide it.
    Answered yes without the value: the change is a fact, said by the assistant and confirmed,
    citing both turns. Answered with the new value said again ("the 20th, fine"): the person's own
    line is the change, and carries the old value it replaces.
    A value the assistant proposes to keep ("Shall I record the rate as £18?") that the person takes
    is a fact of its own ("The rate is £18."). `kept`: the talk's units so far (a statement kept as a
    fact of its own is marked, not repeated)."""
    out: list[Unit] = []
    by_turn: dict[str, list[Unit]] = {}
    for unit in kept:
        by_turn.setdefault(unit.turn.id, []).append(unit)
    for question, answer in zip(turns, turns[1:], strict=False):
        # confirmed by a yes, or by a number said again: any other answer needs no parse
        if question.role != "assistant" or answer.role != "user" or not (
                _assents(answer.content) or info(answer.content)[0]):
            continue
        said = sentences(question.content)
        # the turn's last question, which the answer takes up; an aside may follow it ("So the
        # class has 14 places, not 12. Shall I let the centre know? Bring your own mat, by the way.")
        q = next((i for i in range(len(said) - 1, -1, -1) if said[i].rstrip().endswith("?")), None)
        if q is None:
            continue
        proposed = _proposal(said[q])
        if proposed is not None:
            if _agrees(answer.content, proposed[1]):
                made = make_units([replace(question, content=f"{proposed[0]} is {proposed[1]}.")], "UTC", set())
                # "... as your start time from now on?": it replaces one
                out += _confirmed(made, question, answer, correction=changes_a_value(said[q]))
            continue
        asked = said[q].rstrip().rstrip(" ?") + "."
        for statement in [asked, *said[max(q - 1, 0):q]]:
            pairs = value_pairs(statement)
            repeated = [p for p in pairs if _repeats(answer.content, *p)]
            if repeated:
                for unit in by_turn.get(answer.id, []):
                    unit.corrects += [p for p in repeated if _repeats(unit.text, *p) and p not in unit.corrects]
                break
            if not (pairs or changes_a_value(statement)):
                continue
            if _assents(answer.content) and not info(statement)[0] & info(answer.content)[0]:
                stated = [u for u in by_turn.get(question.id, []) if value_pairs(u.text) == pairs]
                made = _confirmed(stated or make_units([replace(question, content=statement)], "UTC", set()),
                                  question, answer, correction=True)
                if not stated:
                    out += made
            break
    return out


def _confirmed(units: list[Unit], question: Turn, answer: Turn, correction: bool) -> list[Unit]:
    """`units`, said by the assistant in `question`, as confirmed by the person's `answer`: they
    cite both turns, and a confirmed change is a correction."""
    for unit in units:
        unit.turn = question
        unit.echoes.append(answer.id)
        if correction:
            unit.flags.add("correction")
    return units


def _proposal(question: str) -> tuple[str, str] | None:
    """A value the assistant proposes to keep for something ("Shall I record the rate as £18?", "keep
    08:45 as your start time?"): (what, value) from a verb's object and its "as" phrase, whichever
    of the two is a number, date, time or name being the value; None for any other question."""
    doc = nlp.parse_one(question, entities=False)
    for verb in doc:
        obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
        as_ = next((c for c in verb.children if c.dep_ == "prep" and c.lower_ == "as"), None)
        role = nlp.object_of(as_)
        if verb.pos_ != "VERB" or obj is None or role is None:
            continue
        a, b = (doc[t.left_edge.i : t.right_edge.i + 1] for t in (obj, role))
        for value, thing in ((b, a), (a, b)):
            if thing.root.pos_ in ("NOUN", "PROPN") and (
                    any(c.isdigit() for c in value.text) or value.root.pos_ == "PROPN"):
                text = doc[thing.start : thing.root.i + 1].text  # its words up to its noun, not "from now on"
                return text[:1].upper() + text[1:], value.text.rstrip(" ?")
    return None


def _agrees(answer: str, value: str) -> bool:
    """The person takes a proposed value: a yes, or the value said again in a sentence that denies
    nothing ("Oh I missed that. 08:45 is right." takes it; "No, keep 08:15." does not)."""
    if _assents(answer):
        return True
    numbers = info(value)[0]
    for sent in nlp.parse_one(answer, entities=False).sents:
        said = (bool(numbers) and numbers <= info(sent.text)[0]) or value.lower() in sent.text.lower()
        if said and not any(t.dep_ == "neg" or t.lower_ in ("no", "nope") for t in sent):
            return True
    return False


def _repeats(text: str, new: str, old: str) -> bool:
    """`text` says the number that sets `new` apart from `old` and none that sets `old` apart."""
    said, was, now = info(text)[0], info(old)[0], info(new)[0]
    return bool((now - was) & said) and not (was - now) & said


def _assents(text: str) -> bool:
    first = re.match(r"\W*([^\W\d_]+)", text)
    return first is not None and first.group(1).lower() in ASSENT


def _hear(text: str, said_numbers: set[str], said_words: set[str], said_names: set[str]) -> None:
    numbers, words = info(text)
    said_numbers |= numbers
    said_words |= words
    said_names |= {w.lower() for w in re.findall(r"[^\W\d_][\w'-]*", text)}
    said_names |= {w.lower() for w in re.findall(r"[^\W\d_]+", text)}  # "Reha-Klinik" and "Reha"


def _fold(turn: Turn, last_user: Turn, by_turn: dict[str, list[Unit]], said: tuple[set[str], set[str], set[str]],
          held: tuple[set[str], set[str], set[str]], echoes: set[int]) -> None:
    """Fold the echo sentences of one assistant turn into the user's units they restate. What
    memory holds (`held`) counts as said for restating, not for saying nothing new: a sentence
    that repeats an earlier session without restating this one is still worth its own line."""
    said_numbers, said_words, said_names = (a | b for a, b in zip(said, held, strict=True))
    targets = by_turn.get(last_user.id, [])
    for unit in by_turn.get(turn.id, []):
        acked = acknowledges(unit.text) or (unit.index == 0 and acknowledges(turn.content))
        if not targets or not is_echo(unit.text, last_user.content, said_numbers, said_words, said_names, acked):
            if not (unit.flags & {"decision", "loop"}) and not adds_enough(unit.text, *said):
                echoes.add(id(unit))  # says nothing new, and restates nothing either: no fact at all
            continue
        echoes.add(id(unit))
        words = info(unit.text)[1]
        target = max(targets, key=lambda u: len(info(u.text)[1] & words))
        if turn.id not in target.echoes:
            target.echoes.append(turn.id)
        # an echo that restates the person's value and names what it is of ("we're at 82" -> "82
        # guests") keeps that name on the fact: the slot is what a later correction is matched by
        names_more = 1 if info(unit.text)[0] & info(last_user.content)[0] else NAMES_MORE
        # one that gives a value the person's turn left to be worked out ("pushed back by a week" ->
        # "now on Friday 15 May") keeps the value on the fact, or it is lost with the echo
        worked_out = bool(info(unit.text)[0] - info(last_user.content)[0])
        names = len((words - info(target.text)[1]) & said_words) >= names_more
        if (worked_out or names) and unit.body not in target.fact \
                and len(target.fact) + len(unit.body) + len(turn.speaker) + 5 <= MAX_FACT_CHARS:
            target.fact = f"{target.fact} ({turn.speaker}: {unit.body})"
        target.corrects += [p for p in value_pairs(unit.text) if p not in target.corrects]


def _new_names(sent: str, said: set[str]) -> list[str]:
    """Names the user never said ("Laser Picos" for "Laser Pico" is no new name, nor "St Anne's"
    for "st annes": chat drops a possessive's apostrophe)."""
    known = said | _not_info()
    return [n for n in proper_names(sent)
            if not all(w in known or w.rstrip("s") in known or w + "s" in known for w in n.lower().split())]


def adds_enough(sent: str, said_numbers: set[str], said_words: set[str], said_names: set[str]) -> bool:
    """Whether an assistant sentence that is no echo still tells memory something: a number or a
    name not said before, or at least three new words ("Carry on with that part" does not)."""
    numbers, words = info(sent)
    return bool(numbers - said_numbers) or bool(_new_names(sent, said_names)) or len(words - said_words) >= 3


def info(text: str) -> tuple[set[str], set[str]]:
    """The numbers and the content-word stems a text carries."""
    text = _ON_THE_HOUR.sub(r"\1", text)
    numbers = {n.replace(",", "").rstrip(".") for n in _NUMBER.findall(text)}
    numbers |= {str(value) for _, _, value in spoken_numbers(text)}  # "eighty two" is the "82" of an echo
    words = {stem(w) for w in said_words(text) if w not in _not_info()}
    return numbers, words


def is_echo(sent: str, previous_user: str, said_numbers: set[str], said_words: set[str],
            said_names: set[str], acknowledged: bool = False) -> bool:
    """True when an assistant sentence only restates what the user said: no number or name the
    user did not say, nothing that adds advice or a plan, and (an acknowledgement or most of its
    words from the user's last turn) with almost all of its words said by the user before."""
    if sent.rstrip().endswith("?") or adds(sent):
        return False
    numbers, words = info(sent)
    pairs = value_pairs(sent)
    replaced = info(" ".join(old for _, old in pairs))[0]  # "9 August instead of 2 August"
    # "The hearing moves from Thursday 26 to Sunday 29 March" after "so Sunday 29 March now": it
    # restates the change the person just made, whatever else it names
    last_numbers = info(previous_user)[0]
    restates_change = bool(pairs) and all(info(new)[0] and info(new)[0] <= last_numbers for new, _ in pairs)
    if numbers - said_numbers - replaced:
        return False
    if _new_names(sent, said_names):
        return False
    if not words or (acknowledged and numbers and numbers <= last_numbers | replaced):
        return bool(numbers)  # "Updated: the gig moves to Friday 3 April" restates the person's value
    last_words = info(previous_user)[1]
    from_last = len(words & last_words) / len(words)
    from_any = len(words & said_words) / len(words)
    return (acknowledged or acknowledges(sent) or from_last >= STRICT or restates_change) and from_any >= LOOSE


def acknowledges(text: str) -> bool:
    """The sentence opens or closes on an acknowledgement: one or two words set off by punctuation
    that name no thing ("Noted:", "Got it,", "Okay.", "..., got it.")."""
    doc = nlp.parse_one(text.strip(), entities=False)
    words = [t for t in doc if not t.is_space]
    # a mark that sets words off stands before a space or at the end: "--since", "V=2" set off nothing
    cut = [i for i, t in enumerate(words) if t.is_punct and (t.whitespace_ or t.i == len(doc) - 1)]
    if not cut:
        return False
    heads = (words[: cut[0]], words[cut[-2] + 1 : cut[-1]] if len(cut) > 1 else [])
    return any(0 < len(part) <= 2 and all(t.pos_ in _ACK_POS for t in part) for part in heads)


def adds(text: str) -> bool:
    """The sentence adds advice, a judgement or a plan of the assistant's own: a modal of advice
    ("you should"), a first person who will do or recommends ("I'll", "I suggest"), or a hedge
    ("maybe", "usually"). A command says something new only in its words (adds_enough)."""
    for t in nlp.parse_one(text, entities=False):
        subject = next((c for c in t.children if c.dep_ == "nsubj"), None)
        if t.tag_ == "MD" and (t.lower_ in _ADVISING or (t.head.pos_ == "VERB" and _first_person(t.head))):
            return True
        if t.pos_ == "VERB" and t.tag_ in ("VBP", "VB") and subject is not None and subject.lower_ == "i":
            return True
        if t.lower_ in HEDGES:
            return True
    return False


def _first_person(verb: Token) -> bool:
    return any(c.dep_ == "nsubj" and c.lower_ == "i" for c in verb.children)


_ACK_POS = ("VERB", "INTJ", "ADV", "ADJ", "PRON")
_ADVISING = ("should", "would", "could", "might")  # modals of advice; "will" and "can" only with "I"
