"""Topic files: the documented syntax parses back exactly, and a person's edits survive updates."""
from __future__ import annotations

import datetime as dt
import difflib
import sys
from pathlib import Path

import pytest
from conftest import NOW, commit_count, git

from sheriff_vault.errors import AmbiguousTopic, TopicFormatError, TopicNotFound
from sheriff_vault.store.items import Citation, Item, parse_item
from sheriff_vault.store.topics import Topic, fact, new_topic

HAND_WRITTEN = """---
# my party notes; the program must keep this comment
schema_version: 1
id: 3f6c2a8e-9b1d-4c1e-8f7a-2d5e6b7c8d90
name: Party planning   # what I call it
one_liner: Caroline's birthday party on Saturday at the park.
aliases:
    - the party
    - Caroline's birthday   # she says it like this
first_seen: 2026-02-18T10:00:00Z
last_seen: "2026-02-19T11:30:00Z"
utility: 4.5
touch_count: 3
evergreen: false
related: [ ]
skills: []
artifacts: []
numbers:
    - {key: budget, value: 400, unit: USD, at: '2026-02-18T10:00:00Z', source: user, confidence: 0.9}
---

# Party planning

Some free notes a person wrote.
  Indented, with  double  spaces.

## Facts

- 2026-02-18 — The party is on Saturday. [t3, t4](../conversations/2026/02/18/100000-a1.md)
- no date on this one, typed by hand
* 2026-02-19 - starred bullet, plain dash separator

## Open loops

- [ ] 2026-02-18 — Book the park shelter. [t9](../conversations/2026/02/18/100000-a1.md)
- [x] 2026-02-18 — Pick a date.

## Notes

Anything else I like.
"""


def _changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def test_unchanged_topic_saves_with_no_diff(tmp_path: Path):
    path = tmp_path / "party.md"
    path.write_text(HAND_WRITTEN)
    topic = Topic.load(path)
    assert not topic.dirty
    assert topic.save() is False
    topic.set("utility", 4.5)
    topic.set("name", "Party planning")
    assert topic.save() is False
    assert path.read_text() == HAND_WRITTEN


def test_fields_and_items_parse(tmp_path: Path):
    topic = Topic.parse(HAND_WRITTEN, tmp_path / "party.md")
    assert topic.id == "3f6c2a8e-9b1d-4c1e-8f7a-2d5e6b7c8d90"
    assert topic.name == "Party planning"
    assert topic.aliases == ["the party", "Caroline's birthday"]
    assert topic.last_seen == dt.datetime(2026, 2, 19, 11, 30, tzinfo=dt.UTC)
    assert topic.numbers[0]["value"] == 400
    facts = topic.facts
    assert [f.text for f in facts] == ["The party is on Saturday.", "no date on this one, typed by hand",
                                       "starred bullet, plain dash separator"]
    assert facts[0].citations == (Citation("conversations/2026/02/18/100000-a1.md", ("t3", "t4")),)
    assert facts[0].date == "2026-02-18" and facts[1].date == ""
    assert facts[0].line == HAND_WRITTEN.splitlines().index(facts[0].raw) + 1
    loops = topic.loops
    assert [(loop.text, loop.done) for loop in loops] == [("Book the park shelter.", False), ("Pick a date.", True)]


def test_update_touches_only_the_lines_it_means_to(tmp_path: Path):
    path = tmp_path / "party.md"
    path.write_text(HAND_WRITTEN)
    topic = Topic.load(path)
    topic.add_alias("the bash")
    topic.touch(dt.datetime(2026, 2, 20, 9, 0, tzinfo=dt.UTC))
    cite = Citation("conversations/2026/02/20/032100-b2.md", ("t12",))
    topic.add_item(fact("The budget went up to 500 USD.", NOW, [cite]))
    topic.add_number("budget", 500, "USD", NOW, "user", 0.9)
    topic.add_item(fact("Venue confirmed", NOW, kind="event", with_time=True))
    assert topic.save()
    after = path.read_text()
    changed = _changed_lines(HAND_WRITTEN, after)
    assert changed == [
        "+    - the bash",
        '-last_seen: "2026-02-19T11:30:00Z"',
        '+last_seen: "2026-02-20T09:00:00Z"',
        "-    - {key: budget, value: 400, unit: USD, at: '2026-02-18T10:00:00Z', source: user, confidence: 0.9}",
        # a number written since is a flat string (Obsidian's Properties panel refuses mappings)
        "+    - budget = 400 USD; at 2026-02-18T10:00:00Z; confidence 0.9; superseded 2026-02-20; source user",
        "+    - budget = 500 USD; at 2026-02-20T03:21:00Z; confidence 0.9; source user",
        "+- 2026-02-20 — The budget went up to 500 USD. [t12](../conversations/2026/02/20/032100-b2.md)",
        "+## Events",
        "+",
        "+- 2026-02-20T03:21Z — Venue confirmed",
        "+",
    ]
    assert "# my party notes; the program must keep this comment" in after
    assert "name: Party planning   # what I call it" in after
    reread = Topic.load(path)
    assert reread.numbers[-1]["value"] == 500 and reread.numbers[0]["value"] == 400
    assert reread.numbers[0]["superseded"] == "2026-02-20" and "superseded" not in reread.numbers[-1]
    assert reread.events[0].text == "Venue confirmed"
    assert reread.render() == after


