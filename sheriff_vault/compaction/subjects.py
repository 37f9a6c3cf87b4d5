"""A conversation's subjects: which turns talk about the same thing, even when it pauses and comes back.

The talk is cut into exchanges (a person's turn and the replies to it; a question and its answer).
Each exchange joins the subject being talked about, unless it clearly belongs to another one
already seen ("back to the speech"), or to none seen yet; a switch phrase ("other thing", "on
another note") or a long pause weighs toward a change, a short follow-up ("rent goes up to
1,120") stays where it is, and an exchange unlike the subject that the next exchange takes up
opens a new one unannounced. Likeness is meaning (sentence embeddings) and shared uncommon words.

The cues are read from the parse (sheriff_vault/nlp.py): an ordinal or a word of difference heading a
sentence, a noun phrase standing as a turn's heading, a verbless phrase that names what a turn is
about, an interjection that opens a reply, a short turn that names nothing. The few words no parse
gives ("other", "thing", "thanks", "by the way") are a table with its examples: english/place.py.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sheriff_vault import nlp
from sheriff_vault.compaction.english import place, title
from sheriff_vault.compaction.prior import PriorTopic, last_talked, nearest
from sheriff_vault.store.buffer import Turn
from sheriff_vault.text import content_words, stem

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

# -- discourse cues, read from the parse (the words no parse gives are in english/place.py) ---------
@dataclass(frozen=True)
class Found:
    """Where a cue stands in a text, shaped like a regex match for the callers that slice by it."""

    at: int
    to: int
    text: str

    def start(self) -> int:
        return self.at

    def end(self) -> int:
        return self.to

    def group(self, _: int = 0) -> str:
        return self.text[self.at:self.to]


_HEADING_END = {":", ",", ".", "!", ";", "-", "–", "—"}
_NOUNS = ("NOUN", "PROPN")
HEADING_WORDS = 5  # a heading ("the third thing", "number two") is a short noun phrase


def _ordinal(token: Token) -> bool:
    """"second", "third", "2nd": spaCy reads them as ordinals and as number-like."""
    return token.ent_type_ == "ORDINAL" or (token.like_num and token.pos_ in ("ADJ", "ADV"))


def _starts(doc: Doc) -> list[int]:
    """Where sentences start: the parser's, and after every full stop (chat often lacks capitals)."""
    starts = {s.start for s in doc.sents} | {t.i + 1 for t in doc if t.text in (".", "!", "?") and t.i + 1 < len(doc)}
    return sorted(starts)


@dataclass(frozen=True)
class _Lead:
    """How a sentence opens: discourse words (interjections, conjunctions, adverbs such as "so",
    "also"), then perhaps a short noun phrase standing on its own before a punctuation mark."""

    start: int                   # first token of the sentence
    phrase: tuple[int, int]      # the heading's tokens (empty when none)
    end: int                     # the token after the heading's punctuation
    additive: bool               # "and", "also", "next", "plus" before it
    mark: str                    # the punctuation after the heading


def _lead(doc: Doc, start: int) -> _Lead:
    i, additive = start, False
    while i < len(doc) and (doc[i].pos_ in ("INTJ", "CCONJ", "PUNCT") or doc[i].lower_ in place.COURTESY
                            or (doc[i].pos_ == "ADV" and not _ordinal(doc[i])
                                and doc[i].lower_ not in place.DIFFERENCE)):
        additive = additive or doc[i].pos_ == "CCONJ" or doc[i].lower_ in place.ADDITION
        i += 1
    j = i
    while j < len(doc) and j - i < HEADING_WORDS and (
            doc[j].pos_ in ("DET", "ADJ", "NUM", *_NOUNS) or doc[j].tag_ == "PRP$" or _ordinal(doc[j])
            or doc[j].lower_ in place.DIFFERENCE):
        j += 1
    mark = doc[j].text if j < len(doc) and j > i and doc[j].text in _HEADING_END else ""
    return _Lead(start, (i, j) if mark else (i, i), j + 1 if mark else i, additive, mark)


