"""Races with real processes: a person editing a topic while sleep runs, two sleeps at once, git's
index.lock held by someone else, and the vault lock's waiting, refusing and re-entering."""
from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from faultkit import (
    EXAMPLE,
    buffer_ids,
    cited_ids,
    cli,
    clone,
    finish,
    git,
    new_commits,
    porcelain,
    retarget,
    scenario,
    start,
    wait_paused,
    workdir,
)

from sheriff_vault.errors import LockTimeout
from sheriff_vault.store.buffer import append_turns, read_file
from sheriff_vault.store.locks import FileLock, stale_holder
from sheriff_vault.store.topics import Topic
from sheriff_vault.store.vault import Vault

pytestmark = pytest.mark.slow
PERSON_FACT = "- 2026-02-21 — Person: the daemon must start on boot, said the ops team."


def _updated_topic(scn) -> str:
    """A topic the sleep updates (it exists before the sleep)."""
    return next(f for f in scn.clean.files if f.startswith("topics/") and (scn.template / f).exists())


def _person_edits(path: Path) -> str:
    """What a person does in an editor: a new fact line under Facts and a new one-liner."""
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    at = max(i for i, line in enumerate(lines) if line.startswith("- "))
    lines.insert(at + 1, PERSON_FACT + "\n")
    edited = "".join(lines)
    old = next(line for line in lines if line.startswith("one_liner:"))
    edited = edited.replace(old, "one_liner: My own words for this topic.\n")
    path.write_text(edited)
    return edited


def test_a_hand_edit_made_while_sleep_runs_survives_with_the_sleeps_additions():
    scn = scenario("B")
    root = clone(scn.template, workdir() / "hand-edit")
    rel = _updated_topic(scn)
    before = Topic.load(root / rel, rel)
    proc = start(*retarget(scn.args, root), env={"SHERIFF_VAULT_PAUSE": "sleep:planned:2"})
    wait_paused(proc)
    _person_edits(root / rel)
    code, out, err = finish(proc)
    assert code == 0, err
    assert f"note: {rel} changed on disk while sleeping; merged with your edit" in err
    commits = new_commits(root, scn.base)
    assert len(commits) == 1 and not porcelain(root)
    committed = git(root, "show", f"HEAD:{rel}")
    assert PERSON_FACT in committed and "one_liner: My own words for this topic." in committed
    clean = Topic.parse((workdir() / "B" / "clean" / rel).read_text(), Path(rel), rel)
    merged = Topic.parse(committed, Path(rel), rel)
    added = {i.text for i in clean.items()} - {i.text for i in before.items()}
    assert added, "the sleep adds items to this topic in a clean run"
    assert added <= {i.text for i in merged.items()}, "the sleep's additions are missing"
    assert set(clean.aliases) <= set(merged.aliases)
    assert scn.clean.cited <= cited_ids(root)


def test_an_unreadable_hand_edit_stops_sleep_without_a_partial_commit():
    scn = scenario("B")
    root = clone(scn.template, workdir() / "broken-edit")
    rel = _updated_topic(scn)
    proc = start(*retarget(scn.args, root), env={"SHERIFF_VAULT_PAUSE": "sleep:planned:2"})
    wait_paused(proc)
    broken = (root / rel).read_text().replace("\nname: ", "\nname: [", 1)
    (root / rel).write_text(broken)
    code, out, err = finish(proc)
    assert code == 1 and f"error: {rel}:" in err and "not valid YAML" in err
    assert err.startswith("note: rolled back a sleep that was stopped by an error"), err
    assert new_commits(root, scn.base) == []
    assert porcelain(root) == [f" M {rel}"], "only the person's own edit may remain"
    assert (root / rel).read_text() == broken, "the person's bytes were changed"
    after = cli("topic", "list", "--vault", root)
    assert not after.stderr.startswith("note:"), "the sleep was already rolled back"
    assert set(scn.incoming) <= set(buffer_ids(root)), "the turns must wait in the buffer"


