"""Unfinished work at the end of a conversation (compaction/progress.py), in either voice."""
from __future__ import annotations

import datetime as dt

import pytest

from sheriff_vault.compaction.progress import in_progress
from sheriff_vault.store.buffer import Turn

T0 = dt.datetime(2026, 6, 4, 18, 0, tzinfo=dt.UTC)


def talk(*pairs: tuple[str, str], start: dt.datetime = T0) -> list[Turn]:
    return [Turn(role, text, start + dt.timedelta(minutes=i), f"t{i + 1}") for i, (role, text) in enumerate(pairs)]


def test_the_person_in_the_middle_of_something_is_running_work():
    got = in_progress(talk(("user", "I need to write the toast for my aunt's retirement party."),
                           ("assistant", "Three parts: her first job, a funny story, a thank-you."),
                           ("user", "We're in the middle of drafting it right now. "
                                    "Now on the part about her first job."),
                           ("assistant", "A single anecdote beats a list of dates.")))
    assert got.status == "running" and "her first job" in got.resume_hint
    assert "toast" in got.resume_hint


def test_the_assistant_halfway_through_is_running_work():
    got = in_progress(talk(("user", "Please draft the deploy workflow for the billing service."),
                           ("assistant", "I'm halfway through drafting the deploy workflow; "
                                         "I'll continue with it next.")))
    assert got.status == "running" and "deploy workflow" in got.resume_hint


def test_finished_work_clears_it():
    got = in_progress(talk(("user", "I'm writing the project description this week."),
                           ("assistant", "Good."),
                           ("user", "Done: submitted the application today, nothing more to do until November.")))
    assert got.status == "idle"


def test_an_older_day_of_talk_is_not_the_task_at_hand():
    old = talk(("user", "I'm in the middle of repainting the shed."), start=T0 - dt.timedelta(days=2))
    new = talk(("user", "The cake is ordered."), ("assistant", "Enjoy the party!"))
    got = in_progress(old + [Turn(t.role, t.content, t.at, f"n{i}") for i, t in enumerate(new)])
    assert got.status == "idle"
    # not the task at hand, but never finished: the hint names it, so the agent can ask
    assert got.resume_hint == "Left unfinished on 2 June (User): I'm in the middle of repainting the shed."


def test_older_work_finished_since_is_not_left_unfinished():
    old = talk(("user", "I'm in the middle of repainting the shed."), start=T0 - dt.timedelta(days=2))
    new = talk(("user", "The shed is done now, it looks great."), ("assistant", "Enjoy it!"))
    got = in_progress(old + [Turn(t.role, t.content, t.at, f"n{i}") for i, t in enumerate(new)])
    assert (got.status, got.resume_hint) == ("idle", "")


def test_waiting_on_the_person_is_blocked():
    got = in_progress(talk(("user", "Deploy the fix to staging."),
                           ("assistant", "I need your approval for the production database migration before I go on.")))
    assert got.status == "blocked"


def test_a_step_in_progress_with_its_next_step_names_both_and_the_request():
    got = in_progress(talk(("user", "Keep going with step 5, updating topics minimally."),
                           ("assistant", "Working on step 5 now: appending facts without duplicates."),
                           ("assistant", "Step 5 is in progress, its tests pass. Next step: write the graph edges.")))
    assert got.status == "running" and got.resume_hint.startswith("Goal: Keep going with step 5")
    assert "Next step: write the graph edges" in got.resume_hint


def test_the_work_under_way_leads_and_its_next_steps_follow():
    """"I'm halfway through porting the cache layer. Next step is the eviction policy. Then I'll load-test
    it": it stopped in the port; an aside before it (the build image moved, on another branch) is not
    its goal."""
    got = in_progress(talk(("user", "small aside: the build image moved to node 22 on the release branch, all green"),
                           ("assistant", "Good to hear."),
                           ("user", "right, I'm halfway through porting the cache layer to redis. "
                                    "next step is the eviction policy (LRU, 10k keys). then I'll load-test it twice"),
                           ("assistant", "Sounds good.")))
    assert got.status == "running"
    assert got.resume_hint.startswith("Where it stopped (User): right, I'm halfway through porting the cache layer")
    assert "Next: next step" not in got.resume_hint  # a step that says it is next is not marked twice
    assert "next step is the eviction policy" in got.resume_hint and "node 22" not in got.resume_hint


