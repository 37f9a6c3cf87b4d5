"""Recall that answers (retrieval/when.py, ranking.pick_facts, RecallResult.explain): time phrases
read as a person means them, the current value before its history, a short answer to a narrow
question, and an account of every fact cut. Real files, real git, a real Tantivy index."""
from __future__ import annotations

import datetime as dt

import pytest
from memory_fixtures import build, day

from sheriff_vault.retrieval.ranking import recall
from sheriff_vault.retrieval.result import FactHit, latest_first
from sheriff_vault.retrieval.when import AS_OF, question_window, said_time
from sheriff_vault.store import gitlog
from sheriff_vault.store.edits import create_topic
from sheriff_vault.store.items import Citation, Item
from sheriff_vault.store.topics import fact

NOW = day("2026-04-01T10:00:00")
ASKED = dt.datetime(2022, 11, 20, tzinfo=dt.UTC)


def utc(*parts: int) -> dt.datetime:
    return dt.datetime(*parts, tzinfo=dt.UTC)


@pytest.mark.parametrize("question,start,end,granularity", [
    # an explicit date beats a relative phrase in the same question
    ("what did I do last Friday on 23 January, 2022?", utc(2022, 1, 23), utc(2022, 1, 24), "day"),
    ("what happened yesterday (7 May 2022)?", utc(2022, 5, 7), utc(2022, 5, 8), "day"),
    ("where did we go on 3 May 2022, last week?", utc(2022, 5, 3), utc(2022, 5, 4), "day"),
    # "as of X" is the state at X: everything up to the end of X
    ("what was the budget as of September 2022?", None, utc(2022, 10, 1), AS_OF),
    ("who was the coach at the time of June 2022?", None, utc(2022, 7, 1), AS_OF),
    ("what was the plan as of 3 May?", None, utc(2022, 5, 4), AS_OF),
    # a relative phrase alone, and an ambiguous month, look back
    ("what did we do last Friday?", utc(2022, 11, 18), utc(2022, 11, 19), "day"),
    ("what did we decide in March?", utc(2022, 3, 1), utc(2022, 4, 1), "month"),
])
def test_the_window_a_question_means(question, start, end, granularity):
    window = question_window(question, ASKED, "UTC", None)
    assert window is not None
    assert (window.start, window.end, window.granularity) == (start, end, granularity)


def test_no_time_phrase_no_window_and_sleep_phrases_are_about_talk():
    assert question_window("what is the Japan budget now?", ASKED, "UTC", None) is None
    slept = question_window("what were we doing before you slept?", ASKED, "UTC", ASKED - dt.timedelta(days=2))
    assert slept is not None and said_time(slept)
    assert not said_time(question_window("what happened in March?", ASKED, "UTC", None))


def cite(turn: str) -> list[Citation]:
    return [Citation("conversations/x.md", (turn,))]


def remembered(vault, name: str, facts: list[Item], aliases: tuple[str, ...] = (), one_liner: str = ""):
    """A topic of these dated, cited lines, opened on 1 March beside the shared ones, indexed and
    committed as a sleep would leave it."""
    topic = create_topic(vault, name, now=day("2026-03-01T09:00:00"), aliases=list(aliases), one_liner=one_liner,
                         commit=False).topic
    for item in facts:
        topic.add_item(item)
    topic.save()
    build(vault)
    gitlog.commit_paths(vault.root, f"test: {name}", ["topics"])
    return vault


@pytest.fixture
def japan(vault):
    """A trip whose budget was corrected on 10 March: the old value struck, as sleep writes it."""
    old = fact("Budget for the Japan trip is 4000 EUR.", day("2026-03-01T09:00:00"), cite("t1"))
    old.superseded = "2026-03-10"
    return remembered(vault, "Japan trip", [
        old, fact("Flights to Osaka are booked.", day("2026-03-02T09:00:00"), cite("t3")),
        fact("Budget for the Japan trip is 4500 EUR now.", day("2026-03-10T09:00:00"), cite("t9"))], ("japan",))


def test_the_current_value_leads_and_the_old_one_is_history(japan):
    text = recall(japan, "what is the Japan budget now?", now=NOW).render(4000)
    assert text.index("4500 EUR") < text.index("Earlier values") < text.index("4000 EUR")


def test_as_of_a_date_before_the_correction_the_old_value_was_current(japan):
    result = recall(japan, "what was the Japan budget as of 5 March 2026?", now=NOW)
    assert result.window is not None and result.window.granularity == AS_OF
    text = result.render(4000)
    assert "4000 EUR" in text and "Earlier values" not in text.split("4000 EUR")[0]
    assert "4000 EUR" in text.split("\n## ")[1]  # under its topic, not as history
    assert text.find("4500 EUR") == -1 or text.index("4000 EUR") < text.index("4500 EUR")


def test_an_event_matches_the_day_it_happens_not_the_day_it_was_said(vault):
    build(vault)  # "The party is on Saturday 14 February 2026", said on 10 February
    on_the_day = recall(vault, "what happened on 14 February 2026?", now=NOW)
    facts = [f for t in on_the_day.topics for f in t.facts if f.signals.get("in_window")]
    assert any("14 February" in f.text for f in facts)
    said_day = recall(vault, "what happened on 10 February 2026?", now=NOW)
    assert not any("14 February" in f.text for t in said_day.topics for f in t.facts if f.signals.get("in_window"))