def test_an_uncommitted_hand_edit_survives_a_sleep_that_fails():
    """Rolling back restores what the file held before the sleep, not the last commit."""
    scn = scenario("B")
    root = clone(scn.template, workdir() / "uncommitted-edit")
    rel = _updated_topic(scn)
    edited = _person_edits(root / rel)
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    os.utime(lock, (time.time() - 60, time.time() - 60))
    out = cli(*retarget(scn.args, root))
    assert out.returncode == 1 and "note: rolled back a sleep" in out.stderr
    lock.unlink()
    assert (root / rel).read_text() == edited
    assert porcelain(root) == [f" M {rel}"]


def _filled(name: str) -> tuple[Path, str]:
    """A vault whose own buffer holds the 42 example turns (as `vault note` would leave it)."""
    scn = scenario("A")
    root = clone(scn.template, workdir() / name)
    vault = Vault(root)
    append_turns(vault, read_file(EXAMPLE), dt.datetime(2026, 2, 20, 3, 31, tzinfo=dt.UTC))
    return root, scn.base


def test_two_sleeps_at_once_make_one_commit_and_the_second_waits():
    root, base = _filled("two-sleeps")
    first = start("sleep", "--now", "2026-02-20T03:31:00Z", "--vault", root,
                  env={"SHERIFF_VAULT_PAUSE": "sleep:planned:2"})
    wait_paused(first)
    began = time.monotonic()
    second = start("sleep", "--now", "2026-02-20T03:31:00Z", "--vault", root)
    code2, out2, err2 = finish(second)
    waited = time.monotonic() - began
    code1, out1, err1 = finish(first)
    assert code1 == 0 and "compact 22 turn(s), keep 20" in out1, err1
    assert code2 == 0 and "nothing to compact: 20 turn(s) fit in the 20-turn tail" in out2, err2
    assert waited > 1.0, "the second sleep did not wait for the first one's lock"
    assert len(new_commits(root, base)) == 1 and not porcelain(root)
    assert buffer_ids(root) == [f"t{i}" for i in range(23, 43)]


def test_two_sleeps_of_one_transcript_at_once_make_one_commit():
    scn = scenario("A")
    root = clone(scn.template, workdir() / "two-same")
    args = retarget(scn.args, root)
    first = start(*args, env={"SHERIFF_VAULT_PAUSE": "sleep:planned:3"})
    wait_paused(first)
    second = start(*args)
    assert finish(first)[0] == 0 and finish(second)[0] == 0
    assert len(new_commits(root, scn.base)) == 1
    assert buffer_ids(root) == scn.clean.buffer


def test_a_person_commits_while_sleep_holds_the_vault_lock_and_the_hook_never_blocks():
    scn = scenario("A")
    root = clone(scn.template, workdir() / "commit-during-sleep")
    proc = start(*retarget(scn.args, root), env={"SHERIFF_VAULT_PAUSE": "sleep:planned:3"})
    wait_paused(proc)
    (root / "notes.md").write_text("my own notes\n")
    git(root, "add", "notes.md")
    began = time.monotonic()
    git(root, "commit", "-qm", "my notes")
    assert time.monotonic() - began < 2.0, "the post-commit hook blocked the person's commit"
    code, _, err = finish(proc)
    assert code == 0, err
    log = git(root, "log", "--format=%s", f"{scn.base}..HEAD").splitlines()
    assert len(log) == 2 and log[1] == "my notes" and log[0].startswith("sleep: ")
    assert not porcelain(root) and buffer_ids(root) == scn.clean.buffer


@pytest.mark.parametrize("command", [("topic", "new", "Kayak trip", "--fact", "We launch at dawn."),
                                     ("topic", "new", "Tomatoes")])
