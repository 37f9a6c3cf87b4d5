"""The topic merge driver: three versions of a topic merged by the library, and by real git
(`vault init` registers the driver, `git merge` calls `vault merge-driver` as a subprocess)."""
from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

from conftest import git

from sheriff_vault.store.items import Citation
from sheriff_vault.store.topicmerge import merge_texts
from sheriff_vault.store.topics import Topic, fact, new_topic
from sheriff_vault.store.vault import init_vault

T0 = dt.datetime(2026, 2, 10, 9, 0, tzinfo=dt.UTC)
CONV_A = "conversations/2026/02/11/100000-aaaa.md"
CONV_B = "conversations/2026/02/12/100000-bbbb.md"


def base_topic(path: Path) -> Topic:
    topic = new_topic(path, "Caroline's birthday party", one_liner="The party is at Riverside Park.", now=T0,
                      topic_id="3f6c2a8e-9b1d-4c1e-8f7a-2d5e6b7c8d90", rel="topics/party.md")
    topic.add_alias("the party")
    topic.add_item(fact("User: The party is at Riverside Park.", T0, [Citation("conversations/c0.md", ("t1",))]))
    topic.add_item(fact("User: I still need to book the shelter.", T0, kind="loop"))
    topic.add_number("party_budget", 400, "USD", T0, "user", 0.8)
    topic.set("utility", 10.0)
    topic.set("touch_count", 1)
    return topic


def side(text: str, at: dt.datetime, new_fact: str, conv: str, *, alias: str, budget: int | None,
         edge: tuple[str, float], shared: str) -> str:
    """What a sleep on one machine does to the topic: facts, an alias, a number, a link, counters."""
    topic = Topic.parse(text, Path("party.md"), "topics/party.md")
    topic.add_item(fact(new_fact, at, [Citation(conv, ("t3",))]))
    topic.add_item(fact(shared, T0, [Citation("conversations/c0.md", ("t2",))]))
    topic.add_alias(alias)
    if budget is not None:
        topic.add_number("party_budget", budget, "USD", at, "user", 0.8)
    topic.link(*edge[:1], "RELATES_TO", edge[1])
    topic.touch(at)
    topic.set("utility", round(topic.utility * 0.98 ** ((at - T0).total_seconds() / 86400) + 2, 3))
    topic.set("touch_count", topic.touch_count + 1)
    return topic.render()


def test_two_sleeps_into_one_topic_merge_without_a_conflict(tmp_path: Path):
    base = base_topic(tmp_path / "party.md").render()
    a_at, b_at = dt.datetime(2026, 2, 11, 10, tzinfo=dt.UTC), dt.datetime(2026, 2, 12, 10, tzinfo=dt.UTC)
    shared = "User: Caroline turns thirty."
    ours = side(base, a_at, "User: We moved the party to 3 pm.", CONV_A, alias="caroline's party", budget=500,
                edge=("8c1e0000-0000-4000-8000-000000000001", 0.5), shared=shared)
    theirs = side(base, b_at, "User: Bring a cake from Rosa's.", CONV_B, alias="the bash", budget=450,
                  edge=("8c1e0000-0000-4000-8000-000000000001", 1.5), shared=shared)
    result = merge_texts(base, ours, theirs, path="topics/party.md")
    assert result.clean, result.text
    merged = Topic.parse(result.text, Path("party.md"), "topics/party.md")
    texts = [i.text for i in merged.facts]
    assert texts.count("User: We moved the party to 3 pm.") == 1
    assert texts.count("User: Bring a cake from Rosa's.") == 1
    assert texts.count("User: Caroline turns thirty.") == 1  # same text, same citation: one fact
    assert texts.count("User: The party is at Riverside Park.") == 1
    assert len(merged.loops) == 1
    assert merged.aliases == ["the party", "caroline's party", "the bash"]
    assert merged.first_seen == T0 and merged.last_seen == b_at
    assert merged.touch_count == 3
    budgets = [(n["value"], n["at"]) for n in merged.numbers if n["key"] == "party_budget"]
    assert budgets == [(400, "2026-02-10T09:00:00Z"), (500, "2026-02-11T10:00:00Z"), (450, "2026-02-12T10:00:00Z")]
    assert merged.related == [{"id": "8c1e0000-0000-4000-8000-000000000001", "type": "RELATES_TO", "weight": 1.5}]
    # each side's +2 survives: 10 decayed over two days, plus 2 (decayed a day) plus 2
    expected = 10 * 0.98 ** 2 + 2 * 0.98 + 2
    assert abs(merged.utility - expected) < 0.01
    assert merged.id == "3f6c2a8e-9b1d-4c1e-8f7a-2d5e6b7c8d90" and merged.one_liner == "The party is at Riverside Park."


