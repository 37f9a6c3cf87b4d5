"""Was a task in progress when the conversation stopped? Read from the last stretch of talk, in
either voice: "we're in the middle of repainting the hall" (the person), "I'm halfway through the
deploy workflow; I'll continue next" (the assistant). Finished work ("all done", "merged",
"nothing more to do") closes what it names, or everything when it says so. The wake packet keeps
the answer, so the agent resumes the right thing.

The reading is grammar from the parse (sheriff_vault/nlp.py), not phrases: work under way is a
progressive verb whose subject is the speaker ("we're migrating", or with the subject left out,
"fixing the tests now"); a next step is the speaker's future of a verb of continuing ("I'll pick it
up tomorrow", or the present with a day to come: "I finish it Thursday"); finished work is a
completion verb in the perfect, the past or as a predicate participle ("the draft is done", "I've
sent it"), and the same verb negated or still to come ("not sent yet", "still has to be done") is
work left open; parts said finished and the speaker's own future of a next part, in one turn
("books and toys sorted, we'll do the winter clothes after dinner") or in the speaker's next turn
when the part is of work they named before, is work paused between its steps; a wait on the
listener ("I need your approval") is blocked. The English no parse gives (idioms such as "halfway
through", the verbs of completing and continuing) is the table in english/progress.py. The skills
the talk names (`skill_refs`) are read here too, for the wake packet.
"""
from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sheriff_vault import nlp
from sheriff_vault.compaction.english.progress import (
    BEGIN,
    COMPLETE,
    CONTINUE,
    IN_PROGRESS,
    MIDWAY,
    NEED,
    NOTHING_LEFT,
    NOW,
    PART_DONE,
    REMAINDER,
    STILL_AHEAD,
    WAIT,
    WHOLE,
)
from sheriff_vault.quantities import duration
from sheriff_vault.store.buffer import Turn
from sheriff_vault.store.packets import InProgress
from sheriff_vault.text import CALENDAR, truncate

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

SESSION_GAP_HOURS = 3
WINDOW = 12  # turns at most: older talk is the slept past, not the task at hand
HINT = 400  # characters of resume hint the wake packet keeps
LINES, LINE_CHARS = 3, 40  # a message of this many lines, most shorter than this, is typed as lines
_SUBJECT = ("nsubj", "nsubjpass")
_KEPT_POS = ("NOUN", "PROPN", "NUM", "ADJ", "VERB")
_DAYS_AHEAD = frozenset(d.lower() for d in calendar.day_name) | {"tomorrow", "tonight"}


@dataclass
class Reading:
    """What one sentence says about work: under way, planned next, finished (everything, or what it
    names), left open, waiting on the listener, or asked of the listener."""

    doing: bool = False
    plan: bool = False
    done: bool = False
    everything: bool = False
    pending: bool = False
    blocked: bool = False
    request: bool = False
    ahead: bool = False  # a next step: the speaker's future, or "next"
    next_part: bool = False  # the speaker's own future of doing something ("we'll do the hall next")
    part: set[str] = field(default_factory=set)  # ... the nouns naming it ("the hall", not "it" or "you")

    @property
    def opens(self) -> bool:
        return self.doing or self.plan or self.pending


@dataclass
class _Task:
    """One sentence that leaves work open, with the rest of its turn (what the speaker said after it)."""

    turn: Turn
    text: str
    rest: list[tuple[str, bool]] = field(default_factory=list)  # later sentences, and whether each looks ahead
    before: list[str] = field(default_factory=list)  # the turn's sentences before it
    words: set[str] = field(default_factory=set)
    blocked: bool = False
    doing: bool = False
    names: bool = True  # it names its work ("the guest list"), not only a pronoun ("working on it")
    context: set[str] = field(default_factory=set)  # the words of its sentence and of the rest of its turn


