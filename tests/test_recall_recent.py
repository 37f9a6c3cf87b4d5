"""Recall sees what was said since the last sleep: the buffer's turns (the kept tail too) are
searched, shown in their own section with their times, and a newer value said there goes before
the older value a topic holds. The conversation below is written for these tests: four days of
one person's kitchen renovation, allotment and a trip, slept day by day with default settings."""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import run_vault, use_hash_embedder, watching

from sheriff_vault.compaction.compact import sleep
from sheriff_vault.retrieval.ranking import recall
from sheriff_vault.retrieval.recent import HEADING, word_share
from sheriff_vault.store.buffer import Turn, append_turns, load_buffer
from sheriff_vault.store.vault import Vault, init_vault

DAYS = [
    ("2027-03-01", [
        "Morning! I want to plan the kitchen renovation with you this week.",
        "Happy to help. What comes first?",
        "The kitchen budget is 12,000 EUR, including the new worktop.",
        "Noted: kitchen budget 12,000 EUR, worktop included.",
        "The contractor is Baptiste Renard; he starts on 15 March.",
        "So Baptiste Renard starts on 15 March. Do you have a design yet?",
        "Yes, white cabinets and an oak worktop, with an induction hob.",
        "Nice combination. Oak needs oiling twice a year, worth knowing.",
        "Good tip. The old tiles come off first, Baptiste said that takes two days.",
        "Two days for the tiles, then plumbing?",
        "Plumbing after that, the sink moves under the window.",
        "Moving the sink means new drain pipes; ask him about the slope.",
        "I will. Also, the allotment opens again in April.",
        "What are you planning to grow this year?",
        "Tomatoes, beans and a row of garlic along the fence.",
        "Garlic is usually planted in autumn, but spring garlic works too.",
        "I bought spring garlic from the market in Lyon.",
        "Great. Do you water by hand there?",
        "Yes, there is one tap for the whole row of plots.",
        "Then mulch spares you most of the carrying.",
        "Good idea, straw mulch then.",
        "Straw works well around tomatoes.",
        "That's all for today, thanks!",
        "Talk soon.",
    ]),
    ("2027-03-02", [
        "Hi again. The worktop sample arrived and it looks great.",
        "Glad it looks right. Oak as planned?",
        "Yes, oak. Baptiste wants a deposit of 3,000 EUR before he starts.",
        "A 3,000 EUR deposit is common for a job that size.",
        "I paid it this morning by bank transfer.",
        "Good, keep the receipt with the contract.",
        "Another thing: I'm flying to Porto for a conference on 22 March.",
        "Porto on 22 March. How long will you stay?",
        "Three nights at the Hotel Infante, back on 25 March.",
        "That overlaps with the kitchen work; will someone let Baptiste in?",
        "My neighbour Oona has a key and will open the door.",
        "Perfect, so the work can go on while you are away.",
        "The conference talk is about soil bacteria, I still need slides.",
        "How many slides do you think you need?",
        "About twenty, the slot is twenty-five minutes.",
        "Twenty slides for twenty-five minutes is a good pace.",
        "I'll draft them over the weekend.",
        "Want a reminder on Friday?",
        "Yes please, Friday afternoon.",
        "I'll remind you on Friday afternoon.",
        "The allotment committee also asked me to run the seed swap.",
        "A seed swap is fun; when is it?",
        "On 10 April in the community hall.",
        "Noted: seed swap on 10 April in the community hall.",
    ]),
    ("2027-03-03", [
        "Quick update on the kitchen: the induction hob is on order.",
        "Which model did you choose?",
        "A four-zone one with a flex zone, delivery in two weeks.",
        "Two weeks fits before Baptiste needs it.",
        "Oona asked whether her son can help carry the old cabinets out.",
        "Extra hands will make the demolition day easier.",
        "I said yes, he comes on the first day.",
        "Then plan the skip for that day too.",
        "The skip is booked for 15 March as well.",
        "Good, so demolition and the skip line up.",
        "For Porto, the conference dinner is on 23 March.",
        "Will you go to the dinner?",
        "Yes, it's at a restaurant by the river.",
        "Sounds lovely.",
        "My slides are half done, ten of twenty.",
        "Halfway already, well done.",
        "The tomatoes will be started indoors next week.",
        "Starting them indoors gives them a head start.",
        "I use the windowsill in the spare room.",
        "South-facing windows work best for seedlings.",
        "It faces south, luckily.",
        "Then they should do well.",
        "Right, off to work now.",
        "Have a good day.",
    ]),
    ("2027-03-04", [
        "Bad news from Baptiste: there is damp behind the old tiles.",
        "Damp can hide rot; what did he find?",
        "A rotten joist under the sink, it has to be replaced.",
        "That adds work; did he give a price?",
        "He gave me a price for the joist and new plaster.",
        "Is the start date the same?",
        "Yes, still 15 March.",
        "Good that the date holds.",
        "The kitchen budget is now 14,500 EUR because of the joist and the plaster.",
        "Noted: the kitchen budget is now 14,500 EUR.",
        "The Porto hotel also changed: I moved to the Casa do Rio, the Infante was overbooked.",
        "Casa do Rio instead of the Hotel Infante, same dates?",
        "Same dates, 22 to 25 March.",
        "All right, the trip is unchanged apart from the hotel.",
        "My slides are done, all twenty.",
        "Well done, that was quick.",
        "I'll rehearse the talk on Sunday with a timer.",
        "Rehearsing with a timer is the best way to check twenty-five minutes.",
        "The seed swap now needs tables, I asked the hall for eight.",
        "Eight tables should fit the hall.",
        "The garlic is already sprouting in the bag.",
        "Plant it soon then, it wants to grow.",
        "I'll plant it at the weekend.",
        "Good plan.",
    ]),
]