def test_the_floor_cuts_what_is_far_below_the_best_fact_and_keeps_the_best(vault):
    build(vault)
    question = "party budget"
    vault.config.retrieval.fact_floor = 0.0
    everything = recall(vault, question, now=NOW, explain=True)
    vault.config.retrieval.fact_floor = 0.6
    narrow = recall(vault, question, now=NOW, explain=True)
    best = max((f for t in everything.topics for f in t.facts), key=lambda f: f.score)
    shown = [f for t in narrow.topics for f in t.facts]
    assert 0 < len(shown) < sum(len(t.facts) for t in everything.topics)
    assert best.doc_id in {f.doc_id for f in shown} and all(f.score >= 0.6 * best.score for f in shown)
    assert any(c.reason == "floor" and c.fact.score < 0.6 * best.score for c in narrow.cuts)


def test_a_question_about_nothing_in_memory_gets_no_facts(vault):
    """Nothing about Jenkins is remembered: no fact shares a word with the question or comes close
    in meaning, so recall says so instead of showing the nearest party and garden lines."""
    build(vault)
    empty = recall(vault, "how many jenkins jobs do we have?", now=NOW, explain=True)
    assert empty.order == [] and "(nothing relevant in memory)" in empty.render(2000)
    assert empty.cuts and {c.reason for c in empty.cuts} == {"nothing in memory matches"}
    narrow = recall(vault, "what's the postgres version?", now=NOW)
    assert [t.name for t in narrow.topics] == ["Database migration"]


def test_a_possessive_does_not_match_every_possessive():
    from sheriff_vault.index.engine import query_terms

    assert query_terms("what's Caroline's party budget?") == "caroline party budget"
    assert query_terms("is it 3 o'clock?") == "3 clock"


def test_explain_accounts_for_every_fact_shown_and_cut(vault):
    build(vault)
    result = recall(vault, "party budget and the cake", now=NOW, explain=True)
    text = result.explain(260)
    shown = text.split("facts shown: ")[1]
    assert int(shown.split()[0]) >= 1 and "relevance=" in shown
    cut_line = next(line for line in text.splitlines() if line.startswith("facts cut: "))
    counted = sum(int(part.split(" by ")[0]) for part in cut_line.split("(", 1)[1].split(")")[0].split(", "))
    total = sum(len(t.facts) for t in result.topics) + len(result.cuts)
    assert int(shown.split()[0]) + counted == total
    assert "budget" in cut_line


def test_a_long_fact_shows_the_clause_that_answers():
    """A one-sentence fact too long for its line keeps the clause the question asks about, not its
    first 150 characters ("…so we have 47 jenkins jobs, not 39")."""
    from sheriff_vault.retrieval.excerpt import excerpt
    fact = ("Priya: Marek went through the old jenkins folders this morning (17 April 2026 morning) and found "
            "another 8 jobs in a legacy folder that weren't on our list, so we have 47 jenkins jobs, not 39.")
    assert "47 jenkins jobs" in excerpt(fact, "How many Jenkins jobs are there in total?")
    assert excerpt(fact, "Who is Marek?").startswith("Priya: Marek went through the old jenkins folders")
    grant = ("Sam: Fund update: Jonas reworked the cost sheet: the solar lights cost more than we "
             "expected, so we're now asking for 7,300 EUR instead of 6,100.")
    assert "asking for 7,300 EUR" in excerpt(grant, "How much is the allotment club asking for in the fund?")
    short = "Priya: We counted 39 jenkins jobs."
    assert excerpt(short, "How many Jenkins jobs are there?") == short


def test_a_long_fact_is_not_cut_in_the_middle_of_the_value_it_moves_to():
    """A sentence too long for its line, whose first characters end on the number of a moved date
    ("…is now on Friday 9…"), shows the clause with the whole date instead."""
    from sheriff_vault.retrieval.excerpt import excerpt

    fact = ("Odile: The garage rang on Monday (2 March 2026): their apprentice is off sick all week, so the "
            "van's service is now on Friday 9 October 2026 instead of 25 September 2026. (Assistant: Ask whether "
            "the courtesy car is still free.)")
    shown = excerpt(fact, "When is the van's service?", limit=134)
    assert "9 October 2026" in shown
    assert not shown.rstrip("…").endswith("9")


@pytest.mark.parametrize("kind,done,mark", [("loop", False, "[open] "), ("loop", True, "[done] "),
                                            ("event", False, "[event] "), ("fact", False, "")])
def test_a_closed_loop_reads_as_done_not_as_still_to_do(kind, done, mark):
    from sheriff_vault.retrieval.result import FactHit

    hit = FactHit("d1", kind, "User: I still need to book the park shelter.", "2026-02-10",
                  [{"turns": ["t5"]}], 1.0, {}, 12, "topics/party.md", done)
    assert hit.render() == f"- 2026-02-10 {mark}User: I still need to book the park shelter. [t5]"


