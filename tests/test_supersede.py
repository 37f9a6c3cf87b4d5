"""Corrections supersede (compaction/supersede.py): the newer value is current, the older one is
struck through with the day it was replaced; a value that only looks alike is left alone."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from sheriff_vault.compaction.parts import Unit
from sheriff_vault.compaction.supersede import supersede
from sheriff_vault.compaction.units import make_units
from sheriff_vault.compaction.values import current_first, value_pairs
from sheriff_vault.store.buffer import Turn
from sheriff_vault.store.items import Citation, Item
from sheriff_vault.store.topics import Topic, new_topic

T0 = dt.datetime(2026, 3, 9, 9, 0, tzinfo=dt.UTC)
CONV = "conversations/2026/03/09/090000-a.md"


@pytest.mark.parametrize("text,pairs", [
    ("The corrected quote is 21,900, not 18,400.", [("21,900", "18,400")]),
    ("Pickup day is 9 August instead of 2 August.", [("9 August", "2 August")]),
    ("Shed: not sage green but dark blue, the green looked grey.", [("dark blue", "sage green")]),
    ("They moved the cutover from 21 March to 28 March.", [("28 March", "21 March")]),
    ("She's called Luna now, not Pepa.", [("Luna", "Pepa")]),  # the name, not the verb before it
    ("Reverse replication from 16 to 12 at cutover.", []),  # a direction, not a change
    ("We're asking for 6,500 EUR.", []),
    # a sentence's full stop is not part of its number, and "the" is no value every line mentions
    ("Checked it twice with a long 50 m tape instead of my old folding rule, and it's actually 14 metres, "
     "not 12. The shed hid a corner.", [("14 metres", "12")]),
    # "per crate" belongs to the price; "per crate, not 11" is no reading of it
    ("The new rate is actually 12.60 per crate, not 11.90, they left out the levy.", [("12.60 per crate", "11.90")]),
    ("Correction: the drive to the depot is 31 km each way, not 26 km.", [("31 km", "26 km")]),
    ("so the ferry now leaves on 5 June instead of 6 June, same hour.", [("5 June", "6 June")]),
    # "no longer" names the old value, whoever says it
    ("Confirmed: 15 January 2027, no longer 18 December 2026.", [("15 January 2027", "18 December 2026")]),
    ("The dose is 50 mg, no longer 25 mg.", [("50 mg", "25 mg")]),
    ("It is no longer a problem.", []),
    # "at X ... instead of Y": the new place is the object of a preposition before the cue, whole
    ("The reunion is now at the Boathouse in Kelso instead of the Station Inn, same time.",
     [("Boathouse", "Station Inn")]),
    # fronted, the displaced value comes first and the one that holds follows in its clause
    ("So instead of 640 EUR the repair came to 585 EUR with the discount.", [("585 EUR", "640 EUR")]),
    ("Rather than Friday 3 May, we meet on Monday 6 May.", [("Monday 6 May", "Friday 3 May")]),
    ("Instead of waiting for the van, she rang at 5 pm.", []),
    ("He said that instead of 20 chairs we can borrow benches.", []),
    # a point or a comma inside a number ends no clause
    ("The rent went up from 1,200 EUR to 1,450 EUR.", [("1,450 EUR", "1,200 EUR")]),
    ("The price is not 12.50 but 14.00.", [("14.00", "12.50")]),
    ("We moved from Leeds, to York.", []),
    # an article and words that only describe a value stand before it, not instead of it
    ("It is 50 EUR now, not the original 40 EUR.", [("50 EUR", "40 EUR")]),
    ("They raised the fee from the usual 30 EUR to 45 EUR.", [("45 EUR", "30 EUR")]),
    ("They raised the fee from the village hall to 45 EUR.", []),
    # a code of digits and letters names a thing (a plot, a gate, a flight), whatever its tag
    ("Our plot is 73B, not 37B.", [("73B", "37B")]),
    ("The gate changed to B12, not B21.", [("B12", "B21")]),
    # a name or a code said alone, then a sentence that opens on its negated rival
    ("4A!\nNot 18C.\nI had the numbers backwards.", [("4A", "18C")]),
    ("Tuesday! Not Monday.", [("Tuesday", "Monday")]),
    ("Thanks! Not today.", []),
    ("Great. Not bad at all.", []),
    ("Sarah said yes. Not John.", []),
])
def test_value_pairs_read_what_a_sentence_says_changed(text: str, pairs: list):
    assert value_pairs(text) == pairs


@pytest.mark.parametrize("text,reworded", [
    ("Not sage green but dark blue, the green looked grey.", "Dark blue, not sage green, the green looked grey."),
    ("the cutover moved from 21 March to 28 March", "the cutover moved to 28 March (from 21 March)"),
    ("they raised the fee from the usual 30 EUR to 45 EUR", "they raised the fee to 45 EUR (from the usual 30 EUR)"),
    ("The depot has 48 vans, not 44.", "The depot has 48 vans, not 44."),
    # a fronted contrast says the old value first: the line opens on the one that holds
    ("Assistant: So instead of 640 EUR the repair came to 585 EUR.",
     "Assistant: 585 EUR, not 640 EUR: So instead of 640 EUR the repair came to 585 EUR."),
])
def test_a_correction_is_worded_current_value_first(text: str, reworded: str):
    assert current_first(text) == reworded


def topic_with(tmp_path: Path, *facts: tuple[str, str, dt.datetime]) -> Topic:
    topic = new_topic(tmp_path / "t.md", "Japan trip", now=T0)
    for turn_id, text, at in facts:
        topic.add_item(Item("fact", text, at.strftime("%Y-%m-%d"), (Citation(CONV, (turn_id,)),)))
    return topic


def units_of(turn_id: str, text: str, at: dt.datetime) -> list:
    return make_units([Turn("user", text, at, turn_id, "Lena")], "UTC", set())


def said_later(topic: Topic, turn_id: str, text: str, at: dt.datetime, day: str) -> list:
    """Lena's line `text` added to the topic as a later sleep writes it, and what it strikes."""
    topic.add_item(Item("fact", f"Lena: {text}", at.strftime("%Y-%m-%d"), (Citation(CONV, (turn_id,)),)))
    return supersede(topic, units_of(turn_id, text, at), day)


def test_an_explicit_correction_strikes_the_old_fact_with_the_day(tmp_path: Path):
    later = T0 + dt.timedelta(days=2)
    new = "Budget is 4500 EUR now, not 4000."
    topic = topic_with(tmp_path, ("t1", "Lena: Total budget is 4000 EUR for everything.", T0),
                       ("t2", "Lena: Flights cost 1,100 EUR.", T0), ("t9", f"Lena: {new}", later))
    struck = supersede(topic, units_of("t9", new, later), "2026-03-11")
    assert [text for text, _ in struck] == ["Lena: Total budget is 4000 EUR for everything."]
    lines = topic.body.text.splitlines()
    assert "- 2026-03-09 — ~~Lena: Total budget is 4000 EUR for everything.~~ (superseded 2026-03-11 by t9) " \
           f"[t1](../{CONV})" in lines
    assert [i.superseded for i in topic.facts] == ["2026-03-11", "", ""]
    assert [i.superseded_by for i in topic.facts] == ["t9", "", ""]