def _item(doc: Doc, lead: _Lead, first: bool = False) -> bool:
    """A heading that is an item of a list or a new thing: "Second thing:", "Third,", "the fun one"
    after an ordinal, "Number two:", "other thing.", "Separately,"; the ordinal or word of difference
    before a general noun, or alone. `first`: a list's first item counts too."""
    words = [doc[k] for k in range(*lead.phrase)]
    if not words:
        return False
    if not first and any(w.lower_ in place.LIST_START for w in words):
        return False
    marked = [w for w in words if _ordinal(w) or w.lower_ in place.DIFFERENCE or w.lower_ in place.ADDITION]
    rest = [w for w in words if w not in marked and w.pos_ not in ("DET", "ADJ") and w.tag_ != "PRP$"]
    if marked and all(w.lower_ in place.GENERAL for w in rest):
        return bool(rest) or any(_ordinal(w) or w.lower_ in place.DIFFERENCE for w in marked)
    # "Number two:", "item 3,": a small numeral after the general noun it counts
    return any(w.pos_ == "NUM" and len(w.text) <= 5 and w.i > 0 and w.head.i == w.i - 1
               and w.head.lower_ in place.GENERAL for w in words)


def _listed(sent: Span) -> bool:
    """"And the next thing is the garage", "The reunion is the second thing": a general noun with
    its article and an ordinal or a word of difference on one side of "be", a noun phrase on the other
    ("one" is no such noun: "the second one is" points back at a thing already named)."""
    for token in sent:
        if token.lower_ in place.GENERAL and token.lower_ != "one" and token.dep_ in ("nsubj", "attr") \
                and token.head.lemma_ == "be" and any(c.pos_ == "DET" for c in token.children) \
                and any((_ordinal(c) or c.lower_ in place.DIFFERENCE or c.lower_ in place.ADDITION)
                        and c.lower_ not in place.LIST_START for c in token.children) \
                and any(c.dep_ in ("nsubj", "attr") and c is not token and c.pos_ in ("NOUN", "PROPN")
                        for c in token.head.children):
            return True
    return False


def _after_interjections(doc: Doc) -> int:
    """The character where a turn's words start after its interjections and conjunctions ("ok so ...")."""
    i = 0
    while i < len(doc) and doc[i].pos_ in ("INTJ", "CCONJ", "PUNCT"):
        i += 1
    return doc[i].idx if i < len(doc) else len(doc.text)


class Shift:
    """The person moves the talk on: a list walked through ("Second thing:", "ok third,", "Number two:",
    "And the third thing is ..."), a new thing announced ("other thing.", "Separately,"), a turn that
    opens on its own heading after "and"/"also" ("And chess:", "also my tooth. it cracked on a pit"),
    or a fixed phrase at the turn's start (english/place.py SHIFT). `search`: the first, anywhere a
    sentence starts."""

    def search(self, text: str) -> Found | None:
        if not text.strip():
            return None
        doc = nlp.parse_one(text)
        for at in (0, _after_interjections(doc)):
            if m := place.SHIFT.match(text[at:]):
                return Found(at + m.start(), at + m.end(), text)
        for n, start in enumerate(_starts(doc)):
            lead = _lead(doc, start)
            # "And chess:", "also my tooth. it cracked", "First the boring one:"
            heading = _item(doc, lead) or (n == 0 and _own_heading(doc, lead) and (
                lead.additive or (lead.mark == ":" and any(_ordinal(doc[k]) for k in range(*lead.phrase)))))
            if heading or _listed(doc[start].sent):
                end = doc[lead.end - 1] if heading else doc[start]
                return Found(doc[start].idx, end.idx + len(end.text), text)
        return None

    @property
    def opener(self) -> Opener:
        return Opener()


