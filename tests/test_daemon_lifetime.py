"""No daemon outlives its vault, and a killed daemon never blocks the next one: real daemon
subprocesses (started by `vault recall`, as a person starts them) on real vaults with the hash
embedder."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import daemons_of_this_run, delete_tree, run_vault, use_hash_embedder, wait_for
from memory_fixtures import build

from sheriff_vault.daemon import lifecycle, rpc
from sheriff_vault.errors import DaemonError
from sheriff_vault.store.vault import Vault, init_vault

NOW = "2026-02-20T03:21:00Z"




def recall_json(root: Path, query: str = "the party") -> dict:
    out = run_vault("recall", query, "--vault", root, "--now", NOW, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def started_daemon(vault: Vault) -> int:
    """Recall once (which starts the daemon) and return the daemon's pid."""
    assert recall_json(vault.root)["via"] == "daemon"
    [daemon] = lifecycle.daemons(vault.root)
    assert rpc.read_state(vault)["pid"] == daemon["pid"]
    return daemon["pid"]


def test_deleting_the_vault_folder_stops_its_daemon(hash_vault, autostart):
    build(hash_vault)
    autostart(hash_vault.root)
    pid = started_daemon(hash_vault)
    delete_tree(hash_vault.root)
    wait_for(lambda: not rpc.pid_alive(pid), timeout=5, what="the daemon of the deleted vault exits")
    assert not lifecycle.daemons(hash_vault.root)


def test_moving_the_vault_away_stops_its_daemon_and_recall_works_in_the_new_place(hash_vault, tmp_path, autostart):
    build(hash_vault)
    autostart(hash_vault.root)
    pid = started_daemon(hash_vault)
    moved = tmp_path / "moved"
    autostart(moved)
    os.rename(hash_vault.root, moved)
    wait_for(lambda: not rpc.pid_alive(pid), timeout=5, what="the daemon of the moved vault exits")
    assert "deleted or moved away; exiting" in (moved / ".vault" / "logs" / "daemon.log").read_text()
    for name in ("daemon.json", "daemon.pid", "daemon.sock"):  # it cleaned up after itself where the vault went
        assert not (moved / ".vault" / name).exists(), name
    again = recall_json(moved)
    assert again["via"] == "daemon" and again["topics"][0]["name"] == "Caroline's birthday party"
    [daemon] = lifecycle.daemons(moved)
    assert daemon["pid"] != pid


def test_a_folder_made_again_at_the_same_path_is_not_served_by_the_old_daemon(hash_vault, tmp_path, autostart):
    build(hash_vault)
    autostart(hash_vault.root)
    started_daemon(hash_vault)
    aside = tmp_path / "aside"
    os.rename(hash_vault.root, aside)
    new = use_hash_embedder(init_vault(hash_vault.root).vault)
    started = run_vault("watch", "--vault", new.root)  # perhaps while the old daemon still runs
    assert started.returncode == 0, started.stderr
    # one daemon per user: the process may be the same one (it dropped the moved folder and opened
    # the new one) or a new one (it had exited, serving nothing); either way the new folder is
    # served afresh and the moved folder by no one
    wait_for(lambda: not (aside / ".vault" / "daemon.json").exists(), timeout=15,
             what="the moved folder is no longer served")
    state = rpc.read_state(new)
    assert state and rpc.call(new, "ping")["pid"] == state["pid"]


def test_a_killed_daemon_is_replaced_by_the_next_recall(hash_vault, autostart):
    build(hash_vault)
    autostart(hash_vault.root)
    pid = started_daemon(hash_vault)
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not rpc.pid_alive(pid), timeout=10, what="the killed daemon is gone")
    state = rpc.read_state(hash_vault)
    assert state["pid"] == pid and Path(state["socket"]).exists()  # what the killed daemon left behind
    status = run_vault("watch", "--status", "--vault", hash_vault.root, timeout=30)
    assert status.returncode == 1 and status.stdout.strip() == "not running"
    again = recall_json(hash_vault.root)
    assert again["via"] == "daemon" and again["topics"][0]["name"] == "Caroline's birthday party"
    new = rpc.read_state(hash_vault)["pid"]
    assert new != pid and [d["pid"] for d in lifecycle.daemons(hash_vault.root)] == [new]