def test_a_plan_with_a_date_is_not_work_under_way():
    """The futurate progressive ("I'm flying to Oslo on Monday") and news ("we're getting a new
    boiler") are not a task at hand: only the present moment ("now", "currently") or a verb of
    beginning or going on makes a progressive one."""
    got = in_progress(talk(("user", "The quarterly filing is submitted, all done."),
                           ("assistant", "Well done."),
                           ("user", "I'm flying to Oslo on Monday, and we're getting a new boiler in spring.")))
    assert (got.status, got.resume_hint) == ("idle", "")
    got = in_progress(talk(("user", "Boiler quotes are in, I'm comparing the two offers now.")))
    assert got.status == "running" and "two offers" in got.resume_hint


def test_a_question_about_the_work_reports_none():
    got = in_progress(talk(("user", "Started the camping list: tent, stove, torches. What am I packing wrong?"),
                           ("assistant", "Add a first-aid kit.")))
    assert got.status == "idle"


def test_the_idiom_said_of_a_place_is_not_work():
    got = in_progress(talk(("user", "Lunch was great. The bakery in the middle of the square closed."),
                           ("assistant", "A pity, it was popular.")))
    assert got.status == "idle"


def test_work_ready_and_waiting_for_its_slot_is_open_and_the_status_turn_names_it():
    """An assistant's status report: the work waits for a time, the turn's opening says what the work is."""
    got = in_progress(talk(("user", "Rotate the TLS certificates on the three proxies."),
                           ("assistant", "Status: proxy-a and proxy-b run the new certificate. The change for "
                                         "proxy-c is ready and waits for the maintenance window tonight.")))
    assert got.status == "running"
    assert "waits for the maintenance window" in got.resume_hint and "new certificate" in got.resume_hint
    assert got.resume_hint.startswith("Goal: Rotate the TLS certificates")


def test_work_said_unfinished_stays_open_and_then_past_perfect_does_not():
    got = in_progress(talk(("user", "I haven't finished the grant budget yet."), ("assistant", "Take your time.")))
    assert got.status == "running" and "grant budget" in got.resume_hint
    got = in_progress(talk(("user", "The caterers hadn't sent the menu yet, so we could still change it."),
                           ("assistant", "Lucky timing.")))
    assert got.status == "idle"


def test_nothing_left_closes_every_task_but_nothing_as_an_object_does_not():
    got = in_progress(talk(("user", "I'm still sanding the door frames."),
                           ("user", "Frames are painted now. Nothing more to do on the hallway.")))
    assert got.status == "idle"
    got = in_progress(talk(("user", "I'm currently sanding the door frames."),
                           ("user", "My neighbour thinks of nothing else.")))
    assert got.status == "running"


def test_work_that_names_nothing_takes_its_subject_from_the_work_before():
    got = in_progress(talk(("user", "I'm halfway through my tax return, now on the pension section."),
                           ("assistant", "Have the annual statement ready."),
                           ("user", "ok. still working on it")))
    assert got.status == "running"
    assert got.resume_hint.startswith("Goal: I'm halfway through my tax return")


def test_the_assistant_that_cannot_go_on_without_the_person_is_blocked():
    got = in_progress(talk(("user", "Upgrade the staging database."),
                           ("assistant", "I can't proceed without the admin password; please send it.")))
    assert got.status == "blocked" and "admin password" in got.resume_hint