def test_a_question_about_two_people_shows_the_best_of_each(vault):
    """Jon talks about dance much more than Gina does; "what do Jon and Gina both dance?" still
    shows Gina's dance lines among the first, not after all of Jon's."""
    jon = [f"Jon: My dance crew rehearsed {move} for the showcase." for move in
           ("the contemporary piece", "a hip hop routine", "the finale lift", "a jazz combo", "a tango section",
            "the opening formation", "a breakdance battle", "the ballet warm-up")]
    gina = ["Gina: I used to dance ballet as a teenager.", "Gina: I still dance salsa with friends on Fridays."]
    build(vault, [("Dance studio", [], "2026-03-01T09:00:00", jon),
                  ("Gina's hobbies", [], "2026-03-02T09:00:00", gina)])
    result = recall(vault, "what do Jon and Gina both dance?", now=NOW)
    facts = {f.doc_id: f for t in result.topics for f in t.facts}
    first = [facts[d].text for d in result.order[:4]]
    assert sum(t.startswith("Gina:") for t in first) >= 2 and sum(t.startswith("Jon:") for t in first) >= 2, first
    alone = recall(vault, "what does Jon dance?", now=NOW)
    shown = {f.doc_id: f for t in alone.topics for f in t.facts}
    assert all(shown[d].text.startswith("Jon:") for d in alone.order[:3])


@pytest.fixture
def japan_unmarked(vault):
    """The same trip written by hand (or before sleep marked corrections): no struck line, only dates."""
    return remembered(vault, "Japan trip", [
        fact("Budget for the Japan trip is 4000 EUR.", day("2026-03-01T09:00:00"), cite("t1")),
        fact("Flights to Osaka are booked.", day("2026-03-02T09:00:00"), cite("t3")),
        fact("We fly back on 24 March with 2 suitcases.", day("2026-03-02T09:00:00"), cite("t4")),
        fact("Budget for the Japan trip is 4500 EUR.", day("2026-03-10T09:00:00"), cite("t9"))], ("japan",))


def test_without_markers_the_newer_value_leads_and_the_older_reads_as_earlier(japan_unmarked):
    result = recall(japan_unmarked, "what is the Japan budget now?", now=NOW)
    text = result.render(4000)
    assert text.index("4500 EUR") < text.index("Earlier values") < text.index("4000 EUR")
    assert "[earlier, superseded 2026-03-10] Budget for the Japan trip is 4000 EUR." in text
    assert "Earlier values" not in text.split("Flights to Osaka")[0] or "Osaka" not in text
    as_of = recall(japan_unmarked, "what was the Japan budget as of 5 March 2026?", now=NOW).render(4000)
    assert "4000 EUR" in as_of.split("\n## ")[1] and "Earlier values" not in as_of.split("4000 EUR")[0]


@pytest.fixture
def struck_by_a_turn(vault):
    """A total corrected by a line that shares no word with the question: sleep struck the old line
    naming the turn that corrected it; that turn made two lines, and a third cites it as the
    question it answered."""
    old = fact("The total is 52,000.", day("2026-03-01T09:00:00"), cite("t4"))
    old.superseded, old.superseded_by = "2026-03-03", "t6"
    return remembered(vault, "Grant budget", [
        old, fact("Personnel is 31,200 for three years.", day("2026-03-01T09:00:00"), cite("t3")),
        fact("Assistant: Summed again, the lines give 48,700, not 52,000.", day("2026-03-03T09:00:00"), cite("t6")),
        fact("Assistant: The difference is one line counted twice.", day("2026-03-03T09:00:00"), cite("t6")),
        fact('Lena, asked "So the total is 48,700, not 52,000?": Yes, and the form goes out today.',
             day("2026-03-03T09:00:00"), [Citation("conversations/x.md", ("t6", "t7"))]),
        *(fact(f"Work package {i + 1} is drafted in the shared folder.", day("2026-03-04T09:00:00"),
               cite(f"t{10 + i}")) for i in range(6))])


def test_a_struck_value_brings_the_line_that_corrected_it(struck_by_a_turn):
    """The question matches the old line only; its mark names the turn whose line holds the current
    value, and of the lines citing that turn the one whose own words restate it comes (not the
    answer that only quotes it), before the history."""
    result = recall(struck_by_a_turn, "what is the total?", now=NOW)
    text = result.render(1200)
    assert text.index("48,700") < text.index("Earlier values") < text.index("The total is 52,000.")
    carried = [f for t in result.topics for f in t.facts if "replaces" in f.signals]
    assert [f.text for f in carried] == ["Assistant: Summed again, the lines give 48,700, not 52,000."]
    assert carried and carried[0].signals.get("replaces", "").endswith("#L" + str(
        next(f.line for t in result.topics for f in t.facts if f.superseded)))


@pytest.fixture
def moved_beside(vault):
    """A turn cut into two lines, "the reunion is in May" and "thinking Friday 8 May", the second
    struck later by a turn that names neither the reunion nor anything else the question says."""
    old = fact("Noor: Thinking Friday 8 May, about 40 people.", day("2026-03-01T09:00:00"), cite("t3"))
    old.superseded, old.superseded_by = "2026-03-09", "t9"
    return remembered(vault, "Class reunion", [
        fact("Noor: The class reunion is in May and Sami and I are booking a hall.", day("2026-03-01T09:00:00"),
             cite("t3")), old,
        *(fact(f"Noor: Playlist part {i + 1} is ready in the shared folder.", day("2026-03-04T09:00:00"),
               cite(f"t{5 + i % 2}")) for i in range(5)),
        fact("Noor: Sami's ferry from Bergen cannot make Friday 8 May, only the weekend after. "
             "We've shifted it to Friday 15 May, same hall and the same start at seven in the evening.",
             day("2026-03-09T09:00:00"), cite("t9"))])