def leave_a_killed_daemons_files(vault: Vault, pid: int) -> Path:
    """What a daemon killed with -9 leaves, its pid now another process's: daemon.json naming `pid`
    and a socket file nobody listens on (bound, then closed without unlinking). Returns the socket."""
    sock_path = rpc.socket_path_for(vault)
    vault.cache.mkdir(parents=True, exist_ok=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(str(sock_path))
    (vault.cache / "daemon.json").write_text(json.dumps(
        {"pid": pid, "socket": str(sock_path), "vault": str(vault.root), "protocol": rpc.PROTOCOL}))
    return sock_path


def test_a_stale_pid_now_used_by_another_process_is_not_taken_for_the_daemon(hash_vault, autostart):
    """A killed daemon's pid reused by an unrelated process, and its socket file left with nobody
    listening: status says not running, stop cleans up at once and leaves that process alone,
    and recall starts a daemon."""
    build(hash_vault)
    autostart(hash_vault.root)
    other = subprocess.Popen(["sleep", "300"])
    try:
        sock_path = leave_a_killed_daemons_files(hash_vault, other.pid)
        (hash_vault.cache / "daemon.pid").write_text(f"{other.pid}\n")
        status = run_vault("watch", "--status", "--vault", hash_vault.root, timeout=30)
        assert status.returncode == 1 and status.stdout.strip() == "not running"
        stopped = run_vault("watch", "--stop", "--vault", hash_vault.root, timeout=20)
        assert stopped.returncode == 0 and stopped.stdout.strip() == "not running", stopped.stderr
        assert other.poll() is None, "stop must not signal a process that is not the daemon"
        assert not sock_path.exists() and not (hash_vault.cache / "daemon.json").exists()
        assert recall_json(hash_vault.root)["via"] == "daemon"
    finally:
        other.kill()
        other.wait()


def test_a_stale_socket_does_not_stop_a_daemon_from_starting(hash_vault, autostart):
    """The same leftovers, recalled through without a `vault watch --stop` first."""
    build(hash_vault)
    autostart(hash_vault.root)
    other = subprocess.Popen(["sleep", "300"])
    try:
        leave_a_killed_daemons_files(hash_vault, other.pid)
        again = recall_json(hash_vault.root)
        assert again["via"] == "daemon"
        assert rpc.read_state(hash_vault)["pid"] not in (other.pid, None)
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_the_session_check_finds_a_daemon_left_running_wherever_its_vault_is(tmp_path):
    """conftest's end-of-run check lists the daemons this run started: by their vault's folder
    under pytest's, or by the run's mark in their environment for a vault elsewhere."""
    elsewhere = Path(tempfile.mkdtemp(prefix="sv-lifetime-"))
    try:
        vaults = [use_hash_embedder(init_vault(tmp_path / "here").vault),
                  use_hash_embedder(init_vault(elsewhere / "there").vault)]
        for vault in vaults:
            started = run_vault("watch", "--vault", vault.root)
            assert started.returncode == 0, started.stderr
        try:
            wanted = {str(v.root): rpc.read_state(v)["pid"] for v in vaults}
            left = {d["vault"]: d["pid"] for d in daemons_of_this_run(tmp_path) if d["vault"] in wanted}
            assert left == wanted
        finally:
            lifecycle.terminate([rpc.read_state(v)["pid"] for v in vaults])
        assert not daemons_of_this_run(tmp_path)
    finally:
        shutil.rmtree(elsewhere, ignore_errors=True)


def test_a_daemon_that_does_not_answer_in_time_is_not_left_running(hash_vault, monkeypatch):
    """`vault watch` gives up on a daemon that never answers, and stops it rather than leave it."""
    monkeypatch.setenv("SHERIFF_VAULT_PAUSE", "daemon:starting:60")
    with pytest.raises(DaemonError, match="did not answer within 3s and was stopped"):
        lifecycle.start_background(hash_vault, timeout=3)
    assert not lifecycle.daemons(hash_vault.root)


def test_a_deleted_vault_with_its_socket_in_tmp_leaves_no_socket_behind(tmp_path, autostart):
    """A vault path too long for a socket in .vault gets one in /tmp (rpc.socket_path_for) when it
    has a daemon of its own (`daemon.shared: false`): the daemon of a deleted vault removes it too."""
    vault = use_hash_embedder(init_vault(tmp_path / ("a-folder-with-a-long-name-" * 3) / "vault").vault)
    path = vault.root / "vault.yaml"
    path.write_text(path.read_text().replace("shared: true", "shared: false"))
    vault = Vault(vault.root)
    sock = rpc.socket_path_for(vault)
    assert sock.parent == Path("/tmp")
    build(vault)
    autostart(vault.root)
    pid = started_daemon(vault)
    assert sock.exists()
    delete_tree(vault.root)
    wait_for(lambda: not rpc.pid_alive(pid), timeout=5, what="the daemon of the deleted vault exits")
    wait_for(lambda: not sock.exists(), timeout=5, what="its socket in /tmp removed")


def test_a_vault_copied_with_its_daemon_files_is_served_as_its_own_and_leaves_the_original_alone(
        hash_vault, tmp_path, autostart):
    """`cp -a` copies .vault/daemon.json, which names the original vault's daemon: the copy's recall
    is answered as the copy's own vault (each request names its vault; the user's daemon opens the
    copy beside the original), and `vault watch --stop` in the copy stops serving the copy alone."""
    build(hash_vault)
    autostart(hash_vault.root)
    original = started_daemon(hash_vault)
    copy = Vault(tmp_path / "copy")
    subprocess.run(["cp", "-a", str(hash_vault.root), str(copy.root)], check=True)
    autostart(copy.root)
    assert rpc.read_state(copy)["pid"] == original  # what cp copied
    assert recall_json(copy.root)["via"] == "daemon"
    [own] = lifecycle.daemons(copy.root)
    assert own["pid"] == original and own["vault"] == str(copy.root)  # one daemon, two vaults served
    about = json.loads(run_vault("watch", "--status", "--json", "--vault", copy.root).stdout)
    assert about["pid"] == original and about["vault"] == str(copy.root)
    stopped = run_vault("watch", "--stop", "--vault", copy.root)
    assert stopped.returncode == 0, stopped.stderr
    wait_for(lambda: not lifecycle.daemons(copy.root), timeout=30, what="the copy no longer served")
    assert rpc.read_state(copy) is None and rpc.pid_alive(original)
    assert recall_json(hash_vault.root)["via"] == "daemon"
    assert lifecycle.daemons(hash_vault.root)[0]["pid"] == original


def test_a_copied_daemon_json_alone_does_not_stop_the_original_vaults_daemon(hash_vault, tmp_path, autostart):
    build(hash_vault)
    autostart(hash_vault.root)
    original = started_daemon(hash_vault)
    copy = Vault(tmp_path / "copy")
    subprocess.run(["cp", "-a", str(hash_vault.root), str(copy.root)], check=True)
    stopped = run_vault("watch", "--stop", "--vault", copy.root)
    assert stopped.returncode == 0, stopped.stderr
    assert rpc.pid_alive(original)
    assert rpc.read_state(copy) is None  # the copied leftovers are cleaned
    assert rpc.read_state(hash_vault)["pid"] == original
