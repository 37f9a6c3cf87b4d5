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
from sheriff_vault.quantities import quantities_in

# Keys that name only a unit's dimension ("amount", "duration"): two of them are rarely one quantity.
_GENERIC = frozenset("amount share distance length weight latency duration size rate count".split())
_LEAD = re.compile(r'^[^:"]{1,60}(?:, asked "[^"]*")?:\s')  # "Lena: ", 'User, asked "…?": '


@functools.lru_cache(maxsize=65536)
def keyed_values(text: str) -> tuple[tuple[str, str], ...]:
    """(key, value with unit) for each specific quantity a fact states; cached, as recall asks
    about the same facts again and again."""
    if not any(ch.isdigit() for ch in text):
        return ()
    body = _LEAD.sub("", text, count=1)
    return tuple(dict.fromkeys((q.key, f"{q.value} {q.unit}".strip()) for q in quantities_in(body)
                               if q.key not in _GENERIC))


def replaced_by_date(docs: Iterable[Doc]) -> dict[str, str]:
    """doc_id -> the day of the newer fact that gave every quantity this one states another value.

    Only facts of one topic are compared (the caller passes one topic's items), only unmarked ones
    (a struck line is history already), and a fact stays current while any of its quantities
    is not replaced: "the party is on Saturday, budget 400 USD" keeps its day when only the budget
    moves on."""
    latest: dict[str, tuple[str, str, str]] = {}  # key -> (date, value, doc_id) of its newest statement
    stated: list[tuple[Doc, tuple[tuple[str, str], ...]]] = []
    for doc in sorted(docs, key=lambda d: (d.date, d.line)):
        if doc.superseded or not doc.date:
            continue
        pairs = keyed_values(doc.text)
        if not pairs:
            continue
        stated.append((doc, pairs))
        for key, value in pairs:
            latest[key] = (doc.date, value, doc.doc_id)
    out: dict[str, str] = {}
    for doc, pairs in stated:
        newer = [latest[key] for key, value in pairs
                 if latest[key][2] != doc.doc_id and latest[key][1] != value and latest[key][0][:10] > doc.date[:10]]
        if len(newer) == len(pairs):
            out[doc.doc_id] = max(date for date, _, _ in newer)[:10]
    return out
