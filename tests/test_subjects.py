"""Subject clustering on its own (compaction/extract.py): a conversation's turns become one
candidate per subject, a subject that pauses and comes back is still one subject. The hash
embedder stands in for the model: these tests check the segmentation logic, not the model."""
from __future__ import annotations

import datetime as dt

from sheriff_vault.compaction.extract import extract
from sheriff_vault.index.embed import hash_vectors
from sheriff_vault.store.buffer import Turn

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
GARDEN = ["The tomato seedlings in the greenhouse need repotting into bigger clay pots.",
          "The greenhouse tomato seedlings get compost and clay pots on Saturday.",
          "Repotting the tomato seedlings takes about twenty clay pots from the greenhouse shelf."]
DATABASE = ["The Postgres database migration moves the invoices table to a new schema.",
            "The invoices table migration in Postgres needs a schema lock during the database cutover.",
            "Postgres schema changes for the invoices database migration run on the replica first."]


def turns(*texts: str) -> list[Turn]:
    return [Turn("user", text, T0 + dt.timedelta(minutes=i), f"t{i + 1}")
            for i, text in enumerate(texts)]


def subjects_of(conversation: list[Turn]) -> list[set[str]]:
    found = extract(conversation, [], hash_vectors)
    return [{u.turn.id for u in cand.units} for cand in found.candidates]


def test_two_subjects_one_after_the_other_become_two_candidates():
    got = subjects_of(turns(*GARDEN, *DATABASE))
    assert {"t1", "t2", "t3"} in got and {"t4", "t5", "t6"} in got and len(got) == 2


def test_a_subject_that_comes_back_is_one_candidate():
    got = subjects_of(turns(GARDEN[0], GARDEN[1], DATABASE[0], DATABASE[1], DATABASE[2], GARDEN[2]))
    assert {"t1", "t2", "t6"} in got and {"t3", "t4", "t5"} in got


def test_every_informative_turn_lands_in_exactly_one_subject():
    got = subjects_of(turns(*GARDEN, *DATABASE))
    ids = [t for s in got for t in s]
    assert sorted(ids) == sorted(set(ids)) and set(ids) == {f"t{i}" for i in range(1, 7)}