def _own_heading(doc: Doc, lead: _Lead) -> bool:
    """"And chess:", "also my tooth. it cracked", "and the fun one:": a noun phrase on its own, not a
    pronoun or an adverb, before a colon, or before a full stop that a sentence of three words or more
    follows."""
    words = [doc[k] for k in range(*lead.phrase)]
    if not words or words[-1].pos_ not in ("NOUN", "PROPN", "ADJ") and words[-1].lower_ not in place.GENERAL:
        return False
    if lead.mark == ":":
        return True
    return lead.mark == "." and len([t for t in doc[lead.end:] if not t.is_punct]) >= 3


class Opener:
    """How a person opens a subject ("Separate thing,", "Second thing, completely unrelated:",
    "Also,"): not part of the line that sums the subject up. `sub(repl, text, count=1)` as a regex."""

    def sub(self, repl: str, text: str, count: int = 0) -> str:
        if not text.strip():
            return text
        doc = nlp.parse_one(text)
        lead = _lead(doc, 0)
        if _item(doc, lead, first=True):
            end = lead.end
            # "Second thing, completely unrelated: ...": what leads up to a colon soon after is the opener too
            for t in doc[end:]:
                if t.text in (".", "!", "?") or t.idx - doc[end - 1].idx > 60:
                    break
                if t.text == ":":
                    end = t.i + 1
                    break
        elif lead.additive and lead.phrase == (lead.end, lead.end) and lead.end > 0 and doc[lead.end - 1].text == ",":
            end = lead.end  # "Also, the fibre ...", "Next, we ..."
        else:
            return text
        if end >= len(doc):
            return text
        return repl + text[doc[end].idx:]


class Unlike:
    """The person says this is not the thing talked about before: "Separately,", "another thing",
    "it's a different party", "nothing to do with"; a word of difference heading a sentence, before a
    general noun, in what a thing is said to be, or in a comment beside it ("..., separate crowd")."""

    def search(self, text: str) -> Found | None:
        if not text.strip():
            return None
        if m := place.UNLIKE.search(text):
            return Found(m.start(), m.end(), text)
        doc = nlp.parse_one(text)
        for start in _starts(doc):  # "Separately,", "Totally different:", "Another thing,": a heading of difference
            lead = _lead(doc, start)
            words = [doc[k] for k in range(*lead.phrase)]
            if _item(doc, lead) and any(w.lower_ in place.DIFFERENCE and w.lower_ != "other" for w in words):
                return Found(words[0].idx, words[-1].idx + len(words[-1].text), text)
        for token in doc:
            if token.lower_ in place.DIFFERENCE and token.lower_ != "other" and token.dep_ in ("amod", "det"):
                noun = token.head
                # what a thing is said to be ("it's a different party"), or a comment beside it ("..., different crowd")
                if noun.lower_ in place.GENERAL or (noun.pos_ == "NOUN" and noun.dep_ in ("attr", "appos")):
                    return Found(token.idx, noun.idx + len(noun.text), text)
        return None


def _definite(token: Token) -> bool:
    """"the thing", "Monday's thing", "Lindqvist", "that": a noun phrase that points at something known."""
    return token.pos_ in ("PROPN", "PRON") or any(c.dep_ in ("det", "poss") for c in token.children)


class Named:
    """A turn that names what it is about before it says anything, in a phrase with no verb: news or an
    update about a known thing ("A word on the roof from Tuesday:", "Back to the budget.", "About
    the money.", "So, news on that."), or a compound noun as a heading ("Fence update:", "Roof update.")."""

    def search(self, text: str) -> Found | None:
        if not text.strip():
            return None
        doc = nlp.parse_one(text)
        for start in _starts(doc)[:2]:
            first = start
            while first < len(doc) and (doc[first].pos_ in ("INTJ", "CCONJ", "PUNCT", "ADV")
                                        or doc[first].lower_ in place.COURTESY or doc[first].lower_ in place.GREETING) \
                    and not place.BACK_TO.match(text[doc[first].idx:]):
                first += 1
            stop = next((t.i for t in doc[first:] if t.text in (":", ".", "!", "?", ";")), len(doc))
            words = [t for t in doc[first:stop] if not t.is_punct]
            if not words or any(t.pos_ in ("VERB", "AUX") or t.dep_ == "nummod" or t.tag_ in ("WP", "WRB")
                                for t in words):
                continue
            inside = set(words)
            back = bool(place.BACK_TO.search(doc[words[0].i:words[-1].i + 1].text))
            about = any(p.pos_ == "ADP" and (p.lower_ in place.ABOUT or back) and (p.head in inside or p.head.i == p.i)
                        and any(o.dep_ == "pobj" and _definite(o) for o in p.children) for p in words)
            root = next((t for t in words if t.head not in inside or t.head.i == t.i), words[0])
            heading = root.pos_ == "NOUN" and len(words) <= 4 and stop < len(doc) \
                and any(c.dep_ == "compound" for c in root.children) and not _definite(root)
            if about or heading:
                return Found(words[0].idx, words[-1].idx + len(words[-1].text), text)
        return None