def test_a_line_said_beside_a_matching_fact_brings_its_correction(moved_beside):
    """The question matches the first line only; the same turn's struck line brings the line that
    replaced it, shown by the sentence that says its new value (the struck line is history)."""
    result = recall(moved_beside, "when is the class reunion?", now=NOW)
    text = result.render(1200)
    struck = text.find("Thinking Friday 8 May")
    assert "15 May" in text and (struck < 0 or text.index("15 May") < struck)
    carried = [f for t in result.topics for f in t.facts if "replaces" in f.signals]
    assert [f.excerpt for f in carried] == ["Noor: …We've shifted it to Friday 15 May, same hall and the same "
                                            "start at seven in the evening."]


def test_an_excerpt_shows_first_the_numbers_a_correction_says_anew():
    from sheriff_vault.retrieval.excerpt import excerpt, new_values

    line = ("Sami's ferry from Bergen cannot make Friday 8 May, only the weekend after. "
            "We've shifted it to Friday 15 May, same hall.")
    # a name that opens a sentence is read as no name: only "Bergen" is new beside the new date
    assert new_values(line, "Thinking Friday 8 May, about 40 people.") == {"15", "Bergen"}
    assert "15 May" not in excerpt(line, "when is the reunion?", limit=80)
    assert "15 May" in excerpt(line, "when is the reunion?", limit=80, new={"15", "Bergen"})


def test_an_excerpt_shows_first_the_names_a_correction_says_anew():
    """A correction that names its new value ("now she sings Schubert") is shown by that sentence,
    not by the one sharing most words with the question; a name the question says is not new."""
    from sheriff_vault.retrieval.excerpt import excerpt, new_values

    line = ("Ines: Mrs Albers rewrote the plan for the recital. The sonata was far too heavy for Maja at the "
            "recital, so it is out. Now she sings Schubert, Heidenröslein. Everyone is thrilled.")
    question = "Which piece does Maja play at the recital?"
    new = new_values(line, "Ines: Maja plays a Haydn sonata and Brahms.", question)
    assert new == {"Albers", "Schubert", "Heidenröslein"}
    assert "Schubert" not in excerpt(line, question, limit=100)
    assert "Now she sings Schubert, Heidenröslein." in excerpt(line, question, limit=100, new=new)


def test_an_excerpt_shows_a_corrected_price_before_the_clause_that_repeats_the_old_one():
    """"at £2.15 a jar, not the £1.90 you had": the clause with the new price is shown, though it
    has no other word to say, and the clause that repeats the replaced price gives way to it."""
    from sheriff_vault.retrieval.excerpt import excerpt, new_values, said_values

    line = ("Assistant: Those are the right jars, 120 amber jars with lids, but at £2.15 a jar, not the £1.90 "
            "you had: their spring catalogue from 3 March 2026 applies. That's £30 more on the order, £258 instead "
            "of £228.")
    old = "Odile: The jars come from Brannock Glass at £1.90 a jar, amber, 250 ml."
    question = "How much does each jar from Brannock Glass cost?"
    shown = excerpt(line, question, new=new_values(line, old, question),
                    old=said_values(old) - said_values(question))
    assert "2.15" in shown and "1.90" not in shown
    # without the replaced line to read, the clause saying the old price may come first
    assert shown != excerpt(line, question, new=new_values(line, old, question))


def _doc(text: str, date: str, line: int, superseded: str = ""):
    from sheriff_vault.index.docs import Doc

    return Doc(f"d{line}", "fact", "topics/t.md", "topics/t.md", text, "", date, line, "[]", False, "[]", superseded)


@pytest.mark.parametrize("facts,replaced", [
    # a quantity given a new value on a later day: the older is history, whichever line comes first
    ([("User: Budget is 400 USD.", "2026-02-10"), ("User: the budget went up to 500 USD.", "2026-02-17")],
     {1: "2026-02-17"}),
    ([("User: the budget went up to 500 USD.", "2026-02-17"), ("User: Budget is 400 USD.", "2026-02-10")],
     {2: "2026-02-17"}),
    # the same value said again, or a new value on the same day (no order to read): both current
    ([("Budget is 400 USD.", "2026-02-10"), ("So the budget is 400 USD.", "2026-02-17")], {}),
    ([("Budget is 400 USD.", "2026-02-10"), ("Budget is 500 USD.", "2026-02-10")], {}),
    # a fact keeps its place while any quantity of it is still current
    ([("Budget is 400 USD and we invited 25 guests.", "2026-02-10"), ("Budget is 500 USD.", "2026-02-17")], {}),
    # two different quantities, or one only a unit names ("amount"), are not one quantity
    ([("The hotel costs 120 EUR a night.", "2026-02-10"), ("The budget is 500 EUR.", "2026-02-17")], {}),
    ([("We paid 40 EUR.", "2026-02-10"), ("We paid 60 EUR.", "2026-02-17")], {}),
    # a line sleep struck already is history on its own terms
    ([("Budget is 400 USD.", "2026-02-10", "2026-02-12"), ("Budget is 500 USD.", "2026-02-17")], {}),
])
def test_which_unmarked_fact_a_newer_one_replaced(facts, replaced):
    from sheriff_vault.retrieval.current import replaced_by_date

    docs = [_doc(f[0], f[1], i, *(f[2:])) for i, f in enumerate(facts, 1)]
    assert replaced_by_date(docs) == {f"d{i}": d for i, d in replaced.items()}


