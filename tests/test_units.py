"""Turns to facts (compaction/units.py): what is kept, how it reads, and how its time is written out.
Every expected string is written out by hand."""
from __future__ import annotations

import datetime as dt

import pytest

from sheriff_vault.compaction.units import annotate_times, make_units
from sheriff_vault.store.buffer import Turn


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def facts(*contents: str, role: str = "user", name: str = "Sam") -> list[str]:
    turns = [Turn(role, c, at("2026-03-09T10:00:00Z") + dt.timedelta(minutes=i), f"t{i + 1}", name)
             for i, c in enumerate(contents)]
    return [u.fact for u in make_units(turns, "UTC", set())]


@pytest.mark.parametrize("said,when,written", [
    # a date without a year gets its year, once, and it is the next one for a plan
    ("The cutover was moved to 18 March.", "2026-03-09T10:00:00Z", "The cutover was moved to 18 March 2026."),
    ("We fly to Osaka on 19 April.", "2026-03-02T10:00:00Z", "We fly to Osaka on 19 April 2026."),
    ("Vienna, 11 October. aim is under 3:45", "2026-06-01T07:00:00Z", "Vienna, 11 October 2026. aim is under 3:45"),
    ("We went to Lisbon on 19 April.", "2026-05-02T10:00:00Z", "We went to Lisbon on 19 April 2026."),
    ("We went to Lisbon on 19 December.", "2026-03-02T10:00:00Z", "We went to Lisbon on 19 December 2025."),
    # a date that already has its year is left alone: no "18 December (18 December 2026)"
    ("Handover on 18 December 2026.", "2026-11-01T10:00:00Z", "Handover on 18 December 2026."),
    # a range gets its year once, both ends kept
    ("The hen do is 17-19 July, Porto.", "2026-06-01T10:00:00Z", "The hen do is 17-19 July 2026, Porto."),
    # a weekday deadline and "the 23rd" get their day
    ("Send the papers by Thursday.", "2026-03-09T10:00:00Z", "Send the papers by Thursday (12 March 2026)."),
    ("She needs everything by the 23rd.", "2026-04-16T10:00:00Z",
     "She needs everything by the 23rd (23 April 2026)."),
    ("Due the 3rd, please.", "2026-04-16T10:00:00Z", "Due the 3rd (3 May 2026), please."),
    # in the past tense "the 14th" is the last one, not the next
    ("The server move went ahead on the 14th.", "2026-06-22T10:00:00Z",
     "The server move went ahead on the 14th (14 June 2026)."),
    ("The parcel arrived on the 30th.", "2026-03-02T10:00:00Z", "The parcel arrived on the 30th (30 January 2026)."),
    ("The parcel arrives on the 30th.", "2026-03-02T10:00:00Z", "The parcel arrives on the 30th (30 March 2026)."),
    # "this Wednesday" said on a Saturday is the coming one, unless the verb puts it behind
    ("The fitting is this Wednesday.", "2026-05-02T10:00:00Z", "The fitting is this Wednesday (6 May 2026)."),
    ("We saw the flat this Wednesday.", "2026-05-02T10:00:00Z", "We saw the flat this Wednesday (29 April 2026)."),
    # a day the sentence names right beside the phrase needs no brackets
    ("Her scan moved to this Thursday, 7 May, at 09:40.", "2026-05-02T10:00:00Z",
     "Her scan moved to this Thursday, 7 May, at 09:40."),
    ("The fitting is this Wednesday (May 6).", "2026-05-02T10:00:00Z", "The fitting is this Wednesday (May 6 2026)."),
    # a weekday with the day of its month is one day: the one the number names, not the coming weekday
    ("The fitter comes on Monday the 27th.", "2026-04-13T10:00:00Z",
     "The fitter comes on Monday the 27th (27 April 2026)."),
    ("The skip comes Friday the 8th, early.", "2026-05-02T10:00:00Z",
     "The skip comes Friday the 8th (8 May 2026), early."),
    # "in 3 weeks" after a past verb is how long it took; ahead, when it will be
    ("We sold 40 bags in 3 weeks.", "2026-05-20T10:00:00Z", "We sold 40 bags in 3 weeks."),
    ("The exam is in 3 weeks.", "2026-05-20T10:00:00Z", "The exam is in 3 weeks (week of 8 June 2026)."),
    # a deadline that names its day in full needs no brackets
    ("The lease ends on 2 August 2026, not 31 July.", "2026-03-10T10:00:00Z",
     "The lease ends on 2 August 2026, not 31 July 2026."),
    # a weekday said with a date picks its year, whatever the tense: a booking made for the summer
    ("We went with the cheaper firm, booked for Saturday 11 July.", "2026-03-06T10:00:00Z",
     "We went with the cheaper firm, booked for Saturday 11 July 2026."),
    ("We went to the fair on Saturday 28 June.", "2026-03-06T10:00:00Z",
     "We went to the fair on Saturday 28 June 2025."),
    # relative time keeps its day in brackets
    ("I went to the support group yesterday.", "2023-05-08T13:56:00Z",
     "I went to the support group yesterday (7 May 2023)."),
])
def test_times_are_written_out_against_the_turns_own_time(said: str, when: str, written: str):
    assert annotate_times(said, at(when), "UTC")[0] == written


