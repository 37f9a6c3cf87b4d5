"""Naming a subject the way a person titles a note: "Japan trip", "Postgres 16 migration",
"Caroline's birthday party".

Candidate titles are the subject's own phrases as the parse reads them (sheriff_vault/nlp.py): runs
of nouns, names and the adjectives before them, never a verb, a date, a count or an amount, plus
the title a first turn gives itself (compaction/english/title.py: "renovating the kitchen" ->
"kitchen renovation"). Each is scored by how many of the subject's turns use it, how much rarer it is in
the conversation's other subjects (class-based TF-IDF), and how close its meaning is to the
subject as a whole (its embedding against the subject's centroid, as KeyBERT does). A person, a
place or a number mentioned inside a subject is an alias or a fact of it, not its title: a lone
name, a family word, a verb or a feeling scores low. Where two or more people talk (no
assistant), a subject that is one person's gets their name: "Melanie's pottery class".
`name_candidates` is the stage: every candidate of a slice gets its name, one-liner (the fact that
best sums it up) and aliases; one that continues a vault topic keeps that topic's name.
"""
from __future__ import annotations

import calendar
import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sheriff_vault import nlp
from sheriff_vault.compaction.cues import OPENER, SWITCH, introductions
from sheriff_vault.compaction.english import place
from sheriff_vault.compaction.english import title as english
from sheriff_vault.compaction.english.talk import PHATIC, describes_only, is_talk
from sheriff_vault.compaction.parts import OWNER_SHARE, Candidate, Unit, name_words, possessive, said_words
from sheriff_vault.compaction.prior import PriorTopic
from sheriff_vault.compaction.values import MONTHS, mentions, replaced_values
from sheriff_vault.index.embed import of_meaning
from sheriff_vault.store.buffer import Turn
from sheriff_vault.text import STOPWORDS, rarity, sentences, stem, truncate

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

MAX_WORDS = 3
# a day's name or a cut of it of three letters or more ("thurs"), and "weds", the one common cut that is none
WEEKDAYS = frozenset(n.lower()[:k] for n in calendar.day_name for k in range(3, len(n) + 1)) | {"weds"}
NOMINAL = frozenset({"NOUN", "PROPN"})
# numbers and times are facts of a subject, never its name: "nine months", "10 minute sets"
COUNTED = nlp.WHEN | {"CARDINAL", "ORDINAL", "QUANTITY", "MONEY", "PERCENT"}
FUNCTION_WORDS = frozenset({"ADP", "DET", "PRON", "CCONJ", "SCONJ", "AUX", "PART", "VERB", "ADV"})
NAMED_KINDS = frozenset({"NORP", "LANGUAGE"})  # "Also spanish:": a language or people, said as an adjective
FEW_TURNS = 6  # a subject of three exchanges or fewer names itself in its opening turn, repeated or not
CANDIDATES = 24  # the best-scored title candidates, re-ranked by meaning; an opening's own title must be among them
COMMON_ADJECTIVE = 5.2  # Zipf frequency above which a leading adjective describes ("new", "main"), not names
_DEBUG = bool(__import__('os').environ.get('SV_DEBUG_NAMES'))


@dataclass
class Title:
    name: str
    aliases: list[str]
    phrases: list[str]
    scores: dict[str, float] = field(default_factory=dict)  # lowercased phrase -> its score as a title


def name_subject(texts: Sequence[str], others: Sequence[Sequence[str]], ignore: set[str],
                 encode: Callable[[list[str]], np.ndarray] | None = None,
                 centroid: np.ndarray | None = None, opening: Sequence[str] | None = None,
                 said: str | None = None, replaced: Set[str] = frozenset()) -> Title:
    """A title for the subject whose turns say `texts` (one string a turn), against the other
    subjects of the conversation (`others`); words in `ignore` (speakers' names) never count.
    `opening`: where the subject opens, when its first texts have lost it (_opening);
    `said`: the turn that opens it, as the person said it (its facts drop a heading like "the roof.");
    `replaced`: values the subject's corrections replaced ("naproxen, not ibuprofen"), never its title."""
    counted: Counter[str] = Counter()
    counts, forms, first = _phrases(texts, ignore, counted)
    intro = [title for text in (opening or texts[:2]) for title in intro_titles(text, ignore)]
    # and the noun phrases the person's opening turn names, when the subject comes back to them or
    # is too short to have (one session's worth) and came back to nothing else its opening said:
    # all compete on the score below, the best of them leads
    named = [title for text in (opening or ([said] if said else texts[:1]))
             for title in opening_titles(text, ignore)
             if _recurs(title, counts) or (len(texts) <= FEW_TURNS
                                           and not _came_back(title, first, counts, len(texts)))]
    intro = [form for form in intro + named if not _counts(_key(form), form, counted)]
    for form in intro:  # "renovating the kitchen" -> "kitchen renovation", a title the text never says
        key = " ".join(stem(w.lower()) for w in form.split())
        forms.setdefault(key, Counter())[form] += 1
        counts[key] = max(counts.get(key, 0), 1)
        first.add(key)
    intro_keys = {" ".join(stem(w.lower()) for w in form.split()) for form in intro}
    other_bags = [_phrase_keys(tuple(o), frozenset(ignore)) for o in others]
    _frame_ahead([forms[key].most_common(1)[0][0] for key in counts])
    scored: list[tuple[float, str]] = []
    n = max(1, len(texts))
    for key, said_in in counts.items():
        turns_with = float(said_in)
        form = forms[key].most_common(1)[0][0]
        if _counts(key, form, counted):
            continue
        quality = _quality(form)
        if quality <= 0:
            continue
        parts = [p for p, w in zip(key.split(), form.split(), strict=True) if not w[:1].isupper() and not w.isdigit()]
        if len(parts) > 1 or (parts and len(key.split()) > 1):
            # a phrase is as present as its words: "laptop fleet" said once, "laptops" in seven turns
            turns_with = max(turns_with, sum(counts.get(p, 0) for p in parts) / len(parts))
        spread = turns_with / n
        idf = math.log((len(other_bags) + 2) / (1 + sum(1 for bag in other_bags if key in bag)))
        words = form.split()
        bonus = (4.0 if key in intro_keys else 1.5 if key in first else 1.0) * (1 + 0.35 * (len(words) - 1))
        scored.append((spread * idf * quality * bonus * (1 + 0.5 * min(turns_with - 1, 3)), form))
    scored.sort(key=lambda x: (-x[0], x[1]))
    gone = {stem(w.lower()) for value in replaced for w in value.split()}

    def stale(form: str) -> bool:  # "Ibuprofen", "Okafor's class": a value the subject left behind
        return {stem(w.lower()) for w in form.split()} <= gone or any(mentions(form, old) for old in replaced)

    scored = [s for s in scored if not stale(s[1])] or scored
    intro = [form for form in intro if not stale(form)]
    if encode is not None and centroid is not None and scored and of_meaning(encode):
        scored = _by_meaning(scored[:CANDIDATES], encode, centroid, intro)
    else:
        if encode is not None and centroid is not None and scored:  # likeness of words: counts lead
            scored = _by_words(scored[:CANDIDATES], encode, centroid)
        if ranked := [form for _, form in scored[:CANDIDATES] if form in intro]:
            # a subject that names itself in its first turn keeps that name
            scored = [(float("inf"), ranked[0])] + [s for s in scored if s[1] != ranked[0]]
    if _DEBUG:
        print("   names:", [(round(s, 2), f) for s, f in scored[:10]], "intro", intro)
    chosen: list[str] = []
    for _, form in scored:
        stems = {stem(w.lower()) for w in form.split()}
        if any(stems & {stem(w.lower()) for w in c.split()} for c in chosen):
            continue
        chosen.append(form)
        if len(chosen) == 4:
            break
    elsewhere = {n for o in others for n in _name_keys(tuple(o))}
    names = Counter(n for doc in nlp.parse(texts) for n in _names(doc)
                    if not set(n.lower().split()) & ignore and n.lower() not in elsewhere)
    title = chosen[0] if chosen else (names.most_common(1)[0][0] if names else "")
    title = _with_modifier(title, scored, lambda form: counts.get(_key(form), 0) >= 2 or form in intro
                           or not (form in _KIND and _KIND[form].described))
    proper = [n for n, _ in names.most_common(3) if n.lower() != title.lower() and _quality(n) > 0]
    # a name said inside the subject ("Biscuit", "Umzugsfix") is how a person will ask for it again
    aliases = proper[:2] + [c for c in chosen[1:] if (" " in c or rarity(c) >= 1.0) and _quality(c) >= 0.5]
    aliases += proper[2:]
    scores = {form.lower(): score for score, form in scored if score != float("inf")}
    return Title(_titlecase(title), list(dict.fromkeys(a for a in aliases if len(a) > 2))[:4], chosen, scores)