@pytest.mark.parametrize("text,times", [
    ("The clinic pushed it back to 16:10.", [(16.0, 10.0)]),
    ("Dinner at 7pm on Friday.", [(19.0, 0.0)]),
    ("Doors open at 7.30 pm.", [(19.0, 30.0)]),
    ("The check-in is at 9:15am.", [(9.0, 15.0)]),
    ("Lunch is at 12 p.m. sharp.", [(12.0, 0.0)]),
    # counter-examples: an amount with a decimal point, a count, a score
    ("It costs 12.40 per bag.", []),
    ("We need 12 chairs.", []),
    ("It ended 25:61 on the board.", []),
])
def test_a_time_of_day_is_a_value_of_its_own(text: str, times: list):
    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import values

    assert [v.norm for v in values(nlp.parse_one(text)) if v.kind == "time"] == times


@pytest.mark.parametrize("old,new,struck", [
    # a time moved, its clause naming nothing: the one time of the line about the same thing
    ("Booked: dentist check-up, Monday 16 March at 08:40.", "Call from the dentist, they pushed us back to 16:10.",
     True),
    # a date offered instead, for the one date still ahead on a line about the same thing (the day it
    # was said is no date it leaves)
    ("Letter from the clinic this week (week of 2 March 2026): the knee scan is booked for 20 May 2026.",
     "The clinic rang this morning (12 March 2026 morning) with a gap: they can fit me in on Thursday "
     "23 April 2026 instead.", True),
    # counter-examples: two times on the line (which one moved?); no word shared (another thing)
    ("Train tickets: out at 07:05 on the 4th, back at 18:30 on the 9th.", "Train update: they moved us to 09:20.",
     False),
    ("Booked: car service, Monday 16 March at 08:40.", "Call from the dentist, they pushed us back to 16:10.",
     False),
])
def test_a_value_whose_clause_names_nothing_replaces_the_one_value_of_its_kind(tmp_path: Path, old: str, new: str,
                                                                                 struck: bool):
    later = T0 + dt.timedelta(days=3)
    topic = topic_with(tmp_path, ("t1", f"Lena: {old}", T0), ("t9", f"Lena: {new}", later))
    assert bool(supersede(topic, units_of("t9", new, later), "2026-03-12")) is struck


def test_a_long_number_named_as_replaced_strikes_its_line_whatever_the_words(tmp_path: Path):
    """"$11,200 now, not 11,650" corrects "our bid of 11,650 was accepted" though the two share no
    other word; a short number needs a shared word ("3" could be anything)."""
    later = T0 + dt.timedelta(days=1)
    new = "Dealer phoned: the clutch is worn, so it's $11,200 now, not 11,650."
    topic = topic_with(tmp_path, ("t1", "Aroha: Our bid of 11,650 was accepted!! Deposit paid.", T0),
                       ("t2", "Aroha: Insurance is 980 a year.", T0), ("t3", "Aroha: Tyres are from 2017.", T0),
                       ("t4", "Aroha: Pick-up is at 3 on Saturday.", T0), ("t9", f"Aroha: {new}", later))
    struck = supersede(topic, units_of("t9", new, later), "2026-03-10")
    assert [text for text, _ in struck] == ["Aroha: Our bid of 11,650 was accepted!!"]


def test_a_date_that_moves_to_another_strikes_the_old_date_of_the_same_thing(tmp_path: Path):
    later = T0 + dt.timedelta(days=2)
    new = "The vicar wrote: St Anne's has a wedding that day, so the autumn recital moves to Sunday 11 October."
    topic = topic_with(tmp_path, ("t1", "Aroha: Our autumn recital is on Sunday 4 October at St Anne's.", T0),
                       ("t2", "Aroha: The dress rehearsal at the school hall is on 27 September.", T0),
                       ("t9", f"Aroha: {new}", later))
    struck = supersede(topic, units_of("t9", new, later), "2026-03-11")
    assert [text for text, _ in struck] == ["Aroha: Our autumn recital is on Sunday 4 October at St Anne's."]


def test_a_date_named_as_replaced_strikes_it_however_the_old_line_wrote_it(tmp_path: Path):
    """"from Saturday 7 November to Saturday 14 November" names the old date; the line that gave it
    wrote "Sat 7 November 2026" among other things, and is struck all the same. A date that only
    shares the day of the month is not the one named."""
    later = T0 + dt.timedelta(days=20)
    new = "So the hall is free again and the recital moves from Saturday 7 November to Saturday 14 November."
    topic = topic_with(tmp_path, ("t1", "Aroha: Two jobs this term, first the recital, Sat 7 November 2026, "
                                  "twelve pupils.", T0),
                       ("t2", "Aroha: The piano tuner comes on Thursday 7 May.", T0), ("t9", f"Aroha: {new}", later))
    struck = supersede(topic, units_of("t9", new, later), "2026-03-29")
    assert [text for text, _ in struck] == ["Aroha: Two jobs this term, first the recital, Sat 7 November 2026, "
                                            "twelve pupils."]


def test_the_same_quantity_with_change_language_supersedes_without_saying_not(tmp_path: Path):
    later = T0 + dt.timedelta(days=1)
    topic = topic_with(tmp_path, ("t1", "Lena: The hotel is 6 nights in Shinjuku.", T0),
                       ("t5", "Lena: We changed it, the hotel is 7 nights now.", later))
    struck = supersede(topic, units_of("t5", "We changed it, the hotel is 7 nights now.", later), "2026-03-10")
    assert [text for text, _ in struck] == ["Lena: The hotel is 6 nights in Shinjuku."]


def test_a_different_value_of_another_thing_is_left_alone(tmp_path: Path):
    later = T0 + dt.timedelta(days=1)
    topic = topic_with(tmp_path, ("t1", "Lena: The hotel is 6 nights in Shinjuku.", T0),
                       ("t5", "Lena: Kyoto gets 4 nights.", later))
    assert supersede(topic, units_of("t5", "Kyoto gets 4 nights.", later), "2026-03-10") == []
    assert not any(i.superseded for i in topic.facts)


def test_a_new_number_marks_the_old_one_superseded_in_numbers(tmp_path: Path):
    topic = new_topic(tmp_path / "t.md", "Japan trip", now=T0)
    topic.add_number("budget", 4000, "EUR", T0, "Lena", 0.8)
    topic.add_number("budget", 4500, "EUR", T0 + dt.timedelta(days=2), "Lena", 0.8)
    assert [(n["value"], n.get("superseded")) for n in topic.numbers] == [(4000, "2026-03-11"), (4500, None)]