def test_a_past_event_named_by_a_relative_day_is_dated_that_day():
    _, hint, event_day = annotate_times("I went to the support group yesterday.", at("2023-05-08T13:56:00Z"), "UTC")
    assert event_day == hint == at("2023-05-07T00:00:00Z")


def test_cheering_and_greetings_are_no_facts_but_a_short_answer_is():
    got = facts("Congratulations!", "Evening.", "Good progress.", "The mentoring is going great!",
                "Got it, thanks", "Pepa is a greyhound.")
    assert got == ["Sam: The mentoring is going great!", "Sam: Pepa is a greyhound."]


def test_a_short_opening_heading_joins_the_sentence_it_announces():
    got = facts("Fund update. Jonas reworked the cost sheet, so we're asking for 9,500 EUR.")
    assert got == ["Sam: Fund update: Jonas reworked the cost sheet, so we're asking for 9,500 EUR."]
    assert facts("Emma's party. We booked the hall on Elm Street.") == [
        "Sam: Emma's party: We booked the hall on Elm Street."]


@pytest.mark.parametrize("said,kept", [
    # a short opening that says something is no heading: it stays a sentence, or is dropped
    ("That's tough. I'm glad you're alright after the crash.", ["Sam: I'm glad you're alright after the crash."]),
    ("Oof, that sounds hard. The insurance covers the car.", ["Sam: The insurance covers the car."]),
    ("It’s tough. The insurance covers the car.", ["Sam: The insurance covers the car."]),
    ("Sounds tough. The insurance covers the car.", ["Sam: The insurance covers the car."]),
    ("Thanks for asking. I'm looking for a workshop with good light.",
     ["Sam: I'm looking for a workshop with good light."]),
])
def test_a_short_opening_that_says_something_is_no_heading(said: str, kept: list[str]):
    assert facts(said) == kept


@pytest.mark.parametrize("said,kept", [
    # thanks and congratulations keep what they are for: stripped of it, the rest is nonsense
    ("Hey, congrats on the new bakery!", ["Sam: Congrats on the new bakery!"]),
    ("Thanks so much for the lasagne recipe, it was a hit.",
     ["Sam: Thanks so much for the lasagne recipe, it was a hit."]),
    ("Thanks for asking.", []),
    # on its own, a thanks is only a lead-in
    ("Thanks! The lasagne was a hit.", ["Sam: The lasagne was a hit."]),
    ("We miss Lisbon so much.", ["Sam: We miss Lisbon so much."]),
])
def test_thanks_and_congratulations_keep_what_they_are_for(said: str, kept: list[str]):
    assert facts(said, name="Sam") == kept


@pytest.mark.parametrize("said,kept", [
    # a greeting before the news is a lead-in, however the tagger reads it, and only the greeting goes
    ("Morning, the van is booked for Friday.", ["Sam: The van is booked for Friday."]),
    ("Kia ora, the van is booked for Friday.", ["Sam: The van is booked for Friday."]),
    ("Hola! The van is booked for Friday.", ["Sam: The van is booked for Friday."]),
    ("Hey, the van is booked for Friday.", ["Sam: The van is booked for Friday."]),
    ("Kia ora!", []),
    ("Good morning, the van is booked for Friday.", ["Sam: The van is booked for Friday."]),
    ("Good evening! The van is booked for Friday.", ["Sam: The van is booked for Friday."]),
    # counter-examples: an adjective and a noun that greet nobody are what the sentence says
    ("Good news, the van is booked for Friday.", ["Sam: Good news, the van is booked for Friday."]),
    ("Morning shifts are booked for Friday.", ["Sam: Morning shifts are booked for Friday."]),
])
def test_a_greeting_leads_in_and_takes_nothing_of_the_sentence_with_it(said: str, kept: list[str]):
    assert facts(said, name="Sam") == kept