def heading_nouns(doc: Doc) -> set[str]:
    """The nouns a turn heads itself with before it says anything: the verbless phrases it opens on
    up to a colon or a full stop ("Coffee first, then: the gutters. They overflow ..." -> coffee,
    gutters); none when it opens on a clause, and never a general noun ("update", "thing"), a date or
    a greeting, which name no subject."""
    nouns: set[str] = set()
    piece: list[Token] = []
    for t in doc:
        if t.text in (":", ".", "!", "?", ";") or t.i == len(doc) - 1:
            if not t.is_punct:
                piece.append(t)
            if any(w.pos_ in ("VERB", "AUX") or w.tag_ in ("WP", "WRB") for w in piece):
                return nouns  # the clause the heading stood before
            if not _names_a_thing(piece, t.text):
                piece = []
                continue
            nouns |= {stem(w.text) for w in piece if w.pos_ in _NOUNS and w.ent_type_ not in ("DATE", "TIME")
                      and w.lower_ not in place.GENERAL and w.lower_ not in title.GENERIC
                      and w.lower_ not in place.COURTESY and w.lower_ not in place.GREETING}
            piece = []
            continue
        piece.append(t)
    return set()  # a turn of phrases only ("the fitting on friday, same place") heads nothing


def _names_a_thing(piece: list[Token], mark: str) -> bool:
    """A phrase that names a thing: a noun heads it ("the gutters", "coffee first, then"), or it goes
    back to one ("back to the budget"); one word names one only before a colon ("gutters:", not "ugh."), and
    a heading is short."""
    words = [w for w in piece if not w.is_punct]
    if not words or len(words) == 1 and mark != ":" or len(words) > HEADING_WORDS + 3:
        return False  # a long verbless sentence is a comment ("nicer for us anyway, ten minutes by bike ...")
    inside = {w.i for w in words}
    root = next((w for w in words if w.head.i not in inside or w.head.i == w.i), words[0])
    return root.pos_ in _NOUNS or bool(place.BACK_TO.match(words[0].doc[words[0].i:words[-1].i + 1].text))


def _first_segment(doc: Doc) -> list[Token]:
    """The words before the first punctuation mark."""
    out: list[Token] = []
    for t in doc:
        if t.is_punct:
            if out:
                break
            continue
        out.append(t)
    return out


def _reply_end(doc: Doc) -> int | None:
    """Where a reply's opening ends: interjections ("yes", "yeah", "ugh yes"; not a greeting, and not
    "oh, and ..." that adds something new), or a short evaluation before a comma or full stop ("Good
    idea,", "True.", "Agreed."); None when the turn opens no such way."""
    i = 0
    while i < len(doc) and (doc[i].pos_ in ("INTJ", "PUNCT") or doc[i].dep_ == "intj") \
            and doc[i].lower_ not in place.COURTESY and doc[i].lower_ not in place.GREETING:
        i += 1
    if i > 0 and any(not t.is_punct for t in doc[:i]):
        if i < len(doc) and doc[i].pos_ == "CCONJ":
            return None
        return doc[i - 1].idx + len(doc[i - 1].text)
    seg = _first_segment(doc)
    # one word answers as a sentence of its own ("True."); "Right, ..." opens what comes next
    marks = (",", ".", "!", ";") if len(seg) == 2 else (".", "!")
    if not seg or len(seg) > 2 or seg[-1].i + 1 >= len(doc) or doc[seg[-1].i + 1].text not in marks:
        return None
    if any(t.pos_ not in ("ADJ", "ADV", "VERB", "NOUN") or t.lower_ in place.DIFFERENCE or t.lower_ in place.ADDITION
           or t.lower_ in place.COURTESY or t.lower_ in place.GREETING or _ordinal(t) for t in seg):
        return None
    nouns_ok = all(t.pos_ != "NOUN" or any(c.pos_ == "ADJ" for c in t.children) for t in seg)
    if nouns_ok and any(t.pos_ in ("ADJ", "VERB") for t in seg):
        return seg[-1].idx + len(seg[-1].text)
    return None