def test_closing_a_loop_changes_one_line(tmp_path: Path):
    path = tmp_path / "party.md"
    path.write_text(HAND_WRITTEN)
    topic = Topic.load(path)
    loop = topic.loops[0]
    topic.body.replace_item(loop, Item(**{**loop.__dict__, "done": True}))
    topic.save()
    assert _changed_lines(HAND_WRITTEN, path.read_text()) == [
        "-- [ ] 2026-02-18 — Book the park shelter. [t9](../conversations/2026/02/18/100000-a1.md)",
        "+- [x] 2026-02-18 — Book the park shelter. [t9](../conversations/2026/02/18/100000-a1.md)",
    ]


def test_crlf_file_round_trips_and_keeps_its_line_endings(tmp_path: Path):
    crlf = HAND_WRITTEN.replace("\n", "\r\n")
    path = tmp_path / "crlf.md"
    path.write_bytes(crlf.encode())
    topic = Topic.load(path)
    assert topic.save() is False
    topic.add_item(fact("Another fact.", NOW))
    topic.save()
    raw = path.read_bytes().decode()
    assert "- 2026-02-20 — Another fact.\r\n" in raw


def test_new_topic_renders_every_documented_field(tmp_path: Path):
    topic = new_topic(tmp_path / "x.md", "Garden", aliases=["the garden"], now=NOW)
    text = topic.render()
    keys = [line.split(":")[0] for line in text.split("---")[1].strip().splitlines() if not line.startswith(("-", " "))]
    assert keys == ["schema_version", "id", "name", "one_liner", "aliases", "tags", "first_seen", "last_seen",
                    "utility", "touch_count", "evergreen", "related", "skills", "artifacts", "numbers"]
    assert Topic.parse(text, tmp_path / "x.md").render() == text


@pytest.mark.parametrize("line,kind,expected", [
    ("- 2023-05-08 — Went to the group. [D1:3](../conversations/2023/05/08/135600-s1.md)", "fact",
     ("2023-05-08", "Went to the group.", ["D1:3"])),
    ("- [ ] 2023-05-08 — Decide venue", "loop", ("2023-05-08", "Decide venue", [])),
    ("- 2023-05-08T13:56Z — Agreed. [t1, t2](../conversations/a.md) [t7](../conversations/b.md)", "event",
     ("2023-05-08T13:56Z", "Agreed.", ["t1", "t2", "t7"])),
    ("- See [the docs](https://example.com) for more", "fact",
     ("", "See [the docs](https://example.com) for more", [])),
])
def test_item_lines_parse(line: str, kind: str, expected):
    item = parse_item(line, kind)
    assert (item.date, item.text, item.turn_ids) == (expected[0], expected[1], expected[2])
    assert item.render() == line


def test_store_lookup_by_id_slug_name_alias(vault, invoke):
    invoke("topic", "new", "Party planning", "--alias", "the party", "--vault", vault.root)
    invoke("topic", "new", "Garden", "--vault", vault.root)
    store = vault.topics
    party = store.get("party-planning")
    assert store.get(party.id).path == party.path
    assert store.get(party.id[:8]).path == party.path
    assert store.get("PARTY PLANNING").path == party.path
    assert store.get("the party").path == party.path
    with pytest.raises(TopicNotFound):
        store.get("the moon")


def test_same_name_twice_is_refused_unless_forced_then_lookup_is_ambiguous(vault, invoke):
    assert invoke("topic", "new", "Party", "--vault", vault.root).exit_code == 0
    refused = invoke("topic", "new", "Party", "--vault", vault.root)
    assert refused.exit_code != 0 and "party.md" in refused.output and "--force" in refused.output
    assert [p.name for p in vault.topics.paths() if p.suffix == ".md"] == ["party.md"]
    assert invoke("topic", "new", "Party", "--force", "--vault", vault.root).exit_code == 0
    assert sorted(p.name for p in vault.topics.paths() if p.suffix == ".md") == ["party-2.md", "party.md"]
    with pytest.raises(AmbiguousTopic):
        vault.topics.get("Party", topics=vault.topics.all())