def test_chat_written_in_lower_case_still_splits_into_sentences():
    got = facts("the deploy jobs are the scary ones. in jenkins a release manager clicks a promote button. "
                "how do we do that in actions?")
    assert got == ["Sam: The deploy jobs are the scary ones.",
                   "Sam: In jenkins a release manager clicks a promote button."]


def test_short_fragments_of_one_message_are_one_fact_in_a_chat_with_an_assistant():
    turns = [Turn("user", "Coach moved the tempo run. Tuesday is 12 km now, easy pace", at("2026-06-03T10:00:00Z"),
                  "t1", "Sam"),
             Turn("assistant", "Updated.", at("2026-06-03T10:01:00Z"), "t2")]
    assert [u.fact for u in make_units(turns, "UTC", set())] == [
        "Sam: Coach moved the tempo run. Tuesday is 12 km now, easy pace"]


def test_an_assistant_named_assistant_is_the_assistant_not_a_person():
    turns = [Turn("user", "The budget is 4000 EUR for the whole trip.", at("2026-03-09T10:00:00Z"), "t1", "Lena"),
             Turn("assistant", "A rail pass for 14 days costs about 450 EUR per person.", at("2026-03-09T10:01:00Z"),
                  "t2", "assistant")]
    assert [u.fact for u in make_units(turns, "UTC", set())] == [
        "Lena: The budget is 4000 EUR for the whole trip.",
        "Assistant: A rail pass for 14 days costs about 450 EUR per person."]


@pytest.mark.parametrize("said", [
    "This will be a bit of a brain dump, there are three things going on at once and i keep losing track.",
    "Long week ahead, I'll use you to remember a few bits.",
    "Hi! I need help keeping my week organised.",
    "Let's start with whichever is more urgent.",
    "Week update",
    "Three things on my list, let's take them in turn.",
    "Many thanks for the help, enjoy your evening!",
    "Everything's in order now. Many thanks for keeping track!",
    "Kia ora!",
    "My son installed this and tells me you can keep notes.",
    "I need a place to keep all my to-dos, can you do that?",
])
def test_talk_about_the_talk_is_not_a_fact(said):
    assert facts(said) == []


@pytest.mark.parametrize("said", [
    "I'm allergic to penicillin.",
    "Week update: the cutover moved to 28 March.",
    "I'll use you to keep track of the 3 invoices due on 5 May.",
    "The oven is fixed, have a good weekend.",
    "We have three things to fix on the oven before Friday.",
    "Two things on my plate this week: Caroline's birthday party and the memory refactor for Sheriff.",
])
def test_a_fact_that_mentions_the_talk_is_kept(said):
    assert len(facts(said)) == 1


def test_a_short_speaker_name_is_no_trouble():
    """"Al" and "T" have no nickname to derive; sleeping their turns must not fail."""
    from sheriff_vault.compaction.units import name_words

    assert {"al", "t", "melanie", "mel", "mell"} <= name_words({"Al", "T", "Melanie"})


@pytest.mark.parametrize("said,written", [
    # no past tense: the next such day, not the one half a year back
    ("Munich to Seoul Incheon on 5 October, back on 22 October.",
     "Munich to Seoul Incheon on 5 October 2026, back on 22 October 2026."),
    ("Change the winter tyres in October.", "Change the winter tyres in October 2026."),
    # a date only days behind is the one just past; a past event is in the past
    ("The party was on 2 March.", "The party was on 2 March 2026."),
    ("We went to Rome on 20 October.", "We went to Rome on 20 October 2025."),
])
def test_a_date_without_a_year_is_the_one_a_person_means(said, written):
    from sheriff_vault.compaction.units import annotate_times

    assert annotate_times(said, dt.datetime(2026, 4, 13, 19, 26, tzinfo=dt.UTC), "UTC")[0] == written


