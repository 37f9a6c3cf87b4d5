"""Quantities said in a conversation, typed and keyed by what they measure.

"the budget is 4,000 EUR" is `budget = 4000 EUR`, "7 nights at the hotel" is `nights = 7`, "a
hotel for 7 nights" is `hotel_nights = 7`, "220 laptops" is `laptops = 220`. The key comes from the
quantity's own subject in the same clause, never from the words that happen to stand next to
it; without a subject it falls back to what the unit measures (`amount`, `distance`). Dates,
times, years, versions ("Postgres 16") and ordinals are not quantities.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from sheriff_vault.text import CALENDAR, CHAT, STOPWORDS, finite_forms

_I = re.IGNORECASE
# "$" and "dollars" are the money of a dozen countries: stored as said, never as US dollars
_MONEY = {"$": "$", "€": "EUR", "£": "GBP", "usd": "USD", "dollar": "$", "dollars": "$", "bucks": "$",
          "eur": "EUR", "euro": "EUR", "euros": "EUR", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "chf": "CHF",
          "jpy": "JPY", "yen": "JPY"}
_MEASURES = {  # unit as written -> (unit as stored, what it measures)
    **{k: (v, "amount") for k, v in _MONEY.items()},
    "%": ("%", "share"), "percent": ("%", "share"),
    "km": ("km", "distance"), "kilometres": ("km", "distance"), "kilometers": ("km", "distance"),
    "mi": ("miles", "distance"), "miles": ("miles", "distance"), "mile": ("miles", "distance"),
    "m": ("m", "length"), "metres": ("m", "length"), "meters": ("m", "length"), "cm": ("cm", "length"),
    "kg": ("kg", "weight"), "kilos": ("kg", "weight"), "lbs": ("lbs", "weight"), "lb": ("lbs", "weight"),
    "g": ("g", "weight"), "ms": ("ms", "latency"), "milliseconds": ("ms", "latency"),
    "seconds": ("seconds", "duration"), "second": ("seconds", "duration"), "secs": ("seconds", "duration"),
    "minutes": ("minutes", "duration"), "minute": ("minutes", "duration"), "mins": ("minutes", "duration"),
    "hours": ("hours", "duration"), "hour": ("hours", "duration"), "hrs": ("hours", "duration"),
    "days": ("days", "duration"), "day": ("days", "duration"), "weeks": ("weeks", "duration"),
    "week": ("weeks", "duration"), "months": ("months", "duration"), "month": ("months", "duration"),
    "years": ("years", "duration"), "year": ("years", "duration"),
    "gb": ("GB", "size"), "mb": ("MB", "size"), "kb": ("KB", "size"), "tb": ("TB", "size"), "gib": ("GiB", "size"),
    "mib": ("MiB", "size"), "rps": ("rps", "rate"), "qps": ("qps", "rate"),
}
MULTIPLIERS = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
_NUM = re.compile(
    r"(?<![\w.,:/#-])(?P<cur>[$€£])?\s?(?P<v>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s?(?P<mult>{'|'.join(k for k in MULTIPLIERS if k != 'm')})\b)?(?![.,]?\d)(?!:\d)")  # "5 m" is metres
_ORDINAL_SUFFIXES = ("st", "nd", "rd", "th")
ORDINAL = "(?:" + "|".join(_ORDINAL_SUFFIXES) + ")"  # "3rd", "21st"
_AFTER = re.compile(r"\s?(?P<unit>%|[a-zA-Z€$£][\w-]*)")
# Words beyond the stop words that stand between a quantity and its subject ("the tanks COST 4,200",
# "rent WENT up to 1,340", "ROUGHLY 40"): verbs that link a thing to its amount (in the forms only a
# verb takes: text.finite_forms), and approximators.
_LINKING_VERBS = ("cost", "total", "come", "go", "rise")
_APPROXIMATE = frozenset("""around roughly approx approximately exactly nearly almost max maximum min minimum
per""".split())
# Verbs of saying and paying, and sentence adverbs, that stand before an amount without being what
# it is of ("she says 140", "we paid 80", "instead of 17,800").
_SAYING_PAYING = ("say", "pay", "spend", "earn", "buy")
_SENTENCE_ADVERBS = ("instead", "actually")
_BOUNDS = ("under", "below", "above")  # "under 40 minutes" is a bound, not a value
_PREP_BEFORE = re.compile(r"\b(?P<subj>[a-z][a-z-]{2,})\s+(?:for|of)\s*$", _I)
# Keys that name only what a unit measures ("amount", "duration"), not the thing: two such values
# are rarely one quantity (sleep's supersession and recall's current-before-history both ask).
GENERIC_KEYS = frozenset(m for _, m in _MEASURES.values()) | {"count"}
# what joins the two ends of a range ("3-5", "3 to 5 June", "Monday through Friday")
RANGE = r"(?:-|–|to|until|through)"
_RANGE_WORD = re.compile(rf"^\s*{RANGE}\s*\d")
_CLAUSE_END = re.compile(r"[.;:!?()]|,\s|\b(?:and|but|so|because|while|which)\b")


@dataclass(frozen=True)
class Quantity:
    key: str
    value: float | int
    unit: str
    measures: str = ""  # what the unit measures: amount, distance, duration, count...


def duration(word: str) -> bool:
    """A unit of time as people write it after a number ("weeks", "hrs")."""
    unit = _MEASURES.get(word.lower())
    return unit is not None and unit[1] == "duration"


def _chat(word: str) -> bool:
    return word in CHAT


def quantities_in(sent: str, talk: Callable[[str], bool] = _chat) -> list[Quantity]:
    """Every quantity in `sent` with a key that names what it measures. Sleep keys the numbers it
    remembers with it; recall uses it to tell which of two facts about one quantity is current.
    `talk`: the words of talk the caller reads (a feeling, a praise, a light verb), which never key
    a quantity ("the right one is 88 cm": not "right")."""
    found = []
    for m in _NUM.finditer(sent):
        value = _value(m)
        if value is None or sent[m.end():m.end() + 2].lower() in _ORDINAL_SUFFIXES or _not_a_quantity(sent, m):
            continue
        unit, measures, unit_end, count_noun = _unit_after(sent, m, talk)
        if not unit and m["cur"]:
            unit, measures = _MONEY[m["cur"]], "amount"
        key = _subject(sent[: m.start()], talk)
        if count_noun:
            prep = _PREP_BEFORE.search(sent[: m.start()])
            subj = prep["subj"].lower() if prep else ""
            key = f"{subj}_{count_noun}" if subj and _nounish(subj, talk) and subj not in _MEASURES else count_noun
            measures = "count"
        if not key:
            key = _subject_after(sent[unit_end:], talk) or measures
        if not key or (not unit and not count_noun and not _has_link(sent[: m.start()])):
            continue  # a bare number with no subject and no unit says nothing on its own
        found.append(Quantity(key[:40], value, unit, measures))
    return found


def _value(m: re.Match) -> float | int | None:
    try:
        value = float(m["v"].replace(",", ""))
    except ValueError:
        return None
    if m["mult"]:
        value *= MULTIPLIERS[m["mult"].lower()]
    return int(value) if float(value).is_integer() else value


def _not_a_quantity(sent: str, m: re.Match) -> bool:
    """Dates, times, years, versions ("Windows 11", "step 5") and ordinals are not quantities."""
    before, after = sent[: m.start()].rstrip(), sent[m.end():]
    words_after = after.strip().split()
    next_word = words_after[0].strip(".,;:!?)").lower() if words_after else ""
    prev_word = before.split()[-1].strip("(\"'") if before.split() else ""
    if next_word in CALENDAR or prev_word.lower() in CALENDAR or prev_word.lower() in ("the", "on") and \
            next_word in ("of",):
        return True
    if re.fullmatch(r"(?:19|20)\d\d", m["v"]) and not m["cur"] and next_word not in _MEASURES:
        return True
    if prev_word[:1].isupper() and prev_word.isalpha() and next_word not in _MEASURES and not m["cur"]:
        return True  # Postgres 16, Windows 11, Room 4
    if prev_word.lower() in _BOUNDS:
        return True
    return bool(_RANGE_WORD.match(after) and next_word in CALENDAR)


def _unit_after(sent: str, m: re.Match, talk: Callable[[str], bool]) -> tuple[str, str, int, str]:
    """(unit, what it measures, where the unit ends, count noun) for the words after the number."""
    rest = sent[m.end():]
    u = _AFTER.match(rest)
    if not u:
        return "", "", m.end(), ""
    word = u["unit"]
    low = word.lower().rstrip(".")
    end = m.end() + u.end()
    if low in _MEASURES:
        unit, measures = _MEASURES[low]
        return unit, measures, end, ""
    plural = low.endswith("s") and not low.endswith("ss")
    if low.isalpha() and len(low) > 2 and (plural or m["v"] == "1") and low not in STOPWORDS \
            and low not in CALENDAR and not word[:1].isupper() and (_nounish(low, talk) or talk(low)):
        return "", "", end, low
    return "", "", m.end(), ""


def _subject(left: str, talk: Callable[[str], bool]) -> str:
    """The noun phrase a value belongs to, from the words before it in its clause: "the long run is"
    -> long_run. Empty when the clause has none (a pronoun, a verb, a name). A word right before the
    number with no link between is its subject only as a noun would stand: after a function word
    (a determiner, a possessive, a preposition) or plural ("the shed 3,800", "gutters 900"), not a
    verb ("paid 400", "spent 400")."""
    clause = _CLAUSE_END.split(left)[-1]
    words = re.findall(r"[A-Za-z][\w'-]*", clause)
    sentence = re.split(r"[.!?:]\s+", left)[-1]
    opening = re.match(r"\W*([A-Za-z][\w'-]*)", sentence)  # a sentence's first word is capitalised, not a name
    first_word = opening.group(1) if opening and sentence.strip().startswith(opening.group(1)) else ""
    if first_word and re.search(rf"[a-z,] {re.escape(first_word)}\b", left):  # a name seen mid-sentence too
        first_word = ""
    linked = False
    while words and _links(words[-1].lower()):
        words.pop()
        linked = True
    picked: list[str] = []
    for k in range(len(words) - 1, -1, -1):
        w, low = words[k], words[k].lower()
        before = words[k - 1].lower() if k else ""
        name = w[:1].isupper() and w.isalpha() and not w.isupper() and w != first_word
        if _links(low) or "'" in low or low in CALENDAR or low in _MEASURES or not _nounish(low, talk, before) \
                or (name and picked == []):
            break
        if not picked and not linked and not (low.endswith("s") or before in STOPWORDS):
            break  # "paid 400": a verb, not what 400 is of
        picked.insert(0, low)
        if len(picked) == 2:
            break
    return "_".join(picked)


@functools.cache
def _linking() -> frozenset[str]:
    return _APPROXIMATE.union(*(finite_forms(v) for v in _LINKING_VERBS))


@functools.cache
def _not_subjects() -> frozenset[str]:
    return frozenset(_SENTENCE_ADVERBS).union(*(finite_forms(v) for v in _SAYING_PAYING))


@functools.cache
def _predicate() -> frozenset[str]:
    """What says a bare number of its subject: "be" in its finite forms, and "from", "to", "now"."""
    return finite_forms("be") | {"from", "to", "now"}


def _links(word: str) -> bool:
    return word in STOPWORDS or word in _linking() or word in _not_subjects()


def _subject_after(right: str, talk: Callable[[str], bool]) -> str:
    """"24 km long run" -> long_run: a noun phrase right after the unit, before any preposition."""
    words = re.findall(r"[A-Za-z][\w'-]*|[.,;:!?]", right)[:3]
    picked = []
    for w in words:
        low = w.lower()
        if not w[0].isalpha() or _links(low) or talk(low) or not _nounish(low, talk):
            break
        picked.append(low)
    return "_".join(picked) if len(picked) == 2 else ""  # one word after a unit is mostly an adjective


def _has_link(left: str) -> bool:
    words = left.split()
    return bool(words) and (words[-1].lower() in _linking() or words[-1].lower() in _predicate())


def _nounish(word: str, talk: Callable[[str], bool], before: str = "") -> bool:
    """Crude: adverbs and most past forms are not what a quantity is of; an -ing form is a noun
    after a function word ("the wedding budget"), a verb otherwise ("asking for 8,000")."""
    if word.endswith("ly") or talk(word):
        return False
    if word.endswith("ed") and len(word) > 4:
        return False
    return not word.endswith("ing") or before in STOPWORDS
