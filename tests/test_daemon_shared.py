"""One daemon per user serves every vault (issue 29): real daemon subprocesses started by `vault
recall` and `vault watch` as a person starts them, each test with its own runtime folder
(conftest.isolated_environment), real vaults with the hash embedder."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import delete_tree, run_vault, set_daemon_settings, use_hash_embedder, wait_for
from memory_fixtures import build

from sheriff_vault.daemon import lifecycle, rpc, runtime
from sheriff_vault.errors import DaemonError
from sheriff_vault.store.vault import Vault, init_vault

NOW = "2026-02-20T03:21:00Z"


def make_vault(root: Path, **daemon: object) -> Vault:
    """A built vault (hash embedder) with these `daemon:` settings written to its vault.yaml."""
    vault = set_daemon_settings(use_hash_embedder(init_vault(root).vault), **daemon)
    build(vault)
    return vault


def recall_json(root: Path, query: str = "the party") -> dict:
    out = run_vault("recall", query, "--vault", root, "--now", NOW, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def served() -> list[str]:
    """The vaults the user's daemon says it serves (its daemon.json in the runtime folder)."""
    return (lifecycle.host_state() or {}).get("vaults", [])


def test_one_daemon_serves_every_vault_and_holds_the_model_once(tmp_path, autostart):
    a, b = make_vault(tmp_path / "a"), make_vault(tmp_path / "b")
    off = make_vault(tmp_path / "off", autostart=False)
    for vault in (a, b, off):
        autostart(vault.root)
    assert recall_json(a.root)["via"] == "daemon"
    assert recall_json(b.root)["via"] == "daemon"  # opened by the running daemon, no second process
    pids = {rpc.read_state(v)["pid"] for v in (a, b)}
    assert len(pids) == 1 and {d["pid"] for d in lifecycle.daemons(tmp_path)} == pids
    assert rpc.read_state(a)["socket"] == str(runtime.socket_path())
    assert served() == [str(a.root), str(b.root)]
    about = lifecycle.host_call("about")
    assert about is not None and len(about["models"]) == 1  # one model for both vaults
    assert recall_json(off.root)["via"] == "process"  # `daemon.autostart: false`: never opened
    assert str(off.root) not in served() and rpc.read_state(off) is None
    listing = json.loads(run_vault("watch", "--status", "--all", "--json").stdout)
    ours = [d for d in listing["daemons"] if d["vault"].startswith(str(tmp_path))]  # not the user's own daemons
    assert [(d["vault"], d["pid"]) for d in ours] == [(str(a.root), *pids), (str(b.root), *pids)]
    assert all(d["index_mb"] > 0 and d["generation"] is not None for d in ours)
    stopped = run_vault("watch", "--stop", "--vault", a.root)
    assert stopped.stdout.strip() == "stopped", stopped.stderr
    assert served() == [str(b.root)] and rpc.read_state(a) is None
    assert recall_json(b.root)["topics"][0]["name"] == "Caroline's birthday party"


def test_a_deleted_vault_is_dropped_and_the_daemon_exits_when_it_serves_nothing(tmp_path, autostart):
    """Issue 29's 'done when': the deleted vault's resources are released within 5 s; the daemon
    exits once the vault it still served has been idle for its idle time."""
    kept, doomed = make_vault(tmp_path / "kept", idle_exit_seconds=4), make_vault(tmp_path / "doomed")
    autostart(kept.root)
    autostart(doomed.root)
    assert recall_json(kept.root)["via"] == recall_json(doomed.root)["via"] == "daemon"
    pid = rpc.read_state(kept)["pid"]
    delete_tree(doomed.root)
    wait_for(lambda: served() == [str(kept.root)], timeout=5, what="the deleted vault dropped")
    # the list of vaults served changes first; the log line says its resources were released
    wait_for(lambda: f"no longer serving {doomed.root}" in (runtime.runtime_dir() / "daemon.log").read_text(),
             timeout=5, what="the deleted vault's resources released")
    assert rpc.pid_alive(pid)  # still serving the other vault
    wait_for(lambda: not rpc.pid_alive(pid), timeout=30, what="the daemon exits once nothing is served")
    assert "no request for 4s" in (kept.logs / "daemon.log").read_text()
    assert not (kept.cache / "daemon.json").exists() and not runtime.socket_path().exists()
    assert not (runtime.runtime_dir() / "daemon.json").exists()