def test_a_time_window_narrows_a_subject_and_stands_alone_without_one(vault):
    """"What did we decide about the database last week?" shows the database's lines of last week,
    even one that shares no word with the question, and not every other line said then (the
    booked shelter); "what did we talk about last week?" shows everything said then."""
    build(vault, [("Database migration", [], "2026-03-24T09:00:00",
                   ["We are moving the orders database to Postgres 16.",
                    "We agreed to add the invoices index first and rerun the dry run on Thursday."]),
                  ("Birthday party", [], "2026-03-24T12:00:00",
                   ["Back to the party: the budget went up to 500 USD because we added a bouncy castle.",
                    "Booked the park shelter this morning, so that's done."]),
                  ("Garden", [], "2026-03-25T09:00:00", ["The hose at the tap leaks again."]),
                  ("Old notes", [], "2026-01-05T09:00:00", ["The database backups run nightly."])])
    vault.config.retrieval.fact_floor = 0.0  # what is shown here is decided by matching, not the floor
    about = recall(vault, "what did we decide about the database last week?", now=NOW, explain=True)
    facts = {f.doc_id: f.text for t in about.topics for f in t.facts}
    order = [facts[d] for d in about.order]
    assert ["Postgres" in t or "invoices" in t for t in order[:2]] == [True, True], order
    assert not any("shelter" in t or "hose" in t for t in order), order
    assert {c.fact.text: c.reason for c in about.cuts}["Booked the park shelter this morning, so that's done."] \
        == "no match"
    everything = recall(vault, "what did we talk about last week?", now=NOW)
    texts = [f.text for t in everything.topics for f in t.facts]
    assert any("invoices index" in t for t in texts) and any("shelter" in t for t in texts), texts


def test_a_question_naming_two_subjects_shows_the_best_of_each(vault):
    """Every kitchen line says "kitchen"; the shed's lines never say "shed". Asked about both by
    name, the shed's lines still come among the first, not after all of the kitchen's."""
    kitchen = [f"The kitchen {part} for the kitchen renovation." for part in
               ("cabinets arrive on Monday", "tiles are back-ordered", "plumber comes Thursday", "worktop is oak",
                "lights need an electrician", "budget holds so far", "floor gets sealed last", "sink is the big one")]
    shed = ["The roof panels arrived on Tuesday.", "We painted the door dark green."]
    build(vault, [("Kitchen renovation", ["the kitchen"], "2026-03-01T09:00:00", kitchen),
                  ("Garden shed", ["the shed"], "2026-03-02T09:00:00", shed)])
    result = recall(vault, "how are the kitchen and the shed coming along?", now=NOW)
    facts = {f.doc_id: f for t in result.topics for f in t.facts}
    first = [facts[d].text for d in result.order[:4]]
    assert sum(t in shed for t in first) == 2 and sum("kitchen" in t for t in first) == 2, first


@pytest.fixture
def saturday(vault):
    """A party fixed for a day in February, a database move "this month" said in late March, and a
    garden line said on Saturday 28 March (NOW is Wednesday 1 April)."""
    build(vault, [("Caroline's birthday party", [], "2026-02-10T09:00:00",
                   ["The party is on Saturday 14 February 2026 at Riverside Park, starting at 3pm."]),
                  ("Database migration", [], "2026-03-26T09:00:00",
                   ["We are moving the orders database to Postgres 16 this month (March 2026)."]),
                  ("Garden", [], "2026-03-28T10:00:00", ["Planted the tomato seedlings in the raised beds."])])
    return vault


def test_a_window_narrows_a_question_but_never_drops_its_subject(saturday):
    """"Is the party still on Saturday?" is about the party, whenever its lines were said: the
    window ("on Saturday" = 28 March) must not leave only the garden line said that day."""
    result = recall(saturday, "is the party still on saturday?", now=NOW)
    assert result.window is not None and result.window.start == utc(2026, 3, 28)
    facts = {f.doc_id: f.text for t in result.topics for f in t.facts}
    assert facts[result.order[0]].startswith("The party is on Saturday 14 February"), list(facts.values())


def test_a_fact_dated_by_its_month_is_not_in_a_day(saturday):
    """"What happened on Saturday?": the tomatoes, not the move "this month", which says nothing of
    that day; asked for the month, the move is in it."""
    day_result = recall(saturday, "what happened on saturday?", now=NOW)
    in_window = [f.text for t in day_result.topics for f in t.facts if f.signals.get("in_window")]
    assert any("tomato" in t for t in in_window) and not any("Postgres" in t for t in in_window), in_window
    month = recall(saturday, "what happened in March?", now=NOW)
    assert any("Postgres" in f.text for t in month.topics for f in t.facts if f.signals.get("in_window"))