def test_a_plan_to_go_on_is_open_work():
    got = in_progress(talk(("user", "Please index the 2025 invoices."),
                           ("assistant", "Half of them are indexed. I'll continue with the rest tomorrow.")))
    assert got.status == "running" and "continue with the rest" in got.resume_hint


def test_a_phrasal_verb_of_going_on_is_a_plan_with_its_object_between():
    got = in_progress(talk(("user", "Sort the receipts by month, please."),
                           ("assistant", "January to May are sorted. I will pick it up again after lunch.")))
    assert got.status == "running" and "pick it up again" in got.resume_hint


def test_a_sentence_that_opens_on_being_midway_is_the_speakers_work() -> None:
    """Chat leaves out "I'm": "Halfway through the report now, intro's done, charts next." is the
    speaker's work even where the parser hangs the idiom on another clause."""
    import datetime as dt

    from sheriff_vault.store.buffer import Turn

    at = dt.datetime(2026, 5, 4, 18, 0, tzinfo=dt.UTC)
    turns = [Turn("user", "Halfway through the quarterly report now, intro's done, charts next. Back tomorrow.", at,
                  "t1", "Kim"),
             Turn("assistant", "Understood, the charts are the next step.", at + dt.timedelta(seconds=30), "t2")]
    state = in_progress(turns)
    assert state.status in ("running", "idle") and "report" in state.resume_hint, state


def test_going_back_to_the_work_without_a_verb_is_work_under_way() -> None:
    """"right, back to the chapter, page 12 next": the person returns to the work now, and the wake
    packet names where they stopped."""
    for said in ("right. back to the chapter, page 12 next", "ok back to writing", "Back to the draft now."):
        got = in_progress(talk(("user", "The chapter needs its footnotes checked, 40 pages."),
                               ("assistant", "Check the page numbers against the index as you go."),
                               ("user", said), ("assistant", "Good luck.")))
        assert got.status == "running", said
        assert said in got.resume_hint


def test_back_to_said_of_a_thing_a_state_or_a_later_day_is_no_work_under_way() -> None:
    for said in ("Kids back to school on Monday.", "Everything's back to normal.", "back to work tomorrow",
                 "Back to the office next week?"):
        got = in_progress(talk(("user", "The boiler is fixed and the heating works again."),
                               ("assistant", "Good news."), ("user", said), ("assistant", "Enjoy it.")))
        assert got.status == "idle", said


def test_something_that_has_not_happened_for_a_span_of_time_is_no_open_work() -> None:
    """"something she hasn't done in years" says how long, not what is left to do; "I haven't sent the
    invoice" is work left open."""
    habit = in_progress(talk(("user", "My aunt cooked for all of us on Sunday, something she hasn't done in years."),
                             ("assistant", "That's lovely to hear.")))
    assert habit.status == "idle"
    left = in_progress(talk(("user", "I haven't sent the invoice."), ("assistant", "Send it today.")))
    assert left.status == "running"


def test_parts_done_and_the_speakers_next_part_in_one_turn_is_work_paused_between_steps() -> None:
    """A list worked through part by part, stopped for a break with the next part named, is open;
    a job finished and a new thing planned after it, in separate turns, is not."""
    paused = in_progress(talk(("user", "Can you help me clear out the loft, box by box?"),
                              ("assistant", "Start with the boxes by the hatch: keep, give away, bin."),
                              ("user", "Books and toys sorted. We'll do the winter clothes after dinner.")))
    assert paused.status == "running" and "winter clothes" in paused.resume_hint
    planned = in_progress(talk(("user", "The car is sorted."),
                               ("assistant", "Good, that's one less thing."),
                               ("user", "We'll visit my parents at the weekend.")))
    assert planned.status == "idle"


