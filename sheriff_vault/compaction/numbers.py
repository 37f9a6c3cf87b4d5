"""The quantities of a conversation's turns, as sleep remembers them: each with its turn, time,
speaker and how sure sleep is of it (a person's own number counts more than an echo of it).
The parsing itself is `sheriff_vault.quantities`, which recall uses too."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sheriff_vault.compaction.english.talk import is_talk
from sheriff_vault.quantities import quantities_in
from sheriff_vault.store.buffer import Turn


@dataclass
class NumberHit:
    key: str
    value: float | int
    unit: str
    at: dt.datetime
    source: str
    confidence: float
    turn: str
    measures: str = ""  # what the unit measures: amount, distance, duration, count...


def numbers_in(sent: str, turn: Turn, at: dt.datetime) -> list[NumberHit]:
    """Every quantity in `sent` with a key that names what it measures."""
    return [NumberHit(q.key, q.value, q.unit, at, turn.speaker, 0.8 if turn.role == "user" else 0.6, turn.id,
                      q.measures) for q in quantities_in(sent, is_talk)]
