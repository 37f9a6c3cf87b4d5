"""Assistant echoes fold into the user's fact they restate (compaction/echo.py); an assistant turn
that adds something stays a fact of its own."""
from __future__ import annotations

import datetime as dt

from sheriff_vault.compaction.echo import fold_echoes
from sheriff_vault.compaction.units import make_units
from sheriff_vault.store.buffer import Turn

T0 = dt.datetime(2026, 6, 1, 7, 0, tzinfo=dt.UTC)


def talk(*pairs: tuple[str, str]) -> list[Turn]:
    return [Turn(role, text, T0 + dt.timedelta(minutes=i), f"t{i + 1}", "Sam" if role == "user" else "")
            for i, (role, text) in enumerate(pairs)]


def folded(turns: list[Turn]) -> list[tuple[list[str], str]]:
    return [(u.turn_ids, u.fact) for u in fold_echoes(make_units(turns, "UTC", set()), turns)]


def test_an_echo_is_cited_on_the_users_fact_and_is_no_line_of_its_own():
    turns = talk(("user", "this Sunday long swim is 3 km at 2:10 pace"),
                 ("assistant", "3 km at 2:10 pace this Sunday, got it."),
                 ("user", "coach is Ines, plan has 3 swims a week"),
                 ("assistant", "So Ines coaches you, 3 swims a week."))
    assert folded(turns) == [(["t1", "t2"], "Sam: This Sunday (7 June 2026) long swim is 3 km at 2:10 pace"),
                             (["t3", "t4"], "Sam: Coach is Ines, plan has 3 swims a week")]


def test_an_echo_that_spells_out_a_correction_hands_it_to_the_fact():
    turns = talk(("user", "the plasterers are late, so move-in day is 9 August now"),
                 ("assistant", "Updated: move-in day is 9 August instead of 2 August, as the plasterers are late."))
    [unit] = fold_echoes(make_units(turns, "UTC", set()), turns)
    assert unit.turn_ids == ["t1", "t2"] and unit.corrects == [("9 August", "2 August")]


def test_advice_a_new_number_or_a_new_name_is_no_echo():
    turns = talk(("user", "We're asking for 6,500 EUR for the bike shelter."),
                 ("assistant", "Two quotes from local builders would help the application."),
                 ("user", "The fleet is 220 laptops."),
                 ("assistant", "At 40 a weekend that is six weekends."),
                 ("user", "Katrin is my physio."),
                 ("assistant", "Noted: Katrin at the Mitte clinic."))
    assert [ids for ids, _ in folded(turns)] == [["t1"], ["t2"], ["t3"], ["t4"], ["t5"], ["t6"]]


def test_encouragement_that_says_nothing_new_is_dropped():
    turns = talk(("user", "They met at a sailing club, he fixed her rudder."),
                 ("assistant", "Nice: the sailing club where he fixed her rudder. Carry on with that part."))
    assert folded(turns) == [(["t1", "t2"], "Sam: They met at a sailing club, he fixed her rudder.")]


def test_an_echo_in_its_own_words_for_times_currencies_and_plurals_is_still_an_echo():
    """"8:00" for "8am", "NOK" for "kroner", "Toppers" for "Topper" add nothing."""
    turns = talk(("user", "The plumber is Ewan Price, here Thursday 8am."),
                 ("assistant", "Noted: Ewan Price comes on Thursday at 8:00."),
                 ("user", "We sail Topper dinghies. The course costs 2,700 kroner."),
                 ("assistant", "Noted: Toppers, 2,700 NOK."),
                 ("user", "The class starts at 9am."),
                 ("assistant", "Noted: the class starts at 9:30."))
    assert [ids for ids, _ in folded(turns)] == [["t1", "t2"], ["t3", "t4"], ["t5"], ["t6"]]


def test_a_number_said_in_words_and_restated_in_digits_is_an_echo():
    """"sixty four" restated as "64", "a hundred" as "£100": the same numbers, so the assistant's
    sentence folds into the person's fact; a number the person never said, in words or digits, is
    still no echo."""
    turns = talk(("user", "sixty four coming to the reunion, hall fits a hundred"),
                 ("assistant", "Got it: 64 guests, and the hall fits 100."),
                 ("user", "catering quote is for fifty"),
                 ("assistant", "Noted: catering for 55."))
    assert [ids for ids, _ in folded(turns)] == [["t1", "t2"], ["t3"], ["t4"]]


def test_a_name_restated_with_the_apostrophe_chat_left_out_is_no_new_name():
    """"st annes" restated as "St Anne's" is the same place; "St Bride's" is another."""
    turns = talk(("user", "the do is at st annes hall, two mile from us"),
                 ("assistant", "Noted: the do is at St Anne's hall, two miles from you."),
                 ("user", "the choir sings at st annes too"),
                 ("assistant", "Noted: the choir sings at St Bride's."))
    assert [ids for ids, _ in folded(turns)] == [["t1", "t2"], ["t3"], ["t4"]]


