"""The watch daemon and the post-commit hook keep the index fresh: real processes, real files, real git."""
from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from conftest import git, run_vault, wait_for, watching
from memory_fixtures import build

from sheriff_vault.daemon import rpc
from sheriff_vault.daemon.watch import Daemon
from sheriff_vault.index.engine import Index

pytestmark = pytest.mark.slow
NOW = "2026-02-24T10:00:00Z"


@pytest.fixture
def daemon(vault):
    build(vault)
    with watching(vault):
        yield vault


def status(vault) -> dict:
    return rpc.call(vault, "status")


def recall_json(vault, *args: str) -> dict:
    out = run_vault("recall", *args, "--json", "--now", NOW, "--vault", vault.root)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def save_like_an_editor(path: Path, text: str) -> None:
    """Write a temp file and rename it over the original, as vim and VS Code do."""
    tmp = path.with_name(f".{path.name}.swp")
    tmp.write_text(text)
    os.replace(tmp, path)


def test_watcher_indexes_a_hand_edit_and_recall_finds_it(daemon):
    before = status(daemon)["generation"]
    path = daemon.root / "topics" / "vegetable-garden.md"
    save_like_an_editor(path, path.read_text().replace("raised beds", "zanzibar planters"))
    wait_for(lambda: status(daemon)["generation"] > before and status(daemon)["pending"] == 0)
    data = recall_json(daemon, "zanzibar planters")
    assert data["via"] == "daemon"
    assert data["topics"][0]["name"] == "Vegetable garden"
    assert "zanzibar" in data["topics"][0]["facts"][0]["text"]


def test_deleted_topic_disappears(daemon):
    (daemon.root / "topics" / "vegetable-garden.md").unlink()
    data = recall_json(daemon, "tomatoes garden hose")
    assert "Vegetable garden" not in [t["name"] for t in data["topics"]]


def test_commit_reaches_the_daemon_through_the_hook(daemon):
    before = status(daemon)["generation"]
    new = daemon.root / "topics" / "kayak.md"
    old_id = Index(daemon).vault.topics.get("Vegetable garden").id
    new.write_text((daemon.root / "topics" / "vegetable-garden.md").read_text()
                   .replace("Vegetable garden", "Kayak trip").replace("Tomatoes get planted", "The kayak launches")
                   .replace(old_id, "6f9d0c1e-2b3a-4c5d-8e7f-1a2b3c4d5e6f"))
    git(daemon.root, "add", "topics/kayak.md")
    started = time.monotonic()
    git(daemon.root, "commit", "-qm", "hand: kayak")
    assert time.monotonic() - started < 2.0, "the hook must not block the commit"
    log = daemon.root / ".vault" / "logs" / "hook.log"
    wait_for(lambda: log.exists() and "via daemon" in log.read_text())
    assert status(daemon)["generation"] > before
    assert recall_json(daemon, "kayak launches")["topics"][0]["name"] == "Kayak trip"


def test_daemon_and_in_process_give_the_same_answer(daemon):
    for query in ("the party", "what did we do last week", "postgres dry run", "remember the offsite?"):
        via_daemon = recall_json(daemon, query)
        in_process = recall_json(daemon, query, "--no-daemon")
        assert via_daemon["via"] == "daemon" and in_process["via"] == "process"
        for key in ("topics", "order", "mode", "triggers", "window"):
            assert via_daemon[key] == in_process[key], (query, key)


def test_sigterm_stops_cleanly_and_restart_picks_up(daemon):
    state = rpc.read_state(daemon)
    os.kill(state["pid"], signal.SIGTERM)
    wait_for(lambda: not rpc.pid_alive(state["pid"]))
    assert not (daemon.root / ".vault" / "daemon.pid").exists()
    assert not Path(state["socket"]).exists()
    path = daemon.root / "topics" / "vegetable-garden.md"
    path.write_text(path.read_text().replace("raised beds", "copper troughs"))
    again = run_vault("watch", "--vault", daemon.root)
    assert again.returncode == 0 and "started" in again.stdout
    assert recall_json(daemon, "copper troughs")["topics"][0]["name"] == "Vegetable garden"


def test_sigkill_leaves_nothing_the_next_start_cannot_clean(daemon):
    state = rpc.read_state(daemon)
    os.kill(state["pid"], signal.SIGKILL)
    wait_for(lambda: not rpc.pid_alive(state["pid"]))
    assert (daemon.root / ".vault" / "daemon.pid").exists()
    status_out = run_vault("watch", "--status", "--vault", daemon.root)
    assert status_out.returncode == 1 and "not running" in status_out.stdout
    fallback = recall_json(daemon, "the party")
    assert fallback["via"] == "process" and fallback["topics"][0]["name"] == "Caroline's birthday party"
    restarted = run_vault("watch", "--vault", daemon.root)
    assert restarted.returncode == 0, restarted.stderr
    assert rpc.read_state(daemon)["pid"] != state["pid"]


def test_index_folder_deleted_under_a_running_daemon(daemon):
    import shutil

    # Deleted while the daemon is idle: `vault watch` returns once the model is up, which with the
    # onnx backend is often before the daemon's catch-up batches finish writing the index, and
    # rmtree would race their new files (status waits for a running batch).
    wait_for(lambda: (s := status(daemon)) and not s["pending"] and not s["warming_up"], timeout=60,
             what="the daemon is idle")
    shutil.rmtree(daemon.root / ".vault" / "index")
    data = recall_json(daemon, "the party")
    assert data["via"] == "daemon"
    assert data["topics"][0]["name"] == "Caroline's birthday party"
    assert (daemon.root / ".vault" / "index" / "state.db").exists()


def test_second_daemon_is_refused(daemon):
    second = run_vault("watch", "--foreground", "--vault", daemon.root, timeout=60)
    assert second.returncode == 1
    assert "already runs" in second.stderr and "Traceback" not in second.stderr


def test_hook_without_daemon_indexes_in_the_background(vault):
    build(vault)
    Index(vault).refresh()
    path = vault.root / "topics" / "vegetable-garden.md"
    path.write_text(path.read_text().replace("raised beds", "walnut crates"))
    git(vault.root, "commit", "-qam", "hand edit")
    log = vault.root / ".vault" / "logs" / "hook.log"
    wait_for(lambda: log.exists() and "via hook" in log.read_text(), timeout=60)
    index = Index(vault)
    assert index.is_fresh()
    assert any("walnut" in d.text for d in index.snapshot().docs.values())
    index.close()


def test_handle_changes_coalesces_a_burst_into_one_batch(vault):
    """The watcher's decision logic, fed synthetic events (no observer, no model)."""
    (vault.root / "vault.yaml").write_text("embedding:\n  enabled: false\ndaemon:\n  debounce_ms: 50\n")
    from sheriff_vault.store.vault import Vault

    d = Daemon(Vault(vault.root))
    topics = vault.root / "topics"
    for i in range(300):
        (topics / f"t{i}.md").write_text(f"---\nid: 00000000-0000-4000-8000-{i:012d}\nname: T{i}\n---\n")
    d.handle_changes([str(topics / f"t{i}.md") for i in range(300)] * 3)
    d.handle_changes([str(vault.root / ".git" / "index"), str(vault.root / ".vault" / "index" / "x"),
                      str(topics / ".t1.md.swp"), "/elsewhere/file.md"])
    assert len(d.pending) == 300 and d.full_scan
    stats = d.flush()
    assert len(stats.changed) == 300 and d.batches == 1
    assert d.flush() is None
    d.index.close()
