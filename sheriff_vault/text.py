"""Small English text analysis: sentences, words, stems and how rare a phrase is.

Deterministic on purpose: the same conversation always gives the same topics.
"""
from __future__ import annotations

import calendar
import functools
import re

from sheriff_vault.nlp import abbreviations, irregular_forms, number_words, stop_words

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


@functools.cache
def finite_forms(verb: str) -> frozenset[str]:
    """A verb's forms that only a verb takes in a clause, never a noun's or a gerund's: itself, its
    third person and its past ("cost", "costs"; "go", "goes", "went", "gone"). The third person is
    spelt as a plural is, with -es after an o too ("goes"); the past is the lemmatizer's irregular
    forms (nlp.irregular_forms), else -d after e, -ied after a consonant's y, -ed. The -ing form is
    left out: "the spending is 400" names what 400 is of."""
    w = verb.lower()
    irregular = {f for f in irregular_forms(w) if not f.endswith("ing")}
    third = w + "es" if w.endswith("o") else plural(w)
    if irregular:  # its own third person, if irregular too ("is", "has"), is among them
        return frozenset({w, *irregular, *(() if any(f.endswith("s") for f in irregular) else (third,))})
    if w.endswith("e"):
        past = w + "d"
    elif w.endswith("y") and len(w) > 2 and w[-2] not in "aeiou":
        past = w[:-1] + "ied"
    else:
        past = w + "ed"
    return frozenset({w, third, past})


# A sentence ends at . ! or ? before the next word; chat often starts the next one in lower case.
_SENT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Za-z0-9])")
# A sentence goes on after an abbreviation: spaCy's English ones ("Dr.", "e.g.", "Sept.", "Inc."), and
# four it lacks: "Sr." beside its "Jr.", and "etc.", "No." and "approx." of lists and numbers.
ABBREVIATIONS = abbreviations() | {"Sr.", "etc.", "No.", "approx."}
# Latin letters with their accented forms, so "Neukölln" and "Café" stay one word.
UPPER = "A-ZÀ-ÖØ-Þ"
LOWER = "a-zß-öø-ÿĀ-ſ"
LETTER = UPPER + LOWER
_WORD = re.compile(rf"[{LETTER}][{LETTER}\-]*(?:'(?!s\b)[{LETTER}]+)*|[{LETTER}]")
_CODE_FENCE = re.compile(r"```.*?```", re.S)


CONSTRAINT = re.compile(
    r"\b(always|never|must|mustn't|should|shouldn't|do not|don't|prefer(s|red)?|please use|instead of|only use|"
    r"make sure|avoid|no more than|at most|at least)\b", re.I)


_NORM = re.compile(r"[^\w]+")


def norm(text: str) -> str:
    """Lowercase words joined by single spaces: how names and aliases are compared."""
    return _NORM.sub(" ", text.lower()).strip()


def strip_code(text: str) -> str:
    return _CODE_FENCE.sub(" ", text)


_QUOTED = re.compile(r"[ \t]*>[ \t]?")
_NAME = r"[A-Z][\w'-]*(?:,? [A-Z][\w'-]*){0,2}"
# a message's writer signing it, after its last sentence ("... see you then. Jo") or on a line of its own
_SIGNED = re.compile(r"(?<=[.!?])\s+" + _NAME + r"\s*$")
_SIGNATURE = re.compile(_NAME)


def unquote(text: str) -> str:
    """Quoted lines ("> ", an e-mail or message pasted in) without their marks and the name that
    signs them, the speaker's next line a paragraph of its own: it never runs on into the quote's
    last sentence ("> See you then. Jo" / "Great, thanks"). The line that introduces a quote ("Jo
    wrote:") still runs into it, so its first sentence says whose words they are."""
    if ">" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    for k, line in enumerate(lines):
        mark = _QUOTED.match(line)
        if not mark:
            out.append(line)
            continue
        line = line[mark.end():]
        if k + 1 < len(lines) and _QUOTED.match(lines[k + 1]):
            out.append(line)
        elif k > 0 and _QUOTED.match(lines[k - 1]) and _SIGNATURE.fullmatch(line.strip()):
            out.append("")  # the quote's last line, the writer's name alone
        else:
            out += [_SIGNED.sub("", line), ""]
    return "\n".join(out)