def test_amounts_keyed_only_by_what_they_measure_stand_beside_each_other_in_numbers(tmp_path: Path):
    """"amount" names no one thing: a hall's hire and a cake's price are two amounts, and neither
    supersedes the other; the same amount said again is not written twice."""
    topic = new_topic(tmp_path / "t.md", "Party", now=T0)
    assert topic.add_number("amount", 400, "EUR", T0, "Lena", 0.8, replaces=False)
    assert topic.add_number("amount", 35, "EUR", T0 + dt.timedelta(days=1), "Lena", 0.8, replaces=False)
    assert not topic.add_number("amount", 400, "EUR", T0 + dt.timedelta(days=2), "Lena", 0.8, replaces=False)
    assert [(n["value"], n.get("superseded")) for n in topic.numbers] == [(400, None), (35, None)]
    # a key that names its thing still replaces
    assert topic.add_number("budget", 4000, "EUR", T0, "Lena", 0.8)
    assert topic.add_number("budget", 4500, "EUR", T0 + dt.timedelta(days=2), "Lena", 0.8)
    assert [n.get("superseded") for n in topic.numbers if n["key"] == "budget"] == ["2026-03-11", None]


def test_a_correction_strikes_only_the_sentence_it_corrects(tmp_path: Path):
    later = T0 + dt.timedelta(days=3)
    new = "Back to the trip: the budget went up to 4500 EUR because we added Kyoto."
    topic = topic_with(tmp_path, ("t1", "Lena: We fly on 4 April from Munich. Budget is 4000 EUR.", T0),
                       ("t9", f"Lena: {new}", later))
    struck = supersede(topic, units_of("t9", new, later), "2026-03-12")
    assert [text for text, _ in struck] == ["Lena: Budget is 4000 EUR."]
    assert [(i.text, i.superseded) for i in topic.facts] == [
        ("Lena: We fly on 4 April from Munich.", ""), ("Lena: Budget is 4000 EUR.", "2026-03-12"), (f"Lena: {new}", "")]
    assert all(i.citations == (Citation(CONV, ("t1",)),) for i in topic.facts[:2])
    assert [i.date for i in topic.facts[:2]] == ["2026-03-09", "2026-03-09"]


@pytest.mark.parametrize("old,new", [
    # a status update is no correction: "Deck update:" names no value it replaces
    ("Lena: Tomas is a carpenter and offered to lay the deck on a Sunday for 450 EUR labour.",
     "Deck update: we ordered 22 oak boards, 1,380 EUR with delivery. Tomas will lay it on Sunday 17 May."),
    # "now" in one sentence does not make the next sentence's number a new value of an old one
    ("Lena: Cleaning done: 418 repeated rows removed, kept the newest entry. 23,114 rows remain.",
     "Postcodes: trimmed, all five digits now. 52 rows had broken postcodes, marked as missing."),
    # a moved date replaces the date of the same thing, not any dated fact sharing a word
    ("Lena: The campus hotel has a room for him, 3-15 May 2026, 45 EUR a night.",
     "He has to shift his lecture, so the seminar lecture is on Friday 8 May now, same hour, same hall."),
    # "the" is no old value ("a long tape instead of my old rule")
    ("Lena: The neighbours said yes and will pay half of it.",
     "Checked it twice with a long 50 m tape instead of my old folding rule, and it's 14 metres, not 12."),
])
def test_what_is_not_a_correction_of_a_line_leaves_it_current(tmp_path: Path, old: str, new: str):
    later = T0 + dt.timedelta(days=2)
    topic = topic_with(tmp_path, ("t1", old, T0), ("t9", f"Lena: {new}", later))
    assert supersede(topic, units_of("t9", new, later), "2026-03-11") == []
    assert not any(i.superseded for i in topic.facts)


def test_a_moved_talk_strikes_the_talk_and_not_the_room(tmp_path: Path):
    later = T0 + dt.timedelta(days=2)
    new = "He has to shift his lecture, so the seminar lecture is on Friday 8 May now, same hour, same hall."
    talk = "Lena: He gives a lecture in our seminar on Wednesday 6 May 2026 at 14:00."
    topic = topic_with(tmp_path, ("t1", talk, T0),
                       ("t2", "Lena: The campus hotel has a room for him, 3-15 May 2026.", T0),
                       ("t9", f"Lena: {new}", later))
    struck = supersede(topic, units_of("t9", new, later), "2026-03-11")
    assert [text for text, _ in struck] == [talk]


def test_a_corrected_distance_strikes_the_sentence_that_gave_it(tmp_path: Path):
    """"the drive to the depot is 31 km each way, not 26 km" shares no word with "the warehouse in
    Hagen is 26 km from home" but the value with its unit; the days on site said in the same line stay."""
    later = T0 + dt.timedelta(days=1)
    new = "Correction: the drive to the depot is 31 km each way, not 26 km."
    topic = topic_with(tmp_path, ("t7", "Tomasz: I was on site 140 days last year. The warehouse in Hagen is 26 km "
                                  "from home", T0),
                       ("t2", "Tomasz: I bought a monitor for 329 EUR.", T0),
                       ("t3", "Tomasz: Deadline is 31 July.", T0),
                       ("t4", "Tomasz: Office days were 71.", T0), ("t23", f"Tomasz: {new}", later))
    struck = supersede(topic, units_of("t23", new, later), "2026-03-10")
    assert [text for text, _ in struck] == ["Tomasz: The warehouse in Hagen is 26 km from home"]


def test_a_confirmation_naming_the_old_value_never_strikes_the_new_one(tmp_path: Path):
    """The person says the new date; the assistant confirms "X, no longer Y": the person's line
    stays current, only a line holding Y is struck."""
    later = T0 + dt.timedelta(days=3)
    confirm = "Confirmed: the flight is on 15 January 2027 now, no longer 18 December 2026."
    topic = topic_with(tmp_path, ("t1", "Lena: The flight is on 18 December 2026.", T0),
                       ("t5", "Lena: They moved the flight, it is on 15 January 2027.", later),
                       ("t6", f"Assistant: {confirm}", later))
    units = make_units([Turn("assistant", confirm, later, "t6")], "UTC", set())
    struck = supersede(topic, units, "2026-03-12")
    assert [text for text, _ in struck] == ["Lena: The flight is on 18 December 2026."]
    assert [i.superseded for i in topic.facts] == ["2026-03-12", "", ""]
    again = supersede(topic, units, "2026-03-12")  # the old line is struck already: nothing else goes
    assert again == [] and [i.superseded for i in topic.facts] == ["2026-03-12", "", ""]


@pytest.mark.parametrize("text,pairs", [
    # a name contrasted: the negated term hangs on the asserted one, or stands in its role
    ("The doctor put her on naproxen instead of aspirin.", [("naproxen", "aspirin")]),
    ("We use Vue instead of React for the front end.", [("Vue", "React")]),
    ("I booked the Hotel Lux rather than the hostel.", [("Hotel Lux", "hostel")]),
    ("The venue is the Crown, not the Swan.", [("Crown", "Swan")]),
    # "from Y to X" with a verb of change the tagger read as a noun (no other verb in the sentence)
    ("The school play moves from Friday 8 May to Friday 15 May.", [("Friday 15 May", "Friday 8 May")]),
])
def test_value_pairs_read_names_and_moves_from_the_parse(text: str, pairs: list):
    assert value_pairs(text) == pairs