def test_a_topic_edit_killed_before_its_commit_is_recovered_by_the_next_command(command):
    root = clone(scenario("A").template, workdir() / f"killed-topic-new-{len(command)}")
    proc = start(*command, "--vault", root, env={"SHERIFF_VAULT_FAULT": "edit:saved"})
    assert finish(proc)[0] == -signal.SIGKILL
    assert porcelain(root), "the kill should leave the saved topic uncommitted"
    nxt = cli("doctor", "--vault", root)
    assert nxt.stderr.startswith("note: rolled back a topic edit that was interrupted"), nxt.stderr
    assert nxt.returncode == 0 and not porcelain(root)
    again = cli(*command, "--vault", root)
    assert again.returncode == 0, again.stderr
    assert not porcelain(root) and git(root, "log", "-1", "--format=%s").startswith("topic: new ")


def test_a_topic_update_killed_before_its_commit_keeps_the_persons_uncommitted_edit():
    scn = scenario("B")
    root = clone(scn.template, workdir() / "killed-topic-update")
    rel = _updated_topic(scn)
    edited = _person_edits(root / rel)
    slug = Path(rel).stem
    other = next(p.stem for p in sorted((root / "topics").glob("*.md")) if p.stem != slug)
    proc = start("topic", "link", slug, other, "--vault", root, env={"SHERIFF_VAULT_FAULT": "edit:saved"})
    assert finish(proc)[0] == -signal.SIGKILL
    assert cli("doctor", "--vault", root).returncode == 0
    assert (root / rel).read_text() == edited, "the rollback lost the person's uncommitted edit"


# -- git's index.lock ---------------------------------------------------------------------------
def test_git_index_lock_is_waited_for_then_the_command_succeeds():
    root = clone(scenario("A").template, workdir() / "index-lock-wait")
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    threading.Timer(1.5, lock.unlink).start()
    began = time.monotonic()
    out = cli("topic", "new", "Kayak trip", "--fact", "We launch at dawn.", "--vault", root)
    assert out.returncode == 0, out.stderr
    assert time.monotonic() - began >= 1.4
    assert "topics/kayak-trip.md" in git(root, "show", "--name-only", "HEAD") and not porcelain(root)


def test_git_index_lock_held_for_good_is_reported_clearly():
    root = clone(scenario("A").template, workdir() / "index-lock-held")
    (root / ".git" / "index.lock").write_text("")
    began = time.monotonic()
    out = cli("topic", "new", "Kayak trip", "--fact", "We launch at dawn.", "--vault", root)
    assert out.returncode == 1
    assert time.monotonic() - began < 30
    assert out.stderr.strip().splitlines() == [
        "note: rolled back a topic edit that was stopped by an error before its commit (1 file(s) restored)",
        f"error: {root}/.git/index.lock: git's index is locked by another git process "
        f"(wait for it to finish; if no git process runs, delete that file)"]
    assert not porcelain(root) and not (root / "topics" / "kayak-trip.md").exists()


def test_a_failed_topic_commit_leaves_nothing_behind():
    root = clone(scenario("A").template, workdir() / "ref-lock-undo")
    (root / ".git" / "refs" / "heads" / "main.lock").write_text("")  # another git is moving the branch
    assert cli("topic", "new", "Kayak trip", "--vault", root).returncode == 1
    (root / ".git" / "refs" / "heads" / "main.lock").unlink()
    assert porcelain(root) == []


def test_sleep_blocked_by_git_index_lock_fails_clearly_and_rolls_back():
    scn = scenario("A")
    root = clone(scn.template, workdir() / "index-lock-sleep")
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    os.utime(lock, (time.time() - 60, time.time() - 60))  # someone else's, older than the sleep
    out = cli(*retarget(scn.args, root))
    assert out.returncode == 1 and "git's index is locked by another git process" in out.stderr
    assert "note: rolled back a sleep that was stopped by an error" in out.stderr
    assert new_commits(root, scn.base) == [] and lock.exists(), "another process's lock is not ours to take"
    lock.unlink()
    assert not porcelain(root)
    doctor = cli("doctor", "--vault", root)
    assert doctor.returncode == 0 and "note:" not in doctor.stderr
    again = cli(*retarget(scn.args, root))
    assert again.returncode == 0 and len(new_commits(root, scn.base)) == 1
    assert buffer_ids(root) == scn.clean.buffer


