"""Sleep end to end through the CLI on real git vaults: one commit per sleep, topics, wake packet,
archive, events, and the spec's acceptance tests (sec. 10)."""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import commit_count, git

from sheriff_vault.store.buffer import load_buffer
from sheriff_vault.store.topics import Topic

pytestmark = pytest.mark.slow
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "conversation.jsonl"
SLEPT_AT = "2026-02-20T03:31:00Z"


@pytest.fixture(scope="module")
def slept(tmp_path_factory):
    """The example conversation slept once into a fresh vault (shared by read-only tests)."""
    from conftest import run_vault

    root = tmp_path_factory.mktemp("slept") / "vault"
    assert run_vault("init", root).returncode == 0
    before = commit_count(root)
    out = run_vault("sleep", EXAMPLE, "--now", SLEPT_AT, "--json", "--vault", root)
    assert out.returncode == 0, out.stderr
    return root, json.loads(out.stdout), before


def topics_of(root: Path) -> list[Topic]:
    return [Topic.load(p, f"topics/{p.name}") for p in sorted((root / "topics").glob("*.md"))]


def test_one_commit_with_a_readable_message(slept):
    root, result, before = slept
    assert commit_count(root) == before + 1
    subject, _, body = git(root, "log", "-1", "--format=%s%n%b").partition("\n")
    assert subject.startswith(f"sleep: 0 updated, {len(result['created'])} created - ")
    assert any(t.name[:12] in subject for t in topics_of(root))  # it names the topics touched
    for topic in result["created"]:
        assert f"new {topic['path']}" in body
    assert f"Sleep-Id: {result['sleep_id']}" in body
    assert git(root, "status", "--porcelain").strip() == ""
    shown = git(root, "show", "HEAD", "--", "topics")
    assert "+- 2026-02-10 — User:" in shown


def test_buffer_keeps_only_the_tail(slept):
    root, result, _ = slept
    from sheriff_vault.store.vault import Vault

    buffer = load_buffer(Vault(root))
    assert result["compacted_turns"] == 22 and result["kept_turns"] == 20
    assert [t.id for t in buffer] == [f"t{i}" for i in range(23, 43)]


def test_every_compacted_turn_is_archived_and_facts_cite_it(slept):
    root, result, _ = slept
    archive = root / result["conversation"]
    text = archive.read_text()
    for i in range(1, 23):
        assert f"(t{i})" in text
    cited = {t for topic in topics_of(root) for item in topic.items() for t in item.turn_ids}
    assert {"t3", "t9", "t17", "t19", "t21"} <= cited
    for topic in topics_of(root):
        for item in topic.items():
            for cite in item.citations:
                assert cite.file == result["conversation"]


def test_wake_packet_has_the_spec_schema(slept):
    root, result, _ = slept
    packet = json.loads((root / result["wake"]).read_text())
    for key in ("schema_version", "slept_at", "conversation_tail", "active_subject_hints", "top_topic_ids",
                "recent_skill_refs", "in_progress"):
        assert key in packet
    assert packet["slept_at"] == SLEPT_AT
    assert len(packet["conversation_tail"]) == 20
    assert packet["conversation_tail"][-1]["content"].startswith("Step 5 is in progress")
    ids = {t.id for t in topics_of(root)}
    assert packet["top_topic_ids"] and set(packet["top_topic_ids"]) <= ids
    assert set(packet["in_progress"]) == {"status", "resume_hint", "topic_id"}


def test_events_record_each_topics_change(slept):
    root, result, _ = slept
    assert len(result["events"]) == len(result["created"])
    event = (root / result["events"][0]).read_text()
    assert "topic_id:" in event and f"slept_at: '{SLEPT_AT}'" in event and "conversation:" in event
    assert "\nat: '2026-02-" in event
    assert "+ fact:" in event or "+ event:" in event or "+ open loop:" in event