def test_a_value_and_its_slot_come_from_the_parse():
    """The noun a number counts, or the subject of the clause whose predicate holds it."""
    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import values

    [count] = values(nlp.parse_one("The guest count went up to 32."))
    assert (count.norm, count.slot) == ((32.0,), frozenset({"guest", "count"}))
    [chairs] = values(nlp.parse_one("We need 12 chairs."))
    assert chairs.counted == "chair"
    [quote] = values(nlp.parse_one("The removal firm quoted 1,900 EUR in total."))
    assert "quote" in quote.slot and not quote.counted  # a currency is no counted noun


def test_an_amount_is_the_value_of_the_noun_it_stands_before_and_may_be_abbreviated():
    """"the £500 deposit" is the deposit's amount, not a count of deposits; "88k" is 88,000 (the
    tokenizer keeps the suffix on the number, and tags it a noun); "5 m" stays metres."""
    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import values

    [deposit] = values(nlp.parse_one("We paid the £500 deposit."))
    assert (deposit.norm, deposit.counted) == ((500.0,), "") and "deposit" in deposit.slot
    [band] = values(nlp.parse_one("The top of the band is 88k now."))
    assert band.norm == (88000.0,) and "top" in band.slot and "88k" not in band.slot
    [run] = values(nlp.parse_one("Sunday is a 5k run."))
    assert run.norm == (5000.0,) and run.counted == "run"
    [cable] = values(nlp.parse_one("Order 2 m of cable."))
    assert cable.norm == (2.0,)


def test_a_new_amount_for_what_an_older_amount_stood_before_strikes_it(tmp_path: Path):
    later = T0 + dt.timedelta(days=3)
    topic = topic_with(tmp_path, ("t1", "Lena: We paid the £500 deposit for the flat.", T0),
                       ("t2", "Lena: Ravi asked 60k, which is £4k over the £56k cap on the budget.", T0))
    said_later(topic, "t9", "The deposit is now £550, the landlord added the garage.", later, "2026-03-12")
    said_later(topic, "t10", "Finance agreed: the cap is 62k now.", later, "2026-03-12")
    struck = [i.text for i in topic.facts if i.superseded]
    assert struck == ["Lena: We paid the £500 deposit for the flat.",
                      "Lena: Ravi asked 60k, which is £4k over the £56k cap on the budget."]


def test_a_noun_the_sentence_denies_is_not_what_a_new_amount_counts(tmp_path: Path):
    """"I pay only 1,150 and not the earlier sum": the parser hangs the number on "sum", which
    the sentence denies (it stands for the old value); the amount names no slot of its own, and
    replaces the one amount the older line about the rent gave."""
    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import values

    [new] = values(nlp.parse_one("Now I pay only 1,150 and not the earlier sum, my flatmate pays the rest."))
    assert new.norm == (1150.0,) and "sum" not in new.slot and new.counted != "sum"
    [old] = values(nlp.parse_one("We pay 450 now, not the old price."))
    assert "price" in old.slot  # denied is the verb here, not the noun
    later = T0 + dt.timedelta(days=9)
    topic = topic_with(tmp_path, ("t1", "Lena: I need to pay the rent for the flat, 1,300 euro.", T0),
                       ("t2", "Lena: The flat has a balcony and two bedrooms.", T0))
    said_later(topic, "t9", "Now I pay only 1,150 and not the earlier sum, my flatmate pays the rest of the rent.",
               later, "2026-03-12")
    assert [i.text for i in topic.facts if i.superseded] == ["Lena: I need to pay the rent for the flat, 1,300 euro."]


def test_an_indirect_date_correction_strikes_the_date_it_names(tmp_path: Path):
    """"the hall is taken on the 19th, so we sing on 26 April now": the clause names no slot, but
    the sentence names the old date with the new one, days after the first was said."""
    later = T0 + dt.timedelta(days=7)
    new = "About the choir thing: the hall is taken on the 19th, so we sing on 26 April now."
    topic = topic_with(tmp_path, ("t1", "Lena: The choir concert is in the town hall on Sunday 19 April.", T0),
                       ("t2", "Lena: The dress rehearsal is on 12 April.", T0), ("t9", f"Lena: {new}", later))
    struck = supersede(topic, units_of("t9", new, later), "2026-03-16")
    assert [text for text, _ in struck] == ["Lena: The choir concert is in the town hall on Sunday 19 April."]


def test_change_language_must_stand_in_the_values_own_clause(tmp_path: Path):
    """"toe drops" read as a verb of change in one sentence does not make the next sentence's
    count a new value; a count of boxes is no new value of a quote in euros."""
    later = T0 + dt.timedelta(days=2)
    topic = topic_with(tmp_path, ("t1", "Lena: The band plays two sets of 45 minutes, 3 sets at most.", T0),
                       ("t2", "Lena: The removal firm quoted 1,900 EUR in total.", T0))
    for i, new in enumerate(["Physio is toe drops off a stair. 3 sets of 12, twice a day.",
                             "The removal firm drops off 40 boxes on Thursday."]):
        assert said_later(topic, f"t{9 + i}", new, later, "2026-03-11") == []


def test_a_count_confirmed_by_the_assistant_with_its_noun_strikes_the_old_count(tmp_path: Path):
    """"so we're at 38" names no slot; the assistant's "Down to 38 chairs" folded on the line does."""
    later = T0 + dt.timedelta(days=5)
    line = "Lena: Two of them broke. So we're at 38. (Assistant: Down to 38 chairs, after the two broken ones.)"
    topic = topic_with(tmp_path, ("t1", "Lena: 40 chairs for the recital, and the programme runs 90 minutes.", T0),
                       ("t9", line, later))
    unit = Unit(Turn("user", "Two of them broke. So we're at 38.", later, "t9", "Lena"), 0,
                "Two of them broke. So we're at 38.", fact=line, at=later)
    struck = supersede(topic, [unit], "2026-03-14")
    assert [text for text, _ in struck] == ["Lena: 40 chairs for the recital, and the programme runs 90 minutes."]


def test_a_line_naming_the_old_value_first_opens_with_the_current_one():
    line = "Lena: The vet stopped the old kibble as it upset his gut, and he eats the fish kibble now."
    assert current_first(line, [("fish kibble", "old kibble")]) == "Lena: Fish kibble, not old kibble: " + line[6:]
    dated = "Lena: The hall is taken on the 19th (19 April 2026), so we sing on 26 April 2026 now."
    assert current_first(dated, [("26 April", "19 April")]).startswith("Lena: 26 April, not 19 April: ")
    assert current_first("Lena: It is 26 April now, not 19 April.", [("26 April", "19 April")]) == \
        "Lena: It is 26 April now, not 19 April."


