"""A later sleep continues the topics the vault holds (compaction/prior.py and the subject walk):
one session slept at a time, as people use it, updates the topics earlier sleeps wrote instead of
opening new ones beside them; a correction in a later session strikes the value an earlier one
wrote; `vault sleep --explain` says per turn where it went and why. The hash embedder stands in
for the model where a test checks the logic; the last test runs the real model end to end."""
from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import git, run_vault
from test_subjects import DATABASE
from test_subjects import GARDEN as SEEDLINGS

from sheriff_vault.compaction.compact import sleep
from sheriff_vault.compaction.prior import PriorTopic, last_talked, nearest
from sheriff_vault.store.buffer import Turn
from sheriff_vault.store.vault import Vault

DAY1 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
DAY2 = dt.datetime(2026, 3, 5, 18, 0, tzinfo=dt.UTC)
# the subject tests' two subjects, the garden's with its day said
GARDEN = [SEEDLINGS[0], SEEDLINGS[1].replace("on Saturday.", "on Saturday 7 March."), SEEDLINGS[2]]


def session(start: dt.datetime, first_id: int, *texts: str) -> list[Turn]:
    return [Turn("user", text, start + dt.timedelta(minutes=2 * i), f"t{first_id + i}")
            for i, text in enumerate(texts)]


def topic_names(vault: Vault) -> list[str]:
    return sorted(t.name for t in vault.topics.all())


def no_tail(vault: Vault) -> Vault:
    path = vault.root / "vault.yaml"
    path.write_text(path.read_text().replace("tail_turns: 20", "tail_turns: 0"))
    return Vault(vault.root)


def test_a_later_session_updates_the_topics_an_earlier_sleep_wrote(hash_vault: Vault):
    vault = no_tail(hash_vault)
    first = sleep(vault, session(DAY1, 1, *GARDEN, *DATABASE), now=DAY1 + dt.timedelta(hours=1))
    assert len(first.created) == 2 and not first.updated
    names = topic_names(vault)
    # terse follow-ups that name their subject in one word: each is too little to match a topic on its own
    second = sleep(vault, session(DAY2, 7, "Seedlings: done.", "Migration: done."), now=DAY2 + dt.timedelta(hours=1))
    assert not second.created, second.created
    assert len(second.updated) == 2
    assert topic_names(vault) == names  # nothing opened beside them
    subject = git(vault.root, "log", "-1", "--format=%s")
    assert subject.startswith("sleep: 2 updated, 0 created")


def test_a_short_follow_up_in_a_later_session_continues_its_topic(hash_vault: Vault):
    vault = no_tail(hash_vault)
    sleep(vault, session(DAY1, 1, *GARDEN, *DATABASE), now=DAY1 + dt.timedelta(hours=1))
    second = sleep(vault, session(DAY2, 7, "Repotting went fine, the seedlings look happy."),
                   now=DAY2 + dt.timedelta(hours=1))
    assert not second.created and len(second.updated) == 1


def test_a_correction_in_a_later_session_strikes_the_earlier_value(hash_vault: Vault):
    vault = no_tail(hash_vault)
    sleep(vault, session(DAY1, 1, *GARDEN, *DATABASE), now=DAY1 + dt.timedelta(hours=1))
    sleep(vault, session(DAY2, 7, "Actually the greenhouse tomato seedlings get their clay pots on "
                                  "Sunday 8 March instead of Saturday 7 March."),
          now=DAY2 + dt.timedelta(hours=1))
    garden = next(t for t in vault.topics.all() if any("tomato" in i.text for i in t.items()))
    struck = [i for i in garden.items() if i.superseded]
    assert struck and all("7 March" in i.text for i in struck)
    assert any("8 March" in i.text and not i.superseded for i in garden.items())


def test_a_new_subject_in_a_later_session_opens_its_own_topic(hash_vault: Vault):
    vault = no_tail(hash_vault)
    sleep(vault, session(DAY1, 1, *GARDEN), now=DAY1 + dt.timedelta(hours=1))
    second = sleep(vault, session(DAY2, 4, *DATABASE), now=DAY2 + dt.timedelta(hours=1))
    assert len(second.created) == 1 and not second.updated
    assert len(topic_names(vault)) == 2


def test_two_topics_of_the_vault_never_become_one(hash_vault: Vault):
    vault = no_tail(hash_vault)
    sleep(vault, session(DAY1, 1, *GARDEN, *DATABASE), now=DAY1 + dt.timedelta(hours=1))
    both = "The greenhouse tomato seedlings and the Postgres invoices database migration both wait for Monday."
    sleep(vault, session(DAY2, 7, both, GARDEN[0]), now=DAY2 + dt.timedelta(hours=1))
    assert len(topic_names(vault)) == 2


