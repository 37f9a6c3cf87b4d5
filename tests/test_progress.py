"""Unfinished work at the end of a conversation (compaction/progress.py), in either voice."""
from __future__ import annotations

import datetime as dt

from sheriff_vault.compaction.progress import in_progress
from sheriff_vault.store.buffer import Turn

T0 = dt.datetime(2026, 6, 4, 18, 0, tzinfo=dt.UTC)


def talk(*pairs: tuple[str, str], start: dt.datetime = T0) -> list[Turn]:
    return [Turn(role, text, start + dt.timedelta(minutes=i), f"t{i + 1}") for i, (role, text) in enumerate(pairs)]


def test_the_person_in_the_middle_of_something_is_running_work():
    got = in_progress(talk(("user", "I need to write the best man speech for Daniel."),
                           ("assistant", "Four parts: intro, a story, how they met, a toast."),
                           ("user", "I'm in the middle of writing it right now. Now on the part about how they met."),
                           ("assistant", "One specific detail works better than a summary.")))
    assert got.status == "running" and "how they met" in got.resume_hint
    assert "speech" in got.resume_hint


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
    """"I'm halfway through rewriting the retry logic. Next step is the time budget. Then I'll run CI
    20 times": it stopped in the rewrite; an aside before it ("quick py312 thing: ... now on the
    upgrade branch") is not its goal."""
    got = in_progress(talk(("user", "quick py312 thing: the docker base image is python:3.12-slim now on the upgrade "
                                    "branch, builds fine"),
                           ("assistant", "Nice, one less thing."),
                           ("user", "ok so I'm halfway through rewriting the retry logic in storage/retry.py. "
                                    "next step is the max total time (30 s budget). then I'll run ci 20 times"),
                           ("assistant", "Good plan.")))
    assert got.status == "running"
    assert got.resume_hint.startswith("Where it stopped (User): ok so I'm halfway through rewriting the retry logic")
    assert "Next: next step is the max total time" in got.resume_hint and "py312" not in got.resume_hint
