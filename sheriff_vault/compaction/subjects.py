"""A conversation's subjects: which turns talk about the same thing, even when it pauses and comes back.

The talk is cut into exchanges (a person's turn and the replies to it; a question and its answer).
Each exchange joins the subject being talked about, unless it clearly belongs to another one
already seen ("back to the speech"), or to none seen yet; a switch phrase ("other thing", "on
another note") or a long pause weighs toward a change, a short follow-up ("rent goes up to
1,340") stays where it is, and an exchange unlike the subject that the next exchange takes up
opens a new one unannounced. Likeness is meaning (sentence embeddings) and shared uncommon words.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from sheriff_vault.compaction.prior import PriorTopic, last_talked, nearest
from sheriff_vault.store.buffer import Turn
from sheriff_vault.text import content_words, stem

_I = re.IGNORECASE
SWITCH = re.compile(
    r"^\W*(?:(?:ok|okay|so|oh|and|also|right|anyway)\b[,!.]?\s+)?"
    r"(?:(?:an)?other (?:thing|topic|subject|matter)|one more thing|separate(?:ly| thing| topic| question)?|"
    r"(?:a |something )?(?:totally |completely )?different (?:thing|topic|subject|question|matter)|"
    r"new (?:thing|topic)|unrelated|on another note|switching (?:gears|topics?|subjects?)|"
    r"changing (?:the )?(?:topic|subject)|"
    r"moving on|also[,:]|btw|by the way|oh and|quick (?:one|question)|random(?:ly)?)\b|"
    r"\b(?:totally|completely|entirely) (?:different|separate|unrelated) (?:thing|topic|matter|event|story)\b|"
    # a list the person walks through: "Second thing:", "Third, and this is the big one:", "ok second:"
    r"(?:^|[.!?]\s+)\W*(?:(?:ok|okay|so|and|right|now|then)\b[,!.]?\s+){0,2}"
    r"(?:second|third|fourth|fifth|next|last|final)(?:ly)?(?:\s+(?:thing|point|item|one|question|topic|issue))?"
    r"\s*[,:;!-]|"
    # "And chess: I'm tournament director...", "Also my tooth:": a turn that opens on a heading
    r"^\W*(?:and|also|plus|oh and)\s+(?:my\s+|the\s+|our\s+)?"
    r"(?!(?:then|so|yes|no|now|that|this|it|thanks|ok|okay)\b|that's|it's)"
    r"[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?\s*(?::(?!\S)|\.(?=\s+\S+\s+\S+\s+\S))|"
    # "Number two: choir.", "Ok so number one, we're buying a campervan", "#3:"
    r"(?:^|[.!?]\s+)\W*(?:(?:ok|okay|so|and|right|now|then)\b[,!.]?\s+){0,2}"
    r"(?:number|no\.|item|point|#)\s?(?:one|two|three|four|five|six|[1-9])\s*[,:;!.-]|"
    r"(?:^|[.!?]\s+)\W*(?:(?:ok|okay|so|and|right|anyway)\b[,!.]?\s+)?"
    r"(?:(?:an)?other (?:thing|topic|subject|matter)|one more thing|separate(?:ly)? thing|unrelated|on another note)\b|"
    # "And the third thing is the bathroom."
    r"(?:^|[.!?]\s+)\W*(?:(?:and|so|ok|okay|now)\s+)?the\s+(?:second|third|fourth|fifth|next|last|other)\s+"
    r"(?:thing|point|item|topic|question)\s+(?:is|was)\b|"
    # "The reunion itself is the second thing."
    r"\b(?:is|was)\s+(?:the|my)\s+(?:second|third|fourth|fifth|next|last|other)\s+(?:thing|point|item|topic)\b|"
    # "and the fun one: I'm getting bees", "First the boring one:"
    r"(?:^|[.!?]\s+)\W*(?:(?:and|so|ok|okay|now|first|then)\s+)?the\s+(?:[a-z]+\s+){1,2}one\s*:", _I)
# "a different party", "nothing to do with": the person says this is not the thing talked about before
DIFFERENT = re.compile(r"\b(?:(?:a |something )?(?:totally |completely |entirely )?(?:different|separate|unrelated|"
                       r"another) (?:thing|one|matter|event|party|topic|story|crowd|group|people)|"
                       r"not the same (?:thing|one)|nothing to do with)\b", _I)
RETURN_CUE = re.compile(r"\b(?:back to|about the|re:|update on|(?:\w+ )?update[:.!]|news on|on the \w+ front)", _I)
CLOSING = re.compile(r"^\W*(?:ok(?:ay)?|thanks?(?: you| a lot| so much)?|cheers|bye|good ?night|alright|"
                     r"speak soon|talk (?:soon|later)|take care|that'?s (?:it|all)(?: for now)?|will do|sounds good|"
                     r"perfect|great|cool|nice|got it|see you)\b", _I)
# "yes that's the plan", "ugh yes that'll bite us", "good idea": a person answering what the assistant
# just said stays on its subject, however few words the answer shares with it.
REPLY = re.compile(r"^\W*(?:(?:ugh|oh|ah|hm+|haha|lol)\W+)?(?:yes|yeah|yep|yup|no|nope|exactly|true|correct|"
                   r"agreed|makes sense|good (?:idea|point|call)|fair (?:enough|point)|ouch)\b"
                   r"(?!\s+(?:thing|one)\b)", _I)
# "bill was 522 EUR in the end. cheaper than you said": what the assistant just said, referred to
YOU_SAID = re.compile(r"\b(?:(?:than|as|like|what) you (?:said|suggested|mentioned|thought|estimated|guessed)|"
                      r"you were right|(?:good|great) (?:tip|suggestion|advice))\b", _I)
# "Shall we switch to the refactor?" - "Yes. For the refactor we decided...": that answer moves on.
MOVE_ON = re.compile(r"\b(?:switch(?:ing)? to|move on|moving on|turn to|go on to|next (?:thing|topic|one)|what else)\b",
                     _I)
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
        switch = bool(SWITCH.search(head.content))
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
            subjects.append(Subject())
            chosen = len(subjects) - 1
        if trace is not None:
            trace.append(_why(head, subjects, likeness, current, chosen,
                              {"switch": switch, "opens": opens, "pause": pause, "answers": bool(answers),
                               "detail": young}))
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
        if best is not None and best_like >= JOIN:
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
    plan, writing it in R") or refers to what it said ("cheaper than you said"); a bare "sure" does
    not, and goes where its exchange's meaning goes, nor does a "yes" to "shall we switch to the
    refactor?"."""
    if replied_to is None or replied_to.role != "assistant" or len(turn.content) > 200 \
            or MOVE_ON.search(replied_to.content) or SWITCH.search(replied_to.content):
        return False
    if YOU_SAID.search(turn.content):
        return True
    m = REPLY.match(turn.content)
    return m is not None and len(content_words(turn.content[m.end():])) >= 2


def _closing(turn: Turn) -> bool:
    """"ok thanks", "bye for now": belongs to whatever was being said, and starts nothing."""
    return len(content_words(turn.content)) <= 3 and bool(CLOSING.search(turn.content))