def _names(doc: Doc) -> list[str]:
    """The names a subject's turn says (people, places, organisations, products): how a person will
    ask for it again. A capitalised word right after a number is its unit ("420 EUR"), not a name.
    Read once per parse (a subject's texts are read again against every other subject)."""
    found = nlp.kept(doc, _NAMES, lambda: tuple(_read_names(doc)))
    for text, kind in found:
        _KIND.setdefault(text, kind)
    return list(dict.fromkeys(text for text, _ in found))


_NAMES = ("sheriff_vault", "names")  # the key of a parse's names in its user_data


def _read_names(doc: Doc) -> list[tuple[str, _Kind]]:
    out = []
    for ent in doc.ents:
        if ent.label_ in COUNTED or (ent.start > 0 and doc[ent.start - 1].like_num):
            continue
        tokens = _unaddressed(list(ent))
        text = doc[tokens[0].i:tokens[-1].i + 1].text if tokens else ""
        if len(text) < 2:
            continue
        out.append((text, _kind(tokens)))
    # a name the entity reader missed: a capitalised name inside a sentence ("the dog Biscuit")
    for tok in doc:
        if tok.pos_ == "PROPN" and not tok.ent_type_ and not tok.is_sent_start and tok.text[:1].isupper() \
                and len(tok.text) > 2 and not (tok.i > 0 and doc[tok.i - 1].like_num) and tok.text.isalpha():
            out.append((tok.text, _kind([tok])))
    return out


OUTGROWN_SHARE = 0.5  # a topic's name stays while it titles the grown subject at least this well against the best


def outgrown(name: str, whole: Title) -> str:
    """The better name for a topic whose subject has grown, when its name no longer names either of
    the two phrases that lead the whole subject (`whole`, named over its old and new lines) and, as
    a title of the whole, scores under OUTGROWN_SHARE of the new one: "New Customer" for what became
    a bakery's window sign. A name that still names part of the subject ("Bike Repair" beside
    "Repair Bill") or titles it nearly as well stays, so names do not churn. '' when it stays."""
    if not whole.name or whole.name.lower() == name.lower():
        return ""
    leading = {stem(w.lower()) for phrase in whole.phrases[:2] for w in phrase.split()}
    if {stem(w.lower()) for w in name.split()} & leading:
        return ""
    best = max(whole.scores.values(), default=0.0)
    return "" if best and whole.scores.get(name.lower(), 0.0) >= OUTGROWN_SHARE * best else whole.name


def _counts(key: str, form: str, counted: Counter[str]) -> bool:
    """A unit or a count, which names no subject: a noun said after a number as often as without one
    (`_counted`: "45 min", "6 volunteers"), alone or after words that only praise or describe it
    ("the right crates" where "200 crates" is the count)."""
    head = key.split()[-1]
    return head in counted and counted[head] >= 0 \
        and all(describes_only(w.lower()) or w.lower() in english.GENERIC for w in form.split()[:-1])


def _with_modifier(title: str, scored: list[tuple[float, str]], recurs: Callable[[str], bool]) -> str:
    """A one-word title that a well-placed longer phrase ends in takes that phrase: "Party" said
    with "birthday party" is the birthday party, as a person would title the note. A phrase whose
    adjective describes must come back (`recurs`: said in two turns, or how the subject opened): "the
    odd night" said once in a reply about night shifts is a passing description; a noun before the
    head classifies it ("courtesy car") however often it is said. A word does not classify itself: a
    list written without commas ("letters letter templates") is no kind of letter."""
    if " " in title or not scored:
        return title
    top = scored[0][0] if scored[0][0] != float("inf") else max((x for x, _ in scored[1:]), default=0.0)
    head = stem(title.lower())
    for score, form in scored:
        words = form.split()
        if 1 < len(words) <= 3 and stem(words[-1].lower()) == head and score >= MODIFIED_SHARE * top \
                and head not in {stem(w.lower()) for w in words[:-1]} and _quality(form) >= 0.5 and recurs(form):
            return form
    return title


