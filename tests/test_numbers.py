"""Quantities keyed by what they measure (compaction/numbers.py), never by the words beside them."""
from __future__ import annotations

import datetime as dt

import pytest

from sheriff_vault.compaction.numbers import numbers_in
from sheriff_vault.store.buffer import Turn

TURN = Turn("user", "", None, "t1", "Sam")
AT = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)


@pytest.mark.parametrize("sentence,expected", [
    ("The budget is 4000 EUR.", [("budget", 4000, "EUR")]),
    ("Budget now 4,500 euros.", [("budget", 4500, "EUR")]),
    ("The party is at 3pm. Budget is 400 USD.", [("budget", 400, "USD")]),  # a sentence's first word
    ("I met Anna. Anna is 34 years old.", [("duration", 34, "years")]),  # a name, seen mid-sentence too
    ("We booked the hotel for 7 nights in Shinjuku.", [("hotel_nights", 7, "")]),
    ("This Sunday long run is 24 km at 5:40 pace.", [("long_run", 24, "km")]),
    ("The fleet is 236 laptops, not 220.", [("laptops", 236, "")]),
    ("Tanks cost 4,200 EUR, the shed 3,800 EUR and gutters 900 EUR.",
     [("tanks", 4200, "EUR"), ("shed", 3800, "EUR"), ("gutters", 900, "EUR")]),
    ("Rent goes from 980 to 1,340.", [("rent", 980, ""), ("rent", 1340, "")]),
    ("We're asking for 8,000 EUR.", [("amount", 8000, "EUR")]),
    ("Just back from a run: 14 km easy, legs ok.", [("distance", 14, "km")]),
    ("9 guys are coming.", [("guys", 9, "")]),
    ("Pay $400 for the venue.", [("amount", 400, "USD")]),
])
def test_a_quantity_is_keyed_by_its_subject(sentence: str, expected: list):
    assert [(n.key, n.value, n.unit) for n in numbers_in(sentence, TURN, AT)] == expected


@pytest.mark.parametrize("sentence", [
    "Berlin, 27 September. goal is sub 3:30", "Postgres 16 migration, step 5 is the rollback plan.",
    "Cutover on the 23rd at 18:00.", "Windows 11 rollout starts in 2026.",
])
def test_dates_times_versions_and_steps_are_no_quantities(sentence: str):
    assert numbers_in(sentence, TURN, AT) == []
