"""Current before history, for facts sleep never marked: of two facts of one topic that give the
same quantity different values ("Budget is 400 USD", later "the budget went up to 500 USD"), the
newer is current and the older is history.

Sleep strikes a replaced value itself when the conversation says it changed (compaction/supersede.py);
this reads the same keys by date order, so topics written before those markers, by hand, or
without change language still answer "what is the budget now?" with the current value first.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from sheriff_vault.index.docs import Doc
from sheriff_vault.index.snapshot import Snapshot
from sheriff_vault.quantities import GENERIC_KEYS, quantities_in
from sheriff_vault.search_words import FILLER
from sheriff_vault.text import STOPWORDS

_DIGIT = re.compile(r"\d")
_WORDS = re.compile(r"[^\W_]+(?:[.,][^\W_]+)*")  # words and numbers as written ("4,000")
_LEAD = re.compile(r'^[^:"]{1,60}(?:, asked "[^"]*")?:\s')  # "Lena: ", 'User, asked "…?": '


@functools.lru_cache(maxsize=65536)
def keyed_values(text: str) -> tuple[tuple[str, str], ...]:
    """(key, value with unit) for each specific quantity a fact states; cached, as recall asks
    about the same facts again and again."""
    if not _DIGIT.search(text):
        return ()
    body = own_words(text)
    return tuple(dict.fromkeys((q.key, f"{q.value} {q.unit}".strip()) for q in quantities_in(body, FILLER.__contains__)
                               if q.key not in GENERIC_KEYS))


def own_words(text: str) -> str:
    """A fact's own words, without who said it and the question it answered ('Lena, asked "…": ')."""
    return _LEAD.sub("", text, count=1)


def restated(old: str, new: str) -> int:
    """How much of an old line a newer one says again in its own words: the words and numbers as
    written ("4,000") they share, stop words aside. Of the lines a correcting turn made, the one
    that restates the struck line most is the one that replaced it."""
    def words(text: str) -> set[str]:
        return set(_WORDS.findall(own_words(text).lower())) - STOPWORDS

    return len(words(old) & words(new))


def replaced_day(snap: Snapshot, doc: Doc, kinds: tuple[str, ...]) -> str:
    """The day a newer fact of the doc's topic replaced its value ("" if none): replaced_by_date
    over the topic's items of `kinds`, worked out once per snapshot and only for a topic whose
    fact in question states a quantity (recall weighs a hundred topics a question)."""
    if doc.superseded or not doc.date or not keyed_values(doc.text):
        return ""
    return _replaced_in(snap, doc.topic_path, kinds).get(doc.doc_id, "")


def _replaced_in(snap: Snapshot, path: str, kinds: tuple[str, ...]) -> dict[str, str]:
    memo = snap.memo.setdefault("replaced", {})
    found = memo.get(path)
    if found is None:
        found = memo[path] = replaced_by_date(d for d in snap.docs_of_topic.get(path, ()) if d.kind in kinds)
    return found


def replaced_by_date(docs: Iterable[Doc]) -> dict[str, str]:
    """doc_id -> the day of the newer fact that gave every quantity this one states another value.

    Only facts of one topic are compared (the caller passes one topic's items), only unmarked ones
    (a struck line is history already), and a fact stays current while any of its quantities
    is not replaced: "the party is on Saturday, budget 400 USD" keeps its day when only the budget
    moves on."""
    stated = [(doc, pairs) for doc in docs if not doc.superseded and doc.date and (pairs := keyed_values(doc.text))]
    if len(stated) < 2:
        return {}
    stated.sort(key=lambda s: (s[0].date, s[0].line))
    latest: dict[str, tuple[str, str, str]] = {}  # key -> (date, value, doc_id) of its newest statement
    for doc, pairs in stated:
        for key, value in pairs:
            latest[key] = (doc.date, value, doc.doc_id)
    out: dict[str, str] = {}
    for doc, pairs in stated:
        newer = [latest[key] for key, value in pairs
                 if latest[key][2] != doc.doc_id and latest[key][1] != value and latest[key][0][:10] > doc.date[:10]]
        if len(newer) == len(pairs):
            out[doc.doc_id] = max(date for date, _, _ in newer)[:10]
    return out
