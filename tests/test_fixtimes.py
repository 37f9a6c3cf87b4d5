"""`vault doctor --fix-times`: first_seen/last_seen that a hand edit broke are put back from history
(the sleeps' event files and the values the vault's own commits wrote), only those two keys change,
an intact topic keeps every byte, and the fix is one commit. Real git, real subprocesses."""
from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import commit_count, git, run_vault, use_hash_embedder

from sheriff_vault.compaction.compact import sleep
from sheriff_vault.store.buffer import Turn
from sheriff_vault.store.edits import create_topic
from sheriff_vault.store.vault import Vault, init_vault


def at(stamp: str) -> dt.datetime:
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def chat(prefix: str, stamp: str, lines: list[str]) -> list[Turn]:
    start = at(stamp)
    return [Turn("user", text, start + dt.timedelta(minutes=i), f"{prefix}{i}")
            for i, text in enumerate([*lines, "ok", "bye"])]


@pytest.fixture
def history_vault(tmp_path: Path) -> Vault:
    """A party topic talked about in two sleeps, a garden topic made by the topic tool, both committed."""
    vault = use_hash_embedder(init_vault(tmp_path / "vault").vault)
    git(vault.root, "commit", "-qam", "hash embedder")
    vault.config.sleep.tail_turns = 2
    sleep(vault, chat("a", "2026-02-09T09:00:00Z", ["Caroline's birthday party is at Riverside Park on Saturday."]),
          now=at("2026-02-10T10:00:00Z"))
    sleep(vault, chat("b", "2026-02-11T17:30:00Z", ["Caroline's birthday party needs forty balloons."]),
          now=at("2026-02-12T10:00:00Z"))
    create_topic(vault, "Garden", now=at("2026-02-13T08:00:00Z"), facts=["Tomatoes go in in May."])
    assert not git(vault.root, "status", "--porcelain").strip()
    return vault


def party(vault: Vault) -> Path:
    return next(t.path for t in vault.topics.all() if "birthday" in t.name.lower())


def seen(path: Path) -> tuple[str, str]:
    text = path.read_text()
    first = re.search(r"^first_seen: '?([^'\n#]*?)'?\s*(?:#.*)?$", text, re.M)
    last = re.search(r"^last_seen: '?([^'\n#]*?)'?\s*(?:#.*)?$", text, re.M)
    return (first.group(1) if first else ""), (last.group(1) if last else "")


def test_broken_times_come_back_from_history_as_one_commit(history_vault: Vault):
    root = history_vault.root
    party_path, garden_path = party(history_vault), root / "topics" / "garden.md"
    good_party, good_garden = seen(party_path), seen(garden_path)
    assert good_party == ("2026-02-09T09:00:00Z", "2026-02-11T17:30:00Z")  # when it was talked about
    # A person breaks them: a word for a date, a swapped pair, a comment of theirs that must survive.
    text = party_path.read_text()
    text = text.replace(f"first_seen: '{good_party[0]}'", "first_seen: last tuesday  # when Caroline asked")
    party_path.write_text(text)
    garden = garden_path.read_text().replace(f"last_seen: '{good_garden[1]}'", "last_seen: '2020-01-01T00:00:00Z'")
    garden_path.write_text(garden)
    git(root, "commit", "-qam", "my edits")
    doctor = run_vault("doctor", cwd=root)
    assert doctor.returncode == 1
    assert "`first_seen` is not an ISO-8601 time" in doctor.stdout and "vault doctor --fix-times" in doctor.stdout
    assert "topics/garden.md:9: `last_seen` is before `first_seen`; run `vault doctor --fix-times`" in doctor.stdout
    commits = commit_count(root)

    out = run_vault("doctor", "--fix-times", "--json", cwd=root)
    assert out.returncode == 0, out.stdout + out.stderr  # the vault is clean afterwards
    data = json.loads(out.stdout)
    fixed = {f["path"]: f for f in data["fix_times"]["fixed"]}
    assert set(fixed) == {history_vault.rel(party_path), "topics/garden.md"}
    assert fixed[history_vault.rel(party_path)]["before"]["first_seen"] == "last tuesday"
    assert "2 event file(s)" in fixed[history_vault.rel(party_path)]["evidence"]
    assert data["ok"] is True
    assert commit_count(root) == commits + 1
    assert git(root, "log", "-1", "--format=%s").startswith("doctor: first_seen/last_seen of 2 topic(s)")
    assert seen(party_path) == good_party and seen(garden_path) == good_garden
    # Only the broken line changed (the person's comment stays on it); every other line kept its bytes.
    changed = [(a, b) for a, b in zip(text.splitlines(), party_path.read_text().splitlines(), strict=True) if a != b]
    assert len(changed) == 1 and changed[0][1].startswith(f"first_seen: '{good_party[0]}'")
    assert changed[0][1].endswith("# when Caroline asked")
    assert garden_path.read_text() == garden.replace("'2020-01-01T00:00:00Z'", f"'{good_garden[1]}'")
    assert not git(root, "status", "--porcelain").strip()

    again = run_vault("doctor", "--fix-times", cwd=root)
    assert again.returncode == 0 and "nothing to fix" in again.stdout and commit_count(root) == commits + 1