def test_a_citation_and_a_tick_added_on_each_side_are_both_kept(tmp_path: Path):
    base = base_topic(tmp_path / "party.md")
    base_text = base.render()
    ours_t = Topic.parse(base_text, Path("party.md"), "topics/party.md")
    fact_line = ours_t.facts[0]
    ours_t.body.replace_item(fact_line, fact(fact_line.text, T0, [*fact_line.citations, Citation(CONV_A, ("t4",))]))
    theirs_t = Topic.parse(base_text, Path("party.md"), "topics/party.md")
    fact_line = theirs_t.facts[0]
    theirs_t.body.replace_item(fact_line, fact(fact_line.text, T0, [*fact_line.citations, Citation(CONV_B, ("t9",))]))
    loop = theirs_t.loops[0]
    theirs_t.body.replace_item(loop, fact(loop.text, T0, kind="loop").__class__(**{**loop.__dict__, "done": True}))
    result = merge_texts(base_text, ours_t.render(), theirs_t.render())
    assert result.clean, result.text
    merged = Topic.parse(result.text, Path("party.md"))
    assert [c.file for c in merged.facts[0].citations] == ["conversations/c0.md", CONV_A, CONV_B]
    assert merged.loops[0].done


def test_the_same_line_changed_two_ways_is_a_conflict(tmp_path: Path):
    base = base_topic(tmp_path / "party.md").render()
    ours = base.replace("User: The party is at Riverside Park. [", "User: The party is at the town hall. [")
    theirs = base.replace("User: The party is at Riverside Park. [", "User: The party is at the beach. [")
    result = merge_texts(base, ours, theirs, path="topics/party.md")
    assert result.conflicts == 1
    assert "<<<<<<< ours (topics/party.md)" in result.text and ">>>>>>> theirs (topics/party.md)" in result.text
    assert "the town hall" in result.text and "the beach" in result.text
    assert "Riverside Park. [t1]" not in result.text


def test_a_frontmatter_value_changed_two_ways_is_a_conflict(tmp_path: Path):
    base = base_topic(tmp_path / "party.md").render()
    ours = base.replace("name: Caroline's birthday party", "name: Caroline's 30th")
    theirs = base.replace("name: Caroline's birthday party", "name: The big party")
    result = merge_texts(base, ours, theirs)
    assert result.conflicts == 1
    assert "<<<<<<< ours" in result.text
    assert "name: Caroline's 30th" in result.text and "name: The big party" in result.text


# -- real git ---------------------------------------------------------------------------------------------
def _vault_with_topic(tmp_path: Path) -> Path:
    root = init_vault(tmp_path / "vault").vault.root
    base_topic(root / "topics" / "party.md").save()
    git(root, "add", "topics/party.md")
    git(root, "commit", "-q", "--no-verify", "-m", "topic: party")
    return root


def _commit_on(root: Path, branch: str, text: str, message: str) -> None:
    git(root, "checkout", "-q", branch)
    (root / "topics" / "party.md").write_text(text)
    git(root, "commit", "-q", "--no-verify", "-am", message)


def test_init_registers_the_driver_and_git_merge_uses_it(tmp_path: Path):
    root = _vault_with_topic(tmp_path)
    assert "topics/*.md merge=sheriff-topic" in (root / ".gitattributes").read_text()
    assert "merge-driver %O %A %B %P" in git(root, "config", "--get", "merge.sheriff-topic.driver")
    assert git(root, "log", "--format=%s", "--", ".gitattributes").strip() == "init: new vault"
    base = (root / "topics" / "party.md").read_text()
    shared = "User: Caroline turns thirty."
    git(root, "branch", "other")
    _commit_on(root, "main", side(base, dt.datetime(2026, 2, 11, tzinfo=dt.UTC), "User: Moved to 3 pm.", CONV_A,
                                  alias="a1", budget=500, edge=("8c1e0000-0000-4000-8000-000000000001", 1.0),
                                  shared=shared), "sleep a")
    _commit_on(root, "other", side(base, dt.datetime(2026, 2, 12, tzinfo=dt.UTC), "User: Bring a cake.", CONV_B,
                                   alias="b1", budget=None, edge=("8c1e0000-0000-4000-8000-000000000002", 1.0),
                                   shared=shared), "sleep b")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "--no-edit", "-q", "other")
    merged = Topic.load(root / "topics" / "party.md")
    texts = [i.text for i in merged.facts]
    assert sorted(texts) == sorted(["User: The party is at Riverside Park.", "User: Moved to 3 pm.",
                                    "User: Caroline turns thirty.", "User: Bring a cake."])
    assert merged.aliases == ["the party", "a1", "b1"]
    assert len(merged.related) == 2
    assert git(root, "status", "--porcelain").strip() == ""


def test_a_hand_conflict_stays_a_git_conflict_that_doctor_points_to(tmp_path: Path, run):
    root = _vault_with_topic(tmp_path)
    base = (root / "topics" / "party.md").read_text()
    git(root, "branch", "other")
    _commit_on(root, "main", base.replace("at Riverside Park. [", "at the town hall. ["), "edit: hall")
    _commit_on(root, "other", base.replace("at Riverside Park. [", "at the beach. ["), "edit: beach")
    git(root, "checkout", "-q", "main")
    merge = subprocess.run(["git", "-c", "user.name=P", "-c", "user.email=p@x", "merge", "--no-edit", "other"],
                           cwd=root, capture_output=True, text=True)
    assert merge.returncode != 0
    assert "CONFLICT" in merge.stdout
    text = (root / "topics" / "party.md").read_text()
    assert "<<<<<<< ours (topics/party.md)" in text
    line = text.splitlines().index("<<<<<<< ours (topics/party.md)") + 1
    doctor = run("doctor", "--vault", root)
    assert doctor.returncode == 1
    assert f"topics/party.md:{line}: unresolved merge conflict" in doctor.stdout