@pytest.mark.parametrize("said,written", [
    # one year said for the dates listed with it, in the past or ahead
    ("The mill opened on 14 May 1902, its first shipment out on 2 June.",
     "The mill opened on 14 May 1902, its first shipment out on 2 June 1902."),
    ("We fly out on 3 March 2027 and come back on 10 March.",
     "We fly out on 3 March 2027 and come back on 10 March 2027."),
    ("They married on 12 June 1998 and had the party on 20 June.",
     "They married on 12 June 1998 and had the party on 20 June 1998."),
    # a clause of another tense places its own date
    ("The lease started on 1 May 2020 and it renews on 1 May.",
     "The lease started on 1 May 2020 and it renews on 1 May 2026."),
    ("She joined on 5 January 2015, and her review is on 20 May.",
     "She joined on 5 January 2015, and her review is on 20 May 2026."),
    # no year said: read against now, as before
    ("The fair is on 2 May and the fete on 9 May.", "The fair is on 2 May 2026 and the fete on 9 May 2026."),
])
def test_a_date_without_a_year_takes_the_year_said_with_the_dates_beside_it(said, written):
    """The year goes after the date it belongs to, not after the same words said earlier with a
    year of their own."""
    from sheriff_vault.compaction.units import annotate_times

    assert annotate_times(said, dt.datetime(2026, 4, 13, 19, 26, tzinfo=dt.UTC), "UTC")[0] == written


@pytest.mark.parametrize("said,written", [
    ("The review dragged on until 30 March.", "The review dragged on until 30 March (30 March 2026)."),
    ("I'll have the draft done by 30 April.", "I'll have the draft done by 30 April (30 April 2026)."),
])
def test_a_deadline_in_a_clause_about_the_past_was_a_past_day(said, written):
    from sheriff_vault.compaction.units import annotate_times

    assert annotate_times(said, dt.datetime(2026, 4, 13, 19, 26, tzinfo=dt.UTC), "UTC")[0] == written


def test_the_nth_is_the_date_said_earlier_with_that_day_while_it_is_ahead():
    """"a wedding on the 19th, so the recital moves" is about the recital's 19 September said two
    days before, not the 19th of this month."""
    from sheriff_vault.compaction.units import make_units

    t0 = dt.datetime(2026, 8, 9, 19, 0, tzinfo=dt.UTC)
    turns = [Turn("user", "Our autumn recital will be on Saturday 19 September in St Anne's.", t0, "t1", "Aroha"),
             Turn("user", "St Anne's has a wedding on the 19th so the recital moves to 26 September.",
                  t0 + dt.timedelta(days=2), "t2", "Aroha"),
             Turn("user", "The invoice is due on the 30th.", t0 + dt.timedelta(days=2), "t3", "Aroha")]
    bodies = [u.body for u in make_units(turns, "UTC", set())]
    assert "on the 19th (19 September 2026)" in bodies[1]
    assert "on the 30th (30 August 2026)" in bodies[2]


@pytest.mark.parametrize(("said", "written"), [
    # a bare day after a date said with its month name is a day of that month, not the next such day
    ("The fair moves to the second Saturday in October, the 10th.",
     "The fair moves to the second Saturday in October (10 October 2026), the 10th."),
    ("In November the choir sings on the 14th.", "In November 2026 the choir sings on the 14th (14 November 2026)."),
    ("The course ends on 30 September, and the exam is on the 21st.",
     "The course ends on 30 September 2026, and the exam is on the 21st (21 September 2026)."),
    ("The next meeting is 24 July, after the vote on the 20th.",
     "The next meeting is 24 July 2026, after the vote on the 20th (20 July 2026)."),
    # counter-examples: no month named before it, or a week said instead of a month
    ("The fitting is on the 19th.", "The fitting is on the 19th (19 June 2026)."),
    ("We moved last week and the boxes came on the 1st.",
     "We moved last week (week of 1 June 2026) and the boxes came on the 1st (1 June 2026)."),
])
def test_the_nth_after_a_date_said_with_its_month_is_a_day_of_that_month(said, written):
    assert annotate_times(said, dt.datetime(2026, 6, 10, 12, 0, tzinfo=dt.UTC), "UTC")[0] == written


