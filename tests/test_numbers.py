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
    ("This Saturday tempo run is 16 km at 4:50 pace.", [("tempo_run", 16, "km")]),
    ("The depot has 48 vans, not 44.", [("vans", 48, "")]),
    ("Tanks cost 4,200 EUR, the shed 3,800 EUR and gutters 900 EUR.",
     [("tanks", 4200, "EUR"), ("shed", 3800, "EUR"), ("gutters", 900, "EUR")]),
    ("Rent goes from 870 to 1,120.", [("rent", 870, ""), ("rent", 1120, "")]),
    ("We're applying for 6,500 EUR.", [("amount", 6500, "EUR")]),
    ("Home from a ride: 42 km steady, knees fine.", [("distance", 42, "km")]),
    ("9 guys are coming.", [("guys", 9, "")]),
    # "$" is the money of a dozen countries: kept as said; "USD" says which
    ("Pay $400 for the venue.", [("amount", 400, "$")]),
    ("The deposit is 300 USD.", [("deposit", 300, "USD")]),
])
def test_a_quantity_is_keyed_by_its_subject(sentence: str, expected: list):
    assert [(n.key, n.value, n.unit) for n in numbers_in(sentence, TURN, AT)] == expected


@pytest.mark.parametrize("sentence", [
    "Vienna, 11 October. aim is under 3:45", "Postgres 16 migration, step 5 is the rollback plan.",
    "Cutover on the 23rd at 18:00.", "Windows 11 rollout starts in 2026.",
])
def test_dates_times_versions_and_steps_are_no_quantities(sentence: str):
    assert numbers_in(sentence, TURN, AT) == []