def test_the_users_daemon_leaves_when_its_installed_code_changes_and_the_next_recall_runs_the_new(
        tmp_path, autostart):
    """A person upgrades Sheriff Vault while their daemon runs (hooks keep it busy, so it never
    idles out): it must not answer with the old code for ever. Here the package is a copy, run as
    an installed one would be; changing one of its modules is the upgrade."""
    import shutil

    import sheriff_vault

    code = tmp_path / "site"
    shutil.copytree(Path(sheriff_vault.__file__).parent, code / "sheriff_vault",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(code)}
    vault = make_vault(tmp_path / "v")
    autostart(vault.root)

    def recall_via() -> dict:
        out = run_vault("recall", "the party", "--vault", vault.root, "--now", NOW, "--json", env=env)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    assert recall_via()["via"] == "daemon"
    pid = rpc.read_state(vault)["pid"]
    assert rpc.pid_alive(pid)  # the daemon of the copy is up
    module = code / "sheriff_vault" / "text.py"
    module.write_text(module.read_text() + "\n# upgraded\n")
    wait_for(lambda: not rpc.pid_alive(pid), timeout=30, what="the daemon of the old code gone")
    assert "the installed code changed" in (runtime.runtime_dir() / "daemon.log").read_text()
    assert recall_via()["via"] == "daemon"
    assert rpc.read_state(vault)["pid"] != pid  # a new daemon, started from what is installed now


def test_the_least_recently_used_vault_is_closed_past_max_open_vaults(tmp_path, autostart):
    vaults = [make_vault(tmp_path / name, max_open_vaults=2) for name in ("one", "two", "three")]
    for vault in vaults:
        autostart(vault.root)
    for vault in vaults[:2]:
        assert recall_json(vault.root)["via"] == "daemon"
    assert recall_json(vaults[0].root)["via"] == "daemon"  # now "two" is the least recently used
    assert recall_json(vaults[2].root)["via"] == "daemon"
    assert served() == [str(vaults[0].root), str(vaults[2].root)]
    assert rpc.read_state(vaults[1]) is None
    assert "closed to make room" in (vaults[1].logs / "daemon.log").read_text()
    again = recall_json(vaults[1].root)  # opened again on its next recall
    assert again["via"] == "daemon" and again["topics"][0]["name"] == "Caroline's birthday party"


def test_a_pinned_daemon_serves_its_vault_beside_the_users_daemon(tmp_path, autostart):
    """`vault watch --foreground --vault PATH` runs a daemon of that vault alone (tests, debugging):
    recall there is answered by it, the user's daemon serves the others and does not open it."""
    shared, pinned = make_vault(tmp_path / "shared"), make_vault(tmp_path / "pinned")
    autostart(shared.root)
    autostart(pinned.root)
    proc = subprocess.Popen([sys.executable, "-m", "sheriff_vault", "watch", "--foreground", "--vault",
                             str(pinned.root)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: rpc.call(pinned, "ping"), timeout=60, what="the pinned daemon answers")
        assert recall_json(shared.root)["via"] == "daemon"
        assert recall_json(pinned.root)["via"] == "daemon"
        assert rpc.read_state(pinned)["pid"] == proc.pid
        assert rpc.read_state(pinned)["socket"] == str(rpc.socket_path_for(pinned))
        assert str(pinned.root) not in served()
        with pytest.raises(DaemonError, match="already runs for this vault"):  # the vault's lock is the pinned one's
            lifecycle.host_call("open", {"idle_exit": 0}, pinned)
    except BaseException:
        proc.kill()
        raise
    finally:
        stopped = run_vault("watch", "--stop", "--vault", pinned.root)
        proc.wait(timeout=30)
    assert stopped.returncode == 0 and stopped.stdout.strip() == "stopped", stopped.stderr
    assert served() == [str(shared.root)]


def test_a_daemon_that_hangs_up_mid_request_is_no_answer_not_a_closed_stdout(tmp_path):
    """A daemon stopping as a request arrives closes the connection unread: the client's send fails
    with a broken pipe, which must read as "no answer" (the caller starts another daemon), never
    reach the CLI, where a broken pipe means its own stdout closed and exits 0 without a word."""
    import socket as socketlib
    import threading

    from sheriff_vault.daemon import rpc

    path = str(tmp_path / "d.sock")
    server = socketlib.socket(socketlib.AF_UNIX, socketlib.SOCK_STREAM)
    server.bind(path)
    server.listen(1)

    def hang_up() -> None:
        conn, _ = server.accept()
        conn.setsockopt(socketlib.SOL_SOCKET, socketlib.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        conn.close()

    threading.Thread(target=hang_up, daemon=True).start()
    try:
        assert rpc.call_socket(path, {"op": "open", "args": {"pad": "x" * 4_000_000}}, timeout=10) is None
    finally:
        server.close()