@pytest.mark.parametrize(("said", "written"), [
    # a later day said after one in the same sentence, with no tense of its own, is of that day's month
    ("The roofer was finished on the 2nd and we had the skip away on the 5th.",
     "The roofer was finished on the 2nd (2 April 2026) and we had the skip away on the 5th (5 April 2026)."),
    ("The vet saw him on the 2nd, the stitches out on the 12th.",
     "The vet saw him on the 2nd (2 April 2026), the stitches out on the 12th (12 April 2026)."),
    # counter-examples: days ahead stay ahead, and a day said alone is read as before
    ("We start on the 1st and the scaffolding goes up on the 3rd.",
     "We start on the 1st (1 May 2026) and the scaffolding goes up on the 3rd (3 May 2026)."),
    ("The plasterer comes on the 26th.", "The plasterer comes on the 26th (26 May 2026)."),
])
def test_a_run_of_days_of_the_month_in_one_sentence_stays_in_one_month(said, written):
    assert annotate_times(said, dt.datetime(2026, 4, 28, 18, 0, tzinfo=dt.UTC), "UTC")[0] == written


@pytest.mark.parametrize(("said", "written"), [
    # a weekday counted in a month gets its date; its month without a year is the next one unless
    # the verb says it was
    ("We fly out on the last Friday in January.", "We fly out on the last Friday in January (29 January 2027)."),
    ("We flew out on the last Friday in January.", "We flew out on the last Friday in January (30 January 2026)."),
    ("The gig is the first Saturday of next month.", "The gig is the first Saturday of next month (4 July 2026)."),
    ("Fees rise on the first Wednesday in September; that's the 2nd.",
     "Fees rise on the first Wednesday in September (2 September 2026); that's the 2nd."),
    # counter-examples: a habit names no day; a plain weekday is read as before
    ("Payday falls on the last Friday of each month.", "Payday falls on the last Friday of each month."),
    ("The club meets on the first Tuesday of every month.", "The club meets on the first Tuesday of every month."),
    ("See you next Friday in the office.", "See you next Friday (12 June 2026) in the office."),
])
def test_a_weekday_counted_in_a_month_is_written_as_its_date(said, written):
    assert annotate_times(said, dt.datetime(2026, 6, 10, 12, 0, tzinfo=dt.UTC), "UTC")[0] == written


def two_people(question: str, answer: str) -> list[str]:
    turns = [Turn("user", question, at("2023-05-08T13:56:00Z"), "D1:1", "Melanie"),
             Turn("user", answer, at("2023-05-08T13:57:00Z"), "D1:2", "Caroline")]
    return [u.fact for u in make_units(turns, "UTC", set()) if u.turn.id == "D1:2"]


def test_an_answer_keeps_the_question_it_answers_however_long_it_is():
    """The question says what the answer is about ("looking into foster care" answers "any plans for
    the summer?"); a short reply needs it to be read at all, a long one to be found."""
    assert two_people("Wow, that's great. Any plans for the summer?", "Sweden.") == [
        'Caroline, asked "Any plans for the summer?": Sweden.']
    long = ("Looking into foster care, we've wanted for years to give children a safe place to grow up "
            "when they need one.")
    assert two_people("Any plans for the summer?", long) == [f'Caroline, asked "Any plans for the summer?": {long}']


def test_a_question_never_pushes_the_answer_out_of_its_fact():
    long = "I finally signed the lease on the studio space downtown after " + "weeks of back and forth " * 9 + "."
    got = two_people("How is the studio search going?", long)
    assert len(got) == 1 and got[0].startswith("Caroline: I finally signed")


def test_the_question_goes_with_the_sentence_that_answers_it():
    """"How's the pottery studio?" is answered by what the reply says of the studio, not by the
    congratulations said first; a reply sharing no word with the question gives it to its first fact."""
    got = two_people("This month I opened an online shop for my prints. How's the pottery studio?",
                     "Hey Melanie, congrats on the print shop! The pottery studio is struggling at the moment, "
                     "but I'm hopeful.")
    assert got == ["Caroline: Congrats on the print shop!",
                   "Caroline, asked \"How's the pottery studio?\": The pottery studio is struggling at the moment, "
                   "but I'm hopeful."]
    got = two_people("Anything new?", "I adopted a greyhound called Pepa. She sleeps all day on the sofa.")
    assert got[0].startswith('Caroline, asked "Anything new?": I adopted a greyhound')
    # a first fact sharing a number with the question answers it, however many words a later one shares
    got = two_people("If I add 2.20 for the box, what should buyers abroad pay?",
                     "11.60 plus 2.20 is 13.80 pounds. Unless you register for the scheme, buyers abroad pay duty too.")
    assert got[0].startswith('Caroline, asked "If I add 2.20') and got[0].endswith("13.80 pounds.")


