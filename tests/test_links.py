"""Topics as Obsidian reads them: flat frontmatter (every value kept, both shapes read), the
`## Related` section kept from the `related` edges, and hand-written `[[wikilinks]]` found."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import NOW

from sheriff_vault.store.items import Body
from sheriff_vault.store.links import Resolver, find, parse
from sheriff_vault.store.topics import Topic, edge_text, new_topic, number_text, parse_edge, parse_number

OLD_SHAPE = """---
schema_version: 1
id: 3f6c2a8e-9b1d-4c1e-8f7a-2d5e6b7c8d90
name: Party planning
one_liner: Caroline's party.
aliases: []
first_seen: '2026-02-18T10:00:00Z'
last_seen: '2026-02-19T11:30:00Z'
utility: 4.5
touch_count: 3
evergreen: false
related:
- {id: 11111111-1111-4111-8111-111111111111, type: DEPENDS_ON, weight: 1.5}
- {id: 22222222-2222-4222-8222-222222222222, type: RELATES_TO, weight: 0.5}
skills: []
artifacts: []
numbers:
- {key: budget, value: 400, unit: USD, at: '2026-02-18T10:00:00Z', source: user, confidence: 0.9,
  superseded: '2026-02-19'}
- {key: budget, value: 500, unit: USD, at: 2026-02-19T10:00:00Z, source: 'Ann; Bob', confidence: 0.8, note: by hand}
---

# Party planning