def sentences(text: str) -> list[str]:
    """Split prose into sentences, keeping abbreviations and decimals intact."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n|\n(?=\s*[-*•]\s)|\n(?=\s*\d+[.)]\s)", unquote(strip_code(text))):
        para = " ".join(para.split())
        if not para:
            continue
        start = 0
        for m in _SENT.finditer(para):
            piece = para[start : m.start()].strip()
            if (piece.split() or [""])[-1].lstrip("([\"'") in ABBREVIATIONS:
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
    return [w.lower() for w in words(text) if len(w) > 2 and not _stop(w.lower()) and w.lower() not in CHAT]


def _stop(word: str) -> bool:
    """A stop word, or one with a clitic ("i'm", "don't", "we'll"): chat's contractions are one word
    here and two in spaCy's table."""
    if word in STOPWORDS:
        return True
    base, _, clitic = word.replace("’", "'").partition("'")
    return bool(clitic) and (base in STOPWORDS or word.endswith("n't"))


@functools.cache
def _number_values() -> dict[str, int]:
    """Each cardinal word's value from its place in spaCy's table: the first twenty are 0-19, the
    next eight the tens, then a hundred and the powers of a thousand."""
    table = number_words()
    if len(table) < 29:
        return {}
    return {w: i if i < 20 else (i - 18) * 10 if i < 28 else 100 if i == 28 else 1000 ** (i - 28)
            for i, w in enumerate(table)}


_SPOKEN = re.compile(r"[A-Za-z]+")
_UNIT, _TEEN, _TENS, _HUNDRED, _SCALE, _A, _AND = range(7)  # kinds of word in a number said in words


def _kind(value: int) -> int:
    return _UNIT if value < 10 else _TEEN if value < 20 else _TENS if value < 100 else _HUNDRED if value == 100 \
        else _SCALE


def _joins(kind: int, last: int | None, chunk: int, value: int, top: int) -> bool:
    """Whether a number word goes on the number said so far (`last` the kind of its last word, `chunk`
    its part under a thousand, `top` the last power of a thousand it said)."""
    small = last in (_UNIT, _TEEN, _TENS)
    if kind == _UNIT:
        return last in (_TENS, _HUNDRED, _SCALE, _AND) and chunk % 10 == 0
    if kind in (_TEEN, _TENS):
        return last in (_HUNDRED, _SCALE, _AND)
    if kind == _HUNDRED:
        return (small or last == _A) and 0 < chunk < 100
    return (small or last in (_HUNDRED, _A)) and chunk > 0 and (top == 0 or value < top)


def spoken_numbers(text: str) -> list[tuple[int, int, int]]:
    """(start, end, value) of each number written in words: "eighty two" 82, "a hundred" 100,
    "fourteen hundred" 1400, "two hundred and fifty" 250, "twenty-five" 25. The words join only
    as a number is said: "one or two", "two three-hour slots" and "nineteen ninety" are two
    numbers each. "a"/"an" counts as one only before a hundred or a power of a thousand."""
    values = _number_values()
    tokens = [(m.start(), m.end(), m.group(0).lower()) for m in _SPOKEN.finditer(text)]
    found: list[tuple[int, int, int]] = []
    start = end = -1
    total = chunk = top = 0  # top: the power of a thousand said last ("two million three thousand")
    last: int | None = None  # the kind of the last word taken

    def close() -> None:
        nonlocal start, total, chunk, last, top
        if start >= 0 and last not in (None, _A, _AND):
            found.append((start, end, total + chunk))
        start, total, chunk, last, top = -1, 0, 0, None, 0

    for i, (a, b, word) in enumerate(tokens):
        if start >= 0 and text[end:a].strip() not in ("", "-"):
            close()
        following = values.get(tokens[i + 1][2], 0) if i + 1 < len(tokens) else 0
        if word in ("a", "an") and following >= 100:
            close()
            start, end, chunk, last = a, b, 1, _A
            continue
        if word == "and" and last in (_HUNDRED, _SCALE) and 0 < following < 100:
            end, last = b, _AND
            continue
        value = values.get(word)
        if value is None:
            close()
            continue
        kind = _kind(value)
        if not _joins(kind, last, chunk, value, top):
            close()
            if kind in (_HUNDRED, _SCALE):
                continue  # "thousand" with no count before it ("by the thousand") says no number
            start = a
        if kind == _HUNDRED:
            chunk *= 100
        elif kind == _SCALE:
            total, chunk, top = total + chunk * value, 0, value
        else:
            chunk += value
        end, last = b, kind
    close()
    return found


