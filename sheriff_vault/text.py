"""Small English text analysis for the offline extractor: sentences, words, names, key phrases.

Deterministic and dependency-free on purpose: the same conversation always gives the same topics.
"""
from __future__ import annotations

import calendar
import re
from collections import Counter
from collections.abc import Iterable, Set

from sheriff_vault.nlp import stop_words

# spaCy's English stop words (read from the installed package: sheriff_vault/nlp.py).
STOPWORDS = stop_words()
# Chat's own function words that spaCy's table (written for edited prose) lacks: interjections and
# the light verbs of talk. A search ignores them as it ignores stop words.
CHAT = frozenset("""yeah yes ok okay oh hey hi know think like let got going gonna wanna tell thing things
having""".split())
def plural(noun: str) -> str:
    """A noun's regular plural: -s, -es after a hiss, -ies after a consonant's y."""
    w = noun.lower()
    if w.endswith("y") and len(w) > 2 and w[-2] not in "aeiou":
        return w[:-1] + "ies"
    return w + "es" if w.endswith(("s", "sh", "ch", "x")) else w + "s"


def inflections(verb: str) -> frozenset[str]:
    """A verb with its regular forms: third person (-s, -es, -ies), past (-ed, -d, -ied) and -ing (a
    final e dropped, a short final consonant doubled: getting), so a word list is written once per verb
    and also holds the forms nobody listed ("hope": hopes, hoped, hoping). Irregular pasts are listed
    as words."""
    w = verb.lower()
    third = plural(w) if not w.endswith("o") else w + "es"
    past = w[:-1] + "ied" if third.endswith("ies") else w + ("d" if w.endswith("e") else "ed")
    stem_ = w[:-1] if w.endswith("e") and not w.endswith("ee") and len(w) > 2 else w
    if len(w) == 3 and w[1] in "aeiou" and w[0] not in "aeiou" and w[2] not in "aeiouwxy":
        stem_ = w + w[-1]
    return frozenset({w, third, past, stem_ + "ing"})


# Words that carry feeling, praise or the talk itself, not a subject: never a topic name or alias,
# and no key word of a search. Stop words are spaCy's and not repeated here.
FILLER = CHAT | frozenset("""
wow cool awesome amazing great good nice glad lol haha yay lovely super totally absolutely definitely sure bit
kind sort pretty today yesterday tomorrow week month year stuff man dude guys hello bye happy excited exciting fun
incredible fantastic wonderful beautiful proud new old big little right life happiness joy blast special grateful
thankful lucky blessed honestly seriously passion inspiration reminder journey
felt took kept meant said told heard went came gone saw seen gave
""".split()) | frozenset(form for noun in """
lot time day way emotion feeling moment memory experience dream vibe
""".split() for form in (noun, plural(noun))) | frozenset(form for verb in """
thank love sound feel look hope want make take enjoy share mean say talk tell hear go get try remind appreciate
inspire come
""".split() for form in inflections(verb))
# A sentence ends at . ! or ? before the next word; chat often starts the next one in lower case.
_SENT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Za-z0-9])")
_ABBREV = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|vs|etc|e\.g|i\.e|No|approx|Inc|Ltd|"
                     + "|".join(m for m in calendar.month_abbr if m) + r"|Sept)\.$")
# Latin letters with their accented forms, so "Neukölln" and "Café" stay one word.
UPPER = "A-ZÀ-ÖØ-Þ"
LOWER = "a-zß-öø-ÿĀ-ſ"
LETTER = UPPER + LOWER
_WORD = re.compile(rf"[{LETTER}][{LETTER}\-]*(?:'(?!s\b)[{LETTER}]+)*|[{LETTER}]")
_CODE_FENCE = re.compile(r"```.*?```", re.S)
_PROPER = re.compile(rf"\b(?:[{UPPER}][{LOWER}]+(?:[{UPPER}][{LOWER}]+)*|[{UPPER}]{{2,}}[{LOWER}]?)"
                     rf"(?:\s+(?:[{UPPER}][{LOWER}]+|[{UPPER}]{{2,}}))*\b")
_QUOTED = re.compile(r"[\"“]([^\"”]{3,60})[\"”]")


CONSTRAINT = re.compile(
    r"\b(always|never|must|mustn't|should|shouldn't|do not|don't|prefer(s|red)?|please use|instead of|only use|"
    r"make sure|avoid|no more than|at most|at least)\b", re.I)


_NORM = re.compile(r"[^\w]+")


def norm(text: str) -> str:
    """Lowercase words joined by single spaces: how names and aliases are compared."""
    return _NORM.sub(" ", text.lower()).strip()


def strip_code(text: str) -> str:
    return _CODE_FENCE.sub(" ", text)