@pytest.mark.parametrize("role,name", [("user", "Lena"), ("assistant", "")])
def test_x_no_longer_y_keeps_x_current_whoever_says_it(tmp_path: Path, role: str, name: str):
    """The person or the assistant says "X, no longer Y" in one line: that line stays current and
    only the line that held Y is struck."""
    later = T0 + dt.timedelta(days=3)
    said = "The flight is on 15 January 2027 now, no longer 18 December 2026."
    speaker = name or "Assistant"
    topic = topic_with(tmp_path, ("t1", "Lena: The flight is on 18 December 2026.", T0),
                       ("t5", f"{speaker}: {said}", later))
    struck = supersede(topic, make_units([Turn(role, said, later, "t5", name)], "UTC", set()), "2026-03-12")
    assert [text for text, _ in struck] == ["Lena: The flight is on 18 December 2026."]
    assert [(i.text, i.superseded) for i in topic.facts] == [
        ("Lena: The flight is on 18 December 2026.", "2026-03-12"), (f"{speaker}: {said}", "")]



def test_a_verbless_fragment_has_values_and_slots():
    """A note without a verb ("Dentist: 3 May, 40 EUR.") is read to its root, not past it."""
    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import values

    said = values(nlp.parse_one("Dentist: 3 May, 40 EUR."))
    assert [v.norm for v in said] == [(3.0, 5.0), (40.0,)]
    assert value_pairs("Only the big one, not the small one.") is not None


def test_a_correction_folded_into_an_earlier_line_still_strikes_what_that_turn_said_after_it(tmp_path: Path):
    """The assistant's "that's 24 helpers, not 20" is folded as an echo into the first line of the
    person's turn before it; the same turn's later line giving 20 is older than the correction."""
    day = T0.strftime("%Y-%m-%d")
    topic = new_topic(tmp_path / "t.md", "Stall rota", now=T0)
    topic.add_item(Item("fact", "Lena: Both shops said yes. (Assistant: 24 helpers, then.)", day,
                        (Citation(CONV, ("t5", "t6")),)))
    topic.add_item(Item("fact", "Lena: With the rota as planned we will have 20 helpers on the day.", day,
                        (Citation(CONV, ("t5",)),)))
    said = "Two shops, three shifts each, four per shift: that's 24 helpers, not 20."
    topic.add_item(Item("fact", f"Assistant: {said}", day, (Citation(CONV, ("t6",)),)))
    unit = Unit(Turn("assistant", said, T0, "t6"), 0, said, fact=f"Assistant: {said}", at=T0)
    struck = supersede(topic, [unit], day)
    assert [text for text, _ in struck] == ["Lena: With the rota as planned we will have 20 helpers on the day."]


def test_a_currency_word_measures_a_value_and_counts_nothing():
    """"289 eur" and "289 EUR" are one amount of money: neither counts "eur", so a later amount
    for the same slot can replace it."""
    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import values

    for text in ("The reseller quote for the certificates: 289 eur", "The reseller quote for the certificates: 289 EUR",
                 "The reseller quote for the certificates is 289 euros"):
        [amount] = values(nlp.parse_one(text))
        assert amount.norm == (289.0,) and amount.counted == "", text
    [chairs] = values(nlp.parse_one("We hired 12 chairs for the hall."))
    assert chairs.counted == "chair"


@pytest.mark.parametrize("old,new,strikes", [
    # the clause of the new amount names nothing ("it's 215 now"): it takes the slot of the one amount
    # the older line about the same thing holds
    ("Lena: Boiler: the plumber's quote for a new valve, 1 hour: 180 eur", "Boiler valve: parts went up, it's 215 now.",
     True),
    # a named slot of its own is another thing's value; so is another verb's amount, or one far off
    ("Lena: The florist for the wedding costs 250.", "The caterer for the wedding is now 300.", False),
    ("Lena: The wedding hall fits 250.", "Actually we invite 300 to the wedding.", False),
    ("Lena: Boiler: the plumber's quote for a new valve: 180 eur", "Boiler valve: it's 2,150 now.", False),
    ("Lena: The garden fence is 40 metres.", "The garden fence, it's 52 now.", False),  # 40 metres counts metres
    # "make that X" restates what "that" stands for: the verb is no slot, so the one amount of a line
    # about the same form is replaced; said twice on that line, by the person and an echo, it is one amount
    ("Lena: Warranty form: I entered 860 as the repair cost. (Assistant: Form sent, repair cost 860 EUR.)",
     "On the warranty form: actually make that 915.", True),
    ("Lena: Warranty form: I entered 860 as the repair cost, and 120 for the call-out.",
     "On the warranty form: actually make that 915.", False),  # two amounts: which one is not said
])
def test_an_amount_whose_clause_names_no_slot_replaces_the_one_amount_of_that_thing(tmp_path: Path, old: str,
                                                                                    new: str, strikes: bool):
    later = T0 + dt.timedelta(days=3)
    topic = topic_with(tmp_path, ("t1", old, T0), ("t9", f"Lena: {new}", later))
    assert bool(supersede(topic, units_of("t9", new, later), "2026-03-12")) is strikes


def test_actually_before_a_verb_stays_in_the_fact_as_the_mark_of_a_correction():
    """"actually make that 640" corrects; "really" before a verb only adds feeling and goes."""
    from sheriff_vault.compaction.values import changes_a_value

    [unit] = units_of("t9", "About the deposit: actually make that 640.", T0)
    assert "actually make that 640" in unit.fact and changes_a_value(unit.body)
    [felt] = units_of("t9", "I really loved the concert in the park.", T0)
    assert "really" not in felt.fact


def test_a_moved_date_strikes_the_date_a_sentence_before_it_left(tmp_path: Path):
    """"Ana can't make the 20th. It's now the 27th.": the date the move leaves is named in the
    sentence before the one that moves it."""
    later = T0 + dt.timedelta(days=9)
    new = "Ana is away on the 20th (20 June 2026) and back a week later. So we moved the outing to Saturday 27 June."
    topic = topic_with(tmp_path, ("t1", "Lena: Booked the river boat for Saturday 20 June, 40 seats.", T0),
                       ("t2", "Lena: The cake is ordered for Saturday 13 June.", T0), ("t9", f"Lena: {new}", later))
    unit = Unit(Turn("user", new, later, "t9", "Lena"), 0, new, fact=f"Lena: {new}", at=later)
    struck = supersede(topic, [unit], "2026-03-18")
    assert [text for text, _ in struck] == ["Lena: Booked the river boat for Saturday 20 June, 40 seats."]