def test_relative_time_is_resolved_against_each_turn(slept):
    root, _, _ = slept
    lines = [i.text for t in topics_of(root) for i in t.items()]
    failed = next(line for line in lines if "dry run failed" in line)
    assert "yesterday (16 February 2026)" in failed
    party = next(line for line in lines if "Riverside Park" in line and line.startswith("User"))
    assert "14 February 2026" in party


def test_numbers_are_typed_and_a_newer_value_supersedes(slept):
    root, _, _ = slept
    numbers = [n for t in topics_of(root) for n in t.numbers if n["unit"] == "USD"]
    values = [(n["value"], n["at"][:10]) for n in numbers]
    assert (400, "2026-02-10") in values and (500, "2026-02-17") in values


def test_open_loop_is_recorded(slept):
    root, _, _ = slept
    loops = [i for t in topics_of(root) for i in t.loops]
    assert any("park shelter" in loop.text and not loop.done for loop in loops)  # "Booked" is still in the tail


def test_work_said_done_closes_the_loop_it_names(tmp_path: Path):
    """"Booked the park shelter this morning, so that's done" closes "Melanie offered to bring the
    cake, and I still need to book the park shelter" (the part still to do, in other word forms)."""
    from conftest import run_vault

    root = tmp_path / "vault"
    assert run_vault("init", root).returncode == 0
    (root / "vault.yaml").write_text((root / "vault.yaml").read_text().replace("tail_turns: 20", "tail_turns: 0"))
    out = run_vault("sleep", EXAMPLE, "--now", SLEPT_AT, "--vault", root)
    assert out.returncode == 0, out.stderr
    lines = [line for p in (root / "topics").glob("*.md") for line in p.read_text().splitlines()]
    shelter = [line for line in lines if "need to book the park shelter" in line]
    assert len(shelter) == 1 and shelter[0].startswith("- [x] "), shelter


def test_a_budget_change_strikes_only_the_budget_sentence(slept):
    root, _, _ = slept
    facts = [i for t in topics_of(root) for i in t.facts]
    place = [f for f in facts if "Riverside Park" in f.text]
    old = [f for f in facts if "400 USD" in f.text]
    assert [f.superseded for f in place] == [""]  # the day and place still hold
    assert len(old) == 1 and old[0].superseded == "2026-02-17" and "Riverside" not in old[0].text
    assert old[0].citations == place[0].citations


def test_a_greeting_that_only_opens_the_talk_is_not_a_fact(slept):
    root, _, _ = slept
    assert not any("Good morning" in i.text for t in topics_of(root) for i in t.items())


def test_correction_raises_utility(slept):
    root, _, _ = slept
    from conftest import run_vault

    # the correction ("No, also +2 ...") is still in the tail; sleep it with a tail of 0
    vault_yaml = root / "vault.yaml"
    original = vault_yaml.read_text()
    vault_yaml.write_text(original.replace("tail_turns: 20", "tail_turns: 0"))
    try:
        out = run_vault("sleep", "--now", "2026-02-20T04:00:00Z", "--json", "--vault", root)
        assert out.returncode == 0, out.stderr
        touched = {t["path"] for t in json.loads(out.stdout)["created"] + json.loads(out.stdout)["updated"]}
        corrected = [t for t in topics_of(root) if t.rel in touched and any("forgot" in i.text for i in t.items())]
        assert corrected and corrected[0].utility >= 5
    finally:
        vault_yaml.write_text(original)
        git(root, "checkout", "--", "vault.yaml")


# -- the spec's acceptance tests (sec. 10) --------------------------------------------------
def test_acceptance_1_recall_finds_the_party_unasked(vault, run):
    run("sleep", EXAMPLE, "--now", SLEPT_AT, "--vault", vault.root)
    out = run("recall", "is the party still on?", "--json", "--no-daemon", "--now", "2026-02-20T04:00:00Z",
              "--vault", vault.root)
    data = json.loads(out.stdout)
    top = data["topics"][0]
    assert any("Riverside Park" in f["text"] for f in top["facts"])