def in_progress(turns: list[Turn]) -> InProgress:
    """idle, running or blocked, with a resume hint naming the unfinished step and its context."""
    talk = [t for t in turns if t.role in ("user", "assistant") and t.content.strip()]
    if not talk:
        return InProgress()
    recent = _last_stretch(talk)
    tasks = _open_tasks(recent)
    if not tasks:
        return _left_unfinished(talk, recent)
    task = tasks[-1]
    # "I'm halfway through porting the cache. Next step is eviction. Then I'll load-test it": the work
    # under way leads, and what the turn says after it is its plan, not where it stopped
    same = [t for t in tasks if t.turn is task.turn]
    task = next((t for t in same if t.doing), same[0])
    earlier = [t for t in tasks if t.turn is not task.turn]
    # "working on it" names nothing: what it continues does; another task named before is the goal
    # only when it is about the same thing (not an aside on another branch in the middle of the work)
    if not task.names and earlier:
        goal = _said(earlier[-1])
    else:
        goal = _goal(recent, task) or next((_said(t) for t in earlier if t.context & task.context), "")
    goal = f"Goal: {truncate(goal, HINT // 2)} " if goal and goal != task.text else ""
    said = _said(task)
    # the turn's opening often names what the work is ("ok, invoices now."): kept while there is room
    for text in reversed(task.before):
        if len(goal) + len(said) + len(text) + 40 > HINT:
            break
        said = f"{text} {said}"
    hint = f"{goal}Where it stopped ({task.turn.speaker}): {said}"
    return InProgress("blocked" if task.blocked else "running", truncate(hint, HINT))


def _said(task: _Task) -> str:
    """The task's sentence and the rest of its turn, the first step that looks ahead marked "Next:",
    unless it says so itself ("Next step: write the tests")."""
    parts = [task.text]
    marked = not task.doing
    for text, ahead in task.rest:
        said_next = text.lower().startswith("next")
        parts.append(f"Next: {text}" if ahead and not marked and not said_next else text)
        marked = marked or ahead
    return " ".join(parts)


def read(sent: Span) -> Reading:
    """The progress a sentence reports, from its verbs' tense, aspect, mood, subject and objects."""
    r = Reading(doing=bool(IN_PROGRESS.search(sent.text)) or _resumes(sent)
                or any(_speakers(sent, m.start()) for m in MIDWAY.finditer(sent.text)))
    asked = sent[-1].text == "?"  # a question asks about work, it does not report it
    now = any(t.lower_ in NOW for t in sent)
    # "nothing more to do" closes every task; "thinks of nothing else" is about something else
    r.everything = any(_left(sent, m.start()) for m in NOTHING_LEFT.finditer(sent.text))
    r.done = r.everything
    for tok in sent:
        if tok.lemma_.lower() == "next" and not any(c.dep_ == "prep" for c in tok.children):
            r.ahead = True
        if tok.pos_ not in ("VERB", "AUX", "ADJ"):
            continue
        subj = _subject(tok)
        person = _person(subj)
        r.request = r.request or _request(tok, subj)
        if asked:
            continue
        irrealis = _irrealis(tok)
        if _under_way(tok, subj):
            r.doing = True
        if person in ("1", None) and _future(tok) and tok.pos_ == "VERB":
            r.ahead = True
            r.plan = r.plan or (person == "1" and bool(_phrases(tok) & CONTINUE.words))
            objects = [c for c in tok.children if c.dep_ == "dobj"] if person == "1" else []
            r.next_part = r.next_part or bool(objects)
            r.part |= {c.lemma_.lower() for c in objects if c.pos_ in ("NOUN", "PROPN")}
        if _still_to_do(tok) or _remaining(tok):
            r.pending = True
        elif (tok.lemma_ in COMPLETE or tok.lower_ in COMPLETE) and not _modal_perfect(tok):
            # still to do: "not sent yet", "still has to be done"; not "the shop hadn't sent it yet" (then,
            # not now) nor "I need to book it" (a wish, not work begun)
            if nlp.negated(tok) and not _past_perfect(tok) and not _for_a_span(tok) or irrealis and now:
                r.pending = True
            elif tok.tag_ in ("VBN", "VBD", "JJ") and not (irrealis or nlp.negated(tok) or _conditional(tok)):
                r.done = True
                r.everything = r.everything or _universal(tok)
        if tok.lemma_ in CONTINUE and nlp.negated(tok) and "can" in _aux(tok):
            r.blocked = True
        if tok.lemma_ in WAIT or tok.lemma_ in NEED:
            if _to_listener(tok) and person in ("1", None):
                r.blocked = True
            elif tok.lemma_ in WAIT and _reported(tok) and person in ("1", "3"):
                r.pending = True  # "the change waits for the evening slot": work ready, not yet done
    return r