def test_a_next_part_of_work_named_before_after_a_turn_that_finished_parts_is_work_paused() -> None:
    """Parts said finished in one turn and the next part, of the work the person named before,
    in their next turn: the work is paused between its steps. A new thing planned after a job
    finished is not (the test above), nor a farewell to the listener."""
    paused = in_progress(talk(("user", "Let's go through the grant report chapter by chapter."),
                              ("assistant", "Start with chapter 1, the summary."),
                              ("user", "Summary and methods done!! Two of five."),
                              ("assistant", "Good progress: the summary and the methods are done."),
                              ("user", "Argh, school run. I'll do the other chapters tomorrow.")))
    assert paused.status == "running" and "other chapters" in paused.resume_hint
    farewell = in_progress(talk(("user", "The tax return is filed, all sorted."),
                                ("assistant", "Well done, that's off your list."),
                                ("user", "Thanks for everything. I'll leave you alone now.")))
    assert farewell.status == "idle"


def test_the_present_with_a_day_to_come_is_a_plan_to_go_on() -> None:
    """The futurate present of a verb of going on ("I finish it on Friday") plans the rest of the
    work as "I'll finish it on Friday" does; the habitual present ("I finish at six") does not."""
    planned = in_progress(talk(("user", "Can you help me with the insurance claim form?"),
                               ("assistant", "Of course: start with the policy number and the date of the accident."),
                               ("user", "Too tired now. I finish it Friday morning.")))
    assert planned.status == "running" and "finish it Friday" in planned.resume_hint
    habit = in_progress(talk(("user", "The rota is sorted."),
                             ("assistant", "Good."),
                             ("user", "I finish at six most days.")))
    assert habit.status == "idle"


def test_a_verb_joined_to_a_future_one_shares_its_future() -> None:
    """Coordination shares the auxiliary: in "I'll call the bank and finish the form tomorrow" the
    second verb is as future as the first, so finishing is still to come; a conjunct with a subject
    of its own ("and my sister finished the form") is a clause of its own, and a plain past pair
    ("called the bank and finished the form") plans nothing."""
    planned = in_progress(talk(("user", "Can you help me fill in the insurance claim form?"),
                               ("assistant", "Of course: start with the policy number and the date of the accident."),
                               ("user", "I'll call the bank in the morning for the number and finish the form "
                                        "tomorrow. Night.")))
    assert planned.status == "running" and "finish the form" in planned.resume_hint
    for said in ("I'll call the bank in the morning and my sister finished the form yesterday.",
                 "I called the bank this morning and finished the form."):
        got = in_progress(talk(("user", "Can you help me fill in the insurance claim form?"),
                               ("assistant", "Of course: start with the policy number."),
                               ("user", said)))
        assert got.status == "idle", said


PAUSED = "Right, tea. Tins, brushes and rollers done, so shelves 1-3. We'll do the ladders after tea, then the tape."


def test_a_stretch_of_work_opened_on_its_own_name_gives_the_goal():
    """No request, no "I need to": the person opened the stretch on what it is ("Shelf audit day.")
    and stopped between its steps; the opening is the goal, for it names the same work."""
    got = in_progress(talk(("user", "Shelf audit day. Back room first, shelf by shelf. Shelf 1, paint tins: 40."),
                           ("assistant", "Good start. What's on shelf 2?"),
                           ("user", "Shelf 2, brushes: 64. Shelf 3, rollers: 22."),
                           ("assistant", "Three shelves done."),
                           ("user", PAUSED)))
    assert got.status == "running" and got.resume_hint.startswith("Goal: Shelf audit day.")
    # an opening about something else is no goal of the work
    other = in_progress(talk(("user", "The plumber came about the boiler."),
                             ("assistant", "Good."),
                             ("user", PAUSED)))
    assert other.status == "running" and not other.resume_hint.startswith("Goal:")