def test_intact_topics_are_left_alone(history_vault: Vault):
    root = history_vault.root
    before = {p: p.read_bytes() for p in (root / "topics").glob("*.md")}
    commits = commit_count(root)
    out = run_vault("doctor", "--fix-times", cwd=root)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "the times of all 2 topic(s) agree with history; nothing to fix" in out.stdout
    assert {p: p.read_bytes() for p in before} == before and commit_count(root) == commits


def test_a_deleted_key_comes_back_and_an_uncommitted_edit_is_committed_with_it(history_vault: Vault):
    root = history_vault.root
    path = party(history_vault)
    good = seen(path)
    path.write_text(re.sub(r"^last_seen: .*\n", "", path.read_text(), flags=re.M).replace(
        "forty balloons.", "forty balloons. Blue ones."))  # not committed
    out = run_vault("doctor", "--fix-times", cwd=root)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"last_seen None -> {good[1]}" in out.stdout
    assert seen(path) == good and "Blue ones." in path.read_text()
    assert not git(root, "status", "--porcelain").strip()


def test_a_topic_never_committed_is_skipped_with_a_reason(history_vault: Vault):
    root = history_vault.root
    (root / "topics" / "draft.md").write_text(
        "---\nid: 0b7c3b5e-1f7a-4d39-9d0c-8a1c0e6f7a11\nname: Draft\nfirst_seen: soon\n---\n\n# Draft\n")
    out = run_vault("doctor", "--fix-times", "--json", cwd=root)
    data = json.loads(out.stdout)
    assert data["fix_times"]["skipped"] == ["topics/draft.md: not in git history yet (commit it first)"]
    assert out.returncode == 1  # and the plain check still points at the bad value


def test_a_vault_without_commits_says_what_to_do(tmp_path: Path):
    root = init_vault(tmp_path / "vault").vault.root
    shutil.rmtree(root / ".git")
    git(root, "init", "-q")  # a vault's files in a repository with no commit yet
    out = run_vault("doctor", "--fix-times", cwd=root)
    assert out.returncode != 0 and "no commits yet" in out.stderr and "vault sleep" in out.stderr


def test_a_shallow_clone_is_refused_until_it_has_its_history(history_vault: Vault, tmp_path: Path):
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{history_vault.root}", str(clone))
    assert run_vault("init", clone, cwd=tmp_path).returncode == 0
    path = party(Vault(clone))
    path.write_text(re.sub(r"^first_seen: .*$", "first_seen: someday", path.read_text(), flags=re.M))
    out = run_vault("doctor", "--fix-times", cwd=clone)
    assert out.returncode != 0
    assert "this clone is shallow: its history is cut off" in out.stderr and "git fetch --unshallow" in out.stderr
    assert "first_seen: someday" in path.read_text()  # nothing written
    git(clone, "fetch", "-q", "--unshallow")
    fixed = run_vault("doctor", "--fix-times", cwd=clone)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "first_seen: '2026-02-09T09:00:00Z'" in path.read_text()


def test_a_topic_made_by_hand_keeps_its_valid_dates_and_gets_broken_ones_from_its_commits(history_vault: Vault):
    root = history_vault.root
    diary = root / "topics" / "diary.md"
    diary.write_text("---\nid: 0b7c3b5e-1f7a-4d39-9d0c-8a1c0e6f7a11\nname: Diary\nfirst_seen: '2019-05-01T00:00:00Z'\n"
                     "last_seen: never\n---\n\n# Diary\n\n## Facts\n\n- 2019-05-01 — I started a diary.\n")
    git(root, "add", "topics/diary.md")
    subprocess.run(["git", "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qm", "my diary"],
                   cwd=root, check=True, env=dict(os.environ, GIT_AUTHOR_DATE="2026-03-01T08:00:00Z",
                                                  GIT_COMMITTER_DATE="2026-03-01T08:00:00Z"))
    out = run_vault("doctor", "--fix-times", "--json", cwd=root)
    assert out.returncode == 0, out.stdout + out.stderr
    fixed = json.loads(out.stdout)["fix_times"]["fixed"]
    assert [f["path"] for f in fixed] == ["topics/diary.md"] and "1 commit(s) of the file" in fixed[0]["evidence"]
    assert seen(diary) == ("2019-05-01T00:00:00Z", "2026-03-01T08:00:00Z")  # the person's first_seen stays