def test_merge_driver_command_exit_codes(tmp_path: Path, run):
    base = base_topic(tmp_path / "party.md").render()
    files = {}
    for name, text in (("O", base), ("A", base.replace("Riverside Park. [", "the hall. [")),
                       ("B", base.replace("Riverside Park. [", "the beach. ["))):
        files[name] = tmp_path / name
        files[name].write_text(text)
    out = run("merge-driver", files["O"], files["A"], files["B"], "topics/party.md")
    assert out.returncode == 1
    assert "topics/party.md: 1 conflict(s) left for you" in out.stderr
    files["B"].write_text(base.replace("- [ ] ", "- [x] "))
    files["A"].write_text(base.replace("name: Caroline's birthday party", "name: Caroline's party"))
    out = run("merge-driver", files["O"], files["A"], files["B"], "topics/party.md")
    assert out.returncode == 0, out.stderr
    merged = files["A"].read_text()
    assert "name: Caroline's party" in merged and "- [x] " in merged


def test_both_sides_opening_a_new_section_read_well_after_the_merge(tmp_path: Path):
    base = base_topic(tmp_path / "party.md").render()
    sides = []
    for text in ("User: We booked the shelter.", "User: Melanie baked the cake."):
        topic = Topic.parse(base, Path("party.md"), "topics/party.md")
        topic.add_item(fact(text, T0, kind="event"))
        sides.append(topic.render())
    result = merge_texts(base, *sides)
    assert result.clean, result.text
    assert result.text.endswith("## Events\n\n- 2026-02-10 — User: We booked the shelter.\n"
                                "- 2026-02-10 — User: Melanie baked the cake.\n")


def test_the_same_fact_added_in_two_places_is_kept_once(tmp_path: Path):
    base_t = base_topic(tmp_path / "party.md")
    base = base_t.render()
    same = fact("User: Caroline turns thirty.", T0, [Citation(CONV_A, ("t7",))])
    ours_t = Topic.parse(base, Path("party.md"))
    ours_t.add_item(same)
    theirs_t = Topic.parse(base, Path("party.md"))
    theirs_t.add_item(fact("User: Something else first.", T0))
    theirs_t.add_item(fact("User: Another thing.", T0))
    lines = theirs_t.body.lines
    at = next(i for i, line in enumerate(lines) if "Riverside Park" in line)
    lines.insert(at, same.render() + "\n")  # theirs put it at the top of the section
    result = merge_texts(base, ours_t.render(), theirs_t.render())
    assert result.clean, result.text
    assert result.text.count("Caroline turns thirty.") == 1
    assert result.text.count("Something else first.") == 1 and result.text.count("Another thing.") == 1


def test_the_same_topic_created_on_two_machines_merges_as_one(tmp_path: Path):
    """Both sides made topics/melanie.md on their own (git's add/add): the id comes from the path,
    so it is the same, and the two files merge; the side that knew the topic first names it."""
    root = _vault_with_topic(tmp_path)
    store = init_vault(root).vault.topics
    git(root, "branch", "other")
    made = {}
    for branch, at, one_liner, text in (
            ("main", dt.datetime(2026, 2, 12, tzinfo=dt.UTC), "Melanie bakes.", "User: Melanie brings the cake."),
            ("other", dt.datetime(2026, 2, 11, tzinfo=dt.UTC), "Melanie is Caroline's friend.",
             "User: Melanie lives in Leeds.")):
        git(root, "checkout", "-q", branch)
        topic = store.create("Melanie", one_liner=one_liner, now=at)
        topic.add_item(fact(text, at, [Citation(CONV_A, ("t1",))]))
        topic.set("touch_count", 1)
        topic.save()
        made[branch] = topic.id
        git(root, "add", "topics/melanie.md")
        git(root, "commit", "-q", "--no-verify", "-m", f"topic: Melanie on {branch}")
    assert made["main"] == made["other"]
    git(root, "checkout", "-q", "main")
    git(root, "merge", "--no-edit", "-q", "other")
    merged = Topic.load(root / "topics" / "melanie.md")
    assert merged.id == made["main"]
    assert sorted(f.text for f in merged.facts) == ["User: Melanie brings the cake.", "User: Melanie lives in Leeds."]
    assert merged.one_liner == "Melanie is Caroline's friend."  # the other side knew her first
    assert merged.first_seen == dt.datetime(2026, 2, 11, tzinfo=dt.UTC) and merged.touch_count == 2
    assert merged.render().count("# Melanie\n") == 1 and merged.render().count("## Facts") == 1