CALENDAR = frozenset(n.lower() for n in (*calendar.month_name, *calendar.month_abbr, *calendar.day_name,
                                          *calendar.day_abbr, "sept") if n)
# Money people name after a number that the CLDR's names lack: slang and a symbol ("40 bucks", "3,200 kr").
_SLANG_MONEY = frozenset({"buck", "bucks", "kr"})
# A currency code or name that is also an everyday English word (Zipf 5 and above: "ALL", "TRY",
# "CUP"; the mark, the won, the real) names no money by that word: a code names it only in capitals,
# and such a name not at all ("she marks the essays", "we won 3").
EVERYDAY_ZIPF = 5.0


def everyday(word: str) -> bool:
    """`word` is an everyday English word (Zipf EVERYDAY_ZIPF and above): "cup", "marks", "thanks"."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word.lower(), "en") >= EVERYDAY_ZIPF


@functools.cache
def currencies() -> tuple[frozenset[str], frozenset[str]]:
    """How people name money after a number ("3,200 kroner", "12 rupees", "500 NOK", "289 eur"): the
    English names of every currency in use today, singular and plural, and the ISO codes, from the
    Unicode CLDR (Babel), less the everyday words (EVERYDAY_ZIPF). Recall's "how much" questions
    look for them, and an echo that says "NOK" for "kroner" adds nothing. Loaded when first asked,
    so a recall that asks no money question never pays for it."""
    from babel import Locale
    from babel.numbers import get_currency_name, get_territory_currencies

    codes = frozenset(c for t in Locale("en").territories for c in get_territory_currencies(str(t)))
    forms = [[get_currency_name(c, count=n, locale="en").split()[-1].lower() for n in (1, 2)] for c in codes]
    names = {w for one, many in forms if not everyday(one) for w in (one, many)}
    names |= {c.lower() for c in codes if not everyday(c.lower())}
    return frozenset(names) | _SLANG_MONEY, codes


def names_money(word: str) -> bool:
    """`word` names a currency: one of its English names, or its code ("NOK", "nok"; "CUP" only in
    capitals, so "1 cup" is no money)."""
    names, codes = currencies()
    return word.lower() in names or word in codes


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


# A sentence that opens on a pronoun finishes the one before it: sleep keeps "It's a Miwe." with the
# fact it follows, and an excerpt keeps "...pushed the launch back. It's 9 May now." together.
BACK_REFERENCE = re.compile(r"^(?:it|that|this|they|them|he|she|which|those|these)\b", re.I)


SPEAKER = re.compile(r"^(?P<who>[A-Z][\w'\-]+(?: [A-Z][\w'\-]+)?)(?P<to> \(to [^)]*\))?"
                     r"(?:, asked \"(?P<asked>[^\"]*)\")?: ")


def correction_lead(new: str, old: str) -> str:
    """How sleep writes a value that replaced another before the words that said so ("3 April, not
    27 March: the hall double-booked ..."): the current value first, for a reader and for recall."""
    return f"{new[:1].upper()}{new[1:]}, not {old}: "


# correction_lead's words: the head an excerpt of the fact always keeps
CORRECTION_LEAD = re.compile(r"^[^:,\n]{1,80}, not [^:\n]{1,80}: ")