def test_a_question_from_another_subject_is_no_context_of_the_reply():
    """The assistant's closing question about the boiler is not what the person's next turn, news of
    a job interview that placement put in a subject of its own, answers; in one subject it is."""
    turns = [Turn("user", "The boiler was serviced this morning.", at("2026-06-21T17:30:00Z"), "t1", "Ana"),
             Turn("assistant", "Good. Did the engineer check the pressure valve?", at("2026-06-21T17:30:30Z"), "t2",
                  "Assistant"),
             Turn("user", "The panel interview for the warehouse job is on Thursday.", at("2026-06-21T17:31:00Z"), "t3",
                  "Ana")]

    def reply(subject_of: dict[str, int] | None) -> str:
        return next(u.fact for u in make_units(turns, "UTC", set(), subject_of) if u.turn.id == "t3")

    alone = reply({"t1": 0, "t2": 0, "t3": 1})
    assert alone.startswith("Ana: The panel interview for the warehouse job is on Thursday")
    assert reply({"t1": 0, "t2": 0, "t3": 0}).startswith('Ana, asked "Did the engineer check the pressure valve?": The')
    assert reply(None).startswith('Ana, asked "Did the engineer check the pressure valve?"')


@pytest.mark.parametrize("said,fact", [
    # a transcript that prints the speaker before the words: the name is said once
    ("Sam: I signed up for the pottery class.", "Sam: I signed up for the pottery class."),
    ("sam: booked the pottery class.", "Sam: Booked the pottery class."),
    # another name, or a heading, before a colon is what the person said
    ("Note: the pottery class moved to the big room.", "Sam: Note: the pottery class moved to the big room."),
    ("Mia: she signed up for the pottery class too.", "Sam: Mia: she signed up for the pottery class too."),
])
def test_the_speakers_name_written_before_the_words_is_said_once(said: str, fact: str):
    assert facts(said) == [fact]


@pytest.mark.parametrize("said,when,written", [
    # the clause a weekday belongs to says which one: a plan ahead, a report behind
    ("He's flying to Oslo on Friday.", "2026-03-11T10:00:00Z", "He's flying to Oslo on Friday (13 March 2026)."),
    ("We'll repaint the shed on Friday.", "2026-03-11T10:00:00Z",
     "We'll repaint the shed on Friday (13 March 2026)."),
    ("We repainted the shed on Friday.", "2026-03-11T10:00:00Z", "We repainted the shed on Friday (6 March 2026)."),
    ("I had to cancel the lesson on Monday.", "2026-03-11T10:00:00Z",
     "I had to cancel the lesson on Monday (9 March 2026)."),
    ("I meant to call the plumber on Monday.", "2026-03-11T10:00:00Z",
     "I meant to call the plumber on Monday (9 March 2026)."),
    ("I had to move the pots and water the beds on Monday.", "2026-03-11T10:00:00Z",
     "I had to move the pots and water the beds on Monday (9 March 2026)."),
    # a decision or a promise in the past tense is about an act still to come when it was made
    ("We agreed to repaint the shed on Friday.", "2026-03-11T10:00:00Z",
     "We agreed to repaint the shed on Friday (13 March 2026)."),
    ("She promised to sand the door and rehang it on Friday.", "2026-03-11T10:00:00Z",
     "She promised to sand the door and rehang it on Friday (13 March 2026)."),
    # a verb joined to another with no subject of its own shares its form, whatever the tagger guessed
    ("Sand the door and recut the shelves on Friday.", "2026-03-11T10:00:00Z",
     "Sand the door and recut the shelves on Friday (13 March 2026)."),
    ("We sanded the door and reset the hinges on Friday.", "2026-03-11T10:00:00Z",
     "We sanded the door and reset the hinges on Friday (6 March 2026)."),
    # a weekday that names a noun's time is not moved by a past verb elsewhere in the sentence
    ("Dentist with Dr Brandt on Friday at 9:00, got it.", "2026-03-11T10:00:00Z",
     "Dentist with Dr Brandt on Friday (13 March 2026) at 9:00, got it."),
    # said on a Monday: the present tense names an event to come, even when the weekday is nearer behind
    ("Her recital is on Saturday.", "2026-03-09T10:00:00Z", "Her recital is on Saturday (14 March 2026)."),
    ("The plumber comes on Friday.", "2026-03-09T10:00:00Z", "The plumber comes on Friday (13 March 2026)."),
    ("Tom's driving us to the ferry on Saturday.", "2026-03-09T10:00:00Z",
     "Tom's driving us to the ferry on Saturday (14 March 2026)."),
    # ... but a form the past shares, a state after the event, and the past stay behind
    ("She says the pipes burst on Sunday.", "2026-03-09T10:00:00Z",
     "She says the pipes burst on Sunday (8 March 2026)."),
    ("I'm still sore from the hike on Saturday.", "2026-03-09T10:00:00Z",
     "I'm still sore from the hike on Saturday (7 March 2026)."),
    ("Tom's party was on Saturday.", "2026-03-09T10:00:00Z", "Tom's party was on Saturday (7 March 2026)."),
])
def test_a_weekday_is_read_in_the_tense_of_its_own_clause(said: str, when: str, written: str):
    assert annotate_times(said, at(when), "UTC")[0] == written