def _you_said(doc: Doc) -> bool:
    """"cheaper than you said", "you were right": the person refers to what the assistant said, the
    assistant as the subject of a past tense."""
    return any(t.lower_ == "you" and t.dep_ == "nsubj" and "Past" in t.head.morph.get("Tense", []) for t in doc)


SWITCH = Shift()  # "Second thing:", "other thing,", "and chess:": the talk moves on
DIFFERENT = Unlike()  # "a different party", "nothing to do with": not the thing talked about before
RETURN_CUE = Named()  # "news on the roof:", "back to the budget": the turn names its subject first
ANSWER_MOVES = 0.3  # an answer still moves when another subject fits it this much better ("right. main deco is up")
STAY = 0.11       # likeness to the current subject under which an exchange does not simply follow it
STAY_SOCIAL = 0.30  # the same where people chat among themselves (no assistant): small talk drifts fast
RETURN = 0.30     # likeness an exchange needs to join a subject other than the current one
RETURN_CLEAR = 0.225  # ... when it fits that subject clearly better (by CLEAR) than the current one
CLEAR = 0.15
MARGIN = 0.08     # how much better another subject must fit before the talk is taken to have moved
PAUSE_MINUTES = 45
_DEBUG = bool(__import__('os').environ.get('SV_DEBUG_SUBJECTS'))
JOIN = 0.40      # likeness at which two subjects found apart are taken to be one
JOIN_MOVED = 0.55  # ... when the person moved the talk to the later one by a cue ("Speaking of X:")
OPENS_BELOW = 0.2  # likeness to the current subject under which an exchange may open a new one unannounced
OPENS_AHEAD = 0.3  # ... when the next exchange is this much more like it than like the current subject
YOUNG_STAY = 0.75  # ... and holds them at this share of STAY
DETAIL_WORDS = 15  # a turn this short may be a detail of the subject just raised
YOUNG = 2         # exchanges a new subject has before it must hold the talk on its own merits
RECENT = 4        # the current subject is judged by its last few exchanges: subjects drift
CROWDED = 48      # lines past which a vault topic must fit more clearly to grow (no catch-all topic)


@dataclass
class Subject:
    """Turns of one subject, in order."""

    turns: list[Turn] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)
    bag: Counter[str] = field(default_factory=Counter)
    existing: str = ""  # the vault topic (path) this subject continues
    name: str = ""  # ... and its name
    moved_to: bool = False  # the person moved the talk to it by a phrase of moving on


def _seeded(prior: PriorTopic) -> Subject:
    """An existing topic as a subject the slice may continue: its lines are what it is about."""
    bag: Counter[str] = Counter()
    for text in prior.texts:
        bag.update(_bag(text))
    return Subject([], list(prior.vectors), bag, prior.path, prior.name)


def exchanges(talk: list[Turn]) -> list[list[Turn]]:
    """A person's turn with the assistant's replies; where no assistant speaks (two people), a turn
    with the answer to the question it ends on."""
    has_assistant = any(t.role == "assistant" for t in talk)
    groups: list[list[Turn]] = []
    for turn in talk:
        if not groups:
            groups.append([turn])
        elif has_assistant:
            if turn.role == "user":
                groups.append([turn])
            else:
                groups[-1].append(turn)
        elif groups[-1][-1].content.rstrip().endswith("?") and len(groups[-1]) == 1:
            groups[-1].append(turn)
        else:
            groups.append([turn])
    return groups