MODIFIED_SHARE = 0.3  # how well "birthday party" must score against the best title to stand for "party"


def intro_titles(text: str, ignore: set[str]) -> list[str]:
    """Titles a subject's first turn gives itself: what the person is doing ("renovating the
    kitchen" -> "kitchen renovation", "going to Japan" -> "Japan trip"), the item of a list it walks
    ("Second: the survey data"), its own heading ("Talk proposal!"), where an upgrade goes, what
    replaces what, whose visit it is."""
    out: list[str] = []
    for i, sent in enumerate(sentences(text)[:2] or [text]):
        doc = nlp.parse_one(sent)
        work = [(how, _work_title(how, verb, words)) for how, verb, span in _work(doc)
                for words in [_object_words(doc, span.start_char, span.end_char, ignore, how in ("visit", "trip"))]
                if words and not (how == "" and re.search(r"(?:tion|sion|ment)$", words[-1]))
                and not (how == "mine" and len(words) < 2)]
        out += [title for how, title in work if how in ("=", "visit")]  # what replaces what, whose visit: first
        for how, start, end in introductions(doc, heading=i == 0):  # only a turn's first words head it
            words = _object_words(doc, *_object_span(doc, start, end), ignore)
            if not words or any(w.lower() in english.GENERIC for w in words):
                continue  # "And the best thing last.": a general noun heads no subject, it announces one
            if how == "list" and all(w[:1].isupper() for w in words):
                continue  # "Third: Akiko Tanaka ... is visiting": a person is not the subject's title
            out.append(" ".join(words))
        out += [title for how, title in work if how not in ("=", "visit")]
    return [o for o in dict.fromkeys(o for o in out if o) if _quality(o) >= 0.5]


def _work_title(how: str, verb: str, words: list[str]) -> str:
    """The title of what a clause says a person is doing (`_work`): '' when English has no noun for it."""
    if how == "visit":
        return possessive(" ".join(words), "visit")
    if how == "trip":
        return f"{' '.join(words)} trip"
    if how in ("=", "mine"):
        return " ".join(words)
    noun = nominal(verb.lower())
    return f"{' '.join(words if how == 'to' else words[-2:])} {noun}" if noun else ""


def _work(doc: Doc) -> Iterator[tuple[str, str, Span]]:
    """What the clauses of a sentence say a person is doing, read from the parse, as (how, verb,
    the phrase that names it): "=" the new thing that replaces an old one ("replace the gate with a
    steel one"); "visit" a named person who is visiting or coming over; "trip" a named place a
    person travels to; "to" where a change from one thing to another goes ("upgrading from 3.11 to
    3.13"); "" the object of a verb in -ing ("renovating the kitchen"); "=" also the object of an
    infinitive ("promised to repaint the shed") or of a verb of taking something on ("signed up for
    the half marathon"); "mine" a phrase the speaker calls theirs ("my tax return")."""
    for tok in doc:
        lemma = tok.lemma_.lower()
        preps = {c.lower_: c for c in tok.children if c.dep_ == "prep"}
        to = nlp.object_of(preps.get("to"))
        doing = tok.tag_ == "VBG" and tok.pos_ == "VERB"
        over = any(c.dep_ == "prt" and c.lower_ == "over" for c in tok.children)
        if lemma == "replace" and (new := nlp.object_of(preps.get("with"))) is not None:
            yield "=", tok.text, _phrase(new)
        elif tok.tag_ == "VBG" and (lemma == "visit" or lemma == "come" and over):
            yield from (("visit", tok.text, _phrase(who)) for who in tok.children
                        if who.dep_ == "nsubj" and who.pos_ == "PROPN")
        elif lemma in english.TRAVEL and to is not None and to.pos_ == "PROPN" and to.text[:1].isupper():
            yield "trip", tok.text, _phrase(to)
        elif doing and to is not None and "from" in preps:
            yield "to", tok.text, _phrase(to)
        elif doing and (obj := _object(tok)) is not None and nominal(tok.lower_):
            yield "", tok.text, _phrase(obj)
        elif tok.pos_ == "VERB" and (obj := _object(tok, preps)) is not None and (
                lemma in english.TAKING_ON
                or tok.dep_ == "xcomp" and any(c.dep_ == "aux" and c.lower_ == "to" for c in tok.children)):
            yield "=", tok.text, _phrase(obj)
        elif tok.pos_ in NOMINAL and tok.dep_ != "poss" and any(
                c.dep_ == "poss" and c.morph.get("Person", []) == ["1"] for c in tok.children):
            yield "mine", tok.text, _phrase(tok)


_NAMING_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM"})


def _object(verb: Token, preps: dict[str, Token] | None = None) -> Token | None:
    """A verb's object that names a thing (not a pronoun), or else what it is done for or on
    ("signed up for the half marathon", "working on the grant")."""
    obj = next((c for c in verb.children if c.dep_ in ("dobj", "obj") and c.pos_ in NOMINAL), None)
    if obj is None and preps:
        obj = next((o for w, p in preps.items() if w in ("for", "on") and (o := nlp.object_of(p)) is not None
                    and o.pos_ in NOMINAL), None)
    return obj


def _phrase(head: Token) -> Span:
    """The noun phrase a word heads, from its left edge to the head and the few naming words right
    after it; `_object_words` keeps of it what a title keeps."""
    doc = head.doc
    end = head.i + 1
    while end < len(doc) and end <= head.right_edge.i and end - head.i <= 3 and doc[end].pos_ in _NAMING_POS:
        end += 1  # "python 3.13", "the team offsite": what follows the head and still names the thing
    return doc[head.left_edge.i:end]


def _object_span(doc: Doc, start: int, end: int) -> tuple[int, int]:
    """The whole noun phrase among the characters a heading or a list item covers: the first one
    that starts among them and is not a pronoun ("Next: hiring a senior designer" -> "a senior
    designer"), to its end ("a quiet birthday brunch" past a short heading's words); the characters
    themselves when none starts there."""
    for chunk in doc.noun_chunks:
        if chunk.root.pos_ == "PRON" or chunk.end_char <= start or chunk.start_char >= end:
            continue
        return max(start, chunk.start_char), max(chunk.end_char, end)
    return start, end


