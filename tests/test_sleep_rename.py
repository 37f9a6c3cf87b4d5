"""A later sleep renames a topic whose subject outgrew the name an earlier sleep gave it: the file
moves in that sleep's one commit, the old name stays an alias, links follow, and a name a person
gave is never touched. Real git, real subprocesses, the real parser, the hash embedder."""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import committed_hash_vault, git, run_vault

from sheriff_vault.compaction.naming import Title, outgrown
from sheriff_vault.store.topics import Topic, new_topic, slugify

FIRST = [("A new customer wants a sign for her shop.", "Noted.")]
# the second session never says "customer": what the subject turned out to be
SECOND = [
    ("Her shop is a bakery on Mill Lane, and she wants a hand-painted window sign.", "A window sign, noted."),
    ("The window sign should show a loaf and the bakery's name in gold leaf.", "Gold leaf lettering."),
    ("I quoted 450 for the window sign, paint and gold leaf included.", "450 for the sign."),
    ("She wants the window sign finished before the bakery reopens on the 12th.", "Before the 12th."),
    ("I'll sketch two versions of the window sign over the weekend.", "Two sketches."),
]
OTHER = [("Separately, my bike chain snapped on the hill climb, so the bike needs a new chain.", "Noted.")]


def make_vault(tmp_path: Path) -> Path:
    return committed_hash_vault(tmp_path, 0)


def sleep(root: Path, name: str, day: str, pairs: list[tuple[str, str]]) -> dict:
    turns, n = [], 0
    for said, answer in pairs:
        for role, content in (("user", said), ("assistant", answer)):
            n += 1
            turns.append({"role": role, "content": content, "at": f"{day}T09:{n:02d}:00Z", "id": f"{name}{n}"})
    path = root.parent / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps(t) for t in turns) + "\n")
    out = run_vault("sleep", path, "--now", f"{day}T10:00:00Z", "--json", cwd=root)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_topic_that_outgrew_its_name_is_renamed_in_the_sleep_commit(tmp_path: Path):
    root = make_vault(tmp_path)
    first = sleep(root, "a", "2026-03-02", FIRST)
    [made] = first["created"]
    second = sleep(root, "b", "2026-03-05", SECOND)
    assert not second["created"]
    [now] = second["updated"]
    assert now["name"] != made["name"] and f"renamed from {made['name']}" in now["summary"]
    assert now["path"] == f"topics/{slugify(now['name'])}.md"
    assert not (root / made["path"]).exists()
    topic = Topic.load(root / now["path"], now["path"])
    assert topic.id == made["id"] and made["name"] in topic.aliases
    assert f"# {now['name']}\n" in topic.body.text and f"# {made['name']}\n" not in topic.body.text
    assert len(topic.facts) == 1 + len(SECOND)  # nothing the first sleep wrote is lost
    # one commit holds the whole move, and the tree is clean after it
    changed = git(root, "show", "--name-status", "--format=", "HEAD").split("\n")
    assert f"D\t{made['path']}" in changed and any(line.endswith(now["path"]) for line in changed)
    assert git(root, "status", "--porcelain").strip() == ""
    assert f"renamed from: {made['name']} ({made['path']})" in git(root, "log", "-1", "--format=%B")
    # the old name still finds it
    found = run_vault("recall", made["name"], "--json", cwd=root)
    assert found.returncode == 0, found.stderr
    assert now["path"] in found.stdout
    # its history runs back across the move to the sleep that made it, by either name
    for ref in (now["name"], made["name"]):
        shown = run_vault("history", ref, "--json", cwd=root)
        assert shown.returncode == 0, shown.stderr
        entries = json.loads(shown.stdout)
        entries = entries.get("entries", entries) if isinstance(entries, dict) else entries
        assert [e["sha"] for e in entries] == [second["commit"], first["commit"]]
        assert entries[0]["status"] == "renamed" and entries[0]["previous_path"] == made["path"]
        assert entries[1]["status"] == "created" and entries[1]["path"] == made["path"]


def test_a_name_a_person_gave_stays(tmp_path: Path):
    root = make_vault(tmp_path)
    [made] = sleep(root, "a", "2026-03-02", FIRST)["created"]
    path = root / made["path"]
    path.write_text(path.read_text().replace(f"name: {made['name']}", "name: Commission for Ada"))
    git(root, "commit", "-qam", "my name for it")
    second = sleep(root, "b", "2026-03-05", SECOND)
    [now] = second["updated"]
    assert now["name"] == "Commission for Ada" and now["path"] == made["path"] and "renamed" not in now["summary"]