def exchange_texts(turns: list[Turn]) -> list[str]:
    """What find_subjects embeds for `turns`, a text an exchange: a sleep asks for their vectors
    before it needs them, and reads the index meanwhile."""
    return _texts(exchanges(_talk(turns)))


def _talk(turns: list[Turn]) -> list[Turn]:
    return [t for t in turns if t.role in ("user", "assistant") and t.content.strip()]


def _texts(groups: list[list[Turn]]) -> list[str]:
    return [" ".join(t.content for t in g)[:1200] for g in groups]


def find_subjects(turns: list[Turn], encode: Callable[[list[str]], np.ndarray],
                  prior: Sequence[PriorTopic] = (), trace: list[dict] | None = None) -> list[Subject]:
    """The subjects of `turns` (user and assistant turns with text), in order of first mention.
    `prior`: the vault's topics; an exchange that continues one joins it as it would join a
    subject raised earlier in the slice, and the slice opens on the topic talked about last.
    `trace` gets one entry an exchange: the subject it joined and the signals that chose it."""
    talk = _talk(turns)
    groups = exchanges(talk)
    if not groups:
        return []
    social = not any(t.role == "assistant" for t in talk)  # people chatting: subjects drift fast
    nlp.parse(t.content for t in talk)  # one batch; the cues below read these parses
    texts = _texts(groups)
    vectors = np.asarray(encode(texts), dtype=np.float32)
    bags = [_bag(text) for text in texts]
    df = Counter(w for bag in bags for w in set(bag))
    weight = {w: math.log(1 + len(bags) / n) for w, n in df.items()}
    near = nearest(list(prior), vectors)
    subjects: list[Subject] = [_seeded(p) for p in near]
    last = last_talked(near)
    current: int | None = near.index(last) if last is not None else None
    last_at = last.last_at if last is not None else None
    replied_to: Turn | None = None  # the last turn of the exchange before
    for i, (group, vec, bag) in enumerate(zip(groups, vectors, bags, strict=True)):
        head = group[0]
        if current is not None and _closing(head):
            subjects[current].turns += group
            if trace is not None:
                trace.append(_why(head, subjects, [], current, current, {"closing": True}))
            continue
        differs = bool(DIFFERENT.search(head.content))  # never a topic the vault held before
        likeness = [0.0 if differs and s.existing else _likeness(vec, bag, s, weight, recent=(k == current))
                    for k, s in enumerate(subjects)]
        answers = current is not None and _answers(head, replied_to) \
            and max(likeness) - likeness[current] < ANSWER_MOVES
        pause = bool(last_at and head.at and (head.at - last_at).total_seconds() > PAUSE_MINUTES * 60)
        switch = said_switch = bool(SWITCH.search(head.content))
        heads = heading_nouns(nlp.parse_one(head.content))
        # a heading that names nothing the current subject has talked about moves the talk
        elsewhere = bool(heads) and current is not None and len(subjects[current].vectors) > YOUNG \
            and not heads & set(subjects[current].bag)
        switch = switch or elsewhere
        opens = not answers and not switch and current is not None \
            and _opens(i, groups, vectors, bags, subjects[current], likeness[current], weight)
        # a subject just raised keeps its short details; a long turn far from it is no detail
        young = current is not None and len(subjects[current].vectors) <= YOUNG and not social \
            and len(content_words(head.content)) <= DETAIL_WORDS
        chosen = current if answers and not switch else \
            _choose(likeness, current, switch or opens, pause or bool(RETURN_CUE.search(head.content)), young,
                    STAY_SOCIAL if social else STAY)
        if _DEBUG:
            print(f"{head.id:>5} cur={current} sw={switch:d} p={pause:d} -> {chosen} "
                  f"{[round(x, 2) for x in likeness]} {head.content[:60]!r}")
        if chosen is None:
            # the person said they move on ("speaking of", "other thing") from talk it was not already like
            subjects.append(Subject(moved_to=said_switch and (current is None or likeness[current] < JOIN)))
            chosen = len(subjects) - 1
        if trace is not None:
            trace.append(_why(head, subjects, likeness, current, chosen,
                              {"switch": switch, "heading": elsewhere, "opens": opens, "pause": pause,
                               "answers": bool(answers), "detail": young}))
        subject = subjects[chosen]
        subject.turns += group
        subject.vectors.append(vec)
        subject.bag.update(bag)
        current, last_at, replied_to = chosen, group[-1].at or last_at, group[-1]
    order = {id(turn): i for i, turn in enumerate(talk)}
    joined = [s for s in _join_alike([s for s in subjects if s.vectors], weight, order) if s.turns]
    return sorted(joined, key=lambda s: order.get(id(s.turns[0]), 0))