def test_an_echo_may_name_what_an_earlier_session_said():
    """Memory holds what earlier sessions said: an echo that names the subject from there ("the
    Achilles") restates, it adds nothing; without that memory the name would look new."""
    turns = talk(("user", "physio says partial tear, six weeks of rest"),
                 ("assistant", "So: a partial Achilles tear, six weeks of rest."))
    earlier = ["Sam: Left Achilles is sore after the Sunday run"]
    with_memory = fold_echoes(make_units(turns, "UTC", set()), turns, earlier)
    assert [u.turn_ids for u in with_memory] == [["t1", "t2"]]
    without = fold_echoes(make_units(turns, "UTC", set()), turns)
    assert len(without) == 2


def test_an_echo_that_names_what_the_person_left_unsaid_keeps_those_words_on_the_fact():
    """"So Sunday now." restated as "The hearing moves from Thursday to Sunday": one fact, citing
    both turns, that a question about the hearing finds; encouragement adds no words to it."""
    turns = talk(("user", "The court hearing is on Thursday 12 November."),
                 ("assistant", "Noted: hearing on Thursday 12 November."),
                 ("user", "they gave everyone four extra days. so Monday 16 November now"),
                 ("assistant", "The court hearing moves from Thursday 12 November to Monday 16 November."))
    facts = folded(turns)
    assert len(facts) == 2 and facts[1][0] == ["t3", "t4"]
    assert "court hearing" in facts[1][1] and facts[1][1].startswith("Sam: They gave everyone four extra days")
    assert "(Assistant: " not in facts[0][1]  # the first echo names nothing the person did not say


def test_an_acknowledged_restatement_of_the_persons_value_is_an_echo_that_names_its_slot():
    """"Updated: the concert moves to 26 July" after "we sing on 26 july now": the person's value
    in the assistant's words, which name what it is the value of; the line keeps them."""
    turns = talk(("user", "news on the choir thing, the hall is taken, so we sing on 26 july now"),
                 ("assistant", "Updated: the concert moves from 19 July to 26 July, same hall."))
    [unit] = fold_echoes(make_units(turns, "UTC", set()), turns, ["Sam: The choir concert is on 19 July"])
    assert unit.turn_ids == ["t1", "t2"] and "concert" in unit.fact
    assert unit.corrects == [("26 July", "19 July")]


def test_acknowledgements_and_advice_are_read_from_the_parse():
    from sheriff_vault.compaction.echo import acknowledges, adds

    assert all(acknowledges(s) for s in ("Noted: 24 km on Sunday.", "Okay, so 236 laptops.", "24 km Sunday, got it."))
    assert not any(acknowledges(s) for s in ("Shed: dark blue.", "Pickup on Friday 5 June at 09:00."))
    assert all(adds(s) for s in ("You should book early.", "I'll add it to the list.", "Maybe ask the council."))
    assert not any(adds(s) for s in ("Will do.", "Updated: the fitting is on 4 July.", "That'll be 40 in total."))


def test_a_change_the_assistant_asks_about_and_the_person_confirms_is_a_fact():
    """"So the exam is now on 18 June instead of 11 June?" answered "yes": a fact, said by the
    assistant and confirmed, citing both turns; a question the person answers no stays no fact."""
    turns = talk(("user", "my theory exam got pushed, a week later, same time"),
                 ("assistant", "So the exam is now on Thursday 18 June at 09:40, instead of 11 June?"),
                 ("user", "yes exactly"),
                 ("user", "and the bakery order moved too"),
                 ("assistant", "So the cake now comes on 3 June instead of 1 June?"),
                 ("user", "no, still the 1st"))
    units = fold_echoes(make_units(turns, "UTC", set()), turns)
    facts = [(u.turn_ids, u.fact, u.corrects) for u in units]
    confirmed = [f for f in facts if "t3" in f[0]]
    assert len(confirmed) == 1 and confirmed[0][0] == ["t2", "t3"]
    assert confirmed[0][1].startswith("Assistant: The exam is now on Thursday 18 June")
    assert not any(u.turn.id == "t5" for u in units)  # the question answered no is no fact