def day_turns(day: str, lines: list[str], first_id: int) -> list[Turn]:
    start = dt.datetime.fromisoformat(f"{day}T09:00:00+00:00")
    return [Turn("user" if i % 2 == 0 else "assistant", text, start + dt.timedelta(minutes=2 * i), f"t{first_id + i}",
                 "Mira" if i % 2 == 0 else "") for i, text in enumerate(lines)]


def sleep_days(vault: Vault) -> dt.datetime:
    """Each day noted and slept that evening, with the vault's default settings; the last now."""
    n = 1
    for day, lines in DAYS:
        now = dt.datetime.fromisoformat(f"{day}T20:00:00+00:00")
        append_turns(vault, day_turns(day, lines, n), now)
        n += len(lines)
        sleep(vault, now=now)
    return now


@pytest.fixture(scope="module")
def slept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Vault, dt.datetime]:
    vault = init_vault(tmp_path_factory.mktemp("recent") / "vault").vault
    return vault, sleep_days(vault)


def test_the_story_keeps_a_tail_and_the_topics_only_the_old_value(slept):
    vault, _ = slept
    assert vault.config.sleep.tail_turns == 20
    kept = [t.content for t in load_buffer(vault)]
    assert len(kept) == 20 and any("14,500 EUR" in t for t in kept)
    topics = "".join(p.read_text() for p in (vault.root / "topics").glob("*.md"))
    assert "12,000 EUR" in topics and "14,500" not in topics


def test_a_value_said_in_the_tail_comes_first(slept):
    vault, now = slept
    result = recall(vault, "What is the kitchen budget now?", now=now + dt.timedelta(hours=1))
    text = result.render(3000)
    assert HEADING in text and "14,500 EUR" in text and "12,000 EUR" in text
    assert text.index("14,500 EUR") < text.index("## Earlier values") < text.index("12,000 EUR")
    said = [h for h in result.recent if "14,500" in h.text]
    assert said and said[0].turn_id in ("t81", "t82")
    old = [f for t in result.topics for f in t.facts if "12,000 EUR" in f.text]
    assert old and old[0].superseded == "2027-03-04" and old[0].doc_id in said[0].supersedes


def test_a_buffered_turn_is_shown_with_its_time_and_in_json(slept):
    vault, now = slept
    result = recall(vault, "Which hotel in Porto?", now=now + dt.timedelta(hours=1))
    assert any("Casa do Rio" in h.text for h in result.recent)
    text = result.render(3000)
    assert "2027-03-04 09:20 Mira: The Porto hotel also changed" in text
    data = result.to_json()
    assert data["recent"][0]["at"].startswith("2027-03-04T09:")


def test_a_question_the_buffer_does_not_answer_shows_no_section(slept):
    vault, now = slept
    text = recall(vault, "When is the seed swap?", now=now + dt.timedelta(hours=1)).render(3000)
    assert "10 April" in text
    assert HEADING not in text or "seed swap" in text.split(HEADING)[1].lower()


