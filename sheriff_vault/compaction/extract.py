"""The offline extractor: a conversation slice becomes candidate topic updates, with no network.

Each informative sentence becomes a self-contained fact: it names its speaker, and relative time
("yesterday", "last year") is resolved against that turn's own timestamp and written out
("yesterday (7 May 2023)"). Facts are grouped into subjects by embedding similarity and
closeness in the conversation; each subject is a candidate for one topic. Decisions,
constraints, corrections, open questions, numbers with units and mid-task state are flagged.
"""
from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field

import numpy as np

from sheriff_vault import timewin
from sheriff_vault.index.docs import CONSTRAINT
from sheriff_vault.store.buffer import Turn
from sheriff_vault.store.packets import InProgress
from sheriff_vault.text import (
    FILLER,
    STOPWORDS,
    content_words,
    key_phrases,
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
PROGRESS = re.compile(r"\b(?:i'?ll now|i will now|next,? i(?:'ll| will)|next step|let me|i'?m (?:now )?(?:working on|"
                      r"implementing|writing|adding|fixing|running|starting|updating)|working on|in progress|"
                      r"continuing with|now (?:implementing|writing|adding|running|fixing))\b", _I)
DONE = re.compile(r"\b(?:all done|done now|it'?s done|finished|completed|all tests pass(?:ed)?|that'?s it|shipped|"
                  r"merged|resolved|fixed it|works now)\b", _I)
BLOCKED = re.compile(r"\b(?:blocked|waiting (?:for|on)|need (?:you|your) to|can'?t proceed|cannot proceed|"
                     r"need (?:your )?(?:permission|approval|access))\b", _I)
DEPENDS = re.compile(r"\b(?:depends on|dependent on|requires|blocked by|"
                     r"needs? (?:the |a )?([\w\- ]{3,40}?) first)\b", _I)
FUTURE = re.compile(r"\b(?:will|'ll|going to|gonna|plan(?:ning)? to|planning|next|tomorrow|soon|upcoming|"
                    r"can'?t wait|looking forward)\b", _I)
PAST = re.compile(r"\b(?:was|were|did|had|went|got|came|saw|made|took|been|ago|yesterday|last)\b", _I)
REQUEST = re.compile(r"^(?:please\b|can you\b|could you\b|let'?s\b|i want\b|i need\b|we need\b|implement\b|add\b|"
                     r"fix\b|write\b|build\b|make\b|create\b|refactor\b|update\b|change\b)", _I)
SECOND_PERSON = re.compile(r"\b(?:you|your|yours|you'?re|you'?ve)\b", _I)
LEAD_IN = re.compile(r"^(?:(?:hey|hi|hello|wow|whoa|yeah|yes|yep|yup|oh|ah|aw+|omg|ok|okay|sure|lol|haha|cool|great|"
                     r"awesome|nice|so|well|thanks|thank you|thanks so much|congrats|totally|absolutely|exactly)"
                     r"\b[,!.]*\s+)+", _I)
BACK_REFERENCE = re.compile(r"^(?:it|that|this|they|them|he|she|which|those|these)\b", _I)
NUMBER = re.compile(
    r"(?P<cur>[$€£])\s?(?P<cv>\d[\d,]*(?:\.\d+)?)\s?(?P<mult>k|m|bn|million|billion)?\b"
    r"|\b(?P<v>\d[\d,]*(?:\.\d+)?)\s?(?P<unit>%|percent|usd|eur|gbp|dollars?|euros?|pounds|ms|milliseconds?|"
    r"seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|kg|lbs?|km|miles?|gb|mb|kb|tb|gib|mib|"
    r"tokens?|users?|people|items?|rows?|requests?|rps|qps|cores?|kids?|children|times|pages?|files?|tests?)\b", _I)
_UNIT_NORMAL = {"$": "USD", "€": "EUR", "£": "GBP", "dollar": "USD", "dollars": "USD", "usd": "USD", "eur": "EUR",
                "euro": "EUR", "euros": "EUR", "gbp": "GBP", "pounds": "GBP", "percent": "%"}
_MULT = {"k": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
MAX_FACT_CHARS = 320


@dataclass
class NumberHit:
    key: str
    value: float | int
    unit: str
    at: dt.datetime
    source: str
    confidence: float
    turn: str


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

    @property
    def turn_ids(self) -> list[str]:
        """Every turn whose words this fact carries: its own, and the question it answers."""
        return [t for t in (self.asked_turn, self.turn.id) if t]


@dataclass
class Candidate:
    """A subject of the slice: what one topic would learn from it."""

    units: list[Unit]
    name: str = ""
    one_liner: str = ""
    aliases: list[str] = field(default_factory=list)
    entities: set[str] = field(default_factory=set)
    salience: float = 0.0
    vector: np.ndarray | None = None
    time_hint: dt.datetime | None = None
    owner: str = ""

    @property
    def corrected(self) -> bool:
        return any("correction" in u.flags for u in self.units)

    @property
    def constrained(self) -> bool:
        return any("constraint" in u.flags for u in self.units)

    @property
    def turn_ids(self) -> list[str]:
        return list(dict.fromkeys(u.turn.id for u in self.units))


@dataclass
class Extraction:
    candidates: list[Candidate]
    in_progress: InProgress
    skill_refs: list[str]
    subjects: list[dict] = field(default_factory=list)


def extract(turns: list[Turn], tail: list[Turn], encode: Callable[[list[str]], np.ndarray], tz: str = "UTC",
            known_skills: Sequence[str] = ()) -> Extraction:
    """Candidates for the compacted slice `turns`; `tail` only informs mid-task state and skill refs."""
    speakers = {t.speaker for t in turns if t.role in ("user", "assistant")}
    mid_names = {n for t in turns for n in proper_names(t.content)}
    units = _units(turns, tz, speakers | mid_names)
    candidates = _cluster(units, turns, encode) if units else []
    for cand in candidates:
        _describe(cand, speakers)
    total = sum(c.salience for c in candidates) or 1.0
    subjects = [{"hint": c.name, "salience": round(c.salience / total, 4), "units": len(c.units),
                 "turns": c.turn_ids[:12]} for c in sorted(candidates, key=lambda c: -c.salience)]
    return Extraction(candidates, in_progress(turns + tail, tz), skill_refs(turns + tail, known_skills), subjects)


# -- sentences to units -----------------------------------------------------------------------
FOLLOW_UP_CHARS = 260  # a sentence starting "It/That/They..." joins the one before, up to this size


def _units(turns: list[Turn], tz: str, known_names: set[str]) -> list[Unit]:
    """One unit per informative sentence (greetings, thanks and questions dropped); a sentence that
    only makes sense with the one before ("It's special to me.") stays with it."""
    units: list[Unit] = []
    previous: Turn | None = None
    others = {t.speaker for t in turns if t.name}
    ignore = _name_words(others)
    for turn in turns:
        if turn.role not in ("user", "assistant") or not turn.content.strip():
            previous = turn if turn.role in ("user", "assistant") else previous
            continue
        asked = _question_before(previous, turn)
        asked_id = previous.id if asked and previous is not None else ""
        other = next(iter(others - {turn.speaker}), "") if len(others) == 2 and turn.name else ""
        chunks: list[tuple[list[str], set[str]]] = []
        for i, raw in enumerate(sentences(turn.content)):
            sent = _trim(raw, ignore)
            flags = _flags(sent, turn, i, ignore) if sent else {"skip"}
            if "skip" in flags:
                continue
            alone = "loop" in flags
            last = chunks[-1] if chunks else None
            joins = last and BACK_REFERENCE.match(sent) and sum(map(len, last[0])) + len(sent) < FOLLOW_UP_CHARS
            if last is not None and joins and not alone and "loop" not in last[1]:
                last[0].append(sent)
                last[1].update(flags)
            else:
                chunks.append(([sent], set(flags)))
        turn_units = [Unit(turn, i, " ".join(sents), at=turn.at or timewin.utcnow(), flags=flags)
                      for i, (sents, flags) in enumerate(chunks)]
        for j, unit in enumerate(turn_units):
            _finish_unit(unit, tz, other, asked if j == 0 else None, known_names)
            if j == 0 and asked and ", asked \"" in unit.fact:
                unit.asked_turn = asked_id
        units += turn_units
        previous = turn
    return units


INTENSIFIERS = re.compile(r"\b(?:really|super|totally|actually|definitely|honestly|basically|literally|truly|"
                          r"pretty much|kind of|sort of|very|so(?= (?:\w+ful|\w+ing|\w+ive|\w+ous|happy|glad|proud|"
                          r"excited|grateful|thankful|lucky|great|good|cool|fun|nice|much|important|special|hard|tough|"
                          r"awesome|amazing)\b))\s+", _I)


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


def _name_words(names: set[str]) -> set[str]:
    """Speakers' names and the nicknames people type for them (Mel, Mell for Melanie)."""
    words_: set[str] = set()
    for name in names:
        for part in name.lower().split():
            words_ |= {part[:k] for k in range(max(3, len(part) // 2), len(part) + 1)} | {part[:3] + part[2]}
    return words_


def _question_before(previous: Turn | None, turn: Turn) -> str | None:
    if previous is None or previous.speaker == turn.speaker:
        return None
    sents = sentences(previous.content)
    return sents[-1] if sents and sents[-1].endswith("?") else None


def _flags(sent: str, turn: Turn, position: int, ignore: Container[str] = frozenset()) -> set[str]:
    flags: set[str] = set()
    words_ = [w for w in content_words(sent) if w not in ignore]
    is_question = sent.rstrip().endswith("?")
    if DECISION.search(sent):
        flags.add("decision")
    if CONSTRAINT.search(sent) and turn.role == "user":
        flags.add("constraint")
    if position == 0 and turn.role == "user" and CORRECTION.search(sent):
        flags.add("correction")
    if LOOP.search(sent):
        flags.add("loop")
    if PROGRESS.search(sent):
        flags.add("progress")
    if DONE.search(sent):
        flags.add("done")
    if BLOCKED.search(sent):
        flags.add("blocked")
    if NUMBER.search(sent):
        flags.add("number")
    if turn.role == "user" and REQUEST.search(sent):
        flags.add("request")
    marked = flags - {"request"}
    if is_question and "loop" not in flags:
        flags.add("skip")
    elif not words_:
        flags.add("skip")
    elif not marked and not _informative(sent, words_, ignore):
        flags.add("skip")
    elif turn.role == "assistant" and turn.name == "" and not marked:
        flags.add("skip")
    return flags


def _informative(sent: str, words_: list[str], ignore: Container[str] = frozenset()) -> bool:
    """A sentence made only of everyday words ("It's all worth it in the end") tells memory nothing;
    one with an uncommon word, a name, a number or a time does."""
    names = [n for n in proper_names(sent) if n.lower() not in ignore]
    if re.search(r"\d", sent) or names or len(set(words_)) >= 3:
        return True
    return any(rarity(w) >= 1.0 for w in words_)


def _finish_unit(unit: Unit, tz: str, other: str, asked: str | None, known_names: set[str]) -> None:
    turn = unit.turn
    annotated_parts = []
    for sent in sentences(unit.text) or [unit.text]:
        prefer = "future" if FUTURE.search(sent) else "past" if PAST.search(sent) else "nearest"
        annotated, shift = sent, 0
        for w in timewin.find_all(sent, unit.at, tz, prefer=prefer):
            label = w.label(tz)
            if w.granularity in ("range", "instant") or \
                    label.replace(",", "").lower() in w.phrase.replace(",", "").lower():
                continue
            at = w.span[1] + shift
            annotated = f"{annotated[:at]} ({label}){annotated[at:]}"
            shift += len(label) + 3
            if w.start and unit.time_hint is None:
                unit.time_hint = w.start
            if (w.granularity == "day" and w.start and w.end and w.end <= unit.at + dt.timedelta(days=1)
                    and prefer == "past"):
                unit.event_day = unit.event_day or w.start
        annotated_parts.append(annotated)
    sent = unit.text
    annotated = " ".join(annotated_parts)
    speaker = turn.speaker
    if other and SECOND_PERSON.search(sent):
        speaker = f"{speaker} (to {other})"
    if asked and len(sent) < 100:
        speaker = f'{speaker}, asked "{truncate(LEAD_IN.sub("", asked), 70)}"'
    unit.body = annotated
    unit.fact = truncate(f"{speaker}: {annotated}", MAX_FACT_CHARS)
    unit.names = proper_names(sent, skip=[turn.speaker], known=known_names)
    for m in DEPENDS.finditer(sent):
        target = m.group(1) or sent[m.end() : m.end() + 40]
        words_ = [w for w in content_words(target)][:3]
        if words_:
            unit.depends.append(" ".join(words_))
    unit.numbers = _numbers(sent, unit)


def _numbers(sent: str, unit: Unit) -> list[NumberHit]:
    found = []
    for m in NUMBER.finditer(sent):
        raw = m.group("cv") or m.group("v")
        try:
            value: float | int = float(raw.replace(",", ""))
        except ValueError:
            continue
        if m.group("mult"):
            value *= _MULT[m.group("mult").lower()]
        value = int(value) if float(value).is_integer() else value
        unit_name = m.group("cur") or m.group("unit") or ""
        unit_name = _UNIT_NORMAL.get(unit_name.lower(), _UNIT_NORMAL.get(unit_name, unit_name.lower()))
        before = [w for w in content_words(sent[: m.start()]) if not w.isdigit()][-2:]
        after = [w for w in content_words(sent[m.end() : m.end() + 40])][:2]
        key = "_".join(before or after or ["value"])[:40]
        source = unit.turn.role if not unit.turn.name else unit.turn.name
        found.append(NumberHit(key, value, unit_name, unit.at, source, 0.8 if unit.turn.role == "user" else 0.6,
                               unit.turn.id))
    return found


# -- units to subjects ------------------------------------------------------------------------
SEGMENT_BREAK = 0.12  # similarity of the turns before and after, under which the subject surely changed
SEGMENT_MERGE = 0.55  # two segments this alike are one subject come back to ("back to the party")
SWITCH = re.compile(r"^\W*(?:(?:hey|hi|ok|okay|so|oh|and)\b[,!.]?\s+)?(?:anyway|anyhow|separately|new thing|new topic|"
                    r"on another note|switching gears|unrelated|by the way|btw|changing (?:the )?(?:topic|subject)|"
                    r"moving on|back to|also,)\b", _I)


def _cluster(units: list[Unit], turns: list[Turn], encode: Callable[[list[str]], np.ndarray]) -> list[Candidate]:
    """Subjects as a conversation has them: consecutive turns (all of them, questions and replies
    included) stay on one subject until the talk moves on: a switch phrase, or the turns before and
    after stop sharing meaning and words. Segments about the same thing are then joined ("back to
    the party"), and each unit goes to the subject of its turn."""
    talk = [t for t in turns if t.role in ("user", "assistant") and t.content.strip()]
    vecs = encode([u.text for u in units] + [t.content[:600] for t in talk])
    for unit, vec in zip(units, vecs, strict=False):  # vecs goes on with the turns' vectors
        unit.vec = vec
    turn_vecs = vecs[len(units):]
    bags = [{stem(w) for w in content_words(t.content)} for t in talk]
    df = Counter(w for bag in bags for w in bag)
    weight = {w: math.log(1 + len(bags) / n) for w, n in df.items()}

    def alike(a: list[int], b: list[int]) -> float:
        cos = float(_norm_vec(turn_vecs[a].sum(axis=0)) @ _norm_vec(turn_vecs[b].sum(axis=0)))
        a_bag, b_bag = set().union(*(bags[i] for i in a)), set().union(*(bags[i] for i in b))
        union = sum(weight[w] for w in a_bag | b_bag) or 1.0
        return max(cos, sum(weight[w] for w in a_bag & b_bag) / union)

    gaps = [alike(list(range(max(0, j - 2), j)), list(range(j, min(len(talk), j + 2)))) for j in range(1, len(talk))]
    cuts = _valleys(gaps)
    segments: list[list[int]] = [[0]] if talk else []
    for j in range(1, len(talk)):
        if j in cuts or SWITCH.search(talk[j].content) is not None:
            segments.append([j])
        else:
            segments[-1].append(j)
    merged: list[list[int]] = []
    for seg in segments:
        scores = [alike(m, seg) for m in merged]
        best = max(range(len(merged)), key=lambda i: scores[i], default=None)
        if best is not None and scores[best] >= SEGMENT_MERGE:
            merged[best].extend(seg)
        else:
            merged.append(list(seg))
    subject_of = {id(talk[i]): n for n, seg in enumerate(merged) for i in seg}
    grouped: dict[int, list[Unit]] = {}
    for unit in units:
        grouped.setdefault(subject_of.get(id(unit.turn), -1), []).append(unit)
    return [Candidate(us, vector=_unit_mean(us).astype(np.float32)) for _, us in sorted(grouped.items())]


def _valleys(gaps: list[float]) -> set[int]:
    """Cut where the similarity across a boundary is a local dip well under this conversation's own
    norm (mean - std: casual chat and technical work differ), or under SEGMENT_BREAK outright.
    gaps[i] is the similarity across the boundary before turn i + 1."""
    if not gaps:
        return set()
    mean = sum(gaps) / len(gaps)
    std = (sum((g - mean) ** 2 for g in gaps) / len(gaps)) ** 0.5
    out = set()
    for i, g in enumerate(gaps):
        dip = (i == 0 or gaps[i - 1] > g) and (i == len(gaps) - 1 or gaps[i + 1] > g)
        if g < SEGMENT_BREAK or (dip and len(gaps) >= 4 and g < mean - std):
            out.add(i + 1)
    return out


def _unit_mean(units: list[Unit]) -> np.ndarray:
    vecs = [u.vec for u in units if u.vec is not None]  # _cluster gave every unit its vector
    return _norm_vec(sum(vecs[1:], vecs[0]))


def _norm_vec(v: np.ndarray) -> np.ndarray:
    return v / (np.linalg.norm(v) or 1.0)


def _describe(cand: Candidate, speakers: set[str]) -> None:
    """Name the subject by its most telling phrase; aliases only where specific enough to match on."""
    texts = [u.text for u in cand.units]
    name_words = _name_words(speakers)
    names = Counter(n for u in cand.units for n in u.names
                    if n not in speakers and not set(n.lower().split()) & name_words)
    phrases_ = key_phrases(texts, ignore=name_words, k=4)
    main = phrases_[0] if phrases_ else (names.most_common(1)[0][0] if names else "")
    if not main:
        main = " ".join(content_words(texts[0])[:3]) or "conversation"
    who = Counter(u.turn.speaker for u in cand.units if u.turn.name)
    owner = who.most_common(1)[0][0] if who and who.most_common(1)[0][1] >= 0.6 * len(cand.units) else ""
    title = main if main[:1].isupper() else main[:1].upper() + main[1:]
    cand.owner = owner
    cand.name = truncate(f"{owner}: {title}" if owner else title, 80)
    central = cand.units[0]
    if cand.vector is not None and len(cand.units) > 1:
        central = max(cand.units, key=lambda u: float(u.vec @ cand.vector) if u.vec is not None else -1.0)
    cand.one_liner = truncate(f"{central.turn.speaker}: {central.body}", 120)
    specific = [p for p in phrases_ if " " in p or rarity(p) >= 1.0]
    aliases = specific[:3] + [n for n, _ in names.most_common(3)]
    cand.aliases = list(dict.fromkeys(a for a in aliases if a.lower() != title.lower() and len(a) > 2))[:4]
    cand.entities = {n.lower() for n in names} | set(phrases_[:3])
    flags = sum(len(u.flags - {"number"}) for u in cand.units)
    cand.salience = len(cand.units) * (1 + 0.25 * flags / max(len(cand.units), 1))
    hints = [u.time_hint for u in cand.units if u.time_hint]
    cand.time_hint = hints[0] if hints else None


# -- mid-task state and skills ----------------------------------------------------------------
def in_progress(turns: list[Turn], tz: str) -> InProgress:
    """idle | running | blocked from the last turns, with a resume hint naming the goal and next step."""
    talk = [t for t in turns if t.role in ("user", "assistant") and t.content.strip()]
    if not talk:
        return InProgress()
    goal = ""
    for t in reversed(talk):
        if t.role == "user":
            asks = [s for s in sentences(t.content) if REQUEST.search(s) or s.endswith("?")]
            if asks:
                goal = asks[-1]
                break
    last_assistant = next((t for t in reversed(talk) if t.role == "assistant"), None)
    status, step = "idle", ""
    if last_assistant is not None:
        sents = sentences(last_assistant.content)
        blocked = [s for s in sents if BLOCKED.search(s)]
        progress = [s for s in sents if PROGRESS.search(s)]
        finished = any(DONE.search(s) for s in sents[-2:]) and not progress[-1:] == sents[-1:]
        if blocked:
            status, step = "blocked", blocked[-1]
        elif progress and not finished:
            status, step = "running", progress[-1]
    if status == "idle":
        return InProgress("idle", f"Last request: {goal}" if goal else "")
    step = re.sub(r"^(?:next step|next|then)\s*[:,-]\s*", "", step, flags=re.I)
    hint = " ".join(p for p in (f"Goal: {goal}" if goal else "", f"Next step: {step}") if p)
    return InProgress(status, truncate(hint, 400))


_SKILL_REF = re.compile(r"\bskill[:/]([a-z][\w\-]*)", _I)


def skill_refs(turns: list[Turn], known: Sequence[str] = ()) -> list[str]:
    """skill:<id> mentions, skills named in tool calls, and known skill ids that come up, newest first."""
    found: list[str] = []
    known_set = {k.lower() for k in known}
    for t in reversed(turns):
        refs = [m.group(1) for m in _SKILL_REF.finditer(t.content)]
        if t.role == "tool" and t.meta.get("skill_id"):
            refs.append(str(t.meta["skill_id"]))
        low = t.content.lower()
        refs += [k for k in known_set if re.search(rf"\b{re.escape(k)}\b", low)]
        for r in refs:
            ref = f"skill:{r.lower()}"
            if ref not in found:
                found.append(ref)
    return found[:5]


def is_filler(text: str) -> bool:
    """True for sentences that carry feeling but no information (greetings, thanks, wow)."""
    return not [w for w in content_words(text) if w not in FILLER and w not in STOPWORDS]