def _opens(i: int, groups: list[list[Turn]], vectors: np.ndarray, bags: list[Counter[str]], current: Subject,
           likeness: float, weight: dict[str, float]) -> bool:
    """An exchange unlike the subject being talked about (under OPENS_BELOW) that the next exchange
    follows far more closely than it follows that subject (by OPENS_AHEAD): a new subject starts
    here though no phrase announced it. One unlike exchange alone is no new subject: the next one
    must take it up, as a person's next message does when they have moved on; a detail the talk
    leaves again stays where it is."""
    if likeness >= OPENS_BELOW:
        return False
    after = next((j for j in range(i + 1, len(groups)) if not _closing(groups[j][0])), None)
    if after is None:
        return False
    here = Subject([], [vectors[i]], bags[i])
    follows_here = _likeness(vectors[after], bags[after], here, weight, recent=True)
    follows_current = _likeness(vectors[after], bags[after], current, weight, recent=True)
    return follows_here - follows_current >= OPENS_AHEAD


def _why(head: Turn, subjects: list[Subject], likeness: list[float], current: int | None, chosen: int,
         cues: dict[str, bool]) -> dict:
    """One line of `vault sleep --explain`: where an exchange went, its likeness to the closest
    subjects (a vault topic by name, one opened in this slice by its first turn), and the cues."""
    def label(k: int) -> str:
        s = subjects[k]
        return f"topic {s.name}" if s.existing else f"new subject at {s.turns[0].id if s.turns else head.id}"

    near = sorted(range(len(likeness)), key=lambda k: -likeness[k])[:3]
    return {"turn": head.id, "joined": label(chosen),
            "continued": chosen == current, "likeness": {label(k): round(likeness[k], 3) for k in near},
            "cues": sorted(k for k, v in cues.items() if v)}


def _join_alike(subjects: list[Subject], weight: dict[str, float], order: dict[int, int]) -> list[Subject]:
    """Two subjects found apart that are about the same thing become one: a later one joins the
    earliest it is like enough (a pause the walk above could not bridge). Two vault topics never
    join: a person keeps them apart."""
    out: list[Subject] = []
    for subject in subjects:
        if subject.existing:
            out.append(subject)
            continue
        centroid = np.sum(subject.vectors, axis=0)
        best, best_like = None, 0.0
        differs = any(DIFFERENT.search(t.content) for t in subject.turns[:2])
        for k, earlier in enumerate(out):
            if differs and earlier.existing:
                continue
            like = _likeness(centroid / (np.linalg.norm(centroid) or 1.0), subject.bag, earlier, weight, recent=False)
            if like > best_like:
                best, best_like = k, like
        if best is not None and best_like >= (JOIN_MOVED if subject.moved_to else JOIN):
            out[best].turns += subject.turns
            out[best].vectors += subject.vectors
            out[best].bag.update(subject.bag)
        else:
            out.append(subject)
    for subject in out:
        subject.turns.sort(key=lambda turn: order.get(id(turn), 0))
    return out