def test_a_reply_that_opens_another_subject_is_not_led_by_the_question_before_it(hash_vault: Vault):
    """The assistant's question about the seedlings leads the person's answer to it, not the database
    news the person says next instead: that line, in the database's topic, reads on its own."""
    vault = no_tail(hash_vault)
    asked = "Have you got the compost for them yet?"
    turns = [Turn("user", GARDEN[0], DAY1, "t1"),
             Turn("assistant", f"Bigger pots will help. {asked}", DAY1 + dt.timedelta(minutes=1), "t2"),
             Turn("user", "The compost for the greenhouse tomato seedlings arrives on Friday.",
                  DAY1 + dt.timedelta(minutes=2), "t3"),
             Turn("assistant", f"Good. {asked}", DAY1 + dt.timedelta(minutes=3), "t4"),
             *session(DAY1 + dt.timedelta(minutes=4), 5, *DATABASE)]
    sleep(vault, turns, now=DAY1 + dt.timedelta(hours=1))
    assert len(topic_names(vault)) == 2
    lines = {i.text: t.name for t in vault.topics.all() for i in t.items()}
    garden = next(t for t, name in lines.items() if "arrives on Friday" in t)
    database = next(t for t in lines if "invoices table to a new schema" in t)
    assert f'asked "{asked}"' in garden
    assert "asked" not in database and lines[database] != lines[garden]


def test_explain_says_per_turn_where_it_went_and_why(hash_vault: Vault, tmp_path: Path):
    vault = no_tail(hash_vault)
    sleep(vault, session(DAY1, 1, *GARDEN, *DATABASE), now=DAY1 + dt.timedelta(hours=1))
    later = tmp_path / "later.jsonl"
    later.write_text("".join(json.dumps(t.to_json()) + "\n" for t in session(
        DAY2, 7, "The greenhouse tomato seedlings were repotted into the clay pots today.")))
    out = run_vault("sleep", later, "--explain", "--now", "2026-03-05T19:00:00Z", "--vault", vault.root)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.strip().startswith("t7 ->"))
    assert "continues a topic of the vault" in line or "stays on the subject before" in line
    garden = next(t for t in vault.topics.all() if any("tomato" in i.text for i in t.items()))
    assert f"t7 -> {garden.name}:" in line
    assert re.search(rf"topic {re.escape(garden.name)} \d\.\d\d", line)  # its likeness to the topic it joined
    data = json.loads(run_vault("log", "--only", "sleep", "--json", "--vault", vault.root).stdout or "[]")
    assert data and any(p[0] == "t7" for p in data[-1].get("placement", []))