def _still_to_do(tok: Token) -> bool:
    """Work the sentence reports expected and not done: a participle done in part ("chapter two is half
    written"), a 'to' infinitive with "still" or "yet" on it or on its "be" ("still to do: the last
    six lines", "the report is yet to be written"), or a negated passive with either ("the talks aren't
    chosen yet"). Not "I still want to go" (a wish) nor "it hasn't rained yet" (no work)."""
    kids = list(tok.children)
    if tok.tag_ == "VBN" and any(c.dep_ == "advmod" and c.lower_ in PART_DONE for c in kids):
        return True
    if any(c.dep_ == "aux" and c.tag_ == "TO" for c in kids):
        marked = kids + (list(tok.head.children) if tok.head.lemma_ == "be" and tok.dep_ == "xcomp" else [])
        return any(c.dep_ == "advmod" and c.lower_ in STILL_AHEAD for c in marked)
    return tok.tag_ == "VBN" and nlp.negated(tok) and any(c.dep_ == "auxpass" for c in kids) and any(
        c.dep_ == "advmod" and c.lower_ in STILL_AHEAD for c in kids)


def _resumes(sent: Span) -> bool:
    """A verbless "back to X": the speaker goes back to the work now ("right, back to the draft", "ok
    back to writing"). Not a clause ("everything's back to normal"), a thing that goes back ("kids
    back to school"), a plan for later ("back to work tomorrow") nor a question."""
    if sent[-1].text == "?" or any("Fin" in t.morph.get("VerbForm", []) for t in sent):
        return False
    for tok in sent:
        if tok.lower_ != "back" or tok.pos_ != "ADV":
            continue
        if tok.head.i < tok.i and tok.head.pos_ not in ("INTJ", "ADV"):
            continue  # the noun before it is what goes back
        # what it governs up to a comma: a piece after one ("..., page 12 next") is a phrase of its own
        stop = next((t.i for t in sent if t.i > tok.i and t.is_punct), sent.end)
        kids = [c for c in tok.children if not c.is_punct and c.i < stop]
        if kids and all(c.dep_ == "prep" and c.lower_ == "to" for c in kids):
            return True
    return False


def _for_a_span(tok: Token) -> bool:
    """A negated perfect over a span of time ("hasn't called in months", "not done for weeks") says
    how long something has not happened, not that work is left open."""
    return any(c.dep_ == "prep" and any(o.dep_ == "pobj" and duration(o.lower_) for o in c.children)
               for c in tok.children)


def _left(sent: Span, at: int) -> bool:
    tok = sent.char_span(at, at + 1, alignment_mode="expand")
    return tok is not None and tok[0].dep_ != "pobj"


def _speakers(sent: Span, at: int) -> bool:
    """The idiom at character `at` is said of the speaker ("I'm halfway through it", "halfway through
    it now"), not of a thing ("the house in the middle of the village")."""
    tok = sent.char_span(at, at + 1, alignment_mode="expand")
    if tok is None:
        return False
    if tok[0].i == sent.start or all(not t.is_alpha or t.pos_ == "INTJ" for t in sent[: tok[0].i - sent.start]):
        return True  # "Halfway through the report now, ...": a sentence that opens on it leaves out "I'm"
    head = tok[0]
    while head.pos_ not in ("VERB", "AUX") and head.dep_ != "ROOT":
        head = head.head
    return _person(_subject(head)) in ("1", None)