@pytest.mark.parametrize("text,line,words", [
    ("no frontmatter here\n", 1, "no YAML frontmatter"),
    ("---\nid: x\nname: [unclosed\n---\nbody\n", 3, "not valid YAML"),
    ("---\nname: Only a name\n---\n", 2, "no `id`"),
    ("---\n- a\n- b\n---\n", 2, "must be a mapping"),
])
def test_bad_topic_files_name_file_and_line(tmp_path: Path, text: str, line: int, words: str):
    path = tmp_path / "bad.md"
    path.write_text(text)
    with pytest.raises(TopicFormatError) as err:
        Topic.load(path, "topics/bad.md")
    assert words in str(err.value)
    assert str(err.value).startswith(f"topics/bad.md:{line}:")


def test_non_utf8_and_huge_files_are_refused_by_name(tmp_path: Path):
    bad = tmp_path / "latin1.md"
    bad.write_bytes(b"---\nid: 1\nname: caf\xe9\n---\n")
    with pytest.raises(TopicFormatError) as err:
        Topic.load(bad, "topics/latin1.md")
    assert "UTF-8" in str(err.value) and "topics/latin1.md:3" in str(err.value)
    huge = tmp_path / "huge.md"
    with open(huge, "wb") as fh:
        fh.truncate(50 * 1024 * 1024)
    with pytest.raises(TopicFormatError) as err:
        Topic.load(huge, "topics/huge.md")
    assert "limit" in str(err.value)


def test_one_bad_file_never_stops_listing(vault, invoke):
    invoke("topic", "new", "Garden", "--vault", vault.root)
    (vault.root / "topics" / "broken.md").write_text("---\nid: [\n---\n")
    (vault.root / "topics" / "picture.png").write_bytes(b"\x89PNG\r\n")
    result = invoke("topic", "list", "--vault", vault.root)
    assert result.exit_code == 0
    assert "garden" in result.stdout
    assert "topics/broken.md" in result.stderr and "topics/picture.png" in result.stderr


def _editor(tmp_path: Path, script: str) -> dict:
    """$EDITOR as a person's editor would act: a real program that rewrites the file it is given."""
    path = tmp_path / "editor.py"
    path.write_text("import sys\nfrom pathlib import Path\np = Path(sys.argv[1])\n" + script)
    return {"EDITOR": f"{sys.executable} {path}"}


def test_topic_edit_opens_the_editor_and_commits_the_change(vault, run, tmp_path: Path):
    assert run("topic", "new", "Garden", "--fact", "Tomatoes go in in May", "--vault", vault.root).returncode == 0
    before = commit_count(vault.root)
    env = _editor(tmp_path, "p.write_text(p.read_text() + '- 2026-02-20 — Basil next to the tomatoes\\n')\n")
    out = run("topic", "edit", "garden", "--vault", vault.root, env=env)
    assert out.returncode == 0, out.stderr
    assert "saved topics/garden.md (commit " in out.stdout
    assert commit_count(vault.root) == before + 1
    assert "+- 2026-02-20 — Basil next to the tomatoes" in git(vault.root, "show", "HEAD", "--", "topics/garden.md")
    assert git(vault.root, "log", "-1", "--format=%s").strip() == "edit: Garden"
    assert not git(vault.root, "status", "--porcelain").strip()


def test_topic_edit_that_changes_nothing_makes_no_commit(vault, run, tmp_path: Path):
    assert run("topic", "new", "Garden", "--vault", vault.root).returncode == 0
    before = commit_count(vault.root)
    out = run("topic", "edit", "Garden", "--vault", vault.root, env=_editor(tmp_path, "p.read_text()\n"))
    assert out.returncode == 0 and "(no change)" in out.stdout
    assert commit_count(vault.root) == before


def test_topic_edit_warns_about_a_broken_file_and_keeps_it(vault, run, tmp_path: Path):
    assert run("topic", "new", "Garden", "--vault", vault.root).returncode == 0
    env = _editor(tmp_path, "p.write_text(p.read_text().replace('name: Garden', 'name: [Garden', 1))\n")
    out = run("topic", "edit", "garden", "--vault", vault.root, env=env)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "topics/garden.md:" in out.stderr and "name: [Garden" in (vault.root / "topics" / "garden.md").read_text()


def test_a_possessive_names_no_word_of_its_own_in_the_file_name():
    from sheriff_vault.store.topics import slugify

    assert slugify("Caroline's birthday party") == "caroline-birthday-party"
    assert slugify("Dana’s travel desk") == "dana-travel-desk"
    assert slugify("Windows 11 upgrade") == "windows-11-upgrade"