def test_a_line_is_superseded_on_the_day_it_was_corrected_not_the_day_of_the_sleep(tmp_path: Path):
    """One sleep over days of talk: the struck line names the day the correction was said and the
    turn that said it, so "as of" a day between the two reads the old value as the one that held."""
    import json

    from conftest import run_vault

    said = [("user", "Our choir concert is on Saturday 21 March at the parish hall.", "2026-03-02T18:00:00Z"),
            ("assistant", "Noted: the concert is on Saturday 21 March.", "2026-03-02T18:00:30Z"),
            ("user", "Concert update: the hall is double booked, so the concert moved to Saturday 28 March.",
             "2026-03-05T18:00:00Z"),
            ("assistant", "Got it, Saturday 28 March now.", "2026-03-05T18:00:30Z"),
            ("user", "For the concert we still need twelve music stands from the school.", "2026-03-09T18:00:00Z"),
            ("assistant", "Twelve music stands to borrow from the school.", "2026-03-09T18:00:30Z")]
    talk = tmp_path / "talk.jsonl"
    talk.write_text("".join(json.dumps({"role": r, "content": c, "at": at, "id": f"t{i + 1}"}) + "\n"
                            for i, (r, c, at) in enumerate(said)))
    root = tmp_path / "vault"
    assert run_vault("init", root).returncode == 0
    (root / "vault.yaml").write_text((root / "vault.yaml").read_text().replace("tail_turns: 20", "tail_turns: 0"))
    out = run_vault("sleep", talk, "--now", "2026-03-10T08:00:00Z", "--vault", root)
    assert out.returncode == 0, out.stderr
    lines = [line for p in (root / "topics").glob("*.md") for line in p.read_text().splitlines()]
    struck = [line for line in lines if "~~" in line]
    assert len(struck) == 1 and "21 March" in struck[0] and "(superseded 2026-03-05 by t3)" in struck[0], lines


def test_a_verb_with_a_pronoun_object_besides_the_value_names_no_slot():
    """"make that 2,450", "call it 40 boxes": the value is what the pronoun stands for, a value
    said before; "they quoted 2,400" keeps its verb as what the amount is of."""
    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import values

    def slots(text: str) -> list[set[str]]:
        return [set(v.slot) for v in values(nlp.parse_one(text, entities=False))]

    assert slots("For the deposit: actually make that 2,450.") == [set()]
    assert slots("Call it 40 boxes.") == [{"box"}]
    assert slots("They quoted 2,400 for the roof.") == [{"quote"}]
    assert slots("We paid 300 for it.") == [{"pay"}]


def test_a_line_loses_every_sentence_saying_the_value_a_correction_replaces(tmp_path: Path):
    """One sentence of a line is corrected on its own (it names the form); another says the same old
    amount without naming it: both are struck, and the sentence about something else stays current."""
    later = T0 + dt.timedelta(days=3)
    old = ("Lena: I entered 860 as the repair cost. The warranty form went off with 860 EUR as the cost. "
           "The serial number is on the box.")
    topic = topic_with(tmp_path, ("t1", old, T0))
    struck = said_later(topic, "t9", "About the warranty form: actually make that 915.", later, "2026-03-12")
    assert [text for text, _ in struck] == [
        "Lena: I entered 860 as the repair cost. The warranty form went off with 860 EUR as the cost."]
    current = [i.text for i in topic.items() if not i.superseded]
    assert "Lena: The serial number is on the box." in current


@pytest.mark.parametrize("old,strikes", [
    # the old date's clause names nothing it is the date of ("they asked me to ... on Thursday 11 June"):
    # the moved open evening, on a line about it, replaces it
    ("Lena: They asked me to the open evening on Thursday 11 June at the depot.", True),
    # a date that names what it is the date of, another thing, stays
    ("Lena: The dentist is on Thursday 11 June.", False),
])
def test_a_moved_date_replaces_an_unnamed_date_on_a_line_about_the_same_thing(tmp_path: Path, old: str,
                                                                              strikes: bool):
    later = T0 + dt.timedelta(days=20)
    topic = topic_with(tmp_path, ("t1", old, T0))
    new = "The open evening is now on Thursday 18 June, same place."
    assert bool(said_later(topic, "t9", new, later, "2026-03-29")) is strikes


def says_a_value_changed(text: str) -> bool:
    """Whether change language stands in the clause of one of the values `text` states."""
    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import said_changed, values

    doc = nlp.parse_one(text, entities=False)
    return any(said_changed(doc, v) for v in values(doc))


@pytest.mark.parametrize("text,changed", [
    ("The match is now on 16 May.", True),
    ("It moved to Friday 8 May.", True),
    ("The match is on 16 May.", False),
    ("The fete was on Saturday 9 May last year.", False),
])
def test_a_date_in_may_reads_the_change_of_its_clause(text: str, changed: bool):
    assert says_a_value_changed(text) is changed


def test_a_date_the_parser_splits_at_its_month_still_reads_the_now_of_its_clause():
    """The tagger at times reads "May" as a verb and roots a clause of its own at it. This is the parse
    it then gives, built by hand: the date hangs on "on", whose clause says "now"."""
    from spacy.tokens import Doc

    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import said_changed, values

    words = ["The", "quiz", "is", "now", "on", "Sunday", "24", "May", "2026", ",", "in", "the", "hall", "as", "usual",
             "."]
    heads = [1, 2, 2, 2, 2, 4, 5, 7, 7, 7, 7, 12, 10, 7, 13, 7]
    deps = ["det", "nsubj", "ROOT", "advmod", "prep", "pobj", "nummod", "ROOT", "nummod", "punct", "prep", "det",
            "pobj", "prep", "pcomp", "punct"]
    pos = ["DET", "NOUN", "AUX", "ADV", "ADP", "PROPN", "NUM", "PROPN", "NUM", "PUNCT", "ADP", "DET", "NOUN", "ADP",
           "ADJ", "PUNCT"]
    spaces = [nxt not in (",", ".") for nxt in words[1:]] + [False]
    doc = Doc(nlp.pipeline().vocab, words=words, spaces=spaces, heads=heads, deps=deps, pos=pos,
              lemmas=[w.lower() for w in words])
    assert [t.text for t in doc if t.dep_ == "ROOT"] == ["is", "May"]
    assert [(v.text, said_changed(doc, v)) for v in values(doc)] == [("Sunday 24 May 2026", True)]


@pytest.mark.parametrize("text,changed", [
    # "make that X", "make it X": an instruction that restates the value said before
    ("Actually make that 19 for the picnic.", True),
    ("Make it 25 then.", True),
    # someone who can come, a journey and a thing made are no restated value
    ("I can make it Friday 12 June.", False),
    ("We made it to the station by 9.", False),
    ("I will make that cake for 12 people.", False),
])
def test_make_that_restates_a_value(text: str, changed: bool):
    assert says_a_value_changed(text) is changed