def _under_way(tok: Token, subj: Token | None) -> bool:
    """A progressive of the speaker about something ("we're migrating the cluster now"; "fixing the
    tests now" with the subject left out), said of this moment or of beginning or going on with
    work ("carrying on with the next chapter"): not the futurate "I'm flying out on Monday", nor "I'm going to"."""
    if tok.tag_ != "VBG" or tok.dep_ in ("amod", "compound", "pcomp", "pobj") or _going_to(tok):
        return False
    own = any(c.dep_ in _SUBJECT and c.pos_ != "PUNCT" for c in tok.children)
    if "be" not in _aux(tok) and (own or tok.dep_ not in ("ROOT", "advcl", "conj")):
        return False
    if _person(subj) not in ("1", None):
        return False
    objects = [c for c in tok.children if c.dep_ in ("dobj", "ccomp", "xcomp")]
    objects += [g for c in tok.children if c.dep_ == "prep" for g in c.children if g.dep_ in ("pobj", "pcomp")]
    if not objects:
        return False
    # "we're getting a new boiler" is news (or a plan), "fitting the boiler now" is work at hand
    return bool(_phrases(tok) & (CONTINUE.words | BEGIN.words)) or any(t.lower_ in NOW for t in tok.sent)


def _request(tok: Token, subj: Token | None) -> bool:
    """An imperative (a base-form root with no subject) or a modal question to "you", about a thing
    it names ("draft the letter", "could you check the invoice?"; not "go ahead")."""
    first = next((t for t in tok.sent if t.pos_ not in ("INTJ", "PUNCT", "SPACE")), tok)
    imperative = tok.tag_ == "VB" and subj is None and not _aux(tok) and (tok.dep_ == "ROOT" or first.i == tok.i)
    to_you = subj is not None and _person(subj) == "2" and any(c.tag_ == "MD" for c in tok.children)
    return (imperative or to_you) and any(t.pos_ in ("NOUN", "PROPN") for t in _clause(tok))


def _clause(tok: Token) -> list[Token]:
    """The verb's own clause: its subtree without the clauses it governs."""
    out = [tok]
    for c in tok.children:
        if c.dep_ not in ("ccomp", "advcl", "conj", "parataxis", "relcl", "dep"):
            out += list(c.subtree)
    return out


def _aux(tok: Token) -> set[str]:
    """Lemmas of the auxiliaries (and of the conjoined verb's, "I'm writing and editing")."""
    out = {c.lemma_.lower() for c in tok.children if c.dep_ in ("aux", "auxpass")}
    if not out and tok.dep_ == "conj" and tok.head.pos_ in ("VERB", "AUX"):
        out = {c.lemma_.lower() for c in tok.head.children if c.dep_ in ("aux", "auxpass")}
    return out


def _subject(tok: Token) -> Token | None:
    """The verb's subject, or the subject of the verb it is conjoined to or completes."""
    subj = next((c for c in tok.children if c.dep_ in _SUBJECT and c.pos_ != "PUNCT"), None)
    if subj is None and tok.dep_ in ("conj", "xcomp", "advcl", "acomp"):
        return _subject(tok.head)
    return subj


def _person(tok: Token | None) -> str | None:
    if tok is None:
        return None
    person = tok.morph.get("Person", [])
    return person[0] if person else "3"


def _remaining(tok: Token) -> bool:
    """A count of the work that remains: "3 to go", "one more to go", "three chapters to go", "two
    rooms left to paint". Not a length of time ("ten minutes to go before the train"), nor what is
    merely left over ("two tickets left") or someone leaving ("4 left the team")."""
    if tok.lower_ not in REMAINDER:
        return False
    if tok.tag_ == "VB":
        infinitive: Token | None = tok
    elif tok.tag_ in ("VBN", "JJ"):
        infinitive = next((c for c in tok.children if c.dep_ in ("xcomp", "advcl")), None)
    else:
        return False
    if infinitive is None or not any(c.dep_ == "aux" and c.tag_ == "TO" for c in infinitive.children):
        return False
    near = [n for n in (tok.head, *tok.children) if n is not tok]
    return any(n.like_num or any(c.dep_ == "nummod" for c in n.children) for n in near) \
        and not any(_length_of_time(n) for n in near)


def _going_to(tok: Token) -> bool:
    """The "going to" future: a progressive "go" with a to-infinitive."""
    return tok.lemma_ == "go" and tok.tag_ == "VBG" and any(c.dep_ == "xcomp" for c in tok.children)


