"""How a person moves the talk, read from the parse (sheriff_vault/nlp.py): a switch to another thing
("Second thing:", "other thing,", "and chess:"), a thing unlike one talked about before ("a
different party"), a turn that names its subject first ("news on the roof:"), and the opener that a
line summing a subject up leaves out. Placement (subjects.py) and titles (naming.py) read them
alike. The few words no parse gives ("other", "thing", "thanks", "by the way") are a table with its
examples: english/place.py."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sheriff_vault import nlp
from sheriff_vault.compaction.english import place, supersede, title
from sheriff_vault.text import stem

if TYPE_CHECKING:
    from collections.abc import Iterator

    from spacy.tokens import Doc, Span, Token


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


def ordinal(token: Token) -> bool:
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
                            or (doc[i].pos_ == "ADV" and not ordinal(doc[i]) and doc[i].lower_ not in place.DIFFERENCE
                                and not _heads_alone(doc, i))):
        additive = additive or doc[i].pos_ == "CCONJ" or doc[i].lower_ in place.ADDITION
        i += 1
    j = i
    while j < len(doc) and j - i < HEADING_WORDS and (
            doc[j].pos_ in ("DET", "ADJ", "NUM", *_NOUNS) or doc[j].tag_ == "PRP$" or ordinal(doc[j])
            or doc[j].lower_ in place.DIFFERENCE or _heads_alone(doc, j)):
        j += 1
    k = _when_or_whose(doc, i, j)
    mark = doc[k].text if k < len(doc) and j > i and doc[k].text in _HEADING_END else ""
    return _Lead(start, (i, j) if mark else (i, i), k + 1 if mark else i, additive, mark)


def _when_or_whose(doc: Doc, i: int, j: int) -> int:
    """The token after a prepositional phrase that says when a heading's item is, or whose it is
    ("Final point for tonight,", "Second point for this week:", "One more question from me:"), where it
    follows the heading's words `i`..`j`; `j` when none does ("Next item on the list:" names a place)."""
    if j >= len(doc) or doc[j].pos_ != "ADP" or not i <= doc[j].head.i < j:
        return j
    objects = [c for c in doc[j].children if c.dep_ in ("pobj", "pcomp")]
    if not objects or not all(o.ent_type_ in nlp.WHEN or o.pos_ in ("PRON", "ADV") for o in objects):
        return j
    return max(t.i for t in doc[j].subtree) + 1


def _heads_alone(doc: Doc, i: int) -> bool:
    """"Next:", "Also:": a word of list position standing alone before a colon heads an item, as
    "Second:" does, though the tagger reads it as an adverb (which a lead otherwise passes over)."""
    return doc[i].lower_ in place.ADDITION and i + 1 < len(doc) and doc[i + 1].text == ":"


def _item(doc: Doc, lead: _Lead, first: bool = False) -> bool:
    """A heading that is an item of a list or a new thing: "Second thing:", "Third,", "the fun one"
    after an ordinal, "Number two:", "other thing.", "Separately,"; the ordinal or word of difference
    before a general noun, or alone. `first`: a list's first item counts too."""
    words = [doc[k] for k in range(*lead.phrase)]
    if not words:
        return False
    if not first and any(w.lower_ in place.LIST_START for w in words):
        return False
    marked = [w for w in words if ordinal(w) or w.lower_ in place.DIFFERENCE or w.lower_ in place.ADDITION]
    rest = [w for w in words if w not in marked and w.pos_ not in ("DET", "ADJ") and w.tag_ != "PRP$"]
    if marked and all(w.lower_ in place.GENERAL for w in rest):
        return bool(rest) or lead.mark == ":" or any(ordinal(w) or w.lower_ in place.DIFFERENCE for w in marked)
    # "Number two:", "item 3,": a small numeral after the general noun it counts
    return any(w.pos_ == "NUM" and len(w.text) <= 5 and w.i > 0 and w.head.i == w.i - 1
               and w.head.lower_ in place.GENERAL for w in words)


def introductions(doc: Doc, heading: bool = True) -> Iterator[tuple[str, int, int]]:
    """How a turn names the subject it opens, as (how, start, end) of the characters that name it:
    "list" the item after a heading that walks a list ("Second thing: the boiler service", "ok
    first, my visa", "Next: hiring a designer") or after a count of general nouns ("Three things
    today: the roof leak, the car and my visa"); "=" the turn's own heading, a short phrase with no
    pronoun or auxiliary before a colon, full stop or exclamation ("Roof repair! The quote came
    in.", "also the car: it makes a noise", "About the fence:"), only at its start and when
    `heading`."""
    colons = {t.i + 1 for t in doc if t.text == ":" and t.i + 1 < len(doc)}  # "Fine: second: the van."
    for n, start in enumerate(sorted(set(_starts(doc)) | colons)):
        lead = _lead(doc, start)
        words = doc[lead.phrase[0]:lead.phrase[1]]
        if words and lead.mark in (":", ",") and (_item(doc, lead, first=True) or lead.mark == ":" and _counted(words)):
            if (item := _named_first(doc, lead.end)) is not None:
                yield "list", *item
        elif heading and n == 0 and not any(t.is_punct for t in doc[start:lead.phrase[0]]) \
                and (own := _heading(doc, lead.phrase[0])) is not None:
            yield "=", *own  # not after "ok," or "right,": "right, shower." takes leave