def test_a_name_in_an_uncommitted_edit_stays(tmp_path: Path):
    root = make_vault(tmp_path)
    [made] = sleep(root, "a", "2026-03-02", FIRST)["created"]
    path = root / made["path"]
    path.write_text(path.read_text().replace(f"name: {made['name']}", "name: Ada's commission"))
    [now] = sleep(root, "b", "2026-03-05", SECOND)["updated"]
    assert now["name"] == "Ada's commission" and path.is_file()


def test_links_from_a_topic_the_sleep_does_not_touch_follow_the_rename(tmp_path: Path):
    root = make_vault(tmp_path)
    first = sleep(root, "a", "2026-03-02", FIRST + OTHER)
    assert len(first["created"]) == 2, first["created"]
    sign = next(t for t in first["created"] if t["name"] == "Customer")
    bike = next(t for t in first["created"] if t is not sign)
    assert f"[[{Path(sign['path']).stem}|" in (root / bike["path"]).read_text()
    second = sleep(root, "b", "2026-03-05", SECOND)
    [now] = second["updated"]
    assert now["path"] != sign["path"]
    linked = (root / bike["path"]).read_text()
    assert f"[[{Path(now['path']).stem}|{now['name']}]]" in linked and f"[[{Path(sign['path']).stem}|" not in linked
    assert bike["path"] in git(root, "show", "--name-only", "--format=", "HEAD")


@pytest.mark.parametrize(("name", "phrases", "old_score", "renamed"), [
    ("New Customer", ["window sign", "bakery"], 0.0, True),  # the name says nothing the subject is about now
    ("Quote", ["kitchen extension", "builder"], 0.2, True),
    ("Bike Repair", ["repair bill", "bike shop"], 0.0, False),  # still names part of it: no churn
    ("Window Sign", ["window sign", "gold leaf"], 0.0, False),
    ("Bakery Sign", ["sign", "bakery"], 0.0, False),
    ("Garden Shed", ["roof felt", "tools"], 0.7, False),  # titles the whole nearly as well: no churn
])
def test_a_name_is_outgrown_only_when_it_names_neither_leading_phrase(name, phrases, old_score, renamed):
    scores = {phrases[0]: 1.0, phrases[1]: 0.8} | ({name.lower(): old_score} if old_score else {})
    whole = Title(phrases[0].title(), [], phrases, scores)
    assert outgrown(name, whole) == (whole.name if renamed else "")


def test_renaming_a_topic_keeps_the_old_name_as_an_alias_and_moves_its_file(tmp_path: Path):
    (tmp_path / "topics").mkdir()
    topic = new_topic(tmp_path / "topics" / "quote.md", "Quote", now=dt.datetime(2026, 3, 2, tzinfo=dt.UTC),
                      rel="topics/quote.md")
    topic.save()
    topic.rename("Kitchen extension", "topics/kitchen-extension.md")
    topic.save()
    moved = Topic.load(tmp_path / "topics" / "kitchen-extension.md")
    assert moved.name == "Kitchen extension" and moved.aliases == ["Quote"]
    assert "# Kitchen extension\n" in moved.body.text


KNEE = [("Started ibuprofen for the sore knee, 400 mg with meals.", "Ibuprofen with meals, noted."),
        ("The ibuprofen takes the edge off the knee by the afternoon.", "Good that the ibuprofen helps."),
        ("Still on ibuprofen, the knee aches on the stairs.", "Noted.")]
SWAPPED = [("The doctor put me on naproxen instead of ibuprofen for the knee now.",
            "Naproxen now for the knee, noted.")]


def test_a_topic_named_by_a_value_a_later_sleep_replaced_is_renamed(tmp_path: Path):
    """Example: a topic titled by a painkiller the person later changed no longer says what holds; a
    later sleep of one exchange renames it, keeping the old name as an alias. Counter-example: the
    same sleep that replaces no value leaves the name (it adds too little to outgrow it)."""
    root = make_vault(tmp_path)
    [made] = sleep(root, "a", "2026-03-02", KNEE)["created"]
    assert "ibuprofen" in made["name"].lower()
    [now] = sleep(root, "b", "2026-03-05", SWAPPED)["updated"]
    assert "ibuprofen" not in now["name"].lower() and f"renamed from {made['name']}" in now["summary"]
    assert made["name"] in Topic.load(root / now["path"], now["path"]).aliases
    other = make_vault(tmp_path / "other")
    [kept] = sleep(other, "a", "2026-03-02", KNEE)["created"]
    [same] = sleep(other, "b", "2026-03-05", [("The knee still aches on the stairs, ibuprofen with meals.",
                                               "Noted.")])["updated"]
    assert same["name"] == kept["name"]