# The roles in which a clause names what it is about: its subject, its object, the object of a
# preposition on its verb, a phrase beside a name, and a noun phrase standing as a sentence of its own
# (not what a copula says the subject is: "it's a joke" judges, it names nothing).
CORE_ROLES = frozenset({"nsubj", "nsubjpass", "dobj", "appos", "ROOT"})


def opening_titles(text: str, ignore: set[str]) -> list[str]:
    """The noun phrases a subject's opening turn names in a core role of its first clauses ("the
    quarterly audit is out", "can you look at the garage budget?", "my brother's graduation party
    on 3 July."), in order: how a person introduces a subject, so how a title names it. A phrase
    governed by another noun ("a cake for the party") is a detail."""
    out: list[str] = []
    doc = nlp.parse_one(text)
    sents = [s for s in doc.sents if any(t.pos_ in NOMINAL or t.pos_ == "VERB" for t in s)][:2]
    for sent in sents:
        for chunk in sent.noun_chunks:
            root = chunk.root
            role = root.dep_
            if role == "pobj":  # the object of a preposition after the verb or the sentence's head it hangs on
                prep = root.head
                role = "dobj" if prep.dep_ == "prep" and prep.head.i < prep.i and (
                    prep.head.pos_ in ("VERB", "AUX") or prep.head.dep_ == "ROOT") else role
            elif role == "attr":  # "the first is the library", not "it's a joke": a copula after a noun
                role = "appos" if any(c.dep_ == "nsubj" and c.pos_ != "PRON" for c in root.head.children) else role
            if role not in CORE_ROLES or root.pos_ not in NOMINAL or root.ent_type_ in COUNTED \
                    or root.lower_ in place.GREETING or _subordinate(root):
                continue
            words = _object_words(doc, chunk.start_char, chunk.end_char, ignore)
            if words:
                out.append(" ".join(words))
    return [o for o in dict.fromkeys(out) if _quality(o) >= 0.5]


SUBORDINATE = frozenset({"advcl", "relcl", "acl"})


def _subordinate(tok: Token) -> bool:
    """Whether a word stands in a clause that only frames the main one, an adverbial clause ("before
    I go to the shop"), a relative one ("the friend who lent me the drill") or one that describes a
    noun ("a reason to call the bank"): it names a circumstance, not what the turn is about."""
    while tok.head.i != tok.i:
        if tok.dep_ in SUBORDINATE:
            return True
        tok = tok.head
    return False


def _recurs(title: str, counts: Counter[str]) -> bool:
    """Whether the subject comes back to a phrase's words after naming it: a phrase said once in
    passing ("the blue of the lake") names no subject that goes on about something else."""
    return any(counts.get(_key(word), 0) >= 2 for word in title.split())


def _came_back(title: str, first: Set[str], counts: Counter[str], n: int) -> bool:
    """Whether most of a subject's turns come back to another word its first turn said ("the blue
    of the lake calms me", then the lake in every turn): that word, not the title, is the subject."""
    words = {_key(word) for word in title.split()}
    return any(counts[key] * 2 > n for key in first if " " not in key and key not in words)


def _object_words(doc: Doc, start: int, end: int, ignore: set[str], keep_names: bool = False) -> list[str]:
    """The words of a named object as a title keeps them: nouns and the adjectives and names before
    them, up to the first word of another kind ("the garden shed before Easter" -> "garden shed");
    a leading number ("her 7th birthday party") and a common describing adjective ("our main
    database", "my own shop") are left out; a version number ends the name ("Python 3.12").
    A fragment the parser misreads ("the deck oven." with no verb) is read again as a noun phrase."""
    text = doc.text[start:end]
    said = _read_object(doc.char_span(start, end, alignment_mode="expand"), ignore, keep_names)
    if said is not None and len(said[0]) == len(text.split()):
        return _kept(*said)
    framed = _read_object(_framed(text), ignore, keep_names, head_last=True)
    best = max((r for r in (said, framed) if r is not None), key=lambda r: len(r[0]), default=None)
    return _kept(*best) if best is not None else []


def _kept(words: list[str], tokens: list[Token]) -> list[str]:
    _KIND[" ".join(words)] = _kind(tokens, head_noun=True)
    return words


def _read_object(span: Span | None, ignore: set[str], keep_names: bool,
                 head_last: bool = False) -> tuple[list[str], list[Token]] | None:
    """`head_last`: the span follows "the" in a frame, so its last word is the phrase's head noun
    whatever the tagger calls it (it reads "oven" in "the deck oven" as an adjective)."""
    words: list[str] = []
    kept: list[Token] = []
    last_i = span[-1].i if span is not None and len(span) else -1
    counted = False
    for tok in span if span is not None else []:
        low = tok.text.lower().strip("'’")
        if not words and (tok.ent_type_ == "ORDINAL" or tok.like_num):
            counted = tok.ent_type_ != "ORDINAL" and tok.text.isdigit()
            continue
        if not words and tok.pos_ in ("ADP", "SCONJ"):
            return None  # "at 3pm", "from the supplier": no noun phrase is named here
        if not words and (low in STOPWORDS or counted and tok.i != last_i):
            counted = False
            continue  # a determiner, or the measure after a number: "a 15 min presentation"
        if tok.tag_ == "POS":
            continue
        if tok.i + 1 < len(tok.doc) and tok.doc[tok.i + 1].tag_ == "POS":
            if tok.text[:1].isupper() and not words and low not in ignore:  # "Ada's retirement party"
                words, kept = [tok.text + tok.doc[tok.i + 1].text], [tok]
            else:  # "my sister's speech": the thing owned is the subject
                words, kept = [], []
            continue
        if words and tok.like_num and re.fullmatch(r"\d+(?:\.\d+)*", low.rstrip(".")):
            if not _numbered(tok):
                break  # "max 400": an amount after a word, not the version of a name
            words.append(low.rstrip("."))
            kept.append(tok)
            break
        named = tok.pos_ in NOMINAL or tok.ent_type_ in NAMED_KINDS or head_last and tok.i == last_i and _headlike(tok)
        describes = tok.pos_ == "ADJ" or tok.dep_ == "amod" and tok.tag_ in ("VBN", "VBG")  # "fitted shelves"
        if not (named or describes or keep_names and tok.text[:1].isupper() and tok.is_alpha
                and tok.pos_ not in FUNCTION_WORDS):
            break
        if low in ignore or not tok.text[:1].isalpha():
            return None
        if describes and not words and _common(low):
            continue
        words.append(tok.text.strip("'’"))
        kept.append(tok)
    last = kept[-1] if kept else None
    if last is None or not (last.pos_ in NOMINAL or last.ent_type_ in NAMED_KINDS or last.like_num
                            or head_last and last.i == last_i and _headlike(last)):
        return None
    if last.lower_ in english.KIN or last.pos_ == "PROPN" and any(t.lower_ in english.KIN for t in kept):
        return None  # "my sister", "sister Ines" are who, not what; "a family lunch" is what
    return words, kept