def test_a_question_after_one_value_gets_a_short_answer(japan_unmarked):
    """"What is the Japan budget now?" asks for one value: the budget lines, not every line of the
    trip (the flights, the suitcases), which a broader question about the trip still gets."""
    narrow = recall(japan_unmarked, "what is the Japan budget now?", now=NOW, explain=True)
    text = narrow.render(4000)
    assert "4500 EUR" in text and "Osaka" not in text and "suitcases" not in text, text
    assert any(c.reason == "floor" and "Osaka" in c.fact.text for c in narrow.cuts)
    broad = recall(japan_unmarked, "tell me about the Japan trip budget", now=NOW).render(4000)
    assert "4500 EUR" in broad and "Osaka" in broad, broad


def test_a_long_correction_shows_the_value_it_gives():
    """The new deadline sits in a short last sentence that shares no word with the question; the
    excerpt keeps it (with the sentence it finishes), not the lead-in that shares most words."""
    from sheriff_vault.retrieval.excerpt import excerpt

    fact = ("Ana: Oh, and a bit of luck with the bid: the foundation extended its call, the form now closes 30 May "
            "2026, so the faculty moved our internal deadline as well. It's 22 May 2026 now instead of 8 May 2026.")
    shown = excerpt(fact, "What is the internal deadline for the foundation bid?")
    assert "22 May 2026 now instead of 8 May 2026" in shown and "internal deadline" in shown, shown
    assert not shown.startswith("Ana: Oh,")


ROOF = [("Rental house roof", ["the roof"], "2026-03-02T19:00:00",
         ["The roof of the flat I let on Mill Road is leaking.",
          "A roofer from the village comes round on Friday to inspect the roof.",
          "The tenant put a bucket under the drip in the back bedroom.",
          "New price is £2,780, not £2,150.",
          "The ceiling needs replastering after the roof is done."])]


def test_a_how_much_question_prefers_the_line_that_states_an_amount(vault, monkeypatch):
    """"How much does the roof repair cost?" asks for money: a line that states an amount ranks
    higher than it would for its words alone, as a "when" question prefers dated lines."""
    from sheriff_vault.retrieval import ranking

    build(vault, ROOF)
    question = "How much does the roof repair at the rental house cost?"

    def rank_of_price() -> tuple[int, float]:
        result = recall(vault, question, now=NOW, explain=True)
        ranked = sorted([f for t in result.topics for f in t.facts] + [c.fact for c in result.cuts],
                        key=lambda f: -f.score)
        at = next(i for i, f in enumerate(ranked) if "2,780" in f.text)
        return at, ranked[at].score

    with_focus = rank_of_price()
    monkeypatch.setattr(ranking, "_HOW_MUCH", ranking.re.compile(r"(?!x)x"))
    without = rank_of_price()
    assert with_focus[1] > without[1] and with_focus[0] <= without[0]


@pytest.mark.parametrize("text, money", [("The quote is 3,200 kroner.", True), ("It came to $40.", True),
                                         ("Fees are 900 NOK a term.", True), ("Add 1 cup of rice.", False),
                                         ("We invited 30 guests.", False), ("Try 2 all in.", False)])
def test_an_amount_of_money_is_a_sign_or_a_currency_named_after_its_number(text: str, money: bool) -> None:
    from sheriff_vault.retrieval.ranking import _names_money

    assert _names_money(text) is money


def test_the_topic_holding_the_best_fact_is_read_first():
    """Topics are chosen by their own score, but a reader should meet the best fact first: the
    group holding it leads, each group's facts stay in rank order."""
    from sheriff_vault.retrieval.result import FactHit, RecallResult, TopicHit

    def hit(doc_id: str, text: str, path: str) -> FactHit:
        return FactHit(doc_id, "fact", text, "2026-03-01", [{"turns": [doc_id]}], 1.0, {}, 1, path)

    party = TopicHit("topics/party.md", "t1", "Party", "", "2026-03-01", 2.0, {},
                     [hit("p1", "Sam: The party is on Saturday.", "topics/party.md"),
                      hit("p2", "Sam: Ana brings the cake.", "topics/party.md")])
    venue = TopicHit("topics/venue.md", "t2", "Venue", "", "2026-02-01", 1.0, {},
                     [hit("v1", "Sam: The venue is the boathouse.", "topics/venue.md")])
    result = RecallResult("where is the party?", "deep", [], None, NOW, [party, venue], ["v1", "p2", "p1"])
    text = result.render(2000)
    assert text.index("## Venue") < text.index("## Party")
    assert text.index("Ana brings the cake") < text.index("on Saturday")
    other = RecallResult("where is the party?", "deep", [], None, NOW, [party, venue], ["p1", "v1", "p2"]).render(2000)
    assert other.index("## Party") < other.index("## Venue")


DRIVING = [("Driving test", ["the test"], "2026-04-22T20:30:00",
            ["Lena: I booked the driving test at the Wilton centre.",
             "Assistant: The driving test is now on Thursday 18 June at 09:40 at Wilton, instead of 11 June.",
             "Ciaran: Lena still checks the mirror too late before changing lane.",
             "Ciaran: My own test was years ago, in the old centre."])]