def _choose(likeness: list[float], current: int | None, switch: bool, reconsider: bool, young: bool,
            stay_at: float = STAY) -> int | None:
    """Which subject an exchange joins: None for a new one. A subject just raised is followed by its
    details ("About 40 people, dinner at La Tavola"), so it keeps the talk unless another fits clearly."""
    if not likeness:
        return None
    best = max(range(len(likeness)), key=lambda k: likeness[k])
    if current is not None and not switch:
        stay = stay_at * (1.6 if reconsider else YOUNG_STAY if young else 1.0)
        margin = MARGIN * (3 if young and not reconsider else 1)
        if likeness[current] >= stay and likeness[best] - likeness[current] < margin:
            return current
    back_at = RETURN
    if current is not None and best != current and likeness[best] - likeness[current] >= CLEAR:
        back_at = RETURN_CLEAR  # an aside about a subject already seen ("packed the books today")
    if likeness[best] >= back_at and not (switch and best == current):
        return best
    return None


def _likeness(vec: np.ndarray, bag: Counter[str], subject: Subject, weight: dict[str, float], recent: bool) -> float:
    """Meaning and shared uncommon words, 0..1: against the subject's last few exchanges when it is
    the current one (a subject drifts as it goes), against all of it otherwise."""
    words = set(bag)
    total = sum(weight.get(w, 0.0) for w in words) or 1.0
    vectors = subject.vectors[-RECENT:] if recent else subject.vectors
    centroid = np.sum(vectors, axis=0)
    norm = float(np.linalg.norm(centroid)) or 1.0
    cosine = max(0.0, float(vec @ centroid) / norm)
    shared = sum(weight.get(w, 0.0) for w in words if w in subject.bag)
    # a vault topic past CROWDED lines must be a clearer fit to grow: its words cover any turn
    crowded = min(1.0, (CROWDED / len(subject.vectors)) ** 0.5) if subject.existing else 1.0
    return crowded * (0.65 * cosine + 0.35 * min(1.0, 2 * shared / total))


def _bag(text: str) -> Counter[str]:
    """Stemmed content words and adjacent pairs of them: "office party" tells more than "party"."""
    words = [stem(w) for w in content_words(text)]
    return Counter(words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)])


def _answers(turn: Turn, replied_to: Turn | None) -> bool:
    """A short answer to the assistant's last turn that says something of its own ("yes that's the
    plan, doing it in Python") or refers to what it said ("cheaper than you said"); a bare "sure" does
    not, and goes where its exchange's meaning goes, nor does a "yes" to "shall we switch to the
    refactor?"."""
    if replied_to is None or replied_to.role != "assistant" or len(turn.content) > 200 \
            or place.MOVE_ON.search(replied_to.content) or SWITCH.search(replied_to.content):
        return False
    doc = nlp.parse_one(turn.content)
    if _you_said(doc):
        return True
    end = _reply_end(doc)
    return end is not None and len(content_words(turn.content[end:])) >= 2


def _closing(turn: Turn) -> bool:
    """"ok thanks", "bye for now", "great. off to bed", "will do", "that's it for now": belongs to
    whatever was being said, and starts nothing. A short turn with no figure and no question that opens
    on thanks, a farewell or an acknowledgement, a one-word evaluation, an auxiliary or "that's"."""
    if len(content_words(turn.content)) > 3 or not turn.content.strip() or "?" in turn.content:
        return False
    doc = nlp.parse_one(turn.content)
    words = [t for t in doc if not t.is_punct]
    if not words or any(t.like_num and any(ch.isdigit() for ch in t.text) for t in words):
        return False
    head, seg = words[0], _first_segment(doc)
    evaluation = len(seg) == 1 and head.pos_ in ("ADJ", "ADV") and not _ordinal(head) \
        and head.lower_ not in place.DIFFERENCE
    asks = len(words) > 1 and words[1].dep_.startswith("nsubj")  # "should i ...": an auxiliary before its subject
    return evaluation or head.lower_ in place.COURTESY or (head.pos_ == "AUX" and not asks) \
        or (head.tag_ == "DT" and head.head.lemma_ == "be")