My own notes.
"""
NAMES = {"11111111-1111-4111-8111-111111111111": ("shelter", "Park shelter"),
         "22222222-2222-4222-8222-222222222222": ("cake", "cake")}


@pytest.mark.parametrize("number", [
    {"key": "budget", "value": 400, "unit": "USD", "at": "2026-02-18T10:00:00Z", "source": "user", "confidence": 0.9},
    {"key": "distance", "value": 2.75, "unit": "", "at": "2026-02-18T10:00:00Z", "source": "A; B: c",
     "confidence": 0.6, "superseded": "2026-02-19"},
    {"key": "day", "value": "Tuesday; maybe", "unit": "per week", "source": "", "confidence": 1},
    {"key": "count", "value": -3, "unit": "%", "note": "typed by hand", "flag": True},
])
def test_a_number_as_one_string_keeps_every_value(number):
    text = number_text(number)
    assert "\n" not in text
    assert {k: v for k, v in parse_number(text).items() if v not in ("", None)} == \
        {k: v for k, v in number.items() if v not in ("", None)}


def test_an_edge_as_one_string_and_the_shapes_before_it():
    assert parse_edge(edge_text("abc", "DEPENDS_ON", 1.25)) == {"id": "abc", "type": "DEPENDS_ON", "weight": 1.25}
    assert parse_edge("abc") == {"id": "abc", "type": "RELATES_TO", "weight": 1.0}
    assert parse_edge({"id": "abc", "type": "NEXT", "weight": 2}) == {"id": "abc", "type": "NEXT", "weight": 2.0}


def test_the_old_nested_shape_reads_the_same_values_as_the_flat_one(tmp_path: Path):
    old = Topic.parse(OLD_SHAPE, tmp_path / "party.md")
    assert old.nested_keys == ["related", "numbers"]
    assert [p.message.split(";")[0] for p in old.problems()] == [
        "`related` holds mappings, which Obsidian's Properties panel shows as invalid",
        "`numbers` holds mappings, which Obsidian's Properties panel shows as invalid"]
    related, numbers = old.related, old.numbers
    assert old.flatten() == ["related", "numbers"]
    text = old.render()
    flat = Topic.parse(text, tmp_path / "party.md")
    assert flat.nested_keys == [] and not flat.problems()
    assert flat.related == related
    assert flat.numbers == numbers
    assert numbers[1]["at"] == "2026-02-19T10:00:00Z"  # an unquoted YAML timestamp, as the text it was
    assert flat.numbers[1]["source"] == "Ann; Bob" and flat.numbers[1]["note"] == "by hand"
    assert "{" not in text.split("---")[1]
    assert text.endswith("# Party planning\n\nMy own notes.\n")
    assert Topic.parse(text, tmp_path / "party.md").render() == text  # the flat shape round-trips


def test_the_related_section_lists_the_edges_as_links_once(tmp_path: Path):
    path = tmp_path / "party.md"
    path.write_text(OLD_SHAPE)
    topic = Topic.load(path)
    assert topic.sync_related(NAMES.get)
    topic.save()
    text = path.read_text()
    assert text.endswith("My own notes.\n\n## Related\n\n- [[shelter|Park shelter]]\n- [[cake]]\n")
    again = Topic.load(path)
    assert not again.sync_related(NAMES.get) and again.save() is False  # unchanged: no diff
    again.link("22222222-2222-4222-8222-222222222222", "NEXT", 1.0)  # a second edge to the same topic
    again.sync_related(NAMES.get)
    assert again.render().count("[[cake]]") == 1


def test_hand_edits_in_and_around_the_section_survive(tmp_path: Path):
    path = tmp_path / "party.md"
    topic = Topic.parse(OLD_SHAPE, path)
    topic.sync_related(NAMES.get)
    topic.save()
    text = path.read_text().replace("- [[cake]]\n", "- [[cake]]\n- [[melanie]] brings the cake\n\nA note of mine.\n")
    text = text.replace("My own notes.", "My own notes about [[shelter]].")
    path.write_text(text)
    topic = Topic.load(path)
    topic.link("33333333-3333-4333-8333-333333333333", "RELATES_TO", 1.0)
    names = NAMES | {"33333333-3333-4333-8333-333333333333": ("budget", "Budget")}
    assert topic.sync_related(names.get)
    topic.save()
    after = path.read_text().split("---\n", 2)[2]  # the body: `related` gained the edge above it
    assert after == text.split("---\n", 2)[2].replace("- [[cake]]\n", "- [[cake]]\n- [[budget|Budget]]\n")
    topic = Topic.load(path)
    assert topic.unlink({"22222222-2222-4222-8222-222222222222": "cake"})
    topic.save()
    assert "[[cake]]" not in path.read_text() and "- [[melanie]] brings the cake\n" in path.read_text()


def test_a_topic_with_no_edges_gets_no_section_and_loses_an_emptied_one(tmp_path: Path):
    topic = new_topic(tmp_path / "t.md", "Lonely", now=NOW)
    assert not topic.sync_related(NAMES.get)
    topic.link("22222222-2222-4222-8222-222222222222", "RELATES_TO", 1.0)
    topic.sync_related(NAMES.get)
    topic.save()
    topic = Topic.load(tmp_path / "t.md")
    topic.unlink({"22222222-2222-4222-8222-222222222222": "cake"})
    topic.save()
    assert (tmp_path / "t.md").read_text().endswith("# Lonely\n")


def test_wikilinks_are_found_outside_code_with_their_lines():
    body = Body.parse("# T\n\nSee [[Party Planning]] and [[shelter|the shelter]].\n```\n[[not-this]]\n```\n"
                      "Inline `[[nor-this]]`, but ![[cake#Recipe]] and [[photo.png]] and [[#Local]].\n", 10)
    found = find(body)
    assert [(w.line, w.target, w.heading, w.alias) for w in found] == [
        (12, "Party Planning", "", ""), (12, "shelter", "", "the shelter"), (16, "cake", "Recipe", ""),
        (16, "photo.png", "", ""), (16, "", "Local", "")]
    assert [w.to_note for w in found] == [True, True, True, False, False]


def test_a_link_resolves_by_file_name_then_name_then_alias(tmp_path: Path):
    a = new_topic(tmp_path / "party-planning.md", "Party planning", aliases=["the bash"], now=NOW)
    b = new_topic(tmp_path / "cake.md", "Chocolate cake", now=NOW)
    r = Resolver([a, b])
    assert r.resolve(parse("Party-Planning")) is a  # Obsidian: the file name, any case
    assert r.resolve(parse("topics/cake.md#Recipe")) is b
    assert r.resolve(parse("party planning")) is a  # the vault also reads a name...
    assert r.resolve(parse("The Bash|alias")) is a  # ...and an alias
    assert r.resolve(parse("melanie")) is None


def test_tags_are_a_flat_list_obsidian_reads(tmp_path: Path):
    topic = Topic.parse(OLD_SHAPE, tmp_path / "party.md")
    assert topic.tags == []
    assert topic.add_tag("#Family events") and not topic.add_tag("family-events")
    text = topic.render()
    assert "aliases: []\ntags:\n- Family-events\nfirst_seen:" in text
    assert topic.remove_tag("family-events") and Topic.parse(topic.render(), tmp_path / "p.md").tags == []
    loose = Topic.parse(OLD_SHAPE.replace("aliases: []", "aliases: []\ntags: work, home/garden"), tmp_path / "x.md")
    assert loose.tags == ["work", "home/garden"]


def test_an_unchanged_topic_with_links_saves_with_no_diff(tmp_path: Path):
    path = tmp_path / "party.md"
    path.write_text(OLD_SHAPE.replace("My own notes.", "See [[cake]].\n\n## Related\n\n- [[shelter|Park shelter]]\n"
                                      "- [[cake]]"))
    topic = Topic.load(path)
    assert not topic.sync_related(NAMES.get)
    assert topic.save() is False
    assert dt.datetime  # (keeps the import used when run alone)