def test_a_question_naming_the_person_does_not_discount_the_assistant_saying_their_matters_back(vault):
    """"When is Lena's driving test?" prefers what Lena said over what another person said; the
    assistant's words are Lena's own matters said back to her, neither preferred nor discounted."""
    build(vault, DRIVING)
    result = recall(vault, "When is Lena's driving test?", now=NOW, explain=True)
    focus = {f.text[:20]: f.signals.get("focus", 1.0)
             for f in [f for t in result.topics for f in t.facts] + [c.fact for c in result.cuts]}
    assert focus["Lena: I booked the d"] > 1.0
    assert focus["Assistant: The drivi"] == 1.0
    assert focus["Ciaran: My own test "] < 1.0  # another person's words, not about Lena


def test_an_excerpt_keeps_the_corrected_value_a_long_fact_opens_with():
    """Sleep writes a correction current value first ("3 April, not 27 March: ..."); however long
    the fact, recall's excerpt keeps that head before the sentences nearest the question."""
    from sheriff_vault.retrieval.excerpt import excerpt
    from sheriff_vault.text import correction_lead

    fact = ("Mira: " + correction_lead("sunday 9 May", "Sunday 2 May") + "News on the choir weekend. "
            "The hall had a wedding booked on the 2nd, so we sing on sunday 9 may now, same programme. "
            "(Assistant: Noted: the choir concert at St Anne's hall is now on Sunday 9 May.)")
    question = "When is the choir concert at St Anne's hall?"
    shown = excerpt(fact, question)
    assert shown.startswith("Mira: Sunday 9 May, not Sunday 2 May: ") and len(shown) <= 160
    assert shown.index("9 May") < shown.index("2 May")
    plain = excerpt("Mira: " + fact[fact.index("News"):], question)
    assert not plain.startswith("Mira: Sunday 9 May")


WRIST = [("Wrist", ["the wrist"], "2026-04-22T20:30:00",
          ["Noor: The wrist splint helps, and the hand clinic changed my exercises.",
           "Noor: Maren at the hand clinic moulded me a new splint.",
           "Noor: Thanks, sounds good, the wrist is better on Mondays."])]


def test_a_question_after_a_person_prefers_the_facts_that_name_someone(vault):
    """"Who ...?" is answered by a name: a fact naming someone the question does not gains, as a
    dated fact does for "when". The person asked about, a capitalised everyday word ("Thanks") and a
    day's name are nobody."""
    build(vault, WRIST)
    result = recall(vault, "Who is treating Noor's wrist?", now=NOW, explain=True)
    focus = {f.text[:12]: f.signals.get("focus", 1.0)
             for f in [f for t in result.topics for f in t.facts] + [c.fact for c in result.cuts]}
    assert focus["Noor: Maren "] > focus["Noor: The wr"] == focus["Noor: Thanks"] > 1.0
    asked_what = recall(vault, "What is wrong with Noor's wrist?", now=NOW, explain=True)
    focus = {f.text[:12]: f.signals.get("focus", 1.0)
             for f in [f for t in asked_what.topics for f in t.facts] + [c.fact for c in asked_what.cuts]}
    assert focus["Noor: Maren "] == focus["Noor: The wr"]


@pytest.fixture
def requoted(vault):
    """A roofer's price said in full, then a lower one said later in fewer of the same words, with no
    marker between them: the later line matches a question about the quote less well."""
    return remembered(vault, "Garage roof", [
        fact("The roofer quoted 2,400 GBP for the garage roof, felt and battens, garage roof done in two days.",
             day("2026-03-01T09:00:00"), cite("t1")),
        fact("For the garage roof his second price is 2,150 GBP if we book before May.",
             day("2026-03-20T09:00:00"), cite("t7"))], ("garage roof",))


def test_a_question_after_a_value_reads_a_subject_latest_first(requoted):
    """Asked for the value, the later statement leads, however the earlier one ranked; asked why, the
    lines keep the order of how well they answer."""
    asked = recall(requoted, "How much is the garage roof quote?", now=NOW)
    ranked = [f.text for f in asked.topics[0].facts]
    assert ["2,400" in t for t in ranked] == [True, False], ranked  # the earlier line answers better
    text = asked.render(4000)
    assert text.index("2,150 GBP") < text.index("2,400 GBP"), text
    assert "order: each topic's facts latest said first" in asked.explain()
    why = recall(requoted, "Why was the garage roof quote 2,400 GBP?", now=NOW)
    text = why.render(4000)
    assert text.index("2,400 GBP for the garage roof") < text.index("2,150 GBP"), text
    assert "latest said first" not in why.explain()


def test_a_question_after_a_value_leaves_out_a_one_liner_that_says_an_earlier_one(vault):
    """A topic's one-line summary is its opening statement, undated: asked for a value, it would set
    the first price before the later one that the facts, latest first, lead with. Asked about the
    subject, the summary still heads it."""
    opening = "The roofer quoted 2,400 GBP for the garage roof, felt and battens."
    requoted = remembered(vault, "Garage roof", [
        fact(opening, day("2026-03-01T09:00:00"), cite("t1")),
        fact("For the garage roof his second price is 2,150 GBP if we book before May.", day("2026-03-20T09:00:00"),
             cite("t7"))], ("garage roof",), one_liner=opening)
    text = recall(requoted, "How much is the garage roof quote?", now=NOW).render(4000)
    assert opening not in text.split("\n", 3)[2], text  # the heading is the topic's name alone
    assert text.index("2,150 GBP") < text.index("2,400 GBP"), text
    about = recall(requoted, "Tell me about the garage roof", now=NOW).render(4000)
    assert f"## Garage roof — {opening}" in about, about