def test_acceptance_2_time_windows(vault, run):
    run("sleep", EXAMPLE, "--now", SLEPT_AT, "--vault", vault.root)
    last_week = json.loads(run("recall", "what did we talk about last week?", "--json", "--no-daemon",
                               "--now", "2026-02-24T10:00:00Z", "--vault", vault.root).stdout)
    assert last_week["window"]["start"] == "2026-02-16T00:00:00Z"
    for topic in last_week["topics"]:
        assert "2026-02-16" <= topic["last_seen"][:10] < "2026-02-23" or any(
            "2026-02-16" <= f["date"][:10] < "2026-02-23" for f in topic["facts"])
    before = json.loads(run("recall", "what were we doing before you slept?", "--json", "--no-daemon",
                            "--now", "2026-02-24T10:00:00Z", "--vault", vault.root).stdout)
    assert before["window"]["end"] == SLEPT_AT and before["window"]["start"] is None


def test_acceptance_3_buffer_shrinks_and_one_commit(vault, run):
    for turn in [json.loads(line) for line in EXAMPLE.read_text().splitlines()]:
        run("note", turn["role"], turn["content"], "--now", turn["at"], "--vault", vault.root)
    assert len(load_buffer(vault)) == 42
    before = commit_count(vault.root)
    out = run("sleep", "--now", SLEPT_AT, "--vault", vault.root)
    assert out.returncode == 0, out.stderr
    assert len(load_buffer(vault)) == 20
    assert commit_count(vault.root) == before + 1
    assert list((vault.root / "wake").rglob("*.json"))


def test_acceptance_4_mid_task_sleep_then_wake_resumes(vault, run):
    run("sleep", EXAMPLE, "--now", SLEPT_AT, "--vault", vault.root)
    fresh = json.loads(run("wake", "--json", "--no-daemon", "--now", "2026-02-20T03:45:00Z",
                           "--vault", vault.root).stdout)
    assert fresh["decision"] == "resume"
    hint = fresh["in_progress"]["resume_hint"]
    assert "Goal:" in hint and "Next step:" in hint
    assert "step 5" in hint.lower() or "graph edges" in hint.lower()
    assert "resume it now" in fresh["bundle"]
    stale = json.loads(run("wake", "--json", "--no-daemon", "--now", "2026-02-23T09:00:00Z",
                           "--vault", vault.root).stdout)
    assert stale["decision"] == "confirm" and "ask the person" in stale["bundle"]


def test_acceptance_6_repeated_mentions_merge_different_parties_stay_apart(vault, run, tmp_path):
    def convo(day: str, lines: list[str], start: int) -> Path:
        path = tmp_path / f"{day}.jsonl"
        path.write_text("".join(json.dumps({"role": "user", "content": line, "at": f"{day}T10:{i:02d}:00Z",
                                            "id": f"c{start + i}"}) + "\n" for i, line in enumerate(lines)))
        return path

    config = vault.root / "vault.yaml"
    config.write_text(config.read_text().replace("tail_turns: 20", "tail_turns: 0"))
    first = convo("2026-03-02", ["We're planning Caroline's birthday party at Riverside Park.",
                                 "The birthday party needs a cake and balloons for Caroline.",
                                 "Caroline's birthday party starts at 3pm at Riverside Park."], 0)
    again = convo("2026-03-04", ["For Caroline's birthday party at Riverside Park we booked the shelter.",
                                 "Caroline's birthday party will also have a bouncy castle."], 10)
    other = convo("2026-09-20", ["Totally different: Dmitri's retirement party is at the yacht club in October.",
                                 "The retirement party for Dmitri needs a jazz band at the yacht club."], 20)
    anna = convo("2026-09-22", ["Separately, my sister Anna is organising her graduation party, different crowd.",
                                "Anna's graduation party is separate from Caroline's party, it needs a DJ."], 30)
    for path, now in ((first, "2026-03-02T11:00:00Z"), (again, "2026-03-04T11:00:00Z"),
                      (other, "2026-09-20T11:00:00Z"), (anna, "2026-09-22T11:00:00Z")):
        out = run("sleep", path, "--now", now, "--vault", vault.root)
        assert out.returncode == 0, out.stderr
    topics = topics_of(vault.root)
    caroline = [t for t in topics if any("Caroline" in i.text and "Anna" not in i.text for i in t.items())]
    dmitri = [t for t in topics if any("Dmitri" in i.text for i in t.items())]
    assert len(caroline) == 1, [t.name for t in caroline]
    assert len(dmitri) == 1 and dmitri[0].id != caroline[0].id
    assert {"c0", "c10", "c11"} <= {t for i in caroline[0].items() for t in i.turn_ids}
    anna = [t for t in topics if any("Anna" in i.text for i in t.items())]
    assert len(anna) == 1 and anna[0].id not in (caroline[0].id, dmitri[0].id)  # "different crowd"