def sentences(text: str) -> list[str]:
    """Split prose into sentences, keeping abbreviations and decimals intact."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n|\n(?=\s*[-*•]\s)|\n(?=\s*\d+[.)]\s)", strip_code(text)):
        para = " ".join(para.split())
        if not para:
            continue
        start = 0
        for m in _SENT.finditer(para):
            piece = para[start : m.start()].strip()
            if _ABBREV.search(piece):
                continue
            if piece:
                out.append(piece)
            start = m.end()
        tail = para[start:].strip()
        if tail:
            out.append(tail)
    return [s.lstrip("-*• ").strip() for s in out if s.strip("-*• ")]


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def content_words(text: str) -> list[str]:
    return [w.lower() for w in words(text) if len(w) > 2 and not _stop(w.lower()) and w.lower() not in FILLER]


def _stop(word: str) -> bool:
    """A stop word, or one with a clitic ("i'm", "don't", "we'll"): chat's contractions are one word
    here and two in spaCy's table."""
    if word in STOPWORDS:
        return True
    base, _, clitic = word.replace("’", "'").partition("'")
    return bool(clitic) and (base in STOPWORDS or word.endswith("n't"))


def proper_names(text: str, skip: Iterable[str] = (), known: Iterable[str] = ()) -> list[str]:
    """Capitalised names and acronyms (at a sentence start only when `known`), plus quoted titles."""
    skip_low = {s.lower() for s in skip}
    known_set = set(known)
    found: list[str] = []
    for sent in sentences(text) or [text]:
        first = re.match(r"\W*(\w+)", sent)
        first_word = first.group(1) if first else ""
        for m in _PROPER.finditer(sent):
            parts = m.group(0).split()
            while parts and (parts[0].lower() in STOPWORDS or parts[0].lower() in FILLER):
                parts.pop(0)
            if not parts:
                continue
            value = " ".join(parts)
            if m.start() == sent.find(first_word) and value == first_word and not value.isupper() \
                    and value not in known_set:
                continue
            if value.lower() in STOPWORDS or value.lower() in FILLER or value.lower() in skip_low or len(value) < 2 \
                    or value.lower() in CALENDAR:
                continue
            if value in ("I", "I'm", "OK"):
                continue
            found.append(value)
        found += [q.strip() for q in _QUOTED.findall(sent)]
    return list(dict.fromkeys(found))


CALENDAR = frozenset(n.lower() for n in (*calendar.month_name, *calendar.month_abbr, *calendar.day_name,
                                          *calendar.day_abbr, "sept") if n)
CURRENCY_CODES = frozenset("usd eur gbp nok sek dkk nzd aud cad chf jpy".split())
# How people name money after a number ("3,200 kroner", "40 bucks"): recall's "how much" questions
# look for them, and an echo that says "NOK" for "kroner" adds nothing.
CURRENCY_WORDS = CURRENCY_CODES | frozenset("dollar dollars buck bucks euro euros pound pounds kroner krone kronor "
                                            "kr yen".split())
def rarity(phrase: str) -> float:
    """How uncommon a phrase's words are in everyday English (wordfreq's Zipf scale, inverted):
    "the" ~0, "support" ~0.5, "adoption" ~1.8, "pottery" ~2.3, a project's code name ~4."""
    from wordfreq import zipf_frequency

    ws = phrase.lower().split()
    if not ws:
        return 0.0
    return sum(min(4.0, max(0.0, 6.0 - zipf_frequency(w, "en"))) for w in ws) / len(ws)


def truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def stem(word: str) -> str:
    """A crude English stemmer, enough to match "painted" with "paint" when picking an excerpt."""
    w = word.lower()
    for suffix in ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return w


SPEAKER = re.compile(r"^(?P<who>[A-Z][\w'\-]+(?: [A-Z][\w'\-]+)?)(?P<to> \(to [^)]*\))?"
                     r"(?:, asked \"(?P<asked>[^\"]*)\")?: ")


_CLAUSE = re.compile(r"(?<=[,;])\s+|\s+(?=(?:and|so|but|which|because|while|whereas)\s)")


# A sentence that opens on a pronoun finishes the one before it: sleep keeps "It's a Miwe." with the
# fact it follows, and an excerpt keeps "...pushed the launch back. It's 9 May now." together.
BACK_REFERENCE = re.compile(r"^(?:it|that|this|they|them|he|she|which|those|these)\b", re.I)


def _with_continuations(sents: list[str]) -> list[str]:
    out: list[str] = []
    for sent in sents:
        if out and len(sent) <= 80 and BACK_REFERENCE.match(sent):
            out[-1] = f"{out[-1]} {sent}"
        else:
            out.append(sent)
    return out


def _hits(text: str, wanted: set[str]) -> int:
    return len(wanted & {stem(w) for w in content_words(text)})