def test_a_question_after_a_measure_reads_a_subject_latest_first(vault):
    """"How deep ...?", "how wide ...?": "how" before an adjective of measure asks for a value as "how
    much" does, and the later measurement leads."""
    pond = remembered(vault, "Garden pond", [
        fact("The garden pond is 80 cm deep, deep enough for the fish over winter.", day("2026-04-02T09:00:00"),
             cite("t3")),
        fact("Checked the pond with a cane after the rain: 95 cm in the middle.", day("2026-04-20T09:00:00"),
             cite("t9"))],
        ("garden pond",))
    asked = recall(pond, "How deep is the garden pond?", now=NOW)
    text = asked.render(4000)
    assert text.index("95 cm") < text.index("80 cm"), text
    assert "latest said first" in asked.explain()


def test_a_question_with_its_preposition_fronted_asks_for_the_value_as_without_it(vault):
    """"On what date ...?", "by when ...?": English fronts a preposition with the wh-phrase it governs;
    the question still asks for one value, so the later date leads, as it does for "when ...?"."""
    dentist = remembered(vault, "Dentist", [
        fact("The dentist appointment is on 12 May 2026 at the Elm Street surgery, for the crown.",
             day("2026-04-02T09:00:00"), cite("t3")),
        fact("Surgery rang: the crown is fitted on 19 May 2026 now.", day("2026-04-20T09:00:00"), cite("t9"))],
        ("dentist",))
    for question in ("On what date is the dentist appointment for the crown?",
                     "By when is the crown fitted at the dentist?", "When is the dentist appointment for the crown?"):
        asked = recall(dentist, question, now=NOW)
        text = asked.render(4000)
        assert text.index("19 May") < text.index("12 May"), (question, text)
        assert "latest said first" in asked.explain(), question
    # a preposition before anything but a wh-word asks no value
    about = recall(dentist, "About the dentist appointment for the crown: what happened?", now=NOW)
    assert "latest said first" not in about.explain()


@pytest.fixture
def new_starter(vault):
    """A start date said once in words close to the question, then moved by a line that shares none
    of them, among dated lines about the same person that match the question better."""
    return remembered(vault, "Library help desk", [
        fact("Dana: Kofi takes the library help desk job; he will start on Tuesday (5 May 2026).",
             day("2026-03-26T09:00:00"), cite("t3")),
        *(fact(f"Dana: Kofi {what}.", day("2026-03-27T09:00:00"), cite(f"t{5 + i}")) for i, what in enumerate([
            "starts with a shadow shift at the returns trolley on Thursday (2 April 2026)",
            "will start learning the catalogue system at the help desk next week (week of 6 April 2026)",
            "asked what he should bring when he starts at the library help desk",
            "will start on the same hours as Marit at the library help desk",
            "starts his safeguarding course online on Monday (13 April 2026)",
            "will start opening the help desk on his own from Tuesday (2 June 2026)",
            "starts the printer training with Marit on Friday (8 May 2026)",
            "will start running the library help desk rota after his first month (June 2026)"])),
        fact("Dana: His lanyard and door fob are ready, in time for the 12th (12 May 2026).",
             day("2026-04-30T09:00:00"), cite("t20")),
        fact("Dana: The library shuts early on bank holidays.", day("2026-03-28T09:00:00"), cite("t12"))],
        ("library help desk",))


def test_a_date_question_brings_its_topics_latest_dated_line(new_starter):
    """Asked "on what date ...?", the topic's latest dated line comes with the best-matching one: a
    date is often moved in words that share none with the question. Asked who, or about the subject,
    nothing is carried."""
    asked = recall(new_starter, "On what date does Kofi start at the library help desk?", now=NOW, explain=True)
    text = asked.render(450)  # room for three of its eleven lines
    assert "12 May" in text, text
    assert any("latest_of_kind" in f.signals for t in asked.topics for f in t.facts)
    for question in ("Who is starting at the library help desk?", "What should Kofi bring to the help desk?"):
        other = recall(new_starter, question, now=NOW)
        assert not any("latest_of_kind" in f.signals for t in other.topics for f in t.facts), question


def test_latest_first_moves_only_facts_an_event_keeps_its_place():
    """An event is dated by the day it happens, not the day it was said: a festival in July is no
    later statement than a fact said in March, so it keeps the place its rank gave it."""
    def hit(kind: str, date: str, text: str) -> FactHit:
        return FactHit(text, kind, text, date, [], 1.0, {}, 0, "topics/x.md")

    shown = [hit("event", "2026-07-17T00:00:00Z", "festival"), hit("fact", "2026-03-01T09:00:00Z", "first price"),
             hit("note", "", "pinned"), hit("fact", "2026-03-20T09:00:00Z", "second price")]
    assert [f.text for f in latest_first(shown)] == ["festival", "second price", "pinned", "first price"]