@pytest.mark.parametrize("said,written", [
    # after a possessive, "last" and "next" order the owner's own days: no day counted from now
    ("Her last Saturday at the shop is 25 April.", "Her last Saturday at the shop is 25 April 2026."),
    ("Tom's next Friday off is the 20th.", "Tom's next Friday off is the 20th (20 March 2026)."),
    # counter-examples: after an object pronoun or a verb they count from now
    ("I saw her last Friday.", "I saw her last Friday (6 March 2026)."),
    ("We met last Friday.", "We met last Friday (6 March 2026)."),
])
def test_last_and_next_after_a_possessive_name_no_day(said: str, written: str):
    assert annotate_times(said, at("2026-03-09T10:00:00Z"), "UTC")[0] == written


@pytest.mark.parametrize("said,kept", [
    # interjections, the listener's name and a lone word before a comma are lead-ins ...
    ("Oh, Sam, the greenhouse kit arrived.", ["Sam: The greenhouse kit arrived."]),
    ("Brilliant, the plumber can come on the 3rd.", ["Sam: The plumber can come on the 3rd (3 April 2026)."]),
    # ... but not a name that is the subject, nor a word that starts a list or has no clause after it
    ("Ingrid, my neighbour, lent us her trailer.", ["Sam: Ingrid, my neighbour, lent us her trailer."]),
    ("Quiet, tidy, the new flatmate is easy to live with.",
     ["Sam: Quiet, tidy, the new flatmate is easy to live with."]),
])
def test_a_lead_in_is_dropped_and_what_the_sentence_says_is_kept(said: str, kept: list[str]):
    turns = [Turn("user", said, at("2026-03-09T10:00:00Z"), "t1", "Sam"),
             Turn("user", "Noted.", at("2026-03-09T10:01:00Z"), "t2", "Lou")]
    assert [u.fact for u in make_units(turns, "UTC", set()) if u.turn.id == "t1"] == kept


@pytest.mark.parametrize("said,flag", [
    ("We decided on the green tiles.", "decision"),
    ("We're going with the cheaper quote.", "decision"),
    ("The report is done, 14 pages.", "done"),
    ("Merged the branch into main.", "done"),
    ("I still need to check the ferry times.", "loop"),
])
def test_what_a_sentence_reports_is_read_from_its_verbs(said: str, flag: str):
    assert flag in make_units([Turn("user", said, at("2026-03-09T10:00:00Z"), "t1", "Sam")], "UTC", set())[0].flags