def _future(tok: Token) -> bool:
    """The future: "will"/"shall" ("I'll pick it up tomorrow"), "going to", or the futurate present
    with a day to come ("I finish it on Thursday"). A verb conjoined to a future one with no subject
    or auxiliary of its own shares its modal ("I'll ring them and finish it tomorrow")."""
    if any(c.tag_ == "MD" and c.lemma_ in ("will", "shall") for c in tok.children) or _going_to(tok.head) \
            or _futurate(tok):
        return True
    shares = tok.dep_ == "conj" and tok.head.pos_ == "VERB" and tok.tag_ == "VB" and not any(
        c.dep_ in (*_SUBJECT, "aux", "auxpass") for c in tok.children)
    return shares and _future(tok.head)


def _futurate(tok: Token) -> bool:
    """A present tense that a day to come makes a plan: "I finish it Thursday evening", "we start
    tomorrow"; not the habitual present ("I finish at five") nor a past day ("I finish it yesterday")."""
    if tok.tag_ not in ("VBP", "VBZ") or _aux(tok) & {"be", "have"}:
        return False
    return any(t.lower_ in _DAYS_AHEAD for c in tok.children if c.dep_ in ("npadvmod", "prep", "tmod")
               for t in c.subtree)


def _irrealis(tok: Token) -> bool:
    """Not yet real: under a modal or a to-infinitive ("still has to be sent")."""
    if any(c.tag_ == "MD" or (c.dep_ == "aux" and c.lemma_ == "to") for c in tok.children):
        return True
    return tok.dep_ == "xcomp" and tok.head.pos_ in ("VERB", "AUX")


def _reported(tok: Token) -> bool:
    """A finite or progressive statement ("it waits", "we're waiting"), not an imperative ("wait
    for it"), an infinitive ("told me to wait"), a participle ("letters waiting for a stamp"), a
    negation or a condition."""
    finite = "Fin" in tok.morph.get("VerbForm", []) and tok.tag_ != "VB"
    return (finite or "be" in _aux(tok)) and not _irrealis(tok) and not nlp.negated(tok) and not _conditional(tok)


def _past_perfect(tok: Token) -> bool:
    return any(c.lemma_ == "have" and "Past" in c.morph.get("Tense", []) for c in tok.children if c.dep_ == "aux")


def _modal_perfect(tok: Token) -> bool:
    """"could never have finished it", "would have sent it": a modal with "have" before a participle
    speaks of a past that did not happen, and reports no work, done or left."""
    kids = [c for c in tok.children if c.dep_ in ("aux", "auxpass")]
    return any(c.tag_ == "MD" for c in kids) and any(c.lemma_ == "have" for c in kids)


def _conditional(tok: Token) -> bool:
    """"once it's sent", "if the PR is merged": a clause under a subordinator is not a report."""
    return any(c.dep_ == "mark" for c in tok.children) or tok.dep_ in ("advcl", "relcl", "acl") and tok.tag_ == "VBN"


def _universal(tok: Token) -> bool:
    """"everything is done", "all done", "nothing more to do": the whole work, not one part."""
    near = [*tok.children, tok.head]
    near += [g for n in list(near) if n.dep_ in _SUBJECT + ("appos", "attr") for g in n.children]
    return any(n.lemma_.lower() in WHOLE for n in near)


def _phrases(tok: Token) -> set[str]:
    """The verb as a lemma and with its particle ("get back", "pick it up", "keep going")."""
    out = {tok.lemma_.lower()}
    for c in tok.children:
        if c.dep_ == "prt" or c.dep_ in ("advmod", "xcomp") and c.i == tok.i + 1:
            out.add(f"{tok.lemma_.lower()} {c.lower_}")
    return out


def _to_listener(tok: Token) -> bool:
    """The verb's object (or its object's owner) is "you": "I need your approval", "waiting for you"."""
    for c in tok.children:
        if c.dep_ in ("dobj", "prep", "ccomp", "xcomp") and any(_person(t) == "2" for t in c.subtree):
            return True
        if c.dep_ == "nsubj" and _person(c) == "2" and tok.dep_ == "ccomp":
            return True
    return tok.lemma_ == "block" and tok.tag_ == "VBN"