def test_make_that_strikes_the_total_it_restates(tmp_path: Path):
    later = T0 + dt.timedelta(days=9)
    topic = topic_with(tmp_path, ("t1", "Lena: Asked around for the picnic: 5 staff, 4 partners and 6 kids, so 15 in "
                                        "all.", T0))
    struck = said_later(topic, "t9", "Make that 19 for the picnic, two more kids are coming.", later, "2026-03-18")
    assert [text for text, _ in struck] == ["Lena: Asked around for the picnic: 5 staff, 4 partners and 6 kids, so 15 "
                                            "in all."]


@pytest.mark.parametrize("text,changed", [
    ("Rent goes up by 40 next month.", True),
    ("They knocked the price down to 1,400.", True),
    ("It went down 20 percent.", True),
    # "up to" a place is a journey: the times in its clause did not change
    ("We cycle up to Bergen on Friday, check-in 2 till 4, so we set off at 7.", False),
    # the values are what turns up, the verb's subject: "show up" moves nothing
    ("If we run it longer, lifts of about 11 percent will show up.", False),
])
def test_up_or_down_says_a_value_moved_unless_it_goes_to_a_place(text: str, changed: bool):
    assert says_a_value_changed(text) is changed


def test_a_one_liner_cut_short_on_a_struck_part_keeps_what_comes_before_it():
    """A one-liner that ends, cut short, on the part a correction struck loses that part; one that
    does not end on it is left to the rewording that names the current value first."""
    from sheriff_vault.compaction.merge import _cut_short_at

    one_liner = "New order: 40 mugs for the choir, Friday 12 June, the Mill Studio, near Hexham 10am…"
    gone = "the Mill Studio, near Hexham 10am to noon"
    assert one_liner[: _cut_short_at(one_liner, gone)].strip() == "New order: 40 mugs for the choir, Friday 12 June,"
    assert _cut_short_at("New order at the Mill Studio, Friday 12 June", gone) is None


@pytest.mark.parametrize("old,new,strikes", [
    # a contrast in words strikes a line about the same thing ("shed"), or one naming the old name
    ("Lena: Shed paint: sage green, two tins.", "Shed: not sage green but dark blue.", True),
    ("Lena: The leaving drinks are at the Swan.", "Drinks are at the Crown instead of the Swan.", True),
    # an uncommon word names one thing wherever it is said
    ("Lena: Taking ibuprofen three times a day.", "The GP put me on naproxen instead of ibuprofen.", True),
    # ... not any line that happens to use its common word: a way of pricing is no value of a gift
    ("Lena: Every autumn I bring a box of biscuits for each teacher.",
     "Sell them at one fixed price rather than box by box.", False),
])
def test_a_contrast_in_words_strikes_only_a_line_about_the_same_thing(tmp_path: Path, old: str, new: str,
                                                                     strikes: bool):
    later = T0 + dt.timedelta(days=2)
    topic = topic_with(tmp_path, ("t1", old, T0))
    assert bool(said_later(topic, "t9", new, later, "2026-03-11")) is strikes


@pytest.mark.parametrize("text,named", [
    # the noun beside a name, or that it belongs to, is what it is the value of
    ("Our plumber Ruth Adeyemi comes on Friday.", [("Ruth Adeyemi", {"plumber"})]),
    ("She is in the choir of Mr Halvorsen.", [("Mr Halvorsen", {"choir"})]),
    ("The lead is now with Dr Moreau.", [("Dr Moreau", {"lead"})]),
    ("We found a cottage in Portree instead.", [("Portree", {"cottage"})]),
    ("Now she sings Schubert.", [("Schubert", {"~sing"})]),
    # counter-examples: a name that is its clause's subject holds no value; months and acronyms are no names
    ("Ruth comes on Friday.", []),
    ("The rent is due in June.", []),
    ("We pay in NOK.", []),
])
def test_a_name_is_the_value_of_the_slot_it_hangs_on(text: str, named: list):
    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import names

    assert [(n.text, set(n.slot)) for n in names(nlp.parse_one(text, entities=False))] == named


@pytest.mark.parametrize("old,new", [
    ("Lena: Jakob sings in the choir of Ms Okonjo from September.",
     "Ms Okonjo is off for the term, so the choir is now with Mr Lindqvist."),
    ("Lena: We booked a cottage at Staffin for the week.",
     "The owner cancelled, we found a cottage in Portree instead."),
    ("Lena: For the recital she sings Brahms and Fauré.", "Her teacher changed the programme: now she sings Schubert."),
])
def test_another_name_in_the_same_slot_with_change_language_strikes_the_old_one(tmp_path: Path, old: str, new: str):
    later = T0 + dt.timedelta(days=5)
    topic = topic_with(tmp_path, ("t1", old, T0), ("t2", "Lena: The first lesson went well.", T0))
    assert [text for text, _ in said_later(topic, "t9", new, later, "2026-03-14")] == [old]
    assert [i.superseded for i in topic.facts] == ["2026-03-14", "", ""]


@pytest.mark.parametrize("old,new", [
    # a second name that joins the first replaces nothing
    ("Lena: For the recital she sings Brahms.", "Now she sings Schubert too."),
    # no change language: two names of one slot can both hold
    ("Lena: Jakob sings in the choir of Ms Okonjo.", "His best friend sings in the choir of Mr Lindqvist."),
    # another slot: a plumber is no electrician
    ("Lena: Our plumber Ruth Adeyemi comes on Friday.", "Our electrician is now Tomasz Wójcik."),
    # a subject's name says who acts, not a value that moved
    ("Lena: Ruth fixed the boiler.", "Now Tomasz fixes the boiler."),
])
def test_a_name_that_joins_or_fills_another_slot_strikes_nothing(tmp_path: Path, old: str, new: str):
    later = T0 + dt.timedelta(days=5)
    topic = topic_with(tmp_path, ("t1", old, T0))
    assert said_later(topic, "t9", new, later, "2026-03-14") == []


@pytest.mark.parametrize("text,swaps", [
    # a subject with the adverb of substitution, and the other person its turn names as a subject
    ("Marek has flu, so Ilse is pacing me instead.", [("Ilse", ["Marek"])]),
    # a verb of standing in names whom it stands in for; a name typed in lower case is one
    ("Priya will cover for Sam Okafor until June.", [("Priya", ["Sam Okafor"])]),
    ("sam's away this month, priya is taking over", [("priya", ["sam"])]),
    ("Ms Brandt is covering for Mr Kowal this term.", [("Brandt", ["Mr Kowal"])]),
    # counter-examples: a person who joins, no word of substitution, nobody else named, a thing
    # replaced, a contrast of two values, an object that is what substitutes
    ("Marek has flu, so Ilse is pacing me too.", []),
    ("Marek has flu and Ilse is pacing me.", []),
    ("Now Ilse is pacing me.", []),
    ("Ms Brandt replaced the broken projector.", []),
    ("The gym is shut, so Ilse runs with me on Monday instead of Tuesday.", []),
    ("Marek says Ilse wants Brooks instead.", []),
    # a name held in a slot is a value of that slot (`names`), not a person standing in
    ("Ms Okonjo is off, so the choir is now with Mr Lindqvist.", []),
])
def test_a_person_who_now_takes_another_s_part_is_read_from_the_parse(text: str, swaps: list):
    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import stand_ins

    assert stand_ins(nlp.parse_one(text)) == swaps