# A value said to replace another ("It's 9 May now instead of 2 May", "27 metres, not 24"): the
# part of a fact a reader needs most, whatever else it shares with the question.
_NEW_VALUE = re.compile(r"\d[^.;]*\b(?:now|instead of|rather than|not \d)"
                        r"|\b(?:now|changed to|moved to|instead of)\b[^.;]*\d", re.I)


def _shown(shown: str, body: str, wanted: set[str]) -> tuple[int, int, int]:
    """How much of what was asked an excerpt shows: a replacing value first, then query words in it,
    then fewer of their uses cut."""
    uses = Counter(w for w in (stem(x) for x in content_words(body)) if w in wanted)
    seen = Counter(w for w in (stem(x) for x in content_words(shown)) if w in wanted)
    return len(_NEW_VALUE.findall(shown)), len(seen), -sum((uses - seen).values())


_NUMBER = re.compile(r"\d+")


def _pick(sents: list[str], wanted: set[str], room: int, new: Set[str] = frozenset()) -> str:
    """The pieces sharing most words with the query that fit in `room`, in their order, gaps as "…";
    first a piece that says a value replaced another, then one saying one of the `new` numbers
    (which the line it corrected did not say)."""
    def says_new(sent: str) -> bool:
        return bool(new) and bool(new & set(_NUMBER.findall(sent)))

    def rank(i: int) -> tuple[int, int, int, int]:
        sent = sents[i]
        return (-bool(_NEW_VALUE.search(sent)), -says_new(sent), -_hits(sent, wanted),
                i if len(sent) <= room else len(sents) + i)

    scored = sorted(range(len(sents)), key=rank)
    keep: list[int] = []
    size = 0
    for i in scored:
        if keep and (size + len(sents[i]) + 2 > room or not content_words(sents[i])):
            continue  # nor a piece that says nothing ("Oh,")
        keep.append(i)
        size += len(sents[i]) + 2
    keep.sort()
    parts = []
    for n, i in enumerate(keep):
        if n == 0 and i > 0 or n > 0 and i != keep[n - 1] + 1:
            parts.append("…")
        parts.append(sents[i])
    if keep[-1] < len(sents) - 1:
        parts.append("…")
    return truncate(" ".join(parts).replace(" …", "…").replace("… ", "…"), room)


def correction_lead(new: str, old: str) -> str:
    """How sleep writes a value that replaced another before the words that said so ("3 April, not
    27 March: the hall double-booked ..."): the current value first, for a reader and for recall."""
    return f"{new[:1].upper()}{new[1:]}, not {old}: "


# correction_lead's words: the head an excerpt of the fact always keeps
CORRECTION_LEAD = re.compile(r"^[^:,\n]{1,80}, not [^:\n]{1,80}: ")


def new_numbers(text: str, replaced: str) -> frozenset[str]:
    """The numbers a correcting line says that the line it replaced did not: where its new value is."""
    return frozenset(_NUMBER.findall(text)) - frozenset(_NUMBER.findall(replaced))


def excerpt(text: str, query: str, limit: int = 150, keep_question: int = 40, new: Set[str] = frozenset()) -> str:
    """A fact as recall shows it: the question it answered only when the answer alone is short, and
    of a long fact only the sentences sharing most words with the query (original order kept), after
    the corrected value it opens with, if any (correction_lead); `new`: numbers to show first (a
    correction's new value, `new_numbers`)."""
    m = SPEAKER.match(text)
    head, body = (text[: m.end() - 2], text[m.end():]) if m else ("", text)
    if m:
        asked = m.group("asked")
        head = m.group("who") + (f', asked "{asked}"' if asked and len(body) < keep_question else "")
    if len(head) + len(body) + 2 <= limit:
        return f"{head}: {body}" if head else body
    lead = CORRECTION_LEAD.match(body)
    if lead and len(head) + lead.end() + 40 <= limit:
        rest = excerpt(body[lead.end():], query, limit - len(head) - 2 - lead.end(), keep_question, new)
        return f"{head}: {lead.group(0)}{rest}" if head else f"{lead.group(0)}{rest}"
    wanted = {stem(w) for w in content_words(query)}
    room = limit - len(head) - 2
    whole = _with_continuations(sentences(body) or [body])
    out = _pick(whole, wanted, room, new)
    if any(len(sent) > room for sent in whole):
        # a sentence too long to show whole may be cut at its clauses ("..., so we have 47 jobs in
        # total"), when that shows more of what was asked than its first words do
        clauses = _pick([part for sent in whole for part in _CLAUSE.split(sent) if part], wanted, room, new)
        if _shown(clauses, body, wanted) > _shown(out, body, wanted):
            out = clauses
    return f"{head}: {out}" if head else out