def _open_tasks(turns: list[Turn]) -> list[_Task]:
    """Work opened in `turns` and not said finished later in them, oldest first."""
    tasks: list[_Task] = []
    parts_done: dict[str, bool] = {}  # whether the speaker's last turn said a part finished
    said: dict[str, set[str]] = {}  # the nouns each speaker said so far
    pieces = [_pieces(t.content) for t in turns]
    docs = iter(nlp.parse([p for ps in pieces for p in ps], entities=False))
    for turn, own in zip(turns, pieces, strict=True):
        parsed = [next(docs) for _ in own]
        sents = [s for doc in parsed for s in doc.sents if s.text.strip()]
        readings = [read(s) for s in sents]
        finished_before = parts_done.get(turn.speaker, False)
        for i, r in enumerate(readings):
            # "books and toys sorted; we'll do the winter clothes after dinner": parts finished and the
            # speaker's own next part, in one turn, is work paused between its steps; so is a next part
            # of work the speaker named before, after a turn that said parts of it finished
            r.plan = r.plan or r.next_part and any(q.done and not q.everything for q in readings[:i]) \
                or finished_before and bool(r.part & said.get(turn.speaker, set()))
        parts_done[turn.speaker] = any(q.done and not q.everything for q in readings)
        said.setdefault(turn.speaker, set()).update(
            t.lemma_.lower() for s in sents for t in s if t.pos_ in ("NOUN", "PROPN"))
        for i, (sent, r) in enumerate(zip(sents, readings, strict=True)):
            words = _words(sent)
            if r.done and not r.opens:
                tasks = [t for t in tasks if not (r.everything or t.words & words)]
            blocked = r.blocked and turn is turns[-1] and turn.role == "assistant"
            if r.opens or blocked:
                rest = [(s.text.strip(), q.ahead) for s, q in zip(sents[i + 1:], readings[i + 1:], strict=True)]
                names = any(_names(t) for t in sent)
                context = words.union(*(_words(s) for s in sents[i + 1:]))
                before = [s.text.strip() for s in sents[:i]]
                tasks.append(_Task(turn, sent.text.strip(), rest, before, words, blocked and not r.opens, r.doing,
                                   names, context))
    return tasks


def _pieces(text: str) -> list[str]:
    """What is parsed as one text: a message typed as short lines ("3 chapters done / 2 to go / the
    last one tonight"), each line a statement of its own that the parser would run together, line by
    line; any other message whole (prose a line break only wraps)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) < LINES or sorted(len(line) for line in lines)[len(lines) // 2] >= LINE_CHARS:
        return [text]
    return lines


def _names(tok: Token) -> bool:
    """A noun that names a thing, not one pointing back ("that part", "this one")."""
    return tok.pos_ in ("NOUN", "PROPN") and not any(c.dep_ == "det" and c.morph.get("PronType", []) == ["Dem"]
                                                     for c in tok.children)


def _length_of_time(tok: Token) -> bool:
    """A unit of time a numeral counts ("three days left", "2 weeks to go"): it says how long, and
    names no work."""
    return duration(tok.text) and any(c.dep_ == "nummod" for c in tok.children)


def _words(sent: Span) -> set[str]:
    return {t.lemma_.lower() for t in sent if t.pos_ in _KEPT_POS and not t.is_stop and t.lemma_ not in COMPLETE}


def _left_unfinished(talk: list[Turn], recent: list[Turn]) -> InProgress:
    """Nothing is running now, but the session before this one stopped mid-task and nothing since
    finished it: still idle (the person moved on, so nothing resumes by itself), with a hint that
    names it, so the agent can ask."""
    before = talk[: len(talk) - len(recent)]
    if not before:
        return InProgress()
    earlier = _last_stretch(before)
    left = [t for t in _open_tasks(earlier + recent) if t.turn in earlier and not t.blocked]
    if not left:
        return InProgress()
    task = left[-1]
    when = f" on {task.turn.at:%-d %B}" if task.turn.at else ""
    said = " ".join(task.turn.content.split())
    return InProgress("idle", truncate(f"Left unfinished{when} ({task.turn.speaker}): {said}", 400))


def _last_stretch(talk: list[Turn]) -> list[Turn]:
    """The last turns without a long pause between them, at most WINDOW."""
    start = len(talk) - 1
    while start > 0 and len(talk) - start < WINDOW:
        a, b = talk[start - 1].at, talk[start].at
        if a and b and (b - a).total_seconds() > SESSION_GAP_HOURS * 3600:
            break
        start -= 1
    return talk[start:]


def _goal(recent: list[Turn], task: _Task) -> str:
    """What the task is for: the person's last request or statement of intent before it."""
    i = recent.index(task.turn)
    docs = nlp.parse((t.content for t in recent[: i + 1]), entities=False)
    for turn, doc in zip(reversed(recent[: i + 1]), reversed(docs), strict=True):
        if turn.role != "user":
            continue
        sents = [s for s in doc.sents if s.text.strip()]
        if turn is task.turn:  # what the task's own turn says after it is its plan, not its goal
            sents = sents[: len(task.before)]
        for sent in reversed(sents):
            if read(sent).request or _intent(sent):
                return truncate(sent.text.strip(), 160)
    return _introduced(recent, docs, task) or _opening(recent, docs, task)