def test_a_change_stated_before_a_closing_question_is_confirmed_by_the_value_said_again():
    """"So the shoot now starts on 14 August instead of 2 August. Does that still work?" answered
    "14 Aug works": the person's line is the change and carries the old value it replaces. Said
    again with the old value ("no, keep the 2nd ... 2 Aug") it carries nothing; answered "yes" alone,
    the statement is the confirmed fact, as a closing question's would be."""
    turns = talk(("user", "the photographer wants to move the shoot"),
                 ("assistant", "So the shoot now starts on 14 August instead of 2 August. Does that still work?"),
                 ("user", "14 Aug works, I'll tell the models"),
                 ("user", "and the studio asked about the rehearsal too"),
                 ("assistant", "So the rehearsal moves to 9 August instead of 1 August. Is that alright?"),
                 ("user", "no, keep it on 1 Aug, the 9th is taken"),
                 ("user", "last one, the caterer wrote"),
                 ("assistant", "So lunch is now for 18 people instead of 12. Shall I note that?"),
                 ("user", "yes please"))
    units = fold_echoes(make_units(turns, "UTC", set()), turns)
    by_turn = {u.turn.id: u for u in units}
    assert by_turn["t3"].corrects == [("14 August", "2 August")]
    assert by_turn["t6"].corrects == []
    confirmed = [u for u in units if u.turn.id == "t8"]
    assert len(confirmed) == 1 and confirmed[0].turn_ids == ["t8", "t9"] and "correction" in confirmed[0].flags
    assert confirmed[0].fact == "Assistant: Lunch is now for 18 people instead of 12."


def test_a_chat_spelling_of_yes_confirms_a_change_put_to_the_person():
    """"ye same clinic" answers "So the jabs are on Wednesday 17 June now, same clinic?" yes: the
    change is a fact, said by the assistant and confirmed."""
    turns = talk(("user", "the vet put the jabs back a fortnight, she's off sick"),
                 ("assistant", "So the jabs are on Wednesday 17 June now, same clinic?"),
                 ("user", "ye same clinic"))
    units = fold_echoes(make_units(turns, "UTC", set()), turns)
    confirmed = [u for u in units if u.turn.id == "t2"]
    assert len(confirmed) == 1 and confirmed[0].turn_ids == ["t2", "t3"] and "correction" in confirmed[0].flags
    assert any(u.turn.id == "t1" and "put the jabs back a fortnight" in u.fact for u in units)


def test_a_value_the_assistant_proposes_to_keep_and_the_person_takes_is_a_fact():
    """"Shall I record the rate as £18?" answered "yes" or with the value again is a fact, said by the
    assistant and confirmed: "The rate is £18."; proposed "from now on", it replaces a value. A denial,
    or a question proposing no value, is no fact."""
    turns = talk(("assistant", "The new invoice says 18 an hour. Shall I record the rate as £18?"),
                 ("user", "Yes please."),
                 ("assistant", "On the rota you're down for 08:45. Shall I keep 08:45 as your start time from now on?"),
                 ("user", "Oh I missed that. 08:45 is right."),
                 ("assistant", "Shall I record the venue as the Old Mill?"),
                 ("user", "No, not the Old Mill, it's still the Grand."),
                 ("assistant", "Shall I save this as a draft?"),
                 ("user", "yes"))
    units = fold_echoes(make_units(turns, "UTC", set()), turns)
    confirmed = {u.turn.id: u for u in units if u.echoes}
    assert confirmed["t1"].fact == "Assistant: The rate is £18." and confirmed["t1"].turn_ids == ["t1", "t2"]
    assert "correction" not in confirmed["t1"].flags
    assert confirmed["t3"].fact == "Assistant: Your start time is 08:45." and "correction" in confirmed["t3"].flags
    assert "t5" not in confirmed and "t7" not in confirmed


def test_an_echo_that_works_out_the_value_keeps_it_on_the_fact():
    """The person moves a date by a length of time; the assistant's restatement is the only place the
    new date is said, so folding it must not lose it (its numbers were heard before, in other roles)."""
    turns = talk(("user", "The quiz is on Friday 8 May 2026, and we need 15 tables."),
                 ("assistant", "Noted."),
                 ("user", "The quiz got pushed back by a week, same hall, same start."),
                 ("assistant", "So the quiz is now on Friday 15 May 2026, in the hall as planned."))
    assert folded(turns)[-1] == (["t3", "t4"], "Sam: The quiz got pushed back by a week, same hall, same start. "
                                 "(Assistant: The quiz is now on Friday 15 May 2026, in the hall as planned.)")


def test_an_aside_after_the_question_does_not_hide_the_change_it_asks_about():
    """"So the class has 14 places, not 12. Shall I let the centre know? Bring your own mat, by the
    way." answered "yes please, 14 is fine": the answer takes up the last question, not the aside
    after it, and the person's line carries the value it replaces."""
    turns = talk(("user", "the yoga room is smaller than we thought"),
                 ("assistant", "So the class has 14 places, not 12. Shall I let the centre know? "
                               "Bring your own mat, by the way."),
                 ("user", "yes please, 14 is fine"))
    units = fold_echoes(make_units(turns, "UTC", set()), turns)
    [answer] = [u for u in units if u.turn.id == "t3"]
    assert answer.corrects == [("14 places", "12")], answer.corrects