def previews(doc: Doc) -> bool:
    """"Two things I need to sort out this week", "a few questions first", "several matters": a
    count of matters said before any is named announces talk to come; the matters are what follow."""
    return any(_counted_matter(tok) for tok in doc)


def _counted_matter(tok: Token) -> bool:
    """A general noun in the plural with a number or a quantifier of few before it ("three things",
    "a few matters", "several questions", "a couple of things"); not "ones", which points back.
    Narrower than units.py `_counted`, which any quantifying stop word satisfies ("the same
    things", "a lot of things"): that one is read only in a sentence whose every noun is general,
    this one anywhere in a turn."""
    general = tok.lower_ in place.GENERAL or tok.lemma_.lower() in place.GENERAL
    if not general or tok.lemma_.lower() == "one" or "Plur" not in tok.morph.get("Number", []):
        return False
    if any(c.like_num or c.dep_ == "amod" and c.lemma_.lower() in ("few", "several") for c in tok.children):
        return True
    head = tok.head  # "a couple of things": the quantity is the head of "of"
    return tok.dep_ == "pobj" and head.lower_ == "of" and head.head.lemma_.lower() == "couple"


def _counted(words: Span) -> bool:
    """"Three things", "a few topics", "two matters": general nouns in the plural announce a list."""
    return any(w.lemma_.lower() in place.GENERAL and "Plur" in w.morph.get("Number", []) for w in words)


def _named_first(doc: Doc, i: int) -> tuple[int, int] | None:
    """The characters from token `i` up to the next punctuation mark when they name a thing before
    anything is said of it: "Harlow Timber, our wood merchant, ..." -> "Harlow Timber"; not "I
    think, ..." or "which we never sorted"."""
    end = _piece_end(doc, i)
    if end == i or doc[i].pos_ == "PRON" and doc[i].tag_ != "PRP$" or not any(t.pos_ in _NOUNS for t in doc[i:end]):
        return None
    return doc[i].idx, doc[end - 1].idx + len(doc[end - 1].text)


def _heading(doc: Doc, i: int) -> tuple[int, int] | None:
    """A turn's own heading from token `i`: up to three words (after an article or a possessive, and
    after a preposition of aboutness: "Re the gutters.") before a colon, full stop or exclamation mark.
    No pronoun or auxiliary is in a heading ("Prices are up:", "I did."), and it names a thing,
    not a count ("60 chairs."). Short headings mislead the tagger ("Insurance claim:" as a verb), so the
    title's reading of the words (naming.py) decides what of them names the subject."""
    if i < len(doc) and doc[i].pos_ == "ADP" and doc[i].lower_ in place.ABOUT:
        i += 1
    if i < len(doc) and (doc[i].pos_ == "DET" or doc[i].tag_ == "PRP$"):
        i += 1
    end = _piece_end(doc, i)
    words = doc[i:end]
    if not words or end >= len(doc) or doc[end].text not in (":", ".", "!") or len(words.text.split()) > 3 \
            or not (doc[end].whitespace_ or end + 1 == len(doc)) or words[0].pos_ == "NUM" \
            or any(w.pos_ == "AUX" or w.pos_ == "PRON" and w.tag_ != "PRP$" for w in words):
        return None
    return words.start_char, words.end_char


def _piece_end(doc: Doc, i: int) -> int:
    """The token after the words from `i` up to the next punctuation mark (a hyphen or an apostrophe
    joins words, it ends nothing)."""
    while i < len(doc) and not (doc[i].is_punct and doc[i].text not in ("-", "'", "’")):
        i += 1
    return i