@pytest.mark.parametrize("said,kept", [("Pic!", False), ("Wow, cool pic!", False),
                                       ("Check out my pic of the pottery class.", True)])
def test_sharing_a_picture_is_not_a_fact_but_what_it_shows_is(said: str, kept: bool):
    from sheriff_vault.compaction.units import make_units
    from sheriff_vault.store.buffer import Turn

    at = dt.datetime(2026, 2, 10, 9, 0, tzinfo=dt.UTC)
    units = make_units([Turn("user", said, at, "t1", "Caroline")], "UTC", set())
    assert any("skip" not in u.flags for u in units) is kept


def test_a_one_liner_sums_up_its_own_subject_with_current_values(slept):
    """"Two things on my plate: Caroline's birthday party and the memory refactor" opens two
    subjects and sums up neither; the party's one-liner is the party's own line, without the
    budget a later turn corrected."""
    root, _, _ = slept
    party = next(t for t in topics_of(root) if "birthday" in t.name.lower())
    assert "Riverside Park" in party.one_liner and "Two things" not in party.one_liner
    assert "400 USD" not in party.one_liner


def test_the_lines_a_sleep_writes_are_embedded_before_the_refresh_that_indexes_them(tmp_path: Path):
    """A sleep embeds the lines it writes while it writes them (Index.prefetch): the refresh that
    indexes its files afterwards (a daemon's, once the sleep has answered) finds every vector in
    the cache, and each is the model's own vector of what search embeds for that line. A line that
    is its fact's sentence as said keeps the vector the sleep gave that fact: the model runs once
    for it, not twice."""
    import collections

    import numpy as np

    from sheriff_vault.compaction.compact import sleep
    from sheriff_vault.index.engine import Index, embed_text
    from sheriff_vault.store.buffer import read_file
    from sheriff_vault.store.vault import init_vault

    vault = init_vault(tmp_path / "vault").vault
    index = Index(vault)
    written: list[str] = []
    encoded: collections.Counter[str] = collections.Counter()
    model_encode = index.embedder.encode

    def counting(texts, workers=1):
        encoded.update(texts)
        return model_encode(texts, workers=workers)

    index.embedder.encode = counting
    try:
        result = sleep(vault, read_file(EXAMPLE), now=dt.datetime(2026, 2, 20, 3, 31, tzinfo=dt.UTC),
                       index=index, reindex=written.extend)
        assert result.commit and written
        index.settle_prefetch()
        stats = index.refresh(written)
        assert stats.changed and stats.embedded == 0
        docs = [d for d in index.snapshot().docs.values() if d.path in written]
        topics = index.snapshot().topics
        texts = [embed_text(d, topics.get(d.topic_path)) for d in docs]
        assert len(docs) > 10
        cache = index.vectors()
        rows = cache.lookup([index.embedder.key(t) for t in texts])
        assert len(rows) == len(set(texts))
        cached = cache.matrix(np.array([rows[index.embedder.key(t)] for t in texts]))
        assert np.array_equal(cached, model_encode(texts))
        said = {t.content for t in read_file(EXAMPLE)}
        as_said = [t for t in texts if any(t in turn for turn in said)]
        assert len(as_said) >= 3 and all(encoded[t] == 1 for t in as_said)
    finally:
        index.close()