def _headlike(tok: Token) -> bool:
    """A content word the tagger may have misread as an adjective or a bare verb; never a
    preposition, a pronoun, an adverb ("a slow morning finally") or a participle ("my week organised")."""
    return tok.is_alpha and (tok.pos_ == "ADJ" or tok.tag_ in ("VB", "VBP"))


def _common(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= COMMON_ADJECTIVE


def nominal(gerund: str) -> str:
    """The noun of an -ing verb when English has a common one: migrating -> migration,
    renovating -> renovation, adopting -> adoption, upgrading -> upgrade, moving -> move."""
    from wordfreq import zipf_frequency

    base = gerund[:-3]
    # "+ion" only after t, or after ss closing a verb of two syllables or more (adopt-ion, migrat-ion,
    # discuss-ion): "billing" is no "billion", "missing" no "mission", "passing" no "passion"
    for noun in (base + "ation", base + "ion" if base.endswith("t") or base.endswith("ss") and len(base) > 5 else "",
                 base[:-1] + "ion" if base.endswith("t") else ""):
        if noun and len(noun) > 5 and zipf_frequency(noun, "en") >= 3.5:
            return noun
    as_gerund = zipf_frequency(gerund, "en")
    for noun in (base + "e", base, base[:-1] if len(base) > 3 and base[-1] == base[-2] else ""):
        if noun in english.VERB_NOUNS and zipf_frequency(noun, "en") > max(3.5, as_gerund):
            return noun  # moving -> move, upgrading -> upgrade; painting stays painting
    return ""


def _phrases(texts: Sequence[str], ignore: Set[str],
             counted: Counter[str] | None = None) -> tuple[Counter[str], dict[str, Counter[str]], set[str]]:
    """Candidate phrases (stemmed key -> number of turns using it), their spellings, and the keys
    the first turn uses. `counted` gets, per key, how many of its mentions were counted (`_counted`)
    less how many were not."""
    counts: Counter[str] = Counter()
    forms: dict[str, Counter[str]] = {}
    first: set[str] = set()
    if len(_KIND) > KINDS_KEPT:
        _KIND.clear()
    for i, doc in enumerate(nlp.parse(texts)):
        seen: set[str] = set()
        for spelled, key, kind, with_number in _read_grams(doc, ignore):
            if counted is not None:
                counted[key] += 1 if with_number else -1
            forms.setdefault(key, Counter())[spelled] += 1
            _KIND.setdefault(spelled, kind)
            if key not in seen:
                seen.add(key)
                counts[key] += 1
                if i == 0:
                    first.add(key)
    return counts, forms, first


def _read_grams(doc: Doc, ignore: Set[str]) -> tuple[tuple[str, str, _Kind, bool], ...]:
    """Each candidate phrase of a parsed text (`_grams`): its spelling, key, kind and whether it is
    a lone noun said after a number (`_counted`), read once per parse and set of ignored words (a
    subject's texts are read again against every other subject, and a topic's old lines each time a
    later sleep weighs renaming it)."""
    return nlp.kept(doc, ("sheriff_vault", "grams", frozenset(ignore)),
                    lambda: tuple((spelled, _key(spelled), _kind(gram), len(gram) == 1 and _counted(gram[0]))
                                  for gram in _grams(doc, ignore) for spelled in [_spell(gram)]))


def _counted(tok: Token) -> bool:
    """A noun said after a number: a measure ("45 min", "1,200 litres", "MB/s", "a 40 euro fee") or
    the members of a count ("6 volunteers", "4 crates"). What a person counts is a part or a unit of
    their subject, not the subject itself. A number after a noun is its version or its place in a
    list ("Postgres 16", "room 12"), and an ordinal before it its rank ("3rd class"): both name it."""
    before = tok.doc[tok.i - 1] if tok.i > 0 else None
    return any(c.dep_ == "nummod" and c.i < tok.i for c in tok.children) or (
        before is not None and (before.like_num and before.ent_type_ != "ORDINAL" or before.text == "/"))


def _spell(gram: Sequence[Token]) -> str:
    """A phrase as said, an owner keeping its "'s" before what follows."""
    def owned(t: Token) -> bool:
        return t is not gram[-1] and t.i + 1 < len(t.doc) and t.doc[t.i + 1].tag_ == "POS"

    return " ".join(t.text + t.doc[t.i + 1].text if owned(t) else t.text for t in gram)


@functools.lru_cache(maxsize=256)
def _phrase_keys(texts: tuple[str, ...], ignore: frozenset[str]) -> frozenset[str]:
    """The phrase keys of another subject: every subject of a sleep is weighed against all the
    others, so each is read once, not once per subject named."""
    return frozenset(_phrases(texts, ignore)[0])


@functools.lru_cache(maxsize=256)
def _name_keys(texts: tuple[str, ...]) -> frozenset[str]:
    return frozenset(n.lower() for doc in nlp.parse(texts) for n in _names(doc))


def _key(form: str) -> str:
    return " ".join(stem(w.lower()) for w in form.split())


def _title_word(tok: Token, run: list[Token]) -> bool:
    """A word that may stand in a title: a noun, a name, an adjective before them, or a version
    number after a name ("Windows 11"); never a word inside a date, time, count or amount."""
    if tok.ent_type_ in COUNTED and not _version(tok, run):
        return False
    if tok.pos_ in NOMINAL or tok.pos_ == "ADJ" or _verb_as_noun(tok):
        return tok.text[:1].isalpha() and len(tok.text) >= 3 and "'" not in tok.text and "’" not in tok.text
    return _version(tok, run)


def _verb_as_noun(tok: Token) -> bool:
    """"the memory refactor", "our move": a verb English also uses as its noun, standing where a
    noun stands (after a determiner, a possessive, an adjective or another noun), which a tagger
    reads as a verb."""
    if tok.pos_ != "VERB" or tok.lemma_.lower() not in english.VERB_NOUNS or tok.i == 0:
        return False
    before = tok.doc[tok.i - 1]
    return before.pos_ in ("DET", "NOUN", "PROPN", "ADJ") or before.dep_ == "poss"


def _version(tok: Token, run: list[Token]) -> bool:
    """"Postgres 16", "Python 3.12": a number of one or two digits, or with a point, right after a
    name; not a year ("Invoice 2026"), a dose ("Ibuprofen 400") or a count of what follows."""
    nxt = tok.nbor(1) if tok.i + 1 < len(tok.doc) else None
    return bool(run) and _numbered(tok) and run[-1].text[:1].isupper() and not (nxt is not None and nxt.tag_ == "NNS")


def _numbered(tok: Token) -> bool:
    """A number as a version is written: with a point, or of one or two digits ("3.13", "11")."""
    digits = tok.text.rstrip(".").replace(".", "")
    return tok.like_num and digits.isdigit() and ("." in tok.text.rstrip(".") or len(digits) <= 2)


def _grams(doc: Doc, ignore: Set[str]) -> list[list[Token]]:
    """1- to 3-word runs of title words ending on a noun, a name or a version number."""
    runs: list[list[Token]] = [[]]
    for tok in doc:
        owner = runs[-1][-1] if runs[-1] else None
        if tok.tag_ == "POS" and owner is not None and owner.i == tok.i - 1 and owner.text[:1].isupper():
            continue  # "Caroline's birthday party": an owner's name stays with what is theirs
        if tok.text.lower() in ignore or not _title_word(tok, runs[-1]) or tok.is_sent_start and runs[-1]:
            runs.append([])
        if tok.text.lower() not in ignore and _title_word(tok, runs[-1]):
            runs[-1].append(tok)
    out = []
    for run in runs:
        for size in range(1, MAX_WORDS + 1):
            for s in range(len(run) - size + 1):
                gram = run[s : s + size]
                measure = size > 1 and gram[0].i > 0 and doc[gram[0].i - 1].like_num  # "15 min presentation"
                head = gram[-1].pos_ in NOMINAL or _verb_as_noun(gram[-1]) or gram[-1].like_num and size > 1
                if head and not gram[0].like_num \
                        and not measure:
                    out.append(gram)
    return out


@dataclass(frozen=True)
class _Kind:
    """What a phrase is made of, as the parse read it where it was said."""

    head_pos: str
    proper: tuple[bool, ...]
    person: bool = False  # the head is a person's name ("my nephew Arlo"): who, not what
    described: bool = False  # an adjective stands before the head ("odd night"), not only nouns ("courtesy car")


_KIND: dict[str, _Kind] = {}  # by spelling, as first read: a daemon sleeps many vaults, so it is bounded
KINDS_KEPT = 20_000


def _kind(tokens: Sequence[Token], head_noun: bool = False) -> _Kind:
    """`head_noun`: the last word is known to head a noun phrase, whatever its tag."""
    last = tokens[-1]
    head = "NOUN" if head_noun or last.like_num or last.ent_type_ in NAMED_KINDS or _verb_as_noun(last) else last.pos_
    return _Kind(head, tuple(t.pos_ == "PROPN" or (t.text[:1].isupper() and not t.is_sent_start) for t in tokens),
                 _names_a_person(last, tokens), any(t.pos_ == "ADJ" for t in tokens[:-1]))


def _names_a_person(last: Token, tokens: Sequence[Token]) -> bool:
    """A phrase that ends on a name set right after a common noun of the phrase, in apposition ("my
    nephew Arlo", "our builder Gary"): a person introduced by who they are; not a name that
    is the noun's own ("Lake Como": both capitalised). The tagger's PERSON is no guide in chat (it
    calls a law firm's name a person), nor is its dependency label here (apposition or subject)."""
    before = last.doc[last.i - 1] if last.i > 0 else None
    return last.pos_ == "PROPN" and before is not None and before in tokens and before.pos_ == "NOUN" \
        and not before.text[:1].isupper()


def _quality(form: str) -> float:
    """How fit a phrase is to be a title, 0..1: a common-noun head is best; a lone name, a family
    word, a general noun or a feeling is no subject."""
    words = form.split()
    if not words:
        return 0.0
    kind = _KIND.get(form)
    if kind is None:  # not read where it was said (a name found by proper_names): read it as a noun phrase
        span = _framed(form)
        kind = _KIND.setdefault(form, _kind(list(span)) if span is not None and len(span) else _Kind("X", ()))
    head, low_words = words[-1].lower(), [w.lower() for w in words]
    if kind.head_pos not in NOMINAL or head in english.KIN or head in english.GENERIC or head in WEEKDAYS:
        return 0.0  # a weekday, however written ("fri", "weds"), dates a subject, never names it
    if head in PHATIC or _phatic_only(low_words):
        return 0.0  # an interjection after a noun ("the boot sale lol"), read as the phrase's head
    if len(words) == 1 and is_talk(head) or low_words[0].rstrip(".") in english.HONORIFIC:
        return 0.0  # a feeling; a person addressed by title ("Mrs Doyle"), however the tagger reads it
    if len(words) == 1 and (_a_time(head) or head in MONTHS):
        # "summer", "weekend", "march" (the tagger reads a month as a date only when it is
        # capitalised): a time dates a subject, as a weekday does
        return 0.0
    score = 1.0
    if all(kind.proper) and len(words) == 1 or kind.person:
        score *= 0.3  # a lone name: a person, a place, a company; a person however introduced
    elif all(kind.proper):
        score *= 0.8
    if any(describes_only(w) or w in english.GENERIC for w in low_words[:-1]):
        score *= 0.5
    return score


def _unaddressed(tokens: list[Token]) -> list[Token]:
    """An entity without the greeting, thanks or farewell the entity reader took into it ("Goodnight,
    Marisol" is Marisol; "Heyyy" alone is nothing)."""
    while tokens and (tokens[0].is_punct or _phatic(tokens[0].text)):
        tokens = tokens[1:]
    return tokens


def _phatic_only(words: Sequence[str]) -> bool:
    """Whether a phrase only greets, thanks or takes leave ("Goodnight", "Heyyy", "Bye bye"): the
    entity reader often takes one, capitalised, for a person or a place."""
    return bool(words) and all(_phatic(w) for w in words)


def _phatic(word: str) -> bool:
    return place.social(word.lower().strip(".,!"))


_FRAME = "We talked about the "


def _frame(text: str) -> str:
    return f"{_FRAME}{text} yesterday."


def _framed(text: str) -> Span | None:
    """`text` read as a thing talked about, in a neutral frame: how a phrase found away from its
    sentence (or one whose sentence misled the tagger) is parsed."""
    doc = nlp.parse_one(_frame(text))
    return doc.char_span(len(_FRAME), len(_FRAME) + len(text), alignment_mode="expand")


def _frame_ahead(forms: Iterable[str]) -> None:
    """Parse in one batch the frames `_quality` will read for `forms`: a subject has hundreds of
    candidate phrases, and one pipeline call per phrase cost more than the parses themselves."""
    forms = list(forms)
    texts = [form for form in forms if form not in _KIND]
    texts += [form.lower() for form in forms if len(form.split()) == 1]  # _a_time reads a lone word lower-cased
    if texts:
        nlp.parse(_frame(text) for text in dict.fromkeys(texts))


@functools.lru_cache(maxsize=KINDS_KEPT)
def _a_time(word: str) -> bool:
    """Whether the tagger reads a word, said as a thing talked about, as a date or a time ("the
    summer", "the weekend"); asked in a neutral frame, in lower case, once per spelling."""
    span = _framed(word)
    return span is not None and len(span) == 1 and span[0].ent_type_ in nlp.WHEN


OPENING_SHARE = 1 / 3  # what naming the subject in its opening turn adds to a title's likeness to the whole


def _by_words(scored: list[tuple[float, str]], encode: Callable[[list[str]], np.ndarray],
              centroid: np.ndarray) -> list[tuple[float, str]]:
    """Re-rank the best candidates by counts and likeness together, for vectors that only share
    words (hash vectors), where likeness alone would favour a short word the subject repeats."""
    sims = _likeness(scored, encode, centroid)
    top = scored[0][0] or 1.0
    out = [(0.45 * s / top + 0.55 * max(0.0, sim), form) for (s, form), sim in zip(scored, sims, strict=True)]
    out.sort(key=lambda x: (-x[0], x[1]))
    return out


def _likeness(scored: list[tuple[float, str]], encode: Callable[[list[str]], np.ndarray],
              centroid: np.ndarray) -> list[float]:
    vecs = np.asarray(encode([form for _, form in scored]), dtype=np.float32)
    norm = float(np.linalg.norm(centroid)) or 1.0
    return [float(x) for x in vecs @ (centroid / norm)]


def _by_meaning(scored: list[tuple[float, str]], encode: Callable[[list[str]], np.ndarray],
                centroid: np.ndarray, opening: Sequence[str] = ()) -> list[tuple[float, str]]:
    """Rank the best candidates by how close each is in meaning to the whole subject (KeyBERT's
    centrality): the counts chose them, the meaning chooses among them. A title the opening turn
    gives itself (`opening`) leads by OPENING_SHARE, as a person names the subject they raise, unless
    another candidate is that much closer to what the subject goes on to say ("a strange noise"
    opens a subject that goes on about the boiler)."""
    sims = _likeness(scored, encode, centroid)
    out = [(max(0.0, sim) + (OPENING_SHARE if form in opening else 0.0), form)
           for (_, form), sim in zip(scored, sims, strict=True)]
    out.sort(key=lambda x: (-x[0], x[1]))
    return out


def _titlecase(title: str) -> str:
    return truncate(title[:1].upper() + title[1:], 80) if title else ""


ONE_LINER_WORDS = 4  # a one-liner says at least this many things (content words) about its subject
SHARED_PENALTY = 0.5  # a one-liner loses this much of its closeness to another subject (it opens both)


def _renamed(cand: Candidate, prior: PriorTopic, texts: list[list[str]], i: int, humans: set[str],
             encode: Callable[[list[str]], np.ndarray], replaced: Set[str]) -> str:
    """A better name for the topic `cand` continues, named over all it says, when this slice at least
    doubles what the topic holds and its name has been outgrown (naming.outgrown); '' otherwise.
    A name that says a value this slice replaced ("Ibuprofen" once the person moved to naproxen) no
    longer names the subject, however little the slice adds.
    Whether a person chose the name is the sleep's to check (compact.py), not the slice's.
    `replaced`: the values the slice's corrections replaced (`replaced_values`)."""
    stale = any(mentions(prior.name, old) for old in replaced)
    if len(cand.units) < len(prior.texts) and not stale:
        return ""
    whole = name_subject(list(prior.texts) + texts[i], texts[:i] + texts[i + 1:],
                         name_words(humans | {"Assistant"}), encode, cand.vector, replaced=replaced)
    if stale:
        return whole.name if whole.name.lower() != prior.name.lower() else ""
    return outgrown(prior.name, whole)


def _turn_texts(cand: Candidate, by_id: dict[str, Turn]) -> list[str]:
    """One text per turn of the candidate: its facts and the echoes folded into them."""
    per_turn: dict[str, list[str]] = {}
    for unit in cand.units:
        per_turn.setdefault(unit.turn.id, []).append(unit.text)
        per_turn[unit.turn.id] += [by_id[e].content for e in unit.echoes if e in by_id]
    return [nlp.joined(parts) for parts in per_turn.values()]


def _opening(cand: Candidate, by_id: dict[str, Turn]) -> list[str] | None:
    """Where a subject opens mid-turn on a list cue ("Good idea, she could stay over. Second thing:
    the car."), the turn from the cue on: its facts alone have lost the item ("the car"), which
    names the subject. None when it opens no such way."""
    first = by_id.get(cand.units[0].turn.id) if cand.units else None
    m = SWITCH.search(first.content) if first is not None else None
    return [first.content[m.start():].lstrip(" .!?")] if first is not None and m and m.start() > 0 else None


def _describe(cand: Candidate, texts: list[str], others: list[list[str]], humans: set[str],
              encode: Callable[[list[str]], np.ndarray], other_vectors: Sequence[np.ndarray] = (),
              opening: list[str] | None = None, replaced: Set[str] = frozenset()) -> None:
    """Name, one-liner, aliases, owner, entities, salience and time hint of a candidate. `replaced`:
    the values its corrections replaced, never its title."""
    first = cand.units[0].turn if cand.units else None
    said = first.content if first is not None and first.role == "user" else None
    title = name_subject(texts, others, name_words(humans | {"Assistant"}), encode, cand.vector, opening, said,
                         replaced)
    cand.phrases = title.phrases
    # whose subject it is: a person named in the transcript, never a role ("User")
    named = Counter(u.turn.speaker for u in cand.units if u.turn.role == "user" and u.turn.speaker != "User")
    top = named.most_common(1)
    cand.owner = top[0][0] if len(humans) >= 2 and top and top[0][1] >= OWNER_SHARE * sum(named.values()) else ""
    name = title.name or truncate(texts[0], 60)
    cand.name = possessive(cand.owner, title.phrases[0]) if cand.owner and title.phrases else name
    central = _central(cand, title.phrases[:1], other_vectors)
    body = OPENER.sub("", central.body, count=1) or central.body
    body = body[:1].upper() + body[1:]
    cand.one_liner = truncate(f"{central.turn.speaker}: {body}" if len(humans) >= 2 else body, 120)
    cand.aliases = [a for a in ([name] if cand.owner else []) + title.aliases if a.lower() != cand.name.lower()][:4]
    cand.entities = {n.lower() for u in cand.units for n in u.names} | {p.lower() for p in title.phrases[:3]}
    flags = sum(len(u.flags - {"number"}) for u in cand.units)
    cand.salience = len(cand.units) * (1 + 0.25 * flags / max(len(cand.units), 1))
    hints = [u.time_hint for u in cand.units if u.time_hint]
    cand.time_hint = hints[0] if hints else None


def _central(cand: Candidate, words: list[str], others: Sequence[np.ndarray] = ()) -> Unit:
    """The fact that best sums the subject up: a person's, naming the title if one does, nearest
    the centroid and far from the other subjects' ("Two things on my plate: the party and the
    refactor" is close to both, so it sums up neither)."""
    pool = [u for u in cand.units if u.turn.role == "user"] or cand.units
    pool = [u for u in pool if "loop" not in u.flags] or pool  # what is still to do changes; it sums up nothing
    # "First, the deck oven." names the subject and says nothing about it
    pool = [u for u in pool if len(said_words(_unopened(u))) >= ONE_LINER_WORDS] or pool
    key = words[0].lower().split()[-1] if words else ""
    named = [u for u in pool if key and key in u.text.lower()] or pool
    if cand.vector is None:
        return named[0]

    def fit(u: Unit) -> float:
        if u.vec is None:
            return -1.0
        shared = max((float(u.vec @ o) for o in others), default=0.0)
        return float(u.vec @ cand.vector) - SHARED_PENALTY * max(0.0, shared)

    return max(named, key=fit)


def _unopened(unit: Unit) -> str:
    """The unit's body without the words that open its subject ("Second thing:"), found in its
    sentences as said (read from their turn's parse) and cut from the body, which differs from them
    only after a time phrase (its date written out)."""
    kept = OPENER.sub("", unit.text, count=1)
    cut = len(unit.text) - len(kept)
    if not cut:
        return unit.body
    return unit.body[cut:] if unit.body.startswith(unit.text[:cut]) else OPENER.sub("", unit.body, count=1)


def name_candidates(cands: list[Candidate], turns: list[Turn], prior: Sequence[PriorTopic],
                    encode: Callable[[list[str]], np.ndarray]) -> None:
    """Name, one-liner, aliases, owner and salience of every candidate of a slice. A candidate that
    continues a vault topic keeps that topic's name (what this slice calls it is no alias of it) and
    may propose a better one (`rename`)."""
    humans = {t.speaker for t in turns if t.role == "user"}
    by_id = {t.id: t for t in turns}
    # What a subject says, for naming it: its facts, and the assistant's echoes of them, which often
    # name the subject crisply ("Noted: the boiler replacement, booked for Monday").
    texts = [_turn_texts(c, by_id) for c in cands]
    nlp.parse(text for group in texts for text in group)  # naming reads every subject's texts: one batch
    names = {p.path: p for p in prior}
    for i, cand in enumerate(cands):
        replaced = replaced_values(cand.units)
        _describe(cand, texts[i], texts[:i] + texts[i + 1 :], humans, encode,
                  [c.vector for c in cands if c is not cand and c.vector is not None], _opening(cand, by_id),
                  replaced)
        if cand.existing in names:
            cand.rename = _renamed(cand, names[cand.existing], texts, i, humans, encode, replaced)
            cand.name, cand.aliases = names[cand.existing].name, []
    _distinct(cands, encode, {p.name.lower() for p in prior})


def _distinct(cands: list[Candidate], encode: Callable[[list[str]], np.ndarray], taken: Set[str] = frozenset()
              ) -> None:
    """No two new topics share a title: a person cannot tell two notes called "Bells" apart, and
    placement found them two subjects. Of two, the one the name is closer to in meaning keeps it; the
    other takes its next title phrase not in use, here or by a vault topic in `taken` (whose name the
    plan would join it to). (A new subject named as a vault topic is that topic's to claim: the plan
    joins them by the name, merge.match.)"""
    by_name: dict[str, list[Candidate]] = {}
    for cand in cands:
        if not cand.existing and cand.name:
            by_name.setdefault(cand.name.lower(), []).append(cand)
    used = set(by_name) | set(taken) | {c.name.lower() for c in cands if c.existing}
    for group in (g for g in by_name.values() if len(g) > 1):
        vec = np.asarray(encode([group[0].name]), dtype=np.float32)[0]
        keeper = max(group, key=lambda c: float(vec @ c.vector) if c.vector is not None else -1.0)
        for cand in group:
            if cand is keeper:
                continue
            for phrase in cand.phrases[1:]:
                name = possessive(cand.owner, phrase) if cand.owner else _titlecase(phrase)
                if name.lower() not in used:
                    cand.aliases = [a for a in cand.aliases if a.lower() != name.lower()]
                    cand.name = name
                    used.add(name.lower())
                    break
