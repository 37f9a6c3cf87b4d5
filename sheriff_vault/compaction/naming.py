"""Naming a subject the way a person titles a note: "Japan trip", "Postgres 16 migration",
"Caroline's birthday party".

Candidate titles are the subject's own phrases (runs of content words, noun phrases after "a",
"the", "my"...). Each is scored by how many of the subject's turns use it, how much rarer it is in
the conversation's other subjects (class-based TF-IDF), and how close its meaning is to the
subject as a whole (its embedding against the subject's centroid, as KeyBERT does). A person, a
place or a number mentioned inside a subject is an alias or a fact of it, not its title: a lone
name, a family word, a verb or a feeling scores low. Where two or more people talk (no
assistant), a subject that is one person's gets their name: "Melanie's pottery class".
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from sheriff_vault.text import (
    CALENDAR,
    FILLER,
    LETTER,
    STOPWORDS,
    UNITS,
    proper_names,
    rarity,
    sentences,
    stem,
    truncate,
)

_TOKEN = re.compile(rf"[{LETTER}][{LETTER}\d'’\-]*|\d+|[.,;:!?()\"“”]")
KIN = frozenset("""mum mom mother dad father sister brother son daughter wife husband partner friend friends colleague
colleagues boss aunt uncle grandma grandpa granddad grandmother grandfather cousin kids kid baby parents family
guy guys girl girls people person someone everyone team""".split())
# Words that never title a subject on their own: conversation glue, feelings, generic nouns.
WEAK = frozenset("""noted updated got asked said booked thanks thank sorry glad plan plans idea ideas question
questions update updates news stuff thing things part parts bit lot lots time times day days week weeks
today tonight tomorrow yesterday morning evening night weekend photo pic picture image caption total
number numbers amount price cost list step steps point points way option options issue problem help work
job deal yep yeah nope okay fine sure right left end start ones""".split())
_VERB_END = re.compile(r"ed$")
# Words that glue a sentence together but never stand in a title: they break a phrase.
GLUE = frozenset("""btw last next goes go went gets got says said asks asked tells told wants needs let lets
also even still already almost maybe probably really actually just though anyway instead per via lol haha
omg gotta gonna wanna yay ugh""".split())
# Describing words: a title does not end on one ("Sunday long", "room flat" is fine, "flat" alone too).
ADJECTIVES = frozenset("""long short big small old new good bad early late easy hard fine ready sure same other
more less much many few high low full free open close busy nice great best better worse worst whole main
next last first final total quick slow light heavy""".split())
_ED_NOUNS = frozenset("bed shed speed seed need feed red bread breed reed weed steed creed greed deed".split())
_PAST = frozenset("""met got went came saw made took said told gave sent bought brought thought felt left ran won
taken given driven written broken chosen eaten fallen forgotten hidden spoken stolen woken done gone seen""".split())
MAX_WORDS = 3
_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten first second third".split())
_DEBUG = bool(__import__('os').environ.get('SV_DEBUG_NAMES'))


@dataclass
class Title:
    name: str
    aliases: list[str]
    phrases: list[str]


def name_subject(texts: Sequence[str], others: Sequence[Sequence[str]], ignore: set[str],
                 encode: Callable[[list[str]], np.ndarray] | None = None,
                 centroid: np.ndarray | None = None, opening: Sequence[str] | None = None) -> Title:
    """A title for the subject whose turns say `texts` (one string a turn), against the other
    subjects of the conversation (`others`); words in `ignore` (speakers' names) never count.
    `opening`: where the subject opens, when its first texts have lost it (extract._opening)."""
    counts, forms, first = _phrases(texts, ignore)
    intro = [title for text in (opening or texts[:2]) for title in intro_titles(text, ignore)]
    for form in intro:  # "renovating the kitchen" -> "kitchen renovation", a title the text never says
        key = " ".join(stem(w.lower()) for w in form.split())
        forms.setdefault(key, Counter())[form] += 1
        counts[key] = max(counts.get(key, 0), 1)
        first.add(key)
    intro_keys = {" ".join(stem(w.lower()) for w in form.split()) for form in intro}
    other_bags = [set(_phrases(o, ignore)[0]) for o in others]
    verbs = used_as_verbs(texts)
    scored: list[tuple[float, str]] = []
    n = max(1, len(texts))
    for key, said_in in counts.items():
        turns_with = float(said_in)
        form = forms[key].most_common(1)[0][0]
        quality = _quality(form) * (VERB_HEAD if form.split()[-1].lower() in verbs else 1.0)
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
    if encode is not None and centroid is not None and scored:
        scored = _by_meaning(scored[:24], encode, centroid)
    if _DEBUG:
        print("   names:", [(round(s, 2), f) for s, f in scored[:10]])
    if intro:  # a subject that names itself in its first turn ("renovating the kitchen") keeps that name
        lead = max(intro, key=_quality)
        scored = [(float("inf"), lead)] + [s for s in scored if s[1] != lead]
    chosen: list[str] = []
    for _, form in scored:
        stems = {stem(w.lower()) for w in form.split()}
        if any(stems & {stem(w.lower()) for w in c.split()} for c in chosen):
            continue
        chosen.append(form)
        if len(chosen) == 4:
            break
    names = Counter(n for text in texts for n in proper_names(text) if not set(n.lower().split()) & ignore)
    title = chosen[0] if chosen else (names.most_common(1)[0][0] if names else "")
    title = _with_modifier(title, scored)
    proper = [n for n, _ in names.most_common(3) if n.lower() != title.lower() and _quality(n) > 0
              and n.lower() not in WEAK and n.lower() not in _NUMBER_WORDS]
    # a name said inside the subject ("Biscuit", "Umzugsfix") is how a person will ask for it again
    aliases = proper[:2] + [c for c in chosen[1:] if (" " in c or rarity(c) >= 1.0) and _quality(c) >= 0.5]
    aliases += proper[2:]
    return Title(_titlecase(title), list(dict.fromkeys(a for a in aliases if len(a) > 2))[:4], chosen)


VERB_HEAD = 0.3  # how fit a phrase ending on a word the subject uses as a verb is to title it
_SUBJECTS = frozenset("i you we they he she who".split())
_MODALS = frozenset("to will can could would should might must don't didn't doesn't won't can't".split())
_OBJECTS = frozenset("me us him them myself yourself ourselves".split())


def used_as_verbs(texts: Sequence[str]) -> set[str]:
    """Words the subject's own turns use as verbs at least half the time: after a person ("I
    apologize", "we'll come"), "to" or a modal, or before a person as object ("it calms me"). Such a
    word ends no title: "Apologize" and "Blue calms" say what someone does, not what the subject
    is. An -ing word is exempt: "Painting" titles a subject however often someone is painting."""
    uses: Counter[str] = Counter()
    verb: Counter[str] = Counter()
    for text in texts:
        tokens = re.findall(r"[a-z][a-z']*", text.lower().replace("’", "'"))
        for i, tok in enumerate(tokens):
            if tok.endswith("ing"):
                continue
            uses[tok] += 1
            before = tokens[i - 1] if i else ""
            after = tokens[i + 1] if i + 1 < len(tokens) else ""
            if before in _SUBJECTS or before in _MODALS or before.endswith(("'ll", "'m", "'re", "'ve", "'d")) \
                    or after in _OBJECTS:
                verb[tok] += 1
    return {w for w, n in verb.items() if 2 * n >= uses[w]}


def _with_modifier(title: str, scored: list[tuple[float, str]]) -> str:
    """A one-word title that a well-placed longer phrase ends in takes that phrase: "Party" said
    with "birthday party" is the birthday party, as a person would title the note."""
    if " " in title or not scored:
        return title
    top = scored[0][0] if scored[0][0] != float("inf") else max((x for x, _ in scored[1:]), default=0.0)
    head = stem(title.lower())
    for score, form in scored:
        words = form.split()
        if 1 < len(words) <= 3 and stem(words[-1].lower()) == head and score >= MODIFIED_SHARE * top \
                and _quality(form) >= 0.5:
            return form
    return title


MODIFIED_SHARE = 0.3  # how well "birthday party" must score against the best title to stand for "party"
_DETERMINER = r"(?:(?:the|a|an|my|our|his|her|their|its|this|some)\s+)?"
_OBJECT = r"(?P<obj>[\w'’-]+(?:\s+[\w'’-]+){0,2})"
_HEADING = re.compile(r"^\W*(?:(?:also|and|plus|oh and|ok|okay|now)\s+)?(?:(?:the|my|our)\s+)?"
                      r"(?P<obj>[A-Za-z][\w'’-]*(?:\s+[\w'’-]+){0,2})"
                      r"\s*[!:.](?!\S)", re.I)
_INTRO = [
    # "replace the old hedge along the back with a wooden fence": the new thing is the subject
    (re.compile(rf"\breplac(?:e|ing)\b[^.!?]{{0,80}}?\bwith\s+{_DETERMINER}(?:new\s+)?{_OBJECT}", re.I), "="),
    # "Akiko Tanaka from Kyoto University is visiting us": a person's visit
    (re.compile(r"\b(?P<obj>(?:[A-Z][\w'’-]+\s+)?[A-Z][\w'’-]+)\b[^.!?:]{0,40}?\b(?:is|are|will be)\s+"
                r"(?:visiting|coming to visit|coming over)\b"), "visit"),
    # "Talk proposal! I want to submit to EuroPython", "also spanish. dele b1 exam is 23 May": a turn
    # that opens on its own heading
    (_HEADING, "="),
    # "First, the deck oven.", "ok second: the survey data": the item a person walks a list through
    (re.compile(rf"(?:^|[.!?:]\s+)\W*(?:(?:ok|okay|so|and|right|now)\W+)?(?:first|second|third|fourth|next|last)(?:ly)?"
                rf"(?:\s+(?:thing|point|item|one))?\s*[,:]\s*{_DETERMINER}{_OBJECT}", re.I), "list"),
    # "we're upgrading from 3.10 to Python 3.12": the upgrade to where it goes
    (re.compile(r"\b(?P<verb>upgrading|migrating|moving|switching|updating)\s+(?:\w+\s+)?from\s+\S+(?:\s+\S+)?"
                r"\s+to\s+(?P<obj>[\w'’.-]+(?:\s+[\w'’.-]+)?)", re.I), "to"),
    # "going to Japan for two weeks", "flying to Lisbon": a trip there
    (re.compile(r"\b(?:going|travell?ing|flying|heading|off)\s+to\s+(?P<obj>[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)"), "trip"),
    # "migrating our main database", "renovating the kitchen", "adopting a dog"
    (re.compile(rf"\b(?P<verb>[a-z]+ing)\s+{_DETERMINER}{_OBJECT}", re.I), ""),
    # "promised to repaint the garden shed", "need to fix the fence"
    (re.compile(rf"\b(?:promised|need|needs|want|wants|have|has|plan|planning|going|decided|trying|hoping)\s+to\s+"
                rf"[a-z]+\s+{_DETERMINER}{_OBJECT}", re.I), "="),
    # "signed up for the Cologne half marathon", "organise the office holiday party", "my tax return"
    (re.compile(rf"\b(?:signed up for|registered for|applying for|working on|planning|organi[sz]e|organi[sz]ing|"
                rf"started|starting|leading|doing|booked|my|our)\s+{_DETERMINER}{_OBJECT}", re.I), "="),
]
_DETERMINED = re.compile(r"\b(?:the|a|an|my|our|your|his|her|their|this|that|its)\s+$", re.I)
_PREPOSITION = frozenset("""for to from in on at with by of about into onto over after before since until and or but
because so as than then when while along across around behind below beside between beyond near through toward
towards under within without inside outside past via per against among upon off""".split())


def intro_titles(text: str, ignore: set[str]) -> list[str]:
    """Titles a subject's first turn gives itself: what the person is doing ("renovating the
    kitchen" -> "kitchen renovation", "going to Japan" -> "Japan trip") or started ("spanish lessons"),
    the item of a list it walks ("Second: the survey data"), its own heading ("Talk proposal!"), where
    an upgrade goes, what replaces what, whose visit it is."""
    out: list[str] = []
    for i, sent in enumerate(sentences(text)[:2] or [text]):
        for rx, how in _INTRO:
            if rx is _HEADING and i > 0:
                continue  # only a turn's first words can be its heading
            for m in rx.finditer(sent):
                words: list[str] = []
                for w in m["obj"].split():
                    low = w.lower().strip("'’")
                    if not words and re.fullmatch(r"\d+(?:st|nd|rd|th)?", low):
                        continue  # "her 7th birthday party": the party is the subject, not its number
                    if words and re.fullmatch(r"\d+(?:\.\d+)*", low.rstrip(".")):
                        words.append(low.rstrip("."))  # "Python 3.12", "Windows 11": a version ends the name
                        break
                    contraction = ("'" in low or "’" in low) and not low.endswith(("'s", "’s"))  # it'll, we're
                    if low in _PREPOSITION or low in STOPWORDS or low in ignore or low in GLUE or not w[0].isalpha() \
                            or contraction \
                            or (_VERB_END.search(low) and low not in _ED_NOUNS):
                        break
                    words.append(w.strip("'’"))
                if not words or any(w.lower() in KIN for w in words) or words[-1].lower().endswith("ly") or \
                        (how == "" and re.search(r"(?:tion|sion|ment)$", words[-1])) or \
                        (m.group(0).lower().startswith(("my ", "our ")) and len(words) < 2):
                    continue
                words = [w for w in words if w.lower() not in ADJECTIVES and w.lower() not in ("main", "own")]
                if not words:
                    continue
                if how == "visit":
                    out.append(possessive(" ".join(words), "visit"))
                    continue
                if how == "list" and all(w[:1].isupper() for w in words):
                    continue  # "Third: Akiko Tanaka ... is visiting": a person is not the subject's title
                if how == "trip":
                    out.append(f"{' '.join(words)} trip")
                elif how == "to" and (noun := nominal(m["verb"].lower())):
                    out.append(f"{' '.join(words)} {noun}")
                elif how in ("=", "list"):
                    out.append(" ".join(words))
                elif _DETERMINED.search(sent[: m.start("verb")]):
                    continue  # "the billing module", "a training plan": a noun, not someone doing something
                elif noun := nominal(m["verb"].lower()):
                    out.append(f"{' '.join(words[-2:])} {noun}")
    return [o for o in dict.fromkeys(out) if _quality(o) >= 0.5]


def nominal(gerund: str) -> str:
    """The noun of an -ing verb when English has a common one: migrating -> migration,
    renovating -> renovation, adopting -> adoption, upgrading -> upgrade, moving -> move."""
    from wordfreq import zipf_frequency

    base = gerund[:-3]
    # "+ion" only after t or ss (adopt-ion, migrat-ion, discuss-ion): "billing" is no "billion"
    for noun in (base + "ation", base + "ion" if base.endswith(("t", "ss")) else "",
                 base[:-1] + "ion" if base.endswith("t") else ""):
        if noun and len(noun) > 5 and zipf_frequency(noun, "en") >= 3.5:
            return noun
    as_gerund = zipf_frequency(gerund, "en")
    for noun in (base + "e", base, base[:-1] if len(base) > 3 and base[-1] == base[-2] else ""):
        if noun in _VERB_NOUNS and zipf_frequency(noun, "en") > max(3.5, as_gerund):
            return noun  # moving -> move, upgrading -> upgrade; painting stays painting
    return ""


# Verbs English also uses as the noun of the work ("the move", "the upgrade"); "discover", "come"
# or "spend" are no such noun: "discovering my true potential" is not a "true potential discover".
_VERB_NOUNS = frozenset("""move upgrade update change repair launch release rebuild redesign rewrite refactor
install search hunt visit swap transfer review test build fix switch shift plan return rollout cleanup
setup checkup overhaul transition""".split())


def _phrases(texts: Sequence[str], ignore: set[str]) -> tuple[Counter[str], dict[str, Counter[str]], set[str]]:
    """Candidate phrases (stemmed key -> number of turns using it), their spellings, and the keys
    the first turn uses."""
    counts: Counter[str] = Counter()
    forms: dict[str, Counter[str]] = {}
    first: set[str] = set()
    for i, text in enumerate(texts):
        seen: set[str] = set()
        for gram in _grams(text, ignore):
            key = " ".join(stem(w.lower()) for w in gram)
            forms.setdefault(key, Counter())[" ".join(gram)] += 1
            if key not in seen:
                seen.add(key)
                counts[key] += 1
                if i == 0:
                    first.add(key)
    return counts, forms, first


def _grams(text: str, ignore: set[str]) -> list[list[str]]:
    """1- to 3-word runs of content words (no stopword, number or punctuation inside)."""
    runs: list[list[str]] = [[]]
    tokens = _TOKEN.findall(text)
    for i, tok in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        low = tok.lower().strip("'’")
        version = (tok.isdigit() and len(tok) <= 3 and bool(runs[-1]) and runs[-1][-1][:1].isupper()
                   and not after.lower().endswith("s"))  # "Windows 11 upgrade", not "Tokyo 6 nights"
        possessive = low.endswith(("'s", "’s"))
        contraction = ("'" in low or "’" in low) and not possessive  # she'll, we're
        base = low[:-2] if possessive else low
        stop = (not version and (not tok[0].isalpha() or base in STOPWORDS or base in CALENDAR or len(low) < 3
                                 or base in ignore or contraction or base in GLUE))
        if stop:
            runs.append([])
        else:
            runs[-1].append(tok.rstrip("'’").removesuffix("'s").removesuffix("’s"))
    out = []
    for run in runs:
        for size in range(1, MAX_WORDS + 1):
            out += [g for s in range(len(run) - size + 1) if not (g := run[s : s + size])[-1].isdigit()
                    and not g[0].isdigit()]
    return out


def _quality(form: str) -> float:
    """How fit a phrase is to be a title, 0..1: a common-noun head is best; a lone name, a family
    word, a feeling, a verb form or a glue word is not a subject."""
    words = form.split()
    head, low_words = words[-1].lower(), [w.lower() for w in words]
    if head in KIN or head in WEAK or head in UNITS or head in _NUMBER_WORDS or \
            any(w in ("noted", "updated") for w in low_words):
        return 0.0
    if len(words) == 1 and (words[0].lower() in FILLER or words[0].lower() in WEAK):
        return 0.0
    score = 1.0
    capitalised = [w[:1].isupper() for w in words]
    if all(capitalised) and len(words) == 1:
        score *= 0.3  # a lone name: a person, a place, a company
    elif all(capitalised):
        score *= 0.8
    if head in _PAST or _VERB_END.search(head) and len(head) > 4 and head not in _ED_NOUNS:
        score *= 0.35  # "booked", "painted": what happened, not what it is about
    first = low_words[0]
    if len(words) > 1 and (first in _PAST or _VERB_END.search(first) and len(first) > 4 and first not in _ED_NOUNS):
        score *= 0.3  # "booked Umzugsfix", "met Aylin": a verb and its object
    if len(words) > 1 and first in UNITS:
        score *= 0.3  # "min presentation" out of "a 15 min presentation"
    if head in ADJECTIVES:
        score *= 0.2
    if head.endswith("ly"):
        score *= 0.2
    if any(w in FILLER or w in WEAK for w in low_words[:-1]):
        score *= 0.5
    return score


def _by_meaning(scored: list[tuple[float, str]], encode: Callable[[list[str]], np.ndarray],
                centroid: np.ndarray) -> list[tuple[float, str]]:
    """Re-rank the best candidates by how close each is in meaning to the whole subject."""
    vecs = np.asarray(encode([form for _, form in scored]), dtype=np.float32)
    norm = float(np.linalg.norm(centroid)) or 1.0
    sims = vecs @ (centroid / norm)
    top = scored[0][0] or 1.0
    out = [(0.45 * s / top + 0.55 * max(0.0, float(sim)), form) for (s, form), sim in zip(scored, sims, strict=True)]
    out.sort(key=lambda x: (-x[0], x[1]))
    return out


def _titlecase(title: str) -> str:
    return truncate(title[:1].upper() + title[1:], 80) if title else ""


def possessive(owner: str, title: str) -> str:
    """"Melanie" + "Pottery class" -> "Melanie's pottery class" (names inside keep their capitals)."""
    words = title.split()
    if words and words[0][1:].islower():
        words[0] = words[0].lower()
    return truncate(f"{owner}'s {' '.join(words)}", 80)
