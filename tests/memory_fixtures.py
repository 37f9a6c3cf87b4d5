"""Small hand-made vaults for recall tests: topics with dated facts, written the way sleep would."""
from __future__ import annotations

import datetime as dt
import json

from sheriff_vault.store import gitlog
from sheriff_vault.store.edits import create_topic
from sheriff_vault.store.fsutil import atomic_write
from sheriff_vault.store.items import Citation
from sheriff_vault.store.topics import fact

UTC = dt.UTC
# Five turns of a conversation about a database move and a party (the sleep tests repeat them).
TALK = [
    ("user", "We are moving the orders database from Postgres 14 to Postgres 16 next month."),
    ("assistant", "Noted. Is the dry run done?"),
    ("user", "The dry run failed on the invoices table because of a missing index."),
    ("assistant", "Then we add the index first and rerun it on Friday."),
    ("user", "Also, Caroline's birthday party is on Saturday at Riverside Park, budget 400 USD."),
]


def day(s: str) -> dt.datetime:
    return dt.datetime.fromisoformat(s).replace(tzinfo=UTC)


TOPICS = [
    ("Caroline's birthday party", ["the party", "birthday bash"], "2026-02-10T15:00:00",
     ["The party is on Saturday 14 February 2026 at Riverside Park.", "Budget for the party is 400 USD.",
      "Melanie will bring the cake."]),
    ("Vegetable garden", ["the garden"], "2026-01-05T09:00:00",
     ["Tomatoes get planted in the raised beds in May.", "The garden hose leaks at the tap."]),
    ("Database migration", ["pg upgrade", "the migration"], "2026-02-17T11:00:00",
     ["We are moving the orders database from Postgres 14 to Postgres 16.",
      "The migration dry run failed on the invoices table because of a missing index."]),
    ("Team offsite in Lisbon", ["the offsite"], "2026-02-19T18:00:00",
     ["The offsite is in Lisbon from 2 to 4 March 2026.", "Flights are booked through the travel desk."]),
]


def build(vault, topics=TOPICS) -> dict[str, str]:
    """Create each topic (dated at its own time) with cited facts; returns name -> topic id."""
    ids = {}
    for name, aliases, when, facts in topics:
        at = day(when)
        result = create_topic(vault, name, now=at, aliases=aliases, commit=False)
        topic = result.topic
        for i, text in enumerate(facts, 1):
            topic.add_item(fact(text, at, [Citation("conversations/x.md", (f"t{i}",))]))
        topic.save()
        ids[name] = topic.id
    gitlog.commit_paths(vault.root, "test: topics", ["topics"])
    return ids


def write_wake_packet(vault, slept_at: dt.datetime, **extra) -> None:
    path = vault.path("wake", slept_at.strftime("%Y/%m/%d"), slept_at.strftime("%H%M%S") + ".json")
    packet = {"schema_version": 1, "slept_at": slept_at.strftime("%Y-%m-%dT%H:%M:%SZ"), "conversation_tail": [],
              "active_subject_hints": [], "top_topic_ids": [], "recent_skill_refs": [],
              "in_progress": {"status": "idle", "resume_hint": "", "topic_id": None}} | extra
    atomic_write(path, json.dumps(packet, indent=2))