def _listed(sent: Span) -> bool:
    """"And the next thing is the garage", "The reunion is the second thing", "Next thing is the
    boat" (the article dropped, as in speech and in learners' English): a general noun with an
    ordinal or a word of difference on one side of "be", a noun phrase on the other ("one" is no such
    noun: "the second one is" points back at a thing already named)."""
    for token in sent:
        if token.lower_ in place.GENERAL and token.lower_ != "one" and token.dep_ in ("nsubj", "attr") \
                and token.head.lemma_ == "be" \
                and any((ordinal(c) or c.lower_ in place.DIFFERENCE or c.lower_ in place.ADDITION)
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
    opens on its own heading after "and"/"also"/"now" ("And chess:", "also my tooth. it cracked on a pit",
    "Now the garden one."), also after a short acknowledgement ("Got it. Oh, also the kettle - it trips"),
    or a fixed phrase at the turn's start (english/place.py SHIFT). `search`: the first, anywhere a
    sentence starts."""

    def search(self, text: str) -> Found | None:
        if not text.strip():
            return None
        doc = nlp.parse_one(text)
        for at in (0, _after_interjections(doc)):
            if m := place.SHIFT.match(text[at:]):
                return Found(at + m.start(), at + m.end(), text)
        acknowledged = True  # a turn's own words begin at its start or after an acknowledgement
        for start in _starts(doc):
            lead = _lead(doc, start)
            # "And chess:", "also my tooth. it cracked", "First the boring one:"
            heading = _item(doc, lead) or (acknowledged and _own_heading(doc, lead) and (
                lead.additive or (lead.mark == ":" and any(ordinal(doc[k]) for k in range(*lead.phrase)))))
            if heading or _listed(doc[start].sent):
                end = doc[lead.end - 1] if heading else doc[start]
                return Found(doc[start].idx, end.idx + len(end.text), text)
            acknowledged = _acknowledges(doc, start)
        return None

    @property
    def opener(self) -> Opener:
        return Opener()


ACKNOWLEDGE_WORDS = 2  # "Will do.", "Got it.": a sentence this short answers, it opens nothing


def _acknowledges(doc: Doc, start: int) -> bool:
    """Whether the sentence at `start` is a short acknowledgement with no noun in it ("Will do.", "Got
    it."), after which a turn's own words begin as at its start."""
    sent = doc[start].sent
    words = [t for t in doc[start:sent.end] if not t.is_punct]
    return bool(words) and len(words) <= ACKNOWLEDGE_WORDS and not any(t.pos_ in _NOUNS for t in words)


def _own_heading(doc: Doc, lead: _Lead) -> bool:
    """"And chess:", "also my tooth. it cracked", "and the fun one:": a noun phrase on its own, not a
    pronoun or an adverb, before a colon, or before a full stop that a sentence of three words or more
    follows."""
    words = [doc[k] for k in range(*lead.phrase)]
    if not words or words[-1].pos_ not in ("NOUN", "PROPN", "ADJ") and words[-1].lower_ not in place.GENERAL:
        return False
    if lead.mark in (":", "-", "–", "—"):  # a dash after a heading does a colon's work in chat
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
                                        or place.social(doc[first].lower_)) \
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


def refers_to(doc: Doc, name: str) -> bool:
    """The text is about a thing it calls by the name it has: the name's words, whole and in order,
    as a proper name ("Fernhill Fair") or as a noun phrase that a definite or possessive determiner
    makes one both speakers know ("the surgery", "our loft conversion"), standing where a sentence
    says what it is about (`_what_it_is_about`). "A surgery" is a new one; "before the knee gave
    way" only dates something else; a name with a number in it (a date, a version) names no topic."""
    words = [stem(w) for w in name.lower().split()]
    if not words or any(ch.isdigit() for ch in name):
        return False
    toks = [t for t in doc if not t.is_punct]
    stems = [stem(t.lower_) for t in toks]
    for i in range(len(toks) - len(words) + 1):
        run = toks[i:i + len(words)]
        if stems[i:i + len(words)] != words or run[-1].pos_ not in _NOUNS or not _what_it_is_about(run[-1]):
            continue
        if all(t.pos_ == "PROPN" for t in run) or any(_given(c) for c in run[-1].children if c.i < run[0].i):
            return True
    return False


def _what_it_is_about(noun: Token) -> bool:
    """A noun standing where a sentence says what it is about: the subject or object of a clause of
    its own (a main one, or one run on after a comma; not one a conjunction subordinates, "before
    the knee gave way"), a verbless heading, or what "about" or "on" takes ("news on the loft")."""
    if noun.dep_ == "ROOT":
        return True
    if noun.dep_ in ("nsubj", "nsubjpass", "dobj"):
        clause = noun.head
        return clause.dep_ in _OWN_CLAUSE and not any(c.dep_ == "mark" for c in clause.children)
    return noun.dep_ == "pobj" and noun.head.lower_ in place.ABOUT


_OWN_CLAUSE = ("ROOT", "ccomp", "conj", "parataxis")  # a clause no conjunction subordinates


def _given(det: Token) -> bool:
    """A determiner of something known: "the", "this", "that", or a possessive ("our", "Ana's")."""
    return det.dep_ == "poss" or det.dep_ == "det" and (
        "Def" in det.morph.get("Definite", []) or "Dem" in det.morph.get("PronType", []))


def added_nouns(doc: Doc) -> set[str]:
    """The nouns of the subject of a clause a turn opens with "and", "meanwhile" or an additive adverb
    (english/place.py BESIDE, english/supersede.py ADDITIVE): "Also my laptop is dying", "And the tax
    prepayment is due" -> laptop; tax, prepayment. None when the clause has no noun for its subject
    ("also added a session", "and it rained")."""
    i = 0
    while i < len(doc) and (doc[i].is_punct or doc[i].is_space or doc[i].pos_ == "INTJ"):
        i += 1
    if i + 1 < len(doc) and doc[i].lower_ == "and" and _adds(doc[i + 1]):
        i += 1  # "and also", "and meanwhile"
    if i >= len(doc) or not _adds(doc[i]) or doc[i].head.i == i:
        return set()
    clause = doc[i].head
    subjects = [c for c in clause.children if c.dep_ in ("nsubj", "nsubjpass")]
    if not subjects and clause.dep_ == "acomp":  # "also my back is sore": the adjective's verb holds the subject
        subjects = [c for c in clause.head.children if c.dep_ in ("nsubj", "nsubjpass")]
    if not subjects or subjects[0].pos_ not in _NOUNS:
        return set()
    head = subjects[0]  # the noun phrase up to its head: what follows it ("..., due on 10 June") says more
    return {stem(t.text) for t in (head, *(t for c in head.lefts for t in c.subtree)) if t.pos_ in _NOUNS}


def _adds(tok: Token) -> bool:
    return tok.lower_ in place.BESIDE or tok.lower_ in supersede.ADDITIVE


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
            nouns |= {stem(w.text) for w in piece if w.pos_ in _NOUNS and w.ent_type_ not in nlp.WHEN
                      and w.lower_ not in place.GENERAL and w.lower_ not in title.GENERIC
                      and not place.social(w.lower_)}
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


def first_segment(doc: Doc) -> list[Token]:
    """The words before the first punctuation mark."""
    out: list[Token] = []
    for t in doc:
        if t.is_punct:
            if out:
                break
            continue
        out.append(t)
    return out


def reply_end(doc: Doc) -> int | None:
    """Where a reply's opening ends: interjections ("yes", "yeah", "ugh yes"; not a greeting, and not
    "oh, and ..." that adds something new), or a short evaluation before a comma or full stop ("Good
    idea,", "True.", "Agreed."); None when the turn opens no such way."""
    i = 0
    while i < len(doc) and (doc[i].pos_ in ("INTJ", "PUNCT") or doc[i].dep_ == "intj") \
            and not place.social(doc[i].lower_):
        i += 1
    if i > 0 and any(not t.is_punct for t in doc[:i]):
        if i < len(doc) and doc[i].pos_ == "CCONJ":
            return None
        return doc[i - 1].idx + len(doc[i - 1].text)
    seg = first_segment(doc)
    # one word answers as a sentence of its own ("True."); "Right, ..." opens what comes next
    marks = (",", ".", "!", ";") if len(seg) == 2 else (".", "!")
    if not seg or len(seg) > 2 or seg[-1].i + 1 >= len(doc) or doc[seg[-1].i + 1].text not in marks:
        return None
    if any(t.pos_ not in ("ADJ", "ADV", "VERB", "NOUN") or t.lower_ in place.DIFFERENCE or t.lower_ in place.ADDITION
           or place.social(t.lower_) or ordinal(t) for t in seg):
        return None
    nouns_ok = all(t.pos_ != "NOUN" or any(c.pos_ == "ADJ" for c in t.children) for t in seg)
    if nouns_ok and any(t.pos_ in ("ADJ", "VERB") for t in seg):
        return seg[-1].idx + len(seg[-1].text)
    return None


def you_said(doc: Doc) -> bool:
    """"cheaper than you said", "you were right": the person refers to what the assistant said, the
    assistant as the subject of a past tense."""
    return any(t.lower_ == "you" and t.dep_ == "nsubj" and "Past" in t.head.morph.get("Tense", []) for t in doc)


SWITCH = Shift()  # "Second thing:", "other thing,", "and chess:": the talk moves on
DIFFERENT = Unlike()  # "a different party", "nothing to do with": not the thing talked about before
RETURN_CUE = Named()  # "news on the roof:", "back to the budget": the turn names its subject first
# How a person opens a subject ("Separate thing,", "Second thing, completely unrelated:", "Also,"):
# not part of the line that sums the subject up. Read from the parse, as SWITCH reads a new subject.
OPENER = SWITCH.opener