def test_recall_as_of_before_a_turn_does_not_show_it(slept):
    vault, _ = slept
    result = recall(vault, "What is the kitchen budget?", now=dt.datetime(2027, 3, 4, 9, 10, tzinfo=dt.UTC))
    assert not any("14,500" in h.text for h in result.recent)


def test_word_share_is_one_for_a_turn_saying_the_whole_question_and_zero_for_none():
    shares = word_share("the kitchen budget?", ["kitchen budget now", "garlic sprouts soon", "kitchen tiles grey"])
    assert shares[0] == pytest.approx(1.0) and shares[1] == 0.0 and 0 < shares[2] < shares[0]


def test_the_question_itself_noted_first_is_not_its_own_answer(hash_vault):
    now = dt.datetime(2027, 3, 4, 10, tzinfo=dt.UTC)
    append_turns(hash_vault, [Turn("user", "Where do we keep the spare key?", now, "t1"),
                              Turn("user", "The spare key is under the blue pot.", now, "t2")], now)
    result = recall(hash_vault, "Where do we keep the spare key?", now=now)
    assert [h.turn_id for h in result.recent] == ["t2"]
    assert "under the blue pot" in result.render(2000)


def test_cli_and_daemon_recall_show_the_buffer(tmp_path: Path):
    vault = use_hash_embedder(init_vault(tmp_path / "vault").vault)
    out = run_vault("note", "user", "The boiler service is booked for 9 May.", "--now", "2027-05-01T10:00:00Z",
                    "--vault", vault.root)
    assert out.returncode == 0, out.stderr
    here = run_vault("recall", "when is the boiler service?", "--now", "2027-05-02T10:00:00Z", "--no-daemon",
                     "--vault", vault.root)
    assert "Said recently, not yet slept" in here.stdout and "2027-05-01 10:00 User: The boiler" in here.stdout
    with watching(vault):
        fast = run_vault("recall", "when is the boiler service?", "--now", "2027-05-02T10:00:00Z", "--json",
                         "--vault", vault.root)
        data = json.loads(fast.stdout)
        assert data["via"].startswith(("daemon", "bm25")) and data["recent"][0]["turn"] == "t1"
        text = run_vault("recall", "when is the boiler service?", "--now", "2027-05-02T10:00:00Z",
                         "--vault", vault.root)
        assert text.stdout == here.stdout


def test_wake_shows_the_buffer_once_as_its_tail_not_again_as_recalled_memory(hash_vault):
    from sheriff_vault.agent.wake import wake

    now = dt.datetime(2027, 3, 4, 10, tzinfo=dt.UTC)
    append_turns(hash_vault, [Turn("user", "The gate code for the allotment is 4412.", now, "t1")], now)
    bundle = wake(hash_vault, "what is the gate code?", now=now, use_daemon=False).bundle
    assert bundle.count("4412") == 1 and HEADING not in bundle


def test_a_time_phrase_prefers_the_turns_said_then(hash_vault):
    monday, tuesday = dt.datetime(2027, 3, 1, 10, tzinfo=dt.UTC), dt.datetime(2027, 3, 2, 10, tzinfo=dt.UTC)
    append_turns(hash_vault, [Turn("user", "The gate code is 4412 for the allotment.", monday, "t1"),
                              Turn("user", "The gate code for the garage is 9071.", tuesday, "t2")], tuesday)
    result = recall(hash_vault, "what gate code did I give you on Monday?", now=tuesday + dt.timedelta(hours=2))
    assert [h.turn_id for h in result.recent][:1] == ["t1"]
    assert result.recent[0].signals["in_window"] == 1.0


def test_a_when_question_prefers_the_unslept_turn_that_says_a_time(hash_vault):
    """As a "when" question's dated fact gains, so does a turn said since the last sleep that
    names a time; a turn with the question's words and no time does not."""
    now = dt.datetime(2027, 3, 4, 10, tzinfo=dt.UTC)
    append_turns(hash_vault, [Turn("assistant", "The boiler service! Did the engineer turn up?", now, "t1"),
                              Turn("user", "The boiler service moved, it's on Friday 12 March now.", now, "t2")], now)
    result = recall(hash_vault, "When is the boiler service?", now=now + dt.timedelta(hours=1))
    focus = {h.turn_id: h.signals.get("focus", 1.0) for h in result.recent}
    assert focus == {"t1": 1.0, "t2": pytest.approx(1.15)}
    assert [h.turn_id for h in result.recent][0] == "t2"