def test_work_returned_to_by_its_number_takes_the_sentence_that_named_it_as_the_goal():
    """"Back to chapter 4" names the work by a noun and its number; what the work is was said when
    the person first named it so, and that sentence is the goal (a count of days left is none)."""
    opening = ("Two days to go. Status: chapter 2 final, appendix B drafted. "
               "Now rewriting chapter 4, the results - my supervisor says it reads like a list.")
    back = "Back to chapter 4. Opening section done. Now the figures part. Can you help with the captions?"
    got = in_progress(talk(("user", opening),
                           ("assistant", "Lead each section with the finding, then the numbers that show it."),
                           ("user", back)))
    assert got.status == "running"
    assert got.resume_hint.startswith("Goal: Now rewriting chapter 4, the results")
    # another number names other work: no sentence named chapter 5 before, and the count of days is no goal
    other = in_progress(talk(("user", opening),
                             ("assistant", "Lead each section with the finding."),
                             ("user", back.replace("chapter 4", "chapter 5"))))
    assert other.status == "running" and not other.resume_hint.startswith("Goal: Two days")
    assert "rewriting chapter 4" not in other.resume_hint


@pytest.mark.parametrize(("said", "names"), [
    ("The seating plan is not finalised yet.", "seating plan"),
    ("Chapter two is half written.", "Chapter two"),
    ("Still to do: the tiling and the skirting boards.", "tiling"),
    ("The speech is yet to be drafted.", "speech"),
    ("The form is partly filled in, the rest needs her signature.", "form"),
])
def test_work_said_expected_and_not_done_is_still_open(said: str, names: str) -> None:
    got = in_progress(talk(("user", "Can you help me get the wedding admin finished this week?"),
                           ("assistant", "Of course: the seating plan, the speech and the forms."),
                           ("user", said)))
    assert got.status == "running" and names in got.resume_hint.split("Where it stopped")[-1]


@pytest.mark.parametrize("said", [
    "It hasn't rained here yet.",
    "I still want to go to the coast in June.",
    "The garden centre is still open on Sundays.",
    "Half the guests are vegetarian.",
])
def test_a_thing_that_has_not_happened_or_a_wish_is_no_open_work(said: str) -> None:
    got = in_progress(talk(("user", "We're planning the summer."), ("assistant", "Sounds lovely."), ("user", said)))
    assert got.status == "idle"


def test_parts_done_with_the_rest_still_to_do_keep_the_work_open() -> None:
    got = in_progress(talk(("user", "I'm working through the twelve invoices for the accountant."),
                           ("assistant", "Oldest first is easiest."),
                           ("user", "Invoices one to five are done; six is half checked and seven to twelve "
                                    "are not started yet."),
                           ("assistant", "Good progress.")))
    assert got.status == "running" and "six" in got.resume_hint


def test_a_past_that_did_not_happen_leaves_nothing_open() -> None:
    """"could never have finished it" is a past that did not happen: no work is left open, unlike a
    negated "done" ("it isn't done yet")."""
    got = in_progress(talk(("user", "The photo album is printed and posted to my brother."),
                           ("assistant", "A lovely thing to have finished."),
                           ("user", "Thanks for everything. I could never have finished the album alone!"),
                           ("assistant", "It was a pleasure.")))
    assert got.status == "idle"
    still = in_progress(talk(("user", "The photo album isn't done yet, the last pages are missing."),
                             ("assistant", "Which pages are left?")))
    assert still.status == "running"


@pytest.mark.parametrize(("said", "running"), [
    # a message typed as short lines is read line by line: "3 done" and "2 to go" are two statements
    ("the chapters\nrevising them in order\n3 done\n2 to go\nbye", True),
    ("Only two rooms left to paint. Then the hall.", True),
    ("one more to go and the scarf is finished", True),
    # a count of time, what is merely left over, or someone leaving is no work
    ("ten minutes to go before the train", False),
    ("We have two tickets left.", False),
    ("4 left the choir in May.", False),
])
def test_a_count_of_work_that_remains_leaves_it_open(said: str, running: bool) -> None:
    got = in_progress(talk(("user", said), ("assistant", "Good luck.")))
    assert (got.status == "running") == running, got