def said_later_by(topic: Topic, turn_id: str, text: str, at: dt.datetime, day: str) -> tuple[list, str]:
    """As `said_later`, the line written as sleep writes it (the change of person its turn says
    first), and what it strikes."""
    from sheriff_vault.compaction.supersede import note_stand_ins

    units = units_of(turn_id, text, at)
    note_stand_ins(units)
    line = current_first(f"Lena: {text}", [p for u in units for p in u.corrects])
    topic.add_item(Item("fact", line, at.strftime("%Y-%m-%d"), (Citation(CONV, (turn_id,)),)))
    return supersede(topic, units, day), line


@pytest.mark.parametrize("new,line", [
    ("Marek has flu, so Ilse is pacing me instead.",
     "Lena: Ilse, not Marek: Marek has flu, so Ilse is pacing me instead."),
    ("Marek can't do it after all. Ilse is taking over the pacing.",
     "Lena: Ilse, not Marek: Marek can't do it after all. Ilse is taking over the pacing."),
])
def test_a_person_who_takes_another_s_part_is_written_first_and_strikes_the_line_that_named_the_other(
        tmp_path: Path, new: str, line: str):
    later = T0 + dt.timedelta(days=6)
    old = "Lena: Marek from the running club will pace me for the first 10 km."
    topic = topic_with(tmp_path, ("t1", old, T0), ("t2", "Lena: The race starts at 9 in the park.", T0))
    struck, written = said_later_by(topic, "t9", new, later, "2026-03-15")
    assert written == line
    assert [text for text, _ in struck] == [old]
    assert [i.superseded for i in topic.facts] == ["2026-03-15", "", ""]


def test_a_line_that_keeps_only_the_new_person_says_whom_they_stand_in_for():
    """A turn whose facts are cut apart ("Marek ... is out. So Ilse ... instead.") leaves the line
    naming the new person without the one replaced: it opens on both, so it reads whole."""
    from sheriff_vault.compaction.supersede import note_stand_ins

    units = units_of("t9", "Bad news about the race. Marek has pulled a hamstring and he's out for a month. "
                           "So Ilse from the club is pacing me instead.", T0)
    note_stand_ins(units)
    facts = [u.fact for u in units]
    assert any(f.startswith("Lena: Ilse, not Marek: ") and "pacing me instead" in f for f in facts)
    assert [f for f in facts if "Ilse" not in f] == [f for f in facts if "not Marek" not in f]


def test_names_typed_in_lower_case_are_written_with_their_capitals(tmp_path: Path):
    from sheriff_vault.compaction.supersede import note_stand_ins

    units = units_of("t9", "sam's away this month, priya is taking over", T0)
    note_stand_ins(units)
    assert [u.corrects for u in units] == [[("Priya", "Sam")]]


@pytest.mark.parametrize("old,new", [
    # the older line already names the new person: both held the part together
    ("Lena: Marek and Ilse will pace me for the first 10 km.", "Marek has flu, so Ilse is pacing me instead."),
    # the new person joins rather than replaces
    ("Lena: Marek from the running club will pace me.", "Marek is still in, and Ilse is pacing me too now."),
    # the turn names nobody the older line does
    ("Lena: Marek from the running club will pace me.", "Jonas has flu, so Ilse is pacing the B group instead."),
])
def test_a_person_named_beside_the_old_one_or_another_strikes_nothing(tmp_path: Path, old: str, new: str):
    later = T0 + dt.timedelta(days=6)
    topic = topic_with(tmp_path, ("t1", old, T0))
    assert said_later_by(topic, "t9", new, later, "2026-03-15")[0] == []


@pytest.mark.parametrize("text,changed", [
    ("The choir is now with Mr Lindqvist.", True),
    ("We found a cottage in Portree instead.", True),
    ("The policy is no longer with Harbour Mutual.", True),
    # counter-examples: "now" as a preposition's object means so far, "longer" that compares changes nothing
    ("For now the choir is with Mr Lindqvist.", False),
    ("By now the choir is with Mr Lindqvist.", False),
    ("From now on, the choir is with Mr Lindqvist.", True),
    ("Longer games like Brass need the whole evening.", False),
])
def test_change_language_is_read_in_the_name_s_clause(text: str, changed: bool):
    from sheriff_vault import nlp
    from sheriff_vault.compaction.values import names, said_changed

    doc = nlp.parse_one(text, entities=False)
    assert [said_changed(doc, n) for n in names(doc)] == [changed]


def test_a_count_named_as_replaced_strikes_the_line_that_counted_the_same_noun(tmp_path: Path):
    """"14 places, not 12", put by the assistant and taken up by "yes please, 14 is fine": the old
    number is the one an older line said with the same noun ("12 places"), though that line shares no
    other word with the answer; a line saying 12 of something else stays current."""
    later = T0 + dt.timedelta(days=3)
    answer = "Yes please, 14 is fine."
    topic = topic_with(tmp_path, ("t1", "Lena: The studio said 12 places on the mats for the spring term.", T0),
                       ("t2", "Lena: The hall has 12 windows and a piano.", T0),
                       ("t3", "Lena: Tea after, biscuits from the shop.", T0),
                       ("t4", "Lena: Posters go up on Monday.", T0), ("t9", f"Lena: {answer}", later))
    [unit] = units_of("t9", answer, later)
    unit.corrects = [("14 places", "12")]
    struck = supersede(topic, [unit], "2026-03-12")
    assert [text for text, _ in struck] == ["Lena: The studio said 12 places on the mats for the spring term."]


@pytest.mark.parametrize("one_liner,kept", [
    # what is left once the struck sentence goes is a summary of its own
    ("Lease signed: plot 12C at the Riverside allotments. Rent is 40 EUR a year, water included.",
     "Rent is 40 EUR a year, water included."),
    # a scrap of a few words is none: the correction's own line sums the topic up instead
    ("Lease signed: plot 12C at the Riverside allotments. 40 EUR a year…", "21C! Not 12C. The lease says 21C."),
])
def test_a_one_liner_that_loses_its_struck_sentence_keeps_a_summary(tmp_path: Path, one_liner: str, kept: str):
    from types import SimpleNamespace

    from sheriff_vault.compaction.merge import settle
    from sheriff_vault.compaction.parts import Change

    topic = new_topic(tmp_path / "allotment.md", "Allotment", one_liner=one_liner, now=T0)
    said = "21C! Not 12C. The lease says 21C."
    correction = SimpleNamespace(body=said, fact=said, text=said, corrects=[])
    struck = [("Ines: Lease signed: plot 12C at the Riverside allotments.", correction)]
    settle(topic, [], Change(topic, created=False), struck, T0, SimpleNamespace(utility_decay=0.99))
    assert topic.one_liner == kept