def test_git_locks_left_by_a_sleep_killed_inside_its_commit_are_cleared():
    scn = scenario("A")
    root = clone(scn.template, workdir() / "git-locks-stale")
    proc = start(*retarget(scn.args, root), env={"SHERIFF_VAULT_FAULT": "sleep:written"})
    assert finish(proc)[0] == -signal.SIGKILL
    locks = [root / ".git" / "index.lock", root / ".git" / "refs" / "heads" / "main.lock"]
    for lock in locks:  # as if git died inside the sleep's commit, holding both
        lock.write_text("")
    doctor = cli("doctor", "--vault", root)
    assert doctor.returncode == 0 and "note: rolled back a sleep" in doctor.stderr, doctor.stderr
    assert not any(lock.exists() for lock in locks) and not porcelain(root)
    assert cli(*retarget(scn.args, root)).returncode == 0
    assert len(new_commits(root, scn.base)) == 1


# -- the vault lock -------------------------------------------------------------------------------
HOLD = """
import sys, time
from pathlib import Path
from sheriff_vault.store.locks import FileLock
lock = FileLock(Path(sys.argv[1]), what="vault").acquire()
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _holder(path: Path, seconds: float) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_held_vault_lock_is_refused_clearly_after_the_timeout(tmp_path):
    path = tmp_path / "vault.lock"
    holder = _holder(path, 30)
    try:
        began = time.monotonic()
        with pytest.raises(LockTimeout) as exc:
            FileLock(path, what="vault", timeout=1.2).acquire()
        assert 1.2 <= time.monotonic() - began < 5
        assert f"the vault is locked by pid {holder.pid}" in str(exc.value)
        assert "wait for that process to finish" in str(exc.value)
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_left_by_a_killed_holder_is_taken_at_once_and_its_holder_named(tmp_path):
    path = tmp_path / "vault.lock"
    holder = _holder(path, 30)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    began = time.monotonic()
    lock = FileLock(path, what="vault", timeout=5).acquire()
    try:
        assert time.monotonic() - began < 1
        assert stale_holder(lock)["pid"] == holder.pid
    finally:
        lock.release()


def test_a_nested_lock_in_one_thread_reenters_and_other_threads_still_wait(tmp_path):
    path = tmp_path / "index.lock"
    outer = FileLock(path, what="search index", timeout=1).acquire()
    inner = FileLock(path, what="search index", timeout=1)
    with inner:
        assert inner.held
    assert outer.held
    errors: list[BaseException] = []

    def other() -> None:
        try:
            FileLock(path, what="search index", timeout=0.3).acquire()
        except LockTimeout as exc:
            errors.append(exc)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert len(errors) == 1, "another thread got a lock this thread holds"
    outer.release()
    again = FileLock(path, what="search index", timeout=1).acquire()
    again.release()


def test_half_an_index_from_a_killed_process_is_rebuilt_without_waiting_for_itself():
    scenario("A")
    root = clone(workdir() / "A" / "clean", workdir() / "half-index")
    assert cli("index", "--vault", root).returncode == 0
    (root / ".vault" / "index" / "tantivy" / "meta.json").unlink()
    began = time.monotonic()
    out = cli("index", "--vault", root, timeout=60)
    assert out.returncode == 0, out.stderr
    assert time.monotonic() - began < 30
    assert "rebuilding it from the files" in out.stderr
    data = json.loads(cli("recall", "bouncy castle budget", "--json", "--no-daemon", "--vault", root).stdout)
    assert data["topics"], "the rebuilt index finds nothing"