def vec(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_nearest_keeps_the_topics_a_slice_comes_near_and_the_one_talked_about_last():
    old = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    garden = PriorTopic("topics/garden.md", "Garden", ["tomatoes"], np.stack([vec(1, 0, 0)]), old)
    db = PriorTopic("topics/db.md", "Database", ["postgres"], np.stack([vec(0, 1, 0)]), old)
    latest = PriorTopic("topics/trip.md", "Trip", ["japan"], np.stack([vec(0, 0, 1)]), old + dt.timedelta(days=9))
    slice_vectors = np.stack([vec(1, 0.1, 0)])
    kept = nearest([garden, db, latest], slice_vectors)
    assert garden in kept and latest in kept and db not in kept
    assert last_talked(kept) is latest
    assert nearest([], slice_vectors) == [] and nearest([garden], np.zeros((0, 3), np.float32)) == []


@pytest.mark.slow
def test_sleeping_session_by_session_with_the_model_continues_the_topics(vault: Vault):
    """The real model end to end: the second session's follow-ups land in the first's topics."""
    vault = no_tail(vault)
    sleep(vault, session(DAY1, 1, *GARDEN, *DATABASE), now=DAY1 + dt.timedelta(hours=1))
    names = topic_names(vault)
    second = sleep(vault, session(DAY2, 7, "Repotting went fine, the seedlings look happy.",
                                  "Migration: the replica run went fine too."),
                   now=DAY2 + dt.timedelta(hours=1))
    assert not second.created and len(second.updated) == 2
    assert topic_names(vault) == names


@pytest.mark.parametrize(("said", "joins"), [
    ("The operation went smoothly, the knee bends again.", True),
    ("Our operation went smoothly, the knee bends again.", True),
    ("An operation went smoothly, the knee bends again.", False),  # a new one, not the one known
])
def test_a_turn_that_names_a_vault_topic_as_a_thing_known_goes_on_with_it(said: str, joins: bool):
    """A later session's "the operation went smoothly" goes on with the vault's "Operation" topic,
    though its meaning alone is not close enough to move the talk there from the topic talked
    about last; "an operation" names a new one and moves nothing."""
    from sheriff_vault.compaction.subjects import find_subjects

    old = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    knee = PriorTopic("topics/operation.md", "Operation", ["Dr Ilves does it at the clinic on the 18th."],
                      np.stack([vec(1, 0, 0)]), old)
    shed = PriorTopic("topics/shed.md", "Garden shed", ["The shed base needs 40 paving slabs."],
                      np.stack([vec(0, 1, 0)]), old + dt.timedelta(days=2))
    turn = Turn("user", said, old + dt.timedelta(days=9), "t1")

    def encode(texts: list[str]) -> np.ndarray:
        return np.stack([vec(0.3, 0.1, 0.95) for _ in texts])  # like the operation, not enough to return to it

    trace: list[dict] = []
    found = find_subjects([turn], encode, [knee, shed], trace)
    holder = next(s for s in found if turn in s.turns)
    assert (holder.existing == "topics/operation.md") is joins
    assert ("named" in trace[0]["cues"]) is joins


def test_a_crowded_vault_topic_must_fit_more_clearly_to_grow():
    """_likeness against a vault topic on its own, with hand-made vectors: past CROWDED lines the
    same fit counts for less (a large topic's words cover any turn); a subject of this sleep is
    not damped."""
    from collections import Counter

    from sheriff_vault.compaction.subjects import CROWDED, Subject, _likeness

    def topic(lines: int, existing: str = "topics/pottery.md") -> Subject:
        return Subject([], [vec(1, 0, 0)] * lines, Counter({"kiln": lines}), existing, "Pottery")

    weight = {"kiln": 1.0}
    said = (vec(1, 0, 0), Counter({"kiln": 1}))
    alike = _likeness(*said, topic(CROWDED), weight, recent=False)
    assert alike == pytest.approx(1.0)
    assert _likeness(*said, topic(4 * CROWDED), weight, recent=False) == pytest.approx(0.5)
    assert _likeness(*said, topic(4 * CROWDED, existing=""), weight, recent=False) == pytest.approx(1.0)


def test_the_plan_does_not_merge_two_subjects_placement_kept_apart():
    """Two subjects placement found in one slice stay two topics however alike the plan's own score
    finds them (every subject of one sleep is near in time: that says nothing about sameness); a
    stray line may still join one, and a subject may still continue a topic the vault held."""
    from sheriff_vault.compaction.merge import Target, match
    from sheriff_vault.compaction.parts import Candidate
    from sheriff_vault.config import Config

    vec = np.asarray([1.0, 0.0], np.float32)
    made_now = Target("topics/money-transfer.md", "a", {"money transfer"}, set(), [DAY1], vec[None, :], new=True)
    held = Target("topics/money-transfer-2.md", "b", {"money transfer"}, set(), [DAY1], vec[None, :])
    stray = Candidate([], name="Bank fee", vector=vec, time_hint=DAY1)
    subject = Candidate([], name="Bank fee", vector=vec, time_hint=DAY1, subject=True)
    cfg = Config().sleep
    assert match(stray, [made_now], cfg).target is made_now
    assert match(subject, [made_now], cfg).target is None
    assert match(subject, [made_now, held], cfg).target is held


def test_a_later_line_that_gives_another_number_is_written_beside_one_like_it(hash_vault: Vault):
    """A line is not written twice; one that says the same words with another number says another
    thing (a score, a count), and a later sleep writes it."""
    vault = no_tail(hash_vault)
    sleep(vault, session(DAY1, 1, *GARDEN, "Greenhouse tomato seedlings sprouted: 3."),
          now=DAY1 + dt.timedelta(hours=1))
    sleep(vault, session(DAY2, 5, "Greenhouse tomato seedlings sprouted: 5."), now=DAY2 + dt.timedelta(hours=1))
    lines = [i.text for t in vault.topics.all() for i in t.items()]
    assert any(re.search(r"\b5\b", line) for line in lines), lines
    assert any(re.search(r"\b3\b", line) for line in lines), lines


def test_a_later_session_that_says_the_same_sentence_with_a_new_value_strikes_the_old(hash_vault: Vault):
    """"The budget is now 500 USD" said in the words of "The budget is 400 USD": the new line is
    written (it says another number) and strikes the old one."""
    vault = no_tail(hash_vault)
    sleep(vault, session(DAY1, 1, *GARDEN, "The greenhouse budget is 400 USD."), now=DAY1 + dt.timedelta(hours=1))
    sleep(vault, session(DAY2, 5, "The greenhouse budget is now 500 USD."), now=DAY2 + dt.timedelta(hours=1))
    items = [i for t in vault.topics.all() for i in t.items()]
    assert any("500 USD" in i.text and not i.superseded for i in items), [i.text for i in items]
    assert all(i.superseded for i in items if "400 USD" in i.text)


def test_a_new_topic_takes_no_alias_that_names_another_topic_of_the_vault(hash_vault: Vault):
    """A new subject that names a person to tell itself from a vault topic about them ("nothing to do
    with Maya's party") keeps its own people as aliases, not that one: the alias would bring a
    question about the party to the housewarming."""
    vault = no_tail(hash_vault)
    sleep(vault, session(DAY1, 1, "Maya's birthday party is on Saturday 14 March at the park.",
                         "Maya wants a chocolate cake and a bouncy castle for the party."),
          now=DAY1 + dt.timedelta(hours=1))
    before = {t.id for t in vault.topics.all()}
    sleep(vault, session(DAY2, 3, "Separately, my brother Tom is planning his housewarming in April, "
                                  "nothing to do with Maya's party.",
                         "Tom wants a barbecue and garden games at the housewarming, Maya is invited too."),
          now=DAY2 + dt.timedelta(hours=1))
    [new] = [t for t in vault.topics.all() if t.id not in before]
    assert "Tom" in new.aliases and not any("maya" in a.lower() for a in new.aliases), new.aliases
