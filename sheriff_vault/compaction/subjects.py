"""A conversation's subjects: which turns talk about the same thing, even when it pauses and comes back.

The talk is cut into exchanges (a person's turn and the replies to it; a question and its answer).
Each exchange joins the subject being talked about, unless it clearly belongs to another one
already seen ("back to the speech"), or to none seen yet; a switch phrase ("other thing", "on
another note") or a long pause weighs toward a change, a short follow-up ("rent goes up to
1,120") stays where it is, and an exchange unlike the subject that the next exchange takes up
opens a new one unannounced. Likeness is meaning (sentence embeddings) and shared uncommon words.

The cues are read from the parse (cues.py): an ordinal or a word of difference heading a sentence,
a noun phrase standing as a turn's heading, a verbless phrase that names what a turn is about, an
interjection that opens a reply, a short turn that names nothing. Then the slice's facts are
grouped by subject (`candidates`): what one topic would learn from it.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sheriff_vault import nlp
from sheriff_vault.compaction.cues import (
    DIFFERENT,
    RETURN_CUE,
    SWITCH,
    added_nouns,
    first_segment,
    heading_nouns,
    ordinal,
    previews,
    refers_to,
    reply_end,
    you_said,
)
from sheriff_vault.compaction.english import place
from sheriff_vault.compaction.parts import Candidate, Unit, said_words
from sheriff_vault.compaction.prior import PriorTopic, last_talked, nearest
from sheriff_vault.compaction.values import mentions, numeric, replaced_in
from sheriff_vault.store.buffer import Turn
from sheriff_vault.text import sentences, stem

if TYPE_CHECKING:
    pass


ANSWER_MOVES = 0.3  # an answer still moves when another subject fits it this much better ("right. main deco is up")
STAY = 0.11       # likeness to the current subject under which an exchange does not simply follow it
STAY_SOCIAL = 0.30  # the same where people chat among themselves (no assistant): small talk drifts fast
RETURN = 0.30     # likeness an exchange needs to join a subject other than the current one
RETURN_CLEAR = 0.225  # ... when it fits that subject clearly better (by CLEAR) than the current one
CLEAR = 0.15
NAMED = 0.1  # likeness a turn gains toward the one vault topic it names as a thing known ("the surgery")
MARGIN = 0.08     # how much better another subject must fit before the talk is taken to have moved
PAUSE_MINUTES = 45
_DEBUG = bool(__import__('os').environ.get('SV_DEBUG_SUBJECTS'))
JOIN = 0.40      # likeness at which two subjects found apart are taken to be one
JOIN_MOVED = 0.55  # ... when the person moved the talk to the later one by a cue ("Speaking of X:")
JOIN_ONE = 0.35  # ... when the later one is one exchange: mostly a remark the walk could not place
OPENS_BELOW = 0.2  # likeness to the current subject under which an exchange may open a new one unannounced
OPENS_AHEAD = 0.3  # ... when the next exchange is this much more like it than like the current subject
YOUNG_STAY = 0.75  # ... and holds them at this share of STAY
DETAIL_WORDS = 15  # a turn this short may be a detail of the subject just raised
YOUNG = 2         # exchanges a new subject has before it must hold the talk on its own merits
RECENT = 4        # the current subject is judged by its last few exchanges: subjects drift
CROWDED = 48      # lines past which a vault topic must fit more clearly to grow (no catch-all topic)
UNSHARED = 0.05   # share of a long turn's weighted words the current subject said, under which the talk moved on
UNSHARED_LIKE = 0.3  # ... unless it is this alike in meaning
# How alike two exchanges of one conversation with an assistant are on average, by meaning (the
# bundled model; the mean over the labelled conversations, 0.13-0.25 apiece). An exchange more like
# everything in its slice than that (a generic turn) is judged against its own background instead:
# its likeness is lowered by how far its background lies above this (`_shifts`).
BACKGROUND = 0.18
BACKGROUND_PRIOR = 4  # exchanges' worth of weight BACKGROUND keeps in a short slice's estimate


@dataclass
class Subject:
    """Turns of one subject, in order."""

    turns: list[Turn] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)
    bag: Counter[str] = field(default_factory=Counter)
    existing: str = ""  # the vault topic (path) this subject continues
    name: str = ""  # ... and its name
    moved_to: bool = False  # the person moved the talk to it by a phrase of moving on
    lines: list[str] = field(default_factory=list)  # a vault topic's current lines
    # opened by a person's turn that counts the matters to come ("two matters to sort out this week"):
    # what follows may be any of them, not details of one
    counted: bool = False
    after: Counter[str] = field(default_factory=Counter)  # ... and the words said after that turn

    def said(self) -> tuple[list[np.ndarray], Counter[str]]:
        """Its exchanges' vectors and words, without an opening that counted the matters to come
        once others follow it: that opening is like all of them, and the next matter is no part of
        the first because the opening named both."""
        if not self.counted or len(self.vectors) < 2:
            return self.vectors, self.bag
        return self.vectors[1:], self.after


def _seeded(prior: PriorTopic) -> Subject:
    """An existing topic as a subject the slice may continue: its lines are what it is about."""
    bag: Counter[str] = Counter()
    for text in prior.texts:
        bag.update(_bag(text))
    return Subject([], list(prior.vectors), bag, prior.path, prior.name, lines=list(prior.texts))


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
    """What the model reads of each exchange: its first 1,200 characters, about as many word pieces
    as the bundled model takes (256)."""
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
    vectors = np.asarray(encode(_texts(groups)), dtype=np.float32)
    bags = [_bag(" ".join(t.content for t in g)) for g in groups]  # every word: only the model reads a text cut
    # where people chat among themselves, likeness is taken as it is: BACKGROUND was measured on
    # talk with an assistant, and STAY_SOCIAL on raw likeness
    shifts = [0.0] * len(vectors) if social else _shifts(vectors)
    df = Counter(w for bag in bags for w in set(bag))
    weight = {w: math.log(1 + len(bags) / n) for w, n in df.items()}
    near = nearest(list(prior), vectors)
    subjects: list[Subject] = [_seeded(p) for p in near]
    last = last_talked(near)
    current: int | None = near.index(last) if last is not None else None
    last_at = last.last_at if last is not None else None
    replied_to: Turn | None = None  # the last turn of the exchange before
    for i, (group, vec, bag, shift) in enumerate(zip(groups, vectors, bags, shifts, strict=True)):
        head = group[0]
        if current is not None and _closing(head):
            subjects[current].turns += group
            if trace is not None:
                trace.append(_why(head, subjects, [], current, current, {"closing": True}))
            continue
        differs = bool(DIFFERENT.search(head.content))  # never a topic the vault held before
        likeness = [0.0 if differs and s.existing else _likeness(vec, bag, s, weight, recent=(k == current)) - shift
                    for k, s in enumerate(subjects)]
        parsed = nlp.parse_one(head.content)
        # "the surgery went well": a turn that names one vault topic as a thing both know goes on with it
        named = [k for k, s in enumerate(subjects) if s.existing and s.name and refers_to(parsed, s.name)]
        if len(named) == 1 and not differs:
            likeness[named[0]] += NAMED
        answers = current is not None and _answers(head, replied_to) \
            and max(likeness) - likeness[current] < ANSWER_MOVES
        pause = bool(last_at and head.at and (head.at - last_at).total_seconds() > PAUSE_MINUTES * 60)
        switch = said_switch = bool(SWITCH.search(head.content))
        heads = heading_nouns(parsed)
        # a heading that names nothing the current subject has talked about moves the talk
        elsewhere = bool(heads) and current is not None and len(subjects[current].vectors) > YOUNG \
            and not heads & set(subjects[current].said()[1])
        added = added_nouns(parsed)  # "also my laptop is dying": so does a matter added beside it
        beside = bool(added) and current is not None and not added & set(subjects[current].said()[1])
        # measured on talk with an assistant; among people a subject drifts, and STAY_SOCIAL has it
        unlinked = current is not None and not social and not answers and likeness[current] < UNSHARED_LIKE \
            and not _asks(replied_to) and _unlinked(head, bag, subjects[current], weight)
        switch = switch or elsewhere or beside or unlinked
        opens = not answers and not switch and current is not None \
            and _opens(i, groups, vectors, bags, subjects[current], likeness[current], weight)
        # a subject just raised keeps its short details; a long turn far from it is no detail, and
        # one raised by a turn that counts the matters to come ("two matters this week") has none
        young = current is not None and len(subjects[current].vectors) <= YOUNG and not social \
            and len(said_words(head.content)) <= DETAIL_WORDS and not subjects[current].counted
        chosen = current if answers and not switch else \
            _choose(likeness, current, switch or opens, pause or bool(RETURN_CUE.search(head.content)), young,
                    STAY_SOCIAL if social else STAY)
        holder = _holder(group, subjects)  # "now the 19th instead of the 12th": where the 12th was said
        if holder is not None:
            chosen = holder
        if _DEBUG:
            print(f"{head.id:>5} cur={current} sw={switch:d} p={pause:d} -> {chosen} "
                  f"{[round(x, 2) for x in likeness]} {head.content[:60]!r}")
        if chosen is None:
            # the person said they move on ("speaking of", "other thing") from talk it was not already like
            subjects.append(Subject(moved_to=said_switch and (current is None or likeness[current] < JOIN),
                                    counted=head.role == "user" and previews(parsed)))
            chosen = len(subjects) - 1
        if trace is not None:
            trace.append(_why(head, subjects, likeness, current, chosen,
                              {"switch": switch, "heading": elsewhere, "beside": beside, "unlinked": unlinked,
                               "opens": opens, "pause": pause, "answers": bool(answers), "detail": young,
                               "old value": holder is not None, "named": len(named) == 1 and not differs},
                              shift))
        subject = subjects[chosen]
        if subject.counted and subject.vectors:
            subject.after.update(bag)
        subject.turns += group
        subject.vectors.append(vec)
        subject.bag.update(bag)
        current, last_at, replied_to = chosen, group[-1].at or last_at, group[-1]
    order = {id(turn): i for i, turn in enumerate(talk)}
    joined = [s for s in _join_alike([s for s in subjects if s.vectors], weight, order) if s.turns]
    return sorted(joined, key=lambda s: order.get(id(s.turns[0]), 0))


def _shifts(vectors: np.ndarray) -> list[float]:
    """How much each exchange's likeness is lowered: how far its background lies above the usual
    one, BACKGROUND, or above its slice's median where the whole slice is more alike than that.
    An exchange like everything in ordinary talk (a generic turn, a trade's words among other things) is lowered;
    in talk that is all alike (small talk, a speaker's name on every turn) the likeness everything
    shares is the register, not a subject, and only what stands above it is lowered."""
    backgrounds = _backgrounds(vectors)
    if not len(backgrounds):
        return []
    usual = max(BACKGROUND, float(np.median(backgrounds)))
    return [float(x) for x in np.maximum(backgrounds - usual, 0.0)]


def _backgrounds(vectors: np.ndarray) -> np.ndarray:
    """Each exchange's mean likeness by meaning to the other exchanges of the slice, drawn towards
    BACKGROUND when there are few of them to tell."""
    n = len(vectors)
    if n == 0:
        return np.zeros(0, dtype=np.float32)
    sims = vectors @ vectors.T
    others = sims.sum(axis=1) - np.diag(sims)
    return (others + BACKGROUND * BACKGROUND_PRIOR) / (n - 1 + BACKGROUND_PRIOR)


def _holder(group: list[Turn], subjects: list[Subject]) -> int | None:
    """The one subject that holds a value the exchange says was replaced ("14 June instead of 7
    June", in either voice): a change is a change of something already said. None when no subject,
    or more than one, said it. Only a date, a time or a number of three digits or more is evidence:
    a small count or a word may be said anywhere ("Grade 4 instead of Grade 3" misread as replacing
    "Grade")."""
    gone = [old for turn in group for old in replaced_in(turn.content)
            if any(c.isdigit() for c in old) and ((n := numeric(old)) is None or n >= 100)]
    if not gone:
        return None
    holders = [k for k, s in enumerate(subjects)
               if any(mentions(text, old) for old in gone for text in [*(t.content for t in s.turns), *s.lines])]
    return holders[0] if len(holders) == 1 else None


def _asks(turn: Turn | None) -> bool:
    """Whether the assistant's last turn ends on a question: the person's next turn answers it, on
    its subject, in whatever words (asked how the move went, a person lists what broke on the way)."""
    if turn is None or turn.role != "assistant":
        return False
    said = sentences(turn.content)
    return bool(said) and said[-1].rstrip().endswith("?")


def _unlinked(head: Turn, bag: Counter[str], current: Subject, weight: dict[str, float]) -> bool:
    """A turn longer than a detail (DETAIL_WORDS content words) whose exchange shares almost none of
    its words with the subject being talked about (under UNSHARED of their weight): the person moved
    on without saying so, as someone dictating or typing in one breath does (a sister's wedding
    plans right after the boiler repair). A turn that goes on with a subject names its things, its
    people or its places again, or is short."""
    return len(said_words(head.content)) > DETAIL_WORDS and _shared(bag, current, weight) < UNSHARED


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
         cues: dict[str, bool], lowered: float = 0.0) -> dict:
    """One line of `vault sleep --explain`: where an exchange went, its likeness to the closest
    subjects (a vault topic by name, one opened in this slice by its first turn), how much its
    background lowered that likeness, and the cues."""
    def label(k: int) -> str:
        s = subjects[k]
        return f"topic {s.name}" if s.existing else f"new subject at {s.turns[0].id if s.turns else head.id}"

    near = sorted(range(len(likeness)), key=lambda k: -likeness[k])[:3]
    return {"turn": head.id, "joined": label(chosen),
            "continued": chosen == current, "likeness": {label(k): round(float(likeness[k]), 3) for k in near},
            "cues": sorted(k for k, v in cues.items() if v), "lowered": round(float(lowered), 3)}


def _join_alike(subjects: list[Subject], weight: dict[str, float], order: dict[int, int]) -> list[Subject]:
    """Two subjects found apart that are about the same thing become one: a later one joins the
    earliest it is like enough (a pause the walk above could not bridge); a later one of a single
    exchange, mostly a remark the walk could not place, less so (measured on the labelled sets:
    RESULTS.md, twenty-sixth session). Two vault topics never join: a person keeps them apart."""
    out: list[Subject] = []
    for subject in subjects:
        if subject.existing:
            out.append(subject)
            continue
        vectors, said = subject.said()
        centroid = np.sum(vectors, axis=0)
        best, best_like = None, 0.0
        differs = any(DIFFERENT.search(t.content) for t in subject.turns[:2])
        for k, earlier in enumerate(out):
            if differs and earlier.existing:
                continue
            like = _likeness(centroid / (np.linalg.norm(centroid) or 1.0), said, earlier, weight, recent=False,
                             whole=True)
            if like > best_like:
                best, best_like = k, like
        bar = JOIN_MOVED if subject.moved_to else JOIN_ONE if len(subject.vectors) == 1 else JOIN
        if best is not None and best_like >= bar:
            out[best].turns += subject.turns
            out[best].vectors += subject.vectors
            out[best].bag.update(subject.bag)
            if out[best].counted:
                out[best].after.update(subject.bag)
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


def _likeness(vec: np.ndarray, bag: Counter[str], subject: Subject, weight: dict[str, float], recent: bool,
              whole: bool = False) -> float:
    """Meaning and shared uncommon words, 0..1: against the subject's last few exchanges when it is
    the current one (a subject drifts as it goes), against all of it otherwise. `whole`: with an
    opening that counted the matters to come (`Subject.said`), as subjects found apart are joined:
    that opening is often the first matter's own account."""
    vectors = subject.vectors if whole else subject.said()[0]
    vectors = vectors[-RECENT:] if recent else vectors
    centroid = np.sum(vectors, axis=0)
    norm = float(np.linalg.norm(centroid)) or 1.0
    cosine = max(0.0, float(vec @ centroid) / norm)
    # a vault topic past CROWDED lines must be a clearer fit to grow: its words cover any turn
    crowded = min(1.0, (CROWDED / len(subject.vectors)) ** 0.5) if subject.existing else 1.0
    return crowded * (0.65 * cosine + 0.35 * min(1.0, 2 * _shared(bag, subject, weight, whole)))


def _shared(bag: Counter[str], subject: Subject, weight: dict[str, float], whole: bool = False) -> float:
    """The share of an exchange's words, by weight, that the subject has said."""
    words, said = set(bag), subject.bag if whole else subject.said()[1]
    total = sum(weight.get(w, 0.0) for w in words) or 1.0
    return sum(weight.get(w, 0.0) for w in words if w in said) / total


def _bag(text: str) -> Counter[str]:
    """Stemmed content words and adjacent pairs of them: "office party" tells more than "party"."""
    words = [stem(w) for w in said_words(text)]
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
    if you_said(doc):
        return True
    end = reply_end(doc)
    return end is not None and len(said_words(turn.content[end:])) >= 2


def _closing(turn: Turn) -> bool:
    """"ok thanks", "bye for now", "great. off to bed", "will do", "that's it for now": belongs to
    whatever was being said, and starts nothing. A short turn with no figure and no question that opens
    on thanks, a farewell or an acknowledgement, a one-word evaluation, an auxiliary or "that's"."""
    if len(said_words(turn.content)) > 3 or not turn.content.strip() or "?" in turn.content:
        return False
    doc = nlp.parse_one(turn.content)
    words = [t for t in doc if not t.is_punct]
    if not words or any(t.like_num and any(ch.isdigit() for ch in t.text) for t in words):
        return False
    head, seg = words[0], first_segment(doc)
    evaluation = len(seg) == 1 and head.pos_ in ("ADJ", "ADV") and not ordinal(head) \
        and head.lower_ not in place.DIFFERENCE
    asks = len(words) > 1 and words[1].dep_.startswith("nsubj")  # "should i ...": an auxiliary before its subject
    return evaluation or head.lower_ in place.COURTESY or (head.pos_ == "AUX" and not asks) \
        or (head.tag_ == "DT" and head.head.lemma_ == "be")


STRAY = 0.25  # how close a one-line subject must be to another subject to join it
SAYS_WORDS = 2  # content words a line alone needs to be a topic of its own


def candidates(units: list[Unit], subjects: list[Subject], encode: Callable[[list[str]], np.ndarray]
               ) -> list[Candidate]:
    """One candidate per subject that has facts (a one-line subject joins the one it is close to,
    `_fold_strays`), with unit vectors and their normalised mean."""
    vectors = np.asarray(encode([u.text for u in units]), dtype=np.float32)
    for unit, vec in zip(units, vectors, strict=True):
        unit.vec = vec
    subject_of = {id(t): k for k, s in enumerate(subjects) for t in s.turns}
    grouped: dict[int, list[Unit]] = {}
    for unit in units:
        grouped.setdefault(subject_of.get(id(unit.turn), -1), []).append(unit)
    out = []
    for k, group in sorted(grouped.items()):
        cand = Candidate(group, vector=_mean(group), existing=subjects[k].existing if k >= 0 else "")
        cand.subject = k >= 0
        cand.distinct = k >= 0 and any(DIFFERENT.search(t.content) for t in subjects[k].turns[:2])
        out.append(cand)
    return _fold_strays(out, {id(u): i for i, u in enumerate(units)})


def _fold_strays(cands: list[Candidate], position: dict[int, int]) -> list[Candidate]:
    """A one-line subject is rarely a subject: a remark like "will check the disposal thing with both
    of them" joins the subject it is closest to, when it is close enough (STRAY); one like nothing
    else said ("I'm allergic to penicillin") stays a topic of its own, unless it says next to
    nothing ("Righto.", "Have a lovely Sunday!"): no topic is made of that, the archived conversation
    keeps it. A subject of one turn that only announces the matters to come is never a topic of its
    own: each of its lines joins the subject it is close to, or stays in the archived conversation."""
    keep = [c for c in cands if (len(c.units) > 1 and not _announces(c)) or c.distinct or c.existing]
    if not keep:
        return cands
    for cand in cands:
        if cand in keep:
            continue
        for unit in cand.units:
            sims = [float(unit.vec @ k.vector) if unit.vec is not None and k.vector is not None else 0.0
                    for k in keep]
            best = max(range(len(keep)), key=lambda i: sims[i])
            if sims[best] >= STRAY:
                keep[best].units.append(unit)
                keep[best].units.sort(key=lambda u: position[id(u)])
            elif len(cand.units) == 1 and _says_something(unit) and not _announces(cand):
                keep.append(cand)
    order = {id(c): i for i, c in enumerate(cands)}
    return sorted(keep, key=lambda c: order[id(c)])


def _announces(cand: Candidate) -> bool:
    """A subject of one turn that announces the matters to come ("Two things I need to sort out this
    week", "a couple of questions first"): it is about all of them and no topic of its own."""
    turns = {id(u.turn): u.turn for u in cand.units}
    return len(turns) == 1 and all(t.role == "user" and previews(nlp.parse_one(t.content)) for t in turns.values())


def _says_something(unit: Unit) -> bool:
    """Whether a line alone tells anything: two content words, a number, a date, an answer to a
    question or a mark (a decision, a correction, an open loop; an imperative is no mark: "have a
    lovely Sunday")."""
    return len(said_words(unit.body or unit.text)) >= SAYS_WORDS or bool(
        unit.numbers or unit.event_day or unit.asked_turn or unit.flags - {"request", "skip"})


def _mean(units: list[Unit]) -> np.ndarray:
    total = np.sum([u.vec for u in units if u.vec is not None], axis=0)
    return (total / (np.linalg.norm(total) or 1.0)).astype(np.float32)
