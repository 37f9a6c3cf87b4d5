"""How recall shows a fact: the question it answered only when the answer alone is short, and of a
long fact the sentences sharing most words with the query, a corrected value first."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Set

from sheriff_vault.search_words import key_words
from sheriff_vault.text import BACK_REFERENCE, CORRECTION_LEAD, SPEAKER, sentences, stem, truncate

_CLAUSE = re.compile(r"(?<=[,;])\s+|\s+(?=(?:and|so|but|which|because|while|whereas)\s)")


def _with_continuations(sents: list[str]) -> list[str]:
    out: list[str] = []
    for sent in sents:
        if out and len(sent) <= 80 and BACK_REFERENCE.match(sent):
            out[-1] = f"{out[-1]} {sent}"
        else:
            out.append(sent)
    return out


def _hits(text: str, wanted: set[str]) -> int:
    return len(wanted & {stem(w) for w in key_words(text)})


# A value said to replace another ("It's 9 May now instead of 2 May", "27 metres, not 24"): the
# part of a fact a reader needs most, whatever else it shares with the question.
_NEW_VALUE = re.compile(r"\d[^.;]*\b(?:now|instead of|rather than|not \d)"
                        r"|\b(?:now|changed to|moved to|instead of)\b[^.;]*\d", re.I)


# an excerpt cut right after a number: the value it begins ("moved to Friday 9…") is not shown
_CUT_AT_NUMBER = re.compile(r"\d…$")


def _shown(shown: str, body: str, wanted: set[str]) -> tuple[int, int, int, int]:
    """How much of what was asked an excerpt shows: a replacing value first, whole (not cut after
    its number), then query words in it, then fewer of their uses cut."""
    uses = Counter(w for w in (stem(x) for x in key_words(body)) if w in wanted)
    seen = Counter(w for w in (stem(x) for x in key_words(shown)) if w in wanted)
    return len(_NEW_VALUE.findall(shown)), -bool(_CUT_AT_NUMBER.search(shown)), len(seen), -sum((uses - seen).values())


_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")  # a number whole: £2.15 is not £2.40 for opening on 2


def _pick(sents: list[str], wanted: set[str], room: int, new: Set[str] = frozenset(),
          old: Set[str] = frozenset()) -> str:
    """The pieces sharing most words with the query that fit in `room`, in their order, gaps as "…";
    first a piece that says a value replaced another, then one saying a `new` number (before one
    that also says an `old` one: "at £2.15 a jar," before "not the £1.90 you had"), then those
    saying most `new` names (the line it corrected said neither: a date moved, "now she sings
    Schubert"); the names of who and where around a new number are its reasons, not its value."""
    def rank(i: int) -> tuple[int, int, int, int, int, int]:
        sent = sents[i]
        numbers = set(_NUMBER.findall(sent)) if new or old else set()
        names = len(new & set(_NAME.findall(sent))) if new else 0
        return (-bool(_NEW_VALUE.search(sent)), -bool(new & numbers), bool(old & numbers), -names,
                -_hits(sent, wanted), i if len(sent) <= room else len(sents) + i)

    scored = sorted(range(len(sents)), key=rank)
    keep: list[int] = []
    size = 0
    for i in scored:
        if keep and (size + len(sents[i]) + 2 > room or not key_words(sents[i]) and not _NUMBER.search(sents[i])):
            continue  # nor a piece that says nothing ("Oh,"); "at £2.15 a jar," says its number
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


# a capitalised word that does not open a sentence: a name, as a reader would pick it out
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][\w-]+")


def said_values(text: str) -> frozenset[str]:
    """The numbers and names a line says, as `new_values` and `excerpt` compare them."""
    return frozenset(_NUMBER.findall(text)) | frozenset(_NAME.findall(text))


def new_values(text: str, replaced: str, query: str = "") -> frozenset[str]:
    """The numbers and names a correcting line says that the line it replaced did not, nor the
    question: where its new value is ("Now she sings Schubert.", "shifted it to 15 May")."""
    query_words = frozenset(re.findall(r"[\w-]+", query)) | frozenset(_NUMBER.findall(query))
    return said_values(text) - said_values(replaced) - query_words


def excerpt(text: str, query: str, limit: int = 150, keep_question: int = 40, new: Set[str] = frozenset(),
            old: Set[str] = frozenset()) -> str:
    """A fact as recall shows it: the question it answered only when the answer alone is short, and
    of a long fact only the sentences sharing most words with the query (original order kept), after
    the corrected value it opens with, if any (correction_lead); `new`: numbers to show first (a
    correction's new value, `new_values`); `old`: the values of the line it replaced, shown last."""
    m = SPEAKER.match(text)
    head, body = (text[: m.end() - 2], text[m.end():]) if m else ("", text)
    if m:
        asked = m.group("asked")
        head = m.group("who") + (f', asked "{asked}"' if asked and len(body) < keep_question else "")
    if len(head) + len(body) + 2 <= limit:
        return f"{head}: {body}" if head else body
    lead = CORRECTION_LEAD.match(body)
    if lead and len(head) + lead.end() + 40 <= limit:
        rest = excerpt(body[lead.end():], query, limit - len(head) - 2 - lead.end(), keep_question, new, old)
        return f"{head}: {lead.group(0)}{rest}" if head else f"{lead.group(0)}{rest}"
    wanted = {stem(w) for w in key_words(query)}
    room = limit - len(head) - 2
    whole = _with_continuations(sentences(body) or [body])
    out = _pick(whole, wanted, room, new, old)
    if any(len(sent) > room for sent in whole):
        # a sentence too long to show whole may be cut at its clauses ("..., so we have 47 jobs in
        # total"), when that shows more of what was asked than its first words do
        clauses = _pick([part for sent in whole for part in _CLAUSE.split(sent) if part], wanted, room, new, old)
        if _shown(clauses, body, wanted) > _shown(out, body, wanted):
            out = clauses
    return f"{head}: {out}" if head else out