@pytest.mark.parametrize("said,flag", [
    ("I can't decide on the tiles yet.", "decision"),
    ("It'll be done by Friday, 14 pages.", "done"),
    ("A fixed price of 300 EUR for the van.", "done"),
])
def test_a_verb_not_reported_as_done_flags_nothing(said: str, flag: str):
    units = make_units([Turn("user", said, at("2026-03-09T10:00:00Z"), "t1", "Sam")], "UTC", set())
    assert all(flag not in u.flags for u in units)


@pytest.mark.parametrize("said,kept", [
    ("Let me open the settings module and look for the timeout.", False),
    ("Now I'll run the linter over the package.", False),
    ("I'm going to rebuild the docker image.", False),
    ("I'm checking the failing job now.", False),
    ("I changed the retry limit to 5 and the suite passes.", True),
    ("The crash comes from a missing import in cli.py.", True),
    ("I'll remind you about the invoice on Monday.", True),
    ("I'll send you the slides.", True),  # the person is whom it is done for: a promise
    ("I'll help you set up the test runner by splitting the config.", False),  # the work, announced
    ("Let me know when the keys arrive.", True),
])
def test_an_assistant_announcing_its_next_step_is_no_fact(said: str, kept: bool) -> None:
    """Coding sessions narrate ("let me look at ..."); memory keeps what was done and found."""
    import datetime as dt

    from sheriff_vault.store.buffer import Turn

    turns = [Turn("user", "The nightly build fails, can you fix it?", dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC), "t1"),
             Turn("assistant", said, dt.datetime(2026, 3, 2, 9, 1, tzinfo=dt.UTC), "t2")]
    facts = [u for u in make_units(turns, "UTC", set()) if u.turn.id == "t2"]
    assert bool(facts) is kept, [u.text for u in facts]


def test_a_speakers_name_as_the_subject_stays_and_as_an_address_goes() -> None:
    """"Priya booked the van." said by Priya keeps its subject; "Thanks, Priya!" drops the address."""
    import datetime as dt

    from sheriff_vault.store.buffer import Turn

    at = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    said = make_units([Turn("user", "Priya booked the van for the move on Friday.", at, "t1", "Priya"),
                       Turn("user", "Wow, Priya! The van holds 12 cubic metres.", at, "t2", "Jon")], "UTC", set())
    facts = {u.turn.id: u.fact for u in said}
    assert facts["t1"].startswith("Priya: Priya booked the van"), facts
    assert facts["t2"].startswith("Jon: The van holds"), facts


@pytest.mark.parametrize(("said", "dated"), [
    ("The form takes a date like 2024-05-01.", False),  # an instance of a kind: no day of the talk
    ("The export skips a weekday like Sunday.", False),
    ("We met at the pool yesterday.", True),
])
def test_a_date_given_as_an_example_is_no_event(said: str, dated: bool) -> None:
    _, hint, event_day = annotate_times(said, at("2026-05-12T09:00:00Z"), "UTC")
    assert (event_day is not None or hint is not None) is dated


@pytest.mark.parametrize("said,kept", [
    # a verb of change says a value moved, however few its words: news for memory
    ("they shifted it two days later.", True),
    ("It moved to next month.", True),
    # everyday words alone say nothing
    ("It was fine in the end.", False),
])
def test_a_change_is_news_however_short(said: str, kept: bool):
    from sheriff_vault.compaction.units import informative

    assert informative(said) is kept


@pytest.mark.parametrize("said,kept", [
    # a sentence that counts matters not named yet announces the talk to come and keeps nothing
    ("Would be great to have some help keeping two things straight this week.", []),
    ("I'd like some help keeping a couple of things straight tonight.", []),
    ("Need a bit of help with a few questions this week.", []),
    # counter-examples: a definite general noun points back at a named subject, a general noun beside a
    # thing names it, and a change said of a general noun is news
    ("These issues are blocking the release.", ["Sam: These issues are blocking the release."]),
    ("A few things went wrong with the van.", ["Sam: A few things went wrong with the van."]),
    ("Prices went up again.", ["Sam: Prices went up again."]),
    # a bare plural or one an adjective describes speaks of things in general, not of a count of them
    ("Things have been quiet this week.", ["Sam: Things have been quiet this week (week of 9 March 2026)."]),
    ("New things can be scary.", ["Sam: New things can be scary."]),
])
def test_a_sentence_that_announces_matters_to_come_keeps_nothing(said: str, kept: list[str]):
    assert facts(said, name="Sam") == kept