def _introduced(recent: list[Turn], docs: Sequence[Doc], task: _Task) -> str:
    """Work the task's sentence names by a noun and its number ("back to chapter 3", "step 4 now"):
    the person's sentence earlier in the stretch that first named it so, which says what the work is
    ("rewriting chapter 3, the one on methods"); '' when none did. `docs`: the stretch's parses up
    to the task's turn."""
    sent = next((s for s in docs[-1].sents if s.text.strip() == task.text), None)
    named = _numbered(sent) if sent is not None else set()
    if not named:
        return ""
    for turn, doc in zip(recent[: len(docs) - 1], docs[:-1], strict=True):
        if turn.role != "user":
            continue
        first = next((s for s in doc.sents if _numbered(s) & named), None)
        if first is not None:
            return truncate(first.text.strip(), 160)
    return ""


def _numbered(sent: Span) -> set[tuple[str, str]]:
    """The things a sentence names by a noun and its number: ("chapter", "3") for "chapter 3"; a day
    of a month ("23 February") is a date, not a thing worked on."""
    return {(t.lemma_.lower(), c.text.lower()) for t in sent if _names(t) and not _length_of_time(t)
            and t.lower_ not in CALENDAR for c in t.children if c.dep_ == "nummod"}


def _opening(recent: list[Turn], docs: Sequence[Doc], task: _Task) -> str:
    """No request or intent before the task: how the person opened the stretch of talk it belongs to,
    when that opening names the same work as the task's turn ("Stock count day. Aisle 1, inner tubes:
    212." before "tubes and pads done, tyres after lunch"); '' when the stretch opens on something
    else, or on the task itself. `docs`: the stretch's parses up to the task's turn."""
    first = next((i for i, t in enumerate(recent[: len(docs)]) if t.role == "user"), None)
    if first is None or recent[first] is task.turn:
        return ""
    sent = next((s for s in docs[first].sents if s.text.strip()), None)
    if sent is None or not any(_names(t) and not _length_of_time(t) for t in sent) \
            or not _words(docs[first][:]) & _words(docs[-1][:]):
        return ""
    return truncate(sent.text.strip(), 160)


def _intent(sent: Span) -> bool:
    """The speaker's own intent: "I need to ...", "we want to ...", "I'm going to ..."."""
    return any(_person(_subject(t)) == "1" and any(c.dep_ == "xcomp" and "to" in _aux(c) for c in t.children)
               for t in sent if t.pos_ in ("VERB", "AUX") and t.dep_ in ("ROOT", "conj") and t.head.dep_ == "ROOT")


# -- skills ------------------------------------------------------------------------------------
_SKILL_REF = re.compile(r"\bskill[:/]([a-z][\w\-]*)", re.IGNORECASE)


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
